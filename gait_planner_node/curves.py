"""Function curves of a gait sample (source 004): splines over the swing phase or the cycle.

- :class:`SwingCurve` y(s), s ∈ [0, 1] the phase of one foot's swing: zero value and zero slope
  at lift-off and touch-down (the stylized offset vanishes in stance, so the stance foot cannot
  slide, and the foot's velocity is continuous at the contact events). Between knots it is a
  monotone cubic Hermite spline (Fritsch–Butland slopes): it never leaves the range spanned by its
  neighbouring knots, so a height curve whose knots are ≥ 0 is ≥ 0 everywhere — the bound on the
  knots is the bound on the curve, and a convex blend of such curves keeps it.
- :class:`CycleCurve` y(φ), φ ∈ [0, 1) the cycle phase: periodic C² cubic spline through its knots
  (pelvis height and rotation, upper-body joints); no knots means zero, one knot a constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicHermiteSpline

from biped_common.splines import PeriodicCubicSpline


def _knots(phases, values) -> tuple[np.ndarray, np.ndarray]:
    phases, values = np.asarray(phases, float), np.asarray(values, float)
    if phases.shape != values.shape or phases.ndim != 1:
        raise ValueError("phases and values must be lists of equal length")
    return phases, values


def _fritsch_butland_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Interior slopes that keep a cubic Hermite spline monotone between monotone data; zero at
    local extrema. End slopes are left at zero."""
    h = np.diff(x)
    secants = np.diff(y) / h
    slopes = np.zeros_like(y)
    for k in range(1, len(x) - 1):
        a, b = secants[k - 1], secants[k]
        if a * b > 0.0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            slopes[k] = (w1 + w2) / (w1 / a + w2 / b)
    return slopes


@dataclass(frozen=True)
class SwingCurve:
    """y(s) over a swing, zero at both ends; knots strictly inside (0, 1)."""

    phases: tuple[float, ...] = ()
    values: tuple[float, ...] = ()

    def __post_init__(self):
        phases, values = _knots(self.phases, self.values)
        if phases.size and (phases[0] <= 0.0 or phases[-1] >= 1.0 or np.any(np.diff(phases) <= 0)):
            raise ValueError(f"knot phases must increase strictly inside (0, 1), got {list(phases)}")
        x = np.concatenate([[0.0], phases, [1.0]])
        y = np.concatenate([[0.0], values, [0.0]])
        object.__setattr__(self, "_spline", CubicHermiteSpline(x, y, _fritsch_butland_slopes(x, y)))
        object.__setattr__(self, "_zero", not np.any(values))

    def __call__(self, swing_phase, derivative: int = 0) -> np.ndarray:
        s = np.clip(np.asarray(swing_phase, dtype=float), 0.0, 1.0)
        if self._zero:
            return np.zeros_like(s)
        return self._spline(s, derivative)


@dataclass(frozen=True)
class CycleCurve:
    """Periodic y(φ) over the two-step cycle; knots in [0, 1)."""

    phases: tuple[float, ...] = ()
    values: tuple[float, ...] = ()

    def __post_init__(self):
        phases, values = _knots(self.phases, self.values)
        spline = PeriodicCubicSpline(phases, values) if phases.size >= 2 else None
        object.__setattr__(self, "_spline", spline)
        object.__setattr__(self, "_constant", float(values[0]) if phases.size == 1 else 0.0)

    def __call__(self, phase, derivative: int = 0) -> np.ndarray:
        phase = np.asarray(phase, dtype=float)
        if self._spline is None:
            return np.full_like(phase, self._constant if derivative == 0 else 0.0)
        return self._spline(phase, derivative)


@dataclass(frozen=True)
class CurveTable:
    """Several piecewise-cubic curves on one set of breakpoints, as polynomial coefficients.

    Every curve is a single cubic between consecutive knots, so on the union of all the curves'
    knots each one is exactly its Taylor polynomial at the interval's left end. A convex blend of
    tables on the same breakpoints is then a weighted sum of coefficient arrays, and evaluating
    all curves at many phases is one vectorized Horner pass. ``coefficients`` has shape
    (4, intervals, curves): [y'''/6, y''/2, y', y] at each interval's left breakpoint.
    """

    breakpoints: np.ndarray
    coefficients: np.ndarray

    @classmethod
    def tabulate(cls, curves, breakpoints) -> "CurveTable":
        x = np.asarray(breakpoints, dtype=float)[:-1]
        columns = [np.stack([c(x, 3) / 6.0, c(x, 2) / 2.0, c(x, 1), c(x, 0)]) for c in curves]
        coefficients = np.stack(columns, axis=-1) if columns else np.zeros((4, x.size, 0))
        return cls(np.asarray(breakpoints, dtype=float), coefficients)

    def __call__(self, x, derivative: int = 0) -> np.ndarray:
        """Values (or first derivatives) of every curve at ``x`` (N,) → (N, curves)."""
        x = np.minimum(np.maximum(np.asarray(x, dtype=float), self.breakpoints[0]), self.breakpoints[-1])
        k = np.minimum(np.maximum(np.searchsorted(self.breakpoints, x, side="right") - 1, 0), self.breakpoints.size - 2)
        h = (x - self.breakpoints[k])[:, None]
        c = self.coefficients[:, k, :]
        if derivative == 0:
            return ((c[0] * h + c[1]) * h + c[2]) * h + c[3]
        if derivative == 1:
            return (3 * c[0] * h + 2 * c[1]) * h + c[2]
        raise ValueError("derivative must be 0 or 1")


def union_breakpoints(*knot_sets) -> np.ndarray:
    """Sorted union of knot phases with 0 and 1 (duplicates closer than 1e-12 merged)."""
    points = np.unique(np.concatenate([[0.0, 1.0], *[np.asarray(k, dtype=float) for k in knot_sets]]))
    keep = np.concatenate([[True], np.diff(points) > 1e-12])
    return points[keep]
