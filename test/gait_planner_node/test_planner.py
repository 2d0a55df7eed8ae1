"""Planner properties over velocity grids and every shipped style, on both robots' feet:
soles never below the ground, stance feet do not slide, footholds realize the command, the
reference and its time derivative stay continuous under command steps and region crossings."""

import math

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_common.rotations import quat_to_matrix
from gait_planner_node.planner import GaitPlanner, PlannerConfig, predict_body, Pose2
from gait_planner_node.style import load_style, shipped_styles

STYLES = {name: load_style(name) for name in shipped_styles()}
CONFIGS = {name: PlannerConfig.for_robot(load_robot(name)) for name in ("humanoid", "biped")}
DT = 0.004


def corners(config):
    g = config.foot
    return np.array([[x, y, 0.0] for x in (g.heel_x_m, g.toe_x_m) for y in (-g.half_width_m, g.half_width_m)])


def sole_corners_world(ref, side, config, i=0):
    rotation = quat_to_matrix(ref.foot_quat_wxyz[side][i])
    return ref.foot_position_m[side][i] + corners(config) @ rotation.T


def run(planner, seconds, dt=DT):
    refs = []
    for _ in range(int(round(seconds / dt))):
        planner.step(dt)
        refs.append(planner.reference(np.array([0.0])))
    return refs


def test_preview_matches_the_future():
    """What the preview says about t + Δ is what the planner outputs at t + Δ (constant command)."""
    planner = GaitPlanner(STYLES["neutral"], CONFIGS["humanoid"])
    planner.set_command([0.25, 0.05, 0.3])
    run(planner, 3.0)  # let the command filter settle
    preview = planner.reference(np.array([0.0, 0.2, 0.52, 1.0]))
    actual = {}
    for target in (0.2, 0.52, 1.0):
        run(planner, target - sum(actual.keys() and [max(actual)] or [0.0]))
        actual[target] = planner.reference(np.array([0.0]))
    for i, target in enumerate((0.2, 0.52, 1.0), start=1):
        for side in ("left", "right"):
            np.testing.assert_allclose(actual[target].foot_position_m[side][0], preview.foot_position_m[side][i], atol=2e-3)
        assert actual[target].pelvis_height_m[0] == pytest.approx(preview.pelvis_height_m[i], abs=1e-3)


def check_soles_and_contacts(style, config, velocities, duration_s=2.0, dt=0.01):
    """Soles never below the ground, stance feet touching it without sliding, never both up."""
    for velocity in velocities:
        planner = GaitPlanner(style, config)
        planner.set_command(velocity)
        previous_lowest = None
        for ref in run(planner, duration_s, dt=dt):
            lowest = {}
            for side in ("left", "right"):
                world = sole_corners_world(ref, side, config)
                assert world[:, 2].min() >= -1e-9, (velocity, side)
                if ref.in_stance[side][0]:
                    assert world[:, 2].min() <= 1e-9  # a stance foot touches the ground
                    lowest[side] = world[np.argmin(world[:, 2])]
            if previous_lowest is not None:
                for side, point in lowest.items():
                    if side in previous_lowest:
                        moved = np.linalg.norm(point[:2] - previous_lowest[side][:2])
                        # the contact point does not slide (a jump > 5 cm is the pivot changing corner)
                        assert moved < 1e-6 or moved > 0.05, (velocity, side, moved)
            previous_lowest = lowest
            assert ref.in_stance["left"][0] or ref.in_stance["right"][0]  # walking: never both feet up


def grid(style, n_x, n_y, n_w):
    s = style.samples
    return [(vx, vy, wz)
            for vx in np.linspace(s["backward_fast"].velocity[0], s["forward_fast"].velocity[0], n_x)
            for vy in np.linspace(0.0, s["sidestep_left"].velocity[1], n_y)
            for wz in np.linspace(s["turn_right"].velocity[2], 0.0, n_w)]


@pytest.mark.parametrize("style_name", sorted(STYLES))
@pytest.mark.parametrize("robot_name", sorted(CONFIGS))
def test_soles_stay_above_ground_and_stance_feet_do_not_slide(style_name, robot_name):
    check_soles_and_contacts(STYLES[style_name], CONFIGS[robot_name], grid(STYLES[style_name], 3, 2, 2))


@pytest.mark.slow
@pytest.mark.parametrize("style_name", sorted(STYLES))
@pytest.mark.parametrize("robot_name", sorted(CONFIGS))
def test_soles_and_contacts_over_a_dense_velocity_grid(style_name, robot_name):
    """The slow suite's matrix: every robot × every style × 5·3·3 velocities, 3 s each."""
    check_soles_and_contacts(STYLES[style_name], CONFIGS[robot_name], grid(STYLES[style_name], 5, 3, 3),
                             duration_s=3.0)


def unicycle_velocity(p0, p1, period):
    """(vx, vy, ω) that carries pose p0 to p1 in ``period`` at constant body-frame velocity."""
    dyaw = p1.yaw - p0.yaw  # the planner keeps yaw unwrapped
    w = dyaw / period
    c, s = math.cos(p0.yaw), math.sin(p0.yaw)
    dx, dy = p1.x - p0.x, p1.y - p0.y
    d = np.array([c * dx + s * dy, -s * dx + c * dy])
    if abs(w) > 1e-9:
        a, b = math.sin(w * period) / w, (1 - math.cos(w * period)) / w
    else:
        a, b = period, 0.0
    vx, vy = np.linalg.solve([[a, -b], [b, a]], d)
    return np.array([vx, vy, w])


@pytest.mark.parametrize("style_name", sorted(STYLES))
def test_footholds_realize_the_commanded_velocity(style_name):
    style = STYLES[style_name]
    s = style.samples
    for command in ([0.8 * s["forward_fast"].velocity[0], 0, 0], [0.5 * s["backward_fast"].velocity[0], 0, 0],
                    [0, 0.7 * s["sidestep_left"].velocity[1], 0], [0, 0, 0.8 * s["turn_right"].velocity[2]],
                    [0.5 * s["forward_slow"].velocity[0], 0.3 * s["sidestep_right"].velocity[1], 0.4 * s["turn_left"].velocity[2]]):
        planner = GaitPlanner(style, CONFIGS["humanoid"])
        planner.set_command(command)
        run(planner, 3.0, dt=0.008)
        period = planner.gait.timing.cycle_s
        touchdowns = [planner.footholds["left"]]
        while len(touchdowns) < 11:  # ten whole cycles of the left foot
            planner.step(0.008)
            if planner.footholds["left"] != touchdowns[-1]:
                touchdowns.append(planner.footholds["left"])
        # Back from the left foothold to the body pose it was placed from (offset, half width, splay).
        a = planner.gait.attributes
        def body_of(p):
            yaw = p.yaw - a.splay_rad
            dx, dy = a.foot_offset_x_m, a.stance_width_m / 2
            return Pose2(p.x - math.cos(yaw) * dx + math.sin(yaw) * dy, p.y - math.sin(yaw) * dx - math.cos(yaw) * dy, yaw)
        start, end = body_of(touchdowns[0]), body_of(touchdowns[-1])
        realized = unicycle_velocity(start, end, 10 * period)
        scale = np.array([max(abs(command[0]), 0.05), max(abs(command[1]), 0.05), max(abs(command[2]), 0.1)])
        assert np.all(np.abs(realized - command) <= 0.02 * scale), (command, realized)


def max_acceleration(style, dt, schedule, duration_s):
    """Per output channel, the largest |second difference| / dt² of the reference over a run."""
    planner = GaitPlanner(style, CONFIGS["humanoid"])
    values = []
    for k in range(int(round(duration_s / dt))):
        t = k * dt
        planner.set_command(next(c for start, c in reversed(schedule) if t >= start - 1e-12))
        planner.step(dt)
        ref = planner.reference(np.array([0.0]))
        values.append(np.concatenate([ref.foot_position_m["left"][0], ref.foot_position_m["right"][0],
                                      [ref.pelvis_height_m[0]], ref.pelvis_quat_wxyz[0], ref.upper_joints_rad[0]]))
    return np.max(np.abs(np.diff(np.array(values), 2, axis=0)), axis=0) / dt**2


@pytest.mark.parametrize("style_name", ["bouncy", "limp"])
def test_reference_is_c1_under_command_steps_and_region_crossings(style_name):
    """Step changes of the command that cross sample regions (forward ↔ backward, sidestep and
    turn sides). A jump Δv in a first derivative shows as a second difference Δv/dt, which doubles
    when dt halves; a C¹ reference's accelerations converge instead. So: bounded, and the same
    at dt and dt/2."""
    style = STYLES[style_name]
    schedule = [(0.0, [0.0, 0.0, 0.0]), (0.8, [0.4, 0.0, 0.0]), (2.2, [-0.2, 0.1, 0.0]),
                (3.6, [0.2, -0.1, 0.5]), (5.0, [0.0, 0.0, -0.5])]
    coarse = max_acceleration(style, 0.002, schedule, 6.0)
    fine = max_acceleration(style, 0.001, schedule, 6.0)
    assert np.all(fine < 150.0), fine
    assert np.all(fine <= 1.25 * coarse + 1.0), (fine, coarse)


def test_style_switch_keeps_phase_and_bad_command_is_refused():
    planner = GaitPlanner(STYLES["neutral"], CONFIGS["biped"])
    planner.set_command([0.2, 0.0, 0.0])
    run(planner, 1.0)
    phase = planner.phase
    planner.set_style(STYLES["limp"])
    assert planner.phase == phase
    with pytest.raises(ValueError, match="finite"):
        planner.set_command([np.nan, 0.0, 0.0])


def test_predict_body_is_exact_for_constant_velocity():
    pose = predict_body(Pose2(1.0, 2.0, 0.3), np.array([0.3, 0.1, 0.5]), np.array([0.7]))[0]
    steps = 70000
    x, y, yaw = 1.0, 2.0, 0.3
    for _ in range(steps):
        h = 0.7 / steps
        x += h * (0.3 * math.cos(yaw) - 0.1 * math.sin(yaw))
        y += h * (0.3 * math.sin(yaw) + 0.1 * math.cos(yaw))
        yaw += h * 0.5
    np.testing.assert_allclose(pose, [x, y, yaw], atol=1e-5)


def test_a_new_planner_stands_until_the_first_command_then_starts_smoothly():
    planner = GaitPlanner(STYLES["bouncy"], CONFIGS["humanoid"])
    first = planner.reference()
    run(planner, 1.0)
    standing = planner.reference()
    for side in ("left", "right"):
        assert first.in_stance[side].all() and standing.in_stance[side].all()  # the preview stands too
        np.testing.assert_allclose(standing.foot_position_m[side], first.foot_position_m[side][:1].repeat(len(first.times_s), 0), atol=1e-12)
    np.testing.assert_allclose(standing.pelvis_height_m, first.pelvis_height_m[0], atol=1e-12)
    assert planner.phase == 0.0 and planner.clock_rate == 0.0
    planner.set_command([0.2, 0.0, 0.0])
    run(planner, 1.0)
    assert planner.clock_rate == pytest.approx(1.0, abs=1e-2) and planner.phase > 0.0
    assert not (planner.reference().in_stance["left"].all() and planner.reference().in_stance["right"].all())


@pytest.mark.parametrize("style_name", sorted(STYLES))
def test_absurd_commands_are_clamped_into_the_styles_range(style_name):
    style = STYLES[style_name]
    planner = GaitPlanner(style, CONFIGS["biped"])
    limits = {k: style.samples[k].velocity for k in ("forward_fast", "backward_fast", "sidestep_left", "turn_left")}
    assert planner.set_command([-1e308, 0.0, 0.0]).tolist() == [limits["backward_fast"][0], 0.0, 0.0]
    assert planner.set_command([1e308, 0.0, 0.0]).tolist() == [limits["forward_fast"][0], 0.0, 0.0]
    inside = [0.5 * limits["forward_fast"][0], 0.0, 0.0]
    assert planner.set_command(inside).tolist() == inside  # within range: untouched
    combined = planner.set_command([100.0, 50.0, 30.0])
    assert planner.command.tolist() == combined.tolist()  # what the planner reports is what it walks
    normalized = combined / np.array([limits["forward_fast"][0], limits["sidestep_left"][1], limits["turn_left"][2]])
    assert np.all(normalized > 0) and sum(normalized) == pytest.approx(1.0)  # on the hull of the samples
    run(planner, 3.0)
    ref = planner.reference()
    assert all(np.all(np.isfinite(a)) for a in (ref.pelvis_height_m, ref.body, *ref.foot_position_m.values()))


def test_a_step_command_is_a_ramp():
    planner = GaitPlanner(STYLES["neutral"], CONFIGS["humanoid"])
    planner.set_command([1e308, 0.0, 0.0])
    top = planner.command[0]
    speeds = []
    for _ in range(int(3.0 / DT)):
        planner.step(DT)
        speeds.append(planner.velocity[0])
    acceleration = np.diff(speeds) / DT
    limit = planner.config.command_acceleration_limit[0]
    assert np.max(acceleration) <= limit + 1e-9  # the filter after the ramp only smooths it further
    assert speeds[int(0.5 * top / limit / DT)] < 0.6 * top  # still ramping at half the ramp time
    assert speeds[-1] == pytest.approx(top, abs=1e-3)
