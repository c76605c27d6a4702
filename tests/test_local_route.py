"""The degree-ordered local route (dpgraph/release/routes/local.py; docs/privacy.md 14) and the
weighted-graph path (docs/privacy.md 4.12)."""

import math

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.release.routes import route_spec
from dpgraph.release.routes.local import (LocalPlan, balance_sides, batch_bounds, forward_pass,
                                  plan_local, release_local_sides)
from dpgraph.release.routes.randomized_response import bernoulli_round


def _fields(G, order, bounds, eps=1.0, seed=5):
    data = as_graph_data(G, weight=None)
    x, f = np.zeros(data.n), np.full(data.n, np.nan)
    forward_pass(data.weights, order, x, f, bounds, epsilon=eps, ledger=PrivacyLedger(),
                 rng=np.random.default_rng(seed))
    return x, f


def _pair(n, extra):
    G0 = nx.gnp_random_graph(n, 0.3, seed=2)
    G0.remove_edges_from([extra])
    G1 = G0.copy()
    G1.add_edge(*extra)
    return G0, G1


@pytest.mark.parametrize("where", ["first", "last", "inside-batch"])
def test_forward_fields_move_one_coordinate_by_at_most_one(where):
    """docs/privacy.md 14.2: with the same noise, adjacent graphs give the same fields up to the
    changed pair's later endpoint, whose field moves by at most 1 (0 inside a batch)."""
    n = 40
    order = np.arange(n)[::-1].copy()  # a fixed public order
    bounds = batch_bounds(0, n, first=4, growth=0.25)
    pos = {v: i for i, v in enumerate(order)}
    u, v = {"first": (order[0], order[10]), "last": (order[5], order[-1]),
            "inside-batch": (order[0], order[1])}[where]
    (x0, f0), (x1, f1) = (_fields(G, order, bounds) for G in _pair(n, (u, v)))
    batch_of = {i: t for t, (a, b) in enumerate(bounds) for i in range(a, b)}
    tv = batch_of[pos[v]]
    before = [w for w in range(n) if batch_of[pos[w]] < tv or (batch_of[pos[w]] == tv and w != v)]
    assert np.array_equal(f0[before], f1[before])
    diff = abs(f1[v] - f0[v])
    if batch_of[pos[u]] == tv:
        assert diff == 0.0  # a pair inside a batch is never read
    else:
        assert math.isclose(diff, 1.0, abs_tol=1e-12)  # |w - w'| |x_u| with x_u = +-1


def test_core_pairs_are_not_read_by_the_forward_pass():
    """A pair inside the core moves no forward field (only the core's randomized response)."""
    n = 30
    order = np.arange(n)
    bounds = batch_bounds(5, n, first=4, growth=0.25)
    G0, G1 = _pair(n, (0, 3))  # both in the core (positions 0..4)
    x_core = np.where(np.arange(5) % 2 == 0, 1.0, -1.0)
    out = []
    for G in (G0, G1):
        data = as_graph_data(G, weight=None)
        x, f = np.zeros(n), np.full(n, np.nan)
        x[:5] = x_core
        forward_pass(data.weights, order, x, f, bounds, epsilon=1.0, ledger=PrivacyLedger(),
                     rng=np.random.default_rng(1))
        out.append((x, f))
    assert np.array_equal(out[0][1], out[1][1], equal_nan=True)
    assert np.array_equal(out[0][0], out[1][0])


@pytest.mark.parametrize("plan", [LocalPlan(), LocalPlan(core=10, refine_share=0.2)])
def test_ledger_total_is_the_budget_and_delta_is_unspent(plan):
    data = as_graph_data(nx.gnp_random_graph(60, 0.2, seed=1))
    led = PrivacyLedger(epsilon=2.0, delta=0.0)
    rel = release_local_sides(data, epsilon=2.0, ledger=led, rng=0, plan=plan)
    eps, dlt = led.spent
    assert math.isclose(eps, 2.0, rel_tol=1e-12) and dlt == 0.0
    assert rel.candidates.shape == (60, 2 if plan.refine_share else 1)
    assert set(np.unique(rel.candidates)) <= {-1.0, 1.0}
    assert np.isnan(rel.fields[rel.order[:plan.core]]).all()


def test_plan_and_batches_are_public_functions():
    assert plan_local(1000, 2000, 1.0) == LocalPlan()          # rho = 4
    assert plan_local(1000, 12000, 1.0) == LocalPlan(refine_share=0.2)  # rho = 24: a sweep
    p = plan_local(2000, 50000, 1.0)                          # rho = 50
    assert (p.core, p.refine_share) == (1000, 0.2)
    assert plan_local(2000, 100000, 1.0).core == 1000          # rho = 100, epsilon too small
    assert plan_local(2000, 200000, 2.0).core == 2000          # rho = 400: large core
    b = batch_bounds(0, 10_000)
    assert b[0] == (0, 1) and b[-1][1] == 10_000
    assert all(b2[0] == b1[1] for b1, b2 in zip(b, b[1:]))
    assert route_spec("local").pure and route_spec("local").answers == "sides"


def test_balance_sides_moves_the_least_confident():
    x = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0])
    out = balance_sides(x, np.array([5.0, 0.1, 4.0, 0.2, 3.0, 9.0]))
    assert out.tolist() == [1.0, -1.0, 1.0, -1.0, 1.0, -1.0]


def test_max_cut_local_beats_random_and_bisection_is_balanced():
    inst = dpgraph.datasets.planted_cut(2000, 20, rng=4)
    g = inst.graph
    res = dpgraph.max_cut(g, epsilon=2.0, delta=0, rng=3)
    assert res.diagnostics["route"] == "local" and res.ledger.spent[1] == 0.0
    x = np.array([1 if res.assignment[v] else -1 for v in g.labels])
    cut = dpgraph.lab.evaluate.cut_value(g, x)
    # a random partition cuts m/2 (std ~ sqrt(m)/2 ~ 71); the local route cuts far more
    assert cut > 0.6 * g.m
    lo, hi = res.estimate_interval
    assert 0 <= lo <= res.estimated_value <= hi
    bis = dpgraph.max_bisection(g, epsilon=2.0, delta=1e-6, rng=3)
    sizes = sorted(map(len, bis.partition))
    assert sizes[1] - sizes[0] <= 1


def test_delta_zero_refuses_routes_that_need_delta_before_spending():
    G = nx.path_graph(30)
    with pytest.raises(ValueError, match="pure"):
        dpgraph.max_cut(G, epsilon=1.0, delta=0, route="matrix-free")
    res = dpgraph.max_cut(G, epsilon=1.0, delta=0, rng=0, route="randomized-response")
    assert res.ledger.spent[1] == 0.0


def test_estimate_false_spends_nothing_on_it():
    G = nx.path_graph(30)
    res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, estimate=False)
    assert res.estimated_value is None and res.estimate_interval is None
    assert "cut of the returned partition" not in [e.name for e in res.ledger.entries]
    assert math.isclose(res.ledger.spent[0], 1.0, rel_tol=1e-12)


def test_bernoulli_round_keeps_bits_and_rounds_fractions():
    assert bernoulli_round(np.array([0.0, 1.0, 1.0, 0.0]), 0).tolist() == [0, 1, 1, 0]
    draws = bernoulli_round(np.full(200_000, 0.3), 1)
    # binomial(200000, 0.3): sd ~ 205; 5 sd
    assert abs(int(draws.sum()) - 60_000) < 1025


@pytest.mark.parametrize("fn", ["privatize", "max_cut"])
def test_weighted_pair_takes_the_same_path(fn):
    """docs/privacy.md 4.12: an all-ones path and the same path plus one edge of weight 0.5
    (adjacent) get the same route, the same ledger steps and the same result shape."""
    G0 = nx.path_graph(30)
    nx.set_edge_attributes(G0, 1.0, "weight")
    G1 = G0.copy()
    G1.add_edge(0, 29, weight=0.5)
    outs = []
    for G in (G0, G1):
        if fn == "privatize":
            pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rank=2, rng=0,
                                   synthetic_share=None)
            outs.append((pg.diagnostics["route"], [e.name for e in pg.ledger.entries],
                         pg.unbiased is None, pg.diagnostics.get("low_rank_mechanism")))
        else:
            res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0)
            outs.append((res.diagnostics["route"], [e.name for e in res.ledger.entries],
                         res.synthetic_value is None, res.diagnostics["candidates"]))
    assert outs[0] == outs[1]
    # the randomized-response route accepts weighted graphs (Bernoulli rounding)
    pg = dpgraph.privatize(G1, epsilon=1.0, delta=1e-6, rank=2, rng=0, synthetic_share=None,
                           route="randomized-response")
    assert pg.diagnostics["route"] == "randomized-response"


@pytest.mark.parametrize("bad", ["1", True, b"1", np.bool_(True)])
def test_privacy_parameters_refuse_non_numbers(bad):
    G = nx.path_graph(10)
    with pytest.raises(ValueError, match="must be a number"):
        dpgraph.max_cut(G, epsilon=bad, delta=1e-6)
    with pytest.raises(ValueError, match="must be a number"):
        dpgraph.max_cut(G, epsilon=1.0, delta=bad)


def test_repr_shows_requested_and_spent_budget():
    res = dpgraph.max_cut(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, rng=0, weight=None)
    r = repr(res)
    assert "spent=(epsilon=1, delta=0) of requested (epsilon=1, delta=1e-06)" in r
    assert "delta is not spent" in r and "95% CI" in r


def test_sweep_ledger_entry_matches_its_draws(monkeypatch):
    """docs/privacy.md 14.3: the refinement sweep's ledger entry states the sensitivity and the
    noise scale its draws use (L1 sensitivity 2 at scale 2 / eps_2), and sensitivity over scale
    gives back the epsilon it charges; the same for the forward pass (sensitivity 1)."""
    import dpgraph.release.routes.local as local

    data = as_graph_data(nx.gnp_random_graph(60, 0.2, seed=1))
    led = PrivacyLedger(epsilon=2.0, delta=0.0)
    draws = []
    real = local.laplace_add

    def spy(value, *, sensitivity, epsilon, changed, ledger, rng=None):
        draws.append((ledger.entries[-1].name, sensitivity, epsilon, changed))
        return real(value, sensitivity=sensitivity, epsilon=epsilon, changed=changed,
                    ledger=ledger, rng=rng)

    monkeypatch.setattr(local, "laplace_add", spy)
    release_local_sides(data, epsilon=2.0, ledger=led, rng=0, plan=LocalPlan(refine_share=0.2))
    for name, want in [("local route: refinement sweep", 2.0), ("local route: forward pass", 1.0)]:
        entry = next(e for e in led.entries if e.name == name)
        used = {(s, e, c) for n, s, e, c in draws if n == name}
        assert len(used) == 1, used  # every batch's draw uses the same parameters
        (sens, eps, changed), = used
        assert sens == want == entry.sensitivity and changed == want
        assert entry.noise_scale == pytest.approx(sens / eps)
        assert entry.epsilon == pytest.approx(eps)
        assert entry.sensitivity / entry.noise_scale == pytest.approx(entry.epsilon)  # eps = D/b
