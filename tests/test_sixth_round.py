"""A sixth newcomer's round: GML labels that NetworkX writes as the same text, the refusal of
a public node set that misses an isolated node, a pandas CSV file with its index column,
``max_2csp`` given a graph, ``PrivacyLedger.extend`` given a list, Clopper-Pearson bounds at a
level outside (0, 1) or a fractional count, and an infinite reference cut. Each test a defect
found and fixed.

In-process and small: each test runs in about a second or less.
"""

import math

import networkx as nx
import pytest

import dpgraph
from dpgraph.io import GraphFormatError, read_graph, write_graph

pytestmark = pytest.mark.usefixtures("quiet_seeds")


# ----------------------------------------------------------------------------- GML labels


@pytest.mark.parametrize("first, second", [
    ((1,), "(1)"),                  # a tuple is written "(" + ",".join(repr) + ")"
    (("a", "b"), "('a','b')"),
    (math.inf, "+INF"),             # a float as repr().upper(), infinity with a "+"
    ((), "()"),                     # the reader reads "()" back as the empty tuple
])
def test_gml_refuses_two_labels_networkx_writes_as_one(tmp_path, first, second):
    """``check_labels_storable`` compared ``str(label)``, but NetworkX's GML writer writes
    tuples and floats otherwise: ``(1,)`` and ``"(1)"`` were written as the same label, and
    ``read_graph`` refused the file ``write_graph`` had just written."""
    G = nx.Graph([(first, second), (second, "z")])
    # independent: NetworkX's own writer and reader cannot round-trip these two labels
    nx.write_gml(G, tmp_path / "nx.gml", stringizer=str)
    with pytest.raises(nx.NetworkXError, match="duplicated"):
        nx.read_gml(tmp_path / "nx.gml")
    path = tmp_path / "g.gml"
    with pytest.raises(ValueError) as info:
        write_graph(G, path)
    assert f"node labels {first!r} and {second!r}" in str(info.value)
    assert not path.exists()  # refused before the file is opened


@pytest.mark.parametrize("label, why", [(("é",), "not ASCII"), (('a"b',), "double quote"),
                                        ("[]", "empty list")])
def test_gml_refuses_a_label_its_writer_or_reader_cannot_take(tmp_path, label, why):
    """A tuple label whose text is not ASCII made NetworkX's writer fail (UnicodeEncodeError),
    one whose text holds a double quote gave a file no parser reads, and ``"[]"`` reads back
    as an unhashable list: each is refused before writing, naming the label."""
    with pytest.raises(ValueError, match=why) as info:
        write_graph(nx.Graph([(label, "z")]), tmp_path / "g.gml")
    assert repr(label) in str(info.value)


def test_gml_round_trip_of_tuple_float_and_string_labels(tmp_path):
    """Labels that NetworkX writes as distinct texts round-trip: ``read_graph`` gives back
    what NetworkX's own reader gives for a file NetworkX wrote (its text for tuples and
    floats, the strings as they are, ``"()"`` as the empty tuple), with the same edges."""
    G = nx.Graph([((0, 1), (1, 1)), (1e20, "1E+20"), ("()", "x"), ((1,), "(1,)"),
                  ("a&amp;b", (0, 1))])
    path = tmp_path / "g.gml"
    write_graph(G, path, weight=None)
    data = read_graph(path)
    nx.write_gml(G, tmp_path / "nx.gml", stringizer=str)
    H = nx.read_gml(tmp_path / "nx.gml")
    assert set(data.labels) == set(H.nodes)
    assert {"1.E+20", "1E+20", "(0,1)", "(1)", "(1,)", (), "a&amp;b"} <= set(data.labels)
    got = {frozenset((data.labels[i], data.labels[j]))
           for i, j in zip(*data.weights.nonzero()) if i < j}
    assert got == {frozenset(e) for e in H.edges()}


# ----------------------------------------------------------------------------- public node set


def test_node_set_refusal_says_isolated_for_a_node_without_an_edge(tmp_path):
    """``read_graph(g.graphml, nodes=...)`` said "node(s) with an edge are not in nodes" of a
    GraphML node that has no edge; the refusal now counts each kind as it is."""
    G = nx.Graph([("a", "b"), ("b", "c")])
    G.add_node("z")
    path = tmp_path / "g.graphml"
    nx.write_graphml(G, path)
    with pytest.raises(ValueError) as info:
        read_graph(path, nodes=["a", "b", "c"])
    text = str(info.value)
    assert "1 isolated node(s)" in text and "e.g. 'z'" in text and "with an edge" not in text
    with pytest.raises(ValueError, match=r"2 node\(s\) of the graph \(1 with an edge, 1 "
                                         r"isolated\) are not in nodes, e\.g\. 'c'"):
        read_graph(path, nodes=["a", "b"])
    with pytest.raises(ValueError, match=r"1 node\(s\) with an edge are not in nodes, e\.g\. 'c'"):
        read_graph(path, nodes=["a", "b", "z"])


# ----------------------------------------------------------------------------- CSV index column


def test_csv_with_a_pandas_index_column_names_index_false(tmp_path):
    """A ``DataFrame.to_csv`` file with its index (header ``,source,target``) was refused as
    "an empty column name" with no hint; the hint names ``index=False``, and the file written
    so reads."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"source": [0, 1, 2], "target": [1, 2, 0]})
    frame.to_csv(tmp_path / "indexed.csv")
    with pytest.raises(GraphFormatError, match=r"an empty column name \(pandas.*index=False"):
        read_graph(tmp_path / "indexed.csv")
    frame.to_csv(tmp_path / "plain.csv", index=False)
    assert read_graph(tmp_path / "plain.csv").m == 3


# ----------------------------------------------------------------------------- max_2csp


@pytest.mark.parametrize("graph", [nx.karate_club_graph(),
                                   dpgraph.as_graph_data(nx.karate_club_graph())])
def test_max_2csp_of_a_graph_points_to_max_k_cut_instance(graph):
    """``max_2csp(G)`` of a graph said only "must be a CSPInstance, got Graph"."""
    with pytest.raises(TypeError, match=r"max_k_cut_instance\(graph, k\)"):
        dpgraph.max_2csp(graph, epsilon=1.0, delta=1e-6)
    with pytest.raises(TypeError) as info:  # not a graph: no such hint
        dpgraph.max_2csp(3, epsilon=1.0, delta=1e-6)
    assert "max_k_cut_instance" not in str(info.value)


# ----------------------------------------------------------------------------- ledger


def test_ledger_extend_refuses_a_list_with_a_type_error_saying_what_it_takes():
    """``PrivacyLedger.extend([ledger])`` raised "AttributeError: 'list' object has no
    attribute 'entries'"."""
    from dpgraph.privacy import PrivacyLedger

    total, part = PrivacyLedger(epsilon=1.0), PrivacyLedger()
    part.charge("count", mechanism="laplace", epsilon=0.25)
    with pytest.raises(TypeError, match=r"takes one PrivacyLedger .*got list; call extend "
                                        r"once per ledger"):
        total.extend([part])
    with pytest.raises(TypeError, match="got tuple; pass the ledger that holds these entries"):
        total.extend(part.entries)
    assert total.entries == ()  # nothing recorded
    total.extend(part)
    assert total.spent == (0.25, 0.0)


# ----------------------------------------------------------------------------- Clopper-Pearson


@pytest.mark.parametrize("k, n, level, name", [
    (50, 100, 2, "level"), (50, 100, 0, "level"), (50, 100, 1.0, "level"),
    (50, 100, math.nan, "level"), (50.5, 100, 0.95, "k"), (101, 100, 0.95, "k"),
    (-1, 100, 0.95, "k"), (5, 0, 0.95, "n"), (5, 10.5, 0.95, "n")])
def test_clopper_pearson_refuses_a_level_outside_0_1_and_fractional_counts(k, n, level, name):
    """``clopper_pearson_lower(50, 100, 2)`` returned NaN and ``k=50.5`` was truncated to 50."""
    from dpgraph.lab.audit import clopper_pearson_lower, clopper_pearson_upper

    for bound in (clopper_pearson_lower, clopper_pearson_upper):
        with pytest.raises(ValueError, match=rf"^{name} "):
            bound(k, n, level)


def test_clopper_pearson_takes_whole_float_counts_as_integers():
    from dpgraph.lab.audit import clopper_pearson_lower

    assert clopper_pearson_lower(50.0, 100.0, 0.975) == clopper_pearson_lower(50, 100, 0.975)


# ----------------------------------------------------------------------------- transfer ratio


def test_transfer_ratio_refuses_an_infinite_reference():
    """``transfer_ratio(G, partition, inf)`` returned 0.0, a ratio no partition has."""
    from dpgraph.lab.evaluate import synthetic_report, transfer_ratio

    P = nx.path_graph(4)
    parts = ({0, 2}, {1, 3})
    with pytest.raises(ValueError, match="reference_value must be finite, got inf"):
        transfer_ratio(P, parts, math.inf)
    for bad in (0, -1.0, math.nan, -math.inf):
        with pytest.raises(ValueError, match="reference_value must be > 0"):
            transfer_ratio(P, parts, bad)
    with pytest.raises(TypeError, match="reference_value must be a finite number"):
        transfer_ratio(P, parts, "3")
    assert transfer_ratio(P, parts, 3.0) == 1.0
    with pytest.raises(ValueError, match="reference_cut must be finite, got inf"):
        synthetic_report(nx.path_graph(6), nx.path_graph(6), reference_cut=math.inf)
