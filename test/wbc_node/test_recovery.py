"""Gains scheduled by push (wbc_node/recovery.py): the recovery level's law (start, saturation,
hold, release, non-finite input), the gains' blend, and the schedule's loading and its errors."""

import math
from dataclasses import asdict, fields

import numpy as np
import pytest

from biped_common.config import ConfigError
from biped_common.resources import params_file
from wbc_node.recovery import (LEVEL_STEPS, UNBLENDED, RecoveryLevel, RecoverySchedule, ScheduledGains,
                               blend_gains)
from wbc_node.wbc import WbcGains

SCHEDULE = RecoverySchedule(gains_file="wbc.yaml", disturbance_start_m_s2=0.4, disturbance_full_m_s2=0.6,
                            hold_s=1.0, release_s=0.5)
DT = 0.002


def run_level(level, push_m_s2, seconds):
    return [level.update(DT, push_m_s2) for _ in range(int(round(seconds / DT)))]


def test_the_level_is_zero_below_the_start_and_one_from_the_full_push():
    level = RecoveryLevel(SCHEDULE)
    assert set(run_level(level, (0.3, -0.2), 1.0)) == {0.0}   # |δ| 0.36 < 0.4
    assert run_level(level, (0.0, 0.7), DT)[-1] == 1.0         # at once, saturated
    level = RecoveryLevel(SCHEDULE)
    assert run_level(level, (0.5, 0.0), DT)[-1] == 0.5         # halfway between start and full


def test_the_level_is_quantized_upwards():
    level = RecoveryLevel(SCHEDULE)
    value = run_level(level, (0.401, 0.0), DT)[-1]
    assert value == 1.0 / LEVEL_STEPS and level.level < value  # a push is not rounded away


def test_the_level_holds_after_the_push_then_decays_over_the_release_time():
    level = RecoveryLevel(SCHEDULE)
    run_level(level, (1.0, 0.0), 0.5)
    held = run_level(level, (0.0, 0.0), SCHEDULE.hold_s - 0.01)
    assert set(held) == {1.0}
    decay = run_level(level, (0.0, 0.0), SCHEDULE.release_s + 0.05)
    assert np.all(np.diff(decay) <= 0.0) and decay[-1] == 0.0
    # The hold's last 0.01 s, then from level 1 to 0 in the release time (the level is rounded up).
    first_zero_s = (decay.index(0.0) + 1) * DT
    assert abs(first_zero_s - (0.01 + SCHEDULE.release_s)) <= 2 * DT


def test_a_new_push_during_the_release_raises_the_level_again():
    level = RecoveryLevel(SCHEDULE)
    run_level(level, (1.0, 0.0), 0.1)
    run_level(level, (0.0, 0.0), SCHEDULE.hold_s + 0.25)
    assert 0.0 < level.level < 1.0
    assert run_level(level, (0.0, -0.8), DT)[-1] == 1.0


def test_a_non_finite_push_estimate_counts_as_none():
    level = RecoveryLevel(SCHEDULE)
    assert run_level(level, (math.nan, 0.0), 0.1)[-1] == 0.0
    assert run_level(level, (math.inf, 1.0), 0.1)[-1] == 0.0


def test_the_blend_goes_from_the_style_gains_to_the_recovery_gains():
    style, recovery = WbcGains.load(params_file("wbc_style_first.yaml")), WbcGains.default()
    assert blend_gains(style, recovery, 0.0) == style
    full = asdict(blend_gains(style, recovery, 1.0))
    for f in fields(WbcGains):
        expected = getattr(style if f.name in UNBLENDED else recovery, f.name)
        assert full[f.name] == pytest.approx(expected), f.name
    half = blend_gains(style, recovery, 0.5)
    assert half.swing_kp == pytest.approx((style.swing_kp + recovery.swing_kp) / 2)
    assert half.leg_posture_from_tasks == pytest.approx(0.5)
    assert blend_gains(style, recovery, 7.0) == blend_gains(style, recovery, 1.0)  # clipped


def test_the_style_first_file_schedules_the_shipped_gains_and_the_shipped_file_none():
    scheduled = ScheduledGains.load(params_file("wbc_style_first.yaml"))
    assert scheduled.schedule is not None and scheduled.recovery == WbcGains.default()
    assert scheduled.style == WbcGains.load(params_file("wbc_style_first.yaml"))
    shipped = ScheduledGains.load()
    assert shipped.schedule is None and shipped.recovery is None and shipped.style == WbcGains.default()
    assert ScheduledGains.of(None) == shipped and ScheduledGains.of(WbcGains.default()).schedule is None


def _gains_file(tmp_path, name, recovery_block: str) -> str:
    text = params_file("wbc_style_first.yaml").read_text()
    text = text[:text.index("recovery:")] + recovery_block
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_schedule_errors_name_the_field(tmp_path):
    block = ("recovery:\n  gains_file: wbc.yaml\n  disturbance_start_m_s2: 0.5\n  disturbance_full_m_s2: 0.4\n"
             "  hold_s: 1.0\n  release_s: 1.0\n")
    with pytest.raises(ConfigError, match="disturbance_full_m_s2"):
        ScheduledGains.load(_gains_file(tmp_path, "a.yaml", block))
    with pytest.raises(ConfigError, match="recovery.hold_s"):
        ScheduledGains.load(_gains_file(tmp_path, "b.yaml", block.replace("hold_s: 1.0", "hold_s: -1")))
    with pytest.raises(ConfigError, match="recovery.release_s"):
        ScheduledGains.load(_gains_file(tmp_path, "c.yaml", block.replace("  release_s: 1.0\n", "")))
    with pytest.raises(ConfigError, match="gains_file"):
        ScheduledGains.load(_gains_file(tmp_path, "d.yaml", block.replace("gains_file: wbc.yaml", "gains_file: ''")))


def test_a_recovery_gains_file_beside_the_file_wins_and_must_not_schedule_again(tmp_path):
    block = ("recovery:\n  gains_file: other.yaml\n  disturbance_start_m_s2: 0.4\n  disturbance_full_m_s2: 0.6\n"
             "  hold_s: 1.0\n  release_s: 1.0\n")
    path = _gains_file(tmp_path, "style.yaml", block)
    (tmp_path / "other.yaml").write_text(params_file("wbc.yaml").read_text().replace("swing_kp: 150.0", "swing_kp: 123.0"))
    assert ScheduledGains.load(path).recovery.swing_kp == 123.0
    (tmp_path / "other.yaml").write_text(params_file("wbc.yaml").read_text() + block)
    with pytest.raises(ConfigError, match="recovery block of its own"):
        ScheduledGains.load(path)
