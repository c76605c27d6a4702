"""``dpgraph bench`` and its library (dpgraph.lab.benchmarking, dpgraph.lab.evaluate): a graph
without edges, Dask edge files, graphs under 10 nodes, the plot's backend, format and delta
label, the option checks (epsilons, delta, --plot) and the unweighted graph statistics.

In-process and small (karate, a 5-cycle, --methods random where the method does not matter).
"""

import contextlib

import networkx as nx
import numpy as np
import pytest

from dpgraph.cli.app import main

PNG = b"\x89PNG\r\n\x1a\n"
QUICK = ["--seeds", "1", "--epsilons", "1", "-q"]


def _no_reading(monkeypatch):
    """Make reading the graph fail loudly: a refusal must come before it."""
    import dpgraph.cli.bench

    def refuse(*_, **__):
        raise AssertionError("bench read the graph before refusing its options")

    monkeypatch.setattr(dpgraph.cli.bench, "load_graph", refuse)


# ----------------------------------------------------------------------------- no edges


def test_bench_refuses_a_graph_without_edges_in_one_line(tmp_path, capsys):
    empty = tmp_path / "edgeless.gset"
    empty.write_text("12 0\n")
    assert main(["bench", str(empty), "--methods", "random", *QUICK]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpgraph: error: ") and err.count("\n") == 1, err
    assert "edgeless.gset has no edges" in err and "Traceback" not in err


def test_run_transfer_benchmark_refuses_a_graph_without_edges_before_solving(monkeypatch):
    from dpgraph import engine
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    def no_solve(*_, **__):
        raise AssertionError("the reference was solved")

    monkeypatch.setattr(engine, "solve_max_cut", no_solve)
    with pytest.raises(ValueError, match="the graph has no edges"):
        run_transfer_benchmark(nx.empty_graph(6), epsilons=(1,), seeds=(0,), methods=("random",))


# ----------------------------------------------------------------------------- Dask edge files


def test_bench_refuses_dask_edge_files_before_reading_them(tmp_path, monkeypatch, capsys):
    """A folder, a glob or a .parquet path names Dask edge files: refused in one line, before
    any Dask cluster or read (both replaced here by stand-ins that fail the test)."""
    import dpgraph.cli.app
    import dpgraph.io.dask

    def no_read(*_, **__):
        raise AssertionError("read_edge_files was called")

    monkeypatch.setattr(dpgraph.io.dask, "read_edge_files", no_read)
    monkeypatch.setattr(dpgraph.cli.app, "dask_session", lambda args: contextlib.nullcontext())
    for spec in (str(tmp_path), str(tmp_path / "edges-*.parquet"), str(tmp_path / "k.parquet")):
        assert main(["bench", spec, "--methods", "random", *QUICK]) == 2
        err = capsys.readouterr().err
        assert err.startswith("dpgraph: error: bench needs the graph in memory"), err
        assert "Dask edge files" in err and err.count("\n") == 1
    from dpgraph.cli.bench import precheck_bench

    args = dpgraph.cli.app.build_parser().parse_args(["bench", str(tmp_path / "k.parquet")])
    with pytest.raises(ValueError, match="bench needs the graph in memory"):
        precheck_bench(args)  # the check the command line can run before a Dask session


# ----------------------------------------------------------------------------- rank


def test_bench_runs_on_a_graph_under_ten_nodes_without_rank(tmp_path, capsys):
    c5 = tmp_path / "c5.txt"
    c5.write_text("1 2\n2 3\n3 4\n4 5\n5 1\n")
    assert main(["bench", str(c5), "--methods", "dpgraph,gaussian perturbation",
                 *QUICK]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "dpgraph" in out and "gaussian perturbation" in out


def test_run_transfer_benchmark_caps_the_default_rank_and_checks_a_given_one():
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    notes = []
    bench = run_transfer_benchmark(nx.cycle_graph(5), epsilons=(2,), seeds=(0,),
                                   methods=("gaussian perturbation",), progress=notes.append)
    assert len(bench.rows) == 1
    assert any("default rank 8 capped at n - 2 = 3" in line for line in notes), notes
    with pytest.raises(ValueError, match="rank must satisfy"):  # a rank asked for: checked
        run_transfer_benchmark(nx.cycle_graph(5), epsilons=(2,), seeds=(0,), rank=8,
                               methods=("gaussian perturbation",))


# ----------------------------------------------------------------------------- the plot


def _bench(methods=("random", "dpgraph"), **delta):
    from dpgraph.lab.benchmarking import TransferBenchmark

    rows = [{"method": m, "epsilon": e, "seed": 0, "ratio": 0.5 + 0.1 * e, "seconds": 0.0}
            for m in methods for e in (1.0, 2.0)]
    return TransferBenchmark("maxcut", 10.0, rows, **delta)


def test_plot_transfer_leaves_the_global_backend_and_pyplot_alone(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    from dpgraph.lab.benchmarking import plot_transfer

    def no_switch(*_, **__):
        raise AssertionError("plot_transfer switched the session's matplotlib backend")

    monkeypatch.setattr(matplotlib, "use", no_switch)
    monkeypatch.setitem(matplotlib.rcParams, "backend", "svg")  # a caller's own backend
    plot_transfer(_bench(), tmp_path / "p.png")
    assert matplotlib.rcParams["backend"] == "svg"
    assert (tmp_path / "p.png").read_bytes()[:8] == PNG


def test_the_plot_label_gives_the_delta_the_benchmark_ran_at(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from dpgraph.lab.benchmarking import plot_transfer, run_transfer_benchmark

    labels = []
    savefig = Figure.savefig

    def spy(self, *args, **kwargs):
        labels.append(self.axes[0].get_xlabel())
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    bench = run_transfer_benchmark(nx.karate_club_graph(), epsilons=(1,), delta=1e-2,
                                   seeds=(0,), methods=("gaussian perturbation",), weight=None)
    assert bench.delta == 1e-2
    plot_transfer(bench, tmp_path / "a.png")
    assert labels[-1] == "epsilon (delta = 0.01 where used)"
    plot_transfer(_bench(methods=("random",), delta=None), tmp_path / "b.png")
    assert labels[-1] == "epsilon"  # no method spends delta


def test_plot_without_extension_is_a_png_under_the_name_given(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "noext"
    assert main(["bench", "karate", "--methods", "random", *QUICK, "--plot", str(plot)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"plot written to {plot}"
    assert plot.read_bytes()[:8] == PNG and not (tmp_path / "noext.png").exists()


def test_plot_extension_matplotlib_cannot_write_is_refused_before_the_runs(tmp_path, capsys,
                                                                          monkeypatch):
    pytest.importorskip("matplotlib")
    import dpgraph.lab.benchmarking

    def no_run(*_, **__):
        raise AssertionError("the benchmark ran")

    monkeypatch.setattr(dpgraph.lab.benchmarking, "run_transfer_benchmark", no_run)
    assert main(["bench", "karate", "--methods", "random", *QUICK,
                 "--plot", str(tmp_path / "x.foo")]) == 2
    assert "matplotlib writes no '.foo' files" in capsys.readouterr().err


# ----------------------------------------------------------------------------- option checks


@pytest.mark.parametrize("epsilons", ["-1", "0", "nan", "1,inf", "1,-0.5"])
def test_bench_refuses_epsilons_that_are_not_positive_numbers(epsilons, monkeypatch, capsys):
    _no_reading(monkeypatch)
    assert main(["bench", "karate", f"--epsilons={epsilons}", "--methods", "random",
                 "--seeds", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--epsilons must be a finite number > 0" in err and "Traceback" not in err


def test_bench_checks_delta_up_front_for_the_methods_that_use_it(monkeypatch, capsys):
    from dpgraph.lab.benchmarking import check_benchmark_options

    _no_reading(monkeypatch)
    assert main(["bench", "karate", "--delta", "0", *QUICK]) == 2  # every method: Gaussian too
    err = capsys.readouterr().err
    assert "--delta must be a number in (0, 1) for the gaussian perturbation method" in err
    assert main(["bench", "karate", "--delta", "1.5", "--methods", "dpgraph", *QUICK]) == 2
    assert "--delta must be a number in [0, 1) for the dpgraph method" in capsys.readouterr().err
    assert main(["bench", "karate", "--methods", "random,nope", *QUICK]) == 2
    assert "unknown method(s) ['nope']" in capsys.readouterr().err
    # dpgraph takes delta = 0 (pure epsilon-DP); the methods without delta do not check it
    assert check_benchmark_options([1], 0.0, ["dpgraph", "random"]) == [1.0]
    assert check_benchmark_options([1], 5.0, ["random", "randomized response"]) == [1.0]


# ----------------------------------------------------------------------------- evaluate


def _path_with_a_weight_zero_edge():
    G = nx.path_graph(5)
    G.add_edge(1, 2, weight=0.0)
    return G


def test_graph_statistics_count_an_edge_of_weight_zero():
    from dpgraph.lab.evaluate import graph_statistics

    st = graph_statistics(_path_with_a_weight_zero_edge(), sources=10)
    assert st["edges"] == 4 and st["isolated"] == 0
    assert st["avg_path"] == pytest.approx(2.0)  # the path's mean distance, as NetworkX says
    assert np.array_equal(st["degrees"], [1, 2, 2, 2, 1])


def test_synthetic_report_statistics_are_unweighted_and_its_cut_weighted():
    from dpgraph.graph import GraphInputWarning
    from dpgraph.lab.evaluate import synthetic_report

    G = _path_with_a_weight_zero_edge()
    report = synthetic_report(G, nx.path_graph(5), max_cut=False)
    assert report["edges_true"] == 4 and report["edge_ratio"] == 1.0
    assert report["degree_kl"] == 0.0 and report["avg_path"] == report["avg_path_true"]
    # a one-shot iterator of weighted edges is read twice (statistics, then the weighted cut)
    edges = [(0, 1, 1.0), (1, 2, 0.0), (2, 3, 1.0), (3, 0, 1.0)]
    with pytest.warns(GraphInputWarning, match="removed 1 edge"):  # the weighted reading
        report = synthetic_report(iter(edges), iter(edges), max_cut=True)
    assert report["edges_true"] == 4 and report["maxcut_transfer"] == pytest.approx(1.0)
