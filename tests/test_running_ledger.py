"""One total budget over several calls: ``ledger=`` on the private entry points
(dpgraph.privacy.ledger.records_in_ledger)."""

import copy

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
    e = dpgraph.release_synthetic(G, epsilon=0.4, rng=4, ledger=total)
    results = (a, b, c, d, e)
    assert total.entries == sum((r.ledger.entries for r in results), ())
    assert total.spent[0] == pytest.approx(sum(r.ledger.spent[0] for r in results))
    assert total.spent[0] <= 2.9 + 1e-9
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


def test_threads_cannot_pass_the_check_together():
    """Two calls in two threads against a running total that holds one of them: the request is
    reserved under the ledger's lock, so exactly one runs and the other is refused unspent."""
    from concurrent.futures import ThreadPoolExecutor

    total = PrivacyLedger(epsilon=1.5, delta=1e-6)

    def call(seed):
        try:
            dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=seed, ledger=total)
            return "ran"
        except PrivacyBudgetError as exc:
            assert "nothing was spent" in str(exc)
            return "refused"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(call, [0, 1]))
    assert outcomes == ["ran", "refused"]
    assert total.spent[0] <= 1.0 + 1e-9 and not total._reserved


def _call_in_worker(total):
    try:
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, ledger=total)
        return "ran"
    except PrivacyBudgetError as exc:
        return str(exc)


def test_a_copy_in_another_process_is_refused_and_a_loaded_ledger_can_be_claimed():
    """A process pool pickles the ledger into each worker, where charges would never reach the
    parent's total: refused there. A ledger saved and loaded to go on is claimed first."""
    import multiprocessing
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    total = PrivacyLedger(epsilon=1.5, delta=1e-6)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        message = pool.submit(_call_in_worker, total).result()
    assert "belongs to process" in message and "total.extend(res.ledger)" in message
    assert total.entries == ()
    loaded = pickle.loads(pickle.dumps(total))  # this process: its own ledger still
    dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, ledger=loaded)
    assert loaded.spent[0] > 0 and total.spent == (0.0, 0.0)
    loaded._owner = -1  # as if loaded in another session
    with pytest.raises(PrivacyBudgetError, match="claim"):
        dpgraph.max_cut(G, epsilon=0.1, delta=1e-6, rng=0, ledger=loaded)
    dpgraph.max_cut(G, epsilon=0.1, delta=1e-6, rng=0, ledger=loaded.claim())


def test_a_call_that_fails_records_what_it_charged():
    from dpgraph.privacy.ledger import records_in_ledger

    @records_in_ledger
    def fails_after_a_charge(*, epsilon, delta):
        own = PrivacyLedger(epsilon=epsilon, delta=delta)
        own.charge("first release", mechanism="laplace", epsilon=0.25, sensitivity=1.0,
                   noise_scale=4.0)
        raise RuntimeError("failed after a draw")

    @records_in_ledger
    def refuses_first(*, epsilon, delta):
        raise ValueError("bad option")

    total = PrivacyLedger(epsilon=2.0, delta=1e-6)
    with pytest.raises(RuntimeError):
        fails_after_a_charge(epsilon=1.0, delta=0.0, ledger=total)
    with pytest.raises(ValueError):
        refuses_first(epsilon=1.0, delta=0.0, ledger=total)
    assert [e.name for e in total.entries] == ["first release"]
    assert total.spent[0] == pytest.approx(0.25) and not total._reserved


def test_copy_of_a_ledger_has_its_own_charges():
    import copy

    a = PrivacyLedger(epsilon=1.0)
    b = copy.copy(a)
    b.charge("x", mechanism="laplace", epsilon=0.5, sensitivity=1.0, noise_scale=2.0)
    assert a.entries == () and len(b.entries) == 1


def test_a_ledger_of_epsilon_alone_is_a_pure_budget():
    """``PrivacyLedger(epsilon=3)`` left delta unlimited, so calls with ``delta=1e-6`` added
    up without bound under a ledger that reads as a pure budget. Now an epsilon alone means
    delta 0: a call asking for a delta is refused before spending, the message saying how to
    allow one; pure calls and ``PrivacyLedger()`` (records only) are unchanged."""
    total = PrivacyLedger(epsilon=3.0)
    assert total.remaining == (3.0, 0.0)
    with pytest.raises(PrivacyBudgetError, match="pure epsilon-DP budget"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, ledger=total)
    assert total.entries == ()
    dpgraph.release_synthetic(G, epsilon=1.0, rng=0, ledger=total)
    assert total.spent[1] == 0.0 and total.spent[0] <= 1.0 + 1e-9
    assert PrivacyLedger().remaining == (float("inf"), float("inf"))
    assert PrivacyLedger(epsilon=3.0, delta=None).remaining[1] == float("inf")
    assert copy.copy(total).remaining[1] == 0.0


@pytest.mark.parametrize("route", ["matrix-free", "pca"])
def test_a_call_failing_after_its_draws_records_what_it_drew_not_its_internal_ledgers(
        route, monkeypatch):
    """A call that fails after the route's draws (here: the block-model export raises, as an
    interrupt would) records in the running ledger the charges it drew, and never more than
    its request: the matrix-free route's itemized composition and its trial ledger, and the PCA
    route's re-charge of its sub-ledger, are not further spends (they had recorded 7.5 times
    the request on the matrix-free route, and the PCA gap twice)."""
    import networkx as nx

    from dpgraph.release import privatize as module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "_release_block_model", interrupted)
    total = dpgraph.PrivacyLedger(epsilon=4.0, delta=1e-5)
    with pytest.raises(KeyboardInterrupt):
        dpgraph.privatize(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None,
                          route=route, synthetic_share=0.2, ledger=total)
    eps, dlt = total.spent
    assert 0.5 < eps <= 1.0 + 1e-9 and dlt <= 1e-6 * (1 + 1e-9)
    names = [e.name for e in total.entries]
    assert len(names) == len(set(names))  # nothing recorded twice


@pytest.mark.parametrize("route", ["randomized-response", "pca"])
def test_a_failed_dense_max_2csp_records_its_group_privacy_charge_once(route, monkeypatch):
    """max_2csp charges the label-extended graph's release once, as group privacy over s
    pairs; the nested privatize's own per-pair charges are not a further spend. A call failing
    after the release recorded both (2.154 against a request of 2), and so was booked at its
    whole request; it records what it drew: the total weight and the group charge, 1.94."""
    import networkx as nx

    import dpgraph.solve.csp as csp
    from dpgraph.engine.formats import max_k_cut_instance

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(csp, "_solve_label_objectives", interrupted)
    inst = max_k_cut_instance(dpgraph.as_graph_data(nx.karate_club_graph(), weight=None), 3)
    total = dpgraph.PrivacyLedger(epsilon=10.0, delta=1e-4)
    with pytest.raises(KeyboardInterrupt):
        dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, route=route, ledger=total)
    assert [e.name for e in total.entries] == [
        "total constraint weight", "privatize the label-extended graph (group privacy over 9 pairs)"]
    assert total.spent[0] == pytest.approx(2.0 * (1 - 0.02 - 0.01), rel=1e-9)
