"""Scenario files and the walking metrics computed from traces."""

import json

import numpy as np
import pytest

from biped_common.errors import ConfigError
from biped_stack.cli import main
from biped_stack.scenario import Scenario, Segment, load_scenario, max_foot_slip_m, segment_metrics


def test_the_shipped_teleop_script_is_the_issue_s():
    s = load_scenario("teleop")
    assert [(g.name, g.duration_s, g.velocity) for g in s.segments] == [
        ("stand", 1.0, (0.0, 0.0, 0.0)), ("forward", 10.0, (0.3, 0.0, 0.0)), ("turn", 5.0, (0.0, 0.0, 0.5)),
        ("sidestep_left", 5.0, (0.0, 0.1, 0.0)), ("backward", 5.0, (-0.2, 0.0, 0.0)), ("stop", 3.0, (0.0, 0.0, 0.0))]
    assert s.duration_s == 29.0
    assert s.command_at(0.5) == (0.0, 0.0, 0.0) and s.command_at(1.0) == (0.3, 0.0, 0.0)
    assert s.command_at(100.0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("text, field", [
    ("segments: []", "segments"),
    ("segments: [{name: a, duration_s: 1.0}]", "segments[0].velocity"),
    ("segments: [{name: a, duration_s: -1, velocity: [0, 0, 0]}]", "segments[0].duration_s"),
    ("segments: [{name: a, duration_s: 1, velocity: [0, 0]}]", "segments[0].velocity"),
    ("segments: [{name: a, duration_s: 1, velocity: [0, x, 0]}]", "segments[0].velocity[1]"),
    ("speed_scale: 2\nsegmets: []", "segmets"),
])
def test_bad_scenario_files_name_the_field(tmp_path, text, field):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_scenario(str(path))
    assert field in str(error.value)


def synthetic_trace(velocity_world, yaw, n=1000, dt=0.01):
    t = np.arange(n) * dt
    quat = np.tile([np.cos(yaw / 2), 0, 0, np.sin(yaw / 2)], (n, 1))
    return {"time_s": t, "base_quat_wxyz": quat, "base_velocity_world_m_s": np.tile(velocity_world, (n, 1)),
            "base_yaw_rate_rad_s": np.full(n, 0.2)}


def test_segment_metrics_are_body_frame_means_over_the_second_half():
    scenario = Scenario("s", (Segment("a", 4.0, (0.3, 0.0, 0.2)), Segment("b", 6.0, (0.0, 0.1, 0.0))))
    trace = synthetic_trace([0.0, 0.3, 0.0], yaw=np.pi / 2)  # moving along world y while facing y
    metrics = segment_metrics(scenario, trace)
    np.testing.assert_allclose(metrics[0]["achieved"], [0.3, 0.0, 0.2], atol=1e-12)
    assert metrics[0]["window_s"] == [2.0, 4.0] and metrics[1]["window_s"] == [7.0, 10.0]


def test_segment_means_are_time_weighted_so_dropped_frames_do_not_bias_them():
    """A sway vy = 0.15 sin(2π·1.8 t) has mean 0 over whole periods; a recorder that kept every
    frame of the positive half-waves but only one in ten of the negative ones (frames lost over
    DDS) gives a plain sample mean of ≈ +0.08 m/s — the time-weighted mean stays near 0."""
    t_full = np.arange(0.0, 10.0, 0.002)
    sway = 0.15 * np.sin(2 * np.pi * 1.8 * t_full)
    keep = (sway >= 0) | (np.arange(t_full.size) % 10 == 0)
    t = t_full[keep]
    velocity = np.column_stack([np.zeros(t.size), sway[keep], np.zeros(t.size)])
    yaw = np.zeros(t.size)
    trace = {"time_s": t, "base_quat_wxyz": np.tile([1.0, 0, 0, 0], (t.size, 1)), "base_velocity_world_m_s": velocity,
             "base_yaw_rate_rad_s": yaw}
    scenario = Scenario("s", (Segment("a", 10.0, (0.0, 0.0, 0.0)),))
    achieved = segment_metrics(scenario, trace)[0]["achieved"]
    window = t >= 5.0
    assert velocity[window, 1].mean() > 0.07  # what a plain mean reports
    assert abs(achieved[1]) < 0.01


def test_foot_slip_counts_only_loaded_planned_stance():
    n = 100
    position = np.zeros((n, 3))
    position[50:, 0] = np.linspace(0.0, 0.03, 50)  # slides 3 cm in the second half
    force = np.full(n, 100.0)
    stance = np.ones(n, dtype=bool)
    arrays = {"left_sole_position_m": position, "left_normal_force_n": force, "left_planned_stance": stance,
              "right_sole_position_m": np.zeros((n, 3)), "right_normal_force_n": force, "right_planned_stance": stance}
    assert max_foot_slip_m(arrays) == pytest.approx(0.03)
    arrays["left_normal_force_n"] = np.where(np.arange(n) >= 50, 0.0, 100.0)  # unloaded while it moves
    assert max_foot_slip_m(arrays) == 0.0


def test_demo_command_writes_the_report(tmp_path, capsys):
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text("segments:\n  - {name: stand, duration_s: 0.5, velocity: [0, 0, 0]}\n"
                        "  - {name: forward, duration_s: 1.5, velocity: [0.2, 0, 0]}\n")
    out = tmp_path / "report"
    assert main(["demo", "--robot", "biped", "--scenario", str(scenario), "--out", str(out), "--no-video"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    for key in ("robot", "style", "fell", "segments", "max_foot_slip_m", "real_time_factor", "wbc_solve_ms", "mpc_solve_ms"):
        assert key in metrics
    assert metrics["robot"] == "biped" and metrics["style"] == "neutral" and metrics["fell"] is False
    assert [s["name"] for s in metrics["segments"]] == ["stand", "forward"]
    assert set(metrics["wbc_solve_ms"]) == {"p50", "p99"}
    for name in ("velocity.png", "com_cop.png", "foot_heights.png", "torques.png", "solve_times.png"):
        assert (out / name).stat().st_size > 10_000
    printed = capsys.readouterr().out
    assert "walking biped (neutral)" in printed and "report:" in printed
