"""Whole-body QP: static standing reproduces the analytic contact wrench; friction cones,
unilateral contact and torque limits hold in every solution; every task Jacobian and drift
matches finite differences; bad input is refused, not solved."""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from biped_common.resources import params_file
from biped_common.robot_model import load_robot, mujoco_to_pinocchio_q
from wbc_node.wbc import SIDES, FootTarget, WbcReference, WholeBodyController, point_jacobian

GRAVITY = 9.81


def standing_state(robot):
    q = mujoco_to_pinocchio_q(robot.standing_qpos())
    return q, np.zeros(robot.pin_model.nv)


def hold_reference(wbc, q, v, swing=None, offset=np.zeros(3)):
    """A reference equal to the current state (zero rates); ``swing`` lifts that foot's target."""
    model, data = wbc.model, wbc.data
    pin.framesForwardKinematics(model, data, q)
    com = pin.centerOfMass(model, data, q)
    feet = {}
    for side in SIDES:
        pose = data.oMf[wbc.sole_frames[side]]
        target = pose.translation + (offset if side == swing else 0.0)
        feet[side] = FootTarget(side != swing, target, np.zeros(3), np.zeros(3),
                                pin.Quaternion(pose.rotation).coeffs()[[3, 0, 1, 2]])
    base = data.oMf[wbc.kinematics.base_frame]
    return WbcReference(com[:2].copy(), np.zeros(2), np.zeros(2), float(base.translation[2]), 0.0,
                        pin.Quaternion(base.rotation).coeffs()[[3, 0, 1, 2]], feet, q[7:].copy())


def corner_points(wbc, side):
    pose = wbc.data.oMf[wbc.sole_frames[side]]
    return pose.translation + wbc.corners_sole @ pose.rotation.T


def test_static_standing_contact_forces_balance_gravity(robot):
    wbc = WholeBodyController(robot)
    q, v = standing_state(robot)
    out = wbc.solve(q, v, hold_reference(wbc, q, v))
    assert out.ok, out.status
    weight = robot.mass_kg * GRAVITY
    forces = np.vstack([out.contact_forces_n[s] for s in SIDES])
    points = np.vstack([corner_points(wbc, s) for s in SIDES])
    np.testing.assert_allclose(forces.sum(axis=0), [0.0, 0.0, weight], atol=1e-3 * weight)
    com = wbc.data.com[0]
    moment = np.cross(points - com, forces).sum(axis=0)  # about the CoM: zero when static
    assert np.abs(moment).max() < 1e-3 * weight * 0.1
    assert np.abs(out.acceleration).max() < 1e-2  # ≈ 0: only the tiny force regularization trades against it
    # Both feet share the weight (symmetric robot, symmetric posture).
    left, right = (out.contact_forces_n[s][:, 2].sum() for s in SIDES)
    assert left == pytest.approx(right, rel=1e-3)


def dynamics_terms(wbc, q, v, out) -> tuple[np.ndarray, np.ndarray]:
    """M v̇ + h and Σ J_pᵀ f (nv each) for a solve's answer at (q, v): equal but for Sᵀτ."""
    wbc.kinematics.update(q, v)
    generalized = wbc.data.M @ out.acceleration + wbc.data.nle
    contact = np.zeros(wbc.nv)
    for side, forces in out.contact_forces_n.items():
        sole = wbc.kinematics.soles[side]
        for corner, force in zip(wbc.corners_sole, forces):
            contact += point_jacobian(sole.placement.rotation, sole.jacobian, corner).T @ force
    return generalized, contact


@pytest.mark.parametrize("seed", range(6))
def test_cones_unilateral_contact_and_torque_limits_hold(robot, seed):
    rng = np.random.default_rng(seed)
    wbc = WholeBodyController(robot)
    q, v = standing_state(robot)
    q[7:] += rng.normal(scale=0.05, size=robot.n_joints)
    v[:] = rng.normal(scale=0.3, size=v.size)
    swing = [None, "left", "right"][seed % 3]
    ref = hold_reference(wbc, q, v, swing=swing, offset=np.array([0.05, 0.0, 0.04]))
    ref = WbcReference(ref.com_position_m + rng.normal(scale=0.02, size=2), ref.com_velocity_m_s,
                       rng.normal(scale=1.0, size=2), ref.pelvis_height_m, 0.0, ref.pelvis_quat_wxyz, ref.feet,
                       ref.joint_posture_rad)
    out = wbc.solve(q, v, ref)
    assert out.ok, out.status
    mu = wbc.gains.friction / np.sqrt(2)
    for side, forces in out.contact_forces_n.items():
        assert side != swing
        assert np.all(forces[:, 2] >= wbc.gains.min_normal_force_n - 1e-6)
        assert np.all(np.abs(forces[:, :2]) <= mu * forces[:, 2:3] + 1e-6)
    assert np.all(np.abs(out.torque_nm) <= robot.torque_limit_nm + 1e-6)
    # The torques are what the dynamics need: M v̇ + h = Sᵀτ + Σ J_pᵀ f.
    generalized, contact = dynamics_terms(wbc, q, v, out)
    np.testing.assert_allclose(generalized[:6], contact[:6], atol=1e-5 * robot.mass_kg * GRAVITY)
    np.testing.assert_allclose(generalized[6:] - contact[6:], out.torque_nm, atol=1e-4)


def test_binding_torque_limits_are_solved_with_their_rows(robot):
    """The QP is first solved without its torque-limit rows (they are rarely active); an answer
    beyond a limit is solved again with them. With limits cut below what the unconstrained answer
    needs, the torques respect them inside the QP — consistent with the dynamics, not clipped —
    and the primary solver's answer is used (status "ok")."""
    wbc = WholeBodyController(robot)
    q, v = standing_state(robot)
    v[:] = np.random.default_rng(3).normal(scale=0.3, size=v.size)
    reference = hold_reference(wbc, q, v, swing="left", offset=np.array([0.05, 0.0, 0.04]))
    free = wbc.solve(q, v, reference)
    assert free.status == "ok", free.status
    binding = np.argsort(-np.abs(free.torque_nm))[:3]
    wbc.torque_limit_nm = robot.torque_limit_nm.copy()
    wbc.torque_limit_nm[binding] = 0.7 * np.abs(free.torque_nm[binding])
    out = wbc.solve(q, v, reference)
    assert out.status == "ok", out.status
    assert np.all(np.abs(out.torque_nm) <= wbc.torque_limit_nm + 1e-6)
    assert np.min(np.abs(np.abs(out.torque_nm[binding]) - wbc.torque_limit_nm[binding])) < 1e-6  # one is active
    generalized, contact = dynamics_terms(wbc, q, v, out)
    np.testing.assert_allclose(generalized[6:] - contact[6:], out.torque_nm, atol=1e-4)


def test_points_jacobian_stacks_point_jacobians():
    from biped_common.rotations import rpy_to_matrix
    from wbc_node.wbc import points_jacobian
    rng = np.random.default_rng(0)
    rotation, jac, points = rpy_to_matrix(0.3, -0.2, 1.0), rng.normal(size=(6, 20)), rng.normal(size=(4, 3))
    out = points_jacobian(rotation, jac, points, np.zeros((12, 20)))
    np.testing.assert_allclose(out, np.vstack([point_jacobian(rotation, jac, p) for p in points]), atol=1e-14)


def finite_difference_jacobian(function, q, model, eps=1e-6):
    columns = []
    for i in range(model.nv):
        dv = np.zeros(model.nv)
        dv[i] = eps
        plus, minus = function(pin.integrate(model, q, dv)), function(pin.integrate(model, q, -dv))
        columns.append((plus - minus) / (2 * eps))
    return np.array(columns).T


def test_task_jacobians_and_drifts_match_finite_differences(robot):
    wbc = WholeBodyController(robot)
    model, data = wbc.model, wbc.data
    rng = np.random.default_rng(3)
    q, _ = standing_state(robot)
    q = pin.integrate(model, q, rng.normal(scale=0.2, size=model.nv))
    v = rng.normal(scale=0.5, size=model.nv)
    wbc.kinematics.update(q, v)
    aux = model.createData()

    def com_of(qq):
        return pin.centerOfMass(model, aux, qq)

    def frame_position(frame):
        def f(qq):
            pin.framesForwardKinematics(model, aux, qq)
            return aux.oMf[frame].translation.copy()
        return f

    def frame_rotation_log(frame, reference):
        def f(qq):
            pin.framesForwardKinematics(model, aux, qq)
            return pin.log3(aux.oMf[frame].rotation @ reference.T)
        return f

    def corner_position(frame, corner):
        def f(qq):
            pin.framesForwardKinematics(model, aux, qq)
            return aux.oMf[frame].translation + aux.oMf[frame].rotation @ corner
        return f

    np.testing.assert_allclose(data.Jcom, finite_difference_jacobian(com_of, q, model), atol=1e-6)
    frames = [wbc.kinematics.base_frame, *wbc.sole_frames.values()]
    for frame in frames:
        state = wbc.kinematics.frame(frame)
        pose, jac, drift = state.placement, state.jacobian, state.drift
        np.testing.assert_allclose(jac[:3], finite_difference_jacobian(frame_position(frame), q, model), atol=1e-6)
        np.testing.assert_allclose(jac[3:], finite_difference_jacobian(frame_rotation_log(frame, pose.rotation.copy()), q, model),
                                   atol=1e-6)
        for corner in wbc.corners_sole:
            np.testing.assert_allclose(point_jacobian(pose.rotation, jac, corner),
                                       finite_difference_jacobian(corner_position(frame, corner), q, model), atol=1e-6)
        # Drift J̇v: the second time derivative of the position along q(t) = q ⊕ v t (v̇ = 0).
        h = 1e-4
        positions = [frame_position(frame)(pin.integrate(model, q, v * t)) for t in (-h, 0.0, h)]
        np.testing.assert_allclose(drift[:3], (positions[0] - 2 * positions[1] + positions[2]) / h**2, atol=1e-4)
    h = 1e-4
    coms = [com_of(pin.integrate(model, q, v * t)) for t in (-h, 0.0, h)]
    np.testing.assert_allclose(data.acom[0], (coms[0] - 2 * coms[1] + coms[2]) / h**2, atol=1e-4)


def test_bad_input_is_refused_with_a_reason():
    robot = load_robot("biped")
    wbc = WholeBodyController(robot)
    q, v = standing_state(robot)
    ref = hold_reference(wbc, q, v)
    bad = WbcReference(np.array([np.nan, 0.0]), ref.com_velocity_m_s, ref.com_acceleration_m_s2, ref.pelvis_height_m,
                       0.0, ref.pelvis_quat_wxyz, ref.feet, ref.joint_posture_rad)
    out = wbc.solve(q, v, bad)
    assert not out.ok and "non-finite" in out.status
    airborne = {s: FootTarget(False, f.position_m, f.velocity_m_s, f.acceleration_m_s2, f.quat_wxyz) for s, f in ref.feet.items()}
    out = wbc.solve(q, v, WbcReference(ref.com_position_m, ref.com_velocity_m_s, ref.com_acceleration_m_s2,
                                       ref.pelvis_height_m, 0.0, ref.pelvis_quat_wxyz, airborne, ref.joint_posture_rad))
    assert not out.ok and "no stance foot" in out.status


def test_a_solver_failure_is_retried_with_the_backup_solver(monkeypatch):
    """A numerical failure of the primary solver is answered by the backup solver (the status
    says so and the walking tick logs it); only when every attempt fails is the output refused."""
    import wbc_node.wbc as wbc_module
    from wbc_node.qp import QpSolution, solve_qp
    robot = load_robot("biped")
    wbc = WholeBodyController(robot)
    q, v = standing_state(robot)
    reference = hold_reference(wbc, q, v)
    expected = wbc.solve(q, v, reference)

    def daqp_fails(*args, solver="quadprog", **kwargs):
        return QpSolution(False, "cycling", None) if solver == "daqp" else solve_qp(*args, solver=solver, **kwargs)
    monkeypatch.setattr(wbc_module, "solve_qp", daqp_fails)
    out = wbc.solve(q, v, reference)
    assert out.ok and out.status.startswith("ok via backup solver (quadprog) after daqp: cycling")
    np.testing.assert_allclose(out.torque_nm, expected.torque_nm, atol=1e-3)
    monkeypatch.setattr(wbc_module, "solve_qp", lambda *a, **k: QpSolution(False, "broken", None))
    out = wbc.solve(q, v, reference)
    assert not out.ok and "torque limits relaxed" in out.status and out.status.startswith("QP failed")


def test_the_gains_file_is_validated_naming_the_field(tmp_path):
    from biped_common.errors import ConfigError
    from wbc_node.wbc import WbcGains
    assert WbcGains.load() == WbcGains.default()
    text = Path(params_file("wbc.yaml")).read_text().replace("swing_kp: 150.0", "swing_kp: -3.0")
    path = tmp_path / "wbc.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="swing_kp"):
        WbcGains.load(path)


def test_the_style_first_gains_load_and_differ_where_their_header_says():
    """config/wbc_style_first.yaml passes the same validation; it differs from config/wbc.yaml in the
    swing gains and feed-forward, the pelvis weight and gains, the legs' posture reference and the
    rolling stance only."""
    from dataclasses import asdict

    from wbc_node.wbc import WbcGains
    default, style_first = asdict(WbcGains.default()), asdict(WbcGains.load(params_file("wbc_style_first.yaml")))
    changed = {k for k in default if default[k] != style_first[k]}
    assert changed == {"swing_kp", "swing_kd", "swing_horizontal_feedforward_limit_m_s2",
                       "swing_vertical_feedforward_limit_m_s2", "pelvis_weight", "pelvis_kp", "pelvis_kd",
                       "leg_posture_from_tasks", "stance_roll_pitch_rad"}
    assert default["stance_roll_pitch_rad"] == 0.0 < style_first["stance_roll_pitch_rad"]
    assert default["leg_posture_from_tasks"] == 0.0 and style_first["leg_posture_from_tasks"] == 1.0


def test_the_rolling_stance_rows_drift_is_the_edge_points_acceleration(robot):
    """At a random state with v̇ = 0, the rows' right-hand side (without its damping) is minus the
    edge midpoint's classical acceleration (finite differences along q ⊕ v t) and minus the sole's
    angular drift in its own axes."""
    from wbc_node.wbc import rolling_stance_rows
    wbc = WholeBodyController(robot)
    model = wbc.model
    rng = np.random.default_rng(5)
    q, _ = standing_state(robot)
    q = pin.integrate(model, q, rng.normal(scale=0.2, size=model.nv))
    v = rng.normal(scale=0.5, size=model.nv)
    wbc.kinematics.update(q, v)
    frame = wbc.sole_frames["left"]
    sole = wbc.kinematics.soles["left"]
    edge = np.array([wbc.corners_sole[2, 0], 0.0, 0.0])  # the toe edge's midpoint
    target = FootTarget(True, sole.placement.translation, np.zeros(3), np.zeros(3),
                        pin.Quaternion(sole.placement.rotation).coeffs()[[3, 0, 1, 2]])
    rows, rhs = rolling_stance_rows(sole, edge, target, 0.0, 0.0, 0.0)
    aux = model.createData()

    def edge_position(qq):
        pin.framesForwardKinematics(model, aux, qq)
        return aux.oMf[frame].translation + aux.oMf[frame].rotation @ edge
    h = 1e-4
    points = [edge_position(pin.integrate(model, q, v * t)) for t in (-h, 0.0, h)]
    np.testing.assert_allclose(-rhs[:3], (points[0] - 2 * points[1] + points[2]) / h**2, atol=1e-4)
    np.testing.assert_allclose(rows[:3] @ v, (points[2] - points[0]) / (2 * h), atol=1e-5)
    np.testing.assert_allclose(-rhs[3:], sole.placement.rotation.T @ sole.drift[3:], atol=1e-9)


def test_a_stance_foot_rolls_on_its_toe_when_the_plan_lifts_its_heel(robot):
    """With stance rolling on, a stance sole planned 0.1 rad heel up pivots about its toe edge: the
    edge does not accelerate, the sole pitches towards the plan at the PD's rate, roll and yaw stay
    at rest, and the foot's forces act at the toe; held flat (the shipped gains) it does not move."""
    from dataclasses import replace
    from wbc_node.wbc import WbcGains
    gains = replace(WbcGains.default(), stance_roll_pitch_rad=0.02)
    wbc = WholeBodyController(robot, gains)
    q, v = standing_state(robot)
    ref = hold_reference(wbc, q, v)
    sole = wbc.data.oMf[wbc.sole_frames["left"]]
    heel_up = sole.rotation @ pin.exp3(np.array([0.0, 0.1, 0.0]))
    feet = dict(ref.feet)
    feet["left"] = replace(ref.feet["left"], quat_wxyz=pin.Quaternion(heel_up).coeffs()[[3, 0, 1, 2]])
    ref = replace(ref, feet=feet)
    assert wbc.stance_edge(ref.feet["left"]) == "toe" and wbc.stance_edge(ref.feet["right"]) == "flat"
    out = wbc.solve(q, v, ref)
    assert out.ok, out.status
    kin = wbc.kinematics
    left = kin.soles["left"]
    toe_mid = np.array([wbc.corners_sole[2, 0], 0.0, 0.0])
    edge_accel = (left.jacobian[:3] - pin.skew(left.placement.rotation @ toe_mid) @ left.jacobian[3:]) @ out.acceleration
    assert np.abs(edge_accel).max() < 1e-6
    angular = left.placement.rotation.T @ (left.jacobian[3:] @ out.acceleration)  # sole axes
    assert angular[1] == pytest.approx(gains.swing_kp * 0.1, rel=1e-3)  # heel up: +pitch
    assert abs(angular[0]) < 1e-6 and abs(angular[2]) < 1e-6
    assert out.contact_forces_n["left"][:, 2].sum() > 0.2 * robot.mass_kg * GRAVITY  # still bearing weight
    flat = WholeBodyController(robot).solve(q, v, ref)
    flat_left = WholeBodyController(robot)
    flat_left.kinematics.update(q, v)
    assert np.abs(flat_left.kinematics.soles["left"].jacobian @ flat.acceleration).max() < 1e-6
