"""Stopping in place on a stale reference: the next double support, frozen there."""

from dataclasses import replace

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from gait_planner_node.planner import GaitPlanner, PlannerConfig, gait_reference
from gait_planner_node.style import load_style
from wbc_node.hold import RELEASE_POSITION_M, StanceHold
from wbc_node.reference import ReferenceTable

ROBOT = load_robot("biped")
POSTURE = ROBOT.standing_posture_rad


def walking_table(seconds: float = 2.0):
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(ROBOT))
    planner.set_command([0.3, 0.0, 0.0])
    for _ in range(int(seconds / 0.008)):
        planner.step(0.008)
    return planner, gait_reference(planner.reference(), 0.0)


def test_the_hold_is_the_next_double_support_and_everything_freezes_there():
    planner, reference = walking_table()
    table = ReferenceTable(reference)
    both = reference.in_stance["left"] & reference.in_stance["right"]
    # From a single-support instant: the first double support after it.
    single = int(np.flatnonzero(~both)[0])
    now = 10.0 + reference.times_s[single]
    hold = StanceHold.start(table, 10.0, now, plan=None)
    first_ds = reference.times_s[single:][both[single:]][0]
    assert hold.hold_at_s == pytest.approx(10.0 + first_ds)
    later = hold.reference(hold.hold_at_s + 0.5, POSTURE, np.zeros(0, dtype=int))
    for side in ("left", "right"):
        foot = later.feet[side]
        assert foot.in_stance
        np.testing.assert_allclose(foot.position_m, hold.feet_position_m[side])
        np.testing.assert_allclose(foot.velocity_m_s, 0.0, atol=1e-12)
    np.testing.assert_allclose(later.com_position_m, hold.com_target_m)
    np.testing.assert_allclose(later.com_velocity_m_s, 0.0)
    middle = 0.5 * (hold.feet_position_m["left"][:2] + hold.feet_position_m["right"][:2])
    np.testing.assert_allclose(hold.com_target_m, middle)


def test_a_reference_without_double_support_left_has_no_hold():
    _, reference = walking_table()
    reference = replace(reference, in_stance={**reference.in_stance, "left": np.zeros_like(reference.in_stance["left"])})
    assert StanceHold.start(ReferenceTable(reference), 0.0, 0.1, plan=None) is None


def test_released_only_by_a_reference_standing_on_the_held_feet():
    _, reference = walking_table()
    table = ReferenceTable(reference)
    hold = StanceHold.start(table, 0.0, 0.0, plan=None)
    standing = table.sample(np.array([hold.hold_at_s]))
    assert hold.released_by(standing)
    moved = {**standing, "left_sole_position_m": standing["left_sole_position_m"] + [2 * RELEASE_POSITION_M, 0, 0]}
    assert not hold.released_by(moved)
    lifted = {**standing, "right_in_stance": np.array([False])}
    assert not hold.released_by(lifted)
