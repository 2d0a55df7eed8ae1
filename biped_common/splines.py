"""Cubic splines over a periodic cycle (gait curves) on top of scipy's CubicSpline."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicSpline


@dataclass(frozen=True)
class PeriodicCubicSpline:
    """A C² periodic cubic spline y(φ) over one cycle φ ∈ [0, 1) through knots (φ_k, y_k).

    ``phases`` must be strictly increasing in [0, 1); the curve wraps from the last knot to the
    first one (φ_0 + 1). Values may be vectors: ``values`` has shape (n_knots,) or (n_knots, dim).
    """

    phases: np.ndarray
    values: np.ndarray

    def __post_init__(self):
        phases = np.asarray(self.phases, dtype=float)
        values = np.asarray(self.values, dtype=float)
        if phases.ndim != 1 or phases.size < 2:
            raise ValueError(f"phases must be a 1-D array of ≥ 2 knots, got shape {phases.shape}")
        if values.shape[0] != phases.size:
            raise ValueError(f"values has {values.shape[0]} rows for {phases.size} phases")
        if phases[0] < 0.0 or phases[-1] >= 1.0 or np.any(np.diff(phases) <= 0.0):
            raise ValueError(f"phases must increase strictly within [0, 1), got {phases}")
        if not np.all(np.isfinite(values)):
            raise ValueError("values must be finite")
        phases.setflags(write=False)
        values.setflags(write=False)
        object.__setattr__(self, "phases", phases)
        object.__setattr__(self, "values", values)
        closed_phases = np.append(phases, phases[0] + 1.0)
        closed_values = np.concatenate([values, values[:1]], axis=0)
        object.__setattr__(self, "_spline", CubicSpline(closed_phases, closed_values,
                                                        bc_type="periodic"))

    def __call__(self, phase, derivative: int = 0) -> np.ndarray:
        """Value (or its ``derivative``-th derivative w.r.t. phase) at ``phase`` (wrapped)."""
        phase = np.asarray(phase, dtype=float)
        wrapped = self.phases[0] + np.mod(phase - self.phases[0], 1.0)
        return self._spline(wrapped, derivative)
