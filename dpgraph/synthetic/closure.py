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

import threading

import numpy as np
import scipy.sparse as sp

from dpgraph.engine.local_search import jit, numba_available
from dpgraph.synthetic.clustering import bounded_projection, counted_nodes, projection_counts

__all__ = ["close_triangles", "closure_swaps", "CLOSURE_STAGES", "CLOSURE_ATTEMPTS",
           "MAX_CLOSURE_ATTEMPTS"]

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
# without numba the kernel runs as Python (about 10^5 attempts a second): fewer attempts
PYTHON_ATTEMPTS = 200_000
#: held while the kernel runs as Python on NumPy's global generator (no numba)
_GLOBAL_RNG_LOCK = threading.Lock()
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
    indptr = M.indptr.astype(np.int64)
    indices = M.indices.astype(np.int64)
    deg = np.diff(indptr).astype(float)
    cum = np.cumsum(deg * (deg - 1.0) / 2.0)
    info = {"gained": 0, "made": 0, "tried": 0}
    if n == 0 or cum[-1] <= 0 or gain_needed <= 0 or attempts <= 0:
        return M, info
    seed = int(np.random.default_rng(rng).integers(2**31 - 1))
    b = np.asarray(classes, dtype=np.int64)
    s = np.zeros(n, dtype=np.int64) if sides is None else (np.asarray(sides) > 0).astype(np.int64)
    if numba_available():
        gained, made, tried = _swap_kernel(indptr, indices, b, s, cum, float(gain_needed),
                                           int(attempts), seed)
    else:  # the kernel as Python seeds NumPy's global generator: the caller's state is put
        # back, and one thread at a time (threads sampling at once drew from each other's
        # seeded stream: a seeded sample differed from the same sample drawn alone)
        with _GLOBAL_RNG_LOCK:
            state = np.random.get_state()
            try:
                gained, made, tried = _swap_kernel(indptr, indices, b, s, cum,
                                                   float(gain_needed),
                                                   min(int(attempts), PYTHON_ATTEMPTS), seed)
            finally:
                np.random.set_state(state)
    out = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    out.sort_indices()
    return out, {"gained": int(gained), "made": int(made), "tried": int(tried)}


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
