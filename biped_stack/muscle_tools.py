"""``biped-stack muscles …``: the inverse problem, forward tracking and source 000's demo from the
command line, with reports (CSV / .sto, plots, a metrics JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from muscle_allocator_node.mujoco_muscles import load_model


def inverse(model: str, motion: str, out: str, criterion: str = "activation_squared") -> int:
    """Activations and residuals for every frame of ``motion`` → ``out``; exit 0, or 1 with the
    reason when the model or motion is unusable."""
    from muscle_allocator_node.inverse import read_motion, solve_inverse, squat_motion, write_outputs
    try:
        mj_model = load_model(model)
        trajectory = squat_motion(mj_model) if motion == "squat" else read_motion(motion)
        print(f"inverse problem: {mj_model.nu} muscles, {mj_model.nv} dofs, {trajectory.time_s.size} frames")
        result = solve_inverse(mj_model, trajectory, criterion=criterion)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}")
        return 1
    files = write_outputs(result, out)
    statuses = {s: result.statuses.count(s) for s in sorted(set(result.statuses))}
    metrics = {"frames": int(result.time_s.size), "muscles": len(result.muscle_names), "statuses": statuses,
               "max_activation": float(result.activations.max()),
               "max_abs_residual": float(np.abs(result.residuals).max()), "notes": result.notes}
    (Path(out) / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"statuses {statuses}; max activation {metrics['max_activation']:.3f}; "
          f"max |residual| {metrics['max_abs_residual']:.3g}")
    print("wrote " + ", ".join(str(f) for f in [*files, Path(out) / "metrics.json"]))
    return 0


def track(out: str, start_rad: float = 0.2, end_rad: float = 1.6, move_s: float = 1.0, hold_s: float = 1.0) -> int:
    """MyoElbow follows a minimum-jerk elbow motion on our activations only; plots and metrics."""
    from muscle_allocator_node.tracking import minimum_jerk, track_joint_reference
    model = load_model("myoelbow")
    log = track_joint_reference(model, minimum_jerk(start_rad, end_rad, move_s), move_s + hold_s).arrays()
    error = log["position_rad"][:, 0] - log["reference_rad"][:, 0]
    metrics = {"tracking_rmse_rad": float(np.sqrt(np.mean(error**2))), "max_error_rad": float(np.abs(error).max()),
               "statuses": sorted(set(log["status"].tolist()))}
    names = [model.actuator(i).name for i in range(model.nu)]
    _plot_tracking(Path(out), log, names, "MyoElbow on our activations (minimum-jerk 0.2 → 1.6 rad)")
    (Path(out) / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"tracking RMSE {metrics['tracking_rmse_rad']:.4f} rad (max {metrics['max_error_rad']:.4f}); report in {out}")
    return 0


def single_joint(out: str) -> int:
    """Source 000's flexor/extensor demo; plots and metrics."""
    from muscle_allocator_node.single_joint import run
    result = run()
    error = result.angle_rad - result.reference_rad
    metrics = {"tracking_rmse_rad": float(np.sqrt(np.mean(error**2))),
               "activation_range": [float(result.activations.min()), float(result.activations.max())],
               "max_abs_residual_nm": float(np.abs(result.residual_nm).max())}
    log = {"time_s": result.time_s, "reference_rad": result.reference_rad[:, None],
           "position_rad": result.angle_rad[:, None], "activations": result.activations}
    _plot_tracking(Path(out), log, ["flexor", "extensor"], "Source 000: one joint, flexor and extensor")
    (Path(out) / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"tracking RMSE {metrics['tracking_rmse_rad']:.4f} rad; report in {out}")
    return 0


def _plot_tracking(out: Path, log: dict, muscle_names, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    top.plot(log["time_s"], log["reference_rad"][:, 0], "k--", label="reference")
    top.plot(log["time_s"], log["position_rad"][:, 0], label="joint")
    top.set(ylabel="angle [rad]", title=title)
    top.legend()
    for i, name in enumerate(muscle_names):
        bottom.plot(log["time_s"], log["activations"][:, i], label=name)
    bottom.set(xlabel="time [s]", ylabel="activation", ylim=(0, 1.02))
    bottom.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(out / "tracking.png", dpi=120)
    plt.close(fig)
