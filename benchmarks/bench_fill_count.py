"""The sparse LDL^T proof's fill count: where its time goes, and what one ordering saves.

For each pattern: SuperLU's minimum-degree ordering (``ldl_fill_order``, an incomplete
factorization that runs it), the symbolic count in that order (``ldl_fill_entries``, stopped
at ``--cap`` entries) and, with ``--factor``, one factorization of the proof
(``sparse_ldl_lower_bound``) two ways: SuperLU ordering the columns inside the call
(``MMD_AT_PLUS_A``), and in the order given (``NATURAL`` on the reordered matrix, what the
proof's bisections do after ordering once); the minimum of ``--reps`` runs, in CPU
seconds of the process (the work is single-threaded: its wall-clock time on an unloaded
core, less noisy than the wall clock on a shared machine).

Patterns: ``csp:N`` is the 2-CSP dual matrix S of ``bench_csp.py``'s random instance (q = 3,
3n constraints; its pattern, which does not depend on the factor, with a few entries more
where a variable has no constraint), ``gnm:N:D`` the random graph G(N, D N) plus the
identity; their values are made diagonally dominant.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 \\
        python benchmarks/bench_fill_count.py --patterns csp:2000,csp:10000,gnm:25000:3 --factor
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from dpgraph.engine.sdp import (ldl_fill_entries, ldl_fill_order,  # noqa: E402
                                sparse_ldl_lower_bound)


def csp_matrix(n: int) -> sp.csc_matrix:
    from bench_csp import random_instance
    from dpgraph.engine.twocsp_sdp import reduced_objective

    inst = random_instance(n)
    Cr = reduced_objective(inst.label_adjacency(), n, inst.q)
    # the dual matrix's pattern: C_r's plus each variable's (q-1) x (q-1) block and row 0
    r = inst.q - 1
    blocks = sp.block_diag([sp.csr_array((1, 1))] + [np.ones((r, r))] * n, format="csr")
    row0 = sp.csr_array((np.ones(n * r), (np.zeros(n * r, dtype=int), 1 + np.arange(n * r))),
                        shape=Cr.shape)
    return sp.csc_matrix(abs(Cr) + blocks + row0 + row0.T)


def gnm_matrix(n: int, d: float) -> sp.csc_matrix:
    rng = np.random.default_rng(n)
    m = int(d * n)
    i, j = rng.integers(0, n, 2 * m), rng.integers(0, n, 2 * m)
    keep = i != j
    W = sp.csc_matrix((np.ones(m), (i[keep][:m], j[keep][:m])), shape=(n, n))
    return sp.csc_matrix(W + W.T)


def dominant(P: sp.csc_matrix) -> sp.csc_matrix:
    P = sp.csc_matrix(abs(P))
    P.setdiag(0.0)
    P.eliminate_zeros()
    return sp.csc_matrix(P + sp.diags_array(np.asarray(P.sum(axis=1)).ravel() + 1.0))


def best(f, reps: int):
    times, out = [], None
    for _ in range(reps):
        t = time.process_time()
        out = f()
        times.append(time.process_time() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patterns", default="csp:2000,gnm:25000:3")
    ap.add_argument("--cap", type=int, default=44_000_000, help="count stops past it (entries)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--factor", action="store_true", help="also time one factorization each way")
    args = ap.parse_args()
    ldl_fill_entries(sp.eye_array(2, format="csc"))  # numba's compilation, not timed
    print("| pattern | rows | entries | factor entries | ordering CPU s | count CPU s | "
          "factorization, SuperLU orders, CPU s | factorization, given order, CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in args.patterns.split(","):
        kind, *size = spec.split(":")
        A = dominant(csp_matrix(int(size[0])) if kind == "csp"
                     else gnm_matrix(int(size[0]), float(size[1])))
        t_order, order = best(lambda: ldl_fill_order(A), args.reps)
        t_count, entries = best(lambda: ldl_fill_entries(A, cap=args.cap, order=order), args.reps)
        cells = ["-", "-"]
        if args.factor and entries is not None:
            B = sp.csc_matrix(A[order][:, order])
            t_mmd, _ = best(lambda: sparse_ldl_lower_bound(A), args.reps)
            t_nat, _ = best(lambda: sparse_ldl_lower_bound(B, permc_spec="NATURAL"), args.reps)
            cells = [f"{t_mmd:.2f}", f"{t_nat:.2f}"]
        counted = f"> {args.cap:,}" if entries is None else f"{entries:,}"
        print(f"| {spec} | {A.shape[0]:,} | {A.nnz:,} | {counted} | {t_order:.2f} | "
              f"{t_count:.3f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
