"""``biped-stack reach …``: train the arm-angle model, and evaluate reach plans and the model."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from biped_common.resources import arm_angle_model



def train(out: str, samples: int = 1500, data: str | None = None, seed: int = 0) -> int:
    """Generate (or, with ``data``, read) the training set, fit the MLP, save it with its metadata."""
    from reach_planner_node.arm_angle import (LeastSquares, errors, generate_training_set, marker_training_set,
                                              train_mlp, TrainingSet)
    if data is not None:
        try:
            recorded = marker_training_set(data)
        except (OSError, ValueError) as error:
            print(f"error: {error}")
            return 1
        # Every fifth frame held out (recorded frames are correlated in time: no shuffling).
        mask = np.arange(recorded.arm_angles.size) % 5 == 4
        training = TrainingSet(recorded.inputs[~mask], recorded.arm_angles[~mask])
        held_out = TrainingSet(recorded.inputs[mask], recorded.arm_angles[mask])
        print(f"{recorded.arm_angles.size} recorded frames from {data}: {held_out.arm_angles.size} held out")
    else:
        print(f"optimal arm angles for {samples} training and {samples // 5} held-out poses (≈ 25 ms each):")
        training = generate_training_set(samples, seed=seed)
        held_out = generate_training_set(samples // 5, seed=seed + 1, progress=lambda m: None)
    model = train_mlp(training)
    model.metadata["source"] = str(data) if data is not None else "generated (minimum gravity torques)"
    baseline = LeastSquares.fit(training)
    model.metadata["least_squares_coefficients"] = baseline.coefficients.tolist()
    model.metadata["held_out"] = {"mlp": errors(model.predict(held_out.inputs), held_out.arm_angles),
                                  "least_squares": errors(baseline.predict(held_out.inputs), held_out.arm_angles),
                                  "samples": int(held_out.arm_angles.size)}
    path = model.save(out)
    print(f"held-out MAE/RMSE: MLP {model.metadata['held_out']['mlp']}, least squares "
          f"{model.metadata['held_out']['least_squares']}; wrote {path}")
    return 0


def evaluate(out: str, model_path: str | None = None, targets: int = 100, held_out: int = 200, seed: int = 7) -> int:
    """The kinematic bars on ``targets`` random targets, the held-out model comparison and the
    MLP's speed-up over the optimization → ``out/reach_metrics.json`` and plots."""
    from biped_common.rotations import so3_log
    from reach_planner_node.arm import Arm
    from reach_planner_node.arm_angle import (LeastSquares, errors, features, generate_training_set, load_model_or_none,
                                              optimal_arm_angle, NATURAL_POSTURES_DEG)
    from reach_planner_node.reach import max_path_deviation_m, plan_reach
    model = load_model_or_none(model_path or arm_angle_model())
    if model is None:
        return 1
    arm, rng = Arm(), np.random.default_rng(seed)
    home = np.deg2rad([-30, -80, -20, -60, 90, 90, 0])
    low, high = np.deg2rad(np.array(NATURAL_POSTURES_DEG, dtype=float)).T
    worst = {"max_path_deviation_m": 0.0, "max_final_error_m": 0.0, "max_final_error_deg": 0.0}
    plans, skipped = [], 0
    print(f"reach plans to {targets} random targets (arm angle from the MLP):")
    while len(plans) < targets:
        pose = arm.forward(rng.uniform(low, high))
        phi = float(model.predict(features(pose.hand, pose.hand_rotation, arm))[0])
        plan = plan_reach(arm, home, pose.hand, pose.hand_rotation, phi)
        if any("damped least squares" in n for n in plan.notes):
            skipped += 1  # not reachable along the straight path within the limits
            continue
        hands = np.array([arm.forward(q).hand for q in plan.joints])
        final = arm.forward(plan.joints[-1])
        worst["max_path_deviation_m"] = max(worst["max_path_deviation_m"],
                                            max_path_deviation_m(hands, hands[0], pose.hand))
        worst["max_final_error_m"] = max(worst["max_final_error_m"], float(np.linalg.norm(final.hand - pose.hand)))
        worst["max_final_error_deg"] = max(worst["max_final_error_deg"], math.degrees(float(np.linalg.norm(
            so3_log(final.hand_rotation @ pose.hand_rotation.T)))))
        plans.append((plan, hands))
    print(f"held-out comparison on {held_out} poses:")
    test = generate_training_set(held_out, seed=seed + 200, progress=lambda m: None)
    # The baseline fitted on the model's own training set when training stored it.
    coefficients = model.metadata.get("least_squares_coefficients")
    baseline = (LeastSquares(np.array(coefficients)) if coefficients is not None
                else LeastSquares.fit(generate_training_set(1000, seed=seed + 100, progress=lambda m: None)))
    sample = test.inputs[:50]
    started = time.perf_counter()
    for x in sample:
        model.predict(x)
    mlp_s = (time.perf_counter() - started) / len(sample)
    started = time.perf_counter()
    for k in range(20):
        pose = arm.forward(rng.uniform(low, high))
        optimal_arm_angle(arm, pose.hand, pose.hand_rotation)
    optimization_s = (time.perf_counter() - started) / 20
    metrics = {**worst, "targets": targets, "skipped_unreachable_along_path": skipped,
               "mlp": errors(model.predict(test.inputs), test.arm_angles),
               "least_squares": errors(baseline.predict(test.inputs), test.arm_angles),
               "mlp_speedup": optimization_s / mlp_s, "mlp_predict_us": mlp_s * 1e6,
               "optimization_ms": optimization_s * 1e3, "model": model.metadata}
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "reach_metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    _plots(out_dir, plans[:12])
    print(json.dumps({k: v for k, v in metrics.items() if k != "model"}, indent=2))
    print(f"wrote {out_dir / 'reach_metrics.json'}, {out_dir / 'hand_paths.png'}, {out_dir / 'speed_profiles.png'}")
    return 0


def _plots(out: Path, plans) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(6, 6))
    ax = fig.add_subplot(projection="3d")
    for _, hands in plans:
        ax.plot(*hands.T)
        ax.scatter(*hands[-1], s=10)
    ax.set(xlabel="x [m]", ylabel="y [m]", zlabel="z [m]", title="Hand paths (shoulder at the origin)")
    fig.tight_layout()
    fig.savefig(out / "hand_paths.png", dpi=110)
    fig, ax = plt.subplots(figsize=(7, 4))
    for plan, hands in plans:
        speed = np.linalg.norm(np.diff(hands, axis=0), axis=1) / np.diff(plan.times_s)
        ax.plot(plan.times_s[1:] / plan.times_s[-1], speed)
    ax.set(xlabel="normalized time", ylabel="hand speed [m/s]", title="Speed profiles (minimum jerk: one bell)")
    fig.tight_layout()
    fig.savefig(out / "speed_profiles.png", dpi=110)
    plt.close("all")
