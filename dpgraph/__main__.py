"""``python -m dpgraph`` runs the ``dpgraph`` command."""

import sys

from dpgraph.cli.app import main

sys.exit(main())
