"""What publishing one sensor frame costs the bridge: the four messages (joint states, IMU, two
foot wrenches) and the ground-truth odometry built by biped_common.conversions and published as
messages, against the same written into their serialized bytes (biped_common.ros_cdr_writers) and
published as bytes — interleaved in one run, in a tight loop and 5 ms apart (as a real-time bridge
publishes: on this VM the code then runs cold) — then each publish of a frame on its own. One subscriber in another process takes every
message (raw), so the middleware delivers them. Medians and p99s in microseconds.

Run: .venv/bin/python bench/publish_costs.py [--robot humanoid] [--frames 300]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

import numpy as np

SUBSCRIBER = """
import rclpy, sys
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, JointState
from biped_common.ros_node_tools import SENSOR_QOS
rclpy.init()
node = rclpy.create_node("publish_costs_subscriber")
for kind, topic in ((JointState, "joint_states"), (Imu, "imu"), (WrenchStamped, "foot/left/wrench"),
                    (WrenchStamped, "foot/right/wrench"), (Odometry, "ground_truth/odom")):
    node.create_subscription(kind, topic, lambda m: None, SENSOR_QOS, raw=True)
try:
    rclpy.spin(node)
except BaseException:
    pass
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="humanoid")
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()
    os.environ.setdefault("ROS_DOMAIN_ID", str(random.randrange(120, 220)))

    import rclpy
    from rclpy.node import Node

    from biped_common.robot_model import load_robot
    from sim_bridge.mujoco_backend import MujocoBackend
    from sim_bridge.node import SensorPublishers
    from biped_common import conversions as conv

    subscriber = subprocess.Popen([sys.executable, "-c", SUBSCRIBER], env=dict(os.environ))
    rclpy.init()
    try:
        node = Node("publish_costs")
        robot = load_robot(args.robot)
        backend = MujocoBackend(robot)
        frame, truth = backend.measure(), backend.ground_truth()
        publishers = SensorPublishers(node, robot, "imu", "foot/{side}/wrench")
        deadline = time.monotonic() + 10.0
        while publishers.joints.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        if publishers.joints.get_subscription_count() == 0:
            raise SystemExit("the subscriber process did not appear within 10 s")
        d = robot.description
        std = (0.01, 0.05, 0.002)

        def as_messages() -> None:
            publishers.truth.publish(conv.odometry_message(truth, d.base_body))
            publishers.imu.publish(conv.imu_message(frame.stamp_s, frame.imu, d.imu_site, *std))
            for side, wrench in frame.foot_wrenches.items():
                publishers.wrench[side].publish(conv.wrench_message(frame.stamp_s, wrench, d.feet[side].sole_site))
            publishers.joints.publish(conv.joint_state_message(frame))

        def as_bytes() -> None:
            publishers.publish(frame, truth, std)

        print(f"publishing a sensor frame + ground truth ({args.robot}, {args.frames} frames, interleaved, "
              f"one subscriber process)")
        for gap_s in (0.0, 0.005):
            samples = {"messages": [], "bytes": []}
            for _ in range(args.frames):
                for label, publish in (("messages", as_messages), ("bytes", as_bytes)):
                    if gap_s:
                        time.sleep(gap_s)
                    started = time.perf_counter()
                    publish()
                    samples[label].append(time.perf_counter() - started)
            a, b = (np.array(samples[k]) * 1e6 for k in ("messages", "bytes"))
            print(f"  {'tight loop' if gap_s == 0 else f'{gap_s * 1e3:.0f} ms apart':11s} messages p50 {np.median(a):5.0f} us "
                  f"p99 {np.percentile(a, 99):5.0f} us | bytes p50 {np.median(b):5.0f} us p99 {np.percentile(b, 99):5.0f} us"
                  f" | ratio of medians {np.median(a) / np.median(b):.2f}")
        # Where the time of a frame 5 ms apart goes: each of its five publishes on its own.
        payloads = [(publishers.truth, publishers._truth_writer.write(truth)),
                    (publishers.imu, publishers._imu_writer[1].write(frame.stamp_s, frame.imu)),
                    *((publishers.wrench[s], publishers._wrench_writers[s].write(frame.stamp_s, w))
                      for s, w in frame.foot_wrenches.items()),
                    (publishers.joints, publishers._joints_writer.write(frame))]
        each = np.zeros((args.frames, len(payloads)))
        for k in range(args.frames):
            time.sleep(0.005)
            for i, (publisher, payload) in enumerate(payloads):
                started = time.perf_counter()
                publisher.publish(payload)
                each[k, i] = time.perf_counter() - started
        print("  5 ms apart, bytes, each publish of the frame in order: p50 "
              + " ".join(f"{v:5.0f}" for v in np.median(each, axis=0) * 1e6) + " us; p99 "
              + " ".join(f"{v:5.0f}" for v in np.percentile(each, 99, axis=0) * 1e6) + " us"
              + "\n  (the first message after an idle gap wakes the subscriber's process: on this VM that costs the"
              + " sender ≈ 1 ms whatever the transport)")
    finally:
        subscriber.terminate()
        subscriber.wait(10)
        rclpy.shutdown()


if __name__ == "__main__":
    main()
