"""muscle_allocator_node: Hill muscles, activation dynamics, static optimization (sources 000, 001).

Built so far (issue #6): the Hill curves (MuJoCo's family, reproducing its actuators exactly; De
Groote 2016) with the rigid-tendon force in :mod:`.hill`, activation dynamics in
:mod:`.activation`, and the allocation QP :func:`allocate` in :mod:`.allocation`. No node entry
point yet.
"""

from muscle_allocator_node.allocation import Allocation, Allocator, allocate

__all__ = ["Allocation", "Allocator", "allocate"]
