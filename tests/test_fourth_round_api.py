"""A fourth round of fixes in the synthetic-graph and Max-2-CSP APIs (max_2csp's diagnostics
and alphabets, graph_statistics / synthetic_report, CSPInstance relations,
sample_block_model's labels): each test a defect found and fixed."""


import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.engine import CSPInstance
from dpgraph.lab.evaluate import graph_statistics, synthetic_report

DIFFER = {(0, 1), (1, 0)}


pytestmark = pytest.mark.usefixtures("quiet_seeds")


def _cycle(n, q=2):
    rel = {(a, b) for a in range(q) for b in range(q) if a != b}
    return CSPInstance(n, q, [(i, (i + 1) % n, rel, 1.0) for i in range(n)])


def test_the_local_route_lists_its_decision_order_by_variable_name():
    """``max_2csp(inst.with_names(names)).diagnostics["order"]`` was an array of variable
    numbers, where the assignment (and max_cut's partition) speak the caller's names: a
    reader took ``order[0] == 3`` for the variable named 3. It lists the names now, in the
    same order as the variable numbers of the unnamed instance (the same draws)."""
    inst = _cycle(6)
    names = ["f", "e", "d", "c", "b", "a"]
    plain = dpgraph.max_2csp(inst, epsilon=2.0, delta=0, rng=7)
    named = dpgraph.max_2csp(inst.with_names(names), epsilon=2.0, delta=0, rng=7)
    assert named.diagnostics["order"] == tuple(names[i] for i in plain.diagnostics["order"])
    assert sorted(plain.diagnostics["order"]) == list(range(6))
    assert all(type(v) is int for v in plain.diagnostics["order"])
    assert named.assignment == {names[i]: v for i, v in plain.assignment.items()}


def _karate_named():
    G = nx.Graph(nx.karate_club_graph().edges())
    return nx.relabel_nodes(G, {v: f"m{v:02d}" for v in G})


def test_synthetic_report_refuses_statistics_of_another_graph_of_the_same_size():
    """``synthetic_report(G, S, true_stats=graph_statistics(H))`` with ``H`` another graph of
    ``G``'s node and edge counts (the same nodes in another order, or other edges) compared
    the sample with ``H``'s communities and top nodes without a word. The statistics record
    the graph they describe, and a mismatch is refused naming what differs."""
    G = _karate_named()
    S = nx.relabel_nodes(nx.Graph(nx.karate_club_graph().edges()), lambda v: f"m{v:02d}")
    ok = synthetic_report(G, S, true_stats=graph_statistics(G), max_cut=False)
    assert ok["nmi"] == 1.0 and ok["evc_overlap"] == 1.0
    reordered = nx.Graph()
    reordered.add_nodes_from(sorted(G, reverse=True))
    reordered.add_edges_from(G.edges())
    with pytest.raises(ValueError, match="node order.*'m33'.*'m00'"):
        synthetic_report(G, S, true_stats=graph_statistics(reordered), max_cut=False)
    swapped = G.copy()  # the same degrees and node order, other edges
    nx.double_edge_swap(swapped, nswap=5, max_tries=1000, seed=1)
    assert sorted(d for _, d in swapped.degree) == sorted(d for _, d in G.degree)
    with pytest.raises(ValueError, match="other edges"):
        synthetic_report(G, S, true_stats=graph_statistics(swapped), max_cut=False)
    fewer = G.copy()
    fewer.remove_edge("m00", "m01")
    with pytest.raises(ValueError, match="77 edges.*78"):
        synthetic_report(G, S, true_stats=graph_statistics(fewer), max_cut=False)
    with pytest.raises(ValueError, match="graph_statistics"):
        synthetic_report(G, S, true_stats={"n": 34}, max_cut=False)


def test_evc_top_names_nodes_so_that_two_node_orders_agree():
    """``graph_statistics(G)["evc_top"]`` held node numbers in ``G``'s order: the statistics of
    a sample (its nodes in sorted label order) and of the input named other nodes for the
    same top ones. They are labels now, checked against NetworkX's eigenvector centrality."""
    G = _karate_named()
    top = graph_statistics(G)["evc_top"]
    evc = nx.eigenvector_centrality_numpy(G)
    assert top == {max(evc, key=evc.get)}  # 1% of 34 nodes: the one top node
    other = nx.Graph()
    other.add_nodes_from(sorted(G, reverse=True))
    other.add_edges_from(G.edges())
    assert graph_statistics(other)["evc_top"] == top
    ring = nx.relabel_nodes(nx.circular_ladder_graph(100), lambda v: ("v", v))
    ring.add_edges_from((("v", 0), ("v", k)) for k in range(2, 40))  # a hub and its fan
    st = graph_statistics(ring)
    assert len(st["evc_top"]) == 2 and ("v", 0) in st["evc_top"]


def test_a_float_two_by_two_relation_is_refused_for_what_it_is():
    """A float 2 x 2 relation over q = 2 was refused as a "2 x 2 integer array"; the
    message names its dtype and says which arrays are read as a matrix."""
    rel = np.array([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match=r"float64.*only a boolean"):
        CSPInstance(2, 2, [(0, 1, rel, 1.0)])
    with pytest.raises(ValueError, match=r"int64.*only a boolean"):
        CSPInstance(2, 2, [(0, 1, rel.astype(np.int64), 1.0)])


def test_sample_block_model_refuses_repeated_labels_naming_one():
    """``sample_block_model(..., labels=["a", "b", "a", ...])`` returned a graph with two
    nodes named "a" (after the whole draw); it is refused first, naming the label."""
    from dpgraph.synthetic import sample_block_model

    blocks = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match=r"'a'.*positions 0 and 2"):
        sample_block_model(blocks, np.array([[3, 1], [1, 2]]), np.ones(6), rng=0,
                           labels=["a", "b", "a", "c", "d", "e"])
    with pytest.raises(ValueError, match="5 labels for 6 nodes"):
        sample_block_model(blocks, np.array([[3, 1], [1, 2]]), np.ones(6), rng=0,
                           labels="abcde")
    g = sample_block_model(blocks, np.array([[3, 1], [1, 2]]), np.ones(6), rng=0,
                           labels="abcdef")
    assert tuple(g.labels) == tuple("abcdef") and g.m == 6


@pytest.mark.parametrize("route", [None, "randomized-response", "pca"])
def test_a_one_value_alphabet_gets_its_forced_answer_and_an_estimate(route):
    """``max_2csp`` refused q = 1, where every variable takes value 0. It returns that answer
    now without reading the constraints, and spends the budget on the estimate's releases
    only (the total weight and the value, docs/privacy.md 6.5-6.6): at a large epsilon the
    estimate is the value, the constraints that allow (0, 0) (2.5 of 3.5 here)."""
    inst = CSPInstance(4, 1, [(0, 1, {(0, 0)}, 1.0), (1, 2, set(), 1.0), (2, 3, {(0, 0)}, 1.0),
                              (0, 3, {(0, 0)}, 0.5)])
    res = dpgraph.max_2csp(inst, epsilon=1000.0, delta=1e-6, rng=0, route=route)
    assert res.assignment == {0: 0, 1: 0, 2: 0, 3: 0} and inst.value(res.assignment) == 2.5
    assert res.estimated_value == pytest.approx(2.5, abs=0.1)
    assert res.diagnostics["route"] == "forced"
    assert [e.epsilon for e in res.ledger.entries] == pytest.approx([5.0, 995.0])
    assert res.ledger.spent[1] == 0.0 and "unspent" in res.diagnostics
    quiet = dpgraph.max_2csp(inst.with_names("wxyz"), epsilon=1.0, delta=0, rng=0,
                             estimate=False, route=route)
    assert quiet.assignment == dict.fromkeys("wxyz", 0) and quiet.ledger.spent == (0.0, 0.0)
    running = dpgraph.privacy.PrivacyLedger(epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="relation_size"):
        dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=0, relation_size=2, route=route,
                         ledger=running)
    assert running.spent == (0.0, 0.0)


def test_auto_leaves_out_the_block_posterior_when_every_pair_may_be_allowed():
    """With ``relation_size`` at its default ``q*q`` the block prior puts every pair of an
    active block in the relation, so ``block_posterior_weights`` gives the q x q pairs of a
    block one weight and every assignment the same value: its solve only added arbitrary
    candidates to the private choice. ``candidates="auto"`` leaves it out there (it is
    still solved when asked for by name)."""
    from dpgraph.solve.csp import block_posterior_weights

    n, q, p = 5, 3, 0.2
    Y = np.random.default_rng(0).random((n * q, n * q)) < 0.3
    Y = np.triu(Y, 1) | np.triu(Y, 1).T
    U = (Y - p) / (1 - 2 * p)
    np.fill_diagonal(U, 0)
    W = block_posterior_weights(U, p, n, q, q * q).reshape(n, q, n, q)
    assert np.allclose(W, W[:, :1, :, :1])  # one weight per block: a constant objective
    inst = _cycle(8, q=3)
    rr = dict(epsilon=4.0, delta=1e-6, rng=0, route="randomized-response")
    assert "posterior-block" not in dpgraph.max_2csp(inst, **rr).diagnostics["candidates"]
    assert "posterior-block" in dpgraph.max_2csp(inst, relation_size=6,
                                                 **rr).diagnostics["candidates"]
    assert dpgraph.max_2csp(inst, candidates="posterior-block",
                            **rr).diagnostics["candidates"] == ("posterior-block",)
