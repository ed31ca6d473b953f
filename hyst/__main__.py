import sys

from hyst.cli.main import main

sys.exit(main())
