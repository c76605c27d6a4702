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
    write_graph(data, path, format=fmt)
    back = read_graph(path, format=fmt)
    assert back.labels == range(1, data.n + 1)
    assert _edges(back, labels=data.labels) == _edges(data)
