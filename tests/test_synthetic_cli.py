"""dpgraph synth: output checked before any budget is spent, proportionate exports, --report."""

import importlib

import pytest

from dpgraph.cli.app import main
from dpgraph.io import read_graph

ARGS = ["--epsilon", "2", "--delta", "1e-6", "--seed", "1"]
PRIVATIZE = ["--mechanism", "privatize", "--rank", "2"]


@pytest.mark.parametrize("name, message", [("syn.weird", "extension"),
                                           ("no-such-dir/syn.graphml", "no such directory")])
def test_bad_output_fails_before_privatize(tmp_path, monkeypatch, capsys, name, message):
    def spent(*a, **k):
        raise AssertionError("privatize ran before the output path was checked")

    monkeypatch.setattr(importlib.import_module("dpgraph.release.privatize"), "privatize", spent)
    monkeypatch.setattr(importlib.import_module("dpgraph.synthetic.release"), "release_synthetic", spent)
    for extra in ([], PRIVATIZE):
        assert main(["synth", "karate", *ARGS, *extra, "-o", str(tmp_path / name)]) == 2
        assert message in capsys.readouterr().err


def test_labels_the_output_format_cannot_store_fail_before_the_release(tmp_path, monkeypatch,
                                                                       capsys):
    import networkx as nx

    from dpgraph.io import write_graph

    def spent(*a, **k):
        raise AssertionError("the release ran before the labels were checked")

    monkeypatch.setattr(importlib.import_module("dpgraph.release.privatize"), "privatize", spent)
    monkeypatch.setattr(importlib.import_module("dpgraph.synthetic.release"), "release_synthetic", spent)
    graph = tmp_path / "spaced.graphml"
    write_graph(nx.relabel_nodes(nx.path_graph(4), {i: f"member {i}" for i in range(4)}), graph)
    out = tmp_path / "out.txt"
    out.write_text("keep\n")
    for extra in ([], PRIVATIZE):
        assert main(["synth", str(graph), *ARGS, *extra, "-o", str(out)]) == 2
        assert "cannot store node label 'member 0'" in capsys.readouterr().err
        assert out.read_text() == "keep\n"


@pytest.mark.parametrize("extra, message", [
    (["--report", "--json"], "--report prints a text report and does not combine with --json"),
    (["--weighted", "--rank", "2", "--min-weight", "nan"], "--min-weight must be a finite number"),
    (["--weighted", "--rank", "2", "--min-weight", "-1"], "--min-weight must be a finite number"),
])
def test_option_combinations_refused_before_the_release(tmp_path, monkeypatch, capsys, extra,
                                                        message):
    # --report --json dropped the report silently; --min-weight nan wrote every pair
    def spent(*a, **k):
        raise AssertionError("the release ran before the options were checked")

    monkeypatch.setattr(importlib.import_module("dpgraph.release.privatize"), "privatize", spent)
    monkeypatch.setattr(importlib.import_module("dpgraph.synthetic.release"), "release_synthetic", spent)
    assert main(["synth", "karate", *ARGS, *extra, "-o", str(tmp_path / "s.txt")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], PRIVATIZE])
def test_sampled_export_has_the_released_edge_count(tmp_path, capsys, extra):
    out = tmp_path / "syn.edgelist"
    assert main(["synth", "karate", *ARGS, *extra, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    released = int(text.split("released edge count:")[1].split()[0].replace(",", ""))
    assert read_graph(out).m == released
    # the default mechanism is release_synthetic: pure DP, one block-model release
    assert ("release_synthetic" in text) == (not extra)


@pytest.mark.parametrize("extra, message", [(["--weighted", "--mechanism", "block-model"],
                                             "--weighted needs --mechanism privatize"),
                                            (["--rank", "2"], "apply to --mechanism privatize")])
def test_block_model_refuses_privatize_options(tmp_path, capsys, extra, message):
    assert main(["synth", "karate", *ARGS, *extra, "-o", str(tmp_path / "s.graphml")]) == 2
    assert message in capsys.readouterr().err


def test_weighted_export_is_proportionate(tmp_path, capsys):
    out = tmp_path / "w.graphml"
    assert main(["synth", "karate", *ARGS, "--rank", "2", "--weighted", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    released = int(text.split("released edge count:")[1].split()[0].replace(",", ""))
    assert read_graph(out).m <= released + 5  # ties at the threshold only


def test_report_is_marked_non_private(tmp_path, capsys):
    out = tmp_path / "syn.graphml"
    assert main(["synth", "karate", *ARGS, "--report", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NON-PRIVATE" in text and "degree Hellinger" in text and "max-cut transfer" in text


def test_delta_needed_only_by_the_privatize_mechanism(tmp_path, capsys):
    no_delta = ["--epsilon", "2", "--seed", "1"]
    out = tmp_path / "s.edgelist"
    assert main(["synth", "karate", *no_delta, "-o", str(out)]) == 0  # pure epsilon-DP
    assert read_graph(out).m > 0
    capsys.readouterr()
    assert main(["synth", "karate", *no_delta, *PRIVATIZE, "-o", str(out)]) == 2
    assert "--delta is required with --mechanism privatize" in capsys.readouterr().err
