"""MuJoCo and Pinocchio load the same MJCF and must agree on the robot's dynamics to 1e-6.

Compared at 20 seeded random configurations (joints uniform in their ranges, random base pose and
velocity) for every shipped robot: total mass, CoM, foot/hand frame poses, frame Jacobians, mass
matrix (armature included), gravity torques and bias torques C(q, v)v + g(q).
"""

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from biped_common.robot_model import (available_robots, load_robot, mujoco_to_pinocchio_q,
                                      mujoco_to_pinocchio_v, pinocchio_to_mujoco_q, pinocchio_to_mujoco_v)
from biped_common.rotations import quat_normalize, quat_to_matrix, skew

TOL = 1e-6
N_CONFIGURATIONS = 20


def random_state(robot, rng):
    qpos = np.concatenate([rng.uniform(-1, 1, 3), quat_normalize(rng.normal(size=4)),
                           rng.uniform(robot.position_lower_rad, robot.position_upper_rad)])
    qvel = rng.normal(size=robot.mj_model.nv)
    return qpos, qvel


def velocity_map(qpos, nv):
    """T with v_pin = T v_mj (base linear velocity from world to base axes)."""
    t = np.eye(nv)
    t[:3, :3] = quat_to_matrix(qpos[3:7]).T
    return t


def frame_names(robot):
    d = robot.description
    names = list(d.hands.values())
    for foot in d.feet.values():
        names += [foot.sole_site, foot.heel_site, foot.toe_site]
    return names


@pytest.mark.parametrize("robot_name", available_robots())
def test_mujoco_and_pinocchio_agree(robot_name):
    robot = load_robot(robot_name)
    mj, pm = robot.mj_model, robot.pin_model
    md, pd = mujoco.MjData(mj), pm.createData()
    rng = np.random.default_rng(7)
    assert robot.mass_kg == pytest.approx(float(np.sum(mj.body_mass)), abs=TOL)
    for _ in range(N_CONFIGURATIONS):
        qpos, qvel = random_state(robot, rng)
        md.qpos[:], md.qvel[:] = qpos, qvel
        mujoco.mj_forward(mj, md)
        q, v = mujoco_to_pinocchio_q(qpos), mujoco_to_pinocchio_v(qpos, qvel)
        np.testing.assert_allclose(pinocchio_to_mujoco_q(q), qpos, atol=1e-15)
        np.testing.assert_allclose(pinocchio_to_mujoco_v(q, v), qvel, atol=1e-12)
        t = velocity_map(qpos, mj.nv)

        com = pin.centerOfMass(pm, pd, q)
        np.testing.assert_allclose(com, md.subtree_com[0], atol=TOL)

        pin.computeJointJacobians(pm, pd, q)
        pin.framesForwardKinematics(pm, pd, q)
        for name in frame_names(robot):
            site = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_SITE, name)
            frame = pm.getFrameId(name)
            np.testing.assert_allclose(pd.oMf[frame].translation, md.site_xpos[site], atol=TOL)
            np.testing.assert_allclose(pd.oMf[frame].rotation, md.site_xmat[site].reshape(3, 3), atol=TOL)
            jacp, jacr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
            mujoco.mj_jacSite(mj, md, jacp, jacr, site)
            j_pin = pin.getFrameJacobian(pm, pd, frame, pin.LOCAL_WORLD_ALIGNED) @ t
            np.testing.assert_allclose(j_pin, np.vstack([jacp, jacr]), atol=TOL)

        m_mj = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, md, m_mj)
        m_pin = pin.crba(pm, pd, q)
        m_pin = np.triu(m_pin) + np.triu(m_pin, 1).T
        np.testing.assert_allclose(t.T @ m_pin @ t, m_mj, atol=TOL)

        # Bias: d/dt of v_pin's base linear part adds -ω × v_lin (see robot_model's docstring).
        velocity_derivative = np.zeros(mj.nv)
        velocity_derivative[:3] = -skew(v[3:6]) @ v[:3]
        bias_pin = pin.rnea(pm, pd, q, v, velocity_derivative)
        np.testing.assert_allclose(t.T @ bias_pin, md.qfrc_bias, atol=TOL)

        md.qvel[:] = 0.0
        mujoco.mj_forward(mj, md)
        gravity = pin.computeGeneralizedGravity(pm, pd, q)
        np.testing.assert_allclose(t.T @ gravity, md.qfrc_bias, atol=TOL)


@pytest.mark.parametrize("robot_name", available_robots())
def test_joint_order_and_limits_match(robot_name):
    robot = load_robot(robot_name)
    pm = robot.pin_model
    np.testing.assert_allclose(pm.lowerPositionLimit[7:], robot.position_lower_rad)
    np.testing.assert_allclose(pm.upperPositionLimit[7:], robot.position_upper_rad)
    assert np.all(robot.torque_limit_nm > 0)
