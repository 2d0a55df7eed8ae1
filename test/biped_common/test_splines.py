"""Periodic cubic splines: interpolation, periodic continuity up to the second derivative."""

import numpy as np
import pytest

from biped_common.splines import PeriodicCubicSpline


def test_interpolates_and_wraps_smoothly():
    spline = PeriodicCubicSpline([0.0, 0.1, 0.5, 0.6], [0.0, 1.0, -1.0, 0.5])
    np.testing.assert_allclose(spline([0.0, 0.1, 0.5, 0.6]), [0.0, 1.0, -1.0, 0.5], atol=1e-12)
    for derivative in (0, 1, 2):
        assert spline(1.0 - 1e-9, derivative) == pytest.approx(spline(1e-9, derivative), abs=1e-5)
        assert spline(0.3, derivative) == pytest.approx(spline(2.3, derivative))


def test_vector_values_and_bad_knots():
    spline = PeriodicCubicSpline([0.0, 0.5], [[0.0, 1.0], [1.0, 0.0]])
    assert spline(0.25).shape == (2,)
    with pytest.raises(ValueError):
        PeriodicCubicSpline([0.0, 0.5, 0.4], [0, 1, 2])
    with pytest.raises(ValueError):
        PeriodicCubicSpline([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError):
        PeriodicCubicSpline([0.0, 0.5], [0, np.nan])
