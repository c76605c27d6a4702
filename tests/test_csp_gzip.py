"""``read_csp`` / ``read_wcnf`` read gzip-compressed files as ``read_graph`` does: told from the
content, a ``.gz`` name stripped before the format is read from the extension, a warning naming
a ``.gz`` file that is not gzip, and errors still naming the file and the line."""

import gzip
import warnings

import networkx as nx
import pytest

import dpgraph
from dpgraph.engine import max_k_cut_instance, read_wcnf, write_csp


def _gzip(src, dst):
    dst.write_bytes(gzip.compress(src.read_bytes()))
    return dst


def _same(a, b):
    assert (a.n, a.q, a.m) == (b.n, b.q, b.m)
    assert a.constraints == b.constraints


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_a_gzipped_csp_file_reads_as_the_plain_one(tmp_path, no_warnings):
    """read_csp("x.csp.gz") failed: 'line 1: not UTF-8 text (invalid start byte ...)'."""
    inst = max_k_cut_instance(nx.petersen_graph(), 3)
    plain = tmp_path / "x.csp"
    write_csp(inst, plain)
    gz = _gzip(plain, tmp_path / "x.csp.gz")
    _same(dpgraph.read_csp(plain), inst)
    _same(dpgraph.read_csp(gz), inst)
    _same(dpgraph.read_csp(str(gz), "csp"), inst)
    # told from the content, not the name
    unnamed = _gzip(plain, tmp_path / "y.csp")
    _same(dpgraph.read_csp(unnamed), inst)
    assert dpgraph.read_csp(gz).source[0] == str(gz)


@pytest.mark.parametrize("name, text", [
    ("x.wcnf", "p wcnf 3 3 10\n3 1 -2 0\n1 2 3 0\n2 -3 0\n"),
    ("x.cnf", "p cnf 3 2\n1 -2 0\n-1 3 0\n"),
    ("y.wcnf", "c 2022 format\n2 1 -2 0\n1 3 0\n"),
])
def test_a_gzipped_cnf_or_wcnf_file_reads_as_the_plain_one(tmp_path, no_warnings, name, text):
    """read_csp("x.wcnf.gz") took it for the csp format and read_wcnf failed on the gzip
    bytes; now the format comes from the name without .gz and the content is decompressed."""
    plain = tmp_path / name
    plain.write_text(text)
    gz = _gzip(plain, tmp_path / (name + ".gz"))
    want = dpgraph.read_csp(plain)
    _same(dpgraph.read_csp(gz), want)
    _same(read_wcnf(gz), want)
    _same(read_wcnf(gz, variables=3), read_wcnf(plain, variables=3))


def test_a_gz_file_that_is_not_gzip_is_read_with_a_warning_naming_it(tmp_path):
    inst = max_k_cut_instance(nx.cycle_graph(5), 2)
    wrong = tmp_path / "x.csp.gz"
    write_csp(inst, wrong)  # plain text under a .gz name
    with pytest.warns(dpgraph.GraphInputWarning, match=r"x\.csp\.gz: named \.gz but not gzip"):
        _same(dpgraph.read_csp(wrong), inst)
    wcnf = tmp_path / "x.wcnf.gz"
    wcnf.write_text("p wcnf 2 1 10\n3 1 -2 0\n")
    with pytest.warns(dpgraph.GraphInputWarning, match=r"x\.wcnf\.gz: named \.gz but not gzip"):
        assert dpgraph.read_csp(wcnf).m == 1
    # the warning points at the caller's line, not inside dpgraph
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpgraph.read_csp(wrong)
    assert [w.filename for w in caught] == [__file__]


def test_errors_in_a_gzipped_file_name_the_file_and_the_line(tmp_path):
    bad = tmp_path / "bad.csp"
    bad.write_text("p csp 3 2 2\nc 0 1 1.0 0,1\nc 0 1 x 1,0\n")
    gz = _gzip(bad, tmp_path / "bad.csp.gz")
    with pytest.raises(ValueError, match=r"bad\.csp\.gz, line 3: could not parse"):
        dpgraph.read_csp(gz)
    wbad = tmp_path / "bad.wcnf"
    wbad.write_text("p wcnf 3 2 10\n1 1 -2 0\n1 1 2 3 0\n")
    wgz = _gzip(wbad, tmp_path / "bad.wcnf.gz")
    with pytest.raises(ValueError, match=r"bad\.wcnf\.gz, line 3: clause of length 3"):
        dpgraph.read_csp(wgz)
    # not UTF-8 inside the compressed stream
    enc = tmp_path / "enc.csp.gz"
    enc.write_bytes(gzip.compress(b"p csp 2 2 1\nc 0 1 1.0 0,1 # caf\xe9\n"))
    with pytest.raises(ValueError, match=r"enc\.csp\.gz, line 2: not UTF-8"):
        dpgraph.read_csp(enc)


def test_a_truncated_gzip_file_names_the_file_and_the_line(tmp_path):
    inst = max_k_cut_instance(nx.complete_graph(40), 3)
    plain = tmp_path / "big.csp"
    write_csp(inst, plain)
    data = gzip.compress(plain.read_bytes())
    cut = tmp_path / "cut.csp.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"cut\.csp\.gz, line \d+: the gzip-compressed file is "
                                         r"truncated or corrupted"):
        dpgraph.read_csp(cut)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF  # corrupted mid-stream (a CRC or a deflate error)
    bad = tmp_path / "bad.csp.gz"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match=r"bad\.csp\.gz, line \d+: the gzip-compressed file is "
                                         r"truncated or corrupted"):
        dpgraph.read_csp(bad)
    wcut = tmp_path / "cut.wcnf.gz"
    wcut.write_bytes(gzip.compress(("p wcnf 50 400 10\n" + "1 1 -2 0\n" * 400).encode())[:60])
    with pytest.raises(ValueError, match=r"cut\.wcnf\.gz, line \d+: the gzip-compressed file"):
        read_wcnf(wcut)


def test_the_command_reads_a_gzipped_wcnf_by_its_name_without_gz(tmp_path, capsys):
    """`dpgraph max2csp x.wcnf.gz` took the format from the whole name and read the file as
    csp ("--variables applies to --format cnf and wcnf only")."""
    import json

    from dpgraph.cli import app

    plain = tmp_path / "x.wcnf"
    plain.write_text("1 1 2 0\n1 -2 3 0\n1 3 4 0\n1 -1 4 0\n")
    gz = _gzip(plain, tmp_path / "x.wcnf.gz")
    code = app.main(["max2csp", str(gz), "--epsilon", "1", "--delta", "0", "--variables", "9",
                     "--quiet", "--json"])
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["instance"]["variables"] == 9
