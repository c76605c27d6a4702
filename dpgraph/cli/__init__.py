"""The ``dpgraph`` command.

:mod:`~dpgraph.cli.app` builds the parser and dispatches; one module per command (``info``,
``cut`` for maxcut and bisection, ``synth``, ``max2csp``, ``bench``), registered in
:mod:`~dpgraph.cli.commands`; what they share (arguments, input loading, the reproducible-noise
notice, the ledger lines) in :mod:`~dpgraph.cli.common`, ``--json`` documents in
:mod:`~dpgraph.cli.output`, and error and warning lines in :mod:`~dpgraph.cli.errors`.
"""

from dpgraph.cli.app import main

__all__ = ["main"]
