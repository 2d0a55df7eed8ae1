"""The arm-angle model: the criterion's torques are the potential's gradient, the optimization
finds its minimum, the shipped MLP beats the least-squares baseline on held-out poses, model
files round-trip and bad ones give a clear error (the caller falls back to the optimization),
and ``reach eval`` writes its metrics."""

import json
import math

import numpy as np
import pytest

from biped_common.resources import arm_angle_model
from biped_stack.reach_tools import evaluate
from reach_planner_node.arm import Arm
from reach_planner_node.arm_angle import (SEGMENTS, ArmAngleMlp, LeastSquares, effort, errors, features,
                                          generate_training_set, gravity_torques, human_arm_angle,
                                          load_model_or_none, optimal_arm_angle, train_mlp)

ARM = Arm()
POSTURE = np.deg2rad([-30, -80, -20, -60, 90, 90, 0])


def test_gravity_torques_are_the_gradient_of_the_potential_energy():
    def potential(q):
        p = ARM.forward(q)
        ends = ((np.zeros(3), p.elbow), (p.elbow, p.wrist), (p.wrist, p.hand))
        return sum(m * 70 * 9.81 * (a + c * (b - a))[2] for (m, c), (a, b) in zip(SEGMENTS, ends))
    gradient = [(potential(POSTURE + h) - potential(POSTURE - h)) / 2e-6 for h in np.eye(7) * 1e-6]
    np.testing.assert_allclose(gravity_torques(ARM, POSTURE), gradient, atol=1e-6)


def test_the_optimization_finds_the_least_effort_arm_angle():
    pose = ARM.forward(POSTURE)
    best = optimal_arm_angle(ARM, pose.hand, pose.hand_rotation)
    cost = effort(ARM, pose.hand, pose.hand_rotation, best)
    for phi in np.linspace(-math.pi, math.pi, 361):
        assert effort(ARM, pose.hand, pose.hand_rotation, phi) >= cost - 1e-9


def test_shipped_mlp_beats_least_squares_on_held_out_poses():
    model = ArmAngleMlp.load(arm_angle_model())
    held_out = generate_training_set(60, seed=99, progress=lambda m: None)
    mlp = errors(model.predict(held_out.inputs), held_out.arm_angles)
    baseline = errors(LeastSquares(np.array(model.metadata["least_squares_coefficients"])).predict(held_out.inputs),
                      held_out.arm_angles)
    assert mlp["mae"] < baseline["mae"] and mlp["rmse"] < baseline["rmse"]
    assert mlp["rmse"] >= mlp["mae"] and baseline["rmse"] >= baseline["mae"]


def test_model_files_round_trip_and_bad_ones_fall_back(tmp_path):
    tiny = generate_training_set(40, seed=3, progress=lambda m: None)
    model = train_mlp(tiny, hidden=(8,))
    path = model.save(tmp_path / "m.npz")
    again = ArmAngleMlp.load(path)
    np.testing.assert_allclose(again.predict(tiny.inputs), model.predict(tiny.inputs), atol=1e-12)
    assert again.metadata["samples"] == 40 and again.metadata["features"][-2:] == ["upper_arm_m", "forearm_m"]
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    messages = []
    assert load_model_or_none(tmp_path / "junk.npz", messages.append) is None
    assert load_model_or_none(tmp_path / "missing.npz", messages.append) is None
    assert all("using the optimization instead" in m for m in messages) and len(messages) == 2
    pose = ARM.forward(POSTURE)
    assert human_arm_angle(ARM, pose.hand, pose.hand_rotation, None) == pytest.approx(
        optimal_arm_angle(ARM, pose.hand, pose.hand_rotation))
    assert features(pose.hand, pose.hand_rotation, ARM).shape == (8,)


def test_reach_eval_writes_its_metrics(tmp_path):
    assert evaluate(str(tmp_path), targets=100, held_out=40) == 0
    metrics = json.loads((tmp_path / "reach_metrics.json").read_text())
    assert metrics["max_path_deviation_m"] <= 1e-3
    assert metrics["max_final_error_m"] <= 1e-3 and metrics["max_final_error_deg"] <= 1.0
    assert set(metrics["mlp"]) == {"mae", "rmse"} and set(metrics["least_squares"]) == {"mae", "rmse"}
    assert metrics["mlp_speedup"] > 0
    assert (tmp_path / "hand_paths.png").exists() and (tmp_path / "speed_profiles.png").exists()


def write_markers(path, rng, frames=150):
    """Markers from our own arm's forward kinematics (varied segment lengths), 002's format."""
    from reach_planner_node.arm_angle import NATURAL_POSTURES_DEG
    low, high = np.deg2rad(np.array(NATURAL_POSTURES_DEG, dtype=float)).T
    truth = []
    lines = ["time," + ",".join(f"{m}_{a}" for m in ("shoulder", "elbow", "wrist", "hand") for a in "xyz")]
    for k in range(frames):
        arm = Arm(rng.uniform(0.28, 0.34), rng.uniform(0.22, 0.27), 0.08)
        q = rng.uniform(low, high)
        pose = arm.forward(q)
        truth.append(arm.arm_angle(q))
        points = [pose.shoulder, pose.elbow, pose.wrist, pose.hand]
        lines.append(f"{k * 0.01:.2f}," + ",".join(f"{v:.12f}" for p in points for v in p))
    path.write_text("\n".join(lines) + "\n")
    return np.array(truth)


def test_markers_in_002s_format_give_the_arm_angle_and_retrain(tmp_path):
    from biped_stack.cli import main
    from reach_planner_node.arm_angle import marker_training_set
    truth = write_markers(tmp_path / "markers.csv", np.random.default_rng(21))
    recorded = marker_training_set(tmp_path / "markers.csv")
    np.testing.assert_allclose(recorded.arm_angles, truth, atol=1e-9)
    assert main(["reach", "train", "--data", str(tmp_path / "markers.csv"), "--out", str(tmp_path / "mine.npz")]) == 0
    assert ArmAngleMlp.load(tmp_path / "mine.npz").metadata["source"].endswith("markers.csv")
    (tmp_path / "bad.csv").write_text("time,shoulder_x\n0,0\n")
    assert main(["reach", "train", "--data", str(tmp_path / "bad.csv"), "--out", str(tmp_path / "x.npz")]) == 1
