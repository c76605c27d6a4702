"""Reading and writing graph files: ``read_graph``, ``write_graph``, ``detect_format``.

Formats (the ``format=`` names):

========== ============================================ ==============================
name       content                                      labels after reading
========== ============================================ ==============================
gset       G-set / rudy: ``n m`` (or ``n``), ``i j w``   ``1..n``
snap       SNAP edge list ``u v`` / ``u v w``, ``#``     the ids (ints when all are ints)
mtx        Matrix Market (through ``scipy.io``)          ``1..n``
metis      METIS ``.graph`` (fmt weight flags)           ``1..n``
dimacs     DIMACS ``.col``: ``p edge n m``, ``e u v``    ``1..n``
graphml    GraphML (NetworkX)                           node ids (strings)
gml        GML (NetworkX)                               node ``label`` attribute
pajek      Pajek ``.net`` (read as NetworkX reads it)   vertex names (strings)
edgelist   NetworkX edge list (``u v {dict}``)          strings (or ``nodetype=``)
csv        CSV with a header row (``source,target,...``) the ids (ints when all are ints)
========== ============================================ ==============================

The format comes from the extension (``.gz`` stripped: gzip is detected from the content and read
transparently; a ``.gz`` file that is not gzip is read as it is, with a
:class:`~dpgraph.graph.GraphInputWarning` naming it) and, for ambiguous or missing extensions
(``.txt``, ``.dat``, ``.edges``, none), from the first lines of the file (a ``.csv`` file is
CSV: a header row naming the columns, the first two the endpoints, a ``weight`` column the
weights). igraph's NCOL files (``.ncol``: ``name1 name2 [weight]`` lines) are read as SNAP
edge lists, their node ids following ``ids=`` (``ids="str"`` keeps every name a string, as
igraph does); :func:`write_graph` does not write ``.ncol`` (a SNAP edge list, ``.txt``, is
the same layout). igraph's LGL files (``.lgl``) are not read: read them with
``igraph.Graph.Read_Lgl`` and pass the graph. Malformed input raises
:class:`GraphFormatError`, naming the file, the line, the offending text and what was
expected. All files are read as undirected;
directed content (SNAP ``# Directed graph``, GraphML ``edgedefault="directed"``, Pajek
``*Arcs``, a non-symmetric Matrix Market or METIS adjacency) needs ``symmetrize=`` (see
:mod:`dpgraph.graph`).

Duplicate edges follow one rule in every format: a node pair listed more than once (the same
line twice, ``u v`` and ``v u`` in an undirected file, parallel edges of a GraphML or Pajek
multigraph, a METIS neighbour listed twice on one line) is merged by ``duplicates=``:
``"max"`` (the default: one edge with the largest of the listed weights, so weights in [0, 1]
stay there and an edge listed in both directions counts once), ``"sum"`` (the weights added) or
``"error"`` (refused). Every merge gives a :class:`~dpgraph.graph.DuplicateEdgeWarning` that
counts the repeats and names the rule. On the command line it is ``--duplicates``. Read as
arcs (``symmetrize=``), only the same arc twice is a repeat; ``symmetrize`` then combines the
two directions. Writers store labels only where the format has them (SNAP, GraphML, GML,
Pajek, NetworkX edge list); the 1-indexed formats write node index ``k`` as vertex ``k + 1``.

Example
-------
>>> import os, tempfile, networkx as nx, dpgraph
>>> from dpgraph.io import read_graph, write_graph
>>> path = os.path.join(tempfile.mkdtemp(), "karate.txt")
>>> G = nx.karate_club_graph()
>>> write_graph(dpgraph.as_graph_data(G), path, format="gset")  # labels and weights only
>>> read_graph(path)
GraphData(n=34, m=78, weights in [1, 7])
"""

from __future__ import annotations

import contextlib
import gzip
import inspect
import io
import os
import uuid
import zlib
from pathlib import Path

import numpy as np

from dpgraph.graph import (GraphData, WeightSumOverflowError, as_graph_data, public_nodes,
                           unweighted, with_nodes)
from dpgraph.io import library as _lib
from dpgraph.io import text as _text
from dpgraph.io.base import (GraphFormatError, NoEdgesError, check_ids, check_node_set,
                             data_line_numbers, nonfinite_weight_error, open_text, scan_lines,
                             strip_comment, warn_if_not_gzip, weight_sum_format_error)

__all__ = ["read_graph", "write_graph", "detect_format", "check_output_path", "check_writable",
           "atomic_output", "reader_options",
           "output_format",
           "check_labels_storable", "GraphFormatError", "NoEdgesError", "FORMATS"]

# name -> (reader, writer, writer mode: "t" text stream or "b" binary stream)
_REGISTRY = {
    "gset": (_text.read_gset, _text.write_gset, "t"),
    "snap": (_text.read_snap, _text.write_snap, "t"),
    "mtx": (_lib.read_mtx, _lib.write_mtx, "t"),
    "metis": (_text.read_metis, _text.write_metis, "t"),
    "dimacs": (_text.read_dimacs, _text.write_dimacs, "t"),
    "graphml": (_lib.read_graphml, _lib.write_graphml, "b"),
    "gml": (_lib.read_gml, _lib.write_gml, "b"),
    "pajek": (_lib.read_pajek, _lib.write_pajek, "b"),
    "edgelist": (_lib.read_nx_edgelist, _lib.write_nx_edgelist, "b"),
    "csv": (_text.read_csv, _text.write_csv, "t"),
}

#: The format names accepted by ``format=``.
FORMATS = tuple(_REGISTRY)

_EXTENSIONS = {
    ".gset": "gset", ".rud": "gset", ".rudy": "gset",
    ".snap": "snap",
    ".mtx": "mtx", ".mm": "mtx",
    ".graph": "metis", ".metis": "metis",
    ".col": "dimacs", ".dimacs": "dimacs", ".clq": "dimacs",
    ".graphml": "graphml", ".xml": "graphml",
    ".gml": "gml",
    ".net": "pajek", ".pajek": "pajek", ".paj": "pajek",
    ".edgelist": "edgelist",
    ".csv": "csv",
}
# extensions that say "text" but not which text format: decided from the content
_SNIFFED = {"", ".txt", ".dat", ".edges", ".el", ".tsv", ".e", ".g"}
# writing: the plain-text extensions above mean a SNAP edge list ('u<TAB>v[<TAB>w]' lines),
# which detect_format reads back from any of them
_OUTPUT_EXTENSIONS = {**_EXTENSIONS, **{ext: "snap" for ext in _SNIFFED if ext}}
# read, not written: igraph's NCOL file ('name1 name2 [weight]' lines, names without
# whitespace) is a SNAP edge list
_READ_ONLY_EXTENSIONS = {".ncol": "snap"}


def _suffix(path) -> str:
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix
    # "G3" or "G81": a G-set file with no extension; "graph.v2" style numeric tails too
    return suffix


def _sniff(path) -> str | None:
    """Guess the format from the first lines (None when the content does not say)."""
    with open_text(path) as f:
        try:
            head = f.read(65536)
        except UnicodeDecodeError:
            return None
    stripped = head.lstrip()
    low = stripped[:200].lower()
    if low.startswith("%%matrixmarket"):
        return "mtx"
    if low.startswith("<?xml") or low.startswith("<graphml"):
        return "graphml"
    data = []
    for line in head.splitlines()[:-1] if len(head) == 65536 else head.splitlines():
        s = line.strip()
        if not s:
            continue
        low = s.lower()
        if low.startswith("*vertices") or low.startswith("*network"):
            return "pajek"
        if low.startswith(("graph [", "graph[")) or low == "graph":
            return "gml"
        if low.startswith("p ") and low.split()[1:2] in (["edge"], ["col"], ["edges"]):
            return "dimacs"
        if s.startswith(("#", "%")) or low.startswith("c ") or low == "c":
            continue
        tokens = strip_comment(s, ("#", "%")).split()  # '1 2 # note': as the SNAP reader
        if not tokens:
            continue
        data.append(tokens)
        if len(data) >= 3:
            break
    if not data:
        return None
    if len(data[0]) >= 3 and data[0][2].startswith("{"):
        return "edgelist"

    def ints(tokens):
        return all(t.lstrip("-").isdigit() for t in tokens)

    if len(data) >= 2 and len(data[0]) in (1, 2) and ints(data[0]) and len(data[1]) == 3:
        return "gset"
    if len(data) == 1 and len(data[0]) in (1, 2) and ints(data[0]) and len(data[0]) == 1:
        return "gset"  # a header 'n' alone: n isolated vertices
    if all(len(t) == len(data[0]) for t in data) and len(data[0]) in (2, 3):
        return "snap"
    return None


def detect_format(path, *, nodes=None) -> str:
    """Return the format name of ``path`` from its extension and, where that is ambiguous
    (``.txt``, ``.dat``, ``.edges``, none), from its first lines. ``nodes`` (the public node
    set, :func:`read_graph`): given, a file without data lines is an edge list that lists no
    edge (``"snap"``); otherwise it raises :class:`NoEdgesError`.

    Content rules: ``%%MatrixMarket`` -> mtx; ``<?xml``/``<graphml`` -> graphml; ``graph [`` ->
    gml; ``*Vertices`` -> pajek; a ``p edge`` line -> dimacs; a third field starting with ``{``
    -> edgelist; a header of one or two integers followed by three-field lines -> gset; lines of
    two or three fields throughout -> snap. METIS and CSV are recognised by their extensions
    only (``.graph``, ``.metis``; ``.csv``): their lines look like other formats. igraph's
    ``.ncol`` is snap.

    Raises
    ------
    GraphFormatError
        Unknown extension, or content that matches no format; the message lists the formats.
    FileNotFoundError
        ``path`` does not exist.

    Examples
    --------
    >>> import os, tempfile, networkx as nx
    >>> path = os.path.join(tempfile.mkdtemp(), "cycle.txt")
    >>> write_graph(nx.cycle_graph(4), path, format="gset")  # '.txt': the content tells
    >>> detect_format(path)
    'gset'
    >>> write_graph(nx.cycle_graph(4), path)  # '.txt' is written as a SNAP edge list
    >>> detect_format(path)
    'snap'
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such graph file: {path}")
    with _decoding_errors(path, lambda: "a graph file"):
        try:
            return _detect(path)
        except NoEdgesError:
            if nodes is None:
                raise
            return "snap"


def _detect(path) -> str:
    suffix = _suffix(path)
    known = ", ".join(FORMATS)
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    if suffix in _READ_ONLY_EXTENSIONS:
        return _READ_ONLY_EXTENSIONS[suffix]
    if suffix not in _SNIFFED and not suffix[1:].isdigit():
        reader = _OTHER_LIBRARY_ONLY.get(suffix)
        hint = (f"; dpgraph does not read {reader[0]}: read it with {reader[1]} and "
                f"pass the graph (or write it with dpgraph.write_graph as an edge list)"
                if reader else "")
        raise GraphFormatError(path, None, suffix, f"a known extension or format= one of "
                               f"{known}{hint}", problem="unknown file extension")
    found = _sniff(path)
    if found is None:
        if os.path.getsize(path) == 0 or not _has_data(path):
            raise NoEdgesError(path, None, None, f"graph data (or pass format= one of {known}; "
                               f"nodes= reads an edge list without edges)",
                               problem="the file is empty (no data lines)")
        number, line, why = _unlike_an_edge_list(path)
        hint = ("; comma-separated lines with a header row are CSV: format='csv'"
                if _first_data_line_has_comma(path) else "")
        raise GraphFormatError(path, number, line, f"format= one of {known}{hint}",
                               problem="cannot tell the format from the content" + why)
    return found


#: extensions of NetworkX and igraph formats dpgraph does not read: what they hold, the
#: library's reader
_OTHER_LIBRARY_ONLY = {".adjlist": ("adjacency lists", "networkx.read_adjlist(path)"),
                       ".gexf": ("GEXF", "networkx.read_gexf(path)"),
                       ".g6": ("graph6", "networkx.read_graph6(path)"),
                       ".graph6": ("graph6", "networkx.read_graph6(path)"),
                       ".s6": ("sparse6", "networkx.read_sparse6(path)"),
                       ".sparse6": ("sparse6", "networkx.read_sparse6(path)"),
                       ".lgl": ("LGL adjacency lists ('# name' lines, then its neighbours)",
                                "igraph.Graph.Read_Lgl(path)")}


def _unlike_an_edge_list(path) -> tuple:
    """``(line number, line, reason)`` of the first of the first data lines whose field count
    differs from the first one's (what kept the content from reading as an edge list), or
    ``(None, None, "")``."""
    first = None
    for number, line in scan_lines(path):
        s = line.strip()
        if not s or s.startswith(("#", "%")):
            continue
        fields = len(strip_comment(s, ("#", "%")).split())
        if first is None:
            first = (number, fields, line)
            continue
        if fields != first[1]:
            adjacency = ("; lines 'u v1 v2 ...' of varying length are an adjacency list, "
                         "which networkx.read_adjlist reads" if max(fields, first[1]) > 3 else "")
            return number, line, (f" (line {first[0]} has {first[1]} field(s), this one "
                                  f"{fields}; an edge list has the same 2 or 3 on every "
                                  f"line{adjacency})")
        if number > first[0] + 50:
            break
    if first is not None and first[1] > 3:  # 'u v w t' (a timestamp, KONECT's out.* files)
        return first[0], first[2], (f" (every line has {first[1]} fields; an edge list has 2, "
                                    f"'u v', or 3, 'u v w': keep the first 2 or 3 columns)")
    if first is not None and first[1] == 1:  # a list of node ids given as the graph
        return first[0], first[2], (" (every line has 1 field; an edge list has 2, 'u v', or "
                                    "3, 'u v w': a file of node ids is the node set (nodes=), "
                                    "given beside the graph file)")
    return None, None, ""


def _first_data_line_has_comma(path) -> bool:
    for _, line in scan_lines(path):
        s = line.strip()
        if s and not s.startswith(("#", "%")):
            return "," in s
    return False


def _has_data(path) -> bool:
    """Whether the file holds a line that is neither blank nor a ``#`` / ``%`` comment."""
    for _, line in scan_lines(path):
        s = line.strip()
        if s and not s.startswith(("#", "%")):
            return True
    return False


#: formats whose vertices are numbered from 1 (vertex ``k + 1`` is node index ``k``)
ONE_INDEXED = ("gset", "mtx", "metis", "dimacs")


def first_node_id(fmt: str) -> int:
    """The first node id of a file of format ``fmt``: 1 for :data:`ONE_INDEXED`, else 0 (so
    that ``nodes=N`` means that format's ``N`` first ids)."""
    return 1 if fmt in ONE_INDEXED else 0


def reader_options(fmt: str) -> frozenset:
    """The keyword options the reader of format ``fmt`` takes (``symmetrize``, ``weight``,
    ``ids``, ...), read from its signature; empty for an unknown format.

    >>> "symmetrize" in reader_options("snap"), "weight" in reader_options("snap")
    (True, False)
    """
    import inspect

    entry = _REGISTRY.get(fmt)
    if not entry:
        return frozenset()
    return frozenset(inspect.signature(entry[0]).parameters) - {"path"}


def read_graph(path, format: str | None = None, *, nodes=None, **kw) -> GraphData:
    """Read a graph file into :class:`~dpgraph.graph.GraphData`.

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip-compressed files are read transparently (told from the content: a
        file named ``.gz`` that is not gzip is read as it is, with a
        :class:`~dpgraph.graph.GraphInputWarning` naming it).
    format : str, optional
        One of :data:`FORMATS`; detected by :func:`detect_format` when omitted.
    **kw
        Options of the format's reader: ``symmetrize`` (snap, csv, mtx, metis and the NetworkX
        formats), ``duplicates`` (every format: ``"max"``, the default, ``"sum"`` or
        ``"error"``; see the module docstring), ``weight`` (NetworkX
        formats: the edge attribute; csv: the weight column's name; a name other than the
        default ``"weight"`` that no edge carries is refused, in every format; every format:
        ``weight=None`` reads every edge as weight 1, as NetworkX does), ``label`` (gml),
        ``nodetype`` (edgelist), and ``ids`` (snap and csv): what the node ids are.
        ``ids="auto"`` (the default) follows the file: its ``# ids: str`` comment line if it
        has one (:func:`write_graph` writes it in SNAP files for string labels that look like
        numbers, such as ``'007'``; in CSV files it quotes those ids, ``"007"``, and a first
        id in double quotes under an unquoted header row makes every id a name), else its
        first edge line (integer ids
        there make every id a Python int, and a name later is refused with its line; names
        there make every id a string, and an integer later is refused); ``ids="str"`` reads
        every id as a string (``'007'``
        stays ``'007'``); ``ids="int"`` requires integers. A first line that looks like a
        header row (``source target``) is refused, not read as an edge: comment it out with
        ``#``, or read a file with a header row as ``csv``.
    nodes : int or sequence of labels, optional
        The public node set (:func:`dpgraph.graph.with_nodes`): an integer ``N`` for the ids
        ``0..N-1`` (``1..N`` in the 1-indexed formats gset, mtx, metis and dimacs), or the
        labels in the order the graph should keep. Nodes without an edge
        become isolated nodes, and a node of the file that is not in ``nodes`` is refused.
        An edge list names only nodes that have an edge, so without it a node whose only
        edge is removed vanishes from the graph and from every answer on it, which tells the
        two graphs apart: edge-level privacy protects graphs on one public node set
        (docs/privacy.md 4). Default: the nodes the file names. Its size is priced before
        the file is read (:func:`~dpgraph.io.base.check_node_set`): a node set that would not
        fit in memory raises :class:`~dpgraph.memory.InsufficientMemoryError` naming
        ``nodes=`` and how many nodes fit.

    Returns
    -------
    GraphData

    Raises
    ------
    GraphFormatError
        Malformed content, naming the file, the line, the text and what was expected.
    FileNotFoundError
        No such file.
    IsADirectoryError
        ``path`` is a folder.

    Examples
    --------
    >>> import os, tempfile, networkx as nx
    >>> path = os.path.join(tempfile.mkdtemp(), "karate.txt")
    >>> write_graph(nx.Graph(nx.karate_club_graph().edges()), path, weight=None)
    >>> g = read_graph(path)  # a SNAP edge list, told from its content
    >>> g.n, g.m
    (34, 78)
    >>> read_graph(path, nodes=40).n  # the public node set: 6 more nodes, without edges
    40
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        what = (f"an open file ({type(path).__name__}); pass its path, e.g. f.name"
                if hasattr(path, "read") else type(path).__name__)
        raise TypeError(f"read_graph reads a file by its path (a str or os.PathLike), got "
                        f"{what}")
    path = os.fsdecode(path)  # a bytes path as the str the messages and readers use
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a folder, not a graph file: read_graph reads one "
                                f"file (a folder of edge files: dpgraph.io.dask.read_edge_files)")
    if not os.path.isfile(path):
        hint = ""
        if not os.path.splitext(path)[1] and os.sep not in path and "/" not in path:
            hint = (f" (a data set name such as 'karate' or 'G3' is loaded with "
                    f"dpgraph.datasets.load({path!r}))")
        raise FileNotFoundError(f"no such graph file: {path}{hint}")
    fmt = "graph" if format is None else _check_format(format)
    _check_reading_options(kw)
    warn_if_not_gzip(path)
    check_node_set(nodes, path)  # before the file is read: nodes=N is refused at once
    with _decoding_errors(path, lambda: fmt):
        if format is None:
            fmt = detect_format(path, nodes=nodes)
        reader = _REGISTRY[fmt][0]
        drop_weights = "weight" in kw and kw["weight"] is None
        options = inspect.signature(reader).parameters
        if drop_weights and "weight" not in options:
            kw.pop("weight")  # a format whose reader has no attribute to choose: read, then drop
        unknown = [key for key in kw if key not in options]
        if unknown:  # not the reader's own "read_gset() got an unexpected keyword argument"
            raise TypeError(_option_refusal(path, fmt, unknown[0], options))
        try:
            data = reader(path, **kw)
        except NoEdgesError:
            if nodes is None:
                raise
            return _without_edges(nodes, fmt)
        except GraphFormatError:
            raise
        except WeightSumOverflowError as exc:  # one type from every reader, lines named
            raise weight_sum_format_error(path, exc, _overflow_lines(path, fmt, exc)) from None
        except ValueError as exc:  # from_coo saw a non-finite weight: find its line
            located = nonfinite_weight_error(path, **_WEIGHT_COLUMN[fmt]) \
                if "non-finite edge weight" in str(exc) and fmt in _WEIGHT_COLUMN else None
            if located is None:
                raise
            raise located from None
        data = unweighted(data) if drop_weights else data
    if nodes is None:
        return data
    check_node_set(nodes, path, entries=data.weights.nnz)  # with_nodes copies the CSR
    return with_nodes(data, nodes, source=path, first=first_node_id(fmt))


def _option_refusal(path, fmt: str, key: str, options) -> str:
    """The refusal of a ``read_graph`` option ``key`` that the reader of ``fmt`` does not
    take, naming the options it does take."""
    takes = [name for name in options if name != "path"]
    why = ""
    if key == "weight":
        why = (f" (a {fmt} file keeps its weights in a fixed place; weight= names the weight "
               f"column of a csv file or the edge attribute of a graphml, gml, pajek or "
               f"edgelist file, and weight=None reads every edge as weight 1)")
    elif key == "symmetrize":
        why = f" (a {fmt} file is undirected by definition)"
    return (f"read_graph: {path} is read as {fmt}, whose reader takes no {key}={why}; its "
            f"options: {', '.join(f'{name}=' for name in takes)}")


def _check_reading_options(kw: dict) -> None:
    """The options every reader shares, checked before the file is read: a bad value is
    refused whatever the file holds (a file without edges included, which reads on ``nodes=``
    without reaching the reader's own checks)."""
    from dpgraph.graph import check_duplicates, check_symmetrize

    if "duplicates" in kw:
        check_duplicates(kw["duplicates"])
    check_symmetrize(kw.get("symmetrize"))
    if "ids" in kw:
        check_ids(kw["ids"])


def _without_edges(nodes, fmt: str) -> GraphData:
    """The graph of an edge-list file that lists no edge: the public nodes, all isolated."""
    import scipy.sparse as sp

    labels = public_nodes(nodes, first=first_node_id(fmt))
    return GraphData(sp.csr_array((len(labels), len(labels)), dtype=np.float64), labels)


def _overflow_lines(path, fmt: str, exc) -> list | None:
    """The line numbers of the listings of the node pair whose weights' sum overflowed
    (``exc.entries``: positions among the edges, in file order) in the one-edge-per-line
    formats, or None (a degree or the total, or another format)."""
    if exc.entries is None:
        return None
    if fmt == "csv":
        return _text.csv_row_lines(path, exc.entries)
    comments, skip = {"snap": (("#", "%"), 0), "gset": (("#", "%"), 1),
                      "dimacs": (("c",), 1)}.get(fmt, (None, 0))
    if comments is None:
        return None
    return data_line_numbers(path, exc.entries, comments=comments, skip=skip)


# where the text formats keep an edge's weight: its token (0-based) and the first body line
_WEIGHT_COLUMN = {"snap": {"column": 2}, "gset": {"column": 2, "start": 2}}


@contextlib.contextmanager
def _decoding_errors(path, fmt):
    """Re-raise what undecodable bytes and broken gzip streams raise below the readers as
    :class:`GraphFormatError` naming the file (each of them escapes some malformed input)."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise GraphFormatError(path, None, None, f"UTF-8 text in {fmt()} format",
                               problem=f"undecodable byte at offset {exc.start}") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # a gzip file cut short or corrupted
        raise GraphFormatError(path, None, None, "a complete, intact gzip stream",
                               problem=f"the compressed file is truncated or corrupted "
                                       f"({type(exc).__name__}: {exc})") from None


def _check_format(format) -> str:
    if format not in _REGISTRY:
        raise ValueError(f"format={format!r} is not one of {', '.join(FORMATS)}")
    return format


def output_format(path) -> str:
    """The format :func:`write_graph` uses for ``path`` when no ``format=`` is given: from the
    extension (``.gz`` aside); the plain-text extensions (``.txt``, ``.edges``, ``.el``,
    ``.tsv``, ``.dat``, ...) mean a SNAP edge list, which :func:`read_graph` reads back.

    Examples
    --------
    >>> output_format("out.txt"), output_format("out.graphml.gz"), output_format("g.mtx")
    ('snap', 'graphml', 'mtx')
    """
    suffix = _suffix(os.fspath(path))
    if suffix not in _OUTPUT_EXTENSIONS:
        raise ValueError(f"cannot tell the output format of {os.fspath(path)!r} from its "
                         f"extension (use one of: {', '.join(sorted(_OUTPUT_EXTENSIONS))}; or "
                         f"pass format= one of {', '.join(FORMATS)})")
    return _OUTPUT_EXTENSIONS[suffix]


def check_output_path(path, format: str | None = None) -> str:
    """Check, before any work is done, that :func:`write_graph` can write ``path``: the format
    is known (``format=`` or the extension) and the directory exists and is writable. Returns
    the format. The CLI calls it before spending any privacy budget.

    Examples
    --------
    >>> check_output_path("out.graphml")
    'graphml'
    """
    path = os.fspath(path)
    if os.path.isdir(path):  # a folder: said as such, not as a folder name without extension
        check_writable(path)
    if format is None:
        format = output_format(path)
    format = _check_format(format)
    check_writable(path)
    return format


def check_writable(path, option: str | None = None) -> None:
    """Refuse, before any work, a ``path`` that cannot be written (named as ``option``, e.g.
    ``"--out"``, where given): a missing folder, a directory, a folder or file without write
    permission. The file is opened as a writer would open it (an existing one for appending,
    left as it was; a new one created and removed), which also catches what the permission
    bits do not tell (a folder of ``/proc``, a read-only file as root).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_writable(os.path.join(folder, "out.txt"))  # writable: no error, no file left
    >>> os.listdir(folder)
    []
    >>> try:
    ...     check_writable(folder, "--out")
    ... except IsADirectoryError as e:
    ...     print(str(e).split(": ", 1)[1])
    it is a directory; name a file in it
    """
    path = os.fspath(path)
    name = f"{option} {path!r}" if option else repr(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write {name}: no such directory {folder!r}")
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot write {name}: it is a directory; name a file in it")
    existed = os.path.exists(path)
    if not os.access(folder, os.W_OK) or (existed and not os.access(path, os.W_OK)):
        raise PermissionError(f"cannot write {name}: permission denied")
    try:
        with open(path, "a" if existed else "x"):
            pass
    except OSError as exc:
        raise PermissionError(f"cannot write {name}: {exc.strerror or exc}") from None
    if not existed:
        os.remove(path)


def write_graph(graph, path, format: str | None = None, *,
                weight: str | None = "weight", symmetrize: str | None = None) -> None:
    """Write ``graph`` (anything :func:`~dpgraph.graph.as_graph_data` accepts) to ``path``.

    The format comes from ``format=`` or the extension (``.gz`` compresses). Formats without
    labels (gset, mtx, metis, dimacs) write node index ``k`` as vertex ``k + 1``. ``weight``
    names the edge attribute of NetworkX / igraph input (``None``: every edge weight 1).
    Every format holds an undirected graph: a directed one is refused unless ``symmetrize``
    (``"max"``, ``"sum"`` or ``"mean"``, as in :func:`~dpgraph.graph.as_graph_data`) says how
    its two arcs of a pair make one edge.
    Labels the format cannot give back are refused before the file is opened
    (:func:`check_labels_storable`); string labels that would read back as numbers
    (``'007'``) get a ``# ids: str`` comment line in SNAP files and double quotes in CSV files
    (``"007"``; the header row stays the first line, which ``pandas.read_csv`` reads), which
    :func:`read_graph` follows, so they read back as the same strings. Labels of mixed types
    (``[100, 101, "x"]``, ``[1, 2.5]``) are written so too: they read back as strings
    (``'100'``, ``'101'``, ``'x'``), the integers' text included (:func:`read_graph` orders
    the labels by sorted id). GraphML, GML, Pajek and NetworkX edge-list (edgelist) files hold
    every label as text, and :func:`read_graph` gives their labels back as strings, as
    NetworkX's readers do: integer labels ``0, 1, ...`` read back as ``'0', '1', ...`` (SNAP
    and CSV files give integer ids back as integers), other labels (tuples, floats) as their
    text (in GML, the text NetworkX's GML writer gives them: ``(1, 'a')`` as ``"(1,'a')"``,
    ``1e20`` as ``"1.E+20"``; a label ``"()"`` reads back as the empty tuple). The file is
    written next to ``path`` and moved onto it when complete, so a failed write leaves an
    existing file as it was.

    Labels other than the integers ``0..n-1`` or ``1..n`` written to a format without labels
    (gset, mtx, metis, dimacs) get a :class:`~dpgraph.graph.GraphInputWarning`: they are lost.

    The edge-list formats (snap, csv, edgelist) list edges only: isolated nodes are left out (a
    :class:`~dpgraph.graph.GraphInputWarning` counts them), and a graph without edges gives a
    file with no edge line, which :func:`read_graph` refuses (it needs one edge line to tell
    and read these formats); a :class:`~dpgraph.graph.GraphInputWarning` says so before
    writing. GraphML, GML and Pajek list every node (``.graphml``, ``.gml``, ``.net``; gset,
    mtx, metis and dimacs keep the node count, as vertices ``1..n``).

    Only the labels and the weights are written: the other node, edge and graph attributes of
    a NetworkX or igraph graph are not, and a :class:`~dpgraph.graph.GraphInputWarning` names
    them (NetworkX's own writers keep them). A two-mode network read from a Pajek file keeps
    its modes (:attr:`~dpgraph.graph.GraphData.modes`) in GraphML and GML (the node attribute
    ``bipartite``) and Pajek (``*Vertices n n1``); the other formats hold none, and a
    :class:`~dpgraph.graph.GraphInputWarning` says so.

    Examples
    --------
    >>> import os, tempfile, networkx as nx
    >>> folder = tempfile.mkdtemp()
    >>> G = nx.Graph([("alice", "bob", {"weight": 0.5}), ("bob", "carol", {"weight": 1.0})])
    >>> write_graph(G, os.path.join(folder, "g.graphml"))
    >>> g = read_graph(os.path.join(folder, "g.graphml"))
    >>> tuple(g.labels), float(g.weights[g.index["alice"], g.index["bob"]])
    (('alice', 'bob', 'carol'), 0.5)
    >>> write_graph(G, os.path.join(folder, "g.txt.gz"))  # SNAP edge list, compressed
    >>> read_graph(os.path.join(folder, "g.txt.gz")).m
    2
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        what = (f"an open file ({type(path).__name__}); pass its path, e.g. f.name"
                if hasattr(path, "write") else type(path).__name__)
        swapped = ("; the graph comes first: write_graph(graph, path)"
                   if isinstance(graph, (str, os.PathLike)) else "")
        raise TypeError(f"write_graph writes a file by its path (a str or os.PathLike), got "
                        f"{what}{swapped}")
    path = os.fsdecode(path)  # a bytes path as the str the messages and writers use
    if format is None:
        format = output_format(path)
    format = _check_format(format)
    _, writer, mode = _REGISTRY[format]
    data = as_graph_data(graph, weight=weight, symmetrize=symmetrize)
    check_labels_storable(data.labels, format)
    if format == "metis":  # a refusal comes before the warnings about what the file lacks
        _text.check_metis_weights(data)
    import warnings

    from dpgraph.caller import caller_stacklevel
    from dpgraph.graph import GraphInputWarning

    dropped = _attributes_not_written(graph, weight)
    if dropped:
        warnings.warn(f"{path}: write_graph writes the node labels and the edge weights only; "
                      f"{dropped} are not written (the libraries' own writers, e.g. "
                      f"networkx.write_graphml or igraph's Graph.write_graphml, keep them)", GraphInputWarning,
                      stacklevel=caller_stacklevel())
    if format in ("gset", "mtx", "metis", "dimacs") and not _numbered(data.labels):
        warnings.warn(f"{path}: a {format} file stores no node labels: node k is written as "
                      f"vertex k + 1 and reads back so ({data.labels[0]!r} as 1); write SNAP, "
                      f"CSV, GraphML, GML or Pajek (.txt, .csv, .graphml, .gml, .net) to keep "
                      f"the labels", GraphInputWarning, stacklevel=caller_stacklevel())
    if data.modes is not None and format not in ("graphml", "gml", "pajek"):
        warnings.warn(f"{path}: the graph is a two-mode network and a {format} file stores no "
                      f"node modes: they are not written; write GraphML, GML or Pajek "
                      f"(.graphml, .gml, .net) to keep them", GraphInputWarning,
                      stacklevel=caller_stacklevel())
    if data.m == 0 and format in ("snap", "csv", "edgelist"):
        warnings.warn(f"{path}: the graph has no edges and an edge-list file ({format}) lists edges only: "
                      f"the file will hold none of its {data.n:,} node(s): read it back with "
                      f"read_graph(path, nodes={data.n}) (or --nodes {data.n}), which gives "
                      f"nodes 0..{data.n - 1}, or write GraphML, GML or Pajek (.graphml, .gml, "
                      f".net), which list every node and its label", GraphInputWarning,
                      stacklevel=caller_stacklevel())
    # a writer's error (a label or weight the format cannot store) leaves an existing file
    # as it was: atomic_output writes next to it and moves the file on only when complete
    with atomic_output(path) as raw:
        _write_stream(writer, data, raw, mode, path.lower().endswith(".gz"), path)


@contextlib.contextmanager
def atomic_output(path):
    """Open ``path`` for writing bytes so that it is written whole or not at all: the bytes go
    to a hidden file next to it (``.<name>.<random>.part``, in the same folder, so on the
    same file system), which replaces ``path`` (:func:`os.replace`, atomic) only when the
    ``with`` block ends without an error; on an error (a full disk, an interrupted run, a
    value the writer refuses) the hidden file is removed and an existing ``path`` is left as
    it was. A symbolic link is written through, as :func:`open` writes it; an existing file
    keeps its permission bits, a new one gets ``0o666`` less the umask, as :func:`open`
    gives. A ``path`` that is not a regular file (a device such as ``/dev/null``, a named
    pipe) is written in place; a folder that does not exist is refused naming ``path``
    (:class:`FileNotFoundError`). Every output file of dpgraph is written through it
    (:func:`write_graph`, the command line's ``--out`` files, ``write_csp``, the benchmark
    plot).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_output(path) as f:
    ...     _ = f.write(b"first\\n")
    >>> try:
    ...     with atomic_output(path) as f:
    ...         _ = f.write(b"half of a sec")
    ...         raise OSError("disk full")
    ... except OSError:
    ...     pass
    >>> open(path).read(), os.listdir(os.path.dirname(path))  # as it was, no part left
    ('first\\n', ['out.txt'])
    """
    path = os.fspath(path)
    target = os.path.realpath(path)  # through a symbolic link, as open() writes
    if os.path.exists(target) and not os.access(target, os.W_OK):  # as open() would refuse
        raise PermissionError(f"cannot write {path!r}: permission denied")
    if os.path.exists(target) and not os.path.isfile(target):  # a device or a pipe: in place
        with open(target, "wb") as raw:
            yield raw
        return
    if not os.path.isdir(os.path.dirname(target)):  # named as check_writable names it, not
        # by the hidden file that could not be created in it
        raise FileNotFoundError(f"cannot write {path!r}: no such directory "
                                f"{os.path.dirname(os.path.abspath(path))!r}")
    tmp = os.path.join(os.path.dirname(target),
                       f".{os.path.basename(target)}.{uuid.uuid4().hex[:12]}.part")
    # mode 0o666 less the umask, as open() would create the file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as raw:
            yield raw
        with contextlib.suppress(OSError):  # an existing file keeps its permissions
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _numbered(labels) -> bool:
    """Whether ``labels`` are the integers ``0..n-1`` or ``1..n`` in order: the numbering a
    format without labels keeps (node ``k`` written as vertex ``k + 1``).

    >>> _numbered(range(5)), _numbered([1, 2, 3]), _numbered(["a", "b"]), _numbered([0, 2])
    (True, True, False, False)
    """
    if isinstance(labels, range):
        return labels.step == 1 and labels.start in (0, 1)
    start = labels[0] if len(labels) else 0
    return (type(start) is int and start in (0, 1)
            and all(type(x) is int and x == start + k for k, x in enumerate(labels)))


def _attributes_not_written(graph, weight: str | None) -> str:
    """The attributes of a NetworkX or igraph ``graph`` that :func:`write_graph` does not write
    (every node, edge and graph attribute but the edge ``weight`` and the labels), as text for
    its warning; ``""`` when there are none or ``graph`` is not a library graph. One pass over
    the nodes and edges.

    >>> import networkx as nx
    >>> _attributes_not_written(nx.karate_club_graph(), "weight")
    "node attributes ['club'] and graph attributes ['name']"
    """
    kinds = []
    if hasattr(graph, "nodes") and hasattr(graph, "edges") and hasattr(graph, "graph"):
        nodes = sorted({k for _, d in graph.nodes(data=True) for k in d}, key=str)
        edges = sorted({k for *_, d in graph.edges(data=True) for k in d} - {weight}, key=str)
        kinds = [("node", nodes), ("edge", edges), ("graph", sorted(graph.graph, key=str))]
    elif hasattr(graph, "vs") and hasattr(graph, "es"):  # igraph
        kinds = [("vertex", sorted(set(graph.vs.attributes()) - {"name", "_nx_name"})),
                 ("edge", sorted(set(graph.es.attributes()) - {weight})),
                 ("graph", sorted(graph.attributes()))]
    parts = [f"{what} attributes {names}" for what, names in kinds if names]
    return " and ".join(parts) if len(parts) < 3 else f"{parts[0]}, {parts[1]} and {parts[2]}"


def _write_stream(writer, data, raw, mode: str, compress: bool, path: str) -> None:
    """Run ``writer`` on the binary stream ``raw``: gzip-compressed when ``compress`` (the
    header naming ``path``), through a UTF-8 text layer for text writers (``mode == "t"``)."""
    if compress:
        with gzip.GzipFile(filename=os.path.basename(path), mode="wb", fileobj=raw) as gz:
            _write_stream(writer, data, gz, mode, False, path)
    elif mode == "t":
        f = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
        writer(data, f)
        f.flush()
        f.detach()  # the caller closes the binary stream
    else:
        writer(data, raw)


# Formats that store node labels as text tokens, and the readers' constraints on them.
_TOKEN_LABELS = {"snap": "a SNAP edge list", "edgelist": "an edge list", "csv": "a CSV file"}
_TEXT_LABELS = {"graphml": "GraphML", "gml": "GML", "pajek": "Pajek"}


def check_labels_storable(labels, format: str) -> None:
    """Refuse, before anything is written (or any budget spent), node ``labels`` that
    ``format`` cannot store so that :func:`read_graph` gives them back: in edge lists (``snap``,
    ``edgelist``) a label must be a non-empty token without whitespace that does not start
    with a comment character (in CSV: non-empty, without leading or trailing whitespace or a
    line break); in every labelled format two labels must not read back as the same text
    (``1`` and ``"1"``; ``"01"`` and ``"1"`` in a NetworkX edge list; ``"01"`` and ``1`` in a
    SNAP or CSV file, which writes labels that are not all integers with a ``# ids: str`` line
    or quoted and reads them back as strings, the integer ``1`` as ``"1"``: an integer and a string label
    that spell the same number are refused there, while a file of string labels only gives
    them back exactly, ``"01"`` and ``"1"`` included); Pajek cannot store an empty label or one with a tab, a
    line break or a double quote; GraphML (XML, also written for ``.xml``) cannot store a
    character XML 1.0 does not allow (a control character other than tab, line feed and
    carriage return, such as ``"\\x00"`` or ``"\\x1b"``; a lone surrogate; ``U+FFFE``,
    ``U+FFFF``): the file would not parse. In GML the text compared is the one NetworkX's GML
    writer writes (a tuple ``(1,)`` as ``"(1)"``, a float as ``repr(x).upper()``) as its
    reader reads it back (``"()"`` as the empty tuple), so ``(1,)`` and ``"(1)"`` are refused;
    so are a label written as non-ASCII text or with a double quote inside (a tuple
    ``("é",)``, ``('a"b',)``: the writer fails, the file would not parse) and ``"[]"`` (read
    back as a list). Formats without labels (gset, mtx, metis, dimacs) write node indices
    and accept any labels.

    >>> check_labels_storable(["a", "b"], "snap")
    >>> check_labels_storable(range(10**12), "snap")  # a range: distinct integers, no loop
    >>> check_labels_storable(["01", "1"], "snap")  # strings: written with '# ids: str'
    >>> check_labels_storable(["01", 1], "snap")
    Traceback (most recent call last):
    ...
    ValueError: a SNAP edge list cannot store both node labels '01' and 1: they read back as the same text '1'; relabel first
    >>> check_labels_storable([1, "1"], "graphml")
    Traceback (most recent call last):
    ...
    ValueError: GraphML cannot store both node labels 1 and '1': they read back as the same text '1'; relabel first
    >>> check_labels_storable([(1,), "(1)"], "gml")
    Traceback (most recent call last):
    ...
    ValueError: GML cannot store both node labels (1,) and '(1)': they read back as the same text '(1)'; relabel first
    >>> check_labels_storable(["a", "b\\x00"], "graphml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: GraphML (XML) cannot store node label 'b\\x00': it holds the character ...
    """
    import re

    format = _check_format(format)
    name = _TOKEN_LABELS.get(format) or _TEXT_LABELS.get(format)
    if name is None or isinstance(labels, range):
        # distinct integers are distinct tokens in every format: nothing to check (a check
        # of each label took 70 of 119 s of a 5-million-node synth)
        return
    # string labels only: a SNAP file records '# ids: str', a CSV file quotes them, and both
    # read them back as they are, '01' and '1' included (write_snap, write_csv)
    as_strings = format in ("snap", "csv") and all(isinstance(x, str) for x in labels)
    check = (_text.check_csv_label if format == "csv" else
             (lambda x: _text.check_label_token(x, name)))
    # the characters XML 1.0 does not allow (networkx writes them as they are, or as character
    # references that no parser reads back): the only XML format here is GraphML
    xml_bad = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
    if format == "gml":  # labels as NetworkX's GML writer writes them and its reader reads them
        labels = list(labels)
        texts = iter(_gml_read_back(labels))
    seen = {}
    for label in labels:
        s = (check(label) if format in _TOKEN_LABELS else
             next(texts) if format == "gml" else str(label))
        if format == "graphml" and (bad := xml_bad.search(s)):
            ch = bad.group()
            raise ValueError(f"GraphML (XML) cannot store node label {label!r}: it holds the "
                             f"character {ch!r} (U+{ord(ch):04X}), which XML 1.0 does not allow "
                             f"(read_graph could not parse the file); relabel first, or write "
                             f"GML or Pajek")
        if format == "pajek" and (not s or any(ch in s for ch in '\t\n\r"')):
            raise ValueError(f"Pajek cannot store node label {label!r} (empty, or containing a "
                             f"tab, a line break or a double quote); relabel first")
        if format in _TOKEN_LABELS and not as_strings:  # integer ids read "01" and "1" as 1
            try:
                s = str(int(s))
            except ValueError:
                pass
        if s in seen:
            what = "text" if isinstance(s, str) else "value"
            raise ValueError(f"{name} cannot store both node labels {seen[s]!r} and {label!r}: "
                             f"they read back as the same {what} {s!r}; relabel first")
        seen[s] = label


def _gml_read_back(labels) -> list:
    """What :func:`read_graph` gives back for each of ``labels`` (in order) from a GML file
    that :func:`write_graph` wrote: the text ``networkx.generate_gml`` writes as the label
    (``stringizer=str``, as :func:`~dpgraph.io.library.write_gml` calls it), read back as
    ``networkx.parse_gml`` reads it (XML character references undone; ``"()"`` read as the
    empty tuple). Strings read back as they are and integers as ``str(x)``; every other
    label (tuples: ``"(1,'a')"``; floats: ``repr(x).upper()``, ``"1.E+20"``) is written by
    NetworkX's own generator, on one graph holding those labels as nodes. Refuses a label
    that NetworkX writes as non-ASCII text (its writer fails), or as text holding a double
    quote (no GML parser reads it), or as ``"[]"`` (read back as a list, which cannot be a
    node)."""
    import networkx as nx
    from networkx.readwrite.gml import generate_gml, unescape

    others = [x for x in labels if not isinstance(x, (str, int))]
    graph = nx.Graph()
    graph.add_nodes_from(others)
    if len(graph) < len(others):  # labels equal in Python (0.0, -0.0) are one node: one graph each
        lines = [line for x in others for line in generate_gml(_one_node(x), str)]
    else:
        lines = generate_gml(graph, str)
    prefix = '    label "'
    written = iter([line[len(prefix):-1] for line in lines if line.startswith(prefix)])
    out = []
    for label in labels:
        if isinstance(label, (str, int)):  # escape(str(x)) and str(x): the reader gives str(x)
            value = str(label)
        else:
            text = next(written)
            if not text.isascii() or '"' in text:
                why = ("which is not ASCII (its writer fails)" if not text.isascii() else
                       "whose double quote ends the quoted label (the file would not parse)")
                raise ValueError(f"GML cannot store node label {label!r}: NetworkX's GML "
                                 f"writer writes it as {text!r}, {why}; relabel first")
            value = unescape(text)  # as parse_gml reads a quoted value
        if value == "[]":
            raise ValueError(f"GML cannot store node label {label!r}: NetworkX's GML reader "
                             f"reads it back as an empty list, which cannot be a node; relabel "
                             f"first")
        out.append(() if value == "()" else value)
    return out


def _one_node(label):
    """A NetworkX graph with the one node ``label``."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_node(label)
    return graph
