"""Stand controller: gravity compensation is the static equilibrium, and both robots stand."""

import numpy as np
import pinocchio as pin
import pytest

from biped_common.state import Push
from biped_stack.lockstep import LockstepSimulation, pelvis_heights_m
from sim_bridge.commands import CommandMode
from wbc_node.stand import StandController


def test_gravity_compensation_balances_gravity_with_contact_forces(robot):
    controller = StandController(robot)
    q_joints = robot.standing_posture_rad
    tau = controller.gravity_compensation(np.array([1.0, 0, 0, 0]), q_joints)
    model, data = robot.pin_model, robot.pin_model.createData()
    q = robot.pinocchio_configuration(np.zeros(3), np.array([1.0, 0, 0, 0]), q_joints)
    gravity = pin.computeGeneralizedGravity(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    jc = np.vstack([pin.getFrameJacobian(model, data, model.getFrameId(f.sole_site), pin.LOCAL)
                    for f in robot.description.feet.values()])
    # Some contact wrenches f exist with g = Sᵀτ + J_cᵀ f.
    f = np.linalg.lstsq(jc.T, gravity - np.concatenate([np.zeros(6), tau]), rcond=None)[0]
    np.testing.assert_allclose(jc.T @ f + np.concatenate([np.zeros(6), tau]), gravity, atol=1e-9)
    vertical = sum(f[i * 6 + 2] for i in range(2))
    assert vertical == pytest.approx(robot.mass_kg * 9.81, rel=1e-6)


def test_stands_ten_seconds_within_two_centimetres(robot):
    sim = LockstepSimulation(robot)
    records = sim.run(10.0)
    heights = pelvis_heights_m(records)
    assert np.max(np.abs(heights - robot.nominal_pelvis_height_m)) < 0.02
    assert all(r.mode == CommandMode.COMMAND for r in records)
    assert sim.backend.body_contacts_other_than_feet() == []


def test_recovers_from_a_push():
    sim = LockstepSimulation("humanoid")
    records = sim.run(3.0, pushes=(Push("pelvis", np.array([15.0, 0, 0]), np.zeros(3), 1.0, 0.2),))
    assert pelvis_heights_m(records).min() > 0.9 * sim.robot.nominal_pelvis_height_m
    assert sim.backend.body_contacts_other_than_feet() == []


def test_watchdog_damps_within_50_ms_when_the_controller_stops():
    stopped_at_s = 1.0
    stand = StandController_for("biped")
    sim = LockstepSimulation("biped", controller=lambda f: stand(f) if f.stamp_s < stopped_at_s else None)
    records = sim.run(1.2)
    last_command = max(r.stamp_s for r in records if r.stamp_s < stopped_at_s)
    first_damping = min(r.stamp_s for r in records if r.mode == CommandMode.DAMPING)
    assert 0.0 < first_damping - last_command <= 0.05
    assert all(r.mode == CommandMode.DAMPING for r in records if r.stamp_s >= first_damping)


def StandController_for(name):
    from biped_common.robot_model import load_robot
    return StandController(load_robot(name)).command
