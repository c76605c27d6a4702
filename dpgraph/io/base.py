"""Shared pieces of the readers: the error type, transparent gzip, and the numeric table parser.

Fast path and slow path. Every text reader parses its body with :func:`numpy.loadtxt` on an
open stream (numpy's C parser reads the stream in chunks, so no Python list of lines is ever
built; G81's 40,000 lines parse in about 25 ms). Only when that fails, or when a value is out of
range, do we re-read the file line by line in Python (:func:`scan_lines`) to find the first
offending line, so that the error can name the line number and its text. Correct files never pay
for the line-by-line pass.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import sys
import stat
import warnings
from collections.abc import Callable, Iterator

import numpy as np

from dpgraph.graph import WeightSumOverflowError
from dpgraph.memory import InsufficientMemoryError

__all__ = ["GraphFormatError", "HeaderTooLargeError", "WeightSumFormatError",
           "weight_sum_format_error", "data_line_numbers",
           "at_positions", "open_text", "open_binary", "is_gzip",
           "warn_if_not_gzip",
           "scan_lines",
           "nonfinite_weight_error",
           "simple_delimiter", "arrow_edge_options",
           "load_table", "check_node_count", "BYTES_PER_NODE", "BYTES_PER_EDGE", "AsciiStream",
           "predicted_lines", "is_regular_file", "ARROW_MIN_BYTES", "prefer_arrow",
           "check_whole_file_read", "check_tokens_fit",
           "check_document_read", "check_ids", "NoEdgesError", "check_node_set",
           "NODE_SET_BYTES", "NODE_SET_BYTES_PER_ENTRY", "check_node_file",
           "NODE_FILE_BYTES_PER_LINE",
           "WHOLE_FILE_BYTES_PER_LINE",
           "DOCUMENT_BYTES_PER_BYTE"]

# Bytes of memory a node costs once read: its label (a Python int in a tuple, ~36 B), its
# CSR row pointer (8 B) and the per-node arrays built on the way (degrees, index maps);
# rounded up (measured: 24 B per declared node for G-set, DIMACS and Matrix Market headers,
# 40 B for METIS). Used only to refuse a header whose counts cannot fit, before allocating.
BYTES_PER_NODE = 128
# Bytes per edge line while a header format is read (the parsed table, the COO arrays and the
# symmetric CSR; measured 110-160 B on 10^6-edge G-set, DIMACS and Matrix Market files).
BYTES_PER_EDGE = 180


class GraphFormatError(ValueError):
    """A graph file that does not follow its format.

    Attributes
    ----------
    path : str
        The file.
    line : int or None
        1-based line number of the offending line (``None`` when the problem is not on one line,
        e.g. a file that is empty or a format library that does not report lines).
    text : str or None
        The offending text (the line, or the token within it).
    expected : str or None
        What the reader expected there (None where the text is well formed but cannot be
        read, as a header announcing more than memory holds).
    problem : str or None
        A short description of what is wrong, when it adds to ``expected``.
    """

    def __init__(self, path, line, text, expected, problem=None):
        self.path = str(path)
        self.line = line
        self.text = text
        self.expected = expected
        self.problem = problem
        where = f"{self.path}, line {line}" if line is not None else self.path
        parts = [where]
        if problem:
            parts.append(problem)
        if text is not None:
            shown = text if len(text) <= 80 else text[:77] + "..."
            parts.append(f"found {shown!r}")
        if expected is not None:  # None where the text is well formed (a header too large)
            parts.append(f"expected {expected}")
        super().__init__(": ".join(parts))

    def __reduce__(self):  # keep the attributes through pickling (multiprocessing, pytest-xdist)
        return (type(self), (self.path, self.line, self.text, self.expected, self.problem))


class WeightSumFormatError(GraphFormatError, WeightSumOverflowError):
    """A graph file whose edge weights add up past float64 (a weighted degree, the total, or
    the weights of one node pair added by ``duplicates="sum"`` or ``symmetrize="sum"``): a
    :class:`GraphFormatError` naming the file (and the pair's first line, where the reader
    knows it) and a :class:`~dpgraph.graph.WeightSumOverflowError` (both ``ValueError``),
    whichever reader refused it. Built by :func:`weight_sum_format_error`."""

    def __reduce__(self):  # both classes' attributes kept through pickling
        return (type(self), (self.path, self.line, self.text, self.expected, self.problem),
                self.__dict__)


def weight_sum_format_error(path, exc: WeightSumOverflowError,
                            lines=None) -> WeightSumFormatError:
    """``exc`` as the :class:`WeightSumFormatError` of the file ``path``: the message names
    ``path`` (in place of the source the converter knew, e.g. ``networkx.Graph``) and, for a
    node pair, its ``lines`` (line numbers of its listings) where given.

    >>> from dpgraph.graph import WeightSumOverflowError
    >>> exc = WeightSumOverflowError("x: too big", source="x")
    >>> err = weight_sum_format_error("g.txt", exc)
    >>> str(err), isinstance(err, WeightSumOverflowError), isinstance(err, GraphFormatError)
    ('g.txt: too big', True, True)
    """
    if isinstance(exc, WeightSumFormatError):
        return exc
    lines = sorted({int(x) for x in lines if x is not None}) if lines else None
    err = WeightSumFormatError(path, lines[0] if lines else None, None, None,
                               problem=exc.describe(lines))
    err.source, err.pair, err.entries, err.rule, err.peak = (str(path), exc.pair, exc.entries,
                                                             exc.rule, exc.peak)
    return err


def data_line_numbers(path, rows, *, comments: tuple[str, ...], skip: int = 0) -> list:
    """The line numbers of the data lines ``rows`` (0-based positions among the data lines
    after the first ``skip`` ones: the edge lines of a file whose ``skip`` header lines are
    data lines too), in one pass that stops at the last one; blank and comment lines are not
    data lines (as :func:`row_line` counts them)."""
    wanted = {int(r) + skip for r in rows}
    return at_positions((number for number, line in scan_lines(path)
                         if not is_skippable(strip_comment(line, comments), ())), wanted)


def at_positions(numbers, wanted: set) -> list:
    """The items of the iterator ``numbers`` (each data row's line number, in order) at the
    0-based positions ``wanted``, read no further than the last of them.

    >>> at_positions(iter([3, 5, 8, 9]), {0, 2})
    [3, 8]
    """
    if not wanted:
        return []
    last, found = max(wanted), []
    for k, number in enumerate(numbers):
        if k in wanted:
            found.append(number)
        if k >= last:
            break
    return found


class NoEdgesError(GraphFormatError):
    """An edge-list file (snap, csv, edgelist) with no edge line: it names no node, so it is a
    graph only on a node set stated apart (``read_graph(path, nodes=N)`` reads it as ``N``
    isolated nodes). A :class:`GraphFormatError` naming the file."""


class HeaderTooLargeError(GraphFormatError, InsufficientMemoryError):
    """A header whose node (or edge) count cannot be held in the memory available: a
    :class:`GraphFormatError` (it names the file, the line and what would fit) and an
    :class:`~dpgraph.memory.InsufficientMemoryError`, raised before anything of that size is
    allocated."""


# Peak bytes per edge line of the whole-file line readers, measured with tracemalloc on
# 200,000-line files (the parsed rows, a Python str per id where the ids are strings, their
# arrays and from_coo's merge): CSV and SNAP with string ids or arcs 298-337 B for lines of
# 11-13 bytes, 386 B for lines of 66 bytes (ids of 33 characters), priced as 340 B plus the
# line's length; NetworkX's edge lists (a MultiGraph of dicts first) 1,406-1,445 B per line.
# A NetworkX edge list of 9 attributes per edge peaked at 1,978 B per line: its lines' own
# length counts four times there (the attribute dicts), once for the rows.
# The header formats' whole-table reads (G-set's and DIMACS's NumPy table when the stream does
# not take the file) cost BYTES_PER_EDGE per line, whatever their header announces.
WHOLE_FILE_BYTES_PER_LINE = {"rows": 340, "networkx": 1500, "table": BYTES_PER_EDGE}
PER_LINE_BYTE = {"rows": 1, "networkx": 4, "table": 0}
# Peak bytes per byte of a document that a library parses whole (measured with tracemalloc on
# 50,000- and 100,000-edge files of integer and of 20-character string labels): GraphML
# 20.1-26.5, GML 15.2-16.7, Pajek 10.6-12.2; rounded up.
DOCUMENT_BYTES_PER_BYTE = {"graphml": 30, "gml": 20, "pajek": 15}


# Bytes per node of a public node set ``nodes=`` (read_graph, read_edge_files), measured with
# tracemalloc: an integer N (or a range) reads as ids 0..N-1 at 8 B per node (the CSR row
# pointer of the N rows; 4 B for a file without edges), 24 B once the degrees are computed,
# which every use of the graph does: priced 32 B. A sequence of labels costs its tuple, the
# label -> position map and a duplicate check: 75-111 B per label for a list of ints or
# strings, 122-143 B for a NumPy array (a Python object made per label), at 10^5 and 10^6
# labels: priced 160 B (the caller's own sequence is not counted).
NODE_SET_BYTES = {"count": 32, "labels": 160}
# Bytes per stored entry (2 per edge) of the graph read, when nodes= rebuilds its CSR on the
# node set (its COO and the new CSR): measured 40-43 B on facebook (176,468 entries).
NODE_SET_BYTES_PER_ENTRY = 48


def _node_set_size(nodes) -> tuple[int, str] | None:
    """``(count, kind)`` of a public node set (a key of :data:`NODE_SET_BYTES`), or None when
    its size cannot be told without consuming it (an iterator) or it is not a node set at all
    (:func:`dpgraph.graph.public_nodes` refuses those with its own message)."""
    if isinstance(nodes, np.ndarray) and nodes.ndim == 0:
        nodes = nodes.item()
    if isinstance(nodes, (bool, np.bool_, str, bytes)):
        return None
    if isinstance(nodes, (int, np.integer)):
        return int(nodes), "count"
    if isinstance(nodes, range):  # len() of a range past 2**63 overflows
        span = (nodes.stop - nodes.start) // nodes.step
        rest = (nodes.stop - nodes.start) % nodes.step
        return max(span + (1 if rest else 0), 0), "count"
    try:
        return len(nodes), "labels"
    except TypeError:
        return None


def check_node_set(nodes, source, *, entries: int = 0) -> None:
    """Refuse, before anything of its size is allocated, a public node set ``nodes`` (the
    ``nodes=`` of :func:`dpgraph.io.read_graph`: a count ``N`` or a sequence of labels) whose
    nodes would not fit in memory: :data:`NODE_SET_BYTES` per node, plus
    :data:`NODE_SET_BYTES_PER_ENTRY` per stored entry of the graph already read from
    ``source`` (``entries``, which the node set's CSR copies). Raises
    :class:`~dpgraph.memory.InsufficientMemoryError` naming ``nodes=`` and how many nodes
    fit; an iterator without a length is not priced.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1G"}):
    ...     check_node_set(10**6, "g.txt")  # 32 MB: fits
    ...     try:
    ...         check_node_set(3 * 10**9, "g.txt")
    ...     except InsufficientMemoryError as exc:
    ...         print(exc)
    g.txt: nodes=3000000000 (a public node set of 3,000,000,000 nodes) needs about 89.4 GiB but only 1.0 GiB is allowed by DPGRAPH_MEMORY_LIMIT=1G (nothing was allocated). At most 33,554,432 nodes fit in nodes=.
    """
    from dpgraph.memory import check_memory

    size = _node_set_size(nodes)
    if size is None or size[0] < 1:
        return
    count, kind = size
    per = NODE_SET_BYTES[kind]
    rest = NODE_SET_BYTES_PER_ENTRY * max(int(entries), 0)
    what = (f"{source}: nodes={count} (a public node set of {count:,} nodes)" if kind == "count"
            else f"{source}: nodes= (a public node set of {count:,} node labels)")
    check_memory(per * count + rest, what=what,
                 fit=(lambda k: per * k + rest, "At most {:,} nodes fit in nodes=."))


# Peak bytes per line of a node file (``--nodes FILE``: one id a line) read into a list of ids
# (dpgraph.cli.common.read_node_set; measured with tracemalloc on 10^6 lines: 100 B for integer
# ids, 79 B for 14-byte names, of which 36-70 B are kept as the list).
NODE_FILE_BYTES_PER_LINE = 100


def check_node_file(path, option: str = "--nodes") -> None:
    """Refuse, before it is read, a file of node ids (one a line, given as ``option``) whose
    ids would not fit in memory: :data:`NODE_FILE_BYTES_PER_LINE` plus the line's length to
    read each, and :data:`NODE_SET_BYTES` ``["labels"]`` for the node set made of them
    (:func:`check_node_set`), for the lines predicted from the file's size. A pipe is not
    priced (it cannot be read twice).

    >>> import os, tempfile
    >>> from unittest import mock
    >>> path = os.path.join(tempfile.mkdtemp(), "nodes.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(f"{i}\\n" for i in range(100_000)))
    >>> check_node_file(path)  # about 26 MB: fits
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1M"}):
    ...     try:
    ...         check_node_file(path)
    ...     except InsufficientMemoryError as exc:
    ...         print(str(exc).startswith(f"--nodes {path} (about "), "node ids fit" in str(exc))
    True True
    """
    from dpgraph.memory import check_memory

    if not is_regular_file(path):
        return
    lines, mean = predicted_lines(path, gzip_count=False)
    per = NODE_FILE_BYTES_PER_LINE + mean + NODE_SET_BYTES["labels"]
    check_memory(int(per * lines),
                 what=f"{option} {path} (about {lines:,} node ids, predicted from its size)",
                 fit=(lambda k: per * k, "About {:,} node ids fit."))


def check_ids(ids) -> str:
    """``ids`` if it is a rule for the node ids of SNAP and CSV files ("auto", "int" or
    "str"), else a ValueError."""
    if ids not in ("auto", "int", "str"):
        raise ValueError(f"ids={ids!r} is not 'auto', 'int' or 'str'")
    return ids


def _head_lines(path, skip: int) -> list[bytes]:
    """The complete lines of the first 64 KiB of an uncompressed file after its first
    ``skip`` lines (the whole head when no line ends in it)."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    return head.split(b"\n")[skip:-1] or [head]


def _gzip_profile(path) -> tuple[int, int]:
    """``(decompressed bytes, newlines)`` of a gzip file, streamed 256 KiB at a time: its
    compressed size says nothing of either (a few MB can hold gigabytes of lines)."""
    size = lines = 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(1 << 18):
            size += len(chunk)
            lines += chunk.count(b"\n")
    return size, lines


def is_regular_file(path) -> bool:
    """Whether ``path`` is a regular file, whose size can be read and whose bytes can be read
    twice (not a pipe such as ``/dev/stdin``, where a look ahead would consume the data)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, TypeError, ValueError):
        return False


#: Plain files smaller than this are parsed without pyarrow, whose import alone takes about
#: 0.8 s and 70 MB. Measured, whole ``read_graph`` calls in fresh processes: soc-douban's 3.8 MB
#: edge list 0.40 s by NumPy against 0.98 s by pyarrow, email-Eu-core's 0.12 MB 0.04 s against
#: 1.26 s (peak RSS 89 against 161 MB); a CSV of 20,000 rows 0.24 s by the csv module against
#: 1.04 s, of 200,000 rows (4.5 MB) 2.6 s against 2.2 s. Both paths read the same graph.
ARROW_MIN_BYTES = 1 << 22


def prefer_arrow(path) -> bool:
    """Whether a reader should try its pyarrow fast path on ``path``: False for a regular,
    uncompressed file below :data:`ARROW_MIN_BYTES` while pyarrow is not imported yet, True
    otherwise (a large file, a gzip file, whose compressed size says little, a pipe, whose size
    is unknown, or any file once pyarrow is loaded: warm, in one process, it read facebook's
    edge list in 0.008-0.013 s against NumPy's 0.024 s, ca-hepph's in 0.06-0.10 s against 0.09
    s, medians of 7)."""
    if not is_regular_file(path) or is_gzip(path) or "pyarrow" in sys.modules:
        return True
    return os.stat(path).st_size >= ARROW_MIN_BYTES


def predicted_lines(path, skip: int = 0, *, gzip_count: bool = True) -> tuple[int, float]:
    """``(predicted lines, mean bytes per line)`` after the first ``skip`` lines of a regular
    file (to price a read before it starts; :func:`is_regular_file` first): from its size and
    its first 64 KiB, or, for a gzip file, counted in one streamed pass (``gzip_count=False``:
    its raw size, for a reader that reads it raw)."""
    if gzip_count and is_gzip(path):
        size, newlines = _gzip_profile(path)
        lines = max(newlines + 1 - int(skip), 1)
        return lines, max(size / lines, 4.0)
    lines = _head_lines(path, skip)
    mean = max(sum(len(x) + 1 for x in lines) / len(lines), 4.0)
    return int(os.path.getsize(path) / mean) + 1, mean


def check_whole_file_read(path, skip: int = 0, *, reader: str = "rows") -> None:
    """Refuse, before it starts, a read that holds every line of ``path`` at once (CSV; SNAP
    with string ids or arcs: ``reader="rows"``; NetworkX's edge lists: ``"networkx"``; the
    G-set and DIMACS tables: ``"table"``) when
    its predicted lines would not fit in memory (:data:`WHOLE_FILE_BYTES_PER_LINE`; a gzip
    file's lines are counted in a streamed pass first)."""
    from dpgraph.memory import check_memory

    if not is_regular_file(path):  # a pipe: nothing to price ahead without consuming it
        return
    predicted, mean = predicted_lines(path, skip)
    per_line = WHOLE_FILE_BYTES_PER_LINE[reader] + PER_LINE_BYTE[reader] * mean
    how = "counted" if is_gzip(path) else "predicted from its size"
    check_memory(int(per_line * predicted),
                 what=f"reading {path} (about {predicted:,} edge lines, {how})",
                 fit=(lambda k: per_line * k, "About {:,} edge lines fit."))


#: Peak bytes per token of METIS's vertex lines (a neighbour, or its weight): the parse's
#: arrays (32 B), then the symmetry check, the COO and the merge. Measured with tracemalloc:
#: ca-hepph's symmetric file 130 B (237,000 tokens); a file of 10^6 random neighbour tokens
#: 118 B refused as asymmetric, 239 B read with symmetrize=
TOKEN_BYTES = {False: 140, True: 240}


def check_tokens_fit(path, skip: int = 0, *, arcs: bool = False) -> None:
    """Refuse, before it starts, a token-by-token parse (METIS's vertex lines, each token a
    neighbour or a weight kept in arrays of :data:`TOKEN_BYTES`) whose predicted tokens would
    not fit: the file's size over the mean bytes per token of its first 64 KiB after ``skip``
    lines, whatever its header announces (``arcs``: read with ``symmetrize``, which costs
    more). Regular uncompressed files only (a gzip file's header still prices it)."""
    from dpgraph.memory import check_memory

    if not is_regular_file(path) or is_gzip(path):
        return
    body = b"\n".join(_head_lines(path, skip))
    per_token = max(len(body) / max(len(body.split()), 1), 2.0)
    tokens = int(os.path.getsize(path) / per_token) + 1
    per = TOKEN_BYTES[bool(arcs)]
    check_memory(per * tokens,
                 what=f"reading {path} (about {tokens:,} neighbour tokens predicted from its size)",
                 fit=(lambda k: per * k, "About {:,} tokens fit."))


def check_document_read(path, kind: str) -> None:
    """Refuse, before it starts, a parse of the whole document ``path`` (``kind``: a key of
    :data:`DOCUMENT_BYTES_PER_BYTE`) that would not fit in memory (a gzip file by its
    decompressed size, counted in a streamed pass)."""
    from dpgraph.memory import check_memory, format_bytes

    if not is_regular_file(path):
        return
    size = _gzip_profile(path)[0] if is_gzip(path) else os.path.getsize(path)
    per_byte = DOCUMENT_BYTES_PER_BYTE[kind]
    check_memory(per_byte * size, what=f"reading {path} ({format_bytes(size)} of {kind})",
                 fit=(lambda b: per_byte * b, "Files of up to about {:,} bytes fit."))


def _edge_bound(path) -> int | None:
    """At most how many edge lines a plain file can hold (a line takes at least 4 bytes:
    ``"1 2\n"``); None for a gzip file, whose size does not bound its lines."""
    import os

    try:
        return None if is_gzip(path) else os.path.getsize(path) // 4 + 1
    except OSError:
        return None


def check_node_count(path, line, text, n: int, *, edges: int | None = None) -> int:
    """Refuse a declared node count ``n`` (and edge count ``edges``, where the header has one)
    that cannot be held in memory, before anything of that size is allocated: a header such as
    ``99999999999 5`` raises :class:`HeaderTooLargeError`, it does not exhaust memory.

    The price is ``BYTES_PER_NODE * n + BYTES_PER_EDGE * edges`` with ``edges`` capped by what
    the file's size can hold; the limit is :func:`dpgraph.memory.memory_limit` (free memory, a
    container's or ``ulimit -v`` limit, ``DPGRAPH_MEMORY_LIMIT``). The message names the limit
    and the largest node count that fits."""
    from dpgraph.memory import format_bytes, largest_fitting, memory_limit

    lines = 0 if edges is None else max(int(edges), 0)
    bound = _edge_bound(path)
    if bound is not None:
        lines = min(lines, bound)
    need = BYTES_PER_NODE * int(n) + BYTES_PER_EDGE * lines
    have, where = memory_limit()
    if have is not None and need > have:
        fits = largest_fitting(lambda k: BYTES_PER_NODE * k + BYTES_PER_EDGE * lines, have)
        edge_part = f" with {lines:,} edge line{'s' if lines != 1 else ''}" if lines else ""
        hint = (f"; a header of at most {fits:,} nodes{edge_part} can be read" if fits >= 1
                else "; not even its edge lines fit")
        raise HeaderTooLargeError(
            path, line, text, None,
            problem=f"the node count {n}{edge_part} would need about "
                    f"{format_bytes(min(need, 10**300))}, more than the {format_bytes(have)} "
                    f"{where} (nothing was allocated){hint}")
    return n


def is_gzip(path) -> bool:
    """True when the file starts with the gzip magic bytes (whatever its extension)."""
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def warn_if_not_gzip(path) -> None:
    """A :class:`~dpgraph.graph.GraphInputWarning` naming ``path`` when it is named ``.gz``
    but is not gzip-compressed: it is read as the plain text it holds (gzip is told from the
    content), which the name does not say. The graph and CSP readers call it.

    >>> import os, tempfile, warnings
    >>> path = os.path.join(tempfile.mkdtemp(), "edges.txt.gz")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 1\\n")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_not_gzip(path)
    >>> "named .gz but not gzip-compressed" in str(caught[0].message)
    True
    """
    path = os.fspath(path)
    if path.lower().endswith(".gz") and not is_gzip(path):
        from dpgraph.caller import caller_stacklevel
        from dpgraph.graph import GraphInputWarning

        warnings.warn(f"{path}: named .gz but not gzip-compressed (it does not start with the "
                      f"gzip bytes 1f 8b); read as an uncompressed file", GraphInputWarning,
                      stacklevel=caller_stacklevel())


def open_binary(path):
    """Open ``path`` for reading bytes, decompressing gzip transparently (detected by content)."""
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def open_text(path) -> io.TextIOBase:
    """Open ``path`` for reading text, decompressing gzip transparently (detected by content)."""
    if is_gzip(path):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", errors="strict")
    return open(path, encoding="utf-8-sig", errors="strict")


def scan_lines(path, start: int = 1) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` from line ``start`` on, streaming (slow path only)."""
    with open_text(path) as f:
        for number, line in enumerate(f, 1):
            if number >= start:
                yield number, line.rstrip("\r\n")


def is_skippable(line: str, comments: tuple[str, ...]) -> bool:
    s = line.strip()
    return not s or s.startswith(comments)


def nonfinite_weight_error(path, column: int = 2, start: int = 1,
                           comments: tuple[str, ...] = ("#", "%")) -> GraphFormatError | None:
    """The :class:`GraphFormatError` naming the first line from ``start`` on whose token
    ``column`` (0-based) reads as a non-finite number (``nan``, ``inf``, ``1e400``), or None.
    A second pass, run only after a reader found a non-finite weight without its line."""
    for number, line in scan_lines(path, start):
        tokens = strip_comment(line, comments).split()
        if len(tokens) > column:
            try:
                value = float(tokens[column])
            except ValueError:
                continue
            if not math.isfinite(value):
                return GraphFormatError(path, number, line, "a finite edge weight",
                                        problem="a non-finite weight (NaN or inf)")
    return None


def strip_comment(line: str, comments: tuple[str, ...]) -> str:
    cut = len(line)
    for c in comments:
        k = line.find(c)
        if k >= 0:
            cut = min(cut, k)
    return line[:cut]


def simple_delimiter(path, skip: int, first: str, comments) -> str | None:
    """The one separator of a simple edge list's lines (tab or space, from the first edge line
    ``first``), or None when the file is not simple enough for a columnar reader: a blank or
    carriage-return line among the ``skip`` lines before the first edge line (a columnar
    reader's skip count must match them exactly), or mixed or repeated separators."""
    if skip:
        for number, line in scan_lines(path):
            if number > skip:
                break
            if not line.strip() or "\r" in line.rstrip("\r\n"):
                return None
    body = strip_comment(first, comments).strip()
    delimiter = "\t" if "\t" in body else " "
    if delimiter == " " and ("\t" in body or "  " in body):
        return None
    return delimiter


def arrow_edge_options(delimiter: str, ncols: int, *, skip: int, block_size: int | None = None):
    """pyarrow CSV options that read exactly what the NumPy edge-list path reads the same way:
    ``ncols`` columns ``u, v[, w]`` (int64 ids, float64 weight) after ``skip`` lines, one
    ``delimiter``, no quoting, no null values, empty lines ignored. Returns
    ``(read_options, parse_options, convert_options)``; pyarrow must be importable."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    cols = ["u", "v", "w"][:ncols]
    types = {"u": pa.int64(), "v": pa.int64(), "w": pa.float64()}
    read = pcsv.ReadOptions(skip_rows=skip, column_names=cols, use_threads=True,
                            **({} if block_size is None else {"block_size": block_size}))
    parse = pcsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                              escape_char=False, newlines_in_values=False,
                              ignore_empty_lines=True)
    convert = pcsv.ConvertOptions(column_types={c: types[c] for c in cols}, null_values=[],
                                  strings_can_be_null=False, quoted_strings_can_be_null=False,
                                  check_utf8=False)
    return read, parse, convert


def row_line(path, row: int, *, start: int, comments: tuple[str, ...]) -> tuple[int, str]:
    """Line number and text of the ``row``-th (0-based) data line at or after line ``start``."""
    k = 0
    for number, line in scan_lines(path, start):
        if is_skippable(strip_comment(line, comments), ()):
            continue
        if k == row:
            return number, line
        k += 1
    return None, None


def check_tokens(path, *, start: int, comments: tuple[str, ...], columns: tuple[int, ...],
                 kinds: tuple[Callable, ...], expected: str) -> None:
    """Slow path: find the first data line with a wrong token count or a token that fails to
    convert, and raise :class:`GraphFormatError` for it. Returns if every line is fine."""
    for number, line in scan_lines(path, start):
        body = strip_comment(line, comments)
        tokens = body.split()
        if not tokens:
            continue
        if len(tokens) not in columns:
            raise GraphFormatError(path, number, line, expected,
                                   problem=f"{len(tokens)} field(s) on this line")
        for token, kind in zip(tokens, kinds):
            try:
                kind(token)
            except ValueError:
                raise GraphFormatError(path, number, token, expected,
                                       problem="non-numeric or malformed token") from None


class AsciiStream:
    """A text stream that hands out ASCII only: every other character becomes ``?``.

    numpy 2.4's C reader behind :func:`numpy.loadtxt` crashes the interpreter (segmentation
    fault, not an exception) on some lines holding characters outside ASCII, e.g. ``chr(0xE0000)
    + " 1"`` with an integer dtype, depending on the heap state.
    A number is ASCII, so the fast path loses nothing: a line whose data fields held other
    characters fails to convert either way, and the slow path re-reads the original text to
    report it; comments may hold anything. ASCII chunks pass through untouched (one C check).
    """

    def __init__(self, f):
        self._f = f

    @staticmethod
    def _ascii(text: str) -> str:
        return text if text.isascii() else text.encode("ascii", "replace").decode("ascii")

    def read(self, size: int = -1) -> str:
        return self._ascii(self._f.read(size))

    def readline(self, size: int = -1) -> str:
        return self._ascii(self._f.readline(size))

    def __iter__(self):
        return (self._ascii(line) for line in self._f)

    def close(self) -> None:  # the caller's ``with`` closes the real stream
        pass


def load_table(path, *, skip: int, dtype, comments: tuple[str, ...], usecols=None) -> np.ndarray:
    """``np.loadtxt`` on the stream of ``path`` after its first ``skip`` lines; returns a 2-D
    array (1-D for a structured dtype), possibly empty.

    numpy keeps a single comment character in its C parser but preprocesses every line in
    Python for several, which is 5x slower on 200,000 lines: try the first comment character
    alone, and only if that fails (a line starting with another one) use all of them.
    """
    tries = [comments[:1], comments] if len(comments) > 1 else [comments]
    for k, chars in enumerate(tries):
        try:
            with open_text(path) as f, warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*input contained no data.*")
                for _ in range(skip):
                    f.readline()
                return np.loadtxt(AsciiStream(f), dtype=dtype,
                                  comments=chars[0] if len(chars) == 1 else list(chars),
                                  ndmin=1 if isinstance(dtype, list) else 2, usecols=usecols)
        except ValueError:
            if k == len(tries) - 1:
                raise
    raise AssertionError("unreachable")
