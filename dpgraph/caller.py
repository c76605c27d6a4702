"""Where a warning points: the caller's line, outside dpgraph.

:func:`caller_stacklevel` is the ``stacklevel`` of :func:`warnings.warn` that attributes a
warning to the first frame outside the dpgraph package, however deep inside dpgraph it is
raised (a reader three calls down, a NetworkX backend call through NetworkX's dispatcher): the
line the user wrote, where ``warnings``' filters and messages name it.

:class:`DPGraphWarning` is the base class of every warning dpgraph issues, so that one filter
(``warnings.simplefilter("error", dpgraph.DPGraphWarning)``) covers them all.
"""

from __future__ import annotations

import os
import sys

__all__ = ["DPGraphWarning", "caller_stacklevel"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class DPGraphWarning(UserWarning):
    """Base class of dpgraph's warnings (input changed by policy, reproducible noise, a sparse
    or halted release, ...): filter it to filter them all.

    >>> from dpgraph.graph import GraphInputWarning
    >>> issubclass(GraphInputWarning, DPGraphWarning) and issubclass(DPGraphWarning, UserWarning)
    True
    """


def caller_stacklevel() -> int:
    """``stacklevel`` for a :func:`warnings.warn` made by the function that calls this one:
    the first frame outside the dpgraph package; NetworkX's frames are skipped too (its
    backend dispatcher and ``argmap`` wrappers, through which
    ``nx.approximation.one_exchange(G, backend="dpgraph", ...)`` calls dpgraph).

    >>> import warnings
    >>> def warn_here():
    ...     warnings.warn("note", UserWarning, stacklevel=caller_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_here()
    >>> caught[0].filename.startswith("<doctest")  # warn_here is outside dpgraph: its line
    True
    """
    frame, level = sys._getframe(1), 1
    while frame is not None:
        name = frame.f_code.co_filename
        inside = (os.path.abspath(name).startswith(_PACKAGE + os.sep)
                  or "networkx.utils.decorators.argmap" in name
                  or f"{os.sep}networkx{os.sep}" in name)
        if not inside:
            break
        frame, level = frame.f_back, level + 1
    return level
