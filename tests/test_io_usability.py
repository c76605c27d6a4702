"""Usability of graph input (user audit s59): parallel edges of graph objects named when they
push weights above 1, string ids that look like numbers survive a file round trip, a header
row is not read as an edge, and CSV edge files are a format."""

import gzip
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli import app as cli
from dpgraph.graph import DuplicateEdgeWarning, GraphInputWarning, as_graph_data
from dpgraph.io import (GraphFormatError, check_labels_storable, detect_format, read_graph,
                        write_graph)
from dpgraph.private_input import check_private_graph_input, input_graph
from test_io_text import _edge_set as _edges, _write  # the same file and edge-set helpers


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- (a) parallel edges


def _multigraph():
    return nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0)])


def _igraph_multi():
    ig = pytest.importorskip("igraph")
    return ig.Graph([(0, 1), (0, 1), (1, 2), (2, 0)])


@pytest.mark.parametrize("make", [_multigraph, _igraph_multi,
                                  lambda: [(0, 1), (0, 1), (1, 2), (2, 0)]],
                         ids=["networkx", "igraph", "edge-list"])
def test_summed_parallel_edges_are_named_in_the_weight_refusal(make):
    """No weight attribute at all: the refusal said 'this graph has weights in [1.0, 2.0] ...
    rescale the weights'; it names the parallel edges that were summed and duplicates='max'."""
    G = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        data = input_graph(G)
    with pytest.raises(ValueError) as info:
        check_private_graph_input(data)
    text = str(info.value)
    assert "1 parallel edge(s)" in text and "summed" in text
    assert "duplicates='max'" in text and "[1.0, 2.0]" in text
    # the advice works: each pair counted once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateEdgeWarning)
        check_private_graph_input(as_graph_data(make(), duplicates="max"))


def test_max_cut_on_a_multigraph_names_the_parallel_edges():
    with pytest.raises(ValueError, match="parallel edge.*summed.*duplicates='max'"):
        dpgraph.max_cut(_multigraph(), epsilon=1.0, delta=0)


def test_weights_above_one_without_parallel_edges_keep_the_plain_message():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 1.0), (2, 0, 1.0)])
    with pytest.raises(ValueError) as info:
        check_private_graph_input(input_graph(G))
    assert "parallel" not in str(info.value) and "rescale" in str(info.value)


def test_igraph_parallel_edges_merged_under_weight_none_warn_like_networkx():
    g = _igraph_multi()
    with pytest.warns(GraphInputWarning, match="igraph.Graph: 1 parallel edge.*weight=None"):
        data = as_graph_data(g, weight=None)
    assert data.m == 3 and data.is_unweighted
    with pytest.warns(GraphInputWarning, match="networkx.MultiGraph: 1 parallel edge"):
        as_graph_data(_multigraph(), weight=None)
    ig = pytest.importorskip("igraph")
    with warnings.catch_warnings():  # a simple igraph graph: nothing to say
        warnings.simplefilter("error")
        as_graph_data(ig.Graph([(0, 1), (1, 2)]), weight=None)


# ----------------------------------------------------------------------------- (b) string ids


def _padded():
    H = nx.Graph()
    H.add_edges_from([("007", "010"), ("010", "042"), ("042", "007"), ("042", "100")])
    return H


@pytest.mark.parametrize("name", ["x.txt", "x.tsv", "x.snap", "x.txt.gz", "x.csv", "x.csv.gz"])
def test_zero_padded_string_ids_survive_a_round_trip(tmp_path, name):
    """'007' came back as the int 7: the file now records '# ids: str' and the reader follows it."""
    path = tmp_path / name
    write_graph(_padded(), path)
    back = read_graph(path)
    assert back.labels == ("007", "010", "042", "100")
    assert _edges(back) == _edges(as_graph_data(_padded()))
    # an explicit rule still wins over the file's line
    assert read_graph(path, ids="int").labels == (7, 10, 42, 100)


@pytest.mark.parametrize("name", ["x.csv", "x.csv.gz"])
def test_csv_of_string_ids_reads_in_pandas(tmp_path, name):
    """The '# ids: str' line above the header row became pandas' header row (the real one a
    row of data); the ids are quoted instead, the header row first, and still read back as
    the same strings."""
    pd = pytest.importorskip("pandas")
    G = _padded()
    nx.set_edge_attributes(G, 0.5, "weight")
    path = tmp_path / name
    write_graph(G, path)
    frame = pd.read_csv(path)
    assert list(frame.columns) == ["u", "v", "weight"] and len(frame) == 4
    assert frame["weight"].tolist() == [0.5] * 4
    assert read_graph(path).labels == ("007", "010", "042", "100")
    write_graph(nx.Graph([(100, "x"), (101, "x")]), path)
    assert list(pd.read_csv(path).columns) == ["u", "v"]
    assert read_graph(path).labels == ("100", "101", "x")


def test_csv_quoted_by_pandas_keeps_its_integer_ids(tmp_path):
    """pandas' QUOTE_ALL quotes the header row and every field: its integer ids are still
    integers (only a quoted first id under an unquoted header row, as write_csv writes
    names, makes every id a name)."""
    import csv as csv_module

    pd = pytest.importorskip("pandas")
    path = tmp_path / "all.csv"
    pd.DataFrame({"source": [1, 2, 10], "target": [2, 10, 3]}).to_csv(
        path, index=False, quoting=csv_module.QUOTE_ALL)
    assert read_graph(path).labels == (1, 2, 3, 10)
    names = _write(tmp_path, "names.csv", 'u,v\n"1",2\n3,4\n')
    assert read_graph(names).labels == ("1", "2", "3", "4")


def test_csv_written_with_an_ids_line_still_reads_string_ids(tmp_path):
    path = _write(tmp_path, "old.csv", "# ids: str (node ids are names, digits included)\n"
                                       "u,v\n007,010\n010,042\n")
    assert read_graph(path).labels == ("007", "010", "042")
    assert read_graph(path, ids="int").labels == (7, 10, 42)


def test_ids_line_only_where_labels_need_it(tmp_path):
    write_graph(nx.path_graph(3), tmp_path / "ints.txt")
    write_graph(nx.Graph([("a", "b")]), tmp_path / "names.txt")
    for name in ("ints.txt", "names.txt"):
        assert "ids:" not in (tmp_path / name).read_text()
    assert read_graph(tmp_path / "ints.txt").labels == (0, 1, 2)


def test_string_labels_that_differ_only_as_numbers_are_storable(tmp_path):
    G = nx.Graph([("01", "1"), ("1", "x")])
    check_labels_storable(list(G.nodes), "snap")
    write_graph(G, tmp_path / "g.txt")
    assert set(read_graph(tmp_path / "g.txt").labels) == {"01", "1", "x"}
    with pytest.raises(ValueError, match="read back as the same text"):
        check_labels_storable(["01", 1], "snap")


def test_read_graph_documents_ids():
    doc = read_graph.__doc__
    assert "ids" in doc and "ids=\"str\"" in doc and "# ids: str" in doc


# ----------------------------------------------------------------------------- (c) header rows


def test_header_row_of_a_name_id_file_is_refused_not_an_edge(tmp_path):
    p = _write(tmp_path, "g.txt", "source target\nuser_0\tuser_1\nuser_1\tuser_2\n")
    for kw in ({}, {"ids": "str"}):
        with pytest.raises(GraphFormatError, match="header row") as info:
            read_graph(p, **kw)
        assert info.value.line == 1 and str(p) in str(info.value) and "'#'" in str(info.value)
    # commented out, it reads
    p.write_text("# source target\nuser_0\tuser_1\nuser_1\tuser_2\n")
    assert read_graph(p).labels == ("user_0", "user_1", "user_2")


def test_header_row_of_an_integer_file_does_not_advise_string_ids(tmp_path, capsys):
    """The advice was ids='str' (--ids str), which read the header as an edge."""
    p = _write(tmp_path, "g.txt", "source target\n0 1\n1 2\n2 0\n")
    with pytest.raises(GraphFormatError, match="header row") as info:
        read_graph(p)
    assert "ids='str'" not in str(info.value) and "'#'" in str(info.value)
    assert info.value.line == 1
    code, _, err = _run(capsys, "info", p)
    assert code == 2 and "header row" in err and "--ids str" not in err


@pytest.mark.parametrize("text", ["From\tTo\tWeight\n1\t2\t0.5\n2\t3\t1\n",
                                  "source target weight\na b 0.5\nb c 1\n"])
def test_three_column_header_row_is_refused(tmp_path, text):
    with pytest.raises(GraphFormatError, match="header row") as info:
        read_graph(_write(tmp_path, "g.txt", text))
    assert info.value.line == 1


def test_a_first_edge_of_nodes_named_like_columns_is_still_an_edge(tmp_path):
    # 'u' and 'v' are nodes here (they occur again): no header
    g = read_graph(_write(tmp_path, "g.txt", "u v\nv w\nw u\n"))
    assert g.labels == ("u", "v", "w") and g.m == 3


# ----------------------------------------------------------------------------- (d) CSV


def test_csv_with_names_and_weights(tmp_path):
    p = _write(tmp_path, "g.csv", "source,target,weight\nuser_0,user_1,0.5\n"
                                  "user_0,user_2,0.25\nuser_2,user_1,1\n")
    assert detect_format(p) == "csv"
    g = read_graph(p)
    assert g.labels == ("user_0", "user_1", "user_2")
    assert _edges(g) == {(frozenset(("user_0", "user_1")), 0.5),
                         (frozenset(("user_0", "user_2")), 0.25),
                         (frozenset(("user_1", "user_2")), 1.0)}
    assert read_graph(p, weight=None).is_unweighted


def test_csv_integer_ids_gzip_and_column_names(tmp_path):
    text = "a,b,w2,weight\n1,2,9,0.5\n2,3,9,1\n3,1,9,0.75\n"
    p = tmp_path / "g.csv.gz"
    with gzip.open(p, "wt") as f:
        f.write(text)
    for path in (p, _write(tmp_path, "plain.csv", text)):
        g = read_graph(path)
        assert g.labels == (1, 2, 3)
        assert sorted(w for _, w in _edges(g)) == [0.5, 0.75, 1.0]
        assert sorted(w for _, w in _edges(read_graph(path, weight="w2"))) == [9.0] * 3
        assert read_graph(path, ids="str").labels == ("1", "2", "3")
    with pytest.raises(GraphFormatError, match="'nope'"):
        read_graph(p, weight="nope")


def test_csv_errors_name_the_file_and_line(tmp_path):
    cases = [("source,target\na,b\nb,c,d\n", 3, "3 field"),
             ("source,target,weight\na,b,1\nb,c,heavy\n", 3, "non-numeric weight"),
             ("source,target\n1,2\n2,x\n", 3, "non-integer node id"),
             ("source,target,weight\n1,2,1\n2,3,nan\n", 3, "non-finite"),
             ("1,2\n2,3\n", 1, "column names"),
             ("source,target\n\n,b\n", 3, "empty node id")]
    for k, (text, line, what) in enumerate(cases):
        p = _write(tmp_path, f"bad{k}.csv", text)
        with pytest.raises(GraphFormatError, match=what) as info:
            read_graph(p)
        assert info.value.line == line and str(p) in str(info.value)


def test_csv_quoted_fields_tabs_and_repeated_pairs(tmp_path):
    p = _write(tmp_path, "g.csv", 'source,target\n"Smith, A","Jones, B"\n"Jones, B","Smith, A"\n'
                                  '"Jones, B",C\n')
    with pytest.warns(DuplicateEdgeWarning, match="1 repeated"):
        g = read_graph(p)
    assert g.labels == ("C", "Jones, B", "Smith, A") and g.m == 2
    tsv = _write(tmp_path, "g.tsv", "source\ttarget\tweight\nx\ty\t0.5\n")
    assert _edges(read_graph(tsv, format="csv")) == {(frozenset("xy"), 0.5)}
    with pytest.warns(GraphInputWarning, match="'value' is not read"):
        read_graph(_write(tmp_path, "v.csv", "u,v,value\n1,2,0.5\n"))


def test_csv_round_trip_and_unknown_content_hint(tmp_path):
    G = nx.Graph()
    G.add_weighted_edges_from([("a b", "c,d", 0.5), ("c,d", "e", 1.0), ("e", "a b", 0.25)])
    write_graph(G, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text().startswith("u,v,weight\n")
    assert _edges(read_graph(tmp_path / "out.csv")) == _edges(as_graph_data(G))
    with pytest.raises(GraphFormatError, match="format='csv'"):
        read_graph(_write(tmp_path, "g.txt", "source,target,weight\na,b,1\nb,c,1\n"))


def test_cli_reads_csv(capsys, tmp_path):
    p = _write(tmp_path, "g.csv", "source,target\n007,010\n010,042\n042,007\n")
    code, out, err = _run(capsys, "info", p)
    assert code == 0 and "format:      csv" in out and "edges:       3" in out
    code, out, err = _run(capsys, "info", p, "--ids", "str")
    assert code == 0, err


def test_csv_reader_errors_name_the_file_and_line(tmp_path):
    """Python's csv module refuses a field over its size limit with csv.Error; the reader names
    the file and line instead of letting it escape (found by the reader fuzzer)."""
    from dpgraph.io import GraphFormatError

    p = tmp_path / "big.csv"
    p.write_text("u,v,weight\n1,2,1\n3,1" + "\x0b1" * 70000 + "\n")
    with pytest.raises(GraphFormatError, match=r"big\.csv.*line 3"):
        read_graph(p)


def test_hand_built_graph_data_is_read_as_its_adjacency_says():
    """A GraphData built by hand with a pair stored twice (SciPy sums it: weight 2) passed the
    [0, 1] check on its raw entries and was released; it is canonicalized on a copy first, so
    the check sees weight 2, and the caller's matrix is left as it was."""
    import scipy.sparse as sp

    from dpgraph.graph import GraphData

    n = 6
    rows = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0, 1])
    cols = np.array([1, 5, 0, 2, 1, 3, 2, 4, 3, 5, 4, 0, 1, 0])
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n))]
    W = sp.csr_array((np.ones(rows.size), cols, indptr), shape=(n, n))
    g = GraphData(weights=W, labels=range(n))
    with pytest.raises(ValueError, match=r"weights in \[1.0, 2.0\]"):
        dpgraph.max_cut(g, epsilon=1.0, delta=1e-6)
    assert not W.has_canonical_format and W.nnz == rows.size  # not summed in place
    asym = GraphData(weights=sp.csr_array(np.triu(np.ones((n, n)), 1)), labels=range(n))
    with pytest.raises(ValueError, match="directed"):
        dpgraph.max_cut(asym, epsilon=1.0, delta=1e-6)
    good = as_graph_data(nx.cycle_graph(n))
    assert as_graph_data(good) is good  # canonical: passed through as it is


def test_a_none_label_is_refused_before_anything_is_spent():
    edges = [(None, 1), (1, 2), (2, None), (2, 3)]
    with pytest.raises(ValueError, match="labelled None"):
        dpgraph.max_cut(edges, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="labelled None"):
        as_graph_data(np.eye(3)[::-1] + np.eye(3), labels=["a", None, "c"])


def test_a_planted_instance_is_pointed_to_its_graph():
    inst = dpgraph.datasets.planted_cut(40, 6, rng=0)
    with pytest.raises(TypeError, match=r"PlantedInstance holds one: pass its \.graph"):
        dpgraph.max_cut(inst, epsilon=1.0, delta=1e-6)


def test_reader_warnings_point_at_the_callers_line(tmp_path):
    """A pair listed twice in a file is noted at the line that called read_graph (the note
    named dpgraph/io/stream.py)."""
    p = _write(tmp_path, "twice.txt", "1 2\n2 1\n2 3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_graph(p)
        as_graph_data([(0, 1), (1, 2), (2, 2)])  # a self-loop dropped
    places = {w.filename for w in caught if issubclass(w.category, GraphInputWarning)}
    assert places == {__file__}


def test_csv_integer_ids_beyond_64_bits_name_the_line(tmp_path):
    """An integer id too large for int64 failed with a bare OverflowError (found by the
    reader fuzzer); it names the line and says to read the ids as names."""
    p = _write(tmp_path, "big.csv", "u,v\n1,2\n2,99999999999999999999999\n")
    with pytest.raises(GraphFormatError, match=r"big\.csv.*line 3.*ids='str'"):
        read_graph(p)
    g = read_graph(p, ids="str")
    assert "99999999999999999999999" in list(g.labels)


def test_read_graph_on_a_public_node_set(tmp_path):
    """read_graph(nodes=): an edge list names only nodes with an edge; the public node set
    keeps the others as isolated nodes (a node whose only edge is removed stays), in the order
    given, and an id outside it, or of the wrong type, is refused naming the file."""
    import dpgraph

    path = tmp_path / "e.txt"
    path.write_text("0 1\n1 2\n5 6\n")
    g = dpgraph.read_graph(path, nodes=10)
    assert g.n == 10 and g.m == 3 and g.labels == range(10)
    path.write_text("0 1\n1 2\n")  # the edge (5, 6) removed: the same nodes
    h = dpgraph.read_graph(path, nodes=10)
    assert h.labels == g.labels and h.m == 2 and h.degrees[5] == 0
    named = dpgraph.read_graph(path, nodes=["x", "2", "1", "0"], ids="str")
    assert named.labels == ("x", "2", "1", "0") and named.m == 2
    assert named.weights[named.index["1"], named.index["2"]] == 1.0
    with pytest.raises(ValueError, match=r"e\.txt: 1 node\(s\) with an edge are not in nodes, e\.g\. 2"):
        dpgraph.read_graph(path, nodes=2)
    with pytest.raises(ValueError, match="the graph's ids are int, nodes holds str"):
        dpgraph.read_graph(path, nodes=["0", "1", "2"])
    with pytest.raises(ValueError, match="lists node 1 more than once"):
        dpgraph.read_graph(path, nodes=[0, 1, 1, 2])
    with pytest.raises(TypeError, match="must be ordered"):
        dpgraph.read_graph(path, nodes={0, 1, 2})


def test_cli_nodes_states_the_public_node_set(tmp_path, capsys):
    """--nodes N|FILE: the partition file lists every public node, edges or not, and an edge's
    node outside the set is refused before anything is released."""
    path = tmp_path / "e.txt"
    path.write_text("0 1\n1 2\n2 3\n3 0\n")
    part = tmp_path / "part.tsv"
    code, out, err = _run(capsys, "maxcut", path, "--nodes", "7", "--epsilon", "1",
                          "--delta", "1e-6", "--quiet", "-o", part)
    assert code == 0, err
    assert sorted(int(line.split()[0]) for line in part.read_text().splitlines()
                  if not line.startswith("#")) == list(range(7))
    ids = tmp_path / "nodes.txt"
    ids.write_text("# the public ids\n0\n1\n2\n3\n9\n")
    code, out, err = _run(capsys, "info", path, "--nodes", ids)
    assert code == 0 and "nodes:       5" in out
    code, out, err = _run(capsys, "maxcut", path, "--nodes", "3", "--epsilon", "1",
                          "--delta", "1e-6")
    assert code == 2 and "1 node(s) with an edge are not in nodes, e.g. 3" in err


def test_write_graph_names_the_attributes_it_does_not_write(tmp_path):
    """write_graph writes labels and weights only: the node, edge and graph attributes of a
    NetworkX or igraph graph are named in a warning instead of vanishing (karate's 'club' and
    'name'); a graph without other attributes writes without one."""
    import igraph as ig

    with pytest.warns(GraphInputWarning, match=r"node attributes \['club'\] and graph "
                                                r"attributes \['name'\] are not written"):
        write_graph(nx.karate_club_graph(), tmp_path / "k.graphml")
    g = ig.Graph.Famous("Zachary")
    g.es["kind"] = ["x"] * g.ecount()
    with pytest.warns(GraphInputWarning, match=r"edge attributes \['kind'\]"):
        write_graph(g, tmp_path / "k.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_graph(nx.path_graph(4), tmp_path / "p.txt")
        write_graph(read_graph(tmp_path / "p.txt"), tmp_path / "q.txt")


def test_public_node_set_on_one_indexed_formats_and_odd_labels(tmp_path):
    """nodes=N is that format's first N ids: 1..N in the 1-indexed formats (a G-set file of 34
    nodes was refused at nodes=34 and given a phantom node 0 at 35); booleans, which equal 0
    and 1, are refused; labels given as floats replace equal integer labels; a 0-d array is a
    count."""
    from dpgraph.graph import from_edges, with_nodes

    path = tmp_path / "g.txt"
    path.write_text("3 2\n1 2 1\n2 3 1\n")
    g = dpgraph.read_graph(path, format="gset", nodes=5)
    assert g.labels == range(1, 6) and g.m == 2 and g.weights[0, 1] == 1.0
    assert dpgraph.read_graph(path, format="gset", nodes=3).labels == range(1, 4)
    base = from_edges([(0, 1), (1, 2)])
    with pytest.raises(TypeError, match="boolean"):
        with_nodes(base, [True, 0, 2], source="x")
    assert with_nodes(base, [0.0, 1.0, 2.0], source="x").labels == (0.0, 1.0, 2.0)
    assert with_nodes(base, np.array(4), source="x").labels == range(4)
