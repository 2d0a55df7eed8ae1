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
from biped_common.state import JointCommand


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
        return np.clip(tau, -limit_nm, limit_nm)


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
        self._received_s = -np.inf
        self.mode = CommandMode.WAITING

    def submit(self, command: JointCommand, now_s: float) -> None:
        """Accept ``command`` received at sim time ``now_s``; CommandError (and the previous
        command kept) when it names an unknown joint or holds a non-finite value."""
        unknown = [n for n in command.joint_names if n not in self._index]
        if unknown:
            raise CommandError(f"command names unknown joint(s) {unknown}; "
                               f"known: {', '.join(self.joint_names)}")
        if len(set(command.joint_names)) != len(command.joint_names):
            raise CommandError("command names a joint twice")
        for field in ("position_rad", "velocity_rad_s", "effort_nm", "kp", "kd"):
            values = getattr(command, field)
            if not np.all(np.isfinite(values)):
                bad = [command.joint_names[i] for i in np.flatnonzero(~np.isfinite(values))]
                raise CommandError(f"command has non-finite {field} for joint(s) {bad}")
        if np.any(command.kp < 0) or np.any(command.kd < 0):
            raise CommandError("command has negative gains")
        resolved = damping_setpoints(self._damping.kd)
        idx = np.array([self._index[n] for n in command.joint_names], dtype=int)
        arrays = {f: getattr(resolved, f).copy() for f in ("position_rad", "velocity_rad_s",
                                                           "effort_nm", "kp", "kd")}
        for f in arrays:
            arrays[f][idx] = getattr(command, f)
        self._setpoints = JointSetpoints(**arrays)
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
    def last_command_time_s(self) -> float:
        """Sim time at which the newest valid command arrived (−inf before the first one)."""
        return self._received_s
