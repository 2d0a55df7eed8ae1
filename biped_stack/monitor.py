"""The stack monitor's core (ROS-free): the launch configuration checked once, and which of the
expected nodes come and go.

Why a monitor: the controller nodes respawn when they die (a killed or crashed node comes back),
so a node that can never start — an unknown robot, a style that is missing or invalid — would
respawn forever instead of ending the launch. The monitor checks that configuration the way the
nodes read it, before anything walks, and the launch files mark it ``on_exit="shutdown"``: a bad
configuration ends the launch with the reason; a good one leaves the monitor watching the graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from biped_common.errors import ConfigError
from biped_common.robot_model import load_robot

STATE_SOURCES = ("estimator", "ground_truth")


def check_configuration(robot: str, style: str, state_source: str) -> str:
    """Load what the walking nodes will load; a one-line summary, or the error that would stop
    them (ConfigError, StyleError, UnknownRobotError) naming the field or file."""
    from gait_planner_node.style import load_style
    if state_source not in STATE_SOURCES:
        raise ConfigError("state_source", f"must be one of {list(STATE_SOURCES)}, got {state_source!r}")
    model = load_robot(robot)
    loaded = load_style(style) if style else None
    return f"robot {model.name} ({model.n_joints} joints)" + (f", {loaded.summary()}" if loaded else "") + \
        f", state from {state_source}"


@dataclass
class GraphWatch:
    """Which expected nodes are in the graph, and what changed since the last look."""

    expected: tuple[str, ...]
    seen: set[str] = field(default_factory=set)      # ever present
    present: set[str] = field(default_factory=set)

    def update(self, names_in_graph) -> list[str]:
        """Events since the last call, as log lines: a node that appeared, left, or came back."""
        now = {name for name in self.expected if name in set(names_in_graph)}
        events = []
        for name in self.expected:
            if name in now and name not in self.present:
                events.append(f"{name} is back" if name in self.seen else f"{name} is up")
            elif name in self.present and name not in now:
                events.append(f"{name} left the graph (stopped or died; respawn expected)")
        self.seen |= now
        self.present = now
        return events

    def missing(self) -> list[str]:
        """Expected nodes not in the graph now."""
        return [name for name in self.expected if name not in self.present]
