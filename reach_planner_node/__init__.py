"""reach_planner_node: minimum-jerk reaching with a human-like arm angle (sources 002, 003).

Not implemented yet (issue #7); no node entry point until then.
"""
