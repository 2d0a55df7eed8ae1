"""Group the messages of one instant by their stamp (ROS-free).

A sensor frame arrives as several messages with one stamp (joint states, IMU, wrenches, …), a
gait reference as three; a node acts once all parts of a stamp are in. Older incomplete stamps
can never complete once a newer one has, so they are dropped then; at most ``capacity`` stamps
wait at any time.
"""

from __future__ import annotations


class StampedParts:
    """Collects the named ``parts`` per stamp [ns]; :meth:`add` returns them once complete."""

    def __init__(self, parts: tuple[str, ...], capacity: int = 32):
        self.parts = tuple(parts)
        self.capacity = capacity
        self._pending: dict[int, dict[str, object]] = {}

    def add(self, part: str, stamp_ns: int, msg) -> dict[str, object] | None:
        """Store ``msg`` as ``part`` of ``stamp_ns``; the complete {part: msg} of that stamp when
        this was its last missing part (older stamps are then forgotten), else None."""
        if part not in self.parts:
            raise KeyError(f"unknown part {part!r}; expected one of {self.parts}")
        group = self._pending.setdefault(stamp_ns, {})
        group[part] = msg
        if len(group) < len(self.parts):
            while len(self._pending) > self.capacity:
                del self._pending[min(self._pending)]
            return None
        for old in [s for s in self._pending if s <= stamp_ns]:
            del self._pending[old]
        return group
