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
    assert isinstance(r.diagnostics, dict)
    # all of epsilon, or less with the reason (one distinct candidate: no private choice made)
    assert r.ledger.spent[0] == pytest.approx(2.0) or (
        r.ledger.spent[0] < 2.0 and "epsilon" in r.diagnostics["unspent"])


def test_private_csp_result_shares_the_shape():
    r = dpgraph.max_2csp(max_k_cut_instance(_karate(), 3), epsilon=2.0, delta=1e-6, rng=0)
    assert isinstance(r, Result)
    assert r.answer is r.assignment and r.value == r.estimated_value and r.bound == r.sdp_bound
    assert r.ledger.spent[0] == pytest.approx(2.0)


# --------------------------------------------------------------------------- reprs: asked vs used
# A result's repr says what was asked for next to what was used, as PrivateCutResult does with
# "of requested": a rank the route does not release, a delta a pure-DP route leaves unspent.


def test_private_cut_repr_lists_side_sizes_by_assignment_as_the_command_line():
    """The repr listed len(partition[0]) first, the side of assignment 1, while `dpgraph
    maxcut` prints the sizes of sides 0 / 1."""
    from dpgraph.cli.output import side_sizes

    res = dpgraph.max_cut(_karate(), epsilon=1.0, delta=1e-6, weight=None, rng=0)
    n0, n1 = side_sizes(res)
    assert n0 != n1 and n1 == len(res.partition[0])
    assert f"sides=({n0}, {n1})" in repr(res)


def test_private_graph_repr_says_the_requested_rank_and_delta():
    pg = dpgraph.privatize(_karate(), epsilon=1.0, delta=1e-6, rank=4, weight=None, rng=0)
    assert pg.diagnostics["route"] == "randomized-response" and pg.rank is None
    r = repr(pg)
    assert "route='randomized-response'" in r
    assert ("rank=None of requested 4 [the randomized-response route releases no low-rank "
            "estimate]") in r
    assert pg.ledger.spent[1] == 0
    assert ("spent=(epsilon=1, delta=0) of requested (epsilon=1, delta=1e-06) "
            "[pure epsilon-DP: delta is not spent]") in r


def test_private_graph_repr_without_a_gap_says_no_reason():
    # the matrix-free route spends all it was given: no bracket; its factors' extra public
    # direction is named, not counted as rank
    pg = dpgraph.privatize(_karate(), epsilon=1.0, delta=1e-6, weight=None, rng=0,
                           route="matrix-free")
    r = repr(pg)
    assert pg.ledger.spent[1] == pytest.approx(1e-6)
    assert "rank=2 (+ the public degree direction)" in r and "of requested 2" not in r
    assert "spent=(epsilon=1, delta=1e-06) of requested (epsilon=1, delta=1e-06)" in r
    assert "[" not in r.split("spent=")[1]


def test_local_private_graph_repr_is_one_line_without_arrays():
    # its dataclass repr printed every label and released degree (about 4 KB on karate)
    pg = dpgraph.privatize(_karate(), epsilon=1.0, delta=1e-6, weight=None, rng=0, route="local")
    r = repr(pg)
    assert r.startswith("LocalPrivateGraph(n=34, route='local'") and "array" not in r
    assert len(r) < 400 and "\n" not in r


def test_private_csp_repr_says_what_the_local_route_did_not_use():
    inst = max_k_cut_instance(_karate(), 3)
    r = repr(dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rank=2, relation_size=6, rng=0))
    assert "route='local'" in r
    assert "rank=None of requested 2 [the local route releases no low-rank estimate]" in r
    assert "relation_size unused (requested 6)" in r
    assert ("spent=(epsilon=2, delta=0) of requested (epsilon=2, delta=1e-06) "
            "[pure epsilon-DP route: delta is not spent]") in r
    # nothing asked for beyond the budget: nothing said about rank or relation_size
    plain = repr(dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rng=0))
    assert "rank=" not in plain and "relation_size" not in plain
    assert "of requested (epsilon=2, delta=1e-06)" in plain


def test_ledger_report_says_why_a_step_costs_zero():
    """The forward pass after a core is charged 0 on its own line (parallel composition with
    the core's randomized response); the report says so in words under the table."""
    import numpy as np

    from dpgraph.graph import as_graph_data
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes.local import LocalPlan, release_local_sides

    data = as_graph_data(nx.gnp_random_graph(60, 0.2, seed=1), weight=None)
    ledger = PrivacyLedger(epsilon=1.0, delta=0.0)
    release_local_sides(data, epsilon=1.0, ledger=ledger, rng=np.random.default_rng(0),
                        plan=LocalPlan(core=10))
    forward = [e for e in ledger.entries if e.name == "local route: forward pass"]
    assert len(forward) == 1 and forward[0].epsilon == 0 and forward[0].noise_scale > 0
    lines = ledger.report().splitlines()
    (row,) = [ln for ln in lines if ln.startswith("local route: forward pass")]
    assert " 0* " in row
    (note,) = [ln for ln in lines if ln.startswith("* local route: forward pass")]
    assert "epsilon 0 on its line: parallel composition with the core's randomized response" \
        in note
    # without a core the forward pass pays for itself: no footnote
    ledger = PrivacyLedger(epsilon=1.0, delta=0.0)
    release_local_sides(data, epsilon=1.0, ledger=ledger, rng=np.random.default_rng(0))
    assert not [ln for ln in ledger.report().splitlines() if ln.startswith("* ")]
