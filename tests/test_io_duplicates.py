"""Duplicate edges: one rule in every file format.

Each format gets a small file whose edge {a, b} is listed twice (``a b 0.5`` then ``b a 0.7``,
or the format's way of saying it) next to one ordinary edge. Read by default it is one edge of
the larger weight (``duplicates="max"``), with a DuplicateEdgeWarning that counts the repeat
and names the rule; ``duplicates="sum"`` adds the weights, with the same kind of note;
``duplicates="error"`` refuses the file; a file without repeats gives no note at all. The
expected weights are the file's own numbers (max / sum of the two listings), not a reading of
the code.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest

from dpgraph.graph import DuplicateEdgeWarning
from dpgraph.io import GraphFormatError, read_graph

# format -> (file name, text with the pair listed twice (weights 0.5, 0.7) and one edge of 0.25,
#            text without repeats, the labels of the repeated pair)
CASES = {
    "gset": ("g.gset", "3 3\n1 2 0.5\n2 1 0.7\n2 3 0.25\n", "3 2\n1 2 0.5\n2 3 0.25\n",
             (1, 2)),
    "snap": ("g.txt", "1 2 0.5\n2 1 0.7\n2 3 0.25\n", "1 2 0.5\n2 3 0.25\n", (1, 2)),
    "snap-names": ("g.edges", "a b 0.5\nb a 0.7\nb c 0.25\n", "a b 0.5\nb c 0.25\n",
                   ("a", "b")),
    "mtx": ("g.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 0.5\n"
            "1 2 0.7\n3 2 0.25\n",
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 0.25\n",
            (1, 2)),
    "mtx-general": ("h.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 2 0.5\n"
                    "2 1 0.5\n1 2 0.7\n2 1 0.7\n2 3 0.25\n3 2 0.25\n",
                    "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 0.5\n2 1 0.5\n"
                    "2 3 0.25\n3 2 0.25\n", (1, 2)),
    "dimacs": ("g.col", "p edge 3 3\ne 1 2 0.5\ne 2 1 0.7\ne 2 3 0.25\n",
               "p edge 3 2\ne 1 2 0.5\ne 2 3 0.25\n", (1, 2)),
    "graphml": ("g.graphml",
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                '<key id="w" for="edge" attr.name="weight" attr.type="double"/>\n'
                '<graph edgedefault="undirected">\n'
                '<node id="a"/><node id="b"/><node id="c"/>\n'
                '<edge source="a" target="b"><data key="w">0.5</data></edge>\n'
                '<edge source="b" target="a"><data key="w">0.7</data></edge>\n'
                '<edge source="b" target="c"><data key="w">0.25</data></edge>\n'
                '</graph></graphml>\n',
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                '<key id="w" for="edge" attr.name="weight" attr.type="double"/>\n'
                '<graph edgedefault="undirected">\n'
                '<node id="a"/><node id="b"/><node id="c"/>\n'
                '<edge source="a" target="b"><data key="w">0.5</data></edge>\n'
                '<edge source="b" target="c"><data key="w">0.25</data></edge>\n'
                '</graph></graphml>\n', ("a", "b")),
    # NetworkX's GML parser refuses a repeated edge unless the file says 'multigraph 1'
    "gml": ("g.gml", 'graph [\n node [ id 0 label "a" ]\n node [ id 1 label "b" ]\n'
            ' node [ id 2 label "c" ]\n edge [ source 0 target 1 weight 0.5 ]\n'
            ' edge [ source 1 target 0 weight 0.7 ]\n edge [ source 1 target 2 weight 0.25 ]\n]\n',
            'graph [\n node [ id 0 label "a" ]\n node [ id 1 label "b" ]\n'
            ' node [ id 2 label "c" ]\n edge [ source 0 target 1 weight 0.5 ]\n'
            ' edge [ source 1 target 2 weight 0.25 ]\n]\n', ("a", "b")),
    "gml-multigraph": ("h.gml", 'graph [\n multigraph 1\n node [ id 0 label "a" ]\n'
                       ' node [ id 1 label "b" ]\n node [ id 2 label "c" ]\n'
                       ' edge [ source 0 target 1 weight 0.5 ]\n'
                       ' edge [ source 0 target 1 weight 0.7 ]\n'
                       ' edge [ source 1 target 2 weight 0.25 ]\n]\n',
                       'graph [\n multigraph 1\n node [ id 0 label "a" ]\n'
                       ' node [ id 1 label "b" ]\n node [ id 2 label "c" ]\n'
                       ' edge [ source 0 target 1 weight 0.5 ]\n'
                       ' edge [ source 1 target 2 weight 0.25 ]\n]\n', ("a", "b")),
    "pajek": ("g.net", '*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\n1 2 0.5\n2 1 0.7\n2 3 0.25\n',
              '*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\n1 2 0.5\n2 3 0.25\n', ("a", "b")),
    "edgelist": ("g.edgelist", "a b 0.5\nb a 0.7\nb c 0.25\n", "a b 0.5\nb c 0.25\n",
                 ("a", "b")),
}


def _weight(data, a, b):
    return float(data.weights[data.index[a], data.index[b]])


def _other(data, pair):
    """The weight of the one edge that is not the repeated pair."""
    i, j, w = data.edges()
    rest = [float(c) for x, y, c in zip(i, j, w)
            if {data.labels[x], data.labels[y]} != set(pair)]
    return rest


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_format_merges_by_max_with_a_note(tmp_path, case):
    name, text, _, (a, b) = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    with pytest.warns(DuplicateEdgeWarning) as record:
        data = read_graph(path)
    assert data.m == 2
    assert _weight(data, a, b) == 0.7
    assert _other(data, (a, b)) == [0.25]
    notes = [str(w.message) for w in record if issubclass(w.category, DuplicateEdgeWarning)]
    assert len(notes) == 1
    # how many, and under which rule; symmetric Matrix Market storage and a general matrix
    # listing both triangles count the repeat once per stored entry
    assert "repeated edge" in notes[0] and "duplicates='max'" in notes[0]
    assert "largest weight" in notes[0]
    assert str(path) in notes[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_format_sums_when_asked(tmp_path, case):
    name, text, _, (a, b) = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    with pytest.warns(DuplicateEdgeWarning, match="summed the weights of .*duplicates='sum'"):
        data = read_graph(path, duplicates="sum")
    assert data.m == 2
    assert _weight(data, a, b) == pytest.approx(1.2)
    assert _other(data, (a, b)) == [0.25]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_format_refuses_repeats_under_error(tmp_path, case):
    name, text, _, _ = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises((ValueError, GraphFormatError), match="repeated edge"):
        read_graph(path, duplicates="error")


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_note_without_repeats(tmp_path, case):
    name, _, text, (a, b) = CASES[case]
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DuplicateEdgeWarning)
        data = read_graph(path)
        assert read_graph(path, duplicates="error").m == 2
    assert _weight(data, a, b) == 0.5 and data.m == 2


def test_the_note_counts_repeats_and_pairs(tmp_path):
    # pair {1, 2} listed three times, {2, 3} twice: 3 repeated lines over 2 pairs
    path = tmp_path / "g.txt"
    path.write_text("1 2 0.5\n2 1 0.7\n1 2 0.1\n2 3 0.25\n3 2 0.25\n3 4 1\n")
    with pytest.warns(DuplicateEdgeWarning) as record:
        data = read_graph(path)
    (note,) = [str(w.message) for w in record]
    assert "merged 3 repeated edge(s)" in note and "2 node pair(s)" in note
    assert _weight(data, 1, 2) == 0.7 and _weight(data, 2, 3) == 0.25 and data.m == 3


def test_metis_neighbour_listed_twice(tmp_path):
    # vertex 1 lists neighbour 2 twice (weights 2 and 5), and vertex 2 lists 1 twice: the
    # merged adjacency is symmetric under either rule
    path = tmp_path / "g.graph"
    path.write_text("3 3 001\n2 2 2 5\n1 2 1 5 3 1\n2 1\n")
    with pytest.warns(DuplicateEdgeWarning, match="duplicates='max'"):
        assert _weight(read_graph(path), 1, 2) == 5.0
    with pytest.warns(DuplicateEdgeWarning, match="duplicates='sum'"):
        assert _weight(read_graph(path, duplicates="sum"), 1, 2) == 7.0
    with pytest.raises(ValueError, match="repeated edge"):
        read_graph(path, duplicates="error")


def test_directed_reading_counts_only_repeated_arcs(tmp_path):
    # read as arcs, 1->2 and 2->1 are two arcs (symmetrize combines them), not a repeat
    path = tmp_path / "g.txt"
    path.write_text("1 2 0.5\n2 1 0.7\n2 3 0.25\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DuplicateEdgeWarning)
        data = read_graph(path, symmetrize="sum")
    assert _weight(data, 1, 2) == pytest.approx(1.2)
    path.write_text("1 2 0.5\n1 2 0.7\n2 3 0.25\n")
    with pytest.warns(DuplicateEdgeWarning, match="merged 1 repeated edge"):
        data = read_graph(path, symmetrize="sum")
    assert _weight(data, 1, 2) == 0.7


def test_max_keeps_weights_in_the_unit_interval(tmp_path):
    # what the private commands need: an edge listed in both directions stays in [0, 1]
    path = tmp_path / "g.gset"
    path.write_text("2 2\n1 2 0.6\n2 1 0.6\n")
    with pytest.warns(DuplicateEdgeWarning):
        data = read_graph(path)
    assert data.weights.data.max() <= 1.0 and np.all(data.weights.data == 0.6)


def test_bad_rule_is_a_value_error(tmp_path):
    for name, text, _, _ in (CASES["snap"], CASES["mtx"], CASES["pajek"], CASES["graphml"]):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ValueError, match="duplicates='min' is not one of"):
            read_graph(path, duplicates="min")



def _cli(*args):
    return subprocess.run([sys.executable, "-m", "dpgraph", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_duplicates_option(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1 2 0.5\n2 1 0.7\n2 3 0.25\n")
    default = _cli("info", str(path))
    assert default.returncode == 0, default.stderr
    out = default.stdout + default.stderr  # info prints the reader's notes with its report
    # the note in the command's spelling: --duplicates, not duplicates=
    assert "merged 1 repeated edge(s) under --duplicates max" in out
    assert "--duplicates sum adds the weights instead" in out and "duplicates=" not in out
    assert "weights:     [0.25, 0.7]" in default.stdout
    summed = _cli("info", str(path), "--duplicates", "sum")
    assert summed.returncode == 0, summed.stderr
    assert "under --duplicates sum" in summed.stdout + summed.stderr
    assert "weights:     [0.25, 1.2]" in summed.stdout
    refused = _cli("info", str(path), "--duplicates", "error")
    assert refused.returncode == 2 and "repeated edge" in refused.stderr
    assert "pass --duplicates max (keep the largest weight) or --duplicates sum" in refused.stderr


def test_cli_duplicates_choices_and_data_sets(capsys):
    from dpgraph.cli.common import load_input

    with pytest.raises(SystemExit):
        _parser().parse_args(["info", "g.txt", "--duplicates", "min"])
    assert "--duplicates" in capsys.readouterr().err
    # a data set is read as registered: the option is refused, not ignored
    with pytest.raises(ValueError, match="--duplicates applies to graph files"):
        load_input("karate", duplicates="sum")


def _parser():
    from dpgraph.cli.app import build_parser

    return build_parser()


def test_cli_duplicates_reaches_the_private_commands():
    parser = _parser()
    private = ["--epsilon", "1", "--delta", "0"]
    for argv in (["maxcut", *private], ["bisection", *private], ["synth", *private, "-o", "s.txt"],
                 ["info"]):
        args = parser.parse_args([*argv, "g.txt", "--duplicates", "sum"])
        assert args.duplicates == "sum"


def test_max2csp_reads_max_k_cut_graphs_by_the_same_rule(tmp_path):
    import argparse

    from dpgraph.cli.max2csp import _read_instance, add_max2csp_parser

    path = tmp_path / "g.txt"
    path.write_text("1 2 0.5\n2 1 0.7\n2 3 0.25\n")
    parser = argparse.ArgumentParser()
    add_max2csp_parser(parser.add_subparsers())
    base = ["max2csp", str(path), "--k", "3", "--epsilon", "1", "--delta", "0"]
    with pytest.warns(DuplicateEdgeWarning, match="duplicates='sum'"):
        inst, labels, *_ = _read_instance(parser.parse_args([*base, "--duplicates", "sum"]))
    # the weight of edge {1, 2} reaches the instance: 1.2 summed, 0.7 by max
    summed = sorted(c[3] for c in inst.constraints)
    with pytest.warns(DuplicateEdgeWarning, match="duplicates='max'"):
        inst, labels, *_ = _read_instance(parser.parse_args(base))
    assert summed == pytest.approx([0.25, 1.2])
    assert sorted(c[3] for c in inst.constraints) == pytest.approx([0.25, 0.7])
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 1\n1 2 0\n")
    with pytest.raises(ValueError, match="--duplicates apply to --format max-k-cut only"):
        _read_instance(parser.parse_args(["max2csp", str(cnf), "--epsilon", "1", "--delta", "0",
                                          "--duplicates", "sum"]))
