"""Memory the routes need, memory the machine has, and the refusal before allocating.

No input may make the process die of memory: :func:`check_memory` compares a route's estimate
(``estimated_memory(n, m, rank)`` of each route module, in bytes, from public sizes only) with
:func:`available_memory` and raises :class:`InsufficientMemoryError` *before* the route
allocates, naming what it needs, what is available and what would fit.

``available_memory`` is the smallest of: ``MemAvailable`` of ``/proc/meminfo``, the cgroup
limit minus current usage (containers), the address-space limit (``ulimit -v``) minus the
process's virtual size, and ``DPGRAPH_MEMORY_LIMIT`` (bytes, or a number with
a ``K``/``M``/``G``/``T`` suffix) when that environment variable is set — a way to keep dpgraph
inside a share of a shared machine.

Every size a caller or a file asks for is priced before it is allocated: a file header's node
and edge counts (:func:`dpgraph.io.base.check_node_count`), a generator's ``n``, a 2-CSP's
alphabet and the label-extended graph (:mod:`dpgraph.engine.twocsp`), a route's working set
(``estimated_memory`` of each route module), and a private answer's whole call where its parts
are held at once (:func:`dpgraph.solve.csp.dense_2csp_bytes`: the release, the solves and their
certificates added, not compared with the memory one by one). A refusal is one line that names the limit and,
where a smaller size would do, the largest that fits (:func:`check_memory`'s ``fit``).

numba's first load in a process (its import and the first compile of a kernel: about 160 MiB
resident, which no array estimate sees and the available memory shows only once it is spent)
is priced by the engine checks whose solve runs a kernel, until one has run
(:func:`dpgraph.engine.local_search.kernel_load_bytes`), and by the private cut answers before
anything is spent (:func:`dpgraph.engine.local_search.check_kernel_load`); steps that run no
kernel do not pay it.
"""

from __future__ import annotations

import os
import re

__all__ = ["InsufficientMemoryError", "available_memory", "memory_limit", "check_memory",
           "largest_fitting", "format_bytes", "parse_bytes"]


class InsufficientMemoryError(MemoryError):
    """Raised before a large allocation that would not fit in the available memory.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1K"}):
    ...     try:
    ...         check_memory(10**6, what="a step")
    ...     except InsufficientMemoryError as exc:  # a MemoryError: nothing was allocated
    ...         print(isinstance(exc, MemoryError), "nothing was allocated" in str(exc))
    True True
    """


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_bytes(text: str) -> int:
    """``"8G"`` -> 8 * 2**30; plain integers are bytes.

    >>> parse_bytes("1.5G") == 3 * 2**29, parse_bytes("4096")
    (True, 4096)
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?)i?B?\s*", str(text), flags=re.IGNORECASE)
    if not m:
        raise ValueError(f"cannot read a memory size from {text!r} (expected e.g. 8G, 512M or "
                         f"a number of bytes)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def format_bytes(n: float) -> str:
    """``format_bytes(3 * 2**30) == '3.0 GiB'``.

    >>> format_bytes(3 * 2**30), format_bytes(1536), format_bytes(512)
    ('3.0 GiB', '1.5 KiB', '512 B')
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024.0
    return f"{n:.1f} TiB"  # pragma: no cover


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _cgroup_available() -> int | None:
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_path) as fh:
                raw = fh.read().strip()
            if raw == "max":
                return None
            limit = int(raw)
            with open(usage_path) as fh:
                usage = int(fh.read().strip())
        except (OSError, ValueError):
            continue
        if limit >= 2**60:  # "no limit" in cgroup v1
            return None
        return max(limit - usage, 0)
    return None


def _address_space_left() -> int | None:
    """The soft address-space limit (``ulimit -v``) minus this process's current virtual size,
    or None when no limit is set."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    used = 0
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return max(int(soft) - used, 0)


def memory_limit() -> tuple[int | None, str]:
    """``(bytes, where)``: what :func:`available_memory` returns and which bound set it, in
    words for a message (``"available on this machine"``, ``"left under the container's
    memory limit"`` or ``"allowed by DPGRAPH_MEMORY_LIMIT=8G"``).

    >>> import os
    >>> saved = os.environ.get("DPGRAPH_MEMORY_LIMIT")
    >>> os.environ["DPGRAPH_MEMORY_LIMIT"] = "1K"
    >>> memory_limit()
    (1024, 'allowed by DPGRAPH_MEMORY_LIMIT=1K')
    >>> _ = os.environ.pop("DPGRAPH_MEMORY_LIMIT") if saved is None else os.environ.update(
    ...     DPGRAPH_MEMORY_LIMIT=saved)
    """
    candidates = [(v, why) for v, why in ((_meminfo_available(), "available on this machine"),
                                          (_cgroup_available(),
                                           "left under the container's memory limit"))
                  if v is not None]
    address_space = _address_space_left()
    if address_space is not None:
        candidates.append((address_space, "left under the address-space limit (ulimit -v)"))
    env = os.environ.get("DPGRAPH_MEMORY_LIMIT")
    if env:
        candidates.append((parse_bytes(env), f"allowed by DPGRAPH_MEMORY_LIMIT={env.strip()}"))
    if not candidates:
        return None, "unknown"
    return min(candidates, key=lambda c: c[0])


def available_memory() -> int | None:
    """Bytes this process may still allocate (None if nothing can be read).

    >>> have = available_memory()  # differs between machines: a relation only
    >>> have is None or have > 0
    True
    """
    return memory_limit()[0]


def largest_fitting(cost, have: int, *, low: int = 0, high: int = 10**15) -> int:
    """The largest integer ``x`` in ``[low, high]`` with ``cost(x) <= have`` (``cost``
    non-decreasing), by bisection; ``low - 1`` when not even ``low`` fits.

    >>> largest_fitting(lambda n: 128 * n, 2**20)
    8192
    """
    if cost(low) > have:
        return low - 1
    lo, hi = low, high
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cost(mid) <= have:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_memory(needed: int, *, what: str, alternative: str = "", fit=None) -> None:
    """Raise :class:`InsufficientMemoryError` if ``needed`` bytes exceed the available memory.

    The message is one line: what needs how much, the limit that applied (and where it comes
    from), and what would fit. ``fit``, optional, is ``(cost, template)``: ``cost(x)`` the bytes
    the same step needs at size ``x`` (non-decreasing), ``template`` a sentence with ``{}`` for
    the largest ``x`` that fits (``"At most {:,} nodes fit."``), added when some ``x >= 1`` fits.

    >>> check_memory(10, what="a tiny step")   # fits: returns None
    >>> import os
    >>> os.environ["DPGRAPH_MEMORY_LIMIT"] = "1M"
    >>> try:
    ...     check_memory(10**9, what="10^8 nodes", fit=(lambda n: 10 * n, "At most {:,} fit."))
    ... except InsufficientMemoryError as exc:
    ...     print(exc)
    10^8 nodes needs about 953.7 MiB but only 1.0 MiB is allowed by DPGRAPH_MEMORY_LIMIT=1M (nothing was allocated). At most 104,857 fit.
    >>> del os.environ["DPGRAPH_MEMORY_LIMIT"]
    """
    have, where = memory_limit()
    if have is None or needed <= have:
        return
    hints = []
    if fit is not None:
        cost, template = fit
        largest = largest_fitting(cost, have)
        if largest >= 1:
            hints.append(template.format(largest))
    if alternative:
        hints.append(alternative)
    raise InsufficientMemoryError(
        f"{what} needs about {format_bytes(needed)} but only {format_bytes(have)} is "
        f"{where} (nothing was allocated)." + "".join(f" {h}" for h in hints))
