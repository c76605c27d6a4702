"""An explicit hook for the privacy audits: the mechanisms' raw outputs, in order.

A privacy audit (:mod:`dpgraph.lab.audit`) tests a mechanism on two adjacent inputs through
what it releases before post-processing, and for a composition through the whole transcript
the proof composes (e.g. every noisy power step of the matrix-free route). The mechanisms name
those values with :func:`record`; outside a :func:`transcript` block :func:`record` does nothing
(one context-variable lookup), so releases are unchanged and nothing is kept.

Examples
--------
>>> import numpy as np
>>> with transcript() as seen:
...     record("laplace", np.zeros(2))
>>> [name for name, _ in seen]
['laplace']
>>> record("laplace", np.zeros(2))  # no transcript open: nothing kept
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = ["transcript", "record"]

_OPEN: ContextVar[list | None] = ContextVar("dpgraph_transcript", default=None)


@contextmanager
def transcript():
    """Collect ``(name, copy of value)`` for every :func:`record` made inside the block."""
    seen: list = []
    token = _OPEN.set(seen)
    try:
        yield seen
    finally:
        _OPEN.reset(token)


def record(name: str, value) -> None:
    """Add a copy of ``value`` under ``name`` to the open transcript, if any."""
    seen = _OPEN.get()
    if seen is not None:
        seen.append((name, np.array(value, dtype=float, copy=True)))
