"""wbc_node: the controller that turns references into joint commands.

Core modules (no rclpy): :mod:`wbc_node.stand` (the safe stand controller: joint PD to a standing
posture plus floating-base gravity compensation — the fallback the whole-body controller keeps).
The ROS 2 shell is :mod:`wbc_node.node`.
"""
