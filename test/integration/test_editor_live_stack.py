"""Issue #17 bar 2 on the whole simulated stack over DDS (sim.launch.xml, lockstep, estimator):
while the biped walks neutral at 0.3 m/s, the editor (attached) raises forward_slow's swing height
by 2 cm; the edit passes the shadow check, reaches the running planner, and within two gait cycles
of the planner taking it the robot's measured swing apex (soles by forward kinematics from
/joint_states and the simulator's pose) rises. Then an edit that falls in the shadow check is
refused, and the robot keeps walking the raised style to the end. Meanwhile the editor's 3D view
data — the measured pose from /joint_states and /odom — follows the walking robot.
"""

import numpy as np
import pytest

from biped_stack.editor.document import EditError

from biped_stack.editor.app import make_app
from biped_stack.ros_walk import run_walk_multiprocess
from biped_stack.scenario import Scenario, Segment
from gait_planner_node.style import load_style

pytestmark = pytest.mark.dds
EDIT_AT_S = 4.0


def swing_apexes(arrays, side: str) -> list[tuple[float, float]]:
    """(lift-off time [s], highest sole height over the swing above the stance height [m]) of
    every swing of ``side``: planned swings whose foot left the ground."""
    stance = arrays[f"{side}_planned_stance"]
    z = arrays[f"{side}_sole_position_m"][:, 2]
    t = arrays["time_s"]
    ground = float(np.median(z[stance]))
    out, start = [], None
    for k in range(len(stance)):
        if not stance[k] and start is None:
            start = k
        elif stance[k] and start is not None:
            out.append((float(t[start]), float(z[start:k].max()) - ground))
            start = None
    return out


def test_a_live_edit_raises_the_measured_swing_apex_within_two_cycles(tmp_path, ros_domain_id):
    app = make_app("neutral", robot="biped", save_path=tmp_path / "unused.yaml", attach=True)
    app.document.apply("forward_slow", {"swing.height_m": [[0.45, 0.075]]})
    sent = {}

    def apply_edit(now_s):
        sent["result"] = app.apply_live("forward_slow")
        sent["accepted_s"] = now_s()
        # Heel strike 69° toes-up, toe off 69° heel-up: legal in the file, the biped falls in the check.
        app.document.apply("forward_slow", {"attributes.heel_strike_pitch_rad": -1.2, "attributes.toe_off_pitch_rad": 1.2,
                                            "attributes.heel_rolldown_fraction": 0.5, "attributes.toe_rollup_fraction": 0.5})
        try:
            app.apply_live("forward_slow")
        except EditError as exc:
            sent["refused"], sent["refused_s"] = str(exc), now_s()

    measured = []

    def sample_measured(now_s):
        measured.append((now_s(), app.measured()))

    scenario = Scenario("live edit", (Segment("stand", 1.0, (0.0, 0.0, 0.0)), Segment("walk", 25.0, (0.3, 0.0, 0.0))), ())
    try:
        result = run_walk_multiprocess("biped", "neutral", scenario, tmp_path / "run", progress=print,
                                       actions=[(2.0, sample_measured), (3.0, sample_measured),
                                                (EDIT_AT_S, apply_edit)])
    finally:
        app.live.close()
    assert not result.metrics["fell"], result.metrics["fall_reason"]
    (t0, first), (t1, second) = measured
    assert first is not None and second is not None, measured
    assert second["stamp_s"] - first["stamp_s"] == pytest.approx(t1 - t0, abs=0.2)
    robot = app.robot
    foot = robot.mj_model.body(robot.description.feet["left"].body).id
    pelvis = [pose["qpos"][:3] for pose in (first, second)]
    assert pelvis[1][0] - pelvis[0][0] > 0.1, pelvis  # walking forward at ~0.3 m/s (from standing)
    assert abs(pelvis[1][2] - robot.nominal_pelvis_height_m) < 0.1 * robot.nominal_pelvis_height_m, pelvis
    assert min(pose["body_pos_m"][foot][2] for pose in (first, second)) < 0.12  # feet by FK near the ground
    assert sent["result"]["ok"], sent
    assert "the robot falls" in sent["refused"] and sent["refused_s"] + 2.0 < scenario.duration_s, sent
    accepted = sent["accepted_s"]
    cycle_s = load_style("neutral").samples["forward_slow"].timing.cycle_s
    assert accepted + 2 * cycle_s + 1.0 < scenario.duration_s, f"the edit was taken too late ({accepted:.1f} s)"
    for side in ("left", "right"):
        swings = swing_apexes(result.trace, side)
        before = [a for t, a in swings if 2.0 <= t < EDIT_AT_S]
        after = [a for t, a in swings if accepted < t <= accepted + 2 * cycle_s]
        assert len(before) >= 2 and len(after) >= 1, (side, swings, accepted)
        print(f"{side}: apex before {np.round(before, 4)}, in the two cycles after {accepted:.2f} s {np.round(after, 4)}")
        # The planned apex rises 2 cm; the WBC achieves a share of it (issue #18), here ≥ 1 cm.
        assert max(after) - np.median(before) > 0.01, (side, before, after)
    for side in ("left", "right"):  # to the end, the raised style (not the refused one) is walked
        late = [a for t, a in swing_apexes(result.trace, side) if t > sent["refused_s"]]
        assert len(late) >= 2 and min(late) > 0.05, (side, late)
