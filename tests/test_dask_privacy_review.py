"""The private answers on Dask edge lists (docs/privacy.md 9, 14.7): what the reader makes of a
listing, the coupled replay of 14.8 on adjacent Dask inputs, the answers against the in-memory
ones, and the refusals the reader makes before anything is spent.

The listings are those of real edge files: every edge once in one partition and again the other
way round in the next one, every third edge a third time in another (at half its weight where
the listing has a weight column: the merge, ``duplicates="max"``, keeps its weight), a
self-loop in each partition and, with weights, a weight-0 row (both dropped), rows shuffled. The adjacency of docs/privacy.md 4 is that of the graph read from
the listing: one pair's merged weight changed in ``[0, 1]``, however many rows list it, in
whichever partitions and orientations.

* **reading**: the listing reads as the in-memory graph (weights, labels, edge count, degrees,
  total weight) whatever its partitions and row blocks;
* **parity**: ``max_cut``, ``max_bisection`` and ``privatize(route="local")`` on the listing
  spend what they spend on the graph in memory (same ledger: names, epsilons, sensitivities,
  noise scales), and with the Dask plan (14.7) and the same seed they release the very same
  values (dyadic weights: the sums across row blocks are exact);
* **coupled replay** (tests/test_local_privacy_review.py): a run on a listing of ``G`` and a run on
  a listing of a neighbour ``H`` handed ``G``'s statistic at every draw release the same values,
  every charge bounds the privacy loss of the common transcript with the documented constants,
  and reaches it to within the grid's slack; bugs planted in the Dask path make it fail;
* **refusals**: a weight above 1 in any row block is refused before anything is spent, and a
  pair whose summed weights overflow is named by the files and lines (Parquet: rows; a Dask
  DataFrame: partitions and index labels) that list it.
"""

import warnings

import networkx as nx
import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import dask  # noqa: E402

import dpgraph  # noqa: E402
from dpgraph.graph import WeightSumOverflowError, as_graph_data  # noqa: E402
from dpgraph.io import GraphFormatError  # noqa: E402
from dpgraph.io.dask import from_dask, read_edge_files  # noqa: E402
from dpgraph.release.routes import local as L  # noqa: E402
from dpgraph.solve import cut_local as CL  # noqa: E402
from dpgraph.solve.candidates import true_cuts  # noqa: E402

# the coupling of docs/privacy.md 14.8 (tests/conftest.py puts tests/ on the path)
from test_local_privacy_review import ATTAINED, _check, _run  # noqa: E402


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _weighted(G, seed):
    """``G`` with dyadic weights in ``(0, 1]`` (sums exact in any order)."""
    H = G.copy()
    rng = np.random.default_rng(seed)
    for a, b in sorted(H.edges):
        H[a][b]["weight"] = float(rng.choice([0.25, 0.5, 0.75, 1.0]))
    return H


def _graph(n, p, seed, weighted=False):
    G = nx.gnp_random_graph(n, p, seed=seed)
    nx.set_edge_attributes(G, 1.0, "weight")
    return _weighted(G, seed) if weighted else G


def _listing(G, parts=3, seed=0):
    """The rows of edge files listing ``G``: a list of ``parts`` DataFrames (module docstring);
    without a weight column where every weight is 1 (the repeats then exact)."""
    edges = sorted(G.edges(data="weight", default=1.0))
    weighted = any(w != 1.0 for *_, w in edges)
    rows = [[] for _ in range(parts)]
    for k, (a, b, w) in enumerate(edges):
        p = k % parts
        rows[p].append((a, b, w))
        rows[(p + 1) % parts].append((b, a, w))   # the other orientation, another partition
        if k % 3 == 0:  # a repeat in a third partition; smaller where weighted: max keeps w
            rows[(p + 2) % parts].append((a, b, w / 2 if weighted else w))
    nodes = sorted(G)
    non_edges = [(a, b) for a, b in zip(nodes, nodes[::-1]) if a < b and not G.has_edge(a, b)]
    for p in range(parts):
        rows[p].append((nodes[p], nodes[p], 1.0))     # a self-loop: dropped
        if non_edges and weighted:
            rows[p].append((*non_edges[p % len(non_edges)], 0.0))  # weight 0: dropped
    columns = ["u", "v", "weight"]
    return [pd.DataFrame(r, columns=columns)[columns if weighted else columns[:2]]
            .sample(frac=1.0, random_state=seed + p).reset_index(drop=True)
            for p, r in enumerate(rows)]


def _dask(G, parts=3, seed=0, blocks=None):
    """A :class:`DaskGraph` read from ``_listing(G)``, one Dask partition per part, on the
    public node set of ``G``."""
    frames = [dd.from_pandas(f, npartitions=1) for f in _listing(G, parts, seed)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return from_dask(dd.concat(frames), nodes=sorted(G), blocks=blocks)


_SPARSE, _DENSE = _graph(60, 0.1, 3), _graph(60, 0.25, 1)
_DENSE_W = _graph(60, 0.3, 2, weighted=True)
# a bipartite graph: the chosen cut holds nearly every edge, so the estimate's interval reaches
# past the edge count, where it is capped by the released count's upper end (4.10)
_BIPARTITE = nx.convert_node_labels_to_integers(nx.bipartite.random_graph(30, 30, 0.5, seed=1))
nx.set_edge_attributes(_BIPARTITE, 1.0, "weight")


# ----------------------------------------------------------------------------- reading

@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("parts, blocks", [(1, None), (3, None), (4, 3), (5, 60)])
def test_a_listing_reads_as_the_graph_in_memory_whatever_its_partitions(parts, blocks,
                                                                        weighted):
    """docs/privacy.md 9: self-loops and weight-0 rows dropped, a pair listed in both
    orientations and again (at a smaller weight) in other partitions merged to one edge of its
    weight ("max"), in every partitioning and row blocking: the weights, labels, edge count,
    degrees, total weight, weight range and cuts of the in-memory graph, exactly."""
    G = _DENSE_W if weighted else _DENSE
    ref = as_graph_data(G)
    dg = _dask(G, parts=parts, seed=parts, blocks=blocks)
    got = dg.to_graph_data()
    assert tuple(dg.labels) == tuple(ref.labels) and dg.m == ref.m
    assert abs(got.weights - ref.weights).max() == 0.0
    assert np.array_equal(dg.degrees, ref.degrees)
    assert dg.total_weight == ref.total_weight
    assert dg.weight_range == (ref.weights.data.min(), ref.weights.data.max())
    P = np.random.default_rng(parts).choice([-1.0, 1.0], size=(ref.n, 3))
    assert np.array_equal(dg.cut_values(P), true_cuts(ref)(P))


# ----------------------------------------------------------------------------- parity

def _answer(fn, **kw):
    def call(G, seed):
        res = getattr(dpgraph, fn)(G, rng=seed, **kw)
        rel = res.private_graph.local
        return res.ledger, rel.order, (sorted(res.assignment.items()), res.estimated_value,
                                       res.estimate_interval, res.diagnostics["objective"],
                                       res.diagnostics["candidates"], rel.order.tolist(),
                                       rel.candidates.tobytes(), rel.fields.tobytes(),
                                       rel.confidence.tobytes(), rel.degrees.tobytes(),
                                       rel.plan)
    return call


def _privatize(epsilon):
    def call(G, seed):
        # (in memory the default synthetic_share adds a block model, which Dask input has not)
        pg = dpgraph.privatize(G, epsilon=epsilon, delta=0.0, route="local", rng=seed,
                               synthetic_share=None)
        rel = pg.local
        return pg.ledger, rel.order, (rel.order.tolist(), rel.candidates.tobytes(),
                                      rel.fields.tobytes(), rel.confidence.tobytes(),
                                      rel.degrees.tobytes(), rel.plan)
    return call


_CASES = {  # (call, graph, epsilon, the charges the case must make and attain)
    "max_cut forward": (_answer("max_cut", epsilon=1.0, delta=0.0), _SPARSE, 1.0,
                        ["screening", "degrees", "forward pass", "choice", "cut of the"]),
    "max_cut backward": (_answer("max_cut", epsilon=4.0, delta=0.0), _DENSE, 4.0,
                         ["screening", "degrees", "forward pass", "backward pass", "choice",
                          "cut of the"]),
    "max_bisection weighted": (_answer("max_bisection", epsilon=4.0, delta=0.0), _DENSE_W, 4.0,
                               ["degrees", "forward pass", "backward pass", "cut of the"]),
    "max_cut bipartite": (_answer("max_cut", epsilon=4.0, delta=0.0), _BIPARTITE, 4.0,
                          ["screening", "degrees", "forward pass", "cut of the"]),
    "privatize local": (_privatize(4.0), _DENSE, 4.0, ["degrees", "forward pass",
                                                       "backward pass"]),
}


def _ledger(ledger):
    return [(e.name, e.mechanism, e.epsilon, e.delta, e.sensitivity, e.noise_scale)
            for e in ledger.entries]


def _quiet(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args)


@pytest.mark.parametrize("case", list(_CASES))
def test_dask_answers_spend_and_release_what_the_in_memory_answers_do(monkeypatch, case):
    """docs/privacy.md 9 and 14.7: on a listing of the graph (two partitionings, one and
    several row blocks) the answer spends what it spends on the graph in memory, charge by
    charge, and, with the Dask plan given to the in-memory run and the same seed, releases the
    very same values: the screening count (the total weight), the degrees, every batch's
    fields, the candidates' cuts and the estimate are read as in memory."""
    call, G, _, _ = _CASES[case]
    runs = [_quiet(call, _dask(G, parts, seed=parts, blocks=blocks), 5)
            for parts, blocks in ((3, None), (4, 7))]
    mem_led, _, _ = _quiet(call, as_graph_data(G), 5)
    for led, _, out in runs:
        assert _ledger(led) == _ledger(mem_led)  # the in-memory plan: the same charges
        assert out == runs[0][2]                 # partitions and blocks change nothing
    real = L.plan_local
    dask_plan = lambda *a, **k: real(*a, **{**k, "passes_cost": True})  # noqa: E731
    monkeypatch.setattr(L, "plan_local", dask_plan)
    monkeypatch.setattr(CL, "plan_local", dask_plan)
    led, _, out = _quiet(call, as_graph_data(G), 5)
    assert out == runs[0][2] and _ledger(led) == _ledger(runs[0][0])


# ----------------------------------------------------------------------------- coupled replay

def _neighbours(G, order):
    """``[(what, H)]``: ``G`` with one pair toggled, the pairs picked along the reference run's
    ``order`` (no core on Dask; the first batches hold one node each, the last several), or
    one existing edge reweighted to 1/2."""
    o = [int(v) for v in order]
    n = len(o)
    pairs = {"first two": (o[0], o[1]), "in the last batch": (o[-2], o[-1]),
             "first and late": (o[0], o[n - 3]), "across batches": (o[1], o[n // 2])}
    out = []
    for what, (a, b) in pairs.items():
        H = G.copy()
        if H.has_edge(a, b):
            H.remove_edge(a, b)
        else:
            H.add_edge(a, b, weight=1.0)
        out.append((what, H))
    a, b = sorted(G.edges)[len(G.edges) // 2]
    H = G.copy()
    H[a][b]["weight"] = 0.5
    return out + [("reweighted", H)]


def _coupled_violations(monkeypatch, case, seed=0):
    """The coupled check of tests/test_local_privacy_review.py on listings: ``G`` and each
    neighbour read from their own listings (their rows in other partitions and orders)."""
    call, G, eps, _ = _CASES[case]
    dG = _dask(G, seed=seed)
    base_G, out_G, led_G, order = _run(monkeypatch, call, dG, seed)
    bad, worst = [], {}
    for what, H in _neighbours(G, order):
        dH = _dask(H, seed=seed + 1)
        base_H, out_H, led_H, _ = _run(monkeypatch, call, dH, seed)
        for (base, out0, led0), other in (((base_G, out_G, led_G), dH),
                                          ((base_H, out_H, led_H), dG)):
            coupled, out1, _, _ = _run(monkeypatch, call, other, seed, replay=base)
            if out0 != out1:
                bad.append(f"{what}: the coupled runs released different values")
            found, ratios = _check(base, coupled, led0, eps)
            bad += [f"{what}: {v}" for v in found]
            for key, r in ratios.items():
                worst[key] = max(worst.get(key, 0.0), r)
    return bad, worst


@pytest.mark.parametrize("case", list(_CASES))
def test_each_charge_bounds_the_privacy_loss_on_adjacent_dask_inputs(monkeypatch, case):
    """docs/privacy.md 14.1-14.5, 14.7, 14.9, 4.9-4.11 on Dask listings: the coupled runs on a
    listing of ``G`` and of a neighbour (a pair toggled, listed twice in two partitions and
    orientations, or an edge reweighted to 1/2) release the same values; every charge bounds
    the privacy loss of the common transcript, with the documented sensitivity at the charged
    epsilon, the charges sum to epsilon with delta unspent, and each charge is attained to
    within the grid's slack (no constant is loose)."""
    bad, worst = _coupled_violations(monkeypatch, case)
    assert not bad, bad[:6]
    for what in _CASES[case][3]:
        ratios = [r for key, r in worst.items() if what in key]
        assert ratios and max(ratios) >= ATTAINED, (what, worst)


def _plant(monkeypatch, target):
    """Plant one bug in the Dask path (the in-memory path left as it is)."""
    import scipy.sparse as sp

    from dpgraph.io.dask import DaskGraph
    from dpgraph.solve import cut as CUT

    if target == "total weight not halved":  # the screening count reads twice the weight
        real = DaskGraph.total_weight.fget
        monkeypatch.setattr(DaskGraph, "total_weight", property(lambda g: 2.0 * real(g)))
    elif target == "forward pass drawn at the decision budget":
        real = L.forward_pass

        def forward(weights, *args, epsilon, ledger, **kw):
            if not sp.issparse(weights):  # eps_m = eps_d (1 - share) / share, not eps_1
                eps_d = next(e.epsilon for e in ledger.entries if e.name == "local route: degrees")
                epsilon = eps_d * (1.0 - L.DEGREE_SHARE) / L.DEGREE_SHARE
            return real(weights, *args, epsilon=epsilon, ledger=ledger, **kw)
        monkeypatch.setattr(L, "forward_pass", forward)
    elif target == "fields read undecided nodes":
        real = L._rows_product
        monkeypatch.setattr(L, "_rows_product", lambda w, rows, x: real(
            w, rows, x if sp.issparse(w) else np.where(x == 0, 1.0, x)))
    elif target in ("plan from the true edge count", "interval capped by the true edge count"):
        real_size, real_plan = CUT._size_by_edge_count, CL.plan_local

        def size(data, *args):
            m_hat, m_upper, route = real_size(data, *args)
            _TRUE["m"] = data.m
            if target.startswith("interval"):
                m_upper = min(m_upper, data.m)
            return m_hat, m_upper, route
        monkeypatch.setattr(CUT, "_size_by_edge_count", size)
        if target.startswith("plan"):
            monkeypatch.setattr(CL, "plan_local", lambda n, m_hat, eps, **kw: real_plan(
                n, _TRUE["m"], eps, **kw))
    else:
        raise AssertionError(target)


_TRUE = {}


@pytest.mark.parametrize("target, case", [
    ("total weight not halved", "max_cut forward"),
    ("forward pass drawn at the decision budget", "max_cut backward"),
    ("fields read undecided nodes", "max_cut forward"),
    ("plan from the true edge count", "max_cut backward"),
    ("interval capped by the true edge count", "max_cut bipartite"),
])
def test_the_coupled_check_on_dask_catches_each_planted_bug(monkeypatch, target, case):
    """Each bug, planted in the Dask path alone, makes the coupled check fail: a statistic of
    twice its sensitivity, a batch drawn at more than its charge, a pair read by both its
    endpoints' fields, a plan or a released range that reads the true edge count."""
    _plant(monkeypatch, target)
    bad, _ = _coupled_violations(monkeypatch, case)
    assert bad


# ----------------------------------------------------------------------------- refusals

def test_a_weight_above_one_in_a_later_row_block_is_refused_before_anything_is_spent(
        spend_spy):
    """docs/privacy.md 4.12, 9: the weight range is that of every row block, not of the first:
    one pair of weight 2 in the last of three blocks is refused before any charge or draw
    (a change of that pair would move its two degrees by 2 each, twice their sensitivity)."""
    G = _graph(30, 0.2, 4)
    G.add_edge(28, 29, weight=2.0)
    dg = _dask(G, blocks=3)
    assert dg.weight_range == (1.0, 2.0)
    for call in (lambda: dpgraph.max_cut(dg, epsilon=1.0, delta=0.0, rng=0),
                 lambda: dpgraph.privatize(dg, epsilon=1.0, delta=0.0, route="local", rng=0)):
        with pytest.raises(ValueError, match=r"weights in \[1\.0, 2\.0\]"):
            call()
    assert spend_spy == {"charge": 0, "draw": 0}


# ----------------------------------------------------------------------------- overflow

def test_an_overflowing_sum_in_csv_edge_files_names_each_file_and_line(tmp_path):
    """duplicates='sum' on a pair whose listings, in two files (comment lines and a blank line
    before them, an orientation of each, spaces around an id), add up past float64: the
    refusal names the first file and line, as dpgraph.read_graph does, and every listing by
    file and line; a GraphFormatError and a WeightSumOverflowError."""
    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "p0.csv").write_text("# part 0\nu,v,weight\n0,1,1e308\n1,2,1\n\n2,0,1\n")
    (folder / "p1.csv").write_text("u,v,weight\n3,2,1\n 1 , 0 ,1e308\n")
    for ids in ("auto", "str"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(WeightSumOverflowError) as err:
                read_edge_files(folder, duplicates="sum", ids=ids)
        pair = (0, 1) if ids == "auto" else ("0", "1")
        assert str(err.value).startswith(
            f"{folder / 'p0.csv'}, line 3: node pair {pair!r}, listed 2 times (p0.csv line 3 "
            f"and p1.csv line 3), has weights that add up past 1.8e+308")
        assert isinstance(err.value, GraphFormatError)
        assert (err.value.path, err.value.line, err.value.pair) == (str(folder / "p0.csv"), 3,
                                                                    pair)


def test_an_overflowing_sum_in_gzip_csv_files_names_the_line(tmp_path):
    """Gzip-compressed CSV files (one partition each): the same, three listings in two files,
    two of them in one."""
    import gzip

    folder = tmp_path / "edges"
    folder.mkdir()
    for name, text in (("p0.csv.gz", "u,v,weight\n5,6,1\n6,5,1e308\n"),
                       ("p1.csv.gz", "u,v,weight\n6,7,1\n5,6,1e308\n")):
        with gzip.open(folder / name, "wt") as fh:
            fh.write(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GraphFormatError, match=r"p0\.csv\.gz, line 2: node pair \(5, 6\), "
                                                   r"listed 3 times \(p0\.csv\.gz line 2, "
                                                   r"p0\.csv\.gz line 3 and p1\.csv\.gz line 3\)"):
            read_edge_files(folder, duplicates="sum")


def test_an_overflowing_sum_in_parquet_files_or_a_frame_names_the_rows(tmp_path):
    """Parquet files have no lines: each listing is named by file and row (from 1); a Dask
    DataFrame's by partition and index label."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"u": [0, 1], "v": [1, 2], "weight": [1e308, 1.0]}),
                   tmp_path / "a.parquet")
    pq.write_table(pa.table({"u": [5, 1], "v": [6, 0], "weight": [1.0, 1e308]}),
                   tmp_path / "b.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GraphFormatError) as err:
            read_edge_files(tmp_path, duplicates="sum")
    assert str(err.value).startswith(f"{tmp_path / 'a.parquet'}: node pair (0, 1), listed 2 "
                                     f"times (a.parquet row 1 and b.parquet row 2), has")
    df = pd.DataFrame({"u": ["a", "b", "c", "b"], "v": ["b", "c", "d", "a"],
                       "weight": [1e308, 1.0, 1.0, 1e308]}, index=[10, 11, 12, 13])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(WeightSumOverflowError) as err:
            from_dask(dd.from_pandas(df, npartitions=2, sort=False), duplicates="sum")
    assert str(err.value).startswith("dask DataFrame: node pair ('a', 'b'), listed 2 times "
                                     "(partition 0 index 10 and partition 1 index 13), has")
    assert not isinstance(err.value, GraphFormatError) and err.value.pair == ("a", "b")


def test_a_pandas_index_column_is_refused_not_read_as_an_endpoint(tmp_path):
    """``DataFrame.to_csv`` writes its index as a first column without a name; read_graph
    refuses such a file, and the Dask reader did not: it read the index as an endpoint (a
    two-edge file came back as another graph). Named endpoint columns still read it."""
    pd.DataFrame({"source": [1, 2], "target": [2, 3]}).to_csv(tmp_path / "e.csv")
    with pytest.raises(ValueError, match=r"e\.csv, line 1: an empty column name.*index=False"):
        read_edge_files(str(tmp_path / "e.csv"))
    with pytest.raises(GraphFormatError, match="an empty column name"):
        dpgraph.read_graph(str(tmp_path / "e.csv"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the index column is not read: said by a warning
        g = read_edge_files(str(tmp_path / "e.csv"), u="source", v="target")
    assert (g.n, g.m) == (3, 2)


def test_an_explicit_core_on_dask_is_refused_before_anything_is_spent():
    """A core's pairs are a dense block of the matrix, which edges on Dask do not give: an
    explicit ``LocalPlan(core=...)`` failed after the degrees were charged."""
    import dataclasses

    from dpgraph.privacy import PrivacyLedger

    G = nx.karate_club_graph()
    g = from_dask(dd.from_pandas(pd.DataFrame(list(G.edges()), columns=["u", "v"]),
                                 npartitions=2))
    plan = dataclasses.replace(L.plan_local(34, 78, 1.0), core=5)
    led = PrivacyLedger(epsilon=1.0, delta=0)
    with pytest.raises(ValueError, match="needs the graph in memory"):
        L.release_local_sides(g, epsilon=1.0, ledger=led, rng=0, plan=plan)
    assert led.spent == (0.0, 0.0) and not led.entries
