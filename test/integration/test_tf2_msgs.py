"""Issue #19 bar 4: tf2_msgs, built from its definition at install time on a pip-only machine
(biped_stack/ros_interfaces.py), is a working ROS 2 interface: importable here, present for the
builder (nothing rebuilt), and its messages cross processes over DDS intact."""

import sys
import time

import pytest
import rclpy
from rclpy.experimental import EventsExecutor
from rclpy.qos import QoSProfile, ReliabilityPolicy

from biped_stack import ros_interfaces
from dds_helpers import Processes

pytestmark = pytest.mark.dds

PUBLISHER = """
import time, rclpy
from tf2_msgs.msg import TFMessage
from geometry_msgs.msg import TransformStamped
rclpy.init()
node = rclpy.create_node("tf_publisher")
pub = node.create_publisher(TFMessage, "/tf", 10)
for k in range(400):
    t = TransformStamped()
    t.header.frame_id, t.child_frame_id = "odom", "pelvis"
    t.header.stamp.sec, t.header.stamp.nanosec = 7, k
    t.transform.translation.x, t.transform.rotation.w = 0.25 * k, 1.0
    pub.publish(TFMessage(transforms=[t, t]))
    time.sleep(0.05)
"""


def test_tf2_msgs_is_present_and_not_rebuilt():
    assert ros_interfaces.ensure(log=lambda m: pytest.fail(f"rebuilt: {m}")) == {"tf2_msgs": "present"}


def test_tf_messages_cross_processes(tmp_path, ros_domain_id):
    from tf2_msgs.msg import TFMessage
    processes = Processes(tmp_path)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=ros_domain_id)
    node = rclpy.create_node("tf_probe", context=context)
    executor = EventsExecutor(context=context)
    executor.add_node(node)
    received = []
    node.create_subscription(TFMessage, "/tf", received.append, QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE))
    try:
        publisher = processes.start("tf_publisher", [sys.executable, "-c", PUBLISHER])
        deadline = time.monotonic() + 30.0
        while len(received) < 3 and time.monotonic() < deadline and publisher.poll() is None:
            executor.spin_once(timeout_sec=0.05)
        assert len(received) >= 3, processes.output("tf_publisher")[-2000:]
        msg = received[-1]
        assert len(msg.transforms) == 2
        t = msg.transforms[0]
        assert (t.header.frame_id, t.child_frame_id, t.header.stamp.sec) == ("odom", "pelvis", 7)
        assert t.transform.translation.x == pytest.approx(0.25 * t.header.stamp.nanosec)
    finally:
        processes.stop_all()
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=context)
