"""Machine-readable output of the ``dpgraph`` command (``--json``): one JSON document on stdout.

The schema is documented in ``docs/cli.md``; every document carries ``"schema"`` (its name and
version, e.g. ``"dpgraph.cut/1"``). Values are converted by :func:`jsonable`: NumPy scalars and
arrays become numbers and lists, tuples and sets become lists, and the non-finite floats, which
JSON has no literal for, become the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` (so
any strict JSON parser reads the document). Progress lines stay on stderr.
"""

from __future__ import annotations

import json
import re
import secrets

from dpgraph.result import jsonable, privacy_fields

__all__ = ["jsonable", "dumps", "cut_document", "synth_document", "info_document",
           "csp_document"]


def dumps(document: dict) -> str:
    """The document as strict JSON (``allow_nan=False``: :func:`jsonable` ran first), indented,
    with every list of plain values (numbers, strings, booleans, nulls) on one line: a
    partition of 10^6 nodes is two lines (``nodes`` and ``sides``), not two million. The
    parsed document is the same as with ``json.dumps(..., indent=2)``.

    >>> print(dumps({"partition": {"sizes": [2, 1], "sides": [0, 1, 0]}}))
    {
      "partition": {
        "sizes": [2, 1],
        "sides": [0, 1, 0]
      }
    }
    """
    flat: list = []
    nonce = secrets.token_hex(8)  # no value of the document can be mistaken for a token
    token = f"@@dpgraph-list-{nonce}-{{}}@@"

    def mark(value):
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            if all(v is None or isinstance(v, (bool, int, float, str)) for v in value):
                flat.append(json.dumps(value, allow_nan=False, separators=(", ", ": ")))
                return token.format(len(flat) - 1)
            return [mark(v) for v in value]
        return value

    text = json.dumps(mark(jsonable(document)), allow_nan=False, indent=2)
    if not flat:
        return text
    parts = re.split(f'"@@dpgraph-list-{nonce}-([0-9]+)@@"', text)
    out = [parts[0]]
    for k in range(1, len(parts), 2):
        out.append(flat[int(parts[k])])
        out.append(parts[k + 1])
    return "".join(out)


def side_sizes(res) -> list:
    """``[n0, n1]``: the numbers of nodes whose side (assignment) is 0 and 1, as the command
    numbers sides (``res.partition`` lists side 1 first)."""
    ones = sum(res.assignment.values())
    return [len(res.assignment) - ones, ones]


def cut_document(res, *, problem: str, where: str, fmt: str, out: str | None,
                 notes=()) -> dict:
    """``dpgraph maxcut|bisection --json``: schema ``dpgraph.cut/1`` (docs/cli.md)."""
    diag = dict(res.diagnostics)
    pg_diag = dict(res.private_graph.diagnostics)
    return {
        "schema": "dpgraph.cut/1",
        "command": problem,
        "problem": "max-cut" if problem == "maxcut" else "max-bisection",
        "graph": {"source": where, "format": fmt, "nodes": res.private_graph.n},
        "partition": {"sizes": side_sizes(res), "file": out,
                      "nodes": list(res.assignment), "sides": list(res.assignment.values())},
        **res.estimate_fields(),
        "certified_upper_bound": res.certified_upper_bound,
        "certified_ratio": res.certified_ratio,
        "certificate": res.certificate,
        "route": pg_diag.get("route"),
        "rank": diag.get("rank"),
        "objective": diag.get("objective"),
        "notes": list(notes),
        **privacy_fields(res.ledger),
        "diagnostics": {**diag, "release": pg_diag},
    }


def synth_document(pg, out_data, *, where: str, fmt: str, path: str, weighted: bool,
                   notes=(), nodes_in_file: int | None = None) -> dict:
    """``dpgraph synth --json``: schema ``dpgraph.synth/1`` (docs/cli.md). ``rank`` is the
    rank of the low-rank release (``pg.private_rank``): null where the route released none
    (randomized response, the local route, the block model), not the rank that was asked for;
    capped where the release was (``n - 2``); the private directions on the matrix-free route
    (its factors add the public degree direction). ``nodes_in_file``: the nodes the written
    file lists (an edge-list format lists no isolated node), None for Dask edge files."""
    diag = dict(pg.diagnostics)
    rank = getattr(pg, "private_rank", None)
    return {
        "schema": "dpgraph.synth/1",
        "command": "synth",
        "graph": {"source": where, "format": fmt, "nodes": pg.n},
        "output": {"file": path, "weighted": weighted, "nodes": out_data.n,
                   "edges": out_data.m, "total_weight": out_data.total_weight,
                   "nodes_in_file": nodes_in_file},
        "route": diag.get("route"),
        "rank": rank,
        "mechanism": diag.get("low_rank_mechanism", diag.get("mechanism")),
        "notes": list(notes),
        **privacy_fields(pg.ledger),
        "diagnostics": diag,
    }


def info_document(summary: dict) -> dict:
    """``dpgraph info --json``: schema ``dpgraph.info/1`` (docs/cli.md). Not private."""
    return {"schema": "dpgraph.info/1", "command": "info", "private_release": False, **summary}


def csp_document(res, *, source: str, fmt: str, n: int, q: int, names, values,
                 relation_size, out: str | None, notes=()) -> dict:
    """``dpgraph max2csp --json``: schema ``dpgraph.csp/1`` (docs/cli.md). ``n``, ``q`` and
    the relation-size bound are public; the number of constraints is not (it is not given)."""
    return {
        "schema": "dpgraph.csp/1",
        "command": "max2csp",
        "instance": {"source": source, "format": fmt, "variables": n, "values": q,
                     "relation_size": relation_size},
        "assignment": {"variables": list(names), "values": list(values), "file": out},
        **res.estimate_fields(),
        "route": res.diagnostics.get("route"),
        "notes": list(notes),
        **privacy_fields(res.ledger),
        "diagnostics": dict(res.diagnostics),
    }
