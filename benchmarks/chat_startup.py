"""Benchmark: time from `tod chat` start to its first prompt, on a pseudo-terminal.

    python benchmarks/chat_startup.py [--runs 5] [-- extra tod chat args]

Prints JSON: every run's seconds, the median and the maximum. Compare run to run; the
target for the embedded services is under one second.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import statistics
import sys
import time


def time_to_prompt(command: list[str], prompt: bytes = b"you>", timeout: float = 30.0) -> float:
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # child: become `tod chat` on the pty
        os.execvp(command[0], command)
    seen = b""
    try:
        while prompt not in seen:
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"no prompt after {timeout} s; output: {seen[-500:]!r}")
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    raise RuntimeError(f"tod chat exited: {seen[-500:]!r}") from None
        return time.perf_counter() - start
    finally:
        os.write(fd, b"/quit\n")
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("extra", nargs="*", help="arguments passed to `tod chat`")
    args = parser.parse_args()
    tod = shutil.which("tod") or os.path.join(os.path.dirname(sys.executable), "tod")
    command = [tod, "chat", *args.extra]
    time_to_prompt(command)  # warm the file cache and .pyc files
    runs = [round(time_to_prompt(command), 3) for _ in range(args.runs)]
    print(
        json.dumps(
            {
                "command": " ".join(command[1:]),
                "runs": runs,
                "median_s": statistics.median(runs),
                "max_s": max(runs),
            }
        )
    )


if __name__ == "__main__":
    main()
