"""Small API fixes: wrong-typed edge weights refused with ``InvalidParameterError`` naming the
edge and the attribute (NetworkX and igraph inputs, every entry point); the engine's public
solvers annotated; ``read_gml``'s retry on a repeated edge prices the document once."""

from __future__ import annotations

import inspect
import typing
import warnings
from decimal import Decimal

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph import InvalidParameterError
from dpgraph.graph import as_graph_data, from_edges, from_matrix
from dpgraph.io import read_graph


# -- 3. wrong-typed edge weights ------------------------------------------------------------------

def _networkx(w):
    G = nx.cycle_graph(6)
    nx.set_edge_attributes(G, 0.5, "weight")
    G[0][1]["weight"] = w
    return G


def _igraph(w):
    G = ig.Graph.Ring(6)
    G.vs["name"] = [f"v{i}" for i in range(6)]
    G.es["weight"] = [0.5] * 6
    G.es[0]["weight"] = w
    return G


_ENTRY_POINTS = {
    "as_graph_data": lambda G: as_graph_data(G),
    "max_cut": lambda G: dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0),
    "max_bisection": lambda G: dpgraph.max_bisection(G, epsilon=1.0, delta=1e-6, rng=0),
    "release_synthetic": lambda G: dpgraph.release_synthetic(G, epsilon=1.0, rng=0),
    "privatize": lambda G: dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rng=0),
    "solve_max_cut": lambda G: dpgraph.solve_max_cut(G, rng=0),
}
_BAD = ["abc", 1 + 2j, np.complex128(1j), [0.5], b"1", {"w": 1}]


@pytest.mark.parametrize("entry", sorted(_ENTRY_POINTS))
@pytest.mark.parametrize("make, edge", [(_networkx, r"\(0, 1\)"), (_igraph, r"\('v0', 'v1'\)")],
                         ids=["networkx", "igraph"])
@pytest.mark.parametrize("value", _BAD, ids=repr)
def test_wrong_typed_weights_are_refused_naming_the_edge_and_attribute(entry, make, edge, value):
    """NetworkX refused these with a plain ValueError; igraph with NumPy's words ("could not
    convert string to float"), naming no edge, and a NumPy complex or a bytes weight passed
    (the imaginary part dropped)."""
    G = make(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidParameterError, match=rf"edge {edge} has weight=.* which is "
                                                       r"not a real number"):
            _ENTRY_POINTS[entry](G)


def test_a_none_weight_is_refused_on_networkx_and_missing_on_igraph():
    with pytest.raises(InvalidParameterError, match=r"edge \(0, 1\) has weight=None"):
        as_graph_data(_networkx(None))
    assert as_graph_data(_igraph(None)).weights.toarray()[0, 1] == 1.0  # igraph: not set


@pytest.mark.parametrize("value", [Decimal("0.25"), np.True_, "0.75", 1, np.float32(0.5)])
def test_real_weights_of_every_kind_are_still_read_from_igraph(value):
    assert as_graph_data(_igraph(value)).weights.toarray()[0, 1] == float(value)


@pytest.mark.parametrize("value", [1 + 2j, np.complex128(1j), "abc", None])
def test_edge_list_weights_refused_naming_the_edge(value):
    with pytest.raises(InvalidParameterError, match=r"edge #0 .* has a non-numeric weight"):
        from_edges([(0, 1, value), (1, 2, 0.5)])


@pytest.mark.parametrize("matrix", [np.eye(3) * 1j, np.array([["a", "b"], ["c", "d"]])])
def test_wrong_typed_matrices_are_invalid_parameters(matrix):
    with pytest.raises(InvalidParameterError, match="complex|must be numeric"):
        from_matrix(matrix)
    with pytest.raises(InvalidParameterError, match="complex|must be numeric"):
        dpgraph.solve_max_cut(matrix, rng=0)


# -- 4. the engine's public solvers are annotated -------------------------------------------------

@pytest.mark.parametrize("solve", [dpgraph.solve_max_cut, dpgraph.solve_max_bisection,
                                   dpgraph.solve_max_2csp])
def test_engine_solvers_are_annotated(solve):
    """As solve_max_2csp and the private answers: every option but the input and ``rng``
    annotated, and the annotations resolve."""
    hints = typing.get_type_hints(solve)
    params = inspect.signature(solve).parameters
    missing = [p for p in params if p not in hints and p not in ("G", "instance", "rng")
               and p != "time_limit" and p != "tabu_time"]
    assert not missing and "return" in hints
    if solve is not dpgraph.solve_max_2csp:
        assert hints["return"] is dpgraph.CutResult
        assert hints["rank"] == int | None and hints["weight"] == str | None
        assert hints["time_limit"] == float | None


# -- 5. read_gml prices the document once ---------------------------------------------------------

_GML_REPEATED = ('graph [\n node [ id 0 label "a" ]\n node [ id 1 label "b" ]\n'
                 ' node [ id 2 label "c" ]\n edge [ source 0 target 1 ]\n'
                 ' edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n')


@pytest.mark.parametrize("read", ["read_gml", "read_graph"])
@pytest.mark.parametrize("repeated", [True, False])
def test_read_gml_prices_the_document_once(tmp_path, monkeypatch, repeated, read):
    """A repeated edge makes NetworkX's parser refuse the file, and read_gml parses it again as
    a multigraph: that retry priced the document a second time (a second streamed pass over a
    gzip file)."""
    import dpgraph.io.library as library

    calls = []
    price = library.check_document_read
    monkeypatch.setattr(library, "check_document_read",
                        lambda path, kind: (calls.append(kind), price(path, kind))[1])
    text = _GML_REPEATED if repeated else _GML_REPEATED.replace(
        " edge [ source 0 target 1 ]\n edge", " edge", 1)
    path = tmp_path / "g.gml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the repeat is merged with a warning
        g = library.read_gml(path) if read == "read_gml" else read_graph(path, "gml")
    assert (g.n, g.m) == (3, 2) and calls == ["gml"]


def test_read_gml_still_refuses_what_does_not_fit(tmp_path, monkeypatch):
    from dpgraph.memory import InsufficientMemoryError

    path = tmp_path / "g.gml"
    path.write_text(_GML_REPEATED)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "100")
    with pytest.raises(InsufficientMemoryError, match="of gml"):
        read_graph(path, "gml")
