"""The robot's frame tree for ``/tf`` and ``/tf_static``: what robot_state_publisher computes,
from the one robot model (ROS-free).

Every body and site of the MJCF (Pinocchio's BODY and OP_FRAME frames) is a frame named as in the
model (``pelvis``, ``l_thigh``, ``l_sole``, ``imu``, …). Each frame's parent is the nearest body up
its kinematic chain; the edge is *moving* when a joint lies between the two (its transform
follows the joint angles) and *static* otherwise (a site on its body, a welded body). Above the
base: ``world → odom`` (identity: the state estimator estimates in the world frame, so its odom
does not drift from it), ``odom → pelvis`` (the estimated base pose), ``odom → com`` (the CoM,
world-aligned), and in simulation ``world → pelvis_ground_truth``. All in metres, unit
quaternions (w, x, y, z), parent-frame coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from biped_common.robot_model import RobotModel
from biped_common.rotations import matrix_to_quat
from biped_common.state import WORLD_FRAME

ODOM_FRAME = "odom"
COM_FRAME = "com"
GROUND_TRUTH_SUFFIX = "_ground_truth"


@dataclass(frozen=True)
class FrameTransform:
    """The pose of ``child`` in ``parent``: translation [m] (3,) and unit quaternion (w, x, y, z)."""

    parent: str
    child: str
    translation_m: np.ndarray
    quat_wxyz: np.ndarray


def _transform(parent: str, child: str, placement: pin.SE3) -> FrameTransform:
    return FrameTransform(parent, child, np.array(placement.translation, dtype=float), matrix_to_quat(placement.rotation))


class FrameTree:
    """The edges of one robot's tree, and their transforms at a configuration."""

    def __init__(self, robot: RobotModel):
        self.robot = robot
        model = robot.pin_model
        self.base_frame = robot.description.base_body
        kinds = (pin.FrameType.BODY, pin.FrameType.OP_FRAME)
        frames = [(i, f) for i, f in enumerate(model.frames) if f.type in kinds]
        bodies = {i for i, f in frames if f.type == pin.FrameType.BODY}
        self._moving: list[tuple[int, int]] = []  # (parent frame id, child frame id)
        self._static: list[tuple[int, int]] = []
        for i, frame in frames:
            if frame.name == self.base_frame:
                continue
            parent = frame.parentFrame
            while parent not in bodies:  # up through joint frames to the nearest body
                if parent == 0:
                    raise ValueError(f"frame {frame.name!r} has no body above it")
                parent = model.frames[parent].parentFrame
            edge = (parent, i)
            same_joint = model.frames[parent].parentJoint == frame.parentJoint
            (self._static if same_joint else self._moving).append(edge)
        self._data = model.createData()
        self._base_id = model.getFrameId(self.base_frame)

    @property
    def frame_names(self) -> tuple[str, ...]:
        """Every frame of the robot below the base (base first)."""
        model = self.robot.pin_model
        return (self.base_frame,) + tuple(model.frames[c].name for _, c in self._static + self._moving)

    def static_transforms(self) -> list[FrameTransform]:
        """``/tf_static``: ``world → odom`` and every edge no joint moves (sites on their body,
        welded bodies), from the model's placements."""
        model = self.robot.pin_model
        out = [FrameTransform(WORLD_FRAME, ODOM_FRAME, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))]
        for parent, child in self._static:
            placement = model.frames[parent].placement.actInv(model.frames[child].placement)
            out.append(_transform(model.frames[parent].name, model.frames[child].name, placement))
        return out

    def joint_transforms(self, q_joints_rad: np.ndarray) -> list[FrameTransform]:
        """``/tf`` from the joint angles (robot joint order) [rad]: every edge a joint moves."""
        model, data = self.robot.pin_model, self._data
        q = pin.neutral(model)
        q[7:] = q_joints_rad
        pin.framesForwardKinematics(model, data, q)
        return [_transform(model.frames[p].name, model.frames[c].name, data.oMf[p].actInv(data.oMf[c]))
                for p, c in self._moving]

    def base_transform(self, position_m: np.ndarray, quat_wxyz: np.ndarray, ground_truth: bool = False) -> FrameTransform:
        """``odom → pelvis`` of an estimated base pose (world frame), or ``world →
        pelvis_ground_truth`` of the simulator's."""
        if ground_truth:
            return FrameTransform(WORLD_FRAME, self.base_frame + GROUND_TRUTH_SUFFIX, np.asarray(position_m, float),
                                  np.asarray(quat_wxyz, float))
        return FrameTransform(ODOM_FRAME, self.base_frame, np.asarray(position_m, float), np.asarray(quat_wxyz, float))

    def com_transform(self, com_world_m: np.ndarray) -> FrameTransform:
        """``odom → com``: the centre of mass [m, world], axes of the world."""
        return FrameTransform(ODOM_FRAME, COM_FRAME, np.asarray(com_world_m, dtype=float), np.array([1.0, 0.0, 0.0, 0.0]))
