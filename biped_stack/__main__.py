"""``python -m biped_stack`` is ``biped-stack``."""

import sys

from biped_stack.cli import main

sys.exit(main())
