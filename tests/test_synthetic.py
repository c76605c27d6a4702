"""Synthetic graphs from a released degree-corrected block model (issue 18; docs/privacy.md 7)."""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.evaluate import synthetic_report
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.synthetic import (BlockModel, block_edge_counts, consistent_block_model,
                               degree_split, node_block_counts, partition_from_release,
                               refine_partition, release_block_model, sample_block_model)


def _adjacent_pairs(G):
    """(A, A') pairs differing in one edge: every edge removed, and edges added at the
    lowest-degree nodes (the worst cases for degree-normalised statistics)."""
    A = nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr", dtype=float)
    n = A.shape[0]
    out = []
    for u, v in G.edges():
        B = A.tolil()
        B[u, v] = B[v, u] = 0.0
        out.append((A, B.tocsr()))
    deg = np.asarray(A.sum(axis=1)).ravel()
    low = np.argsort(deg)[:6]
    for u, v in itertools.combinations(low.tolist(), 2):
        if A[u, v] == 0:
            B = A.tolil()
            B[u, v] = B[v, u] = 1.0
            out.append((A, B.tocsr()))
    assert n > 0
    return out


@pytest.fixture(scope="module")
def graph_and_blocks():
    G = nx.convert_node_labels_to_integers(nx.les_miserables_graph())
    G = nx.Graph(G.edges())
    rng = np.random.default_rng(0)
    return G, rng.integers(0, 4, size=G.number_of_nodes())


def test_block_counts_sensitivity_is_one(graph_and_blocks):
    """docs/privacy.md 7.1: one edge changes the block edge counts by exactly 1 in L1."""
    G, z = graph_and_blocks
    worst = max(np.abs(block_edge_counts(A, z) - block_edge_counts(B, z)).sum()
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(1.0)


def test_degree_split_sensitivity_is_two(graph_and_blocks):
    """docs/privacy.md 7.2: one edge changes the inside/across degrees by exactly 2 in L1."""
    G, z = graph_and_blocks
    worst = max(np.abs(degree_split(A, z) - degree_split(B, z)).sum()
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(2.0)


def test_node_block_counts_sensitivity_is_two(graph_and_blocks):
    """docs/privacy.md 7.4: one edge changes N = A Z by exactly 2 in L1."""
    G, z = graph_and_blocks
    worst = max(np.abs(node_block_counts(A, z, 4) - node_block_counts(B, z, 4)).sum()
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(2.0)


def test_release_block_model_charges_its_epsilon_and_is_consistent(graph_and_blocks):
    G, z = graph_and_blocks
    led = PrivacyLedger(epsilon=1.0, delta=0.0)
    bm = release_block_model(as_graph_data(G), z, epsilon=1.0, ledger=led, rng=0)
    assert led.spent == (pytest.approx(1.0), 0.0)
    scales = sorted(e.noise_scale for e in led.entries)
    assert scales == pytest.approx(sorted([1 / 0.2, 2 / 0.8]))  # 7.1 and 7.2
    C = bm.block_counts
    assert (C == C.T).all() and (C >= 0).all() and C.dtype.kind == "i"
    assert bm.degrees.min() >= 1 and ((bm.inside >= 0) & (bm.inside <= 1)).all()


def test_consistent_block_model_caps_and_keeps_the_noisy_order():
    z = np.array([0, 0, 1, 1, 1])
    noisy = np.array([5.0, -3.0, 2.5, 0.2, 9.0])
    bm = consistent_block_model(z, np.array([[7.0, 100.0], [0.0, 2.6]]), noisy)
    # inside block 0 only one pair exists; 2 x 3 pairs across
    assert bm.block_counts.tolist() == [[1, 6], [6, 3]]
    order = np.argsort(noisy, kind="stable")
    assert (np.diff(bm.degrees[order]) >= 0).all()  # isotonic along the noisy order
    assert bm.degrees.min() >= 1 and bm.degrees.max() <= 4


def test_sampler_realises_every_block_count_exactly():
    rng = np.random.default_rng(1)
    n, k = 300, 5
    z = rng.integers(0, k, size=n)
    d = rng.pareto(2.0, size=n) + 1
    C = rng.integers(0, 200, size=(k, k))
    C = np.triu(C) + np.triu(C, 1).T
    g = sample_block_model(z, C, d, inside=rng.random(n), rng=2)
    A = g.weights
    assert (A.diagonal() == 0).all() and (A.data == 1).all() and (A != A.T).nnz == 0
    got = block_edge_counts(A, z)
    assert np.array_equal(got, np.triu(C).astype(float))
    assert g.m == int(np.triu(C).sum())
    assert (np.asarray(A.sum(axis=1)).ravel() > 0).all()  # anchors: no isolated node


def test_sampler_degrees_follow_the_weights():
    """One block, consistent degrees 4 and 16 (sum = 2 x 2000 edges). Expected degree with the
    anchors: light 1 + 400 (4/4000) + 3200 (3/3600) = 4.07, heavy 1 + 1.6 + 3200 (15/3600) =
    15.9 (repeats redrawn shift this by < 1%). Each half's mean degree over 200 nodes has a
    standard deviation below 0.3, so 10% is > 3 standard deviations."""
    n = 400
    d = np.where(np.arange(n) < n // 2, 4.0, 16.0)
    g = sample_block_model(np.zeros(n, dtype=int), np.array([[2000]]), d, rng=3)
    deg = np.asarray(g.weights.sum(axis=1)).ravel()
    assert deg[: n // 2].mean() == pytest.approx(4.07, rel=0.1)
    assert deg[n // 2:].mean() == pytest.approx(15.9, rel=0.1)


def test_sampler_caps_an_impossible_count():
    g = sample_block_model(np.zeros(4, dtype=int), np.array([[100]]), np.ones(4), rng=0)
    assert g.m == 6  # K4


def test_partition_from_release_finds_planted_communities():
    G = nx.planted_partition_graph(2, 60, 0.5, 0.02, seed=1)
    pg = dpgraph.privatize(G, epsilon=8.0, delta=1e-6, rank=2, rng=0, synthetic_share=None)
    z = partition_from_release(pg, 2, rng=0)
    truth = np.arange(120) >= 60
    agree = max((z == truth).mean(), (z != truth).mean())
    assert agree > 0.95


def test_refine_partition_charges_each_round():
    G = nx.planted_partition_graph(2, 40, 0.5, 0.05, seed=2)
    led = PrivacyLedger(epsilon=4.0, delta=0.0)
    z = refine_partition(as_graph_data(G), np.arange(80) % 2, epsilon=4.0, ledger=led, rng=0,
                         rounds=2)
    assert len(led.entries) == 2 and led.spent[0] == pytest.approx(4.0)
    assert all(e.noise_scale == pytest.approx(2 / 2.0) for e in led.entries)
    assert z.shape == (80,)


def test_privatize_splits_the_budget_and_max_cut_pays_nothing_for_it():
    G = nx.Graph(nx.les_miserables_graph().edges())
    pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rng=0, rank=2)
    names = [e.name for e in pg.ledger.entries]
    syn = sum(e.epsilon for e in pg.ledger.entries if e.name.startswith("synthetic"))
    assert syn == pytest.approx(0.3 * 2.0)
    assert pg.ledger.spent[0] == pytest.approx(2.0)
    assert isinstance(pg.block_model, BlockModel)
    s = pg.sample(rng=1)
    assert s.m == pg.block_model.edge_count and s.labels == pg.labels
    res = dpgraph.max_cut(G, epsilon=2.0, delta=1e-6, rng=0, rank=2)
    assert not any(e.name.startswith("synthetic") for e in res.ledger.entries), names


def test_privatize_without_synthetic_share_samples_the_weights():
    G = nx.Graph(nx.les_miserables_graph().edges())
    pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rng=0, rank=2, synthetic_share=None)
    assert pg.block_model is None
    assert pg.sample(rng=0).n == G.number_of_nodes()


def test_weighted_export_keeps_the_released_edge_count():
    G = nx.Graph(nx.les_miserables_graph().edges())
    pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rng=0, rank=2)
    k = int(round(pg.edge_count))
    out = pg.to_graph_data(max_edges=k)
    assert 0 < out.m <= k + 5  # ties at the threshold only
    assert pg.to_graph_data(min_weight=0.01).m > out.m


def test_synthetic_report_identity_and_floor():
    G = nx.Graph(nx.les_miserables_graph().edges())
    same = synthetic_report(G, G, max_cut=True)
    assert same["edge_ratio"] == 1 and same["degree_kl"] == 0 and same["nmi"] == 1
    assert same["maxcut_transfer"] == pytest.approx(1.0)
    er = nx.gnm_random_graph(G.number_of_nodes(), G.number_of_edges(), seed=0)
    er = nx.relabel_nodes(er, dict(enumerate(G.nodes())))
    worse = synthetic_report(G, er, max_cut=False)
    assert worse["degree_kl"] > 0 and worse["clustering_rel_error"] > 0.5
    assert worse["nmi"] < 0.5


def test_low_rank_route_uses_its_factors_only():
    """The PCA route (factors n x r, as on the matrix-free route): the partition comes from
    basis @ core @ basis.T through the r x r core, and the sample has the released count."""
    inst = dpgraph.datasets.planted_cut(200, 16, rng=0)
    pg = dpgraph.privatize(inst.graph, epsilon=4.0, delta=1e-6, rank=2, rng=0, route="pca")
    assert pg.unbiased is None and pg.basis is not None
    s = pg.sample(rng=0)
    assert s.m == pg.block_model.edge_count
    assert pg.block_model.blocks.max() + 1 <= 2 * 8


# ----------------------------------------------------------------------------- release_synthetic


def test_split_block_statistics_weighted_sensitivity_is_one(graph_and_blocks):
    """docs/privacy.md 7.7: sum_k |Delta_k| / (eps b_k) <= 1 over adjacent graphs, attained
    both by pairs inside a block and by pairs across blocks."""
    from dpgraph.synthetic import split_block_scales, split_block_statistics

    G, z = graph_and_blocks
    n, k, eps = G.number_of_nodes(), int(z.max()) + 1, 0.7
    unit = eps * split_block_scales(n, k, eps, 0.3)
    inside, across = [], []
    for A, B in _adjacent_pairs(G):
        i, j = (abs(A - B)).nonzero()
        loss = np.abs(split_block_statistics(A, z) - split_block_statistics(B, z)) / unit
        (inside if z[i[0]] == z[j[0]] else across).append(loss.sum())
    assert inside and across
    assert max(inside) == pytest.approx(1.0) and max(across) == pytest.approx(1.0)


def test_release_split_block_model_is_unbiased_at_large_epsilon(graph_and_blocks):
    from dpgraph.synthetic import release_split_block_model

    G, z = graph_and_blocks
    data = as_graph_data(G)
    led = PrivacyLedger(epsilon=1e4, delta=0)
    bm = release_split_block_model(data, z, epsilon=1e4, ledger=led, rng=0)
    true = block_edge_counts(data.weights, z)
    assert np.array_equal(np.triu(bm.block_counts), np.rint(true).astype(int))
    deg = np.asarray(data.weights.sum(axis=1)).ravel()
    # isotonic smoothing keeps the order and, at this noise, the values (floored at 1)
    assert np.allclose(bm.degrees, np.maximum(deg, 1.0), atol=0.05)
    assert len(led.entries) == 1 and led.spent == pytest.approx((1e4, 0.0))


def test_private_communities_recover_planted_blocks_at_large_epsilon():
    """Distributional check, fixed seeds: far above the noise the partition is the planted one
    up to the super-graph's merges (NMI against the planted blocks well above chance)."""
    import igraph as ig

    from dpgraph.synthetic import private_communities

    G = nx.planted_partition_graph(2, 150, 0.2, 0.005, seed=0)
    data = as_graph_data(G)
    truth = np.repeat([0, 1], 150).tolist()
    nmis = []
    for s in range(3):
        led = PrivacyLedger(epsilon=20, delta=0)
        z = private_communities(data, epsilon=20, ledger=led, rng=s, rounds=2)
        assert led.spent[0] == pytest.approx(20.0)
        nmis.append(ig.compare_communities(truth, z.tolist(), method="nmi"))
    assert np.median(nmis) > 0.5


def test_private_communities_from_random_labels_recover_planted_blocks():
    """The random start (``init_labels``, docs/privacy.md 7.6 step 1'): no super-graph charge,
    the whole epsilon on the refinement rounds, and far above the noise the refinement finds
    the planted blocks from uniformly random labels (fixed seeds; NMI against the planted
    blocks). With 12 labels on 4 planted blocks the labels may stay split, so the check is
    that nodes of different planted blocks rarely share a label (purity)."""
    import igraph as ig

    from dpgraph.synthetic import private_communities

    G = nx.planted_partition_graph(4, 100, 0.25, 0.005, seed=1)
    data = as_graph_data(G)
    truth = np.repeat(np.arange(4), 100)
    nmis, purities = [], []
    for s in range(3):
        led = PrivacyLedger(epsilon=40, delta=0)
        z = private_communities(data, epsilon=40, ledger=led, rng=s, rounds=4, init_labels=12)
        assert led.spent[0] == pytest.approx(40.0)
        assert len(led.entries) == 4 and all("node-to-block" in e.name for e in led.entries)
        nmis.append(ig.compare_communities(truth.tolist(), z.tolist(), method="nmi"))
        # each label's majority planted block holds most of its nodes
        purities.append(sum(np.bincount(truth[z == c]).max() for c in np.unique(z)) / z.size)
    assert np.median(nmis) > 0.6 and np.median(purities) > 0.9
    # at chance level a random labelling has NMI near 0: the check can fail
    rnd = np.random.default_rng(0).integers(12, size=400)
    assert ig.compare_communities(truth.tolist(), rnd.tolist(), method="nmi") < 0.1


@pytest.mark.parametrize("bad", [1, -1, 2.5, True])
def test_private_communities_refuse_bad_init_labels(bad):
    from dpgraph.synthetic import private_communities

    data = as_graph_data(nx.karate_club_graph())
    with pytest.raises(ValueError, match="init_labels"):
        private_communities(data, epsilon=1, ledger=PrivacyLedger(), rng=0, init_labels=bad)


@pytest.mark.parametrize("epsilon, start, rounds", [(1.0, "super-graph", 1),
                                                    (2.0, "super-graph", 2),
                                                    (4.0, "12 random labels", 4)])
def test_release_synthetic_default_start_and_charges(epsilon, start, rounds):
    """The default community start is a public function of epsilon (random labels from
    epsilon 3 on); either way the ledger totals epsilon, and the random start charges no
    super-graph release."""
    import warnings

    G = nx.planted_partition_graph(3, 100, 0.2, 0.01, seed=2)  # 15 super-nodes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=epsilon, rng=5)
    assert rel.diagnostics["init"] == start and rel.diagnostics["rounds"] == rounds
    assert rel.ledger.spent == pytest.approx((epsilon, 0.0))
    names = [e.name for e in rel.ledger.entries]
    assert sum("node-to-block" in nm for nm in names) == rounds
    assert any("super-graph" in nm for nm in names) == (start == "super-graph")
    assert rel.sample(rng=1).m == rel.edge_count


def test_release_synthetic_spends_epsilon_and_samples_the_released_count():
    import warnings

    G = nx.Graph(nx.les_miserables_graph().edges())
    before = sorted(G.edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=1.5, rng=3)
    assert rel.ledger.spent == pytest.approx((1.5, 0.0))
    assert rel.ledger.reproducible  # a seeded release says so
    H = rel.sample(rng=4)
    assert H.m == rel.edge_count and H.labels == tuple(G.nodes())
    assert not (np.asarray(H.weights.sum(axis=1)).ravel() == 0).any()  # no isolated node
    assert sorted(G.edges()) == before  # input untouched
    assert "SyntheticRelease" in repr(rel) and "reproducible" in repr(rel)


@pytest.mark.parametrize("kwargs, message", [(dict(epsilon=0), "epsilon"),
                                             (dict(epsilon=1, community_share=1.0), "community_share"),
                                             (dict(epsilon=1, group_size=0), "group_size")])
def test_release_synthetic_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dpgraph.release_synthetic(nx.karate_club_graph(), weight=None, rng=0, **kwargs)


def test_release_synthetic_refuses_weights_outside_the_unit_interval():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 1.0), (2, 3, 1.0)])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        dpgraph.release_synthetic(G, epsilon=1, rng=0)
