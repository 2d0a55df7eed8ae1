"""Gait timing (source 004): the two-step cycle's contact events and the phase map Ω.

A cycle starts at a right touch-down (phase 0) and ends at the next one (phase 1). Its four
intervals are parameters, each bounded below, so the event order
t_LLO < t_LTD < t_RLO < t_RTD < t_LLO + T_S holds for every representable (and every convexly
blended) timing — an infeasible timing cannot be written down:

    double support  [0, t_LLO)       = double_support_after_right_s
    left swing      [t_LLO, t_LTD)   = left_swing_s            (right foot in single support)
    double support  [t_LTD, t_RLO)   = double_support_after_left_s
    right swing     [t_RLO, T_S)     = right_swing_s           (left foot in single support)

The phase map Ω: φ ∈ [0, 1] → t ∈ [0, T_S] sends the five events (right touch-down, left
lift-off, left touch-down, right lift-off, right touch-down) to the phases 0, 0.1, 0.5, 0.6, 1
(004): a typical walk — double support about a tenth of the cycle per step — then has phase
roughly proportional to time. It is a periodic monotone cubic Hermite interpolant (Fritsch–Butland
slopes), hence invertible and C¹ also across the cycle boundary, so a reference defined in phase
has a continuous time derivative everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from biped_common.config import bounded

EVENT_PHASES = np.array([0.0, 0.1, 0.5, 0.6, 1.0])
EVENT_PHASES_LIST = EVENT_PHASES.tolist()
_TABLE_PHASE = np.linspace(0.0, 1.0, 257)  # dense enough that Newton needs ≤ 2 steps
_TABLE_SEGMENT = np.minimum(np.searchsorted(EVENT_PHASES, _TABLE_PHASE, side="right") - 1, 3)
_TABLE_U = _TABLE_PHASE - EVENT_PHASES[_TABLE_SEGMENT]
MIN_SINGLE_SUPPORT_S = 0.15   # a swing shorter than this is a hop, not a step
MIN_DOUBLE_SUPPORT_S = 0.02   # walking keeps both feet down for a moment
MAX_INTERVAL_S = 2.0


@dataclass(frozen=True)
class GaitTiming:
    """The four intervals of a two-step cycle [s] (see module docstring)."""

    double_support_after_right_s: float = bounded(MIN_DOUBLE_SUPPORT_S, MAX_INTERVAL_S, "s", "right touch-down → left lift-off")
    left_swing_s: float = bounded(MIN_SINGLE_SUPPORT_S, MAX_INTERVAL_S, "s", "left foot in the air")
    double_support_after_left_s: float = bounded(MIN_DOUBLE_SUPPORT_S, MAX_INTERVAL_S, "s", "left touch-down → right lift-off")
    right_swing_s: float = bounded(MIN_SINGLE_SUPPORT_S, MAX_INTERVAL_S, "s", "right foot in the air")

    def __post_init__(self):
        for name, low in (("left_swing_s", MIN_SINGLE_SUPPORT_S), ("right_swing_s", MIN_SINGLE_SUPPORT_S),
                          ("double_support_after_left_s", MIN_DOUBLE_SUPPORT_S),
                          ("double_support_after_right_s", MIN_DOUBLE_SUPPORT_S)):
            value = getattr(self, name)
            if not (math.isfinite(value) and low - 1e-12 <= value <= MAX_INTERVAL_S):
                raise ValueError(f"{name} must be in [{low}, {MAX_INTERVAL_S}] s, got {value}")

    @property
    def cycle_s(self) -> float:
        """Two-step cycle duration T_S [s] (derived, never stored)."""
        return (self.double_support_after_right_s + self.left_swing_s + self.double_support_after_left_s
                + self.right_swing_s)

    def event_times_s(self) -> np.ndarray:
        """[0 (right touch-down), t_LLO, t_LTD, t_RLO, T_S (right touch-down)] [s] in the cycle."""
        return np.cumsum([0.0, self.double_support_after_right_s, self.left_swing_s,
                          self.double_support_after_left_s, self.right_swing_s])

    @staticmethod
    def blend(timings, weights) -> "GaitTiming":
        """Convex combination (weights ≥ 0 summing to 1): keeps every bound and the event order."""
        w = np.asarray(weights, dtype=float)
        names = ("double_support_after_right_s", "left_swing_s", "double_support_after_left_s", "right_swing_s")
        values = np.array([[getattr(t, n) for n in names] for t in timings])
        return GaitTiming(**dict(zip(names, w @ values)))


class PhaseMap:
    """Ω and Ω⁻¹ for one timing; vectorized over numpy arrays."""

    def __init__(self, timing: GaitTiming):
        self.timing = timing
        times = timing.event_times_s().tolist()
        self.cycle_s = times[-1]
        self._times = np.array(times)
        # Plain floats on the four segments: this runs at every re-blend, so it is kept cheap.
        h = [EVENT_PHASES_LIST[k + 1] - EVENT_PHASES_LIST[k] for k in range(4)]
        secants = [(times[k + 1] - times[k]) / h[k] for k in range(4)]
        # Fritsch–Butland weighted harmonic mean of neighbouring secants; the cycle wraps, so the
        # slope at φ = 0 and φ = 1 uses the last and first segments (C¹ across cycles).
        slopes = []
        for k in range(4):
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            slopes.append((w1 + w2) / (w1 / secants[k - 1] + w2 / secants[k]))
        slopes.append(slopes[0])
        # Per segment, Ω(φ_k + u) = c0 + c1 u + c2 u² + c3 u³ (the Hermite cubic in power form).
        poly = [[], [], [], []]
        for k in range(4):
            t0, t1, m0, m1 = times[k], times[k + 1], slopes[k], slopes[k + 1]
            poly[0].append(t0)
            poly[1].append(m0)
            poly[2].append((3 * (t1 - t0) / h[k] - 2 * m0 - m1) / h[k])
            poly[3].append((m0 + m1 - 2 * (t1 - t0) / h[k]) / (h[k] * h[k]))
        self._poly = np.array(poly)
        # A dense table of Ω for the inverse's starting point (a few Newton steps then suffice).
        c = self._poly[:, _TABLE_SEGMENT]
        self._table_time = ((c[3] * _TABLE_U + c[2]) * _TABLE_U + c[1]) * _TABLE_U + c[0]
        self._table_phase = _TABLE_PHASE

    def _segment(self, phase: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(np.searchsorted(EVENT_PHASES, phase, side="right") - 1, 0), 3)

    def time_s(self, phase) -> np.ndarray:
        """Ω(φ): time in the cycle [s] of phase φ ∈ [0, 1]."""
        phase = np.asarray(phase, dtype=float)
        k = self._segment(phase)
        u = phase - EVENT_PHASES[k]
        c = self._poly[:, k]
        return ((c[3] * u + c[2]) * u + c[1]) * u + c[0]

    def rate(self, phase) -> np.ndarray:
        """dΩ/dφ [s per unit phase] (> 0)."""
        phase = np.asarray(phase, dtype=float)
        k = self._segment(phase)
        u = phase - EVENT_PHASES[k]
        c = self._poly[:, k]
        return (3 * c[3] * u + 2 * c[2]) * u + c[1]

    def phase(self, time_s) -> np.ndarray:
        """Ω⁻¹(t): phase of a time in the cycle, t wrapped into [0, T_S)."""
        t = np.mod(np.asarray(time_s, dtype=float), self.cycle_s)
        k = np.minimum(np.maximum(np.searchsorted(self._times, t, side="right") - 1, 0), 3)
        lo, hi = EVENT_PHASES[k], EVENT_PHASES[k + 1]
        c0, c1, c2, c3 = self._poly[:, k]
        u = np.interp(t, self._table_time, self._table_phase) - lo
        for _ in range(30):  # safeguarded Newton on a monotone cubic; converges in a few steps
            error = ((c3 * u + c2) * u + c1) * u + c0 - t
            if np.all(np.abs(error) < 1e-13):
                break
            u = np.minimum(np.maximum(u - error / ((3 * c3 * u + 2 * c2) * u + c1), 0.0), hi - lo)
        return lo + u
