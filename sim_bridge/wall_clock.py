"""A simulated robot on the wall clock, as a real robot is: the time base of real-time mode.

In lockstep the simulator's time is the stack's time (``/clock``, ``use_sim_time``). A robot has
no such clock: its drivers stamp with the computer's system time and its controllers run on that.
In real time the bridge poses as one: :class:`WallClockBackend` wraps the MuJoCo backend and
shifts every time it reports (``now_s``, the frames' and the ground truth's stamps) and takes
(pushes) by an offset, so that stamps are system time [s since the epoch] — the controllers run
with ``use_sim_time`` false and nobody needs ``/clock`` (measured with it: a publication per frame
and a callback per frame in every node, ≈ 30 % of the two cores at 250 Hz, 2026-12-03).

The offset is set by :meth:`anchor`: sim time ``now_s`` of the wrapped simulation is the wall
time ``wall_s``. The real-time loop anchors while the robot hangs in its gantry (sim time stands,
the stamps keep pace with the wall clock) and when it gives up wall time it could not catch up;
between those, stamps advance exactly with sim time (a frame period apart), as the estimator's
integration needs.
"""

from __future__ import annotations

from dataclasses import replace

from biped_common.state import BaseState, Push, SensorFrame
from sim_bridge.backend import Backend
from sim_bridge.commands import JointSetpoints


class WallClockBackend(Backend):
    """``simulation``'s robot with its times shifted to the wall clock (see the module)."""

    def __init__(self, simulation: Backend, wall_s: float):
        self.simulation = simulation
        self.joint_names = simulation.joint_names
        self.offset_s = 0.0
        self.anchor(wall_s)

    def anchor(self, wall_s: float) -> None:
        """From now on the simulation's present is wall time ``wall_s`` [s]."""
        self.offset_s = wall_s - self.simulation.now_s()

    @property
    def physics_dt_s(self) -> float | None:
        return self.simulation.physics_dt_s

    def now_s(self) -> float:
        return self.simulation.now_s() + self.offset_s

    def measure(self) -> SensorFrame | None:
        frame = self.simulation.measure()
        return None if frame is None else replace(frame, stamp_s=frame.stamp_s + self.offset_s)

    def send(self, setpoints: JointSetpoints) -> None:
        self.simulation.send(setpoints)

    def advance(self, duration_s: float) -> None:
        self.simulation.advance(duration_s)

    def ground_truth(self) -> BaseState | None:
        truth = self.simulation.ground_truth()
        return None if truth is None else replace(truth, stamp_s=truth.stamp_s + self.offset_s)

    def apply_push(self, push: Push) -> None:
        """A push whose start is in wall time."""
        self.simulation.apply_push(replace(push, start_s=push.start_s - self.offset_s))

    def close(self) -> None:
        self.simulation.close()

    def __getattr__(self, name: str):
        # What only a simulator has (body contacts, model and data for the video) passes through.
        return getattr(self.simulation, name)
