"""Forward tracking with muscles (source 000's loop) on a MuJoCo musculoskeletal model.

Every physics step: PD on the joint reference → desired joint acceleration
q̈* = q̈_ref + k_p (q_ref − q) + k_d (q̇_ref − q̇) → joint torque by inverse dynamics (MuJoCo's
``mj_inverse``: τ = M q̈* + bias − passive) → activations by static optimization
(:class:`Allocator`) → the excitation that reaches them through the activation dynamics
(:func:`anticipating_excitation`) → MuJoCo's muscle actuators (``ctrl``) → simulate. MuJoCo
integrates the activation itself; our activations only enter as excitations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import mujoco
import numpy as np

from biped_common import profiles
from muscle_allocator_node.activation import ActivationTimes, anticipating_excitation
from muscle_allocator_node.allocation import Allocator
from muscle_allocator_node.mujoco_muscles import MujocoMuscles


def minimum_jerk(start: float, end: float, duration_s: float) -> Callable[[float], tuple[float, float, float]]:
    """q(t) = q0 + (q1 − q0)(10τ³ − 15τ⁴ + 6τ⁵), τ = t / T clipped to [0, 1]: (q, q̇, q̈) at t [s]."""
    def at(t: float):
        s, ds, dds = (float(x) for x in profiles.minimum_jerk(t / duration_s))
        d = end - start
        inside = 0.0 < t < duration_s
        return start + d * s, d * ds / duration_s if inside else 0.0, d * dds / duration_s**2 if inside else 0.0
    return at


@dataclass(frozen=True)
class TrackingGains:
    """PD gains of the reference tracking [1/s², 1/s] (critically damped by default)."""

    kp: float = 400.0
    kd: float = 40.0


@dataclass
class TrackingLog:
    """Per-step traces (SI units)."""

    time_s: list = field(default_factory=list)
    reference_rad: list = field(default_factory=list)
    position_rad: list = field(default_factory=list)
    activations: list = field(default_factory=list)       # MuJoCo's activation state after the step
    allocated: list = field(default_factory=list)         # what the allocator asked for
    residual_nm: list = field(default_factory=list)
    status: list = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.array(v) for k, v in self.__dict__.items()}


def track_joint_reference(model: mujoco.MjModel, reference: Callable[[float], tuple], duration_s: float,
                          gains: TrackingGains = TrackingGains(), criterion: str = "activation_squared",
                          initial_qpos: np.ndarray | None = None) -> TrackingLog:
    """Track ``reference(t) → (q, q̇, q̈)`` (arrays or scalars over the model's dofs) for
    ``duration_s`` with the loop above; returns the traces. The model's actuators must all be
    muscles (MuJoCo's ``muscle`` dynamics with its time constants)."""
    data = mujoco.MjData(model)
    muscles = MujocoMuscles(model)
    times = ActivationTimes(*(float(x) for x in model.actuator_dynprm[0][:2]))
    allocator = Allocator(model.nv, model.nu, criterion, max_force=muscles.peak_forces_n)
    q0 = np.atleast_1d(reference(0.0)[0]) if initial_qpos is None else np.asarray(initial_qpos, dtype=float)
    data.qpos[:] = q0
    mujoco.mj_forward(model, data)
    dt = model.opt.timestep
    log = TrackingLog()
    for k in range(int(round(duration_s / dt))):
        t = k * dt
        q_ref, v_ref, a_ref = (np.atleast_1d(np.asarray(x, dtype=float)) for x in reference(t))
        desired = a_ref + gains.kp * (q_ref - data.qpos) + gains.kd * (v_ref - data.qvel)
        torque = _inverse_dynamics(model, data, desired)
        state = muscles.state(data)
        allocation = allocator.solve(state.moment_arms, state.active_force, state.passive_force, torque)
        data.ctrl[:] = anticipating_excitation(allocation.activations, data.act, dt, times)
        mujoco.mj_step(model, data)
        log.time_s.append(t + dt)
        log.reference_rad.append(np.atleast_1d(reference(t + dt)[0]).copy())
        log.position_rad.append(data.qpos.copy())
        log.activations.append(data.act.copy())
        log.allocated.append(allocation.activations)
        log.residual_nm.append(allocation.residual_torque)
        log.status.append(allocation.status)
    return log


def _inverse_dynamics(model: mujoco.MjModel, data: mujoco.MjData, qacc: np.ndarray) -> np.ndarray:
    """Actuator joint torques giving ``qacc`` at data's state: ``mj_inverse`` with the acceleration
    set (qfrc_inverse = M q̈ + bias − passive − constraint); data's own qacc is restored."""
    saved = data.qacc.copy()
    data.qacc[:] = qacc
    mujoco.mj_inverse(model, data)
    torque = data.qfrc_inverse.copy()
    data.qacc[:] = saved
    return torque
