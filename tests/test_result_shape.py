"""Every solver's result answers answer / value / bound / ledger / diagnostics the same way."""

import networkx as nx
import pytest

import dpgraph
from dpgraph.engine import max_k_cut_instance, solve_max_2csp, solve_max_cut
from dpgraph.result import Result


def _karate():
    return nx.Graph(nx.karate_club_graph().edges())


def test_engine_results_share_the_shape():
    cut = solve_max_cut(_karate(), rng=0)
    csp = solve_max_2csp(max_k_cut_instance(_karate(), 3), rng=0)
    for r in (cut, csp):
        assert isinstance(r, Result)
        assert r.answer is r.assignment and r.value == r.value
        assert r.bound == r.upper_bound >= r.value - 1e-9
        assert r.ledger is None and r.diagnostics is r.info


@pytest.mark.parametrize("solve", [dpgraph.max_cut, dpgraph.max_bisection])
def test_private_cut_results_share_the_shape(solve):
    r = solve(_karate(), epsilon=2.0, delta=1e-6, rng=0)
    assert isinstance(r, Result)
    assert r.answer is r.assignment and set(r.answer.values()) <= {0, 1}
    assert r.value == r.estimated_value and r.bound == r.sdp_bound
    assert r.ledger.spent[0] == pytest.approx(2.0) and isinstance(r.diagnostics, dict)


def test_private_csp_result_shares_the_shape():
    r = dpgraph.max_2csp(max_k_cut_instance(_karate(), 3), epsilon=2.0, delta=1e-6, rng=0)
    assert isinstance(r, Result)
    assert r.answer is r.assignment and r.value == r.estimated_value and r.bound == r.sdp_bound
    assert r.ledger.spent[0] == pytest.approx(2.0)
