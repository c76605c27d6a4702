"""Tests for dpgraph.engine Max-Cut / Max-Bisection: brute force, CVXPY+SCS, G-set, bad input."""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.engine import as_weight_operator, certify_upper_bound, solve_lowrank_sdp, solve_max_cut, solve_max_bisection, cut_value
from dpgraph.io import read_graph


def _random_weights(n, p, rng, signed=False):
    A = (rng.random((n, n)) < p) * rng.uniform(0.5, 2.0, (n, n))
    if signed:
        A = A * rng.choice([-1.0, 1.0], (n, n))
    A = np.triu(A, 1)
    return A + A.T


def _brute_force(W, balanced=False):
    n = W.shape[0]
    best = -np.inf
    tot = W.sum()
    for bits in itertools.product([-1.0, 1.0], repeat=n - 1):
        x = np.array((1.0,) + bits)
        if balanced and abs(x.sum()) > 1:
            continue
        best = max(best, 0.25 * (tot - x @ W @ x))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_max_cut_bound_vs_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 12 + seed
    W = _random_weights(n, 0.4, rng, signed=seed % 2 == 1)
    opt = _brute_force(W)
    res = solve_max_cut(W, rng=seed)
    assert res.upper_bound >= opt - 1e-9
    assert res.upper_bound >= res.sdp_value - 1e-9
    assert res.value <= opt + 1e-9
    # the returned value is the cut of the returned assignment
    assert res.value == pytest.approx(cut_value(W, res.assignment), abs=1e-9)
    assert res.value >= 0.9 * opt


@pytest.mark.parametrize("seed", range(3))
def test_max_bisection_bound_vs_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    n = 13 + seed  # odd and even n
    W = _random_weights(n, 0.4, rng)
    opt = _brute_force(W, balanced=True)
    res = solve_max_bisection(W, rng=seed)
    L, R = res.partition
    assert abs(len(L) - len(R)) <= 1
    assert res.upper_bound >= opt - 1e-9
    assert res.value <= opt + 1e-9
    assert res.value >= 0.9 * opt


def test_bisection_bound_falls_back_to_the_max_cut_bound(monkeypatch):
    """Max-Cut's certified bound holds for every bisection: where the balanced dual is loose (a
    weighted 4,039-node graph's fell back to the total weight, 1.67 times the SDP value), the
    bisection reports the max-cut bound of the same V, still above the brute-force optimum."""
    import dpgraph.engine.maxcut as maxcut

    real = maxcut.certify_upper_bound

    def loose_balanced(op, V, *, nu, balance, **kw):
        ub, info = real(op, V, nu=nu, balance=balance, **kw)
        return (10.0 * ub, dict(info, certificate="loose")) if balance else (ub, info)

    monkeypatch.setattr(maxcut, "certify_upper_bound", loose_balanced)
    rng = np.random.default_rng(5)
    W = _random_weights(14, 0.4, rng)
    res = solve_max_bisection(W, rng=0)
    assert res.upper_bound >= _brute_force(W, balanced=True) - 1e-9
    assert res.upper_bound <= 1.05 * res.sdp_value
    assert res.info["certificate"].startswith("max-cut bound")


def test_dense_and_sparse_input_agree():
    rng = np.random.default_rng(3)
    W = _random_weights(60, 0.2, rng)
    r1 = solve_max_cut(W, rng=1, labels=[f"v{i}" for i in range(60)])
    r2 = solve_max_cut(sp.csr_array(W), rng=1)
    assert r1.sdp_value == pytest.approx(r2.sdp_value, rel=1e-5)
    assert set(r1.assignment) == {f"v{i}" for i in range(60)}
    assert r1.info["dense_input"] and not r2.info["dense_input"]


def test_certificate_from_any_iterate_is_an_upper_bound():
    rng = np.random.default_rng(5)
    W = _random_weights(14, 0.5, rng)
    opt = _brute_force(W)
    op = as_weight_operator(W)
    for it in (0, 1, 3, 10):
        sol = solve_lowrank_sdp(op, rank=3, max_iter=it, rng=0)
        for method in ("factor", "lanczos"):
            ub, _ = certify_upper_bound(op, sol.V, method=method)
            assert ub >= opt - 1e-9


def test_networkx_labels_and_cycle():
    G = nx.cycle_graph(["a", "b", "c", "d", "e"])
    res = solve_max_cut(G, rng=0)
    assert res.value == 4.0
    assert set().union(*res.partition) == set("abcde")
    assert res.upper_bound >= 4.0


def test_bad_input():
    with pytest.raises(ValueError, match="non-finite"):
        solve_max_cut(np.array([[0, np.nan], [np.nan, 0]]))
    with pytest.raises(ValueError, match="symmetric"):
        solve_max_cut(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(ValueError, match="seeds"):
        solve_max_cut(np.ones((3, 3)), seeds=-1)


def test_trivial_instances():
    r = solve_max_cut(np.zeros((1, 1)), rng=0)
    assert r.value == 0 and r.upper_bound == pytest.approx(0, abs=1e-9)
    r = solve_max_cut(np.zeros((5, 5)), rng=0)
    assert r.value == 0 and r.upper_bound == pytest.approx(0, abs=1e-9)
    # disconnected: two triangles -> 2 + 2
    G = nx.disjoint_union(nx.complete_graph(3), nx.complete_graph(3))
    r = solve_max_cut(G, rng=0)
    assert r.value == 4.0 and r.upper_bound >= 4.0 - 1e-9


@pytest.mark.parametrize("seed", range(2))
def test_lowrank_sdp_matches_cvxpy_scs(seed):
    from dpgraph.engine import cvxpy_max_cut_sdp

    rng = np.random.default_rng(20 + seed)
    W = _random_weights(40, 0.25, rng, signed=seed == 1)
    ref, *_ = cvxpy_max_cut_sdp(W, eps=1e-9)
    res = solve_max_cut(W, rng=seed, tol=1e-9)
    assert res.sdp_value == pytest.approx(ref, rel=1e-4)
    assert res.upper_bound >= ref * (1 - 1e-6)



@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_lowrank_bisection_sdp_matches_cvxpy_scs(seed):
    from dpgraph.engine import cvxpy_max_bisection_sdp

    # SCS is slow on <J, X> = b, which leaves no strictly feasible X: keep n small
    rng = np.random.default_rng(30 + seed)
    W = np.abs(_random_weights(13 - seed, 0.4, rng))
    ref, *_ = cvxpy_max_bisection_sdp(W, eps=1e-8)
    res = solve_max_bisection(W, rng=seed, tol=1e-9)
    assert res.sdp_value == pytest.approx(ref, rel=1e-4)
    assert res.upper_bound >= ref * (1 - 1e-4)  # SCS is only "optimal_inaccurate" here
    assert abs(res.x.sum()) <= 1


@pytest.mark.slow
@pytest.mark.parametrize("name,sdp,best", [("G3", 12084.33, 11622), ("G35", 8014.74, None),
                                           ("G48", 6000.0, 6000)])
def test_gset(data_dir, name, sdp, best):
    W = read_graph(data_dir / "gset" / f"{name}.txt", format="gset").weights
    res = solve_max_cut(W, rng=0)
    assert res.sdp_value == pytest.approx(sdp, rel=1e-4)
    assert (res.upper_bound - res.sdp_value) / res.sdp_value <= 1e-3
    assert res.upper_bound >= sdp * (1 - 1e-6)
    if best is not None:
        assert res.value >= 0.98 * best


def test_bisection_edge_cases():
    r = solve_max_bisection(np.zeros((1, 1)), rng=0)
    assert r.value == 0 and r.upper_bound == pytest.approx(0, abs=1e-9) and r.gap == 0
    r = solve_max_bisection(np.zeros((4, 4)), rng=0)
    assert r.value == 0 and r.upper_bound == pytest.approx(0, abs=1e-9)
    assert sorted(map(len, r.partition)) == [2, 2]
    # disconnected, odd n: triangle + path on 4 nodes
    G = nx.disjoint_union(nx.complete_graph(3), nx.path_graph(4))
    r = solve_max_bisection(G, rng=0)
    W = nx.to_numpy_array(G)
    assert abs(len(r.partition[0]) - len(r.partition[1])) == 1
    assert r.upper_bound >= _brute_force(W, balanced=True) - 1e-9


def test_one_cut_value_takes_every_partition_form():
    import networkx as nx

    import dpgraph.lab.evaluate
    from dpgraph.engine import cut_value

    assert dpgraph.lab.evaluate.cut_value is cut_value
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 3.0), (0, 2, 5.0), (2, 3, 1.0)])
    forms = [{0: 0, 1: 1, 2: 1, 3: 0}, {0: -1, 1: 1, 2: 1, 3: -1}, {0: False, 1: True, 2: True, 3: False},
             np.array([0, 1, 1, 0]), [-1, 1, 1, -1], ({1, 2}, {0, 3}), ([0, 3], [1, 2])]
    assert {cut_value(G, p) for p in forms} == {2.0 + 5.0 + 1.0}
    assert cut_value(G, ({1, 2}, {0, 3}), weight=None) == 3.0
    res = solve_max_cut(G, rng=0)
    assert cut_value(G, res) == cut_value(G, res.assignment) == res.value
    with pytest.raises(ValueError, match="share"):
        cut_value(G, ({0, 1}, {1, 2, 3}))
    with pytest.raises(ValueError, match="places 3 of 4"):
        cut_value(G, ({0, 1}, {2}))
    with pytest.raises(ValueError, match="does not place"):
        cut_value(G, {0: 0, 1: 1})
