"""Style fidelity figures (biped_stack/fidelity.py) on synthetic runs whose answer is known."""

import numpy as np
import pytest

from biped_common.rotations import matrix_to_quat
from biped_stack.fidelity import lag_and_amplitude, planned_swings, sole_pitch_rad, window_fidelity

PERIOD_S = 0.005


def test_planned_swings_are_the_whole_swings_only():
    stance = np.array([0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0], dtype=bool)  # starts and ends in swing
    assert planned_swings(stance) == [(3, 5), (7, 10)]


@pytest.mark.parametrize("lag_s", [0.0, 0.012, 0.025, -0.01])
def test_lag_and_amplitude_recover_a_known_delay_and_gain(lag_s):
    t = np.arange(0.0, 4.0, PERIOD_S)
    planned = 0.57 + 0.015 * np.sin(2 * np.pi * t / 0.6)
    achieved = 0.59 + 0.8 * 0.015 * np.sin(2 * np.pi * (t - lag_s) / 0.6)  # offset, 0.8 × amplitude, late
    lag, ratio = lag_and_amplitude(planned, achieved, PERIOD_S)
    assert lag == pytest.approx(lag_s, abs=1.5e-3)  # sub-sample (the parabola between 5 ms samples), bias ≤ 1.1 ms
    assert ratio == pytest.approx(0.8, abs=0.01)


def test_sole_pitch_is_positive_heel_up():
    pitch = 0.2  # rotation about the sole's y (left) axis: the toes go down
    c, s = np.cos(pitch), np.sin(pitch)
    quat = matrix_to_quat(np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]))
    assert sole_pitch_rad(quat[None])[0] == pytest.approx(pitch)


def synthetic_run(apex_gain=1.0, height_gain=1.0, delay_samples=0, path_offset_m=0.0):
    """Two feet stepping (0.4 s cycle) with a 5 cm apex, a pelvis bob; achieved = planned with the
    given gains, delay and sideways offset in swing."""
    t = np.arange(0.0, 4.0, PERIOD_S)
    phase = (t % 0.8) / 0.8
    arrays = {"time_s": t}
    identity = np.tile([1.0, 0.0, 0.0, 0.0], (t.size, 1))
    for side, start in (("left", 0.1), ("right", 0.6)):
        s = (phase - start) / 0.3
        swing = (s >= 0) & (s < 1)
        planned = np.zeros((t.size, 3))
        planned[swing, 2] = 0.05 * np.sin(np.pi * s[swing])
        achieved = planned.copy()
        achieved[:, 2] *= apex_gain
        achieved[swing, 1] += path_offset_m
        arrays[f"{side}_planned_sole_position_m"] = planned
        arrays[f"{side}_sole_position_m"] = achieved
        arrays[f"{side}_planned_stance"] = ~swing
        arrays[f"{side}_planned_sole_quat_wxyz"] = identity
        arrays[f"{side}_sole_quat_wxyz"] = identity
    bob = 0.57 + 0.01 * np.sin(2 * np.pi * t / 0.4)
    arrays["planned_pelvis_height_m"] = bob
    base = np.zeros((t.size, 3))
    base[:, 2] = np.roll(0.57 + height_gain * (bob - 0.57), delay_samples)
    arrays["base_position_m"] = base
    arrays["upper_joints_rad"] = np.zeros((t.size, 2))
    arrays["planned_upper_joints_rad"] = np.full((t.size, 2), 0.01)
    return arrays


def test_a_perfect_run_has_perfect_fidelity():
    f = window_fidelity(synthetic_run(), 1.0, 3.5)
    assert f["swings"] >= 5
    assert f["swing_apex_ratio"] == pytest.approx(1.0)
    assert f["sole_swing_path_rms_m"] == pytest.approx(0.0, abs=1e-12)
    assert f["pelvis_height_rms_m"] == pytest.approx(0.0, abs=1e-12)
    assert f["pelvis_height_amplitude_ratio"] == pytest.approx(1.0)
    assert f["pelvis_height_lag_s"] == pytest.approx(0.0, abs=1e-6)
    assert f["upper_body_rms_rad"] == pytest.approx(0.01)
    assert f["heel_strike_pitch_ratio"] is None and f["toe_off_pitch_ratio"] is None  # flat feet planned


def test_fidelity_sees_a_low_swing_a_damped_late_bob_and_an_off_path():
    f = window_fidelity(synthetic_run(apex_gain=0.6, height_gain=0.5, delay_samples=4, path_offset_m=0.01), 1.0, 3.5)
    assert f["swing_apex_ratio"] == pytest.approx(0.6)
    assert f["pelvis_height_amplitude_ratio"] == pytest.approx(0.5, abs=0.01)
    assert f["pelvis_height_lag_s"] == pytest.approx(4 * PERIOD_S, abs=1e-3)
    assert f["sole_swing_path_rms_m"] > 0.01  # the offset and the lower apex
