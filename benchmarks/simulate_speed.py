"""Benchmark: act-level simulated dialogues per second (target: >= 200 on 2 cores).

    python benchmarks/simulate_speed.py [--dialogues 2000] [--workers 2] [--services SRC]

Runs ``tod simulate``'s runner at the act level (rule policy) and prints JSON: the wall time
of the whole run (start-up of every worker included) and of the dialogues alone (less one
worker's start-up), dialogues per second for both, and the CPU seconds the run used (this
process and its workers) with dialogues per CPU second: on a machine shared with other work
the wall-clock rate is a floor, and twice the per-CPU-second rate is what two idle cores
would give.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from tod_runtime.simulate import runner
from tod_runtime.simulate.runner import SimulateOptions, run_simulation


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--services", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    options = SimulateOptions(
        services=args.services, dialogues=args.dialogues, workers=args.workers, seed=args.seed
    )
    cpu_before = _cpu()
    begin = time.perf_counter()
    run = run_simulation(options)
    end = time.perf_counter()
    cpu = _cpu() - cpu_before  # this process and its finished workers
    total = end - begin
    # With workers, start-up happens in the children; measure it once here instead.
    probe = time.perf_counter()
    runner._Worker(options).close()
    startup = time.perf_counter() - probe
    dialogues_only = max(total - startup, 1e-9)
    print(
        json.dumps(
            {
                "dialogues": len(run.outcomes),
                "workers": args.workers,
                "services": args.services or "embedded",
                "success_rate": round(
                    sum(o.verdict.success for o in run.outcomes) / len(run.outcomes), 4
                ),
                "wall_s": round(total, 2),
                "startup_s": round(startup, 2),
                "dialogues_per_s": round(len(run.outcomes) / total, 1),
                "dialogues_per_s_after_startup": round(len(run.outcomes) / dialogues_only, 1),
                "cpu_s": round(cpu, 2),
                "dialogues_per_cpu_s": round(len(run.outcomes) / cpu, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
