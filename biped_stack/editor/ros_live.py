"""The editor attached to a running stack (issue #17, ``biped-stack editor --attach``): an edited
style goes to the running ``gait_planner_node`` by its existing reload path — its live ``style``
parameter, set to a file the editor writes — and the node loads it, or refuses it and keeps its
style, with the reason (the ROS side of the editor; the shadow check before it is ROS-free,
:mod:`biped_stack.editor.shadow`). It also keeps the latest ``/joint_states`` and ``/odom``, which
the 3D view draws as the measured robot beside the reference.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

PLANNER_NODE = "/gait_planner"
CALL_TIMEOUT_S = 10.0
JOINT_STATES_TOPIC = "/joint_states"
ODOM_TOPIC = "/odom"


class LivePlanner:
    """A client of the running gait planner's parameters, in a ROS context of its own."""

    def __init__(self, planner_node: str = PLANNER_NODE, live_file: str | Path | None = None,
                 domain_id: int | None = None, odom_topic: str = ODOM_TOPIC):
        import rclpy
        import rclpy.executors
        from nav_msgs.msg import Odometry
        from rcl_interfaces.srv import SetParameters
        from biped_common.ros_node_tools import SENSOR_QOS
        from sensor_msgs.msg import JointState
        self._rclpy = rclpy
        self.planner_node = planner_node.rstrip("/")
        self.live_file = Path(live_file) if live_file else Path(tempfile.mkdtemp(prefix="biped_editor_")) / "live_style.yaml"
        self.context = rclpy.Context()
        rclpy.init(context=self.context,
                   domain_id=int(os.environ.get("ROS_DOMAIN_ID", "0")) if domain_id is None else domain_id)
        self.node = rclpy.create_node("style_editor", context=self.context)
        self._client = self.node.create_client(SetParameters, f"{self.planner_node}/set_parameters")
        self._latest_lock = threading.Lock()
        self._joint_states = None  # the latest messages, converted when the page asks
        self._odom = None
        self.node.create_subscription(JointState, JOINT_STATES_TOPIC, self._on_joint_states, SENSOR_QOS)
        self.node.create_subscription(Odometry, odom_topic, self._on_odom, SENSOR_QOS)
        self._executor = rclpy.executors.SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self.node)
        self._spinner = threading.Thread(target=self._spin, name="editor-ros", daemon=True)
        self._spinner.start()

    def _spin(self) -> None:
        try:
            self._executor.spin()
        except Exception:  # noqa: BLE001 — the context shut down under it (close())
            pass

    def _on_joint_states(self, msg) -> None:
        with self._latest_lock:
            self._joint_states = msg

    def _on_odom(self, msg) -> None:
        with self._latest_lock:
            self._odom = msg

    def measured_state(self):
        """(BaseState from ``/odom``, joint names, joint angles [rad]) of the latest messages; None
        until both have arrived."""
        from biped_common.conversions import base_state_from_odometry
        with self._latest_lock:
            joints, odom = self._joint_states, self._odom
        if joints is None or odom is None:
            return None
        return base_state_from_odometry(odom), tuple(joints.name), list(joints.position)

    def connected(self, timeout_s: float = 0.0) -> bool:
        """Whether the planner's parameter service is there (waiting up to ``timeout_s``)."""
        return self._client.wait_for_service(timeout_sec=timeout_s)

    def send(self, style_text: str) -> tuple[bool, str]:
        """Write ``style_text`` to :attr:`live_file` and point the planner's ``style`` at it:
        (accepted, the node's reason when not). Not connected, or no answer within
        :data:`CALL_TIMEOUT_S`: (False, why)."""
        from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
        from rcl_interfaces.srv import SetParameters
        if not self.connected(timeout_s=2.0):
            return False, f"no gait planner at {self.planner_node} (is the stack running, in this ROS_DOMAIN_ID?)"
        self.live_file.parent.mkdir(parents=True, exist_ok=True)
        partial = self.live_file.with_suffix(".partial")
        partial.write_text(style_text, encoding="utf-8")
        os.replace(partial, self.live_file)  # the node never reads half a file
        request = SetParameters.Request(parameters=[Parameter(
            name="style", value=ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=str(self.live_file)))])
        future = self._client.call_async(request)
        deadline = time.monotonic() + CALL_TIMEOUT_S  # the spinner thread completes it
        while not future.done() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not future.done() or future.result() is None:
            return False, f"{self.planner_node} did not answer within {CALL_TIMEOUT_S:.0f} s"
        result = future.result().results[0]
        return bool(result.successful), result.reason

    def close(self) -> None:
        self._executor.shutdown(timeout_sec=2.0)
        self._spinner.join(timeout=2.0)
        self.node.destroy_node()
        self._rclpy.shutdown(context=self.context)
