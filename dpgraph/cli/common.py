"""What the ``dpgraph`` subcommands share: their arguments, reading the input graph, the Dask
session for edge files, and the lines every private command prints (the reproducible-noise
notice, release notes, the ledger).

Imports nothing from the command modules; they import from here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys

from dpgraph.io import atomic_output, check_writable
from dpgraph.release.routes import ROUTES
from dpgraph.io.dask import (CSV_EXTENSIONS, PARQUET_EXTENSIONS, edge_file_columns,
                             text_edge_files_error,
                             edge_file_extension, edge_file_list)

__all__ = ["formats", "add_quiet_argument", "add_reading_arguments", "add_json_argument",
           "add_duplicates_argument",
           "add_graph_argument", "add_privacy_arguments", "is_edge_files", "check_graph_path",
           "check_graph_input",
           "load_input", "load_graph", "dask_session", "check_out_folder", "check_not_input",
           "open_output_text",
           "check_tab_labels",
           "print_reproducible",
           "print_release_notes", "print_ledger", "seed_argument", "check_budget_arguments"]


# ----------------------------------------------------------------------------- arguments


def formats() -> list:
    """The graph file formats ``--format`` accepts (those :func:`dpgraph.io.read_graph` knows)."""
    from dpgraph.io import FORMATS
    return list(FORMATS)


def add_quiet_argument(p):
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress lines or warnings on standard error (errors still print)")


#: ``--symmetrize`` choices: how a directed file's two arcs of a pair make one edge
SYMMETRIZE = ("max", "sum", "mean")


def add_reading_arguments(p):
    """The options of reading a graph (:func:`dpgraph.io.read_graph`'s keyword arguments, in
    the command's spelling): ``--unweighted`` or ``--weight COLUMN`` (exclusive),
    ``--symmetrize``, ``--ids``, ``--nodes`` and ``--duplicates``. Public choices about the
    input: none of them costs privacy budget."""
    weights = p.add_mutually_exclusive_group()
    weights.add_argument("--unweighted", action="store_true",
                         help="treat every edge as weight 1 (NetworkX's weight=None); the "
                              "private commands need weights in [0, 1]")
    weights.add_argument("--weight", default=None, metavar="COLUMN",
                         help="the weights' column of a CSV file or of Dask edge files, or the "
                              "edge attribute of a GraphML, GML, Pajek or NetworkX edge list "
                              "file (default: the one named 'weight'; none: every weight 1). "
                              "Not with --unweighted; the other formats keep their weights in "
                              "a fixed place and refuse it")
    p.add_argument("--symmetrize", choices=SYMMETRIZE, default=None,
                   help="how to read a directed file (SNAP '# Directed graph', GraphML or GML "
                        "directed, Pajek *Arcs, a non-symmetric Matrix Market or METIS "
                        "adjacency; with it a SNAP or CSV file is read as arcs) as undirected: "
                        "the weight of u-v is the max, sum or mean of the arcs u->v and v->u "
                        "that are present (an arc given once keeps its weight). A public "
                        "choice about reading, no privacy cost")
    p.add_argument("--ids", choices=("auto", "int", "str"), default=None,
                   help="node ids of a 'u v' edge list, a CSV file or Dask edge files (and "
                        "of a --nodes file): auto (default) follows the file's '# ids: str' "
                        "line (or a CSV file's quoted first id) where it "
                        "has one, else the first edge line, and refuses a file that mixes "
                        "integer and name ids; str reads every id as a name; int requires "
                        "integers")
    p.add_argument("--nodes", default=None, metavar="N|FILE",
                   help="the public node set: N for the ids 0..N-1 (1..N in the 1-indexed "
                        "formats), or a file of node ids, one per line (on Dask edge files "
                        "kept sorted, as the ids are). Nodes without an edge are kept as "
                        "isolated nodes. An edge list names only nodes with an edge, so "
                        "without it a node whose only edge is removed vanishes from the output "
                        "(docs/privacy.md 4)")
    add_duplicates_argument(p)


_NODE_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_node_set(spec: str | None, ids: str | None = None):
    """``--nodes``: None, an integer ``N`` (a whole number that names no file), or the ids of
    a file with one per line (``#`` comments and blank lines skipped), read as integers when
    every one is an integer unless ``ids`` is ``"str"``."""
    if spec is None:
        return None
    if spec.isdigit() and not os.path.exists(spec):
        return int(spec)
    if not os.path.isfile(spec):
        raise FileNotFoundError(f"--nodes {spec}: neither a node count nor a file of node ids")
    from dpgraph.io.base import check_node_file, open_text

    check_node_file(spec)  # priced before its ids are read
    try:  # as the graph files: gzip told from the content, a UTF-8 byte-order mark dropped
        with open_text(spec) as f:
            tokens = [line.strip() for line in f]
    except UnicodeDecodeError as exc:
        raise ValueError(f"--nodes {spec}: not a UTF-8 text file of node ids, one per line "
                         f"({exc.reason})") from None
    tokens = [t for t in tokens if t and not t.startswith("#")]
    # integers as the edge-list readers take them ('+5', '-3', '007'; ASCII digits only)
    if ids != "str" and all(_NODE_INTEGER.fullmatch(t) for t in tokens):
        return [int(t) for t in tokens]
    if ids == "int":
        bad = next(t for t in tokens if not _NODE_INTEGER.fullmatch(t))
        raise ValueError(f"--nodes {spec}: --ids int, but {bad!r} is not an integer")
    return tokens


def add_duplicates_argument(p):
    """``--duplicates``: the rule of :func:`dpgraph.io.read_graph`'s ``duplicates=`` for a node
    pair listed more than once in a graph file (every format follows it)."""
    p.add_argument("--duplicates", choices=("max", "sum", "error"), default=None,
                   help="a node pair listed more than once in the graph file (the same line "
                        "twice, or 'u v' and 'v u'): max (default) reads one edge of the "
                        "largest listed weight, sum adds the weights, error refuses the file; "
                        "a note on stderr counts the merged repeats")


def add_json_argument(p, what: str):
    p.add_argument("--json", action="store_true",
                   help=f"print {what} as one JSON document on stdout (schema: docs/cli.md); "
                        f"progress stays on stderr")


def add_graph_argument(p, what: str | None = None, *, scheduler: bool = True):
    """The input graph of a private command (a file, Dask edge files or a data set name), its
    reading options, ``--quiet``, ``--scheduler`` (unless ``scheduler`` is False: a command
    that refuses Dask edge files has no use for it) and, when ``what`` is given, ``--json``."""
    p.add_argument("graph", metavar="PATH|NAME",
                   help="a graph file (any format read_graph knows) or a data set name")
    p.add_argument("--format", choices=formats(), default=None,
                   help="file format (default: detected)")
    add_reading_arguments(p)
    add_quiet_argument(p)
    if scheduler:
        p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="Dask scheduler to use for edge files given as a glob, folder or "
                            ".parquet path (default: a local cluster on this machine)")
    if what:
        add_json_argument(p, what)


def add_privacy_arguments(p, *, rank=True, delta_required=True, delta_help: str = "",
                          rank_help: str | None = None, route_help: str | None = None):
    """``--epsilon``, ``--delta``, ``--rank`` (when ``rank``), ``--seed`` and ``--route``.
    Each command says in ``delta_help`` (appended), ``rank_help`` and ``route_help`` what its
    default route does with them, so that the help describes what runs."""
    p.add_argument("--epsilon", type=float, required=True, help="privacy budget epsilon (> 0)")
    p.add_argument("--delta", type=float, required=delta_required, default=None,
                   help="privacy budget delta, in [0, 1)" + delta_help)
    if rank:
        from dpgraph.release.privatize import DEFAULT_RANK
        p.add_argument("--rank", type=int, default=None,
                       help=rank_help or (
                           f"rank of the private low-rank estimate (default {DEFAULT_RANK}; "
                           f"2 on the matrix-free route; capped at n - 2 on graphs with fewer "
                           f"than {DEFAULT_RANK + 2} nodes)"))
    p.add_argument("--seed", type=seed_argument, default=None,
                   help="TESTING ONLY: seed the noise so runs repeat. A seeded release is NOT "
                        "private (anyone with the seed can remove the noise); the output says "
                        "'reproducible noise: not a private release'. Default: a "
                        "cryptographically secure generator keyed from the operating system")
    p.add_argument("--route", choices=("auto", *ROUTES),
                   default="auto",
                   help=route_help or "private mechanism (default auto)")


# ----------------------------------------------------------------------------- input


def is_edge_files(spec) -> bool:
    """Whether ``spec`` names Dask edge files: a glob, a folder, or a ``.parquet`` / ``.pq``
    file (read by :func:`dpgraph.io.dask.read_edge_files` on a Dask cluster)."""
    spec = str(spec)
    return (any(c in spec for c in "*?[") or os.path.isdir(spec)
            or spec.lower().endswith(PARQUET_EXTENSIONS))


#: the extensions :func:`dpgraph.io.dask.read_edge_files` reads: all of one kind (``.gz`` aside)
_EDGE_FILES = ("Dask edge files: a folder, glob or path of Parquet files (.parquet, .pq) or "
               "of CSV files with a header row (.csv), all of one kind")


def check_graph_path(spec, *, weight: str | None = None) -> None:
    """Refuse, in one line, a graph path of the Dask edge files' form (a folder, a glob, a
    ``.parquet`` path: :func:`is_edge_files`) that names no edge files the Dask reader reads:
    a glob that matches nothing, a folder without files, files of other extensions (a folder
    of graph files, ``'*.cnf'``), or a ``--weight`` column the files lack. Checked by listing
    the files, before Dask is imported or a cluster started (seconds, and port warnings)."""
    spec = str(spec)
    if not is_edge_files(spec):
        return
    folder = os.path.isdir(spec)
    what = ("the folder" if folder else "the glob" if any(c in spec for c in "*?[")
            else "the path")
    files = edge_file_list(spec)
    if not files:
        found = ("holds no files" if folder else "matches no file" if what == "the glob"
                 else "does not exist")
        raise FileNotFoundError(f"{what} {spec!r} {found}: expected a graph file, or "
                                f"{_EDGE_FILES}")
    exts = sorted({edge_file_extension(f) for f in files})
    if set(exts) <= set(CSV_EXTENSIONS):
        refusal = text_edge_files_error(spec, files)  # .txt, .tsv: plain edge lists
        if refusal is not None:
            raise refusal
    if set(exts) <= set(PARQUET_EXTENSIONS) or set(exts) <= set(CSV_EXTENSIONS):
        if weight is not None:
            _check_weight_column(spec, files[0], weight)
        return
    shown = ", ".join(e or "(none)" for e in exts[:8]) + (", ..." if len(exts) > 8 else "")
    hint = ""
    if any(e not in PARQUET_EXTENSIONS + CSV_EXTENSIONS for e in exts):
        hint = (f"; to read the graph file, give its path ({files[0]})" if len(files) == 1
                else "; to read one graph file, give its path")
    raise ValueError(f"{what} {spec!r} {'holds' if folder else 'matches'} {len(files):,} "
                     f"file(s) of extension(s) {shown}: expected a graph file, or "
                     f"{_EDGE_FILES}{hint}")


def _check_weight_column(spec: str, first: str, weight: str) -> None:
    """``--weight COLUMN`` on Dask edge files: the reader reads no weights (every weight 1)
    when the column is missing, which suits its default name, not one the user gave."""
    # the reader's: a CSV file's header row after its '#' comment lines
    columns = edge_file_columns(first)
    if weight.strip().lower() not in [c.strip().lower() for c in columns[2:]] \
            and weight not in columns:
        # (the reader's match: the name without regard to case; read_edge_files)
        raise ValueError(f"--weight {weight}: {os.path.basename(first)} of {spec!r} has no "
                         f"column {weight!r}; its columns are {columns}")


def _check_edge_file_options(spec: str, *, format, symmetrize) -> None:
    """Refuse the options of graph files on Dask edge files (they were ignored without a
    word); ``--ids`` applies to both."""
    given = [opt for opt, value in (("--format", format), ("--symmetrize", symmetrize))
             if value is not None]
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise ValueError(f"{', '.join(given)} {verb} to graph files; Dask edge files "
                         f"{spec!r} are read by their endpoint (and weight) columns")


def check_graph_input(args) -> None:
    """What the command line checks of the graph argument before anything heavy (Dask
    imported, a local cluster started, the file read): the path's form
    (:func:`check_graph_path`) and, for Dask edge files, the options that apply to graph files
    only."""
    spec = getattr(args, "graph", None)
    if spec is None:
        return
    check_graph_path(spec, weight=getattr(args, "weight", None))
    if is_edge_files(spec):
        _check_edge_file_options(spec, format=getattr(args, "format", None),
                                 symmetrize=getattr(args, "symmetrize", None))


def _reader_takes(fmt: str, option: str) -> bool:
    """Whether the reader of format ``fmt`` takes the keyword ``option`` (``symmetrize``,
    ``weight``; :func:`dpgraph.io.reader_options`), so the command's refusal follows the
    readers; an unknown format is left to read_graph."""
    from dpgraph.io import reader_options

    options = reader_options(fmt)
    return not options or option in options


def _formats_taking(option: str) -> str:
    return ", ".join(f for f in formats() if _reader_takes(f, option))


def load_input(spec: str, *, format: str | None = None, symmetrize: str | None = None,
               unweighted: bool = False, ids: str | None = None, duplicates: str | None = None,
               nodes=None, weight: str | None = None, format_option: str = "--format"):
    """Return ``(GraphData, description, format)`` for a file path or a data set name.

    A path that exists is read with :func:`dpgraph.io.read_graph`; Dask edge files
    (:func:`is_edge_files`) with :func:`dpgraph.io.dask.read_edge_files` (a
    :class:`~dpgraph.io.dask.DaskGraph`, format ``"dask"``); otherwise ``spec`` is looked
    up in :mod:`dpgraph.datasets` (registry, built-ins, bundled instances). Shared by every
    subcommand that takes a graph. ``unweighted=True`` (``--unweighted``) gives every edge
    weight 1, as NetworkX's ``weight=None`` does; ``weight`` (``--weight COLUMN``, not with
    it) names the weights' column or edge attribute where the format has one (csv, the
    NetworkX formats, Dask edge files). ``symmetrize`` (``--symmetrize``) reads a directed file
    as undirected. ``ids`` (``--ids``) is the node-id rule of
    SNAP edge lists, CSV files and Dask edge files (:func:`dpgraph.io.read_graph`:
    ``"auto"``, ``"int"`` or ``"str"``). ``duplicates`` (``--duplicates``) merges a pair listed more than once in a file
    (``"max"``, the default, ``"sum"`` or ``"error"``); data sets are read as registered, and
    these options, ``format`` and ``ids`` included (unless ``nodes`` came from a file, whose
    ids it read), are refused with a data set name. ``nodes``
    (``--nodes``, :func:`read_node_set`) is the public node set
    (:func:`dpgraph.graph.with_nodes`). ``format_option`` is the name the command gives
    ``format`` in its messages (``--graph-format`` for ``max2csp``).
    """
    from dpgraph.graph import unweighted as drop_weights, with_nodes

    if unweighted and weight is not None:  # argparse keeps them apart on the command line
        raise ValueError("--weight and --unweighted exclude each other")
    data, where, fmt = _load(spec, format=format, symmetrize=symmetrize, ids=ids,
                             duplicates=duplicates, unweighted=unweighted, nodes=nodes,
                             weight=weight, format_option=format_option)
    if nodes is not None and fmt != "dask":
        from dpgraph.io import first_node_id
        from dpgraph.io.base import check_node_set

        # a file's node set was priced by read_graph; a data set's is priced here
        check_node_set(nodes, where, entries=data.weights.nnz)
        data = with_nodes(data, nodes, source=where, first=first_node_id(fmt))
    if unweighted and fmt == "dask":  # the weight column was not read
        return data, f"{where}, every edge weight 1", fmt
    return (drop_weights(data), f"{where}, every edge weight 1", fmt) if unweighted else \
        (data, where, fmt)


def load_graph(args):
    """:func:`load_input` with the command's reading options (``--format``, ``--symmetrize``,
    ``--unweighted`` or ``--weight``, ``--ids``, ``--duplicates``, ``--nodes``)."""
    return load_input(args.graph, format=args.format,
                      symmetrize=getattr(args, "symmetrize", None),
                      unweighted=args.unweighted, ids=args.ids,
                      duplicates=getattr(args, "duplicates", None),
                      nodes=read_node_set(getattr(args, "nodes", None), args.ids),
                      weight=getattr(args, "weight", None))


def _load(spec: str, *, format: str | None, symmetrize: str | None, ids: str | None = None,
          duplicates: str | None = None, unweighted: bool = False, nodes=None,
          weight: str | None = None, format_option: str = "--format"):
    if is_edge_files(spec):
        from dpgraph.io.dask import read_edge_files

        # (the command line checked both before Dask: check_graph_input)
        check_graph_path(spec, weight=weight)
        _check_edge_file_options(spec, format=format, symmetrize=symmetrize)
        kw = {"duplicates": duplicates} if duplicates else {}
        if ids is not None:  # read_graph's id rule, on CSV (and Parquet) edge files too
            kw["ids"] = ids
        if unweighted:  # NetworkX's weight=None: no weight column read
            kw["weight"] = None
        elif weight is not None:
            kw["weight"] = weight
        return read_edge_files(spec, nodes=nodes, **kw), spec, "dask"
    if os.path.exists(spec):
        return _read_file(spec, format=format, symmetrize=symmetrize, ids=ids,
                          duplicates=duplicates, nodes=nodes, weight=weight)
    # --ids is also the id rule of a --nodes file (read_node_set): kept where one was read
    node_file = isinstance(nodes, (list, tuple))
    given = [opt for opt, value in ((format_option, format), ("--duplicates", duplicates),
                                    ("--symmetrize", symmetrize), ("--weight", weight),
                                    ("--ids", None if node_file else ids))
             if value is not None]
    if given and spec in _dataset_names():  # (a name that is neither: _load_dataset says so)
        verb = "applies" if len(given) == 1 else "apply"
        raise ValueError(f"{', '.join(given)} {verb} to graph files; {spec!r} is no file (a "
                         f"data set name is read as registered)")
    return _load_dataset(spec)


def _read_file(spec: str, *, format: str | None, symmetrize: str | None, ids: str | None,
               duplicates: str | None = None, nodes=None, weight: str | None = None):
    from dpgraph.io import detect_format, read_graph

    fmt = format or detect_format(spec, nodes=nodes)
    kw = {}
    for option, value, where in (
            ("symmetrize", symmetrize, "its graph is undirected"),
            ("weight", weight, "its weights have a fixed place (use --unweighted to read "
                               "every edge as weight 1)")):
        if value is None:
            continue
        if not _reader_takes(fmt, option):
            raise ValueError(f"--{option} applies to {_formats_taking(option)} files"
                             + (" and Dask edge files" if option == "weight" else "")
                             + f"; {spec} is read as {fmt}: {where}")
        kw[option] = value
    if duplicates is not None:
        kw["duplicates"] = duplicates
    if ids is not None:
        if fmt not in ("snap", "csv"):
            raise ValueError(f"--ids applies to SNAP edge lists ('u v' lines) and CSV files; "
                             f"{spec} is read as {fmt}")
        kw["ids"] = ids
    return read_graph(spec, format=fmt, nodes=nodes, **kw), spec, fmt


def _dataset_names() -> set:
    from dpgraph import datasets

    return set(datasets.REGISTRY) | set(datasets.BUILTIN) | set(datasets.BUNDLED)


def _load_dataset(spec: str):
    from dpgraph import datasets
    from dpgraph.datasets.registry import close_match

    known = _dataset_names()
    if spec not in known:
        names = sorted(known)
        here = datasets.available()  # the registry's files found on disk, and the built-ins
        absent = [n for n in names if n not in here]
        folders = " or ".join(str(d) for d in datasets.data_dirs())
        listed = f"data sets: {', '.join(here)}" + (
            f"; registered, but no file found in {folders} (set DPGRAPH_DATA to the folder "
            f"that holds them): {', '.join(absent)}" if absent else "")
        raise FileNotFoundError(f"{spec!r} is neither a file nor a data set name"
                                f"{close_match(spec, names)}; {listed}")
    if spec in datasets.REGISTRY:
        entry = datasets.REGISTRY[spec]
        return datasets.load(spec), f"{spec} ({datasets.find(spec)})", entry.format
    if spec in datasets.BUNDLED:
        return datasets.load(spec), f"{spec} (bundled planted instance)", "gset"
    return datasets.load(spec), f"{spec} (NetworkX built-in)", "networkx"


@contextlib.contextmanager
def dask_session(args):
    """A Dask client for the command when its graph is Dask edge files (or ``--scheduler`` is
    given): the cluster at ``--scheduler ADDRESS``, else a local cluster on this machine."""
    scheduler = getattr(args, "scheduler", None)
    if not scheduler and not is_edge_files(getattr(args, "graph", "") or ""):
        yield None
        return
    try:
        import distributed
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError("Dask edge files need the dask extra: pip install "
                                  "\"dpgraph[dask]\"") from exc
    from dpgraph.progress import report

    if scheduler:
        with distributed.Client(scheduler) as client:
            report(f"connected to the Dask scheduler at {scheduler}")
            yield client
    else:
        with distributed.LocalCluster(dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            report(f"started a local Dask cluster ({len(cluster.workers)} workers)")
            yield client


def check_tab_labels(labels, out: str | None, what: str = "node label",
                     option: str = "--out") -> None:
    """Refuse, before any budget is spent (the labels are public), a ``label<TAB>value`` file
    of ``labels`` where one holds a tab or a line break: its line would not read back as one
    label and one value. ``--json`` keeps every label.

    >>> check_tab_labels(["a b", "c"], "part.tsv")
    >>> check_tab_labels(["a", "b\\tc"], "part.tsv")
    Traceback (most recent call last):
    ...
    ValueError: --out 'part.tsv': node label 'b\\tc' holds a tab or a line break, which a 'label<TAB>value' line cannot hold; relabel, or leave out --out and use --json (its labels are exact)
    """
    if not out or labels is None or isinstance(labels, range):
        return
    for label in labels:
        if isinstance(label, str) and ("\t" in label or "\n" in label or "\r" in label):
            raise ValueError(f"{option} {out!r}: {what} {label!r} holds a tab or a line break, "
                             f"which a 'label<TAB>value' line cannot hold; relabel, or leave "
                             f"out {option} and use --json (its labels are exact)")


def check_out_folder(out: str | None, option: str = "--out", inputs=()) -> None:
    """Refuse an output file (given by ``option``) that cannot be written (a missing folder, a
    directory, no permission: :func:`dpgraph.io.check_writable`) or that is one of the
    command's input files (:func:`check_not_input`), before any budget is spent."""
    if out == "-":  # not standard output: open("-") makes a file of that name
        raise ValueError(f"{option} -: writes a file, not standard output, and would create "
                         f"a file named '-'; name a file")
    if out:
        check_not_input(out, inputs, option)
        check_writable(out, option)


@contextlib.contextmanager
def open_output_text(path: str):
    """``path`` opened for writing UTF-8 text lines (a partition, an assignment): gzip-compressed
    where the name ends in ``.gz``, and written whole or not at all
    (:func:`dpgraph.io.atomic_output`: a failed write leaves an existing file as it was), as
    :func:`dpgraph.io.write_graph` writes graph files."""
    import io

    with atomic_output(path) as raw:
        if path.lower().endswith(".gz"):
            import gzip

            # the header names the file (less .gz), as gzip.open(path) writes it
            with gzip.GzipFile(filename=os.path.basename(path), mode="wb", fileobj=raw) as gz:
                with io.TextIOWrapper(gz, encoding="utf-8") as fh:
                    yield fh
        else:
            with io.TextIOWrapper(raw, encoding="utf-8") as fh:
                yield fh


def check_not_input(out: str | None, inputs, option: str = "--out") -> None:
    """Refuse an output path that names one of the command's input files (the graph, the
    ``--nodes`` file), however it is spelled: writing it would overwrite the input.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("0 1\\n")
    >>> check_not_input(path + ".out", [path])
    >>> check_not_input(os.path.join(os.path.dirname(path), ".", "g.txt"), [path], "-o")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: -o '...g.txt' is the input file '...g.txt': writing it would overwrite the input; name another file
    """
    if not out or not os.path.isfile(out):
        return
    # Dask edge files (a folder or a glob) are each an input file: -o edges/p0.csv on
    # 'edges/*.csv' overwrote one of them
    files = [f for path in inputs if path
             for f in (edge_file_list(path) if is_edge_files(path) else [path])]
    for path in files:
        if path and os.path.isfile(path) and os.path.samefile(out, path):
            raise ValueError(f"{option} {out!r} is the input file {path!r}: writing it would "
                             f"overwrite the input; name another file")


def seed_argument(text: str) -> int:
    """``--seed``: a non-negative integer (argparse reports anything else with the option)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


def check_budget_arguments(args) -> None:
    """Refuse a ``--epsilon`` or ``--delta`` that no release takes (epsilon not a finite
    number > 0, delta outside [0, 1)), a ``--rank`` below 1 and a ``--synthetic-share``
    outside (0, 1) as the command starts, before a graph file is read (which takes minutes on
    a large one); the release checks them again.

    >>> import argparse
    >>> check_budget_arguments(argparse.Namespace(epsilon=0.0, delta=None))
    Traceback (most recent call last):
    ...
    dpgraph.privacy.validation.InvalidParameterError: --epsilon must be a finite number > 0, got 0.0
    """
    from dpgraph.privacy.validation import check_delta, check_epsilon, check_share

    if getattr(args, "epsilon", None) is not None:
        check_epsilon(args.epsilon, name="--epsilon")
    if getattr(args, "epsilon", None) is not None and getattr(args, "delta", None) is not None:
        check_delta(args.delta, name="--delta")
    # the options whose range needs no graph: refused before the file is read too
    if getattr(args, "rank", None) is not None and args.rank < 1:
        raise ValueError(f"--rank must be an integer >= 1 (and below the node count less 1), "
                         f"got {args.rank}")
    if getattr(args, "synthetic_share", None) is not None:
        check_share("--synthetic-share", args.synthetic_share)


# ----------------------------------------------------------------------------- output


def print_reproducible(ledger, *, json_output: bool = False) -> None:
    """Say it first, on stdout and stderr, when the noise was seeded (``--seed``); with
    ``--json`` on stderr only (the document says it in ``private_release`` and ``warning``)."""
    from dpgraph.privacy import REPRODUCIBLE_NOTICE

    if ledger.reproducible:
        line = f"{REPRODUCIBLE_NOTICE} (--seed was given; for tests and benchmarks only)"
        if not json_output:
            print(f"WARNING: {line}")
        # on stderr in the form of every other warning of the command (docs/cli.md)
        print(f"dpgraph: warning: {line}", file=sys.stderr)


def print_release_notes(ledger) -> None:
    """Say what was released when a charge's note warns (e.g. randomized response at an
    epsilon so large that nothing is flipped: docs/privacy.md 10.2)."""
    for e in ledger.entries:
        if "released unchanged" in (e.note or ""):
            print(f"note:              {e.name}: at epsilon {e.epsilon:.4g} the flip probability "
                  f"is 0, so the release holds the input's pair indicators unchanged "
                  f"(an epsilon this large protects nothing)")


def print_ledger(ledger) -> None:
    """The privacy ledger's report, indented under a heading."""
    print("privacy ledger:")
    print("  " + ledger.report().replace("\n", "\n  "))
