"""The command speaks its own spellings (docs/cli.md, "Output files, messages and progress").

- A directed graph file is readable by every command that reads a graph (``--symmetrize``),
  and the refusal names ``--symmetrize max|sum|mean``, not ``symmetrize='max', ...``.
- A CSV weight column or a GraphML attribute is chosen with ``--weight COLUMN`` (exclusive with
  ``--unweighted``); warnings and errors name ``--weight``, ``--ids``, ``--nodes``,
  ``--duplicates`` and ``--symmetrize``, never the reader's Python keywords.
- A folder or glob given by mistake is refused in one line before any Dask cluster starts.

Each check runs the command in process (``dpgraph.cli.app.main``); none starts Dask.
"""

import json
import re
import warnings

import pytest

from dpgraph.cli.app import main

#: a reader keyword in Python spelling: what the command's messages must not show
PYTHON_SPELLING = re.compile(r"\b(symmetrize|duplicates|ids|weight|nodes)=")
PRIVATE = ["--epsilon", "1", "--delta", "0", "--seed", "1", "-q"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("dpgraph: error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def directed(tmp_path):
    """A directed GraphML file whose weights are the edge attribute 'strength'."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 0.4), ("b", "a", 0.9), ("b", "c", 0.2),
                               ("c", "d", 0.5), ("d", "a", 1.0)], weight="strength")
    path = tmp_path / "dir.graphml"
    nx.write_graphml(G, path)
    return path


@pytest.fixture
def no_dask(monkeypatch):
    """Fail the test if the command opens a Dask session (a local cluster: seconds)."""
    import dpgraph.cli.app as app

    class _Boom:
        def __init__(self, *a, **k):
            raise AssertionError("a Dask session was opened before the path was checked")

    monkeypatch.setattr(app, "dask_session", _Boom)


# ----------------------------------------------------------------------------- 1. --symmetrize


@pytest.mark.parametrize("argv", [
    ["maxcut", *PRIVATE],
    ["bisection", *PRIVATE],
    ["synth", "--epsilon", "1", "--seed", "1", "-q", "-o", "{tmp}/s.txt"],
    ["max2csp", "--k", "3", *PRIVATE],
])
def test_every_graph_command_reads_a_directed_file_with_symmetrize(capsys, directed, tmp_path,
                                                                   argv):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    cmd, rest = argv[0], argv[1:]
    code, _, err = _run(capsys, cmd, directed, *rest)
    assert code == 2
    line = _error(err)
    assert "--symmetrize max|sum|mean" in line and "symmetrize=" not in line
    code, out, err = _run(capsys, cmd, directed, "--symmetrize", "max", *rest)
    assert code == 0, err
    assert out


def test_symmetrize_and_weight_read_what_python_reads(capsys, directed):
    """info and the private commands read the same graph as
    read_graph(path, symmetrize='max', weight='strength')."""
    import dpgraph

    ref = dpgraph.read_graph(directed, symmetrize="max", weight="strength")
    code, out, _ = _run(capsys, "info", directed, "--symmetrize", "max", "--weight",
                        "strength", "--json")
    assert code == 0
    doc = json.loads(out)
    assert (doc["nodes"], doc["edges"]) == (ref.n, ref.m)
    assert doc["weights"]["max"] == pytest.approx(ref.weights.data.max())
    assert doc["weights"]["total"] == pytest.approx(ref.total_weight)
    code, out, _ = _run(capsys, "maxcut", directed, "--symmetrize", "sum", "--unweighted",
                        *PRIVATE, "--json")
    assert code == 0 and json.loads(out)["graph"]["nodes"] == 4


def test_symmetrize_where_it_does_not_apply_is_one_line(capsys, tmp_path):
    """A G-set file read with --symmetrize gave a TypeError traceback (read_gset takes no
    symmetrize=); a data set name ignored it; max2csp on a CNF file did not have it."""
    gset = tmp_path / "g.gset"
    gset.write_text("3 2\n1 2 1\n2 3 1\n")
    code, _, err = _run(capsys, "info", gset, "--symmetrize", "max")
    assert code == 2
    assert "--symmetrize applies to" in _error(err) and "read as gset" in err
    code, _, err = _run(capsys, "maxcut", "karate", "--symmetrize", "max", *PRIVATE)
    assert code == 2 and "--symmetrize applies to graph files" in _error(err)
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 1\n1 2 0\n")
    code, _, err = _run(capsys, "max2csp", cnf, "--symmetrize", "max", *PRIVATE)
    assert code == 2 and "--symmetrize" in _error(err) and "max-k-cut only" in err


def test_directed_snap_file_names_the_flag(capsys, tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("# Directed graph\n0 1\n1 2\n2 0\n")
    code, _, err = _run(capsys, "bisection", path, *PRIVATE)
    assert code == 2
    line = _error(err)
    assert "--symmetrize max|sum|mean" in line and not PYTHON_SPELLING.search(line)
    assert _run(capsys, "bisection", path, "--symmetrize", "mean", *PRIVATE)[0] == 0


# ----------------------------------------------------------------------------- 2. spellings


def test_csv_weight_column_is_chosen_with_weight(capsys, tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("u,v,count\nalice,bob,0.25\nbob,carol,0.5\ncarol,alice,1\n")
    # the warning (through the command's warning display) names the flag
    code, _, err = _run(capsys, "maxcut", path, "--epsilon", "1", "--delta", "0", "--seed", "1")
    assert code == 0
    warning = next(line for line in err.splitlines() if "column 'count'" in line)
    assert warning.startswith("dpgraph: warning:")
    assert "pass --weight count" in warning and not PYTHON_SPELLING.search(warning)
    code, out, _ = _run(capsys, "info", path, "--weight", "count", "--json")
    assert code == 0
    w = json.loads(out)["weights"]
    assert (w["min"], w["max"], w["kind"]) == (0.25, 1.0, "weighted")
    code, out, err = _run(capsys, "maxcut", path, "--weight", "count", *PRIVATE, "--json")
    assert code == 0 and "column 'count'" not in err
    # a column the file lacks: the reader's "(weight=)" reads as the flag
    code, _, err = _run(capsys, "info", path, "--weight", "cnt")
    assert code == 2
    line = _error(err)
    assert "(--weight)" in line and not PYTHON_SPELLING.search(line)


def test_weight_and_unweighted_exclude_each_other(capsys, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("u,v,w\n0,1,0.5\n1,2,1\n2,0,1\n")
    with pytest.raises(SystemExit) as exc:
        main(["info", str(path), "--weight", "w", "--unweighted"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_weight_where_the_format_has_no_column_is_refused(capsys, tmp_path):
    """read_snap takes no weight=: the command said nothing or raised a TypeError."""
    path = tmp_path / "e.txt"
    path.write_text("0 1 0.5\n1 2 1\n2 0 1\n")
    code, _, err = _run(capsys, "info", path, "--weight", "w")
    assert code == 2
    line = _error(err)
    assert "--weight applies to" in line and "read as snap" in line and "--unweighted" in line
    code, _, err = _run(capsys, "maxcut", "karate", "--weight", "w", *PRIVATE)
    assert code == 2 and "--weight applies to graph files" in _error(err)


def test_nodes_of_the_wrong_type_names_ids_and_nodes(capsys, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("source,target\nalice,bob\nbob,carol\ncarol,alice\n")
    code, _, err = _run(capsys, "info", path, "--nodes", "10")
    assert code == 2
    line = _error(err)
    assert "read the file with --ids to match them" in line
    assert "--nodes holds int" in line and "--nodes is the public node set" in line
    assert not PYTHON_SPELLING.search(line) and "ids=" not in line


def test_duplicates_list_reads_as_the_flag(capsys, tmp_path):
    path = tmp_path / "dup.txt"
    path.write_text("0 1 0.75\n1 0 0.75\n1 2 1\n2 0 1\n")
    code, _, err = _run(capsys, "maxcut", path, "--duplicates", "sum", *PRIVATE)
    assert code == 2
    line = _error(err)
    assert "--duplicates sum" in line and "--duplicates max" in line
    assert not PYTHON_SPELLING.search(line) and "as_graph_data" not in line


def test_cli_message_translates_the_reader_keywords():
    """The one translation point (dpgraph.cli.errors.cli_message, used by errors, warnings
    and info's notes) on the readers' own messages."""
    from dpgraph.cli.errors import cli_message
    from dpgraph.graph import duplicates_message

    cases = {
        "x: networkx.DiGraph is directed; pass symmetrize='max', 'sum' or 'mean' to say how":
            "x: networkx.DiGraph is directed; pass --symmetrize max|sum|mean to say how",
        "expected an undirected graph, or symmetrize='max', 'sum' or 'mean'":
            "expected an undirected graph, or --symmetrize max|sum|mean",
        "x is a multigraph; pass duplicates='sum' or 'max'":
            "x is a multigraph; pass --duplicates sum|max",
        "expected each edge once (or duplicates='max' or 'sum')":
            "expected each edge once (or --duplicates max|sum)",
        "column 'count' is not read; pass weight='count' to read its values":
            "column 'count' is not read; pass --weight count to read its values",
        "expected a column named 'n' (weight=)": "expected a column named 'n' (--weight)",
        "give nodes of the ids' type, or read the file with ids= to match them":
            "give --nodes of the ids' type, or read the file with --ids to match them",
        "expected an integer node id (ids='int')": "expected an integer node id (--ids int)",
        "x: nodes holds an id beyond 64-bit integers": "x: --nodes holds an id beyond 64-bit "
                                                       "integers",
        "nodes=0: a graph needs at least one node": "--nodes 0: a graph needs at least one node",
        # a value, not the keyword: left alone
        "edge ('a', 'b') has weight='x', which is not a real number; fix it, or pass "
        "weight=None": "edge ('a', 'b') has weight='x', which is not a real number; fix it, "
                       "or pass --unweighted",
    }
    for message, expected in cases.items():
        assert cli_message(message) == expected
    for rule in ("max", "sum", "error"):
        text = cli_message(duplicates_message("f.txt", 2, 1, rule))
        assert not PYTHON_SPELLING.search(text), text


def test_readers_warnings_and_errors_have_no_python_spelling(capsys, tmp_path):
    """Every message of these inputs, as the command prints it."""
    import networkx as nx

    multi = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0)])
    nx.write_gml(multi, tmp_path / "m.gml")
    nx.write_gml(nx.DiGraph([(0, 1), (1, 2)]), tmp_path / "d.gml")
    (tmp_path / "mixed.txt").write_text("a b\n1 2\n")
    (tmp_path / "ints.txt").write_text("1 2\n2 x\n")
    runs = [("info", tmp_path / "d.gml"),
            ("info", tmp_path / "m.gml", "--duplicates", "error"),
            ("info", tmp_path / "m.gml"),
            ("info", tmp_path / "mixed.txt"),
            ("info", tmp_path / "ints.txt"),
            ("info", tmp_path / "mixed.txt", "--ids", "int")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for argv in runs:
            _, out, err = _run(capsys, *argv)
            for line in (out + err).splitlines():
                if line.startswith(("dpgraph:", "note:")):
                    assert not PYTHON_SPELLING.search(line), line


# ----------------------------------------------------------------------------- 3. path forms


@pytest.mark.parametrize("command", [["info"], ["maxcut", *PRIVATE],
                                     ["synth", "--epsilon", "1", "-o", "OUT"]])
def test_folder_or_glob_by_mistake_is_refused_before_dask(capsys, tmp_path, no_dask, command):
    (tmp_path / "a.cnf").write_text("p cnf 2 1\n1 2 0\n")
    (tmp_path / "b.cnf").write_text("p cnf 2 1\n1 -2 0\n")
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    (graphs / "g.graphml").write_text("<graphml/>")
    (graphs / "h.gml").write_text("graph [ ]")
    empty = tmp_path / "empty"
    empty.mkdir()
    cmd, rest = command[0], [a.replace("OUT", str(tmp_path / "o.txt")) for a in command[1:]]
    for spec, said in [(str(tmp_path / "*.cnf"), "matches 2 file(s) of extension(s) .cnf"),
                       (graphs, "holds 2 file(s) of extension(s) .gml, .graphml"),
                       (str(tmp_path / "*.parquet"), "matches no file"),
                       (empty, "holds no files"),
                       (tmp_path / "missing.parquet", "does not exist")]:
        code, _, err = _run(capsys, cmd, spec, *rest)
        assert code == 2, (spec, err)
        line = _error(err)
        assert str(spec) in line and said in line, line
        assert "expected a graph file, or Dask edge files" in line
        assert len(err.strip().splitlines()) == 1, err


def test_single_graph_file_behind_a_glob_is_named(capsys, tmp_path, no_dask):
    (tmp_path / "only.graphml").write_text("<graphml/>")
    code, _, err = _run(capsys, "info", str(tmp_path / "*.graphml"))
    assert code == 2 and f"give its path ({tmp_path / 'only.graphml'})" in _error(err)


def test_edge_file_options_are_refused_before_dask(capsys, tmp_path, no_dask):
    """--symmetrize on edge files, and a --weight column the files lack (the Dask reader then
    reads no weights, without a word), are refused before a cluster starts."""
    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "a.csv").write_text("u,v,count\n0,1,0.5\n")
    (folder / "b.csv").write_text("u,v,count\n1,2,0.5\n")
    code, _, err = _run(capsys, "info", folder, "--symmetrize", "max")
    assert code == 2 and "--symmetrize applies to graph files" in _error(err)
    code, _, err = _run(capsys, "maxcut", folder, "--weight", "strength", *PRIVATE)
    assert code == 2
    line = _error(err)
    assert "--weight strength" in line and "no column 'strength'" in line and "count" in line


def test_edge_files_the_dask_reader_reads_pass_the_check(tmp_path):
    """The check does not refuse what read_edge_files reads: Parquet or CSV files of one kind,
    a folder's markers (_SUCCESS, .crc) skipped, a --weight column that is there."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from dpgraph.cli.common import check_graph_path

    folder = tmp_path / "pq"
    folder.mkdir()
    pq.write_table(pa.table({"u": [0, 1], "v": [1, 2], "s": [0.5, 1.0]}), folder / "p.parquet")
    (folder / "_SUCCESS").write_text("")
    (folder / ".p.parquet.crc").write_text("x")
    check_graph_path(folder)
    check_graph_path(folder, weight="s")
    check_graph_path(folder / "p.parquet")
    (tmp_path / "a.csv").write_text("u,v,weight\n0,1,1\n")
    (tmp_path / "b.csv").write_text("u,v,weight\n1,2,1\n")  # (.txt: refused)
    check_graph_path(str(tmp_path / "*"), weight="weight")  # (the folder pq is no file)
    with pytest.raises(ValueError, match="no column 'x'"):
        check_graph_path(folder, weight="x")
    check_graph_path(tmp_path / "a.csv")  # one graph file: not edge files, nothing to check


def test_nodes_on_a_data_set_name_is_priced_in_the_commands_spelling(capsys):
    """--nodes N on a data set name went through an unpriced node-set copy (22 GiB asked for
    3 * 10^9 nodes); it is refused before anything is allocated, naming --nodes."""
    code, out, err = _run(capsys, "info", "karate", "--nodes", "3000000000")
    assert code == 2
    line = _error(err)
    assert "--nodes 3000000000 (a public node set of 3,000,000,000 nodes)" in line
    assert "nodes=" not in line and "nothing was allocated" in line


def test_a_nodes_file_is_priced_before_it_is_read(capsys, tmp_path, monkeypatch):
    path = tmp_path / "nodes.txt"
    path.write_text("".join(f"{i}\n" for i in range(20_000)))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")
    code, out, err = _run(capsys, "info", "karate", "--nodes", str(path))
    assert code == 2
    line = _error(err)
    assert f"--nodes {path} (about " in line and "node ids fit" in line


def test_a_graph_file_read_as_csp_points_to_k(capsys, tmp_path):
    """max2csp on a CSV graph without --k read it as the csp format and said only "lines start
    with 'p' or 'c'"; it now says how to solve Max-k-Cut on it."""
    path = tmp_path / "people.csv"
    path.write_text("source,target,weight\na,b,1\nb,c,0.5\n")
    code, out, err = _run(capsys, "max2csp", path, *PRIVATE)
    assert code == 2
    line = _error(err)
    assert "lines start with 'p' or 'c'" in line and "reads as a csv graph file" in line
    assert "--k K" in line
    code, out, err = _run(capsys, "max2csp", path, "--k", "2", *PRIVATE)
    assert code == 0, err
