"""Node helpers: parameters declared from a config dataclass, coerced and validated; log filter."""

import pytest
import rclpy
from rclpy.parameter import Parameter

from biped_common.errors import ConfigError
from biped_common.rates import PLANNING_RATE_HZ
from biped_common.ros_node_tools import GuardedNode, RefusalLog, RepeatFilter, declare_config, declare_section
from gait_planner_node.feedback import FeedbackConfig
from sim_bridge.bridge import BridgeConfig


@pytest.fixture
def make_node(ros_domain_id):
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=ros_domain_id)
    nodes = []

    def make(**overrides):
        node = rclpy.create_node("params_test", context=context,
                                 parameter_overrides=[Parameter(k, value=v) for k, v in overrides.items()])
        nodes.append(node)
        return node
    yield make
    for node in nodes:
        node.destroy_node()
    rclpy.shutdown(context=context)


def test_defaults_and_coercion(make_node):
    config = declare_config(make_node(control_rate_hz=250, gyro_bias_rad_s=[0.1, 0.0, 0.0]), BridgeConfig)
    assert config.control_rate_hz == 250.0 and isinstance(config.control_rate_hz, float)
    assert config.gyro_bias_rad_s == (0.1, 0.0, 0.0)
    assert config.timing_mode == "lockstep"


@pytest.mark.parametrize("overrides, field", [
    ({"control_rate_hz": "fast"}, "control_rate_hz"),
    ({"control_rate_hz": 5000.0}, "control_rate_hz"),
    ({"timing_mode": "fast"}, "timing_mode"),
    ({"publish_ground_truth": 1}, "publish_ground_truth"),
])
def test_bad_parameters_name_the_field(make_node, overrides, field):
    with pytest.raises(ConfigError) as error:
        declare_config(make_node(**overrides), BridgeConfig)
    assert error.value.field == field


def test_repeat_filter_passes_new_messages_and_drops_repeats():
    seen = []
    log = RepeatFilter(seen.append, period_s=60.0)
    for message in ["a", "a", "b", "a"]:
        log(message)
    assert seen == ["a", "b"]


def test_repeat_filters_of_one_node_log_at_several_severities(make_node):
    """rclpy refuses a second severity from one call site: the gait planner's first error after a
    warning (both through RepeatFilter) raised inside its tick."""
    node = make_node()
    warn, error = RepeatFilter(node.get_logger().warning), RepeatFilter(node.get_logger().error)
    for k in range(3):
        warn(f"warning {k}")
        error(f"error {k}")


def test_a_section_of_parameters_defaults_to_its_dataclass_and_is_validated(make_node):
    shipped = FeedbackConfig.load()
    config = declare_section(make_node(**{"feedback.step_gain": 0.5}), "feedback", shipped)
    assert config.step_gain == 0.5 and config.max_stride_m == shipped.max_stride_m
    with pytest.raises(ConfigError) as error:
        declare_section(make_node(**{"feedback.kappa_max": 9.0}), "feedback", shipped)
    assert error.value.field == "feedback.kappa_max"


def test_the_wbc_gain_schedule_is_a_section_of_parameters(make_node):
    """wbc_node's recovery.* parameters (wbc_node.recovery.RecoverySchedule, a str field among
    the floats) default to the gains file's block and are validated."""
    from biped_common.resources import params_file
    from wbc_node.recovery import ScheduledGains
    shipped = ScheduledGains.load(params_file("wbc_style_first.yaml")).schedule
    schedule = declare_section(make_node(**{"recovery.hold_s": 2.0}), "recovery", shipped)
    assert schedule.hold_s == 2.0 and schedule.gains_file == shipped.gains_file == "wbc.yaml"
    with pytest.raises(ConfigError, match="disturbance_full_m_s2"):
        declare_section(make_node(**{"recovery.disturbance_full_m_s2": 0.1}), "recovery", shipped)


def test_refusal_log_reports_the_first_at_once_and_counts_the_rest():
    lines, now = [], [0.0]
    log = RefusalLog(lines.append, period_s=1.0, clock=lambda: now[0])
    for k in range(5):
        log("/imu", f"orientation: bad {k}")
    assert len(lines) == 1 and "refused /imu: orientation: bad 0" in lines[0]
    now[0] = 1.5
    log.flush()
    assert "refused /imu 4 more time(s) since the last report" in lines[1]
    log("/imu", "again")
    assert len(lines) == 2  # within the period of the flush line: counted
    now[0] = 3.0
    log("/imu", "later")
    assert "(+1 more refused since the last report)" in lines[2]
    assert log.counts["/imu"] == 7


def test_no_exception_escapes_a_guarded_callback(ros_domain_id):
    from std_msgs.msg import String
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=ros_domain_id)
    node = GuardedNode("guarded_test", context=context)
    try:
        logged = []
        node.refuse = RefusalLog(lambda m: logged.append(m))
        node._log_failure = RepeatFilter(lambda m: logged.append(m))
        received = []

        def check(msg):
            if msg.data == "bad":
                raise ValueError("data: bad")

        def callback(msg):
            if msg.data == "bug":
                raise ZeroDivisionError("a bug")
            received.append(msg.data)
        subscription = node.subscribe(String, "/t", callback, 10, check=check, max_age_s=None)
        for data in ("ok", "bad", "bug", "ok2"):
            subscription.callback(String(data=data))  # what the executor calls
        assert received == ["ok", "ok2"]
        assert any("refused /t: data: bad" in m for m in logged)
        assert any("callback of /t failed (ZeroDivisionError" in m and "input: std_msgs.msg.String(data='bug')" in m
                   for m in logged)
        timer = node.create_timer(10.0, lambda: 1 / 0)
        timer.callback()  # logged, not raised
        assert any("timer" in m and "ZeroDivisionError" in m for m in logged)
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)


def test_parameters_are_read_only_unless_live_and_live_ones_are_validated(make_node):
    from gait_planner_node.node import GaitNodeConfig
    node = make_node()
    applied = []

    def apply_style(value):
        applied.append(value)
        return (False, "no such style") if value == "missing" else (True, "")
    config = declare_config(node, GaitNodeConfig, live={"style": apply_style})
    assert config.rate_hz == PLANNING_RATE_HZ
    results = node.set_parameters([Parameter("rate_hz", value=-5.0), Parameter("style", value=7),
                                   Parameter("style", value="missing"), Parameter("style", value="bouncy")])
    assert [r.successful for r in results] == [False, False, False, True]
    assert "read-only" in results[0].reason and "expected a str" in results[1].reason
    assert results[2].reason == "no such style"
    assert node.get_parameter("rate_hz").value == PLANNING_RATE_HZ and node.get_parameter("style").value == "bouncy"
    assert applied == ["missing", "bouncy"]  # a wrong type never reaches the node's handler


def test_node_configs_bound_their_values():
    from gait_planner_node.node import GaitNodeConfig
    from wbc_node.node import WbcNodeConfig
    with pytest.raises(ConfigError, match="rate_hz"):
        GaitNodeConfig(rate_hz=0.0)
    with pytest.raises(ConfigError, match="mode"):
        WbcNodeConfig(mode="dance")


def test_a_latest_reader_returns_the_newest_valid_message_and_refuses_bad_ones(ros_domain_id):
    """A LatestReader takes only the newest message when asked (older ones are superseded in
    its depth-1 queue), checks it, and keeps the previous one when the newest is refused."""
    import time

    from std_msgs.msg import Header

    from biped_common.ros_node_tools import LATEST_QOS, LatestReader
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=ros_domain_id)
    owner = GuardedNode("latest_reader_test", context=context)
    sender = rclpy.create_node("latest_reader_sender", context=context)
    try:
        logged = []
        owner.refuse = RefusalLog(lambda m: logged.append(m))

        def check(msg):
            if msg.frame_id == "bad":
                raise ValueError("frame_id: bad")
        reader = LatestReader(owner, Header, "/latest_t", check=check, max_age_s=None)
        publisher = sender.create_publisher(Header, "/latest_t", LATEST_QOS)

        def read_after(*frame_ids):
            for frame_id in frame_ids:
                publisher.publish(Header(frame_id=frame_id))
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:  # delivery is asynchronous (DDS threads)
                value = reader.latest()
                if value is not None and value.frame_id == frame_ids[-1]:
                    return value
                if logged and frame_ids[-1] == "bad":
                    return value
                time.sleep(0.01)
            return reader.latest()
        assert reader.latest() is None
        deadline = time.monotonic() + 10.0
        while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert read_after("a", "b", "c").frame_id == "c"   # the newest; a and b were superseded
        assert read_after("bad").frame_id == "c"           # refused: the previous one stays
        assert any("refused /latest_t: frame_id: bad" in m for m in logged)
        assert read_after("d").frame_id == "d"
    finally:
        sender.destroy_node()
        owner.destroy_node()
        rclpy.shutdown(context=context)


def test_realtime_priority_puts_every_thread_under_sched_fifo_or_warns(make_node, monkeypatch):
    import os
    from biped_common.ros_node_tools import apply_scheduling
    calls = []
    monkeypatch.setattr(os, "sched_setscheduler", lambda tid, policy, param: calls.append((tid, policy, param.sched_priority)))
    apply_scheduling(make_node())  # 0: the default scheduler, untouched
    assert calls == []
    apply_scheduling(make_node(realtime_priority=50))
    threads = {int(t) for t in os.listdir("/proc/self/task")}
    assert {c[0] for c in calls} == threads and {c[1:] for c in calls} == {(os.SCHED_FIFO, 50)}

    def refuse(*args):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    warnings = []
    node = make_node(realtime_priority=50)
    monkeypatch.setattr(node, "get_logger", lambda: type("L", (), {"warning": warnings.append, "info": print})())
    apply_scheduling(node)  # not permitted: a warning that says how to allow it, and the node runs on
    assert len(warnings) == 1 and "rtprio" in warnings[0] and "not permitted" in warnings[0]
    with pytest.raises(ConfigError, match="realtime_priority"):
        apply_scheduling(make_node(realtime_priority=120))
