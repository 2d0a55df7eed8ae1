"""In-process walking stack: gait planner → CoM MPC → walking WBC, wired without ROS.

The same cores the nodes wrap (:class:`GaitPlanner`, :class:`mpc_node.planning.ComPlanner`,
:class:`wbc_node.walking.WalkingWbc`), at the same rates (:mod:`biped_common.rates`): planner
and MPC every ``planner_period_s`` (50 Hz), WBC at every control tick (200 Hz). The base state comes from a
``state_source`` callable: the simulator's ground truth, or :class:`EstimatorInTheLoop` (the state
estimator fed every sensor frame, as its node is over DDS). Messages from the cores go to ``log``
with the sim time, each distinct one at most once per second of sim time. :func:`run_walk` walks a
scenario with all of it in MuJoCo, in lockstep, and returns the metrics and traces.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import mujoco
import numpy as np

from biped_common.rates import CONTROL_RATE_HZ, FOLLOW_CHECK_HZ, PLANNING_RATE_HZ
from biped_common.repeat_filter import RepeatFilter
from biped_common.robot_model import RobotModel
from biped_common.rotations import matrix_to_quat, quat_multiply, quat_to_matrix, quats_yaw
from biped_common.state import BaseState, JointCommand, Push, SensorFrame
from biped_stack.fidelity import style_fidelity
from biped_stack.ghost import PlannedPose
from biped_stack.lockstep import LockstepSimulation
from biped_stack.scenario import (FALL_HEIGHT_FRACTION, Scenario, ScenarioPush, Trace, WalkResult, estimator_metrics,
                                  feedback_metrics,
                                  max_foot_slip_m, push_metrics, segment_metrics, timing_percentiles_ms)
from gait_planner_node.anchor import FollowWatch, SolePose, planner_standing_on, ticks_between_checks
from gait_planner_node.planner import GaitPlanner, PlannerConfig, Pose2, gait_reference
from gait_planner_node.style import Style, load_style
from mpc_node.planning import ComPlanner
from sim_bridge.bridge import BridgeConfig
from state_estimator_node.estimator import StateEstimator
from wbc_node.walking import WalkingWbc
from wbc_node.recovery import ScheduledGains
from wbc_node.wbc import WbcGains

STATE_SOURCES = ("ground_truth", "estimator")


@dataclass
class WalkingLog:
    """Per-tick numbers for metrics and plots (appended by :class:`WalkingController`)."""

    wbc_solve_s: list = field(default_factory=list)   # the QP tick: dynamics, tasks, solve, torques
    mpc_solve_s: list = field(default_factory=list)   # OSQP's solve
    wbc_tick_s: list = field(default_factory=list)    # the whole WBC tick (reference sampling included)
    mpc_tick_s: list = field(default_factory=list)    # the whole MPC tick (CoM, support polygons, solve)
    com: list = field(default_factory=list)          # (t, x, y, z)
    com_plan: list = field(default_factory=list)     # (t, x, y)
    cop_plan: list = field(default_factory=list)     # (t, x, y)
    torques: list = field(default_factory=list)      # (t, τ...)
    fallbacks: list = field(default_factory=list)    # (t, reason)
    stance: list = field(default_factory=list)       # (t, left, right)
    # (t, DCM error x, y [m, body frame], velocity bias x, y [m/s], step offset x, y [m, world],
    # κ_time, stepping) per planner tick
    feedback: list = field(default_factory=list)
    recovery_level: list = field(default_factory=list)  # (t, level) per control tick, with gains scheduled by push


class EstimatorInTheLoop:
    """Base state from the state estimator, updated with every sensor frame (what the estimator
    node does over DDS). With ``ground_truth`` given, keeps (estimate, truth) pairs for
    :func:`biped_stack.scenario.estimator_metrics`; the estimator's warnings go to ``log``."""

    def __init__(self, robot: RobotModel, ground_truth: Callable[[], BaseState] | None = None,
                 log: Callable[[str], None] = print):
        self.estimator = StateEstimator(robot)
        self.pairs: list[tuple[BaseState, BaseState]] = []
        self.last_estimate: BaseState | None = None
        self._ground_truth = ground_truth
        self._log = log

    def __call__(self, frame: SensorFrame) -> BaseState | None:
        estimate = self.last_estimate = self.estimator.update(frame)
        for warning in self.estimator.status.warnings:
            self._log(f"  estimator: {warning}")
        if estimate is not None and self._ground_truth is not None:
            self.pairs.append((estimate, self._ground_truth()))
        return estimate


class WalkingController:
    """Answers each sensor frame with a joint command that walks the planner's reference."""

    def __init__(self, robot: RobotModel, style: Style, state_source: Callable[[SensorFrame], BaseState | None],
                 control_period_s: float = 1.0 / CONTROL_RATE_HZ, planner_period_s: float = 1.0 / PLANNING_RATE_HZ,
                 log: Callable[[str], None] = print, start: Pose2 = Pose2(0.0, 0.0, 0.0),
                 wbc_gains: WbcGains | ScheduledGains | None = None):
        self.robot = robot
        self.state_source = state_source
        self.planner_period_s = planner_period_s
        self._now_s = 0.0
        self._log = RepeatFilter(lambda m: log(f"[{self._now_s:8.3f} s] {m}"), 1.0, clock=lambda: self._now_s)
        self.planner = GaitPlanner(style, PlannerConfig.for_robot(robot), start)
        self.com_planner = ComPlanner(robot, log=self._log)
        self.wbc = WalkingWbc(robot, wbc_gains, control_period_s=control_period_s, log=self._log)
        self._planner_time_s: float | None = None
        self._follow_watch = FollowWatch()  # as the planner node: re-plan when the robot stopped following
        self._follow_every_replans = ticks_between_checks(1.0 / planner_period_s, FOLLOW_CHECK_HZ)
        self._replans = 0
        self._ground_reaction_n: np.ndarray | None = None  # mean over the last planning period
        self._reaction_sum_n, self._reaction_count = np.zeros(3), 0
        self.log = WalkingLog()

    def reach(self, trajectory) -> None:
        """Drive one arm along a :class:`biped_common.joint_trajectory.TimedJointTrajectory` (its
        joints replace the style's upper-body curves for that arm, at sim time)."""
        self.wbc.set_arm_trajectory(trajectory)

    def set_command(self, velocity) -> None:
        """Body-frame velocity command (ẋ, ẏ, ω) [m/s, m/s, rad/s]."""
        self.planner.set_command(velocity)

    def _replan(self, now_s: float, q: np.ndarray, v: np.ndarray) -> None:
        """The planning tick: the gait planner (with its feedback) and the MPC."""
        self.planner.observe_com(*self.robot.com_state(q, v))
        soles = self.robot.sole_poses(q)
        self.planner.observe_soles(soles)
        self.planner.observe_push(self.com_planner.disturbance_m_s2)  # the MPC's estimate of its last tick
        if self._planner_time_s is not None:
            self.planner.step(now_s - self._planner_time_s)
            a = self.planner.adjustment
            self.log.feedback.append((now_s, *a.error_m, *a.velocity_bias, *a.step_offset_m, a.time_scale,
                                      float(a.needs_steps), self.planner.clock_scale))
        self._planner_time_s = now_s
        reference = self.planner.reference()
        self._replans += 1
        if self._replans % self._follow_every_replans == 0:
            soles = {side: SolePose(*pose) for side, pose in soles.items()}
            if (reason := self._follow_watch.left_the_plan(reference, soles)) is not None:
                self._log(f"planner: {reason}: planning again from where it stands")
                self.planner = planner_standing_on(soles, self.planner.style, self.planner.config, self.planner.command)
                reference = self.planner.reference()
        contract = gait_reference(reference, now_s)
        started = time.perf_counter()
        plan = self.com_planner.update(now_s, contract, q, v, self._ground_reaction_n)
        self.log.mpc_tick_s.append(time.perf_counter() - started)
        if self.com_planner.last_result is not None and self.com_planner.last_result.plan is plan:
            self.log.mpc_solve_s.append(self.com_planner.last_result.solve_time_s)
        self.wbc.set_reference(contract)
        if plan is not None:
            self.wbc.set_plan(plan)

    def __call__(self, frame: SensorFrame) -> JointCommand:
        now = self._now_s = frame.stamp_s
        base = self.state_source(frame)
        if base is None:
            self._log("no base state yet: stand controller")
            return self.wbc.stand.command(frame)
        q, v = self.robot.state_from(base, frame.joint_names, frame.position_rad, frame.velocity_rad_s)
        if frame.foot_wrenches:  # the MPC's push estimate wants the mean over its period (impacts are brief)
            self._reaction_sum_n += self.robot.ground_reaction_world_n(q, frame.foot_wrenches)
            self._reaction_count += 1
        if self._planner_time_s is None or now - self._planner_time_s >= self.planner_period_s - 1e-9:
            self._ground_reaction_n = self._reaction_sum_n / self._reaction_count if self._reaction_count else None
            self._reaction_sum_n, self._reaction_count = np.zeros(3), 0
            self._replan(now, q, v)
        started = time.perf_counter()
        command = self.wbc.command(frame, q, v)
        self.log.wbc_tick_s.append(time.perf_counter() - started)
        if self.wbc.recovery is not None:
            self.log.recovery_level.append((frame.stamp_s, self.wbc.recovery_level))
        self._record(now)
        return command

    def _record(self, now: float) -> None:
        out, ref, log = self.wbc.last_output, self.wbc.last_reference, self.log
        if out is None or not out.ok:
            log.fallbacks.append((now, out.status if out is not None else self.wbc.fallback_reason))
        if out is None:
            return
        log.wbc_solve_s.append(out.solve_time_s)
        log.com.append((now, *self.wbc.wbc.data.com[0]))
        plan = self.wbc.plan
        log.com_plan.append((now, *plan.at(now)[0]))
        log.cop_plan.append((now, *plan.cop_at(now)))
        log.stance.append((now, ref.feet["left"].in_stance, ref.feet["right"].in_stance))
        if out.ok:
            log.torques.append((now, *out.torque_nm))


def run_walk(robot: str, style: str, scenario: Scenario, progress=print, video_path: Path | None = None,
             stop_on_fall: bool = True, state_source: str = "estimator", sensors: str | None = None,
             wbc_gains: str | Path | None = None) -> WalkResult:
    """Walk ``scenario`` in-process (lockstep); progress lines every 5 s of sim time; returns
    metrics and traces. ``state_source``: ``ground_truth`` or ``estimator``; ``sensors``:
    ``ideal`` or ``mems`` (:data:`sim_bridge.bridge.MEMS_SENSORS`; the default with the
    estimator); ``wbc_gains``: a WBC gains file (default ``config/wbc.yaml``; e.g.
    ``config/wbc_style_first.yaml``)."""
    if state_source not in STATE_SOURCES:
        raise ValueError(f"state_source must be one of {STATE_SOURCES}, got {state_source!r}")
    gains = ScheduledGains.load(wbc_gains) if wbc_gains else None  # a bad file fails before the simulator starts
    sensors = sensors or ("mems" if state_source == "estimator" else "ideal")
    config = BridgeConfig.with_mems_sensors(robot=robot) if sensors == "mems" else BridgeConfig(robot=robot)
    sim = LockstepSimulation(robot, config=config)
    if state_source == "estimator":
        base_state = EstimatorInTheLoop(sim.robot, ground_truth=sim.backend.ground_truth, log=progress)
    else:
        def base_state(frame: SensorFrame) -> BaseState:
            return sim.backend.ground_truth()
    controller = WalkingController(sim.robot, load_style(style), base_state,
                                   control_period_s=sim.config.control_period_s, log=progress,
                                   wbc_gains=gains)
    sim.controller = controller
    model, data = sim.backend.model, sim.backend.data
    sole_sites = {side: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f.sole_site)
                  for side, f in sim.robot.description.feet.items()}
    nominal = sim.robot.nominal_pelvis_height_m
    upper_names = controller.planner.config.upper_joint_names
    upper_index = np.array([sim.robot.joint_index[n] for n in upper_names], dtype=int)
    upper_qpos = np.array([model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n)]
                           for n in upper_names], dtype=int)
    trace = Trace.empty()
    renderer = _video(model, data, video_path) if video_path else None
    ghost = PlannedPose(sim.robot) if video_path else None
    steps = int(round(scenario.duration_s / sim.config.control_period_s))
    fell, fall_reason, fall_time_s = False, "", None
    started = time.perf_counter()
    next_report = 5.0
    command = None
    pending_pushes = list(scenario.pushes)
    period_s = sim.config.control_period_s
    for k in range(steps):
        t = k * period_s
        if (segment_command := scenario.command_at(t)) != command:  # as /cmd_vel: when it changes
            command = segment_command
            controller.set_command(command)
        while pending_pushes and pending_pushes[0].start_s < t + period_s:  # starts within this period
            _apply_push(sim, pending_pushes.pop(0), progress)
        record = sim.step()
        gt = record.ground_truth
        trace.time_s.append(record.stamp_s)
        trace.base_position_m.append(gt.position_m)
        trace.base_quat_wxyz.append(gt.orientation_wxyz)
        trace.base_velocity_world_m_s.append(gt.linear_velocity_world_m_s)
        trace.base_yaw_rate_rad_s.append(float((quat_to_matrix(gt.orientation_wxyz) @ gt.angular_velocity_base_rad_s)[2]))
        stance = controller.log.stance[-1]
        for i, side in enumerate(("left", "right")):
            trace.sole_position_m[side].append(data.site_xpos[sole_sites[side]].copy())
            wrench = record.frame.foot_wrenches.get(side)
            trace.foot_normal_force_n[side].append(float(wrench.force_n[2]) if wrench is not None else 0.0)
            trace.planned_stance[side].append(bool(stance[1 + i]))
        estimate = base_state.last_estimate if isinstance(base_state, EstimatorInTheLoop) else gt
        to_world, reference = odom_to_world(estimate, gt), controller.wbc.last_reference
        _record_plan(trace, reference, to_world, data, sole_sites, upper_index, upper_qpos)
        if renderer:
            renderer.maybe_capture(record.stamp_s, lambda: ghost.qpos(reference, to_world, gt.position_m)
                                   if reference is not None else None)
        if not fell:  # (stop_on_fall=False: the first fall is the one reported)
            if gt.position_m[2] < FALL_HEIGHT_FRACTION * nominal:
                fell, fall_reason, fall_time_s = True, f"pelvis at {gt.position_m[2]:.3f} m (< {FALL_HEIGHT_FRACTION:.0%} of nominal) at t = {t:.2f} s", t
            elif k % 10 == 0 and (others := sim.backend.body_contacts_other_than_feet()):
                fell, fall_reason, fall_time_s = True, f"{', '.join(others)} touched the ground at t = {t:.2f} s", t
        if t >= next_report:
            wall = time.perf_counter() - started
            progress(f"  t = {t:5.1f} / {scenario.duration_s:.0f} s  pelvis ({gt.position_m[0]:+.2f}, "
                     f"{gt.position_m[1]:+.2f}, {gt.position_m[2]:.3f}) m  command {scenario.command_at(t)}  "
                     f"wall {wall:.0f} s")
            next_report += 5.0
        if fell and fall_time_s == t:
            progress(f"  FELL: {fall_reason}" + ("" if stop_on_fall else " (running on)"))
        if fell and stop_on_fall:
            break
    wall_s = time.perf_counter() - started - (renderer.busy_s if renderer else 0.0)
    if renderer:
        renderer.close()
    arrays = trace.arrays()
    log = controller.log
    metrics = {
        "robot": sim.robot.name, "style": style, "scenario": scenario.name, "mode": "in-process lockstep",
        "state_source": state_source, "sensors": sensors, "wbc_gains": str(wbc_gains or "config/wbc.yaml"),
        "fell": fell, "fall_reason": fall_reason,
        "segments": segment_metrics(scenario, arrays) if not fell else [],
        "pushes": push_metrics(scenario, arrays, fall_time_s),
        "max_foot_slip_m": max_foot_slip_m(arrays),
        "style_fidelity": style_fidelity(scenario, arrays) if not fell else None,
        # Sim time over the wall time of the control loop (video rendering excluded).
        "real_time_factor": float(arrays["time_s"][-1] / wall_s) if len(arrays["time_s"]) else 0.0,
        "wbc_solve_ms": timing_percentiles_ms(log.wbc_solve_s), "mpc_solve_ms": timing_percentiles_ms(log.mpc_solve_s),
        "fallbacks": len(log.fallbacks),
        "min_pelvis_height_m": float(arrays["base_position_m"][:, 2].min()),
        "nominal_pelvis_height_m": nominal,
    }
    if controller.planner.feedback is not None:
        metrics["feedback"] = feedback_metrics(log.feedback, scenario, arrays,
                                               controller.planner.config.feedback.recovered_error_m)
    if controller.wbc.recovery is not None:
        metrics["wbc_recovery"] = recovery_metrics(log.recovery_level)
    if isinstance(base_state, EstimatorInTheLoop):
        metrics["estimator"] = estimator_metrics(base_state.pairs)
    return WalkResult(metrics, arrays, log, scenario)


def recovery_metrics(rows) -> dict:
    """The gain schedule's recovery level over a run (``rows``: (t, level) per control tick):
    its peak, the fraction of the time it was above 0, and that time [s]."""
    rows = np.asarray(rows, dtype=float).reshape(-1, 2)
    times, levels = rows[:, 0], rows[:, 1]
    if levels.size == 0:
        return {"max_level": 0.0, "fraction_recovering": 0.0, "recovering_s": 0.0}
    dt = float(np.median(np.diff(times))) if times.size > 1 else 0.0
    return {"max_level": float(levels.max()), "fraction_recovering": float(np.mean(levels > 0.0)),
            "recovering_s": float(np.sum(levels > 0.0) * dt)}


def odom_to_world(estimate: BaseState | None, truth: BaseState) -> tuple[np.ndarray, np.ndarray]:
    """(R (3, 3), t (3,)) taking a point from the frame the controllers plan in (the state
    estimate's) into the world: the estimate's drift in position and yaw, p_world = R p + t
    (identity without an estimate)."""
    if estimate is None:
        return np.eye(3), np.zeros(3)
    yaw = float(quats_yaw(np.array([truth.orientation_wxyz]))[0] - quats_yaw(np.array([estimate.orientation_wxyz]))[0])
    c, s = np.cos(yaw), np.sin(yaw)
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return rotation, np.asarray(truth.position_m) - rotation @ np.asarray(estimate.position_m)


def _record_plan(trace: Trace, reference, odom_to_world_rt, data, sole_sites: dict[str, int], upper_index: np.ndarray,
                 upper_qpos: np.ndarray) -> None:
    """Append the WBC's reference of this tick (NaN before it has one), taken into the world
    frame by ``odom_to_world_rt`` (:func:`odom_to_world`: the fidelity is the robot's, not the
    estimator's drift), and the achieved sole orientations and upper-body joints it is compared
    with (:mod:`biped_stack.fidelity`)."""
    rotation, translation = odom_to_world_rt
    turn = matrix_to_quat(rotation)
    for side, site in sole_sites.items():
        quat = np.empty(4)
        mujoco.mju_mat2Quat(quat, data.site_xmat[site])
        trace.sole_quat_wxyz[side].append(quat)
        foot = reference.feet[side] if reference is not None else None
        trace.planned_sole_position_m[side].append(rotation @ foot.position_m + translation if foot else np.full(3, np.nan))
        trace.planned_sole_quat_wxyz[side].append(quat_multiply(turn, foot.quat_wxyz) if foot else np.full(4, np.nan))
    trace.planned_pelvis_height_m.append(reference.pelvis_height_m + translation[2] if reference is not None else np.nan)
    trace.upper_joints_rad.append(data.qpos[upper_qpos].copy())
    trace.planned_upper_joints_rad.append(reference.joint_posture_rad[upper_index].copy() if reference is not None
                                          else np.full(upper_index.size, np.nan))


def _apply_push(sim: LockstepSimulation, push: ScenarioPush, progress) -> None:
    """Hand a scenario's push to the simulation, its force in world axes (a heading-frame force
    turned by the robot's heading now, at the push's start)."""
    yaw = float(quats_yaw(np.asarray(sim.backend.ground_truth().orientation_wxyz)[None])[0])
    force, body = push.force_world_n(yaw), push.body or sim.robot.description.base_body
    sim.bridge.push(Push(body, force, np.zeros(3), push.start_s, push.duration_s))
    progress(f"  push at t = {push.start_s:.2f} s for {push.duration_s:g} s: ({force[0]:+.1f}, {force[1]:+.1f}, "
             f"{force[2]:+.1f}) N (world) on {body}")


def _video(model, data, path: Path):
    from biped_stack.video import WalkVideo  # imageio and the GL context only when a video is asked for
    return WalkVideo(model, data, path)
