"""Helpers for multi-process tests over real DDS: start processes, probe topics, stop everything.

Every wait is bounded; every process started here is stopped by the test that started it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import rclpy
from rclpy.experimental import EventsExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from biped_common import conversions as conv
from biped_stack.launcher import executable_command, package_share, stop_process_group

SHARE = package_share("biped_stack")


class Processes:
    """Child processes with output captured to files; :meth:`stop_all` ends them by PID."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.children: dict[str, subprocess.Popen] = {}

    def start(self, name: str, command: list[str], env: dict[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen:
        """Start ``command`` (in ``env``, default: this process's) with its output in a log file."""
        env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
        env.setdefault("AMENT_PREFIX_PATH", sys.prefix)
        log = open(self.log_dir / f"{name}.log", "w")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.children[name] = process
        return process

    def start_node(self, name: str, executable: str, *params: str) -> subprocess.Popen:
        args = ["--ros-args", "-r", f"__node:={name}"]
        for p in params:
            args += ["-p", p]
        return self.start(name, executable_command("biped_stack", executable) + args)

    def launch(self, name: str, file: str, *overrides: str) -> subprocess.Popen:
        return self.start(name, [sys.executable, "-m", "biped_stack", "launch", str(SHARE / "launch" / file),
                                 *overrides])

    def output(self, name: str) -> str:
        return (self.log_dir / f"{name}.log").read_text()

    def stop(self, name: str, timeout_s: float = 20.0) -> int:
        """SIGINT, then SIGTERM, then SIGKILL (a launcher killed at once would orphan its nodes)."""
        return stop_process_group(self.children[name], grace_s=timeout_s)

    def stop_all(self) -> None:
        for name in list(self.children):
            self.stop(name)


class Probe:
    """A node in the test process recording what the stack publishes."""

    def __init__(self, domain_id: int, odom_topic: str = "/ground_truth/odom"):
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("probe", context=self.context)
        # The events executor: the default one took ≈ 40 % of a core for the mock robot's 250 Hz
        # odometry, load the real-time tests' nodes then missed deadlines under.
        self.executor = EventsExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.odometry: list[tuple[float, float]] = []  # (stamp s, pelvis z m)
        self.pelvis_xy_m: list[tuple[float, float]] = []  # world frame, from the same messages
        self.modes: list[tuple[float, str]] = []
        self.command_stamps: list[float] = []
        self.realtime: dict[str, float] | None = None  # the real-time bridge's latest deadline tally
        from diagnostic_msgs.msg import DiagnosticArray
        from nav_msgs.msg import Odometry
        from trajectory_msgs.msg import JointTrajectory
        self.node.create_subscription(Odometry, odom_topic, self._on_odom, 1000)
        self.node.create_subscription(JointTrajectory, "/joint_commands",
                                      lambda m: self.command_stamps.append(conv.stamp_to_seconds(m.header.stamp)), 1000)
        latched = QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_status, latched)
        self.controllers: dict[str, str] = {}  # node → "walking" or why not (the nodes' volatile reports)
        self.node.create_subscription(DiagnosticArray, "/diagnostics",
                                      lambda m: self.controllers.update(conv.controller_from_status(m)), 10)

    def _on_odom(self, msg) -> None:
        self.odometry.append((conv.stamp_to_seconds(msg.header.stamp), msg.pose.pose.position.z))
        self.pelvis_xy_m.append((msg.pose.pose.position.x, msg.pose.pose.position.y))

    def _on_status(self, msg) -> None:
        for status in msg.status:
            if status.name == "sim_bridge":
                since = {kv.key: kv.value for kv in status.values}.get("since_s")
                stamp = float(since) if since is not None else conv.stamp_to_seconds(msg.header.stamp)
                if not self.modes or self.modes[-1] != (stamp, status.message):  # repeated with each tally
                    self.modes.append((stamp, status.message))
        self.realtime = conv.realtime_from_status(msg) or self.realtime

    def spin_until(self, condition, timeout_s: float, alive=()) -> bool:
        """Serve callbacks until ``condition()`` or ``timeout_s``; False on timeout or when one of
        the ``alive`` processes ended."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if condition():
                return True
            if any(p.poll() is not None for p in alive):
                return False
            self.executor.spin_once(timeout_sec=0.05)
        return condition()

    def heard_the_latest_command(self, slack_s: float = 0.004) -> bool:
        """True once a command answering (about) the latest frame has arrived: in lockstep the
        controller is then not ahead of the probe. (A killed writer's undelivered samples are
        lost, so a test that kills the controller waits for this first, or it would misread
        which command was the last.)"""
        return bool(self.command_stamps) and self.command_stamps[-1] >= self.sim_time_s() - slack_s

    def sim_time_s(self) -> float:
        return self.odometry[-1][0] if self.odometry else -1.0

    def publisher(self, msg_type, topic: str):
        return self.node.create_publisher(msg_type, topic, 10)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)
