"""Issue #19 bar 3: the generated URDF and the MJCF are one robot.

Pinocchio loads ``robots/<name>.urdf`` (free-flyer root) and ``robots/<name>.xml`` for every
shipped robot; they must agree to 1e-9 in joint names and order, every body's mass, CoM and
rotational inertia, joint placements, position and torque limits, and — at 20 seeded random
configurations — the placement and Jacobian of every frame both name (bodies, joints, the sole,
heel, toe, hand and imu frames) and the mass matrix without rotor armature (URDF cannot carry
it; the MJCF's armature is checked to be what the URDF lacks, nothing else).
"""

import numpy as np
import pinocchio as pin
import pytest

from biped_common.resources import robots_dir
from biped_common.robot_generator import URDF_VELOCITY_LIMIT_RAD_S, generate_all_urdf
from biped_common.robot_model import available_robots

TOL = 1e-9
N_CONFIGURATIONS = 20


def load_both(name):
    from_urdf = pin.buildModelFromUrdf(str(robots_dir() / f"{name}.urdf"), pin.JointModelFreeFlyer())
    from_mjcf = pin.buildModelFromMJCF(str(robots_dir() / f"{name}.xml"))
    return from_urdf, from_mjcf


def test_the_committed_urdf_is_what_the_generator_writes():
    for name, text in generate_all_urdf().items():
        assert (robots_dir() / f"{name}.urdf").read_text() == text, (
            f"{name}.urdf is stale: run python -m biped_common.robot_generator")


@pytest.mark.parametrize("name", available_robots())
def test_urdf_and_mjcf_have_the_same_joints_inertias_and_limits(name):
    u, m = load_both(name)
    assert (u.nq, u.nv, u.njoints) == (m.nq, m.nv, m.njoints)
    assert list(u.names)[2:] == list(m.names)[2:]  # after the universe and the free flyer
    for i in range(1, u.njoints):
        assert u.joints[i].shortname() == m.joints[i].shortname(), u.names[i]
        assert u.parents[i] == m.parents[i]
        np.testing.assert_allclose(u.jointPlacements[i].homogeneous, m.jointPlacements[i].homogeneous, atol=TOL)
        assert u.inertias[i].mass == pytest.approx(m.inertias[i].mass, abs=TOL), u.names[i]
        np.testing.assert_allclose(u.inertias[i].lever, m.inertias[i].lever, atol=TOL)
        np.testing.assert_allclose(u.inertias[i].inertia, m.inertias[i].inertia, atol=TOL)
    joints = slice(7, None)  # q past the free flyer's 7
    np.testing.assert_allclose(u.lowerPositionLimit[joints], m.lowerPositionLimit[joints], atol=TOL)
    np.testing.assert_allclose(u.upperPositionLimit[joints], m.upperPositionLimit[joints], atol=TOL)
    np.testing.assert_allclose(u.effortLimit[6:], m.effortLimit[6:], atol=TOL)
    assert np.all(u.velocityLimit[6:] == URDF_VELOCITY_LIMIT_RAD_S)
    assert np.all(u.armature == 0.0) and np.all(m.armature[6:] > 0.0)
    assert pin.computeTotalMass(u) == pytest.approx(pin.computeTotalMass(m), abs=TOL)


@pytest.mark.parametrize("name", available_robots())
def test_urdf_and_mjcf_frames_agree_at_random_configurations(name):
    u, m = load_both(name)
    m.armature[:] = 0.0  # what URDF cannot carry (checked above)
    shared = [f.name for f in m.frames if f.name != "universe" and u.existFrame(f.name)]
    expected = {"l_sole", "r_sole", "l_heel", "l_toe", "imu", "l_foot", "r_foot"}
    assert expected <= set(shared), expected - set(shared)
    assert len(shared) >= len([f for f in m.frames if f.type == pin.FrameType.BODY])
    du, dm = u.createData(), m.createData()
    for _ in range(N_CONFIGURATIONS):  # Pinocchio's generator, seeded by the fixture below
        q = pin.randomConfiguration(m, np.r_[-np.ones(3), -np.ones(4), m.lowerPositionLimit[7:]],
                                    np.r_[np.ones(3), np.ones(4), m.upperPositionLimit[7:]])
        pin.computeJointJacobians(u, du, q)
        pin.computeJointJacobians(m, dm, q)
        pin.framesForwardKinematics(u, du, q)
        pin.framesForwardKinematics(m, dm, q)
        for frame in shared:
            iu, im = u.getFrameId(frame), m.getFrameId(frame)
            np.testing.assert_allclose(du.oMf[iu].homogeneous, dm.oMf[im].homogeneous, atol=TOL, err_msg=frame)
            np.testing.assert_allclose(pin.getFrameJacobian(u, du, iu, pin.LOCAL_WORLD_ALIGNED),
                                       pin.getFrameJacobian(m, dm, im, pin.LOCAL_WORLD_ALIGNED), atol=TOL,
                                       err_msg=frame)
        np.testing.assert_allclose(pin.crba(u, du, q), pin.crba(m, dm, q), atol=TOL)


@pytest.fixture(autouse=True)
def _seeded():
    pin.seed(19)
    np.random.seed(19)


def test_the_robot_description_message_carries_the_urdf_and_refuses_other_text():
    from biped_common import conversions as conv
    from biped_common.resources import ResourceNotFoundError
    from biped_common.robot_model import RobotDescription
    description = RobotDescription.load("biped")
    msg = conv.robot_description_message(description.urdf_text())
    assert msg.data == (robots_dir() / "biped.urdf").read_text()
    with pytest.raises(ValueError, match="no <robot>"):
        conv.robot_description_message("<mujoco/>")
    import dataclasses
    missing = dataclasses.replace(description, mjcf_path=description.mjcf_path.with_name("absent.xml"))
    with pytest.raises(ResourceNotFoundError, match="absent.urdf"):
        missing.urdf_text()
