"""Scale audit: inputs whose size blew up a step that priced nothing.

Each test runs at a small size under a small ``DPGRAPH_MEMORY_LIMIT`` (or measures the memory a
step allocates with ``tracemalloc``), so that it fails, without the fix, by completing or by a
measured allocation rather than by exhausting the machine.
"""

from __future__ import annotations

import tracemalloc

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.lab.evaluate import graph_statistics, triangle_count
from dpgraph.mechanisms.sets import Box
from dpgraph.memory import InsufficientMemoryError


def _sparse_rows(m: int, d: int, value: float = 0.5) -> sp.csr_matrix:
    """``m`` rows of ``d`` columns, one entry ``value`` per row (small sparse, large dense)."""
    cols = np.random.default_rng(0).integers(0, d, m)
    return sp.csr_matrix((np.full(m, value), (np.arange(m), cols)), shape=(m, d))


_DENSIFYING = {
    "private_second_moment": lambda X: dpgraph.private_second_moment(
        X, epsilon=1.0, delta=1e-6, rng=0),
    "jl_second_moment": lambda X: dpgraph.jl_second_moment(
        X, epsilon=1.0, delta=1e-6, jl_dim=20, rng=0),
    "kway_marginals": lambda X: dpgraph.kway_marginals(
        (X > 0).astype(np.float64), 2, epsilon=1.0, delta=1e-6, rng=0),
    "perturb_and_project": lambda X: dpgraph.perturb_and_project(
        X, Box(0.0, 1.0), sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0),
}


@pytest.mark.parametrize("call", sorted(_DENSIFYING))
def test_sparse_data_is_priced_before_it_is_densified(monkeypatch, call):
    # 100,000 x 40 with one entry per row: 1.2 MB sparse, 32 MB dense (96 MB priced). Without
    # the price the mechanism densified whatever it was given (10^6 x 3,000: a bare 22 GiB
    # MemoryError in scipy's toarray) and here ran to completion past the 40 MiB limit
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "40M")
    with pytest.raises(InsufficientMemoryError) as info:
        _DENSIFYING[call](_sparse_rows(100_000, 40))
    msg = str(info.value)
    assert "as a dense 100,000 x 40 array" in msg and "nothing was allocated" in msg
    fits = int(msg.split("At most ")[1].split(" rows")[0].replace(",", ""))
    assert 1 <= fits < 100_000


@pytest.mark.parametrize("call", sorted(_DENSIFYING))
def test_sparse_data_that_fits_is_still_densified(monkeypatch, call):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "40M")
    _DENSIFYING[call](_sparse_rows(200, 40))  # 64 KB dense: released as before


def test_a_star_counts_its_triangles_without_its_two_paths():
    # sum((A @ A) .* A) / 6 formed every two-path: L^2 of them for a star of L leaves (30,000
    # leaves: 9 * 10^8 entries, a 6.7 GiB allocation; 3,000 leaves: about 100 MB)
    G = nx.star_graph(3000)
    tracemalloc.start()
    try:
        st = graph_statistics(G)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert st["triangles"] == 0.0
    assert peak < 30 * 2**20, f"graph_statistics of a 3,000-leaf star traced {peak:,} bytes"


@pytest.mark.parametrize("seed", range(4))
def test_triangle_count_matches_networkx(seed):
    G = nx.gnm_random_graph(60, 400 + 100 * seed, seed=seed)
    G.add_edges_from((0, v) for v in range(1, 60))  # a hub
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G))
    assert triangle_count(A) == sum(nx.triangles(G).values()) // 3


def test_triangle_count_in_blocks(monkeypatch):
    import dpgraph.lab.evaluate as evaluate

    G = nx.gnm_random_graph(200, 3000, seed=5)
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G))
    expected = sum(nx.triangles(G).values()) // 3
    monkeypatch.setattr(evaluate, "TRIANGLE_BLOCK_ENTRIES", 7)  # many blocks, some one row
    assert triangle_count(A) == expected
    assert graph_statistics(nx.karate_club_graph())["triangles"] == 45.0


def test_path_lengths_are_not_held_for_every_source_at_once(monkeypatch):
    # igraph's distances from all 64 sources came back as one list of 64 n Python numbers
    # (10^6 isolated nodes: 3 GiB peak RSS; 10^7 would not fit in 24 GiB)
    import dpgraph.lab.evaluate as evaluate

    monkeypatch.setattr(evaluate, "PATH_BATCH_ENTRIES", 1 << 16, raising=False)
    n = 40_000
    tracemalloc.start()
    try:
        st = graph_statistics(sp.csr_matrix((n, n)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.isnan(st["avg_path"]) and st["edges"] == 0
    assert peak < 40 * 2**20, f"graph_statistics of {n:,} isolated nodes traced {peak:,} bytes"


@pytest.mark.parametrize("batch", [1, 1 << 20])
def test_path_lengths_in_batches_keep_the_mean(monkeypatch, batch):
    import dpgraph.lab.evaluate as evaluate

    G = nx.disjoint_union(nx.path_graph(30), nx.cycle_graph(17))
    data = dpgraph.as_graph_data(G, weight=None)
    g = evaluate._igraph(data)
    dist = np.asarray(g.distances(), dtype=float)
    finite = np.isfinite(dist) & (dist > 0)
    monkeypatch.setattr(evaluate, "PATH_BATCH_ENTRIES", batch)
    total, count = evaluate._path_lengths(g, list(range(data.n)), data.n)
    assert count == int(finite.sum()) and total / count == float(dist[finite].mean())
    assert graph_statistics(G, sources=47)["avg_path"] == float(dist[finite].mean())


def test_bisection_candidates_at_the_bound_skip_the_tabu_search():
    # every balanced cut of K_n is optimal (n^2 / 4) and so is every rounding: the default tabu
    # search still made 10 n moves of O(n log n) each per candidate (K_3000: 28 of 33 s; a
    # star of 10^6 leaves: 105 of 295 s)
    G = nx.complete_graph(40)
    res = dpgraph.solve_max_bisection(G, rng=0, weight=None)
    assert res.value == 400.0 and res.upper_bound >= 400.0
    assert res.info["local_search_moves"] == {"hyperplane": 0, "correlation": 0}


def test_tabu_search_from_an_optimal_start_makes_no_move_and_same_draws():
    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.local_search import tabu_search

    op = as_weight_operator(nx.cycle_graph(8))
    x0 = np.array([1.0, -1.0] * 4)  # the maximum cut (8 edges)
    gens = [np.random.default_rng(3), np.random.default_rng(3)]
    hit = tabu_search(op, x0, max_moves=200, rng=gens[0], target=8.0, backend="numpy")
    assert hit.moves == 0 and hit.value == 8.0 and np.array_equal(hit.x, x0)
    free = tabu_search(op, x0, max_moves=200, rng=gens[1], backend="numpy")
    assert free.value == 8.0 and free.moves == 200
    assert gens[0].random() == gens[1].random()  # the caller's generator advanced alike


def test_too_many_samples_are_refused_naming_the_samples_that_fit(monkeypatch):
    """``solve_max_cut(G3-sized graph, samples=10**6)`` was refused with "At most 8 nodes fit
    with these options", though the samples were what did not fit; the refusal now names the
    largest ``samples`` that fits at the rank asked for."""
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "50M")
    with pytest.raises(InsufficientMemoryError, match=r"At most samples=[\d,]+ fits"):
        dpgraph.solve_max_cut(nx.cycle_graph(800), samples=10**6, rng=0)


def test_rebalance_heap_makes_the_argmax_greedys_moves():
    """The bisection's ``rebalance`` took an O(n) argmax per move (a star of 10^6 leaves,
    rounded with its leaves on one side: 5 x 10^5 moves, 118 s); past
    ``_REBALANCE_SCAN_ENTRIES`` it keeps the candidates in a heap, and must make exactly the
    same moves, ties to the smallest vertex included (unweighted graphs tie often)."""
    from dpgraph.engine import as_weight_operator
    from dpgraph.engine import rounding

    rng = np.random.default_rng(0)
    for t in range(60):
        n = int(rng.integers(5, 200))
        G = nx.gnm_random_graph(n, int(rng.integers(0, 4 * n)), seed=t)
        if t % 3 == 0:
            for u, v in G.edges():
                G[u][v]["weight"] = float(rng.integers(1, 4))
        op = as_weight_operator(G)
        x = np.where(rng.random(n) < rng.uniform(0.0, 1.0), 1.0, -1.0)
        a, aw = rounding.rebalance(op, x)
        assert (abs(x.sum()) // 2) * n <= rounding._REBALANCE_SCAN_ENTRIES  # the argmax ran
        b, bw = rounding._rebalance_heap(op, x.copy(), op.matmul(x), x * op.matmul(x),
                                         int(round(x.sum())))
        assert np.array_equal(a, b) and np.array_equal(aw, bw) and abs(b.sum()) <= 1
