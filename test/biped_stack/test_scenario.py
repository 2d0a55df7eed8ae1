"""Scenario files and the walking metrics computed from traces."""

import json

import numpy as np
import pytest

from biped_common.errors import ConfigError
from biped_common.resources import params_file
from biped_stack.cli import main
from biped_stack.scenario import (RECOVERY_TOLERANCE_M_S, Scenario, ScenarioPush, Segment, load_scenario, max_foot_slip_m,
                                  push_metrics, segment_metrics)


def test_the_shipped_teleop_script_is_the_issue_s():
    s = load_scenario("teleop")
    assert [(g.name, g.duration_s, g.velocity) for g in s.segments] == [
        ("stand", 1.0, (0.0, 0.0, 0.0)), ("forward", 10.0, (0.3, 0.0, 0.0)), ("turn", 5.0, (0.0, 0.0, 0.5)),
        ("sidestep_left", 5.0, (0.0, 0.1, 0.0)), ("backward", 5.0, (-0.2, 0.0, 0.0)), ("stop", 3.0, (0.0, 0.0, 0.0))]
    assert s.duration_s == 29.0
    assert s.command_at(0.5) == (0.0, 0.0, 0.0) and s.command_at(1.0) == (0.3, 0.0, 0.0)
    assert s.command_at(100.0) == (0.0, 0.0, 0.0)


ONE_SEGMENT = "segments: [{name: a, duration_s: 5, velocity: [0, 0, 0]}]\n"


@pytest.mark.parametrize("text, field", [
    ("segments: []", "segments"),
    ("segments: [{name: a, duration_s: 1.0}]", "segments[0].velocity"),
    ("segments: [{name: a, duration_s: -1, velocity: [0, 0, 0]}]", "segments[0].duration_s"),
    ("segments: [{name: a, duration_s: 1, velocity: [0, 0]}]", "segments[0].velocity"),
    ("segments: [{name: a, duration_s: 1, velocity: [0, x, 0]}]", "segments[0].velocity[1]"),
    ("speed_scale: 2\nsegmets: []", "segmets"),
    (ONE_SEGMENT + "pushes: {start_s: 1}", "pushes"),
    (ONE_SEGMENT + "pushes: [{start_s: 1, duration_s: 1, force_n: [1, 2]}]", "pushes[0].force_n"),
    (ONE_SEGMENT + "pushes: [{start_s: 1, duration_s: 1, force_n: [1, 2, 1e6]}]", "pushes[0].force_n[2]"),
    (ONE_SEGMENT + "pushes: [{start_s: 9, duration_s: 1, force_n: [1, 0, 0]}]", "pushes[0].start_s"),
    (ONE_SEGMENT + "pushes: [{start_s: 1, duration_s: 0, force_n: [1, 0, 0]}]", "pushes[0].duration_s"),
    (ONE_SEGMENT + "pushes: [{start_s: 1, duration_s: 1, force_n: [1, 0, 0], frame: body}]", "pushes[0].frame"),
    (ONE_SEGMENT + "pushes: [{start_s: 1, duration_s: 1, force_n: [1, 0, 0], torque: 1}]", "pushes[0].torque"),
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


def test_the_shipped_push_scenario_loads_its_pushes_in_order():
    s = load_scenario("pushes")
    assert [p.start_s for p in s.pushes] == sorted(p.start_s for p in s.pushes) and len(s.pushes) >= 5
    paper = [p for p in s.pushes if p.force_n == (25.0, 0.0, 0.0)]
    assert paper and paper[0].duration_s == 1.0 and s.command_at(paper[0].start_s) == (0.3, 0.0, 0.0)
    assert all(p.body is None and p.frame == "heading" for p in s.pushes)


def test_a_heading_frame_push_turns_with_the_robot_and_a_world_push_does_not():
    push = ScenarioPush(1.0, 0.5, (10.0, 2.0, -1.0))
    np.testing.assert_allclose(push.force_world_n(np.pi / 2), [-2.0, 10.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(push.force_world_n(0.0), [10.0, 2.0, -1.0])
    world = ScenarioPush(1.0, 0.5, (10.0, 2.0, -1.0), frame="world")
    np.testing.assert_allclose(world.force_world_n(1.0), [10.0, 2.0, -1.0])
    assert push.end_s == 1.5
    with pytest.raises(ValueError, match="frame"):
        ScenarioPush(1.0, 0.5, (1.0, 0.0, 0.0), frame="body")


def _pushed_trace(dt=0.005, duration_s=12.0):
    """Walking at 0.3 m/s along world x (facing x); a push at 2 s knocks it to 0.8 m/s, decaying
    back with a 0.5 s time constant from the push's end (2.1 s)."""
    t = np.arange(0.0, duration_s, dt)
    vx = np.full(t.size, 0.3)
    after = t >= 2.1
    vx[(t >= 2.0) & ~after] = 0.8
    vx[after] = 0.3 + 0.5 * np.exp(-(t[after] - 2.1) / 0.5)
    return {"time_s": t, "base_quat_wxyz": np.tile([1.0, 0, 0, 0], (t.size, 1)),
            "base_velocity_world_m_s": np.column_stack([vx, np.zeros((t.size, 2))]), "base_yaw_rate_rad_s": np.zeros(t.size)}


def test_push_metrics_survival_peak_error_and_when_the_velocity_is_back():
    scenario = Scenario("s", (Segment("walk", 12.0, (0.3, 0.0, 0.0)),),
                        (ScenarioPush(2.0, 0.1, (150.0, 0.0, 0.0)), ScenarioPush(7.0, 1.0, (0.0, 20.0, 0.0))))
    arrays = _pushed_trace()
    first, second = push_metrics(scenario, arrays, fall_time_s=None)
    assert first["survived"] and second["survived"]
    assert first["impulse_n_s"] == pytest.approx(15.0) and first["peak_velocity_error_m_s"] == pytest.approx(0.5)
    # The mean over the next 2 s of 0.5·exp(-τ/0.5) is 0.125·exp(-d/0.5)·(1 - e^-4) ≤ 0.05 from d ≈ 0.45 s.
    expected = -0.5 * np.log(RECOVERY_TOLERANCE_M_S / (0.125 * (1 - np.exp(-4.0))))
    assert first["regained_after_s"] == pytest.approx(expected, abs=0.01)
    assert second["regained_after_s"] == 0.0  # the trace is already back at the command
    # A fall is the latest push's: after the first push's next start it is the second's.
    first, second = push_metrics(scenario, arrays, fall_time_s=8.0)
    assert first["survived"] is True and second["survived"] is False and second["regained_after_s"] is None
    first, second = push_metrics(scenario, arrays, fall_time_s=3.0)
    assert first["survived"] is False and second["survived"] is None


def test_step_period_ratio_compares_the_step_timing_after_a_push_with_before():
    from biped_stack.scenario import step_period_ratio
    before = np.arange(0.0, 2.01, 0.4)           # a step every 0.4 s
    after = 5.0 + np.arange(0.0, 2.01, 0.42)     # 5 % slower
    touch_downs = np.concatenate([after, before])  # either foot, in any order
    assert step_period_ratio(touch_downs, (0.0, 2.0), (5.0, 7.0)) == pytest.approx(1.05)
    assert step_period_ratio(touch_downs, (0.0, 2.0), (0.0, 2.0)) == pytest.approx(1.0)
    assert step_period_ratio(touch_downs, (2.5, 4.5), (5.0, 7.0)) is None  # standing before: no steps


def test_demo_refuses_a_missing_wbc_gains_file_and_wbc_gains_over_dds(tmp_path, capsys):
    assert main(["demo", "--wbc-gains", str(tmp_path / "none.yaml"), "--out", str(tmp_path), "--no-video"]) == 2
    assert "none.yaml: <file>: cannot read" in capsys.readouterr().err
    assert main(["demo", "--wbc-gains", str(params_file("wbc_style_first.yaml")), "--multiprocess",
                 "--out", str(tmp_path)]) == 2
    assert "in-process only" in capsys.readouterr().out
