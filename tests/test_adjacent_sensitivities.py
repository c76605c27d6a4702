"""Adjacent-input checks of noise constants on the local routes, Max-2-CSP and the clustering
release on a public node subset.

Each test computes the released quantity *before its noise* with the package's own code: the
release function runs on an input and on its neighbours, and a spy put in place of the Laplace
mechanism it calls records the value and the sensitivity handed to it (and, where nothing after
the draw is needed, stops the release there). The largest change over the neighbours, in the
norm the mechanism is calibrated to, must not exceed the sensitivity the code passes; where the
bound is tight some neighbour must attain it, so a constant below the truth fails too.

Adjacency (docs/privacy.md 4, 6): graphs on the same nodes whose weights differ in one pair
``{i, j}``, ``i != j``, by at most 1 (an edge added, removed, or reweighted); CSP instances on
the same variables that differ in one constraint of weight in ``[0, 1]``.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.engine.twocsp import CSPInstance
from dpgraph.graph import from_matrix
from dpgraph.privacy import PrivacyLedger, make_rng
from dpgraph.release.routes import local as L
from dpgraph.solve import csp as C
from dpgraph.synthetic import clustering as CL


class _Stop(Exception):
    """Raised by a spy once it has what it needs: the release goes no further."""


class _LaplaceSpy:
    """Stands in for ``laplace_mechanism`` in one module: records (pre-noise value, sensitivity)
    and then either stops the release or hands the call on to the real mechanism."""

    def __init__(self, real, stop: bool):
        self.real, self.stop, self.calls = real, stop, []

    def __call__(self, value, *args, **kwargs):
        self.calls.append((np.array(value, dtype=np.float64, copy=True),
                           float(kwargs["sensitivity"])))
        if self.stop:
            raise _Stop
        return self.real(value, *args, **kwargs)


def _random_weights(rng, n, density):
    A = np.triu((rng.random((n, n)) < density).astype(float), 1)
    weighted = np.triu(rng.random((n, n)) < 0.4, 1) & (A > 0)
    A = np.where(weighted, rng.uniform(0.05, 1.0, (n, n)), A)
    return A + A.T


def _neighbours(rng, A):
    """Every pair {i, j}, its weight moved to 0 (removed), 1 (added / raised) and a random value
    in (0, 1) (reweighted): each change is at most 1."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            for new in sorted({0.0, 1.0, float(rng.uniform(0.05, 0.95))} - {A[i, j]}):
                B = A.copy()
                B[i, j] = B[j, i] = new
                yield B


def _graph(A):
    return from_matrix(sp.csr_array(A))


# ---------------------------------------------------------------- 14.1: local route degrees

def _local_route_degrees(monkeypatch, A):
    """The pre-noise degrees of the local route (release_local_sides -> release_order)."""
    spy = _LaplaceSpy(L.laplace_mechanism, stop=True)
    monkeypatch.setattr(L, "laplace_mechanism", spy)
    with pytest.raises(_Stop):
        L.release_local_sides(_graph(A), epsilon=1.0, ledger=PrivacyLedger(epsilon=1.0, delta=0),
                              rng=0)
    monkeypatch.undo()
    (value, sens), = spy.calls
    return value, sens


def test_local_route_degree_release_l1_sensitivity_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 14.1: one pair moves the released weighted degrees by at most 2 in L1;
    an edge added or removed moves them by exactly 2."""
    rng = np.random.default_rng(11)
    worst, sens_used = 0.0, set()
    for n, density in ((6, 0.5), (8, 0.3), (9, 0.7)):
        A = _random_weights(rng, n, density)
        d0, s0 = _local_route_degrees(monkeypatch, A)
        assert np.allclose(d0, A.sum(axis=1))
        sens_used.add(s0)
        for B in _neighbours(rng, A):
            d1, s1 = _local_route_degrees(monkeypatch, B)
            sens_used.add(s1)
            worst = max(worst, float(np.abs(d1 - d0).sum()))
    assert sens_used == {2.0}
    assert worst <= 2.0 + 1e-12
    assert worst == pytest.approx(2.0, abs=1e-9)


# ------------------------------------------------------- 6.5 and 14.6: Max-2-CSP, local route

def _csp_prenoise(monkeypatch, instance):
    """(total weight, its sensitivity, constraint degrees, their sensitivity) as max_2csp's local
    route computes them before their noise (_release_total_weight, release_local_labels)."""
    total_spy = _LaplaceSpy(C.laplace_mechanism, stop=False)
    degree_spy = _LaplaceSpy(L.laplace_mechanism, stop=True)
    monkeypatch.setattr(C, "laplace_mechanism", total_spy)
    monkeypatch.setattr(L, "laplace_mechanism", degree_spy)
    with pytest.raises(_Stop):
        C._max_2csp_local(instance, ledger=PrivacyLedger(epsilon=1.0, delta=0), rng=0,
                          estimate_share=0.1)
    monkeypatch.undo()
    (total, s_total), = total_spy.calls
    (degrees, s_degrees), = degree_spy.calls
    return float(total), s_total, degrees, s_degrees


def _random_constraint(rng, n, q, weight=None):
    i, j = (int(v) for v in rng.choice(n, 2, replace=False))
    R = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.5} or {(0, 0)}
    w = float(rng.uniform(0.0, 1.0)) if weight is None else float(weight)
    return (i, j, R, w)


def _csp_neighbourhoods(rng):
    """(instance, its neighbours) for a few small random instances: each constraint removed,
    and constraints added (weight 1 or random, on fresh or already constrained pairs)."""
    for n, q, m in ((4, 2, 3), (5, 3, 6), (6, 2, 8), (6, 3, 0)):
        cons = [_random_constraint(rng, n, q) for _ in range(m)]
        base = CSPInstance(n, q, cons)
        near = [CSPInstance(n, q, cons[:k] + cons[k + 1:]) for k in range(len(cons))]
        for t in range(8):
            extra = _random_constraint(rng, n, q, weight=1.0 if t % 2 == 0 else None)
            if cons and t % 3 == 0:  # on a pair that already has a constraint
                extra = (cons[0][0], cons[0][1], extra[2], extra[3])
            near.append(CSPInstance(n, q, cons + [extra]))
        yield base, near


def _worst_csp_change(monkeypatch, seed: int, released: int, sensitivity: int, norm):
    """The largest change of one pre-noise release of max_2csp's local route (``released``:
    0 the total weight, 2 the constraint degrees; their sensitivities at 1 and 3) over the
    neighbourhoods of :func:`_csp_neighbourhoods`, and the sensitivities the code passed."""
    rng = np.random.default_rng(seed)
    worst, sens_used = 0.0, set()
    for base, near in _csp_neighbourhoods(rng):
        out = _csp_prenoise(monkeypatch, base)
        sens_used.add(out[sensitivity])
        for other in near:
            changed = _csp_prenoise(monkeypatch, other)
            sens_used.add(changed[sensitivity])
            worst = max(worst, norm(changed[released], out[released]))
    return worst, sens_used


def test_max_2csp_total_weight_sensitivity_on_adjacent_instances(monkeypatch):
    """docs/privacy.md 6.5: one constraint of weight <= 1 moves the released total constraint
    weight by at most 1, exactly 1 for a constraint of weight 1."""
    worst, sens_used = _worst_csp_change(monkeypatch, 12, 0, 1, lambda a, b: abs(a - b))
    assert sens_used == {1.0}
    assert worst <= 1.0 + 1e-12
    assert worst == pytest.approx(1.0, abs=1e-9)


def test_local_csp_constraint_degrees_l1_sensitivity_on_adjacent_instances(monkeypatch):
    """docs/privacy.md 14.6: one constraint of weight <= 1 moves the constraint degrees that fix
    the local route's order by at most 2 in L1 (its weight at each end), exactly 2 at weight 1."""
    worst, sens_used = _worst_csp_change(monkeypatch, 13, 2, 3,
                                         lambda a, b: float(np.abs(a - b).sum()))
    assert sens_used == {2.0}
    assert worst <= 2.0 + 1e-12
    assert worst == pytest.approx(2.0, abs=1e-9)


# ------------------------------------------- 7.11: clustering counts on a public node subset

def _subset_work(monkeypatch, theta, size):
    """Force release_transitivity's subset branch on a small graph: MAX_WEDGE_WORK such that
    counted_nodes keeps ``size`` nodes (``MAX_WEDGE_WORK // theta^2``)."""
    monkeypatch.setattr(CL, "MAX_WEDGE_WORK", theta * theta * size)


def _clustering_counts(monkeypatch, A, theta, order, seed, size):
    """(T, W) on the node subset and the sensitivity, as release_transitivity passes them to its
    Laplace mechanism, and the subset it counted on."""
    _subset_work(monkeypatch, theta, size)
    spy = _LaplaceSpy(CL.laplace_mechanism, stop=True)
    seen = []
    real_counted = CL.counted_nodes

    def counted(gen, P, th):
        nodes = real_counted(gen, P, th)
        seen.append(nodes)
        return nodes
    monkeypatch.setattr(CL, "laplace_mechanism", spy)
    monkeypatch.setattr(CL, "counted_nodes", counted)
    with pytest.raises(_Stop):
        CL.release_transitivity(_graph(A), theta=theta, epsilon=1.0,
                                ledger=PrivacyLedger(epsilon=1.0, delta=0), rng=seed, order=order)
    monkeypatch.undo()
    (counts, sens), = spy.calls
    (nodes,) = seen
    assert nodes is not None and nodes.size == size < A.shape[0]  # the subset branch
    return counts, sens, nodes


def test_clustering_subset_counts_l1_sensitivity_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 7.11, subset branch: on every neighbour (every pair added, removed or
    reweighted) of small dense graphs, caps 2-4, random orders, (T, W) summed over the public
    subset moves by at most 8 (theta - 1) in L1."""
    rng = np.random.default_rng(14)
    worst_ratio = 0.0
    for g, (n, density, theta) in enumerate(((10, 0.6, 2), (11, 0.7, 3), (12, 0.5, 4),
                                              (12, 0.8, 3))):
        A = _random_weights(rng, n, density)
        order = rng.permutation(n)
        size = n // 2
        c0, sens, nodes0 = _clustering_counts(monkeypatch, A, theta, order, g, size)
        assert sens == 8.0 * (theta - 1) == CL.clustering_sensitivity(theta)
        for B in _neighbours(rng, A):
            c1, s1, nodes1 = _clustering_counts(monkeypatch, B, theta, order, g, size)
            assert s1 == sens and np.array_equal(nodes1, nodes0)  # public: the graph's not read
            worst_ratio = max(worst_ratio, float(np.abs(c1 - c0).sum()) / sens)
    assert 0.0 < worst_ratio <= 1.0 + 1e-12


@pytest.mark.parametrize("theta", [2, 3, 5])
def test_clustering_subset_sensitivity_is_attained(monkeypatch, theta):
    """docs/privacy.md 7.11's construction placed on the public subset (drawn first: it does not
    depend on the graph): adding {a, b} evicts {a, y1} and {b, y2} and moves the subset's (T, W)
    by exactly 8 (theta - 1), the constant the code uses; nodes off the subset carry other
    edges."""
    k = 2 * theta + 2  # a, b, y1, y2 and theta - 1 nodes s_i, s'_i at each side
    n = 2 * k + 3
    seed = 7 + theta
    _subset_work(monkeypatch, theta, k)
    nodes = CL.counted_nodes(make_rng(seed), sp.csr_array((n, n)), theta)
    monkeypatch.undo()
    a, b, y1, y2, *rest = (int(v) for v in nodes)
    s, s2 = rest[:theta - 1], rest[theta - 1:]
    others = np.setdiff1d(np.arange(n), nodes)
    A = np.zeros((n, n))

    def edge(u, v):
        A[u, v] = A[v, u] = 1.0
    for end, y, side in ((a, y1, s), (b, y2, s2)):
        edge(end, y)
        for v in side:
            edge(end, v)
            edge(y, v)
    for u, v in zip(others[:-1], others[1:]):  # a path off the subset
        edge(int(u), int(v))
    # the order: a and b first, y1 and y2 last
    rank = [a, b] + [v for v in range(n) if v not in (a, b, y1, y2)] + [y1, y2]
    order = np.empty(n, dtype=np.int64)
    order[rank] = np.arange(n)
    B = A.copy()
    B[a, b] = B[b, a] = 1.0
    c0, sens, _ = _clustering_counts(monkeypatch, A, theta, order, seed, k)
    c1, _, _ = _clustering_counts(monkeypatch, B, theta, order, seed, k)
    assert sens == 8.0 * (theta - 1)
    assert float(np.abs(c1 - c0).sum()) == pytest.approx(sens, abs=1e-9)
    # 6 (theta - 1) corners and 2 (theta - 1) wedges removed
    assert (c0 - c1).tolist() == pytest.approx([6.0 * (theta - 1), 2.0 * (theta - 1)], abs=1e-9)
