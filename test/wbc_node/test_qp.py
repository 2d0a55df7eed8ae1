"""The QP front end: every solver agrees on random well-posed problems; failures are reported."""

import numpy as np
import pytest

from wbc_node.qp import SOLVERS, solve_qp


def random_qp(rng, n=20, n_eq=4, n_in=30):
    m = rng.normal(size=(n, n))
    h = m @ m.T + 0.1 * np.eye(n)
    c = rng.normal(size=n)
    a = rng.normal(size=(n_eq, n))
    x_feasible = rng.normal(size=n)
    g = rng.normal(size=(n_in, n))
    return h, c, g, g @ x_feasible + rng.uniform(0.0, 1.0, n_in), a, a @ x_feasible


@pytest.mark.parametrize("seed", range(5))
def test_every_solver_finds_the_same_optimum(seed):
    problem = random_qp(np.random.default_rng(seed))
    solutions = {}
    for solver in SOLVERS:
        solution = solve_qp(*problem, solver=solver)
        assert solution.ok, (solver, solution.status)
        solutions[solver] = solution.x
    for solver, x in solutions.items():
        np.testing.assert_allclose(x, solutions["quadprog"], atol=1e-4, err_msg=solver)


@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible_problem_is_reported_not_returned(solver):
    h, c = np.eye(2), np.zeros(2)
    g = np.array([[1.0, 0.0], [-1.0, 0.0]])
    bounds = np.array([-1.0, -1.0])  # x ≤ −1 and x ≥ 1
    solution = solve_qp(h, c, g, bounds, np.zeros((0, 2)), np.zeros(0), solver=solver)
    assert not solution.ok and solution.x is None


def test_unknown_solver_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown QP solver 'cplex'"):
        solve_qp(np.eye(1), np.zeros(1), np.zeros((0, 1)), np.zeros(0), np.zeros((0, 1)), np.zeros(0), solver="cplex")
