"""Static optimization: joint torques → muscle activations (sources 000, 001).

At a given state each muscle's force along its path is affine in its activation,
F_i = a_i F_active,i + F_passive,i, so the joint torques the muscles produce are
τ_m = R (a ⊙ F_active + F_passive) with R the moment-arm matrix (dofs × muscles) [m]. The
allocation is the quadratic program (Crowninshield & Brand 1981's criterion family)

    minimize  aᵀ W a + w_rate |a − a_prev|² + w_co Σ_j (Σ_i |R_ji| F_active,i a_i)²
    subject to  R diag(F_active) a = τ − R F_passive,   a_min ≤ a ≤ a_max

with W = I (Σ a², the default) or W = diag(F_max²) (Σ (a F_max)², muscle force squared; F_max the
peak isometric forces when given, else the forces at full activation in this state). With equal
specific tension the stress criterion Σ (a F_max / PCSA)² is Σ a² up to a constant.
The co-activation term is the squared total torque magnitude the muscles produce at each joint:
with the net torque fixed, it grows only with antagonist co-contraction (and stays convex).
When the torque is beyond what the muscles can produce, the equality cannot hold: the answer is
then the least-squares best effort (minimize |R diag(F_active) a − (τ − R F_passive)|² within the
bounds, the criterion as a small tie-break), with the residual torque reported — never an
exception for an infeasible torque and never a silent wrong answer.

Solved with OSQP (Stellato et al. 2020), warm-started from the previous solution by
:class:`Allocator`; :func:`allocate` is the one-shot pure function.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import osqp
import scipy.sparse as sp

CRITERIA = ("activation_squared", "force_squared")
OPTIMAL, BEST_EFFORT, FAILED = "optimal", "best_effort", "failed"
# Relative torque mismatch below which the equality-constrained answer is accepted as exact.
FEASIBILITY_TOLERANCE = 1e-6
TIE_BREAK_WEIGHT = 1e-6  # the criterion's weight relative to the residual in the best-effort QP


@dataclass(frozen=True)
class Allocation:
    """Activations (muscles,), the residual joint torque τ − τ_muscles (dofs,) [N·m] and the status:
    ``optimal`` (the torque is produced), ``best_effort`` (beyond the muscles' capacity: the
    least-squares answer, residual ≠ 0) or ``failed`` (the solver failed twice: the previous (or
    minimum) activations are returned with their residual)."""

    activations: np.ndarray
    residual_torque: np.ndarray
    status: str


def _checked(moment_arms, active_force, passive_force, torque, a_min, a_max):
    r = np.atleast_2d(np.asarray(moment_arms, dtype=float))
    fa, fp = np.asarray(active_force, dtype=float), np.asarray(passive_force, dtype=float)
    tau = np.atleast_1d(np.asarray(torque, dtype=float))
    dofs, muscles = r.shape
    if fa.shape != (muscles,) or fp.shape != (muscles,) or tau.shape != (dofs,):
        raise ValueError(f"shapes: moment_arms {r.shape} (dofs × muscles) needs active_force and passive_force "
                         f"({muscles},) and torque ({dofs},); got {fa.shape}, {fp.shape}, {tau.shape}")
    lo = np.broadcast_to(np.asarray(a_min, dtype=float), (muscles,))
    hi = np.broadcast_to(np.asarray(a_max, dtype=float), (muscles,))
    for name, value in (("moment_arms", r), ("active_force", fa), ("passive_force", fp), ("torque", tau),
                        ("a_min", lo), ("a_max", hi)):
        if not np.all(np.isfinite(value)):
            raise ValueError(f"{name} has non-finite entries")
    if np.any(fa < 0):
        raise ValueError("active_force must be ≥ 0 (the force at full activation along the path)")
    if np.any(lo > hi) or np.any(lo < 0) or np.any(hi > 1):
        raise ValueError("need 0 ≤ a_min ≤ a_max ≤ 1")
    return r, fa, fp, tau, np.array(lo), np.array(hi)


class Allocator:
    """Allocation for a fixed number of dofs and muscles, warm-started from its last answer (the
    per-tick use: the node calls :meth:`solve` at the controller rate)."""

    def __init__(self, dofs: int, muscles: int, criterion: str = "activation_squared", rate_weight: float = 0.0,
                 coactivation_weight: float = 0.0, max_force=None):
        if criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
        if rate_weight < 0 or coactivation_weight < 0:
            raise ValueError("rate_weight and coactivation_weight must be ≥ 0")
        self.dofs, self.muscles = dofs, muscles
        self.criterion, self.rate_weight, self.coactivation_weight = criterion, rate_weight, coactivation_weight
        self.max_force = None if max_force is None else np.asarray(max_force, dtype=float)
        if self.max_force is not None and (self.max_force.shape != (muscles,) or not np.all(self.max_force > 0)):
            raise ValueError(f"max_force must be {muscles} positive forces [N]")
        self.previous: np.ndarray | None = None
        self._exact = _DenseQp(muscles, dofs + muscles)  # stage 1, set up once, updated per solve

    def _criterion_hessian(self, r, fa):
        if self.criterion == "activation_squared":
            w = np.ones(self.muscles)
        else:
            w = (self.max_force if self.max_force is not None else fa) ** 2
        h = np.diag(w + self.rate_weight)
        if self.coactivation_weight > 0:
            effort = np.abs(r) * fa  # (dofs, muscles): |R_ji| F_active,i
            h = h + self.coactivation_weight * effort.T @ effort
        return h

    def solve(self, moment_arms, active_force, passive_force, torque, a_min=0.0, a_max=1.0) -> Allocation:
        """The allocation above for one state (see :func:`allocate` for the arguments)."""
        r, fa, fp, tau, lo, hi = _checked(moment_arms, active_force, passive_force, torque, a_min, a_max)
        if r.shape != (self.dofs, self.muscles):
            raise ValueError(f"moment_arms must be {(self.dofs, self.muscles)}, got {r.shape}")
        gain = r * fa                        # τ_m = gain a + R F_passive
        target = tau - r @ fp
        previous = self.previous if self.previous is not None else np.clip(np.zeros(self.muscles), lo, hi)
        hessian = self._criterion_hessian(r, fa)
        linear = -self.rate_weight * previous
        scale = max(1.0, float(np.max(np.abs(gain)))) if gain.size else 1.0

        # Stage 1: the torque exactly (rows scaled so that a unit of activation is O(1)).
        x = self._exact.solve(2 * hessian, 2 * linear, np.vstack([gain / scale, np.eye(self.muscles)]),
                              np.concatenate([target / scale, lo]), np.concatenate([target / scale, hi]), previous)
        status = OPTIMAL
        if x is None or np.linalg.norm(gain @ x - target) > FEASIBILITY_TOLERANCE * max(1.0, np.linalg.norm(tau)):
            # Stage 2: least squares within the bounds, the criterion as a tie-break.
            h = gain.T @ gain / scale**2 + TIE_BREAK_WEIGHT * hessian
            g = -gain.T @ target / scale**2 + TIE_BREAK_WEIGHT * linear
            x = _DenseQp(self.muscles, self.muscles).solve(2 * h, 2 * g, np.eye(self.muscles), lo, hi, previous)
            status = BEST_EFFORT
            if x is None:
                x, status = previous.copy(), FAILED
        x = np.clip(x, lo, hi)
        self.previous = x
        return Allocation(x, tau - (gain @ x + r @ fp), status)



class _DenseQp:
    """OSQP on dense problem data whose zero pattern rarely changes (moment arms are structurally
    zero for joints a muscle does not cross; P is diagonal without the co-activation term): set
    up on the data's nonzero pattern, then updated by value and warm-started; a value outside the
    pattern sets the solver up again on the union."""

    _SETTINGS = dict(verbose=False, polishing=True, eps_abs=1e-10, eps_rel=1e-10, max_iter=20000, warm_starting=True)

    def __init__(self, variables: int, constraints: int):
        self.n, self.m = variables, constraints
        self._solver: osqp.OSQP | None = None
        self._p_mask = self._a_mask = None

    def solve(self, p, q, a, lower, upper, start):
        """argmin ½xᵀPx + qᵀx s.t. lower ≤ Ax ≤ upper, or None when OSQP does not solve it."""
        p = np.triu(p)
        p_mask, a_mask = p != 0, a != 0
        np.fill_diagonal(p_mask, True)
        if self._solver is None or np.any(p_mask & ~self._p_mask) or np.any(a_mask & ~self._a_mask):
            self._p_mask = p_mask if self._p_mask is None else p_mask | self._p_mask
            self._a_mask = a_mask if self._a_mask is None else a_mask | self._a_mask
            self._solver = osqp.OSQP()
            self._solver.setup(_csc(p, self._p_mask), q, _csc(a, self._a_mask), lower, upper, **self._SETTINGS)
        else:
            self._solver.update(Px=p.T[self._p_mask.T], Ax=a.T[self._a_mask.T], q=q, l=lower, u=upper)
        self._solver.warm_start(x=start)
        result = self._solver.solve(raise_error=False)
        if result.info.status_val not in (osqp.SolverStatus.OSQP_SOLVED, osqp.SolverStatus.OSQP_SOLVED_INACCURATE):
            return None
        return np.asarray(result.x, dtype=float)


def _csc(values: np.ndarray, mask: np.ndarray) -> sp.csc_matrix:
    """``values`` as CSC with exactly the entries of ``mask`` stored (explicit zeros kept)."""
    cols, rows = np.nonzero(mask.T)  # column-major order
    indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=0))])
    return sp.csc_matrix((values[rows, cols], rows, indptr), shape=values.shape)


def allocate(moment_arms, active_force, passive_force, torque, a_min=0.0, a_max=1.0,
             criterion: str = "activation_squared", rate_weight: float = 0.0, coactivation_weight: float = 0.0,
             previous_activations=None, max_force=None) -> Allocation:
    """Muscle activations producing joint torques ``torque`` (dofs,) [N·m].

    ``moment_arms`` (dofs × muscles) [m]; ``active_force`` (muscles,) [N] each muscle's force
    along its path at full activation and the current length and velocity; ``passive_force``
    (muscles,) [N] its passive force there; ``a_min``/``a_max`` activation bounds (scalars or
    per muscle, within [0, 1]); ``criterion`` one of :data:`CRITERIA` (``force_squared`` weighs
    by ``max_force`` [N], the peak isometric forces, when given); ``rate_weight`` penalizes
    change from ``previous_activations``; ``coactivation_weight`` penalizes co-contraction.
    Returns an :class:`Allocation`; malformed input (shapes, non-finite values, bad bounds)
    raises ValueError naming it."""
    r = np.atleast_2d(np.asarray(moment_arms, dtype=float))
    allocator = Allocator(r.shape[0], r.shape[1], criterion, rate_weight, coactivation_weight, max_force)
    if previous_activations is not None:
        previous = np.asarray(previous_activations, dtype=float)
        if previous.shape != (r.shape[1],) or not np.all(np.isfinite(previous)):
            raise ValueError(f"previous_activations must be {r.shape[1]} finite numbers")
        allocator.previous = previous
    return allocator.solve(moment_arms, active_force, passive_force, torque, a_min, a_max)
