"""Entry point of ``python -m hyst``: runs the command line of :mod:`hyst.cli.main`."""

import sys

from hyst.cli.main import main

sys.exit(main())
