"""The OpenAPI 3.1 document of the server's routes (a test checks it lists exactly the routes
the app serves). Turn results are TurnResult's JSON schema, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

from tod_runtime.dialogue.steps import TurnResult

_ERROR = {"$ref": "#/components/schemas/Error"}
_ID = {
    "name": "id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {
        400: "malformed JSON, a missing field or a wrong type",
        401: "missing or wrong bearer token (when the server has one)",
        404: "no such session",
        409: "another process changed the session meanwhile; nothing was stored",
        408: "the body took longer than the read timeout to arrive",
        413: "the body is larger than the limit",
        429: "too many requests from this client (Retry-After says when to retry)",
        500: "a plugin failed; the session is as it was before the turn",
        503: "the session store is unavailable, the session is locked by another process, "
        "or the server holds its most sessions (Retry-After says when to retry)",
    }
    return {str(c): _json(_ERROR, text[c]) for c in codes}


def openapi_document() -> dict[str, Any]:
    turn_schema = TurnResult.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = turn_schema.pop("$defs", {})
    session_ops = (401, 404)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "tod-runtime",
            "version": "0.1.0",
            "description": "Task-oriented dialogue over SGD service schemas. With a bearer "
            "token configured, every /v1 route needs `Authorization: Bearer <token>` (a "
            "WebSocket may pass `?access_token=` instead).",
        },
        "paths": {
            "/": {
                "get": {
                    "summary": "the web chat page",
                    "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}},
                }
            },
            "/healthz": {
                "get": {
                    "summary": "liveness",
                    "responses": {"200": _json({"type": "object"}, "ok")},
                }
            },
            "/openapi.json": {
                "get": {
                    "summary": "this document",
                    "responses": {"200": _json({"type": "object"}, "the OpenAPI document")},
                }
            },
            "/v1/services": {
                "get": {
                    "summary": "the services served (their schemas)",
                    "responses": {"200": _json({"type": "object"}, "services"), **_errors(401)},
                }
            },
            "/v1/sessions": {
                "post": {
                    "summary": "start a session",
                    "responses": {
                        "201": _json({"$ref": "#/components/schemas/SessionId"}, "the new id"),
                        **_errors(401, 429, 503),
                    },
                }
            },
            "/v1/sessions/{id}": {
                "parameters": [_ID],
                "get": {
                    "summary": "a session's state and turns (SGD format)",
                    "responses": {
                        "200": _json({"$ref": "#/components/schemas/Session"}, "the session"),
                        **_errors(*session_ops),
                    },
                },
                "delete": {
                    "summary": "delete a session",
                    "responses": {
                        "200": _json({"type": "object"}, "deleted"),
                        **_errors(*session_ops, 503),
                    },
                },
            },
            "/v1/sessions/{id}/turns": {
                "parameters": [_ID],
                "post": {
                    "summary": "one user turn: the system's reply, acts, state, service call",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/TurnRequest"}
                            }
                        },
                    },
                    "responses": {
                        "200": _json({"$ref": "#/components/schemas/TurnResult"}, "the turn"),
                        **_errors(400, *session_ops, 408, 409, 413, 429, 500, 503),
                    },
                },
            },
            "/v1/sessions/{id}/ws": {
                "parameters": [_ID],
                "get": {
                    "summary": 'WebSocket: send {"text"} messages, receive TurnResult '
                    'messages (or {"error", "status"})',
                    "responses": {
                        "101": {"description": "switching protocols"},
                        **_errors(*session_ops),
                    },
                },
            },
        },
        "components": {
            "schemas": {
                **defs,
                "TurnResult": turn_schema,
                "TurnRequest": {
                    "type": "object",
                    "required": ["text"],
                    "properties": {"text": {"type": "string"}},
                },
                "SessionId": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": {"type": "string"}},
                },
                "Session": {
                    "type": "object",
                    "required": ["id", "state", "turns"],
                    "properties": {
                        "id": {"type": "string"},
                        "state": {"type": "object"},
                        "turns": {"type": "array", "items": {"type": "object"}},
                    },
                },
                "Error": {
                    "type": "object",
                    "required": ["error", "status"],
                    "properties": {"error": {"type": "string"}, "status": {"type": "integer"}},
                },
            }
        },
    }
