"""WBC tick and MPC solve times while walking, both robots, in-process lockstep (p50/p99).

The run: stand 1 s, forward 0.3 m/s 4 s, turn 0.5 rad/s 3 s (neutral style). Printed: the WBC
QP tick (Pinocchio dynamics, task assembly, DAQP, torques) and the whole WBC tick (plus sampling
the reference); OSQP's MPC solve and the whole MPC tick (plus CoM and support polygons).
Goals (issue #4): WBC p99 ≤ 1 ms on biped, ≤ 2 ms on humanoid; MPC p99 ≤ 4 ms.

Run: make bench  (or .venv/bin/python bench/walking_controllers.py [--wbc-gains FILE ...]: each
gains file in turn per robot, in one run, e.g. config/wbc.yaml config/wbc_style_first.yaml)
"""

from __future__ import annotations

import argparse

import numpy as np

from biped_stack.scenario import Scenario, Segment
from biped_stack.walking import run_walk

SCENARIO = Scenario("bench", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0)),
                              Segment("turn", 3.0, (0.0, 0.0, 0.5))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wbc-gains", nargs="+", default=[None], metavar="FILE",
                        help="WBC gains files (default: config/wbc.yaml)")
    args = parser.parse_args()
    print(f"walking controllers, in-process, {SCENARIO.duration_s:.0f} s of sim time per robot:")
    for robot in ("biped", "humanoid"):
        for gains in args.wbc_gains:
            report(robot, gains)


def report(robot: str, wbc_gains: str | None) -> None:
    """One walk of ``robot`` with the WBC gains file ``wbc_gains`` (None: the shipped), its timings."""
    result = run_walk(robot, "neutral", SCENARIO, progress=lambda m: None, state_source="ground_truth",
                      wbc_gains=wbc_gains)
    log = result.log
    print(f"  {robot}, gains {wbc_gains or 'config/wbc.yaml'} (loop RTF {result.metrics['real_time_factor']:.2f}, "
          f"fell {result.metrics['fell']}):")
    for label, samples in (("WBC QP tick (dynamics, tasks, solve)", log.wbc_solve_s),
                           ("WBC whole tick (+ reference, leg posture)", log.wbc_tick_s),
                           ("MPC OSQP solve", log.mpc_solve_s),
                           ("MPC whole tick (+ CoM, support polygons)", log.mpc_tick_s)):
        ms = np.asarray(samples) * 1e3
        print(f"    {label:42s} median {np.median(ms):.3f} ms  p99 {np.percentile(ms, 99):.3f} ms  (n={ms.size})")


if __name__ == "__main__":
    main()
