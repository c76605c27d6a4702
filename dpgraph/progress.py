"""Progress of long stages (reading, privatizing, refinement rounds, solving, sampling).

Library calls are silent by default; the ``dpgraph`` command turns reporting on (``--quiet``
turns it off) with :func:`reporting`, and any caller can do the same::

    with dpgraph.progress.reporting():
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6)

Two kinds of output, both on standard error:

- :func:`report` writes one line ``[dpgraph HH:MM:SS] message``.
- :func:`progress` wraps a loop of known length. In a terminal it draws one bar that redraws
  in place, with the count, the rate and the estimated time left
  (``sampling  40% |########            | 2/5 [1.3 it/s, ETA 0:02]``); when the stream is not a
  terminal (piped, redirected to a file) it writes plain lines instead, at most one every
  ``interval`` seconds plus the first and the last, so logs stay readable.

The setting is a context variable, so it is per thread / per task and needs no argument
threaded through the pipeline.

Examples
--------
>>> import io
>>> buf = io.StringIO()
>>> with reporting(stream=buf):
...     report("privatizing")
...     for _ in progress(range(3), desc="rounds"):
...         pass
>>> lines = buf.getvalue().splitlines()
>>> lines[0].endswith("] privatizing"), lines[-1].split("] ")[1].startswith("rounds: 3/3 done")
(True, True)
>>> report("not shown")   # reporting is off outside the block
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time

__all__ = ["reporting", "report", "enabled", "progress", "Progress", "format_duration",
           "count_of"]

_LEN = object()  # progress(total=...) default: len(iterable) where it has one
_STREAM: contextvars.ContextVar = contextvars.ContextVar("dpgraph_progress", default=None)
_BAR_OPEN: contextvars.ContextVar = contextvars.ContextVar("dpgraph_bar_open", default=False)

#: Width of the bar drawn in a terminal, in characters.
BAR_WIDTH = 24
#: Units spelled out in counts (the rate keeps the short form: ``it/s``)
_WORDS = {"it": "iteration"}


@contextlib.contextmanager
def reporting(enabled: bool = True, stream=None):
    """Within the block, :func:`report` and :func:`progress` write to ``stream`` (default:
    standard error)."""
    token = _STREAM.set((stream or sys.stderr) if enabled else None)
    try:
        yield
    finally:
        _STREAM.reset(token)


def enabled() -> bool:
    """Whether progress is being reported (e.g. to decide whether to compute a costly message)."""
    return _STREAM.get() is not None


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real file
        return False


def _stamp() -> str:
    return f"[dpgraph {time.strftime('%H:%M:%S')}]"


def report(message: str) -> None:
    """Write one progress line if reporting is on; otherwise do nothing."""
    stream = _STREAM.get()
    if stream is None:
        return
    if _BAR_OPEN.get():  # a bar is drawn on the current terminal line: end it first
        stream.write("\n")
        _BAR_OPEN.set(False)
    print(f"{_stamp()} {message}", file=stream, flush=True)


def format_duration(seconds: float) -> str:
    """``H:MM:SS`` (``M:SS`` under an hour).

    >>> format_duration(75.4), format_duration(3725)
    ('1:15', '1:02:05')
    """
    s = int(round(max(seconds, 0.0)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def count_of(k: int, unit: str) -> str:
    """``k`` units in words, thousands separated and pluralised (``"it"`` is spelled out).

    >>> count_of(1, "round"), count_of(7, "round"), count_of(12000, "it")
    ('1 round', '7 rounds', '12,000 iterations')
    """
    word = _WORDS.get(unit, unit)
    return f"{k:,} {word}" + ("" if k == 1 or word.endswith("s") else "s")


def _rate(done: int, elapsed: float, unit: str) -> str:
    if elapsed <= 0 or done == 0:
        return f"? {unit}/s"
    r = done / elapsed
    if r >= 1000:  # thousands separated, as the command's other numbers (never 5.4e+03)
        return f"{r:,.0f} {unit}/s"
    return f"{r:.3g} {unit}/s" if r >= 1 else f"{1 / r:.3g} s/{unit}"


def _bar_line(desc: str, done: int, total: int | None, elapsed: float, unit: str) -> str:
    rate = _rate(done, elapsed, unit)
    if total:
        frac = min(done / total, 1.0)
        filled = int(round(frac * BAR_WIDTH))
        eta = (elapsed / done * (total - done)) if done else None
        eta_s = format_duration(eta) if eta is not None else "?"
        return (f"{desc} {frac:4.0%} |{'#' * filled}{' ' * (BAR_WIDTH - filled)}| "
                f"{done:,}/{total:,} [{rate}, ETA {eta_s}]")
    return f"{desc} {count_of(done, unit)} [{rate}, {format_duration(elapsed)} elapsed]"


class Progress:
    """A progress display updated by hand, for loops that are not a plain iteration (a solver's
    ``while`` loop): ``update()`` after each step, ``close()`` at the end (or use it as a
    context manager). Does nothing while reporting is off. :func:`progress` is the same for
    an iterable.

    >>> import io
    >>> buf = io.StringIO()
    >>> with reporting(stream=buf), Progress(desc="solver", unit="it") as bar:
    ...     for _ in range(3):
    ...         bar.update()
    >>> buf.getvalue().splitlines()[-1].split("] ")[1].startswith("solver: 3 iterations done in")
    True
    """

    def __init__(self, *, total: int | None = None, desc: str = "working", unit: str = "it",
                 interval: float = 10.0):
        self.stream = _STREAM.get()
        self.total, self.desc, self.unit, self.interval = total, desc, unit, interval
        self.done = 0
        self.closed = self.stream is None
        if self.closed:
            return
        self.tty = _is_terminal(self.stream)
        self.t0 = self.last = time.perf_counter()
        if self.tty:
            self.stream.write("\r" + _bar_line(desc, 0, total, 0.0, unit))
            self.stream.flush()
            _BAR_OPEN.set(True)
        else:
            started = f" ({count_of(total, unit)})" if total else ""
            print(f"{_stamp()} {desc}: started{started}", file=self.stream, flush=True)

    def update(self, k: int = 1) -> None:
        """Count ``k`` more steps; redraw the bar (terminal, at most ten times a second) or
        write a plain line (at most one every ``interval`` seconds)."""
        if self.closed:
            return
        self.done += k
        now = time.perf_counter()
        if self.tty and (now - self.last >= 0.1 or self.done == self.total):
            _BAR_OPEN.set(True)  # a report() line may have ended the previous bar line
            self.stream.write("\r\033[K" + _bar_line(self.desc, self.done, self.total,
                                                      now - self.t0, self.unit))
            self.stream.flush()
            self.last = now
        elif not self.tty and now - self.last >= self.interval and self.done != self.total:
            print(f"{_stamp()} {_bar_line(self.desc, self.done, self.total, now - self.t0, self.unit)}",
                  file=self.stream, flush=True)
            self.last = now

    def close(self) -> None:
        """The final line: count, time taken and rate (once)."""
        if self.closed:
            return
        self.closed = True
        elapsed = time.perf_counter() - self.t0
        if self.tty:
            self.stream.write("\r\033[K" + _bar_line(self.desc, self.done, self.total, elapsed,
                                                      self.unit) + "\n")
            self.stream.flush()
            _BAR_OPEN.set(False)
        else:
            state = "done" if self.total is None or self.done >= self.total else "stopped"
            count = (f"{self.done:,}/{self.total:,}" if self.total
                     else count_of(self.done, self.unit))
            print(f"{_stamp()} {self.desc}: {count} {state} in {format_duration(elapsed)} "
                  f"({_rate(self.done, elapsed, self.unit)})", file=self.stream, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress(iterable, *, total=_LEN, desc: str = "working", unit: str = "it",
             interval: float = 10.0):
    """Yield the items of ``iterable`` and show the loop's progress while reporting is on.

    In a terminal: one bar redrawn in place (at most ten times a second) with the count, the
    rate and the ETA. Otherwise: a plain line at the start, then at most one every
    ``interval`` seconds, and a final line with the count, the time taken and the rate.
    ``total`` defaults to ``len(iterable)`` when it has one; ``None`` means unknown (a loop
    that may stop early: count, rate and elapsed time, no ETA). With reporting off this is a
    plain iteration (no clock is read).
    """
    if _STREAM.get() is None:
        yield from iterable
        return
    if total is _LEN:
        try:
            total = len(iterable)
        except TypeError:
            total = None
    bar = Progress(total=total, desc=desc, unit=unit, interval=interval)
    try:
        for item in iterable:
            yield item
            bar.update()
    finally:
        bar.close()
