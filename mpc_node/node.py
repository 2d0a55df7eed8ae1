"""ROS 2 shell of the CoM MPC: the gait reference and the robot's state in, ``/mpc/com_plan`` out.

Solves once per gait reference (the planner publishes at 125 Hz), with the latest joint state and
base state (``state_source``: ``ground_truth`` reads ``/ground_truth/odom``, ``estimator`` reads
``/odom``), and the latest foot wrenches (``/foot/<side>/wrench``) for its push estimate
(:mod:`mpc_node.planning`; without them, no estimate). Publishes its solve times on
``/diagnostics`` every second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from visualization_msgs.msg import MarkerArray

from biped_common import conversions as conv
from biped_common import markers
from biped_common.robot_model import FootGeometry
from biped_common.support_polygon import support_hull
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import GuardedNode, LatestReader, PLAN_QOS, RepeatFilter, declare_config, run_node
from biped_common.gait_reference import GaitReference
from mpc_node.planning import ComPlanner



MARKER_EVERY_SOLVES = 12  # the MPC solves at 125 Hz: markers at ≈ 10 Hz, all rviz needs


@dataclass(frozen=True)
class MpcNodeConfig:
    """MPC node parameters."""

    robot: str = "humanoid"
    state_source: str = "estimator"      # estimator (/odom) | ground_truth (/ground_truth/odom)
    publish_markers: bool = True         # rviz markers on mpc/markers (biped_common.markers), ≈ 10 Hz

    def __post_init__(self):
        conv.check_state_source(self.state_source)


class MpcNode(GuardedNode):
    def __init__(self, references_from=None):
        """``references_from``: a :class:`gait_planner_node.node.GaitPlannerNode` in this process
        (composed): each reference it publishes is solved for at once, without a subscription."""
        super().__init__("mpc")
        self.config = declare_config(self, MpcNodeConfig)
        self.robot = load_robot(self.config.robot)
        self._warn = RepeatFilter(self.get_logger().warning)
        self.planner = ComPlanner(self.robot, log=self._warn)
        self._solve_s: list[float] = []
        self._last_report = time.monotonic()
        self._pub = self.create_publisher(Float64MultiArray, "mpc/com_plan", PLAN_QOS)
        self._pub_timing = self.create_publisher(DiagnosticArray, "diagnostics", 10)
        self._pub_markers = self.create_publisher(MarkerArray, "mpc/markers", 10)
        self._foot = FootGeometry.from_robot(self.robot)
        self._solves = 0
        if references_from is not None:
            references_from.add_reference_listener(self._solve)
        else:
            self.subscribe_decoded(Float64MultiArray, "gait/reference",
                                   lambda m: conv.gait_reference_from_message(m, self.robot), self._solve, PLAN_QOS)
        # The latest state at each solve (125 Hz), not every 500 Hz arrival.
        self._joints = LatestReader(self, JointState, "joint_states", check=conv.joint_state_check(self.robot))
        self._base = LatestReader(self, Odometry, conv.STATE_TOPICS[self.config.state_source],
                                  check=conv.odometry_check(self.robot))
        self._wrenches = {side: LatestReader(self, WrenchStamped, f"foot/{side}/wrench",
                                             check=conv.wrench_check(self.robot, side))
                          for side in self.robot.description.feet}
        self.get_logger().info(f"CoM MPC for {self.robot.name}: {self.planner.mpc.config.steps} steps of "
                               f"{self.planner.mpc.config.dt_s * 1e3:.0f} ms, state from {self.config.state_source}")

    def _solve(self, reference: GaitReference) -> None:
        joints, odom = self._joints.latest(), self._base.latest()
        if joints is None or odom is None:
            self._warn("MPC: waiting for joint states and the base state")
            return
        try:
            base = conv.base_state_from_odometry(odom)
            q, v = self.robot.state_from(base, joints.name, joints.position, joints.velocity)
        except ValueError as exc:
            self.refuse("/gait/reference", f"reference and state do not fit together: {exc}")
            return
        # Plan from the state's instant: over DDS the reference (stamped by the planner's clock)
        # and the state arrive at different times, so the schedule is re-timed to the state.
        state_s = base.stamp_s
        started = time.perf_counter()
        plan = self.planner.update(state_s, reference, q, v, self._ground_reaction_n(q))
        self._solve_s.append(time.perf_counter() - started)
        if plan is not None:
            self._pub.publish(conv.com_plan_message(plan))
            self._solves += 1
            if self.config.publish_markers and self._solves % MARKER_EVERY_SOLVES == 0:
                self._pub_markers.publish(self._markers(plan, reference, q, v))
        if time.monotonic() - self._last_report >= 1.0:
            self._last_report = time.monotonic()
            self._pub_timing.publish(conv.timing_status_message(reference.stamp_s, "mpc", self._solve_s[-2000:]))

    def _markers(self, plan, reference: GaitReference, q, v):
        """rviz markers of this plan (:func:`biped_common.markers.mpc_markers`) with the support
        polygon of the feet the reference has down now."""
        soles = self.robot.sole_poses(q)
        down = [side for side in soles if reference.in_stance[side][0]]
        support = support_hull([(soles[s][0], soles[s][1], soles[s][3]) for s in down], self._foot) if down else None
        com, vcom = self.robot.com_state(q, v)
        return markers.mpc_markers(plan, com, vcom, support)

    def _ground_reaction_n(self, q):
        """The feet's summed ground reaction [N, world] from the latest wrenches, or None while
        one is missing."""
        wrenches = {side: reader.latest() for side, reader in self._wrenches.items()}
        if any(msg is None for msg in wrenches.values()):
            return None
        return self.robot.ground_reaction_world_n(q, {side: conv.wrench_from_message(msg)
                                                      for side, msg in wrenches.items()})


def main() -> int:
    """Entry point ``mpc_node``."""
    return run_node(MpcNode)
