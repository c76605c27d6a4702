"""Benchmarks for dpgraph.privacy / dpgraph.mechanisms (figures in BENCHMARKS.md).

Usage: python benchmarks/bench_mechanisms.py [section ...]
sections: spectral, dykstra, cosine, marginals, covariance (default: all)

Timings on a shared machine are only meaningful as ratios against the baseline measured in
the same run.
"""

from __future__ import annotations

import json
import math
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


SECTIONS = {"spectral": bench_spectral}

if __name__ == "__main__":
    which = sys.argv[1:] or list(SECTIONS)
    import numpy, scipy
    print(f"numpy {numpy.__version__}, scipy {scipy.__version__}")
    for w in which:
        SECTIONS[w]()
