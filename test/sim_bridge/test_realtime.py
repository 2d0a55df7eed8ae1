"""Real time's time base and tally: the wall-clock backend's stamps, the bridge's deadline count."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_common.state import Push
from sim_bridge.mujoco_backend import MujocoBackend
from sim_bridge.realtime_monitor import RealtimeMonitor
from sim_bridge.wall_clock import WallClockBackend

MS = 1_000_000  # ns


def test_latency_deadline_misses_and_watchdog_trips_are_counted_frame_by_frame():
    period_ns = 4 * MS
    monitor = RealtimeMonitor(sim_start_s=0.0, wall_start_s=100.0)
    late, never = 4 * period_ns, 7 * period_ns
    pending = {}
    for k in range(10):
        stamp = k * period_ns
        wall = 100.0 + k * 0.004
        for answered, at in [(s, t) for s, t in pending.items() if t <= wall]:
            monitor.command_received(answered, at)
            del pending[answered]
        monitor.frame_published(stamp, wall, sim_s=k * 0.004)
        if stamp != never:
            pending[stamp] = wall + (0.005 if stamp == late else 0.001)  # frame 4 answered after frame 5 went out
    monitor.watchdog_tripped()
    tally = monitor.summary()
    # Frames 0..8 were judged when the next one went out: 4 (late) and 7 (unanswered) missed.
    assert (tally.frames, tally.deadline_misses, tally.watchdog_trips) == (9, 2, 1)
    assert tally.deadline_miss_fraction == pytest.approx(2 / 9)
    assert tally.latency_p50_ms == pytest.approx(1.0) and tally.latency_max_ms == pytest.approx(5.0)
    assert tally.sim_over_wall == pytest.approx(1.0)


def test_an_empty_tally_says_so_with_nans_not_zeros():
    tally = RealtimeMonitor(0.0, 0.0).summary()
    assert tally.frames == 0 and np.isnan(tally.latency_p50_ms) and np.isnan(tally.deadline_miss_fraction)


def test_the_wall_clock_backend_stamps_with_the_wall_clock_and_keeps_sim_time_spacing():
    simulation = MujocoBackend(load_robot("biped"))
    robot = WallClockBackend(simulation, wall_s=1.8e9)
    assert robot.now_s() == pytest.approx(1.8e9) and robot.measure().stamp_s == pytest.approx(1.8e9)
    robot.advance(0.004)
    # Between anchors the stamps advance exactly with sim time (the estimator integrates over them).
    assert robot.measure().stamp_s - 1.8e9 == pytest.approx(0.004, abs=1e-6)
    assert robot.ground_truth().stamp_s == robot.measure().stamp_s
    robot.anchor(1.8e9 + 1.0)  # held in the gantry for a second: sim time stood, the stamps did not
    assert robot.measure().stamp_s == pytest.approx(1.8e9 + 1.0) and simulation.now_s() == pytest.approx(0.004)
    robot.apply_push(Push("pelvis", np.array([10.0, 0, 0]), np.zeros(3), start_s=robot.now_s(), duration_s=0.1))
    assert simulation._pushes[-1].start_s == pytest.approx(simulation.now_s(), abs=1e-6)  # sim time underneath (float epoch seconds: 0.2 µs steps)
