"""Defects a careful NetworkX / SciPy user hit on a third day with dpgraph (one test per fix)."""

import os
import warnings

import igraph as ig
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import GraphInputWarning, as_graph_data, from_edges


def _weight(data, u, v):
    return float(data.weights[[data.index[u]], [data.index[v]]][0])


def test_symmetrize_mean_does_not_average_in_an_arc_of_weight_zero():
    """``symmetrize="mean"`` averaged an arc of weight 0 into its pair when a networkx.DiGraph
    or a SciPy matrix (a stored zero) held it: 0 -> 1 of weight 1 with 1 -> 0 of weight 0 gave
    0.5, while igraph, an edge list and a dense array (and the policy: a weight-0 edge is no
    edge, an arc given once keeps its weight) gave 1.0."""
    arcs = [(0, 1, 1.0), (1, 0, 0.0), (1, 2, 0.5)]
    D = nx.DiGraph()
    D.add_weighted_edges_from(arcs)
    g = ig.Graph(n=3, edges=[a[:2] for a in arcs], directed=True)
    g.es["weight"] = [a[2] for a in arcs]
    S = sp.csr_array((np.array([1.0, 0.0, 0.5]), (np.array([0, 1, 1]), np.array([1, 0, 2]))),
                     shape=(3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        got = {name: _weight(as_graph_data(x, symmetrize="mean"), 0, 1)
               for name, x in [("networkx", D), ("scipy", S), ("igraph", g),
                               ("dense", S.toarray())]}
        got["edges"] = _weight(from_edges(arcs, directed=True, symmetrize="mean"), 0, 1)
    assert got == dict.fromkeys(got, 1.0)
    # a stored zero on a pair with no other weight is still counted as a removed edge
    Z = sp.csr_array((np.array([1.0, 0.0]), (np.array([0, 2]), np.array([1, 0]))), shape=(3, 3))
    with pytest.warns(GraphInputWarning, match="removed 1 edge"):
        data = as_graph_data(Z, symmetrize="mean")
    assert data.m == 1 and _weight(data, 0, 1) == 1.0


def test_arcs_that_cancel_under_symmetrize_are_counted_in_a_warning():
    """Arcs 0.5 and -0.5 summed (or averaged) to no edge, and the pair vanished without a word,
    where every other weight-0 pair is counted in a GraphInputWarning."""
    D = nx.DiGraph()
    D.add_weighted_edges_from([(0, 1, 0.5), (1, 0, -0.5), (1, 2, 0.5)])
    for how in ("sum", "mean"):
        with pytest.warns(GraphInputWarning, match=f"removed 1 edge.*cancel.*{how}"):
            data = as_graph_data(D, symmetrize=how)
        assert data.m == 1


def test_matrix_labels_given_as_a_set_are_refused():
    """``as_graph_data(A, labels={"a", "b", "c"})`` (and the engine's ``labels=``) took the set
    in its iteration order, which is not the rows' (and changes between runs for strings):
    row 0's edge went to whichever label came first."""
    A = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    with pytest.raises(TypeError, match="labels must be ordered.*not a set"):
        as_graph_data(A, labels={"a", "b", "c"})
    with pytest.raises(TypeError, match="labels must be ordered"):
        dpgraph.solve_max_cut(sp.csr_array(A), labels=frozenset("xyz"))
    assert as_graph_data(A, labels=["a", "b", "c"]).labels == ("a", "b", "c")


def test_numpy_scalar_labels_become_python_values_and_gml_keeps_them(tmp_path):
    """Matrix labels from a NumPy array, and NumPy scalars as networkx nodes, were kept as
    NumPy scalars (``from_edges`` converts them): GML wrote ``np.float64(0.5)`` as the label
    'NP.FLOAT64(0.5)', which read back under that name."""
    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    g = as_graph_data(A, labels=np.array([0.5, 1.5, 2.5]))
    assert [type(x) for x in g.labels] == [float] * 3
    assert [type(x) for x in dpgraph.solve_max_cut(A, labels=np.arange(3)).answer] == [int] * 3
    G = nx.Graph([(np.float64(0.5), np.float64(1.5))])
    path = os.path.join(tmp_path, "g.gml")
    dpgraph.write_graph(G, path)
    assert sorted(dpgraph.read_graph(path).labels) == ["0.5", "1.5"]


def test_warm_start_refusals_name_warm_start():
    """``solve_max_cut(G, warm_start=[1, -1, 1, -1])`` said "V0 must have shape (n, k)" (the
    SDP's internal name), and a dict of sides "float() argument must be ... not 'dict'"."""
    G = nx.cycle_graph(4)
    with pytest.raises(ValueError, match=r"warm_start must be an n x k array.*n = 4.*\(4,\)"):
        dpgraph.solve_max_cut(G, warm_start=[1, -1, 1, -1], rng=0)
    with pytest.raises(ValueError, match="warm_start.*got a dict"):
        dpgraph.solve_max_bisection(G, warm_start={0: 1, 1: 0, 2: 1, 3: 0}, rng=0)
    V = dpgraph.solve_max_cut(G, rng=0).V
    assert dpgraph.solve_max_cut(G, warm_start=V, rng=0).value == 4.0


def test_a_pandas_series_is_not_called_a_dataframe():
    """``as_graph_data(pd.Series(...))`` was refused as "a pandas DataFrame: iterating it gives
    its column names", which a Series has none of."""
    with pytest.raises(TypeError, match="got a pandas Series, not a graph"):
        as_graph_data(pd.Series([(0, 1), (1, 2)]))


def test_max_k_cut_instance_points_a_directed_graph_to_as_graph_data():
    """``max_k_cut_instance(nx.DiGraph(...), 3)`` said "pass symmetrize=", which it does not
    take (a TypeError when followed), as the solvers once did."""
    from dpgraph.engine import max_k_cut_instance

    with pytest.raises(ValueError, match=r"make it undirected first.*as_graph_data"):
        max_k_cut_instance(nx.DiGraph([(0, 1), (1, 2)]), 3)


def test_cnf_assignments_are_keyed_by_the_files_variable_numbers(tmp_path):
    """A CNF file numbers its variables 1..n and ``dpgraph max2csp`` reports them so, but
    ``max_2csp(read_csp(path))`` and ``solve_max_2csp`` keyed the assignment 0..n-1: key 1
    was the file's variable 2."""
    path = tmp_path / "f.cnf"
    path.write_text("p cnf 3 2\n1 -2 0\n2 3 0\n")
    inst = dpgraph.read_csp(path)
    sol = dpgraph.solve_max_2csp(inst, rng=0)
    assert sorted(sol.assignment) == [1, 2, 3]
    assert inst.value(sol.assignment) == sol.value == 2.0
    assert inst.value([1, 1, 0]) == inst.value({1: 1, 2: 1, 3: 0}) == 2.0
    assert inst.value({1: 0, 2: 1, 3: 0}) == inst.value([0, 1, 0]) == 1.0  # (1 or -2) fails
    assert inst.value({0: 1, 1: 1, 2: 0}) == 2.0  # still read by variable number
    res = dpgraph.max_2csp(inst, epsilon=1.0, delta=0.0, rng=0)
    assert sorted(res.assignment) == [1, 2, 3]
    big = tmp_path / "big.cnf"  # a declared count of 10^12: the names are a range, not a tuple
    big.write_text(f"p cnf {10 ** 12} 1\n1 2 0\n")
    assert dpgraph.read_csp(big).variables == range(1, 10 ** 12 + 1)


def test_a_weight_attribute_no_edge_has_is_named_in_a_warning():
    """``max_cut(G, weight="capacity")`` on a graph whose edges carry ``"cap"`` read every edge
    as weight 1 without a word (NetworkX's default for a missing attribute); a name that no
    edge carries now warns, naming the attributes the edges have. The default ``"weight"`` on
    an unweighted graph does not warn."""
    G = nx.Graph()
    G.add_edge(0, 1, cap=3.0)
    G.add_edge(1, 2, cap=0.5)
    with pytest.warns(GraphInputWarning, match=r"weight='capacity'.*\['cap'\]"):
        data = as_graph_data(G, weight="capacity")
    assert data.m == 2 and set(data.weights.data) == {1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_graph_data(nx.path_graph(3))
        as_graph_data(G, weight="cap")


def test_metis_refuses_fractional_weights_before_warning_about_labels(tmp_path):
    """``write_graph(G, "g.metis")`` with string labels and a weight of 0.5 warned that METIS
    stores no labels, then refused the weight; the refusal now comes first, with no warning
    about a file that is not written."""
    G = nx.Graph()
    G.add_edge("a", "b", weight=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="METIS stores integer edge weights"):
            dpgraph.write_graph(G, tmp_path / "g.metis")
    assert not (tmp_path / "g.metis").exists()
