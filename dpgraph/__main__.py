"""``python -m dpgraph`` runs the ``dpgraph`` command."""

import sys

from dpgraph.cli import main

sys.exit(main())
