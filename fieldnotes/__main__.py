"""``python -m fieldnotes`` is the ``fieldnotes`` console script."""

import sys

from fieldnotes.check.cli import main

sys.exit(main())
