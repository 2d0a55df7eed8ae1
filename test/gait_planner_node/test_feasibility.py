"""A style's accelerations are bounded at load (gait_planner_node/feasibility.py)."""

import pytest

from gait_planner_node.feasibility import (MAX_PELVIS_VERTICAL_ACCELERATION_M_S2, MAX_SWING_ACCELERATION_M_S2,
                                           limit_sample, pelvis_peak_vertical_acceleration_m_s2,
                                           swing_peak_acceleration_m_s2)
from gait_planner_node.style import load_style


def test_neutral_asks_nothing_beyond_the_limits():
    assert load_style("neutral").limited == ()


def test_bouncys_fast_samples_are_scaled_to_exactly_the_limits_with_the_reason():
    style = load_style("bouncy")
    assert any("forward_fast.left_swing" in r and "m/s²" in r for r in style.limited)
    assert any("forward_fast.pelvis.height_m" in r for r in style.limited)
    fast = style.samples["forward_fast"]
    assert swing_peak_acceleration_m_s2(fast.left_swing, fast.timing.left_swing_s) == pytest.approx(
        MAX_SWING_ACCELERATION_M_S2, rel=1e-6)
    assert pelvis_peak_vertical_acceleration_m_s2(fast.pelvis.height_m, fast.timing) == pytest.approx(
        MAX_PELVIS_VERTICAL_ACCELERATION_M_S2, rel=1e-6)
    for sample in style.samples.values():  # every sample within them now
        assert swing_peak_acceleration_m_s2(sample.right_swing, sample.timing.right_swing_s) <= MAX_SWING_ACCELERATION_M_S2 * (1 + 1e-9)
        assert pelvis_peak_vertical_acceleration_m_s2(sample.pelvis.height_m, sample.timing) <= \
            MAX_PELVIS_VERTICAL_ACCELERATION_M_S2 * (1 + 1e-9)


def test_scaling_keeps_the_shape_and_the_pelvis_crouch():
    style = load_style("bouncy")
    fast = style.samples["forward_fast"]
    again, reasons = limit_sample("forward_fast", fast)  # already within: unchanged
    assert reasons == [] and again == fast
    heights = fast.pelvis.height_m.values
    assert sum(heights) / len(heights) == pytest.approx(-0.015)  # the mean knot of bouncy's [-0.03, 0, -0.03, 0]
    assert fast.left_swing.height_m.phases == (0.35, 0.6)
