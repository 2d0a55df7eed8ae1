"""The interface every robot backend implements: MuJoCo, or a ros2_control robot.

The bridge never knows which one it drives: it reads :meth:`Backend.measure`, hands the resolved
joint setpoints to :meth:`Backend.send`, and lets time pass with :meth:`Backend.advance` (which
integrates physics in simulation and does nothing on hardware, where time passes by itself).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from biped_common.errors import BipedStackError
from biped_common.state import BaseState, Push, SensorFrame
from sim_bridge.commands import JointSetpoints


class NotSupportedError(BipedStackError):
    """The backend cannot do this (e.g. push a real robot, or report ground truth)."""


class Backend(ABC):
    """A robot the bridge can drive."""

    joint_names: tuple[str, ...]
    # The simulation's integration step [s], the finest time at which setpoints can change; None
    # on hardware (the robot's own loop runs between the bridge's calls).
    physics_dt_s: float | None = None

    @abstractmethod
    def now_s(self) -> float:
        """Current time [s]: sim time in simulation, the robot's clock on hardware."""

    @abstractmethod
    def measure(self) -> SensorFrame | None:
        """The newest sensor frame, or None when the robot has not reported yet."""

    @abstractmethod
    def send(self, setpoints: JointSetpoints) -> None:
        """Apply per-joint setpoints until the next call."""

    def advance(self, duration_s: float) -> None:
        """Let ``duration_s`` of robot time pass (integrates physics in simulation)."""

    def ground_truth(self) -> BaseState | None:
        """True base state, for evaluation only; None where nobody knows it (hardware)."""
        return None

    def apply_push(self, push: Push) -> None:
        """Apply an external wrench; only simulators can."""
        raise NotSupportedError(f"{type(self).__name__} cannot apply pushes")

    def close(self) -> None:
        """Release resources."""
