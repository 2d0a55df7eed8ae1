"""The editor's 3D view data (issue #17): the robot posed by IK on the planner's reference, with
its CoM on the MPC's kinematic plan — the pose is the reference's, not a look-alike."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot, mujoco_to_pinocchio_q
from biped_stack.editor.poses import planned_motion, robot_geometry
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import load_style


@pytest.fixture(scope="module", params=["humanoid", "biped"])
def walked(request):
    robot = load_robot(request.param)
    motion = planned_motion(load_style("neutral"), PlannerConfig.for_robot(robot), robot, [0.3, 0.0, 0.0])
    return robot, motion


def test_the_posed_soles_are_the_planned_soles(walked):
    robot, motion = walked
    assert len(motion["time_s"]) >= 2 * motion["cycle_s"] * 25 - 1
    worst = 0.0
    for k, qpos in enumerate(motion["qpos"]):
        soles = robot.sole_poses(mujoco_to_pinocchio_q(np.array(qpos)))
        for side in ("left", "right"):
            worst = max(worst, float(np.linalg.norm(np.array(soles[side][:3]) - motion["sole_m"][side][k])))
    assert worst < 2e-3  # legs by IK onto the reference (1e-4 m rounding of the sent numbers)


def test_the_robot_walks_at_the_command_with_its_com_swaying_between_the_feet(walked):
    _, motion = walked
    com = np.array(motion["com_m"])
    t = np.array(motion["time_s"])
    speed = (com[-1, 0] - com[0, 0]) / (t[-1] - t[0])
    assert speed == pytest.approx(0.3, abs=0.03)
    assert 0.003 < np.ptp(com[:, 1]) < 0.1   # the MPC's lateral sway, not a rigid glide
    left, right = np.array(motion["sole_m"]["left"]), np.array(motion["sole_m"]["right"])
    assert left[:, 2].max() > 0.03 and right[:, 2].max() > 0.03  # both feet swing
    assert {side for side, *_ in motion["footprints"]} == {"left", "right"}


def test_a_swing_height_edit_lifts_the_posed_feet():
    robot = load_robot("humanoid")
    config = PlannerConfig.for_robot(robot)
    style = load_style("neutral")
    base = planned_motion(style, config, robot, [0.3, 0.0, 0.0])
    from biped_stack.editor.document import StyleDocument
    document = StyleDocument.open("neutral")
    document.apply("forward_slow", {"swing.height_m": [[0.45, 0.075]]})
    raised = planned_motion(document.style, config, robot, [0.3, 0.0, 0.0])
    bodies = robot_geometry(robot)["bodies"]
    feet = [bodies.index(robot.description.feet[side].body) for side in ("left", "right")]

    def apex(motion):  # the highest foot body of the poses the page draws
        return float(np.array(motion["body_pos_m"])[:, feet, 2].max())
    assert apex(raised) - apex(base) == pytest.approx(0.02, abs=0.004)


def test_geometry_has_every_moving_body_drawn():
    robot = load_robot("humanoid")
    geometry = robot_geometry(robot)
    drawn = {g["body"] for g in geometry["geoms"]}
    assert 0 not in drawn   # the floor is the page's own
    names = geometry["bodies"]
    for side in ("left", "right"):
        assert robot.description.feet[side].body in {names[b] for b in drawn}
    for geom in geometry["geoms"]:
        assert geom["type"] in {"sphere", "capsule", "ellipsoid", "cylinder", "box"}
        assert len(geom["pos"]) == 3 and len(geom["quat"]) == 4 and len(geom["rgba"]) == 4


def test_the_measured_pose_is_forward_kinematics_of_odom_and_joint_states():
    import mujoco
    from biped_common.state import BaseState
    from biped_stack.editor.poses import measured_pose
    robot = load_robot("biped")
    qpos = robot.standing_qpos()
    qpos[:3] += [0.4, -0.1, 0.0]
    base = BaseState(7.5, qpos[:3], qpos[3:7], np.zeros(3), np.zeros(3))
    names = list(reversed(robot.joint_names))  # /joint_states in any order
    pose = measured_pose(robot, base, names, list(reversed(qpos[7:])))
    data = mujoco.MjData(robot.mj_model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(robot.mj_model, data)
    assert np.array(pose["body_pos_m"]) == pytest.approx(data.xpos, abs=1e-4)
    assert pose["qpos"] == pytest.approx(qpos.tolist(), abs=1e-5) and pose["stamp_s"] == 7.5
    with pytest.raises(ValueError, match="unknown"):
        measured_pose(robot, base, [*names[:-1], "tail_joint"], qpos[7:])
    bad = list(qpos[7:])
    bad[0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        measured_pose(robot, base, robot.joint_names, bad)
