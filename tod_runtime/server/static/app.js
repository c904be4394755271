// tod-runtime web chat: plain JavaScript, no build step. Talks to the REST API.
"use strict";

const $ = (id) => document.getElementById(id);
const turns = [];
let sessionId = null;

function token() {
  const match = location.hash.match(/token=([^&]+)/);
  if (match) sessionStorage.setItem("tod-token", decodeURIComponent(match[1]));
  return sessionStorage.getItem("tod-token");
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function addMessage(kind, text, index) {
  const attrs = { class: `msg ${kind}` };
  if (index !== undefined) {
    attrs["data-turn"] = String(index);
    attrs.onclick = () => inspect(index);
    attrs.title = "inspect this turn";
  }
  const item = el("li", attrs, el("div", { class: "bubble" }, text));
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function actText(action) {
  const values = (action.values || []).join(" | ");
  return action.slot ? `${action.slot}${values ? " = " + values : ""}` : values;
}

function actList(actions) {
  if (!actions || actions.length === 0) return el("p", { class: "none" }, "none");
  return el("ul", { class: "acts" }, actions.map((a) =>
    el("li", {}, el("span", { class: "act" }, a.act), " ", el("span", {}, actText(a)))));
}

function card(title, ...body) {
  return el("section", { class: "card" }, el("h3", {}, title), ...body);
}

function stateView(state) {
  const services = Object.keys(state || {});
  if (services.length === 0) return el("p", { class: "none" }, "empty");
  return services.map((service) => {
    const frame = state[service];
    const slots = Object.entries(frame.slot_values || {});
    return el("div", { class: "frame" },
      el("div", { class: "frame-head" }, el("strong", {}, service),
        el("span", { class: "intent" }, frame.active_intent || "NONE")),
      slots.length ? el("table", { class: "slots" }, slots.map(([slot, values]) =>
        el("tr", {}, el("th", {}, slot), el("td", {}, values.join(" | "))))) : null,
      (frame.requested_slots || []).length
        ? el("p", { class: "requested" }, "requested: " + frame.requested_slots.join(", "))
        : null);
  });
}

function callView(result) {
  if (!result.service_call) return el("p", { class: "none" }, "no call this turn");
  const call = result.service_call;
  const params = Object.entries(call.parameters || {}).map(([k, v]) => `${k}=${v}`).join(", ");
  const results = result.service_results || [];
  return [
    el("p", { class: "call" }, el("code", {}, `${call.method}(${params})`)),
    el("p", { class: "count" }, `${results.length} result${results.length === 1 ? "" : "s"}`),
    results.slice(0, 3).map((row) => el("table", { class: "slots result" },
      Object.entries(row).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))))),
  ];
}

function inspect(index) {
  const { text, result } = turns[index];
  document.querySelectorAll(".msg.selected").forEach((n) => n.classList.remove("selected"));
  document.querySelectorAll(`[data-turn="${index}"]`).forEach((n) => n.classList.add("selected"));
  $("inspected").textContent = `turn ${index + 1}: “${text}”`;
  const userActs = Object.entries(result.user_acts || {});
  const body = $("inspector-body");
  body.replaceChildren(
    card("User acts", userActs.length ? userActs.map(([service, acts]) =>
      el("div", { class: "frame" }, el("div", { class: "frame-head" }, el("strong", {}, service)),
        actList(acts))) : el("p", { class: "none" }, result.notice ? "not understood" : "none")),
    card("Dialogue state", stateView(result.state)),
    card("Service call", callView(result)),
    card(`System acts${result.service ? " · " + result.service : ""}`, actList(result.actions)),
  );
}

async function loadServices() {
  try {
    const { services } = await api("GET", "/v1/services");
    const names = services.map((s) => s.service_name.replace(/_\d+$/, "")).join(", ");
    $("services-hint").textContent = `I can help with: ${names}.`;
  } catch (error) {
    $("services-hint").textContent = `Cannot list services: ${error.message}`;
  }
}

async function newSession() {
  const { id } = await api("POST", "/v1/sessions");
  sessionId = id;
  turns.length = 0;
  $("session-id").textContent = `session ${id.slice(0, 8)}…`;
  $("messages").querySelectorAll(".msg").forEach((n) => n.remove());
  $("inspected").textContent = "no turn yet";
  $("inspector-body").replaceChildren(el("p", { class: "empty" },
    "Each turn's acts, dialogue state and service call show here."));
  $("text").focus();
}

async function send(event) {
  event.preventDefault();
  const input = $("text");
  const text = input.value.trim();
  if (!text || !sessionId) return;
  input.value = "";
  addMessage("user", text);
  const pending = addMessage("bot pending", "…");
  $("send").disabled = true;
  try {
    const result = await api("POST", `/v1/sessions/${sessionId}/turns`, { text });
    const index = turns.push({ text, result }) - 1;
    pending.remove();
    addMessage(result.notice ? "bot notice" : "bot", result.utterance, index);
    inspect(index);
  } catch (error) {
    pending.remove();
    addMessage("error", `Error: ${error.message}`);
  } finally {
    $("send").disabled = false;
    input.focus();
  }
}

$("composer").addEventListener("submit", send);
$("new-session").addEventListener("click", () => newSession().catch((e) => addMessage("error", e.message)));
loadServices();
newSession().catch((error) => addMessage("error", `Error: ${error.message}`));
