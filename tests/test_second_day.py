"""A newcomer's second day: the ordinary next steps after the README's first command (graphs
from other libraries, files, the command line, result objects), each a defect found and fixed."""

import json
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


@pytest.mark.parametrize("command", [["maxcut"], ["bisection"], ["max2csp", "--k", "3"]])
def test_a_label_with_a_tab_is_refused_for_the_out_file_before_any_budget(tmp_path, capsys,
                                                                          command):
    """``dpgraph maxcut g.graphml -o part.tsv`` on a GraphML node id holding a tab wrote the
    line ``c<TAB>d<TAB>1``, which reads back as neither one label nor one side; the labels are
    public, so the command now refuses before the release and points to --json."""
    G = nx.Graph([("a b", "c\td"), ("c\td", "e"), ("e", "a b"), ("e", "f")])
    path = tmp_path / "odd.graphml"
    nx.write_graphml(G, path)
    out = tmp_path / "part.tsv"
    assert main([*command, str(path), *PRIVATE, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    line = _error(err)
    assert "'c\\td' holds a tab or a line break" in line and "--json" in line
    assert "privatizing" not in err and not out.exists()
    # a label with a space is an ordinary label<TAB>side line
    nx.write_graphml(nx.relabel_nodes(G, {"c\td": "c d"}), path)
    assert main([*command, str(path), *PRIVATE, "-o", str(out)]) == 0
    assert sorted(line.rsplit("\t", 1)[0] for line in out.read_text().splitlines()) == [
        "a b", "c d", "e", "f"]


def test_a_gml_file_written_by_igraph_reads_by_its_names(tmp_path, capsys):
    """A GML file written by igraph (nodes with ``id`` and ``name``, no ``label``) was refused
    by read_graph and by every command ("node #0 has no 'label' attribute"), and the command
    line has no option to read it otherwise; it now reads by the names (by the ids where the
    nodes have none), with a warning that says so."""
    ig = pytest.importorskip("igraph")
    g = ig.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])
    g.write_gml(str(tmp_path / "ids.gml"))
    g.vs["name"] = ["a", "b", "c", "d"]
    g.write_gml(str(tmp_path / "named.gml"))
    with pytest.warns(dpgraph.GraphInputWarning, match="labelled by their 'name' attribute"):
        named = dpgraph.read_graph(tmp_path / "named.gml")
    assert tuple(named.labels) == ("a", "b", "c", "d") and named.m == 4
    with pytest.warns(dpgraph.GraphInputWarning, match="labelled by their 'id'"):
        assert tuple(dpgraph.read_graph(tmp_path / "ids.gml").labels) == (0, 1, 2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a label= given: read as asked, no note
        assert tuple(dpgraph.read_graph(tmp_path / "named.gml", label="id").labels) == (
            0, 1, 2, 3)
    assert main(["maxcut", str(tmp_path / "named.gml"), *PRIVATE, "--json"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["partition"]["nodes"]) == [
        "a", "b", "c", "d"]
    # some nodes labelled, some not: still refused, naming the node
    part = tmp_path / "part.gml"
    part.write_text('graph [ node [ id 1 label "a" ] node [ id 2 ] edge [ source 1 target 2 ] ]')
    with pytest.raises(dpgraph.io.GraphFormatError, match="node #1 has no 'label' attribute"):
        dpgraph.read_graph(part)


@pytest.mark.parametrize("edges, hint", [
    (["1 2", "2 3"], r"it is text.*line\.split\(\)"),
    ([0, 1, 2], "an iterable of nodes is not a graph"),
    ([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], r"numpy\.asarray\(rows\)"),
])
def test_edge_iterables_that_are_not_edges_say_what_they_are(edges, hint):
    """``max_cut(["1 2", "2 3"], ...)`` (lines of an edge-list file) unpacked each string into
    characters: a graph with the node ' ' and edges of weight 2 and 3, without a word; a list
    of nodes raised "object of type 'int' has no len()"; rows of an adjacency matrix said only
    "not a (u, v) or (u, v, w) tuple"."""
    with pytest.raises(ValueError, match=r"edge #0 .* is not a \(u, v\) or \(u, v, w\) tuple"
                                         r".*" + hint):
        dpgraph.as_graph_data(edges)
    with pytest.raises(ValueError, match=hint):
        dpgraph.max_cut(edges, epsilon=1.0, delta=0.0, rng=0)
    assert dpgraph.as_graph_data([line.split() for line in ["1 2", "2 3"]]).labels == (
        "1", "2", "3")


@pytest.mark.parametrize("argv", [
    ["synth", "{g}", "--epsilon", "1", "--seed", "1", "-q", "-o", "{same}"],
    ["maxcut", "{g}", *PRIVATE, "-o", "{same}"],
    ["bisection", "{g}", *PRIVATE, "--out", "{same}"],
    ["max2csp", "{g}", "--k", "3", *PRIVATE, "-o", "{same}"],
    ["maxcut", "{g}", *PRIVATE, "--nodes", "{nodes}", "-o", "{nodes}"],
])
def test_an_output_file_that_is_the_input_is_refused(tmp_path, capsys, monkeypatch, argv):
    """``dpgraph synth edges.txt -o ./edges.txt`` (or ``maxcut ... --out edges.txt``) replaced
    the input graph by the sample (the partition) without a word; an output path that names
    an input file, however spelled, is now refused before anything is read or spent."""
    monkeypatch.chdir(tmp_path)
    text = "a b\nb c\nc a\nc d\n"
    (tmp_path / "g.txt").write_text(text)
    (tmp_path / "nodes.txt").write_text("a\nb\nc\nd\n")
    argv = [a.format(g="g.txt", same="./g.txt", nodes="nodes.txt") for a in argv]
    assert main(argv) == 2
    line = _error(capsys.readouterr().err)
    assert "is the input file" in line and "would overwrite the input" in line
    assert (tmp_path / "g.txt").read_text() == text
    assert (tmp_path / "nodes.txt").read_text() == "a\nb\nc\nd\n"


def test_the_engine_points_a_directed_graph_to_as_graph_data():
    """``solve_max_cut(nx.DiGraph(...))`` said "pass symmetrize=...", which the solver does not
    take; it now says to make the graph undirected with ``as_graph_data`` first."""
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    with pytest.raises(ValueError, match=r"make it undirected first, e\.g\. "
                                         r"dpgraph\.as_graph_data\(G, symmetrize='max'\)"):
        dpgraph.solve_max_cut(D)
    und = dpgraph.as_graph_data(D, symmetrize="max")
    assert dpgraph.solve_max_cut(und, rng=0).value == 2.0


@pytest.mark.parametrize("argv, option", [
    (["maxcut", "{g}", "--epsilon", "1", "--delta", "1e-6", "--route", "pca", "--rank", "0"],
     "--rank"),
    (["synth", "{g}", "--epsilon", "1", "--delta", "1e-6", "--mechanism", "privatize",
      "--synthetic-share", "2", "-o", "{out}"], "--synthetic-share"),
])
def test_option_ranges_are_refused_before_the_graph_is_read(tmp_path, capsys, argv, option):
    """``--rank 0`` and ``--synthetic-share 2`` were refused only after the whole graph was
    read, and ``--rank`` without its dashes; a path that does not exist shows the refusal
    comes first."""
    argv = [a.format(g=str(tmp_path / "missing.txt"), out=str(tmp_path / "s.txt"))
            for a in argv]
    assert main(argv) == 2
    line = _error(capsys.readouterr().err)
    assert option in line and "missing.txt" not in line


def test_a_rank_above_the_node_count_is_named_as_the_option(capsys):
    assert main(["maxcut", "karate", "--epsilon", "1", "--delta", "1e-6", "--seed", "1", "-q",
                 "--route", "pca", "--rank", "40"]) == 2
    assert "--rank must satisfy 1 <= rank < n - 1 = 33" in _error(capsys.readouterr().err)


def test_a_pure_budget_on_an_approximate_route_names_the_delta_option(capsys):
    """The refusal of ``--delta 0`` with ``--route pca`` spoke of ``delta=0`` and ``delta > 0``,
    the Python argument, on the command line."""
    assert main(["maxcut", "karate", "--epsilon", "1", "--delta", "0", "--route", "pca",
                 "-q"]) == 2
    line = _error(capsys.readouterr().err)
    assert line.startswith("dpgraph: error: --delta 0 asks for pure") and "pass --delta > 0" in line


# ----------------------------------------------------------------------------- round 2: help
# texts, bench, the data set registry, --json documents


def test_bench_lists_no_scheduler_option(capsys):
    """``dpgraph bench --help`` listed ``--scheduler ADDRESS`` ("Dask scheduler to use for edge
    files"), but bench refuses Dask edge files: the option could only start or connect a Dask
    client for nothing. It is no longer offered."""
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "--scheduler" not in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["bench", "karate", "--scheduler", "tcp://nowhere:8786"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --scheduler" in capsys.readouterr().err


def test_bench_refuses_weights_outside_0_1_before_the_reference_solve(monkeypatch, capsys):
    """``dpgraph bench les-miserables`` (weights 1 to 31) ran the non-private reference solve
    (minutes on a large graph) and only then refused the weights in the first private run;
    the refusal now comes first, naming the benchmark's private methods."""
    import dpgraph.engine
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    def no_solve(*args, **kwargs):
        raise AssertionError("the reference solve ran before the refusal")

    monkeypatch.setattr(dpgraph.engine, "solve_max_cut", no_solve)
    with pytest.raises(ValueError, match=r"each private method of the benchmark \(dpgraph\) "
                                         r"protects graphs whose edge weights lie in \[0, 1\]"):
        run_transfer_benchmark(nx.les_miserables_graph(), epsilons=[1], seeds=[0],
                               methods=["dpgraph"])
    assert main(["bench", "les-miserables", "--epsilons", "1", "--seeds", "1", "-q"]) == 2
    assert "Pass --unweighted" in _error(capsys.readouterr().err)


def test_bench_plot_says_what_its_lines_and_bands_are(tmp_path):
    """The plot drew a median line and a shaded band per method without saying that the band
    is the minimum to maximum over the seeds, or how many seeds there were."""
    matplotlib = pytest.importorskip("matplotlib")
    from dpgraph.lab.benchmarking import TransferBenchmark, plot_transfer

    bench = TransferBenchmark(problem="maxcut", reference_value=10.0, delta=1e-6, rows=[
        {"method": "dpgraph", "epsilon": e, "seed": s, "value": 8.0 + s, "ratio": 0.8 + s / 10,
         "seconds": 0.0} for e in (1.0, 2.0) for s in range(3)])
    path = tmp_path / "bench.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text kept as text
        plot_transfer(bench, path, title="karate")
    svg = path.read_text()
    assert "median of 3 seeds" in svg and "bands: min to max" in svg
    assert "transfer ratio (true cut / non-private cut)" in svg


def test_a_missing_dpgraph_data_folder_is_named(tmp_path, monkeypatch):
    """``DPGRAPH_DATA=/typo dpgraph info G3`` said only that G3 was not found in /typo; it now
    says that the folder itself does not exist (or is a file)."""
    from dpgraph.datasets import DatasetNotFoundError, find

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path / "typo"))
    with pytest.raises(DatasetNotFoundError, match=r"DPGRAPH_DATA=\S*typo is no such folder"):
        find("G3")
    afile = tmp_path / "data.txt"
    afile.write_text("")
    monkeypatch.setenv("DPGRAPH_DATA", str(afile))
    with pytest.raises(DatasetNotFoundError, match=r"data\.txt is not a folder"):
        find("G3")
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path))  # a folder without the file: no remark
    with pytest.raises(DatasetNotFoundError) as exc:
        find("G3")
    assert "DPGRAPH_DATA=" not in str(exc.value).split("; to obtain")[0]


def test_an_unknown_name_lists_the_data_sets_found_apart_from_the_missing(tmp_path, monkeypatch,
                                                                          capsys):
    """``dpgraph info nosuch`` listed every registered name as a data set, G3 and facebook
    included where their files are not on disk, so the suggested names then failed with "not
    found"; the names that load now come apart from the registered ones without a file."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path))
    assert main(["info", "nosuch"]) == 2
    line = _error(capsys.readouterr().err)
    found, _, missing = line.partition("registered, but no file found in")
    assert "karate" in found and "planted-cut-n200-d16" in found and "G3" not in found
    assert "G3" in missing and "facebook" in missing and "karate" not in missing
    assert "set DPGRAPH_DATA" in missing


def test_max2csp_variables_zero_is_named_as_the_option(tmp_path, capsys):
    """``dpgraph max2csp a.cnf --variables 0`` said "variables must be a positive integer",
    the Python argument, not the option."""
    path = tmp_path / "a.cnf"
    path.write_text("p cnf 3 2\n1 -2 0\n2 3 0\n")
    assert main(["max2csp", str(path), "--variables", "0", *PRIVATE]) == 2
    assert _error(capsys.readouterr().err).startswith(
        "dpgraph: error: --variables must be a positive integer")


def test_info_calls_negative_weights_signed(tmp_path, capsys):
    """``dpgraph info`` called a graph whose weights are all negative "weighted" (only a range
    from below 0 to above 0 was "signed"), though the private commands refuse it for the same
    reason as a signed one."""
    path = tmp_path / "neg.txt"
    path.write_text("0 1 -1\n1 2 -0.5\n")
    assert main(["info", str(path), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["weights"]["kind"] == "signed"
    pos = tmp_path / "pos.txt"
    pos.write_text("0 1 0.5\n1 2 1\n")
    assert main(["info", str(pos), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["weights"]["kind"] == "weighted"


def test_synth_json_rank_is_the_releases_rank(tmp_path, capsys):
    """``dpgraph synth --mechanism privatize --json`` on the randomized-response route gave
    ``"rank": 8`` (the rank asked for) while the release has none (``pg.rank`` is None, its
    repr says "rank=None of requested 8", ``pg.to_dict()["rank"]`` is null)."""
    out = str(tmp_path / "s.txt")
    assert main(["synth", "karate", "--epsilon", "1", "--delta", "1e-6", "--seed", "0", "-q",
                 "--mechanism", "privatize", "--route", "randomized-response", "-o", out,
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["route"] == "randomized-response" and doc["rank"] is None
    assert main(["synth", "karate", "--epsilon", "4", "--delta", "1e-6", "--seed", "0", "-q",
                 "--mechanism", "privatize", "--route", "pca", "--rank", "3", "-o", out,
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["route"] == "pca" and doc["rank"] == 3


def test_a_rank_the_local_route_does_not_use_is_said_in_the_result():
    """``max_cut(G, rank=2)`` on the default (local) route ignored the rank without a word in
    Python (the command line printed a note): the result now says it."""
    G = nx.Graph(nx.karate_club_graph().edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rank=2, rng=0)
        plain = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0)
    assert res.diagnostics["route"] == "local"
    assert "rank=2 is not used" in res.diagnostics["rank_note"] and "rank=2 is not used" in repr(res)
    assert "rank_note" not in plain.diagnostics and "not used" not in repr(plain)


def test_a_matrix_free_release_reports_one_rank_everywhere():
    """``PrivateGraph.to_dict()["rank"]`` was 3 on the matrix-free route where its repr, its
    diagnostics and ``synth --json`` said 2: the factors add the public degree direction to
    the 2 private ones. Every report now gives the private directions (``private_rank``)."""
    G = nx.Graph(nx.karate_club_graph().edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, route="matrix-free", rng=0)
    assert pg.rank == 3 and pg.private_rank == 2  # the factors' columns; the private ones
    assert pg.to_dict()["rank"] == 2 and "rank=2 " in repr(pg)


@pytest.mark.parametrize("solve", [
    lambda G: dpgraph.solve_max_cut(G, rng=0),
    lambda G: dpgraph.engine.solve_max_bisection(G, rng=0),
    lambda G: dpgraph.solve_max_2csp(dpgraph.engine.max_k_cut_instance(G, 3), rng=0),
], ids=["CutResult", "bisection", "CSPResult"])
def test_engine_results_have_to_dict_as_the_private_results(solve):
    """``solve_max_cut(G).to_dict()`` raised AttributeError where every private result has one;
    the engine's results now give the same ``answer`` layout, plain numbers and the arrays
    (``x``, ``V`` / ``Y``, ``info["rounded"]``) left out."""
    G = nx.relabel_nodes(nx.Graph(nx.karate_club_graph().edges()), {0: "leader", 33: "admin"})
    res = solve(G)
    doc = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert doc["answer"]["labels"] == list(res.assignment) and "leader" in doc["answer"]["labels"]
    assert dict(zip(doc["answer"]["labels"], doc["answer"]["values"])) == res.assignment
    assert (doc["value"], doc["upper_bound"], doc["gap"]) == (res.value, res.upper_bound, res.gap)
    assert doc["sdp_value"] == float(res.sdp_value) and doc["rounding"] == res.rounding
    assert doc["private_release"] is False and set(doc["timings"]) == set(res.timings)
    assert doc["diagnostics"]["rank"] == res.info["rank"] and "rounded" not in doc["diagnostics"]
    assert not {"x", "V", "Y", "ledger"} & set(doc)
    assert "rounded" in res.info  # the result itself is left as it was
    private = dpgraph.max_cut(G, epsilon=1.0, delta=0.0, weight=None, rng=0).to_dict()
    assert set(private["answer"]) == set(doc["answer"]) == {"labels", "values"}


def test_labels_1_and_str_1_stay_apart_in_json_documents():
    """A graph with nodes ``1`` and ``"1"``: the results list their labels, so both stay (with
    their types) in ``to_dict()``; a mapping keyed by both, which ``jsonable`` turned into one
    JSON key with the other value silently lost, is refused naming the two keys."""
    G = nx.Graph([(1, "1"), ("1", 2), (2, 1), (2, "a"), ("a", 1)])
    for res in (dpgraph.solve_max_cut(G, rng=0),
                dpgraph.max_cut(G, epsilon=1.0, delta=0.0, weight=None, rng=0)):
        doc = json.loads(json.dumps(res.to_dict()))
        assert sorted(map(repr, doc["answer"]["labels"])) == ["'1'", "'a'", "1", "2"]
        assert dict(zip(doc["answer"]["labels"], doc["answer"]["values"])) == res.assignment
    from dpgraph.result import jsonable

    with pytest.raises(ValueError, match=r"both keys 1 and '1'.*same text '1'"):
        jsonable({"assignment": {1: 0, "1": 1}})
    assert jsonable({1: 0, "b": 1}) == {"1": 0, "b": 1}


def test_a_gz_file_that_is_not_gzip_is_read_with_a_warning_naming_it(tmp_path, capsys):
    """``read_graph("g.txt.gz")`` on a plain-text file read it without a word (gzip is told from
    the content); the name says compressed, so a GraphInputWarning now names the file."""
    path = tmp_path / "g.txt.gz"
    path.write_text("1 2\n2 3\n")
    with pytest.warns(dpgraph.GraphInputWarning, match=r"g\.txt\.gz: named \.gz but not gzip"):
        assert dpgraph.read_graph(path).m == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dpgraph.write_graph(nx.path_graph(3), tmp_path / "real.txt.gz")
        assert dpgraph.read_graph(tmp_path / "real.txt.gz").m == 2  # real gzip: no warning
    assert main(["info", str(path)]) == 0
    assert "named .gz but not gzip" in capsys.readouterr().out


def test_engine_cut_repr_lists_side_sizes_by_assignment_as_the_private_result():
    """``CutResult``'s repr listed ``len(partition[0])`` first, the side of assignment 1, while
    ``PrivateCutResult`` and ``dpgraph maxcut`` list the sizes of sides 0 / 1."""
    G = nx.star_graph(5)  # the maximum cut puts the centre alone: sides of 1 and 5 nodes
    res = dpgraph.solve_max_cut(G, rng=0)
    n1 = sum(res.assignment.values())
    assert n1 == len(res.partition[0]) and {n1, 6 - n1} == {1, 5}
    assert f"sides=({6 - n1}, {n1})" in repr(res)


def test_synthetic_report_takes_weight_none_as_the_release_did():
    """The README's ``synthetic_report(G, S)`` after ``release_synthetic(G, weight=None)`` on
    the karate club (weights 1-7) gave weight_ratio 0.34 and a max-cut transfer on the weights
    the release never read, with no ``weight=`` to say otherwise; it now takes one."""
    from dpgraph.lab.evaluate import synthetic_report

    G = nx.karate_club_graph()
    H = nx.Graph(G.edges())
    assert synthetic_report(G, H, max_cut=False)["weight_ratio"] == pytest.approx(78 / 231)
    r = synthetic_report(G, H, weight=None)
    assert r["total_weight_true"] == r["total_weight"] == 78.0 and r["weight_ratio"] == 1.0
    assert r["maxcut_transfer"] == pytest.approx(1.0)


def test_the_lab_reads_a_partition_exactly_as_the_engine_does():
    """`partition_vector` (dpgraph.lab.evaluate) had its own copy of the engine's reader, which
    took a pair of NumPy numbers for a pair of label sets (TypeError: 'numpy.int64' object is
    not iterable) where `side_vector` reads the ±1 vector it is."""
    import networkx as nx
    import numpy as np

    from dpgraph.engine.maxcut import side_vector
    from dpgraph.graph import as_graph_data
    from dpgraph.lab.evaluate import partition_vector

    data = as_graph_data(nx.path_graph(2))
    for part in [(np.int64(0), np.int64(1)), (np.float64(-1), np.float64(1)), ({0}, {1}),
                 {0: True, 1: False}, [1, 0]]:
        assert partition_vector(data, part).tolist() == side_vector(data.labels, part).tolist()
