"""Formats read through other libraries: Matrix Market (``scipy.io``) and the NetworkX formats
(GraphML, GML, NetworkX edge list). Their parse errors are re-raised as
:class:`GraphFormatError` naming the file (and the line, where the library reports one). Pajek,
written by NetworkX, is parsed here the way NetworkX reads it, in one pass (``_parse_pajek``)."""

from __future__ import annotations

import dataclasses
import gzip
import io
import re
from array import array
import shlex
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import scipy.io
import scipy.sparse as sp

from dpgraph.caller import caller_stacklevel
from dpgraph.graph import (DuplicateEdgeWarning, GraphData, GraphInputWarning,
                           WeightSumOverflowError, as_graph_data, check_duplicates,
                           duplicates_message, from_coo, from_matrix, to_networkx)
from dpgraph.io.base import (NODE_SET_BYTES, GraphFormatError, NoEdgesError, check_document_read,
                             check_node_count, check_whole_file_read, check_tokens, is_gzip, load_table,
                             nonfinite_weight_error, open_binary, open_text, row_line,
                             scan_lines, data_line_numbers, weight_sum_format_error)
from dpgraph.io.text import weight_column, write_columns
from dpgraph.memory import check_memory


def _wrap(path, exc, expected) -> GraphFormatError:
    line = None
    if isinstance(exc, ET.ParseError) and getattr(exc, "position", None):
        line = exc.position[0]
    else:  # scipy: "Line 3: ...", networkx GML: "... at (3, 1)"
        found = re.search(r"\bline (\d+)|\bat \((\d+), \d+\)", str(exc), re.IGNORECASE)
        if found:
            line = int(found.group(1) or found.group(2))
    text = None
    if line is not None:
        for number, content in scan_lines(path, line):
            text = content
            break
    return GraphFormatError(path, line, text, expected,
                            problem=f"{type(exc).__name__}: {exc}".replace("\n", " "))


# ----------------------------------------------------------------------------- Matrix Market

_MTX = "a Matrix Market file ('%%MatrixMarket matrix coordinate|array ...' header)"


def _mtx_source(path):
    """What to hand ``scipy.io.mmread``: the path of a plain file, the decompressed bytes of a
    gzip file. Not an open file object: on a malformed header scipy 1.17's C++ reader given a
    ``BufferedReader`` aborts the whole process (``terminate called ... OSError``), where
    given a path or a ``BytesIO`` it raises ``ValueError``."""
    if is_gzip(path):
        with gzip.open(path, "rb") as f:
            return io.BytesIO(f.read())
    return str(path)


def _size_line(path) -> tuple:
    """``(number, text)`` of a Matrix Market file's size line (its first line after the header
    that is neither blank nor a ``%`` comment), ``(None, None)`` without one."""
    for number, line in scan_lines(path, 2):
        if line.strip() and not line.lstrip().startswith("%"):
            return number, line.rstrip("\r\n")
    return None, None


def _body(path, width: int, count: int, what: str) -> tuple[np.ndarray, int]:
    """The number table after the size line of a Matrix Market file, checked: ``width`` numbers
    per line and ``count`` lines. Parsed by numpy, not scipy: scipy 1.17's C++ reader crashes
    the interpreter (segmentation fault) on a line with too many numbers or a malformed number
    at the end of the file."""
    size_line = _size_line(path)[0]
    expected = f"{count} {what} after the size line"
    if size_line is None:
        raise GraphFormatError(path, None, None, "a size line 'rows cols [entries]'",
                               problem="no size line")
    try:
        table = load_table(path, skip=size_line, dtype=np.float64, comments=("%",))
    except ValueError as exc:
        check_tokens(path, start=size_line + 1, comments=("%",), columns=(width,),
                     kinds=(float,) * width, expected=expected)
        raise GraphFormatError(path, None, None, expected, problem=str(exc)) from None
    if table.size and table.shape[1] != width:
        check_tokens(path, start=size_line + 1, comments=("%",), columns=(width,),
                     kinds=(float,) * width, expected=expected)
    if table.shape[0] != count:
        raise GraphFormatError(path, size_line, None, expected,
                               problem=f"the file has {table.shape[0]} such lines"
                               + (" (is it truncated?)" if table.shape[0] < count else ""))
    return table.reshape(count, width), size_line


def _coordinate_entries(path, n_rows, n_cols, entries, field, symmetry):
    """A coordinate Matrix Market body as 0-based ``(i, j, w, stored_once)``: with
    ``stored_once`` (symmetric storage) each entry stands for both ``(i, j)`` and ``(j, i)``;
    skew-symmetric storage is mirrored here with the sign flipped."""
    width = {"pattern": 2, "complex": 4}.get(field, 3)
    what = f"entry lines 'i j{' value' * (width - 2)}'"
    table, size_line = _body(path, width, entries, what)
    if field == "complex":
        raise GraphFormatError(path, 1, None, "real or integer weights", problem="complex matrix")
    i, j = table[:, 0], table[:, 1]
    bad = ~((i == np.round(i)) & (j == np.round(j)) & (i >= 1) & (j >= 1) & (i <= n_rows)
            & (j <= n_cols))
    if bad.any():
        number, line = row_line(path, int(np.flatnonzero(bad)[0]), start=size_line + 1,
                                comments=("%",))
        raise GraphFormatError(path, number, line, f"integer indices 1 <= i <= {n_rows}, "
                               f"1 <= j <= {n_cols}", problem="index out of range or not whole")
    i, j = i.astype(np.int64) - 1, j.astype(np.int64) - 1
    w = np.ones(entries) if field == "pattern" else table[:, 2].copy()
    if symmetry == "skew-symmetric":
        off = i != j
        i, j, w = (np.concatenate([i, j[off]]), np.concatenate([j, i[off]]),
                   np.concatenate([w, -w[off]]))
    return i, j, w, symmetry in ("symmetric", "hermitian")


def read_mtx(path, *, symmetrize: str | None = None, duplicates: str = "max") -> GraphData:
    """Read a Matrix Market file as a weighted adjacency matrix (header by
    :func:`scipy.io.mminfo`; a coordinate body parsed by numpy, a dense one by
    :func:`scipy.io.mmread` after a check of its lines).

    ``symmetric`` and ``pattern`` matrices are the usual graph case; a ``general`` matrix must be
    symmetric unless ``symmetrize`` says how to combine ``A`` and ``A^T``. Labels are the row
    numbers ``1..n`` of the file. An entry listed more than once (in ``symmetric`` storage,
    ``(i, j)`` and ``(j, i)`` both) is merged by ``duplicates`` (``"max"`` by default,
    ``"sum"``, ``"error"``), with a warning that counts the repeats.
    """
    check_duplicates(duplicates)
    with open_text(path) as f:
        first = f.readline()
    if not first.strip():
        raise GraphFormatError(path, None, None, _MTX, problem="the file is empty")
    if not first.lower().startswith("%%matrixmarket"):
        raise GraphFormatError(path, 1, first.rstrip("\r\n"), _MTX)
    try:
        rows, cols, entries, layout, field, symmetry = scipy.io.mminfo(_mtx_source(path))
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 -- see _nx_read: a third-party parser
        raise _wrap(path, exc, _MTX) from None
    if min(int(rows), int(cols)) == 0:  # refused as a header of 0 nodes is in every format
        number, text = _size_line(path)
        raise GraphFormatError(path, number, text, "a size line 'rows columns [entries]' with "
                               "rows = columns >= 1",
                               problem=f"a {int(rows)} x {int(cols)} matrix has no nodes: "
                                       f"dpgraph needs a graph with at least one node")
    check_node_count(path, 1, first.rstrip("\r\n"), max(int(rows), int(cols)),
                     edges=int(entries) if layout == "coordinate" else None)
    if layout == "coordinate":
        if int(rows) != int(cols):
            raise GraphFormatError(path, 1, first.rstrip("\r\n"), "a square matrix (an "
                                   "adjacency)", problem=f"the matrix has shape "
                                   f"({int(rows)}, {int(cols)})")
        i, j, w, stored_once = _coordinate_entries(path, int(rows), int(cols), int(entries),
                                                   field, symmetry)
        try:
            return from_coo(i, j, w, range(1, int(rows) + 1), duplicates=duplicates,
                            directed=not stored_once, symmetrize=symmetrize, source=str(path))
        except WeightSumOverflowError as exc:
            lines = None
            if exc.entries is not None:  # entry k: the k-th line after the size line (the
                # mirrored entries of skew-symmetric storage, past them, have no line)
                lines = data_line_numbers(path, [k for k in exc.entries if k < int(entries)],
                                          comments=("%",), skip=1)
            raise weight_sum_format_error(path, exc, lines) from None
        except ValueError as exc:
            if "repeated" in str(exc):
                raise GraphFormatError(path, None, None, "each entry once, or duplicates='max' "
                                       "or 'sum'", problem=str(exc).replace(
                                           str(path), "the file", 1)) from None
            if "non-finite edge weight" in str(exc):
                raise (nonfinite_weight_error(path, column=2, start=2, comments=("%",))
                       or GraphFormatError(path, None, None, "finite values",
                                           problem="a non-finite value (NaN or inf)")) from None
            raise GraphFormatError(path, 1, first.rstrip("\r\n"), "a symmetric matrix, or "
                                   "symmetrize='max', 'sum' or 'mean'",
                                   problem=str(exc).split(";")[0].replace(
                                       str(path), "the matrix", 1)) from None
    else:  # dense "array" layout: one number per line, checked before scipy reads it
        packed = {"symmetric": int(rows) * (int(rows) + 1) // 2,
                  "skew-symmetric": int(rows) * (int(rows) - 1) // 2}
        _body(path, 2 if field == "complex" else 1,
              packed.get(symmetry, int(rows) * int(cols)), "value lines")
        try:
            A = scipy.io.mmread(_mtx_source(path))
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 -- e.g. OverflowError on a 20-digit number
            raise _wrap(path, exc, _MTX) from None
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise GraphFormatError(path, 1, first.rstrip("\r\n"), "a square matrix (an adjacency)",
                               problem=f"the matrix has shape {A.shape}")
    if np.iscomplexobj(A):
        raise GraphFormatError(path, 1, first.rstrip("\r\n"), "real or integer weights",
                               problem="complex matrix")
    try:
        return from_matrix(A, range(1, A.shape[0] + 1), symmetrize=symmetrize, source=str(path))
    except WeightSumOverflowError as exc:
        raise weight_sum_format_error(path, exc) from None
    except ValueError as exc:
        raise GraphFormatError(path, 1, first.rstrip("\r\n"), "a symmetric matrix, or "
                               "symmetrize='max', 'sum' or 'mean'", problem=str(exc)) from None


def write_mtx(data: GraphData, f) -> None:
    """Write a ``coordinate real symmetric`` Matrix Market file (``integer`` when every weight
    is an integer). Labels are not stored."""
    W = sp.coo_array(sp.tril(data.weights, k=-1))
    integer = bool(np.all(W.data == np.round(W.data)))
    field = "integer" if integer else "real"
    f.write(f"%%MatrixMarket matrix coordinate {field} symmetric\n")
    f.write("% written by dpgraph\n")
    f.write(f"{data.n} {data.n} {W.nnz}\n")
    write_columns(f, [(W.row + 1).tolist(), (W.col + 1).tolist(), weight_column(W.data)])


# ----------------------------------------------------------------------------- NetworkX formats


def _only_whitespace(path, chunk: int = 1 << 16) -> bool:
    """True when the whole (decoded) file is whitespace; stops at the first other character, so
    a real file costs one chunk."""
    with open_text(path) as f:
        while True:
            block = f.read(chunk)
            if not block:
                return True
            if block.strip():
                return False


def _nx_read(path, reader, expected, *, symmetrize, duplicates, weight, price,
             empty=GraphFormatError, **kw):
    """``reader`` (a NetworkX parser of the whole file) on ``path``, after ``price(path)``
    refused what would not fit in memory."""
    check_duplicates(duplicates)
    if _only_whitespace(path):
        raise empty(path, None, None, expected, problem="the file is empty")
    price(path)
    import networkx as nx

    try:
        with open_binary(path) as f:
            G = reader(f, **kw)
    except (MemoryError, GraphFormatError):  # a refusal of the reader's own names the file
        raise
    except Exception as exc:  # noqa: BLE001
        # Any exception out of a third-party parser on untrusted bytes is a malformed file:
        # networkx's parsers raise StopIteration and UnboundLocalError besides NetworkXError,
        # ParseError, KeyError, TypeError and IndexError on malformed bytes.
        raise _wrap(path, exc, expected) from None
    if G.number_of_nodes() == 0:  # comment lines only
        raise empty(path, None, None, expected, problem="the file has no data lines")
    if G.is_multigraph():
        G = _merge_parallel_note(path, G, duplicates)
    if weight not in (None, "weight") and G.number_of_edges() \
            and not any(weight in d for *_, d in G.edges(data=True)):
        names = sorted({str(k) for *_, d in G.edges(data=True) for k in d})
        raise _no_weight_attribute(path, weight, f"the edges carry {names}" if names else
                                   "the edges carry no attribute")
    try:
        return _converted(G, path, weight=weight, symmetrize=symmetrize, duplicates=duplicates)
    except WeightSumOverflowError as exc:
        raise weight_sum_format_error(path, exc) from None
    except ValueError as exc:
        raise GraphFormatError(path, None, None, "an undirected graph, or symmetrize='max', "
                               "'sum' or 'mean'" if "directed" in str(exc) else expected,
                               problem=str(exc)) from None


def _no_weight_attribute(path, weight: str, have: str) -> GraphFormatError:
    """A ``weight`` the caller named (not the default ``"weight"``, which reads an unweighted
    file as weight 1) that no edge of the file carries: refused, as a CSV file without that
    column is (every edge read as weight 1 would hide a misspelt name)."""
    return GraphFormatError(path, None, None, f"an edge attribute named {weight!r} (weight=), "
                            f"or weight=None to read every edge as weight 1",
                            problem=f"no edge has the attribute weight={weight!r}; {have}")


def _converted(G, path, **kw) -> GraphData:
    """``as_graph_data(G, **kw)`` for the graph ``G`` read from ``path``: its warnings (edges
    of weight 0 removed, a --weight attribute no edge has, ...) name the file, not the
    NetworkX class that held it (``networkx.Graph: removed 1 edge(s) of weight 0``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = as_graph_data(G, **kw)
    prefix = f"networkx.{type(G).__name__}:"
    for w in caught:
        text = str(w.message)
        if text.startswith(prefix):
            text = f"{path}:{text[len(prefix):]}"
        warnings.warn(text, w.category, stacklevel=caller_stacklevel())
    return data


def _merge_parallel_note(path, G, duplicates):
    """A NetworkX multigraph read from ``path``: as a simple graph when no pair repeats (so
    ``duplicates="error"`` refuses only real repeats), else unchanged after the one note of
    the file readers (:func:`dpgraph.graph.duplicates_message`): ``as_graph_data`` then merges
    its parallel edges by ``duplicates``."""
    import networkx as nx
    from collections import Counter

    key = (lambda u, v: (u, v)) if G.is_directed() else (lambda u, v: frozenset((u, v)))
    counts = Counter(key(u, v) for u, v in G.edges())
    repeats = G.number_of_edges() - len(counts)
    if repeats == 0:
        return nx.DiGraph(G) if G.is_directed() else nx.Graph(G)
    pairs = sum(1 for c in counts.values() if c > 1)
    if duplicates == "error":
        raise GraphFormatError(path, None, None, "each edge once (or duplicates='max' or 'sum')",
                               problem=duplicates_message("the file", repeats, pairs, "error"))
    warnings.warn(duplicates_message(str(path), repeats, pairs, duplicates), DuplicateEdgeWarning,
                  stacklevel=caller_stacklevel())
    return G


def read_graphml(path, *, symmetrize=None, duplicates="max", weight="weight") -> GraphData:
    """Read GraphML with :func:`networkx.read_graphml`; node ids (strings) become labels. An
    edge to a node that no ``<node>`` element declares is refused (NetworkX adds the node).
    A file written by igraph, whose node ids are its generated ``n0, n1, ...`` and whose
    nodes each carry a distinct string ``name`` attribute (igraph's vertex names), is labelled
    by those names, as igraph reads it back. Parallel edges are merged by ``duplicates``
    (``"max"`` by default, ``"sum"``, ``"error"``), with a warning that counts them."""
    return _nx_read(path, lambda f: _read_graphml_named(f, path), "a GraphML document",
                    symmetrize=symmetrize, duplicates=duplicates, weight=weight,
                    price=lambda p: check_document_read(p, "graphml"))


def _read_graphml_named(f, path):
    """:func:`networkx.read_graphml` (its steps, with its reader), refusing an edge to a node
    that no ``<node>`` element declares (NetworkX adds it as a new node), and relabelled by
    the nodes' ``name`` attribute where the ids are igraph's generated ``n0 .. n{N-1}`` (in
    order) and every node has a distinct string name: igraph writes its vertex names so
    (:func:`read_graphml`)."""
    import networkx as nx
    from networkx.readwrite.graphml import GraphMLReader

    reader = GraphMLReader()
    graphs = list(reader(path=f))
    if not graphs:  # as networkx.read_graphml: a '<graphml>' header without its namespace
        f.seek(0)
        graphs = list(reader(string=f.read().replace(
            b"<graphml>", b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">')))
        if not graphs:
            raise nx.NetworkXError("file not successfully read as graphml")
    G = graphs[0]
    # every <node> of the document, nested graphs (yEd groups) included: the parsed tree
    # the reader keeps, walked once (no second parse)
    declared = {e.get("id") for e in reader.xml.iter(f"{{{reader.NS_GRAPHML}}}node")}
    undeclared = [u for u in G if u not in declared]
    if undeclared:
        more = f" (and {len(undeclared) - 1} other such node(s))" if len(undeclared) > 1 else ""
        raise GraphFormatError(path, None, None, "edges between the nodes the file declares "
                               "(<node id=...> elements)",
                               problem=f"an edge names node {undeclared[0]!r}, which no <node> "
                                       f"element declares{more}")
    ids = list(G.nodes)
    names = [d.get("name") for _, d in G.nodes(data=True)]
    if (ids == [f"n{k}" for k in range(len(ids))] and names != ids
            and all(isinstance(x, str) for x in names) and len(set(names)) == len(names)):
        G = nx.relabel_nodes(G, dict(zip(ids, names)), copy=True)
    return G


def read_gml(path, *, symmetrize=None, duplicates="max", weight="weight",
             label="label") -> GraphData:
    """Read GML with :func:`networkx.read_gml` (node attribute ``label`` gives the labels).
    A repeated edge is merged by ``duplicates`` (``"max"`` by default, ``"sum"``, ``"error"``),
    with a warning that counts the repeats, whether or not the file declares ``multigraph 1``
    (NetworkX's parser refuses a repeated edge without it: the file is then parsed as a
    multigraph). With the default ``label="label"``, a file whose nodes have no ``label``
    attribute at all (as igraph writes GML: ``id`` and ``name``) is read by their ``name``
    attribute where every node has a distinct one (as igraph reads it), else by their ``id``,
    with a :class:`~dpgraph.graph.GraphInputWarning` saying which."""
    import networkx as nx

    expected = "a GML document ('graph [ node [...] edge [...] ]')"
    try:
        return _nx_read(path, nx.read_gml, expected, symmetrize=symmetrize,
                        duplicates=duplicates, weight=weight, label=label,
                        price=lambda p: check_document_read(p, "gml"))
    except GraphFormatError as exc:
        if label == "label" and "has no 'label' attribute" in str(exc):
            # parsed again (not priced again) by ids, then named by 'name' where it can be
            return _nx_read(path, lambda f, label: _parse_gml_without_labels(f, path), expected,
                            symmetrize=symmetrize, duplicates=duplicates, weight=weight,
                            label=None, price=lambda p: None)
        if "is duplicated" not in str(exc):
            raise
    # the first attempt priced the document (check_document_read, a streamed pass over a gzip
    # file) and parsed it; the retry parses the same bytes: it is not priced again
    return _nx_read(path, _parse_gml_as_multigraph, expected, symmetrize=symmetrize,
                    duplicates=duplicates, weight=weight, label=label, price=lambda p: None)


def _parse_gml_without_labels(f, path):
    """A GML file none of whose nodes has a ``label`` attribute: parsed by the nodes' ``id``
    (as a multigraph, so that repeated edges are counted, not refused), then relabelled by
    their ``name`` attribute where every node has a distinct string one (igraph's GML); a
    :class:`GraphInputWarning` says which attribute gave the labels. A file where some nodes
    have a ``label`` keeps NetworkX's refusal of the others."""
    import networkx as nx

    G = _parse_gml_as_multigraph(f, None)
    missing = [k for k, (_, d) in enumerate(G.nodes(data=True)) if "label" not in d]
    if len(missing) < G.number_of_nodes():
        raise nx.NetworkXError(f"node #{missing[0]} has no 'label' attribute")
    names = [d.get("name") for _, d in G.nodes(data=True)]
    if all(isinstance(x, str) for x in names) and len(set(names)) == len(names):
        G = nx.relabel_nodes(G, dict(zip(G.nodes, names)), copy=True)
        used = "their 'name' attribute (as igraph writes and reads GML)"
    else:
        used = "their 'id'"
    warnings.warn(f"{path}: the GML nodes have no 'label' attribute; labelled by {used} "
                  f"(read_graph's label= names another attribute)", GraphInputWarning,
                  stacklevel=caller_stacklevel())
    return G


def _parse_gml_as_multigraph(f, label):
    """:func:`networkx.parse_gml` of a GML file with ``multigraph 1`` put first in its graph
    (an existing ``multigraph 0`` removed), so that repeated edges are kept, not refused."""
    import networkx as nx

    text = f.read().decode("utf-8")
    text = re.sub(r"\bmultigraph\s+0\b", "", text)
    text = re.sub(r"\bgraph\s*\[", "graph [ multigraph 1 ", text, count=1)
    return nx.parse_gml(text, label=label)


_PAJEK = "a Pajek network ('*Vertices n', '*Edges' / '*Arcs')"
_PAJEK_TOKEN = re.compile(r"[^ \t\r\n]+")


def _pajek_tokens(path, number: int, line: str) -> list:
    """The tokens of one Pajek line as :func:`shlex.split` gives them (NetworkX's reading):
    whitespace ``' \\t\\r\\n'`` separates, quotes group. ``shlex`` only where the line has a
    quote or a backslash: it costs ~10 us a line (over 5 s for a file of 200,000 edge
    lines)."""
    if '"' in line or "'" in line or "\\" in line:
        try:
            return shlex.split(line)
        except ValueError as exc:  # "No closing quotation", "No escaped character"
            raise GraphFormatError(path, number, line, _PAJEK, problem=str(exc)) from None
    return _PAJEK_TOKEN.findall(line)


def _parse_pajek(path, weight):
    """Parse a Pajek file as :func:`networkx.read_pajek` does, without building a NetworkX
    multigraph: ``(labels, rows, cols, values, line numbers, directed, modes)``, ``modes``
    None but for a two-mode network (each node's mode, in node order).

    The sections read: ``*Vertices n`` (or ``*Vertices n n1``, a two-mode network, such as
    Davis' southern women, whose vertices numbered ``1..n1`` are the first mode: its edges are
    read as edges, its ``*Matrix`` as ``n1`` rows over the second mode's ``n - n1`` columns,
    each nonzero an edge, and each vertex line's id must be its number; NetworkX refuses the
    line) then ``n`` lines
    ``id label [x y shape] [key value]...``
    (an edge names a vertex by its id or its label; an edge line naming any other token is
    refused with its line, where NetworkX adds a new vertex; a file without ``*Vertices``
    takes its vertices from the edge lines);
    vertex lines may be left out, as igraph writes a graph without names (the next line is a
    section): a vertex without one is labelled by its number ``'1' .. 'n'`` (text, as every
    Pajek label); ``*Edges`` (undirected) or ``*Arcs`` (directed), after which every line with
    at least two tokens is ``u v [weight] [key value]...``; ``*Edgeslist`` / ``*Arcslist``,
    lines ``u v1 v2 ...`` (an edge or arc from ``u`` to each ``v``, weight 1); or ``*Matrix``
    (directed), rows of integers over the vertices in file order. A missing or non-numeric
    third token means weight 1. A declared vertex count is checked against the lines left in
    the file before any vertex is read (without any vertex line, against the memory its
    labels need).
    """
    with open_binary(path) as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        number = raw.count(b"\n", 0, exc.start) + 1
        raise GraphFormatError(path, number, None, "UTF-8 text",
                               problem=f"byte {raw[exc.start]:#04x} is not UTF-8") from None
    del raw
    if not text.strip():
        raise GraphFormatError(path, None, None, _PAJEK, problem="the file is empty")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    labels: list = []          # every vertex label in file order (the *Matrix rows)
    index: dict = {}           # label -> node number (NetworkX's node order)
    ids: dict = {}             # vertex id -> label
    rows, cols, vals, where = [], [], [], []
    declared = None            # the '*Vertices n' line, once read
    first_mode = None          # n1 of a two-mode network's '*Vertices n n1' line
    modes = array("b")         # two-mode: each node's mode (0, 1; -1 undeclared), node order
    by_number: list = []       # two-mode: the label of vertex number 1..n
    keys: set = set()          # the keys of the edge lines' 'key value' pairs
    directed = False

    def check_declared(number, *tokens):
        """Refuse an edge line naming a vertex that *Vertices does not declare (NetworkX
        adds it as a new vertex)."""
        for t in tokens:
            if declared is not None and ids.get(t, t) not in index:
                raise GraphFormatError(
                    path, number, lines[number - 1],
                    f"edges between the {len(ids)} vertices of {declared.strip()!r} (each by "
                    f"its id or its label)",
                    problem=f"vertex {t!r} is neither a *Vertices id nor a vertex label")

    def node(label):
        k = index.get(label)
        if k is None:
            k = index[label] = len(index)
            modes.append(-1)
        return k

    def set_mode(vid, label, number):
        """Vertex number ``vid`` (its id token) of a two-mode network, labelled ``label``:
        the first mode up to ``first_mode``, the second above (``number``: its line)."""
        i = int(vid) if vid.isdigit() else 0
        if not 1 <= i <= len(by_number) or by_number[i - 1] not in (None, label) \
                or modes[index[label]] not in (-1, int(i > first_mode)):
            raise GraphFormatError(
                path, number, lines[number - 1],
                f"a vertex line 'id label' whose id is a vertex number 1..{len(by_number)}, "
                f"each once, under {declared.strip()!r} (a two-mode network: the vertices "
                f"1..{first_mode} are the first mode, the others the second; a label names "
                f"one vertex)")
        by_number[i - 1] = label
        modes[index[label]] = int(i > first_mode)

    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        low = line.lower()
        if low.startswith("*vertices"):
            parts = line.split()
            try:
                if len(parts) not in (2, 3):
                    raise ValueError
                count = int(parts[1])
                # a two-mode network ('*Vertices n n1', e.g. Davis' southern women): its
                # first n1 vertices are the first mode, the others the second
                first_mode = int(parts[2]) if len(parts) == 3 else None
                if count < 0 or (first_mode is not None and not 0 <= first_mode <= count):
                    raise ValueError
            except ValueError:
                raise GraphFormatError(path, k, line, "'*Vertices n' with a vertex count "
                                       "n >= 0, or '*Vertices n n1' (a two-mode network: its "
                                       "first n1 of the n vertices, 0 <= n1 <= n, are the "
                                       "first mode)") from None
            # vertex lines may be left out (igraph writes '*Vertices n' then '*Edges' for a
            # graph without names): vertex i is then labelled by its number, as text. Where
            # some are listed, the count is still checked against the lines left
            listed = next((j for j in range(k, min(k + count, len(lines)))
                           if lines[j].lstrip().startswith("*")), min(k + count, len(lines))) - k
            if listed == 0 < count:  # no vertex line at all: the count is priced, not read
                check_memory(NODE_SET_BYTES["labels"] * count,
                             what=f"{path}: {line.strip()!r} ({count:,} vertices)",
                             fit=(lambda x: NODE_SET_BYTES["labels"] * x,
                                  "At most {:,} vertices fit."))
            elif count > len(lines) - k:
                raise GraphFormatError(path, k, line, f"{count} vertex lines after it",
                                       problem=f"the file has only {len(lines) - k} lines "
                                       f"left") from None
            ids = {}
            declared = line
            by_number = [None] * count if first_mode is not None else []
            for number in range(k + 1, k + listed + 1):
                tokens = _pajek_tokens(path, number, lines[number - 1])
                if len(tokens) < 2:
                    raise GraphFormatError(path, number, lines[number - 1],
                                           "a vertex line 'id label [x y shape]'")
                labels.append(tokens[1])
                node(tokens[1])
                ids[tokens[0]] = tokens[1]
                if first_mode is not None:
                    set_mode(tokens[0], tokens[1], number)
            for i in range(1, count + 1) if listed < count else ():
                vid = str(i)
                if vid in ids:
                    continue
                if vid in index:
                    raise GraphFormatError(path, k, line, "distinct vertex labels",
                                           problem=f"vertex {vid} has no vertex line and its "
                                           f"number is another vertex's label")
                labels.append(vid)
                node(vid)
                ids[vid] = vid
                if first_mode is not None:
                    set_mode(vid, vid, k)
            k += listed
        elif low.startswith("*edgeslist") or low.startswith("*arcslist"):
            # 'u v1 v2 ...': an edge (arc) from u to each v, weight 1 (not 'u v w' lines)
            directed = directed or low.startswith("*arcslist")
            section_end = len(lines)
            for number in range(k + 1, len(lines) + 1):
                tokens = _pajek_tokens(path, number, lines[number - 1])
                if tokens and tokens[0].startswith("*"):
                    section_end = number - 1  # the next section: read by the outer loop
                    break
                check_declared(number, *tokens)
                for t in tokens[1:]:
                    u, v = ids.get(tokens[0], tokens[0]), ids.get(t, t)
                    rows.append(node(u))
                    cols.append(node(v))
                    vals.append(1.0)
                    where.append(number)
            k = section_end
        elif low.startswith("*edges") or low.startswith("*arcs"):
            directed = directed or low.startswith("*arcs")
            for number in range(k + 1, len(lines) + 1):
                tokens = _pajek_tokens(path, number, lines[number - 1])
                if len(tokens) < 2:
                    continue
                check_declared(number, tokens[0], tokens[1])
                u, v = ids.get(tokens[0], tokens[0]), ids.get(tokens[1], tokens[1])
                w = 1.0
                if weight == "weight" and len(tokens) > 2:
                    try:
                        w = float(tokens[2])
                    except ValueError:
                        pass  # not a weight: NetworkX ignores it
                if weight is not None and len(tokens) > 4:
                    extra = dict(zip(tokens[3::2], tokens[4::2]))
                    keys.update(extra)
                    if weight in extra:
                        try:
                            w = float(extra[weight])
                        except ValueError:
                            raise GraphFormatError(
                                path, number, lines[number - 1],
                                f"a number after the key {weight!r}") from None
                rows.append(node(u))
                cols.append(node(v))
                vals.append(1.0 if weight is None else w)
                where.append(number)
            break
        elif low.startswith("*matrix"):
            # one-mode: a square matrix of arcs over the vertices; two-mode: the rows are the
            # first mode's n1 vertices, the columns the second mode's, each entry an edge
            directed = directed or first_mode is None
            rows_of = labels if first_mode is None else by_number[:first_mode]
            cols_of = labels if first_mode is None else by_number[first_mode:]
            over = (f"the {len(labels)} vertices" if first_mode is None else
                    f"the {len(cols_of)} vertices of the second mode (a row for each of the "
                    f"{len(rows_of)} of the first)")
            for r, number in enumerate(range(k + 1, len(lines) + 1)):
                for c, token in enumerate(lines[number - 1].split()):
                    try:
                        value = int(token)
                        if value != 0:
                            u, v = rows_of[r], cols_of[c]
                    except (ValueError, IndexError):
                        raise GraphFormatError(
                            path, number, lines[number - 1],
                            f"a row of integers over {over}") from None
                    if value != 0:
                        rows.append(node(u))
                        cols.append(node(v))
                        vals.append(float(value) if weight == "weight" else 1.0)
                        where.append(number)
            break
    if weight not in (None, "weight") and rows and weight not in keys:
        raise _no_weight_attribute(path, weight, f"the edge lines carry the keys {sorted(keys)}"
                                   if keys else "the edge lines carry no 'key value' pair")
    two_mode = None if first_mode is None else np.frombuffer(modes, dtype=np.int8)
    return list(index), rows, cols, vals, where, directed, two_mode


def read_pajek(path, *, symmetrize=None, duplicates="max", weight="weight") -> GraphData:
    """Read a Pajek ``.net`` file as :func:`networkx.read_pajek` reads it (vertex names are the
    labels; ``*Arcs`` and ``*Matrix`` make it directed, so ``symmetrize`` must say how to
    combine arcs), parsed here in one pass into index arrays (:func:`_parse_pajek`). A pair
    listed more than once is merged by ``duplicates`` (``"max"`` by default, ``"sum"``,
    ``"error"``), with a warning that counts the repeats. Unlike NetworkX, an edge line that
    names a vertex ``*Vertices`` does not declare is refused with its line (NetworkX adds a
    vertex), and so is a ``weight`` (other than ``"weight"``) that no edge line carries as a
    ``key value`` pair (NetworkX reads every edge as weight 1). A two-mode network
    (``*Vertices n n1``, which NetworkX refuses) is read as the graph of its edges, both
    modes' vertices its nodes, each node's mode kept in :attr:`GraphData.modes` (the node
    attribute ``bipartite``, 0 for the vertices ``1..n1`` and 1 for the others, of
    :meth:`GraphData.to_networkx`). The vertex lines' coordinates, shapes and ``key value``
    pairs are read past, not kept (NetworkX keeps them as node attributes).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "davis.net")
    >>> with open(path, "w") as f:  # two women, three events; each woman's events
    ...     _ = f.write('*Vertices 5 2\\n1 "Evelyn"\\n2 "Laura"\\n3 "E1"\\n4 "E2"\\n5 "E3"\\n'
    ...                 '*Edges\\n1 3\\n1 4\\n2 4\\n2 5\\n')
    >>> G = read_pajek(path).to_networkx()
    >>> sorted(G.nodes(data="bipartite"))
    [('E1', 1), ('E2', 1), ('E3', 1), ('Evelyn', 0), ('Laura', 0)]
    """
    check_duplicates(duplicates)
    check_document_read(path, "pajek")
    labels, rows, cols, vals, where, directed, modes = _parse_pajek(path, weight)
    vals = np.asarray(vals, dtype=np.float64)
    bad = ~np.isfinite(vals)
    if bad.any():
        number = where[int(np.flatnonzero(bad)[0])]
        raise GraphFormatError(path, number, None, "a finite edge weight",
                               problem=f"{int(bad.sum())} non-finite weight(s) (NaN or inf)")
    if not labels:
        raise GraphFormatError(path, None, None, _PAJEK, problem="no vertices")
    if directed and symmetrize is None:
        raise GraphFormatError(path, None, None, "an undirected graph, or symmetrize='max', "
                               "'sum' or 'mean'", problem="*Arcs / *Matrix: the network is "
                               "directed")
    try:
        data = from_coo(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                        vals, labels, duplicates=duplicates, directed=directed,
                        symmetrize=symmetrize, source=str(path))
        return data if modes is None else dataclasses.replace(data, modes=modes)
    except WeightSumOverflowError as exc:
        lines = None if exc.entries is None else [where[k] for k in exc.entries]
        raise weight_sum_format_error(path, exc, lines) from None
    except ValueError as exc:
        expected = "each edge once (or duplicates='max' or 'sum')" if "repeated" in str(exc) \
            else _PAJEK
        raise GraphFormatError(path, None, None, expected,
                               problem=str(exc).replace(str(path), "the file", 1)) from None


def read_nx_edgelist(path, *, symmetrize=None, duplicates="max", weight="weight",
                     nodetype=None) -> GraphData:
    """Read NetworkX's edge-list format (``u v {'weight': 2.0}`` or ``u v 2.0`` lines) with
    :func:`networkx.read_edgelist`. Labels are strings unless ``nodetype`` (e.g. ``int``) is
    given. A pair listed more than once (both directions included) is merged by
    ``duplicates`` (``"max"`` by default, ``"sum"``, ``"error"``), with a warning that counts
    the repeats. For plain numeric edge lists prefer the faster ``"snap"`` reader."""
    import networkx as nx

    sample = ""
    for _, line in scan_lines(path):
        if line.strip() and not line.lstrip().startswith("#"):
            sample = line
            break
    tokens = sample.split(None, 2)
    if len(tokens) == 3 and not tokens[2].lstrip().startswith("{"):
        data = ((weight, float),)
    else:
        data = True
    _check_edgelist_lines(path, numeric=data is not True)

    def reader(f):
        # a multigraph keeps every line (a plain Graph would keep the last of a repeated pair)
        return nx.read_edgelist(f, nodetype=nodetype, data=data,
                                create_using=nx.MultiDiGraph if symmetrize else nx.MultiGraph)

    return _nx_read(path, reader, "edge lines 'u v' or 'u v {attributes}' (or nodes= for a graph "
                    "without edges)", empty=NoEdgesError,
                    symmetrize=symmetrize, duplicates=duplicates, weight=weight,
                    price=lambda p: check_whole_file_read(p, reader="networkx"))


def _check_edgelist_lines(path, *, numeric: bool) -> None:
    """Refuse, with its line, what :func:`networkx.read_edgelist` would drop silently (a line
    with one token) or fail on without a line number: a third field that is not one number
    (``numeric``: the file's first edge line has ``u v w``) or not a ``{...}`` dict."""
    expected = "'u v w' lines (one number after the pair)" if numeric else \
        "'u v' or 'u v {attributes}' lines"
    for number, line in scan_lines(path):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        tokens = body.split(None, 2)
        if len(tokens) < 2:
            raise GraphFormatError(path, number, line, expected, problem="one token on the line")
        if len(tokens) == 3:
            rest = tokens[2].strip()
            if numeric:
                try:
                    float(rest)
                except ValueError:
                    raise GraphFormatError(path, number, line, expected) from None
            elif not (rest.startswith("{") and rest.endswith("}")):
                raise GraphFormatError(path, number, line, expected)


def write_graphml(data, f):
    import networkx as nx
    nx.write_graphml(to_networkx(data), f)


def write_gml(data, f):
    import networkx as nx
    nx.write_gml(to_networkx(data), f, stringizer=str)


def write_pajek(data, f):
    """NetworkX's Pajek lines of ``data``; a two-mode network (:attr:`GraphData.modes`) as one
    again, ``*vertices n n1`` with its first mode's ``n1`` vertices numbered first, as
    :func:`read_pajek` reads it (a node of unknown mode, added by ``nodes=``, makes it a
    one-mode network, with a :class:`~dpgraph.graph.GraphInputWarning`)."""
    import networkx as nx

    modes = data.modes
    plain = to_networkx(dataclasses.replace(data, modes=None))
    if modes is not None and (modes < 0).any():
        warnings.warn(f"{int(np.count_nonzero(modes < 0))} node(s) have no mode (nodes= added "
                      f"them to a two-mode network): the Pajek file is written as a one-mode "
                      f"network", GraphInputWarning, stacklevel=caller_stacklevel())
        modes = None
    if modes is None:
        nx.write_pajek(plain, f)
        return
    order = np.argsort(modes, kind="stable")  # the first mode first, each in its node order
    H = nx.Graph()
    H.add_nodes_from(data.labels[int(k)] for k in order)
    H.add_edges_from(plain.edges(data=True))
    lines = nx.generate_pajek(H)
    next(lines)  # '*vertices n'
    f.write(f"*vertices {data.n} {int(np.count_nonzero(modes == 0))}\n".encode())
    for line in lines:
        f.write((line + "\n").encode("utf-8"))


def write_nx_edgelist(data, f):
    import networkx as nx

    isolated = int(np.count_nonzero(np.diff(data.weights.indptr) == 0))
    if isolated:
        warnings.warn(f"an edge list cannot store the {isolated} isolated node(s); they are not "
                      f"written", GraphInputWarning, stacklevel=caller_stacklevel())
    # 'u v {'weight': w}', the lines networkx.read_edgelist reads with its defaults (as the
    # format's name promises; 'u v w' lines need its data= argument)
    nx.write_edgelist(to_networkx(data), f, data=True)
