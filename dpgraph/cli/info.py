"""``dpgraph info``: size, weights, degrees and components of a graph.

Not private: for inspecting your own data before a release.
"""

from __future__ import annotations

import warnings

import numpy as np

from dpgraph.cli.common import (add_json_argument, add_quiet_argument, add_reading_arguments,
                                formats, load_graph)
from dpgraph.cli.errors import cli_message
from dpgraph.cli.output import dumps, info_document
from dpgraph.cli.text import number

__all__ = ["add_info_parser", "cmd_info", "info_summary"]


def add_info_parser(subparsers):
    p = subparsers.add_parser(
        "info", help="print size, weights, degrees and components of a graph",
        description="Print n, m, the weight range, the degree summary (min/median/mean/max), "
                    "the number of connected components and the detected format of a graph "
                    "file or a named data set. Non-private: for inspecting your own data.")
    p.add_argument("graph", metavar="PATH|NAME",
                   help="a graph file (any format read_graph knows) or a data set name "
                        "(e.g. karate, G3, facebook)")
    p.add_argument("--format", choices=formats(), default=None,
                   help="file format (default: detected from the extension and content)")
    add_reading_arguments(p)
    add_quiet_argument(p)
    add_json_argument(p, "the summary")
    return p


def _summary(values: np.ndarray) -> str:
    return (f"min {number(values.min())}, median {number(np.median(values))}, "
            f"mean {number(values.mean())}, max {number(values.max())}")


def _stats(values: np.ndarray) -> dict:
    return {"min": values.min(), "median": np.median(values), "mean": values.mean(),
            "max": values.max()}


def info_summary(data, where: str, fmt: str, notes) -> dict:
    """What ``dpgraph info`` reports (not private: for inspecting your own data)."""
    from scipy.sparse.csgraph import connected_components

    W = data.weights
    degree = np.diff(W.indptr)
    summary = {"graph": {"source": where, "format": fmt}, "nodes": data.n, "edges": data.m,
               "weights": None, "degree": _stats(degree), "weighted_degree": None,
               "components": int(connected_components(W, directed=False)[0]),
               "isolated_nodes": int(np.count_nonzero(degree == 0)),
               "notes": [cli_message(str(w.message)) for w in notes]}
    if data.m:
        w = W.data
        kind = ("unweighted" if data.is_unweighted else
                "signed" if w.min() < 0 else "weighted")  # signed: a weight below 0
        summary["weights"] = {"min": w.min(), "max": w.max(), "kind": kind,
                              "total": data.total_weight}
        if not data.is_unweighted:
            summary["weighted_degree"] = _stats(data.degrees)
    return summary


def dask_summary(data, where: str, notes) -> dict:
    """:func:`info_summary` for Dask edge files: passes over the partitions, no in-memory
    matrix, so no components (None) and only the weighted degrees (None as unweighted degrees
    where the graph is weighted); every node comes from an edge (no isolated node)."""
    lo, hi = data.weight_range
    unweighted = data.m and lo == hi == 1.0
    kind = "unweighted" if unweighted else "signed" if lo < 0 else "weighted"
    degrees = np.asarray(data.degrees)
    return {"graph": {"source": where, "format": "dask"}, "nodes": data.n, "edges": data.m,
            "weights": {"min": lo, "max": hi, "kind": kind, "total": data.total_weight}
            if data.m else None,
            "degree": _stats(degrees) if unweighted or not data.m else None,
            "weighted_degree": None if unweighted or not data.m else _stats(degrees),
            "components": None, "isolated_nodes": 0,
            "notes": [cli_message(str(w.message)) for w in notes]}


def _dask_lines(s: dict) -> list:
    lines = [f"graph:       {s['graph']['source']}", "format:      dask edge files",
             f"nodes:       {number(s['nodes'])}", f"edges:       {number(s['edges'])}"]
    if s["weights"]:
        w = s["weights"]
        lines.append(f"weights:     [{number(w['min'])}, {number(w['max'])}] ({w['kind']}); "
                     f"total {number(w['total'])}")
    for key, label in (("degree", "degree:     "), ("weighted_degree", "w. degree:  ")):
        if s[key]:
            d = s[key]
            lines.append(f"{label} min {number(d['min'])}, median {number(d['median'])}, "
                         f"mean {number(d['mean'])}, max {number(d['max'])}")
    lines.append("components:  not computed for Dask edge files")
    lines.extend(f"note:        {note}" for note in s["notes"])
    return lines


def _text_lines(data, where: str, fmt: str, s: dict) -> list:
    lines = [
        f"graph:       {where}",
        f"format:      {fmt}",
        f"nodes:       {number(data.n)}",
        f"edges:       {number(data.m)}",
    ]
    if s["weights"]:
        w = s["weights"]
        lines.append(f"weights:     [{number(w['min'])}, {number(w['max'])}] ({w['kind']}); "
                     f"total {number(w['total'])}")
    else:
        lines.append("weights:     (no edges)")
    lines.append(f"degree:      {_summary(np.diff(data.weights.indptr))}")
    if s["weighted_degree"]:
        lines.append(f"w. degree:   {_summary(data.degrees)}")
    isolated = s["isolated_nodes"]
    lines.append(f"components:  {number(s['components'])}" +
                 (f" ({number(isolated)} isolated node" + ("" if isolated == 1 else "s") + ")"
                  if isolated else ""))
    for note in s["notes"]:
        lines.append(f"note:        {note}")
    return lines


def cmd_info(args) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data, where, fmt = load_graph(args)
    s = dask_summary(data, where, caught) if fmt == "dask" else \
        info_summary(data, where, fmt, caught)
    if fmt == "networkx":  # a NetworkX built-in data set: how it is read (karate: unweighted)
        from dpgraph.datasets import BUILTIN

        s["notes"].append(f"{args.graph}: {BUILTIN[args.graph]}")
    if fmt == "dask" and not args.json:
        print("\n".join(_dask_lines(s)))
        return 0
    if args.json:
        print(dumps(info_document(s)))
        return 0
    print("\n".join(_text_lines(data, where, fmt, s)))
    return 0
