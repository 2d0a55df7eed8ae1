"""Hardware backend core: joint reordering, the effort PD, and the position controller's hold."""

import numpy as np
import pytest

from biped_common.state import ImuReading
from sim_bridge.commands import JointSetpoints, damping_setpoints
from sim_bridge.ros2_control_backend import Ros2ControlBackend

NAMES = ("hip", "knee")


def backend(interface):
    sent = []
    b = Ros2ControlBackend(NAMES, np.array([50.0, 50.0]), interface, sent.append, clock=lambda: 1.0)
    return b, sent


def test_joint_states_are_reordered_and_checked():
    b, sent = backend("effort")
    assert b.measure() is None
    b.on_joint_state(0.5, ["gripper", "knee", "hip"], [9.0, 0.2, 0.1], [0.0, 0.0, 0.0], [])
    b.on_imu(ImuReading(np.array([1.0, 0, 0, 0]), np.zeros(3), np.array([0, 0, 9.81])))
    frame = b.measure()
    np.testing.assert_array_equal(frame.position_rad, [0.1, 0.2])
    with pytest.raises(ValueError, match=r"lacks joints \['knee'\]"):
        b.on_joint_state(0.6, ["hip"], [0.0], [0.0], [])
    with pytest.raises(ValueError, match="non-finite"):
        b.on_joint_state(0.6, ["hip", "knee"], [0.0, np.nan], [0.0, 0.0], [])


def test_effort_interface_closes_the_joint_loop():
    b, sent = backend("effort")
    b.send(damping_setpoints(np.ones(2)))
    assert sent == []  # nothing before the first measurement
    b.on_joint_state(0.5, NAMES, [0.0, 0.0], [1.0, 0.0], [])
    b.send(JointSetpoints(np.array([0.1, 0.0]), np.zeros(2), np.array([1.0, 0.0]), np.array([100.0, 0]), np.array([2.0, 2.0])))
    np.testing.assert_allclose(sent[-1], [1.0 + 10.0 - 2.0, 0.0])


def test_position_interface_holds_the_measured_pose_instead_of_damping():
    b, sent = backend("position")
    b.on_joint_state(0.5, NAMES, [0.3, 0.6], [0.0, 0.0], [])
    b.send(JointSetpoints(np.array([0.1, 0.2]), np.zeros(2), np.zeros(2), np.ones(2), np.ones(2)))
    np.testing.assert_allclose(sent[-1], [0.1, 0.2])
    b.on_joint_state(0.6, NAMES, [0.11, 0.21], [0.0, 0.0], [])
    b.send(damping_setpoints(np.ones(2)))
    b.on_joint_state(0.7, NAMES, [0.5, 0.5], [0.0, 0.0], [])
    b.send(damping_setpoints(np.ones(2)))
    np.testing.assert_allclose(sent[-1], [0.11, 0.21])  # held where the stream went stale


def test_a_state_independent_command_is_sent_on_arrival_and_refreshed_once_a_period():
    """A forward controller holds its last command: a feed-forward torque is published when new,
    not again at the next joint state; after a whole period without one it is sent again. The
    joint PD closed here (gains) is published on every joint state."""
    b, sent = backend("effort")
    b.on_joint_state(0.5, NAMES, [0.0, 0.0], [0.0, 0.0], [])
    torque_only = JointSetpoints(np.zeros(2), np.zeros(2), np.array([1.0, 2.0]), np.zeros(2), np.zeros(2))
    b.send(torque_only)
    b.send(torque_only)
    assert len(sent) == 1
    b.on_joint_state(0.51, NAMES, [0.0, 0.0], [0.0, 0.0], [])
    b.send(torque_only)
    assert len(sent) == 1  # published in the previous period: the robot holds it
    b.on_joint_state(0.52, NAMES, [0.0, 0.0], [0.0, 0.0], [])
    b.send(torque_only)
    assert len(sent) == 2  # a whole period without a publication: refreshed
    pd = JointSetpoints(np.zeros(2), np.zeros(2), np.zeros(2), np.ones(2), np.ones(2))
    b.send(pd)
    b.on_joint_state(0.53, NAMES, [0.1, 0.0], [0.0, 0.0], [])
    b.send(pd)
    assert len(sent) == 4
    np.testing.assert_allclose(sent[-1], [-0.1, 0.0])  # the PD on the new state
