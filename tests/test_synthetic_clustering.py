"""The clustering release of release_synthetic (docs/privacy.md 7.11) and the sampler's
clustering phase: the projection's sensitivity on adjacent inputs (exhaustive on small graphs,
and the worst case attained), the charge, and what the phase does to a sample."""

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.synthetic.clustering import (affinity_density, bounded_projection,
                                          clustering_informative, clustering_sensitivity,
                                          projection_cap,
                                          projection_counts, release_transitivity)
from dpgraph.synthetic.sampler import affinity_edges, sample_block_model


def _adj(n, edges):
    A = np.zeros((n, n))
    for u, v in edges:
        A[u, v] = A[v, u] = 1.0
    return sp.csr_array(A)


def _counts(A, theta, order):
    return projection_counts(bounded_projection(A, theta, order))


def _true_transitivity(A):
    G = nx.from_scipy_sparse_array(A)
    return nx.transitivity(G)


@pytest.mark.parametrize("n, p, theta", [(30, 0.4, 4), (60, 0.2, 12), (60, 0.2, 30)])
def test_projection_keeps_mutual_top_theta_and_caps_degree(n, p, theta):
    """Against the definition, node by node: rows above the cap (all of them with theta 4,
    some with 12, none with 30) keep their theta first neighbours in the order."""
    rng = np.random.default_rng(0)
    G = nx.gnp_random_graph(n, p, seed=1)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    order = rng.permutation(n)
    P = bounded_projection(A, theta, order)
    assert np.diff(P.indptr).max() <= theta
    top = {u: set(sorted(G[u], key=lambda v: order[v])[:theta]) for u in G}
    expected = {(u, v) for u, v in G.edges() if v in top[u] and u in top[v]}
    got = {(int(u), int(v)) for u, v in zip(*sp.triu(P, 1).nonzero())}
    assert got == {(min(e), max(e)) for e in expected}
    assert (A != _adj(n, G.edges())).nnz == 0  # the input is not modified


def test_projection_ignores_self_loops_and_stored_zeros():
    """A loop or an explicitly stored zero is not an edge: the projection of a graph with them
    equals the projection without them, and the input keeps its entries."""
    G = nx.gnp_random_graph(40, 0.3, seed=3)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    order = np.random.default_rng(1).permutation(40)
    B = A.tolil()
    B[5, 5] = 1.0
    B = B.tocsr()
    u, v = sp.triu(A, 1).nonzero()
    B[u[0], v[0]] = B[v[0], u[0]] = 0.0  # stored zeros, not removed
    assert B.nnz == A.nnz + 1
    C = A.tolil()
    C[u[0], v[0]] = C[v[0], u[0]] = 0.0
    ref = bounded_projection(sp.csr_array(C.tocsr()), 6, order)
    assert (bounded_projection(sp.csr_array(B), 6, order) != ref).nnz == 0
    assert B.nnz == A.nnz + 1


def test_projection_counts_match_networkx_on_the_whole_graph():
    G = nx.gnp_random_graph(40, 0.3, seed=2)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    t, w = projection_counts(A)
    assert t == 3 * sum(nx.triangles(G).values()) / 3 * 1  # corners: sum of triangles at nodes
    assert w == sum(d * (d - 1) / 2 for _, d in G.degree())
    assert t / w == pytest.approx(_true_transitivity(A))


@pytest.mark.parametrize("seed", range(6))
def test_clustering_counts_sensitivity_on_every_adjacent_pair(seed):
    """Every pair of a small dense graph added or removed, random orders and small caps: the L1
    change of (T, W) on the projection never exceeds 8 (theta - 1)."""
    rng = np.random.default_rng(seed)
    n = 9
    G = nx.gnp_random_graph(n, 0.55, seed=int(seed))
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float, nodelist=range(n))
    worst = 0.0
    for theta in (2, 3, 4):
        for _ in range(4):
            order = rng.permutation(n)
            base = _counts(A, theta, order)
            for u, v in itertools.combinations(range(n), 2):
                B = A.tolil()
                B[u, v] = B[v, u] = 0.0 if A[u, v] else 1.0
                change = np.abs(_counts(B.tocsr(), theta, order) - base).sum()
                worst = max(worst, change / clustering_sensitivity(theta))
    assert worst <= 1.0
    assert worst > 0.3  # the bound is not vacuous on these graphs


def test_clustering_sensitivity_is_attained():
    """The worst case of docs/privacy.md 7.11: both endpoints evict a neighbour that closes
    theta - 1 triangles with them, and the new pair closes none: 8 (theta - 1) exactly."""
    theta = 3
    a, y1, s1, s2, b, y2, s3, s4 = range(8)
    edges = [(a, y1), (a, s1), (a, s2), (y1, s1), (y1, s2),
             (b, y2), (b, s3), (b, s4), (y2, s3), (y2, s4)]
    order = np.empty(8, dtype=int)
    # b and a first, y1 and y2 last: the new pair displaces them
    for rank, node in enumerate([b, a, s1, s2, s3, s4, y1, y2]):
        order[node] = rank
    c0 = _counts(_adj(8, edges), theta, order)
    c1 = _counts(_adj(8, edges + [(a, b)]), theta, order)
    assert np.abs(c1 - c0).sum() == clustering_sensitivity(theta) == 16.0


def test_release_transitivity_charges_its_epsilon_and_records_the_sensitivity():
    data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    led = PrivacyLedger(epsilon=1.0, delta=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = release_transitivity(data, theta=9, epsilon=0.5, ledger=led, rng=0)
    assert led.spent[0] == pytest.approx(0.5)
    (entry,) = led.entries
    assert entry.sensitivity == clustering_sensitivity(9) == 64.0
    assert 0.0 <= out["transitivity"] <= 1.0
    with pytest.raises(ValueError, match="theta"):
        release_transitivity(data, theta=1, epsilon=0.5, ledger=led, rng=0)


def test_released_transitivity_is_close_at_large_epsilon():
    """A clustered graph (relaxed caveman): the noise at epsilon 50 is a few corners, and the
    projection with a cap above every degree is the graph itself."""
    G = nx.relaxed_caveman_graph(20, 6, 0.1, seed=3)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    data = as_graph_data(G)
    led = PrivacyLedger(epsilon=50.0, delta=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = release_transitivity(data, theta=16, epsilon=50.0, ledger=led, rng=0)
    assert out["transitivity"] == pytest.approx(nx.transitivity(G), abs=0.03)


def test_projection_cap_is_twice_the_released_mean_degree_within_bounds():
    assert projection_cap(31_421, 2_277) == 55
    assert projection_cap(0, 10) == 8
    assert projection_cap(10**9, 10) == 64


def test_affinity_edges_groups_and_density():
    # 300 nodes of degree 9 in one community: 30 groups of 10, each pair kept with prob. 0.5
    keys = affinity_edges(np.zeros(300, dtype=int), np.full(300, 9.0), np.full(300, 0.5),
                          rng=1)
    n = 300
    u, v = keys // n, keys % n
    assert keys.size == np.unique(keys).size
    pairs = 30 * 45
    # binomial(1350, 0.5): within 4 standard deviations
    assert abs(keys.size - 0.5 * pairs) < 4 * np.sqrt(pairs * 0.25)
    # density 1: the groups are 30 disjoint cliques of 10 nodes
    keys = affinity_edges(np.zeros(300, dtype=int), np.full(300, 9.0), np.ones(300), rng=2)
    G = nx.Graph()
    G.add_edges_from(zip((keys // n).tolist(), (keys % n).tolist()))
    sizes = sorted(len(c) for c in nx.connected_components(G))
    assert sizes == [10] * 30 and keys.size == 30 * 45
    # ties are broken at random, not by node index: the groups are not runs of indices
    assert not all(max(c) - min(c) == 9 for c in nx.connected_components(G))
    # two communities never share an affinity group
    comm = np.arange(300) % 2
    keys = affinity_edges(comm, np.full(300, 9.0), np.ones(300), rng=1)
    assert np.all(comm[keys // n] == comm[keys % n])


def test_sample_with_affinity_keeps_the_counts_and_adds_triangles():
    rng = np.random.default_rng(0)
    n = 600
    blocks = np.zeros(n, dtype=int)
    counts = np.array([[3000]])
    degrees = rng.uniform(5, 15, size=n)
    plain = sample_block_model(blocks, counts, degrees, rng=1)
    clustered = sample_block_model(blocks, counts, degrees, rng=1, affinity=np.array([0.8]))
    assert plain.m == clustered.m == 3000
    t0 = nx.transitivity(nx.from_scipy_sparse_array(plain.weights))
    t1 = nx.transitivity(nx.from_scipy_sparse_array(clustered.weights))
    assert t1 > t0 + 0.1
    with pytest.raises(ValueError, match="affinity"):
        sample_block_model(blocks, counts, degrees, rng=1, affinity=np.array([0.5, 0.5]))


def test_affinity_groups_keep_their_density_where_the_block_count_is_small():
    # block 0: 400 nodes of released degree 20, most of it spent on block 1 (counts: 540
    # inside block 0, 6,920 to block 1). Groups of the block's mean degree plus one (21) would
    # hold 19 * 210 * 0.9 = 3,600 candidate pairs for 540 edges, thinned to density 0.135
    # (about 60 triangles); groups no larger than the count fills at density 0.9 (s - 1 =
    # 2 * 540 / (400 * 0.9) = 3) are 100 groups of 4 at density 0.9 (about 4 * 0.9^3 = 2.9
    # triangles each, 290 in all).
    rng = np.random.default_rng(0)
    n0, n1 = 400, 400
    blocks = np.repeat([0, 1], [n0, n1])
    counts = np.array([[540, 6920], [6920, 4000]])
    degrees = np.concatenate([np.full(n0, 20.0), rng.uniform(30, 44, n1)])
    g = sample_block_model(blocks, counts, degrees, rng=3, groups=np.array([0, 0]),
                           affinity=np.array([0.9, 0.0]))
    assert g.m == 540 + 6920 + 4000
    W = g.weights.tocsr()
    inner = nx.from_scipy_sparse_array(W[:n0][:, :n0])
    inner.remove_nodes_from([v for v in list(inner) if inner.degree(v) == 0])
    assert inner.number_of_edges() == 540
    # (the anchors, one per node, take some of the 540 first; the groups the rest)
    assert sum(nx.triangles(inner).values()) // 3 >= 200



def test_affinity_groups_have_three_nodes_where_the_count_fills_pairs():
    """Block 0: 300 nodes whose 150 inside edges fill groups of 2 at density 1 (s - 1 =
    2 * 150 / 300 = 1): pairs would make block 0's inside edges a matching, with no triangle.
    Groups of three (the block's mean degree, (2 * 150 + 300) / 300 = 2, allows them) give
    300 candidate pairs for 150 edges: each group keeps all three about 1 / 8 of the time,
    about 12 triangles (8-15 over 10 seeds; none with groups of two)."""
    blocks = np.repeat([0, 1], [300, 300])
    counts = np.array([[150, 300], [300, 1500]])
    degrees = np.concatenate([np.full(300, 2.0), np.full(300, 12.0)])
    for seed in range(3):
        g = sample_block_model(blocks, counts, degrees, rng=seed, groups=np.array([0, 0]),
                               affinity=np.array([1.0, 0.0]))
        inner = nx.from_scipy_sparse_array(g.weights.tocsr()[:300][:, :300])
        assert inner.number_of_edges() == 150
        assert sum(nx.triangles(inner).values()) // 3 >= 4


def _four_blocks(counts: dict, low: float, high: float):
    """Blocks 0-3 of 300 nodes each (communities 0, 0, 1, 1), block pair counts ``counts``
    (``{(a, b): count}``, ``a <= b``, made symmetric), released degree ``low`` in blocks 0
    and 2, ``high`` in 1 and 3."""
    blocks = np.repeat([0, 1, 2, 3], 300)
    C = np.zeros((4, 4), dtype=int)
    for (a, b), c in counts.items():
        C[a, b] = c
    return blocks, np.triu(C) + np.triu(C, 1).T, np.where(blocks % 2 == 0, low, high)


def _two_communities_with_low_degree_blocks():
    """Blocks 0 / 2: 300 nodes of degree 3 in communities 0 / 1, whose edges mostly join each
    other (400 across, 30 inside each: 22% of block 0's 510 edge ends stay in its community);
    blocks 1 / 3: 300 nodes of degree 11 whose edges stay in their community (97%)."""
    return _four_blocks({(0, 0): 30, (2, 2): 30, (0, 2): 400, (0, 1): 50, (2, 3): 50,
                         (1, 1): 1500, (3, 3): 1500, (1, 3): 100}, 3.0, 11.0)


def test_affinity_pools_take_the_blocks_whose_edges_leave_their_community():
    from dpgraph.synthetic.sampler import _affinity_pools

    _, C, _ = _two_communities_with_low_degree_blocks()
    ia, ib = np.nonzero(np.triu(C))
    pools = _affinity_pools(np.array([0, 0, 1, 1]), ia, ib, C[ia, ib])
    assert pools.tolist() == [2, 0, 2, 1]


def test_affinity_groups_of_pooled_blocks_close_triangles_across_communities(monkeypatch):
    """The low-degree blocks' groups, pooled across the two communities, draw on the 400
    edges between them and close 19-29 triangles among their nodes (seeds 0-3); kept inside
    each community, where 30 edges are left, they close 0-1."""
    import dpgraph.synthetic.sampler as sampler

    blocks, C, degrees = _two_communities_with_low_degree_blocks()
    low = np.flatnonzero(blocks % 2 == 0)

    def low_triangles(seed):
        g = sample_block_model(blocks, C, degrees, rng=seed, groups=np.array([0, 0, 1, 1]),
                               affinity=np.full(4, 0.9))
        assert g.m == np.triu(C).sum()
        H = nx.from_scipy_sparse_array(g.weights.tocsr()[low][:, low])
        return sum(nx.triangles(H).values()) // 3

    assert min(low_triangles(s) for s in range(3)) >= 10
    monkeypatch.setattr(sampler, "AFFINITY_COMMUNITY_SHARE", 0.0)
    assert max(low_triangles(s) for s in range(3)) <= 3


def _pooled_low_degree_blocks():
    """Blocks 0 / 2: 300 nodes of degree 4 in communities 0 / 1, whose released ends mostly
    leave their community (15 inside each, 150 between them, 270 to the other community's
    block of degree 15): both are pooled. Blocks 1 / 3: 300 nodes of degree 15, kept in
    their community."""
    return _four_blocks({(0, 0): 15, (2, 2): 15, (0, 2): 150, (0, 3): 270, (1, 2): 270,
                         (1, 1): 1800, (3, 3): 1800}, 4.0, 15.0)


def test_pooled_affinity_groups_keep_their_pairs_beyond_the_pool_counts():
    """The pooled blocks' counts among themselves (15 + 150 + 15 = 180 edges) fill groups of
    three at density 0.9 for 200 of their 600 nodes only; thinned to those counts, groups of
    three hold at most 180 / 3 = 60 triangles among the low-degree nodes. Kept whole, the 200
    groups close about 200 * 0.9^3 = 146 (over 100 at seeds 0-2), the total edge count stays
    and each block's edge ends move by at most two per edge of the groups' excess."""
    import dpgraph.synthetic.sampler as sampler

    blocks, C, degrees = _pooled_low_degree_blocks()
    ia, ib = np.nonzero(np.triu(C))
    assert sampler._affinity_pools(np.array([0, 0, 1, 1]), ia, ib, C[ia, ib]).tolist() == \
        [2, 0, 2, 1]
    low = np.flatnonzero(blocks % 2 == 0)
    released_ends = C.sum(axis=1) + np.diag(C)  # own pair: two ends in the block
    for seed in range(3):
        g = sample_block_model(blocks, C, degrees, rng=seed, groups=np.array([0, 0, 1, 1]),
                               affinity=np.full(4, 0.9))
        assert g.m == np.triu(C).sum()
        W = g.weights.tocsr()
        H = nx.from_scipy_sparse_array(W[low][:, low])
        assert sum(nx.triangles(H).values()) // 3 > 100
        ends = np.bincount(blocks, weights=np.diff(W.indptr), minlength=4)
        excess = H.number_of_edges() - 180
        assert np.all(np.abs(ends - released_ends) <= 2 * excess)


def test_release_synthetic_clustering_step_charge_and_diagnostics():
    G = nx.relaxed_caveman_graph(30, 8, 0.05, seed=4)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=2.0, rng=0)
        off = dpgraph.release_synthetic(G, epsilon=2.0, rng=0, clustering_share=0)
    names = [e.name for e in rel.ledger.entries]
    assert "synthetic: projection triangles and wedges" in names
    entry = rel.ledger.entries[names.index("synthetic: projection triangles and wedges")]
    assert entry.epsilon == pytest.approx(0.1)  # CLUSTERING_SHARE of epsilon
    assert rel.ledger.spent[0] == pytest.approx(2.0) == off.ledger.spent[0]
    assert "synthetic: projection triangles and wedges" not in [e.name for e in off.ledger.entries]
    d = rel.diagnostics
    assert d["affinity_density"] == pytest.approx(affinity_density(d["released_transitivity"]),
                                                  abs=1e-3)  # both rounded to 4 decimals
    assert rel.block_model.affinity == pytest.approx(d["affinity_density"], abs=1e-4)
    S = rel.sample(rng=1)
    assert S.m == rel.edge_count
    with pytest.raises(ValueError, match="clustering_share"):
        dpgraph.release_synthetic(G, epsilon=1.0, clustering_share=1.5)


def test_clustering_step_is_skipped_where_its_noise_exceeds_any_signal():
    """Karate at epsilon 1: 5% of it on at most 78 x 8 corners is noise; the step is skipped,
    the share goes to the block model, and the ledger still totals epsilon."""
    G = nx.Graph(nx.karate_club_graph().edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=1.0, rng=0)
    assert not clustering_informative(rel.diagnostics["released_edge_weight"], 0.05)
    assert "synthetic: projection triangles and wedges" not in [e.name for e in
                                                                rel.ledger.entries]
    assert rel.block_model.affinity is None
    assert rel.ledger.spent[0] == pytest.approx(1.0)


def test_released_modularity_matches_networkx_on_exact_counts():
    """With the true block-pair counts, the released modularity is the partition's modularity
    in the graph (networkx), for a partition refined into several blocks per community."""
    from dpgraph.synthetic.sampler import released_modularity

    G = nx.relaxed_caveman_graph(6, 7, 0.3, seed=2)
    comm = np.array([v // 14 for v in G])          # 3 communities of two caves each
    blocks = np.array([v // 7 for v in G])         # 6 blocks, two per community
    grp = np.arange(6) // 2
    C = np.zeros((6, 6))
    for u, v in G.edges():
        a, b = sorted((blocks[u], blocks[v]))
        C[a, b] += 1
    ia, ib = np.nonzero(np.triu(np.ones((6, 6))))
    expected = nx.community.modularity(G, [set(np.flatnonzero(comm == c)) for c in range(3)])
    assert released_modularity(grp, ia, ib, C[ia, ib]) == pytest.approx(expected, abs=1e-12)


def _mixed_degree_block_model(inside, across):
    """Two communities, one block each, of 400 nodes: 200 of released degree 2 and 200 of 20
    (block mean 11); ``inside`` edges in each block and ``across`` between them."""
    blocks = np.repeat([0, 1], 400)
    degrees = np.tile(np.repeat([2.0, 20.0], 200), 2)
    C = np.array([[inside, across], [across, inside]])
    return blocks, C, degrees


def test_affinity_groups_follow_own_degrees_where_communities_have_no_modularity(monkeypatch):
    """Counts 1,100 inside each community and 2,200 across: modularity 0. Groups sized by the
    block (7 nodes at density 0.9) give the nodes of degree 2 about five affinity edges each;
    sized by their own degree (3 nodes) at most two, so their sample degree stays near 2."""
    import dpgraph.synthetic.sampler as sampler

    blocks, C, degrees = _mixed_degree_block_model(1100, 2200)
    ia, ib = np.nonzero(np.triu(C))
    assert sampler.community_locality(np.array([0, 1]), ia, ib, C[ia, ib]) == 0.0
    low = np.flatnonzero(degrees == 2.0)

    def low_degree(seed):
        g = sample_block_model(blocks, C, degrees, rng=seed, groups=np.array([0, 1]),
                               affinity=np.full(2, 0.9))
        assert g.m == 1100 + 1100 + 2200
        return float(np.diff(g.weights.tocsr().indptr)[low].mean())

    assert max(low_degree(s) for s in range(3)) < 3.0
    monkeypatch.setattr(sampler, "community_locality", lambda *a: 1.0)  # the block's sizing
    assert min(low_degree(s) for s in range(3)) > 4.0


def test_affinity_groups_follow_own_degrees_below_the_modularity_floor(monkeypatch):
    """Counts 1,320 inside each community and 1,760 across: modularity 0.1, below
    ``LOCAL_MODULARITY_FLOOR`` (what community-free graphs release), so the locality is 0 and
    the nodes of degree 2 keep a sample degree near 2; the linear weight ``Q / 0.3`` of a
    floor at 0 sizes their groups a third of the way to the block's 11 and gives them more.
    Halfway between the floor and ``LOCAL_MODULARITY`` the locality is one half."""
    import dpgraph.synthetic.sampler as sampler

    blocks, C, degrees = _mixed_degree_block_model(1320, 1760)
    ia, ib = np.nonzero(np.triu(C))
    assert sampler.released_modularity(np.array([0, 1]), ia, ib, C[ia, ib]) == pytest.approx(0.1)
    assert sampler.community_locality(np.array([0, 1]), ia, ib, C[ia, ib]) == 0.0
    low = np.flatnonzero(degrees == 2.0)

    def low_degree(seed):
        g = sample_block_model(blocks, C, degrees, rng=seed, groups=np.array([0, 1]),
                               affinity=np.full(2, 0.9))
        return float(np.diff(g.weights.tocsr().indptr)[low].mean())

    own = [low_degree(s) for s in range(3)]
    assert max(own) < 3.0
    monkeypatch.setattr(sampler, "LOCAL_MODULARITY_FLOOR", 0.0)
    assert sampler.community_locality(np.array([0, 1]), ia, ib, C[ia, ib]) == pytest.approx(1 / 3)
    assert min(low_degree(s) for s in range(3)) > max(own) + 0.5
    monkeypatch.undo()
    half = np.array([1450.0, 1100.0, 1450.0])  # modularity 0.225
    assert sampler.community_locality(np.array([0, 1]), np.array([0, 0, 1]),
                                      np.array([0, 1, 1]), half) == pytest.approx(0.5)


def test_affinity_groups_keep_the_block_sizing_where_communities_are_modular():
    """Counts 2,000 inside each community and 200 across: modularity 0.41 >= 0.3, so the
    locality is 1 and the block's sizing is kept in full; with one community it is 1 too."""
    import dpgraph.synthetic.sampler as sampler

    blocks, C, degrees = _mixed_degree_block_model(2000, 200)
    ia, ib = np.nonzero(np.triu(C))
    assert sampler.community_locality(np.array([0, 1]), ia, ib, C[ia, ib]) == 1.0
    assert sampler.community_locality(np.array([0, 0]), ia, ib, C[ia, ib]) == 1.0
