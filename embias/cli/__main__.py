"""``python -m embias.cli``: the command line (:func:`embias.cli.run`)."""

import sys

from embias.cli import run

sys.exit(run())
