"""The private subcommands of the dpgraph command."""

import pytest

from dpgraph.cli.app import main
from dpgraph.io import read_graph


def test_maxcut_writes_partition(tmp_path, capsys):
    out = tmp_path / "part.tsv"
    assert main(["maxcut", "planted-cut-n200-d16", "--epsilon", "2", "--delta", "1e-6",
                 "--rank", "2", "--seed", "0", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "private estimate" in text and "total" in text  # the ledger is printed
    lines = out.read_text().splitlines()
    assert len(lines) == 200 and {line.split("\t")[1] for line in lines} <= {"0", "1"}


def test_bisection_is_balanced(tmp_path):
    out = tmp_path / "part.tsv"
    assert main(["bisection", "planted-bisection-n200-d16", "--epsilon", "2", "--delta", "1e-6",
                 "--rank", "2", "--seed", "0", "--out", str(out)]) == 0
    sides = [line.split("\t")[1] for line in out.read_text().splitlines()]
    assert abs(sides.count("0") - sides.count("1")) <= 1


@pytest.mark.parametrize("extra", [[], ["--mechanism", "privatize", "--rank", "2"]])
def test_synth_writes_graphml(tmp_path, capsys, extra):
    out = tmp_path / "syn.graphml"
    assert main(["synth", "karate", "--epsilon", "2", "--delta", "1e-6", *extra,
                 "--seed", "1", "-o", str(out)]) == 0
    g = read_graph(out)
    assert g.n == 34


def test_bench_table_and_plot(tmp_path, capsys):
    png = tmp_path / "b.png"
    assert main(["bench", "planted-cut-n200-d16", "--epsilons", "1,4", "--seeds", "1",
                 "--rank", "2", "--methods", "dpgraph,random", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "eps=1" in out and "dpgraph" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["maxcut", "karate", "--epsilon", "0", "--delta", "1e-6"], "epsilon"),
    (["maxcut", "karate", "--epsilon", "1", "--delta", "2"], "delta"),
    (["maxcut", "karate", "--epsilon", "1", "--delta", "1e-6", "--rank", "40"], "rank"),
    (["maxcut", "no-such-graph", "--epsilon", "1", "--delta", "1e-6"], "neither a file"),
    (["bench", "karate", "--epsilons", "a,b"], "epsilons"),
])
def test_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
