"""gait_planner_node: velocity command + style → whole-body reference (source 004).

Not implemented yet: the gait planner and sampler are issue #3. This package exists so the
layout matches the design; it has no node entry point until then.
"""
