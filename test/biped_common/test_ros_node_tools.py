"""Node helpers: parameters declared from a config dataclass, coerced and validated; log filter."""

import pytest
import rclpy
from rclpy.parameter import Parameter

from biped_common.errors import ConfigError
from biped_common.ros_node_tools import RepeatFilter, declare_config
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
