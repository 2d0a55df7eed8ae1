"""StampedParts: a group is returned once complete; older incomplete stamps are dropped."""

import pytest

from biped_common.stamp_pairing import StampedParts


def test_groups_complete_in_any_order_and_older_stamps_are_forgotten():
    pairs = StampedParts(("a", "b"), capacity=3)
    assert pairs.add("a", 10, "a10") is None
    assert pairs.add("b", 20, "b20") is None
    assert pairs.add("a", 20, "a20") == {"a": "a20", "b": "b20"}
    assert pairs.add("b", 10, "b10") is None  # 10 was forgotten when 20 completed
    for stamp in (30, 40, 50, 60):
        assert pairs.add("a", stamp, stamp) is None
    assert len(pairs._pending) == 3  # bounded
    with pytest.raises(KeyError, match="unknown part 'c'"):
        pairs.add("c", 70, None)
