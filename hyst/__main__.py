import sys

from hyst.cli import main

sys.exit(main())
