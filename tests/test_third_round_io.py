"""Third-round reader and command-line fixes: two-mode Pajek networks read (NetworkX refuses
them), sums of repeated weights that overflow named by pair and lines (in the Dask reader
too), one overflow type from every reader, the Dask sample folder written whole or not at
all, Dask edge files named .txt/.tsv refused (read_graph reads them as plain edge lists),
the Dask id rule as read_graph's (``1.0`` under integer ids, an integer under names), and a
CSV file starting with a '%' line told that '%' is no comment there."""

import os
import re
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.graph import WeightSumOverflowError
from dpgraph.io import GraphFormatError, read_graph


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _edge_set(g):
    labels = tuple(g.labels)
    i, j, w = g.edges()
    return {(labels[a], labels[b], float(c)) for a, b, c in zip(i, j, w)}


# ----------------------------------------------------------------------------- two-mode Pajek

TWO_MODE = ('*Vertices 5 2\n1 "ann"\n2 "bob"\n3 "e1"\n4 "e2"\n5 "e3"\n'
            '*Edges\n1 3\n1 4\n2 4 2\n2 5\n')


def test_two_mode_pajek_network_is_read_as_its_edges(tmp_path):
    """'*Vertices n n1' (Davis' southern women is written so) was refused as a malformed
    *Vertices line; NetworkX's read_pajek fails on it ("too many values to unpack")."""
    path = tmp_path / "davis.net"
    path.write_text(TWO_MODE)
    with pytest.raises(ValueError):
        nx.read_pajek(path)
    g = read_graph(path)
    assert g.labels == ("ann", "bob", "e1", "e2", "e3")
    assert _edge_set(g) == {("ann", "e1", 1.0), ("ann", "e2", 1.0), ("bob", "e2", 2.0),
                            ("bob", "e3", 1.0)}
    # the same network as a two-mode matrix: 2 rows (first mode) over 3 columns (second)
    matrix = TWO_MODE.split("*Edges")[0] + "*Matrix\n1 1 0\n0 1 1\n"
    path.write_text(matrix)
    assert _edge_set(read_graph(path)) == {("ann", "e1", 1.0), ("ann", "e2", 1.0),
                                           ("bob", "e2", 1.0), ("bob", "e3", 1.0)}
    # the same network with one mode declared: as a one-mode file (edges are edges)
    path.write_text(TWO_MODE.replace("*Vertices 5 2", "*Vertices 5"))
    assert _edge_set(read_graph(path)) == _edge_set(_quiet(read_graph, path))


# Davis' southern women as Pajek writes it, cut to four women (vertices 1-4, the first mode)
# and three events (5-7): quoted labels with spaces, coordinates on the vertex lines
DAVIS = ('*Vertices 7 4\n1 "Evelyn Jefferson" 0.1 0.2 0.5\n2 "Laura Mandeville" 0.1 0.4 0.5\n'
         '3 "Theresa Anderson" 0.1 0.6 0.5\n4 "Brenda Rogers" 0.1 0.8 0.5\n'
         '5 "E1" 0.9 0.2 0.5\n6 "E2" 0.9 0.5 0.5\n7 "E3" 0.9 0.8 0.5\n'
         '*Edges\n1 5\n1 6\n2 5\n2 7\n3 6\n3 7\n4 5\n')
WOMEN = ("Evelyn Jefferson", "Laura Mandeville", "Theresa Anderson", "Brenda Rogers")
EVENTS = ("E1", "E2", "E3")


def test_two_mode_pajek_keeps_its_modes_as_networkx_bipartite(tmp_path):
    """The mode split of '*Vertices n n1' was lost: the graph read had the two modes' vertices
    as nodes and nothing saying which is which. Its NetworkX graph now carries NetworkX's
    bipartite convention (node attribute 'bipartite': 0 for the vertices 1..n1, 1 for the
    others); labels, nodes and edges are those NetworkX reads from the one-mode file."""
    path = tmp_path / "davis.net"
    path.write_text(DAVIS)
    g = read_graph(path)
    G = g.to_networkx(weight=None)
    assert tuple(g.labels) == WOMEN + EVENTS
    assert dict(G.nodes(data="bipartite")) == {**dict.fromkeys(WOMEN, 0),
                                               **dict.fromkeys(EVENTS, 1)}
    assert nx.bipartite.is_bipartite_node_set(G, WOMEN)
    one_mode = tmp_path / "one.net"
    one_mode.write_text(DAVIS.replace("*Vertices 7 4", "*Vertices 7"))
    H = nx.Graph(nx.read_pajek(one_mode))
    assert set(H.nodes) == set(G.nodes) and {frozenset(e) for e in H.edges} == \
        {frozenset(e) for e in G.edges}
    assert read_graph(one_mode).modes is None
    assert not nx.get_node_attributes(read_graph(one_mode).to_networkx(), "bipartite")


def test_two_mode_pajek_modes_follow_the_vertex_numbers(tmp_path):
    """The mode is the vertex number's (1..n1 first), whatever the order of the vertex lines
    or where they are left out, in the *Matrix form too; a node added by nodes= has none."""
    path = tmp_path / "davis.net"
    # vertex lines out of order, vertices 2 and 4 without one (labelled '2' and '4')
    path.write_text('*Vertices 5 2\n5 "e3"\n1 "ann"\n3 "e1"\n*Edges\n1 3\n1 4\n2 4\n2 5\n')
    G = _quiet(read_graph, path).to_networkx()
    assert dict(G.nodes(data="bipartite")) == {"ann": 0, "2": 0, "e1": 1, "4": 1, "e3": 1}
    path.write_text(TWO_MODE.split("*Edges")[0] + "*Matrix\n1 1 0\n0 1 1\n")
    g = read_graph(path)
    assert g.modes.tolist() == [0, 0, 1, 1, 1] and _edge_set(g) == {
        ("ann", "e1", 1.0), ("ann", "e2", 1.0), ("bob", "e2", 1.0), ("bob", "e3", 1.0)}
    wider = read_graph(path, nodes=["ann", "bob", "e1", "e2", "e3", "zoe"]).to_networkx()
    assert dict(wider.nodes(data="bipartite")) == {"ann": 0, "bob": 0, "e1": 1, "e2": 1,
                                                   "e3": 1, "zoe": None}


@pytest.mark.parametrize("vertices", ['x "ann"\n2 "bob"', '1 "ann"\n1 "bob"',
                                      '1 "ann"\n4 "ann"', '9 "ann"\n2 "bob"'],
                         ids=["not-a-number", "number-twice", "label-in-both-modes",
                              "number-above-n"])
def test_two_mode_pajek_vertex_line_without_its_number_is_refused(tmp_path, vertices):
    path = tmp_path / "bad.net"
    path.write_text(f'*Vertices 5 2\n{vertices}\n3 "e1"\n4 "e2"\n5 "e3"\n*Edges\n1 3\n')
    with pytest.raises(GraphFormatError, match=r"line [23]: .*whose id is a vertex number "
                                               r"1\.\.5, each once"):
        read_graph(path)


def test_two_mode_pajek_modes_in_igraph_follow_its_convention(tmp_path):
    """igraph marks a bipartite graph's vertices by the boolean attribute 'type' (False for
    the first kind)."""
    pytest.importorskip("igraph")
    path = tmp_path / "davis.net"
    path.write_text(DAVIS)
    H = read_graph(path).to_igraph()
    assert dict(zip(H.vs["name"], H.vs["type"])) == {**dict.fromkeys(WOMEN, False),
                                                     **dict.fromkeys(EVENTS, True)}
    assert H.is_bipartite()


def test_two_mode_pajek_modes_are_written_back(tmp_path):
    """Written as Pajek, a two-mode network is one again ('*vertices n n1'); GraphML and GML
    keep the 'bipartite' node attribute; an edge list, which cannot, says so."""
    path = tmp_path / "davis.net"
    path.write_text(DAVIS)
    g = read_graph(path)
    back = tmp_path / "back.net"
    dpgraph.write_graph(g, back)
    assert back.read_text().startswith("*vertices 7 4\n")
    again = read_graph(back)
    assert tuple(again.labels) == tuple(g.labels) and again.modes.tolist() == g.modes.tolist()
    dpgraph.write_graph(g, tmp_path / "g.graphml")
    assert dict(nx.read_graphml(tmp_path / "g.graphml").nodes(data="bipartite")) == \
        dict(g.to_networkx().nodes(data="bipartite"))
    with pytest.warns(dpgraph.GraphInputWarning, match="two-mode network .* not written"):
        dpgraph.write_graph(g, tmp_path / "g.csv")


@pytest.mark.parametrize("line", ["*Vertices 5 6", "*Vertices 5 -1", "*Vertices 5 2 1"])
def test_two_mode_pajek_with_an_impossible_mode_size_is_refused(tmp_path, line):
    path = tmp_path / "bad.net"
    path.write_text(TWO_MODE.replace("*Vertices 5 2", line))
    with pytest.raises(GraphFormatError, match=r"line 1: .*'\*Vertices n n1'"):
        read_graph(path)


def test_two_mode_matrix_wider_than_the_second_mode_is_refused(tmp_path):
    path = tmp_path / "wide.net"
    path.write_text(TWO_MODE.split("*Edges")[0] + "*Matrix\n1 1 0 1\n0 1 1\n")
    with pytest.raises(GraphFormatError, match=r"line 8: .*the 3 vertices of the second mode"):
        read_graph(path)


# ----------------------------------------------------------------------------- summed overflow

@pytest.mark.parametrize("name, text, line, lines, kw", [
    ("big.txt", "1 2 1e308\n2 3 1\n2 1 1e308\n", 1, "lines 1 and 3", {}),
    ("big.csv", "# c\nu,v,weight\n\n1,2,1e308\n2,3,1\n2,1,1e308\n", 4, "lines 4 and 6", {}),
    ("big.gset", "3 3\n1 2 1e308\n2 3 1\n2 1 1e308\n", 2, "lines 2 and 4", {}),
    ("big.col", "c x\np edge 3 3\ne 1 2 1e308\ne 2 3 1\ne 2 1 1e308\n", 3, "lines 3 and 5", {}),
    ("big.net", "*Vertices 3\n*Edges\n1 2 1e308\n2 3 1\n2 1 1e308\n", 3, "lines 3 and 5", {}),
    ("big.metis", "3 2 1\n2 1e308 2 1e308\n1 1e308 1 1e308 3 1\n2 1\n", 2, "line 2", {}),
    ("big.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1e308\n"
                "2 1 1e308\n2 3 1\n", 3, "lines 3 and 4", {"symmetrize": "sum"}),
])
def test_an_overflowing_sum_of_repeats_names_the_pair_and_its_lines(tmp_path, name, text,
                                                                     line, lines, kw):
    """Two 1e308 lines for one pair under duplicates='sum' were refused as "1 non-finite edge
    weight(s) (NaN or inf)", without the pair, its lines, or that the sum overflowed."""
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpgraph.DuplicateEdgeWarning)
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(GraphFormatError) as err:
            read_graph(path, duplicates="sum", **kw)
    msg = str(err.value)
    rule = "symmetrize='sum'" if kw else "duplicates='sum'"
    assert isinstance(err.value, WeightSumOverflowError) and err.value.line == line
    assert msg.startswith(f"{path}, line {line}: node pair (")
    assert f"({lines})" in msg and f"under {rule}: the sum overflows" in msg
    assert "non-finite" not in msg


def test_the_command_line_names_the_pair_lines_and_option(tmp_path, capsys):
    path = tmp_path / "big.txt"
    path.write_text("1 2 1e308\n1 2 1e308\n")
    assert main(["info", str(path), "--duplicates", "sum"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dpgraph: error: {path}, line 1: node pair (1, 2), listed 2 times "
                          f"(lines 1 and 2)")
    assert "under --duplicates sum: the sum overflows" in err and "--duplicates max" in err


def test_a_multigraph_sum_that_overflows_names_the_pair(tmp_path):
    G = nx.MultiGraph([("a", "b", {"weight": 1e308}), ("a", "b", {"weight": 1e308}),
                       ("b", "c", {"weight": 1.0})])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(WeightSumOverflowError, match=r"^networkx.MultiGraph: node pair "
                           r"\('a', 'b'\) has weights that add up past 1.8e\+308"):
            dpgraph.as_graph_data(G, duplicates="sum")
    G = nx.MultiGraph([("a", "b", {"weight": 5e307}), ("a", "b", {"weight": 2e307})])
    assert _quiet(dpgraph.as_graph_data, G, duplicates="sum").total_weight == 5e307 + 2e307


def test_sums_that_fit_read_as_before(tmp_path):
    path = tmp_path / "fits.txt"
    path.write_text("1 2 1e307\n1 2 2e307\n2 3 1\n")
    g = _quiet(read_graph, path, duplicates="sum")
    assert _edge_set(g) == {(1, 2, 1e307 + 2e307), (2, 3, 1.0)}


# ----------------------------------------------------------------------------- one type

@pytest.mark.parametrize("name, text", [
    ("big.txt", "0 1 1e308\n1 2 1e308\n"),
    ("big.csv", "u,v,weight\n0,1,1e308\n1,2,1e308\n"),
    ("big.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1e308\n"
                "3 2 1e308\n"),
    ("big.net", "*Vertices 3\n*Edges\n1 2 1e308\n2 3 1e308\n"),
    ("big.gml", 'graph [\n node [ id 0 label "a" ]\n node [ id 1 label "b" ]\n'
                ' node [ id 2 label "c" ]\n edge [ source 0 target 1 weight 1.0E308 ]\n'
                ' edge [ source 1 target 2 weight 1.0E308 ]\n]\n'),
])
def test_every_reader_refuses_an_overflow_with_one_type(tmp_path, name, text):
    """The text readers raised WeightSumOverflowError, the NetworkX, Matrix Market and Pajek
    readers a GraphFormatError that was not one: each reader now raises an error that is
    both (and a ValueError), with the message it gave."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        _quiet(read_graph, path)
    assert isinstance(err.value, WeightSumOverflowError)
    assert isinstance(err.value, GraphFormatError)
    assert str(err.value).startswith(f"{path}: the edge weights add up past 1.8e+308")


def test_the_overflow_error_survives_pickling(tmp_path):
    import pickle

    path = tmp_path / "big.txt"
    path.write_text("1 2 1e308\n1 2 1e308\n")
    with pytest.raises(GraphFormatError) as err:
        _quiet(read_graph, path, duplicates="sum")
    back = pickle.loads(pickle.dumps(err.value))
    assert str(back) == str(err.value) and back.line == 1 and back.pair == (1, 2)
    assert isinstance(back, WeightSumOverflowError)


# ----------------------------------------------------------------------------- CSV '%'

def test_a_csv_file_starting_with_a_percent_line_is_told_percent_is_no_comment(tmp_path):
    """The message said the header row "is separated by ' '" (the space of '% comment')."""
    path = tmp_path / "pct.csv"
    path.write_text("% written by a tool\nu,v\n1,2\n")
    with pytest.raises(GraphFormatError) as err:
        read_graph(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}, line 1: '%' is not a comment in CSV files")
    assert "'#'" in msg and "separated by" not in msg
    path.write_text("# written by a tool\nu,v\n1,2\n")
    assert read_graph(path).m == 1


# ----------------------------------------------------------------------------- Dask

@pytest.fixture
def dask_sync():
    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    with dask.config.set(scheduler="sync"):
        yield


def test_dask_sum_of_repeats_that_overflows_names_the_pair(tmp_path, dask_sync):
    """The Dask 'sum' merge overflowed after its finiteness check: refused as a degree
    overflow (or the total) without the pair, and numpy warned of the overflow."""
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "p0.csv").write_text("u,v,weight\n0,1,1e308\n1,2,1\n")
    (folder / "p1.csv").write_text("u,v,weight\n1,0,1e308\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpgraph.DuplicateEdgeWarning)
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(WeightSumOverflowError) as err:
            read_edge_files(folder, duplicates="sum")
    assert str(err.value).startswith(f"{folder / 'p0.csv'}, line 2: node pair (0, 1), listed 2 "
                                     f"times (p0.csv line 2 and p1.csv line 2), has weights "
                                     f"that add up past 1.8e+308")
    assert "under duplicates='sum': the sum overflows" in str(err.value)
    assert err.value.pair == (0, 1)
    (folder / "p0.csv").write_text("u,v,weight\n0,1,5e307\n1,2,1\n")
    (folder / "p1.csv").write_text("u,v,weight\n1,0,1e307\n")
    g = _quiet(read_edge_files, folder, duplicates="sum")
    assert g.to_graph_data().weights[0, 1] == 5e307 + 1e307


def test_synth_sample_folder_is_written_whole_or_not_at_all(tmp_path, dask_sync, monkeypatch):
    """The partition tasks wrote into the output folder itself: a failed task left a folder
    of some part files (a half-written sample)."""
    import dpgraph.synthetic.factor_sampler as fs

    pg = _quiet(dpgraph.privatize, nx.random_regular_graph(6, 120, seed=1), epsilon=4.0,
                delta=1e-6, rng=5, route="matrix-free")
    real = fs._sample_write

    def failing(pieces, labels, n, path):
        if path.endswith("part-00001.parquet"):
            raise OSError(28, "No space left on device")
        return real(pieces, labels, n, path)

    monkeypatch.setattr(fs, "_sample_write", failing)
    out = tmp_path / "synth"
    with pytest.raises(OSError, match="No space"):
        pg.write_sample(out, rng=3, partitions=3)
    assert os.listdir(tmp_path) == []  # no folder, no hidden part folder
    out.mkdir()  # an existing empty folder stays as it was
    with pytest.raises(OSError, match="No space"):
        pg.write_sample(out, rng=3, partitions=3)
    assert os.listdir(tmp_path) == ["synth"] and os.listdir(out) == []
    monkeypatch.setattr(fs, "_sample_write", real)
    count = pg.write_sample(out, rng=3, partitions=3)
    assert sorted(os.listdir(out)) == [f"part-0000{r}.parquet" for r in range(3)]
    assert os.listdir(tmp_path) == ["synth"] and count == pg.sample(rng=3).m


@pytest.mark.parametrize("name", ["p0.txt", "p0.tsv"])
def test_dask_txt_and_tsv_files_are_refused_saying_how_to_read_them(tmp_path, name, dask_sync,
                                                                    capsys):
    """read_graph reads a .txt/.tsv file as a plain edge list without a header row; the Dask
    reader read it as CSV with a header row: the SNAP file '0 1 / 1 2' read as one graph
    there and was refused here, and 'alice bob / carol dave' gave two graphs."""
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    sep = "\t" if name.endswith(".tsv") else " "
    (folder / name).write_text(f"alice{sep}bob\ncarol{sep}dave\n")
    assert read_graph(folder / name).m == 2
    with pytest.raises(ValueError, match=rf"{name} is named \.(txt|tsv), which "
                                         rf"dpgraph\.read_graph reads as a plain edge list"):
        read_edge_files(folder)
    assert main(["info", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "plain edge list" in err and "named .csv" in err and "Traceback" not in err


def test_dask_tab_separated_csv_reads_as_read_graph_reads_it(tmp_path, dask_sync):
    """The Dask reader split .csv files at commas only: a tab-separated .csv (read_graph's
    read_csv reads one by its header row) was one column."""
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "p0.csv").write_text("u\tv\tweight\na\tb\t0.5\nb\tc\t1\n")
    ref = _quiet(read_graph, folder / "p0.csv")
    got = _quiet(read_edge_files, folder).to_graph_data()
    assert tuple(got.labels) == tuple(ref.labels) and _edge_set(got) == _edge_set(ref)
    (folder / "p1.csv").write_text("u,v,weight\nc,d,1\n")
    with pytest.raises(ValueError, match="different separators"):
        read_edge_files(folder)


@pytest.mark.parametrize("ids", ["int", "auto"])
@pytest.mark.parametrize("first, second, bad", [
    ("1,2.0\n", "2,3\n3,1\n", "p0.csv, line 2: '2.0'"),  # floats first: every id a float
    ("1,2\n2,3\n", "3,1.0\n", "p1.csv, line 2: '1.0'"),
])
def test_dask_integer_ids_refuse_a_float_id_naming_file_and_line(tmp_path, ids, first, second,
                                                                bad, dask_sync):
    """ids='auto' with an integer first id read '2.0' as a number: the labels came back as the
    floats (1.0, 2.0, 3.0), where read_graph refuses the id; under ids='int', and for an
    integral float in a partition merged into the integers of the others, it is refused
    too (the scan reports partitions of float ids)."""
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "p0.csv").write_text("u,v\n" + first)
    (folder / "p1.csv").write_text("u,v\n" + second)
    with pytest.raises(GraphFormatError, match="non-integer node id"):
        read_graph(_concatenated(folder, tmp_path), ids=ids)
    with pytest.raises(ValueError, match=rf"{re.escape(bad)} is not an integer node id"):
        read_edge_files(folder, ids=ids)
    assert "1" in _quiet(read_edge_files, folder, ids="str").labels


@pytest.mark.parametrize("files", [
    {"p0.csv": "u,v\na,b\nb,7\n"},  # one partition: 7 read as the name '7'
    {"p0.csv": "u,v\na,b\n", "p1.csv": "u,v\n1,7\n"},  # a partition of integers
])
def test_dask_name_ids_refuse_an_integer_id_as_read_graph_does(tmp_path, files, dask_sync):
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    with pytest.raises(GraphFormatError, match="integer node id in a file of name ids"):
        read_graph(_concatenated(folder, tmp_path))
    last = sorted(files)[-1]
    with pytest.raises(ValueError, match=rf"{last}, line \d: '\d' is an integer node id, and "
                                         rf"the ids of these edge files are names"):
        read_edge_files(folder)
    got = _quiet(read_edge_files, folder, ids="str").to_graph_data()
    assert _edge_set(got) == _edge_set(_quiet(read_graph, _concatenated(folder, tmp_path),
                                              ids="str"))


def _concatenated(folder, tmp_path):
    """The CSV files of ``folder`` as one file (one header row): what read_graph reads."""
    rows = []
    for name in sorted(os.listdir(folder)):
        rows += (folder / name).read_text().splitlines()[1:]
    path = tmp_path / "all.csv"
    path.write_text("u,v\n" + "\n".join(rows) + "\n")
    return path
