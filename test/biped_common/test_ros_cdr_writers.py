"""Every control-rate writer produces the message rclpy serializes for the one the conversions
build, frame after frame (random numbers, every robot): the same length and, read back, the same
fields to the bit. (Not the same bytes: rclpy leaves CDR's alignment padding uninitialized.)"""

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState

from biped_common import conversions as conv
from biped_common.ros_cdr_writers import (ImuWriter, JointCommandWriter, JointStateWriter, OdometryWriter,
                                      WrenchWriter)
from biped_common.robot_model import load_robot
from biped_common.rotations import quat_normalize
from biped_common.state import BaseState, ImuReading, JointCommand, SensorFrame, Wrench


def same_message(written: bytes, message) -> bool:
    expected = serialize_message(message)
    return len(written) == len(expected) and \
        deserialize_message(written, type(message)) == deserialize_message(expected, type(message))


def random_frame(rng, names, stamp_s):
    n = len(names)
    imu = ImuReading(quat_normalize(rng.normal(size=4)), rng.normal(size=3), rng.normal(size=3) + 9.81)
    return SensorFrame(stamp_s, names, rng.normal(size=n), rng.normal(size=n), rng.normal(size=n) * 50, imu,
                       {s: Wrench(rng.normal(size=3) * 100, rng.normal(size=3)) for s in ("left", "right")})


@pytest.mark.parametrize("robot_name", ["biped", "humanoid"])
def test_writers_write_what_rclpy_serializes(robot_name):
    robot = load_robot(robot_name)
    names = robot.joint_names
    rng = np.random.default_rng(1)
    joints, commands = JointStateWriter(names), JointCommandWriter(names)
    imu = ImuWriter("imu_site", 0.01, 0.05, 0.002)
    wrench = WrenchWriter("l_sole")
    truth, odom = OdometryWriter("pelvis"), OdometryWriter("pelvis", covariances=True)
    for k in range(20):
        stamp_s = 1234.5678901 + 0.005 * k + rng.uniform(0, 1e-6)
        frame = random_frame(rng, names, stamp_s)
        assert same_message(joints.write(frame), conv.joint_state_message(frame))
        assert same_message(imu.write(stamp_s, frame.imu),
                            conv.imu_message(stamp_s, frame.imu, "imu_site", 0.01, 0.05, 0.002))
        assert same_message(wrench.write(stamp_s, frame.foot_wrenches["left"]),
                            conv.wrench_message(stamp_s, frame.foot_wrenches["left"], "l_sole"))
        state = BaseState(stamp_s, rng.normal(size=3), quat_normalize(rng.normal(size=4)), rng.normal(size=3),
                          rng.normal(size=3))
        assert same_message(truth.write(state), conv.odometry_message(state, "pelvis"))
        pose_cov, twist_cov = rng.normal(size=(6, 6)), rng.normal(size=(6, 6))
        assert same_message(odom.write(state, pose_cov, twist_cov),
                            conv.odometry_message(state, "pelvis", pose_covariance=pose_cov, twist_covariance=twist_cov))
        n = len(names)
        command = JointCommand(stamp_s, names, *(rng.normal(size=n) for _ in range(3)), rng.uniform(0, 100, n),
                               rng.uniform(0, 5, n))
        assert same_message(commands.write(command), conv.joint_command_message(command))
    back = deserialize_message(joints.write(frame), JointState)
    np.testing.assert_array_equal(back.position, frame.position_rad)
    assert tuple(back.name) == tuple(names)


def test_writers_refuse_what_would_change_their_layout():
    robot = load_robot("biped")
    names = robot.joint_names
    frame = random_frame(np.random.default_rng(2), names[:-1], 1.0)
    with pytest.raises(ValueError, match="joints"):
        JointStateWriter(names).write(frame)
    state = BaseState(1.0, np.zeros(3), np.array([1.0, 0, 0, 0]), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="covariances"):
        OdometryWriter("pelvis").write(state, np.eye(6), np.eye(6))
