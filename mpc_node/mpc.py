"""CoM/CoP model-predictive control on the linear inverted pendulum, as a sparse QP (OSQP).

Model (Kajita 2003, linear inverted pendulum; Wieber 2006, "Trajectory free linear model
predictive control for stable walking in the presence of strong perturbations"): per horizontal
axis the CoM c at constant height h moves as c̈ = ω²(c − z), ω = √(g/h), with z the CoP (ZMP).
The CoP is the input, piecewise constant over steps of dt. In the pendulum's eigen-coordinates
— the divergent component of motion ξ = c + ċ/ω (Englsberger 2015) and the convergent one
s = c − ċ/ω — the exact discretization is, with a = e^{−ω dt} < 1,

    s_{k+1} = a s_k + (1 − a) z_k        (stable forward)
    ξ_k     = a ξ_{k+1} + (1 − a) z_k    (ξ̇ = ω(ξ − z) is unstable forward, stable backward)

Both rows are contractions, so the sparse equality matrix stays well conditioned over a 2 s
horizon (e^{ωT} ≈ 4·10³ here): written with the usual (c, ċ) transition matrix OSQP reported
false primal infeasibility on feasible problems.

QP (cost terms after Herdt et al. 2010, "Online walking motion generation with automatic
footstep placement"): over the preview minimise

    ½ Σ_k w_cop |z_k − z_ref,k|² + w_vel |ċ_{k+1} − v_ref,k+1|² + w_dcop |z_k − z_{k−1}|²
          + w_lat (n_{k+1}·(c_{k+1} − b_{k+1}))²,        ċ = ω(ξ − s)/2, c = (ξ + s)/2

with b the planner's body path and n its sideways unit normal. The footholds are fixed (the
planner places them astride b); the CoP reference alone re-centres a CoM that strayed sideways,
but slowly, and in closed loop the whole-body controller's small tracking errors, re-planned
from every tick, added up to a sideways drift of 3–5 cm over a 10 s walk (measured, bouncy
style) — until the CoP saturated at a sole edge and the robot fell. The last term re-centres
faster (``test_mpc``: the offset over the next second at least halved).

Subject to the dynamics (equalities, kept *sparse*: states and CoPs are all decision variables),
x_0 = the measured CoM state, and z_k inside the support polygon of the planned contacts at the
middle of its step (:mod:`mpc_node.support`; the hull of both soles in double support). CoM and
CoP are optimized jointly. With the CoP as input (rather than the CoM jerk) every row is well
scaled, which OSQP needs. Frames: world, metres.

The QP is set up once and updated in place each solve (OSQP warm start); a failed solve keeps
the previous plan, which continues in time (``MpcResult.ok`` is False and the reason is in
``status``): the caller logs it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import osqp
from scipy import sparse

from biped_common.config import bounded
from biped_common.com_plan import GRAVITY_M_S2, ComPlan
from biped_common.robot_model import FootGeometry
from mpc_node.support import MAX_EDGES, SupportSchedule, support_polygons

NX = 4  # (ξx, sx, ξy, sy): divergent and convergent components per axis
NU = 2  # (zx, zy): the CoP
# The initial DCM is pinned by a stiff cost instead of an equality: when the measured DCM cannot
# be caught by CoPs inside the planned supports over the horizon (the robot was pushed, or a
# step landed badly), a hard equality leaves only solutions that explode like e^{ωT}, and OSQP
# then (correctly, to its tolerance) reports the problem infeasible. The cost keeps the plan
# bounded; the WBC's CoM feedback closes the remaining gap. 1 mm of DCM mismatch costs as much
# as a 10 cm CoP error.
INITIAL_DCM_WEIGHT = 1e4


@dataclass(frozen=True)
class MpcConfig:
    """Horizon, weights and margins of the CoM MPC (SI units)."""

    dt_s: float = bounded(0.01, 0.5, "s", "preview step")
    steps: int = bounded(5, 100, "", "preview steps (horizon = dt · steps)")
    com_height_m: float = bounded(0.1, 3.0, "m", "CoM height of the pendulum")
    weight_cop: float = bounded(0.0, 1e6, "", "CoP tracking weight [1/m²]")
    weight_velocity: float = bounded(0.0, 1e6, "", "CoM velocity tracking weight [s²/m²]")
    weight_cop_rate: float = bounded(1e-9, 1e6, "", "CoP step-to-step change weight [1/m²]")
    weight_lateral: float = bounded(0.0, 1e6, "", "CoM lateral offset from the body path weight [1/m²]")
    support_margin_m: float = bounded(0.0, 0.05, "m", "sole rectangle shrink")
    disturbance_time_constant_s: float = bounded(0.01, 10.0, "s", "time constant of the push estimate")
    max_disturbance_m_s2: float = bounded(0.0, 20.0, "m/s²", "largest push (force / mass) allowed for (0: none)")

    @classmethod
    def default(cls, com_height_m: float) -> "MpcConfig":
        """2 s preview at 50 ms steps (≈4 steps of a 1 s cycle)."""
        return cls(dt_s=0.05, steps=40, com_height_m=com_height_m, weight_cop=1.0,
                   weight_velocity=0.1, weight_cop_rate=0.5, weight_lateral=5.0, support_margin_m=0.015,
                   disturbance_time_constant_s=0.2, max_disturbance_m_s2=4.0)

    @property
    def omega_per_s(self) -> float:
        """ω = √(g/h) [1/s], the pendulum's natural frequency."""
        return float(np.sqrt(GRAVITY_M_S2 / self.com_height_m))


@dataclass(frozen=True)
class MpcResult:
    """One solve: the plan (new, or the previous one when the solve failed), whether it is new,
    OSQP's status, the solve time [s] and the CoP reference (N, 2) it tracked."""

    plan: ComPlan
    ok: bool
    status: str
    solve_time_s: float
    cop_reference: np.ndarray


def _project_into(point: np.ndarray, normals: np.ndarray, offsets: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """``point`` if inside the polygon {p: normals p ≤ offsets}, else the point where the segment
    from ``centre`` (inside) to it leaves the polygon."""
    excess = normals @ point - offsets
    if np.all(excess <= 0.0):
        return point
    direction = point - centre
    along = normals @ direction
    slack = offsets - normals @ centre
    with np.errstate(divide="ignore"):
        fractions = np.where(along > 0, slack / along, np.inf)
    return centre + min(1.0, float(fractions.min())) * direction


def to_components(com_state: np.ndarray, omega: float) -> np.ndarray:
    """(cx, ċx, cy, ċy) → (ξx, sx, ξy, sy)."""
    c, v = com_state[[0, 2]], com_state[[1, 3]]
    xi, s = c + v / omega, c - v / omega
    return np.array([xi[0], s[0], xi[1], s[1]])


def from_components(components: np.ndarray, omega: float) -> np.ndarray:
    """(…, 4) (ξx, sx, ξy, sy) → (…, 4) (cx, ċx, cy, ċy)."""
    xi, s = components[..., [0, 2]], components[..., [1, 3]]
    c, v = (xi + s) / 2, omega * (xi - s) / 2
    return np.stack([c[..., 0], v[..., 0], c[..., 1], v[..., 1]], axis=-1)


class SparsePattern:
    """A fixed sparsity pattern given as (row, col) triplets: CSC matrices and data arrays for
    any triplet values, zeros kept as structural entries (OSQP updates data in place, so the
    pattern must never change)."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]):
        marker = sparse.csc_matrix((np.arange(1.0, rows.size + 1), (rows, cols)), shape=shape)
        if marker.nnz != rows.size:
            raise ValueError("duplicate entries in a sparsity pattern")
        self.shape, self.indices, self.indptr = shape, marker.indices, marker.indptr
        self._source = (marker.data - 1).astype(int)  # per CSC position, its triplet

    def data(self, values: np.ndarray) -> np.ndarray:
        """Triplet-ordered values → CSC data order."""
        return values[self._source]

    def matrix(self, values: np.ndarray) -> sparse.csc_matrix:
        return sparse.csc_matrix((self.data(values), self.indices, self.indptr), shape=self.shape)


class ComMpc:
    """The QP above, built once (fixed sparsity) and re-solved with new data each tick."""

    def __init__(self, config: MpcConfig, foot: FootGeometry):
        self.config = config
        self.foot = foot
        n = config.steps
        self._nx = NX * (n + 1)
        self._nvar = self._nx + NU * n
        # Every matrix entry OSQP will see, as triplets in a fixed order (:class:`SparsePattern`),
        # so the values that change per solve (the support polygons' normals, the body path's
        # sideways direction) update in place — zeros included.
        eq_rows, eq_cols, self._eq_values = self._equality_entries()
        self._n_eq = int(eq_rows.max()) + 1
        cop_rows = self._n_eq + np.repeat(np.arange(n * MAX_EDGES), 2)
        cop_cols = np.concatenate([[self._nx + NU * k, self._nx + NU * k + 1] * MAX_EDGES for k in range(n)])
        self._a_pattern = SparsePattern(np.concatenate([eq_rows, cop_rows]), np.concatenate([eq_cols, cop_cols]),
                                        (self._n_eq + n * MAX_EDGES, self._nvar))
        p_rows, p_cols, self._p_base = self._cost_pattern()
        self._p_pattern = SparsePattern(p_rows, p_cols, (self._nvar, self._nvar))
        self._solver = osqp.OSQP()
        lower = np.concatenate([np.zeros(self._n_eq), -np.inf * np.ones(n * MAX_EDGES)])
        upper = np.concatenate([np.zeros(self._n_eq), np.ones(n * MAX_EDGES)])
        # Set up with no zero value anywhere (a solver may prune explicit zeros from its copy);
        # every solve then writes the exact values, zeros included, into the same pattern.
        a_setup = self._constraint_values(np.ones((n, MAX_EDGES, 2)))
        p_setup = self._cost_values(np.full((n, 2), np.sqrt(0.5)))
        self._solver.setup(self._p_pattern.matrix(np.where(p_setup == 0.0, 1e-12, p_setup)), np.zeros(self._nvar),
                           self._a_pattern.matrix(np.where(a_setup == 0.0, 1e-12, a_setup)), lower, upper,
                           verbose=False, warm_starting=True, polishing=False, eps_abs=1e-6, eps_rel=1e-6,
                           max_iter=4000)
        self._last: ComPlan | None = None
        self._hulls: dict = {}  # double-support polygons by corner positions (they recur)

    # -- construction --------------------------------------------------------------------------
    def _cost_pattern(self):
        """Upper-triangle cost entries (rows, cols) and their constant values: the initial DCM's
        stiff diagonal; per node 1..N its full 4×4 block of (ξx, sx, ξy, sy) holding the
        velocity term — ċ = ω(ξ − s)/2 per axis gives w_vel (ω/2)² [[1, −1], [−1, 1]] — to which
        :meth:`_cost_values` adds the sideways term each solve; then the CoPs'
        w_cop I + w_dcop DᵀD, D the step-to-step difference (z_{−1}, the current CoP, enters the
        linear term)."""
        cfg, n = self.config, self.config.steps
        rows, cols, vals = [0, 2], [0, 2], [INITIAL_DCM_WEIGHT] * 2
        block_i, block_j = self._block_triu = np.triu_indices(NX)
        velocity = cfg.weight_velocity * (cfg.omega_per_s / 2) ** 2 * np.kron(np.eye(2), [[1.0, -1.0], [-1.0, 1.0]])
        for k in range(1, n + 1):
            rows += list(NX * k + block_i)
            cols += list(NX * k + block_j)
            vals += list(velocity[block_i, block_j])
        d = np.diag(np.ones(n)) - np.diag(np.ones(n - 1), -1)
        cop_axis = cfg.weight_cop * np.eye(n) + cfg.weight_cop_rate * (d.T @ d)
        for i, j in zip(*np.nonzero(np.triu(cop_axis))):
            for axis in range(NU):
                rows.append(self._nx + NU * i + axis)
                cols.append(self._nx + NU * j + axis)
                vals.append(cop_axis[i, j])
        self._block_slice = slice(2, 2 + n * block_i.size)
        return np.array(rows), np.array(cols), np.array(vals)

    def _cost_values(self, lateral: np.ndarray) -> np.ndarray:
        """The cost entries with the sideways offset from the body path added to each node's
        block: l = n·c − n·b, c = (ξ + s)/2, gives w_lat g gᵀ / 4 with g = (n_x, n_x, n_y, n_y)
        (``lateral`` (N, 2) the unit normals n, zero when the term is off)."""
        values = self._p_base.copy()
        g = np.repeat(lateral, 2, axis=1)
        block_i, block_j = self._block_triu
        values[self._block_slice] += (self.config.weight_lateral / 4 * g[:, block_i] * g[:, block_j]).ravel()
        return values

    def _equality_entries(self):
        """Rows, cols and values of the equalities: the initial components, then per step and
        axis the s and ξ recursions (a = e^{−ω dt})."""
        n, a = self.config.steps, float(np.exp(-self.config.omega_per_s * self.config.dt_s))
        rows, cols, vals = list(range(NX)), list(range(NX)), [1.0] * NX
        r = NX
        for k in range(n):
            for axis in range(2):
                xi_k, s_k = NX * k + 2 * axis, NX * k + 2 * axis + 1
                z = self._nx + NU * k + axis
                # s_{k+1} − a s_k − (1 − a) z_k = 0;  ξ_k − a ξ_{k+1} − (1 − a) z_k = 0
                rows += [r] * 3 + [r + 1] * 3
                cols += [s_k + NX, s_k, z, xi_k, xi_k + NX, z]
                vals += [1.0, -a, -(1.0 - a), 1.0, -a, -(1.0 - a)]
                r += 2
        return np.array(rows), np.array(cols), np.array(vals)

    def _constraint_values(self, normals: np.ndarray) -> np.ndarray:
        """Equality entries, then the CoP rows' outward normals (N, MAX_EDGES, 2), in triplet order."""
        return np.concatenate([self._eq_values, normals.reshape(-1)])

    # -- solve ---------------------------------------------------------------------------------
    def solve(self, now_s: float, com_state: np.ndarray, current_cop: np.ndarray,
              schedule: SupportSchedule, velocity_reference: np.ndarray,
              body_path: np.ndarray | None = None, disturbance_m_s2=(0.0, 0.0)) -> MpcResult:
        """Plan from the CoM state (cx, ċx, cy, ċy) [m, m/s] and CoP (2,) [m] at ``now_s`` [s].
        ``schedule`` holds times relative to now; each MPC step takes the contacts at the latest
        schedule time ≤ its middle. ``velocity_reference`` is (len(schedule), 2): the world-frame
        CoM velocity [m/s] wanted at the schedule's times. ``body_path`` (len(schedule), 3): the
        planner's body pose (x, y, yaw) [m, rad] at the schedule's times — the path its footholds
        straddle — from which the CoM's sideways offset is penalized while walking (None: no
        such term). ``disturbance_m_s2`` (2,): a constant external acceleration δ [m/s²] (a push's
        force / mass) the plan allows for: the pendulum c̈ = ω²(c − z) + δ is solved as the plain
        one of c' = c + δ/ω² (:mod:`biped_common.com_plan`), so the CoP leans into the push.
        Non-finite input → ValueError."""
        cfg, n = self.config, self.config.steps
        com_state = np.asarray(com_state, dtype=float)
        current_cop = np.asarray(current_cop, dtype=float)
        if com_state.shape != (NX,) or not np.all(np.isfinite(com_state)):
            raise ValueError(f"CoM state must be 4 finite numbers, got {com_state}")
        if current_cop.shape != (2,) or not np.all(np.isfinite(current_cop)):
            raise ValueError(f"CoP must be 2 finite numbers, got {current_cop}")
        velocity_reference = np.asarray(velocity_reference, dtype=float)
        if velocity_reference.shape != (schedule.times_s.size, 2) or not np.all(np.isfinite(velocity_reference)):
            raise ValueError("velocity reference must be finite with one row per schedule time")
        disturbance = np.asarray(disturbance_m_s2, dtype=float)
        if disturbance.shape != (2,) or not np.all(np.isfinite(disturbance)):
            raise ValueError(f"disturbance must be 2 finite numbers, got {disturbance_m_s2}")
        shift = disturbance / cfg.omega_per_s**2  # c' = c + δ/ω²
        if np.any(shift):
            com_state = com_state.copy()
            com_state[[0, 2]] += shift
            if body_path is not None:
                body_path = np.asarray(body_path, dtype=float).copy()
                body_path[:, :2] += shift
        middles = cfg.dt_s * (np.arange(n) + 0.5)
        index = np.clip(np.searchsorted(schedule.times_s, middles, side="right") - 1, 0, schedule.times_s.size - 1)
        sub = SupportSchedule(middles, schedule.left_stance[index], schedule.right_stance[index],
                              schedule.left_pose[index], schedule.right_pose[index])
        normals, offsets, centres = support_polygons(sub, self.foot, cfg.support_margin_m, self._hulls)
        standing = bool(np.all(sub.left_stance & sub.right_stance) and np.allclose(offsets, offsets[0])
                        and np.allclose(normals, normals[0]))
        if standing:
            # Standing (one unchanging double support over the whole preview): no reason to move
            # the CoM, so the CoP reference is the CoM's own ground projection (kept inside) and
            # the sideways term is off.
            centres = np.tile(_project_into(com_state[[0, 2]], normals[0], offsets[0], centres[0]), (n, 1))
        ends = cfg.dt_s * np.arange(1, n + 1)
        v_ref = np.stack([np.interp(ends, schedule.times_s, velocity_reference[:, i]) for i in range(2)], axis=1)
        lateral, lateral_target = np.zeros((n, 2)), np.zeros(n)
        if body_path is not None:
            body_path = np.asarray(body_path, dtype=float)
            if body_path.shape != (schedule.times_s.size, 3) or not np.all(np.isfinite(body_path)):
                raise ValueError("body path must be finite (x, y, yaw) with one row per schedule time")
        if body_path is not None and not standing:
            yaw = np.interp(ends, schedule.times_s, np.unwrap(body_path[:, 2]))
            lateral = np.column_stack([-np.sin(yaw), np.cos(yaw)])
            lateral_target = (lateral[:, 0] * np.interp(ends, schedule.times_s, body_path[:, 0])
                              + lateral[:, 1] * np.interp(ends, schedule.times_s, body_path[:, 1]))

        q = np.zeros(self._nvar)
        states = q[NX:self._nx].reshape(n, 2, 2)  # (step, axis, [ξ, s])
        half = cfg.omega_per_s / 2
        states[:, :, 0] = -cfg.weight_velocity * half * v_ref
        states[:, :, 1] = cfg.weight_velocity * half * v_ref
        # Lateral offset w_lat (n·c − n·b)², c = (ξ + s)/2: linear part −w_lat (n·b) g/2.
        states -= (cfg.weight_lateral / 2 * lateral_target)[:, None, None] * lateral[:, :, None]
        initial = to_components(com_state, cfg.omega_per_s)
        cops = q[self._nx:].reshape(n, 2)
        cops[:] = -cfg.weight_cop * centres
        cops[0] -= cfg.weight_cop_rate * current_cop
        q[[0, 2]] = -INITIAL_DCM_WEIGHT * initial[[0, 2]]
        free = np.array([True, False, True, False])  # ξ_0 by cost (INITIAL_DCM_WEIGHT), s_0 pinned
        lower = np.concatenate([np.where(free, -np.inf, initial), np.zeros(self._n_eq - NX),
                                -np.inf * np.ones(n * MAX_EDGES)])
        upper = np.concatenate([np.where(free, np.inf, initial), np.zeros(self._n_eq - NX), offsets.ravel()])
        ax = self._a_pattern.data(self._constraint_values(normals))
        px = self._p_pattern.data(self._cost_values(lateral))
        start = time.perf_counter()
        self._solver.update(q=q, l=lower, u=upper, Px=px, Ax=ax)
        result = self._solver.solve(raise_error=False)
        elapsed = time.perf_counter() - start
        x = result.x
        ok = result.info.status_val in (1, 2) and x is not None and bool(np.all(np.isfinite(x)))
        if ok:
            states = from_components(x[:self._nx].reshape(n + 1, NX), cfg.omega_per_s)
            states[:, [0, 2]] -= shift
            plan = ComPlan(now_s, cfg.dt_s, states, x[self._nx:].reshape(n, NU), cfg.omega_per_s,
                           (float(disturbance[0]), float(disturbance[1])))
            self._last = plan
        else:
            plan = self._fallback_plan(now_s, com_state)
        return MpcResult(plan, ok, str(result.info.status), elapsed, centres)

    def _fallback_plan(self, now_s: float, com_state: np.ndarray) -> ComPlan:
        """The last plan (:meth:`ComPlan.at` continues it in time), or — before any success — a
        plan holding the CoP under the CoM."""
        if self._last is not None:
            return self._last
        n = self.config.steps
        still = com_state.copy()
        still[[1, 3]] = 0.0
        return ComPlan(now_s, self.config.dt_s, np.tile(still, (n + 1, 1)), np.tile(still[[0, 2]], (n, 1)),
                       self.config.omega_per_s)
