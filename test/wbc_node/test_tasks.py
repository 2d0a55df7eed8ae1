"""The WBC's tasks one by one: zero error and pure feed-forward when the reference is the state;
the PD law's sign; feed-forward clipping; each task's J v is the rate of its error (finite
differences along q ⊕ v t); the posture task's diagonal shortcut equals the generic cost."""

import numpy as np
import pinocchio as pin
import pytest

from biped_common.robot_model import mujoco_to_pinocchio_q
from wbc_node.tasks import ComTask, Kinematics, PelvisTask, PostureTask, SwingFootTask, Task
from wbc_node.wbc import FootTarget, WbcReference


def quat_wxyz(rotation):
    return pin.Quaternion(rotation).coeffs()[[3, 0, 1, 2]]


def state_reference(kin, swing="left", com_acceleration=(0.0, 0.0), pelvis_accel=0.0, foot_accel=(0.0, 0.0, 0.0)):
    """A reference equal to the kinematics' current state (rates included), ``swing`` out of stance."""
    feet = {}
    for side, sole in kin.soles.items():
        feet[side] = FootTarget(side != swing, sole.placement.translation.copy(), sole.velocity[:3].copy(),
                                np.array(foot_accel, dtype=float), quat_wxyz(sole.placement.rotation),
                                sole.velocity[3:].copy(), np.zeros(3))
    base = kin.base
    return WbcReference(kin.com_position_m[:2].copy(), kin.com_velocity_m_s[:2].copy(), np.array(com_acceleration),
                        float(base.placement.translation[2]), float(base.velocity[2]), quat_wxyz(base.placement.rotation),
                        feet, kin.q[7:].copy(), kin.v[6:].copy(), None, pelvis_accel, base.velocity[3:].copy(), None)


def random_state(robot, seed):
    rng = np.random.default_rng(seed)
    model = robot.pin_model
    q = pin.integrate(model, mujoco_to_pinocchio_q(robot.standing_qpos()), rng.normal(scale=0.1, size=model.nv))
    return q, rng.normal(scale=0.4, size=model.nv)


def all_tasks(robot):
    return [ComTask(1.0, 30.0, 10.0), PelvisTask(1.0, 50.0, 12.0, 80.0, 15.0, 4.0),
            SwingFootTask("left", 1.0, 150.0, 25.0, 40.0, 30.0),
            PostureTask(robot.joint_names, 1.0, 2.0, 20.0, 8.0)]


def test_a_reference_equal_to_the_state_has_zero_error_and_only_its_feed_forward(robot):
    kin = Kinematics(robot)
    q, v = random_state(robot, 0)
    kin.update(q, v)
    ref = state_reference(kin, com_acceleration=(0.3, -0.2), pelvis_accel=1.5, foot_accel=(2.0, 0.0, -1.0))
    com, pelvis, swing, posture = all_tasks(robot)
    for task in (com, pelvis, swing, posture):
        np.testing.assert_allclose(task.error(kin, ref), 0.0, atol=1e-12)
    np.testing.assert_allclose(com.desired_acceleration(kin, ref), [0.3, -0.2], atol=1e-12)
    np.testing.assert_allclose(pelvis.desired_acceleration(kin, ref), [1.5, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(swing.desired_acceleration(kin, ref), [2.0, 0, -1.0, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(posture.desired_acceleration(kin, ref), 0.0, atol=1e-12)


def test_the_pd_laws_push_towards_the_reference_and_clip_the_feed_forward(robot):
    kin = Kinematics(robot)
    q, v = random_state(robot, 1)
    kin.update(q, v)
    ref = state_reference(kin, pelvis_accel=50.0, foot_accel=(0.0, 0.0, 500.0))
    com, pelvis, swing, _ = all_tasks(robot)
    higher = WbcReference(ref.com_position_m + [0.01, 0.0], *[getattr(ref, f) for f in (
        "com_velocity_m_s", "com_acceleration_m_s2")], ref.pelvis_height_m + 0.01, ref.pelvis_height_rate_m_s,
        ref.pelvis_quat_wxyz, ref.feet, ref.joint_posture_rad, pelvis_height_accel_m_s2=0.0)
    assert com.desired_acceleration(kin, higher)[0] == pytest.approx(30.0 * 0.01)
    assert pelvis.desired_acceleration(kin, higher)[0] == pytest.approx(50.0 * 0.01)
    assert pelvis.desired_acceleration(kin, ref)[0] == pytest.approx(4.0)  # 50 m/s² asked, 4 allowed
    np.testing.assert_allclose(swing.desired_acceleration(kin, ref)[:3], [0.0, 0.0, 30.0], atol=1e-9)
    sideways = state_reference(kin, foot_accel=(300.0, 400.0, -100.0))  # horizontal norm 500: 40 allowed
    np.testing.assert_allclose(swing.desired_acceleration(kin, sideways)[:3], [24.0, 32.0, -30.0], atol=1e-9)
    assert swing.active(ref) and not SwingFootTask("right", 1.0, 1.0, 1.0, 1.0, 1.0).active(ref)


@pytest.mark.parametrize("seed", range(3))
def test_each_jacobian_maps_the_velocity_to_the_rate_of_its_error(robot, seed):
    """With the reference frozen at the state, d(error)/dt = −J v along q(t) = q ⊕ v t."""
    kin, probe = Kinematics(robot), Kinematics(robot)
    q, v = random_state(robot, seed)
    kin.update(q, v)
    ref = state_reference(kin)
    h = 1e-6
    for task in all_tasks(robot):
        errors = []
        for t in (-h, h):
            probe.update(pin.integrate(robot.pin_model, q, v * t), v)
            errors.append(task.error(probe, ref))
        np.testing.assert_allclose((errors[1] - errors[0]) / (2 * h), -task.jacobian(kin) @ v, atol=1e-5,
                                   err_msg=type(task).__name__)


def test_the_posture_tasks_diagonal_cost_equals_the_generic_one(robot):
    kin = Kinematics(robot)
    q, v = random_state(robot, 2)
    kin.update(q, v)
    ref = state_reference(kin)
    ref = WbcReference(*[getattr(ref, f) for f in ("com_position_m", "com_velocity_m_s", "com_acceleration_m_s2",
                                                   "pelvis_height_m", "pelvis_height_rate_m_s", "pelvis_quat_wxyz",
                                                   "feet")], ref.joint_posture_rad + 0.05)
    posture = PostureTask(robot.joint_names, 3.0, 7.0, 20.0, 8.0)
    shortcut_h, shortcut_g = np.zeros((kin.nv, kin.nv)), np.zeros(kin.nv)
    generic_h, generic_g = np.zeros((kin.nv, kin.nv)), np.zeros(kin.nv)
    posture.add_cost(kin, ref, shortcut_h, shortcut_g)
    posture.weight = posture.weights  # the generic formula with per-row weights (w Jᵀ as a broadcast)
    Task.add_cost(posture, kin, ref, generic_h, generic_g)
    np.testing.assert_allclose(shortcut_h, generic_h, atol=1e-12)
    np.testing.assert_allclose(shortcut_g, generic_g, atol=1e-12)
    weight_of = dict(zip(robot.joint_names, posture.weights))
    assert weight_of["l_knee"] == weight_of["r_hip_roll"] == 3.0  # legs: weight, upper body: upper_weight
    assert all(weight_of.get(name, 7.0) == 7.0 for name in ("waist_yaw", "l_elbow", "r_shoulder_pitch"))
