"""MuJoCo backend: physics at the model's time step, the joint loop run at every physics step
(as a motor driver would), IMU and joint sensors with configurable noise and bias, contact
wrenches under the feet, ground-truth base state and external pushes."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from biped_common.robot_model import RobotModel
from biped_common.rotations import quat_multiply, quat_normalize, rotation_vector_to_quat
from biped_common.small_math import cross3
from biped_common.state import BaseState, ImuReading, Push, SensorFrame, Wrench
from sim_bridge.backend import Backend
from sim_bridge.commands import JointSetpoints, damping_setpoints


@dataclass(frozen=True)
class SensorNoise:
    """Sensor noise (white, per sample, standard deviations) and constant biases.

    Defaults are an ideal sensor; :mod:`sim_bridge.bridge` loads levels from ``config/sim.yaml``.
    Units: rad/s, m/s², rad, rad, rad/s.
    """

    gyro_std_rad_s: float = 0.0
    gyro_bias_rad_s: tuple[float, float, float] = (0.0, 0.0, 0.0)
    accel_std_m_s2: float = 0.0
    accel_bias_m_s2: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation_std_rad: float = 0.0
    orientation_bias_rad: tuple[float, float, float] = (0.0, 0.0, 0.0)  # rotation vector, IMU frame
    joint_position_std_rad: float = 0.0
    joint_velocity_std_rad_s: float = 0.0

    def __post_init__(self):
        for name in ("gyro_std_rad_s", "accel_std_m_s2", "orientation_std_rad",
                     "joint_position_std_rad", "joint_velocity_std_rad_s"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} must be finite and ≥ 0, got {value}")
        for name in ("gyro_bias_rad_s", "accel_bias_m_s2", "orientation_bias_rad"):
            value = np.asarray(getattr(self, name), dtype=float)
            if value.shape != (3,) or not np.all(np.isfinite(value)):
                raise ValueError(f"{name} must be 3 finite numbers, got {getattr(self, name)}")


class MujocoBackend(Backend):
    """A robot simulated by MuJoCo.

    ``initial_qpos`` defaults to the robot standing in its posture with soles on the ground.
    ``seed`` makes the sensor noise reproducible.
    """

    def __init__(self, robot: RobotModel, noise: SensorNoise = SensorNoise(),
                 initial_qpos: np.ndarray | None = None, seed: int = 0):
        self.robot = robot
        self.model = robot.mj_model
        self.data = mujoco.MjData(self.model)
        self.joint_names = robot.joint_names
        self.noise = noise
        self._rng = np.random.default_rng(seed)
        n = len(self.joint_names)
        self._noise_scale = np.concatenate([  # white-noise standard deviations, in draw order
            np.full(n, noise.joint_position_std_rad), np.full(n, noise.joint_velocity_std_rad_s),
            np.full(3, noise.gyro_std_rad_s), np.full(3, noise.accel_std_m_s2), np.full(3, noise.orientation_std_rad)])
        self._orientation_bias = np.asarray(noise.orientation_bias_rad, dtype=float)
        self.physics_dt_s = float(self.model.opt.timestep)
        self._qpos_adr = np.array([self.model.jnt_qposadr[self._joint_id(n)] for n in self.joint_names])
        self._dof_adr = np.array([self.model.jnt_dofadr[self._joint_id(n)] for n in self.joint_names])
        self._actuator_of_joint = self._actuators()
        self._base_body = self._id(mujoco.mjtObj.mjOBJ_BODY, robot.description.base_body)
        self._imu_site = self._id(mujoco.mjtObj.mjOBJ_SITE, robot.description.imu_site)
        self._sensor_adr = {name: self.model.sensor_adr[self._id(mujoco.mjtObj.mjOBJ_SENSOR, name)]
                            for name in ("imu_gyro", "imu_accel", "imu_quat")}
        self._foot_bodies = {side: self._id(mujoco.mjtObj.mjOBJ_BODY, f.body)
                             for side, f in robot.description.feet.items()}
        self._sole_sites = {side: self._id(mujoco.mjtObj.mjOBJ_SITE, f.sole_site)
                            for side, f in robot.description.feet.items()}
        self._tree_roots = {side: int(self.model.body_rootid[body]) for side, body in self._foot_bodies.items()}
        self._setpoints = damping_setpoints(robot.kd.copy())
        self._pushes: list[Push] = []
        self._pushes_applied = False  # whether xfrc_applied may hold a push
        self._applied_torque = np.zeros(len(self.joint_names))
        self.data.qpos[:] = robot.standing_qpos() if initial_qpos is None else initial_qpos
        mujoco.mj_forward(self.model, self.data)

    def _id(self, kind, name: str) -> int:
        index = mujoco.mj_name2id(self.model, kind, name)
        if index < 0:
            raise KeyError(f"{name!r} not found in the MuJoCo model")
        return index

    def _joint_id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_JOINT, name)

    def _actuators(self) -> np.ndarray:
        by_joint = {self.model.actuator_trnid[a, 0]: a for a in range(self.model.nu)}
        return np.array([by_joint[self._joint_id(n)] for n in self.joint_names])

    # -- Backend interface ---------------------------------------------------------------------
    def now_s(self) -> float:
        return float(self.data.time)

    def send(self, setpoints: JointSetpoints) -> None:
        self._setpoints = setpoints

    def advance(self, duration_s: float) -> None:
        """Integrate ``duration_s`` (rounded to whole physics steps), running the joint loop at
        every step on the true joint state, as a motor driver does."""
        steps = max(1, int(round(duration_s / self.physics_dt_s)))
        for _ in range(steps):
            self._apply_pushes()
            q = self.data.qpos[self._qpos_adr]
            qd = self.data.qvel[self._dof_adr]
            self._applied_torque = self._setpoints.torque(q, qd, self.robot.torque_limit_nm)
            self.data.ctrl[self._actuator_of_joint] = self._applied_torque
            mujoco.mj_step(self.model, self.data)

    def measure(self) -> SensorFrame:
        # mj_step evaluates sensors and contacts before integrating, so after a step they describe
        # the previous state; recompute them for the current one.
        mujoco.mj_forward(self.model, self.data)
        n = len(self.joint_names)
        # One draw for the frame: the same numbers as a draw per sensor in this order (joint
        # positions, velocities, gyro, accelerometer, attitude), at a fifth of the calls.
        noise = self._rng.standard_normal(self._noise_scale.size) * self._noise_scale
        position = self.data.qpos[self._qpos_adr] + noise[:n]
        velocity = self.data.qvel[self._dof_adr] + noise[n:2 * n]
        return SensorFrame(
            stamp_s=self.now_s(), joint_names=self.joint_names, position_rad=position,
            velocity_rad_s=velocity, effort_nm=self._applied_torque.copy(),
            imu=self._imu(noise[2 * n:]), foot_wrenches=self.foot_wrenches())

    def ground_truth(self) -> BaseState:
        return BaseState(
            stamp_s=self.now_s(), position_m=self.data.qpos[0:3].copy(),
            orientation_wxyz=quat_normalize(self.data.qpos[3:7]),
            linear_velocity_world_m_s=self.data.qvel[0:3].copy(),
            angular_velocity_base_rad_s=self.data.qvel[3:6].copy())

    def apply_push(self, push: Push) -> None:
        self._id(mujoco.mjtObj.mjOBJ_BODY, push.body)  # KeyError naming the body if unknown
        self._pushes.append(push)

    # -- sensors -------------------------------------------------------------------------------
    def _sensor(self, name: str, size: int) -> np.ndarray:
        adr = self._sensor_adr[name]
        return self.data.sensordata[adr:adr + size].copy()

    def _imu(self, white_noise: np.ndarray) -> ImuReading:
        """The IMU reading with biases and ``white_noise`` (9,): gyro, accelerometer, attitude."""
        noise = self.noise
        gyro = self._sensor("imu_gyro", 3) + noise.gyro_bias_rad_s + white_noise[0:3]
        accel = self._sensor("imu_accel", 3) + noise.accel_bias_m_s2 + white_noise[3:6]
        quat = self._sensor("imu_quat", 4)
        error_vector = self._orientation_bias + white_noise[6:9]
        if error_vector.any():
            # The reported attitude is the true one followed by a small rotation in the IMU frame.
            quat = quat_multiply(quat, rotation_vector_to_quat(error_vector))
        return ImuReading(quat_normalize(quat), gyro, accel)

    def foot_wrenches(self) -> dict[str, Wrench]:
        """Ground reaction on each foot (sum over its contacts), in the sole frame about the sole
        origin [N, N·m].

        Read from MuJoCo's ``cfrc_ext`` (the external wrench on each body, world axes, about the
        centre of mass of the body's kinematic tree, ``subtree_com[root]``), which sums every
        contact force of the body (:func:`mujoco.mj_contactForce` per contact, as a loop here
        would, at a third of the cost) and the pushes of ``xfrc_applied`` (removed again here).
        """
        data = self.data
        if not data.flg_rnepost:
            # The accelerometer makes mj_forward compute it; a model without one still works.
            mujoco.mj_rnePostConstraint(self.model, data)
        wrenches = {}
        for side, foot in self._foot_bodies.items():
            torque_about_com, force = data.cfrc_ext[foot, :3], data.cfrc_ext[foot, 3:]
            tree_com = data.subtree_com[self._tree_roots[side]]
            applied_force = data.xfrc_applied[foot, :3]
            if applied_force.any() or data.xfrc_applied[foot, 3:].any():
                # A push on the foot itself: applied at the foot's centre of mass, not a contact.
                force = force - applied_force
                torque_about_com = (torque_about_com - data.xfrc_applied[foot, 3:]
                                    - cross3(data.xipos[foot] - tree_com, applied_force))
            site = self._sole_sites[side]
            # About the sole origin: τ_sole = τ_com + (com − sole) × f.
            torque_about_sole = torque_about_com + cross3(tree_com - data.site_xpos[site], force)
            rotation = data.site_xmat[site].reshape(3, 3)
            wrenches[side] = Wrench(force @ rotation, torque_about_sole @ rotation)
        return wrenches

    def _apply_pushes(self) -> None:
        if not self._pushes and not self._pushes_applied:
            return  # no push now or at the last step: xfrc_applied is already zero
        now = self.now_s()
        self._pushes_applied = bool(self._pushes)
        self.data.xfrc_applied[:] = 0.0
        self._pushes = [p for p in self._pushes if now < p.start_s + p.duration_s]
        for push in self._pushes:
            if push.active(now):
                body = self._id(mujoco.mjtObj.mjOBJ_BODY, push.body)
                self.data.xfrc_applied[body, :3] += push.force_world_n
                self.data.xfrc_applied[body, 3:] += push.torque_world_nm

    def body_contacts_other_than_feet(self) -> list[str]:
        """Names of bodies other than the feet touching the floor now (a fall indicator)."""
        names = []
        feet = set(self._foot_bodies.values())
        for i in range(self.data.ncon):
            contact = self.data.contact[i]
            for geom in (contact.geom1, contact.geom2):
                body = self.model.geom_bodyid[geom]
                if body != 0 and body not in feet:
                    names.append(mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, body))
        return sorted(set(names))
