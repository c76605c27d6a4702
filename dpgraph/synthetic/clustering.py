"""The clustering release of :func:`dpgraph.release_synthetic` (docs/privacy.md 7.11).

Triangle counts have global sensitivity ``n - 2`` under edge adjacency (one pair closes a
triangle with every common neighbour), so they are released on a bounded projection of the
graph (:func:`bounded_projection`): every node keeps at most ``theta`` of its neighbours, the
first in a uniformly random order of the nodes drawn by the mechanism, and an edge stays when
both endpoints keep it. One pair changes that projection by at most three edges (the pair
itself, added, and one evicted edge at each endpoint, removed), and in a graph of maximum
degree ``theta`` one edge lies in at most ``theta - 1`` triangles: so the triangle corners
``T = sum_v t_v`` and wedges ``W = sum_v C(deg_v, 2)`` of the projection have L1 sensitivity
``8 (theta - 1)`` (:func:`clustering_sensitivity`; attained). Their ratio is the projection's transitivity, the released
estimate of the graph's; the sampler's clustering phase
(:func:`~dpgraph.synthetic.sampler.affinity_edges`) turns it into an affinity density.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData
from dpgraph.privacy import PrivacyLedger, laplace_mechanism, make_rng

__all__ = ["bounded_projection", "projection_counts", "counted_nodes", "clustering_sensitivity",
           "projection_cap", "release_transitivity", "affinity_density", "clustering_informative",
           "MIN_CAP", "MAX_CAP", "MAX_WEDGE_WORK"]

# theta, the projection's degree cap, is twice the released mean degree within these bounds:
# it keeps most nodes' neighbourhoods whole, and the noise grows with it
MIN_CAP = 8
MAX_CAP = 64
# the corners are counted on a public random subset of the nodes when the whole would cost
# more than this many wedge checks (sum of deg^2 over the subset): the sums over a subset
# have the same sensitivity bound
MAX_WEDGE_WORK = 20_000_000


def projection_cap(edge_count: float, n: int) -> int:
    """The degree cap ``theta`` (a public function of the released edge count and ``n``):
    twice the released mean degree, clipped to ``[MIN_CAP, MAX_CAP]``.

    >>> projection_cap(31_421, 2_277), projection_cap(78, 34), projection_cap(10**7, 10**5)
    (55, 9, 64)
    """
    mean_degree = 2.0 * max(float(edge_count), 0.0) / max(int(n), 1)
    return int(np.clip(round(2.0 * mean_degree), MIN_CAP, MAX_CAP))


def clustering_informative(edge_count: float, epsilon: float) -> bool:
    """Whether :func:`release_transitivity` at ``epsilon`` can say anything (a public function of
    the released edge count ``m~``): its Laplace scale ``8 (theta - 1) / epsilon`` is at most
    ``m~ (theta - 1)``, the most corners ``m~`` edges can hold in a graph of maximum degree
    ``theta`` (each edge lies in at most ``theta - 1`` triangles), i.e. ``m~ epsilon >= 8``.
    Karate (78 edges) at 5% of epsilon 1 is not; chameleon (31,371) at 5% of 0.1 is.

    >>> clustering_informative(78, 0.05), clustering_informative(31_371, 0.005)
    (False, True)
    """
    return float(edge_count) * float(epsilon) >= 8.0


def clustering_sensitivity(theta: int) -> float:
    """L1 sensitivity of ``(T, W)`` on the ``theta``-projection: ``8 (theta - 1)``
    (docs/privacy.md 7.11: two evicted edges remove at most ``6 (theta - 1)`` corners and the
    added pair's wedges cancel the evicted ones at its endpoints, leaving at most
    ``2 (theta - 1)`` wedges; a pair without evictions moves at most ``5 (theta - 1)``).

    >>> clustering_sensitivity(3)
    16.0
    """
    return 8.0 * (int(theta) - 1)


def bounded_projection(weights, theta: int, order) -> sp.csr_array:
    """The ``theta``-projection of a graph (NOT PRIVATE; :func:`release_transitivity` releases
    counts of it): node ``u`` keeps the ``theta`` neighbours ``v`` (edges of positive weight)
    with the smallest ``order[v]``, and the edge ``{u, v}`` stays when ``u`` keeps ``v`` and
    ``v`` keeps ``u``. Maximum degree ``theta``; a 0/1 symmetric CSR without diagonal.

    Examples
    --------
    A star with 4 leaves and cap 2: the centre keeps the two leaves first in the order.

    >>> A = sp.csr_array(([1.0] * 8, ([0, 0, 0, 0, 1, 2, 3, 4], [1, 2, 3, 4, 0, 0, 0, 0])),
    ...                  shape=(5, 5))
    >>> P = bounded_projection(A, 2, np.array([0, 3, 1, 4, 2]))
    >>> sorted(P.indices[P.indptr[0]:P.indptr[1]].tolist())
    [2, 4]
    """
    A = sp.csr_array(weights)
    if not A.has_canonical_format:  # a copy: the caller's matrix stays as it was
        A = A.copy()
        A.sum_duplicates()
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    edge = (cols != rows) & (A.data > 0)  # edges of positive weight, no self-loop
    rows, cols = rows[edge], cols[edge]
    deg = np.bincount(rows, minlength=n)
    kept = np.ones(rows.size, dtype=bool)
    # only rows with more than theta neighbours choose: sort their entries by (row, order)
    # (one key, a stable sort of that share of the entries: the whole lexsort took 6.8 of the
    # projection's 12.8 s on a 10^6-node graph whose rows over the cap hold 17% of the entries)
    over = np.flatnonzero(deg[rows] > int(theta))
    if over.size:
        key = rows[over] * n + np.asarray(order, dtype=np.int64)[cols[over]]
        srt = over[np.argsort(key, kind="stable")]
        first = np.searchsorted(rows[srt], rows[srt])  # where each row's run starts in srt
        kept[srt] = (np.arange(srt.size) - first) < int(theta)
    K = sp.csr_array((np.ones(int(kept.sum())), (rows[kept], cols[kept])), shape=(n, n))
    P = K.multiply(K.T).tocsr()
    P.data[:] = 1.0
    return P


def projection_counts(P, nodes=None) -> np.ndarray:
    """``[T, W]`` of a projection ``P`` (NOT PRIVATE): ``T`` the sum over ``nodes`` (default
    all) of the triangles at each node, ``W`` the sum of ``C(deg, 2)``; ``T / W`` is the
    transitivity of ``P`` when ``nodes`` is all of them.

    >>> K4 = sp.csr_array(np.ones((4, 4)) - np.eye(4))
    >>> projection_counts(K4).tolist()  # 4 triangles x 3 corners, 4 x C(3, 2) wedges
    [12.0, 12.0]
    """
    P = sp.csr_array(P)
    rows = np.arange(P.shape[0]) if nodes is None else np.asarray(nodes, dtype=np.int64)
    S = P[rows]
    deg = np.diff(S.indptr).astype(float)
    tri = float((S @ P).multiply(S).sum()) / 2.0
    return np.array([tri, float((deg * (deg - 1) / 2.0).sum())])


def counted_nodes(gen, P, theta: int) -> np.ndarray | None:
    """The nodes to count a ``theta``-projection ``P``'s triangles at: all (None), or a
    uniform subset drawn from ``gen`` (not from the graph) whose wedge checks fit in
    ``MAX_WEDGE_WORK`` (at most ``theta^2`` per node).

    >>> P = sp.csr_array((10**6, 10**6))
    >>> counted_nodes(np.random.default_rng(0), P, 64).size, MAX_WEDGE_WORK // 64**2
    (4882, 4882)
    """
    n = P.shape[0]
    cap = max(int(MAX_WEDGE_WORK // max(theta * theta, 1)), 1)
    return None if n <= cap else np.sort(gen.choice(n, size=cap, replace=False))


def release_transitivity(data: GraphData, *, theta: int, epsilon: float,
                         ledger: PrivacyLedger, rng=None, order=None) -> dict:
    """Release the transitivity of the ``theta``-projection of ``data`` (pure
    ``epsilon``-DP, docs/privacy.md 7.11): a uniformly random node order (independent of the
    graph), :func:`bounded_projection`, then ``[T, W]`` (:func:`projection_counts`, on a
    public random subset of the nodes where the whole is too costly) with Laplace noise of
    scale ``8 (theta - 1) / epsilon``. ``theta`` must depend on ``data`` only through
    earlier releases (adaptive composition); ``order`` (default: drawn from ``rng``) fixes the
    node order, which must not depend on ``data`` (the audit fixes it). Returns ``{"transitivity": T~ / W~ clipped to
    [0, 1] (0 where W~ <= 0), "corners": T~, "wedges": W~, "cap": theta, "scale": b}``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> out = release_transitivity(data, theta=9, epsilon=1.0, ledger=led, rng=0)
    >>> 0 <= out["transitivity"] <= 1, round(led.spent[0], 6)
    (True, 1.0)
    """
    theta = int(theta)
    if theta < 2:
        raise ValueError(f"theta must be at least 2, got {theta!r}")
    gen = make_rng(rng)
    order = gen.permutation(data.n) if order is None else np.asarray(order)
    if order.shape != (data.n,):
        raise ValueError(f"order must rank each of the {data.n} nodes")
    P = bounded_projection(data.weights, theta, order)
    nodes = counted_nodes(gen, P, theta)
    counts = projection_counts(P, nodes)
    del P
    sens = clustering_sensitivity(theta)
    noisy, scale = laplace_mechanism(
        counts, sensitivity=sens, epsilon=epsilon, ledger=ledger,
        name="synthetic: projection triangles and wedges", rng=gen,
        note=f"cap {theta}: 3 projected edges change, L1 <= 8 (cap - 1) "
             "(docs/privacy.md 7.11)")
    t, w = (float(x) for x in np.atleast_1d(noisy))
    tau = float(np.clip(t / w, 0.0, 1.0)) if w > 0 else 0.0
    return {"transitivity": tau, "corners": t, "wedges": w, "cap": theta, "scale": float(scale),
            "counted_nodes": data.n if nodes is None else int(nodes.size)}


def affinity_density(transitivity: float) -> float:
    """The affinity groups' edge density for a released transitivity ``tau``: BTER's
    ``tau ** (1/3)`` (a group of density ``rho`` closes its wedges with probability ``rho``,
    and a node's wedges inside its group are a ``rho^2`` share of its own wedges there).

    >>> round(affinity_density(0.125), 3)
    0.5
    """
    return float(np.clip(transitivity, 0.0, 1.0)) ** (1.0 / 3.0)
