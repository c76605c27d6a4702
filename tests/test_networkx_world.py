"""NetworkX's weight convention, defaults for any graph size, huge epsilon."""

import math

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.graph import GraphInputWarning, as_graph_data, unweighted
from dpgraph.privacy import PrivacyLedger, flip_probability, randomized_response
from dpgraph.release.privatize import default_rank


# ----------------------------------------------------------------------------- weight=None


def test_weight_none_reads_every_edge_as_one():
    G = nx.karate_club_graph()
    data = as_graph_data(G, weight=None)
    assert data.is_unweighted and data.m == G.number_of_edges()
    assert as_graph_data(G).weights.data.max() == 7  # the default still reads 'weight'
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    with pytest.warns(GraphInputWarning, match="parallel edge"):
        merged = as_graph_data(M, weight=None)
    assert merged.weights.toarray().tolist() == nx.to_numpy_array(nx.Graph(M), weight=None).tolist()
    g = ig.Graph([(0, 1), (1, 2)])
    g.es["weight"] = [3.0, 5.0]
    assert as_graph_data(g, weight=None).is_unweighted
    assert as_graph_data(np.array([[0, 2.0], [2.0, 0]]), weight=None).is_unweighted
    with pytest.raises(TypeError, match="weight must be"):
        as_graph_data(G, weight=1)


def test_max_cut_on_karate_with_weight_none_and_the_hint_without_it():
    G = nx.karate_club_graph()
    with pytest.raises(ValueError, match="weight=None"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0)
    res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None, rng=0)
    assert set().union(*res.partition) == set(G)
    bis = dpgraph.max_bisection(G, epsilon=1.0, delta=1e-6, weight=None, rng=0)
    assert abs(len(bis.partition[0]) - len(bis.partition[1])) <= 1
    pg = dpgraph.privatize(G, epsilon=1.0, delta=1e-6, weight=None, rng=0)
    assert pg.n == 34
    # the engine and the baselines take the same argument
    sol = dpgraph.solve_max_cut(G, weight=None, rng=0)
    assert sol.value == nx.cut_size(G, *sol.partition, weight=None)
    from dpgraph.lab.baselines import randomized_response as rr_baseline

    rr = rr_baseline(G, epsilon=1.0, weight=None, rng=0)
    assert rr.weights.shape == (34, 34)


def test_weight_none_keeps_edge_adjacency():
    """docs/privacy.md 10.1: weight=None maps neighbours (one edge added or removed, any
    weights) to neighbours or to the same graph, so no sensitivity changes."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = 8
        W = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.4) * 5, 1)
        W = W + W.T
        i, j = sorted(rng.choice(n, 2, replace=False))
        W2 = W.copy()
        W2[i, j] = W2[j, i] = 0.0 if W[i, j] else rng.random() * 5 + 0.1  # one edge flipped
        A = unweighted(as_graph_data(W)).weights.toarray()
        B = unweighted(as_graph_data(W2)).weights.toarray()
        assert np.count_nonzero(np.triu(A != B, 1)) <= 1
        assert set(np.unique(A)) <= {0.0, 1.0}


# ----------------------------------------------------------------------------- tiny graphs


@pytest.mark.parametrize("n", [3, 4, 5, 9])
def test_tiny_graphs_need_no_rank(n):
    G = nx.cycle_graph(n)
    assert len(dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0).assignment) == n  # local
    res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rng=0, route="randomized-response")
    assert len(res.assignment) == n
    assert res.diagnostics["rank"] == n - 2
    assert "capped at n - 2" in res.diagnostics["rank_note"]
    bis = dpgraph.max_bisection(G, epsilon=1.0, delta=1e-6, rng=0)
    assert abs(len(bis.partition[0]) - len(bis.partition[1])) <= 1
    pg = dpgraph.privatize(G, epsilon=4.0, delta=1e-6, route="pca", rng=0)
    assert pg.diagnostics["rank"] == n - 2 and "rank_note" in pg.diagnostics
    with pytest.raises(ValueError, match="rank must satisfy"):  # a rank the caller chose
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, rank=8, rng=0)


def test_default_rank_is_uncapped_from_ten_nodes():
    assert default_rank(10) == (8, None)
    assert default_rank(9)[0] == 7


# ----------------------------------------------------------------------------- huge epsilon


def test_flip_probability_never_overflows():
    for eps in (1e-3, 0.5, 1.0, 5.0, 30.0):
        assert math.isclose(flip_probability(eps), 1.0 / (1.0 + math.exp(eps)), rel_tol=1e-12)
    assert flip_probability(1e9) == 0.0 and flip_probability(800.0) == 0.0


def test_randomized_response_at_huge_epsilon_is_the_identity():
    bits = np.random.default_rng(0).integers(0, 2, size=1000)
    ledger = PrivacyLedger(epsilon=1e9)
    out = randomized_response(bits, epsilon=1e9, ledger=ledger, name="rr", rng=0)
    assert np.array_equal(out, bits)
    assert "released unchanged" in ledger.entries[-1].note


def test_cli_maxcut_at_huge_epsilon(capsys):
    # (the default local route releases no pair indicators: ask for randomized response)
    assert main(["maxcut", "karate", "--epsilon", "1e9", "--delta", "1e-6", "--seed", "0",
                 "--route", "randomized-response", "-q"]) == 0
    out = capsys.readouterr().out
    assert "private estimate" in out and "holds the input's pair indicators unchanged" in out
    res = dpgraph.max_cut(nx.karate_club_graph(), epsilon=1e9, delta=1e-6, weight=None,
                          privatize_options={"route": "randomized-response"}, rng=0)
    assert res.private_graph.diagnostics["flip_probability"] == 0.0
    assert any("released unchanged" in e.note for e in res.ledger.entries)


def test_readers_and_writers_take_weight(tmp_path):
    G = nx.karate_club_graph()
    path = tmp_path / "karate.graphml"
    dpgraph.write_graph(G, path)
    assert dpgraph.read_graph(path).weights.data.max() == 7
    assert dpgraph.read_graph(path, weight=None).is_unweighted
    plain = tmp_path / "karate.txt"  # G-set format: weights in the file, no attribute name
    dpgraph.write_graph(G, plain, format="gset")
    assert dpgraph.read_graph(plain, format="gset").weights.data.max() == 7
    assert dpgraph.read_graph(plain, format="gset", weight=None).is_unweighted
    dpgraph.write_graph(G, plain, format="gset", weight=None)
    assert dpgraph.read_graph(plain, format="gset").is_unweighted
