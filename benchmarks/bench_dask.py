"""Dask edge lists vs the in-memory matrix-free route.

Three modes, each one process (the client's peak RSS is that of the process):

``small [n] [mean_degree] [partitions]``
    Writes a planted two-block graph as Parquet and measures in one run the in-memory product
    ``W @ X`` (n x 3) and ``max_cut(route="matrix-free")``, then the same on a
    ``distributed.LocalCluster`` with 1 and 2 workers (one thread each, 4 GiB limit): reading,
    time per product (with its breakdown), end to end, peak RSS of each worker and the client.
``dask FOLDER WORKERS``
    A Parquet folder (e.g. from make_edge_parquet.py) on ``WORKERS`` workers: read, products,
    ``max_cut`` end to end, peak RSS; the partition and estimate go to FOLDER-result-WORKERS.json.
``sample FOLDER WORKERS OUT``
    A matrix-free release of FOLDER; its synthetic graph drawn by Dask tasks and written to OUT
    (Parquet), then by the in-memory sampler from the same seed: time and peak RSS of each.
``local FOLDER WORKERS [epsilon]``
    The degree-ordered local route (``max_cut``'s default on sparse graphs) on ``WORKERS``
    workers against the same graph in memory: passes (batches), wall time after the read,
    client and worker peaks, and whether the in-memory run with the Dask plan gives the same
    partition for the same seed.
``compare FOLDER WORKERS [reps]``
    Reads FOLDER on ``WORKERS`` workers, collects the same graph on the client as an in-memory
    CSR (the in-memory route's ``GraphData``), then alternates in-memory and Dask products
    (interleaved, same run) and runs ``max_cut`` in memory; compares with the Dask result file.

Product breakdown (Dask): ``scatter`` = sending the n x k iterate to every worker
(``client.scatter(broadcast=True)``), ``tasks`` = running the block products with the iterate
already there and returning one number each (scheduling + arithmetic), ``arith`` = the
arithmetic alone (CPU seconds inside the tasks, summed over blocks, divided by the workers),
``gather`` = the rest: moving the blocks' results to the client and assembling them.

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_dask.py MODE ARGS...
"""

import hashlib
import json
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
KW = dict(epsilon=2.0, delta=1e-6, rng=0, route="matrix-free")


def _peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB


def _hwm(reset: bool = False) -> float:
    """Peak RSS of this process since the last reset (VmHWM, GiB); ``reset`` starts a new one
    (Linux: ``/proc/self/clear_refs``), so that a phase's peak can be told from the read's."""
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 2**20
    if reset:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    return peak


def _worker_peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _products(W, X, reps=3) -> float:
    t = time.perf_counter()
    for _ in range(reps):
        W @ X
    return (time.perf_counter() - t) / reps


def _timed_matmul(block, X):
    from dpgraph.io.dask import _block_matmul

    t = time.process_time()
    Y = _block_matmul(block, X)
    return time.process_time() - t, float(Y[0, 0]) if Y.size else 0.0


def _breakdown(client, dg, X, workers, reps=3) -> dict:
    """Seconds per product: total, scatter of X, tasks (returning a number), arithmetic, rest."""
    import dask

    out = {"total": _products(dg.weights, X, reps)}
    t = time.perf_counter()
    for _ in range(reps):
        Xs = client.scatter(X, broadcast=True, hash=False)
        del Xs
    out["scatter"] = (time.perf_counter() - t) / reps
    Xs = client.scatter(X, broadcast=True, hash=False)
    t = time.perf_counter()
    for _ in range(reps):
        res = dask.compute(*[dask.delayed(_timed_matmul, pure=False)(b, Xs) for b in dg.blocks])
    out["tasks"] = (time.perf_counter() - t) / reps
    out["arith"] = sum(r[0] for r in res) / workers
    out["gather"] = max(out["total"] - out["scatter"] - out["tasks"], 0.0)
    return out


def _fmt_breakdown(b) -> str:
    return (f"scatter {b['scatter']:.3f} s, tasks {b['tasks']:.3f} s (arithmetic "
            f"{b['arith']:.3f} s per worker), gather/assemble {b['gather']:.3f} s")


def _cluster(workers):
    import distributed

    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       dashboard_address=None, memory_limit="4GiB")
    return cluster, distributed.Client(cluster)


def _digest(assignment) -> str:
    return hashlib.sha256(json.dumps(sorted(assignment.items())).encode()).hexdigest()[:16]


def small(n=100_000, d=40.0, parts=8):
    import dask.dataframe as dd
    import pandas as pd

    inst = dpgraph.datasets.planted_cut(n, d, rng=1)
    g = inst.graph
    A = g.weights.tocoo()
    keep = A.row < A.col
    folder = tempfile.mkdtemp(prefix="bench-dask-")
    df = pd.DataFrame({"u": A.row[keep].astype(np.int64), "v": A.col[keep].astype(np.int64)})
    dd.from_pandas(df, npartitions=parts).to_parquet(folder)
    del df, A
    print(f"graph: planted n={n:,}, m={g.m:,}, {parts} Parquet partitions; load "
          f"{os.getloadavg()[0]:.1f}")
    X = np.random.default_rng(0).standard_normal((n, 3))
    t_mem = _products(g.weights, X)
    t0 = time.perf_counter()
    r = dpgraph.max_cut(g, **KW)
    e2e_mem = time.perf_counter() - t0
    print("| path | read | product W @ X (n x 3) | max_cut end to end | peak RSS per worker | "
          "client peak RSS |")
    print("|---|---|---|---|---|---|")
    print(f"| in memory (CSR) | - | {t_mem:.3f} s | {e2e_mem:.1f} s | - | {_peak_rss():.2f} GiB |")
    for workers in (1, 2):
        cluster, client = _cluster(workers)
        with cluster, client:
            t0 = time.perf_counter()
            dg = dpgraph.io.dask.read_edge_files(folder, weight=None)
            t_read = time.perf_counter() - t0
            b = _breakdown(client, dg, X, workers)
            t0 = time.perf_counter()
            rd = dpgraph.max_cut(dg, **KW)
            e2e = time.perf_counter() - t0
            peaks = client.run(_worker_peak)
            same = "same partition" if rd.assignment == r.assignment else "different partition"
            print(f"| Dask, {workers} worker(s) | {t_read:.1f} s | {b['total']:.3f} s "
                  f"({b['total'] / t_mem:.1f}x) | {e2e:.1f} s ({same}) | "
                  f"{max(peaks.values()):.2f} GiB | {_peak_rss():.2f} GiB |", flush=True)
            print(f"  breakdown ({len(dg.blocks)} blocks): {_fmt_breakdown(b)}", flush=True)
            del dg
    print(f"load after: {os.getloadavg()}")
    shutil.rmtree(folder, ignore_errors=True)


def dask_run(folder, workers):
    folder = os.path.normpath(folder)
    print(f"dask on {folder}, {workers} worker(s); load {os.getloadavg()}", flush=True)
    cluster, client = _cluster(workers)
    with cluster, client:
        t0, c0 = time.perf_counter(), time.process_time()
        dg = dpgraph.io.dask.read_edge_files(folder, weight=None)
        t_read = time.perf_counter() - t0
        print(f"read: {dg!r} in {t_read:.1f} s (client CPU {time.process_time() - c0:.1f} s); "
              f"client peak {_peak_rss():.2f} GiB, workers {client.run(_worker_peak)}",
              flush=True)
        X = np.random.default_rng(0).standard_normal((dg.n, 3))
        b = _breakdown(client, dg, X, workers)
        print(f"product n x 3: {b['total']:.2f} s; {_fmt_breakdown(b)}", flush=True)
        del X
        before = _hwm(reset=True)
        t0, c0 = time.perf_counter(), time.process_time()
        r = dpgraph.max_cut(dg, **KW)
        e2e, cpu = time.perf_counter() - t0, time.process_time() - c0
        peaks = client.run(_worker_peak)
        print(f"max_cut end to end: {e2e:.1f} s (after the read; client CPU {cpu:.1f} s); "
              f"estimate {r.estimated_value:.6g}; partition {_digest(r.assignment)}", flush=True)
        print(f"peak RSS: client {_peak_rss():.2f} GiB (before max_cut {before:.2f}, during "
              f"max_cut {_hwm():.2f}), workers {peaks}; load {os.getloadavg()}", flush=True)
        with open(f"{folder}-result-{workers}.json", "w") as f:
            json.dump({"estimate": r.estimated_value, "digest": _digest(r.assignment),
                       "read_s": t_read, "product_s": b["total"], "e2e_s": e2e}, f)


def sample_run(folder, workers, out):
    """The synthetic graph of a matrix-free release of FOLDER, drawn by Dask tasks and written
    to OUT as Parquet (client and worker peaks), then drawn in memory by ``pg.sample`` from the
    same seed (client peak); the edge counts must agree (the same graph)."""
    import pandas as pd

    folder = os.path.normpath(folder)
    print(f"sample on {folder}, {workers} worker(s); load {os.getloadavg()}", flush=True)
    cluster, client = _cluster(workers)
    with cluster, client:
        dg = dpgraph.io.dask.read_edge_files(folder, weight=None)
        pg = dpgraph.privatize(dg, epsilon=2.0, delta=1e-6, rng=0, route="matrix-free")
        del dg
        client.run(lambda: _hwm(reset=True))
        before = _hwm(reset=True)
        t0, c0 = time.perf_counter(), time.process_time()
        m = pg.write_sample(out, rng=1)
        t_dask, c_dask = time.perf_counter() - t0, time.process_time() - c0
        peak_dask = _hwm(reset=True)
        workers_peak = client.run(lambda: _hwm())
        files = len(os.listdir(out))
        print(f"Dask sampler: {m:,} edges in {files} Parquet files, {t_dask:.1f} s (client CPU "
              f"{c_dask:.1f} s); client peak {peak_dask:.2f} GiB (before {before:.2f}); "
              f"worker peaks {workers_peak}; load {os.getloadavg()}", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    G = pg.sample(rng=1)
    t_mem, c_mem = time.perf_counter() - t0, time.process_time() - c0
    print(f"in-memory sampler: {G.m:,} edges, {t_mem:.1f} s (CPU {c_mem:.1f} s); client peak "
          f"{_hwm():.2f} GiB; same edge count: {G.m == m}; load {os.getloadavg()}", flush=True)
    first = pd.read_parquet(os.path.join(out, "part-00000.parquet"))
    A = G.weights.tocoo()
    up = (A.row < A.col) & (A.row < len(pg.labels))
    same = np.array_equal(first["u"].to_numpy(), np.asarray(pg.labels)[A.row[up]][:len(first)])
    print(f"first partition equals the in-memory sample's first rows: {same}")


def compare(folder, workers, reps=3):
    """Interleaved products, in memory vs Dask, in one run; then max_cut in memory."""
    import dask
    import scipy.sparse as sp
    from dpgraph.graph import GraphData

    folder = os.path.normpath(folder)
    print(f"compare on {folder}, {workers} worker(s); load {os.getloadavg()}", flush=True)
    cluster, client = _cluster(workers)
    with cluster, client:
        dg = dpgraph.io.dask.read_edge_files(folder, weight=None)
        n, nnz = dg.n, 2 * dg.m
        itype = np.int32 if nnz < 2**31 else np.int64  # as scipy would choose
        indptr = np.zeros(n + 1, dtype=itype)
        indices = np.empty(nnz, dtype=itype)
        data = np.ones(nnz, dtype=np.float64)
        pos = 0
        for blk in dg.blocks:  # one block at a time to the client
            got = dask.compute(blk)[0]
            B, lo = got.matrix, got.lo
            k = B.nnz
            indices[pos:pos + k] = B.indices
            indptr[lo + 1: lo + 1 + B.shape[0]] = pos + B.indptr[1:]
            data[pos:pos + k] = B.data
            pos += k
            del B, got
        W = sp.csr_array((data, indices, indptr), shape=(n, n))
        W.has_sorted_indices = True
        g = GraphData(weights=W, labels=dg.labels)
        print(f"in-memory CSR: {n:,} nodes, {nnz:,} stored entries, "
              f"{(W.data.nbytes + W.indices.nbytes + W.indptr.nbytes) / 2**30:.2f} GiB; client "
              f"peak {_peak_rss():.2f} GiB", flush=True)
        X = np.random.default_rng(0).standard_normal((n, 3))
        tm, td, cm = [], [], []
        for _ in range(reps):
            t, c = time.perf_counter(), time.process_time()
            Ym = W @ X
            tm.append(time.perf_counter() - t)
            cm.append(time.process_time() - c)
            t = time.perf_counter()
            Yd = dg.weights @ X
            td.append(time.perf_counter() - t)
        print(f"products n x 3 ({reps} each, interleaved): in memory {np.median(tm):.2f} s wall "
              f"({np.median(cm):.2f} CPU s), Dask {np.median(td):.2f} s wall: ratio "
              f"{np.median(td) / np.median(tm):.2f}; identical results: "
              f"{bool(np.array_equal(Ym, Yd))}; load {os.getloadavg()}", flush=True)
        del Yd
    t0 = time.perf_counter()
    r = dpgraph.max_cut(g, **KW)
    e2e = time.perf_counter() - t0
    print(f"in-memory max_cut end to end: {e2e:.1f} s; estimate {r.estimated_value:.6g}; "
          f"partition {_digest(r.assignment)}; client peak {_peak_rss():.2f} GiB; load "
          f"{os.getloadavg()}", flush=True)
    for w in (1, 2):
        path = f"{folder}-result-{w}.json"
        if os.path.exists(path):
            res = json.load(open(path))
            print(f"  Dask {w} worker(s): estimate {res['estimate']:.6g}, partition "
                  f"{res['digest']} ({'same' if res['digest'] == _digest(r.assignment) else 'different'})")


def local_run(folder, workers, epsilon=1.0):
    """The degree-ordered local route (``max_cut``'s default on sparse graphs) on FOLDER: on
    ``WORKERS`` workers (every batch of decisions is one pass over the edges), then in memory on
    the same graph collected to the client, once with the Dask plan (same batches: the same
    partition for the same seed) and once with the in-memory plan: wall time, passes, client
    and worker peaks."""
    from dpgraph.release.routes import local
    from dpgraph.solve import cut_local

    kw = dict(epsilon=epsilon, delta=1e-6, rng=0, route="local")
    folder = os.path.normpath(folder)
    print(f"local route on {folder}, {workers} worker(s), eps {epsilon}; load "
          f"{os.getloadavg()}", flush=True)
    cluster, client = _cluster(workers)
    with cluster, client:
        t0 = time.perf_counter()
        dg = dpgraph.io.dask.read_edge_files(folder, weight=None)
        t_read = time.perf_counter() - t0
        print(f"read: {dg!r} in {t_read:.1f} s; client peak {_peak_rss():.2f} GiB", flush=True)
        client.run(lambda: _hwm(reset=True))
        before = _hwm(reset=True)
        t0, c0 = time.perf_counter(), time.process_time()
        r = dpgraph.max_cut(dg, **kw)
        e2e, cpu = time.perf_counter() - t0, time.process_time() - c0
        diag = r.private_graph.diagnostics
        print("ledger: " + "; ".join(e.name for e in r.ledger.entries))
        print(f"Dask max_cut (local route): {e2e:.1f} s after the read (client CPU {cpu:.1f} s); "
              f"{diag.get('batches')} batches; partition {_digest(r.assignment)}; client peak "
              f"during max_cut {_hwm():.2f} GiB (before {before:.2f}); worker peaks "
              f"{client.run(lambda: _hwm())}; load {os.getloadavg()}", flush=True)
        dask_digest = _digest(r.assignment)
        g = dg.to_graph_data()
        del dg
    print(f"in memory: {g!r}, CSR {(g.weights.data.nbytes + g.weights.indices.nbytes) / 2**30:.2f}"
          f" GiB", flush=True)
    real = local.plan_local
    for name, plan in (("Dask plan", lambda *a, **k: real(*a, **{**k, "passes_cost": True})),
                       ("in-memory plan", real)):
        local.plan_local = cut_local.plan_local = plan
        try:
            before = _hwm(reset=True)
            t0, c0 = time.perf_counter(), time.process_time()
            rm = dpgraph.max_cut(g, **kw)
            e2e_m, cpu_m = time.perf_counter() - t0, time.process_time() - c0
        finally:
            local.plan_local = cut_local.plan_local = real
        same = _digest(rm.assignment) == dask_digest
        print(f"in-memory max_cut, {name}: {e2e_m:.1f} s (CPU {cpu_m:.1f} s); "
              f"{rm.private_graph.diagnostics.get('batches')} batches; partition "
              f"{_digest(rm.assignment)} ({'same as' if same else 'differs from'} Dask); "
              f"peak {_hwm():.2f} GiB (graph held: {before:.2f}); Dask / in memory "
              f"{e2e / e2e_m:.2f}x; load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    mode, *a = sys.argv[1:] or ["small"]
    if mode == "small":
        small(int(float(a[0])) if a else 100_000, float(a[1]) if len(a) > 1 else 40.0,
              int(a[2]) if len(a) > 2 else 8)
    elif mode == "dask":
        dask_run(a[0], int(a[1]))
    elif mode == "sample":
        sample_run(a[0], int(a[1]), a[2])
    elif mode == "local":
        local_run(a[0], int(a[1]), float(a[2]) if len(a) > 2 else 1.0)
    elif mode == "compare":
        compare(a[0], int(a[1]), int(a[2]) if len(a) > 2 else 3)
    else:
        raise SystemExit(__doc__)
