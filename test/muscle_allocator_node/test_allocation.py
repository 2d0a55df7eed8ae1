"""The allocation QP: matches an independent solver (scipy SLSQP) on random well-posed problems;
a torque beyond the muscles' capacity gives the best effort with its residual; bad input is named."""

import numpy as np
import pytest
from scipy.optimize import minimize

from muscle_allocator_node import allocate
from muscle_allocator_node.allocation import BEST_EFFORT, OPTIMAL, Allocator


def random_problem(rng, dofs, muscles):
    moment_arms = rng.uniform(-0.05, 0.05, (dofs, muscles))
    active = rng.uniform(100.0, 1500.0, muscles)
    passive = rng.uniform(0.0, 50.0, muscles)
    # A torque the muscles can produce: from activations inside the bounds.
    torque = moment_arms @ (rng.uniform(0.05, 0.6, muscles) * active + passive)
    return moment_arms, active, passive, torque


def slsqp(moment_arms, active, passive, torque, weights):
    gain, target = moment_arms * active, torque - moment_arms @ passive
    weights = weights / weights.max()  # the same minimizer; SLSQP needs a well-scaled objective
    result = minimize(lambda a: a @ (weights * a), np.full(active.size, 0.3), jac=lambda a: 2 * weights * a,
                      constraints=[{"type": "eq", "fun": lambda a: gain @ a - target, "jac": lambda a: gain}],
                      bounds=[(0.0, 1.0)] * active.size, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert result.success
    return result.x


@pytest.mark.parametrize("criterion", ["activation_squared", "force_squared", "force_squared_fmax"])
def test_matches_slsqp_on_random_well_posed_problems(criterion):
    rng = np.random.default_rng(11)
    for trial in range(40):
        dofs, muscles = int(rng.integers(1, 5)), int(rng.integers(6, 25))
        problem = random_problem(rng, dofs, muscles)
        max_force = problem[1] * rng.uniform(1.0, 2.0, muscles)  # peak forces above this state's
        if criterion == "force_squared_fmax":
            result = allocate(*problem, criterion="force_squared", max_force=max_force)
            weights = max_force**2
        else:
            result = allocate(*problem, criterion=criterion)
            weights = np.ones(muscles) if criterion == "activation_squared" else problem[1] ** 2
        assert result.status == OPTIMAL
        np.testing.assert_allclose(result.activations, slsqp(*problem, weights), atol=1e-5)
        assert np.all(np.abs(result.residual_torque) <= 1e-6 * max(1.0, np.abs(problem[3]).max()))
        assert np.all((result.activations >= 0.0) & (result.activations <= 1.0))


def test_torque_beyond_capacity_gives_the_least_squares_best_effort_and_its_residual():
    moment_arms = np.array([[0.04, 0.03, -0.04]])  # two flexors, one extensor
    active, passive = np.array([500.0, 400.0, 600.0]), np.zeros(3)
    capacity = 0.04 * 500 + 0.03 * 400
    result = allocate(moment_arms, active, passive, [capacity + 10.0])
    assert result.status == BEST_EFFORT
    np.testing.assert_allclose(result.activations, [1.0, 1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(result.residual_torque, [10.0], atol=1e-6)


def test_coactivation_and_rate_penalties_do_what_they_say():
    moment_arms = np.array([[0.04, -0.04, 0.02]])
    active, passive, torque = np.array([500.0, 500.0, 500.0]), np.zeros(3), np.array([5.0])
    plain = allocate(moment_arms, active, passive, torque, a_min=0.1)  # the extensor is held at ≥ 0.1
    calm = allocate(moment_arms, active, passive, torque, a_min=0.1, coactivation_weight=1e-2)
    # With the floor on every muscle, the co-activation penalty pushes effort to the stronger arm.
    assert calm.status == plain.status == OPTIMAL
    total = lambda r: np.sum(np.abs(moment_arms) * active * r.activations)
    assert total(calm) <= total(plain) + 1e-9
    previous = np.array([0.5, 0.1, 0.5])
    steady = allocate(moment_arms, active, passive, torque, rate_weight=100.0, previous_activations=previous)
    free = allocate(moment_arms, active, passive, torque)
    assert np.linalg.norm(steady.activations - previous) < np.linalg.norm(free.activations - previous)


def test_warm_started_allocator_agrees_with_the_one_shot_function():
    rng = np.random.default_rng(5)
    allocator = Allocator(2, 8)
    for _ in range(20):
        problem = random_problem(rng, 2, 8)
        np.testing.assert_allclose(allocator.solve(*problem).activations, allocate(*problem).activations, atol=1e-7)


@pytest.mark.parametrize("change, message", [
    (dict(torque=[1.0, 2.0]), "shapes"),
    (dict(active_force=[np.nan, 1.0, 1.0]), "active_force"),
    (dict(a_min=0.8, a_max=0.2), "a_min"),
])
def test_bad_input_is_named(change, message):
    args = dict(moment_arms=np.ones((1, 3)) * 0.03, active_force=np.ones(3) * 100, passive_force=np.zeros(3),
                torque=[1.0])
    args.update(change)
    with pytest.raises(ValueError, match=message):
        allocate(**args)
