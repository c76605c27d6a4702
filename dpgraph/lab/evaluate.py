"""Non-private scoring of partitions on a graph, for benchmarks and tests.

NOT PRIVATE: every function here reads the true graph and returns exact statistics of it.
Never release their output under a privacy claim; they exist to measure how well a private
answer transfers to the true graph (e.g. the transfer ratio of BENCHMARKS.md).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from dpgraph.engine.maxcut import cut_value, side_vector  # cut_value re-exported: the engine's objective, so scores match it
from dpgraph.graph import GraphData, label_sequence, same_labels, as_graph_data

__all__ = ["cut_value", "partition_vector", "bisection_imbalance", "transfer_ratio",
           "graph_statistics", "edge_digest", "synthetic_report", "format_synthetic_report",
           "triangle_count"]


def partition_vector(data: GraphData, partition) -> np.ndarray:
    """Turn a partition into a +-1 vector in node-index order: the engine's
    :func:`~dpgraph.engine.maxcut.side_vector` on ``data``'s labels, so that a partition is read
    here exactly as :func:`cut_value` reads it.

    ``partition`` may be a pair ``(S, T)`` of label collections covering every node, a mapping
    label -> side (0/1, -1/+1 or bool), a result object with an ``assignment`` mapping, or a
    +-1 / 0-1 array in node-index order.

    >>> import networkx as nx
    >>> data = as_graph_data(nx.path_graph(3))
    >>> partition_vector(data, ({0, 2}, {1})).tolist(), partition_vector(data, [0, 1, 0]).tolist()
    ([1.0, -1.0, 1.0], [-1.0, 1.0, -1.0])
    """
    return side_vector(data.labels, partition)


def bisection_imbalance(G, partition) -> int:
    """``| |S| - |T| |`` of a partition (0 or 1 for a bisection).

    Reads only ``G``'s node set (no edge, no weight). ``partition`` is any form
    :func:`partition_vector` reads: a pair ``(S, T)``, a mapping label -> side, a result with an
    ``assignment``, or a +-1 / 0-1 array in node order; it must place every node.

    Examples
    --------
    >>> import networkx as nx
    >>> bisection_imbalance(nx.path_graph(5), ({0, 1}, {2, 3, 4}))
    1
    >>> bisection_imbalance(nx.path_graph(4), {0: 1, 1: 1, 2: 1, 3: 0})
    2
    """
    data = as_graph_data(G, weight=None)  # the node set only: no weight is read or checked
    return int(abs(partition_vector(data, partition).sum()))


def transfer_ratio(G, partition, reference_value: float, *,
                   weight: str | None = "weight") -> float:
    """``cut_value(G, partition, weight=weight) / reference_value``. NOT PRIVATE.

    The cut of ``partition`` in the *true* graph ``G`` relative to a reference cut (usually the
    best non-private cut the engine finds on ``G``: 1.0 means no loss). It reads the true
    graph: never publish it under a privacy claim. ``partition`` is any form
    :func:`cut_value` reads; ``weight`` as there (``None``: every edge weight 1).
    ``reference_value`` must be a finite number > 0 (a ValueError otherwise: an infinite
    reference would give the ratio 0 for every partition; a TypeError for a non-number). The
    ratio can exceed 1 when the reference is not the maximum.

    Examples
    --------
    >>> import networkx as nx
    >>> P = nx.path_graph(4)                                # 0-1-2-3: maximum cut 3
    >>> transfer_ratio(P, ({0, 2}, {1, 3}), 3.0)
    1.0
    >>> round(transfer_ratio(P, ({0, 1}, {2, 3}), 3.0), 4)  # cuts the middle edge only
    0.3333
    """
    _check_reference(reference_value, "reference_value")
    return cut_value(G, partition, weight=weight) / reference_value


def _check_reference(value, name: str) -> None:
    """Refuse a reference cut ``value`` (the parameter ``name``) that is not a finite number
    > 0: NaN gives a NaN ratio, 0 none, and infinity the ratio 0 for every partition."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number > 0 (a cut value), got {value!r}")
    if not value > 0:  # NaN too
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if value == math.inf:
        raise ValueError(f"{name} must be finite, got {value!r}: every cut's ratio to it "
                         f"would be 0")


# ----------------------------------------------------------------------------- synthetic graphs


def _igraph(data: GraphData):
    import igraph as ig

    A = data.weights.tocoo()
    keep = A.row < A.col
    return ig.Graph(n=data.n, edges=np.column_stack([A.row[keep], A.col[keep]]).tolist())


# Entries of ``U[rows] @ U`` (the two-paths of one block of rows) formed at once by
# :func:`triangle_count`: about 16 bytes each, so 64 MiB of transient products per block
TRIANGLE_BLOCK_ENTRIES = 1 << 22


def triangle_count(A) -> int:
    r"""Number of triangles of the simple graph whose adjacency pattern is the symmetric sparse
    matrix ``A`` (stored entries are edges; the diagonal is ignored). NOT PRIVATE.

    Each edge is oriented from the endpoint of lower ``(degree, index)`` to the higher one
    (matrix ``U``); every triangle ``a < b < c`` in that order is then the one two-path
    ``a -> b -> c`` closed by the edge ``a -> c``, so the count is
    :math:`\sum (U U) \circ U`. An out-degree in this order is at most :math:`\sqrt{2m}`, so
    the work is :math:`O(m \sqrt m)`, where :math:`\sum (A A) \circ A / 6` costs the number of
    two-paths, :math:`\sum_v d_v^2` (a star of 30,000 leaves: 9 * 10^8 entries, 10 GiB). The
    products are formed over blocks of rows holding at most ``TRIANGLE_BLOCK_ENTRIES`` two-paths
    (a single row holds at most :math:`2m`), so memory is :math:`O(n + m)` plus one block.

    >>> import networkx as nx
    >>> import scipy.sparse as sp
    >>> triangle_count(sp.csr_matrix(nx.to_scipy_sparse_array(nx.complete_graph(5))))
    10
    >>> triangle_count(sp.csr_matrix(nx.to_scipy_sparse_array(nx.star_graph(10**5))))
    0
    """
    import scipy.sparse as sp

    C = sp.coo_matrix(A)
    n = C.shape[0]
    keep = C.row != C.col
    row, col = C.row[keep].astype(np.int64), C.col[keep].astype(np.int64)
    deg = np.bincount(row, minlength=n)
    order = np.lexsort((np.arange(n), deg))  # by degree, then index
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    up = rank[row] < rank[col]
    U = sp.csr_matrix((np.ones(int(up.sum()), dtype=np.int64), (row[up], col[up])),
                      shape=(n, n))
    U.sum_duplicates()
    U.data[:] = 1
    out = np.diff(U.indptr).astype(np.int64)
    paths = U @ out  # two-paths starting at each row: the nonzeros its product row can hold
    total, start = 0, 0
    cum = np.cumsum(paths)
    while start < n:
        base = cum[start - 1] if start else 0
        stop = int(np.searchsorted(cum, base + TRIANGLE_BLOCK_ENTRIES, side="right"))
        stop = min(max(stop, start + 1), n)
        block = U[start:stop]
        total += int((block @ U).multiply(block).sum())
        start = stop
    return total


def _louvain(g, seed: int) -> list:
    import random

    import igraph as ig

    ig.set_random_number_generator(random.Random(seed))
    try:
        return g.community_multilevel().membership
    finally:
        ig.set_random_number_generator(random)


def graph_statistics(G, *, rng=0, sources: int = 64, partition=None) -> dict:
    """Statistics of an unweighted graph used by :func:`synthetic_report`. NOT PRIVATE.

    ``edges``, ``degrees`` (array), ``isolated``, ``avg_clustering`` (mean local clustering,
    0 for degree < 2), ``triangles``, ``louvain`` (Louvain communities, igraph's multilevel,
    seeded by ``rng``), ``modularity`` of ``partition`` (default: that Louvain partition),
    ``evc_top`` (the set of the labels of the top 1% of nodes by eigenvector centrality, ties
    to the node earlier in ``G``'s order), ``evc_note`` (igraph's
    warning that the graph is disconnected, where eigenvector centrality is the leading
    eigenvector of the whole adjacency matrix and near 0 outside one component; else None),
    ``avg_path`` (mean
    shortest-path length over the pairs reached from ``sources`` random sources). ``degrees``
    and ``louvain`` follow ``G``'s node order
    (:func:`~dpgraph.graph.as_graph_data`): a sample of a release lists its nodes in sorted
    label order, so compare them with the input's through :func:`synthetic_report`, which
    matches nodes by label. Edge
    weights are ignored (NetworkX's ``weight=None``): every edge counts once, one of weight 0
    included. Also ``n``, the node count, and what identifies the graph described, which
    :func:`synthetic_report` checks its ``true_stats`` against: ``labels`` (the node labels
    in that order) and ``edge_digest`` (a hash of the edges, :func:`edge_digest`).

    ``partition``: the communities whose modularity is reported, as a mapping label ->
    community or as a sequence of the community of each node in node order (as
    ``louvain``); community ids may be any hashable values. ``rng`` seeds Louvain and the
    choice of sources (a fixed seed: the same statistics every call).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()
    >>> st = graph_statistics(G)
    >>> st["n"], st["edges"], st["triangles"], int(st["degrees"].sum())  # sum = 2 edges
    (34, 78, 45.0, 156)
    >>> round(st["avg_clustering"], 4), st["isolated"], len(st["louvain"])
    (0.5706, 0, 34)
    >>> clubs = nx.get_node_attributes(G, "club")  # the two clubs of the split
    >>> round(graph_statistics(G, partition=clubs)["modularity"], 4)
    0.3582
    >>> st["evc_top"]  # 1% of 34 nodes: the one most central, by its label
    {33}
    """
    data = as_graph_data(G, weight=None)  # every edge weight 1: weight-0 edges are edges too
    g = _igraph(data)
    gen = np.random.default_rng(rng)
    A = data.weights
    louv = _louvain(g, int(gen.integers(2**31)))
    part = louv if partition is None else _membership(data, partition)
    evc, evc_note = _eigenvector_centrality(g) if data.m else (np.zeros(data.n), None)
    top = max(1, int(round(0.01 * data.n)))
    src = gen.choice(data.n, size=min(sources, data.n), replace=False)
    path_sum, path_count = _path_lengths(g, src.tolist(), data.n)
    return {"n": data.n, "edges": data.m, "degrees": np.asarray(A.sum(axis=1)).ravel(),
            "isolated": int((np.asarray(A.sum(axis=1)).ravel() == 0).sum()),
            "avg_clustering": float(g.transitivity_avglocal_undirected(mode="zero")),
            "triangles": float(triangle_count(A)),
            "louvain": louv, "modularity": float(g.modularity(part)) if data.m else 0.0,
            "evc_top": {data.labels[i] for i in np.argsort(-evc, kind="stable")[:top].tolist()},
            "evc_note": evc_note,
            "avg_path": path_sum / path_count if path_count else float("nan"),
            "labels": data.labels, "edge_digest": edge_digest(data)}


def edge_digest(data: GraphData) -> str:
    """A hash of the edges of ``data`` between its node positions (its sparsity pattern, in
    the canonical sorted CSR form; weights ignored), for telling apart two graphs of the same
    nodes and edge count (:func:`synthetic_report`'s ``true_stats`` check). NOT PRIVATE.

    >>> import networkx as nx
    >>> a = as_graph_data(nx.path_graph(4))   # 0-1-2-3
    >>> b = nx.empty_graph(4); b.add_edges_from([(0, 2), (2, 1), (1, 3)])  # 0-2-1-3
    >>> edge_digest(a) == edge_digest(as_graph_data(nx.path_graph(4)))
    True
    >>> edge_digest(a) == edge_digest(as_graph_data(b))  # the same degrees, other edges
    False
    """
    import hashlib

    W = data.weights
    h = hashlib.blake2b(digest_size=16)
    h.update(np.asarray(W.indptr, dtype=np.int64).tobytes())
    h.update(np.asarray(W.indices, dtype=np.int64).tobytes())
    return h.hexdigest()


def _check_true_stats(ts: dict, t: GraphData) -> None:
    """Refuse statistics that :func:`graph_statistics` did not compute on the graph ``t`` (the
    true graph as :func:`synthetic_report` reads it), naming what differs: their communities
    and top nodes would be compared with the wrong nodes."""
    redo = "compute them as graph_statistics(true_graph) (with the same node order)"
    if not isinstance(ts, dict) or "labels" not in ts or "edge_digest" not in ts:
        raise ValueError(f"true_stats must be what graph_statistics returns (it records the "
                         f"graph described: 'labels' and 'edge_digest'); {redo}")
    labels = ts["labels"]
    if len(labels) != t.n:
        raise ValueError(f"true_stats describe a graph of {len(labels):,} nodes; true_graph "
                         f"has {t.n:,}: {redo}")
    if not same_labels(label_sequence(labels), t.labels):
        nodes = set(t.labels)
        missing = next((lab for lab in labels if lab not in nodes), None)
        if missing is not None:
            raise ValueError(f"true_stats describe other nodes ({missing!r} is not a node of "
                             f"true_graph): {redo}")
        i = next(i for i, (a, b) in enumerate(zip(labels, t.labels)) if a != b)
        raise ValueError(f"true_stats list the nodes in another node order (node {i} is "
                         f"{labels[i]!r} there, {t.labels[i]!r} in true_graph), so their "
                         f"communities would be matched to the wrong nodes: {redo}")
    if ts.get("edges") != t.m:
        raise ValueError(f"true_stats describe a graph of {ts.get('edges')} edges; true_graph "
                         f"has {t.m:,} (every edge counted once, weights ignored): {redo}")
    if ts["edge_digest"] != edge_digest(t):
        raise ValueError(f"true_stats describe a graph of the same nodes and edge count with "
                         f"other edges: {redo}")


# Source-node distances fetched from igraph at once by :func:`_path_lengths` (igraph returns
# them as Python lists, about 48 bytes each: 64 sources x 10^6 nodes held 3 GiB at once)
PATH_BATCH_ENTRIES = 1 << 20


def _path_lengths(g, sources: list, n: int) -> tuple[float, int]:
    """``(sum, count)`` of the finite positive shortest-path lengths from each of ``sources``
    to every node of ``g``: one BFS per source (O(m + n) each), fetched in batches of at most
    ``PATH_BATCH_ENTRIES`` distances, so memory is O(n + batch) rather than O(sources * n).
    Each batch's sum is exact (integer lengths), so the mean equals the one over all pairs."""
    total, count = 0.0, 0
    step = max(1, PATH_BATCH_ENTRIES // max(n, 1))
    for k in range(0, len(sources), step):
        dist = np.asarray(g.distances(source=sources[k:k + step]), dtype=float)
        finite = np.isfinite(dist) & (dist > 0)
        total += float(dist[finite].sum())
        count += int(finite.sum())
    return total, count


def _eigenvector_centrality(g) -> tuple:
    """``(centralities, note)``: igraph's eigenvector centrality, and its RuntimeWarning that
    the graph is disconnected (its message), which is caught and returned rather than shown
    (None when there is none); any other warning passes on."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evc = np.asarray(g.eigenvector_centrality(scale=False))
    note = None
    for w in caught:
        if issubclass(w.category, RuntimeWarning) and "eigenvector centralit" in str(w.message):
            note = str(w.message).split(" Location:")[0]
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return evc, note


def _membership(data: GraphData, partition) -> list:
    """The community of each node in node order, as igraph's ``0..k-1`` membership list, from a
    mapping label -> community or a sequence in node order (a mapping read as a sequence would
    give its keys: a silently wrong modularity)."""
    from collections.abc import Mapping

    if isinstance(partition, Mapping):
        missing = [lab for lab in data.labels if lab not in partition]
        if missing:
            raise ValueError(f"the partition does not place {len(missing)} node(s), "
                             f"e.g. {missing[0]!r}")
        comm = [partition[lab] for lab in data.labels]
    else:
        comm = list(partition)
        if len(comm) != data.n:
            raise ValueError(f"the partition lists {len(comm)} communities for {data.n} nodes "
                             f"(one per node, in node order, or a mapping label -> community)")
    ids: dict = {}
    return [ids.setdefault(c, len(ids)) for c in comm]


def _degree_distances(d_true: np.ndarray, d_syn: np.ndarray) -> tuple[float, float]:
    """KL(true || synthetic) (synthetic smoothed by 1e-10) and Hellinger distance between the
    degree distributions (histograms on the integers 0..max)."""
    hi = int(max(d_true.max(initial=0), d_syn.max(initial=0))) + 1
    p = np.bincount(d_true.astype(np.int64), minlength=hi) / max(d_true.size, 1)
    q = np.bincount(d_syn.astype(np.int64), minlength=hi) / max(d_syn.size, 1)
    m = p > 0
    kl = float(np.sum(p[m] * np.log(p[m] / np.maximum(q[m], 1e-10))))
    hel = float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))
    return kl, hel


def synthetic_report(true_graph, synthetic_graph, *, rng=0, sources: int = 64,
                     max_cut: bool = True, true_stats: dict | None = None,
                     reference_cut: float | None = None,
                     weight: str | None = "weight") -> dict:
    """How well a synthetic graph matches the true one, on the metrics of the private-graph
    benchmark literature (PGB; PrivGraph, Yuan et al. 2023). NOT PRIVATE: reads the true graph.

    Returns a dict: ``edges_true``, ``edges``, ``edge_ratio`` (edge counts: every edge counts
    1); ``total_weight_true``, ``total_weight``, ``weight_ratio`` (total edge weights, as
    ``as_graph_data`` reads them with ``weight=``: the synthetic graph's total weight
    over the true one's); ``isolated``; ``degree_kl``,
    ``degree_hellinger``; ``avg_clustering_true`` / ``avg_clustering`` and their relative error
    ``clustering_rel_error``; ``triangles_true`` / ``triangles`` / ``triangles_rel_error``;
    ``modularity_true`` / ``modularity`` (of the true graph's Louvain partition, in each graph)
    / ``modularity_rel_error``; ``nmi`` (Louvain of the synthetic graph against Louvain of the
    true one); ``evc_overlap`` (fraction of the top 1% by eigenvector centrality shared);
    ``notes`` (a list of strings: igraph's warning that a graph is disconnected, where its
    eigenvector centrality is near 0 outside one component, so ``evc_overlap`` compares top
    nodes of that component; empty otherwise);
    ``avg_path_true`` / ``avg_path`` / ``path_rel_error`` (on pairs from ``sources`` random
    sources); with ``max_cut``, ``maxcut_transfer``: the cut, in the true graph, of the
    partition that :func:`dpgraph.solve_max_cut` finds on the synthetic graph, divided by
    ``reference_cut`` (default: the cut it finds on the true graph; a given one must be
    finite and > 0; NaN, with a note, where the true graph's best cut is 0: a graph without
    edges has no ratio). The two graphs must have
    the same node set; nodes are matched by label (a sample lists its nodes in sorted label
    order, the true graph in its own), so ``true_stats``, if given, must be
    :func:`graph_statistics` of the same ``true_graph``: statistics of another graph (other
    nodes, another node order, another edge count or other edges) are refused, naming what
    differs. The statistics ignore edge weights
    (:func:`graph_statistics`: every edge counts, one of weight 0 included); ``maxcut_transfer``
    uses them.

    Which to read on a weighted true graph: :func:`dpgraph.release_synthetic` and
    ``privatize(...).sample()`` release the *total edge weight* and sample that many
    unit-weight edges (a weight ``w`` counts as ``w`` of an edge), so ``weight_ratio``, not
    ``edge_ratio``, measures how well a sample's size matches what the release aimed at (a
    graph of 88,234 edges of total weight 55,233: ``edge_ratio`` about 0.63, ``weight_ratio``
    about 1). On unweighted graphs the two are equal. ``weight``: the edge attribute of
    NetworkX / igraph input, as in :func:`cut_value` (``None``: every edge weight 1, for a
    release made with ``weight=None``); it sets the totals and ``maxcut_transfer``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()
    >>> r = synthetic_report(G, G, max_cut=False)
    >>> r["edge_ratio"], r["degree_kl"], r["nmi"]
    (1.0, 0.0, 1.0)
    >>> H = nx.Graph(G.edges())  # the same edges, each of weight 1 (G's weights are 1-7)
    >>> r = synthetic_report(G, H, max_cut=False)
    >>> r["edge_ratio"], r["total_weight_true"], r["total_weight"]
    (1.0, 231.0, 78.0)
    >>> synthetic_report(G, H, max_cut=False, weight=None)["weight_ratio"]  # G's edges as 1
    1.0
    """
    import igraph as ig

    # read twice (unweighted and weighted): a one-shot iterator of edges, once
    true_graph, synthetic_graph = _reusable(true_graph), _reusable(synthetic_graph)
    t, s = _aligned(as_graph_data(true_graph, weight=None),
                    as_graph_data(synthetic_graph, weight=None))
    try:
        tw, sw = (t, s) if weight is None else _aligned(
            as_graph_data(true_graph, weight=weight),
            as_graph_data(synthetic_graph, weight=weight))  # weighted
    except (TypeError, ValueError):
        if max_cut:
            raise
        tw, sw = t, s  # weights the reader refuses: the totals count edges, as before
    if true_stats is not None:
        _check_true_stats(true_stats, t)
    ts = true_stats or graph_statistics(t, rng=rng, sources=sources)
    ss = graph_statistics(s, rng=rng, sources=sources, partition=ts["louvain"])
    kl, hel = _degree_distances(ts["degrees"], ss["degrees"])

    def rel(a, b):
        return abs(a - b) / abs(b) if b else float(abs(a - b))

    w_true, w_syn = tw.total_weight, sw.total_weight
    out = {"edges_true": ts["edges"], "edges": ss["edges"],
           "edge_ratio": ss["edges"] / max(ts["edges"], 1),
           "total_weight_true": w_true, "total_weight": w_syn,
           "weight_ratio": w_syn / w_true if w_true else float(w_syn == 0),
           "isolated": ss["isolated"],
           "isolated_true": ts["isolated"], "degree_kl": kl, "degree_hellinger": hel,
           "avg_clustering_true": ts["avg_clustering"], "avg_clustering": ss["avg_clustering"],
           "clustering_rel_error": rel(ss["avg_clustering"], ts["avg_clustering"]),
           "triangles_true": ts["triangles"], "triangles": ss["triangles"],
           "triangles_rel_error": rel(ss["triangles"], ts["triangles"]),
           "modularity_true": ts["modularity"], "modularity": ss["modularity"],
           "modularity_rel_error": rel(ss["modularity"], ts["modularity"]),
           "nmi": float(ig.compare_communities(ts["louvain"], ss["louvain"], method="nmi")),
           "evc_overlap": len(ts["evc_top"] & ss["evc_top"]) / max(len(ts["evc_top"]), 1),
           "avg_path_true": ts["avg_path"], "avg_path": ss["avg_path"],
           "path_rel_error": rel(ss["avg_path"], ts["avg_path"]),
           "notes": [f"eigenvector centrality of the {which} graph: {st['evc_note']}"
                     for which, st in (("true", ts), ("synthetic", ss)) if st.get("evc_note")]}
    if max_cut:
        out["maxcut_transfer"] = _maxcut_transfer(tw, sw, reference_cut, rng, out["notes"])
    return out


def _maxcut_transfer(tw: GraphData, sw: GraphData, reference_cut, rng, notes: list) -> float:
    """The cut in ``tw`` of the engine's Max-Cut of ``sw`` over ``reference_cut`` (default: the
    engine's cut of ``tw``). A given ``reference_cut`` must be finite and > 0; where the true
    graph's own best cut is 0 (no edges) there is no ratio: NaN, and a note in ``notes`` says
    why."""
    from dpgraph.engine import solve_max_cut

    if reference_cut is not None:
        _check_reference(reference_cut, "reference_cut")
    opts = dict(rng=rng, tol=1e-3, certificate="auto")
    if reference_cut is None:
        reference_cut = solve_max_cut(tw, **opts).value
        if not reference_cut > 0:
            notes.append(f"max-cut transfer: the true graph's best cut is {reference_cut:g} "
                         f"({tw.m:,} edges), so no cut of it has a ratio to it (NaN)")
            return float("nan")
    x = solve_max_cut(sw, **opts).x
    return cut_value(tw, x) / reference_cut


def _reusable(G):
    """``G``, or its items in a list when it is a one-shot iterator (a generator of edges)."""
    from collections.abc import Iterator

    return list(G) if isinstance(G, Iterator) else G


def _aligned(t: GraphData, s: GraphData) -> tuple[GraphData, GraphData]:
    """``(t, s)`` with ``s``'s nodes in ``t``'s order; a ValueError when the node sets differ."""
    if not same_labels(s.labels, t.labels):  # a range and the equal tuple are the same labels
        if set(s.labels) != set(t.labels):
            raise ValueError("the synthetic graph must have the true graph's node set")
        s = _reorder(s, t.labels)
    return t, s


def _reorder(s: GraphData, labels) -> GraphData:
    from dpgraph.graph import from_matrix

    idx = {lab: i for i, lab in enumerate(s.labels)}
    perm = np.array([idx[lab] for lab in labels])
    return from_matrix(s.weights[perm][:, perm].tocsr(), label_sequence(labels),
                       source="synthetic graph")


_REPORT_ROWS = [("edges", "edges (true {edges_true:,})", "{edges:,} ({edge_ratio:.3f}x)"),
                ("weight_ratio", "total edge weight (true {total_weight_true:,.6g})",
                 "{total_weight:,.6g} ({weight_ratio:.3f}x)"),
                ("isolated", "isolated nodes (true {isolated_true})", "{isolated}"),
                ("degree_kl", "degree KL (true || synthetic)", "{degree_kl:.4f}"),
                ("degree_hellinger", "degree Hellinger distance", "{degree_hellinger:.4f}"),
                ("avg_clustering", "average clustering (true {avg_clustering_true:.4f})",
                 "{avg_clustering:.4f} (rel. error {clustering_rel_error:.3f})"),
                ("triangles", "triangles (true {triangles_true:,.0f})",
                 "{triangles:,.0f} (rel. error {triangles_rel_error:.3f})"),
                ("modularity", "modularity of true communities (true {modularity_true:.4f})",
                 "{modularity:.4f} (rel. error {modularity_rel_error:.3f})"),
                ("nmi", "community NMI (Louvain vs Louvain)", "{nmi:.4f}"),
                ("evc_overlap", "eigenvector-centrality top-1% overlap", "{evc_overlap:.3f}"),
                ("avg_path", "avg shortest path (true {avg_path_true:.3f})",
                 "{avg_path:.3f} (rel. error {path_rel_error:.3f})"),
                ("maxcut_transfer", "max-cut transfer", "{maxcut_transfer:.4f}")]


def format_synthetic_report(report: dict) -> str:
    """Readable text of :func:`synthetic_report`'s dict, headed NON-PRIVATE.

    One line per metric present in ``report`` (true value in the label, synthetic value and
    error on the right); the total-weight line only where a graph's total weight differs from
    its edge count; then a line per note (``notes``). The numbers read the true graph: do not publish them with a private
    release.

    Examples
    --------
    >>> import networkx as nx
    >>> P, C = nx.path_graph(6), nx.cycle_graph(6)   # C: P plus the edge {0, 5}
    >>> text = format_synthetic_report(synthetic_report(P, C, max_cut=False))
    >>> print(text.splitlines()[0][:22])
    NON-PRIVATE evaluation
    >>> print(text.splitlines()[1])
      edges (true 5)                                             6 (1.200x)
    >>> len(text.splitlines()), "max-cut transfer" in text  # max_cut=False: no such line
    (11, False)
    """
    lines = ["NON-PRIVATE evaluation (reads the true graph; do not publish these numbers as "
             "part of a private release)"]
    # the total-weight row where a graph's weights are not its edge count
    weighted = any(report.get(w, report.get(e)) != report.get(e)
                   for w, e in (("total_weight_true", "edges_true"), ("total_weight", "edges")))
    for key, name, value in _REPORT_ROWS:
        if key == "weight_ratio" and not weighted:  # the edges row says it all
            continue
        if key in report:
            lines.append(f"  {name.format(**report):<58} {value.format(**report)}")
    lines.extend(f"  note: {note}" for note in report.get("notes", ()))
    return "\n".join(lines)
