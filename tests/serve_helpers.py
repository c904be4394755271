"""Helpers for the server and store tests: free ports, a private redis-server, `tod serve`
processes. A test needing a program that is absent skips, and fails under CI=true."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tod_runtime import Config

ECHO = ["--services", "echo", "--backend", "echo", "--nlu", "echo", "--tracker", "echo"]
ECHO += ["--policy", "echo", "--generator", "echo"]
TOD = [sys.executable, "-m", "tod_runtime.cli"]
ECHO_CONFIG = Config(
    services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
)
Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        reason = f"{name} not installed (apt-get install {name})"
        if in_ci():
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)
    return path


LOGS = Path(tempfile.gettempdir()) / "tod-serve-tests"
LOGS.mkdir(exist_ok=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A private redis-server on a free loopback port (never the machine's 6379)."""
    program = require_program("redis-server")
    port = free_port()
    proc = subprocess.Popen(
        [
            program,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port, proc, "redis-server", timeout=20)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(proc)


def start_serve(
    store: str, args: Sequence[str] = ECHO, port: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    port = port or free_port()
    log = open(LOGS / f"serve-{port}.log", "ab")  # noqa: SIM115 (the process writes it)
    proc = subprocess.Popen(
        [*TOD, "serve", "--port", str(port), "--store", store, *args],
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    log.close()
    try:
        wait_for(port, proc, "tod serve")
    except RuntimeError:
        stop(proc)
        raise
    return proc, port


def call(port: int, method: str, path: str, body: object = None) -> tuple[int, dict[str, object]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
