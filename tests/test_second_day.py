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


def test_a_nodes_file_reads_as_the_graph_files_do(tmp_path, capsys):
    """``--nodes FILE`` was opened as plain UTF-8: a node file saved with a byte-order mark
    (Windows editors) made its first id '\\ufeffalice', refused as 'alice' missing from a file
    that visibly holds it; a gzip node file failed with "'utf-8' codec can't decode byte 0x8b"
    naming no file; and a line '--5' crashed with "invalid literal for int()". The node file
    is now read as the graph files are (gzip by content, BOM dropped), integers as the
    edge-list readers take them."""
    import gzip

    graph = tmp_path / "names.txt"
    graph.write_text("alice bob\nbob carol\n")
    bom = tmp_path / "nodes_bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfalice\r\nbob\r\ncarol\r\ndave\r\n")
    packed = tmp_path / "nodes.txt.gz"
    packed.write_bytes(gzip.compress(b"alice\nbob\ncarol\ndave\n"))
    for nodes in (bom, packed):
        assert main(["info", str(graph), "--nodes", str(nodes), "--json", "-q"]) == 0
        assert json.loads(capsys.readouterr().out)["nodes"] == 4
    ints = tmp_path / "ints.txt"
    ints.write_text("1 2\n2 3\n")
    plus = tmp_path / "nodes_plus.txt"
    plus.write_text("+1\n2\n3\n4\n")  # '+1' is the integer 1, as in an edge list
    assert main(["info", str(ints), "--nodes", str(plus), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 4
    odd = tmp_path / "nodes_odd.txt"
    odd.write_text("1\n2\n3\n--5\n")
    assert main(["info", str(ints), "--nodes", str(odd), "-q"]) == 2
    assert "invalid literal" not in _error(capsys.readouterr().err)
    latin = tmp_path / "nodes_latin1.txt"
    latin.write_bytes(b"caf\xe9\n")
    assert main(["info", str(graph), "--nodes", str(latin), "-q"]) == 2
    line = _error(capsys.readouterr().err)
    assert str(latin) in line and "UTF-8" in line


def test_matrix_labels_may_be_any_iterable_and_a_pandas_adjacency_gets_its_hint():
    """``as_graph_data(A, labels=(f"v{i}" for i in ...))`` checked each label by iterating the
    generator, then failed with "object of type 'generator' has no len()"; a square pandas
    DataFrame named alike on both axes (``networkx.to_pandas_adjacency``) was told to pass its
    rows as edges. Labels are read once into a tuple; the adjacency DataFrame is pointed to
    ``df.to_numpy()`` with its index as labels."""
    import networkx as nx
    import numpy as np
    import pandas as pd

    A = np.ones((3, 3)) - np.eye(3)
    g = dpgraph.as_graph_data(A, labels=(c for c in "abc"))
    assert tuple(g.labels) == ("a", "b", "c")
    assert tuple(dpgraph.as_graph_data(A, labels={"x": 0, "y": 1, "z": 2}.keys()).labels) == \
        ("x", "y", "z")
    df = nx.to_pandas_adjacency(nx.Graph([("a", "b"), ("b", "c")]))
    with pytest.raises(TypeError, match=r"adjacency matrix.*df\.to_numpy\(\), labels=list"):
        dpgraph.as_graph_data(df)
    g = dpgraph.as_graph_data(df.to_numpy(), labels=list(df.index))
    assert tuple(g.labels) == ("a", "b", "c") and g.m == 2
    with pytest.raises(TypeError, match="itertuples"):  # an edge table keeps its hint
        dpgraph.as_graph_data(pd.DataFrame({"u": [1, 2], "v": [2, 3]}))


def test_a_pair_listed_on_every_line_is_not_called_a_counts_header(tmp_path):
    """``1 2`` / ``2 1`` / ``1 2`` drew, besides the duplicate note, the warning that the first
    line is an edge "between nodes 1 and 2, which occur on no other line, but it looks like a
    header of counts 'n m'": both nodes occur on every line. A file whose every line lists the
    first pair has no counts header; a real one still warns."""
    path = tmp_path / "dup.txt"
    path.write_text("1 2\n2 1\n1 2\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dpgraph.read_graph(path).m == 1
    assert not [w for w in caught if "header of counts" in str(w.message)]
    header = tmp_path / "header.txt"
    header.write_text("5 3\n0 1\n1 2\n2 0\n")  # 'n m' left as the first line: still warned
    with pytest.warns(dpgraph.GraphInputWarning, match="header of counts"):
        dpgraph.read_graph(header)


def test_cut_weight_points_a_pair_of_label_sets_to_cut_value():
    """``datasets.cut_weight(g, res.partition)`` (the pair of label sets every result holds)
    said only "partition must have length n = 34, got shape (2,)"; it takes a vector of block
    ids, and the message now says so and names the function that reads label sets."""
    from dpgraph.lab.evaluate import cut_value

    g = dpgraph.datasets.load("karate")
    S, T = set(range(17)), set(range(17, 34))
    for part in [(S, T), {v: int(v in S) for v in g.labels}]:
        with pytest.raises(ValueError, match=r"vector of block ids.*lab\.evaluate\.cut_value"):
            dpgraph.datasets.cut_weight(g, part)
    x = [int(v in S) for v in g.labels]
    assert dpgraph.datasets.cut_weight(g, x) == cut_value(g, (S, T))
    tiny = dpgraph.graph.as_graph_data([(0, 1)])  # n = 2: a 2-vector is a vector of ids
    assert dpgraph.datasets.cut_weight(tiny, [0, 1]) == 1.0


def test_every_dotted_dpgraph_name_in_the_docs_exists():
    """docs/cli.md said the csp format is "what `dpgraph.write_csp` writes": there is no
    ``dpgraph.write_csp`` (it is ``dpgraph.engine.write_csp``). Every backticked dotted
    ``dpgraph.`` name in README.md and docs/*.md now resolves to a module or attribute (the
    JSON schema names ``dpgraph.cut/1`` ... are not Python names)."""
    import importlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent

    def resolves(name):
        parts = name.split(".")
        obj = importlib.import_module(parts[0])
        for i, part in enumerate(parts[1:], 1):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                try:
                    obj = importlib.import_module(".".join(parts[: i + 1]))
                except ImportError:
                    return False
        return True

    missing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a renamed constant still resolves
        for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
            for code in re.findall(r"`([^`\n]+)`", path.read_text(encoding="utf-8")):
                code = re.sub(r"\bdpgraph\.\w+/\d+", "", code)  # schema names
                for name in re.findall(r"(?<![\w/.])(dpgraph(?:\.[A-Za-z_]\w*)+)", code):
                    name = re.sub(r"\.(py|md)$", "", name)
                    if not resolves(name):
                        missing.append(f"{path.name}: {name}")
    assert not missing, missing


def test_read_graph_names_the_option_a_format_does_not_take(tmp_path):
    """``read_graph("g.txt", weight="w")`` said "read_snap() got an unexpected keyword argument
    'weight'" (an internal function; gset said the same of ``symmetrize=``); a data set name
    said only "no such graph file: karate"; an open file said "expected str, bytes or
    os.PathLike object"; and a bytes path crashed ("endswith first arg must be bytes"). Each
    now gets a message naming the option, the format and what to do."""
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n")
    with pytest.raises(TypeError, match=r"read as snap, whose reader takes no weight=.*"
                                        r"weight=None reads every edge.*ids="):
        dpgraph.read_graph(path, weight="w")
    assert dpgraph.read_graph(path, weight=None).m == 2  # every format takes weight=None
    gset = tmp_path / "g.gset"
    dpgraph.write_graph(dpgraph.datasets.load("karate"), gset, format="gset")
    with pytest.raises(TypeError, match=r"read as gset, whose reader takes no symmetrize= "
                                        r"\(a gset file is undirected by definition\)"):
        dpgraph.read_graph(gset, format="gset", symmetrize="max")
    with pytest.raises(FileNotFoundError, match=r"datasets\.load\('karate'\)"):
        dpgraph.read_graph("karate")
    with open(path) as f, pytest.raises(TypeError, match=r"an open file .*f\.name"):
        dpgraph.read_graph(f)
    assert dpgraph.read_graph(str(path).encode()).m == 2


def test_partition_files_named_gz_are_gzip_and_dash_is_not_a_file(tmp_path, capsys,
                                                                     monkeypatch):
    """``dpgraph maxcut G -o part.tsv.gz`` wrote plain text under a .gz name (``zcat`` refuses
    it) where ``synth -o s.txt.gz`` compresses; and ``-o -`` silently created a file named
    '-' (maxcut, max2csp, and synth with --output-format). A .gz name is now gzip, and '-' is
    refused before anything is read."""
    import gzip

    monkeypatch.chdir(tmp_path)
    assert main(["maxcut", "karate", *PRIVATE, "-o", "part.tsv.gz"]) == 0
    lines = gzip.decompress((tmp_path / "part.tsv.gz").read_bytes()).decode().splitlines()
    assert len(lines) == 34 and lines[0].split("\t")[1] in ("0", "1")
    assert main(["max2csp", "karate", "--k", "3", *PRIVATE, "-o", "a.tsv.gz"]) == 0
    assert len(gzip.decompress((tmp_path / "a.tsv.gz").read_bytes()).splitlines()) == 34
    capsys.readouterr()
    for argv in (["maxcut", "karate", *PRIVATE, "-o", "-"],
                 ["max2csp", "karate", "--k", "3", *PRIVATE, "-o", "-"],
                 ["synth", "karate", "--epsilon", "1", "-q", "--output-format", "snap",
                  "-o", "-"]):
        assert main(argv) == 2
        assert "standard output" in _error(capsys.readouterr().err)
    assert not (tmp_path / "-").exists()


def test_a_graphml_file_written_by_igraph_reads_by_its_names(tmp_path):
    """igraph writes GraphML with generated node ids ``n0, n1, ...`` and the vertex names in a
    ``name`` attribute; read_graph labelled such a graph ``'n0', 'n1', ...``, so a private
    partition of it came back without the names (igraph's own reader restores them). Those
    files are now labelled by their names; ids of other files are kept."""
    ig = pytest.importorskip("igraph")
    g = ig.Graph.Famous("Zachary")
    g.vs["name"] = [f"member{v}" for v in range(g.vcount())]
    named = tmp_path / "named.graphml"
    g.write_graphml(str(named))
    data = dpgraph.read_graph(named)
    assert set(data.labels) == set(g.vs["name"]) and data.m == g.ecount()
    assert data.weights[data.index["member0"], data.index["member1"]] == 1.0
    plain = tmp_path / "plain.graphml"
    ig.Graph.Famous("Zachary").write_graphml(str(plain))  # no names: igraph's ids stay
    assert dpgraph.read_graph(plain).labels[:2] == ("n0", "n1")
    import networkx as nx

    H = nx.Graph([("a", "b"), ("b", "c")])
    nx.set_node_attributes(H, {"a": "x", "b": "y", "c": "z"}, "name")  # ids that are not n0..
    nx.write_graphml(H, tmp_path / "nx.graphml")
    assert set(dpgraph.read_graph(tmp_path / "nx.graphml").labels) == {"a", "b", "c"}


def test_a_file_of_four_or_one_columns_says_what_an_edge_list_holds(tmp_path, capsys):
    """A 'u v w t' file (an edge list with timestamps, as KONECT's out.* files) and a file of
    one id per line (a node list given as the graph) were refused with only "cannot tell the
    format from the content"; the refusal now says how many fields the lines have and what
    to do."""
    temporal = tmp_path / "temporal.txt"
    temporal.write_text("1 2 0.5 100\n2 3 0.7 200\n")
    with pytest.raises(dpgraph.GraphFormatError,
                       match=r"line 1: .*every line has 4 fields.*keep the first 2 or 3"):
        dpgraph.read_graph(temporal)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n2\n3\n")
    with pytest.raises(dpgraph.GraphFormatError, match=r"every line has 1 field.*\(nodes=\)"):
        dpgraph.read_graph(ids)
    assert main(["info", str(ids), "-q"]) == 2
    assert "the node set (--nodes FILE)" in _error(capsys.readouterr().err)


def test_an_edge_list_with_trailing_comments_is_told_as_the_reader_reads_it(tmp_path):
    """The SNAP reader drops a trailing ``# ...`` or ``% ...`` on an edge line, but format
    detection counted its words as fields: '1 2 # friend' then '2 3' was refused with "line 1
    has 4 field(s), this one 2" unless format='snap' was given. Detection now strips them as
    the reader does."""
    path = tmp_path / "notes.txt"
    path.write_text("1 2 # friend\n2 3\t \n% a comment line\n3 4 % colleague\n")
    g = dpgraph.read_graph(path)
    assert (g.n, g.m) == (4, 3)
    weighted = tmp_path / "weighted.txt"
    weighted.write_text("1 2 0.5 # strong tie\n2 3 1\n")
    g = dpgraph.read_graph(weighted)
    assert g.m == 2 and g.total_weight == 1.5
    nx_style = tmp_path / "nx.txt"  # NetworkX's edge list keeps its own detection
    nx_style.write_text("1 2 {'weight': 0.5}\n2 3 {'weight': 1.0}\n")
    assert dpgraph.io.detect_format(nx_style) == "edgelist"


def test_pajek_files_without_vertex_lines_or_with_edge_lists_read_as_pajek_means(tmp_path):
    """igraph writes the Pajek file of a graph without names as '*Vertices 34' followed at
    once by '*Edges': read_graph refused it ("expected a vertex line"), so igraph's own Pajek
    output did not read. And a '*Edgeslist' section ('u v1 v2 ...': an edge from u to each v)
    was read as '*Edges' lines, '1 2 3' as one edge 1-2 of weight 3: a silently wrong graph.
    Vertex lines are now optional (a vertex without one is labelled by its number), and the
    list sections are read as lists."""
    ig = pytest.importorskip("igraph")
    g = ig.Graph.Famous("Zachary")
    path = tmp_path / "zachary.net"
    g.write_pajek(str(path))
    data = dpgraph.read_graph(path)
    assert (data.n, data.m) == (34, 78) and data.labels[:2] == ("1", "2")
    assert data.weights[data.index["1"], data.index["2"]] == 1.0  # igraph's edge 0-1
    lists = tmp_path / "lists.net"
    lists.write_text('*Vertices 4\n1 "a"\n2 "b"\n3 "c"\n4 "d"\n*Edgeslist\n1 2 3\n3 4\n')
    data = dpgraph.read_graph(lists)
    edges = {frozenset((data.labels[i], data.labels[j])) for i, j in zip(*data.edges()[:2])}
    assert edges == {frozenset("ab"), frozenset("ac"), frozenset("cd")} and data.is_unweighted
    partial = tmp_path / "partial.net"  # some vertex lines: the others by number
    partial.write_text('*Vertices 4\n1 "a"\n*Edges\n1 2\n3 4\n')
    assert dpgraph.read_graph(partial).labels == ("a", "2", "3", "4")


def test_networkx_adjacency_lists_and_graph6_files_point_to_networkx(tmp_path):
    """``nx.write_adjlist(G, "g.adjlist")`` (or ``.g6``, ``.gexf``) then ``read_graph`` gave
    "unknown file extension" and, under a .txt name, "line 4 has 17 field(s), this one 9":
    neither said what the file is. Both now name the format and NetworkX's reader."""
    import networkx as nx

    G = nx.karate_club_graph()
    nx.write_adjlist(G, tmp_path / "k.adjlist")
    with pytest.raises(dpgraph.GraphFormatError, match=r"adjacency lists: read it with "
                                                        r"networkx\.read_adjlist"):
        dpgraph.read_graph(tmp_path / "k.adjlist")
    nx.write_adjlist(G, tmp_path / "k.txt")
    with pytest.raises(dpgraph.GraphFormatError, match=r"adjacency list, which "
                                                        r"networkx\.read_adjlist reads"):
        dpgraph.read_graph(tmp_path / "k.txt")
    nx.write_graph6(nx.Graph(G.edges()), tmp_path / "k.g6")
    with pytest.raises(dpgraph.GraphFormatError, match=r"networkx\.read_graph6"):
        dpgraph.read_graph(tmp_path / "k.g6")


def test_synth_says_how_many_nodes_an_edge_list_file_holds(tmp_path, capsys):
    """``dpgraph synth g.txt --nodes 30 -o s.txt --json`` reported ``output.nodes: 30`` while
    the edge-list file lists only the nodes with an edge (isolated ones cannot be written);
    the two "not written" warnings went to stderr only (and nowhere under -q). The document
    now gives ``nodes_in_file``, and the text output says it where it is fewer."""
    graph = tmp_path / "g.txt"
    graph.write_text("1 2\n2 3\n")
    out = tmp_path / "s.txt"
    assert main(["synth", str(graph), "--nodes", "30", "--epsilon", "1", "--seed", "3",
                 "-q", "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["output"]
    listed = {t for line in out.read_text().splitlines() if not line.startswith("#")
              for t in line.split()}
    assert doc["nodes"] == 30 and doc["nodes_in_file"] == len(listed) < 30
    assert main(["synth", str(graph), "--nodes", "30", "--epsilon", "1", "--seed", "3",
                 "-q", "-o", str(out)]) == 0
    assert f"the file lists {len(listed)} of the nodes" in capsys.readouterr().out
    gml = tmp_path / "s.gml"  # GML lists every node
    assert main(["synth", str(graph), "--nodes", "30", "--epsilon", "1", "--seed", "3",
                 "-q", "-o", str(gml), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["output"]["nodes_in_file"] == 30


def test_a_satlib_cnf_file_ends_at_its_percent_line(tmp_path):
    """SATLIB's CNF files end with a line ``%`` and a line ``0``: read_wcnf refused them
    ("literals must be integers, got '%'"). The marker ends the clauses; anything but ``0``
    or a comment after it is refused with its line named."""
    from dpgraph.engine import read_wcnf

    p = tmp_path / "sat.cnf"
    p.write_text("c SATLIB style\np cnf 3 2\n1 -2 0\n2 3 0\n%\n0\n\n")
    inst = read_wcnf(p)
    assert (inst.n, inst.m) == (3, 2) and inst.value([1, 1, 0]) == 2.0
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 3 2\n1 -2 0\n%\n2 3 0\n")
    with pytest.raises(ValueError, match=r"bad\.cnf, line 4: '2 3 0' after the end marker '%' of line 3"):
        read_wcnf(bad)


def test_options_the_local_route_does_not_read_are_said_in_the_result():
    """``candidates``, ``kappa`` and ``solver_options`` shape the solves on a spectral route's
    release; the default (local) route ignored them without a word."""
    G = nx.Graph(nx.karate_club_graph().edges())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, candidates=["unbiased"],
                              kappa=0.5, solver_options={"rank": 3})
        plain = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0)
        bis = dpgraph.max_bisection(G, epsilon=1.0, delta=1e-6, rng=0, kappa=0.5)
        quiet = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0,
                                solver_options={"progress": False})  # as the CLI passes
    assert res.diagnostics["route"] == "local"
    note = res.diagnostics["options_note"]
    assert note.startswith("candidates=['unbiased'], kappa=0.5, solver_options={'rank': 3} "
                           "not used")
    assert "kappa=0.5" in repr(res) and "not used" in repr(res)
    assert "options_note" not in plain.diagnostics and "not used" not in repr(plain)
    assert bis.diagnostics["options_note"].startswith("kappa=0.5 not used")
    assert "options_note" not in quiet.diagnostics


def test_dask_edge_files_read_the_headers_a_csv_file_reads(tmp_path):
    """A folder of CSV files with the header ``source,target`` was refused ("missing column(s)
    ['u', 'v']") though one such ``.csv`` file reads: the folder reader takes the first two
    columns as the endpoints and the weight column by its name in any case, as read_csv does,
    through the command line's reader too; named columns must still exist."""
    dask = pytest.importorskip("dask")
    from dpgraph.cli.common import load_input
    from dpgraph.io.dask import read_edge_files

    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "part-0.csv").write_text("source,target,Weight\na,b,0.5\nb,c,1\n")
    (folder / "part-1.csv").write_text("source,target,Weight\nc,d,0.25\n")
    single = dpgraph.read_graph(folder / "part-0.csv")
    with dask.config.set(scheduler="sync"):
        g = read_edge_files(folder)
        assert g.labels == ("a", "b", "c", "d") and g.m == 3
        assert g.total_weight == pytest.approx(1.75)  # the 'Weight' column, as read_csv reads it
        data, _, fmt = load_input(str(folder))  # the command line's reader
        assert fmt == "dask" and data.m == 3
        with pytest.raises(ValueError, match=r"missing column\(s\) \['src'\]"):
            read_edge_files(folder, u="src", v="target")
    assert single.total_weight == pytest.approx(1.5)
    semi = tmp_path / "semi"
    semi.mkdir()
    (semi / "a.csv").write_text("u;v\n1;2\n")
    with pytest.raises(ValueError, match=r"separated by ';'"):
        read_edge_files(semi)


def test_igraph_ncol_files_read_as_snap_and_lgl_files_name_igraphs_reader(tmp_path):
    """igraph's ``.ncol`` (``name1 name2 [weight]`` lines, SNAP's layout) was an unknown
    extension; it reads as a SNAP edge list (not written: write_graph's extensions are as
    they were). ``.lgl`` is not read, and the refusal names igraph.Graph.Read_Lgl."""
    from dpgraph.io import GraphFormatError, detect_format, output_format

    ncol = tmp_path / "g.ncol"
    ncol.write_text("alice bob 0.5\nbob carol 1\n")
    assert detect_format(ncol) == "snap"
    g = dpgraph.read_graph(ncol)
    assert g.labels == ("alice", "bob", "carol") and g.total_weight == 1.5
    num = tmp_path / "n.ncol"
    num.write_text("1 2\n2 3\n")
    assert dpgraph.read_graph(num, ids="str").labels == ("1", "2", "3")
    with pytest.raises(ValueError, match="cannot tell the output format"):
        output_format(tmp_path / "out.ncol")
    lgl = tmp_path / "g.lgl"
    lgl.write_text("# alice\nbob 0.5\n# bob\ncarol\n")
    with pytest.raises(GraphFormatError, match=r"igraph\.Graph\.Read_Lgl"):
        dpgraph.read_graph(lgl)


def test_write_csp_keeps_the_variable_names(tmp_path):
    """write_csp of a Max-k-Cut instance of a graph with named nodes wrote variables 0..n-1
    and dropped the names; they are written as ``# name:`` lines and read back (the command
    line answers by them), and names the format cannot hold are said by a warning."""
    from dpgraph.engine import read_csp, write_csp
    from dpgraph.engine.formats import max_k_cut_instance
    from dpgraph.graph import GraphInputWarning

    G = nx.Graph([("alice", "bob"), ("bob", "carol"), ("carol", "x y #1")])
    inst = max_k_cut_instance(G, 3)
    path = tmp_path / "named.csp"
    write_csp(inst, path)
    back = read_csp(path)
    assert back.names == ("alice", "bob", "carol", "x y #1")
    assert back.constraints == inst.constraints
    bad = tmp_path / "half.csp"
    bad.write_text('p csp 2 2 1\n# name: 0 "a"\nc 0 1 1.0 0,1 1,0\n')
    with pytest.raises(ValueError, match=r"half\.csp: '# name:' lines name 1 of the 2 variables"):
        read_csp(bad)
    with pytest.warns(GraphInputWarning, match="names .* are not written"):
        write_csp(max_k_cut_instance(nx.Graph([((0, 1), (1, 2))]), 2), tmp_path / "t.csp")


def test_synthetic_report_records_the_disconnected_eigenvector_warning():
    """synthetic_report let igraph's RuntimeWarning "Some eigenvector centralities are nearly
    zero ..." through on a disconnected sample; it is caught and recorded in ``notes`` (and
    the printed report), and other warnings are not silenced."""
    from dpgraph.lab.evaluate import format_synthetic_report, synthetic_report

    G = nx.karate_club_graph()
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from([(0, 1), (1, 2), (5, 6), (6, 7), (7, 5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        report = synthetic_report(G, H, max_cut=False)
        assert synthetic_report(G, G, max_cut=False)["notes"] == []
    assert len(report["notes"]) == 1 and "synthetic graph" in report["notes"][0]
    assert "not meaningful for disconnected graphs" in report["notes"][0]
    assert "  note: eigenvector centrality of the synthetic graph" in \
        format_synthetic_report(report)


def test_a_semicolon_separated_csv_names_its_separator(tmp_path):
    """A ``u;v;w`` CSV file got "1 column name(s) in the header row" with no word of the
    separator."""
    from dpgraph.io import GraphFormatError

    path = tmp_path / "semi.csv"
    path.write_text("u;v;w\n1;2;0.5\n2;3;1\n")
    with pytest.raises(GraphFormatError, match=r"separated by ';': dpgraph reads "
                                               r"comma-separated CSV") as err:
        dpgraph.read_graph(path)
    assert err.value.line == 1


def test_cli_counts_say_1_edge_not_1_edges(tmp_path, capsys):
    """``dpgraph synth`` printed "(30 nodes, 1 edges)"; counts are pluralised by their value
    (the JSON output is unchanged)."""
    graph = tmp_path / "one.txt"
    graph.write_text("0 1\n")
    out = tmp_path / "s.txt"
    assert main(["synth", str(graph), "--nodes", "30", "--epsilon", "1", "--seed", "8",
                 "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "(30 nodes, 1 edge) to" in captured.out and "1 edges" not in captured.out
    assert "writing 30 nodes and 1 edge to" in captured.err
    from dpgraph.cli.text import counted

    assert (counted(1, "edge"), counted(2, "edge"), counted(1, "node")) == \
        ("1 edge", "2 edges", "1 node")


@pytest.mark.parametrize("call, kwargs, says", [
    ("max_cut", {"epsilon": 1.0, "delta": 1e-6, "seed": 1}, "dpgraph calls it rng="),
    ("max_bisection", {"epsilon": 1.0, "random_state": 1}, "dpgraph calls it rng="),
    ("release_synthetic", {"epsilon": 1.0, "delta": 1e-6}, "pure epsilon-DP (delta = 0)"),
    ("privatize", {"epsilon": 1.0, "delta": 1e-6, "wieght": None}, "did you mean weight=?"),
    ("max_2csp", {"epsilon": 1.0, "eps": 1.0}, "dpgraph calls it epsilon="),
])
def test_a_keyword_from_another_library_names_dpgraphs_own(call, kwargs, says):
    """``max_cut(G, ..., seed=1)`` (NetworkX's spelling) or ``release_synthetic(G, epsilon=1,
    delta=1e-6)`` (as ``max_cut`` takes it) raised Python's bare "unexpected keyword argument";
    the TypeError now names the keyword dpgraph takes, and that a pure call has no delta."""
    G = nx.path_graph(6)
    with pytest.raises(TypeError, match="unexpected keyword argument") as info:
        getattr(dpgraph, call)(G, **kwargs)
    assert says in str(info.value)
    assert "_check_only" not in str(info.value)


def test_erdos_renyi_with_a_probability_says_it_takes_a_mean_degree():
    """``datasets.erdos_renyi(1000, 0.01)`` (NetworkX's ``gnp_random_graph(n, p)`` order) drew
    about 5 edges without a word; the second argument is the mean degree, and a value below 1
    now warns, naming ``mean_degree=p * (n - 1)``. A mean degree of 1 or more does not warn."""
    from dpgraph.datasets import erdos_renyi
    with pytest.warns(dpgraph.GraphInputWarning, match=r"mean_degree=p \* \(n - 1\)") as rec:
        erdos_renyi(1000, 0.01, rng=0)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        erdos_renyi(1000, 10.0, rng=0)
