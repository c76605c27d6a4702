"""The streamed edge-list reader (dpgraph.io.stream) against the general path of read_snap:
the same graph, labels and warnings for every file, and the memory it promises."""

import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgraph.io import read_graph
from dpgraph.io import stream
from dpgraph.memory import InsufficientMemoryError

IDS = st.one_of(st.integers(0, 30), st.integers(-5, 5), st.integers(2**31 - 3, 2**31 + 3),
                st.integers(10**12, 10**12 + 50), st.sampled_from([0, 7, 10**9, 2**40]))


@pytest.fixture(autouse=True)
def _arrow_for_every_size(monkeypatch):
    """These tests read small files through the pyarrow stream, which the readers keep for
    files of ARROW_MIN_BYTES and more (tests/test_light_imports.py)."""
    import dpgraph.io.base

    monkeypatch.setattr(dpgraph.io.base, "ARROW_MIN_BYTES", 0)


def _read(path, monkeypatch, streamed, fmt="snap", **kw):
    """``(GraphData or the error text, warning texts)`` with or without the stream."""
    with monkeypatch.context() as mp:
        if not streamed:
            mp.setattr(stream, "read_edge_stream", lambda *a, **k: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                g = read_graph(path, format=fmt, **kw)
            except ValueError as exc:
                g = f"{type(exc).__name__}: {exc}"
    return g, sorted(str(w.message) for w in caught)


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return (tuple(a.labels) == tuple(b.labels) and a.weights.shape == b.weights.shape
            and (a.weights != b.weights).nnz == 0 and a.weights.data.dtype == np.float64
            and a.weights.has_sorted_indices)


def _settings(n):
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


@_settings(60)
@given(edges=st.lists(st.tuples(IDS, IDS), min_size=1, max_size=40),
       weights=st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, -2.0, 0.0, 3.25]),
                                             min_size=40, max_size=40)),
       sep=st.sampled_from(["\t", " "]), comment=st.booleans(),
       duplicates=st.sampled_from(["max", "sum", "error"]))
def test_stream_reads_what_the_general_path_reads(tmp_path_factory, monkeypatch, edges, weights,
                                                  sep, comment, duplicates):
    path = tmp_path_factory.mktemp("s") / "g.txt"
    lines = [sep.join(map(str, e)) + (f"{sep}{weights[k]}" if weights else "")
             for k, e in enumerate(edges)]
    path.write_text(("# Undirected graph\n" if comment else "") + "\n".join(lines) + "\n")
    fast, fast_warnings = _read(path, monkeypatch, True, duplicates=duplicates)
    slow, slow_warnings = _read(path, monkeypatch, False, duplicates=duplicates)
    assert _same(fast, slow), (fast, slow)
    assert fast_warnings == slow_warnings


def _edge_file(path, n, m, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n * n, 3 * m))
    i, j = keys // n, keys % n
    keep = i < j
    i, j = i[keep][:m], j[keep][:m]
    cols = [i, j] + ([rng.uniform(0.5, 2.0, i.size).round(3)] if weighted else [])
    with open(path, "w") as fh:
        fh.write("# a random graph\n")
        fh.write("\n".join("\t".join(map(str, row)) for row in zip(*cols)) + "\n")
    return i.size


@pytest.mark.parametrize("weighted", [False, True])
def test_stream_peak_memory_per_edge(tmp_path, weighted):
    path = tmp_path / "e.txt"
    m = _edge_file(path, 20_000, 200_000, weighted=weighted)
    with open(path) as fh:
        first = [fh.readline(), fh.readline()][1]
    read_graph(path)  # imports and first-call allocations are not the reader's
    tracemalloc.start()
    try:
        g = stream.read_edge_stream(path, 3 if weighted else 2, skip=1, first=first)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert g is not None and g.m == m and g.weights.indices.dtype == np.int32
    # the promised bound: PEAK_BYTES_PER_EDGE per line and NODE_BYTES per node
    assert peak < stream.PEAK_BYTES_PER_EDGE[weighted] * m + stream.NODE_BYTES * g.n + 2**20


def test_stream_refuses_a_file_that_would_not_fit(tmp_path, monkeypatch):
    path = tmp_path / "e.txt"
    m = _edge_file(path, 20_000, 200_000)
    warm = tmp_path / "warm.txt"  # first-use imports and caches are not the file's cost
    warm.write_text("0 1\n")
    read_graph(warm)
    # 200,000 lines need about 8 MB, and pyarrow's reader about 35 MB more
    assert 34 * 2**20 < stream.arrow_reader_bytes(path.stat().st_size) < 36 * 2**20
    _refused_under(monkeypatch, "40M", path, match="edge lines fit", peak=2 * 2**20)
    assert m > 100_000


def _refused_under(monkeypatch, limit: str, path, *, match: str, peak: int, **kw) -> None:
    """``read_graph(path, **kw)`` under ``DPGRAPH_MEMORY_LIMIT=limit`` raises
    InsufficientMemoryError matching ``match`` and naming the limit, having allocated less
    than ``peak`` bytes (tracemalloc) on the way."""
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", limit)
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match=match) as info:
            read_graph(path, **kw)
        used = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"DPGRAPH_MEMORY_LIMIT={limit}" in str(info.value) and used < peak


def _gzipped(path):
    import gzip
    import shutil

    target = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    path.unlink()
    return target


def _named_lines(path, m, *, csv=False, seed=0):
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, 5_000, m), rng.integers(0, 5_000, m)
    sep = "," if csv else " "
    with open(path, "w") as fh:
        fh.write("source,target\n" if csv else "")
        fh.write("".join(f"n{a}{sep}n{b}\n" for a, b in zip(u, v)))


@pytest.mark.parametrize("name, kw", [("e.csv", {}), ("e.txt", {"ids": "str"}),
                                      ("e.txt", {"symmetrize": "max"}), ("i.csv", {}),
                                      ("e.csv.gz", {}), ("i.txt.gz", {})])
def test_whole_file_readers_refuse_a_file_that_would_not_fit(tmp_path, monkeypatch, name, kw):
    """CSV and SNAP with string ids or arcs read the whole file into Python rows (about
    300-390 B per line); they were not priced and ran past any limit. 50,000 lines need about
    17 MB: refused under 4 MB, before the read, and read under 64 MB."""
    path = tmp_path / name.removesuffix(".gz")
    if name.startswith("i.csv"):
        _edge_file(path, 5_000, 50_000)
        path.write_text("source,target\n" + path.read_text().replace("\t", ",").split("\n", 1)[1])
    elif name.startswith("i.txt"):  # integer ids: gzip files skip the stream, read whole
        _edge_file(path, 5_000, 50_000)
    else:
        _named_lines(path, 50_000, csv=".csv" in name)
    if name.endswith(".gz"):  # a few hundred KB that hold the 50,000 lines
        path = _gzipped(path)
    _refused_under(monkeypatch, "4M", path, match="edge lines fit", peak=2**20, **kw)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read_graph(path, **kw).m > 40_000


@pytest.mark.parametrize("name", ["g.edgelist", "g.graphml", "g.gml", "g.net", "g.graphml.gz",
                                  "g.edgelist.gz"])
def test_library_readers_refuse_a_file_that_would_not_fit(tmp_path, monkeypatch, name):
    """NetworkX's parsers (edge list, GraphML, GML) and the Pajek parser hold the whole file
    at 10-100 times its size; they were not priced. 20,000 edges: refused under 2 MB with
    nothing of the file's size allocated, read under 256 MB."""
    import networkx as nx

    from dpgraph.io import write_graph

    path = tmp_path / name.removesuffix(".gz")
    write_graph(nx.gnm_random_graph(2_000, 20_000, seed=1), path, weight=None)
    if name.endswith(".gz"):
        path = _gzipped(path)
    import networkx.readwrite  # noqa: F401  (its import is not the file's cost)

    _refused_under(monkeypatch, "2M", path, match="fit", peak=2**20)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "256M")
    assert read_graph(path).m == 20_000


@_settings(60)
@given(n=st.sampled_from([12, 13, 40]),   # 12: some vertex 13 is out of range
       edges=st.lists(st.tuples(st.integers(1, 13), st.integers(1, 13),
                                st.sampled_from([1, -1, 0.5, 0, 2.5])), min_size=1, max_size=30),
       announced=st.sampled_from(["m", "m", "m+1", "none"]),
       duplicates=st.sampled_from(["max", "sum", "error"]))
def test_stream_reads_gset_as_the_general_path(tmp_path_factory, monkeypatch, n, edges,
                                               announced, duplicates):
    path = tmp_path_factory.mktemp("g") / "g.gset"
    m = {"m": f" {len(edges)}", "m+1": f" {len(edges) + 1}", "none": ""}[announced]
    path.write_text(f"{n}{m}\n" + "".join(f"{i} {j} {w}\n" for i, j, w in edges))
    fast, fast_warnings = _read(path, monkeypatch, True, "gset", duplicates=duplicates)
    slow, slow_warnings = _read(path, monkeypatch, False, "gset", duplicates=duplicates)
    assert _same(fast, slow), (fast, slow)
    assert fast_warnings == slow_warnings
    if not isinstance(fast, str):
        assert fast.labels == range(1, n + 1)


def test_gset_stream_memory(tmp_path):
    rng = np.random.default_rng(1)
    n, m = 20_000, 200_000
    keys = np.unique(rng.integers(0, n * n, 3 * m))
    i, j = keys // n, keys % n
    keep = i < j
    i, j = i[keep][:m] + 1, j[keep][:m] + 1
    path = tmp_path / "big.gset"
    with open(path, "w") as fh:
        fh.write(f"{n} {i.size}\n" + "\n".join(f"{a} {b} 1" for a, b in zip(i, j)) + "\n")
    read_graph(path)  # imports and first-call allocations are not the reader's
    tracemalloc.start()
    try:
        g = read_graph(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert g.m == i.size and g.labels == range(1, n + 1)
    assert peak < stream.PEAK_BYTES_PER_EDGE[True] * i.size + stream.NODE_BYTES * n + 2**20


def test_repeats_at_a_million_node_scale_keep_distinct_pairs(tmp_path, monkeypatch):
    """The general path's pair key ``row * n + col`` needs 64-bit positions: with n = 100,000,
    the pairs (0, 1) and (42949, 67297) have keys 1 and 2^32 + 1."""
    n = 100_000
    lines = [f"{i}\t{i + 1}" for i in range(n - 1)] + ["42949\t67297", "6\t5"]
    path = tmp_path / "chain.txt"
    path.write_text("\n".join(lines) + "\n")
    fast, fast_warnings = _read(path, monkeypatch, True)
    slow, slow_warnings = _read(path, monkeypatch, False)
    assert _same(fast, slow) and fast_warnings == slow_warnings
    assert fast.m == n - 1 + 1  # the chain and the extra pair; "6 5" repeats the chain's (5, 6)
    assert fast.weights[0, 1] == 1 and fast.weights[42949, 67297] == 1


def test_from_coo_merges_int32_positions_by_their_64_bit_pair_key():
    from dpgraph.graph import from_coo

    rows = np.array([0, 42949, 5, 6], dtype=np.int32)   # keys 1, 2^32 + 1 and (5, 6) twice
    cols = np.array([1, 67297, 6, 5], dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = from_coo(rows, cols, np.ones(4), range(100_000), duplicates="max")
    assert g.m == 3 and g.weights[42949, 67297] == 1 and g.weights[0, 1] == 1


@pytest.mark.parametrize("text", [
    "1 2\n2 3\n3 4\n4 5 # c\n", "1 2 \n2 3\n", "1  2\n2 3\n", "+1 2\n2 3\n", "1 2\n2\t3\n",
    "1 2\n2 3 4\n", "1 2\n\n2 3\n", "1 2\n# mid\n2 3\n", "1 2\r\n2 3\r\n", "01 2\n2 3\n",
    "1 2\n3 x\n", "a b\nc d\n", "1 2 1.5\n2 3 nan\n", "1 2 1\n2 3 inf\n",
    "9223372036854775807 1\n1 2\n", "-9223372036854775808 1\n1 2\n",
    "1 2\n2 99999999999999999999\n",
])
def test_stream_and_general_path_agree_on_odd_lines(tmp_path, monkeypatch, text):
    path = tmp_path / "odd.txt"
    path.write_text(text)
    fast, fast_warnings = _read(path, monkeypatch, True)
    slow, slow_warnings = _read(path, monkeypatch, False)
    assert _same(fast, slow), (fast, slow)
    assert fast_warnings == slow_warnings


def test_metis_whose_header_understates_its_lines_is_priced_by_its_tokens(tmp_path, monkeypatch):
    """METIS's vertex lines are parsed token by token (118-239 B per token in all); its header's
    edge count priced the parse, so a header of 1 edge let a file of 10^5 neighbour tokens
    parse past any limit before the count was checked."""
    rng = np.random.default_rng(0)
    n = 10_000
    path = tmp_path / "lie.metis"
    path.write_text(f"{n} 1\n" + "".join(" ".join(map(str, rng.integers(1, n + 1, 10))) + "\n"
                                         for _ in range(n)))
    _refused_under(monkeypatch, "8M", path, match="tokens fit", peak=2**20, symmetrize="max")
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "256M")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the random lines repeat some pairs
        assert read_graph(path, symmetrize="max").n == n
