"""The roundings evaluate their candidates a few columns at a time (the client's
memory at n = 10^6). The block size must change memory only: the same draws, the same values,
the same kept roundings as one product over all columns."""

import tracemalloc

import numpy as np
import pytest

from dpgraph.engine import as_weight_operator
from dpgraph.engine.rounding import column_block, correlation_round, hyperplane_round
from dpgraph.datasets import planted_cut
from dpgraph.release.factor_graph import LowRankOperator


def _ops(n, seed):
    g = np.random.default_rng(seed)
    graph = planted_cut(n, 12.0, rng=seed).graph
    U, K = g.standard_normal((n, 3)), g.standard_normal((3, 3))
    ops = {"sparse": as_weight_operator(graph),
           "lowrank": LowRankOperator(U, K, tuple(range(n)))}
    if n <= 2000:
        ops["dense"] = as_weight_operator(graph.weights.toarray())
    V = g.standard_normal((n, 8))
    return ops, V / np.linalg.norm(V, axis=1, keepdims=True)


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == np.asarray(b).dtype and np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("n", [600, 3000])
@pytest.mark.parametrize("balanced", [False, True])
def test_blocked_rounding_equals_one_block(n, balanced):
    ops, V = _ops(n, n)
    for name, op in ops.items():
        assert column_block(op, 64, max_bytes=1) == 4
        assert column_block(op, 64, max_bytes=2**40) == 64
        for keep, count in ((1, 128), (8, 100)):  # 100: a last batch of 36 columns
            whole = hyperplane_round(op, V, count, np.random.default_rng(1), balanced=balanced,
                                     keep=keep, max_bytes=2**40)
            for mb in (1, 16 * 48 * n):  # blocks of 4 and of 16 columns
                part = hyperplane_round(op, V, count, np.random.default_rng(1),
                                        balanced=balanced, keep=keep, max_bytes=mb)
                assert _same(whole, part), (name, keep, mb)
        whole = correlation_round(op, V, 4, np.random.default_rng(2), balanced=balanced,
                                  max_bytes=2**40)
        part = correlation_round(op, V, 4, np.random.default_rng(2), balanced=balanced,
                                 max_bytes=1)
        assert _same(whole, part), name


def test_blocked_rounding_keeps_the_best():
    """Independent check of what is kept: the values returned are those of the returned
    columns, and no other rounding of the same draws beats the kept ones."""
    ops, V = _ops(600, 3)
    op = ops["sparse"]
    X, v, allv = hyperplane_round(op, V, 128, np.random.default_rng(4), keep=8, max_bytes=1)
    Xf = np.asarray(op.W.toarray())
    vals = [0.25 * (Xf.sum() - x @ Xf @ x) for x in X.T]
    assert np.allclose(vals, v, rtol=1e-12)
    assert np.allclose(np.sort(allv)[::-1][:8], v, rtol=0, atol=0)


def test_rounding_memory_is_a_few_columns():
    """At 4 columns per block the roundings hold a few n x 4 arrays, not the n x 64 batch."""
    n = 20000
    g = np.random.default_rng(5)
    op = LowRankOperator(g.standard_normal((n, 3)), g.standard_normal((3, 3)), tuple(range(n)))
    V = g.standard_normal((n, 8))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    tracemalloc.start()
    try:
        for small in (True, False):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            hyperplane_round(op, V, 64, np.random.default_rng(0), keep=8,
                             max_bytes=1 if small else 2**40)
            peak_h = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            correlation_round(op, V, 4, np.random.default_rng(0), max_bytes=1 if small else 2**40)
            peak_c = tracemalloc.get_traced_memory()[1] - base
            if small:
                small_peaks = (peak_h, peak_c)
    finally:
        tracemalloc.stop()
    # one n x 64 float64 array is 512 bytes per node; blocked, everything stays below it
    for p in small_peaks:
        assert p < 512 * n, small_peaks
    # and one block of 64 columns needs several of them
    assert peak_h > 2 * 512 * n and peak_c > 2 * 512 * n, (peak_h, peak_c)


def test_rebalance_on_a_factor_form_makes_the_greedy_moves_with_few_products():
    # reference: the one-column-at-a-time greedy on the same weights as a dense matrix
    from dpgraph.engine.rounding import cut_values, rebalance

    g = np.random.default_rng(5)
    n = 3000
    U = g.standard_normal((n, 4)) / np.sqrt(n)
    op = LowRankOperator(U, np.diag([1.0, -1.0, 2.0, -0.5]), tuple(range(n)))
    dense = as_weight_operator(op.to_dense())
    calls = {"matmul": 0}
    real_mm, real_mv = op.matmul, op.W.__class__.__matmul__

    def counting(self, V):
        calls["matmul"] += 1
        return real_mv(self, V)

    op.W.__class__.__matmul__ = counting
    try:
        for trial in range(5):
            x = np.where(g.random(n) < 0.5 + 0.1 * (trial - 2), 1.0, -1.0)  # |sum x| up to ~1200
            calls["matmul"] = 0
            xb, Wxb = rebalance(op, x)
            moves = abs(int(x.sum())) // 2
            xr, _ = rebalance(dense, x)
            assert abs(xb.sum()) <= 1
            assert np.array_equal(xb, xr)   # the same greedy moves
            assert np.allclose(Wxb, real_mm(xb))
            assert calls["matmul"] <= 2 + moves // 4   # full products; the rest is O(T k) a move
    finally:
        op.W.__class__.__matmul__ = real_mv
