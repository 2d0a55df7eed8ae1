"""Plain data exchanged between the cores: sensor frames, joint commands, base states.

Everything is SI (m, s, rad, N, N·m); quaternions are (w, x, y, z). Arrays are joint-ordered as
the accompanying ``joint_names``. These are what the message conversions translate to and from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The fixed frame every pose, velocity and plan of the stack is expressed in (ROS: its frame_id).
WORLD_FRAME = "world"


def _frozen_array(value, name: str, length: int | None = None) -> np.ndarray:
    array = np.array(value, dtype=float)  # a copy: callers may keep mutating their own array
    if array.ndim != 1 or (length is not None and array.size != length):
        raise ValueError(f"{name} must be a 1-D array of length {length}, got shape {array.shape}")
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class JointCommand:
    """Per-joint setpoints for the joint-level loop τ = τ_ff + kp (q_d − q) + kd (q̇_d − q̇).

    ``stamp_s`` is the sim time of the sensor frame this command answers (lockstep pairing).
    Units: rad, rad/s, N·m, N·m/rad, N·m·s/rad.
    """

    stamp_s: float
    joint_names: tuple[str, ...]
    position_rad: np.ndarray
    velocity_rad_s: np.ndarray
    effort_nm: np.ndarray
    kp: np.ndarray
    kd: np.ndarray

    def __post_init__(self):
        n = len(self.joint_names)
        object.__setattr__(self, "joint_names", tuple(self.joint_names))
        for name in ("position_rad", "velocity_rad_s", "effort_nm", "kp", "kd"):
            object.__setattr__(self, name, _frozen_array(getattr(self, name), name, n))


@dataclass(frozen=True)
class ImuReading:
    """IMU at its site: orientation of the IMU frame in the world, angular velocity and specific
    force (acceleration minus gravity; +9.81 m/s² up at rest) in the IMU frame."""

    orientation_wxyz: np.ndarray
    angular_velocity_rad_s: np.ndarray
    linear_acceleration_m_s2: np.ndarray


@dataclass(frozen=True)
class Wrench:
    """A force [N] and torque [N·m]; the frame and reference point are stated where it is used."""

    force_n: np.ndarray
    torque_nm: np.ndarray


@dataclass(frozen=True)
class SensorFrame:
    """Everything the robot measures at one instant ``stamp_s`` [s, sim time].

    ``foot_wrenches[side]`` is the ground reaction on that foot, in the sole frame, about the sole
    origin. ``effort_nm`` is the torque the joint motors applied over the last physics step.
    """

    stamp_s: float
    joint_names: tuple[str, ...]
    position_rad: np.ndarray
    velocity_rad_s: np.ndarray
    effort_nm: np.ndarray
    imu: ImuReading
    foot_wrenches: dict[str, Wrench] = field(default_factory=dict)


@dataclass(frozen=True)
class BaseState:
    """Floating-base state: pose of the base (pelvis) in the world, linear velocity of its origin
    in world axes, angular velocity in base axes. For evaluation (ground truth) or estimation."""

    stamp_s: float
    position_m: np.ndarray
    orientation_wxyz: np.ndarray
    linear_velocity_world_m_s: np.ndarray
    angular_velocity_base_rad_s: np.ndarray


# Pushes are a test tool (the bridge's /push, scenario files): beyond these they are refused.
PUSH_MAX_FORCE_N = 2000.0
PUSH_MAX_TORQUE_NM = 500.0
PUSH_MAX_DURATION_S = 10.0


@dataclass(frozen=True)
class Push:
    """An external wrench on a body: force [N] and torque [N·m] in world axes, applied at the
    body's centre of mass from ``start_s`` for ``duration_s`` [s, sim time]."""

    body: str
    force_world_n: np.ndarray
    torque_world_nm: np.ndarray
    start_s: float
    duration_s: float

    def active(self, now_s: float) -> bool:
        """Whether the push acts at sim time ``now_s``."""
        return self.start_s <= now_s < self.start_s + self.duration_s
