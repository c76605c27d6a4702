import networkx as nx
import numpy as np
import pytest

from dpgraph.graph import GraphInputWarning, as_graph_data, to_networkx


def test_karate_round_trip():
    G = nx.karate_club_graph()
    data = as_graph_data(G)
    assert (data.n, data.m) == (34, 78)
    H = to_networkx(data)
    assert set(map(frozenset, H.edges)) == set(map(frozenset, G.edges))


def test_directed_refused_and_self_loops_warned():
    with pytest.raises(ValueError, match="symmetrize"):
        as_graph_data(nx.DiGraph([(0, 1)]))
    G = nx.Graph([(0, 1), (1, 1)])
    with pytest.warns(GraphInputWarning, match="1 self-loop"):
        data = as_graph_data(G)
    assert data.m == 1 and np.all(data.weights.diagonal() == 0)
