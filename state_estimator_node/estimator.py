"""Base state estimator: IMU attitude EKF + leg-kinematic odometry with stance-foot anchoring.

Per sensor frame (SI units, world frame z up, base = pelvis = IMU axes):

1. Attitude (:class:`AttitudeEkf`): gyro prediction and accelerometer gravity update (which
   leaves the heading alone); the heading is the gyro's, drifting only with the residual gyro bias
   (≈ 0.06 °/s for a calibrated MEMS IMU). The base's own acceleration is removed from the
   accelerometer before it is read as gravity: the derivative of the stance legs' kinematic
   base velocity, low-passed (a bouncing gait accelerates the pelvis by metres per second
   squared, which would otherwise read as tilt).
2. Translation, a linear Kalman filter on (p, v) in the world: predicted with the accelerometer
   (a = R f − g e_z); updated with each accepted stance foot's *zero-velocity* observation
   v_base = −R (ω × r + J_q q̇) (r, J_q the contact point's position and joint Jacobian relative
   to the base, Pinocchio) and its *anchor*: p_base = p_anchor − R r with the anchor set at
   touch-down. This is the leg odometry of Bloesch et al. 2012 ("State estimation for legged
   robots: consistent fusion of leg kinematics and IMU") in the simpler decoupled form.
   The contact point is the foot's centre of pressure (from the sole wrench, clipped to the
   sole), not the sole origin: a foot that rocks on an edge, or rolls over its heel or toe,
   keeps that point still while its origin moves. The anchor is a point of the foot; when the
   centre of pressure moves away from it (the foot rolls), the foot is re-anchored there.
3. Stance comes from the measured contact wrenches (normal force over a threshold, with
   hysteresis), not the planner's schedule: a foot that lands early or late, or a robot that is
   pushed, is judged by what the sole feels. A stance foot whose implied base velocity disagrees
   with the prediction by more than ``slip_velocity_m_s`` is rejected for that frame and
   re-anchored (slip); if every foot is rejected, the IMU alone propagates.

Bad input never raises: a frame whose stamp does not advance is refused; a non-finite IMU skips
the IMU steps, non-finite joints skip the kinematics; each is reported in :attr:`warnings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from biped_common.config import bounded
from biped_common.rates import CONTROL_RATE_HZ
from biped_common.robot_model import FootGeometry, RobotModel
from biped_common.rotations import quat_normalize, quats_yaw, rpy_to_matrix
from biped_common.small_math import all_finite, cross3, norm3, solve_spd
from biped_common.state import BaseState, SensorFrame
from state_estimator_node.attitude import GRAVITY_M_S2, AttitudeEkf, AttitudeNoise

SIDES = ("left", "right")
INITIAL_ATTITUDE_GIVEN_STD_RAD = 0.05  # a given starting orientation is trusted this much (1σ)


@dataclass(frozen=True)
class EstimatorConfig:
    """Thresholds and noise of the leg odometry (SI units)."""

    contact_on_fraction: float = bounded(0.01, 1.0, "", "normal force / weight to enter stance")
    contact_off_fraction: float = bounded(0.0, 1.0, "", "normal force / weight to leave stance")
    slip_velocity_m_s: float = bounded(0.01, 5.0, "m/s", "disagreement that rejects a stance foot")
    velocity_std_m_s: float = bounded(1e-4, 1.0, "m/s", "leg-odometry velocity noise")
    anchor_std_m: float = bounded(1e-5, 1.0, "m", "stance-foot anchor noise")
    accel_noise_std_m_s2: float = bounded(1e-4, 10.0, "m/s²", "process noise of the translation filter")
    max_dt_s: float = bounded(1e-3, 1.0, "s", "longer gaps are propagated in pieces of this size")
    reanchor_distance_m: float = bounded(1e-3, 0.5, "m", "centre-of-pressure travel that moves a foot's anchor")
    kinematic_accel_time_constant_s: float = bounded(1e-3, 1.0, "s", "low-pass of the kinematic base acceleration")

    @classmethod
    def default(cls) -> "EstimatorConfig":
        return cls(contact_on_fraction=0.2, contact_off_fraction=0.1, slip_velocity_m_s=0.25,
                   velocity_std_m_s=0.02, anchor_std_m=0.005,
                   accel_noise_std_m_s2=1.0, max_dt_s=0.02, reanchor_distance_m=0.02,
                   kinematic_accel_time_constant_s=0.03)


@dataclass
class EstimatorStatus:
    """What the last update did (for logs and tests)."""

    stance: dict = field(default_factory=lambda: {s: True for s in SIDES})
    used_feet: tuple = ()
    rejected_feet: tuple = ()
    warnings: list = field(default_factory=list)


class StateEstimator:
    """The estimator above for one robot; :meth:`update` per sensor frame."""

    def __init__(self, robot: RobotModel, config: EstimatorConfig | None = None,
                 attitude_noise: AttitudeNoise | None = None, initial_yaw_rad: float = 0.0,
                 initial_xy_m=(0.0, 0.0), initial_quat_wxyz: np.ndarray | None = None):
        """Starting at ``initial_xy_m`` [m] (world), heading ``initial_yaw_rad``, roll and pitch
        from the first accelerometer reading — or, given ``initial_quat_wxyz`` (base orientation in
        the world, e.g. the gait planner's pelvis for an estimator that restarts under a walking
        robot), that whole orientation: mid-walk the accelerometer is not gravity (a biped's
        lateral sway read as 0.19 rad of roll, and it fell)."""
        self.robot = robot
        self.config = config or EstimatorConfig.default()
        self.model = robot.pin_model
        self.data = self.model.createData()
        self.sole_frames = {s: self.model.getFrameId(robot.description.feet[s].sole_site) for s in SIDES}
        self.weight_n = robot.mass_kg * GRAVITY_M_S2
        self._attitude_given = initial_quat_wxyz is not None
        start = quat_normalize(np.asarray(initial_quat_wxyz, dtype=float)) if self._attitude_given \
            else _yaw_quat(initial_yaw_rad)
        self.attitude = AttitudeEkf(attitude_noise, quat_wxyz=start,
                                    attitude_std_rad=INITIAL_ATTITUDE_GIVEN_STD_RAD if self._attitude_given else 0.4,
                                    bias_std_rad_s=0.002)
        self._initial_xy = np.asarray(initial_xy_m, dtype=float)
        self.position = None          # set from kinematics at the first frame
        self.velocity = np.zeros(3)
        self.covariance = np.diag([1e-4] * 3 + [1e-2] * 3)  # (p, v)
        self.angular_velocity = np.zeros(3)
        self.status = EstimatorStatus()
        self._stamp_s: float | None = None
        # Per stance foot: the anchor (world [m]) and the point of the sole it holds (sole frame).
        self._anchors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._cop = {s: np.zeros(3) for s in SIDES}  # centre of pressure, sole frame [m]
        self.foot = FootGeometry.from_robot(robot)
        # Base acceleration (world) from differentiating the legs' kinematic base velocity.
        self.kinematic_accel = np.zeros(3)
        self._kinematic_velocity: np.ndarray | None = None
        # Preallocated Pinocchio state of the legs relative to the base (base at the origin).
        self._q_relative = pin.neutral(self.model)
        self._v_relative = np.zeros(self.model.nv)
        self._transition: tuple[float, np.ndarray, np.ndarray] | None = None  # (dt, F, Q) of _predict
        self._frame_period_s = 1.0 / CONTROL_RATE_HZ  # the last interval between frames
        # One stance foot's observation noise of (p, v): anchor, then zero-velocity variances.
        self._observation_variance = np.array([self.config.anchor_std_m**2] * 3 + [self.config.velocity_std_m_s**2] * 3)

    # -- public --------------------------------------------------------------------------------
    def update(self, frame: SensorFrame) -> BaseState | None:
        """Fuse one frame; returns the estimate (None before the first usable frame)."""
        self.status = EstimatorStatus(stance=dict(self.status.stance))
        warn = self.status.warnings.append
        if self._stamp_s is not None and frame.stamp_s == self._stamp_s:
            return self.state()  # the same frame again (a bridge waiting for its first command repeats it)
        if self._stamp_s is not None and frame.stamp_s < self._stamp_s:
            warn(f"frame at {frame.stamp_s:.4f} s is older than the last one ({self._stamp_s:.4f} s): refused")
            return self.state()
        dt = 0.0 if self._stamp_s is None else frame.stamp_s - self._stamp_s
        if 0.0 < dt <= self.config.max_dt_s:
            self._frame_period_s = dt
        self._stamp_s = frame.stamp_s
        gyro, accel = frame.imu.angular_velocity_rad_s, frame.imu.linear_acceleration_m_s2
        imu_ok = all_finite(gyro, accel)
        if not imu_ok:
            warn("non-finite IMU reading: kinematics only this frame")
        try:
            q_joints = self.robot.joint_vector(frame.joint_names, frame.position_rad)
            v_joints = self.robot.joint_vector(frame.joint_names, frame.velocity_rad_s)
            joints_ok = all_finite(q_joints, v_joints)
        except ValueError as error:
            warn(f"joint state rejected: {error}")
            joints_ok = False
        if not joints_ok:
            warn("non-finite joint state: IMU only this frame")

        if self.position is None:  # first frame: attitude from gravity, height from kinematics
            if not (imu_ok and joints_ok):
                return None
            self._initialize(accel, q_joints)
        if imu_ok and dt > 0:
            self._predict(gyro, accel, dt)
            self.attitude.update_accel(accel, self.kinematic_accel)
            self.angular_velocity = np.asarray(gyro, dtype=float) - self.attitude.gyro_bias
        if joints_ok:
            self._update_stance(frame)
            self._leg_odometry(q_joints, v_joints, dt)
        return self.state()

    def state(self) -> BaseState | None:
        """The current estimate (base pose, world-frame linear velocity, base-frame angular)."""
        if self.position is None:
            return None
        return BaseState(self._stamp_s, self.position.copy(), self.attitude.quat_wxyz, self.velocity.copy(),
                         self.angular_velocity.copy())

    def pose_covariance(self) -> np.ndarray:
        """6×6 covariance of (position [world], orientation [base axes])."""
        cov = np.zeros((6, 6))
        cov[:3, :3] = self.covariance[:3, :3]
        cov[3:, 3:] = self.attitude.covariance[:3, :3]
        return cov

    def twist_covariance(self) -> np.ndarray:
        """6×6 covariance of (linear velocity [world], angular velocity [base])."""
        cov = np.zeros((6, 6))
        cov[:3, :3] = self.covariance[3:, 3:]
        # A sample's white gyro noise: density² over the sampling rate's bandwidth.
        cov[3:, 3:] = self.attitude.covariance[3:, 3:] + np.eye(3) * self.attitude.noise.gyro_noise_density**2 / self._frame_period_s
        return cov

    # -- steps ---------------------------------------------------------------------------------
    def _initialize(self, accel: np.ndarray, q_joints: np.ndarray) -> None:
        if self._attitude_given:
            self._place_on_the_ground(q_joints)
            return
        f = np.asarray(accel, dtype=float)
        roll, pitch = np.arctan2(f[1], f[2]), np.arctan2(-f[0], np.hypot(f[1], f[2]))
        if abs(np.linalg.norm(f) - GRAVITY_M_S2) > 0.1 * GRAVITY_M_S2:
            # Not at rest (the first physics step settles the contacts): gravity's direction is
            # not in this reading; start upright and let the accelerometer updates converge.
            roll = pitch = 0.0
        yaw = float(quats_yaw(self.attitude.quat_wxyz))
        self.attitude.rotation = rpy_to_matrix(roll, pitch, yaw)
        self._place_on_the_ground(q_joints)

    def _place_on_the_ground(self, q_joints: np.ndarray) -> None:
        """Base height such that the lowest sole is on the ground (z = 0), at the initial x, y."""
        relative = self._relative_feet(q_joints, np.zeros(self.robot.n_joints))
        rotation = self.attitude.rotation
        lowest = min((rotation @ relative[s][0])[2] for s in SIDES)
        self.position = np.array([self._initial_xy[0], self._initial_xy[1], -lowest])

    def _predict(self, gyro, accel, dt_total: float) -> None:
        remaining = dt_total
        accel = np.asarray(accel, dtype=float)
        while remaining > 1e-12:
            dt = min(remaining, self.config.max_dt_s)
            remaining -= dt
            self.attitude.predict(gyro, dt)
            a_world = self.attitude.rotation @ accel - _GRAVITY_WORLD
            self.position = self.position + self.velocity * dt + 0.5 * a_world * dt * dt
            self.velocity = self.velocity + a_world * dt
            f, q = self._transition_matrices(dt)
            self.covariance = f @ self.covariance @ f.T + q
            self.covariance = 0.5 * (self.covariance + self.covariance.T)

    def _transition_matrices(self, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """F and Q of the constant-acceleration model over ``dt`` [s]: p += v dt, with the
        accelerometer's noise entering as G = (dt²/2 I; dt I); kept for the last dt (frames come
        at one period, so they are built once)."""
        # Equal periods differ in the last bits of their stamps (sums of physics steps; wall-clock
        # seconds since the epoch resolve 0.2 µs): a microsecond is nothing to this model.
        if self._transition is None or abs(self._transition[0] - dt) > 1e-6:
            f = np.eye(6)
            f[:3, 3:] = np.eye(3) * dt
            g = np.vstack([0.5 * dt * dt * np.eye(3), dt * np.eye(3)])
            self._transition = (dt, f, g @ g.T * self.config.accel_noise_std_m_s2**2)
        return self._transition[1], self._transition[2]

    def _update_stance(self, frame: SensorFrame) -> None:
        cfg = self.config
        for side in SIDES:
            wrench = frame.foot_wrenches.get(side)
            if wrench is None or not all_finite(wrench.force_n):
                continue
            force = float(wrench.force_n[2])
            was = self.status.stance[side]
            now = force >= cfg.contact_on_fraction * self.weight_n if not was else force >= cfg.contact_off_fraction * self.weight_n
            self.status.stance[side] = now
            if not now:
                self._anchors.pop(side, None)
            elif all_finite(wrench.torque_nm):
                self._cop[side] = centre_of_pressure(wrench.force_n, wrench.torque_nm, self.foot)

    def _relative_feet(self, q_joints: np.ndarray, v_joints: np.ndarray) -> dict[str, tuple]:
        """Per foot: sole position r (base axes), sole rotation relative to the base, and the
        sole's linear and angular velocity relative to the base from the joints (base axes)."""
        model, data = self.model, self.data
        q, v = self._q_relative, self._v_relative
        q[7:], v[6:] = q_joints, v_joints
        pin.forwardKinematics(model, data, q, v)
        pin.updateFramePlacements(model, data)
        out = {}
        for side, frame in self.sole_frames.items():
            placement = data.oMf[frame]
            velocity = pin.getFrameVelocity(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
            out[side] = (placement.translation.copy(), placement.rotation.copy(), velocity.linear.copy(),
                         velocity.angular.copy())
        return out

    def _leg_odometry(self, q_joints: np.ndarray, v_joints: np.ndarray, dt: float) -> None:
        cfg = self.config
        relative = self._relative_feet(q_joints, v_joints)
        rotation = self.attitude.rotation
        candidates = {}
        for side in SIDES:
            if self.status.stance[side]:
                r_sole, rel_rotation, rel_velocity, rel_angular = relative[side]
                lever = rel_rotation @ self._cop[side]  # sole origin → centre of pressure, base axes
                r = r_sole + lever
                v_contact = rel_velocity + cross3(rel_angular, lever)
                candidates[side] = (r_sole, rel_rotation, -rotation @ (cross3(self.angular_velocity, r) + v_contact))
        rejected = self._slipping(candidates)
        for side in rejected:  # re-anchored once it holds again
            candidates.pop(side)
            self._anchors.pop(side, None)
        observed = np.zeros(6)  # mean over the feet of the observed (p, v)
        for side, (r_sole, rel_rotation, v_meas) in candidates.items():
            anchor, held = self._anchors.get(side, (None, None))
            if held is None or norm3(self._cop[side] - held) > cfg.reanchor_distance_m:
                # (Re-)anchor at the centre of pressure. Flat ground at z = 0 (the terrain
                # assumption): the contact point is on it.
                held = self._cop[side].copy()
                anchor = (self.position + rotation @ (r_sole + rel_rotation @ held)) * np.array([1.0, 1.0, 0.0])
                self._anchors[side] = (anchor, held)
            # The anchored contact's and the zero-velocity contact's observations of (p, v).
            observed[:3] += anchor - rotation @ (r_sole + rel_rotation @ held)
            observed[3:] += v_meas
        if candidates:
            self._update_translation(observed / len(candidates), len(candidates))
        self._update_kinematic_accel([c[2] for c in candidates.values()], dt)
        self.status.used_feet, self.status.rejected_feet = tuple(candidates), tuple(rejected)

    def _update_kinematic_accel(self, velocities: list, dt: float) -> None:
        """Low-passed derivative of the stance feet's mean kinematic base velocity (world); it
        decays to zero while no foot is in stance or across gaps."""
        alpha = min(1.0, dt / self.config.kinematic_accel_time_constant_s) if dt > 0 else 0.0
        velocity = None if not velocities else (velocities[0] if len(velocities) == 1
                                                else (velocities[0] + velocities[1]) / 2)
        if velocity is None or dt <= 0 or dt > self.config.max_dt_s:
            self.kinematic_accel = (1.0 - alpha) * self.kinematic_accel
            self._kinematic_velocity = velocity
            return
        if self._kinematic_velocity is not None:
            self.kinematic_accel += alpha * ((velocity - self._kinematic_velocity) / dt - self.kinematic_accel)
        self._kinematic_velocity = velocity

    def _slipping(self, candidates: dict) -> list[str]:
        """Stance feet whose implied base velocity is not credible: with two feet, the one
        farther from the prediction when they disagree with each other; with one, when it
        disagrees with the prediction beyond the threshold and 3σ of the prediction."""
        limit = self.config.slip_velocity_m_s
        if len(candidates) == 2:
            (a, ca), (b, cb) = candidates.items()
            if norm3(ca[2] - cb[2]) <= limit:
                return []
            return [a] if norm3(ca[2] - self.velocity) > norm3(cb[2] - self.velocity) else [b]
        sigma = float(np.sqrt(np.trace(self.covariance[3:, 3:])))
        return [side for side, c in candidates.items() if norm3(c[2] - self.velocity) > max(limit, 3 * sigma)]

    def _update_translation(self, observed: np.ndarray, n_feet: int) -> None:
        """Kalman update of (p, v) with ``n_feet`` stance feet's observations of the whole state,
        each (anchored position, zero-velocity velocity) with the configured noise, given as their
        mean ``observed`` (6,): k independent observations z_i = x + n_i, n_i ~ N(0, R), carry
        exactly the information of their mean with noise R / k, so the k feet are one update
        with H = I (a 6×6 solve)."""
        noise_variance = self._observation_variance / n_feet
        p = self.covariance
        s = p.copy()
        s.reshape(-1)[::7] += noise_variance  # the diagonal, a view
        gain = solve_spd(s, p).T  # K = P S⁻¹ (P and S symmetric)
        dx = gain @ (observed - np.concatenate([self.position, self.velocity]))
        self.position, self.velocity = self.position + dx[:3], self.velocity + dx[3:]
        # Joseph form (I − K) P (I − K)ᵀ + K R Kᵀ, R diagonal.
        a = _I6 - gain
        self.covariance = a @ p @ a.T + (gain * noise_variance) @ gain.T
        self.covariance = 0.5 * (self.covariance + self.covariance.T)


_I6 = np.eye(6)
_GRAVITY_WORLD = np.array([0.0, 0.0, GRAVITY_M_S2])


def centre_of_pressure(force_n, torque_nm, foot: FootGeometry) -> np.ndarray:
    """Centre of pressure in the sole frame [m] (z = 0) of a ground reaction given in the sole
    frame about the sole origin: τ = p × f with p_z = 0 gives p_x = −τ_y / f_z, p_y = τ_x / f_z.
    Clipped to the sole's rectangle (a CoP outside it is a measurement artefact); the sole
    origin when the normal force is too small to locate it."""
    fz = float(force_n[2])
    if fz <= 1e-6:
        return np.zeros(3)
    x = min(max(-float(torque_nm[1]) / fz, foot.heel_x_m), foot.toe_x_m)
    y = min(max(float(torque_nm[0]) / fz, -foot.half_width_m), foot.half_width_m)
    return np.array([x, y, 0.0])


def _yaw_quat(yaw: float) -> np.ndarray:
    return np.array([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])
