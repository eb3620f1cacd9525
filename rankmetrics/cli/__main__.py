"""``python -m rankmetrics`` (or ``python -m rankmetrics.cli``): the command-line interface."""

import sys

from rankmetrics.cli import main

if __name__ == "__main__":
    sys.exit(main())
