"""Arm-angle prediction: the shipped MLP (numpy forward pass) against the optimization it learned
from, on the same random natural hand poses; medians, p99s and their ratio measured in one run.
Target (issue #7): the MLP ≥ 100× faster.

Run: make bench  (or .venv/bin/python bench/reach_arm_angle.py)
"""

from __future__ import annotations

import time

import numpy as np

from biped_common.resources import arm_angle_model
from reach_planner_node.arm import Arm
from reach_planner_node.arm_angle import NATURAL_POSTURES_DEG, ArmAngleMlp, features, optimal_arm_angle

POSES = 100


def main() -> None:
    model, arm, rng = ArmAngleMlp.load(arm_angle_model()), Arm(), np.random.default_rng(0)
    low, high = np.deg2rad(np.array(NATURAL_POSTURES_DEG, dtype=float)).T
    poses = [arm.forward(rng.uniform(low, high)) for _ in range(POSES)]
    mlp_ms, optimization_ms = [], []
    for pose in poses:
        x = features(pose.hand, pose.hand_rotation, arm)
        start = time.perf_counter()
        model.predict(x)
        mlp_ms.append((time.perf_counter() - start) * 1e3)
        start = time.perf_counter()
        optimal_arm_angle(arm, pose.hand, pose.hand_rotation)
        optimization_ms.append((time.perf_counter() - start) * 1e3)
    print(f"arm angle for {POSES} hand poses:")
    for name, ms in (("MLP (numpy)", mlp_ms), ("optimization", optimization_ms)):
        print(f"  {name:14s} median {np.median(ms):8.4f} ms  p99 {np.percentile(ms, 99):8.4f} ms")
    print(f"  speed-up (median ratio, same run): {np.median(optimization_ms) / np.median(mlp_ms):.0f}×  (target ≥ 100×)")


if __name__ == "__main__":
    main()
