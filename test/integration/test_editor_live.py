"""The editor attached to a running gait planner over DDS (issue #17, live): an edit that raises
forward_slow's swing height 2 cm passes the shadow check and the running planner's reference
lifts its feet 2 cm higher; an edit that falls in the shadow check is refused with the reason and
the planner keeps walking the style it had. The planner keeps receiving /cmd_vel throughout.
"""

import threading

import pytest
from geometry_msgs.msg import Twist
from std_msgs.msg import Float64MultiArray

from biped_common import conversions as conv
from biped_common.errors import BipedStackError
from biped_common.robot_model import load_robot
from biped_stack.editor.app import make_app
from dds_helpers import Probe, Processes

pytestmark = pytest.mark.dds
WALK = [0.3, 0.0, 0.0]  # forward_slow's key velocity: the planner walks that sample alone


def reference_apex_m(message, robot) -> float:
    """The highest planned sole over the reference's 2 s preview [m]."""
    reference = conv.gait_reference_from_message(message, robot)
    return float(max(reference.sole_position_m[side][:, 2].max() for side in ("left", "right")))


def in_background(call):
    """Run ``call`` in a thread (the probe keeps spinning and commanding meanwhile); returns the
    thread and a dict its result or exception lands in."""
    out = {}

    def target():
        try:
            out["result"] = call()
        except BipedStackError as exc:
            out["error"] = exc
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, out


def test_an_edit_reaches_the_running_planner_and_a_falling_one_is_refused(tmp_path, ros_domain_id):
    robot = load_robot("biped")
    processes = Processes(tmp_path)
    probe = Probe(ros_domain_id)
    app = None
    try:
        node = processes.start_node("gait_planner", "gait_planner_node", "robot:=biped", "style:=neutral",
                                    "anchor_timeout_s:=0.5")
        latest = {}
        probe.node.create_subscription(Float64MultiArray, "/gait/reference", lambda m: latest.__setitem__("ref", m), 10)
        cmd = probe.publisher(Twist, "/cmd_vel")

        def walking_with_apex(condition):
            cmd.publish(conv.twist_from_velocity_command(WALK))
            if "ref" not in latest:
                return False
            reference = conv.gait_reference_from_message(latest["ref"], robot)
            return reference.sole_position_m["left"][-1, 0] > 0.3 and condition(reference_apex_m(latest["ref"], robot))

        assert probe.spin_until(lambda: walking_with_apex(lambda apex: True), timeout_s=40, alive=[node]), \
            processes.output("gait_planner")
        probe.spin_until(lambda: False, timeout_s=1.0)
        before = reference_apex_m(latest["ref"], robot)
        assert before == pytest.approx(0.055, abs=0.003)  # neutral's forward_slow knot

        app = make_app("neutral", robot="biped", save_path=tmp_path / "unused.yaml", attach=True)
        app.document.apply("forward_slow", {"swing.height_m": [[0.45, 0.075]]})
        thread, out = in_background(lambda: app.apply_live("forward_slow"))
        probe.spin_until(lambda: walking_with_apex(lambda apex: True) and not thread.is_alive(), timeout_s=120)
        assert "result" in out, out
        assert out["result"]["ok"] and "sent to /gait_planner" in out["result"]["message"]
        assert out["result"]["message"].count("[") == 3  # the sample's velocity and halfway to both neighbours
        assert probe.spin_until(lambda: walking_with_apex(lambda apex: apex > before + 0.015), timeout_s=10,
                                alive=[node]), processes.output("gait_planner")
        raised = reference_apex_m(latest["ref"], robot)
        assert raised - before == pytest.approx(0.02, abs=0.003)

        # Feet landing 69° toes-up and lifting off 69° heel-up: legal in the file format, but the
        # biped falls within two seconds of walking it.
        app.document.apply("forward_slow", {"attributes.heel_strike_pitch_rad": -1.2, "attributes.toe_off_pitch_rad": 1.2,
                                            "attributes.heel_rolldown_fraction": 0.5, "attributes.toe_rollup_fraction": 0.5})
        thread, out = in_background(lambda: app.apply_live("forward_slow"))
        probe.spin_until(lambda: walking_with_apex(lambda apex: True) and not thread.is_alive(), timeout_s=120)
        assert "error" in out, out
        assert "the robot falls" in str(out["error"]) and "keeps its style" in str(out["error"])
        assert probe.spin_until(lambda: walking_with_apex(lambda apex: abs(apex - raised) < 0.002), timeout_s=5,
                                alive=[node])
        log = processes.output("gait_planner")
        assert log.count("style loaded") == 1, log
        assert node.poll() is None
    finally:
        if app is not None and app.live is not None:
            app.live.close()
        processes.stop_all()
        probe.close()
