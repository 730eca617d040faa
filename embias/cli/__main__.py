"""``python -m embias.cli``: the command line (:func:`embias.cli.main`)."""

import sys

from embias.cli import main

sys.exit(main())
