"""Teleop scenarios (time → cmd_vel) and the walking metrics computed over them.

A scenario file (``config/scenarios/teleop.yaml``) is a list of segments, each a name, a duration
[s] and a body-frame velocity (ẋ [m/s], ẏ [m/s], ω [rad/s]). The metrics are the issue's: per
segment the commanded and achieved steady-state mean velocity (the second half of the segment,
body frame), the largest horizontal slip of a loaded stance foot, falls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biped_common.config import as_float, as_mapping, as_str, load_yaml_mapping, reject_unknown_keys, require
from biped_common.errors import ConfigError
from biped_common.resources import scenarios_dir
from biped_common.rotations import matrix_to_rpy, quat_to_matrix, quats_yaw

STEADY_FRACTION = 0.5          # steady state: the second half of each segment
LOADED_FOOT_N = 20.0           # a stance foot carrying at least this normal force is "loaded"
FALL_HEIGHT_FRACTION = 0.6     # a pelvis below 60 % of nominal is a fall


@dataclass(frozen=True)
class Segment:
    name: str
    duration_s: float
    velocity: tuple[float, float, float]


@dataclass(frozen=True)
class Scenario:
    name: str
    segments: tuple[Segment, ...]

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
    reject_unknown_keys(data, {"name", "speed_scale", "segments"}, "")
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
    return Scenario(as_str(data.get("name", path.stem), "name"), tuple(segments))


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
