"""Invalid messages for every topic the walking stack subscribes to, for the fuzz tests.

Each message starts from a valid one (what the stack itself would publish at sim time ``now_s``)
and gets at least one corruption that makes it invalid: a non-finite or absurd value (NaN, ±inf,
±1e308), an empty or oversized array, a wrong, unknown or duplicate name, a bad frame, a stamp in
the past or the future, a broken structure. Every one must be refused by every node that reads
the topic. Deterministic for a given seed.
"""

from __future__ import annotations

import math

import numpy as np
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped, Twist, WrenchStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from biped_common import conversions as conv
from biped_common.com_plan import ComPlan
from biped_common.gait_reference import GaitReference
from biped_common.state import BaseState

EXTREMES = (math.nan, math.inf, -math.inf, 1e308, -1e308)
OVERSIZED = 20_000


class Fuzzer:
    """Invalid messages for one robot; ``messages(topic, now_s)`` yields one per call of next()."""

    def __init__(self, robot, seed: int = 0):
        self.robot = robot
        self.rng = np.random.default_rng(seed)
        d = robot.description
        self.frames = {"imu": d.imu_site, "base": d.base_body,
                       "left": d.feet["left"].sole_site, "right": d.feet["right"].sole_site}
        self.upper = [n for n in robot.joint_names if not any(k in n for k in ("hip", "knee", "ankle"))] \
            or list(robot.joint_names[:2])

    # -- helpers ---------------------------------------------------------------------------
    def _extreme(self) -> float:
        return float(self.rng.choice(EXTREMES))

    def _bad_stamp(self, now_s: float):
        """At least 1.5 s old (0 at the earliest) or 5 s ahead: fuzz from sim time 2 s on."""
        offset = float(self.rng.choice([-1e6, -50.0, -5.0, -1.5, 5.0, 50.0, 1e6]))
        return conv.seconds_to_stamp(max(now_s + offset, 0.0))

    def _pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    # -- per topic ---------------------------------------------------------------------------
    def joint_state(self, now_s: float) -> JointState:
        r = self.robot
        n = r.n_joints
        msg = JointState(name=list(r.joint_names), position=[float(x) for x in r.standing_posture_rad],
                         velocity=[0.0] * n, effort=[0.0] * n)
        msg.header.stamp = conv.seconds_to_stamp(now_s)
        k = int(self.rng.integers(n))

        def value():
            field = self._pick(["position", "velocity", "effort"])
            values = list(getattr(msg, field))
            values[k] = self._extreme()
            setattr(msg, field, values)

        def outside_range():
            values = list(msg.position)
            values[k] = float(r.position_upper_rad[k] + 3.0)
            msg.position = values
        corruption = self._pick([
            value, outside_range,
            lambda: setattr(msg, "name", []),
            lambda: setattr(msg, "position", [0.0] * OVERSIZED),
            lambda: setattr(msg, "velocity", list(msg.velocity)[:-1]),
            lambda: setattr(msg, "name", list(r.joint_names[:-1]) + ["tail"]),
            lambda: setattr(msg, "name", list(r.joint_names[:-1]) + [r.joint_names[0]]),
            lambda: setattr(msg, "effort", [0.0] * (n + 3)),
            lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s)),
        ])
        corruption()
        return msg

    def imu(self, now_s: float) -> Imu:
        msg = Imu()
        msg.header.stamp, msg.header.frame_id = conv.seconds_to_stamp(now_s), self.frames["imu"]
        msg.orientation.w = 1.0
        msg.linear_acceleration.z = 9.81
        corruption = self._pick([
            lambda: setattr(msg.header, "frame_id", self._pick(["", "pelvis_link", "x" * 300])),
            lambda: setattr(msg.orientation, self._pick(["w", "x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.orientation, "w", 0.0),
            lambda: setattr(msg.angular_velocity, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.linear_acceleration, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s)),
        ])
        corruption()
        return msg

    def wrench(self, now_s: float, side: str) -> WrenchStamped:
        msg = WrenchStamped()
        msg.header.stamp, msg.header.frame_id = conv.seconds_to_stamp(now_s), self.frames[side]
        msg.wrench.force.z = 50.0
        corruption = self._pick([
            lambda: setattr(msg.header, "frame_id", self._pick(["", "world", self.frames["left" if side == "right" else "right"]])),
            lambda: setattr(msg.wrench.force, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.wrench.torque, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s)),
        ])
        corruption()
        return msg

    def odometry(self, now_s: float) -> Odometry:
        state = BaseState(now_s, np.array([0.0, 0.0, self.robot.nominal_pelvis_height_m]), np.array([1.0, 0, 0, 0]),
                          np.zeros(3), np.zeros(3))
        msg = conv.odometry_message(state, self.frames["base"])
        corruption = self._pick([
            lambda: setattr(msg.header, "frame_id", self._pick(["", "odom", "map"])),
            lambda: setattr(msg, "child_frame_id", self._pick(["", "base_link", "world"])),
            lambda: setattr(msg.pose.pose.position, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.pose.pose.orientation, "w", self._pick([0.0, math.nan, 1e308])),
            lambda: setattr(msg.twist.twist.linear, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.twist.twist.angular, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s)),
        ])
        corruption()
        return msg

    def _valid_reference(self, now_s: float, points: int = 5) -> GaitReference:
        n, sides = points, ("left", "right")
        upper = [n_ for n_ in self.upper if n_ in self.robot.joint_index]
        return GaitReference(
            stamp_s=now_s, times_s=0.04 * np.arange(n), body=np.zeros((n, 3)), pelvis_height_m=np.full(n, 0.5),
            pelvis_quat_wxyz=np.tile([1.0, 0, 0, 0], (n, 1)),
            sole_position_m={side: np.tile([0.0, 0.1 if side == "left" else -0.1, 0.0], (n, 1)) for side in sides},
            sole_quat_wxyz={side: np.tile([1.0, 0, 0, 0], (n, 1)) for side in sides},
            in_stance={side: np.ones(n, bool) for side in sides},
            upper_joint_names=tuple(upper),
            upper_joints_rad=np.tile(self.robot.standing_posture_rad[[self.robot.joint_index[j] for j in upper]], (n, 1)))

    def _corrupt_table(self, msg: Float64MultiArray, columns: int, extra: list) -> Float64MultiArray:
        """One corruption of a table message: its layout, its size, or one of ``extra``."""
        data = np.frombuffer(msg.data, dtype=np.float64).copy()
        rows = data.size // columns

        def set_value(row: int, column: int, value: float) -> None:
            data[row * columns + column] = value
            msg.data = data.tolist()
        corruption = self._pick([
            lambda: setattr(msg.layout, "dim", msg.layout.dim[:1]),
            lambda: setattr(msg.layout.dim[0], "label", "time"),
            lambda: setattr(msg.layout.dim[0], "size", rows + 1),
            lambda: setattr(msg.layout, "data_offset", 3),
            lambda: setattr(msg, "data", data.tolist()[:-1]),
            lambda: setattr(msg, "data", [0.0] * OVERSIZED),
            lambda: set_value(int(self.rng.integers(rows)), int(self.rng.integers(columns)), self._extreme()),
            *[(lambda f=f: f(set_value, rows)) for f in extra],
        ])
        corruption()
        return msg

    def gait_reference(self, now_s: float) -> Float64MultiArray:
        reference = self._valid_reference(now_s)
        msg = conv.gait_reference_message(reference)
        columns = len(conv.REFERENCE_COLUMNS) + len(reference.upper_joint_names)
        col = {name: i for i, name in enumerate(conv.REFERENCE_COLUMNS)}
        names = list(msg.layout.dim[1].label.split(","))

        def relabel(new_names):
            msg.layout.dim[1].label = ",".join(new_names)
        extra = [
            lambda set_value, rows: relabel(["time"] + names[1:]),
            lambda set_value, rows: relabel(names[:-1] + ["tail"]) if len(names) > len(col) else relabel(names[:-1] + ["x"]),
            lambda set_value, rows: relabel(names[:-1] + [names[len(col)]]) if len(names) > len(col) + 1
            else relabel(["t_s"] * len(names)),
            lambda set_value, rows: set_value(rows - 1, col["t_s"], now_s),                     # times not increasing
            lambda set_value, rows: set_value(1, col["left_stance"], 0.5),
            lambda set_value, rows: set_value(2, col["pelvis_qw"], self._pick([0.0, 5.0])),    # not a unit quaternion
            lambda set_value, rows: set_value(0, len(col), 20.0) if len(names) > len(col)
            else set_value(0, col["right_qw"], 0.0),                                            # beyond the joint's range
            lambda set_value, rows: [set_value(r, col["t_s"], max(now_s + self._pick([-50.0, 5.0, 1e6]), 0.0) + 0.04 * r)
                                     for r in range(rows)],                                     # a stale or future stamp
        ]
        return self._corrupt_table(msg, columns, extra)

    def upper_body(self, now_s: float, stamp_matters: bool = True) -> JointTrajectory:
        msg = JointTrajectory(joint_names=list(self.upper))
        msg.header.stamp = conv.seconds_to_stamp(now_s)
        for k in range(3):
            msg.points.append(JointTrajectoryPoint(positions=[0.0] * len(self.upper),
                                                   time_from_start=Duration(sec=k)))
        corruption = self._pick([
            lambda: setattr(msg, "joint_names", list(self.upper[:-1]) + ["tail"]),
            lambda: setattr(msg, "joint_names", list(self.upper[:-1]) + [self.upper[0]]),
            lambda: setattr(msg.points[1], "positions", [self._extreme()] * len(self.upper)),
            lambda: setattr(msg.points[1], "positions", [20.0] * len(self.upper)),
            lambda: setattr(msg.points[2], "time_from_start", Duration(sec=0)),
            lambda: setattr(msg, "points", []),
            *([lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s))] if stamp_matters else []),
        ])
        corruption()
        return msg

    def arm_trajectory(self, now_s: float) -> JointTrajectory:
        """Like the upper body, but a reach trajectory's stamp is its start (any time is valid)."""
        return self.upper_body(now_s, stamp_matters=False)

    def com_plan(self, now_s: float) -> Float64MultiArray:
        plan = ComPlan(now_s, 0.05, np.zeros((4, 4)), np.zeros((3, 2)), math.sqrt(9.81 / 0.55))
        msg = conv.com_plan_message(plan)
        columns = len(conv.COM_PLAN_COLUMNS)
        extra = [
            lambda set_value, rows: setattr(msg.layout.dim[1], "label", "com,cop"),
            lambda set_value, rows: set_value(0, 7, self._pick([-0.5, 0.0, 1e3])),            # pendulum height
            lambda set_value, rows: set_value(3, 0, now_s + 7.0),                              # uneven times
            lambda set_value, rows: [set_value(r, 0, max(now_s + self._pick([-50.0, 5.0, 1e6]), 0.0) + 0.05 * r)
                                     for r in range(rows)],                                     # a stale or future start
        ]
        return self._corrupt_table(msg, columns, extra)

    def joint_command(self, now_s: float) -> JointTrajectory:
        r = self.robot
        n = r.n_joints
        msg = JointTrajectory(joint_names=list(r.joint_names))
        msg.header.stamp = conv.seconds_to_stamp(now_s)
        msg.points = [JointTrajectoryPoint(positions=[float(x) for x in r.standing_posture_rad],
                                           velocities=[0.0] * n, effort=[0.0] * n)]
        k = int(self.rng.integers(n))

        def value():
            field = self._pick(["positions", "velocities", "effort"])
            values = list(getattr(msg.points[0], field))
            values[k] = self._extreme()
            setattr(msg.points[0], field, values)
        corruption = self._pick([
            value,
            lambda: setattr(msg, "joint_names", list(r.joint_names[:-1]) + ["tail"]),
            lambda: setattr(msg, "joint_names", list(r.joint_names[:-1]) + [r.joint_names[0]]),
            lambda: setattr(msg, "points", []),
            lambda: setattr(msg, "points", msg.points * 3),
            lambda: setattr(msg.points[0], "positions", [0.0] * (n + 1)),
            lambda: msg.points.append(JointTrajectoryPoint(positions=[1e9] * n, velocities=[1.0] * n)),
            lambda: setattr(msg.header, "stamp", self._bad_stamp(now_s)),
        ])
        corruption()
        return msg

    def push(self, now_s: float) -> WrenchStamped:
        msg = WrenchStamped()
        msg.header.frame_id = self.frames["base"]
        msg.header.stamp = conv.seconds_to_stamp(now_s + 0.1)
        corruption = self._pick([
            lambda: setattr(msg.header, "frame_id", self._pick(["", "nose", "tail"])),
            lambda: setattr(msg.wrench.force, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.wrench.force, "x", float(self.rng.uniform(2500.0, 1e6))),
            lambda: setattr(msg.wrench.torque, "z", self._extreme()),
            lambda: setattr(msg.header, "stamp", conv.seconds_to_stamp(now_s + 1e6)),    # lasts for ever
            lambda: setattr(msg.header, "stamp", conv.seconds_to_stamp(max(now_s - 5.0, 1e-9))),  # ended
        ])
        corruption()
        return msg

    def cmd_vel(self, now_s: float) -> Twist:
        msg = Twist()
        for field in self.rng.choice(["x", "y", "z"], size=int(self.rng.integers(1, 4)), replace=False):
            target = msg.linear if field in ("x", "y") else msg.angular
            setattr(target, str(field), float(self.rng.choice([math.nan, math.inf, -math.inf])))
        return msg

    def reach_goal(self, now_s: float) -> PoseStamped:
        msg = PoseStamped()
        msg.header.stamp, msg.header.frame_id = conv.seconds_to_stamp(now_s), self.frames["base"]
        msg.pose.position.x, msg.pose.orientation.w = 0.2, 1.0
        corruption = self._pick([
            lambda: setattr(msg.pose.position, self._pick(["x", "y", "z"]), self._extreme()),
            lambda: setattr(msg.pose.orientation, "w", self._pick([0.5, math.nan, 3.0, -math.inf])),
        ])
        corruption()
        return msg

    def topics(self, reach: bool = False) -> dict[str, tuple[type, object]]:
        """Topic → (message type, generator(now_s)) for every topic the walking stack reads."""
        out = {
            "/cmd_vel": (Twist, self.cmd_vel),
            "/joint_states": (JointState, self.joint_state),
            "/imu": (Imu, self.imu),
            "/foot/left/wrench": (WrenchStamped, lambda t: self.wrench(t, "left")),
            "/foot/right/wrench": (WrenchStamped, lambda t: self.wrench(t, "right")),
            "/odom": (Odometry, self.odometry),
            "/gait/reference": (Float64MultiArray, self.gait_reference),
            "/mpc/com_plan": (Float64MultiArray, self.com_plan),
            "/reach/arm_trajectory": (JointTrajectory, self.arm_trajectory),
            "/joint_commands": (JointTrajectory, self.joint_command),
            "/push": (WrenchStamped, self.push),
        }
        if reach:
            out["/reach/left/goal"] = (PoseStamped, self.reach_goal)
            out["/reach/right/goal"] = (PoseStamped, self.reach_goal)
        return out


