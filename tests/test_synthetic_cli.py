"""dpgraph synth: output checked before any budget is spent, proportionate exports, --report."""

import importlib

import pytest

from dpgraph.cli import main
from dpgraph.io import read_graph

ARGS = ["--epsilon", "2", "--delta", "1e-6", "--rank", "2", "--seed", "1"]


@pytest.mark.parametrize("name, message", [("syn.txt", "extension"),
                                           ("no-such-dir/syn.graphml", "no such directory")])
def test_bad_output_fails_before_privatize(tmp_path, monkeypatch, capsys, name, message):
    def spent(*a, **k):
        raise AssertionError("privatize ran before the output path was checked")

    monkeypatch.setattr(importlib.import_module("dpgraph.privatize"), "privatize", spent)
    assert main(["synth", "karate", *ARGS, "-o", str(tmp_path / name)]) == 2
    assert message in capsys.readouterr().err


def test_sampled_export_has_the_released_edge_count(tmp_path, capsys):
    out = tmp_path / "syn.edgelist"
    assert main(["synth", "karate", *ARGS, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    released = int(text.split("released edge count:")[1].split()[0].replace(",", ""))
    assert read_graph(out).m == released


def test_weighted_export_is_proportionate(tmp_path, capsys):
    out = tmp_path / "w.graphml"
    assert main(["synth", "karate", *ARGS, "--weighted", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    released = int(text.split("released edge count:")[1].split()[0].replace(",", ""))
    assert read_graph(out).m <= released + 5  # ties at the threshold only


def test_report_is_marked_non_private(tmp_path, capsys):
    out = tmp_path / "syn.graphml"
    assert main(["synth", "karate", *ARGS, "--report", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NON-PRIVATE" in text and "degree Hellinger" in text and "max-cut transfer" in text
