"""Dask edge lists: every pass agrees with the in-memory graph; ids, bad input; a LocalCluster."""

import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import dpgraph  # noqa: E402
from dpgraph.io.dask import from_dask, read_edge_files  # noqa: E402
from dpgraph.graph import GraphInputWarning, from_edges  # noqa: E402

# these frames' node sets are their edges' endpoints, which a private call says in a warning
# (tests/test_answer_data_flow.py checks it); here the routes on Dask are what is tested
pytestmark = pytest.mark.filterwarnings("ignore:the node set of a Dask DataFrame of edges")


@pytest.fixture(scope="module")
def cluster_client():
    """Two worker processes, one thread each (the issue's test setting)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, memory_limit="1GiB") as cluster:
        with distributed.Client(cluster) as client:
            yield client


def _edge_frame(n=300, d=8, seed=0, labels=None):
    inst = dpgraph.datasets.planted_cut(n, d, rng=seed)
    g = inst.graph
    A = g.weights.tocoo()
    keep = A.row < A.col
    u, v = A.row[keep], A.col[keep]
    lab = np.asarray(g.labels if labels is None else labels)
    df = pd.DataFrame({"u": lab[u], "v": lab[v]})
    return g, df


@pytest.mark.slow  # 7-14 s on 2 cores (a local Dask cluster)
def test_passes_match_in_memory(cluster_client):
    g, df = _edge_frame()
    dg = from_dask(dd.from_pandas(df.sample(frac=1.0, random_state=1), npartitions=7))
    assert dg.n == g.n and dg.m == g.m
    order = [dg.labels.index(lab) for lab in g.labels]
    assert np.allclose(dg.degrees[order], g.degrees)
    X = np.random.default_rng(0).standard_normal((g.n, 3))
    Xd = np.empty_like(X)
    Xd[order] = X
    assert np.allclose((dg.weights @ Xd)[order], g.weights @ X)
    # same rows, same sorted columns, float64 arithmetic: the very same numbers
    assert dg.labels == g.labels and np.array_equal(dg.weights @ X, g.weights @ X)
    assert np.array_equal(dg.degrees, g.degrees)
    P = np.random.default_rng(1).integers(0, 2, size=(g.n, 4))
    Pd = np.empty_like(P)
    Pd[order] = P
    expect = [sum(1 for a, b in zip(*g.weights.nonzero()) if a < b and P[a, k] != P[b, k])
              for k in range(4)]
    assert np.allclose(dg.cut_values(Pd), expect)
    assert dg.total_weight == g.m and dg.is_unweighted and dg.weight_range == (1.0, 1.0)
    edges = dg.edges.compute()  # the canonical edge list, rebuilt from the blocks
    i, j, _ = g.edges()
    assert sorted(zip(edges["i"], edges["j"])) == sorted(zip(i, j))


def test_local_scheduler_without_cluster(cluster_client):
    """A client exists but the synchronous scheduler is chosen: nothing is scattered to it."""
    import dask

    g, df = _edge_frame(n=80, d=6, seed=5)
    with dask.config.set(scheduler="sync"):
        dg = from_dask(dd.from_pandas(df, npartitions=3), blocks=4)
        X = np.random.default_rng(2).standard_normal((g.n, 2))
        assert np.array_equal(dg.weights @ X, g.weights @ X)
        assert np.array_equal(dg.degrees, g.degrees)


@pytest.mark.slow  # 5 s on 2 cores (a local Dask cluster)
def test_string_labels_and_both_directions(cluster_client):
    df = pd.DataFrame({"u": ["x", "y", "y", "z", "z"], "v": ["y", "x", "z", "z", "w"]})
    with pytest.warns(GraphInputWarning) as rec:
        dg = from_dask(dd.from_pandas(df, npartitions=2))
    text = " ".join(str(r.message) for r in rec)
    assert "1 self-loop" in text and "1 repeated node pair" in text
    assert dg.labels == ("w", "x", "y", "z") and dg.m == 3
    assert dg.to_graph_data().weights.max() == 1.0  # x-y listed twice is one edge (max)
    with pytest.raises(ValueError, match="repeated node pair"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GraphInputWarning)
            from_dask(dd.from_pandas(df, npartitions=2), duplicates="error")


@pytest.mark.slow  # 2-5 s on 2 cores (Dask)
def test_bad_input(tmp_path):
    df = pd.DataFrame({"src": [1, 2], "dst": [2, 3]})
    with pytest.raises(ValueError, match=r"columns found: \['src', 'dst'\]"):
        from_dask(dd.from_pandas(df, npartitions=1))
    (tmp_path / "a.csv").write_text("u,v\n1,2\n2,3\n")
    (tmp_path / "b.csv").write_text("u,v\nx,y\ny,z\n")  # ids of another type in another file
    with pytest.raises(ValueError, match="b.csv, line 2: 'x' is not an integer node id"):
        read_edge_files(str(tmp_path / "*.csv"))
    nan = pd.DataFrame({"u": [1, 2], "v": [2, 3], "weight": [0.5, float("nan")]})
    with pytest.raises(ValueError, match="NaN or infinite"):
        from_dask(dd.from_pandas(nan, npartitions=1))
    with pytest.raises(FileNotFoundError, match="no edge files"):
        read_edge_files(tmp_path / "nothing-*.parquet")


def test_parquet_and_csv_folders(tmp_path, cluster_client):
    g, df = _edge_frame(n=120, d=6)
    df["u"], df["v"] = df["u"].astype(np.int64), df["v"].astype(np.int64)
    df["weight"] = 1.0
    dd.from_pandas(df, npartitions=3).to_parquet(str(tmp_path / "pq"))
    dd.from_pandas(df, npartitions=3).to_csv(str(tmp_path / "csv" / "part-*.csv"), index=False)
    for spec in (tmp_path / "pq", str(tmp_path / "csv" / "*.csv")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dg = read_edge_files(spec)
        # dask's Parquet reader uses pandas' deprecated inplace=True; none of it reaches here
        assert not [w for w in caught if "inplace keyword" in str(w.message)]
        assert dg.n == g.n and dg.m == g.m
        assert np.allclose(dg.to_graph_data().weights.toarray(), g.weights.toarray())


def test_release_and_partition_match_the_in_memory_route(cluster_client):
    """Same input, seed and parameters: the Dask path gives the same release (up to the
    summation order of the products) and the same partition as the in-memory path."""
    g, df = _edge_frame(n=600, d=40, seed=3)
    ddf = dd.from_pandas(df, npartitions=4)
    kw = dict(epsilon=4.0, delta=1e-6, route="matrix-free")
    mem = dpgraph.privatize(g, rng=5, **kw)
    dsk = dpgraph.privatize(ddf, rng=5, **kw)
    assert dsk.labels == mem.labels
    assert np.allclose(dsk.degrees, mem.degrees)
    P_mem, P_dsk = mem.basis @ mem.basis.T[:, :5], dsk.basis @ dsk.basis.T[:, :5]
    assert np.allclose(P_mem, P_dsk, atol=1e-8)  # the released subspace
    assert [e.noise_scale for e in dsk.ledger.entries] == [e.noise_scale for e in mem.ledger.entries]
    r_mem = dpgraph.max_cut(g, rng=7, **kw)
    r_dsk = dpgraph.max_cut(ddf, rng=7, **kw)
    assert r_dsk.assignment == r_mem.assignment
    assert r_dsk.estimated_value == pytest.approx(r_mem.estimated_value, rel=1e-9)


def test_dense_routes_refuse_dask_edges(cluster_client):
    _, df = _edge_frame(n=60, d=6)
    with pytest.raises(ValueError, match="matrix-free"):
        dpgraph.privatize(dd.from_pandas(df, npartitions=2), epsilon=1.0, delta=1e-6,
                          route="randomized-response")
    with pytest.raises(ValueError, match="synthetic_share"):  # its block model is in memory
        dpgraph.privatize(dd.from_pandas(df, npartitions=2), epsilon=1.0, delta=1e-6,
                          synthetic_share=0.3)


def test_auto_on_dask_edges_pools_no_in_memory_route(cluster_client):
    """route="auto" on a small dense graph pools randomized response's candidates in memory
    (docs/privacy.md 14.11); on Dask edges, which that route cannot read, it answers on the
    local route alone instead of refusing."""
    g, df = _edge_frame(n=400, d=30, seed=2)
    kw = dict(epsilon=4.0, delta=1e-6, rng=3)
    mem = dpgraph.max_cut(g, **kw)
    assert any("randomized" in e.name for e in mem.ledger.entries)
    dsk = dpgraph.max_cut(dd.from_pandas(df, npartitions=2), **kw)
    assert dsk.diagnostics["route"] == "local"
    assert not any("randomized" in e.name for e in dsk.ledger.entries)
    assert dsk.ledger.spent[0] == pytest.approx(4.0)


@pytest.mark.slow  # 7-14 s on 2 cores (a local Dask cluster)
def test_cli_on_parquet_folder(tmp_path, cluster_client):
    """maxcut and synth on a Parquet folder, on the running test cluster (--scheduler)."""
    import subprocess
    import sys
    from pathlib import Path

    g, df = _edge_frame(n=400, d=30, seed=2)
    dd.from_pandas(df, npartitions=3).to_parquet(str(tmp_path / "edges"))
    root = Path(dpgraph.__file__).resolve().parent.parent
    sched = ["--scheduler", cluster_client.scheduler.address]
    done = subprocess.run([sys.executable, "-m", "dpgraph", "maxcut", str(tmp_path / "edges"),
                           "--epsilon", "4", "--delta", "1e-6", "--quiet", *sched],
                          capture_output=True, text=True, timeout=600, cwd=str(root))
    assert done.returncode == 0, done.stderr[-2000:]
    # the default on these edges: the local route, reading them by a few tens of passes
    assert "private estimate" in done.stdout and "route:             local" in done.stdout
    # synth: the sample is drawn and written as Parquet files by Dask tasks
    done = subprocess.run([sys.executable, "-m", "dpgraph", "synth", str(tmp_path / "edges"),
                           "--epsilon", "4", "--delta", "1e-6", "--mechanism", "privatize",
                           "-o", str(tmp_path / "synth"), "--quiet", *sched],
                          capture_output=True, text=True, timeout=600, cwd=str(root))
    assert done.returncode == 0, done.stderr[-2000:]
    back = pd.read_parquet(tmp_path / "synth")
    assert f"({g.n:,} nodes, {len(back):,} edges)" in done.stdout
    assert abs(len(back) - g.m) < 0.2 * g.m and (back["u"] < back["v"]).all()


def test_cli_synth_on_edge_files_refuses_what_needs_memory(tmp_path):
    """Checked before anything is read or spent: the mechanism, the in-memory options, and
    an output folder that is new or empty."""
    from types import SimpleNamespace

    from dpgraph.cli.synth import check_dask_synth

    ok = dict(mechanism="privatize", weighted=False, report=False, route="auto",
              synthetic_share=None, out=str(tmp_path / "new"))
    check_dask_synth(SimpleNamespace(**ok))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    for change, match in (({"mechanism": None}, "--mechanism privatize"),
                          ({"weighted": True}, "in memory"), ({"report": True}, "in memory"),
                          ({"route": "pca"}, "matrix-free"),
                          ({"synthetic_share": 0.3}, "matrix-free"),
                          ({"out": str(tmp_path / "full")}, "empty folder"),
                          ({"out": str(tmp_path / "no" / "such")}, "no such directory")):
        with pytest.raises((ValueError, OSError), match=match):
            check_dask_synth(SimpleNamespace(**{**ok, **change}))


def test_sampler_on_dask_draws_the_in_memory_sample(cluster_client, tmp_path, monkeypatch):
    """The synthetic graph drawn by Dask tasks (sample_dask, write_sample) is, for the same
    seed, the very graph the in-memory sampler draws (same plan, same per-task streams), in the
    caller's labels; several tasks and partitions on a small graph."""
    import dpgraph.synthetic.factor_sampler as mf

    monkeypatch.setattr(mf, "SAMPLE_CHUNK", 3000)  # the plan is made on the client
    labels = [f"n{i:04d}" for i in range(600)]
    g, df = _edge_frame(n=600, d=40, seed=3, labels=labels)
    pg = dpgraph.privatize(dd.from_pandas(df, npartitions=4), epsilon=4.0, delta=1e-6, rng=5,
                           route="matrix-free")
    assert pg.labels == tuple(labels)
    assert len(pg.sample_plan(11).tasks) > 3
    mem = pg.sample(rng=11)
    A = mem.weights.tocoo()
    up = A.row < A.col
    lab = np.asarray(labels, dtype=object)
    expect = list(zip(lab[A.row[up]], lab[A.col[up]]))
    assert len(expect) == mem.m > 0.8 * g.m
    edges = pg.sample_dask(rng=11)
    assert edges.npartitions > 1
    assert list(edges.compute().itertuples(index=False, name=None)) == expect
    one = pg.sample_dask(rng=11, partitions=1).compute()
    assert list(one.itertuples(index=False, name=None)) == expect
    assert pg.write_sample(tmp_path / "out", rng=11, partitions=3) == mem.m
    back = pd.read_parquet(tmp_path / "out")
    assert sorted(back.itertuples(index=False, name=None)) == expect
    with pytest.raises(FileExistsError, match="not empty"):
        pg.write_sample(tmp_path / "out", rng=11)
    # other seeds, other graphs; the secure default (rng=None) draws AES streams per task
    assert list(pg.sample_dask(rng=12).compute().itertuples(index=False, name=None)) != expect
    assert pg.sample_plan(None).cipher in ("aes", "chacha")
    assert len(pg.sample_dask().compute()) > 0.8 * g.m


@pytest.mark.slow  # 7-14 s on 2 cores (a local Dask cluster)
def test_weighted_duplicates_ids_and_blocks(cluster_client):
    """Non-contiguous integer ids (binary search), repeated pairs in both directions merged by
    max / sum, weight-0 edges dropped, float32 / float64 storage, any number of row blocks: the
    graph equals the in-memory reader's (dpgraph.graph.from_edges) on the same rows."""
    rng = np.random.default_rng(4)
    ids = np.sort(rng.choice(10**9, size=80, replace=False))
    rows = 700
    u, v = ids[rng.integers(0, 80, rows)], ids[rng.integers(0, 80, rows)]
    for w in (rng.integers(0, 5, rows) / 4.0, rng.random(rows)):  # float32-exact, float64
        df = pd.DataFrame({"u": u, "v": v, "weight": w})
        for dup in ("max", "sum"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GraphInputWarning)
                ref = from_edges(zip(u.tolist(), v.tolist(), w), nodes=np.unique([u, v]).tolist(),
                                 duplicates=dup)
                got = [from_dask(dd.from_pandas(df, npartitions=5), duplicates=dup, blocks=b)
                       for b in (1, 3, 80)]
            for dg in got:
                assert dg.labels == ref.labels and dg.m == ref.m
                gd = dg.to_graph_data()
                # "max" picks one of the values: exact; "sum" may add in another order
                tol = 0.0 if dup == "max" else 1e-12
                assert abs(gd.weights - ref.weights).max() <= tol
                assert np.allclose(dg.degrees, ref.degrees, rtol=0, atol=100 * tol)
                assert dg.total_weight == pytest.approx(ref.total_weight, rel=1e-12)
                assert dg.weight_range == (ref.weights.data.min(), ref.weights.data.max())
                X = rng.standard_normal((ref.n, 2))
                assert np.allclose(dg.weights @ X, ref.weights @ X, rtol=0, atol=1e3 * tol)
    with pytest.raises(ValueError, match="blocks=0"):
        from_dask(dd.from_pandas(df, npartitions=2), blocks=0)


def test_cli_synth_refuses_before_starting_a_dask_cluster(tmp_path, monkeypatch):
    # a refused option combination must not start a local cluster first (seconds lost)
    import dpgraph.cli.app as cli

    started = []

    class _Boom:
        def __init__(self, *a, **k):
            started.append(1)
            raise AssertionError("a Dask session was opened before the refusal")

    monkeypatch.setattr(cli, "dask_session", _Boom)
    folder = tmp_path / "edges"
    folder.mkdir()
    rc = cli.main(["synth", str(folder), "--epsilon", "1", "-o", str(tmp_path / "out")])
    assert rc == 2 and not started   # default mechanism needs the graph in memory: refused


def test_local_route_on_dask_matches_in_memory_and_takes_few_passes(cluster_client):
    """docs/privacy.md 14: the local route reads Dask edges by passes; with the same plan and
    seed it releases what the in-memory route releases, and its Dask plan is a few tens of
    batches (passes) whatever n."""
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes.local import plan_local, release_local_sides

    g, df = _edge_frame(n=600, d=12, seed=4)
    dg = from_dask(dd.from_pandas(df, npartitions=3))
    assert dg.labels == g.labels
    plan = plan_local(g.n, g.m, 2.0, passes_cost=True)
    assert plan.core == 0
    outs = [release_local_sides(x, epsilon=2.0, ledger=PrivacyLedger(), rng=9, plan=plan)
            for x in (g, dg)]
    assert np.array_equal(outs[0].candidates, outs[1].candidates)
    assert np.array_equal(outs[0].fields, outs[1].fields)
    res = dpgraph.max_cut(dd.from_pandas(df, npartitions=3), epsilon=2.0, delta=0, rng=1)
    assert res.diagnostics["route"] == "local" and res.ledger.spent[1] == 0.0
    assert res.private_graph.local.diagnostics["batches"] <= 40


def test_edge_files_whose_columns_differ_are_refused_and_markers_skipped(tmp_path):
    """A weight column in some files only was dropped without a word (or a worker's KeyError
    named no file); Spark's _SUCCESS and dask's _metadata made a folder unreadable."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    pq.write_table(pa.table({"u": [0, 1], "v": [1, 2]}), a / "p0.parquet")
    pq.write_table(pa.table({"u": [2, 3], "v": [3, 0], "weight": [0.1, 0.2]}), a / "p1.parquet")
    with pytest.raises(ValueError, match=r"do not have the same columns: p0\.parquet has"):
        read_edge_files(a)
    (tmp_path / "c.csv").write_text("u,v,weight\n0,1,0.5\n")
    (tmp_path / "d.csv").write_text("u,v\n1,2\n")
    with pytest.raises(ValueError, match="do not have the same columns"):
        read_edge_files(str(tmp_path / "*.csv"))
    pq.write_table(pa.table({"u": [0, 1, 2], "v": [1, 2, 3]}), b / "part-0.parquet")
    (b / "_SUCCESS").write_text("")
    (b / ".part-0.parquet.crc").write_text("x")
    assert read_edge_files(b).m == 3


def test_dask_refusals_come_before_the_edges_are_read(monkeypatch):
    """certify=True, a dense route and an unknown objective were refused only after every
    pass over the edges and their spill to disk; privatize(delta=0) named a route the user
    never asked for."""
    import dpgraph.io.dask as D

    _, df = _edge_frame(n=120, d=6)
    ddf = dd.from_pandas(df, npartitions=2)
    reads = []
    real = D.from_dask
    monkeypatch.setattr(D, "from_dask", lambda *a, **k: reads.append(1) or real(*a, **k))
    for kw in (dict(certify=True), dict(route="pca"), dict(route="randomized-response"),
               dict(candidates="bogus")):
        with pytest.raises(ValueError):
            dpgraph.max_cut(ddf, epsilon=1, delta=1e-6, rng=0, **kw)
    assert reads == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(ddf, epsilon=1, delta=0, rng=0)
    assert pg.diagnostics["route"] == "local"


def test_dask_sampler_refuses_labels_no_column_holds():
    import networkx as nx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(nx.grid_2d_graph(12, 12), epsilon=2, delta=1e-6, rng=1,
                               route="matrix-free", synthetic_share=None)
    assert pg.sample(rng=5, n_blocks=4).n == 144  # in memory: any labels
    with pytest.raises(ValueError, match=r"node label \(0, 0\) \(tuple\) cannot be a Dask"):
        pg.sample_dask(rng=5, n_blocks=4)


@pytest.mark.slow  # 9 s: the command starts a local Dask cluster
def test_cli_unweighted_reads_dask_edge_files_without_their_weights(tmp_path, capsys):
    """The command advised --unweighted for weights above 1, then refused it on edge files."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpgraph.cli.app import main

    folder = tmp_path / "e"
    folder.mkdir()
    _, df = _edge_frame(n=120, d=6)
    pq.write_table(pa.table({"u": df["u"].to_numpy(), "v": df["v"].to_numpy(),
                             "weight": np.full(len(df), 3.0)}), folder / "p.parquet")
    assert main(["maxcut", str(folder), "--epsilon", "1", "--delta", "1e-6", "--seed", "0",
                 "--route", "local", "--json", "-q"]) == 2
    assert "--unweighted" in capsys.readouterr().err
    assert main(["maxcut", str(folder), "--epsilon", "1", "--delta", "1e-6", "--seed", "0",
                 "--route", "local", "--unweighted", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["graph"]["nodes"] == 120


@pytest.mark.slow  # 9 s: the command starts a local Dask cluster
def test_info_on_dask_edge_files_keeps_json_and_notes(tmp_path, capsys):
    """`info --json` printed text on Dask edge files, and the reader's notes were dropped."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpgraph.cli.app import main

    folder = tmp_path / "e"
    folder.mkdir()
    pq.write_table(pa.table({"u": [0, 1, 1, 2, 3], "v": [1, 0, 2, 2, 0],
                             "weight": [0.5, 0.5, 1.0, 1.0, 0.25]}), folder / "p.parquet")
    assert main(["info", str(folder), "--json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "dpgraph.info/1" and doc["graph"]["format"] == "dask"
    assert doc["nodes"] == 4 and doc["edges"] == 3 and doc["components"] is None
    assert doc["weights"]["kind"] == "weighted" and doc["degree"] is None
    assert any("self-loop" in note for note in doc["notes"])
    assert main(["info", str(folder), "-q"]) == 0
    out = capsys.readouterr().out
    assert "w. degree:" in out and "note:" in out and "self-loop" in out


def test_missing_ids_named_and_float_stored_integer_ids_stay_integers(tmp_path):
    """A missing string id gave "not of one type (boolean value of NA is ambiguous)"; integer
    ids stored as floats in one file turned every label into a float."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = pd.DataFrame({"u": ["a", None, "c"], "v": ["b", "c", "d"]})
    with pytest.raises(ValueError, match="missing node ids"):
        from_dask(dd.from_pandas(df, npartitions=1))
    folder = tmp_path / "f"
    folder.mkdir()
    pq.write_table(pa.table({"u": [0, 1], "v": [1, 2]}), folder / "a.parquet")
    pq.write_table(pa.table({"u": [2.0], "v": [3.0]}), folder / "b.parquet")
    g = read_edge_files(folder)
    assert list(g.labels) == [0, 1, 2, 3] and all(type(x) is int for x in g.labels)


def test_cli_options_for_graph_files_are_refused_on_edge_files(tmp_path, capsys):
    """--format and --symmetrize were ignored without a word on Dask edge files (--ids is
    read_edge_files' ids=: tests/test_dask_parity.py)."""
    from dpgraph.cli.app import main

    (tmp_path / "e.csv").write_text("u,v\n0,1\n1,2\n")
    assert main(["info", str(tmp_path / "*.csv"), "--symmetrize", "max", "-q"]) == 2
    assert "--symmetrize applies to graph files" in capsys.readouterr().err


def test_public_node_set_keeps_nodes_without_edges(cluster_client):
    """nodes= (the public node set): ids without an edge become isolated nodes, so removing a
    node's only edge leaves n and the labels unchanged; an id outside it is refused, naming it.
    The blocks equal the in-memory reader's on the same node set."""
    df = pd.DataFrame({"u": [0, 1, 5], "v": [1, 2, 6]})
    dg = from_dask(dd.from_pandas(df, npartitions=2), nodes=10)
    ref = dpgraph.graph.with_nodes(from_edges([(0, 1), (1, 2), (5, 6)]), 10, source="ref")
    assert dg.labels == ref.labels == range(10) and dg.m == ref.m == 3
    assert np.array_equal(dg.degrees, ref.degrees)
    fewer = from_dask(dd.from_pandas(df.iloc[:2], npartitions=1), nodes=10)  # (5, 6) removed
    assert fewer.labels == dg.labels and fewer.m == 2
    names = pd.DataFrame({"u": ["b", "c"], "v": ["c", "d"]})
    named = from_dask(dd.from_pandas(names, npartitions=1), nodes=["d", "a", "c", "b", "z"])
    assert named.labels == ("a", "b", "c", "d", "z") and named.m == 2  # sorted, as the ids
    with pytest.raises(ValueError, match=r"1 node\(s\) with an edge are not in nodes, e.g. 6"):
        from_dask(dd.from_pandas(df, npartitions=2), nodes=6)
    with pytest.raises(ValueError, match="give nodes of the ids' type"):
        from_dask(dd.from_pandas(df, npartitions=2), nodes=[str(i) for i in range(10)])


def test_public_node_set_of_mixed_or_huge_ids_is_refused_naming_it(cluster_client):
    """Edge files hold ids of one type: a node set mixing integers and strings, or an integer
    beyond 64 bits, is refused with what to give (a bare TypeError / OverflowError before)."""
    df = pd.DataFrame({"u": [0, 1], "v": [1, 2]})
    with pytest.raises(ValueError, match="nodes mixes int, str"):
        from_dask(dd.from_pandas(df, npartitions=1), nodes=[0, 1, 2, "x"])
    with pytest.raises(ValueError, match="beyond 64-bit"):
        from_dask(dd.from_pandas(df, npartitions=1), nodes=[0, 1, 2, 2 ** 64])


def test_a_weight_column_the_caller_names_must_exist_and_an_unread_one_is_said(tmp_path):
    """weight='wt' (a typo) on edges whose weights are in column 'w' read every edge as weight
    1 without a word, and so did the default name next to a lone 'w' column; the CSV reader
    refuses the one and warns about the other."""
    import dask

    df = pd.DataFrame({"u": [0, 1, 2], "v": [1, 2, 0], "w": [0.25, 0.25, 0.25]})
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match=r"no weight column 'wt'.*\['u', 'v', 'w'\]"):
            from_dask(dd.from_pandas(df, npartitions=1), weight="wt")
        with pytest.warns(GraphInputWarning, match="column 'w' is not read"):
            g = from_dask(dd.from_pandas(df, npartitions=1))
        assert g.is_unweighted
        assert from_dask(dd.from_pandas(df, npartitions=1), weight="w").weight_range == (0.25,
                                                                                      0.25)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # weight=None: no weights read, nothing to say
            assert from_dask(dd.from_pandas(df, npartitions=1), weight=None).is_unweighted


def test_float_stored_integer_ids_take_an_integer_node_set(tmp_path):
    """Integer ids stored as floats in every file (pandas writes them so after a missing
    value) were refused with nodes=N ("give nodes of the ids' type"), and float nodes were
    refused too: no node set could be given."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "f"
    folder.mkdir()
    pq.write_table(pa.table({"u": [0.0, 1.0, 2.0], "v": [1.0, 2.0, 3.0]}), folder / "a.parquet")
    g = read_edge_files(folder, nodes=6)
    ref = dpgraph.graph.with_nodes(from_edges([(0, 1), (1, 2), (2, 3)]), 6, source="ref")
    assert g.labels == ref.labels == range(6) and g.m == 3
    assert np.array_equal(g.degrees, ref.degrees)
    pq.write_table(pa.table({"u": [0.5], "v": [1.0]}), folder / "b.parquet")
    with pytest.raises(ValueError, match="not in nodes, e.g. 0.5"):
        read_edge_files(folder, nodes=6)


def test_uint64_ids_beyond_int64_read(tmp_path):
    """Consecutive uint64 ids from 2**63 (hashed ids) failed in a worker with a bare
    OverflowError."""
    import dask

    df = pd.DataFrame({"u": [0, 1, 2], "v": [1, 2, 0]}).astype(np.uint64) + np.uint64(2 ** 63)
    with dask.config.set(scheduler="sync"):
        g = from_dask(dd.from_pandas(df, npartitions=2))
    assert g.labels == range(2 ** 63, 2 ** 63 + 3) and g.m == 3
    assert g.degrees.tolist() == [2.0, 2.0, 2.0]
