"""Sample a simple graph from a released degree-corrected block model (post-processing).

:func:`sample_block_model` (docs/privacy.md 7.5): one anchor edge per node (no isolated
nodes), then for every block pair ``(a, b)`` exactly ``k_ab`` distinct edges whose endpoints
are drawn with probability proportional to the released degrees inside (or across) blocks
(Chung-Lu within and between blocks, the degree-corrected stochastic block model of Karrer &
Newman 2011), rejecting self-loops and repeated pairs. Expected time ``O((m + n) log n)``,
memory ``O(m + n + k^2)``: no n x n array, so any route (the matrix-free one included) can
call it with ``(blocks, block_counts, degrees)``. The sampled graph has exactly
``sum_{a <= b} k_ab`` edges (block counts capped at the pairs a block pair has).
:func:`restore_degrees` then gives the hubs whose block pairs were used up the edges those
pairs could not hold, from nodes of their community that got more than theirs.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData, canonical_graph, label_sequence, matrix_labels
from dpgraph.privacy import make_rng
from dpgraph.progress import progress
from dpgraph.synthetic.block_model import check_blocks

__all__ = ["sample_block_model", "affinity_edges", "restore_degrees", "symmetric_from_keys",
           "ANCHOR_RETRIES", "FILL_ENUMERATE", "FILL_CHUNK", "AFFINITY_MAX_GROUP",
           "AFFINITY_MIN_GROUP", "RESTORE_SLACK", "RESTORE_ROUNDS", "RESTORE_POOL", "RESTORE_MOVES",
           "RESTORE_MAX_MOVES", "LOCAL_MODULARITY", "LOCAL_MODULARITY_FLOOR",
           "released_modularity",
           "community_locality"]

# a node whose anchor edge was rejected (its block pair's count used up) draws again, at most
# this many times
ANCHOR_RETRIES = 5
# _search_sorted sorts its queries from this many on (a sort is cheaper than random binary
# searches)
SORT_QUERIES_FROM = 65_536
# node pairs of a block pair the final fill draws from by weight (more: uniform pairs with
# rejection), enumerated at most FILL_CHUNK at a time (about 9 arrays of 8 bytes per pair:
# 38 MB), keeping the best keys so far
FILL_ENUMERATE = 4_000_000
FILL_CHUNK = 1 << 19
# work (pairs drawn plus pairs held, summed over its rounds) the final fill's uniform rejection
# may spend on a block pair, in units of the block pair's node pairs, before it enumerates the
# rest: where nearly every free pair is needed (a clique's block), each round's draws land on
# taken pairs but for about need / pairs of them, a coupon collector of O(pairs) rounds of
# O(need) each (a 3,000-node clique among 10^6 isolated nodes sampled for over 400 s). Fills
# of 0.5 and 0.9 of the free pairs of a block pair 0 %, 50 % and 90 % taken spent 0.75-1.7 and
# 12-16 units; rounded up, so that they sample as before
FILL_REJECTION_WORK = 64
# the largest affinity group of the clustering phase: a hub's group would otherwise hold
# d + 1 nodes (d(d+1)/2 candidate pairs); hubs cluster little, and their other edges go to
# the Chung-Lu phase
AFFINITY_MAX_GROUP = 128
# the smallest affinity group sized by its block's count (three nodes close a triangle)
AFFINITY_MIN_GROUP = 3
# a block whose released edge ends lie in its own community less than this share forms its
# affinity groups in one pool with the other such blocks, across communities (_affinity_pools)
AFFINITY_COMMUNITY_SHARE = 0.7
# a pooled block's groups are sized by its released edge ends into the pooled blocks whose
# mean released degree lies within this factor of its own: the groups are cut from nodes in
# order of degree, so a group reaches only blocks of about its own degree (_pool_fill)
AFFINITY_DEGREE_RATIO = 2.0
# restore_degrees: a node is short of its released degree when it has fewer edges than the
# degree less this many times its square root (the Chung-Lu draw's own spread, Poisson-like)
RESTORE_SLACK = 2.0
RESTORE_ROUNDS = 6
RESTORE_POOL = 2**20  # edge ends drawn from when the moves are few against the edges
# moves proposed per missing edge in the first round, doubled each round up to the second: a
# hub that already neighbours most of its community finds few ends it can take (facebook at
# eps 2: 550 of 690 proposals hit a pair the hub has, and 6 rounds of 2 left it 190 short)
RESTORE_MOVES, RESTORE_MAX_MOVES = 2, 16


def _draw_endpoints(gen, cdf: tuple, block_ids: np.ndarray) -> np.ndarray:
    """One endpoint per entry of ``block_ids``, drawn proportional to weight inside the block:
    one binary search in the concatenated cumulative weights of :func:`_cdfs` for all blocks
    (a loop over blocks costs a pass per block, and blocks x degree classes are many)."""
    order, cum, base, tot, off = cdf
    r = base[block_ids] + gen.random(block_ids.size) * tot[block_ids]
    pos = np.searchsorted(cum, r, side="right")
    return order[np.clip(pos, off[block_ids], off[block_ids + 1] - 1)]


def _cdfs(w: np.ndarray, members: list) -> tuple:
    """Cumulative endpoint weights of all blocks, concatenated in block order (uniform where a
    block's weights sum to 0): ``(nodes, cumsum, start of each block, block total, offsets)``."""
    k = len(members)
    sizes = np.array([m.size for m in members], dtype=np.int64)
    order = np.concatenate(members) if k else np.zeros(0, dtype=np.int64)
    blk = np.repeat(np.arange(k), sizes)
    x = np.asarray(w, dtype=float)[order]
    tot = np.bincount(blk, weights=x, minlength=k)
    x = np.where(tot[blk] > 0, x, 1.0)
    tot = np.bincount(blk, weights=x, minlength=k)
    cum = np.cumsum(x)
    off = np.concatenate([[0], np.cumsum(sizes)])
    base = np.concatenate([[0.0], cum])[off[:-1]]
    return order, cum, base, tot, off


def _search_sorted(a: np.ndarray, q: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted(a, q, side)``, with many queries searched in sorted order, which walks
    ``a`` once instead of at random (1.7 million queries into 10^7 keys took 2.2 s in random
    order); the same result."""
    if q.size < SORT_QUERIES_FROM:
        return np.searchsorted(a, q, side=side)
    order = np.argsort(q)
    out = np.empty(q.size, dtype=np.int64)
    out[order] = np.searchsorted(a, q[order], side=side)
    return out


def _absent(keys: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Mask of the entries of ``cand`` not in the sorted array ``keys`` (binary search)."""
    if not keys.size:
        return np.ones(cand.size, dtype=bool)
    return keys[np.minimum(_search_sorted(keys, cand), keys.size - 1)] != cand


def _fill_remaining(gen, keys, members, ia, ib, need, n, weights, inner):
    """Place the edges that the rejection rounds did not (nearly complete block pairs, hubs
    whose pairs are used up): for each block pair, ``need`` distinct free pairs ``{u, v}``
    drawn without replacement with probability proportional to ``w_u w_v`` (Efraimidis and
    Spirakis 2006: the largest keys ``log(U) / (w_u w_v)``), ``weights = (inside, across)``.
    Block pairs of more than ``FILL_ENUMERATE`` node pairs are not enumerated (memory): their
    free pairs are many, so uniform pairs with rejection fill them."""
    extra = []  # block pairs are disjoint: one pair's extra edges never meet another's
    for p in np.flatnonzero(need):
        ma, mb = members[ia[p]], members[ib[p]]
        w = weights[0] if inner[p] else weights[1]
        if ma.size * mb.size > FILL_ENUMERATE:
            extra.append(_fill_by_rejection(gen, keys, ma, mb, int(need[p]), n, w,
                                            ia[p] == ib[p]))
            continue
        extra.append(_fill_by_weight(gen, keys, ma, mb, int(need[p]), n, w, ia[p] == ib[p]))
    return np.sort(np.concatenate([keys, *extra]), kind="stable") if extra else keys


def _fill_by_weight(gen, keys, ma, mb, need, n, w, same):
    """``need`` distinct free pairs ``{u, v}`` (``u`` in ``ma``, ``v`` in ``mb``, ``u < v``
    where the two are one block: ``same``), drawn without replacement with probability
    proportional to ``w_u w_v`` (Efraimidis and Spirakis's keys ``log(U) / (w_u w_v)``, the
    largest kept). The pairs are enumerated ``FILL_CHUNK`` at a time, in one fixed order, and
    only the best ``need`` keys so far are kept: the keys are those of one enumeration of all
    the pairs, and the memory is the chunk's."""
    best_key, best = np.zeros(0), np.zeros(0, dtype=np.int64)
    rows = max(1, FILL_CHUNK // max(mb.size, 1))
    for s in range(0, ma.size, rows):
        u, v = np.meshgrid(ma[s:s + rows], mb, indexing="ij")
        u, v = u.ravel(), v.ravel()
        if same:
            keep = u < v
            u, v = u[keep], v[keep]
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        del u, v
        cand = lo * n + hi  # distinct
        free = _absent(keys, cand)
        cand, lo, hi = cand[free], lo[free], hi[free]
        key = np.log(gen.random(cand.size)) / np.maximum(w[lo] * w[hi], 1e-300)
        del lo, hi
        best_key, best = np.concatenate([best_key, key]), np.concatenate([best, cand])
        if best.size > need:
            top = np.argpartition(-best_key, need - 1)[:need] if need else best[:0]
            best_key, best = best_key[top], best[top]
    return best


def _fill_by_rejection(gen, keys, ma, mb, need, n, w, same):
    """``need`` distinct uniform pairs between ``ma`` and ``mb`` (not in sorted ``keys``), by
    rejection while it spends at most ``FILL_REJECTION_WORK`` units of work per node pair of
    the block pair; the rest (where nearly every free pair is needed) by
    :func:`_fill_by_weight`, which enumerates the pairs in ``O(|ma| |mb|)`` time: the free pairs
    being few, so are the pairs beyond the keys already placed."""
    got = np.zeros(0, dtype=np.int64)
    budget, work = FILL_REJECTION_WORK * ma.size * mb.size, 0
    while got.size < need:
        if work > budget:
            rest = _fill_by_weight(gen, _merge_sorted(keys, got), ma, mb, need - got.size, n, w,
                                   same)
            return np.sort(np.concatenate([got, rest]))
        u = ma[gen.integers(ma.size, size=2 * (need - got.size) + 8)]
        v = mb[gen.integers(mb.size, size=u.size)]
        ok = u != v
        c = np.unique(np.minimum(u[ok], v[ok]) * n + np.maximum(u[ok], v[ok]))
        c = c[_absent(keys, c)]
        # the sorted union of got and c, by a merge (no sort of got each round)
        got = _merge_sorted(got, c[_absent(got, c)])[:need]
        work += u.size + got.size
    return got


def _anchor_blocks(gen, b: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every node, a partner block drawn with probability proportional to its block's row
    of incidences (``2 k_aa`` inside, ``k_ab`` across); -1 where that row is empty."""
    k = target.shape[0]
    full = (target + target.T).astype(float)  # the diagonal doubles: 2 k_aa inside block a
    # all rows' cumulative sums in one increasing array (row a shifted by the totals of the
    # rows before it): one binary search per node, O(n log k^2) time and no n x k array
    flat = np.cumsum(full.ravel())
    tot = full.sum(axis=1)
    base = np.concatenate([[0.0], np.cumsum(tot)])[:-1]
    u = np.arange(b.size)
    r = base[b] + gen.random(b.size) * tot[b]
    pos = np.searchsorted(flat, r, side="right")
    c = np.clip(pos - b * k, 0, k - 1).astype(np.int64)
    c[tot[b] <= 0] = -1
    return u, c


def _accept(keys, u, v, pair_of, need, n):
    """Add the new distinct non-loop pairs ``{u, v}`` not yet in ``keys`` (sorted), at most
    ``need[p]`` for each block pair ``p``; return the new sorted keys and the remaining need.
    Membership by binary search and a merge of sorted arrays: the rejection rounds after the
    first add few edges, so they cost ``O(m)`` each, not a re-sort of all keys."""
    ok = (u != v) & (pair_of >= 0)
    lo, hi = np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok])
    new, first = np.unique(lo * n + hi, return_index=True)
    pair_of = pair_of[ok][first]
    fresh = _absent(keys, new)
    new, pair_of = new[fresh], pair_of[fresh]
    order = np.argsort(pair_of, kind="stable")
    new, pair_of = new[order], pair_of[order]
    start = np.searchsorted(pair_of, np.arange(need.size))
    take = (np.arange(pair_of.size) - start[pair_of]) < need[pair_of]
    merged = _merge_sorted(keys, np.sort(new[take]))
    return merged, need - np.bincount(pair_of[take], minlength=need.size)


def _targets_and_members(b: np.ndarray, k: int, C: np.ndarray) -> tuple[np.ndarray, list]:
    """The upper triangle of ``C`` rounded and capped at the pairs each block pair has
    (``n_a (n_a - 1) / 2`` inside, ``n_a n_b`` across), and each block's nodes in increasing
    order (one stable sort, not k passes over the nodes)."""
    sizes = np.bincount(b, minlength=k)
    pairs = np.outer(sizes, sizes).astype(np.int64)
    pairs[np.diag_indices(k)] = sizes * (sizes - 1) // 2
    target = np.minimum(np.rint(np.triu(C)).astype(np.int64), np.triu(pairs))
    members = np.split(np.argsort(b, kind="stable"), np.cumsum(sizes)[:-1])
    return target, members


_TRIU_CACHE: dict = {}


def _group_pairs(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``size (size - 1) / 2`` pairs ``i < j`` of ``range(size)`` (cached by size)."""
    if size not in _TRIU_CACHE:
        _TRIU_CACHE[size] = np.triu_indices(size, 1)
    return _TRIU_CACHE[size]


def affinity_edges(communities, degrees, density, *, rng=None) -> np.ndarray:
    """The clustering phase of the sampler (BTER, Seshadhri, Kolda and Pinar 2012, phase 1;
    post-processing): inside each community the nodes, in increasing order of ``degrees``,
    are cut into consecutive affinity groups of ``round(d) + 1`` nodes (``d`` the degree of
    the group's first node; at most ``AFFINITY_MAX_GROUP``), and each pair of a group
    becomes an edge with probability ``density[v]`` of the group's first node ``v``; ties in
    ``degrees`` are broken at random (an Erdos-Renyi graph per group: a node of degree ``d`` gets about ``density d`` edges whose
    pairs are closed with the same probability, so its local clustering from this phase is
    about ``density ** 3``). Returns the candidate pair keys ``lo * n + hi`` (distinct, in
    random order).

    Examples
    --------
    >>> keys = affinity_edges(np.zeros(8, dtype=int), np.full(8, 3.0), np.ones(8), rng=0)
    >>> keys.size  # two groups of 4 nodes, complete: 2 x 6 edges
    12
    """
    c, _ = check_blocks(communities)
    n = c.size
    d = np.asarray(degrees, dtype=float)
    rho = np.clip(np.asarray(density, dtype=float), 0.0, 1.0)
    gen = make_rng(rng)
    # by community, then by degree; ties in a random order (never the input's node order,
    # which may follow the edges: a crawl order, say)
    order = np.lexsort((gen.random(n), d, c))
    cs = c[order]
    out = []
    i = 0
    while i < n - 1:
        first = order[i]
        end = int(np.searchsorted(cs, cs[i], side="right"))  # the community's end
        size = int(min(max(round(d[first]), 1) + 1, AFFINITY_MAX_GROUP, end - i))
        if size >= 2 and rho[first] > 0:
            iu, ju = _group_pairs(size)
            hit = gen.random(iu.size) < rho[first]
            g = order[i:i + size]
            u, v = g[iu[hit]], g[ju[hit]]
            out.append(np.minimum(u, v) * n + np.maximum(u, v))
        i += size
    keys = np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
    return keys[gen.permutation(keys.size)]


def _place_anchors(gen, b, grp, cdfs, ia, ib, need, keys=None):
    """Anchors: one edge from every node, to a block drawn in proportion to its block's
    released incidences, so no node with a positive released block volume is isolated. The
    first pass draws for every node; a node whose anchor was rejected (its block pair's count
    used up by other anchors: small blocks) draws again, in proportion to the counts still
    unplaced, at most ``ANCHOR_RETRIES`` times. The partner is drawn with ``cdfs = (inside,
    across)`` like every other endpoint. Returns the sorted pair keys and the remaining need."""
    n, k = b.size, grp.size
    cin, cout = cdfs
    pair_index = np.full((k, k), -1, dtype=np.int64)
    pair_index[ia, ib] = np.arange(ia.size)
    keys = np.empty(0, dtype=np.int64) if keys is None else keys
    for _ in range(1 + ANCHOR_RETRIES):
        deg = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
        left = np.zeros((k, k), dtype=np.int64)
        left[ia, ib] = need
        u, c = _anchor_blocks(gen, b, left)
        has = (c >= 0) & (deg == 0)
        if not has.any():
            break
        u, c = u[has], c[has]
        v = np.where(grp[c] == grp[b[u]], _draw_endpoints(gen, cin, c),
                     _draw_endpoints(gen, cout, c))
        lo_b, hi_b = np.minimum(b[u], c), np.maximum(b[u], c)
        keys, need = _accept(keys, u, v, pair_index[lo_b, hi_b], need, n)
    return keys, need


def _draw_by_rejection(gen, keys, need, ia, ib, inner, cdfs, n, max_rounds, tilt=None):
    """Rounds of Chung-Lu draws for every edge still needed (``cdfs = (inside, across)``
    weights by whether the block pair lies inside a community), self-loops and repeated pairs
    rejected; stops when all are placed, after ``max_rounds``, or from the third round on
    when a round places under a tenth of what was left (the rest lies in nearly used-up
    pairs: the final fill draws it among the free pairs). ``tilt = (sides, accept)``: a
    drawn pair whose endpoints share a side is kept with probability ``accept`` (pairs across
    the sides always), so the edges lean across the sides."""
    cin, cout = cdfs
    for t in progress(range(max_rounds), total=None, desc="sampling: edge draws",
                      unit="round"):
        left = int(need.sum())
        if left == 0:
            break
        pair_of = np.repeat(np.arange(ia.size), need)
        inn = inner[pair_of]
        u = np.empty(pair_of.size, dtype=np.int64)
        v = np.empty(pair_of.size, dtype=np.int64)
        for sel, c in ((inn, cin), (~inn, cout)):
            u[sel] = _draw_endpoints(gen, c, ia[pair_of[sel]])
            v[sel] = _draw_endpoints(gen, c, ib[pair_of[sel]])
        if tilt is not None:
            sides, accept = tilt
            drop = (sides[u] == sides[v]) & (gen.random(u.size) >= accept)
            pair_of = np.where(drop, -1, pair_of)
        keys, need = _accept(keys, u, v, pair_of, need, n)
        if t >= 2 and left - need.sum() < 0.1 * left:
            break
    return keys, need


def _within_capacity(u: np.ndarray, v: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """For edges ``(u, v)`` in their order: whether the edge is among the first ``cap[x]``
    edges of each of its endpoints ``x`` (an edge dropped for one endpoint still counts for
    the other: a conservative, vectorised capacity rule).

    >>> _within_capacity(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([1, 2, 2])).tolist()
    [True, False, True]
    """
    ends = np.column_stack([u, v]).ravel()  # u_0, v_0, u_1, ...: each node's ends in edge order
    ok = _ranks(ends) < cap[ends]
    return ok[0::2] & ok[1::2]


def _pool_reach(pooled: np.ndarray, dbar: np.ndarray) -> np.ndarray:
    """``k x k``: the pairs of pooled blocks whose mean released degrees ``dbar`` lie within
    ``AFFINITY_DEGREE_RATIO`` of each other (the block pairs a pooled group reaches).

    >>> _pool_reach(np.array([True, True, False]), np.array([3.0, 7.0, 4.0])).astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    """
    r = AFFINITY_DEGREE_RATIO
    near = (dbar[:, None] <= r * dbar[None, :]) & (dbar[None, :] <= r * dbar[:, None])
    return pooled[:, None] & pooled[None, :] & near


def _pool_fill(C: np.ndarray, reach: np.ndarray, size: np.ndarray,
               rho: np.ndarray) -> np.ndarray:
    """The largest affinity group (less one) each pooled block's released counts fill at
    the density ``rho``: its edge ends into the pooled blocks of about its own mean degree
    (``reach``, :func:`_pool_reach`; its own pair's count counted twice, one end in each
    member) over ``size * rho``, at least ``AFFINITY_MIN_GROUP - 1`` (post-processing of the
    block pair counts ``C``, upper triangle).

    >>> C = np.array([[30, 400, 10], [0, 30, 10], [0, 0, 500]])
    >>> reach = _pool_reach(np.array([True, True, True]), np.array([3.0, 3.0, 12.0]))
    >>> _pool_fill(C, reach, np.array([300, 300, 100]), np.ones(3)).round(2).tolist()
    [2.0, 2.0, 10.0]
    """
    Cs = C + C.T  # the own pair's count twice on the diagonal
    ends = (Cs * reach).sum(axis=1)
    return np.maximum(ends / (np.maximum(size, 1) * np.maximum(rho, 1e-12)),
                      AFFINITY_MIN_GROUP - 1.0)


def _spread_excess(need, got, ia, ib, k, first=None):
    """The block pair counts left after the affinity groups took ``got`` edges from the
    released counts ``need`` (pairs ``ia, ib``; post-processing): where the groups took more
    than a pair's count, the excess is taken off the remaining counts of the pairs of the same
    two blocks, in proportion to them, first from the pairs in ``first`` (a mask; default
    none), then from all (each block's edge ends and the total stay as released; where a
    block's excess outgrows its other counts, all remaining counts shrink in proportion; all
    are scaled to the total), rounded to integers that sum to ``need.sum() - got.sum()``.

    Block 0's groups took 12 edges of its own pair's 10: block 0 has 4 ends too many, its
    other pair (0, 1) keeps 8 less a quarter (half of block 0's share, 4 of its 8 ends left):

    >>> _spread_excess(np.array([10, 8, 20]), np.array([12, 0, 0]), np.array([0, 0, 1]),
    ...                np.array([0, 1, 1]), 2).tolist()
    [0, 6, 20]

    With pairs (0, 1) and (0, 2) left, the cut falls on both, or first on (0, 1):

    >>> args = np.array([10, 8, 8]), np.array([12, 0, 0]), np.zeros(3, int), np.arange(3), 3
    >>> _spread_excess(*args).tolist(), _spread_excess(*args, first=[0, 1, 0]).tolist()
    ([0, 7, 7], [0, 6, 8])
    """
    need = np.asarray(need, dtype=float)
    got = np.asarray(got, dtype=float)
    excess = np.maximum(got - need, 0.0)
    x = np.maximum(need - got, 0.0)
    over = np.bincount(ia, weights=excess, minlength=k) + np.bincount(ib, weights=excess,
                                                                       minlength=k)
    stages = [np.ones(x.size, dtype=bool)] if first is None else \
        [np.asarray(first, dtype=bool), np.ones(x.size, dtype=bool)]
    for pairs in stages:
        rem = np.where(pairs, x, 0.0)
        left = np.bincount(ia, weights=rem, minlength=k) + np.bincount(ib, weights=rem,
                                                                       minlength=k)
        share = np.minimum(over / np.maximum(left, 1e-12), 1.0)
        # a pair's cut is half its blocks' shares: each of its two ends relieves one block
        cut = rem * np.minimum((share[ia] + share[ib]) / 2.0, 1.0)
        x = x - cut
        over = np.maximum(over - np.bincount(ia, weights=cut, minlength=k)
                          - np.bincount(ib, weights=cut, minlength=k), 0.0)
    total = max(float(need.sum() - got.sum()), 0.0)
    if x.sum() > 0:  # to the total: blocks whose excess outgrew their other counts shrink
        # every count, and the halves of the shares that relieved a block with no excess
        # are given back in proportion
        x *= total / x.sum()
    out = np.floor(x)
    extra = int(round(total - out.sum()))
    out[np.argsort(out - x, kind="stable")[:max(extra, 0)]] += 1.0  # largest remainders
    return out.astype(np.int64)


def _affinity_pools(grp: np.ndarray, ia, ib, need) -> np.ndarray:
    """Where each block forms its affinity groups: inside its community (``grp``) where at
    least ``AFFINITY_COMMUNITY_SHARE`` of its released edge ends (``need`` on the block pairs
    ``ia, ib``) stay in the community; otherwise in one pool of all such blocks, across
    communities. Low-degree nodes are placed in communities by a few noisy counts, so most of
    their released edges leave their community (ca-hepph at eps 2: 21-45% of the lowest degree
    class's ends stay), and groups inside the community, bounded by its few pairs, leave them
    without triangles (post-processing of released counts)."""
    k = grp.size
    need = np.asarray(need, dtype=float)
    # each pair's count holds one end in each of its two blocks (two in a block's own count)
    ends = np.bincount(ia, weights=need, minlength=k) + np.bincount(ib, weights=need, minlength=k)
    same = np.where(grp[ia] == grp[ib], need, 0.0)
    within = (np.bincount(ia, weights=same, minlength=k)
              + np.bincount(ib, weights=same, minlength=k))
    share = within / np.maximum(ends, 1e-12)
    return np.where(share >= AFFINITY_COMMUNITY_SHARE, grp, grp.max() + 1)


#: the released partition's modularity from which the affinity groups keep the block-mean
#: sizing in full (Newman and Girvan 2004: from about 0.3 a partition's community structure is
#: significant); below it they shrink towards each node's own degree, linearly, down to
#: ``LOCAL_MODULARITY_FLOOR``
LOCAL_MODULARITY = 0.3
#: the released modularity at and below which the groups follow each node's own degree alone
#: (BTER's ``d + 1``): half of ``LOCAL_MODULARITY``, above what graphs without communities
#: release (configuration models on the degrees of email-Eu-core, polblogs and chameleon:
#: at most 0.09 at eps 0.5-4; benchmarks/NOTES.md)
LOCAL_MODULARITY_FLOOR = 0.15


def released_modularity(grp: np.ndarray, ia, ib, need) -> float:
    """Modularity of the community partition (``grp``: the community of each block) in the
    released block-pair counts ``need`` on the block pairs ``ia <= ib`` (post-processing).

    >>> float(round(released_modularity(np.array([0, 1]), np.array([0, 1]), np.array([0, 1]),
    ...                                 np.array([10.0, 10.0])), 3))
    0.5
    """
    grp = np.asarray(grp)
    need = np.maximum(np.asarray(need, dtype=float), 0.0)
    m = float(need.sum())
    if m <= 0:
        return 0.0
    kc = int(grp.max()) + 1
    ca, cb = grp[ia], grp[ib]
    inside = float(need[ca == cb].sum())
    vol = np.bincount(ca, weights=need, minlength=kc) + np.bincount(cb, weights=need, minlength=kc)
    return inside / m - float(np.sum((vol / (2.0 * m)) ** 2))


def community_locality(grp: np.ndarray, ia, ib, need) -> float:
    """``(Q - LOCAL_MODULARITY_FLOOR) / (LOCAL_MODULARITY - LOCAL_MODULARITY_FLOOR)``, clipped
    to ``[0, 1]``, for the released partition's modularity ``Q`` (:func:`released_modularity`);
    1 with one community (no partition to judge).

    >>> ia, ib = np.array([0, 0, 1]), np.array([0, 1, 1])
    >>> round(community_locality(np.array([0, 1]), ia, ib, np.array([1450.0, 1100.0, 1450.0])), 6)
    0.5
    """
    if np.unique(grp).size <= 1:
        return 1.0
    q = released_modularity(grp, ia, ib, need)
    lo = LOCAL_MODULARITY_FLOOR
    return float(np.clip((q - lo) / (LOCAL_MODULARITY - lo), 0.0, 1.0))


def _clustering_phase(gen, b, grp, d, w_in, affinity, ia, ib, need, cap=False):
    """:func:`affinity_edges` inside each community (``grp`` of each block; one pool across
    communities for the blocks whose released edge ends mostly leave theirs:
    :func:`_affinity_pools`), at most the
    released count of each block pair (a uniform subset of the candidates; a pair of two
    pooled blocks keeps every candidate, the excess taken off its blocks' other counts,
    first off the pooled pairs of about their degree: :func:`_spread_excess`), the affinity
    groups sized by each block's mean released degree (its count total over its size: a sum
    of many edges, where a node's own released degree carries its noise), at most the size
    whose groups the block's own released count ``C_bb`` fills at the density ``rho``
    (``s - 1 <= 2 C_bb / (|b| rho)``: larger groups would be thinned below ``rho``, and their
    nodes' local clustering with them) but at least ``AFFINITY_MIN_GROUP`` nodes where the
    block's mean degree allows (a pair closes no triangle: a thinned group of three still
    does; a pooled block's size is what its count into the pooled blocks of about its degree
    fills: :func:`_pool_fill`), moved towards each node's own released degree where the
    released communities carry little modularity (:func:`community_locality`); with ``cap``
    by each node's own inside weight ``w_in`` (BTER's sizing, for degrees matched to their
    deconvolved distribution) and at most ``floor(w_in)`` of them per node
    (:func:`_within_capacity`); returns the keys, the counts still needed and the inside
    weights less the edges each node got there."""
    n, k = b.size, grp.size
    rho = np.asarray(affinity, dtype=float)
    if rho.shape != (k,) or not np.all(np.isfinite(rho)):
        raise ValueError(f"affinity must give a density for each of the {k} blocks")
    C = np.zeros((k, k))
    C[ia, ib] = need
    vol = (C + C.T).sum(axis=1)
    size = np.maximum(np.bincount(b, minlength=k), 1)
    dbar = vol / size
    # a group of s nodes at density rho takes about (s - 1) rho / 2 of the block's own count
    # per node: groups larger than the count can fill would be thinned to below rho (and
    # their nodes' clustering with them), so s - 1 is at most 2 C_bb / (size rho)
    # but never below three nodes where the block's mean degree reaches two: a pair closes no
    # triangle (the count then thins the group's density instead)
    fill = np.maximum(2.0 * np.diag(C) / (size * np.maximum(rho, 1e-12)), AFFINITY_MIN_GROUP - 1.0)
    # a pooled block's groups reach the other pooled blocks of about its degree: its count
    # into them is what they fill
    pools = _affinity_pools(grp, ia, ib, need)
    pooled = pools > grp.max()
    reach = _pool_reach(pooled, dbar)
    if pooled.any():
        fill = np.where(pooled, _pool_fill(C, reach, size, rho), fill)
    # ties broken by the node's own released degree: the groups still follow it within a block
    if cap:
        size_by = w_in
    else:
        by_block = np.minimum(dbar, fill)[b]
        # where the communities carry little modularity, a node's group is no larger than its
        # own released degree allows (BTER's d + 1): larger groups hold its few edges in one
        # dense spot of a well-mixed graph, and lengthen its paths
        w = community_locality(grp, ia, ib, need)
        if w < 1.0:
            own = np.minimum(by_block, np.maximum(d, 0.0))
            by_block = own + w * (by_block - own)
        size_by = by_block + 1e-9 * d
    cand = affinity_edges(pools[b], size_by, rho[b], rng=gen)
    u, v = cand // n, cand % n
    pair_index = np.full((k, k), -1, dtype=np.int64)
    pair_index[ia, ib] = np.arange(ia.size)
    pair = pair_index[np.minimum(b[u], b[v]), np.maximum(b[u], b[v])]
    cand, pair = cand[pair >= 0], pair[pair >= 0]
    order = np.argsort(pair, kind="stable")  # random order within each pair (cand is shuffled)
    cand, pair = cand[order], pair[order]
    rank = np.arange(pair.size) - np.searchsorted(pair, pair)
    take = rank < need[pair]
    # the pooled groups keep every pair they drew: a pair of pooled blocks (low-degree nodes
    # of several communities, placed by a few noisy counts) holds few of the edges their
    # groups need, and thinned to it their nodes close no triangle (ca-hepph at eps 4: local
    # clustering 0.03-0.1 at degrees 3-13, the graph's 0.45-0.86); the excess comes off the
    # other counts of the same blocks (_spread_excess)
    take |= (pooled[ia] & pooled[ib])[pair]
    if cap:  # at most floor(inside weight) affinity edges per node: the rest of its degree
        # stays for the Chung-Lu phase, which ties its group to the graph
        idx = np.flatnonzero(take)
        keep = _within_capacity(cand[idx] // n, cand[idx] % n, np.floor(w_in))
        take[idx[~keep]] = False
    keys = np.sort(cand[take])
    # the pooled groups' excess comes first off the pool's counts they were sized by
    need = _spread_excess(need, np.bincount(pair[take], minlength=need.size), ia, ib, k,
                          first=reach[ia, ib])
    d1 = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
    return keys, need, np.maximum(w_in - d1, 0.0)


def _ranks(owner: np.ndarray) -> np.ndarray:
    """Rank of each entry among the entries of the same ``owner``, in the entries' order.

    >>> _ranks(np.array([4, 2, 4, 4, 2])).tolist()
    [0, 0, 1, 2, 1]
    """
    order = np.argsort(owner, kind="stable")
    rank = np.empty(owner.size, dtype=np.int64)
    rank[order] = np.arange(owner.size) - np.searchsorted(owner[order], owner[order])
    return rank


def restore_degrees(keys, n, target, community, *, fixed=None, rng=None,
                    slack: float = RESTORE_SLACK, rounds: int = RESTORE_ROUNDS,
                    tolerance=None) -> np.ndarray:
    """Give back to the nodes the degrees their block pairs could not hold (post-processing).

    A node whose share of a block pair's count exceeds the pairs it has there (a hub whose
    expected count towards a small degree class is larger than the class) is saturated: the
    rejection rounds and the final fill then hand its edges to the other nodes of its block,
    whose degrees are higher than the hub's partners' are. The sample's degree correlation
    then rises (facebook at eps 1: 0.22 with the hub of released degree 1,055 sampled at 668,
    against a true 0.064). Each node ``h`` short of ``target`` by more than
    ``slack sqrt(target_h)`` (beyond the Chung-Lu draw's own spread) takes over the end of an
    edge ``{x, y}`` whose node ``x`` has more edges than ``target_x`` and lies in ``h``'s
    community: ``{x, y}`` becomes ``{h, y}``. The edge count, ``y``'s degree and the edge
    counts between communities stay as they were; edges in ``fixed`` (sorted keys: the
    affinity groups' triangles) are never moved. Rounds of random proposals, each resolved at
    once (no edge used twice, no repeated pair, no node beyond its shortfall or surplus), with
    ``RESTORE_MOVES`` proposals per missing edge doubled each round up to
    ``RESTORE_MAX_MOVES``: ``O(m + n)`` per round and a sort of the moves.

    Parameters
    ----------
    keys : sorted array of int
        Edge keys ``lo * n + hi``.
    target : array, shape (n,)
        Degree each node should have (the released degrees).
    community : array of int, shape (n,)
        Where the surplus ends are taken from (communities; blocks keep every block pair's
        count: :func:`sample_block_model`'s ``block_tolerance``).
    tolerance : float or array, optional
        In place of ``slack``: a node short of ``target`` by more than this many edges is
        given its whole shortfall (with ``slack``, only what lies beyond
        ``slack sqrt(target)``).

    Returns
    -------
    Sorted array of int: the new keys (as many as ``keys``).

    Examples
    --------
    >>> keys = np.array([0 * 6 + 1, 0 * 6 + 2, 1 * 6 + 3, 1 * 6 + 4, 1 * 6 + 5])  # a star at 1
    >>> new = restore_degrees(keys, 6, np.array([4, 1, 1, 1, 1, 1.0]), np.zeros(6, int),
    ...                       slack=0, rng=0)
    >>> np.bincount(np.r_[new // 6, new % 6], minlength=6).tolist()  # node 0 took the star
    [4, 2, 1, 1, 1, 1]
    """
    gen = make_rng(rng)
    t = np.asarray(target, dtype=float)
    com = np.asarray(community, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int64)
    fixed = None if fixed is None or not len(fixed) else np.asarray(fixed, np.int64)
    tol = slack * np.sqrt(t) if tolerance is None else np.asarray(tolerance, dtype=float)
    for r in range(rounds):
        u, v = np.divmod(keys, n)
        deg = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
        gap = t - deg
        short = np.floor(gap - tol) if tolerance is None else np.where(gap > tol, np.floor(gap), 0)
        short = short.clip(0).astype(np.int64)
        over = np.floor(deg - t).clip(0).astype(np.int64)
        if not short.any() or not over.any():
            break
        movable = None if fixed is None else _absent(fixed, keys)
        per = min(RESTORE_MOVES << r, RESTORE_MAX_MOVES)
        h, pe, px, py = _proposals(gen, u, v, short, over, com, movable, per)
        new = np.minimum(h, py) * n + np.maximum(h, py)
        ok = (py != h) & _absent(keys, new)
        ok &= _first(pe, ok) & _first(new, ok)
        ok[ok] &= _ranks(h[ok]) < short[h[ok]]
        ok[ok] &= _ranks(px[ok]) < over[px[ok]]
        if not ok.any():
            break
        kept = np.ones(keys.size, dtype=bool)
        kept[pe[ok]] = False
        keys = _merge_sorted(keys[kept], np.sort(new[ok]))
    return keys


def _proposals(gen, u, v, short, over, com, movable, per):
    """``per`` moves per missing edge of each short node ``h``: an edge end ``(x, y)`` (edge
    ``{u, v}``, index in ``u``) drawn among the movable edges' ends at a node ``x`` of ``h``'s
    community with a surplus, each with weight ``over[x]`` over ``x``'s ends there (every
    surplus node is drawn as often as it can give, whatever its degree). Where the graph has
    more than ``RESTORE_POOL`` ends and more than four per move and community, the ends are
    first thinned to a uniform sample of that many (with replacement: the work is the moves',
    not the graph's). Returns ``(h, edge index, x, y)`` in a random order."""
    m = u.size
    # only where h's community has a surplus to give: the draws below grow with the moves
    has = np.bincount(com, weights=over, minlength=com.max() + 1)[com] > 0
    short = np.where(has, short, 0)
    h = np.repeat(np.flatnonzero(short), per * short[short > 0])
    groups = np.unique(com[h]).size  # the sample must hold ends of each one's community
    draws = max(4 * h.size * groups, RESTORE_POOL)
    if draws >= 2 * m:  # every end at a surplus node: the u ends, then the v ends
        side = [np.flatnonzero((over[z] > 0) if movable is None else (over[z] > 0) & movable)
                for z in (u, v)]
        e = np.concatenate(side)
        x = np.concatenate([u[side[0]], v[side[1]]])
        y = np.concatenate([v[side[0]], u[side[1]]])
    else:
        end = gen.integers(0, 2 * m, size=draws)
        e = end % m
        x = np.where(end < m, u[e], v[e])
        y = np.where(end < m, v[e], u[e])
        ok = over[x] > 0 if movable is None else (over[x] > 0) & movable[e]
        e, x, y = e[ok], x[ok], y[ok]
    c = com[x]
    order = np.argsort(c.astype(np.uint16) if com.max() < 2**16 else c, kind="stable")
    e, x, y = e[order], x[order], y[order]
    # an end at x weighs over[x] / (x's ends here): each surplus node is drawn as often as
    # it can give, whatever its degree
    w = over[x] / np.bincount(x, minlength=over.size)[x]
    cum = np.cumsum(w)
    size = np.bincount(c, minlength=com.max() + 1)
    stop = np.cumsum(size)
    base = np.concatenate([[0.0], cum])[stop - size]  # the weight before each community
    mass = np.concatenate([[0.0], cum])[stop] - base
    h = h[mass[com[h]] > 0]
    r = base[com[h]] + gen.random(h.size) * mass[com[h]]
    pick = np.minimum(_search_sorted(cum, r, side="right"), stop[com[h]] - 1)
    mix = gen.permutation(h.size)
    return h[mix], e[pick][mix], x[pick][mix], y[pick][mix]


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sorted union (with repeats) of the sorted arrays ``a`` and ``b``: ``O(|a| + |b|)``
    with a binary search per entry of the smaller ``b``, not a re-sort of ``a``.

    >>> _merge_sorted(np.array([1, 4, 9]), np.array([0, 5])).tolist()
    [0, 1, 4, 5, 9]
    """
    slots = np.searchsorted(a, b) + np.arange(b.size)
    out = np.empty(a.size + b.size, dtype=np.result_type(a, b))
    mask = np.ones(out.size, dtype=bool)
    mask[slots] = False
    out[slots] = b
    out[mask] = a
    return out


def _first(values: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Mask of the entries of ``values`` that are the first among the ``ok`` entries of the
    same value (entries not ``ok`` stay False)."""
    out = np.zeros(values.size, dtype=bool)
    idx = np.flatnonzero(ok)
    _, first = np.unique(values[idx], return_index=True)
    out[idx[first]] = True
    return out


def symmetric_from_keys(keys: np.ndarray, n: int) -> sp.csr_array:
    """The 0/1 adjacency matrix of the edges ``keys`` (sorted distinct ``lo * n + hi``,
    ``lo < hi``) in :class:`~dpgraph.graph.GraphData`'s canonical form, built in one pass:
    row ``r`` lists the keys whose ``hi`` is ``r`` (their ``lo``, increasing in key order),
    then those whose ``lo`` is ``r`` (their ``hi``, increasing), so its indices come sorted and
    the matrix symmetric without the general constructor's ``W + W.T`` and symmetry check
    (0.44 against 0.75 s at 3 x 10^6 edges).

    >>> symmetric_from_keys(np.array([0 * 3 + 1, 0 * 3 + 2]), 3).toarray().tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    lo, hi = np.divmod(np.asarray(keys, dtype=np.int64), n)
    W = sp.csr_array((np.ones(2 * lo.size), (np.concatenate([hi, lo]), np.concatenate([lo, hi]))),
                     shape=(n, n))
    W.sort_indices()  # already sorted: a check
    return W


def sample_block_model(blocks, block_counts, degrees, *, inside=None, rng=None, labels=None,
                       max_rounds: int = 50, groups=None, affinity=None,
                       affinity_cap: bool = False, sides=None,
                       side_accept: float = 1.0, restore: bool = False,
                       block_tolerance: float | None = None) -> GraphData:
    """Sample a simple graph from a degree-corrected block model (post-processing).

    For each block pair ``a <= b``, draw exactly ``block_counts[a, b]`` distinct edges, each
    endpoint chosen with probability proportional to ``degrees`` inside its block (Chung-Lu
    within and between blocks); self-loops and repeated pairs are rejected and redrawn, for at
    most ``max_rounds`` rounds; what is still missing then (a nearly complete block pair) is
    placed uniformly among the block pair's free pairs. Expected time ``O((m + n) log n)``,
    memory ``O(m + n + k^2)``.

    Parameters
    ----------
    blocks : array of int, shape (n,)
    block_counts : array, shape (k, k)
        Symmetric non-negative integers (upper triangle read); capped at the pairs available.
    degrees : array, shape (n,)
        Positive endpoint weights (e.g. released degrees); a block whose weights sum to 0 gets
        uniform weights.
    inside : array, shape (n,), optional
        Fraction in [0, 1] of each node's weight used for edges inside its block (the rest for
        edges across blocks); default: the same weights for both.
    groups : array of int, shape (k,), optional
        Community of each block: with it, "inside" means inside the block's community (pairs of
        blocks of one group draw with the inside weights). Default: ``arange(k)``.
    affinity : array, shape (k,), optional
        Edge density of each block's affinity groups (:func:`affinity_edges`, the clustering
        phase): placed first, inside each community (across communities for the blocks whose
        counts mostly leave theirs), out of the block pairs' counts (the groups across
        communities keep every pair they draw and take any excess off their blocks' other
        counts, the total kept), and the nodes' inside weights reduced by the edges they got
        there. Default: no clustering phase.
    affinity_cap : bool
        With ``affinity``: the affinity groups sized by each node's own inside weight
        ``degrees * inside`` (BTER's sizing) instead of its block's mean degree, and each
        node given at most ``floor(degrees * inside)`` edges there (without the cap a node of
        a small weight in a group sized by its block's mean degree spends its whole degree
        there, and the groups come apart from the graph). For degrees whose distribution is
        right node by node in rank (:func:`~dpgraph.synthetic.degree_prior.matched_degrees`).
        Default False.
    sides : array of +-1, shape (n,), optional
        A side of each node (released values: a private Max-Cut answer's sides, say; the tilt
        is post-processing of them): in the Chung-Lu rounds a drawn
        pair whose endpoints share a side is kept with probability ``side_accept`` (pairs
        across always), so the block pair counts stay as given and their edges lean across the
        sides. The anchors, the clustering phase and the final fill are not tilted.
    side_accept : float in (0, 1]
    restore : bool
        After the draws, :func:`restore_degrees`: nodes short of ``degrees`` by more than the
        draw's spread (hubs whose block pairs are used up) take over edge ends of the nodes of
        their community that got more than theirs; the affinity groups' edges and the edge
        counts between communities stay. Default False.
    block_tolerance : float, optional
        With ``restore``: then, inside each block, every node short of ``degrees`` by more
        than this many edges takes over its whole shortfall in edge ends of nodes of its own
        block that got more than theirs (:func:`restore_degrees` with the blocks as
        communities): every block pair keeps its count. In a dense block pair the Chung-Lu
        draws saturate the block's highest-weight nodes, and the rejection rounds and the
        fill hand their edges to its lowest (facebook at eps 4, block of released degrees
        140-293 at pair density 0.9: its lowest fifth sampled 13 edges above their released
        degrees and its highest fifth 17 below), which pulls each block's degrees towards its
        mean. Default None: not done.
    rng : None, int or numpy.random.Generator
    labels : sequence, optional
        Node labels of the result (default ``0..n-1``): one per node, hashable, unique (a
        repeated label is refused, named) and not None; NumPy scalars become Python values.
    max_rounds : int

    Returns
    -------
    GraphData
        Unweighted, with exactly ``sum_{a<=b} min(block_counts[a, b], pairs_ab)`` edges (with
        ``restore``, that many between the same communities, not always the same blocks; with
        ``affinity`` and blocks pooled across communities, the same total with the pooled
        blocks' pair counts moved as above).

    Examples
    --------
    >>> import numpy as np
    >>> g = sample_block_model(np.array([0, 0, 0, 1, 1, 1]), np.array([[3, 1], [1, 2]]),
    ...                        np.ones(6), rng=0)
    >>> g.m
    6
    """
    b, k = check_blocks(blocks)
    n = b.size
    d = np.asarray(degrees, dtype=float)
    if d.shape != (n,) or not np.all(np.isfinite(d)) or (d < 0).any():
        raise ValueError(f"degrees must be {n} finite non-negative numbers")
    lab = range(n)  # a range stays O(1)
    if labels is not None:  # checked before the draws: hashable, unique, one per node
        lab = label_sequence(labels)
        if len(lab) != n:
            raise ValueError(f"labels: {len(lab)} labels for {n} nodes")
        lab = matrix_labels(lab, n)
    C = np.asarray(block_counts)
    if C.shape != (k, k):
        raise ValueError(f"block_counts must be {k} x {k} for {k} blocks, got {C.shape}")
    upper = np.triu(C)  # the counts read (rounded to integers by _targets_and_members)
    if not np.all(np.isfinite(upper)) or np.any(np.rint(upper) < 0):
        raise ValueError("block_counts must hold finite non-negative edge counts in its upper "
                         "triangle (diagonal included)")
    gen = make_rng(rng)
    target, members = _targets_and_members(b, k, C)
    f = np.full(n, 0.5) if inside is None else np.clip(np.asarray(inside, dtype=float), 0, 1)
    if f.shape != (n,) or not np.all(np.isfinite(f)):
        raise ValueError(f"inside must be {n} finite numbers in [0, 1]")
    w_in, w_out = d * f, d * (1.0 - f)
    grp = np.arange(k) if groups is None else np.asarray(groups, dtype=np.int64)
    if grp.shape != (k,):
        raise ValueError(f"groups must give the community of each of the {k} blocks")
    ia, ib = np.nonzero(target)
    need = target[ia, ib]
    keys = np.empty(0, dtype=np.int64)
    keep = np.ones(n)
    if affinity is not None and ia.size:
        keys, need, w_in = _clustering_phase(gen, b, grp, d, w_in, affinity, ia, ib, need,
                                             cap=affinity_cap)
    groups_keys = keys  # sorted: the affinity groups' edges
    cin, cout = _cdfs(w_in, members), _cdfs(w_out, members)
    if ia.size:
        had = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n) > 0
        keys, need = _place_anchors(gen, b, grp, (cin, cout), ia, ib, need, keys=keys)
        # the remaining draws discount the anchor edge (each node already has about one)
        left = np.maximum(w_in + w_out, 1e-12)
        keep = np.where(had, 1.0, np.maximum(left - 1.0, 0.1) / left)
        cin, cout = _cdfs(w_in * keep, members), _cdfs(w_out * keep, members)
    inner = grp[ia] == grp[ib]
    if not 0.0 < float(side_accept) <= 1.0:
        raise ValueError(f"side_accept must lie in (0, 1], got {side_accept!r}")
    tilt = None
    if sides is not None and np.asarray(sides).size != n:
        raise ValueError(f"sides must give a side (+-1) for each of the {n} nodes")
    if sides is not None and side_accept < 1.0:
        tilt = (np.asarray(sides).reshape(n) > 0, float(side_accept))
    keys, need = _draw_by_rejection(gen, keys, need, ia, ib, inner, (cin, cout), n, max_rounds,
                                    tilt)
    if need.sum():
        keys = _fill_remaining(gen, keys, members, ia, ib, need, n,
                               (w_in * keep, w_out * keep), inner)
    if restore and keys.size:
        keys = restore_degrees(keys, n, d, grp[b], fixed=groups_keys, rng=gen)
        if block_tolerance is not None:
            keys = restore_degrees(keys, n, d, b, fixed=groups_keys, rng=gen,
                                   tolerance=float(block_tolerance))
    # canonical by construction (symmetric_from_keys): no O(m) re-check in as_graph_data
    return canonical_graph(symmetric_from_keys(keys, n), lab)
