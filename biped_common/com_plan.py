"""The CoM plan the MPC hands to the whole-body controller (linear inverted pendulum).

The pendulum may change its height from step to step: over step k the horizontal CoM obeys
c̈ = ω_k² (c − z_k) with ω_k² = (g + z̈_k) / h_k, h_k the CoM height and z̈_k its vertical
acceleration over the step (a style whose pelvis bobs loads and unloads the legs; Kajita et al.
2003 derive the constant-height case, the per-step ω is the piecewise-constant time-varying
version, e.g. Caron et al. 2019 "Capturability-based analysis, optimization and control of 3D
bipedal walking" use the same ω² = (g + z̈)/h). Horizontal position and velocity are continuous
from step to step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRAVITY_M_S2 = 9.81


def pendulum_omega(com_height_m, vertical_accel_m_s2=0.0) -> np.ndarray:
    """ω = √((g + z̈) / h) [1/s] per step (arrays broadcast); ValueError unless h > 0 and g + z̈ > 0."""
    h = np.asarray(com_height_m, dtype=float)
    load = GRAVITY_M_S2 + np.asarray(vertical_accel_m_s2, dtype=float)
    if not (np.all(np.isfinite(h)) and np.all(np.isfinite(load)) and np.all(h > 0) and np.all(load > 0)):
        raise ValueError("the pendulum needs a positive height and g + z̈ > 0 (the feet must stay loaded)")
    return np.sqrt(load / h)


@dataclass(frozen=True)
class ComPlan:
    """A CoM trajectory: states (N+1, 4) = (cx, ċx, cy, ċy) at ``start_s + k·dt_s``, the CoP
    (N, 2) held over each step, and per step the CoM height [m] and vertical acceleration [m/s²]
    that set the pendulum's ω (scalars mean the same for every step)."""

    start_s: float
    dt_s: float
    states: np.ndarray
    cop: np.ndarray
    com_height_m: np.ndarray | float
    com_vertical_accel_m_s2: np.ndarray | float = 0.0

    def __post_init__(self):
        states, cop = np.asarray(self.states, dtype=float), np.asarray(self.cop, dtype=float)
        if cop.ndim != 2 or cop.shape[1] != 2 or states.shape != (cop.shape[0] + 1, 4) or cop.shape[0] < 1:
            raise ValueError(f"CoM plan needs states (N+1, 4) and CoP (N, 2), got {states.shape} and {cop.shape}")
        if not (np.all(np.isfinite(states)) and np.all(np.isfinite(cop)) and self.dt_s > 0
                and np.isfinite(self.start_s)):
            raise ValueError("CoM plan holds non-finite or non-positive values")
        n = cop.shape[0]
        try:
            height = np.broadcast_to(np.asarray(self.com_height_m, dtype=float), (n,)).copy()
            accel = np.broadcast_to(np.asarray(self.com_vertical_accel_m_s2, dtype=float), (n,)).copy()
        except ValueError as error:
            raise ValueError(f"CoM plan heights and vertical accelerations need one value per step ({n})") from error
        omega = pendulum_omega(height, accel)
        for name, value in (("states", states), ("cop", cop), ("com_height_m", height),
                            ("com_vertical_accel_m_s2", accel), ("omega_per_s", omega)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def at(self, time_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CoM position [m], velocity [m/s], acceleration [m/s²] (2,) each at absolute ``time_s``,
        exact on the pendulum within the plan (the last step's CoP and ω are held beyond it)."""
        t = max(time_s - self.start_s, 0.0)
        k = min(int(t // self.dt_s), self.cop.shape[0] - 1)
        tau, w = t - k * self.dt_s, float(self.omega_per_s[k])
        x = self.states[k]
        c0, v0, z = x[[0, 2]], x[[1, 3]], self.cop[k]
        ch, sh = np.cosh(w * tau), np.sinh(w * tau)
        c = z + (c0 - z) * ch + v0 / w * sh
        v = (c0 - z) * w * sh + v0 * ch
        return c, v, w * w * (c - z)

    def cop_at(self, time_s: float) -> np.ndarray:
        """The planned CoP (2,) at absolute ``time_s``."""
        k = int(np.clip((time_s - self.start_s) // self.dt_s, 0, self.cop.shape[0] - 1))
        return self.cop[k]
