"""The Max-2-CSP certificate's guess of the dual matrix's top eigenvalue: the unrestarted
Lanczos recurrence (:func:`dpgraph.engine.sdp.lanczos_top_pair`) on S, checked against S's
exact top eigenvalue (dense), and the bounds built on it (``"lanczos"``, ``"factor"``,
``"ldl"``) against the relaxation's value."""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from dpgraph.engine.formats import max_k_cut_instance
from dpgraph.engine.sdp import lanczos_top_pair
from dpgraph.engine.twocsp_sdp import (_dual_matrix, _fit_multipliers, _LabelOp, _local_repair,
                                       _reduced_objective, certify_label_sdp, solve_label_sdp)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_csp import random_instance  # noqa: E402  (the benchmark's instance family)


def _instance(name):
    if name == "random q=3":
        return random_instance(300)  # N = n (q - 1) + 1 = 601
    return max_k_cut_instance(nx.gnm_random_graph(300, 1800, seed=1), 3)  # N = 601


def _dual(A, n, q, V):
    """S as certify_label_sdp forms it (fitted multipliers, then the local repair)."""
    op = _LabelOp(A, n, q)
    Cr = _reduced_objective(op)
    lam = _fit_multipliers(Cr, V)
    S = _dual_matrix(Cr, n, q, *lam)
    return _local_repair(Cr, n, q, lam, S)[1]


@pytest.mark.parametrize("name", ["random q=3", "max-3-cut"])
def test_the_guess_is_the_exact_top_eigenvalue_and_the_bounds_hold(name):
    inst = _instance(name)
    A, n, q = inst.label_adjacency(), inst.n, inst.q
    sol = solve_label_sdp(A, n, q, rng=0)
    ub, info = certify_label_sdp(A, sol.V, method="lanczos", rng=0)
    S = _dual(A, n, q, sol.V)
    N = S.shape[0]
    assert info["N_reduced"] == N > 300  # the Lanczos branch, not the dense one
    exact = float(np.linalg.eigvalsh(S.toarray())[-1])
    tol = 1e-9 * float(abs(S).sum(axis=1).max())  # the recurrence's stopping tolerance
    theta, resid = info["lanczos_theta"], info["lanczos_residual"]
    # theta is a Rayleigh quotient (at most lambda_max); the recurrence reached the top
    assert exact - tol <= theta <= exact + 1e-12 * abs(exact)
    assert exact <= theta + resid
    # the public function on the same S, from another start: the same eigenvalue
    th2, r2, products = lanczos_top_pair(lambda x: S @ x, N, np.random.default_rng(7), tol=tol)
    assert exact - tol <= th2 <= exact + 1e-12 * abs(exact) and exact <= th2 + r2
    # cheaper than a dense factorization: the products' 2 nnz(S) flops each against N^3 / 3
    # (the top of S's spectrum is clustered, gaps near 1e-5 of its scale: the recurrence
    # takes 2-3 N products on the random instance from any start)
    assert 0 < products and products * 2 * S.nnz < N ** 3 / 3
    # the bounds: above the relaxation's value, close to it, and the proofs agree with the guess
    for method in ("factor", "ldl"):
        ub_m, info_m = certify_label_sdp(A, sol.V, method=method, rng=0)
        assert info_m["certificate"] == ("cholesky-verified" if method == "factor" else "ldl-verified")
        assert info_m["lambda_max_bound"] >= exact
        assert sol.value <= ub_m <= ub + 1e-6 * ub
    assert sol.value <= ub and (ub - sol.value) / ub < 1e-3
