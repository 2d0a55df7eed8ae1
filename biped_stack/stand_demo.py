"""``biped-stack stand``: the robot stands under the stand controller, takes a push, and a small
report is written (metrics.json and a plot of the pelvis height)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from biped_common.state import Push
from biped_stack.lockstep import LockstepSimulation, pelvis_heights_m

PUSH_DURATION_S = 0.2


def run_stand_demo(robot: str, duration_s: float, push_n: float, out_dir: str) -> int:
    """Run, print progress, write ``out_dir/metrics.json`` and ``out_dir/pelvis_height.png``."""
    sim = LockstepSimulation(robot)
    nominal = sim.robot.nominal_pelvis_height_m
    pushes = ()
    if push_n:
        pushes = (Push("pelvis", np.array([push_n, 0.0, 0.0]), np.zeros(3), duration_s / 2, PUSH_DURATION_S),)
    for push in pushes:
        sim.bridge.push(push)
    records = []
    started = time.perf_counter()
    steps = int(round(duration_s / sim.config.control_period_s))
    for i in range(steps):
        records.append(sim.step())
        if (i + 1) % max(1, steps // 10) == 0:
            print(f"  t = {records[-1].stamp_s:5.2f} s  pelvis {records[-1].ground_truth.position_m[2]:.3f} m",
                  flush=True)
    wall_s = time.perf_counter() - started
    heights = pelvis_heights_m(records)
    metrics = {
        "robot": sim.robot.name, "duration_s": duration_s, "push_n": push_n,
        "nominal_pelvis_height_m": nominal,
        "pelvis_height_min_m": float(heights.min()), "pelvis_height_max_m": float(heights.max()),
        "max_height_error_m": float(np.max(np.abs(heights - nominal))),
        "fell": bool(heights.min() < 0.6 * nominal or sim.backend.body_contacts_other_than_feet()),
        "real_time_factor": duration_s / wall_s,
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    _plot(records, nominal, pushes, out / "pelvis_height.png")
    print(json.dumps(metrics, indent=2))
    print(f"report: {out}/metrics.json, {out}/pelvis_height.png")
    return 1 if metrics["fell"] else 0


def _plot(records, nominal: float, pushes, path: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    t = np.array([r.stamp_s for r in records])
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(t, pelvis_heights_m(records), label="pelvis height (ground truth)")
    ax.axhline(nominal, color="k", ls="--", lw=0.8, label="nominal")
    for push in pushes:
        ax.axvspan(push.start_s, push.start_s + push.duration_s, color="r", alpha=0.2, label="push")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("z [m]")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
