"""Adjacent-input checks of the pipeline's own sensitivity bounds (docs/privacy.md section 4)."""

import math

import networkx as nx
import numpy as np
import pytest

from dpgraph.graph import as_graph_data
from dpgraph.release.routes.pca import normalized_adjacency, tail_singular_value


def _adjacent_pairs(rng, n_graphs=25):
    """Random graphs and a neighbour each: an edge added or removed, including worst cases
    (edges at the minimum-degree vertices, edges at isolated vertices)."""
    for k in range(n_graphs):
        n = int(rng.integers(6, 60))
        G = nx.gnp_random_graph(n, float(rng.uniform(0.05, 0.5)), seed=int(rng.integers(1 << 30)))
        deg = np.array([G.degree(v) for v in range(n)])
        order = np.argsort(deg)
        candidates = [(int(order[0]), int(order[1]))]  # the two lowest-degree vertices
        candidates.append(tuple(int(x) for x in rng.choice(n, 2, replace=False)))
        for i, j in candidates:
            H = G.copy()
            if H.has_edge(i, j):
                H.remove_edge(i, j)
            else:
                H.add_edge(i, j)
            yield as_graph_data(nx.to_scipy_sparse_array(G, nodelist=range(n))), \
                as_graph_data(nx.to_scipy_sparse_array(H, nodelist=range(n)))


def test_degree_sensitivity_adjacent():
    rng = np.random.default_rng(11)
    worst = 0.0
    for a, b in _adjacent_pairs(rng):
        change = np.linalg.norm(a.degrees - b.degrees)
        assert change <= math.sqrt(2) + 1e-12
        worst = max(worst, change)
    assert worst == pytest.approx(math.sqrt(2))  # the bound is attained: it is tight


def test_normalized_entry_change_adjacent():
    rng = np.random.default_rng(12)
    for a, b in _adjacent_pairs(rng):
        # any public normalizer >= tau, including one concentrated at the changed pair
        d_tilde = np.maximum(a.degrees + rng.normal(0, 2, a.n), 0) + rng.uniform(0.5, 5)
        w = 1 / d_tilde.min()
        E = (normalized_adjacency(a.weights, d_tilde) - normalized_adjacency(b.weights, d_tilde)).toarray()
        nz = np.argwhere(np.abs(E) > 0)
        assert len(nz) == 2 and np.allclose(E, E.T)  # exactly one symmetric pair
        assert np.abs(E).max() <= w * (1 + 1e-12)


def test_tail_weyl_adjacent():
    rng = np.random.default_rng(13)
    for a, b in _adjacent_pairs(rng, n_graphs=15):
        d_tilde = np.maximum(a.degrees, 0) + 1.0
        w = 1 / d_tilde.min()
        for r in (1, 2, 4):
            if r + 1 >= a.n:
                continue
            sa = tail_singular_value(normalized_adjacency(a.weights, d_tilde), r, rng)
            sb = tail_singular_value(normalized_adjacency(b.weights, d_tilde), r, rng)
            assert abs(sa - sb) <= w + 1e-8


def test_tail_matches_dense_on_large_sparse():
    rng = np.random.default_rng(5)
    G = nx.gnp_random_graph(600, 0.02, seed=3)
    data = as_graph_data(nx.to_scipy_sparse_array(G, nodelist=range(600)))
    M = normalized_adjacency(data.weights, data.degrees + 1.0)
    dense = np.sort(np.abs(np.linalg.eigvalsh(M.toarray())))[::-1]
    assert tail_singular_value(M, 3, rng) == pytest.approx(dense[3], abs=1e-9)
