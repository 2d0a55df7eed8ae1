"""Both robots' legs reach every shipped style's foot poses over the velocity range (Pinocchio
IK), and the cheap per-tick reach check agrees with IK."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from gait_planner_node.planner import GaitPlanner, PlannerConfig
from gait_planner_node.reachability import LegGeometry, LegIk, ankle_reach_margin_m
from gait_planner_node.style import load_style, shipped_styles

ROBOTS = {name: load_robot(name) for name in ("humanoid", "biped")}


def velocity_set(style):
    s = style.samples
    keys = ("backward_fast", "in_place", "forward_slow", "forward_fast", "sidestep_left", "sidestep_right",
            "turn_left", "turn_right")
    vs = [np.asarray(s[k].velocity, dtype=float) for k in keys]
    vs.append(0.7 * np.asarray(s["forward_fast"].velocity) + 0.5 * np.asarray(s["turn_left"].velocity))
    vs.append(0.5 * np.asarray(s["backward_fast"].velocity) + 0.6 * np.asarray(s["sidestep_right"].velocity))
    return vs


@pytest.mark.parametrize("style_name", shipped_styles())
@pytest.mark.parametrize("robot_name", sorted(ROBOTS))
def test_every_planned_foot_pose_is_reachable(robot_name, style_name):
    robot, style = ROBOTS[robot_name], load_style(style_name)
    legs, ik = LegGeometry.from_robot(robot), LegIk(robot)
    worst_position, worst_angle, worst_margin = 0.0, 0.0, np.inf
    for velocity in velocity_set(style):
        planner = GaitPlanner(style, PlannerConfig.for_robot(robot, preview_dt_s=0.06, preview_horizon_s=1.2))
        planner.set_command(velocity)
        for _ in range(100):
            planner.step(0.02)
        ref = planner.reference()
        for side, margin in ankle_reach_margin_m(ref, legs).items():
            worst_margin = min(worst_margin, margin.min())
            for i in range(len(ref.times_s)):
                pelvis = (ref.body[i, 0], ref.body[i, 1], ref.pelvis_height_m[i])
                _, position_error, angle_error = ik.solve(side, pelvis, ref.pelvis_quat_wxyz[i],
                                                          ref.foot_position_m[side][i], ref.foot_quat_wxyz[side][i])
                worst_position = max(worst_position, position_error)
                worst_angle = max(worst_angle, angle_error)
    assert worst_position < 1e-3 and worst_angle < 1e-2, (worst_position, worst_angle)
    assert worst_margin > 0.0


def test_ik_reports_an_unreachable_pose_and_the_margin_goes_negative():
    robot = ROBOTS["humanoid"]
    ik, legs = LegIk(robot), LegGeometry.from_robot(robot)
    _, error, _ = ik.solve("left", (0.0, 0.0, 0.6), (1.0, 0, 0, 0), (0.45, 0.06, 0.0), (1.0, 0, 0, 0))
    assert error > 0.05  # 0.45 m ahead of the hip at this height is out of reach
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(robot))
    ref = planner.reference(np.array([0.0]))
    ref.foot_position_m["left"][0, 0] += 0.45
    assert ankle_reach_margin_m(ref, legs)["left"][0] < 0.0
