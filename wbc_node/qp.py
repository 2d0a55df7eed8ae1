"""Dense convex QP front end for the whole-body controller, over several solvers.

    minimise ½ xᵀ H x + cᵀ x   subject to  G x ≤ h,  A x = b

The whole-body controller uses DAQP (Arnström et al. 2022, a dual active-set solver for dense
QPs): on the controller's own problems (42 variables on the biped, 57 on the humanoid, captured
from walking runs) ``bench/wbc_qp_solvers.py`` measured its median at 0.6–0.9× quadprog's,
ProxQP at 1.6–1.8× (with occasional failures to converge), OSQP at 11–15×. Every solver's answer is checked (finite, constraints within tolerance)
before it is used: a failure is reported, never returned as a solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from biped_common.small_math import all_finite

SOLVERS = ("quadprog", "daqp", "proxqp", "osqp")


@dataclass(frozen=True)
class QpSolution:
    ok: bool
    status: str
    x: np.ndarray | None


def solve_qp(h_mat, c, g_mat, h_vec, a_mat, b_vec, solver: str = "quadprog",
             tolerance: float = 1e-5) -> QpSolution:
    """Solve the QP above with ``solver`` (one of :data:`SOLVERS`); never raises on a numerical
    failure (status says what happened)."""
    if solver not in SOLVERS:
        raise ValueError(f"unknown QP solver {solver!r}; choose from {SOLVERS}")
    try:
        x = _SOLVE[solver](h_mat, c, g_mat, h_vec, a_mat, b_vec)
    except (ValueError, ArithmeticError, RuntimeError) as error:
        return QpSolution(False, f"{type(error).__name__}: {error}", None)
    if x is None or not all_finite(x):
        return QpSolution(False, "no finite solution", None)
    scale = 1.0 + np.abs(b_vec).max(initial=0.0)
    if np.abs(a_mat @ x - b_vec).max(initial=0.0) > tolerance * scale * 10 or \
            (g_mat @ x - h_vec).max(initial=0.0) > tolerance * (1.0 + np.abs(h_vec).max(initial=0.0)) * 10:
        return QpSolution(False, "solution violates the constraints", None)
    return QpSolution(True, "solved", x)


def _quadprog(h_mat, c, g_mat, h_vec, a_mat, b_vec):
    import quadprog
    # quadprog: min ½xᵀGx − aᵀx s.t. Cᵀx ≥ b, the first meq rows equalities.
    constraints = np.vstack([a_mat, -g_mat]).T
    bounds = np.concatenate([b_vec, -h_vec])
    return quadprog.solve_qp(h_mat, -c, constraints, bounds, a_mat.shape[0])[0]


def _daqp(h_mat, c, g_mat, h_vec, a_mat, b_vec):
    import daqp
    a = np.vstack([a_mat, g_mat])
    upper = np.concatenate([b_vec, h_vec])
    no_lower, sense = _daqp_rows(b_vec.size, h_vec.size)
    lower = np.concatenate([b_vec, no_lower])
    x, _, exitflag, _ = daqp.solve(np.ascontiguousarray(h_mat), c, a, upper, lower, sense)
    return x if exitflag > 0 else None


@lru_cache(maxsize=16)
def _daqp_rows(n_equalities: int, n_inequalities: int) -> tuple[np.ndarray, np.ndarray]:
    """DAQP's lower bounds of the inequality rows (none) and every row's sense (5: equality,
    0: inequality), built once per problem size (the WBC solves a few sizes, 500 times a second)."""
    import ctypes
    sense = np.concatenate([np.full(n_equalities, 5), np.zeros(n_inequalities)]).astype(ctypes.c_int)
    return np.full(n_inequalities, -1e30), sense  # (not made read-only: DAQP's binding refuses that)


def _proxqp(h_mat, c, g_mat, h_vec, a_mat, b_vec):
    import proxsuite
    n = h_mat.shape[0]
    qp = proxsuite.proxqp.dense.QP(n, a_mat.shape[0], g_mat.shape[0])
    qp.settings.eps_abs = 1e-7
    qp.init(h_mat, c, a_mat, b_vec, g_mat, np.full(h_vec.size, -1e30), h_vec)
    qp.solve()
    if qp.results.info.status != proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED:
        return None
    return qp.results.x


def _osqp(h_mat, c, g_mat, h_vec, a_mat, b_vec):
    import osqp
    from scipy import sparse
    solver = osqp.OSQP()
    a = sparse.csc_matrix(np.vstack([a_mat, g_mat]))
    lower = np.concatenate([b_vec, np.full(h_vec.size, -np.inf)])
    upper = np.concatenate([b_vec, h_vec])
    solver.setup(sparse.triu(sparse.csc_matrix(h_mat), format="csc"), c, a, lower, upper, verbose=False,
                 eps_abs=1e-7, eps_rel=1e-7, max_iter=20000, polishing=True)
    result = solver.solve(raise_error=False)
    return result.x if result.info.status_val in (1,) else None


_SOLVE = {"quadprog": _quadprog, "daqp": _daqp, "proxqp": _proxqp, "osqp": _osqp}
