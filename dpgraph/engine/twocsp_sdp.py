r"""Low-rank (Burer-Monteiro) solver of the degree-2 relaxation of Max-2-CSP, with a certificate.

The relaxation (the standard vector relaxation of a 2-CSP, i.e. the degree-2 moment relaxation
of d'Orsi-Novikov Sec. 7.1 on the label-extended variables :math:`x_{ia} = [x_i = a]` with its
per-variable constraints) asks for vectors :math:`v_0` and :math:`v_{ia}`, :math:`i \in [n]`,
:math:`a \in [q]`, with

.. math::
   |v_0| = 1, \qquad v_{ia}\cdot v_{ib} = 0\ (a \ne b), \qquad \textstyle\sum_a v_{ia} = v_0,

maximising :math:`\tfrac12 \sum_{ia, jb} A_{ia,jb}\, v_{ia}\cdot v_{jb}` for the label-extended
weight matrix A (:meth:`CSPInstance.label_adjacency`; any symmetric matrix with zero
within-variable blocks, signed entries allowed). Its Gram matrix Y is exactly a feasible moment
matrix of size :math:`nq+1`: :math:`Y_{ia,ia} = Y_{0,ia} = |v_{ia}|^2 = p_i(a)`,
:math:`Y_{ia,ib} = 0`, :math:`\sum_a Y_{0,ia} = 1`. (The SCS path of :mod:`.twocsp` can add the
non-negativity :math:`Y_{ia,jb} \ge 0` on constraint blocks; this one does not.)

Parametrisation (constraints kept exactly)
    Fix :math:`v_0 = e_0` (rotation invariance). For each variable, the q vectors are
    :math:`V_i = E_i G_i \,\mathrm{Diag}(G_i[0,:])` with :math:`E_i = [e_0 \mid U_i]`,
    :math:`U_i` a :math:`(k-1)\times(q-1)` matrix with orthonormal columns in
    :math:`e_0^\perp`, and :math:`G_i \in O(q)`. The columns :math:`Q = E_iG_i` are orthonormal,
    :math:`Q^Te_0 = G_i[0,:]`, so :math:`v_{ia} = (q_a\cdot e_0) q_a` are pairwise orthogonal
    with :math:`\sum_a v_{ia} = QQ^Te_0 = e_0` (since :math:`e_0 \in \mathrm{span}\,Q`), and
    :math:`p_i(a) = G_i[0,a]^2`. Every feasible block arises this way (take Q an orthonormal
    basis of the span of the :math:`v_{ia}` completed in a q-space containing :math:`e_0`). The
    search space is the product of Stiefel manifolds :math:`\mathrm{St}(k-1,q-1)^n \times O(q)^n`;
    we run Riemannian gradient ascent with Barzilai-Borwein steps and the non-monotone line
    search of Zhang and Hager, retraction by the polar factor (batched q x q eigendecompositions).
    One iteration costs one product :math:`A\,V_L` with the :math:`nq \times k` factor; the
    moment matrix is never formed.

Certificate (weak duality, as for Max-Cut in :mod:`.sdp`)
    For multipliers :math:`\lambda` of the equality constraints :math:`\mathcal A(Y) = b`
    (:math:`Y_{00} = 1`; :math:`\sum_a Y_{0,ia} = 1`; :math:`Y_{ia,ia} - Y_{0,ia} = 0`;
    :math:`Y_{ia,ib} = 0`) and :math:`S = C - \mathcal A^*\lambda`, every feasible Y has
    :math:`\mathrm{tr}\,Y = n + 1`, so
    :math:`\langle C, Y\rangle = b^T\lambda + \langle S, Y\rangle \le b^T\lambda + (n+1)\lambda_{\max}(S)`.
    :math:`\lambda` is fitted per variable by least squares to the stationarity condition
    :math:`S\,V = 0` (q k equations, :math:`1 + q + q(q-1)/2` unknowns per variable), then
    :math:`\lambda_{00}` from row 0. :math:`\mu \ge \lambda_{\max}(S)` is verified by a
    factorisation of :math:`(\mu - c)I - S` with Rump's margin c: a dense Cholesky for
    :math:`n(q-1) + 1 \le` ``LABEL_DENSE_CERTIFICATE_MAX_N``, a sparse :math:`LDL^T` (SuperLU, minimum-degree
    ordering, diagonal pivots only; Sylvester's law of inertia, with a proven bound on the
    factorisation's residual below the margin) above it -- S is sparse (the
    constraint graph, the per-variable blocks and row 0), and on the random q = 3 family at
    n = 10,000 its factor has 22M nonzeros, against 200M for the dense one. ``"lanczos"`` (a
    Ritz value plus its residual norm, not a proof: Lanczos can miss the top of the spectrum)
    is used only when asked for, or when the sparse factor could not fit in memory.

Rounding (all candidates scored on the objective A)
    argmax of the marginals, independent rounding from :math:`p_i` (Alg. 7.4), vector rounding
    :math:`x_i = \arg\max_a g\cdot v_{ia}` for Gaussian g, and global-correlation rounding
    (Barak-Raghavendra-Steurer; d'Orsi-Novikov Lemma 7.6) with the degree-2 conditionals
    :math:`p_j(b\mid x_s = a) = v_{sa}\cdot v_{jb} / p_s(a)` computed from the factor; then
    best-improvement single-variable local search on the best few.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from dpgraph.privacy.noise import make_rng
from dpgraph.progress import Progress
from dpgraph.memory import available_memory, check_memory
from dpgraph.engine.local_search import jit, numba_available
from dpgraph.engine.sdp import (check_sparse_factor_memory, dense_certificate_bytes, gershgorin_max,
                                lanczos_top_pair, ldl_fill_order, ldl_memory_estimate, rump_margin,
                                sparse_factor_note, sparse_shift_verified,
                                top_ritz_pair, upward_sum, verified_lambda_max)

__all__ = ["LabelSDPSolution", "solve_label_sdp", "certify_label_sdp", "round_label_sdp",
           "label_local_search", "label_values", "default_label_rank", "solve_label_csp",
           "reduced_objective", "cvxpy_label_sdp", "perturbed_local_search",
           "LABEL_DENSE_CERTIFICATE_MAX_N", "ldl_verified_lambda_max", "ldl_memory_estimate",
           "label_tabu_search"]

#: ``certificate="auto"``: dense Cholesky up to this reduced size N = n(q-1) + 1 (S, its shifted
#: copy and LAPACK's workspace: 3 x 338 MB at the cap), the sparse LDL^T above it. Both are
#: rigorous (Rump's margin). The Max-Cut certificate has its own cap on n
#: (:data:`dpgraph.engine.sdp.CUT_DENSE_CERTIFICATE_MAX_N`).
LABEL_DENSE_CERTIFICATE_MAX_N = 6500


def __getattr__(name):
    if name == "FACTOR_MAX_N":  # deprecated name of LABEL_DENSE_CERTIFICATE_MAX_N
        import warnings

        warnings.warn("dpgraph.engine.twocsp_sdp.FACTOR_MAX_N is now LABEL_DENSE_CERTIFICATE_MAX_N",
                      DeprecationWarning, stacklevel=2)
        return LABEL_DENSE_CERTIFICATE_MAX_N
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_label_rank(n: int, q: int) -> int:
    r"""Factor width ``k = min(max(2q + 2, ceil(sqrt(2 n)) + 1), 48)`` (at least q + 1).

    Barvinok-Pataki would ask for :math:`k(k+1)/2` above the number of constraints; the optima
    we measured have far lower rank, and the certificate reports any rank that was too small:
    a factor too narrow leaves a positive top eigenvalue of the dual matrix S however long the
    ascent runs. Measured on the random q = 3 family at n = 10,000 (benchmarks/NOTES.md, Max-2-CSP):
    k = 24 stalls at :math:`\lambda_{\max}(S) \approx 0.010` (relative gap 3.7e-3 after 3,100
    iterations), k = 48 reaches 5e-5 (gap 1.9e-5) in 1,300 iterations, a higher relaxation
    value.
    """
    return int(max(q + 1, min(max(2 * q + 2, math.ceil(math.sqrt(2 * n)) + 1), 48)))


@dataclass
class LabelSDPSolution:
    """Factor of a feasible point of the relaxation and solver diagnostics.

    ``V`` has shape ``(n, q, k)``: ``V[i, a]`` is :math:`v_{ia}` with :math:`v_0 = e_0`.
    """

    V: np.ndarray
    value: float
    iterations: int
    converged: bool
    grad_norm: float
    products: int = 0
    history: list = field(default_factory=list, repr=False)

    @property
    def marginals(self) -> np.ndarray:
        """:math:`p_i(a) = |v_{ia}|^2`, shape (n, q)."""
        return np.einsum("iak,iak->ia", self.V, self.V)


class _LabelOp:
    """The label-extended weights A (sparse or dense), with products on (n, q, k) factors."""

    def __init__(self, A, n: int, q: int):
        N = n * q
        if sp.issparse(A):
            A = sp.csr_array(A, dtype=np.float64)
            dense = False
        else:
            A = np.asarray(A, dtype=np.float64)
            dense = True
        if A.shape != (N, N):
            raise ValueError(f"label weights must have shape ({N}, {N}) for n = {n}, q = {q}; "
                             f"got {A.shape}")
        self.A, self.dense, self.n, self.q, self.N = A, dense, n, q, N
        self.scale = max(float(abs(A).sum()) if not dense else float(np.abs(A).sum()), 1e-300)

    def matmul(self, VL: np.ndarray) -> np.ndarray:
        return self.A @ VL

    def quad(self, Z: np.ndarray) -> np.ndarray:
        """``z^T A z / 2`` for each column of Z (N x s)."""
        return 0.5 * np.einsum("ij,ij->j", Z, self.A @ Z)


def _polar(X: np.ndarray) -> np.ndarray:
    """Batched polar factor ``X (X^T X)^{-1/2}`` of tall matrices (..., m, r), r small."""
    M = np.swapaxes(X, -1, -2) @ X
    w, Q = np.linalg.eigh(M)
    w = np.maximum(w, 1e-300)
    return X @ ((Q / np.sqrt(w)[..., None, :]) @ np.swapaxes(Q, -1, -2))


def _tangent(X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Projection of Z onto the tangent space of the Stiefel manifold at X (batched)."""
    XtZ = np.swapaxes(X, -1, -2) @ Z
    return Z - X @ (0.5 * (XtZ + np.swapaxes(XtZ, -1, -2)))


class _Param:
    """(U, G) -> V and the Riemannian gradient of f(V) = 1/2 <V_L, A V_L>."""

    def __init__(self, op: _LabelOp, k: int):
        self.op, self.k = op, k
        self.products = 0

    def factor(self, U, G):
        n, q, k = self.op.n, self.op.q, self.k
        EG = np.empty((n, k, q))
        EG[:, 0, :] = G[:, 0, :]
        EG[:, 1:, :] = U @ G[:, 1:, :]
        V = EG * G[:, 0, None, :]             # column a scaled by G[0, a]
        return np.swapaxes(V, 1, 2), EG       # (n, q, k)

    def __call__(self, U, G):
        n, q, k = self.op.n, self.op.q, self.k
        V, EG = self.factor(U, G)
        AV = self.op.matmul(V.reshape(n * q, k))
        self.products += 1
        f = 0.5 * float(np.einsum("ij,ij->", AV, V.reshape(n * q, k)))
        Gam = np.swapaxes(AV.reshape(n, q, k), 1, 2)          # (n, k, q): dF/dV for F = f
        H = Gam * G[:, 0, None, :]                              # dF/d(EG)
        c = np.einsum("ikq,ikq->iq", Gam, EG)                  # through Diag(G[0, :])
        dG = np.empty_like(G)
        dG[:, 0, :] = H[:, 0, :] + c
        dG[:, 1:, :] = np.swapaxes(U, 1, 2) @ H[:, 1:, :]
        dU = (H @ np.swapaxes(G, 1, 2))[:, 1:, 1:]
        return f, _tangent(U, dU), _tangent(G, dG), V


def _initial(n, q, k, gen):
    U = _polar(gen.standard_normal((n, k - 1, q - 1))) if q > 1 else np.zeros((n, k - 1, 0))
    G = _polar(gen.standard_normal((n, q, q)))
    return U, G


def solve_label_sdp(A, n: int, q: int, *, rank: int | None = None, tol: float = 1e-7,
                    max_iter: int = 20000, rng=None, time_limit=None, progress: bool = False,
                    progress_unit: float = 1.0,
                    init=None) -> LabelSDPSolution:
    r"""Burer-Monteiro solve of the Max-2-CSP vector relaxation (module docstring).

    Parameters
    ----------
    A : sparse or dense (nq, nq) array
        Symmetric label-extended weights (row ``i*q + a``); within-variable blocks are ignored
        by the constraints (``v_{ia} . v_{ib} = 0``).
    n, q : int
    rank : int, optional
        Factor width k (default :func:`default_label_rank`).
    tol : float
        Stop when the relative objective change over 20 iterations is below ``tol`` and the
        gradient norm is below ``sqrt(tol)`` times the weight scale over ``sqrt(n)``, or when
        the relative change over 20 iterations falls below ``tol / 100``.
    max_iter : int
    rng : None, int or Generator
    time_limit : float, optional
    init : tuple (U, G), optional
        Warm start.

    Returns
    -------
    LabelSDPSolution

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(2)))  # x_0 != x_1, q = 2
    >>> sol = solve_label_sdp(A, 2, 2, rng=0)
    >>> round(sol.value, 6)
    1.0
    """
    gen = make_rng(rng)
    op = _LabelOp(A, n, q)
    k = default_label_rank(n, q) if rank is None else int(rank)
    if k < 2:
        raise ValueError(f"rank must be >= 2, got {rank}")
    obj = _Param(op, k)
    if q == 1:  # one label: v_{i0} = e_0, nothing to optimise
        U, G = np.zeros((n, k - 1, 0)), np.ones((n, 1, 1))
        f, _, _, V = obj(U, G)
        return LabelSDPSolution(V=V, value=f, iterations=0, converged=True, grad_norm=0.0,
                                products=obj.products)
    U, G = init if init is not None else _initial(n, q, k, gen)
    f, dU, dG, V = obj(U, G)
    g2 = float(np.vdot(dU, dU) + np.vdot(dG, dG))
    scale = op.scale
    step = 1.0 / max(float(np.abs(op.A).sum(axis=1).max()) if op.dense
                     else float(abs(op.A).sum(axis=1).max()), 1e-12)
    C, Qz = f, 1.0
    window = [f]
    t0 = time.perf_counter()
    converged = False
    it = 0
    history = []
    ticker = Progress(desc=f"2-CSP SDP solve ({n:,} variables x {q} labels)", unit="it")
    while it < max_iter:
        for _ in range(40):  # non-monotone Armijo backtracking (ascent) along the retraction
            Un = _polar(U + step * dU)
            Gn = _polar(G + step * dG)
            fn, dUn, dGn, Vn = obj(Un, Gn)
            if fn >= C + 1e-4 * step * g2 or step < 1e-14:
                break
            step *= 0.3
        sU, sG = Un - U, Gn - G
        yU, yG = dUn - dU, dGn - dG
        sy = abs(float(np.vdot(sU, yU) + np.vdot(sG, yG)))
        if sy > 0:
            if it % 2 == 0:
                step = float(np.vdot(sU, sU) + np.vdot(sG, sG)) / sy
            else:
                step = sy / max(float(np.vdot(yU, yU) + np.vdot(yG, yG)), 1e-300)
        step = min(max(step, 1e-12), 1e12)
        U, G, f, dU, dG, V = Un, Gn, fn, dUn, dGn, Vn
        g2 = float(np.vdot(dU, dU) + np.vdot(dG, dG))
        Qn = 0.85 * Qz + 1.0
        C = (0.85 * Qz * C + f) / Qn
        Qz = Qn
        it += 1
        ticker.update()
        window.append(f)
        if progress and it % 100 == 0:
            print(f"  2-csp sdp it {it:6d}  value {f * progress_unit:.8g}  "
                  f"|grad| {math.sqrt(g2):.2e}",
                  file=sys.stderr)
        rel = abs(window[-21] - f) / max(abs(f), 1e-3 * scale) if len(window) > 21 else np.inf
        if (rel <= tol and math.sqrt(g2) <= math.sqrt(tol) * scale / math.sqrt(n)) or rel <= 0.01 * tol:
            converged = True
            break
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    ticker.close()
    history.append((it, f))
    sol = LabelSDPSolution(V=V, value=f, iterations=it, converged=converged,
                           grad_norm=math.sqrt(g2), products=obj.products, history=history)
    sol.params = (U, G)
    return sol


# ----------------------------------------------------------------------------- certificate


def _reduction(n: int, q: int) -> sp.csr_array:
    """T (N x N_r): full moment coordinates from the reduced ones (label q-1 eliminated):
    ``e_{i,q-1} -> e_0 - sum_{a < q-1} e_{ia}``; index 0 first, then ``i*q + a`` (full) or
    ``i*(q-1) + a`` (reduced), each shifted by one."""
    N, r = n * q + 1, q - 1
    Nr = n * r + 1
    i = np.repeat(np.arange(n), r)
    a = np.tile(np.arange(r), n)
    full_kept = 1 + i * q + a
    red = 1 + i * r + a
    last = 1 + np.arange(n) * q + (q - 1)
    rows = np.concatenate([[0], full_kept, last, 1 + i * q + (q - 1)])
    cols = np.concatenate([[0], red, np.zeros(n, dtype=np.int64), red])
    vals = np.concatenate([[1.0], np.ones(red.size), np.ones(n), -np.ones(red.size)])
    return sp.csr_array((vals, (rows, cols)), shape=(N, Nr))


def reduced_objective(A, n: int, q: int) -> sp.csr_array:
    r"""The objective in reduced coordinates: :math:`C_r = T^T C T`, :math:`C = A/2` on the labels.

    Label q-1 of every variable is eliminated (:math:`x_{i,q-1} = 1 - \sum_{a<q-1} x_{ia}`), so
    the moment matrix Z of size :math:`n(q-1)+1` has the constraints :math:`Z_{00} = 1`,
    :math:`Z_{ia,ia} = Z_{0,ia}`, :math:`Z_{ia,ib} = 0` only, and a strictly feasible point
    (the moments of the uniform distribution): Slater's condition, which the full moment form
    lacks (:math:`Y(e_0 - \sum_a e_{ia}) = 0` for every feasible Y), holds. Row/column 0 first.

    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(2)))
    >>> reduced_objective(A, 2, 2).toarray().tolist()  # x0 + x1 - 2 x0 x1 in 0/1 terms
    [[0.0, 0.5, 0.5], [0.5, 0.0, -1.0], [0.5, -1.0, 0.0]]
    """
    return _reduced_objective(_LabelOp(A, n, q))


def cvxpy_label_sdp(A, n: int, q: int, *, eps: float = 1e-9, max_iters: int = 200000,
                    time_limit: float | None = None) -> float:
    """Reference: the same relaxation in reduced coordinates (:func:`reduced_objective`) by
    CVXPY + SCS (dense; small instances). Returns the optimal value.

    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(2)))
    >>> round(cvxpy_label_sdp(A, 2, 2), 5)
    1.0
    """
    import cvxpy as cp

    Cr = reduced_objective(A, n, q).toarray()
    Nr, r = Cr.shape[0], q - 1
    Z = cp.Variable((Nr, Nr), PSD=True)
    cons = [Z[0, 0] == 1]
    if r:
        d = 1 + np.arange(n * r)
        cons.append(cp.diag(Z)[d] == Z[0, d])
        rows = [1 + i * r + a for i in range(n) for a in range(r) for b in range(a + 1, r)]
        cols = [1 + i * r + b for i in range(n) for a in range(r) for b in range(a + 1, r)]
        if rows:
            cons.append(Z[rows, cols] == 0)
    prob = cp.Problem(cp.Maximize(cp.trace(Cr @ Z)), cons)
    kw = {} if time_limit is None else {"time_limit_secs": float(time_limit)}
    prob.solve(solver=cp.SCS, eps_abs=eps, eps_rel=eps, max_iters=max_iters, **kw)
    if prob.value is None:
        raise RuntimeError(f"SCS returned no solution (status {prob.status})")
    return float(prob.value)


def _reduced_objective(op: _LabelOp) -> sp.csr_array:
    n, q = op.n, op.q
    T = _reduction(n, q)
    A = sp.csr_array(op.A) if op.dense else op.A
    C = sp.block_diag((sp.csr_array((1, 1)), 0.5 * A), format="csr")
    return sp.csr_array(T.T @ C @ T)


def _fit_multipliers(Cr: sp.csr_array, V: np.ndarray):
    """Least-squares multipliers of the reduced constraints for S_r V_r = 0, per variable.

    Reduced constraints (label q-1 eliminated; Slater holds for them): ``Z_00 = 1``,
    ``Z_ia,ia - Z_0,ia = 0``, ``Z_ia,ib = 0`` (a != b < q-1). Returns
    ``(lam00, lam_diag (n, q-1), lam_off (n, q-1, q-1) symmetric)``.
    """
    n, q, k = V.shape
    r = q - 1
    Vr = np.vstack([np.eye(1, k), V[:, :r, :].reshape(n * r, k)])
    CV = Cr @ Vr
    e0 = np.zeros(k)
    e0[0] = 1.0
    pairs = [(a, b) for a in range(r) for b in range(a + 1, r)]
    nu = r + len(pairs)
    lam_diag = np.zeros((n, r))
    lam_off = np.zeros((n, r, r))
    if nu:
        W = V[:, :r, :]
        D = np.zeros((n, r, k, nu))
        for a in range(r):
            D[:, a, :, a] = W[:, a, :] - 0.5 * e0
        for t, (a, b) in enumerate(pairs):
            D[:, a, :, r + t] = 0.5 * W[:, b, :]
            D[:, b, :, r + t] = 0.5 * W[:, a, :]
        D = D.reshape(n, r * k, nu)
        rhs = CV[1:].reshape(n, r * k, 1)
        DtD = np.swapaxes(D, 1, 2) @ D
        ridge = 1e-13 * np.maximum(np.trace(DtD, axis1=1, axis2=2), 1e-300)
        DtD0 = DtD.copy()
        DtD += ridge[:, None, None] * np.eye(nu)
        x = np.linalg.solve(DtD, np.swapaxes(D, 1, 2) @ rhs)[..., 0]
        x = _repair_degenerate(Cr, n, r, pairs, DtD0, x)
        lam_diag = x[:, :r]
        for t, (a, b) in enumerate(pairs):
            lam_off[:, a, b] = lam_off[:, b, a] = x[:, r + t]
    p = np.einsum("iak,iak->ia", V[:, :r, :], V[:, :r, :])
    lam00 = float(CV[0, 0]) + 0.5 * float(np.sum(lam_diag * p))
    return lam00, lam_diag, lam_off


_NULL_REL = 1e-10  # eigenvalue of D^T D below this times its trace: a free multiplier direction
_REPAIR_STEPS = np.concatenate([[0.0], np.geomspace(2.0 ** -8, 2.0 ** 4, 25),
                                -np.geomspace(2.0 ** -8, 2.0 ** 4, 25)])


def _repair_degenerate(Cr, n, r, pairs, DtD, x):
    """Re-choose the multipliers of variables whose least-squares system is rank-deficient.

    Where some v_ia vanish (a deterministic marginal), D^T D is singular and every multiplier
    in ``x + null(D^T D)`` fits S_r V_r = 0 equally well; the min-norm one can leave the
    variable's own diagonal block of S positive (a positive eigenvalue localised on that
    variable). Along each null direction (one at a time, a grid of steps scaled by the
    variable's coupling, then a local refinement) pick the step minimising lambda_max of
    S's diagonal block on the variable's reduced coordinates (row 0 left out: S_00 = C_00 -
    lambda_00 is far below the block's scale). The residual of the fit does not
    change; step 0 is always a candidate, so that block never gets worse. Any multipliers give
    a valid bound (weak duality), so this only changes its value.
    """
    nu = x.shape[1]
    tr = np.maximum(np.trace(DtD, axis1=1, axis2=2), 1e-300)
    w, U = np.linalg.eigh(DtD)
    null = w < _NULL_REL * tr[:, None]
    deg = np.nonzero(null.any(axis=1))[0]
    if deg.size == 0:
        return x
    Cr = sp.csr_array(Cr)
    rows = (1 + deg[:, None] * r + np.arange(r)[None, :]).ravel()
    sub = Cr[rows]
    absrow = np.asarray(abs(sub).sum(axis=1)).ravel().reshape(deg.size, r)
    x = x.copy()
    for t_i, i in enumerate(deg):
        J = [0] + list(1 + i * r + np.arange(r))
        Cb = Cr[J][:, J].toarray()
        scale = max(float(absrow[t_i].max()), float(np.abs(x[i]).max()), 5e-324)

        def blocks(xs):  # xs: (G, nu) -> (G, r+1, r+1) local S blocks
            G = xs.shape[0]
            B = np.broadcast_to(Cb, (G, r + 1, r + 1)).copy()
            for a in range(r):
                B[:, 1 + a, 1 + a] -= xs[:, a]
                B[:, 0, 1 + a] += 0.5 * xs[:, a]
                B[:, 1 + a, 0] += 0.5 * xs[:, a]
            for t, (a, b) in enumerate(pairs):
                B[:, 1 + a, 1 + b] -= 0.5 * xs[:, r + t]
                B[:, 1 + b, 1 + a] -= 0.5 * xs[:, r + t]
            return B

        def top(xs):
            return np.linalg.eigvalsh(blocks(xs)[:, 1:, 1:])[:, -1]

        xi = x[i].copy()
        for u in U[i][:, null[i]].T:
            steps = scale * _REPAIR_STEPS
            for _ in range(3):
                cand = xi[None, :] + steps[:, None] * u[None, :]
                f = top(cand)
                j = int(np.argmin(f))
                best = steps[j]
                h = max(abs(best), scale * 2.0 ** -8) * 0.25
                steps = best + h * np.linspace(-1, 1, 17)
                steps = np.concatenate([[best], steps])
            xi = xi + best * u
        x[i] = xi
    return x


#: the largest principal block (index 0, the variable's and its neighbours' coordinates) that
#: the local repair minimises over; the degenerate fits it repairs sat on variables of degree 1-9
_LOCAL_BLOCK_MAX = 64


def _local_min(Cr, n, q, lam00, ld, lo, i, pairs, R):
    """In place: variable i's multipliers minimising lambda_max of S's principal block on {0},
    i's reduced coordinates and its neighbours', within a box of half-width R times the scale
    of i's rows of S (Nelder-Mead with a penalty outside the box); a block above
    :data:`_LOCAL_BLOCK_MAX` coordinates is left as it is."""
    from scipy.optimize import minimize

    r = q - 1
    own = 1 + i * r + np.arange(r)
    nb = np.unique(Cr[own].indices)
    J = np.unique(np.concatenate([[0], own, nb]))
    if J.size > _LOCAL_BLOCK_MAX:  # a hub: each evaluation an eigvalsh of this size; left as is
        return
    pos = np.searchsorted(J, own)
    x0 = np.concatenate([ld[i], [lo[i, a, b] for a, b in pairs]])
    # the neighbours' blocks and row 0 as they stand in S
    full = _dual_matrix(Cr, n, q, lam00, ld, lo)
    B0 = full[J][:, J].toarray()
    B0 = 0.5 * (B0 + B0.T)
    scale = max(float(np.abs(B0[pos]).max()), 5e-324)
    rad = R * scale

    def block(dz):
        B = B0.copy()
        for a in range(r):
            B[pos[a], pos[a]] -= dz[a]
            B[0, pos[a]] += 0.5 * dz[a]
            B[pos[a], 0] += 0.5 * dz[a]
        for t, (a, b) in enumerate(pairs):
            B[pos[a], pos[b]] -= 0.5 * dz[r + t]
            B[pos[b], pos[a]] -= 0.5 * dz[r + t]
        return B

    def f(dz):
        c = np.clip(dz, -rad, rad)
        return float(np.linalg.eigvalsh(block(c))[-1]) + 10.0 * float(np.abs(dz - c).sum())

    m = len(x0)
    simplex = np.vstack([np.zeros(m)] + [0.5 * rad * np.eye(m)[j] for j in range(m)])
    res = minimize(f, np.zeros(m), method="Nelder-Mead",
                   options={"initial_simplex": simplex, "xatol": 1e-7 * scale,
                            "fatol": 1e-10 * scale, "maxfev": 400})
    if res.fun < f(np.zeros(m)):
        z = x0 + np.clip(res.x, -rad, rad)
        ld[i] = z[:r]
        for t, (a, b) in enumerate(pairs):
            lo[i, a, b] = lo[i, b, a] = z[r + t]


def _local_repair(Cr: sp.csr_array, n: int, q: int, lam, S: sp.csr_array, *,
                  rounds: int = 2, rel: float = 1e-5, mass_min: float = 0.02, max_vars: int = 8,
                  radius: float = 0.25):
    """Dual descent on UB = lam00 + (n + 1) lambda_max(S) where the top eigenvector of S is
    localised on few variables (near-deterministic marginals, whose least-squares multipliers are
    ill-determined). For each implicated variable i (eigenvector mass >= ``mass_min``), its
    multipliers are re-chosen to minimise lambda_max of S's principal block on {0} and the reduced
    coordinates of i and of its neighbours (convex in them; Nelder-Mead). A round is kept only if
    the global top eigenvalue (ARPACK, loose tolerance) went down. Any multipliers give a valid
    bound (weak duality): this changes the bound's value only. The start vector is fixed (the
    caller's random stream is left as it was). Returns ``(lam, S, log)``."""
    import scipy.sparse.linalg as spla

    r = q - 1
    lam00, ld, lo = lam
    pairs = [(a, b) for a in range(r) for b in range(a + 1, r)]
    log = []
    if r == 0 or S.shape[0] <= 300:
        return lam, S, log
    N = S.shape[0]
    Cr = sp.csr_array(Cr)
    v0 = np.random.default_rng(N).standard_normal(N)

    def top(M, v0):  # an estimate, only to locate the top and accept a round
        # shifted by c (the largest absolute row sum below row 0, S_00 being far below): ARPACK's
        # relative tolerance becomes an absolute one ~ tol c, as in top_ritz_pair
        c = float(np.max(np.asarray(abs(M[1:]).sum(axis=1)).ravel()))
        op = spla.LinearOperator(M.shape, matvec=lambda v: M @ v + c * v, dtype=np.float64)
        try:
            w, X = spla.eigsh(op, k=1, which="LA", tol=1e-6, v0=v0, ncv=24, maxiter=1000)
        except spla.ArpackNoConvergence as e:
            if len(e.eigenvalues) == 0:
                raise
            w, X = e.eigenvalues, e.eigenvectors
        return float(w[-1]) - c, X[:, -1]

    try:  # cheap detection: an isolated (localised) top eigenvalue converges in a few steps;
        # near the optimum lambda_max sits in a cluster around 0 and this gives up quickly
        w, X = spla.eigsh(S, k=1, which="LA", tol=1e-3, v0=v0, ncv=20, maxiter=20)
        theta, x = float(w[0]), X[:, 0]
    except spla.ArpackError:  # no convergence (no isolated top), or ARPACK's error -9
        return lam, S, log
    rad = {}
    for _ in range(rounds):
        if (n + 1) * max(theta, 0.0) <= rel * abs(lam00):
            break
        mass = (x[1:] ** 2).reshape(n, r).sum(axis=1)
        I = [int(i) for i in np.argsort(-mass)[:max_vars] if mass[i] >= mass_min]
        if not I:
            break
        ld2, lo2 = ld.copy(), lo.copy()
        for i in I:  # a trust region per variable, doubled each time it is implicated again
            rad[i] = 2.0 * rad[i] if i in rad else radius
            _local_min(Cr, n, q, lam00, ld2, lo2, i, pairs, rad[i])
        S2 = _dual_matrix(Cr, n, q, lam00, ld2, lo2)
        try:
            theta2, x2 = top(S2, x)
        except spla.ArpackError:
            break
        R = [rad[i] for i in I]
        log.append((theta, theta2, I, R))
        if theta2 >= theta:
            break
        ld, lo, S, theta, x = ld2, lo2, S2, theta2, x2
    return (lam00, ld, lo), S, log


def _dual_matrix(Cr: sp.csr_array, n: int, q: int, lam00, lam_diag, lam_off) -> sp.csr_array:
    """S_r = C_r - A_r^*(lambda) in reduced coordinates (sparse, index 0 first)."""
    r = q - 1
    Nr = n * r + 1
    base = 1 + np.arange(n)[:, None, None] * r
    ia = np.broadcast_to(base + np.arange(r)[None, :, None], (n, r, r))
    ib = np.broadcast_to(base + np.arange(r)[None, None, :], (n, r, r))
    blk = 0.5 * lam_off.copy()
    blk[:, np.arange(r), np.arange(r)] = lam_diag
    idx = 1 + np.arange(n * r)
    zero = np.zeros(n * r, dtype=np.int64)
    rows = np.concatenate([ia.ravel(), zero, idx, [0]])
    cols = np.concatenate([ib.ravel(), idx, zero, [0]])
    vals = np.concatenate([blk.ravel(), -0.5 * lam_diag.ravel(), -0.5 * lam_diag.ravel(), [lam00]])
    Lam = sp.csr_array((vals, (rows, cols)), shape=(Nr, Nr))
    S = sp.csr_array(Cr - Lam)
    S.sum_duplicates()
    return S


def _gershgorin_top(S: sp.csr_array) -> float:
    """Rigorous (loose) bound on lambda_max of the symmetric part of the sparse S (S itself
    when symmetric): the largest Gershgorin disc edge with the radius of row i of
    (|S| + |S|^T) / 2, (row sum + column sum) / 2 of |S| less |S_ii|
    (:func:`dpgraph.engine.sdp.gershgorin_max`; the magnitude counts both sums in full)."""
    d = S.diagonal()
    aS = abs(S)
    r = np.asarray(aS.sum(axis=1)).ravel()
    c = np.asarray(aS.sum(axis=0)).ravel()
    rabs = 0.5 * (r + c) - np.abs(d)
    return gershgorin_max(d + rabs, 2.0 * np.abs(d) + r + c, S.shape[0])


def _dual_allowance(op: "_LabelOp", S: sp.csr_array, *, lower_triangle: bool) -> float:
    r"""A bound on :math:`\sum_{ij}|\hat S_{ij} - S_{ij}|` for the float dual matrix
    :math:`\hat S` (:func:`_dual_matrix`) against the exact :math:`S = T^T C T - \Lambda`
    (:math:`C = A/2`, :math:`\Lambda = \mathcal A^*\lambda` for the float multipliers), plus,
    with ``lower_triangle`` (the dense Cholesky reads one triangle of :math:`\hat S`),
    :math:`\sum_{i<j}|\hat S_{ij} - \hat S_{ji}|`. Every feasible moment matrix Z has
    :math:`|Z_{ij}| \le 1`, so :math:`\langle S, Z\rangle \le (n+1)\mu^+ +` this, for mu
    proven for :math:`\hat S` (its symmetric part; its lower triangle reflected).

    * :math:`C_r = (T^T C) T` by two sparse products whose multiplications are exact (T has
      entries :math:`\pm 1`) and whose sums have at most n and n + 1 terms (T's column 0):
      :math:`|fl(C_r) - C_r| \le \gamma_{2n+1} |T|^T |C| |T|` entrywise, summing to
      :math:`\gamma_{2n+1} w^T|C|w` with :math:`w = |T|\mathbf 1` (q on every variable's last
      label, 1 elsewhere); taken as :math:`2(2n+2)u` of a bound on :math:`w^T|C|w`.
    * :math:`\hat S = fl(fl(C_r) - \Lambda)`: one rounding where both are stored,
      :math:`\le u|\hat S_{ij}|/(1-u)`; taken as :math:`2u\sum|\hat S|`.
    * halving A and the multipliers is exact unless it underflows: :math:`4\eta` per entry
      of A (times :math:`q^2`) and of :math:`\hat S`.

    Every sum is an exact ``fsum`` moved one ulp up (:func:`dpgraph.engine.sdp.upward_sum`);
    O(nnz)."""
    n, q = op.n, op.q
    A = sp.csr_array(op.A) if op.dense else op.A
    A = sp.csr_array(abs(A))
    last = (np.arange(op.N) % q) == q - 1
    rows = np.repeat(np.arange(op.N), np.diff(A.indptr))
    k = last[rows].astype(np.int64) + last[A.indices].astype(np.int64)  # w_r w_s = q^k
    parts = [upward_sum(A.data[k == j].tolist()) for j in range(3)]
    wcw = upward_sum([parts[0], math.nextafter(q * parts[1], math.inf),
                      math.nextafter(q * q * parts[2], math.inf)])  # >= w^T |A| w
    wcw = math.nextafter(0.5 * wcw, math.inf)  # C = A / 2
    s_abs = upward_sum(np.abs(S.data).tolist())
    u, eta = np.finfo(float).eps / 2, 2.0 ** -1074
    terms = [2 * (2 * n + 2) * u * wcw, 2 * u * s_abs, 4 * eta * (q * q * A.nnz + S.nnz)]
    if lower_triangle:
        skew = S - S.T  # |fl(S_ij - S_ji)| >= |S_ij - S_ji| (1 - u); both (i, j) and (j, i)
        terms.append(0.5 * (1 + 2 * u) * upward_sum(np.abs(sp.csr_array(skew).data).tolist()))
    return upward_sum([math.nextafter(t, math.inf) for t in terms])


def _upper(base: float, n: int, mu: float, extra: float) -> float:
    """``base + (n + 1) max(mu, 0) + extra`` evaluated upwards: the product by one ulp up,
    the sum by :func:`dpgraph.engine.sdp.upward_sum`."""
    return upward_sum([base, math.nextafter((n + 1) * max(mu, 0.0), math.inf), extra])


def ldl_verified_lambda_max(S, guess: tuple[float, float] | None = None, *, rel: float = 0.02,
                            target: float = 0.0, max_factorizations: int = 12,
                            order=None) -> tuple[float, dict]:
    r"""A proven upper bound on :math:`\lambda_{\max}(S)` for a sparse symmetric S, near ``guess``.

    Every candidate mu is checked by a sparse :math:`LDL^T` factorisation of
    :math:`(\mu' - 2c)I - S` with :math:`\mu' = \mu + 2c` and Rump's margin c for the trace of
    :math:`\mu' I - S` (:func:`dpgraph.engine.sdp.rump_margin`) setting the gap: positive pivots and a
    proven bound on the factorisation's residual below that gap prove
    :math:`\mu' I - S \succ 0` (:func:`dpgraph.engine.sdp.sparse_shift_verified`, Higham's
    backward error of Gaussian elimination and Weyl's inequality), as the Max-Cut engine's
    sparse certificate does (:mod:`dpgraph.engine.sdp`).

    ``guess = (theta, r)``: a Ritz value and its residual norm (theta is a lower estimate of
    lambda_max; ``theta + r`` bounds it when Lanczos found the top of the spectrum). The first
    check is at ``theta + r``; when it fails (Lanczos missed an eigenvalue) mu is raised 4x at a
    time until one verifies, then bisected until ``hi - lo <= max(rel * hi, target)``. Nothing unverified is
    ever returned: after ``max_factorizations`` the last verified mu is returned, and if none
    was verified, Gershgorin's bound (rigorous, loose). Returns ``(mu, info)``.

    Every shift has S's off-diagonal pattern: all are factorized in one column order,
    ``order`` (:func:`dpgraph.engine.sdp.ldl_fill_order` of S's pattern, SuperLU's own,
    computed here once when not given), S reordered by it once and each shift factorized in
    its own order (``permc_spec="NATURAL"``), so that SuperLU does not order it again.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> S = sp.csr_array(np.diag([1.0, -2.0, 0.5]))
    >>> mu, info = ldl_verified_lambda_max(S, (1.0, 0.0))
    >>> bool(1.0 < mu < 1.0 + 1e-9), info["certificate"], info["factorizations"]
    (True, 'ldl-verified', 1)
    """
    S = sp.csr_array(S, dtype=np.float64)
    N = S.shape[0]
    trS = float(S.diagonal().sum())
    order = ldl_fill_order(S) if order is None else order
    negS = sp.csc_matrix(-S[order][:, order])  # the same spectrum, factorized in this order
    gersh = _gershgorin_top(S)
    scale = max(abs(gersh), float(np.max(np.abs(S.diagonal()), initial=0.0)), 1e-300)
    info = {"factorizations": 0, "ldl_nnz_factor": 0}

    def verified(mu):
        slack = 1e-12 * max(abs(mu), 1e-9 * scale)
        c = rump_margin(N, N * (abs(mu) + slack) - trS)
        c = rump_margin(N, N * (abs(mu) + slack + 2 * c) - trS)
        mu_try = mu + slack + 2 * c
        ok, nnz = sparse_shift_verified(negS, mu_try, mu + slack,  # a gap of 2c
                                        permc_spec="NATURAL")
        info["factorizations"] += 1
        info["ldl_nnz_factor"] = max(info["ldl_nnz_factor"], nnz)
        return ok, mu_try, c

    if guess is not None and np.isfinite(guess[0]) and np.isfinite(guess[1]):
        lo, start = float(guess[0]), float(guess[0]) + abs(float(guess[1]))
        if start <= 0:  # lambda_max(S) is near 0 at the optimum: start just above it
            start = 1e-9 * scale
    else:
        lo, start = -np.inf, 1e-3 * scale
    hi = c_hi = None
    mu = min(start, gersh)
    while info["factorizations"] < max_factorizations:
        ok, mu_try, c = verified(mu)
        if ok:
            hi, c_hi = mu_try, c
            break
        lo = max(lo, mu)
        if mu >= gersh:
            break
        mu = min(4.0 * mu if mu > 0 else 1e-6 * scale, gersh)
    if hi is None:
        info.update(certificate="gershgorin (no LDL^T shift verified)", lambda_max_bound=gersh)
        return gersh, info
    if np.isfinite(lo):
        while hi - lo > max(rel * abs(hi), target) and info["factorizations"] < max_factorizations:
            mid = math.sqrt(lo * hi) if lo > 0 and hi > 8 * lo else 0.5 * (lo + hi)
            ok, mu_try, c = verified(mid)
            if ok and mu_try < hi:
                hi, c_hi = mu_try, c
            elif not ok:
                lo = mid
            else:
                break
    hi = min(hi, gersh)
    # the proof is Higham's backward error of the LDL^T below the gap 2c between mu and the
    # factorised shift (c sized like Rump's margin, which is not what proves it)
    info.update(certificate="ldl-verified", lambda_max_bound=hi, ldl_shift_gap=2.0 * c_hi)
    return hi, info


def certify_label_sdp(A, V: np.ndarray, *, method: str = "auto", rng=None) -> tuple[float, dict]:
    r"""Certified upper bound on the relaxation (hence on the 2-CSP optimum) from a factor V.

    ``UB = lambda_00 + sum_i lambda_sum_i + (n + 1) mu`` with ``mu >= lambda_max(S)`` (module
    docstring). ``method``:

    * ``"factor"``: dense Cholesky with Rump's margin (rigorous; up to three dense copies of S,
      :func:`dpgraph.engine.sdp.dense_certificate_bytes`, refused
      with :class:`~dpgraph.memory.InsufficientMemoryError` when they do not fit);
    * ``"ldl"``: sparse :math:`LDL^T` with a proven bound on its residual (rigorous;
      :func:`ldl_verified_lambda_max`); refused when its factors, counted from S's pattern
      before SuperLU allocates (:func:`dpgraph.engine.sdp.check_sparse_factor_memory`), do not
      fit in the available memory;
    * ``"lanczos"``: Ritz value + residual norm -- NOT a proof (Lanczos may miss the top
      eigenvalue); ``info['certificate']`` then starts with ``"lanczos-residual"``;
    * ``"auto"``: ``"factor"`` up to ``N = n(q-1) + 1 = LABEL_DENSE_CERTIFICATE_MAX_N`` where its
      dense copies fit, ``"ldl"`` above or where they do not; if the sparse factor cannot fit
      either, Lanczos, labelled
      ``"lanczos-residual (unverified: ...)"``.

    Every method starts from the top Ritz pair :math:`(\theta, u)` of S and its residual
    :math:`r = \|Su - \theta u\|` (``info['lanczos_theta']``, ``info['lanczos_residual']``):
    the unrestarted Lanczos recurrence (:func:`dpgraph.engine.sdp.lanczos_top_pair`, stopped at
    a residual estimate of 1e-9 of S's Gershgorin scale :math:`\max_i \sum_j |S_{ij}|`), the
    dense eigendecomposition (:func:`dpgraph.engine.sdp.top_ritz_pair`) up to N = 300.
    :math:`\theta + r` is the ``"lanczos"`` bound, the first shift the ``"ldl"`` bisection
    checks and the first one the dense Cholesky tries.

    Any V gives a valid bound; a good V gives a tight one. Returns ``(UB, info)``;
    ``info['certificate']`` is ``"cholesky-verified"``, ``"ldl-verified"`` (both rigorous),
    ``"gershgorin ..."`` (rigorous, loose) or ``"lanczos-residual..."`` (not a proof).

    Rounding: S is formed in floating point (:math:`C_r = T^T C T` by sparse products, then
    :math:`C_r - \Lambda`); ``info['matrix_allowance']`` bounds :math:`\sum_{ij}` of its
    entries' distance from the exact dual matrix (and, for the dense Cholesky, which reads one
    triangle, S's asymmetry), :func:`_dual_allowance`; since every feasible moment matrix has
    entries in [-1, 1], UB adds it, and the sum is evaluated upwards (one ulp above the exact
    ``fsum``). On the random q = 3 family it is 5e-12 of the bound at n = 1,000 and 1.6e-11 at
    n = 3,000 (it grows about as n u: the sums of the reduction's row 0 have n terms).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(2)))
    >>> sol = solve_label_sdp(A, 2, 2, rng=0)
    >>> ub, info = certify_label_sdp(A, sol.V)
    >>> bool(abs(ub - 1.0) < 1e-6), info["certificate"]
    (True, 'cholesky-verified')
    >>> ub, info = certify_label_sdp(A, sol.V, method="ldl")
    >>> bool(abs(ub - 1.0) < 1e-6), info["certificate"]
    (True, 'ldl-verified')
    """
    if method not in ("auto", "factor", "ldl", "lanczos"):
        raise ValueError(f"method={method!r} is not one of 'auto', 'factor', 'ldl', 'lanczos'")
    n, q, k = V.shape
    op = _LabelOp(A, n, q)
    Cr = _reduced_objective(op)
    lam = _fit_multipliers(Cr, V)
    S = _dual_matrix(Cr, n, q, *lam)
    N = S.shape[0]
    base = lam[0]
    gen = make_rng(rng)
    lam, S, _ = _local_repair(Cr, n, q, lam, S)
    # the top Ritz pair: ARPACK's restarted eigsh (top_ritz_pair above N = 300) met the same
    # tolerance 2-21x slower, the more so the nearer V is to the optimum (benchmarks/NOTES.md,
    # Max-2-CSP); a non-finite S keeps top_ritz_pair's fallbacks
    gersh = float(abs(S).sum(axis=1).max())  # N >= 1: row 0 is always there
    if N <= 300 or not math.isfinite(gersh):
        theta, resid = top_ritz_pair(S, gen, maxiter=2000)
    else:
        theta, resid, _ = lanczos_top_pair(lambda x: S @ x, N, gen, tol=1e-9 * gersh)
    info = {"lanczos_theta": theta, "lanczos_residual": resid, "dual_base": base, "N_reduced": N}
    unverified = ""
    order = None  # the sparse proof's column order, computed once for its count and factors
    priced = False
    if method == "auto":
        have = available_memory()
        if N <= LABEL_DENSE_CERTIFICATE_MAX_N and (have is None
                                                   or dense_certificate_bytes(N) <= have):
            method = "factor"
        else:  # also where the dense copies would not fit: the sparse factors where they fit
            order = ldl_fill_order(S)
            note = sparse_factor_note(S, order=order)
            method = "lanczos" if note else "ldl"
            unverified = f" (unverified: {note})" if note else ""
            priced = not note
    if method == "lanczos":
        mu = theta + resid
        extra = _dual_allowance(op, S, lower_triangle=False)
        info.update(certificate="lanczos-residual" + unverified, lambda_max_bound=mu,
                    matrix_allowance=extra)
        return _upper(base, n, mu, extra), info
    if method == "ldl":
        t = time.perf_counter()
        if order is None:
            order = ldl_fill_order(S)
        if not priced:  # 'auto' priced it above
            check_sparse_factor_memory(
                S, what=f"the sparse LDL^T certificate of the 2-CSP bound (N = {N})",
                alternative="Use certificate='lanczos' for an unverified bound, or raise "
                            "DPGRAPH_MEMORY_LIMIT.", order=order)
        # bisect below theta + r only while it moves the bound by more than 5e-5 of it (one
        # factorization at n = 10,000 is ~25-40 s; the goal is a gap of 1e-3)
        mu, linfo = ldl_verified_lambda_max(S, (theta, resid),
                                            target=5e-5 * max(abs(base), 1e-300) / (n + 1),
                                            order=order)
        # the LDL^T proof (and Gershgorin's) is about S's symmetric part: no triangle term
        extra = _dual_allowance(op, S, lower_triangle=False)
        info.update(linfo, ldl_seconds=time.perf_counter() - t, matrix_allowance=extra)
        return _upper(base, n, mu, extra), info
    check_memory(dense_certificate_bytes(N),
                 what=f"the dense Cholesky certificate of the 2-CSP bound (N = {N})",
                 alternative="Use certificate='ldl' (sparse, rigorous) or 'lanczos' (unverified).")
    Sd = S.toarray()
    try:  # LAPACK's top eigenvalue if the Lanczos bound does not verify
        mu_try, c = verified_lambda_max(
            Sd, theta + resid, lambda: float(sla.eigvalsh(Sd, subset_by_index=[N - 1, N - 1])[0]),
            attempts=12)
    except RuntimeError:
        raise RuntimeError("could not verify the 2-CSP dual certificate (Cholesky kept "
                           "failing)") from None
    extra = _dual_allowance(op, S, lower_triangle=True)
    info.update(certificate="cholesky-verified", lambda_max_bound=mu_try, rump_margin=c,
                matrix_allowance=extra)
    return _upper(base, n, mu_try, extra), info


# ----------------------------------------------------------------------------- rounding


def label_values(op_or_A, X: np.ndarray, q: int) -> np.ndarray:
    """Objective ``z^T A z / 2`` of each assignment (rows of the int array X, shape (s, n))."""
    A = op_or_A.A if isinstance(op_or_A, _LabelOp) else op_or_A
    X = np.atleast_2d(X)
    s, n = X.shape
    Z = np.zeros((n * q, s))
    Z[(np.arange(n) * q)[None, :] + X, np.arange(s)[:, None]] = 1.0
    return 0.5 * np.einsum("ij,ij->j", Z, A @ Z)


def _sample(p, gen, samples):
    c = np.cumsum(p, axis=1)
    c[:, -1] = 1.0
    u = gen.random((samples, p.shape[0], 1))
    return (u > c[None]).sum(axis=2)


def round_label_sdp(A, V: np.ndarray, *, rng=None, samples: int = 32, seeds: int = 2,
                    vector_samples: int = 64) -> np.ndarray:
    """Candidate assignments from a factor V (module docstring), shape (s, n), distinct rows.

    Every candidate is a function of V and the random draws only (no look at the objective);
    pick among them with :func:`label_values` (or privately, on another instance's values).
    """
    gen = make_rng(rng)
    n, q, k = V.shape
    p = np.clip(np.einsum("iak,iak->ia", V, V), 0.0, None)
    p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    cands = [np.argmax(p, axis=1)[None, :], _sample(p, gen, samples)]
    g = gen.standard_normal((k, vector_samples))
    cands.append(np.argmax(np.einsum("iak,ks->sia", V, g), axis=2))
    if seeds and n > 1 and q > 1:
        Uc = V.copy()
        Uc[:, :, 0] -= p  # centred vectors u_ia = v_ia - p_ia e_0
        M = np.einsum("iak,ial->kl", Uc, Uc)
        score = np.maximum(np.einsum("iak,kl,ial->i", Uc, M, Uc), 0.0)
        S = []
        for _ in range(min(seeds, n)):
            sc = score.copy()
            sc[S] = 0.0
            tot = sc.sum()
            if tot <= 1e-300:
                break
            S.append(int(gen.choice(n, p=sc / tot)))
        VL = V.reshape(n * q, k)
        for sigma in np.ndindex(*([q] * len(S))):
            if min(p[s, a] for s, a in zip(S, sigma)) <= 1e-9:
                continue
            cond = p.copy()
            for s, a in zip(S, sigma):
                ratio = np.clip(VL @ V[s, a], 0.0, None).reshape(n, q) / (p[s, a] * np.maximum(p, 1e-12))
                cond = cond * ratio
            ssum = cond.sum(axis=1, keepdims=True)
            cond = np.where(ssum > 0, cond / np.where(ssum > 0, ssum, 1.0), p)
            X = _sample(cond, gen, max(samples // 4, 2))
            X[:, S] = np.asarray(sigma)
            cands.append(X)
    X = np.vstack(cands).astype(np.int64)
    return np.unique(X, axis=0)


def label_local_search(A, x: np.ndarray, q: int, *, max_moves: int | None = None,
                       tol: float = 1e-12) -> tuple[np.ndarray, int]:
    """Best-improvement single-variable moves on the objective ``z^T A z / 2``.

    Scores :math:`s = Az` are kept for every (variable, label) and updated with one column of A
    per move (sparse or dense A). Returns ``(x, moves)``; ``x`` is a local optimum.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(2)))
    >>> label_local_search(A, np.array([0, 0]), 2)[0].tolist() in ([0, 1], [1, 0])
    True
    """
    x = np.array(x, dtype=np.int64, copy=True)
    n = x.size
    dense = not sp.issparse(A)
    if not dense:
        A = sp.csc_array(A)
    z = np.zeros(n * q)
    z[np.arange(n) * q + x] = 1.0
    s = np.asarray(A @ z).reshape(n, q)
    data_max = float(np.abs(A).max()) if dense else (float(abs(A.data).max()) if A.nnz else 1.0)
    thr = tol * max(1.0, data_max)
    limit = 20 * n * q + 100 if max_moves is None else max_moves
    moves = 0
    ar = np.arange(n)
    while moves < limit:
        gain = s - s[ar, x][:, None]
        # the within-variable block does not count: a variable's own labels are not neighbours
        flat = int(np.argmax(gain))
        i, b = divmod(flat, q)
        if gain[i, b] <= thr:
            break
        old, new = i * q + x[i], i * q + b
        flat_s = s.reshape(-1)
        if dense:
            flat_s += A[:, new] - A[:, old]
        else:
            for col, sign in ((old, -1.0), (new, 1.0)):
                a0, a1 = A.indptr[col], A.indptr[col + 1]
                flat_s[A.indices[a0:a1]] += sign * A.data[a0:a1]
        x[i] = b
        moves += 1
    return x, moves


def perturbed_local_search(A, x: np.ndarray, q: int, *, rounds: int = 100, strength: float = 0.02,
                           rng=None) -> tuple[np.ndarray, float]:
    """Iterated local search: ``rounds`` times, move a random ``strength`` fraction of the
    variables (at least 2) to random labels, run :func:`label_local_search`, keep the result if
    it is at least as good. Returns ``(x, value)``; the value never decreases.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(1 - np.eye(3), 1 - np.eye(3)))  # triangle, "not equal", q = 3
    >>> x, v = perturbed_local_search(A, np.array([0, 0, 0]), 3, rounds=5, rng=0)
    >>> v
    3.0
    """
    gen = make_rng(rng)
    x, _ = label_local_search(A, x, q)
    best = float(label_values(A, x[None, :], q)[0])
    n = x.size
    k = max(2, int(round(strength * n)))
    for _ in range(int(rounds)):
        y = x.copy()
        idx = gen.choice(n, min(k, n), replace=False)
        y[idx] = gen.integers(0, q, idx.size)
        y, _ = label_local_search(A, y, q)
        v = float(label_values(A, y[None, :], q)[0])
        if v >= best:
            x, best = y, v
    return x, best


def _tabu_label_kernel(indptr, indices, data, n, q, x, s, tabu_until, tenures, it0, max_moves,
                       stall, last, value, best, best_x, thr):
    """Tabu moves (numba-compiled when available) until ``stall`` moves without a new best or
    ``max_moves``; the same move rule as the NumPy loop of :func:`label_tabu_search`.
    ``last``: the move count at the last new best. Returns ``(moves, value, best, last)``;
    updates x, s, tabu_until, best_x in place."""
    it = it0
    nt = tenures.size
    while it - it0 < max_moves and it - last <= stall:
        bi, bb, bg = -1, -1, -np.inf
        for i in range(n):
            xi = x[i]
            si = s[i * q + xi]
            tabu = tabu_until[i] > it
            for b in range(q):
                if b == xi:
                    continue
                g = s[i * q + b] - si
                if tabu and value + g <= best + thr:
                    continue
                if g > bg:
                    bi, bb, bg = i, b, g
        if bi < 0:
            for i in range(n):
                tabu_until[i] = 0
            it += 1
            continue
        old = bi * q + x[bi]
        new = bi * q + bb
        for k in range(indptr[old], indptr[old + 1]):
            s[indices[k]] -= data[k]
        for k in range(indptr[new], indptr[new + 1]):
            s[indices[k]] += data[k]
        x[bi] = bb
        value += bg
        tabu_until[bi] = it + tenures[it % nt]
        it += 1
        if value > best + thr:
            best = value
            last = it
            for i in range(n):
                best_x[i] = x[i]
    return it - it0, value, best, last


# compiled by numba where it is installed (a dependency on CPython, as in
# :mod:`dpgraph.engine.local_search`); the NumPy loop runs without it
_tabu_label_jit = jit(_tabu_label_kernel)


def _perturbed_restart(A, x, best_x, z, s, tabu_until, gen, perturb, it, tenure) -> float:
    """Label tabu search restart, in place: x = best_x with a ``perturb`` share of its variables
    given random labels (made tabu for a random tenure); z, s = A z recomputed. Returns the
    value of the new x."""
    n, q = s.shape
    ar = np.arange(n)
    x[:] = best_x
    idx = gen.choice(n, max(2, int(perturb * n)), replace=False)
    x[idx] = gen.integers(0, q, idx.size)
    z[:] = 0.0
    z[ar * q + x] = 1.0
    s[:] = np.asarray(A @ z).reshape(n, q)
    tabu_until[:] = 0
    tabu_until[idx] = it + gen.integers(tenure[0], tenure[1] + 1, idx.size)
    return 0.5 * float(s[ar, x].sum())


def label_tabu_search(A, x: np.ndarray, q: int, *, moves: int = 100000, time_limit=None,
                      tenure: tuple[int, int] | None = None, stall: int | None = None,
                      perturb: float = 0.05, rng=None, backend: str = "auto"
                      ) -> tuple[np.ndarray, float, int]:
    r"""Tabu search on assignments with incremental gains (the breakout-local-search move rule
    of Benlic and Hao, 2013, on labels; the single-vertex move of the max-k-cut tabu searches
    of Ma and Hao, 2017).

    The scores :math:`s = Az` (one per variable and label) give the gain of moving variable i
    from label a to b as :math:`s_{ib} - s_{ia}` (within-variable blocks of A are zero). Every
    move takes the best (variable, label) pair whose variable is not tabu -- or that would
    beat the best value found (aspiration) -- even when its gain is negative; the variable
    is then tabu for a random tenure in ``tenure`` (default ``[3, max(4, n/10)]``). After
    ``stall`` moves (default ``10 n``) without a new best, the search restarts from the best
    assignment with a ``perturb`` fraction of the variables set to random labels. One move
    costs O(nq) (a scan for the best pair) plus one column of A: a numba kernel when numba is
    installed (``backend="auto"``; about 40x faster), a NumPy loop otherwise
    (``backend="numpy"``). Stops after ``moves`` moves or ``time_limit`` seconds. Returns ``(best x, best value, moves made)``; the value never
    decreases from that of the start.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(1 - np.eye(4), 1 - np.eye(3)))  # K4, "not equal", q = 3
    >>> x, v, _ = label_tabu_search(A, np.zeros(4, dtype=int), 3, moves=50, rng=0)
    >>> v  # 5 of the 6 edges: K4 is not 3-colourable
    5.0
    """
    gen = make_rng(rng)
    x = np.array(x, dtype=np.int64, copy=True)
    n = x.size
    A = sp.csc_array(A, dtype=np.float64)
    A.sort_indices()
    indptr, indices, data = A.indptr, A.indices, A.data
    z = np.zeros(n * q)
    z[np.arange(n) * q + x] = 1.0
    s = np.asarray(A @ z).reshape(n, q)
    ar = np.arange(n)
    value = 0.5 * float(s[ar, x].sum())
    best_x, best = x.copy(), value
    t_lo, t_hi = tenure if tenure is not None else (3, max(4, n // 10))
    stall = 10 * n if stall is None else int(stall)
    tabu_until = np.zeros(n, dtype=np.int64)
    thr = 1e-9 * max(1.0, float(np.abs(data).max()) if data.size else 1.0)
    t0 = time.perf_counter()
    if backend != "numpy" and numba_available():
        it = last = 0
        tenures = gen.integers(t_lo, t_hi + 1, 1 << 16).astype(np.int64)
        sf = s.reshape(-1)
        chunk = max(1000, 200_000 // max(n * q // 1000, 1))  # ~ 0.1-0.5 s between clock checks
        while it < moves:
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                break
            want = min(chunk, moves - it)
            m, value, best, last = _tabu_label_jit(
                indptr, indices, data, n, q, x, sf, tabu_until, tenures, it, want, stall, last,
                value, best, best_x, thr)
            it += m
            if m < want:  # stalled: restart from the best, perturbed
                value = _perturbed_restart(A, x, best_x, z, s, tabu_until, gen, perturb, it,
                                           (t_lo, t_hi))
                last = it
        best = float(label_values(A, best_x[None, :], q)[0])
        return best_x, best, it
    last_best = 0
    it = 0
    flat_s = s.reshape(-1)
    while it < moves:
        if time_limit is not None and it % 256 == 0 and time.perf_counter() - t0 > time_limit:
            break
        gain = s - s[ar, x][:, None]
        gain[ar, x] = -np.inf
        tabu = tabu_until > it
        if tabu.any():
            g_t = gain[tabu]
            g_t[value + g_t <= best + thr] = -np.inf  # aspiration: a tabu move only to a new best
            gain[tabu] = g_t
        flat = int(np.argmax(gain))
        i, b = divmod(flat, q)
        if not np.isfinite(gain[i, b]):
            tabu_until[:] = 0
            continue
        value += float(gain[i, b])
        for col, sign in ((i * q + x[i], -1.0), (i * q + b, 1.0)):
            a0, a1 = indptr[col], indptr[col + 1]
            flat_s[indices[a0:a1]] += sign * data[a0:a1]
        x[i] = b
        tabu_until[i] = it + int(gen.integers(t_lo, t_hi + 1))
        it += 1
        if value > best + thr:
            best, best_x[:], last_best = value, x, it
        elif it - last_best > stall:  # restart from the best, perturbed
            value = _perturbed_restart(A, x, best_x, z, s, tabu_until, gen, perturb, it,
                                       (t_lo, t_hi))
            last_best = it
    best = float(label_values(A, best_x[None, :], q)[0])  # recomputed: no drift from updates
    return best_x, best, it


# ----------------------------------------------------------------------------- driver


def solve_label_csp(A, n: int, q: int, *, rng=None, rank: int | None = None, tol: float = 1e-7,
                    max_iter: int = 20000, time_limit=None, certificate: str = "auto",
                    samples: int = 32, seeds: int = 2, polish: int = 4, local_search: bool = True,
                    perturbation_rounds: int = 0, tabu_moves: int = 0, tabu_time=None,
                    progress: bool = False, progress_unit: float = 1.0) -> dict:
    r"""Relaxation, certificate, rounding and local search for the objective ``z^T A z / 2``.

    The engine behind ``solve_max_2csp(method="lowrank")``; it also serves objectives that are
    not instances (the signed label-extended weights of a private release). ``A`` must have
    zero within-variable blocks. Returns a dict with ``x`` (best assignment), ``value``,
    ``sdp_value``, ``upper_bound``, ``rounded`` (every distinct candidate, shape (s, n), the
    local-search results included), ``solution`` (:class:`LabelSDPSolution`), ``certificate``
    (info dict) and ``timings``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.kron(np.array([[0, 1], [1, 0]]), 1 - np.eye(3)))  # x_0 != x_1, q = 3
    >>> out = solve_label_csp(A, 2, 3, rng=0)
    >>> out["value"], bool(out["upper_bound"] >= 1.0 - 1e-9)
    (1.0, True)
    """
    gen = make_rng(rng)
    timings = {}
    t = time.perf_counter()
    sol = solve_label_sdp(A, n, q, rank=rank, tol=tol, max_iter=max_iter, rng=gen,
                          time_limit=time_limit, progress=progress,
                          progress_unit=progress_unit)
    timings["sdp"] = time.perf_counter() - t
    t = time.perf_counter()
    ub, cinfo = certify_label_sdp(A, sol.V, method=certificate, rng=gen)
    timings["certificate"] = time.perf_counter() - t
    if progress:
        print(f"[dpgraph.engine] 2-CSP relaxation {sol.value * progress_unit:.6g}, certified "
              f"bound {ub * progress_unit:.6g} "
              f"({cinfo['certificate']})", file=sys.stderr)
    t = time.perf_counter()
    X = round_label_sdp(A, sol.V, rng=gen, samples=samples, seeds=seeds)
    vals = label_values(A, X, q)
    timings["rounding"] = time.perf_counter() - t
    t = time.perf_counter()
    best = int(np.argmax(vals))
    x, value = X[best].copy(), float(vals[best])
    polished = []
    moves = 0
    if local_search:
        for j in np.argsort(-vals)[:max(int(polish), 1)]:
            y, mv = label_local_search(A, X[j], q)
            moves += mv
            polished.append(y)
        if polished:
            P = np.vstack(polished)
            pv = label_values(A, P, q)
            j = int(np.argmax(pv))
            if pv[j] > value:
                x, value = P[j].copy(), float(pv[j])
            X = np.unique(np.vstack([X, P]), axis=0)
        if perturbation_rounds:
            y, v = perturbed_local_search(A, x, q, rounds=perturbation_rounds, rng=gen)
            if v > value:
                x, value = y, v
                X = np.unique(np.vstack([X, y[None, :]]), axis=0)
        if tabu_moves:
            y, v, tm = label_tabu_search(A, x, q, moves=tabu_moves, time_limit=tabu_time, rng=gen)
            timings["tabu_moves"] = tm
            if v > value:
                x, value = y, v
                X = np.unique(np.vstack([X, y[None, :]]), axis=0)
    timings["local_search"] = time.perf_counter() - t
    return {"x": x, "value": value, "sdp_value": float(sol.value), "upper_bound": float(ub),
            "rounded": X, "solution": sol, "certificate": cinfo, "timings": timings,
            "local_search_moves": moves}
