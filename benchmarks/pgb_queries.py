"""PGB's 15 evaluation queries and dpgraph's synthetic-graph metrics, one scorer for every
generator. NOT PRIVATE: reads the true graph; benchmark use only.

PGB (Liu et al., "PGB: Benchmarking Differentially Private Synthetic Graph Generation
Algorithms", arXiv 2408.02928) computes its queries in the ``main_function`` of each of its
scripts with NetworkX and python-louvain; they are reimplemented here (igraph and SciPy, same
definitions; no peer code is imported):

=====  ===========================  =================================================  =========
key    query                        definition                                         error
=====  ===========================  =================================================  =========
q1     number of nodes              nodes of the generator's output, isolated included RE
q2     number of edges                                                                 RE
q3     triangle count                                                                  RE
q4     average degree               2 m / n                                            RE
q5     degree variance              sample variance (ddof 1) of the degrees            RE
q6     degree distribution          histogram of the degrees                           KL
q7     diameter                     the longest finite shortest path                   RE
q8     average shortest path        mean over connected pairs (PGB's pair-weighted     RE
                                    mean of the components' averages)
q9     distance distribution        histogram of the BFS distances from every node     KL
                                    (ordered pairs, the n zero distances included)
q10    global clustering            transitivity                                       RE
q11    average clustering           mean local clustering, 0 below degree 2            RE
q12    community detection          Louvain on each graph, NMI of the two labelings    NMI
q13    modularity                   of each graph's own Louvain partition              RE
q14    assortativity                degree assortativity                               RE
q15    eigenvector centrality       unit-norm Perron vector, sorted; MAE of the top    MAE
                                    floor(0.01 n_true) values
=====  ===========================  =================================================  =========

RE is PGB's ``cal_rel``: ``|A - B| / (A + 1e-15)``, A the true graph's value. KL is PGB's
``cal_kl(true, synthetic)``: both histograms normalised, the shorter zero-padded,
``sum p log((p + eps) / (q + eps))`` with eps the float64 machine epsilon.

dpgraph's metrics (``dpgraph.lab.evaluate.synthetic_report``), added where PGB has no equivalent:
``community_ari`` (the adjusted Rand index of the same two Louvain labelings as q12: corrected
for chance, where NMI is not -- every isolated node of a synthetic graph is a Louvain community
of its own, and many small communities raise the NMI of unrelated labelings);
``degree_hellinger``; ``modularity_true_partition_re`` (the modularity of the true graph's
Louvain partition measured in the synthetic graph); ``evc_overlap`` (share of the true top 1%
by eigenvector centrality in the synthetic top 1%); ``maxcut_transfer`` (the cut, in the true
graph, of the max-cut dpgraph's engine finds on the synthetic graph, over the cut it finds on
the true graph); ``isolated_excess`` (isolated nodes beyond the true graph's, as a share of n).

Node sets. A generator's output is scored on its own node set for every query that does not
need node identity (q1-q11, q13-q15, degree_hellinger): DP-1K's extra nodes and PrivSKG's
2^floor(log2 n) nodes count as they are, and the node-count error says how far they are off.
The queries that compare node by node (q12, community_ari, modularity_true_partition_re,
evc_overlap, maxcut_transfer) need a node of the output to be a node of the input: the output is put on the
input's n nodes by id (nodes the input does not have are dropped with their edges, input nodes
the output lacks are isolated). For TmF, PrivGraph, PrivHRG and dpgraph the ids are the input's
own; DP-1K and PrivSKG build graphs whose node ids carry no relation to the input's (the
wrappers hand out the input's ids in index order, as PGB's own evaluation aligns them), so
their node-by-node scores measure a random alignment; they are reported, as PGB reports them.
"""

from __future__ import annotations

import random

import igraph as ig
import numpy as np
import scipy.sparse as sp

# (key, lower is better?) in table order
QUERIES = [("q1_nodes_re", True), ("q2_edges_re", True), ("q3_triangles_re", True),
           ("q4_avg_degree_re", True), ("q5_degree_var_re", True), ("q6_degree_kl", True),
           ("q7_diameter_re", True), ("q8_avg_path_re", True), ("q9_distance_kl", True),
           ("q10_transitivity_re", True), ("q11_avg_clustering_re", True), ("q12_nmi", False),
           ("q13_modularity_re", True), ("q14_assortativity_re", True), ("q15_evc_mae", True)]
EXTRA = [("community_ari", False), ("degree_hellinger", True),
         ("modularity_true_partition_re", True),
         ("evc_overlap", False), ("maxcut_transfer", False), ("isolated_excess", True)]
METRICS = QUERIES + EXTRA
LOWER_IS_BETTER = dict(METRICS)


def cal_rel(a: float, b: float) -> float:
    """PGB's relative error ``|a - b| / (a + 1e-15)`` (a: the true value)."""
    return float(abs((np.float64(a) - np.float64(b)) / (np.float64(a) + 1e-15)))


def cal_kl(a, b) -> float:
    """PGB's KL divergence of two histograms (true first), zero-padded to one length."""
    p = np.asarray(a, dtype=float) / np.sum(a)
    q = np.asarray(b, dtype=float) / np.sum(b)
    size = max(p.size, q.size)
    p, q = np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))
    e = np.finfo(np.float64).eps
    return float(np.sum(p * np.log((p + e) / (q + e))))


def adjacency(n: int, edges: np.ndarray) -> sp.csr_array:
    """Symmetric 0/1 CSR adjacency of ``n`` nodes from an (m, 2) array of index pairs
    (self-loops and repeats dropped)."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    e = e[e[:, 0] != e[:, 1]]
    lo, hi = np.minimum(e[:, 0], e[:, 1]), np.maximum(e[:, 0], e[:, 1])
    key = np.unique(lo * n + hi)
    r, c = key // n, key % n
    A = sp.coo_array((np.ones(2 * key.size), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    return A.tocsr()


def _igraph(A: sp.csr_array) -> ig.Graph:
    C = sp.triu(A, 1).tocoo()
    return ig.Graph(n=A.shape[0], edges=np.column_stack([C.row, C.col]).tolist())


def _louvain(g: ig.Graph, seed: int) -> list:
    ig.set_random_number_generator(random.Random(seed))
    try:
        return g.community_multilevel().membership
    finally:
        ig.set_random_number_generator(random)


def _evc(A: sp.csr_array) -> np.ndarray:
    """Unit-norm Perron vector of A, sorted in decreasing order (what NetworkX's power
    iteration returns, sorted); zeros for an edgeless graph."""
    from scipy.sparse.linalg import eigsh

    n = A.shape[0]
    if A.nnz == 0:
        return np.zeros(n)
    if n <= 3:
        lam, vec = np.linalg.eigh(A.toarray())
        x = vec[:, -1]
    else:
        x = eigsh(A.astype(float), k=1, which="LA", tol=1e-8, v0=np.ones(n))[1][:, 0]
    x = np.abs(x)
    return np.sort(x / np.linalg.norm(x))[::-1]


def statistics(A: sp.csr_array, *, seed: int = 0) -> dict:
    """Every per-graph value the queries compare (NOT PRIVATE)."""
    n = A.shape[0]
    g = _igraph(A)
    deg = np.asarray(A.sum(axis=1)).ravel().astype(np.int64)
    m = int(deg.sum() // 2)
    hist = g.path_length_hist(directed=False)
    counts = np.array([c for _, _, c in hist.bins()], dtype=float)  # distances 1, 2, ...
    dist = np.r_[float(n), 2.0 * counts]  # ordered pairs, the zero distances included
    pairs = counts.sum()
    louv = _louvain(g, seed)
    tri = float((A @ A).multiply(A).sum() / 6.0)
    assort = g.assortativity_degree(directed=False) if m else float("nan")
    return {
        "n": n, "m": m, "degrees": deg, "triangles": tri,
        "avg_degree": float(deg.mean()) if n else 0.0,
        "degree_var": float(np.var(deg, ddof=1)) if n > 1 else 0.0,
        "degree_hist": np.bincount(deg),
        "diameter": float(counts.size),
        "avg_path": float((np.arange(1, counts.size + 1) @ counts) / pairs) if pairs else 0.0,
        "distance_hist": dist,
        "transitivity": float(g.transitivity_undirected(mode="zero")),
        "avg_clustering": float(g.transitivity_avglocal_undirected(mode="zero")),
        "louvain": louv, "modularity": float(g.modularity(louv)) if m else 0.0,
        "assortativity": float(assort) if assort == assort else 0.0,
        "evc": _evc(A), "isolated": int((deg == 0).sum()), "igraph": g,
    }


def _hellinger(d_true, d_syn) -> float:
    hi = int(max(d_true.max(initial=0), d_syn.max(initial=0))) + 1
    p = np.bincount(d_true, minlength=hi) / max(d_true.size, 1)
    q = np.bincount(d_syn, minlength=hi) / max(d_syn.size, 1)
    return float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))


def true_statistics(A: sp.csr_array, *, seed: int = 0) -> dict:
    """:func:`statistics` of the true graph plus what the node-by-node metrics need: the EVC
    top 1% and the reference max-cut value of dpgraph's engine."""
    from dpgraph.engine import solve_max_cut
    from dpgraph.graph import from_matrix

    ts = statistics(A, seed=seed)
    top = max(1, int(round(0.01 * A.shape[0])))
    # node ids 0..n-1 (the input's, which the aligned outputs share): an index is the node's
    # label here, as graph_statistics' evc_top holds labels
    ts["evc_top"] = set(np.argsort(-_evc_unsorted(A), kind="stable")[:top].tolist())
    data = from_matrix(A, range(A.shape[0]), source="true graph")
    ts["reference_cut"] = float(solve_max_cut(data, rng=0, tol=1e-3, certificate="auto").value)
    return ts


def _evc_unsorted(A: sp.csr_array) -> np.ndarray:
    from scipy.sparse.linalg import eigsh

    if A.nnz == 0:
        return np.zeros(A.shape[0])
    x = eigsh(A.astype(float), k=1, which="LA", tol=1e-8, v0=np.ones(A.shape[0]))[1][:, 0]
    return np.abs(x)


def score(true_A: sp.csr_array, ts: dict, own_A: sp.csr_array, aligned_A: sp.csr_array, *,
          seed: int = 0, max_cut: bool = True) -> dict:
    """Every metric of :data:`METRICS` for one synthetic graph: ``own_A`` on the generator's
    own node set, ``aligned_A`` the same output put on the input's nodes (module docstring).
    NOT PRIVATE."""
    from dpgraph.engine import solve_max_cut
    from dpgraph.lab.evaluate import cut_value
    from dpgraph.graph import from_matrix

    ss = statistics(own_A, seed=seed)
    n_true = true_A.shape[0]
    k = int(0.01 * n_true)  # PGB: np.int64(0.01 * n)
    e_t, e_s = ts["evc"][:k], ss["evc"][:k]
    e_s = np.pad(e_s, (0, e_t.size - e_s.size))
    out = {
        "q1_nodes_re": cal_rel(ts["n"], ss["n"]), "q2_edges_re": cal_rel(ts["m"], ss["m"]),
        "q3_triangles_re": cal_rel(ts["triangles"], ss["triangles"]),
        "q4_avg_degree_re": cal_rel(ts["avg_degree"], ss["avg_degree"]),
        "q5_degree_var_re": cal_rel(ts["degree_var"], ss["degree_var"]),
        "q6_degree_kl": cal_kl(ts["degree_hist"], ss["degree_hist"]),
        "q7_diameter_re": cal_rel(ts["diameter"], ss["diameter"]),
        "q8_avg_path_re": cal_rel(ts["avg_path"], ss["avg_path"]),
        "q9_distance_kl": cal_kl(ts["distance_hist"], ss["distance_hist"]),
        "q10_transitivity_re": cal_rel(ts["transitivity"], ss["transitivity"]),
        "q11_avg_clustering_re": cal_rel(ts["avg_clustering"], ss["avg_clustering"]),
        "q13_modularity_re": cal_rel(ts["modularity"], ss["modularity"]),
        "q14_assortativity_re": cal_rel(ts["assortativity"], ss["assortativity"]),
        "q15_evc_mae": float(np.mean(np.abs(e_t - e_s))) if k else 0.0,
        "degree_hellinger": _hellinger(ts["degrees"], ss["degrees"]),
        "isolated_excess": max(ss["isolated"] - ts["isolated"], 0) / ss["n"],
        "n_out": ss["n"], "m_out": ss["m"],
    }
    # node-by-node metrics on the aligned graph
    ga = ss["igraph"] if aligned_A is own_A else _igraph(aligned_A)
    louv = ss["louvain"] if aligned_A is own_A else _louvain(ga, seed)
    out["q12_nmi"] = float(ig.compare_communities(ts["louvain"], louv, method="nmi"))
    out["community_ari"] = float(ig.compare_communities(ts["louvain"], louv,
                                                        method="adjusted_rand"))
    mod = float(ga.modularity(ts["louvain"])) if aligned_A.nnz else 0.0
    out["modularity_true_partition_re"] = cal_rel(ts["modularity"], mod)
    top = len(ts["evc_top"])
    out["evc_overlap"] = len(ts["evc_top"] & set(
        np.argsort(-_evc_unsorted(aligned_A), kind="stable")[:top].tolist())) / top
    if max_cut:
        syn = from_matrix(aligned_A, range(n_true), source="synthetic graph")
        true = from_matrix(true_A, range(n_true), source="true graph")
        x = solve_max_cut(syn, rng=seed, tol=1e-3, certificate="auto").x
        out["maxcut_transfer"] = float(cut_value(true, x) / ts["reference_cut"])
    return out
