"""Every ledger agrees with Google's ``dp-accounting`` (docs/privacy.md 12): each charge with a
``dp_accounting`` event is, by the library's privacy-loss-distribution accountant, exactly the
(epsilon, delta) the ledger records for it, and every entry point's total, recomputed by the
accountant, never exceeds the ledger's."""

import math

import dp_accounting as dpa
import numpy as np
import pytest
from dp_accounting.pld import PLDAccountant

import dpgraph
from dpgraph.datasets import planted_cut
from dpgraph.mechanisms.sets import PSDCone, Simplex
from dpgraph.privacy import PrivacyLedger, analytic_gaussian_sigma
from dpgraph.privacy.ledger import PLD_TAIL

REL = 2e-3  # the PLD accountant's discretization (value interval 1e-4), pessimistic


def _single_event_epsilon(entry) -> float:
    if type(entry.dp_event).__name__ == "ZCDpEvent":  # the discrete Gaussian: RDP accountant
        from dp_accounting.rdp import RdpAccountant

        acc = RdpAccountant([1 + 10 ** (k / 200) for k in range(-600, 601)])
        acc.compose(entry.dp_event)
        return acc.get_epsilon(entry.delta)
    rr = type(entry.dp_event).__name__ == "RandomizedResponseDpEvent"
    rel = dpa.NeighboringRelation.REPLACE_ONE if rr else dpa.NeighboringRelation.ADD_OR_REMOVE_ONE
    acc = PLDAccountant(rel)
    acc.compose(entry.dp_event)
    return acc.get_epsilon(max(entry.delta, PLD_TAIL))


def check_against_accountant(ledger: PrivacyLedger) -> int:
    """Each evented charge equals the accountant's epsilon; the accountant's total is at most
    the ledger's. Returns the number of evented charges."""
    n = 0
    for e in ledger.entries:
        if e.dp_event is None:
            # a zero charge: the local route's forward pass, in parallel with its core's
            # randomized response (docs/privacy.md 14.2)
            assert e.mechanism in ("ptr-failure", "reserved", "group privacy",
                                   "jl-gordon-failure") or e.epsilon == 0.0, e
            continue
        n += 1
        if math.isinf(e.epsilon) or e.epsilon > 50:
            continue
        assert _single_event_epsilon(e) == pytest.approx(e.epsilon, rel=REL, abs=1e-4), e
    eps, dlt = ledger.spent
    eps_acc, dlt_acc = ledger.accountant_spent()
    assert eps_acc <= eps * (1 + REL) + 1e-4, (eps_acc, eps)
    assert dlt_acc <= dlt + 2 * PLD_TAIL
    return n


def test_events_match_their_mechanisms():
    led = PrivacyLedger(epsilon=10, delta=1e-5)
    s = analytic_gaussian_sigma(1.0, 1e-6, 2.0)
    led.charge("g", mechanism="gaussian", epsilon=1.0, delta=1e-6, sensitivity=2.0, noise_scale=s)
    led.charge("l", mechanism="laplace", epsilon=0.5, sensitivity=3.0, noise_scale=6.0)
    led.charge("rr", mechanism="randomized-response", epsilon=0.7, sensitivity=1.0,
               noise_scale=1 / (1 + math.exp(0.7)))
    led.charge("t", mechanism="ptr-failure", epsilon=0.0, delta=1e-7)
    kinds = [type(e.dp_event).__name__ if e.dp_event else None for e in led.entries]
    assert kinds == ["GaussianDpEvent", "LaplaceDpEvent", "RandomizedResponseDpEvent", None]
    assert led.entries[0].dp_event.noise_multiplier == pytest.approx(s / 2.0)
    assert check_against_accountant(led) == 3
    # a ledger that under-reports is caught: the accountant's total exceeds it
    bad = PrivacyLedger()
    bad.charge("g", mechanism="gaussian", epsilon=0.5, delta=1e-6, sensitivity=2.0, noise_scale=s)
    with pytest.raises(AssertionError):
        check_against_accountant(bad)
    assert "dp_event" in led.to_dict()["entries"][0]


def test_gdp_ledger_is_the_exact_gaussian_composition():
    from dpgraph.privacy.calibration import gdp_epsilon

    led = PrivacyLedger(epsilon=10.0, delta=1e-6, accounting="gdp")
    sig = [8.0, 10.0, 12.0]
    for k, s in enumerate(sig):  # each charge: what its own Gaussian guarantees at delta / 3
        led.charge(f"g{k}", mechanism="gaussian", epsilon=gdp_epsilon(1 / s, 1e-6 / 3),
                   delta=1e-6 / 3, sensitivity=1.0, noise_scale=s)
    mu = math.sqrt(sum(1 / s ** 2 for s in sig))
    # independent: the same composition by the accountant, one Gaussian of multiplier 1 / mu
    acc = PLDAccountant()
    acc.compose(dpa.GaussianDpEvent(1 / mu))
    assert led.spent[0] == pytest.approx(acc.get_epsilon(1e-6), rel=REL)
    assert led.spent[0] < 0.8 * math.fsum(e.epsilon for e in led.entries)  # tighter than basic


@pytest.mark.parametrize("route", ["randomized-response", "pca", "matrix-free"])
def test_privatize_routes_agree_with_the_accountant(route):
    G = planted_cut(300, 40.0, rng=0).graph
    pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rank=2, rng=0, route=route)
    assert check_against_accountant(pg.ledger) >= 1
    if route == "matrix-free":  # one charge: the composition, mu-GDP with mu from (2, 1e-6)
        (e,) = pg.ledger.entries
        assert e.dp_event.noise_multiplier == pytest.approx(analytic_gaussian_sigma(2.0, 1e-6))
        check_against_accountant(pg.diagnostics["composition_ledger"])


def test_solvers_agree_with_the_accountant():
    G = planted_cut(200, 16.0, rng=0).graph
    for fn in (dpgraph.max_cut, dpgraph.max_bisection):
        check_against_accountant(fn(G, epsilon=2.0, delta=1e-6, rng=0).ledger)
    check_against_accountant(dpgraph.max_cut(G, epsilon=2.0, delta=1e-6, rng=0,
                                             route="matrix-free").ledger)
    rng = np.random.default_rng(0)
    cons = [(i, j, {(a, b) for a in range(3) for b in range(3) if a != b}, 1.0)
            for i in range(30) for j in range(i + 1, 30) if rng.random() < 0.3]
    inst = dpgraph.CSPInstance(30, 3, cons)
    res = dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rank=2, rng=1, relation_size=6,
                           privatize_options={"route": "randomized-response"})
    check_against_accountant(res.ledger)
    check_against_accountant(res.private_graph.ledger)
    check_against_accountant(dpgraph.max_2csp(inst, epsilon=2.0, delta=0, rng=1).ledger)
    # the local route's default plan (with a backward pass), and a plan with a core, a backward
    # pass and a sweep (a zero charge in parallel with the core)
    dense = planted_cut(300, 60.0, rng=0).graph
    # route="local": auto would also pool randomized response on this small dense graph (14.11)
    res = dpgraph.max_cut(dense, epsilon=4.0, delta=1e-6, rng=0, route="local")
    assert res.diagnostics["backward_share"] > 0
    check_against_accountant(res.ledger)
    from dpgraph.release.routes.local import LocalPlan, release_local_sides

    led = PrivacyLedger(epsilon=4.0)
    release_local_sides(dense, epsilon=4.0, ledger=led, rng=0,
                        plan=LocalPlan(core=100, backward_share=0.3, refine_share=0.2))
    check_against_accountant(led)


def test_synthetic_and_mechanisms_agree_with_the_accountant():
    G = planted_cut(200, 16.0, rng=0).graph
    check_against_accountant(dpgraph.release_synthetic(G, epsilon=1.0, rng=0).ledger)
    rng = np.random.default_rng(0)
    x = np.full(50, 1 / 50)
    check_against_accountant(dpgraph.perturb_and_project(
        x, Simplex(1.0), sensitivity=0.1, epsilon=1.0, delta=1e-6, rng=1).ledger)
    V = rng.standard_normal((40, 5))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    check_against_accountant(dpgraph.private_cosine_similarities(
        V, epsilon=1.0, delta=1e-6, rng=1).ledger)
    X = (rng.random((500, 5)) < 0.4).astype(float)
    check_against_accountant(dpgraph.kway_marginals(X, 2, epsilon=1.0, delta=1e-6, rng=1).ledger)
    check_against_accountant(dpgraph.jl_two_way_marginals(
        X, epsilon=1.0, delta=1e-6, jl_dim=20, rng=1).ledger)
    check_against_accountant(dpgraph.jl_second_moment(
        X / math.sqrt(5), epsilon=1.0, jl_dim=20, noise="knorm", sensitivity_bound="operator",
        rng=1).ledger)
    check_against_accountant(dpgraph.private_second_moment(
        X / math.sqrt(5), epsilon=1.0, delta=1e-6, rng=1).ledger)
    M = np.asarray(dpgraph.as_graph_data(G).weights.todense())
    check_against_accountant(dpgraph.private_low_rank(
        M, 2, epsilon=2.0, delta=1e-6, adjacency=dpgraph.EntryAdjacency(max_abs=1.0, symmetric=True),
        rng=0).ledger)


def test_ledger_rho_covers_every_charge_or_says_none():
    """``rho`` is the run's zCDP total: pure charges count ``epsilon^2 / 2`` (it left them out,
    so a run mixing Laplace and randomized response reported only the latter), and a charge
    with a delta and no rho makes it None."""
    from dpgraph.privacy import PrivacyLedger

    led = PrivacyLedger(epsilon=2.0, delta=1e-6)
    led.charge("laplace", mechanism="laplace", epsilon=0.5)
    led.charge("gaussian", mechanism="gaussian", epsilon=1.0, delta=1e-7, rho=0.1)
    assert led.rho == pytest.approx(0.5 * 0.5 ** 2 + 0.1)
    assert led.to_dict()["spent"]["rho"] == pytest.approx(0.225)
    led.charge("approximate", mechanism="other", epsilon=0.1, delta=1e-7)
    assert led.rho is None


def test_ledger_entries_take_dp_event_and_build_a_spec_on_first_read():
    """A charge holds an EventSpec until its event is read (no dp_accounting import before);
    ``LedgerEntry(..., dp_event=...)`` and ``dataclasses.replace`` take the field as before."""
    import dataclasses

    from dpgraph.privacy.ledger import EventSpec, LedgerEntry

    spec = EventSpec.of("GaussianDpEvent", noise_multiplier=2.0)
    e = LedgerEntry(name="x", mechanism="gaussian", epsilon=1.0, delta=1e-6, dp_event=spec)
    assert e.event is spec and e.event_kind == "GaussianDpEvent" and e.gdp_mu == 0.5
    assert type(e.dp_event).__name__ == "GaussianDpEvent" and e.dp_event.noise_multiplier == 2.0
    assert e.event is e.dp_event  # built once
    assert dataclasses.replace(e, dp_event=None).dp_event is None
    assert LedgerEntry(name="y", mechanism="reserved", epsilon=0.0, delta=0.0).dp_event is None
