"""The fixed-size math helpers agree with numpy's general routines."""

import numpy as np
import pytest

from biped_common.small_math import all_finite, cross3, norm3, solve_spd


def test_small_vector_helpers_match_numpy():
    rng = np.random.default_rng(3)
    for _ in range(50):
        a, b = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(cross3(a, b), np.cross(a, b), atol=1e-15)
        assert norm3(a) == pytest.approx(np.linalg.norm(a), rel=1e-15)
    assert all_finite(np.ones(3), np.zeros(2))
    assert not all_finite(np.ones(3), np.array([0.0, np.nan]))
    assert not all_finite(np.array([np.inf, 1.0]))


@pytest.mark.parametrize("size", [3, 6])
def test_solve_spd_matches_lu_and_falls_back_when_not_positive_definite(size):
    rng = np.random.default_rng(size)
    a = rng.normal(size=(size, size))
    spd = a @ a.T + np.eye(size)
    rhs = rng.normal(size=(size, 4))
    np.testing.assert_allclose(solve_spd(spd, rhs), np.linalg.solve(spd, rhs), atol=1e-12)
    indefinite = np.diag(np.r_[-1.0, np.ones(size - 1)])
    np.testing.assert_allclose(solve_spd(indefinite, rhs), np.linalg.solve(indefinite, rhs), atol=1e-12)
