"""Hill-type muscle curves and the rigid-tendon muscle force (sources 000, 001).

A muscle-tendon unit's force along its path is F = F_max (a f_L(l̃) f_V(ṽ) + f_PE(l̃)) with l̃ the
fibre length over the optimal length and ṽ the fibre velocity over the maximal shortening
velocity (negative = shortening). Two named curve families:

- :data:`MUJOCO`: MuJoCo's muscle (``mju_muscleGain`` / ``mju_muscleBias``, engine_util_misc.c):
  piecewise-quadratic f_L on [lmin, lmax], piecewise-quadratic f_V saturating at ``fvmax``,
  quadratic-then-linear f_PE reaching ``fpmax`` at the middle of [1, lmax]. With the muscle's
  ``range``/``lengthrange`` mapping actuator length to l̃, :func:`mujoco_actuator_force`
  reproduces MuJoCo's actuator force exactly (a rigid tendon, no pennation: MuJoCo's model).
- :data:`DE_GROOTE_2016`: De Groote, Kinney, Rao & Fregly 2016, "Evaluation of direct collocation
  optimal control problem formulations for solving the muscle redundancy problem", Ann. Biomed.
  Eng. 44(10), Appendix: f_L a sum of three Gaussians, f_PE exponential (k_PE = 4, e0 = 0.6), f_V
  the inverse-hyperbolic-sine form; smooth, for gradient-based optimization.

Units: forces [N], lengths [m], velocities [m/s] at the interfaces; the curves take and return
normalized values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

MINVAL = 1e-15  # MuJoCo's mjMINVAL: the guard of every division in its muscle functions


@dataclass(frozen=True)
class CurveFamily:
    """The normalized curves f_L(l̃), f_V(ṽ), f_PE(l̃) of one published muscle model."""

    name: str
    active_force_length: object
    force_velocity: object
    passive_force_length: object


# -- MuJoCo ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MujocoShape:
    """MuJoCo's muscle shape parameters (the ``muscle`` element's lmin, lmax, vmax, fpmax, fvmax)."""

    lmin: float = 0.5
    lmax: float = 1.6
    vmax: float = 1.5
    fpmax: float = 1.3
    fvmax: float = 1.2


def mujoco_force_length(length, shape: MujocoShape = MujocoShape()):
    """MuJoCo's active force-length curve (``mju_muscleGainLength``): two quadratic pieces each side
    of l̃ = 1, zero outside [lmin, lmax]."""
    length = np.asarray(length, dtype=float)
    lmin, lmax = shape.lmin, shape.lmax
    a, b = 0.5 * (lmin + 1.0), 0.5 * (1.0 + lmax)
    x1 = (length - lmin) / max(MINVAL, a - lmin)
    x2 = (1.0 - length) / max(MINVAL, 1.0 - a)
    x3 = (length - 1.0) / max(MINVAL, b - 1.0)
    x4 = (lmax - length) / max(MINVAL, lmax - b)
    out = np.select([length <= a, length <= 1.0, length <= b], [0.5 * x1 * x1, 1 - 0.5 * x2 * x2, 1 - 0.5 * x3 * x3],
                    0.5 * x4 * x4)
    return np.where((length < lmin) | (length > lmax), 0.0, out)


def mujoco_force_velocity(velocity, shape: MujocoShape = MujocoShape()):
    """MuJoCo's force-velocity curve: 0 at ṽ ≤ −1, (ṽ + 1)² while shortening, rising to ``fvmax``
    while lengthening (ṽ normalized by vmax · optimal length)."""
    v = np.asarray(velocity, dtype=float)
    y = shape.fvmax - 1.0
    return np.select([v <= -1.0, v <= 0.0, v <= y], [0.0, (v + 1.0) ** 2, shape.fvmax - (y - v) ** 2 / max(MINVAL, y)],
                     shape.fvmax)


def mujoco_passive_force_length(length, shape: MujocoShape = MujocoShape()):
    """MuJoCo's passive curve (``mju_muscleBias`` over the force): zero below l̃ = 1, quadratic to
    ``fpmax``/2 at b = (1 + lmax)/2, then linear with slope ``fpmax``/(b − 1)."""
    length = np.asarray(length, dtype=float)
    b = 0.5 * (1.0 + shape.lmax)
    x1 = (length - 1.0) / max(MINVAL, b - 1.0)
    x2 = (length - b) / max(MINVAL, b - 1.0)
    return np.select([length <= 1.0, length <= b], [0.0, shape.fpmax * 0.5 * x1 * x1], shape.fpmax * (0.5 + x2))


MUJOCO = CurveFamily("mujoco", mujoco_force_length, mujoco_force_velocity, mujoco_passive_force_length)


@dataclass(frozen=True)
class MujocoMuscle:
    """A MuJoCo muscle actuator's parameters: peak force [N], the operating range of normalized
    length (``range``), the actuator's length range [m] (``lengthrange``) and the shape. With
    ``force`` < 0, MuJoCo sets the peak force to ``scale`` / ``acc0``."""

    force: float
    length_range_m: tuple[float, float]
    normalized_range: tuple[float, float] = (0.75, 1.05)
    shape: MujocoShape = MujocoShape()
    scale: float = 200.0
    acc0: float = 1.0

    @classmethod
    def from_model(cls, model, actuator: int) -> "MujocoMuscle":
        """The parameters of actuator ``actuator`` of a compiled ``mujoco.MjModel``."""
        prm = model.actuator_gainprm[actuator]
        return cls(float(prm[2]), tuple(float(x) for x in model.actuator_lengthrange[actuator]),
                   (float(prm[0]), float(prm[1])), MujocoShape(*(float(x) for x in prm[4:9])), float(prm[3]),
                   float(model.actuator_acc0[actuator]))

    @property
    def peak_force_n(self) -> float:
        return self.force if self.force >= 0 else self.scale / max(MINVAL, self.acc0)

    @property
    def optimal_length_m(self) -> float:
        """L0 = (lengthrange span) / (normalized range span)."""
        r0, r1 = self.normalized_range
        return (self.length_range_m[1] - self.length_range_m[0]) / max(MINVAL, r1 - r0)

    def normalized(self, length_m, velocity_m_s):
        """(l̃, ṽ) of an actuator length [m] and velocity [m/s]."""
        l0 = self.optimal_length_m
        length = self.normalized_range[0] + (np.asarray(length_m, dtype=float) - self.length_range_m[0]) / max(MINVAL, l0)
        return length, np.asarray(velocity_m_s, dtype=float) / max(MINVAL, l0 * self.shape.vmax)


def mujoco_actuator_force(muscle: MujocoMuscle, activation, length_m, velocity_m_s):
    """MuJoCo's muscle actuator force [N] (negative: muscles pull) at activation a ∈ [0, 1],
    actuator length [m] and velocity [m/s]: −F_max (a f_L f_V + f_PE)."""
    active, passive = mujoco_active_passive(muscle, length_m, velocity_m_s)
    return -(np.asarray(activation, dtype=float) * active + passive)


def mujoco_active_passive(muscle: MujocoMuscle, length_m, velocity_m_s):
    """The pulling force [N] at full activation (F_max f_L f_V) and the passive one (F_max f_PE),
    both ≥ 0: what :func:`muscle_allocator_node.allocate` takes."""
    length, velocity = muscle.normalized(length_m, velocity_m_s)
    f = muscle.peak_force_n
    return (f * mujoco_force_length(length, muscle.shape) * mujoco_force_velocity(velocity, muscle.shape),
            f * mujoco_passive_force_length(length, muscle.shape))


# -- De Groote et al. 2016 -------------------------------------------------------------------------
_FL_GAUSSIANS = np.array([[0.815, 1.055, 0.162, 0.063],    # b1i, b2i, b3i, b4i
                          [0.433, 0.717, -0.030, 0.200],
                          [0.100, 1.000, 0.354, 0.000]])
_FV = (-0.318, -8.149, -0.374, 0.886)                       # d1 … d4
_PASSIVE_K, _PASSIVE_E0 = 4.0, 0.6


def de_groote_force_length(length):
    """f_L(l̃) = Σᵢ b1ᵢ exp(−½ (l̃ − b2ᵢ)² / (b3ᵢ + b4ᵢ l̃)²) (De Groote 2016, eq. A2)."""
    length = np.asarray(length, dtype=float)[..., None]
    b1, b2, b3, b4 = _FL_GAUSSIANS.T
    return np.sum(b1 * np.exp(-0.5 * (length - b2) ** 2 / (b3 + b4 * length) ** 2), axis=-1)


def de_groote_force_velocity(velocity):
    """f_V(ṽ) = d1 ln(d2 ṽ + d3 + √((d2 ṽ + d3)² + 1)) + d4, ṽ ∈ [−1, 1] (eq. A4)."""
    d1, d2, d3, d4 = _FV
    x = d2 * np.asarray(velocity, dtype=float) + d3
    return d1 * np.log(x + np.sqrt(x * x + 1.0)) + d4


def de_groote_passive_force_length(length):
    """f_PE(l̃) = (exp(k_PE (l̃ − 1)/e0) − 1) / (exp(k_PE) − 1), k_PE = 4, e0 = 0.6 (eq. A3)."""
    return (np.exp(_PASSIVE_K * (np.asarray(length, dtype=float) - 1.0) / _PASSIVE_E0) - 1.0) / (np.exp(_PASSIVE_K) - 1.0)


DE_GROOTE_2016 = CurveFamily("de_groote_2016", de_groote_force_length, de_groote_force_velocity,
                             de_groote_passive_force_length)
_TENDON = (0.2, 0.995, 0.25, 35.0)  # c1, c2, c3, k_T


def de_groote_tendon_force_length(tendon_length):
    """f_T(l̃_T) = c1 exp(k_T (l̃_T − c2)) − c3, c1 = 0.2, c2 = 0.995, c3 = 0.25, k_T = 35 (eq. A1):
    ≈ 0 at the slack length, 1 (F_max) at ≈ 4.7 % strain; floored at 0 (a slack tendon pushes
    nothing)."""
    c1, c2, c3, k = _TENDON
    return np.maximum(c1 * np.exp(k * (np.asarray(tendon_length, dtype=float) - c2)) - c3, 0.0)


# -- A muscle-tendon unit with a rigid tendon ------------------------------------------------------
@dataclass(frozen=True)
class MuscleTendonUnit:
    """A muscle-tendon unit (SI units): peak isometric force [N], optimal fibre length [m], tendon
    slack length [m], pennation angle at the optimal length [rad] and maximal shortening velocity
    [optimal lengths per second]; the curve family names its f_L, f_V, f_PE."""

    max_isometric_force_n: float
    optimal_fiber_length_m: float
    tendon_slack_length_m: float
    pennation_at_optimal_rad: float = 0.0
    max_contraction_velocity: float = 10.0
    curves: CurveFamily = DE_GROOTE_2016

    def __post_init__(self):
        if not (self.max_isometric_force_n > 0 and self.optimal_fiber_length_m > 0 and self.tendon_slack_length_m >= 0
                and 0 <= self.pennation_at_optimal_rad < np.pi / 2 and self.max_contraction_velocity > 0):
            raise ValueError(f"muscle parameters out of range: {self}")

    def rigid_tendon_forces(self, length_m, velocity_m_s):
        """(active force at a = 1, passive force) [N] along the tendon for a muscle-tendon length
        [m] and lengthening velocity [m/s], with a rigid tendon and constant-thickness pennation:
        l_M sin α = l_opt sin α0 and l_M cos α = l_MT − l_TS, fibre velocity v_M = v_MT cos α, and
        the fibre force projected on the tendon by cos α."""
        height = self.optimal_fiber_length_m * np.sin(self.pennation_at_optimal_rad)
        along = np.maximum(np.asarray(length_m, dtype=float) - self.tendon_slack_length_m, 1e-9)
        fiber = np.sqrt(along * along + height * height)
        cos_alpha = along / fiber
        length = fiber / self.optimal_fiber_length_m
        velocity = np.asarray(velocity_m_s, dtype=float) * cos_alpha / (self.max_contraction_velocity * self.optimal_fiber_length_m)
        f = self.max_isometric_force_n * cos_alpha
        return (f * self.curves.active_force_length(length) * self.curves.force_velocity(np.clip(velocity, -1.0, 1.0)),
                f * self.curves.passive_force_length(length))

    def compliant_equilibrium(self, activation: float, length_m: float, fiber_velocity_m_s: float = 0.0):
        """Fibre length [m] and the force along the tendon [N] where an elastic tendon
        (:func:`de_groote_tendon_force_length`) carries exactly the fibre's force:
        F_max f_T(l_T / l_TS) = F_max (a f_L f_V + f_PE) cos α, with l_T = l_MT − l_M cos α and
        constant-thickness pennation. A bracketed root (Brent's method): at the fibre length
        that leaves the tendon slack the residual is ≤ 0, at the shortest admissible fibre the
        tendon is stretched far beyond F_max, so a root always lies between and is always found.
        A unit shorter than its tendon slack length, or whose fibre would not pull even with the
        tendon at its slack length, is slack: zero force."""
        a = float(np.clip(activation, 0.0, 1.0))
        height = self.optimal_fiber_length_m * np.sin(self.pennation_at_optimal_rad)
        along_slack = length_m - self.tendon_slack_length_m
        if along_slack <= 0.0:
            return float(max(height, 1e-9) if height > 0 else 0.0), 0.0
        curves, l_opt = self.curves, self.optimal_fiber_length_m
        velocity = np.clip(fiber_velocity_m_s / (self.max_contraction_velocity * l_opt), -1.0, 1.0)

        def residual(fiber):
            along = np.sqrt(max(fiber * fiber - height * height, 0.0))
            cos_alpha = along / fiber
            tendon = de_groote_tendon_force_length((length_m - along) / self.tendon_slack_length_m)
            fibre = (a * curves.active_force_length(fiber / l_opt) * curves.force_velocity(velocity)
                     + curves.passive_force_length(fiber / l_opt)) * cos_alpha
            return float(tendon - fibre)

        upper = float(np.hypot(along_slack, height))             # tendon exactly at slack length
        lower = max(height * (1 + 1e-9), 1e-6 * l_opt, upper - 0.2 * self.tendon_slack_length_m)
        if residual(lower) <= 0.0:  # a tendon that cannot stretch 20 %: search down to the pennation floor
            lower = max(height * (1 + 1e-9), 1e-6 * l_opt)
        if residual(upper) >= 0.0:
            # Even with the tendon at its slack length the fibre pulls nothing (De Groote's f_PE
            # is slightly negative below the optimal length): the unit is slack, no force.
            return upper, 0.0
        if residual(lower) <= 0.0:
            raise ArithmeticError(f"no tendon-fibre equilibrium bracketed for a={a}, l_MT={length_m}")
        fiber = brentq(residual, lower, upper, xtol=1e-13, rtol=1e-12, maxiter=200)
        along = np.sqrt(max(fiber * fiber - height * height, 0.0))
        force = self.max_isometric_force_n * float(de_groote_tendon_force_length((length_m - along) / self.tendon_slack_length_m))
        return float(fiber), force
