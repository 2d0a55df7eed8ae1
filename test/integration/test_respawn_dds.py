"""A controller process dies while the robot walks (SIGKILL: no goodbye): the bridge stays up and
damps when commands stop (WBC, estimator), or the WBC stops in place while the planner or MPC is
away; the launch respawns the process, it resumes from where the robot stands, and the robot walks
on. Both process layouts (composed: planning and control processes; separate: one per node).
Lockstep over DDS, the launch file's own respawn settings (≈ 1.5 min per layout)."""

from __future__ import annotations

import os
import re
import signal

import pytest

from biped_common import conversions as conv
from biped_common.rates import CONTROL_RATE_HZ
from test_fuzz_dds import Stack

pytestmark = pytest.mark.dds

WATCHDOG_S = 0.02      # the bridge's command_timeout_s
STEP_S = 1.0 / CONTROL_RATE_HZ  # one control period: the mode is reported at the step that sees it, and the
                       # controller may publish a step between the probe's check and the kill


def _pid(log: str, node: str) -> int:
    return int(re.findall(rf"\[launch\] started {node} \(pid (\d+)\)", log)[-1])


def _walks(stack: Stack, metres: float, timeout_s: float = 150.0) -> bool:
    x0 = stack.probe.pelvis_xy_m[-1][0]
    return stack.spin(lambda: stack.probe.pelvis_xy_m[-1][0] - x0 >= metres, timeout_s)


# Per layout: the processes to kill, and those whose loss stops the commands (the bridge damps).
LAYOUTS = {
    "composed": (("walking_planning", "walking_control"), ("walking_control",)),
    "separate": (("gait_planner", "mpc", "wbc", "state_estimator"), ("wbc", "state_estimator")),
}


# The default layout in the fast suite; one process per node (the option) in the slow one: in the
# fresh-clone CI run of 2026-12-03 it failed once (after the planner's respawn the biped did not
# walk on within 150 s) and passed when run again here — under investigation (issue #15's note).
@pytest.mark.parametrize("layout", ["composed", pytest.param("separate", marks=pytest.mark.slow)])
def test_each_controller_killed_while_walking_respawns_and_the_biped_walks_on(tmp_path, ros_domain_id, layout):
    processes, commanding = LAYOUTS[layout]
    stack = Stack(tmp_path, ros_domain_id, "biped", f"composed:={str(layout == 'composed').lower()}")
    try:
        assert stack.spin(lambda: stack.probe.sim_time_s() >= 1.0, 120), stack.log()[-3000:]
        stack.command = conv.twist_from_velocity_command([0.2, 0.0, 0.0])
        assert _walks(stack, 0.1), stack.log()[-3000:]
        started_s = stack.probe.sim_time_s()
        for node in processes:
            log = stack.log()
            before = len(re.findall(rf"\[launch\] started {node} ", log))
            stack.probe.modes.clear()
            assert stack.spin(stack.probe.heard_the_latest_command, 30), stack.log()[-3000:]
            os.kill(_pid(log, node), signal.SIGKILL)
            killed_at = stack.probe.sim_time_s()
            respawned = stack.spin(lambda: len(re.findall(rf"\[launch\] started {node} ", stack.log())) > before, 30)
            assert respawned, stack.log()[-3000:]
            # Farther than the WBC walks on its own: with the planner or MPC away it finishes the
            # step it is in (≤ 0.15 m at 0.2 m/s) before it holds; 0.3 m needs the walk resumed.
            assert _walks(stack, 0.3), (node, stack.log()[-3000:])
            if node in commanding:
                # Without the WBC (or a fresh base state, which it needs for every frame) commands
                # stop: the bridge damps within its watchdog and lockstep holds the robot there —
                # unless the respawned node answered first (lockstep waits lockstep_timeout_s of
                # wall time per step, so the watchdog's 20 ms of sim time can outlast a fast
                # respawn; the bridge's watchdog then never fired, which is what it reports). The
                # probe cannot judge gaps itself: it may discover the respawned WBC's publisher
                # later than the bridge does and miss its first commands (seen: a 0.18 s "gap").
                damping = [t for t, m in stack.probe.modes if m == "damping" and t >= killed_at - 0.5]
                if damping:
                    last = max(t for t in stack.probe.command_stamps if t <= damping[0])
                    assert damping[0] - last <= WATCHDOG_S + 2 * STEP_S + 1e-9, (node, last, damping[0])
            stack.assert_all_alive_and_standing(started_s)
        assert stack.processes.stop("launch") == 0
    finally:
        stack.close()
