"""Gait styles as data (source 004): nine key-velocity samples, each a timing, attributes and
function curves; loaded from YAML and validated field by field.

A style file (see ``config/styles/*.yaml``)::

    name: neutral
    description: free text
    defaults: {timing: …, attributes: …, swing: …, pelvis: …, upper_body: …}
    samples:
      forward_fast: {velocity: [0.35, 0, 0], timing: {left_swing_s: 0.3}}   # overrides defaults
      …                                                                      # all nine keys

Every sample is ``defaults`` deep-merged with its own entries (``swing`` sets both feet;
``left_swing``/``right_swing`` one foot). Bounds are in the dataclasses below; the timing's
interval parameterization (:mod:`gait_planner_node.timing`) and the curve shapes
(:mod:`gait_planner_node.curves`) make event-order violations and ground penetration
unrepresentable. Units: m, s, rad; velocity = (ẋ [m/s], ẏ [m/s], ω [rad/s]) in the body frame.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from biped_common.config import as_float, bounded, dataclass_from_mapping, load_yaml_mapping
from biped_common.errors import BipedStackError, ConfigError
from biped_common.resources import styles_dir
from gait_planner_node.curves import CycleCurve, SwingCurve
from gait_planner_node.feasibility import limit_sample
from gait_planner_node.timing import GaitTiming

# The nine key velocities of 004 and the axis each one spans.
SAMPLE_KEYS = ("forward_fast", "forward_slow", "in_place", "backward_slow", "backward_fast",
               "sidestep_left", "sidestep_right", "turn_left", "turn_right")


class StyleError(BipedStackError):
    """A style file with one or more invalid fields; ``errors`` lists them all."""

    def __init__(self, source: str, errors: list[ConfigError]):
        self.source = source
        self.errors = errors
        lines = "\n".join(f"  {e}" for e in errors)
        super().__init__(f"{source}: {len(errors)} error(s)\n{lines}")


@dataclass(frozen=True)
class Attributes:
    """Constant properties of a sample."""

    stance_width_m: float = bounded(0.06, 0.40, "m", "lateral distance between the sole centres")
    splay_rad: float = bounded(-0.4, 0.4, "rad", "toe-out of both feet (negative: toe-in)")
    foot_offset_x_m: float = bounded(-0.08, 0.08, "m", "fore/aft offset of the feet from the body")
    heel_strike_pitch_rad: float = bounded(-math.pi / 2, 0.0, "rad", "ψ_heel at touch-down (toes up)")
    toe_off_pitch_rad: float = bounded(0.0, math.pi / 2, "rad", "ψ_toe at lift-off (heel up)")
    heel_rolldown_fraction: float = bounded(0.0, 0.5, "", "Δt_ψTD as a fraction of the stance")
    toe_rollup_fraction: float = bounded(0.0, 0.5, "", "Δt_ψLO as a fraction of the stance")


# Bounds of the knot values of each curve (a curve never leaves its knots' range).
SWING_CURVE_BOUNDS = {"height_m": (0.0, 0.25), "forward_m": (-0.10, 0.10), "lateral_m": (-0.10, 0.10),
                      "yaw_rad": (-0.5, 0.5), "roll_rad": (-0.3, 0.3)}
PELVIS_CURVE_BOUNDS = {"height_m": (-0.15, 0.05), "roll_rad": (-0.35, 0.35), "pitch_rad": (-0.35, 0.35),
                       "yaw_rad": (-0.35, 0.35)}
UPPER_BODY_BOUNDS = (-1.5, 1.5)


@dataclass(frozen=True)
class SwingStyle:
    """One foot's stylized offsets during its swing, in the nominal foot frame: height (up),
    forward, lateral (outward), yaw θ (toe-out) and roll γ (outward tilt, about the sole edge)."""

    height_m: SwingCurve = SwingCurve()
    forward_m: SwingCurve = SwingCurve()
    lateral_m: SwingCurve = SwingCurve()
    yaw_rad: SwingCurve = SwingCurve()
    roll_rad: SwingCurve = SwingCurve()


@dataclass(frozen=True)
class PelvisStyle:
    """Pelvis offsets over the cycle: height added to the nominal height, and roll/pitch/yaw
    composed after the nominal heading."""

    height_m: CycleCurve = CycleCurve()
    roll_rad: CycleCurve = CycleCurve()
    pitch_rad: CycleCurve = CycleCurve()
    yaw_rad: CycleCurve = CycleCurve()


@dataclass(frozen=True)
class GaitSample:
    """The gait at one key velocity."""

    velocity: tuple[float, float, float]
    timing: GaitTiming
    attributes: Attributes
    left_swing: SwingStyle
    right_swing: SwingStyle
    pelvis: PelvisStyle
    upper_body: dict[str, CycleCurve]


@dataclass(frozen=True)
class Style:
    """A named set of the nine key-velocity samples."""

    name: str
    description: str
    samples: dict[str, GaitSample]
    source: str = ""
    # What loading scaled to keep the style within the acceleration limits, with the reason
    # (gait_planner_node.feasibility); empty when the file asks nothing beyond them.
    limited: tuple[str, ...] = ()

    def key_velocity(self, key: str) -> np.ndarray:
        return np.asarray(self.samples[key].velocity, dtype=float)

    def summary(self) -> str:
        """One line: name, velocity ranges and cycle periods."""
        fwd, bwd = self.samples["forward_fast"], self.samples["backward_fast"]
        periods = [s.timing.cycle_s for s in self.samples.values()]
        return (f"style {self.name!r}: ẋ ∈ [{bwd.velocity[0]:.2f}, {fwd.velocity[0]:.2f}] m/s, "
                f"ẏ ∈ [{self.samples['sidestep_right'].velocity[1]:.2f}, "
                f"{self.samples['sidestep_left'].velocity[1]:.2f}] m/s, "
                f"ω ∈ [{self.samples['turn_right'].velocity[2]:.2f}, {self.samples['turn_left'].velocity[2]:.2f}] rad/s, "
                f"cycle {min(periods):.2f}–{max(periods):.2f} s")


# -- loading ------------------------------------------------------------------------------------
def _merge(base: Any, override: Any) -> Any:
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(override)


def merged_sample_data(data: Mapping, key: str) -> dict:
    """Sample ``key`` of a parsed style file as the loader reads it: ``defaults`` deep-merged with
    the sample's own entries (plain data, unvalidated)."""
    defaults = data.get("defaults") if isinstance(data.get("defaults"), Mapping) else {}
    samples = data.get("samples") if isinstance(data.get("samples"), Mapping) else {}
    entry = samples.get(key) or {}
    return _merge(defaults, entry if isinstance(entry, Mapping) else {})


def _knots(data: Any, path: str, bounds: tuple[float, float], errors: list) -> tuple[tuple, tuple] | None:
    if data is None:
        return (), ()
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        data = [[0.0, data]]
    if not isinstance(data, list):
        errors.append(ConfigError(path, f"must be a list of [phase, value] pairs, got {data!r}"))
        return None
    phases, values = [], []
    for i, pair in enumerate(data):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            errors.append(ConfigError(f"{path}[{i}]", f"must be a [phase, value] pair, got {pair!r}"))
            return None
        try:
            phases.append(as_float(pair[0], f"{path}[{i}].phase", 0.0, 1.0))
            values.append(as_float(pair[1], f"{path}[{i}].value", *bounds))
        except ConfigError as exc:
            errors.append(exc)
            return None
    return tuple(phases), tuple(values)


def _curve_group(cls, curve_type, data: Any, path: str, bounds: dict, errors: list):
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        errors.append(ConfigError(path, "must be a mapping"))
        return None
    for key in sorted(set(data) - set(bounds)):
        errors.append(ConfigError(f"{path}.{key}", f"unknown curve (allowed: {', '.join(bounds)})"))
    curves = {}
    for name, limits in bounds.items():
        knots = _knots(data.get(name), f"{path}.{name}", limits, errors)
        if knots is None:
            continue
        try:
            curves[name] = curve_type(*knots)
        except ValueError as exc:
            errors.append(ConfigError(f"{path}.{name}", str(exc)))
    return cls(**curves) if len(curves) == len(bounds) else None


def _velocity(data: Any, path: str, errors: list) -> tuple[float, float, float] | None:
    if not (isinstance(data, list) and len(data) == 3):
        errors.append(ConfigError(path, f"must be [vx m/s, vy m/s, wz rad/s], got {data!r}"))
        return None
    try:
        return tuple(as_float(v, f"{path}[{i}]", -3.0, 3.0) for i, v in enumerate(data))
    except ConfigError as exc:
        errors.append(exc)
        return None


def _sample(data: Mapping, path: str, errors: list) -> GaitSample | None:
    allowed = {"velocity", "timing", "attributes", "swing", "left_swing", "right_swing", "pelvis", "upper_body"}
    for key in sorted(set(data) - allowed):
        errors.append(ConfigError(f"{path}.{key}", f"unknown key (allowed: {', '.join(sorted(allowed))})"))
    start = len(errors)
    velocity = _velocity(data.get("velocity"), f"{path}.velocity", errors)
    timing = dataclass_from_mapping(GaitTiming, data.get("timing"), f"{path}.timing", errors) \
        if isinstance(data.get("timing"), Mapping) else None
    if not isinstance(data.get("timing"), Mapping):
        errors.append(ConfigError(f"{path}.timing", "is required (a mapping)"))
    attributes = dataclass_from_mapping(Attributes, data.get("attributes", {}), f"{path}.attributes", errors)
    swing = data.get("swing") or {}
    feet = {side: _curve_group(SwingStyle, SwingCurve, _merge(swing, data.get(f"{side}_swing") or {}),
                               f"{path}.{side}_swing", SWING_CURVE_BOUNDS, errors)
            for side in ("left", "right")}
    pelvis = _curve_group(PelvisStyle, CycleCurve, data.get("pelvis"), f"{path}.pelvis", PELVIS_CURVE_BOUNDS, errors)
    upper = {}
    upper_data = data.get("upper_body") or {}
    if not isinstance(upper_data, Mapping):
        errors.append(ConfigError(f"{path}.upper_body", "must be a mapping of joint name → knots"))
        upper_data = {}
    for joint, knots_data in upper_data.items():
        knots = _knots(knots_data, f"{path}.upper_body.{joint}", UPPER_BODY_BOUNDS, errors)
        if knots is not None:
            try:
                upper[joint] = CycleCurve(*knots)
            except ValueError as exc:
                errors.append(ConfigError(f"{path}.upper_body.{joint}", str(exc)))
    if len(errors) > start:
        return None
    return GaitSample(velocity, timing, attributes, feet["left"], feet["right"], pelvis, upper)


def _check_key_velocities(velocities: dict[str, tuple], errors: list) -> None:
    """Each key velocity lies on its own axis, on its side, fast beyond slow (checked even when
    other parts of a sample are invalid, so the user sees these errors too)."""
    axis = {"forward_fast": (0, +1), "forward_slow": (0, +1), "backward_slow": (0, -1), "backward_fast": (0, -1),
            "sidestep_left": (1, +1), "sidestep_right": (1, -1), "turn_left": (2, +1), "turn_right": (2, -1)}
    for key, velocity in velocities.items():
        v = np.asarray(velocity)
        field = f"samples.{key}.velocity"
        if key == "in_place":
            if np.any(v != 0.0):
                errors.append(ConfigError(field, "must be [0, 0, 0]"))
            continue
        i, sign = axis[key]
        others = np.delete(v, i)
        if np.any(others != 0.0) or sign * v[i] < 0.05:
            errors.append(ConfigError(field, f"must be non-zero only in component {i}, with sign "
                                             f"{'+' if sign > 0 else '-'} and magnitude ≥ 0.05, got {list(v)}"))
    for fast, slow in (("forward_fast", "forward_slow"), ("backward_fast", "backward_slow")):
        if fast in velocities and slow in velocities and abs(velocities[fast][0]) <= abs(velocities[slow][0]):
            errors.append(ConfigError(f"samples.{fast}.velocity", f"must be faster than {slow}"))


def _defined(data: Any, path: list[str]) -> bool:
    for key in path:
        if not isinstance(data, Mapping) or key not in data:
            return False
        data = data[key]
    return True


def _attribute_to_defaults(errors: list[ConfigError], defaults: Mapping, samples_data: Mapping) -> list[ConfigError]:
    """An error in a value a sample inherits from ``defaults`` is reported once, as
    ``defaults.<field>``, instead of once per sample."""
    out, seen = [], set()
    for error in errors:
        parts = error.field.split(".")
        if len(parts) > 2 and parts[0] == "samples":
            sub = [p.split("[")[0] for p in parts[2:]]
            own = samples_data.get(parts[1]) if isinstance(samples_data, Mapping) else None
            if not _defined(own, sub) and _defined(defaults, sub):
                message = str(error).split(": ", 1)[1] if ": " in str(error) else str(error)
                error = ConfigError(".".join(["defaults", *parts[2:]]), message)
        key = (error.field, str(error))
        if key not in seen:
            seen.add(key)
            out.append(error)
    return out


def style_from_mapping(data: Mapping, source: str = "<style>") -> Style:
    """Validate a parsed style; StyleError listing every invalid field."""
    errors: list[ConfigError] = []
    for key in sorted(set(data) - {"name", "description", "defaults", "samples"}):
        errors.append(ConfigError(key, "unknown key (allowed: defaults, description, name, samples)"))
    name = data.get("name")
    if not isinstance(name, str) or not name:
        errors.append(ConfigError("name", "is required (a non-empty string)"))
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        errors.append(ConfigError("defaults", "must be a mapping"))
        defaults = {}
    samples_data = data.get("samples")
    samples, velocities = {}, {}
    if not isinstance(samples_data, Mapping):
        errors.append(ConfigError("samples", "is required (a mapping of the nine key samples)"))
        samples_data = {}
    for key in sorted(set(samples_data) - set(SAMPLE_KEYS)):
        errors.append(ConfigError(f"samples.{key}", f"unknown sample (the nine are: {', '.join(SAMPLE_KEYS)})"))
    for key in SAMPLE_KEYS:
        if key not in samples_data:
            errors.append(ConfigError(f"samples.{key}", "is required"))
            continue
        entry = samples_data[key] or {}
        if not isinstance(entry, Mapping):
            errors.append(ConfigError(f"samples.{key}", "must be a mapping"))
            continue
        merged = _merge(defaults, entry)
        sample = _sample(merged, f"samples.{key}", errors)
        if sample is not None:
            samples[key] = sample
        velocity = _velocity(merged.get("velocity"), "", [])
        if velocity is not None:
            velocities[key] = velocity
    _check_key_velocities(velocities, errors)
    if errors:
        raise StyleError(source, _attribute_to_defaults(errors, defaults, samples_data))
    limited = []
    for key in SAMPLE_KEYS:
        samples[key], reasons = limit_sample(key, samples[key])
        limited += reasons
    return Style(name, str(data.get("description", "")), samples, source, tuple(limited))


def load_style(name_or_path: str | Path) -> Style:
    """A shipped style by name (``config/styles/<name>.yaml``) or a style file by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = styles_dir() / f"{name_or_path}.yaml"
        if not path.exists():
            raise StyleError(str(name_or_path), [ConfigError("name", f"no shipped style {str(name_or_path)!r} "
                                                            f"(shipped: {', '.join(shipped_styles())})")])
    try:
        data = load_yaml_mapping(path)
    except ConfigError as exc:
        raise StyleError(str(path), [exc]) from exc
    return style_from_mapping(data, str(path))


def shipped_styles() -> list[str]:
    """Names of the shipped styles (``config/styles`` of the package's share files)."""
    return sorted(p.stem for p in styles_dir().glob("*.yaml"))
