"""One total budget over several calls: ``ledger=`` on the private entry points
(dpgraph.privacy.ledger.records_in_ledger)."""

import networkx as nx
import pytest

import dpgraph
from dpgraph import PrivacyBudgetError, PrivacyLedger
from dpgraph.engine import CSPInstance

G = nx.Graph(nx.karate_club_graph().edges())


def test_calls_are_recorded_in_the_running_ledger():
    total = PrivacyLedger(epsilon=3.0, delta=1e-5)
    a = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, ledger=total)
    b = dpgraph.max_bisection(G, epsilon=0.5, delta=1e-6, rng=1, ledger=total)
    c = dpgraph.privatize(G, epsilon=0.5, delta=1e-6, rank=2, rng=2, ledger=total)
    inst = CSPInstance(3, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0), (1, 2, {(0, 1), (1, 0)}, 1.0)])
    d = dpgraph.max_2csp(inst, epsilon=0.5, delta=1e-6, rng=3, ledger=total)
    results = (a, b, c, d)
    assert total.entries == sum((r.ledger.entries for r in results), ())
    assert total.spent[0] == pytest.approx(sum(r.ledger.spent[0] for r in results))
    assert total.spent[0] <= 2.5 + 1e-9
    assert total.reproducible  # seeded calls: the running ledger says so too


def test_a_call_over_the_running_budget_is_refused_before_anything_is_spent(monkeypatch):
    total = PrivacyLedger(epsilon=1.5, delta=1e-6)
    dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, ledger=total)
    before = total.entries
    import dpgraph.solve.cut as cut

    def never(*args, **kwargs):
        raise AssertionError("the call ran")

    monkeypatch.setattr(cut, "_solve", never)
    with pytest.raises(PrivacyBudgetError, match=r"max_cut\(epsilon=1, delta=1e-06\) needs "
                                                 r"epsilon=1 .*nothing was spent"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, ledger=total)
    # the requested delta counts too, even on a route that would spend none of it
    with pytest.raises(PrivacyBudgetError, match="delta"):
        dpgraph.max_bisection(G, epsilon=0.1, delta=1e-5, ledger=total)
    assert total.entries == before


def test_ledger_must_be_a_privacy_ledger():
    with pytest.raises(TypeError, match="ledger must be a dpgraph.PrivacyLedger"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, ledger=(2.0, 1e-6))
