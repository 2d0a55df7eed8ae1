"""``/tf`` and ``/tf_static`` of the robot: its frame tree (biped_common.tf_frames) from
``/joint_states`` and the base state, as robot_state_publisher does."""
