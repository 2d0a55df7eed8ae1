"""state_estimator_node: IMU + leg-kinematics base state estimation (source 004).

Not implemented yet (issue #5); until then controllers use the simulator's ground truth.
"""
