"""The private certificate of quality: a released upper bound on the input's maximum cut.

``max_cut(G, ..., certify=True)`` and ``max_bisection(G, ..., certify=True)`` also release an
upper bound on ``G``'s maximum cut (hence on its maximum bisection), built from the degree-2 SoS
(Goemans-Williamson) relaxation of ``G`` itself (docs/privacy.md 4.13):

1. before anything is spent: the refusal from public ``n`` (:func:`check_certify`: the dense
   certificate's memory and predicted time), then a Burer-Monteiro solve of ``SDP(G)`` and a
   *verified* proof that ``lambda_max(Diag(g - E) - W) <= mu`` for its iterate, with a
   diagonal ``E >= 0`` and ``n mu + sum(E) <= 4 tau - R`` (``tau = certify_gap(n)``: 0.5, or
   ``n / 8000`` above 4,000 nodes; ``R`` a reserve for the floating-point sums, far below
   ``tau``) (a dense Cholesky factorization that raises single diagonal entries where a pivot
   fails, with Rump's rounding margin). That proof puts ``f(G) = L(G) + tau`` (``L``: a proven
   lower bound on the iterate's primal value, a feasible point's) in ``[SDP(G), SDP(G) + tau]``
   exactly, every rounding allowed for (docs/privacy.md 4.13, "Rounding"); the solve is
   refined until it holds (:func:`input_sdp_bound`);
2. ``f(G) + Laplace((1 + tau) / eps_c)``: one pair's weight moves ``SDP`` by at most 1, so ``f``
   moves by at most ``1 + tau`` (:func:`release_certificate`);
3. post-processing: ``certified_upper_bound = noisy + b ln 10`` (one-sided 95%) and
   ``certified_ratio = (lower end of the estimate's 95% interval) / certified_upper_bound``, a
   lower confidence bound on how close the returned partition is to optimal, valid with
   probability at least 92.5% (union bound: 2.5% for the interval's lower end, 5% for the
   bound) (:func:`attach_certificate`).

Nothing here returns ``f(G)``, ``L(G)`` or any other unprivatized statistic of the input.
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from typing import NamedTuple

from dpgraph.engine.sdp import (CHOLESKY_FLOPS, rump_certified_diagonal, rump_margin, sdp_rank,
                               solve_lowrank_sdp, upward_sum, weight_sums)
from dpgraph.memory import check_memory
from dpgraph.privacy import laplace_mechanism, make_rng
from dpgraph.privacy.budget import certify_budget, certify_gap
from dpgraph.progress import report

__all__ = ["CERTIFY_LEVEL", "CERTIFY_MAX_SECONDS", "CertificateError", "VerifiedBound",
           "check_certify", "input_sdp_bound", "release_certificate", "attach_certificate",
           "certificate_bytes", "certificate_seconds"]

#: one-sided level of ``certified_upper_bound`` (docs/privacy.md 4.13)
CERTIFY_LEVEL = 0.95
#: refuse (before anything is spent) when the verification's predicted time at public ``n``
#: exceeds this many seconds: three dense factorizations of ``n^3 / 3`` flops at
#: ``CHOLESKY_FLOPS`` (up to 14,422 nodes)
CERTIFY_MAX_SECONDS = 600.0
#: solver tolerances tried in turn (each refines the previous iterate) until the verification
#: succeeds; the rank doubles from the third on (a proof that fails at a converged iterate is a
#: stationary point of too small a rank). The second attempt keeps the rank: a first iterate
#: of ca-hepph whose proof fails is short of convergence, not of rank, and `max_cut(...,
#: certify=True)` at seeds 0 / 1 / 4 verified at rank 32 and tolerance 1e-8 in 41.0 / 37.2 /
#: 28.0 CPU s, against 53.0 / 44.1 / 36.6 s at rank 64 (the same bound to 0.01). 1e-7 first:
#: at 1e-6 facebook's first solve missed tau = 0.5 (gap 0.77) and needed a second solve and
#: factorization
CERTIFY_TOLERANCES = (1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12)
#: the attempt (0-based) from which each attempt doubles the factor's rank
CERTIFY_DOUBLE_FROM = 2
# The proof is a dense floating-point Cholesky on every input, never SuperLU's sparse LDL^T
# (the engine's certificate on 501 to 4,000 sparse nodes): Rump's theorem is proved for
# Cholesky, and the privacy of the released bound rests on the proof (docs/privacy.md 4.13).
# It cost 0.2-0.3 CPU s more on G35 and G48 (2,000 and 3,000 nodes).


class CertificateError(RuntimeError):
    """The relaxation of the input could not be verified to within ``certify_gap(n)`` (raised
    before anything is spent).

    >>> import networkx as nx
    >>> try:  # no tolerance can verify a gap of 0: the proof needs room above the SDP value
    ...     input_sdp_bound(nx.cycle_graph(5), rng=0, tau=0.0)
    ... except CertificateError as exc:
    ...     print(str(exc)[:44])
    certify=True: the relaxation of the input co
    """


class VerifiedBound(NamedTuple):
    """``value = f(G)`` in ``[SDP(G), SDP(G) + tau]`` (verified; NOT private) and ``tau``, a
    function of public ``n``.

    >>> bound = VerifiedBound(value=4.5, tau=0.5)  # K4: SDP = 4, f = L + tau
    >>> bound.value - bound.tau
    4.0
    """

    value: float
    tau: float


def certificate_bytes(n: int) -> int:
    """Peak memory of :func:`input_sdp_bound` at ``n`` nodes, from public ``n`` only: one dense
    ``n x n`` matrix factorized in place (the proof is this dense Cholesky on every input,
    sparse ones included) with the factorization's scratch (two ``n x p`` and three ``p x p``
    arrays, ``p = min(n, BUMP_PANEL)``), plus the factor ``V`` and two products of width
    ``sdp_rank``, up to four times that rank after doublings.

    >>> certificate_bytes(1000)
    51072000
    """
    n = int(n)
    p = min(n, BUMP_PANEL)
    return 8 * n * n + 2 * 8 * n * p + 3 * 8 * p * p + 3 * 8 * n * 4 * sdp_rank(n)


def certificate_seconds(n: int) -> float:
    """Predicted time of the verification at public ``n``: three dense Cholesky factorizations
    of ``n^3 / 3`` flops at ``CHOLESKY_FLOPS`` per second (the solve's own time grows with the
    number of edges, which is private and not used).

    >>> round(certificate_seconds(4000), 1)
    12.8
    """
    return 3.0 * (float(n) ** 3 / 3.0) / CHOLESKY_FLOPS


def _certifiable_bytes(n: int) -> float:
    """:func:`certificate_bytes` where the predicted time is allowed, else infinity: the
    memory refusal's "what fits" names a size the time refusal accepts too."""
    return certificate_bytes(n) if certificate_seconds(n) <= CERTIFY_MAX_SECONDS else math.inf


def check_certify(data) -> None:
    """Refuse ``certify=True`` before anything is spent, from public facts only: the input's
    kind (edges on Dask are not held in memory), ``n`` (at least 2), and the verification's
    memory and predicted time at ``n`` (:func:`certificate_bytes`, :func:`certificate_seconds`).
    Nothing here reads an edge: the refusal is the same for every graph on the same nodes.

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> check_certify(input_graph(nx.cycle_graph(5), weight=None))  # accepted
    >>> check_certify(input_graph(nx.empty_graph(1), weight=None))
    Traceback (most recent call last):
    ...
    ValueError: certify=True needs at least 2 nodes, got 1
    """
    from dpgraph.io.dask import is_dask_input

    if is_dask_input(data):
        raise ValueError("certify=True needs the graph in memory (the relaxation of the input is "
                         "solved and verified on one machine); edges on Dask are not supported: "
                         "load the graph, or call without certify")
    n = int(data.n)
    if n < 2:
        raise ValueError(f"certify=True needs at least 2 nodes, got {n}")
    check_memory(certificate_bytes(n),
                 what=f"the certified relaxation of the input (certify=True) at n = {n:,}",
                 alternative="Call without certify, or on a machine with more memory "
                             "(DPGRAPH_MEMORY_LIMIT caps what dpgraph may use).",
                 fit=(_certifiable_bytes, "At most {:,} nodes fit."))
    secs = certificate_seconds(n)
    if secs > CERTIFY_MAX_SECONDS:
        largest = int((CERTIFY_MAX_SECONDS * CHOLESKY_FLOPS) ** (1.0 / 3.0))
        raise ValueError(f"certify=True at n = {n:,} nodes: verifying the relaxation is predicted "
                         f"to take about {secs:,.0f} s (three n^3/3-flop factorizations), more "
                         f"than the {CERTIFY_MAX_SECONDS:.0f} s allowed "
                         f"(dpgraph.solve.certify.CERTIFY_MAX_SECONDS); at most about "
                         f"{largest:,} nodes fit. Call without certify. Nothing was spent.")


_U = np.finfo(np.float64).eps / 2  # unit roundoff u = 2^-53


def _verify(op, V: np.ndarray, tau: float) -> tuple[bool, float, dict]:
    """Whether ``lambda_max(Diag(g - E) - W) <= mu`` is proved for ``g_v = (W V)_v . v_v`` and
    a diagonal ``E >= 0`` with ``n mu + sum(E) <= 4 tau - R``, hence ``SDP <= L + tau`` (weak
    duality with ``y = d - g + E``; docs/privacy.md 4.13): ``mu = (4 tau - R) (1 - BUMP_SHARE)
    / n`` and ``E`` found by the factorization itself, at most ``(4 tau - R) BUMP_SHARE`` in all
    (:func:`_bumped_cholesky`). Returns ``(verified, L, info)`` with ``L`` a proven lower bound
    on the value of a feasible point (``V``'s rows normalised exactly), so ``L <= SDP``.

    Rounding (docs/privacy.md 4.13, "Rounding"): ``R`` reserves room for the distance between
    the float sums and the exact ones -- ``T`` (the off-diagonal weights' sum), ``sum g``
    against the feasible point's ``<W, X>`` (:func:`_feasible_value_lower`), ``W``'s asymmetry
    (the factorization reads one triangle) and the diagonal's rounding -- and after the proof
    the exact dual bound, evaluated upwards, is checked to be at most the value released,
    :func:`_released_value` ``(L, tau)``, so that ``SDP <= f <= L + tau <= SDP + tau`` holds
    exactly."""
    n = op.n
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    nonzero = nrm > 0
    nrm[~nonzero] = 1.0
    V = V / nrm[:, None]
    g = np.einsum("ij,ij->i", op.matmul(V), V)
    if not np.all(np.isfinite(g)):  # a diverged iterate proves nothing
        return False, 0.0, {"method": "none (iterate not finite)"}
    sums = weight_sums(op, asymmetry=True)
    L, err_g = _feasible_value_lower(op, V, g, sums, nonzero)
    abs_g = float(np.abs(g).sum())
    # 4 (dual bound - L) = 2 total_err + err_g + asym + n mu + sum E* (+ ulps): reserve room
    reserve = (2 * sums.total_err + err_g + sums.asym + 32 * _U * (abs_g + 4 * tau)
               + 2.0 ** -40 * 4 * tau)
    room = 4.0 * tau - reserve
    if not room > 0:
        return False, L, {"method": "none (rounding allowance above the gap)"}
    ok, info = _prove(op, g, room * (1.0 - BUMP_SHARE) / n, room * BUMP_SHARE)
    if not ok:
        return False, L, info
    # the exact dual bound (T - sum g + n mu + sum E* + asym) / 4, evaluated upwards
    dual = upward_sum([sums.total, sums.total_err, math.nextafter(n * info["lambda_max_bound"],
                       math.inf), info["excess_bound"], sums.asym] + (-g).tolist())
    dual = math.nextafter(0.25 * dual, math.inf)
    if dual > _released_value(L, tau):
        return False, L, {**info, "method": "none (rounding: the dual bound is above L + tau)"}
    return True, L, info


def _feasible_value_lower(op, V: np.ndarray, g: np.ndarray, sums, nonzero) -> tuple[float, float]:
    r"""``(L, err_g)``: a float ``L`` at most the value :math:`\tfrac14(T - \langle W, X\rangle)`
    of the feasible :math:`X_{ij} = v_i \cdot v_j / (|v_i||v_j|)` (the float rows ``v_i`` of
    ``V`` normalised exactly; a zero row is a new unit direction: :math:`X_{ij} = 0`), and
    ``err_g`` :math:`\ge |\sum_i g_i - \langle W, X\rangle|`.

    With :math:`s_i = |v_i|`, :math:`\sigma \ge \max|s_i - 1|` (from the computed squared
    norms, each within :math:`\gamma_k` of exact), ``P = fl(W V)`` (dot products of at most
    n + 2 terms, a diagonal subtraction included) and ``g = fl(rowwise P . V)`` (k terms):
    :math:`|g_i - \sum_j W_{ij} v_i\cdot v_j| \le \gamma_{n+k+2}\sum_j |W_{ij}| s_i s_j`
    (Higham, Sec. 3.5, any order, fused multiply-adds included; Cauchy-Schwarz) and
    :math:`|\sum_j W_{ij}(v_i\cdot v_j - X_{ij})| \le \sum_j|W_{ij}||s_is_j - 1|`, so
    :math:`err_g = \sum|W|\,(\gamma_{n+k+2}(1+\sigma)^2 + 2\sigma + \sigma^2)`, doubled for its
    own rounding; then :math:`L = \tfrac14(T_{low} - \sum g - err_g)` rounded down."""
    n, k = V.shape
    s2 = np.einsum("ij,ij->i", V[nonzero], V[nonzero])
    t = float(np.max(np.abs(s2 - 1.0), initial=0.0))
    sigma = t + 2 * (k + 2) * _U * (1.0 + t)
    a_full = sums.abs_total + 2.0 * float(np.abs(op.diag).sum())
    err_g = 2.0 * a_full * ((n + k + 3) * _U * (1.0 + sigma) ** 2 + 2 * sigma + sigma ** 2)
    x = math.fsum([sums.total, -sums.total_err, -err_g] + (-g).tolist())
    x = math.nextafter(x, -math.inf)  # <= the exact sum
    q = 0.25 * x
    return (q if 4.0 * q == x else math.nextafter(q, -math.inf)), err_g


def _released_value(L: float, tau: float) -> float:
    """``L + tau`` rounded down (the released ``f(G)`` is at most ``L + tau`` exactly)."""
    f = L + tau
    if math.fsum([L, tau, -f]) < 0:  # the sign of the exact L + tau - f
        f = math.nextafter(f, -math.inf)
    return f


#: the share of the gap ``tau`` that the dense proof may spend on raising single diagonal
#: entries (:func:`_bumped_cholesky`); the rest is the target ``mu``. On ca-hepph (rank 32,
#: tolerance 1e-7) the first iterate failed the plain proof at four seeds of nine, each time
#: on eigenvectors of ``Diag(g) - W`` held by one to four nodes (at rng 1 the largest, 6.2e-4
#: against ``mu`` = 5e-4, on two nodes of degree 4); one to three bumps verified three of them
#: at the first solve, where a second solve at rank 64 took 25-35 s more (the fourth, rng 4,
#: has several on a group of degree-14 nodes: its bumps grow, pivot after pivot, past the
#: budget)
BUMP_SHARE = 0.125
#: columns per panel of :func:`_bumped_cholesky` (its scratch: two ``n x BUMP_PANEL`` arrays)
BUMP_PANEL = 1024
#: the smallest bump is ``budget / BUMP_COUNT``, so a factorization makes at most this many
BUMP_COUNT = 64


def _bumped_cholesky(A: np.ndarray, budget: float) -> np.ndarray | None:
    """A floating-point Cholesky factorization of the symmetric ``A`` (lower triangle, in
    place), left-looking by panels of :data:`BUMP_PANEL` columns, that raises the diagonal
    entry where a pivot fails (a modified Cholesky, as Gill and Murray's, but only where
    needed): by twice the missing pivot, at least ``budget / BUMP_COUNT``. Returns the bumps
    ``E`` (the factorization is then that of ``A + Diag(E)``), or None once they would sum to
    more than ``budget``.

    Why this is a floating Cholesky of ``A + Diag(E)`` for Rump's theorem (4.13): a panel's
    diagonal entries are first read when its own diagonal block is formed, after every bump
    of earlier panels; a bump re-forms that block from the same products, so every entry is
    computed as it would be from ``A + Diag(E)`` at the start, with its inner products summed
    in some order (Higham, Accuracy and Stability, Thm 10.3 holds for any order).

    >>> A = np.array([[1.0, 1.0], [1.0, 1.0 - 1e-3]])  # lambda_min < 0
    >>> E = _bumped_cholesky(A.copy(), 0.1)
    >>> bool(E[1] > 1e-3 and E.sum() <= 0.1 and E[0] == 0)
    True
    """
    n = A.shape[0]
    E = np.zeros(n)
    floor = budget / BUMP_COUNT
    for k0 in range(0, n, BUMP_PANEL):
        k1 = min(n, k0 + BUMP_PANEL)
        Lk = A[k0:k1, :k0]
        G = Lk @ Lk.T
        while True:
            D = A[k0:k1, k0:k1] - G
            c, info = lapack.dpotrf(D, lower=1, clean=1)
            if info == 0:
                if not np.all(np.isfinite(np.diagonal(c))):  # OpenBLAS passes NaN pivots
                    return None
                break
            i = int(info) - 1  # the leading minor of order i + 1 fails: its Schur pivot s
            Ls, sub = lapack.dpotrf(D[:i, :i], lower=1, clean=1)
            s = -np.inf if sub != 0 else D[i, i] - float(
                np.sum(sla.solve_triangular(Ls, D[:i, i], lower=True, check_finite=False) ** 2))
            bump = max(-2.0 * s, floor) if np.isfinite(s) else budget
            before = A[k0 + i, k0 + i]
            A[k0 + i, k0 + i] = before + bump
            E[k0 + i] += A[k0 + i, k0 + i] - before  # the change actually stored
            if E.sum() > budget:
                return None
        A[k0:k1, k0:k1] = c
        if k1 < n:
            B = A[k1:, k0:k1]
            if k0:
                B -= A[k1:, :k0] @ Lk.T
            A[k1:, k0:k1] = sla.solve_triangular(c, B.T, lower=True, check_finite=False).T
    return E


def _prove(op, g: np.ndarray, mu: float, budget: float = 0.0) -> tuple[bool, dict]:
    """Whether the floating Cholesky of ``(mu - c) I - Diag(g) + W + Diag(E)`` succeeds for
    some ``E >= 0`` summing to at most ``budget`` (:func:`_bumped_cholesky`), ``c`` Rump's
    margin for its trace: then ``lambda_max(Diag(g - E*) - W) <= mu`` with ``E*`` the
    diagonal excess of the matrix proven, ``sum(E*) <= info['excess_bound']`` (about
    ``sum(E)``; docs/privacy.md 4.13, "Rounding").

    The diagonal factorised, ``fl(fl(mu - c) - g_i)`` plus the bumps, is rounded to nearest,
    while Rump's theorem needs it at most ``a_ii - c`` exactly: from (an upper bound on) it,
    :func:`dpgraph.engine.sdp.rump_certified_diagonal` gives floats ``b`` with the matrix of
    diagonal ``b`` and W's lower triangle proven positive definite (``c`` checked against the
    margin of ``sum b``), and ``E*_i = max(0, b_i - mu + g_i)`` (a few units of roundoff of
    ``|g_i|`` where nothing was bumped) makes ``mu I - Diag(g - E*) + W`` at least that."""
    n = op.n
    # Rump: if the floating Cholesky of A - cI succeeds, A is positive definite; here
    # A = mu I - M + Diag(E), tr A <= |n mu - sum g| + budget (W's diagonal is ignored)
    c = rump_margin(n, abs(n * mu - float(g.sum())) + budget)
    info = {"lambda_max_bound": mu, "rump_margin": c}
    if not np.all(np.isfinite(g)):  # a diverged iterate proves nothing
        return False, {**info, "method": "none (iterate not finite)"}
    if c >= mu:
        return False, {**info, "method": "none (margin above the target)"}
    A = op.to_dense()                      # W (zero diagonal); A = (mu - c) I - Diag(g) + W
    A[np.diag_indices(n)] += mu - c - g
    d0 = np.array(np.diagonal(A))          # the diagonal factorised, before any bump
    E = _bumped_cholesky(A, budget)
    del A
    if E is None:
        return False, {**info, "method": "cholesky failed (bumps over budget)"}
    # the bumped diagonal: d0_i plus the stored changes, each a non-negative difference of
    # floats rounded once (at most BUMP_COUNT of them, E_i their float sum): within
    # 2 BUMP_COUNT u E_i of E_i; 2^-44 covers it, one ulp up the addition
    d_up = np.where(E > 0, np.nextafter(d0 + E * (1.0 + 2.0 ** -44), np.inf), d0)
    b = rump_certified_diagonal(d_up, c)
    if b is None:
        return False, {**info, "method": "none (Rump's margin too small for the diagonal)"}
    # E*_i >= b_i - mu + g_i: two roundings of |b_i| + |mu| + |g_i| at most, 4u covers them
    # with the inflation's own rounding
    ex = (b - mu) + g
    ex = ex + 4 * _U * (np.abs(b) + abs(mu) + np.abs(g))
    info["excess_bound"] = upward_sum(np.maximum(ex, 0.0).tolist())
    bumped = int(np.count_nonzero(E))
    return True, {**info, "method": "cholesky-verified" + (
        f" ({bumped} diagonal bump(s), {E.sum():.3g} of {budget:.3g})" if bumped else "")}


def input_sdp_bound(data, *, rng=None, tau: float | None = None) -> VerifiedBound:
    """``f(G) = L(G) + tau`` with a verified proof that ``SDP(G) <= f(G)`` (and ``L(G) <=
    SDP(G)``, ``L`` being a feasible point's value): NOT private, the input of
    :func:`release_certificate` only (docs/privacy.md 4.13).

    Solves the Max-Cut relaxation of ``data`` by Burer-Monteiro (:func:`dpgraph.engine.sdp.
    solve_lowrank_sdp`) at the tolerances :data:`CERTIFY_TOLERANCES` in turn, each warm-started
    from the last iterate (the rank doubling from the third), until :func:`_verify` succeeds;
    raises :class:`CertificateError` if none does (before anything is spent). Returns the value
    only: how the proof went (method, attempts, rank) depends on the input and goes to the
    progress lines on stderr, never into a result (docs/privacy.md 11).

    The 5-cycle's relaxation is ``5 (1 + cos(pi / 5)) / 2`` (an odd cycle's, by hand):

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> bound = input_sdp_bound(input_graph(nx.cycle_graph(5), weight=None), rng=0)
    >>> sdp = 5 * (1 + np.cos(np.pi / 5)) / 2
    >>> bound.tau, bool(round(bound.value, 6) == round(sdp + bound.tau, 6))  # L(G) = SDP(G)
    (0.5, True)
    """
    from dpgraph.engine import as_weight_operator

    op = as_weight_operator(data)
    gen = make_rng(rng)
    n = op.n
    tau = certify_gap(n) if tau is None else float(tau)
    if op.nnz == 0 or float(np.max(np.abs(op.degrees), initial=0.0)) == 0.0:
        # no edge: SDP = 0 exactly; L = 0 and the verification is trivial
        return VerifiedBound(float(tau), tau)
    rank = first_rank = sdp_rank(n)
    V = None
    t0 = time.perf_counter()
    for k, tol in enumerate(CERTIFY_TOLERANCES):
        if k >= CERTIFY_DOUBLE_FROM and rank < min(n, 4 * first_rank):
            # a larger factor escapes a low-rank stationary point (memory: 4x at most)
            rank = min(n, 2 * rank, 4 * first_rank)
            V = np.hstack([V, 1e-3 * gen.standard_normal((n, rank - V.shape[1]))])
        report(f"certify: relaxation of the input at tol {tol:g} (rank {rank})")
        sol = solve_lowrank_sdp(op, rank=rank, V0=V, tol=tol, max_iter=20000, rng=gen)
        V = sol.V
        ok, L, info = _verify(op, V, tau)
        if ok:
            report(f"certify: {info['method']} after {k + 1} solve(s), "
                   f"{time.perf_counter() - t0:.1f} s")
            return VerifiedBound(_released_value(L, tau), tau)
    raise CertificateError(
        f"certify=True: the relaxation of the input could not be verified to within "
        f"tau = {tau:g} after {len(CERTIFY_TOLERANCES)} refinements (solver tolerance down to "
        f"{CERTIFY_TOLERANCES[-1]:g}, rank {rank}); nothing was spent. Call without certify.")


def release_certificate(bound: VerifiedBound, *, epsilon: float, m_hat: float | None, ledger,
                        rng, n: int | None = None, level: float = CERTIFY_LEVEL) -> dict:
    """The Laplace release of ``f(G)`` (:func:`input_sdp_bound`) at sensitivity ``1 + tau``
    and ``eps_c = certify_budget(epsilon, m_hat)``, and its one-sided ``level`` upper end
    ``noisy + b ln(1 / (2 (1 - level)))``, clamped to ``[0, floor(n / 2) ceil(n / 2)]`` (no cut
    of ``n`` nodes with weights in ``[0, 1]`` exceeds that; post-processing): the upper bound
    on the maximum cut (docs/privacy.md 4.13).

    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> rel = release_certificate(VerifiedBound(64.0, 0.5), epsilon=1.0, m_hat=78.0, ledger=led,
    ...                           rng=0, n=34)
    >>> rel["epsilon"], round(rel["scale"], 1), round(led.spent[0], 6)  # b = (1 + tau) / 0.1
    (0.1, 15.0, 0.1)
    >>> up = rel["noisy_bound"] + rel["scale"] * np.log(10)  # one-sided 95%: b ln(1 / 0.1)
    >>> bool(np.isclose(rel["certified_upper_bound"], min(max(up, 0.0), 17 * 17)))
    True
    """
    eps_c = certify_budget(epsilon, m_hat)
    value, tau = float(bound.value), float(bound.tau)
    noisy, b = laplace_mechanism(
        value, sensitivity=1.0 + tau, epsilon=eps_c, ledger=ledger, rng=rng,
        name="certified relaxation bound of the input",
        note=f"{eps_c / epsilon:.2%} of epsilon (min(10%, 2000 / m^)); SDP(G) moves by <= 1 "
             f"per pair and the verified bound lies in [SDP, SDP + {tau:g}] "
             f"(docs/privacy.md 4.13)")
    upper = max(float(noisy) + b * math.log(1.0 / (2.0 * (1.0 - level))), 0.0)
    if n is not None:
        upper = min(upper, float((int(n) // 2) * (int(n) - int(n) // 2)))
    return {"noisy_bound": float(noisy), "certified_upper_bound": upper, "scale": float(b),
            "level": level, "epsilon": eps_c, "tau": tau}


def attach_certificate(res, released: dict | None):
    """Set ``res.certified_upper_bound`` and ``res.certified_ratio`` (post-processing):
    ``ratio = min(1, lo / certified_upper_bound)`` with ``lo`` the lower end of the estimate's
    95% interval (0 when the bound is 0; None without an estimate). ``released=None`` (no
    ``certify``): ``res`` as it is.

    >>> from types import SimpleNamespace
    >>> released = {"certified_upper_bound": 80.0, "level": 0.95, "noisy_bound": 75.0,
    ...             "scale": 1.0, "epsilon": 0.1, "tau": 0.5}
    >>> res = attach_certificate(SimpleNamespace(estimate_interval=(60.0, 70.0)), released)
    >>> res.certified_ratio, res.certificate["ratio_level"]  # 60 / 80; 1 - 0.05 - 0.025
    (0.75, 0.925)
    """
    if released is None:
        return res
    ub = released["certified_upper_bound"]
    res.certified_upper_bound = ub
    res.certified_ratio = None
    if res.estimate_interval is not None:
        lo = float(res.estimate_interval[0])
        res.certified_ratio = min(1.0, max(lo, 0.0) / ub) if ub > 0 else 0.0
    est_level = float(getattr(res, "estimate_level", 0.95))
    res.certificate = {
        "level": released["level"],
        "ratio_level": round(1.0 - (1.0 - released["level"]) - (1.0 - est_level) / 2.0, 12),
        "noisy_bound": released["noisy_bound"], "scale": released["scale"],
        "epsilon": released["epsilon"], "tau": released["tau"]}
    return res
