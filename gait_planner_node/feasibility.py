"""What a style may ask of a robot's accelerations (issue #18), checked and enforced at load.

The whole-body controller now feeds the reference's accelerations forward, so a style's curves
are asked for as drawn: a 6 cm swing apex in bouncy's 0.18 s swing is ≈ 80 m/s² at the sole, and
its pelvis dips at 0.4 m/s need ±14 m/s² — more than gravity can pull the pelvis down with (the
feet cannot pull on the ground), and enough swing-leg reaction to topple the lighter biped (it did,
at 0.3 m/s). Like the timing bounds, these limits are the style's, not a robot's:

- the stylized swing offsets (height, forward, lateral; the swing phase s = t / T_swing) may ask
  at most :data:`MAX_SWING_ACCELERATION_M_S2` of the sole: |(h'', f'', l'')(s)| / T_swing²;
- the pelvis height curve (over the cycle through the phase map) at most
  :data:`MAX_PELVIS_VERTICAL_ACCELERATION_M_S2` up or down.

A key sample that asks more has those curves scaled down uniformly (shape and timing kept; the
pelvis height about its mean knot) until it asks exactly the limit; each scaling is reported with its reason
(:attr:`gait_planner_node.style.Style.limited`), printed by ``biped-stack style check`` and logged
by the planner node when it loads the style.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gait_planner_node.curves import CycleCurve, SwingCurve
from gait_planner_node.timing import GaitTiming, PhaseMap

MAX_SWING_ACCELERATION_M_S2 = 40.0
MAX_PELVIS_VERTICAL_ACCELERATION_M_S2 = 4.0  # ≈ 0.4 g: the feet keep ≥ 60 % of the weight
_SWING_PHASES = np.linspace(0.0, 1.0, 401)
_CYCLE_SAMPLES = 800
SCALED_CURVES = ("height_m", "forward_m", "lateral_m")


def swing_peak_acceleration_m_s2(swing, swing_s: float) -> float:
    """Peak |acceleration| [m/s²] the stylized swing offsets of one foot (a
    :class:`gait_planner_node.style.SwingStyle`) ask of the sole over a swing of ``swing_s`` [s]."""
    second = np.stack([getattr(swing, name)(_SWING_PHASES, 2) for name in SCALED_CURVES])
    return float(np.sqrt((second**2).sum(axis=0)).max()) / swing_s**2


def pelvis_peak_vertical_acceleration_m_s2(height: CycleCurve, timing: GaitTiming) -> float:
    """Peak |z̈| [m/s²] of the pelvis height curve over one cycle of ``timing`` (the curve is in
    cycle phase; the phase map Ω⁻¹ takes time to phase), by central differences on a periodic
    time grid."""
    cycle = timing.cycle_s
    dt = cycle / _CYCLE_SAMPLES
    z = height(PhaseMap(timing).phase(np.arange(_CYCLE_SAMPLES) * dt))
    return float(np.abs(np.roll(z, -1) - 2.0 * z + np.roll(z, 1)).max()) / dt**2


def _scaled_swing(swing, factor: float):
    return replace(swing, **{name: SwingCurve(curve.phases, tuple(factor * v for v in curve.values))
                             for name in SCALED_CURVES for curve in (getattr(swing, name),)})


def limit_sample(key: str, sample):
    """A :class:`gait_planner_node.style.GaitSample` within the acceleration limits, and the
    reasons (strings naming the field) for each curve group it scaled."""
    reasons = []
    t = sample.timing
    swings = {}
    for side, swing_s in (("left", t.left_swing_s), ("right", t.right_swing_s)):
        swing = getattr(sample, f"{side}_swing")
        peak = swing_peak_acceleration_m_s2(swing, swing_s)
        if peak > MAX_SWING_ACCELERATION_M_S2:
            factor = MAX_SWING_ACCELERATION_M_S2 / peak
            swing = _scaled_swing(swing, factor)
            reasons.append(f"samples.{key}.{side}_swing: asks {peak:.0f} m/s² of the sole in its {swing_s:.2f} s swing "
                           f"(limit {MAX_SWING_ACCELERATION_M_S2:g}): height/forward/lateral scaled by {factor:.2f}")
        swings[f"{side}_swing"] = swing
    pelvis = sample.pelvis
    peak = pelvis_peak_vertical_acceleration_m_s2(pelvis.height_m, t)
    if peak > MAX_PELVIS_VERTICAL_ACCELERATION_M_S2:
        factor = MAX_PELVIS_VERTICAL_ACCELERATION_M_S2 / peak
        # About its mean knot: the bob shrinks, the crouch it bobs about stays.
        values = np.asarray(pelvis.height_m.values, dtype=float)
        mean = float(values.mean())
        pelvis = replace(pelvis, height_m=CycleCurve(pelvis.height_m.phases,
                                                     tuple(float(v) for v in mean + factor * (values - mean))))
        reasons.append(f"samples.{key}.pelvis.height_m: asks {peak:.1f} m/s² of the pelvis over its {t.cycle_s:.2f} s "
                       f"cycle (limit {MAX_PELVIS_VERTICAL_ACCELERATION_M_S2:g}): bob scaled by {factor:.2f} about "
                       f"{mean * 100:+.1f} cm")
    return replace(sample, pelvis=pelvis, **swings), reasons
