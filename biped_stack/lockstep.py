"""In-process lockstep composition: the same cores the nodes wrap, wired without ROS.

Each control period: the bridge measures, the controller answers that frame, the bridge applies
the answer for one period. Deterministic for a given seed; used by tests, benchmarks and the demo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from biped_common.robot_model import RobotModel, load_robot
from biped_common.state import BaseState, JointCommand, Push, SensorFrame
from sim_bridge.bridge import BridgeConfig, SimBridge
from sim_bridge.commands import CommandMode
from sim_bridge.mujoco_backend import MujocoBackend
from wbc_node.stand import StandController

Controller = Callable[[SensorFrame], JointCommand | None]


@dataclass(frozen=True)
class StepRecord:
    """What happened in one control period (for metrics and plots)."""

    stamp_s: float
    mode: CommandMode
    ground_truth: BaseState
    frame: SensorFrame


class LockstepSimulation:
    """A MuJoCo robot driven by an in-process controller, one control period per :meth:`step`."""

    def __init__(self, robot: RobotModel | str = "humanoid", controller: Controller | None = None,
                 config: BridgeConfig | None = None):
        self.robot = load_robot(robot) if isinstance(robot, str) else robot
        self.config = config or BridgeConfig(robot=self.robot.name)
        self.backend = MujocoBackend(self.robot, self.config.noise(), seed=self.config.seed)
        self.bridge = SimBridge(self.backend, self.robot.kd, self.config)
        self.controller = controller if controller is not None else StandController(self.robot).command

    def step(self) -> StepRecord:
        """Measure, ask the controller, apply its command for one control period."""
        frame = self.bridge.measure()
        command = self.controller(frame)
        if command is not None:
            self.bridge.submit(command)
        mode = self.bridge.step()
        return StepRecord(frame.stamp_s, mode, self.backend.ground_truth(), frame)

    def run(self, duration_s: float, pushes: tuple[Push, ...] = ()) -> list[StepRecord]:
        """Run for ``duration_s`` of sim time; returns one record per control period."""
        for push in pushes:
            self.bridge.push(push)
        steps = int(round(duration_s / self.config.control_period_s))
        return [self.step() for _ in range(steps)]


def pelvis_heights_m(records: list[StepRecord]) -> np.ndarray:
    """Ground-truth pelvis height [m] of each record."""
    return np.array([r.ground_truth.position_m[2] for r in records])
