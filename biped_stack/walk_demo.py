"""``biped-stack demo``: walk a teleop scenario in MuJoCo and write a report folder.

In-process (default) the cores run in lockstep in this process (:func:`biped_stack.walking.run_walk`);
``--multiprocess`` runs every node as its own process over DDS (:mod:`biped_stack.ros_walk`).
The report: ``metrics.json`` (issue #4's keys), plots (commanded vs achieved velocity, CoM and
CoP vs the support polygon, foot heights, joint torques vs limits, solve times) and, when
offscreen rendering works, ``walk.mp4`` (in-process: with the planned pose as a ghost beside the
robot, :mod:`biped_stack.ghost`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from biped_stack.ghost import GHOST_BESIDE_M
from biped_stack.scenario import WalkResult, load_scenario
from biped_stack.walking import run_walk


def write_report(result: WalkResult, out_dir: str | Path) -> list[Path]:
    """``metrics.json`` and the plots into ``out_dir``; returns the files written."""
    from biped_stack.walk_plots import plot_all
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(result.metrics, indent=2) + "\n")
    return [out / "metrics.json", *plot_all(result, out)]


def fidelity_line(f: dict) -> str:
    """One segment's :mod:`biped_stack.fidelity` figures as a line of text (— where not measured)."""
    def show(key, scale=1.0, fmt="{:.2f}", unit=""):
        return "—" if f[key] is None else fmt.format(f[key] * scale) + unit
    return (f"{f['name']:14s} swing apex ×{show('swing_apex_ratio')}, sole path RMS "
            f"{show('sole_swing_path_rms_m', 100, '{:.1f}', ' cm')}, pelvis RMS {show('pelvis_height_rms_m', 100, '{:.1f}', ' cm')}, "
            f"bob ×{show('pelvis_height_amplitude_ratio')} lag {show('pelvis_height_lag_s', 1000, '{:.0f}', ' ms')}, "
            f"heel strike ×{show('heel_strike_pitch_ratio')}, toe off ×{show('toe_off_pitch_ratio')}, "
            f"upper body RMS {show('upper_body_rms_rad', 1, '{:.3f}', ' rad')}")


def run_demo(robot: str, style: str, scenario_name: str | None, out_dir: str, multiprocess: bool = False,
             video: bool = True, state_source: str = "estimator", realtime: bool = False,
             realtime_priority: int = 0, hardware: bool = False, wbc_gains: str | None = None) -> int:
    """The ``biped-stack demo`` command: run, report, print the summary; exit 1 on a fall.
    ``scenario_name`` None: ``teleop_push`` (``teleop`` on hardware, which is not pushed over
    messages)."""
    scenario = load_scenario(scenario_name or ("teleop" if hardware else "teleop_push"))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    how = (("against the mock ros2_control robot, real time" if hardware else
            "multi-process over DDS, " + ("real time" if realtime else "lockstep")) if multiprocess else "in-process lockstep")
    print(f"walking {robot} ({style}) through '{scenario.name}' ({scenario.duration_s:.0f} s sim time, {how})", flush=True)
    if multiprocess:
        from biped_stack.ros_walk import run_walk_multiprocess
        result = run_walk_multiprocess(robot, style, scenario, out, state_source=state_source, realtime=realtime,
                                       realtime_priority=realtime_priority, hardware=hardware)
    else:
        result = run_walk(robot, style, scenario, progress=lambda m: print(m, flush=True),
                          video_path=out / "walk.mp4" if video else None, state_source=state_source,
                          wbc_gains=wbc_gains)
    files = write_report(result, out)
    m = result.metrics
    def ms(timing):
        return "n/a" if timing["p50"] is None else f"{timing['p50']:.2f}/{timing['p99']:.2f} ms"
    print(f"fell: {m['fell']}  max foot slip {m['max_foot_slip_m'] * 100:.1f} cm  RTF {m['real_time_factor']:.2f}  "
          f"WBC p50/p99 {ms(m['wbc_solve_ms'])}  MPC p50/p99 {ms(m['mpc_solve_ms'])}")
    for seg in m["segments"]:
        print(f"  {seg['name']:14s} commanded {np.round(seg['commanded'], 3).tolist()}  achieved "
              f"{np.round(seg['achieved'], 3).tolist()}")
    if m.get("style_fidelity"):
        print("  style fidelity (steady state; achieved / planned):")
        for f in m["style_fidelity"]:
            if f["swings"] or f["pelvis_height_amplitude_ratio"] is not None:
                print("    " + fidelity_line(f))
    feedback_pushes = m.get("feedback", {}).get("pushes") or [None] * len(m.get("pushes", []))
    for push, fb in zip(m.get("pushes", []), feedback_pushes):
        regained = push["regained_after_s"]
        outcome = {None: "not reached (fell before)", True: "survived", False: "FELL"}[push["survived"]]
        print(f"  push at {push['start_s']:.2f} s, {push['duration_s']:g} s of {np.round(push['force_n'], 1).tolist()} N "
              f"({push['frame']}): {outcome}" + (f", velocity back after {regained:.2f} s" if regained is not None else "")
              + (f", peak velocity error {push['peak_velocity_error_m_s']:.2f} m/s"
                 if push["peak_velocity_error_m_s"] is not None else "")
              + (f"; peak DCM error {fb['peak_dcm_error_m'] * 100:.1f} cm, footstep offset "
                 f"{fb['peak_step_offset_m'] * 100:.1f} cm, κ_time {fb['time_scale_range'][0]:.2f}–"
                 f"{fb['time_scale_range'][1]:.2f}, clock κ {fb['clock_scale_range'][0]:.2f}–"
                 f"{fb['clock_scale_range'][1]:.2f}, velocity adjustment {fb['peak_velocity_bias_m_s']:.2f} m/s, "
                 f"{'?' if fb['steps_to_recover'] is None else fb['steps_to_recover']} steps to recover" if fb else ""))
    if "feedback" in m:
        f = m["feedback"]
        print(f"  feedback RMS over the run: velocity adjustment {f['rms_velocity_bias_m_s']:.3f} m/s, footstep offset "
              f"{f['rms_step_offset_m'] * 100:.1f} cm, κ_time − 1 {f['rms_time_scale_minus_1']:.3f}, "
              f"clock κ − 1 {f['rms_clock_scale_minus_1']:.3f}")
    if "realtime" in m:
        r = m["realtime"]
        cpu = ", CPU " + ", ".join(f"{k} {v:.0f} %" for k, v in r["cpu_percent"].items())
        if "error" in r:
            print(f"  real time: {r['error']}{cpu}")
        else:
            lat = r["latency_ms"]
            print(f"  real time: sim/wall {r['sim_over_wall']:.3f}, watchdog trips {r['watchdog_trips']}, deadline misses "
                  f"{r['deadline_misses']['count']} of {r['deadline_misses']['frames']}, latency p50/p99/max "
                  f"{lat['p50']:.2f}/{lat['p99']:.2f}/{lat['max']:.2f} ms{cpu}")
    if "estimator" in m:
        print("  estimator vs ground truth: " + ", ".join(f"{k} {v:.4g}" for k, v in m["estimator"].items() if v is not None))
    if (out / "walk.mp4").exists():
        files.append(out / "walk.mp4")
        print(f"  walk.mp4: the robot, and beside it ({GHOST_BESIDE_M:g} m to its left) the planned pose as a "
              "translucent orange ghost")
    print("report: " + ", ".join(str(f) for f in files))
    return 1 if m["fell"] else 0
