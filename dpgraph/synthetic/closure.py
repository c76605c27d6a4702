"""Triangle-closing rewiring of a synthetic sample (post-processing, docs/privacy.md 7.5).

The block model's samples close fewer wedges than the graph did: the affinity groups can use
only the counts the class table leaves inside a class, and a hub's neighbours come from many
blocks. :func:`release_synthetic` released the transitivity ``tau~`` of the graph's
``theta``-projection (:mod:`dpgraph.synthetic.clustering`), so a sample is rewired until *its
own* ``theta``-projection has that transitivity: the moment is matched on the statistic that
was released, the projection's bias included (:func:`close_triangles`).

Each move is a double edge swap of the 2.5K kind (Mahadevan et al., SIGCOMM 2006; Gjoka,
Kurant and Markopoulou, INFOCOM 2013): take a wedge ``u - v - w`` whose ends are not
adjacent, an edge ``u - a`` with ``a`` in ``w``'s class and an edge ``w - b`` with ``b`` in
``u``'s class (``a != b``, not adjacent, neither is ``v``); replace ``u - a`` and ``w - b`` by
``u - w`` and ``a - b``. Every degree and the edge count between every two classes stay as
sampled (the classes are the released blocks); where the samples lean across released cut
sides, the move is also refused unless it keeps the count of edges across them, so the
sample's cut of the sides stays as drawn. It is kept where it adds triangles. It reads the
sample, the released classes and sides and ``tau~`` only: no privacy cost.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpgraph.engine.local_search import jit, numba_available
from dpgraph.synthetic.clustering import bounded_projection, counted_nodes, projection_counts

__all__ = ["close_triangles", "closure_swaps", "batch_closure_swaps", "CLOSURE_STAGES",
           "CLOSURE_ATTEMPTS", "MAX_CLOSURE_ATTEMPTS", "BATCH_MAX_N", "BATCH_MAX_ENTRIES"]

# rounds of (measure the projection, swap towards it): the projection's share of the
# sample's triangles moves as triangles are added, so the target is re-read
CLOSURE_STAGES = 3
# swap attempts per sampled edge over all rounds, and at most this many: a time bound
# (0.5-1 million attempts a second, fewer where the rows scanned are long: a caveman graph
# of 1.8 * 10^6 edges took 38 s for 1.8 * 10^7 attempts, facebook 0.85 s for 880,000).
# About 4% of the attempts make a swap; at 10 per edge no shared graph's sample reached its
# released projection transitivity (chameleon at eps 1: 0.13 against 0.20-0.28), at 30 the
# samples close more of the graph's triangles (benchmarks/NOTES.md)
CLOSURE_ATTEMPTS = 30
MAX_CLOSURE_ATTEMPTS = 5_000_000
# graphs of at most this many nodes and stored entries (2 per edge) are rewired in NumPy
# rounds (batch_closure_swaps), so that a sample of a small graph does not load numba (about
# 110 MB of memory, the most of a small graph's release and sample); above either, numba's
# one-move-at-a-time kernel is faster and, as the rounds hold about 80 bytes per entry, leaner
# (4,000 nodes at density 0.5: 8 * 10^6 entries, 790 MB against 429 MB, 7.7 s against 2.4 s)
BATCH_MAX_N = 4096
BATCH_MAX_ENTRIES = 1 << 20
# each round of batch_closure_swaps draws nnz / BATCH_SHARE attempts, within BATCH_ATTEMPTS,
# and makes at most NODE_MOVES moves at one node; the common-neighbour scans go in chunks of
# SCAN_CHUNK entries: a round's memory is bounded whatever the degrees
BATCH_SHARE = 16
BATCH_ATTEMPTS = (1024, 8192)
NODE_MOVES = 64
SCAN_CHUNK = 1 << 20
# the edge set as a bitmap of n^2 bytes up to this size (16 MiB: n = 4096), else sorted keys
DENSE_EDGE_SET_BYTES = 1 << 24
# the sample's triangles are counted at a random subset of the nodes when the whole would
# cost more than this many wedge checks (sum of deg^2 over the subset; the product it
# forms holds up to that many entries, 12 bytes each)
MAX_COUNT_WORK = 4_000_000


@jit
def _common(indptr, indices, x, y, mark, stamp):
    """Common neighbours of ``x`` and ``y`` (rows may hold -1: a removed slot)."""
    for p in range(indptr[x], indptr[x + 1]):
        if indices[p] >= 0:
            mark[indices[p]] = stamp
    c = 0
    for p in range(indptr[y], indptr[y + 1]):
        z = indices[p]
        if z >= 0 and mark[z] == stamp:
            c += 1
    return c


@jit
def _slot(indptr, indices, x, y):
    """Position of ``y`` in ``x``'s row, or -1."""
    for p in range(indptr[x], indptr[x + 1]):
        if indices[p] == y:
            return p
    return -1


@jit
def _pick(indptr, indices, classes, x, cls, not1, not2):
    """Position in ``x``'s row of a uniformly chosen neighbour in class ``cls`` other than
    ``not1`` and ``not2`` (reservoir sampling over one scan), or -1."""
    seen = 0
    best = -1
    for p in range(indptr[x], indptr[x + 1]):
        z = indices[p]
        if z != not1 and z != not2 and classes[z] == cls:
            seen += 1
            if np.random.random() * seen < 1.0:
                best = p
    return best


@jit
def _swap_kernel(indptr, indices, classes, sides, cum, gain_needed, attempts, seed):
    """Closure swaps on a symmetric CSR (``indices`` rewritten in place; rows keep their
    lengths) until the triangles gained reach ``gain_needed`` or ``attempts`` wedges were
    drawn (centres with probability ``cum``'s increments, C(deg, 2)). Returns
    ``(gained, made, tried)``."""
    np.random.seed(seed)
    n = indptr.size - 1
    mark = np.zeros(n, dtype=np.int64)
    stamp = 0
    gained = 0
    made = 0
    tried = 0
    total = cum[n - 1]
    while tried < attempts and gained < gain_needed:
        tried += 1
        v = np.searchsorted(cum, np.random.random() * total, side="right")
        if v >= n:
            continue
        dv = indptr[v + 1] - indptr[v]
        if dv < 2:
            continue
        i = np.random.randint(dv)
        j = np.random.randint(dv - 1)
        if j >= i:
            j += 1
        u = indices[indptr[v] + i]
        w = indices[indptr[v] + j]
        if indptr[u + 1] - indptr[u] <= indptr[w + 1] - indptr[w]:
            if _slot(indptr, indices, u, w) >= 0:
                continue
        elif _slot(indptr, indices, w, u) >= 0:
            continue
        pua = _pick(indptr, indices, classes, u, classes[w], w, v)
        if pua < 0:
            continue
        pwb = _pick(indptr, indices, classes, w, classes[u], u, v)
        if pwb < 0:
            continue
        a = indices[pua]
        b = indices[pwb]
        if a == b or _slot(indptr, indices, a, b) >= 0:
            continue
        if (sides[u] != sides[w]) + (sides[a] != sides[b]) != \
                (sides[u] != sides[a]) + (sides[w] != sides[b]):
            continue  # the edges across the sides stay as many
        pau = _slot(indptr, indices, a, u)
        pbw = _slot(indptr, indices, b, w)
        # remove u-a, then w-b, then add u-w, then a-b, counting triangles at each step
        stamp += 1
        delta = -_common(indptr, indices, u, a, mark, stamp)
        indices[pua] = -1
        indices[pau] = -1
        stamp += 1
        delta -= _common(indptr, indices, w, b, mark, stamp)
        indices[pwb] = -1
        indices[pbw] = -1
        stamp += 1
        delta += _common(indptr, indices, u, w, mark, stamp)
        indices[pua] = w
        indices[pwb] = u
        stamp += 1
        delta += _common(indptr, indices, a, b, mark, stamp)
        indices[pau] = b
        indices[pbw] = a
        if delta <= 0:  # put the four ends back
            indices[pua] = a
            indices[pau] = u
            indices[pwb] = b
            indices[pbw] = w
            continue
        gained += delta
        made += 1
    return gained, made, tried


def closure_swaps(weights, classes, gain_needed: float, *, attempts: int, rng=None,
                  sides=None):
    """Rewire a simple unweighted graph by closure swaps (module docstring) until it has
    gained ``gain_needed`` triangles or ``attempts`` wedges were drawn; returns the new CSR
    (symmetric, sorted, unit weights) and ``{"gained", "made", "tried"}``. Degrees and the
    edge count between every two ``classes`` are those of ``weights``; with ``sides`` (+-1
    per node) the count of edges across the sides is too.

    Graphs of at most ``BATCH_MAX_N`` nodes and ``BATCH_MAX_ENTRIES`` stored entries, and
    every graph where numba is not installed, are rewired in rounds of moves drawn at once
    (:func:`batch_closure_swaps`); larger ones one move at a time by a numba kernel.
    ``gained`` is exact either way.

    A 6-cycle in one class has no triangle; one swap (wedge 0 - 1 - 2, edges 0 - 5 and 2 - 3
    out, 0 - 2 and 5 - 3 in) makes two, 0 - 1 - 2 and 3 - 4 - 5, and keeps every degree:

    >>> import networkx as nx
    >>> A = nx.to_scipy_sparse_array(nx.cycle_graph(6))
    >>> B, info = closure_swaps(A, np.zeros(6, dtype=int), 1, attempts=1000, rng=0)
    >>> info["gained"], np.diff(B.indptr).tolist()
    (2, [2, 2, 2, 2, 2, 2])
    """
    M = sp.csr_array(weights)
    if not M.has_canonical_format:  # sorted, no repeated entry; the caller's matrix untouched
        M = M.copy()
        M.sum_duplicates()
    n = M.shape[0]
    if (n <= BATCH_MAX_N and M.nnz <= BATCH_MAX_ENTRIES) or not numba_available():
        return batch_closure_swaps(M, classes, gain_needed, attempts=attempts, rng=rng,
                                   sides=sides)
    indptr = M.indptr.astype(np.int64)
    indices = M.indices.astype(np.int64)
    deg = np.diff(indptr).astype(float)
    cum = np.cumsum(deg * (deg - 1.0) / 2.0)
    info = {"gained": 0, "made": 0, "tried": 0}
    if cum[-1] <= 0 or gain_needed <= 0 or attempts <= 0:
        return M, info
    seed = int(np.random.default_rng(rng).integers(2**31 - 1))
    b = np.asarray(classes, dtype=np.int64)
    s = np.zeros(n, dtype=np.int64) if sides is None else (np.asarray(sides) > 0).astype(np.int64)
    gained, made, tried = _swap_kernel(indptr, indices, b, s, cum, float(gain_needed),
                                       int(attempts), seed)
    out = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    out.sort_indices()
    return out, {"gained": int(gained), "made": int(made), "tried": int(tried)}


class _EdgeSet:
    """The ordered pairs ``x * n + y`` of a graph's edges (both directions): a bitmap of
    ``n^2`` bytes up to ``DENSE_EDGE_SET_BYTES``, else a sorted array."""

    def __init__(self, keys, n: int):
        self.dense = n * n <= DENSE_EDGE_SET_BYTES
        if self.dense:
            self.bits = np.zeros(n * n, dtype=bool)
            self.bits[keys] = True
        else:
            self.keys = np.sort(keys)

    def has(self, q):
        if self.dense:
            return self.bits[q]
        return _in_sorted(self.keys, q)

    def replace(self, gone, new):
        """Remove the pairs ``gone`` (present) and add ``new`` (absent)."""
        if self.dense:
            self.bits[gone] = False
            self.bits[new] = True
        else:
            kept = self.keys[~_in_sorted(np.sort(gone), self.keys)]
            new = np.sort(new)
            self.keys = np.insert(kept, np.searchsorted(kept, new), new)


def _in_sorted(keys, q):
    """Whether each entry of ``q`` is in the sorted array ``keys``."""
    if keys.size == 0:
        return np.zeros(np.shape(q), dtype=bool)
    pos = np.minimum(np.searchsorted(keys, q), keys.size - 1)
    return keys[pos] == q


def _common_counts(indptr, col, edges: _EdgeSet, n: int, x, y):
    """``|N(x) & N(y)|`` for each pair, scanning the shorter row of ``col`` (rows may be in
    any order within them), about ``SCAN_CHUNK`` entries at a time."""
    dx = indptr[x + 1] - indptr[x]
    dy = indptr[y + 1] - indptr[y]
    flip = dy < dx
    s, t, ds = np.where(flip, y, x), np.where(flip, x, y), np.minimum(dx, dy)
    out = np.zeros(x.size, dtype=np.int64)
    ends = np.cumsum(ds)
    lo = 0
    while lo < x.size:
        hi = max(int(np.searchsorted(ends, (ends[lo] - ds[lo]) + SCAN_CHUNK, side="right")),
                 lo + 1)
        d = ds[lo:hi]
        total = int(d.sum())
        if total:
            pair = np.repeat(np.arange(lo, hi), d)
            start = np.repeat(indptr[s[lo:hi]] - (np.cumsum(d) - d), d)
            z = col[start + np.arange(total)]
            out[lo:hi] = np.bincount(pair[edges.has(t[pair] * n + z)] - lo, minlength=hi - lo)
        lo = hi
    return out


def _runs(sorted_keys):
    """For a sorted array: each entry's run length and its place within its run of equal
    keys."""
    start = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    length = np.diff(np.r_[start, sorted_keys.size])
    return (np.repeat(length, length),
            np.arange(sorted_keys.size) - np.repeat(start, length))


def _pairs_at_shared_nodes(i, j):
    """For undirected edges ``(i, j)``: the other ends ``(y, z)`` of every two edges that
    share a node (an edge pair meeting at ``x`` gives ``(y, z)``, the wedge's open side)."""
    x = np.concatenate([i, j])
    y = np.concatenate([j, i])
    order = np.argsort(x, kind="stable")
    y = y[order]
    size, rank = _runs(x[order])  # each edge end's group at its node, and its place there
    later = size - rank - 1       # partners after it in the group
    first = np.repeat(np.arange(x.size), later)
    offset = np.arange(first.size) - np.repeat(np.cumsum(later) - later, later)
    return y[first], y[first + 1 + offset]


def _triangles_through(indptr, col, edges: _EdgeSet, n: int, i, j) -> int:
    """Triangles of the graph with at least one of the (distinct, present) edges ``(i, j)``:
    ``sum_e c(e) - Q + T`` (a triangle with ``k`` of them is counted ``k`` times by the common
    neighbour counts ``c``, ``C(k, 2)`` times by ``Q``, the pairs of them meeting at a node
    whose open side is an edge, and ``T`` counts those with all three)."""
    total = int(_common_counts(indptr, col, edges, n, i, j).sum())
    y, z = _pairs_at_shared_nodes(i, j)
    closed = edges.has(y * n + z)
    mine = np.sort(np.concatenate([i * n + j, j * n + i]))
    inside = closed & _in_sorted(mine, y * n + z)
    return total - int(closed.sum()) + int(inside.sum()) // 3


def batch_closure_swaps(weights, classes, gain_needed: float, *, attempts: int, rng=None,
                        sides=None):
    """:func:`closure_swaps` in rounds of moves drawn at once (NumPy; no numba). Each round
    draws ``nnz / BATCH_SHARE`` attempts (within ``BATCH_ATTEMPTS``) as the sequential kernel
    does (wedge centres with probability ``C(deg, 2)``, the two ends, then ``a`` and ``b``
    uniformly among the ends' neighbours in the right class), checks them on the graph as the
    round found it, and makes those whose triangle gain, counted on that graph, is positive,
    in draw order until the gain asked for is reached; a move with an edge that an earlier
    move of the round removes or adds, or with a node in ``NODE_MOVES`` earlier moves, is left
    out. Moves sharing a node are made together, so the round's gain is counted again exactly
    on the rewired graph (:func:`_triangles_through`). Every degree, every class-pair count
    and the count across ``sides`` stay, move by move. The swaps keep every row's count of
    neighbours in each class, so the rows are held grouped by class once and each move
    rewrites four entries in place.

    The gain it reports is the change in the graph's triangle count:

    >>> import networkx as nx
    >>> A = nx.to_scipy_sparse_array(nx.gnm_random_graph(200, 1200, seed=1), format="csr")
    >>> B, info = batch_closure_swaps(A, np.zeros(200, dtype=int), 300, attempts=50_000, rng=0)
    >>> triangles = lambda M: round((M @ M @ M).diagonal().sum()) // 6
    >>> triangles(B) - triangles(A) == info["gained"] >= 300, (B != B.T).nnz
    (True, 0)
    """
    M = sp.csr_array(weights)
    if not M.has_canonical_format:
        M = M.copy()
        M.sum_duplicates()
    n = M.shape[0]
    gen = np.random.default_rng(rng)
    indptr = M.indptr.astype(np.int64)
    deg = np.diff(indptr)
    cum = np.cumsum(deg * (deg - 1) / 2.0)
    info = {"gained": 0, "made": 0, "tried": 0}
    if n == 0 or cum[-1] <= 0 or gain_needed <= 0 or attempts <= 0:
        return M, info
    cls = np.unique(np.asarray(classes), return_inverse=True)[1].astype(np.int64).ravel()
    k = int(cls.max()) + 1
    side = (np.zeros(n, dtype=np.int64) if sides is None
            else (np.asarray(sides) > 0).astype(np.int64))
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    indices = M.indices.astype(np.int64)
    # rows grouped by class: a (row, class) key's entries are contiguous, and stay so
    group = rows * k + cls[indices]
    order = np.argsort(group, kind="stable")
    group, col = group[order], indices[order]
    # rev[p]: the position of the reverse of entry p
    fwd = rows * n + col
    by_key = np.argsort(fwd)
    rev = by_key[np.searchsorted(fwd[by_key], col * n + rows)]
    edges = _EdgeSet(fwd, n)
    del fwd, by_key, order, indices, rows
    batch = int(np.clip(int(M.nnz) // BATCH_SHARE, *BATCH_ATTEMPTS))
    gained = made = tried = 0
    while tried < attempts and gained < gain_needed:
        size = min(batch, int(attempts) - tried)
        tried += size
        v = np.searchsorted(cum, gen.random(size) * cum[-1], side="right")
        v = v[v < n]
        v = v[deg[v] >= 2]
        dv = deg[v]
        i = (gen.random(v.size) * dv).astype(np.int64)
        j = (gen.random(v.size) * (dv - 1)).astype(np.int64)
        j += j >= i
        u, w = col[indptr[v] + i], col[indptr[v] + j]
        keep = ~edges.has(u * n + w)
        v, u, w = v[keep], u[keep], w[keep]
        pua = _pick_in_class(group, gen, u * k + cls[w])
        pwb = _pick_in_class(group, gen, w * k + cls[u])
        keep = (pua >= 0) & (pwb >= 0)
        v, u, w, pua, pwb = v[keep], u[keep], w[keep], pua[keep], pwb[keep]
        a, b = col[pua], col[pwb]
        keep = (a != v) & (b != v) & (a != b)
        keep &= ~edges.has(a * n + b)
        keep &= ((side[u] != side[w]).astype(np.int64) + (side[a] != side[b])
                 == (side[u] != side[a]).astype(np.int64) + (side[w] != side[b]))
        u, w, a, b, pua, pwb = (x[keep] for x in (u, w, a, b, pua, pwb))
        if u.size == 0:
            continue
        lost_ua = _common_counts(indptr, col, edges, n, u, a)
        lost_wb = _common_counts(indptr, col, edges, n, w, b)
        # the sequential kernel's count: out u-a, out w-b, in u-w, in a-b (module docstring)
        gain = (_common_counts(indptr, col, edges, n, u, w)
                + _common_counts(indptr, col, edges, n, a, b)
                - lost_ua - lost_wb
                - edges.has(a * n + w) - edges.has(b * n + u)
                - edges.has(u * n + b) - edges.has(w * n + a))
        keep = gain > 0
        if not keep.any():
            continue
        keep[keep] = _own_edges(n, *(x[keep] for x in (u, w, a, b)))
        u, w, a, b, pua, pwb, gain = (x[keep] for x in (u, w, a, b, pua, pwb, gain))
        stop = int(np.searchsorted(np.cumsum(gain), gain_needed - gained)) + 1
        u, w, a, b, pua, pwb = (x[:stop] for x in (u, w, a, b, pua, pwb))
        before = _triangles_through(indptr, col, edges, n, np.r_[u, w], np.r_[a, b])
        pau, pbw = rev[pua], rev[pwb]
        col[pua], col[pwb], col[pau], col[pbw] = w, u, b, a
        rev[pua], rev[pwb], rev[pau], rev[pbw] = pwb, pua, pbw, pau
        edges.replace(np.concatenate([u * n + a, a * n + u, w * n + b, b * n + w]),
                      np.concatenate([u * n + w, w * n + u, a * n + b, b * n + a]))
        gained += _triangles_through(indptr, col, edges, n, np.r_[u, a], np.r_[w, b]) - before
        made += u.size
    out = sp.csr_array((np.ones(col.size), col, indptr), shape=(n, n))
    out.sort_indices()
    return out, {"gained": int(gained), "made": int(made), "tried": int(tried)}


def _pick_in_class(group, gen, keys):
    """For each ``row * k + class`` key, the position of a uniformly chosen entry of that row
    in that class (``group`` sorted), or -1 where there is none."""
    lo = np.searchsorted(group, keys, side="left")
    count = np.searchsorted(group, keys, side="right") - lo
    pick = lo + (gen.random(keys.size) * count).astype(np.int64)
    return np.where(count > 0, pick, -1)


def _own_edges(n: int, u, w, a, b):
    """Which moves (out ``u-a``, ``w-b``; in ``u-w``, ``a-b``) touch no edge that an earlier
    move of the list also removes or adds, and no node that ``NODE_MOVES`` earlier ones
    touch (the four nodes of a move are distinct)."""
    lo, hi = np.minimum, np.maximum
    pairs = np.concatenate([lo(u, a) * n + hi(u, a), lo(w, b) * n + hi(w, b),
                            lo(u, w) * n + hi(u, w), lo(a, b) * n + hi(a, b)])
    move = np.tile(np.arange(u.size), 4)
    inverse = np.unique(pairs, return_inverse=True)[1].ravel()
    first = np.full(inverse.max() + 1, u.size, dtype=np.int64)
    np.minimum.at(first, inverse, move)
    own = (first[inverse] == move).reshape(4, -1).all(axis=0)
    nodes = np.concatenate([u, w, a, b])
    order = np.lexsort((move, nodes))
    rank = np.empty(nodes.size, dtype=np.int64)
    rank[order] = _runs(nodes[order])[1]  # earlier moves at the same node
    return own & (rank < NODE_MOVES).reshape(4, -1).all(axis=0)


def _transitivity(M, gen) -> float:
    """Transitivity of ``M`` (NOT PRIVATE: of a sample), from the triangles at a public random
    subset of the nodes where the whole would cost more than ``MAX_COUNT_WORK``."""
    deg = np.diff(M.indptr).astype(float)
    work = deg * deg
    nodes = None
    if work.sum() > MAX_COUNT_WORK:
        order = gen.permutation(M.shape[0])
        nodes = np.sort(order[: max(int(np.searchsorted(np.cumsum(work[order]),
                                                        MAX_COUNT_WORK)), 1)])
    t, w = projection_counts(M, nodes)
    return float(t / w) if w > 0 else 0.0


def close_triangles(weights, classes, transitivity: float, theta: int, *, rng=None,
                    stages: int = CLOSURE_STAGES, attempts: int = CLOSURE_ATTEMPTS,
                    sides=None):
    """Rewire a sample until its ``theta``-projection's transitivity reaches the released
    ``transitivity`` (post-processing; module docstring). Each of at most ``stages`` rounds
    measures the sample's transitivity ``t`` and its projection's ``p`` (the projection of
    :func:`~dpgraph.synthetic.clustering.bounded_projection` in a fresh random order) and,
    where ``p`` is short, asks the swaps for ``(transitivity - p) t / p`` more of it (``W/3``
    triangles per unit, ``W`` the wedges, which the swaps keep; ``sides``: as for
    :func:`closure_swaps`). Returns the CSR and
    ``{"made", "projection_before", "projection_after"}``.

    A random graph (transitivity about 0.04) in two classes, rewired to 0.2 with a cap above
    every degree (the projection is then the graph itself):

    >>> import networkx as nx
    >>> A = nx.to_scipy_sparse_array(nx.gnm_random_graph(400, 3000, seed=5))
    >>> B, info = close_triangles(A, np.arange(400) % 2, 0.2, 60, rng=0)
    >>> round(info["projection_before"], 2), info["projection_after"] >= 0.2
    (0.04, True)
    """
    gen = np.random.default_rng(rng)
    M = sp.csr_array(weights)
    n = M.shape[0]
    deg = np.diff(M.indptr).astype(float)
    wedges = float((deg * (deg - 1.0) / 2.0).sum())
    budget = min(int(attempts) * int(M.nnz // 2), MAX_CLOSURE_ATTEMPTS)
    info = {"made": 0, "projection_before": None, "projection_after": None}
    if transitivity <= 0:  # every projection has at least that: nothing to measure
        return M, info
    for stage in range(int(stages) + 1):
        P = bounded_projection(M, int(theta), gen.permutation(n))
        t_p, w_p = projection_counts(P, counted_nodes(gen, P, int(theta)))
        del P
        p = float(t_p / w_p) if w_p > 0 else 0.0
        info["projection_after"] = p
        if info["projection_before"] is None:
            info["projection_before"] = p
        if stage == int(stages) or p >= transitivity or p <= 0 or budget <= 0:
            break
        t = _transitivity(M, gen)
        need = (transitivity - p) * t / p * wedges / 3.0
        M, got = closure_swaps(M, classes, need, attempts=budget, rng=gen, sides=sides)
        info["made"] += got["made"]
        budget -= got["tried"]
        if got["made"] == 0:
            break
    return M, info
