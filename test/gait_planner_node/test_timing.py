"""Gait timing and phase map: event order by construction, Ω monotone, invertible, C¹."""

import numpy as np
import pytest

from gait_planner_node.timing import EVENT_PHASES, GaitTiming, PhaseMap, MIN_DOUBLE_SUPPORT_S, MIN_SINGLE_SUPPORT_S

RNG = np.random.default_rng(11)


def random_timing():
    return GaitTiming(double_support_after_right_s=RNG.uniform(MIN_DOUBLE_SUPPORT_S, 0.3),
                      left_swing_s=RNG.uniform(MIN_SINGLE_SUPPORT_S, 0.6),
                      double_support_after_left_s=RNG.uniform(MIN_DOUBLE_SUPPORT_S, 0.3),
                      right_swing_s=RNG.uniform(MIN_SINGLE_SUPPORT_S, 0.6))


def test_event_order_holds_for_random_timings_and_blends():
    for _ in range(200):
        timings = [random_timing() for _ in range(RNG.integers(1, 5))]
        weights = RNG.dirichlet(np.ones(len(timings)))
        for timing in timings + [GaitTiming.blend(timings, weights)]:
            times = timing.event_times_s()
            assert np.all(np.diff(times) > 0)
            assert timing.cycle_s == pytest.approx(times[-1])


@pytest.mark.parametrize("field, value", [("left_swing_s", 0.1), ("double_support_after_right_s", 0.0),
                                          ("right_swing_s", -0.3), ("double_support_after_left_s", np.nan)])
def test_infeasible_timing_is_unrepresentable(field, value):
    values = dict(left_swing_s=0.3, double_support_after_left_s=0.1, right_swing_s=0.3, double_support_after_right_s=0.1)
    values[field] = value
    with pytest.raises(ValueError, match=field):
        GaitTiming(**values)


def test_phase_map_hits_events_and_is_monotone_invertible_c1():
    for _ in range(50):
        timing = random_timing()
        m = PhaseMap(timing)
        np.testing.assert_allclose(m.time_s(EVENT_PHASES), timing.event_times_s(), atol=1e-12)
        phases = np.linspace(0.0, 1.0, 20001)
        assert np.all(np.diff(m.time_s(phases)) > 0)
        assert np.all(m.rate(phases) > 0)
        assert m.rate(0.0) == pytest.approx(m.rate(1.0), rel=1e-12)  # C¹ across the cycle boundary
        # C¹ at the interior events: the slope from both sides agrees.
        for event in EVENT_PHASES[1:-1]:
            assert m.rate(event - 1e-12) == pytest.approx(m.rate(event + 1e-12), rel=1e-6)
        samples = RNG.uniform(0, 1, 1000)
        np.testing.assert_allclose(m.phase(m.time_s(samples)), samples, atol=1e-12)


def test_time_mapping_between_cycles_keeps_events_aligned():
    a, b = PhaseMap(random_timing()), PhaseMap(random_timing())
    for event_a, event_b in zip(a.timing.event_times_s()[:-1], b.timing.event_times_s()[:-1]):
        assert b.time_s(a.phase(event_a)) == pytest.approx(event_b, abs=1e-12)  # t_B = Ω_B(Ω_A⁻¹(t_A))
