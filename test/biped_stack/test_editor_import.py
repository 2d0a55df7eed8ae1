"""Gait import (issue #17 bar 3): keyframes generated from a shipped style's planner output are
imported back — from a template whose curves were moved away — to the curves within 1 mm /
0.01 rad and the timing within 5 ms; a noisy copy (σ = 2 mm, 2 mrad) within 3 mm / 0.03 rad."""

import numpy as np
import pytest

from biped_common.robot_model import load_robot
from biped_stack.editor.document import StyleDocument
from biped_stack.editor.keyframes import (Keyframes, fit_sample, planner_cycle, read_keyframes,
                                          write_keyframes)
from biped_common.errors import ConfigError
from gait_planner_node.planner import PlannerConfig
from gait_planner_node.style import load_style

KEY = "forward_slow"
JOINTS = ("l_shoulder_pitch", "r_shoulder_pitch")


@pytest.fixture(scope="module")
def setting():
    config = PlannerConfig.for_robot(load_robot("humanoid"))
    original = StyleDocument.open("neutral")
    keyframes = planner_cycle(load_style("neutral"), config, KEY, 0.001, JOINTS)
    template = StyleDocument.open("neutral")  # the curves moved away from the answer
    template.apply(KEY, {"swing.height_m": [[0.45, 0.03]], "pelvis.roll_rad": [[0.3, 0.0], [0.8, 0.0]],
                         "pelvis.yaw_rad": [[0.3, 0.0], [0.8, 0.0]],
                         "upper_body.l_shoulder_pitch": [[0.3, 0.0], [0.8, 0.0]]})
    return config, original, keyframes, template


def check_fit(changes, original, tolerance_m, tolerance_rad):
    for path, value in changes.items():
        expected = original.value(KEY, path)
        if path.startswith("timing."):
            assert value == pytest.approx(expected, abs=0.005), path
            continue
        tol = tolerance_rad if path.endswith("_rad") or path.startswith("upper_body") else tolerance_m
        assert [p for p, _ in value] == [p for p, _ in expected], path
        assert np.allclose([v for _, v in value], [v for _, v in expected], atol=tol), (path, value, expected)


def test_keyframes_round_trip_through_the_file_and_import_back(setting, tmp_path):
    config, original, keyframes, template = setting
    read = read_keyframes(write_keyframes(tmp_path / "cycle.csv", keyframes))
    assert read.joints == JOINTS and np.allclose(read.columns["left_z_m"], keyframes.columns["left_z_m"], atol=1e-6)
    changes = fit_sample(template, KEY, read, config)
    assert "swing.height_m" in changes and "upper_body.l_shoulder_pitch" in changes
    check_fit(changes, original, 0.001, 0.01)


def test_a_noisy_copy_still_imports_within_3_mm(setting):
    config, original, keyframes, template = setting
    rng = np.random.default_rng(7)
    noisy = {name: (values if name.endswith("_contact") else
                    values + rng.normal(0.0, 0.002, values.shape)) for name, values in keyframes.columns.items()}
    changes = fit_sample(template, KEY, Keyframes(keyframes.time_s, noisy), config)
    check_fit(changes, original, 0.003, 0.03)


def test_a_bad_keyframe_file_is_refused_naming_what(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("time_s,left_z_m\n0,0\n0.001,0\n")
    with pytest.raises(ConfigError, match="missing column"):
        read_keyframes(path)
