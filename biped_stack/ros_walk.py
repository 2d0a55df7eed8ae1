"""The teleop scenario through ``launch/sim.launch.xml``: every node its own process over DDS.

This process starts the launch file with the pip-only launcher (lockstep, sim time), plays the
scenario on ``/cmd_vel`` against ``/clock``, and records what the stack publishes: the ground
truth, joint states (sole positions and the CoM by forward kinematics here, with Pinocchio),
foot wrenches, the planned contacts, the CoM plans and the nodes' timing diagnostics. The
metrics are those of the in-process run; what DDS cannot show is said: body contacts other than
the feet are not observable (a fall is the pelvis below 60 % of nominal).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

from biped_common import conversions as conv
from biped_common.ros_node_tools import SENSOR_QOS
from biped_common.robot_model import load_robot
from biped_stack.scenario import (FALL_HEIGHT_FRACTION, Scenario, Trace, WalkResult, estimator_metrics,
                                  max_foot_slip_m, segment_metrics)
from biped_stack.walking import WalkingLog
from sim_bridge.bridge import BridgeConfig

COMMAND_PERIOD_S = 0.02     # cmd_vel every 20 ms of sim time
RECORDER_QUEUE_DEPTH = 2000  # frames (4 s at 500 Hz) the recorder may fall behind without losing any


def _node_percentiles(timing: dict | None) -> dict:
    if not timing:
        return {"p50": None, "p99": None}
    return {"p50": timing["p50_ms"], "p99": timing["p99_ms"]}


class _Recorder:
    """The probe node: plays the scenario, records the stack, by sim time."""

    def __init__(self, robot, scenario: Scenario, domain_id: int):
        import rclpy
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import Twist, WrenchStamped
        from nav_msgs.msg import Odometry
        from rclpy.executors import SingleThreadedExecutor
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray
        from trajectory_msgs.msg import JointTrajectory

        from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

                # The recorder keeps every frame: a deep reliable queue, so that when it falls behind (five
        # processes on two cores) frames wait instead of being overwritten (with the controllers'
        # depth of 10 it lost ≈ 17 % of them, in gaps up to 170 ms).
        record_qos = QoSProfile(depth=RECORDER_QUEUE_DEPTH, reliability=ReliabilityPolicy.RELIABLE,
                                history=HistoryPolicy.KEEP_LAST)
        self.rclpy = rclpy
        self.robot, self.scenario = robot, scenario
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("demo_recorder", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.sim_time_s = -1.0
        # Scenario time starts once the whole stack is up — this recorder has a complete frame and
        # a CoM plan (the planner and MPC are running; the robot stands until then):
        # scenario time = sim time − start_s.
        self.start_s: float | None = None
        self.odom: dict[int, object] = {}
        self.estimates: dict[int, object] = {}
        self.joints: dict[int, object] = {}
        self.wrenches = {"left": {}, "right": {}}
        self.contacts: list[tuple[float, bool, bool]] = []
        self.plans: list[tuple[float, float, float]] = []
        self.timing: dict[str, dict] = {}
        self._cmd = self.node.create_publisher(Twist, "/cmd_vel", 10)
        self._next_cmd_s = 0.0
        self.node.create_subscription(Clock, "/clock", self._on_clock, SENSOR_QOS)
        self.node.create_subscription(Odometry, "/ground_truth/odom",
                                      lambda m: self.odom.__setitem__(conv.stamp_to_ns(m.header.stamp), m), record_qos)
        self.node.create_subscription(Odometry, "/odom",
                                      lambda m: self.estimates.__setitem__(conv.stamp_to_ns(m.header.stamp), m), record_qos)
        self.node.create_subscription(JointState, "/joint_states", self._on_joints, record_qos)
        # When each frame and each command was sent (the DDS source timestamps, system clock [ns]):
        # the sensor → command latency and the deadline misses of the realtime block.
        self.frame_sent_ns: dict[int, int] = {}
        self.command_sent_ns: dict[int, int] = {}
        self.bridge_modes: list[tuple[float, str]] = []  # (sim time [s], mode) as the bridge reports them
        self.node.create_subscription(JointTrajectory, "/joint_commands", self._on_command, record_qos)
        for side in ("left", "right"):
            self.node.create_subscription(
                WrenchStamped, f"/foot/{side}/wrench",
                lambda m, s=side: self.wrenches[s].__setitem__(conv.stamp_to_ns(m.header.stamp), m.wrench.force.z),
                record_qos)
        self.node.create_subscription(Float64MultiArray, "/gait/reference", self._on_reference, 50)
        self.node.create_subscription(Float64MultiArray, "/mpc/com_plan", self._on_plan, 50)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 50)
        self._twist = conv.twist_from_velocity_command

    def _on_clock(self, msg) -> None:
        self.sim_time_s = conv.stamp_to_seconds(msg.clock)
        if self.start_s is None and self.plans and set(self.odom) & set(self.joints):
            self.start_s = max(set(self.odom) & set(self.joints)) * 1e-9
        if self.start_s is not None and self.sim_time_s >= self._next_cmd_s:
            self._next_cmd_s = self.sim_time_s + COMMAND_PERIOD_S
            self._cmd.publish(self._twist(self.scenario.command_at(self.scenario_time_s)))

    @property
    def scenario_time_s(self) -> float:
        return self.sim_time_s - self.start_s if self.start_s is not None else -1.0

    def _on_joints(self, msg, info) -> None:
        stamp = conv.stamp_to_ns(msg.header.stamp)
        self.joints[stamp] = msg
        self.frame_sent_ns.setdefault(stamp, info["source_timestamp"])

    def _on_command(self, msg, info) -> None:
        self.command_sent_ns.setdefault(conv.stamp_to_ns(msg.header.stamp), info["source_timestamp"])

    def _on_diagnostics(self, msg) -> None:
        self.timing.update(conv.timing_from_status(msg))
        for status in msg.status:
            if status.name == "sim_bridge":
                self.bridge_modes.append((conv.stamp_to_seconds(msg.header.stamp), status.message))

    def _on_reference(self, msg) -> None:
        try:
            reference = conv.gait_reference_from_message(msg, self.robot)
        except ValueError:
            return
        self.contacts.append((reference.stamp_s, bool(reference.in_stance["left"][0]),
                              bool(reference.in_stance["right"][0])))

    def _on_plan(self, msg) -> None:
        try:
            plan = conv.com_plan_from_message(msg)
        except ValueError:
            return
        self.plans.append((plan.start_s, *plan.cop[0]))

    def spin_once(self) -> None:
        self.executor.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.context)

    def trace(self) -> tuple[Trace, WalkingLog]:
        """Frames with both ground truth and joint states, in time order; soles and CoM by FK."""
        robot, model = self.robot, self.robot.pin_model
        data = model.createData()
        soles = {s: model.getFrameId(f.sole_site) for s, f in robot.description.feet.items()}
        contact_t = np.array([c[0] for c in self.contacts]) if self.contacts else np.zeros(0)
        trace, log = Trace.empty(), WalkingLog()
        for stamp in sorted(set(self.odom) & set(self.joints)):
            base = conv.base_state_from_odometry(self.odom[stamp])
            js = self.joints[stamp]
            q, v = robot.state_from(base, js.name, js.position, js.velocity)
            pin.framesForwardKinematics(model, data, q)
            t = stamp * 1e-9 - self.start_s
            if t < 0:
                continue
            trace.time_s.append(t)
            trace.base_position_m.append(base.position_m)
            trace.base_quat_wxyz.append(base.orientation_wxyz)
            trace.base_velocity_world_m_s.append(base.linear_velocity_world_m_s)
            trace.base_yaw_rate_rad_s.append(float((data.oMi[1].rotation @ base.angular_velocity_base_rad_s)[2]))
            k = int(np.searchsorted(contact_t, t + self.start_s, side="right")) - 1
            planned = self.contacts[k][1:] if k >= 0 else (True, True)
            for i, side in enumerate(("left", "right")):
                trace.sole_position_m[side].append(data.oMf[soles[side]].translation.copy())
                trace.foot_normal_force_n[side].append(float(self.wrenches[side].get(stamp, 0.0)))
                trace.planned_stance[side].append(bool(planned[i]))
            log.com.append((t, *pin.centerOfMass(model, data, q)))
            log.stance.append((t, *planned))
            log.torques.append((t, *robot.joint_vector(tuple(js.name), js.effort)))
        plan_t = np.array([p[0] - self.start_s for p in self.plans]) if self.plans else np.zeros(0)
        for t in trace.time_s:
            k = int(np.searchsorted(plan_t, t, side="right")) - 1
            if k >= 0:
                log.cop_plan.append((t, self.plans[k][1], self.plans[k][2]))
        return trace, log


def realtime_metrics(recorder: "_Recorder", start_s: float, end_s: float, period_s: float, sim_over_wall: float,
                     cpu_percent: dict[str, float]) -> dict:
    """The ``realtime`` block of a DDS run's metrics over the sim-time window [start_s, end_s]:

    - ``sim_over_wall``: sim time over wall time;
    - ``watchdog_trips``: entries of the bridge into damping (its command watchdog fired);
    - ``deadline_misses``: frames whose command was sent after the next frame was (the bridge had
      stepped on without it) or never — count and fraction of the frames;
    - ``latency_ms``: sensor → command, from the frame's publication to its command's (DDS source
      timestamps, one system clock): p50, p99, max;
    - ``cpu_percent``: each launched process's CPU time over the window's wall time (% of one core).
    """
    period_ns = int(round(period_s * 1e9))
    frames = sorted(s for s in recorder.frame_sent_ns if start_s <= s * 1e-9 <= end_s)
    sent, answered = recorder.frame_sent_ns, recorder.command_sent_ns
    latencies = np.array([(answered[s] - sent[s]) * 1e-6 for s in frames if s in answered])
    judged = [s for s in frames if s + period_ns in sent]
    misses = sum(1 for s in judged if s not in answered or answered[s] > sent[s + period_ns])
    trips = sum(1 for t, mode in recorder.bridge_modes if mode == "damping" and start_s <= t <= end_s)
    def pct(q):
        return float(np.percentile(latencies, q)) if latencies.size else None
    return {"sim_over_wall": float(sim_over_wall), "watchdog_trips": trips,
            "deadline_misses": {"count": misses, "fraction": misses / len(judged) if judged else None,
                                "frames": len(judged)},
            "latency_ms": {"p50": pct(50), "p99": pct(99), "max": float(latencies.max()) if latencies.size else None},
            "cpu_percent": cpu_percent}


def _launched_pids(log_path: Path) -> dict[str, int]:
    """Process name → pid of the processes the launcher reports started (the latest per name)."""
    import re
    return {name: int(pid) for name, pid in re.findall(r"\[launch\] started (\S+) \(pid (\d+)\)", log_path.read_text())}


def _cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """User + system CPU time [s] of each process (those still alive)."""
    out = {}
    for name, pid in pids.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def run_walk_multiprocess(robot_name: str, style: str, scenario: Scenario, out: Path, progress=print,
                          state_source: str = "estimator", composed: bool = True, realtime: bool = False):
    """Walk ``scenario`` through the launch file; returns a :class:`biped_stack.scenario.WalkResult`.
    With ``state_source="estimator"`` the controllers read the estimator's /odom and the bridge
    runs MEMS-level sensors (``config/sim_mems.yaml``). ``realtime``: the bridge runs on the wall
    clock (nothing waits for the controllers) and the metrics gain a ``realtime`` block
    (:func:`realtime_metrics`); the scenario's commands are played by sim time, which then runs
    with the wall clock."""
    from biped_common.resources import launch_file as shipped_launch_file, params_file
    robot = load_robot(robot_name)
    domain = int(os.environ.get("ROS_DOMAIN_ID") or random.randrange(100, 200))
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain), PYTHONUNBUFFERED="1")
    env.setdefault("AMENT_PREFIX_PATH", sys.prefix)
    env.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
    os.environ.update({k: env[k] for k in ("ROS_DOMAIN_ID", "AMENT_PREFIX_PATH", "RMW_IMPLEMENTATION")})
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "launch.log"
    launch_file = shipped_launch_file("sim.launch.xml")
    command = [sys.executable, "-m", "biped_stack", "launch", str(launch_file), f"robot:={robot_name}",
               f"style:={style}", f"timing_mode:={'realtime' if realtime else 'lockstep'}", f"state_source:={state_source}",
               f"composed:={str(composed).lower()}"]
    if state_source == "estimator":
        command.append(f"params_file:={params_file('sim_mems.yaml')}")
    progress(f"  starting {launch_file.name} (ROS_DOMAIN_ID {domain}); node output in {log_path}")
    with open(log_path, "w") as log_file:
        launcher = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
    recorder = _Recorder(robot, scenario, domain)
    nominal = robot.nominal_pelvis_height_m
    fell, fall_reason = False, ""
    wall_limit_s = 120.0 + 40.0 * scenario.duration_s
    started = time.monotonic()
    first_clock: tuple[float, float] | None = None
    window: list = [None, None]  # (sim time, wall time, process CPU seconds) at the simulation's start and the end
    next_report = 5.0
    try:
        while recorder.scenario_time_s < scenario.duration_s:
            if time.monotonic() - started > wall_limit_s:
                raise RuntimeError(f"the stack reached only t = {recorder.sim_time_s:.1f} s of sim time in "
                                   f"{wall_limit_s:.0f} s; see {log_path}")
            if launcher.poll() is not None:
                raise RuntimeError(f"the launcher exited (code {launcher.returncode}); see {log_path}")
            recorder.spin_once()
            if first_clock is None and recorder.sim_time_s > 0:
                first_clock = (recorder.sim_time_s, time.monotonic())
            if window[0] is None and recorder.sim_time_s > 0.0:  # from the simulation's start
                window[0] = (recorder.sim_time_s, time.monotonic(), _cpu_seconds(_launched_pids(log_path)))
            if recorder.odom:
                z = recorder.odom[max(recorder.odom)].pose.pose.position.z
                if z < FALL_HEIGHT_FRACTION * nominal:
                    fell, fall_reason = True, f"pelvis at {z:.3f} m at t = {recorder.sim_time_s:.2f} s"
                    progress(f"  FELL: {fall_reason}")
                    break
            if recorder.scenario_time_s >= next_report:
                progress(f"  t = {recorder.scenario_time_s:5.1f} / {scenario.duration_s:.0f} s  "
                         f"command {scenario.command_at(recorder.scenario_time_s)}  wall {time.monotonic() - started:.0f} s")
                next_report += 5.0
        wall = time.monotonic() - first_clock[1] if first_clock else float("nan")
        rtf = (recorder.sim_time_s - first_clock[0]) / wall if first_clock else 0.0
        window[1] = (recorder.sim_time_s, time.monotonic(), _cpu_seconds(_launched_pids(log_path)))
        # Let the last diagnostics arrive.
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            recorder.spin_once()
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGINT)
            try:
                launcher.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait(5)
        trace, log = recorder.trace()
        recorder.close()
    arrays = trace.arrays()
    metrics = {
        "robot": robot_name, "style": style, "scenario": scenario.name,
        "mode": f"multi-process over DDS (launch/sim.launch.xml, {'real time' if realtime else 'lockstep'}, "
                f"{'composed' if composed else 'one process per node'})",
        "state_source": state_source,
        "fell": fell, "fall_reason": fall_reason,
        "segments": segment_metrics(scenario, arrays) if not fell else [],
        "max_foot_slip_m": max_foot_slip_m(arrays),
        "real_time_factor": float(rtf),
        "wbc_solve_ms": _node_percentiles(recorder.timing.get("wbc")),
        "mpc_solve_ms": _node_percentiles(recorder.timing.get("mpc")),
        "fallbacks": None,
        "min_pelvis_height_m": float(arrays["base_position_m"][:, 2].min()) if len(trace.time_s) else None,
        "nominal_pelvis_height_m": nominal,
        "notes": "over DDS: non-foot ground contacts are not observable; wbc/mpc times are the nodes' own "
                 "(diagnostics), torques are the applied joint efforts",
    }
    if state_source == "estimator":
        pairs = [(conv.base_state_from_odometry(recorder.estimates[s]), conv.base_state_from_odometry(recorder.odom[s]))
                 for s in sorted(set(recorder.estimates) & set(recorder.odom))
                 if recorder.start_s is not None and s * 1e-9 >= recorder.start_s]
        metrics["estimator"] = estimator_metrics(pairs)
    if realtime and window[0] is not None and window[1] is not None:
        (sim0, wall0, cpu0), (sim1, wall1, cpu1) = window
        cpu = {name: 100.0 * (cpu1[name] - cpu0[name]) / (wall1 - wall0) for name in cpu1 if name in cpu0}
        metrics["realtime"] = realtime_metrics(recorder, sim0, sim1, BridgeConfig().control_period_s,
                                               (sim1 - sim0) / (wall1 - wall0), cpu)
    return WalkResult(metrics, arrays, log, scenario)
