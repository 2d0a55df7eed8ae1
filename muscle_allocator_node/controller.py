"""The allocator node's core (ROS-free): joint state + joint torque setpoints by name → muscle
activations, on a MuJoCo musculoskeletal model; and the muscle side of a simulator that takes
activations.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from muscle_allocator_node.activation import ActivationTimes, anticipating_excitation
from muscle_allocator_node.allocation import Allocation, Allocator
from muscle_allocator_node.mujoco_muscles import MujocoMuscles

_ONE_DOF = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))


def one_dof_joints(model: mujoco.MjModel) -> dict[str, tuple[int, int]]:
    """Hinge and slide joints by name: (qpos index, dof index)."""
    return {model.joint(j).name: (int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j]))
            for j in range(model.njnt) if int(model.jnt_type[j]) in _ONE_DOF}


def _indices(known: dict, names, what: str) -> list:
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {what}: {', '.join(unknown)}")
    return [known[n] for n in names]


class MuscleAllocatorCore:
    """Allocation for one model; joints not in a state message keep their reference position."""

    def __init__(self, model: mujoco.MjModel, criterion: str = "activation_squared"):
        self.model = model
        self.data = mujoco.MjData(model)
        self.muscles = MujocoMuscles(model)
        self.joints = one_dof_joints(model)
        self.criterion = criterion
        self._allocators: dict[tuple[int, ...], Allocator] = {}

    @property
    def muscle_names(self) -> tuple[str, ...]:
        return self.muscles.names

    def allocate(self, joint_names, positions, velocities, torque_joint_names, torques_nm) -> Allocation:
        """Activations producing ``torques_nm`` at the named joints, at the joint state given
        (rad, rad/s). Unknown joint names or non-finite values → ValueError naming them."""
        positions, velocities = np.asarray(positions, dtype=float), np.asarray(velocities, dtype=float)
        torques = np.asarray(torques_nm, dtype=float)
        if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(velocities)) and np.all(np.isfinite(torques))):
            raise ValueError("non-finite joint state or torque setpoint")
        state_index = _indices(self.joints, joint_names, "joints in the joint state")
        dofs = tuple(d for _, d in _indices(self.joints, torque_joint_names, "joints in the torque setpoint"))
        data = self.data
        data.qpos[:] = self.model.qpos0
        data.qvel[:] = 0.0
        for (q, d), position, velocity in zip(state_index, positions, velocities if velocities.size else np.zeros(len(state_index))):
            data.qpos[q], data.qvel[d] = position, velocity
        mujoco.mj_forward(self.model, data)
        state = self.muscles.state(data)
        allocator = self._allocators.get(dofs)
        if allocator is None:
            allocator = self._allocators[dofs] = Allocator(len(dofs), self.model.nu, self.criterion,
                                                              max_force=self.muscles.peak_forces_n)
        return allocator.solve(state.moment_arms[list(dofs)], state.active_force, state.passive_force, torques)


@dataclass
class MuscleDrive:
    """The simulator side: holds the latest desired activations (by muscle name) and turns them
    into MuJoCo excitations each physics step (the inverse of the activation dynamics). Without
    a fresh command for ``timeout_s`` of sim time the muscles relax (excitation 0)."""

    model: mujoco.MjModel
    timeout_s: float = 0.1

    def __post_init__(self):
        self.index = {self.model.actuator(i).name: i for i in range(self.model.nu)}
        self.desired = np.zeros(self.model.nu)
        self.received_s: float | None = None
        self.times = ActivationTimes(*(float(x) for x in self.model.actuator_dynprm[0][:2]))

    def set_activations(self, now_s: float, names, activations) -> None:
        """New desired activations; unknown muscle names → ValueError naming them."""
        indices = _indices(self.index, names, "muscles")
        self.desired[indices] = activations
        self.received_s = now_s

    def excitation(self, now_s: float, activation: np.ndarray, dt_s: float) -> np.ndarray:
        """MuJoCo ``ctrl`` for this step."""
        if self.received_s is None or now_s - self.received_s > self.timeout_s:
            return np.zeros(self.model.nu)
        return anticipating_excitation(self.desired, activation, dt_s, self.times)
