"""The 002 arm: analytic IK round-trips FK, the arm angle keeps 002's sign convention, and reach
plans meet the kinematic bars (straight path, one speed peak, zero end velocities, limits, final
pose) on 100 random reachable targets; bad input is refused or clamped with a note."""

import math

import numpy as np
import pytest

from biped_common.rotations import quat_slerp, quat_to_matrix, so3_log
from reach_planner_node.arm import Arm, IkFailure
from reach_planner_node.reach import damped_least_squares, geometric_jacobian, plan_reach

ARM = Arm()
LIMITS = ARM.limits_rad
# A natural start (upper arm forward-down, elbow bent) and a natural workspace in front of the body.
HOME = np.deg2rad([-30, -80, -20, -60, 90, 90, 0])
NATURAL = np.deg2rad([[-100, 0], [-110, -40], [-90, -10], [-120, -20], [30, 150], [40, 140], [-30, 20]])


def random_postures(rng, n, low=LIMITS[:, 0], high=LIMITS[:, 1]):
    out = []
    while len(out) < n:
        q = rng.uniform(low, high)
        if abs(math.sin(q[3])) > 0.05 and abs(math.sin(q[5])) > 0.05:  # off the elbow/wrist singularities
            out.append(q)
    return out


def test_analytic_inverse_round_trips_forward_kinematics_to_1e_9():
    for q in random_postures(np.random.default_rng(0), 500):
        pose = ARM.forward(q)
        q_back = ARM.inverse(pose.hand, pose.hand_rotation, ARM.arm_angle(q))
        np.testing.assert_allclose(q_back, q, atol=1e-9)
        again = ARM.forward(q_back)
        np.testing.assert_allclose(again.hand, pose.hand, atol=1e-9)
        np.testing.assert_allclose(again.hand_rotation, pose.hand_rotation, atol=1e-9)


def test_arm_angle_turns_the_elbow_about_shoulder_wrist_with_002s_sign():
    pose = ARM.forward(HOME)
    phi = ARM.arm_angle(HOME)
    for delta in (0.1, -0.1):
        q = ARM.inverse(pose.hand, pose.hand_rotation, phi + delta, check_limits=False)
        assert ARM.arm_angle(q) == pytest.approx(phi + delta, abs=1e-9)
        turned = ARM.forward(q)
        np.testing.assert_allclose(turned.wrist, pose.wrist, atol=1e-12)  # the wrist stays
        # Right-hand rotation of the elbow about S→W for a positive change.
        axis = pose.wrist / np.linalg.norm(pose.wrist)
        assert np.sign(np.cross(pose.elbow, turned.elbow) @ axis) == np.sign(delta)


def test_out_of_reach_and_singular_inverses_say_why():
    with pytest.raises(IkFailure, match="out of reach"):
        ARM.inverse([1.0, 0.0, 0.0], np.eye(3), 0.0)
    straight = ARM.forward(np.array([0.0, -1.0, -0.5, 0.0, 1.0, 1.0, 0.0]))
    with pytest.raises(IkFailure, match="straight arm"):
        ARM.inverse(straight.hand, straight.hand_rotation, 0.0)


def test_slerp_takes_the_short_way_and_jacobian_matches_finite_differences():
    a = np.array([1.0, 0.0, 0.0, 0.0])
    b = -np.array([math.cos(0.2), 0.0, 0.0, math.sin(0.2)])  # the same small turn, negated quaternion
    middle = quat_slerp(a, b, 0.5)
    assert np.degrees(np.linalg.norm(so3_log(quat_to_matrix(middle)))) == pytest.approx(np.degrees(0.2), abs=1e-9)
    q = random_postures(np.random.default_rng(1), 1)[0]
    jac = geometric_jacobian(ARM, q)
    for i in range(7):
        step = np.zeros(7)
        step[i] = 1e-7
        plus, minus = ARM.forward(q + step), ARM.forward(q - step)
        np.testing.assert_allclose(jac[:3, i], (plus.hand - minus.hand) / 2e-7, atol=1e-6)
        np.testing.assert_allclose(jac[3:, i], so3_log(plus.hand_rotation @ minus.hand_rotation.T) / 2e-7, atol=1e-6)


def test_reach_plans_meet_the_kinematic_bars_on_100_random_targets():
    rng = np.random.default_rng(3)
    planned = fallback = 0
    while planned < 100:
        posture = random_postures(rng, 1, *NATURAL.T)[0]
        target = ARM.forward(posture)
        plan = plan_reach(ARM, HOME, target.hand, target.hand_rotation, ARM.arm_angle(posture), dt_s=0.005)
        if any("damped least squares" in n for n in plan.notes):
            fallback += 1  # not reachable along the straight path within the limits: said so
            continue
        planned += 1
        hands = np.array([ARM.forward(q).hand for q in plan.joints])
        start, end = hands[0], target.hand
        direction = (end - start) / np.linalg.norm(end - start)
        offsets = hands - start
        assert np.max(np.linalg.norm(offsets - np.outer(offsets @ direction, direction), axis=1)) <= 1e-3
        speed = np.linalg.norm(np.diff(hands, axis=0), axis=1)
        rising = np.sign(np.diff(speed))
        rising = rising[rising != 0]
        assert np.count_nonzero(rising[1:] != rising[:-1]) == 1  # one peak
        assert np.max(np.abs(plan.joints[1] - plan.joints[0])) / 0.005 < 1e-2
        assert np.max(np.abs(plan.joints[-1] - plan.joints[-2])) / 0.005 < 1e-2
        assert np.all(plan.joints >= LIMITS[:, 0] - 1e-9) and np.all(plan.joints <= LIMITS[:, 1] + 1e-9)
        final = ARM.forward(plan.joints[-1])
        assert np.linalg.norm(final.hand - end) <= 1e-3
        assert math.degrees(np.linalg.norm(so3_log(final.hand_rotation @ target.hand_rotation.T))) <= 1.0
    assert fallback <= 10


def test_unreachable_and_non_finite_targets():
    plan = plan_reach(ARM, HOME, [0.0, 0.0, -1.5], np.eye(3), 0.0)
    assert any("out of reach" in n for n in plan.notes)
    assert np.linalg.norm(ARM.forward(plan.joints[-1]).wrist) <= ARM.upper_arm_m + ARM.forearm_m
    with pytest.raises(ValueError, match="target_position"):
        plan_reach(ARM, HOME, [np.nan, 0.0, 0.0], np.eye(3), 0.0)


def test_damped_least_squares_reaches_a_nearby_pose_within_limits():
    rng = np.random.default_rng(6)
    for q in random_postures(rng, 20, *NATURAL.T):
        target = ARM.forward(q)
        start = np.clip(q + rng.uniform(-0.2, 0.2, 7), LIMITS[:, 0], LIMITS[:, 1])
        solved = ARM.forward(damped_least_squares(ARM, start, target.hand, target.hand_rotation))
        assert np.linalg.norm(solved.hand - target.hand) < 1e-6
