"""In-process reaching on the humanoid in MuJoCo: the arm follows planned reaches through the
whole-body controller's upper-body channel, standing or walking; hand errors measured on the
simulator's hand site in the pelvis frame."""

from __future__ import annotations

import mujoco
import numpy as np

from biped_common.rotations import quat_to_matrix
from biped_stack.lockstep import LockstepSimulation
from biped_stack.walking import WalkingController
from gait_planner_node.style import load_style
from reach_planner_node.humanoid_reach import HumanoidArms, plan_humanoid_reach
from reach_planner_node.reach import max_path_deviation_m

SETTLE_S = 1.5
HOLD_S = 0.5


def run_reaches(targets_pelvis, side: str = "right", walk_speed_m_s: float = 0.0, style: str = "neutral",
                progress=print) -> dict:
    """Stand (or walk forward at ``walk_speed_m_s``), then reach the targets (pelvis frame [m]) in
    sequence, holding each ``HOLD_S``; returns per-target final hand error and path deviation
    [m] (pelvis frame, from the simulator), and whether the robot fell."""
    sim = LockstepSimulation("humanoid")
    controller = WalkingController(sim.robot, load_style(style), lambda frame: sim.backend.ground_truth(),
                                   log=progress)
    sim.controller = controller
    arms = HumanoidArms(sim.robot)
    model, data = sim.backend.model, sim.backend.data
    hand_site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, sim.robot.description.hands[side])
    nominal = sim.robot.nominal_pelvis_height_m

    last = {}

    def step_until(end_s, record=None):
        while sim.backend.data.time < end_s - 1e-9:
            controller.set_command((walk_speed_m_s if sim.backend.data.time > 0.5 else 0.0, 0.0, 0.0))
            last["frame"] = sim.step().frame
            truth = sim.backend.ground_truth()
            if truth.position_m[2] < 0.6 * nominal:
                return False
            if record is not None:
                rotation = quat_to_matrix(truth.orientation_wxyz)
                record.append(rotation.T @ (data.site_xpos[hand_site] - truth.position_m))
        return True

    results, fell = [], not step_until(SETTLE_S)
    for target in targets_pelvis:
        if fell:
            break
        # Each reach starts where the arm is (measured joints), so it starts without a jump.
        frame = last["frame"]
        posture = sim.robot.joint_vector(frame.joint_names, frame.position_rad)
        trajectory = plan_humanoid_reach(arms, side, posture, target, start_s=sim.backend.data.time)
        controller.reach(trajectory.trajectory)
        hand = []
        fell = not step_until(trajectory.end_s, hand) or not step_until(trajectory.end_s + HOLD_S)
        if fell:
            break
        truth = sim.backend.ground_truth()
        final = quat_to_matrix(truth.orientation_wxyz).T @ (data.site_xpos[hand_site] - truth.position_m)
        start, goal = trajectory.hand_path_pelvis[0], trajectory.hand_path_pelvis[-1]
        deviation = max_path_deviation_m(hand, start, goal)
        results.append({"target_m": [float(x) for x in target], "final_error_m": float(np.linalg.norm(final - goal)),
                        "path_deviation_m": deviation, "notes": list(trajectory.notes)})
        progress(f"  reach {len(results)}: final error {results[-1]['final_error_m'] * 100:.2f} cm, "
                 f"path deviation {deviation * 100:.2f} cm")
    return {"fell": fell, "reaches": results}
