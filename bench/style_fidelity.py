"""Issue #18 bars 1-3: style fidelity and the speed range, in-process on the estimator with MEMS
sensors, every robot × style (one run per row, one after the other).

For each row: the teleop script's fidelity as README's table has it (ranges over the walking
segments of swing apex achieved/planned, sole swing path RMS, pelvis height RMS, bob amplitude
ratio and lag), and with ``--speed`` the ``fast`` scenario's (``brisk`` for the brisk style) worst
steady-state velocity errors per segment, against the command clamped into the style's range.

Run: .venv/bin/python bench/style_fidelity.py [--robots humanoid biped] [--styles neutral bouncy ...]
     [--speed] [--wbc-gains config/wbc_style_first.yaml]   (≈ 40 s a teleop row, ≈ 50 s a speed row)
"""

from __future__ import annotations

import argparse

import numpy as np

from biped_stack.scenario import load_scenario
from biped_stack.walking import run_walk
from biped_stack.tracking import segment_velocity_error, within_velocity_bars
from gait_planner_node.sampler import command_in_range
from gait_planner_node.style import load_style, shipped_styles

WALKING_SEGMENTS_EXCLUDED = ("stand", "stop")
SPEED_CORNERS = ((0.6, 0.0, 0.0), (-0.3, 0.0, 0.0), (0.0, 0.25, 0.0), (0.0, -0.25, 0.0), (0.0, 0.0, 1.0),
                 (0.0, 0.0, -1.0))


def span(values, scale: float = 1.0, digits: int = 2) -> str:
    """'lo–hi' of the non-None ``values`` × ``scale`` (one value when they round alike), '—' if none."""
    kept = [v * scale for v in values if v is not None]
    if not kept:
        return "—"
    lo, hi = f"{min(kept):.{digits}f}", f"{max(kept):.{digits}f}"
    return lo if lo == hi else f"{lo}–{hi}"


def fidelity_row(robot: str, style: str, wbc_gains: str | None = None) -> str:
    """The README table's row for the teleop script."""
    metrics = run_walk(robot, style, load_scenario("teleop"), progress=lambda m: None,
                       state_source="estimator", wbc_gains=wbc_gains).metrics
    walking = [f for f in metrics["style_fidelity"] if f["name"] not in WALKING_SEGMENTS_EXCLUDED]
    cells = [span([f["swing_apex_ratio"] for f in walking]),
             span([f["sole_swing_path_rms_m"] for f in walking], 100, 2),
             span([f["pelvis_height_rms_m"] for f in walking], 100, 1),
             span([f["pelvis_height_amplitude_ratio"] for f in walking]),
             span([f["pelvis_height_lag_s"] for f in walking], 1000, 0)]
    fell = f" (FELL: {metrics['fall_reason']})" if metrics["fell"] else ""
    return f"| {robot} | {style} | " + " | ".join(cells) + f" |{fell}"


def walks_the_speed_range(style) -> bool:
    """Whether ``style``'s range holds issue #18's corners (0.6 m/s forward, −0.3 back, ±0.25
    sideways, ±1.0 rad/s) unclamped — the styles the speed rows are meant for (limp stops at 0.35)."""
    return all(np.allclose(command_in_range(style, corner), corner) for corner in SPEED_CORNERS)


def speed_rows(robot: str, style: str, wbc_gains: str | None = None) -> list[str]:
    """One line per segment of the speed scenario: commanded, in range, achieved, error."""
    scenario = load_scenario("brisk" if style == "brisk" else "fast")
    metrics = run_walk(robot, style, scenario, progress=lambda m: None, state_source="estimator",
                       wbc_gains=wbc_gains).metrics
    lines = [f"{robot} {style} '{scenario.name}': fell {metrics['fell']} {metrics['fall_reason'] or ''}, "
             f"slip {100 * metrics['max_foot_slip_m']:.1f} cm"]
    walkable = load_style(style)
    for segment in metrics["segments"]:
        error = segment_velocity_error(walkable, segment)
        ok = within_velocity_bars(error)
        lines.append(f"    {segment['name']:15s} commanded {np.round(segment['commanded'], 2)} achieved "
                     f"{np.round(segment['achieved'], 3)} error {np.round(error, 3)} {'ok' if ok else 'MISSES'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["humanoid", "biped"])
    parser.add_argument("--styles", nargs="+", default=shipped_styles())
    parser.add_argument("--speed", action="store_true", help="also the fast / brisk scenario's velocity errors")
    parser.add_argument("--wbc-gains", default=None, metavar="FILE",
                        help="WBC gains file (default config/wbc.yaml; e.g. config/wbc_style_first.yaml)")
    args = parser.parse_args()
    print(f"teleop script, in-process, estimator + MEMS sensors, WBC gains {args.wbc_gains or 'config/wbc.yaml'}; "
          "ranges over the walking segments")
    print("| robot | style | swing apex | sole path RMS [cm] | pelvis RMS [cm] | bob amplitude | bob lag [ms] |")
    print("|---|---|---|---|---|---|---|")
    for robot in args.robots:
        for style in args.styles:
            print(fidelity_row(robot, style, args.wbc_gains), flush=True)
    if args.speed:
        for robot in args.robots:
            for style in args.styles:
                if not walks_the_speed_range(load_style(style)):
                    print(f"{robot} {style}: its range stops short of the fast scenario's corners, skipped")
                    continue
                print("\n".join(speed_rows(robot, style, args.wbc_gains)), flush=True)


if __name__ == "__main__":
    main()
