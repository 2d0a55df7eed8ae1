"""Bridge ↔ controller round trip over DDS: this script plays the bridge (publishes the sensor
frame of a standing robot on /imu and /joint_states, as sim_bridge does) and times until the
controller process (wbc_node, a separate process) answers on /joint_commands. Median and p99 over
N frames after a warm-up; also the lockstep stack's real-time factor this implies.

Run: make bench  (or .venv/bin/python bench/dds_round_trip.py [--frames N] [--robot NAME])
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
from rclpy.experimental import EventsExecutor
from sensor_msgs.msg import Imu, JointState
from trajectory_msgs.msg import JointTrajectory

from biped_common import conversions as conv
from biped_common.rates import CONTROL_RATE_HZ
from biped_common.ros_node_tools import SENSOR_QOS
from biped_common.robot_model import load_robot
from biped_stack.launcher import executable_command
from sim_bridge.mujoco_backend import MujocoBackend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--robot", default="humanoid")
    args = parser.parse_args()
    os.environ["ROS_DOMAIN_ID"] = str(random.randrange(100, 200))
    os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)
    controller = subprocess.Popen(
        executable_command("biped_stack", "wbc_node")
        + ["--ros-args", "-p", f"robot:={args.robot}", "-p", "use_sim_time:=false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    rclpy.init()
    node = rclpy.create_node("bench_bridge")
    executor = EventsExecutor()
    executor.add_node(node)
    answered = {}
    node.create_subscription(JointTrajectory, "joint_commands",
                             lambda m: answered.__setitem__(conv.stamp_to_ns(m.header.stamp), time.perf_counter()),
                             SENSOR_QOS)
    pub_js = node.create_publisher(JointState, "joint_states", SENSOR_QOS)
    pub_imu = node.create_publisher(Imu, "imu", SENSOR_QOS)
    backend = MujocoBackend(load_robot(args.robot))
    frame = backend.measure()
    round_trips_ms = []
    try:
        warmup = 200
        for k in range(args.frames + warmup):
            stamp = (k + 1) / CONTROL_RATE_HZ
            js = conv.joint_state_message(frame)
            js.header.stamp = conv.seconds_to_stamp(stamp)
            imu = conv.imu_message(stamp, frame.imu, "imu")
            key = conv.stamp_to_ns(js.header.stamp)
            deadline = time.perf_counter() + (30.0 if k == 0 else 2.0)
            sent = time.perf_counter()
            pub_imu.publish(imu)
            pub_js.publish(js)
            while key not in answered and time.perf_counter() < deadline:
                executor.spin_once(timeout_sec=0.5 if k == 0 else 0.01)
                if k == 0 and key not in answered and time.perf_counter() - sent > 0.5:
                    sent = time.perf_counter()  # controller still starting: re-send
                    pub_imu.publish(imu)
                    pub_js.publish(js)
            if key not in answered:
                raise SystemExit(f"no answer to frame {k} within the deadline")
            if k >= warmup:
                round_trips_ms.append((answered[key] - sent) * 1e3)
    finally:
        os.killpg(controller.pid, signal.SIGINT)
        controller.wait(10)
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown()
    rt = np.array(round_trips_ms)
    print(f"DDS round trip bridge -> wbc_node ({args.robot}, stand controller) -> bridge, {len(rt)} frames:")
    print(f"  median {np.median(rt):.3f} ms   p99 {np.percentile(rt, 99):.3f} ms   max {rt.max():.3f} ms")
    print(f"  (includes the controller's compute; at {CONTROL_RATE_HZ:g} Hz lockstep this alone bounds the "
          f"real-time factor at {1e3 / CONTROL_RATE_HZ / np.median(rt):.2f})")


if __name__ == "__main__":
    main()
