"""The wall-clock schedule and the gantry, on a fake clock: ticks keep their due times, a late
tick is caught up, a long stall is given up, and the gantry waits for a steady controller."""

import pytest

from sim_bridge.realtime_loop import Gantry, spin_on_deadlines


class FakeClock:
    """A monotonic clock that moves only when told: by ``wait`` and by each tick's cost."""

    def __init__(self):
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def run(costs_s, period_s=0.004, max_catch_up_s=0.05):
    """Spin until every tick cost in ``costs_s`` was spent; the due times, lates and give-ups."""
    clock = FakeClock()
    dues, lates, give_ups, waits = [], [], [], []

    def tick(due_s):
        dues.append(due_s)
        clock.now_s += costs_s[len(dues) - 1]

    def wait(timeout_s):
        assert timeout_s > 0.0
        waits.append(timeout_s)
        clock.now_s += timeout_s

    spin_on_deadlines(period_s, tick, wait, running=lambda: len(dues) < len(costs_s), max_catch_up_s=max_catch_up_s,
                      on_late=lambda: lates.append(len(dues)), on_give_up=lambda due, behind: give_ups.append((due, behind)),
                      clock=clock)
    return dues, lates, give_ups, waits


def test_ticks_that_fit_run_on_their_due_times_and_wait_in_between():
    dues, lates, give_ups, waits = run([0.001] * 10)
    assert dues == pytest.approx([k * 0.004 for k in range(10)])
    assert lates == [] and give_ups == []
    assert waits == pytest.approx([0.003] * 9)


def test_a_slow_tick_is_caught_up_back_to_back_keeping_the_due_times():
    # Tick 2 takes 13 ms (three periods and a bit): the next ticks run at once until caught up.
    dues, lates, give_ups, _ = run([0.001, 0.001, 0.013, 0.001, 0.001, 0.001, 0.001, 0.001])
    assert dues == pytest.approx([k * 0.004 for k in range(8)])  # no period skipped
    assert len(lates) == 2 and give_ups == []                    # ticks 3 and 4 came over a period late


def test_a_stall_beyond_the_catch_up_limit_is_given_up_and_the_schedule_restarts():
    dues, _, give_ups, _ = run([0.001, 0.2, 0.001, 0.001], max_catch_up_s=0.05)
    assert len(give_ups) == 1
    restart, behind = give_ups[0]
    # Tick 1 (due at 4 ms) ends at 204 ms; tick 2 was due at 8 ms: 196 ms behind, given up.
    assert restart == pytest.approx(0.204) and behind == pytest.approx(0.196)
    assert dues[2:] == pytest.approx([0.204, 0.208])


def test_a_non_positive_period_is_refused():
    with pytest.raises(ValueError, match="period_s"):
        spin_on_deadlines(0.0, lambda d: None, lambda t: None, lambda: False, max_catch_up_s=0.1)


def test_the_gantry_waits_for_steady_fresh_commands():
    gantry = Gantry(release_after_s=0.5, max_gap_s=0.05, fresh_within_s=0.1)
    assert not gantry.ready(0.0)
    for k in range(30):  # 20 ms apart from t = 0 to 0.58 s
        gantry.command_arrived(0.02 * k)
    assert gantry.ready(0.58) and gantry.ready(0.675)
    assert not gantry.ready(0.685)  # the latest is stale
    gantry.command_arrived(0.80)  # after a pause over max_gap_s the count restarts
    assert not gantry.ready(0.80)
    for k in range(1, 27):
        gantry.command_arrived(0.80 + 0.02 * k)
    assert gantry.ready(1.32)


def test_gantry_bounds_are_checked():
    with pytest.raises(ValueError, match="release_after_s"):
        Gantry(release_after_s=-1.0, max_gap_s=0.05, fresh_within_s=0.1)
