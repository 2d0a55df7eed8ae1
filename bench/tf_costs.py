"""What one joint state costs the TF publisher (tf_publisher_node): the frame tree's joint edges
(biped_common.tf_frames: Pinocchio forward kinematics) and the tf2_msgs/TFMessage built from them
(biped_common.conversions.tf_message), per robot, at random joint angles. Medians and p99s in
milliseconds; at 200 Hz, 1 ms per call is 20 % of a core.

Run: .venv/bin/python bench/tf_costs.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from biped_common import conversions as conv
from biped_common.robot_model import available_robots, load_robot
from biped_common.tf_frames import FrameTree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    print(f"TF publisher cost per joint state ({args.calls} calls per robot)")
    for name in available_robots():
        robot = load_robot(name)
        tree = FrameTree(robot)
        rng = np.random.default_rng(0)
        angles = rng.uniform(robot.position_lower_rad, robot.position_upper_rad, (args.calls, robot.n_joints))
        edges_ms, message_ms = [], []
        for q in angles:
            started = time.perf_counter()
            transforms = tree.joint_transforms(q)
            middle = time.perf_counter()
            conv.tf_message(1.0, transforms)
            done = time.perf_counter()
            edges_ms.append((middle - started) * 1e3)
            message_ms.append((done - middle) * 1e3)
        total = np.add(edges_ms, message_ms)
        print(f"  {name:9s} {len(transforms)} edges: tree p50 {np.median(edges_ms):.3f} ms p99 {np.percentile(edges_ms, 99):.3f}"
              f" | message p50 {np.median(message_ms):.3f} ms p99 {np.percentile(message_ms, 99):.3f}"
              f" | total p50 {np.median(total):.3f} ms p99 {np.percentile(total, 99):.3f}")


if __name__ == "__main__":
    main()
