"""A newcomer's pass over the command line, the writer and the benchmark plot: a METIS file
(and a directed graph) without edges, ``write_graph`` on a directed graph, the benchmark's
option lists (a value listed twice, a single value where a list is expected, no seeds) and
``plot_transfer``'s inputs (methods outside METHODS, no rows, wrong types).

In-process and small: each test runs in well under a second (``--methods random`` where the
method does not matter).
"""

import json

import networkx as nx
import numpy as np
import pytest

from dpgraph.cli.app import main

QUICK = ["--seeds", "1", "-q"]


# ----------------------------------------------------------------------------- no edges


def test_info_reads_a_metis_file_without_edges(tmp_path, capsys):
    """A METIS header of 5 vertices and 0 edges and five empty adjacency lines is a valid
    file: five isolated nodes (the arcs' combination crashed on zero arcs, a traceback)."""
    path = tmp_path / "empty.metis"
    path.write_text("5 0\n" + "\n" * 5)
    assert main(["info", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (doc["nodes"], doc["edges"], doc["isolated_nodes"]) == (5, 0, 5)
    assert "Traceback" not in err


@pytest.mark.parametrize("how", ["max", "sum", "mean"])
def test_a_directed_graph_without_edges_symmetrizes_to_isolated_nodes(how):
    import dpgraph

    G = nx.DiGraph()
    G.add_nodes_from(["a", "b", "c"])
    data = dpgraph.as_graph_data(G, symmetrize=how)
    assert (data.n, data.m, tuple(data.labels)) == (3, 0, ("a", "b", "c"))


# ----------------------------------------------------------------------------- write_graph


def test_write_graph_takes_the_symmetrize_its_refusal_names(tmp_path):
    """Refusing a DiGraph, write_graph says "pass symmetrize=...": it now takes it, with
    as_graph_data's meaning (max of the two arcs), and the file reads back undirected."""
    import dpgraph

    G = nx.DiGraph([(0, 1, {"weight": 0.5}), (1, 0, {"weight": 1.0}), (1, 2, {"weight": 0.25})])
    with pytest.raises(ValueError, match="symmetrize="):
        dpgraph.write_graph(G, tmp_path / "refused.txt")
    assert not (tmp_path / "refused.txt").exists()
    dpgraph.write_graph(G, tmp_path / "g.txt", symmetrize="max")
    g = dpgraph.read_graph(tmp_path / "g.txt")
    W = g.weights.toarray()
    assert g.m == 2 and np.array_equal(W, W.T)
    assert W[g.index[0], g.index[1]] == 1.0 and W[g.index[1], g.index[2]] == 0.25


# ----------------------------------------------------------------------------- notes of files


def _graphml_with_a_weight_zero_edge(tmp_path):
    path = tmp_path / "z.graphml"
    nx.write_graphml(nx.Graph([(0, 1, {"weight": 0.0}), (1, 2, {"weight": 1.0})]), path)
    return path


def test_a_graphml_files_warnings_name_the_file_not_networkx_graph(tmp_path):
    """GraphML, GML, Pajek and NetworkX edge lists are parsed by NetworkX; the notes of the
    conversion named "networkx.Graph", which says nothing of which file."""
    import dpgraph
    from dpgraph.graph import GraphInputWarning

    path = _graphml_with_a_weight_zero_edge(tmp_path)
    with pytest.warns(GraphInputWarning) as caught:
        g = dpgraph.read_graph(path)
    assert g.m == 1
    texts = [str(w.message) for w in caught]
    assert f"{path}: removed 1 edge(s) of weight 0" in texts
    assert not any("networkx.Graph" in t for t in texts)
    assert all(w.filename == __file__ for w in caught)  # pointing at the caller's line


def test_info_refuses_an_unknown_weight_attribute_in_the_commands_words(tmp_path, capsys):
    """Refused, as a CSV column of that name is (tests/test_second_day_cli2.py)."""
    path = _graphml_with_a_weight_zero_edge(tmp_path)
    assert main(["info", str(path), "--weight", "foo", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dpgraph: error: {path}: no edge has the attribute 'foo' "
                          f"(--weight foo)"), err
    assert "weight=" not in err and "--unweighted" in err


# ----------------------------------------------------------------------------- bench options


def _no_reading(monkeypatch):
    import dpgraph.cli.bench

    def refuse(*_, **__):
        raise AssertionError("bench read the graph before refusing its options")

    monkeypatch.setattr(dpgraph.cli.bench, "load_graph", refuse)


@pytest.mark.parametrize("option, value, shown", [
    ("--epsilons", "1,2,1.0", "--epsilons lists 1 twice"),
    ("--methods", "random,dpgraph,random", "--methods lists 'random' twice"),
])
def test_bench_refuses_a_value_listed_twice_before_reading(option, value, shown, monkeypatch,
                                                           capsys):
    """``--epsilons 1,1`` ran every seed twice and the table's "median over 1 seed" (and the
    plot's "median of 2 seeds") counted each run twice."""
    _no_reading(monkeypatch)
    args = ["bench", "karate", *QUICK, option, value]
    if option != "--methods":
        args += ["--methods", "random"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpgraph: error: ") and shown in err and "Traceback" not in err


@pytest.mark.parametrize("kwargs, error, message", [
    ({"epsilons": (1, 1.0)}, ValueError, "epsilons lists 1 twice"),
    ({"seeds": (0, 0)}, ValueError, "seeds lists 0 twice"),
    ({"methods": ("random", "random")}, ValueError, "methods lists 'random' twice"),
    ({"seeds": ()}, ValueError, "seeds must list at least one seed"),
    ({"seeds": 3}, TypeError, r"seeds must be a sequence \(e.g. range\(3\)\), got 3"),
    ({"methods": "random"}, TypeError, "methods must be a sequence"),
    ({"epsilons": 1.0}, TypeError, "epsilons must be a sequence"),
])
def test_run_transfer_benchmark_refuses_bad_lists_before_solving(kwargs, error, message,
                                                                monkeypatch):
    """Each was run (a doubled median, an empty benchmark after the reference solve) or
    failed deep inside (``'int' object is not iterable``; "random" read letter by letter)."""
    from dpgraph import engine
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    def no_solve(*_, **__):
        raise AssertionError("the reference was solved")

    monkeypatch.setattr(engine, "solve_max_cut", no_solve)
    options = {"epsilons": (1,), "seeds": (0,), "methods": ("random",), **kwargs}
    with pytest.raises(error, match=message):
        run_transfer_benchmark(nx.cycle_graph(6), **options)


def test_run_transfer_benchmark_reads_an_iterator_of_seeds_once():
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    bench = run_transfer_benchmark(nx.cycle_graph(6), epsilons=(1,), seeds=iter((0, 1)),
                                   methods=("random",))
    assert sorted(r["seed"] for r in bench.rows) == [0, 1]


# ----------------------------------------------------------------------------- plot_transfer


def _rows(methods):
    return [{"method": m, "epsilon": e, "seed": 0, "ratio": 0.5, "seconds": 0.0}
            for m in methods for e in (1.0, 2.0)]


def test_table_and_plot_keep_a_method_outside_methods(tmp_path, monkeypatch):
    """Rows of a method of one's own were dropped from the table and the plot, silently."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from dpgraph.lab.benchmarking import TransferBenchmark, plot_transfer

    bench = TransferBenchmark("maxcut", 10.0, _rows(["mine", "random"]))
    lines = bench.table().splitlines()
    assert [line.split()[0] for line in lines[2:]] == ["random", "mine"]
    drawn = []
    savefig = Figure.savefig

    def spy(self, *args, **kwargs):
        drawn.extend(line.get_label() for line in self.axes[0].get_lines())
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    plot_transfer(bench, tmp_path / "p.png")
    assert drawn == ["random", "mine"]


def test_plot_transfer_refuses_an_empty_benchmark_and_wrong_types(tmp_path):
    """No rows gave an empty plot and matplotlib's "No artists with labels" warning; a wrong
    argument an AttributeError from deep inside."""
    pytest.importorskip("matplotlib")
    from dpgraph.lab.benchmarking import TransferBenchmark, plot_transfer

    with pytest.raises(ValueError, match="no rows"):
        plot_transfer(TransferBenchmark("maxcut", 1.0), tmp_path / "empty.png")
    assert not (tmp_path / "empty.png").exists()
    bench = TransferBenchmark("maxcut", 1.0, _rows(["random"]))
    with pytest.raises(TypeError, match="bench must be a TransferBenchmark"):
        plot_transfer(bench.rows, tmp_path / "x.png")
    with pytest.raises(TypeError, match="path must be a file name or a binary file object"):
        plot_transfer(bench, 5)
