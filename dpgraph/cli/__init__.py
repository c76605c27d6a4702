"""The ``dpgraph`` command: one module per command, shared arguments in :mod:`common`."""

from dpgraph.cli.app import main

__all__ = ["main"]
