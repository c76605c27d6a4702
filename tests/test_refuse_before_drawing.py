"""Refusals that public values decide come before any charge or draw (docs/privacy.md 11.1):
each call below used to spend part of its budget (the screening count, randomized response,
the whole Gaussian release ...) and then refuse. Each is run with a running ledger, which must
show nothing spent after the refusal."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.mechanisms.sets import Box, PSDCone, SpectralBall
from dpgraph.privacy.noise import (check_laplace_shares, discrete_laplace_in_range,
                                   discrete_laplace_min_epsilon, discrete_laplace_parameters)

KARATE = nx.karate_club_graph()


def _refused(call, exc, match):
    ledger = dpgraph.PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=match):
            call(ledger)
    assert ledger.spent == (0, 0) and not ledger.entries
    return ledger


# -- the sampler's range, public arithmetic ------------------------------------------------------

@pytest.mark.parametrize("changed", [1, 2, 68, 136, 10**6])
def test_min_epsilon_is_the_edge_of_the_discrete_laplace_range(changed):
    e = discrete_laplace_min_epsilon(changed)
    assert discrete_laplace_in_range(1.0, e, changed)
    assert discrete_laplace_in_range(7.5, e * (1 + 1e-9), changed)  # any sensitivity
    assert not discrete_laplace_in_range(1.0, e * (1 - 1e-9), changed)
    discrete_laplace_parameters(2.0, e, changed)
    with pytest.raises(ValueError, match="outside the discrete Laplace's range"):
        discrete_laplace_parameters(2.0, e / 2, changed)


def _suggested_epsilon(message: str) -> float:
    tail = message.split("use a larger epsilon: epsilon >= ")[1]
    return float(tail.split(",")[0].split(" ")[0].rstrip("."))


def test_check_laplace_shares_names_the_share_and_an_epsilon_that_works():
    check_laplace_shares(1.0, [("a", 0.5, 1), ("b", 0.0, 10**9)], caller="f")
    with pytest.raises(ValueError, match=r"f: at epsilon=1e-12, b would get 0.5") as err:
        check_laplace_shares(1e-12, [("a", 0.9, 1), ("b", 0.5, 2)], caller="f")
    eps = _suggested_epsilon(str(err.value))  # 2 coordinates need 1.12e-12: b needs 2.25e-12
    assert discrete_laplace_in_range(1.0, 0.5 * eps, 2) and eps < 1.01 * 2 * 1.1240099e-12
    check_laplace_shares(eps, [("a", 0.9, 1), ("b", 0.5, 2)], caller="f")


# -- case 1: max_cut / max_bisection, matrix-free route, a delta too large ----------------------

@pytest.mark.parametrize("solve", [dpgraph.max_cut, dpgraph.max_bisection])
@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.5), (1e-9, 1e-6)])
def test_matrix_free_itemization_refused_before_the_screening_count(solve, epsilon, delta):
    _refused(lambda led: solve(KARATE, epsilon=epsilon, delta=delta, weight=None,
                               route="matrix-free", rng=0, ledger=led),
             ValueError, "too large for the matrix-free route")


def test_matrix_free_max_cut_still_runs_at_a_usual_delta():
    led = dpgraph.PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.max_cut(KARATE, epsilon=1.0, delta=1e-6, weight=None,
                              route="matrix-free", rng=0, ledger=led)
    assert res.diagnostics["route"] == "matrix-free" and led.spent[0] > 0


def test_privatize_auto_on_a_matrix_free_size_refused_before_the_screening_count():
    """From MATRIX_FREE_MIN_N nodes route="auto" takes the matrix-free route whatever the
    screening count says, so that route's delta check runs before the count is drawn (it was
    drawn, 0.005 of epsilon, and then the call refused)."""
    from dpgraph.release.screening import MATRIX_FREE_MIN_N

    G = nx.path_graph(MATRIX_FREE_MIN_N)
    _refused(lambda led: dpgraph.privatize(G, epsilon=1.0, delta=0.5, rng=0, ledger=led),
             ValueError, "too large for the matrix-free route")
    led = dpgraph.PrivacyLedger()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rng=0, ledger=led)
    assert pg.diagnostics["route"] == "matrix-free" and led.spent[0] > 0


# -- case 2: privatize's block-model share -------------------------------------------------------

@pytest.mark.parametrize("route", ["auto", "pca", "matrix-free", "randomized-response"])
def test_privatize_synthetic_share_too_small_refused_first(route):
    _refused(lambda led: dpgraph.privatize(KARATE, epsilon=1.0, delta=1e-6, weight=None,
                                           synthetic_share=1e-12, route=route, rng=0,
                                           ledger=led),
             ValueError, r"synthetic block model's .*synthetic_share >= ")


def test_privatize_tiny_epsilon_names_a_working_epsilon():
    with pytest.raises(ValueError, match="synthetic_share") as err:
        dpgraph.privatize(KARATE, epsilon=1e-9, delta=1e-6, weight=None, rng=0)
    eps = _suggested_epsilon(str(err.value))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(KARATE, epsilon=eps, delta=1e-6, weight=None, rng=0)
    assert pg.block_model is not None


# -- case 3: release_synthetic's shares ----------------------------------------------------------

@pytest.mark.parametrize("kw, match", [
    (dict(epsilon=1.0, bin_share=1e-12), r"degree-class counts \(bin_share.*bin_share >= "),
    (dict(epsilon=1e-11), r"one-block model's degrees"),
    (dict(epsilon=1.0, clustering_share=1e-13), r"clustering counts.*clustering_share=0"),
    (dict(epsilon=1.0, side_share=1e-12), r"cut sides' choice.*side_share >= "),
])
def test_release_synthetic_share_too_small_refused_first(kw, match):
    _refused(lambda led: dpgraph.release_synthetic(KARATE, weight=None, rng=0, ledger=led, **kw),
             ValueError, match)


def test_release_synthetic_suggested_epsilon_runs():
    with pytest.raises(ValueError, match="release_synthetic") as err:
        dpgraph.release_synthetic(KARATE, epsilon=1e-11, weight=None, rng=0)
    eps = _suggested_epsilon(str(err.value))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(KARATE, epsilon=eps, weight=None, rng=0)
    assert rel.ledger.spent[0] == pytest.approx(eps)


# -- case 4: max_cut's estimate on the randomized-response route ---------------------------------

def test_max_cut_randomized_response_tiny_epsilon_refused_first():
    _refused(lambda led: dpgraph.max_cut(KARATE, epsilon=1e-12, delta=1e-6, weight=None,
                                         route="randomized-response", rng=0, ledger=led),
             ValueError, r"max_cut: at epsilon=1e-12, the estimate of the partition's cut")


def test_max_cut_screening_share_too_small_refused_first():
    _refused(lambda led: dpgraph.max_bisection(KARATE, epsilon=1e-10, delta=0, weight=None,
                                               rng=0, ledger=led),
             ValueError, r"max_bisection: .*screening edge count")


# -- case 5: perturb-and-project and k-way marginals: projection options, set shapes ------------

_PP = dict(sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0)


@pytest.mark.parametrize("value, sets, kw, exc, match", [
    (np.eye(3), [PSDCone(), Box(0, 1)], dict(max_iter=0), ValueError, "max_iter"),
    (np.eye(3), [PSDCone(), Box(0, 1)], dict(tol=0), ValueError, "tol"),
    (np.eye(3), PSDCone(), dict(tol=float("nan")), ValueError, "tol"),
    (np.ones((2, 3)), PSDCone(), {}, ValueError, r"convex_set: PSDCone .*\(2, 3\)"),
    (np.eye(3), SpectralBall(np.eye(4), 1.0), {}, ValueError, "SpectralBall holds 4 x 4"),
    (np.ones(3), Box(np.zeros(4), 1.0), {}, ValueError, "do not broadcast"),
    (np.eye(3), None, {}, TypeError, "convex_set must be a ConvexSet"),
    (np.eye(3), [], {}, TypeError, "convex_set must be a ConvexSet"),
    (np.eye(3), [PSDCone(), "box"], {}, TypeError, "convex_set must be a ConvexSet"),
])
def test_perturb_and_project_refused_before_the_charge(value, sets, kw, exc, match):
    _refused(lambda led: dpgraph.perturb_and_project(value, sets, ledger=led, **{**_PP, **kw}),
             exc, match)


def test_perturb_and_project_still_projects():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.perturb_and_project(np.eye(3), dpgraph.mechanisms.sets.Intersection(
            [PSDCone(), Box(0, 1)]), **_PP)
        flat = dpgraph.perturb_and_project(np.ones((2, 3)), Box(np.zeros(3), 1.0), **_PP)
    assert res.release.shape == (3, 3) and flat.release.shape == (2, 3)


@pytest.mark.parametrize("kw", [dict(tol=-1), dict(tol=0), dict(max_iter=0)])
def test_kway_marginals_projection_options_refused_before_the_charge(kw):
    X = np.random.default_rng(0).integers(0, 2, size=(20, 4))
    _refused(lambda led: dpgraph.kway_marginals(X, 2, epsilon=1.0, delta=1e-6, rng=0,
                                                ledger=led, **kw),
             ValueError, "tol|max_iter")


# -- case 6: JL second moment, radius^2 out of the doubles --------------------------------------

@pytest.mark.parametrize("scale, radius", [(1e-301, 1e-300), (1e160, 1e160)])
def test_jl_radius_whose_square_is_not_a_double_refused_first(scale, radius):
    _refused(lambda led: dpgraph.jl_second_moment(np.eye(3) * scale, epsilon=1.0, delta=1e-6,
                                                  radius=radius, jl_dim=20, rng=0, ledger=led),
             ValueError, r"radius=.*: radius\^2 = (0.0|inf) is not a positive finite")


@pytest.mark.parametrize("route", [None, "randomized-response"])
def test_max_2csp_share_too_small_refused_first(route):
    """max_2csp checks its Laplace shares against the sampler's range before anything is drawn,
    as max_cut does (it failed with the raw sampler message, inside the call)."""
    from dpgraph.engine import CSPInstance

    inst = CSPInstance(5, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0), (1, 2, {(0, 1), (1, 0)}, 1.0)])
    running = dpgraph.PrivacyLedger(epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match=r"max_2csp: at epsilon=1e-12, the total constraint "
                                         r"weight .* use a larger epsilon"):
        dpgraph.max_2csp(inst, epsilon=1e-12, delta=1e-6, route=route, ledger=running)
    assert running.spent == (0.0, 0.0)
