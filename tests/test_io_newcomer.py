"""The graph readers on what a newcomer's files hold (session s62's user-test report,
findings 1, 2 and 7): a CSV without a header row, a public node set too large to hold, and an
edge list whose first line is a header of counts ``n m``.

1. A CSV's first row is its header row (CSV's convention, pandas' too), so a file without one
   (``alice,bob`` first) would lose its first edge without a word: a first row whose endpoint
   column names are not usual column names warns, naming the file, the line and what to do;
   recognised headers and dpgraph's own CSV files stay silent.
2. ``nodes=N`` (``--nodes N``, or a file of node ids) is priced before anything of its size is
   allocated: a node set that cannot fit is refused at once, naming ``nodes=`` and how many
   nodes fit.
3. A first line ``n m`` of an edge list (two ids on no other line that look like the node and
   line counts) is read as an edge, as it may be one, with a warning that says how to skip it.
"""

import glob
import os
import time
import tracemalloc
import warnings

import networkx as nx
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.graph import DuplicateEdgeWarning, GraphInputWarning
from dpgraph.io import GraphFormatError, NoEdgesError, read_graph, write_graph
from dpgraph.memory import InsufficientMemoryError


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _read(path, **kw):
    """``(graph, [messages of the GraphInputWarnings])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = read_graph(path, **kw)
    return g, [str(w.message) for w in caught if issubclass(w.category, GraphInputWarning)
               and not issubclass(w.category, DuplicateEdgeWarning)]


# ----------------------------------------------------------------------------- 1. CSV header


def test_a_csv_without_a_header_row_warns_that_its_first_row_is_read_as_column_names(tmp_path):
    p = _write(tmp_path, "nohdr3.csv", "alice,bob\ncarol,dave\neve,frank\n")
    g, said = _read(p)
    assert tuple(g.labels) == ("carol", "dave", "eve", "frank")  # the convention: row 1 names
    assert len(said) == 1
    text = said[0]
    assert str(p) in text and "line 1" in text and "'alice,bob'" in text
    assert "header row such as 'source,target'" in text  # what to do if it is an edge
    assert "to silence this warning" in text  # and if it names the columns


def test_the_warning_is_attributed_to_the_callers_line(tmp_path):
    p = _write(tmp_path, "nohdr.csv", "alice,bob\ncarol,dave\n")
    with pytest.warns(GraphInputWarning, match="line 1") as caught:
        read_graph(p)
    assert any(w.filename == __file__ for w in caught)


def test_one_warning_when_a_first_row_name_is_also_a_node_id(tmp_path):
    p = _write(tmp_path, "nohdr2.csv", "alice,bob\nbob,carol\neve,frank\n")
    _, said = _read(p)
    assert len(said) == 1
    assert "line 1" in said[0] and "'bob' is also a node id" in said[0]


def test_a_known_header_that_is_also_a_node_id_still_warns(tmp_path):
    _, said = _read(_write(tmp_path, "uv.csv", "u,v\nu,b\n"))
    assert len(said) == 1 and "also node ids" in said[0]


@pytest.mark.parametrize("header", ["source,target", "source,target,weight", "from,to", "u,v",
                                    "Source,Target,Weight", "SRC,DST", "node1,node2",
                                    "source\ttarget", "from_id,to_id,weight"])
def test_recognised_headers_stay_silent(tmp_path, header):
    sep = "\t" if "\t" in header else ","
    rows = [["alice", "bob", "1"], ["bob", "carol", "2"]]
    ncols = len(header.split(sep))
    text = header + "\n" + "".join(sep.join(r[:ncols]) + "\n" for r in rows)
    g, said = _read(_write(tmp_path, "g.csv", text))
    assert said == [] and g.n == 3


def test_integer_ids_under_unusual_column_names_stay_silent(tmp_path):
    # a first row of names above integer ids cannot be an edge of the file (ids='auto' reads
    # no file that mixes them): it names the columns
    g, said = _read(_write(tmp_path, "pf.csv", "person,friend\n1,2\n2,3\n"))
    assert said == [] and tuple(g.labels) == (1, 2, 3)


@pytest.mark.parametrize("name", ["out.csv", "out.csv.gz"])
@pytest.mark.parametrize("weighted", [False, True])
def test_dpgraphs_own_csv_files_read_back_silently(tmp_path, name, weighted):
    G = nx.Graph()
    G.add_weighted_edges_from([("alice", "bob", 0.5 if weighted else 1),
                               ("bob", "007", 1), ("007", "carol", 1)])
    write_graph(G, tmp_path / name)
    g, said = _read(tmp_path / name)
    assert said == [] and set(g.labels) == {"alice", "bob", "carol", "007"}


def test_a_first_row_of_numbers_is_still_refused(tmp_path):
    with pytest.raises(GraphFormatError, match="first row holds numbers.*add a header row"):
        read_graph(_write(tmp_path, "n.csv", "1,2\n2,3\n"))


def test_a_one_row_file_without_header_says_the_row_was_read_as_the_header(tmp_path):
    with pytest.raises(NoEdgesError, match=r"line 1 was read as the header row.*'source,target'"):
        read_graph(_write(tmp_path, "one.csv", "alice,bob\n"))
    with pytest.raises(NoEdgesError) as exc:  # a header of known names: no such hint
        read_graph(_write(tmp_path, "hdr.csv", "source,target\n"))
    assert "read as the header row" not in str(exc.value)


def test_the_command_prints_the_warning(tmp_path, capsys):
    p = _write(tmp_path, "nohdr3.csv", "alice,bob\ncarol,dave\neve,frank\n")
    assert main(["info", str(p)]) == 0
    out, err = capsys.readouterr()
    said = [line for line in (out + err).splitlines() if "the first row 'alice,bob'" in line]
    assert len(said) == 1 and said[0].startswith("note:")  # info's notes are on stdout
    assert "line 1" in said[0] and "'source,target'" in said[0]


# ----------------------------------------------------------------------------- 2. nodes=


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")


def _peak(fn):
    """``(outcome, peak bytes, seconds)`` of ``fn()`` (a memory refusal as the outcome)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        try:
            outcome = fn()
        except InsufficientMemoryError as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1], time.perf_counter() - start
    finally:
        tracemalloc.stop()


# sizes whose refusal is tested in this process: priced at 3.2 GB (over the 64M limit), they
# would allocate 0.8 GB if the check were lost, which the test machine survives; 3 * 10**9 nodes
# (22 GB unpriced) are tried only in a subprocess under an address-space limit
LARGE = 10**8


@pytest.mark.parametrize("name, text", [("email.txt", "0 1\n1 2\n2 0\n"),
                                        ("empty.txt", "# no edges\n"),
                                        ("g.csv", "source,target\na,b\n"),
                                        ("g.gset", "3 2\n1 2 1\n2 3 1\n")])
def test_a_large_node_count_is_refused_at_once(tmp_path, limited, name, text):
    p = _write(tmp_path, name, text)
    read_graph(p, nodes=["a", "b"] if name.endswith(".csv") else 5)  # imports: not the check's
    outcome, peak, seconds = _peak(lambda: read_graph(p, nodes=LARGE))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    text = str(outcome)
    assert text.startswith(f"{p}: nodes=100000000 (a public node set of 100,000,000 nodes) ")
    assert "DPGRAPH_MEMORY_LIMIT=64M" in text and "nothing was allocated" in text
    assert "At most 2,097,152 nodes fit in nodes=." in text  # 64 MiB / 32 B per node
    assert peak < 1 << 20 and seconds < 2


def _limited_run(argv, tmp_path):
    """``python -m dpgraph *argv`` under DPGRAPH_MEMORY_LIMIT=64M and a 3 GiB address-space
    limit (an unpriced allocation of gigabytes fails there instead of exhausting the machine)."""
    import resource
    import subprocess
    import sys

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    env = {**os.environ, "DPGRAPH_MEMORY_LIMIT": "64M", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dpgraph", *argv], capture_output=True,
                          text=True, env=env, cwd=tmp_path, preexec_fn=cap, timeout=120)
    return done, time.perf_counter() - start


@pytest.mark.skipif(not hasattr(os, "fork"), reason="an address-space limit needs POSIX")
def test_the_command_refuses_billions_of_nodes_in_one_line(tmp_path):
    p = _write(tmp_path, "email.txt", "0 1\n1 2\n2 0\n")
    done, seconds = _limited_run(["info", str(p), "--nodes", "3000000000"], tmp_path)
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert err.count("\n") == 1 and err.startswith("dpgraph: error:"), err
    assert "a public node set of 3,000,000,000 nodes" in err and "nothing was allocated" in err
    assert "At most 2,097,152 nodes fit" in err
    assert seconds < 60


def test_an_ordinary_node_count_is_read_under_the_limit(tmp_path, limited):
    p = _write(tmp_path, "email.txt", "0 1\n1 2\n2 0\n")
    g = read_graph(p, nodes=1_000_000)  # 32 MB priced: fits 64M
    assert g.n == 1_000_000 and g.m == 3
    assert read_graph(p, nodes=[0, 1, 2, "x"]).n == 4


def test_a_huge_sequence_of_node_labels_is_refused_before_it_is_mapped(tmp_path, limited):
    p = _write(tmp_path, "g.csv", "source,target\na,b\n")
    labels = ["a", "b"] + [f"n{i}" for i in range(500_000)]  # 80 MB priced
    read_graph(p, nodes=["a", "b"])
    outcome, peak, _ = _peak(lambda: read_graph(p, nodes=labels))
    assert isinstance(outcome, InsufficientMemoryError), outcome
    assert "nodes= (a public node set of 500,002 node labels)" in str(outcome)
    assert "nodes fit in nodes=" in str(outcome)
    assert peak < 1 << 20


def test_a_node_file_too_large_to_hold_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from dpgraph.io.base import check_node_file

    p = tmp_path / "nodes.txt"
    p.write_text("".join(f"user_{i:08d}\n" for i in range(100_000)))  # 1.4 MB, 100,000 ids
    check_node_file(p)  # fits the machine
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "8M")
    with pytest.raises(InsufficientMemoryError, match=r"--nodes .*nodes\.txt \(about 100,00\d "
                                                      r"node ids.*node ids fit"):
        check_node_file(p)


def test_dask_edge_frames_price_their_node_set_before_any_pass(limited):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from dpgraph.io.dask import from_dask

    ddf = dd.from_pandas(pd.DataFrame({"u": [0, 1], "v": [1, 2]}), npartitions=1)
    with pytest.raises(InsufficientMemoryError, match=r"edges: nodes=100000000 .*nodes fit"):
        from_dask(ddf, nodes=LARGE, source="edges")


# ----------------------------------------------------------------------------- 3. 'n m' line


def _counts_file(tmp_path, name="g.txt", header=None, n=60, comment="", offset=0):
    """A cycle on ``n`` nodes (ids from ``offset``), both directions of each edge listed, under
    ``header`` (default: ``n`` and the number of lines)."""
    ids = [offset + i for i in range(n)]
    lines = ([f"{ids[i]} {ids[(i + 1) % n]}" for i in range(n)]
             + [f"{ids[(i + 1) % n]} {ids[i]}" for i in range(n)])
    header = f"{n} {len(lines)}" if header is None else header
    return _write(tmp_path, name, comment + header + "\n" + "\n".join(lines) + "\n")


def test_a_first_line_of_counts_is_read_with_a_warning(tmp_path):
    p = _counts_file(tmp_path)
    g, said = _read(p)
    assert g.n == 62 and g.m == 61  # read as an edge: it may be one
    assert len(said) == 1
    text = said[0]
    assert text.startswith(f"{p}, line 1: the first line '60 120'")
    assert "header of counts 'n m'" in text and "comment it out with '#'" in text


@pytest.mark.parametrize("header", ["61 60",  # m counted as undirected edges (distinct pairs)
                                    "64 118"])  # n an upper bound, m within 5%
def test_count_headers_of_either_convention_warn(tmp_path, header):
    _, said = _read(_counts_file(tmp_path, header=header))
    assert len(said) == 1 and "header of counts" in said[0]


def test_the_warning_names_the_line_after_comments(tmp_path):
    p = _counts_file(tmp_path, comment="# an edge list\n# of a cycle\n")
    _, said = _read(p)
    assert len(said) == 1 and ", line 3: the first line" in said[0]


def test_a_commented_out_count_line_is_silent(tmp_path):
    g, said = _read(_counts_file(tmp_path, header="# 60 120"))
    assert said == [] and g.n == 60


@pytest.mark.parametrize("header", ["1000 1001",  # ids that occur again: an edge
                                    "1000 120",  # one of them occurs again
                                    "500 600",  # on no other line, but not the counts
                                    "30 120",  # fewer 'nodes' than the file has
                                    "60 200"])  # 'lines' far from the count
def test_first_lines_that_are_not_counts_stay_silent(tmp_path, header):
    _, said = _read(_counts_file(tmp_path, header=header, offset=1000))
    assert said == []


def test_the_offset_file_with_its_counts_warns(tmp_path):  # (the negative cases' control)
    _, said = _read(_counts_file(tmp_path, offset=1000))
    assert len(said) == 1


def test_ids_read_as_strings_warn_too(tmp_path):
    _, said = _read(_counts_file(tmp_path), ids="str")
    assert len(said) == 1 and "header of counts" in said[0]


def test_the_streamed_reader_warns_too(tmp_path, monkeypatch):
    import dpgraph.io.base as base
    from dpgraph.io import stream

    monkeypatch.setattr(base, "ARROW_MIN_BYTES", 0)  # every file takes the large-file path
    streamed = []
    original = stream.read_edge_stream

    def spy(*args, **kw):
        data = original(*args, **kw)
        streamed.append(data is not None)
        return data

    monkeypatch.setattr(stream, "read_edge_stream", spy)
    for name, text in (("simple.txt", "5 4\n0 1\n1 2\n2 3\n3 0\n"),  # pyarrow's CSR
                       ("repeats.txt", None)):  # both directions: the merging path
        p = _write(tmp_path, name, text) if text else _counts_file(tmp_path, name)
        _, said = _read(p)
        assert len(said) == 1 and "header of counts" in said[0], name
    assert streamed == [True, True]


def _shared():
    found = sorted(glob.glob("/work/shared/datasets/social/*.txt")
                   + glob.glob("/work/shared/datasets/gset/*"))
    return found or [pytest.param(None, marks=pytest.mark.skip("no shared data sets here"))]


@pytest.mark.parametrize("path", _shared(), ids=lambda p: os.path.basename(p or "none"))
def test_the_shared_data_sets_are_silent(path):
    _, said = _read(path)  # (self-loop notes aside)
    assert not [text for text in said if "header" in text]


@pytest.mark.parametrize("text", [
    "protein1,protein2,combined_score\n9606.ENSP01,9606.ENSP02,900\n9606.ENSP02,9606.ENSP03,500\n",
    "user,friend\nu17,u42\nu42,u99\n",
])
def test_column_names_shaped_unlike_the_ids_stay_silent(tmp_path, text):
    """STRING's own header (protein1,protein2 above 9606.ENSP... ids) warned as a possible lost
    edge; a first row is told only where its names are shaped like the ids below it (or are
    ids below it)."""
    import warnings as _w

    from dpgraph.io import read_graph

    path = tmp_path / "g.csv"
    path.write_text(text)
    with _w.catch_warnings():
        _w.simplefilter("error")
        g = read_graph(path, **({"weight": "combined_score"} if "combined" in text else {}))
    assert g.n == 3
