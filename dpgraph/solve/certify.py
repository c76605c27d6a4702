"""The private certificate of quality: a released upper bound on the input's maximum cut.

``max_cut(G, ..., certify=True)`` and ``max_bisection(G, ..., certify=True)`` also release an
upper bound on ``G``'s maximum cut (hence on its maximum bisection), built from the degree-2 SoS
(Goemans-Williamson) relaxation of ``G`` itself (docs/privacy.md 4.13):

1. before anything is spent: the refusal from public ``n`` (:func:`check_certify`: the dense
   certificate's memory and predicted time), then a Burer-Monteiro solve of ``SDP(G)`` and a
   *verified* proof that ``lambda_max(Diag(g) - W) <= 4 tau / n`` for its iterate
   (``tau = certify_gap(n)``: 0.5, or ``n / 8000`` above 4,000 nodes) (a Cholesky
   or sparse LDL^T factorization with Rump's rounding margin). That proof puts
   ``f(G) = L(G) + tau`` (``L``: the iterate's primal value, a feasible point's) in
   ``[SDP(G), SDP(G) + tau]``; the solve is refined until it holds (:func:`input_sdp_bound`);
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
import scipy.sparse as sp

from typing import NamedTuple

from dpgraph.engine.sdp import (CHOLESKY_FLOPS, rump_margin, sdp_rank, solve_lowrank_sdp,
                                sparse_ldl_positive)
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
#: succeeds; the rank doubles from the second on (a failed proof at a converged iterate is a
#: stationary point of too small a rank: ca-hepph's seed 1 failed twice at rank 32 and was
#: verified at 64). 1e-7 first: at 1e-6 facebook's first solve
#: missed tau = 0.5 (gap 0.77) and needed a second solve and factorization
CERTIFY_TOLERANCES = (1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12)
#: sparse LDL^T instead of a dense Cholesky on 501 to 4,000 nodes of mean degree at most 16
#: (as the engine's certificate; both are rigorous, the choice only sets the cost). Not above:
#: the fill of a sparse factorization depends on the graph and could pass the dense
#: factorization's memory, which the public refusal (check_certify) budgets
_SPARSE_MAX_N, _SPARSE_MAX_DEG = 4000, 16


class CertificateError(RuntimeError):
    """The relaxation of the input could not be verified to within ``certify_gap(n)`` (raised
    before anything is spent)."""


class VerifiedBound(NamedTuple):
    """``value = f(G)`` in ``[SDP(G), SDP(G) + tau]`` (verified; NOT private) and ``tau``, a
    function of public ``n``."""

    value: float
    tau: float


def certificate_bytes(n: int) -> int:
    """Peak memory of :func:`input_sdp_bound` at ``n`` nodes, from public ``n`` only: one dense
    ``n x n`` matrix factorized in place (the worst case; sparse inputs may take a sparse
    factorization instead) plus the factor ``V`` and two products of width ``sdp_rank``, up to
    four times that rank after doublings.

    >>> certificate_bytes(1000)
    11072000
    """
    n = int(n)
    return 8 * n * n + 3 * 8 * n * 4 * sdp_rank(n)


def certificate_seconds(n: int) -> float:
    """Predicted time of the verification at public ``n``: three dense Cholesky factorizations
    of ``n^3 / 3`` flops at ``CHOLESKY_FLOPS`` per second (the solve's own time grows with the
    number of edges, which is private and not used).

    >>> round(certificate_seconds(4000), 1)
    12.8
    """
    return 3.0 * (float(n) ** 3 / 3.0) / CHOLESKY_FLOPS


def check_certify(data) -> None:
    """Refuse ``certify=True`` before anything is spent, from public facts only: the input's
    kind (edges on Dask are not held in memory), ``n`` (at least 2), and the verification's
    memory and predicted time at ``n`` (:func:`certificate_bytes`, :func:`certificate_seconds`).
    Nothing here reads an edge: the refusal is the same for every graph on the same nodes."""
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
                             "(DPGRAPH_MEMORY_LIMIT caps what dpgraph may use).")
    secs = certificate_seconds(n)
    if secs > CERTIFY_MAX_SECONDS:
        largest = int((CERTIFY_MAX_SECONDS * CHOLESKY_FLOPS) ** (1.0 / 3.0))
        raise ValueError(f"certify=True at n = {n:,} nodes: verifying the relaxation is predicted "
                         f"to take about {secs:,.0f} s (three n^3/3-flop factorizations), more "
                         f"than the {CERTIFY_MAX_SECONDS:.0f} s allowed "
                         f"(dpgraph.solve.certify.CERTIFY_MAX_SECONDS); at most about "
                         f"{largest:,} nodes fit. Call without certify. Nothing was spent.")


def _sparse_enough(op) -> bool:
    n = op.n
    return not op.is_dense and 500 < n <= _SPARSE_MAX_N and op.nnz <= _SPARSE_MAX_DEG * n


def _verify(op, V: np.ndarray, tau: float) -> tuple[bool, float, dict]:
    """Whether ``(mu - c) I - M`` factorizes for ``M = Diag(g) - W``, ``mu = 4 tau / n`` and
    Rump's margin ``c``, which proves ``lambda_max(M) <= mu``, hence ``SDP <= L + tau`` (weak
    duality with ``y = d - g``; docs/privacy.md 4.13). Where it does not and the iterate's
    stationarity residuals ``r_v = |(W V)_v - g_v V_v|`` sum to at most ``REPAIR_RESIDUAL
    tau``, a second proof with ``g' = g - delta``, ``delta = r (2 tau / sum r)`` and ``mu = 2
    tau / n`` (:func:`_repair`): ``SDP <= L + sum(delta) / 4 + n mu / 4 = L + tau`` as well.
    Returns ``(verified, L, info)`` with ``L = (sum d - sum g) / 4``, the primal value of
    ``V V^T`` (unit rows: feasible)."""
    n = op.n
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    nrm[nrm == 0] = 1.0
    V = V / nrm[:, None]
    WV = op.matmul(V)
    g = np.einsum("ij,ij->i", WV, V)
    L = 0.25 * (float(op.degrees.sum()) - float(g.sum()))
    ok, info = _prove(op, g, 4.0 * tau / n)
    if ok:
        return True, L, info
    WV -= g[:, None] * V                   # the stationarity residuals, in place
    delta = _repair(np.sqrt(np.einsum("ij,ij->i", WV, WV)), tau)
    del WV
    if delta is None:
        return False, L, info
    ok, info = _prove(op, g - delta, 2.0 * tau / n)
    return ok, L, {**info, "method": info["method"] + " (repaired diagonal)"}


#: the repair (:func:`_verify`) is tried where the stationarity residuals sum to at most this
#: many times ``tau``: its ``delta`` (``2 tau`` in all) then covers each row's residual at
#: least once. On ca-hepph (rank 32, tolerance 1e-7) it verified the iterate of rng 3, whose
#: residuals summed to 0.76 (tau 1.5) and whose plain proof failed through ranks 32-128 and
#: tolerances 1e-7 to 1e-10 (332 s in all); rng 1's (9.5) failed it, rng 0's (2.6) passed both
REPAIR_RESIDUAL = 2.0


def _repair(r: np.ndarray, tau: float) -> np.ndarray | None:
    """``delta = r (2 tau / sum r) >= 0`` (``sum(delta) / 4 = tau / 2``), or None where the
    residuals sum to more than ``REPAIR_RESIDUAL tau`` (or to 0: nothing to repair)."""
    total = float(np.sum(r))
    if not 0.0 < total <= REPAIR_RESIDUAL * tau:
        return None
    return r * (2.0 * tau / total)


def _prove(op, g: np.ndarray, mu: float) -> tuple[bool, dict]:
    """Whether the floating factorization of ``(mu - c) I - Diag(g) + W`` succeeds, ``c``
    Rump's margin for its trace: then ``lambda_max(Diag(g) - W) <= mu``."""
    n = op.n
    # Rump: if the floating Cholesky of A - cI succeeds, A is positive definite; here
    # A = mu I - M, tr A = n mu - sum g (W's diagonal is ignored by the operator)
    c = rump_margin(n, abs(n * mu - float(g.sum())))
    info = {"lambda_max_bound": mu, "rump_margin": c}
    if c >= mu:
        return False, {**info, "method": "none (margin above the target)"}
    if _sparse_enough(op):
        Wc = sp.csc_matrix(op.W)
        if op.has_diag:
            Wc = Wc - sp.diags_array(op.diag, format="csc")
        A = (Wc + sp.diags_array(mu - c - g, format="csc")).tocsc()
        ok, _ = sparse_ldl_positive(A)
        return bool(ok), {**info, "method": "ldl-verified"}
    A = op.to_dense()                      # W (zero diagonal); A = (mu - c) I - Diag(g) + W
    A[np.diag_indices(n)] += mu - c - g
    try:  # A is symmetric: its transpose is the same matrix, Fortran-ordered, factored in place
        sla.cholesky(A.T, lower=False, overwrite_a=True, check_finite=False)
        ok = True
    except np.linalg.LinAlgError:
        ok = False
    del A
    return ok, {**info, "method": "cholesky-verified"}


def input_sdp_bound(data, *, rng=None, tau: float | None = None) -> VerifiedBound:
    """``f(G) = L(G) + tau`` with a verified proof that ``SDP(G) <= f(G)`` (and ``L(G) <=
    SDP(G)``, ``L`` being a feasible point's value): NOT private, the input of
    :func:`release_certificate` only (docs/privacy.md 4.13).

    Solves the Max-Cut relaxation of ``data`` by Burer-Monteiro (:func:`dpgraph.engine.sdp.
    solve_lowrank_sdp`) at the tolerances :data:`CERTIFY_TOLERANCES` in turn, each warm-started
    from the last iterate (the rank doubling from the second), until :func:`_verify` succeeds;
    raises :class:`CertificateError` if none does (before anything is spent). Returns the value
    only: how the proof went (method, attempts, rank) depends on the input and goes to the
    progress lines on stderr, never into a result (docs/privacy.md 11).
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
        if k >= 1 and rank < min(n, 4 * first_rank):  # a larger factor escapes a low-rank
            rank = min(n, 2 * rank, 4 * first_rank)     # stationary point (memory: 4x at most)
            V = np.hstack([V, 1e-3 * gen.standard_normal((n, rank - V.shape[1]))])
        report(f"certify: relaxation of the input at tol {tol:g} (rank {rank})")
        sol = solve_lowrank_sdp(op, rank=rank, V0=V, tol=tol, max_iter=20000, rng=gen)
        V = sol.V
        ok, L, info = _verify(op, V, tau)
        if ok:
            report(f"certify: {info['method']} after {k + 1} solve(s), "
                   f"{time.perf_counter() - t0:.1f} s")
            return VerifiedBound(float(L + tau), tau)
    raise CertificateError(
        f"certify=True: the relaxation of the input could not be verified to within "
        f"tau = {tau:g} after {len(CERTIFY_TOLERANCES)} refinements (solver tolerance down to "
        f"{CERTIFY_TOLERANCES[-1]:g}, rank {rank}); nothing was spent. Call without certify.")


def release_certificate(bound: VerifiedBound, *, epsilon: float, m_hat: float | None, ledger,
                        rng, level: float = CERTIFY_LEVEL) -> dict:
    """The Laplace release of ``f(G)`` (:func:`input_sdp_bound`) at sensitivity ``1 + tau``
    and ``eps_c = certify_budget(epsilon, m_hat)``, and its one-sided ``level`` upper end
    ``noisy + b ln(1 / (2 (1 - level)))`` (at least 0): the upper bound on the maximum cut
    (docs/privacy.md 4.13)."""
    eps_c = certify_budget(epsilon, m_hat)
    value, tau = float(bound.value), float(bound.tau)
    noisy, b = laplace_mechanism(
        value, sensitivity=1.0 + tau, epsilon=eps_c, ledger=ledger, rng=rng,
        name="certified relaxation bound of the input",
        note=f"{eps_c / epsilon:.2%} of epsilon (min(10%, 2000 / m^)); SDP(G) moves by <= 1 "
             f"per pair and the verified bound lies in [SDP, SDP + {tau:g}] "
             f"(docs/privacy.md 4.13)")
    upper = max(float(noisy) + b * math.log(1.0 / (2.0 * (1.0 - level))), 0.0)
    return {"noisy_bound": float(noisy), "certified_upper_bound": upper, "scale": float(b),
            "level": level, "epsilon": eps_c, "tau": tau}


def attach_certificate(res, released: dict | None):
    """Set ``res.certified_upper_bound`` and ``res.certified_ratio`` (post-processing):
    ``ratio = min(1, lo / certified_upper_bound)`` with ``lo`` the lower end of the estimate's
    95% interval (0 when the bound is 0; None without an estimate). ``released=None`` (no
    ``certify``): ``res`` as it is."""
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
