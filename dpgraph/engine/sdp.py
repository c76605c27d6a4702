r"""Low-rank solver and certified dual bound for the degree-2 SoS relaxation of Max-Cut / Bisection.

The degree-2 sum-of-squares (Goemans-Williamson) relaxation of Max-Cut on a weighted graph with
Laplacian :math:`L = \mathrm{Diag}(W\mathbf 1) - W` is

.. math::  \mathrm{SDP}(W) = \max \{ \tfrac14 \langle L, X\rangle : X_{ii} = 1,\ X \succeq 0 \},

and for Max-Bisection one adds the balance constraint :math:`\langle J, X\rangle = b` with
:math:`J = \mathbf 1\mathbf 1^T` and :math:`b = n \bmod 2` (every balanced :math:`\pm 1` vector has
:math:`(\mathbf 1^T x)^2 = b`). This is the relaxation used by d'Orsi and Novikov, Sec. 7.1
(degree-2 SoS followed by the global correlation rounding of Barak, Raghavendra and Steurer,
"Rounding semidefinite programming hierarchies via global correlation", FOCS 2011).

Solver (Burer-Monteiro)
    Write :math:`X = VV^T` with :math:`V \in \mathbb R^{n\times k}` of unit rows (the oblique
    manifold) and minimise :math:`f(V) = \langle W, VV^T\rangle` (since
    :math:`\tfrac14\langle L, X\rangle = \tfrac14(\mathbf 1^TW\mathbf 1 - \langle W, X\rangle)` when
    diag X = 1). We use Riemannian gradient descent with Barzilai-Borwein steps and the
    non-monotone line search of Zhang and Hager, with the row-normalisation retraction (Wen and
    Yin, "A feasible method for optimization with orthogonality constraints", 2013). Every
    iteration costs one blocked product ``W @ V``; there is no loop over rows (the classical
    mixing method updates one row at a time, which in Python would be a loop over rows). For
    :math:`k(k+1)/2 > n` every second-order critical point is optimal for generic costs
    (Boumal, Voroninski, Bandeira 2016); the certificate below tells whether it was reached.
    Bisection: the balance constraint is handled by an augmented Lagrangian,
    :math:`f + \nu h + \tfrac\rho2 h^2` with :math:`h = \|V^T\mathbf 1\|^2 - b`.

Certificate (weak duality)
    For any :math:`y\in\mathbb R^n` and :math:`\nu\in\mathbb R` and any feasible X (tr X = n),
    :math:`\langle L, X\rangle = \langle L - \mathrm{Diag}\,y - \nu J, X\rangle + \sum_i y_i + \nu b
    \le n\,\lambda_{\max}(L - \mathrm{Diag}\,y - \nu J) + \sum_i y_i + \nu b`, so

    .. math:: \mathrm{UB} = \tfrac14\Big(\sum_i y_i + \nu b + n\,\lambda_{\max}(L - \mathrm{Diag}\,y - \nu J)\Big)

    bounds the SDP value (and hence the integral optimum) from above, for *any* y, nu (nu = 0 for
    Max-Cut). We take y from the rows of the iterate, :math:`y_i = d_i - g_i` with
    :math:`g_i = ((W+\nu J)V)_i\cdot v_i` (the stationarity condition of the low-rank problem), so
    :math:`L - \mathrm{Diag}\,y - \nu J = \mathrm{Diag}(g) - W - \nu J =: M`, and an upper bound
    :math:`\mu \ge \lambda_{\max}(M)` turns into UB. Two ways to get mu:

    * ``"factor"`` (rigorous): take a Lanczos estimate plus its residual (or, when Lanczos does
      not converge in 60 restarts or its value fails the check, LAPACK's top eigenvalue) and verify
      :math:`\mu I - M \succ 0` by a floating-point Cholesky factorisation of
      :math:`(\mu - c) I - M` with Rump's margin :math:`c = \gamma_{n+2}/(1-\gamma_{n+2})\,
      \mathrm{tr}(\mu I - M)` (S. M. Rump, "Verification of positive definiteness", BIT 46, 2006):
      success of the factorisation then proves positive definiteness despite rounding (if it
      fails, mu is raised and checked again). Costs :math:`O(n^3)`: used for n <= 4000 by
      default. For larger sparse inputs of mean degree <= 6.5 (grids, planar-like graphs; with
      ``"auto"`` up to n = 25,000, ``SPARSE_FACTOR_MAX_N``; its factors are counted from the
      pattern before SuperLU allocates, :func:`check_sparse_factor_memory`, and where they do
      not fit ``"factor"`` is refused and ``"auto"`` takes another proof) the
      same check is done with a sparse LDL^T (SuperLU, symmetric mode, diagonal pivots only),
      bisecting on mu: positive pivots make the factors' :math:`\hat L D \hat L^T` positive
      definite, and a bound on the residual :math:`(\mu - 2c) I - M - \hat L D \hat L^T` from
      Higham's backward error of Gaussian elimination (:func:`sparse_ldl_lower_bound`), summed
      over the factors' entries, proves :math:`\mu I - M \succ 0` when it is below the shift's gap 2c (on
      G81, 20,000 nodes, it is 3e-4 of the gap). Every shift factors with the pattern of M,
      so the first factorization tells the fill F of all of them; with ``"auto"`` the
      bisection takes a (k+1)-th factorization only while :math:`(k+1) F \le`
      ``SPARSE_FACTOR_ENTRY_BUDGET`` (2e7 entries) and otherwise keeps the smallest shift
      verified so far (``"ldl-verified (fill cap)"``: rigorous, looser), a rule on counts
      that does not depend on the machine's speed. The memory is that of one factorization,
      at most :math:`n^2` entries (a random 3-regular graph at n = 20,000: 23M).
    * ``"lanczos"``: :math:`\mu = \theta + \|M u - \theta u\|` for the top Ritz pair
      :math:`(\theta, u)` of the unrestarted Lanczos recurrence (:func:`lanczos_top_pair`, to
      a residual of 1e-9 of M's Gershgorin scale). The residual bound guarantees an eigenvalue
      of M within :math:`\|r\|` of theta; it bounds :math:`\lambda_{\max}` provided Lanczos found the
      top of the spectrum (it converges to the extreme eigenvalues first and can miss one only
      for a starting vector almost orthogonal to its eigenvector). Used above n = 4000.

    With a time budget (``certify_upper_bound(..., time_limit=)``, used by the time-limited
    solves) the sparse LDL^T search starts at a generous shift, so that one factorization
    usually verifies a bound, and tightens it by bisection until the deadline; the dense check
    is not started when its predicted cost is more than three times the budget. What is
    returned is always verified; when nothing could be verified in time it is Gershgorin's
    bound on the same dual, or the sum of the positive weights (both rigorous, both loose).
    Every bound is also capped by that sum, which proves G48-type optima (all edges cut).

Rounding
    The verified statement is about the matrix as it was formed in floating point, and the
    bound is a float; both are tied to the exact quantities. With :math:`W_s = (W + W^T)/2`
    (what the objective sees) the bound is
    :math:`\tfrac14(T - \sum g + \nu b + n\mu + \epsilon)` with :math:`T = \sum_{i\ne j}
    W_{ij}` replaced by a proven upper bound (:func:`weight_sums`), :math:`\sum g` summed
    exactly, :math:`n\mu` rounded up and the whole evaluated upwards (:func:`upward_sum`);
    :math:`\epsilon \ge \sum_{ij}|M_s - M_f|` for the exact :math:`M_s = \mathrm{Diag}(g) -
    W_s - \nu J` and the matrix :math:`M_f` whose :math:`\lambda_{\max} \le \mu` was proven
    (every feasible X has :math:`|X_{ij}| \le 1`, so :math:`\langle M_s, X\rangle \le n\mu +
    \epsilon`). :math:`\epsilon = 0` for the sparse :math:`LDL^T` (``-M`` stored exactly, its
    symmetric part proven) and Gershgorin's bound (on :math:`W_s` directly); for the dense
    Cholesky, which reads one triangle of :math:`fl(-W - \nu J) + \mathrm{Diag}(g)`, it is
    :math:`\sum_{i<j}|W_{ij} - W_{ji}|` plus, when :math:`\nu \ne 0`, twice
    :math:`u(\sum|g| + \sum|W| + n^2|\nu|)` (``info['matrix_allowance']``). The Cholesky's
    own diagonal, ``fl(fl(mu - c) - M_ii)``, is read back for Rump's theorem
    (:func:`verified_lambda_max`, :func:`rump_certified_diagonal`).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from dpgraph.memory import InsufficientMemoryError, check_memory, format_bytes, memory_limit
from dpgraph.privacy.noise import make_rng
from dpgraph.progress import Progress
from dpgraph.engine.operator import WeightOperator
from dpgraph.engine.local_search import jit

__all__ = ["LowRankSolution", "solve_lowrank_sdp", "certify_upper_bound", "sdp_rank", "default_rank",
           "dense_certificate_bytes", "ldl_memory_estimate", "ldl_fill_entries", "ldl_fill_order",
           "check_sparse_factor_memory", "sparse_factor_note", "SPARSE_FACTOR_ENTRY_BYTES", "gershgorin_max", "sparse_ldl_lower_bound",
           "sparse_shift_verified", "rump_margin", "verified_lambda_max", "trivial_upper_bound", "gershgorin_upper_bound",
           "top_ritz_pair", "lanczos_top_pair", "rump_certified_diagonal", "upward_sum", "weight_sums", "WeightSums",
           "SUM_BLOCK"]

_EPS = np.finfo(np.float64).eps / 2  # unit roundoff u = 2^-53
#: ``certificate="auto"``: the dense Cholesky certificate of the Max-Cut bound up to this n (an
#: n x n factorisation, ~21 GFlop and 128 MB per matrix at the cap), a sparse LDL^T or Lanczos
#: above it. The 2-CSP certificate has its own cap on its reduced order
#: (:data:`dpgraph.engine.twocsp_sdp.LABEL_DENSE_CERTIFICATE_MAX_N`).
CUT_DENSE_CERTIFICATE_MAX_N = 4000


def __getattr__(name):
    if name == "FACTOR_MAX_N":  # deprecated name of CUT_DENSE_CERTIFICATE_MAX_N
        import warnings

        warnings.warn("dpgraph.engine.sdp.FACTOR_MAX_N is now CUT_DENSE_CERTIFICATE_MAX_N",
                      DeprecationWarning, stacklevel=2)
        return CUT_DENSE_CERTIFICATE_MAX_N
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
SPARSE_FACTOR_MAX_DEG = 6.5  # mean degree up to which 'auto' tries a sparse LDL^T certificate
# ... and the largest n: a low mean degree does not bound the fill, which grows about as n^2 on
# graphs without small separators (one factorization of a Barabasi-Albert graph of mean degree
# 4: 23 s and 25M entries at n = 50,000, 184 s and 99M at 100,000; a random 3-regular graph's
# whole certificate took 190 s at 30,000; soc-douban, 155k nodes, more than 5 minutes), so that
# a million sparse nodes would run out of memory inside SuperLU. Above it 'auto' takes Lanczos,
# as on large dense inputs; method='factor' still takes the sparse proof (a large grid or
# planar graph factors in seconds) after counting its factors from the pattern
# (check_sparse_factor_memory: refused, before SuperLU allocates, where they do not fit).
SPARSE_FACTOR_MAX_N = 25_000
#: ``certificate="auto"``'s sparse LDL^T bisection takes another factorization only while all
#: of them together hold at most this many factor entries (L and U; every shift factors with
#: the same pattern, so the first factorization prices the rest); past it the smallest shift
#: verified so far is the bound (rigorous, looser; ``"ldl-verified (fill cap)"``). A rule on
#: counts, not on the clock. G81 (toroidal grid, n = 20,000): 10 factorizations of 1.3M
#: entries, unchanged; a random 3-regular graph at n = 20,000: 23M entries and 11-17 s per
#: factorization, 2 factorizations instead of 6 (benchmarks/NOTES.md).
SPARSE_FACTOR_ENTRY_BUDGET = 20_000_000
MAX_DEFAULT_RANK = 32
# Floating-point rate assumed when predicting a dense Cholesky check's cost under a time budget
# (n^3 / 3 flops; one core of this machine runs LAPACK's potrf at 5-20 GFlop/s); the check is
# started when the prediction is at most 3x the time left (a verified bound is worth it)
CHOLESKY_FLOPS = 5e9


def sdp_rank(n: int) -> int:
    """Burer-Monteiro factor rank of the Max-Cut SDP: ``min(ceil(sqrt(2n)) + 1, 32)``
    (Barvinok-Pataki, capped), in [2, n]. (Not the rank of a private release:
    :func:`dpgraph.release.privatize.default_rank`.)

    The cap keeps each ``W @ V`` cheap on large dense inputs; Max-Cut SDP optima on the G-set
    have rank well below 32, and the certified gap reports it whenever a rank was too small.

    >>> sdp_rank(5), sdp_rank(34), sdp_rank(10**6)  # ceil(sqrt(2n)) + 1, capped at n and 32
    (5, 10, 32)
    >>> default_rank(34)  # the deprecated name
    10
    """
    return int(max(2, min(n, math.ceil(math.sqrt(2 * n)) + 1, MAX_DEFAULT_RANK)))


#: Deprecated name of :func:`sdp_rank` (kept importable: ``from dpgraph.engine import default_rank``).
default_rank = sdp_rank


@dataclass
class LowRankSolution:
    """Factor ``V`` (unit rows) of a low-rank SDP iterate and solver diagnostics."""

    V: np.ndarray
    value: float                 # 1/4 <L, VV^T>, the primal SDP objective of V
    iterations: int
    converged: bool
    grad_norm: float
    multiplier: float = 0.0      # nu for the balance constraint (0 for Max-Cut)
    imbalance: float = 0.0       # ||V^T 1||^2 - b
    products: int = 0            # number of W @ V products
    history: list = field(default_factory=list, repr=False)


def _normalize_rows(V: np.ndarray, *, inplace: bool = False) -> np.ndarray:
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    nrm[nrm == 0] = 1.0
    if inplace:  # the same division, without a second n x k array
        V /= nrm[:, None]
        return V
    return V / nrm[:, None]


def _step(V: np.ndarray, step: float, G: np.ndarray) -> np.ndarray:
    """``_normalize_rows(V - step * G)`` with one ``n x k`` array instead of three (the same
    floating-point operations; it bounds the client's memory at n = 10^6)."""
    T = step * G
    np.subtract(V, T, out=T)
    return _normalize_rows(T, inplace=True)


class _Objective:
    """f(V) = <W_off, VV^T> (+ augmented-Lagrangian balance term) and its Riemannian gradient."""

    def __init__(self, op: WeightOperator, balance: bool, b: float):
        self.op = op
        self.balance = balance
        self.b = b
        self.nu = 0.0
        self.rho = 0.0
        self.products = 0

    def __call__(self, V):
        WV = self.op.matmul(V)
        self.products += 1
        f = float(np.einsum("ij,ij->", WV, V))
        h = 0.0
        if self.balance:
            s = V.sum(axis=0)
            h = float(s @ s) - self.b
            sigma = self.nu + self.rho * h
            f_aug = f + self.nu * h + 0.5 * self.rho * h * h
            WV += sigma * s[None, :]  # WV is this call's own product
        else:
            f_aug = f
        g = np.einsum("ij,ij->i", WV, V)
        G = g[:, None] * V  # 2 (WV - g V), computed in place (same operations)
        np.subtract(WV, G, out=G)
        del WV
        G *= 2.0
        return f_aug, G, f, h


def solve_lowrank_sdp(op: WeightOperator, *, rank: int | None = None, V0=None, balance: bool = False,
                      tol: float = 1e-6, max_iter: int = 5000, rng=None, time_limit=None,
                      progress: bool = False, multiplier: float = 0.0,
                      progress_unit: float = 1.0) -> LowRankSolution:
    r"""Burer-Monteiro solve of the Max-Cut (or, with ``balance``, Max-Bisection) SDP.

    Parameters
    ----------
    op : WeightOperator
    rank : int, optional
        Number of columns k of V (default :func:`sdp_rank`). Ignored when ``V0`` is given.
    V0 : ndarray, optional
        Warm start (rows are normalised).
    balance : bool
        Add :math:`\langle J, X\rangle = n \bmod 2` by an augmented Lagrangian.
    tol : float
        Stop when :math:`\|\mathrm{grad} f\|_F \le tol \cdot \|W\|_1`-scaled and the relative
        objective change over 10 iterations is below ``tol``.
    max_iter : int
        Total gradient iterations (over all augmented-Lagrangian rounds).
    rng : None, int or Generator
    time_limit : float, optional
        Seconds; the best iterate so far is returned when exceeded.
    progress : bool
        Print the value every 50 iterations to stderr, times ``progress_unit`` (the factor back
        to the caller's units when ``op`` holds normalised weights; the solution is not
        scaled).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.engine import as_weight_operator
    >>> sol = solve_lowrank_sdp(as_weight_operator(nx.cycle_graph(5)), rng=0)
    >>> sol.V.shape, sol.converged, bool(np.allclose(np.linalg.norm(sol.V, axis=1), 1.0))
    ((5, 5), True, True)
    >>> round(sol.value, 4)  # the Max-Cut SDP value of C5, 5 (1 - cos(4 pi / 5)) / 2
    4.5225
    """
    n = op.n
    gen = make_rng(rng)
    if V0 is None:
        k = sdp_rank(n) if rank is None else int(rank)
        if k < 1:
            raise ValueError(f"rank must be >= 1, got {rank}")
        V = gen.standard_normal((n, k))
        if balance:  # start near balance: centre the columns
            V -= V.mean(axis=0)
    else:
        V = np.array(V0, dtype=np.float64, copy=True)
        if V.ndim != 2 or V.shape[0] != n:
            raise ValueError(f"V0 must have shape (n, k) with n = {n}, got {V.shape}")
    V = _normalize_rows(V)
    b = float(n % 2)
    obj = _Objective(op, balance, b)
    scale = max(float(np.abs(op.degrees).sum()), 1e-300)  # ~ sum |W_ij| for non-negative W
    if balance:
        obj.rho = 4.0 * max(float(np.max(np.abs(op.degrees))), 1.0) / n  # penalty ~ degree / n
        obj.nu = float(multiplier)
    t0 = time.perf_counter()
    it_total = 0
    converged = False
    history = []
    outer_rounds = 60 if balance else 1
    h_prev = np.inf
    gnorm = np.inf
    fval = h = 0.0
    step = None  # set on the first outer round, then carried over (warm step length)
    # iterations shown while reporting is on (the dpgraph command); the count to convergence is
    # not known in advance, so count, rate and elapsed time, no ETA
    ticker = Progress(desc=f"SDP solve ({n:,} variables, Burer-Monteiro)", unit="it")
    for outer in range(outer_rounds):
        f_aug, G, fval, h = obj(V)
        gnorm2 = float(np.einsum("ij,ij->", G, G))
        gnorm = math.sqrt(gnorm2)
        C, Q = f_aug, 1.0
        if step is None:
            step = 1.0 / max(2.0 * float(np.max(np.abs(op.degrees))), 1e-12)
        f_window = [f_aug]
        inner_conv = False
        while it_total < max_iter:
            # non-monotone Armijo backtracking along the retraction
            for _ in range(40):
                Vn = _step(V, step, G)
                fn_aug, Gn, fn, hn = obj(Vn)
                if fn_aug <= C - 1e-4 * step * gnorm2 or step < 1e-14:
                    break
                step *= 0.3
            S = Vn - V
            Y = Gn - G
            sy = abs(float(np.einsum("ij,ij->", S, Y)))
            if sy > 0:
                if it_total % 2 == 0:
                    step = float(np.einsum("ij,ij->", S, S)) / sy
                else:
                    step = sy / max(float(np.einsum("ij,ij->", Y, Y)), 1e-300)
            del S, Y  # not held through the next iteration's products
            step = min(max(step, 1e-12), 1e12)
            V, G, f_aug, fval, h = Vn, Gn, fn_aug, fn, hn
            gnorm2 = float(np.einsum("ij,ij->", G, G))
            gnorm = math.sqrt(gnorm2)
            Qn = 0.85 * Q + 1.0
            C = (0.85 * Q * C + f_aug) / Qn
            Q = Qn
            it_total += 1
            ticker.update()
            f_window.append(f_aug)
            if progress and it_total % 50 == 0:
                print(f"  sdp it {it_total:5d}  value "
                      f"{0.25 * (op.total - fval) * progress_unit:.6g}  "
                      f"|grad| {gnorm:.2e}  imbalance {h:.2e}", file=sys.stderr)
            rel_change = abs(f_window[-11] - f_aug) / max(abs(f_aug), scale * 1e-3) \
                if len(f_window) > 11 else np.inf
            if gnorm <= tol * scale / math.sqrt(n) and rel_change <= tol:
                inner_conv = True
                break
            if rel_change <= 0.01 * tol:
                inner_conv = True
                break
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                break
        history.append((it_total, 0.25 * (op.total - fval), h))
        if not balance:
            converged = inner_conv
            break
        # augmented Lagrangian multiplier update
        if abs(h) <= max(1e-7 * n, 1e-9) and inner_conv:
            converged = True
            break
        obj.nu += obj.rho * h
        if abs(h) > 0.25 * h_prev:
            obj.rho *= 5.0
        h_prev = abs(h)
        if it_total >= max_iter or (time_limit is not None and time.perf_counter() - t0 > time_limit):
            break
    ticker.close()
    sigma = obj.nu + obj.rho * h if balance else 0.0
    return LowRankSolution(V=V, value=0.25 * (op.total - fval), iterations=it_total, converged=converged,
                           grad_norm=gnorm, multiplier=sigma, imbalance=h, products=obj.products,
                           history=history)


def _rump_margin(n: int, trace: float) -> float:
    g = (n + 2) * _EPS / (1 - (n + 2) * _EPS)
    return g / (1 - g) * trace + 4 * n * (2 * (n + 2)) * np.finfo(float).tiny


def rump_margin(n: int, trace: float) -> float:
    r"""Rump's margin c for an n x n symmetric A with trace ``trace``: if the floating-point
    Cholesky of :math:`A - cI` succeeds, A is positive definite (S. M. Rump, "Verification of
    positive definiteness", BIT 46, 2006), :math:`c = \gamma_{n+2}/(1-\gamma_{n+2})\,\mathrm{tr} A`
    plus an underflow term.

    >>> bool(rump_margin(10, 10.0) < 1e-12)
    True
    """
    return _rump_margin(n, trace)


def rump_certified_diagonal(factored_diag: np.ndarray, c: float) -> np.ndarray | None:
    r"""The diagonal ``b`` that a successful floating-point Cholesky proves positive definite,
    or None when ``c`` falls short of Rump's margin for it.

    Rump's criterion (S. M. Rump, "Verification of positive definiteness", BIT 46, 2006,
    Cor. 2.4, with the improved backward error bounds of Rump and Jeannerod, "Improved backward
    error bounds for LU and Cholesky factorizations", SIMAX 35(2), 2014, which give the
    constant below in place of the paper's :math:`\gamma_{n+1}/(1-\gamma_{n+1})`; formalised
    in Coq by Martin-Dorel and Roux, ValidSDP): let A be a symmetric
    matrix of floats with :math:`0 \le a_{ii} \le d_{\max}` and

    .. math:: c \ge \frac{(n+1)u}{1-(n+1)u}\,\mathrm{tr}\,A + 4\eta\, n\,(2(n+1) + d_{\max})

    (:math:`u = 2^{-53}`, :math:`\eta = 2^{-1074}`); if the floating-point Cholesky of a float
    matrix :math:`\tilde A` with A's off-diagonal entries and :math:`\tilde a_{ii} \le a_{ii} - c`
    (*exactly*, not up to rounding) succeeds, A is positive definite. The factorised matrix is
    usually formed as ``fl(shift - S_ii)``, rounded to nearest, which does not give the exact
    inequality; this reads the diagonal that was factorised, ``factored_diag``, and returns
    :math:`b_i = \mathrm{next\_up}(fl(\tilde a_{ii} + c)) \ge \tilde a_{ii} + c` (floats, so A is
    a matrix of floats), after checking c against the margin for :math:`\mathrm{tr}\,A =
    \sum b_i` (bounded above by ``fsum`` and one ulp) and :math:`d_{\max} = \max b_i`, with
    :math:`16u` relative and :math:`16\eta` absolute for the check's own rounding. Then
    :math:`\tilde A + \mathrm{Diag}(b - \tilde a)` (the triangle the factorisation read,
    reflected) is positive definite. ``factored_diag`` may be any upper bound on the diagonal
    factorised (the theorem needs only :math:`\tilde a_{ii} \le b_i - c`). O(n).

    >>> import numpy as np
    >>> b = rump_certified_diagonal(np.array([2.0, 3.0]), rump_margin(2, 5.1))
    >>> bool(np.all(b > [2.0, 3.0])), rump_certified_diagonal(np.array([2.0, 3.0]), 1e-300)
    (True, None)
    """
    d = np.asarray(factored_diag, dtype=np.float64)
    n = d.size
    b = np.nextafter(d + c, np.inf)  # fl(d + c) is within half an ulp of d + c: one ulp up >= it
    if n == 0 or not (np.all(np.isfinite(b)) and np.all(b >= 0.0)):
        return None
    tr_up = math.nextafter(math.fsum(b.tolist()), math.inf)  # >= sum(b) exactly
    k = (n + 1) * _EPS
    need = (k / (1.0 - k) * tr_up + 4.0 * n * (2.0 * (n + 1) + float(np.max(b))) * _ETA)
    return b if c >= need * (1.0 + 16.0 * _EPS) + 16.0 * _ETA else None


# ----------------------------------------------------------------------------- rounding
# Every float operation between a verified eigenvalue statement and a returned bound is
# evaluated so that the returned float is >= the exact value of the bound's formula (the
# proofs of the certificates and of the private certificate, docs/privacy.md 4.13, need the
# exact inequality). u = 2^-53; a sum of k floats in any order (blocked, pairwise, SIMD, with
# fused multiply-adds) is within gamma_{k-1} sum |x_i| of the exact sum, gamma_k = k u / (1 - k u)
# (Higham, Accuracy and Stability, Lemma 3.1 and Sec. 4.2); math.fsum rounds the exact sum
# once, to nearest.

_ETA = 2.0 ** -1074  # the smallest subnormal: products' underflow costs at most half of it
#: terms per block of :func:`weight_sums`' sums of sparse data (a block's sum, in any order,
#: is within gamma_{B-1} of exact; the blocks' sums are added by math.fsum)
SUM_BLOCK = 256
_TILE = 256  # square tiles of a dense W in weight_sums (rows of a tile: partial sums)


def upward_sum(terms) -> float:
    r"""A float :math:`\ge` the exact sum of the floats ``terms``: :func:`math.fsum` (the exact
    sum, rounded to nearest: within half an ulp) moved one ulp up. The last step of every
    bound the certificates return.

    >>> 1.0 + 1e-17 == 1.0, upward_sum([1.0, 1e-17]) > 1.0  # rounded down; bounded above
    (True, True)
    """
    total = math.fsum(terms)
    # a nonzero exact sum of floats is a multiple of 2**-1074, so it rounds to a nonzero
    # float: a sum rounded to 0 is exactly 0 (an edgeless graph's bound is 0, not 5e-324)
    return total if total == 0.0 else math.nextafter(total, math.inf)


def _times_up(n, x: float) -> float:
    """A float >= n x exactly (one rounding to nearest, one ulp up)."""
    return math.nextafter(float(n) * float(x), math.inf)


def _quarter_up(s: float) -> float:
    """A float >= s / 4 exactly (exact unless the quarter is subnormal)."""
    q = 0.25 * s
    return q if 4.0 * q == s else math.nextafter(q, math.inf)


def _sum_bound(parts: np.ndarray, aparts: np.ndarray, k: int, rest=None) -> tuple[float, float, float]:
    r"""``(t, err, a_up)`` with :math:`|\sum x - t| \le err` and :math:`\sum|x| \le a_{up}` for
    terms x given as partial sums: ``parts[b]`` a float sum, in any order, of at most ``k``
    terms and ``aparts[b]`` that of their absolute values; ``rest`` terms added exactly.

    Each partial sum is within :math:`\gamma_{k-1} A_b` of exact (:math:`A_b` its terms'
    absolute sum), and :math:`A_b \le \hat a_b / (1 - \gamma_{k-1})`; ``t`` and ``a`` are the
    ``fsum`` of the partial sums (one rounding each, :math:`u|t|`, :math:`u a`). So
    :math:`|\sum x - t| \le u|t| + \gamma_{k-1}(1+u)a/(1-\gamma_{k-1}) \le (k+1)u(|t| + a)`
    and :math:`\sum|x| \le a(1 + (k+1)u)`, the slack (:math:`k u |t| + u a`) covering the
    rounding of these two expressions; :math:`2\eta` covers their underflow."""
    rest = np.zeros(0) if rest is None else np.asarray(rest, dtype=np.float64)
    t = math.fsum(np.concatenate([np.asarray(parts, dtype=np.float64).ravel(), rest]).tolist())
    a = math.fsum(np.concatenate([np.asarray(aparts, dtype=np.float64).ravel(),
                                  np.abs(rest)]).tolist())
    if a == 0.0:  # a float sum of non-negative terms is 0 only when every term is: exact
        return t, 0.0, 0.0
    k1 = (k + 1) * _EPS
    err = k1 * (abs(t) + a) + 2 * _ETA
    a_up = math.nextafter(a + (k1 * a + 2 * _ETA), math.inf)
    return t, err, a_up


class WeightSums(NamedTuple):
    r"""Rigorous sums of ``W_off`` (:func:`weight_sums`).

    ``total``: a float near :math:`T = \sum_{i \ne j} W_{ij}`, with :math:`|T - total| \le`
    ``total_err``; ``abs_total`` :math:`\ge \sum_{i \ne j}|W_{ij}|`; ``asym``
    :math:`\ge \sum_{i<j}|W_{ij} - W_{ji}|` (0 when W is exactly symmetric; ``nan`` when not
    computed); ``rigorous``: False for an operator of another kind (its own totals, as
    reported).
    """

    total: float
    total_err: float
    abs_total: float
    asym: float
    rigorous: bool = True


def weight_sums(op: WeightOperator, *, asymmetry: bool = False) -> WeightSums:
    r"""Rigorous sums of the off-diagonal weights: one pass over a dense ``W`` by pairs of
    mirrored 256 x 256 tiles (each tile row's sum, 256 terms, within :math:`\gamma_{255}`; all
    added by ``fsum``) or over a sparse one's stored entries (blocks of :data:`SUM_BLOCK`), the
    diagonal excluded; with ``asymmetry``, also a bound on :math:`\sum_{i<j}|W_{ij} - W_{ji}|`
    (from the same mirrored tiles; one ``W - W^T`` for a sparse matrix), which the dense
    certificates need: the floating-point Cholesky reads one triangle. The trivial bound and every dual bound
    of :func:`certify_upper_bound` use these (:func:`_sum_bound` for the inequalities).

    >>> import numpy as np
    >>> from dpgraph.engine import as_weight_operator
    >>> s = weight_sums(as_weight_operator(np.array([[0., 1, -2], [1, 0, 3], [-2, 3, 0]])), asymmetry=True)
    >>> s.total, bool(s.total_err < 1e-12), round(s.abs_total, 9), s.asym
    (4.0, True, 12.0, 0.0)
    """
    n = op.n
    W = op.W
    nan = float("nan")
    if isinstance(W, np.ndarray):
        # tiles W[a:b, c:d] and W[c:d, a:b] for c >= a: every entry read once, in cache;
        # partial sums along a tile's rows (at most TILE terms each)
        t = _TILE
        parts, aparts, skew, skew_diag = [], [], [], []
        for a in range(0, n, t):
            b = min(n, a + t)
            for c in range(a, n, t):
                d = min(n, c + t)
                upper = W[a:b, c:d]
                if c == a:
                    if op.has_diag:  # W_off: the diagonal excluded (a copy of the tile)
                        upper = upper.copy()
                        np.fill_diagonal(upper, 0.0)
                    parts.append(upper.sum(axis=1))
                    aparts.append(np.abs(upper).sum(axis=1))
                    if asymmetry:  # both (i, j) and (j, i) of the tile: halved below
                        skew_diag.append(np.abs(upper - upper.T).sum(axis=1))
                    continue
                lower = W[c:d, a:b]
                parts += [upper.sum(axis=1), lower.sum(axis=1)]
                aparts += [np.abs(upper).sum(axis=1), np.abs(lower).sum(axis=1)]
                if asymmetry:  # |fl(W_ij - W_ji)| >= |W_ij - W_ji| (1 - u)
                    skew.append(np.abs(upper - lower.T).sum(axis=1))
        cat = np.concatenate
        tot, err, a_up = _sum_bound(cat(parts), cat(aparts), t)
        asym = nan
        if asymmetry:
            _, _, off = _sum_bound(cat(skew or [np.zeros(0)]), cat(skew or [np.zeros(0)]), t)
            _, _, dia = _sum_bound(cat(skew_diag), cat(skew_diag), t)
            asym = _asym_up(off, dia)
        return WeightSums(tot, err, a_up, asym)
    if sp.issparse(W):
        Wc = sp.csr_array(W)
        if op.has_diag:  # W_ii - W_ii = 0 exactly: the stored diagonal becomes zeros
            Wc = sp.csr_array(Wc - sp.diags_array(Wc.diagonal(), format="csr"))
        t, err, a_up = _blocked_sum_bound(Wc.data)
        asym = nan
        if asymmetry:  # W - W^T holds both (i, j) and (j, i)
            skew = abs(sp.csr_array(W) - sp.csr_array(W).T).data
            _, _, s_up = _blocked_sum_bound(skew)
            asym = _asym_up(0.0, s_up)
        return WeightSums(t, err, a_up, asym)
    # an operator of another kind (a factor form, whose exact weights are not floats): its own
    # total as reported, not proven here (its lambda_max_bound has its own margin)
    return WeightSums(float(op.total), 0.0, nan, 0.0, rigorous=False)


def _asym_up(off: float, dia: float) -> float:
    r"""A bound on :math:`\sum_{i<j}|W_{ij} - W_{ji}|` from bounds on the sums of the computed
    ``|fl(W_ij - W_ji)|``: ``off`` over pairs counted once, ``dia`` over pairs counted twice
    (both orders). Each exact difference is at most ``|fl(.)| / (1 - u)`` (one rounding); the
    sum ``off + dia / 2`` is rounded twice (the halving only if subnormal): ``1 + 4u``,
    ``2 eta`` and one ulp up cover them."""
    if off == 0.0 and dia == 0.0:
        return 0.0
    return math.nextafter((off + 0.5 * dia) * (1.0 + 4 * _EPS) + 2 * _ETA, math.inf)


def _blocked_sum_bound(x: np.ndarray) -> tuple[float, float, float]:
    """:func:`_sum_bound` of the 1-D ``x`` summed in blocks of :data:`SUM_BLOCK` terms."""
    x = np.asarray(x, dtype=np.float64).ravel()
    m = (x.size // SUM_BLOCK) * SUM_BLOCK
    blk = x[:m].reshape(-1, SUM_BLOCK)
    return _sum_bound(blk.sum(axis=1), np.abs(blk).sum(axis=1), SUM_BLOCK, rest=x[m:])


def trivial_upper_bound(op: WeightOperator, sums: WeightSums | None = None) -> float:
    r"""The sum of the positive weights, :math:`\sum_{i<j}\max(W_{ij}, 0)`, bounded above.

    It bounds every cut and the SDP value: :math:`\tfrac12(1 - X_{ij}) \in [0, 1]` for any
    feasible X, so positive weights contribute at most :math:`W_{ij}` and negative ones at most
    0 (Max-Bisection only adds a constraint). Costs one pass over the weights
    (:func:`weight_sums`, or ``sums`` already computed); the fallback of
    :func:`certify_upper_bound` when no dual bound could be verified in time, and the bound of
    ``certificate=False``. It is :math:`(T + \sum_{i\ne j}|W_{ij}|)/4` with T the sum of the
    off-diagonal weights, each sum replaced by a proven upper bound and the rest evaluated
    upwards (:func:`upward_sum`).

    >>> import numpy as np
    >>> from dpgraph.engine import as_weight_operator
    >>> round(trivial_upper_bound(as_weight_operator(np.array([[0., 1, -2], [1, 0, 3], [-2, 3, 0]]))), 9)
    4.0
    """
    s = weight_sums(op) if sums is None else sums
    if not s.rigorous:  # an operator of another kind: its own sums, with a margin
        a = float(op.abs_total())
        return float(0.25 * (a + s.total) + 2.0 * (op.n + 2) * _EPS * a)
    return _quarter_up(upward_sum([s.total, s.total_err, s.abs_total]))


def gershgorin_upper_bound(op: WeightOperator, g: np.ndarray, nu: float = 0.0) -> float:
    r"""A rigorous (if loose) :math:`\mu \ge \lambda_{\max}(\mathrm{Diag}(g) - W_s - \nu J)` by
    Gershgorin's theorem, :math:`W_s = (W_{\mathrm{off}} + W_{\mathrm{off}}^T)/2` (the matrix
    the objective sees; W itself when symmetric): :math:`\max_i\,(g_i - \nu + \rho_i + (n-1)|\nu|)`
    with :math:`\rho_i = (r_i + c_i)/2 - |W_{ii}| \ge \sum_{j\ne i}|(W_s)_{ij}|` from W's
    absolute row and column sums :math:`r_i, c_i`, inflated by :math:`(n + 6)` units of roundoff
    of the magnitudes that went into each (:func:`gershgorin_max`). No factorization, one pass
    over the weights (``op.W`` needed).

    >>> import numpy as np
    >>> from dpgraph.engine import as_weight_operator
    >>> op = as_weight_operator(np.array([[0., 1, -2], [1, 0, 3], [-2, 3, 0]]))
    >>> g = np.array([1.0, 0.0, -1.0])
    >>> mu = gershgorin_upper_bound(op, g)
    >>> bool(mu >= np.linalg.eigvalsh(np.diag(g) - op.to_dense())[-1]), round(mu, 9)
    (True, 4.0)
    """
    n = op.n
    W = op.W
    if isinstance(W, np.ndarray):  # row blocks: no n x n temporary
        rabs, cabs = np.empty(n), np.zeros(n)
        for a in range(0, n, 2048):
            blk = np.abs(W[a:a + 2048])
            rabs[a:a + 2048] = blk.sum(axis=1)
            cabs += blk.sum(axis=0)
    else:
        aW = abs(W)
        rabs = np.asarray(aW.sum(axis=1), dtype=np.float64).ravel()
        cabs = np.asarray(aW.sum(axis=0), dtype=np.float64).ravel()
    ad = np.abs(op.diag)
    rho = 0.5 * (rabs + cabs) - ad
    g = np.asarray(g, dtype=np.float64)
    row = g - nu + rho + (n - 1) * abs(nu)
    # the row and column sums (n terms each, including the diagonal) are within gamma_n of
    # exact: the magnitude counts both in full, and the diagonal once more for its subtraction
    return gershgorin_max(row, np.abs(g) + rabs + cabs + ad + n * abs(nu), n)


def gershgorin_max(row: np.ndarray, magnitude: np.ndarray, n: int) -> float:
    r"""``max_i row_i`` (each a Gershgorin disc's right edge, centre plus radius, summed in
    floating point with at most n + 2 roundings) made rigorous: each row inflated by
    :math:`(n + 6)` units of roundoff of ``magnitude_i`` (the sum of the absolute values that
    went into it; :math:`\gamma_{n+2}` plus the inflation's own two roundings, with room), the
    maximum one ulp up. Shared by the Max-Cut and the 2-CSP certificates' fallbacks.

    >>> import numpy as np
    >>> bool(gershgorin_max(np.array([-1.0, 2.0]), np.array([1.0, 2.0]), 2) > 2.0)
    True
    """
    return math.nextafter(float(np.max(row + (n + 6) * _EPS * magnitude)), math.inf)


class _Deadline(Exception):
    """Raised inside a Lanczos product when the certificate's time budget is spent."""


def certify_upper_bound(op: WeightOperator, V: np.ndarray, *, nu: float = 0.0, balance: bool = False,
                        method: str = "auto", rng=None, time_limit: float | None = None
                        ) -> tuple[float, dict]:
    r"""Certified upper bound on the Max-Cut (or Bisection) SDP, hence on the optimum, from any V.

    Returns ``(UB, info)`` with :math:`\mathrm{UB} = \tfrac14(\sum y + \nu b + n\mu)`, where
    ``mu >= lambda_max(Diag(g) - W - nu J)`` is obtained by ``method`` (see the module docstring):
    ``"factor"`` (verified by Cholesky with Rump's rounding margin), ``"lanczos"`` (Ritz value plus
    residual norm) or ``"auto"`` (``"factor"`` when n <= 4000, and on sparse inputs up to
    ``SPARSE_FACTOR_MAX_N``, its bisection stopped by ``SPARSE_FACTOR_ENTRY_BUDGET``:
    ``"ldl-verified (fill cap)"``). ``info['certificate']`` says which;
    ``info['rump_margin']`` is Rump's margin c of the dense Cholesky, ``info['ldl_shift_gap']``
    the gap 2c between the bound and the shift the sparse :math:`LDL^T` factorised (proved by
    Higham's backward error, not Rump's margin), ``info['matrix_allowance']`` the dense matrix's
    rounding and asymmetry allowance (module docstring, "Rounding"). UB is at least the exact
    value of its formula: every float operation after the eigenvalue proof is bounded.

    ``time_limit`` (seconds) bounds the cost: the sparse LDL^T search stops at the deadline with
    the smallest shift verified so far (a looser but still verified bound); Lanczos products
    stop at the deadline; a dense Cholesky check whose predicted cost (:math:`n^3/3` flops at
    :data:`CHOLESKY_FLOPS` per second) exceeds the budget is not started. When nothing could be
    verified in time the bound is the smaller of Gershgorin's bound on the dual and the sum of
    the positive weights (:func:`trivial_upper_bound`, :func:`gershgorin_upper_bound`), both
    rigorous, and ``info['certificate']`` names it and says ``(time cap)``. The returned UB is
    never above :func:`trivial_upper_bound`. The dense check needs :func:`dense_certificate_bytes`
    (24 n^2 bytes); when that does not fit in the available memory (``DPGRAPH_MEMORY_LIMIT``),
    ``method="factor"`` raises :class:`~dpgraph.memory.InsufficientMemoryError` before
    allocating and ``"auto"`` falls back to Gershgorin's bound.

    >>> import networkx as nx
    >>> from dpgraph.engine import as_weight_operator
    >>> op = as_weight_operator(nx.cycle_graph(5))
    >>> sol = solve_lowrank_sdp(op, rng=0)
    >>> ub, info = certify_upper_bound(op, sol.V)
    >>> round(float(ub), 4), bool(4 <= sol.value <= ub <= 5), info["certificate"]  # C5 cut: 4
    (4.5225, True, 'cholesky-verified')
    """
    if method not in ("auto", "factor", "lanczos"):
        raise ValueError(f"method={method!r} is not one of 'auto', 'factor', 'lanczos'")
    t0 = time.perf_counter()
    cache = {}

    def sums(asymmetry: bool = False) -> WeightSums:
        # one pass over the weights, shared by the dual bound and the trivial cap
        got = cache.get("sums")
        if got is None or (asymmetry and math.isnan(got.asym)):
            got = cache["sums"] = weight_sums(op, asymmetry=asymmetry)
        return got

    if _without_weights(op):
        # no edge: every cut, every bisection and the SDP value are 0 exactly (the sparse
        # proof has no shift to verify on a zero matrix)
        return 0.0, {"certificate": "exact (no edges)", "lambda_max_bound": 0.0,
                     "certificate_seconds": time.perf_counter() - t0}
    ub, info = _certify(op, V, nu=nu, balance=balance, method=method, rng=rng,
                        deadline=None if time_limit is None else t0 + float(time_limit),
                        sums=sums)
    if hasattr(op, "W") and not getattr(op, "lambda_max_bound", None):
        triv = trivial_upper_bound(op, sums())
        if triv < ub:
            info["dual_bound"] = ub
            info["certificate"] = f"trivial (below the {info['certificate']} bound)"
            ub = triv
    info["certificate_seconds"] = time.perf_counter() - t0
    return ub, info


def _without_weights(op) -> bool:
    """Whether ``op`` is a weight matrix with no nonzero off-diagonal entry (an edgeless
    graph); False for an operator of another kind."""
    W = getattr(op, "W", None)
    if W is None or getattr(op, "lambda_max_bound", None):
        return False
    stored = np.count_nonzero(W) if op.is_dense else W.count_nonzero()
    return stored == np.count_nonzero(W.diagonal())


def _certify(op: WeightOperator, V, *, nu, balance, method, rng, deadline, sums=None):
    n = op.n
    if sums is None:
        def sums(asymmetry=False):
            return weight_sums(op, asymmetry=asymmetry)
    V = _normalize_rows(np.asarray(V, dtype=np.float64))
    b = float(n % 2) if balance else 0.0
    WV = op.matmul(V)
    if balance:
        WV = WV + nu * V.sum(axis=0)[None, :]
    g = np.einsum("ij,ij->i", WV, V)
    nu_m = nu if balance else 0.0  # the multiplier in M = Diag(g) - W - nu J
    nub = nu_m * b  # b is 0 or 1: exact
    # a float estimate of sum(y) + nu b, y = d - g (only steers the sparse search's tolerance)
    base = float(op.total) - float(g.sum()) + nub

    def bound(mu: float, extra: float = 0.0) -> float:
        # UB = (T - sum g + nu b + n mu + extra) / 4 evaluated upwards (weak duality with
        # y = d - g for the exact row sums d of W_s, so that L - Diag y - nu J = M exactly):
        # T <= total + total_err (weight_sums), sum g exactly inside math.fsum, n mu by one
        # ulp up, the whole by upward_sum and _quarter_up. ``extra`` bounds
        # sum_ij |M_s - M_f|, M_f the matrix whose lambda_max <= mu was proven (|X_ij| <= 1 for
        # every feasible X, so <M_s, X> <= n mu + extra).
        s = sums()
        return _quarter_up(upward_sum([s.total, s.total_err, nub, _times_up(n, mu), extra]
                                      + (-g).tolist()))

    # sparse LDL^T certificate: cheap for grid / planar-like graphs (low mean degree) and, with
    # fill bounded by n^2 / 2, for any sparse graph up to n = 4000
    sparse_ok = (not op.is_dense and n > 500 and not (balance and nu < 0)
                 and (op.nnz <= SPARSE_FACTOR_MAX_DEG * n or (n <= CUT_DENSE_CERTIFICATE_MAX_N and op.nnz <= 16 * n)))
    if method == "auto" and n > SPARSE_FACTOR_MAX_N:
        sparse_ok = False  # its time grows as the fill: only where 'factor' is asked for
    unverified = ""
    pattern = order = None
    if sparse_ok and method in ("auto", "factor"):
        # the pattern of every shift (W's and the diagonal's) and the sparse proof's column
        # order (SuperLU's minimum degree on it), computed once for the count and every
        # factorization
        pattern = sp.csc_matrix(op.W) + sp.eye_array(n, format="csc")
        order = ldl_fill_order(pattern)
    if method == "auto" and sparse_ok:
        # SuperLU's fill is not bounded by the mean degree: 'auto' takes the sparse proof where
        # its factors fit, counted from the pattern (nothing is counted where even a full
        # factor fits), as the 2-CSP certificate does
        note = sparse_factor_note(pattern, order=order)
        if note:
            sparse_ok = False
            if n > CUT_DENSE_CERTIFICATE_MAX_N:
                unverified = f" (unverified: {note})"
    requested = method
    if method == "auto":
        method = "factor" if (n <= CUT_DENSE_CERTIFICATE_MAX_N or sparse_ok) else "lanczos"
    info = {"certificate": None}

    def mv(x):
        x = np.asarray(x, dtype=np.float64)
        out = g * x - op.matmul(x)
        if balance and nu != 0.0:
            out = out - nu * x.sum()
        return out

    if n == 1:
        # M = g - nu is 1 x 1: its value, rounded up
        mu = float(g[0]) if nu_m == 0.0 else math.nextafter(float(g[0]) - nu_m, math.inf)
        info.update(certificate="exact", lambda_max_bound=mu)
        return bound(mu), info
    structured = getattr(op, "lambda_max_bound", None)
    if structured is not None:  # e.g. a low-rank operator: an exact k x k check, no Lanczos
        mu, extra = structured(g, nu_m)
        info.update(certificate="structured", lambda_max_bound=mu, **extra)
        return bound(mu), info
    gen = make_rng(rng)

    def fallback(reason):
        # nothing verified within the budget: Gershgorin's bound on the dual (rigorous, loose);
        # the caller also caps it by the sum of the positive weights
        mu = gershgorin_upper_bound(op, g, nu_m)
        info.update(certificate=f"gershgorin ({reason})", lambda_max_bound=mu)
        return bound(mu), info

    def left():
        return np.inf if deadline is None else deadline - time.perf_counter()

    if method == "factor" and sparse_ok and requested == "factor":
        # SuperLU's fill is not bounded by the mean degree: counted from the pattern (W's and
        # the diagonal's, that of every shift) before it allocates; 'auto' took the sparse
        # proof only where the factors fit (above)
        check_sparse_factor_memory(
            pattern, what=f"the sparse LDL^T certificate (certificate='factor') at n = {n:,}",
            alternative="Use certificate='auto' (Lanczos, or the dense Cholesky where it fits), "
                        "'lanczos' (not a proof) or 'none' (the sum of the positive weights).",
            order=order)
    pattern = None
    if method == "factor" and sparse_ok:
        # nu >= 0: mu I - M = (mu I - Diag g + W) + nu J, and nu J is PSD, so verifying the
        # first term suffices (conservative). -M is stored exactly (W's entries, -g on the
        # diagonal) and the LDL^T proof is about its symmetric part: no matrix allowance.
        try:
            guess = _lanczos_estimate(mv, n, gen, deadline=deadline)
            # 'auto' bounds the bisection by the factors' entries (SPARSE_FACTOR_ENTRY_BUDGET);
            # an explicit 'factor' bisects to the tolerance
            mu, c, capped, stats = _sparse_inertia_bound(
                op, g, 0.0, deadline=deadline, guess=guess,
                target=1e-6 * max(abs(base), 1e-300) * 4.0 / n,
                entry_budget=SPARSE_FACTOR_ENTRY_BUDGET if requested == "auto" else None,
                order=order)
        except _Deadline:
            return fallback("time cap")
        # the proof is Higham's backward error of the LDL^T below the gap 2c between mu and
        # the factorised shift (c sized like Rump's margin, which is not what proves it)
        caps = [why for why, on in (("time cap", capped), ("fill cap", stats["fill_capped"])) if on]
        info.update(certificate="ldl-verified" + "".join(f" ({why})" for why in caps),
                    lambda_max_bound=mu, ldl_shift_gap=2.0 * c,
                    factorizations=stats["factorizations"], ldl_nnz_factor=stats["ldl_nnz_factor"])
        return bound(mu), info
    # a scale for the Lanczos tolerance (and the shift of the dense path's ARPACK call; any
    # value works for correctness)
    if op.is_dense:
        wscale = float(np.max(np.abs(op.degrees)))
    else:
        wscale = float(np.max(np.asarray(abs(op.W).sum(axis=1)).ravel()))
    gersh = float(np.max(np.abs(g))) + wscale + abs(nu) * n
    mv_timed = mv
    if deadline is not None:
        def mv_timed(x):
            if time.perf_counter() > deadline:
                raise _Deadline
            return mv(x)
    if method == "lanczos":
        try:  # unrestarted Lanczos (ARPACK's restarts stalled on the cluster at the top);
            # up to order 300 top_ritz_pair's dense eigendecomposition, as before
            if n <= 300:
                theta, resid = top_ritz_pair(mv_timed, gen, n=n, shift=gersh, tol=1e-9)
            else:
                theta, resid, _ = lanczos_top_pair(mv_timed, n, gen, tol=1e-9 * gersh,
                                                   start=_span_top_vector(V, g, WV))
        except _Deadline:
            return fallback("time cap")
        mu = theta + resid
        info.update(lanczos_theta=theta, lanczos_residual=resid)
        info.update(certificate="lanczos-residual" + unverified, lambda_max_bound=mu)
        return bound(mu), info
    # rigorous: dense top eigenvalue (LAPACK), then verify (mu - c) I - M > 0 by Cholesky;
    # with a budget, not started when its predicted cost exceeds what is left
    if 3.0 * left() < (n ** 3 / 3.0) / CHOLESKY_FLOPS:  # may take up to 3x the budget
        return fallback("time cap: dense Cholesky check predicted too slow")
    try:
        _check_dense_certificate_memory(n)
    except MemoryError:
        if requested == "factor":
            raise
        return fallback("the dense Cholesky check would not fit in memory")
    M = -op.to_dense()
    if balance and nu != 0.0:
        M -= nu
    M[np.diag_indices(n)] += g
    # M_f = M as formed differs from M_s = Diag(g) - W_s - nu J (W_s = (W + W^T) / 2) in two
    # ways, and the Cholesky reads one triangle of M_f (verified_lambda_max):
    # * the triangle read has W_ij where W_s has (W_ij + W_ji) / 2: sum |.| over both
    #   triangles = sum_{i<j} |W_ij - W_ji| <= s.asym (0 for a symmetric W);
    # * with nu != 0, fl(-W_ij - nu) and fl(g_i - nu) are within u |exact| of exact (one
    #   rounding each; with nu = 0 every entry is exact): summed over the triangle read and its
    #   reflection, <= u (sum |g| + sum_{i!=j} |W_ij| + s.asym + n^2 |nu|) (2 |W_ij| <= |W_ij| +
    #   |W_ji| + |W_ij - W_ji|), doubled to cover this expression's own rounding.
    s = sums(asymmetry=True)
    extra = s.asym
    if nu_m != 0.0:
        extra += 2 * _EPS * (float(np.abs(g).sum()) + s.abs_total + s.asym + float(n) * n * abs(nu_m))
    extra = math.nextafter(extra, math.inf) if extra else 0.0
    # first a cheap Lanczos estimate (Ritz value + residual); if Lanczos fails or the Cholesky
    # check does not confirm it, LAPACK's top eigenvalue of the dense M is used instead
    try:
        theta, resid = top_ritz_pair(mv_timed, gen, n=n, shift=0.0, tol=1e-8, maxiter=60,
                                      strict=True)
        mu = theta + resid
        info.update(lanczos_theta=theta, lanczos_residual=resid)
        use_eig = False
    except (spla.ArpackNoConvergence, _Deadline):
        use_eig = True

    def dense_top():
        lam = float(sla.eigvalsh(M, subset_by_index=[n - 1, n - 1], driver="evr")[0])
        info["dense_eig"] = lam
        return lam + 1e-12 * max(1.0, float(np.max(np.abs(g))))

    if use_eig:
        mu = dense_top()
    try:
        mu_try, c = verified_lambda_max(M, mu, None if use_eig else dense_top, attempts=9)
    except RuntimeError:
        raise RuntimeError("could not verify the dual certificate (Cholesky kept failing)") from None
    info.update(certificate="cholesky-verified", lambda_max_bound=mu_try, rump_margin=c,
                matrix_allowance=extra)
    return bound(mu_try, extra), info


def ldl_memory_estimate(N: int, nnz: int) -> int:
    """Bytes a sparse LDL^T certificate needs at most for an N x N matrix with nnz nonzeros:
    the worst case of a fully filled factor (L and U, ``N^2 + N`` entries at
    :data:`SPARSE_FACTOR_ENTRY_BYTES` each, SuperLU's and the proof's copies included), plus
    40 bytes per entry of the matrix and 64 per row, as :func:`check_sparse_factor_memory`
    prices the factors it counts. Where it fits nothing needs counting; measured fills are
    far lower (a random 3-regular graph of 20,000 nodes: 23M entries and 0.71 GB against this
    bound's 19.2 GB; benchmarks/NOTES.md).

    >>> ldl_memory_estimate(20_000, 80_000) / 1e9  # GB
    19.20544
    """
    N = int(N)
    return int(SPARSE_FACTOR_ENTRY_BYTES * (N * N + N) + 40 * int(nnz) + 64 * N)


def dense_certificate_bytes(n: int) -> int:
    """Memory of the dense Cholesky certificate: M, the shifted copy that is factorised and
    LAPACK's eigenvalue workspace (one more n x n), 8 bytes each.

    >>> dense_certificate_bytes(1000)
    24000000
    """
    return 3 * 8 * int(n) * int(n)


def _check_dense_certificate_memory(n: int) -> None:
    check_memory(dense_certificate_bytes(n), what=f"the dense Cholesky certificate at n = {n:,}",
                 alternative="Use certificate='lanczos' (a Ritz-value estimate, not a proof), "
                             "certificate='none' (the sum of the positive weights), or a machine "
                             "with more memory; DPGRAPH_MEMORY_LIMIT caps what dpgraph may use.")


#: Peak bytes of the sparse LDL^T proof per factor entry (L and U, as SuperLU stores them):
#: SuperLU's supernodal arrays, grown by copies as the factorization proceeds, the CSC copies of
#: L and U that SciPy hands back, U again by rows and the residual's work arrays
#: (:func:`sparse_ldl_lower_bound`); peak RSS of one proof over its factor entries, the
#: fixed costs included: 31-49 B on random 3-regular, Barabasi-Albert, G(n, 3n) and grid
#: graphs of 10,000-20,000 nodes (0.9M-23M entries; benchmarks/NOTES.md, "The sparse proof
#: priced before it factorizes"). With 40 B per entry of the matrix and 64 B per row on top.
SPARSE_FACTOR_ENTRY_BYTES = 48


@jit
def _symbolic_fill(indptr, indices, n, cap):
    """Entries of the Cholesky factor (its diagonal included) of the symmetric pattern whose
    strict lower triangle is the CSR ``(indptr, indices)``: elimination tree (Liu, path
    compression), then each row's subtree walked once (O(entries) time, O(n) memory); -1 once
    the count passes ``cap``."""
    parent = np.full(n, -1, dtype=np.int64)
    ancestor = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            r = indices[p]
            while ancestor[r] != -1 and ancestor[r] != i:
                t = ancestor[r]
                ancestor[r] = i
                r = t
            if ancestor[r] == -1:
                ancestor[r] = i
                parent[r] = i
    mark = np.full(n, -1, dtype=np.int64)
    count = 0
    for i in range(n):
        mark[i] = i
        count += 1
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            while mark[j] != i:
                mark[j] = i
                count += 1
                j = parent[j]
        if count > cap:
            return -1
    return count


def _fill_pattern(A) -> sp.csc_matrix:
    """The pattern of :math:`|A| + |A^T|` (every stored entry of ``A``, explicit zeros
    included) with a dominant diagonal, as a float CSC matrix."""
    P = sp.csc_matrix(A, dtype=np.float64, copy=True)
    n = P.shape[0]
    P.data[:] = 1.0  # structural: an explicit zero is an entry SuperLU stores and eliminates
    P = (P + P.T).tocsc()
    return (P + sp.diags_array(np.full(n, float(n) + 1.0), format="csc")).tocsc()


def ldl_fill_order(A) -> np.ndarray:
    r"""The column order SuperLU's symmetric-mode factorization of a matrix of ``A``'s pattern
    takes (``permc_spec="MMD_AT_PLUS_A"``: multiple minimum degree on the pattern of
    :math:`A + A^T`), as ``order`` with ``order[k]`` the row and column of ``A`` eliminated
    k-th: ``A[order][:, order]`` factorized with ``permc_spec="NATURAL"`` is factorized in it.

    An incomplete factorization (``spilu``, its fill capped at ``A``'s entries) of the pattern
    with a dominant diagonal runs SuperLU's ordering and hands it back; the ordering is
    nearly all of its cost (G(n, 3n) at n = 25,000: 3.6 s of CPU against 0.04 s for the
    incomplete factorization in a given order, benchmarks/NOTES.md), and a factorization that
    orders its columns itself spends it again. Computed once, it serves the count
    (:func:`ldl_fill_entries`) and every factorization of the sparse proof
    (:func:`sparse_ldl_lower_bound` with ``permc_spec="NATURAL"``), which all share the
    off-diagonal pattern. The identity where SuperLU fails (a dominant diagonal does not).

    >>> import numpy as np, scipy.sparse as sp
    >>> star = sp.csc_matrix(np.eye(4) + np.pad(np.ones((1, 3)), ((0, 3), (1, 0)))
    ...                      + np.pad(np.ones((3, 1)), ((1, 0), (0, 3))))
    >>> int(ldl_fill_order(star)[-1])  # the centre last: no fill
    0
    """
    P = _fill_pattern(A)
    n = P.shape[0]
    try:
        ilu = spla.spilu(P, drop_tol=1e300, fill_factor=1, permc_spec="MMD_AT_PLUS_A",
                         diag_pivot_thresh=0.0, options=dict(SymmetricMode=True, Equil=False))
        perm = np.asarray(ilu.perm_c)
        del ilu
    except RuntimeError:  # pragma: no cover - a dominant diagonal does not fail
        perm = np.arange(n)
    order = np.empty(n, dtype=np.int64)
    order[perm] = np.arange(n)  # order[new] = old
    return order


def ldl_fill_entries(A, cap: int | None = None, *, order=None) -> int | None:
    r"""Entries of L and U (diagonals included, as SuperLU stores them) of the sparse
    :math:`LDL^T` proof (:func:`sparse_ldl_lower_bound`) of a matrix of ``A``'s pattern, from
    the pattern alone, before anything is factorized; ``None`` once the count passes ``cap``
    (it stops there: its cost is bounded by the cap, the ordering's is not).

    The columns are taken in ``order`` (:func:`ldl_fill_order`, SuperLU's minimum-degree
    order of :math:`A + A^T`, computed here when not given). With diagonal pivots, L has the
    pattern of the Cholesky factor of the reordered :math:`A + A^T` (its diagonal added), and
    U that of :math:`L^T`: twice the symbolic count (:func:`_symbolic_fill`; the proof checks
    that only diagonal pivots were taken, and an off-diagonal pivot gives no proof). A
    diagonal absent from ``A``'s pattern is counted as present, so the count is never below
    SuperLU's for a matrix whose pattern lies in ``A``'s, factorized in that order (or
    ``A[order][:, order]`` with ``permc_spec="NATURAL"``).

    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csc_matrix(4 * np.eye(5) + np.diag(np.ones(4), 1) + np.diag(np.ones(4), -1))
    >>> ldl_fill_entries(A)  # a path: no fill, L and U each 5 + 4 entries
    18
    >>> ldl_fill_entries(sp.csc_matrix(np.ones((40, 40)) + 40 * np.eye(40)), cap=100) is None
    True
    """
    P = _fill_pattern(A)
    n = P.shape[0]
    order = ldl_fill_order(A) if order is None else np.asarray(order, dtype=np.int64)
    if order.shape != (n,):
        raise ValueError(f"order must hold the {n} rows of A once each; got shape {order.shape}")
    lower = sp.tril(P[order][:, order], k=-1, format="csr")
    half_cap = -1 if cap is None else int(cap) // 2
    count = _symbolic_fill(lower.indptr.astype(np.int64), lower.indices.astype(np.int64), n,
                           half_cap if half_cap >= 0 else np.iinfo(np.int64).max)
    return None if count < 0 else 2 * int(count)


def _sparse_factor_fit(A, order=None) -> tuple[int | None, int, int | None, str]:
    """``(entries, cap, have, where)``: the factor entries of ``A``'s sparse :math:`LDL^T`
    proof (columns in ``order``, :func:`ldl_fill_entries`), -1 where nothing was counted (no
    limit could be read, or even a full factor fits: :func:`ldl_memory_estimate`) and None
    where they pass ``cap``, the entries that fit in the ``have`` bytes ``where``
    (:func:`dpgraph.memory.memory_limit`)."""
    A = sp.csc_matrix(A)
    have, where = memory_limit()
    if have is None:
        return -1, 0, None, where
    n = int(A.shape[0])
    fixed = 40 * int(A.nnz) + 64 * n
    cap = max(have - fixed, 0) // SPARSE_FACTOR_ENTRY_BYTES
    if ldl_memory_estimate(n, A.nnz) <= have:
        return -1, cap, have, where
    return ldl_fill_entries(A, cap=cap, order=order), cap, have, where


def check_sparse_factor_memory(A, *, what: str, alternative: str = "", order=None) -> int:
    """Refuse, before SuperLU allocates, a sparse :math:`LDL^T` proof whose factors
    (:func:`ldl_fill_entries`, at :data:`SPARSE_FACTOR_ENTRY_BYTES` each, plus 40 bytes per
    entry of ``A`` and 64 per row) would not fit in the available memory, naming the factor entries that would;
    returns the factor entries counted (-1 where nothing was counted: no limit could be read,
    or even a full factor fits, :func:`ldl_memory_estimate`). The count stops where the limit
    is passed: its cost past the ordering is bounded by the memory that is there. ``order``:
    the columns' order (:func:`ldl_fill_order`, computed when needed if not given), that of
    the factorizations that follow.

    >>> import os, numpy as np, scipy.sparse as sp
    >>> from unittest import mock
    >>> A = sp.csc_matrix(np.ones((300, 300)) + 300 * np.eye(300))   # a full factor
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "2M"}):
    ...     try:
    ...         check_sparse_factor_memory(A, what="a proof")
    ...     except MemoryError as exc:
    ...         print(str(exc)[:63])
    a proof: its L and U factors, counted from the matrix's pattern
    """
    entries, cap, have, where = _sparse_factor_fit(A, order)
    if entries is not None:
        return entries
    raise InsufficientMemoryError(
        f"{what}: its L and U factors, counted from the matrix's pattern before factorizing, "
        f"hold more than the {cap:,} entries ({SPARSE_FACTOR_ENTRY_BYTES} bytes each) that fit "
        f"in the {format_bytes(have)} {where} (nothing was allocated)."
        + (f" {alternative}" if alternative else ""))


def sparse_factor_note(A, *, order=None) -> str:
    """``""`` where the sparse :math:`LDL^T` proof of a matrix of ``A``'s pattern, its columns
    in ``order`` (:func:`ldl_fill_order` if not given), fits
    (:func:`check_sparse_factor_memory`), else why not, for an ``"auto"`` certificate that
    takes another proof: ``"the sparse LDL^T certificate's factors hold more than the ... entries
    that fit in the ... available ..."``.

    >>> import os, numpy as np, scipy.sparse as sp
    >>> from unittest import mock
    >>> A = sp.csc_matrix(np.ones((300, 300)) + 300 * np.eye(300))
    >>> sparse_factor_note(sp.eye_array(300, format="csc"))
    ''
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "2M"}):
    ...     print(sparse_factor_note(A)[:53])
    the sparse LDL^T certificate's factors hold more than
    """
    entries, cap, have, where = _sparse_factor_fit(A, order)
    if entries is not None:
        return ""
    return (f"the sparse LDL^T certificate's factors hold more than the {cap:,} entries "
            f"({SPARSE_FACTOR_ENTRY_BYTES} bytes each) that fit in the {format_bytes(have)} {where}")


def verified_lambda_max(S: np.ndarray, mu: float, exact_top=None, *,
                        attempts: int = 9) -> tuple[float, float]:
    r"""A proven upper bound on ``lambda_max(S)`` for a dense symmetric ``S``, near ``mu``.

    Tries ``mu' = mu + slack + 2c`` with growing ``slack`` and Rump's rounding margin ``c``
    (:func:`rump_margin`) until a Cholesky factorization of ``(mu' - c) I - S`` succeeds, which
    proves ``mu' I - S`` positive definite despite rounding. After the first failure ``mu`` is
    raised to ``exact_top()`` (e.g. LAPACK's top eigenvalue) when that is given. Returns
    ``(mu', c)``; raises ``RuntimeError`` after ``attempts`` failures (a factor with a
    non-finite diagonal, as a NaN anywhere in ``S`` gives, counts as one). Used by the Max-Cut
    and the Max-2-CSP certificates.

    The diagonal factorised is ``fl(fl(mu' - c) - S_ii)``, rounded to nearest, while Rump's
    theorem needs it at most ``a_ii - c`` exactly: the proof is completed after the
    factorization from the diagonal actually factorised, ``d``
    (:func:`rump_certified_diagonal`: ``b >= d + c`` floats with ``c`` checked against the
    margin of ``tr Diag(b)``), which proves ``A = -S + Diag(b)`` (S's off-diagonal entries, the
    triangle the factorization read) positive definite; the returned ``mu'`` is then the next
    float above ``max_i fl(S_ii + b_i)``, so ``mu' I - S = A + Diag(mu' - S_ii - b_i)`` with a
    non-negative diagonal term: ``mu' > lambda_max``. It differs from ``mu + slack + 2c`` by a
    few units of roundoff of ``max |S_ii|``. For an ``S`` symmetric only up to rounding the
    statement is about the symmetric matrix of S's diagonal and lower triangle (the one LAPACK
    reads); the callers add :math:`\sum_{i<j}|S_{ij} - S_{ji}|` to their bounds for it.

    >>> import numpy as np
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])  # eigenvalues 1 and 3
    >>> mu, c = verified_lambda_max(S, 3.0)
    >>> bool(3.0 < mu < 3.0 + 1e-9)
    True
    """
    n = S.shape[0]
    dS = np.array(np.diagonal(S), dtype=np.float64)
    trS = math.fsum(dS.tolist()) if np.all(np.isfinite(dS)) else float("nan")  # rounded once
    if not (np.isfinite(mu) and np.isfinite(trS)):
        raise RuntimeError(f"could not verify the upper bound on lambda_max: mu ({mu}) and the "
                           f"trace of S ({trS}) must be finite")
    for tries in range(attempts):
        slack = 1e-12 * max(1.0, abs(mu)) * (10 ** tries)
        c = _rump_margin(n, n * (abs(mu) + slack) - trS)
        c = _rump_margin(n, n * (abs(mu) + slack + 2 * c) - trS)
        mu_try = mu + slack + 2 * c
        A = -S
        A[np.diag_indices(n)] += mu_try - c
        factored = np.array(np.diagonal(A))  # the diagonal factorised (potrf overwrites it)
        try:
            L = sla.cholesky(A, lower=True, overwrite_a=True, check_finite=False)
            # OpenBLAS's potrf lets a NaN pivot pass; any NaN or inf in S reaches the
            # factor's diagonal, so a non-finite diagonal is a failure, not a proof.
            if np.all(np.isfinite(np.diagonal(L))):
                b = rump_certified_diagonal(factored, c)
                if b is not None:  # -S + Diag(b) > 0 proven; b_i <= mu' - S_ii below
                    return math.nextafter(float(np.max(dS + b)), math.inf), c
        except np.linalg.LinAlgError:
            pass
        del A
        if tries == 0 and exact_top is not None:
            mu = max(mu, exact_top())
    raise RuntimeError("could not verify the upper bound on lambda_max (Cholesky kept failing)")


def _symmetric_lu(M, permc_spec: str = "MMD_AT_PLUS_A"):
    """SuperLU's symmetric-mode factorisation of M (diagonal pivots preferred) with its columns
    in the order ``permc_spec`` (``"NATURAL"``: M's own, for M already reordered by
    :func:`ldl_fill_order`), or None when a pivot is exactly zero."""
    try:
        return spla.splu(sp.csc_matrix(M), permc_spec=permc_spec, diag_pivot_thresh=0.0,
                         options=dict(SymmetricMode=True, Equil=False))
    except RuntimeError:  # exactly singular pivot
        return None


def _gamma(k: int) -> float:
    r"""Higham's :math:`\gamma_k = k u / (1 - k u)` for the unit roundoff u."""
    return k * _EPS / (1 - k * _EPS)


def sparse_ldl_lower_bound(A, *, permc_spec: str = "MMD_AT_PLUS_A") -> tuple[float | None, int]:
    r"""A proven lower bound on :math:`\lambda_{\min}(A)` for a symmetric sparse A (for one
    symmetric only up to rounding, on its symmetric part: the row sums of
    :math:`|A - A^T| / 2` are added), from SuperLU's symmetric-mode factorisation
    (minimum-degree ordering on the pattern of A + A^T, diagonal pivots only, no
    equilibration), and the factors' nonzeros; ``None``
    for the bound when a pivot is not positive, an off-diagonal pivot was taken, or a value is
    not finite. ``permc_spec="NATURAL"`` factorizes A in its own order: for an A already
    reordered by :func:`ldl_fill_order` (:math:`\lambda_{\min}` does not change), which
    saves SuperLU the ordering on every factorization of one pattern. The factors then agree
    with those of the ordering inside SuperLU up to rounding (the elimination visits the rows
    in another order), and the bound below holds for either.

    SuperLU computes :math:`P A P^T + \Delta A = \hat L \hat U` with a unit lower
    :math:`\hat L`. Gaussian elimination in floating point, whatever the order of its
    operations (blocked, supernodal, with fused multiply-adds), gives
    :math:`|\Delta A| \le \gamma_n |\hat L||\hat U|` (N. J. Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., Thm 9.3 and Sec. 13.1). With the pivots
    :math:`D = \mathrm{Diag}(\hat U) > 0`, :math:`\hat L D \hat L^T` is positive definite as an
    exact matrix of floats (Sylvester), and

    .. math:: R = P A P^T - \hat L D \hat L^T = -\Delta A + \hat L (\hat U - D \hat L^T)

    is symmetric, so (Weyl) :math:`\lambda_{\min}(A) > -\|R\|_2 \ge -\|R\|_\infty` with

    .. math:: \|R\|_\infty \le \max_i \big[\gamma_n |\hat L||\hat U| 1
              + |\hat L|\,|\hat N| 1 + \gamma_2 |\hat L| (|\hat U_s| 1 + |D| |\hat L_s|^T 1)\big]_i,

    :math:`\hat N = fl(\hat U_s - D \hat L_s^T)` on the strict triangles :math:`\hat U_s,
    \hat L_s` (each entry within :math:`\gamma_2 (|\hat U| + |D \hat L^T|)` of the exact
    difference; the diagonal of :math:`\hat U - D \hat L^T` is exactly 0). Every term is a sum of
    nonnegative products, evaluated entry by entry over the factors in blocks of
    :data:`LDL_RESIDUAL_BLOCK` (one more copy of :math:`\hat U`, by rows; never the product
    :math:`\hat L D \hat L^T`, which costs as much as the factorisation several times over:
    on the 2-CSP relaxation at n = 10,000, 44.8M factor entries, the proof adds 3.8 s to a
    19.4 s certificate and 0.3 GB to a 1.2 GB peak); evaluated sums of at most :math:`2n + 8` roundings fall short of the exact ones by at
    most a factor :math:`1 - \gamma_{2n+8}`, which the bound divides out, and a term of
    :math:`8 n (n + 4)` smallest normal numbers covers underflow. Unlike Rump's criterion
    (:func:`rump_margin`), which is proved for Cholesky only, this holds for the :math:`LDL^T`
    SuperLU computes.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> lb, nnz = sparse_ldl_lower_bound(sp.csc_matrix([[2.0, -1.0], [-1.0, 2.0]]))
    >>> bool(-1e-12 < lb < 1.0)  # lambda_min = 1: a proven bound below it, near -0
    True
    >>> sparse_ldl_lower_bound(sp.csc_matrix([[1.0, 2.0], [2.0, 1.0]]))[0] is None
    True
    """
    A = sp.csc_matrix(A, dtype=np.float64)
    n = A.shape[0]
    if not np.all(np.isfinite(A.data)):
        return None, 0
    lu = _symmetric_lu(A, permc_spec)
    if lu is None:
        return None, 0
    if not np.array_equal(lu.perm_r, lu.perm_c):
        return None, 0  # an off-diagonal pivot was taken: the inertia is not read off U
    L = lu.L  # CSC, its unit diagonal stored
    U = lu.U.tocsr()  # by rows, to pair U_kj with L_jk (column k of L) block by block
    nnz = int(L.nnz + U.nnz)
    d = U.diagonal()
    finite = np.all(np.isfinite(L.data)) and np.all(np.isfinite(U.data))
    if not (finite and np.all(d > 0)):
        return None, nnz
    w = _residual_weights(L, U, d)
    rows = np.zeros(n)
    for k0, k1 in _column_blocks(L.indptr):  # rows = |L| w
        p0, p1 = L.indptr[k0], L.indptr[k1]
        k = np.repeat(np.arange(k0, k1), np.diff(L.indptr[k0:k1 + 1]))
        rows += np.bincount(L.indices[p0:p1], weights=np.abs(L.data[p0:p1]) * w[k], minlength=n)
    # ||R||_inf (in the factors' order) plus ||A - A^T||_inf / 2 (in A's)
    bound = ((float(np.max(rows, initial=0.0)) + float(np.max(_half_asymmetry_rows(A), initial=0.0)))
             / (1 - _gamma(2 * n + 8)) + 8 * n * (n + 4) * np.finfo(float).tiny)
    if not np.isfinite(bound):
        return None, nnz
    return -bound, nnz


def _half_asymmetry_rows(A) -> np.ndarray:
    r"""Row sums of ``|A - A^T| / 2``: 0 for an exactly symmetric ``A``. For one symmetric only
    up to rounding the bound is on its symmetric part ``(A + A^T) / 2``, whose residual
    ``sym R`` has :math:`\|sym R\|_2 \le \|R\|_\infty + \|A - A^T\|_\infty / 2`."""
    skew = A - A.T
    if skew.nnz == 0:
        return np.zeros(A.shape[0])
    return 0.5 * np.asarray(abs(skew).sum(axis=1)).ravel()


#: Factor entries per block of :func:`sparse_ldl_lower_bound`'s passes (bounded temporaries)
LDL_RESIDUAL_BLOCK = 1 << 20


def _column_blocks(indptr: np.ndarray):
    """``(k0, k1)`` ranges of columns holding about :data:`LDL_RESIDUAL_BLOCK` entries each."""
    n = indptr.size - 1
    k0 = 0
    while k0 < n:
        k1 = int(np.searchsorted(indptr, indptr[k0] + LDL_RESIDUAL_BLOCK, side="right")) - 1
        k1 = min(max(k1, k0 + 1), n)
        yield k0, k1
        k0 = k1


def _residual_weights(L, U, d: np.ndarray) -> np.ndarray:
    r"""``w`` with :math:`|\hat L| w` the rows of :func:`sparse_ldl_lower_bound`'s bound:
    :math:`w_k = \gamma_n (|U| 1)_k + (|N| 1)_k + \gamma_2 ((|U_s| 1)_k + d_k (|L_s|^T 1)_k)`
    for ``L`` by columns and ``U`` by rows, ``N = U - D L^T`` entry by entry (``U_kj`` and
    ``d_k L_jk`` paired by their key ``(k, j)``; its diagonal ``d_k - d_k * 1`` is exactly 0),
    one block of ``k`` at a time."""
    n = d.size
    w = np.empty(n)
    L.sort_indices()
    U.sort_indices()
    same = np.array_equal(L.indptr, U.indptr) and np.array_equal(L.indices, U.indices)
    for k0, k1 in _column_blocks(L.indptr):
        size = k1 - k0
        ku = np.repeat(np.arange(k0, k1), np.diff(U.indptr[k0:k1 + 1]))
        ju, u = U.indices[U.indptr[k0]:U.indptr[k1]], U.data[U.indptr[k0]:U.indptr[k1]]
        kl = np.repeat(np.arange(k0, k1), np.diff(L.indptr[k0:k1 + 1]))
        jl, lv = L.indices[L.indptr[k0]:L.indptr[k1]], L.data[L.indptr[k0]:L.indptr[k1]]
        dl = d[kl] * lv
        if same:  # the same pattern: U_kj and L_jk at the same position
            n_rows = np.bincount(ku - k0, weights=np.abs(u - dl), minlength=size)
        else:  # SciPy's factors may differ by a few entries of rounding size: pair by key
            key_u, key_l = ku.astype(np.int64) * n + ju, kl.astype(np.int64) * n + jl
            at = np.minimum(np.searchsorted(key_u, key_l), key_u.size - 1)  # keys sorted
            paired = key_u[at] == key_l
            N_u = u.copy()
            N_u[at[paired]] -= dl[paired]  # U_kj - d_k L_jk where both are stored
            n_rows = (np.bincount(ku - k0, weights=np.abs(N_u), minlength=size)
                      + np.bincount(kl[~paired] - k0, weights=np.abs(dl[~paired]),
                                    minlength=size))
        u_abs = np.abs(u)
        u_rows = np.bincount(ku - k0, weights=u_abs, minlength=size)
        u_strict = np.bincount(ku - k0, weights=np.where(ju != ku, u_abs, 0.0), minlength=size)
        l_strict = np.bincount(kl - k0, weights=np.where(jl != kl, np.abs(lv), 0.0),
                               minlength=size)
        w[k0:k1] = (_gamma(n) * u_rows + n_rows
                    + _gamma(2) * (u_strict + d[k0:k1] * l_strict))
    return w


def sparse_shift_verified(negM, mu: float, shift: float, *,
                          permc_spec: str = "MMD_AT_PLUS_A") -> tuple[bool, int]:
    r"""Whether :math:`\mu I - M` is proven positive definite for the sparse symmetric ``negM``
    :math:`= -M` (exact as stored) by a factorisation of :math:`A = fl(-M + \mathrm{shift}\, I)`
    (columns ordered by ``permc_spec``, as in :func:`sparse_ldl_lower_bound`), and the
    factors' nonzeros.

    With a proven :math:`\lambda_{\min}(A) \ge \ell` (:func:`sparse_ldl_lower_bound`) and the
    stored diagonal's rounding :math:`|E_{ii}| \le 2u |A_{ii}|`,
    :math:`\mu I - M = A - E + (\mu - \mathrm{shift}) I \succeq (\ell - \max|E| + \mu -
    \mathrm{shift}) I`; the check asks this to be positive with the rounding of its own few
    operations allowed for. ``shift`` below ``mu`` by a margin (the callers use twice Rump's
    :func:`rump_margin`, far above the bound's terms) leaves room for the proof.

    >>> import numpy as np, scipy.sparse as sp
    >>> negM = sp.csc_matrix([[-1.0, 1.0], [1.0, -1.0]])  # M's eigenvalues: 0 and 2
    >>> sparse_shift_verified(negM, 2.0 + 2e-6, 2.0 + 1e-6)[0], sparse_shift_verified(negM, 1.9, 1.9 - 1e-6)[0]
    (True, False)
    """
    negM = sp.csc_matrix(negM, dtype=np.float64)
    n = negM.shape[0]
    A = (negM + sp.diags_array(np.full(n, float(shift)), format="csc")).tocsc()
    lower, nnz = sparse_ldl_lower_bound(A, permc_spec=permc_spec)
    if lower is None:
        return False, nnz
    stored = 2 * _EPS * float(np.max(np.abs(A.diagonal()), initial=0.0))
    gap = (mu - shift) * (1 - 2 * _EPS)  # the exact gap is at least this (one rounding)
    return bool(gap > (stored - lower) * (1 + 8 * _EPS)), nnz


def _sparse_inertia_bound(op: WeightOperator, g: np.ndarray, nu: float, rel: float = 0.02,
                          deadline: float | None = None, target: float = 0.0, guess=None,
                          entry_budget: float | None = None, order=None):
    r"""Smallest (to ``rel``, or to ``target`` absolute) mu with :math:`\mu I - M` proven
    positive definite, M sparse. Returns ``(mu, c, capped, stats)``, ``stats`` a dict with
    ``factorizations``, ``ldl_nnz_factor`` (entries of L and U of one factorization) and
    ``fill_capped``.

    Bisection on mu using sparse LDL^T factorisations of :math:`(\mu - 2c) I - M`, each proof
    by :func:`sparse_shift_verified` (the gap 2c, c Rump's margin for the trace). Since
    :math:`\mathrm{tr}(V^TMV) = 0`, :math:`\lambda_{\max}(M) \ge 0`, so the search starts at 0:
    first mu = 1e-5 of ``max |g|`` (1e-3 with a deadline; or ``target`` if larger) -- or, given ``guess = (theta, r)`` from a short
    Lanczos run, just above theta, then ``theta + r`` -- and up by 32x until one is verified, then
    bisection (geometric while ``hi > 8 lo``) until ``hi - lo <= max(rel * hi, target)``. With a ``deadline`` the bisection stops
    there (``capped``: the verified ``hi`` is returned, a looser but rigorous bound); the search
    for a first verified shift may run past the deadline up to ten times its length, then
    raises :class:`_Deadline`.

    Every shift's matrix has the off-diagonal pattern of M: all are factorized in one column
    order, ``order`` (:func:`ldl_fill_order` of M's pattern, computed here once when not
    given; SuperLU's own), M reordered by it once and each shift factorized in its own order
    (``permc_spec="NATURAL"``), so that SuperLU does not order it again.

    ``entry_budget`` bounds the work without a clock: every factorization has the same order
    and the same number F of factor entries (fewer where a diagonal entry cancels exactly; the
    largest seen is used), known after the first. The bisection takes another factorization
    only while the k done so far plus it hold at most ``entry_budget`` entries,
    :math:`(k + 1) F \le` ``entry_budget``, and otherwise returns the verified ``hi``
    (``fill_capped``; rigorous, looser). The search for a first verified shift is not cut
    short (the proof needs one); it climbs by 32x, so it takes at most about
    :math:`\log_{32}(10\, n \max|g| / \mu_0)` factorizations.
    """
    n = op.n
    if nu != 0.0:
        raise ValueError("the sparse factor certificate does not support a balance multiplier; "
                         "use method='lanczos' or 'factor' with n <= 4000")
    t_start = time.perf_counter()
    Wc = sp.csc_matrix(op.W)
    if op.has_diag:
        Wc = Wc - sp.diags_array(op.diag, format="csc")
    negM = sp.csc_matrix(Wc - sp.diags_array(g, format="csc"))  # -M
    del Wc
    order = ldl_fill_order(negM) if order is None else order
    negM = sp.csc_matrix(negM[order][:, order])  # the same spectrum, factorized in this order
    trM = float(g.sum())
    scale = max(float(np.max(np.abs(g))), 1e-300)

    stats = {"factorizations": 0, "ldl_nnz_factor": 0, "fill_capped": False}

    def verified(mu):
        c = _rump_margin(n, n * (abs(mu) + 1.0) - trM)
        ok, nnz = sparse_shift_verified(negM, mu, mu - 2 * c, permc_spec="NATURAL")
        stats["factorizations"] += 1
        stats["ldl_nnz_factor"] = max(stats["ldl_nnz_factor"], int(nnz))
        return ok, c

    # lambda_max(M) of a converged low-rank iterate was 3e-6 to 7e-5 of max |g| on the G-set
    # (1e-3 to 4e-3 at tol 1e-3): start there; with a deadline start generously (1e-3 of it) so
    # that the first factorization usually verifies, and let the rest of the budget tighten it
    lo, hi = 0.0, max((1e-5 if deadline is None else 1e-3) * scale, float(target))
    if guess is not None and not (guess[0] > 0 and guess[1] <= 0.5 * guess[0]):
        guess = None  # not converged (the top of M's spectrum is a cluster near 0): no use
    if guess is not None:  # (theta, residual) of a short Lanczos run: theta <~ lambda_max
        theta, resid = guess
        lo = theta * (1.0 - 1e-6)  # only steers the search; rigour comes from the LDL^T check
        hi = max(hi, theta + max(float(target), 1e-3 * theta))
    ok, c_hi = verified(hi)
    first = guess is not None
    while not ok:
        lo = hi
        hi = max(2.0 * hi, guess[0] + guess[1]) if first else 32.0 * hi
        first = False
        if hi > 10 * scale * n:
            raise RuntimeError("sparse certificate: could not verify any shift")
        if deadline is not None:
            now = time.perf_counter()
            if now > deadline and now - t_start > 10.0 * (deadline - t_start):
                raise _Deadline
        ok, c_hi = verified(hi)
    capped = False
    while hi - lo > max(rel * hi, float(target)):
        if deadline is not None and time.perf_counter() > deadline:
            capped = True
            break
        if (entry_budget is not None
                and (stats["factorizations"] + 1) * stats["ldl_nnz_factor"] > entry_budget):
            stats["fill_capped"] = True
            break
        mid = math.sqrt(lo * hi) if lo > 0 and hi > 8 * lo else 0.5 * (lo + hi)
        ok, c = verified(mid)
        if ok:
            hi, c_hi = mid, c
        else:
            lo = mid
    return hi, c_hi, capped, stats


def _lanczos_estimate(mv, n: int, gen, steps: int = 40, deadline: float | None = None):
    """Top Ritz value and its residual norm after ``steps`` Lanczos steps with full
    reorthogonalisation (no restarts; a cheap estimate, not a bound). ``(theta, residual)``."""
    m = int(min(steps, n, max(2, 4_000_000 // max(n, 1))))  # basis memory <= 32 MB
    Q = np.zeros((n, m))
    alpha, beta = np.zeros(m), np.zeros(m)
    q = gen.standard_normal(n)
    q /= np.linalg.norm(q)
    k = 0
    for k in range(m):
        if deadline is not None and time.perf_counter() > deadline and k >= 2:
            break
        Q[:, k] = q
        w = np.asarray(mv(q), dtype=np.float64)
        alpha[k] = float(q @ w)
        w -= Q[:, :k + 1] @ (Q[:, :k + 1].T @ w)
        w -= Q[:, :k + 1] @ (Q[:, :k + 1].T @ w)
        beta[k] = float(np.linalg.norm(w))
        if beta[k] <= 1e-14 * max(1.0, abs(alpha[k])):
            break
        q = w / beta[k]
    k += 1
    T = np.diag(alpha[:k]) + np.diag(beta[:k - 1], 1) + np.diag(beta[:k - 1], -1)
    w_, S = np.linalg.eigh(T)
    return float(w_[-1]), float(abs(beta[k - 1] * S[-1, -1]))


def _span_top_vector(V: np.ndarray, g: np.ndarray, WV: np.ndarray, block: int = 8192):
    r"""The top Ritz vector of the dual matrix M on span(V), a unit n-vector (None if it is
    not finite): Rayleigh-Ritz with :math:`V^TMV = V^T\mathrm{Diag}(g)V - V^TWV` (``WV`` the
    product :func:`_certify` already holds, :math:`(W + \nu J)V`), so no product with W and
    no n x k array beyond row blocks of ``block``. At an SDP optimum M's top eigenspace is
    spanned by V's columns (complementary slackness, :math:`MV = 0`); on soc-douban and a
    random 3-regular graph the top eigenvector lay 0.999 and 0.95 in span(V) (on email-Enron,
    whose iterate is further from optimal, 0.002). The Gram matrix :math:`V^TV` may be
    singular (a rank-deficient optimum): its directions below 1e-10 of the largest are dropped.
    """
    k = V.shape[1]
    H = np.zeros((k, k))
    for a in range(0, V.shape[0], block):
        Vb = V[a:a + block]
        H += (Vb * g[a:a + block, None]).T @ Vb
    H -= V.T @ WV
    H = 0.5 * (H + H.T)
    # scaled by a power of two to norm ~1 (exactly): the vector does not change with the
    # weights' scale; at most 2^1021, which stays finite where H is 0 (no weights) or subnormal
    H *= math.ldexp(1.0, min(-math.frexp(max(float(np.max(np.abs(H), initial=0.0)), _ETA))[1],
                             1021))
    s, U = np.linalg.eigh(V.T @ V)
    keep = s > 1e-10 * s[-1]
    T = U[:, keep] / np.sqrt(s[keep])
    _, Y = np.linalg.eigh(T.T @ H @ T)
    x = V @ (T @ Y[:, -1])
    nrm = float(np.linalg.norm(x))
    return x / nrm if nrm > 0 and math.isfinite(nrm) else None


#: Most steps of each pass of :func:`lanczos_top_pair` (the ``"lanczos"`` certificates): at
#: most ``2 * LANCZOS_MAX_STEPS`` products in all. soc-douban (154,908 nodes) took 4,800 steps
#: from a random start, 2,700 from the start on span(V).
LANCZOS_MAX_STEPS = 20_000


def lanczos_top_pair(mv, n: int, gen, *, tol: float, max_steps: int = LANCZOS_MAX_STEPS,
                     check: int = 25, start=None) -> tuple[float, float, int]:
    r"""Top Ritz pair of a symmetric operator by the unrestarted Lanczos recurrence: three
    terms, no reorthogonalisation, O(n) memory. Returns ``(theta, residual, products)``:
    ``theta`` the Rayleigh quotient of the unit Ritz vector u and ``residual`` :math:`\|Mu -
    \theta u\|`, both computed from u (so ``theta + residual`` bounds an eigenvalue of M
    whatever happened in the recurrence), and the number of products.

    Every ``check`` steps the tridiagonal matrix's top eigenpair gives the Ritz value and the
    residual estimate :math:`\beta_k |s_k|`; the recurrence stops at the first check where
    the estimate is at most ``tol`` (absolute) and the Ritz value rose by at most ``tol`` since
    the previous check, at an invariant subspace, or after ``max_steps``. The Ritz vector is
    then rebuilt by a second pass of the recurrence from the same start (the same
    floating-point operations, so the same Lanczos vectors): 2 m products for m steps, and
    none of ARPACK's restarts and reorthogonalisations. Without reorthogonalisation the
    Lanczos vectors lose orthogonality only along converged Ritz vectors (Paige), once the
    estimate nears :math:`\epsilon\|M\|`; stopping at the first convergence, far above that,
    comes before any spurious copy of the top eigenvalue.

    Why not ARPACK (``eigsh``, 40 vectors, restarted): near the SDP optimum the top of M's
    spectrum sits in a cluster around 0 with a relative gap of ~1e-5; on email-Enron and
    soc-douban ``eigsh`` did not reach ``tol`` 1e-9 in 300 restarts (on soc-douban not 1e-6
    either, and a random vector's Rayleigh quotient was returned) and spent most of its time
    in its restarts and reorthogonalisations; this recurrence met 1e-9 of the same scale in
    1,175 and 4,800 steps. It gives the Max-Cut ``"lanczos"`` certificate its bound and the
    Max-2-CSP certificate (:func:`dpgraph.engine.twocsp_sdp.certify_label_sdp`) its
    ``"lanczos"`` bound and the guess its Cholesky and :math:`LDL^T` checks start from (where
    ARPACK converged there, it took 2-21x longer to the same tolerance).

    ``start`` (a unit vector, optional) is added to the random start vector with equal
    weight: a guess of the top eigenvector (:func:`_span_top_vector`) speeds the recurrence
    up where it is good (soc-douban: 2,700 steps instead of 4,800) while the random half keeps
    a component along every eigenvector, as a random start does.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> n = 100  # tridiag(-1, 2, -1): lambda_max = 2 + 2 cos(pi / (n + 1))
    >>> M = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    >>> theta, resid, products = lanczos_top_pair(lambda x: M @ x, n, np.random.default_rng(0),
    ...                                           tol=1e-10)
    >>> bool(abs(theta - (2 + 2 * np.cos(np.pi / (n + 1)))) < 1e-12), bool(resid < 1e-10)
    (True, True)
    """
    v0 = gen.standard_normal(n)
    v0 /= np.linalg.norm(v0)
    if start is not None:
        v0 += start
        v0 /= np.linalg.norm(v0)

    def step(q, q_prev, b_prev):
        w = np.array(mv(q), dtype=np.float64)
        a = float(q @ w)
        w -= a * q
        if q_prev is not None:
            w -= b_prev * q_prev
        return w, a

    alpha, beta = [], []
    q_prev, q, b_prev = None, v0, 0.0
    s, theta_prev, done, tnorm = None, -np.inf, False, _ETA
    while not done:
        w, a = step(q, q_prev, b_prev)
        b = float(np.linalg.norm(w))
        alpha.append(a)
        beta.append(b)
        m = len(alpha)
        tnorm = max(tnorm, abs(a), b)
        breakdown = not b > 1e-14 * (abs(a) + b_prev)  # an invariant subspace (or not finite)
        if breakdown or m % check == 0 or m >= max_steps:
            # T scaled by a power of two to norm ~1 (exactly): LAPACK's bisection has absolute
            # thresholds, and the pair must scale with the weights (WEIGHT_UNIT_INFO); at most
            # 2^1021, which stays finite where T is 0 (M = 0: tnorm is _ETA) or subnormal
            c = math.ldexp(1.0, min(-math.frexp(tnorm)[1], 1021))
            th, S = sla.eigh_tridiagonal(c * np.array(alpha), c * np.array(beta[:-1]),
                                         select="i", select_range=(m - 1, m - 1))
            s, th = S[:, 0], float(th[0]) / c
            done = (breakdown or m >= max_steps
                    or (abs(b * s[-1]) <= tol and th - theta_prev <= tol))
            theta_prev = th
        if not done:
            q_prev, q, b_prev = q, w / b, b
    # second pass: the same Lanczos vectors again, summed into u = sum_k s_k q_k
    u = s[0] * v0
    q_prev, q, b_prev = None, v0, 0.0
    for k in range(m - 1):
        w, _ = step(q, q_prev, b_prev)
        q_prev, q, b_prev = q, w / beta[k], beta[k]
        u += s[k + 1] * q
    u /= np.linalg.norm(u)
    Mu = np.asarray(mv(u), dtype=np.float64)
    theta = float(u @ Mu)
    return theta, float(np.linalg.norm(Mu - theta * u)), 2 * m


#: Order up to which :func:`top_ritz_pair` factors an explicit matrix densely where ARPACK
#: fails (an n x n float array: 32 MB at 2,000)
DENSE_RITZ_MAX_N = 2000


def _dense_ritz_fits(n: int) -> bool:
    """Whether the dense fallback of :func:`top_ritz_pair` fits in memory: the n x n copy, its
    eigenvectors and LAPACK's workspace (three n x n float64 arrays). Where it does not, the
    start vector's Rayleigh quotient stands in (post-processing: no refusal this late)."""
    from dpgraph.memory import InsufficientMemoryError

    try:
        check_memory(3 * 8 * n * n, what=f"a dense Ritz pair at n = {n:,}")
    except InsufficientMemoryError:
        return False
    return True


def top_ritz_pair(A, gen, *, n: int | None = None, shift: float | None = None, tol: float = 1e-9,
                  maxiter: int = 300, strict: bool = False,
                  dense: bool = False) -> tuple[float, float]:
    """Top Ritz value ``theta`` of a symmetric operator and the residual norm ``||A u - theta u||``
    of its unit Ritz vector ``u``: ``theta + residual`` bounds ``lambda_max(A)`` up to the
    Ritz-pair error: the guess of the dense Max-Cut certificate, and of every certificate up
    to order 300 (above it the ``"lanczos"`` and 2-CSP guesses take :func:`lanczos_top_pair`).

    ``A`` is a symmetric (sparse) matrix, or a matvec ``x -> A x`` with its order ``n``. Up to
    order 300 the dense eigendecomposition is used (cheaper than ARPACK): an explicit matrix is
    factored as given and ``theta`` is its Rayleigh quotient at ``u``; a matvec is assembled
    column by column, symmetrised, and ``theta`` is LAPACK's top eigenvalue. Above, ARPACK runs
    on ``A + shift I`` with ``shift >= ||A||`` (default: the Gershgorin bound of an explicit
    matrix; a matvec needs it given): near the SDP optimum ``lambda_max`` sits in a cluster
    around 0, and the shift makes ARPACK's relative tolerance an absolute one ``~ tol * shift``
    instead of one on a tiny eigenvalue, which would make Lanczos resolve the cluster at great
    cost. The residual is added to the bound anyway. Without convergence a partial Ritz pair is
    used; with none, ``tol`` is relaxed 1000-fold once, then an explicit matrix of order at most
    ``DENSE_RITZ_MAX_N`` is factored densely (``dense=True`` forces that at any order), and
    otherwise the start vector is used (``strict=True``: ARPACK's error is raised instead).
    """
    if callable(A):
        mv, matrix = A, None
    else:
        matrix = A
        mv = lambda x: matrix @ x  # noqa: E731
        n = matrix.shape[0]
    if n <= 300 or dense:
        if matrix is not None:
            w, U = np.linalg.eigh(matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix))
            u = U[:, -1]
            Au = mv(u)
            theta = float(u @ Au)
            return theta, float(np.linalg.norm(Au - theta * u))
        M = np.column_stack([mv(e) for e in np.eye(n)])
        w, U = np.linalg.eigh(0.5 * (M + M.T))
        u = U[:, -1]
        theta = float(w[-1])
    else:
        if shift is None:
            if matrix is None:
                raise ValueError("a matvec needs shift >= ||A|| above order 300")
            shift = float(abs(matrix).sum(axis=1).max())
        sigma = float(shift)
        Op = spla.LinearOperator((n, n), matvec=lambda x: mv(x) + sigma * x, dtype=np.float64)
        v0 = gen.standard_normal(n)
        U = None
        for t in ((tol,) if strict else (tol, 1e3 * tol)):
            try:
                w, U = spla.eigsh(Op, k=1, which="LA", v0=v0, tol=t, ncv=min(n, 40),
                                  maxiter=maxiter)
                break
            except spla.ArpackNoConvergence as exc:
                if strict:
                    raise
                if len(exc.eigenvalues):
                    w, U = exc.eigenvalues, exc.eigenvectors
                    break
            except spla.ArpackError:
                # ARPACK error -9, "starting vector is zero": where the shift dwarfs the
                # spectrum, A + shift I acts as a multiple of I to working precision and the
                # first Lanczos residual vanishes (a 401-order label-CSP dual matrix with shift
                # 1e5). Retrying will not help; the fallbacks below do.
                if strict:
                    raise
                break
        if U is None and matrix is not None and n <= DENSE_RITZ_MAX_N \
                and _dense_ritz_fits(n):  # LAPACK instead
            return top_ritz_pair(matrix.toarray() if hasattr(matrix, "toarray")
                                 else np.asarray(matrix), gen, n=n, dense=True)
        if U is None:  # no Ritz pair at all: the Rayleigh quotient of v0 with its (large) residual
            U = v0[:, None]
        u = U[:, -1] / np.linalg.norm(U[:, -1])
        theta = float(u @ mv(u))
    r = mv(u) - theta * u
    return theta, float(np.linalg.norm(r))
