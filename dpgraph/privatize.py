"""Privatize a graph: private degrees + private low-rank normalized adjacency -> PrivateGraph.

This is the only place where the private pipeline touches the input graph. What leaves
:func:`privatize` is a :class:`PrivateGraph`, which holds released (noisy) quantities and
post-processing of them, and no reference to the input. Everything downstream (the CSP engine,
the exports, :meth:`PrivateGraph.sample`) is post-processing.

The mechanism (d'Orsi & Novikov, Alg. 6.2 and Alg. 7.13 steps 1-3, with the normalization
made private first; derivation in docs/privacy.md, section 4):

0. **Screening** (``route="auto"``, unweighted graphs; 4.9). A private edge count predicts
   whether the PCA's private gap test can pass at this budget; if not (sparse real graphs),
   the rest of the budget goes to randomized response on all pairs (kept de-biased as
   ``PrivateGraph.unbiased``, exported through its projection onto ``[0, 1]``), and steps 1-5
   are skipped.

1. **Private degrees.** ``d^ = d + N(0, sigma_1^2 I)``; one edge changes two degrees by at most
   1 each, so the L2 sensitivity is ``sqrt(2)``.
2. **Regularized normalizer** (post-processing of ``d^``): ``d~_i = max(d^_i, 0) + tau`` with
   ``tau > 0`` (by default the mean of ``max(d^, 0)``, the regularized-Laplacian choice of
   Qin & Rohe 2013). Every ``d~_i >= tau``, so no vertex can have a tiny normalizer: this is
   what lets sparse real graphs (minimum degree 1, where Alg. 6.2 would halt) be served.
3. **Private low-rank estimate** of ``M = D~^-1/2 A D~^-1/2``. With ``d~`` fixed (it is
   released), adding or removing edge ``{i, j}`` changes exactly the pair ``M_ij = M_ji`` by
   ``1/sqrt(d~_i d~_j) <= w = 1/min_k d~_k``: the entry adjacency of
   :class:`dpgraph.spectral.EntryAdjacency`, handled by :func:`dpgraph.spectral.private_low_rank`
   (coherence-aware private PCA, Thm 5.1 / Alg. 5.10).
4. **Private tail level.** ``s^ = sigma_{r+1}(M) + N(0, sigma_2^2)``; by Weyl's inequality the
   sensitivity of any singular value is ``||E|| = w``. It sets the projection radius.
5. **Projection** (post-processing): ``A^`` = the Euclidean projection of the rank-r estimate
   ``A^'`` onto ``S = {X symmetric : X >= 0 entrywise, ||X - A^'|| <= rho}`` with
   ``rho = max(s^, 0) + 2 sigma_2`` (Sec. 2.1 and (7.2)); the synthetic weighted graph is
   ``D~^1/2 A^ D~^1/2`` with its diagonal removed.

Budget: basic composition of steps 0, 1, 3 and 4 (``screen_share`` of epsilon, Laplace;
``degree_share``, ``tail_share`` of both epsilon and delta; the rest to step 3). A halted
step 3 gives its unused budget to randomized response (4.7).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as spla

from .graph import GraphData, as_graph_data, from_matrix, to_igraph, to_networkx
from .privacy import (PrivacyLedger, gaussian_mechanism, laplace_mechanism, make_rng,
                      randomized_response, symmetric_gaussian_noise)
from .privacy._validate import check_choice, check_delta, check_epsilon, check_number

__all__ = ["PrivateGraph", "privatize", "check_private_graph_input", "release_edge_count",
           "DEFAULT_RANK"]

DEFAULT_RANK = 8
# Above this many nodes the dense n x n projection is replaced by its first step (entrywise
# clipping), unless projection="dykstra" is asked for; see PrivateGraph.diagnostics.
_DYKSTRA_MAX_N = 5000


def check_private_graph_input(data: GraphData, *, what: str = "the private pipeline") -> None:
    """Refuse graphs outside what edge-level privacy covers here (docs/privacy.md, section 4).

    The protected adjacency: two graphs on the same public node set whose edge weights, all in
    [0, 1], differ on one node pair (an unweighted edge added or removed is the main case).
    """
    if data.n < 3:
        raise ValueError(f"{what} needs a graph with at least 3 nodes, got {data.n}")
    if data.m:
        lo, hi = data.weights.data.min(), data.weights.data.max()
        if lo < 0 or hi > 1:
            raise ValueError(
                f"{what} protects graphs whose edge weights lie in [0, 1] (one edge's weight "
                f"changing by at most 1 is the adjacency); this graph has weights in "
                f"[{lo:g}, {hi:g}]. Rescale the weights into [0, 1] or use an unweighted graph.")


def _check_rank(rank, n: int) -> int:
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise ValueError(f"rank must be a positive integer, got {rank!r}")
    if not 1 <= rank < n - 1:
        raise ValueError(f"rank must satisfy 1 <= rank < n - 1 = {n - 1}, got {rank}")
    return int(rank)


def _check_share(name: str, value: float) -> float:
    return check_number(value, name=name, low=0.0, high=1.0, open_low=True, open_high=True)


def _regularizer(d_hat: np.ndarray, regularization) -> float:
    if isinstance(regularization, str) and regularization == "mean":
        return max(float(np.mean(np.maximum(d_hat, 0.0))), 1.0)
    try:
        return check_number(regularization, name="regularization", low=0.0, open_low=True)
    except ValueError:
        raise ValueError(f"regularization must be 'mean' or a number > 0, "
                         f"got {regularization!r}") from None


def normalized_adjacency(weights, d_tilde: np.ndarray) -> sp.csr_array:
    """``D~^-1/2 W D~^-1/2`` for a public normalizer ``d~ > 0`` (sparse in, sparse out)."""
    inv_sqrt = 1.0 / np.sqrt(np.asarray(d_tilde, dtype=np.float64))
    return sp.csr_array(sp.diags_array(inv_sqrt) @ sp.csr_array(weights) @ sp.diags_array(inv_sqrt))


def _tail_singular_value(M: sp.csr_array, rank: int, rng: np.random.Generator) -> float:
    """sigma_{rank+1}(M) for symmetric M: the (rank+1)-th largest |eigenvalue| (non-private)."""
    n = M.shape[0]
    k = rank + 1
    if n <= 400:
        vals = np.linalg.eigvalsh(M.toarray())
    else:
        v0 = rng.standard_normal(n)  # starting vector only; not privacy noise
        vals = spla.eigsh(M, k=k, which="LM", return_eigenvectors=False, v0=v0, tol=1e-10)
    mags = np.sort(np.abs(vals))[::-1]
    return float(mags[rank])


def _project(basis: np.ndarray, core: np.ndarray, radius: float, method: str) -> tuple[np.ndarray, dict]:
    """Projection of A' = basis core basis^T onto {X >= 0} ∩ {||X - A'|| <= radius}.

    If clipping alone lands inside the spectral ball (||min(A', 0)|| <= radius), the clipped
    matrix is the exact projection onto the intersection (the projection onto the larger set
    {X >= 0} already lies in it). Otherwise Dykstra's algorithm (accelerated dual form, two
    sets) gives the projection; ``method="clip"`` stops after the first step.
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
    from .mechanisms import NonNegative, SpectralBall, dykstra  # only needed in this branch

    res = dykstra(A, [NonNegative(), SpectralBall((U, lam), radius)], accelerate=True,
                  tol=1e-6, max_iter=500)
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
    with no fallback, the random subspace of Alg. 5.8 is kept and a warning says so.
    Returns ``(basis, core, mechanism description, subspace result)``.
    """
    from .spectral import private_subspace
    from .spectral.bounds import core_sensitivity

    eps_sub, dlt_sub = (1 - core_share) * epsilon, (1 - core_share) * delta
    eps_core, dlt_core = core_share * epsilon, core_share * delta
    sub_ledger = PrivacyLedger(epsilon=eps_sub, delta=dlt_sub)
    options = {"max_projector_noise": max_projector_noise, **(pca_options or {})}
    sub = private_subspace(M, rank, epsilon=eps_sub, delta=dlt_sub, adjacency=adjacency, rng=rng,
                           ledger=sub_ledger, **options)
    basis = np.asarray(sub.basis)
    if not sub.halted:
        ledger.extend(sub_ledger)
        s_core = core_sensitivity(adjacency, basis)
        C = basis.T @ np.asarray(M @ basis)
        noise = symmetric_gaussian_noise(rank, sensitivity=s_core, epsilon=eps_core,
                                         delta=dlt_core, ledger=ledger, name="pca: core (Alg. 5.10)",
                                         rng=rng, diagonal_scale=math.sqrt(2.0),
                                         note="upper triangle of B^T M B, public B; "
                                              "docs/privacy.md 3.6")
        return basis, 0.5 * (C + C.T) + noise.to_dense(), "private PCA (Alg. 5.10)", sub
    if fallback is not None:
        used = [e for e in sub_ledger.entries if e.mechanism != "reserved"]
        for e in used:
            ledger.charge(e.name, mechanism=e.mechanism, epsilon=e.epsilon, delta=e.delta,
                          sensitivity=e.sensitivity, sensitivity_norm=e.sensitivity_norm,
                          noise_scale=e.noise_scale, note=e.note)
        eps_left = eps_sub + eps_core - math.fsum(e.epsilon for e in used)
        dlt_left = dlt_sub + dlt_core - math.fsum(e.delta for e in used)
        basis, core = fallback(eps_left, dlt_left)
        return basis, core, f"{fallback_name} (PCA halted at the {sub.diagnostics.halted_at} test)", sub
    ledger.extend(sub_ledger)
    warnings.warn("the private PCA halted (its spectral-gap or coherence test failed at this "
                  "budget) and released a uniformly random subspace; results carry no "
                  "information about the graph. Use fallback='randomized-response' on an "
                  "unweighted graph, a larger epsilon, or a smaller rank.", UserWarning,
                  stacklevel=3)
    return basis, np.zeros((rank, rank)), "random subspace (PCA halted, no fallback)", sub


def _randomized_response_matrix(weights, *, epsilon: float, ledger: PrivacyLedger, rng, name: str,
                                note: str) -> tuple[np.ndarray, float]:
    """Randomized response on every pair indicator (pure epsilon-DP, docs/privacy.md 4.5),
    returned de-biased: ``(A_RR - p) / (1 - 2p)`` (dense, symmetric, zero diagonal), and ``p``."""
    n = weights.shape[0]
    iu, ju = np.triu_indices(n, 1)
    bits = weights.toarray()[iu, ju].astype(np.int8)
    flipped = randomized_response(bits, epsilon=epsilon, ledger=ledger, name=name, rng=rng,
                                  note=note)
    del bits
    p = math.exp(-epsilon) / (1.0 + math.exp(-epsilon))  # 1/(1 + e^eps), no overflow
    W = np.zeros((n, n))
    W[iu, ju] = (flipped - p) / math.tanh(epsilon / 2.0)  # 1 - 2p, exact at tiny epsilon
    del flipped, iu, ju
    W += W.T
    return W, p


def _top_eigenpairs(W: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``rank`` eigenpairs of largest magnitude of a dense symmetric matrix."""
    if W.shape[0] <= 400:
        lam, vec = np.linalg.eigh(W)
    else:
        lam, vec = spla.eigsh(W, k=rank, which="LM", tol=1e-6)
    order = np.argsort(-np.abs(lam))[:rank]
    return vec[:, order], lam[order]


def _fallback_randomized_response(weights, d_tilde: np.ndarray, rank: int, *, epsilon: float,
                                  ledger: PrivacyLedger, rng: np.random.Generator):
    """Halting branch: randomized response on every pair indicator, de-biased, truncated to the
    ``rank`` eigenpairs of largest magnitude *in adjacency units* (normalizing by noisy degrees
    first costs a lot of utility: BENCHMARKS.md), then expressed in the normalized frame of the
    PCA route as an orthonormal basis and core: ``D~^-1/2 V diag(lam) V^T D~^-1/2 = B C B^T``.
    Pure epsilon-DP for unweighted graphs (docs/privacy.md 4.5, 4.7). Dense O(n^2) memory.
    """
    W, _ = _randomized_response_matrix(weights, epsilon=epsilon, ledger=ledger, rng=rng,
                                       name="fallback: randomized response",
                                       note="PCA halted; exclusive branch (docs/privacy.md 4.7)")
    V, lam = _top_eigenpairs(W, rank)
    del W
    B, R = np.linalg.qr(V / np.sqrt(d_tilde)[:, None])
    return B, (R * lam) @ R.T


@dataclass(eq=False)
class PrivateGraph:
    """The private release of a graph: private degrees, the private low-rank normalized
    adjacency and its projection, and the ledger. Holds no reference to the input graph.

    Attributes
    ----------
    labels : tuple
        Node labels (the node set is public under edge-level privacy).
    degrees : ndarray
        Private degree estimates ``d^`` (may be negative for low-degree nodes).
    normalizer : ndarray
        ``d~ = max(d^, 0) + tau``, the public normalizer.
    basis, core : ndarray or None
        The private rank-r estimate ``A^' = basis @ core @ basis.T`` of ``D~^-1/2 A D~^-1/2``
        (None on the randomized-response route, where ``projected`` holds the released pair
        weights and ``normalizer`` is all ones).
    projected : ndarray or None
        ``A^``: the projection of ``A^'`` onto non-negative bounded-spectrum matrices (dense).
        None on the randomized-response route (unless ``rr_postprocess="low-rank"``), where
        :meth:`weights` computes the export from ``unbiased`` when asked (one dense n x n
        matrix is held, not two).
    ledger : PrivacyLedger
    diagnostics : dict
        Private (released) quantities and method details: tau, w, the private tail estimate,
        radius, whether the private PCA halted, timings.
    unbiased : ndarray or None
        Randomized-response route only: the de-biased release ``(Y - p)/(1 - 2p)`` (signed,
        zero diagonal), the unbiased estimate of the adjacency matrix; ``p`` is
        ``diagnostics["flip_probability"]``. The solvers optimise objectives built from it
        (:meth:`objective`); the exports use its projection onto ``[0, 1]``.
    """

    labels: tuple
    degrees: np.ndarray
    normalizer: np.ndarray
    basis: np.ndarray
    core: np.ndarray
    projected: np.ndarray
    ledger: PrivacyLedger
    diagnostics: dict = field(default_factory=dict)
    unbiased: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def rank(self) -> int | None:
        """Rank of the private low-rank estimate (None on the randomized-response route)."""
        return None if self.basis is None else self.basis.shape[1]

    @property
    def halted(self) -> bool:
        """True when a private test in the PCA halted and a random subspace was released."""
        return bool(self.diagnostics.get("pca_halted", False))

    def weights(self) -> np.ndarray:
        """Dense synthetic weight matrix (zero diagonal, entries >= 0).

        PCA route: ``D~^1/2 A^ D~^1/2``. Randomized-response route: by default the posterior
        means ``E[A_ij | release]`` under the empirical Chung-Lu prior (entries in [0, 1], total
        weight close to the edge count; ``rr_postprocess`` of :func:`privatize`)."""
        if self.projected is None:  # randomized-response route: see rr_postprocess
            post = self.diagnostics.get("postprocess", "box")
            W = np.clip(self.unbiased, 0.0, 1.0) if post == "box" else self.objective(post)
        else:
            s = np.sqrt(self.normalizer)
            W = np.outer(s, s)  # exactly symmetric, so W is too
            W *= self.projected
        np.fill_diagonal(W, 0.0)
        return W

    def objective_names(self, rank: int | None = None) -> tuple:
        """The candidate objectives :func:`dpgraph.max_cut` solves on this release.

        ``"synthetic"`` (the exported weights) on the PCA route; on the randomized-response
        route ``"unbiased"`` (the de-biased release), ``"posterior-lowrank-2"``,
        ``"posterior-lowrank-<rank>"`` (default: this release's ``rank`` parameter) and
        ``"posterior-degree"`` (:mod:`dpgraph.rr_posterior`).
        """
        if self.unbiased is None:
            return ("synthetic",)
        k = int(rank or self.diagnostics.get("rank") or DEFAULT_RANK)
        ranks = sorted({2, k})
        return ("unbiased", *(f"posterior-lowrank-{r}" for r in ranks), "posterior-degree")

    def objective(self, name: str = "synthetic") -> np.ndarray:
        """Dense symmetric weight matrix of the objective ``name`` (post-processing only).

        ``"synthetic"``: :meth:`weights`. Randomized-response route only: ``"unbiased"``: the
        de-biased release; ``"posterior-lowrank-<k>"`` / ``"posterior-degree"``: posterior-mean
        weights ``E[A_ij | release]`` under an empirical-Bayes block (rank-k) or Chung-Lu prior
        (:mod:`dpgraph.rr_posterior`). No privacy cost: functions of the release.
        """
        if name == "synthetic":
            return self.weights()
        if self.unbiased is None:
            raise ValueError(f"objective {name!r} needs the randomized-response route; this "
                             f"release ({self.diagnostics.get('route')}) has only 'synthetic'")
        from . import rr_posterior

        p = float(self.diagnostics["flip_probability"])
        if name == "unbiased":
            return self.unbiased
        if name == "posterior-degree":
            return rr_posterior.posterior_weights(self.unbiased, p,
                                                  rr_posterior.degree_prior(self.unbiased))
        k = rr_posterior.prior_rank(name)
        if k is not None:
            if k >= self.n - 1:
                raise ValueError(f"objective {name!r}: the prior's rank must lie in [1, n - 2]")
            return rr_posterior.posterior_weights(self.unbiased, p,
                                                  rr_posterior.low_rank_prior(self.unbiased, k))
        raise ValueError(f"unknown objective {name!r}; this release offers "
                         f"{self.objective_names()}")

    def to_graph_data(self, *, min_weight: float = 0.0) -> GraphData:
        """The synthetic weighted graph as :class:`GraphData`, keeping weights > ``min_weight``."""
        W = self.weights()
        if min_weight > 0:
            W[W <= min_weight] = 0.0
        return from_matrix(sp.csr_array(W), self.labels, source="synthetic graph")

    def to_scipy(self, *, min_weight: float = 0.0) -> sp.csr_array:
        """Synthetic weights as a CSR array (row ``i`` is ``labels[i]``)."""
        return self.to_graph_data(min_weight=min_weight).weights

    def to_networkx(self, *, min_weight: float = 0.0):
        """Synthetic weighted graph as ``networkx.Graph`` (edge attribute ``weight``)."""
        return to_networkx(self.to_graph_data(min_weight=min_weight))

    def to_igraph(self, *, min_weight: float = 0.0):
        """Synthetic weighted graph as ``igraph.Graph`` (vertex ``name``, edge ``weight``)."""
        return to_igraph(self.to_graph_data(min_weight=min_weight))

    def sample(self, rng=None) -> GraphData:
        """An unweighted simple graph: pair ``{i, j}`` is an edge with probability
        ``min(W_ij, 1)`` independently (post-processing: no privacy cost)."""
        gen = make_rng(rng)
        W = self.weights()
        iu, ju = np.triu_indices(self.n, 1)
        p = np.minimum(W[iu, ju], 1.0)
        del W
        keep = gen.random(p.shape[0]) < p
        rows, cols = iu[keep], ju[keep]
        A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(self.n, self.n))
        return from_matrix((A + A.T).tocsr(), self.labels, source="sampled synthetic graph")

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        return (f"PrivateGraph(n={self.n}, rank={self.rank}, epsilon={eps:.4g}, delta={dlt:.3g}, "
                f"halted={self.halted})")


# Heuristic (utility only, never privacy): the rank-r spectral gap of the regularized
# normalized adjacency, in units of its sensitivity w, is at most about half the mean degree on
# the planted and real graphs we measured (BENCHMARKS.md); the PCA route is taken only when
# that prediction clears the gap test's threshold with a 1.5x margin.
_SCREEN_GAP_PER_DEGREE = 0.5
_SCREEN_MARGIN = 1.5


# Default budget shares of privatize; dpgraph.max_cut, which makes the screening release itself,
# predicts the route with the same values.
_DEGREE_SHARE, _TAIL_SHARE, _CORE_SHARE, _SCREEN_SHARE = 0.05, 0.05, 0.1, 0.005


def _screens(data: GraphData, route: str, fallback: str) -> bool:
    """Whether ``privatize`` screens this input: ``route="auto"`` with the randomized-response
    fallback on an unweighted graph (docs/privacy.md 4.9)."""
    return (route == "auto" and fallback == "randomized-response"
            and (data.is_unweighted or not data.m))


def _screen(m_hat: float, n: int, epsilon: float, delta: float,
            degree_share: float = _DEGREE_SHARE, tail_share: float = _TAIL_SHARE,
            core_share: float = _CORE_SHARE) -> dict:
    """Predict from the released edge count whether the gap test of Alg. 5.2 can pass.

    The test passes when ``g_hat - (2 w / eps_g) ln(1/(2 delta_g)) > w`` (docs/privacy.md 3.7),
    i.e. when ``g / w`` exceeds ``1 + 2 ln(1/(2 delta_g)) / eps_g`` (up to the Laplace draw).
    A function of released values only: no privacy cost.
    """
    from .spectral.pca import DEFAULT_SUBSPACE_SPLIT as split

    mean_degree = 2.0 * max(m_hat, 0.0) / n
    pca_share = (1.0 - degree_share - tail_share) * (1.0 - core_share)
    eps_g = split.epsilon[0] * pca_share * epsilon
    # ln(1 / (2 delta_g)) in logs: delta_g = split * share * delta may underflow to 0
    log_inv = -(math.log(2.0) + math.log(split.delta[0] * pca_share) + math.log(delta))
    required = 1.0 + 2.0 * log_inv / eps_g
    predicted = _SCREEN_GAP_PER_DEGREE * mean_degree
    return {"mean_degree": mean_degree, "predicted_gap_ratio": predicted,
            "required_gap_ratio": required,
            "predicted_pass": bool(predicted > _SCREEN_MARGIN * required)}


def _randomized_response_route(data: GraphData, ledger: PrivacyLedger, gen, epsilon: float,
                               rank: int, post: str, screening, timings: dict,
                               t0: float) -> "PrivateGraph":
    """Randomized response on every pair indicator with all the budget left (pure DP, 4.5),
    kept de-biased. The export (``post``): posterior means under an empirical-Bayes prior, or
    the projection onto ``[0, 1]`` (perturb-and-project onto the box that contains every
    adjacency matrix) with or without a rank-r truncation first. All of it after the draw is
    post-processing."""
    n, labels = data.n, data.labels
    W, p = _randomized_response_matrix(
        data.weights, epsilon=epsilon, ledger=ledger, rng=gen,
        name="randomized response (all pairs)",
        note="one edge changes one pair indicator (docs/privacy.md 4.5)")
    del data  # nothing below may see the input
    degrees = W.sum(axis=1)  # unbiased degree estimates (post-processing)
    basis = core = projected = None  # projected None: clip(W, 0, 1) on demand (weights())
    if post == "low-rank":
        basis, lam = _top_eigenpairs(W, rank)
        core = np.diag(lam)
        projected = (basis * lam) @ basis.T
        projected += projected.T
        projected *= 0.5
        np.clip(projected, 0.0, 1.0, out=projected)
    timings["randomized_response"] = time.perf_counter() - t0
    diagnostics = {"route": "randomized-response", "screening": screening, "rank": rank,
                   "flip_probability": p, "postprocess": post, "pca_halted": False,
                   "low_rank_mechanism": "randomized response on all pairs" +
                   (" (screened out of the PCA)" if screening else ""),
                   "timings": timings}
    return PrivateGraph(labels=labels, degrees=degrees, normalizer=np.ones(n), basis=basis,
                        core=core, projected=projected, ledger=ledger, diagnostics=diagnostics,
                        unbiased=W)


def release_edge_count(data: GraphData, epsilon: float, ledger: PrivacyLedger, rng) -> float:
    """The screening release (docs/privacy.md 4.9): total edge weight + Laplace(1/epsilon).

    Laplace (pure DP): at a small share its scale is far below the Gaussian's, and the whole
    delta stays for the route."""
    m_hat, _ = laplace_mechanism(
        data.total_weight, sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="screening: edge count", rng=rng,
        note="one edge changes the total weight by <= 1 (docs/privacy.md 4.9)")
    return float(m_hat)


def privatize(G, *, epsilon: float, delta: float, rank: int = DEFAULT_RANK, rng=None,
              degree_share: float = _DEGREE_SHARE, tail_share: float = _TAIL_SHARE,
              core_share: float = _CORE_SHARE,
              regularization="mean",
              projection: str = "auto", fallback: str = "randomized-response",
              max_projector_noise: float | None = 0.5, route: str = "auto",
              screen_share: float = _SCREEN_SHARE, rr_postprocess: str = "posterior-degree",
              weight: str = "weight", pca_options: dict | None = None,
              edge_count: float | None = None) -> PrivateGraph:
    """Release a private synthetic version of ``G`` under edge-level (epsilon, delta)-DP.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts; edge weights must lie in [0, 1].
    epsilon, delta : float
        Total privacy budget (basic composition over the steps in the module docstring).
    rank : int
        Rank ``r`` of the private low-rank estimate (default 8).
    rng : None, int or numpy.random.Generator
    degree_share, tail_share : float
        Fractions of (epsilon, delta) spent on the degrees and on the tail level; the rest goes
        to the private PCA.
    core_share : float
        Fraction of the PCA's share spent on the r x r core (Alg. 5.10); the rest goes to the
        private subspace (gap test, coherence, projector: Algs. 5.2, 5.5, 5.8).
    regularization : "mean" or float
        ``tau`` of the normalizer ``d~ = max(d^, 0) + tau``.
    projection : {"auto", "dykstra", "clip"}
        How ``A^'`` is projected onto non-negative bounded-spectrum matrices. ``"auto"`` uses
        the exact projection up to 5,000 nodes and entrywise clipping (its first step) above.
    fallback : {"randomized-response", "none"}
        What to do when a private test of the PCA halts (its spectral gap is too small for the
        budget, which is the usual case on sparse real graphs): spend the budget the halted
        steps did not use on randomized response over the pair indicators, de-biased and
        truncated to rank ``r`` (unweighted graphs; docs/privacy.md 4.7), or ``"none"``: keep
        the uniformly random subspace of Alg. 5.8 (a :class:`UserWarning` says so).
    max_projector_noise : float or None
        Take the halting branch before the projector step when the released gap and coherence
        bounds predict projector noise of spectral norm above this (default 0.5; the
        projector's eigengap is 1), since the projector would then carry no signal.
    route : {"auto", "pca", "randomized-response"}
        ``"auto"`` (unweighted graphs with the randomized-response fallback) first releases the
        edge count with ``screen_share`` of the budget and predicts from it whether the PCA's
        private gap test can pass at this budget (docs/privacy.md 4.9); if not, the whole
        remaining budget goes to randomized response instead of being spread over steps that
        would halt. ``"pca"`` always runs the PCA (with its fallback); ``"randomized-response"``
        never does.
    screen_share : float
        Fraction of epsilon for the screening edge count (``route="auto"``; Laplace, pure DP).
    rr_postprocess : {"posterior-degree", "posterior-lowrank-<k>", "box", "low-rank"}
        The exported synthetic graph on the randomized-response route (post-processing):
        posterior means ``E[A_ij | release]`` under the empirical Chung-Lu prior (the default)
        or a rank-``k`` block prior (:mod:`dpgraph.rr_posterior`); the de-biased release
        projected onto ``[0, 1]`` (``"box"``, which is the flipped graph itself: at epsilon 1
        about 27% of all pairs are edges); or truncated to rank ``r`` and then projected
        (``"low-rank"``). Measured (BENCHMARKS.md, fidelity): the posterior exports keep the
        edge count and the cut queries within a few percent where ``"box"`` is off by ~5x.
        :func:`dpgraph.max_cut` does not depend on this choice (it solves its own candidates).
    pca_options : dict, optional
        Extra keyword arguments for :func:`dpgraph.spectral.private_subspace` (e.g. ``split``).
    edge_count : float, optional
        A private release of the total edge weight that the caller has already made and
        charged to its own ledger (:func:`release_edge_count`); with ``route="auto"`` it is used
        for the screening instead of a new release (:func:`dpgraph.max_cut` does this).

    Returns
    -------
    PrivateGraph

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> G = nx.les_miserables_graph()
    >>> pg = dpgraph.privatize(nx.Graph(G.edges()), epsilon=2.0, delta=1e-6, rank=4, rng=0)
    >>> pg.n, pg.diagnostics["route"]  # a sparse graph: screened to randomized response
    (77, 'randomized-response')
    """
    from .spectral import EntryAdjacency

    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    degree_share = _check_share("degree_share", degree_share)
    tail_share = _check_share("tail_share", tail_share)
    core_share = _check_share("core_share", core_share)
    if degree_share + tail_share >= 1:
        raise ValueError("degree_share + tail_share must be < 1 (the rest goes to the private PCA)")
    check_choice(fallback, name="fallback", choices=("randomized-response", "none"))
    check_choice(projection, name="projection", choices=("auto", "dykstra", "clip"))
    check_choice(route, name="route", choices=("auto", "pca", "randomized-response"))
    if not isinstance(regularization, str):  # checked now, used after the degrees' release
        _regularizer(np.ones(1), regularization)
    from .rr_posterior import prior_rank

    if not isinstance(rr_postprocess, str) or (
            rr_postprocess not in ("low-rank", "box", "posterior-degree")
            and prior_rank(rr_postprocess) is None):
        raise ValueError(f"rr_postprocess={rr_postprocess!r} is not 'posterior-degree', "
                         f"'posterior-lowrank-<k>', 'box' or 'low-rank'")
    screen_share = _check_share("screen_share", screen_share)
    data = as_graph_data(G, weight=weight)
    check_private_graph_input(data)
    rank = _check_rank(rank, data.n)
    labels = data.labels
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    timings: dict = {}
    t0 = time.perf_counter()

    # 0. screening (docs/privacy.md 4.9): can the PCA's gap test pass at this budget?
    screening = None
    if route == "randomized-response" or (route == "auto" and fallback == "randomized-response"):
        if not data.is_unweighted and data.m:
            if route == "randomized-response":
                raise ValueError("route='randomized-response' needs an unweighted graph")
        elif _screens(data, route, fallback):
            if edge_count is None:
                m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
                eps_rest, dlt_rest = (1 - screen_share) * epsilon, delta
            else:  # released (and charged) by the caller
                m_hat, eps_rest, dlt_rest = float(edge_count), epsilon, delta
            screening = _screen(m_hat, data.n, eps_rest, dlt_rest, degree_share, tail_share,
                                core_share)
            epsilon, delta = eps_rest, dlt_rest
            route = "pca" if screening["predicted_pass"] else "randomized-response"
        if route == "randomized-response":
            return _randomized_response_route(data, ledger, gen, epsilon, rank, rr_postprocess,
                                              screening, timings, t0)

    # 1. private degrees (L2 sensitivity sqrt 2: docs/privacy.md 4.1)
    d_hat, sigma_deg = gaussian_mechanism(
        data.degrees, sensitivity=math.sqrt(2.0), epsilon=degree_share * epsilon,
        delta=degree_share * delta, ledger=ledger, name="degrees", rng=gen,
        note="one edge changes two degrees by <= 1 (docs/privacy.md 4.1)")
    d_hat = np.atleast_1d(d_hat)
    # 2. public normalizer
    tau = _regularizer(d_hat, regularization)
    d_tilde = np.maximum(d_hat, 0.0) + tau
    w = 1.0 / float(d_tilde.min())
    M = normalized_adjacency(data.weights, d_tilde)
    timings["degrees"] = time.perf_counter() - t0

    # 3. private low-rank estimate of M (entry adjacency, max change w: docs/privacy.md 4.2)
    t0 = time.perf_counter()
    pca_share = 1.0 - degree_share - tail_share
    use_fallback = fallback == "randomized-response" and data.is_unweighted
    basis, core, mechanism, pca = release_low_rank(
        M, rank, EntryAdjacency(max_abs=w, symmetric=True), epsilon=pca_share * epsilon,
        delta=pca_share * delta, core_share=core_share, ledger=ledger, rng=gen,
        max_projector_noise=max_projector_noise, pca_options=pca_options,
        fallback=(lambda eps_left, _dlt_left, weights=data.weights: _fallback_randomized_response(
            weights, d_tilde, rank, epsilon=eps_left, ledger=ledger, rng=gen))
        if use_fallback else None, fallback_name="randomized response")
    timings["private_pca"] = time.perf_counter() - t0

    # 4. private tail level sigma_{r+1}(M) (Weyl: sensitivity ||E|| = w, docs/privacy.md 4.3)
    t0 = time.perf_counter()
    tail_true = _tail_singular_value(M, rank, gen)
    tail_hat, sigma_tail = gaussian_mechanism(
        tail_true, sensitivity=w + 1e-8, epsilon=tail_share * epsilon, delta=tail_share * delta,
        ledger=ledger, name="tail singular value", rng=gen,
        note="Weyl: |sigma_k(M') - sigma_k(M)| <= ||E|| = w (docs/privacy.md 4.3)")
    del tail_true, M, data  # nothing below may see the input
    radius = max(tail_hat, 0.0) + 2.0 * sigma_tail
    timings["tail"] = time.perf_counter() - t0

    # 5. projection onto non-negative bounded-spectrum matrices (post-processing)
    t0 = time.perf_counter()
    n = basis.shape[0]
    method = projection if projection != "auto" else ("dykstra" if n <= _DYKSTRA_MAX_N else "clip")
    projected, proj_info = _project(basis, core, radius, method)
    timings["projection"] = time.perf_counter() - t0

    diagnostics = {
        "route": "pca", "screening": screening, "tau": tau, "w": w, "degree_sigma": sigma_deg,
        "tail_estimate": tail_hat, "tail_sigma": sigma_tail, "projection": proj_info, "pca_halted": bool(pca.halted),
        "low_rank_mechanism": mechanism,
        "pca": getattr(pca, "diagnostics", {}), "timings": timings,
    }
    return PrivateGraph(labels=labels, degrees=d_hat, normalizer=d_tilde, basis=basis,
                        core=core, projected=projected, ledger=ledger, diagnostics=diagnostics)
