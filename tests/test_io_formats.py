"""Matrix Market, METIS, DIMACS and the NetworkX formats: write/read round trips, hand-written
files (weight flags, comments, isolated vertices) and the error paths; format detection."""

import gzip
import warnings

import networkx as nx
import pytest

from dpgraph.graph import DuplicateEdgeWarning, as_graph_data
from dpgraph.io import FORMATS, GraphFormatError, detect_format, read_graph, write_graph


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _edge_dict(data, relabel=None):
    i, j, w = data.edges()
    lab = data.labels if relabel is None else relabel
    return {frozenset((lab[a], lab[b])): float(c) for a, b, c in zip(i, j, w)}


def _sample_graph():
    G = nx.les_miserables_graph()  # string labels, integer weights 1..31
    G.add_node("Lonely")           # an isolated node
    G["Napoleon"]["Myriel"]["weight"] = -2  # a signed weight
    return G


_INDEXED = ["mtx", "metis", "dimacs", "gset"]   # store node index k as vertex k + 1
_LABELLED = ["graphml", "gml", "pajek"]          # store labels and isolated nodes
_EDGE_LISTS = ["snap", "edgelist"]               # store labels, not isolated nodes


@pytest.mark.parametrize("fmt", _INDEXED + _LABELLED + _EDGE_LISTS)
@pytest.mark.parametrize("gz", [False, True])
def test_round_trip_every_format(tmp_path, fmt, gz):
    G = _sample_graph()
    data = as_graph_data(G)
    ext = {"metis": "graph", "dimacs": "col", "pajek": "net"}.get(fmt, fmt)
    path = tmp_path / (f"g.{ext}" + (".gz" if gz else ""))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_graph(G, path)
    if gz:
        assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert detect_format(path) == fmt
    back = read_graph(path)
    if fmt in _INDEXED:
        assert back.labels == range(1, data.n + 1)
        assert _edge_dict(back, relabel=data.labels) == _edge_dict(data)
    else:
        assert _edge_dict(back) == _edge_dict(data)
        if fmt in _LABELLED:
            assert set(back.labels) == set(data.labels)
        else:
            assert set(back.labels) == set(data.labels) - {"Lonely"}
            assert any("1 isolated node" in str(w.message) for w in caught)


def test_write_graph_needs_a_known_extension(tmp_path):
    # .txt (like the other plain-text extensions) writes a SNAP edge list that reads back
    write_graph(nx.path_graph(3), tmp_path / "plain.txt")
    assert detect_format(tmp_path / "plain.txt") == "snap"
    assert read_graph(tmp_path / "plain.txt").labels == (0, 1, 2)
    with pytest.raises(ValueError, match="format="):
        write_graph(nx.path_graph(3), tmp_path / "g.bin")
    with pytest.raises(ValueError, match="not one of"):
        write_graph(nx.path_graph(3), tmp_path / "g.txt", format="xyz")
    write_graph(nx.path_graph(3), tmp_path / "g.txt", format="gset")
    assert read_graph(tmp_path / "g.txt").m == 2


@pytest.mark.parametrize("text, fmt", [
    ("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n", "mtx"),
    ('<?xml version="1.0"?>\n<graphml></graphml>\n', "graphml"),
    ("graph [\n node [ id 0 ]\n]\n", "gml"),
    ("*Vertices 2\n1 a\n2 b\n*Edges\n1 2\n", "pajek"),
    ("c comment\np edge 2 1\ne 1 2\n", "dimacs"),
    ("a b {'weight': 1}\n", "edgelist"),
    ("# comment\n1 2\n2 3\n", "snap"),
    ("1 2 0.5\n2 3 1\n", "snap"),
    ("3 2\n1 2 1\n2 3 1\n", "gset"),
    ("3\n1 2 1\n", "gset"),
])
def test_detect_format_from_content(tmp_path, text, fmt):
    assert detect_format(_write(tmp_path, "graph.txt", text)) == fmt
    assert detect_format(_write(tmp_path, "graph", text)) == fmt


def test_detect_format_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        detect_format(tmp_path / "missing.txt")
    with pytest.raises(GraphFormatError, match="cannot tell"):
        detect_format(_write(tmp_path, "odd.txt", "1 2 3 4 5\n"))
    with pytest.raises(ValueError, match="not one of"):
        read_graph(_write(tmp_path, "x.txt", "1 2\n"), format="xyz")


# ----------------------------------------------------------------------------- METIS


def test_metis_weight_flags_comments_and_isolated(tmp_path):
    # fmt 011: one vertex weight then (neighbour, edge weight) pairs; vertex 4 isolated (blank)
    p = _write(tmp_path, "g.graph", "% a comment\n4 2 011\n7 2 5 3 1\n8 1 5\n9 1 1\n3\n")
    g = read_graph(p)
    assert (g.n, g.m) == (4, 2)
    assert _edge_dict(g) == {frozenset((1, 2)): 5.0, frozenset((1, 3)): 1.0}
    # fmt 110 with ncon = 2: size, two weights, neighbours
    p = _write(tmp_path, "h.graph", "3 2 110 2\n1 5 5 2\n1 5 5 1 3\n1 5 5 2\n")
    assert _edge_dict(read_graph(p)) == {frozenset((1, 2)): 1.0, frozenset((2, 3)): 1.0}
    p = _write(tmp_path, "i.graph", "3 1\n\n3\n2\n")
    g = read_graph(p)
    assert (g.n, g.m) == (3, 1) and _edge_dict(g) == {frozenset((2, 3)): 1.0}


@pytest.mark.parametrize("text, line, fragment", [
    ("3 2\n2\n1 3\n", 1, "truncated"),                 # fewer vertex lines than n
    ("3 3\n2\n1 3\n2\n", 1, "announces 3"),            # header m disagrees
    ("3 2\n2\n1 x\n2\n", 3, "non-numeric"),
    ("3 2\n2\n1 0\n2\n", 3, "out of range"),
    ("3 2\n2\n1 4\n2\n", 3, "out of range"),
    ("3 2\n2\n1 3\n2\n1\n", 5, "extra vertex line"),
    ("3 1 001\n2 1\n1 1\n2\n", 4, "wrong number of fields"),
    ("3 2 021\n2\n1 3\n2\n", 1, "fmt"),
    ("3 2\n2 3\n1\n\n", 2, "directed"),                # 1 lists 3 but 3 lists nothing
])
def test_metis_errors(tmp_path, text, line, fragment):
    p = _write(tmp_path, "bad.graph", text)
    with pytest.raises(GraphFormatError) as info:
        read_graph(p)
    assert info.value.line == line and str(p) in str(info.value)
    assert fragment in str(info.value)


def test_metis_directed_with_symmetrize_and_empty(tmp_path):
    p = _write(tmp_path, "d.graph", "3 2\n2 3\n1\n\n")
    assert read_graph(p, symmetrize="max").m == 2
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(_write(tmp_path, "e.graph", "% only a comment\n"))


def test_metis_writer_refuses_fractional_weights(tmp_path):
    with pytest.raises(ValueError, match="integer"):
        write_graph([(0, 1, 0.5)], tmp_path / "g.graph")


# ----------------------------------------------------------------------------- DIMACS


def test_dimacs_both_directions_and_weights(tmp_path):
    p = _write(tmp_path, "g.col", "c hi\np edge 4 4\ne 1 2\ne 2 1\ne 2 3\nc mid\ne 3 1\n")
    with pytest.warns(DuplicateEdgeWarning, match="merged 1 repeated edge.*duplicates='max'"):
        g = read_graph(p)
    assert (g.n, g.m) == (4, 3)
    p = _write(tmp_path, "w.col", "p edge 3 2\ne 1 2 4\ne 2 3 -1\n")
    assert _edge_dict(read_graph(p)) == {frozenset((1, 2)): 4.0, frozenset((2, 3)): -1.0}


@pytest.mark.parametrize("text, line, fragment", [
    ("p edge 3 3\ne 1 2\ne 2 3\n", 1, "truncated"),
    ("p edge 3 1\ne 1 2\ne 2 3\n", 1, "announces 1"),
    ("p edge 3 2\ne 1 2\ne 2 q\n", 3, "non-numeric"),
    ("p edge 3 2\ne 1 2\ne 0 3\n", 3, "out of range"),
    ("p edge 3 2\ne 1 2\nc x\ne 2 4\n", 4, "out of range"),
    ("p edge 3 2\ne 1 2\nn 2 3\n", 3, "not an edge line"),
    ("e 1 2\n", 1, "problem line"),
    ("p edge 3 2\ne 1 2\ne 2\n", 3, "field"),
])
def test_dimacs_errors(tmp_path, text, line, fragment):
    p = _write(tmp_path, "bad.col", text)
    with pytest.raises(GraphFormatError) as info:
        read_graph(p)
    assert info.value.line == line and str(p) in str(info.value)
    assert fragment in str(info.value)


def test_dimacs_empty(tmp_path):
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(_write(tmp_path, "e.col", "c nothing\n"))


# ----------------------------------------------------------------------------- Matrix Market


def test_mtx_pattern_and_general(tmp_path):
    p = _write(tmp_path, "p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                  "% c\n3 3 2\n2 1\n3 2\n")
    assert _edge_dict(read_graph(p)) == {frozenset((1, 2)): 1.0, frozenset((2, 3)): 1.0}
    p = _write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                  "3 3 3\n2 1 2.0\n1 2 2.0\n3 2 1\n")
    with pytest.raises(GraphFormatError, match="symmetrize") as info:
        read_graph(p)
    assert info.value.line == 1
    assert _edge_dict(read_graph(p, symmetrize="max")) == {frozenset((1, 2)): 2.0,
                                                           frozenset((2, 3)): 1.0}


@pytest.mark.parametrize("text, line, fragment", [
    # the size line announcing the entries is named (dpgraph parses the coordinate body)
    ("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n", 2, "runcated"),
    ("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 2 x\n", 4, "malformed"),
    ("hello\n", 1, "MatrixMarket"),
    ("%%MatrixMarket matrix coordinate real general\n3 2 1\n2 1 1\n", 1, "square"),
    ("", None, "empty"),
])
def test_mtx_errors(tmp_path, text, line, fragment):
    p = _write(tmp_path, "bad.mtx", text)
    with pytest.raises(GraphFormatError) as info:
        read_graph(p)
    assert info.value.line == line and str(p) in str(info.value)
    assert fragment in str(info.value)


# ----------------------------------------------------------------------------- NetworkX formats


def test_networkx_formats_directed_need_symmetrize(tmp_path):
    files = {
        "d.graphml": '<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/'
                     'xmlns">\n<graph edgedefault="directed"><node id="a"/><node id="b"/>'
                     '<edge source="a" target="b"/></graph></graphml>\n',
        "d.gml": 'graph [\n directed 1\n node [ id 0 label "a" ]\n node [ id 1 label "b" ]\n'
                 ' edge [ source 0 target 1 ]\n]\n',
        "d.net": '*Vertices 2\n1 "a"\n2 "b"\n*Arcs\n1 2 1.0\n',
    }
    for name, text in files.items():
        p = _write(tmp_path, name, text)
        with pytest.raises(GraphFormatError, match="symmetrize") as info:
            read_graph(p)
        assert str(p) in str(info.value)
        g = read_graph(p, symmetrize="max")
        assert g.labels == ("a", "b") and g.m == 1


@pytest.mark.parametrize("name, text, line", [
    ("bad.graphml", '<?xml version="1.0"?>\n<graphml>\n<graph><node id="a">\n</graph>\n', 4),
    ("bad.gml", 'graph [\n node [ id 0 label "a"\n', 3),
])
def test_networkx_formats_syntax_errors_name_the_line(tmp_path, name, text, line):
    p = _write(tmp_path, name, text)
    with pytest.raises(GraphFormatError) as info:
        read_graph(p)
    assert info.value.line == line and str(p) in str(info.value)


def test_networkx_edgelist_numeric_third_column_and_nodetype(tmp_path):
    p = _write(tmp_path, "g.edgelist", "1 2 2.5\n2 3 1\n")
    g = read_graph(p, nodetype=int)
    assert _edge_dict(g) == {frozenset((1, 2)): 2.5, frozenset((2, 3)): 1.0}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_refuses_an_empty_file(tmp_path, fmt):
    p = _write(tmp_path, "empty", "")
    with pytest.raises(GraphFormatError, match="empty") as info:
        read_graph(p, format=fmt)
    assert str(p) in str(info.value)


def test_gzip_detected_by_content_not_name(tmp_path):
    p = tmp_path / "g.txt"
    with gzip.open(p, "wt") as f:
        f.write("# x\n1 2\n2 3\n")
    assert read_graph(p).m == 2


@pytest.mark.parametrize("fmt", ["graphml", "gml"])
def test_leading_whitespace_past_4096_characters_is_not_an_empty_file(tmp_path, fmt):
    # the emptiness check once read only the first 4,096 characters
    body = {"graphml": '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                       '<graph edgedefault="undirected"><node id="a"/><node id="b"/>'
                       '<edge source="a" target="b"/></graph></graphml>',
            "gml": "graph [ node [ id 0 label \"a\" ] node [ id 1 label \"b\" ] "
                   "edge [ source 0 target 1 ] ]"}[fmt]
    p = _write(tmp_path, "g." + fmt, " \n" * 5000 + body)
    assert read_graph(p, format=fmt).m == 1
    blank = _write(tmp_path, "blank." + fmt, " \n" * 50000)
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(blank, format=fmt)


def test_pajek_edge_to_an_undeclared_vertex_is_refused(tmp_path):
    """A token that is neither a *Vertices id nor a label is refused with its line, where
    networkx.read_pajek adds it as a new vertex (an id out of range read silently as a fourth
    node); an edge by label reads as NetworkX reads it."""
    path = tmp_path / "p.net"
    path.write_text('*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\n1 2\n2 5\n')
    assert len(nx.read_pajek(path)) == 4  # NetworkX's reading
    with pytest.raises(GraphFormatError, match="vertex '5' is neither") as err:
        read_graph(path)
    assert err.value.line == 7
    path.write_text('*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\na b\n2 3\n')
    i, j, _ = read_graph(path).edges()
    assert len(i) == nx.read_pajek(path).number_of_edges() == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_graph(path).m == 2


@pytest.mark.parametrize("name, text, line", [
    ("w.txt", "0 1 0.5\n1 2 nan\n2 3 1e400\n", 2),
    ("w.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 nan\n", 4),
    ("w.gset", "3 2\n1 2 0.5\n2 3 inf\n", 3),
])
def test_non_finite_weight_names_its_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(GraphFormatError, match="non-finite") as err:
        read_graph(path)
    assert err.value.line == line


@pytest.mark.parametrize("text, line", [
    ("a b\nc\n", 2),                 # networkx.read_edgelist skipped it silently
    ("0 1\n1 x y z\n", 2),           # raised TypeError without a line
    ("a b 1\nc d x\n", 2),
    ("a b {'weight': 1}\nc d 2\n", 2),
])
def test_edgelist_lines_networkx_would_drop_or_misread_name_their_line(tmp_path, text, line):
    path = tmp_path / "e.edgelist"
    path.write_text(text)
    with pytest.raises(GraphFormatError) as err:
        read_graph(path, format="edgelist")
    assert err.value.line == line


def test_undetectable_content_names_the_line_that_breaks_the_edge_list_shape(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("# comment\n0 1\n1 x y z\n")
    with pytest.raises(GraphFormatError, match="cannot tell the format") as err:
        detect_format(path)
    assert err.value.line == 3 and "line 2 has 2 field(s), this one 4" in str(err.value)
