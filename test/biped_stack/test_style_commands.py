"""``biped-stack style check`` and ``style render`` as a user runs them."""

import copy

import yaml

from biped_common.resources import styles_dir

from biped_stack.cli import main


def test_check_valid_and_invalid(tmp_path, capsys):
    assert main(["style", "check", str(styles_dir() / "limp.yaml")]) == 0
    out = capsys.readouterr().out
    assert "OK — style 'limp'" in out and out.count("\n") == 1
    data = yaml.safe_load((styles_dir() / "neutral.yaml").read_text())
    bad = copy.deepcopy(data)
    bad["defaults"]["timing"]["left_swing_s"] = 0.05
    bad["samples"]["forward_fast"]["velocity"] = [0.1, 0.0, 0.0]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    assert main(["style", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "defaults.timing.left_swing_s: must be in [0.15, 2.0], got 0.05" in err
    assert "samples.forward_fast.velocity: must be faster than forward_slow" in err


def test_check_reports_what_loading_scaled(capsys):
    assert main(["style", "check", str(styles_dir() / "bouncy.yaml")]) == 0
    out = capsys.readouterr().out
    assert "scaled at load: samples.forward_fast.left_swing: asks 91 m/s² of the sole" in out
    assert "scaled at load: samples.forward_fast.pelvis.height_m" in out


def test_render_writes_the_pictures(tmp_path):
    assert main(["style", "render", "neutral", "--out", str(tmp_path), "--robot", "biped"]) == 0
    for name in ("footprints.png", "foot_and_pelvis.png", "gait_diagram.png"):
        assert (tmp_path / name).stat().st_size > 10_000
