"""Benchmarks for dpgraph.privacy / dpgraph.mechanisms (figures in BENCHMARKS.md).

Usage: python benchmarks/bench_mechanisms.py [section ...]
sections: spectral, dykstra, cosine, marginals, covariance (default: all)

Timings on a shared machine are only meaningful as ratios against the baseline measured in
the same run.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's dpgraph

from dpgraph.mechanisms import NonNegative, SpectralBall, dykstra, averaged_projections


def _table(head, rows):
    rows = [tuple(str(c) for c in r) for r in rows]
    w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("| " + " | ".join(h.ljust(x) for h, x in zip(head, w)) + " |")
    print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(x) for c, x in zip(r, w)) + " |")
    sys.stdout.flush()


def _pipeline_instance(n, r=10, seed=0, radius_factor=1.1):
    """X = C + symmetric noise (entries N(0,1)), C = B B^T = U diag(s) U^T with B >= 0 of rank r
    and entries of C about 0.64 (so the non-negativity constraint binds on ~1/4 of the entries);
    radius = radius_factor * 2 sqrt(n), the noise's spectral-norm edge."""
    rng = np.random.default_rng(seed)
    B = np.abs(rng.standard_normal((n, r))) / math.sqrt(r)
    U, R = np.linalg.qr(B)
    M = R @ R.T
    s, Q = np.linalg.eigh(M)
    U = U @ Q  # C = B B^T = U diag(s) U^T
    sigma = 1.0
    W = rng.standard_normal((n, n)) * sigma
    W = (W + W.T) / math.sqrt(2)
    X = (U * s) @ U.T + W
    del W
    radius = 2.0 * sigma * math.sqrt(n) * radius_factor
    return X, U, s, radius


def bench_spectral(ns=(2000, 5000)):
    print("\n## SpectralBall projection: partial eigsh vs full eigh (same run)\n")
    rows = []
    for n in ns:
        for rf, clip in ((1.1, True), (0.9, False)):
            X, U, s, radius = _pipeline_instance(n, radius_factor=rf)
            if clip:  # the point the spectral step sees inside the pipeline solve
                np.maximum(X, 0, out=X)
            part = SpectralBall((U, s), radius, method="partial")
            full = SpectralBall((U * s) @ U.T, radius, method="eigh")
            t0 = time.perf_counter()
            a = part.project(X)
            tp = time.perf_counter() - t0
            t0 = time.perf_counter()
            b = full.project(X)
            tf = time.perf_counter() - t0
            err = float(np.abs(a - b).max())
            rows.append((n, f"{rf} x edge", "max(X, 0)" if clip else "X", part.last_num_eigenpairs, f"{tp:.2f}", f"{tf:.2f}",
                         f"{tf / tp:.1f}x", f"{err:.1e}"))
            del a, b, X
            print(rows[-1], flush=True)
    _table(("n", "radius", "input", "pairs outside", "partial s", "full eigh s", "speed-up", "max |diff|"),
           rows)

    print("\n## NonNegative ∩ SpectralBall (pipeline projection), radius 1.1 x edge, tol 1e-6")
    print("(full-eigh runs are time-boxed to 3 sweeps: compare s/iter)\n")
    rows = []
    for n in ns:
        X, U, s, radius = _pipeline_instance(n)
        for meth in ("partial", "eigh"):
            center = (U, s) if meth == "partial" else (U * s) @ U.T
            cap = 300 if meth == "partial" else 3
            for solver in ("dykstra (dual FISTA)", "alternating"):
                S = [NonNegative(), SpectralBall(center, radius, method=meth)]
                t0 = time.perf_counter()
                if solver == "alternating":
                    r = averaged_projections(X, S, tol=1e-6, max_iter=cap, method="alternating")
                else:
                    r = dykstra(X, S, tol=1e-6, max_iter=cap, accelerate=True)
                t = time.perf_counter() - t0
                rows.append((n, meth, solver, r.iterations, r.converged, f"{r.residual:.1e}",
                             f"{t:.1f}", f"{t / r.iterations:.2f}"))
                print(rows[-1], flush=True)
                del r
    _table(("n", "eigensolver", "algorithm", "iterations", "converged", "residual", "time s",
            "s/iter"), rows)


def _load_adult():
    root = Path(os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")) / "tabular"
    domain = json.loads((root / "adult-domain.json").read_text())
    import csv
    with open(root / "adult.csv") as f:
        rd = csv.reader(f)
        head = next(rd)
        T = np.array([[int(v) for v in row] for row in rd], dtype=np.int64)
    sizes = [int(domain[h]) for h in head]
    return T, sizes, head


def _true_tables(T, sizes, k):
    out = {}
    for S in itertools.combinations(range(len(sizes)), k):
        dims = [sizes[a] for a in S]
        code = np.ravel_multi_index(tuple(T[:, a] for a in S), dims)
        out[S] = np.bincount(code, minlength=int(np.prod(dims))).reshape(dims) / T.shape[0]
    return out


def bench_marginals(ks=(2, 3), seeds=(0,), epsilon=1.0, delta=1e-9):
    from dpgraph.mechanisms.onehot import onehot_marginals
    from dpgraph.mechanisms.sets import project_simplex
    from dpgraph.privacy import PrivacyLedger, gaussian_mechanism

    T, sizes, head = _load_adult()
    m = T.shape[0]
    print(f"\n## Marginals on adult.csv (m = {m}, {len(sizes)} attributes, one-hot n = "
          f"{sum(sizes)}), epsilon = {epsilon}, delta = {delta}\n")
    rows = []
    for k in ks:
        truth = _true_tables(T, sizes, k)
        keys = list(truth)
        for seed in seeds:
            # baseline: Gaussian on every k-way table (L2 sensitivity sqrt(2 * #tables)), then
            # each table projected onto {x >= 0, sum x = m}
            flat = np.concatenate([truth[S].ravel() * m for S in keys])
            noisy, sig_b = gaussian_mechanism(flat, sensitivity=math.sqrt(2 * len(keys)),
                                              epsilon=epsilon, delta=delta,
                                              ledger=PrivacyLedger(epsilon, delta), name="base",
                                              rng=seed + 1000)
            tv_b, pos = [], 0
            for S in keys:
                sz = truth[S].size
                p = project_simplex(noisy[pos:pos + sz], float(m)) / m
                pos += sz
                tv_b.append(0.5 * np.abs(p - truth[S].ravel()).sum())
            t0 = time.perf_counter()
            res = onehot_marginals(T, sizes, k, epsilon=epsilon, delta=delta, rng=seed,
                                   tol=1e-5, max_iter=400 if k == 2 else 200)
            t = time.perf_counter() - t0
            tv = [0.5 * np.abs(res.tables[S] / m - truth[S]).sum() for S in keys]
            rows.append((k, len(keys), seed, f"{np.mean(tv_b):.4f}", f"{np.mean(tv):.4f}",
                         f"{sig_b:.2f}", f"{res.sigma:.2f}", res.projection.iterations,
                         f"{res.projection.residual:.1e}", f"{t:.0f}"))
            print(rows[-1], flush=True)
    _table(("k", "tables", "seed", "Gaussian+simplex TV", "perturb-and-project TV",
            "sigma base", "sigma ours", "iterations", "residual", "time s"), rows)


SECTIONS = {"spectral": bench_spectral, "marginals": bench_marginals}

if __name__ == "__main__":
    which = sys.argv[1:] or list(SECTIONS)
    import numpy, scipy
    print(f"numpy {numpy.__version__}, scipy {scipy.__version__}")
    for w in which:
        SECTIONS[w]()
