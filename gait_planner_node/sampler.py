"""Gait sampler (source 004): a style's nine key-velocity samples blended at any velocity.

Three stages, every ratio passed through f_soft(α) = −2α³ + 3α² so the parameters are C¹ across
sample regions: (1) blend the forward/backward samples by ẋ; (2) blend the turn/sidestep samples
in normalized polar coordinates of (ẏ, ω), fading to the in-place sample at the origin; (3) blend
the two by their normalized norms. All stages are convex, so the result is one convex combination
of the nine samples: timing and attributes blend linearly (keeping every bound and the event
order), curves blend point-wise in phase on the blended cycle's phase map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from gait_planner_node.curves import CurveTable
from gait_planner_node.style import Attributes, SAMPLE_KEYS, Style
from gait_planner_node.timing import GaitTiming, PhaseMap

FORWARD_AXIS = ("backward_fast", "backward_slow", "in_place", "forward_slow", "forward_fast")


def f_soft(alpha):
    """−2α³ + 3α² on α clipped to [0, 1]: zero slope at both ends (004)."""
    if isinstance(alpha, float):
        a = min(max(alpha, 0.0), 1.0)
    else:
        a = np.minimum(np.maximum(alpha, 0.0), 1.0)
    return -2.0 * a**3 + 3.0 * a**2


def _velocity_limits(style: Style) -> tuple[tuple[float, float], ...]:
    s = style.samples
    return ((s["backward_fast"].velocity[0], s["forward_fast"].velocity[0]),
            (s["sidestep_right"].velocity[1], s["sidestep_left"].velocity[1]),
            (s["turn_right"].velocity[2], s["turn_left"].velocity[2]))


def clamp_velocity(style: Style, velocity) -> np.ndarray:
    """The velocity clipped to the style's key-velocity ranges, per component (the blend's guard)."""
    return np.array([min(max(float(x), low), high) for x, (low, high) in zip(velocity, _velocity_limits(style))])


def command_in_range(style: Style, velocity) -> np.ndarray:
    """A velocity command within the style's range: each component clipped to its key velocities,
    then the whole scaled down, direction kept, into the convex hull of the six extreme samples
    (|ẋ|/ẋ_max + |ẏ|/ẏ_max + |ω|/ω_max ≤ 1, each normalized by the key velocity on its side).
    Single-axis commands are only clipped; several axes at their limits at once — a gait no sample
    was designed for (the biped fell walking (0.4, 0.15, 0.6)) — are scaled to the hull's boundary.
    (Applied to the command, before the planner's smoothing filter, so the blend stays C¹.)"""
    limits = _velocity_limits(style)
    clipped = clamp_velocity(style, velocity)
    norm = sum(x / high if x > 0 else (x / low if x < 0 else 0.0) for x, (low, high) in zip(clipped, limits))
    return clipped / norm if norm > 1.0 else clipped


def sample_weights(style: Style, velocity) -> dict[str, float]:
    """Weights (≥ 0, summing to 1) of the nine samples at ``velocity`` (clamped to the style)."""
    return _weights_in_range(style, *clamp_velocity(style, velocity).tolist())


def _weights_in_range(style: Style, vx: float, vy: float, wz: float) -> dict[str, float]:
    """:func:`sample_weights` of a velocity already within the style's key-velocity ranges."""
    s = style.samples
    weights = dict.fromkeys(SAMPLE_KEYS, 0.0)

    # Stage 1: along ẋ between neighbouring forward/backward samples.
    keys_x = [s[k].velocity[0] for k in FORWARD_AXIS]
    i = min(max(int(np.searchsorted(keys_x, vx, side="right")) - 1, 0), len(keys_x) - 2)
    alpha = float(f_soft((vx - keys_x[i]) / (keys_x[i + 1] - keys_x[i])))
    stage_x = {FORWARD_AXIS[i]: 1.0 - alpha, FORWARD_AXIS[i + 1]: alpha}

    # Stage 2: (ẏ, ω) normalized by their key velocities, blended by polar angle.
    u = vy / (s["sidestep_left"].velocity[1] if vy >= 0 else -s["sidestep_right"].velocity[1])
    w = wz / (s["turn_left"].velocity[2] if wz >= 0 else -s["turn_right"].velocity[2])
    radius = min(1.0, math.hypot(u, w))
    stage_ts = {"in_place": 1.0}
    if radius > 0.0:
        angle = math.atan2(w, u)
        ring = ("sidestep_left", "turn_left", "sidestep_right", "turn_right", "sidestep_left")
        angle = angle % (2 * math.pi)
        quadrant = min(int(angle // (math.pi / 2)), 3)
        a = float(f_soft((angle - quadrant * math.pi / 2) / (math.pi / 2)))
        r = float(f_soft(radius))
        stage_ts = {"in_place": 1.0 - r}
        for key, weight in ((ring[quadrant], (1 - a) * r), (ring[quadrant + 1], a * r)):
            stage_ts[key] = stage_ts.get(key, 0.0) + weight

    # Stage 3: by the norms of the two normalized velocity parts.
    norm_x = vx / s["forward_fast"].velocity[0] if vx >= 0 else vx / s["backward_fast"].velocity[0]
    total = radius + abs(norm_x)
    beta = float(f_soft(radius / total)) if total > 0 else 0.0
    for key, weight in stage_x.items():
        weights[key] += (1.0 - beta) * weight
    for key, weight in stage_ts.items():
        weights[key] += beta * weight
    return weights


SWING_CURVES = ("forward_m", "lateral_m", "height_m", "yaw_rad", "roll_rad")
PELVIS_CURVES = ("height_m", "roll_rad", "pitch_rad", "yaw_rad")


@dataclass(frozen=True)
class StyleTables:
    """Each sample's curves tabulated on common breakpoints (see :class:`CurveTable`): the two
    feet's swing curves in one table (columns :data:`SWING_CURVES` for the left foot, then for the
    right), and the cycle curves (columns :data:`PELVIS_CURVES` then ``upper_joints``); plus the
    samples' timings and attributes as matrices. Rows / entries in :data:`SAMPLE_KEYS` order."""

    feet_swing: dict[str, CurveTable]   # sample key → table
    cycle: dict[str, CurveTable]        # sample key → table
    upper_joints: tuple[str, ...]
    timing_values: np.ndarray     # (samples, 4): GaitTiming fields in order
    attribute_values: np.ndarray  # (samples, attributes): Attributes fields in order

    def blended(self, weights: np.ndarray) -> tuple[CurveTable, CurveTable]:
        """The feet's swing table and the cycle table for weights over :data:`SAMPLE_KEYS` (one
        matrix product per table: the coefficients are stacked once per style)."""
        stacks = self.__dict__.get("_stacks")
        if stacks is None:
            stacks = [(by_key[SAMPLE_KEYS[0]].breakpoints, np.stack([by_key[k].coefficients for k in SAMPLE_KEYS]))
                      for by_key in (self.feet_swing, self.cycle)]
            object.__setattr__(self, "_stacks", stacks)
        feet, cycle = (CurveTable(breakpoints, (weights @ stack.reshape(len(SAMPLE_KEYS), -1)).reshape(stack.shape[1:]))
                       for breakpoints, stack in stacks)
        return feet, cycle

    @classmethod
    def of(cls, style: Style) -> "StyleTables":
        cached = style.__dict__.get("_tables")
        if cached is None:
            cached = cls._build(style)
            object.__setattr__(style, "_tables", cached)
        return cached

    @classmethod
    def _build(cls, style: Style) -> "StyleTables":
        from gait_planner_node.curves import CycleCurve, union_breakpoints
        samples = style.samples
        groups = {k: [getattr(getattr(s, f"{side}_swing"), n) for side in ("left", "right") for n in SWING_CURVES]
                  for k, s in samples.items()}
        points = union_breakpoints(*(c.phases for g in groups.values() for c in g))
        feet_swing = {k: CurveTable.tabulate(g, points) for k, g in groups.items()}
        joints = tuple(sorted(set().union(*(s.upper_body for s in samples.values()))))
        groups = {k: [getattr(s.pelvis, n) for n in PELVIS_CURVES]
                  + [s.upper_body.get(j, CycleCurve()) for j in joints] for k, s in samples.items()}
        points = union_breakpoints(*(c.phases for g in groups.values() for c in g))
        cycle = {k: CurveTable.tabulate(g, points) for k, g in groups.items()}
        timing = np.array([[getattr(samples[k].timing, f.name) for f in fields(GaitTiming)] for k in SAMPLE_KEYS])
        attributes = np.array([[getattr(samples[k].attributes, f.name) for f in fields(Attributes)]
                               for k in SAMPLE_KEYS])
        return cls(feet_swing, cycle, joints, timing, attributes)


@dataclass(frozen=True)
class BlendedGait:
    """The gait at one velocity: the sample weights, blended timing, attributes and phase map, and
    the blended curve tables (curves blended point-wise in phase)."""

    velocity: np.ndarray
    weights: dict[str, float]
    timing: GaitTiming
    attributes: Attributes
    phase_map: PhaseMap
    feet_swing: CurveTable        # columns SWING_CURVES (left foot), then SWING_CURVES (right) over the swing phase
    cycle: CurveTable             # columns PELVIS_CURVES + upper_joints over the cycle phase
    upper_joints: tuple[str, ...]


def blend(style: Style, velocity) -> BlendedGait:
    """The style's gait at ``velocity`` (clamped to the style's key-velocity ranges)."""
    clamped = clamp_velocity(style, velocity)
    weights = _weights_in_range(style, *clamped.tolist())
    tables = StyleTables.of(style)
    w = np.array([weights[k] for k in SAMPLE_KEYS])
    w /= w.sum()
    # Timing and attributes are convex combinations of the samples' (one product each with the
    # per-style matrices): every bound and the event order are kept.
    timing = GaitTiming(*(w @ tables.timing_values).tolist())
    attributes = Attributes(*(w @ tables.attribute_values).tolist())
    feet_swing, cycle = tables.blended(w)
    used = {k: float(x) for k, x in zip(SAMPLE_KEYS, w) if x > 1e-12}
    return BlendedGait(clamped, used, timing, attributes, PhaseMap(timing),
                       feet_swing, cycle, tables.upper_joints)
