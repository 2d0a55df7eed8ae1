"""Shared library of biped_stack: robot model, message conversions, rotations and splines.

Nothing here imports rclpy. ``biped_common.conversions`` imports ROS message types (it is the one
place that knows how a standard message encodes our data) and is only imported by node shells.
"""
