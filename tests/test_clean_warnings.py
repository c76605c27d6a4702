"""The package's own calls raise no third-party warnings in a test run: k-means on an embedding
with fewer distinct points than clusters (SciPy's k-means++ divided 0 by 0 there, in vq.py)."""

import warnings

import numpy as np

import dpgraph
from dpgraph.synthetic.communities import kmeans


def testkmeans_on_fewer_distinct_points_than_clusters_is_exact_and_quiet():
    X = np.repeat(np.array([[0.6, 0.8], [1.0, 0.0]]), [7, 5], axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SciPy's RuntimeWarning would raise here
        centres, labels = kmeans(X, 8, np.random.default_rng(0), iters=30)
    # one cluster per distinct point: zero within-cluster distance, the only optimum
    assert np.allclose(centres[labels], X)
    assert len(set(labels[:7].tolist())) == 1 and len(set(labels[7:].tolist())) == 1
    assert labels[0] != labels[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, labels = kmeans(np.ones((5, 3)), 3, np.random.default_rng(0), iters=30)
    assert labels.tolist() == [0] * 5


def testkmeans_with_enough_points_still_runskmeans():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 0.01, (20, 2)), rng.normal(5, 0.01, (20, 2))])
    _, labels = kmeans(X, 2, np.random.default_rng(0), iters=30)
    assert len(set(labels[:20].tolist())) == 1 and len(set(labels[20:].tolist())) == 1
    assert labels[0] != labels[-1]


def test_privatize_on_a_planted_graph_is_quiet():
    """The case that met it: the block model of a halted PCA release on a planted two-block
    graph (its embedding puts the 300 nodes on one or two points)."""
    from dpgraph.datasets import planted_cut

    inst = planted_cut(300, 60, rng=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        pg = dpgraph.privatize(inst.graph, epsilon=1.0, delta=1e-6, rank=2, rng=0, route="pca")
    assert pg.halted and pg.block_model is not None


def test_matrix_free_blocks_with_more_blocks_than_distinct_rows_are_quiet():
    import networkx as nx

    pg = dpgraph.privatize(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None,
                           rng=0, route="matrix-free")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        blocks = pg.blocks(n_blocks=40, rng=0)  # 34 nodes: at most 34 distinct rows
    assert blocks.shape == (34,) and len(set(blocks.tolist())) <= 34
