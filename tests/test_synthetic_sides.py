"""The sampler's tilt towards released sides (post-processing): counts kept, edges across at
the stated rate, bad tilts refused."""

import numpy as np
import pytest

from dpgraph.synthetic.sampler import sample_block_model


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
