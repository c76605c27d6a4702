"""Adapters of dpgraph.graph: property-based round trips and every branch of the input policy."""

import warnings

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgraph.graph import (GraphData, GraphInputWarning, as_graph_data, from_coo, from_edges,
                           from_matrix, require_nonnegative, to_igraph, to_networkx, to_scipy)

# ----------------------------------------------------------------------------- strategies

_label = st.one_of(
    st.integers(-1000, 1000),
    st.text(min_size=1, max_size=6),
    st.tuples(st.integers(0, 9), st.text(max_size=3)),
)
_weight = st.one_of(
    st.integers(-5, 5).filter(lambda x: x != 0).map(float),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda x: abs(x) > 1e-9),
)


@st.composite
def weighted_graphs(draw):
    """(labels, {frozenset(pair): weight}) with distinct labels, isolated nodes allowed."""
    labels = draw(st.lists(_label, min_size=1, max_size=12, unique=True))
    n = len(labels)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    edges = {}
    for i, j in chosen:
        edges[frozenset((labels[i], labels[j]))] = draw(_weight)
    return labels, edges


def _nx_graph(labels, edges):
    G = nx.Graph()
    G.add_nodes_from(labels)
    for pair, w in edges.items():
        u, v = tuple(pair)
        G.add_edge(u, v, weight=w)
    return G


def _edge_dict(data: GraphData):
    i, j, w = data.edges()
    return {frozenset((data.labels[a], data.labels[b])): float(c) for a, b, c in zip(i, j, w)}


# ----------------------------------------------------------------------------- round trips


@settings(max_examples=60, deadline=None)
@given(weighted_graphs())
def test_networkx_round_trip(graph):
    labels, edges = graph
    G = _nx_graph(labels, edges)
    before = nx.to_dict_of_dicts(G)
    data = as_graph_data(G)
    assert nx.to_dict_of_dicts(G) == before  # input not mutated
    assert list(data.labels) == list(G.nodes)
    assert (data.n, data.m) == (len(labels), len(edges))
    assert _edge_dict(data) == edges
    H = to_networkx(data)
    assert list(H.nodes) == list(G.nodes)
    assert {frozenset((u, v)): w for u, v, w in H.edges(data="weight")} == edges
    W = data.weights
    assert (W != W.T).nnz == 0 and np.all(W.diagonal() == 0) and np.all(W.data != 0)


@settings(max_examples=60, deadline=None)
@given(weighted_graphs())
def test_igraph_round_trip(graph):
    labels, edges = graph
    index = {lab: k for k, lab in enumerate(labels)}
    pairs = [tuple(sorted((index[u] for u in pair))) for pair in edges]
    G = ig.Graph(n=len(labels), edges=pairs)
    G.vs["name"] = labels
    G.es["weight"] = list(edges.values())
    data = as_graph_data(G)
    assert list(data.labels) == labels
    assert _edge_dict(data) == edges
    H = to_igraph(data)
    assert H.vs["name"] == labels and not H.is_directed()
    back = {frozenset((H.vs[e.source]["name"], H.vs[e.target]["name"])): e["weight"] for e in H.es}
    assert back == edges


@settings(max_examples=40, deadline=None)
@given(weighted_graphs())
def test_scipy_and_edges_round_trip(graph):
    labels, edges = graph
    data = as_graph_data(_nx_graph(labels, edges))
    again = from_matrix(to_scipy(data), labels=data.labels)
    assert (again.weights != data.weights).nnz == 0 and again.labels == data.labels
    dense = from_matrix(data.weights.toarray(), labels=data.labels)
    assert _edge_dict(dense) == edges
    triples = [(*tuple(p), w) for p, w in edges.items()]  # pairs have two distinct labels
    listed = from_edges(triples, nodes=labels)
    assert listed.labels == tuple(labels) and _edge_dict(listed) == edges


def test_igraph_without_names_gets_index_labels():
    G = ig.Graph(n=4, edges=[(0, 1), (2, 3)])
    data = as_graph_data(G)
    assert data.labels == range(4) and data.is_unweighted  # the default labels: a range
    assert to_igraph(data).vs["name"] == [0, 1, 2, 3]


def test_igraph_missing_weight_means_one():
    G = ig.Graph(n=3, edges=[(0, 1)])
    G.es["weight"] = [2.0]
    G.add_edge(1, 2)  # added without the attribute: None
    assert _edge_dict(as_graph_data(G)) == {frozenset((0, 1)): 2.0, frozenset((1, 2)): 1.0}


# ----------------------------------------------------------------------------- policy branches


@pytest.mark.parametrize("how, both, single", [("max", 3.0, 2.0), ("sum", 4.0, 2.0),
                                               ("mean", 2.0, 2.0)])
def test_directed_symmetrize_branches(how, both, single):
    D = nx.DiGraph()
    D.add_weighted_edges_from([("a", "b", 1.0), ("b", "a", 3.0), ("b", "c", 2.0)])
    with pytest.raises(ValueError, match="directed.*symmetrize"):
        as_graph_data(D)
    data = as_graph_data(D, symmetrize=how)
    assert _edge_dict(data) == {frozenset("ab"): both, frozenset("bc"): single}
    Gi = ig.Graph(n=3, edges=[(0, 1), (1, 0), (1, 2)], directed=True)
    Gi.vs["name"] = ["a", "b", "c"]
    Gi.es["weight"] = [1.0, 3.0, 2.0]
    assert _edge_dict(as_graph_data(Gi, symmetrize=how)) == _edge_dict(data)
    A = np.array([[0, 1, 0], [3, 0, 2], [0, 0, 0]], dtype=float)
    assert _edge_dict(from_matrix(A, labels="abc", symmetrize=how)) == _edge_dict(data)
    arcs = [("a", "b", 1.0), ("b", "a", 3.0), ("b", "c", 2.0)]
    assert _edge_dict(as_graph_data(arcs, symmetrize=how)) == _edge_dict(data)


@pytest.mark.parametrize("how", ["max", "sum", "mean"])
def test_symmetrize_keeps_the_weight_of_an_arc_given_once(tmp_path, how):
    """'mean' halved every arc given in one direction only (a missing arc counted 0), so an
    undirected edge list read as arcs came out with half its weights; 'max' dropped a negative
    arc given once (max(-1, 0) = 0). Every rule combines the arcs present."""
    from dpgraph.io import read_graph

    edges = [(0, 1, 0.8), (1, 2, 0.25), (2, 3, -1.0)]
    want = {frozenset((u, v)): w for u, v, w in edges}
    assert _edge_dict(as_graph_data(edges, symmetrize=how)) == want
    D = nx.DiGraph()
    D.add_weighted_edges_from(edges)
    assert _edge_dict(as_graph_data(D, symmetrize=how)) == want
    A = np.zeros((4, 4))
    for u, v, w in edges:
        A[u, v] = w
    assert _edge_dict(from_matrix(A, symmetrize=how)) == want
    snap = tmp_path / "g.txt"
    snap.write_text("".join(f"{u} {v} {w}\n" for u, v, w in edges))
    assert _edge_dict(read_graph(snap, symmetrize=how)) == want
    csv = tmp_path / "g.csv"
    csv.write_text("u,v,weight\n" + "".join(f"{u},{v},{w}\n" for u, v, w in edges))
    assert _edge_dict(read_graph(csv, symmetrize=how)) == want


def test_symmetrize_combines_reciprocated_arcs_even_when_every_arc_has_its_reverse():
    """A directed graph whose every arc had its reverse came back unchanged, so 'sum' gave
    u-v the weight of one arc, and dropping an unrelated arc doubled it. Integer weights
    with a loop under 'max' raised a casting error."""
    both = nx.DiGraph([(0, 1), (1, 0), (1, 2), (2, 1)])
    assert _edge_dict(as_graph_data(both, symmetrize="sum")) == {  # arcs of weight 1
        frozenset((0, 1)): 2.0, frozenset((1, 2)): 2.0}
    assert _edge_dict(as_graph_data(both, symmetrize="mean")) == {
        frozenset((0, 1)): 1.0, frozenset((1, 2)): 1.0}
    with pytest.warns(GraphInputWarning, match="self-loop"):
        data = from_coo(np.array([0, 0, 1]), np.array([0, 1, 2]), np.array([2, 1, 3]),
                        [0, 1, 2], directed=True, symmetrize="max")
    assert _edge_dict(data) == {frozenset((0, 1)): 1.0, frozenset((1, 2)): 3.0}


def test_directed_refused_everywhere():
    with pytest.raises(ValueError, match="symmetrize"):
        as_graph_data(ig.Graph(n=2, edges=[(0, 1), (1, 0)], directed=True))  # even if symmetric
    with pytest.raises(ValueError, match="symmetrize"):
        from_matrix(np.array([[0, 1], [0, 0]]))
    with pytest.raises(ValueError, match="symmetrize"):
        from_edges([(0, 1, 1.0), (1, 0, 2.0)], directed=True)
    with pytest.raises(ValueError, match="symmetrize="):
        as_graph_data(nx.DiGraph([(0, 1)]), symmetrize="min")


def test_multigraph_duplicates():
    M = nx.MultiGraph()
    M.add_edge(0, 1, weight=2.0)
    M.add_edge(0, 1, weight=5.0)
    M.add_edge(1, 2)
    assert _edge_dict(as_graph_data(M)) == {frozenset((0, 1)): 7.0, frozenset((1, 2)): 1.0}
    assert _edge_dict(as_graph_data(M, duplicates="max"))[frozenset((0, 1))] == 5.0
    with pytest.raises(ValueError, match="multigraph"):
        as_graph_data(M, duplicates="error")
    Gi = ig.Graph(n=2, edges=[(0, 1), (1, 0)])
    Gi.es["weight"] = [2.0, 5.0]
    assert _edge_dict(as_graph_data(Gi))[frozenset((0, 1))] == 7.0
    with pytest.warns(GraphInputWarning, match="summed the weights of 1 repeated"):
        data = as_graph_data([(0, 1, 2.0), (1, 0, 5.0)])
    assert _edge_dict(data)[frozenset((0, 1))] == 7.0
    with pytest.warns(GraphInputWarning, match="merged 1 repeated edge.*duplicates='max'"):
        data = as_graph_data([(0, 1, 2.0), (1, 0, 5.0)], duplicates="max")
    assert _edge_dict(data)[frozenset((0, 1))] == 5.0
    with pytest.raises(ValueError, match="1 repeated"):
        as_graph_data([(0, 1), (0, 1)], duplicates="error")


def test_self_loops_dropped_with_count_everywhere():
    G = nx.Graph([(0, 1), (1, 1), (2, 2)])
    Gi = ig.Graph(n=3, edges=[(0, 1), (1, 1), (2, 2)])
    A = np.array([[0, 1, 0], [1, 4, 0], [0, 0, 1]], dtype=float)
    E = [(0, 1), (1, 1), (2, 2)]
    for source in (G, Gi, A, E):
        with pytest.warns(GraphInputWarning, match="dropped 2 self-loop"):
            data = as_graph_data(source)
        assert (data.n, data.m) == (3, 1) and data.weights.diagonal().max() == 0


def test_zero_weight_edges_removed_with_count():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 1.0), (2, 3, 0.0)])
    with pytest.warns(GraphInputWarning, match="removed 2 edge"):
        data = as_graph_data(G)
    assert (data.n, data.m) == (4, 1)
    with pytest.warns(GraphInputWarning, match="removed 1 edge"):
        data = as_graph_data([(0, 1, 0.0), (1, 2, 1.0)])
    assert data.m == 1
    S = sp.csr_array((np.array([0.0, 0.0, 1.0, 1.0]), (np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]))),
                     shape=(3, 3))
    with pytest.warns(GraphInputWarning, match="removed 1 edge"):
        assert as_graph_data(S).m == 1
    Gi = ig.Graph(n=3, edges=[(0, 1), (1, 2)])
    Gi.es["weight"] = [0.0, 1.0]
    with pytest.warns(GraphInputWarning, match="removed 1 edge"):
        assert as_graph_data(Gi).m == 1
    # a repeated pair whose weights cancel is an edge of weight 0 too
    with pytest.warns(GraphInputWarning) as record:
        assert as_graph_data([(0, 1, 1.0), (1, 0, -1.0), (1, 2)]).m == 1
    messages = [str(w.message) for w in record]
    assert any("summed the weights of 1 repeated" in m for m in messages)
    assert any("removed 1 edge(s) of weight 0" in m for m in messages)


def test_negative_weights_kept_and_require_nonnegative():
    data = as_graph_data([(0, 1, -1.0), (1, 2, 1.0)])
    assert sorted(data.weights.data.tolist()) == [-1.0, -1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="Max-Bisection.*1 negative"):
        require_nonnegative(data, what="Max-Bisection")
    require_nonnegative(as_graph_data([(0, 1, 2.0)]), what="x")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_refused(bad):
    G = nx.Graph()
    G.add_edge(0, 1, weight=bad)
    Gi = ig.Graph(n=2, edges=[(0, 1)])
    Gi.es["weight"] = [bad]
    A = np.array([[0, bad], [bad, 0]])
    for source in (G, Gi, A, [(0, 1, bad)], sp.csr_array(A)):
        with pytest.raises(ValueError, match="non-finite"):
            as_graph_data(source)


def test_isolated_nodes_kept_and_empty_refused():
    G = nx.Graph()
    G.add_nodes_from(range(5))
    G.add_edge(0, 1)
    data = as_graph_data(G)
    assert (data.n, data.m) == (5, 1)
    assert as_graph_data(np.zeros((3, 3))).n == 3
    for empty in (nx.Graph(), ig.Graph(), np.zeros((0, 0)), [], sp.csr_array((0, 0))):
        with pytest.raises(ValueError, match="no nodes"):
            as_graph_data(empty)


def test_inputs_not_mutated():
    A = np.array([[0, 1, 0], [1, 5, 2], [0, 2, 0]], dtype=float)
    S = sp.csr_array(A)
    A0, S0 = A.copy(), S.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        as_graph_data(A)
        as_graph_data(S)
        M = nx.MultiGraph([(0, 1), (0, 1), (1, 1)])
        as_graph_data(M)
    assert np.array_equal(A, A0) and (S != S0).nnz == 0
    assert M.number_of_edges() == 3


def test_bad_inputs():
    with pytest.raises(TypeError, match="read_graph"):
        as_graph_data("graph.txt")
    with pytest.raises(TypeError, match="cannot make a graph"):
        as_graph_data(3.5)
    with pytest.raises(ValueError, match="square.*from_edges"):
        as_graph_data(np.array([[0, 1], [1, 2], [2, 3]]))
    with pytest.raises(ValueError, match="not a \\(u, v\\)"):
        as_graph_data([(0, 1, 2, 3)])
    with pytest.raises(ValueError, match="non-numeric weight"):
        as_graph_data([(0, 1, "heavy")])
    with pytest.raises(ValueError, match="labels"):
        from_matrix(np.eye(2), labels=["a"])
    with pytest.raises(ValueError, match="unique"):
        from_matrix(np.ones((2, 2)) - np.eye(2), labels=["a", "a"])
    Gi = ig.Graph(n=2, edges=[(0, 1)])
    Gi.vs["name"] = ["x", "x"]
    with pytest.raises(ValueError, match="repeated"):
        as_graph_data(Gi)


def test_numpy_scalar_labels_become_python():
    data = from_edges(np.array([[0, 1], [1, 2]]))
    assert all(type(x) is int for x in data.labels)


def test_graphdata_properties():
    data = as_graph_data([("a", "b", 2.0), ("b", "c", -1.0), ("d", "d", 0.0)][:2] + [("d", "a", 1)])
    assert data.index == {"a": 0, "b": 1, "c": 2, "d": 3}
    assert np.allclose(data.degrees, [3.0, 1.0, -1.0, 1.0])
    assert data.total_weight == 2.0
    assert not data.is_unweighted
    assert repr(data) == "GraphData(n=4, m=3, weights in [-1, 2])"
    assert repr(as_graph_data(np.zeros((2, 2)))) == "GraphData(n=2, m=0)"
    with pytest.raises(ValueError, match="labels"):
        GraphData(weights=sp.csr_array((2, 2)), labels=(0,))


# ----------------------------------------------------------------------------- range labels
# The default integer labels (0..n-1 from matrices and generators, 1..n from the G-set, METIS,
# DIMACS and Matrix Market readers) are kept as a range, not a tuple of n Python ints: a G-set
# header '67777777 0' used to take seconds and gigabytes for the labels alone.


def test_gset_labels_are_a_range_naming_the_same_nodes(tmp_path):
    from dpgraph.io import read_graph

    p = tmp_path / "g.gset"
    p.write_text("5 3\n1 2 1\n2 3 -1\n1 5 2.5\n")
    g = read_graph(p)
    assert type(g.labels) is range and g.labels == range(1, 6)
    H = to_networkx(g)
    assert list(H.nodes) == [1, 2, 3, 4, 5] and all(type(v) is int for v in H.nodes)
    assert {frozenset((u, v)): w for u, v, w in H.edges(data="weight")} == {
        frozenset({1, 2}): 1.0, frozenset({2, 3}): -1.0, frozenset({1, 5}): 2.5}
    back = as_graph_data(H)
    assert back.labels == (1, 2, 3, 4, 5) and (back.weights != g.weights).nnz == 0
    assert to_igraph(g).vs["name"] == [1, 2, 3, 4, 5]


def test_edgeless_gset_with_many_nodes_holds_no_int_per_node(tmp_path):
    """2,000,000 nodes, no edges: one CSR index pointer (4 bytes a node) is what must be held;
    a label tuple alone was 8 bytes a node plus an int object for each."""
    import tracemalloc

    from dpgraph.io import read_graph

    n = 2_000_000
    p = tmp_path / "big.gset"
    p.write_text(f"{n} 0\n")
    tracemalloc.start()
    try:
        g = read_graph(p)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert g.labels == range(1, n + 1) and (g.n, g.m) == (n, 0)
    assert held < 6 * n and peak < 16 * n, (held / n, peak / n)


def _range_and_tuple_graphs(start=0):
    """The same small weighted graph twice: labels as a range and as the equal tuple."""
    rng = np.random.default_rng(7)
    n = 10
    A = np.triu(rng.integers(0, 3, (n, n)) / 2.0, 1)  # weights 0.5 and 1: private routes accept them
    A = A + A.T
    labels = range(start, start + n)
    by_range = from_matrix(A, labels)
    by_tuple = from_matrix(A, tuple(labels))
    assert type(by_range.labels) is range and type(by_tuple.labels) is tuple
    return by_range, by_tuple


@pytest.mark.parametrize("start", [0, 1])
def test_range_and_tuple_labels_give_the_same_results(start):
    import dpgraph
    from dpgraph.cli.output import jsonable
    from dpgraph.engine import cut_value, solve_max_cut
    from dpgraph.engine.operator import as_weight_operator

    gr, gt = _range_and_tuple_graphs(start)
    cr, ct = solve_max_cut(gr, rng=0), solve_max_cut(gt, rng=0)
    assert cr.partition == ct.partition and cr.assignment == ct.assignment
    assert cr.value == ct.value and cut_value(gr, cr.assignment) == cut_value(gt, ct.assignment)
    assert all(type(v) is int for side in cr.partition for v in side)
    assert set().union(*cr.partition) == set(range(start, start + gr.n))
    # matrix input: the default labels are a range, the same as passing the tuple
    W = gr.weights.toarray()
    op = as_weight_operator(W)
    assert type(op.labels) is range and tuple(op.labels) == tuple(range(gr.n))
    assert solve_max_cut(W, rng=0).partition == solve_max_cut(W, labels=tuple(range(gr.n)),
                                                            rng=0).partition
    # the private solver keeps the graph's labels through the release (on 10 nodes the private
    # PCA may halt, with a warning: the labels are what is checked here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pr = dpgraph.max_cut(gr, epsilon=4.0, delta=1e-6, rng=3)
        pt = dpgraph.max_cut(gt, epsilon=4.0, delta=1e-6, rng=3)
    assert pr.partition == pt.partition and pr.assignment == pt.assignment
    assert nx.utils.graphs_equal(to_networkx(gr), to_networkx(gt))
    assert to_igraph(gr).vs["name"] == to_igraph(gt).vs["name"]
    assert jsonable({"labels": gr.labels}) == jsonable({"labels": gt.labels})


def test_synthetic_report_treats_a_range_as_the_equal_tuple():
    from dpgraph.lab.evaluate import synthetic_report

    gr, gt = _range_and_tuple_graphs()
    report = synthetic_report(gr, gt, max_cut=False)
    assert report["edge_ratio"] == 1.0 and report["degree_kl"] == 0.0
    # a reordered synthetic graph is put back in the true graph's order
    perm = list(reversed(range(gr.n)))
    shuffled = from_matrix(gr.weights.toarray()[np.ix_(perm, perm)], tuple(perm))
    assert synthetic_report(gr, shuffled, max_cut=False)["degree_kl"] == 0.0


# ----------------------------------------------------------------------------- GraphData methods


def _labelled_edges(data):
    i, j, w = data.edges()
    return {frozenset((data.labels[a], data.labels[b])): float(c) for a, b, c in zip(i, j, w)}


def test_graphdata_to_networkx_and_igraph_keep_labels_and_weights():
    data = from_edges([("a", "b", 0.5), ("b", "c", 2.0), ((1, "x"), "a", 1.0)],
                      nodes=["z", "a"])
    H = data.to_networkx()
    assert list(H.nodes) == list(data.labels)          # "z" is isolated and kept
    assert {frozenset((u, v)): w for u, v, w in H.edges(data="weight")} == _labelled_edges(data)
    assert data.to_networkx(weight="w")["a"]["b"] == {"w": 0.5}
    G = data.to_igraph()
    assert G.vs["name"] == list(data.labels) and G.vcount() == data.n
    assert {frozenset((G.vs[e.source]["name"], G.vs[e.target]["name"])): e["weight"]
            for e in G.es} == _labelled_edges(data)
    # and back: the same graph
    for back in (as_graph_data(H), as_graph_data(G)):
        assert tuple(back.labels) == tuple(data.labels)
        assert _labelled_edges(back) == _labelled_edges(data)


def test_what_sample_returns_converts_with_its_labels():
    import dpgraph

    names = {v: f"member-{v}" for v in range(34)}
    G = nx.relabel_nodes(nx.karate_club_graph(), names)
    S = dpgraph.release_synthetic(G, epsilon=1.0, weight=None, rng=0).sample(rng=1)
    H = S.to_networkx()
    assert isinstance(H, nx.Graph) and set(H.nodes) == set(G.nodes)
    assert H.number_of_edges() == S.m
    assert {frozenset(e) for e in H.edges()} == set(_labelled_edges(S))
    Gi = S.to_igraph()
    assert set(Gi.vs["name"]) == set(G.nodes) and Gi.ecount() == S.m
    pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, weight=None, rng=0)
    S2 = pg.sample(rng=2)
    assert set(S2.to_networkx().nodes) == set(G.nodes)


def test_weight_none_gives_the_same_graph_from_networkx_and_from_tuples():
    """weight=None: every listed edge has weight 1, whatever its data, from every input type
    (a (u, v, 0) tuple used to be dropped where the NetworkX edge with weight 0 was kept)."""
    G = nx.Graph()
    G.add_edge(0, 1, weight=0.0)
    G.add_edge(1, 2, weight=float("nan"))
    G.add_edge(2, 3, weight=0.5)
    tuples = [(0, 1, 0.0), (1, 2, float("nan")), (2, 3, 0.5)]
    a, b = as_graph_data(G, weight=None), as_graph_data(tuples, weight=None)
    assert a.m == b.m == 3 and a.labels == b.labels
    assert (a.weights != b.weights).nnz == 0


def test_weight_none_on_a_multigraph_says_that_parallel_edges_merge():
    with pytest.warns(GraphInputWarning, match="1 parallel edge"):
        data = as_graph_data(nx.MultiGraph([(0, 1), (0, 1), (1, 2)]), weight=None)
    assert data.m == 2 and data.is_unweighted
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_graph_data(nx.MultiGraph([(0, 1), (1, 2)]), weight=None)


@pytest.mark.parametrize("value", [None, "abc", [1], 1 + 2j])
def test_networkx_weight_that_is_not_a_number_is_refused_naming_the_edge(value):
    G = nx.path_graph(4)
    G[1][2]["weight"] = value
    with pytest.raises(ValueError, match=r"edge \(1, 2\) has weight="):
        as_graph_data(G)
    assert as_graph_data(G, weight=None).m == 3  # weight=None reads no attribute
    G[1][2]["weight"] = "0.5"  # as networkx.read_pajek gives it: read as the number
    assert as_graph_data(G).weights[1, 2] == 0.5


def test_one_non_finite_edge_is_counted_once():
    G = nx.path_graph(4)
    G[0][1]["weight"] = float("nan")
    with pytest.raises(ValueError, match="has 1 non-finite"):
        as_graph_data(G)


def test_a_dict_is_refused_with_the_networkx_spelling():
    with pytest.raises(TypeError, match=r"networkx.Graph\(d\)"):
        as_graph_data({0: {1: {}}})


def test_inputs_read_as_the_wrong_graph_are_now_read_or_refused():
    """A user's networkx.Graph subclass was iterated as an edge list (its nodes), a pandas
    DataFrame by its column names, a networkx view failed deep inside; complex weights kept
    their real part; labels= was ignored for graphs."""
    import pandas as pd

    class MyGraph(nx.Graph):
        pass

    K = nx.relabel_nodes(nx.karate_club_graph(), lambda v: f"{v:02d}")
    data = as_graph_data(MyGraph(K), weight=None)
    assert data.n == 34 and data.m == 78 and set(data.labels) == set(K.nodes)
    for view in (K.edges(), K.edges(data=True), K.adj):
        with pytest.raises(TypeError, match="not a graph; pass the graph itself"):
            as_graph_data(view)
    with pytest.raises(TypeError, match="pandas DataFrame.*from_pandas_edgelist"):
        as_graph_data(pd.DataFrame({"id1": [0, 1], "id2": [1, 2]}))
    C = np.array([[0, 1j], [1j, 0]])
    for M in (C, sp.csr_array(C)):
        with pytest.raises(TypeError, match="complex"):
            as_graph_data(M)
    with pytest.raises(ValueError, match="labels= is only for matrix input"):
        as_graph_data(K, labels=list(K.nodes))


def test_multigraph_numeric_string_weights_merge_as_numbers():
    """Parallel edges of weight "1" became 11 (strings joined), "0.5" + "0.25" failed."""
    M = nx.MultiGraph()
    M.add_edge(0, 1, weight="1")
    M.add_edge(0, 1, weight="1")
    M.add_edge(1, 2, weight="0.5")
    M.add_edge(1, 2, weight="0.25")
    W = as_graph_data(M, duplicates="sum").weights.toarray()
    assert W[0, 1] == 2.0 and W[1, 2] == 0.75
    assert as_graph_data(M, duplicates="max").weights.toarray()[1, 2] == 0.5


def test_igraph_from_networkx_keeps_the_networkx_labels():
    """igraph's Graph.from_networkx keeps NetworkX's labels in the vertex attribute _nx_name,
    not name: they are the labels, as a name attribute would be (results came back 0..n-1)."""
    G = nx.Graph([("a", "b"), ("b", "c")])
    g = ig.Graph.from_networkx(G)
    assert "name" not in g.vs.attributes()
    data = as_graph_data(g)
    assert data.labels == ("a", "b", "c") and data.m == 2
