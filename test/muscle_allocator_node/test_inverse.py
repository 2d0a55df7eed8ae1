"""The inverse problem: motions read from CSV / .mot, activations that really produce the motion
(forward check in MuJoCo), MyoLeg's squat, the command's files, and bad input named."""

import csv

import mujoco
import numpy as np
import pytest

from biped_stack.cli import main
from muscle_allocator_node.inverse import Motion, read_motion, solve_inverse, squat_motion
from muscle_allocator_node.mujoco_muscles import load_myolegs, myo_model_path
from muscle_allocator_node.tracking import minimum_jerk


@pytest.fixture(scope="module")
def elbow():
    return mujoco.MjModel.from_xml_path(str(myo_model_path("legacy/elbow/myoelbow_1dof6muscles.xml")))


def elbow_motion():
    t = np.linspace(0.0, 1.0, 201)
    return Motion(t, ("r_elbow_flex",), np.array([[minimum_jerk(0.2, 1.6, 1.0)(x)[0]] for x in t]))


def test_motion_files_csv_and_mot(tmp_path):
    (tmp_path / "m.csv").write_text("time,r_elbow_flex\n0,0.1\n0.1,0.2\n0.2,0.3\n0.3,0.4\n")
    motion = read_motion(tmp_path / "m.csv")
    assert motion.joint_names == ("r_elbow_flex",) and motion.positions[-1, 0] == pytest.approx(0.4)
    (tmp_path / "m.mot").write_text("Coordinates\nversion=1\ninDegrees=yes\nendheader\n"
                                    "time\tknee_angle_r\tpelvis_tx\n0\t90\t0.5\n0.1\t45\t0.5\n0.2\t0\t0.5\n0.3\t0\t0.5\n")
    mot = read_motion(tmp_path / "m.mot")
    np.testing.assert_allclose(mot.positions[:, 0], np.deg2rad([90, 45, 0, 0]))
    np.testing.assert_allclose(mot.positions[:, 1], 0.5)  # a translation stays in metres
    (tmp_path / "bad.csv").write_text("t,x\n0,1\n")
    with pytest.raises(ValueError, match="'time'"):
        read_motion(tmp_path / "bad.csv")


def test_activations_reproduce_the_motion_in_mujoco(elbow):
    motion = elbow_motion()
    result = solve_inverse(elbow, motion, progress=lambda m: None)
    assert set(result.statuses) == {"optimal"}
    assert np.abs(result.residuals).max() < 1e-9
    # Forward check: at each frame's state, MuJoCo with these activations accelerates as the motion.
    data = mujoco.MjData(elbow)
    step = motion.time_s[1] - motion.time_s[0]
    q = motion.positions[:, 0]
    qd, qdd = np.gradient(q, step), np.gradient(np.gradient(q, step), step)
    for k in range(10, 190, 20):
        data.qpos[0], data.qvel[0] = q[k], qd[k]
        data.act[:] = result.activations[k]
        mujoco.mj_forward(elbow, data)
        assert data.qacc[0] == pytest.approx(qdd[k], abs=0.05 + 0.02 * abs(qdd[k]))


def test_unknown_columns_are_named_and_missing_joints_reported(elbow):
    with pytest.raises(ValueError, match="knee_angle_r"):
        solve_inverse(elbow, Motion(np.linspace(0, 1, 5), ("knee_angle_r",), np.zeros((5, 1))), progress=lambda m: None)


def test_myolegs_squat_gives_activations_for_every_frame_and_reports_residuals():
    model = load_myolegs()
    assert (model.nu, model.njnt) == (80, 29)
    motion = squat_motion(model, frames=41)
    messages = []
    result = solve_inverse(model, motion, progress=messages.append)
    assert result.activations.shape == (41, 80) and np.all(np.isfinite(result.activations))
    assert result.residuals.shape == (41, model.nv)
    assert set(result.statuses) == {"optimal"}
    assert any("held at their reference position" in m for m in messages)
    knee_extensors = [result.muscle_names.index(n) for n in ("vaslat_r", "vasmed_r", "vasint_r")]
    # Deeper squat, more knee-extensor activation: the bottom (middle frame) beats standing.
    assert result.activations[20, knee_extensors].sum() > result.activations[0, knee_extensors].sum()


def test_command_writes_the_files(tmp_path, capsys):
    motion = tmp_path / "elbow.csv"
    m = elbow_motion()
    motion.write_text("time,r_elbow_flex\n" + "".join(f"{t},{q}\n" for t, q in zip(m.time_s, m.positions[:, 0])))
    assert main(["muscles", "inverse", "--model", "myoelbow", "--motion", str(motion), "--out", str(tmp_path / "o")]) == 0
    with (tmp_path / "o" / "activations.csv").open() as f:
        header = next(csv.reader(f))
    assert header == ["time", "TRIlong", "TRIlat", "TRImed", "BIClong", "BICshort", "BRA"]
    with (tmp_path / "o" / "residuals.csv").open() as f:
        assert next(csv.reader(f)) == ["time", "r_elbow_flex"]
    assert (tmp_path / "o" / "activations.sto").read_text().startswith("activations\nversion=1")
    motion.write_text("time,wrist\n0,0\n0.1,0\n0.2,0\n0.3,0\n")
    assert main(["muscles", "inverse", "--model", "myoelbow", "--motion", str(motion), "--out", str(tmp_path / "p")]) == 1
    assert "wrist" in capsys.readouterr().out
