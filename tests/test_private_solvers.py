"""Private Max-Cut / Max-Bisection: the value estimate, its sensitivity, budget, labels."""

import math

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.evaluate import cut_value


def test_estimate_sensitivity_adjacent():
    """A fixed partition's cut changes by at most 1 when one edge is added or removed."""
    rng = np.random.default_rng(4)
    for _ in range(30):
        G = nx.gnp_random_graph(30, 0.3, seed=int(rng.integers(1 << 30)))
        part = {v: int(rng.integers(0, 2)) for v in G}
        i, j = map(int, rng.choice(30, 2, replace=False))
        H = G.copy()
        H.remove_edge(i, j) if H.has_edge(i, j) else H.add_edge(i, j)
        assert abs(cut_value(G, part) - cut_value(H, part)) <= 1


def test_max_cut_estimate_is_unbiased_and_budget_exact():
    inst = dpgraph.datasets.planted_cut(400, 30, rng=2)
    G = nx.relabel_nodes(dpgraph.graph.to_networkx(inst.graph), lambda v: f"n{v}")
    for _, _, d in G.edges(data=True):
        d.pop("weight")
    res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rank=2, rng=0)
    assert set(res.assignment) == set(G.nodes)  # the caller's labels come back
    eps, dlt = res.ledger.spent
    assert math.isclose(eps, 1.0, rel_tol=1e-9) and dlt <= 1e-6 * (1 + 1e-9)
    entry = res.ledger.entries[-1]
    assert entry.name == "cut of the returned partition" and entry.sensitivity == 1.0
    true = cut_value(G, res.assignment)
    # the estimate is the true cut plus N(0, sigma^2): within 5 sigma
    assert abs(res.estimated_value - true) <= 5 * entry.noise_scale


def test_max_bisection_balanced():
    inst = dpgraph.datasets.planted_bisection(300, 30, rng=1)
    res = dpgraph.max_bisection(inst.graph, epsilon=2.0, delta=1e-6, rank=2, rng=0)
    assert abs(len(res.partition[0]) - len(res.partition[1])) <= 1


def test_refuses_private_graph_and_bad_share():
    G = nx.gnp_random_graph(50, 0.2, seed=1)
    pg = dpgraph.privatize(G, epsilon=1, delta=1e-6, rank=2, rng=0)
    with pytest.raises(TypeError, match="solve_max_cut"):
        dpgraph.max_cut(pg, epsilon=1, delta=1e-6)
    with pytest.raises(ValueError, match="estimate_share"):
        dpgraph.max_cut(G, epsilon=1, delta=1e-6, estimate_share=1.5)
