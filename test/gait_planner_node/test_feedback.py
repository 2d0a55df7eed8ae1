"""Gait feedback (issue #16): the nominal DCM obeys the pendulum, each law acts in its sense and
vanishes inside its dead-band, footholds stay reachable and apart, a pushed standing robot steps
and stands again, and an unpushed planner is the open-loop one."""

import dataclasses
import math

import numpy as np
import pytest

from biped_common.errors import ConfigError
from biped_common.robot_model import load_robot
from biped_common.support_polygon import convex_hull, inside_polygon_m
from gait_planner_node.feedback import (NO_ADJUSTMENT, FeedbackConfig, GaitFeedback, SwingStep, adapt_step,
                                        clamp_foothold, dead_band, nominal_dcm, push_shift_m, time_error_m)
from gait_planner_node.planner import SWING_PHASES, GaitPlanner, PlannerConfig
from gait_planner_node.style import load_style

CONFIG = FeedbackConfig.load()
OMEGA = 4.2


def test_the_shipped_config_loads_and_a_bad_value_names_its_field(tmp_path):
    assert CONFIG.enabled and CONFIG.kappa_min <= 1.0 <= CONFIG.kappa_max
    bad = dict(CONFIG.as_mapping(), kappa_max=7.0)
    path = tmp_path / "feedback.yaml"
    path.write_text("\n".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in bad.items()))
    with pytest.raises(ConfigError) as error:
        FeedbackConfig.load(path)
    assert error.value.field == "kappa_max"


def test_the_nominal_dcm_moves_on_the_pendulum_between_touch_downs():
    """ξ̇ = ω(ξ − z): the nominal DCM dt later equals z₀ + e^{ω dt}(ξ − z₀), the same plan seen dt later."""
    segments = [(0.0, np.array([0.0, -0.06])), (0.3, np.array([0.15, 0.06])), (0.7, np.array([0.3, -0.06])),
                (1.1, np.array([0.45, 0.06]))]
    xi = nominal_dcm(segments, OMEGA)
    dt = 0.1
    later = nominal_dcm([(0.0, segments[0][1])] + [(t - dt, z) for t, z in segments[1:]], OMEGA)
    np.testing.assert_allclose(later, segments[0][1] + math.exp(OMEGA * dt) * (xi - segments[0][1]), atol=1e-12)
    np.testing.assert_allclose(nominal_dcm(segments[:1], OMEGA), segments[0][1])


def test_dead_band_is_zero_inside_and_continuous_at_its_edge():
    assert np.all(dead_band(np.array([0.01, 0.01]), 0.02) == 0.0)
    edge = dead_band(np.array([0.0201, 0.0]), 0.02)
    assert 0.0 < edge[0] < 2e-4
    np.testing.assert_allclose(dead_band(np.array([0.1, 0.0]), 0.02), [0.08, 0.0])


@pytest.mark.parametrize("side, landing", [("left", (0.6, -0.3)), ("left", (-0.5, 0.02)), ("right", (0.1, 0.5)),
                                            ("right", (0.0, -0.9))])
def test_clamped_footholds_stay_reachable_and_on_their_own_side(side, landing):
    stance, yaw = np.array([1.0, 2.0]), 0.7
    out = clamp_foothold(np.array(landing) + stance, stance, yaw, side, CONFIG)
    c, s = math.cos(yaw), math.sin(yaw)
    forward, left = c * (out - stance)[0] + s * (out - stance)[1], -s * (out - stance)[0] + c * (out - stance)[1]
    sign = 1.0 if side == "left" else -1.0
    assert abs(forward) <= CONFIG.max_stride_m + 1e-12
    assert CONFIG.min_foot_separation_m - 1e-12 <= sign * left <= CONFIG.max_foot_separation_m + 1e-12


def test_polygon_distance_is_signed():
    hull = convex_hull(np.array([[0, 0], [0.2, 0], [0.2, 0.1], [0, 0.1], [0.1, 0.05]]))
    assert len(hull) == 4
    assert inside_polygon_m([0.1, 0.05], hull) == pytest.approx(0.05)
    assert inside_polygon_m([0.3, 0.05], hull) == pytest.approx(-0.1)


def test_no_error_no_adjustment():
    feedback = GaitFeedback(CONFIG, OMEGA)
    for _ in range(50):
        a = feedback.update(0.02, np.array([0.005, -0.005]), 0.3, 0.2, False, 0.3)
    assert np.all(a.velocity_bias == 0.0) and np.all(a.step_offset_m == 0.0) and a.time_scale == pytest.approx(1.0)
    assert not a.needs_steps


def test_each_law_acts_in_the_errors_sense():
    """Heading π/2 (the body's x is the world's y): a DCM ahead of the reference moves the next
    foothold ahead (world +y), biases the velocity forward and speeds the clock up walking
    forward; behind, it slows the clock; in place, any error speeds it up."""
    ahead = np.array([0.0, 0.08])  # world: ahead along the heading
    feedback = GaitFeedback(CONFIG, OMEGA)
    for _ in range(100):
        a = feedback.update(0.02, ahead, math.pi / 2, 0.2, False, 0.3)
    assert a.step_offset_m[1] > 0.08 and abs(a.step_offset_m[0]) < 1e-9
    assert a.velocity_bias[0] > 0.0 and a.time_scale > 1.0
    behind = GaitFeedback(CONFIG, OMEGA)
    for _ in range(100):
        b = behind.update(0.02, -ahead, math.pi / 2, 0.2, False, 0.3)
    assert b.time_scale < 1.0 and b.step_offset_m[1] < 0.0
    in_place = GaitFeedback(CONFIG, OMEGA)
    for _ in range(100):
        c = in_place.update(0.02, -ahead, math.pi / 2, 0.2, False, 0.0)
    assert c.time_scale > 1.0
    assert np.linalg.norm(a.step_offset_m) <= CONFIG.max_step_offset_m + 1e-12
    assert CONFIG.kappa_min <= b.time_scale and a.time_scale <= CONFIG.kappa_max


def test_time_error_blends_continuously_from_walking_to_in_place():
    error = np.array([-0.05, 0.0])
    values = [time_error_m(error, v) for v in np.linspace(-0.2, 0.2, 41)]
    assert values[0] == pytest.approx(0.05) and values[-1] == pytest.approx(-0.05)
    assert values[20] == pytest.approx(0.05)
    assert max(abs(a - b) for a, b in zip(values, values[1:])) < 0.011


def test_disabled_or_non_finite_error_gives_no_adjustment():
    off = GaitFeedback(dataclasses.replace(CONFIG, enabled=False), OMEGA)
    assert off.update(0.02, np.array([0.3, 0.3]), 0.0, 0.2, False) is NO_ADJUSTMENT
    on = GaitFeedback(CONFIG, OMEGA)
    assert on.update(0.02, np.array([np.nan, 0.0]), 0.0, 0.2, False) is NO_ADJUSTMENT


def test_a_standing_robot_steps_when_its_dcm_nears_the_support_edge_and_stands_again():
    feedback = GaitFeedback(CONFIG, OMEGA)
    assert not feedback.update(0.02, np.array([0.01, 0.0]), 0.0, None, True, 0.0, 0.08).needs_steps
    assert feedback.update(0.02, np.array([0.08, 0.0]), 0.0, None, True, 0.0, CONFIG.stand_step_margin_m - 0.01).needs_steps
    ticks = 0
    while feedback.update(0.02, np.array([0.005, 0.0]), 0.0, 0.3, False, 0.0).needs_steps:
        ticks += 1
        assert ticks < 1000
    assert ticks * 0.02 == pytest.approx(CONFIG.stand_again_after_s, abs=0.03)


def test_a_sustained_push_lands_the_foot_further_by_its_pendulum_shift():
    """δ/ω² on the pendulum: with the CoP that far behind the DCM the push holds it still
    (ξ̇ = ω(ξ − z) + δ/ω = 0); the step offset grows by e^{ωT}·δ/ω² along the push."""
    push = np.array([1.6, 0.0])
    shift = push_shift_m(push, OMEGA)
    xi, z = 0.1, 0.1 + shift[0]  # the CoP δ/ω² ahead of the DCM
    assert OMEGA * (xi - z) + push[0] / OMEGA == pytest.approx(0.0)
    assert np.all(push_shift_m([np.nan, 1.0], OMEGA) == 0.0)
    error = np.array([0.05, 0.0])
    unfiltered = dataclasses.replace(CONFIG, push_filter_s=0.0)
    quiet, pushed = GaitFeedback(unfiltered, OMEGA), GaitFeedback(unfiltered, OMEGA)
    a = quiet.update(0.02, error, math.pi / 2, 0.2, False, 0.3)
    b = pushed.update(0.02, error, math.pi / 2, 0.2, False, 0.3, push_shift_world_m=pushed.filter_push(0.02, push))  # heading π/2: world +x is the body's right
    growth = math.exp(OMEGA * 0.2)
    assert b.step_offset_m - a.step_offset_m == pytest.approx(growth * shift, abs=1e-9)


def test_a_brief_push_estimate_moves_the_steps_less_than_a_sustained_one():
    """The push estimate is low-passed (push_filter_s): an impulse's brief spike of δ (gone when
    the push is) moves the footsteps less than the same δ held; with gain 0 it is ignored."""
    def offset_after(config, ticks_pushed, ticks):
        feedback = GaitFeedback(config, OMEGA)
        for k in range(ticks):
            shift = feedback.filter_push(0.02, (2.0, 0.0) if k < ticks_pushed else (0.0, 0.0))
            a = feedback.update(0.02, np.array([0.05, 0.0]), 0.0, 0.2, False, 0.3, push_shift_world_m=shift)
        return float(a.step_offset_m[0])
    brief, held, none = offset_after(CONFIG, 3, 6), offset_after(CONFIG, 6, 6), offset_after(CONFIG, 0, 6)
    assert none < brief < held
    ignored = dataclasses.replace(CONFIG, push_step_gain=0.0)
    assert offset_after(ignored, 6, 6) == pytest.approx(none)


def swing_step(yaw=0.0, time_to_touch_down_s=0.25, side="left"):
    """A nominal swing on the pendulum (world frame): the stance foot at (1, 2), the landing 0.15 m
    ahead and 0.14 m to the swing's side (in the heading ``yaw``), the DCM now the one that reaches
    its nominal touch-down value under the stance CoP (ξ_T = u₀ + e^{ωT}(ξ − u₀))."""
    c, s = math.cos(yaw), math.sin(yaw)
    sign = 1.0 if side == "left" else -1.0
    stance = np.array([1.0, 2.0])
    landing = stance + np.array([c * 0.15 - s * sign * 0.14, s * 0.15 + c * sign * 0.14])
    at_touch_down = stance + 0.6 * (landing - stance)
    now = stance + math.exp(-OMEGA * time_to_touch_down_s) * (at_touch_down - stance)
    return SwingStep(stance, landing, now, at_touch_down, time_to_touch_down_s, side)


def body_offset(offset_world, yaw):
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * offset_world[0] + s * offset_world[1], -s * offset_world[0] + c * offset_world[1]])


@pytest.mark.parametrize("yaw", [0.0, 0.8])
def test_step_timing_keeps_the_nominal_step_without_an_error(yaw):
    offset, clock_scale = adapt_step(np.zeros(2), swing_step(yaw), yaw, OMEGA, CONFIG)
    np.testing.assert_allclose(offset, 0.0, atol=1e-9)
    assert clock_scale == pytest.approx(1.0, abs=1e-9)


def test_step_timing_with_its_time_held_is_the_footstep_law():
    """w_τ → ∞, w_b → ∞: τ stays nominal and the landing moves by e^{ωT} ε (Khadiv 2020 reduces to
    the capture-point footstep adjustment)."""
    held = dataclasses.replace(CONFIG, timing_weight_m2=1e4, dcm_offset_weight=1e6)
    error = np.array([0.02, -0.01])
    offset, clock_scale = adapt_step(error, swing_step(), 0.0, OMEGA, held)
    np.testing.assert_allclose(offset, math.exp(OMEGA * 0.25) * error, rtol=2e-3)
    assert clock_scale == pytest.approx(1.0, abs=2e-3)


def test_a_step_its_reach_stops_lands_sooner():
    """Pushed towards the stance foot while the left foot swings, the left foot cannot land where
    the DCM would need it (it may not cross the stance foot): it lands at its closest allowed place,
    and sooner — the error has less time to grow (the case the fixed-timing law cannot help)."""
    yaw = 0.3
    offset, clock_scale = adapt_step(np.array([0.0, -0.12]), swing_step(yaw), yaw, OMEGA, CONFIG)
    landing = swing_step(yaw).landing_m + offset - swing_step(yaw).stance_m
    assert body_offset(landing, yaw)[1] == pytest.approx(CONFIG.min_foot_separation_m, abs=1e-9)
    assert 1.1 < clock_scale <= CONFIG.kappa_max


def test_an_error_the_foothold_can_take_moves_the_foothold_more_than_the_time():
    """Pushed forward a little: the foot lands further ahead; the timing changes less than 10 %."""
    offset, clock_scale = adapt_step(np.array([0.04, 0.0]), swing_step(), 0.0, OMEGA, CONFIG)
    assert offset[0] > 0.04 and abs(offset[1]) < 0.01
    assert 0.9 < clock_scale < 1.1


def test_step_timing_stays_within_reach_and_the_clock_range():
    rng = np.random.default_rng(3)
    for _ in range(50):
        yaw, side = rng.uniform(-math.pi, math.pi), ("left", "right")[rng.integers(2)]
        swing = swing_step(yaw, rng.uniform(0.02, 0.4), side)
        offset, clock_scale = adapt_step(rng.normal(0.0, 0.2, 2), swing, yaw, OMEGA, CONFIG)
        forward, left = body_offset(swing.landing_m + offset - swing.stance_m, yaw)
        sign = 1.0 if side == "left" else -1.0
        assert abs(forward) <= CONFIG.max_stride_m + 1e-9
        assert CONFIG.min_foot_separation_m - 1e-9 <= sign * left <= CONFIG.max_foot_separation_m + 1e-9
        assert CONFIG.kappa_min - 1e-12 <= clock_scale <= CONFIG.kappa_max + 1e-12


def test_the_clock_follows_the_step_timing_only_in_an_adapted_swing():
    """GaitFeedback: with a swing to adapt, the clock's κ moves towards the step timing's (filtered);
    without one, it is κ_time."""
    pushed_sideways = np.array([0.0, -0.12])
    with_swing, without = GaitFeedback(CONFIG, OMEGA), GaitFeedback(CONFIG, OMEGA)
    for _ in range(20):
        a = with_swing.update(0.02, pushed_sideways, 0.0, 0.25, False, 0.3, swing=swing_step())
        b = without.update(0.02, pushed_sideways, 0.0, 0.25, False, 0.3)
    assert a.clock_scale > 1.1 and a.clock_scale > a.time_scale
    assert b.clock_scale == pytest.approx(b.time_scale, abs=1e-3)
    off = dataclasses.replace(CONFIG, step_timing=False)
    c = GaitFeedback(off, OMEGA).update(0.02, pushed_sideways, 0.0, 0.25, False, 0.3, swing=swing_step())
    np.testing.assert_allclose(c.step_offset_m, GaitFeedback(CONFIG, OMEGA).update(
        0.02, pushed_sideways, 0.0, 0.25, False, 0.3).step_offset_m)


ROBOT = load_robot("humanoid")


def walk(planner, seconds, dcm_offset=None):
    """Step the planner at 50 Hz; with ``dcm_offset`` (body x, y [m]) the measured DCM is the
    nominal one plus it (a zero CoM velocity: the DCM is the CoM)."""
    for _ in range(int(seconds / 0.02)):
        if dcm_offset is not None:
            segments, _, _ = planner._support_segments(0.0)
            xi = nominal_dcm(segments, planner.config.omega_per_s)
            c, s = math.cos(planner.body.yaw), math.sin(planner.body.yaw)
            offset = np.array([c * dcm_offset[0] - s * dcm_offset[1], s * dcm_offset[0] + c * dcm_offset[1]])
            planner.observe_com(np.array([*(xi + offset), 0.5]), np.zeros(3))
        planner.step(0.02)
        planner.reference()


def closed_and_open_loop_planners():
    """Two planners walking neutral at 0.3 m/s: with the shipped feedback, and without."""
    style = load_style("neutral")
    planners = (GaitPlanner(style, PlannerConfig.for_robot(ROBOT)),
                GaitPlanner(style, PlannerConfig.for_robot(ROBOT, feedback=None)))
    for planner in planners:
        planner.set_command([0.3, 0.0, 0.0])
    return planners


def test_an_unpushed_planner_plans_the_open_loop_gait():
    closed, open_loop = closed_and_open_loop_planners()
    walk(closed, 3.0, dcm_offset=(0.0, 0.0))
    walk(open_loop, 3.0)
    # (The measured DCM here is the nominal one a tick before the planner's own evaluation, so
    # within a few millimetres of it: inside every dead-band but at a walk's start.)
    for side in ("left", "right"):
        a, b = closed.footholds[side], open_loop.footholds[side]
        assert (a.x, a.y, a.yaw) == pytest.approx((b.x, b.y, b.yaw), abs=0.01)
    assert closed.time_scale == pytest.approx(1.0, abs=1e-3) and np.all(closed.walk_velocity == closed.velocity)


def test_a_dcm_ahead_moves_the_next_touch_down_ahead():
    pushed, unpushed = closed_and_open_loop_planners()
    walk(pushed, 2.0, dcm_offset=(0.0, 0.0))
    walk(unpushed, 2.0)
    walk(pushed, 0.5, dcm_offset=(0.08, 0.0))
    walk(unpushed, 0.5)
    ahead = [pushed.reference().footholds[0].pose.x - unpushed.reference().footholds[0].pose.x]
    assert ahead[0] > 0.05, ahead
    assert pushed.time_scale > 1.0 and pushed.walk_velocity[0] > unpushed.walk_velocity[0]


def test_a_lost_state_ends_the_adjustments_and_a_fresh_one_starts_them_again():
    pushed, unpushed = closed_and_open_loop_planners()
    walk(pushed, 2.0, dcm_offset=(0.0, 0.0))
    walk(unpushed, 2.0)
    walk(pushed, 0.3, dcm_offset=(0.08, 0.0))
    walk(unpushed, 0.3)
    assert pushed.time_scale > 1.0 and np.any(pushed.adjustment.step_offset_m)
    pushed.lose_observations()  # the estimator died: its last DCM must not keep steering
    walk(pushed, 0.02)
    walk(unpushed, 0.02)
    assert pushed.time_scale == 1.0 and not np.any(pushed.adjustment.step_offset_m)
    assert np.all(pushed.walk_velocity == pushed.velocity)
    walk(pushed, 0.3, dcm_offset=(0.08, 0.0))  # it returns: the feedback acts again
    assert pushed.time_scale > 1.0


@pytest.mark.parametrize("push_y, first", [(0.3, "left"), (-0.3, "right")])
def test_a_pushed_standing_planner_lifts_the_foot_on_the_push_side_at_once(push_y, first):
    """Standing, a sideways push: no start-up ramp and no double support first — the foot the
    DCM moves towards is in the air within two ticks (the other would cross the stance foot)."""
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(ROBOT))
    walk(planner, 1.0, dcm_offset=(0.0, 0.0))
    assert planner.clock_rate == 0.0
    lifted = None
    for tick in range(10):
        walk(planner, 0.02, dcm_offset=(0.0, push_y))
        lo, td = SWING_PHASES[first]
        if lo < planner.phase < td:
            lifted = tick
            break
    assert lifted is not None and lifted <= 2, (planner.phase, lifted)
    assert planner.clock_rate == 1.0


@pytest.mark.parametrize("slipped", ["left", "right"])
def test_a_pushed_standing_planner_with_the_dcm_between_its_feet_lifts_the_farther_foot(slipped):
    """Pushed forward while one foot has slipped 15 cm outwards: the DCM is between the feet's
    centre lines, so the farther, unloaded foot steps (back under the body), not the loaded one."""
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(ROBOT))
    walk(planner, 1.0, dcm_offset=(0.0, 0.0))
    foot = planner.footholds[slipped]
    planner.footholds[slipped] = dataclasses.replace(foot, y=foot.y + (0.15 if slipped == "left" else -0.15))
    lo, td = SWING_PHASES[slipped]
    towards_the_other = -0.05 if slipped == "left" else 0.05  # the body stays over the other foot
    for _ in range(3):
        walk(planner, 0.02, dcm_offset=(0.3, towards_the_other))
    assert lo < planner.phase < td, planner.phase
