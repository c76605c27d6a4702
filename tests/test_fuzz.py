"""Fuzzing of every reader and of the public API's argument checks (issue 17; docs/audit.md).

The default suite runs a small derandomized fuzz (fixed examples, no database); the 10,000-input
runs per reader are marked slow (``benchmarks/fuzz_readers.py`` prints the counts).
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_api import CASES, bad_values, check_call
from fuzz_inputs import READERS, check_reader, fuzzed_file


def _settings(n):
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("reader", list(READERS))
def test_readers_raise_only_format_errors(tmp_path, reader):
    outcomes = []

    @_settings(25)
    @given(fuzzed_file(reader))
    def run(case):
        data, fmt = case
        outcomes.append(check_reader(reader, data, fmt, tmp_path))

    run()
    assert len(outcomes) >= 25


@pytest.mark.slow
@pytest.mark.parametrize("reader", list(READERS))
def test_readers_10000_inputs(tmp_path, reader):
    outcomes = []

    @_settings(10_000)
    @given(fuzzed_file(reader))
    def run(case):
        data, fmt = case
        outcomes.append(check_reader(reader, data, fmt, tmp_path))

    run()
    assert len(outcomes) >= 10_000


@pytest.mark.parametrize("case", list(CASES))
def test_api_argument_checks(case):
    arguments = CASES[case][2]
    outcomes = []

    @_settings(40)
    @given(st.sampled_from(arguments), bad_values())
    def run(argument, value):
        outcomes.append(check_call(case, argument, value))

    run()
    assert any(o != "ok" for o in outcomes)  # the bad values were refused somewhere


def test_check_reader_flags_an_escaping_exception(tmp_path, monkeypatch):
    """The harness itself can fail: an exception outside the contract is reported."""
    import fuzz_inputs

    def broken(path):
        raise KeyError("boom")

    monkeypatch.setattr(fuzz_inputs, "read_csp", broken)
    with pytest.raises(AssertionError, match="KeyError escaped"):
        check_reader("csp", b"p csp 1 1 0\n", "csp", tmp_path)


def test_check_reader_flags_a_message_without_the_file(tmp_path, monkeypatch):
    import fuzz_inputs

    def vague(path):
        raise ValueError("bad input")

    monkeypatch.setattr(fuzz_inputs, "read_csp", vague)
    with pytest.raises(AssertionError, match="does not name the file"):
        check_reader("csp", b"x", "csp", tmp_path)


@pytest.mark.parametrize("text, fragment", [
    (b"9999999999999 3\n1 2 1\n", "node count"),              # huge header: refused, not allocated
    (b"\xff\xfe1 2 1\n", "UTF-8"),                           # non-UTF-8
])
def test_gset_regressions(tmp_path, text, fragment):
    from dpgraph.io import GraphFormatError, read_graph

    p = tmp_path / "g.gset"
    p.write_bytes(text)
    with pytest.raises(GraphFormatError, match=fragment):
        read_graph(p)


def test_mtx_long_line_regression(tmp_path):
    """scipy's C++ reader crashed the interpreter on this body; now a GraphFormatError."""
    from dpgraph.io import GraphFormatError, read_graph

    p = tmp_path / "g.mtx"
    p.write_bytes(b"%%MatrixMarket matrix coordinate integer symmetric\n6 6 5\n2 1 1\n3 1 "
                  + b"2 1 " * 150 + b"\n3 2 2\n4 3 5\n5 4 1\n")
    with pytest.raises(GraphFormatError, match="line 4"):
        read_graph(p)


def test_snap_non_ascii_ids_keep_their_characters(tmp_path):
    from dpgraph.io import read_graph

    p = tmp_path / "g.txt"
    p.write_text("caf\u00e9 na\u00efve\nna\u00efve \U0001F600\n", encoding="utf-8")
    assert set(read_graph(p, format="snap").labels) == {"caf\u00e9", "na\u00efve", "\U0001F600"}
