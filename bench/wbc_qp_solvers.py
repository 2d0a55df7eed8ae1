"""Which QP solver for the whole-body controller: the same QPs (captured from a walking run of
each robot) solved by quadprog, DAQP, ProxQP and OSQP; medians and p99s, and each solver's
median as a ratio of quadprog's, measured in one run.

Run: make bench  (or .venv/bin/python bench/wbc_qp_solvers.py [--problems N])
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import wbc_node.wbc
from biped_stack.scenario import Scenario, Segment
from biped_stack.walking import run_walk
from wbc_node.qp import SOLVERS, solve_qp

SCENARIO = Scenario("capture", (Segment("stand", 0.5, (0.0, 0.0, 0.0)), Segment("forward", 2.0, (0.3, 0.0, 0.0))))


def capture(robot: str, count: int) -> list[tuple]:
    """``count`` QPs spread over a walking run (stance changes included)."""
    captured, original = [], wbc_node.wbc.solve_qp

    def recording(*args, **kwargs):
        captured.append(tuple(np.array(a, copy=True) for a in args))
        return original(*args, **kwargs)
    wbc_node.wbc.solve_qp = recording
    try:
        run_walk(robot, "neutral", SCENARIO, progress=lambda m: None, state_source="ground_truth")
    finally:
        wbc_node.wbc.solve_qp = original
    step = max(1, len(captured) // count)
    return captured[::step][:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=300)
    args = parser.parse_args()
    for robot in ("biped", "humanoid"):
        problems = capture(robot, args.problems)
        n = problems[0][0].shape[0]
        print(f"{robot}: {len(problems)} WBC QPs (≈{n} variables), solve time per solver:")
        medians = {}
        for solver in SOLVERS:
            times, failures = [], 0
            for problem in problems:
                started = time.perf_counter()
                solution = solve_qp(*problem, solver=solver)
                times.append(time.perf_counter() - started)
                failures += not solution.ok
            ms = np.asarray(times) * 1e3
            medians[solver] = np.median(ms)
            print(f"  {solver:9s} median {np.median(ms):7.3f} ms  p99 {np.percentile(ms, 99):7.3f} ms  "
                  f"failures {failures}")
        print("  median / quadprog's: " + ", ".join(f"{s} {medians[s] / medians['quadprog']:.1f}×" for s in SOLVERS))


if __name__ == "__main__":
    main()
