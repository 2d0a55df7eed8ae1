"""CoM MPC: the CoP stays inside the planned supports, the plan obeys the pendulum, standing stays
still, failures fall back to the previous plan."""

import dataclasses

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from gait_planner_node.planner import GaitPlanner, PlannerConfig, gait_reference
from gait_planner_node.style import load_style
from mpc_node.mpc import ComMpc, MpcConfig
from mpc_node.schedule import support_schedule, velocity_reference
from mpc_node.support import SupportSchedule, support_polygons

CONFIG = PlannerConfig.for_robot(load_robot("humanoid"))
COM_HEIGHT_M = 0.57


def walking_inputs(style="neutral", command=(0.3, 0.05, 0.2), seconds=2.0):
    planner = GaitPlanner(load_style(style), CONFIG)
    planner.set_command(command)
    for _ in range(int(seconds / 0.008)):
        planner.step(0.008)
    reference = gait_reference(planner.reference(), 0.0)
    return reference, planner


def cop_inside(mpc, result, schedule):
    """Every planned CoP inside the support polygon of its step's middle (within tolerance)."""
    cfg = mpc.config
    middles = cfg.dt_s * (np.arange(cfg.steps) + 0.5)
    index = np.clip(np.searchsorted(schedule.times_s, middles, side="right") - 1, 0, schedule.times_s.size - 1)
    sub = SupportSchedule(middles, schedule.left_stance[index], schedule.right_stance[index],
                          schedule.left_pose[index], schedule.right_pose[index])
    normals, offsets, _ = support_polygons(sub, mpc.foot, cfg.support_margin_m)
    excess = np.einsum("kej,kj->ke", normals, result.plan.cop) - offsets
    return excess.max()


@pytest.mark.parametrize("style", ["neutral", "bouncy", "limp"])
@pytest.mark.parametrize("command", [(0.3, 0.0, 0.0), (-0.15, 0.0, 0.0), (0.0, 0.1, 0.0), (0.1, -0.05, 0.4)])
def test_planned_cop_stays_in_the_support_polygon(style, command):
    reference, planner = walking_inputs(style, command)
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    schedule = support_schedule(reference)
    body = reference.body[0]
    state = np.array([body[0], command[0] * np.cos(body[2]), body[1], command[0] * np.sin(body[2])])
    result = mpc.solve(0.0, state, body[:2], schedule, velocity_reference(reference))
    assert result.ok, result.status
    assert cop_inside(mpc, result, schedule) < 1e-4


def test_plan_obeys_the_pendulum_and_starts_at_the_measured_state():
    reference, _ = walking_inputs()
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    state = np.array([reference.body[0, 0], 0.25, reference.body[0, 1], 0.02])
    result = mpc.solve(3.0, state, state[[0, 2]], support_schedule(reference), velocity_reference(reference))
    plan = result.plan
    c0, v0, _ = plan.at(3.0)
    np.testing.assert_allclose([c0[0], v0[0], c0[1], v0[1]], state, atol=2e-3)
    omega2 = 9.81 / COM_HEIGHT_M
    h = 1e-5  # small: a central difference straddling a step boundary sees the jump in c̈ times h
    for t in np.linspace(3.0 + 0.01, 4.9, 37):
        c, v, a = plan.at(t)
        np.testing.assert_allclose(a, omega2 * (c - plan.cop_at(t)), rtol=1e-9, atol=1e-9)  # c̈ = ω²(c − z)
        c_next, _, _ = plan.at(t + h)
        c_prev, _, _ = plan.at(t - h)
        np.testing.assert_allclose((c_next - c_prev) / (2 * h), v, atol=1e-5)  # ċ is the derivative of c
    for k in range(1, plan.cop.shape[0]):  # c, ċ continuous at every step boundary
        t = 3.0 + k * plan.dt_s
        before, after = plan.at(t - 1e-9), plan.at(t + 1e-9)
        np.testing.assert_allclose(before[0], after[0], atol=1e-7)
        np.testing.assert_allclose(before[1], after[1], atol=1e-6)


def test_a_com_beside_the_body_path_is_planned_back_faster_with_the_lateral_term():
    """Walking straight with the CoM 3 cm to the side of the path the footholds straddle: the
    CoP reference alone re-centres it slowly; the lateral term (default weight) at least halves
    the mean sideways offset over 0.25–1 s of the preview (it pushes the first CoPs harder)."""
    reference, _ = walking_inputs("neutral", (0.3, 0.0, 0.0), seconds=3.0)
    schedule, vref = support_schedule(reference), velocity_reference(reference)
    body = reference.body[0]
    normal = np.array([-np.sin(body[2]), np.cos(body[2])])
    start = body[:2] + 0.03 * normal
    state = np.array([start[0], 0.3 * np.cos(body[2]), start[1], 0.3 * np.sin(body[2])])
    times = np.linspace(0.25, 1.0, 31)
    path = np.column_stack([np.interp(times, reference.times_s, reference.body[:, i]) for i in range(2)])
    default = MpcConfig.default(COM_HEIGHT_M)
    offsets = {}
    for weight in (0.0, default.weight_lateral):
        mpc = ComMpc(dataclasses.replace(default, weight_lateral=weight), CONFIG.foot)
        result = mpc.solve(0.0, state, start, schedule, vref, body_path=reference.body)
        assert result.ok, result.status
        com = np.array([result.plan.at(t)[0] for t in times])
        offsets[weight] = float(np.mean((com - path) @ normal))
    assert offsets[0.0] > 0.003
    assert abs(offsets[default.weight_lateral]) < 0.5 * offsets[0.0]


def test_standing_keeps_the_com_still():
    """Also 2 cm beside the body path: the sideways term is for walking, a standing robot stays."""
    planner = GaitPlanner(load_style("neutral"), CONFIG)
    reference = gait_reference(planner.reference(), 0.0)
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    state = np.array([0.015, 0.0, 0.02, 0.0])
    result = mpc.solve(0.0, state, state[[0, 2]], support_schedule(reference), velocity_reference(reference),
                       body_path=reference.body)
    assert result.ok
    for t in (0.5, 1.0, 1.9):
        c, v, _ = result.plan.at(t)
        np.testing.assert_allclose(c, state[[0, 2]], atol=1e-4)
        np.testing.assert_allclose(v, 0.0, atol=1e-4)


def test_an_uncapturable_state_still_gives_a_bounded_plan():
    """A CoM racing sideways out of the support: no exact plan keeps the CoP inside, the solver
    still returns a bounded plan (the initial DCM is a stiff cost, not an equality)."""
    reference, _ = walking_inputs()
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    body = reference.body[0]
    result = mpc.solve(0.0, np.array([body[0], 0.3, body[1] + 0.1, 1.5]), body[:2], support_schedule(reference),
                       velocity_reference(reference))
    assert result.ok, result.status
    assert np.abs(result.plan.states).max() < 10.0


def test_solver_failure_keeps_the_previous_plan_and_bad_input_is_refused():
    reference, _ = walking_inputs()
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    state = np.array([reference.body[0, 0], 0.3, reference.body[0, 1], 0.0])
    schedule, vref = support_schedule(reference), velocity_reference(reference)
    first = mpc.solve(0.0, state, state[[0, 2]], schedule, vref)
    assert first.ok
    mpc._solver.update_settings(max_iter=1)  # force a failure
    second = mpc.solve(0.008, state + 0.01, state[[0, 2]], schedule, vref)
    assert not second.ok and "iterations" in second.status
    assert second.plan is first.plan  # the previous plan continues in time
    with pytest.raises(ValueError, match="finite"):
        mpc.solve(0.016, np.array([np.nan, 0, 0, 0]), state[[0, 2]], schedule, vref)
    with pytest.raises(ValueError, match="velocity reference"):
        mpc.solve(0.016, state, state[[0, 2]], schedule, vref[:-1])
    with pytest.raises(ValueError, match="body path"):
        mpc.solve(0.016, state, state[[0, 2]], schedule, vref, body_path=reference.body[:-1])


def test_the_plan_allows_for_a_push_the_pendulum_way():
    """ComPlan.at with a disturbance δ is the pendulum c̈ = ω²(c − z) + δ (integrated finely) and
    hands on the contacts' part ω²(c − z)."""
    from biped_common.com_plan import ComPlan
    plan = ComPlan(0.0, 0.05, np.array([[0.0, 0.1, 0.0, 0.0]] * 3), np.array([[0.02, 0.0], [0.03, 0.0]]), 4.2, (1.5, -0.4))
    c, v, dt = np.array([0.0, 0.0]), np.array([0.1, 0.0]), 1e-5
    for _ in range(round(0.04 / dt)):
        a = 4.2**2 * (c - plan.cop[0]) + np.array(plan.disturbance_m_s2)
        v = v + a * dt
        c = c + v * dt
    pc, pv, pa = plan.at(0.04)
    np.testing.assert_allclose(pc, c, atol=1e-6)
    np.testing.assert_allclose(pv, v, atol=1e-4)
    np.testing.assert_allclose(pa, 4.2**2 * (pc - plan.cop[0]), atol=1e-12)


def test_standing_against_a_push_the_cop_leans_into_it():
    mpc = ComMpc(MpcConfig.default(COM_HEIGHT_M), CONFIG.foot)
    planner = GaitPlanner(load_style("neutral"), dataclasses.replace(CONFIG, feedback=None))
    reference = gait_reference(planner.reference(), 0.0)
    state = np.array([0.02, 0.0, 0.0, 0.0])
    args = (0.0, state, state[[0, 2]], support_schedule(reference), velocity_reference(reference), reference.body)
    still, pushed = mpc.solve(*args), mpc.solve(*args, disturbance_m_s2=(1.3, 0.0))
    assert still.ok and pushed.ok
    lean = pushed.plan.cop[:10, 0].mean() - pushed.plan.states[:10, 0].mean()
    assert lean > 0.5 * 1.3 / mpc.config.omega_per_s**2, lean  # the CoP ahead of the CoM, by ≈ δ/ω²
    assert abs(still.plan.cop[:10, 0].mean() - still.plan.states[:10, 0].mean()) < 0.01
