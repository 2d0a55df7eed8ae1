"""Teleop scenarios (time → cmd_vel, and pushes) and the walking metrics computed over them.

A scenario file (``config/scenarios/teleop.yaml``) is a list of segments, each a name, a duration
[s] and a body-frame velocity (ẋ [m/s], ẏ [m/s], ω [rad/s]), and optionally a list of pushes
(``config/scenarios/pushes.yaml``): a force on a body's centre of mass for a while. The metrics
are the issue's: per segment the commanded and achieved steady-state mean velocity (the second
half of the segment, body frame), the largest horizontal slip of a loaded stance foot, falls;
per push whether the robot survived it and when it had the commanded velocity back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biped_common.config import as_float, as_mapping, as_str, load_yaml_mapping, reject_unknown_keys, require
from biped_common.errors import ConfigError
from biped_common.resources import scenarios_dir
from biped_common.rotations import matrix_to_rpy, quat_to_matrix, quats_yaw
from biped_common.state import PUSH_MAX_DURATION_S, PUSH_MAX_FORCE_N

STEADY_FRACTION = 0.5          # steady state: the second half of each segment
PUSH_FRAMES = ("heading", "world")
RECOVERY_WINDOW_S = 2.0        # the commanded velocity is back when the mean over this long is near it
RECOVERY_TOLERANCE_M_S = 0.05  # (issue #16 bar 3)
RECOVERY_WITHIN_S = 3.0
LOADED_FOOT_N = 20.0           # a stance foot carrying at least this normal force is "loaded"
FALL_HEIGHT_FRACTION = 0.6     # a pelvis below 60 % of nominal is a fall


@dataclass(frozen=True)
class Segment:
    name: str
    duration_s: float
    velocity: tuple[float, float, float]


@dataclass(frozen=True)
class ScenarioPush:
    """A force ``force_n`` [N] on ``body``'s centre of mass (None: the robot's base body) from
    ``start_s`` for ``duration_s`` [s, scenario time]. ``frame`` "heading": the force's axes are
    the robot's heading frame at the push's start (x forward, y left, z up); "world": world axes."""

    start_s: float
    duration_s: float
    force_n: tuple[float, float, float]
    body: str | None = None
    frame: str = "heading"

    def __post_init__(self):
        if self.frame not in PUSH_FRAMES:
            raise ValueError(f"push frame must be one of {PUSH_FRAMES}, got {self.frame!r}")

    def force_world_n(self, heading_yaw_rad: float) -> np.ndarray:
        """The force in world axes [N], the robot's heading being ``heading_yaw_rad`` [rad]."""
        fx, fy, fz = self.force_n
        if self.frame == "world":
            return np.array([fx, fy, fz])
        c, s = np.cos(heading_yaw_rad), np.sin(heading_yaw_rad)
        return np.array([c * fx - s * fy, s * fx + c * fy, fz])

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class Scenario:
    name: str
    segments: tuple[Segment, ...]
    pushes: tuple[ScenarioPush, ...] = ()

    @property
    def duration_s(self) -> float:
        return float(sum(s.duration_s for s in self.segments))

    def command_at(self, time_s: float) -> tuple[float, float, float]:
        """The commanded velocity at ``time_s`` (the last segment's after the end)."""
        t = 0.0
        for segment in self.segments:
            t += segment.duration_s
            if time_s < t:
                return segment.velocity
        return self.segments[-1].velocity

    def windows(self) -> list[tuple[Segment, float, float]]:
        """Per segment its steady-state window (start, end) [s]."""
        out, t = [], 0.0
        for segment in self.segments:
            out.append((segment, t + STEADY_FRACTION * segment.duration_s, t + segment.duration_s))
            t += segment.duration_s
        return out


def load_scenario(name_or_path: str = "teleop") -> Scenario:
    """A shipped scenario by name, or a file. ConfigError naming the field on bad input."""
    path = Path(name_or_path)
    if not path.suffix:
        path = scenarios_dir() / f"{name_or_path}.yaml"
    data = load_yaml_mapping(path)
    reject_unknown_keys(data, {"name", "speed_scale", "segments", "pushes"}, "")
    scale = as_float(data.get("speed_scale", 1.0), "speed_scale", 0.01, 10.0)
    raw = require(data, "segments", "")
    if not isinstance(raw, list) or not raw:
        raise ConfigError("segments", "must be a non-empty list")
    segments = []
    for i, item in enumerate(raw):
        field = f"segments[{i}]"
        item = as_mapping(item, field)
        reject_unknown_keys(item, {"name", "duration_s", "velocity"}, field)
        velocity = require(item, "velocity", field)
        if not isinstance(velocity, list) or len(velocity) != 3:
            raise ConfigError(f"{field}.velocity", "must be [vx, vy, wz]")
        segments.append(Segment(as_str(require(item, "name", field), f"{field}.name"),
                                as_float(require(item, "duration_s", field), f"{field}.duration_s", 0.1, 600.0),
                                tuple(scale * as_float(v, f"{field}.velocity[{k}]", -5.0, 5.0)
                                      for k, v in enumerate(velocity))))
    duration_s = sum(segment.duration_s for segment in segments)
    pushes = _load_pushes(data.get("pushes", []), duration_s)
    return Scenario(as_str(data.get("name", path.stem), "name"), tuple(segments), pushes)


def _load_pushes(raw, duration_s: float) -> tuple[ScenarioPush, ...]:
    """The ``pushes:`` list of a scenario file (ConfigError naming the field), by start time."""
    if not isinstance(raw, list):
        raise ConfigError("pushes", "must be a list")
    pushes = []
    for i, item in enumerate(raw):
        field = f"pushes[{i}]"
        item = as_mapping(item, field)
        reject_unknown_keys(item, {"start_s", "duration_s", "force_n", "body", "frame"}, field)
        force = require(item, "force_n", field)
        if not isinstance(force, list) or len(force) != 3:
            raise ConfigError(f"{field}.force_n", "must be [fx, fy, fz] [N]")
        force_n = tuple(as_float(f, f"{field}.force_n[{k}]", -PUSH_MAX_FORCE_N, PUSH_MAX_FORCE_N)
                        for k, f in enumerate(force))
        frame = as_str(item.get("frame", "heading"), f"{field}.frame")
        if frame not in PUSH_FRAMES:
            raise ConfigError(f"{field}.frame", f"must be one of {', '.join(PUSH_FRAMES)}, got {frame!r}")
        body = item.get("body")
        pushes.append(ScenarioPush(as_float(require(item, "start_s", field), f"{field}.start_s", 0.0, duration_s),
                                   as_float(require(item, "duration_s", field), f"{field}.duration_s", 1e-3, PUSH_MAX_DURATION_S),
                                   force_n, None if body is None else as_str(body, f"{field}.body"), frame))
    return tuple(sorted(pushes, key=lambda p: p.start_s))


@dataclass
class Trace:
    """What a walking run records each control period (ground truth; world frame)."""

    time_s: list
    base_position_m: list
    base_quat_wxyz: list
    base_velocity_world_m_s: list
    base_yaw_rate_rad_s: list
    sole_position_m: dict
    foot_normal_force_n: dict
    planned_stance: dict
    # The WBC's reference at each record and what it is compared with (biped_stack.fidelity);
    # empty when a run records no plan. NaN rows: no reference yet.
    sole_quat_wxyz: dict = dataclasses.field(default_factory=lambda: {"left": [], "right": []})
    planned_sole_position_m: dict = dataclasses.field(default_factory=lambda: {"left": [], "right": []})
    planned_sole_quat_wxyz: dict = dataclasses.field(default_factory=lambda: {"left": [], "right": []})
    planned_pelvis_height_m: list = dataclasses.field(default_factory=list)
    upper_joints_rad: list = dataclasses.field(default_factory=list)
    planned_upper_joints_rad: list = dataclasses.field(default_factory=list)

    @classmethod
    def empty(cls) -> "Trace":
        return cls([], [], [], [], [], {"left": [], "right": []}, {"left": [], "right": []},
                   {"left": [], "right": []})

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"time_s": np.array(self.time_s), "base_position_m": np.array(self.base_position_m),
               "base_quat_wxyz": np.array(self.base_quat_wxyz),
               "base_velocity_world_m_s": np.array(self.base_velocity_world_m_s),
               "base_yaw_rate_rad_s": np.array(self.base_yaw_rate_rad_s)}
        for side in ("left", "right"):
            out[f"{side}_sole_position_m"] = np.array(self.sole_position_m[side])
            out[f"{side}_normal_force_n"] = np.array(self.foot_normal_force_n[side])
            out[f"{side}_planned_stance"] = np.array(self.planned_stance[side], dtype=bool)
        if self.planned_pelvis_height_m:
            out["planned_pelvis_height_m"] = np.array(self.planned_pelvis_height_m)
            n = len(self.planned_pelvis_height_m)
            out["upper_joints_rad"] = np.array(self.upper_joints_rad).reshape(n, -1)
            out["planned_upper_joints_rad"] = np.array(self.planned_upper_joints_rad).reshape(n, -1)
            for side in ("left", "right"):
                out[f"{side}_sole_quat_wxyz"] = np.array(self.sole_quat_wxyz[side])
                out[f"{side}_planned_sole_position_m"] = np.array(self.planned_sole_position_m[side])
                out[f"{side}_planned_sole_quat_wxyz"] = np.array(self.planned_sole_quat_wxyz[side])
        return out


def body_velocity(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Per record (vx, vy) in the heading frame [m/s] and yaw rate [rad/s] (N, 3)."""
    yaw = quats_yaw(arrays["base_quat_wxyz"])
    v = arrays["base_velocity_world_m_s"]
    c, s = np.cos(yaw), np.sin(yaw)
    return np.column_stack([c * v[:, 0] + s * v[:, 1], -s * v[:, 0] + c * v[:, 1], arrays["base_yaw_rate_rad_s"]])


def time_mean(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Time-weighted mean of samples (N,) or (N, k) at increasing times t (N,) (trapezoid rule):
    unlike the sample mean it is not biased where samples are missing (a recorder over DDS may
    drop frames, and bouncy sways sideways at ±0.15 m/s, so a gap at one phase shifts a plain
    mean). A single sample is its own mean."""
    if t.size == 1:
        return np.asarray(values[0], dtype=float)
    return np.trapezoid(values, t, axis=0) / (t[-1] - t[0])


def segment_metrics(scenario: Scenario, arrays: dict[str, np.ndarray]) -> list[dict]:
    """Commanded and achieved steady-state mean body velocity per segment (time-weighted)."""
    t = arrays["time_s"]
    velocity = body_velocity(arrays)
    out = []
    for segment, start, end in scenario.windows():
        window = (t >= start) & (t < end)
        achieved = time_mean(t[window], velocity[window]) if window.any() else np.full(3, np.nan)
        out.append({"name": segment.name, "commanded": [float(v) for v in segment.velocity],
                    "achieved": [float(v) for v in achieved],
                    "window_s": [float(start), float(end)]})
    return out


def push_metrics(scenario: Scenario, arrays: dict[str, np.ndarray], fall_time_s: float | None) -> list[dict]:
    """Per push of ``scenario``: the force (heading axes at the push's start, world axes), its
    impulse [N·s], whether the robot survived it (no fall from its start to the next push's start
    or the record's end — a fall is the latest push's; None when it fell before the push), the largest horizontal velocity error [m/s, heading frame] from its start to
    :data:`RECOVERY_WITHIN_S` after its end, and ``regained_after_s``: the time from its end until
    the mean velocity over the next :data:`RECOVERY_WINDOW_S` is within
    :data:`RECOVERY_TOLERANCE_M_S` of the command (issue #16 bar 3; None if not within the run),
    and ``step_period_ratio``: the mean step interval over that window to the one over the same
    time before the push (:func:`step_period_ratio`; bar 3's "style back": within 5 %)."""
    t = arrays["time_s"]
    velocity = body_velocity(arrays)
    commanded = np.array([scenario.command_at(x) for x in t]) if t.size else np.zeros((0, 3))
    touch_downs = touch_downs_s(arrays) if "left_planned_stance" in arrays else None
    out = []
    for i, push in enumerate(scenario.pushes):
        next_start_s = scenario.pushes[i + 1].start_s if i + 1 < len(scenario.pushes) else np.inf
        if fall_time_s is None or fall_time_s >= next_start_s:
            survived = True
        else:
            survived = None if fall_time_s < push.start_s else False
        entry = {"start_s": push.start_s, "duration_s": push.duration_s, "force_n": list(push.force_n),
                 "frame": push.frame, "body": push.body, "impulse_n_s": float(np.linalg.norm(push.force_n)) * push.duration_s,
                 "survived": survived, "peak_velocity_error_m_s": None, "regained_after_s": None,
                 "step_period_ratio": None}
        around = (t >= push.start_s) & (t <= push.end_s + RECOVERY_WITHIN_S)
        if around.any():
            error = np.linalg.norm(velocity[around, :2] - commanded[around, :2], axis=1)
            entry["peak_velocity_error_m_s"] = float(error.max())
        if survived:
            entry["regained_after_s"] = regained = _regained_after_s(t, velocity, commanded, push.end_s)
            if regained is not None and touch_downs is not None:
                back_s = push.end_s + regained
                entry["step_period_ratio"] = step_period_ratio(
                    touch_downs, (push.start_s - RECOVERY_WINDOW_S, push.start_s),
                    (back_s, back_s + RECOVERY_WINDOW_S))
        out.append(entry)
    return out


FEEDBACK_COLUMNS = ("t_s", "error_x_m", "error_y_m", "velocity_bias_x_m_s", "velocity_bias_y_m_s",
                    "step_offset_x_m", "step_offset_y_m", "time_scale", "stepping", "clock_scale")
RECOVERED_FOR_S = 0.5  # the DCM error back within the step dead-band this long: recovered


def feedback_metrics(rows: np.ndarray, scenario: Scenario, arrays: dict[str, np.ndarray],
                     recovered_error_m: float) -> dict:
    """The gait feedback over a run (``rows``: one per planner tick, columns
    :data:`FEEDBACK_COLUMNS`; body-frame error and bias, world-frame offsets): RMS of each
    adjustment over the run (issue #16 bar 4: near zero without pushes) and, per push, the peak
    DCM error, step offset, velocity bias, κ_time range and the gait clock's κ range (κ_time, or
    the step timing's in a swing it adapts) from its start to
    :data:`RECOVERY_WITHIN_S` after its end, and ``steps_to_recover``: touch-downs from its
    start until the DCM error has stayed below ``recovered_error_m`` for
    :data:`RECOVERED_FOR_S` (None if it did not within that window)."""
    rows = np.asarray(rows, dtype=float).reshape(-1, len(FEEDBACK_COLUMNS))
    if rows.shape[0] == 0:
        return {}
    t, error, bias, offset, kappa, clock = rows[:, 0], rows[:, 1:3], rows[:, 3:5], rows[:, 5:7], rows[:, 7], rows[:, 9]

    def rms(x):  # of a vector's norm (N, k), or of a scalar (N,)
        return float(np.sqrt(np.mean(x**2 if x.ndim == 1 else np.sum(x**2, axis=1))))
    out = {"rms_dcm_error_m": rms(error), "rms_velocity_bias_m_s": rms(bias), "rms_step_offset_m": rms(offset),
           "rms_time_scale_minus_1": rms(kappa - 1.0), "rms_clock_scale_minus_1": rms(clock - 1.0),
           "peak_step_offset_m": float(np.linalg.norm(offset, axis=1).max()),
           "stepping_fraction": float(rows[:, 8].mean()), "pushes": []}
    touch_downs = touch_downs_s(arrays)
    for push in scenario.pushes:
        window = (t >= push.start_s) & (t <= push.end_s + RECOVERY_WITHIN_S)
        if not window.any():
            out["pushes"].append(None)
            continue
        size = np.linalg.norm(error, axis=1)
        recovered_s = None
        low_since = None
        for time_s, value in zip(t[window], size[window]):
            if value >= recovered_error_m or time_s < push.end_s:
                low_since = None
            elif low_since is None:
                low_since = time_s
            elif time_s - low_since >= RECOVERED_FOR_S:
                recovered_s = low_since
                break
        out["pushes"].append({
            "peak_dcm_error_m": float(size[window].max()),
            "peak_step_offset_m": float(np.linalg.norm(offset[window], axis=1).max()),
            "peak_velocity_bias_m_s": float(np.linalg.norm(bias[window], axis=1).max()),
            "time_scale_range": [float(kappa[window].min()), float(kappa[window].max())],
            "clock_scale_range": [float(clock[window].min()), float(clock[window].max())],
            "steps_to_recover": None if recovered_s is None else
            int(np.count_nonzero((touch_downs >= push.start_s) & (touch_downs <= recovered_s)))})
    return out


def touch_downs_s(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Times [s] at which either foot's planned stance begins (unsorted)."""
    if arrays["time_s"].size < 2:
        return np.zeros(0)
    return np.concatenate([arrays["time_s"][1:][np.diff(arrays[f"{side}_planned_stance"].astype(int)) > 0]
                           for side in ("left", "right")])


def step_period_ratio(touch_downs_s: np.ndarray, before_s: tuple[float, float],
                      after_s: tuple[float, float]) -> float | None:
    """The mean interval between touch-downs (either foot) within ``after_s`` over that within
    ``before_s`` (time windows [s]): 1 when a recovered gait steps at its unpushed timing (issue
    #16 bar 3: within 5 %). None when a window holds fewer than two touch-downs (standing)."""
    def mean_interval(window):
        inside = np.sort(touch_downs_s[(touch_downs_s >= window[0]) & (touch_downs_s <= window[1])])
        return float(np.mean(np.diff(inside))) if inside.size >= 2 else None
    before, after = mean_interval(before_s), mean_interval(after_s)
    return None if before is None or after is None else after / before


def _regained_after_s(t: np.ndarray, velocity: np.ndarray, commanded: np.ndarray, from_s: float) -> float | None:
    """The first delay d ≥ 0 [s] (on the record's grid) after ``from_s`` whose following window of
    :data:`RECOVERY_WINDOW_S` has its time-mean horizontal velocity within tolerance of a command
    that does not change inside it; None if there is none within the record."""
    if t.size < 2:
        return None
    steps = np.diff(t)[:, None] * 0.5 * (velocity[1:, :2] + velocity[:-1, :2])
    integral = np.vstack([np.zeros((1, 2)), np.cumsum(steps, axis=0)])  # trapezoid, as time_mean
    changes = np.concatenate([[0], np.cumsum(np.any(np.diff(commanded[:, :2], axis=0) != 0.0, axis=1))])
    last = np.searchsorted(t, t + RECOVERY_WINDOW_S, side="left") - 1  # the window's last sample
    for k in np.flatnonzero(t >= from_s):
        j = last[k]
        if t[k] + RECOVERY_WINDOW_S > t[-1] + 1e-9:
            return None  # the record ends before a whole window
        if j <= k or changes[j] != changes[k]:
            continue
        mean = (integral[j] - integral[k]) / (t[j] - t[k])
        if np.linalg.norm(mean - commanded[k, :2]) <= RECOVERY_TOLERANCE_M_S:
            return float(t[k] - from_s)
    return None


def max_foot_slip_m(arrays: dict[str, np.ndarray]) -> float:
    """Largest horizontal displacement [m] of a sole from where it was when its current loaded
    stance began (stance: planned stance and normal force ≥ :data:`LOADED_FOOT_N`)."""
    worst = 0.0
    for side in ("left", "right"):
        loaded = arrays[f"{side}_planned_stance"] & (arrays[f"{side}_normal_force_n"] >= LOADED_FOOT_N)
        position = arrays[f"{side}_sole_position_m"][:, :2]
        anchor = None
        for k in range(loaded.size):
            if not loaded[k]:
                anchor = None
                continue
            if anchor is None:
                anchor = position[k]
            worst = max(worst, float(np.linalg.norm(position[k] - anchor)))
    return worst


@dataclass
class WalkResult:
    """A finished run: metrics (the JSON), the trace and the controller's log."""

    metrics: dict
    trace: dict
    log: object
    scenario: Scenario



def estimator_metrics(pairs) -> dict:
    """The estimate against the ground truth over a run ((estimate, truth) BaseState pairs):
    ``roll_pitch_rms_deg`` (RMS over both angles), ``yaw_drift_deg`` (final |yaw error|),
    ``velocity_rms_mps`` (RMS of the 3-D linear velocity error), ``position_drift_ratio`` (final
    horizontal position error / horizontal distance travelled)."""
    if not pairs:
        return {}
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


def timing_percentiles_ms(samples_s) -> dict:
    """Median and 99th percentile [ms] of durations [s]; ``None`` for both when there are none."""
    if not samples_s:
        return {"p50": None, "p99": None}
    ms = np.asarray(samples_s) * 1e3
    return {"p50": float(np.median(ms)), "p99": float(np.percentile(ms, 99))}
