"""The degree-ordered local route (dpgraph/release/routes/local.py; docs/privacy.md 14) and the
weighted-graph path (docs/privacy.md 4.12)."""

import math

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.noise import laplace_add_scale
from dpgraph.release.routes import route_spec
from dpgraph.release.routes.local import (LocalPlan, backward_pass, balance_sides, batch_bounds,
                                          forward_pass, plan_local, release_local_sides,
                                          sweep_budgets)
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


@pytest.mark.parametrize("where", ["first", "last", "inside-batch", "core"])
def test_backward_fields_move_one_coordinate_by_at_most_one(where):
    """docs/privacy.md 14.9: with the same forward outputs and the same noise, adjacent graphs
    give the same backward releases up to the changed pair's *earlier* endpoint, whose release
    moves by exactly 1 (not at all inside a batch or from the core); batches released before
    it (later in the order) are equal."""
    n, k = 40, 4
    order = np.arange(n)[::-1].copy()
    bounds = batch_bounds(k, n, first=4, growth=0.25)   # positions < k: the core
    pos = {v: i for i, v in enumerate(order)}
    u, v = {"first": (order[k], order[20]), "last": (order[k + 5], order[-1]),
            "inside-batch": (order[k], order[k + 1]), "core": (order[0], order[30])}[where]
    x = np.where(np.random.default_rng(1).random(n) < 0.5, 1.0, -1.0)
    earlier = np.random.default_rng(2).normal(size=n)
    out = []
    for G in _pair(n, (u, v)):
        b = np.full(n, np.nan)
        data = as_graph_data(G, weight=None)
        y, _ = backward_pass(data.weights, order, x, earlier, bounds, epsilon=1.0,
                             ledger=PrivacyLedger(), rng=np.random.default_rng(7), released=b)
        out.append((y, b))
    (y0, b0), (y1, b1) = out
    assert np.isnan(b0[order[:k]]).all() and (y0[order[:k]] == x[order[:k]]).all()
    batch_of = {i: t for t, (a, c) in enumerate(bounds) for i in range(a, c)}
    if where == "core":
        assert np.array_equal(b0, b1, equal_nan=True)
        return
    tu = batch_of[pos[u]]
    before = [w for w in range(n) if pos[w] >= k and
              (batch_of[pos[w]] > tu or (batch_of[pos[w]] == tu and w != u))]
    assert np.array_equal(b0[before], b1[before])
    diff = abs(b1[u] - b0[u])
    if batch_of[pos[v]] == tu:
        assert diff == 0.0
    else:
        assert math.isclose(diff, 1.0, abs_tol=1e-12)  # |w - w'| |y_v| with y_v = +-1


def test_max_cut_pools_the_balanced_candidates():
    """docs/privacy.md 14.5: max_cut's private choice runs over the route's sides and their
    balanced versions; max_bisection's over the balanced ones; the ledger stays within the
    budget and delta is unspent."""
    g = dpgraph.datasets.planted_cut(600, 30, ratio=0.3, rng=2).graph
    # the local route alone: on this small dense graph auto also pools randomized response
    # (14.11), whose budget would leave the local plan without its backward pass
    res = dpgraph.max_cut(g, epsilon=4.0, delta=1e-6, rng=1, route="local")
    names = res.diagnostics["candidates"]
    assert "forward" in names and "backward" in names
    assert any(nm.startswith("balanced") for nm in names)
    assert res.diagnostics["objective"] in names
    assert math.isclose(res.ledger.spent[0], 4.0, rel_tol=1e-9) and res.ledger.spent[1] == 0
    bis = dpgraph.max_bisection(g, epsilon=4.0, delta=1e-6, rng=1, route="local")
    assert all(nm.startswith("balanced") for nm in bis.diagnostics["candidates"])
    # the same reserve for the choice: with the same rng both answers see the same release, so
    # every partition the bisection could return is in max_cut's pool
    assert np.array_equal(res.private_graph.local.candidates, bis.private_graph.local.candidates)
    sizes = sorted(map(len, bis.partition))
    assert sizes[1] - sizes[0] <= 1


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


@pytest.mark.parametrize("plan", [LocalPlan(), LocalPlan(core=10, refine_share=0.2),
                                  LocalPlan(order_spread=1.0, backward_share=0.4),
                                  LocalPlan(core=10, backward_share=0.3, refine_share=0.2),
                                  LocalPlan(order_spread=1.0, backward_share=0.2,
                                            refine_share=0.4, sweep_weights=(1, 1, 3))])
def test_ledger_total_is_the_budget_and_delta_is_unspent(plan):
    data = as_graph_data(nx.gnp_random_graph(60, 0.2, seed=1))
    led = PrivacyLedger(epsilon=2.0, delta=0.0)
    rel = release_local_sides(data, epsilon=2.0, ledger=led, rng=0, plan=plan)
    eps, dlt = led.spent
    assert math.isclose(eps, 2.0, rel_tol=1e-12) and dlt == 0.0
    passes = 1 + (plan.backward_share > 0) + (plan.refine_share > 0)
    assert rel.candidates.shape == (60, passes)
    assert set(np.unique(rel.candidates)) <= {-1.0, 1.0}
    assert np.isnan(rel.fields[rel.order[:plan.core]]).all()
    # the core keeps its sides through the backward pass
    assert (rel.candidates[rel.order[:plan.core], 0] == rel.candidates[rel.order[:plan.core],
                                                                        -1]).all() or \
        plan.refine_share > 0


def test_plan_is_a_continuous_nondecreasing_function_of_the_released_density():
    """docs/privacy.md 14.9: public n, released m^ and epsilon only; no core or sweep; the order
    spread and the backward share never decrease with epsilon and never jump."""
    assert plan_local(1000, 2000, 1.0) == LocalPlan()          # rho = 4: the plain forward pass
    plans = [plan_local(2000, 50000, e) for e in np.linspace(0.05, 8.0, 4000)]
    spread = np.array([p.order_spread for p in plans])
    share = np.array([p.backward_share for p in plans])
    assert all(p.core == 0 and p.refine_share == 0 for p in plans)
    assert (np.diff(spread) >= 0).all() and (np.diff(share) >= 0).all()
    assert np.abs(np.diff(spread)).max() < 0.02 and np.abs(np.diff(share)).max() < 0.02
    assert spread[-1] == 1.0 and share[-1] == 0.4 and share[0] == 0.0
    # a released edge count off by one edge moves the plan by a tiny amount
    a, b = plan_local(2000, 30000, 1.0), plan_local(2000, 30001, 1.0)
    assert abs(a.backward_share - b.backward_share) < 1e-4


def test_plan_sweeps_only_large_dense_graphs_and_stays_continuous():
    """docs/privacy.md 14.9: the sweeps' share is a continuous function of rho and n, zero below
    20,000 nodes or rho 100; with it the backward share gives up a fifth, so the passes' shares
    never exceed the decision budget and the sweeps' share never decreases with epsilon."""
    for n, m in [(4039, 88234), (12008, 118489), (18660, 793050), (20000, 1e6),
                 (154908, 327162)]:  # facebook, ca-hepph, dcsbm, planted-20000-100, soc-douban
        assert all(plan_local(n, m, e).refine_share == 0 for e in np.linspace(0.05, 4.0, 200))
    plans = [plan_local(200000, 5e6, e) for e in np.linspace(0.05, 8.0, 4000)]
    refine = np.array([p.refine_share for p in plans])
    back = np.array([p.backward_share for p in plans])
    assert (np.diff(refine) >= 0).all() and np.abs(np.diff(refine)).max() < 0.02
    assert np.abs(np.diff(back)).max() < 0.02 and (refine + back <= 0.6 + 1e-12).all()
    assert refine[0] == 0 and refine[-1] == pytest.approx(0.4) and back[-1] == pytest.approx(0.2)
    # continuous in n too: one node more moves the shares by a tiny amount
    a, b = plan_local(60000, 3e6, 3.0), plan_local(60001, 3e6 * 60001 / 60000, 3.0)
    assert 0 < a.refine_share and abs(a.refine_share - b.refine_share) < 1e-4
    assert plan_local(200000, 5e6, 3.0, passes_cost=True).refine_share == 0.0  # Dask: no sweeps
    assert sweep_budgets(2.0, (1, 1, 2)) == pytest.approx([0.5, 0.5, 1.0])
    for bad in [(), (1.0, 0.0), (1.0, float("nan"))]:
        with pytest.raises(ValueError, match="sweep_weights"):
            sweep_budgets(1.0, bad)


@pytest.mark.parametrize("extra", [(0, 39), (5, 6)])
def test_sweep_fields_move_by_at_most_two_in_l1(extra):
    """docs/privacy.md 14.3: for the same current sides, a sweep's fields on adjacent graphs
    differ in the changed pair's two endpoints only, by at most 1 each (L1 sensitivity 2)."""
    from dpgraph.release.routes.local import _rows_product

    G0, G1 = _pair(40, extra)
    W0, W1 = (as_graph_data(G, weight=None).weights for G in (G0, G1))
    x = np.where(np.random.default_rng(3).random(40) < 0.5, 1.0, -1.0)
    rows = np.arange(40)
    diff = np.abs(np.asarray(_rows_product(W1, rows, x)) - np.asarray(_rows_product(W0, rows, x)))
    assert set(np.flatnonzero(diff)) == set(extra)
    assert diff.sum() == pytest.approx(2.0)


def test_sweeps_join_the_domains_of_a_planted_cut():
    """Behaviour (14.3): on a planted two-block graph whose sides are right on two thirds of
    the nodes and wrong on the rest (a domain of the other sign), the sweeps of a release
    (started from those sides) recover the planted cut."""
    import dpgraph.release.routes.local as local

    planted = dpgraph.datasets.planted_cut(3000, 40, rng=2)
    data = planted.graph

    def cut_value(W, x):
        return float(W.sum() - x @ (W @ x)) / 4.0

    sigma = np.where(np.asarray(planted.partition) > 0, 1.0, -1.0)
    x = sigma.copy()
    x[np.random.default_rng(0).permutation(data.n)[: data.n // 3]] *= -1.0
    before = cut_value(data.weights, x)
    conf = np.zeros(data.n)
    for eps_k in sweep_budgets(2.0, (1, 1, 1, 3)):
        local._refine_sweep(data.weights, np.arange(data.n), x, conf,
                            batch_bounds(0, data.n), epsilon=eps_k, ledger=PrivacyLedger(),
                            rng=np.random.default_rng(1))
    best = cut_value(data.weights, sigma)
    assert best == pytest.approx(planted.planted_value)
    assert before < 0.8 * best and cut_value(data.weights, x) >= 0.99 * best


def test_plan_and_batches_are_public_functions():
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
    spent = res.ledger.spent[0]
    # all of epsilon, unless the private choice had one distinct candidate (then it says so)
    assert math.isclose(spent, 1.0, rel_tol=1e-12) or (
        spent < 1.0 and "epsilon" in res.diagnostics["unspent"])


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


@pytest.mark.parametrize("weights", [(1.0,), (1.0, 1.0, 3.0)])
def test_sweep_ledger_entry_matches_its_draws(monkeypatch, weights):
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
    release_local_sides(data, epsilon=2.0, ledger=led, rng=0,
                        plan=LocalPlan(refine_share=0.2, sweep_weights=weights))
    k = len(weights)
    sweeps = [f"local route: refinement sweep {j}/{k}" for j in range(1, k + 1)] if k > 1 else \
        ["local route: refinement sweep"]
    charged = [e.epsilon for e in led.entries if e.name in sweeps]
    eps_2 = 0.2 * 2.0 * (1.0 - local.DEGREE_SHARE)  # of the decisions' budget
    assert len(charged) == k and sum(charged) == pytest.approx(eps_2)
    for name, want in [*[(s, 2.0) for s in sweeps], ("local route: forward pass", 1.0)]:
        entry = next(e for e in led.entries if e.name == name)
        used = {(s, e, c) for n, s, e, c in draws if n == name}
        assert len(used) == 1, used  # every batch's draw uses the same parameters
        (sens, eps, changed), = used
        assert sens == want == entry.sensitivity and changed == want
        # the scale the draws use: D / eps plus the discrete sampler's slack (privacy.md 13.1)
        assert entry.noise_scale == pytest.approx(laplace_add_scale(sens, eps, changed))
        assert entry.noise_scale == pytest.approx(sens / eps, rel=2e-3)
        assert entry.epsilon == pytest.approx(eps)


def test_auto_pools_the_matrix_free_candidates_on_large_dense_graphs(monkeypatch):
    """docs/privacy.md 14.10: from the size threshold on (lowered here to keep the test small)
    and above the density ramp, the matrix-free route's candidates join the local route's
    private choice; the ledger's total is the budget; none with delta = 0 or below the ramp."""
    from dpgraph.release import screening

    monkeypatch.setattr(screening, "MATRIX_FREE_MIN_N", 500)
    g = dpgraph.datasets.planted_cut(800, 60, rng=3).graph   # rho ~ 2 * 60 * 8 / 2 = 480
    res = dpgraph.max_cut(g, epsilon=8.0, delta=1e-6, rng=2)
    # (a matrix-free candidate equal to a local one is pooled once, under the local name)
    assert res.diagnostics["routes"] == ("local", "matrix-free")
    assert any("matrix-free" in e.name for e in res.ledger.entries)
    eps, dlt = res.ledger.spent
    assert math.isclose(eps, 8.0, rel_tol=1e-9) and 0 < dlt <= 1e-6
    x = np.array([1 if res.assignment[v] else -1 for v in g.labels])
    assert dpgraph.lab.evaluate.cut_value(g, x) > 0.7 * g.m
    bis = dpgraph.max_bisection(g, epsilon=8.0, delta=1e-6, rng=2)
    assert bis.diagnostics["routes"] == ("local", "matrix-free")
    sizes = sorted(map(len, bis.partition))
    assert sizes[1] - sizes[0] <= 1
    for kw in ({"epsilon": 8.0, "delta": 0.0}, {"epsilon": 0.5, "delta": 1e-6}):
        r = dpgraph.max_cut(g, rng=2, **kw)
        assert "routes" not in r.diagnostics and r.ledger.spent[1] == 0.0
        assert not any("matrix-free" in e.name for e in r.ledger.entries)
    assert screening.matrix_free_share(800, 24000, 1.0, 1e-6) == 0.0     # rho 60: below
    assert screening.matrix_free_share(800, 24000, 8.0, 1e-6) == 0.5     # rho 480: full
    assert screening.matrix_free_share(800, 24000, 3.5, 1e-6) == 0.0     # rho 210: below
    assert 0 < screening.matrix_free_share(800, 24000, 6.0, 1e-6) < 0.5  # rho 360: on the ramp


def test_auto_pools_the_randomized_response_candidates_on_small_graphs(monkeypatch):
    """docs/privacy.md 14.11: on small graphs with a high released signal-to-noise ratio the
    randomized-response route releases at exactly ``s_rr eps_r`` and its candidates join the
    local route's choice; the ledger's total is epsilon and delta is unspent; none with
    delta = 0, below the signal ramp or above the size limit; never less at a larger epsilon; on the
    README's graph at eps 4 the answer is at least the local route's, seed by seed."""
    from dpgraph.privacy.budget import (ANSWER_ESTIMATE_SHARE, ANSWER_SELECT_SHARE,
                                        answer_side_budgets)
    from dpgraph.release import screening
    from dpgraph.solve import cut as cut_module

    share = screening.randomized_response_share
    assert share(1000, 10000, 4.0, 1e-6) == pytest.approx(0.95)  # snr 2.29, rho 80
    assert share(1000, 10000, 4.0, 0.0) == 0.0                   # pure DP asked for
    assert share(1000, 10000, 2.0, 1e-6) == 0.0                  # snr 0.74: below the ramp
    assert share(800, 19176, 4.0, 1e-6) == pytest.approx(0.95)  # G3's size: dense, in the pool
    # a larger budget never drops the candidates (planted-cut-n1000-d20 fell from 0.80 of m at
    # eps 5 to 0.72 at eps 8 when the share ramped down with the density)
    epss = np.linspace(0.5, 12.0, 500)
    assert np.all(np.diff([share(1000, 10000, e, 1e-6) for e in epss]) >= 0)
    assert share(2500, 50000, 4.0, 1e-6) == 0.0                  # above 2,000 nodes
    assert 0 < share(1000, 10000, 3.8, 1e-6) < 0.95              # snr 2.07: on the ramp
    # continuous in the released edge count across both ramps
    ms = np.linspace(8000, 20000, 2001)
    vals = np.array([share(1000, m, 4.0, 1e-6) for m in ms])
    assert np.max(np.abs(np.diff(vals))) < 0.01 and vals.max() == pytest.approx(0.95)

    released = []
    real = cut_module.release_edge_count
    monkeypatch.setattr(cut_module, "release_edge_count",
                        lambda *a, **k: released.append(real(*a, **k)) or released[-1])
    g = dpgraph.datasets.load("planted-cut-n1000-d20")
    eps = 4.0
    for seed in range(3):
        released.clear()
        res = dpgraph.max_cut(g, epsilon=eps, delta=1e-6, rng=seed)
        local = dpgraph.max_cut(g, epsilon=eps, delta=1e-6, rng=seed, route="local")
        m_hat = released[0]
        eps_now = eps - res.ledger.entries[0].epsilon
        s = share(g.n, m_hat, eps_now, 1e-6)
        assert s > 0
        eps_r = eps_now - sum(answer_side_budgets(eps, ANSWER_SELECT_SHARE,
                                                  ANSWER_ESTIMATE_SHARE, m_hat))
        rr = [e for e in res.ledger.entries if e.mechanism == "randomized-response"]
        assert len(rr) == 1 and math.isclose(rr[0].epsilon, s * eps_r, rel_tol=1e-9)
        assert res.diagnostics["routes"] == ("local", "randomized-response")
        assert math.isclose(res.ledger.spent[0], eps, rel_tol=1e-9)
        assert res.ledger.spent[1] == 0.0
        cut = dpgraph.lab.evaluate.cut_value(g, res.assignment)
        base = dpgraph.lab.evaluate.cut_value(g, local.assignment)
        # measured: 0.76-0.77 of m against the local route's 0.63-0.66; the choice's Gumbel
        # scale is ~10 edges, so 1% of m is far beyond its noise
        assert cut >= base - 0.01 * g.m
    bis = dpgraph.max_bisection(g, epsilon=eps, delta=1e-6, rng=0)
    assert bis.diagnostics["routes"] == ("local", "randomized-response")
    assert all(nm.startswith("balanced") for nm in bis.diagnostics["candidates"])
    sizes = sorted(map(len, bis.partition))
    assert sizes[1] - sizes[0] <= 1
    for kw in ({"epsilon": eps, "delta": 0.0}, {"epsilon": 2.0, "delta": 1e-6}):
        r = dpgraph.max_cut(g, rng=0, **kw)
        assert "routes" not in r.diagnostics
        assert not any(e.mechanism == "randomized-response" for e in r.ledger.entries)
    monkeypatch.setattr(screening, "DENSE_POOL_MAX_N", 500)
    r = dpgraph.max_cut(g, epsilon=eps, delta=1e-6, rng=0)
    assert "routes" not in r.diagnostics
    assert math.isclose(r.ledger.spent[0], eps, rel_tol=1e-9)


def test_pooled_solves_bound_their_tabu_moves(monkeypatch):
    """The pooled route's candidate solves (post-processing) run at most
    ``min(10 n, POOL_TABU_WORK / n)`` tabu moves per rounding; a caller's ``solver_options``
    still win. The local route's own release and the ledger are unchanged by it."""
    from dpgraph.solve import cut as cut_module

    seen = []
    real = cut_module._solve_candidates
    monkeypatch.setattr(cut_module, "_solve_candidates",
                        lambda problem, pg, names, options, gen:
                        seen.append(dict(options or {})) or real(problem, pg, names, options, gen))
    g = dpgraph.datasets.load("planted-cut-n1000-d20")
    res = dpgraph.max_cut(g, epsilon=4.0, delta=1e-6, rng=0)
    assert res.diagnostics["routes"] == ("local", "randomized-response")
    assert seen[-1]["tabu_moves"] == cut_module.pool_tabu_moves(1000) == 4000
    assert [cut_module.pool_tabu_moves(n) for n in (100, 632, 800, 2000)] == [1000, 6320, 5000,
                                                                             2000]
    mine = dpgraph.max_cut(g, epsilon=4.0, delta=1e-6, rng=0, solver_options={"tabu_moves": 7})
    assert seen[-1]["tabu_moves"] == 7
    assert [e.epsilon for e in mine.ledger.entries] == [e.epsilon for e in res.ledger.entries]


def test_bisection_balancing_keeps_early_high_degree_nodes():
    """docs/privacy.md 14.5: an early node's forward field counts few neighbours; balancing
    weighs it by half its released degree, so the hub is not the node moved."""
    from types import SimpleNamespace

    from dpgraph.solve.cut_local import _candidates

    x = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    rel = SimpleNamespace(candidates=x[:, None], fields=np.array([0.1, 1.2, 0.9, 1.1, 1.0, 1.0]),
                          degrees=np.array([100.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
                          confidence=np.ones(6))
    cands, names = _candidates("bisection", rel, ["forward"])
    assert names == ["balanced forward"]
    assert cands[:, 0].tolist() == [1.0, 1.0, -1.0, 1.0, -1.0, -1.0]  # node 2 (|f| 0.9) moved
    cands, names = _candidates("maxcut", rel, ["forward"])
    assert names == ["forward", "balanced forward"] and cands.shape == (6, 2)


def test_backward_sides_are_also_balanced_by_the_forward_confidence():
    """docs/privacy.md 14.5: after a backward pass the pool holds its sides balanced by their
    own confidence ``|f + b|`` and by the forward one ``max(|f|, d^ / 2)``: both balanced,
    each moving its own least confident nodes, and the max-cut pool holds both."""
    from types import SimpleNamespace

    from dpgraph.solve.cut_local import _candidates

    fwd = np.array([1.0, 1.0, -1.0, 1.0, -1.0, -1.0])
    back = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    rel = SimpleNamespace(candidates=np.stack([fwd, back], axis=1),
                          fields=np.array([3.0, 0.2, 1.0, 2.0, 1.0, 1.0]),
                          degrees=np.array([8.0, 1.0, 1.0, 2.0, 1.0, 1.0]),
                          confidence=np.array([0.5, 4.0, 3.0, 2.0, 1.0, 1.0]))
    rel.candidate_confidence = (np.abs(rel.fields), rel.confidence)
    cands, names = _candidates("bisection", rel, ["forward", "backward"])
    assert names == ["balanced forward", "balanced backward",
                     "balanced backward (forward confidence)"]
    assert np.all(cands.sum(axis=0) == 0)
    # own confidence moves node 0 (0.5); the forward one node 1 (max(0.2, 0.5) = 0.5)
    assert cands[:, 1].tolist() == [-1.0, 1.0, 1.0, 1.0, -1.0, -1.0]
    assert cands[:, 2].tolist() == [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]
    cut_cands, cut_names = _candidates("maxcut", rel, ["forward", "backward"])
    assert "balanced backward (forward confidence)" in cut_names
    assert any((cut_cands[:, k] == cands[:, 2]).all() for k in range(cut_cands.shape[1]))


def test_each_candidate_is_balanced_by_its_own_confidence(monkeypatch):
    """docs/privacy.md 14.5: with a backward pass and sweeps, the backward sides are balanced by
    the backward pass's confidence ``|f + k b|`` (not the last sweep's ``|g|``, which the sweeps
    overwrite), the refined sides by the last sweep's and the forward sides by ``max(|f|, d^ /
    2)``: the pool equals ``balance_sides`` of each candidate with the confidence its own pass
    returned, captured from the passes of one release."""
    import dpgraph.release.routes.local as local_module
    from dpgraph.private_input import input_graph
    from dpgraph.solve.cut_local import BALANCE_DEGREE_WEIGHT, _candidates

    seen = {}

    def backward(*args, **kwargs):
        y, conf = backward_pass(*args, **kwargs)
        seen["backward"] = conf.copy()
        return y, conf

    sweep = local_module._refine_sweep

    def refine(weights, order, x, confidence, *args, **kwargs):
        sweep(weights, order, x, confidence, *args, **kwargs)
        seen["sweep"] = confidence.copy()

    monkeypatch.setattr(local_module, "backward_pass", backward)
    monkeypatch.setattr(local_module, "_refine_sweep", refine)
    g = nx.bipartite.random_graph(100, 200, 0.1, seed=4)  # best cut 100 / 200: unbalanced
    data = input_graph(g, weight=None)
    plan = LocalPlan(order_spread=1.0, backward_share=0.3, refine_share=0.3,
                     sweep_weights=(1.0, 1.0, 2.0), first_batch=4, batch_growth=0.3)
    rel = local_module.release_local_sides(data, epsilon=2.0, ledger=PrivacyLedger(), rng=5,
                                           plan=plan)
    fwd, back, refined = rel.candidates.T
    assert abs(back.sum()) > 10 and abs(refined.sum()) > 10  # balancing moves many nodes
    assert not np.array_equal(balance_sides(back, seen["backward"]),
                              balance_sides(back, seen["sweep"]))  # the two confidences differ
    conf_fwd = np.maximum(np.abs(rel.fields), BALANCE_DEGREE_WEIGHT * np.maximum(rel.degrees, 0))
    cands, names = _candidates("bisection", rel, ["forward", "backward", "refined"])
    pool = dict(zip(names, cands.T))
    assert np.array_equal(pool["balanced forward"], balance_sides(fwd, conf_fwd))
    assert np.array_equal(pool["balanced backward"], balance_sides(back, seen["backward"]))
    assert np.array_equal(pool["balanced refined"], balance_sides(refined, seen["sweep"]))
    assert np.array_equal(rel.confidence, seen["sweep"])  # the last pass's, as before


def test_backward_pass_weighs_its_field_by_the_released_signal_share():
    """docs/privacy.md 14.9: where the released backward fields carry no signal (no pair to a
    later node: pure noise), their weight falls to about 0 and the nodes keep the decisions of
    their forward fields; the unweighted sum would follow the noise (at eps 0.2 and |f| = 3 a
    quarter of the nodes). Where they carry signal the weight stays near 1."""
    from dpgraph.privacy.batches import signal_share
    from dpgraph.privacy.noise import laplace_add_variance

    n = 2000
    order = np.arange(n)
    bounds = batch_bounds(0, n, first=1, growth=0.01)
    gen = np.random.default_rng(3)
    x = np.where(gen.random(n) < 0.5, 1.0, -1.0)
    earlier = -3.0 * x  # forward fields that chose x
    import scipy.sparse as sp

    empty = sp.csr_array((n, n))
    y, conf = backward_pass(empty, order, x.copy(), earlier, bounds, epsilon=0.2,
                            ledger=PrivacyLedger(), rng=np.random.default_rng(4))
    assert np.mean(y == x) > 0.95
    # the same release without the weight (the noise alone, as released) flips about e^-0.6 / 2
    b = np.full(n, np.nan)
    backward_pass(empty, order, x.copy(), earlier, bounds, epsilon=0.2, ledger=PrivacyLedger(),
                  rng=np.random.default_rng(4), released=b)
    assert 0.2 < np.mean(-np.sign(earlier + b) != x) < 0.33
    # the weight: the share of the second moment above the noise's variance
    v = laplace_add_variance(1.0, 0.2)
    assert math.isclose(v, 2.0 / 0.2 ** 2, rel_tol=0.02)
    assert signal_share(v, v) == 0.0 and signal_share(4.0 * v, v) == 0.75


def test_local_release_edge_count_is_never_negative():
    """The local route's released edge count (noisy, and small on a small graph) is clamped at
    0 as the other routes' are, so an export aiming at ``round(pg.edge_count)`` edges never asks
    for a negative number (post-processing)."""
    import networkx as nx

    import dpgraph

    G = nx.karate_club_graph()
    counts = [dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None, rng=s).private_graph
              for s in range(20)]
    assert min(pg.edge_count for pg in counts) >= 0.0
    assert min(float(pg.local.edge_count) for pg in counts) < 0.0  # the case is reached


def test_local_route_prices_a_core_only_where_the_plan_has_one(monkeypatch):
    """The route's public entries have no core, so its memory estimate charges none; an
    explicit LocalPlan(core=k) is priced (48 bytes per core pair) before anything is spent."""
    import networkx as nx

    from dpgraph.memory import InsufficientMemoryError
    from dpgraph.private_input import input_graph
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes.local import LocalPlan, estimated_memory, release_local_sides

    assert estimated_memory(5000, 0, 2) == 320 * 5000  # 192 MB of a core were charged
    data = input_graph(nx.gnm_random_graph(3000, 6000, seed=0), weight=None)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "100M")
    led = PrivacyLedger(epsilon=1, delta=0)
    with pytest.raises(InsufficientMemoryError, match="core of 3,000 nodes.*at most 1,4"):
        release_local_sides(data, epsilon=1.0, ledger=led, rng=0, plan=LocalPlan(core=3000))
    assert led.spent == (0.0, 0.0)
    rel = release_local_sides(data, epsilon=1.0, ledger=led, rng=0)  # no core: it fits
    assert rel.candidates.shape[0] == 3000
