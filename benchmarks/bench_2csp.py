"""Max-2-CSP benchmarks (issue 14): the low-rank engine, Max-3-Cut on the G-set, private max_2csp.

Subcommands (each prints one markdown table; every row of a table comes from one run):

* ``random``: random instances (q = 3, 3n constraints, relations with each pair allowed with
  probability 0.35, weights uniform in [0.5, 2]; the family of ``bench_csp.py csp``) at the given
  n: time, certified bound, relative gap of the certificate, rounded value / bound; CVXPY + SCS on
  the same relaxation in reduced coordinates (``cvxpy_label_sdp``) where ``--scs-max-n`` allows,
  with a time box.
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
    from dpgraph.csp import CSPInstance

    rng = np.random.default_rng(n if rng is None else rng)
    cons = []
    for _ in range(3 * n):
        i, j = rng.choice(n, 2, replace=False)
        rel = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.35}
        cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
    return CSPInstance(n, q, cons)


def bench_random(args):
    from dpgraph.csp import solve_max_2csp
    from dpgraph.csp.twocsp_lowrank import cvxpy_label_sdp

    print(f"<!-- {_env()} -->")
    print("| n | m | SDP value | certified UB | certificate | (UB - SDP)/UB | value | value/UB | "
          "iterations | SDP s | certificate s | rounding+LS s | total s | SCS value | SCS s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        inst = random_instance(n)
        t = time.perf_counter()
        r = solve_max_2csp(inst, rng=0, tol=args.tol, progress=args.progress)
        tot = time.perf_counter() - t
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
        print(f"| {n} | {inst.m} | {r.sdp_value:.4f} | {r.upper_bound:.4f} | {r.info['certificate']} | "
              f"{(r.upper_bound - r.sdp_value) / r.upper_bound:.1e} | {r.value:.4f} | "
              f"{r.value / r.upper_bound:.4f} | {r.info['iterations']} | {tm['sdp']:.1f} | "
              f"{tm['certificate']:.1f} | {tm['rounding'] + tm['local_search']:.1f} | {tot:.1f} | "
              f"{scs_v} | {scs_t} |", flush=True)
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
    args = ap.parse_args()
    {"random": bench_random}[args.cmd](args)


if __name__ == "__main__":
    main()
