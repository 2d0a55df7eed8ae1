"""ROS 2 shell of the sim bridge, and a MuJoCo robot that speaks ros2_control (for tests).

``sim_bridge`` (entry point): publishes the sensor topics (and ``/clock`` in lockstep), takes joint
commands and pushes, runs the watchdog. Backends: ``mujoco`` (lockstep on sim time, or realtime on
the wall clock as a robot is: :mod:`sim_bridge.wall_clock`) and ``ros2_control`` (a real robot). ``mock_ros2_control_robot``: MuJoCo behind ros2_control topics,
the other end of the hardware backend in tests. Topics are listed in the README.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

from biped_common import conversions as conv
from biped_common.ros_cdr_writers import ImuWriter, JointStateWriter, OdometryWriter, WrenchWriter
from biped_common.errors import ConfigError
from biped_common.rates import CONTROL_RATE_HZ
from biped_common.robot_model import load_robot
from biped_common.ros_node_tools import (LATCHED_QOS, SENSOR_QOS, GuardedNode, declare_config, make_executor, run_node, running,
                                        spin_forever)
from biped_common.state import PUSH_MAX_DURATION_S, PUSH_MAX_FORCE_N, PUSH_MAX_TORQUE_NM, JointCommand, SensorFrame
from sim_bridge.bridge import MEMS_SENSORS, BridgeConfig, SimBridge
from sim_bridge.commands import CommandArbiter, CommandMode
from sim_bridge.mujoco_backend import MujocoBackend, SensorNoise
from sim_bridge.realtime_loop import Gantry, spin_on_deadlines
from sim_bridge.realtime_monitor import RealtimeMonitor
from sim_bridge.ros2_control_backend import CONTROLLER_TOPICS, Ros2ControlBackend
from sim_bridge.wall_clock import WallClockBackend

SIDES = ("left", "right")
COMMAND_MAX_AGE_S = 0.5     # a joint command answering an older frame is stale
MAX_CATCH_UP_S = 0.1        # real time: further behind the wall clock, the bridge gives the time up
REALTIME_START_MAX_GAP_S = 0.1  # real time: a pause longer than this restarts the gantry's count
DRAIN_CALLBACKS = 2  # real time: waiting callbacks (a command, a push) served before each step
REALTIME_REPORT_PERIOD_S = 1.0  # real time: the deadline tally on /diagnostics this often (wall time)


class SensorPublishers:
    """Publishers of one sensor frame (IMU, foot wrenches, ground truth, joint states) under the
    given topic names; the bridge and the mock ros2_control robot differ only in those names."""

    def __init__(self, node: Node, robot, imu_topic: str, wrench_topic: str, truth_topic: str = "ground_truth/odom"):
        self.robot = robot
        self.joints = node.create_publisher(JointState, "joint_states", SENSOR_QOS)
        self.imu = node.create_publisher(Imu, imu_topic, SENSOR_QOS)
        self.wrench = {s: node.create_publisher(WrenchStamped, wrench_topic.format(side=s), SENSOR_QOS) for s in SIDES}
        self.truth = node.create_publisher(Odometry, truth_topic, SENSOR_QOS)
        # The messages are written into their serialized bytes (biped_common.ros_cdr_writers).
        d = robot.description
        self._joints_writer = JointStateWriter(robot.joint_names)
        self._wrench_writers = {s: WrenchWriter(d.feet[s].sole_site) for s in SIDES}
        self._truth_writer = OdometryWriter(d.base_body)
        self._imu_writer: tuple[tuple, ImuWriter] | None = None  # (standard deviations, writer)

    def publish(self, frame: SensorFrame, truth=None, imu_std=(0.0, 0.0, 0.0)) -> None:
        """Publish ``frame`` (and ``truth``, a BaseState, when given); ``imu_std`` = (gyro,
        accel, orientation) standard deviations for the IMU covariances. Joint states go last:
        controllers compute when the frame's joint state (and IMU) are in."""
        if truth is not None:
            self.truth.publish(self._truth_writer.write(truth))
        imu_std = tuple(imu_std)
        if self._imu_writer is None or self._imu_writer[0] != imu_std:
            self._imu_writer = (imu_std, ImuWriter(self.robot.description.imu_site, *imu_std))
        self.imu.publish(self._imu_writer[1].write(frame.stamp_s, frame.imu))
        for side, wrench in frame.foot_wrenches.items():
            self.wrench[side].publish(self._wrench_writers[side].write(frame.stamp_s, wrench))
        if tuple(frame.joint_names) == self._joints_writer.joint_names:
            self.joints.publish(self._joints_writer.write(frame))
        else:  # a frame of another joint order (a hardware driver's): the general path
            self.joints.publish(conv.joint_state_message(frame))


class SimBridgeNode(GuardedNode):
    """The robot side of the stack over ROS 2."""

    def __init__(self):
        super().__init__("sim_bridge")
        self.config = declare_config(self, BridgeConfig)
        self.hardware_namespace = self.declare_parameter(
            "hardware_namespace", "/robot", ParameterDescriptor(read_only=True, description="(read at start)")).value
        if not isinstance(self.hardware_namespace, str):
            raise ConfigError("hardware_namespace", f"must be a string, got {self.hardware_namespace!r}")
        self.robot = load_robot(self.config.robot)
        self._default_kp = dict(zip(self.robot.joint_names, self.robot.kp))
        self._default_kd = dict(zip(self.robot.joint_names, self.robot.kd))
        self._sensors = SensorPublishers(self, self.robot, "imu", "foot/{side}/wrench")
        self._pub_status = self.create_publisher(DiagnosticArray, "diagnostics", LATCHED_QOS)
        self._publish_robot_description()
        self.create_subscription(JointTrajectory, "joint_commands", self._on_command, SENSOR_QOS)
        self.create_subscription(WrenchStamped, "push", self._on_push, 10)
        self._answered_ns = -1
        self._commanded = False
        self._last_mode: CommandMode | None = None
        self._progress: tuple[float, float] | None = None
        self._epoch_minus_monotonic_s: float | None = None  # real time on MuJoCo: system − monotonic clock

        self._pub_clock = None
        if self.config.backend == "mujoco":
            backend = MujocoBackend(self.robot, self.config.noise(), seed=self.config.seed)
            if self.config.timing_mode == "realtime":
                backend = WallClockBackend(backend, wall_s=time.time())
            else:
                self._pub_clock = self.create_publisher(Clock, "/clock", SENSOR_QOS)
        else:
            backend = self._make_hardware_backend()
        self.bridge = SimBridge(backend, self.robot.kd, self.config)
        self.get_logger().info(
            f"robot {self.robot.name} ({self.robot.n_joints} joints, {self.robot.mass_kg:.1f} kg), "
            f"backend {self.config.backend}, {self.config.timing_mode}, "
            f"{self.config.control_rate_hz:.0f} Hz, watchdog {self.config.command_timeout_s * 1e3:.0f} ms")
        # Real time (and hardware): the robot hangs until commands have come steadily.
        self._gantry = Gantry(self.config.realtime_release_after_s, REALTIME_START_MAX_GAP_S,
                              self.config.command_timeout_s)
        self._simulating = False  # real time: physics started
        # Real time and hardware: the deadline tally, from the release on.
        self._monitor: RealtimeMonitor | None = None
        self._next_realtime_report = 0.0

    def _publish_robot_description(self) -> None:
        """``robot_description``, latched: the URDF of the robot simulated or driven (what rviz's
        RobotModel display and robot_state_publisher users read). A robot without a URDF runs
        without it, with a warning."""
        try:
            message = conv.robot_description_message(self.robot.description.urdf_text())
        except (OSError, ValueError) as error:
            self.get_logger().warning(f"no robot_description: {error}")
            return
        self._pub_description = self.create_publisher(String, "robot_description", LATCHED_QOS)
        self._pub_description.publish(message)

    # -- inputs -------------------------------------------------------------------------------
    def _on_command(self, msg: JointTrajectory) -> None:
        """A joint command answering a frame; refused (CommandError/ValueError, logged by the
        guard) when malformed, beyond the robot's sanity bounds, or stamped for a frame that is
        in the future or stale — the previous command stays in force."""
        error = conv.stamp_age_error(msg.header.stamp, self.bridge.backend.now_s(), COMMAND_MAX_AGE_S,
                                     self.config.control_period_s)
        if error is not None:
            raise ValueError(error)
        command = conv.joint_command_from_message(msg, self._default_kp, self._default_kd)
        conv.check_joint_command(command, self.robot)
        now = time.monotonic()
        # Real time on MuJoCo: the watchdog counts from the arrival on the wall clock (the sim's
        # present is the next tick's until then: up to a period late).
        arrived = None if self._epoch_minus_monotonic_s is None else now + self._epoch_minus_monotonic_s
        self.bridge.submit(command, received_s=arrived)
        self._commanded = True
        self._gantry.command_arrived(now)
        stamp_ns = conv.stamp_to_ns(msg.header.stamp)
        self._answered_ns = max(self._answered_ns, stamp_ns)
        if self._monitor is not None:
            self._monitor.command_received(stamp_ns, now)
        if self.config.backend == "ros2_control":
            # To the robot at once: waiting for the next joint state would add a period of latency.
            self._report_mode(self.bridge.step())

    def _on_push(self, msg: WrenchStamped) -> None:
        push = conv.push_from_message(msg, self.bridge.backend.now_s())
        if np.linalg.norm(push.force_world_n) > PUSH_MAX_FORCE_N or np.linalg.norm(push.torque_world_nm) > PUSH_MAX_TORQUE_NM:
            raise ValueError(f"wrench: a push is limited to {PUSH_MAX_FORCE_N:g} N and {PUSH_MAX_TORQUE_NM:g} N·m")
        if push.duration_s > PUSH_MAX_DURATION_S:
            raise ValueError(f"header.stamp: the push would last {push.duration_s:.3g} s (limit {PUSH_MAX_DURATION_S:g} s)")
        try:
            self.bridge.push(push)
        except KeyError as exc:
            raise ValueError(f"header.frame_id: {exc}") from exc
        self.get_logger().info(f"push on {push.body}: {push.force_world_n} N for {push.duration_s:.3f} s")

    # -- outputs ------------------------------------------------------------------------------
    def _publish_state(self, frame: SensorFrame) -> None:
        truth = None
        if self._pub_clock is not None:
            self._pub_clock.publish(conv.clock_message(frame.stamp_s))
        if self.config.backend == "mujoco":
            if self.config.publish_ground_truth:
                truth = self.bridge.backend.ground_truth()
        c = self.config
        self._sensors.publish(frame, truth, (c.gyro_std_rad_s, c.accel_std_m_s2, c.orientation_std_rad))

    def _report_mode(self, mode: CommandMode) -> None:
        if mode == self._last_mode:
            return
        self._last_mode = mode
        now = self.bridge.mode_since_s  # the switch, to the physics step (not the period's end)
        if mode == CommandMode.COMMAND:
            self.get_logger().info(f"mode {mode.value} at t = {now:.3f} s")
        else:
            if mode == CommandMode.DAMPING and self._monitor is not None:
                self._monitor.watchdog_tripped()
            self.get_logger().warning(f"mode {mode.value} at t = {now:.3f} s")
        self._pub_status.publish(conv.bridge_status_message(now, mode.value, {"since_s": repr(now)}))

    # -- timing -------------------------------------------------------------------------------
    def _realtime_tick(self, due_wall_s: float, executor) -> None:
        """One tick due at ``due_wall_s`` (monotonic): publish the frame, take the commands that
        came meanwhile, step one period. In the gantry the frame's stamp keeps pace with the wall
        clock while sim time stands."""
        backend: WallClockBackend = self.bridge.backend
        if not self._simulating:
            backend.anchor(due_wall_s + self._epoch_minus_monotonic_s)
        frame = self.bridge.measure()
        self._publish_state(frame)
        if not self._simulating and self._gantry.ready(time.monotonic()):
            self._simulating = True
            self._monitor = RealtimeMonitor(backend.simulation.now_s(), time.monotonic())
            self.get_logger().info(f"commands have come without a gap for {self.config.realtime_release_after_s:g} s: "
                                   f"starting the simulation")
        if self._simulating:
            # A command that came while this tick published is in the queue, not yet taken: take it,
            # so the step uses it (rather than counting a deadline it met as missed).
            for _ in range(DRAIN_CALLBACKS):
                executor.spin_once(timeout_sec=0.0)
            wall = time.monotonic()
            self._monitor.frame_published(conv.stamp_to_ns(conv.seconds_to_stamp(frame.stamp_s)), wall,
                                          backend.simulation.now_s())
            self._report_mode(self.bridge.step())
            self._report_progress()
            self._report_tally(frame.stamp_s, wall)

    def _report_tally(self, stamp_s: float, wall_s: float) -> None:
        """The deadline tally on /diagnostics, once per REALTIME_REPORT_PERIOD_S of wall time."""
        if wall_s >= self._next_realtime_report:
            self._next_realtime_report = wall_s + REALTIME_REPORT_PERIOD_S
            msg = conv.realtime_status_message(stamp_s, self._monitor.summary())
            # The topic is latched with depth 1: the tally carries the mode too (and since when),
            # so a late subscriber still learns it.
            if self._last_mode is not None:
                mode = conv.bridge_status_message(stamp_s, self._last_mode.value,
                                                  {"since_s": repr(self.bridge.mode_since_s)})
                msg.status.extend(mode.status)
            self._pub_status.publish(msg)

    def spin_realtime(self, executor) -> None:
        """Real time: one control period of physics per control period of the wall clock, on
        deadlines (:func:`sim_bridge.realtime_loop.spin_on_deadlines`: late ticks caught up, more
        than ``MAX_CATCH_UP_S`` behind given up); between ticks the executor serves the commands.
        The controllers, which read the newest frame only, answer the latest."""
        self._epoch_minus_monotonic_s = time.time() - time.monotonic()

        def give_up(due_s: float, behind_s: float) -> None:
            # The stamps jump with the wall clock; sim time does not.
            self.bridge.backend.anchor(due_s + self._epoch_minus_monotonic_s)
            if self._monitor is not None:
                self._monitor.skipped_s += behind_s

        def late() -> None:
            if self._monitor is not None:
                self._monitor.late_ticks += 1

        spin_on_deadlines(self.config.control_period_s, lambda due: self._realtime_tick(due, executor),
                          lambda timeout: executor.spin_once(timeout_sec=timeout), running, MAX_CATCH_UP_S,
                          on_late=late, on_give_up=give_up)

    def spin_lockstep(self, executor) -> None:
        """Lockstep: publish the state of time t, wait for the command answering it, step.

        Before the first command the simulation waits as long as it takes (controllers may take
        seconds to start). After that it waits at most ``lockstep_timeout_s`` of wall time per
        step; a missing answer lets the watchdog run on sim time (the joints damp after
        ``command_timeout_s``), and once they damp the simulation holds — as before the first
        command, the state re-published now and then — until commands return: in lockstep the
        simulator waits for its controllers, so a controller that died and respawns finds the
        robot where the damping left it. (In real time nothing waits: the robot damps on.)
        """
        last_notice = time.monotonic()
        self._report_mode(CommandMode.WAITING)
        while running():
            frame = self.bridge.measure()
            self._publish_state(frame)
            stamp_ns = int(round(frame.stamp_s * 1e9))
            started = time.monotonic()
            while self._answered_ns < stamp_ns and running():
                if not self._commanded or self.bridge.mode == CommandMode.DAMPING:
                    # Re-publish now and then: subscribers that joined late missed the first one.
                    executor.spin_once(timeout_sec=0.1)
                    if time.monotonic() - last_notice > 0.5:
                        last_notice = time.monotonic()
                        self._publish_state(frame)
                    continue
                remaining = self.config.lockstep_timeout_s - (time.monotonic() - started)
                if remaining <= 0.0:
                    break
                executor.spin_once(timeout_sec=remaining)
            self._report_mode(self.bridge.step())
            self._report_progress()

    def _report_progress(self) -> None:
        backend = self.bridge.backend
        now = (backend.simulation if isinstance(backend, WallClockBackend) else backend).now_s()  # sim time
        wall = time.monotonic()
        if self._progress is None:
            self._progress = (now, wall)
        elif now - self._progress[0] >= 5.0:
            rtf = (now - self._progress[0]) / max(wall - self._progress[1], 1e-9)
            late = ""
            if self._monitor is not None:
                tally = self._monitor.summary()
                late = (f", {tally.late_ticks} late ticks caught up, {tally.skipped_s:.3f} s of wall time given up, "
                        f"deadline misses {tally.deadline_misses} of {tally.frames}, latency p50/p99 "
                        f"{tally.latency_p50_ms:.1f}/{tally.latency_p99_ms:.1f} ms")
            self.get_logger().info(f"t = {now:.1f} s, real-time factor {rtf:.2f}, mode {self.bridge.mode.value}{late}")
            self._progress = (now, wall)

    # -- hardware -----------------------------------------------------------------------------
    def _make_hardware_backend(self) -> Ros2ControlBackend:
        ns = self.hardware_namespace.rstrip("/")
        topic = f"{ns}/{CONTROLLER_TOPICS[self.config.command_interface]}"
        publisher = self.create_publisher(Float64MultiArray, topic, SENSOR_QOS)
        backend = Ros2ControlBackend(
            self.robot.joint_names, self.robot.torque_limit_nm, self.config.command_interface,
            publish=lambda values: publisher.publish(conv.forward_command_message(values)),
            clock=lambda: self.get_clock().now().nanoseconds * 1e-9)
        # A robot's own frame names are its business: the contents are checked, not the frames.
        self.subscribe(JointState, f"{ns}/joint_states", self._on_robot_joints, SENSOR_QOS,
                       check=conv.joint_state_check(self.robot), max_age_s=None)
        self.subscribe(Imu, f"{ns}/imu_sensor_broadcaster/imu", self._on_robot_imu, SENSOR_QOS,
                       check=lambda m: conv.check_imu(m, m.header.frame_id), max_age_s=None)
        for side in SIDES:
            self.subscribe(WrenchStamped, f"{ns}/{side}_foot_ft/wrench",
                           lambda m, s=side: backend.on_wrench(s, conv.wrench_from_message(m)), SENSOR_QOS,
                           check=lambda m: conv.check_wrench(m, m.header.frame_id), max_age_s=None)
        self.get_logger().info(f"ros2_control robot under {ns or '/'}: commands on {topic}")
        return backend

    def _on_robot_imu(self, msg: Imu) -> None:
        self.bridge.backend.on_imu(conv.imu_from_message(msg))

    def _on_robot_joints(self, msg: JointState) -> None:
        """Hardware: every robot joint state is one control period: the frame goes out, the
        watchdog is checked and the setpoints sent (a command is also sent the moment it comes,
        see :meth:`_on_command`). The deadline tally starts when the robot's gantry would let go
        (commands steady for ``realtime_release_after_s``): from then on each frame's command must
        come before the next joint state."""
        self.bridge.backend.on_joint_state(conv.stamp_to_seconds(msg.header.stamp), msg.name,
                                           msg.position, msg.velocity, msg.effort)
        frame = self.bridge.measure()
        if frame is None:
            return
        # The robot first: the joint PD closed here acts on this state only once the robot has
        # the efforts, and publishing the frame to the controllers first delayed them by its cost.
        mode = self.bridge.step()
        self._publish_state(frame)
        wall = time.monotonic()
        if self._monitor is None and self._gantry.ready(wall):
            self._monitor = RealtimeMonitor(frame.stamp_s, wall)
            self.get_logger().info(f"commands have come without a gap for {self.config.realtime_release_after_s:g} s: "
                                   f"deadline tally from now on")
        if self._monitor is not None:
            self._monitor.frame_published(conv.stamp_to_ns(msg.header.stamp), wall, frame.stamp_s)
            self._report_tally(frame.stamp_s, wall)
        self._report_mode(mode)


def main() -> int:
    """Entry point ``sim_bridge``."""
    def spin(node: SimBridgeNode) -> None:
        executor = make_executor(node)
        if node.config.backend == "mujoco" and node.config.timing_mode == "lockstep":
            node.spin_lockstep(executor)
        elif node.config.backend == "mujoco":
            node.spin_realtime(executor)
        else:
            spin_forever(executor)
    return run_node(SimBridgeNode, spin)


class MockRos2ControlRobot(GuardedNode):
    """MuJoCo standing in for a ros2_control robot (what the hardware backend is tested against):
    joint_state/IMU/FT broadcasters and effort or position forward command controllers under
    ``/robot``, sensors at MEMS levels by default, the truth on ``/robot/ground_truth/odom`` for
    evaluation. It runs on the wall clock as the real-time bridge does — one control period of
    physics per period of the steady clock, on deadlines, the joint loop at every physics step —
    and stamps with the system clock, as a robot's drivers do. Like a robot on its gantry it is
    not simulated until commands have come steadily for ``release_after_s``; after that no
    command for ``command_timeout_s`` → joint damping, as motor drivers do. Its pace (sim time over
    wall time, late ticks) goes on ``/diagnostics`` (status ``mock_ros2_control_robot/realtime``)."""

    def __init__(self):
        super().__init__("mock_ros2_control_robot", namespace="/robot")
        self.config = config = declare_config(self, MockRobotConfig)
        self.robot = load_robot(config.robot)
        self.backend = WallClockBackend(MujocoBackend(self.robot, config.noise(), seed=config.seed), wall_s=time.time())
        self.arbiter = CommandArbiter(self.robot.joint_names, self.robot.kd, timeout_s=config.command_timeout_s)
        self._gantry = Gantry(config.release_after_s, REALTIME_START_MAX_GAP_S, config.command_timeout_s)
        self._sensors = SensorPublishers(self, self.robot, "imu_sensor_broadcaster/imu", "{side}_foot_ft/wrench")
        self._status = self.create_publisher(DiagnosticArray, "/diagnostics", LATCHED_QOS)
        zeros = np.zeros(self.robot.n_joints)
        names = self.robot.joint_names
        self.create_subscription(Float64MultiArray, CONTROLLER_TOPICS["effort"], lambda m: self._on_command(
            m, lambda v: JointCommand(self.backend.now_s(), names, zeros, zeros, v, zeros, zeros)), SENSOR_QOS)
        self.create_subscription(Float64MultiArray, CONTROLLER_TOPICS["position"], lambda m: self._on_command(
            m, lambda v: JointCommand(self.backend.now_s(), names, v, zeros, zeros, self.robot.kp, self.robot.kd)),
            SENSOR_QOS)
        self._pace: RealtimeMonitor | None = None  # from the release: sim time over wall time, late ticks
        self._next_report_s = 0.0
        self._last_mode: CommandMode | None = None
        self.get_logger().info(f"mock {self.robot.name} robot, {config.rate_hz:g} Hz, sensors {config.sensors}, "
                               f"released after {config.release_after_s:g} s of steady commands")

    def _on_command(self, msg: Float64MultiArray, make) -> None:
        if len(msg.data) != self.robot.n_joints:
            raise ValueError(f"data: {len(msg.data)} values for {self.robot.n_joints} joints")
        self.arbiter.submit(make(conv.finite_within(msg.data, 1e4, "data")), self.backend.now_s())
        self._gantry.command_arrived(time.monotonic())

    def _tick(self, due_s: float) -> None:
        """Publish the frame; once released, step one period with the newest command."""
        if self._pace is None:  # in the gantry: sim time stands, the stamps keep pace
            self.backend.anchor(due_s + self._epoch_minus_monotonic_s)
        c = self.config.noise()
        self._sensors.publish(self.backend.measure(), self.backend.ground_truth(),
                              (c.gyro_std_rad_s, c.accel_std_m_s2, c.orientation_std_rad))
        wall = time.monotonic()
        if self._pace is None and self._gantry.ready(wall):
            self._pace = RealtimeMonitor(self.backend.simulation.now_s(), wall)
            self.get_logger().info("commands have come steadily: letting the robot go")
        if self._pace is None:
            return
        self.backend.send(self.arbiter.setpoints(self.backend.now_s()))
        self.backend.advance(1.0 / self.config.rate_hz)
        self._pace.frame_published(0, wall, self.backend.simulation.now_s())
        if self.arbiter.mode != self._last_mode:
            self._last_mode = self.arbiter.mode
            self.get_logger().info(f"mode {self.arbiter.mode.value} at t = {self.backend.now_s():.3f} s")
        if wall >= self._next_report_s:
            self._next_report_s = wall + REALTIME_REPORT_PERIOD_S
            self._status.publish(conv.robot_pace_status_message(self.backend.now_s(), self._pace.summary()))

    def spin(self, executor) -> None:
        """The wall-clock loop (see the class)."""
        self._epoch_minus_monotonic_s = time.time() - time.monotonic()

        def give_up(due_s: float, behind_s: float) -> None:
            self.backend.anchor(due_s + self._epoch_minus_monotonic_s)
            if self._pace is not None:
                self._pace.skipped_s += behind_s

        def late() -> None:
            if self._pace is not None:
                self._pace.late_ticks += 1

        spin_on_deadlines(1.0 / self.config.rate_hz, self._tick, lambda timeout: executor.spin_once(timeout_sec=timeout),
                          running, MAX_CATCH_UP_S, on_late=late, on_give_up=give_up)


MOCK_SENSORS = ("ideal", "mems")


@dataclass(frozen=True)
class MockRobotConfig:
    """Mock ros2_control robot parameters."""

    robot: str = "humanoid"
    rate_hz: float = CONTROL_RATE_HZ
    sensors: str = "mems"              # ideal | mems (sim_bridge.bridge.MEMS_SENSORS)
    seed: int = 0
    release_after_s: float = 0.5       # gantry: steady commands this long before the robot is let go
    command_timeout_s: float = 0.1     # the drives damp after this long without a command

    def __post_init__(self):
        if not 10.0 <= self.rate_hz <= 2000.0:
            raise ConfigError("rate_hz", f"must be in [10, 2000] Hz, got {self.rate_hz}")
        if self.sensors not in MOCK_SENSORS:
            raise ConfigError("sensors", f"must be one of {MOCK_SENSORS}, got {self.sensors!r}")
        if not 0.0 <= self.release_after_s <= 600.0:
            raise ConfigError("release_after_s", f"must be in [0, 600] s, got {self.release_after_s}")
        if not 0.0 < self.command_timeout_s <= 1.0:
            raise ConfigError("command_timeout_s", f"must be in (0, 1] s, got {self.command_timeout_s}")

    def noise(self) -> SensorNoise:
        """The sensor noise of ``sensors``."""
        return SensorNoise(**MEMS_SENSORS) if self.sensors == "mems" else SensorNoise()


def mock_robot_main() -> int:
    """Entry point ``mock_ros2_control_robot``."""
    return run_node(MockRos2ControlRobot, lambda node: node.spin(make_executor(node)))
