"""sim_bridge: the robot's side of the stack — MuJoCo or a ros2_control robot behind one interface.

Core modules (no rclpy): :mod:`sim_bridge.commands` (validation, watchdog, joint loop),
:mod:`sim_bridge.backend` (the interface), :mod:`sim_bridge.mujoco_backend`,
:mod:`sim_bridge.ros2_control_backend`, :mod:`sim_bridge.bridge` (one control period).
The ROS 2 shell is :mod:`sim_bridge.node`.
"""
