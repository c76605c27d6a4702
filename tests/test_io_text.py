"""Readers of the text formats (G-set, SNAP, DIMACS, METIS) on small files written here, their
error paths, and the real benchmark files when DPGRAPH_DATA is set."""

import gzip
import warnings

import networkx as nx
import numpy as np
import pytest

from dpgraph.graph import DuplicateEdgeWarning, GraphInputWarning, as_graph_data
from dpgraph.io import GraphFormatError, detect_format, read_graph, write_graph


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _edge_set(data):
    i, j, w = data.edges()
    lab = data.labels
    return {(frozenset((lab[a], lab[b])), float(c)) for a, b, c in zip(i, j, w)}


# ----------------------------------------------------------------------------- G-set


def test_gset_small_by_hand(tmp_path):
    p = _write(tmp_path, "g.txt", "4 3\n1 2 1\n2 3 -1\n1 4 2.5\n")
    assert detect_format(p) == "gset"
    g = read_graph(p)
    assert (g.n, g.m) == (4, 3)
    assert g.labels == range(1, 5)  # kept as a range, not n Python ints
    assert _edge_set(g) == {(frozenset({1, 2}), 1.0), (frozenset({2, 3}), -1.0),
                            (frozenset({1, 4}), 2.5)}


def test_gset_n_only_header_keeps_isolated_nodes(tmp_path):
    p = _write(tmp_path, "g.txt", "6\n1 2 1\n5 3 1\n")
    g = read_graph(p, format="gset")
    assert (g.n, g.m) == (6, 2)
    assert np.count_nonzero(np.diff(g.weights.indptr) == 0) == 2  # nodes 4 and 6


def test_gset_gzip_and_no_extension(tmp_path):
    p = tmp_path / "G1"
    with gzip.open(p, "wt") as f:
        f.write("3 2\n1 2 1\n2 3 1\n")
    assert detect_format(p) == "gset"
    assert read_graph(p).m == 2


@pytest.mark.parametrize("text, line, fragment", [
    ("4 3\n1 2 1\n2 3 1\n", 1, "truncated"),            # fewer edge lines than announced
    ("4 1\n1 2 1\n2 3 1\n", 1, "announces 1"),          # more
    ("4 2\n1 2 1\n2 3\n", 3, "2 field(s)"),             # last line cut short
    ("4 2\n1 2 1\n2 x 1\n", 3, "non-numeric"),
    ("4 2\n1 2 1\n2 3 abc\n", 3, "non-numeric"),
    ("4 2\n1 2 1\n0 3 1\n", 3, "out of range"),
    ("4 2\n1 2 1\n\n# c\n2 5 1\n", 5, "out of range"),
    ("4 2 7\n1 2 1\n", 1, "header"),
    ("x 2\n1 2 1\n", 1, "non-numeric"),
])
def test_gset_bad_input_names_file_and_line(tmp_path, text, line, fragment):
    p = _write(tmp_path, "bad.txt", text)
    with pytest.raises(GraphFormatError) as info:
        read_graph(p, format="gset")
    err = info.value
    assert err.line == line
    assert err.path == str(p)
    assert str(p) in str(err) and f"line {line}" in str(err) and "expected" in str(err)
    assert fragment in str(err)


def test_gset_empty_file(tmp_path):
    p = _write(tmp_path, "empty.txt", "")
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(p, format="gset")
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(p)


def test_gset_write_read_round_trip(tmp_path):
    G = nx.gnm_random_graph(30, 60, seed=3)
    for k, (u, v) in enumerate(G.edges):
        G[u][v]["weight"] = (-1) ** k * (k % 5 + 1)
    data = as_graph_data(G)
    write_graph(data, tmp_path / "g.gset")
    back = read_graph(tmp_path / "g.gset")
    assert (back.weights != data.weights).nnz == 0


# ----------------------------------------------------------------------------- SNAP


def test_snap_both_directions_merged_int_labels(tmp_path):
    p = _write(tmp_path, "e.txt", "# Undirected graph\n# Nodes: 4\n10\t20\n20\t10\n20 30\n# x\n40 10\n")
    with pytest.warns(DuplicateEdgeWarning, match="merged 1 repeated edge.*duplicates='max'"):
        g = read_graph(p)
    assert detect_format(p) == "snap"
    assert g.labels == (10, 20, 30, 40) and all(type(x) is int for x in g.labels)
    assert _edge_set(g) == {(frozenset({10, 20}), 1.0), (frozenset({20, 30}), 1.0),
                            (frozenset({10, 40}), 1.0)}


def test_snap_string_labels_and_weights(tmp_path):
    p = _write(tmp_path, "e.edges", "a b 2\nb c 0.5\nc a 1\nb a 3\n")
    with pytest.warns(DuplicateEdgeWarning, match="merged 1 repeated edge.*duplicates='max'"):
        g = read_graph(p, format="snap")
    assert g.labels == ("a", "b", "c")
    assert _edge_set(g) == {(frozenset("ab"), 3.0), (frozenset("bc"), 0.5), (frozenset("ac"), 1.0)}


def test_snap_directed_declared_needs_symmetrize(tmp_path):
    p = _write(tmp_path, "d.txt", "# Directed graph (each unordered pair of nodes is saved once)\n"
                                   "1 2\n2 3\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(p)
    assert info.value.line == 1 and "symmetrize" in str(info.value)
    g = read_graph(p, symmetrize="max")
    assert g.m == 2


def test_snap_bad_lines(tmp_path):
    p = _write(tmp_path, "b.txt", "1 2 1\n2 3 1\n3 4\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(p, format="snap")
    assert info.value.line == 3
    p = _write(tmp_path, "b2.txt", "1 2 1\n2 3 z\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(p, format="snap")
    assert info.value.line == 2 and info.value.text == "z"


def test_snap_write_read_round_trip_keeps_labels(tmp_path):
    G = nx.Graph()
    G.add_weighted_edges_from([("x", "y", 2.0), ("y", "z", 1.5), ("z", "w", 1.0)])
    write_graph(G, tmp_path / "g.snap")
    back = read_graph(tmp_path / "g.snap")
    assert _edge_set(back) == _edge_set(as_graph_data(G))


def test_unknown_extension_needs_format(tmp_path):
    p = _write(tmp_path, "g.xyz", "3 2\n1 2 1\n2 3 1\n")
    with pytest.raises(GraphFormatError, match="unknown file extension") as info:
        read_graph(p)
    assert str(p) in str(info.value)
    assert read_graph(p, format="gset").m == 2


# ----------------------------------------------------------------------------- real files


@pytest.mark.parametrize("rel, n, m", [
    ("gset/G3.txt", 800, 19176),
    ("gset/G81.txt", 20000, 40000),
    ("social/facebook.txt", 4039, 88234),
    ("social/chameleon.txt", 2277, 31371),
])
def test_real_files(data_dir, rel, n, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)  # chameleon's 50 self-loops
        g = read_graph(data_dir / rel)
    assert (g.n, g.m) == (n, m)
    if rel.endswith("G81.txt"):
        assert set(np.unique(g.weights.data)) == {-1.0, 1.0}


def test_binary_and_cut_gzip_files(tmp_path):
    p = tmp_path / "bin.txt"
    p.write_bytes(b"3 2\n1 2 \xff\xfe\n")
    with pytest.raises(GraphFormatError, match="undecodable") as info:
        read_graph(p, format="gset")
    assert str(p) in str(info.value)
    full = gzip.compress(b"3 2\n" + b"1 2 1\n" * 2000)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(full[: len(full) // 2])
    with pytest.raises(GraphFormatError, match="truncated"):
        read_graph(cut, format="gset")


def test_error_attributes_and_pickling():
    import pickle

    err = GraphFormatError("f.txt", 7, "1 x 1", "an integer", problem="bad token")
    assert (err.path, err.line, err.text, err.expected) == ("f.txt", 7, "1 x 1", "an integer")
    assert str(err) == "f.txt, line 7: bad token: found '1 x 1': expected an integer"
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.line == 7 and isinstance(back, ValueError)


def test_byte_order_mark_and_crlf(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(b"\xef\xbb\xbf3 2\r\n1 2 1\r\n2 3 -1\r\n")
    g = read_graph(p)
    assert (g.n, g.m) == (3, 2) and sorted(g.weights.data.tolist()) == [-1, -1, 1, 1]


# ----------------------------------------------------------------------------- node-id rule


def test_a_non_integer_token_in_a_file_of_integer_ids_is_refused_with_its_line(tmp_path):
    path = tmp_path / "ints.txt"
    path.write_text("# ids\n1 2\n2 3\n3 x\n4 1\n")
    with pytest.raises(GraphFormatError) as err:
        read_graph(path)
    e = err.value
    assert e.line == 4 and e.text == "x" and "integer" in str(e) and str(path) in str(e)
    assert "first edge line 2" in str(e)  # the rule that applied
    # asked for names: read, with every id a string
    g = read_graph(path, ids="str")
    assert g.labels == ("1", "2", "3", "4", "x")


def test_name_ids_are_read_when_the_file_is_consistently_non_numeric(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("alice bob\nbob carol\ncarol dave\n")
    g = read_graph(path)
    assert g.labels == ("alice", "bob", "carol", "dave") and g.m == 3
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("alice bob\nbob 7\n")
    with pytest.raises(GraphFormatError) as err:
        read_graph(mixed)
    assert err.value.line == 2 and err.value.text == "7" and "names" in str(err.value)
    with pytest.raises(GraphFormatError, match="ids='int'"):
        read_graph(path, ids="int")
    with pytest.raises(ValueError, match="ids="):
        read_graph(path, ids="names")


def test_integer_files_keep_integer_labels(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_text("10 20\n20 30\n")
    assert read_graph(path).labels == (10, 20, 30)
    assert read_graph(path, ids="str").labels == ("10", "20", "30")


# ----------------------------------------------------------------------------- pyarrow fast path


def _same_graph(a, b):
    assert a.labels == b.labels and (a.weights != b.weights).nnz == 0


@pytest.mark.parametrize("text, arrow", [
    ("1 2\n2 3\n3 1\n7 1\n", True),
    ("# header\n# more\n1\t2\t0.5\n2\t3\t1\n3\t1\t0.25\n", True),
    ("1 2\n2 1\n1 2\n3 1\n", True),                # repeats, merged by max
    ("1 2\r\n2 3\r\n", True),
    ("# c\n\n1 2\n2 3\n", False),                  # a blank line before the first edge
    ("1 2\n# mid-file comment\n2 3\n", False),
    ("1  2\n2 3\n", False),                        # two spaces
    ("1 2 \n2 3\n", False),                        # trailing space
    ('"1" 2\n"2" 3\n', False),                     # quotes are not CSV quoting here
    ("1 2\nNULL 3\nNULL 4\n", False),              # no null values
    ("1 2\n2 3\n3 4\n4 5 # trailing comment\n", False),
])
# the note on the repeats is checked by tests/test_io_duplicates.py
@pytest.mark.filterwarnings("ignore::dpgraph.graph.DuplicateEdgeWarning")
def test_pyarrow_path_reads_what_the_numpy_path_reads(tmp_path, monkeypatch, text, arrow):
    from dpgraph.io import text as _text

    pytest.importorskip("pyarrow")
    import dpgraph.io.base

    monkeypatch.setattr(dpgraph.io.base, "ARROW_MIN_BYTES", 0)  # pyarrow on every size
    path = tmp_path / "e.txt"
    path.write_bytes(text.encode())
    # the streamed reader (tests/test_io_stream.py) is set aside: this compares the two
    # whole-file paths it falls back to
    from dpgraph.io import stream
    monkeypatch.setattr(stream, "read_edge_stream", lambda *a, **k: None)
    used = []
    real = _text._arrow_table
    monkeypatch.setattr(_text, "_arrow_table",
                        lambda *a, **k: used.append(real(*a, **k)) or used[-1])
    try:
        fast = read_graph(path)
    except GraphFormatError as exc:
        fast = exc
    assert (used[0] is not None) is arrow
    monkeypatch.setattr(_text, "_arrow_table", lambda *a, **k: None)  # NumPy only
    try:
        slow = read_graph(path)
    except GraphFormatError as exc:
        slow = exc
    if isinstance(slow, Exception):
        assert str(fast) == str(slow)
    else:
        _same_graph(fast, slow)


def test_large_random_edge_list_same_through_both_paths(tmp_path, monkeypatch):
    from dpgraph.io import text as _text

    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    u, v = rng.integers(0, 3000, 20000), rng.integers(0, 3000, 20000)
    w = rng.random(20000).round(3)
    path = tmp_path / "big.tsv"
    path.write_text("# Undirected graph\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in
                                                     zip(u, v, w)))
    with warnings.catch_warnings(record=True) as fast_w:
        warnings.simplefilter("always")
        fast = read_graph(path)
    monkeypatch.setattr(_text, "_arrow_table", lambda *a, **k: None)
    with warnings.catch_warnings(record=True) as slow_w:
        warnings.simplefilter("always")
        slow = read_graph(path)
    _same_graph(fast, slow)
    assert [str(x.message) for x in fast_w] == [str(x.message) for x in slow_w]  # self-loops


def test_reader_works_without_pyarrow(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError("no pyarrow here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    path = tmp_path / "e.txt"
    path.write_text("1 2\n2 3\n")
    g = read_graph(path)
    assert g.labels == (1, 2, 3) and g.m == 2


def test_snap_header_counts_the_isolated_nodes_it_cannot_list(tmp_path):
    import warnings

    from dpgraph.graph import from_edges
    from dpgraph.io import write_graph

    path = tmp_path / "g.txt"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_graph(from_edges([("a", "b")], nodes=["a", "b", "c", "d"]), path)
    assert any("2 isolated" in str(w.message) for w in caught)
    assert path.read_text().splitlines()[0] == \
        "# Undirected graph: 4 nodes (2 isolated, not listed), 1 edges (written by dpgraph)"
