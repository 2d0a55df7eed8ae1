"""Sampler: convex weights, key samples reproduced exactly, parameters C¹ across regions."""

import numpy as np
import pytest

from gait_planner_node.sampler import SWING_CURVES, blend, f_soft, sample_weights
from gait_planner_node.style import SAMPLE_KEYS, load_style, shipped_styles

STYLES = {name: load_style(name) for name in shipped_styles()}


def velocity_grid(style, n=9):
    s = style.samples
    vx = np.linspace(s["backward_fast"].velocity[0] * 1.2, s["forward_fast"].velocity[0] * 1.2, n)
    vy = np.linspace(s["sidestep_right"].velocity[1] * 1.2, s["sidestep_left"].velocity[1] * 1.2, n)
    wz = np.linspace(s["turn_right"].velocity[2] * 1.2, s["turn_left"].velocity[2] * 1.2, n)
    return np.stack(np.meshgrid(vx, vy, wz), axis=-1).reshape(-1, 3)


def test_f_soft_has_zero_slope_at_both_ends():
    assert f_soft(0.0) == 0.0 and f_soft(1.0) == 1.0
    eps = 1e-6
    assert (f_soft(eps) - f_soft(0.0)) / eps == pytest.approx(0.0, abs=1e-5)
    assert (f_soft(1.0) - f_soft(1.0 - eps)) / eps == pytest.approx(0.0, abs=1e-5)


@pytest.mark.parametrize("name", sorted(STYLES))
def test_weights_are_convex_over_a_dense_grid(name):
    style = STYLES[name]
    for v in velocity_grid(style):
        w = np.array(list(sample_weights(style, v).values()))
        assert np.all(w >= -1e-15) and w.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(STYLES))
def test_the_nine_samples_are_reproduced_exactly(name):
    style = STYLES[name]
    for key in SAMPLE_KEYS:
        sample = style.samples[key]
        gait = blend(style, sample.velocity)
        assert gait.weights == {key: 1.0}
        assert gait.timing == sample.timing
        assert gait.attributes == sample.attributes
        phases = np.linspace(0, 0.999, 37)
        swing = gait.feet_swing(phases)  # SWING_CURVES of the left foot, then of the right
        for column, name in enumerate(SWING_CURVES):
            np.testing.assert_allclose(swing[:, column], getattr(sample.left_swing, name)(phases), atol=1e-12)
            np.testing.assert_allclose(swing[:, 5 + column], getattr(sample.right_swing, name)(phases), atol=1e-12)
        np.testing.assert_allclose(gait.cycle(phases)[:, 0], sample.pelvis.height_m(phases), atol=1e-12)


@pytest.mark.parametrize("name", sorted(STYLES))
def test_parameters_are_c1_across_sample_regions(name):
    """The cycle period along each axis: its slope is continuous where one region meets the next
    (f_soft makes it zero there) — checked by one-sided finite differences at every key."""
    style = STYLES[name]
    h = 1e-7  # a kink shows as an O(1) gap; smooth curvature only as O(h)
    for key in SAMPLE_KEYS:
        v = np.asarray(style.samples[key].velocity, dtype=float)
        for axis in range(3):
            step = np.zeros(3)
            step[axis] = h
            period = lambda u: blend(style, u).timing.cycle_s  # noqa: E731
            left = (period(v) - period(v - step)) / h
            right = (period(v + step) - period(v)) / h
            assert left == pytest.approx(right, abs=1e-3), (key, axis, left, right)
