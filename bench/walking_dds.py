"""End-to-end real-time factor of the multi-process stack (launch/sim.launch.xml over DDS,
lockstep, on the estimator with MEMS sensors) walking forward, in both process layouts (composed:
bridge + planning + control processes; separate: one process per node), one after the other in
one run; plus the nodes' own WBC and MPC compute times as they report them on /diagnostics.

Run: make bench  (or .venv/bin/python bench/walking_dds.py [--robot NAME] [--seconds S])
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from biped_stack.ros_walk import run_walk_multiprocess
from biped_stack.scenario import Scenario, Segment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="humanoid")
    parser.add_argument("--seconds", type=float, default=8.0, help="sim time walking forward")
    args = parser.parse_args()
    scenario = Scenario("bench", (Segment("stand", 1.0, (0.0, 0.0, 0.0)),
                                  Segment("forward", args.seconds, (0.3, 0.0, 0.0))))
    for composed in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            m = run_walk_multiprocess(args.robot, "neutral", scenario, Path(tmp), progress=lambda _: None,
                                      state_source="estimator", composed=composed).metrics
        print(f"{args.robot}, {'composed' if composed else 'separate'} layout, lockstep, {scenario.duration_s:.0f} s "
              f"sim: RTF {m['real_time_factor']:.2f}, fell {m['fell']} | WBC node p50 {m['wbc_solve_ms']['p50']:.3f} ms "
              f"p99 {m['wbc_solve_ms']['p99']:.3f} ms | MPC node p50 {m['mpc_solve_ms']['p50']:.3f} ms p99 "
              f"{m['mpc_solve_ms']['p99']:.3f} ms")


if __name__ == "__main__":
    main()
