"""The benchmark's reimplementation of PGB's queries (benchmarks/pgb_queries.py) against the
NetworkX definitions PGB's scripts use, on small graphs with several components."""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import pgb_queries as pq  # noqa: E402

pytest.importorskip("igraph")


def _graph():
    """Two components and an isolated node: PGB's per-component path definitions matter."""
    G = nx.powerlaw_cluster_graph(60, 3, 0.4, seed=1)
    H = nx.relabel_nodes(nx.cycle_graph(7), {i: 60 + i for i in range(7)})
    G = nx.union(G, H)
    G.add_node(67)
    return G


def _adj(G):
    return sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(G.number_of_nodes()),
                                                 weight=None, dtype=float))


def test_statistics_match_pgb_networkx_definitions():
    G = _graph()
    st = pq.statistics(_adj(G))
    deg = np.array([d for _, d in sorted(G.degree())])
    assert st["n"] == 68 and st["m"] == G.number_of_edges()
    assert st["triangles"] == sum(nx.triangles(G).values()) // 3
    assert st["degree_var"] == pytest.approx(np.var(deg, ddof=1))
    assert st["transitivity"] == pytest.approx(nx.transitivity(G))
    assert st["avg_clustering"] == pytest.approx(nx.average_clustering(G))
    assert st["assortativity"] == pytest.approx(nx.degree_assortativity_coefficient(G))
    # PGB's cal_diam: the largest diameter over the components
    assert st["diameter"] == max(nx.diameter(G.subgraph(c)) for c in nx.connected_components(G)
                                 if len(c) > 1)
    # PGB's average_shortest_path_length_custom: pair-weighted mean over components of size > 1
    comps = [G.subgraph(c) for c in nx.connected_components(G) if len(c) > 1]
    pairs = [len(c) * (len(c) - 1) / 2 for c in comps]
    asp = sum(nx.average_shortest_path_length(c) * p for c, p in zip(comps, pairs)) / sum(pairs)
    assert st["avg_path"] == pytest.approx(asp)
    # PGB's distance_distribution: BFS distances from every node, zeros included
    dists = [d for s in G for d in nx.single_source_shortest_path_length(G, s).values()]
    assert st["distance_hist"].tolist() == np.bincount(dists).tolist()
    # eigenvector centrality: NetworkX's unit-norm vector, sorted (on the connected part)
    C = G.subgraph(max(nx.connected_components(G), key=len))
    ref = np.sort(list(nx.eigenvector_centrality(C, max_iter=10000, tol=1e-10).values()))[::-1]
    got = pq.statistics(_adj(nx.convert_node_labels_to_integers(C)))["evc"]
    assert got == pytest.approx(ref, abs=1e-6)


def test_kl_and_relative_error_are_pgbs():
    e = np.finfo(np.float64).eps
    a, b = np.array([0, 2, 3, 5]), np.array([1, 1, 8])
    p, q = a / 10, np.r_[b / 10, 0.0]
    assert pq.cal_kl(a, b) == pytest.approx(np.sum(p * np.log((p + e) / (q + e))))
    assert pq.cal_rel(4.0, 5.0) == pytest.approx(0.25)


def test_score_identity_is_perfect_and_a_larger_output_is_scored_on_its_own_nodes():
    G = _graph()
    A = _adj(G)
    ts = pq.true_statistics(A)
    s = pq.score(A, ts, A, A)
    for key, lower in pq.METRICS:
        assert s[key] == pytest.approx(0.0 if lower else 1.0, abs=1e-9), key
    # an output with 12 extra nodes (a DP-1K-like generator): the aggregate queries see 80
    # nodes, the node-by-node ones the input's 68
    big = sp.block_diag([A, sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(12)))]).tocsr()
    s = pq.score(A, ts, big, A)
    assert s["n_out"] == 80 and s["q1_nodes_re"] == pytest.approx(12 / 68)
    assert s["q12_nmi"] == pytest.approx(1.0) and s["maxcut_transfer"] == pytest.approx(1.0)
    assert s["q2_edges_re"] == pytest.approx(11 / G.number_of_edges())


def test_peer_output_is_mapped_by_id_with_fresh_ids_after_the_input(tmp_path):
    """bench_synthetic.output_graphs: input ids map to their index (sorted order), ids
    the input lacks (DP-1K's extra nodes) follow it; the aligned graph drops them."""
    import bench_synthetic as bsp

    inp = tmp_path / "in.txt"
    inp.write_text("# comment\n10 30\n30 20\n20 20\n30 10\n")
    ids, edges = bsp.read_edgelist(inp)
    assert ids.tolist() == [10, 20, 30] and edges.tolist() == [[0, 2], [1, 2]]
    out = tmp_path / "out.txt"
    out.write_text("10 20\n20 99\n99 31\n")
    own, aligned = bsp.output_graphs(out, ids, 5)
    assert own.shape == (5, 5) and aligned.shape == (3, 3)
    assert own[0, 1] == 1 and own[1, 4] == 1 and own[4, 3] == 1  # 31 -> 3, 99 -> 4
    assert aligned.nnz == 2 and aligned[0, 1] == 1
    # fewer nodes than the input (PrivSKG: 2^k, the first 2^k ids): own has the generator's
    # node count, aligned the input's (the missing nodes isolated)
    out.write_text("10 20\n")
    own, aligned = bsp.output_graphs(out, ids, 2)
    assert own.shape == (2, 2) and aligned.shape == (3, 3) and aligned.nnz == 2
