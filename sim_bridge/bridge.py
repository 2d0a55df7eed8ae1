"""One control period of the robot side, independent of ROS: validate and arbitrate the newest
command, hand the setpoints to the backend, let the period pass.

:class:`BridgeConfig` is the bridge's whole configuration; the node declares one ROS parameter per
field and builds it from their values, so there is one list of parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from biped_common.errors import ConfigError
from biped_common.rates import CONTROL_RATE_HZ
from biped_common.state import JointCommand, Push, SensorFrame
from sim_bridge.backend import Backend
from sim_bridge.commands import CommandArbiter, CommandMode
from sim_bridge.mujoco_backend import SensorNoise

TIMING_MODES = ("lockstep", "realtime")
BACKENDS = ("mujoco", "ros2_control")
COMMAND_INTERFACES = ("effort", "position")


# Realistic sensor levels (per sample; the IMU's own filter bandwidth sets them) for the estimator work:
# - gyro: Bosch BMI088 class, noise density 0.014 °/s/√Hz over a ≈ 230 Hz bandwidth → 0.21 °/s
#   = 0.0037 rad/s per sample; residual bias after a standstill calibration ≈ 0.05 °/s.
# - accelerometer: BMI088, 175 µg/√Hz over ≈ 230 Hz → 0.026 m/s² per sample; residual bias after
#   calibration ≈ 2 mg = 0.02 m/s².
# - IMU orientation output (not used by the estimator): 0.5° noise, 1° bias.
# - joints: 14-bit absolute encoders (3.8e-4 rad resolution) → 1e-4 rad; velocity by
#   differentiation in the drive, filtered → 0.02 rad/s.
MEMS_SENSORS = dict(gyro_std_rad_s=0.0037, gyro_bias_rad_s=(0.0009, -0.0007, 0.0009),
                    accel_std_m_s2=0.026, accel_bias_m_s2=(0.02, -0.015, 0.02),
                    orientation_std_rad=0.0087, orientation_bias_rad=(0.0175, 0.0, 0.0),
                    joint_position_std_rad=1e-4, joint_velocity_std_rad_s=0.02)


@dataclass(frozen=True)
class BridgeConfig:
    """Bridge parameters (ROS parameter names are the field names)."""

    robot: str = "humanoid"
    backend: str = "mujoco"              # mujoco | ros2_control
    timing_mode: str = "lockstep"        # lockstep | realtime (see README, "Timing")
    control_rate_hz: float = CONTROL_RATE_HZ  # sensor publication / command period
    command_timeout_s: float = 0.02      # sim-time age after which the joints damp
    lockstep_timeout_s: float = 0.5      # wall time to wait for a step's command, once commands flow
    # Real time: the robot hangs in its gantry until commands have come this long (wall time, no
    # pause over 0.1 s). The walking stack's estimator and planner start within ≈ 4.5 s of its
    # first (stand-controller) commands; a robot let go before may meet them with a start-up stall
    # of the machine (one of three runs fell so, 2026-12-03) — so the shipped configs wait 6 s.
    realtime_release_after_s: float = 0.5
    publish_ground_truth: bool = True
    seed: int = 0
    # Sensor noise (standard deviations per sample) and constant biases; zero = ideal sensors.
    gyro_std_rad_s: float = 0.0
    gyro_bias_rad_s: tuple = (0.0, 0.0, 0.0)
    accel_std_m_s2: float = 0.0
    accel_bias_m_s2: tuple = (0.0, 0.0, 0.0)
    orientation_std_rad: float = 0.0
    orientation_bias_rad: tuple = (0.0, 0.0, 0.0)
    joint_position_std_rad: float = 0.0
    joint_velocity_std_rad_s: float = 0.0
    # ros2_control backend: which forward command controller the robot runs.
    command_interface: str = "effort"    # effort (joint PD closed here) | position (robot's PD)

    def __post_init__(self):
        choices = {"backend": BACKENDS, "timing_mode": TIMING_MODES,
                   "command_interface": COMMAND_INTERFACES}
        for field, allowed in choices.items():
            if getattr(self, field) not in allowed:
                raise ConfigError(field, f"must be one of {allowed}, got {getattr(self, field)!r}")
        if not 10.0 <= self.control_rate_hz <= 2000.0:
            raise ConfigError("control_rate_hz", f"must be in [10, 2000], got {self.control_rate_hz}")
        if not 0.0 < self.command_timeout_s <= 1.0:
            raise ConfigError("command_timeout_s", f"must be in (0, 1], got {self.command_timeout_s}")
        if not 0.0 < self.lockstep_timeout_s <= 60.0:
            raise ConfigError("lockstep_timeout_s", f"must be in (0, 60], got {self.lockstep_timeout_s}")
        if not 0.0 <= self.realtime_release_after_s <= 600.0:
            raise ConfigError("realtime_release_after_s", f"must be in [0, 600] s, got {self.realtime_release_after_s}")
        object.__setattr__(self, "gyro_bias_rad_s", tuple(float(v) for v in self.gyro_bias_rad_s))
        object.__setattr__(self, "accel_bias_m_s2", tuple(float(v) for v in self.accel_bias_m_s2))
        object.__setattr__(self, "orientation_bias_rad", tuple(float(v) for v in self.orientation_bias_rad))
        try:
            self.noise()
        except ValueError as exc:
            raise ConfigError("noise", str(exc)) from exc

    @property
    def control_period_s(self) -> float:
        return 1.0 / self.control_rate_hz

    @classmethod
    def with_mems_sensors(cls, **overrides) -> "BridgeConfig":
        """Sensors at the levels of a calibrated MEMS IMU and 14-bit joint encoders (see
        :data:`MEMS_SENSORS`)."""
        return cls(**{**MEMS_SENSORS, **overrides})

    def noise(self) -> SensorNoise:
        """The sensor noise model these parameters describe."""
        return SensorNoise(**{f.name: getattr(self, f.name) for f in fields(SensorNoise)})


class SimBridge:
    """Drives a :class:`Backend` one control period at a time with the newest valid command."""

    def __init__(self, backend: Backend, damping_kd: np.ndarray, config: BridgeConfig):
        self.backend = backend
        self.config = config
        self.arbiter = CommandArbiter(backend.joint_names, damping_kd, config.command_timeout_s)
        self._mode = self.arbiter.mode
        self._mode_since_s = backend.now_s()

    @property
    def mode(self) -> CommandMode:
        return self.arbiter.mode

    def submit(self, command: JointCommand, received_s: float | None = None) -> None:
        """Accept a command that arrived at ``received_s`` (the backend's clock; default: its
        present) — the watchdog counts from there. Raises CommandError (previous command kept)
        when invalid."""
        now = self.backend.now_s()
        self.arbiter.submit(command, now if received_s is None else min(received_s, now))

    def push(self, push: Push) -> None:
        """Schedule an external push on the backend."""
        self.backend.apply_push(push)

    def step(self) -> CommandMode:
        """Apply the arbitrated setpoints for one control period; returns the mode the period
        ends in. When the command goes stale inside the period, a simulation switches to damping
        at the last physics step before it expires (so the joints damp within the watchdog's
        timeout of the command's arrival, not up to a period later); :attr:`mode_since_s` is then
        the switch time."""
        now = self.backend.now_s()
        period = self.config.control_period_s
        setpoints = self.arbiter.setpoints(now)
        dt = self.backend.physics_dt_s
        left = self.arbiter.expires_at_s - now
        if self.arbiter.mode == CommandMode.COMMAND and dt is not None and left < period:
            steps_before = int(np.floor(left / dt + 1e-9))  # whole steps, the switch not after expiry
            if steps_before > 0:
                self.backend.send(setpoints)
                self.backend.advance(steps_before * dt)
            setpoints = self.arbiter.setpoints(self.arbiter.expires_at_s + 0.5 * dt)
            self._mode, self._mode_since_s = self.arbiter.mode, now + steps_before * dt
            self.backend.send(setpoints)
            self.backend.advance(period - steps_before * dt)
            return self.arbiter.mode
        if self.arbiter.mode != self._mode:
            self._mode_since_s = now
        self._mode = self.arbiter.mode
        self.backend.send(setpoints)
        self.backend.advance(period)
        return self.arbiter.mode

    @property
    def mode_since_s(self) -> float:
        """When the current mode began [s, the backend's clock] (to the physics step)."""
        return self._mode_since_s

    def measure(self) -> SensorFrame | None:
        return self.backend.measure()
