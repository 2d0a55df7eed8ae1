"""muscle_allocator_node: Hill muscles, activation dynamics, static optimization (sources 000, 001).

Not implemented yet (issue #6); no node entry point until then.
"""
