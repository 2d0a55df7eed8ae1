"""The stack's default loop rates, in one place for the nodes, the launch files' defaults and the
in-process loop.

- Control (sensor frames, state estimator, whole-body controller): 200 Hz. The joint loop
  τ = τ_ff + kp (q_d − q) + kd (q̇_d − q̇) closes at every physics step (1 kHz in MuJoCo; in the
  drives on a robot), so the whole-body QP refreshes torques and setpoints, it does not close the
  joint loop — the split legged robots use (MIT Cheetah: WBC 500 Hz over kHz joint loops; many
  humanoids run the QP at 200–500 Hz).
- Planning (gait planner and CoM MPC): 50 Hz, every fourth control period: the MPC's steps are
  50 ms long and the reference's rows 40 ms apart, so a 20 ms replan still sees every step.

Measured for issue #15 (2026-12-03, this 2-core machine): in-process, the teleop script walks at
500, 250 and 200 Hz with the same segment velocities (to 2 mm/s; humanoid and biped, neutral and
bouncy, estimator and MEMS sensors), and still walks with one and two periods of command latency,
which real time brings. Over DDS in real time the control chain costs ≈ 3.4 ms a frame (cold
caches: the process sleeps between frames), so at 250 Hz it took 83–86 % of a core, missed 17–31 %
of its deadlines and one of two humanoid runs fell; at 200 Hz, 68–74 %, 1–9 %, and both walked.
"""

CONTROL_RATE_HZ = 200.0
PLANNING_RATE_HZ = 50.0
FOLLOW_CHECK_HZ = 25.0  # how often the planner compares the measured soles with the plan
# Sensor frames stamped before this [s] come from a simulation that has just started: the robot
# stands where the odometry frame begins (the estimator starts at the origin; a WBC without a base
# state may stand it). Later frames may come from a robot that walked (a respawned node joins it).
FRESH_START_S = 1.0
