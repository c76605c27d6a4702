"""Dask edge lists vs the in-memory matrix-free route (issue 12).

Writes a planted two-block graph as Parquet, then measures in one run: the in-memory product
``W @ X`` (n x 3, the private iteration's pass) and end-to-end ``max_cut(route="matrix-free")``,
and the same on a ``distributed.LocalCluster`` with 1 and 2 workers (one thread each): reading
(``from_dask``: id mapping, canonical edge list), time per product, end to end, peak RSS of
each worker and of the client.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_dask.py [n] [mean_degree] [partitions]
"""

import os
import resource
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np

import dpgraph
from dpgraph.privacy import ReproducibleNoiseWarning

warnings.simplefilter("ignore", ReproducibleNoiseWarning)


def _peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB


def _products(W, X, reps=3) -> float:
    t = time.perf_counter()
    for _ in range(reps):
        W @ X
    return (time.perf_counter() - t) / reps


def main(n=100_000, d=40.0, parts=8):
    import dask.dataframe as dd
    import distributed
    import pandas as pd

    inst = dpgraph.datasets.planted_cut(n, d, rng=1)
    g = inst.graph
    A = g.weights.tocoo()
    keep = A.row < A.col
    folder = tempfile.mkdtemp(prefix="bench-dask-")
    df = pd.DataFrame({"u": A.row[keep].astype(np.int64), "v": A.col[keep].astype(np.int64)})
    dd.from_pandas(df, npartitions=parts).to_parquet(folder)
    del df, A
    print(f"graph: planted n={n:,}, m={g.m:,}, {parts} Parquet partitions; load {os.getloadavg()[0]:.1f}")
    X = np.random.default_rng(0).standard_normal((n, 3))
    t_mem = _products(g.weights, X)
    t0 = time.perf_counter()
    r = dpgraph.max_cut(g, epsilon=2.0, delta=1e-6, rng=0, route="matrix-free")
    e2e_mem = time.perf_counter() - t0
    print("| path | read | product W @ X (n x 3) | max_cut end to end | peak RSS per worker | client peak RSS |")
    print("|---|---|---|---|---|---|")
    print(f"| in memory (CSR) | - | {t_mem:.3f} s | {e2e_mem:.1f} s | - | {_peak_rss():.2f} GiB |")
    ref = r.assignment
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                      dashboard_address=None, memory_limit="4GiB") as cluster, \
                distributed.Client(cluster) as client:
            t0 = time.perf_counter()
            dg = dpgraph.dask_graph.read_edge_files(folder, weight=None)
            _ = dg.degrees
            t_read = time.perf_counter() - t0
            t_prod = _products(dg.weights, X)
            t0 = time.perf_counter()
            rd = dpgraph.max_cut(dg, epsilon=2.0, delta=1e-6, rng=0, route="matrix-free")
            e2e = time.perf_counter() - t0
            peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
            same = "same partition" if rd.assignment == ref else "different partition"
            print(f"| Dask, {workers} worker(s) | {t_read:.1f} s | {t_prod:.3f} s "
                  f"({t_prod / t_mem:.1f}x) | {e2e:.1f} s ({same}) | "
                  f"{max(peaks.values()):.2f} GiB | {_peak_rss():.2f} GiB |", flush=True)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 100_000, float(args[1]) if len(args) > 1 else 40.0,
         int(args[2]) if len(args) > 2 else 8)
