"""Refuse before allocating: sizes from file headers and parameters, up to 10^12, never make
dpgraph allocate past the memory limit (``DPGRAPH_MEMORY_LIMIT``); a refusal is one line that
names the limit and what would fit, in the parameters the chosen route has.

The property tests run each call under a small limit with :mod:`tracemalloc` (NumPy reports its
buffers to it) and check the peak of what was allocated against the limit, whatever the call
answered: a result, a format error or a memory refusal.
"""

import os
import tracemalloc

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgraph.datasets import generators
from dpgraph.engine import CSPInstance
from dpgraph.engine.formats import max_k_cut_instance
from dpgraph.io import GraphFormatError, read_graph
from dpgraph.memory import InsufficientMemoryError, largest_fitting, parse_bytes
from dpgraph.release.routes import route_module
from dpgraph.release.screening import refuse_if_too_large

LIMIT = "24M"
SIZES = st.one_of(st.integers(1, 10**12), st.integers(1, 10**6),
                  st.sampled_from([10**k for k in range(13)]))


def _settings(n):
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    return parse_bytes(LIMIT)


def _peak(fn):
    """``(outcome, peak bytes)``: what ``fn()`` returned or raised (a refusal or an input
    error), and the most it had allocated at once."""
    tracemalloc.start()
    try:
        try:
            outcome = fn()
        except InsufficientMemoryError as exc:
            outcome = exc
        except (GraphFormatError, ValueError) as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _header_file(tmp_path, fmt, n, m):
    text = {"gset": f"{n} {m}\n1 2 1\n",
            "dimacs": f"p edge {n} {m}\ne 1 2\n",
            "mtx": f"%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {m}\n2 1 1\n",
            "metis": f"{n} {m}\n2\n1\n"}[fmt]
    path = tmp_path / f"h.{ {'gset': 'gset', 'dimacs': 'col', 'mtx': 'mtx', 'metis': 'graph'}[fmt] }"
    path.write_text(text)
    return path


@pytest.mark.parametrize("fmt", ["gset", "dimacs", "mtx", "metis"])
def test_headers_never_allocate_past_the_limit(tmp_path, limited, fmt):
    seen = {"refused": 0}
    read_graph(_header_file(tmp_path, fmt, 2, 1))  # first-call imports are not the reader's

    @_settings(30)
    @given(n=SIZES, m=st.one_of(st.integers(0, 10**12), st.just(1)))
    def run(n, m):
        outcome, peak = _peak(lambda: read_graph(_header_file(tmp_path, fmt, n, m)))
        assert peak < limited, (n, m, outcome)
        if isinstance(outcome, InsufficientMemoryError):
            seen["refused"] += 1
            text = str(outcome)
            assert "\n" not in text and f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in text
            assert "node count" in text and "nothing was allocated" in text
        if n * 128 > limited:  # the header alone asks for more than the limit: refused
            assert isinstance(outcome, InsufficientMemoryError), (n, m, outcome)

    run()
    assert seen["refused"] > 0


def test_header_refusal_names_what_fits(tmp_path, limited):
    path = _header_file(tmp_path, "gset", 10**8, 1)
    with pytest.raises(InsufficientMemoryError) as info:
        read_graph(path)
    fits = largest_fitting(lambda k: 128 * k + 180, limited)
    assert f"at most {fits:,} nodes" in str(info.value)
    assert isinstance(info.value, GraphFormatError) and info.value.line == 1
    # the header is well formed: the message does not ask for another one
    assert "expected" not in str(info.value) and info.value.expected is None
    # the largest count it names is read (the edge count 1 matches the file)
    path.write_text(f"{fits} 1\n1 2 1\n")
    assert read_graph(path).n == fits


@_settings(40)
@given(name=st.sampled_from(["erdos_renyi", "planted_cut", "random_regular"]), n=SIZES,
       degree=st.integers(0, 1000))
def test_generators_never_allocate_past_the_limit(monkeypatch, name, n, degree):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    if name == "random_regular" and (n * degree) % 2:
        degree += 1
    fn = getattr(generators, name)
    outcome, peak = _peak(lambda: fn(n, degree, rng=0))
    assert peak < parse_bytes(LIMIT), (name, n, degree, outcome)
    if n * 64 > parse_bytes(LIMIT):
        assert isinstance(outcome, (InsufficientMemoryError, ValueError)), outcome


@_settings(40)
@given(q=SIZES, m=st.integers(1, 3))
def test_csp_alphabets_never_allocate_past_the_limit(monkeypatch, q, m):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    cons = [(i, i + 1, {(0, 1)}, 1.0) for i in range(m)]
    outcome, peak = _peak(lambda: CSPInstance(m + 1, q, cons))
    assert peak < parse_bytes(LIMIT), (q, m, outcome)
    if isinstance(outcome, CSPInstance):
        outcome, peak = _peak(outcome.label_adjacency)
        assert peak < parse_bytes(LIMIT), (q, m, outcome)
    elif isinstance(outcome, InsufficientMemoryError):
        assert m * q * q * 320 > parse_bytes(LIMIT) and "At most q = " in str(outcome)


@_settings(30)
@given(k=SIZES)
def test_max_k_cut_parts_never_allocate_past_the_limit(monkeypatch, k):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    outcome, peak = _peak(lambda: max_k_cut_instance(nx.cycle_graph(3), max(k, 2)))
    assert peak < parse_bytes(LIMIT), (k, outcome)
    if isinstance(outcome, InsufficientMemoryError):
        assert "At most k = " in str(outcome)


def test_iterated_constraints_are_refused_as_they_come(monkeypatch):
    """A generator of constraints has no length: the instance refuses at the constraint whose
    relation matrix would pass the limit."""
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    q = 40   # 40 x 40 relations: 512 kB each at 320 B per cell
    cons = ((i, i + 1, {(0, 1)}, 1.0) for i in range(10**6))
    outcome, peak = _peak(lambda: CSPInstance(10**6 + 1, q, cons))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    assert peak < parse_bytes(LIMIT)


@_settings(60)
@given(route=st.sampled_from(["local", "matrix-free"]), n=SIZES,
       m=st.one_of(st.none(), st.integers(0, 10**12)), rank=st.integers(1, 64))
def test_route_refusals_name_only_the_routes_parameters(monkeypatch, route, n, m, rank):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    limit = parse_bytes(LIMIT)
    need = route_module(route).estimated_memory(n, m or 0, rank)
    try:
        refuse_if_too_large(route, n, m, rank)
    except InsufficientMemoryError as exc:
        text = str(exc)
        assert need > limit and "\n" not in text and LIMIT in text
        if route == "local":
            assert "rank" not in text  # the local route has no rank
        else:
            assert ("A smaller rank would fit" in text) == (
                rank > 1 and route_module(route).estimated_memory(n, m or 0, 1) <= limit)
        if "at most rank=" in text:
            r = int(text.split("at most rank=")[1].split(" ")[0])
            assert route_module(route).estimated_memory(n, m or 0, r) <= limit
            assert route_module(route).estimated_memory(n, m or 0, r + 1) > limit
        if "graphs of at most" in text:
            k = int(text.split("graphs of at most ")[1].split(" ")[0].replace(",", ""))
            assert route_module(route).estimated_memory(k, m or 0, rank) <= limit
    else:
        assert need <= limit


def test_cli_header_refused_in_one_line(tmp_path, monkeypatch, capsys):
    from dpgraph.cli.app import main

    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    path = tmp_path / "big.txt"
    path.write_text("100000000 1\n1 2 1\n")
    assert main(["maxcut", str(path), "--epsilon", "1", "--delta", "1e-6", "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dpgraph: error:")
    assert f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in err[0] and "at most" in err[0]


def test_cli_max2csp_k_refused_before_building(tmp_path, monkeypatch, capsys):
    from dpgraph.cli.app import main

    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    path = tmp_path / "tri.txt"
    path.write_text("3 3\n1 2 1\n2 3 1\n1 3 1\n")
    tracemalloc.start()
    try:
        code = main(["max2csp", str(path), "--format", "max-k-cut", "--k", "100000",
                     "--epsilon", "1", "--delta", "1e-6"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and peak < parse_bytes(LIMIT)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "At most k = " in err[0]


def test_release_synthetic_refused_before_its_communities(monkeypatch):
    import scipy.sparse as sp

    from dpgraph.graph import GraphData
    from dpgraph.synthetic import release_synthetic

    n = 200_000   # 300 B per node: about 57 MiB, over the limit
    W = sp.csr_array((np.ones(2), (np.array([0, 1]), np.array([1, 0]))), shape=(n, n))
    g = GraphData(weights=W, labels=range(n))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    outcome, peak = _peak(lambda: release_synthetic(g, epsilon=1.0, rng=0))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    assert "At most" in str(outcome) and peak < parse_bytes(LIMIT)


_WARM: set = set()


@_settings(25)
@given(n=SIZES, fmt=st.sampled_from(["cnf", "csp"]))
def test_max2csp_headers_never_allocate_past_the_limit(tmp_path_factory, monkeypatch, n, fmt):
    """A Max-2-SAT or 2-CSP file declaring up to 10^12 variables: answered or refused by
    ``dpgraph max2csp`` without allocating past the limit (the label-extended graph, its
    ``n q`` vectors and the variable names are priced or lazy)."""
    from dpgraph.cli.app import main

    n = max(n, 2)
    folder = tmp_path_factory.mktemp("c")
    if fmt not in _WARM:  # imports and first calls, once, outside the measurement
        warm = folder / f"warm.{fmt}"
        warm.write_text("p cnf 3 1\n1 2 0\n" if fmt == "cnf" else "p csp 3 3 1\nc 0 1 1 0,1\n")
        main(["max2csp", str(warm), "--epsilon", "1", "--delta", "1e-6", "-q", "--json"])
        from dpgraph.engine.local_search import numba_available

        numba_available()  # numba's import, on the first kernel call otherwise
        _WARM.add(fmt)
    path = folder / f"f.{fmt}"
    path.write_text(f"p cnf {n} 1\n1 2 0\n" if fmt == "cnf" else f"p csp {n} 3 1\nc 0 1 1 0,1\n")
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    outcome, peak = _peak(lambda: main(["max2csp", str(path), "--epsilon", "1", "--delta",
                                        "1e-6", "-q", "--json"]))
    assert peak < parse_bytes(LIMIT), (n, fmt, outcome)
    assert outcome in (0, 2), outcome


@_settings(20)
@given(n=SIZES, command=st.sampled_from(["maxcut", "bisection", "synth", "info"]))
def test_commands_on_headers_never_allocate_past_the_limit(tmp_path_factory, monkeypatch, n,
                                                          command):
    """Every graph command on a rudy header of up to 10^12 nodes (one edge): answered or
    refused without allocating past the limit."""
    from dpgraph.cli.app import main

    folder = tmp_path_factory.mktemp("h")
    args = {"maxcut": ["--epsilon", "1", "--delta", "1e-6"],
            "bisection": ["--epsilon", "1", "--delta", "1e-6"],
            "synth": ["--epsilon", "1", "-o", str(folder / "out.txt")], "info": []}[command]
    n = max(n, 2 + (n % 2))  # an even n for the bisection
    n += n % 2
    if command not in _WARM:  # imports and first calls, once, outside the measurement
        warm = folder / "warm.gset"
        warm.write_text("4 2\n1 2 1\n3 4 1\n")
        main([command, str(warm), "-q", *args])
        # numba is imported on the first kernel call (an import's tens of MB of Python
        # objects, as dpgraph's own import was before): imported here, outside the measurement
        from dpgraph.engine.local_search import numba_available

        numba_available()
        _WARM.add(command)
    path = folder / "h.gset"
    path.write_text(f"{n} 1\n1 2 1\n")
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    outcome, peak = _peak(lambda: main([command, str(path), "-q", *args]))
    assert peak < parse_bytes(LIMIT), (command, n, outcome)
    assert outcome in (0, 2), outcome


def test_synthetic_release_sizes_memory_by_what_a_sample_can_hold():
    """A tiny epsilon draws an edge count far beyond n (n - 1) / 2; the memory check counts at
    most that many edges (10 nodes at eps 1e-7 were refused for about 10^8 edges)."""
    import warnings

    import dpgraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.release_synthetic(nx.path_graph(10), epsilon=1e-7, rng=0)
        assert 0 <= pg.sample(rng=0).m <= 45


def _factor_release(n=6000, degree=10.0):
    from dpgraph.datasets import planted_cut
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes.matrix_free import release_matrix_free

    g = planted_cut(n, degree, rng=0).graph
    return release_matrix_free(g, epsilon=4.0, delta=1e-6, rank=1,
                               ledger=PrivacyLedger(4.0, 1e-6), rng=0)


def test_factor_form_sample_and_export_are_priced_before_they_allocate(monkeypatch):
    """The factor form's sample and weighted export ran out of memory past any check (a
    released edge count of 1.7e8 on 50,000 nodes at a tiny epsilon; max_edges=10^12)."""
    pg = _factor_release()
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")
    with pytest.raises(InsufficientMemoryError, match="sample_dask"):
        pg.sample(rng=0)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "400M")  # the row blocks fit, 10^12 pairs not
    with pytest.raises(InsufficientMemoryError, match=r"At most max_edges=[\d,]+ fits"):
        pg.to_graph_data(max_edges=10**12)
    monkeypatch.delenv("DPGRAPH_MEMORY_LIMIT")
    # a released degree total beyond n (n - 1) / 2 draws about that many edges, no more
    import dataclasses

    n = pg.n
    huge = dataclasses.replace(pg, degrees=np.asarray(pg.degrees) * 1e6)
    draws = sum(t[2] for t in huge.sample_plan(rng=0).tasks)
    assert draws <= 1.01 * n * (n - 1) / 2


def test_dense_exports_are_priced_before_they_allocate(monkeypatch):
    """A dense release's exports built n^2 pairs and the library graph unchecked (a bare
    MemoryError inside networkx at n = 6,000)."""
    import dpgraph

    pg = dpgraph.privatize(nx.gnp_random_graph(200, 0.2, seed=1), epsilon=0.05, delta=1e-6,
                           route="randomized-response", rng=0)
    data = pg.to_graph_data()
    assert data.m > 15_000  # at this epsilon nearly every pair carries weight
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "4M")
    with pytest.raises(InsufficientMemoryError, match="a networkx graph of 200 nodes"):
        pg.to_networkx()
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")
    with pytest.raises(InsufficientMemoryError, match="sparse export of [\\d,]+ weighted pairs"):
        pg.to_scipy()
    assert pg.to_networkx(max_edges=100).number_of_edges() == 100
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "100K")
    with pytest.raises(InsufficientMemoryError, match="n x n copies"):
        pg.to_graph_data(max_edges=10)


@pytest.mark.parametrize("options", [{"rank": 10**6}, {"samples": 10**8},
                                     {"anneal_sweeps": 10**9}])
def test_engine_options_are_priced_before_the_solve(monkeypatch, options):
    """rank, samples and anneal_sweeps grow the engine's arrays: 6 GiB at rank 10^6 on 800
    nodes came as a bare MemoryError."""
    from dpgraph import solve_max_cut

    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    outcome, peak = _peak(lambda: solve_max_cut(nx.cycle_graph(800), **options))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    assert peak < parse_bytes(LIMIT) and "Lower rank" in str(outcome)


def test_dense_baselines_refused_before_the_reference_solve(monkeypatch):
    """`dpgraph bench` on email-Enron ran its 63 s reference, then died allocating 5 GiB for
    randomized response's n x n release."""
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    G = nx.cycle_graph(3000)
    with pytest.raises(InsufficientMemoryError, match=r"They fit up to [\d,]+ nodes.*--methods "
                                                      r"dpgraph,random"):
        run_transfer_benchmark(G, epsilons=(1,), seeds=(0,),
                               methods=("dpgraph", "randomized response", "random"))


def test_an_unpriced_memory_error_is_one_command_line():
    """A MemoryError no check priced ended the command with a traceback (exit status 1)."""
    from dpgraph.cli.errors import error_line, expected_errors

    assert issubclass(MemoryError, expected_errors())
    line = error_line(MemoryError("Unable to allocate 2.46 GiB"))
    assert line.startswith("dpgraph: error: out of memory (Unable to allocate 2.46 GiB)")
    assert "\n" not in line
    refusal = InsufficientMemoryError("x needs about 3 GiB")  # a priced refusal is as it was
    assert error_line(refusal) == "dpgraph: error: x needs about 3 GiB"


def test_the_engine_prices_its_default_options(monkeypatch):
    """solve_max_cut with its defaults was never priced: a 30,000-node graph ran to a 57 MiB
    peak under DPGRAPH_MEMORY_LIMIT=1M. The defaults are checked too, before the solve."""
    import tracemalloc

    import networkx as nx

    import dpgraph
    from dpgraph.graph import as_graph_data
    from dpgraph.memory import InsufficientMemoryError

    G = as_graph_data(nx.gnm_random_graph(30_000, 60_000, seed=0))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match="the Max-Cut engine on 30,000 nodes "
                                                          "with the default rank"):
            dpgraph.solve_max_cut(G, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20


def test_randomized_response_answer_stays_within_its_price():
    """max_cut on the randomized-response route held every candidate objective's n x n
    operator at once: at n = 1,000 its traced peak was 77.8 MiB against the 53.4 MiB priced
    (BYTES_PER_PAIR n^2). Each operator is now dropped after its solve."""
    import tracemalloc
    import warnings

    import networkx as nx

    import dpgraph
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.randomized_response import BYTES_PER_PAIR

    n = 600
    G = as_graph_data(nx.gnm_random_graph(n, 5 * n, seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dpgraph.max_cut(as_graph_data(nx.gnm_random_graph(60, 300, seed=0)), epsilon=1.0,
                        delta=1e-6, route="randomized-response", rng=0)  # first calls
        tracemalloc.start()
        try:
            dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, route="randomized-response", rng=0)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak <= 1.1 * BYTES_PER_PAIR * n * n


def test_factor_form_abs_total_in_row_blocks():
    """The matrix-free release's operator summed |W_off| over a dense n x n copy and its
    absolute value (283 MiB peak for max_cut at n = 4,000); it sums 256 rows at a time."""
    import tracemalloc

    from dpgraph.release.factor_graph import LowRankOperator

    rng = np.random.default_rng(0)
    n, k = 3000, 6
    U = rng.standard_normal((n, k))
    K = rng.standard_normal((k, k))
    op = LowRankOperator(U, (K + K.T) / 2, labels=tuple(range(n)))
    D = (U @ ((K + K.T) / 2)) @ U.T
    np.fill_diagonal(D, 0.0)
    expected = float(np.abs(D).sum())
    del D
    tracemalloc.start()
    try:
        got = op.abs_total()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == pytest.approx(expected, rel=1e-12)
    assert peak < 2 * 8 * 256 * n + 2**20  # a block and its absolute value


def test_release_synthetic_prices_its_label_passes_before_the_edge_count(monkeypatch):
    """The label passes hold 8 n (2 k + 7) bytes for k labels, k chosen from the released edge
    count: priced at the most labels (PASS_MAX_LABELS) before the count is drawn, so a call
    whose passes could not fit is refused with nothing spent (docs/privacy.md 11.1)."""
    import scipy.sparse as sp

    from dpgraph.graph import GraphData
    from dpgraph.synthetic import release_synthetic
    from dpgraph.synthetic.communities import label_pass_memory
    from dpgraph.synthetic.release import PASS_MAX_LABELS, synthetic_memory

    n = 10**6
    assert synthetic_memory(n, 0) < 4e8 < label_pass_memory(n, PASS_MAX_LABELS)
    W = sp.csr_array((np.ones(2), (np.array([0, 1]), np.array([1, 0]))), shape=(n, n))
    g = GraphData(weights=W, labels=range(n))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "400M")
    spent = []
    monkeypatch.setattr("dpgraph.synthetic.release.release_edge_total",
                        lambda *a, **k: spent.append(1))
    with pytest.raises(InsufficientMemoryError, match="label passes"):
        release_synthetic(g, epsilon=1.0, rng=0, communities="private")
    assert not spent


def test_sorting_the_nodes_is_priced_before_it_copies(monkeypatch):
    """A private input whose labels are not in sorted order is copied in that order
    (docs/privacy.md 4.14): the copy is priced first, and refused with nothing allocated."""
    import scipy.sparse as sp

    from dpgraph.graph import GraphData, in_label_order

    n = 100_000
    W = sp.csr_array((np.ones(2), (np.array([0, 1]), np.array([1, 0]))), shape=(n, n))
    g = GraphData(weights=W, labels=tuple(range(n - 1, -1, -1)))
    assert in_label_order(g).labels[:3] == (0, 1, 2)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "4M")
    with pytest.raises(InsufficientMemoryError, match="sorted label order"):
        in_label_order(g)
    sorted_g = GraphData(weights=W, labels=range(n))
    assert in_label_order(sorted_g) is sorted_g  # already in order: no copy, nothing priced


def test_dask_edges_are_not_priced_on_the_client(monkeypatch):
    """On a Dask edge list the matrix-free route's blocks stay on the workers, and the client
    holds O(n r): at 10^6 nodes and 2 * 10^8 released edges the estimate with the edges was
    5.47 GiB against a measured client peak of 0.83 GiB, so under a 3 GiB limit `auto`
    dropped the route's candidates and route='matrix-free' was refused. The client's share is
    priced alone there; an in-memory graph still prices its CSR."""
    from dpgraph.release.routes.matrix_free import estimated_memory
    from dpgraph.release.screening import matrix_free_share, refuse_if_too_large

    n, m = 10**6, 2 * 10**8
    assert estimated_memory(n, m, 2) > 3 * 2**30 > estimated_memory(n, m, 2, edges_held=False)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "3G")
    assert matrix_free_share(n, m, 4.0, 1e-6) == 0.0
    assert matrix_free_share(n, m, 4.0, 1e-6, edges_held=False) > 0.0
    refuse_if_too_large("matrix-free", n, m, 2, edges_held=False)  # fits: returns
    refuse_if_too_large("local", n, m, 2, edges_held=False)
    with pytest.raises(InsufficientMemoryError):
        refuse_if_too_large("matrix-free", n, m, 2)
