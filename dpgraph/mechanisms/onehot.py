"""Marginals of categorical data (one-hot encoded binary data) by perturb-and-project.

Data: an ``m x d`` integer table, column ``a`` taking values ``0 .. sizes[a]-1``; one-hot
encoding gives the binary dataset of :mod:`dpgraph.mechanisms.marginals` with exactly ``t = d``
ones per row (the t-sparse setting). Adjacency: replace one row (``m`` public).

* ``k = 2`` -- Thm A.4 with the one-hot structure: the moment matrix ``M = sum_rows x x^T``
  (``n x n``, ``n = sum sizes``; block ``(a, b)`` is the 2-way table, diagonal block ``(a, a)``
  the 1-way table on its diagonal) gets symmetric Gaussian noise with Frobenius sensitivity
  ``sqrt(2 d^2 - 2 c^2)`` (``c`` = number of attributes with a single value) and is projected
  onto ``K2 = {M PSD} cap {0 <= M <= m, M = 0 off the diagonal of every (a, a) block}
  cap {every row of every block (a, b) sums to the matching diagonal entry of block (a, a);
  every diagonal block has trace m}``. Every data matrix lies in ``K2``.
* ``k = 3`` -- the 3-way tables of all attribute triples get i.i.d. Gaussian noise with L2
  sensitivity ``sqrt(2 (C(d, 3) - C(c, 3)))`` (replacing a row moves two cells, by one each, of
  each table, except the ``C(c, 3)`` tables of single-valued attribute triples, which every row
  puts in the same cell) and are projected onto the local polytope ``L3 = {each table >= 0
  with total m} cap {tables sharing an attribute pair have the same 2-way marginal on it}``
  (our documented odd-k relaxation for categorical data: a valid superset of the
  data-generated tables).

Projection: Dykstra (``k = 2``; three sets) or Dykstra with closed-form affine steps
(``k = 3``; affine steps need no increments).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as spla

from dpgraph.memory import check_memory, format_bytes
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import check_delta, check_epsilon, check_integer
from dpgraph.privacy.noise import gaussian_mechanism, symmetric_gaussian_noise
from dpgraph.mechanisms.projection import ProjectionResult, dykstra
from dpgraph.mechanisms.convex import ConvexSet, finish_projection
from dpgraph.mechanisms.marginals import check_indices
from dpgraph.mechanisms.sets import Box, PSDCone, project_simplex

__all__ = ["OneHotMarginalsResult", "onehot_marginals", "SymmetricAffine", "check_categorical"]


def check_categorical(table, sizes, *, allow_empty: bool = False):
    """``(table, sizes)`` as an int64 ``m x d`` array of category codes and a list of ``d``
    integer domain sizes >= 1, with every code of column ``a`` in ``[0, sizes[a])``; anything
    else (non-integer sizes or codes, strings, a shape mismatch) raises a ValueError. A
    ``scipy.sparse`` table is densified. ``allow_empty``: a table of no rows (``m = 0``) is
    accepted, where ``m`` is private (add/remove adjacency: refusing it would tell the empty
    table from one row with certainty)."""
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
        raise ValueError(f"sizes must be a list of integer domain sizes (one per attribute), "
                         f"got {sizes!r}")
    sizes = [check_integer(s, name=f"sizes[{a}] (the domain size of attribute {a})", low=1)
             for a, s in enumerate(sizes)]
    if sp.issparse(table):
        table = table.toarray()
    T = np.asarray(table)
    if T.dtype.kind not in "biuf":
        raise ValueError(f"table must hold integer category codes (0 .. sizes[a] - 1 in column "
                         f"a), got dtype {T.dtype}; encode the categories as integers first")
    if T.ndim == 1 and T.size == 0 and allow_empty:  # np.asarray([]): no rows of len(sizes)
        T = T.reshape(0, len(sizes))
    if T.ndim != 2 or (T.shape[0] < 1 and not allow_empty):
        raise ValueError(f"table must be a non-empty 2-d array (rows x attributes), got shape "
                         f"{T.shape}")
    if T.shape[1] != len(sizes):
        raise ValueError(f"sizes has {len(sizes)} entries but table has {T.shape[1]} columns")
    if not np.all(np.equal(np.mod(T, 1), 0)):
        bad = np.argwhere(~np.equal(np.mod(T, 1), 0))[0]
        raise ValueError(f"table must hold integer category codes; entry "
                         f"{tuple(int(i) for i in bad)} is {T[tuple(bad)].item()!r}")
    T = T.astype(np.int64)
    for a, s in enumerate(sizes):
        if T.shape[0] and (T[:, a].min() < 0 or T[:, a].max() >= s):
            raise ValueError(f"column {a}: codes must lie in [0, {s - 1}]")
    return T, sizes


class SymmetricAffine(ConvexSet):
    """``{M : A vec((M + M^T)/2) = b}``: linear equations on the symmetric part of a square
    matrix. Its projection maps symmetric matrices to symmetric matrices. Solved with
    conjugate gradients on ``A_s A_s^T`` (``A_s`` = rows of ``A`` symmetrised), which handles
    redundant consistent equations."""

    def __init__(self, A, b, n: int, *, cg_tol: float = 1e-12, cg_maxiter: int = 2000):
        A = sp.csr_matrix(A, dtype=np.float64)
        # column p*n+q -> q*n+p
        cols = np.arange(n * n)
        perm = (cols % n) * n + cols // n
        P = sp.csr_matrix((np.ones(n * n), (cols, perm)), shape=(n * n, n * n))
        self.A = ((A + A @ P) * 0.5).tocsr()
        self.b = np.asarray(b, dtype=np.float64)
        self.n = n
        self.cg_tol, self.cg_maxiter = cg_tol, cg_maxiter
        self._AAt = (self.A @ self.A.T).tocsr()
        self._y0 = None

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        x = X.reshape(-1)
        r = self.A @ x - self.b
        if not np.any(r):
            return finish_projection(X.copy() if out is None else X, out)
        try:
            y, _ = spla.cg(self._AAt, r, rtol=self.cg_tol, atol=0.0, maxiter=self.cg_maxiter)
        except TypeError:  # scipy < 1.12 spells it ``tol``
            y, _ = spla.cg(self._AAt, r, tol=self.cg_tol, atol=0.0, maxiter=self.cg_maxiter)
        R = (x - self.A.T @ y).reshape(X.shape)
        return finish_projection(R, out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        r = self.A @ np.asarray(X, dtype=np.float64).reshape(-1) - self.b
        return bool(np.abs(r).max(initial=0) <= tol)


class _Equations:
    """Sparse linear equations ``sum_k vals_k X.flat[cols_k] = rhs`` collected row by row."""

    def __init__(self):
        self.rows, self.cols, self.vals, self.rhs = [], [], [], []

    def add(self, cols, vals, rhs: float = 0.0) -> None:
        self.rows += [len(self.rhs)] * len(cols)
        self.cols += list(cols)
        self.vals += list(vals)
        self.rhs.append(float(rhs))

    def block_consistency(self, i: int, a: int, off, stride: int) -> None:
        """Row ``i`` (a value of attribute ``a``): for every other attribute ``b``, the entries
        of row ``i`` over ``b``'s values sum to ``X_ii`` (one-hot rows set exactly one value of
        ``b`` whenever they set ``i``)."""
        for b in range(len(off) - 1):
            if b != a:
                js = np.arange(off[b], off[b + 1])
                self.add(list(i * stride + js) + [i * stride + i], [1.0] * len(js) + [-1.0])

    def matrix(self, size: int) -> tuple:
        A = sp.csr_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.rhs), size))
        return A, np.array(self.rhs)


def _k2_sets(sizes, m):
    """Sets for ``M``; ``m=None`` (add/remove adjacency: the row count is private) drops the
    upper bound and asks the 1-way tables to have equal totals instead of total ``m``."""
    n = sum(sizes)
    off = np.concatenate([[0], np.cumsum(sizes)])
    attr = np.repeat(np.arange(len(sizes)), sizes)
    upper = np.full((n, n), np.inf if m is None else float(m))
    same = attr[:, None] == attr[None, :]
    upper[same & ~np.eye(n, dtype=bool)] = 0.0
    eqs = _Equations()
    d0 = np.arange(off[0], off[1])
    for a in range(len(sizes)):
        for v in range(sizes[a]):
            eqs.block_consistency(off[a] + v, a, off, n)
        di = np.arange(off[a], off[a + 1])
        if m is not None:  # every 1-way table sums to m
            eqs.add(di * n + di, [1.0] * len(di), m)
        elif a > 0:  # every 1-way table has the same total as the first
            eqs.add(list(di * n + di) + list(d0 * n + d0), [1.0] * len(di) + [-1.0] * len(d0))
    A, b = eqs.matrix(n * n)
    return [Box(0.0, upper), SymmetricAffine(A, b, n), PSDCone()]


def _k2_sets_augmented(sizes, m):
    """Sets for the augmented moment matrix ``[[m, d^T], [d, M]]`` (``d = diag M``, the 1-way
    counts), which is ``sum_rows (1, x)(1, x)^T``: PSD (equivalently ``M - d d^T / m`` PSD, the
    count covariance), entries in ``[0, m]`` with the structural zeros, corner ``= m``, first row
    ``=`` diagonal, and the block consistency equations. ``m=None`` (add/remove adjacency):
    no upper bound, and the corner equals every 1-way table's total instead of ``m``."""
    n = sum(sizes)
    N = n + 1
    off = np.concatenate([[0], np.cumsum(sizes)]) + 1
    attr = np.concatenate([[-1], np.repeat(np.arange(len(sizes)), sizes)])
    upper = np.full((N, N), np.inf if m is None else float(m))
    lower = np.zeros((N, N))
    same = (attr[:, None] == attr[None, :]) & (attr[:, None] >= 0)
    upper[same & ~np.eye(N, dtype=bool)] = 0.0
    if m is not None:
        lower[0, 0] = float(m)
    eqs = _Equations()
    for a in range(len(sizes)):
        for v in range(sizes[a]):
            i = off[a] + v
            eqs.block_consistency(i, a, off, N)
            eqs.add([i, i * N + i], [1.0, -1.0])  # first row entry equals the diagonal entry
        di = np.arange(off[a], off[a + 1])
        if m is None:  # total of the 1-way table equals the corner
            eqs.add(list(di) + [0], [1.0] * len(di) + [-1.0])
        else:
            eqs.add(di, [1.0] * len(di), m)
    A, b = eqs.matrix(N * N)
    return [Box(lower, upper), SymmetricAffine(A, b, N), PSDCone()]


@dataclass(repr=False)
class OneHotMarginalsResult:
    """Result of :func:`onehot_marginals`.

    ``tables[(a, b, ...)]`` holds the released count table of each attribute tuple of size
    ``k`` (sorted attributes); ``marginal(attrs)`` returns fractions for any ``<= k``
    attributes (by summing a released table; the tables are consistent, up to the solver
    residual, so the choice of table does not matter).
    """

    tables: dict
    sizes: list
    m: float  # the row count (public for replace-one; the released total for add/remove)
    k: int
    sigma: float
    sensitivity: float
    ledger: PrivacyLedger
    projection: ProjectionResult
    moment_matrix: np.ndarray | None = None

    def marginal(self, attrs) -> np.ndarray:
        attrs = check_indices(attrs, n=len(self.sizes), name="attrs", unit="attribute")
        if len(set(attrs)) != len(attrs) or not 1 <= len(attrs) <= self.k:
            raise ValueError(f"need 1..{self.k} distinct attributes, got {attrs!r}")
        srt = tuple(sorted(attrs))
        key = next(K for K in self.tables if set(srt) <= set(K))
        T = self.tables[key]
        drop = tuple(i for i, a in enumerate(key) if a not in srt)
        M = T.sum(axis=drop) if drop else T
        order = [srt.index(a) for a in attrs]
        return np.transpose(M, order) / self.m

    def __repr__(self) -> str:
        return (f"OneHotMarginalsResult(k={self.k}, attributes={len(self.sizes)}, m={self.m}, "
                f"tables={len(self.tables)}, sigma={self.sigma:.4g}, "
                f"sensitivity={self.sensitivity:.4g}, projection={self.projection!r})")


def _tables_of(T, sizes, k):
    out = {}
    for S in itertools.combinations(range(len(sizes)), k):
        dims = [sizes[a] for a in S]
        code = np.ravel_multi_index(tuple(T[:, a] for a in S), dims)
        out[S] = np.bincount(code, minlength=int(np.prod(dims))).reshape(dims).astype(np.float64)
    return out


def _project_L3(tables, sizes, m, tol, max_iter):
    """Dykstra onto {tables >= 0, total m} cap {pairwise-consistent}; affine steps closed form."""
    keys = list(tables)
    x = {S: tables[S].copy() for S in keys}
    inc = {S: np.zeros_like(x[S]) for S in keys}
    pairs = {}
    for S in keys:
        for pos in itertools.combinations(range(3), 2):
            R = (S[pos[0]], S[pos[1]])
            third = [p for p in range(3) if p not in pos][0]
            pairs.setdefault(R, []).append((S, third))
    scale = max(1.0, math.sqrt(sum(float((v ** 2).sum()) for v in tables.values())))
    history = []
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        step = 0.0
        for S in keys:  # simplex step (with Dykstra increment)
            y = x[S] + inc[S]
            new = (np.maximum(y, 0.0) if m is None
                   else project_simplex(y.ravel(), float(m)).reshape(y.shape))
            inc[S] = y - new
            x[S] = new
        for R, members in pairs.items():  # pair-consistency steps (affine: no increment)
            mus, w = [], []
            for S, third in members:
                mus.append(x[S].sum(axis=third))
                w.append(1.0 / sizes[S[third]])
            w = np.array(w)
            mubar = sum(wi * mu for wi, mu in zip(w, mus)) / w.sum()
            for (S, third), mu, wi in zip(members, mus, w):
                corr = np.expand_dims((mubar - mu) * wi, third)
                x[S] += corr
                step += float((corr ** 2).sum()) * sizes[S[third]]
        # after the sweep x is consistent; distance to the simplex set bounds the residual
        feas = math.sqrt(sum(float(((np.maximum(-v, 0)) ** 2).sum()) for v in x.values()))
        res = max(math.sqrt(step), feas) / scale
        history.append(res)
        if res <= tol and it > 1:
            converged = True
            break
    return x, ProjectionResult(np.array([]), it, converged, history[-1], "dykstra-L3", history)


# Copies of the (n + 1) x (n + 1) moment matrix of n one-hot columns the k = 2 release holds at
# once (the moment, the noise, the noisy copy, the projection's iterates): 18 measured at
# n = 3,000 (1.3 GiB) and 19 at n = 1,400; rounded up.
ONEHOT_COPIES = 22


def _check_moment_memory(m: int, n: int) -> None:
    """Refuse ``n`` one-hot columns (the sum of ``sizes``) of ``m`` rows whose moment matrix
    release would not fit (sizes of 10**6 each died of a bare MemoryError)."""
    def cost(k):
        return 8 * ONEHOT_COPIES * (k + 1) ** 2 + 8 * m * k

    check_memory(cost(n), what=f"the 2-way marginals of {n:,} one-hot columns (sum of sizes; "
                               f"an (n + 1) x (n + 1) moment matrix)",
                 fit=(cost, "At most {:,} one-hot columns (sum of sizes) fit."))


# The k = 3 release holds, at its peak, about 3.2 copies of all the cells of the 3-way tables
# (the exact tables, the noisy vector and its noise, the projection's iterate and increment)
# plus about 6 copies of the largest table (project_simplex's sort, cumulative sums and indices),
# and about 950 bytes of Python objects per table (keys, array headers, the pair index): 9.2
# copies of the cells measured for one table of 8 * 10**6 cells, 3.2 to 3.6 for 20 to 220
# tables, 950 bytes a table for 34,220 tables of 1 to 8 cells. Rounded up.
ONEHOT3_COPIES = 5
ONEHOT3_LARGEST = 7
ONEHOT3_TABLE_BYTES = 1500


def _check_triple_memory(m: int, sizes) -> None:
    """Refuse the 3-way tables of ``sizes`` (``m`` rows) whose release would not fit, from the
    public sizes alone: the cells ``e_3(sizes)`` of all ``C(d, 3)`` tables (the third
    elementary symmetric polynomial, in O(d) with exact integers, so no table or triple is
    built), the largest table (the product of the three largest sizes) and the table count."""
    d = len(sizes)
    e = [1, 0, 0, 0]
    for s in sizes:
        for j in (3, 2, 1):
            e[j] += e[j - 1] * s
    cells = e[3]
    largest = math.prod(sorted(sizes)[-3:])
    tables = math.comb(d, 3)

    def cost(x):  # x cells in all, the largest table keeping its share
        big = -(-x * largest // cells)
        return (8 * (ONEHOT3_COPIES * x + ONEHOT3_LARGEST * big) + ONEHOT3_TABLE_BYTES * tables
                + 8 * m * (d + 2))

    books = ONEHOT3_TABLE_BYTES * tables
    check_memory(cost(cells), what=f"the 3-way marginals of {d:,} attributes ({tables:,} "
                                   f"table{'s' if tables > 1 else ''} of {cells:,} cells in "
                                   f"all, the largest {largest:,})",
                 fit=(cost, "At most {:,} cells in all (the sum over the attribute triples of "
                            "the product of their sizes) fit."),
                 alternative=(f"{format_bytes(books)} of it is the bookkeeping of the "
                              f"{tables:,} tables (one per attribute triple): use fewer "
                              f"attributes." if 2 * books > cost(cells) else ""))


def onehot_marginals(table, sizes, k: int = 2, *, epsilon: float, delta: float,
                     ledger: PrivacyLedger | None = None, rng=None, tol: float = 1e-5,
                     max_iter: int = 500, augmented: bool = True,
                     adjacency: str = "replace-one", noise_diagonal: bool = False,
                     name: str = "onehot-marginals") -> OneHotMarginalsResult:
    """All ``k``-way marginals (``k`` in {2, 3}) of a categorical table; see the module docstring
    for the mechanism, its sensitivity and the convex set.

    Parameters
    ----------
    table : int array (m, d)
    sizes : list of int (d,)
        Domain size of each attribute (public).
    k : 2 or 3
    epsilon, delta, ledger, rng, tol, max_iter, name
    adjacency : {"replace-one", "add-remove"}
        ``"replace-one"`` (default): ``m`` is public, sensitivities as in the module docstring.
        ``"add-remove"`` (one row added or removed; ``m`` private): sensitivities ``d`` (k=2,
        ``||x x^T||_F = d``) and ``sqrt(C(d, 3))`` (k=3, one cell per table); the sets drop every
        use of ``m`` (no upper bound; equal totals instead of total ``m``) and the released total
        ``m`` of the result is read off the projected release.
    noise_diagonal : bool (k = 2)
        ``False`` (default): only the off-diagonal entries of ``M`` are released with noise
        (Frobenius sensitivity ``sqrt(2 (2 C(d,2) - 2 C(c,2)))``, or ``sqrt(2 C(d,2))`` for
        add/remove: the same noise as a Gaussian on every 2-way table); the 1-way counts on the
        diagonal are rebuilt from the noisy blocks (post-processing). ``True``: the paper's
        flattening with noise on all of ``M`` (sensitivity in the module docstring).
    augmented : bool (k = 2)
        Project the augmented matrix ``[[m, diag(Y)^T], [diag(Y), Y]]`` (post-processing of the
        noisy ``Y``) onto the augmented set (PSD of ``sum (1, x)(1, x)^T``, i.e. the count
        covariance ``M - d d^T/m`` PSD, a much stronger constraint than ``M`` PSD) instead of
        projecting ``Y`` onto ``K2``. Still a valid superset of the data; the result is then not
        the Euclidean projection of ``Y`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0], [0, 0, 2]])
    >>> res = onehot_marginals(table, [2, 2, 3], 2, epsilon=1.0, delta=1e-6, rng=0)
    >>> sorted(res.tables), res.marginal([0, 2]).shape
    ([(0, 1), (0, 2), (1, 2)], (2, 3))
    >>> round(float(res.marginal([0, 2]).sum()), 3)  # fractions of the m = 4 rows
    1.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    # under add/remove the row count is private, so an empty table is an input like another
    T, sizes = check_categorical(table, sizes, allow_empty=adjacency == "add-remove")
    m, d = T.shape
    if k not in (2, 3):
        raise ValueError(f"onehot_marginals supports k = 2 or 3, got {k!r}")
    if k > d:
        raise ValueError(f"k={k} exceeds the number of attributes d={d}")
    if adjacency not in ("replace-one", "add-remove"):
        raise ValueError(f"adjacency must be 'replace-one' or 'add-remove', got {adjacency!r}")
    addrem = adjacency == "add-remove"
    if not addrem and all(s == 1 for s in sizes):
        raise ValueError(f"every attribute has a single value (sizes = {sizes}): with "
                         f"adjacency='replace-one' (m public) all rows are equal and every "
                         f"marginal is public, so there is nothing to release; give the real "
                         f"domain sizes, or use adjacency='add-remove' if the row count is "
                         f"private")
    mpub = None if addrem else m
    # before the one-hot table, its moment matrix (k = 2) or the 3-way tables (k = 3) and
    # anything spent. Under add/remove the row count is private: the refusal and its message
    # are priced from the public sizes alone (the parts in proportion to m, a sparse one-hot
    # table and per-triple codes, are of the order of the table the caller holds already), so
    # they cannot tell a table from one with a row more (docs/privacy.md 2.4)
    if k == 2:
        _check_moment_memory(mpub or 0, sum(sizes))
    else:
        _check_triple_memory(mpub or 0, sizes)
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    if k == 2:
        n = sum(sizes)
        c = sum(1 for s in sizes if s == 1)
        off = np.concatenate([[0], np.cumsum(sizes)])
        cols = T + off[:-1][None, :]
        # the one-hot table, sparse (m d entries): M = X^T X holds exact integer counts
        X = sp.csr_matrix((np.ones(m * d), cols.ravel(), np.arange(0, m * d + 1, d)),
                          shape=(m, n))
        M = np.asarray((X.T @ X).toarray(), dtype=np.float64)
        del X
        if noise_diagonal:
            # Frobenius sensitivity of M (docstring); symmetric noise on all of M
            sens = float(d) if addrem else math.sqrt(2 * d * d - 2 * c * c)
            G = symmetric_gaussian_noise(n, sensitivity=sens / math.sqrt(2), epsilon=epsilon,
                                         delta=delta, ledger=ledger, name=name, rng=rng,
                                         diagonal_scale=math.sqrt(2),
                                         note=f"one-hot moment matrix, {adjacency}")
            Y = G.to_dense()
            Y += M
        else:
            # only the off-diagonal entries carry data into the release (the diagonal of M is
            # zeroed before the noise and rebuilt from the noisy blocks afterwards); Frobenius
            # sensitivity of the off-diagonal part: sqrt(2 |P_x sym-diff P_y|), P_x the
            # C(d, 2) attribute pairs of row x: 2 (2 C(d,2) - 2 C(c,2)) or 2 C(d, 2)
            pairs = math.comb(d, 2)
            vec = math.sqrt(pairs if addrem else 2 * pairs - 2 * math.comb(c, 2))
            sens = math.sqrt(2) * vec
            np.fill_diagonal(M, 0.0)
            G = symmetric_gaussian_noise(n, sensitivity=vec, epsilon=epsilon, delta=delta,
                                         ledger=ledger, name=name, rng=rng,
                                         note=f"one-hot moment matrix off the diagonal, "
                                              f"{adjacency}")
            Y = G.to_dense()
            Y += M
            # 1-way counts from the noisy 2-way blocks: the row sums of block (a, b) all
            # estimate count(a, v), with noise variance sizes[b] sigma^2: inverse-variance mean
            est = np.zeros(n)
            for a in range(d):
                rs = slice(off[a], off[a + 1])
                num = np.zeros(sizes[a])
                den = 0.0
                for b in range(d):
                    if b != a:
                        num += Y[rs, off[b]:off[b + 1]].sum(axis=1) / sizes[b]
                        den += 1.0 / sizes[b]
                est[rs] = num / den if den > 0 else 0.0
            np.fill_diagonal(Y, est)
        if augmented:
            Ya = np.empty((n + 1, n + 1))
            Ya[1:, 1:] = Y
            Ya[0, 1:] = Ya[1:, 0] = np.diag(Y)
            # corner: m, or (add/remove) the mean of the noisy 1-way totals (post-processing)
            Ya[0, 0] = m if not addrem else float(np.diag(Y).sum() / d)
            del Y
            res = dykstra(Ya, _k2_sets_augmented(sizes, mpub), tol=tol, max_iter=max_iter)
            P = res.point[1:, 1:]
        else:
            res = dykstra(Y, _k2_sets(sizes, mpub), tol=tol, max_iter=max_iter)
            P = res.point
        tables = {(a, b): P[off[a]:off[a + 1], off[b]:off[b + 1]].copy()
                  for a, b in itertools.combinations(range(d), 2)}
        total = m if not addrem else max(float(np.trace(P)) / d, 1e-12)
        return OneHotMarginalsResult(tables, sizes, total, 2, G.sigma, sens, ledger, res, P)
    # k == 3
    true = _tables_of(T, sizes, 3)
    keys = list(true)
    if addrem:
        # one row added or removed: one cell of every table moves by one
        sens = math.sqrt(len(keys))
    else:
        # replace one row: two cells of each table move by one each, except in the C(c, 3)
        # tables of triples of single-valued attributes, where every row has the same cell;
        # attained by two rows differing in every attribute with more than one value
        c = sum(1 for s in sizes if s == 1)
        sens = math.sqrt(2 * (len(keys) - math.comb(c, 3)))
    flat = np.concatenate([true[S].ravel() for S in keys])
    noisy, sigma = gaussian_mechanism(flat, sensitivity=sens, epsilon=epsilon, delta=delta,
                                      ledger=ledger, name=name, rng=rng,
                                      note=f"all 3-way tables, {adjacency}")
    del flat
    tabs, pos = {}, 0
    for S in keys:
        sz = true[S].size
        tabs[S] = noisy[pos:pos + sz].reshape(true[S].shape)
        pos += sz
    del true, noisy
    if addrem:
        # the row count is private: estimate it from the noisy tables (post-processing) by the
        # inverse-variance mean of their totals (the total of table S has noise variance
        # |S| sigma^2, |S| its number of cells), then project with that total
        w = np.array([1.0 / tabs[S].size for S in keys])
        sums = np.array([float(tabs[S].sum()) for S in keys])
        mpub = max(float((w * sums).sum() / w.sum()), 1.0)
    x, res = _project_L3(tabs, sizes, mpub, tol, max_iter)
    total = float(mpub)
    return OneHotMarginalsResult(x, sizes, total, 3, float(sigma), sens, ledger, res, None)
