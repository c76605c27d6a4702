"""read_edge_files against read_graph on the same CSV files: comment lines (before the header
row, in the middle, at the end), node ids under ids="auto" | "str" | "int" (leading zeros, a
'# ids: str' line, quoted ids), several files that differ in both, and the command line's --ids
on Dask edge files. read_graph is the reference: the Dask reader reads what it reads, into the
same labels and edges, and refuses what it refuses, naming the same line."""

import re
import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")

import dask  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from dpgraph.io import GraphFormatError, read_graph  # noqa: E402
from dpgraph.io.dask import read_edge_files  # noqa: E402


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _graph(g):
    """``(labels, {(label, label, weight)})`` of a GraphData or a DaskGraph: what a reader
    returns, independent of the node order of the edge list."""
    data = g.to_graph_data() if hasattr(g, "to_graph_data") else g
    labels = tuple(data.labels)
    i, j, w = data.edges()
    return labels, {(labels[a], labels[b], float(c)) for a, b, c in zip(i, j, w)}


def _read_both(folder, name, text, **kw):
    """Write ``text`` to ``folder/name`` and read it with both readers (warnings kept quiet)."""
    (folder / name).write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_graph(folder / name, **kw), read_edge_files(folder, **kw)


# ----------------------------------------------------------------------------- comment lines

@pytest.mark.parametrize("text", [
    "# an edge list\nu,v\n0,1\n1,2\n",
    "# an edge list\n# of three nodes\n\nu,v\n0,1\n1,2\n",
    '# a "quoted word, and a comma\nu,v,weight\n0,1,0.5\n1,2,0.25\n',
    "\n\n# ids: int\nsource,target\n5,6\n6,7\n",
    "# names\nu,v\nalice,bob\nbob,carol\n",
])
def test_comment_lines_before_the_header_row_are_skipped_as_read_graph_skips_them(tmp_path,
                                                                                   text):
    """'#' lines (and blank lines) before the header row were refused ("the first line of
    the edge files is a comment"): read_graph skips them, and the Dask reader reads the same
    graph."""
    ref, got = _read_both(tmp_path, "e.csv", text)
    assert _graph(got) == _graph(ref)


@pytest.mark.parametrize("text, line", [
    ("u,v\n0,1\n# a note\n1,2\n", 3),                 # in the middle
    ("u,v\n0,1\n1,2\n# the end\n", 4),                # at the end
    ("u,v\n0,1\n# a note, with a comma\n1,2\n", 3),   # two fields: '# a note' was an id
])
def test_comment_lines_after_the_header_row_are_refused_as_read_graph_refuses_them(tmp_path,
                                                                                   text, line):
    """A '#' line after the header row is no comment to read_graph (it refuses it, naming the
    line); the Dask reader read '# a note, with a comma' as an edge between two new nodes
    '# a note' and ' with a comma', turning every id into a string. Both refuse it now,
    naming the same line."""
    (tmp_path / "e.csv").write_text(text)
    with pytest.raises(GraphFormatError, match=f"e.csv, line {line}: "):
        read_graph(tmp_path / "e.csv")
    with pytest.raises(ValueError, match=f"e.csv, line {line}: .*'# a note|e.csv, line {line}: "
                                         f".*'# the end"):
        read_edge_files(tmp_path)


@pytest.fixture
def small_dask_blocks(monkeypatch):
    """dask's CSV reader splitting files into 64-byte blocks, standing in for 64 MB ones."""
    read_csv = dd.read_csv

    def small_blocks(*args, **kw):
        if kw.get("blocksize"):
            kw["blocksize"] = 64
        return read_csv(*args, **kw)

    monkeypatch.setattr(dd, "read_csv", small_blocks)


def test_a_hash_inside_a_field_is_part_of_the_id_and_trailing_text_is_no_comment(tmp_path):
    """pandas' comment='#' would cut 'a#1' to 'a' and '2 # x' to '2': neither reader does."""
    ref, got = _read_both(tmp_path, "e.csv", "u,v\na#1,b\nb,c#2\n")
    assert _graph(got) == _graph(ref) and "a#1" in _graph(got)[0]
    (tmp_path / "e.csv").write_text("u,v\n0,1 # friends\n1,2\n")
    with pytest.raises(GraphFormatError, match="e.csv, line 2: "):
        read_graph(tmp_path / "e.csv")
    with pytest.raises(ValueError, match=re.escape("e.csv, line 2: '1 # friends' is not an "
                                                   "integer node id")):
        read_edge_files(tmp_path)


def test_a_percent_line_is_no_comment_in_either_reader(tmp_path):
    (tmp_path / "e.csv").write_text("% edges\nu,v\n0,1\n")
    with pytest.raises(GraphFormatError, match="e.csv, line 1"):
        read_graph(tmp_path / "e.csv")
    with pytest.raises(ValueError, match=r"e.csv, line 1: '% edges' stands where the header"):
        read_edge_files(tmp_path)


@pytest.mark.parametrize("text", ["0,1\n1,2\n2,3\n", "#u,v\n0,1\n1,2\n"])
def test_a_first_row_of_numbers_is_refused_as_read_graph_refuses_it(tmp_path, text):
    """A file without a header row (or whose header row is commented out) lost its first
    edge, read as the column names '0' and '1' (node 0 vanished); read_graph refuses it."""
    (tmp_path / "e.csv").write_text(text)
    line = text.count("\n", 0, text.index("0,1")) + 1
    with pytest.raises(GraphFormatError, match=f"e.csv, line {line}: the first row holds "
                                               f"numbers"):
        read_graph(tmp_path / "e.csv")
    with pytest.raises(ValueError, match=f"e.csv, line {line}: the first row '0,1' holds "
                                         f"numbers, not column names"):
        read_edge_files(tmp_path)


# ----------------------------------------------------------------------------- node ids

LEADING_ZEROS = "u,v\n007,010\n010,1\n1,007\n"


@pytest.mark.parametrize("text, ids, labels", [
    (LEADING_ZEROS, "str", ("007", "010", "1")),
    (LEADING_ZEROS, "auto", (1, 7, 10)),
    (LEADING_ZEROS, "int", (1, 7, 10)),
    ("# ids: str\n" + LEADING_ZEROS, "auto", ("007", "010", "1")),   # write_snap's line
    ("# ids: str\n" + LEADING_ZEROS, "int", (1, 7, 10)),             # the argument wins
    ('u,v\n"007","010"\n"010","1"\n"1","007"\n', "auto", ("007", "010", "1")),  # write_csv's
    ('"u","v"\n"007","010"\n"010","1"\n"1","007"\n', "auto", (1, 7, 10)),  # pandas QUOTE_ALL
    ("u,v,weight\nNA,null,0.5\nnull, x ,1\n", "auto", ("NA", "null", "x")),
    ("u,v,weight\nNA,null,0.5\n007, x ,1\n", "str", ("007", "NA", "null", "x")),
])
def test_ids_are_read_as_read_graph_reads_them(tmp_path, text, ids, labels):
    """read_edge_files had no ids= and read '007' as 7 whatever the file said; 'NA' and
    'null' were missing ids, and ' x' a node apart from 'x'."""
    ref, got = _read_both(tmp_path, "e.csv", text, ids=ids)
    assert _graph(ref)[0] == labels
    assert _graph(got) == _graph(ref)


@pytest.mark.parametrize("text, ids, line, token", [
    ("u,v\n0,1\n1,x\n", "auto", 3, "x"),
    ("u,v\n0,1\n1,2\ny,x\n", "auto", 4, "y"),   # two names on a row: both columns strings
    ("u,v\nalice,bob\n", "int", 2, "alice"),
    ("u,v\n0,1\n1,2.0\n", "int", 3, "2.0"),
])
def test_ids_of_the_wrong_kind_are_refused_naming_the_line(tmp_path, text, ids, line, token):
    """A name among integer ids (ids="auto" decided by the first edge row) or any non-integer
    under ids="int" is refused by read_graph with its line; the Dask reader read 'y,x' among
    integers as four string nodes '0', '1', '2', 'x', 'y'."""
    (tmp_path / "e.csv").write_text(text)
    with pytest.raises(GraphFormatError, match=f"e.csv, line {line}: .*{re.escape(token)}"):
        read_graph(tmp_path / "e.csv", ids=ids)
    with pytest.raises(ValueError, match=f"e.csv, line {line}: {re.escape(repr(token))} is not "
                                         f"an integer node id"):
        read_edge_files(tmp_path, ids=ids)


# ----------------------------------------------------------------------------- several files

def test_files_with_different_comment_lines_and_declarations_read_as_one_edge_list(tmp_path):
    """Files with 0, 1 and 3 comment lines before their header rows (one reader per run of
    files that skip as many lines), one of them declaring '# ids: str': every id is a name,
    as read_graph reads the files put together under the declaring file's head."""
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "p0.csv").write_text("u,v,weight\n001,002,0.5\n002,003,1\n")
    (folder / "p1.csv").write_text("# ids: str\nu,v,weight\n003,004,0.25\n")
    (folder / "p2.csv").write_text("# part 2\n# of 3\n\nu,v,weight\n004,001,1\n010,1,0.5\n")
    (tmp_path / "all.csv").write_text("# ids: str\nu,v,weight\n001,002,0.5\n002,003,1\n"
                                      "003,004,0.25\n004,001,1\n010,1,0.5\n")
    got, ref = read_edge_files(folder), read_graph(tmp_path / "all.csv")
    assert _graph(ref)[0] == ("001", "002", "003", "004", "010", "1")
    assert _graph(got) == _graph(ref)
    # without the declaration the same ids are integers in both readers
    (folder / "p1.csv").write_text("# a comment\nu,v,weight\n003,004,0.25\n")
    (tmp_path / "all.csv").write_text((tmp_path / "all.csv").read_text()[len("# ids: str\n"):])
    got, ref = read_edge_files(folder), read_graph(tmp_path / "all.csv")
    assert _graph(ref)[0] == (1, 2, 3, 4, 10)
    assert _graph(got) == _graph(ref)


def test_later_blocks_of_a_file_after_comment_lines_keep_the_header(tmp_path,
                                                                    small_dask_blocks):
    """dask splits a large file into blocks and prepends the header row to every block but
    the first: with comment lines before it, the header row is the line after them (not the
    first line), in files of different heads. Small blocks stand in for 64 MB ones."""
    rng = np.random.default_rng(5)
    rows = [f"{a},{b},{w}" for a, b, w in zip(rng.integers(0, 40, 200), rng.integers(0, 40, 200),
                                              rng.choice([0.25, 0.5, 1.0], 200))]
    (tmp_path / "p0.csv").write_text("# first\n# file\nu,v,weight\n" + "\n".join(rows[:120]) + "\n")
    (tmp_path / "p1.csv").write_text("u,v,weight\n" + "\n".join(rows[120:]) + "\n")
    (tmp_path / "all.txt").write_text("u,v,weight\n" + "\n".join(rows) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = read_edge_files(tmp_path / "p*.csv")
        ref = read_graph(tmp_path / "all.txt", format="csv")
    assert got.to_graph_data().weights.nnz and _graph(got) == _graph(ref)


def test_files_declaring_different_id_rules_are_refused(tmp_path):
    (tmp_path / "p0.csv").write_text("# ids: int\nu,v\n1,2\n")
    (tmp_path / "p1.csv").write_text('u,v\n"007","2"\n')
    with pytest.raises(ValueError, match=r"p1.csv names its ids .* p0.csv declares '# ids: int'"):
        read_edge_files(tmp_path)


def test_a_name_in_a_later_file_of_integer_ids_is_named(tmp_path):
    """Integer ids in one file and names in another failed with "node ids are not of one type
    across partitions", naming no file or line."""
    (tmp_path / "p0.csv").write_text("u,v\n0,1\n1,2\n")
    (tmp_path / "p1.csv").write_text("# more\nu,v\n2,3\n3,carol\n")
    with pytest.raises(ValueError, match=r"p1.csv, line 4: 'carol' is not an integer node id.*"
                                         r"first edge row, p0.csv line 2"):
        read_edge_files(tmp_path)
    assert read_edge_files(tmp_path, ids="str").labels == ("0", "1", "2", "3", "carol")


# ----------------------------------------------------------------------------- Parquet

def test_parquet_ids_follow_the_stored_type_and_ids_str_reads_integers_as_digits(tmp_path):
    """ids= on Parquet: "auto" keeps the stored type; "str" reads integer columns as their
    digits (as read_graph reads the same ids from text with ids="str"); "int" refuses a string
    column, naming the file and the column."""
    pq.write_table(pa.table({"u": [7, 10], "v": [10, 1]}), tmp_path / "a.parquet")
    (tmp_path / "ref.csv").write_text("u,v\n7,10\n10,1\n")
    assert read_edge_files(tmp_path / "*.parquet").labels == (1, 7, 10)
    got = read_edge_files(tmp_path / "*.parquet", ids="str")
    assert _graph(got) == _graph(read_graph(tmp_path / "ref.csv", ids="str"))
    pq.write_table(pa.table({"u": ["007", "x"], "v": ["x", "1"]}), tmp_path / "b.parquet")
    assert read_edge_files(tmp_path / "b.parquet", ids="str").labels == ("007", "1", "x")
    with pytest.raises(ValueError, match=r"b.parquet: column 'u' holds node ids of type string; "
                                         r"ids='int' reads integer columns"):
        read_edge_files(tmp_path / "b.parquet", ids="int")
    pq.write_table(pa.table({"u": [1.5], "v": [2.0]}), tmp_path / "c.parquet")
    with pytest.raises(ValueError, match=r"c.parquet: column 'u' holds node ids of type double"):
        read_edge_files(tmp_path / "c.parquet", ids="str")


def test_ids_str_on_parquet_keeps_a_missing_id_missing(tmp_path):
    """An integer column with a missing value (read as floats): the digits of the integers,
    and the missing id refused as missing, not read as a node 'None' or 'nan'."""
    pq.write_table(pa.table({"u": pa.array([1, None], pa.int64()), "v": [2, 3]}),
                   tmp_path / "a.parquet")
    with pytest.raises(ValueError, match="missing node ids"):
        read_edge_files(tmp_path / "a.parquet", ids="str")


# ----------------------------------------------------------------------------- command line

def test_cli_ids_reaches_the_dask_reader_and_weight_finds_the_header_after_comments(
        tmp_path, capsys, monkeypatch):
    """--ids was refused on Dask edge files ("--ids applies to graph files"), and --weight read
    a first comment line as the header row ("has no column 'w'"). (The command's local Dask
    cluster is left out: the synchronous scheduler reads the files.)"""
    import contextlib
    import json

    from dpgraph.cli import app
    from dpgraph.cli.app import main

    monkeypatch.setattr(app, "dask_session", lambda args: contextlib.nullcontext())

    (tmp_path / "e.csv").write_text("# ids: str\nu,v,w\n007,7,0.5\n7,8,1\n")
    argv = ["info", str(tmp_path / "*.csv"), "--weight", "w", "--json", "-q"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 3        # '007', '7', '8'
    assert main(argv + ["--ids", "int"]) == 0                       # 007 is 7: a self-loop
    assert json.loads(capsys.readouterr().out)["nodes"] == 2
    assert main(["info", str(tmp_path / "e.csv"), "--ids", "int", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 2        # read_graph: the same


def test_files_listing_their_columns_in_another_order_are_refused(tmp_path,
                                                                  small_dask_blocks):
    """dask reads every block after a file's first under the FIRST file's header row, so a
    second file written ``u,weight,v`` had its later blocks' weight and v columns swapped
    (integer weights: silently; small blocks stand in for 64 MB ones). Refused, naming both."""
    (tmp_path / "p0.csv").write_text("u,v,weight\n1,2,1\n2,3,1\n")
    (tmp_path / "p1.csv").write_text("u,weight,v\n" + "".join(f"{k},1,{k + 1}\n"
                                                               for k in range(3, 40)))
    with pytest.raises(ValueError, match=r"different orders: p0.csv has \['u', 'v', 'weight'\], "
                                         r"p1.csv has \['u', 'weight', 'v'\]"):
        read_edge_files(tmp_path / "p*.csv")
