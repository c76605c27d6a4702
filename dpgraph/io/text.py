"""Readers and writers of the whitespace-separated text formats: G-set (rudy), SNAP edge lists,
DIMACS ``.col`` and METIS ``.graph``.

G-set, SNAP and DIMACS bodies are parsed by numpy's C parser on the open stream (see
:mod:`dpgraph.io.base`); METIS lines have variable length and a meaning per line (line ``i``
lists the neighbours of vertex ``i``, blank lines included), so METIS is streamed line by line
into compact ``array`` buffers.
"""

from __future__ import annotations

import bisect
import csv
import math
import re
import warnings
from array import array

import numpy as np
import scipy.sparse as sp

from dpgraph.caller import caller_stacklevel
from dpgraph.graph import (GraphData, GraphInputWarning, WeightSumOverflowError, from_coo,
                           merge_arcs)
from dpgraph.io.base import (GraphFormatError, NoEdgesError, check_node_count, check_tokens,
                             at_positions, check_ids, check_tokens_fit, check_whole_file_read,
                             is_gzip,
                             is_skippable,
                    load_table, open_binary, open_text, row_line, scan_lines, simple_delimiter,
                    arrow_edge_options, prefer_arrow,
                    strip_comment, weight_sum_format_error)


def _peek(path, comments, k):
    """First ``k`` data lines as ``(number, line)``, plus the comment lines seen before them."""
    found, seen_comments = [], []
    for number, line in scan_lines(path):
        s = line.strip()
        if not s:
            continue
        if s.startswith(comments):
            if not found:
                seen_comments.append((number, line))
            continue
        found.append((number, line))
        if len(found) >= k:
            break
    return found, seen_comments


def _parse_int(path, number, line, token, expected):
    try:
        return int(token)
    except ValueError:
        raise GraphFormatError(path, number, token, expected,
                               problem="non-numeric or malformed token") from None


def _check_range(path, ids_a, ids_b, n, *, start, comments, what):
    bad = (ids_a < 1) | (ids_a > n) | (ids_b < 1) | (ids_b > n)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        number, line = row_line(path, row, start=start, comments=comments)
        raise GraphFormatError(path, number, line, f"vertex ids between 1 and n = {n} ({what} "
                               f"numbers vertices from 1)", problem="vertex id out of range")


def _count_check(path, header_number, header_line, announced, found, what):
    if announced is not None and announced != found:
        problem = (f"the header announces {announced} {what} but the file has {found}"
                   + (" (is the file truncated?)" if found < announced else ""))
        raise GraphFormatError(path, header_number, header_line,
                               f"{announced} {what} after the header", problem=problem)


def _empty(path, expected, error=GraphFormatError):
    return error(path, None, None, expected, problem="the file is empty (no data lines)")


# ----------------------------------------------------------------------------- G-set / rudy

_GSET_COMMENTS = ("#", "%")
_GSET_LINE = "an edge line 'i j w' (1-indexed integer vertices i, j and a numeric weight w)"


def read_gset(path, *, duplicates: str = "max") -> GraphData:
    """Read a G-set / rudy file: header ``n m`` (or ``n`` alone), then ``m`` lines ``i j w``.

    Vertices are numbered from 1; node labels are those numbers (``1..n``), so vertex ``i`` of
    the file is node index ``i - 1``. Lines starting with ``#`` or ``%`` are comments. A pair
    listed twice (in either order) is merged by ``duplicates`` (:mod:`dpgraph.io`'s one rule:
    ``"max"`` by default, ``"sum"``, ``"error"``), with a warning that counts the repeats.
    """
    first, _ = _peek(path, _GSET_COMMENTS, 1)
    if not first:
        raise _empty(path, "a header line 'n m' (or 'n') followed by edge lines 'i j w'")
    hnum, hline = first[0]
    tokens = strip_comment(hline, _GSET_COMMENTS).split()
    expected_header = "a header 'n m' (or 'n') of non-negative integers"
    if len(tokens) not in (1, 2):
        raise GraphFormatError(path, hnum, hline, expected_header,
                               problem=f"{len(tokens)} field(s) on the header line")
    n = _parse_int(path, hnum, hline, tokens[0], expected_header)
    m = _parse_int(path, hnum, hline, tokens[1], expected_header) if len(tokens) == 2 else None
    if n < 1 or (m is not None and m < 0):
        raise GraphFormatError(path, hnum, hline, expected_header + " with n >= 1",
                               problem="impossible header counts")
    check_node_count(path, hnum, hline, n, edges=m)
    body, _ = _peek(path, _GSET_COMMENTS, 2)
    if len(body) == 2 and prefer_arrow(path):  # large simple files: streamed into the CSR
        from dpgraph.io.stream import read_edge_stream

        data = read_edge_stream(path, 3, skip=hnum, first=body[1][1], duplicates=duplicates,
                                comments=_GSET_COMMENTS, nodes=n, lines=m)
        if data is not None:
            return data
    check_whole_file_read(path, skip=hnum, reader="table")  # a header may understate its lines
    dtype = [("i", "i8"), ("j", "i8"), ("w", "f8")]
    try:
        table = load_table(path, skip=hnum, dtype=dtype, comments=_GSET_COMMENTS)
    except ValueError as exc:
        check_tokens(path, start=hnum + 1, comments=_GSET_COMMENTS, columns=(3,),
                     kinds=(int, int, float), expected=_GSET_LINE)
        raise GraphFormatError(path, None, None, _GSET_LINE, problem=str(exc)) from None
    _count_check(path, hnum, hline, m, table.size, "edge lines")
    i, j, w = table["i"], table["j"], table["w"]
    _check_range(path, i, j, n, start=hnum + 1, comments=_GSET_COMMENTS, what="G-set")
    return from_coo(i - 1, j - 1, w, range(1, n + 1), duplicates=duplicates, source=str(path))


def weight_column(w: np.ndarray) -> list:
    """Weights as Python ints when all are integers (written ``1``, ``-1``), else floats, whose
    ``str`` is the shortest text that reads back to the same float."""
    if w.size and np.all(w == np.round(w)) and np.abs(w).max() < 2**53:
        return w.astype(np.int64).tolist()
    return w.tolist()


def write_columns(f, columns, sep: str = " ", prefix: str = "") -> None:
    """Write rows ``prefix + sep.join(str(col[k]) for col in columns)``, in chunks.

    numpy.savetxt formats each row in Python with ``%``; joining ``str`` of Python ints and
    floats in chunks is about 10x faster (a million edges in well under a second).
    """
    rows = len(columns[0])
    chunk = 1 << 16
    for start in range(0, rows, chunk):
        parts = [list(map(str, c[start:start + chunk])) for c in columns]
        if prefix:
            parts[0] = [prefix + x for x in parts[0]]
        f.write("\n".join(map(sep.join, zip(*parts))) + "\n")


def write_gset(data: GraphData, f) -> None:
    """Write ``n m`` then ``i j w`` (1-indexed, ``i < j``). Labels are not stored: node index
    ``k`` is written as vertex ``k + 1``."""
    i, j, w = data.edges()
    f.write(f"{data.n} {data.m}\n")
    write_columns(f, [(i + 1).tolist(), (j + 1).tolist(), weight_column(w)])


# ----------------------------------------------------------------------------- SNAP edge lists

_SNAP_COMMENTS = ("#", "%")
_DIRECTED = re.compile(r"(?<!un)directed\s+(graph|network)", re.IGNORECASE)


def read_snap(path, *, symmetrize: str | None = None, duplicates: str = "max",
              ids: str = "auto") -> GraphData:
    """Read a SNAP-style edge list: one ``u v`` (or ``u v w``) pair per line, tabs or spaces,
    ``#`` (or ``%``) comment lines.

    Node ids are kept as labels, ordered by sorted id. ``ids`` says what they are:
    ``"auto"`` (default) decides from the first edge line: integer ids there make every id an
    integer (Python ints), and a token that is not one (``3 x`` in a file of integers, a
    corrupted line) is refused with its line; name ids there make every id a string, and an
    integer id later in the file is refused the same way (a file that mixes them is read only
    when asked: ``ids="str"``); a ``# ids: str`` comment line before the first edge line
    (:func:`write_snap` writes it for string labels such as ``'007'``) makes ``"auto"`` read
    every id as a string. ``"int"``: every id must be an integer. ``"str"``: every id
    is read as a string, ``"7"`` included. A first edge line that looks like a header row (two
    column names such as ``source target`` or ``from to weight``, see :data:`HEADER_NAMES`) is
    refused, naming the line: in a file of integer ids, with a non-numeric third field, or when
    neither name occurs on another line (a real edge ``u v`` whose nodes occur again is read;
    an edge of two nodes so named that occur nowhere else can be listed after another line).
    A pair listed more than once, the two directions of
    an edge included, is merged by ``duplicates`` (``"max"`` by default, so a file listing both
    ``u v`` and ``v u`` gives one edge of the larger weight; ``"sum"``; ``"error"``), with a
    warning that counts the repeats (read as arcs, ``symmetrize`` given, only an arc listed
    twice is a repeat). A file whose comments declare a directed graph (SNAP writes ``# Directed
    graph``) is refused unless ``symmetrize`` says how to read arcs as edges; passing
    ``symmetrize`` also reads an undeclared file as arcs.
    """
    first, comments_before = _peek(path, _SNAP_COMMENTS, 1)
    for number, line in comments_before:  # (all of them when the file lists no edge)
        if _DIRECTED.search(line) and symmetrize is None:
            raise GraphFormatError(
                path, number, line, "symmetrize='max', 'sum' or 'mean' to read a directed graph "
                "as undirected", problem="the file declares a directed graph")
    if not first:
        raise _empty(path, "edge lines 'u v' or 'u v w' (or nodes= for a graph without edges)",
                     NoEdgesError)
    fnum, fline = first[0]
    tokens = strip_comment(fline, _SNAP_COMMENTS).split()
    ncols = len(tokens)
    expected = "edge lines 'u v' or 'u v w' (the same number of fields on every line)"
    if ncols not in (2, 3):
        if ncols == 1 and "," in tokens[0]:
            expected += ("; a comma-separated file with a header row is read as CSV: "
                         "format='csv' (or the extension .csv)")
        raise GraphFormatError(path, fnum, fline, expected, problem=f"{ncols} field(s) on the line")
    directed = symmetrize is not None
    check_ids(ids)
    if ids == "auto":  # the writer's '# ids: str' line (write_snap) says what the ids are
        ids = declared_ids(line for _, line in comments_before) or "auto"
    header = looks_like_header(tokens)
    if header and (ids == "int" or (ncols == 3 and not is_number(tokens[2]))):
        raise header_row_error(path, fnum, fline)
    if ids != "str" and not directed and prefer_arrow(path):  # large simple files: streamed
        from dpgraph.io.stream import read_edge_stream

        stats = {}
        data = read_edge_stream(path, ncols, skip=fnum - 1, first=fline, duplicates=duplicates,
                                comments=_SNAP_COMMENTS, stats=stats)
        if data is not None:
            _warn_if_counts_header(path, fnum, fline, tokens, data, stats.get("lines"))
            return data
    check_whole_file_read(path, skip=fnum - 1)
    names = [("u", "i8"), ("v", "i8")] + ([("w", "f8")] if ncols == 3 else [])
    table = None if ids == "str" or not prefer_arrow(path) else \
        _arrow_table(path, ncols, skip=fnum - 1, first=fline)
    try:
        if ids == "str":
            raise ValueError("string ids asked for")
        if table is None:
            table = load_table(path, skip=0, dtype=names, comments=_SNAP_COMMENTS)
    except ValueError as exc:
        # a wrong field count or a bad weight is an error; then the id rule of ``ids``
        check_tokens(path, start=1, comments=_SNAP_COMMENTS, columns=(ncols,),
                     kinds=(str, str, float)[:ncols], expected=expected)
        table = _string_table(path, ncols, ids=ids, header=(fnum, fline) if header else None)
    u, v = table["u"], table["v"]
    if header and u.dtype == object and _only_on_first_line(u, v, tokens):
        raise header_row_error(path, fnum, fline, edge_possible=True)
    w = table["w"] if ncols == 3 else np.ones(u.size)
    ids, inverse = _relabel(np.concatenate([u, v]))
    labels = ids.tolist()
    data = from_coo(inverse[: u.size], inverse[u.size:], np.asarray(w, dtype=np.float64), labels,
                    duplicates=duplicates, directed=directed, symmetrize=symmetrize,
                    source=str(path))
    _warn_if_counts_header(path, fnum, fline, tokens, data, int(u.size))
    return data


def _sorted_position(labels, key) -> int | None:
    """The position of ``key`` among sorted ``labels`` (a range or a sorted sequence), or
    None; O(log n), no pass over the labels."""
    if isinstance(labels, range):
        return labels.index(key) if isinstance(key, int) and key in labels else None
    k = bisect.bisect_left(labels, key)
    return k if k < len(labels) and labels[k] == key else None


def _warn_if_counts_header(path, number, line, tokens, data: GraphData, lines) -> None:
    """Warn (a :class:`GraphInputWarning`, not a refusal: the line may be an edge) when the
    first edge line ``tokens`` of a SNAP edge list looks like a header of counts ``n m``
    (``1005 24929``): two different positive integer ids that occur on no other line (each is
    the other's only neighbour in ``data``), the first at least the number of the other
    lines' distinct ids, the second within 5% of the number of the other lines (``lines - 1``;
    ``lines`` the edge lines read, None when unknown) or of their distinct pairs. O(log n):
    the two ids are found in the sorted labels, their neighbours in the CSR."""
    if len(tokens) != 2 or not all(INTEGER_ID.fullmatch(t) for t in tokens) or not data.n:
        return
    a, b = int(tokens[0]), int(tokens[1])
    if a == b or a < 1 or b < 1:
        return
    labels = data.labels
    as_text = isinstance(labels[0], str)  # ids='str': the tokens as they are
    pa = _sorted_position(labels, tokens[0] if as_text else a)
    pb = _sorted_position(labels, tokens[1] if as_text else b)
    if pa is None or pb is None:
        return
    indptr, indices = data.weights.indptr, data.weights.indices
    for p, q in ((pa, pb), (pb, pa)):  # only each other as neighbours: on no other line
        if indptr[p + 1] - indptr[p] != 1 or indices[indptr[p]] != q:
            return
    other_nodes, other_pairs = data.n - 2, data.m - 1
    if other_pairs == 0:  # every edge line lists this pair again: no counts header
        return
    counts = [c for c in (other_pairs, None if lines is None else lines - 1) if c and c > 0]
    if a < other_nodes or not any(abs(b - c) <= 0.05 * c for c in counts):
        return
    follow = f"{lines - 1:,} edge lines" if lines is not None else f"{other_pairs:,} edges"
    warnings.warn(
        f"{path}, line {number}: the first line {line.strip()!r} is read as an edge between "
        f"nodes {tokens[0]} and {tokens[1]}, which occur on no other line, but it looks like a "
        f"header of counts 'n m' ({other_nodes:,} nodes and {follow} follow): if it is a "
        f"header, comment it out with '#' (as read, it adds nodes {tokens[0]} and {tokens[1]} "
        f"and an edge between them to the graph); if it is an edge, nothing is wrong (list it "
        f"after another edge line to silence this warning)",
        GraphInputWarning, stacklevel=caller_stacklevel())


def _arrow_table(path, ncols: int, *, skip: int, first: str) -> dict | None:
    """The fast path of :func:`read_snap`: the edge lines read by pyarrow's multi-threaded CSV
    reader as integer ids (and float weights), or None when pyarrow is not installed or the
    file is not that simple (a comment or blank-field line after the first edge line, mixed
    separators, a non-integer id, a gzip file, ...): the NumPy path then reads the file, with
    the same result and its exact error for a malformed line.

    The reader is configured to accept only what the NumPy path reads the same way: one
    separator (tab or space, from the first edge line), no quoting, no null values, ``ncols``
    fields on every line."""
    if is_gzip(path):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    delimiter = simple_delimiter(path, skip, first, _SNAP_COMMENTS)
    if delimiter is None:
        return None
    cols = ["u", "v", "w"][:ncols]
    try:
        t = pcsv.read_csv(path, *arrow_edge_options(delimiter, ncols, skip=skip))
    except (pa.ArrowException, OSError, ValueError):
        return None
    if t.num_columns != ncols or any(t.column(c).null_count for c in cols):
        return None
    return {c: t.column(c).to_numpy() for c in cols}


#: an integer node id (ASCII digits, a sign allowed), surrounding spaces stripped first
INTEGER_ID = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# column names that make a first line a header row rather than an edge (case-insensitive)
HEADER_NAMES = frozenset({
    "source", "target", "from", "to", "src", "dst", "dest", "destination", "u", "v",
    "node1", "node2", "node_1", "node_2", "id1", "id2", "id_1", "id_2", "source_id",
    "target_id", "sourceid", "targetid", "from_id", "to_id", "fromnodeid", "tonodeid",
    "weight"})
_IDS_LINE = re.compile(r"^\s*[#%]\s*ids:\s*(auto|int|str)\b", re.IGNORECASE)


def is_number(token: str) -> bool:
    """Whether ``token`` reads as a number (``float`` accepts it).

    >>> is_number("1e3"), is_number("u")
    (True, False)
    """
    try:
        float(token)
    except ValueError:
        return False
    return True


def csv_separator(header: str) -> str:
    r"""A CSV header row's separator: a tab where the row has tabs and no comma, else a comma.

    >>> csv_separator("u\tv"), csv_separator("u,v")
    ('\t', ',')
    """
    return "\t" if "\t" in header and "," not in header else ","


def looks_like_header(tokens) -> bool:
    """True when the fields of a first line read as column names (``source target``,
    ``from,to,weight``, ...): its two endpoints are two different names of
    :data:`HEADER_NAMES` (case-insensitive) and a third field, if any, is not a number."""
    if len(tokens) < 2:
        return False
    a, b = (t.strip().lower() for t in tokens[:2])
    return (a != b and a in HEADER_NAMES and b in HEADER_NAMES
            and (len(tokens) < 3 or not is_number(tokens[2])))


def header_row_error(path, number, line, *, edge_possible: bool = False) -> GraphFormatError:
    """The refusal of a first line that is a header row (column names), not an edge;
    ``edge_possible``: the line could be an edge of two nodes so named (say how to keep it)."""
    hint = ("; or read the file as CSV (format='csv', the extension .csv), whose first row "
            "names the columns" if ("\t" in line or "," in line) else "")
    keep = ("; if it is an edge of two nodes so named, list it after another edge line"
            if edge_possible else "")
    return GraphFormatError(
        path, number, line.strip(),
        f"edge lines only: comment the header line out with '#'{hint}{keep}",
        problem="the first line looks like a header row (column names), not an edge")


def _only_on_first_line(u, v, tokens) -> bool:
    """True when neither endpoint of the first line (``tokens``) occurs on another line: a
    header's column names occur once, node names of a real edge usually do again."""
    names = set(tokens[:2])
    rest = set(u[1:].tolist()) | set(v[1:].tolist())
    return not (names & rest)


def declared_ids(lines) -> str | None:
    """The id rule a file declares in a comment line ``# ids: str`` (written by
    :func:`write_snap` for string labels that would read back as numbers), or None."""
    for line in lines:
        found = _IDS_LINE.match(line)
        if found:
            return found.group(1).lower()
    return None


def ids_comment(labels) -> str | None:
    """The ``# ids: str`` comment line :func:`write_snap` writes when the labels would not read
    back as themselves by the first-edge-line rule of ``ids="auto"``, so that :func:`read_snap`
    reads every id as a string; None otherwise (:func:`write_csv` quotes the ids where this
    gives a line).

    That is when some label reads as an integer id (an integer, or a string such as ``'007'``)
    and not every label is an integer: string labels ``'007'`` come back as ``'007'``, not 7,
    and mixed labels ``[100, 101, "x"]`` (or ``[1, 2.5]``) as the strings ``'100'``,
    ``'101'``, ``'x'``, where the rule would refuse the first id of the other kind; and when
    an integer label does not fit 64 bits (read back as its digits, a string). Integer labels
    (they read back as integers) and labels none of which reads as an integer (they read back
    as strings) get no line.

    >>> ids_comment([0, 1, 2]) is None, ids_comment(["a", "b"]) is None
    (True, True)
    >>> ids_comment(["007", "x"]).startswith("# ids: str")
    True
    >>> ids_comment([100, 101, "x"]).startswith("# ids: str")
    True
    """
    if isinstance(labels, range) or not labels:
        return None
    every_int, int_like = True, False
    for x in labels:
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            int_like = True
            if not _INT64_MIN <= x <= _INT64_MAX:  # read back as a string, the others too
                every_int = False
        else:
            every_int = False
            if not int_like and INTEGER_ID.fullmatch(str(x).strip()):
                int_like = True
        if int_like and not every_int:
            return ("# ids: str (node ids are names, digits included: read_graph reads them as "
                    "strings, as ids='str')")
    return None


def _id_rule_error(path, number, token, first, first_is_int, asked, header=False):
    if header:  # a header row decided that the ids are names: say so, not ids='str'
        return header_row_error(path, *first)
    if asked:
        return GraphFormatError(path, number, token, "an integer node id (ids='int')",
                                problem="non-integer node id")
    if first_is_int:
        return GraphFormatError(
            path, number, token,
            f"an integer node id: the ids of this file are integers (decided by its first "
            f"edge line {first[0]}: {first[1].strip()!r}); pass ids='str' to read every id "
            f"as a name", problem="non-integer node id in a file of integer ids")
    return GraphFormatError(
        path, number, token,
        f"a name id: the ids of this file are names (decided by its first edge line "
        f"{first[0]}: {first[1].strip()!r}); pass ids='str' to read every id, this one "
        f"included, as a name", problem="integer node id in a file of name ids")


def _string_table(path, ncols: int, ids: str = "str", header=None) -> dict:
    """The edge lines as string ids (and float weights), parsed in Python: the slow path for
    non-integer ids, after :func:`check_tokens` has checked every line. Not ``np.loadtxt``: its
    stream is ASCII-only (:class:`~dpgraph.io.base.AsciiStream`, which avoids a numpy crash),
    and string labels keep every character of the file.

    ``ids`` (:func:`read_snap`): ``"str"`` takes every token as a name; ``"int"`` and
    ``"auto"`` refuse the first id whose kind (integer or name) differs from the rule's, with
    its line. A file whose ids are all integers gets here only when one of them is beyond 64
    bits, and is refused with its line (``ids="str"`` reads such ids as names).
    ``header``: ``(number, line)`` of a first line that looks like a header row, refused as
    one (not as a name id) when a later id is an integer."""
    u, v, w = [], [], []
    first, first_is_int = None, None
    for number, line in scan_lines(path):
        tokens = strip_comment(line, _SNAP_COMMENTS).split()
        if not tokens:
            continue
        if ids != "str":
            if first is None:
                first = (number, line)
                first_is_int = ids == "int" or bool(INTEGER_ID.fullmatch(tokens[0]))
            for token in tokens[:2]:
                if bool(INTEGER_ID.fullmatch(token)) != first_is_int:
                    raise _id_rule_error(path, number, token, first, first_is_int,
                                         ids == "int", header=header is not None)
        if ids != "str" and first_is_int:  # integers the fast path could not hold
            _int64_ids(path, number, line, tokens[:2])
        u.append(tokens[0])
        v.append(tokens[1])
        if ncols == 3:
            w.append(float(tokens[2]))
    as_array = (lambda xs: np.array(xs, dtype=object)) if u else (lambda xs: np.empty(0, object))
    return {"u": as_array(u), "v": as_array(v), "w": np.asarray(w, dtype=np.float64)}


def _int64_ids(path, number: int, line: str, tokens) -> tuple:
    """The integer ids ``tokens`` of an edge line as Python ints, each within 64 bits (what
    the readers store integer ids in), else a :class:`GraphFormatError` naming the line: an id
    beyond them is not read as a name behind the caller's back (``ids='str'`` does that)."""
    out = tuple(int(t) for t in tokens)
    if not all(_INT64_MIN <= x <= _INT64_MAX for x in out):
        raise GraphFormatError(path, number, line.strip(), "integer node ids of at most 64 bits",
                               problem="an integer id too large to store; pass ids='str' to "
                                       "read the ids as names")
    return out


def _relabel(ids: np.ndarray):
    """Sorted distinct ids and each id's position among them (``np.unique(..., return_inverse)``),
    by a counting pass when the ids are integers in a compact range (no sort needed)."""
    if ids.dtype.kind == "i" and ids.size:
        lo, hi = int(ids.min()), int(ids.max())
        if hi - lo <= 4 * ids.size + 1024:
            present = np.zeros(hi - lo + 1, dtype=bool)
            offset = ids - lo
            present[offset] = True
            if present.all():  # every id in [lo, hi] occurs: positions are the offsets
                return np.arange(lo, hi + 1), offset
            position = np.cumsum(present) - 1
            return np.flatnonzero(present) + lo, position[offset]
    distinct, inverse = np.unique(ids, return_inverse=True)
    return distinct, inverse.reshape(-1)


def check_label_token(label, fmt: str) -> str:
    """``str(label)`` if an edge list (``fmt``, named in the message) can store it as one id
    token: non-empty, without whitespace, not starting with a comment character."""
    s = str(label)
    if not s or any(ch.isspace() for ch in s) or s.startswith(("#", "%")):
        raise ValueError(f"{fmt} cannot store node label {label!r} (empty, containing "
                         f"whitespace or starting with a comment character); write a GraphML "
                         f"file (.graphml), which keeps such labels, or relabel first")
    return s


def _check_label_tokens(data: GraphData, fmt: str):
    return np.asarray([check_label_token(label, fmt) for label in data.labels], dtype=object)


def write_snap(data: GraphData, f) -> None:
    """Write ``u<TAB>v`` lines (``u<TAB>v<TAB>w`` when some weight is not 1) with labels as ids.

    Isolated nodes cannot appear in an edge list: a :class:`GraphInputWarning` counts them.
    String labels that would read back as integers (``'007'``) get a ``# ids: str`` comment
    line, which :func:`read_snap` follows, so they read back as the same strings.
    """
    names = _check_label_tokens(data, "a SNAP edge list")
    i, j, w = data.edges()
    isolated = int(np.count_nonzero(np.diff(data.weights.indptr) == 0))
    if isolated:
        warnings.warn(f"a SNAP edge list cannot store the {isolated} isolated node(s); they are "
                      f"not written", GraphInputWarning, stacklevel=caller_stacklevel())
    unlisted = f" ({isolated} isolated, not listed)" if isolated else ""
    f.write(f"# Undirected graph: {data.n} nodes{unlisted}, {data.m} edges (written by dpgraph)\n")
    declared = ids_comment(data.labels)
    if declared:
        f.write(declared + "\n")
    cols = [names[i].tolist(), names[j].tolist()]
    if not data.is_unweighted:
        cols.append(weight_column(w))
    write_columns(f, cols, sep="\t")


# ----------------------------------------------------------------------------- CSV edge files

_CSV_HEADER = ("a header row naming the columns (e.g. 'source,target' or 'source,target,weight'), "
               "then one edge per row")


def other_separator_hint(header: str) -> str:
    """A hint for a CSV header row that reads as one column name: the separator it seems to
    use instead of a comma (a semicolon, as spreadsheets write CSV in many locales; a bar; a
    space), or nothing.

    >>> hint = other_separator_hint("u;v;w")
    >>> "separated by ';'" in hint, "reads comma-separated CSV" in hint
    (True, True)
    >>> other_separator_hint("edges")
    ''
    """
    for sep in (";", "|", " "):
        if sep in header.strip():
            return (f" (the header row is separated by {sep!r}: dpgraph reads comma-separated "
                    f"CSV (or tab-separated; the reader has no separator option): replace the "
                    f"{sep!r} separators by ',')")
    return ""


def index_column_hint(columns) -> str:
    """The hint for a CSV header row whose first column has no name: pandas' ``to_csv``
    writes its index so (``,source,target``), and read_csv reads the first two columns as the
    endpoints; "" for any other header row.

    >>> index_column_hint(["", "source", "target"])[:40]
    " (pandas' DataFrame.to_csv writes its in"
    >>> index_column_hint(["source", "target"])
    ''
    """
    if columns[0] or len(columns) < 3:
        return ""
    return (f" (pandas' DataFrame.to_csv writes its index as a first column without a name: "
            f"write the file with to_csv(..., index=False), or remove the first column, so that "
            f"{columns[1]!r} and {columns[2]!r} are the first two columns, the endpoints)")


def read_csv(path, *, symmetrize: str | None = None, duplicates: str = "max", ids: str = "auto",
             weight: str | None = "weight") -> GraphData:
    """Read a CSV edge file (``.csv``, ``.csv.gz``): a header row naming the columns, then one
    edge per row.

    The first two columns are the endpoints, whatever their names (``source,target``,
    ``u,v``, ...); the column named ``weight`` (the argument, matched without regard to case;
    ``weight=None`` reads none) holds the weights, and an edge is of weight 1 when there is no
    such column; other columns are ignored (a third column that is not named ``weight`` is
    announced by a :class:`GraphInputWarning`, as it may hold weights). The separator is a
    comma, or a tab when the header row has tabs and no comma; fields may be quoted. Lines
    starting with ``#`` before the header row are comments (a ``# ids: str`` line, which
    earlier versions of :func:`write_csv` wrote, sets ``ids``). Node ids follow ``ids`` as in
    :func:`read_snap` (``"auto"``: the first edge row decides integers or names, and a first
    id in double quotes under an unquoted header row, ``"007"``, makes every id a name, as
    :func:`write_csv` writes them; a quoted header row, as pandas' ``QUOTE_ALL`` writes it,
    leaves the ids to the first edge row; ``"int"``; ``"str"``), labels
    ordered by sorted id; ``symmetrize`` reads each row as an arc and ``duplicates`` merges a
    pair listed more than once, as in every format. Malformed rows raise
    :class:`GraphFormatError` naming the file and the line.

    The first row is always the header row (a first row of numbers is refused: add a header
    row). A file of name ids whose first row's endpoint column names are not usual column
    names (:data:`HEADER_NAMES`, such as ``source,target``, ``from,to`` or ``u,v``; any case)
    gets a :class:`GraphInputWarning` naming the line: a file without a header row
    (``alice,bob`` first) loses its first edge that way; a real header row is silenced by
    naming the endpoint columns ``source,target``.
    """
    from dpgraph.graph import check_duplicates

    check_duplicates(duplicates)
    check_ids(ids)
    comments, hnum, hline = [], None, None
    for number, line in scan_lines(path):
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            comments.append((number, line))
            continue
        hnum, hline = number, line
        break
    if hnum is None:
        raise _empty(path, _CSV_HEADER + " (or nodes= for a graph without edges)", NoEdgesError)
    if hline.lstrip().startswith("%"):  # a comment in other edge-list formats, not in CSV
        raise GraphFormatError(path, hnum, hline, _CSV_HEADER,
                               problem="'%' is not a comment in CSV files: only lines starting "
                                       "with '#' before the header row are; start the line with "
                                       "'#', or remove it")
    delimiter = csv_separator(hline)
    try:
        columns = [c.strip() for c in next(csv.reader([hline], delimiter=delimiter))]
    except csv.Error as exc:
        raise GraphFormatError(path, hnum, hline, _CSV_HEADER,
                               problem=f"an unreadable header row ({exc})") from None
    if len(columns) < 2 or not all(columns[:2]):
        raise GraphFormatError(path, hnum, hline, _CSV_HEADER,
                               problem=f"{len(columns)} column name(s) in the header row"
                               + other_separator_hint(hline)
                               if len(columns) < 2 else "an empty column name"
                               + index_column_hint(columns))
    if all(is_number(c) for c in columns[:2]):
        raise GraphFormatError(path, hnum, hline, _CSV_HEADER + "; add a header row",
                               problem="the first row holds numbers, not column names")
    if ids == "auto":
        ids = (declared_ids(line for _, line in comments)
               or ("str" if _first_id_quoted(path, hnum) else "auto"))
    wcol = None
    if weight is not None:
        for k in range(2, len(columns)):
            if columns[k].lower() == weight.lower():
                wcol = k
                if columns[k] == weight:
                    break
        if wcol is None and weight != "weight":
            raise GraphFormatError(path, hnum, hline, f"a column named {weight!r} (weight=)",
                                   problem=f"no such column besides the endpoints; the columns "
                                           f"are {columns}")
        if wcol is None and len(columns) == 3:
            warnings.warn(f"{path}: column {columns[2]!r} is not read (the weight column is the "
                          f"one named 'weight'); pass weight={columns[2]!r} to read its values "
                          f"as edge weights", GraphInputWarning, stacklevel=caller_stacklevel())
    check_whole_file_read(path, skip=hnum)
    table = None
    if ids != "str" and len(comments) == hnum - 1:  # no blank line before the header row
        table = _csv_arrow(path, hnum, delimiter, len(columns), wcol) if prefer_arrow(path) \
            else None
    if table is None:
        table = _csv_rows(path, hnum, hline, delimiter, columns, wcol, ids)
    u, v, w = table
    # names in the first row that are not usual column names: the row may be an edge of a file
    # without a header row, which CSV's convention reads as the column names (its edge lost).
    # A first row above integer ids is column names (ids='auto' reads no file that mixes
    # integer and name ids), so only files of name ids are told.
    unknown = [c for c in columns[:2] if c.lower() not in HEADER_NAMES]
    if not u.size:
        hint = (f"; line {hnum} was read as the header row (its names {unknown} are not "
                f"usual column names): if it is an edge, add a header row such as "
                f"'source,target' above it" if unknown else "")
        raise NoEdgesError(path, hnum, hline,
                           "edge rows after the header row (or nodes= for a graph without edges)"
                           + hint, problem="the file has no edge rows")
    if u.dtype == object:
        named = {columns[0], columns[1]} & (set(u.tolist()) | set(v.tolist()))
        # (above integer ids, the first row cannot be an edge: see above) a first row of
        # names shaped like the ids below it (alice,bob above carol,dave) may be a lost edge;
        # column names shaped otherwise (protein1,protein2 above 9606.ENSP00000000233) are not
        if unknown and (named or all(_token_shape(c) == _token_shape(x)
                                     for c, x in zip(columns[:2], (u[0], v[0])))):
            warnings.warn(_unknown_header_message(path, hnum, hline, unknown, named),
                          GraphInputWarning, stacklevel=caller_stacklevel())
        elif named:
            warnings.warn(f"{path}: the header row names columns {sorted(named)!r}, which are "
                          f"also node ids: if line {hnum} is an edge, not a header row, add a "
                          f"header row above it", GraphInputWarning, stacklevel=caller_stacklevel())
    distinct, inverse = _relabel(np.concatenate([u, v]))
    return from_coo(inverse[: u.size], inverse[u.size:], w, distinct.tolist(),
                    duplicates=duplicates, directed=symmetrize is not None,
                    symmetrize=symmetrize, source=str(path))


def csv_row_lines(path, rows) -> list:
    """The line numbers of the edge rows ``rows`` (0-based positions among the rows after the
    header row, blank rows aside, as :func:`read_csv` reads them) of the CSV file ``path``:
    a second pass, run only to name the lines of a refusal."""
    wanted = {int(r) for r in rows}
    if not wanted:
        return []
    hnum, delimiter = None, ","
    for number, line in scan_lines(path):
        if line.strip() and not line.lstrip().startswith("#"):
            hnum, delimiter = number, csv_separator(line)
            break
    if hnum is None:
        return []
    with open_text(path) as f:
        for _ in range(hnum):
            f.readline()
        reader = csv.reader(f, delimiter=delimiter, skipinitialspace=True)

        def row_numbers():
            end = 0
            for row in reader:
                number, end = hnum + end + 1, reader.line_num
                if row and any(c.strip() for c in row):
                    yield number

        return at_positions(row_numbers(), wanted)


def _first_id_quoted(path, hnum: int) -> bool:
    """Whether the first edge row after the header row (line ``hnum``) of ``path`` writes its
    first id in double quotes under an unquoted header row (:func:`first_id_quoted`)."""
    header = None
    with open_text(path) as f:
        for number, line in enumerate(f, 1):
            if number == hnum:
                header = line
            elif number > hnum and line.strip():
                return first_id_quoted(header or "", line)
    return False


def first_id_quoted(header: str, row: str) -> bool:
    """Whether the first edge row ``row`` of a CSV edge file writes its first id in double
    quotes under an unquoted header row ``header`` (``u,v`` then ``"007",...``, as
    :func:`write_csv` writes names that look like integers): its ids are names. A quoted
    header row (``"u","v"``: pandas' ``QUOTE_ALL`` and ``QUOTE_NONNUMERIC`` quote it, and
    every string) says nothing of them.

    >>> first_id_quoted("u,v", '"007","010"'), first_id_quoted('"u","v"', '"007","010"')
    (True, False)
    """
    return not header.lstrip().startswith('"') and row.lstrip().startswith('"')


def is_integer_id(token) -> bool:
    """Whether a node id token reads as an integer id (``7``, ``-3``, ``+5``, ``007``; ASCII
    digits, surrounding spaces aside), the test by which ``ids="auto"`` tells integer ids from
    names and ``ids="int"`` refuses a name.

    >>> is_integer_id("007"), is_integer_id(" -3 "), is_integer_id("1.0"), is_integer_id("x")
    (True, True, False, False)
    """
    return bool(INTEGER_ID.fullmatch(str(token).strip()))


def _token_shape(token) -> str:
    """A token's shape: each run of letters ``a``, of digits ``0``, other characters kept
    (``alice`` and ``bob``: ``a``; ``protein1``: ``a0``; ``9606.ENSP0001``: ``0.a0``)."""
    s = re.sub(r"[^\W\d_]+", "a", str(token).strip())
    return re.sub(r"\d+", "0", s)


def _unknown_header_message(path, hnum: int, hline: str, unknown: list, named: set) -> str:
    """:func:`read_csv`'s warning for a first row whose endpoint column names are not usual
    column names (:data:`HEADER_NAMES`): it was read as the header row, as CSV's first row is,
    and is not an edge of the graph; if it was meant as one, it is lost."""
    also = (f" ({', '.join(map(repr, sorted(named)))} "
            f"{'is also a node id' if len(named) == 1 else 'are also node ids'} below)"
            if named else "")
    return (f"{path}, line {hnum}: the first row {hline.strip()!r} is read as the header row "
            f"(the column names, as a CSV file's first row is), not as an edge, and its "
            f"endpoint column names {unknown}{also} are not usual column names: if line {hnum} "
            f"is an edge, add a header row such as 'source,target' above it, or the edge and "
            f"its nodes are not in the graph; if it names the columns, nothing is lost (name "
            f"the endpoint columns e.g. 'source,target' to silence this warning)")


def _csv_arrow(path, hnum: int, delimiter: str, ncols: int, wcol):
    """The fast path of :func:`read_csv`: integer ids and finite weights read by pyarrow's CSV
    reader, or None (not installed, a non-integer id, a malformed or ragged row, a non-finite
    weight, ...): the row-by-row path then reads the file and names the line at fault."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    names = [f"c{k}" for k in range(ncols)]
    types = {"c0": pa.int64(), "c1": pa.int64()}
    if wcol is not None:
        types[names[wcol]] = pa.float64()
    try:
        with open_binary(path) as source:
            t = pcsv.read_csv(
                source,
                pcsv.ReadOptions(skip_rows=hnum, column_names=names, use_threads=True),
                pcsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                                  newlines_in_values=False, ignore_empty_lines=True),
                pcsv.ConvertOptions(column_types=types, include_columns=list(types),
                                    null_values=[], strings_can_be_null=False,
                                    quoted_strings_can_be_null=False))
    except (pa.ArrowException, OSError, ValueError, EOFError):
        return None
    if any(t.column(c).null_count for c in types):
        return None
    u, v = t.column("c0").to_numpy(), t.column("c1").to_numpy()
    w = t.column(names[wcol]).to_numpy() if wcol is not None else np.ones(u.size)
    if not np.all(np.isfinite(w)):
        return None
    return u, v, np.asarray(w, dtype=np.float64)


def _csv_rows(path, hnum, hline, delimiter, columns, wcol, ids):
    """:func:`read_csv`'s general path: the rows after the header parsed one by one (Python's
    ``csv``), each checked, ``(u, v, w)`` arrays (ids as ints or strings, by ``ids``)."""
    expected = (f"rows of {len(columns)} fields, as the header row (line {hnum}: "
                f"{hline.strip()!r}) names")
    u, v, w = [], [], []
    first, first_is_int = None, None
    with open_text(path) as f:
        for _ in range(hnum):
            f.readline()
        reader = csv.reader(f, delimiter=delimiter, skipinitialspace=True)
        end = 0
        for row in _csv_checked(reader, path, hnum):
            number, end = hnum + end + 1, reader.line_num
            if not row or not any(c.strip() for c in row):
                continue
            line = delimiter.join(row)
            if len(row) != len(columns):
                raise GraphFormatError(path, number, line, expected,
                                       problem=f"{len(row)} field(s) on this row")
            a, b = row[0].strip(), row[1].strip()
            for token in (a, b):
                if not token:
                    raise GraphFormatError(path, number, line, "a node id in each of the first "
                                           "two columns", problem="an empty node id")
            if ids != "str":
                if first is None:
                    first = (number, line)
                    first_is_int = ids == "int" or bool(INTEGER_ID.fullmatch(a))
                for token in (a, b):
                    if bool(INTEGER_ID.fullmatch(token)) != first_is_int:
                        raise _id_rule_error(path, number, token, first, first_is_int,
                                             ids == "int")
                if first_is_int:
                    a, b = _int64_ids(path, number, line, (a, b))
            u.append(a)
            v.append(b)
            if wcol is not None:
                token = row[wcol].strip()
                try:
                    value = float(token)
                except ValueError:
                    raise GraphFormatError(path, number, token, f"a number in column "
                                           f"{columns[wcol]!r}", problem="non-numeric "
                                           f"weight") from None
                if not math.isfinite(value):
                    raise GraphFormatError(path, number, line, "a finite edge weight",
                                           problem="a non-finite weight (NaN or inf)")
                w.append(value)
    if u and isinstance(u[0], int):
        ua, va = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    else:
        ua = np.empty(len(u), dtype=object)
        va = np.empty(len(v), dtype=object)
        ua[:], va[:] = u, v
    wa = np.asarray(w, dtype=np.float64) if wcol is not None else np.ones(len(u))
    return ua, va, wa


def _csv_checked(reader, path, hnum: int):
    """The rows of a ``csv.reader``, its own errors (a field over ``csv.field_size_limit()``, a
    NUL byte, ...) as a :class:`GraphFormatError` naming the file and line."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            number = hnum + reader.line_num
            raise GraphFormatError(path, number, "", "rows of comma- or tab-separated fields",
                                   problem=f"unreadable row ({exc})") from None
        yield row


def check_csv_label(label) -> str:
    """``str(label)`` if a CSV file can store it as a node id that reads back the same:
    non-empty, no leading or trailing whitespace (the reader strips fields), no line break."""
    s = str(label)
    if not s or s != s.strip() or "\n" in s or "\r" in s:
        raise ValueError(f"a CSV file cannot store node label {label!r} (empty, with leading or "
                         f"trailing whitespace, or a line break); write a GraphML file "
                         f"(.graphml), which keeps such labels, or relabel first")
    return s


def write_csv(data: GraphData, f) -> None:
    """Write a CSV edge file: a header row ``u,v`` (``u,v,weight`` when some weight is not 1,
    the columns :func:`dpgraph.io.dask.read_edge_files` reads too), then one row per edge,
    labels as ids (quoted where they hold a comma or a quote). Isolated nodes cannot appear:
    a :class:`GraphInputWarning` counts them. Where labels would not read back as themselves
    (:func:`ids_comment`: ``'007'``, mixed ``[100, "x"]``) every id is written in double
    quotes (``"007","010"``), which :func:`read_csv` (and
    :func:`dpgraph.io.dask.read_edge_files`) reads as names, and the header row stays
    the first line, so that ``pandas.read_csv(path)`` reads the file too."""
    names = np.asarray([check_csv_label(x) for x in data.labels], dtype=object)
    i, j, w = data.edges()
    isolated = int(np.count_nonzero(np.diff(data.weights.indptr) == 0))
    if isolated:
        warnings.warn(f"a CSV edge file cannot store the {isolated} isolated node(s); they are "
                      f"not written", GraphInputWarning, stacklevel=caller_stacklevel())
    weighted = not data.is_unweighted
    csv.writer(f, lineterminator="\n").writerow(["u", "v", "weight"] if weighted else ["u", "v"])
    # quoted ids are names (read_csv); the weights (Python numbers) stay unquoted
    quoting = csv.QUOTE_NONNUMERIC if ids_comment(data.labels) else csv.QUOTE_MINIMAL
    out = csv.writer(f, lineterminator="\n", quoting=quoting)
    cols = [names[i].tolist(), names[j].tolist()] + ([weight_column(w)] if weighted else [])
    chunk = 1 << 16
    for start in range(0, len(cols[0]), chunk):
        out.writerows(zip(*(c[start:start + chunk] for c in cols)))


# ----------------------------------------------------------------------------- DIMACS .col

_DIMACS_COMMENTS = ("c",)
_DIMACS_EDGE = "an edge line 'e u v' (1-indexed integer vertices)"


def read_dimacs(path, *, duplicates: str = "max") -> GraphData:
    """Read a DIMACS graph (``.col``): ``c`` comments, one ``p edge n m`` (or ``p col n m``)
    line, then ``m`` lines ``e u v`` (an optional fourth field is read as a weight).

    Labels are the vertex numbers ``1..n``. ``m`` must equal the number of ``e`` lines; a pair
    listed more than once (both directions included) is merged by ``duplicates`` (``"max"`` by
    default, ``"sum"``, ``"error"``), with a warning that counts the repeats.
    """
    first, _ = _peek(path, _DIMACS_COMMENTS, 2)
    expected_p = "a problem line 'p edge n m' before the edge lines"
    if not first:
        raise _empty(path, expected_p)
    pnum, pline = first[0]
    tokens = pline.split()
    if len(tokens) != 4 or tokens[0] != "p" or tokens[1] not in ("edge", "col", "edges"):
        raise GraphFormatError(path, pnum, pline, expected_p)
    n = _parse_int(path, pnum, pline, tokens[2], expected_p)
    m = _parse_int(path, pnum, pline, tokens[3], expected_p)
    if n < 1 or m < 0:
        raise GraphFormatError(path, pnum, pline, expected_p + " with n >= 1, m >= 0",
                               problem="impossible header counts")
    check_node_count(path, pnum, pline, n, edges=m)
    ncols = len(first[1][1].split()) if len(first) > 1 else 3
    if ncols not in (3, 4):
        raise GraphFormatError(path, first[1][0], first[1][1], _DIMACS_EDGE,
                               problem=f"{ncols} field(s) on the line")
    check_whole_file_read(path, skip=pnum, reader="table")  # a header may understate its lines
    names = [("t", "U8"), ("u", "i8"), ("v", "i8")] + ([("w", "f8")] if ncols == 4 else [])
    try:
        table = load_table(path, skip=pnum, dtype=names, comments=_DIMACS_COMMENTS)
    except ValueError as exc:
        check_tokens(path, start=pnum + 1, comments=_DIMACS_COMMENTS, columns=(ncols,),
                     kinds=(str, int, int, float)[:ncols], expected=_DIMACS_EDGE)
        raise GraphFormatError(path, None, None, _DIMACS_EDGE, problem=str(exc)) from None
    not_e = table["t"] != "e"
    if not_e.any():
        number, line = row_line(path, int(np.flatnonzero(not_e)[0]), start=pnum + 1,
                                comments=_DIMACS_COMMENTS)
        raise GraphFormatError(path, number, line, _DIMACS_EDGE, problem="not an edge line")
    _count_check(path, pnum, pline, m, table.size, "edge lines")
    u, v = table["u"], table["v"]
    _check_range(path, u, v, n, start=pnum + 1, comments=_DIMACS_COMMENTS, what="DIMACS")
    w = table["w"] if ncols == 4 else np.ones(u.size)
    return from_coo(u - 1, v - 1, w, range(1, n + 1), duplicates=duplicates, source=str(path))


def write_dimacs(data: GraphData, f) -> None:
    """Write ``p edge n m`` and ``e u v`` lines (1-indexed); a weight is added as a fourth field
    (a common extension) only when some weight is not 1. Labels are not stored."""
    i, j, w = data.edges()
    f.write("c written by dpgraph\n")
    f.write(f"p edge {data.n} {data.m}\n")
    cols = [(i + 1).tolist(), (j + 1).tolist()]
    if not data.is_unweighted:
        cols.append(weight_column(w))
    write_columns(f, cols, prefix="e ")


# ----------------------------------------------------------------------------- METIS .graph

_METIS_COMMENTS = ("%",)


def read_metis(path, *, symmetrize: str | None = None, duplicates: str = "max") -> GraphData:
    """Read a METIS graph: header ``n m [fmt [ncon]]``, then exactly ``n`` vertex lines (blank
    for an isolated vertex), line ``i`` listing the neighbours of vertex ``i`` (1-indexed).

    ``fmt`` is up to three binary digits: vertex sizes, vertex weights (``ncon`` of them,
    default 1) and edge weights (neighbour, weight pairs). Vertex sizes and weights are read and
    ignored. ``m`` counts undirected edges. Labels are ``1..n``. An adjacency that is not
    symmetric (``i`` lists ``j`` but ``j`` does not list ``i`` with the same weight) is a
    directed graph: refused unless ``symmetrize`` says how to combine the two directions. A
    neighbour listed twice on one vertex line is merged by ``duplicates`` (``"max"`` by default,
    ``"sum"``, ``"error"``) before that check, with a warning that counts the repeats.
    """
    expected_h = "a header 'n m [fmt [ncon]]' of non-negative integers"
    with open_text(path) as f:
        number = 0
        header = None
        for line in f:
            number += 1
            if not is_skippable(line, _METIS_COMMENTS):
                header = line.rstrip("\r\n")
                break
        if header is None:
            raise _empty(path, expected_h)
        hnum = number
        tokens = header.split()
        if not 2 <= len(tokens) <= 4:
            raise GraphFormatError(path, hnum, header, expected_h,
                                   problem=f"{len(tokens)} field(s) on the header line")
        n = _parse_int(path, hnum, header, tokens[0], expected_h)
        m = _parse_int(path, hnum, header, tokens[1], expected_h)
        fmt = tokens[2] if len(tokens) > 2 else "0"
        if not re.fullmatch(r"[01]{1,3}", fmt):
            raise GraphFormatError(path, hnum, header, "fmt of up to three binary digits "
                                   "(vertex sizes, vertex weights, edge weights)",
                                   problem=f"bad fmt {fmt!r}")
        fmt = fmt.zfill(3)
        has_size, has_vw, has_ew = fmt[0] == "1", fmt[1] == "1", fmt[2] == "1"
        ncon = _parse_int(path, hnum, header, tokens[3], expected_h) if len(tokens) > 3 else 1
        if n < 1 or m < 0 or ncon < 1:
            raise GraphFormatError(path, hnum, header, expected_h + " with n >= 1",
                                   problem="impossible header counts")
        check_node_count(path, hnum, header, n, edges=2 * m)
        # a header may understate the neighbours its lines list
        check_tokens_fit(path, skip=hnum, arcs=symmetrize is not None)
        skip = int(has_size) + (ncon if has_vw else 0)
        stride = 2 if has_ew else 1
        what = ("'[size] [weights] nbr w nbr w ...'" if has_ew else
                "'[size] [weights] nbr nbr ...'")
        expected_v = f"a vertex line {what} with neighbours between 1 and n = {n}"
        rows, cols, vals = array("q"), array("q"), array("d")
        lines_of = array("q")
        vertex = 0
        for line in f:
            number += 1
            if line.lstrip().startswith(_METIS_COMMENTS):
                continue
            tokens = line.split()
            if vertex == n:
                if tokens:
                    raise GraphFormatError(path, number, line.rstrip("\r\n"), f"only {n} vertex "
                                           f"lines after the header", problem="extra vertex line")
                continue
            body = tokens[skip:]
            if len(tokens) < skip or len(body) % stride:
                raise GraphFormatError(path, number, line.rstrip("\r\n"), expected_v,
                                       problem="wrong number of fields")
            try:
                nbrs = [int(t) for t in body[::stride]]
                ws = [float(t) for t in body[1::2]] if has_ew else [1.0] * len(nbrs)
                [float(t) for t in tokens[:skip]]
            except ValueError:
                raise GraphFormatError(path, number, line.rstrip("\r\n"), expected_v,
                                       problem="non-numeric or malformed token") from None
            if nbrs and (min(nbrs) < 1 or max(nbrs) > n):
                raise GraphFormatError(path, number, line.rstrip("\r\n"), expected_v,
                                       problem="vertex id out of range")
            rows.extend([vertex] * len(nbrs))
            cols.extend(x - 1 for x in nbrs)
            vals.extend(ws)
            lines_of.append(number)
            vertex += 1
    if vertex < n:
        raise GraphFormatError(path, hnum, header, f"{n} vertex lines after the header",
                               problem=f"the file has only {vertex} vertex line(s) (is it "
                                       f"truncated?)")
    r = np.frombuffer(rows, dtype=np.int64)
    c = np.frombuffer(cols, dtype=np.int64)
    w = np.frombuffer(vals, dtype=np.float64)
    try:
        A = merge_arcs(r, c, w, n, duplicates=duplicates, source=str(path),
                       labels=range(1, n + 1))
    except WeightSumOverflowError as exc:  # a neighbour listed twice on its vertex's line
        lines = None if exc.entries is None else [int(lines_of[r[k]]) for k in exc.entries]
        raise weight_sum_format_error(path, exc, lines) from None
    diff = A - A.T
    diff.eliminate_zeros()
    if diff.nnz and symmetrize is None:
        bad = sp.coo_array(diff)
        a, b = int(bad.row[0]), int(bad.col[0])
        raise GraphFormatError(path, int(lines_of[a]), None,
                               "a symmetric adjacency (pass symmetrize='max', 'sum' or 'mean' "
                               "to read a directed one)",
                               problem=f"vertex {a + 1} and vertex {b + 1} disagree about "
                               f"their edge (directed input)")
    loops = int(np.count_nonzero(r == c))
    found = (r.size - loops) // 2 + loops
    if not diff.nnz:
        _count_check(path, hnum, header, m, found, "edges")
    A = A.tocoo()
    return from_coo(A.row.astype(np.int64), A.col.astype(np.int64), A.data, range(1, n + 1),
                     duplicates=duplicates, directed=True, symmetrize=symmetrize or "max",
                     source=str(path))


def check_metis_weights(data: GraphData) -> None:
    """Refuse a graph with a non-integer edge weight, which METIS cannot store (ValueError);
    :func:`dpgraph.io.write_graph` asks before its warnings about what the file will lack."""
    W = data.weights
    if not data.is_unweighted and not np.all(W.data == np.round(W.data)):
        raise ValueError("METIS stores integer edge weights; this graph has non-integer weights "
                         "(write it as 'mtx', 'snap' or 'gset' instead)")


def write_metis(data: GraphData, f) -> None:
    """Write a METIS graph (fmt ``001`` with integer edge weights when some weight is not 1).

    METIS stores integer weights only: a graph with a non-integer weight raises ValueError.
    Labels are not stored (node index ``k`` is vertex ``k + 1``).
    """
    check_metis_weights(data)
    W = data.weights
    weighted = not data.is_unweighted
    f.write(f"{data.n} {data.m}{' 001' if weighted else ''}\n")
    indptr, indices = W.indptr, W.indices + 1
    vals = W.data.astype(np.int64)
    for k in range(data.n):
        a, b = indptr[k], indptr[k + 1]
        if weighted:
            pairs = np.empty(2 * (b - a), dtype=np.int64)
            pairs[0::2], pairs[1::2] = indices[a:b], vals[a:b]
            f.write(" ".join(map(str, pairs.tolist())) + "\n")
        else:
            f.write(" ".join(map(str, indices[a:b].tolist())) + "\n")
