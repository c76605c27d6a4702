"""A release held in factor form: ``W^ = D^{1/2} B K B^T D^{1/2}`` without the n x n array.

What the matrix-free route (:mod:`dpgraph.release.routes.matrix_free`, docs/privacy.md 5)
returns: :class:`FactorPrivateGraph`, a :class:`~dpgraph.release.private_graph.PrivateGraph`
whose weights are an operator (:class:`LowRankOperator`: products in ``O(n r)``), with exports,
engine options and samplers (in memory, or on Dask through
:mod:`dpgraph.synthetic.factor_sampler`) that never form ``W^``. Everything here is
post-processing of the release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from dpgraph.caller import caller_stacklevel
from dpgraph.engine import WeightOperator
from dpgraph.graph import GraphData
from dpgraph.memory import check_memory
from dpgraph.progress import progress
from dpgraph.privacy import make_rng, reproducible_tag, spent_text
from dpgraph.privacy.validation import check_integer, check_number
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.synthetic import factor_sampler
from dpgraph.synthetic.block_model import SyntheticSampleWarning, warn_if_sparse_sample
from dpgraph.synthetic.factor_sampler import SamplePlan, distinct_sorted, sample_task

__all__ = ["FactorPrivateGraph", "LowRankOperator", "DENSE_EXPORT_MAX_N", "LOCAL_SEARCH_MAX_N",
           "SAMPLE_BYTES_PER_DRAW", "sample_bytes", "export_bytes"]

# Peak bytes of the in-memory sampler per draw (the tasks' keys, their sorted distinct copy,
# the endpoints and the CSR array), measured with tracemalloc: 104 B per edge at n = 20,000
# and 10^6 edges; and of the weighted export per kept pair, besides its row blocks (each a
# block_rows x n float array and its temporaries, about five): 650 B per pair at n = 20,000,
# 10^6 pairs, blocks of 1,024 rows (of which 64 B per pair past the blocks).
SAMPLE_BYTES_PER_DRAW = 112
EXPORT_BYTES_PER_PAIR = 64
EXPORT_BLOCK_COPIES = 5


def sample_bytes(draws: float) -> int:
    """Bytes :meth:`FactorPrivateGraph.sample` needs for ``draws`` endpoint-pair draws.

    >>> sample_bytes(1000) == 1000 * SAMPLE_BYTES_PER_DRAW, sample_bytes(-5)  # linear, >= 0
    (True, 0)
    """
    return int(SAMPLE_BYTES_PER_DRAW * max(float(draws), 0.0))


def export_bytes(n: int, pairs: float, block_rows: int = 1024) -> int:
    """Bytes of the factor form's weighted export of ``pairs`` pairs on ``n`` nodes.

    >>> export_bytes(100, 0) == EXPORT_BLOCK_COPIES * 8 * 100 * 100  # 100 rows: one block
    True
    >>> export_bytes(10000, 1e6) - export_bytes(10000, 0) == 1e6 * EXPORT_BYTES_PER_PAIR
    True
    >>> export_bytes(10000, 0, block_rows=512) * 2 == export_bytes(10000, 0)  # half the rows
    True
    """
    return int(EXPORT_BLOCK_COPIES * 8 * min(block_rows, n) * n
               + EXPORT_BYTES_PER_PAIR * max(float(pairs), 0.0))

# Above this many nodes the dense n x n export (PrivateGraph.weights) is refused: 5,000 nodes
# is a 200 MB array; the factor form serves everything else.
DENSE_EXPORT_MAX_N = 5000
# The engine's local search costs O(n r) per move on the factor form (one column of W^ per
# flip); above this many nodes it is switched off by default (FactorPrivateGraph.solver_options).
LOCAL_SEARCH_MAX_N = 5000



#: :meth:`FactorPrivateGraph.sample` warns when repeated and self pairs took more than this
#: share of its draws
REPEATS_WARN = 0.2


def _warn_if_repeats_dropped(kept: int, drawn: int) -> None:
    """A :class:`SyntheticSampleWarning` when the distinct pairs ``kept`` of ``drawn`` draws
    fall short of the draws by more than ``REPEATS_WARN`` of them."""
    if drawn > 0 and kept < (1.0 - REPEATS_WARN) * drawn:
        import warnings

        warnings.warn(f"the sample has {kept:,} edge{'s' * (kept != 1)} of {drawn:,} drawn: "
                      f"{1 - kept / drawn:.0%} were repeated or self pairs, dropped from a simple "
                      f"graph (the released degrees are too concentrated for a graph this small "
                      f"and dense)", SyntheticSampleWarning, stacklevel=caller_stacklevel())


class _FactorMatrix:
    """``W^ = U K U^T`` (diagonal included) as an object that multiplies and indexes like the
    dense matrix it stands for, without holding it: the engine code that reads ``op.W``
    (pairwise swap gains, row sums, the diagonal) works unchanged."""

    def __init__(self, U: np.ndarray, K: np.ndarray):
        self.U, self.K = U, K
        self.shape = (U.shape[0], U.shape[0])

    def __matmul__(self, V):
        return self.U @ (self.K @ (self.U.T @ np.asarray(V, dtype=np.float64)))

    def diagonal(self) -> np.ndarray:
        return np.einsum("ij,jk,ik->i", self.U, self.K, self.U)

    def sum(self, axis=None):
        rows = self.U @ (self.K @ self.U.sum(axis=0))
        if axis is None:
            return float(rows.sum())
        return rows

    def __getitem__(self, key):
        U, K = self.U, self.K
        if isinstance(key, tuple) and len(key) == 2:
            r, c = np.asarray(key[0]), np.asarray(key[1])
            if r.ndim == 0 and c.ndim == 0:
                return float(U[int(r)] @ K @ U[int(c)])
            if r.ndim == 2 and c.ndim == 2:  # np.ix_(rows, cols)
                return (U[r.ravel()] @ K) @ U[c.ravel()].T
        elif isinstance(key, (int, np.integer)):
            return U @ (K @ U[int(key)])
        raise TypeError(f"a factor-form weight matrix supports W[i], W[i, j] and W[np.ix_(P, Q)], "
                        f"not {key!r}")


class LowRankOperator(WeightOperator):
    """The CSP engine's weight operator on a factor form ``W^ = U K U^T`` (``U``: ``n x k``).

    Products ``W_off V`` cost ``O(n k c)`` for ``c`` columns and memory ``O(n (k + c))``; no
    ``n x n`` array is formed (``to_dense`` refuses above 20,000 nodes). ``W_off`` is ``W^``
    with its diagonal removed, as for every :class:`~dpgraph.engine.WeightOperator`.

    Examples
    --------
    >>> import numpy as np
    >>> U = np.array([[1.0], [1.0], [-1.0]])
    >>> op = LowRankOperator(U, np.array([[-1.0]]), labels=("a", "b", "c"))
    >>> op.to_dense()
    array([[ 0., -1.,  1.],
           [-1.,  0.,  1.],
           [ 1.,  1.,  0.]])
    >>> op.matmul(np.ones(3))
    array([0., 0., 2.])
    """

    _DENSE_MAX_N = 20000

    def __init__(self, U: np.ndarray, K: np.ndarray, labels: tuple):
        U = np.ascontiguousarray(U, dtype=np.float64)
        K = np.asarray(K, dtype=np.float64)
        if U.ndim != 2 or K.shape != (U.shape[1], U.shape[1]):
            raise ValueError(f"factor shapes do not match: U {U.shape}, K {K.shape}")
        super().__init__(_FactorMatrix(U, 0.5 * (K + K.T)), labels)
        self.is_dense = True  # indexable like a dense matrix (op.W[np.ix_(P, Q)]), never sparse

    @property
    def nnz(self) -> int:
        return int(self.W.U.size)

    def matmul(self, V: np.ndarray) -> np.ndarray:
        V = np.asarray(V, dtype=np.float64)
        out = self.W @ V
        # out - diag V, into the temporary (the same operations, one n x c array fewer)
        tmp = self.diag * V if V.ndim == 1 else self.diag[:, None] * V
        return np.subtract(out, tmp, out=tmp)

    def factors(self) -> tuple[np.ndarray, np.ndarray]:
        """``(U, K)`` with ``W^ = U K U^T`` (no copies): lets :func:`dpgraph.engine.rounding.rebalance`
        update gains in O(k) per move instead of one O(n k) column."""
        return self.W.U, self.W.K

    def column(self, i: int):
        col = self.W[int(i)]
        col[i] = 0.0
        idx = np.flatnonzero(col)
        return idx, col[idx]

    def entry(self, i: int, j: int) -> float:
        return 0.0 if i == j else self.W[i, j]

    def to_dense(self) -> np.ndarray:
        if self.n > self._DENSE_MAX_N:
            raise ValueError(f"a dense copy of this factor-form operator needs an {self.n} x "
                             f"{self.n} array ({8 * self.n ** 2 / 2**30:.1f} GiB); it serves "
                             f"products (matmul) instead")
        D = (self.W.U @ self.W.K) @ self.W.U.T
        np.fill_diagonal(D, 0.0)
        return D

    def abs_total(self) -> float:
        """Sum of ``|W_off|``: exact up to 4,000 nodes (row blocks), above that the upper bound
        ``||K|| (sum_i ||U_i||)^2`` (only used as a tolerance scale by the engine)."""
        U, K = self.W.U, self.W.K
        if self.n <= 4000:  # 256 rows at a time: 8 MB at n = 4,000, not two n x n copies
            UK, total = U @ K, 0.0
            for i0 in range(0, self.n, 256):
                block = UK[i0:i0 + 256] @ U.T
                rows = np.arange(block.shape[0])
                block[rows, rows + i0] = 0.0
                total += float(np.abs(block).sum())
            return total
        return float(np.linalg.norm(K, 2) * np.sqrt(np.einsum("ij,ij->i", U, U)).sum() ** 2)

    def lambda_max_bound(self, g: np.ndarray, nu: float = 0.0) -> tuple[float, dict]:
        r"""A proven upper bound ``mu >= lambda_max(Diag(g) - W_off - nu J)`` for the engine's
        certificate (:func:`dpgraph.engine.certify_upper_bound`), from ``k x k`` matrices only
        (``O(n k^2)`` per step).

        The matrix is :math:`\mathrm{Diag}(a) - F L F^T` with :math:`a = g +
        \mathrm{diag}(W^\wedge)` (exactly), :math:`F = [U, \mathbf 1]`, :math:`L =
        \mathrm{blockdiag}(K, \nu)` (``F = U``, ``L = K`` when nu = 0), K the stored symmetric
        core. First F is replaced by the Q of its QR factorisation and L by :math:`L' =
        fl(R L R^T)` with a proven :math:`e \ge \|F L F^T - Q L' Q^T\|_2`
        (:func:`_orthonormal_core`; Weyl: e is added to the bound): where F's columns are
        nearly parallel, or :math:`F L F^T` is a small difference of large terms, the
        cancellation then happens in a k x k product, not in n-term sums. Search: for
        ``mu > max a`` the PSD-ness of ``mu I - Diag(a) + F L F^T`` is monotone in mu and
        equivalent to :math:`\lambda_{\min}(H^{1/2} L H^{1/2}) \ge -1`, :math:`H = F^T
        \mathrm{Diag}(\mu - a)^{-1} F`; Brent's method between ``max a`` and Weyl's bound
        ``max a + lambda_max(-G^1/2 L G^1/2)^+`` (``G = F^T F``) finds an estimate (not a
        proof).

        Proof (:func:`_low_rank_psd_proven`), for a candidate mu, in exact arithmetic (F, L
        now Q, L'):

        * :math:`a \le a^\uparrow` (floats) with the rounding of ``diag(W^)`` and of ``g +
          diag`` allowed for (:func:`_diagonal_upper`); floats :math:`w_i \ge
          1/(\mu - a^\uparrow_i)` (:math:`\mu > a^\uparrow_i` checked), so :math:`D =
          \mathrm{Diag}(1/w) \preceq \mathrm{Diag}(\mu - a)` and it suffices that
          :math:`P = D + F L F^T \succeq 0`.
        * With :math:`H = F^T D^{-1} F = F^T\mathrm{Diag}(w)F` (exact: w and F are floats) and
          :math:`y = F^T x`: :math:`\min\{x^T D x : F^T x = y\} = y^T H^+ y`, so
          :math:`x^T P x \ge y^T (H^+ + L) y` with y in the range of H. For any
          :math:`H' \succeq H`, :math:`H' \succ 0`, :math:`H'^{-1} \preceq H^+` there, so P is
          PSD if :math:`H'^{-1} + L \succeq 0`, i.e. (congruence) if :math:`I + C^T L C
          \succeq 0` for :math:`H' = C C^T`.
        * C is the float Cholesky factor of :math:`\hat H + \epsilon I`, :math:`\hat H` the
          float H (blocks of about :math:`\sqrt n` rows: within :math:`\gamma_{B + n/B + 1}
          |F|^T\mathrm{Diag}(w)|F|`; Higham, Sec. 3.1 and 4.2). :math:`C C^T - H = \epsilon I
          + \Delta` with :math:`|\Delta|` entrywise within that, :math:`u|\hat H_{ii} +
          \epsilon|` and Cholesky's backward error :math:`\gamma_{k+1}|C||C|^T` (Thm 10.3);
          :math:`\|\Delta\|_2` is at most the largest row sum of that symmetric bound, and
          :math:`\epsilon` is taken above it: :math:`C C^T \succeq H` exactly (also where H
          is singular).
        * :math:`Q = fl(I + fl(C^T L) C)` is within :math:`E = \gamma_k(|C|^T|L||C| +
          |fl(C^T L)||C|) + u|Q|` (plus underflow in units of :math:`\eta = 2^{-1074}`) of
          :math:`I + C^T L C`; the difference from :math:`\tilde Q` (Q's lower triangle
          reflected, what a Cholesky reads) is symmetric with 2-norm at most the largest row
          sum r of :math:`\max(E, E^T)`, and a Cholesky of :math:`\tilde Q - tI` with Rump's
          margin (:func:`dpgraph.engine.sdp.rump_certified_diagonal`, the factorised diagonal
          read back) proves :math:`\lambda_{\min}(\tilde Q) > 2r` (:func:`_min_eigenvalue_above`).

        The estimate is raised 8x at a time from about its resolution until a candidate is
        proven, then bisected three times; if none is below it, the bound is ``max a`` plus
        Gershgorin's bound on ``-L`` times :math:`\|F\|_F^2` for the original F, L
        (rigorous, loose; ``info['structured_proof']`` says which). Since the engine takes
        this operator's total weight ``T`` as reported (a float:
        :func:`dpgraph.engine.sdp.weight_sums`), the returned mu also carries :math:`\tau/n`
        with :math:`\tau \ge |T_{\mathrm{float}} - T|` (:func:`_total_allowance`), so that the
        engine's ``(T - sum g + nu b + n mu) / 4`` bounds the exact value of its formula.
        Against the former bisection plus a margin of 1e-9 of the scale: tighter up to
        thousands of nodes, about ``tau / n`` above it at a million (1.5e-4 on 1.4e4).
        """
        U, K = self.W.U, self.W.K
        n = self.n
        g = np.asarray(g, dtype=np.float64)
        a = g + self.diag
        a_up = _diagonal_upper(U, K, a)
        F, L = U, K
        if nu != 0.0:
            F = np.column_stack([U, np.ones(n)])
            L = np.zeros((K.shape[0] + 1,) * 2)
            L[:-1, :-1], L[-1, -1] = K, nu
        a_max = float(np.max(a_up))
        loose = _low_rank_gershgorin(F, L, a_up)  # rigorous, loose
        # F L F^T = Q L' Q^T + E with Q from F's QR factorisation (orthonormal columns to
        # working precision: H below is well conditioned even where F's columns are nearly
        # parallel) and ||E||_2 <= e_qr proven (_orthonormal_core)
        F, L, e_qr = _orthonormal_core(F, L)

        def sym_sqrt(H):
            w, V = np.linalg.eigh(0.5 * (H + H.T))
            return (V * np.sqrt(np.maximum(w, 0.0))) @ V.T

        def lam_min(mu):
            H = F.T @ (F / (mu - a_up)[:, None])
            if not np.all(np.isfinite(H)):
                return -np.inf
            R = sym_sqrt(H)
            return float(np.linalg.eigvalsh(R @ L @ R)[0])

        Gs = sym_sqrt(F.T @ F)
        push = max(0.0, float(np.linalg.eigvalsh(-(Gs @ L @ Gs))[-1]))
        scale = max(1.0, abs(a_max), push)
        lo, hi = a_max, a_max + push + 1e-9 * scale
        if lam_min(hi) < -1.0:  # cannot happen (Weyl) but for rounding: the proof decides
            hi = a_max + 2.0 * push + 1e-6 * scale
        # the estimate's resolution: about what the proof can resolve (H's rounding);
        # lam_min is increasing in mu: Brent's method on lam_min + 1 (an estimate only)
        tol = max(2.0 ** -42, 4.0 * n * _U) * scale
        lo = a_max + tol
        if lam_min(lo) < -1.0 and hi > lo:
            from scipy.optimize import brentq

            def f(mu):
                v = lam_min(mu) + 1.0
                return v if np.isfinite(v) else -1.0

            try:
                hi = brentq(f, lo, hi, xtol=tol, maxiter=200) + tol
            except (ValueError, RuntimeError):  # no sign change (rounding): keep Weyl's
                pass
        else:
            hi = min(hi, lo)
        info = {"weyl_bound": a_max + push, "structured_proof": "k x k cholesky"}
        # the proof needs a gap above the estimate of about the rounding of H (relative to
        # mu - a; far more where F L F^T is a small difference of large terms): raise it 8x
        # at a time from tol / 8 up to the rigorous fallback, then bisect three times between
        # the last failure and the first proof
        mu, fail = None, hi
        gap = tol / 8.0
        while hi + gap + e_qr < loose:
            cand = hi + gap
            gap *= 8.0
            if _low_rank_psd_proven(F, L, a_up, cand):
                mu = cand
                break
            fail = cand
        for _ in range(3 if mu is not None else 0):
            mid = 0.5 * (fail + mu)
            if _low_rank_psd_proven(F, L, a_up, mid):
                mu = mid
            else:
                fail = mid
        if mu is None or not np.isfinite(e_qr):
            mu = loose
            info["structured_proof"] = "gershgorin (no k x k proof)"
        else:  # Weyl: lambda_max(Diag(a) - F L F^T) <= lambda_max(Diag(a) - Q L' Q^T) + e_qr
            mu = math.nextafter(mu + e_qr, math.inf)
        tau = _total_allowance(self)
        if tau:
            mu = math.nextafter(mu + math.nextafter(tau / n, math.inf), math.inf)
        return mu, info

    def __repr__(self) -> str:
        return f"LowRankOperator(n={self.n}, rank={self.W.U.shape[1]})"


# ----------------------------------------------------------------------------- the structured
# certificate's proof (LowRankOperator.lambda_max_bound): every float operation bounded
_U = np.finfo(np.float64).eps / 2  # unit roundoff 2^-53
_ETA = 2.0 ** -1074  # the smallest subnormal


def _gamma(m) -> float:
    r"""Higham's :math:`\gamma_m = m u / (1 - m u)`."""
    return m * _U / (1.0 - m * _U)


def _diagonal_upper(U: np.ndarray, K: np.ndarray, a: np.ndarray) -> np.ndarray:
    r"""Floats :math:`a^\uparrow \ge g + \mathrm{diag}(U K U^T)` exactly, for ``a = fl(g + d)``
    with ``d`` the float ``einsum`` of the diagonal (the operator's ``diag``): each
    :math:`d_i` is a sum of :math:`k^2` products of three floats (or two k-term dot products),
    within :math:`\gamma_{k^2+1}(|U||K||U|^T)_{ii}` plus :math:`k^2\eta`; the addition of g
    within :math:`u|a_i|`. The float absolute sums are at most :math:`1/(1-\gamma)` below
    exact; the factor 2 covers that and this bound's own rounding, one ulp up the sum."""
    k = U.shape[1]
    aU = np.abs(U)
    dabs = ((aU @ np.abs(K)) * aU).sum(axis=1)  # a float below |U||K||U|^T's by < gamma_{2k}
    e = 2.0 * (_U * np.abs(a) + _gamma(k * k + 1) * dabs + k * k * _ETA)
    return np.nextafter(a + e, np.inf)


def _total_allowance(op) -> float:
    r"""A bound :math:`\tau \ge |T_{\mathrm{float}} - T|` on the rounding of the factor form's
    total weight ``op.total`` against :math:`T = \mathbf 1^T U K U^T \mathbf 1 -
    \sum_i u_i^T K u_i` (exactly), as :class:`~dpgraph.engine.WeightOperator` forms it:
    ``s = U^T 1`` (:math:`\gamma_{n-1}\sigma`, :math:`\sigma = |U|^T\mathbf 1`), ``t = K s``
    and ``r = U t`` (:math:`\gamma_k` of their absolute products; summed over rows,
    :math:`\gamma_k\sigma^T|t| + \gamma_k\sigma^T|K||s| + \gamma_{n-1}\sigma^T|K|\sigma`), the
    diagonal (:math:`\gamma_{k^2+1}\sum_i (|U||K||U|^T)_{ii}`), ``r - d`` (:math:`u` of each)
    and the total (:math:`\gamma_{n-1}` of the absolute degrees); underflow
    :math:`(k^2 + 2k + 3)n\eta`. Doubled for the float evaluation of these sums. O(n k)."""
    U, K = op.W.U, op.W.K
    n, k = U.shape
    aU, aK = np.abs(U), np.abs(K)
    s = U.sum(axis=0)
    t = K @ s
    sigma = aU.sum(axis=0) * (1.0 + 2.0 * _gamma(n))  # >= |U|^T 1 exactly
    deg = np.abs(op.degrees)
    dabs = float(((aU @ aK) * aU).sum())
    terms = [_gamma(k) * float(sigma @ np.abs(t)), _gamma(k) * float(sigma @ (aK @ np.abs(s))),
             _gamma(n) * float(sigma @ (aK @ sigma)), _gamma(k * k + 1) * dabs,
             (_U + _gamma(n)) * float(deg.sum()), (k * k + 2 * k + 3) * n * _ETA]
    tau = 2.0 * sum(terms)
    return math.nextafter(tau, math.inf) if np.isfinite(tau) else math.inf


def _orthonormal_core(F: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    r"""``(Q, L', e)``: Q (n x k) from a Householder QR factorisation ``F = Q R`` (floats, Q's
    columns orthonormal to working precision), ``L'`` the exactly symmetric float
    ``fl((X + X^T) / 2)``, ``X = fl(fl(R L) R^T)``, and a float
    :math:`e \ge \|F L F^T - Q L' Q^T\|_2`, proven. O(n k^2).

    With :math:`\Delta_F = F - QR` (exactly; entrywise within :math:`D = (1+u)|fl(F - fl(QR))|
    + \gamma_k|Q||R| + k\eta`) and :math:`\Delta_L = R L R^T - L'` (within
    :math:`\gamma_k(|R||L||R|^T + |fl(RL)||R|^T) + u|L'|`),
    :math:`F L F^T - Q L' Q^T = Q\Delta_L Q^T + QRL\Delta_F^T + \Delta_F L R^TQ^T +
    \Delta_F L \Delta_F^T`, so :math:`e = q^2\delta_L + 2(f + d)\,l\,d + l d^2` with
    Frobenius norms (upper bounds of 2-norms) :math:`q \ge \|Q\|`, :math:`f \ge \|F\|`,
    :math:`d \ge \|D\|`, :math:`l \ge \|L\|`, :math:`\delta_L \ge \|\Delta_L\|`
    (:math:`\|QR\| \le \|F\| + \|\Delta_F\|`), each a float sum of squares inflated by
    :math:`1 + 2\gamma_{m+2}` for its m terms, the whole doubled. Where F L F^T is a small
    difference of large terms (nearly parallel columns, indefinite L) the cancellation moves
    into :math:`L'`, a k x k product, instead of the n-term sums of H."""
    n, k = F.shape
    Q, R = np.linalg.qr(F)
    L = np.asarray(L, dtype=np.float64)
    aR, aL = np.abs(R), np.abs(L)
    X = (R @ L) @ R.T
    Lp = 0.5 * (X + X.T)
    EL = (_gamma(k) * (aR @ aL @ aR.T + np.abs(R @ L) @ aR.T) + 2.0 * _U * np.abs(Lp)
          + 2 * k * _ETA)

    def fro(A):  # >= the Frobenius norm of A's float entries: squares and sum within gamma
        m = A.size
        sq = float(np.sum(A * A)) * (1.0 + 2.0 * _gamma(m + 2)) + m * _ETA
        return math.sqrt(sq) * (1.0 + 4 * _U)

    q, f, l, dl = fro(Q), fro(F), fro(L), fro(EL)
    # ||D|| <= (1 + u) ||fl(F - fl(QR))|| + gamma_k ||Q|| ||R|| + k eta sqrt(n k)
    d = ((1.0 + _U) * fro(F - Q @ R) + _gamma(k) * q * fro(R) + k * _ETA * math.sqrt(n * k)) \
        * (1.0 + 4 * _U)
    e = 2.0 * (q * q * dl + 2.0 * (f + d) * l * d + l * d * d)
    return Q, Lp, (math.nextafter(e, math.inf) if np.isfinite(e) else math.inf)


def _min_eigenvalue_above(Q: np.ndarray, r: float) -> bool:
    r"""Whether :math:`\lambda_{\min}(\tilde Q) > r` is proven, :math:`\tilde Q` the symmetric
    matrix of ``Q``'s lower triangle and diagonal ``d``: a Cholesky of :math:`\tilde Q` with
    the diagonal ``fl(d - t)`` (``t`` above ``r`` by several Rump margins c) succeeds, so
    (Rump; :func:`~dpgraph.engine.sdp.rump_certified_diagonal`, the factorised diagonal read
    back) :math:`A = \tilde Q - \mathrm{Diag}(d - b) \succ 0` for floats b, and
    :math:`\lambda_{\min}(\tilde Q) > \min_i (d_i - b_i) \ge r`, checked one ulp down."""
    from dpgraph.engine.sdp import rump_certified_diagonal, rump_margin

    k = Q.shape[0]
    d = np.array(np.diagonal(Q), dtype=np.float64)
    if not (np.all(np.isfinite(Q)) and np.isfinite(r)) or np.any(d <= 0.0):
        return False
    c = rump_margin(k, 2.0 * float(d.sum()))
    t = r + 4.0 * c + 8.0 * _U * float(d.max())
    A = np.array(Q, dtype=np.float64)
    A[np.diag_indices(k)] = d - t
    factored = np.array(np.diagonal(A))
    try:
        Lc = sla.cholesky(A, lower=True, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        return False
    if not np.all(np.isfinite(np.diagonal(Lc))):
        return False
    b = rump_certified_diagonal(factored, c)
    if b is None:
        return False
    return bool(np.all(np.nextafter(d - b, -np.inf) >= r))


def _low_rank_psd_proven(F: np.ndarray, L: np.ndarray, a_up: np.ndarray, mu: float) -> bool:
    r"""Whether :math:`\mu I - \mathrm{Diag}(a^\uparrow) + F L F^T \succeq 0` is proven
    (:meth:`LowRankOperator.lambda_max_bound` gives the argument)."""
    n, k = F.shape
    delta = np.nextafter(mu - a_up, -np.inf)  # <= mu - a_up exactly
    if not (np.isfinite(mu) and np.all(delta > 0.0)):
        return False
    w = np.nextafter(1.0 / delta, np.inf)  # >= 1 / delta: 1 / w <= mu - a_up
    if not np.all(np.isfinite(w)):
        return False
    Fw = F * w[:, None]
    # H = F^T Diag(w) F by blocks of B rows accumulated in order: each product passes through
    # two multiplications, at most B - 1 additions in its block (any order inside BLAS) and
    # nb more, so |H_float - H| <= gamma_{B+nb+1} |F|^T Diag(w) |F| (Higham, Sec. 3.1 and 4.2)
    B = max(256, int(math.isqrt(n - 1)) + 1)
    H = np.zeros((k, k))
    nb = 0
    for i in range(0, n, B):
        H += F[i:i + B].T @ Fw[i:i + B]
        nb += 1
    aF = np.abs(F)
    # the absolute product as a float (any order) is at most 1/(1 - gamma_{n+1}) below its
    # exact value: the factor 2 covers it and the rounding of this bound
    EH = 2.0 * _gamma(B + nb + 1) * (aF.T @ np.abs(Fw)) + n * _ETA  # |H_float - H|
    EH = np.maximum(EH, EH.T)  # the Cholesky reads one triangle of H_float
    if not (np.all(np.isfinite(H)) and np.all(np.isfinite(EH))):
        return False
    eye = np.eye(k, dtype=bool)
    eps = (2.0 * float(EH.sum(axis=1).max())
           + 4.0 * (k + 2) * _U * float(np.abs(np.diagonal(H)).max()))
    eps = max(eps, 2.0 ** -1000)
    for _ in range(6):
        He = H + eps * np.eye(k)
        try:
            C = np.tril(sla.cholesky(He, lower=True, check_finite=False))
        except np.linalg.LinAlgError:
            eps *= 16.0
            continue
        aC = np.abs(C)
        if not np.all(np.isfinite(aC)):
            return False
        # C C^T - H = eps I + Delta, Delta = (C C^T - He) + (He - H - eps I) + (H_float - H)
        # symmetric, |Delta| <= R within gamma_{k+1} |C||C|^T (Higham, Thm 10.3), u |He_ii|
        # and EH: ||Delta||_2 <= rho(R) <= max row sum of R (R symmetric, non-negative)
        R = _gamma(k + 1) * (aC @ aC.T) + np.where(eye, _U * np.abs(He), 0.0) + EH + k * _ETA
        need = 2.0 * float(R.sum(axis=1).max())  # 2: this sum's rounding
        if eps >= need:
            break
        eps = 2.0 * need
    else:
        return False
    # C C^T >= H exactly, so (C C^T)^-1 <= H^+ on H's range; I + C^T L C >= 0 proves
    # (C C^T)^-1 + L >= 0 (congruence by C^-T) and with it the claim
    L = np.asarray(L, dtype=np.float64)
    X = C.T @ L
    Q = np.eye(k) + X @ C
    gk = _gamma(k)
    E = (gk * (aC.T @ np.abs(L) @ aC + np.abs(X) @ aC) + _U * np.abs(Q)
         + (k + 1) * _ETA * (1.0 + float(aC.sum())))
    # Q_exact - Q~ (Q~: Q's lower triangle reflected, what the Cholesky reads) is symmetric
    # with entries within max(E, E^T): its 2-norm is at most that matrix's largest row sum
    total = 2.0 * float(np.maximum(E, E.T).sum(axis=1).max())  # 2: this sum's rounding
    if not np.isfinite(total):
        return False
    return _min_eigenvalue_above(Q, math.nextafter(total, math.inf))


def _low_rank_gershgorin(F: np.ndarray, L: np.ndarray, a_up: np.ndarray) -> float:
    r"""A rigorous, loose :math:`\mu \ge \max a^\uparrow + \lambda_{\max}(-L)^+\|F\|_F^2 \ge
    \lambda_{\max}(\mathrm{Diag}(a^\uparrow) - F L F^T)`: Gershgorin on ``-L``
    (:func:`~dpgraph.engine.sdp.gershgorin_max`), :math:`\|F\|_F^2` within
    :math:`\gamma_{nk+1}` and :math:`nk\eta`, each step rounded up."""
    from dpgraph.engine.sdp import gershgorin_max

    L = np.asarray(L, dtype=np.float64)
    k = L.shape[0]
    ad = np.abs(np.diagonal(L))
    rows = np.abs(L).sum(axis=1)
    neg = max(gershgorin_max(-np.diagonal(L) + rows - ad, rows + 2 * ad, k), 0.0)
    fro = float(np.sum(F * F))
    fro = math.nextafter(fro * (1.0 + 2.0 * _gamma(F.size + 1)) + F.size * _ETA, math.inf)
    prod = math.nextafter(neg * fro, math.inf)
    return math.nextafter(float(np.max(a_up)) + prod, math.inf)


@dataclass(eq=False)
class FactorPrivateGraph(PrivateGraph):
    """A :class:`~dpgraph.release.privatize.PrivateGraph` held in factor form (matrix-free route).

    ``basis`` (``n x (r + 1)``, orthonormal, first direction close to the public ``u0``) and
    ``core`` (``(r + 1) x (r + 1)``) give the private estimate ``M^ = basis core basis^T`` of
    ``D~^-1/2 A D~^-1/2``; the synthetic weights are ``W^ = D~^1/2 M^ D~^1/2`` (signed, low
    rank), served by :meth:`operator`. ``projected`` is None: nothing ``n x n`` is held.
    :meth:`weights` (the dense export, clipped to ``[0, 1]``) is refused above 5,000 nodes;
    :meth:`sample` draws an unweighted graph in ``O(m + n r)``.

    The exports are post-processed into the range of the input: weights into ``[0, 1]`` (the
    range :func:`dpgraph.privatize` accepts; an unclipped ``W^_ij`` of a small or dense graph
    can be several times 1) and :attr:`edge_count` into ``[0, n (n - 1) / 2]``, as on the dense
    routes. The solvers' objective (:meth:`operator`) stays the unclipped low-rank ``W^``.

    >>> import networkx as nx, dpgraph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, route="matrix-free", rng=0)
    >>> type(pg).__name__, pg.basis.shape[0], pg.projected is None  # factors, nothing n x n
    ('FactorPrivateGraph', 34, True)
    >>> W = pg.weights()  # the dense export of a small graph, clipped to [0, 1]
    >>> bool(W.min() >= 0 and W.max() <= 1), 0 <= pg.edge_count <= 34 * 33 / 2
    (True, True)
    """

    def operator(self) -> LowRankOperator:
        """:class:`LowRankOperator` of the synthetic weights ``W^ = U K U^T``, ``U = D~^1/2 B``."""
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        return LowRankOperator(U, self.core, self.labels)

    def weights(self) -> np.ndarray:
        """Dense synthetic weights ``min(max(W^, 0), 1)`` with a zero diagonal (up to 5,000
        nodes): ``W^`` clipped to ``[0, 1]``, the range of an input weight (post-processing)."""
        if self.n > DENSE_EXPORT_MAX_N:
            raise ValueError(
                f"the matrix-free release holds n x {self.basis.shape[1]} factors; a dense "
                f"export of {self.n} nodes would need {8 * self.n ** 2 / 2**30:.1f} GiB. Use "
                f".operator() for products, .sample() for a synthetic graph, or the dense "
                f"routes below {DENSE_EXPORT_MAX_N} nodes")
        W = self.operator().to_dense()
        W += W.T  # (U K) U^T is symmetric up to rounding; the export must be exactly
        W *= 0.5
        np.clip(W, 0.0, 1.0, out=W)
        return W

    @property
    def edge_count(self) -> float:
        """The released edge count: the block model's (when :func:`dpgraph.privatize` released
        one), else half the released degree total, ``max(sum d^, 0) / 2`` (what :meth:`sample`
        aims at), clipped to ``[0, n (n - 1) / 2]``: no simple graph on ``n`` nodes has more
        edges, whatever the noise drew. ``O(n)`` at every size (post-processing of the release).

        >>> import networkx as nx, warnings, dpgraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     pg = dpgraph.privatize(nx.complete_graph(3), epsilon=1.0, delta=1e-6, rng=0,
        ...                            weight=None, route="matrix-free")
        >>> 0.0 <= pg.edge_count <= 3.0
        True
        """
        if self.block_model is not None:
            count = float(self.block_model.edge_count)
        else:
            count = float(np.sum(self.degrees)) / 2.0
        return min(max(count, 0.0), self.n * (self.n - 1) / 2.0)

    def to_graph_data(self, *, min_weight: float = 0.0, max_edges: int | None = None,
                      block_rows: int = 1024) -> GraphData:
        """The synthetic weighted graph ``min(max(W^, 0), 1)`` (``W^`` clipped to ``[0, 1]``,
        the range of an input weight) as :class:`GraphData`.

        Up to 5,000 nodes: the dense export (:meth:`PrivateGraph.to_graph_data`). Above, the
        ``max_edges`` heaviest pairs of ``W^ = U K U^T`` (exactly ``max_edges`` of them: a tie at
        the threshold is broken arbitrarily), found ``block_rows`` rows at a time: ``O(n^2 r)`` time, ``O(block_rows n +
        max_edges)`` memory, no ``n x n`` array. ``max_edges`` is required there (a threshold
        alone could keep ``n^2`` pairs): ``max_edges=round(pg.edge_count)`` keeps the released
        edge count's worth; the pairs are ranked by the unclipped ``W^`` and their weights then
        clipped at 1. Post-processing."""
        min_weight = check_number(min_weight, name="min_weight", low=0.0)
        if self.n <= DENSE_EXPORT_MAX_N:
            return super().to_graph_data(min_weight=min_weight, max_edges=max_edges)
        if max_edges is None:
            raise ValueError(f"a weighted export of the {self.n}-node factor form needs "
                             f"max_edges (a threshold alone may keep up to n^2 / 2 pairs): e.g. "
                             f"max_edges=round(pg.edge_count), or .sample() for an unweighted "
                             f"graph")
        import scipy.sparse as sp

        k = min(check_integer(max_edges, name="max_edges", low=0),
                self.n * (self.n - 1) // 2)  # no graph holds more pairs
        bs = max(int(block_rows), 1)
        check_memory(export_bytes(self.n, k, bs),
                     what=f"the weighted export of {k:,} pairs of the {self.n:,}-node factor form",
                     fit=(lambda x: export_bytes(self.n, x, bs),
                          "At most max_edges={:,} fits; .sample() draws an unweighted graph "
                          "in less."))
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        UK = U @ (0.5 * (self.core + self.core.T))
        n = self.n
        keys = np.zeros(0, dtype=np.int64)
        vals = np.zeros(0)
        floor = min_weight  # checked >= 0 above
        # O(n^2 r) in all: minutes from about 10^5 nodes, so the blocks report their progress
        for lo in progress(range(0, n - 1, bs), desc="weighted export", unit="block"):
            hi = min(lo + bs, n - 1)
            block = UK[lo:hi] @ U[lo:].T  # rows lo..hi-1, columns lo..n-1
            block[np.tril_indices(hi - lo, 0, block.shape[1])] = -np.inf  # keep pairs i < j
            flat = block.ravel()
            cand = np.flatnonzero(flat > floor)
            if cand.size > k:  # this block's k heaviest
                cand = cand[np.argpartition(flat[cand], cand.size - k)[cand.size - k:]]
            w = flat[cand]
            r, c = np.divmod(cand, block.shape[1])
            del block, flat
            keys = np.concatenate([keys, (r + lo).astype(np.int64) * n + (c + lo)])
            vals = np.concatenate([vals, w])
            if vals.size > k:  # the k heaviest so far
                top = np.argpartition(vals, vals.size - k)[vals.size - k:]
                keys, vals = keys[top], vals[top]
        keys, vals = _heaviest(keys, vals, k)
        vals = np.minimum(vals, 1.0)  # an input weight lies in [0, 1]; so does the export's
        i, j = keys // n, keys % n
        W = sp.csr_array((np.concatenate([vals, vals]), (np.concatenate([i, j]),
                                                         np.concatenate([j, i]))), shape=(n, n))
        from dpgraph.graph import from_matrix

        return from_matrix(W, self.labels, source="synthetic graph")

    def objective_names(self, rank: int | None = None) -> tuple:
        """``("low-rank",)``: the signed low-rank synthetic weights ``W^`` (:meth:`operator`)."""
        return ("low-rank",)

    def objective(self, name: str = "low-rank"):
        """``"low-rank"``: :meth:`operator`; ``"synthetic"``: :meth:`weights` (small n only)."""
        if name == "low-rank":
            return self.operator()
        if name == "synthetic":
            return self.weights()
        raise ValueError(f"unknown objective {name!r}; this release offers ('low-rank',)")

    def synthetic_operator(self, name: str):
        """The objective ``name`` itself (its low-rank operator: no n x n array)."""
        return self.objective(name)

    def solver_options(self) -> dict:
        """Engine options for the factor form: a Burer-Monteiro rank of
        ``max(8, 2 (r + 1) + 2)`` at most (the objective has rank ``r + 1``), and no local search
        above 5,000 nodes (each move costs ``O(n r)`` there)."""
        from dpgraph.engine import sdp_rank

        k = self.basis.shape[1]
        return {"rank": min(sdp_rank(self.n), max(8, 2 * k + 2)),
                "local_search": self.n <= LOCAL_SEARCH_MAX_N}

    def blocks(self, n_blocks: int | None = None, rng=None) -> np.ndarray:
        """Block labels from the private embedding: k-means (k-means++ start) on the rows of
        ``D~^-1/2 B`` without its first (public) column; ``n_blocks`` defaults to
        ``min(2 r, 32)``. Post-processing."""
        from dpgraph.synthetic.communities import kmeans

        r = self.basis.shape[1] - 1
        k = min(2 * r, 32) if n_blocks is None else int(n_blocks)
        if k < 1:
            raise ValueError(f"n_blocks must be >= 1, got {n_blocks!r}")
        if k == 1:
            return np.zeros(self.n, dtype=np.int64)
        emb = self.basis[:, 1:] / np.sqrt(self.normalizer)[:, None]
        emb = emb / max(float(np.sqrt(np.mean(np.sum(emb ** 2, axis=1)))), 1e-300)
        _, lab = kmeans(emb, k, make_rng(rng))  # exact when fewer than k distinct rows
        return np.asarray(lab, dtype=np.int64)

    def block_masses(self, blocks: np.ndarray) -> np.ndarray:
        """Expected edge counts between blocks under ``W^``: ``E_ab = 1_a^T W^_off 1_b`` for
        ``a != b`` and ``1_a^T W^_off 1_a / 2`` inside a block, clipped at 0 (``O(n r)``)."""
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        k = int(blocks.max()) + 1
        T = np.zeros((k, U.shape[1]))
        np.add.at(T, blocks, U)
        E = T @ self.core @ T.T
        diag = np.einsum("ij,jk,ik->i", U, self.core, U)
        E[np.diag_indices(k)] -= np.bincount(blocks, weights=diag, minlength=k)
        E = 0.5 * (E + E.T)
        E[np.diag_indices(k)] *= 0.5
        return np.maximum(E, 0.0)

    def sample_plan(self, rng=None, *, n_blocks: int | None = None,
                    chunk: int | None = None) -> "SamplePlan":
        """What :meth:`sample` draws from (post-processing, ``O(n r + k^2)``): the blocks
        (:meth:`blocks`), the endpoint weights ``max(d^_i, 0)``, the ``Poisson(c E_ab)`` edge
        count of each block pair (:meth:`block_masses`; ``c`` scales the total to the released
        edge count ``max(sum d^, 0) / 2``), split into tasks of at most ``chunk`` draws
        (default :data:`~dpgraph.synthetic.factor_sampler.SAMPLE_CHUNK`), and the key of the tasks' random streams (one
        independent stream per task, :func:`dpgraph.privacy.rng.block_generator`). Every
        draw from ``rng`` happens here, so the in-memory sampler and the Dask one
        (:meth:`sample_dask`) draw the same graph from the same plan. ``rng=None`` here is fresh
        secure randomness; :meth:`sample`, :meth:`sample_dask` and :meth:`write_sample` pass a
        reproducible release's own stream instead (:meth:`PrivateGraph.sample`)."""
        from dpgraph.privacy.rng import block_key

        gen = make_rng(rng)
        chunk = factor_sampler.SAMPLE_CHUNK if chunk is None else int(chunk)
        if chunk < 1:
            raise ValueError(f"chunk must be a positive number of draws, got {chunk!r}")
        blocks = self.blocks(n_blocks, gen)
        E = self.block_masses(blocks)
        # no simple graph has more than n (n - 1) / 2 edges, whatever the noise drew
        target = min(max(float(np.sum(self.degrees)) / 2.0, 0.0), self.n * (self.n - 1) / 2.0)
        theta = np.maximum(self.degrees, 0.0)
        k = E.shape[0]
        # nodes grouped by block, with cumulative degree weights for inverse-CDF draws
        order = np.argsort(blocks, kind="stable")
        starts = np.searchsorted(blocks[order], np.arange(k + 1))
        mass = np.array([theta[order[starts[a]:starts[a + 1]]].sum() for a in range(k)])
        E[mass <= 0, :] = 0.0
        E[:, mass <= 0] = 0.0
        iu = np.triu_indices(k)
        pair_mass = E[iu]
        total = float(pair_mass.sum())
        tasks = []
        if total > 0 and target > 0:
            counts = gen.poisson(pair_mass * (target / total))
            for a, b, c in zip(iu[0], iu[1], counts):
                parts = -(-int(c) // chunk)
                for q in range(parts):  # near-equal parts; together exactly c draws
                    tasks.append((int(a), int(b), int(c) // parts + (q < int(c) % parts)))
        cipher, key = block_key(gen)
        return SamplePlan(n=self.n, order=order, starts=starts, theta=theta, mass=mass,
                          tasks=tuple(tasks), cipher=cipher, key=key)

    def sample(self, rng=None, *, n_blocks: int | None = None) -> GraphData:
        """An unweighted simple graph from a degree-corrected block model fitted to the release.

        Blocks: :meth:`blocks`. Block pair ``(a, b)`` gets ``Poisson(c E_ab)`` edges
        (:meth:`block_masses`; ``c`` scales the total to the released edge count
        ``max(sum d^, 0) / 2``), each endpoint drawn inside its block with probability
        proportional to ``max(d^_i, 0)`` (Chung-Lu inside and between blocks). Self-pairs and
        repeated pairs are dropped (the edge count comes out slightly below the released one on
        graphs with very high-degree nodes). ``O(m + n r)`` expected time and memory, on this
        machine; :meth:`sample_dask` draws the same graph as Dask tasks (the client then holds
        ``O(n r)``). Post-processing, no privacy cost. ``rng`` as in
        :meth:`PrivateGraph.sample`: ``None`` on a reproducible release draws from (and
        advances) its own seeded stream, shared with :meth:`sample_dask` and
        :meth:`write_sample`; on a secure release, fresh secure randomness. A
        :class:`~dpgraph.SyntheticSampleWarning` says when the
        sample has fewer than ``n / 2`` edges (empty included), and when dropping repeated pairs
        left fewer than ``1 - REPEATS_WARN`` of the draws (small dense graphs: the complete
        graph on 30 nodes keeps about half).

        Examples
        --------
        >>> from dpgraph.datasets import planted_cut
        >>> from dpgraph.privacy import PrivacyLedger
        >>> from dpgraph.release.routes.matrix_free import release_matrix_free
        >>> inst = planted_cut(2000, 40.0, rng=0)
        >>> pg = release_matrix_free(inst.graph, epsilon=4.0, delta=1e-6, rank=1,
        ...                          ledger=PrivacyLedger(4.0, 1e-6), rng=0)
        >>> G = pg.sample(rng=1)
        >>> G.n, abs(G.m / inst.graph.m - 1) < 0.1
        (2000, True)
        """
        if self.block_model is not None and n_blocks is None:  # released by privatize (docs 7)
            return super().sample(rng)
        import scipy.sparse as sp

        plan = self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks)
        n = self.n
        draws = sum(t[2] for t in plan.tasks)
        check_memory(sample_bytes(draws),
                     what=f"a sample of {draws:,} edge draws on {n:,} nodes",
                     alternative="sample_dask() or write_sample() draw the same graph as Dask "
                                 "tasks, which no single process holds.")
        keys = [sample_task(plan, t) for t in range(len(plan.tasks))]
        key = distinct_sorted(np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64))
        del keys
        lo, hi = key // n, key % n
        warn_if_sparse_sample(lo.size, n)
        _warn_if_repeats_dropped(lo.size, draws)
        A = sp.csr_array((np.ones(2 * lo.size), (np.concatenate([lo, hi]),
                                                 np.concatenate([hi, lo]))), shape=(n, n))
        A.sort_indices()
        return GraphData(weights=A, labels=self.labels)

    def sample_dask(self, rng=None, *, n_blocks: int | None = None,
                    partitions: int | None = None):
        """:meth:`sample` as a Dask computation: a ``dask.dataframe.DataFrame`` of the sampled
        edges (columns ``u < v`` by node index, in the release's labels), each partition one
        range of ``u``, in order. The same plan (:meth:`sample_plan`, drawn here on the client)
        and the same tasks as :meth:`sample`: for the same ``rng`` it is the same graph
        (isolated nodes are not in an edge list). No task and not the client holds the whole
        edge list: see :func:`dpgraph.synthetic.factor_sampler.sample_edges`. Post-processing."""
        from dpgraph.synthetic.factor_sampler import sample_edges

        self._check_factor_sampler("sample_dask", n_blocks)
        return sample_edges(self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks),
                            self.labels,
                            partitions=partitions)

    def write_sample(self, folder, rng=None, *, n_blocks: int | None = None,
                     partitions: int | None = None) -> int:
        """Write :meth:`sample_dask`'s edges as Parquet files ``folder/part-00000.parquet``, ...
        (columns ``u``, ``v``), each written by the task that drew it; returns the number of
        edges written. ``folder`` is created; it must be empty if it exists, and on a
        multi-machine cluster visible to every worker. Post-processing."""
        from dpgraph.synthetic.factor_sampler import write_sampled_edges

        self._check_factor_sampler("write_sample", n_blocks)
        return write_sampled_edges(self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks),
                                   self.labels,
                                   folder, partitions=partitions)

    def _check_factor_sampler(self, name, n_blocks):
        if not isinstance(self.labels, range):
            odd = next((x for x in self.labels
                        if not isinstance(x, (int, np.integer, float, np.floating, str))
                        or isinstance(x, bool)),
                       None)
            if odd is not None:  # Dask and Parquet columns hold numbers or strings
                raise ValueError(f"{name}: node label {odd!r} ({type(odd).__name__}) cannot be "
                                 f"a Dask / Parquet column value (numbers and strings can); "
                                 f"relabel the graph first (e.g. "
                                 f"networkx.convert_node_labels_to_integers), or use .sample()")
        if self.block_model is not None and n_blocks is None:
            raise ValueError(f"{name}: this release carries privatize's synthetic block model "
                             f"(synthetic_share), whose sampler runs in memory: use .sample(), "
                             f"or pass n_blocks= to sample the factor form's own block model")

    @property
    def private_rank(self) -> int:
        """The private directions: the factors' columns less the public degree direction."""
        return self.basis.shape[1] - 1

    def rank_text(self) -> str:
        """``rank=r`` (private directions; the factors add the public degree direction) and,
        where it differs, the rank asked for."""
        r, asked = self.private_rank, self.diagnostics.get("rank")
        text = f"rank={r} (+ the public degree direction)"
        return text if asked is None or asked == r else text + f" of requested {asked}"

    def __repr__(self) -> str:
        return (f"FactorPrivateGraph(n={self.n}, route='matrix-free', {self.rank_text()}, "
                f"{spent_text(self.ledger, self.diagnostics.get('unspent'))}"
                f"{reproducible_tag(self.ledger)})")


def _heaviest(keys: np.ndarray, vals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` entries of largest value (ties broken by the smaller key), sorted by key."""
    if vals.size > k:
        order = np.lexsort((keys, -vals))[:k]
        keys, vals = keys[order], vals[order]
    order = np.argsort(keys, kind="stable")
    return keys[order], vals[order]
