"""Message encodings round-trip, and malformed messages give errors that say what is wrong."""

import numpy as np
import pytest

from biped_common import conversions as conv
from biped_common.errors import CommandError
from biped_common.robot_model import load_robot
from biped_common.rotations import quat_normalize
from biped_common.state import BaseState, ImuReading, JointCommand, Push, SensorFrame, Wrench

NAMES = ("a", "b", "c")
RNG = np.random.default_rng(1)


def command():
    return JointCommand(1.234, NAMES, *(RNG.normal(size=3) for _ in range(3)),
                        RNG.uniform(0, 10, 3), RNG.uniform(0, 1, 3))


def test_stamps_are_exact_in_nanoseconds():
    for k in range(0, 100000, 997):
        t = k * 0.002
        assert conv.stamp_to_ns(conv.seconds_to_stamp(t)) == int(round(t * 1e9))


def test_joint_command_round_trip():
    cmd = command()
    back = conv.joint_command_from_message(conv.joint_command_message(cmd), {}, {})
    assert back.joint_names == NAMES and back.stamp_s == pytest.approx(cmd.stamp_s)
    for field in ("position_rad", "velocity_rad_s", "effort_nm", "kp", "kd"):
        np.testing.assert_allclose(getattr(back, field), getattr(cmd, field))


def test_joint_command_without_gains_uses_defaults_and_torque_only_drops_kp():
    msg = conv.joint_command_message(command())
    msg.points = msg.points[:1]
    back = conv.joint_command_from_message(msg, {"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 0.1, "b": 0.2, "c": 0.3})
    np.testing.assert_allclose(back.kp, [1, 2, 3])
    msg.points[0].positions = []
    assert np.all(conv.joint_command_from_message(msg, {"a": 1.0}, {}).kp == 0)


@pytest.mark.parametrize("breakage, message", [
    (lambda m: setattr(m.points[0], "positions", [1.0]), "positions has 1 values for 3 joints"),
    (lambda m: setattr(m, "points", []), "1 or 2 points"),
    (lambda m: setattr(m.points[1], "velocities", []), "gains point"),
])
def test_malformed_joint_command_is_named(breakage, message):
    msg = conv.joint_command_message(command())
    breakage(msg)
    with pytest.raises(CommandError, match=message):
        conv.joint_command_from_message(msg, {}, {})


def test_sensor_frame_round_trip_and_nan_rejected():
    imu = ImuReading(quat_normalize(RNG.normal(size=4)), RNG.normal(size=3), RNG.normal(size=3))
    frame = SensorFrame(0.5, NAMES, *(RNG.normal(size=3) for _ in range(3)), imu,
                        {"left": Wrench(RNG.normal(size=3), RNG.normal(size=3))})
    js, im = conv.joint_state_message(frame), conv.imu_message(0.5, imu, "imu", 0.01, 0.1, 0.0)
    wrench = conv.wrench_message(0.5, frame.foot_wrenches["left"], "l_sole")
    back = conv.sensor_frame_from_messages(js, im, {"left": wrench})
    np.testing.assert_allclose(back.position_rad, frame.position_rad)
    np.testing.assert_allclose(back.imu.orientation_wxyz, imu.orientation_wxyz)
    np.testing.assert_allclose(back.foot_wrenches["left"].torque_nm, frame.foot_wrenches["left"].torque_nm)
    assert im.angular_velocity_covariance[0] == pytest.approx(1e-4)
    js.position[1] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        conv.sensor_frame_from_messages(js, im)


def test_odometry_round_trip_twist_in_child_frame():
    state = BaseState(2.0, RNG.normal(size=3), quat_normalize(RNG.normal(size=4)),
                      RNG.normal(size=3), RNG.normal(size=3))
    back = conv.base_state_from_odometry(conv.odometry_message(state, "pelvis"))
    np.testing.assert_allclose(back.linear_velocity_world_m_s, state.linear_velocity_world_m_s, atol=1e-12)
    np.testing.assert_allclose(back.orientation_wxyz, state.orientation_wxyz, atol=1e-12)


def test_push_encoding():
    push = Push("pelvis", np.array([25.0, 0, 0]), np.zeros(3), 3.0, 1.0)
    msg = conv.push_message(push)
    back = conv.push_from_message(msg, now_s=3.0)
    assert back.body == "pelvis" and back.duration_s == pytest.approx(1.0)
    msg.header.stamp = conv.seconds_to_stamp(0.0)
    assert conv.push_from_message(msg, now_s=7.0, default_duration_s=0.5).duration_s == 0.5
    msg.header.stamp = conv.seconds_to_stamp(2.0)
    with pytest.raises(ValueError, match="before now"):
        conv.push_from_message(msg, now_s=3.0)
    msg.header.frame_id = ""
    with pytest.raises(ValueError, match="frame_id"):
        conv.push_from_message(msg, now_s=0.0)


def test_gait_reference_round_trip_and_cmd_vel():
    from gait_planner_node.planner import GaitPlanner, PlannerConfig
    from gait_planner_node.style import load_style
    planner = GaitPlanner(load_style("neutral"), PlannerConfig.for_robot(load_robot("humanoid")))
    planner.set_command([0.2, 0.0, 0.1])
    for _ in range(50):
        planner.step(0.008)
    ref = planner.reference()
    from gait_planner_node.planner import gait_reference
    robot = load_robot("humanoid")
    sent = gait_reference(ref, 3.0)
    back = conv.gait_reference_from_message(conv.gait_reference_message(sent), robot)
    assert back.stamp_s == pytest.approx(3.0, abs=1e-12)
    np.testing.assert_allclose(back.times_s, ref.times_s, atol=1e-12)
    np.testing.assert_allclose(back.sole_position_m["right"], ref.foot_position_m["right"])
    np.testing.assert_allclose(back.pelvis_quat_wxyz, ref.pelvis_quat_wxyz, atol=1e-15)
    np.testing.assert_allclose(back.body, ref.body)
    np.testing.assert_array_equal(back.in_stance["left"], ref.in_stance["left"])
    assert back.upper_joint_names == ref.upper_joint_names
    np.testing.assert_allclose(back.upper_joints_rad, ref.upper_joints_rad)
    np.testing.assert_allclose(conv.velocity_command_from_twist(conv.twist_from_velocity_command([0.1, -0.2, 0.3])),
                               [0.1, -0.2, 0.3])


@pytest.mark.parametrize("corrupt, error", [
    (lambda m: setattr(m.layout.dim[1], "label", m.layout.dim[1].label.replace("left_stance", "left_contact")),
     "columns must start with"),
    (lambda m: setattr(m.layout.dim[1], "label", m.layout.dim[1].label + ",tail"), "do not match"),
    (lambda m: setattr(m.layout.dim[0], "size", 3), "do not match"),
    (lambda m: setattr(m, "data", list(m.data)[:1] + [float("nan")] + list(m.data)[2:]), "non-finite"),
    (lambda m: setattr(m, "data", [-1.0] + list(m.data)[1:]), "t_s must be finite times"),
])
def test_a_malformed_gait_reference_is_refused_naming_the_field(corrupt, error):
    from biped_common.gait_reference import GaitReference
    robot = load_robot("biped")
    n = 4
    reference = GaitReference(1.0, 0.04 * np.arange(n), np.zeros((n, 3)), np.full(n, 0.5), np.tile([1.0, 0, 0, 0], (n, 1)),
                              {s: np.zeros((n, 3)) for s in ("left", "right")},
                              {s: np.tile([1.0, 0, 0, 0], (n, 1)) for s in ("left", "right")},
                              {s: np.ones(n, bool) for s in ("left", "right")})
    msg = conv.gait_reference_message(reference)
    conv.gait_reference_from_message(msg, robot)  # valid as built
    corrupt(msg)
    with pytest.raises(ValueError, match=error):
        conv.gait_reference_from_message(msg, robot)


def test_gait_reference_shapes_are_checked_at_construction():
    from biped_common.gait_reference import GaitReference
    n = 3
    with pytest.raises(ValueError, match=r"sole_position_m\[right\] must have shape \(3, 3\)"):
        GaitReference(0.0, np.arange(n) * 0.1, np.zeros((n, 3)), np.zeros(n), np.tile([1.0, 0, 0, 0], (n, 1)),
                      {"left": np.zeros((n, 3)), "right": np.zeros((n, 2))},
                      {s: np.tile([1.0, 0, 0, 0], (n, 1)) for s in ("left", "right")},
                      {s: np.ones(n, bool) for s in ("left", "right")})


def test_com_plan_round_trip():
    from biped_common.com_plan import ComPlan
    n = 6
    plan = ComPlan(2.5, 0.05, RNG.normal(size=(n + 1, 4)), RNG.normal(size=(n, 2)), 4.2, (1.25, -0.5))
    back = conv.com_plan_from_message(conv.com_plan_message(plan))
    assert back.disturbance_m_s2 == pytest.approx(plan.disturbance_m_s2, abs=1e-12)
    assert back.start_s == pytest.approx(plan.start_s) and back.dt_s == pytest.approx(plan.dt_s)
    assert back.omega_per_s == pytest.approx(plan.omega_per_s, rel=1e-12)
    np.testing.assert_allclose(back.states, plan.states, atol=1e-12)
    np.testing.assert_allclose(back.cop, plan.cop, atol=1e-12)
    msg = conv.com_plan_message(plan)
    data = np.frombuffer(msg.data).reshape(n + 1, len(conv.COM_PLAN_COLUMNS)).copy()
    data[:, 7] = -0.5
    msg.data = data.ravel().tolist()
    with pytest.raises(ValueError, match=r"CoM height must be in \(0.05, 10\) m"):
        conv.com_plan_from_message(msg)


def test_the_joint_state_check_remembers_valid_name_orders_but_checks_every_value():
    from sensor_msgs.msg import JointState
    robot = load_robot("biped")
    check = conv.joint_state_check(robot)
    msg = JointState(name=list(robot.joint_names), position=[0.0] * robot.n_joints, velocity=[0.0] * robot.n_joints)
    for _ in range(2):  # the second time from the remembered order
        check(msg)
    msg.position[2] = float("nan")
    with pytest.raises(ValueError, match="position: non-finite value at index 2"):
        check(msg)
    msg.position[2] = 9.0
    with pytest.raises(ValueError, match=rf"position\[2\] \({robot.joint_names[2]}\): 9 rad outside"):
        check(msg)
    msg.position[2] = 0.0
    msg.name[0] = msg.name[1]  # a new order (a duplicate): checked, refused, not remembered
    with pytest.raises(ValueError, match="duplicate"):
        check(msg)
    with pytest.raises(ValueError, match="duplicate"):
        check(msg)
    swapped = JointState(name=list(reversed(robot.joint_names)), position=[0.0] * robot.n_joints,
                         velocity=[0.0] * robot.n_joints)
    swapped.position[0] = 9.0  # the limits follow the order: the last joint's
    with pytest.raises(ValueError, match=rf"\({robot.joint_names[-1]}\)"):
        check(swapped)


def test_the_robot_pace_status_round_trips_and_warns_when_time_was_skipped():
    from sim_bridge.realtime_monitor import RealtimeSummary
    summary = RealtimeSummary(frames=1200, deadline_misses=3, latency_p50_ms=1.5, latency_p99_ms=3.0,
                              latency_max_ms=4.0, watchdog_trips=0, sim_over_wall=0.9991, late_ticks=7,
                              skipped_s=0.25)
    msg = conv.robot_pace_status_message(12.5, summary)
    assert conv.robot_pace_from_status(msg) == {"frames": 1200.0, "sim_over_wall": 0.9991, "late_ticks": 7.0,
                                                "skipped_s": 0.25}
    assert msg.status[0].level == msg.status[0].WARN
    assert conv.realtime_from_status(msg) is None  # a different status: the bridge's tally is not confused with it


def test_the_controller_status_says_walking_or_why_not_and_sits_beside_the_timing():
    msg = conv.timing_status_message(3.0, "wbc", [0.001, 0.002])
    msg.status.append(conv.controller_status("wbc", "no gait reference or CoM plan yet"))
    assert conv.controller_from_status(msg) == {"wbc": "stand controller: no gait reference or CoM plan yet"}
    assert msg.status[1].level == msg.status[1].WARN
    assert set(conv.timing_from_status(msg)) == {"wbc"}  # the timing reader is not confused by it
    walking = conv.controller_status("wbc", "")
    assert (walking.message, walking.level) == (conv.WALKING, walking.OK)
