"""Benchmarks for the degree-2 SoS CSP engine (dpgraph.engine).

Usage (from the repository root)::

    DPGRAPH_DATA=/work/shared/datasets python benchmarks/bench_csp.py gset
    python benchmarks/bench_csp.py speed [--scs-timeout 400] [--scs800]
    python benchmarks/bench_csp.py growth [--max-m 1000000]
    python benchmarks/bench_csp.py dense [--sizes 2000 5000] [--tol 1e-6]
    python benchmarks/bench_csp.py csp [--sizes 10 30 60] [--q 3]

Prints one table per section. Times are wall-clock seconds on a shared machine; each section
also reports a ratio against a baseline measured in the same run (SCS for 'speed'; one
W @ V product, V of width 32, for 'growth' and 'dense').
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpgraph.engine import cvxpy_max_cut_sdp, solve_max_cut  # noqa: E402

GSET = {  # name: (published SDP value, best known cut)
    "G3": (12084.33, 11622),
    "G35": (8014.74, 7687),
    "G48": (6000.0, 6000),
    "G81": (None, 14030),
}


def read_gset(path):
    # G-set parser: a few lines of numpy until dpgraph.io.read_graph lands on main (swap it in then)
    with open(path) as f:
        n = int(f.readline().split()[0])
    d = np.loadtxt(path, skiprows=1, ndmin=2)
    i, j = d[:, 0].astype(int) - 1, d[:, 1].astype(int) - 1
    return sp.coo_array((np.r_[d[:, 2], d[:, 2]], (np.r_[i, j], np.r_[j, i])), shape=(n, n)).tocsr()


def random_graph(n, mean_degree, rng):
    m = int(n * mean_degree / 2)
    i = rng.integers(0, n, m)
    j = rng.integers(0, n, m)
    keep = i != j
    i, j = i[keep], j[keep]
    W = sp.coo_array((np.ones(i.size), (np.r_[i][:], j)), shape=(n, n))
    W = ((W + W.T) > 0).astype(float).tocsr()
    return W


def product_time(W, k=32, reps=3):
    V = np.random.default_rng(0).standard_normal((W.shape[0], k))
    best = np.inf
    for _ in range(reps):
        t = time.perf_counter()
        W @ V
        best = min(best, time.perf_counter() - t)
    return best


def bench_gset(args):
    root = os.environ.get("DPGRAPH_DATA")
    if not root:
        sys.exit("set DPGRAPH_DATA to the benchmark data folder")
    print("| graph | n | m | SDP (ours) | SDP (published) | rel. diff | certified UB | cert. gap "
          "(UB-SDP)/SDP | certificate | cut | best known | cut/best | time total (sdp, cert) s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.graphs:
        W = read_gset(Path(root) / "gset" / f"{name}.txt")
        pub, best = GSET[name]
        t = time.perf_counter()
        r = solve_max_cut(W, rng=0)
        tot = time.perf_counter() - t
        rel = "n/a" if pub is None else f"{(r.sdp_value - pub) / pub:+.1e}"
        print(f"| {name} | {W.shape[0]} | {W.nnz // 2} | {r.sdp_value:.2f} | {pub if pub else 'n/a'} | {rel} | "
              f"{r.upper_bound:.2f} | {(r.upper_bound - r.sdp_value) / r.sdp_value:.1e} | "
              f"{r.info['certificate']} | {r.value:.0f} | {best} | {r.value / best:.4f} | "
              f"{tot:.1f} ({r.timings['sdp']:.1f}, {r.timings['certificate']:.1f}) |", flush=True)


def bench_speed(args):
    print("| n | m | low-rank SDP | low-rank time s (sdp+cert) | certified UB | SCS value | SCS status "
          "| SCS time s | rel. diff | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    sizes = [400, 800] if args.scs800 else [400]
    solve_max_cut(random_graph(200, 10, np.random.default_rng(1)), rng=0)  # warm-up (imports, ARPACK)
    for n in sizes + ([] if args.scs800 else [800]):
        rng = np.random.default_rng(n)
        W = random_graph(n, 10, rng)
        r = solve_max_cut(W, rng=0, tol=1e-7, n_hyperplanes=0, seeds=0, local_search=False)
        ours = r.timings["sdp"] + r.timings["certificate"]
        if n in sizes:
            val, _, secs, status = cvxpy_max_cut_sdp(W, eps=1e-5, time_limit=args.scs_timeout)
            rel = (r.sdp_value - val) / val
            print(f"| {n} | {W.nnz // 2} | {r.sdp_value:.3f} | {ours:.2f} | {r.upper_bound:.3f} | {val:.3f} | "
                  f"{status} | {secs:.1f} | {rel:+.1e} | {secs / ours:.0f}x |", flush=True)
        else:
            print(f"| {n} | {W.nnz // 2} | {r.sdp_value:.3f} | {ours:.2f} | {r.upper_bound:.3f} | not run | "
                  f"- | - | - | - |", flush=True)


def bench_growth(args):
    print("| n | m | iterations | sdp s | certificate | cert s | total s | cert. gap | "
          "total / one W@V (k=32) |")
    print("|---|---|---|---|---|---|---|---|---|")
    ms, ts = [], []
    m = 10_000
    while m <= args.max_m:
        n = m // 5
        W = random_graph(n, 10, np.random.default_rng(m))
        base = product_time(W)
        t = time.perf_counter()
        r = solve_max_cut(W, rng=0, n_hyperplanes=32, seeds=0, local_search=True)
        tot = time.perf_counter() - t
        ms.append(W.nnz // 2)
        ts.append(tot)
        print(f"| {n} | {W.nnz // 2} | {r.info['iterations']} | {r.timings['sdp']:.2f} | {r.info['certificate']} | "
              f"{r.timings['certificate']:.2f} | {tot:.2f} | {(r.upper_bound - r.sdp_value) / r.sdp_value:.1e} | "
              f"{tot / base:.0f} |", flush=True)
        m = int(m * np.sqrt(10))
    if len(ms) >= 2:
        slope = np.polyfit(np.log(ms), np.log(ts), 1)[0]
        print(f"\nfitted exponent: total time ~ m^{slope:.2f}")


def bench_dense(args):
    print("| n | tol | entries | rank | iterations | sdp s | certificate | cert s | total s | cert. gap "
          "| cut/UB | total / one W@V (k=32) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        rng = np.random.default_rng(n)
        # a pipeline-like dense non-negative weight matrix: low rank plus small noise, clipped
        U = rng.random((n, 5))
        W = U @ U.T / 5 + 0.05 * rng.random((n, n))
        W = np.maximum((W + W.T) / 2, 0.0)
        np.fill_diagonal(W, 0.0)
        base = product_time(W)
        t = time.perf_counter()
        r = solve_max_cut(W, rng=0, n_hyperplanes=32, tol=args.tol)
        tot = time.perf_counter() - t
        print(f"| {n} | {args.tol:g} | {n * n:,} | {r.info['rank']} | {r.info['iterations']} | {r.timings['sdp']:.1f} | "
              f"{r.info['certificate']} | {r.timings['certificate']:.1f} | {tot:.1f} | "
              f"{(r.upper_bound - r.sdp_value) / r.sdp_value:.1e} | {r.value / r.upper_bound:.4f} | "
              f"{tot / base:.0f} |", flush=True)
        del W


def bench_csp(args):
    from dpgraph.engine import CSPInstance, solve_max_2csp

    print("| n | q | m | N = nq+1 | SDP value | certified UB | value | value/UB | SCS s | total s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        rng = np.random.default_rng(n)
        q = args.q
        cons = []
        for _ in range(3 * n):
            i, j = rng.choice(n, 2, replace=False)
            rel = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.35}
            cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
        inst = CSPInstance(n, q, cons)
        t = time.perf_counter()
        r = solve_max_2csp(inst, method="scs", rng=0, scs_eps=1e-6)
        tot = time.perf_counter() - t
        print(f"| {n} | {q} | {inst.m} | {n * q + 1} | {r.sdp_value:.4f} | {r.upper_bound:.4f} | {r.value:.4f} | "
              f"{r.value / r.upper_bound:.4f} | {r.info['scs_seconds']:.1f} | {tot:.1f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gset")
    g.add_argument("--graphs", nargs="+", default=list(GSET))
    s = sub.add_parser("speed")
    s.add_argument("--scs-timeout", type=float, default=400.0)
    s.add_argument("--scs800", action="store_true", help="also run SCS at n = 800 (slow)")
    gr = sub.add_parser("growth")
    gr.add_argument("--max-m", type=int, default=1_000_000)
    d = sub.add_parser("dense")
    d.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000])
    d.add_argument("--tol", type=float, default=1e-6)
    c = sub.add_parser("csp")
    c.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 60])
    c.add_argument("--q", type=int, default=3)
    args = ap.parse_args()
    {"gset": bench_gset, "speed": bench_speed, "growth": bench_growth, "dense": bench_dense,
     "csp": bench_csp}[args.cmd](args)


if __name__ == "__main__":
    main()
