"""The CoM plan the MPC hands to the whole-body controller (linear inverted pendulum).

The pendulum may carry a constant external acceleration δ (an estimated push, force / mass):
c̈ = ω²(c − z) + δ = ω²(c − (z − δ/ω²)), the same pendulum about a pivot moved by −δ/ω². The
contacts produce only ω²(c − z); that is the acceleration :meth:`ComPlan.at` hands on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

GRAVITY_M_S2 = 9.81


@dataclass(frozen=True)
class ComPlan:
    """A CoM trajectory: states (N+1, 4) = (cx, ċx, cy, ċy) at ``start_s + k·dt_s`` and the CoP
    (N, 2) held over each step."""

    start_s: float
    dt_s: float
    states: np.ndarray
    cop: np.ndarray
    omega_per_s: float
    disturbance_m_s2: tuple[float, float] = (0.0, 0.0)  # δ (x, y) [m/s²], world

    def __post_init__(self):
        states, cop = np.asarray(self.states, dtype=float), np.asarray(self.cop, dtype=float)
        if cop.ndim != 2 or cop.shape[1] != 2 or states.shape != (cop.shape[0] + 1, 4) or cop.shape[0] < 1:
            raise ValueError(f"CoM plan needs states (N+1, 4) and CoP (N, 2), got {states.shape} and {cop.shape}")
        if not (np.all(np.isfinite(states)) and np.all(np.isfinite(cop)) and self.dt_s > 0 and self.omega_per_s > 0
                and np.isfinite(self.start_s)):
            raise ValueError("CoM plan holds non-finite or non-positive values")
        disturbance = np.asarray(self.disturbance_m_s2, dtype=float)
        if disturbance.shape != (2,) or not np.all(np.isfinite(disturbance)):
            raise ValueError(f"CoM plan disturbance must be 2 finite numbers, got {self.disturbance_m_s2}")
        object.__setattr__(self, "states", states)
        object.__setattr__(self, "cop", cop)
        object.__setattr__(self, "disturbance_m_s2", (float(disturbance[0]), float(disturbance[1])))

    @property
    def com_height_m(self) -> float:
        """The pendulum height h = g/ω² [m]."""
        return GRAVITY_M_S2 / self.omega_per_s**2

    @property
    def end_s(self) -> float:
        """The absolute time [s] the plan's last step ends."""
        return self.start_s + self.cop.shape[0] * self.dt_s

    def at(self, time_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CoM position [m], velocity [m/s] and the acceleration the contacts produce, ω²(c − z)
        [m/s²] (2,) each at absolute ``time_s``, exact on the (disturbed) pendulum within the plan
        (the last step's CoP is held beyond it)."""
        t = max(time_s - self.start_s, 0.0)
        k = min(int(t // self.dt_s), self.cop.shape[0] - 1)
        tau, w = t - k * self.dt_s, self.omega_per_s
        x = self.states[k]
        c0, v0, z = x[0::2], x[1::2], self.cop[k]
        pivot = z - np.asarray(self.disturbance_m_s2) / (w * w)
        ch, sh = math.cosh(w * tau), math.sinh(w * tau)
        c = pivot + (c0 - pivot) * ch + v0 / w * sh
        v = (c0 - pivot) * w * sh + v0 * ch
        return c, v, w * w * (c - z)

    def cop_at(self, time_s: float) -> np.ndarray:
        """The planned CoP (2,) at absolute ``time_s``."""
        k = int(np.clip((time_s - self.start_s) // self.dt_s, 0, self.cop.shape[0] - 1))
        return self.cop[k]
