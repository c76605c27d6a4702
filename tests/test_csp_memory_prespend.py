"""max_2csp's dense routes price the whole call before anything is spent (docs/privacy.md 11.1).

The release's N x N arrays (N = n q) stay held while the engine solves each objective, the
engine's results while the next objective is made, and each solve certifies its bound with a
proof on the N_r x N_r dual matrix (N_r = n (q - 1) + 1) whose arrays were priced only once the
budget was spent. Every test here compares a refusal or its absence with the call's true peak,
measured with tracemalloc on the same call without a limit: a refused call would have held more
than the limit, a call whose peak fits with ``PRICE_FACTOR`` to spare is not refused.
"""

import functools
import tracemalloc
import warnings

import networkx as nx
import pytest

import dpgraph
from dpgraph.engine import max_k_cut_instance
from dpgraph.engine.twocsp import (check_label_engine_memory, label_certificate_bytes,
                                   label_engine_bytes, label_graph_bytes)
from dpgraph.memory import InsufficientMemoryError
from dpgraph.release.routes import route_module
from dpgraph.solve.csp import dense_2csp_bytes, solved_objectives

#: dense_2csp_bytes is at most this many times the traced peak of the call it prices at the
#: engine's default samples and a few hundred (its docstring: 1.13-1.5, the upper end on the
#: sparse proof and on the PCA route's objective, which has fewer stored entries than the dense
#: price counts)
PRICE_FACTOR = 1.5


def _instance(n, q, edges=None, relation=None):
    if relation is None:
        return max_k_cut_instance(nx.gnm_random_graph(n, edges or 3 * n, seed=1), q)
    g = nx.gnm_random_graph(n, edges, seed=1)
    return dpgraph.CSPInstance(n, q, [(i, j, relation, 1.0) for i, j in g.edges()])


def _call(inst, route="randomized-response", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded noise, a halted PCA: not what is tested here
        return dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, route=route, rng=0, **kw)


@functools.lru_cache(maxsize=None)
def _traced_peak(n, q, route="randomized-response", samples=None, relation_size=None):
    """The call's peak of traced memory, without a memory limit (numba loaded by conftest)."""
    kw = {} if relation_size is None else {"relation_size": relation_size}
    if samples is not None:
        kw["solver_options"] = {"samples": samples}
    tracemalloc.start()
    try:
        _call(_instance(n, q), route, **kw)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _alone(inst, samples=32):
    """What was compared with the memory one at a time before: the release (the route's
    estimate), the engine's solves (check_label_engine_memory's price) and the label-extended
    graph; the largest of them."""
    n, q = inst.n, inst.q
    N = n * q
    objectives = solved_objectives("randomized-response", N, 8, "auto", block_informative=False)
    return max(route_module("randomized-response").estimated_memory(N, 0, 8),
               label_engine_bytes(n, q, samples=samples, objectives=objectives),
               label_graph_bytes(n, q, inst.label_pairs))


def _named(text, key):
    return int(text.split(key)[1].split(" ")[0].replace(",", ""))


def test_a_certificate_that_does_not_fit_is_refused_before_anything_is_spent(monkeypatch,
                                                                             spend_spy):
    """100 variables x 3 values on randomized response: the release, the solves and the label
    graph each fit under the limit (they were each checked alone), the certificate of a
    solve's bound does not (its dense objective made sparse and reduced, 40 B per N^2 and
    88 per N_r^2, with the release's array and the objective beside it): the call held more
    than the limit (traced) and is refused before any charge or draw, naming the number of
    variables that fit, which then run under the limit."""
    inst = _instance(100, 3)
    N = 300
    limit = int(1.05 * _alone(inst))
    assert label_certificate_bytes(100, 3) + 16 * N * N > limit  # the certificate does not fit
    assert _traced_peak(100, 3) > limit  # and the call did not
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(limit))
    check_label_engine_memory(100, 3, objectives=4, samples=32)  # each alone fits
    spend_spy.update(charge=0, draw=0)  # the traced run above spent
    running = dpgraph.PrivacyLedger(epsilon=2.0, delta=1e-5)
    with pytest.raises(InsufficientMemoryError, match="'factor' certificate") as info:
        _call(inst, ledger=running)
    assert spend_spy == {"charge": 0, "draw": 0} and running.entries == ()
    text = str(info.value)
    assert "Nothing was spent" in text and "\n" not in text
    fits = _named(text, "At most ")

    def price(k):
        return dense_2csp_bytes(k, 3, route="randomized-response")

    assert price(fits) <= limit < price(fits + 1)
    tracemalloc.start()
    try:
        res = _call(_instance(fits, 3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(res.assignment) == fits and peak <= limit


@pytest.mark.parametrize("n, q, route, samples, relation_size", [
    (100, 3, "randomized-response", None, None),
    (150, 3, "pca", None, None),
    (40, 5, "randomized-response", None, 20),       # five objectives: the block posterior
    (100, 3, "randomized-response", 200, None),     # the pooled choice's values dominate
], ids=["rr", "pca", "rr-q5-block", "rr-samples"])
def test_a_call_whose_traced_peak_fits_is_not_refused(monkeypatch, n, q, route, samples,
                                                      relation_size):
    """The price is at most PRICE_FACTOR times the traced peak: under a limit of that many
    times the peak the call runs (and spends)."""
    peak = _traced_peak(n, q, route, samples, relation_size)
    options = None if samples is None else {"samples": samples}
    price = dense_2csp_bytes(n, q, route=route, relation_size=relation_size,
                             solver_options=options)
    assert peak <= price <= PRICE_FACTOR * peak
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(int(PRICE_FACTOR * peak)))
    kw = {} if relation_size is None else {"relation_size": relation_size}
    res = _call(_instance(n, q), route, solver_options=options, **kw)
    assert res.ledger.spent[0] == pytest.approx(1.0)


def test_each_part_fits_alone_but_not_together(monkeypatch, spend_spy):
    """samples=200 on 100 variables x 3 values: the release (56 B per N^2), the engine's four
    solves (label_engine_bytes), the certificate and the label graph each fit under the
    limit; held together (the release's array through every solve and at the private choice,
    the solves' results through the next objective and the choice, which values every pooled
    candidate at once) they held a third more than it (traced). Refused before anything is spent,
    naming the samples that fit with everything else held."""
    inst = _instance(100, 3)
    limit = int(1.02 * max(_alone(inst, samples=200), label_certificate_bytes(100, 3)))
    assert _traced_peak(100, 3, samples=200) > 1.3 * limit
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(limit))
    check_label_engine_memory(100, 3, objectives=4, samples=200)  # the solves alone fit
    spend_spy.update(charge=0, draw=0)  # the traced run above spent
    running = dpgraph.PrivacyLedger(epsilon=2.0, delta=1e-5)
    with pytest.raises(InsufficientMemoryError, match="At most samples=") as info:
        _call(inst, solver_options={"samples": 200}, ledger=running)
    assert spend_spy == {"charge": 0, "draw": 0} and running.entries == ()
    fits = _named(str(info.value), "At most samples=")

    def price(k):
        return dense_2csp_bytes(100, 3, route="randomized-response",
                                solver_options={"samples": k})

    assert price(fits) <= limit < price(fits + 1)


def test_the_label_graph_is_priced_beside_the_release(monkeypatch, spend_spy):
    """The label-extended graph (its size follows the private constraints) is held while the
    release is made and at the private choice: one that fits alone, under a limit the rest of
    the call fits too, but not beside the release, is refused before anything is spent,
    naming no size."""
    full = {(a, b) for a in range(3) for b in range(3)}
    inst = _instance(150, 3, edges=8000, relation=full)
    graph = label_graph_bytes(150, 3, inst.label_pairs)
    limit = max(graph, dense_2csp_bytes(150, 3, route="randomized-response"))
    assert graph + route_module("randomized-response").estimated_memory(450, 0, 8) > limit
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(limit))
    with pytest.raises(InsufficientMemoryError, match="none is printed") as info:
        _call(inst)
    assert spend_spy == {"charge": 0, "draw": 0}
    assert f"{inst.label_pairs:,}" not in str(info.value)


def _no_kernel_has_run(monkeypatch):
    """The kernels' state of a process where no numba kernel has run yet."""
    from dpgraph.engine import local_search

    if not local_search._KERNELS or local_search._numba is False:
        pytest.skip("numba is not installed: the kernels run as Python, nothing to load")
    dispatcher = type("Dispatcher", (), {"signatures": []})()
    monkeypatch.setattr(local_search, "_KERNELS", [type("Kernel", (), {"_run": dispatcher})()])
    monkeypatch.delenv("DPGRAPH_NO_NUMBA", raising=False)


def test_the_sparse_proof_is_chosen_and_priced_before_spending(monkeypatch, spend_spy):
    """Above LABEL_DENSE_CERTIFICATE_MAX_N (here lowered to 100: 60 variables x 3 values give
    N_r = 121) the solves run the sparse LDL^T proof, chosen from n and q before the release
    and priced at a full factor: under a limit of that price its factor's count (a numba
    kernel) never runs. Where no kernel has run in the process, numba's first load is priced
    with it, before anything is spent."""
    from dpgraph.engine import sdp, twocsp_sdp
    from dpgraph.engine.local_search import NUMBA_COMPILE_BYTES

    monkeypatch.setattr(twocsp_sdp, "LABEL_DENSE_CERTIFICATE_MAX_N", 100)
    counted = []
    count = sdp.ldl_fill_entries
    monkeypatch.setattr(sdp, "ldl_fill_entries", lambda *a, **k: counted.append(1) or count(*a, **k))
    inst = _instance(60, 3)
    kw = {"candidates": ["unbiased"]}
    price = dense_2csp_bytes(60, 3, route="randomized-response", **kw)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(price))
    res = _call(inst, **kw)
    assert res.solver["certificate"]["certificate"] == "ldl-verified" and not counted
    assert res.sdp_bound >= res.solver["value"] - 1e-9 * abs(res.solver["value"])
    spend_spy.update(charge=0, draw=0)
    _no_kernel_has_run(monkeypatch)
    assert dense_2csp_bytes(60, 3, route="randomized-response", **kw) == \
        price + NUMBA_COMPILE_BYTES
    with pytest.raises(InsufficientMemoryError, match="numba's first load.*DPGRAPH_NO_NUMBA"):
        _call(inst, **kw)
    assert spend_spy == {"charge": 0, "draw": 0}
    # the dense proof runs no kernel: nothing to load
    assert dense_2csp_bytes(60, 3, route="randomized-response",
                            solver_options={"certificate": "factor"}, **kw) <= price


def test_an_unknown_certificate_is_refused_before_spending(spend_spy):
    """solver_options={"certificate": ...} was read only by the solve, after the release."""
    with pytest.raises(ValueError, match="certificate='fast'"):
        _call(_instance(30, 3), solver_options={"certificate": "fast"})
    assert spend_spy == {"charge": 0, "draw": 0}
