"""``python -m training.cli``: the ``yaniv`` command."""

import sys

from training.cli import main

sys.exit(main())
