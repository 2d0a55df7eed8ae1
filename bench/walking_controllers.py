"""WBC tick and MPC solve times while walking, both robots, in-process lockstep (p50/p99).

The run: stand 1 s, forward 0.3 m/s 4 s, turn 0.5 rad/s 3 s (neutral style). The WBC tick is the
whole 500 Hz controller step (Pinocchio dynamics + QP + torques); the MPC time is OSQP's solve.
Goals (issue #4): WBC p99 ≤ 1 ms on biped, ≤ 2 ms on humanoid; MPC p99 ≤ 4 ms.

Run: make bench  (or .venv/bin/python bench/walking_controllers.py)
"""

from __future__ import annotations

import numpy as np

from biped_stack.scenario import Scenario, Segment
from biped_stack.walk_demo import run_walk

SCENARIO = Scenario("bench", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0)),
                              Segment("turn", 3.0, (0.0, 0.0, 0.5))))


def main() -> None:
    print(f"walking controllers, in-process, {SCENARIO.duration_s:.0f} s of sim time per robot:")
    for robot in ("biped", "humanoid"):
        result = run_walk(robot, "neutral", SCENARIO, progress=lambda m: None)
        wbc = np.asarray(result.log.wbc_solve_s) * 1e3
        mpc = np.asarray(result.log.mpc_solve_s) * 1e3
        print(f"  {robot:8s} WBC tick median {np.median(wbc):.3f} ms p99 {np.percentile(wbc, 99):.3f} ms "
              f"({wbc.size} ticks) | MPC solve median {np.median(mpc):.3f} ms p99 {np.percentile(mpc, 99):.3f} ms "
              f"({mpc.size} solves) | loop RTF {result.metrics['real_time_factor']:.2f} | fell {result.metrics['fell']}")


if __name__ == "__main__":
    main()
