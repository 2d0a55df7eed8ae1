"""WBC tick and MPC solve times while walking, both robots, in-process lockstep (p50/p99).

The run: stand 1 s, forward 0.3 m/s 4 s, turn 0.5 rad/s 3 s (neutral style). Printed: the WBC
QP tick (Pinocchio dynamics, task assembly, DAQP, torques) and the whole WBC tick (plus sampling
the reference); OSQP's MPC solve and the whole MPC tick (plus CoM and support polygons).
Goals (issue #4): WBC p99 ≤ 1 ms on biped, ≤ 2 ms on humanoid; MPC p99 ≤ 4 ms.

Run: make bench  (or .venv/bin/python bench/walking_controllers.py)
"""

from __future__ import annotations

import numpy as np

from biped_stack.scenario import Scenario, Segment
from biped_stack.walking import run_walk

SCENARIO = Scenario("bench", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0)),
                              Segment("turn", 3.0, (0.0, 0.0, 0.5))))


def main() -> None:
    print(f"walking controllers, in-process, {SCENARIO.duration_s:.0f} s of sim time per robot:")
    for robot in ("biped", "humanoid"):
        result = run_walk(robot, "neutral", SCENARIO, progress=lambda m: None, state_source="ground_truth")
        log = result.log
        print(f"  {robot} (loop RTF {result.metrics['real_time_factor']:.2f}, fell {result.metrics['fell']}):")
        for label, samples in (("WBC QP tick (dynamics, tasks, solve)", log.wbc_solve_s),
                               ("WBC whole tick (+ reference sampling)", log.wbc_tick_s),
                               ("MPC OSQP solve", log.mpc_solve_s),
                               ("MPC whole tick (+ CoM, support polygons)", log.mpc_tick_s)):
            ms = np.asarray(samples) * 1e3
            print(f"    {label:42s} median {np.median(ms):.3f} ms  p99 {np.percentile(ms, 99):.3f} ms  (n={ms.size})")


if __name__ == "__main__":
    main()
