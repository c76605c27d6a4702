"""release_synthetic's cost checks, three modes:

* ``scale N M``: a heavy-tailed random graph (N nodes, about M edges, endpoints drawn with
  Pareto(2.5) + 1 weights) held in memory; ``release_synthetic(epsilon=1 and 4)`` + ``.sample()``
  timed, with the blocks, the sampled edge ratio, isolated nodes and the peak RSS.
* ``real NAME[,NAME...]``: graphs of ``$DPGRAPH_DATA/social`` (email-Enron, soc-douban: beyond
  every PGB peer's dense n x n input on this machine), the same timings; with
  ``/usr/bin/time -v`` around the process for its peak RSS.
* ``tracemalloc``: one chameleon generation (epsilon 1), the fastest of 5 CPU times without and
  with tracemalloc running -- why bench_synthetic_baseline times without it.

Usage (repository root):
    PYTHONPATH=. python benchmarks/bench_synthetic_scale.py scale 1000000 10000000
    PYTHONPATH=. python benchmarks/bench_synthetic_scale.py real email-Enron,soc-douban
    PYTHONPATH=. python benchmarks/bench_synthetic_scale.py tracemalloc
"""

import os
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import from_matrix
from dpgraph.io import read_graph

DATA = Path(os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")) / "social"


def heavy_tailed(n: int, m: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    w = rng.pareto(2.5, n) + 1
    p = w / w.sum()
    u, v = rng.choice(n, m, p=p), rng.choice(n, m, p=p)
    ok = u != v
    A = sp.coo_array((np.ones(ok.sum()), (np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok]))),
                     shape=(n, n)).tocsr()
    A = (A + A.T).tocsr()
    A.data[:] = 1.0
    return from_matrix(A, range(n), source=f"heavy-tailed n={n}")


def scale(n: int, m: int):
    t = time.perf_counter()
    data = heavy_tailed(n, m)
    print(f"n {data.n}, m {data.m} (built in {time.perf_counter() - t:.1f} s)", flush=True)
    run(data)


def real(names: str):
    for name in names.split(","):
        t = time.perf_counter()
        raw = read_graph(DATA / f"{name}.txt")
        data = from_matrix(raw.weights, range(raw.n), source=name)
        print(f"{name}: n {data.n}, m {data.m} (read in {time.perf_counter() - t:.1f} s)",
              flush=True)
        run(data)


def run(data):
    for eps in (1.0, 4.0):
        t, c = time.perf_counter(), time.process_time()
        rel = dpgraph.release_synthetic(data, epsilon=eps, rng=1)
        t_rel = time.perf_counter() - t
        S = rel.sample(rng=2)
        iso = int((np.asarray(S.weights.sum(axis=1)).ravel() == 0).sum())
        print(f"epsilon {eps:g}: release {t_rel:.1f} s, sample {time.perf_counter() - t - t_rel:.1f}"
              f" s, CPU {time.process_time() - c:.1f} s, {rel.block_model.block_counts.shape[0]} "
              f"blocks, sampled / true edges {S.m / data.m:.3f}, isolated {iso}, "
              f"diagnostics {rel.diagnostics}", flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


def tracemalloc_overhead():
    raw = read_graph(DATA / "chameleon.txt")
    data = from_matrix(raw.weights, tuple(range(raw.n)), source="chameleon")

    def generate():
        dpgraph.release_synthetic(data, epsilon=1.0, rng=17).sample(rng=18)

    generate()
    for traced in (False, True):
        best = float("inf")
        for _ in range(5):
            if traced:
                tracemalloc.start()
            c = time.process_time()
            generate()
            best = min(best, time.process_time() - c)
            if traced:
                tracemalloc.stop()
        print(f"{'with' if traced else 'without'} tracemalloc: {best:.4f} CPU s")


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # seeded releases warn (benchmarks are reproducible runs)
    if sys.argv[1:2] == ["scale"]:
        scale(int(float(sys.argv[2])), int(float(sys.argv[3])))
    elif sys.argv[1:2] == ["real"]:
        real(sys.argv[2])
    elif sys.argv[1:2] == ["tracemalloc"]:
        tracemalloc_overhead()
    else:
        sys.exit(__doc__)
