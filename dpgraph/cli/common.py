"""What the ``dpgraph`` subcommands share: their arguments, reading the input graph, the Dask
session for edge files, and the lines every private command prints (the reproducible-noise
notice, release notes, the ledger).

Imports nothing from the command modules; they import from here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from dpgraph.io import check_writable
from dpgraph.release.routes import ROUTES

__all__ = ["formats", "add_quiet_argument", "add_unweighted_argument", "add_json_argument",
           "add_duplicates_argument",
           "add_graph_argument", "add_privacy_arguments", "is_edge_files", "load_input",
           "load_graph", "dask_session", "check_out_folder", "print_reproducible",
           "print_release_notes", "print_ledger", "seed_argument"]


# ----------------------------------------------------------------------------- arguments


def formats() -> list:
    """The graph file formats ``--format`` accepts (those :func:`dpgraph.io.read_graph` knows)."""
    from dpgraph.io import FORMATS
    return list(FORMATS)


def add_quiet_argument(p):
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress lines or warnings on standard error (errors still print)")


def add_unweighted_argument(p):
    p.add_argument("--unweighted", action="store_true",
                   help="treat every edge as weight 1 (NetworkX's weight=None); the private "
                        "commands need weights in [0, 1]")
    p.add_argument("--ids", choices=("auto", "int", "str"), default=None,
                   help="node ids of a 'u v' edge list: auto (default) follows the first edge "
                        "line and refuses a file that mixes integer and name ids; str reads "
                        "every id as a name; int requires integers")
    p.add_argument("--nodes", default=None, metavar="N|FILE",
                   help="the public node set: N for the ids 0..N-1 (1..N in the 1-indexed "
                        "formats), or a file of node ids, one per line (on Dask edge files "
                        "kept sorted, as the ids are). Nodes without an edge are kept as "
                        "isolated nodes. An edge list names only nodes with an edge, so "
                        "without it a node whose only edge is removed vanishes from the output "
                        "(docs/privacy.md 4)")
    add_duplicates_argument(p)


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
    with open(spec, encoding="utf-8") as f:
        tokens = [line.strip() for line in f]
    tokens = [t for t in tokens if t and not t.startswith("#")]
    if ids != "str" and all(t.lstrip("-").isdigit() for t in tokens):
        return [int(t) for t in tokens]
    if ids == "int":
        bad = next(t for t in tokens if not t.lstrip("-").isdigit())
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


def add_graph_argument(p, what: str | None = None):
    """The input graph of a private command (a file, Dask edge files or a data set name), its
    reading options, ``--quiet``, ``--scheduler`` and, when ``what`` is given, ``--json``."""
    p.add_argument("graph", metavar="PATH|NAME",
                   help="a graph file (any format read_graph knows) or a data set name")
    p.add_argument("--format", choices=formats(), default=None,
                   help="file format (default: detected)")
    add_unweighted_argument(p)
    add_quiet_argument(p)
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
            or spec.lower().endswith((".parquet", ".pq")))


def load_input(spec: str, *, format: str | None = None, symmetrize: str | None = None,
               unweighted: bool = False, ids: str | None = None, duplicates: str | None = None,
               nodes=None):
    """Return ``(GraphData, description, format)`` for a file path or a data set name.

    A path that exists is read with :func:`dpgraph.io.read_graph`; Dask edge files
    (:func:`is_edge_files`) with :func:`dpgraph.io.dask.read_edge_files` (a
    :class:`~dpgraph.io.dask.DaskGraph`, format ``"dask"``); otherwise ``spec`` is looked
    up in :mod:`dpgraph.datasets` (registry, built-ins, bundled instances). Shared by every
    subcommand that takes a graph. ``unweighted=True`` (``--unweighted``) gives every edge
    weight 1, as NetworkX's ``weight=None`` does. ``ids`` (``--ids``) is the node-id rule of
    SNAP edge lists (:func:`dpgraph.io.read_graph`: ``"auto"``, ``"int"`` or ``"str"``).
    ``duplicates`` (``--duplicates``) merges a pair listed more than once in a file (``"max"``,
    the default, ``"sum"`` or ``"error"``); data sets are read as registered. ``nodes``
    (``--nodes``, :func:`read_node_set`) is the public node set
    (:func:`dpgraph.graph.with_nodes`).
    """
    from dpgraph.graph import unweighted as drop_weights, with_nodes

    data, where, fmt = _load(spec, format=format, symmetrize=symmetrize, ids=ids,
                             duplicates=duplicates, unweighted=unweighted, nodes=nodes)
    if nodes is not None and fmt != "dask":
        from dpgraph.io import first_node_id

        data = with_nodes(data, nodes, source=where, first=first_node_id(fmt))
    if unweighted and fmt == "dask":  # the weight column was not read
        return data, f"{where}, every edge weight 1", fmt
    return (drop_weights(data), f"{where}, every edge weight 1", fmt) if unweighted else \
        (data, where, fmt)


def load_graph(args):
    """:func:`load_input` with the command's reading options (``--format``, ``--symmetrize``
    where the command has it, ``--unweighted``, ``--ids``, ``--duplicates``)."""
    return load_input(args.graph, format=args.format,
                      symmetrize=getattr(args, "symmetrize", None),
                      unweighted=args.unweighted, ids=args.ids,
                      duplicates=getattr(args, "duplicates", None),
                      nodes=read_node_set(getattr(args, "nodes", None), args.ids))


def _load(spec: str, *, format: str | None, symmetrize: str | None, ids: str | None = None,
          duplicates: str | None = None, unweighted: bool = False, nodes=None):
    if is_edge_files(spec):
        from dpgraph.io.dask import read_edge_files

        given = [opt for opt, value in (("--format", format), ("--ids", ids),
                                        ("--symmetrize", symmetrize)) if value is not None]
        if given:  # they were ignored without a word
            verb = "applies" if len(given) == 1 else "apply"
            raise ValueError(f"{', '.join(given)} {verb} to graph files; Dask edge files "
                             f"{spec!r} are read by their u, v (and weight) columns")
        kw = {"duplicates": duplicates} if duplicates else {}
        if unweighted:  # NetworkX's weight=None: no weight column read
            kw["weight"] = None
        return read_edge_files(spec, nodes=nodes, **kw), spec, "dask"
    if os.path.exists(spec):
        return _read_file(spec, format=format, symmetrize=symmetrize, ids=ids,
                          duplicates=duplicates, nodes=nodes)
    if duplicates is not None:
        raise ValueError(f"--duplicates applies to graph files; {spec!r} is no file (a data "
                         f"set name is read as registered)")
    return _load_dataset(spec)


def _read_file(spec: str, *, format: str | None, symmetrize: str | None, ids: str | None,
               duplicates: str | None = None, nodes=None):
    from dpgraph.io import detect_format, read_graph

    fmt = format or detect_format(spec, nodes=nodes)
    kw = {"symmetrize": symmetrize} if symmetrize else {}
    if duplicates is not None:
        kw["duplicates"] = duplicates
    if ids is not None:
        if fmt not in ("snap", "csv"):
            raise ValueError(f"--ids applies to SNAP edge lists ('u v' lines) and CSV files; "
                             f"{spec} is read as {fmt}")
        kw["ids"] = ids
    return read_graph(spec, format=fmt, nodes=nodes, **kw), spec, fmt


def _load_dataset(spec: str):
    from dpgraph import datasets

    known = set(datasets.REGISTRY) | set(datasets.BUILTIN) | set(datasets.BUNDLED)
    if spec not in known:
        raise FileNotFoundError(f"{spec!r} is neither a file nor a data set name; data sets: "
                                f"{', '.join(sorted(known))}")
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


def check_out_folder(out: str | None, option: str = "--out") -> None:
    """Refuse an output file (given by ``option``) that cannot be written (a missing folder, a
    directory, no permission: :func:`dpgraph.io.check_writable`), before any budget is spent."""
    if out:
        check_writable(out, option)


def seed_argument(text: str) -> int:
    """``--seed``: a non-negative integer (argparse reports anything else with the option)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


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
