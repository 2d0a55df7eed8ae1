"""Plots of a walking run (see :func:`plot_all`); matplotlib with the Agg backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from biped_stack.scenario import body_velocity


def _moving_average(x: np.ndarray, n: int) -> np.ndarray:
    if x.shape[0] < n:
        return x
    kernel = np.ones(n) / n
    return np.column_stack([np.convolve(x[:, i], kernel, mode="same") for i in range(x.shape[1])])


def plot_all(result, out: Path) -> list[Path]:
    """velocity.png, com_cop.png, foot_heights.png, feedback.png, style_fidelity.png, torques.png,
    solve_times.png in ``out``."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots")
        return []
    trace, log, scenario = result.trace, result.log, result.scenario
    t = trace["time_s"]
    files = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        files.append(out / name)

    # Commanded vs achieved body velocity (achieved: 1 s moving average of the ground truth).
    achieved = _moving_average(body_velocity(trace), 500)
    commanded = np.array([scenario.command_at(x) for x in t])
    fig, axes = plt.subplots(3, 1, figsize=(8, 6), sharex=True)
    for i, (ax, label) in enumerate(zip(axes, ("vx [m/s]", "vy [m/s]", "ωz [rad/s]"))):
        ax.plot(t, commanded[:, i], "k--", lw=1, label="commanded")
        ax.plot(t, achieved[:, i], label="achieved (1 s mean)")
        ax.set_ylabel(label)
    for segment, start, end in scenario.windows():
        for ax in axes:
            ax.axvspan(start, end, color="g", alpha=0.06)
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("t [s] (shaded: steady-state windows)")
    save(fig, "velocity.png")

    # CoM and planned CoP vs the footprints (top view) and lateral over time.
    com = np.array(log.com).reshape(-1, 4)
    cop = np.array(log.cop_plan).reshape(-1, 3)
    fig, (top, side) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [1.4, 1]})
    for foot, colour in (("left", "tab:blue"), ("right", "tab:red")):
        sole = trace[f"{foot}_sole_position_m"]
        loaded = trace[f"{foot}_planned_stance"] & (trace[f"{foot}_normal_force_n"] > 20)
        top.plot(sole[loaded, 0], sole[loaded, 1], ".", ms=1, color=colour, alpha=0.3, label=f"{foot} sole (stance)")
    top.plot(cop[:, 1], cop[:, 2], lw=0.6, color="tab:orange", label="planned CoP")
    top.plot(com[:, 1], com[:, 2], lw=1.2, color="k", label="CoM")
    top.set_aspect("equal")
    top.set_xlabel("x [m]")
    top.set_ylabel("y [m]")
    top.legend(fontsize=8)
    from biped_common.robot_model import FootGeometry, load_robot
    half_width = FootGeometry.from_robot(load_robot(result.metrics["robot"])).half_width_m
    window = (com[:, 0] >= 3.0) & (com[:, 0] < 6.0)
    side.plot(com[window, 0], com[window, 2], "k", label="CoM y")
    cop_window = (cop[:, 0] >= 3.0) & (cop[:, 0] < 6.0)
    side.plot(cop[cop_window, 0], cop[cop_window, 2], color="tab:orange", label="planned CoP y")
    tw = (t >= 3.0) & (t < 6.0)
    for foot, colour in (("left", "tab:blue"), ("right", "tab:red")):
        y = np.where(trace[f"{foot}_planned_stance"][tw], trace[f"{foot}_sole_position_m"][tw, 1], np.nan)
        side.fill_between(t[tw], y - half_width, y + half_width, color=colour, alpha=0.25,
                          label=f"{foot} sole in stance (± half width)")
    side.set_xlabel("t [s]")
    side.set_ylabel("y [m]")
    side.legend(fontsize=7)
    save(fig, "com_cop.png")

    fig, ax = plt.subplots(figsize=(8, 3))
    for foot in ("left", "right"):
        ax.plot(t, trace[f"{foot}_sole_position_m"][:, 2] * 100, label=foot)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("sole height [cm]")
    ax.legend()
    save(fig, "foot_heights.png")

    if getattr(log, "feedback", None):
        save(_feedback_figure(plt, np.asarray(log.feedback), scenario), "feedback.png")
    if (fidelity := _fidelity_figure(plt, trace, result.metrics.get("style_fidelity"))) is not None:
        save(fidelity, "style_fidelity.png")

    if log.torques:
        torques = np.array(log.torques)
        robot = load_robot(result.metrics["robot"])
        ratio = np.abs(torques[:, 1:]) / robot.torque_limit_nm
        fig, ax = plt.subplots(figsize=(8, 3.5))
        worst = np.argsort(ratio.max(axis=0))[-6:]
        for j in worst:
            ax.plot(torques[:, 0], ratio[:, j], lw=0.7, label=robot.joint_names[j])
        ax.axhline(1.0, color="k", ls="--", lw=0.8, label="limit")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("|τ| / τ_max")
        ax.set_title("joint torques vs limits (the six closest to their limit)")
        ax.legend(fontsize=7, ncol=2)
        save(fig, "torques.png")

    if log.wbc_solve_s or log.mpc_solve_s:  # per-tick times exist in-process (nodes report percentiles)
        fig, ax = plt.subplots(figsize=(7, 3))
        for samples, label in ((log.wbc_solve_s, "WBC tick (500 Hz)"), (log.mpc_solve_s, "MPC solve (125 Hz)")):
            if samples:
                ax.hist(np.asarray(samples) * 1e3, bins=80, alpha=0.6, label=label)
        ax.set_xlabel("time [ms]")
        ax.set_yscale("log")
        ax.legend()
        save(fig, "solve_times.png")
    return files


def _feedback_figure(plt, rows: np.ndarray, scenario):
    """The gait feedback over time, after source 004's push figure: the DCM error, κ_time, the
    footstep offsets and the velocity adjustment (rows: :data:`biped_stack.scenario.FEEDBACK_COLUMNS`),
    pushes shaded."""
    t = rows[:, 0]
    fig, axes = plt.subplots(4, 1, figsize=(9, 7.5), sharex=True)
    panels = ((axes[0], rows[:, 1:3] * 100, ("x (forward)", "y (left)"), "DCM error [cm]\n(body frame)"),
              (axes[2], rows[:, 5:7] * 100, ("x", "y"), "footstep offset [cm]\n(world)"),
              (axes[3], rows[:, 3:5], ("ẋ", "ẏ"), "velocity\nadjustment [m/s]"))
    for ax, values, labels, ylabel in panels:
        for k, label in enumerate(labels):
            ax.plot(t, values[:, k], lw=0.9, label=label)
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper right", fontsize=7)
    axes[1].plot(t, rows[:, 7], color="tab:purple", lw=0.9, label="κ_time (body path)")
    axes[1].plot(t, rows[:, 9], color="tab:orange", lw=0.9, label="gait clock's κ (step timing in a swing)")
    stepping = rows[:, 8] > 0
    if stepping.any():
        axes[1].fill_between(t, 0.0, 1.0, where=stepping, transform=axes[1].get_xaxis_transform(), color="tab:green",
                             alpha=0.15, label="stepping to recover")
    axes[1].axhline(1.0, color="k", lw=0.5)
    axes[1].set_ylabel("time scale κ")
    axes[1].legend(loc="upper right", fontsize=7)
    for push in scenario.pushes:
        for ax in axes:
            ax.axvspan(push.start_s, push.end_s, color="tab:red", alpha=0.12)
    axes[0].set_title("gait feedback (shaded red: pushes)")
    axes[-1].set_xlabel("t [s]")
    return fig


def _fidelity_figure(plt, trace: dict, fidelity: list | None, span_s: float = 2.0):
    """Planned vs achieved sole heights and pelvis height over ``span_s`` in the middle of the
    first segment with swings (issue #18's picture of style fidelity); None without a plan."""
    if not fidelity or "planned_pelvis_height_m" not in trace:
        return None
    segment = next((f for f in fidelity if f["swings"]), None)
    if segment is None:
        return None
    start, end = segment["window_s"]
    middle = 0.5 * (start + end)
    t = trace["time_s"]
    window = (t >= middle - span_s / 2) & (t < middle + span_s / 2)
    fig, (feet, pelvis) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
    for side, colour in (("left", "tab:blue"), ("right", "tab:red")):
        feet.plot(t[window], trace[f"{side}_planned_sole_position_m"][window, 2] * 100, "--", color=colour, lw=1,
                  label=f"{side} planned")
        feet.plot(t[window], trace[f"{side}_sole_position_m"][window, 2] * 100, color=colour, lw=1.5,
                  label=f"{side} achieved")
    feet.set_ylabel("sole height [cm]")
    feet.legend(loc="upper right", fontsize=8, ncol=2)
    apex, path = segment["swing_apex_ratio"], segment["sole_swing_path_rms_m"]
    feet.set_title(f"'{segment['name']}': swing apex ×{apex:.2f} of planned, sole path RMS {path * 100:.1f} cm"
                   if apex is not None and path is not None else f"'{segment['name']}'", fontsize=10)
    pelvis.plot(t[window], trace["planned_pelvis_height_m"][window] * 100, "k--", lw=1, label="planned")
    pelvis.plot(t[window], trace["base_position_m"][window, 2] * 100, "tab:green", lw=1.5, label="achieved")
    pelvis.set_ylabel("pelvis height [cm]")
    pelvis.set_xlabel("t [s]")
    pelvis.legend(loc="upper right", fontsize=8)
    ratio, lag = segment["pelvis_height_amplitude_ratio"], segment["pelvis_height_lag_s"]
    pelvis.set_title(f"pelvis RMS error {segment['pelvis_height_rms_m'] * 100:.1f} cm"
                     + (f", bob ×{ratio:.2f}, {lag * 1000:.0f} ms late" if ratio is not None else ""), fontsize=10)
    return fig
