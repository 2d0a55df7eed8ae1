"""ROS 2 shell of the stack monitor (``stack_monitor``): checks the launch configuration at start
(exit 2 with the reason when it is bad: the launch files end the launch on that), then watches
the expected nodes once a second — logs when one leaves or comes back, and publishes their state
on ``/diagnostics`` (one status per node: OK present, ERROR missing). It sees the ROS graph as DDS
discovery does: a node that exits cleanly leaves at once, a killed one only when its participant's
lease runs out (Fast DDS: 20 s by default) — a killed node respawned sooner is never seen missing."""

from __future__ import annotations

import os
from dataclasses import dataclass

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus

from biped_common.ros_node_tools import GuardedNode, declare_config, run_node
from biped_stack.monitor import GraphWatch, check_configuration


@dataclass(frozen=True)
class MonitorConfig:
    """Stack monitor parameters."""

    robot: str = "humanoid"
    walk: bool = True                     # the walking stack (planner, estimator, MPC) is expected
    style: str = "neutral"                # checked when walking
    state_source: str = "estimator"
    reach: bool = False                   # the reach planner is expected


class StackMonitorNode(GuardedNode):
    def __init__(self):
        # A supervisor, not a control loop: its start-up checks (loading the robot and the style,
        # ≈ 1 s of CPU) must not take the CPU from the controllers starting beside it.
        os.nice(10)
        super().__init__("stack_monitor")
        self.config = declare_config(self, MonitorConfig)
        c = self.config
        summary = check_configuration(c.robot, c.style if c.walk else "", c.state_source)
        names = ("sim_bridge", "wbc") + (("gait_planner", "state_estimator", "mpc") if c.walk else ()) + \
            (("reach_planner",) if c.reach else ())
        self.watch = GraphWatch(names)
        self._pub = self.create_publisher(DiagnosticArray, "diagnostics", 10)
        self.create_timer(1.0, self._look)
        self.get_logger().info(f"configuration checked: {summary}; watching {', '.join(names) or 'no nodes'}")

    def _look(self) -> None:
        for event in self.watch.update(self.get_node_names()):
            (self.get_logger().info if " is " in event else self.get_logger().error)(event)
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        for name in self.watch.expected:
            ok = name in self.watch.present
            msg.status.append(DiagnosticStatus(level=DiagnosticStatus.OK if ok else DiagnosticStatus.ERROR,
                                               name=f"stack_monitor: {name}", message="running" if ok else "missing"))
        self._pub.publish(msg)


def main() -> int:
    """Entry point ``stack_monitor``."""
    return run_node(StackMonitorNode)
