"""The legs' posture reference from the task references (wbc_node.leg_posture): a reference that
is the state's own pose gives the state's leg angles back, and sole and pelvis velocities that
are the state's give its leg joint rates; a stance foot's rates hold the sole still under a
moving pelvis; an unreachable target is not a warm start; a non-finite one changes nothing."""

import numpy as np
import pinocchio as pin
import pytest

from biped_common.robot_model import SIDES, mujoco_to_pinocchio_q
from wbc_node.leg_posture import LegPosture
from wbc_node.tasks import Kinematics
from wbc_node.wbc import FootTarget, WbcReference


def quat_wxyz(rotation):
    return pin.Quaternion(rotation).coeffs()[[3, 0, 1, 2]]


def bent_state(robot, seed, joint_speed=0.5):
    """A standing configuration with small random joint offsets (knees kept bent) and a random
    velocity."""
    rng = np.random.default_rng(seed)
    model = robot.pin_model
    q = mujoco_to_pinocchio_q(robot.standing_qpos())
    q[7:] += rng.normal(scale=0.05, size=robot.n_joints)
    return q, rng.normal(scale=joint_speed, size=model.nv)


def reference_of(kin, swinging=SIDES):
    """A WBC reference equal to the state's pelvis and soles (poses and velocities), the
    ``swinging`` feet out of stance."""
    feet = {side: FootTarget(side not in swinging, sole.placement.translation.copy(), sole.velocity[:3].copy(),
                             np.zeros(3), quat_wxyz(sole.placement.rotation), sole.velocity[3:].copy(), np.zeros(3))
            for side, sole in kin.soles.items()}
    base = kin.base
    return WbcReference(kin.com_position_m[:2].copy(), np.zeros(2), np.zeros(2), float(base.placement.translation[2]),
                        float(base.velocity[2]), quat_wxyz(base.placement.rotation), feet, np.zeros(kin.nv - 6),
                        np.zeros(kin.nv - 6), pelvis_angular_velocity_rad_s=base.velocity[3:].copy())


@pytest.mark.parametrize("seed", range(3))
def test_the_states_own_pose_and_motion_give_its_leg_angles_and_rates(robot, seed):
    kin, legs = Kinematics(robot), LegPosture(robot)
    q, v = bent_state(robot, seed)
    kin.update(q, v)
    start = q.copy()
    start[7:] = robot.standing_posture_rad  # the IK starts elsewhere and converges over the ticks
    out = None
    for _ in range(10):
        out = legs.apply(reference_of(kin), start, v)
    leg_joints = np.concatenate([robot.leg_joint_indices(side) for side in SIDES])
    np.testing.assert_allclose(out.joint_posture_rad[leg_joints], q[7:][leg_joints], atol=1e-5)
    np.testing.assert_allclose(out.joint_posture_rate_rad_s[leg_joints], v[6:][leg_joints], atol=2e-3)
    upper = np.setdiff1d(np.arange(robot.n_joints), leg_joints)
    np.testing.assert_array_equal(out.joint_posture_rad[upper], 0.0)  # the upper body's entries untouched


def test_a_stance_foots_rates_hold_the_sole_still_under_a_moving_pelvis(robot):
    kin, legs = Kinematics(robot), LegPosture(robot)
    q, v = bent_state(robot, 5)
    kin.update(q, v)
    out = None
    for _ in range(10):
        out = legs.apply(reference_of(kin, swinging=()), q, v)
    q_ref = q.copy()
    q_ref[7:] = out.joint_posture_rad
    v_ref = v.copy()
    v_ref[6:] = out.joint_posture_rate_rad_s
    kin.update(q_ref, v_ref)
    for side in SIDES:
        np.testing.assert_allclose(kin.soles[side].velocity, 0.0, atol=2e-3)


def test_an_unreachable_target_is_not_kept_as_a_warm_start_and_nan_changes_nothing(robot):
    kin, legs = Kinematics(robot), LegPosture(robot)
    q, v = bent_state(robot, 7)
    kin.update(q, v)
    ref = reference_of(kin)
    far = FootTarget(False, ref.feet["left"].position_m + np.array([0.0, 0.0, -1.0]), np.zeros(3), np.zeros(3),
                     ref.feet["left"].quat_wxyz)
    out = legs.apply(WbcReference(**{**ref.__dict__, "feet": {**ref.feet, "left": far}}), q, v)
    assert np.all(np.isfinite(out.joint_posture_rad)) and np.all(np.abs(out.joint_posture_rate_rad_s) <= 10.0)
    assert legs._solution is None
    bad = WbcReference(**{**ref.__dict__, "pelvis_height_m": float("nan")})
    assert legs.apply(bad, q, v) is bad


def test_blend_zero_computes_nothing_and_a_half_blend_is_halfway(robot):
    kin = Kinematics(robot)
    q, v = bent_state(robot, 9)
    kin.update(q, v)
    ref = reference_of(kin)
    assert LegPosture(robot, 0.0).apply(ref, q, v) is ref
    full, half = LegPosture(robot, 1.0).apply(ref, q, v), LegPosture(robot, 0.5).apply(ref, q, v)
    np.testing.assert_allclose(half.joint_posture_rad, 0.5 * full.joint_posture_rad, atol=1e-12)  # ref's legs: 0
    np.testing.assert_allclose(half.joint_posture_rate_rad_s, 0.5 * full.joint_posture_rate_rad_s, atol=1e-12)
    with pytest.raises(ValueError, match="blend"):
        LegPosture(robot, 1.5)
