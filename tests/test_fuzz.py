"""Fuzzing of every reader and of the public API's argument checks (docs/audit.md).

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


# --- Pajek: NetworkX's parser ran shlex on every line; 200,000 'e 1 2' lines took
# over 5 s under load. dpgraph parses Pajek itself now, agreeing with networkx.read_pajek.

_PAJEK_SLOW_HEAD = (b"*vertices 6\n1 1 0.0 0.0 ellipse\n2 2 0.0 0.0 ellipse\n3 3 0.0 0.0 ellipse\n"
                    b"4 4 0.0 0.0 ellipse\n5 5 0.0 0.0 ellipse\n6 6 0.0 0.0 ellipse\n*edges\n"
                    b"1 2 1.0\n1 3 1.0\n2 3 2.0\n3 4 5.0\n")


def test_pajek_many_edge_lines_regression(tmp_path, monkeypatch):
    """The fuzzed input that hung: read without shlex (it is only for lines with quotes) and
    with NetworkX's meaning: '6 1 2' is an edge from vertex '6' to vertex '1', weight 2. Its
    'e 1 2' lines (an edge from a vertex *vertices does not declare, which NetworkX adds) are
    refused at the first, with its line."""
    import shlex

    from dpgraph.io import read_graph

    def no_shlex(*args, **kwargs):
        raise AssertionError("shlex used on a line without quotes")

    monkeypatch.setattr(shlex, "split", no_shlex)
    p = tmp_path / "slow.net"
    p.write_bytes(_PAJEK_SLOW_HEAD + b"6 1 2\n" * 200_000)
    from dpgraph.graph import DuplicateEdgeWarning
    from dpgraph.io import GraphFormatError

    with pytest.warns(DuplicateEdgeWarning, match="summed the weights of 199,999 repeated"):
        g = read_graph(p, duplicates="sum")
    assert g.labels == ("1", "2", "3", "4", "5", "6") and g.m == 5
    i, j = g.labels.index("6"), g.labels.index("1")
    assert g.weights[i, j] == 400_000.0
    p.write_bytes(_PAJEK_SLOW_HEAD + b"e 1 2\n" * 200_000)
    with pytest.raises(GraphFormatError, match="vertex 'e' is neither") as err:
        read_graph(p, duplicates="sum")
    assert err.value.line == 13


def test_pajek_huge_vertex_count_is_checked_against_the_file(tmp_path):
    from dpgraph.io import GraphFormatError, read_graph

    p = tmp_path / "huge.net"
    p.write_bytes(b"*Vertices 99999999999999999999\n1 a\n*Edges\n1 1\n")
    with pytest.raises(GraphFormatError, match="line 1.*only 3 lines left"):
        read_graph(p)


_PAJEK_VALID = [
    '*Vertices 3\n1 "a b" 0.1 0.2 box\n2 "c"\n3 d\n*Edges\n1 2 2.5\n2 3\n1 2 0.5\n3 3 1\n',
    '*Network x\n*Vertices 3\n1 "it\'s"\n2 b ic Red\n3 c\n*Edges\n1 2 1 c Blue\n2 3 3 w 7\n',
    '*Vertices 3\n1 a\n2 b\n3 c\n*Arcs\n1 2 1.0\n2 1 3.0\n2 3 2.0\n',
    '*Vertices 3\n1 a\n2 b\n3 c\n*Matrix\n0 1 0\n1 0 2\n0 2 0\n',
    '*Vertices 3\n1 a\n2 b\n3 c\n*Edges\n1 2 x\na b 2\nb\tc\r\n\n',
    '*Vertices 2\n1 a\n2 b\n*Edges\n1 2 0\n1 2 1e3\n',
]


@pytest.mark.parametrize("text", _PAJEK_VALID)
@pytest.mark.parametrize("weight", ["weight", "w", None])
@pytest.mark.parametrize("duplicates", ["max", "sum"])
@pytest.mark.filterwarnings("ignore::dpgraph.graph.GraphInputWarning")  # the readers' notes
def test_pajek_agrees_with_networkx(tmp_path, text, weight, duplicates):
    """Independent reference: networkx.read_pajek (a multigraph), converted by as_graph_data
    with the same rule for parallel edges."""
    import io

    import networkx as nx

    from dpgraph.graph import as_graph_data
    from dpgraph.io import read_graph

    from dpgraph.io import GraphFormatError

    p = tmp_path / "g.net"
    p.write_text(text, encoding="utf-8")
    if weight == "w" and " w " not in text:  # NetworkX reads every edge as 1; refused here
        with pytest.raises(GraphFormatError, match="no edge has the attribute weight='w'"):
            read_graph(p, symmetrize="sum", weight=weight, duplicates=duplicates)
        return
    ref = as_graph_data(nx.read_pajek(io.BytesIO(text.encode())), weight=weight,
                        symmetrize="sum", duplicates=duplicates)
    got = read_graph(p, symmetrize="sum", weight=weight, duplicates=duplicates)
    assert got.labels == ref.labels
    assert (got.weights != ref.weights).nnz == 0
