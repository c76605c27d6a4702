"""Which block structure would a synthetic graph need? A NON-PRIVATE oracle.

Samples :func:`dpgraph.synthetic.sampler.sample_block_model` with the TRUE degrees, inside shares and
block edge counts of four partitions of the true graph -- one block, logarithmic degree classes
(``floor(log2 d)``, capped at 9), the true graph's Louvain communities, and Louvain x classes --
and scores the samples with :func:`dpgraph.lab.evaluate.synthetic_report` (path error, modularity
error of the true Louvain partition, EVC top-1% overlap, clustering error, NMI; with
``--max-cut`` also the max-cut transfer, and a fifth partition, Louvain x the sides of the max
cut that dpgraph.solve_max_cut finds on the true graph). Diagnosis only:
it reads the graph freely; it shows which released structure is worth paying privacy for.

Usage (repository root):
    PYTHONPATH=. python benchmarks/bench_synthetic_oracle.py --graphs chameleon,ca-hepph
"""

import argparse
import os
import warnings
from pathlib import Path

import igraph as ig
import numpy as np
import scipy.sparse as sp

from dpgraph.lab.evaluate import graph_statistics, synthetic_report
from dpgraph.graph import from_matrix
from dpgraph.io import read_graph
from dpgraph.synthetic.block_model import block_edge_counts, degree_split
from dpgraph.synthetic.sampler import sample_block_model

DATA = Path(os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")) / "social"
KEYS = ("path_rel_error", "modularity_rel_error", "evc_overlap", "clustering_rel_error", "nmi")


def score(t, ts, A, d, blocks, samples, keys, ref=None):
    b = np.unique(blocks, return_inverse=True)[1]
    C = block_edge_counts(A, b)
    inside = degree_split(A, b)[:, 0] / np.maximum(d, 1)
    out = []
    for s in range(samples):
        S = sample_block_model(b, C, d, inside=inside, rng=s, labels=t.labels)
        r = synthetic_report(t, S, rng=0, true_stats=ts, max_cut=ref is not None,
                             reference_cut=None if ref is None else ref.value)
        out.append([r[k] for k in keys])
    return int(b.max()) + 1, np.mean(out, axis=0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", default="chameleon,ca-hepph")
    p.add_argument("--samples", type=int, default=2)
    p.add_argument("--max-cut", action="store_true",
                   help="also score the max-cut transfer (and add Louvain x max-cut sides)")
    args = p.parse_args()
    keys = KEYS + (("maxcut_transfer",) if args.max_cut else ())
    warnings.simplefilter("ignore")
    for name in args.graphs.split(","):
        raw = read_graph(DATA / f"{name}.txt")
        t = from_matrix(raw.weights, tuple(range(raw.n)), source=name)
        A = t.weights.copy()
        A.data[:] = 1.0
        d = np.asarray(A.sum(axis=1)).ravel()
        ts = graph_statistics(t, rng=0)
        g = ig.Graph(n=t.n, edges=np.column_stack(sp.triu(A).nonzero()).tolist())
        print(f"\n{name}: n={t.n}, m={t.m}, degree assortativity {g.assortativity_degree():.3f}, "
              f"mean path {ts['avg_path']:.3f}")
        louv = np.asarray(ts["louvain"])
        classes = np.minimum(np.log2(np.maximum(d, 1)).astype(int), 9)
        parts = [("one block", np.zeros(t.n, dtype=int)), ("degree classes", classes),
                 ("true Louvain", louv), ("Louvain x classes", louv * 16 + classes)]
        ref = None
        if args.max_cut:
            from dpgraph.engine import solve_max_cut

            ref = solve_max_cut(t, rng=0, tol=1e-3, certificate="auto")
            parts.append(("Louvain x max-cut sides", louv * 2 + (np.asarray(ref.x) > 0)))
        print("| partition | blocks | " + " | ".join(keys) + " |")
        print("|---|---|" + "---|" * len(keys))
        for label, blocks in parts:
            k, m = score(t, ts, A, d, blocks, args.samples, keys, ref)
            print(f"| {label} | {k} | " + " | ".join(f"{x:.3f}" for x in m) + " |")


if __name__ == "__main__":
    main()
