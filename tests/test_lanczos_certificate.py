"""The ``"lanczos"`` certificate (above the sparse factorisation's size in ``auto``): the top of
the dual matrix's spectrum is a cluster near 0 at an SDP optimum, where ARPACK's restarted
Lanczos did not converge on soc-douban and email-Enron (it fell back to a random vector's
Rayleigh quotient and the trivial bound); the unrestarted recurrence reaches the top."""

import networkx as nx
import numpy as np
import pytest

from dpgraph.engine.operator import as_weight_operator
from dpgraph.engine.sdp import certify_upper_bound, solve_lowrank_sdp


@pytest.mark.parametrize("n, seed", [(1500, 0), (2000, 1)])
def test_lanczos_bound_sits_on_the_exact_top_eigenvalue(n, seed):
    g = nx.random_regular_graph(3, n, seed=seed)
    op = as_weight_operator(g)
    sol = solve_lowrank_sdp(op, rng=0)
    ub, info = certify_upper_bound(op, sol.V, method="lanczos", rng=0)
    assert info["certificate"] == "lanczos-residual"
    # the exact dual bound (T - sum g + n lambda_max(M)) / 4 with M = Diag(g) - W, densely
    V = sol.V / np.linalg.norm(sol.V, axis=1, keepdims=True)
    W = op.to_dense()
    g_ = np.einsum("ij,ij->i", W @ V, V)
    lam = np.linalg.eigvalsh(np.diag(g_) - W)[-1]
    exact = 0.25 * (W.sum() - g_.sum() + n * lam)
    assert exact - 1e-9 * exact <= ub <= exact + 1e-6 * exact
    verified, _ = certify_upper_bound(op, sol.V, method="factor", rng=0)
    assert abs(ub - verified) <= 1e-5 * verified


@pytest.mark.parametrize("edges", [[], [(0, 1)]], ids=["no edge", "one edge"])
def test_lanczos_bound_without_weights_stays_finite(edges):
    """The recurrence and the start on span(V) scale by a power of two to norm ~1; where the
    dual matrix is 0 that power must stay finite (it overflowed: OverflowError, also in
    ``"auto"`` above 25,000 nodes)."""
    import dpgraph

    g = nx.empty_graph(400)
    g.add_edges_from(edges)
    res = dpgraph.solve_max_cut(g, rng=0, certificate="lanczos")
    # no edge at all: the bound is 0 exactly, before any Lanczos step
    assert res.info["certificate"] == ("lanczos-residual" if edges else "exact (no edges)")
    assert res.value == len(edges) <= res.upper_bound <= len(edges) + 1e-9
