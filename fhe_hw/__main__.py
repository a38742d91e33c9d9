"""``python -m fhe_hw``: the ``fhe-hw`` command."""

import sys

from .cli import main

sys.exit(main())
