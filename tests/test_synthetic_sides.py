"""The local route's sides in release_synthetic (docs/privacy.md 7.13) and the sampler's tilt."""

import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.synthetic.release import SIDE_CHOICE_SHARE
from dpgraph.synthetic.sampler import sample_block_model
from dpgraph.solve.candidates import true_cuts
from dpgraph.graph import as_graph_data


def _across(g, sides):
    import scipy.sparse as sp

    C = sp.triu(g.weights, 1).tocoo()
    return np.mean(sides[C.row] != sides[C.col]), C.nnz


@pytest.mark.parametrize("accept", [1.0, 0.5, 0.2])
def test_sampler_tilt_keeps_the_counts_and_leans_across_the_sides(accept):
    # one block of 600 equal-weight nodes, no clustering phase: a uniform pair lies across
    # two random halves with probability p ~ 1/2, so after keeping same-side pairs with
    # probability q the edges drawn in the Chung-Lu rounds lie across with p / (p + q (1 - p));
    # the anchor edges (at most one per node: only a node without edges draws one) are not
    n, m = 400, 6000
    rng = np.random.default_rng(0)
    sides = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    g = sample_block_model(np.zeros(n, dtype=int), np.array([[m]]), np.full(n, 30.0),
                           rng=1, sides=sides, side_accept=accept)
    frac, edges = _across(g, sides)
    assert edges == m  # the block count is kept exactly
    n_plus = np.sum(sides > 0)
    p = n_plus * (n - n_plus) / (n * (n - 1) / 2)
    tilted = p / (p + accept * (1 - p))
    anchors = n
    lo = ((m - anchors) * tilted + anchors * p) / m
    hi = tilted
    se = np.sqrt(tilted * (1 - tilted) / m)
    assert min(lo, hi) - 4 * se <= frac <= max(lo, hi) + 4 * se


def test_sampler_refuses_a_bad_tilt():
    with pytest.raises(ValueError, match="side_accept"):
        sample_block_model(np.zeros(6, dtype=int), np.array([[5]]), np.ones(6), rng=0,
                           sides=np.ones(6), side_accept=0.0)
    with pytest.raises(ValueError, match="sides"):
        sample_block_model(np.zeros(6, dtype=int), np.array([[5]]), np.ones(6), rng=0,
                           sides=np.ones(5), side_accept=0.5)


def _release(G, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        return dpgraph.release_synthetic(G, rng=5, **kw)


def test_release_with_sides_spends_epsilon_as_stated():
    G = nx.Graph(nx.les_miserables_graph().edges())
    eps, share = 2.0, 0.1
    rel = _release(G, epsilon=eps, side_share=share, community_share=0.63)
    assert rel.ledger.spent == pytest.approx((eps, 0.0))
    by_name = {}
    for e in rel.ledger.entries:
        by_name[e.name] = by_name.get(e.name, 0.0) + e.epsilon
    local = sum(v for k, v in by_name.items() if k.startswith("local route"))
    assert local == pytest.approx((1 - SIDE_CHOICE_SHARE) * share * eps)
    assert by_name["choice among candidate partitions"] == pytest.approx(
        SIDE_CHOICE_SHARE * share * eps)
    assert isinstance(rel.diagnostics["side_tilt"], bool)
    H = rel.sample(rng=6)
    assert H.m == rel.edge_count
    # without the choice the sides always tilt, and the local route gets the whole share
    rel2 = _release(G, epsilon=eps, side_share=share, community_share=0.63, side_choice=False)
    assert rel2.diagnostics["side_tilt"] and rel2.block_model.sides is not None
    assert rel2.ledger.spent == pytest.approx((eps, 0.0))
    assert "choice among candidate partitions" not in {e.name for e in rel2.ledger.entries}


def test_sides_charges_do_not_depend_on_the_data_on_adjacent_inputs():
    # G and G plus one edge: every charge (name, epsilon, sensitivity, noise scale) is the
    # same, and the choice's scores (the cuts of fixed candidates) move by at most 1, all in
    # the same direction: the monotone sensitivity 1 the choice is charged for (4.11)
    G = nx.gnp_random_graph(120, 0.08, seed=3)
    u, v = next((a, b) for a in G for b in G if a < b and not G.has_edge(a, b))
    H = G.copy()
    H.add_edge(u, v)
    a = _release(G, epsilon=1.5, side_share=0.1, community_share=0.63)
    b = _release(H, epsilon=1.5, side_share=0.1, community_share=0.63)
    key = lambda led: [(e.name, round(e.epsilon, 12), e.sensitivity, round(e.noise_scale, 9))
                       for e in led.entries]
    assert key(a.ledger) == key(b.ledger)
    rng = np.random.default_rng(0)
    X = np.where(rng.random((120, 8)) < 0.5, 1.0, -1.0)
    ca = np.ravel(true_cuts(as_graph_data(G, weight=None))(X))
    cb = np.ravel(true_cuts(as_graph_data(H, weight=None))(X))
    d = cb - ca
    assert np.all((d >= 0) & (d <= 1)) and np.allclose(d, (X[u] != X[v]).astype(float))
