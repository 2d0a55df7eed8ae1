"""Muscles over real DDS: ``muscle_sim`` (MyoElbow) and ``muscle_allocator_node`` as processes;
the test closes the loop with a PD + gravity-compensating torque setpoint and checks that the
elbow, driven only by the allocator's activations, reaches and holds the target; a bad
activation message is refused by the simulator, not fatal."""

import numpy as np
import pytest
from sensor_msgs.msg import JointState

from biped_common import conversions as conv
from muscle_allocator_node.mujoco_muscles import load_model
from dds_helpers import Probe, Processes
from muscle_allocator_node.tracking import _inverse_dynamics

pytestmark = pytest.mark.dds
TARGET_RAD = 1.2


def test_elbow_reaches_a_target_on_activations_over_dds(tmp_path, ros_domain_id):
    import mujoco
    processes, probe = Processes(tmp_path), Probe(ros_domain_id)
    try:
        sim = processes.start_node("muscle_sim", "muscle_sim", "model:=myoelbow")
        allocator = processes.start_node("muscle_allocator", "muscle_allocator_node", "model:=myoelbow")
        model = load_model("myoelbow")
        data = mujoco.MjData(model)
        setpoints = probe.publisher(JointState, "/muscles/torque_setpoint")
        bad = probe.publisher(JointState, "/muscles/activations")
        seen = {"states": [], "activations": 0}

        def on_state(msg):
            q, v = msg.position[0], msg.velocity[0]
            seen["states"].append((conv.stamp_to_seconds(msg.header.stamp), q))
            data.qpos[0], data.qvel[0] = q, v
            mujoco.mj_forward(model, data)
            # Critically damped PD towards the target as an acceleration, through inverse dynamics.
            torque = _inverse_dynamics(model, data, np.array([100.0 * (TARGET_RAD - q) - 20.0 * v]))
            setpoints.publish(conv.torque_setpoint_message(conv.stamp_to_seconds(msg.header.stamp), msg.name, torque))

        probe.node.create_subscription(JointState, "/joint_states", on_state, 10)
        probe.node.create_subscription(JointState, "/muscles/activations",
                                       lambda m: seen.__setitem__("activations", seen["activations"] + 1), 10)
        assert probe.spin_until(lambda: seen["activations"] > 50, timeout_s=60, alive=[sim, allocator]), \
            processes.output("muscle_sim")[-2000:] + processes.output("muscle_allocator")[-2000:]
        refusal = "activations refused: unknown muscles: no_such_muscle"
        for _ in range(10):  # one message may go before discovery has matched the sim's subscription
            bad.publish(conv.muscle_activations_message(0.0, ["no_such_muscle"], [0.5]))
            if probe.spin_until(lambda: refusal in processes.output("muscle_sim"), timeout_s=1.0, alive=[sim, allocator]):
                break
        start = seen["states"][-1][0]
        assert probe.spin_until(lambda: seen["states"][-1][0] - start > 3.0, timeout_s=90, alive=[sim, allocator])
        final = np.array([q for t, q in seen["states"] if t > seen["states"][-1][0] - 0.5])
        assert np.all(np.abs(final - TARGET_RAD) < 0.05), final[-5:]
        assert refusal in processes.output("muscle_sim")
        assert processes.stop("muscle_allocator") == 0 and processes.stop("muscle_sim") == 0
    finally:
        processes.stop_all()
        probe.close()
