"""k-way marginals of a binary dataset by perturb-and-project (Perturb-and-Project Thm A.4).

Data: an ``m x n`` 0/1 matrix (``m`` rows/individuals, ``n`` binary features). Adjacency:
replace one row (``m`` is public). The released object is the moment tensor
``T = sum_rows x^{(x)k}`` (counts): ``T[i_1..i_k]`` is the number of rows with all features
``{i_1..i_k}`` equal to one, so every conjunction -- and by inclusion-exclusion every marginal
table -- over at most ``k`` features is read off ``T``.

Sensitivity (docs/privacy.md 2.3): ``||x^{(x)k} - y^{(x)k}||_F^2 = |x|^k + |y|^k - 2 (x.y)^k``;
with at most ``t`` ones per row (``t = n`` unless ``sparsity`` is declared) and
``x.y >= max(0, |x| + |y| - n)`` this is at most
``Delta_k(t, n)^2 = max_{0 <= a, b <= t} a^k + b^k - 2 max(0, a + b - n)^k`` (attained).

Convex sets (every data tensor lies in each, so the projection never increases the error):

* class structure: ``T[i_1..i_k]`` depends only on the *set* ``{i_1..i_k}`` (symmetry, and
  ``x_i^2 = x_i``), with ``0 <= T <= m`` -- projected exactly by averaging over each class and
  clipping (:class:`TensorClassBox`);
* even ``k``: the flattening ``n^{k/2} x n^{k/2}`` is PSD (a sum of ``z z^T``,
  ``z = x^{(x)k/2}``); with ``sparsity = t`` also ``tr <= m t^{k/2}`` (t-sparse variant);
* odd ``k`` (our relaxation; the paper's is a degree-O(k) sum-of-squares set): every slice
  ``T[i, ...]`` flattened to ``n^{(k-1)/2} x n^{(k-1)/2}`` is PSD, since it equals
  ``sum_rows x_i z z^T`` (``z = x^{(x)(k-1)/2}``) with ``x_i >= 0``; with ``sparsity = t`` each
  slice's trace, ``sum_rows x_i |x|^{(k-1)/2}``, is also at most ``m t^{(k-1)/2}``.

For categorical data, one-hot encoded, :func:`onehot_marginals` uses the domain structure
(structural zeros, per-table totals, consistency of shared marginals).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import (check_delta, check_epsilon, check_integer, check_positive,
                                        dense_array)
from dpgraph.privacy.noise import gaussian_mechanism, symmetric_gaussian_noise
from dpgraph.mechanisms.projection import ProjectionResult, dykstra
from dpgraph.mechanisms.convex import ConvexSet, finish_projection
from dpgraph.mechanisms.sets import PSDCone, PSDTraceBall

__all__ = [
    "MarginalsResult",
    "kway_marginals",
    "tensor_sensitivity",
    "TensorClassBox",
    "FlattenedPSD",
    "SlicePSD",
    "marginal_from_conjunctions",
    "moment_tensor",
]

MAX_TENSOR_ENTRIES = 20_000_000


def tensor_sensitivity(k: int, n: int, t: int | None = None) -> float:
    """``Delta_k(t, n)``: Frobenius sensitivity of ``sum_rows x^{(x)k}`` under replace-one-row
    for 0/1 rows of length ``n`` with at most ``t`` ones (``t = n`` if None); exact maximum.

    Examples
    --------
    >>> tensor_sensitivity(2, 4)  # the all-ones row against the zero row: sqrt(4^2)
    4.0
    >>> round(tensor_sensitivity(2, 4, t=1), 6)  # sqrt(2) t^(k/2) when 2t <= n
    1.414214
    """
    k, n = int(k), int(n)
    t = n if t is None else int(t)
    if k < 1 or n < 1 or not 0 <= t <= n:
        raise ValueError(f"need k >= 1, n >= 1 and 0 <= t <= n (got k={k}, n={n}, t={t})")
    a = np.arange(t + 1, dtype=np.float64)
    A, B = np.meshgrid(a, a, indexing="ij")
    val = A**k + B**k - 2 * np.maximum(0.0, A + B - n) ** k
    return float(math.sqrt(val.max()))


def check_indices(values, *, n: int, name: str, unit: str = "feature") -> tuple:
    """``values`` (an iterable of ``unit`` indices) as a tuple of ints, each in ``[0, n)``;
    anything else (a negative or too large index, a non-integer, a scalar instead of a list)
    raises a ValueError naming ``name``, the index and the range. Duplicates are kept."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of {unit} indices, got {values!r}")
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_, str, bytes)) or not isinstance(v, (int, np.integer)) \
                and not (isinstance(v, (float, np.floating)) and float(v).is_integer()):
            raise ValueError(f"{name}: {unit} index {v!r} is not an integer ({unit}s are "
                             f"numbered 0 .. {n - 1})")
        i = int(v)
        if not 0 <= i < n:
            raise ValueError(f"{name}: {unit} index {i} is out of range: {unit}s are numbered "
                             f"0 .. {n - 1} (n = {n}; negative indices are not accepted)")
        out.append(i)
    return tuple(out)


def check_binary_rows(data) -> np.ndarray:
    """``data`` as a float ``m x n`` array of 0/1 rows (one row per individual), refusing an
    empty, non-2-d or non-binary input with the offending entry named. A ``scipy.sparse``
    ``data`` is densified (the moment tensor is dense anyway)."""
    X = dense_array(data, name="data", dtype=None)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"data must be a non-empty 2-d 0/1 matrix (m rows x n features), got "
                         f"shape {X.shape}")
    if not np.all((X == 0) | (X == 1)):
        bad = np.argwhere((X != 0) & (X != 1))[0]
        raise ValueError(f"data must be binary (0/1); entry {tuple(int(i) for i in bad)} is "
                         f"{X[tuple(bad)]!r}")
    return X.astype(np.float64)


def moment_tensor(X: np.ndarray, k: int) -> np.ndarray:
    """``sum_rows x^{(x)k}`` as a dense ``n^k`` array (k-dimensional)."""
    m, n = X.shape
    if k == 1:
        return X.sum(axis=0)
    if k == 2:
        return X.T @ X
    # Khatri-Rao: rows of X^{(x)(k-1)} combined with X
    L = X
    for _ in range(k - 2):
        L = (L[:, :, None] * X[:, None, :]).reshape(m, -1)
    return (L.T @ X).reshape((n,) * k)


def _class_labels(n: int, k: int) -> np.ndarray:
    """Label of each k-tuple = its index set (as an integer id); shape (n^k,)."""
    idx = np.indices((n,) * k).reshape(k, -1).T  # (n^k, k)
    srt = np.sort(idx, axis=1)
    # set = sorted tuple with duplicates removed; encode as a padded sorted unique tuple
    dup = np.zeros_like(srt, dtype=bool)
    dup[:, 1:] = srt[:, 1:] == srt[:, :-1]
    key = np.where(dup, n, srt)  # duplicates -> sentinel n
    key = np.sort(key, axis=1)
    code = np.zeros(key.shape[0], dtype=np.int64)
    for j in range(k):
        code = code * (n + 1) + key[:, j]
    _, labels = np.unique(code, return_inverse=True)
    return labels.ravel()


class TensorClassBox(ConvexSet):
    """Tensors (any shape with ``n^k`` entries) constant on each index-set class and within
    ``[lower, upper]``: projection = class mean, then clip (exact, because the constraints
    act per class value)."""

    def __init__(self, n: int, k: int, lower: float = 0.0, upper: float | None = None,
                 shape=None):
        self.n, self.k = int(n), int(k)
        self.labels = _class_labels(self.n, self.k)
        self.counts = np.bincount(self.labels).astype(np.float64)
        self.lower, self.upper = lower, upper
        self.shape = shape

    def class_means(self, X) -> np.ndarray:
        return np.bincount(self.labels, weights=np.asarray(X, dtype=np.float64).ravel(),
                           minlength=self.counts.size) / self.counts

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        mu = np.clip(self.class_means(X), self.lower, self.upper)
        return finish_projection(mu[self.labels].reshape(X.shape), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        return bool(np.abs(self.project(X) - X).max(initial=0) <= tol)


class FlattenedPSD(ConvexSet):
    """A k-tensor (k even) whose ``n^{k/2} x n^{k/2}`` flattening is PSD (and, if ``trace`` is
    given, has trace at most ``trace``)."""

    def __init__(self, n: int, k: int, trace: float | None = None):
        self.n, self.k = int(n), int(k)
        self.N = self.n ** (self.k // 2)
        self.inner = PSDCone() if trace is None else PSDTraceBall(trace)

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        M = self.inner.project(X.reshape(self.N, self.N))
        return finish_projection(M.reshape(X.shape), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        return self.inner.contains(np.asarray(X).reshape(self.N, self.N), tol)


class SlicePSD(ConvexSet):
    """A k-tensor (k odd) each of whose slices ``T[i, ...]``, flattened to
    ``n^{(k-1)/2} x n^{(k-1)/2}``, is PSD (trace at most ``trace`` if given)."""

    def __init__(self, n: int, k: int, trace: float | None = None):
        self.n, self.k = int(n), int(k)
        self.N = self.n ** ((self.k - 1) // 2)
        self.inner = PSDCone() if trace is None else PSDTraceBall(trace)

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        S = X.reshape(self.n, self.N, self.N)
        R = np.empty_like(S)
        for i in range(self.n):
            R[i] = self.inner.project(S[i])
        return finish_projection(R.reshape(X.shape), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        S = np.asarray(X, dtype=np.float64).reshape(self.n, self.N, self.N)
        return all(self.inner.contains(S[i], tol) for i in range(self.n))


def marginal_from_conjunctions(conj) -> np.ndarray:
    """Full ``2^s`` marginal table from conjunction values ``conj[J] = P[x_J = 1]`` for all
    subsets ``J`` of ``s`` features (a dict keyed by sorted tuples, ``()`` -> 1), by
    inclusion-exclusion: ``P[x_A = 1, x_{S-A} = 0] = sum_{B sup A} (-1)^{|B - A|} conj[B]``.
    The table is indexed by the 0/1 values of the features in order."""
    feats = max(conj, key=len)
    s = len(feats)
    table = np.zeros((2,) * s)
    for vals in itertools.product((0, 1), repeat=s):
        A = [f for f, v in zip(feats, vals) if v]
        rest = [f for f, v in zip(feats, vals) if not v]
        tot = 0.0
        for r in range(len(rest) + 1):
            for extra in itertools.combinations(rest, r):
                B = tuple(sorted(A + list(extra)))
                tot += (-1) ** r * conj[B]
        table[vals] = tot
    return table


@dataclass(repr=False)
class MarginalsResult:
    """Result of :func:`kway_marginals`.

    Attributes
    ----------
    tensor : ndarray (n,)*k
        The released (projected) moment tensor, counts.
    m : int
        Number of rows (public).
    k : int
    sigma : float
    sensitivity : float
    ledger : PrivacyLedger
    projection : ProjectionResult
    """

    tensor: np.ndarray
    m: int
    k: int
    sigma: float
    sensitivity: float
    ledger: PrivacyLedger
    projection: ProjectionResult
    relaxation: str = field(default="")

    def conjunction(self, features) -> float:
        """Released fraction of rows with all ``features`` equal to 1 (``1 <= len <= k``)."""
        f = sorted(set(check_indices(features, n=self.tensor.shape[0], name="features")))
        if not 1 <= len(f) <= self.k:
            raise ValueError(f"need between 1 and k={self.k} distinct features, got {features!r}")
        idx = tuple(f + [f[-1]] * (self.k - len(f)))
        return float(self.tensor[idx]) / self.m

    def marginal(self, features) -> np.ndarray:
        """The released ``2^s`` marginal table (fractions) of ``s <= k`` distinct features."""
        f = check_indices(features, n=self.tensor.shape[0], name="features")
        if len(set(f)) != len(f) or not 1 <= len(f) <= self.k:
            raise ValueError(f"need between 1 and k={self.k} distinct features, got {features!r}")
        conj = {(): 1.0}
        for r in range(1, len(f) + 1):
            for B in itertools.combinations(sorted(f), r):
                conj[B] = self.conjunction(B)
        # reorder to the caller's feature order
        table = marginal_from_conjunctions({tuple(sorted(k)): v for k, v in conj.items()})
        order = np.argsort(np.argsort(f))  # position of each caller feature in sorted order
        return np.transpose(table, axes=list(order)) if len(f) > 1 else table

    def __repr__(self) -> str:
        return (f"MarginalsResult(k={self.k}, n={self.tensor.shape[0]}, m={self.m}, "
                f"sigma={self.sigma:.4g}, sensitivity={self.sensitivity:.4g}, "
                f"projection={self.projection!r})")


def kway_marginals(data, k: int, *, epsilon: float, delta: float, sparsity: int | None = None,
                   ledger: PrivacyLedger | None = None, rng=None, tol: float = 1e-6,
                   max_iter: int = 2000, name: str = "kway-marginals") -> MarginalsResult:
    r"""All marginals of order ``<= k`` of a binary dataset (Perturb-and-Project Thm A.4).

    Adjacency: one row replaced (``m`` public). Releases ``P_K(T + W)`` with
    ``T = sum_rows x^{(x)k}``. Even ``k``: ``T`` is flattened to a
    symmetric ``n^{k/2} x n^{k/2}`` matrix and gets symmetric noise calibrated to
    ``Delta_k / sqrt 2`` (module docstring; docs/privacy.md 2.3); ``K`` = class structure with
    ``0 <= T <= m`` intersected with PSD flattening (trace ``<= m t^{k/2}`` when ``sparsity=t``:
    the t-sparse variant). Odd ``k``: i.i.d. noise on all ``n^k`` entries calibrated to
    ``Delta_k``; ``K`` = class structure with bounds intersected with "every slice PSD" (a valid
    convex relaxation, see the module docstring). Projection: accelerated Dykstra (two sets).

    Parameters
    ----------
    data : array (m, n) of 0/1
    k : int, 1 <= k <= n
    epsilon, delta : privacy parameters
    sparsity : int, optional
        ``t``: every row has at most ``t`` ones (checked; public knowledge).
    ledger, rng, tol, max_iter, name

    Returns
    -------
    MarginalsResult
        ``.conjunction(features)`` and ``.marginal(features)`` answer every marginal of order
        ``<= k``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]])
    >>> res = kway_marginals(X, 2, epsilon=1.0, delta=1e-6, rng=0)
    >>> res.tensor.shape, res.marginal([0, 1]).shape
    ((3, 3), (2, 2))
    >>> round(float(res.marginal([0, 1]).sum()), 6)  # a table of fractions
    1.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    # the projection's options, before the charge (docs/privacy.md 11.1): it runs after the draw
    tol = check_positive(tol, name="tol")
    max_iter = check_integer(max_iter, name="max_iter", low=1)
    X = check_binary_rows(data)
    m, n = X.shape
    k = check_integer(k, name="k (the marginals' order; n = number of features)", low=1, high=n)
    if n**k > MAX_TENSOR_ENTRIES:
        raise ValueError(f"n^k = {n}^{k} entries is too large for the dense tensor "
                         f"(limit {MAX_TENSOR_ENTRIES:,}); for one-hot categorical data use "
                         f"onehot_marginals")
    if sparsity is not None:
        t = check_integer(sparsity, name="sparsity", low=1, high=n)
        if X.sum(axis=1).max() > t:
            raise ValueError(f"sparsity={t} is violated: a row has {int(X.sum(axis=1).max())} "
                             f"ones")
    else:
        t = n
    sens = tensor_sensitivity(k, n, t)
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    T = moment_tensor(X, k)
    classbox = TensorClassBox(n, k, 0.0, float(m))
    if k % 2 == 0:
        N = n ** (k // 2)
        G = symmetric_gaussian_noise(N, sensitivity=sens / math.sqrt(2), epsilon=epsilon,
                                     delta=delta, ledger=ledger, name=name, rng=rng,
                                     diagonal_scale=math.sqrt(2),
                                     note=f"k={k} moment tensor, replace-one-row, t={t}")
        Y = G.to_dense().reshape((n,) * k)
        Y += T
        sigma = G.sigma
        cone = FlattenedPSD(n, k, None if sparsity is None else float(m) * t ** (k / 2))
        relax = "flattening PSD" + (" with trace bound" if sparsity is not None else "")
    else:
        Y, sigma = gaussian_mechanism(T, sensitivity=sens, epsilon=epsilon, delta=delta,
                                      ledger=ledger, name=name, rng=rng,
                                      note=f"k={k} moment tensor, replace-one-row, t={t}")
        Y = np.asarray(Y)
        cone = SlicePSD(n, k, None if sparsity is None else float(m) * t ** ((k - 1) / 2))
        relax = "every slice PSD (odd-k relaxation)"
    res = dykstra(Y, [classbox, cone], tol=tol, max_iter=max_iter, accelerate=True)
    # the accelerated solver returns a point of the first set (class structure, bounds) exactly
    return MarginalsResult(res.point, m, k, float(sigma), sens, ledger, res, relax)
