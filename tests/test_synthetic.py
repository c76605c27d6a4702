"""Synthetic graphs from a released degree-corrected block model (docs/privacy.md 7)."""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.lab.evaluate import synthetic_report
from dpgraph.graph import as_graph_data, from_matrix
from dpgraph.privacy import PrivacyLedger
from dpgraph.synthetic.block_model import (BlockModel, block_edge_counts, consistent_block_model,
                                           degree_split, release_block_model)
from dpgraph.synthetic.communities import (node_block_counts, partition_from_release,
                                           refine_partition)
from dpgraph.synthetic.sampler import restore_degrees, sample_block_model, symmetric_from_keys


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


def _isolated_pair_graphs():
    """Adjacent graphs on 6 nodes: a 4-cycle on 2-5, without and with the pair {0, 1} (whose
    ends have no other neighbour, so every read of the pair is visible in a transcript)."""
    G0 = nx.empty_graph(6)
    G0.add_edges_from([(2, 3), (3, 4), (4, 5), (5, 2)])
    G1 = G0.copy()
    G1.add_edge(0, 1)
    return G0, G1

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
    assert scales == pytest.approx(sorted([1 / 0.2, 2 / 0.8]), rel=1.5e-3)  # 7.1 and 7.2
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


def test_sampler_anchor_partner():
    """A star's weights (hub 400, 400 leaves of 1) and its 400 edges: almost every edge is an
    anchor. Degree-weighted partners send each leaf's anchor to the hub with probability about
    400 / 800 (hub degree Binomial(400, 1/2): 200 +- 10, measured 175-223 over 30 seeds); the
    exact edge count is kept."""
    n = 401
    d = np.ones(n)
    d[0] = 400.0
    g = sample_block_model(np.zeros(n, dtype=int), np.array([[400]]), d, rng=0)
    hub = np.asarray(g.weights.sum(axis=1)).ravel()[0]
    assert g.m == 400
    assert hub > 150


def test_sampler_caps_an_impossible_count():
    g = sample_block_model(np.zeros(4, dtype=int), np.array([[100]]), np.ones(4), rng=0)
    assert g.m == 6  # K4



def _hub_model():
    """One community of three degree classes: a hub (released degree 120) and 9 nodes of 10 in
    block 0, 60 nodes of 3 in block 1, 300 nodes of 2 in block 2. The hub's share of block
    0's weight (120 / 210) times block pair (0, 1)'s 150 edges asks 86 edges of 60 nodes."""
    z = np.r_[np.zeros(10, int), np.ones(60, int), np.full(300, 2)]
    d = np.r_[120.0, np.full(9, 10.0), np.full(60, 3.0), np.full(300, 2.0)]
    C = np.array([[20, 150, 40], [150, 0, 10], [40, 10, 250]])
    return z, C, d


def test_sampler_restores_a_saturated_hub():
    """Without the restoration the hub has at most its 69 possible partners in blocks 0-1 plus
    its share of block pair (0, 2) (about 23 of 40: 82-90 edges over 5 seeds); with it, the
    hub is short of 120 by at most its slack (2 sqrt(120) = 21.9: at least 98 edges). The
    edge count is unchanged."""
    z, C, d = _hub_model()
    plain = sample_block_model(z, C, d, rng=1, groups=np.zeros(3, int))
    fixed = sample_block_model(z, C, d, rng=1, groups=np.zeros(3, int), restore=True)
    hub = [np.asarray(g.weights.sum(axis=1)).ravel()[0] for g in (plain, fixed)]
    assert hub[0] < 95
    assert hub[1] >= 98
    assert fixed.m == plain.m == int(np.triu(C).sum())


@pytest.mark.parametrize("n", [1, 7, 500])
def test_symmetric_from_keys_matches_the_general_constructor(n):
    """The sampler's one-pass adjacency equals ``from_matrix(A + A.T)`` entry for entry, in
    canonical form (sorted indices, float64, no diagonal)."""
    rng = np.random.default_rng(n)
    lo, hi = rng.integers(0, n, size=(2, 4 * n))
    ok = lo != hi
    keys = np.unique(np.minimum(lo, hi)[ok] * n + np.maximum(lo, hi)[ok])
    W = symmetric_from_keys(keys, n)
    A = sp.coo_array((np.ones(keys.size), (keys // n, keys % n)), shape=(n, n))
    R = from_matrix((A + A.T).tocsr()).weights
    assert W.has_sorted_indices and W.dtype == np.float64 and W.shape == (n, n)
    assert np.array_equal(W.indptr, R.indptr) and np.array_equal(W.indices, R.indices)
    assert np.array_equal(W.data, R.data)


def _degrees(keys, n):
    return np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_restore_degrees_moves_only_surplus_ends_inside_a_community(seed):
    """On a random graph with random targets: every edge count between communities, every
    fixed edge and the edge count stay; a node gains only if it was short of its target by
    more than the slack, loses only if it had more than its target, and never ends below its
    target; no self-loop or repeated pair appears."""
    rng = np.random.default_rng(seed)
    n = 200
    G = nx.gnm_random_graph(n, 1500, seed=seed)
    e = np.array(G.edges())
    keys = np.sort(np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1]))
    com = rng.integers(0, 3, size=n)
    t = rng.pareto(1.5, size=n) * 8 + 1
    fixed = np.sort(rng.choice(keys, 300, replace=False))
    new = restore_degrees(keys, n, t, com, fixed=fixed, rng=seed, slack=1.0)
    assert new.size == keys.size and np.unique(new).size == new.size
    assert (new // n != new % n).all()
    assert np.isin(fixed, new).all()
    before, after = _degrees(keys, n), _degrees(new, n)
    short = before < np.floor(t - np.sqrt(t))
    assert (after > before).any()
    assert not (after > before)[~short].any()
    assert not (after < before)[before <= t].any()
    assert (after[after < before] >= np.floor(t[after < before])).all()
    cp = lambda k: np.bincount(np.minimum(com[k // n], com[k % n]) * 3
                               + np.maximum(com[k // n], com[k % n]), minlength=9)
    assert np.array_equal(cp(new), cp(keys))


def test_restore_degrees_reaches_a_hub_that_already_neighbours_its_community():
    """A hub adjacent to every node of its community can take over only the ends whose other
    node lies outside it (one in eleven here): the moves drawn grow with the rounds, so the
    hub still comes within the slack of its target."""
    n, k = 400, 50  # community 0: nodes 0..49, the hub 0; community 1: the rest
    rng = np.random.default_rng(3)
    inside = [(u, v) for u in range(k) for v in range(u + 1, k)]  # a complete community
    out = [(u, int(v)) for u in range(1, k) for v in rng.choice(np.arange(k, n), 5, False)]
    e = np.array(inside + out)
    keys = np.sort(e[:, 0] * n + e[:, 1])
    before = _degrees(keys, n)
    t = before.astype(float)
    t[0], t[1:k] = 130.0, before[1:k] - 2  # the hub is 81 short; its community gives 98
    com = (np.arange(n) >= k).astype(int)
    new = restore_degrees(keys, n, t, com, rng=0, slack=1.0)
    after = _degrees(new, n)
    assert after[0] >= np.floor(t[0] - np.sqrt(t[0]))
    assert (after[1:k] >= t[1:k]).all() and np.array_equal(after[k:], before[k:])


def test_restore_degrees_tolerance_gives_the_whole_shortfall():
    """Node 0 of a star at node 1 is 2 edges short of its target 4: a tolerance below 2 gives
    it both (node 1, 3 over, gives them), one above 2 none; the same threshold as a slack
    (``slack sqrt(4)`` = 1.5) gives only what lies beyond it, here nothing whole."""
    n = 6
    keys = np.array([0 * n + 1, 0 * n + 2, 1 * n + 3, 1 * n + 4, 1 * n + 5])
    t = np.array([4, 1, 1, 1, 1, 1.0])
    com = np.zeros(n, dtype=int)
    assert _degrees(restore_degrees(keys, n, t, com, tolerance=1.5, rng=0), n)[0] == 4
    assert _degrees(restore_degrees(keys, n, t, com, tolerance=2.5, rng=0), n)[0] == 2
    assert _degrees(restore_degrees(keys, n, t, com, slack=0.75, rng=0), n)[0] == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_tolerance_undoes_the_pull_towards_each_blocks_mean(seed):
    """A dense block (60 nodes of inside degree 20-55, pair density 0.64) in one community with
    a sparse one: the draws saturate its highest-degree nodes and hand their edges to its
    lowest (its top fifth about 5 edges short, its bottom fifth about 5 over, with the
    community restore's slack of 2 sqrt(d)); with ``block_tolerance=0`` both fifths end
    within 1.5 edges of their degrees on average, and every block pair keeps its count."""
    n0, n1, cross = 60, 120, 300
    d0 = np.linspace(20, 55, n0)
    b = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    d = np.r_[d0 + cross / n0, np.full(n1, 6.0)]
    C = np.array([[d0.sum() / 2, cross], [cross, (6.0 * n1 - cross) / 2]])
    inside = np.r_[d0 / (d0 + cross / n0), np.full(n1, 1.0 - cross / (6.0 * n1))]
    low, high = np.argsort(d0)[:12], np.argsort(d0)[-12:]
    out = {}
    for tol in (None, 0.0):
        g = sample_block_model(b, C, d, inside=inside, groups=np.array([0, 0]), rng=seed,
                               restore=True, block_tolerance=tol)
        A = g.weights.tocoo()
        assert g.m == int(np.rint(np.triu(C).sum()))
        assert (b[A.row] != b[A.col]).sum() // 2 == cross  # the block pair's count
        x = np.asarray((g.weights != 0).sum(axis=1)).ravel() - d
        out[tol] = x[low].mean(), x[high].mean()
    assert out[None][0] > 2.5 and out[None][1] < -2.5  # the pull, without the block restore
    assert abs(out[0.0][0]) < 1.5 and abs(out[0.0][1]) < 1.5


def test_release_block_tolerance_is_one_sd_of_the_released_degrees_noise():
    """``block_tolerance`` is ``BLOCK_RESTORE_SDS`` times the standard deviation of the
    released degrees' noise: measured over 20 releases of a planted partition graph (400
    nodes), the released degrees' spread around the true ones is within 15% of it, at eps 1
    and 4."""
    from dpgraph.synthetic.release import BLOCK_RESTORE_SDS
    G = nx.planted_partition_graph(4, 100, 0.3, 0.02, seed=0)
    d = np.array([G.degree(v) for v in G.nodes()])
    for eps in (1.0, 4.0):
        rels = [dpgraph.release_synthetic(G, epsilon=eps, rng=s) for s in range(20)]
        sd = np.concatenate([np.asarray(r.block_model.degrees) - d for r in rels]).std()
        # no noise of its own: it moves only with the edge count's second share (7.10), a
        # function of the released count
        tols = np.array([r.block_tolerance for r in rels])
        assert tols.max() / tols.min() < 1.05
        tol = tols.mean()
        assert abs(tol / BLOCK_RESTORE_SDS / sd - 1.0) < 0.15


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
    assert all(e.noise_scale == pytest.approx(2 / 2.0, rel=1.5e-3) for e in led.entries)
    assert z.shape == (80,)


def test_sequential_batches_sensitivity_is_two(graph_and_blocks):
    """docs/privacy.md 7.4, sequential batches: whatever partition each batch is read against
    (a function of the earlier releases, fixed by conditioning), one edge changes the rows
    released in one round by at most 2 in L1, in one batch or two."""
    from dpgraph.synthetic.communities import _rows_block_counts

    G, _ = graph_and_blocks
    n = G.number_of_nodes()
    rng = np.random.default_rng(3)
    batches = np.array_split(rng.permutation(n), 7)
    parts = [rng.integers(0, 4, size=n) for _ in batches]  # one partition per batch
    worst = max(sum(np.abs(_rows_block_counts(A, rows, z, 4) -
                           _rows_block_counts(B, rows, z, 4)).sum()
                    for rows, z in zip(batches, parts))
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(2.0)


def test_refine_partition_sequential_batches_charge_each_round_once():
    G = nx.planted_partition_graph(2, 40, 0.5, 0.05, seed=2)
    led = PrivacyLedger(epsilon=4.0, delta=0.0)
    truth = np.repeat([0, 1], 40)
    z = refine_partition(as_graph_data(G), np.random.default_rng(1).integers(0, 2, 80),
                         epsilon=4.0, ledger=led, rng=0, rounds=2, batches=8)
    assert len(led.entries) == 2 and led.spent[0] == pytest.approx(4.0)
    assert all(e.noise_scale == pytest.approx(2 / 2.0, rel=2e-3) for e in led.entries)
    assert max((z == truth).mean(), (z != truth).mean()) > 0.9
    with pytest.raises(ValueError, match="batches"):
        refine_partition(as_graph_data(G), truth, epsilon=1.0, ledger=led, rng=0, batches=0)


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
    assert 0 < out.m <= k
    assert pg.to_graph_data(min_weight=0.01).m > out.m


def test_max_edges_breaks_ties_at_the_threshold_by_index():
    # the box-clipped randomized-response release has hundreds of pairs at weight 1: the
    # export kept every tie (197 edges for max_edges=1)
    G = nx.karate_club_graph()
    pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, weight=None, rng=0,
                           route="randomized-response", rr_postprocess="box")
    W = pg.weights()
    assert np.count_nonzero(np.triu(W == W.max(), 1)) > 78
    for k in (1, 10, 78):
        kept = pg.to_graph_data(max_edges=k)
        assert kept.m == k
        i, j, _ = kept.edges()
        top = np.argwhere(np.triu(W == W.max(), 1))[:k]  # the first tied pairs by index
        assert sorted(zip(i.tolist(), j.tolist())) == sorted(map(tuple, top.tolist()))
    for bad in (1.5, True, "3"):
        with pytest.raises(ValueError, match="max_edges must be an integer"):
            pg.to_graph_data(max_edges=bad)
    assert pg.to_graph_data(max_edges=np.int64(5)).m == pg.to_graph_data(max_edges=5.0).m == 5


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
    from dpgraph.synthetic.block_model import split_block_scales, split_block_statistics

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
    from dpgraph.synthetic.block_model import release_split_block_model

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

    from dpgraph.synthetic.communities import private_communities

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

    from dpgraph.synthetic.communities import private_communities

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
    from dpgraph.synthetic.communities import private_communities

    data = as_graph_data(nx.karate_club_graph())
    with pytest.raises(ValueError, match="init_labels"):
        private_communities(data, epsilon=1, ledger=PrivacyLedger(), rng=0, init_labels=bad)


@pytest.mark.parametrize("epsilon, start, rounds, init", [(1.0, "6 random labels", 2, None),
                                                          (2.0, "6 random labels", 2, None),
                                                          (4.0, "12 random labels", 4, None),
                                                          (1.0, "super-graph", 1, 0),
                                                          (2.0, "super-graph", 2, 0)])
def test_release_synthetic_default_start_and_charges(epsilon, start, rounds, init):
    """``community_method="refine"``: the community start is a public function of epsilon (6
    random labels, 12 from epsilon 3 on; the super-graph with init_labels=0); either way the
    ledger totals epsilon, and the random start charges no super-graph release."""
    import warnings

    G = nx.planted_partition_graph(3, 100, 0.2, 0.01, seed=2)  # 15 super-nodes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=epsilon, rng=5, init_labels=init,
                                        community_method="refine")
    assert rel.diagnostics["init"] == start and rel.diagnostics["rounds"] == rounds
    assert rel.ledger.spent == pytest.approx((epsilon, 0.0))
    names = [e.name for e in rel.ledger.entries]
    assert sum("node-to-block" in nm for nm in names) == rounds
    assert any("super-graph" in nm for nm in names) == (start == "super-graph")
    assert rel.sample(rng=1).m == rel.edge_count



def test_release_synthetic_samples_give_a_hub_its_released_degree():
    """Four planted communities of 150 and a hub joined to 399 nodes (all four): at eps 8 the
    hub's released degree is about 400. Without degree classes (``bin_share=0``) its block
    pairs hold fewer, and the plain sampler gives it 234 edges (seeds 0, 1); the release's
    samples restore it to 358-366: edges only move inside the hub's community, whose surplus
    bounds what it gets back. With them (the default) the hub has a degree class of its own,
    whose class-pair counts give it 387-395 edges before any restoring."""
    G = nx.planted_partition_graph(4, 150, 0.15, 0.005, seed=1)
    G.add_edges_from((0, v) for v in range(1, 400))
    for seed, kwargs in itertools.product((0, 1), ({"bin_share": 0}, {})):
        rel = dpgraph.release_synthetic(G, epsilon=8.0, rng=seed, **kwargs)
        bm = rel.block_model
        k = bm.block_counts.shape[0]
        plain = sample_block_model(bm.blocks, bm.block_counts, bm.degrees, inside=bm.inside,
                                   rng=seed, groups=bm.groups, affinity_cap=rel.affinity_cap,
                                   affinity=None if bm.affinity is None
                                   else np.full(k, bm.affinity),
                                   sides=rel.sides, side_accept=rel.side_accept)
        hub = [np.asarray(g.weights.sum(axis=1)).ravel()[0] for g in (plain, rel.sample(seed))]
        assert bm.degrees[0] == pytest.approx(400, abs=10)
        if kwargs:
            assert hub[0] < 280 < 340 < hub[1]
        else:
            assert min(hub) > 360
        assert rel.sample(seed).m == rel.edge_count


def test_privatize_samples_give_a_short_hub_edges_back():
    """``privatize(...).sample()`` restores saturated hubs too: four planted communities of 150
    and a hub joined to all 599 other nodes; where the plain sampler leaves the hub short of
    its released degree (about 599) beyond the slack, the sample gives it edge ends of the
    nodes over theirs in its block (526 -> 532, 520 -> 529, 506 -> 514 and 486 -> 499 edges at
    seeds 2-5), with the same edge count."""
    G = nx.planted_partition_graph(4, 150, 0.15, 0.005, seed=1)
    G.add_edges_from((0, v) for v in range(1, 600))
    for seed in (2, 3, 4, 5):
        pg = dpgraph.privatize(G, epsilon=8.0, delta=1e-6, rng=seed)
        bm = pg.block_model
        plain = sample_block_model(bm.blocks, bm.block_counts, bm.degrees, inside=bm.inside,
                                   rng=seed, labels=pg.labels)
        fixed = pg.sample(seed)
        hub = [np.asarray(g.weights.sum(axis=1)).ravel()[0] for g in (plain, fixed)]
        assert bm.degrees[0] - hub[0] > 2 * np.sqrt(bm.degrees[0])
        assert hub[1] >= hub[0] + 5
        assert fixed.m == plain.m


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
    assert H.m == rel.edge_count and H.labels == tuple(sorted(G.nodes()))  # privacy.md 4.14
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


def test_one_block_degrees_sensitivity_is_two(graph_and_blocks):
    """docs/privacy.md 7.7, one block: the released vector (each node's degree, degree_split's
    inside column) moves by exactly 2 in L1 over adjacent graphs, as the scale 2 / eps needs."""
    from dpgraph.synthetic.block_model import degree_split

    G, _ = graph_and_blocks
    one = np.zeros(G.number_of_nodes(), dtype=np.int64)
    worst = max(np.abs(degree_split(A, one)[:, 0] - degree_split(B, one)[:, 0]).sum()
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(2.0)


def test_one_block_release_noise_is_laplace_two_over_epsilon():
    """docs/privacy.md 7.7, one block: only the degrees are released, with Laplace noise of
    scale 2 / eps (L1 sensitivity 2); a distributional check of the scale on 3,000 nodes of
    degree about 60 (the clip at 1 never binds), and the charge is eps."""
    from dpgraph.synthetic.block_model import (degree_split, release_split_block_model,
                                               released_degree_noise_sd)

    G = nx.random_regular_graph(60, 3000, seed=1)
    data = as_graph_data(G)
    z = np.zeros(data.n, dtype=np.int64)
    assert (degree_split(data.weights, z)[:, 1] == 0).all()  # nothing lies across one block
    eps = 0.8
    led = PrivacyLedger(epsilon=eps, delta=0)
    bm = release_split_block_model(data, z, epsilon=eps, ledger=led, rng=3)
    noise = bm.degrees - 60.0
    assert led.spent == pytest.approx((eps, 0.0)) and len(led.entries) == 1
    assert released_degree_noise_sd(1, eps) == pytest.approx(np.sqrt(2) * 2 / eps)
    # Laplace(2 / eps): mean |x| = 2 / eps = 2.5; its standard error over 3,000 draws is 0.046
    assert np.mean(np.abs(noise)) == pytest.approx(2 / eps, abs=0.2)
    assert abs(np.mean(noise)) < 0.2
    assert bm.block_counts.shape == (1, 1) and (bm.inside == 1).all()


@pytest.mark.parametrize("communities, expected", [("none", 1), ("private", None)])
def test_release_synthetic_communities_plan_and_charges(communities, expected):
    """``communities="none"`` keeps one block and gives the community budget to the degrees;
    either way the ledger totals epsilon and the edge count is released first."""
    import warnings

    G = nx.planted_partition_graph(3, 100, 0.2, 0.01, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=1.0, rng=5, communities=communities)
    names = [e.name for e in rel.ledger.entries]
    assert "total edge weight" in names[0]
    assert rel.ledger.spent == pytest.approx((1.0, 0.0))
    assert any("label pass" in nm for nm in names) == (communities == "private")
    if expected is not None:
        assert rel.diagnostics["communities"] == expected
        (deg,) = [e for e in rel.ledger.entries if "one block" in e.name]
        # all but the count, the classes and the clustering release (docs/privacy.md 7.8)
        assert deg.epsilon == pytest.approx(1.0 - 0.02 - 0.05 - 0.05)
    assert rel.sample(rng=1).m == rel.edge_count


def test_release_synthetic_auto_plan_follows_the_community_signal():
    """``communities="auto"``: one block where the released edge count says a refinement count
    carries less than ``COMMUNITY_MIN_SIGNAL`` (public function of released values), private
    communities above it; the signal is reported."""
    import warnings

    from dpgraph.synthetic.release import COMMUNITY_MIN_SIGNAL, community_signal

    G = nx.planted_partition_graph(3, 100, 0.2, 0.01, seed=2)  # mean degree about 22
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = dpgraph.release_synthetic(G, epsilon=0.05, rng=5)
        high = dpgraph.release_synthetic(G, epsilon=2.0, rng=5)
    assert low.diagnostics["community_signal"] < COMMUNITY_MIN_SIGNAL
    assert low.diagnostics["communities"] == 1
    assert high.diagnostics["community_signal"] >= COMMUNITY_MIN_SIGNAL
    assert high.diagnostics["communities"] > 1
    m = G.number_of_edges()
    assert community_signal(m, 300, 0.73 * 2.0, 6, 2) == pytest.approx(
        (2 * m / 300 / 6) * 0.73 * 2.0 / 4)
    with pytest.raises(ValueError, match="communities"):
        dpgraph.release_synthetic(G, epsilon=1.0, rng=5, communities="louvain")


# ----------------------------------------------------------------------------- degree classes
# (docs/privacy.md 7.9)


def test_degree_class_counts_sensitivity_is_one(graph_and_blocks):
    """docs/privacy.md 7.9: for classes fixed before the release (a function of earlier
    releases), one edge changes the class-pair counts by exactly 1 in L1, and the release
    charges its epsilon once."""
    from dpgraph.synthetic.degree_classes import degree_bins, release_degree_mixing

    G, _ = graph_and_blocks
    deg = np.array([d for _, d in sorted(G.degree())], dtype=float)
    classes = degree_bins(deg + np.random.default_rng(0).laplace(0, 2, deg.size))
    worst = max(np.abs(block_edge_counts(A, classes) - block_edge_counts(B, classes)).sum()
                for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(1.0)
    led = PrivacyLedger(epsilon=0.3, delta=0)
    M = release_degree_mixing(as_graph_data(G), classes, epsilon=0.3, ledger=led, rng=1)
    assert led.spent == pytest.approx((0.3, 0.0)) and len(led.entries) == 1
    assert (M >= 0).all() and np.array_equal(M, M.T)


def test_degree_bins_start_above_the_noise():
    from dpgraph.synthetic.degree_classes import degree_bins

    d = np.array([1, 2, 3, 7, 8, 15, 16, 31, 64, 1000], dtype=float)
    assert degree_bins(d).tolist() == [0, 1, 1, 2, 3, 3, 4, 4, 5, 6]
    # noise sd 4: everything below 8 is one class, then doubling
    assert degree_bins(d, noise=4.0).tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 3, 4]


@pytest.mark.parametrize("graph", ["assortative", "disassortative"])
def test_mixing_assortativity_is_newmans_coefficient_with_exact_classes(graph):
    """With one class per distinct degree and the exact degrees, the assortativity of the
    class-pair counts is Newman's degree assortativity (NetworkX's, an independent code)."""
    from dpgraph.synthetic.degree_classes import mixing_assortativity

    if graph == "assortative":
        G = nx.disjoint_union(nx.complete_graph(8), nx.cycle_graph(30))
        G.add_edge(0, 10)
    else:
        G = nx.star_graph(12)
        G = nx.disjoint_union(G, nx.star_graph(5))
        G.add_edge(0, 13)
    deg = np.array([d for _, d in sorted(G.degree())], dtype=float)
    classes = np.unique(deg, return_inverse=True)[1]
    A = nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr", dtype=float)
    M = block_edge_counts(A, classes)
    M = M + np.triu(M, 1).T
    got = mixing_assortativity(M, deg, classes)
    assert got == pytest.approx(nx.degree_assortativity_coefficient(G), abs=1e-9)
    assert (got > 0.3) if graph == "assortative" else (got < -0.3)


def test_split_by_degree_bins_fits_both_released_margins():
    """Iterative proportional fitting: the split counts sum back to the community-pair counts
    (over classes) and to the class-pair counts (over communities), up to the unbiased
    rounding; every split block stays in its community."""
    from dpgraph.synthetic.degree_classes import split_by_degree_bins

    G = nx.planted_partition_graph(3, 120, 0.15, 0.01, seed=4)
    rng = np.random.default_rng(5)
    for u in range(0, 360, 3):  # a few hubs, so the degree classes differ
        for v in rng.choice(360, size=25, replace=False):
            if u != v:
                G.add_edge(u, int(v))
    A = nx.to_scipy_sparse_array(G, nodelist=range(360), format="csr", dtype=float)
    z = np.repeat(np.arange(3), 120)
    deg = np.asarray(A.sum(axis=1)).ravel()
    split = degree_split(A, z)
    C = block_edge_counts(A, z)
    bm = consistent_block_model(z, C, deg, inside=split[:, 0], across=split[:, 1], shrink=1.0)
    classes = np.minimum(np.floor(np.log2(deg)).astype(int) - 2, 3)
    classes = np.unique(classes, return_inverse=True)[1]
    M = block_edge_counts(A, classes)
    M = M + np.triu(M, 1).T
    out = split_by_degree_bins(bm, classes, M, rng=0)
    k2 = out.block_counts.shape[0]
    assert out.groups.shape == (k2,)
    # each new block holds nodes of one community and one class
    for q in range(k2):
        members = out.blocks == q
        assert set(z[members]) == {out.groups[q]} and len(set(classes[members])) == 1
    full = out.block_counts.astype(float)
    # margins over classes: the community-pair counts
    Zc = np.zeros((k2, 3))
    Zc[np.arange(k2), out.groups] = 1
    comm = Zc.T @ np.triu(full) @ Zc
    comm = np.triu(comm + np.tril(comm, -1).T)
    assert np.allclose(comm, np.triu(bm.block_counts), atol=0.02 * bm.block_counts.max() + 3)
    # margins over communities: the class-pair counts
    cls_of = np.array([classes[out.blocks == q][0] for q in range(k2)])
    Zb = np.zeros((k2, M.shape[0]))
    Zb[np.arange(k2), cls_of] = 1
    mix = Zb.T @ np.triu(full) @ Zb
    mix = np.triu(mix + np.tril(mix, -1).T)
    assert np.allclose(mix, np.triu(M), atol=0.03 * M.max() + 3)
    assert abs(out.edge_count - bm.edge_count) <= 0.01 * bm.edge_count + 5


def test_hubs_keep_a_degree_class_of_their_own():
    """With one community or two, the four hubs keep a class of their own (no floor merges
    them with lower degrees), so the class table carries their edges to low-degree nodes."""
    from dpgraph.synthetic.degree_classes import split_by_released_degree_classes

    rng = np.random.default_rng(3)
    G = nx.random_regular_graph(4, 400, seed=1)
    hubs = [0, 1, 200, 201]
    for h in hubs:
        for v in rng.choice(400, size=150, replace=False):
            if v != h:
                G.add_edge(h, int(v))
    A = nx.to_scipy_sparse_array(G, nodelist=range(400), format="csr", dtype=float)
    deg = np.asarray(A.sum(axis=1)).ravel()
    data = from_matrix(A, range(400))
    for z in (np.zeros(400, dtype=np.int64), np.repeat([0, 1], 200)):
        bm = consistent_block_model(z, block_edge_counts(A, z), deg)
        out, info = split_by_released_degree_classes(
            data, bm, epsilon=1.0, model_epsilon=1.0, count_share=0.5,
            ledger=PrivacyLedger(epsilon=1.0, delta=0), rng=0, noise_sd=1.0)
        top = np.isin(out.blocks, np.unique(out.blocks[hubs]))
        assert sorted(np.flatnonzero(top)) == hubs
        assert info["degree_classes"] >= 3


def test_sampler_groups_use_the_inside_weights_between_blocks_of_one_community():
    """Two blocks of one community: the edges between them draw with the inside weights, so
    nodes whose released inside share is 0 get none of them."""
    n = 200
    z = np.repeat([0, 1], 100)
    inside = np.tile([1.0, 0.0], 100)  # even nodes: all inside; odd: all across
    C = np.array([[0, 300], [300, 0]])
    g = sample_block_model(z, C, np.full(n, 6.0), inside=inside, rng=0, groups=np.array([0, 0]))
    deg = np.asarray(g.weights.sum(axis=1)).ravel()
    # anchors aside (one edge per node at most), the odd nodes stay out
    assert deg[1::2].max() <= 2 and deg[0::2].mean() > 4
    g2 = sample_block_model(z, C, np.full(n, 6.0), inside=inside, rng=0)  # two communities
    deg2 = np.asarray(g2.weights.sum(axis=1)).ravel()
    assert deg2[0::2].max() <= 2 and deg2[1::2].mean() > 4
    with pytest.raises(ValueError, match="groups"):
        sample_block_model(z, C, np.full(n, 6.0), rng=0, groups=np.array([0]))


def test_release_synthetic_degree_classes_charge_and_no_isolated_node():
    """The degree-class step charges bin_share * epsilon once, the total stays epsilon, the
    split blocks leave no node isolated (small class blocks: the anchors retry) and every
    sample has the released edge count; bin_share=0 skips the step."""
    import warnings

    G = nx.powerlaw_cluster_graph(1500, 3, 0.3, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=4.0, rng=3)
        off = dpgraph.release_synthetic(G, epsilon=4.0, rng=3, bin_share=0)
    entries = [e for e in rel.ledger.entries if "degree-class" in e.name]
    assert len(entries) == 1 and entries[0].epsilon == pytest.approx(0.05 * 4.0)
    assert rel.ledger.spent == pytest.approx((4.0, 0.0))
    assert rel.diagnostics["degree_classes"] >= 2
    assert rel.block_model.groups is not None
    assert rel.block_model.block_counts.shape[0] > rel.diagnostics["communities"]
    for s in range(3):
        H = rel.sample(rng=s)
        assert H.m == rel.edge_count
        assert (np.asarray(H.weights.sum(axis=1)).ravel() > 0).all()
    assert not any("degree-class" in e.name for e in off.ledger.entries)
    assert off.block_model.groups is None
    assert off.ledger.spent == pytest.approx((4.0, 0.0))


@pytest.mark.parametrize("kwargs, message", [(dict(bin_share=-0.1), "bin_share"),
                                             (dict(bin_share=1.0), "bin_share"),
                                             (dict(community_share=0.9, bin_share=0.1),
                                              "community_share \\+ bin_share")])
def test_release_synthetic_refuses_bad_bin_share(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dpgraph.release_synthetic(nx.karate_club_graph(), epsilon=1, weight=None, rng=0, **kwargs)


def test_release_synthetic_merges_degree_classes_to_bound_the_split(monkeypatch):
    """The (community, class) table holds (k B)^2 floats: above MAX_SPLIT_BLOCKS blocks the
    classes are merged pairwise before the class counts are released."""
    import warnings

    import dpgraph.synthetic.degree_classes as sy

    G = nx.powerlaw_cluster_graph(600, 4, 0.2, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = dpgraph.release_synthetic(G, epsilon=8.0, rng=2)
        monkeypatch.setattr(sy, "MAX_SPLIT_BLOCKS", 2 * full.diagnostics["communities"])
        small = dpgraph.release_synthetic(G, epsilon=8.0, rng=2)
    assert full.diagnostics["degree_classes"] > 2
    assert small.diagnostics["degree_classes"] <= 2
    assert small.block_model.block_counts.shape[0] <= 2 * small.diagnostics["communities"]
    assert small.sample(rng=0).m == small.edge_count


@pytest.mark.parametrize("enumerate_limit", [4_000_000, 0])
def test_sampler_fill_realises_nearly_complete_counts(monkeypatch, enumerate_limit):
    """A nearly complete block (400 of its 435 pairs) with very uneven weights: the rejection
    rounds stall and the final fill places the rest among the free pairs, by weighted
    enumeration or (enumeration disabled) by uniform rejection; exact count, no repeats."""
    import dpgraph.synthetic.sampler as sy

    monkeypatch.setattr(sy, "FILL_ENUMERATE", enumerate_limit)
    n = 30
    d = np.geomspace(1, 200, n)
    g = sample_block_model(np.zeros(n, dtype=int), np.array([[400]]), d, rng=7)
    A = g.weights
    assert g.m == 400 and (A.data == 1).all() and A.diagonal().sum() == 0
    # a second block pair, sparse, alongside the full one
    z = np.repeat([0, 1], [n, 200])
    dd = np.concatenate([d, np.full(200, 3.0)])
    g2 = sample_block_model(z, np.array([[400, 50], [50, 250]]), dd, rng=8)
    assert np.array_equal(block_edge_counts(g2.weights, z), [[400.0, 50.0], [0.0, 250.0]])


@pytest.mark.parametrize("same", [True, False])
def test_fill_by_weight_in_chunks_draws_the_pairs_of_one_enumeration(monkeypatch, same):
    """The final fill's weighted draw enumerates the pairs a chunk at a time and keeps the best
    keys: the same pairs as Efraimidis and Spirakis's keys over one enumeration of all of them
    (written out here), whatever the chunk; used pairs are never drawn."""
    import dpgraph.synthetic.sampler as sy

    rng = np.random.default_rng(3)
    n = 60
    w = rng.uniform(0.1, 5.0, size=n)
    ma = np.arange(0, 30) if not same else np.arange(0, 40)
    mb = np.arange(30, 60) if not same else ma
    used = np.sort(rng.choice(np.arange(n * n), size=200, replace=False))

    def brute(seed, need):
        gen = np.random.default_rng(seed)
        u, v = np.meshgrid(ma, mb, indexing="ij")
        u, v = u.ravel(), v.ravel()
        if same:
            u, v = u[u < v], v[u < v]
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        cand = lo * n + hi
        free = ~np.isin(cand, used)
        cand, lo, hi = cand[free], lo[free], hi[free]
        key = np.log(gen.random(cand.size)) / (w[lo] * w[hi])
        return np.sort(cand[np.argsort(-key)[:need]])

    for chunk in (7, 100, 1 << 19):
        monkeypatch.setattr(sy, "FILL_CHUNK", chunk)
        for seed, need in ((0, 25), (1, 300), (2, 5000)):
            got = np.sort(sy._fill_by_weight(np.random.default_rng(seed), used, ma, mb, need, n,
                                             w, same))
            assert np.array_equal(got, brute(seed, need))
            assert not np.isin(got, used).any() and np.unique(got).size == got.size


# ----------------------------------------------------------------------------- edge count
# (docs/privacy.md 7.10)


def test_total_edge_weight_sensitivity_is_one(graph_and_blocks):
    """docs/privacy.md 7.10: one edge changes the released total edge weight by exactly 1,
    and the release charges its epsilon once at Laplace scale 1 / epsilon."""
    from dpgraph.synthetic.block_model import release_edge_count

    G, _ = graph_and_blocks
    worst = 0.0
    for A, B in _adjacent_pairs(G):
        vals = []
        for M in (A, B):
            led = PrivacyLedger(epsilon=1e9, delta=0)
            # huge epsilon: the noise (scale 1e-9) is far below the unit change measured
            vals.append(release_edge_count(from_matrix(M), epsilon=1e9, ledger=led, rng=0))
        worst = max(worst, abs(vals[0] - vals[1]))
    assert worst == pytest.approx(1.0, abs=1e-6)
    led = PrivacyLedger(epsilon=0.3, delta=0)
    release_edge_count(as_graph_data(G), epsilon=0.3, ledger=led, rng=1)
    (entry,) = led.entries
    # the exact discrete Laplace's scale: 1 / epsilon times 1 + 1/1024 (docs/privacy.md 13.1)
    assert entry.sensitivity == 1.0 and entry.noise_scale == pytest.approx(1 / 0.3, rel=2e-3)


def test_match_edge_count_hits_the_target_within_the_caps():
    from dpgraph.synthetic.block_model import match_edge_count

    z = np.repeat(np.arange(3), [4, 5, 30])
    C = np.array([[5, 1, 3], [1, 2, 40], [3, 40, 300]])
    bm = consistent_block_model(z, C, np.ones(z.size))
    for target in (0.4, 17.2, 351.0, 500.0, 1e9):
        for seed in range(5):
            out = match_edge_count(bm, target, rng=seed)
            caps = np.array([[6, 20, 120], [20, 10, 150], [120, 150, 435]])
            assert (out.block_counts <= caps).all() and (out.block_counts >= 0).all()
            assert (out.block_counts == out.block_counts.T).all()
            assert out.edge_count == min(round(target), int(np.triu(caps).sum()))
    # unbiased: the mean of many roundings is the scaled count
    got = np.mean([match_edge_count(bm, 351 * 1.1, rng=s).block_counts[0, 1]
                   for s in range(400)])
    assert got == pytest.approx(1.1, abs=0.15)  # sd of the mean <= 0.5 / 20 = 0.025


def test_match_edge_count_spills_onto_empty_block_pairs_only_when_the_rest_are_full():
    from dpgraph.synthetic.block_model import match_edge_count

    # blocks of 4, 2 and 2 nodes: pairs 6, 8, 8 / 1, 4 / 1; counts on (0, 0) and (0, 1) only
    z = np.repeat(np.arange(3), [4, 2, 2])
    C = np.array([[3, 2, 0], [2, 0, 0], [0, 0, 0]])
    bm = consistent_block_model(z, C, np.ones(z.size))
    held = match_edge_count(bm, 12.0, rng=0)  # the counted pairs hold 6 + 8 = 14
    assert held.edge_count == 12
    assert held.block_counts[0, 2] == held.block_counts[1, 1] == 0
    spilled = []
    for seed in range(200):
        out = match_edge_count(bm, 24.0, rng=seed)  # 10 more than the counted pairs hold
        assert out.edge_count == 24
        assert out.block_counts[0, 0] == 6 and out.block_counts[0, 1] == 8
        # the 10 go to the empty pairs (8 + 1 + 4 + 1 = 14 of them) in proportion, 10 / 14
        # of each, rounded at random
        assert out.block_counts[0, 2] in (5, 6) and out.block_counts[1, 2] in (2, 3)
        assert out.block_counts[1, 1] <= 1 and out.block_counts[2, 2] <= 1
        spilled.append(out.block_counts[0, 2])
    # unbiased rounding: mean 8 * 10 / 14 = 5.714, standard error of the mean about 0.032
    assert np.mean(spilled) == pytest.approx(8 * 10 / 14, abs=0.13)
    assert match_edge_count(bm, 1e9, rng=0).edge_count == 28  # every pair


def test_release_synthetic_complete_graph_keeps_its_edge_count():
    """K30 at epsilon 8: the passes' small communities leave noisy counts between them at 0,
    and the counted block pairs cannot hold the released total (435, noise of scale about 1):
    the rest is sampled between the empty block pairs, not dropped (359-382 edges were
    sampled before)."""
    import warnings

    G = nx.complete_graph(30)
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = dpgraph.release_synthetic(G, epsilon=8.0, rng=seed)
        assert abs(rel.edge_count - 435) <= 6
        assert rel.sample(rng=seed).m == rel.edge_count


def test_release_synthetic_edge_count_is_the_released_total():
    """The sampled edge count is the rounded combined total of 7.12 (the released total, its
    own 0.02 epsilon charge on 600 nodes, with the block releases' raw totals), not the sum of
    the clipped block counts: at epsilon 200 the released total's noise has scale 0.25 and the
    combination's is smaller still."""
    import warnings

    G = nx.powerlaw_cluster_graph(600, 4, 0.3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=200.0, rng=2)
    (entry,) = [e for e in rel.ledger.entries if "total edge weight" in e.name]
    assert entry.epsilon == pytest.approx(0.02 * 200.0)
    assert rel.ledger.spent == pytest.approx((200.0, 0.0))
    assert rel.edge_count == round(rel.block_model.edge_total[0])  # diagnostics: 2 decimals
    # P(|Laplace(0.25)| > 3) = exp(-12): the count is the true one up to 3 edges
    assert abs(rel.edge_count - G.number_of_edges()) <= 3
    assert rel.sample(rng=0).m == rel.edge_count
    assert rel.block_model.degrees.sum() <= 2 * rel.edge_count + 1e-6


def test_degrees_summing_to_shifts_down_to_the_total():
    from dpgraph.synthetic.block_model import degrees_summing_to

    gen = np.random.default_rng(0)
    d = np.maximum(gen.laplace(5, 20, 500), 1.0)
    for total in (500.0, 0.8 * d.sum(), 0.5 * d.sum(), d.sum(), 2 * d.sum()):
        out = degrees_summing_to(d, total)
        assert out.min() >= 1.0
        assert out.sum() == pytest.approx(max(min(total, d.sum()), d.size))
        assert (np.diff(out[np.argsort(d)]) >= -1e-12).all()  # order kept
        shift = d - out
        assert np.allclose(shift[out > 1], shift[out > 1].max())  # one shift above the floor


# -- the edge count on small graphs (docs/privacy.md 7.10, 7.12) --------------------------------


def test_combined_estimate_is_the_inverse_variance_combination():
    from dpgraph.synthetic.block_model import combined_estimate, laplace_sum_variance

    assert combined_estimate((100.0, 4.0), (90.0, 1.0)) == pytest.approx((92.0, 0.8))
    assert combined_estimate((100.0, 4.0), None) == (100.0, 4.0)
    assert combined_estimate((5.0, 0.0), (90.0, 1.0)) == (5.0, 0.0)  # an exact value wins
    assert laplace_sum_variance(34, 2.5) == pytest.approx(2 * 34 * 6.25)
    with pytest.raises(ValueError, match="at least one"):
        combined_estimate(None)


@pytest.mark.parametrize("k", [1, 3])
def test_split_block_model_edge_total_is_unbiased_with_the_stated_variance(k):
    """``edge_total`` of the split release (7.7) is an unbiased total whose stated variance is
    the noise's: 400 releases on a fixed partition. The mean's standard error is
    sqrt(var / 400); 4 of them bound it. The sample variance of 400 near-normal draws has
    relative standard deviation sqrt(2 / 399) = 7%: [0.75, 1.33] is beyond 3.5 of them."""
    G = nx.Graph(nx.les_miserables_graph().edges())
    data = as_graph_data(G)
    m = G.number_of_edges()
    z = np.arange(data.n) % k
    est, var = [], []
    for seed in range(400):
        led = PrivacyLedger(epsilon=1.0, delta=0)
        bm = dpgraph.synthetic.block_model.release_split_block_model(data, z, epsilon=1.0,
                                                                     ledger=led, rng=seed)
        est.append(bm.edge_total[0])
        var.append(bm.edge_total[1])
    assert np.ptp(var) == pytest.approx(0.0, abs=1e-9)  # public: the same on every draw
    assert abs(np.mean(est) - m) <= 4 * np.sqrt(var[0] / 400)
    assert 0.75 <= np.var(est) / var[0] <= 1.33


def test_privatize_block_model_edge_total_is_unbiased_with_the_stated_variance():
    """The same for :func:`release_block_model` (7.1, 7.2): block counts and half the
    degrees combined per inside / across part (400 releases, the tolerances of the test
    above)."""
    G = nx.Graph(nx.les_miserables_graph().edges())
    data = as_graph_data(G)
    m = G.number_of_edges()
    z = np.arange(data.n) % 4
    est, var = [], []
    for seed in range(400):
        led = PrivacyLedger(epsilon=0.3, delta=0)
        bm = release_block_model(data, z, epsilon=0.3, ledger=led, rng=seed)
        est.append(bm.edge_total[0])
        var.append(bm.edge_total[1])
    assert abs(np.mean(est) - m) <= 4 * np.sqrt(var[0] / 400)
    assert 0.75 <= np.var(est) / var[0] <= 1.33
    # one block: nothing lies across it, so the across part is exactly 0 (variance 0 wins) and
    # the variance is the inside part's: one count (2 b_c^2) against half the n inside
    # degrees (n b_d^2 / 2), combined
    led = PrivacyLedger(epsilon=0.3, delta=0)
    one = release_block_model(data, np.zeros(data.n, dtype=np.int64), epsilon=0.3, ledger=led,
                              rng=0)
    b_c, b_d = 1 / (0.2 * 0.3), led.entries[1].noise_scale
    assert one.edge_total[1] == pytest.approx(1 / (1 / (2 * b_c**2) + 2 / (data.n * b_d**2)))


def test_edge_count_share_is_a_public_function_of_n():
    from dpgraph.privacy.budget import (EDGE_COUNT_MAX_SHARE, EDGE_COUNT_SHARE,
                                        edge_count_share)

    assert edge_count_share(34) == pytest.approx(5 / 34)
    assert edge_count_share(10) == EDGE_COUNT_MAX_SHARE == 0.15
    assert edge_count_share(250) == edge_count_share(2277) == EDGE_COUNT_SHARE == 0.02
    shares = [edge_count_share(n) for n in range(3, 1000)]
    assert all(a >= b for a, b in zip(shares, shares[1:]))  # never more on a larger graph


def test_edge_count_top_up_is_a_function_of_the_released_count():
    """The second count's share (docs/privacy.md 7.10): the least that puts the combination's
    standard deviation sqrt(2) / (eps sqrt(e^2 + u^2)) at 0.5% of the released count, at least
    e / 2; none where the first count is already there or no share up to the cap reaches it."""
    from dpgraph.privacy.budget import (EDGE_COUNT_TARGET_SD, EDGE_COUNT_TOP_UP_MAX,
                                        edge_count_top_up)

    for m, eps in ((16714, 0.5), (16064, 0.5), (88234, 0.1), (2400, 4.0)):
        u = edge_count_top_up(m, eps, 0.02)
        assert 0.01 <= u <= EDGE_COUNT_TOP_UP_MAX
        sd = np.sqrt(2.0) / (eps * np.hypot(0.02, u))
        assert sd == pytest.approx(EDGE_COUNT_TARGET_SD * m) or u == 0.01
    assert edge_count_top_up(16714, 1.0, 0.02) == 0.0  # the first count is within 0.5%
    assert edge_count_top_up(31421, 0.1, 0.02) == 0.0  # 0.04 more would not reach it
    assert edge_count_top_up(16714, 0.5, 0.02, room=0.08) == 0.0  # a quarter of the room
    assert edge_count_top_up(-50, 0.5, 0.02) == edge_count_top_up(0, 0.5, 0.02) == 0.0
    ms = np.linspace(2000, 60000, 200)  # more only where the released count is smaller
    us = [edge_count_top_up(m, 0.5, 0.02) for m in ms]
    positive = [u for u in us if u > 0]
    assert positive and all(a >= b for a, b in zip(positive, positive[1:]))


def test_edge_count_top_up_is_charged_and_combined():
    """release_synthetic's second count (7.10): charged at its share with sensitivity 1, the
    model's share reduced by it (the total is epsilon), and the released estimate the
    inverse-variance combination of the two counts (sd 0.5% of the count, 12 edges here, where
    the first count alone has 17.7); none at an epsilon where the first count suffices."""
    import warnings

    G = nx.powerlaw_cluster_graph(600, 4, 0.3, seed=1)
    m = G.number_of_edges()
    errors = []
    for seed in range(12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = dpgraph.release_synthetic(G, epsilon=4.0, rng=seed)
        first, second = [e for e in rel.ledger.entries if "total edge weight" in e.name]
        assert first.epsilon == pytest.approx(0.02 * 4.0)
        assert second.name.endswith("(second count)") and second.sensitivity == 1.0
        u = second.epsilon / 4.0
        assert 0.01 <= u <= 0.04
        assert rel.diagnostics["edge_count_share"] == pytest.approx(0.02 + u, abs=1e-4)
        assert rel.ledger.spent == pytest.approx((4.0, 0.0))
        errors.append(rel.block_model.edge_total[0] - m)
    # 12 draws of sd <= 12.1 edges: their root mean square is below 20 (chi-square, p ~ 0.001)
    assert np.sqrt(np.mean(np.square(errors))) < 20
    # the step itself: the two noisy counts, combined with weights e^2 and u^2
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.privacy.transcript import transcript
    from dpgraph.synthetic.block_model import release_edge_total

    with transcript() as record, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (est, var), u = release_edge_total(as_graph_data(G, weight=None), epsilon=4.0,
                                           share=0.02, room=0.15,
                                           ledger=PrivacyLedger(epsilon=4.0, delta=0), rng=5)
    w1, w2 = [float(v) for name, v in record if name == "laplace"]
    assert est == pytest.approx((0.02 ** 2 * w1 + u ** 2 * w2) / (0.02 ** 2 + u ** 2))
    assert var == pytest.approx(2.0 / (16.0 * (0.02 ** 2 + u ** 2)))
    assert np.sqrt(var) == pytest.approx(0.005 * w1)  # the target, where u is above e / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=20.0, rng=0)
    assert len([e for e in rel.ledger.entries if "total edge weight" in e.name]) == 1


def test_release_synthetic_karate_edge_count_goals():
    """Karate at epsilon 1, 20 fixed seeds: median edge error <= 10%, none off by half.

    The count gets 5 / 34 of epsilon (Laplace scale 6.8, variance 92.6), the one-block degrees
    most of the rest, at least 0.75 of it (half their sum: variance at most
    34 * 2 * (2 / 0.75)^2 / 4 = 121), the class counts 0.05 (variance >= 800): the
    combination's standard deviation is
    about 6.8 edges (8.7%), its median absolute error 5.9%. The median of 20 exceeds 10%
    (7.8 edges, 1.15 sd) only if 10 of 20 draws do, each with probability 0.25: 1.4%. Half
    the edges is 39 edges, 5.7 sd; the plan takes communities (where the model's share is
    small and the count decides) when the count exceeds 112, probability
    exp(-34 / 6.8) / 2 = 0.3% per run. The ledger still totals epsilon."""
    import warnings

    G = nx.Graph(nx.karate_club_graph().edges())
    m = G.number_of_edges()
    errs = []
    for seed in range(20):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = dpgraph.release_synthetic(G, epsilon=1.0, rng=100 + seed)
        assert rel.ledger.spent == pytest.approx((1.0, 0.0))
        (count,) = [e for e in rel.ledger.entries if "total edge weight" in e.name]
        assert count.epsilon == pytest.approx(5 / 34)
        errs.append(abs(rel.edge_count - m) / m)
    assert np.median(errs) <= 0.10
    assert max(errs) <= 0.5


def test_sample_warns_when_the_released_count_is_below_half_the_nodes():
    """A graph of 200 nodes and 6 edges: the released count is far below n / 2 = 100, and the
    sample says so, naming the count; karate's count (about 78 > 17) gives no warning."""
    import warnings

    G = nx.empty_graph(200)
    G.add_edges_from([(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=1.0, rng=0)
    assert rel.edge_count < 100
    with pytest.warns(UserWarning, match=f"released edge count is {rel.edge_count} for 200 "
                                         f"nodes, below n / 2 = 100"):
        S = rel.sample(rng=0)
    assert S.m == rel.edge_count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ok = dpgraph.release_synthetic(nx.Graph(nx.karate_club_graph().edges()), epsilon=2.0,
                                       rng=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok.sample(rng=0)
    assert not [w for w in caught if "released edge count" in str(w.message)]
    empty = consistent_block_model(np.zeros(10, dtype=np.int64), np.zeros((1, 1)), np.ones(10))
    with pytest.warns(UserWarning, match="released edge count is 0 for 10 nodes.*empty"):
        dpgraph.synthetic.block_model.warn_if_sparse_sample(empty.edge_count, empty.n)


@pytest.mark.parametrize("bad", [dict(batches=0), dict(batches=2.5), dict(init_labels=1),
                                 dict(init_labels=-2), dict(rounds=0), dict(rounds=2.7),
                                 dict(rounds="x"), dict(degree_prior="no")])
def test_refine_options_are_refused_before_the_edge_count_is_drawn(monkeypatch, bad):
    # they were checked only when the refinement ran, after step 0's edge count was drawn;
    # rounds=0 divided by zero
    import dpgraph.synthetic.release as release

    def spent(*a, **k):
        raise AssertionError("the edge count was drawn before the options were checked")

    monkeypatch.setattr(release, "release_edge_total", spent)
    with pytest.raises(ValueError, match=f"{next(iter(bad))} must be"):
        dpgraph.release_synthetic(nx.karate_club_graph(), epsilon=1.0, weight=None, rng=0,
                                  community_method="refine", communities="private", **bad)


def test_a_clustering_share_too_large_is_named():
    # the message gave a negative bound for community_share + bin_share and no clustering_share
    with pytest.raises(ValueError, match="clustering_share and the edge count's share"):
        dpgraph.release_synthetic(nx.karate_club_graph(), epsilon=1.0, weight=None,
                                  clustering_share=0.9)
