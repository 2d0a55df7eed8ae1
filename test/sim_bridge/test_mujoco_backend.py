"""MuJoCo backend: sensors, noise, pushes and contact wrenches."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_common.rotations import quat_conjugate, quat_multiply, quat_to_matrix, so3_log
from biped_common.state import Push
from sim_bridge.commands import JointSetpoints
from sim_bridge.mujoco_backend import MujocoBackend, SensorNoise


def hold(backend):
    robot = backend.robot
    zeros = np.zeros(robot.n_joints)
    backend.send(JointSetpoints(robot.standing_posture_rad.copy(), zeros, zeros, robot.kp.copy(), robot.kd.copy()))


def test_feet_carry_the_weight_and_imu_reads_gravity(robot):
    backend = MujocoBackend(robot)
    hold(backend)
    backend.advance(0.5)
    frame = backend.measure()
    total = sum(w.force_n[2] for w in frame.foot_wrenches.values())
    assert total == pytest.approx(robot.mass_kg * 9.81, rel=0.02)
    assert frame.imu.linear_acceleration_m_s2[2] == pytest.approx(9.81, abs=0.3)
    np.testing.assert_allclose(frame.imu.orientation_wxyz, backend.ground_truth().orientation_wxyz, atol=1e-9)
    assert backend.body_contacts_other_than_feet() == []
    assert np.all(np.abs(frame.effort_nm) <= robot.torque_limit_nm + 1e-9)


def test_noise_and_bias_have_the_configured_statistics():
    robot = load_robot("biped")
    noise = SensorNoise(gyro_std_rad_s=0.01, gyro_bias_rad_s=(0.02, 0.0, -0.01), accel_std_m_s2=0.05)
    backend = MujocoBackend(robot, noise, seed=5)
    ideal = MujocoBackend(robot)
    gyro = np.array([backend.measure().imu.angular_velocity_rad_s for _ in range(2000)])
    true = ideal.measure().imu.angular_velocity_rad_s
    np.testing.assert_allclose(gyro.mean(axis=0) - true, [0.02, 0.0, -0.01], atol=1.5e-3)
    np.testing.assert_allclose(gyro.std(axis=0), 0.01, rtol=0.1)
    tilted = MujocoBackend(robot, SensorNoise(orientation_bias_rad=(0.02, 0.0, 0.0)))
    error = quat_multiply(quat_conjugate(ideal.measure().imu.orientation_wxyz), tilted.measure().imu.orientation_wxyz)
    np.testing.assert_allclose(so3_log(quat_to_matrix(error)), [0.02, 0.0, 0.0], atol=1e-9)
    with pytest.raises(ValueError, match="gyro_std_rad_s"):
        SensorNoise(gyro_std_rad_s=-1.0)


def test_push_moves_the_robot_for_its_duration_only():
    robot = load_robot("biped")
    backend = MujocoBackend(robot)
    hold(backend)
    backend.apply_push(Push("pelvis", np.array([0.0, 0.0, 200.0]), np.zeros(3), 0.1, 0.05))
    backend.advance(0.1)
    z_before = backend.ground_truth().position_m[2]
    backend.advance(0.05)
    assert backend.ground_truth().linear_velocity_world_m_s[2] > 0.1  # lifted by 200 N > weight
    backend.advance(1.0)
    assert backend.ground_truth().position_m[2] == pytest.approx(z_before, abs=0.01)
    with pytest.raises(KeyError, match="nose"):
        backend.apply_push(Push("nose", np.zeros(3), np.zeros(3), 0.0, 1.0))


def contact_loop_wrenches(backend):
    """The foot wrenches summed contact by contact with mj_contactForce (the definition that
    ``foot_wrenches`` reads from ``cfrc_ext`` at a third of the cost)."""
    import mujoco
    model, data = backend.model, backend.data
    wrenches = {}
    for side, foot in backend._foot_bodies.items():
        site = backend._sole_sites[side]
        force_sum, torque_sum, contact_force = np.zeros(3), np.zeros(3), np.zeros(6)
        for i in range(data.ncon):
            body1 = model.geom_bodyid[data.contact.geom1[i]]
            body2 = model.geom_bodyid[data.contact.geom2[i]]
            if foot not in (body1, body2):
                continue
            mujoco.mj_contactForce(model, data, i, contact_force)
            force = data.contact.frame[i].reshape(3, 3).T @ contact_force[:3]  # geom1 on geom2, world
            force = -force if body1 == foot else force
            force_sum += force
            torque_sum += np.cross(data.contact.pos[i] - data.site_xpos[site], force)
        rotation = data.site_xmat[site].reshape(3, 3)
        wrenches[side] = (rotation.T @ force_sum, rotation.T @ torque_sum)
    return wrenches


@pytest.mark.parametrize("robot_name", ["biped", "humanoid"])
def test_foot_wrenches_equal_the_sum_over_contacts_even_with_a_push_on_a_foot(robot_name):
    robot = load_robot(robot_name)
    backend = MujocoBackend(robot)
    hold(backend)
    foot_body = robot.description.feet["left"].body
    backend.apply_push(Push(foot_body, np.array([0.0, 30.0, 60.0]), np.array([0.0, 2.0, 0.0]), 0.2, 0.3))
    backend.apply_push(Push("pelvis", np.array([40.0, 0.0, 0.0]), np.zeros(3), 0.3, 0.3))
    loaded_feet = set()
    for _ in range(120):
        backend.advance(0.005)
        frame = backend.measure()
        reference = contact_loop_wrenches(backend)
        for side, wrench in frame.foot_wrenches.items():
            np.testing.assert_allclose(wrench.force_n, reference[side][0], atol=1e-9, rtol=0)
            np.testing.assert_allclose(wrench.torque_nm, reference[side][1], atol=1e-9, rtol=0)
            if wrench.force_n[2] > 1.0:
                loaded_feet.add(side)
    assert loaded_feet == {"left", "right"}
