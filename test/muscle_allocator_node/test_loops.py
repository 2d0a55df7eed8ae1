"""Muscles in the loop: source 000's single-joint demo, and MuJoCo's MyoElbow (myo-sim) driven only
by our activations — minimum-jerk tracking, and postures held open loop."""

import mujoco
import numpy as np
import pytest

from muscle_allocator_node import allocate
from muscle_allocator_node.activation import DEFAULT_TIMES
from muscle_allocator_node.mujoco_muscles import MujocoMuscles, myo_model_path
from muscle_allocator_node.single_joint import run
from muscle_allocator_node.tracking import _inverse_dynamics, minimum_jerk, track_joint_reference


@pytest.fixture(scope="module")
def elbow():
    return mujoco.MjModel.from_xml_path(str(myo_model_path("legacy/elbow/myoelbow_1dof6muscles.xml")))


def test_source_000_single_joint_demo():
    result = run()
    error = result.angle_rad - result.reference_rad
    assert np.sqrt(np.mean(error**2)) < 0.02
    assert np.all((result.activations >= 0.02 - 1e-12) & (result.activations <= 1.0))
    # No step faster than the quickest activation dynamics allow (τ_act at a = 0, 0.5 ms steps).
    fastest = 1.0 - np.exp(-0.0005 / (0.5 * DEFAULT_TIMES.activation_s))
    assert np.abs(np.diff(result.activations, axis=0)).max() <= fastest + 1e-12
    assert np.abs(result.residual_nm).max() < 1e-3 * np.abs(result.torque_nm).max()


def test_our_muscle_state_gives_mujocos_actuator_torque(elbow):
    data = mujoco.MjData(elbow)
    muscles = MujocoMuscles(elbow)
    rng = np.random.default_rng(4)
    for _ in range(50):
        data.qpos[:] = rng.uniform(*elbow.jnt_range[0])
        data.qvel[:] = rng.uniform(-3, 3)
        data.act[:] = rng.uniform(0, 1, elbow.nu)
        mujoco.mj_forward(elbow, data)
        state = muscles.state(data)
        torque = state.moment_arms @ (data.act * state.active_force + state.passive_force)
        np.testing.assert_allclose(torque, data.qfrc_actuator, rtol=1e-9, atol=1e-12)


def test_myoelbow_tracks_a_minimum_jerk_motion_on_our_activations(elbow):
    log = track_joint_reference(elbow, minimum_jerk(0.2, 1.6, 1.0), 2.0).arrays()
    error = log["position_rad"][:, 0] - log["reference_rad"][:, 0]
    assert np.sqrt(np.mean(error**2)) < 0.03
    assert set(log["status"]) == {"optimal"}
    assert np.all((log["activations"] >= 0) & (log["activations"] <= 1))


@pytest.mark.parametrize("angle", [0.3, 0.9, 1.5, 2.0])
def test_myoelbow_holds_postures_open_loop_on_our_activations(elbow, angle):
    """Activations for the torque that holds the posture still (gravity, passive forces) give
    MuJoCo's forward dynamics q̈ ≈ 0 there (1e-14 measured), and held as constant controls they
    keep it within 0.02 rad for a second (measured: ≤ 9 mrad, settling)."""
    data = mujoco.MjData(elbow)
    data.qpos[:] = angle
    mujoco.mj_forward(elbow, data)
    state = MujocoMuscles(elbow).state(data)
    torque = _inverse_dynamics(elbow, data, np.zeros(elbow.nv))
    allocation = allocate(state.moment_arms, state.active_force, state.passive_force, torque)
    assert allocation.status == "optimal"
    data.act[:] = data.ctrl[:] = allocation.activations
    mujoco.mj_forward(elbow, data)
    assert abs(data.qacc[0]) < 1e-6
    for _ in range(500):  # 1 s open loop
        mujoco.mj_step(elbow, data)
        assert abs(data.qpos[0] - angle) < 0.02
