"""A newcomer's second day: the ordinary next steps after the README's first command (graphs
from other libraries, files, the command line, result objects), each a defect found and fixed."""

import pathlib
import warnings

import networkx as nx
import pytest

import dpgraph
from dpgraph.cli.app import main

PRIVATE = ["--epsilon", "1", "--delta", "0", "--seed", "1", "-q"]


def _error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("dpgraph: error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_max2csp_on_a_txt_edge_list_without_k_points_to_k(tmp_path, capsys):
    """``dpgraph max2csp graph.txt`` (no --k) read the edge list as the csp format and said only
    "lines start with 'p' or 'c'": the --k hint was given for .csv and .graphml files but not
    for the commonest edge-list extension, .txt."""
    path = tmp_path / "friends.txt"
    path.write_text("alice bob\nbob carol\ncarol alice\n")
    assert main(["max2csp", str(path), *PRIVATE]) == 2
    line = _error(capsys.readouterr().err)
    assert "reads as a snap graph file" in line and "--k K" in line
    bad_csp = tmp_path / "bad.txt"  # a csp file with an error: no graph hint
    bad_csp.write_text("p csp 3 2 2\nc 0 1 1 0,1 1,0\n")
    assert main(["max2csp", str(bad_csp), *PRIVATE]) == 2
    assert "--k" not in _error(capsys.readouterr().err)


def test_cli_refuses_a_bad_epsilon_before_reading_the_graph(capsys):
    """``dpgraph maxcut big.txt --epsilon 0`` read the whole graph, then refused epsilon; the
    budget is now checked first, naming the option (here the input does not even exist)."""
    for argv, option in ([["maxcut", "no-such-graph.txt", "--epsilon", "0", "--delta", "0"],
                          "--epsilon"],
                         [["synth", "no-such-graph.txt", "--epsilon", "1", "--delta", "1.5",
                           "-o", "x.txt"], "--delta"],
                         [["max2csp", "no-such.csp", "--epsilon", "-1", "--delta", "0"],
                          "--epsilon"]):
        assert main(argv) == 2
        line = _error(capsys.readouterr().err)
        assert f"{option} must" in line and "no-such" not in line


def test_a_path_object_or_data_set_name_says_how_to_read_it():
    """``dpgraph.max_cut(pathlib.Path("g.txt"), ...)`` said only "cannot make a graph from
    PosixPath"; a path and a string now both point to read_graph and datasets.load."""
    for value in (pathlib.Path("g.txt"), "karate"):
        with pytest.raises(TypeError, match=r"read_graph\(path\).*datasets\.load\(name\)"):
            dpgraph.max_cut(value, epsilon=1.0, delta=0.0, rng=0)


def test_networkx_style_edge_tuples_with_attribute_dicts_get_a_hint():
    """``as_graph_data(list(G.edges(data=True)))`` was refused as a "non-numeric weight" with no
    way forward; the message now names networkx.Graph(edges)."""
    edges = list(nx.Graph([(0, 1, {"weight": 0.5}), (1, 2, {"weight": 1.0})]).edges(data=True))
    with pytest.raises(ValueError, match=r"networkx\.Graph\(edges\)"):
        dpgraph.as_graph_data(edges)


def test_writing_a_release_instead_of_a_graph_says_sample():
    """``write_graph(rel, "syn.graphml")`` on a SyntheticRelease said only "cannot make a graph
    from SyntheticRelease"; it now says to write a sample."""
    rel = dpgraph.release_synthetic(nx.karate_club_graph(), epsilon=1.0, weight=None, rng=0)
    with pytest.raises(TypeError, match=r"private release, not a graph.*\.sample\(\)"):
        dpgraph.write_graph(rel, "never-written.graphml")


def test_planted_instance_repr_names_n_once():
    """``PlantedInstance(n=100, m=475, planted_value=..., n=100, ...)``: n was shown twice."""
    text = repr(dpgraph.datasets.planted_cut(100, 10, rng=0))
    assert text.count("n=100") == 1 and "mean_degree=10" in text


def test_solve_max_2csp_keys_the_assignment_by_the_variables_names():
    """The engine's Max-k-Cut assignment was keyed 0..n-1 while the graph's labels were names
    (max_2csp keyed them by the labels); a G-set file's vertex 1 came back as variable 0."""
    inst = dpgraph.engine.max_k_cut_instance(nx.Graph([("a", "b"), ("b", "c"), ("c", "a")]), 3)
    res = dpgraph.solve_max_2csp(inst, rng=0)
    assert set(res.assignment) == {"a", "b", "c"}
    assert inst.value(res.assignment) == res.value == 3.0
    assert set(dpgraph.solve_max_2csp(dpgraph.CSPInstance(2, 2, [(0, 1, {(0, 1)}, 1.0)]),
                                      rng=0).assignment) == {0, 1}


def test_read_graph_on_a_folder_says_folder(tmp_path):
    """``read_graph("data/")`` said "no such graph file: data/" about a folder that exists."""
    with pytest.raises(IsADirectoryError, match="is a folder, not a graph file"):
        dpgraph.read_graph(tmp_path)


def test_a_written_networkx_edge_list_reads_back_in_networkx(tmp_path):
    """``write_graph(G, "g.edgelist")`` (the format documented as NetworkX's ``u v {dict}``)
    wrote ``u v 0.5`` lines, on which ``networkx.read_edgelist(path)`` raised TypeError."""
    G = nx.Graph([("a", "b", {"weight": 0.5}), ("b", "c", {"weight": 1.0})])
    path = tmp_path / "g.edgelist"
    dpgraph.write_graph(G, path)
    H = nx.read_edgelist(path)
    assert sorted(H.edges(data="weight")) == [("a", "b", 0.5), ("b", "c", 1.0)]
    back = dpgraph.read_graph(path)
    assert tuple(back.labels) == ("a", "b", "c")
    assert float(back.weights[back.index["a"], back.index["b"]]) == 0.5


def test_synth_output_to_a_folder_says_folder(tmp_path, capsys):
    """``dpgraph synth karate -o out/`` (an existing folder) said it "cannot tell the output
    format of 'out/' from its extension"; it now says that it is a directory, as --out does."""
    assert main(["synth", "karate", "--epsilon", "1", "--seed", "1", "-q",
                 "-o", str(tmp_path)]) == 2
    assert "it is a directory; name a file in it" in _error(capsys.readouterr().err)


def test_writing_named_nodes_to_a_format_without_labels_warns(tmp_path):
    """``write_graph(G, "g.mtx")`` on a graph of named nodes wrote vertices 1..n and dropped
    the names without a word (isolated nodes left out of an edge list are counted by a
    warning); integer labels 0..n-1 or 1..n, which keep their numbering, are written quietly."""
    G = nx.Graph([("alice", "bob"), ("bob", "carol")])
    with pytest.warns(dpgraph.GraphInputWarning, match=r"stores no node labels.*'alice' as 1"):
        dpgraph.write_graph(G, tmp_path / "g.mtx")
    assert tuple(dpgraph.read_graph(tmp_path / "g.mtx").labels) == (1, 2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dpgraph.write_graph(nx.path_graph(3), tmp_path / "p.gset")
        dpgraph.write_graph(dpgraph.read_graph(tmp_path / "p.gset"), tmp_path / "q.gset")


def test_a_data_set_name_in_the_wrong_case_is_suggested():
    """``dpgraph.datasets.load("Karate")`` listed every known name without saying which one
    was meant (the names are case-sensitive)."""
    with pytest.raises(KeyError, match=r"did you mean 'karate'\?"):
        dpgraph.datasets.load("Karate")
    with pytest.raises(KeyError, match=r"did you mean 'email-Enron'\?"):
        dpgraph.datasets.load("email-enron")
    with pytest.raises(KeyError) as info:
        dpgraph.datasets.load("no-such-thing")
    assert "did you mean" not in str(info.value)


def test_the_command_suggests_a_data_set_name_in_the_wrong_case(capsys):
    assert main(["maxcut", "Karate", *PRIVATE]) == 2
    assert "did you mean 'karate'?" in _error(capsys.readouterr().err)
