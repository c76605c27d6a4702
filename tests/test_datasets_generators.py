"""Generators: structure, reproducibility, and the edge-count distribution against its law."""

import numpy as np
import pytest

from dpgraph.datasets import (PlantedInstance, cut_weight, erdos_renyi, planted_bisection,
                              planted_cut, random_regular, toroidal_grid_pm1)
from dpgraph.graph import GraphData


def _check_canonical(g: GraphData):
    W = g.weights
    assert (W != W.T).nnz == 0
    assert np.all(W.diagonal() == 0)
    assert np.all(W.data != 0)
    assert g.labels == range(g.n)


def _binomial_z(count, trials, p):
    return abs(count - trials * p) / np.sqrt(trials * p * (1 - p))


def test_erdos_renyi_edge_count_matches_binomial():
    n, d = 400, 12.0
    g = erdos_renyi(n, d, rng=7)
    _check_canonical(g)
    pairs = n * (n - 1) // 2
    # m ~ Binomial(pairs, p): 5 standard deviations is a failure probability below 1e-6
    assert _binomial_z(g.m, pairs, d / (n - 1)) < 5


def test_erdos_renyi_pairs_are_uniform():
    # every pair appears with probability p: over 200 seeds, the count of a fixed pair and the
    # count of edges touching node 0 follow their binomial laws
    n, d, reps = 30, 6.0, 200
    p = d / (n - 1)
    first = last = deg0 = 0
    for s in range(reps):
        W = erdos_renyi(n, d, rng=s).weights
        first += W[0, 1] != 0
        last += W[n - 2, n - 1] != 0
        deg0 += W[[0], :].nnz
    assert _binomial_z(first, reps, p) < 5 and _binomial_z(last, reps, p) < 5
    assert _binomial_z(deg0, reps * (n - 1), p) < 5


def test_seeded_reproducible():
    a, b = planted_cut(300, 10.0, rng=3), planted_cut(300, 10.0, rng=3)
    assert (a.graph.weights != b.graph.weights).nnz == 0
    assert np.array_equal(a.partition, b.partition)
    c = planted_cut(300, 10.0, rng=4)
    assert (a.graph.weights != c.graph.weights).nnz > 0


@pytest.mark.parametrize("make", [planted_cut, planted_bisection])
def test_planted_instances(make):
    n, d, ratio = 1000, 20.0, 0.25
    inst = make(n, d, ratio=ratio, rng=11)
    assert isinstance(inst, PlantedInstance)
    g = inst.graph
    _check_canonical(g)
    assert inst.partition.shape == (n,) and set(np.unique(inst.partition)) == {0, 1}
    assert abs(int(inst.partition.sum()) - n // 2) <= 1
    assert inst.planted_value == cut_weight(g, inst.partition)
    a = int(np.sum(inst.partition == 0))
    b = n - a
    inside = a * (a - 1) // 2 + b * (b - 1) // 2
    assert _binomial_z(inst.planted_value, a * b, inst.params["p_out"]) < 5
    assert _binomial_z(g.m - inst.planted_value, inside, inst.params["p_in"]) < 5
    assert abs(inst.params["p_in"] / inst.params["p_out"] - ratio) < 1e-12
    assert "planted_value" in repr(inst)


def test_planted_bisection_needs_even_n_and_is_balanced():
    with pytest.raises(ValueError, match="even"):
        planted_bisection(101, 5.0)
    inst = planted_bisection(100, 5.0, rng=0)
    assert int(inst.partition.sum()) == 50


def test_planted_cut_ratio_zero_is_bipartite():
    inst = planted_cut(200, 8.0, ratio=0.0, rng=2)
    assert inst.planted_value == inst.graph.m


@pytest.mark.parametrize("n, d", [(50, 3), (200, 20), (300, 150), (64, 63)])
def test_random_regular_is_simple_and_regular(n, d):
    g = random_regular(n, d, rng=5)
    _check_canonical(g)
    assert np.all(np.diff(g.weights.indptr) == d)
    assert np.all(g.weights.data == 1.0)
    assert g.m == n * d // 2


def test_random_regular_refuses_odd_total():
    with pytest.raises(ValueError, match="even"):
        random_regular(11, 3)
    with pytest.raises(ValueError, match="d must"):
        random_regular(10, 10)


def test_toroidal_grid_pm1():
    g = toroidal_grid_pm1(10, 20, rng=1)
    _check_canonical(g)
    assert (g.n, g.m) == (200, 400)
    assert np.all(np.diff(g.weights.indptr) == 4)
    neg = int(np.count_nonzero(g.weights.data < 0)) // 2
    assert _binomial_z(neg, 400, 0.5) < 5
    # node (r, c) = r*cols + c is joined to (r, c+1) and (r+1, c) with wrap-around
    W = g.weights
    assert W[0, 1] != 0 and W[0, 19] != 0 and W[0, 20] != 0 and W[0, 180] != 0
    with pytest.raises(ValueError, match="rows"):
        toroidal_grid_pm1(2, 5)


def test_large_sizes_needed_by_benchmarks():
    # sizes the private pipeline benchmarks use; correctness only (no timing in tests)
    inst = planted_cut(2000, 400.0, rng=0)
    assert abs(2 * inst.graph.m / 2000 - 400) < 10
    g = erdos_renyi(10000, 50.0, rng=0)
    assert abs(2 * g.m / 10000 - 50) < 1


def test_random_regular_small_d_is_uniform():
    # 2-regular graphs on 6 labelled nodes: 60 hexagons and 10 pairs of triangles, so a uniform
    # sampler gives two components with probability 1/7 (binomial z-test, 5 sigma)
    from scipy.sparse.csgraph import connected_components

    reps = 1500
    two = sum(connected_components(random_regular(6, 2, rng=s).weights)[0] == 2
              for s in range(reps))
    assert _binomial_z(two, reps, 1 / 7) < 5


def test_random_regular_repair_path_always_finishes():
    # d = 4 uses the switching repair; tiny n makes nearly every pairing bad at first
    for s in range(150):
        g = random_regular(12, 4, rng=s, max_rounds=2000)
        assert np.all(np.diff(g.weights.indptr) == 4) and np.all(g.weights.data == 1.0)


@pytest.mark.parametrize("degree", [float("nan"), float("inf"), -1.0])
def test_planted_generators_refuse_a_degree_that_is_not_a_finite_non_negative_number(degree):
    # NaN and inf reached an int() conversion (ValueError / OverflowError without the name)
    from dpgraph.datasets import planted_bisection, planted_cut

    for generate in (planted_cut, planted_bisection):
        with pytest.raises(ValueError, match="mean_degree must be a finite number >= 0"):
            generate(10, degree)
