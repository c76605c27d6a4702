"""Empirical-Bayes objectives of the randomized-response release (dpgraph.release.posterior)."""

import numpy as np
import pytest

import dpgraph
from dpgraph.release import posterior as rr_posterior


def test_posterior_matches_simulated_bayes():
    """E[A | Y] from the formula equals the frequency of A = 1 among simulated (A, Y) pairs."""
    rng = np.random.default_rng(0)
    p, draws = 0.27, 400_000
    for pi in (0.02, 0.3, 0.8):
        A = rng.random(draws) < pi
        Y = A ^ (rng.random(draws) < p)
        def flat(s, e, pi=pi):
            return np.full((e - s, 2), pi)

        U = np.array([[0.0, (1 - p) / (1 - 2 * p)], [(1 - p) / (1 - 2 * p), 0.0]])
        seen = rr_posterior.posterior_weights(U, p, flat)[0, 1]
        U[0, 1] = U[1, 0] = -p / (1 - 2 * p)
        unseen = rr_posterior.posterior_weights(U, p, flat)[0, 1]
        for value, mask in ((seen, Y), (unseen, ~Y)):
            freq = A[mask].mean()
            se = np.sqrt(freq * (1 - freq) / mask.sum())
            assert abs(value - freq) <= 5 * se + 1e-12


def test_blocks_agree_with_direct_computation():
    """Row-block evaluation (n above the block size) equals the one-shot formula."""
    rng = np.random.default_rng(1)
    n, p = rr_posterior._BLOCK + 37, 0.2
    Y = np.triu(rng.random((n, n)) < 0.3, 1)
    Y = (Y | Y.T).astype(float)
    U = (Y - p) / (1 - 2 * p)
    np.fill_diagonal(U, 0.0)
    P = rr_posterior.posterior_weights(U, p, rr_posterior.degree_prior(U))
    d = np.maximum(U.sum(1), 1.0)
    pi = np.clip(np.outer(d, d) / d.sum(), rr_posterior.PI_MIN, 1 - rr_posterior.PI_MIN)
    direct = np.where(Y > 0, pi * (1 - p) / (pi * (1 - p) + (1 - pi) * p),
                      pi * p / (pi * p + (1 - pi) * (1 - p)))
    np.fill_diagonal(direct, 0.0)
    assert np.allclose(P, direct, rtol=1e-12, atol=1e-15) and np.array_equal(P, P.T)


def test_private_graph_objectives():
    inst = dpgraph.datasets.planted_cut(120, 10, rng=2)
    pg = dpgraph.privatize(inst.graph, epsilon=1.0, delta=1e-6, rank=3, rng=0,
                           synthetic_share=None)  # the whole budget on the pair release
    assert pg.projected is None and pg.unbiased is not None
    assert pg.objective_names() == ("unbiased", "posterior-lowrank-2", "posterior-lowrank-3",
                                    "posterior-degree")
    W = pg.weights()  # the default export: posterior means under the Chung-Lu prior
    assert W.min() >= 0 and W.max() <= 1 and np.array_equal(W, pg.objective("posterior-degree"))
    # its total weight tracks the edge count (the flipped graph's is ~ p n^2 / 2)
    assert abs(W.sum() / 2 - inst.graph.m) < 0.25 * inst.graph.m
    box = dpgraph.privatize(inst.graph, epsilon=1.0, delta=1e-6, rank=3, rng=0,
                            rr_postprocess="box", synthetic_share=None)
    assert np.array_equal(box.weights(), np.clip(pg.unbiased, 0, 1))
    assert box.weights().sum() / 2 > 3 * inst.graph.m
    with pytest.raises(ValueError, match="rr_postprocess"):
        dpgraph.privatize(inst.graph, epsilon=1.0, delta=1e-6, rr_postprocess="posterior-lowrank-0")
    for name in pg.objective_names():
        M = pg.objective(name)
        assert M.shape == (120, 120) and np.array_equal(M, M.T) and not np.diag(M).any()
    P = pg.objective("posterior-lowrank-2")
    assert P.min() >= 0 and P.max() <= 1  # posterior means of indicators
    with pytest.raises(ValueError, match="unknown objective"):
        pg.objective("posterior-flat")
    dense = dpgraph.privatize(inst.graph, epsilon=1.0, delta=1e-6, rank=2, rng=0, route="pca")
    assert dense.objective_names() == ("synthetic",)
    with pytest.raises(ValueError, match="randomized-response route"):
        dense.objective("unbiased")
