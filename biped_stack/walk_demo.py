"""``biped-stack demo``: walk a teleop scenario in MuJoCo and write a report folder.

In-process (default) the cores run in lockstep in this process (:mod:`biped_stack.walking`);
``--multiprocess`` runs every node as its own process over DDS (:mod:`biped_stack.ros_walk`).
The report: ``metrics.json`` (issue #4's keys), plots (commanded vs achieved velocity, CoM and
CoP vs the support polygon, foot heights, joint torques vs limits, solve times) and, when
offscreen rendering works, ``walk.mp4``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from biped_common.rotations import quat_to_matrix
from biped_stack.lockstep import LockstepSimulation
from biped_stack.scenario import (FALL_HEIGHT_FRACTION, Scenario, Trace, load_scenario, max_foot_slip_m,
                                  segment_metrics)
from biped_stack.walking import WalkingController
from sim_bridge.bridge import BridgeConfig
from state_estimator_node.estimator import StateEstimator
from gait_planner_node.style import load_style

VIDEO_FPS = 30
STATE_SOURCES = ("ground_truth", "estimator")


@dataclass
class WalkResult:
    """A finished run: metrics (the JSON), the trace and the controller's log."""

    metrics: dict
    trace: dict
    log: object
    scenario: Scenario


def run_walk(robot: str, style: str, scenario: Scenario, progress=print, video_path: Path | None = None,
             stop_on_fall: bool = True, state_source: str = "estimator", sensors: str | None = None) -> WalkResult:
    """Walk ``scenario`` in-process (lockstep); progress lines every 5 s of sim time; returns
    metrics and traces. ``state_source``: ``ground_truth`` or ``estimator``; ``sensors``:
    ``ideal`` or ``mems`` (:data:`sim_bridge.bridge.MEMS_SENSORS`; the default with the
    estimator)."""
    if state_source not in STATE_SOURCES:
        raise ValueError(f"state_source must be one of {STATE_SOURCES}, got {state_source!r}")
    sensors = sensors or ("mems" if state_source == "estimator" else "ideal")
    config = BridgeConfig.with_mems_sensors(robot=robot) if sensors == "mems" else BridgeConfig(robot=robot)
    sim = LockstepSimulation(robot, config=config)
    estimator = StateEstimator(sim.robot) if state_source == "estimator" else None
    estimates = []

    def base_state(frame):
        if estimator is None:
            return sim.backend.ground_truth()
        estimate = estimator.update(frame)
        for warning in estimator.status.warnings:
            progress(f"  estimator: {warning}")
        if estimate is not None:
            estimates.append((estimate, sim.backend.ground_truth()))
        return estimate
    controller = WalkingController(sim.robot, load_style(style), base_state, log=progress)
    sim.controller = controller
    model, data = sim.backend.model, sim.backend.data
    sole_sites = {side: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f.sole_site)
                  for side, f in sim.robot.description.feet.items()}
    nominal = sim.robot.nominal_pelvis_height_m
    trace = Trace.empty()
    renderer = _Renderer(model, data, video_path) if video_path else None
    steps = int(round(scenario.duration_s / sim.config.control_period_s))
    fell, fall_reason = False, ""
    started = time.perf_counter()
    next_report = 5.0
    for k in range(steps):
        t = k * sim.config.control_period_s
        controller.set_command(scenario.command_at(t))
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
        if renderer:
            renderer.maybe_capture(record.stamp_s)
        if gt.position_m[2] < FALL_HEIGHT_FRACTION * nominal:
            fell, fall_reason = True, f"pelvis at {gt.position_m[2]:.3f} m (< {FALL_HEIGHT_FRACTION:.0%} of nominal) at t = {t:.2f} s"
        elif k % 10 == 0 and (others := sim.backend.body_contacts_other_than_feet()):
            fell, fall_reason = True, f"{', '.join(others)} touched the ground at t = {t:.2f} s"
        if t >= next_report:
            wall = time.perf_counter() - started
            progress(f"  t = {t:5.1f} / {scenario.duration_s:.0f} s  pelvis ({gt.position_m[0]:+.2f}, "
                     f"{gt.position_m[1]:+.2f}, {gt.position_m[2]:.3f}) m  command {scenario.command_at(t)}  "
                     f"wall {wall:.0f} s")
            next_report += 5.0
        if fell and stop_on_fall:
            progress(f"  FELL: {fall_reason}")
            break
    wall_s = time.perf_counter() - started - (renderer.busy_s if renderer else 0.0)
    if renderer:
        renderer.close()
    arrays = trace.arrays()
    log = controller.log
    metrics = {
        "robot": sim.robot.name, "style": style, "scenario": scenario.name, "mode": "in-process lockstep",
        "state_source": state_source, "sensors": sensors,
        "fell": fell, "fall_reason": fall_reason,
        "segments": segment_metrics(scenario, arrays) if not fell else [],
        "max_foot_slip_m": max_foot_slip_m(arrays),
        # Sim time over the wall time of the control loop (video rendering excluded).
        "real_time_factor": float(arrays["time_s"][-1] / wall_s) if len(arrays["time_s"]) else 0.0,
        "wbc_solve_ms": _percentiles(log.wbc_solve_s), "mpc_solve_ms": _percentiles(log.mpc_solve_s),
        "fallbacks": len(log.fallbacks),
        "min_pelvis_height_m": float(arrays["base_position_m"][:, 2].min()),
        "nominal_pelvis_height_m": nominal,
    }
    if estimator is not None:
        metrics["estimator"] = estimator_metrics(estimates)
    return WalkResult(metrics, arrays, log, scenario)


def estimator_metrics(pairs) -> dict:
    """The estimate against the ground truth over a run ((estimate, truth) BaseState pairs):
    ``roll_pitch_rms_deg`` (RMS over both angles), ``yaw_drift_deg`` (final |yaw error|),
    ``velocity_rms_mps`` (RMS of the 3-D linear velocity error), ``position_drift_ratio`` (final
    horizontal position error / horizontal distance travelled)."""
    if not pairs:
        return {}
    from biped_common.rotations import matrix_to_rpy, quat_to_matrix
    angle_errors, velocity_errors = [], []
    for estimate, truth in pairs:
        relative = quat_to_matrix(truth.orientation_wxyz).T @ quat_to_matrix(estimate.orientation_wxyz)
        angle_errors.append(matrix_to_rpy(relative))
        velocity_errors.append(np.linalg.norm(estimate.linear_velocity_world_m_s - truth.linear_velocity_world_m_s))
    angles = np.degrees(np.array(angle_errors))
    path = np.array([truth.position_m[:2] for _, truth in pairs])
    distance = float(np.sum(np.linalg.norm(np.diff(path, axis=0), axis=1)))
    final_estimate, final_truth = pairs[-1]
    drift = float(np.linalg.norm(final_estimate.position_m[:2] - final_truth.position_m[:2]))
    return {"roll_pitch_rms_deg": float(np.sqrt(np.mean(angles[:, :2] ** 2))),
            "yaw_drift_deg": float(abs(angles[-1, 2])),
            "velocity_rms_mps": float(np.sqrt(np.mean(np.square(velocity_errors)))),
            "position_drift_ratio": drift / distance if distance > 0 else None,
            "distance_travelled_m": distance}


def _percentiles(samples_s) -> dict:
    if not samples_s:
        return {"p50": None, "p99": None}
    ms = np.asarray(samples_s) * 1e3
    return {"p50": float(np.median(ms)), "p99": float(np.percentile(ms, 99))}


class _Renderer:
    """Offscreen MuJoCo frames at :data:`VIDEO_FPS`, tracking the pelvis, into an MP4; silently
    disabled (with one message) where offscreen rendering or ffmpeg is unavailable."""

    def __init__(self, model, data, path: Path):
        self.data, self.path, self.frames, self.next_s = data, path, [], 0.0
        self.busy_s = 0.0  # wall time spent rendering (excluded from the real-time factor)
        try:
            self.renderer = mujoco.Renderer(model, 480, 640)
            self.camera = mujoco.MjvCamera()
            self.camera.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            self.camera.trackbodyid = 1
            self.camera.distance, self.camera.elevation, self.camera.azimuth = 2.2, -15.0, 135.0
        except Exception as error:  # noqa: BLE001 — any GL failure means "no video here"
            print(f"  no video: offscreen rendering unavailable ({error})")
            self.renderer = None

    def maybe_capture(self, now_s: float) -> None:
        if self.renderer is None or now_s < self.next_s:
            return
        started = time.perf_counter()
        self.next_s += 1.0 / VIDEO_FPS
        self.renderer.update_scene(self.data, self.camera)
        self.frames.append(self.renderer.render().copy())
        self.busy_s += time.perf_counter() - started

    def close(self) -> None:
        if self.renderer is None or not self.frames:
            return
        try:
            import imageio.v2 as imageio
            imageio.mimwrite(self.path, self.frames, fps=VIDEO_FPS, macro_block_size=1)
        except Exception as error:  # noqa: BLE001 — a missing encoder only costs the video
            print(f"  no video: could not encode ({error})")


def write_report(result: WalkResult, out_dir: str | Path) -> list[Path]:
    """``metrics.json`` and the plots into ``out_dir``; returns the files written."""
    from biped_stack.walk_plots import plot_all
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(result.metrics, indent=2) + "\n")
    return [out / "metrics.json", *plot_all(result, out)]


def run_demo(robot: str, style: str, scenario_name: str, out_dir: str, multiprocess: bool = False,
             video: bool = True, state_source: str = "estimator") -> int:
    """The ``biped-stack demo`` command: run, report, print the summary; exit 1 on a fall."""
    scenario = load_scenario(scenario_name)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    print(f"walking {robot} ({style}) through '{scenario.name}' ({scenario.duration_s:.0f} s sim time, "
          f"{'multi-process over DDS' if multiprocess else 'in-process lockstep'})", flush=True)
    if multiprocess:
        from biped_stack.ros_walk import run_walk_multiprocess
        result = run_walk_multiprocess(robot, style, scenario, out, state_source=state_source)
    else:
        result = run_walk(robot, style, scenario, progress=lambda m: print(m, flush=True),
                          video_path=out / "walk.mp4" if video else None, state_source=state_source)
    files = write_report(result, out)
    m = result.metrics
    def ms(timing):
        return "n/a" if timing["p50"] is None else f"{timing['p50']:.2f}/{timing['p99']:.2f} ms"
    print(f"fell: {m['fell']}  max foot slip {m['max_foot_slip_m'] * 100:.1f} cm  RTF {m['real_time_factor']:.2f}  "
          f"WBC p50/p99 {ms(m['wbc_solve_ms'])}  MPC p50/p99 {ms(m['mpc_solve_ms'])}")
    for seg in m["segments"]:
        print(f"  {seg['name']:14s} commanded {np.round(seg['commanded'], 3).tolist()}  achieved "
              f"{np.round(seg['achieved'], 3).tolist()}")
    if "estimator" in m:
        print("  estimator vs ground truth: " + ", ".join(f"{k} {v:.4g}" for k, v in m["estimator"].items() if v is not None))
    if (out / "walk.mp4").exists():
        files.append(out / "walk.mp4")
    print("report: " + ", ".join(str(f) for f in files))
    return 1 if m["fell"] else 0
