"""The stack's default loop rates, in one place for the nodes, the launch files' defaults and the
in-process loop.

- Control (sensor frames, state estimator, whole-body controller): 250 Hz. The joint loop
  τ = τ_ff + kp (q_d − q) + kd (q̇_d − q̇) closes at every physics step (1 kHz in MuJoCo; in the
  drives on a robot), so the whole-body QP refreshes torques and setpoints, it does not close the
  joint loop — the split legged robots use (MIT Cheetah: WBC 500 Hz over kHz joint loops; many
  humanoids run the QP at 200–500 Hz). Issue #15 measured the teleop script in-process at 500 and
  250 Hz (humanoid and biped, neutral and bouncy, estimator and MEMS sensors): the same segment
  velocities to 2 mm/s, and 250 Hz still walks with one and two periods of command latency —
  while on this 2-core machine it halves the control chain's CPU, which real time needs.
- Planning (gait planner and CoM MPC): 62.5 Hz, every fourth control period: the MPC's steps are
  50 ms long and the reference's rows 40 ms apart, so a 16 ms replan still sees every step.
"""

CONTROL_RATE_HZ = 250.0
PLANNING_RATE_HZ = 62.5
FOLLOW_CHECK_HZ = 25.0  # how often the planner compares the measured soles with its plan
