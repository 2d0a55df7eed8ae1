"""Joint commands on the robot side: validation, the stale-command watchdog, the joint loop.

The :class:`CommandArbiter` holds the newest valid :class:`JointCommand`, resolves it to every
joint of the robot (joints a command does not name are damped) and falls back to pure joint
damping when no command has arrived for ``timeout_s`` of sim time.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from biped_common.errors import CommandError
from biped_common.small_math import all_finite
from biped_common.state import JointCommand

_SETPOINT_FIELDS = ("position_rad", "velocity_rad_s", "effort_nm", "kp", "kd")  # JointSetpoints' order


class CommandMode(Enum):
    """What drives the joints now."""

    WAITING = "waiting"  # no command yet: damping
    COMMAND = "command"  # the controller's newest command
    DAMPING = "damping"  # watchdog: the command stream went stale


@dataclass(frozen=True)
class JointSetpoints:
    """A command resolved to every joint of the robot, in the robot's joint order."""

    position_rad: np.ndarray
    velocity_rad_s: np.ndarray
    effort_nm: np.ndarray
    kp: np.ndarray
    kd: np.ndarray

    def torque(self, position_rad: np.ndarray, velocity_rad_s: np.ndarray,
               limit_nm: np.ndarray) -> np.ndarray:
        """τ = τ_ff + kp (q_d − q) + kd (q̇_d − q̇), clipped to ±limit [N·m]."""
        tau = (self.effort_nm + self.kp * (self.position_rad - position_rad)
               + self.kd * (self.velocity_rad_s - velocity_rad_s))
        # np.clip's result, in place (np.clip itself costs ≈ 3 µs of dispatch, 1000 times a second).
        np.maximum(tau, -limit_nm, out=tau)
        return np.minimum(tau, limit_nm, out=tau)


def damping_setpoints(damping_kd: np.ndarray) -> JointSetpoints:
    """Pure joint damping τ = −kd q̇: the safe state of a robot without a controller."""
    zeros = np.zeros_like(damping_kd)
    return JointSetpoints(zeros, zeros, zeros, zeros, damping_kd)


class CommandArbiter:
    """Validates commands, remembers the newest valid one, and applies the watchdog.

    ``joint_names``: the robot's joints; ``damping_kd`` [N·m·s/rad]: per-joint damping used when
    no valid command is fresh; ``timeout_s``: command age (sim time) after which the joints damp.
    """

    def __init__(self, joint_names: tuple[str, ...], damping_kd: np.ndarray, timeout_s: float):
        if timeout_s <= 0.0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.joint_names = tuple(joint_names)
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self._damping = damping_setpoints(np.asarray(damping_kd, dtype=float))
        self.timeout_s = timeout_s
        self._setpoints: JointSetpoints | None = None
        self._checked_names: tuple[str, ...] | None = None  # the last joint order checked, and its indices
        self._checked_index = np.zeros(0, dtype=int)
        self._received_s = -np.inf
        self.mode = CommandMode.WAITING

    def submit(self, command: JointCommand, now_s: float) -> None:
        """Accept ``command`` received at sim time ``now_s``; CommandError (and the previous
        command kept) when it names an unknown joint or holds a non-finite value."""
        names = command.joint_names
        if names != self._checked_names:  # a new joint order: check it once
            unknown = [n for n in names if n not in self._index]
            if unknown:
                raise CommandError(f"command names unknown joint(s) {unknown}; "
                                   f"known: {', '.join(self.joint_names)}")
            if len(set(names)) != len(names):
                raise CommandError("command names a joint twice")
            self._checked_names = names
            self._checked_index = np.array([self._index[n] for n in names], dtype=int)
        values = [getattr(command, f) for f in _SETPOINT_FIELDS]
        if not all_finite(*values):
            for field, array in zip(_SETPOINT_FIELDS, values):
                if not np.all(np.isfinite(array)):
                    bad = [names[i] for i in np.flatnonzero(~np.isfinite(array))]
                    raise CommandError(f"command has non-finite {field} for joint(s) {bad}")
        if command.kp.min(initial=0.0) < 0 or command.kd.min(initial=0.0) < 0:
            raise CommandError("command has negative gains")
        if names == self.joint_names:
            # Every joint in the robot's order: the command's own (read-only) arrays.
            self._setpoints = JointSetpoints(*values)
        else:
            resolved = [getattr(self._damping, f).copy() for f in _SETPOINT_FIELDS]
            for target, source in zip(resolved, values):
                target[self._checked_index] = source
            self._setpoints = JointSetpoints(*resolved)
        self._received_s = now_s

    def setpoints(self, now_s: float) -> JointSetpoints:
        """The setpoints to apply at sim time ``now_s`` (updates :attr:`mode`)."""
        if self._setpoints is None:
            self.mode = CommandMode.WAITING
            return self._damping
        if now_s - self._received_s > self.timeout_s:
            self.mode = CommandMode.DAMPING
            return self._damping
        self.mode = CommandMode.COMMAND
        return self._setpoints

    @property
    def expires_at_s(self) -> float:
        """Time at which the newest command goes stale and the joints damp (+inf before the
        first command, in the clock ``submit`` was given)."""
        return self._received_s + self.timeout_s if self._setpoints is not None else np.inf

    @property
    def last_command_time_s(self) -> float:
        """Sim time at which the newest valid command arrived (−inf before the first one)."""
        return self._received_s
