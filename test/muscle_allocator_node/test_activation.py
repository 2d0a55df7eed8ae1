"""Activation dynamics: the form MuJoCo integrates, converging (source 001's sign is wrong), and an
excitation that reaches a desired activation in one step."""

import mujoco
import numpy as np
import pytest

from muscle_allocator_node.activation import (DEFAULT_TIMES, ActivationTimes, activation_rate,
                                              anticipating_excitation, step_activation)


def test_rate_matches_mujocos_muscle_dynamics():
    rng = np.random.default_rng(1)
    prm = np.array([DEFAULT_TIMES.activation_s, DEFAULT_TIMES.deactivation_s, 0.0])
    for _ in range(500):
        u, a = rng.uniform(), rng.uniform()
        assert activation_rate(u, a) == pytest.approx(mujoco.mju_muscleDynamics(u, a, prm), rel=1e-12)


def test_activation_converges_to_the_excitation_and_stays_in_bounds():
    a = np.array([0.0, 1.0, 0.3])
    for _ in range(600):
        a = step_activation(np.array([1.0, 0.0, 0.3]), a, 0.002)
        assert np.all((0 <= a) & (a <= 1))
    np.testing.assert_allclose(a, [1.0, 0.0, 0.3], atol=1e-6)
    # Deactivation is slower than activation.
    rising = step_activation(1.0, 0.5, 0.01)
    falling = step_activation(0.0, 0.5, 0.01)
    assert rising - 0.5 > 0.5 - falling


def test_anticipating_excitation_reaches_a_reachable_target_in_one_step():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.1, 0.9, 50)
    # Reachable in one step: between full deactivation (u = 0) and full activation (u = 1).
    lowest, highest = step_activation(np.zeros(50), a, 0.002), step_activation(np.ones(50), a, 0.002)
    target = lowest + rng.uniform(0.0, 1.0, 50) * (highest - lowest)
    u = anticipating_excitation(target, a, 0.002)
    np.testing.assert_allclose(step_activation(u, a, 0.002), target, atol=1e-12)
    assert np.all(anticipating_excitation(1.0, np.zeros(3), 0.002) == 1.0)  # too far: saturates


def test_bad_time_constants_are_refused():
    with pytest.raises(ValueError):
        ActivationTimes(0.0, 0.04)
