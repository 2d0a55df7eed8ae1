"""Starting on a standing robot, and noticing a robot that stopped following the plan."""

import pytest

from biped_common.robot_model import load_robot
from biped_common.rotations import quats_yaw
from gait_planner_node.anchor import (CONFIRMATIONS, LEFT_PLAN_POSITION_M, FollowWatch, SolePose,
                                      planner_standing_on, start_between)
from gait_planner_node.planner import GaitPlanner, PlannerConfig, Pose2
from gait_planner_node.style import load_style

STYLE = load_style("neutral")
CONFIG = PlannerConfig.for_robot(load_robot("biped"))


def soles_of(planner: GaitPlanner, dx_m: float = 0.0, dz_m: float = 0.0) -> dict[str, SolePose]:
    """The planned soles now, as if measured; the left one moved by dx (and lifted by dz)."""
    ref = planner.reference()
    out = {}
    for side in ("left", "right"):
        p = ref.foot_position_m[side][0]
        yaw = float(quats_yaw(ref.foot_quat_wxyz[side][0]))
        shift = side == "left"
        out[side] = SolePose(p[0] + dx_m * shift, p[1], p[2] + dz_m * shift, yaw)
    return out


def test_start_between_the_feet_heading_their_mean_yaw():
    start, feet = start_between({"left": SolePose(1.0, 0.1, 0.0, 0.3), "right": SolePose(1.2, -0.1, 0.0, 0.1)})
    assert (start.x, start.y) == pytest.approx((1.1, 0.0)) and start.yaw == pytest.approx(0.2)
    assert feet["left"] == Pose2(1.0, 0.1, 0.3)


def test_a_planner_standing_on_measured_soles_keeps_them_and_walks_the_command():
    soles = {"left": SolePose(2.0, 1.1, 0.0, 0.5), "right": SolePose(2.05, 0.98, 0.0, 0.48)}
    planner = planner_standing_on(soles, STYLE, CONFIG, [0.2, 0.0, 0.0])
    assert planner.command.tolist() == [0.2, 0.0, 0.0]
    ref = planner.reference()
    for side in ("left", "right"):
        assert ref.foot_position_m[side][0][:2] == pytest.approx([soles[side].x, soles[side].y], abs=1e-9)


def test_the_watch_speaks_after_confirmations_only_when_both_feet_are_down_away_from_the_plan():
    planner = GaitPlanner(STYLE, CONFIG)
    watch = FollowWatch()
    assert all(watch.left_the_plan(planner.reference(), soles_of(planner)) is None for _ in range(10))
    far = soles_of(planner, dx_m=2 * LEFT_PLAN_POSITION_M)
    assert all(watch.left_the_plan(planner.reference(), far) is None for _ in range(CONFIRMATIONS - 1))
    reason = watch.left_the_plan(planner.reference(), far)
    assert reason is not None and f"left sole {200 * LEFT_PLAN_POSITION_M:.0f} cm" in reason
    # A foot in the air (mid-step) never triggers, however far: a restart begins in double support.
    lifted = soles_of(planner, dx_m=0.3, dz_m=0.05)
    assert all(watch.left_the_plan(planner.reference(), lifted) is None for _ in range(10))
    # Within the tolerance: following.
    near = soles_of(planner, dx_m=0.8 * LEFT_PLAN_POSITION_M)
    assert all(watch.left_the_plan(planner.reference(), near) is None for _ in range(10))
