"""mpc_node: CoM/CoP model-predictive control over the planner's preview (source 004, Wieber 2006).

Not implemented yet (issue #4); no node entry point until then.
"""
