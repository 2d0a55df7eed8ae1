"""The video's ghost: the planned pose rebuilt from a WBC reference puts the soles on their targets,
the CoM on the planned CoM and the pelvis at its height and orientation, in the world frame given
by the estimator's drift; drawn, it adds translucent geoms over the robot."""

import os

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from biped_common.robot_model import mujoco_to_pinocchio_q, pinocchio_to_mujoco_q
from biped_common.rotations import matrix_to_quat, quat_multiply, quat_to_matrix, rpy_to_matrix
from biped_stack.ghost import PlannedPose
from wbc_node.wbc import FootTarget, WbcReference


def wxyz(rotation):
    return pin.Quaternion(rotation).coeffs()[[3, 0, 1, 2]]


def reference_of(robot, q):
    """The WBC reference a configuration q realizes (planning frame = q's frame)."""
    model, data = robot.pin_model, robot.pin_model.createData()
    pin.framesForwardKinematics(model, data, q)
    com = pin.centerOfMass(model, data, q)
    feet = {}
    for side, foot in robot.description.feet.items():
        pose = data.oMf[model.getFrameId(foot.sole_site)]
        feet[side] = FootTarget(side == "left", pose.translation.copy(), np.zeros(3), np.zeros(3), wxyz(pose.rotation))
    base = data.oMi[1]
    return WbcReference(com[:2].copy(), np.zeros(2), np.zeros(2), float(base.translation[2]), 0.0,
                        wxyz(base.rotation), feet, q[7:].copy())


def test_the_planned_pose_meets_the_reference_in_the_world_frame(robot):
    rng = np.random.default_rng(4)
    q = mujoco_to_pinocchio_q(robot.standing_qpos())
    legs = [i for i, n in enumerate(robot.joint_names) if any(k in n for k in ("hip", "knee", "ankle"))]
    q[7 + np.array(legs)] += rng.normal(scale=0.08, size=len(legs))
    q[:3] += [0.3, -0.1, 0.0]
    reference = reference_of(robot, q)
    drift = (rpy_to_matrix(0.0, 0.0, 0.4), np.array([1.0, 2.0, 0.01]))  # planning frame → world
    rotation, translation = drift
    guess = (rotation @ q[:3] + translation)[:2] + [0.05, -0.04]  # as the robot's pelvis: a few cm off
    pose = PlannedPose(robot).qpos(reference, drift, pelvis_xy_guess_m=guess)

    ghost_q = mujoco_to_pinocchio_q(pose)
    model, data = robot.pin_model, robot.pin_model.createData()
    pin.framesForwardKinematics(model, data, ghost_q)
    for side, foot in robot.description.feet.items():
        sole = data.oMf[model.getFrameId(foot.sole_site)]
        target = reference.feet[side]
        np.testing.assert_allclose(sole.translation, rotation @ target.position_m + translation, atol=1e-3)
        np.testing.assert_allclose(sole.rotation, rotation @ quat_to_matrix(target.quat_wxyz), atol=1e-3)
    com = pin.centerOfMass(model, data, ghost_q)
    np.testing.assert_allclose(com[:2], (rotation @ [*reference.com_position_m, 0.0] + translation)[:2], atol=1e-3)
    assert pose[2] == pytest.approx(reference.pelvis_height_m + translation[2])
    np.testing.assert_allclose(np.abs(pose[3:7] @ quat_multiply(matrix_to_quat(rotation), reference.pelvis_quat_wxyz)),
                               1.0, atol=1e-9)
    upper = [i for i in range(robot.n_joints) if i not in legs]
    np.testing.assert_allclose(pose[7:][upper], reference.joint_posture_rad[upper])


@pytest.mark.skipif(os.environ.get("MUJOCO_GL") != "egl", reason="offscreen rendering needs MUJOCO_GL=egl")
def test_the_ghost_is_drawn_translucent_over_the_robot(tmp_path, robot):
    from biped_stack.video import GHOST_RGBA, WalkVideo
    model = mujoco.MjModel.from_xml_path(str(robot.description.mjcf_path))
    data = mujoco.MjData(model)
    data.qpos[:] = robot.standing_qpos()
    mujoco.mj_forward(model, data)
    video = WalkVideo(model, data, tmp_path / "v.mp4")
    if video.renderer is None:
        pytest.skip("no offscreen rendering here")
    video.maybe_capture(0.0)
    alone = video.renderer.scene.ngeom
    robot_geoms = sum(video.renderer.scene.geoms[i].category == mujoco.mjtCatBit.mjCAT_DYNAMIC for i in range(alone))
    shifted = pinocchio_to_mujoco_q(mujoco_to_pinocchio_q(robot.standing_qpos()))
    shifted[0] += 0.3
    video.maybe_capture(1.0, lambda: shifted)
    scene = video.renderer.scene
    added = [scene.geoms[i] for i in range(alone, scene.ngeom)]
    assert len(added) == robot_geoms > 0  # every visible robot geom, once more
    assert all(np.allclose(g.rgba, GHOST_RGBA) for g in added)
    assert not np.array_equal(video.frames[0], video.frames[1])  # the ghost shows


@pytest.mark.skipif(os.environ.get("MUJOCO_GL") != "egl", reason="offscreen rendering needs MUJOCO_GL=egl")
def test_a_walk_with_video_draws_the_planned_pose_in_its_frames(tmp_path, monkeypatch):
    from biped_stack.scenario import Scenario, Segment
    from biped_stack.video import WalkVideo
    from biped_stack.walking import run_walk
    ghosts = []
    original = WalkVideo._add_ghost
    monkeypatch.setattr(WalkVideo, "_add_ghost", lambda self, qpos: (ghosts.append(qpos.copy()), original(self, qpos)))
    result = run_walk("biped", "neutral", Scenario("still", (Segment("stand", 0.5, (0.0, 0.0, 0.0)),)),
                      progress=lambda *a: None, video_path=tmp_path / "walk.mp4")
    assert (tmp_path / "walk.mp4").stat().st_size > 0 and not result.metrics["fell"]
    assert len(ghosts) >= 10  # 30 fps over 0.5 s, less the frames before the first reference
    standing = np.array(ghosts)
    pelvis = result.trace["base_position_m"][-1]
    assert np.abs(standing[-1, :2] - pelvis[:2]).max() < 0.05  # the plan stands where the robot stands
