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
- Numeric tables: ``std_msgs/Float64MultiArray`` with ``layout.dim`` = [("rows", N, N·C),
  (the C column names joined by commas, C, C)] and the rows in ``data`` (:func:`table_message`).
- Gait reference (``/gait/reference``): a table with the columns :data:`REFERENCE_COLUMNS` — per
  row its absolute sim time ``t_s`` (the first row's is the reference's stamp), the body path
  (x, y [m], heading [rad]; the footholds straddle it, the MPC owns the pelvis's horizontal
  position), pelvis height [m] and orientation (w, x, y, z), per sole (left, right) its position
  [m], orientation and stance flag (1 stance, 0 swing), all in the world — then one column per
  upper-body joint [rad], named as the joint. Decoded into a
  :class:`biped_common.gait_reference.GaitReference`.
- CoM plan (``/mpc/com_plan``): a table with the columns :data:`COM_PLAN_COLUMNS`, one row per MPC
  step k = 0…N at t = start + k·dt: the CoM state (c_x, ċ_x, c_y, ċ_y) [m, m/s], the CoP (z_x,
  z_y) [m] held from step k to k+1 (the last row repeats it), the pendulum height h [m] and the
  external acceleration the plan allows for (δ_x, δ_y) [m/s²] (an estimated push; every row).
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
- Robot description (``/robot_description``): ``std_msgs/String``, latched, ``data`` = the URDF.
- Transforms (``/tf``, ``/tf_static``): ``tf2_msgs/TFMessage`` of ``geometry_msgs/TransformStamped``,
  ``header.frame_id`` = parent, ``child_frame_id`` = child (:mod:`biped_common.tf_frames`).
"""

from __future__ import annotations

import array
import math
from dataclasses import fields as dataclass_fields
from typing import Sequence

import numpy as np
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension, String
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Twist
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from biped_common.com_plan import GRAVITY_M_S2, ComPlan
from biped_common.errors import CommandError, ConfigError
from biped_common.gait_reference import GaitReference
from biped_common.joint_trajectory import TimedJointTrajectory
from biped_common.rotations import quat_normalize, quat_to_matrix
from biped_common.state import WORLD_FRAME, BaseState, ImuReading, JointCommand, Push, SensorFrame, Wrench

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
MAX_TIME_S = 1e11                   # a time stamp beyond 3000 years (of sim or wall time) is a glitch
MAX_SPEED_M_S = 100.0
MAX_ARRAY_LENGTH = 10_000           # longer arrays are refused before they are copied
UNIT_QUATERNION_TOLERANCE = 0.1


def finite_within(values, limit: float, field: str, skip_columns: int = 0) -> np.ndarray:
    """``values`` as a float array; ValueError naming ``field`` when one is not finite or its
    magnitude exceeds ``limit`` (for a 2-D array, its first ``skip_columns`` columns are not
    checked: times, checked by their own rule)."""
    array = np.asarray(values, dtype=float)
    checked = array[:, skip_columns:] if skip_columns else array
    bad = ~np.isfinite(checked)
    if bad.any():
        raise ValueError(f"{field}: non-finite value at index {int(np.flatnonzero(bad.ravel())[0])}")
    if checked.size and float(np.max(np.abs(checked))) > limit:
        raise ValueError(f"{field}: magnitude {float(np.max(np.abs(checked))):.3g} beyond the sanity limit {limit:g}")
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


def outside_joint_range(angles_rad, lower_rad, upper_rad) -> np.ndarray:
    """Mask of the angles further than JOINT_RANGE_MARGIN_RAD outside their joints' [lower, upper]
    (arrays that broadcast: (N,) per joint, or (rows, N))."""
    angles = np.asarray(angles_rad)
    return (angles < np.asarray(lower_rad) - JOINT_RANGE_MARGIN_RAD) | (angles > np.asarray(upper_rad) + JOINT_RANGE_MARGIN_RAD)


def check_joint_state(msg: JointState, joint_index: dict[str, int], lower_rad, upper_rad,
                      known_order: dict | None = None) -> None:
    """A robot joint state: known unique names, one finite position (within the joint's range
    ± JOINT_RANGE_MARGIN_RAD) and velocity per name, efforts empty or one per name.
    ``known_order``: a dict kept between calls, mapping a names tuple already found valid to its
    joints' (lower, upper) limits — a robot sends the same names in every message."""
    names = tuple(msg.name)
    limits = known_order.get(names) if known_order is not None else None
    if limits is None:
        check_names(names, joint_index, "name")
        index = np.array([joint_index[name] for name in names], dtype=int)
        limits = (np.asarray(lower_rad)[index], np.asarray(upper_rad)[index])
        if known_order is not None:
            if len(known_order) >= 4:  # a handful of orders at most: a robot and some tools
                known_order.clear()
            known_order[names] = limits
    n = len(names)
    _check_length(msg.position, n, "position")
    _check_length(msg.velocity, n, "velocity")
    _check_length(msg.effort, n, "effort", allow_empty=True)
    position = finite_within(msg.position, 1e3, "position")
    outside = outside_joint_range(position, *limits)
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
    known_order: dict = {}  # valid name orders seen, with their limits (check_names once per order)
    return lambda msg: check_joint_state(msg, robot.joint_index, robot.position_lower_rad, robot.position_upper_rad,
                                         known_order)


def imu_check(robot):
    """``check(msg)`` for ``robot``'s IMU messages."""
    return lambda msg: check_imu(msg, robot.description.imu_site)


def wrench_check(robot, side: str):
    """``check(msg)`` for the wrench of ``robot``'s ``side`` foot (in its sole frame)."""
    return lambda msg: check_wrench(msg, robot.description.feet[side].sole_site)


def odometry_check(robot):
    """``check(msg)`` for ``robot``'s base state (world → base body)."""
    return lambda msg: check_odometry(msg, robot.description.base_body)


def upper_body_check(robot):
    """``check(msg)`` for ``/reach/arm_trajectory`` of ``robot``: its joints, one finite angle
    within the joint's range per joint and point, increasing times."""
    def check(msg: JointTrajectory) -> None:
        if msg.joint_names:  # a robot without upper-body joints gets an empty trajectory
            check_names(list(msg.joint_names), robot.joint_index, "joint_names")
        trajectory_times_s(msg.points)
        if any(len(p.positions) != len(msg.joint_names) for p in msg.points):
            raise ValueError(f"points: every point needs {len(msg.joint_names)} positions")
        angles = finite_within([list(p.positions) for p in msg.points], 2 * math.pi, "points[].positions")
        index = np.array([robot.joint_index[n] for n in msg.joint_names], dtype=int)
        if np.any(outside_joint_range(angles, robot.position_lower_rad[index], robot.position_upper_rad[index])):
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


# -- time --------------------------------------------------------------------------------------
def stamp_parts(seconds: float) -> tuple[int, int]:
    """(sec, nanosec) of a time in seconds, rounded to the nanosecond."""
    ns = int(round(seconds * 1e9))
    return ns // 1_000_000_000, ns % 1_000_000_000


def seconds_to_stamp(seconds: float) -> Time:
    """``builtin_interfaces/Time`` of a time in seconds (rounded to the nanosecond)."""
    sec, nanosec = stamp_parts(seconds)
    return Time(sec=sec, nanosec=nanosec)


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
        if np.any(outside_joint_range(position, robot.position_lower_rad[index], robot.position_upper_rad[index])):
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
    pose, twist = odometry_numbers(state)
    p, o = msg.pose.pose.position, msg.pose.pose.orientation
    p.x, p.y, p.z, o.x, o.y, o.z, o.w = pose.tolist()
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    lin.x, lin.y, lin.z, ang.x, ang.y, ang.z = twist.tolist()
    if pose_covariance is not None:
        msg.pose.covariance = [float(v) for v in np.asarray(pose_covariance, dtype=float).reshape(36)]
    if twist_covariance is not None:
        msg.twist.covariance = [float(v) for v in np.asarray(twist_covariance, dtype=float).reshape(36)]
    return msg


def odometry_numbers(state: BaseState) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of :func:`odometry_message`: pose (7,) = position [m] and orientation
    (x, y, z, w) as nav_msgs orders them; twist (6,) = linear velocity [m/s] in the base axes
    (rotated from the world's) and angular velocity [rad/s] in the base axes."""
    pose = np.empty(7)
    pose[:3] = state.position_m
    q = state.orientation_wxyz
    pose[3:6], pose[6] = q[1:], q[0]
    twist = np.empty(6)
    twist[:3] = state.linear_velocity_world_m_s @ quat_to_matrix(q)  # Rᵀ v
    twist[3:] = state.angular_velocity_base_rad_s
    return pose, twist


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


CONTROLLER_STATUS_SUFFIX = "/controller"
WALKING = "walking"


def controller_status(name: str, fallback_reason: str) -> DiagnosticStatus:
    """Which controller node ``name`` runs, as a ``diagnostic_msgs/DiagnosticStatus`` named
    ``<name>/controller``: OK "walking", or WARN with why it fell back to the stand controller."""
    return DiagnosticStatus(level=DiagnosticStatus.WARN if fallback_reason else DiagnosticStatus.OK,
                            name=name + CONTROLLER_STATUS_SUFFIX, hardware_id=name,
                            message=f"stand controller: {fallback_reason}" if fallback_reason else WALKING)


def controller_from_status(msg: DiagnosticArray) -> dict[str, str]:
    """{node name: "walking" or "stand controller: <why>"} of the controller statuses in ``msg``."""
    return {status.name[:-len(CONTROLLER_STATUS_SUFFIX)]: status.message for status in msg.status
            if status.name.endswith(CONTROLLER_STATUS_SUFFIX)}


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


REALTIME_STATUS = "sim_bridge/realtime"
ROBOT_PACE_STATUS = "mock_ros2_control_robot/realtime"
ROBOT_PACE_FIELDS = ("frames", "sim_over_wall", "late_ticks", "skipped_s")


def _numbers_status_message(stamp_s: float, name: str, values: dict[str, float], warn: bool) -> DiagnosticArray:
    """One ``DiagnosticStatus`` named ``name`` (message ``realtime``) with a key per number."""
    status = DiagnosticStatus(level=DiagnosticStatus.WARN if warn else DiagnosticStatus.OK, name=name,
                              message="realtime", hardware_id=name.split("/")[0],
                              values=[KeyValue(key=k, value=repr(v)) for k, v in values.items()])
    msg = DiagnosticArray(status=[status])
    msg.header.stamp = seconds_to_stamp(stamp_s)
    return msg


def _numbers_from_status(msg: DiagnosticArray, name: str) -> dict[str, float] | None:
    """The numbers of the status named ``name`` in ``msg``, or None (absent, or not numbers)."""
    for status in msg.status:
        if status.name == name:
            try:
                return {kv.key: float(kv.value) for kv in status.values}
            except ValueError:
                return None
    return None


def realtime_status_message(stamp_s: float, summary) -> DiagnosticArray:
    """The real-time bridge's deadline tally (a :class:`sim_bridge.realtime_monitor.RealtimeSummary`)
    as ``diagnostic_msgs/DiagnosticArray``: one status named ``sim_bridge/realtime``, one key per
    field; WARN when a frame missed its deadline or the watchdog fired."""
    values = {f.name: getattr(summary, f.name) for f in dataclass_fields(summary)}
    return _numbers_status_message(stamp_s, REALTIME_STATUS, values,
                                   warn=summary.deadline_misses > 0 or summary.watchdog_trips > 0)


def realtime_from_status(msg: DiagnosticArray) -> dict[str, float] | None:
    """The fields of a :func:`realtime_status_message` in ``msg`` (numbers), or None."""
    return _numbers_from_status(msg, REALTIME_STATUS)


def robot_pace_status_message(stamp_s: float, summary) -> DiagnosticArray:
    """The mock ros2_control robot's pace from a :class:`sim_bridge.realtime_monitor.RealtimeSummary`
    — ``frames``, ``sim_over_wall`` (its simulated time over wall time), ``late_ticks``,
    ``skipped_s`` — as one status named ``mock_ros2_control_robot/realtime``; WARN when it fell
    behind the wall clock."""
    values = {name: getattr(summary, name) for name in ROBOT_PACE_FIELDS}
    return _numbers_status_message(stamp_s, ROBOT_PACE_STATUS, values, warn=summary.skipped_s > 0)


def robot_pace_from_status(msg: DiagnosticArray) -> dict[str, float] | None:
    """The fields of a :func:`robot_pace_status_message` in ``msg``, or None."""
    return _numbers_from_status(msg, ROBOT_PACE_STATUS)


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


def _duration(seconds: float) -> Duration:
    ns = int(round(seconds * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


# -- numeric tables (the gait reference, the CoM plan) ----------------------------------------------
# A table of float64 rows with named columns as ``std_msgs/Float64MultiArray``: ``layout.dim[0]``
# = ("rows", N, N·C), ``layout.dim[1]`` = (the column names joined by commas, C, C), ``data`` the
# rows one after the other, ``data_offset`` 0. One message of C·N doubles costs tens of
# microseconds to build and to read in Python; the same content as a trajectory message of N
# points cost milliseconds (measured: 1.5 ms to build and 1.9 ms to deserialize the 51-point
# reference, at 125 Hz, in each of three consumers).
TABLE_ROWS_LABEL = "rows"


def table_message(columns: Sequence[str], rows: np.ndarray) -> Float64MultiArray:
    """``rows`` (N, len(columns)) as a table message (see above)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    n, c = rows.shape
    if c != len(columns) or any("," in name for name in columns):
        raise ValueError("a table needs one comma-free name per column")
    msg = Float64MultiArray()
    msg.layout.dim = [MultiArrayDimension(label=TABLE_ROWS_LABEL, size=n, stride=n * c),
                      MultiArrayDimension(label=",".join(columns), size=c, stride=c)]
    msg.data = array.array("d", rows.tobytes())
    return msg


def table_from_message(msg: Float64MultiArray) -> tuple[tuple[str, ...], np.ndarray]:
    """Column names and rows (N, C) of a table message; ValueError when its layout is not a table's
    or its size does not match (values are not checked here)."""
    dims = msg.layout.dim
    if len(dims) != 2 or dims[0].label != TABLE_ROWS_LABEL or msg.layout.data_offset != 0:
        raise ValueError("layout: not a table (dim[0] 'rows', dim[1] the column names, data_offset 0)")
    n, c = int(dims[0].size), int(dims[1].size)
    columns = tuple(dims[1].label.split(",")) if dims[1].label else ()
    if len(columns) != c or n < 1 or n > MAX_ARRAY_LENGTH or len(msg.data) != n * c \
            or dims[0].stride != n * c or dims[1].stride != c:
        raise ValueError(f"layout: {n} rows × {c} columns ({len(columns)} named) do not match {len(msg.data)} values")
    return columns, np.frombuffer(msg.data, dtype=np.float64).reshape(n, c)


def table_times_s(rows: np.ndarray) -> np.ndarray:
    """A table's first column ``t_s``, absolute time [s] (sim or wall time); ValueError unless
    finite, in [0, MAX_TIME_S] and strictly increasing."""
    times = rows[:, 0]
    if not np.all(np.isfinite(times)) or np.any(times < 0.0) or np.any(times > MAX_TIME_S):
        raise ValueError(f"data: t_s must be finite times in [0, {MAX_TIME_S:g}] s")
    if np.any(np.diff(times) <= 0):
        raise ValueError("data: t_s must be strictly increasing")
    return times


# -- gait reference ------------------------------------------------------------------------------
def _reference_columns() -> tuple[str, ...]:
    sole = ("x_m", "y_m", "z_m", "qw", "qx", "qy", "qz", "stance")
    return ("t_s", "body_x_m", "body_y_m", "body_yaw_rad", "pelvis_z_m", "pelvis_qw", "pelvis_qx", "pelvis_qy",
            "pelvis_qz", *(f"{side}_{name}" for side in ("left", "right") for name in sole))


REFERENCE_COLUMNS = _reference_columns()  # then one column per upper-body joint, named as the joint


def gait_reference_message(reference: GaitReference) -> Float64MultiArray:
    """``/gait/reference``: a table (see above) with the columns :data:`REFERENCE_COLUMNS` — ``t_s``
    the row's absolute sim time (the reference's stamp is the first row's), the body path, pelvis
    height and orientation, per sole its position, orientation and stance flag (1 stance, 0 swing)
    — followed by one column per upper-body joint [rad], named as the joint."""
    r = reference
    blocks = [(r.stamp_s + r.times_s)[:, None], r.body, r.pelvis_height_m[:, None], r.pelvis_quat_wxyz]
    for side in ("left", "right"):
        blocks += [r.sole_position_m[side], r.sole_quat_wxyz[side], r.in_stance[side][:, None]]
    blocks.append(r.upper_joints_rad)
    return table_message(REFERENCE_COLUMNS + r.upper_joint_names, np.hstack(blocks))


def gait_reference_from_message(msg: Float64MultiArray, robot) -> GaitReference:
    """The :class:`GaitReference` of a ``/gait/reference`` message for ``robot`` (a RobotModel);
    ValueError naming what is wrong: layout, columns, upper-body joints that are not the robot's,
    non-finite or implausible values, times not increasing, quaternions not unit, stance flags
    other than 0/1, upper-body angles outside their joints' ranges."""
    columns, rows = table_from_message(msg)
    fixed = len(REFERENCE_COLUMNS)
    if columns[:fixed] != REFERENCE_COLUMNS:
        raise ValueError(f"layout.dim[1].label: columns must start with {','.join(REFERENCE_COLUMNS)}")
    names = columns[fixed:]
    if names:
        check_names(list(names), robot.joint_index, "layout.dim[1].label (upper-body joints)")
    times = table_times_s(rows)
    values = finite_within(rows[:, :fixed], MAX_COORDINATE_M, "data", skip_columns=1)
    column = {name: i for i, name in enumerate(REFERENCE_COLUMNS)}

    def quat(prefix):
        q = values[:, column[f"{prefix}_qw"]:column[f"{prefix}_qw"] + 4]
        if np.any(np.abs(np.linalg.norm(q, axis=1) - 1.0) > UNIT_QUATERNION_TOLERANCE):
            raise ValueError(f"data: {prefix} orientations are not unit quaternions")
        return q / np.linalg.norm(q, axis=1, keepdims=True)

    def stance(side):
        flags = values[:, column[f"{side}_stance"]]
        if np.any((flags != 0.0) & (flags != 1.0)):
            raise ValueError(f"data: {side}_stance flags must be 0 or 1")
        return flags == 1.0
    upper = finite_within(rows[:, fixed:], 2 * math.pi, "data (upper-body joints)")
    if names:
        index = np.array([robot.joint_index[n] for n in names], dtype=int)
        if np.any(outside_joint_range(upper, robot.position_lower_rad[index], robot.position_upper_rad[index])):
            raise ValueError("data: an upper-body angle outside its joint's range")
    return GaitReference(
        stamp_s=float(times[0]), times_s=times - times[0], body=values[:, 1:4], pelvis_height_m=values[:, 4],
        pelvis_quat_wxyz=quat("pelvis"),
        sole_position_m={side: values[:, column[f"{side}_x_m"]:column[f"{side}_x_m"] + 3] for side in ("left", "right")},
        sole_quat_wxyz={side: quat(side) for side in ("left", "right")},
        in_stance={side: stance(side) for side in ("left", "right")},
        upper_joint_names=names, upper_joints_rad=upper)


def gait_reference_check(robot):
    """``check(msg)`` for ``/gait/reference`` of ``robot`` (decoding it checks everything)."""
    return lambda msg: gait_reference_from_message(msg, robot)


# -- transforms ----------------------------------------------------------------------------------
def tf_message(stamp_s: float, transforms):
    """``/tf`` / ``/tf_static`` (tf2_msgs/TFMessage): one ``geometry_msgs/TransformStamped`` per
    :class:`biped_common.tf_frames.FrameTransform`, all stamped ``stamp_s`` [s]. (tf2_msgs is
    imported here, not at the top: PyPI lacks it and a pip-only machine builds it at install,
    ``biped_stack.ros_interfaces`` — every other conversion works without it.)"""
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage
    stamp = seconds_to_stamp(stamp_s)
    msg = TFMessage()
    for t in transforms:
        out = TransformStamped()
        out.header.stamp, out.header.frame_id, out.child_frame_id = stamp, t.parent, t.child
        tr, q = out.transform.translation, out.transform.rotation
        tr.x, tr.y, tr.z = (float(v) for v in t.translation_m)
        q.w, q.x, q.y, q.z = (float(v) for v in t.quat_wxyz)
        msg.transforms.append(out)
    return msg


# -- robot description ---------------------------------------------------------------------------
def robot_description_message(urdf_text: str) -> String:
    """``/robot_description`` (std_msgs/String, latched): the robot's URDF, as robot_state_publisher
    publishes it; ValueError for text that is not a URDF's."""
    if "<robot" not in urdf_text:
        raise ValueError("robot_description: the text holds no <robot> element")
    return String(data=urdf_text)


# -- CoM plan ------------------------------------------------------------------------------------
COM_PLAN_COLUMNS = ("t_s", "com_x_m", "com_vx_m_s", "com_y_m", "com_vy_m_s", "cop_x_m", "cop_y_m", "com_height_m",
                    "disturbance_x_m_s2", "disturbance_y_m_s2")
MAX_DISTURBANCE_M_S2 = 50.0  # a decoded plan's external acceleration beyond this is malformed


def com_plan_message(plan: ComPlan) -> Float64MultiArray:
    """``/mpc/com_plan``: a table (see above) with the columns :data:`COM_PLAN_COLUMNS`, one row per
    MPC step k = 0…N: its absolute sim time start + k·dt, the CoM state there (c_x, ċ_x, c_y, ċ_y),
    the CoP held from step k to k+1 (the last row repeats the last CoP) and the pendulum height h."""
    n = plan.states.shape[0]
    cop = np.vstack([plan.cop, plan.cop[-1:]])
    rows = np.column_stack([plan.start_s + plan.dt_s * np.arange(n), plan.states, cop, np.full(n, plan.com_height_m),
                            np.tile(plan.disturbance_m_s2, (n, 1))])
    return table_message(COM_PLAN_COLUMNS, rows)


def com_plan_from_message(msg: Float64MultiArray) -> ComPlan:
    """The :class:`ComPlan` of a ``/mpc/com_plan`` message; ValueError when malformed."""
    columns, rows = table_from_message(msg)
    if columns != COM_PLAN_COLUMNS or rows.shape[0] < 2:
        raise ValueError(f"not a CoM plan: columns {','.join(columns)[:80]}, {rows.shape[0]} rows")
    times = table_times_s(rows)
    rows = finite_within(rows, MAX_COORDINATE_M, "data", skip_columns=1)
    dt = float(times[1] - times[0])
    if dt <= 0 or not np.allclose(np.diff(times), dt, atol=1e-6):
        raise ValueError("data: CoM plan rows are not evenly spaced in time")
    height = float(rows[0, 7])
    if not 0.05 < height < 10.0:
        raise ValueError(f"data: CoM height must be in (0.05, 10) m, got {height}")
    disturbance = rows[0, 8:10]
    if not np.all(np.abs(disturbance) <= MAX_DISTURBANCE_M_S2):
        raise ValueError(f"data: CoM plan disturbance beyond ±{MAX_DISTURBANCE_M_S2:g} m/s²: {disturbance}")
    return ComPlan(float(times[0]), dt, rows[:, 1:5].copy(), rows[:-1, 5:7].copy(), math.sqrt(GRAVITY_M_S2 / height),
                   (float(disturbance[0]), float(disturbance[1])))


def check_com_plan(msg: Float64MultiArray) -> None:
    """``/mpc/com_plan`` on its own (decoding it checks it)."""
    com_plan_from_message(msg)


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
