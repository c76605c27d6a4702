"""Progress lines for long stages (reading, privatizing, iterations, solving, sampling).

Library calls are silent by default; the ``dpgraph`` command turns reporting on (``--quiet``
turns it off) with :func:`reporting`, and any caller can do the same::

    with dpgraph.progress.reporting():
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6)

Each line goes to standard error as ``[dpgraph HH:MM:SS] message``. The setting is a context
variable, so it is per thread / per task and needs no argument threaded through the pipeline.

Examples
--------
>>> import io
>>> buf = io.StringIO()
>>> with reporting(stream=buf):
...     report("privatizing")
>>> buf.getvalue().endswith("] privatizing\\n")
True
>>> report("not shown")   # reporting is off outside the block
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time

__all__ = ["reporting", "report", "enabled"]

_STREAM: contextvars.ContextVar = contextvars.ContextVar("dpgraph_progress", default=None)


@contextlib.contextmanager
def reporting(enabled: bool = True, stream=None):
    """Within the block, :func:`report` writes to ``stream`` (default: standard error)."""
    token = _STREAM.set((stream or sys.stderr) if enabled else None)
    try:
        yield
    finally:
        _STREAM.reset(token)


def enabled() -> bool:
    """Whether progress is being reported (e.g. to decide whether to compute a costly message)."""
    return _STREAM.get() is not None


def report(message: str) -> None:
    """Write one progress line if reporting is on; otherwise do nothing."""
    stream = _STREAM.get()
    if stream is not None:
        print(f"[dpgraph {time.strftime('%H:%M:%S')}] {message}", file=stream, flush=True)
