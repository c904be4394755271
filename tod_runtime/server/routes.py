"""The routes: thin handlers over the Runtime. Each one checks its input, calls the runtime
and answers JSON; errors become JSON answers in ``app.errors_middleware``."""

from __future__ import annotations

import json
import logging
import re
import secrets
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from tod_runtime.errors import TodError
from tod_runtime.runtime import Runtime
from tod_runtime.server.base import RUNTIME, SETTINGS, SOCKETS, answer_of
from tod_runtime.server.limits import read_body
from tod_runtime.server.openapi import openapi_document
from tod_runtime.session import SessionReset
from tod_runtime.stores.base import count_sessions

log = logging.getLogger("tod_runtime.server")
STATIC = Path(__file__).with_name("static")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _bad(message: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(reason=message)


def parse_turn(raw: bytes | str) -> str:
    """The ``text`` of a turn request body, or a 400 naming what is wrong."""
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise _bad("the body is not valid JSON") from None
    except RecursionError:
        raise _bad("the body is nested too deeply") from None
    if not isinstance(body, dict):
        raise _bad("the body must be a JSON object")
    if "text" not in body:
        raise _bad("missing field 'text'")
    text = body["text"]
    if not isinstance(text, str):
        raise _bad("field 'text' must be a string")
    return text


_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


def idempotency_key(request: web.Request) -> str | None:
    """The request's ``Idempotency-Key`` header (1-200 visible ASCII characters), if any:
    a retry with the same key gets the stored answer, and the turn is never run twice."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not _KEY.match(key):
        raise _bad("Idempotency-Key must be 1-200 visible ASCII characters")
    return key


async def _known(request: web.Request) -> tuple[Runtime, str]:
    runtime, session_id = request.app[RUNTIME], request.match_info["id"]
    if not _ID.match(session_id) or not await runtime.exists(session_id):
        raise web.HTTPNotFound(reason=f"no session {session_id!r}")
    return runtime, session_id


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def services(request: web.Request) -> web.Response:
    schemas = request.app[RUNTIME].schemas
    listing = [s.model_dump(mode="json", exclude_none=True) for s in schemas.values()]
    return web.json_response({"services": listing})


async def create_session(request: web.Request) -> web.Response:
    """A new, empty session. Its first event (a reset, which folds to nothing) makes it
    exist in the store, so every process serving the store knows it."""
    runtime = request.app[RUNTIME]
    limit = request.app[SETTINGS].max_sessions
    if limit and await count_sessions(runtime.store) >= limit:
        raise web.HTTPServiceUnavailable(reason="the server holds its most sessions; retry later")
    session_id = secrets.token_urlsafe(18)
    await runtime.store.append(session_id, [SessionReset()], expected=0)
    return web.json_response({"id": session_id}, status=201)


async def get_session(request: web.Request) -> web.Response:
    runtime, session_id = await _known(request)
    dialogue = await runtime.dialogue(session_id)
    turns = [t.model_dump(mode="json", exclude_none=True) for t in dialogue.turns]
    state = {s: v.model_dump(mode="json") for s, v in (await runtime.state(session_id)).items()}
    return web.json_response({"id": session_id, "state": state, "turns": turns})


async def delete_session(request: web.Request) -> web.Response:
    runtime, session_id = await _known(request)
    await runtime.delete(session_id)
    return web.json_response({"id": session_id, "deleted": True})


async def turn(request: web.Request) -> web.Response:
    runtime, session_id = request.app[RUNTIME], request.match_info["id"]
    if not runtime.holds(session_id):  # else the turn reads the session and checks it
        await _known(request)
    text = parse_turn(await read_body(request))
    result = await runtime.handle(session_id, text, key=idempotency_key(request))
    return web.Response(body=result.model_dump_json(), content_type="application/json")


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Each text message is a turn request (``{"text": ...}``); each answer is the turn
    result, or ``{"error", "status"}`` (the socket stays open)."""
    runtime, session_id = await _known(request)
    ws = web.WebSocketResponse(heartbeat=30, max_msg_size=request.app[SETTINGS].max_body_bytes)
    await ws.prepare(request)
    request.app[SOCKETS].open.add(ws)
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                await ws.send_json({"error": "send JSON text messages", "status": 400})
                continue
            try:
                answer = await _ws_turn(runtime, session_id, msg.data)
            except Exception:  # the socket is upgraded: an answer on it, never an HTTP 500
                log.exception("WebSocket turn of %s failed", session_id)
                answer = {"error": "internal error (the server log has the details)", "status": 500}
            await ws.send_json(answer)
    finally:
        request.app[SOCKETS].open.discard(ws)
    return ws


async def _ws_turn(runtime: Runtime, session_id: str, data: str) -> dict[str, Any]:
    try:
        if not await runtime.exists(session_id):
            return {"error": f"no session {session_id!r}", "status": 404}
        result = await runtime.handle(session_id, parse_turn(data))
    except web.HTTPException as exc:
        return {"error": exc.reason, "status": exc.status}
    except TodError as exc:
        status, message = answer_of(exc)
        if status >= 500:
            log.error("WebSocket turn of %s failed: %s", session_id, exc)
        return {"error": message, "status": status}
    return result.model_dump(mode="json")


async def openapi(request: web.Request) -> web.Response:
    return web.json_response(openapi_document())


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html")


def add_routes(app: web.Application) -> None:
    app.router.add_get("/", index)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/openapi.json", openapi)
    app.router.add_get("/v1/services", services)
    app.router.add_post("/v1/sessions", create_session)
    app.router.add_get("/v1/sessions/{id}", get_session)
    app.router.add_delete("/v1/sessions/{id}", delete_session)
    app.router.add_post("/v1/sessions/{id}/turns", turn)
    app.router.add_get("/v1/sessions/{id}/ws", websocket)
