"""Cut sides in synthetic graphs: the sampler's tilt towards released sides (post-processing:
counts kept, edges across at the stated rate, bad tilts refused) and ``release_synthetic``'s own
sides (docs/privacy.md 7.15: sensitivity on adjacent inputs, the charge, the lean rule)."""

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.lab.audit import catalog
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.batches import batch_bounds
from dpgraph.privacy.budget import COMMUNITY_SHARE, SIDE_SHARE
from dpgraph.privacy.transcript import transcript
from dpgraph.synthetic import release as release_mod
from dpgraph.synthetic.release import SIDE_ACCEPT, SIDE_CHOICE_SHARE
from dpgraph.synthetic.sampler import sample_block_model
from dpgraph.synthetic.sides import (best_block_split, model_cut_share, release_cut_lead,
                                     side_pass, split_prior)

from test_synthetic import _adjacent_pairs, _isolated_pair_graphs


def _across(g, sides):
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


# ------------------------------------------------------------- the released sides (7.15)


def _fields_l1(A, B, order, bounds, x):
    """Sum over the batches of the L1 change of the released fields between adjacent
    adjacencies ``A``, ``B``, each batch read against the sides ``x`` of the earlier batches
    (fixed by conditioning; 0 for the nodes not yet decided)."""
    total, known = 0.0, np.zeros(order.size)
    for a, b in bounds:
        rows = order[a:b]
        total += np.abs(A[rows] @ known - B[rows] @ known).sum()
        known[rows] = x[rows]
    return total


def test_side_pass_sensitivity_is_one():
    """docs/privacy.md 7.15: whatever sides the earlier batches took (functions of the earlier
    releases), one pair moves the pass's released fields by at most 1 in L1: only its later
    endpoint's field reads it, and no one inside a batch. The bound is attained."""
    G = nx.Graph(nx.convert_node_labels_to_integers(nx.les_miserables_graph()).edges())
    n = G.number_of_nodes()
    rng = np.random.default_rng(2)
    order = rng.permutation(n)
    bounds = batch_bounds(0, n, 1, 0.2)
    x = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    worst = max(_fields_l1(A, B, order, bounds, x) for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(1.0)


def _pair_field_reads(G, pair, seed):
    """The released fields of ``side_pass`` that read the pair ``{u, v}`` (the audit's
    reader of the transcript)."""
    data = as_graph_data(G, weight=None)
    with transcript() as seen:
        side_pass(data, np.ones(data.n), epsilon=1.0, ledger=PrivacyLedger(), rng=seed)
    return catalog._pair_field_reads(seen, pair)


def test_side_pass_reads_a_pair_once_in_the_release():
    """The function itself: with the same noise, two adjacent graphs' transcripts read the
    changed pair once (batches of one node here), and the field that reads it moves by
    exactly 1 towards the earlier endpoint's side."""
    G0, G1 = _isolated_pair_graphs()
    for seed in range(6):
        r0, r1 = _pair_field_reads(G0, (0, 1), seed), _pair_field_reads(G1, (0, 1), seed)
        assert len(r0) == len(r1) == 1
        assert r1[0] - r0[0] == pytest.approx(1.0)


def test_side_pass_charges_once_and_finds_a_planted_cut():
    """One charge of epsilon at Laplace scale 1 / epsilon (sensitivity 1); far above the noise
    the sides cut most of a random bipartite graph's edges, at a tiny epsilon about half
    (the check can fail both ways)."""
    G = nx.bipartite.random_graph(150, 150, 0.08, seed=1)
    data = as_graph_data(G)
    A = data.weights
    m = A.sum() / 2

    def cut(x):
        return float((A.sum() - x @ (A @ x)) / 4 / m)

    led = PrivacyLedger(epsilon=20, delta=0)
    x = side_pass(data, data.degrees, epsilon=20, ledger=led, rng=0)
    assert [e.epsilon for e in led.entries] == pytest.approx([20.0])
    assert led.entries[0].noise_scale == pytest.approx(0.05, rel=2e-3)  # the sampler's slack
    assert led.entries[0].sensitivity == 1.0
    assert set(np.unique(x)) <= {-1.0, 1.0}
    # a greedy pass: sides decided before any evidence can split a part, so a median over
    # seeds (0.88-0.98 on most of them, one in eight near 0.65)
    strong = [cut(side_pass(data, data.degrees, epsilon=20, ledger=PrivacyLedger(), rng=s))
              for s in range(5)]
    assert np.median(strong) > 0.85
    weak = [cut(side_pass(data, data.degrees, epsilon=1e-3, ledger=PrivacyLedger(), rng=s))
            for s in range(5)]
    assert abs(np.median(weak) - 0.5) < 0.05


def test_split_prior_against_a_direct_count():
    """split_prior against the model's expectation counted node by node: the later nodes'
    released degree per block, the share of each block's edge ends that reach each block, and
    the margin times the block's net lean."""
    rng = np.random.default_rng(3)
    n, k = 40, 3
    blocks = rng.integers(k, size=n)
    C = rng.integers(0, 30, size=(k, k))
    C = np.triu(C) + np.triu(C, 1).T
    y = np.array([1.0, -1.0, -1.0])
    d = rng.uniform(1, 9, size=n)
    order = rng.permutation(n)
    bounds = batch_bounds(0, n, 1, 0.2)
    got = split_prior(order, bounds, d, blocks, C, y, scale=0.5, margin=3.0)
    ends = [2 * C[b, b] + C[b].sum() - C[b, b] for b in range(k)]
    for t, (a, b) in enumerate(bounds):
        after = order[b:]
        for i in range(a, b):
            v = order[i]
            bv = blocks[v]
            want = 0.0
            lean = 0.0
            for c in range(k):
                share = C[bv, c] * (2 if c == bv else 1) / ends[bv]
                later = d[after][blocks[after] == c].sum() / d[blocks == c].sum()
                want += d[v] * share * y[c] * later
                lean += share * y[c]
            want -= 3.0 * 0.5 * abs(lean) * y[bv]
            assert got[i] == pytest.approx(want)


def _bipartite_in_mixed_blocks():
    """A random bipartite graph (parts 0-149 and 150-299) in four blocks, each mostly one
    part: the blocks' best split cuts most edges but not all."""
    G = nx.bipartite.random_graph(150, 150, 0.08, seed=2)
    data = as_graph_data(G)
    part = np.r_[np.zeros(150, int), np.ones(150, int)]
    rng = np.random.default_rng(0)
    stray = rng.random(300) < 0.2  # a fifth of the nodes in a block of the other part
    blocks = 2 * np.where(stray, 1 - part, part) + rng.integers(2, size=300)
    C = np.zeros((4, 4), dtype=np.int64)
    U = sp.triu(data.weights, 1).tocoo()
    np.add.at(C, (blocks[U.row], blocks[U.col]), 1)
    C = np.triu(C + C.T - np.diag(np.diag(C)))
    C = C + np.triu(C, 1).T
    return data, blocks, C


def test_side_pass_from_a_split_keeps_it_under_noise_and_improves_it_above():
    """With the model's split as its start, the pass keeps most nodes on their block's side
    where the fields are noise (at a tiny epsilon: about the split's cut, where the plain pass
    gives a random one) and cuts more than the split where they are not; the charge is the
    same."""
    data, blocks, C = _bipartite_in_mixed_blocks()
    A = data.weights
    m = A.sum() / 2

    def cut(x):
        return float((A.sum() - x @ (A @ x)) / 4 / m)

    share, y = best_block_split(C, rng=0)
    split = y[blocks]
    assert 0.6 < cut(split) < 0.8
    # a node leaves its block's side only where the noise passes SIDE_PRIOR_MARGIN scales
    # times its block's lean (about one node in ten here)
    weak = [side_pass(data, data.degrees, epsilon=1e-6, ledger=PrivacyLedger(), rng=s,
                      split=(blocks, C, y)) for s in range(5)]
    assert np.mean([np.mean(x == split) for x in weak]) > 0.8  # 0.88-0.93 by seed
    assert np.median([cut(x) for x in weak]) > 0.55  # 0.59-0.64 by seed; random sides 0.5
    led = PrivacyLedger(epsilon=20, delta=0)
    strong = [cut(side_pass(data, data.degrees, epsilon=20, ledger=led if s == 0 else
                            PrivacyLedger(), rng=s, split=(blocks, C, y))) for s in range(3)]
    assert min(strong) > cut(split) + 0.1
    assert [e.epsilon for e in led.entries] == pytest.approx([20.0])
    plain = [cut(side_pass(data, data.degrees, epsilon=1e-6, ledger=PrivacyLedger(), rng=s))
             for s in range(3)]
    assert abs(np.median(plain) - 0.5) < 0.05


def test_side_pass_refuses_degrees_of_the_wrong_shape():
    data = as_graph_data(nx.karate_club_graph())
    with pytest.raises(ValueError, match="released_degrees"):
        side_pass(data, np.ones(5), epsilon=1, ledger=PrivacyLedger(), rng=0)


def test_model_cut_share_against_brute_force():
    """The best split of whole blocks (brute force over all 2^k splits of small random
    count matrices): the local search is a lower bound and reaches it here."""
    rng = np.random.default_rng(5)
    for _ in range(10):
        k = 7
        C = rng.integers(0, 20, size=(k, k))
        C = np.triu(C) + np.triu(C, 1).T
        total = np.triu(C).sum()
        best = 0
        for y in itertools.product([-1, 1], repeat=k):
            y = np.array(y)
            best = max(best, sum(C[a, b] for a in range(k) for b in range(a + 1, k)
                                 if y[a] != y[b]))
        share = model_cut_share(C, rng=0)
        assert share <= best / total + 1e-12
        assert share == pytest.approx(best / total)
    assert model_cut_share(np.array([[5]]), rng=0) == 0.0


def _release(G, eps, seed=0, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        return dpgraph.release_synthetic(G, epsilon=eps, rng=seed, **kw)


def test_release_synthetic_takes_the_sides_from_the_community_share():
    """The passes get (c - r) eps, the sides r eps, the total eps; with side_share=0 the
    passes get c eps and there are no sides; bad shares are refused."""
    G = nx.planted_partition_graph(4, 60, 0.3, 0.02, seed=2)
    rel = _release(G, 4.0)
    entries = {e.name: e.epsilon for e in rel.ledger.entries}
    passes = sum(v for k, v in entries.items() if "label pass" in k)
    assert passes == pytest.approx((COMMUNITY_SHARE - SIDE_SHARE) * 4.0)
    assert entries["synthetic: cut sides (forward pass)"] == pytest.approx(SIDE_SHARE * 4.0)
    assert rel.ledger.spent[0] == pytest.approx(4.0)
    assert rel.sides is not None and rel.sides.shape == (240,)
    off = _release(G, 4.0, side_share=0)
    assert off.sides is None and off.side_accept == 1.0
    assert sum(e.epsilon for e in off.ledger.entries
               if "label pass" in e.name) == pytest.approx(COMMUNITY_SHARE * 4.0)
    assert off.ledger.spent[0] == pytest.approx(4.0)
    for bad in (-0.1, 1.5, COMMUNITY_SHARE):
        with pytest.raises(ValueError, match="side_share"):
            _release(G, 4.0, side_share=bad)


def _hubs_and_leaves():
    """20 hubs, each joined to 40 of 400 leaves, and 100 leaf pairs: a disassortative degree
    mixing that the degree classes carry, so the model's blocks cut more than half."""
    H = nx.Graph()
    rng = np.random.default_rng(0)
    for hub in range(20):
        H.add_edges_from((hub, 20 + int(v)) for v in rng.choice(400, 40, replace=False))
    H.add_edges_from((20 + 2 * i, 21 + 2 * i) for i in range(100))
    return H


def test_release_synthetic_leans_where_the_model_carries_no_cut():
    """Assortative communities: the model's blocks cut under half of its edges, so the sides
    are released with the whole share and the samples lean across them (more of the graph's
    edges cut by a sample's sides than without the lean, same release: 0.61 against 0.51; the
    lean does not tilt the affinity groups)."""
    G = nx.planted_partition_graph(4, 60, 0.3, 0.02, seed=2)
    rel = _release(G, 4.0)
    assert rel.diagnostics["model_cut_share"] < 0.5 and rel.side_accept == SIDE_ACCEPT
    assert "side_cut_lead" not in rel.diagnostics

    def across(g, x):
        C = sp.triu(g.weights, 1).tocoo()
        return np.mean(x[C.row] != x[C.col])

    leaned = np.mean([across(rel.sample(rng=s), rel.sides) for s in range(3)])
    rel.side_accept = 1.0
    plain = np.mean([across(rel.sample(rng=s), rel.sides) for s in range(3)])
    assert leaned > plain + 0.08


def test_release_synthetic_keeps_the_models_cut_where_it_cuts_more_than_the_sides():
    """Hubs joined to leaves: the blocks cut more than half, the sides are released at (1 -
    SIDE_CHOICE_SHARE) of the share and their lead over the model's split at the rest; the
    split (hubs against leaves) cuts nearly every edge, the lead is negative, no lean. The
    whole epsilon is spent."""
    out = _release(_hubs_and_leaves(), 8.0, communities="private")
    assert out.diagnostics["model_cut_share"] >= 0.5 and out.side_accept == 1.0
    assert out.sides is None and out.diagnostics["side_cut_lead"] < 0
    entries = {e.name: e.epsilon for e in out.ledger.entries}
    eps_sides = SIDE_SHARE * 8.0
    assert entries["synthetic: cut sides (forward pass)"] == pytest.approx(
        (1 - SIDE_CHOICE_SHARE) * eps_sides)
    assert entries["synthetic: cut sides against the model's split"] == pytest.approx(
        SIDE_CHOICE_SHARE * eps_sides)
    assert out.ledger.spent[0] == pytest.approx(8.0)


@pytest.mark.parametrize("lead, leans", [(5.0, True), (-5.0, False), (0.0, False)])
def test_release_synthetic_leans_by_the_sign_of_the_released_lead(monkeypatch, lead, leans):
    """Where the blocks cut more than half, the samples lean across the released sides exactly
    when the released lead is positive (post-processing of it)."""
    monkeypatch.setattr(release_mod, "release_cut_lead", lambda *a, **k: lead)
    out = _release(_hubs_and_leaves(), 8.0, communities="private")
    assert (out.sides is not None) == leans
    assert out.side_accept == (SIDE_ACCEPT if leans else 1.0)


def test_cut_lead_sensitivity_is_one_and_matches_the_cuts():
    """docs/privacy.md 7.15: for sides fixed before the call, one pair moves ``cut(x) -
    cut(y)`` by at most its weight change (brute force over every edge removed and edges added
    at the lowest-degree nodes); the bound is attained; at a huge epsilon the release is the
    difference of the two cuts."""
    G = nx.Graph(nx.convert_node_labels_to_integers(nx.les_miserables_graph()).edges())
    n = G.number_of_nodes()
    rng = np.random.default_rng(4)
    x, y = (np.where(rng.random(n) < 0.5, 1.0, -1.0) for _ in range(2))

    def lead(A):
        C = sp.triu(A, 1).tocoo()
        return float(np.sum(C.data * ((x[C.row] != x[C.col]).astype(float)
                                      - (y[C.row] != y[C.col]))))

    worst = max(abs(lead(A) - lead(B)) for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(1.0)
    data = as_graph_data(G, weight=None)
    A = nx.to_scipy_sparse_array(G, nodelist=list(G), format="csr", dtype=float)  # data's order
    led = PrivacyLedger()
    got = release_cut_lead(data, x, y, epsilon=1e6, ledger=led, rng=0)
    assert got == pytest.approx(lead(A), abs=1e-3)
    assert led.spent[0] == pytest.approx(1e6)
    with pytest.raises(ValueError, match="side for each"):
        release_cut_lead(data, x[:5], y, epsilon=1.0, ledger=PrivacyLedger(), rng=0)


def test_best_block_split_returns_the_split_it_scores():
    rng = np.random.default_rng(6)
    C = rng.integers(0, 20, size=(6, 6))
    C = np.triu(C) + np.triu(C, 1).T
    share, y = best_block_split(C, rng=1)
    cut = sum(C[a, b] for a in range(6) for b in range(a + 1, 6) if y[a] != y[b])
    assert share == pytest.approx(cut / np.triu(C).sum())
    assert share == model_cut_share(C, rng=1)
