"""Max-Bisection measurements of benchmarks/NOTES.md (bisection anneal, factor-form rebalance).

Usage (repository root, ``DPGRAPH_DATA`` set for the G-set modes):

    python benchmarks/bench_bisection.py anneal G81 3
        free Max-Cut anneal + rebalance vs the balance-penalised anneal (+ rebalance), each for
        the given seconds from one random bisection (seed 0); also 'hub' (K_100,900 plus 20,000
        random edges inside the 900) instead of a G-set name
    python benchmarks/bench_bisection.py limits G81 2,4.23,10
        solve_max_bisection(g, rng=0, time_limit=T) for each T, after one warm-up call
    python benchmarks/bench_bisection.py matrix-free 200000 20 1 0
        private max_bisection (epsilon, seed) on the matrix-free route of a planted graph
        (dpgraph.datasets.planted_cut(n, d, rng=0)); CPU seconds and the true cut (NOT private)

NOT private where it prints true cuts: benchmark only.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import networkx as nx
import numpy as np

import dpgraph
from dpgraph.engine import as_weight_operator
from dpgraph.engine.local_search import anneal, prepare
from dpgraph.engine.rounding import cut_values, rebalance


def _gset(name):
    return dpgraph.read_graph(os.path.join(os.environ["DPGRAPH_DATA"], "gset", name + ".txt"))


def _hub():
    G = nx.complete_bipartite_graph(100, 900)
    H = nx.gnm_random_graph(900, 20000, seed=2)
    G.add_edges_from((u + 100, v + 100) for u, v in H.edges())
    return G


def anneals(name, seconds):
    op = as_weight_operator(_hub() if name == "hub" else _gset(name))
    prep = prepare(op)
    n = op.n
    x0 = np.ones(n)
    x0[np.random.default_rng(0).permutation(n)[: n // 2]] = -1.0
    for label, kw in (("penalised", dict(balanced=True)), ("free", {})):
        x, _, sweeps = anneal(op, x0, time_limit=seconds, rng=1, prepared=prep, **kw)
        x, _ = rebalance(op, x)
        print(f"{name} {label}+rebalance {seconds} s: {float(cut_values(op, x)):.0f} "
              f"({sweeps} sweeps)", flush=True)


def limits(name, limits_s):
    g = _gset(name)
    dpgraph.solve_max_bisection(g, rng=0, time_limit=0.3)  # numba kernels loaded
    for T in limits_s:
        t, c = time.perf_counter(), time.process_time()
        r = dpgraph.solve_max_bisection(g, rng=0, time_limit=T)
        print(f"{name} time_limit={T}: {r.value:.0f} (imbalance {int(r.x.sum())}), "
              f"{time.perf_counter() - t:.2f} s wall, {time.process_time() - c:.2f} s CPU, "
              f"bound {r.upper_bound:.1f} ({r.info.get('certificate')}), "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


def matrix_free(n, d, epsilon, seed):
    from dpgraph.lab.evaluate import cut_value  # NOT private

    g = dpgraph.datasets.planted_cut(n, d, rng=0)
    g = g.graph if hasattr(g, "graph") else g
    c = time.process_time()
    r = dpgraph.max_bisection(g, epsilon=epsilon, delta=1e-6, route="matrix-free", rng=seed)
    print(f"n={n} d={d} eps={epsilon} seed={seed}: {time.process_time() - c:.1f} CPU s, "
          f"sides {[len(p) for p in r.partition]}, true cut {cut_value(g, r.partition):.0f}",
          flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "anneal":
        anneals(args[0], float(args[1]))
    elif mode == "limits":
        limits(args[0], [float(t) for t in args[1].split(",")])
    elif mode == "matrix-free":
        matrix_free(int(float(args[0])), float(args[1]), float(args[2]), int(args[3]))
    else:
        raise SystemExit(__doc__)
