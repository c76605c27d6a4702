r"""Rounding and local search for the cut-type problems (Max-Cut, Max-Bisection).

* :func:`hyperplane_round` -- Goemans-Williamson: ``x = sign(V g)`` for many Gaussian ``g``,
  all evaluated by one blocked product ``W @ X`` per batch; the best is kept. For bisection the
  threshold is the median of ``V g`` (balanced by construction).
* :func:`correlation_round` -- independent rounding from degree-2 marginals (d'Orsi-Novikov
  Alg. 7.4) after global-correlation conditioning (Barak-Raghavendra-Steurer; d'Orsi-Novikov
  Lemma 7.6): seed variables S are drawn with probability proportional to their global
  correlation :math:`\sum_j X_{sj}^2`, each assignment :math:`\sigma \in \{\pm1\}^S` is enumerated,
  the degree-2 (Gaussian) conditional means :math:`E[x_i \mid x_S = \sigma] = X_{iS}X_{SS}^{+}\sigma`
  (clipped to [-1, 1]) are used as marginals, and every variable is rounded independently.
* :func:`rebalance` -- moves the cheapest vertices from the larger side until
  :math:`|\,|L| - |R|\,| \le 1`.
* :func:`flip_local_search`, :func:`swap_local_search` -- best-improvement single flips (cut) or
  swaps across the sides (bisection). Gains :math:`c_i = x_i (Wx)_i` are kept for all vertices
  and updated with one column of W per move (vectorised); no loop over all pairs.

All functions see only the weights they are given: the objective of the instance being solved.
"""

from __future__ import annotations

import time

import numpy as np

from dpgraph.engine.operator import WeightOperator

__all__ = ["cut_values", "hyperplane_round", "correlation_round", "rebalance",
           "flip_local_search", "swap_local_search"]


def cut_values(op: WeightOperator, X: np.ndarray) -> np.ndarray:
    """Cut weight ``(sum W - x^T W x) / 4`` of each ``±1`` column of ``X`` (or of a vector)."""
    return 0.25 * (op.total - op.quad(X))


def _sign(Z):
    return np.where(Z >= 0, 1.0, -1.0)


# Bytes of ``n x c`` float64 temporaries the roundings may hold at once (a product, its
# diagonal correction, the rounded signs, the projections): the columns of one batch are
# evaluated ``c`` at a time so that the client's memory stays O(n) with a small constant at
# n = 10^6 (64 columns at once would hold 2.9 KB per node). An operator whose own matrix is
# larger gets half its size instead, so that sparse inputs are not re-read for nothing.
ROUND_MEMORY = 256 * 2**20
_BYTES_PER_COLUMN_ROW = 48  # about six n-vectors of float64 per column evaluated at once


def _op_bytes(op: WeightOperator) -> int:
    W = op.W
    if isinstance(W, np.ndarray):
        return int(W.nbytes)
    return int(sum(getattr(W, a).nbytes for a in ("data", "indices", "indptr") if hasattr(W, a)))


def column_block(op: WeightOperator, width: int, max_bytes: int | None = None) -> int:
    """How many ``±1`` columns of length ``n`` to evaluate at once (at most ``width``): the
    largest power of two whose temporaries fit in ``max_bytes`` (default: :data:`ROUND_MEMORY`
    or half the operator's own size, whichever is larger), and at least 4. Meant to change
    memory only: with blocks of a power of two >= 4 columns (aligned with the BLAS products'
    column unrolling) each column's value came out bit for bit as in one product over all
    columns, on OpenBLAS here and in tests/test_csp_rounding_memory.py, which checks it wherever
    it runs; blocks of 1, 3 or 5 columns differed in the last bits."""
    if max_bytes is None:
        max_bytes = max(ROUND_MEMORY, _op_bytes(op) // 2)
    fit = int(max_bytes) // (_BYTES_PER_COLUMN_ROW * max(op.n, 1))
    c = 4
    while 2 * c <= fit:
        c *= 2
    return int(max(1, min(int(width), c)))


def hyperplane_round(op: WeightOperator, V: np.ndarray, n_hyperplanes: int, gen, *,
                     balanced: bool = False, batch: int = 64, keep: int = 1,
                     max_bytes: int | None = None):
    """Best of ``n_hyperplanes`` random-hyperplane roundings of the rows of ``V``.

    Returns ``(x, value, all_values)``; with ``keep > 1``, ``x`` is an ``n x keep`` matrix of the
    ``keep`` best roundings (best first) and ``value`` their values. The hyperplanes are drawn
    ``batch`` at a time; their roundings are evaluated :func:`column_block` at a time (memory
    ``O(n)`` per column evaluated at once plus ``n x keep`` bytes for the best), which changes
    neither the draws nor the values.
    """
    n, k = V.shape
    best_x, best_v, vals = None, -np.inf, []
    top_X, top_v = np.zeros((n, 0), dtype=np.int8), np.zeros(0)
    c = column_block(op, batch, max_bytes)
    left = int(n_hyperplanes)
    while left > 0:
        h = min(batch, left)
        left -= h
        G = gen.standard_normal((k, h))
        for a in range(0, h, c):
            Z = V @ G[:, a:a + c]
            if balanced:
                # the floor(n/2) largest projections go to +1 (ties broken by index): balanced
                order = np.argsort(-Z, axis=0, kind="stable")
                del Z
                X = -np.ones(order.shape)
                np.put_along_axis(X, order[: n // 2], 1.0, axis=0)
                del order
            else:
                X = _sign(Z)
                del Z
            v = cut_values(op, X)
            vals.append(v)
            j = int(np.argmax(v))
            if v[j] > best_v:
                best_v, best_x = float(v[j]), X[:, j].copy()
            if keep > 1:
                allv = np.r_[top_v, v]
                order = np.argsort(-allv, kind="stable")[:keep]
                top_X = _merge_top(top_X, X, order, top_v.size)
                top_v = allv[order]
            del X
    if keep > 1:
        return top_X.astype(np.float64), top_v, np.concatenate(vals)
    return best_x, best_v, np.concatenate(vals)


def _merge_top(top_X: np.ndarray, X: np.ndarray, order: np.ndarray, n_top: int) -> np.ndarray:
    """Columns ``order`` of ``[top_X, X]`` (``int8``) without forming the concatenation."""
    out = np.empty((X.shape[0], order.size), dtype=np.int8)
    for c, o in enumerate(order):
        out[:, c] = top_X[:, o] if o < n_top else X[:, o - n_top]
    return out


def _choose_seeds(V: np.ndarray, t: int, gen) -> list[int]:
    """Draw t seeds with probability proportional to their global correlation, conditioning
    (projecting out the seed's vector) after each draw, as in the BRS seed-selection step."""
    R = V.copy()
    seeds: list[int] = []
    for _ in range(t):
        G = R.T @ R
        score = np.einsum("ij,jk,ik->i", R, G, R)  # sum_j (r_i . r_j)^2
        score[seeds] = 0.0
        score = np.maximum(score, 0.0)
        tot = score.sum()
        if tot <= 1e-300:
            break
        s = int(gen.choice(len(score), p=score / tot))
        seeds.append(s)
        vs = R[s]
        nv = float(vs @ vs)
        if nv > 1e-300:
            R -= np.outer(R @ vs, vs) / nv  # R is our own copy: in place, same operations
    return seeds


def correlation_round(op: WeightOperator, V: np.ndarray, seeds: int, gen, *, samples: int = 4,
                      balanced: bool = False, max_bytes: int | None = None):
    """Global correlation rounding at degree 2 (see the module docstring).

    Returns ``(x, value, seeds_used)``; with ``balanced`` each sample is rebalanced first. The
    ``2^|S| x samples`` roundings are evaluated a few seed assignments at a time
    (:func:`column_block`), which changes neither the draws nor the values.
    """
    n = V.shape[0]
    S = _choose_seeds(V, min(int(seeds), n), gen)
    if S:
        XS = V @ V[S].T                                 # X_{iS}
        P = np.linalg.pinv(XS[S])                       # X_SS^+
        coef = XS @ P                                   # n x |S|
        del XS
    sigmas = np.array(np.meshgrid(*[[-1.0, 1.0]] * len(S), indexing="ij")).reshape(len(S), -1).T \
        if S else np.zeros((1, 0))
    group = max(1, column_block(op, len(sigmas) * samples, max_bytes) // max(samples, 1))
    best_x, best_v = None, -np.inf
    for g0 in range(0, len(sigmas), group):
        cols = []
        for sigma in sigmas[g0:g0 + group]:
            m = np.clip(coef @ sigma, -1.0, 1.0) if S else np.zeros(n)
            U = gen.random((n, samples))
            X = np.where(U < (1.0 + m[:, None]) / 2.0, 1.0, -1.0)
            del U, m
            if S:
                X[S, :] = sigma[:, None]
            cols.append(X)
        X = np.hstack(cols) if len(cols) > 1 else cols[0]
        del cols
        if balanced:
            X = np.column_stack([rebalance(op, X[:, j])[0] for j in range(X.shape[1])])
        v = cut_values(op, X)
        j = int(np.argmax(v))
        if v[j] > best_v:  # the first of equal values, as one argmax over all columns
            best_v, best_x = float(v[j]), X[:, j].copy()
        del X
    return best_x, best_v, S


def _flip(op, x, Wx, gain, i):
    """Flip x_i in place and update Wx and the gains of i and its neighbours."""
    x[i] = -x[i]
    idx, w = op.column(i)
    Wx[idx] += 2.0 * x[i] * w
    gain[idx] = x[idx] * Wx[idx]
    gain[i] = x[i] * Wx[i]


def rebalance(op: WeightOperator, x: np.ndarray, Wx=None):
    """Move vertices of largest gain from the larger side until ``|sum(x)| <= 1``.

    Greedy, one vertex at a time, gains updated after each move. On a factor form
    (``op.factors()``, the matrix-free route) the same greedy runs on the k-vector
    :math:`z = U^Tx` (:func:`_rebalance_factor`). Returns ``(x, Wx)`` (new arrays).
    """
    if hasattr(op, "factors"):
        return _rebalance_factor(op, x)
    x = np.array(x, dtype=np.float64)
    Wx = op.matmul(x) if Wx is None else Wx.copy()
    gain = x * Wx
    s = int(round(x.sum()))
    if not op.is_dense and (abs(s) // 2) * x.size > _REBALANCE_SCAN_ENTRIES:
        return _rebalance_heap(op, x, Wx, gain, s)
    while abs(s) > 1:
        side = 1.0 if s > 0 else -1.0
        cand = np.where(x == side, gain, -np.inf)
        i = int(np.argmax(cand))
        _flip(op, x, Wx, gain, i)
        s -= 2 * int(side)
    return x, Wx


# Entries the greedy of :func:`rebalance` may scan (moves x n) before it keeps its candidates
# in a heap instead: a star of 10^6 leaves, rounded with the leaves on one side, needs 5 x 10^5
# moves, each an O(n) argmax (118 s of solve_max_bisection's 197 s there)
_REBALANCE_SCAN_ENTRIES = 50_000_000


def _rebalance_heap(op, x, Wx, gain, s):
    """:func:`rebalance`'s greedy on a sparse operator with its candidates in a heap keyed by
    ``(-gain, vertex)``: the same moves as the O(n) argmax per move (the largest gain on the
    larger side, the smallest vertex among equal gains), in O((n + sum of the moved vertices'
    degrees) log n). Each gain that changes on the larger side is pushed again; an entry is
    current while its vertex is still there and its key is its gain. A moved vertex never
    returns (the larger side stays the larger side until ``|sum x| <= 1``)."""
    import heapq

    side = 1.0 if s > 0 else -1.0
    members = np.flatnonzero(x == side)
    heap = list(zip((-gain[members]).tolist(), members.tolist()))
    heapq.heapify(heap)
    while abs(s) > 1:
        while True:
            key, i = heapq.heappop(heap)
            if x[i] == side and -key == gain[i]:
                break
        _flip(op, x, Wx, gain, i)
        idx, _ = op.column(i)
        for j in idx[x[idx] == side].tolist():
            heapq.heappush(heap, (-float(gain[j]), j))
        s -= 2 * int(side)
    return x, Wx


_REBALANCE_TOP = 256  # candidates whose gains are kept exact between full refreshes
# moves between two refreshes at least: when the gains are flat (a noise-dominated release,
# where every stale gain is within the drift bound of the best) the greedy is then followed
# among the top candidates only; n = 2e5, d = 20: 8,303 refreshes (28 s) otherwise
# (benchmarks/bench_bisection.py matrix-free)
_REBALANCE_MIN_MOVES = 16


def _rebalance_factor(op, x):
    r""":func:`rebalance` on :math:`W = UKU^T` (off-diagonal part), the same greedy moves.

    The gain of vertex j is :math:`g_j = x_j U_j^T K z - d_j` with :math:`z = U^Tx` and
    :math:`d_j = U_j^TKU_j`; a move changes z by :math:`-2x_jU_j` in O(k). A column of W costs
    O(n k), so moving ``|sum x| / 2`` vertices column by column cost O(n^1.5 k) per rounding
    (9 of max_bisection's 13.6 s at n = 1e5, 64 roundings). Here all gains are computed at a
    refresh point :math:`z_0` (one O(n k) product) and only the ``_REBALANCE_TOP`` largest are
    recomputed exactly after each move; since
    :math:`|g_j(z) - g_j(z_0)| \le \|U_j\|\,\|K(z - z_0)\|`, the best exact candidate is the true
    argmax whenever it beats every other stale gain plus that drift. When it does not, the
    gains are refreshed, but at most once per ``_REBALANCE_MIN_MOVES`` moves: until then the
    move is the best of the top candidates. So the moves are the greedy's while the gains are
    well separated (the test compares with the column-by-column greedy), and close to it when
    they are flat, where which vertex moves hardly changes the cut.
    """
    U, K = op.factors()
    d = op.diag
    n = U.shape[0]
    x = np.array(x, dtype=np.float64)
    z = U.T @ x
    s = int(round(x.sum()))
    if abs(s) > 1:
        side = 1.0 if s > 0 else -1.0
        maxnorm = float(np.sqrt(np.max(np.einsum("ij,ij->i", U, U))))
        top = None
        while abs(s) > 1:
            if top is None:  # refresh: every gain at z0, the top T kept, the rest bounded
                z0 = z.copy()
                since = 0
                stale = np.where(x == side, x * (U @ (K @ z0)) - d, -np.inf)
                T = min(_REBALANCE_TOP, n)
                if T < n:
                    part = np.argpartition(stale, n - T - 1)
                    top, rest_best = part[n - T:], float(stale[part[n - T - 1]])
                else:
                    top, rest_best = np.arange(n), -np.inf
            cand = top[x[top] == side]
            drift = float(np.linalg.norm(K @ (z - z0)))
            if cand.size == 0:
                top = None
                continue
            exact = x[cand] * (U[cand] @ (K @ z)) - d[cand]
            b = int(np.argmax(exact))
            if (exact[b] < rest_best + 2.0 * maxnorm * drift and drift > 0
                    and since >= _REBALANCE_MIN_MOVES):
                top = None  # another vertex may have overtaken: recompute every gain
                continue
            since += 1
            j = int(cand[b])
            z -= 2.0 * x[j] * U[j]
            x[j] = -x[j]
            s -= 2 * int(side)
    return x, op.matmul(x)


def flip_local_search(op: WeightOperator, x: np.ndarray, *, max_moves: int | None = None,
                      tol: float = 1e-12):
    """Best-improvement single-flip local search for Max-Cut. Returns ``(x, moves)``."""
    x = np.array(x, dtype=np.float64)
    Wx = op.matmul(x)
    gain = x * Wx
    thr = tol * max(1.0, float(np.max(np.abs(op.degrees))) if op.n else 1.0)
    moves = 0
    limit = 20 * op.n + 100 if max_moves is None else int(max_moves)
    while moves < limit:
        i = int(np.argmax(gain))
        if gain[i] <= thr:
            break
        _flip(op, x, Wx, gain, i)
        moves += 1
    return x, moves


def swap_local_search(op: WeightOperator, x: np.ndarray, *, max_moves: int | None = None,
                      tol: float = 1e-12, candidates: int = 8, deadline: float | None = None):
    """Local search for Max-Bisection: swaps across the sides (and, for odd n, single moves from
    the larger side, which keep ``|sum x| = 1``). Each step evaluates the ``candidates`` best
    vertices of each side pairwise, ``gain_i + gain_j + 2 W_ij``, and applies the best positive
    move. ``deadline`` (a ``time.perf_counter()`` value) stops the descent early: each step costs
    O(n) in NumPy, so on large graphs the full descent can outlast a caller's time budget.
    Returns ``(x, moves)``; ``x`` stays balanced."""
    x = np.array(x, dtype=np.float64)
    Wx = op.matmul(x)
    gain = x * Wx
    n = op.n
    thr = tol * max(1.0, float(np.max(np.abs(op.degrees))) if n else 1.0)
    moves = 0
    limit = 20 * n + 100 if max_moves is None else int(max_moves)
    K = int(candidates)
    while moves < limit and n >= 2:
        if deadline is not None and moves % 16 == 0 and time.perf_counter() > deadline:
            break
        best = (thr, None)
        s = int(round(x.sum()))
        if s != 0:  # odd n: a single move from the larger side keeps balance
            side = 1.0 if s > 0 else -1.0
            cand = np.where(x == side, gain, -np.inf)
            i = int(np.argmax(cand))
            if cand[i] > best[0]:
                best = (float(cand[i]), (i,))
        gp = np.where(x > 0, gain, -np.inf)
        gm = np.where(x < 0, gain, -np.inf)
        kp = min(K, int(np.count_nonzero(x > 0)))
        km = min(K, int(np.count_nonzero(x < 0)))
        if kp and km:
            P = np.argpartition(-gp, kp - 1)[:kp]
            Q = np.argpartition(-gm, km - 1)[:km]
            if op.is_dense:
                Wpq = op.W[np.ix_(P, Q)]
            else:
                Wpq = op.W[P][:, Q].toarray()
            D = gp[P][:, None] + gm[Q][None, :] + 2.0 * np.asarray(Wpq)
            a, b = np.unravel_index(int(np.argmax(D)), D.shape)
            if D[a, b] > best[0]:
                best = (float(D[a, b]), (int(P[a]), int(Q[b])))
        if best[1] is None:
            break
        for i in best[1]:
            _flip(op, x, Wx, gain, i)
        moves += 1
    return x, moves
