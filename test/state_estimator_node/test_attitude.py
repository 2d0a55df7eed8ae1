"""Attitude EKF properties: covariance stays symmetric positive definite, the accelerometer
Jacobian matches finite differences, a static robot converges from a 20° attitude error in 2 s."""

import numpy as np
import pinocchio as pin

from biped_common.rotations import matrix_to_quat, rpy_to_matrix
from biped_stack.lockstep import LockstepSimulation
from state_estimator_node.attitude import AttitudeEkf


def test_covariance_stays_symmetric_positive_definite():
    rng = np.random.default_rng(0)
    ekf = AttitudeEkf()
    for k in range(3000):
        ekf.predict(rng.normal(scale=1.0, size=3), 0.002)
        if k % 2 == 0:
            ekf.update_accel(rng.normal(scale=2.0, size=3) + [0, 0, 9.81])
        p = ekf.covariance
        np.testing.assert_allclose(p, p.T, atol=0.0)
        assert np.linalg.eigvalsh(p).min() > 0.0


def test_accelerometer_jacobian_matches_finite_differences():
    rng = np.random.default_rng(1)
    for _ in range(20):
        ekf = AttitudeEkf(quat_wxyz=matrix_to_quat(pin.exp3(rng.normal(size=3))))
        acceleration = rng.normal(size=3)
        h0, jac = ekf.accel_jacobian(acceleration)
        base = ekf.rotation.copy()
        numeric = np.zeros((3, 3))
        for i in range(3):
            d = np.zeros(3)
            d[i] = 1e-6
            ekf.rotation = base @ pin.exp3(d)
            plus = ekf.accel_jacobian(acceleration)[0]
            ekf.rotation = base @ pin.exp3(-d)
            minus = ekf.accel_jacobian(acceleration)[0]
            numeric[:, i] = (plus - minus) / 2e-6
        ekf.rotation = base
        np.testing.assert_allclose(jac[:, :3], numeric, atol=1e-6)
        np.testing.assert_allclose(jac[:, 3:], 0.0)


def test_static_robot_converges_from_a_20_degree_error_within_2_s():
    sim = LockstepSimulation("biped")
    ekf = AttitudeEkf(quat_wxyz=matrix_to_quat(rpy_to_matrix(np.radians(14.0), np.radians(-14.0), 0.0)))  # ≈ 20°
    for _ in range(int(2.0 / 0.002)):
        frame = sim.step().frame
        ekf.predict(frame.imu.angular_velocity_rad_s, 0.002)
        ekf.update_accel(frame.imu.linear_acceleration_m_s2)
    truth = sim.backend.ground_truth()
    from biped_common.rotations import quat_to_matrix
    error = pin.log3(quat_to_matrix(truth.orientation_wxyz).T @ ekf.rotation)
    assert np.degrees(np.linalg.norm(error[:2])) < 1.0  # roll and pitch (yaw is unobservable here)
