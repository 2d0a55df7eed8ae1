"""The WBC's reference sampling: a C¹ cubic spline through the planner's grid, with its rates and
accelerations (wbc_node/reference.py)."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_common.rotations import quat_multiply
from gait_planner_node.planner import GaitPlanner, PlannerConfig, gait_reference
from gait_planner_node.style import load_style
from wbc_node.reference import ReferenceTable, angular_rates, knot_slopes, wbc_reference


def test_knot_slopes_are_exact_for_a_parabola_on_a_non_uniform_grid():
    t = np.array([0.0, 0.01, 0.02, 0.06, 0.1, 0.18])
    y = (3.0 * t**2 - t + 2.0)[:, None]
    slopes = knot_slopes(t, y)
    np.testing.assert_allclose(slopes[1:-1, 0], 6.0 * t[1:-1] - 1.0, atol=1e-12)


def walking_table():
    robot = load_robot("humanoid")
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(robot, feedback=None))
    planner.set_command([0.3, 0.0, 0.0])
    for _ in range(150):
        planner.step(0.02)
    return robot, planner, gait_reference(planner.reference(), 0.0)


def test_the_rates_are_the_derivatives_of_the_sampled_values_and_continuous():
    _, _, reference = walking_table()
    table = ReferenceTable(reference)
    h = 1e-5
    for time_s in (0.0031, 0.0127, 0.053, 0.134, 0.31):  # (not on a knot: the acceleration jumps there)
        motion = table.motion(time_s)
        before, after = table.sample(np.array([time_s - h])), table.sample(np.array([time_s + h]))
        for key in ("left_sole_position_m", "right_sole_position_m", "pelvis_height_m", "upper_joints_rad"):
            numeric = (after[key][0] - before[key][0]) / (2 * h)
            np.testing.assert_allclose(motion.rate[key][0], numeric, atol=1e-4)
            numeric_accel = (table.motion(time_s + h).rate[key][0] - table.motion(time_s - h).rate[key][0]) / (2 * h)
            np.testing.assert_allclose(motion.acceleration[key][0], numeric_accel, atol=1e-2)
    # C¹ at a knot: the rate just before equals the rate just after.
    knot = float(reference.times_s[5])
    for key in ("left_sole_position_m", "pelvis_height_m"):
        np.testing.assert_allclose(table.motion(knot - 1e-9).rate[key], table.motion(knot + 1e-9).rate[key], atol=1e-5)


def test_the_spline_passes_through_the_planners_samples():
    _, _, reference = walking_table()
    table = ReferenceTable(reference)
    sample = table.sample(reference.times_s[:12])
    np.testing.assert_allclose(sample["left_sole_position_m"], reference.sole_position_m["left"][:12], atol=1e-12)
    np.testing.assert_allclose(sample["pelvis_height_m"], reference.pelvis_height_m[:12], atol=1e-12)


def test_outside_the_grid_the_reference_is_held_at_rest():
    _, _, reference = walking_table()
    motion = ReferenceTable(reference).motion(float(reference.times_s[-1]) + 1.0)
    np.testing.assert_allclose(motion.value["pelvis_height_m"], reference.pelvis_height_m[-1:])
    assert not np.any(motion.rate["left_sole_position_m"]) and not np.any(motion.acceleration["pelvis_height_m"])


def test_angular_rates_of_a_constant_rotation_rate():
    omega = np.array([0.3, -0.2, 1.1])
    q0 = np.array([np.cos(0.2), 0.0, np.sin(0.2), 0.0])
    q_dot = 0.5 * quat_multiply(np.concatenate([[0.0], omega]), q0)  # q̇ = ½ ω ⊗ q (world axes)
    w, a = angular_rates(q0, q_dot, np.zeros(4) + 0.5 * quat_multiply(np.concatenate([[0.0], omega]), q_dot))
    np.testing.assert_allclose(w, omega, atol=1e-12)
    np.testing.assert_allclose(a, np.zeros(3), atol=1e-12)  # ω constant: no angular acceleration


def test_the_wbc_reference_carries_the_feed_forward():
    robot, _, reference = walking_table()
    table = ReferenceTable(reference)
    upper = np.array([robot.joint_index[n] for n in reference.upper_joint_names], dtype=int)
    # The middle of the first swing in the preview (either foot).
    side = "left" if not reference.in_stance["left"][:60].all() else "right"
    swinging = np.flatnonzero(~reference.in_stance[side])
    middle = float(reference.times_s[swinging[len(swinging) // 4]]) + 0.003
    ref = wbc_reference(table.motion(middle), (np.zeros(2), np.zeros(2), np.zeros(2)), robot.standing_posture_rad, upper)
    foot = ref.feet[side]
    assert not foot.in_stance and np.linalg.norm(foot.acceleration_m_s2) > 1.0
    assert foot.angular_velocity_rad_s.shape == (3,) and ref.pelvis_angular_velocity_rad_s.shape == (3,)
    assert ref.joint_posture_rate_rad_s[upper].any()
