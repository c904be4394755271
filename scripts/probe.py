"""Probe the installed ``tod`` with every known defect case and 100+ generated ones (mutated
schemas, dialogue files and configs, bad arguments, random chat input, signals).

    python scripts/probe.py [--seed 0] [--generated 120] [--jobs 2] [--tod PATH]

Prints a table (case, exit status, expected, first line of stderr, PASS/FAIL) and totals.
A case FAILs when its stderr holds a traceback or its exit status is not the expected one.
Everything happens in a temporary folder (HOME, XDG_STATE_HOME and TOD_DATA_DIR point
there); downloads go to a loopback server, never the internet. Exit status 1 on any FAIL.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / "services"
MINI = ROOT / "tests" / "fixtures" / "sgd_mini"
TOP = "dstc8-schema-guided-dialogue-master"
DOCUMENTED = {0, 1, 2, 3, 4, 5, 130, 141, 143}  # 70 is a bug: never expected of a probe
TURNS = "I want to find a restaurant\nin Austin\nitalian please\nyes book it for 2 at 7 pm\n"
SLOW_NLU = (
    "import asyncio\nfrom tod_runtime import hookimpl\nfrom tod_runtime.nlu.rules import RulesNLU\n"
    "class Slow(RulesNLU):\n    async def parse(self, text, context):\n"
    "        await asyncio.sleep(0.05)\n        return await super().parse(text, context)\n"
    "@hookimpl\ndef register_nlu(register):\n    register('slow', Slow)\n"
)


@dataclass
class Case:
    name: str
    args: list[str]
    expect: set[int]
    stdin: str | bytes = ""
    signal_after: tuple[int, float] | None = None  # (signal, seconds) sent to the process
    traceback_ok: bool = False  # tod --debug prints one on purpose
    result: tuple[int, str, bool] | None = field(default=None, repr=False)


class Probe:
    def __init__(self, work: Path, tod: list[str], url: str) -> None:
        self.work = work
        self.tod = tod
        self.url = url
        self.count = 0
        self.env = os.environ | {
            "HOME": str(work / "home"),
            "XDG_STATE_HOME": str(work / "state"),
            "TOD_DATA_DIR": str(work / "data"),
            "TOD_NO_PROGRESS": "1",
        }
        self.env.pop("TOD_DEBUG", None)

    def folder(self, name: str) -> Path:
        self.count += 1
        path = self.work / f"{self.count:03d}-{name}"
        path.mkdir(parents=True)
        return path

    def services(self, name: str = "services") -> Path:
        path = self.folder(name) / "services"
        shutil.copytree(SERVICES, path)
        return path

    def split(self, name: str = "sgd") -> Path:
        path = self.folder(name) / "sgd"
        shutil.copytree(MINI, path)
        return path

    def file(self, name: str, content: str | bytes) -> Path:
        path = self.folder(name) / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def run(self, case: Case) -> None:
        process = subprocess.Popen(
            [*self.tod, *case.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.work,
        )
        data = case.stdin.encode() if isinstance(case.stdin, str) else case.stdin
        if case.signal_after is not None:
            signum, delay = case.signal_after
            assert process.stdin is not None
            process.stdin.write(data)
            process.stdin.flush()
            time.sleep(delay)
            process.send_signal(signum)
            data = b""
        try:
            _, err_bytes = process.communicate(data, timeout=180)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err_bytes = process.communicate()
        err = err_bytes.decode("utf-8", "replace")
        traceback = "Traceback (most recent call last)" in err and not case.traceback_ok
        case.result = (process.returncode, err, traceback)


# ---------------------------------------------------------------- mutations


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*here, index))


def mutate(data: Any, rng: random.Random, times: int) -> Any:
    data = copy.deepcopy(data)
    junk: list[Any] = [None, 0, -1, 1e308, "", "x" * 300, [], {}, True, "NONE", "🙂", [None]]
    for _ in range(times):
        paths = list(_paths(data))
        path = rng.choice(paths[1:] or paths)
        if not path:
            data = rng.choice(junk)
            continue
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        how = rng.choice(["delete", "junk", "duplicate", "stringify", "rename"])
        if how == "delete":
            del parent[key]
        elif how == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif how == "stringify":
            parent[key] = json.dumps(parent[key])
        elif how == "rename" and isinstance(parent, dict):
            parent[f"{key}_x"] = parent.pop(key)
        else:
            parent[key] = copy.deepcopy(rng.choice(junk))
    return data


def text_mutation(text: str, rng: random.Random) -> str:
    cut = rng.randrange(len(text) + 1)
    how = rng.choice(["truncate", "insert", "delete"])
    if how == "truncate":
        return text[:cut]
    if how == "insert":
        return text[:cut] + rng.choice(['"', "{", "]", ",", "\x00", "é", "\\"]) + text[cut:]
    return text[:cut] + text[cut + rng.randrange(1, 40) :]


# ---------------------------------------------------------------- cases


def defect_cases(p: Probe) -> list[Case]:
    cases: list[Case] = []
    chat = ["chat", "--nlu", "rules", "--script", "-"]

    services = p.services("dup")
    schema = services / "Hotels" / "schema.json"
    schema.write_text(json.dumps(json.loads(schema.read_text()) * 2))
    cases.append(
        Case("schema: a service twice in one list", [*chat, "--services", str(services)], {3})
    )
    services = p.services("empty")
    (services / "Hotels" / "schema.json").write_text("[]")
    cases.append(Case("schema: an empty list", [*chat, "--services", str(services)], {3}))
    services = p.services("two-folders")
    shutil.copytree(services / "Hotels", services / "Hotels2")
    cases.append(
        Case("schema: a service in two folders", [*chat, "--services", str(services)], {3})
    )
    services = p.services("not-json")
    (services / "Hotels" / "schema.json").write_text("[{")
    cases.append(Case("schema: not JSON", [*chat, "--services", str(services)], {3}))

    for name, source in {
        "misnamed hook": "@hookimpl\ndef register_nluu(register):\n    pass\n",
        "hook with a wrong argument": "@hookimpl\ndef register_nlu(registr):\n    pass\n",
        "plugin that fails to import": "import no_such_module_here\n",
        "plugin registering a bad name": "@hookimpl\ndef register_nlu(register):\n"
        "    register('bad name!', lambda ctx: None)\n",
    }.items():
        plugins = p.folder("plugins")
        (plugins / "plug.py").write_text("from tod_runtime import hookimpl\n" + source)
        cases.append(Case(f"plugin: {name}", ["--plugins-dir", str(plugins), *chat], {4}))
    plugins = p.folder("boom")
    (plugins / "boom.py").write_text(
        "from tod_runtime import hookimpl\ndef run(args):\n    raise RuntimeError('kaboom')\n"
        "@hookimpl\ndef register_commands(cli):\n"
        "    cli.add_parser('boom').set_defaults(func=run)\n"
    )
    cases.append(
        Case("internal error: one line + log", ["--plugins-dir", str(plugins), "boom"], {70})
    )
    cases.append(
        Case(
            "internal error with --debug",
            ["--debug", "--plugins-dir", str(plugins), "boom"],
            {70},
            traceback_ok=True,
        )  # fmt: skip
    )

    split = p.split("replay")
    report = split.parent / "r.json"
    report.write_text("{}")
    gold = ["replay", str(split), "--nlu", "gold"]
    cases.append(Case("replay: --report exists", [*gold, "--report", str(report)], {5}))
    cases.append(
        Case("replay: --report exists, --force", [*gold, "--report", str(report), "--force"], {0})
    )
    cases.append(
        Case(
            "replay: --predictions inside the data",
            [*gold, "--predictions", str(split / "dev")],
            {5},
        )
    )
    cases.append(
        Case("replay: --report inside the data", [*gold, "--report", str(split / "r.json")], {5})
    )
    stale = p.folder("stale")
    (stale / "dialogues_009.json").write_text("[]")
    cases.append(Case("replay: stale predictions", [*gold, "--predictions", str(stale)], {5}))
    cases.append(
        Case(
            "replay: report into a missing folder",
            [*gold, "--report", str(split / "no" / "r.json")],
            {5},
        )
    )
    cases.append(Case("replay: --report is a folder", [*gold, "--report", str(split.parent)], {5}))
    failing = p.split("strict")
    path = failing / "dev" / "dialogues_001.json"
    data = json.loads(path.read_text())
    data[0]["turns"][-1]["frames"][0]["actions"][0]["act"] = "REQ_MORE"
    path.write_text(json.dumps(data))
    cases.append(
        Case(
            "replay: --strict, a failed dialogue",
            ["replay", str(failing), "--nlu", "gold", "--strict"],
            {1},
        )
    )
    invalid = p.split("invalid")
    (invalid / "dev" / "dialogues_002.json").write_text('[{"dialogue_id": 3}]')
    cases.append(
        Case("replay: an invalid file is skipped", ["replay", str(invalid), "--nlu", "gold"], {0})
    )
    cases.append(
        Case(
            "replay: --strict, an invalid file",
            ["replay", str(invalid), "--nlu", "gold", "--strict"],
            {3},
        )
    )
    cases.append(Case("replay: a missing split", ["replay", str(split), "--split", "test"], {3}))
    cases.append(Case("replay: --workers 0", [*gold, "--workers", "0"], {2}))
    cases.append(Case("replay: --limit -1", [*gold, "--limit", "-1"], {2}))
    cases.append(Case("replay: --fail-under nonsense", [*gold, "--fail-under", "x=1"], {2}))
    cases.append(Case("data validate: an invalid file", ["data", "validate", str(invalid)], {1}))

    cache = p.folder("cache")
    (cache / TOP).mkdir()
    fetch = ["data", "fetch", "sgd", "--dest", str(cache)]
    cases.append(Case("fetch: cached", fetch, {0}))
    cases.append(
        Case("fetch: a missing --source, cached", [*fetch, "--source", str(cache / "no.zip")], {3})
    )
    cases.append(
        Case(
            "fetch: a --source that is no zip",
            [*fetch, "--source", str(MINI / "dev" / "schema.json")],
            {3},
        )
    )
    cases.append(Case("fetch: a URL with no host", [*fetch, "--source", "https://"], {3}))
    empty = p.folder("fetch")
    fresh = ["data", "fetch", "sgd", "--dest", str(empty)]
    cases.append(Case("fetch: HTTP 404", [*fresh, "--source", f"{p.url}/missing.zip"], {5}))
    cases.append(
        Case(
            "fetch: a stalled server",
            [*fresh, "--source", f"{p.url}/stall.zip", "--stall-timeout", "0.5"],
            {5},
        )
    )
    cases.append(
        Case(
            "fetch: over --timeout",
            [*fresh, "--source", f"{p.url}/trickle.zip", "--timeout", "0.5"],
            {5},
        )
    )
    cases.append(Case("fetch: --timeout 0", [*fresh, "--timeout", "0"], {2}))
    cases.append(
        Case(
            "fetch: SIGINT mid-download",
            [*fresh, "--source", f"{p.url}/trickle.zip"],
            {130},
            signal_after=(signal.SIGINT, 1.5),
        )
    )
    cases.append(
        Case(
            "fetch: SIGTERM mid-download",
            [*fresh, "--source", f"{p.url}/trickle.zip"],
            {143},
            signal_after=(signal.SIGTERM, 1.5),
        )
    )
    archive = p.folder("archive") / "sgd.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"{TOP}/dev/schema.json", "[]")
    cases.append(Case("fetch: a local zip", [*fresh, "--source", str(archive)], {0}))

    cases.append(
        Case(
            "chat: non-UTF-8 script",
            [
                "chat",
                "--nlu",
                "rules",
                "--script",
                str(p.file("latin1.txt", "café\n".encode("latin-1"))),
            ],
            {3},
        )
    )
    cases.append(
        Case(
            "chat: CRLF script",
            [
                "chat",
                "--nlu",
                "rules",
                "--script",
                str(p.file("crlf.txt", TURNS.replace("\n", "\r\n"))),
            ],
            {0},
        )
    )
    cases.append(
        Case("chat: a missing script", ["chat", "--script", str(p.work / "nope.txt")], {3})
    )
    services = p.services("record")
    cases.append(
        Case(
            "chat: --record into the services",
            [*chat, "--services", str(services), "--record", str(services / "rec")],
            {5},
        )
    )
    keep = p.file("keep.json", "precious")
    cases.append(
        Case(
            "chat: /save over a file (refused, chat goes on)",
            chat,
            {0},
            stdin=f"hello\n/save {keep}\n",
        )
    )
    cases.append(Case("chat: unknown component", [*chat, "--tracker", "nope"], {2}))
    cases.append(
        Case("chat: a missing services folder", [*chat, "--services", str(p.work / "none")], {2})
    )
    cases.append(
        Case("chat: a bad config", [*chat, "--config", str(p.file("bad.toml", "nlu = [\n"))], {2})
    )
    cases.append(
        Case(
            "chat: an unknown config key",
            [*chat, "--config", str(p.file("key.toml", "colour = 1\n"))],
            {2},
        )
    )
    cases.append(
        Case(
            "chat: SIGINT while waiting",
            ["chat", "--nlu", "rules"],
            {130},
            stdin="hello\n",
            signal_after=(signal.SIGINT, 2.5),
        )
    )
    cases.append(
        Case(
            "chat: SIGTERM while waiting",
            ["chat", "--nlu", "rules"],
            {143},
            stdin="hello\n",
            signal_after=(signal.SIGTERM, 2.5),
        )
    )
    slow = p.folder("slow")
    (slow / "slow.py").write_text(SLOW_NLU)
    long_split = p.split("long")
    dialogues = (long_split / "dev" / "dialogues_001.json").read_text()
    for n in range(2, 30):
        (long_split / "dev" / f"dialogues_{n:03d}.json").write_text(dialogues)
    slow_replay = ["--plugins-dir", str(slow), "replay", str(long_split), "--nlu", "slow"]
    cases.append(Case("replay: SIGINT", slow_replay, {130}, signal_after=(signal.SIGINT, 3.0)))
    cases.append(
        Case(
            "replay: SIGTERM, 2 workers",
            [*slow_replay, "--workers", "2"],
            {143},
            signal_after=(signal.SIGTERM, 3.0),
        )
    )

    out = p.folder("model")
    (out / "nlu.npz").write_bytes(b"old")
    cases.append(
        Case("train: --out holds a model", ["train", "nlu", str(split), "--out", str(out)], {5})
    )
    cases.append(
        Case(
            "train: --out inside the data",
            ["train", "nlu", str(split), "--out", str(split / "m")],
            {5},
        )
    )
    cases.append(Case("usage: no command", [], {2}))
    cases.append(Case("usage: unknown command", ["nope"], {2}))
    cases += issue_42_cases(p)
    return cases


DEEP = "[" * 30000 + "]" * 30000
ECHO = ["--services", "echo", "--backend", "echo", "--nlu", "echo", "--tracker", "echo",
        "--policy", "echo", "--generator", "echo"]  # fmt: skip


def issue_42_cases(p: Probe) -> list[Case]:
    """Secrets, limits, silent success, overwrites and exit statuses (issue 42)."""
    cases: list[Case] = []
    chat = ["chat", "--nlu", "rules", "--script", "-"]
    for name, file, content in (
        ("deep schema", "Hotels/schema.json", DEEP.encode()),
        ("deep db.json", "Hotels/db.json", b'{"a": ' + DEEP.encode() + b"}"),
        ("non-UTF-8 schema", "Hotels/schema.json", '["café"]'.encode("latin-1")),
        ("non-UTF-8 db.json", "Hotels/db.json", '{"café": 1}'.encode("latin-1")),
        ("non-UTF-8 templates", "Hotels/templates.json", '{"café": 1}'.encode("latin-1")),
    ):
        services = p.services(name.replace(" ", "-"))
        (services / file).write_bytes(content)
        cases.append(Case(f"42: {name}", [*chat, "--services", str(services)], {3}, TURNS))
    services = p.services("symlink-loop")
    (services / "Hotels" / "schema.json").unlink()
    (services / "Hotels" / "schema.json").symlink_to("schema.json")
    cases.append(Case("42: schema.json symlink loop", [*chat, "--services", str(services)], {3}))
    for name, content in (("deep", f"a = {DEEP}\n".encode()), ("latin", b'nlu = "caf\xe9"\n')):
        config = p.file(f"{name}.toml", content)
        cases.append(Case(f"42: {name} config", [*chat, "--config", str(config)], {2, 3}))
    cases.append(Case("42: non-UTF-8 stdin", chat, {3}, stdin=b"hello\n\xff\xfe x\nhello\n"))
    cases.append(Case("42: non-UTF-8 stdin, no script", ["chat", "--nlu", "rules"], {0}, b"\xff\n"))
    split = p.split("deep-dialogues")
    (split / "dev" / "dialogues_001.json").write_text(DEEP)
    cases.append(Case("42: deep dialogues", ["replay", str(split), "--nlu", "gold"], {3}))
    bomb = p.folder("bomb") / "sgd.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(MINI / "dev" / "schema.json", f"{TOP}/dev/schema.json")
        zf.writestr(f"{TOP}/dev/dialogues_001.json", b" " * (64 << 20))
    cases.append(Case("42: zip bomb", ["data", "validate", str(bomb)], {1, 3}))
    skipped = p.split("all-skipped")
    (skipped / "dev" / "dialogues_001.json").write_text('[{"dialogue_id": 3}]')
    cases.append(Case("42: replay, every file skipped", ["replay", str(skipped)], {3}))
    same = str(p.folder("same") / "out")
    gold = ["replay", str(p.split("same-out")), "--nlu", "gold"]
    cases.append(
        Case(
            "42: replay outputs on one file",
            [*gold, "--report", same, "--junit", same, "--errors", same, "--force"],
            {2},
        )
    )
    cases.append(
        Case(
            "42: chat, unreachable store",
            [*chat, "--store", "redis://:pw@127.0.0.1:1/0"],
            {4, 5},
            stdin="hello\n",
        )
    )
    keep = p.file("keep.txt", "precious")
    cases.append(
        Case("42: /save over a file, script goes on", chat, {0}, stdin=f"/save {keep}\nhello\n")
    )
    for name, store in (
        ("missing folder", f"sqlite:///{p.work}/no/s.db"),
        ("a folder", f"sqlite:///{p.folder('dbdir')}"),
        ("not a database", f"sqlite:///{p.file('junk.db', 'x' * 5000)}"),
    ):
        cases.append(Case(f"42: SQLite store, {name}", [*chat, "--store", store], {5}, "hi\n"))
    train = ["train", "nlu", str(p.split("train")), "--out", str(p.folder("m") / "m")]
    for flag, value in (
        ("--limit", "-1"),
        ("--cv", "0"),
        ("--cv", "1"),
        ("--cv", "-2"),
        ("--workers", "0"),
        ("--workers", "-1"),
    ):
        cases.append(Case(f"42: train {flag} {value}", [*train, flag, value], {2}))
    split = p.split("dst")
    model = p.folder("dst-out")
    (model / "carry.npz").write_bytes(b"old")
    cases.append(
        Case("42: train dst over a model", ["train", "dst", str(split), "--out", str(model)], {5})
    )
    cases.append(
        Case(
            "42: train dst into its input",
            ["train", "dst", str(split), "--out", str(split / "m")],
            {5},
        )
    )
    cases.append(
        Case("42: rename into its input", ["data", "rename", str(split), "--out", str(split)], {5})
    )
    renamed = p.folder("renamed")
    (renamed / "dev").mkdir()
    (renamed / "dev" / "schema.json").write_text("[]")
    cases.append(
        Case(
            "42: rename over an earlier run",
            ["data", "rename", str(split), "--out", str(renamed)],
            {5},
        )
    )
    cut = p.file("nlu.npz", (ROOT / "tod_runtime/nlu/learned/nlu.npz").read_bytes()[:5000])
    config = p.file("cut.toml", f'nlu = "learned"\n[options.nlu]\nmodel = "{cut}"\n')
    cases.append(
        Case(
            "42: truncated model file",
            ["chat", "--config", str(config), "--script", "-"],
            {3},
            "hello\n",
        )
    )
    serve = ["serve", *ECHO, "--port"]
    for flags in (
        ["70000"],
        ["-1"],
        ["0", "--max-body", "0"],
        ["0", "--max-body", "-5"],
        ["0", "--token", ""],
        ["0", "--token", "x", "--token-file", str(keep)],
    ):
        cases.append(Case(f"42: serve {' '.join(flags)}", [*serve, *flags], {2}))
    cases.append(
        Case("42: serve, SIGTERM", [*serve, "0"], {143}, signal_after=(signal.SIGTERM, 4.0))
    )
    cases.append(
        Case(
            "42: serve --workers 2, SIGTERM",
            [*serve, "0", "--workers", "2", "--store", f"sqlite:///{p.folder('w')}/s.db"],
            {143},
            signal_after=(signal.SIGTERM, 5.0),
        )
    )
    cases.append(Case("42: serve --workers 2, memory store", [*serve, "0", "--workers", "2"], {2}))
    return cases


def generated_cases(p: Probe, rng: random.Random, count: int) -> list[Case]:
    cases: list[Case] = []
    schema = json.loads((SERVICES / "Restaurants" / "schema.json").read_text())
    dialogues = json.loads((MINI / "dev" / "dialogues_001.json").read_text())
    db = json.loads((SERVICES / "Restaurants" / "db.json").read_text())
    config = 'nlu = "rules"\ntracker = "rules"\nmax_message_chars = 200\nturn_timeout = 5\n'
    kinds = [
        "schema",
        "schema-text",
        "db",
        "dialogues",
        "dialogues-text",
        "config",
        "args",
        "input",
    ]
    for index in range(count):
        kind = kinds[index % len(kinds)]
        label = f"gen {index + 1:3d} {kind}"
        if kind in ("schema", "schema-text", "db"):
            services = p.services(kind)
            target = services / "Restaurants" / ("db.json" if kind == "db" else "schema.json")
            if kind == "schema-text":
                target.write_text(text_mutation(target.read_text(), rng))
            else:
                original = db if kind == "db" else schema
                target.write_text(json.dumps(mutate(original, rng, rng.randint(1, 3))))
            args = ["chat", "--nlu", "rules", "--services", str(services), "--script", "-"]
            cases.append(Case(label, args, {0, 3}, stdin=TURNS))
        elif kind in ("dialogues", "dialogues-text"):
            split = p.split(kind)
            target = split / "dev" / "dialogues_001.json"
            if kind == "dialogues-text":
                target.write_text(text_mutation(target.read_text(), rng))
            else:
                target.write_text(json.dumps(mutate(dialogues, rng, rng.randint(1, 4))))
            strict = rng.random() < 0.5
            args = ["replay", str(split), "--nlu", rng.choice(["gold", "rules"])]
            # without --strict an invalid file is skipped (0); when every file is: no data (3)
            cases.append(
                Case(
                    label, args + (["--strict"] if strict else []), {0, 1, 3} if strict else {0, 3}
                )
            )
        elif kind == "config":
            text = text_mutation(config, rng) if rng.random() < 0.5 else config + rng.choice(
                ["nlu = 3\n", "turn_timeout = -1\n", "[options]\nnlu = 1\n", "store = 'nope://'\n",
                 "backend = 'nope'\n", "max_message_chars = 0\n", "services = '/nowhere'\n",
                 "generator = ''\n", "plugins_dir = '/nowhere'\n", '"\n']
            )  # fmt: skip
            path = p.file("tod.toml", text)
            # a config that parses but names what is not there is a usage error (2); a broken
            # TOML or an unknown key too. A store nobody serves is a plugin/config error.
            args = ["chat", "--config", str(path), "--script", "-"]
            cases.append(Case(label, args, {0, 2}, stdin=TURNS))
        elif kind == "args":
            cases.append(bad_args(p, rng, label))
        else:
            alphabet = "abc xyz 123 /!?#\t\x00éü🙂\\\"'{}[]"
            lines = [
                "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(4)
            ]
            raw = "\n".join(lines).encode("utf-8", "surrogatepass")
            if rng.random() < 0.3:
                raw += bytes(rng.randrange(256) for _ in range(20))
            # random bytes on stdin are not a file: chat reads what decodes and goes on
            cases.append(Case(label, ["chat", "--nlu", "rules", "--json"], {0, 3}, stdin=raw))
    return cases


def bad_args(p: Probe, rng: random.Random, label: str) -> Case:
    split = p.split("args")
    templates: list[tuple[list[str], dict[str, list[str]]]] = [
        (["replay", str(split), "--nlu", "gold"],
         {"--limit": ["-3", "x", "0", "1e9"], "--workers": ["0", "-1", "two"],
          "--split": ["", "nope", "../dev"], "--report": [str(split), "/proc/x.json", ""],
          "--fail-under": ["bleu", "x=2", "bleu=abc"], "--policy": ["nope", ""],
          "--predictions": [str(split / "dev"), "/proc/nope", str(MINI / "dev" / "schema.json")],
          "--config": ["/nowhere.toml", str(split)],
          "--services": ["/nowhere", str(split) + ":nope"]}),
        (["chat", "--nlu", "rules", "--script", "-"],
         {"--services": ["/nowhere", str(split) + ":dev", str(split) + ":nope", ""],
          "--nlu": ["", "nope", "gold"], "--store": ["nope://", "sqlite:///proc/x.db"],
          "--backend": ["nope", "mock"], "--session": ["", "x" * 500],
          "--record": [str(split / "dev"), "/proc/rec", str(MINI / "dev" / "schema.json")],
          "--plugins-dir": ["/nowhere", str(MINI / "dev" / "schema.json")]}),
        (["data", "fetch", "sgd", "--dest", str(p.folder("dest")),
          "--source", str(p.work / "none.zip")],
         {"--timeout": ["-1", "x", "0"], "--stall-timeout": ["0", "abc"], "--dest": ["/proc/x"],
          "--source": ["", "ftp://x", "file:///nope.zip", str(split), "http://"]}),
        (["data", "validate", str(split)], {"--split": ["nope", ""]}),
        (["train", "nlu", str(split), "--out", str(p.folder("out"))],
         {"--seed": ["x"], "--cv": ["x"], "--out": [str(split / "m"), "/proc/m"]}),
    ]  # fmt: skip
    base, options = rng.choice(templates)
    args = list(base)
    for option in rng.sample(sorted(options), k=min(len(options), rng.randint(1, 2))):
        args += [option, rng.choice(options[option])]
    if rng.random() < 0.2:
        args.append(rng.choice(["--bogus", "-x", "extra-positional"]))
    return Case(label, args, DOCUMENTED - {130, 141, 143}, stdin=TURNS)


# ---------------------------------------------------------------- the local server


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        try:
            if self.path in ("/stall.zip", "/trickle.zip"):
                self.send_response(200)
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                for _ in range(1200):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(30 if self.path == "/stall.zip" else 0.05)
            else:
                self.send_error(404)
        except OSError:
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generated", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tod", help="the tod executable (default: the one on PATH)")
    args = parser.parse_args()
    found = args.tod or shutil.which("tod")
    tod = [found] if found else [sys.executable, "-m", "tod_runtime.cli"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tod-probe-") as tmp:
        probe = Probe(Path(tmp), tod, f"http://127.0.0.1:{server.server_address[1]}")
        rng = random.Random(args.seed)
        cases = defect_cases(probe) + generated_cases(probe, rng, args.generated)
        with ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(probe.run, cases))
    server.shutdown()
    failed = tracebacks = 0
    width = max(len(c.name) for c in cases)
    print(f"{'case':<{width}}  exit  expected      stderr (first line)")
    for case in cases:
        assert case.result is not None
        code, err, traceback = case.result
        ok = code in case.expect and not traceback
        failed += not ok
        tracebacks += traceback
        first = (err.strip().splitlines() or [""])[0][:90]
        expect = ",".join(str(c) for c in sorted(case.expect))
        verdict = "PASS" if ok else ("FAIL traceback" if traceback else "FAIL exit")
        print(f"{case.name:<{width}}  {code:>4}  {expect:<12}  {first}  {verdict}")
    codes: dict[int, int] = {}
    for case in cases:
        assert case.result is not None
        codes[case.result[0]] = codes.get(case.result[0], 0) + 1
    generated = sum(c.name.startswith("gen ") for c in cases)
    summary = {
        "cases": len(cases),
        "defect_cases": len(cases) - generated,
        "generated_cases": generated,
        "passed": len(cases) - failed,
        "failed": failed,
        "tracebacks": tracebacks,
        "exit_codes": dict(sorted(codes.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
