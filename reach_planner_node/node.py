"""ROS 2 shell of the reach planner: ``/reach/{left,right}/goal`` (geometry_msgs/PoseStamped;
``frame_id`` = the pelvis or ``world``) and ``/reach/{left,right}/cancel`` (std_msgs/Empty) in,
``/reach/arm_trajectory`` (trajectory_msgs/JointTrajectory, encoding in
:mod:`biped_common.conversions`) out, which the walking whole-body controller follows for that
arm — so the arms reach while the legs walk. Reaches start from the latest ``/joint_states``;
world-frame goals use the latest base pose (``/odom``, or ``/ground_truth/odom`` with
``state_source:=ground_truth``). Bad goals (NaN, unknown frame, no state yet) are refused with a
logged warning; unreachable ones are planned to where the arm can go, and said so."""

from __future__ import annotations

from dataclasses import dataclass

from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_msgs.msg import Empty
from trajectory_msgs.msg import JointTrajectory

from biped_common import conversions as conv
from biped_common.errors import ConfigError
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import PLAN_QOS, SENSOR_QOS, GuardedNode, declare_config, run_node
from reach_planner_node.goals import ReachGoals



@dataclass(frozen=True)
class ReachNodeConfig:
    """Reach planner node parameters."""

    robot: str = "humanoid"
    state_source: str = "estimator"

    def __post_init__(self):
        conv.check_state_source(self.state_source)


class ReachNode(GuardedNode):
    def __init__(self):
        super().__init__("reach_planner")
        self.config = declare_config(self, ReachNodeConfig)
        self.robot = load_robot(self.config.robot)
        if not self.robot.description.hands:
            raise ConfigError("robot", f"{self.robot.name} has no arms to reach with")
        self.goals = ReachGoals(self.robot)
        self._joints: JointState | None = None
        self._base: Odometry | None = None
        # Latched like the gait plans: a late-matched or respawned WBC gets the arms' latest plans.
        self._pub = self.create_publisher(JointTrajectory, "reach/arm_trajectory", PLAN_QOS)
        self.subscribe(JointState, "joint_states", lambda m: setattr(self, "_joints", m), SENSOR_QOS,
                       check=conv.joint_state_check(self.robot))
        self.subscribe(Odometry, conv.STATE_TOPICS[self.config.state_source], lambda m: setattr(self, "_base", m),
                       SENSOR_QOS, check=conv.odometry_check(self.robot))
        for side in ("left", "right"):
            # Goals are poses, not measurements: their stamp is not checked against the clock.
            self.subscribe(PoseStamped, f"reach/{side}/goal", lambda m, s=side: self._on_goal(s, m), 10,
                           check=conv.check_pose_goal, max_age_s=None)
            self.create_subscription(Empty, f"reach/{side}/cancel", lambda m, s=side: self._on_cancel(s), 10)
        self.get_logger().info(f"reach planner for {self.robot.name}'s arms")

    def _state(self):
        if self._joints is None:
            return None
        joints = self.robot.joint_vector(self._joints.name, self._joints.position)
        return joints, conv.stamp_to_seconds(self._joints.header.stamp)

    def _on_goal(self, side: str, msg: PoseStamped) -> None:
        state = self._state()
        if state is None:
            self.get_logger().warning(f"{side} reach goal refused: no joint state yet")
            return
        joints, now = state
        p, o = msg.pose.position, msg.pose.orientation
        base = conv.base_state_from_odometry(self._base) if self._base is not None else None
        result = self.goals.goal(side, msg.header.frame_id, [p.x, p.y, p.z], [o.w, o.x, o.y, o.z], joints,
                                 None if base is None else base.position_m,
                                 None if base is None else base.orientation_wxyz, now)
        self._send(result)

    def _on_cancel(self, side: str) -> None:
        state = self._state()
        if state is None:
            return
        self._send(self.goals.retract(side, *state))

    def _send(self, result) -> None:
        for message in result.messages:
            self.get_logger().warning(message)
        if result.trajectory is not None:
            self._pub.publish(conv.timed_joint_trajectory_message(result.trajectory))


def main() -> int:
    """Entry point ``reach_planner_node``."""
    return run_node(ReachNode)
