"""The sparse LDL^T certificate of ``certificate="auto"`` is bounded by the factors' fill.

Every shift of the bisection factors a matrix of M's pattern, so all factorizations have the
fill F of the first; "auto" takes a (k+1)-th one only while (k+1) F <= SPARSE_FACTOR_ENTRY_BUDGET
and otherwise keeps the smallest verified shift ("ldl-verified (fill cap)"). Here the budget
is lowered so that a small expander (random 3-regular, 600 nodes) meets it.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph.engine.sdp as sdp
from dpgraph import solve_max_cut
from dpgraph.engine import as_weight_operator


@pytest.fixture(scope="module")
def expander():
    G = nx.random_regular_graph(3, 600, seed=2)
    op = as_weight_operator(G)
    sol = sdp.solve_lowrank_sdp(op, rng=np.random.default_rng(0))
    return G, op, sol


def _certify(op, V, method="auto"):
    """The bound, its info and every factorization's (shift bound mu, verified?)."""
    calls = []
    real = sdp.sparse_shift_verified

    def spy(negM, mu, shift, **kw):
        ok, nnz = real(negM, mu, shift, **kw)
        calls.append((mu, ok))
        return ok, nnz

    mp = pytest.MonkeyPatch()
    mp.setattr(sdp, "sparse_shift_verified", spy)
    try:
        ub, info = sdp.certify_upper_bound(op, V, method=method, rng=np.random.default_rng(1))
    finally:
        mp.undo()
    return ub, info, calls


def _exact_dual(op, V):
    """lambda_max of M = Diag(g) - W by a dense eigensolver, and the dual bound it gives."""
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    W = op.W.toarray()
    g = np.einsum("ij,ij->i", W @ V, V)
    lam = float(np.linalg.eigvalsh(np.diag(g) - W)[-1])
    return lam, (W.sum() - g.sum() + op.n * lam) / 4


def test_fill_cap_stops_at_the_first_verified_shift(expander, monkeypatch):
    _, op, sol = expander
    ub_full, full, calls_full = _certify(op, sol.V)
    assert full["certificate"] == "ldl-verified"  # 600 nodes: far below the default budget
    F = full["ldl_nnz_factor"]
    first_ok = next(i for i, (_, ok) in enumerate(calls_full) if ok)
    assert full["factorizations"] == len(calls_full) > first_ok + 1  # bisection went on
    lam, exact_ub = _exact_dual(op, sol.V)

    # a budget of one factorization: the bisection stops at the first verified shift
    monkeypatch.setattr(sdp, "SPARSE_FACTOR_ENTRY_BUDGET", F)
    ub, info, calls = _certify(op, sol.V)
    assert info["certificate"] == "ldl-verified (fill cap)"
    assert calls == calls_full[:first_ok + 1]
    assert info["factorizations"] == first_ok + 1 and info["ldl_nnz_factor"] == F
    assert info["lambda_max_bound"] == calls_full[first_ok][0] >= lam
    assert ub >= ub_full >= exact_ub * (1 - 1e-12) and ub_full >= sol.value

    # a budget of three factorizations' entries: at most three (unless verifying takes more)
    monkeypatch.setattr(sdp, "SPARSE_FACTOR_ENTRY_BUDGET", 3 * F)
    ub3, info3, calls3 = _certify(op, sol.V)
    assert info3["factorizations"] == max(3, first_ok + 1) < len(calls_full)
    assert calls3 == calls_full[:info3["factorizations"]]
    assert info3["certificate"] == "ldl-verified (fill cap)"
    assert ub >= ub3 >= ub_full and info3["lambda_max_bound"] >= lam

    # an explicit 'factor' bisects to the tolerance whatever the budget
    ub_f, info_f, calls_f = _certify(op, sol.V, method="factor")
    assert info_f["certificate"] == "ldl-verified" and calls_f == calls_full and ub_f == ub_full


def test_fill_cap_reaches_solve_max_cut(expander, monkeypatch):
    G, _, _ = expander
    ref = solve_max_cut(G, rng=0, anneal_sweeps=0)
    monkeypatch.setattr(sdp, "SPARSE_FACTOR_ENTRY_BUDGET", 1)
    res = solve_max_cut(G, rng=0, anneal_sweeps=0)
    assert ref.info["certificate"] == "ldl-verified"
    assert res.info["certificate"] == "ldl-verified (fill cap)"
    assert res.info["factorizations"] < ref.info["factorizations"]
    assert res.upper_bound >= ref.upper_bound >= ref.sdp_value >= ref.value == res.value


def test_auto_takes_the_sparse_proof_only_where_its_factors_fit(monkeypatch):
    """"auto" prices the sparse proof's factors, counted from the pattern before SuperLU
    allocates (check_sparse_factor_memory); where they do not fit it gives the Lanczos bound,
    labelled unverified (above the dense check's size), instead of risking the process."""
    G = nx.random_regular_graph(3, 4500, seed=3)  # above the dense check's 4,000 nodes
    op = as_weight_operator(G)
    sol = sdp.solve_lowrank_sdp(op, rng=np.random.default_rng(0))
    pattern = sp.csc_matrix(op.W) + sp.eye_array(op.n, format="csc")
    need = (sdp.SPARSE_FACTOR_ENTRY_BYTES * sdp.ldl_fill_entries(pattern)
            + 40 * pattern.nnz + 64 * op.n)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need - 1))
    ub, info = sdp.certify_upper_bound(op, sol.V, rng=np.random.default_rng(1))
    assert info["certificate"].startswith("lanczos-residual (unverified: the sparse LDL^T")
    assert "factorizations" not in info
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need))
    ub_f, info_f = sdp.certify_upper_bound(op, sol.V, rng=np.random.default_rng(1))
    assert info_f["certificate"].startswith("ldl-verified")
    assert sol.value <= ub_f and abs(ub - ub_f) <= 1e-3 * ub_f
