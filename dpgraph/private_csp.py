"""Private Max-2-CSP: privacy over the label-extended graph (d'Orsi & Novikov Sec. 7.3, Thm 7.19).

Adjacency: two instances on the same public variables and alphabet are neighbours when one
constraint ``(i, j, R, w)``, ``w`` in [0, 1], is added or removed. The mechanism
(docs/privacy.md 4.8):

1. private variable degrees ``d_i = sum of w over constraints touching i`` (sensitivity ``sqrt 2``);
2. a public normalizer ``d~_(i,a) = max(d^_i, 0) + tau`` for every label ``a`` of ``i``;
3. private rank-r estimate of ``M = D~^-1/2 A D~^-1/2``, ``A`` the label-extended adjacency
   (Def. 7.9), under Delta-adjacency with ``Delta = sqrt(2 q^3) w0``, ``w0 = 1/min d~``; on a halting
   branch, Gaussian perturbation of the upper triangle of ``M`` (sensitivity ``q w0``) truncated to
   rank r takes the budget left;
4. private tail level ``sigma_{r+1}(M)`` (sensitivity ``q w0``) for the projection radius;
5. post-processing: projection onto non-negative bounded-spectrum matrices, synthetic weights
   ``D~^1/2 A^ D~^1/2``, within-variable blocks zeroed, a synthetic instance with one singleton
   constraint per label pair, solved by :func:`dpgraph.csp.solve_max_2csp`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .privacy import PrivacyLedger, reproducible_tag, gaussian_mechanism, make_rng, symmetric_gaussian_noise
from .privacy._validate import check_delta, check_epsilon
from .privatize import check_rank, check_share
from .routes.pca import (normalized_adjacency, project, regularizer, release_low_rank,
                         tail_singular_value)
from .routes.randomized_response import top_eigenpairs

__all__ = ["PrivateCSPResult", "max_2csp", "label_extended_sensitivities"]


def label_extended_sensitivities(q: int, w0: float) -> dict:
    """The bounds of docs/privacy.md 4.8 for one constraint change, entries at most ``w0``.

    ``E = [[0, F], [F^T, 0]]`` on the labels of ``i`` and ``j``, ``F`` a ``q x q`` block with
    ``|F_ab| <= w0``: ``upper_triangle_l2 = ||F||_F <= q w0``; ``spectral = ||E|| = ||F|| <= q w0``;
    ``delta_adjacency = sqrt(||E E^T||_1) <= sqrt(2 q^3) w0`` (entrywise l1).
    """
    return {"upper_triangle_l2": q * w0, "spectral": q * w0,
            "delta_adjacency": math.sqrt(2.0 * q**3) * w0}


@dataclass(eq=False)
class PrivateCSPResult:
    """Result of :func:`max_2csp`: the assignment (variable -> value), the private estimate of its
    value in the input (true value + Gaussian noise, sensitivity 1: docs/privacy.md 4.10), its
    value on the synthetic instance, the ledger and diagnostics."""

    assignment: dict
    estimated_value: float
    synthetic_value: float
    ledger: PrivacyLedger
    solver: object
    diagnostics: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        return (f"PrivateCSPResult(n={len(self.assignment)}, estimated_value="
                f"{self.estimated_value:.6g}, epsilon={eps:.4g}, delta={dlt:.3g}, "
                f"low_rank={self.diagnostics.get('low_rank_mechanism')!r}"
                f"{reproducible_tag(self.ledger)})")


def _gaussian_fallback(M: sp.csr_array, rank: int, sens: float, *, epsilon: float, delta: float,
                       ledger: PrivacyLedger, rng):
    n = M.shape[0]
    noise = symmetric_gaussian_noise(n, sensitivity=sens, epsilon=epsilon, delta=delta,
                                     ledger=ledger, name="fallback: Gaussian on M", rng=rng,
                                     note="upper triangle of the label-extended M; one constraint "
                                          "changes <= q^2 entries by <= w0 (docs/privacy.md 4.8)")
    X = noise.to_dense()
    np.fill_diagonal(X, 0.0)  # the diagonal is public (zero): its noise is discarded
    X += M.toarray()
    vec, lam = top_eigenpairs(X, rank)
    return vec, np.diag(lam)


def max_2csp(instance, *, epsilon: float, delta: float, rank: int = 4, rng=None,
             degree_share: float = 0.05, tail_share: float = 0.05, core_share: float = 0.1,
             max_projector_noise: float | None = 0.5, estimate_share: float = 0.05,
             solver_options: dict | None = None,
             pca_options: dict | None = None) -> PrivateCSPResult:
    """Edge-(epsilon, delta)-DP Max-2-CSP: the constraints are private, variables and alphabet public.

    Parameters
    ----------
    instance : dpgraph.csp.CSPInstance
        Constraint weights must lie in [0, 1].
    epsilon, delta : float
    rank : int
        Rank of the private estimate of the label-extended normalized adjacency.
    rng : None, int or numpy.random.Generator
    solver_options : dict
        Passed to :func:`dpgraph.csp.solve_max_2csp`.

    Returns
    -------
    PrivateCSPResult

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.csp import CSPInstance
    >>> rng = np.random.default_rng(0)
    >>> cons = [(i, j, {(a, b) for a in range(3) for b in range(3) if a != b}, 1.0)
    ...         for i in range(30) for j in range(i + 1, 30) if rng.random() < 0.3]
    >>> res = max_2csp(CSPInstance(30, 3, cons), epsilon=2.0, delta=1e-6, rank=2, rng=1)
    >>> sorted(set(res.assignment.values())) <= [0, 1, 2]
    True
    """
    from .csp import CSPInstance, solve_max_2csp

    if not isinstance(instance, CSPInstance):
        raise TypeError(f"instance must be a dpgraph.csp.CSPInstance, got {type(instance).__name__}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    degree_share = check_share("degree_share", degree_share)
    tail_share = check_share("tail_share", tail_share)
    core_share = check_share("core_share", core_share)
    estimate_share = check_share("estimate_share", estimate_share)
    n, q = instance.n, instance.q
    if n < 3:
        raise ValueError(f"max_2csp needs at least 3 variables, got {n}")
    if q < 2:
        raise ValueError(f"max_2csp needs an alphabet of at least 2 values, got q = {q}")
    weights = np.array([c[3] for c in instance.constraints], dtype=float)
    if weights.size and (weights.min() < 0 or weights.max() > 1):
        raise ValueError("max_2csp protects instances whose constraint weights lie in [0, 1] (one "
                         "constraint added or removed is the adjacency); rescale the weights")
    N = n * q
    rank = check_rank(rank, N)
    gen = make_rng(rng)
    total_epsilon, total_delta = epsilon, delta
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    epsilon, delta = (1 - estimate_share) * epsilon, (1 - estimate_share) * delta
    timings: dict = {}
    t0 = time.perf_counter()

    # 1. private variable degrees (sensitivity sqrt 2: docs/privacy.md 4.8)
    deg = np.zeros(n)
    for i, j, _, w in instance.constraints:
        deg[i] += w
        deg[j] += w
    d_hat, sigma_deg = gaussian_mechanism(
        deg, sensitivity=math.sqrt(2.0), epsilon=degree_share * epsilon,
        delta=degree_share * delta, ledger=ledger, name="variable degrees", rng=gen,
        note="one constraint changes two variable degrees by <= 1 (docs/privacy.md 4.8)")
    tau = regularizer(np.atleast_1d(d_hat), "mean")
    d_tilde = np.repeat(np.maximum(d_hat, 0.0) + tau, q)  # index i*q + a
    w0 = 1.0 / float(d_tilde.min())
    sens = label_extended_sensitivities(q, w0)
    M = normalized_adjacency(instance.label_adjacency(), d_tilde)
    del deg

    # 2-3. private low-rank estimate under Delta-adjacency, Gaussian fallback on halting
    pca_share = 1.0 - degree_share - tail_share
    eps_pca, dlt_pca = pca_share * epsilon, pca_share * delta
    basis, core, mechanism, sub = release_low_rank(
        M, rank, sens["delta_adjacency"], epsilon=eps_pca, delta=dlt_pca, core_share=core_share,
        ledger=ledger, rng=gen, max_projector_noise=max_projector_noise, pca_options=pca_options,
        fallback=lambda eps_left, dlt_left: _gaussian_fallback(
            M, rank, sens["upper_triangle_l2"], epsilon=eps_left, delta=dlt_left, ledger=ledger,
            rng=gen),
        fallback_name="Gaussian perturbation")

    # 4. private tail level (Weyl, ||E|| <= q w0)
    tail_hat, sigma_tail = gaussian_mechanism(
        tail_singular_value(M, rank, gen), sensitivity=sens["spectral"] + 1e-8,
        epsilon=tail_share * epsilon, delta=tail_share * delta, ledger=ledger,
        name="tail singular value", rng=gen,
        note="Weyl, ||E|| <= ||F|| <= q w0 (docs/privacy.md 4.8)")
    del M  # nothing below reads the input
    timings["privatize"] = time.perf_counter() - t0

    # 5. post-processing: projection, synthetic label-extended weights, synthetic instance
    t0 = time.perf_counter()
    radius = max(tail_hat, 0.0) + 2.0 * sigma_tail
    projected, proj_info = project(basis, core, radius, "dykstra" if N <= 5000 else "clip")
    s = np.sqrt(d_tilde)
    W = np.outer(s, s)
    W *= projected
    del projected
    block = np.arange(N) // q
    W[block[:, None] == block[None, :]] = 0.0  # no constraint relates a variable to itself
    iu, ju = np.nonzero(np.triu(W > 0))
    cons = [(int(a // q), int(b // q), {(int(a % q), int(b % q))}, float(W[a, b]))
            for a, b in zip(iu, ju)]
    synthetic = CSPInstance(n, q, cons)
    timings["synthetic"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = solve_max_2csp(synthetic, rng=gen, **(solver_options or {}))
    timings["solve"] = time.perf_counter() - t0
    # a fixed assignment's value changes by <= 1 with one constraint (docs/privacy.md 4.10)
    estimate, _ = gaussian_mechanism(
        instance.value(res.assignment), sensitivity=1.0, epsilon=estimate_share * total_epsilon,
        delta=estimate_share * total_delta, ledger=ledger, name="value of the returned assignment",
        rng=gen, note="fixed assignment; one constraint of weight <= 1 (docs/privacy.md 4.10)")
    return PrivateCSPResult(
        assignment=dict(res.assignment), estimated_value=float(estimate),
        synthetic_value=float(synthetic.value(res.assignment)),
        ledger=ledger, solver=res,
        diagnostics={"tau": tau, "w0": w0, "sensitivities": sens, "degree_sigma": sigma_deg,
                     "tail_estimate": tail_hat, "tail_sigma": sigma_tail, "projection": proj_info,
                     "low_rank_mechanism": mechanism, "pca_halted": bool(sub.halted),
                     "pca": sub.diagnostics, "synthetic_constraints": len(cons),
                     "timings": timings})
