"""The conversation suite: everyday conversations written from the user's side, each with the
outcome the user wanted, run through ``tod_runtime.Runtime`` to measure how often a user gets
their task done. See docs/conversations.md for the file format.

Used by tests/test_conversations.py and benchmarks/conversations.py::

    conversations = load_all()
    outcomes = asyncio.run(run_suite(conversations, sgd_zip=default_sgd_zip()))
    print(summary(outcomes))
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tod_runtime import Runtime, Schemas, TurnResult, load_config
from tod_runtime.config import embedded_services_dir
from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import SYSTEM_ACTS
from tod_runtime.schema.loader import load_schema_file
from tod_runtime.values.dates import TODAY_ENV

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EMBEDDED = "embedded"
SGD_SPLITS = ("dev", "train")
EXPECT_KEYS = frozenset(
    {
        "service_call",
        "no_service_call",
        "final_state",
        "reply_contains",
        "acts_include",
        "acts_exclude",
        "distinct_offers",
    }
)

SUITE_TODAY = "2019-03-01"  # SGD's day (a Friday): every conversation is held on it
Accepted = tuple[str, ...]  # equivalent accepted values of one slot (case-insensitive)


def default_sgd_zip() -> Path:
    """The shared SGD zip, found the way tests/conftest.py finds it (``$TOD_SHARED_DIR``)."""
    shared = Path(os.environ.get("TOD_SHARED_DIR", ROOT.parent / "shared"))
    return shared / "sgd" / "sgd-train-dev.zip"


class ConversationError(ValueError):
    """A conversation file that does not parse or does not match the schemas."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path.name}: {message}")
        self.path = path


# --------------------------------------------------------------------------- the format


@dataclass(frozen=True)
class CallSpec:
    """A service call (or its absence): method, optional service, a subset of parameters."""

    method: str
    service: str | None = None
    parameters: Mapping[str, Accepted] = field(default_factory=dict)

    def __str__(self) -> str:
        params = ", ".join(f"{k}={'|'.join(v)}" for k, v in self.parameters.items())
        where = f"{self.service}." if self.service else ""
        return f"{where}{self.method}({params})"


@dataclass(frozen=True)
class StateSpec:
    service: str
    slot_values: Mapping[str, Accepted] = field(default_factory=dict)
    active_intent: str | None = None


@dataclass(frozen=True)
class ActSpec:
    """``ACT`` or ``ACT(slot)``."""

    act: str
    slot: str | None = None

    @classmethod
    def parse(cls, text: str) -> ActSpec:
        text = text.strip()
        if text.endswith(")") and "(" in text:
            act, slot = text[:-1].split("(", 1)
            return cls(act.strip().upper(), slot.strip())
        return cls(text.upper())

    def __str__(self) -> str:
        return f"{self.act}({self.slot})" if self.slot else self.act


@dataclass(frozen=True)
class Expect:
    service_calls: tuple[CallSpec, ...] = ()
    no_service_calls: tuple[CallSpec, ...] = ()
    final_state: StateSpec | None = None
    reply_contains: tuple[str, ...] = ()
    acts_include: tuple[ActSpec, ...] = ()
    acts_exclude: tuple[ActSpec, ...] = ()
    distinct_offers: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Conversation:
    name: str
    path: Path
    goal: str  # the file's first comment line: what the user wants
    services: str  # "embedded" or "sgd:<split>"
    turns: tuple[str, ...]
    expect: Expect

    @property
    def split(self) -> str | None:
        return self.services.split(":", 1)[1] if self.services.startswith("sgd:") else None


def _accepted(path: Path, where: str, value: Any) -> Accepted:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) for v in values):
        raise ConversationError(path, f"{where}: expected a string or a list of strings")
    return tuple(values)


def _strings(path: Path, where: str, value: Any) -> tuple[str, ...]:
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise ConversationError(path, f"{where}: expected a string or a list of strings")
    return tuple(values)


def _table(path: Path, where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConversationError(path, f"{where}: expected a table")
    return value


def _slot_table(path: Path, where: str, value: Any) -> dict[str, Accepted]:
    return {k: _accepted(path, f"{where}.{k}", v) for k, v in _table(path, where, value).items()}


def _calls(path: Path, where: str, value: Any) -> tuple[CallSpec, ...]:
    specs = []
    for i, item in enumerate(value if isinstance(value, list) else [value]):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        table = _table(path, at, item)
        unknown = set(table) - {"method", "service", "parameters"}
        if unknown or not isinstance(table.get("method"), str):
            raise ConversationError(
                path,
                f"{at}: needs method (and optionally service, parameters); got {sorted(table)}",
            )
        service = table.get("service")
        if service is not None and not isinstance(service, str):
            raise ConversationError(path, f"{at}.service: expected a string")
        params = _slot_table(path, f"{at}.parameters", table.get("parameters", {}))
        specs.append(CallSpec(table["method"], service, params))
    return tuple(specs)


def _final_state(path: Path, value: Any) -> StateSpec:
    table = _table(path, "expect.final_state", value)
    unknown = set(table) - {"service", "slot_values", "active_intent"}
    if unknown or not isinstance(table.get("service"), str):
        raise ConversationError(
            path, "expect.final_state: needs service (and slot_values, active_intent)"
        )
    intent = table.get("active_intent")
    if intent is not None and not isinstance(intent, str):
        raise ConversationError(path, "expect.final_state.active_intent: expected a string")
    slots = _slot_table(path, "expect.final_state.slot_values", table.get("slot_values", {}))
    return StateSpec(table["service"], slots, intent)


def _distinct(path: Path, value: Any) -> dict[str, int]:
    table = _table(path, "expect.distinct_offers", value)
    if not all(isinstance(n, int) and n >= 1 for n in table.values()):
        raise ConversationError(path, "expect.distinct_offers: slot = a count >= 1")
    return dict(table)


def parse_conversation(path: Path, text: str) -> Conversation:
    """Read one conversation file (TOML) into a Conversation; raise ConversationError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConversationError(path, f"invalid TOML: {exc}") from None
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    if not first.startswith("#") or not first.lstrip("# ").strip():
        raise ConversationError(path, "the first line must be a comment saying what the user wants")
    unknown = set(data) - {"services", "turns", "expect"}
    if unknown:
        raise ConversationError(path, f"unknown keys {sorted(unknown)}")
    services = data.get("services")
    valid = {EMBEDDED, *(f"sgd:{s}" for s in SGD_SPLITS)}
    if services not in valid:
        raise ConversationError(path, f"services: expected one of {sorted(valid)}")
    turns = data.get("turns")
    if not isinstance(turns, list) or not turns:
        raise ConversationError(path, "turns: expected a non-empty list of user lines")
    turns_t = _strings(path, "turns", turns)
    table = _table(path, "expect", data.get("expect"))
    unknown = set(table) - EXPECT_KEYS
    if unknown or not table:
        raise ConversationError(path, f"expect: use one or more of {sorted(EXPECT_KEYS)}")
    acts = {
        key: tuple(ActSpec.parse(a) for a in _strings(path, f"expect.{key}", table[key]))
        for key in ("acts_include", "acts_exclude")
        if key in table
    }
    expect = Expect(
        service_calls=_calls(path, "expect.service_call", table.get("service_call", [])),
        no_service_calls=_calls(path, "expect.no_service_call", table.get("no_service_call", [])),
        final_state=_final_state(path, table["final_state"]) if "final_state" in table else None,
        reply_contains=_strings(path, "expect.reply_contains", table.get("reply_contains", [])),
        acts_include=acts.get("acts_include", ()),
        acts_exclude=acts.get("acts_exclude", ()),
        distinct_offers=_distinct(path, table.get("distinct_offers", {})),
    )
    goal = first.lstrip("# ").strip()
    return Conversation(path.stem, path, goal, services, turns_t, expect)


def load_conversation(path: Path) -> Conversation:
    return parse_conversation(path, path.read_text(encoding="utf-8"))


def conversation_files(folder: Path = HERE) -> list[Path]:
    return sorted(folder.glob("*.toml"))


def load_all(folder: Path = HERE) -> list[Conversation]:
    return [load_conversation(p) for p in conversation_files(folder)]


# --------------------------------------------------------------------------- schemas


def embedded_schemas() -> Schemas:
    return Schemas(
        s
        for p in sorted(embedded_services_dir().glob("*/schema.json"))
        for s in load_schema_file(p)
    )


def sgd_schemas(sgd_zip: Path, split: str) -> Schemas:
    return open_split(sgd_zip, split).schemas()


def services_source(conversation: Conversation, sgd_zip: Path | None) -> str | None:
    """What ``tod chat --services`` would be given, or None when the SGD data is missing."""
    if conversation.split is None:
        return str(embedded_services_dir())
    if sgd_zip is None or not sgd_zip.exists():
        return None
    return f"{sgd_zip}:{conversation.split}"


def validate(conversation: Conversation, schemas: Schemas) -> list[str]:
    """What in the conversation names no real service, intent or slot of ``schemas``."""
    problems: list[str] = []
    every_slot = {slot.name for s in schemas.values() for slot in s.slots}

    def check_call(spec: CallSpec, key: str) -> None:
        services = [schemas[spec.service]] if spec.service in schemas else []
        if spec.service is not None and not services:
            problems.append(f"{key}: unknown service {spec.service!r}")
            return
        if spec.service is None:
            services = list(schemas.values())
        owners = [s for s in services if any(i.name == spec.method for i in s.intents)]
        if not owners:
            problems.append(f"{key}: no service has intent {spec.method!r}")
            return
        for slot in spec.parameters:
            if not any(slot in {x.name for x in s.slots} for s in owners):
                problems.append(f"{key}: {spec.method} has no slot {slot!r}")

    expect = conversation.expect
    for spec in expect.service_calls:
        check_call(spec, "service_call")
    for spec in expect.no_service_calls:
        check_call(spec, "no_service_call")
    if expect.final_state is not None:
        state = expect.final_state
        if state.service not in schemas:
            problems.append(f"final_state: unknown service {state.service!r}")
        else:
            schema = schemas[state.service]
            names = {slot.name for slot in schema.slots}
            problems += [f"final_state: no slot {k!r}" for k in state.slot_values if k not in names]
            intents = {i.name for i in schema.intents}
            if state.active_intent is not None and state.active_intent not in intents:
                problems.append(f"final_state: no intent {state.active_intent!r}")
    for act in (*expect.acts_include, *expect.acts_exclude):
        if act.act not in SYSTEM_ACTS:
            problems.append(f"acts: {act.act!r} is not a system act")
        if act.slot is not None and act.slot not in every_slot:
            problems.append(f"acts: no service has slot {act.slot!r}")
    problems += [
        f"distinct_offers: no slot {k!r}" for k in expect.distinct_offers if k not in every_slot
    ]
    return problems


# --------------------------------------------------------------------------- running


@dataclass
class Outcome:
    name: str
    services: str
    goal: str
    passed: bool = False
    skipped: str | None = None
    failures: list[str] = field(default_factory=list)
    transcript: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "services": self.services,
            "goal": self.goal,
            "failures": self.failures,
            "transcript": [{"user": u, "system": s} for u, s in self.transcript],
        }


def _norm(value: str) -> str:
    return " ".join(value.lower().split())


def _matches(accepted: Accepted, actual: Iterable[str]) -> bool:
    wanted = {_norm(a) for a in accepted}
    return any(_norm(v) in wanted for v in actual)


def _call_matches(spec: CallSpec, turn: TurnResult) -> bool:
    call = turn.service_call
    if call is None or call.method != spec.method:
        return False
    if spec.service is not None and turn.service != spec.service:
        return False
    return all(
        name in call.parameters and _matches(accepted, [call.parameters[name]])
        for name, accepted in spec.parameters.items()
    )


def _act_seen(spec: ActSpec, turns: Sequence[TurnResult]) -> bool:
    return any(
        a.act == spec.act and (spec.slot is None or a.slot == spec.slot)
        for t in turns
        for a in t.actions
    )


def check(expect: Expect, turns: Sequence[TurnResult], state: Mapping[str, Any]) -> list[str]:
    """What the conversation's turns (and its final state) failed to do; [] when passed."""
    failures: list[str] = []
    calls = [
        f"{t.service}.{t.service_call.method}{dict(t.service_call.parameters)}"
        for t in turns
        if t.service_call is not None
    ]
    seen = "; ".join(calls) or "none"
    for spec in expect.service_calls:
        if not any(_call_matches(spec, t) for t in turns):
            failures.append(f"no service call {spec} (calls made: {seen})")
    for spec in expect.no_service_calls:
        if any(_call_matches(spec, t) for t in turns):
            failures.append(f"an unwanted service call {spec} was made")
    if expect.final_state is not None:
        want = expect.final_state
        got = state.get(want.service)
        if got is None:
            failures.append(f"final state has no frame for {want.service}")
        else:
            for slot, accepted in want.slot_values.items():
                values = got.slot_values.get(slot, [])
                if not _matches(accepted, values):
                    failures.append(
                        f"final state {want.service}.{slot}={values} (wanted {'|'.join(accepted)})"
                    )
            if want.active_intent is not None and got.active_intent != want.active_intent:
                failures.append(
                    f"final active intent {got.active_intent} (wanted {want.active_intent})"
                )
    replies = [_norm(t.utterance) for t in turns]
    for text in expect.reply_contains:
        if not any(_norm(text) in r for r in replies):
            failures.append(f"no reply contains {text!r}")
    for act in expect.acts_include:
        if not _act_seen(act, turns):
            failures.append(f"the system never did {act}")
    for act in expect.acts_exclude:
        if _act_seen(act, turns):
            failures.append(f"the system did {act}")
    for slot, count in expect.distinct_offers.items():
        offered = {
            _norm(v)
            for t in turns
            for a in t.actions
            if a.act == "OFFER" and a.slot == slot
            for v in a.values
        }
        if len(offered) < count:
            failures.append(f"{len(offered)} distinct {slot} offered (wanted {count})")
    return failures


async def run_conversation(runtime: Runtime, conversation: Conversation) -> Outcome:
    """Send the user's turns, one session per conversation, and check the expectations."""
    outcome = Outcome(conversation.name, conversation.services, conversation.goal)
    session = f"conversation-{conversation.name}"
    await runtime.delete(session)
    turns = []
    for text in conversation.turns:
        result = await runtime.handle(session, text)
        turns.append(result)
        outcome.transcript.append((text, result.utterance))
    state = await runtime.state(session)
    outcome.failures = check(conversation.expect, turns, state)
    outcome.passed = not outcome.failures
    return outcome


async def run_suite(
    conversations: Sequence[Conversation],
    *,
    sgd_zip: Path | None = None,
    config: str | Path | None = None,
) -> list[Outcome]:
    """Run every conversation, one runtime per services source, in file order, with the
    pipeline of the TOML ``config`` (default: the default pipeline). A conversation over SGD
    services is skipped (``skipped`` set) when ``sgd_zip`` is missing."""
    outcomes: dict[str, Outcome] = {}
    by_source: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        source = services_source(conversation, sgd_zip)
        if source is None:
            outcomes[conversation.name] = Outcome(
                conversation.name,
                conversation.services,
                conversation.goal,
                skipped=f"SGD data not found: {sgd_zip}",
            )
        else:
            by_source.setdefault(source, []).append(conversation)
    with suite_day():
        for source, group in by_source.items():
            async with Runtime(load_config(config, services=source)) as runtime:
                for conversation in group:
                    outcomes[conversation.name] = await run_conversation(runtime, conversation)
    return [outcomes[c.name] for c in conversations]


@contextmanager
def suite_day(day: str = SUITE_TODAY) -> Iterator[None]:
    """Hold the conversations on ``day``: a backend without a date of its own (the embedded
    services) reads "next Friday" against it (``$TOD_TODAY``), as SGD's data is read against
    its own 2019-03-01. A ``$TOD_TODAY`` already set wins."""
    before = os.environ.get(TODAY_ENV)
    os.environ[TODAY_ENV] = before or day
    try:
        yield
    finally:
        if before is None:
            del os.environ[TODAY_ENV]
        else:
            os.environ[TODAY_ENV] = before


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """A JSON-able summary, comparable run to run: counts and rates overall and per services
    source, and every failure with its reasons."""
    ran = [o for o in outcomes if o.skipped is None]

    def rate(group: Sequence[Outcome]) -> dict[str, Any]:
        passed = sum(o.passed for o in group)
        return {
            "conversations": len(group),
            "passed": passed,
            "success_rate": round(passed / len(group), 4) if group else 0.0,
        }

    groups = sorted({o.services for o in ran})
    return {
        **rate(ran),
        "skipped": [o.name for o in outcomes if o.skipped is not None],
        "groups": {g: rate([o for o in ran if o.services == g]) for g in groups},
        "failures": [o.to_json() for o in ran if not o.passed],
    }
