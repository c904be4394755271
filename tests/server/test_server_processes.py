"""Real processes: two `tod serve` on one redis-server, two `tod chat` on one SQLite file, and
a server killed with -9 and restarted. Histories must equal the one-process history."""

from __future__ import annotations

import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from serve_helpers import ECHO, TOD, call, redis_server, start_serve, stop

import tod_echo
from tod_runtime import Config, Runtime
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.session import SessionLog

TURNS = [f"city=c{i} size=s{i}" if i % 3 else "call" for i in range(10)]
ECHO_CONFIG = Config(
    services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
)


async def one_process(texts: list[str]) -> list[tuple[str, str]]:
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(ECHO_CONFIG, plugin_manager=pm) as runtime:
        for text in texts:
            await runtime.handle("s", text)
        return [(t.speaker, t.utterance) for t in (await runtime.dialogue("s")).turns]


def spoken(port: int, sid: str) -> list[tuple[str, str]]:
    status, body = call(port, "GET", f"/v1/sessions/{sid}")
    assert status == 200, body
    return [(t["speaker"], t["utterance"]) for t in body["turns"]]  # type: ignore[attr-defined]


def check_concurrent(turns: list[tuple[str, str]], texts: list[str]) -> None:
    assert [speaker for speaker, _ in turns] == ["USER", "SYSTEM"] * len(texts)
    assert sorted(u for s, u in turns if s == "USER") == sorted(texts)


async def test_two_servers_on_one_redis(tmp_path: Path) -> None:
    with redis_server(tmp_path) as url:
        (a, port_a), (b, port_b) = start_serve(url), start_serve(url)
        try:
            _, created = call(port_a, "POST", "/v1/sessions")
            sid = str(created["id"])
            for i, text in enumerate(TURNS):
                status, _ = call(
                    (port_a, port_b)[i % 2], "POST", f"/v1/sessions/{sid}/turns", {"text": text}
                )
                assert status == 200
            assert spoken(port_b, sid) == await one_process(TURNS)
            _, created = call(port_b, "POST", "/v1/sessions")
            busy = str(created["id"])
            texts = [f"city=x{i}" for i in range(24)]
            with ThreadPoolExecutor(8) as pool:
                codes = list(
                    pool.map(
                        lambda i: call(
                            (port_a, port_b)[i % 2],
                            "POST",
                            f"/v1/sessions/{busy}/turns",
                            {"text": texts[i]},
                        )[0],
                        range(len(texts)),
                    )
                )
            assert codes == [200] * len(texts)
            check_concurrent(spoken(port_a, busy), texts)
        finally:
            stop(a)
            stop(b)


def chat(db: Path, script: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # noqa: S603
        [
            *TOD,
            "chat",
            "--store",
            f"sqlite:///{db}",
            "--session",
            "s",
            "--script",
            str(script),
            "--json",
            *ECHO,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def history(db: Path) -> list[tuple[str, str]]:
    rows = (
        __import__("sqlite3")
        .connect(db)
        .execute("SELECT event FROM events WHERE session_id = 's' ORDER BY seq")
        .fetchall()
    )
    from tod_runtime.session import EVENT_ADAPTER

    log = SessionLog(EVENT_ADAPTER.validate_json(r[0]) for r in rows)
    return [(t.speaker, t.utterance) for t in log.history]


async def test_two_chat_processes_on_one_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    halves = (TURNS[:5], TURNS[5:])
    for n, half in enumerate(halves):  # one after the other: the second continues the first
        script = tmp_path / f"half{n}.txt"
        script.write_text("\n".join(half) + "\n")
        proc = chat(db, script)
        assert proc.wait(timeout=120) == 0
    assert history(db) == await one_process(TURNS)
    db2 = tmp_path / "busy.db"
    scripts = []
    for n in range(2):  # at once, on the same session
        script = tmp_path / f"busy{n}.txt"
        script.write_text("\n".join(f"city=p{n}t{i}" for i in range(15)) + "\n")
        scripts.append(script)
    procs = [chat(db2, s) for s in scripts]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    check_concurrent(history(db2), [f"city=p{n}t{i}" for n in range(2) for i in range(15)])


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_a_session_survives_kill_9_and_a_restart(tmp_path: Path, kind: str) -> None:
    def run(store: str) -> None:
        server, port = start_serve(store)
        _, created = call(port, "POST", "/v1/sessions")
        sid = str(created["id"])
        for text in TURNS[:5]:
            assert call(port, "POST", f"/v1/sessions/{sid}/turns", {"text": text})[0] == 200
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        server, port = start_serve(store, port=port)
        try:
            for text in TURNS[5:]:
                assert call(port, "POST", f"/v1/sessions/{sid}/turns", {"text": text})[0] == 200
            assert spoken(port, sid) == want
        finally:
            stop(server)

    want = await one_process(TURNS)
    if kind == "sqlite":
        run(f"sqlite:///{tmp_path / 's.db'}")
    else:
        with redis_server(tmp_path) as url:
            run(url)
