"""`python -m wherein.cli`: how an agent runs this wherein by interpreter path."""

import sys

from wherein.cli.app import main

sys.exit(main())
