"""Privacy review of how ``max_cut`` / ``max_bisection`` combine routes (docs/privacy.md 4.9-4.11,
5.5, 14.10, 14.11): every share of epsilon that an answer hands to a release, computed here from
the documented constants and the *released* edge count, against the ledger; and the replay of
section 11 on graphs whose sizes make the released count decide something (the caps of the
choice and of the estimate bind, a pooled route's share sits on its ramp, the estimate's range
is the count's upper end), with neighbours and with graphs of a very different edge count.

Adjacency (docs/privacy.md 4): graphs on the same public nodes whose weights differ in one pair by
at most 1. The matrix-free route's own releases (5.1-5.4) are checked release by release in
``tests/test_privacy_guards_routes.py`` and ``tests/test_matrix_free.py``.
"""
import math
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.release import screening
from dpgraph.solve import cut as CUT

from test_answer_data_flow import replay_differences


def _ramp(v, lo, hi):
    return min(max((v - lo) / (hi - lo), 0.0), 1.0)


def _run(monkeypatch, fn, G, **kw):
    """``fn(G, **kw)`` with the screening count it released (a spy on the release)."""
    released = []
    real = CUT.release_edge_count
    monkeypatch.setattr(CUT, "release_edge_count",
                        lambda *a, **k: released.append(real(*a, **k)) or released[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fn(G, **kw)
    monkeypatch.setattr(CUT, "release_edge_count", real)
    (m_hat,) = released
    return res, m_hat


def _entries(res):
    out = {}
    for e in res.ledger.entries:
        out.setdefault(e.name, []).append(e)
    return out


# (case, n, p, epsilon, delta, route): the randomized-response pool (14.11), the matrix-free
# route asked for (5.5), the matrix-free pool (14.10; its size threshold lowered to 100 nodes),
# and the same graph under delta = 0 (the local route alone)
SIDE_CASES = [("rr-pool", 150, 0.5, 4.0, 1e-6, None),
              ("matrix-free", 150, 0.5, 4.0, 1e-6, "matrix-free"),
              ("mf-pool", 200, 0.4, 4.5, 1e-6, None),
              ("pure", 150, 0.5, 4.0, 0.0, None)]


@pytest.mark.parametrize("problem", ["max_cut", "max_bisection"])
@pytest.mark.parametrize("case,n,p,eps,delta,route", SIDE_CASES)
def test_every_share_of_an_answer_is_the_documented_function_of_the_released_count(
        problem, case, n, p, eps, delta, route, monkeypatch):
    """docs/privacy.md 4.9-4.11, 5.5, 14.10, 14.11, from the documented constants (not the
    code's): the screening count at ``0.005 eps`` (Laplace, sensitivity 1); the choice at
    ``min(0.04 eps, 1000 / m^)`` and the estimate at ``min(0.1 eps, 200 / m^)`` (sensitivity
    1); a pooled matrix-free release at ``0.5 ramp(2 m^ eps' / n; 300, 400) eps'`` and all of
    delta, a pooled randomized response at ``0.95 ramp(snr; 2, 2.25) eps_r`` with ``snr =
    (2 m^ / n) sinh(eps' / 2) / sqrt n`` and ``eps_r = eps' - eps_s - eps_e``; ``eps' = eps -
    0.005 eps``; the rest to the route that answers; the total ``eps`` (less a choice not
    drawn) and ``delta`` spent only by a matrix-free release. ``m^`` is the released count, and
    the graphs are sized so that it decides (the caps bind, a share is on its ramp) and differs
    from the true count: guards the mutants that size a share, a cap or a pool from the true
    edge count, or give a pool a share of ``eps`` instead of ``eps'``."""
    if case == "mf-pool":
        monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 100)
    G = nx.gnp_random_graph(n, p, seed=1)
    fn = getattr(dpgraph, problem)
    res, m_hat = _run(monkeypatch, fn, G, epsilon=eps, delta=delta, rng=0, route=route)
    m = G.number_of_edges()
    assert m_hat != m
    ent = _entries(res)
    (screen,) = ent["screening: edge count"]
    assert (screen.epsilon, screen.sensitivity) == (pytest.approx(0.005 * eps, rel=1e-12), 1.0)
    mm = max(m_hat, 1.0)
    eps_s, eps_e = min(0.04 * eps, 1000.0 / mm), min(0.1 * eps, 200.0 / mm)
    assert 200.0 / mm < 0.1 * eps  # the estimate's cap binds: it is sized by m^
    (est,) = ent["cut of the returned partition"]
    assert (est.epsilon, est.sensitivity) == (pytest.approx(eps_e, rel=1e-12), 1.0)
    chose = ent.get("choice among candidate partitions", [])
    for e in chose:
        assert (e.epsilon, e.sensitivity) == (pytest.approx(eps_s, rel=1e-12), 1.0)
    eps1 = eps - 0.005 * eps
    pool = 0.0
    mf = [e for e in res.ledger.entries if e.name.startswith("matrix-free route")]
    rr = [e for e in res.ledger.entries if e.mechanism == "randomized-response"]
    if case == "mf-pool":
        rho = 2.0 * m_hat * eps1 / n
        s = 0.5 * _ramp(rho, 300.0, 400.0)
        assert 0.0 < s < 0.5  # on the ramp: the share is sized by m^
        (e,) = mf
        assert (e.epsilon, e.delta) == (pytest.approx(s * eps1, rel=1e-9), delta)
        assert res.diagnostics["routes"] == ("local", "matrix-free") and not rr
        pool = e.epsilon
    elif case == "rr-pool":
        snr = (2.0 * m_hat / n) * math.sinh(eps1 / 2.0) / math.sqrt(n)
        s = 0.95 * _ramp(snr, 2.0, 2.25)
        assert s > 0
        (e,) = rr
        assert (e.epsilon, e.delta) == (pytest.approx(s * (eps1 - eps_s - eps_e), rel=1e-9), 0.0)
        assert res.diagnostics["routes"] == ("local", "randomized-response") and not mf
        pool = e.epsilon
    elif case == "matrix-free":
        (e,) = mf
        assert res.diagnostics["route"] == "matrix-free" and not rr
        assert (e.epsilon, e.delta) == (pytest.approx(eps1 - eps_s - eps_e, rel=1e-9), delta)
    else:
        assert not mf and not rr and "routes" not in res.diagnostics
    if case != "matrix-free":  # the local route gets what the others leave
        local = math.fsum(e.epsilon for e in res.ledger.entries if e.name.startswith("local"))
        assert local == pytest.approx(eps1 - pool - eps_s - eps_e, rel=1e-9)
    spent_eps, spent_delta = res.ledger.spent
    assert spent_eps == pytest.approx(eps - (0.0 if chose else eps_s), rel=1e-9)
    assert spent_delta == (delta if mf else 0.0)


def _sized_inputs(n, p, seed):
    """A graph, a neighbour with one edge added and one removed, and two graphs that are not
    adjacent: one with a tenth of the edges (its estimate's range, from its true count, would
    be far below the replayed estimate) and one denser."""
    G = nx.gnp_random_graph(n, p, seed=seed)
    nx.set_edge_attributes(G, 1.0, "weight")
    added, removed = G.copy(), G.copy()
    added.add_edge(*next((u, v) for u in G for v in G if u < v and not G.has_edge(u, v)),
                   weight=1.0)
    removed.remove_edge(*sorted(G.edges)[0])
    sparse = nx.gnp_random_graph(n, p / 10, seed=seed + 100)
    dense = nx.gnp_random_graph(n, min(1.0, 1.5 * p), seed=seed + 200)
    for H in (sparse, dense):
        nx.set_edge_attributes(H, 1.0, "weight")
    return [G, added, removed, sparse, dense]


@pytest.mark.parametrize("problem,case,n,p,eps,route", [
    ("max_cut", "rr-pool", 120, 0.5, 4.0, None),
    ("max_cut", "matrix-free", 150, 0.5, 4.0, "matrix-free"),
    ("max_bisection", "matrix-free", 150, 0.5, 4.0, "matrix-free"),
    ("max_cut", "mf-pool", 200, 0.4, 4.5, None),
])
def test_answers_read_the_graph_only_through_their_mechanisms_where_the_count_decides(
        problem, case, n, p, eps, route, monkeypatch):
    """docs/privacy.md 11 (the replay of ``tests/test_answer_data_flow.py``) on the paths where
    the released count sizes something: the caps of the choice and of the estimate, the pooled
    route's share (on its ramp for the matrix-free pool), the estimate's range ``min(m^+,
    |S| |T|)`` (4.10), the matrix-free route's answer (5.5). Each mechanism is handed its
    reference input, so every graph, adjacent or not, must give the same answer, ledger,
    diagnostics and draws. Guards the mutants that read the true edge count for the
    estimate's range, a share, a cap or a pool, or order the pool by its true cuts."""
    if case == "mf-pool":
        monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 100)
    fn = getattr(dpgraph, problem)
    inputs = _sized_inputs(n, p, 1)
    diffs = replay_differences(
        lambda G, gen: fn(G, epsilon=eps, delta=1e-6, rng=gen, route=route), inputs,
        monkeypatch)
    assert diffs == {k: [] for k in range(1, len(inputs))}


def test_the_replayed_paths_are_the_ones_named(monkeypatch):
    """The cases above take the paths they name, and the estimate's range binds for the sparse
    graph (else the replay could not see a range read from the true count)."""
    monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 100)
    rr, _ = _run(monkeypatch, dpgraph.max_cut, nx.gnp_random_graph(120, 0.5, seed=1),
                 epsilon=4.0, delta=1e-6, rng=0)
    mf, m_hat = _run(monkeypatch, dpgraph.max_cut, nx.gnp_random_graph(200, 0.4, seed=1),
                     epsilon=4.5, delta=1e-6, rng=0)
    assert rr.diagnostics["routes"] == ("local", "randomized-response")
    assert mf.diagnostics["routes"] == ("local", "matrix-free")
    assert 0 < screening.matrix_free_share(200, m_hat, 4.5 - 0.005 * 4.5, 1e-6) < 0.5
    # the replayed estimate (about the reference's cut) is above the sparse graph's range
    sparse = _sized_inputs(120, 0.5, 1)[3]
    upper = sparse.number_of_edges() + (1 / (0.005 * 4.0)) * math.log(500.0)
    assert rr.estimated_value > 1.2 * upper


# ------------------------------------------- 11.1: refuse before spending, or return

def test_a_pool_its_route_would_refuse_at_its_share_is_not_made(monkeypatch):
    """docs/privacy.md 11.1 and 14.10: the matrix-free pool's epsilon, ``s eps'``, is as small
    as its ramp makes it, and the route refuses a budget whose itemized accounting would
    overrun part way (a large delta at a small epsilon). Such a pool is not made: the local
    route answers alone, with the whole budget, and says why (the call raised after the
    screening count was spent). Where the route takes the pool's budget, the pool is made as
    before. The decision is a function of public ``n``, the released count, the budget and the
    options only."""
    from dpgraph.release.routes.matrix_free import check_release_options

    monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 500)
    monkeypatch.setattr(screening, "DENSE_POOL_MAX_N", 500)  # no randomized-response pool
    G = dpgraph.datasets.planted_cut(800, 60, rng=3).graph
    eps, delta = 5.1, 0.05
    res, m_hat = _run(monkeypatch, dpgraph.max_cut, G, epsilon=eps, delta=delta, rng=2)
    eps1 = eps - 0.005 * eps
    s = screening.matrix_free_share(800, m_hat, eps1, delta)
    assert s > 0  # the share rule alone would pool ...
    with pytest.raises(ValueError, match="too large for the matrix-free route"):
        check_release_options(800, s * eps1, delta)  # ... at a budget the route refuses
    assert "routes" not in res.diagnostics
    assert "matrix-free" in res.diagnostics["pool_note"]
    assert not any(e.name.startswith("matrix-free") for e in res.ledger.entries)
    assert res.ledger.spent[1] == 0.0
    assert math.fsum(e.epsilon for e in res.ledger.entries if e.name.startswith("local")) == \
        pytest.approx(eps1 - min(0.04 * eps, 1000 / m_hat) - min(0.1 * eps, 200 / m_hat),
                      rel=1e-9)
    ok, _ = _run(monkeypatch, dpgraph.max_cut, G, epsilon=eps, delta=1e-6, rng=2)
    assert ok.diagnostics["routes"] == ("local", "matrix-free") and "pool_note" not in \
        ok.diagnostics


@pytest.mark.parametrize("options", [{"foo": 1}, {"regularization": -1.0}, {"kappa": -1.0},
                                     ["kappa", 0.5]])
@pytest.mark.parametrize("call", ["max_cut matrix-free", "max_cut auto", "privatize auto"])
def test_matrix_free_options_are_refused_before_anything_is_spent(options, call, monkeypatch,
                                                                  spend_spy):
    """docs/privacy.md 11.1: ``matrix_free_options`` the route would refuse (a key it does not
    take, a regularization that is not a number > 0, a value its own checks refuse, not a
    dict) are refused before the screening count and before the route's charge, wherever the
    route may run: asked for, pooled by an ``"auto"`` answer, taken by ``privatize``'s
    ``"auto"`` from its size threshold (lowered here). An unknown key was refused after the
    screening count, a bad regularization after the route's charge and its degrees' draw."""
    monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 50)
    G = nx.gnp_random_graph(60, 0.3, seed=1)
    what, route = call.split()
    kw = {"matrix_free_options": options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)):
            if what == "privatize":
                dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rng=0, route=route, **kw)
            else:
                dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, route=route,
                                privatize_options=kw)
    assert spend_spy == {"charge": 0, "draw": 0}
