"""The leg-odometry estimator on a standing robot: it matches the ground truth, and bad frames
(non-finite IMU or joints, out of order) are reported and survived, never raised."""

import dataclasses

import numpy as np

from biped_common.state import ImuReading
from biped_stack.lockstep import LockstepSimulation
from biped_common.robot_model import FootGeometry
from state_estimator_node.estimator import StateEstimator, centre_of_pressure

FOOT = FootGeometry(heel_x_m=-0.06, toe_x_m=0.12, half_width_m=0.045)


def test_centre_of_pressure_of_a_point_force_is_that_point_clipped_to_the_sole():
    force = np.array([3.0, -2.0, 150.0])
    for point in ([0.05, -0.02, 0.0], [-0.06, 0.045, 0.0], [0.0, 0.0, 0.0]):
        np.testing.assert_allclose(centre_of_pressure(force, np.cross(point, force), FOOT), point, atol=1e-12)
    outside = centre_of_pressure(force, np.cross([0.3, -0.2, 0.0], force), FOOT)
    np.testing.assert_allclose(outside, [FOOT.toe_x_m, -FOOT.half_width_m, 0.0])
    np.testing.assert_array_equal(centre_of_pressure(np.zeros(3), np.ones(3), FOOT), np.zeros(3))


def test_standing_estimate_matches_the_ground_truth_and_survives_bad_frames():
    sim = LockstepSimulation("humanoid")
    estimator = StateEstimator(sim.robot)
    warnings = []
    for k in range(1000):
        frame = sim.bridge.measure()
        if k == 400:  # a NaN IMU reading
            nan = ImuReading(frame.imu.orientation_wxyz, np.full(3, np.nan), frame.imu.linear_acceleration_m_s2)
            frame = dataclasses.replace(frame, imu=nan)
        if k == 500:  # NaN joint positions
            frame = dataclasses.replace(frame, position_rad=np.full(len(frame.joint_names), np.nan))
        estimate = estimator.update(frame)
        warnings += estimator.status.warnings
        if k == 600:  # an older frame arrives late
            estimator.update(dataclasses.replace(frame, stamp_s=frame.stamp_s - 0.01))
            warnings += estimator.status.warnings
        sim.step()
    truth = sim.backend.ground_truth()
    np.testing.assert_allclose(estimate.position_m, truth.position_m, atol=0.01)
    np.testing.assert_allclose(estimate.linear_velocity_world_m_s, truth.linear_velocity_world_m_s, atol=0.01)
    assert any("non-finite IMU" in w for w in warnings)
    assert any("non-finite joint state" in w for w in warnings)
    assert any("older than the last one" in w for w in warnings)


def test_two_feet_update_equals_the_stacked_kalman_update():
    """The translation update fuses k feet as their mean observation with noise R/k; that is the
    stacked update with H = (I; I) (12 rows), to round-off."""
    from biped_common.robot_model import load_robot
    estimator = StateEstimator(load_robot("biped"))
    rng = np.random.default_rng(7)
    a = rng.normal(size=(6, 6))
    estimator.covariance = a @ a.T * 1e-3 + np.eye(6) * 1e-4
    estimator.position, estimator.velocity = rng.normal(size=3), rng.normal(size=3)
    x0, p0 = np.r_[estimator.position, estimator.velocity], estimator.covariance.copy()
    feet = [rng.normal(size=6) * 0.01 + x0 for _ in range(2)]
    estimator._update_translation((feet[0] + feet[1]) / 2, 2)
    r = np.diag(np.tile(estimator._observation_variance, 2))
    h = np.vstack([np.eye(6), np.eye(6)])
    gain = p0 @ h.T @ np.linalg.inv(h @ p0 @ h.T + r)
    expected_x = x0 + gain @ (np.concatenate(feet) - h @ x0)
    expected_p = (np.eye(6) - gain @ h) @ p0 @ (np.eye(6) - gain @ h).T + gain @ r @ gain.T
    np.testing.assert_allclose(np.r_[estimator.position, estimator.velocity], expected_x, atol=1e-12)
    np.testing.assert_allclose(estimator.covariance, expected_p, atol=1e-12)
