"""The dense coherence-aware PCA route (d'Orsi & Novikov, Alg. 6.2 and Alg. 7.13 steps 1-3).

Steps (derivations in docs/privacy.md, sections 3 and 4):

1. **Private degrees.** ``d^ = d + N(0, sigma_1^2 I)``; one edge changes two degrees by at most
   1 each, so the L2 sensitivity is ``sqrt(2)`` (4.1).
2. **Regularized normalizer** (post-processing of ``d^``): ``d~_i = max(d^_i, 0) + tau`` with
   ``tau > 0`` (by default the mean of ``max(d^, 0)``, the regularized-Laplacian choice of
   Qin & Rohe 2013). Every ``d~_i >= tau``, so no vertex can have a tiny normalizer.
3. **Private low-rank estimate** of ``M = D~^-1/2 A D~^-1/2``. With ``d~`` fixed (released),
   one edge ``{i, j}`` changes exactly the pair ``M_ij = M_ji`` by ``<= w = 1/min_k d~_k``: the
   entry adjacency of :class:`dpgraph.spectral.EntryAdjacency`, handled by the coherence-aware
   private PCA (Thm 5.1 / Alg. 5.10; 4.2). A halting test gives its unused budget to randomized
   response truncated to rank r (4.7).
4. **Private tail level.** ``s^ = sigma_{r+1}(M) + N(0, sigma_2^2)``; by Weyl's inequality the
   sensitivity of any singular value is ``||E|| = w`` (4.3). It sets the projection radius.
5. **Projection** (post-processing): ``A^`` = the Euclidean projection of ``A^'`` onto
   ``{X symmetric : X >= 0 entrywise, ||X - A^'|| <= rho}`` with ``rho = max(s^, 0) + 2 sigma_2``
   (Sec. 2.1 and (7.2)); the synthetic weighted graph is ``D~^1/2 A^ D~^1/2``.

Budget: ``degree_share``, ``tail_share`` of (epsilon, delta) on steps 1 and 4, the rest on
step 3 (of which ``core_share`` on the r x r core). Dense: the projection holds ``n x n``
matrices (:func:`estimated_memory`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as spla

from dpgraph.caller import DPGraphWarning, caller_stacklevel
from dpgraph.graph import GraphData
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.privacy import PrivacyLedger, gaussian_mechanism, symmetric_gaussian_noise
from dpgraph.privacy.ledger import uncounted
from dpgraph.progress import Progress, report
from dpgraph.release.routes.randomized_response import fallback_randomized_response

__all__ = ["release", "estimated_memory", "regularizer", "normalized_adjacency",
           "tail_singular_value", "project", "release_low_rank", "DYKSTRA_MAX_N",
           "BYTES_PER_PAIR", "BYTES_PER_RANK_COLUMN", "PCAHaltedWarning"]

# Above this many nodes the dense n x n projection is replaced by its first step (entrywise
# clipping), unless projection="dykstra" is asked for; see PrivateGraph.diagnostics.
DYKSTRA_MAX_N = 5000
# Peak bytes per n^2 above the interpreter's baseline, measured with
# benchmarks/bench_route_memory.py (peak RSS, planted n = 4,000, mean degree 50, route="pca",
# BENCHMARKS.md "Route memory"): privatize alone 22.0, privatize + max_cut 40.8 (the
# projection's dense arrays, then the export and the engine's operator).
BYTES_PER_PAIR = 48.0
# Peak bytes per node and unit of rank beyond that: the rank-r eigensolves (ARPACK's Lanczos
# basis of 2 r + 1 vectors, the eigenvectors; the tail value's r + 1 of them), the basis, its
# products and the fallback's truncation. Peak RSS of privatize(route="pca") above its input
# at rank 8 / 375 / 750 / 1,490 on 1,500 nodes and 8 / 500 / 2,990 on 3,000 nodes: 22 B per
# n^2 plus 96, 65, 75, 72 and 71 B per node and unit of rank; rounded up.
BYTES_PER_RANK_COLUMN = 96


class PCAHaltedWarning(DPGraphWarning):
    """The private PCA halted (a private spectral-gap or coherence test failed) and, with no
    fallback, released a uniformly random subspace: results carry no information about the
    graph (:attr:`PrivateGraph.halted`).

    >>> issubclass(PCAHaltedWarning, UserWarning)  # shown once per call site by default
    True
    """


def estimated_memory(n: int, m: int, rank: int) -> int:
    """Peak bytes of this route plus the dense solve downstream: ``BYTES_PER_PAIR * n^2`` and
    ``BYTES_PER_RANK_COLUMN * n * rank`` (its rank-``r`` eigensolves and bases, which reach
    the ``n^2`` part's size as the rank nears ``n``).

    >>> estimated_memory(1000, 5000, 8) == 48 * 1000 ** 2 + 96 * 1000 * 8
    True
    >>> estimated_memory(3000, 0, 2990) > 2 * estimated_memory(3000, 0, 8)
    True
    """
    return int(BYTES_PER_PAIR * float(n) ** 2 + BYTES_PER_RANK_COLUMN * float(n) * int(rank))


def regularizer(d_hat: np.ndarray, regularization) -> float:
    """``tau`` of the normalizer ``d~ = max(d^, 0) + tau``: the mean of ``max(d^, 0)`` floored
    at 1 (``"mean"``, Qin & Rohe's regularization), or a given number > 0. Shared by the
    matrix-free route.

    >>> round(regularizer(np.array([4.0, 6.0, -1.0]), "mean"), 4)  # (4 + 6 + 0) / 3
    3.3333
    >>> regularizer(np.array([-2.0, 0.5, 1.0]), "mean"), regularizer(np.ones(3), 2.5)  # floor 1
    (1.0, 2.5)
    >>> regularizer(np.ones(3), 0)
    Traceback (most recent call last):
    ...
    ValueError: regularization must be 'mean' or a number > 0, got 0
    """
    if isinstance(regularization, str) and regularization == "mean":
        return max(float(np.mean(np.maximum(d_hat, 0.0))), 1.0)
    tau = float(regularization)
    if not math.isfinite(tau) or tau <= 0:
        raise ValueError(f"regularization must be 'mean' or a number > 0, got {regularization!r}")
    return tau


def normalized_adjacency(weights, d_tilde: np.ndarray) -> sp.csr_array:
    """``D~^-1/2 W D~^-1/2`` for a public normalizer ``d~ > 0`` (sparse in, sparse out).

    >>> import networkx as nx
    >>> W = sp.csr_array(nx.to_numpy_array(nx.path_graph(3)))  # edges 0-1, 1-2
    >>> normalized_adjacency(W, np.array([1.0, 4.0, 1.0])).toarray().tolist()  # 1 / sqrt(1 * 4)
    [[0.0, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.0]]
    """
    inv_sqrt = 1.0 / np.sqrt(np.asarray(d_tilde, dtype=np.float64))
    return sp.csr_array(sp.diags_array(inv_sqrt) @ sp.csr_array(weights) @ sp.diags_array(inv_sqrt))


def tail_singular_value(M: sp.csr_array, rank: int, rng: np.random.Generator) -> float:
    """sigma_{rank+1}(M) for symmetric M: the (rank+1)-th largest |eigenvalue| (non-private).

    >>> import networkx as nx
    >>> K4 = sp.csr_array(nx.to_numpy_array(nx.complete_graph(4)))  # eigenvalues 3, -1, -1, -1
    >>> round(tail_singular_value(K4, 1, np.random.default_rng(0)), 6)
    1.0
    """
    n = M.shape[0]
    k = rank + 1
    if n <= 400:
        vals = np.linalg.eigvalsh(M.toarray())
    else:
        v0 = rng.standard_normal(n)  # starting vector only; not privacy noise
        vals = spla.eigsh(M, k=k, which="LM", return_eigenvectors=False, v0=v0, tol=1e-10)
    mags = np.sort(np.abs(vals))[::-1]
    return float(mags[rank])


def project(basis: np.ndarray, core: np.ndarray, radius: float, method: str) -> tuple[np.ndarray, dict]:
    """Projection of A' = basis core basis^T onto {X >= 0} ∩ {||X - A'|| <= radius}.

    If clipping alone lands inside the spectral ball (||min(A', 0)|| <= radius), the clipped
    matrix is the exact projection onto the intersection (the projection onto the larger set
    {X >= 0} already lies in it). Otherwise Dykstra's algorithm (accelerated dual form, two
    sets) gives the projection; ``method="clip"`` stops after the first step.

    >>> A, info = project(np.full((4, 1), 0.5), np.array([[3.0]]), 1.0, "auto")
    >>> A.tolist()[0], info["method"], info["exact_projection"]  # non-negative already
    ([0.75, 0.75, 0.75, 0.75], 'clip', True)
    >>> basis = np.array([[1.0], [-1.0]]) / np.sqrt(2)  # A' = [[1, -1], [-1, 1]]
    >>> A, info = project(basis, np.array([[2.0]]), 0.1, "clip")
    >>> A.round(6).tolist(), round(info["clip_spectral_change"], 6), info["exact_projection"]
    ([[1.0, 0.0], [0.0, 1.0]], 1.0, False)
    """
    core = 0.5 * (core + core.T)
    lam, Q = np.linalg.eigh(core)
    U = basis @ Q  # A' = U diag(lam) U^T
    A = (U * lam) @ U.T
    A += A.T  # exact symmetry (the product is symmetric only up to rounding)
    A *= 0.5
    info: dict = {"radius": radius}
    n = A.shape[0]
    neg = np.minimum(A, 0.0)
    if not neg.any():  # already non-negative (ARPACK cannot start on a zero matrix)
        neg_norm = 0.0
    elif n <= 400:
        neg_norm = float(np.max(np.abs(np.linalg.eigvalsh(neg))))
    else:
        neg_norm = float(abs(spla.eigsh(neg, k=1, which="LM", return_eigenvectors=False,
                                        tol=1e-6)[0]))
    del neg
    info["clip_spectral_change"] = neg_norm
    if method == "clip" or neg_norm <= radius:
        np.maximum(A, 0.0, out=A)
        info["method"] = "clip"
        info["exact_projection"] = bool(neg_norm <= radius)
        return A, info
    from dpgraph.mechanisms import NonNegative, SpectralBall, dykstra  # only needed in this branch

    # each iteration is one eigendecomposition of an n x n matrix (all of it when many
    # eigenvalues leave the ball: seconds each from a few thousand nodes), so the iterations are
    # shown while reporting is on; the count to convergence is not known in advance
    with Progress(desc=f"projection onto non-negative bounded-spectrum {n:,} x {n:,} matrices",
                  unit="it") as ticker:
        res = dykstra(A, [NonNegative(), SpectralBall((U, lam), radius)], accelerate=True,
                      tol=1e-6, max_iter=500, callback=lambda *_: ticker.update())
    info.update(method="dykstra", exact_projection=bool(res.converged),
                iterations=res.iterations, residual=res.residual)
    X = np.asarray(res.point)
    X = 0.5 * (X + X.T)
    np.maximum(X, 0.0, out=X)  # the last iterate may sit a hair outside the orthant
    return X, info


def release_low_rank(M, rank: int, adjacency, *, epsilon: float, delta: float, core_share: float,
                     ledger: PrivacyLedger, rng: np.random.Generator, max_projector_noise=None,
                     pca_options: dict | None = None, fallback=None,
                     fallback_name: str = "fallback"):
    """Private rank-r estimate ``basis @ core @ basis.T`` of a symmetric ``M`` (Alg. 5.10).

    The private subspace (Algs. 5.2, 5.5, 5.8) gets ``1 - core_share`` of (epsilon, delta); on the
    passing branch the core ``B^T M B + N`` gets the rest. On a halting branch nothing more is
    drawn by the PCA and ``fallback(eps_left, delta_left) -> (basis, core)`` (which must charge
    ``ledger`` itself) gets the budget the halted steps and the core did not use (4.7);
    with no fallback, the random subspace of Alg. 5.8 is kept with a zero core, the core's
    share is charged as ``reserved`` (as the halted steps' are) and a warning says so.
    Returns ``(basis, core, mechanism description, subspace result)``.

    On the karate club (a small sparse graph) the gap test halts at this budget; the fallback
    (here a stand-in returning its budget as the core) gets all that the PCA did not spend:

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> from dpgraph.spectral import EntryAdjacency
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> d = np.asarray(data.degrees, dtype=float) + 4.0
    >>> M = normalized_adjacency(data.weights, d)
    >>> adj = EntryAdjacency(max_abs=1 / d.min(), symmetric=True)  # w = 1 / min d~
    >>> led = PrivacyLedger(epsilon=1, delta=1e-6)
    >>> basis, core, how, sub = release_low_rank(
    ...     M, 2, adj, epsilon=1.0, delta=1e-6, core_share=0.2, ledger=led, rng=0,
    ...     fallback=lambda eps_left, dlt_left: (np.eye(34)[:, :2], np.diag([eps_left, 0.0])))
    >>> how, float(round(led.spent[0] + core[0, 0], 6))
    ('fallback (PCA halted at the gap test)', 1.0)
    """
    from dpgraph.spectral import private_subspace
    from dpgraph.spectral.bounds import projected_core_sensitivity

    eps_sub, dlt_sub = (1 - core_share) * epsilon, (1 - core_share) * delta
    eps_core, dlt_core = core_share * epsilon, core_share * delta
    sub_ledger = PrivacyLedger(epsilon=eps_sub, delta=dlt_sub)
    options = {"max_projector_noise": max_projector_noise, **(pca_options or {})}
    sub = private_subspace(M, rank, epsilon=eps_sub, delta=dlt_sub, adjacency=adjacency, rng=rng,
                           ledger=sub_ledger, **options)
    basis = np.asarray(sub.basis)
    if not sub.halted:
        ledger.extend(sub_ledger)
        s_core = projected_core_sensitivity(adjacency, basis)
        C = basis.T @ np.asarray(M @ basis)
        noise = symmetric_gaussian_noise(rank, sensitivity=s_core, epsilon=eps_core,
                                         delta=dlt_core, ledger=ledger, name="pca: core (Alg. 5.10)",
                                         rng=rng, diagonal_scale=math.sqrt(2.0),
                                         note="upper triangle of B^T M B, public B; "
                                              "docs/privacy.md 3.6")
        return basis, 0.5 * (C + C.T) + noise.to_dense(), "private PCA (Alg. 5.10)", sub
    if fallback is not None:
        used = [e for e in sub_ledger.entries if e.mechanism != "reserved"]
        with uncounted():  # the sub-ledger's draws, recorded once already
            for e in used:
                ledger.charge(e.name, mechanism=e.mechanism, epsilon=e.epsilon, delta=e.delta,
                              sensitivity=e.sensitivity, sensitivity_norm=e.sensitivity_norm,
                              noise_scale=e.noise_scale, note=e.note)
        if sub_ledger.reproducible:
            ledger.mark_reproducible(warn=False)
        eps_left = eps_sub + eps_core - math.fsum(e.epsilon for e in used)
        dlt_left = dlt_sub + dlt_core - math.fsum(e.delta for e in used)
        basis, core = fallback(eps_left, dlt_left)
        return basis, core, f"{fallback_name} (PCA halted at the {sub.diagnostics.halted_at} test)", sub
    ledger.extend(sub_ledger)
    # nothing is drawn for the core either: its share is charged as reserved, like the halted
    # steps of the subspace, so the ledger adds up to the budget on this branch too (3.7)
    ledger.charge("pca: core (Alg. 5.10)", mechanism="reserved", epsilon=eps_core,
                  delta=dlt_core, note="nothing drawn (PCA halted, no fallback); charged so the "
                                       "guarantee is the same on every branch")
    warnings.warn("the private PCA halted (its spectral-gap or coherence test failed at this "
                  "budget) and released a uniformly random subspace; results carry no "
                  "information about the graph. Use fallback='randomized-response' on an "
                  "unweighted graph, a larger epsilon, or a smaller rank.", PCAHaltedWarning,
                  stacklevel=caller_stacklevel())
    return basis, np.zeros((rank, rank)), "random subspace (PCA halted, no fallback)", sub


def release(data: GraphData, *, epsilon: float, delta: float, rank: int, ledger: PrivacyLedger,
            rng, screening=None, degree_share: float, tail_share: float, core_share: float,
            regularization="mean", projection: str = "auto", fallback: str = "randomized-response",
            max_projector_noise: float | None = 0.5, pca_options: dict | None = None) -> PrivateGraph:
    """Steps 1-5 of the module docstring with the budget ``(epsilon, delta)``; returns the release.

    Parameters are those of :func:`dpgraph.privatize` (validated there).

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> led = PrivacyLedger(epsilon=2, delta=1e-6)
    >>> pg = release(data, epsilon=2.0, delta=1e-6, rank=2, ledger=led, rng=0,
    ...              degree_share=0.1, tail_share=0.05, core_share=0.2)
    >>> pg.diagnostics["route"], pg.diagnostics["low_rank_mechanism"]  # too sparse: halted
    ('pca', 'randomized response (PCA halted at the gap test)')
    >>> round(led.spent[0], 6), led.spent[1] <= 1e-6
    (2.0, True)
    """
    from dpgraph.spectral import EntryAdjacency

    gen, labels = rng, data.labels
    report(f"private PCA route: degrees, rank-{rank} private subspace of the {data.n:,}-node "
           f"normalized adjacency, projection")
    # 1. private degrees (L2 sensitivity sqrt 2: docs/privacy.md 4.1)
    d_hat, sigma_deg = gaussian_mechanism(
        data.degrees, sensitivity=math.sqrt(2.0), epsilon=degree_share * epsilon,
        delta=degree_share * delta, ledger=ledger, name="degrees", rng=gen,
        note="one edge changes two degrees by <= 1 (docs/privacy.md 4.1)",
        sampler="discrete", changed=2)
    d_hat = np.atleast_1d(d_hat)
    # 2. public normalizer
    tau = regularizer(d_hat, regularization)
    d_tilde = np.maximum(d_hat, 0.0) + tau
    w = 1.0 / float(d_tilde.min())
    M = normalized_adjacency(data.weights, d_tilde)

    # 3. private low-rank estimate of M (entry adjacency, max change w: docs/privacy.md 4.2)
    pca_share = 1.0 - degree_share - tail_share
    use_fallback = fallback == "randomized-response"  # any weights: Bernoulli-rounded (4.12)
    basis, core, mechanism, pca = release_low_rank(
        M, rank, EntryAdjacency(max_abs=w, symmetric=True), epsilon=pca_share * epsilon,
        delta=pca_share * delta, core_share=core_share, ledger=ledger, rng=gen,
        max_projector_noise=max_projector_noise, pca_options=pca_options,
        fallback=(lambda eps_left, _dlt_left, weights=data.weights: fallback_randomized_response(
            weights, d_tilde, rank, epsilon=eps_left, ledger=ledger, rng=gen))
        if use_fallback else None, fallback_name="randomized response")

    # 4. private tail level sigma_{r+1}(M) (Weyl: sensitivity ||E|| = w, docs/privacy.md 4.3)
    tail_true = tail_singular_value(M, rank, gen)
    tail_hat, sigma_tail = gaussian_mechanism(
        tail_true, sensitivity=w + 1e-8, epsilon=tail_share * epsilon, delta=tail_share * delta,
        ledger=ledger, name="tail singular value", rng=gen,
        note="Weyl: |sigma_k(M') - sigma_k(M)| <= ||E|| = w (docs/privacy.md 4.3)")
    del tail_true, M, data  # nothing below may see the input
    radius = max(tail_hat, 0.0) + 2.0 * sigma_tail

    # 5. projection onto non-negative bounded-spectrum matrices (post-processing)
    n = basis.shape[0]
    method = projection if projection != "auto" else ("dykstra" if n <= DYKSTRA_MAX_N else "clip")
    projected, proj_info = project(basis, core, radius, method)

    diagnostics = {
        "route": "pca", "screening": screening, "tau": tau, "w": w, "degree_sigma": sigma_deg,
        "tail_estimate": tail_hat, "tail_sigma": sigma_tail, "projection": proj_info, "pca_halted": bool(pca.halted),
        "low_rank_mechanism": mechanism,
        "pca": getattr(pca, "diagnostics", {}),
    }
    return PrivateGraph(labels=labels, degrees=d_hat, normalizer=d_tilde, basis=basis,
                        core=core, projected=projected, ledger=ledger, diagnostics=diagnostics)
