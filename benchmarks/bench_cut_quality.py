"""Cut quality at equal wall time: dpgraph vs dwave-neal's annealer vs NetworkX one_exchange.

Usage (from the repository root; the annealer is a benchmark-only dependency,
``pip install -e .[bench]`` or ``pip install dwave-neal``)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 DPGRAPH_DATA=/work/shared/datasets \\
        python benchmarks/bench_cut_quality.py [--gset G3,G35,G48,G81] [--random 1000:10000,...]
        [--problem maxcut|bisection] [--seed 0] [--one-exchange-max-m 2000]

For every graph, in one run: dwave-neal ``SimulatedAnnealingSampler().sample`` (10 reads x 1000
sweeps; timed on a prebuilt BQM, so its input conversion is not charged), then
``dpgraph.solve_max_cut(G, time_limit=<the annealer's time>)`` (everything charged: SDP,
certificate, rounding, improvement), then dpgraph with its default settings (no time limit), and
NetworkX's ``one_exchange`` where ``m <= --one-exchange-max-m``. Cut / best known uses the
published best cuts of the G-set (Benlic and Hao 2013); on random graphs it is the best cut any
method found in this run. ``--problem bisection`` compares balanced cuts: the annealer's and
one_exchange's cuts are not balanced, so the annealer's Max-Cut is printed as an (unbalanced)
reference and sets the time limit; every dpgraph bisection is checked to be exactly balanced.
The untimed dpgraph rows (default settings, descent only) are skipped above
``--untimed-max-m`` edges. Each row also gives the load average when it finished.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpgraph  # noqa: E402
from dpgraph.engine import as_weight_operator, cut_value  # noqa: E402
from dpgraph.engine.local_search import numba_available  # noqa: E402
from dpgraph.io import read_graph  # noqa: E402

BEST_KNOWN = {"G3": 11622, "G35": 7687, "G48": 6000, "G81": 14030}


def random_gnm(n: int, m: int, seed: int):
    """G(n, m)-like simple graph: m distinct random pairs (unit weights)."""
    rng = np.random.default_rng(seed)
    got = np.zeros(0, dtype=np.int64)
    while got.size < m:
        i = rng.integers(0, n, 2 * m)
        j = rng.integers(0, n, 2 * m)
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        key = lo[lo != hi] * n + hi[lo != hi]
        got = np.unique(np.r_[got, key])
    key = rng.permutation(got)[:m]
    i, j = key // n, key % n
    W = sp.coo_array((np.ones(2 * m), (np.r_[i, j], np.r_[j, i])), shape=(n, n)).tocsr()
    return W


def run_neal(W, seed: int):
    import dimod
    import neal

    U = sp.triu(W, k=1).tocoo()
    bqm = dimod.BinaryQuadraticModel.from_ising(
        {i: 0.0 for i in range(W.shape[0])},
        {(int(i), int(j)): float(w) for i, j, w in zip(U.row, U.col, U.data)})
    sampler = neal.SimulatedAnnealingSampler()
    t = time.perf_counter()
    ss = sampler.sample(bqm, num_reads=10, num_sweeps=1000, seed=seed)
    dt = time.perf_counter() - t
    first = ss.first.sample  # once: each .first re-packs the whole sample set
    s = np.array([first[i] for i in range(W.shape[0])], dtype=np.float64)
    return s, dt


def run_one_exchange(W, seed: int):
    import networkx as nx

    G = nx.from_scipy_sparse_array(W)
    t = time.perf_counter()
    _, (A, _B) = nx.algorithms.approximation.one_exchange(G, seed=seed)
    dt = time.perf_counter() - t
    x = -np.ones(W.shape[0])
    x[list(A)] = 1.0
    return x, dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gset", default="G3,G35,G48,G81")
    ap.add_argument("--random", default="200:1000,1000:10000,10000:100000,100000:1000000",
                    help="comma-separated n:m pairs of random graphs")
    ap.add_argument("--problem", default="maxcut", choices=("maxcut", "bisection"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one-exchange-max-m", type=int, default=2000,
                    help="one_exchange recomputes the whole cut for every candidate vertex "
                         "(O(n m) per move), so it runs only on graphs this small")
    ap.add_argument("--untimed-max-m", type=int, default=200_000,
                    help="run the untimed dpgraph rows (default, descent only) up to this many edges")
    ap.add_argument("--extra-limits", default="10",
                    help="extra dpgraph time limits in seconds (comma-separated; '' for none)")
    args = ap.parse_args(argv)
    data = os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")
    graphs = []
    for name in filter(None, args.gset.split(",")):
        g = read_graph(os.path.join(data, "gset", f"{name}.txt"))
        graphs.append((name, g.weights, BEST_KNOWN.get(name)))
    for k, spec in enumerate(filter(None, args.random.split(","))):
        n, m = (int(v) for v in spec.split(":"))
        graphs.append((f"random n={n} m={m}", random_gnm(n, m, args.seed + k), None))
    bis = args.problem == "bisection"
    solver = dpgraph.solve_max_bisection if bis else dpgraph.solve_max_cut
    extra = [float(v) for v in args.extra_limits.split(",") if v]
    # load the numba kernels once before any timing (like the annealer's compiled extension,
    # which is loaded at import); first use in a process otherwise pays the cache load
    solver(random_gnm(50, 200, 0), rng=0, time_limit=0.05)
    print(f"# {platform.python_version()}, numpy {np.__version__}, numba "
          f"{'yes' if numba_available() else 'no'}, load {os.getloadavg()}", flush=True)
    print("| graph | n | m | method | cut | cut / best | time s | dpgraph bound (gap; certificate) | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, W, best in graphs:
        op = as_weight_operator(W, check=False)
        n, m = W.shape[0], W.nnz // 2
        rows = []
        t_ref = None
        def load():
            return f"{os.getloadavg()[0]:.1f}"

        def timed(label, **kw):
            t = time.perf_counter()
            r = solver(W, rng=args.seed, **kw)
            dt = time.perf_counter() - t  # everything the call did, wall clock
            if bis and abs(int(round(r.x.sum()))) > 1:
                raise SystemExit(f"{name}: {label} returned an unbalanced bisection")
            cert = r.info.get("certificate", "")
            rows.append((label, r.value, dt, f"{r.upper_bound:.1f} ({r.gap:.2%}; {cert})", load()))

        s, t_ref = run_neal(W, args.seed)
        rows.append(("dwave-neal (10 x 1000 sweeps)" + (", Max-Cut, unbalanced" if bis else ""),
                     cut_value(op, s), t_ref, "", load()))
        timed(f"dpgraph time_limit={t_ref:.2f}", time_limit=t_ref)
        for lim in extra:
            timed(f"dpgraph time_limit={lim:g}", time_limit=lim)
        if m <= args.untimed_max_m:
            timed("dpgraph default")
            timed("dpgraph descent only (tabu_moves=0, the old default)", tabu_moves=0)
        if not bis and m <= args.one_exchange_max_m:
            x, dt = run_one_exchange(W, args.seed)
            rows.append(("networkx one_exchange", cut_value(op, x), dt, "", load()))
        ref = best if best is not None else max(r[1] for r in rows if not (bis and "neal" in r[0]))
        for meth, v, dt, bound, ld in rows:
            print(f"| {name} | {n} | {m} | {meth} | {v:.0f} | {v / ref:.4f} | {dt:.2f} | {bound} | {ld} |",
                  flush=True)
    print(f"# load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
