"""Base attitude EKF: orientation and gyro bias from the IMU (multiplicative / error-state EKF).

State: the IMU (= base) orientation R (world ← base, as a unit quaternion) and the gyro bias b
[rad/s]. Error state x̃ = (δθ, δb) with R = R̂ exp([δθ]×) (δθ in base axes) — Trawny &
Roumeliotis 2005, "Indirect Kalman filter for 3D attitude estimation"; Solà 2017, "Quaternion
kinematics for the error-state Kalman filter", §7.

- Predict with the gyro ω_m: R̂ ← R̂ exp([ω_m − b̂]× dt); F = [[exp(−[ω̂]× dt), −I dt], [0, I]];
  Q from the gyro white noise and the bias random walk.
- Accelerometer update (gravity direction): at low body acceleration the specific force is
  f = Rᵀ (0, 0, g); h(R) = R̂ᵀ g e_z, H = [[h]×, 0]. The measurement noise is inflated with the
  deviation of |f| from g (walking accelerates the base), so a hard heel strike is trusted less.
Roll and pitch are observable from gravity; the heading is the gyro's (the gravity update is
kept off it, see :meth:`AttitudeEkf.update_accel`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pinocchio as pin

from biped_common.config import bounded
from biped_common.rotations import matrix_to_quat, quat_to_matrix, skew
from biped_common.small_math import norm3, solve_spd

GRAVITY_M_S2 = 9.81
_I3, _I6 = np.eye(3), np.eye(6)


@dataclass(frozen=True)
class AttitudeNoise:
    """Noise model of the attitude filter (SI units; densities per √Hz)."""

    gyro_noise_density: float = bounded(1e-6, 1.0, "rad/s/√Hz")
    gyro_bias_walk: float = bounded(0.0, 1.0, "rad/s²/√Hz")
    accel_noise_std_m_s2: float = bounded(1e-4, 10.0, "m/s²", "per-sample accelerometer noise")
    accel_dynamic_gain: float = bounded(0.0, 1e3, "", "std inflation per m/s² of |f| − g")

    @classmethod
    def default(cls) -> "AttitudeNoise":
        """A calibrated consumer/industrial MEMS IMU (BMI088 class; see config/sim.yaml)."""
        return cls(gyro_noise_density=2.4e-4, gyro_bias_walk=1e-6, accel_noise_std_m_s2=4.0,
                   accel_dynamic_gain=2.0)


class AttitudeEkf:
    """The filter above; :meth:`predict` per gyro sample, then the updates that apply."""

    def __init__(self, noise: AttitudeNoise | None = None, quat_wxyz=(1.0, 0.0, 0.0, 0.0),
                 attitude_std_rad: float = 0.5, bias_std_rad_s: float = 0.01):
        self.noise = noise or AttitudeNoise.default()
        self.rotation = quat_to_matrix(np.asarray(quat_wxyz, dtype=float))
        self.gyro_bias = np.zeros(3)
        self.covariance = np.diag([attitude_std_rad**2] * 3 + [bias_std_rad_s**2] * 3)
        self._f = np.eye(6)

    @property
    def quat_wxyz(self) -> np.ndarray:
        return matrix_to_quat(self.rotation)

    def predict(self, gyro_rad_s: np.ndarray, dt_s: float) -> None:
        """Propagate over ``dt_s`` with the measured angular velocity (base axes)."""
        omega = np.asarray(gyro_rad_s, dtype=float) - self.gyro_bias
        step = pin.exp3(omega * dt_s)
        self.rotation = self.rotation @ step
        f = self._f
        f[:3, :3] = step.T
        f[:3, 3:] = -dt_s * _I3
        n = self.noise
        self.covariance = f @ self.covariance @ f.T
        diagonal = self.covariance.reshape(-1)[::7]  # a view
        diagonal[:3] += n.gyro_noise_density**2 * dt_s
        diagonal[3:] += n.gyro_bias_walk**2 * dt_s
        self._symmetrize()

    def accel_jacobian(self, acceleration_world_m_s2=None) -> tuple[np.ndarray, np.ndarray]:
        """Predicted specific force h = R̂ᵀ (g e_z + a) (3,) for a known base acceleration a
        (world; zero when not given) and its error-state Jacobian H (3, 6)."""
        expected = np.array([0.0, 0.0, GRAVITY_M_S2])
        if acceleration_world_m_s2 is not None:
            expected = expected + acceleration_world_m_s2
        h = self.rotation.T @ expected
        jac = np.zeros((3, 6))
        jac[:, :3] = skew(h)
        return h, jac

    def update_accel(self, specific_force_m_s2: np.ndarray, acceleration_world_m_s2=None) -> None:
        """Gravity-direction update from the accelerometer (base axes, +g up at rest), with the
        base's own acceleration (world) removed when it is known (from leg odometry)."""
        f = np.asarray(specific_force_m_s2, dtype=float)
        h, jac = self.accel_jacobian(acceleration_world_m_s2)
        std = self.noise.accel_noise_std_m_s2 + self.noise.accel_dynamic_gain * abs(norm3(f) - norm3(h))
        # Gravity says nothing about heading: keep this update's correction out of the rotation
        # about the vertical (and of the gyro bias about it), which the cross-covariances would
        # otherwise drive with every walking acceleration the model calls tilt.
        vertical = self.rotation[2, :]  # world z in base axes
        along_vertical = vertical[:, None] * vertical
        projector = _I6.copy()
        projector[:3, :3] -= along_vertical
        projector[3:, 3:] -= along_vertical
        self._update(f - h, jac, std**2, projector)

    def _update(self, residual: np.ndarray, jac: np.ndarray, noise_variance: float, projector=None) -> None:
        """EKF update with measurement noise ``noise_variance`` · I on every residual entry."""
        p = self.covariance
        s = jac @ p @ jac.T
        s.reshape(-1)[::s.shape[0] + 1] += noise_variance
        gain = solve_spd(s, jac @ p).T
        if projector is not None:  # a constrained (projected) gain; Joseph form keeps P valid
            gain = projector @ gain
        dx = gain @ residual
        self.rotation = self.rotation @ pin.exp3(dx[:3])
        self.gyro_bias = self.gyro_bias + dx[3:]
        # Joseph form: stays symmetric positive definite under round-off.
        a = _I6 - gain @ jac
        self.covariance = a @ p @ a.T + noise_variance * (gain @ gain.T)
        self._symmetrize()

    def _symmetrize(self) -> None:
        self.covariance = 0.5 * (self.covariance + self.covariance.T)
