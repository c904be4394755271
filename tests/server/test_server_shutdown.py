"""SIGTERM stops `tod serve` gracefully: a turn in flight finishes and is stored whole."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serve_helpers import ECHO, call, start_serve

SLOW_NLU = """
import asyncio
from tod_runtime import hookimpl
from tod_echo import EchoNLU

class SlowNLU(EchoNLU):
    async def parse(self, text, context):
        await asyncio.sleep(1.5)
        return await super().parse(text, context)

@hookimpl
def register_nlu(register):
    register("slow", SlowNLU)
"""


def test_sigterm_lets_the_turn_in_flight_finish(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "slow_nlu.py").write_text(SLOW_NLU)
    store = f"sqlite:///{tmp_path / 's.db'}"
    args = [*ECHO, "--plugins-dir", str(plugins)]
    args[args.index("--nlu") + 1] = "slow"
    server, port = start_serve(store, args)
    _, created = call(port, "POST", "/v1/sessions")
    sid = str(created["id"])
    with ThreadPoolExecutor(1) as pool:
        turn = pool.submit(call, port, "POST", f"/v1/sessions/{sid}/turns", {"text": "city=Rome"})
        time.sleep(0.7)  # the turn is in the NLU now
        server.send_signal(signal.SIGTERM)
        status, body = turn.result(timeout=30)
    assert status == 200 and body["utterance"] == "REQ_MORE()"
    assert server.wait(timeout=30) == 143  # 128 + SIGTERM, as docs/cli.md says
    server, port = start_serve(store, args, port=port)  # the turn was stored, whole
    try:
        status, session = call(port, "GET", f"/v1/sessions/{sid}")
        assert [t["speaker"] for t in session["turns"]] == ["USER", "SYSTEM"]  # type: ignore[attr-defined]
    finally:
        server.terminate()
        server.wait(timeout=30)
