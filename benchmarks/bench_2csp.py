"""Max-2-CSP benchmarks: the low-rank engine, Max-3-Cut on the G-set, private max_2csp.

Subcommands (each prints one markdown table; every row of a table comes from one run):

* ``random``: random instances (q = 3, 3n constraints, relations with each pair allowed with
  probability 0.35, weights uniform in [0.5, 2]; the family of ``bench_csp.py csp``) at the given
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

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


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
    {"random": bench_random, "gap-time": bench_gap_time, "maxkcut": bench_maxkcut,
     "private": bench_private}[args.cmd](args)


if __name__ == "__main__":
    main()
