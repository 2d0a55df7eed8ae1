"""The humanoid reaches with its own arms in MuJoCo: planned reaches (Pinocchio DLS along a
minimum-jerk path in the pelvis frame) fed through the whole-body controller's upper-body channel,
standing (CI) and while walking forward at 0.2 m/s (slow suite)."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_stack.reach_demo import run_reaches
from reach_planner_node.humanoid_reach import HumanoidArms, plan_humanoid_reach

TARGETS = [(0.25, -0.15, 0.25), (0.25, -0.05, 0.30), (0.20, -0.25, 0.20), (0.28, -0.12, 0.38), (0.22, -0.18, 0.15)]


def check(result):
    assert not result["fell"]
    assert len(result["reaches"]) == len(TARGETS)
    for reach in result["reaches"]:
        assert reach["final_error_m"] <= 0.01, reach
        assert reach["path_deviation_m"] <= 0.02, reach


def test_plans_reach_the_targets_kinematically_and_say_when_they_cannot():
    robot = load_robot("humanoid")
    arms = HumanoidArms(robot)
    posture = np.array(robot.standing_posture_rad)
    plan = plan_humanoid_reach(arms, "right", posture, TARGETS[0])
    final = posture.copy()
    final[[robot.joint_index[n] for n in plan.joint_names]] = plan.joints[-1]
    assert np.linalg.norm(arms.hand_pose("right", final).translation - TARGETS[0]) < 1e-4 and not plan.notes
    low, high = arms.limits["right"].T
    assert np.all(plan.joints >= low - 1e-9) and np.all(plan.joints <= high + 1e-9)
    far = plan_humanoid_reach(arms, "right", posture, (1.0, -0.2, 0.3))
    assert any("not reachable" in n for n in far.notes)
    with pytest.raises(ValueError, match="finite"):
        plan_humanoid_reach(arms, "right", posture, (np.nan, 0.0, 0.0))
    with pytest.raises(ValueError, match="left or right"):
        plan_humanoid_reach(arms, "middle", posture, TARGETS[0])


def test_standing_humanoid_reaches_five_targets_in_mujoco():
    check(run_reaches(TARGETS, progress=lambda m: None))


@pytest.mark.slow
def test_walking_humanoid_reaches_five_targets_in_mujoco():
    check(run_reaches(TARGETS, walk_speed_m_s=0.2, progress=lambda m: None))
