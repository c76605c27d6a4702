"""Inputs small to pass in and large to convert or to process: refused before allocating past
the memory limit (``DPGRAPH_MEMORY_LIMIT``), before any budget is spent, in one line naming
what fits; and the size named as fitting is converted.

Each call runs under :mod:`tracemalloc` (NumPy reports its buffers to it); the peak of what it
allocated is compared with the limit.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import GraphData, as_graph_data
from dpgraph.memory import InsufficientMemoryError, parse_bytes
from dpgraph.privacy import PrivacyLedger

LIMIT = "64M"


@pytest.fixture
def limit(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    return parse_bytes(LIMIT)


def _peak(fn):
    """``(outcome, peak bytes)``: what ``fn()`` returned or the memory error it raised."""
    tracemalloc.start()
    try:
        try:
            outcome = fn()
        except MemoryError as exc:  # a priced refusal, or an unpriced MemoryError
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _isolated(n):
    """A SciPy matrix of ``n`` nodes and one edge: 4 B per node to pass in."""
    return sp.csr_array((np.ones(2), (np.array([0, 1]), np.array([1, 0]))), shape=(n, n))


def _refused(outcome, peak, limit):
    assert isinstance(outcome, InsufficientMemoryError), outcome
    text = str(outcome)
    assert "\n" not in text and f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in text and "fit" in text
    assert peak < limit
    return text


@pytest.mark.parametrize("call", ["max_cut", "release_synthetic", "as_graph_data"])
def test_a_sparse_matrix_of_isolated_nodes_is_priced_before_its_conversion(limit, call):
    """4 * 10^6 isolated nodes: 16 MB to pass in, 96 MB traced to convert (24 B per node) before
    any route was priced; now refused before the copy, nothing spent."""
    W = _isolated(4_000_000)
    led = PrivacyLedger(10.0, 1e-5)
    fn = {"max_cut": lambda: dpgraph.max_cut(W, epsilon=1.0, delta=1e-6, ledger=led),
          "release_synthetic": lambda: dpgraph.release_synthetic(W, epsilon=1.0, ledger=led),
          "as_graph_data": lambda: as_graph_data(W)}[call]
    outcome, peak = _peak(fn)
    if call == "as_graph_data":
        text = _refused(outcome, peak, limit)
        assert "4,000,000 x 4,000,000 matrix" in text and "nodes fit" in text
    else:  # a private call: the sizes grow with the edge count (2 stored entries here, 0 in
        # the neighbour without the edge), so the message names none of them
        assert isinstance(outcome, InsufficientMemoryError) and peak < limit
        text = str(outcome)
        assert f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in text and "not said" in text
        assert "stored entries" not in text and "needs about" not in text
    assert led.spent == (0.0, 0.0)


def test_the_size_named_as_fitting_converts(limit):
    outcome, _ = _peak(lambda: as_graph_data(_isolated(4_000_000)))
    fits = int(str(outcome).split("At most ")[1].split(" ")[0].replace(",", ""))
    W = _isolated(fits)
    outcome, peak = _peak(lambda: as_graph_data(W))
    assert isinstance(outcome, GraphData) and outcome.n == fits
    assert peak <= 1.01 * limit


@pytest.mark.parametrize("solve", ["solve_max_cut", "solve_max_bisection"])
@pytest.mark.parametrize("wrap", ["matrix", "graph_data"])
def test_the_engine_is_priced_before_its_input_is_converted(limit, solve, wrap):
    """The engine's own price (1.5 GiB here) was checked after the input's conversion: 96 MB
    (a SciPy matrix) or 64 MB (a GraphData built by hand) traced first."""
    W = _isolated(4_000_000)
    G = W if wrap == "matrix" else GraphData(weights=W, labels=range(W.shape[0]))
    outcome, peak = _peak(lambda: getattr(dpgraph, solve)(G))
    assert "the Max-Cut engine on 4,000,000 nodes" in _refused(outcome, peak, limit)


def test_a_dense_array_is_priced_before_its_float_copy(limit):
    """A 4,000 x 4,000 boolean array (16 MB) took a 128 MB float64 copy to convert."""
    A = np.zeros((4000, 4000), dtype=bool)
    A[0, 1] = A[1, 0] = True
    outcome, peak = _peak(lambda: as_graph_data(A))
    _refused(outcome, peak, limit)
    small = np.zeros((2000, 2000), dtype=bool)  # 32 MB priced: converts
    small[0, 1] = small[1, 0] = True
    outcome, peak = _peak(lambda: as_graph_data(small))
    assert isinstance(outcome, GraphData) and outcome.m == 1 and peak < limit


def _graph(n):
    return dpgraph.datasets.planted_cut(n, 10, rng=0).graph


def test_the_super_graph_is_priced_before_its_charge(monkeypatch):
    """group_size=1 makes 2,000 super-nodes: 292 MB traced for the g x g counts."""
    from dpgraph.synthetic.communities import supergraph_communities

    data = _graph(4000)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    led = PrivacyLedger(1.0, 0.0)
    outcome, peak = _peak(lambda: supergraph_communities(data, epsilon=1.0, ledger=led, rng=0,
                                                         group_size=1))
    assert "super-nodes fit" in _refused(outcome, peak, parse_bytes(LIMIT))
    assert led.spent == (0.0, 0.0)


def test_the_refinement_is_priced_before_the_super_graph_is_charged(monkeypatch):
    """200 super-nodes fit, but the refinement after them in one batch holds 4,000 x 200 noisy
    counts (about 100 MB traced): it spent the super-graph's share, then allocated."""
    from dpgraph.synthetic.communities import private_communities

    data = _graph(4000)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    led = PrivacyLedger(1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, peak = _peak(lambda: private_communities(data, epsilon=1.0, ledger=led, rng=0,
                                                          group_size=20, batches=1))
    assert "labels fit (init_labels)" in _refused(outcome, peak, parse_bytes(LIMIT))
    assert led.spent == (0.0, 0.0)


def test_release_synthetic_refine_labels_refused_not_a_memory_error(monkeypatch):
    """init_labels=600 on 2,000 nodes in one batch: about 150 MB of noisy counts, allocated
    past the limit (init_labels=10**7 on 20,000 nodes: a bare MemoryError asking 23 GiB)."""
    data = _graph(2000)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "100M")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, peak = _peak(lambda: dpgraph.release_synthetic(
            data, epsilon=4.0, rng=0, community_method="refine", communities="private",
            init_labels=600, batches=1))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    assert "labels fit (init_labels)" in str(outcome) and peak < parse_bytes("100M")
    # the default refinement options on the same graph still run under that limit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(data, epsilon=4.0, rng=0, community_method="refine",
                                        communities="private")
    assert rel.ledger.spent[0] == pytest.approx(4.0)


def test_release_synthetic_refine_options_refused_before_the_edge_count(monkeypatch):
    """The refinement's options are public sizes: refused before the edge count is drawn
    (its refusal came after 2% of epsilon was spent on the count)."""
    import dpgraph.synthetic.release as release

    def drawn(*a, **k):
        raise AssertionError("the edge count was drawn before the options were priced")

    monkeypatch.setattr(release, "release_edge_total", drawn)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "100M")
    with pytest.raises(InsufficientMemoryError, match="labels fit"):
        dpgraph.release_synthetic(_graph(2000), epsilon=4.0, rng=0, community_method="refine",
                                  communities="private", init_labels=600, batches=1)
