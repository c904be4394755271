"""/openapi.json documents exactly the routes the app serves."""

from __future__ import annotations

from serve_helpers import Client

from tod_runtime.server.app import create_app

IGNORED = {"HEAD", "OPTIONS", "*"}


def served_routes() -> set[tuple[str, str]]:
    app = create_app()
    routes = set()
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if path and route.method not in IGNORED:  # static files have a prefix, not a path
            routes.add((route.method.lower(), path))
    return routes


async def test_every_route_is_documented_and_nothing_else(client: Client) -> None:
    document = await (await client.get("/openapi.json")).json()
    documented = {
        (method, path)
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    assert documented == served_routes()
    assert document["openapi"].startswith("3.")
    schemas = document["components"]["schemas"]
    for ref in ("TurnResult", "TurnRequest", "Error", "Session", "SessionId"):
        assert ref in schemas
    assert {"utterance", "state", "actions", "service_call"} <= set(
        schemas["TurnResult"]["properties"]
    )


def test_every_ref_resolves() -> None:
    from tod_runtime.server.openapi import openapi_document

    document = openapi_document()
    text = str(document)
    import re

    for name in set(re.findall(r"#/components/schemas/(\w+)", text)):
        assert name in document["components"]["schemas"], name
