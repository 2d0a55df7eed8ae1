"""Gait planner node publish rate over DDS: starts ``gait_planner_node`` (its own process, wall
clock), commands a walk on /cmd_vel and times the arrivals of /gait/reference for a while.
Prints the mean rate and the inter-arrival median and p99 (target: the planning rate, 50 Hz, 20 ms).

Run: make bench  (or .venv/bin/python bench/gait_node_rate.py [--seconds S] [--robot NAME])
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import rclpy
from geometry_msgs.msg import Twist
from rclpy.executors import SingleThreadedExecutor
from std_msgs.msg import Float64MultiArray

from biped_common import conversions as conv
from biped_common.rates import PLANNING_RATE_HZ
from biped_stack.launcher import executable_command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--robot", default="humanoid")
    parser.add_argument("--style", default="neutral")
    args = parser.parse_args()
    os.environ["ROS_DOMAIN_ID"] = str(random.randrange(100, 200))
    os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)
    planner = subprocess.Popen(
        executable_command("biped_stack", "gait_planner_node")
        + ["--ros-args", "-p", f"robot:={args.robot}", "-p", f"style:={args.style}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    rclpy.init()
    node = rclpy.create_node("bench_gait_rate")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    arrivals: list[float] = []
    node.create_subscription(Float64MultiArray, "gait/reference",
                             lambda _: arrivals.append(time.perf_counter()), 50)
    cmd = node.create_publisher(Twist, "cmd_vel", 10)
    try:
        deadline = time.monotonic() + 60.0
        while len(arrivals) < 50 and time.monotonic() < deadline:  # node up and publishing
            cmd.publish(conv.twist_from_velocity_command([0.3, 0.0, 0.2]))
            executor.spin_once(timeout_sec=0.05)
        if len(arrivals) < 50:
            sys.exit("gait_planner_node did not publish within 60 s")
        arrivals.clear()
        end = time.monotonic() + args.seconds
        next_cmd = 0.0
        while time.monotonic() < end:
            if time.monotonic() >= next_cmd:
                cmd.publish(conv.twist_from_velocity_command([0.3, 0.0, 0.2]))
                next_cmd = time.monotonic() + 0.05
            executor.spin_once(timeout_sec=0.01)
        gaps_ms = np.diff(arrivals) * 1e3
        print(f"gait_planner_node ({args.robot}, {args.style}) over {args.seconds:.0f} s: "
              f"{(len(arrivals) - 1) / (arrivals[-1] - arrivals[0]):.1f} Hz; inter-arrival median "
              f"{np.median(gaps_ms):.2f} ms p99 {np.percentile(gaps_ms, 99):.2f} ms (target {PLANNING_RATE_HZ:g} Hz, {1e3 / PLANNING_RATE_HZ:g} ms)")
    finally:
        os.killpg(planner.pid, signal.SIGINT)
        try:
            planner.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(planner.pid, signal.SIGKILL)
        node.destroy_node()
        rclpy.shutdown()


if __name__ == "__main__":
    main()
