"""The released degrees matched to their deconvolved distribution (dpgraph.synthetic.degree_prior):
post-processing, checked against Monte Carlo and against the distribution the noise was added to."""

import warnings

import networkx as nx
import numpy as np
import pytest

from dpgraph import release_synthetic
from dpgraph.synthetic.degree_prior import (deconvolved_degree_distribution, matched_degrees,
                                            noise_cdf)


@pytest.mark.parametrize("scales", [[3.0], [2.0, 5.0], [4.0, 4.0]])
def test_noise_cdf_matches_monte_carlo(scales):
    rng = np.random.default_rng(0)
    draws = sum(rng.laplace(0.0, s, 400_000) for s in scales)
    x = np.array([-12.0, -3.0, -0.5, 0.0, 1.0, 4.0, 15.0])
    empirical = (draws[:, None] <= x[None, :]).mean(axis=0)
    assert np.abs(noise_cdf(x, scales) - empirical).max() < 0.004


def _heavy_tailed(rng, n):
    """Degrees like a collaboration graph's: many 1-5, a long tail."""
    return np.minimum(np.floor(rng.pareto(1.3, n) * 3.0) + 1.0, n - 1)


def test_deconvolution_recovers_the_degree_histogram():
    rng = np.random.default_rng(3)
    n, scale = 12_000, 20.0
    true = _heavy_tailed(rng, n)
    noisy = np.clip(true + rng.laplace(0.0, scale, n), 1, n - 1)
    grid, p = deconvolved_degree_distribution(noisy, [scale], n)
    assert p.min() >= 0 and abs(p.sum() - 1) < 1e-9
    # the CDF from half a noise scale on, against the true one and the noisy values' (below
    # that a Laplace deconvolution cannot resolve the shape: at 3 it is 0.41 against 0.60)
    for t in (10, 30, 100):
        fitted = p[grid <= t].sum()
        truth = np.mean(true <= t)
        assert abs(fitted - truth) < 0.04, (t, fitted, truth)
        assert abs(fitted - truth) < abs(np.mean(noisy <= t) - truth)
    assert abs((grid * p).sum() - true.mean()) < 0.1 * true.mean()


def test_matched_degrees_keep_the_order_and_take_the_distribution():
    rng = np.random.default_rng(5)
    n, scale = 5_000, 10.0
    true = _heavy_tailed(rng, n)
    noisy = np.clip(true + rng.laplace(0.0, scale, n), 1, n - 1)
    before = noisy.copy()
    d = matched_degrees(noisy, [scale], n, rng=1)
    np.testing.assert_array_equal(noisy, before)  # the input is not modified
    assert d.shape == (n,) and d.min() >= 1 and d.max() <= n - 1
    order = np.lexsort((d, noisy))  # by released value (ties, the clipped ones: any order)
    assert np.all(np.diff(d[order]) >= 0)  # rank-preserving
    # a two-sample Kolmogorov-Smirnov distance to the true degrees from one noise scale on:
    # far below the noisy ones'
    grid = np.arange(10, 400)
    ks = lambda a: np.abs(np.searchsorted(np.sort(a), grid, side="right")
                          - np.searchsorted(np.sort(true), grid, side="right")).max() / n
    assert ks(d) < 0.05 < 0.15 < ks(noisy)


def test_degree_prior_is_post_processing_in_release_synthetic():
    G = nx.Graph(nx.les_miserables_graph().edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        plain = release_synthetic(G, epsilon=0.5, rng=7)
        matched = release_synthetic(G, epsilon=0.5, rng=7, degree_prior=True)
    # the same releases at the same budget: only their post-processing differs
    assert [(e.name, e.epsilon) for e in plain.ledger.entries] == \
        [(e.name, e.epsilon) for e in matched.ledger.entries]
    assert matched.ledger.spent == plain.ledger.spent
    d = matched.block_model.degrees
    assert d.min() >= 1 and d.max() <= G.number_of_nodes() - 1
    assert matched.sample(rng=0).m == matched.edge_count


def test_within_capacity_matches_a_sequential_count():
    from dpgraph.synthetic.sampler import _within_capacity
    rng = np.random.default_rng(11)
    u = rng.integers(0, 30, 400)
    v = (u + rng.integers(1, 30, 400)) % 30  # no self-loops, as in the affinity groups
    cap = rng.integers(0, 25, 30).astype(float)
    seen = np.zeros(30, dtype=int)
    expected = []
    for a, b in zip(u, v):  # every edge counts for both ends, kept or not
        expected.append(seen[a] < cap[a] and seen[b] < cap[b])
        seen[a] += 1
        seen[b] += 1
    np.testing.assert_array_equal(_within_capacity(u, v, cap), expected)


def test_affinity_cap_keeps_the_sample_in_one_piece():
    import scipy.sparse.csgraph as csgraph
    from dpgraph.synthetic.sampler import sample_block_model
    # one block, 200 nodes of degree 2 and 100 of 40: groups sized by the block's mean degree
    # (15 nodes) turn the low-degree nodes into cliques of their own
    d = np.array([2.0] * 200 + [40.0] * 100)
    parts = {}
    for cap in (False, True):
        g = sample_block_model(np.zeros(300, dtype=int), np.array([[2200]]), d, rng=0,
                               affinity=np.array([1.0]), affinity_cap=cap)
        assert g.m == 2200
        parts[cap] = csgraph.connected_components(g.weights)[0]
    assert parts[True] == 1 < 10 < parts[False]
