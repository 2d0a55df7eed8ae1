"""biped_stack tooling: the ``biped-stack`` command, the pip-only launcher and the in-process
lockstep composition of the cores used by tests, benchmarks and the demo."""
