"""The /tf frame tree (issue #19 bar 2, in-process): one parent per frame, connected to the world,
and every frame's pose composed along the tree equals Pinocchio's forward kinematics (1e-9) at
random configurations; the sole frames are the controllers' soles."""

import numpy as np
import pinocchio as pin
import pytest

from biped_common.robot_model import available_robots, load_robot
from biped_common.rotations import quat_normalize, quat_to_matrix, quat_xyzw_to_wxyz
from biped_common.tf_frames import COM_FRAME, ODOM_FRAME, WORLD_FRAME, FrameTree


def compose(transforms, frame):
    """The world pose (4×4) of ``frame`` along ``transforms`` (child → its transform)."""
    pose = np.eye(4)
    while frame != WORLD_FRAME:
        t = transforms[frame]
        local = np.eye(4)
        local[:3, :3], local[:3, 3] = quat_to_matrix(t.quat_wxyz), t.translation_m
        pose = local @ pose
        frame = t.parent
    return pose


@pytest.mark.parametrize("name", available_robots())
def test_the_tree_is_forward_kinematics(name):
    robot = load_robot(name)
    tree = FrameTree(robot)
    rng = np.random.default_rng(5)
    model, data = robot.pin_model, robot.pin_model.createData()
    static = tree.static_transforms()
    for _ in range(20):
        joints = rng.uniform(robot.position_lower_rad, robot.position_upper_rad)
        position, quat = rng.uniform(-1, 1, 3), quat_normalize(rng.normal(size=4))
        q = robot.pinocchio_configuration(position, quat, joints)
        pin.framesForwardKinematics(model, data, q)
        com = pin.centerOfMass(model, data, q)
        edges = static + tree.joint_transforms(joints) + [tree.base_transform(position, quat), tree.com_transform(com)]
        children = [t.child for t in edges]
        assert len(children) == len(set(children)), "a frame with two parents"
        by_child = {t.child: t for t in edges}
        assert set(tree.frame_names) | {ODOM_FRAME, COM_FRAME} == set(children)
        for frame in tree.frame_names:
            expected = data.oMf[model.getFrameId(frame)].homogeneous
            np.testing.assert_allclose(compose(by_child, frame), expected, atol=1e-9, err_msg=frame)
        np.testing.assert_allclose(compose(by_child, COM_FRAME)[:3, 3], com, atol=1e-12)
        soles = robot.sole_poses(q)
        for side, foot in robot.description.feet.items():
            pose = compose(by_child, foot.sole_site)
            assert pose[:3, 3] == pytest.approx(soles[side][:3], abs=1e-9)


def test_sites_and_welded_bodies_are_static_and_joints_move():
    tree = FrameTree(load_robot("biped"))
    static = {t.child: t.parent for t in tree.static_transforms()}
    assert static["l_sole"] == "l_foot" and static["imu"] == "pelvis" and static["torso"] == "pelvis"
    assert static[ODOM_FRAME] == WORLD_FRAME
    moving = {t.child: t.parent for t in tree.joint_transforms(np.zeros(12))}
    assert moving["l_hip_yaw_link"] == "pelvis" and moving["l_foot"] == "l_ankle_link"
    assert not set(static) & set(moving)
