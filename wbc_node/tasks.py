"""The whole-body QP's tasks, one small class each (after pink / mink): a task has a weight, an
error, a desired acceleration a* (the reference's feed-forward plus a PD law on the error), a
Jacobian J and a drift J̇v, and adds w |J v̇ + J̇v − a*|² to the QP's cost on v̇.

All tasks read one :class:`Kinematics` snapshot of the state, updated once per tick, so adding a
task costs its own rows and nothing else. Frames: world axes at each frame's origin
(Pinocchio's LOCAL_WORLD_ALIGNED); Pinocchio's free-flyer velocity convention; SI units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from biped_common.robot_model import SIDES, RobotModel, is_leg_joint
from biped_common.rotations import quat_to_matrix

LWA = pin.LOCAL_WORLD_ALIGNED


@dataclass(frozen=True)
class FrameState:
    """A frame at the snapshot's state: placement in the world, 6×nv Jacobian (linear; angular,
    world axes), spatial velocity (6,) [m/s; rad/s] and classical acceleration drift J̇v (6,)."""

    placement: pin.SE3
    jacobian: np.ndarray
    velocity: np.ndarray
    drift: np.ndarray


class Kinematics:
    """What every task and constraint reads of one state (q, v) (kept, not copied): frame placements, Jacobians,
    velocities and drifts, the CoM and its Jacobian, the mass matrix M and the bias h (Coriolis,
    centrifugal, gravity). :meth:`update` once per tick."""

    def __init__(self, robot: RobotModel):
        self.model = robot.pin_model
        self.data = self.model.createData()
        self.nv = self.model.nv
        self.base_frame = self.model.getFrameId(robot.description.base_body)
        self.sole_frames = {side: self.model.getFrameId(robot.description.feet[side].sole_site) for side in SIDES}
        self._lower = np.tril_indices(self.nv, -1)
        self._zero_v = np.zeros(self.nv)
        self.q = np.zeros(self.model.nq)
        self.v = np.zeros(self.nv)
        self.base: FrameState | None = None
        self.soles: dict[str, FrameState] = {}

    def update(self, q: np.ndarray, v: np.ndarray) -> None:
        """Every quantity at Pinocchio state (q, v), with zero acceleration (so the frames'
        accelerations are the drifts J̇v)."""
        model, data = self.model, self.data
        self.q, self.v = q, v
        pin.forwardKinematics(model, data, q, v, self._zero_v)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        pin.crba(model, data, q)
        data.M[self._lower] = data.M.T[self._lower]  # crba fills the upper triangle
        pin.nonLinearEffects(model, data, q, v)
        pin.jacobianCenterOfMass(model, data, q, False)
        pin.centerOfMass(model, data, q, v, self._zero_v)
        self.base = self.frame(self.base_frame)
        self.soles = {side: self.frame(frame) for side, frame in self.sole_frames.items()}

    def frame(self, frame_id: int) -> FrameState:
        """One frame's :class:`FrameState` at the last :meth:`update`."""
        model, data = self.model, self.data
        return FrameState(data.oMf[frame_id], pin.getFrameJacobian(model, data, frame_id, LWA),
                          pin.getFrameVelocity(model, data, frame_id, LWA).vector,
                          pin.getFrameClassicalAcceleration(model, data, frame_id, LWA).vector)

    @property
    def com_position_m(self) -> np.ndarray:
        """CoM position (3,) [m], world."""
        return self.data.com[0]

    @property
    def com_velocity_m_s(self) -> np.ndarray:
        """CoM velocity (3,) [m/s], world."""
        return self.data.vcom[0]

    @property
    def mass_matrix(self) -> np.ndarray:
        """Joint-space inertia M (nv, nv), symmetric."""
        return self.data.M

    @property
    def bias(self) -> np.ndarray:
        """Bias forces h(q, v) (nv,): Coriolis, centrifugal and gravity."""
        return self.data.nle


def clipped_norm(vector: np.ndarray, limit: float) -> np.ndarray:
    """``vector`` scaled down to norm ``limit`` if longer (direction kept)."""
    norm = float(np.linalg.norm(vector))
    return vector * (limit / norm) if norm > limit else vector


def clipped(value: float, limit: float) -> float:
    """``value`` limited to [−limit, limit]."""
    return min(max(value, -limit), limit)


def angular_feedback(rotation_error: np.ndarray, angular_velocity: np.ndarray, reference_velocity: np.ndarray | None,
                     reference_acceleration: np.ndarray | None, kp: float, kd: float) -> np.ndarray:
    """Desired angular acceleration (3,) [rad/s², world] of an orientation task: α_ref + k_p e +
    k_d (ω_ref − ω), ``rotation_error`` e = log(R_ref Rᵀ) (world axes); a None reference rate or
    acceleration is zero."""
    desired = kp * rotation_error - kd * angular_velocity
    if reference_velocity is not None:
        desired = desired + kd * reference_velocity
    if reference_acceleration is not None:
        desired = desired + reference_acceleration
    return desired


class Task:
    """One weighted least-squares term on the accelerations: w |J v̇ + J̇v − a*|².

    Subclasses give :meth:`error`, :meth:`desired_acceleration`, :meth:`jacobian` and
    :meth:`drift`; :meth:`active` says whether the reference asks for the task this tick."""

    weight: float

    def active(self, ref) -> bool:
        """Whether the task is in this tick's QP (default: always)."""
        return True

    def error(self, kin: Kinematics, ref) -> np.ndarray:
        """Reference − achieved, in the task's space (rotations: log(R_ref Rᵀ), world axes)."""
        raise NotImplementedError

    def desired_acceleration(self, kin: Kinematics, ref) -> np.ndarray:
        """a* in the task's space: feed-forward + k_p error + k_d velocity error."""
        raise NotImplementedError

    def jacobian(self, kin: Kinematics) -> np.ndarray:
        """J (m, nv): the task's velocity is J v."""
        raise NotImplementedError

    def drift(self, kin: Kinematics) -> np.ndarray:
        """J̇v (m,): the task's acceleration at v̇ = 0."""
        raise NotImplementedError

    def add_cost(self, kin: Kinematics, ref, hessian_vv: np.ndarray, gradient_v: np.ndarray) -> None:
        """Add w JᵀJ to the v̇ block of the Hessian and w Jᵀ(a* − J̇v) to the gradient's (the
        QP minimizes ½ xᵀHx − gradientᵀx), in place."""
        jac = self.jacobian(kin)
        weighted = self.weight * jac.T
        np.add(hessian_vv, weighted @ jac, out=hessian_vv)
        np.add(gradient_v, weighted @ (self.desired_acceleration(kin, ref) - self.drift(kin)), out=gradient_v)


class ComTask(Task):
    """The CoM's horizontal position (2,) [m], world, from the MPC: a* = c̈_ref + k_p e + k_d ė."""

    def __init__(self, weight: float, kp: float, kd: float):
        self.weight, self.kp, self.kd = weight, kp, kd

    def error(self, kin, ref):
        return ref.com_position_m - kin.com_position_m[:2]

    def desired_acceleration(self, kin, ref):
        return (ref.com_acceleration_m_s2 + self.kp * self.error(kin, ref)
                + self.kd * (ref.com_velocity_m_s - kin.com_velocity_m_s[:2]))

    def jacobian(self, kin):
        return kin.data.Jcom[:2]

    def drift(self, kin):
        return kin.data.acom[0][:2]


class PelvisTask(Task):
    """The pelvis height [m] and orientation (world), stacked (4,): height, then rotation
    error log(R_ref Rᵀ). Height feed-forward clipped to ``height_feedforward_limit_m_s2``."""

    def __init__(self, weight: float, kp: float, kd: float, rotation_kp: float, rotation_kd: float,
                 height_feedforward_limit_m_s2: float):
        self.weight, self.kp, self.kd = weight, kp, kd
        self.rotation_kp, self.rotation_kd = rotation_kp, rotation_kd
        self.height_feedforward_limit_m_s2 = height_feedforward_limit_m_s2

    def error(self, kin, ref):
        pose = kin.base.placement
        error = np.empty(4)
        error[0] = ref.pelvis_height_m - pose.translation[2]
        error[1:] = pin.log3(quat_to_matrix(ref.pelvis_quat_wxyz) @ pose.rotation.T)
        return error

    def desired_acceleration(self, kin, ref):
        error, velocity = self.error(kin, ref), kin.base.velocity
        desired = np.empty(4)
        desired[0] = (clipped(ref.pelvis_height_accel_m_s2, self.height_feedforward_limit_m_s2)
                      + self.kp * error[0] + self.kd * (ref.pelvis_height_rate_m_s - velocity[2]))
        desired[1:] = angular_feedback(error[1:], velocity[3:], ref.pelvis_angular_velocity_rad_s,
                                       ref.pelvis_angular_acceleration_rad_s2, self.rotation_kp, self.rotation_kd)
        return desired

    def jacobian(self, kin):
        return kin.base.jacobian[2:6]

    def drift(self, kin):
        return kin.base.drift[2:6]


class SwingFootTask(Task):
    """One swinging sole's pose (6,): position [m] then rotation error log(R_ref Rᵀ), world;
    active while the reference has the foot out of stance. The position feed-forward is clipped
    in two parts: horizontal to norm ``horizontal_feedforward_limit_m_s2``, vertical to
    ± ``vertical_feedforward_limit_m_s2`` — the gait feedback moves footholds mid-swing, which
    jerks the horizontal acceleration but leaves the swing height curve (the style) alone."""

    def __init__(self, side: str, weight: float, kp: float, kd: float, horizontal_feedforward_limit_m_s2: float,
                 vertical_feedforward_limit_m_s2: float):
        self.side, self.weight, self.kp, self.kd = side, weight, kp, kd
        self.horizontal_feedforward_limit_m_s2 = horizontal_feedforward_limit_m_s2
        self.vertical_feedforward_limit_m_s2 = vertical_feedforward_limit_m_s2

    def active(self, ref):
        return not ref.feet[self.side].in_stance

    def error(self, kin, ref):
        target, pose = ref.feet[self.side], kin.soles[self.side].placement
        error = np.empty(6)
        error[:3] = target.position_m - pose.translation
        error[3:] = pin.log3(quat_to_matrix(target.quat_wxyz) @ pose.rotation.T)
        return error

    def desired_acceleration(self, kin, ref):
        target, velocity = ref.feet[self.side], kin.soles[self.side].velocity
        error = self.error(kin, ref)
        desired = np.empty(6)
        desired[:2] = clipped_norm(target.acceleration_m_s2[:2], self.horizontal_feedforward_limit_m_s2)
        desired[2] = clipped(float(target.acceleration_m_s2[2]), self.vertical_feedforward_limit_m_s2)
        desired[:3] += self.kp * error[:3] + self.kd * (target.velocity_m_s - velocity[:3])
        desired[3:] = angular_feedback(error[3:], velocity[3:], target.angular_velocity_rad_s,
                                       target.angular_acceleration_rad_s2, self.kp, self.kd)
        return desired

    def jacobian(self, kin):
        return kin.soles[self.side].jacobian

    def drift(self, kin):
        return kin.soles[self.side].drift


class PostureTask(Task):
    """Every joint's angle (n_joints,) [rad] towards the reference posture, with its rate and
    acceleration fed forward (moving targets — arm swing, reaches — otherwise lag by k_d / k_p
    times their speed). Per-joint weights: legs ``weight``, upper body ``upper_weight``. Its
    Jacobian selects the joints, so its cost goes straight onto the Hessian's diagonal."""

    def __init__(self, joint_names: list[str], weight: float, upper_weight: float, kp: float, kd: float):
        upper = np.array([not is_leg_joint(name) for name in joint_names])
        self.weights = np.where(upper, upper_weight, weight)
        self.weight, self.kp, self.kd = weight, kp, kd
        n = len(joint_names)
        self._selector = np.hstack([np.zeros((n, 6)), np.eye(n)])
        self._diagonal = (np.arange(6, 6 + n), np.arange(6, 6 + n))

    def error(self, kin, ref):
        return ref.joint_posture_rad - kin.q[7:]

    def desired_acceleration(self, kin, ref):
        desired = self.kp * self.error(kin, ref) - self.kd * kin.v[6:]
        if ref.joint_posture_rate_rad_s is not None:
            desired = desired + self.kd * ref.joint_posture_rate_rad_s
        if ref.joint_posture_accel_rad_s2 is not None:
            desired = desired + ref.joint_posture_accel_rad_s2
        return desired

    def jacobian(self, kin):
        return self._selector

    def drift(self, kin):
        return np.zeros(len(self.weights))

    def add_cost(self, kin, ref, hessian_vv, gradient_v):
        # J = [0 I]: JᵀWJ is diagonal and JᵀW(a* − 0) the joint rows — no products needed.
        hessian_vv[self._diagonal] += self.weights
        gradient_v[6:] += self.weights * self.desired_acceleration(kin, ref)
