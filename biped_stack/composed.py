"""Process layout of the walking stack: its nodes composed into two processes.

Run one process per node and, on a 2-core computer, the per-message cost of Python ROS 2 (an
executor dispatch and a deserialization per message and subscriber, a publish per message, a
process woken from idle with cold caches) is more than the control itself: measured with the
stack in real time (py-spy, 2026-12-03), the gait planner spent ≈ 45 % of its CPU in the executor
loop for 500 Hz state messages it reads at 25 Hz, and the estimator a third of its CPU publishing.
Composed, each chain hands its data on by a direct call in the same process and still publishes
every topic for everyone else:

- ``walking_control`` (500 Hz): the state estimator and the walking whole-body controller. The
  estimator assembles each sensor frame, publishes ``/odom`` and hands frame and estimate to the
  WBC, which answers with ``/joint_commands`` — one sensor deserialization, no ``/odom`` hop.
- ``walking_planning`` (125 Hz): the gait planner and the CoM MPC. The MPC solves for each
  reference as the planner publishes it, and both read the robot's state as its latest value at
  their own rate (:class:`biped_common.ros_node_tools.LatestReader`).

Every node keeps its name, parameters, services and topics; ``launch/controller.launch.xml``
starts these two processes (``composed:=true``, the default) or one process per node
(``composed:=false``). Parameters given to a process reach every node in it; each node declares
the ones it uses.
"""

from __future__ import annotations


def control_main() -> int:
    """Entry point ``walking_control``: state estimator + walking WBC."""
    from biped_common.ros_node_tools import run_nodes
    from state_estimator_node.node import StateEstimatorNode
    from wbc_node.node import WbcNode

    def make():
        estimator = StateEstimatorNode()
        return [estimator, WbcNode(frames_from=estimator)]
    return run_nodes(make)


def planning_main() -> int:
    """Entry point ``walking_planning``: gait planner + CoM MPC."""
    from biped_common.ros_node_tools import run_nodes
    from gait_planner_node.node import GaitPlannerNode
    from mpc_node.node import MpcNode

    def make():
        planner = GaitPlannerNode()
        return [planner, MpcNode(references_from=planner)]
    return run_nodes(make)
