"""The realtime block of a DDS run's metrics, from recorded send times (no ROS graph needed)."""

from types import SimpleNamespace

import pytest

from biped_stack.ros_walk import realtime_metrics

MS = 1_000_000  # ns


def test_latency_deadline_misses_and_watchdog_trips_are_counted_from_send_times():
    period_ns = 2 * MS
    frames = {k * period_ns: 1_000 * MS + k * period_ns for k in range(10)}   # frame k sent at 1000 + 2k ms
    commands = {s: sent + 1 * MS for s, sent in frames.items()}               # answered 1 ms later...
    commands[4 * period_ns] = frames[4 * period_ns] + 3 * MS                   # ...but frame 4 after frame 5 was sent
    del commands[7 * period_ns]                                                # and frame 7 never
    recorder = SimpleNamespace(frame_sent_ns=frames, command_sent_ns=commands,
                               bridge_modes=[(0.001, "command"), (0.009, "damping"), (0.011, "command"),
                                             (0.5, "damping")])  # the last one after the window
    block = realtime_metrics(recorder, 0.0, 0.018, 0.002, 0.97, {"walking_control": 61.0})
    assert block["sim_over_wall"] == 0.97 and block["cpu_percent"] == {"walking_control": 61.0}
    assert block["watchdog_trips"] == 1
    # Frames 0..8 have a next frame to be judged against: 4 (late) and 7 (unanswered) missed.
    assert block["deadline_misses"] == {"count": 2, "fraction": pytest.approx(2 / 9), "frames": 9}
    assert block["latency_ms"]["p50"] == pytest.approx(1.0)
    assert block["latency_ms"]["max"] == pytest.approx(3.0)
