"""Property-based file round trips: graph -> write_graph -> read_graph keeps edges and weights
(and labels, in the formats that store them)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgraph.graph import GraphInputWarning, from_edges
from dpgraph.io import read_graph, write_graph

_weights = st.one_of(
    st.integers(-9, 9).filter(bool).map(float),
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_subnormal=False)
    .filter(lambda x: abs(x) > 1e-12),
)


@st.composite
def graphs(draw, labels):
    names = draw(st.lists(labels, min_size=2, max_size=10, unique=True))
    n = len(names)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, min_size=1, max_size=len(pairs)))
    edges = [(names[i], names[j], draw(_weights)) for i, j in chosen]
    return from_edges(edges, nodes=names)


def _edges(data, labels=None):
    i, j, w = data.edges()
    lab = data.labels if labels is None else labels
    return {frozenset((lab[a], lab[b])): float(c) for a, b, c in zip(i, j, w)}


_settings = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_settings
@given(graphs(st.integers(-10**12, 10**12)))
@pytest.mark.parametrize("fmt, ext", [("snap", "txt"), ("graphml", "graphml"),
                                      ("gml", "gml"), ("edgelist", "edgelist")])
def test_labelled_formats_round_trip_int_labels(tmp_path, fmt, ext, data):
    path = tmp_path / f"g.{ext}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)  # isolated nodes not in edge lists
        write_graph(data, path, format=fmt)
    kw = {"nodetype": int} if fmt == "edgelist" else {}
    back = read_graph(path, format=fmt, **kw)
    if fmt in ("graphml", "gml"):  # these formats store ids as strings
        want = {frozenset(str(x) for x in k): w for k, w in _edges(data).items()}
    else:
        want = _edges(data)
    assert _edges(back) == want


@_settings
@given(graphs(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC_-.", min_size=1, max_size=8)))
@pytest.mark.parametrize("fmt, ext", [("snap", "txt"), ("graphml", "graphml"), ("gml", "gml"),
                                      ("pajek", "net")])
def test_labelled_formats_round_trip_string_labels(tmp_path, fmt, ext, data):
    path = tmp_path / f"g.{ext}.gz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        write_graph(data, path, format=fmt)
    back = read_graph(path, format=fmt)
    assert _edges(back) == _edges(data)
    if fmt != "snap":
        assert set(back.labels) == set(data.labels)


@_settings
@given(graphs(st.integers(0, 50)))
@pytest.mark.parametrize("fmt", ["gset", "mtx", "dimacs", "metis"])
def test_indexed_formats_round_trip(tmp_path, fmt, data):
    if fmt == "metis":  # METIS stores integer weights only
        data = from_edges([(data.labels[i], data.labels[j], float(np.round(w) or 1.0))
                           for i, j, w in zip(*data.edges())], nodes=data.labels)
    path = tmp_path / "g.dat"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)  # labels not 1..n: not stored
        write_graph(data, path, format=fmt)
    back = read_graph(path, format=fmt)
    assert back.labels == range(1, data.n + 1)
    assert _edges(back, labels=data.labels) == _edges(data)


@pytest.mark.parametrize("labels, fmt, fragment", [
    (["New York", "b", "c"], "snap", "'New York'"),
    (["#x", "b", "c"], "edgelist", "'#x'"),
    (["a b", "b", "c"], "edgelist", "'a b'"),
    ([1, "1", "c"], "graphml", "1 and '1'"),
    ([1, "1", "c"], "gml", "1 and '1'"),
    (["a\tb", "b", "c"], "pajek", "'a\\tb'"),
    (["", "b", "c"], "pajek", "''"),
])
def test_labels_that_would_not_read_back_are_refused_and_the_file_kept(tmp_path, labels, fmt,
                                                                       fragment):
    # each of these was written before and read back with a node lost, merged or renamed
    path = tmp_path / "g.out"
    path.write_text("0 1\n1 2\n")
    data = from_edges([(labels[0], labels[1]), (labels[1], labels[2])], nodes=labels)
    with pytest.raises(ValueError, match="relabel first") as err:
        write_graph(data, path, format=fmt)
    assert fragment in str(err.value)
    assert path.read_text() == "0 1\n1 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["g.out"]  # no temporary file left


def test_a_writer_error_leaves_the_existing_file_as_it_was(tmp_path):
    # METIS stores integer weights only: its writer fails after it has begun writing
    path = tmp_path / "g.metis"
    path.write_text("keep\n")
    path.chmod(0o640)
    with pytest.raises(ValueError, match="integer"):
        write_graph(from_edges([(0, 1, 0.5), (1, 2, 1.0)]), path)
    assert path.read_text() == "keep\n"
    assert [p.name for p in tmp_path.iterdir()] == ["g.metis"]
    write_graph(from_edges([(0, 1), (1, 2)]), path)  # a successful write keeps the permissions
    assert (path.stat().st_mode & 0o777) == 0o640
    assert read_graph(path).m == 2


def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    import os

    path = tmp_path / "ro.txt"
    path.write_text("keep\n")
    path.chmod(0o444)
    if os.access(path, os.W_OK):  # running as root: permissions do not bind
        pytest.skip("permissions are not enforced for this user")
    with pytest.raises(PermissionError, match="permission denied"):
        write_graph(from_edges([("a", "b")]), path)
    assert path.read_text() == "keep\n"


def test_writes_through_a_symbolic_link_to_its_target(tmp_path):
    (tmp_path / "link.txt").symlink_to("real.txt")
    write_graph(from_edges([("a", "b")]), tmp_path / "link.txt")
    assert (tmp_path / "link.txt").is_symlink()
    assert read_graph(tmp_path / "real.txt").labels == ("a", "b")
