"""``biped-stack style check`` and ``biped-stack style render``: validate a style file, and draw
it for animators (footprints, foot paths, pelvis motion and the gait diagram across a sweep of
velocities) as PNG files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from biped_common.robot_model import load_robot
from gait_planner_node.planner import GaitPlanner, PlannerConfig
from gait_planner_node.style import Style, StyleError, load_style

TICK_S = 0.008  # the planner's 125 Hz tick


def check(path: str) -> int:
    """Exit code 0 and a one-line summary when valid; 1 and every error when not."""
    try:
        style = load_style(path)
    except StyleError as exc:
        print(f"{exc.source}: invalid, {len(exc.errors)} error(s):", file=sys.stderr)
        for error in exc.errors:
            print(f"  {error}", file=sys.stderr)
        return 1
    print(f"{path}: OK — {style.summary()}")
    for reason in style.limited:
        print(f"  scaled at load: {reason}")
    return 0


def sweep(style: Style) -> list[tuple[str, np.ndarray]]:
    """Labelled velocities across the style's range: forward/backward, sidestep, turn."""
    s = style.samples
    out = []
    for key in ("backward_fast", "backward_slow", "in_place", "forward_slow", "forward_fast",
                "sidestep_left", "turn_left"):
        v = np.asarray(s[key].velocity, dtype=float)
        out.append((f"{key} {v[0]:+.2f} {v[1]:+.2f} {v[2]:+.2f}", v))
    mid = 0.5 * (np.asarray(s["forward_slow"].velocity) + np.asarray(s["forward_fast"].velocity))
    out.insert(4, (f"between slow and fast {mid[0]:+.2f}", mid))
    return out


def settled_planner(style: Style, config: PlannerConfig, velocity, settle_s: float) -> GaitPlanner:
    """A planner started standing and walked at the constant command ``velocity`` for ``settle_s``
    [s] in ticks of :data:`TICK_S` (its clock and body path ramped up)."""
    planner = GaitPlanner(style, config)
    planner.set_command(velocity)
    for _ in range(int(settle_s / TICK_S)):
        planner.step(TICK_S)
    return planner


def simulate(style: Style, config: PlannerConfig, velocity, cycles: float = 3.0, settle_s: float = 2.0):
    """Run the planner at a constant command; returns (times, references at each tick, touch-downs)."""
    planner = settled_planner(style, config, velocity, settle_s)
    duration = cycles * planner.gait.timing.cycle_s
    refs, touchdowns = [], []
    last = dict(planner.footholds)
    for k in range(int(duration / TICK_S)):
        planner.step(TICK_S)
        refs.append(planner.reference(np.array([0.0])))
        touchdowns.extend(new_footholds(planner, last))
    return planner, refs, touchdowns


def new_footholds(planner: GaitPlanner, last: dict) -> list:
    """The (side, pose) of each foothold that changed since ``last`` — a touch-down planned since
    the previous call; ``last`` ({side: pose}, start it with ``dict(planner.footholds)``) is
    updated in place."""
    changed = [(side, pose) for side, pose in planner.footholds.items() if pose != last[side]]
    last.update(changed)
    return changed


def render(name_or_file: str, out_dir: str, robot_name: str = "humanoid") -> list[Path]:
    """Write the style's PNGs to ``out_dir``; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    style = load_style(name_or_file)
    config = PlannerConfig.for_robot(load_robot(robot_name))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    for label, v in sweep(style):
        print(f"  simulating {label} …", flush=True)
        runs.append((label, v, *simulate(style, config, v)))
    g = config.foot
    outline = np.array([[g.heel_x_m, -g.half_width_m], [g.toe_x_m, -g.half_width_m],
                        [g.toe_x_m, g.half_width_m], [g.heel_x_m, g.half_width_m]])
    paths = []

    fig, axes = plt.subplots(1, len(runs), figsize=(2.2 * len(runs), 5), sharey=True)
    for ax, (label, v, planner, refs, touchdowns) in zip(axes, runs):
        for side, pose in touchdowns:
            c, s = np.cos(pose.yaw), np.sin(pose.yaw)
            corners = outline @ np.array([[c, s], [-s, c]]) + [pose.x, pose.y]
            # Draw with x forward pointing up the page.
            ax.add_patch(Polygon(corners[:, ::-1] * [-1, 1], closed=True, alpha=0.6,
                                 color="tab:blue" if side == "left" else "tab:orange"))
        ax.autoscale_view()
        ax.set_aspect("equal", adjustable="datalim")
        low, high = ax.get_xlim()
        middle, half = 0.5 * (low + high), max(0.25, 0.5 * (high - low))
        ax.set_xlim(middle - half, middle + half)
        ax.set_title(label.replace(" ", "\n", 1), fontsize=7)
        ax.set_xlabel("−y [m]")
    axes[0].set_ylabel("x [m]")
    fig.suptitle(f"{style.name}: footprints over 3 cycles (left blue, right orange)")
    paths.append(_save(fig, out / "footprints.png"))

    fig, (ax_z, ax_x) = plt.subplots(2, 1, figsize=(8, 6))
    for label, v, planner, refs, _ in runs:
        phase = np.array([r.phase[0] for r in refs])
        left = np.array([r.foot_position_m["left"][0] for r in refs])
        order = np.argsort(phase)
        ax_z.plot(phase[order], left[order, 2], label=label, lw=1)
        pelvis = np.array([r.pelvis_height_m[0] for r in refs])
        ax_x.plot(phase[order], pelvis[order], lw=1)
    ax_z.set_ylabel("left sole height [m]")
    ax_z.legend(fontsize=6)
    ax_x.set_ylabel("pelvis height [m]")
    ax_x.set_xlabel("cycle phase φ (0 right touch-down, .1 left lift-off, .5 left touch-down, .6 right lift-off)")
    fig.suptitle(f"{style.name}: foot lift and pelvis height over the cycle")
    paths.append(_save(fig, out / "foot_and_pelvis.png"))

    fig, ax = plt.subplots(figsize=(8, 0.45 * len(runs) + 1))
    for row, (label, v, planner, refs, _) in enumerate(runs):
        t = planner.gait.timing.event_times_s()
        cycle = t[-1]
        for side, (lo, td), y in (("left", (t[1], t[2]), row + 0.15), ("right", (t[3], t[4]), row - 0.15)):
            # Stance: from the cycle start to lift-off, and from touch-down to the cycle end.
            ax.broken_barh([(0.0, lo), (td, cycle - td)], (y - 0.12, 0.24),
                           color="tab:blue" if side == "left" else "tab:orange")
        ax.text(cycle + 0.01, row, f"{cycle:.2f} s", va="center", fontsize=7)
    ax.set_yticks(range(len(runs)), [r[0] for r in runs], fontsize=7)
    ax.set_xlabel("time in cycle [s] (bars: stance; left upper, right lower)")
    ax.set_title(f"{style.name}: gait diagram across the velocity sweep")
    paths.append(_save(fig, out / "gait_diagram.png"))
    return paths


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path
