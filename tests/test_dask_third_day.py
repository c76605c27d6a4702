"""Dask edge input, third pass: CSV weights typed from a sample, mixed gzip, integer ids of two
types, header spaces, many small partitions, and -o onto an input edge file."""

import gzip
import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402

from dpgraph.io import read_graph  # noqa: E402
from dpgraph.io.dask import from_dask, read_edge_files  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:the node set of a Dask DataFrame of edges")


def test_csv_weights_integer_in_the_first_file_fractional_later(tmp_path):
    """dask typed the weight column from the first file's first bytes (1, 1: int64) and a
    later 0.5 failed with "Mismatched dtypes", which no option of read_edge_files could mend."""
    (tmp_path / "p0.csv").write_text("u,v,weight\n0,1,1\n1,2,1\n")
    (tmp_path / "p1.csv").write_text("u,v,weight\n2,3,0.5\n3,0,0.25\n")
    with dask.config.set(scheduler="sync"):
        g = read_edge_files(tmp_path)
    assert g.m == 4 and g.degrees.tolist() == [1.25, 2.0, 1.5, 0.75]
    assert g.weight_range == (0.25, 1.0)


def test_csv_edge_files_mixing_gzip_and_plain_are_refused_naming_them(tmp_path):
    """The compression was the first file's for every file: a .csv.gz beside a .csv failed with
    "'utf-8' codec can't decode byte 0x8b" under "node ids of different types"."""
    (tmp_path / "p0.csv").write_text("u,v\n0,1\n1,2\n")
    with gzip.open(tmp_path / "p1.csv.gz", "wt") as fh:
        fh.write("u,v\n2,3\n")
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match=r"gzip-compressed \(p1\.csv\.gz\).*not \(p0\.csv\)"):
            read_edge_files(tmp_path)


def test_int64_and_uint64_ids_stay_integers(tmp_path):
    """int64 ids in one Parquet file and uint64 in another came back as float labels."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"u": pa.array([0, 1], pa.uint64()),
                             "v": pa.array([1, 2], pa.uint64())}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"u": pa.array([2], pa.int64()), "v": pa.array([3], pa.int64())}),
                   tmp_path / "b.parquet")
    with dask.config.set(scheduler="sync"):
        g = read_edge_files(tmp_path)
    assert list(g.labels) == [0, 1, 2, 3] and all(type(x) is int for x in g.labels)
    assert g.degrees.tolist() == [1.0, 2.0, 2.0, 1.0]


def test_csv_header_with_spaces_reads_the_weights_as_read_graph(tmp_path):
    """'u, v, weight': read_graph reads the weights; the Dask reader read every edge as weight
    1 (column ' weight' "not read")."""
    (tmp_path / "p0.csv").write_text("u, v, weight\n0, 1, 0.5\n1, 2, 0.25\n")
    ref = read_graph(tmp_path / "p0.csv")
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("error")
        g = read_edge_files(tmp_path)
    assert np.array_equal(g.degrees, ref.degrees) and g.weight_range == (0.25, 0.5)


def test_many_small_partitions_do_not_make_one_block_each():
    """One row block per input partition: each block read a slice of every partition's spill
    files, P^2 file opens (300 partitions of 1e5 edges: 20 s); the graph is the same."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"u": rng.integers(0, 500, 3000), "v": rng.integers(0, 500, 3000)})
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = from_dask(dd.from_pandas(df, npartitions=60))
        ref = from_dask(dd.from_pandas(df, npartitions=1))
    assert len(g.blocks) == 1
    assert g.labels == ref.labels and g.m == ref.m and np.array_equal(g.degrees, ref.degrees)


def test_cli_out_onto_an_input_edge_file_is_refused(tmp_path, capsys):
    """`dpgraph maxcut 'edges/*.csv' -o edges/p0.csv` overwrote an input edge file."""
    from dpgraph.cli.common import check_not_input

    edges = tmp_path / "edges"
    edges.mkdir()
    (edges / "p0.csv").write_text("u,v\n0,1\n1,2\n")
    (edges / "p1.csv").write_text("u,v\n2,3\n")
    for spec in (str(edges / "*.csv"), str(edges)):
        with pytest.raises(ValueError, match="is the input file"):
            check_not_input(str(edges / "p0.csv"), (spec, None), "-o")
    check_not_input(str(tmp_path / "other.csv"), (str(edges / "*.csv"),), "-o")


@pytest.mark.parametrize("row, says", [("6,7,8", "3 field(s) where the header has 2"),
                                       ("5", "1 field(s) where the header has 2")])
def test_a_malformed_csv_row_is_named_by_file_and_line(tmp_path, row, says):
    """A malformed row in one of several CSV edge files was reported as "the edge partitions
    are not consistent ... Error tokenizing data ... line 3" (or "missing node ids"), naming no
    file, with a line counted in dask's 64 MB chunk; the error now names the file and its line,
    as read_graph does."""
    (tmp_path / "p0.csv").write_text("u,v\n0,1\n1,2\n")
    (tmp_path / "p1.csv").write_text(f"u,v\n3,4\n{row}\n")
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError) as info:
        read_edge_files(tmp_path)
    assert f"p1.csv, line 3: {says}" in str(info.value)


def test_a_comment_first_line_is_skipped_and_a_percent_line_named(tmp_path):
    """A CSV edge file starting with '# edges' was refused with a hint to replace ' '
    separators by ','; its comment lines before the header row are skipped now, as read_graph
    skips them (tests/test_dask_parity.py compares the two), and a first line starting with
    '%', no comment in CSV files, is named as such."""
    (tmp_path / "p0.csv").write_text("# edges of the network\nu,v\n0,1\n1,2\n")
    g = read_edge_files(tmp_path)
    assert (g.labels, g.m) == (range(0, 3), 2)
    (tmp_path / "p1.csv").write_text("% edges\nu,v\n0,1\n")
    with pytest.raises(ValueError, match=r"p1.csv, line 1: '% edges' stands where the header "
                                         r"row belongs; in CSV edge files only lines starting "
                                         r"with '#' are comments"):
        read_edge_files(tmp_path)
