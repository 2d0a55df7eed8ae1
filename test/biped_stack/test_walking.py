"""Closed loop in MuJoCo, in-process: short walks of both robots, and injected faults (an MPC
failure, a NaN reference, WBC QP failures) that are logged, fall back, and do not drop a
standing robot. The full teleop script over every robot × style is in the slow suite."""

import numpy as np
import pytest

import wbc_node.wbc
from biped_common.resources import params_file
from biped_common.rotations import quats_yaw
from biped_stack.lockstep import LockstepSimulation
from biped_stack.scenario import Scenario, ScenarioPush, Segment, load_scenario
from biped_stack.push_cases import scenario_for
from biped_stack.walking import run_walk
from biped_stack.walking import WalkingController
from biped_stack.tracking import segment_velocity_error, within_velocity_bars
from gait_planner_node.style import load_style, shipped_styles
from wbc_node.qp import QpSolution


def check_walk(metrics, scenario_segments_checked=None):
    """No fall, no fallback, slip < 2 cm, and each segment's velocity within the bars
    (:mod:`biped_stack.tracking`: 0.05 m/s / 0.1 rad/s of the command clamped into the style's range)."""
    assert not metrics["fell"], metrics["fall_reason"]
    style = load_style(metrics["style"])
    for segment in metrics["segments"]:
        if scenario_segments_checked and segment["name"] not in scenario_segments_checked:
            continue
        assert within_velocity_bars(segment_velocity_error(style, segment)), segment
    assert metrics["max_foot_slip_m"] < 0.02
    assert metrics["fallbacks"] == 0


SHORT = Scenario("short", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0)),
                           Segment("turn", 3.0, (0.0, 0.0, 0.5))))


@pytest.mark.parametrize("robot_name, style", [("humanoid", "neutral"), ("biped", "bouncy")])
def test_short_walk_tracks_the_command(robot_name, style):
    result = run_walk(robot_name, style, SHORT, progress=lambda m: None, state_source="ground_truth")
    check_walk(result.metrics)
    assert result.metrics["wbc_solve_ms"]["p50"] is not None


def test_the_style_first_gains_walk_nearer_the_designed_swing():
    """config/wbc_style_first.yaml (issue #18): the walk tracks the command as with the shipped
    gains, and the forward segment's swing path is within 1 cm RMS of the plan (the shipped
    gains: 2.8 cm on the teleop script, 2026-12-07) with the apex at least 0.85 of the planned; the
    stance foot rolls onto its toe before lift-off as the style plans it (held flat: ×0.05)."""
    result = run_walk("humanoid", "neutral", SHORT, progress=lambda m: None, state_source="ground_truth",
                      wbc_gains=params_file("wbc_style_first.yaml"))
    check_walk(result.metrics)
    assert result.metrics["wbc_gains"].endswith("wbc_style_first.yaml")
    forward = next(f for f in result.metrics["style_fidelity"] if f["name"] == "forward")
    print(forward)
    assert forward["sole_swing_path_rms_m"] <= 0.01 and forward["swing_apex_ratio"] >= 0.85, forward
    assert forward["toe_off_pitch_ratio"] >= 0.5, forward
    assert result.metrics["wbc_recovery"]["max_level"] == 0.0  # nothing pushed: the style's gains throughout


@pytest.mark.slow
@pytest.mark.parametrize("style", shipped_styles())
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_the_teleop_script_in_every_style(robot_name, style):
    result = run_walk(robot_name, style, load_scenario("teleop"), progress=lambda m: None, state_source="ground_truth")
    check_walk(result.metrics)


def standing_controller(robot="humanoid"):
    sim = LockstepSimulation(robot)
    messages = []
    controller = WalkingController(sim.robot, load_style("neutral"), lambda frame: sim.backend.ground_truth(),
                                   log=messages.append)
    sim.controller = controller
    return sim, controller, messages


def run_standing(sim, seconds):
    heights = [sim.step().ground_truth.position_m[2] for _ in range(int(seconds / sim.config.control_period_s))]
    assert not sim.backend.body_contacts_other_than_feet()
    return min(heights)


def run_with_tampered_reference(monkeypatch, sim, controller, seconds, tamper):
    """Stand for ``seconds`` with every planner reference passed through ``tamper`` (in place);
    the planner is restored afterwards. Returns the lowest pelvis height."""
    original = controller.planner.reference

    def tampered(*args, **kwargs):
        ref = original(*args, **kwargs)
        tamper(ref)
        return ref
    monkeypatch.setattr(controller.planner, "reference", tampered)
    low = run_standing(sim, seconds)
    monkeypatch.setattr(controller.planner, "reference", original)
    return low


def test_mpc_failure_is_logged_and_the_previous_plan_continues():
    sim, controller, messages = standing_controller()
    run_standing(sim, 0.5)
    controller.com_planner.mpc._solver.update_settings(max_iter=1)
    low = run_standing(sim, 1.0)
    controller.com_planner.mpc._solver.update_settings(max_iter=4000)
    low = min(low, run_standing(sim, 0.5))
    assert any("MPC solve failed" in m and "previous plan" in m for m in messages)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m


def test_nan_reference_is_logged_and_the_previous_reference_continues(monkeypatch):
    sim, controller, messages = standing_controller()
    run_standing(sim, 0.5)
    low = run_with_tampered_reference(monkeypatch, sim, controller, 0.5,
                                      lambda ref: ref.pelvis_height_m.__setitem__(slice(None), np.nan))
    low = min(low, run_standing(sim, 0.5))
    assert any("non-finite gait reference" in m for m in messages)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m


def test_wbc_qp_failure_engages_the_stand_controller(monkeypatch):
    sim, controller, messages = standing_controller("biped")
    run_standing(sim, 0.5)
    assert controller.wbc.fallback_reason == ""
    monkeypatch.setattr(wbc_node.wbc, "solve_qp", lambda *a, **k: QpSolution(False, "injected failure", None))
    low = run_standing(sim, 1.0)
    assert "injected failure" in controller.wbc.fallback_reason
    monkeypatch.undo()
    low = min(low, run_standing(sim, 0.5))
    assert controller.wbc.fallback_reason == ""  # walking again, and it says so
    assert any("QP failed" in m and "injected failure" in m and "stand controller engaged" in m for m in messages)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m
    assert len(controller.log.fallbacks) >= round(0.8 / sim.config.control_period_s)  # (nearly) every tick of that second fell back


def test_an_empty_support_region_is_refused_and_the_previous_plan_continues(monkeypatch):
    """A reference whose contact schedule has no foot on the ground (no support polygon: an MPC
    problem that cannot be posed) is refused by the MPC tick, logged, and the plan before it goes
    on; the robot keeps standing."""
    sim, controller, messages = standing_controller()
    run_standing(sim, 0.5)

    def airborne(ref):
        ref.in_stance["left"][:] = False
        ref.in_stance["right"][:] = False
    low = run_with_tampered_reference(monkeypatch, sim, controller, 0.3, airborne)
    low = min(low, run_standing(sim, 0.5))
    assert any("MPC: reference rejected (no foot in stance" in m for m in messages)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m


def test_stale_inputs_hold_a_standing_robot_in_place(monkeypatch):
    """The planner and MPC stop (as when their nodes die): after the staleness limits the WBC
    holds the stance it is in (logged, not the joint-space stand controller) and the robot stays up."""
    sim, controller, messages = standing_controller("biped")
    run_standing(sim, 0.5)
    monkeypatch.setattr(controller, "_replan", lambda *args: None)
    low = run_standing(sim, 1.5)
    assert any("stale gait reference or CoM plan: stopping in the double support" in m for m in messages)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m
    assert not controller.log.fallbacks


# The outage: long enough for the whole stop — the WBC sees its inputs stale 0.5 s after they
# stopped, finishes the step (up to ≈ 0.35 s more) and then moves the CoM over the middle of the
# soles (≈ 0.6 s). At 1.2 s the biped was still moving its CoM at 7.5 cm/s towards the middle
# after an MPC outage at 0.2 m/s (the stop came 0.81 s after the kill), and 8 cm/s from 0.3 m/s.
OUTAGE_S = 1.5


@pytest.mark.parametrize("dies", ["planner", "mpc"])
def test_a_controller_outage_mid_walk_stops_the_robot_in_place_and_it_walks_on(dies):
    """The planner (or the MPC) stops answering mid-stride for OUTAGE_S of sim time, then a new one
    starts, as a respawned node does: the WBC finishes the step and holds the double support (the
    joint-space stand controller let the biped rock 7 cm past its feet and twist 0.29 rad, and fall
    after the restart); the new planner starts from the measured soles — or, when the MPC was
    away, the running planner notices the robot stopped following and starts again from there —
    and the robot walks on. Estimator in the loop, MEMS sensors, kill times across a step."""
    from sim_bridge.bridge import BridgeConfig
    from state_estimator_node.estimator import StateEstimator
    from gait_planner_node.anchor import LEFT_PLAN_POSITION_M, SolePose, planner_standing_on, stance_mismatch
    from mpc_node.planning import ComPlanner
    sim = LockstepSimulation("biped", config=BridgeConfig.with_mems_sensors(robot="biped"))
    estimator = StateEstimator(sim.robot)
    messages = []
    controller = WalkingController(sim.robot, load_style("neutral"), estimator.update, log=messages.append)
    sim.controller = controller
    replan, latest_q, dead = controller._replan, {}, {"now": False}

    def outage_replan(now, q, v):
        latest_q["q"] = q
        if not (dies == "planner" and dead["now"]):
            replan(now, q, v)
    controller._replan = outage_replan
    controller.set_command([0.2, 0.0, 0.0])
    for _ in range(int(3.21 / sim.config.control_period_s)):
        sim.step()
    dead["now"] = True
    if dies == "mpc":
        controller.com_planner.update = lambda *args: None
    yaw_before = quats_yaw(sim.backend.ground_truth().orientation_wxyz)
    low = min(sim.step().ground_truth.position_m[2] for _ in range(int(OUTAGE_S / sim.config.control_period_s)))
    dead["now"] = False
    held = sim.backend.ground_truth()
    soles_now = {side: SolePose(*pose) for side, pose in sim.robot.sole_poses(latest_q["q"]).items()}
    mismatch = stance_mismatch(controller.planner.reference(), soles_now)
    kept_on_the_robot = mismatch is not None and mismatch[1] <= LEFT_PLAN_POSITION_M
    assert np.hypot(*held.linear_velocity_world_m_s[:2]) < 0.05, "not standing still after the outage"
    assert abs(quats_yaw(held.orientation_wxyz) - yaw_before) < 0.05, "twisted on its feet"
    if dies == "planner":
        soles = {side: SolePose(*pose) for side, pose in sim.robot.sole_poses(latest_q["q"]).items()}
        controller.planner = planner_standing_on(soles, controller.planner.style, controller.planner.config,
                                                 controller.planner.command)
        controller._planner_time_s = None
    else:
        controller.com_planner = ComPlanner(sim.robot, log=controller._log)
    x0 = held.position_m[0]
    low = min(run_standing(sim, 3.0), low)
    assert low > 0.9 * sim.robot.nominal_pelvis_height_m
    assert sim.backend.ground_truth().position_m[0] - x0 > 0.4  # 0.2 m/s for 3 s, less the ramp
    assert any("stopping in the double support" in m for m in messages)
    assert any("walking on" in m for m in messages), messages
    if dies == "mpc":
        # The planner walked on without the robot: either it noticed and started again from where
        # the robot stands, or its feedback kept it on the robot (feet taken where they landed).
        assert any("the robot is not where the plan is" in m for m in messages) or kept_on_the_robot, messages
    assert not controller.log.fallbacks


def test_an_estimator_restarted_mid_walk_from_the_planned_pelvis_keeps_the_robot_walking():
    """A respawned estimator starts from the gait planner's pelvis pose, orientation included:
    started from the accelerometer mid-stride it read the biped's lateral sway as 0.19 rad of roll
    and the robot fell (this instant, in-process)."""
    from sim_bridge.bridge import BridgeConfig
    from state_estimator_node.estimator import StateEstimator
    sim = LockstepSimulation("biped", config=BridgeConfig.with_mems_sensors(robot="biped"))
    box = {"estimator": StateEstimator(sim.robot)}
    controller = WalkingController(sim.robot, load_style("neutral"), lambda frame: box["estimator"].update(frame),
                                   log=lambda m: None)
    sim.controller = controller
    controller.set_command([0.2, 0.0, 0.0])
    for _ in range(int(3.0 / sim.config.control_period_s)):
        sim.step()
    body, x0 = controller.planner.body, sim.backend.ground_truth().position_m[0]
    box["estimator"] = StateEstimator(sim.robot, initial_xy_m=(body.x, body.y),
                                      initial_quat_wxyz=controller.planner.reference().pelvis_quat_wxyz[0])
    worst = 0.0
    for _ in range(int(3.0 / sim.config.control_period_s)):
        record = sim.step()
        estimate = box["estimator"].state()
        worst = max(worst, float(np.hypot(*(estimate.position_m[:2] - record.ground_truth.position_m[:2]))))
        assert record.ground_truth.position_m[2] > 0.8 * sim.robot.nominal_pelvis_height_m
    assert worst < 0.06
    assert sim.backend.ground_truth().position_m[0] - x0 > 0.4


def test_walks_on_the_estimator_with_mems_sensors():
    """The estimator in the loop (no ground truth for the controllers), MEMS-level sensor noise."""
    result = run_walk("biped", "neutral", SHORT, progress=lambda m: None, state_source="estimator")
    check_walk(result.metrics)
    estimate = result.metrics["estimator"]
    assert result.metrics["sensors"] == "mems"
    assert estimate["roll_pitch_rms_deg"] < 1.0 and estimate["yaw_drift_deg"] < 3.0
    assert estimate["velocity_rms_mps"] < 0.05 and estimate["position_drift_ratio"] < 0.03


def test_a_bouncing_pelvis_is_not_read_as_tilt():
    """Bouncy accelerates the pelvis by metres per second squared at every step; the estimator
    removes the legs' kinematic base acceleration from the accelerometer before reading gravity
    from it, and anchors each stance foot at its centre of pressure (measured on this walk:
    0.54° and 0.014 m/s RMS; without those two, 1.33° and 0.040 m/s)."""
    result = run_walk("humanoid", "bouncy", SHORT, progress=lambda m: None, state_source="estimator")
    check_walk(result.metrics)
    estimate = result.metrics["estimator"]
    assert estimate["roll_pitch_rms_deg"] < 0.8
    assert estimate["velocity_rms_mps"] < 0.025


def check_teleop_on_the_estimator(robot_name, style):
    result = run_walk(robot_name, style, load_scenario("teleop"), progress=lambda m: None, state_source="estimator")
    check_walk(result.metrics)
    estimate = result.metrics["estimator"]
    assert estimate["roll_pitch_rms_deg"] <= 1.0 and estimate["yaw_drift_deg"] <= 3.0
    assert estimate["velocity_rms_mps"] <= 0.05 and estimate["position_drift_ratio"] <= 0.03
    check_fidelity_floor(result.metrics["style_fidelity"], [s["name"] for s in result.metrics["segments"]])


def check_fidelity_floor(fidelity, segment_names):
    """The style fidelity of every walking segment above a floor under today's figures (apex
    0.75–0.95, sole path RMS 0.9–2.9 cm, bob amplitude 0.64–1.05 on 2026-12-06): a regression
    guard — issue #18's bars (apex ≥ 0.85, path ≤ 1 cm, bob 0.8–1.2 within 10 ms) are not met yet."""
    assert [f["name"] for f in fidelity] == segment_names
    for f in fidelity:
        if f["name"] in ("stand", "stop"):
            continue
        assert f["swings"] >= 3, f
        assert f["swing_apex_ratio"] >= 0.7 and f["sole_swing_path_rms_m"] <= 0.035, f
        assert f["pelvis_height_rms_m"] <= 0.015, f
        assert f["pelvis_height_amplitude_ratio"] is None or f["pelvis_height_amplitude_ratio"] >= 0.55, f


def test_the_hardest_combination_walks_the_teleop_script_on_the_estimator():
    """Biped (no arms, the lightest upper body) in bouncy (0.23 s swings, the pelvis bobbing at
    ±0.4 g at 0.3 m/s once the style is limited at load; it fell at 7 s with the swings' 60 m/s²
    fed forward before): it fell at 10.5 s of this script, its CoM drifting sideways off the
    footholds, before the MPC held the CoM over the body path sideways."""
    check_teleop_on_the_estimator("biped", "bouncy")


@pytest.mark.slow
@pytest.mark.parametrize("style", shipped_styles())
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_the_teleop_script_on_the_estimator(robot_name, style):
    check_teleop_on_the_estimator(robot_name, style)


# Issue #18 bar 2 is not met by the biped at 0.6 m/s forward: it walks 0.53-0.55 m/s there
# (2026-12-06, bench/style_fidelity.py --speed), its DCM lagging the gait feedback's nominal one so
# that the clock slows and the footholds pull back. A regression floor, not the bar.
BIPED_FORWARD_FAST_FLOOR_M_S = 0.5
WIDE = Scenario("wide", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 3.0, (0.3, 0.0, 0.0)),
                         Segment("forward_fast", 6.0, (0.6, 0.0, 0.0)), Segment("turn", 4.0, (0.0, 0.0, 1.0))))


def test_the_humanoid_walks_the_wide_speed_range():
    """Issue #18 bar 2's corners on the estimator: 0.6 m/s forward and 1 rad/s in neutral."""
    result = run_walk("humanoid", "neutral", WIDE, progress=lambda m: None, state_source="estimator")
    check_walk(result.metrics)


@pytest.mark.slow
@pytest.mark.parametrize("style", ["neutral", "bouncy"])
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_the_fast_scenario_on_the_estimator(robot_name, style):
    """Issue #18 bar 2: config/scenarios/fast.yaml (0.6 m/s forward, 0.3 back, 0.25 sideways,
    1 rad/s, 0.3 m/s turning at 0.5 rad/s) with the velocity bars — all of them on the humanoid;
    the biped falls short at 0.6 m/s forward (see BIPED_FORWARD_FAST_FLOOR_M_S), every other
    segment within the bars."""
    scenario = load_scenario("fast")
    metrics = run_walk(robot_name, style, scenario, progress=lambda m: None, state_source="estimator").metrics
    if robot_name == "biped":
        check_walk(metrics, [s.name for s in scenario.segments if s.name != "forward_fast"])
        fast = next(s for s in metrics["segments"] if s["name"] == "forward_fast")
        assert fast["achieved"][0] >= BIPED_FORWARD_FAST_FLOOR_M_S, fast
    else:
        check_walk(metrics)


# The biped walks brisk's 0.8 m/s command at 0.67 m/s (2026-12-06, bench/style_fidelity.py --speed
# --styles brisk): like forward_fast above, a regression floor under what it does, not the bar.
BIPED_BRISK_FLOOR_M_S = 0.62


@pytest.mark.slow
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_brisk_walks_towards_0_8_m_s(robot_name):
    """Issue #18 bar 2's brisk style, from 0.4 m/s up to a commanded 0.8 m/s: the humanoid walks
    it (0.82 m/s on 2026-12-06), the biped to BIPED_BRISK_FLOOR_M_S. The feet slip more than in the
    teleop script's 2 cm bar (2.2 / 2.7 cm, humanoid / biped): bounded at 3.5 cm here."""
    result = run_walk(robot_name, "brisk", load_scenario("brisk"), progress=lambda m: None, state_source="estimator")
    metrics = result.metrics
    assert not metrics["fell"], metrics["fall_reason"]
    assert metrics["max_foot_slip_m"] < 0.035 and metrics["fallbacks"] == 0
    segments = {s["name"]: s for s in metrics["segments"]}
    assert abs(segments["forward"]["achieved"][0] - 0.4) <= 0.05, segments["forward"]
    fastest = segments["forward_fastest"]["achieved"][0]
    if robot_name == "humanoid":
        assert abs(fastest - 0.8) <= 0.05, segments["forward_fastest"]
    else:
        assert fastest >= BIPED_BRISK_FLOOR_M_S, segments["forward_fastest"]


# What config/wbc_style_first.yaml reaches on the teleop script (README, "Style fidelity",
# 2026-12-07): issue #18's apex, bob-amplitude and bob-lag bars (the lag measured 2-9 ms); the
# path as a regression bound over the measured 0.43-1.19 cm (the bar is 1 cm: see README).
STYLE_FIRST_PATH_RMS_M = 0.013
STYLE_FIRST_BOB_LAG_S = 0.010


@pytest.mark.slow
@pytest.mark.parametrize("style", ["neutral", "bouncy"])
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_the_style_first_gains_on_the_teleop_script(robot_name, style):
    metrics = run_walk(robot_name, style, load_scenario("teleop"), progress=lambda m: None, state_source="estimator",
                       wbc_gains=params_file("wbc_style_first.yaml")).metrics
    check_walk(metrics)
    for f in metrics["style_fidelity"]:
        if f["name"] in ("stand", "stop"):
            continue
        assert f["swing_apex_ratio"] >= 0.85 and f["sole_swing_path_rms_m"] <= STYLE_FIRST_PATH_RMS_M, f
        if f["pelvis_height_lag_s"] is not None:
            assert 0.8 <= f["pelvis_height_amplitude_ratio"] <= 1.2 and f["pelvis_height_lag_s"] <= STYLE_FIRST_BOB_LAG_S, f


def estimator_standing(robot="biped"):
    """A standing robot whose controllers read the estimator; returns the pieces and a stepper
    that can tamper with each frame before the estimator sees it."""
    from sim_bridge.bridge import BridgeConfig
    from state_estimator_node.estimator import StateEstimator
    sim = LockstepSimulation(robot, config=BridgeConfig.with_mems_sensors(robot=robot))
    estimator = StateEstimator(sim.robot)
    messages, tamper = [], {"frame": None}

    def source(frame):
        if tamper["frame"] is not None:
            frame = tamper["frame"](frame)
            if frame is None:  # dropped
                return estimator.state()
        estimate = estimator.update(frame)
        messages.extend(estimator.status.warnings)
        return estimate
    controller = WalkingController(sim.robot, load_style("neutral"), source, log=messages.append)
    sim.controller = controller
    return sim, estimator, messages, tamper


def estimate_error(sim, estimator):
    truth, estimate = sim.backend.ground_truth(), estimator.state()
    return (np.linalg.norm(estimate.position_m - truth.position_m),
            np.linalg.norm(estimate.linear_velocity_world_m_s - truth.linear_velocity_world_m_s))


def test_estimator_faults_imu_dropout_nan_and_foot_slip_while_standing():
    import dataclasses
    from biped_common.state import ImuReading
    sim, estimator, messages, tamper = estimator_standing()
    run_standing(sim, 1.0)
    # 100 ms without IMU messages (the frames' IMU part is missing: the estimator sees no frame).
    tamper["frame"] = lambda frame: None
    run_standing(sim, 0.1)
    # A NaN IMU message.
    tamper["frame"] = lambda frame: dataclasses.replace(
        frame, imu=ImuReading(frame.imu.orientation_wxyz, frame.imu.angular_velocity_rad_s, np.full(3, np.nan)))
    run_standing(sim, 0.01)
    tamper["frame"] = None
    low = run_standing(sim, 1.0)
    position_error, velocity_error = estimate_error(sim, estimator)
    assert position_error < 0.02 and velocity_error < 0.05
    assert any("non-finite IMU" in m for m in messages)
    # A foot slip of several centimetres: the left foot is dragged sideways along the ground by
    # an external push on it (100 N for 0.15 s slides it by more than 4 cm here; 72 N did before the
    # MPC's push estimate and the stronger swing task).
    import mujoco
    from biped_common.state import Push
    site = mujoco.mj_name2id(sim.backend.model, mujoco.mjtObj.mjOBJ_SITE, "l_sole")
    before = sim.backend.data.site_xpos[site].copy()
    sim.bridge.push(Push("l_foot", np.array([0.0, 100.0, 0.0]), np.zeros(3), sim.backend.now_s(), 0.15))
    low = min(low, run_standing(sim, 0.3))
    # (Measured right after: the gait feedback may then step the robot back onto its feet.)
    slip = np.linalg.norm(sim.backend.data.site_xpos[site][:2] - before[:2])
    low = min(low, run_standing(sim, 2.5))  # it stands again ≈ 2.4 s after the drag
    position_error, velocity_error = estimate_error(sim, estimator)
    assert slip > 0.04, slip
    # The drag is also a push (15 N·s on 15.3 kg) the MPC's estimate sees: the feedback steps,
    # lifting the dragged foot, and the pelvis dips to ≈ 0.89 of its height in that step.
    assert low > 0.85 * sim.robot.nominal_pelvis_height_m
    assert velocity_error < 0.02 and position_error < 0.02


def test_a_scenario_push_reaches_the_robot_with_the_impulse_it_carries():
    """150 N × 0.05 s to the left on the standing humanoid's pelvis (7.5 N·s on 18.3 kg): the base
    gains ≈ 0.4 m/s sideways within the push, the robot stands through it, and the report says so."""
    push = ScenarioPush(1.0, 0.05, (0.0, 150.0, 0.0))
    scenario = Scenario("push", (Segment("stand", 4.0, (0.0, 0.0, 0.0)),), (push,))
    result = run_walk("humanoid", "neutral", scenario, progress=lambda m: None, state_source="ground_truth")
    t, velocity = result.trace["time_s"], result.trace["base_velocity_world_m_s"]
    before = velocity[np.searchsorted(t, 0.99), 1]
    after = velocity[np.searchsorted(t, 1.06), 1]
    assert 0.25 < after - before < 0.45  # 7.5 N·s / 18.3 kg = 0.41 m/s, less what the feet push back
    assert abs(velocity[np.searchsorted(t, 1.06), 0]) < 0.1  # to the side, not forward
    (report,) = result.metrics["pushes"]
    assert report["survived"] and not result.metrics["fell"]
    assert report["peak_velocity_error_m_s"] > 0.25 and report["regained_after_s"] is not None


def _push_scenario(walking: bool, force_n):
    from biped_stack.scenario import Scenario, ScenarioPush, Segment
    if walking:
        segments = (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 9.0, (0.3, 0.0, 0.0)))
        start = 4.0
    else:
        segments, start = (Segment("stand", 8.0, (0.0, 0.0, 0.0)),), 2.0
    return Scenario("push", segments, (ScenarioPush(start, 1.0, force_n),))


def test_the_humanoid_walks_through_the_papers_push():
    """Issue #16: 25 N for 1 s forward on the pelvis while walking 0.3 m/s (estimator, MEMS
    sensors): before the gait feedback and the MPC's push estimate it fell within 1.1 s of the
    push's start; now it survives and has the commanded velocity back within 3 s, the footsteps
    and the clock having adjusted and returned."""
    result = run_walk("humanoid", "neutral", _push_scenario(True, (25.0, 0.0, 0.0)), progress=lambda m: None)
    push, feedback = result.metrics["pushes"][0], result.metrics["feedback"]
    assert push["survived"], result.metrics["fall_reason"]
    assert push["regained_after_s"] is not None and push["regained_after_s"] <= 3.0
    assert feedback["pushes"][0]["peak_dcm_error_m"] > 0.03  # it was pushed
    rows = np.array(result.log.feedback)
    late = rows[rows[:, 0] > 8.0]
    # The style back, by bar 3's measure: the step period within 5 % of the unpushed one; and
    # the clock near the style's (RMS of κ − 1; in steady walking κ swings ±3-5 % a step, the
    # feedback's nominal DCM and the MPC's differing by 1-2 cm). 2026-12-06: ratio 1.026, RMS
    # 0.016 (0.052 at most); before the speed range widened 1.000, RMS 0.015 (0.036 at most).
    assert abs(push["step_period_ratio"] - 1.0) <= 0.05, push
    assert np.sqrt(np.mean((late[:, 7] - 1.0) ** 2)) < 0.03


def test_a_pushed_standing_humanoid_steps_and_stands_again():
    """25 N × 1 s backward on a standing humanoid: its heel cannot hold it (before: fell at
    t = 3.9 s); the planner leaves standing, steps until the DCM error is small, then stands."""
    result = run_walk("humanoid", "neutral", _push_scenario(False, (-25.0, 0.0, 0.0)), progress=lambda m: None)
    assert result.metrics["pushes"][0]["survived"], result.metrics["fall_reason"]
    rows = np.array(result.log.feedback)
    assert rows[:, 8].any(), "never stepped"
    assert not rows[-1, 8], "still stepping at the end"
    stance = result.trace
    assert stance["left_planned_stance"][-200:].all() and stance["right_planned_stance"][-200:].all()


def test_the_standing_biped_steps_out_of_the_papers_push_at_once():
    """25 N × 1 s forward on the standing biped (15.3 kg: the ankles hold its DCM for ≈ 0.4 s):
    with the clock's start-up ramp and a step that ignored the sustained push it fell at
    t = 4.5 s; now the first foot lifts as the DCM nears the toes and lands far enough ahead."""
    result = run_walk("biped", "neutral", scenario_for("stand", "25N fwd", 1.0, 25.0, 0.0), progress=lambda m: None)
    assert result.metrics["pushes"][0]["survived"], result.metrics["fall_reason"]
    rows = np.array(result.log.feedback)
    first_step_s = rows[rows[:, 8] > 0, 0].min()
    trace = result.trace
    t = trace["time_s"]
    lifted = ~(trace["left_planned_stance"] & trace["right_planned_stance"]) & (t > first_step_s)
    assert t[lifted].min() - first_step_s < 0.1  # a foot is in the air within 0.1 s


def test_the_style_first_gains_switch_to_the_recovery_gains_under_the_papers_push():
    """config/wbc_style_first.yaml schedules its gains by push (wbc_node/recovery.py): without the
    schedule the humanoid falls to the paper's push walking (2026-12-07: 4 of its 12 walking push
    cases survived); with it, it survives, the recovery level rising with the push's start and
    back to 0 (the style's gains) after it, the commanded velocity regained within 3 s."""
    result = run_walk("humanoid", "neutral", _push_scenario(True, (25.0, 0.0, 0.0)), progress=lambda m: None,
                      wbc_gains=params_file("wbc_style_first.yaml"))
    push = result.metrics["pushes"][0]
    assert push["survived"], result.metrics["fall_reason"]
    assert push["regained_after_s"] is not None and push["regained_after_s"] <= 3.0
    rows = np.array(result.log.recovery_level)
    start = 4.0  # the push's (see _push_scenario)
    assert np.all(rows[rows[:, 0] < start, 1] == 0.0)
    assert rows[(rows[:, 0] >= start) & (rows[:, 0] <= start + 0.15), 1].max() == 1.0  # within 0.15 s
    # Back to 0 after the push (1 s), the push estimate's fall (0.3 s on 2026-12-07), the hold
    # (2.5 s) and the release (1 s): the level was 0 from 8.71 s on.
    assert np.all(rows[rows[:, 0] > start + 1.0 + 0.5 + 2.5 + 1.0, 1] == 0.0)
    recovery = result.metrics["wbc_recovery"]
    assert recovery["max_level"] == 1.0 and 3.5 < recovery["recovering_s"] < 5.5
