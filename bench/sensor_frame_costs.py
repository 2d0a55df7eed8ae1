"""What receiving one sensor frame costs the control process before the estimator sees it: the
four messages (joint states, IMU, two foot wrenches) deserialized by rclpy, checked and converted,
against the same read from their bytes (biped_common.cdr_views) — interleaved in one run, in a
tight loop and after a 5 ms busy wait (a real-time process wakes once per frame: on this VM its
caches are then cold). Medians and p99s in microseconds.

Run: .venv/bin/python bench/sensor_frame_costs.py [--robot humanoid] [--frames 300]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from geometry_msgs.msg import WrenchStamped
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import Imu, JointState

from biped_common import conversions as conv
from biped_common.cdr_views import JointStateReader, imu_view, wrench_stamped_view
from biped_common.robot_model import load_robot
from sim_bridge.mujoco_backend import MujocoBackend

SIDES = ("left", "right")


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="humanoid")
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()
    robot = load_robot(args.robot)
    frame, d = MujocoBackend(robot).measure(), robot.description
    messages = {"joints": conv.joint_state_message(frame),
                "imu": conv.imu_message(frame.stamp_s, frame.imu, d.imu_site, 0.01, 0.01, 0.01),
                **{s: conv.wrench_message(frame.stamp_s, frame.foot_wrenches[s], d.feet[s].sole_site) for s in SIDES}}
    raw = {part: serialize_message(m) for part, m in messages.items()}
    types = {"joints": JointState, "imu": Imu, "left": WrenchStamped, "right": WrenchStamped}
    readers = {"joints": JointStateReader(), "imu": imu_view, "left": wrench_stamped_view, "right": wrench_stamped_view}
    checks = {"joints": conv.joint_state_check(robot), "imu": conv.imu_check(robot),
              **{s: conv.wrench_check(robot, s) for s in SIDES}}

    def receive(decode) -> float:
        started = time.perf_counter()
        parts = {part: decode(part) for part in raw}
        for part, msg in parts.items():
            checks[part](msg)
        conv.sensor_frame_from_messages(parts["joints"], parts["imu"], {s: parts[s] for s in SIDES})
        return time.perf_counter() - started

    print(f"receiving a sensor frame ({args.robot}, {args.frames} frames, interleaved): deserialize or read, check, convert")
    for gap_s in (0.0, 0.005):
        by_rclpy, by_bytes = [], []
        for _ in range(args.frames):
            _busy(gap_s)
            by_rclpy.append(receive(lambda part: deserialize_message(raw[part], types[part])))
            _busy(gap_s)
            by_bytes.append(receive(lambda part: readers[part](raw[part])))
        a, b = np.array(by_rclpy) * 1e6, np.array(by_bytes) * 1e6
        print(f"  {'tight loop' if gap_s == 0 else f'{gap_s * 1e3:.0f} ms apart':11s} rclpy p50 {np.median(a):5.0f} us p99 "
              f"{np.percentile(a, 99):5.0f} us | from bytes p50 {np.median(b):5.0f} us p99 {np.percentile(b, 99):5.0f} us")


if __name__ == "__main__":
    main()
