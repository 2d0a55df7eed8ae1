"""The one place that knows how standard ROS 2 messages encode biped_stack's data.

Imports message types (sensor_msgs, geometry_msgs, …) but never rclpy, so it can be tested without
a ROS graph. Encodings (also listed in the README's topic table):

- Time: ``builtin_interfaces/Time`` ↔ float seconds; lockstep pairing compares integer
  nanoseconds (:func:`stamp_to_ns`), never floats.
- Sensor frame: ``sensor_msgs/JointState`` (position rad, velocity rad/s, effort = applied N·m),
  ``sensor_msgs/Imu`` (orientation of the IMU frame in the world, angular velocity and specific
  force in the IMU frame; covariances from the noise model, diagonal), and one
  ``geometry_msgs/WrenchStamped`` per foot (ground reaction in the sole frame, about its origin;
  ``frame_id`` = the sole site). All share the sensor frame's stamp.
- Joint command: ``trajectory_msgs/JointTrajectory`` with ``header.stamp`` = stamp of the sensor
  frame it answers and one or two points. Point 0 is the setpoint: ``positions`` [rad],
  ``velocities`` [rad/s], ``effort`` [N·m feed-forward]. Point 1, when present, carries the joint
  gains: ``positions`` = kp [N·m/rad], ``velocities`` = kd [N·m·s/rad]; without it the robot's
  default gains apply. Joints the command does not name are damped.
- Ground truth / odometry: ``nav_msgs/Odometry``: pose of ``child_frame_id`` (pelvis) in
  ``frame_id`` (world); twist in the child frame, as REP 105/nav_msgs specify.
- Push: ``geometry_msgs/WrenchStamped``: ``header.frame_id`` = the body to push, wrench in world
  axes applied at the body's centre of mass from reception until ``header.stamp`` (sim time, the
  push's end); a stamp of zero means "for ``default_duration_s``".
- Gait reference preview (``/gait/reference``): ``trajectory_msgs/MultiDOFJointTrajectory``,
  ``joint_names`` = [pelvis, left_sole, right_sole], one point per preview time
  (``time_from_start`` relative to ``header.stamp``), ``transforms`` in the world frame: the
  pelvis translation is (body-path x, body-path y, pelvis height) — the horizontal part is the
  nominal body path, informative only (the MPC owns it) — and its rotation the pelvis
  orientation; the soles' transforms are their poses. Contact schedule (``/gait/contacts``):
  ``trajectory_msgs/JointTrajectory`` with joint_names [left_foot, right_foot], positions 1.0 in
  stance and 0.0 in swing, same times. Upper body (``/gait/upper_body``):
  ``trajectory_msgs/JointTrajectory`` of the upper-body joint angles [rad], same times.
- CoM plan (``/mpc/com_plan``): ``trajectory_msgs/MultiDOFJointTrajectory``, ``joint_names`` =
  [com, cop], ``header.stamp`` = the plan's start (sim time), one point per MPC step k at
  ``time_from_start`` = k·dt: ``com`` transform translation = (c_x, c_y, h) [m] (h the pendulum
  height), its velocity linear = (ċ_x, ċ_y, 0) [m/s]; ``cop`` translation = (z_x, z_y, 0) [m],
  the CoP held from step k to k+1 (the last point repeats the last CoP).
- Muscle activations (``/muscles/activations``): ``sensor_msgs/JointState`` with ``name`` = the
  muscles (the model's actuator names) and ``position`` = activation ∈ [0, 1] (dimensionless);
  velocity and effort empty. Joint torque setpoints for the allocator
  (``/muscles/torque_setpoint``): ``sensor_msgs/JointState`` with ``name`` = joints and
  ``effort`` = desired joint torque [N·m]. Both stamped with the state they answer.
- Arm trajectory from a reach (``/reach/arm_trajectory``): ``trajectory_msgs/JointTrajectory``,
  ``header.stamp`` = its start (sim time), the arm's joints, one point per sample with
  ``positions`` [rad] at ``time_from_start``. The whole-body controller follows it instead of
  the gait's upper-body curves for those joints; the latest one per set of joints wins.
- Bridge status: ``diagnostic_msgs/DiagnosticArray`` with one status named ``sim_bridge``;
  ``message`` = the command mode (waiting | command | damping), header stamp = sim time of the
  change.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Transform, Twist
from geometry_msgs.msg import Vector3
from trajectory_msgs.msg import (JointTrajectory, JointTrajectoryPoint, MultiDOFJointTrajectory,
                                 MultiDOFJointTrajectoryPoint)

from biped_common.com_plan import GRAVITY_M_S2, ComPlan
from biped_common.errors import CommandError, ConfigError
from biped_common.joint_trajectory import TimedJointTrajectory
from biped_common.rotations import quat_normalize, quat_to_matrix, quats_yaw
from biped_common.state import BaseState, ImuReading, JointCommand, Push, SensorFrame, Wrench

WORLD_FRAME = "world"
# Where the controllers read the base state (nav_msgs/Odometry), by the ``state_source`` parameter.
STATE_TOPICS = {"estimator": "odom", "ground_truth": "ground_truth/odom"}


def check_state_source(state_source: str) -> None:
    """A node's ``state_source`` parameter is a key of :data:`STATE_TOPICS`, else ConfigError."""
    if state_source not in STATE_TOPICS:
        raise ConfigError("state_source", f"must be one of {sorted(STATE_TOPICS)}, got {state_source!r}")


# -- input validation ---------------------------------------------------------------------------
# Every subscription checks its message with one of these before any core sees it (the nodes'
# GuardedNode refuses and logs on ValueError). Messages the stack itself publishes pass them; the
# limits are sanity bounds: a value beyond them is a glitch, not a measurement.
MAX_JOINT_SPEED_RAD_S = 100.0
JOINT_RANGE_MARGIN_RAD = 0.5        # an encoder reading further outside the joint's range is a glitch
MAX_ANGULAR_RATE_RAD_S = 60.0       # MEMS gyros saturate at ~35 rad/s
MAX_ACCELERATION_M_S2 = 2000.0
MAX_WRENCH = 1e5                    # N and N·m
MAX_COORDINATE_M = 1e4              # a world coordinate beyond 10 km is a glitch
MAX_SPEED_M_S = 100.0
MAX_ARRAY_LENGTH = 10_000           # longer arrays are refused before they are copied
UNIT_QUATERNION_TOLERANCE = 0.1


def finite_within(values, limit: float, field: str) -> np.ndarray:
    """``values`` as a float array; ValueError naming ``field`` when one is not finite or its
    magnitude exceeds ``limit``."""
    array = np.asarray(values, dtype=float)
    bad = ~np.isfinite(array)
    if bad.any():
        raise ValueError(f"{field}: non-finite value at index {int(np.flatnonzero(bad.ravel())[0])}")
    if array.size and float(np.max(np.abs(array))) > limit:
        raise ValueError(f"{field}: magnitude {float(np.max(np.abs(array))):.3g} beyond the sanity limit {limit:g}")
    return array


def _check_length(values, expected: int | None, field: str, allow_empty: bool = False) -> None:
    n = len(values)
    if n > MAX_ARRAY_LENGTH or (expected is not None and n != expected and not (allow_empty and n == 0)):
        raise ValueError(f"{field}: {n} values, expected {expected if expected is not None else f'≤ {MAX_ARRAY_LENGTH}'}")


def check_names(names: Sequence[str], known, field: str) -> None:
    """``names`` non-empty, without duplicates and all in ``known``; ValueError naming them."""
    if not names:
        raise ValueError(f"{field}: empty")
    if len(names) > MAX_ARRAY_LENGTH:
        raise ValueError(f"{field}: {len(names)} names")
    seen, duplicates = set(), set()
    for name in names:
        (duplicates if name in seen else seen).add(name)
    if duplicates:
        raise ValueError(f"{field}: duplicate name(s) {sorted(duplicates)[:5]}")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{field}: unknown name(s) {unknown[:5]}")


def check_frame_id(actual: str, expected: str, field: str = "header.frame_id") -> None:
    """ValueError unless the frame is ``expected``."""
    if actual != expected:
        raise ValueError(f"{field}: {actual[:60]!r}, expected {expected!r}")


def check_unit_quaternion(q, field: str) -> None:
    """ValueError unless ``q`` is finite and of norm 1 (± tolerance)."""
    norm = float(np.linalg.norm(finite_within(q, 2.0, field)))
    if abs(norm - 1.0) > UNIT_QUATERNION_TOLERANCE:
        raise ValueError(f"{field}: not a unit quaternion (norm {norm:.3g})")


def stamp_age_error(stamp: Time, now_s: float, max_age_s: float, max_lead_s: float) -> str | None:
    """Why a message stamped ``stamp`` is unusable at ``now_s`` (too old, or in the future), or None."""
    t = stamp_to_seconds(stamp)
    if t > now_s + max_lead_s:
        return f"header.stamp {t:.3f} s is {t - now_s:.3f} s in the future"
    if t < now_s - max_age_s:
        return f"header.stamp {t:.3f} s is {now_s - t:.3f} s old (limit {max_age_s} s)"
    return None


def check_joint_state(msg: JointState, joint_index: dict[str, int], lower_rad, upper_rad) -> None:
    """A robot joint state: known unique names, one finite position (within the joint's range
    ± JOINT_RANGE_MARGIN_RAD) and velocity per name, efforts empty or one per name."""
    check_names(list(msg.name), joint_index, "name")
    n = len(msg.name)
    _check_length(msg.position, n, "position")
    _check_length(msg.velocity, n, "velocity")
    _check_length(msg.effort, n, "effort", allow_empty=True)
    position = finite_within(msg.position, 1e3, "position")
    index = np.array([joint_index[name] for name in msg.name], dtype=int)
    outside = (position < np.asarray(lower_rad)[index] - JOINT_RANGE_MARGIN_RAD) | \
              (position > np.asarray(upper_rad)[index] + JOINT_RANGE_MARGIN_RAD)
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        raise ValueError(f"position[{k}] ({msg.name[k]}): {position[k]:.3g} rad outside the joint's range")
    finite_within(msg.velocity, MAX_JOINT_SPEED_RAD_S, "velocity")
    finite_within(msg.effort, MAX_WRENCH, "effort")


def check_imu(msg: Imu, frame_id: str) -> None:
    """An IMU reading in ``frame_id``: unit orientation, rates and specific force within sanity limits."""
    check_frame_id(msg.header.frame_id, frame_id)
    o, w, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    check_unit_quaternion((o.w, o.x, o.y, o.z), "orientation")
    finite_within((w.x, w.y, w.z), MAX_ANGULAR_RATE_RAD_S, "angular_velocity")
    finite_within((a.x, a.y, a.z), MAX_ACCELERATION_M_S2, "linear_acceleration")


def check_wrench(msg: WrenchStamped, frame_id: str) -> None:
    """A foot wrench in ``frame_id`` (the sole site), finite and within sanity limits."""
    check_frame_id(msg.header.frame_id, frame_id)
    f, t = msg.wrench.force, msg.wrench.torque
    finite_within((f.x, f.y, f.z, t.x, t.y, t.z), MAX_WRENCH, "wrench")


def check_odometry(msg: Odometry, child_frame_id: str) -> None:
    """The base state: ``world`` → ``child_frame_id``, finite pose (unit quaternion) and twist."""
    check_frame_id(msg.header.frame_id, WORLD_FRAME)
    check_frame_id(msg.child_frame_id, child_frame_id, "child_frame_id")
    p, o = msg.pose.pose.position, msg.pose.pose.orientation
    finite_within((p.x, p.y, p.z), MAX_COORDINATE_M, "pose.position")
    check_unit_quaternion((o.w, o.x, o.y, o.z), "pose.orientation")
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    finite_within((lin.x, lin.y, lin.z), MAX_SPEED_M_S, "twist.linear")
    finite_within((ang.x, ang.y, ang.z), MAX_ANGULAR_RATE_RAD_S, "twist.angular")


def trajectory_times_s(points, field: str = "points") -> np.ndarray:
    """``time_from_start`` of trajectory points [s]; ValueError unless non-empty and strictly increasing."""
    if not points or len(points) > MAX_ARRAY_LENGTH:
        raise ValueError(f"{field}: {len(points)} points")
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in points])
    if times[0] < 0 or np.any(np.diff(times) <= 0):
        raise ValueError(f"{field}: time_from_start must be ≥ 0 and strictly increasing")
    return times


def joint_state_check(robot):
    """``check(msg)`` for the joint states of ``robot`` (a RobotModel)."""
    return lambda msg: check_joint_state(msg, robot.joint_index, robot.position_lower_rad, robot.position_upper_rad)


def imu_check(robot):
    """``check(msg)`` for ``robot``'s IMU messages."""
    return lambda msg: check_imu(msg, robot.description.imu_site)


def wrench_check(robot, side: str):
    """``check(msg)`` for the wrench of ``robot``'s ``side`` foot (in its sole frame)."""
    return lambda msg: check_wrench(msg, robot.description.feet[side].sole_site)


def odometry_check(robot):
    """``check(msg)`` for ``robot``'s base state (world → base body)."""
    return lambda msg: check_odometry(msg, robot.description.base_body)


def check_gait_reference(msg: MultiDOFJointTrajectory) -> None:
    """``/gait/reference`` on its own: frames, one transform per frame in every point, finite
    unit-quaternion poses, increasing times (pairing with the contacts is checked on decoding)."""
    if tuple(msg.joint_names) != REFERENCE_FRAMES:
        raise ValueError(f"joint_names: {list(msg.joint_names)[:5]}, expected {list(REFERENCE_FRAMES)}")
    trajectory_times_s(msg.points)
    if any(len(p.transforms) != len(REFERENCE_FRAMES) for p in msg.points):
        raise ValueError(f"points: every point needs {len(REFERENCE_FRAMES)} transforms")
    for name, values, limit in (
            ("translation", [(t.translation.x, t.translation.y, t.translation.z) for p in msg.points for t in p.transforms],
             MAX_COORDINATE_M),
            ("rotation", [(t.rotation.w, t.rotation.x, t.rotation.y, t.rotation.z) for p in msg.points for t in p.transforms],
             2.0)):
        array = finite_within(values, limit, f"points[].transforms[].{name}")
        if name == "rotation" and np.any(np.abs(np.linalg.norm(array, axis=1) - 1.0) > UNIT_QUATERNION_TOLERANCE):
            raise ValueError("points[].transforms[].rotation: not unit quaternions")


def check_gait_contacts(msg: JointTrajectory) -> None:
    """``/gait/contacts`` on its own: the two feet, one 0/1 flag each per point, increasing times."""
    if tuple(msg.joint_names) != CONTACT_NAMES:
        raise ValueError(f"joint_names: {list(msg.joint_names)[:5]}, expected {list(CONTACT_NAMES)}")
    trajectory_times_s(msg.points)
    if any(len(p.positions) != len(CONTACT_NAMES) for p in msg.points):
        raise ValueError(f"points: every point needs {len(CONTACT_NAMES)} positions")
    flags = finite_within([list(p.positions) for p in msg.points], 1.0, "points[].positions")
    if np.any((flags != 0.0) & (flags != 1.0)):
        raise ValueError("points[].positions: contact flags must be 0 or 1")


def upper_body_check(robot):
    """``check(msg)`` for ``/gait/upper_body`` (and ``/reach/arm_trajectory``) of ``robot``: its
    joints, one finite angle within the joint's range per joint and point, increasing times."""
    def check(msg: JointTrajectory) -> None:
        if msg.joint_names:  # a robot without upper-body joints gets an empty trajectory
            check_names(list(msg.joint_names), robot.joint_index, "joint_names")
        trajectory_times_s(msg.points)
        if any(len(p.positions) != len(msg.joint_names) for p in msg.points):
            raise ValueError(f"points: every point needs {len(msg.joint_names)} positions")
        angles = finite_within([list(p.positions) for p in msg.points], 2 * math.pi, "points[].positions")
        index = np.array([robot.joint_index[n] for n in msg.joint_names], dtype=int)
        low = robot.position_lower_rad[index] - JOINT_RANGE_MARGIN_RAD
        high = robot.position_upper_rad[index] + JOINT_RANGE_MARGIN_RAD
        if np.any((angles < low) | (angles > high)):
            raise ValueError("points[].positions: an angle outside its joint's range")
    return check


def check_pose_goal(msg) -> None:
    """A goal pose (``geometry_msgs/PoseStamped``): finite position, and a unit quaternion or the
    zero quaternion (a position-only goal). Which frames are known is the receiver's business
    (an empty frame is the robot's base frame)."""
    p, o = msg.pose.position, msg.pose.orientation
    finite_within((p.x, p.y, p.z), MAX_COORDINATE_M, "pose.position")
    if (o.w, o.x, o.y, o.z) != (0.0, 0.0, 0.0, 0.0):
        check_unit_quaternion((o.w, o.x, o.y, o.z), "pose.orientation")


def check_com_plan(msg: MultiDOFJointTrajectory) -> None:
    """``/mpc/com_plan`` on its own (decoding it checks the rest)."""
    com_plan_from_message(msg)


# -- time --------------------------------------------------------------------------------------
def seconds_to_stamp(seconds: float) -> Time:
    """``builtin_interfaces/Time`` of a time in seconds (rounded to the nanosecond)."""
    ns = int(round(seconds * 1e9))
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def stamp_to_ns(stamp: Time) -> int:
    """Integer nanoseconds of a stamp (exact; use it to pair messages)."""
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def stamp_to_seconds(stamp: Time) -> float:
    """Seconds of a stamp."""
    return stamp_to_ns(stamp) * 1e-9


def clock_message(seconds: float) -> Clock:
    """``/clock`` message for a sim time."""
    return Clock(clock=seconds_to_stamp(seconds))


# -- sensors ------------------------------------------------------------------------------------
def joint_state_message(frame: SensorFrame) -> JointState:
    """``sensor_msgs/JointState`` of a sensor frame's joints."""
    msg = JointState()
    msg.header.stamp = seconds_to_stamp(frame.stamp_s)
    msg.name = list(frame.joint_names)
    msg.position = frame.position_rad.tolist()
    msg.velocity = frame.velocity_rad_s.tolist()
    msg.effort = frame.effort_nm.tolist()
    return msg


def imu_message(stamp_s: float, imu: ImuReading, frame_id: str,
                gyro_std_rad_s: float = 0.0, accel_std_m_s2: float = 0.0,
                orientation_std_rad: float = 0.0) -> Imu:
    """``sensor_msgs/Imu``; covariances are diagonal from the given standard deviations."""
    msg = Imu()
    msg.header.stamp = seconds_to_stamp(stamp_s)
    msg.header.frame_id = frame_id
    w, x, y, z = imu.orientation_wxyz
    msg.orientation.w, msg.orientation.x, msg.orientation.y, msg.orientation.z = map(float, (w, x, y, z))
    msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z = map(float, imu.angular_velocity_rad_s)
    a = imu.linear_acceleration_m_s2
    msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z = map(float, a)
    msg.orientation_covariance = _diagonal(orientation_std_rad)
    msg.angular_velocity_covariance = _diagonal(gyro_std_rad_s)
    msg.linear_acceleration_covariance = _diagonal(accel_std_m_s2)
    return msg


def _diagonal(std: float) -> np.ndarray:
    return np.diag([std**2] * 3).ravel()


def wrench_message(stamp_s: float, wrench: Wrench, frame_id: str) -> WrenchStamped:
    """``geometry_msgs/WrenchStamped`` of a wrench expressed in ``frame_id``."""
    msg = WrenchStamped()
    msg.header.stamp = seconds_to_stamp(stamp_s)
    msg.header.frame_id = frame_id
    msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(float, wrench.force_n)
    msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = map(float, wrench.torque_nm)
    return msg


def wrench_from_message(msg: WrenchStamped) -> Wrench:
    """The wrench a ``WrenchStamped`` carries (frame as in its header)."""
    f, t = msg.wrench.force, msg.wrench.torque
    return Wrench(np.array([f.x, f.y, f.z]), np.array([t.x, t.y, t.z]))


def imu_from_message(msg: Imu) -> ImuReading:
    """``ImuReading`` from ``sensor_msgs/Imu``; ValueError when a value is not finite."""
    o, w, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    values = np.array([o.w, o.x, o.y, o.z, w.x, w.y, w.z, a.x, a.y, a.z])
    if not np.all(np.isfinite(values)):
        raise ValueError("IMU message holds non-finite values")
    return ImuReading(quat_normalize(values[:4]), values[4:7], values[7:10])


def sensor_frame_from_messages(joints: JointState, imu: Imu,
                               foot_wrenches: dict[str, WrenchStamped] | None = None) -> SensorFrame:
    """Rebuild a sensor frame from its messages (stamp taken from the joint state).

    ValueError when arrays have inconsistent lengths or hold non-finite values.
    """
    n = len(joints.name)
    if len(joints.position) != n or len(joints.velocity) != n:
        raise ValueError(f"JointState has {n} names but {len(joints.position)} positions and "
                         f"{len(joints.velocity)} velocities")
    effort = np.asarray(joints.effort, dtype=float) if len(joints.effort) == n else np.zeros(n)
    position = np.asarray(joints.position, dtype=float)
    velocity = np.asarray(joints.velocity, dtype=float)
    if not (np.all(np.isfinite(position)) and np.all(np.isfinite(velocity))):
        raise ValueError("JointState holds non-finite positions or velocities")
    wrenches = {side: wrench_from_message(m) for side, m in (foot_wrenches or {}).items()}
    return SensorFrame(stamp_to_seconds(joints.header.stamp), tuple(joints.name), position,
                       velocity, effort, imu_from_message(imu), wrenches)


# -- joint commands ---------------------------------------------------------------------------
def joint_command_message(command: JointCommand) -> JointTrajectory:
    """``trajectory_msgs/JointTrajectory`` encoding of a joint command (see module docstring)."""
    msg = JointTrajectory()
    msg.header.stamp = seconds_to_stamp(command.stamp_s)
    msg.joint_names = list(command.joint_names)
    setpoint = JointTrajectoryPoint(positions=command.position_rad.tolist(),
                                    velocities=command.velocity_rad_s.tolist(),
                                    effort=command.effort_nm.tolist())
    gains = JointTrajectoryPoint(positions=command.kp.tolist(), velocities=command.kd.tolist())
    msg.points = [setpoint, gains]
    return msg


def joint_command_from_message(msg: JointTrajectory, default_kp: dict[str, float],
                               default_kd: dict[str, float]) -> JointCommand:
    """Decode a joint command; CommandError naming what is wrong when it is malformed.

    ``default_kp``/``default_kd`` supply the gains of joints when the message has no gains point
    (unknown joint names are reported by the bridge, which knows the robot).
    """
    names = tuple(msg.joint_names)
    n = len(names)
    if not 1 <= len(msg.points) <= 2:
        raise CommandError(f"joint command must have 1 or 2 points, got {len(msg.points)}")
    setpoint = msg.points[0]
    arrays = {}
    for field, values in (("positions", setpoint.positions), ("velocities", setpoint.velocities),
                          ("effort", setpoint.effort)):
        if len(values) not in (0, n):
            raise CommandError(f"setpoint {field} has {len(values)} values for {n} joints")
        arrays[field] = np.asarray(values, dtype=float) if len(values) else np.zeros(n)
    if len(msg.points) == 2:
        gains = msg.points[1]
        if len(gains.positions) != n or len(gains.velocities) != n:
            raise CommandError(f"gains point must have {n} kp (positions) and {n} kd (velocities)")
        kp, kd = np.asarray(gains.positions, float), np.asarray(gains.velocities, float)
    else:
        kp = np.array([default_kp.get(j, 0.0) for j in names])
        kd = np.array([default_kd.get(j, 0.0) for j in names])
    if len(setpoint.positions) == 0:
        kp = np.zeros(n)  # no position setpoint: no position feedback either
    return JointCommand(stamp_to_seconds(msg.header.stamp), names, arrays["positions"],
                        arrays["velocities"], arrays["effort"], kp, kd)


MAX_KP = 1e4   # N·m/rad, the robot YAML's bound
MAX_KD = 1e3   # N·m·s/rad


def check_joint_command(command: JointCommand, robot) -> None:
    """A decoded joint command within ``robot``'s sanity bounds (known joints, finite values,
    positions near the joints' ranges, gains within the robot YAML's bounds); CommandError."""
    try:
        check_names(list(command.joint_names), robot.joint_index, "joint_names")
        index = np.array([robot.joint_index[n] for n in command.joint_names], dtype=int)
        position = finite_within(command.position_rad, 1e3, "points[0].positions")
        if np.any((position < robot.position_lower_rad[index] - JOINT_RANGE_MARGIN_RAD) |
                  (position > robot.position_upper_rad[index] + JOINT_RANGE_MARGIN_RAD)):
            raise ValueError("points[0].positions: a setpoint outside its joint's range")
        finite_within(command.velocity_rad_s, MAX_JOINT_SPEED_RAD_S, "points[0].velocities")
        finite_within(command.effort_nm, MAX_WRENCH, "points[0].effort")
        finite_within(command.kp, MAX_KP, "points[1].positions (kp)")
        finite_within(command.kd, MAX_KD, "points[1].velocities (kd)")
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


# -- base state ---------------------------------------------------------------------------------
def odometry_message(state: BaseState, child_frame_id: str, frame_id: str = WORLD_FRAME,
                     pose_covariance=None, twist_covariance=None) -> Odometry:
    """``nav_msgs/Odometry``: pose in ``frame_id``, twist in ``child_frame_id`` axes; optional
    6×6 covariances (pose: position in ``frame_id``, rotation vector in the child frame; twist:
    both in the child frame), row-major as nav_msgs wants."""
    msg = Odometry()
    msg.header.stamp = seconds_to_stamp(state.stamp_s)
    msg.header.frame_id = frame_id
    msg.child_frame_id = child_frame_id
    p = msg.pose.pose.position
    p.x, p.y, p.z = map(float, state.position_m)
    o = msg.pose.pose.orientation
    o.w, o.x, o.y, o.z = map(float, state.orientation_wxyz)
    rotation = quat_to_matrix(state.orientation_wxyz)
    v_base = rotation.T @ state.linear_velocity_world_m_s
    msg.twist.twist.linear.x, msg.twist.twist.linear.y, msg.twist.twist.linear.z = map(float, v_base)
    w = msg.twist.twist.angular
    w.x, w.y, w.z = map(float, state.angular_velocity_base_rad_s)
    if pose_covariance is not None:
        msg.pose.covariance = [float(v) for v in np.asarray(pose_covariance, dtype=float).reshape(36)]
    if twist_covariance is not None:
        msg.twist.covariance = [float(v) for v in np.asarray(twist_covariance, dtype=float).reshape(36)]
    return msg


def base_state_from_odometry(msg: Odometry) -> BaseState:
    """Inverse of :func:`odometry_message`."""
    p, o = msg.pose.pose.position, msg.pose.pose.orientation
    quat = quat_normalize(np.array([o.w, o.x, o.y, o.z]))
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    v_world = quat_to_matrix(quat) @ np.array([lin.x, lin.y, lin.z])
    return BaseState(stamp_to_seconds(msg.header.stamp), np.array([p.x, p.y, p.z]), quat,
                     v_world, np.array([ang.x, ang.y, ang.z]))


# -- pushes -------------------------------------------------------------------------------------
def push_message(push: Push) -> WrenchStamped:
    """Encode a push request (the stamp is the push's end in sim time)."""
    return wrench_message(push.start_s + push.duration_s, Wrench(push.force_world_n, push.torque_world_nm),
                          push.body)


def push_from_message(msg: WrenchStamped, now_s: float, default_duration_s: float = 1.0) -> Push:
    """Decode a push request received at sim time ``now_s``; ValueError when malformed."""
    if not msg.header.frame_id:
        raise ValueError("push needs header.frame_id naming the body to push")
    wrench = wrench_from_message(msg)
    finite_within(np.concatenate([wrench.force_n, wrench.torque_nm]), MAX_WRENCH, "wrench")
    end_ns = stamp_to_ns(msg.header.stamp)
    duration = default_duration_s if end_ns == 0 else end_ns * 1e-9 - now_s
    if not (math.isfinite(duration) and duration > 0.0):
        raise ValueError(f"push ends at {end_ns * 1e-9:.3f} s, before now ({now_s:.3f} s)")
    return Push(msg.header.frame_id, wrench.force_n, wrench.torque_nm, now_s, duration)


# -- status -------------------------------------------------------------------------------------
def bridge_status_message(stamp_s: float, mode: str, details: dict[str, str] | None = None) -> DiagnosticArray:
    """``diagnostic_msgs/DiagnosticArray`` with the bridge's command mode."""
    level = {"command": DiagnosticStatus.OK, "waiting": DiagnosticStatus.WARN}.get(mode, DiagnosticStatus.ERROR)
    status = DiagnosticStatus(level=level, name="sim_bridge", message=mode, hardware_id="sim_bridge",
                              values=[KeyValue(key=k, value=v) for k, v in (details or {}).items()])
    msg = DiagnosticArray(status=[status])
    msg.header.stamp = seconds_to_stamp(stamp_s)
    return msg


def timing_status_message(stamp_s: float, name: str, samples_s: Sequence[float]) -> DiagnosticArray:
    """A node's compute-time statistics as ``diagnostic_msgs/DiagnosticArray``: one status named
    ``name`` with keys ``p50_ms``, ``p99_ms``, ``count`` (over ``samples_s`` [s])."""
    ms = np.asarray(samples_s, dtype=float) * 1e3
    values = {"p50_ms": f"{np.median(ms):.4f}" if ms.size else "nan",
              "p99_ms": f"{np.percentile(ms, 99):.4f}" if ms.size else "nan", "count": str(ms.size)}
    status = DiagnosticStatus(level=DiagnosticStatus.OK, name=name, message="timing", hardware_id=name,
                              values=[KeyValue(key=k, value=v) for k, v in values.items()])
    msg = DiagnosticArray(status=[status])
    msg.header.stamp = seconds_to_stamp(stamp_s)
    return msg


def timing_from_status(msg: DiagnosticArray) -> dict[str, dict[str, float]]:
    """{status name: {p50_ms, p99_ms, count}} of the timing statuses in ``msg``."""
    out = {}
    for status in msg.status:
        if status.message != "timing":
            continue
        values = {kv.key: kv.value for kv in status.values}
        try:
            out[status.name] = {k: float(values[k]) for k in ("p50_ms", "p99_ms", "count")}
        except (KeyError, ValueError):
            continue
    return out


# -- ros2_control forward command controllers --------------------------------------------------
def forward_command_message(values: Sequence[float]) -> Float64MultiArray:
    """``std_msgs/Float64MultiArray`` as ros2_control's forward_command_controller expects it:
    one value per joint, in the controller's ``joints`` parameter order, no layout."""
    msg = Float64MultiArray()
    msg.layout.dim = [MultiArrayDimension(label="joints", size=len(values), stride=len(values))]
    msg.data = [float(v) for v in values]
    return msg


# -- velocity command -----------------------------------------------------------------------------
def velocity_command_from_twist(msg: Twist) -> np.ndarray:
    """(ẋ [m/s], ẏ [m/s], ω [rad/s]) in the body frame from ``geometry_msgs/Twist``; ValueError
    when one is not finite."""
    v = np.array([msg.linear.x, msg.linear.y, msg.angular.z], dtype=float)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"cmd_vel holds non-finite values {v.tolist()}")
    return v


def twist_from_velocity_command(velocity) -> Twist:
    msg = Twist()
    msg.linear.x, msg.linear.y, msg.angular.z = (float(v) for v in velocity)
    return msg


# -- gait reference -------------------------------------------------------------------------------
REFERENCE_FRAMES = ("pelvis", "left_sole", "right_sole")
CONTACT_NAMES = ("left_foot", "right_foot")


def _duration(seconds: float) -> Duration:
    ns = int(round(seconds * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def _transform(position, quat_wxyz) -> Transform:
    t = Transform()
    t.translation.x, t.translation.y, t.translation.z = (float(v) for v in position)
    t.rotation.w, t.rotation.x, t.rotation.y, t.rotation.z = (float(v) for v in quat_wxyz)
    return t


def gait_reference_messages(stamp_s: float, reference) -> tuple[MultiDOFJointTrajectory, JointTrajectory, JointTrajectory]:
    """(reference, contacts, upper body) messages of a planner ``Reference`` (see module doc)."""
    header_stamp = seconds_to_stamp(stamp_s)
    poses = MultiDOFJointTrajectory()
    poses.header.stamp, poses.header.frame_id = header_stamp, WORLD_FRAME
    poses.joint_names = list(REFERENCE_FRAMES)
    contacts = JointTrajectory(joint_names=list(CONTACT_NAMES))
    contacts.header.stamp = header_stamp
    upper = JointTrajectory(joint_names=list(reference.upper_joint_names))
    upper.header.stamp = header_stamp
    for i, t in enumerate(reference.times_s):
        since = _duration(float(t))
        pelvis = (reference.body[i, 0], reference.body[i, 1], reference.pelvis_height_m[i])
        poses.points.append(MultiDOFJointTrajectoryPoint(
            transforms=[_transform(pelvis, reference.pelvis_quat_wxyz[i]),
                        _transform(reference.foot_position_m["left"][i], reference.foot_quat_wxyz["left"][i]),
                        _transform(reference.foot_position_m["right"][i], reference.foot_quat_wxyz["right"][i])],
            time_from_start=since))
        contacts.points.append(JointTrajectoryPoint(
            positions=[float(reference.in_stance["left"][i]), float(reference.in_stance["right"][i])],
            time_from_start=since))
        upper.points.append(JointTrajectoryPoint(positions=reference.upper_joints_rad[i].tolist(),
                                                 time_from_start=since))
    return poses, contacts, upper


def gait_reference_arrays(poses: MultiDOFJointTrajectory, contacts: JointTrajectory) -> dict[str, np.ndarray]:
    """Decode the reference and contact messages into arrays: ``times_s`` (N,),
    ``pelvis_height_m`` (N,), ``pelvis_quat_wxyz`` (N, 4), ``<side>_sole_position_m`` (N, 3),
    ``<side>_sole_quat_wxyz`` (N, 4), ``<side>_in_stance`` (N,) bool, ``body`` (N, 3): the
    planner's body path x, y [m] and the pelvis yaw [rad]. ValueError when the
    messages do not match (frames, lengths, times)."""
    if tuple(poses.joint_names) != REFERENCE_FRAMES or tuple(contacts.joint_names) != CONTACT_NAMES:
        raise ValueError(f"unexpected frames {list(poses.joint_names)} / {list(contacts.joint_names)}")
    if len(poses.points) != len(contacts.points):
        raise ValueError("reference and contact messages have different lengths")
    times = trajectory_times_s(poses.points)
    if any(len(p.transforms) != len(REFERENCE_FRAMES) for p in poses.points):
        raise ValueError(f"points: every point needs {len(REFERENCE_FRAMES)} transforms")
    if any(len(p.positions) != len(CONTACT_NAMES) for p in contacts.points):
        raise ValueError(f"contacts: every point needs {len(CONTACT_NAMES)} positions")

    def arrays(index):
        tr = [p.transforms[index] for p in poses.points]
        field = f"points[].transforms[{index}]"
        position = finite_within([[t.translation.x, t.translation.y, t.translation.z] for t in tr],
                                 MAX_COORDINATE_M, f"{field}.translation")
        quat = finite_within([[t.rotation.w, t.rotation.x, t.rotation.y, t.rotation.z] for t in tr], 2.0,
                             f"{field}.rotation")
        if np.any(np.abs(np.linalg.norm(quat, axis=1) - 1.0) > UNIT_QUATERNION_TOLERANCE):
            raise ValueError(f"{field}.rotation: not unit quaternions")
        return position, quat
    pelvis_position, pelvis_quat = arrays(0)
    out = {"times_s": times, "pelvis_height_m": pelvis_position[:, 2], "pelvis_quat_wxyz": pelvis_quat,
           "body": np.column_stack([pelvis_position[:, :2], quats_yaw(pelvis_quat)])}
    for index, side in ((1, "left"), (2, "right")):
        out[f"{side}_sole_position_m"], out[f"{side}_sole_quat_wxyz"] = arrays(index)
        out[f"{side}_in_stance"] = np.array([p.positions[index - 1] > 0.5 for p in contacts.points])
    return out


def upper_body_arrays(upper: JointTrajectory, times_s: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """Joint names and angles (N, joints) [rad] of ``/gait/upper_body``; ValueError when its
    times differ from the reference's ``times_s``."""
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in upper.points])
    if times.shape != np.shape(times_s) or not np.allclose(times, times_s, atol=1e-6):
        raise ValueError("upper-body trajectory times differ from the reference's")
    names = tuple(upper.joint_names)
    if len(set(names)) != len(names):
        raise ValueError("joint_names: duplicates")
    if any(len(p.positions) != len(names) for p in upper.points):
        raise ValueError(f"points: every point needs {len(names)} positions")
    values = finite_within([list(p.positions) for p in upper.points], 2 * math.pi, "positions")
    return names, values.reshape(len(times), len(names))


COM_PLAN_FRAMES = ("com", "cop")


def com_plan_message(plan: ComPlan) -> MultiDOFJointTrajectory:
    """``/mpc/com_plan`` (see module doc)."""
    msg = MultiDOFJointTrajectory()
    msg.header.stamp, msg.header.frame_id = seconds_to_stamp(plan.start_s), WORLD_FRAME
    msg.joint_names = list(COM_PLAN_FRAMES)
    height = plan.com_height_m
    states, cop = plan.states.tolist(), plan.cop.tolist()
    for k, (cx, vx, cy, vy) in enumerate(states):
        zx, zy = cop[min(k, len(cop) - 1)]
        com = Transform(translation=Vector3(x=cx, y=cy, z=height))
        com.rotation.w = 1.0
        point = Transform(translation=Vector3(x=zx, y=zy, z=0.0))
        point.rotation.w = 1.0
        msg.points.append(MultiDOFJointTrajectoryPoint(
            transforms=[com, point], velocities=[Twist(linear=Vector3(x=vx, y=vy)), Twist()],
            time_from_start=_duration(k * plan.dt_s)))
    return msg


def com_plan_from_message(msg: MultiDOFJointTrajectory) -> ComPlan:
    """The :class:`ComPlan` of a ``/mpc/com_plan`` message; ValueError when malformed."""
    if tuple(msg.joint_names) != COM_PLAN_FRAMES or len(msg.points) < 2:
        raise ValueError(f"not a CoM plan: joints {list(msg.joint_names)}, {len(msg.points)} points")
    times = trajectory_times_s(msg.points)
    dt = float(times[1] - times[0])
    if dt <= 0 or not np.allclose(np.diff(times), dt, atol=1e-6):
        raise ValueError("CoM plan points are not evenly spaced")
    states, cop = [], []
    for p in msg.points:
        if len(p.transforms) != 2 or len(p.velocities) < 1:
            raise ValueError("CoM plan point needs com and cop transforms and the com velocity")
        c, z, v = p.transforms[0].translation, p.transforms[1].translation, p.velocities[0].linear
        states.append((c.x, v.x, c.y, v.y))
        cop.append((z.x, z.y))
    height = msg.points[0].transforms[0].translation.z
    if not (np.isfinite(height) and 0.05 < height < 10.0):
        raise ValueError(f"points[0].transforms[0].translation.z: CoM height must be in (0.05, 10) m, got {height}")
    states = finite_within(states, MAX_COORDINATE_M, "points[].com")
    cop = finite_within(cop, MAX_COORDINATE_M, "points[].cop")
    return ComPlan(stamp_to_seconds(msg.header.stamp), dt, states, cop[:-1], math.sqrt(GRAVITY_M_S2 / height))


def muscle_activations_message(stamp_s: float, muscle_names: Sequence[str], activations) -> JointState:
    """``/muscles/activations``: one activation ∈ [0, 1] per named muscle (in ``position``)."""
    msg = JointState()
    msg.header.stamp = seconds_to_stamp(stamp_s)
    msg.name = list(muscle_names)
    msg.position = [float(a) for a in activations]
    return msg


def muscle_activations_from_message(msg: JointState) -> tuple[tuple[str, ...], np.ndarray]:
    """(muscle names, activations) of a ``/muscles/activations`` message; ValueError when the
    lengths differ or a value is not a finite number in [0, 1]."""
    values = np.asarray(msg.position, dtype=float)
    if values.size != len(msg.name):
        raise ValueError(f"{len(msg.name)} muscle names but {values.size} activations")
    if not np.all(np.isfinite(values)) or np.any((values < 0.0) | (values > 1.0)):
        raise ValueError("activations must be finite and within [0, 1]")
    return tuple(msg.name), values


def torque_setpoint_message(stamp_s: float, joint_names: Sequence[str], torques_nm) -> JointState:
    """``/muscles/torque_setpoint``: desired joint torques [N·m] (in ``effort``)."""
    msg = JointState()
    msg.header.stamp = seconds_to_stamp(stamp_s)
    msg.name = list(joint_names)
    msg.effort = [float(t) for t in torques_nm]
    return msg


def torque_setpoint_from_message(msg: JointState) -> tuple[tuple[str, ...], np.ndarray]:
    """(joint names, torques [N·m]) of a ``/muscles/torque_setpoint`` message; ValueError when
    the lengths differ or a torque is not finite."""
    values = np.asarray(msg.effort, dtype=float)
    if values.size != len(msg.name) or not np.all(np.isfinite(values)):
        raise ValueError(f"torque setpoint needs one finite effort per joint ({len(msg.name)} names, {values.size} efforts)")
    return tuple(msg.name), values


def timed_joint_trajectory_message(trajectory: TimedJointTrajectory) -> JointTrajectory:
    """``/reach/arm_trajectory`` of a :class:`TimedJointTrajectory`."""
    msg = JointTrajectory()
    msg.header.stamp = seconds_to_stamp(trajectory.start_s)
    msg.joint_names = list(trajectory.joint_names)
    for t, row in zip(trajectory.times_s, trajectory.positions_rad):
        msg.points.append(JointTrajectoryPoint(positions=[float(x) for x in row], time_from_start=_duration(float(t))))
    return msg


def timed_joint_trajectory_from_message(msg: JointTrajectory) -> TimedJointTrajectory:
    """The :class:`TimedJointTrajectory` of a ``/reach/arm_trajectory`` message; ValueError when
    malformed (no points, a point with the wrong number of positions, times not increasing, NaN)."""
    if not msg.points:
        raise ValueError("arm trajectory without points")
    if not msg.joint_names or len(set(msg.joint_names)) != len(msg.joint_names):
        raise ValueError("joint_names: empty or duplicates")
    if any(len(p.positions) != len(msg.joint_names) for p in msg.points):
        raise ValueError(f"every point needs {len(msg.joint_names)} positions")
    times = trajectory_times_s(msg.points)
    positions = finite_within([list(p.positions) for p in msg.points], 2 * math.pi, "points[].positions")
    return TimedJointTrajectory(tuple(msg.joint_names), stamp_to_seconds(msg.header.stamp), times, positions)
