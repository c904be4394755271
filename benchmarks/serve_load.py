"""Benchmark `tod serve` on loopback.

    python benchmarks/serve_load.py load [--stores memory,sqlite,redis] [--clients 64]
        [--seconds 20] [--pipeline default|rules|echo] [--rate TURNS_PER_S]
        [--session-turns N] [--workers N] [--profile FILE]
    python benchmarks/serve_load.py kill [--turns 10000] [--sessions 32] [--idempotent]
        [--stall S [--stall-how sigstop|debug-sleep|pause-writes] [--redis-timeout T]]

``load``: one server process per store; N concurrent clients, each with its own session, for
a bounded time (after a short warm-up). Closed loop (the default): each client sends its next
turn as soon as the last one is answered, which measures saturation: the latency is then
N / throughput (Little's law), whatever the server does. Open loop (``--rate R``): R turns/s
offered in all, spread evenly over the N sessions (session n's k-th turn is due at
(n + k N) / R seconds), each latency counted from the turn's due time, not from when it was
actually sent (a slow answer delays the session's next send, and that wait counts: no
coordinated omission, as in wrk2). ``--session-turns N``: a client deletes its session and
starts a new one every N turns (conversations of that length instead of one that grows for
the whole run).

Prints one JSON line per store: turns/s, p50, p90, p99 and max latency (ms), errors, the
server's CPU time per turn (ms: what one core could do, 1000 / it, whatever else the machine
runs), this process's CPU time per turn (the clients', on the same machine: it counts against
the machine's two cores), redis-server's CPU time per turn (the redis store only: it counts
too), the 1-minute load average at the end (and before the server started), and the
server's RSS (now and peak, MiB). Pipelines: ``default`` (the learned NLU,
the embedded services and a restaurant conversation), ``rules`` (the same with the rules NLU)
or ``echo`` (the tiny echo plugin: the server and store alone). ``--profile FILE``: the one
server (one store, one worker) runs under cProfile and writes FILE when it stops.

``kill``: a private redis-server, two servers sharing it; N sessions whose turns alternate
between the two servers, 10,000 turns in all; server A is killed with -9 halfway and
restarted. A turn whose request failed (its server died under it) is looked up in the
session's history before it is sent again, as a client would. Prints JSON: turns
acknowledged, turns in flight at the kill (and how many of them had been stored), lost
(acknowledged but not in the history), duplicated (in the history twice), half-written
turns, and whether every session's history equals the one-process replay of its turns.
Lost and duplicated turns are counted twice: from the servers' answers (``GET`` of each
session) and from the store itself (each session's log read from redis, ``store_*``).
``--idempotent``: every turn carries an Idempotency-Key, and a failed one is sent again with
it (no history lookup). ``--stall S``: at a quarter of the run, while turns are in flight,
redis stops answering for S seconds: ``sigstop`` (the default: SIGSTOP, then SIGCONT, the
whole process frozen), ``debug-sleep`` (``DEBUG SLEEP S``: the server blocks) or
``pause-writes`` (``CLIENT PAUSE S WRITE``: only writes wait). ``--redis-timeout T``: the
servers' redis socket timeout (default: the store's own, 10 s); below S, appends in flight
time out in the server (503) and may still land when redis resumes.
Needs redis-server, the echo plugin and the redis-store plugin.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ECHO = ["--services", "echo", "--backend", "echo", "--nlu", "echo", "--tracker", "echo"]
ECHO += ["--policy", "echo", "--generator", "echo"]
PIPELINES = {"default": [], "rules": ["--nlu", "rules"], "echo": ECHO}
CONVERSATION = [
    "I want to find a restaurant",
    "in Austin",
    "Italian food please",
    "what is the phone number?",
    "sounds good, book it",
    "at 7 pm",
    "yes",
    "thanks, that's all",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mib(pid: int) -> dict[str, float]:
    """Resident memory of the server and its workers, summed (now and each one's peak)."""
    fields = {"VmRSS": 0.0, "VmHWM": 0.0}
    for one in family(pid):
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in fields:
                fields[key] += int(value.split()[0]) / 1024
    return {"rss_mib": round(fields["VmRSS"], 1), "peak_rss_mib": round(fields["VmHWM"], 1)}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process and its worker children have used (/proc)."""
    total = 0
    for one in family(pid):
        fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


async def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"tod serve exited with {proc.returncode}")
            try:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
    raise SystemExit("tod serve did not start")


def serve(
    store: str, port: int, pipeline: list[str], workers: int = 1, profile: str = ""
) -> subprocess.Popen[bytes]:
    """`tod serve` with no per-client rate limit (every client here is 127.0.0.1); with
    ``profile``, under cProfile, which writes that file when the server stops."""
    cmd = [sys.executable, "-m", "cProfile", "-o", profile] if profile else [sys.executable]
    cmd += ["-m", "tod_runtime.cli", "serve", "--port", str(port)]
    cmd += ["--client-rate", "0", "--workers", str(workers)]
    return subprocess.Popen([*cmd, "--store", store, *pipeline], stdout=subprocess.DEVNULL)


def family(pid: int) -> list[int]:
    """The process and its children (``tod serve --workers N`` forks N)."""
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        pids += [int(child) for child in task.read_text().split()]
    return pids


def redis_server(folder: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir"]
    proc = subprocess.Popen([*cmd, folder, *extra], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    return proc, f"redis://127.0.0.1:{port}/0"


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


# ---------------------------------------------------------------- load


def percentile(sorted_values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of sorted values, in ms, or None when there are none."""
    if not sorted_values:
        return None
    return round(1000 * sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))], 2)


async def load_one(
    store: str, args: argparse.Namespace, redis: subprocess.Popen[bytes] | None = None
) -> dict[str, Any]:
    port = free_port()
    load_before = load_average()
    proc = serve(store, port, PIPELINES[args.pipeline], args.workers, args.profile)
    try:
        await wait_listening(port, proc)
        base = f"http://127.0.0.1:{port}"
        texts = ["city=Austin size=small", "call"] if args.pipeline == "echo" else CONVERSATION
        latencies: list[float] = []
        errors, finished = 0, 0.0
        start = time.monotonic()
        warm, end = start + args.warmup, start + args.warmup + args.seconds
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:

            async def new_session() -> str:
                async with http.post(f"{base}/v1/sessions") as r:
                    sid: str = (await r.json())["id"]
                    return sid

            async def client(n: int) -> None:
                """Closed loop: the next turn as soon as the last one is answered. Open loop:
                turn k of session n is due at start + (n + k * clients) / rate, and its
                latency counts from then (a late answer delays the next send, and that wait
                counts too: no coordinated omission)."""
                nonlocal errors, finished
                sid = await new_session()
                due, i = start + n / args.rate if args.rate else 0.0, 0
                while True:
                    if args.rate:
                        if due >= end:
                            return
                        await asyncio.sleep(max(0.0, due - time.monotonic()))
                        sent, due = due, due + args.clients / args.rate
                    elif (sent := time.monotonic()) >= end:
                        return
                    if args.session_turns and i and i % args.session_turns == 0:
                        async with http.delete(f"{base}/v1/sessions/{sid}") as r:
                            await r.read()
                        sid = await new_session()
                    body = {"text": texts[i % len(texts)]}
                    async with http.post(f"{base}/v1/sessions/{sid}/turns", json=body) as r:
                        await r.read()
                        ok = r.status == 200
                    done = time.monotonic()
                    if sent >= warm:
                        latencies.append(done - sent)
                        finished = max(finished, done)
                        errors += not ok
                    i += 1

            async def measure_cpu() -> None:
                await asyncio.sleep(max(0.0, warm - time.monotonic()))
                cpu[0], own[0] = cpu_seconds(proc.pid), time.process_time()
                store_cpu[0] = cpu_seconds(redis.pid) if redis else 0.0

            cpu, own = [0.0, 0.0], [0.0, 0.0]  # from the warm-up's end to the last answer
            store_cpu = [0.0, 0.0]  # redis-server's, when the store is redis
            await asyncio.gather(measure_cpu(), *[client(n) for n in range(args.clients)])
            cpu[1], own[1] = cpu_seconds(proc.pid), time.process_time()
            store_cpu[1] = cpu_seconds(redis.pid) if redis else 0.0
        latencies.sort()
        n = len(latencies)
        return {
            "store": store.split(":")[0],
            "pipeline": args.pipeline,
            "loop": f"open at {args.rate:g} turns/s" if args.rate else "closed",
            "clients": args.clients,
            "session_turns": args.session_turns or None,
            "seconds": args.seconds,
            "workers": args.workers,
            "turns": n,
            # answered turns per second, until the last one was answered (an open loop the
            # server cannot keep up with ends late: this is then below the rate offered)
            "turns_per_s": round(n / (max(finished, end) - warm), 1),
            "p50_ms": percentile(latencies, 0.50),
            "p90_ms": percentile(latencies, 0.90),
            "p99_ms": percentile(latencies, 0.99),
            "max_ms": percentile(latencies, 1.0),
            "errors": errors,
            "server_cpu_ms_per_turn": round(1000 * (cpu[1] - cpu[0]) / n, 3) if n else None,
            "client_cpu_ms_per_turn": round(1000 * (own[1] - own[0]) / n, 3) if n else None,
            "redis_cpu_ms_per_turn": (
                round(1000 * (store_cpu[1] - store_cpu[0]) / n, 3) if n and redis else None
            ),
            "load_average_1m": load_average(),
            "load_average_1m_before": load_before,
            **rss_mib(proc.pid),
        }
    finally:
        stop(proc)


async def run_load(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        redis = None
        for kind in args.stores.split(","):
            if kind == "memory":
                store = "memory://"
            elif kind == "sqlite":
                store = f"sqlite:///{tmp}/load.db"
            else:
                redis, store = redis_server(tmp)
            try:
                print(json.dumps(await load_one(store, args, redis)), flush=True)
            finally:
                if redis is not None:
                    stop(redis)
                    redis = None


# ---------------------------------------------------------------- kill


async def run_kill(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        debug = ["--enable-debug-command", "local"] if args.stall_how == "debug-sleep" else []
        redis, url = redis_server(tmp, *debug)
        served = url  # what the servers are given: with --redis-timeout, their socket timeout
        if args.redis_timeout:
            served += f"?socket_timeout={args.redis_timeout}"
            served += f"&socket_connect_timeout={args.redis_timeout}"
        ports = [free_port(), free_port()]
        procs = [serve(served, p, ECHO) for p in ports]
        try:
            for port, proc in zip(ports, procs, strict=True):
                await wait_listening(port, proc)
            result = await kill_run(args, served, ports, procs, redis)
            print(json.dumps(result | await store_counts(url, result.pop("acked"))), flush=True)
        finally:
            for proc in procs:
                stop(proc)
            stop(redis)


async def one_process(texts: list[str]) -> list[tuple[str, str]]:
    """The history one in-process runtime gives for these turns (the echo pipeline)."""
    import tod_echo
    from tod_runtime import Config, Runtime
    from tod_runtime.plugins import make_plugin_manager

    config = Config(
        services="echo",
        backend="echo",
        nlu="echo",
        tracker="echo",
        policy="echo",
        generator="echo",
    )
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(config, plugin_manager=pm) as runtime:
        for text in texts:
            await runtime.handle("s", text)
        return [(t.speaker, t.utterance) for t in (await runtime.dialogue("s")).turns]


async def store_counts(url: str, acked: dict[str, list[str]]) -> dict[str, Any]:
    """Lost and duplicated turns read from the store itself (each session's log in redis),
    not through a server; and the keyed answers it holds beyond one per turn."""
    import redis.asyncio as aioredis

    from tod_runtime.session import EVENT_ADAPTER, UserUttered

    client = aioredis.from_url(url)
    lost = duplicated = answers = 0
    try:
        for sid, texts in acked.items():
            rows = await client.lrange(f"tod:log:{sid}", 0, -1)
            events = [EVENT_ADAPTER.validate_json(row) for row in rows]
            said = [e.text for e in events if isinstance(e, UserUttered)]
            lost += sum(1 for t in texts if t not in said)
            duplicated += len(said) - len(set(said))
            answers += int(await client.hlen(f"tod:answers:{sid}"))
    finally:
        await client.aclose()
    return {"store_lost": lost, "store_duplicated": duplicated, "store_answers": answers}


async def kill_run(
    args: argparse.Namespace,
    url: str,
    ports: list[int],
    procs: list[subprocess.Popen[bytes]],
    redis: subprocess.Popen[bytes],
) -> dict[str, Any]:
    per_session, extra = divmod(args.turns, args.sessions)
    acked: dict[str, list[str]] = {}
    counts = {"acknowledged": 0, "refused": 0, "in_flight_at_kill": 0, "in_flight_stored": 0}
    counts |= {"resent": 0, "failed_status": 0, "failed_disconnected": 0, "in_flight": 0}
    killed = asyncio.Event()

    async def history(http: aiohttp.ClientSession, sid: str) -> list[dict[str, Any]]:
        for port in (ports[1], ports[0]) * 300:
            try:
                async with http.get(f"http://127.0.0.1:{port}/v1/sessions/{sid}") as r:
                    if r.status == 200:  # else the store stalled (503): ask again
                        turns: list[dict[str, Any]] = (await r.json())["turns"]
                        return turns
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
        raise SystemExit("no server answers")

    async def session(http: aiohttp.ClientSession, n: int) -> None:
        async with http.post(f"http://127.0.0.1:{ports[n % 2]}/v1/sessions") as r:
            sid = (await r.json())["id"]
        acked[sid] = []
        for i in range(per_session + (n < extra)):
            text = f"city=s{n}t{i}"
            port = ports[(n + i) % 2]
            key = {"Idempotency-Key": f"{sid}-{i}"} if args.idempotent else {}
            while True:
                try:
                    url = f"http://127.0.0.1:{port}/v1/sessions/{sid}/turns"
                    counts["in_flight"] += 1
                    try:
                        async with http.post(url, json={"text": text}, headers=key) as r:
                            if r.status != 200:
                                counts["failed_status"] += 1  # a 503: the store stalled
                                raise aiohttp.ClientError(f"status {r.status}")
                            await r.read()
                    finally:
                        counts["in_flight"] -= 1
                    break
                except aiohttp.ClientConnectorError:  # its server is down: not sent
                    counts["refused"] += 1
                    port = ports[(port == ports[0]) * 1]  # the other server
                    continue
                except aiohttp.ClientError as exc:  # it failed in flight: was it stored?
                    if not str(exc).startswith("status"):
                        counts["failed_disconnected"] += 1  # its server died under it
                    counts["in_flight_at_kill"] += 1
                    if args.idempotent:  # the same key again: stored once, whatever happened
                        counts["resent"] += 1
                        port = ports[(port == ports[0]) * 1]
                        await asyncio.sleep(0.05)
                        continue
                    said = [
                        t["utterance"] for t in await history(http, sid) if t["speaker"] == "USER"
                    ]
                    if text in said:
                        counts["in_flight_stored"] += 1
                        break
                    counts["resent"] += 1
                    port = ports[(port == ports[0]) * 1]  # the other server
            acked[sid].append(text)
            counts["acknowledged"] += 1
            if counts["acknowledged"] == args.turns // 2 and not killed.is_set():
                killed.set()

    async def staller() -> None:
        """``--stall S``: at a quarter of the run, while turns are in flight, redis stops
        for S seconds (``--stall-how``): appends in flight stall, time out in the server
        (503) or complete late, and the clients retry."""
        if not args.stall:
            return
        import redis.asyncio as aioredis

        while counts["acknowledged"] < args.turns // 4 or not counts["in_flight"]:
            await asyncio.sleep(0.005)
        counts["in_flight_at_stall"] = counts["in_flight"]
        if args.stall_how == "sigstop":
            redis.send_signal(signal.SIGSTOP)
            await asyncio.sleep(args.stall)
            redis.send_signal(signal.SIGCONT)
        else:
            client = aioredis.from_url(url.split("?")[0])
            if args.stall_how == "debug-sleep":  # answered when the sleep ends
                await client.execute_command("DEBUG", "SLEEP", args.stall)
            else:
                await client.execute_command("CLIENT", "PAUSE", int(args.stall * 1000), "WRITE")
            await client.aclose()
        counts["stalls"] = counts.get("stalls", 0) + 1

    async def killer() -> None:
        await killed.wait()
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait()
        procs[0] = serve(url, ports[0], ECHO)
        await wait_listening(ports[0], procs[0])

    start = time.monotonic()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        await asyncio.gather(killer(), staller(), *[session(http, n) for n in range(args.sessions)])
        seconds = time.monotonic() - start
        lost = duplicated = half = 0
        mismatched = 0
        for sid, texts in acked.items():
            turns = await history(http, sid)
            said = [t["utterance"] for t in turns if t["speaker"] == "USER"]
            lost += sum(1 for t in texts if t not in said)
            duplicated += len(said) - len(set(said))
            speakers = [t["speaker"] for t in turns]
            half += speakers != ["USER", "SYSTEM"] * (len(turns) // 2) or len(turns) % 2
            got = [(t["speaker"], t["utterance"]) for t in turns]
            mismatched += got != await one_process(said)
    return {
        "turns": args.turns,
        "sessions": args.sessions,
        "seconds": round(seconds, 1),
        **counts,
        "lost": lost,
        "duplicated": duplicated,
        "half_written": int(half),
        "histories_equal_one_process": mismatched == 0,
        "acked": acked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    load = sub.add_parser("load")
    load.add_argument("--stores", default="memory,sqlite,redis")
    load.add_argument("--clients", type=int, default=64)
    load.add_argument("--seconds", type=float, default=20.0)
    load.add_argument("--warmup", type=float, default=3.0)
    load.add_argument("--pipeline", choices=sorted(PIPELINES), default="echo")
    load.add_argument(
        "--rate",
        type=float,
        default=0.0,
        metavar="TURNS_PER_S",
        help="open loop: offer this many turns/s in all, spread evenly over the sessions "
        "(default 0: closed loop, each client sends its next turn when answered)",
    )
    load.add_argument(
        "--session-turns",
        type=int,
        default=0,
        metavar="N",
        help="a client deletes its session and starts a new one every N turns "
        "(default 0: one session per client for the whole run)",
    )
    load.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes on the port (tod serve --workers; memory is skipped above 1)",
    )
    load.add_argument(
        "--profile",
        default="",
        metavar="FILE",
        help="run the server under cProfile and write its profile to FILE (one store, "
        "--workers 1; read it with python -m pstats FILE)",
    )
    kill = sub.add_parser("kill")
    kill.add_argument("--turns", type=int, default=10_000)
    kill.add_argument("--sessions", type=int, default=32)
    kill.add_argument(
        "--idempotent",
        action="store_true",
        help="send an Idempotency-Key with every turn; a failed turn is resent with it "
        "(no history lookup)",
    )
    kill.add_argument("--stall", type=float, default=0.0, metavar="S", help="stop redis S seconds")
    kill.add_argument(
        "--stall-how",
        choices=["sigstop", "debug-sleep", "pause-writes"],
        default="sigstop",
        help="SIGSTOP/SIGCONT the redis-server (default), DEBUG SLEEP, or CLIENT PAUSE WRITE",
    )
    kill.add_argument(
        "--redis-timeout",
        type=float,
        default=0.0,
        metavar="T",
        help="the servers' redis socket timeout in seconds (default: the store's, 10)",
    )
    args = parser.parse_args()
    if args.mode == "load" and args.profile and (args.workers > 1 or "," in args.stores):
        parser.error("--profile profiles one server: one store and --workers 1")
    asyncio.run(run_load(args) if args.mode == "load" else run_kill(args))


if __name__ == "__main__":
    main()
