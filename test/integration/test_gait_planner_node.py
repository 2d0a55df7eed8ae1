"""The gait planner node over DDS: cmd_vel in, reference out; bad input and bad styles refused."""

import time

import numpy as np
import pytest
import yaml
from geometry_msgs.msg import Twist
from std_srvs.srv import Trigger
from std_msgs.msg import Float64MultiArray

from biped_common import conversions as conv
from biped_common.resources import styles_dir
from biped_common.robot_model import load_robot
from dds_helpers import Probe, Processes

pytestmark = pytest.mark.dds


def test_planner_node_serves_cmd_vel_and_keeps_its_style_on_a_bad_reload(tmp_path, ros_domain_id):
    style_file = tmp_path / "mine.yaml"
    style_file.write_text((styles_dir() / "neutral.yaml").read_text())
    processes = Processes(tmp_path)
    probe = Probe(ros_domain_id)
    try:
        node = processes.start_node("gait_planner", "gait_planner_node", "robot:=biped", f"style:={style_file}",
                                    "anchor_timeout_s:=0.5")  # no simulator here: plan from the origin
        received = {}
        robot = load_robot("biped")
        probe.node.create_subscription(Float64MultiArray, "/gait/reference", lambda m: received.__setitem__("ref", m), 10)
        cmd = probe.publisher(Twist, "/cmd_vel")
        start = time.monotonic()

        def walking_forward():
            cmd.publish(conv.twist_from_velocity_command([0.3, 0.0, 0.0]))
            if "ref" not in received:
                return False
            reference = conv.gait_reference_from_message(received["ref"], robot)
            return reference.sole_position_m["left"][-1, 0] > 0.3  # the preview walks forward
        assert probe.spin_until(walking_forward, timeout_s=40, alive=[node]), processes.output("gait_planner")
        reference = conv.gait_reference_from_message(received["ref"], robot)
        assert reference.times_s[-1] == pytest.approx(2.0)
        assert np.all(reference.in_stance["left"] | reference.in_stance["right"])

        bad = Twist()
        bad.linear.x = float("nan")
        cmd.publish(bad)
        style_file.write_text(yaml.safe_dump({"name": "broken", "samples": {}}))
        client = probe.node.create_client(Trigger, "/gait_planner/reload_style")
        assert client.wait_for_service(timeout_sec=20)
        future = client.call_async(Trigger.Request())
        assert probe.spin_until(future.done, timeout_s=20, alive=[node])
        assert not future.result().success and "samples.forward_fast: is required" in future.result().message
        probe.spin_until(lambda: False, timeout_s=1.5)  # no cmd_vel now: the planner stops
        log = processes.output("gait_planner")
        assert "refused /cmd_vel" in log and "non-finite" in log
        assert "style not loaded, keeping 'neutral'" in log
        assert "no cmd_vel for 0.5 s: stopping" in log
        assert node.poll() is None
        assert time.monotonic() - start < 60
    finally:
        processes.stop_all()
        probe.close()
