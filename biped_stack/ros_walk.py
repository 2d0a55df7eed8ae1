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
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

from biped_common import conversions as conv
from biped_common.cdr_views import leading_stamp_ns
from biped_common.robot_model import load_robot
from biped_common.errors import ConfigError
from biped_stack.scenario import (FALL_HEIGHT_FRACTION, Scenario, Trace, WalkResult, estimator_metrics,
                                  max_foot_slip_m, push_metrics, segment_metrics)
from biped_stack.walking import WalkingLog

COMMAND_PERIOD_S = 0.02     # cmd_vel every 20 ms of sim time
RECORDER_QUEUE_DEPTH = 2000  # frames (10 s at 200 Hz) the recorder may fall behind without losing any
FALL_CHECK_PERIOD_S = 0.02  # wall time between looks at the pelvis height
# CoM plans that must have come before the scenario starts: the planning process plans once when
# it first sees the robot, then on sim-time timers — which run only once its /clock subscription is
# matched (DDS discovery: up to its 3 s re-announcement on a loaded machine; a run whose planner went
# silent that long after its first plan held the robot through its first walking segment).
STACK_UP_PLANS = 5


def _node_percentiles(timing: dict | None) -> dict:
    if not timing:
        return {"p50": None, "p99": None}
    return {"p50": timing["p50_ms"], "p99": timing["p99_ms"]}


class _Recorder:
    """The probe node: plays the scenario, records the stack, by sim time.

    The state topics (200 Hz each) are kept serialized and decoded after the run (:meth:`finish`),
    served by the events executor: the default executor handing every message decoded, with its
    message info, cost this process ≈ 45 % of a core in the real-time runs (2026-12-03), on the two
    cores the stack it measures runs on. Only the plans and the diagnostics are decoded on arrival.
    Time is the joint states' stamps (sim time in lockstep, the wall clock in real time: there is
    no ``/clock`` then); the real-time tally comes from the bridge, which alone knows when each
    command arrived (:mod:`sim_bridge.realtime_monitor`).
    """

    def __init__(self, robot, scenario: Scenario, domain_id: int, realtime: bool = False,
                 truth_topic: str = "/ground_truth/odom"):
        import rclpy
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import Twist, WrenchStamped
        from nav_msgs.msg import Odometry
        from rclpy.experimental import EventsExecutor
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray

        from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

        # The recorder keeps every frame: a deep reliable queue, so that when it falls behind frames
        # wait instead of being overwritten (with the controllers' depth it lost ≈ 17 % of them).
        record_qos = QoSProfile(depth=RECORDER_QUEUE_DEPTH, reliability=ReliabilityPolicy.RELIABLE,
                                history=HistoryPolicy.KEEP_LAST)
        self.rclpy = rclpy
        self.robot, self.scenario = robot, scenario
        self.context = rclpy.Context()
        rclpy.init(args=[], context=self.context, domain_id=domain_id)  # not the caller's argv (a bench's tf:=true is no remap rule)
        self.node = rclpy.create_node("demo_recorder", context=self.context)
        self.executor = EventsExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.sim_time_s = -1.0
        # Scenario time starts once the whole stack is up — this recorder has frames and
        # STACK_UP_PLANS CoM plans (the planner and MPC are running; the robot stands until then):
        # scenario time = sim time − start_s.
        self.start_s: float | None = None
        self._realtime = realtime  # then also once the robot is out of its gantry (the bridge's first tally)
        self._types = {"ground_truth": Odometry, "estimates": Odometry, "joints": JointState,
                       "left": WrenchStamped, "right": WrenchStamped}
        topics = {"ground_truth": truth_topic, "estimates": "/odom", "joints": "/joint_states",
                  "left": "/foot/left/wrench", "right": "/foot/right/wrench"}
        # The serialized messages per topic, as they came.
        self.serialized: dict[str, list[bytes]] = {key: [] for key in topics}
        for key, topic in topics.items():
            callback = self._on_joints if key == "joints" else self.serialized[key].append
            self.node.create_subscription(self._types[key], topic, callback, record_qos, raw=True)
        # Decoded by finish(): messages by header stamp [ns].
        self.odom: dict[int, object] = {}
        self.estimates: dict[int, object] = {}
        self.joints: dict[int, object] = {}
        self.wrenches = {"left": {}, "right": {}}
        self.realtime: dict[str, float] | None = None  # the bridge's latest real-time tally
        self.robot_pace: dict[str, float] | None = None  # the mock ros2_control robot's, on hardware
        self.contacts: list[tuple[float, bool, bool]] = []
        self.plans: list[tuple[float, float, float]] = []
        self.timing: dict[str, dict] = {}
        self._cmd = self.node.create_publisher(Twist, "/cmd_vel", 10)
        self._next_cmd_s = 0.0
        # The scenario's pushes go to the bridge on /push as they start (heading-frame forces
        # turned by the robot's heading then). The bridge starts a push on arrival — a few ms of
        # sim time late in lockstep — and ends it at the stamp, the scenario's end time.
        self._push_pub = self.node.create_publisher(WrenchStamped, "/push", 10)
        self._pending_pushes = list(scenario.pushes)
        self.node.create_subscription(Float64MultiArray, "/gait/reference", self._on_reference, 50)
        self.node.create_subscription(Float64MultiArray, "/mpc/com_plan", self._on_plan, 50)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 50)
        self._twist = conv.twist_from_velocity_command

    def latest_pelvis_height_m(self) -> float | None:
        """The pelvis height [m] of the newest ground truth, or None before the first."""
        if not self.serialized["ground_truth"]:
            return None
        from rclpy.serialization import deserialize_message
        return deserialize_message(self.serialized["ground_truth"][-1], self._types["ground_truth"]).pose.pose.position.z

    def finish(self) -> None:
        """Decode what was kept serialized (first copy of each stamp: a holding lockstep bridge
        re-publishes its frame)."""
        from rclpy.serialization import deserialize_message
        stamp = leading_stamp_ns
        for key, into in (("ground_truth", self.odom), ("estimates", self.estimates), ("joints", self.joints)):
            for raw in self.serialized[key]:
                into.setdefault(stamp(raw), deserialize_message(raw, self._types[key]))
        for side in ("left", "right"):
            for raw in self.serialized[side]:
                self.wrenches[side].setdefault(stamp(raw), deserialize_message(raw, self._types[side]).wrench.force.z)
        for store in self.serialized.values():
            store.clear()

    def _on_joints(self, raw: bytes) -> None:
        """A frame's joint state: the stack's present (its stamp) and the scenario's clock."""
        self.serialized["joints"].append(raw)
        self.sim_time_s = leading_stamp_ns(raw) * 1e-9
        if self.start_s is None and len(self.plans) >= STACK_UP_PLANS and self.serialized["ground_truth"] and \
                (not self._realtime or self.realtime is not None):
            self.start_s = min(self.sim_time_s, leading_stamp_ns(self.serialized["ground_truth"][-1]) * 1e-9)
        if self.start_s is not None and self.sim_time_s >= self._next_cmd_s:
            self._next_cmd_s = self.sim_time_s + COMMAND_PERIOD_S
            self._cmd.publish(self._twist(self.scenario.command_at(self.scenario_time_s)))
        while self.start_s is not None and self._pending_pushes and \
                self._pending_pushes[0].start_s <= self.scenario_time_s:
            self._send_push(self._pending_pushes.pop(0))

    def _send_push(self, push) -> None:
        from rclpy.serialization import deserialize_message
        from biped_common.rotations import quats_yaw
        from biped_common.state import Push
        pose = deserialize_message(self.serialized["ground_truth"][-1], self._types["ground_truth"]).pose.pose
        q = pose.orientation
        yaw = float(quats_yaw(np.array([[q.w, q.x, q.y, q.z]]))[0])
        end_s = self.start_s + push.end_s
        self._push_pub.publish(conv.push_message(Push(push.body or self.robot.description.base_body,
                                                      push.force_world_n(yaw), np.zeros(3),
                                                      end_s - push.duration_s, push.duration_s)))

    @property
    def scenario_time_s(self) -> float:
        return self.sim_time_s - self.start_s if self.start_s is not None else -1.0

    def _on_diagnostics(self, msg) -> None:
        self.timing.update(conv.timing_from_status(msg))
        self.realtime = conv.realtime_from_status(msg) or self.realtime
        self.robot_pace = conv.robot_pace_from_status(msg) or self.robot_pace

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


def realtime_metrics(tally: dict[str, float] | None, cpu_percent: dict[str, float]) -> dict:
    """The ``realtime`` block of a DDS run's metrics: the bridge's tally
    (:class:`sim_bridge.realtime_monitor.RealtimeSummary`, from the simulation's start to its last
    report) — ``sim_over_wall``, ``watchdog_trips``, ``deadline_misses`` (count, fraction, frames),
    ``latency_ms`` (p50, p99, max; frame publication to command arrival at the bridge),
    ``late_ticks``, ``skipped_s`` — and ``cpu_percent``, each launched process's CPU time over the
    run's wall time (% of one core)."""
    if tally is None:
        return {"error": "the bridge reported no real-time tally", "cpu_percent": cpu_percent}
    frames = int(tally["frames"])
    return {"sim_over_wall": tally["sim_over_wall"], "watchdog_trips": int(tally["watchdog_trips"]),
            "deadline_misses": {"count": int(tally["deadline_misses"]),
                                "fraction": tally["deadline_misses"] / frames if frames else None, "frames": frames},
            "latency_ms": {"p50": tally["latency_p50_ms"], "p99": tally["latency_p99_ms"], "max": tally["latency_max_ms"]},
            "late_ticks": int(tally["late_ticks"]), "skipped_s": tally["skipped_s"],
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
                          state_source: str = "estimator", composed: bool = True, realtime: bool = False,
                          realtime_priority: int = 0, hardware: bool = False, actions=(), launch_args=()):
    """Walk ``scenario`` through the launch file; returns a :class:`biped_stack.scenario.WalkResult`.
    With ``state_source="estimator"`` the controllers read the estimator's /odom and the bridge
    runs MEMS-level sensors (``config/sim_mems.yaml``). ``realtime``: the bridge runs on the wall
    clock (nothing waits for the controllers) and the metrics gain a ``realtime`` block
    (:func:`realtime_metrics`); the scenario's commands are played by sim time, which then runs
    with the wall clock. ``realtime_priority``: the launch argument (SCHED_FIFO for the bridge and
    the control process; 0 = the default scheduler). ``hardware``: ``launch/hardware.launch.xml``
    instead — the bridge's ros2_control backend against MuJoCo posing as a ros2_control robot
    (MEMS sensors, its truth on ``/robot/ground_truth/odom``), in real time, on the estimator; the
    ``realtime`` block's ``sim_over_wall`` is then the mock robot's own pace (the bridge sees a
    robot's stamps, which are wall time by definition). ``actions``: (scenario time [s],
    call(now_s)) pairs — at that time each ``call`` starts in a thread of its own (the run goes on
    meanwhile) and is given ``now_s()``, the scenario time; the run waits for them (at most 60 s)
    before it stops the stack (e.g. a live style edit, :mod:`biped_stack.editor`). ``launch_args``:
    more ``name:=value`` arguments for the launch file (e.g. ``tf:=true``)."""
    from biped_common.resources import launch_file as shipped_launch_file, params_file
    from biped_stack.launcher import stop_process_group
    if scenario.pushes and hardware:
        # Not silently dropped: a robot cannot be pushed by a message.
        raise ConfigError("pushes", f"scenario {scenario.name!r} has pushes: a robot is pushed by hand, not over "
                          f"/push; run it in simulation (without --hardware)")
    robot = load_robot(robot_name)
    domain = int(os.environ.get("ROS_DOMAIN_ID") or random.randrange(100, 200))
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain), PYTHONUNBUFFERED="1")
    env.setdefault("AMENT_PREFIX_PATH", sys.prefix)
    env.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
    os.environ.update({k: env[k] for k in ("ROS_DOMAIN_ID", "AMENT_PREFIX_PATH", "RMW_IMPLEMENTATION")})
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "launch.log"
    if hardware:
        if state_source != "estimator":
            raise ValueError("a ros2_control robot has no ground truth: hardware runs on the estimator")
        realtime = True
        launch_file = shipped_launch_file("hardware.launch.xml")
        command = [sys.executable, "-m", "biped_stack", "launch", str(launch_file), f"robot:={robot_name}",
                   f"style:={style}", f"composed:={str(composed).lower()}", f"realtime_priority:={realtime_priority}"]
    else:
        launch_file = shipped_launch_file("sim.launch.xml")
        command = [sys.executable, "-m", "biped_stack", "launch", str(launch_file), f"robot:={robot_name}",
                   f"style:={style}", f"timing_mode:={'realtime' if realtime else 'lockstep'}",
                   f"state_source:={state_source}", f"composed:={str(composed).lower()}",
                   f"realtime_priority:={realtime_priority}"]
        if state_source == "estimator":
            command.append(f"params_file:={params_file('sim_mems.yaml')}")
    command += list(launch_args)
    progress(f"  starting {launch_file.name} (ROS_DOMAIN_ID {domain}); node output in {log_path}")
    with open(log_path, "w") as log_file:
        launcher = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, env=env,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
    recorder = _Recorder(robot, scenario, domain, realtime=realtime,
                         truth_topic="/robot/ground_truth/odom" if hardware else "/ground_truth/odom")
    nominal = robot.nominal_pelvis_height_m
    fell, fall_reason, fall_time_s = False, "", None
    wall_limit_s = 120.0 + 40.0 * scenario.duration_s
    started = time.monotonic()
    first_clock: tuple[float, float] | None = None
    window: list = [None, None]  # (wall time, process CPU seconds) at the simulation's start and the end
    next_report, next_fall_check = 5.0, 0.0
    pending_actions = sorted(actions, key=lambda a: a[0])
    action_threads: list[threading.Thread] = []
    try:
        while recorder.scenario_time_s < scenario.duration_s:
            while pending_actions and recorder.scenario_time_s >= pending_actions[0][0]:
                call = pending_actions.pop(0)[1]
                action_threads.append(threading.Thread(target=call, args=(lambda: recorder.scenario_time_s,),
                                                       daemon=True))
                action_threads[-1].start()
            if time.monotonic() - started > wall_limit_s:
                raise RuntimeError(f"the stack reached only t = {recorder.sim_time_s:.1f} s of sim time in "
                                   f"{wall_limit_s:.0f} s; see {log_path}")
            if launcher.poll() is not None:
                raise RuntimeError(f"the launcher exited (code {launcher.returncode}); see {log_path}")
            recorder.spin_once()
            if first_clock is None and recorder.sim_time_s > 0:
                first_clock = (recorder.sim_time_s, time.monotonic())
            # CPU from the simulation's start: sim time past zero (lockstep), the bridge's first
            # tally (real time: before it the robot hangs in its gantry).
            if window[0] is None and (recorder.realtime is not None if realtime else recorder.sim_time_s > 0.0):
                window[0] = (time.monotonic(), _cpu_seconds(_launched_pids(log_path)))
            if time.monotonic() >= next_fall_check:
                next_fall_check = time.monotonic() + FALL_CHECK_PERIOD_S
                z = recorder.latest_pelvis_height_m()
                if z is not None and z < FALL_HEIGHT_FRACTION * nominal:
                    fell, fall_reason = True, f"pelvis at {z:.3f} m at t = {recorder.sim_time_s:.2f} s"
                    fall_time_s = recorder.scenario_time_s
                    progress(f"  FELL: {fall_reason}")
                    break
            if recorder.scenario_time_s >= next_report:
                progress(f"  t = {recorder.scenario_time_s:5.1f} / {scenario.duration_s:.0f} s  "
                         f"command {scenario.command_at(recorder.scenario_time_s)}  wall {time.monotonic() - started:.0f} s")
                next_report += 5.0
        wall = time.monotonic() - first_clock[1] if first_clock else float("nan")
        rtf = (recorder.sim_time_s - first_clock[0]) / wall if first_clock else 0.0
        window[1] = (time.monotonic(), _cpu_seconds(_launched_pids(log_path)))
        for thread in action_threads:
            thread.join(timeout=60.0)
        # Let the last diagnostics arrive.
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            recorder.spin_once()
    finally:
        stop_process_group(launcher, grace_s=30.0)
        recorder.finish()
        trace, log = recorder.trace()
        recorder.close()
    arrays = trace.arrays()
    metrics = {
        "robot": robot_name, "style": style, "scenario": scenario.name,
        "mode": f"multi-process over DDS (launch/{launch_file.name}, {'real time' if realtime else 'lockstep'}, "
                f"{'composed' if composed else 'one process per node'})",
        "state_source": state_source,
        "fell": fell, "fall_reason": fall_reason,
        "segments": segment_metrics(scenario, arrays) if not fell else [],
        "pushes": push_metrics(scenario, arrays, fall_time_s),
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
    if realtime:
        cpu = {}
        if window[0] is not None and window[1] is not None:
            (wall0, cpu0), (wall1, cpu1) = window
            cpu = {name: 100.0 * (cpu1[name] - cpu0[name]) / (wall1 - wall0) for name in cpu1 if name in cpu0}
        metrics["realtime"] = realtime_metrics(recorder.realtime, cpu)
        if hardware:
            # The bridge's tally sees the robot's stamps (wall time); the mock robot knows its own pace.
            pace = recorder.robot_pace or {}
            metrics["realtime"]["robot_pace"] = pace
            if "sim_over_wall" in metrics["realtime"]:
                metrics["realtime"]["sim_over_wall"] = pace.get("sim_over_wall", float("nan"))
                metrics["realtime"]["late_ticks"] = int(pace.get("late_ticks", -1))
                metrics["realtime"]["skipped_s"] = pace.get("skipped_s", float("nan"))
        metrics["real_time_factor"] = metrics["realtime"].get("sim_over_wall", metrics["real_time_factor"])
    return WalkResult(metrics, arrays, log, scenario)
