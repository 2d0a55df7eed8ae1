"""reach_planner_node: human-like reaching (sources 002, 003).

Built so far (issue #7): the 002 arm (D-H model, forward kinematics, arm angle, closed-form
inverse from hand pose and arm angle) in :mod:`.arm`, and reach plans (minimum-jerk straight hand
path, slerp, interpolated arm angle, damped-least-squares fallback, workspace clamping) in
:mod:`.reach`, and the arm-angle model (criterion, MLP, least squares) in :mod:`.arm_angle`. Not yet: the
humanoid's arms, the node.
"""
