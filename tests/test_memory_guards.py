"""Steps priced before they allocate: the Max-k-Cut instance when not even two parts fit, and
the sparse LDL^T certificate's factors (``certificate="factor"``), counted from the pattern in
the column order every factorization of the proof then takes (SuperLU's minimum degree,
computed once).

Each refusal runs at a small size under a small ``DPGRAPH_MEMORY_LIMIT``: nothing large is
allocated, and without the price the step ran past the limit.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import dpgraph
import dpgraph.engine.sdp as sdp
from dpgraph.engine import as_weight_operator, certify_upper_bound, max_k_cut_instance, solve_lowrank_sdp
from dpgraph.engine.sdp import ldl_fill_entries, ldl_fill_order
from dpgraph.memory import InsufficientMemoryError, parse_bytes


def _edges_named(text: str, k: int) -> int:
    return int(text.split("at most ")[1].split(f" edges fit with k = {k}")[0].replace(",", ""))


def _graph(n: int, m: int) -> nx.Graph:
    """``n`` nodes and the first ``m`` pairs of a fixed order (a star, then a path)."""
    G = nx.empty_graph(n)
    pairs = [(0, v) for v in range(1, n)] + [(v, v + 1) for v in range(1, n - 1)]
    G.add_edges_from(pairs[:m])
    return G


@pytest.mark.parametrize("k", [2, 3])
def test_max_k_cut_refusal_names_the_edges_that_fit(monkeypatch, k):
    # a star of 3,000 leaves needs about 5.9 MiB at k = 2 (10^6 leaves: 1.8 GiB); under 2 MiB
    # not even k = 2 fits, and the refusal named nothing that would ("At most k = ..." needs
    # k >= 2): it names the edge count that fits on these nodes
    limit = "2M"
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", limit)
    n = 3001
    with pytest.raises(InsufficientMemoryError) as info:
        max_k_cut_instance(nx.star_graph(n - 1), k)
    text = str(info.value)
    assert "\n" not in text and f"DPGRAPH_MEMORY_LIMIT={limit}" in text
    assert "Not even k = 2 parts fit" in text and "At most k =" not in text
    fits = _edges_named(text, k)
    assert 1 <= fits < n - 1
    if k > 2:
        at_2 = int(text.split(f"fit with k = {k} (")[1].split(" with k = 2)")[0].replace(",", ""))
        assert fits < at_2 < n - 1
    # the count named is the boundary: that many edges on the same nodes build, one more is
    # refused
    assert max_k_cut_instance(_graph(n, fits), k).m == fits
    with pytest.raises(InsufficientMemoryError):
        max_k_cut_instance(_graph(n, fits + 1), k)


def test_max_k_cut_that_fits_is_built_as_before(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "2M")
    inst = max_k_cut_instance(nx.cycle_graph(50), 3)
    assert (inst.n, inst.q, inst.m) == (50, 3, 50)
    assert inst.value([i % 3 for i in range(49)] + [1]) == 50.0


_GRAPHS = {
    "random 3-regular": lambda: nx.random_regular_graph(3, 1500, seed=1),
    "grid": lambda: nx.grid_2d_graph(30, 40),
    "Barabasi-Albert": lambda: nx.barabasi_albert_graph(1500, 2, seed=1),
    "G(n, m)": lambda: nx.gnm_random_graph(800, 3000, seed=2),
    "star": lambda: nx.star_graph(600),
    "two components": lambda: nx.disjoint_union(nx.cycle_graph(300), nx.complete_graph(40)),
}


@pytest.mark.parametrize("name", sorted(_GRAPHS))
def test_fill_counted_from_the_pattern_is_superlus(name):
    # the count before factorizing against SuperLU's own factors (the proof's factorization)
    W = sp.csc_matrix(nx.to_scipy_sparse_array(_GRAPHS[name](), format="csc", dtype=float))
    n = W.shape[0]
    g = np.asarray(W.sum(axis=1)).ravel()
    A = sp.csc_matrix(W - sp.diags_array(g) + sp.diags_array(np.full(n, 2 * g.max() + 1.0)))
    lu = spla.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                   options=dict(SymmetricMode=True, Equil=False))
    assert np.array_equal(lu.perm_r, lu.perm_c)
    entries = lu.L.nnz + lu.U.nnz
    assert ldl_fill_entries(A) == entries
    assert ldl_fill_entries(A, cap=entries) == entries
    assert ldl_fill_entries(A, cap=entries - 2) is None
    # the order handed back is SuperLU's own, and the matrix reordered by it and factorized
    # in its own order (as the proof's bisection does) has the same factors' entries
    order = ldl_fill_order(A)
    assert np.array_equal(order, np.argsort(lu.perm_c))
    assert ldl_fill_entries(A, order=order) == entries
    assert sdp.sparse_ldl_lower_bound(A[order][:, order], permc_spec="NATURAL")[1] == entries


def _random_pattern_matrix(n: int, per_row: float, seed: int) -> sp.csc_matrix:
    """A symmetric matrix with about ``per_row`` random off-diagonal entries a row (random
    values) and a diagonal that makes it positive definite or not, by the seed's parity."""
    rng = np.random.default_rng(seed)
    m = int(per_row * n / 2)
    i, j = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = i != j
    B = sp.coo_matrix((rng.standard_normal(int(keep.sum())), (i[keep], j[keep])), shape=(n, n))
    B = sp.csc_matrix(B + B.T)
    rows = np.asarray(abs(B).sum(axis=1)).ravel()
    return sp.csc_matrix(B + sp.diags_array(rows * (1.1 if seed % 2 else 0.3) + 0.5))


@pytest.mark.parametrize("n, per_row, seed", [(300, 3, 0), (300, 6, 1), (1500, 3, 2),
                                               (1500, 4.5, 3), (2000, 6, 4)])
def test_fill_counted_in_the_proofs_order_is_superlus(n, per_row, seed):
    # random sparse symmetric patterns of 3-6 entries a row: the count in the order handed
    # back is exactly L.nnz + U.nnz of the factorization the proof runs in it; the proof's
    # bound is below lambda_min (dense eigvalsh) and agrees with that of SuperLU's own
    # ordering (the same order; the factors agree up to rounding)
    A = _random_pattern_matrix(n, per_row, seed)
    order = ldl_fill_order(A)
    B = A[order][:, order]
    lu = sdp._symmetric_lu(B, "NATURAL")
    assert np.array_equal(lu.perm_c, np.arange(n)) and np.array_equal(lu.perm_r, np.arange(n))
    entries = lu.L.nnz + lu.U.nnz
    assert ldl_fill_entries(A, order=order) == ldl_fill_entries(A) == entries
    assert ldl_fill_entries(A, cap=entries - 2, order=order) is None
    lower, nnz = sdp.sparse_ldl_lower_bound(B, permc_spec="NATURAL")
    lower_mmd, nnz_mmd = sdp.sparse_ldl_lower_bound(A)
    assert nnz == nnz_mmd == entries
    lam = float(np.linalg.eigvalsh(A.toarray())[0])
    if lam > 1e-6:
        assert lower is not None and lower_mmd is not None
        assert lower <= lam and abs(lower - lower_mmd) <= 1e-9 * float(abs(A).max())
    else:  # not positive definite: a pivot is not positive, no bound either way
        assert lower is None and lower_mmd is None


def test_fill_count_covers_an_unsymmetric_pattern_and_stored_zeros():
    # the pattern of A + A^T, every stored entry counted (zeros included): the count in the
    # order handed back is never below the entries of the factorization in that order
    C = _random_pattern_matrix(800, 4, 5).tocoo()
    rng = np.random.default_rng(6)
    one_sided, zeros = rng.integers(0, 800, (2, 60)), rng.integers(0, 800, (2, 60))
    values = np.concatenate([C.data, 1e-3 * rng.standard_normal(60), np.zeros(60)])
    A = sp.csc_matrix((values, (np.concatenate([C.row, one_sided[0], zeros[0]]),
                                np.concatenate([C.col, one_sided[1], zeros[1]]))), shape=C.shape)
    A.sum_duplicates()  # stored zeros stay stored
    assert (A.data == 0).any() and (A != A.T).nnz
    order = ldl_fill_order(A)
    lu = sdp._symmetric_lu(A[order][:, order], "NATURAL")
    assert np.array_equal(lu.perm_r, np.arange(800))
    assert ldl_fill_entries(A, order=order) >= lu.L.nnz + lu.U.nnz
    with pytest.raises(ValueError, match="order must hold the 800 rows"):
        ldl_fill_entries(A, order=order[:-1])


def _superlu_calls(monkeypatch):
    """Every SuperLU call's column ordering, in order: ``permc_spec`` of spilu and splu."""
    calls = []
    for name in ("splu", "spilu"):
        real = getattr(spla, name)

        def spy(A, *a, _real=real, **k):
            calls.append(k.get("permc_spec"))
            return _real(A, *a, **k)
        monkeypatch.setattr(spla, name, spy)
    return calls


@pytest.fixture(scope="module")
def _rr3():
    op = as_weight_operator(dpgraph.as_graph_data(nx.random_regular_graph(3, 2000, seed=1)))
    return op, solve_lowrank_sdp(op, rng=0).V


def test_sparse_factor_certificate_refused_before_superlu_allocates(monkeypatch, _rr3):
    # a random 3-regular graph of 2,000 nodes: 239,068 factor entries (about 11 MiB with the
    # proof's copies); under 4 MiB certificate='factor' factorized anyway (SuperLU's fill is
    # not bounded by the mean degree: 10^6 such nodes run out of memory inside it)
    op, V = _rr3
    calls = []
    real = sdp._symmetric_lu
    monkeypatch.setattr(sdp, "_symmetric_lu", lambda M, *a: calls.append(1) or real(M, *a))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "4M")
    with pytest.raises(InsufficientMemoryError) as info:
        certify_upper_bound(op, V, method="factor", rng=1)
    text = str(info.value)
    assert not calls, "SuperLU factorized before the refusal"
    assert "\n" not in text and "DPGRAPH_MEMORY_LIMIT=4M" in text
    assert "certificate='auto'" in text and "nothing was allocated" in text
    fits = int(text.split("more than the ")[1].split(" entries")[0].replace(",", ""))
    # the entries named fit in the limit; SuperLU's own factors (counted by factorizing, once
    # the limit is lifted) do not
    assert 1 <= fits and fits * sdp.SPARSE_FACTOR_ENTRY_BYTES <= parse_bytes("4M")
    monkeypatch.delenv("DPGRAPH_MEMORY_LIMIT")
    _, info = certify_upper_bound(op, V, method="factor", rng=1)
    assert calls and info["ldl_nnz_factor"] > fits


def test_sparse_factor_certificate_orders_once(monkeypatch, _rr3):
    # the minimum-degree ordering (nearly all of the count's time, and repeated by SuperLU in
    # every factorization) is computed once: the count and every factorization of the
    # bisection take it, and the factors hold the entries counted
    op, V = _rr3
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")  # a full factor does not fit: counted
    pattern = sp.csc_matrix(op.W) + sp.eye_array(op.n, format="csc")
    entries = ldl_fill_entries(pattern)
    calls = _superlu_calls(monkeypatch)
    _, info = certify_upper_bound(op, V, method="factor", rng=1)
    assert info["certificate"] == "ldl-verified" and info["factorizations"] >= 2
    assert calls.count("MMD_AT_PLUS_A") == 1
    assert calls.count("NATURAL") == info["factorizations"] == len(calls) - 1
    assert info["ldl_nnz_factor"] == entries


def test_label_certificate_orders_once(monkeypatch):
    # the 2-CSP's "auto" above the dense cap prices the sparse proof and takes it: one
    # ordering for the count and every factorization, and the bound and factors of "ldl"
    import dpgraph.engine.twocsp_sdp as lr
    from dpgraph.engine import certify_label_sdp, solve_label_sdp
    from dpgraph.engine.twocsp import CSPInstance

    rng = np.random.default_rng(7)
    cons = []
    for _ in range(240):
        i, j = rng.choice(80, 2, replace=False)
        rel = {(a, b) for a in range(3) for b in range(3) if rng.random() < 0.35}
        cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
    A = CSPInstance(80, 3, cons).label_adjacency()
    sol = solve_label_sdp(A, 80, 3, rng=0)
    ub_ldl, info_ldl = certify_label_sdp(A, sol.V, method="ldl")
    monkeypatch.setattr(lr, "LABEL_DENSE_CERTIFICATE_MAX_N", 100)  # N = 161 above it
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")  # a full factor (1.2 MiB) does not fit
    calls = _superlu_calls(monkeypatch)
    ub, info = certify_label_sdp(A, sol.V)
    assert info["certificate"] == "ldl-verified" and info["factorizations"] >= 1
    assert calls.count("MMD_AT_PLUS_A") == 1
    assert calls.count("NATURAL") == info["factorizations"] == len(calls) - 1
    assert ub == ub_ldl and info["ldl_nnz_factor"] == info_ldl["ldl_nnz_factor"]


def test_sparse_factor_certificate_that_fits_is_unchanged(monkeypatch, _rr3):
    # the count only decides whether to factorize: where the factors fit, the bound and the
    # certificate are those of the proof without the count
    op, V = _rr3
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")
    ub, info = certify_upper_bound(op, V, method="factor", rng=1)
    monkeypatch.setattr(sdp, "check_sparse_factor_memory", lambda *a, **k: -1)
    ub0, info0 = certify_upper_bound(op, V, method="factor", rng=1)
    assert ub == ub0 and info["certificate"] == info0["certificate"] == "ldl-verified"
    assert info["ldl_nnz_factor"] == info0["ldl_nnz_factor"] == ldl_fill_entries(
        sp.csc_matrix(op.W) + sp.eye_array(op.n, format="csc"))
