"""config/rviz/biped_stack.rviz (rviz is not installable here): valid YAML, world as the fixed
frame, and every topic a display reads is one the stack publishes, with the QoS it is published
with (a latched /robot_description needs a transient-local subscriber)."""

import yaml

from biped_common.resources import share_file

PUBLISHED = {"/robot_description": "Transient Local", "/gait/markers": "Volatile", "/mpc/markers": "Volatile"}


def test_the_rviz_config_shows_the_robot_tf_and_markers_of_the_stack():
    config = yaml.safe_load(share_file("config", "rviz", "biped_stack.rviz").read_text())
    manager = config["Visualization Manager"]
    assert manager["Global Options"]["Fixed Frame"] == "world"
    displays = {d["Class"].split("/")[-1]: d for d in manager["Displays"]}
    assert {"RobotModel", "TF", "MarkerArray"} <= set(displays)
    topics = {}
    for display in manager["Displays"]:
        topic = display.get("Topic") or display.get("Description Topic")
        if topic:
            topics[topic["Value"]] = topic["Durability Policy"]
    assert topics == PUBLISHED
