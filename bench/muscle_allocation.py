"""Muscle allocation cost per tick (the warm-started OSQP allocation, :class:`Allocator.solve`) on
real model states: MyoElbow (6 muscles, 1 dof) along its minimum-jerk tracking run, MyoLeg
(80 muscles) along the generated squat. Medians and p99s. Targets (issue #6): p99 < 0.5 ms and
< 5 ms.

Run: make bench  (or .venv/bin/python bench/muscle_allocation.py)
"""

from __future__ import annotations

import time

import numpy as np

from muscle_allocator_node.mujoco_muscles import load_model
from muscle_allocator_node import allocation
from muscle_allocator_node.inverse import solve_inverse, squat_motion
from muscle_allocator_node.tracking import minimum_jerk, track_joint_reference


def timed_solves(run) -> np.ndarray:
    """Wall time [ms] of every Allocator.solve made while ``run()`` executes."""
    samples, original = [], allocation.Allocator.solve

    def solve(self, *args, **kwargs):
        start = time.perf_counter()
        out = original(self, *args, **kwargs)
        samples.append((time.perf_counter() - start) * 1e3)
        return out
    allocation.Allocator.solve = solve
    try:
        run()
    finally:
        allocation.Allocator.solve = original
    return np.array(samples)


def main() -> None:
    elbow = load_model("myoelbow")
    elbow_ms = timed_solves(lambda: track_joint_reference(elbow, minimum_jerk(0.2, 1.6, 1.0), 2.0))
    legs = load_model("myolegs")
    legs_ms = timed_solves(lambda: solve_inverse(legs, squat_motion(legs, frames=401), progress=lambda m: None))
    print("muscle allocation per tick (warm-started OSQP, real model states):")
    for name, ms, target in (("MyoElbow, 6 muscles", elbow_ms, 0.5), ("MyoLeg, 80 muscles", legs_ms, 5.0)):
        print(f"  {name:20s} {ms.size:5d} solves: median {np.median(ms):.3f} ms  p99 {np.percentile(ms, 99):.3f} ms"
              f"  (target p99 < {target} ms)")


if __name__ == "__main__":
    main()
