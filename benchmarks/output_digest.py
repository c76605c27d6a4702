"""Digests of seeded outputs of the public API and the command line, for refactors.

Run it before and after a change that must not change results, and diff the two files:

    PYTHONPATH=. python benchmarks/output_digest.py /tmp/before.json   # on the old commit
    PYTHONPATH=. python benchmarks/output_digest.py /tmp/after.json    # on the new one
    diff /tmp/before.json /tmp/after.json

Covered: ``max_cut`` and ``max_bisection`` (default and every route), ``privatize`` (every
route: weights, sample, budget spent), ``release_synthetic`` and ``max_2csp`` (local and
randomized response) on karate, a planted graph and chameleon (``$DPGRAPH_DATA``), and the
``maxcut``, ``bisection`` and ``synth`` commands (stdout and written files; stderr carries clock
times and is left out). Seeded runs are NOT private: this is a regression check only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings

import networkx as nx
import numpy as np

import dpgraph
from dpgraph.graph import to_scipy

ROUTES = ("randomized-response", "pca", "matrix-free", "local")


def digest(x) -> str:
    """A short hash of an array (its bytes and dtype) or of a value's repr, with memory
    addresses and clock times removed."""
    if isinstance(x, np.ndarray) and x.dtype != object:
        return hashlib.sha256(np.ascontiguousarray(x).tobytes() + str(x.dtype).encode()).hexdigest()[:16]
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, dict):
        x = sorted((repr(k), repr(v)) for k, v in x.items())
    text = re.sub(r" at 0x[0-9a-f]+|time=[0-9.e+-]+s", "", repr(x))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def result_digest(result) -> dict:
    """Every dataclass field of a result (the engine's own result is left out: it carries
    timings), and the ledger's charges."""
    out = {f.name: digest(getattr(result, f.name)) for f in dataclasses.fields(result)
           if f.name != "solver"}
    out["charges"] = [(e.name, e.mechanism, e.epsilon, e.delta) for e in result.ledger.entries]
    return out


def graph_digest(g) -> str:
    return digest(to_scipy(g).toarray())


def api_digests(graphs: dict) -> dict:
    out = {}
    for name, G in graphs.items():
        for eps in (0.5, 2.0):
            for solve in (dpgraph.max_cut, dpgraph.max_bisection):
                out[f"{solve.__name__}/{name}/{eps}"] = result_digest(
                    solve(G, epsilon=eps, delta=1e-6, rng=3))
        out[f"release_synthetic/{name}"] = graph_digest(
            dpgraph.release_synthetic(G, epsilon=1.0, rng=11).sample(rng=2))
        if name == "chameleon":
            continue  # the dense routes: small graphs only
        for route in ROUTES:
            out[f"max_cut/{name}/{route}"] = result_digest(
                dpgraph.max_cut(G, epsilon=2.0, delta=1e-6, rng=3, route=route))
            pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rng=5, route=route)
            weights = digest(np.asarray(pg.weights())) if route != "local" else None
            out[f"privatize/{name}/{route}"] = {"sample": graph_digest(pg.sample(rng=7)),
                                                "weights": weights,
                                                "spent": repr(pg.ledger.spent)}
    different = {(a, b) for a in range(3) for b in range(3) if a != b}
    instance = dpgraph.CSPInstance(34, 3, [(i, j, different, 1.0)
                                          for i, j in graphs["karate"].edges()])
    for options in (None, {"route": "randomized-response"}):
        out[f"max_2csp/{options}"] = result_digest(
            dpgraph.max_2csp(instance, epsilon=2.0, delta=1e-6, rng=4, privatize_options=options))
    return out


def cli_digests() -> dict:
    out = {}
    base = ["planted-cut-n1000-d20", "--epsilon", "1", "--seed", "3"]
    runs = (["maxcut", *base, "--delta", "1e-6", "--json"],
            ["bisection", *base, "--delta", "1e-6", "--json"],
            ["synth", *base],
            ["synth", *base, "--delta", "1e-6", "--mechanism", "privatize"])
    with tempfile.TemporaryDirectory() as tmp:
        for k, args in enumerate(runs):
            path = os.path.join(tmp, f"out{k}.edges")
            extra = ["-o", path] if args[0] == "synth" else []
            p = subprocess.run([sys.executable, "-m", "dpgraph", *args, *extra],
                               capture_output=True, text=True)
            written = open(path).read() if os.path.exists(path) else ""
            out[" ".join(args)] = {"rc": p.returncode,
                                   "stdout": digest(p.stdout.replace(path, "OUT")),
                                   "file": digest(written)}
    return out


def main(path: str) -> None:
    warnings.simplefilter("ignore")
    data = os.environ.get("DPGRAPH_DATA", "")
    graphs = {"karate": nx.Graph(nx.karate_club_graph().edges()),
              "planted": dpgraph.datasets.planted_cut(300, 12, rng=1).graph}
    chameleon = os.path.join(data, "social", "chameleon.txt")
    if os.path.exists(chameleon):
        graphs["chameleon"] = dpgraph.read_graph(chameleon)
    out = {"api": api_digests(graphs), "cli": cli_digests()}
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, default=repr)
    print(f"wrote {path}: {len(out['api'])} API digests, {len(out['cli'])} commands")


if __name__ == "__main__":
    main(sys.argv[1])
