"""Issue #16 bar 1 on the humanoid in neutral (slow suite: 24 runs of 10–12 s sim time): every
push alone — 25 N × 1 s forward and backward, 15 N × 1 s to either side, 150 N × 0.05 s from 8
directions — walking at 0.3 m/s and standing, in-process on the estimator with MEMS sensors. The
other robot × style cases are measured by ``bench/push_matrix.py`` (not all survive yet)."""

import pytest

from biped_stack.push_cases import PUSH_SETS, scenario_for
from biped_stack.walking import run_walk

CASES = [(mode, *push) for mode in ("walk", "stand") for name in ("paper", "sides", "impulses")
         for push in PUSH_SETS[name]]


@pytest.mark.slow
@pytest.mark.parametrize("mode, label, duration_s, fx, fy", CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_the_humanoid_survives_issue_16s_pushes(mode, label, duration_s, fx, fy):
    result = run_walk("humanoid", "neutral", scenario_for(mode, label, duration_s, fx, fy), progress=lambda m: None)
    push = result.metrics["pushes"][0]
    assert push["survived"], result.metrics["fall_reason"]
    assert push["regained_after_s"] is not None and push["regained_after_s"] <= 3.0, push
