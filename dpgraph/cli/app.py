"""The ``dpgraph`` command.

Each subcommand is a pair ``_add_<name>_parser(subparsers) -> parser`` and
``_cmd_<name>(args) -> int`` registered once in :data:`COMMANDS`; adding ``maxcut``,
``bisection``, ``synth`` or ``bench`` means writing such a pair and appending it there.

Expected errors (a malformed file, a missing data set, a bad option value) print one line
``dpgraph: error: ...`` to stderr and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

import numpy as np

__all__ = ["main", "COMMANDS", "load_input"]


def is_edge_files(spec) -> bool:
    """Whether ``spec`` names Dask edge files: a glob, a folder, or a ``.parquet`` / ``.pq``
    file (read by :func:`dpgraph.io.dask.read_edge_files` on a Dask cluster)."""
    spec = str(spec)
    return (any(c in spec for c in "*?[") or os.path.isdir(spec)
            or spec.lower().endswith((".parquet", ".pq")))


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


def load_input(spec: str, *, format: str | None = None, symmetrize: str | None = None,
               unweighted: bool = False, ids: str | None = None):
    """Return ``(GraphData, description, format)`` for a file path or a data set name.

    A path that exists is read with :func:`dpgraph.io.read_graph`; Dask edge files
    (:func:`is_edge_files`) with :func:`dpgraph.io.dask.read_edge_files` (a
    :class:`~dpgraph.io.dask.DaskGraph`, format ``"dask"``); otherwise ``spec`` is looked
    up in :mod:`dpgraph.datasets` (registry, built-ins, bundled instances). Shared by every
    subcommand that takes a graph. ``unweighted=True`` (``--unweighted``) gives every edge
    weight 1, as NetworkX's ``weight=None`` does. ``ids`` (``--ids``) is the node-id rule of
    SNAP edge lists (:func:`dpgraph.io.read_graph`: ``"auto"``, ``"int"`` or ``"str"``).
    """
    from dpgraph.graph import unweighted as drop_weights

    data, where, fmt = _load(spec, format=format, symmetrize=symmetrize, ids=ids)
    if unweighted and fmt == "dask":
        raise ValueError("--unweighted is not supported for Dask edge files: drop the weight "
                         "column instead (every edge then has weight 1)")
    return (drop_weights(data), f"{where}, every edge weight 1", fmt) if unweighted else \
        (data, where, fmt)


def _load(spec: str, *, format: str | None, symmetrize: str | None, ids: str | None = None):
    from dpgraph import datasets
    from dpgraph.io import detect_format, read_graph

    if is_edge_files(spec):
        from dpgraph.io.dask import read_edge_files

        return read_edge_files(spec), spec, "dask"
    if os.path.exists(spec):
        fmt = format or detect_format(spec)
        kw = {"symmetrize": symmetrize} if symmetrize else {}
        if ids is not None:
            if fmt != "snap":
                raise ValueError(f"--ids applies to SNAP edge lists ('u v' lines); {spec} is "
                                 f"read as {fmt}")
            kw["ids"] = ids
        return read_graph(spec, format=fmt, **kw), spec, fmt
    known = set(datasets.REGISTRY) | set(datasets.BUILTIN) | set(datasets.BUNDLED)
    if spec in known:
        if spec in datasets.REGISTRY:
            entry = datasets.REGISTRY[spec]
            return datasets.load(spec), f"{spec} ({datasets.find(spec)})", entry.format
        if spec in datasets.BUNDLED:
            return datasets.load(spec), f"{spec} (bundled planted instance)", "gset"
        return datasets.load(spec), f"{spec} (NetworkX built-in)", "networkx"
    raise FileNotFoundError(f"{spec!r} is neither a file nor a data set name; data sets: "
                            f"{', '.join(sorted(known))}")


# ----------------------------------------------------------------------------- info


def _add_info_parser(subparsers):
    p = subparsers.add_parser(
        "info", help="print size, weights, degrees and components of a graph",
        description="Print n, m, the weight range, the degree summary (min/median/mean/max), "
                    "the number of connected components and the detected format of a graph "
                    "file or a named data set. Non-private: for inspecting your own data.")
    p.add_argument("graph", metavar="PATH|NAME",
                   help="a graph file (any format read_graph knows) or a data set name "
                        "(e.g. karate, G3, facebook)")
    p.add_argument("--format", choices=_formats(), default=None,
                   help="file format (default: detected from the extension and content)")
    p.add_argument("--symmetrize", choices=["max", "sum", "mean"], default=None,
                   help="how to read a directed file as undirected")
    add_unweighted_argument(p)
    add_quiet_argument(p)
    add_json_argument(p, "the summary")
    return p


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


def add_json_argument(p, what: str):
    p.add_argument("--json", action="store_true",
                   help=f"print {what} as one JSON document on stdout (schema: docs/cli.md); "
                        f"progress stays on stderr")


def _formats():
    from dpgraph.io import FORMATS
    return list(FORMATS)


def _summary(values: np.ndarray) -> str:
    return (f"min {values.min():g}, median {np.median(values):g}, mean {values.mean():.4g}, "
            f"max {values.max():g}")


def _stats(values: np.ndarray) -> dict:
    return {"min": values.min(), "median": np.median(values), "mean": values.mean(),
            "max": values.max()}


def _info_summary(data, where: str, fmt: str, notes) -> dict:
    """What ``dpgraph info`` reports (not private: for inspecting your own data)."""
    from scipy.sparse.csgraph import connected_components

    W = data.weights
    degree = np.diff(W.indptr)
    summary = {"graph": {"source": where, "format": fmt}, "nodes": data.n, "edges": data.m,
               "weights": None, "degree": _stats(degree), "weighted_degree": None,
               "components": int(connected_components(W, directed=False)[0]),
               "isolated_nodes": int(np.count_nonzero(degree == 0)),
               "notes": [str(w.message) for w in notes]}
    if data.m:
        w = W.data
        kind = ("unweighted" if data.is_unweighted else
                "signed" if w.min() < 0 < w.max() else "weighted")
        summary["weights"] = {"min": w.min(), "max": w.max(), "kind": kind,
                              "total": data.total_weight}
        if not data.is_unweighted:
            summary["weighted_degree"] = _stats(data.degrees)
    return summary


def _cmd_info(args) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data, where, fmt = load_input(args.graph, format=args.format, symmetrize=args.symmetrize,
                                      unweighted=args.unweighted, ids=args.ids)
    if fmt == "dask":  # passes over the partitions; no in-memory matrix
        lo, hi = data.weight_range
        print("\n".join([f"graph:       {where}", "format:      dask edge files",
                         f"nodes:       {data.n}", f"edges:       {data.m}",
                         f"weights:     [{lo:g}, {hi:g}]; total {data.total_weight:g}",
                         f"degree:      {_summary(data.degrees)}"]))
        return 0
    s = _info_summary(data, where, fmt, caught)
    if args.json:
        from dpgraph.cli.output import dumps, info_document

        print(dumps(info_document(s)))
        return 0
    lines = [
        f"graph:       {where}",
        f"format:      {fmt}",
        f"nodes:       {data.n}",
        f"edges:       {data.m}",
    ]
    if s["weights"]:
        w = s["weights"]
        lines.append(f"weights:     [{w['min']:g}, {w['max']:g}] ({w['kind']}); total {w['total']:g}")
    else:
        lines.append("weights:     (no edges)")
    lines.append(f"degree:      {_summary(np.diff(data.weights.indptr))}")
    if s["weighted_degree"]:
        lines.append(f"w. degree:   {_summary(data.degrees)}")
    isolated = s["isolated_nodes"]
    lines.append(f"components:  {s['components']}" +
                 (f" ({isolated} isolated node(s))" if isolated else ""))
    for note in s["notes"]:
        lines.append(f"note:        {note}")
    print("\n".join(lines))
    return 0


# ----------------------------------------------------------------------------- registry

#: (name, add-parser function, command function); append new subcommands here.
COMMANDS = [
    ("info", _add_info_parser, _cmd_info),
]

# The private subcommands live in cli_private (they import nothing heavy at module level).
from dpgraph.cli.commands import (  # noqa: E402
    _add_bench_parser,
    _add_bisection_parser,
    _add_maxcut_parser,
    _add_synth_parser,
    _cmd_bench,
    _cmd_bisection,
    _cmd_maxcut,
    _cmd_synth,
    precheck_synth,
)

COMMANDS += [
    ("maxcut", _add_maxcut_parser, _cmd_maxcut),
    ("bisection", _add_bisection_parser, _cmd_bisection),
    ("synth", _add_synth_parser, _cmd_synth),
    ("bench", _add_bench_parser, _cmd_bench),
]

from dpgraph.cli.max2csp import add_max2csp_parser as _add_max2csp_parser  # noqa: E402
from dpgraph.cli.max2csp import cmd_max2csp as _cmd_max2csp  # noqa: E402

COMMANDS.insert(COMMANDS.index(("bench", _add_bench_parser, _cmd_bench)),
                ("max2csp", _add_max2csp_parser, _cmd_max2csp))


# subcommand -> checks that must refuse before the Dask session of main() starts a cluster
_PRECHECKS = {"synth": precheck_synth}


def build_parser() -> argparse.ArgumentParser:
    from dpgraph import __version__

    parser = argparse.ArgumentParser(
        prog="dpgraph",
        description="Edge-differentially private Max-Cut, Max-Bisection, 2-CSP and synthetic "
                    "graphs.")
    parser.add_argument("--version", action="version", version=f"dpgraph {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name, add, run in COMMANDS:
        sub = add(subparsers)
        sub.set_defaults(_run=run)
    return parser


def _expected_errors():
    from dpgraph.datasets import DatasetNotFoundError
    from dpgraph.io import GraphFormatError

    from dpgraph.release.routes import InsufficientMemoryError

    return (GraphFormatError, DatasetNotFoundError, FileNotFoundError, ValueError, KeyError,
            OSError, ModuleNotFoundError, InsufficientMemoryError, NotImplementedError)


# Python spellings in library messages -> the command's options (see _cli_message)
_OPTION_SPELLINGS = [
    (r"\bPass weight=None\b", "Pass --unweighted"),
    (r"\bweight=None\b", "--unweighted"),
    (r"\b(route|rank|epsilon|delta|format|ids)='([^'\s]+)'", r"--\1 \2"),
    (r"\b(rank|epsilon|delta)=([0-9][\w.+-]*)", r"--\1 \2"),
    (r"\bsynthetic_share\b", "--synthetic-share"),
    (r"\brelation_size\b", "--relation-size"),
    (r"\bpass format=", "pass --format"),
    (r"\bformat= one of\b", "--format one of"),
]


def _cli_message(message: str) -> str:
    """A library message in the command's words: ``weight=None`` -> ``--unweighted``,
    ``route='matrix-free'`` -> ``--route matrix-free``, ``format=`` -> ``--format``, ...

    >>> _cli_message("Pass weight=None to treat every edge as weight 1. Use "
    ...              "route='matrix-free' (memory O(m + n r)), or route='auto'.")
    'Pass --unweighted to treat every edge as weight 1. Use --route matrix-free (memory O(m + n r)), or --route auto.'
    """
    import re

    for pattern, repl in _OPTION_SPELLINGS:
        message = re.sub(pattern, repl, message)
    return message


def _show_warning(quiet: bool):
    """``warnings.showwarning`` for the command: one line ``dpgraph: warning: ...`` per
    distinct message on stderr (no source line, no traceback); nothing with ``--quiet``. The
    reproducible-noise warning is left out: the command prints its own notice for ``--seed``."""
    from dpgraph.privacy import ReproducibleNoiseWarning

    seen = set()

    def show(message, category, filename, lineno, file=None, line=None):
        if quiet or issubclass(category, ReproducibleNoiseWarning):
            return
        text = _cli_message(" ".join(str(message).split()))
        if text in seen:
            return
        seen.add(text)
        print(f"dpgraph: warning: {text}", file=sys.stderr, flush=True)

    return show


def main(argv=None) -> int:
    """Run the ``dpgraph`` command with ``argv`` (default ``sys.argv[1:]``); return the exit
    status (0 success, 2 usage or input error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from dpgraph.progress import reporting

    quiet = getattr(args, "quiet", False)
    try:
        with reporting(enabled=not quiet), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning(quiet)
            precheck = _PRECHECKS.get(args.command)
            if precheck is not None:  # refusals before a Dask cluster is started
                precheck(args)
            with dask_session(args):
                return int(args._run(args) or 0)
    except _expected_errors() as exc:
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"dpgraph: error: {_cli_message(' '.join(message.split()))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpgraph: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
