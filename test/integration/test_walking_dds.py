"""Walking with every node its own process over DDS (launch/sim.launch.xml, lockstep), driven by
a scenario on /cmd_vel: the same tracking bars as in-process."""

import numpy as np
import pytest

from biped_stack.ros_walk import run_walk_multiprocess
from biped_stack.scenario import Scenario, Segment, load_scenario

pytestmark = pytest.mark.dds


def check(metrics):
    assert not metrics["fell"], metrics["fall_reason"]
    for segment in metrics["segments"]:
        error = np.abs(np.subtract(segment["achieved"], segment["commanded"]))
        assert error[0] <= 0.05 and error[1] <= 0.05 and error[2] <= 0.1, segment
    assert metrics["max_foot_slip_m"] < 0.02
    assert metrics["wbc_solve_ms"]["p50"] is not None and metrics["mpc_solve_ms"]["p50"] is not None
    assert metrics["real_time_factor"] > 0.05


def test_biped_walks_forward_over_dds(tmp_path, ros_domain_id):
    scenario = Scenario("short", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 4.0, (0.3, 0.0, 0.0))))
    result = run_walk_multiprocess("biped", "neutral", scenario, tmp_path, progress=lambda m: None,
                                   state_source="ground_truth")
    check(result.metrics)
    assert [s["name"] for s in result.metrics["segments"]] == ["stand", "forward"]
    log = (tmp_path / "launch.log").read_text()
    assert "[gait_planner" in log and "[mpc" in log and "[wbc" in log and "Traceback" not in log


def test_biped_walks_over_dds_on_the_estimator(tmp_path, ros_domain_id):
    """The controllers read the estimator's /odom; the bridge runs MEMS-level sensors."""
    scenario = Scenario("short", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("forward", 3.0, (0.3, 0.0, 0.0))))
    result = run_walk_multiprocess("biped", "neutral", scenario, tmp_path, progress=lambda m: None,
                                   state_source="estimator")
    check(result.metrics)
    estimate = result.metrics["estimator"]
    assert estimate["roll_pitch_rms_deg"] <= 1.0 and estimate["yaw_drift_deg"] <= 3.0
    assert estimate["velocity_rms_mps"] <= 0.05 and estimate["position_drift_ratio"] <= 0.03
    assert "[state_estimator" in (tmp_path / "launch.log").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("state_source", ["ground_truth", "estimator"])
@pytest.mark.parametrize("robot_name", ["humanoid", "biped"])
def test_the_teleop_script_over_dds(tmp_path, ros_domain_id, robot_name, state_source):
    result = run_walk_multiprocess(robot_name, "neutral", load_scenario("teleop"), tmp_path, progress=lambda m: None,
                                   state_source=state_source)
    check(result.metrics)
    if state_source == "estimator":
        estimate = result.metrics["estimator"]
        assert estimate["roll_pitch_rms_deg"] <= 1.0 and estimate["yaw_drift_deg"] <= 3.0
        assert estimate["velocity_rms_mps"] <= 0.05 and estimate["position_drift_ratio"] <= 0.03


@pytest.mark.slow  # real time on a shared 2-core machine: the robot fell during start-up in one CI run
def test_a_real_time_run_reports_its_timing(tmp_path, ros_domain_id):
    """Real time over DDS (biped, estimator, MEMS sensors): the run reports the realtime block
    (over the whole simulated time, a fall included). Not yet a walking bar — on this machine the
    stack does not keep up in real time (issue #15); the figures here guard the measurement and a
    regression below today's pace."""
    scenario = Scenario("short", (Segment("stand", 2.0, (0.0, 0.0, 0.0)), Segment("forward", 2.0, (0.2, 0.0, 0.0))))
    result = run_walk_multiprocess("biped", "neutral", scenario, tmp_path, progress=lambda m: None,
                                   state_source="estimator", realtime=True)
    block = result.metrics["realtime"]
    assert "real time" in result.metrics["mode"]
    assert 0.3 <= block["sim_over_wall"] <= 1.1, block
    assert block["deadline_misses"]["frames"] >= 50, block
    assert 0.0 < block["latency_ms"]["p50"] <= block["latency_ms"]["p99"] <= block["latency_ms"]["max"] < 1000.0
    assert {"sim_bridge", "walking_control", "walking_planning"} <= set(block["cpu_percent"]), block
    assert all(0.0 <= v <= 200.0 for v in block["cpu_percent"].values()), block
    log = (tmp_path / "launch.log").read_text()
    assert "starting the simulation" in log and "Traceback" not in log
