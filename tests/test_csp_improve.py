"""Tabu search / annealing (dpgraph.engine.local_search) and the time-limited solves.

Independent references: brute force over all 2^n (balanced) assignments, cuts recomputed from
scratch, the NumPy back end against the numba kernels (same moves by construction).
"""

import itertools
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.engine import as_weight_operator, cut_value, solve_max_bisection, solve_max_cut
from dpgraph.engine.local_search import anneal, improve_cut, numba_available, prepare, tabu_search
from dpgraph.engine.rounding import cut_values

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed")


def _random_weights(n, p, seed, signed=False):
    rng = np.random.default_rng(seed)
    A = np.triu((rng.random((n, n)) < p) * rng.integers(1, 4, (n, n)).astype(float), 1)
    if signed:
        A = A * np.where(rng.random((n, n)) < 0.3, -1.0, 1.0)
    return A + A.T


def _brute(W, balanced):
    n = W.shape[0]
    best = -np.inf
    tot = W.sum()
    for bits in itertools.product((-1.0, 1.0), repeat=n - 1):
        x = np.r_[1.0, bits]
        if balanced and abs(x.sum()) > 1:
            continue
        best = max(best, 0.25 * (tot - x @ W @ x))
    return best


class _MatmulOnly:
    """An operator that offers only products (like an implicit low-rank operator)."""

    def __init__(self, op):
        self._op = op
        self.n, self.degrees, self.total = op.n, op.degrees, op.total

    def matmul(self, V):
        return self._op.matmul(V)

    def quad(self, X):
        return self._op.quad(X)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("signed", [False, True])
def test_max_cut_matches_brute_force(seed, signed):
    W = _random_weights(11, 0.5, seed, signed)
    opt = _brute(W, balanced=False)
    res = solve_max_cut(W, rng=seed)
    assert res.value == pytest.approx(opt)
    assert res.value <= res.upper_bound + 1e-9
    res = solve_max_cut(W, rng=seed, time_limit=0.2)
    assert res.value == pytest.approx(opt)
    assert res.value <= res.upper_bound + 1e-9


@pytest.mark.parametrize("n", [10, 11])
@pytest.mark.parametrize("seed", range(3))
def test_max_bisection_matches_brute_force_and_is_balanced(n, seed):
    W = _random_weights(n, 0.5, 10 + seed, signed=seed == 2)
    opt = _brute(W, balanced=True)
    for kw in ({}, {"time_limit": 0.2}):
        res = solve_max_bisection(W, rng=seed, **kw)
        assert abs(res.x.sum()) <= 1
        assert abs(len(res.partition[0]) - len(res.partition[1])) <= 1
        assert res.value == pytest.approx(opt)
        assert res.value == pytest.approx(cut_value(W, res.x))


@pytest.mark.parametrize("backend", ["numpy", "numba-csr", "numba-dense"])
@pytest.mark.parametrize("balanced", [False, True])
def test_tabu_incremental_value_matches_recomputed(backend, balanced):
    if backend != "numpy" and not numba_available():
        pytest.skip("numba not installed")
    g = nx.gnm_random_graph(41 if balanced else 40, 160, seed=3)
    for u, v in g.edges:
        g.edges[u, v]["weight"] = 1.0 + (u * v) % 3 - (1.5 if (u + v) % 5 == 0 else 0.0)
    W = nx.to_numpy_array(g)
    op = as_weight_operator(W if backend == "numba-dense" else sp.csr_array(W))
    rng = np.random.default_rng(1)
    x0 = np.where(np.arange(op.n) % 2 == 0, 1.0, -1.0)[rng.permutation(op.n)]
    for moves, stall in ((1, 5), (37, 10), (800, 50)):
        r = tabu_search(op, x0, balanced=balanced, max_moves=moves, stall=stall, rng=2, backend=backend)
        assert r.backend == backend
        assert r.moves == moves
        # the value tracked by incremental gains over all moves equals the recomputed cut
        assert r.tracked_value == pytest.approx(r.value, abs=1e-9)
        assert r.value == pytest.approx(float(cut_values(op, r.x)))
        assert r.value >= float(cut_values(op, x0)) - 1e-12
        if balanced:
            assert abs(r.x.sum()) <= 1
        assert r.final_value == pytest.approx(float(cut_values(op, r.final_x)), abs=1e-9)
        if balanced:
            assert abs(r.final_x.sum()) <= 3  # mid-pair states are one move off balance


@needs_numba
@pytest.mark.parametrize("balanced", [False, True])
def test_backends_make_the_same_moves(balanced):
    W = _random_weights(30, 0.3, 7, signed=True)
    ops = {"numba-csr": as_weight_operator(sp.csr_array(W)), "numba-dense": as_weight_operator(W),
           "numpy": as_weight_operator(W)}
    x0 = np.tile([1.0, -1.0], 15)
    out = {b: tabu_search(op, x0, balanced=balanced, max_moves=3000, stall=40, rng=5, backend=b)
           for b, op in ops.items()}
    ref = out["numpy"]
    for r in out.values():
        assert np.array_equal(r.x, ref.x)
        assert r.perturbations == ref.perturbations > 0


def test_numpy_backend_on_a_product_only_operator():
    W = _random_weights(25, 0.3, 4)
    op = as_weight_operator(W)
    x0 = np.tile([1.0, -1.0], 13)[:25]
    a = tabu_search(op, x0, max_moves=500, stall=30, rng=1, backend="numpy")
    b = tabu_search(_MatmulOnly(op), x0, max_moves=500, stall=30, rng=1)
    assert b.backend == "numpy"
    assert np.array_equal(a.x, b.x)


@needs_numba
def test_anneal_and_improve_cut_return_recomputed_values():
    g = nx.random_regular_graph(3, 60, seed=2)
    op = as_weight_operator(g)
    x0 = np.ones(60)
    x, v, sweeps = anneal(op, x0, sweeps=50, rng=0)
    assert sweeps == 50 and v == pytest.approx(float(cut_values(op, x))) and v > 0
    x, v, info = improve_cut(op, x0, time_limit=0.05, rng=0)
    assert v == pytest.approx(float(cut_values(op, x)))
    assert info["method"] == "anneal+tabu"
    xb, vb, info = improve_cut(op, np.tile([1.0, -1.0], 30), balanced=True, time_limit=0.05, rng=0)
    assert abs(xb.sum()) <= 1 and info["method"] == "anneal+tabu"
    assert vb == pytest.approx(float(cut_values(op, xb)))
    # the balance-penalised anneal returns its last state (rebalanced by improve_cut)
    x, v, _ = anneal(op, np.tile([1.0, -1.0], 30), sweeps=50, balanced=True, rng=1)
    assert v == pytest.approx(float(cut_values(op, x))) and abs(x.sum()) <= 60
    dense = as_weight_operator(nx.to_numpy_array(g))
    xd, vd, info = improve_cut(dense, x0, time_limit=0.05, rng=0)
    assert info["method"] == "tabu" and vd == pytest.approx(float(cut_values(dense, xd)))


def test_tiny_time_limit_still_returns_a_valid_certified_result():
    g = nx.gnm_random_graph(300, 1200, seed=0)
    for solver in (solve_max_cut, solve_max_bisection):
        res = solver(g, rng=0, time_limit=1e-3)
        assert set(np.unique(res.x)) <= {-1.0, 1.0}
        assert res.value == pytest.approx(cut_value(g, res.assignment))
        assert res.value <= res.upper_bound + 1e-9 and res.gap >= 0
        if solver is solve_max_bisection:
            assert abs(len(res.partition[0]) - len(res.partition[1])) <= 1


def test_time_limit_and_tabu_moves_validation():
    with pytest.raises(ValueError, match="time_limit"):
        solve_max_cut(nx.path_graph(4), time_limit=-1)
    with pytest.raises(ValueError, match="tabu_moves"):
        solve_max_cut(nx.path_graph(4), tabu_moves=-3)
    op = as_weight_operator(nx.path_graph(4))
    with pytest.raises(ValueError, match="balanced"):
        tabu_search(op, [1, 1, 1, -1], balanced=True)
    with pytest.raises(ValueError, match="±1"):
        tabu_search(op, [1, 0, 1, -1])


def test_fallback_without_numba_in_a_fresh_process():
    code = ("import networkx as nx, numpy as np\n"
            "from dpgraph.engine.local_search import numba_available\n"
            "from dpgraph.engine import solve_max_cut, solve_max_bisection\n"
            "assert not numba_available()\n"
            "g = nx.petersen_graph()\n"
            "r = solve_max_cut(g, rng=0, tabu_moves=200)\n"
            "b = solve_max_bisection(g, rng=0, time_limit=0.05)\n"
            "assert r.value == 12.0, r.value\n"
            "assert abs(b.x.sum()) <= 1\n"
            "print('ok')\n")
    env = dict(os.environ, DPGRAPH_NO_NUMBA="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "ok" in out.stdout


def test_swap_descent_stops_at_its_deadline_and_keeps_balance():
    """A deadline in the past stops the bisection swap descent before its first move (no clock
    reading is asserted: the deadline is either passed or absent); without one it descends."""
    from dpgraph.engine.rounding import swap_local_search

    G = nx.gnm_random_graph(60, 300, seed=3)
    op = as_weight_operator(G)
    x0 = np.where(np.random.default_rng(0).permutation(60) < 30, 1.0, -1.0)
    x_stopped, moves_stopped = swap_local_search(op, x0.copy(), deadline=0.0)
    assert moves_stopped == 0 and np.array_equal(x_stopped, x0)
    x_free, moves_free = swap_local_search(op, x0.copy())
    assert moves_free > 0 and x_free.sum() == 0
    assert cut_values(op, x_free) > cut_values(op, x0)


@needs_numba
def test_bisection_improvement_keeps_the_better_of_free_and_penalised_anneals():
    # a 2D torus with even sides is bipartite with equal sides: the maximum bisection cuts all
    # 2 * 24 * 24 edges (independent reference), and the free Max-Cut anneal reaches it directly
    g = nx.grid_2d_graph(24, 24, periodic=True)
    op = as_weight_operator(g)
    rng = np.random.default_rng(3)
    x0 = np.ones(op.n)
    x0[rng.permutation(op.n)[: op.n // 2]] = -1.0
    x, v, info = improve_cut(op, x0, balanced=True, time_limit=0.5, rng=0)
    assert x.sum() == 0 and v == pytest.approx(float(cut_values(op, x)))
    both = info["anneal_values"]
    assert set(both) == {"free+rebalance", "penalised+rebalance"}
    assert v >= max(both.values()) and info["anneal_value"] == max(both.values())
    assert v == 2 * 24 * 24


@pytest.mark.skipif(not numba_available(), reason="the default annealing needs numba")
def test_default_max_cut_anneals_from_the_best_rounding_deterministically():
    from dpgraph.engine.maxcut import auto_sweeps
    from dpgraph.datasets import toroidal_grid_pm1

    g = toroidal_grid_pm1(16, 24, rng=3)  # G81-like: +-1 weights on a torus
    plain = solve_max_cut(g, rng=5, anneal_sweeps=0)
    res = solve_max_cut(g, rng=5)
    again = solve_max_cut(g, rng=5)
    info = res.info["improve"]
    assert info["method"] == "anneal+tabu" and info["sweeps"] == auto_sweeps(g.n, g.weights.nnz)
    # the annealed cut is kept only when better; the rounded candidates are all still there
    assert res.value >= max(res.info["candidates"].values())
    assert res.value == pytest.approx(cut_value(g, res.assignment))
    assert res.value <= res.upper_bound + 1e-9
    assert plain.info["improve"] is None and res.info["rounded"].shape[1] == plain.info["rounded"].shape[1] + 1
    np.testing.assert_array_equal(res.x, again.x)  # a fixed schedule: no clock involved
    # a fixed number of sweeps is honoured; bisection and time-limited solves are unchanged
    few = solve_max_cut(g, rng=5, anneal_sweeps=50)
    assert few.info["improve"]["sweeps"] == 50
    assert solve_max_bisection(g, rng=5).info["improve"] is None


def test_anneal_sweeps_validation():
    with pytest.raises(ValueError, match="anneal_sweeps"):
        solve_max_cut(nx.path_graph(4), anneal_sweeps=-1)
    with pytest.raises(ValueError, match="anneal_sweeps"):
        solve_max_cut(nx.path_graph(4), anneal_sweeps="fast")
