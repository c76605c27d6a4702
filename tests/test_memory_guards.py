"""Steps priced before they allocate: the Max-k-Cut instance when not even two parts fit, and
the sparse LDL^T certificate's factors (``certificate="factor"``), counted from the pattern.

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
from dpgraph.engine.sdp import ldl_fill_entries
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
    monkeypatch.setattr(sdp, "_symmetric_lu", lambda M: calls.append(1) or real(M))
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
