"""One bridge period: the watchdog switches to damping at the physics step of the command's
expiry, not at the next control period."""

import numpy as np
import pytest

from biped_common.state import JointCommand
from sim_bridge.backend import Backend
from sim_bridge.bridge import BridgeConfig, SimBridge
from sim_bridge.commands import CommandMode

NAMES = ("hip", "knee")


class RecordingBackend(Backend):
    """Time advances only by ``advance``; records which setpoints held over which interval."""

    joint_names = NAMES

    def __init__(self, physics_dt_s):
        self.physics_dt_s = physics_dt_s
        self.time_s = 0.0
        self.held: list[tuple[float, float, bool]] = []  # (from s, to s, damping?)
        self._setpoints = None

    def now_s(self):
        return self.time_s

    def measure(self):
        return None

    def send(self, setpoints):
        self._setpoints = setpoints

    def advance(self, duration_s):
        damping = not self._setpoints.kp.any()
        self.held.append((self.time_s, self.time_s + duration_s, damping))
        self.time_s += duration_s


def command(stamp_s):
    return JointCommand(stamp_s, NAMES, np.zeros(2), np.zeros(2), np.zeros(2), np.full(2, 50.0), np.ones(2))


@pytest.mark.parametrize("received_s", [0.0, 0.0013, 0.0031])
def test_the_watchdog_damps_at_the_physics_step_of_expiry(received_s):
    backend = RecordingBackend(physics_dt_s=0.001)
    bridge = SimBridge(backend, np.ones(2), BridgeConfig(control_rate_hz=250.0, command_timeout_s=0.02))
    backend.time_s = 0.004  # the present is the next tick's: the arrival was earlier
    bridge.submit(command(0.0), received_s=received_s)
    modes = [bridge.step() for _ in range(8)]
    assert modes[0] == CommandMode.COMMAND and modes[-1] == CommandMode.DAMPING
    switch = next(start for start, _, damping in backend.held if damping)
    expiry = max(received_s, 0.0) + 0.02
    assert expiry - 0.001 - 1e-9 < switch <= expiry + 1e-9  # the last whole step before expiry
    assert bridge.mode_since_s == pytest.approx(switch)
    assert backend.time_s == pytest.approx(0.004 + 8 * 0.004)  # the periods keep their length


def test_an_arrival_after_the_present_counts_from_the_present():
    backend = RecordingBackend(physics_dt_s=0.001)
    bridge = SimBridge(backend, np.ones(2), BridgeConfig(control_rate_hz=250.0, command_timeout_s=0.02))
    bridge.submit(command(0.0), received_s=5.0)  # a clock ahead of the simulation's cannot defer the watchdog
    assert bridge.arbiter.expires_at_s == pytest.approx(0.02)


def test_without_physics_steps_the_mode_changes_at_a_period():
    backend = RecordingBackend(physics_dt_s=None)  # hardware: nothing to split
    bridge = SimBridge(backend, np.ones(2), BridgeConfig(control_rate_hz=250.0, command_timeout_s=0.02))
    bridge.submit(command(0.0))
    modes = [bridge.step() for _ in range(7)]
    assert modes[5] == CommandMode.COMMAND and modes[6] == CommandMode.DAMPING  # at t = 0.024 > 0.02
    assert bridge.mode_since_s == pytest.approx(0.024)
