"""A newcomer's second pass over the command line and the readers: output files written
whole or not at all (``--out``, ``-o``, the benchmark plot, ``write_csp``), weights whose sum
overflows, edges to undeclared nodes (Pajek, GraphML), an empty Matrix Market file,
``--weight`` naming an attribute no edge has, the plot without matplotlib, and the karate
data set read unweighted.

In-process and small: each test runs in about a second or less.
"""

import json
import sys
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.io import GraphFormatError, read_graph

OLD = "an existing file, left as it was\n"


def _folder_holds_only(folder, *names):
    """No '.part' file (nor anything else) is left next to the output."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


# ----------------------------------------------------------------------------- atomic outputs


class _Bomb:
    """A value whose text (``f"{x}"``) or ``int(x)`` fails, as a full disk would, midway
    through writing an output file."""

    def __format__(self, spec):
        raise OSError(28, "No space left on device")

    __int__ = __index__ = __str__ = lambda self: self.__format__("")


def test_maxcut_out_that_fails_midway_leaves_the_existing_file(tmp_path, monkeypatch, capsys):
    """``--out`` was opened in place ("w" truncates it first): a write that failed after the
    release left a partial (here: empty) partition file in place of the one there."""
    import dpgraph.solve.cut as cut

    real = cut.max_cut

    class Result:  # the real result, with one side that cannot be written
        def __init__(self, res):
            self._res = res
            items = list(res.assignment.items())
            self.assignment = dict(items[:3] + [(items[3][0], _Bomb())] + items[4:])

        def __getattr__(self, name):
            return getattr(self._res, name)

    monkeypatch.setattr(cut, "max_cut", lambda *a, **kw: Result(real(*a, **kw)))
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    out = tmp_path / "part.tsv"
    out.write_text(OLD)
    assert main(["maxcut", str(graph), "--epsilon", "1", "--delta", "0", "-q",
                 "--out", str(out)]) != 0
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == OLD
    _folder_holds_only(tmp_path, "g.txt", "part.tsv")


def test_max2csp_out_that_fails_midway_leaves_the_existing_file(tmp_path, monkeypatch, capsys):
    import dpgraph.cli.max2csp as cmd

    real = cmd._read_instance

    def read(args):
        inst, names, *rest = real(args)
        return (inst, [*list(names)[:2], _Bomb(), *list(names)[3:]], *rest)

    monkeypatch.setattr(cmd, "_read_instance", read)
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {(i + 1) % 6}\n" for i in range(6)))
    out = tmp_path / "assignment.tsv.gz"
    out.write_text(OLD)
    assert main(["max2csp", str(graph), "--k", "3", "--epsilon", "1", "--delta", "0", "-q",
                 "-o", str(out)]) != 0
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == OLD
    _folder_holds_only(tmp_path, "g.txt", "assignment.tsv.gz")


def test_maxcut_out_gz_is_still_a_gzip_partition(tmp_path):
    """The atomic write keeps what ``--out`` wrote: gzip where the name ends in .gz."""
    import gzip

    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {(i + 1) % 8}\n" for i in range(8)))
    out = tmp_path / "part.tsv.gz"
    assert main(["maxcut", str(graph), "--epsilon", "1", "--delta", "0", "-q", "--json",
                 "--out", str(out)]) == 0
    with gzip.open(out, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert sorted(int(line.split("\t")[0]) for line in lines) == list(range(8))
    assert {line.split("\t")[1] for line in lines} <= {"0", "1"}
    _folder_holds_only(tmp_path, "g.txt", "part.tsv.gz")


def test_write_csp_that_fails_midway_leaves_the_existing_file(tmp_path, monkeypatch):
    from dpgraph.engine import formats, max_k_cut_instance, read_csp, write_csp

    inst = max_k_cut_instance(dpgraph.as_graph_data([("a", "b"), ("b", "c")]), 2)
    path = tmp_path / "x.csp"
    write_csp(inst, path)
    before = path.read_text()
    real = formats.json.dumps
    calls = []

    def dumps(x, *a, **kw):  # the second name line fails
        calls.append(x)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(x, *a, **kw)

    monkeypatch.setattr(formats.json, "dumps", dumps)
    with pytest.raises(OSError, match="No space"):
        write_csp(inst, path)
    monkeypatch.undo()
    assert path.read_text() == before and read_csp(path).names == ("a", "b", "c")
    _folder_holds_only(tmp_path, "x.csp")


def test_plot_transfer_that_fails_midway_leaves_the_existing_file(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from dpgraph.lab.benchmarking import plot_transfer, run_transfer_benchmark

    bench = run_transfer_benchmark(nx.cycle_graph(6), epsilons=(1,), seeds=(0,),
                                   methods=("random",))
    path = tmp_path / "b.png"
    path.write_text(OLD)

    def savefig(self, fname, **kw):  # half a file, then the disk is full
        if hasattr(fname, "write"):
            fname.write(b"\x89PNG half")
        else:
            with open(fname, "wb") as f:
                f.write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", savefig)
    with pytest.raises(OSError, match="No space"):
        plot_transfer(bench, path)
    assert path.read_text() == OLD
    _folder_holds_only(tmp_path, "b.png")
    monkeypatch.undo()
    assert plot_transfer(bench, path) == str(path)
    assert path.read_bytes()[1:4] == b"PNG"
    _folder_holds_only(tmp_path, "b.png")


# ----------------------------------------------------------------------------- overflow


def test_info_refuses_weights_whose_sum_overflows(tmp_path, capsys):
    """Weights near 1e308: info warned "overflow encountered in reduce" and printed the
    total (and the weighted degrees) as inf / "Infinity"."""
    path = tmp_path / "big.txt"
    path.write_text("0 1 1e308\n1 2 1e308\n2 0 1e308\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's RuntimeWarning included
        assert main(["info", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"dpgraph: error: {path}: ")
    assert "overflow encountered" not in err and "Infinity" not in err
    assert "1.8e+308" in err and "rescale" in err


@pytest.mark.parametrize("make", [
    lambda: nx.Graph([(0, 1, {"weight": 1e308}), (1, 2, {"weight": 1e308})]),
    lambda: [(0, 1, 1e308), (0, 2, 1e308), (1, 2, -1e308)],  # node 0: 2e308
    lambda: np.array([[0, 1e308], [1e308, 0]]),  # one edge, counted from both ends
])
def test_as_graph_data_refuses_weights_whose_sum_overflows(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"add up past 1\.8e\+308"):
            dpgraph.as_graph_data(make())


@pytest.mark.parametrize("name, text", [
    ("big.txt", "0 1 1e308\n1 2 1e308\n"),  # the fast SNAP reader: no from_coo pass
    ("big.gset", "3 2\n1 2 1e308\n2 3 1e308\n"),
    ("big.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1e308\n"
                "3 2 1e308\n"),
    ("big.metis", "3 2 1\n2 1e308\n1 1e308 3 1e308\n2 1e308\n"),
    ("big.csv", "source,target,weight\n0,1,1e308\n1,2,1e308\n"),
    ("big.net", "*Vertices 3\n*Edges\n1 2 1e308\n2 3 1e308\n"),
    ("big.graphml", '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="w" '
                    'for="edge" attr.name="weight" attr.type="double"/><graph '
                    'edgedefault="undirected"><node id="a"/><node id="b"/><node id="c"/>'
                    '<edge source="a" target="b"><data key="w">1e308</data></edge>'
                    '<edge source="b" target="c"><data key="w">1e308</data></edge>'
                    '</graph></graphml>'),
])
def test_read_graph_refuses_an_overflowing_sum_naming_the_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as err:
            read_graph(path)
    assert str(err.value).startswith(f"{path}: the edge weights add up past 1.8e+308, the "
                                     f"largest float64: the weighted degree of node ")
    assert "networkx" not in str(err.value) and "expected" not in str(err.value)


def test_dask_edge_files_refuse_an_overflowing_sum(tmp_path):
    pytest.importorskip("dask.dataframe")
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "p0.csv").write_text("u,v,weight\n0,1,1e308\n1,2,1e308\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"add up past 1\.8e\+308.*node 1 overflows"):
            read_edge_files(str(folder))
    (folder / "p0.csv").write_text("u,v,weight\n0,1,1e300\n1,2,1e300\n")
    assert read_edge_files(str(folder)).total_weight == 2e300


def test_large_weights_whose_sum_fits_read_and_add_up(tmp_path, capsys):
    path = tmp_path / "large.txt"
    path.write_text("0 1 1e300\n1 2 3e300\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["info", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["weights"]["total"] == 4e300 and doc["weighted_degree"]["max"] == 4e300


# ----------------------------------------------------------------------------- undeclared nodes


def test_pajek_edge_to_a_vertex_beyond_its_count_is_refused_with_its_line(tmp_path):
    """``*Vertices 2`` then an edge to 3: NetworkX adds a third vertex (a warning said so)."""
    path = tmp_path / "p.net"
    path.write_text('*Vertices 2\n1 "a"\n2 "b"\n*Edges\n1 2\n2 3\n')
    with pytest.raises(GraphFormatError, match="vertex '3'") as err:
        read_graph(path)
    assert err.value.line == 6 and err.value.text == "2 3" and str(path) in str(err.value)


def test_pajek_edgeslist_to_an_undeclared_vertex_is_refused(tmp_path):
    path = tmp_path / "p.net"
    path.write_text('*Vertices 3\n*Edgeslist\n1 2 3\n2 7\n')
    with pytest.raises(GraphFormatError, match="vertex '7'") as err:
        read_graph(path)
    assert err.value.line == 4


def test_graphml_edge_to_an_undeclared_node_is_refused(tmp_path, capsys):
    path = tmp_path / "g.graphml"
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                    '<graph edgedefault="undirected"><node id="a"/><node id="b"/>\n'
                    '<edge source="a" target="b"/><edge source="b" target="c"/>\n'
                    '</graph></graphml>\n')
    with pytest.raises(GraphFormatError, match="node 'c'"):
        read_graph(path)
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dpgraph: error: {path}: ") and "'c'" in err


def test_declared_nodes_still_read_by_id_and_by_label(tmp_path):
    """What stays: Pajek edges by vertex id or by label, a Pajek file without *Vertices, a
    GraphML file with isolated and nested (yEd group) nodes."""
    path = tmp_path / "p.net"
    path.write_text('*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\na b\n2 3\n')
    assert read_graph(path).m == 2
    path.write_text('*Edges\nx y\ny z\n')
    assert tuple(read_graph(path).labels) == ("x", "y", "z")
    G = nx.Graph([("a", "b")])
    G.add_node("lonely")
    nx.write_graphml(G, tmp_path / "g.graphml")
    assert read_graph(tmp_path / "g.graphml").n == 3
    nested = tmp_path / "nested.graphml"
    nested.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                      '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                      '<graph edgedefault="undirected"><node id="a"/>\n'
                      '<node id="g" yfiles.foldertype="group"><graph edgedefault="undirected">'
                      '<node id="g::b"/></graph></node>\n'
                      '<edge source="a" target="g::b"/></graph></graphml>\n')
    assert read_graph(nested).m == 1


# ----------------------------------------------------------------------------- empty mtx


def test_an_empty_matrix_market_file_gets_one_consistent_message(tmp_path, capsys):
    """"0 0 0": "the matrix has no nodes ... expected a symmetric matrix, or --symmetrize",
    though the matrix is symmetric. Refused as every other format refuses 0 nodes."""
    path = tmp_path / "e.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real symmetric\n% none\n0 0 0\n")
    with pytest.raises(GraphFormatError) as err:
        read_graph(path)
    assert err.value.line == 3 and err.value.text == "0 0 0"
    assert "symmetri" not in str(err.value) and "at least one node" in str(err.value)
    assert main(["info", str(path)]) == 2
    assert "--symmetrize" not in capsys.readouterr().err


# ----------------------------------------------------------------------------- --weight


def _library_files(tmp_path):
    G = nx.Graph([(0, 1, {"w": 0.5}), (1, 2, {"w": 1.0})])
    paths = []
    for ext, write in (("graphml", nx.write_graphml), ("gml", nx.write_gml),
                       ("edgelist", nx.write_edgelist)):
        paths.append(tmp_path / f"g.{ext}")
        write(G, paths[-1])
    # networkx.write_pajek drops the attribute 'w' (not a string): 'key value' pairs by hand
    paths.append(tmp_path / "g.net")
    paths[-1].write_text('*Vertices 3\n1 "0"\n2 "1"\n3 "2"\n*Edges\n1 2 1 w 0.5\n'
                         '2 3 1 w 1.0\n')
    return paths


def test_weight_naming_an_attribute_no_edge_has_is_refused_as_for_csv(tmp_path, capsys):
    """GraphML, GML, Pajek and NetworkX edge lists warned (Pajek: nothing) and read every
    weight as 1, where CSV and Dask edge files refuse the same --weight."""
    for path in _library_files(tmp_path):
        fmt = ["--format", "edgelist"] if path.suffix == ".edgelist" else []
        assert main(["info", str(path), "--weight", "foo", *fmt]) == 2, path
        err = capsys.readouterr().err
        assert err.startswith(f"dpgraph: error: {path}: no edge has the attribute 'foo' "
                              f"(--weight foo)"), err
        assert "'w'" in err  # the attribute the edges do carry
        with pytest.raises(GraphFormatError, match="weight='foo'"):
            read_graph(path, weight="foo", **({"format": "edgelist"} if fmt else {}))


def test_the_default_weight_absent_and_a_named_one_present_still_read(tmp_path):
    for path in _library_files(tmp_path):
        kw = {"format": "edgelist"} if path.suffix == ".edgelist" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert read_graph(path, **kw).is_unweighted  # no 'weight': each edge 1, silently
        g = read_graph(path, weight="w", **kw)
        assert sorted(g.weights.data) == [0.5, 0.5, 1.0, 1.0], path


# ----------------------------------------------------------------------------- plot


def test_plot_without_matplotlib_names_the_files_format_not_png(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["bench", "planted-cut-n200-d16", "--epsilons", "1", "--seeds", "1",
                 "--methods", "random", "--plot", str(tmp_path / "b.pdf"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "PNG" not in err
    assert "--plot: writing the benchmark plot needs matplotlib: pip install 'dpgraph[bench]'" \
        in err


@pytest.mark.parametrize("modules", [("matplotlib.backend_bases",),
                                     ("matplotlib", "matplotlib.backend_bases")])
def test_plot_format_without_matplotlib_says_what_to_install(modules, monkeypatch):
    """plot_format on its own raised "No module named 'matplotlib.backend_bases'"."""
    from dpgraph.lab.benchmarking import plot_format

    for module in modules:  # (an imported submodule is found without its parent)
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModuleNotFoundError) as err:
        plot_format("b.pdf")
    assert str(err.value) == ("writing the benchmark plot needs matplotlib: "
                              "pip install 'dpgraph[bench]'")
    assert plot_format("b") == "png"  # no extension: nothing to check


# ----------------------------------------------------------------------------- karate


def test_info_karate_says_the_data_set_is_read_unweighted(capsys):
    """README: networkx.karate_club_graph()'s weights are 1 to 7; the data set 'karate' is
    registered unweighted, and info printed "(unweighted)" without saying why."""
    assert main(["info", "karate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["weights"]["kind"] == "unweighted"
    G = nx.karate_club_graph()
    counts = sorted({w for *_, w in G.edges(data="weight")})
    assert counts[0] == 1 and counts[-1] == 7  # what NetworkX's graph carries
    assert any("every edge weight 1" in n and "1 to 7" in n and "not read" in n
               for n in doc["notes"]), doc["notes"]
