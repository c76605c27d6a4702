"""Seeded, vectorized random graph generators (planted cut / bisection, random regular,
Erdős–Rényi, G-set-like toroidal ±1 grid).

All of them sample edge sets as arrays (no per-edge Python work), so that n = 10,000 at mean
degree 50, or n = 2,000 at mean degree 400, is generated in a few tens of milliseconds.
NetworkX's generators add edges one by one and are 100x slower at these sizes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from dpgraph.caller import caller_stacklevel
from dpgraph.graph import GraphData, GraphInputWarning, canonical_graph
from dpgraph.memory import check_memory
from dpgraph.privacy import make_rng

__all__ = ["PlantedInstance", "planted_cut", "planted_bisection", "random_regular",
           "erdos_renyi", "toroidal_grid_pm1", "cut_weight"]


@dataclass(frozen=True, eq=False)
class PlantedInstance:
    """A random graph with a planted two-block partition.

    Attributes
    ----------
    graph : GraphData
        The graph (labels ``0..n-1``).
    partition : numpy.ndarray or None
        ``partition[i]`` in {0, 1} is the block of node index ``i``.
    planted_value : float or None
        Weight of the edges cut by ``partition`` (a lower bound on the maximum cut, and on the
        maximum bisection when the blocks have equal size).
    params : dict
        The generator's arguments (and the derived edge probabilities).
    """

    graph: GraphData
    partition: np.ndarray | None
    planted_value: float | None
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        # n is the graph's, shown first: the generator's n is not repeated
        p = "".join(f", {k}={v!r}" for k, v in self.params.items()
                    if not (k == "n" and v == self.graph.n))
        return (f"PlantedInstance(n={self.graph.n}, m={self.graph.m}, "
                f"planted_value={self.planted_value!r}{p})")


def cut_weight(graph: GraphData, partition) -> float:
    """Total weight of the edges whose endpoints lie in different blocks of ``partition``.

    Examples
    --------
    >>> from dpgraph.graph import as_graph_data
    >>> g = as_graph_data([(0, 1, 2.0), (1, 2, 1.0), (2, 3, 0.5)])
    >>> cut_weight(g, [0, 1, 1, 0]), cut_weight(g, [0, 0, 0, 0])  # edges 0-1 and 2-3 cross
    (2.5, 0.0)
    """
    if isinstance(partition, (dict, set, frozenset)) or (
            isinstance(partition, (tuple, list)) and len(partition) == 2 and graph.n != 2
            and all(isinstance(side, (set, frozenset, list, tuple)) for side in partition)):
        raise ValueError("partition must be a vector of block ids, one per node in the order "
                         "of graph.labels; for a pair of label sets (S, T) or a label -> side "
                         "dict, as the results' partition and assignment, use "
                         "dpgraph.lab.evaluate.cut_value(graph, partition)")
    x = np.asarray(partition)
    if x.shape != (graph.n,):
        raise ValueError(f"partition must have length n = {graph.n}, got shape {x.shape}")
    i, j, w = graph.edges()
    return float(w[x[i] != x[j]].sum())


def _from_pairs(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray | None = None) -> GraphData:
    """Assemble GraphData from distinct pairs ``i != j`` (each unordered pair at most once)."""
    if w is None:
        w = np.ones(i.size)
    rows = np.concatenate([i, j])
    cols = np.concatenate([j, i])
    W = sp.csr_array((np.concatenate([w, w]).astype(np.float64), (rows, cols)), shape=(n, n))
    W.sort_indices()
    # distinct pairs both ways, sorted: canonical (no O(m) re-check in as_graph_data); the
    # default labels are a range: O(1), not n ints
    return canonical_graph(W, range(n))


def _bernoulli_positions(rng, population: int, p: float) -> np.ndarray:
    """Sorted positions of the successes of ``population`` independent Bernoulli(p) trials.

    Exact and O(successes): the gaps between successes are i.i.d. Geometric(p), so the positions
    are the cumulative sums of geometric draws (drawn in batches until they pass the end).
    """
    if population <= 0 or p <= 0:
        return np.empty(0, dtype=np.int64)
    if p >= 1:
        return np.arange(population, dtype=np.int64)
    mean = population * p
    batch = int(mean + 6 * np.sqrt(mean) + 64)
    chunks, last = [], -1
    while True:
        pos = last + np.cumsum(rng.geometric(p, size=batch), dtype=np.int64)
        if pos[-1] >= population:
            chunks.append(pos[pos < population])
            break
        chunks.append(pos)
        last = int(pos[-1])
        batch = int((population - last) * p + 6 * np.sqrt((population - last) * p) + 64)
    return np.concatenate(chunks)


def _gnp_pairs(rng, n: int, p: float):
    """Edges ``i < j`` of G(n, p): independent Bernoulli(p) trials over the n(n-1)/2 pairs in
    row-major order of the upper triangle, then the pair index is inverted to ``(i, j)``."""
    pairs = n * (n - 1) // 2
    k = _bernoulli_positions(rng, pairs, p)
    # invert k = i*n - i*(i+1)/2 + (j - i - 1) for i < j (row-major upper triangle)
    i = np.floor(((2 * n - 1) - np.sqrt((2 * n - 1) ** 2 - 8.0 * k)) / 2).astype(np.int64)
    start = i * n - i * (i + 1) // 2
    # fix the rare floating-point off-by-one at row boundaries
    too_far = start > k
    i[too_far] -= 1
    start = i * n - i * (i + 1) // 2
    nxt = (i + 1) * n - (i + 1) * (i + 2) // 2
    short = nxt <= k
    i[short] += 1
    start = i * n - i * (i + 1) // 2
    j = k - start + i + 1
    return i, j


def _bipartite_pairs(rng, a: int, b: int, p: float):
    k = _bernoulli_positions(rng, a * b, p)
    return k // b, k % b


def _check_n(n, minimum=2):
    if not isinstance(n, (int, np.integer)) or n < minimum:
        raise ValueError(f"n must be an integer >= {minimum}, got {n!r}")


# Bytes a generated graph costs per node and per (expected) edge while it is drawn and built:
# the pair arrays, the COO and the symmetric CSR (measured 8-25 B per node without edges and
# 100-133 B per edge for erdos_renyi, planted_cut, random_regular and toroidal_grid_pm1 at
# 10^5 nodes); rounded up.
BYTES_PER_NODE, BYTES_PER_EDGE = 64, 160


def _check_size(name: str, n: int, mean_degree: float) -> None:
    """Refuse, before drawing, a graph whose ``n`` nodes and ``n * mean_degree / 2`` expected
    edges would not fit in the available memory (:func:`dpgraph.memory.check_memory`)."""
    def cost(k):
        return int(BYTES_PER_NODE * k + BYTES_PER_EDGE * k * float(mean_degree) / 2 * 1.01)

    check_memory(cost(int(n)), what=f"{name} with n = {int(n):,} and mean degree {mean_degree:g}",
                 fit=(cost, f"At most n = {{:,}} fits at mean degree {mean_degree:g}."))


def erdos_renyi(n: int, mean_degree: float, *, rng=None) -> GraphData:
    """Erdős–Rényi graph G(n, p) with ``p = mean_degree / (n - 1)`` (no planted structure, so a
    plain :class:`GraphData` is returned; labels ``0..n-1``).

    Example
    -------
    >>> g = erdos_renyi(1000, 10.0, rng=0)
    >>> g.n, abs(2 * g.m / g.n - 10.0) < 1.0
    (1000, True)
    """
    _check_n(n)
    if not 0 <= mean_degree <= n - 1:
        raise ValueError(f"mean_degree must lie in [0, n - 1] = [0, {n - 1}], got {mean_degree}")
    if 0 < mean_degree < 1 and n > 2:
        # NetworkX's gnp_random_graph(n, p) takes the edge probability in this place
        warnings.warn(f"erdos_renyi(n={n}, mean_degree={mean_degree:g}) draws about "
                      f"{n * mean_degree / 2:.3g} edges: the second argument is the mean degree, "
                      f"not NetworkX's edge probability p (for p pass mean_degree=p * (n - 1))",
                      GraphInputWarning, stacklevel=caller_stacklevel())
    _check_size("erdos_renyi", n, mean_degree)
    rng = make_rng(rng)
    i, j = _gnp_pairs(rng, n, mean_degree / (n - 1))
    return _from_pairs(n, i, j)


def _two_block(n, mean_degree, ratio, size0, rng, name):
    if not 0 <= ratio <= 1:
        raise ValueError(f"ratio (in-block / cross-block edge probability) must lie in [0, 1], "
                         f"got {ratio}")
    if not mean_degree >= 0 or not np.isfinite(mean_degree):  # NaN fails the first test
        raise ValueError(f"mean_degree must be a finite number >= 0, got {mean_degree}")
    _check_size(name, n, mean_degree)
    a, b = size0, n - size0
    inside = a * (a - 1) // 2 + b * (b - 1) // 2
    # expected edges n*d/2 = p_out * (a*b + ratio * inside)
    p_out = (n * mean_degree / 2) / (a * b + ratio * inside)
    p_in = ratio * p_out
    if p_out > 1:
        raise ValueError(f"mean_degree={mean_degree} is too large for {name} with n={n} and "
                         f"ratio={ratio}: it needs a cross-block edge probability {p_out:.3g} > 1")
    perm = rng.permutation(n)
    block0, block1 = np.sort(perm[:a]), np.sort(perm[a:])
    i0, j0 = _gnp_pairs(rng, a, p_in)
    i1, j1 = _gnp_pairs(rng, b, p_in)
    ic, jc = _bipartite_pairs(rng, a, b, p_out)
    i = np.concatenate([block0[i0], block1[i1], block0[ic]])
    j = np.concatenate([block0[j0], block1[j1], block1[jc]])
    graph = _from_pairs(n, i, j)
    partition = np.zeros(n, dtype=np.int8)
    partition[block1] = 1
    return graph, partition, float(ic.size), p_in, p_out


def planted_cut(n: int, mean_degree: float, *, ratio: float = 0.25, rng=None) -> PlantedInstance:
    """Two-block disassortative stochastic block model with a planted cut.

    The nodes are split uniformly at random into blocks of sizes ``n // 2`` and ``n - n // 2``;
    each pair inside a block is an edge with probability ``p_in = ratio * p_out``, each pair
    across the blocks with probability ``p_out``, where ``p_out`` is chosen so that the expected
    mean degree is ``mean_degree``. With ``ratio < 1`` most edges cross the blocks: the expected
    cut fraction of the planted partition is ``a*b / (a*b + ratio*inside)`` (0.8 at the default
    ``ratio = 0.25``). ``planted_value`` is the number of crossing edges (the cut of the planted
    partition), a lower bound on the maximum cut.

    Parameters
    ----------
    n : int
    mean_degree : float
        Expected mean degree ``2 E[m] / n``.
    ratio : float in [0, 1]
        ``p_in / p_out``; 0 gives a random bipartite graph (planted cut = all edges).
    rng : None, int or numpy.random.Generator

    Example
    -------
    >>> inst = planted_cut(200, 20.0, rng=1)
    >>> inst.planted_value / inst.graph.m > 0.7
    True
    """
    _check_n(n)
    rng = make_rng(rng)
    graph, partition, value, p_in, p_out = _two_block(n, mean_degree, ratio, n // 2, rng,
                                                      "planted_cut")
    return PlantedInstance(graph, partition, value,
                           dict(n=n, mean_degree=mean_degree, ratio=ratio, p_in=p_in, p_out=p_out))


def planted_bisection(n: int, mean_degree: float, *, ratio: float = 0.25,
                      rng=None) -> PlantedInstance:
    """Planted instance for Max-Bisection: :func:`planted_cut` with ``n`` even and two blocks of
    exactly ``n / 2`` nodes, so the planted partition is a bisection and ``planted_value`` is a
    lower bound on the maximum bisection.

    Examples
    --------
    >>> inst = planted_bisection(200, 16.0, rng=0)
    >>> inst.graph.n, np.bincount(inst.partition).tolist()  # two blocks of exactly n / 2
    (200, [100, 100])
    >>> inst.planted_value == cut_weight(inst.graph, inst.partition)
    True
    """
    _check_n(n)
    if n % 2:
        raise ValueError(f"n must be even for a bisection, got n={n}")
    rng = make_rng(rng)
    graph, partition, value, p_in, p_out = _two_block(n, mean_degree, ratio, n // 2, rng,
                                                      "planted_bisection")
    return PlantedInstance(graph, partition, value,
                           dict(n=n, mean_degree=mean_degree, ratio=ratio, p_in=p_in, p_out=p_out))


def random_regular(n: int, d: int, *, rng=None, max_rounds: int = 10_000) -> GraphData:
    """Random simple ``d``-regular graph on ``n`` nodes (``n * d`` even, ``d < n``).

    Configuration model: a uniform random pairing of the ``n * d`` stubs. For ``d <= 3`` pairings
    are redrawn until one is simple, which is exactly uniform over simple d-regular graphs. For
    larger ``d`` (where a simple pairing is rare, probability about ``exp(-(d^2 - 1) / 4)``) every
    self-loop or repeated pair is instead repaired by switching it with a uniformly chosen edge
    (``{a, b}, {c, e} -> {a, c}, {b, e}`` or ``{a, e}, {b, c}``), which keeps every degree. The
    repaired graph is only approximately uniform: the repair touches about ``d^2 / 4`` of the
    ``n d / 2`` edges, a small fraction when ``d`` is much smaller than ``n``, but on tiny graphs
    the bias is visible (use :func:`networkx.random_regular_graph` there if exact uniformity
    matters). For ``d > (n - 1) / 2`` the complement of a random ``(n - 1 - d)``-regular graph is
    returned (dense: it builds an ``n x n`` boolean mask). Time grows with the number of repairs:
    n = 10,000, d = 50 takes about 0.15 s, n = 2,000, d = 400 about 0.5 s on the project machine.
    Returns :class:`GraphData` (no planted structure).

    Example
    -------
    >>> g = random_regular(100, 3, rng=0)
    >>> bool((abs(g.weights).sum(axis=1) == 3).all()), g.m
    (True, 150)
    """
    _check_n(n)
    if not isinstance(d, (int, np.integer)) or not 0 <= d < n:
        raise ValueError(f"d must be an integer in [0, n - 1] = [0, {n - 1}], got {d!r}")
    if (n * d) % 2:
        raise ValueError(f"n * d must be even for a d-regular graph, got n={n}, d={d}")
    _check_size("random_regular", n, d)
    rng = make_rng(rng)
    if d > (n - 1) / 2:
        # dense case: switchings would rarely find room; take the complement of a random
        # (n - 1 - d)-regular graph, which is d-regular (n * (n - 1 - d) has the parity of n * d)
        sparse = random_regular(n, n - 1 - d, rng=rng, max_rounds=max_rounds)
        full = np.ones((n, n), dtype=bool)
        np.fill_diagonal(full, False)
        full[sparse.weights.nonzero()] = False
        i, j = np.nonzero(np.triu(full, k=1))
        return _from_pairs(n, i.astype(np.int64), j.astype(np.int64))
    if d <= 3:
        # exact: a uniform pairing conditioned on being simple is uniform over simple d-regular
        # graphs, and a pairing is simple with probability about exp(-(d^2 - 1) / 4) >= 0.13
        for _ in range(max_rounds):
            stubs = rng.permutation(np.repeat(np.arange(n, dtype=np.int64), d))
            u, v = stubs[0::2], stubs[1::2]
            key = np.minimum(u, v) * n + np.maximum(u, v)
            if not np.any(u == v) and np.unique(key).size == key.size:
                return _from_pairs(n, u, v)
        raise RuntimeError(f"random_regular(n={n}, d={d}): no simple pairing in {max_rounds} tries")
    stubs = rng.permutation(np.repeat(np.arange(n, dtype=np.int64), d))
    u, v = stubs[0::2].copy(), stubs[1::2].copy()
    m = u.size

    def keys(e):
        return np.minimum(u[e], v[e]) * n + np.maximum(u[e], v[e])

    def full_check():
        # one full sort finds the bad set: loops and every copy of a pair but the first
        key = keys(slice(None))
        order = np.argsort(key, kind="stable")
        sorted_keys = key[order]
        repeat = np.zeros(m, dtype=bool)
        repeat[order[1:]] = sorted_keys[1:] == sorted_keys[:-1]
        return sorted_keys, np.flatnonzero(repeat | (u == v))

    sorted_keys, bad = full_check()
    # afterwards only edges touched by a switch (or left bad) can be bad, so each round updates
    # the sorted key array (delete old keys, insert new ones) instead of sorting all m again
    for _ in range(max_rounds):
        if bad.size == 0:
            sorted_keys, bad = full_check()  # confirm with a full sort (cheap insurance)
            if bad.size == 0:
                break
        partner = rng.integers(0, m, size=bad.size)
        # apply at once only switches on disjoint edge pairs: pair k goes ahead when it is the
        # first pair to use both of its edges (pair 0 always does, so every round progresses;
        # partners may themselves be bad, which matters when almost every edge is bad)
        k = np.arange(bad.size)
        first_user = np.full(m, bad.size)
        np.minimum.at(first_user, np.concatenate([bad, partner]), np.concatenate([k, k]))
        ok = (first_user[bad] == k) & (first_user[partner] == k) & (bad != partner)
        e, f = bad[ok], partner[ok]
        changed = np.concatenate([e, f])
        old = np.sort(keys(changed))
        run_start = np.r_[0, np.flatnonzero(old[1:] != old[:-1]) + 1]
        occurrence = np.arange(old.size) - np.repeat(run_start, np.diff(np.r_[run_start, old.size]))
        sorted_keys = np.delete(sorted_keys, np.searchsorted(sorted_keys, old) + occurrence)
        flip = rng.random(e.size) < 0.5
        a, b = u[e], v[e]
        c = np.where(flip, v[f], u[f])
        g = np.where(flip, u[f], v[f])
        u[e], v[e], u[f], v[f] = a, c, b, g
        new = np.sort(keys(changed))
        sorted_keys = np.insert(sorted_keys, np.searchsorted(sorted_keys, new), new)
        candidates = np.unique(np.concatenate([changed, bad[~ok]]))
        ck = keys(candidates)
        count = (np.searchsorted(sorted_keys, ck, side="right")
                 - np.searchsorted(sorted_keys, ck, side="left"))
        flagged = count > 1
        # a repeated pair needs all copies but one switched: when every copy is a candidate
        # (none is a settled edge outside the candidates), keep the first one
        _, first_at, inverse, in_cand = np.unique(ck, return_index=True, return_inverse=True,
                                                  return_counts=True)
        all_cand = in_cand == count[first_at]
        flagged[first_at[all_cand]] = False
        bad = candidates[flagged | (u[candidates] == v[candidates])]
    else:
        raise RuntimeError(f"random_regular(n={n}, d={d}) did not reach a simple graph in "
                           f"{max_rounds} rounds of switches")
    return _from_pairs(n, u, v)


def toroidal_grid_pm1(rows: int, cols: int, *, rng=None, p_negative: float = 0.5) -> GraphData:
    """G-set-like toroidal grid with random ±1 weights (like G81: 100 x 200, and G57, G62, ...).

    Node ``r * cols + c`` is joined to its right and lower neighbours with wrap-around, so every
    node has degree 4 and ``m = 2 * rows * cols``; each edge weight is ``-1`` with probability
    ``p_negative``, else ``+1``. Needs ``rows, cols >= 3`` (smaller tori have parallel edges).
    Returns :class:`GraphData` (no planted structure).

    Example
    -------
    >>> g = toroidal_grid_pm1(10, 20, rng=0)
    >>> g.n, g.m, sorted(set(g.weights.data.tolist()))
    (200, 400, [-1.0, 1.0])
    """
    for name, value in (("rows", rows), ("cols", cols)):
        if not isinstance(value, (int, np.integer)) or value < 3:
            raise ValueError(f"{name} must be an integer >= 3, got {value!r}")
    if not 0 <= p_negative <= 1:
        raise ValueError(f"p_negative must lie in [0, 1], got {p_negative}")
    _check_size("toroidal_grid_pm1", int(rows) * int(cols), 4)
    rng = make_rng(rng)
    r, c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    node = r * cols + c
    right = r * cols + (c + 1) % cols
    down = ((r + 1) % rows) * cols + c
    i = np.concatenate([node, node])
    j = np.concatenate([right, down])
    w = np.where(rng.random(i.size) < p_negative, -1.0, 1.0)
    return _from_pairs(rows * cols, i, j, w)
