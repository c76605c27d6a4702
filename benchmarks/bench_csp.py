"""Benchmarks for the degree-2 SoS CSP engine (dpgraph.engine).

Usage (from the repository root)::

    DPGRAPH_DATA=/work/shared/datasets python benchmarks/bench_csp.py gset
    python benchmarks/bench_csp.py speed [--scs-timeout 400] [--scs800]
    python benchmarks/bench_csp.py growth [--max-m 1000000]
    python benchmarks/bench_csp.py dense [--sizes 2000 5000] [--tol 1e-6]
    python benchmarks/bench_csp.py csp [--sizes 10 30 60] [--q 3]
    python benchmarks/bench_csp.py random [--sizes 60 500 2000 10000] [--scs-max-n 500]
    python benchmarks/bench_csp.py gap-time [--n 10000] [--rank 48] [--chunk 30] [--total 240]
    python benchmarks/bench_csp.py maxkcut [--graphs G3 G35 G48] [--k 3]
    python benchmarks/bench_csp.py private [--n 300] [--d 20] [--seeds 2]

Prints one table per section. Times are wall-clock seconds on a shared machine; each of the
Max-Cut sections also reports a ratio against a baseline measured in the same run (SCS for
'speed'; one W @ V product, V of width 32, for 'growth' and 'dense').

Max-2-CSP sections (the low-rank engine, Max-k-Cut on the G-set, private max_2csp; each prints
one markdown table, every row of a table from one run):

* ``random``: random instances (q = 3, 3n constraints, relations with each pair allowed with
  probability 0.35, weights uniform in [0.5, 2]; the family of ``csp``) at the given
  n: time, certified bound, relative gap of the certificate, rounded value / bound; CVXPY + SCS on
  the same relaxation in reduced coordinates (``cvxpy_label_sdp``) where ``--scs-max-n`` allows,
  with a time box.
* ``gap-time``: certified gap against time of the relaxation at one n (warm-started chunks).
* ``maxkcut``: Max-k-Cut of G-set graphs (``$DPGRAPH_DATA/gset``) read by ``dpgraph.read_csp``.
* ``private``: transfer ratio of ``dpgraph.max_2csp`` on planted permutation instances (below)
  against a random assignment and randomized response on the constraints.

Planted family (``planted_permutation_instance``): n variables, q = 3, a hidden uniform
assignment sigma; ``m = d n / 2`` distinct random pairs {i, j}, each with one constraint
"x_j = pi(x_i)" where pi is a uniformly random permutation of [q] with pi(sigma_i) = sigma_j
(|R| = q, weight 1). sigma satisfies every constraint (optimum m); a random assignment satisfies
m / q in expectation. ``relation_size = q`` is the public bound of the adjacency.

Randomized response on the constraints (the baseline): every label pair indicator of the
label-extended graph flipped with epsilon / q (group privacy over the q pairs of one
constraint; pure DP), de-biased, and solved by the same engine; its best assignment on the
release is returned (no private choice).
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

from dpgraph.engine import cvxpy_max_cut_sdp, solve_max_cut  # noqa: E402
from dpgraph.io import read_graph  # noqa: E402

GSET = {  # name: (published SDP value, best known cut)
    "G3": (12084.33, 11622),
    "G35": (8014.74, 7687),
    "G48": (6000.0, 6000),
    "G81": (None, 14030),
}


def read_gset(path):
    """The G-set file's weight matrix (:func:`dpgraph.io.read_graph`, format "gset")."""
    return read_graph(path, format="gset").weights


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


def _env():
    import scipy
    load = os.getloadavg()
    return (f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}; "
            f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


def random_instance(n, q=3, rng=None):
    from dpgraph.engine import CSPInstance

    rng = np.random.default_rng(n if rng is None else rng)
    cons = []
    for _ in range(3 * n):
        i, j = rng.choice(n, 2, replace=False)
        rel = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.35}
        cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
    return CSPInstance(n, q, cons)


def bench_random(args):
    from dpgraph.engine import solve_max_2csp
    from dpgraph.engine.twocsp_sdp import cvxpy_label_sdp

    print(f"<!-- {_env()} -->")
    print("| n | m | SDP value | certified UB | certificate | (UB - SDP)/UB | value | value/UB | "
          "rank | iterations | SDP s | certificate s | LDL^T factorizations, factor nnz | "
          "rounding+LS s | total s | total CPU s | SCS value | SCS s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        inst = random_instance(n)
        t, c = time.perf_counter(), time.process_time()
        r = solve_max_2csp(inst, rng=0, tol=args.tol, progress=args.progress, rank=args.rank,
                           certificate=args.certificate)
        tot, cpu = time.perf_counter() - t, time.process_time() - c
        scs_v, scs_t = "-", "-"
        if n <= args.scs_max_n:
            t = time.perf_counter()
            try:
                v = cvxpy_label_sdp(inst.label_adjacency(), n, inst.q, eps=1e-7,
                                    time_limit=args.scs_time)
                scs_v = f"{v:.4f}"
            except RuntimeError as exc:
                scs_v = f"failed ({exc})"
            scs_t = f"{time.perf_counter() - t:.1f}"
        tm = r.timings
        ldl = (f"{r.info['factorizations']}, {r.info['ldl_nnz_factor'] / 1e6:.1f}M"
               if "factorizations" in r.info else "-")
        print(f"| {n} | {inst.m} | {r.sdp_value:.4f} | {r.upper_bound:.4f} | {r.info['certificate']} | "
              f"{(r.upper_bound - r.sdp_value) / r.upper_bound:.1e} | {r.value:.4f} | "
              f"{r.value / r.upper_bound:.4f} | {r.info['rank']} | {r.info['iterations']} | {tm['sdp']:.1f} | "
              f"{tm['certificate']:.1f} | {ldl} | {tm['rounding'] + tm['local_search']:.1f} | {tot:.1f} | {cpu:.1f} | "
              f"{scs_v} | {scs_t} |", flush=True)
    print(f"<!-- {_env()} -->")


def bench_gap_time(args):
    """Certified gap against time at one n: the ascent runs in chunks of ``--chunk`` seconds
    (warm-started), the Lanczos certificate after each; times are cumulative (certificates
    included)."""
    from dpgraph.engine.twocsp_sdp import certify_label_sdp, default_label_rank, solve_label_sdp

    inst = random_instance(args.n)
    A, q = inst.label_adjacency(), inst.q
    k = args.rank or default_label_rank(args.n, q)
    print(f"<!-- {_env()} -->")
    print(f"n = {args.n}, q = {q}, m = {inst.m}, rank {k}, chunks of {args.chunk:g} s")
    print()
    print("| wall s | CPU s | iterations | SDP value | certified UB | (UB - SDP)/UB | "
          "lambda_max(S) bound |")
    print("|---|---|---|---|---|---|---|")
    t0, c0 = time.perf_counter(), time.process_time()
    init, its = None, 0
    while time.perf_counter() - t0 < args.total:
        sol = solve_label_sdp(A, args.n, q, rank=k, tol=1e-12, max_iter=10**9, rng=0,
                              time_limit=args.chunk, init=init)
        init, its = sol.params, its + sol.iterations
        ub, info = certify_label_sdp(A, sol.V, method=args.certificate, rng=0)
        print(f"| {time.perf_counter() - t0:.1f} | {time.process_time() - c0:.1f} | {its} | "
              f"{sol.value:.4f} | {ub:.4f} | {(ub - sol.value) / ub:.2e} | "
              f"{info['lambda_max_bound']:.2e} |", flush=True)
    print(f"<!-- {_env()} -->")


def bench_maxkcut(args):
    import dpgraph
    from dpgraph.engine import solve_max_2csp

    root = os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")
    print(f"<!-- {_env()} -->")
    print(f"perturbation rounds: {args.perturbation_rounds}; tabu: {args.tabu_moves} moves, "
          f"at most {args.tabu_time} s")
    print()
    print("| graph | n | m | k | SDP value | certified UB | certificate | value | value/UB | "
          "value/m | SDP s | total s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for g in args.graphs:
        inst = dpgraph.read_csp(os.path.join(root, "gset", f"{g}.txt"), "max-k-cut", k=args.k)
        t = time.perf_counter()
        r = solve_max_2csp(inst, rng=0, tol=args.tol, samples=args.samples,
                           perturbation_rounds=args.perturbation_rounds,
                           tabu_moves=args.tabu_moves, tabu_time=args.tabu_time)
        tot = time.perf_counter() - t
        print(f"| {g} | {inst.n} | {inst.m} | {args.k} | {r.sdp_value:.2f} | {r.upper_bound:.2f} | "
              f"{r.info['certificate']} | {r.value:.0f} | {r.value / r.upper_bound:.4f} | "
              f"{r.value / inst.m:.4f} | {r.timings['sdp']:.1f} | {tot:.1f} |", flush=True)
    print(f"<!-- {_env()} -->")


def planted_permutation_instance(n, d, q=3, rng=None):
    """The planted family of the module docstring; returns (instance, sigma)."""
    from dpgraph.engine import CSPInstance

    rng = np.random.default_rng(rng)
    sigma = rng.integers(0, q, n)
    m = int(round(d * n / 2))
    iu, ju = np.triu_indices(n, 1)
    pick = rng.choice(iu.size, m, replace=False)
    cons = []
    for i, j in zip(iu[pick], ju[pick]):
        pi = rng.permutation(q)
        k = int(np.flatnonzero(pi == sigma[j])[0])
        pi[k], pi[sigma[i]] = pi[sigma[i]], pi[k]
        cons.append((int(i), int(j), {(a, int(pi[a])) for a in range(q)}, 1.0))
    return CSPInstance(n, q, cons), sigma


def _rr_on_constraints(inst, epsilon, s, rng):
    """Baseline: randomized response on every label pair at epsilon / s (group privacy), the
    de-biased release solved by the engine; its best assignment on the release."""
    import dpgraph
    from dpgraph.engine.twocsp_sdp import solve_label_csp
    from dpgraph.graph import from_matrix
    from dpgraph.solve.csp import rounded_label_graph

    n, q = inst.n, inst.q
    L = rounded_label_graph(inst, rng)
    labels = tuple((i, a) for i in range(n) for a in range(q))
    pg = dpgraph.privatize(from_matrix(L, labels), epsilon=epsilon / s, delta=1e-9, rank=2,
                           rng=rng, route="randomized-response", synthetic_share=None)
    W = np.array(pg.objective("unbiased"))
    block = np.arange(n * q) // q
    W[block[:, None] == block[None, :]] = 0.0
    return solve_label_csp(W, n, q, rng=rng)["x"]


def bench_private(args):
    import dpgraph
    from dpgraph.engine import solve_max_2csp

    print(f"<!-- {_env()} -->")
    print(f"Planted permutation family, n = {args.n}, q = 3, mean degree d = {args.d}, "
          f"relation_size = 3, delta = {args.delta}, seeds {args.seeds}")
    print()
    print("| epsilon | seed | m | non-private value | max_2csp value | max_2csp ratio | RR value | "
          "RR ratio | random value | random ratio | route | candidates | max_2csp s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for seed in range(args.seeds):
        inst, sigma = planted_permutation_instance(args.n, args.d, rng=seed)
        ref = solve_max_2csp(inst, rng=seed).value  # NOT private: the reference
        rnd = inst.value(np.random.default_rng(10_000 + seed).integers(0, 3, args.n))
        for eps in args.epsilons:
            t = time.perf_counter()
            res = dpgraph.max_2csp(inst, epsilon=eps, delta=args.delta, rank=args.rank, rng=seed,
                                   relation_size=3)
            secs = time.perf_counter() - t
            v = inst.value(res.assignment)
            rr = inst.value(_rr_on_constraints(inst, eps, 3, np.random.default_rng(seed)))
            print(f"| {eps:g} | {seed} | {inst.m} | {ref:.0f} | {v:.0f} | {v / ref:.3f} | {rr:.0f} | "
                  f"{rr / ref:.3f} | {rnd:.0f} | {rnd / ref:.3f} | {res.diagnostics['route']} | "
                  f"{res.diagnostics['candidate_assignments']} | {secs:.1f} |", flush=True)
    print(f"<!-- {_env()} -->")


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
    r = sub.add_parser("random")
    r.add_argument("--sizes", type=int, nargs="+", default=[60, 500, 2000, 10000])
    r.add_argument("--tol", type=float, default=1e-7)
    r.add_argument("--scs-max-n", type=int, default=500)
    r.add_argument("--scs-time", type=float, default=600.0)
    r.add_argument("--progress", action="store_true")
    r.add_argument("--rank", type=int, default=None, help="factor width (default: the engine's)")
    r.add_argument("--certificate", default="auto", choices=["auto", "factor", "ldl", "lanczos"])
    t = sub.add_parser("gap-time")
    t.add_argument("--n", type=int, default=10000)
    t.add_argument("--rank", type=int, default=None)
    t.add_argument("--chunk", type=float, default=30.0)
    t.add_argument("--total", type=float, default=240.0)
    t.add_argument("--certificate", default="lanczos", choices=["lanczos", "auto", "factor"])
    g = sub.add_parser("maxkcut")
    g.add_argument("--graphs", nargs="+", default=["G3", "G35", "G48"])
    g.add_argument("--k", type=int, default=3)
    g.add_argument("--tol", type=float, default=1e-7)
    g.add_argument("--samples", type=int, default=32)
    g.add_argument("--perturbation-rounds", type=int, default=0)
    g.add_argument("--tabu-moves", type=int, default=0)
    g.add_argument("--tabu-time", type=float, default=None)
    p = sub.add_parser("private")
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--d", type=float, default=20.0)
    p.add_argument("--epsilons", type=float, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--delta", type=float, default=1e-6)
    args = ap.parse_args()
    {"gset": bench_gset, "speed": bench_speed, "growth": bench_growth, "dense": bench_dense,
     "csp": bench_csp, "random": bench_random, "gap-time": bench_gap_time,
     "maxkcut": bench_maxkcut, "private": bench_private}[args.cmd](args)


if __name__ == "__main__":
    main()
