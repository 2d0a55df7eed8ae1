"""Command arbitration: validation, subsets, torque law and the stale-command watchdog."""

import numpy as np
import pytest

from biped_common.errors import CommandError
from biped_common.resources import params_file
from biped_common.state import JointCommand
from sim_bridge.commands import CommandArbiter, CommandMode

NAMES = ("hip", "knee", "ankle")
DAMPING = np.array([1.0, 2.0, 3.0])


def cmd(names=NAMES, position=None, stamp=0.0, kp=10.0):
    n = len(names)
    return JointCommand(stamp, names, np.ones(n) if position is None else position, np.zeros(n),
                        np.full(n, 0.5), np.full(n, kp), np.full(n, 1.0))


def test_waiting_then_command_then_damping_after_timeout():
    arbiter = CommandArbiter(NAMES, DAMPING, timeout_s=0.02)
    setpoints = arbiter.setpoints(0.0)
    assert arbiter.mode == CommandMode.WAITING
    np.testing.assert_array_equal(setpoints.kd, DAMPING)
    arbiter.submit(cmd(), now_s=1.0)
    assert arbiter.setpoints(1.019).kp[0] == 10.0 and arbiter.mode == CommandMode.COMMAND
    setpoints = arbiter.setpoints(1.021)
    assert arbiter.mode == CommandMode.DAMPING
    np.testing.assert_array_equal(setpoints.kp, 0.0)
    np.testing.assert_array_equal(setpoints.effort_nm, 0.0)


def test_unknown_joint_and_nan_are_rejected_and_previous_command_kept():
    arbiter = CommandArbiter(NAMES, DAMPING, timeout_s=0.02)
    arbiter.submit(cmd(), now_s=0.0)
    with pytest.raises(CommandError, match="unknown joint.*'elbow'"):
        arbiter.submit(cmd(names=("hip", "elbow")), now_s=0.001)
    with pytest.raises(CommandError, match="non-finite position_rad for joint.*'knee'"):
        arbiter.submit(cmd(position=np.array([0.0, np.nan, 0.0])), now_s=0.001)
    with pytest.raises(CommandError, match="negative gains"):
        arbiter.submit(cmd(kp=-1.0), now_s=0.001)
    np.testing.assert_array_equal(arbiter.setpoints(0.001).position_rad, 1.0)
    assert arbiter.last_command_time_s == 0.0


def test_subset_command_damps_unnamed_joints():
    arbiter = CommandArbiter(NAMES, DAMPING, timeout_s=0.02)
    arbiter.submit(cmd(names=("knee",)), now_s=0.0)
    sp = arbiter.setpoints(0.0)
    np.testing.assert_array_equal(sp.kp, [0.0, 10.0, 0.0])
    np.testing.assert_array_equal(sp.kd, [1.0, 1.0, 3.0])


def test_torque_law_and_clipping():
    arbiter = CommandArbiter(NAMES, DAMPING, timeout_s=0.02)
    arbiter.submit(cmd(), now_s=0.0)
    sp = arbiter.setpoints(0.0)
    tau = sp.torque(np.zeros(3), np.array([0.0, 1.0, 0.0]), np.array([100.0, 100.0, 5.0]))
    np.testing.assert_allclose(tau, [10.5, 9.5, 5.0])  # 0.5 + 10·1 − 1·q̇, last one clipped


def test_the_mems_params_file_matches_the_preset():
    import yaml

    from sim_bridge.bridge import MEMS_SENSORS
    path = params_file("sim_mems.yaml")
    params = yaml.safe_load(path.read_text())["sim_bridge"]["ros__parameters"]
    for key, value in MEMS_SENSORS.items():
        assert params[key] == (list(value) if isinstance(value, tuple) else value), key
