"""More refusals that public values decide, before any charge or draw (docs/privacy.md 11.1).

1. ``release_synthetic``'s community step (the label passes, or the refinement's super-graph
   and rounds) and its block model with communities (``2 n + k (k - 1) / 2`` coordinates, ``k``
   up to the community step's label bound) could be refused by the exact Laplace sampler's
   range only after the edge count (and the passes) had been drawn: the up-front check now
   covers them at their worst case at public ``n``.
2. The exact discrete Gaussian sampler's range: refused naming the parameter and a value that
   works (it crashed in the zCDP conversion's root-finding at a tiny epsilon and delta), and
   checkable up front (:func:`dpgraph.privacy.noise.check_gaussian_shares`).
"""

from __future__ import annotations

import warnings

import networkx as nx
import pytest

import dpgraph
from dpgraph.privacy import noise
from dpgraph.privacy.budget import COMMUNITY_SHARE, edge_count_share
from dpgraph.privacy.ledger import PrivacyLedger

KARATE = nx.karate_club_graph()




def _suggested_epsilon(message: str) -> float:
    tail = message.split("use a larger epsilon: epsilon >= ")[1]
    return float(tail.split(",")[0].split(" ")[0].rstrip("."))


def _synthetic(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        return dpgraph.release_synthetic(KARATE, weight=None, rng=0, **kw)


# -- 1. release_synthetic's community step and block model --------------------------------------

def _grouped_model_edge(factor: float) -> float:
    """``factor`` times the least epsilon at which the old check's ``2 n + 1`` coordinates of
    karate's block model with communities fit (no degree classes, no clustering)."""
    n = KARATE.number_of_nodes()
    share = 1.0 - edge_count_share(n) - COMMUNITY_SHARE
    return factor * noise.discrete_laplace_min_epsilon(2 * n + 1) / share


_PLAIN = dict(clustering_share=0.0, bin_share=0.0, communities="private")

COMMUNITY_CASES = [
    # the passes' share, (community_share - side_share) / 2, below the sampler's range: the
    # edge count was drawn and both passes charged before the refusal
    (dict(epsilon=1.0, community_share=0.5, side_share=0.5 - 1e-13, communities="private"),
     "the label passes"),
    # the refinement's super-graph at init_share of the communities' share
    (dict(epsilon=1.0, community_method="refine", init_labels=0, init_share=1e-13,
          communities="private"), "the super-graph's counts"),
    # the refinement's rounds (sequential batches: 2 coordinates; batches=1: n k)
    (dict(epsilon=1.0, community_method="refine", init_labels=4, rounds=10**12,
          communities="private"), "each of the 1,000,000,000,000 refinement rounds"),
    (dict(epsilon=1.0, community_method="refine", init_labels=4, rounds=10**12, batches=1,
          communities="private"), "each of the 1,000,000,000,000 refinement rounds"),
    # the block model with k communities has 2 n + k (k - 1) / 2 coordinates, not 2 n + 1: it
    # was refused after the edge count and the communities were drawn
    (dict(epsilon=_grouped_model_edge(1.01), **_PLAIN), "the block model with communities"),
    (dict(epsilon=_grouped_model_edge(2.0), community_method="refine", init_labels=34,
          rounds=1, **_PLAIN), "the block model with communities"),
]


@pytest.mark.parametrize("kw, what", COMMUNITY_CASES)
def test_release_synthetic_community_step_refused_before_the_edge_count(kw, what, spend_spy):
    ledger = PrivacyLedger()
    with pytest.raises(ValueError, match=rf"release_synthetic: at epsilon=.*, {what}.*"
                                         r"Refused before anything was charged or drawn"):
        _synthetic(ledger=ledger, **kw)
    assert spend_spy == {"charge": 0, "draw": 0}
    assert ledger.spent == (0, 0) and not ledger.entries


def test_release_synthetic_community_refusal_names_an_epsilon_that_runs():
    kw = dict(community_share=0.5, side_share=0.5 - 1e-13, communities="private")
    with pytest.raises(ValueError, match="the label passes") as err:
        _synthetic(epsilon=1.0, **kw)
    eps = _suggested_epsilon(str(err.value))
    rel = _synthetic(epsilon=eps, **kw)
    assert rel.diagnostics["communities"] >= 1 and rel.ledger.spent[0] == pytest.approx(eps)


def test_release_synthetic_grouped_model_refusal_advises_one_block():
    with pytest.raises(ValueError, match=r"communities='none' \(one block\)"):
        _synthetic(epsilon=_grouped_model_edge(1.01), **_PLAIN)
    rel = _synthetic(epsilon=_grouped_model_edge(1.01), clustering_share=0.0, bin_share=0.0,
                     communities="none")
    assert rel.diagnostics["communities"] == 1


# -- 2. the discrete Gaussian sampler's range ---------------------------------------------------

def test_discrete_gaussian_out_of_range_names_an_epsilon_that_works(spend_spy):
    """A scalar Gaussian release (discrete by default) at a tiny epsilon and delta: the zCDP
    conversion's root-finding failed ("f(a) and f(b) must have different signs"), a message that
    names nothing; now the range refusal names epsilon and the least one that works, before the
    charge and the draw."""
    ledger = PrivacyLedger()
    with pytest.raises(ValueError, match=r"epsilon=1e-13, delta=1e-20: outside the discrete "
                                         r"Gaussian's range .* epsilon >= \S+ at this delta"
                       ) as err:
        noise.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1e-13, delta=1e-20,
                                 ledger=ledger, name="x", rng=0)
    assert spend_spy == {"charge": 0, "draw": 0} and not ledger.entries
    eps = _suggested_epsilon(str(err.value))
    assert noise.discrete_gaussian_in_range(1.0, eps, 1e-20, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noise.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=eps, delta=1e-20,
                                 ledger=PrivacyLedger(), name="x", rng=0)


def test_discrete_gaussian_noise_out_of_range_names_a_rho_that_works(spend_spy):
    """The matrix-free route's draws (calibrated to a zCDP share): the refusal names rho."""
    with pytest.raises(ValueError, match=r"rho=1e-20: outside the discrete Gaussian's range "
                                         r"for 2 changed coordinates.* rho >= ") as err:
        noise.discrete_gaussian_noise(1.0, sensitivity=1.0, rho=1e-20, changed=2,
                                      ledger=PrivacyLedger(), rng=0)
    assert spend_spy["draw"] == 0
    rho = float(str(err.value).split("rho >= ")[1].split(" ")[0])
    assert noise.discrete_gaussian_in_range(1.0, 1.0, 0.5, 2, rho=rho)
    assert not noise.discrete_gaussian_in_range(1.0, 1.0, 0.5, 2, rho=rho / 4)


@pytest.mark.parametrize("delta, changed", [(1e-6, 1), (1e-6, 100), (1e-20, 2), (0.1, 1000)])
def test_min_epsilon_is_the_edge_of_the_discrete_gaussian_range(delta, changed):
    e = noise.discrete_gaussian_min_epsilon(delta, changed)
    assert noise.discrete_gaussian_in_range(1.0, e, delta, changed)
    assert noise.discrete_gaussian_in_range(7.5, e * (1 + 1e-9), delta, changed)  # any sensitivity
    assert not noise.discrete_gaussian_in_range(1.0, e * (1 - 1e-6), delta, changed)
    noise.discrete_gaussian_parameters(2.0, e, delta, changed)
    with pytest.raises(ValueError, match="outside the discrete Gaussian's range"):
        noise.discrete_gaussian_parameters(2.0, e / 2, delta, changed)


def test_check_gaussian_shares_names_the_share_and_an_epsilon_that_works(spend_spy):
    releases = [("the degrees", 0.05, 2), ("the tail", 1e-3, 1)]
    noise.check_gaussian_shares(1.0, 1e-6, releases, caller="f")
    with pytest.raises(ValueError, match=r"f: at epsilon=1e-06, delta=1e-06, the degrees would "
                                         r"get 0.05 of them .*Refused before anything") as err:
        noise.check_gaussian_shares(1e-6, 1e-6, releases, caller="f", advice=", or not")
    assert ", or not. Refused" in str(err.value)
    eps = _suggested_epsilon(str(err.value))
    noise.check_gaussian_shares(eps, 1e-6, releases, caller="f")  # every release fits there
    for _, share, changed in releases:
        assert noise.discrete_gaussian_in_range(1.0, share * eps, share * 1e-6, changed)
    assert spend_spy == {"charge": 0, "draw": 0}


def test_privatize_pca_tiny_tail_share_is_a_range_refusal_not_a_crash():
    """The PCA route's tail singular value (a scalar: discrete) at ``tail_share`` of (epsilon,
    delta) failed in the zCDP conversion ("f(a) and f(b) must have different signs") after the
    degrees and the gap test were drawn; it is a range refusal before anything is drawn, naming
    the caller's epsilon that works."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"tail singular value \(tail_share\).*discrete "
                                             r"Gaussian sampler's range.*epsilon >= "):
            dpgraph.privatize(KARATE, epsilon=1.0, delta=1e-6, route="pca", tail_share=1e-13,
                              weight=None, rng=0, synthetic_share=None)


@pytest.mark.parametrize("route, extra", [("pca", {}), ("auto", {"fallback": "none"})])
def test_privatize_pca_range_advice_is_in_the_callers_epsilon(route, extra):
    """The advice was in the route's share of epsilon: privatize(epsilon=1e-4, delta=1e-12,
    route='pca') advised 8.81e-05, which was refused again. The epsilon it names now works, and
    route='auto' without screening (which takes the PCA route on small graphs) is checked too:
    it charged the degrees and the gap test before the refusal."""
    import re

    kw = dict(delta=1e-12, route=route, weight=None, rng=0, **extra)
    ledger = dpgraph.PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="epsilon >= ") as err:
            dpgraph.privatize(KARATE, epsilon=1e-4, ledger=ledger, **kw)
        assert ledger.spent == (0, 0)
        need = float(re.search(r"epsilon >= ([0-9.e+-]+)", str(err.value)).group(1))
        pg = dpgraph.privatize(KARATE, epsilon=need, **kw)
    assert 0 < pg.ledger.spent[0] <= need * (1 + 1e-9)  # it runs (auto may leave some unspent)


# -- the discrete Gaussian releases of privatize's pca and matrix-free routes
def _refused_with_ledger(call, match):
    ledger = dpgraph.PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=match):
            call(ledger)
    assert ledger.spent == (0, 0) and not ledger.entries


@pytest.mark.parametrize("epsilon, delta", [(1e-6, 1e-12), (1e-5, 1e-9)])
def test_matrix_free_discrete_noise_out_of_range_refused_before_the_charge(epsilon, delta):
    """The route charged its whole (epsilon, delta) and drew its degrees before a draw was
    refused by the sampler's range."""
    _refused_with_ledger(lambda led: dpgraph.privatize(
        KARATE, epsilon=epsilon, delta=delta, route="matrix-free", weight=None, rng=0,
        ledger=led, synthetic_share=None, matrix_free_options={"noise": "discrete"}),
        r"matrix-free route's .* discrete Gaussian sampler's range.*Refused before")


def test_pca_route_tiny_tail_share_refused_before_the_degrees():
    """The degrees, the gap test and the fallback were drawn before the tail singular value
    (a scalar: discrete) failed."""
    _refused_with_ledger(lambda led: dpgraph.privatize(
        KARATE, epsilon=1.0, delta=1e-6, route="pca", tail_share=1e-13, weight=None, rng=0,
        ledger=led, synthetic_share=None),
        r"privatize: .*tail singular value \(tail_share\).*epsilon >= ")


def test_matrix_free_discrete_noise_still_runs_at_usual_parameters():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(KARATE, epsilon=1.0, delta=1e-6, route="matrix-free", weight=None,
                               rng=0, synthetic_share=None,
                               matrix_free_options={"noise": "discrete"})
    assert pg.diagnostics["route"] == "matrix-free"


@pytest.mark.parametrize("route", ["pca", "matrix-free"])
@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0, 10.0])
def test_discrete_gaussian_range_checks_pass_ordinary_calls(route, epsilon):
    """The new up-front checks refuse none of the usual calls (epsilon 0.01-10, delta 1e-6)."""
    opts = {"matrix_free_options": {"noise": "discrete"}} if route == "matrix-free" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(KARATE, epsilon=epsilon, delta=1e-6, route=route, weight=None,
                               rng=0, synthetic_share=None, **opts)
    assert pg.ledger.spent[0] == pytest.approx(epsilon)


def test_max_cut_matrix_free_discrete_range_refused_before_the_screening_count():
    """max_cut's own precheck of the matrix-free route left out its discrete noise's range:
    the screening count was charged, then the route refused."""
    _refused_with_ledger(lambda led: dpgraph.max_cut(
        KARATE, epsilon=1e-5, delta=1e-10, route="matrix-free", weight=None, rng=0, ledger=led,
        privatize_options={"matrix_free_options": {"noise": "discrete"}}),
        r"matrix-free route's .* discrete Gaussian sampler's range.*Refused before")


def test_discrete_gaussian_parameters_refuse_a_bad_epsilon():
    """The range fallback caught check_epsilon's refusal too: epsilon=True calibrated noise."""
    from dpgraph.privacy.validation import InvalidParameterError

    for bad in (True, "1", float("nan")):
        with pytest.raises(InvalidParameterError):
            noise.discrete_gaussian_parameters(1.0, bad, 1e-6, 1)


@pytest.mark.parametrize("options", [{"bogus": 1}, {"split": "x"}, {"symmetrize": "yes"},
                                     {"which": "top"}, "split"])
def test_pca_options_are_refused_before_the_degrees(options):
    """``pca_options`` went straight into ``private_subspace``, which refused a bad key or
    value only after the PCA route had charged and drawn the degrees (a running ledger kept
    eps 0.035 spent); they are checked with the other options, before anything is drawn."""
    import networkx as nx

    import dpgraph
    from dpgraph.privacy import PrivacyLedger

    led = PrivacyLedger(epsilon=2.0, delta=1e-5)
    G = nx.Graph(nx.karate_club_graph().edges())
    with pytest.raises((ValueError, TypeError), match="pca_options"):
        dpgraph.privatize(G, epsilon=1.0, delta=1e-6, route="pca", pca_options=options,
                          ledger=led)
    assert led.spent == (0.0, 0.0) and not led.entries


@pytest.mark.parametrize("call", [
    lambda G, led: __import__("dpgraph").max_cut(
        G, epsilon=1.0, delta=1e-6, route="pca", candidates="unbiased", ledger=led),
    lambda G, led: __import__("dpgraph").max_cut(
        G, epsilon=1.0, delta=1e-6, route="matrix-free", candidates="posterior-degree",
        ledger=led),
    lambda G, led: __import__("dpgraph").max_2csp(
        __import__("dpgraph").engine.max_k_cut_instance(G, 3), epsilon=8.0, delta=1e-4,
        privatize_options={"route": "pca"}, candidates="posterior-block", ledger=led),
])
def test_objectives_an_explicit_route_never_offers_are_refused_before_spending(call):
    """An objective that the requested route's release never offers (the PCA route offers
    'synthetic' only, the matrix-free route 'low-rank') was refused after the release had
    spent the budget; the route's declared objectives (RouteSpec.objectives) refuse it
    first."""
    import networkx as nx

    from dpgraph.privacy import PrivacyLedger

    led = PrivacyLedger(epsilon=50.0, delta=1e-3)
    with pytest.raises(ValueError, match="refused before anything is spent"):
        call(nx.Graph(nx.karate_club_graph().edges()), led)
    assert led.spent == (0.0, 0.0) and not led.entries


def test_max_2csp_dense_refusals_of_privatize_come_before_the_total_weight():
    """max_2csp's PCA branch at a tiny epsilon: privatize refused the label graph's release (a
    share below the discrete samplers' range) after the total constraint weight had been
    drawn; the same refusal now runs on a placeholder of the public size first."""
    import dpgraph
    from dpgraph.engine import CSPInstance
    from dpgraph.privacy import PrivacyLedger

    differ = {(a, b) for a in range(3) for b in range(3) if a != b}
    inst = CSPInstance(6, 3, [(i, (i + 1) % 6, differ, 1.0) for i in range(6)])
    led = PrivacyLedger(epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="below the exact discrete"):
        dpgraph.max_2csp(inst, epsilon=3e-4, delta=1e-6, route="pca", relation_size=9,
                         ledger=led)
    assert led.spent == (0.0, 0.0) and not led.entries


def test_max_2csp_memory_refusals_name_no_private_size(monkeypatch):
    """The label-extended graph's size follows the private constraints: where memory runs out
    between the public check and the build, the build's refusal named the number of allowed
    label pairs (after the total weight had been spent, on the local branch). It now names no
    size, and the local branch builds the graph before its first release."""
    import dpgraph
    from dpgraph.engine import CSPInstance
    from dpgraph.memory import InsufficientMemoryError
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.solve import csp

    differ = {(a, b) for a in range(3) for b in range(3) if a != b}
    inst = CSPInstance(40, 3, [(i, (i + 1) % 40, differ, 1.0) for i in range(40)])
    for check in ("_check_local_memory", "_check_label_graph_fits"):  # memory shrank after
        monkeypatch.setattr(csp, check, lambda instance: None)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1K")
    led = PrivacyLedger(epsilon=2.0, delta=0.0)
    with pytest.raises(InsufficientMemoryError) as info:
        dpgraph.max_2csp(inst, epsilon=1.0, delta=0.0, ledger=led)
    text = str(info.value)
    assert "allowed label pairs" not in text and f"{inst.label_pairs:,}" not in text
    assert "none is printed" in text and "KiB" not in text.split(" in the ")[0]
    assert led.spent == (0.0, 0.0)
