"""``python -m dpgraph`` runs the ``dpgraph`` command."""

import sys

from .cli import main

sys.exit(main())
