"""The planned pose as a whole-body configuration, for the demo video's translucent ghost.

The WBC's reference at one instant fixes the pelvis height and orientation, both soles' poses,
the upper-body joints and the CoM's horizontal position (the MPC's); the legs follow by inverse
kinematics (:class:`gait_planner_node.reachability.LegIk`), and the pelvis's horizontal position
is the one that puts the ghost's own CoM on the planned CoM. Everything is taken from the frame the
controllers plan in (the state estimate's) into the world by the estimator's drift, so the ghost
stands where the robot was asked to be, not where the odometry thinks it is.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from biped_common.robot_model import SIDES, RobotModel
from biped_common.rotations import matrix_to_quat, quat_multiply
from gait_planner_node.reachability import LegIk

# The video draws the ghost beside the robot, this far to its left [m]: laid over it, the parts
# that track within a centimetre hide inside the robot's own geoms and nothing can be compared.
GHOST_BESIDE_M = 0.6


class PlannedPose:
    """MuJoCo qpos of the planned pose of one robot (:meth:`qpos`), reusing its IK and data."""

    def __init__(self, robot: RobotModel, com_iterations: int = 3):
        self.robot = robot
        self.ik = LegIk(robot)
        self.data = robot.pin_model.createData()
        self.com_iterations = com_iterations

    def qpos(self, reference, odom_to_world: tuple[np.ndarray, np.ndarray], pelvis_xy_guess_m: np.ndarray) -> np.ndarray:
        """The planned pose (MuJoCo qpos, world frame) for a :class:`wbc_node.wbc.WbcReference`
        in the planning frame; ``odom_to_world`` = (R, t), p_world = R p + t
        (:func:`biped_stack.walking.odom_to_world`); ``pelvis_xy_guess_m`` starts the search
        for the pelvis position that puts the CoM on the plan (the robot's own pelvis will do)."""
        rotation, translation = odom_to_world
        turn = matrix_to_quat(rotation)
        pelvis_quat = quat_multiply(turn, reference.pelvis_quat_wxyz)
        feet = {side: (rotation @ reference.feet[side].position_m + translation,
                       quat_multiply(turn, reference.feet[side].quat_wxyz)) for side in SIDES}
        com_target = (rotation @ np.array([*reference.com_position_m, 0.0]) + translation)[:2]
        joints = np.array(reference.joint_posture_rad, dtype=float)
        pelvis = np.array([*pelvis_xy_guess_m[:2], reference.pelvis_height_m + translation[2]], dtype=float)
        for round_ in range(self.com_iterations + 1):
            for side in SIDES:
                angles, _, _ = self.ik.solve(side, pelvis, pelvis_quat, *feet[side])
                joints[self.ik.columns[side] - 6] = angles
            if round_ == self.com_iterations:
                break  # the soles on their targets at the last pelvis position
            q = self.robot.pinocchio_configuration(pelvis, pelvis_quat, joints)
            com = pin.centerOfMass(self.robot.pin_model, self.data, q)
            # Moving the pelvis moves the whole body with it (the legs re-solved next round), so
            # the CoM error is the pelvis correction to first order.
            pelvis[:2] += com_target - com[:2]
        return np.concatenate([pelvis, pelvis_quat, joints])
