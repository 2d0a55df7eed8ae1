"""First-order activation dynamics and the excitation that anticipates it (sources 000, 001).

ȧ = (u − a) / τ(u, a), with τ = τ_act (0.5 + 1.5 a) while activating (u > a) and
τ = τ_deact / (0.5 + 1.5 a) while deactivating — Millard, Uchida, Seth & Delp 2013, "Flexing
computational muscle", J. Biomech. Eng. 135(2), eq. 1–2; the form MuJoCo integrates for its
muscle actuators (``mju_muscleDynamics``, without smoothing). Source 001 prints
da/dt = c_a (a − u): that sign makes a run away from u; the dynamics here converge to u.

Inverting the dynamics gives the excitation that reaches a desired activation trajectory despite
the lag (:func:`anticipating_excitation`), so a PD → allocation → activation loop does not
oscillate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biped_common.config import bounded


@dataclass(frozen=True)
class ActivationTimes:
    """Activation and deactivation time constants [s] (MuJoCo's defaults: 10 ms and 40 ms)."""

    activation_s: float = bounded(1e-4, 1.0, "s", "τ_act")
    deactivation_s: float = bounded(1e-4, 2.0, "s", "τ_deact")

    def __post_init__(self):
        if not (1e-4 <= self.activation_s <= 1.0 and 1e-4 <= self.deactivation_s <= 2.0):
            raise ValueError(f"activation_s must be in [1e-4, 1] s and deactivation_s in [1e-4, 2] s, got {self}")


DEFAULT_TIMES = ActivationTimes(0.01, 0.04)


def time_constant(excitation, activation, times: ActivationTimes = DEFAULT_TIMES):
    """τ(u, a) [s] of the dynamics above (u and a clipped to [0, 1])."""
    a = np.clip(np.asarray(activation, dtype=float), 0.0, 1.0)
    u = np.clip(np.asarray(excitation, dtype=float), 0.0, 1.0)
    return np.where(u > a, times.activation_s * (0.5 + 1.5 * a), times.deactivation_s / (0.5 + 1.5 * a))


def activation_rate(excitation, activation, times: ActivationTimes = DEFAULT_TIMES):
    """ȧ [1/s] at excitation u and activation a (u clipped to [0, 1])."""
    u = np.clip(np.asarray(excitation, dtype=float), 0.0, 1.0)
    return (u - np.asarray(activation, dtype=float)) / time_constant(u, activation, times)


def step_activation(excitation, activation, dt_s: float, times: ActivationTimes = DEFAULT_TIMES):
    """Activation after ``dt_s`` [s] at constant excitation: the exact exponential step with τ
    frozen at its start value (stable for any step; never overshoots u), clipped to [0, 1]."""
    u = np.clip(np.asarray(excitation, dtype=float), 0.0, 1.0)
    a = np.asarray(activation, dtype=float)
    tau = time_constant(u, a, times)
    return np.clip(u + (a - u) * np.exp(-dt_s / tau), 0.0, 1.0)


def anticipating_excitation(desired_activation, activation, dt_s: float, times: ActivationTimes = DEFAULT_TIMES):
    """The excitation u ∈ [0, 1] that brings ``activation`` to ``desired_activation`` after one
    step of ``dt_s`` [s] under :func:`step_activation` (the inverse of the exponential step);
    clipped to [0, 1] when the target is farther than one step can reach."""
    target = np.clip(np.asarray(desired_activation, dtype=float), 0.0, 1.0)
    a = np.asarray(activation, dtype=float)
    # τ depends on the direction only: solve with the activating and the deactivating one.
    out = np.empty(np.broadcast(target, a).shape)
    for rising in (True, False):
        tau = times.activation_s * (0.5 + 1.5 * a) if rising else times.deactivation_s / (0.5 + 1.5 * a)
        decay = np.exp(-dt_s / tau)
        u = (target - a * decay) / (1.0 - decay)
        mask = np.broadcast_to(target > a if rising else target <= a, out.shape)
        out[mask] = np.broadcast_to(u, out.shape)[mask]
    return np.clip(out, 0.0, 1.0)
