"""Benchmarks for dpgraph.privacy / dpgraph.mechanisms (figures in BENCHMARKS.md).

Usage: python benchmarks/bench_mechanisms.py [section ...]
sections: spectral, dykstra, cosine, marginals (marginals2 / marginals3: one k), covariance
(default: spectral, dykstra, cosine, marginals, covariance)

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
        for rf, clip in ((1.1, True), (0.9, False)) if n <= 2000 else ((1.1, True),):
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
    print("(full-eigh runs are time-boxed to 2 sweeps: compare s/iter)\n")
    rows = []
    for n in ns:
        X, U, s, radius = _pipeline_instance(n)
        for meth in ("partial", "eigh"):
            center = (U, s) if meth == "partial" else (U * s) @ U.T
            cap = 300 if meth == "partial" else 2
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


def bench_marginals(ks=(2, 3), adjacencies=("replace-one", "add-remove"), seed=0,
                    epsilon=1.0, delta=1e-9):
    from dpgraph.mechanisms.onehot import onehot_marginals
    from dpgraph.mechanisms.sets import project_simplex
    from dpgraph.privacy import PrivacyLedger, gaussian_mechanism

    T, sizes, head = _load_adult()
    m = T.shape[0]
    print(f"\n## Marginals on adult.csv (m = {m}, {len(sizes)} attributes, one-hot n = "
          f"{sum(sizes)}), epsilon = {epsilon}, delta = {delta}, seed {seed}\n")
    rows = []
    for k in ks:
        truth = _true_tables(T, sizes, k)
        keys = list(truth)
        for adj in adjacencies:
            per_table = 2 if adj == "replace-one" else 1
            # baseline: Gaussian on every k-way table (L2 sensitivity sqrt(per_table * #tables)),
            # then each table projected onto {x >= 0, sum x = m} (replace-one: m public; for
            # add-remove m is replaced by the inverse-variance mean of the noisy table totals)
            flat = np.concatenate([truth[S].ravel() * m for S in keys])
            noisy, sig_b = gaussian_mechanism(flat, sensitivity=math.sqrt(per_table * len(keys)),
                                              epsilon=epsilon, delta=delta,
                                              ledger=PrivacyLedger(epsilon, delta), name="base",
                                              rng=seed + 1000)
            tv_b, pos = [], 0
            if adj == "add-remove":  # m private: inverse-variance mean of the noisy totals
                sz_ = np.array([truth[S].size for S in keys])
                sums_ = np.add.reduceat(noisy, np.concatenate([[0], np.cumsum(sz_)[:-1]]))
                m_hat = max(float((sums_ / sz_).sum() / (1.0 / sz_).sum()), 1.0)
            for S in keys:
                sz = truth[S].size
                y = noisy[pos:pos + sz]
                tot = float(m) if adj == "replace-one" else m_hat
                p = project_simplex(y, tot) / tot
                pos += sz
                tv_b.append(0.5 * np.abs(p - truth[S].ravel()).sum())
            t0 = time.perf_counter()
            res = onehot_marginals(T, sizes, k, epsilon=epsilon, delta=delta, rng=seed,
                                   tol=1e-5, max_iter=500 if k == 2 else 300, adjacency=adj)
            t = time.perf_counter() - t0
            tv = [0.5 * np.abs(res.tables[S] / res.m - truth[S]).sum() for S in keys]
            rows.append((k, len(keys), adj, f"{np.mean(tv_b):.4f}", f"{np.mean(tv):.4f}",
                         f"{sig_b:.2f}", f"{res.sigma:.2f}", res.projection.iterations,
                         f"{res.projection.residual:.1e}", f"{t:.0f}"))
            print(rows[-1], flush=True)
    _table(("k", "tables", "adjacency", "Gaussian+simplex TV", "perturb-and-project TV",
            "sigma base", "sigma ours", "iterations", "residual", "time s"), rows)


def bench_dykstra(ns=(10, 30, 50)):
    import cvxpy as cp

    from dpgraph.mechanisms import Box, DiagonalBox, PSDCone, PSDTraceBall

    print("\n## Dykstra vs CVXPY+SCS (eps 1e-9), max |difference|, time ratio\n")
    cases = {
        "PSD ∩ [0, 0.5]": (lambda C: [PSDCone(), Box(0.0, 0.5)],
                           lambda X, C: [X >> 0, X >= 0, X <= 0.5]),
        "PSD ∩ diag <= 1": (lambda C: [PSDCone(), DiagonalBox(upper=1.0)],
                            lambda X, C: [X >> 0, cp.diag(X) <= 1]),
        "X >= 0 ∩ ||X - C||_2 <= 0.5": (lambda C: [NonNegative(), SpectralBall(C, 0.5)],
                                        lambda X, C: [X >= 0, cp.sigma_max(X - C) <= 0.5]),
        "{PSD, tr <= 1} ∩ X <= 0.05": (lambda C: [PSDTraceBall(1.0), Box(upper=0.05)],
                                       lambda X, C: [X >> 0, cp.trace(X) <= 1, X <= 0.05]),
    }
    rows = []
    for n in ns:
        rng = np.random.default_rng(n)
        B = np.abs(rng.standard_normal((n, 2)))
        C = B @ B.T / n
        A = rng.standard_normal((n, n))
        Z = C + (A + A.T) / 2
        for name, (ours, theirs) in cases.items():
            t0 = time.perf_counter()
            r = dykstra(Z, ours(C), tol=1e-10, max_iter=20000, accelerate=True)
            t_d = time.perf_counter() - t0
            X = cp.Variable((n, n), symmetric=True)
            t0 = time.perf_counter()
            cp.Problem(cp.Minimize(cp.sum_squares(X - Z)), theirs(X, C)).solve(
                solver=cp.SCS, eps_abs=1e-9, eps_rel=1e-9, max_iters=200000)
            t_c = time.perf_counter() - t0
            rows.append((n, name, r.iterations, f"{np.abs(r.point - X.value).max():.1e}",
                         f"{t_d:.2f}", f"{t_c:.2f}", f"{t_c / t_d:.1f}x"))
            print(rows[-1], flush=True)
    _table(("n", "set", "Dykstra sweeps", "max |diff|", "Dykstra s", "CVXPY s", "ratio"), rows)


def bench_cosine(n=2000, d=20, epsilon=1.0, delta=1e-6, exact_max_iter=40):
    from dpgraph.mechanisms import private_cosine_similarities
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.privacy.noise import symmetric_gaussian_noise

    rng = np.random.default_rng(0)
    centers = rng.standard_normal((8, d))
    V = centers[rng.integers(0, 8, n)] + 0.5 * rng.standard_normal((n, d))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    G = V @ V.T
    print(f"\n## Cosine similarities: n = {n} unit vectors in R^{d} (8 clusters), epsilon = "
          f"{epsilon}, delta = {delta}, Gram-Frobenius adjacency (Delta = 1)\n")
    rows = []
    W = symmetric_gaussian_noise(n, sensitivity=1 / math.sqrt(2), epsilon=epsilon, delta=delta,
                                 ledger=PrivacyLedger(), name="g", rng=1,
                                 diagonal_scale=math.sqrt(2)).to_dense()
    base = float(np.linalg.norm(W) ** 2)
    del W
    rows.append(("Gaussian mechanism (no projection)", f"{base:.4g}", "1.0", "", ""))
    for label, kw in (("practical: PSD + unit diagonal", dict(method="practical")),
                      (f"practical, rank {d}", dict(method="practical", rank=d)),
                      (f"exact (Alg. 3), <= {exact_max_iter} sweeps",
                       dict(method="exact", max_iter=exact_max_iter, tol=1e-6))):
        t0 = time.perf_counter()
        r = private_cosine_similarities(V, epsilon=epsilon, delta=delta, rng=1, **kw)
        t = time.perf_counter() - t0
        err = float(np.linalg.norm(r.similarities - G) ** 2)
        extra = "" if r.projection is None else (f"{r.projection.iterations} sweeps, residual "
                                                 f"{r.projection.residual:.1e}")
        rows.append((label, f"{err:.4g}", f"{base / err:.1f}", f"{t:.1f}", extra))
        print(rows[-1], flush=True)
    _table(("method", "squared Frobenius error", "Gaussian / this", "time s", "projection"),
           rows)
    print(f"sqrt(n) = {math.sqrt(n):.1f}")


def bench_covariance(m=16000, ds=(50, 200, 800), epsilon=1.0, delta=1e-6, jl_max_d=200):
    from dpgraph.mechanisms import jl_second_moment, private_second_moment

    print(f"\n## Second moment, m = {m} unit-norm rows, epsilon = {epsilon}, delta = {delta}, "
          f"K = {{PSD, tr <= 1}}: Frobenius error\n")
    rows = []
    for d in ds:
        rng = np.random.default_rng(d)
        X = rng.standard_normal((m, d)) * (1.0 / np.arange(1, d + 1)) ** 0.5
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        S = X.T @ X / m
        t0 = time.perf_counter()
        r = private_second_moment(X, epsilon=epsilon, delta=delta, rng=1)
        t = time.perf_counter() - t0
        g = float(np.linalg.norm(r.noisy - S))
        p = float(np.linalg.norm(r.estimate - S))
        row = [d, f"{g:.4f}", f"{p:.4f}", f"{g / p:.1f}x", f"{t:.1f}"]
        if d <= jl_max_d:
            D = d * (d + 1) // 2
            ell = min(D, 4000)
            t0 = time.perf_counter()
            j = jl_second_moment(X, epsilon=epsilon, delta=delta, jl_dim=ell, rng=2,
                                 max_iter=300, tol=1e-6)
            tj = time.perf_counter() - t0
            row += [ell, f"{np.linalg.norm(j.estimate - S):.4f}", f"{tj:.1f}"]
        else:
            row += ["not run (time-box)", "", ""]
        rows.append(tuple(row))
        print(rows[-1], flush=True)
    _table(("d", "Gaussian", "perturb-and-project", "Gaussian / P&P", "time s", "JL dim",
            "JL mechanism", "JL time s"), rows)


SECTIONS = {"spectral": bench_spectral, "dykstra": bench_dykstra, "cosine": bench_cosine,
            "marginals": bench_marginals, "covariance": bench_covariance,
            "marginals2": lambda: bench_marginals(ks=(2,)),
            "marginals3": lambda: bench_marginals(ks=(3,)),
            "marginals3-ar": lambda: bench_marginals(ks=(3,), adjacencies=("add-remove",)),
            "marginals2-seeds": lambda: [bench_marginals(ks=(2,), adjacencies=("add-remove",),
                                                         seed=s) for s in (1, 2)]}

if __name__ == "__main__":
    which = sys.argv[1:] or ["spectral", "dykstra", "cosine", "marginals", "covariance"]
    import numpy, scipy
    print(f"numpy {numpy.__version__}, scipy {scipy.__version__}")
    for w in which:
        SECTIONS[w]()
