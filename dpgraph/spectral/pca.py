"""Coherence-aware private PCA (d'Orsi & Novikov, "Tight Differentially Private PCA via Matrix
Coherence", Thm 5.1), with explicit constants proven in ``docs/privacy.md`` section 3.

The estimator is propose-test-release in three (four) steps, each charged to a ledger before it
draws:

1. **Gap** (Alg. 5.2): ``g^ = g + Lap(2 eta / eps_gap)``; lower bound
   ``L = g^ - (2 eta / eps_gap) l(delta_gap)``. Halt (``⊥``) if ``L <= eta``.
2. **Coherence** (Alg. 5.5): ``x^ = log t + Lap(s / eps_coh)`` with ``s = -log(1 - c_E/(L - eta))``
   (Lemma 5.4 with an explicit constant); upper bound ``T = min(t_max, exp(x^ + (s/eps_coh)
   l(delta_coh)))``.

Here ``l(delta) = max(ln(1 / (2 delta)), 1)`` (:func:`tail_multiple`): the one-sided Laplace
tail beyond ``b ln(1 / (2 delta))`` has probability ``delta`` only for ``delta <= 1 / (2e)``
(the discrete sampler's tail statement, docs/privacy.md 13.1; for ``delta > 1/2`` the logarithm
is negative), so a larger share is used as if it were ``1 / (2e)``: a smaller failure
probability than the ``delta`` charged, which that charge still covers (docs/privacy.md 3.7).
3. **Projector** (Alg. 5.8): release ``P + G``, ``P = U U^T``, with ``G`` symmetric Gaussian
   (diagonal variance doubled), calibrated to ``c_E T / (L - eta)``; return its top-r
   eigenvectors. On ``⊥``: a uniformly random r-dimensional subspace.
4. **Core** (Alg. 5.10, :func:`private_low_rank` only): ``B^T M B + N`` for the released basis B.

Privacy: the composition is ``(sum eps, sum delta)``-DP where the delta sum includes the test
failure probabilities ``delta_gap`` and ``delta_coh`` (Lemma B.5 style; proof in docs/privacy.md
3.7). The ledger records every step, including budget reserved by a halted run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpgraph.privacy import PrivacyLedger, analytic_gaussian_sigma, make_rng
from dpgraph.privacy.validation import check_delta, check_epsilon
from dpgraph.privacy.noise import laplace_mechanism, symmetric_gaussian_noise
from dpgraph.spectral import linalg as _linalg
from dpgraph.spectral.bounds import (
    SQRT2,
    adjacency_constants,
    projected_core_sensitivity,
    gap_sensitivity,
    log_row_scale_sensitivity,
    projector_sensitivity,
)

__all__ = [
    "tail_multiple",
    "check_rank",
    "BudgetSplit",
    "PCADiagnostics",
    "PrivateSubspaceResult",
    "PrivateLowRankResult",
    "private_subspace",
    "private_low_rank",
]


@dataclass(frozen=True)
class BudgetSplit:
    """Fractions of (epsilon, delta) spent on each step; each tuple sums to 1.

    ``epsilon``/``delta`` are ``(gap, coherence, projector, core)``. For the two Laplace tests the
    delta fraction is their failure probability; ``core`` is used by :func:`private_low_rank`
    only (set it to 0 for :func:`private_subspace`). Defaults chosen by measurement
    (``benchmarks/bench_pca.py split``, BENCHMARKS.md "Private PCA"): the two tests need more
    than the 30% the paper's analysis suggests, because their margins
    ``b max(ln(1/(2 delta)), 1)`` enter the projector noise through ``L`` and ``T``.
    """

    epsilon: tuple = (0.30, 0.25, 0.45, 0.0)
    delta: tuple = (0.3, 0.3, 0.4, 0.0)

    def __post_init__(self):
        for name in ("epsilon", "delta"):
            v = tuple(float(x) for x in getattr(self, name))
            if len(v) != 4 or any(not math.isfinite(x) or x < 0 for x in v):
                raise ValueError(f"split.{name} must be 4 fractions >= 0 (gap, coherence, "
                                 f"projector, core), got {getattr(self, name)!r}")
            if abs(sum(v) - 1) > 1e-9:
                raise ValueError(f"split.{name} must sum to 1, got {v} (sum {sum(v):g})")
            if v[0] <= 0 or v[2] <= 0:
                raise ValueError(f"split.{name}: the gap and projector fractions must be > 0")
            object.__setattr__(self, name, v)


DEFAULT_SUBSPACE_SPLIT = BudgetSplit()
DEFAULT_LOW_RANK_SPLIT = BudgetSplit(epsilon=(0.27, 0.23, 0.40, 0.10), delta=(0.25, 0.25, 0.4, 0.1))


@dataclass
class PCADiagnostics:
    """Released (private) quantities and calibration of each step; nothing here is non-private."""

    kind: str
    which: str
    n: int
    m: int
    rank: int
    adjacency: str
    eta: float
    c_E: float
    epsilon_parts: dict
    delta_parts: dict
    gap_sensitivity: float = math.nan
    gap_noise_scale: float = math.nan
    gap_estimate: float = math.nan
    gap_lower: float = math.nan
    row_scale_sensitivity: float = math.nan
    row_scale_noise_scale: float = math.nan
    row_scale_estimate: float = math.nan
    row_scale_upper: float = math.nan
    coherence_upper: float = math.nan
    projector_sensitivity: float = math.nan
    projector_sigma: float = math.nan
    core_sensitivity: float = math.nan
    core_sigma: float = math.nan
    halted_at: str | None = None
    eig: object = None

    def __repr__(self):
        keys = ("kind", "which", "n", "m", "rank", "gap_estimate", "gap_lower", "row_scale_upper",
                "coherence_upper", "projector_sensitivity", "projector_sigma", "halted_at")
        body = ", ".join(f"{k}={getattr(self, k):.4g}" if isinstance(getattr(self, k), float)
                         else f"{k}={getattr(self, k)!r}" for k in keys)
        return f"PCADiagnostics({body})"


@dataclass
class PrivateSubspaceResult:
    """Result of :func:`private_subspace`.

    Attributes
    ----------
    basis : (n, r) ndarray, orthonormal columns
    halted : bool
        True when a test returned ``⊥`` and a uniformly random subspace was released (Alg. 5.8).
    ledger : PrivacyLedger
    diagnostics : PCADiagnostics
    """

    basis: np.ndarray
    halted: bool
    ledger: PrivacyLedger
    diagnostics: PCADiagnostics

    def __repr__(self):
        eps, dlt = self.ledger.spent
        d = self.diagnostics
        return (f"PrivateSubspaceResult(n={self.basis.shape[0]}, rank={self.basis.shape[1]}, "
                f"halted={self.halted}, spent=(epsilon={eps:.4g}, delta={dlt:.3g}), "
                f"gap_lower={d.gap_lower:.4g}, coherence_upper={d.coherence_upper:.4g}, "
                f"projector_sigma={d.projector_sigma:.3g})")


@dataclass
class PrivateLowRankResult:
    """Result of :func:`private_low_rank`: the estimate is ``basis @ core @ basis.T``.

    Attributes
    ----------
    basis : (n, r) ndarray, orthonormal columns
    core : (r, r) symmetric ndarray
    halted : bool
    ledger : PrivacyLedger
    diagnostics : PCADiagnostics
    """

    basis: np.ndarray
    core: np.ndarray
    halted: bool
    ledger: PrivacyLedger
    diagnostics: PCADiagnostics

    def to_dense(self) -> np.ndarray:
        """The n x n estimate ``basis @ core @ basis.T``."""
        return self.basis @ self.core @ self.basis.T

    def __repr__(self):
        eps, dlt = self.ledger.spent
        d = self.diagnostics
        return (f"PrivateLowRankResult(n={self.basis.shape[0]}, rank={self.basis.shape[1]}, "
                f"halted={self.halted}, spent=(epsilon={eps:.4g}, delta={dlt:.3g}), "
                f"gap_lower={d.gap_lower:.4g}, coherence_upper={d.coherence_upper:.4g}, "
                f"projector_sigma={d.projector_sigma:.3g}, core_sigma={d.core_sigma:.3g})")


# ----------------------------------------------------------------------------------------------
def check_rank(rank, n: int, m: int) -> int:
    """``rank`` as an int when ``1 <= rank < min(n, m)`` (the gap ``sigma_r - sigma_(r+1)``
    must exist), else a ValueError naming it; checked before anything is charged.

    >>> check_rank(2, 34, 34)
    2
    """
    if isinstance(rank, (bool, np.bool_)) or not isinstance(rank, (int, np.integer)):
        raise ValueError(f"rank must be an integer, got {rank!r}")
    rank = int(rank)
    p = min(n, m)
    if rank <= 0:
        raise ValueError(f"rank must be >= 1, got {rank}")
    if rank >= p:
        raise ValueError(f"rank must be < min(n, m) = {p} (the gap sigma_r - sigma_(r+1) must "
                         f"exist), got {rank}")
    return rank


def _setup_ledger(ledger, epsilon, delta):
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    if ledger is None:
        return PrivacyLedger(epsilon, delta), epsilon, delta
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger or None")
    ledger.check(epsilon, delta, name="private PCA")
    return ledger, epsilon, delta


def _reserve(ledger, name, eps, dlt, why):
    if eps > 0 or dlt > 0:
        ledger.charge(name, mechanism="reserved", epsilon=eps, delta=dlt,
                      note=f"nothing drawn ({why}); charged so the guarantee is the same on "
                           f"every branch")


def tail_multiple(delta: float) -> float:
    """``max(ln(1 / (2 delta)), 1)``: the multiple of a Laplace tail scale ``b`` that a one-sided
    tail of probability at most ``delta`` lies beyond (docs/privacy.md 3.7).

    ``P[Lap(b) > b ln(1 / (2 beta))] <= beta`` is proven for ``beta <= 1 / (2e)`` (for the
    discrete sampler's tail scale, docs/privacy.md 13.1; for ``beta > 1/2`` the margin would
    even be negative), so a ``delta`` above ``1 / (2e)`` is used as ``1 / (2e)``: the margin
    ``b`` then fails with probability at most ``1 / (2e) < delta``, still covered by the
    ``delta`` charged. Below ``1 / (2e)`` nothing changes. A ``delta`` of 0 (a share that
    underflowed) needs an infinite margin.

    >>> tail_multiple(1e-6) == math.log(1 / 2e-6), tail_multiple(0.19), tail_multiple(0.9)
    (True, 1.0, 1.0)
    """
    if not delta > 0:
        return math.inf
    return max(math.log(1.0 / (2.0 * delta)), 1.0)


def _row_scale(top: _linalg.TopSubspace, kind: str) -> float:
    su = float(np.max(np.einsum("ij,ij->i", top.U, top.U)))
    if kind == "symmetric":
        return math.sqrt(su)
    sv = float(np.max(np.einsum("ij,ij->i", top.V, top.V)))
    return math.sqrt(su + sv)


def _run_subspace(M, kind, rank, consts, eps_parts, dlt_parts, ledger, gen, diag,
                  eig_options, which="magnitude",
                  max_projector_noise: float | None = None) -> tuple[np.ndarray, bool]:
    """Steps 1-3 (Alg. 5.2, 5.5, 5.8). Returns (basis, halted)."""
    n, m = M.shape
    eta, c_E = consts.eta, consts.c_E
    eps_g, eps_c, eps_p = eps_parts["gap"], eps_parts["coherence"], eps_parts["projector"]
    dl_g, dl_c, dl_p = dlt_parts["gap"], dlt_parts["coherence"], dlt_parts["projector"]
    top = _linalg.top_subspace(M, rank, kind, which)
    t_max = 1.0 if kind == "symmetric" else SQRT2

    # -- step 1: private gap (Alg. 5.2); Weyl: |g(M) - g(M')| <= 2 eta          [privacy.md 3.2]
    gap = float(top.sigma[rank - 1] - top.sigma[rank])
    s_gap = gap_sensitivity(eta)
    g_hat, b_gap = laplace_mechanism(gap, sensitivity=s_gap, epsilon=eps_g, ledger=ledger,
                                     name="pca: spectral gap (Alg. 5.2)", rng=gen,
                                     note="sigma_r - sigma_(r+1), Weyl; docs/privacy.md 3.2")
    ledger.charge("pca: gap test failure", mechanism="ptr-failure", epsilon=0.0, delta=dl_g,
                  note="P[Lap(b) > b max(ln(1/(2 delta)), 1)] <= delta; docs/privacy.md 3.7")
    L = g_hat - b_gap * tail_multiple(dl_g)
    diag.gap_sensitivity, diag.gap_noise_scale = s_gap, b_gap
    diag.gap_estimate, diag.gap_lower = g_hat, L
    if not L > eta:
        diag.halted_at = "gap"
        _reserve(ledger, "pca: row scale (Alg. 5.5)", eps_c, dl_c, "halted at the gap test")
        _reserve(ledger, "pca: projector (Alg. 5.8)", eps_p, dl_p, "halted at the gap test")
        return _linalg.random_subspace(n, rank, gen), True

    # -- step 2: private log row scale (Alg. 5.5, Lemma 5.4)                     [privacy.md 3.5]
    s_log = log_row_scale_sensitivity(c_E, eta, L) if eps_c > 0 else math.inf
    if math.isfinite(s_log) and dl_c > 0:
        t = _row_scale(top, kind)
        x_hat, b_c = laplace_mechanism(math.log(t), sensitivity=s_log, epsilon=eps_c,
                                       ledger=ledger, name="pca: row scale (Alg. 5.5)", rng=gen,
                                       note="log t, t = max row norm; docs/privacy.md 3.5")
        ledger.charge("pca: row-scale test failure", mechanism="ptr-failure", epsilon=0.0,
                      delta=dl_c, note="one-sided Laplace tail; docs/privacy.md 3.7")
        T = min(t_max, math.exp(x_hat + b_c * tail_multiple(dl_c)))
        diag.row_scale_sensitivity, diag.row_scale_noise_scale = s_log, b_c
        diag.row_scale_estimate = math.exp(x_hat)
    else:
        T = t_max
        _reserve(ledger, "pca: row scale (Alg. 5.5)", eps_c, dl_c,
                 "c_E/(L - eta) >= 1: trivial bound t <= t_max used")
    diag.row_scale_upper = T
    diag.coherence_upper = (n * T * T / rank) if kind == "symmetric" else math.nan

    # -- step 3: Gaussian mechanism on the projector (Alg. 5.8)                  [privacy.md 3.4]
    s_p = projector_sensitivity(c_E, eta, L, T)
    if max_projector_noise is not None:
        # Decided from released values (L, T) and public parameters only: no privacy cost.
        # 2 sigma sqrt(n) is the typical spectral norm of the n x n symmetric noise; above the
        # projector's eigengap (1) by a margin, the noisy projector carries no signal.
        sigma_p = analytic_gaussian_sigma(eps_p, dl_p, s_p)
        diag.projector_sensitivity, diag.projector_sigma = s_p, sigma_p
        if 2.0 * sigma_p * math.sqrt(n) > max_projector_noise:
            diag.halted_at = "projector noise"
            _reserve(ledger, "pca: projector (Alg. 5.8)", eps_p, dl_p,
                     f"predicted noise norm 2 sigma sqrt(n) = {2 * sigma_p * math.sqrt(n):.3g} "
                     f"> max_projector_noise = {max_projector_noise:g}")
            return _linalg.random_subspace(n, rank, gen), True
    G = symmetric_gaussian_noise(n, sensitivity=s_p, epsilon=eps_p, delta=dl_p, ledger=ledger,
                                 name="pca: projector (Alg. 5.8)", rng=gen,
                                 diagonal_scale=SQRT2,
                                 note="upper triangle of U U^T, diagonal weight 1/sqrt2; "
                                      "||sin Theta||_F <= c_E T/(L - eta); docs/privacy.md 3.4")
    diag.projector_sensitivity, diag.projector_sigma = s_p, G.sigma
    basis, info = _linalg.top_eigvecs_projector_plus_noise(top.U, G, rank, gen, **eig_options)
    diag.eig = info
    return basis, False


def _check_max_noise(value):
    if value is None:
        return None
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"max_projector_noise must be a finite number > 0 or None, got {value!r}")
    return v


def _prepare(M, rank, epsilon, delta, adjacency, ledger, symmetrize, split, which):
    if which not in ("magnitude", "largest", "smallest"):
        raise ValueError(f"which must be 'magnitude', 'largest' or 'smallest', got {which!r}")
    M, kind = _linalg.check_matrix(M, symmetrize=symmetrize)
    if kind != "symmetric" and which != "magnitude":
        raise ValueError(f"which={which!r} (an eigenspace) needs a symmetric M; singular "
                         f"subspaces of rectangular M use which='magnitude'")
    n, m = M.shape
    rank = check_rank(rank, n, m)
    consts = adjacency_constants(adjacency, symmetric=(kind == "symmetric"))
    ledger, epsilon, delta = _setup_ledger(ledger, epsilon, delta)
    names = ("gap", "coherence", "projector", "core")
    eps_parts = {k: epsilon * f for k, f in zip(names, split.epsilon)}
    dlt_parts = {k: delta * f for k, f in zip(names, split.delta)}
    diag = PCADiagnostics(kind=kind, which=which, n=n, m=m, rank=rank,
                          adjacency=consts.description,
                          eta=consts.eta, c_E=consts.c_E, epsilon_parts=eps_parts,
                          delta_parts=dlt_parts)
    return M, kind, rank, consts, ledger, eps_parts, dlt_parts, diag


def private_subspace(M, rank, *, epsilon, delta, adjacency, rng=None, ledger=None,
                     symmetrize=False, which: str = "magnitude", split: BudgetSplit | None = None,
                     eig_options: dict | None = None,
                     max_projector_noise: float | None = None) -> PrivateSubspaceResult:
    """Private top-r singular subspace (d'Orsi & Novikov Thm 5.1; Algs. 5.2, 5.5, 5.8).

    Parameters
    ----------
    M : (n, n) symmetric or (n, m) array, or scipy sparse matrix
        Symmetric: the subspace of the r eigenvalues of largest magnitude. Rectangular (or
        any square ``M`` with ``symmetrize=True``): the left singular subspace. Sparse
        inputs are only multiplied, never densified (above 2000 rows).
    rank : int, 1 <= rank < min(n, m)
    epsilon, delta : float
        Total privacy budget of this call.
    adjacency : float or EntryAdjacency
        ``Delta`` (Def. 4.2, entrywise l1: ``sum_ab |(E E^T)_ab| <= Delta^2``) or
        :class:`EntryAdjacency` (one entry / one symmetric pair changes by at most ``max_abs``).
    rng : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        Charges go there (and must fit its remaining budget); default: a fresh
        ``PrivacyLedger(epsilon, delta)``.
    symmetrize : bool
        Treat every square ``M`` as rectangular (its left singular subspace), symmetric or not:
        for inputs that may be non-symmetric. The choice is the caller's, never read from
        ``M`` (adjacent inputs, one symmetric and one not, would otherwise run different
        algorithms). Without it a square ``M`` must be symmetric, and the adjacency is among
        symmetric matrices.
    which : {"magnitude", "largest", "smallest"}
        Symmetric ``M`` only. ``"magnitude"``: the r eigenvalues of largest ``|lambda|`` (the
        top singular subspace). ``"largest"`` / ``"smallest"``: the eigenspace of the r
        algebraically largest / smallest eigenvalues (Cor. 1.6), with the gap
        ``lambda_r - lambda_(r+1)`` (resp. ``lambda_(n-r) - lambda_(n-r+1)``). Cor. 1.6 shifts
        ``M`` by a private multiple of the identity; the shift is needed only in the proof
        (docs/privacy.md 3.9), so no budget is spent on it.
    split : BudgetSplit, optional
        Fractions of the budget per step (``core`` must be 0 here).
    max_projector_noise : float, optional
        Halt before the projector step (``halted_at="projector noise"``, its budget reserved,
        nothing drawn) when the released gap and row-scale bounds imply a noise matrix of typical
        spectral norm ``2 sigma sqrt(n)`` above this value (the projector's eigengap is 1). The
        decision uses released values only. Default None: never.
    eig_options : dict, optional
        Options of the eigensolver for ``P + G`` (``tol``, ``max_products``, ``oversample``).

    Returns
    -------
    PrivateSubspaceResult

    Raises
    ------
    ValueError
        Non-symmetric square ``M`` without ``symmetrize=True``; ``rank`` outside
        ``[1, min(n, m))``; NaN / infinite entries; ``adjacency <= 0``; a bad budget.

    Notes
    -----
    ``(epsilon, delta)``-DP under the given adjacency (docs/privacy.md 3.7). The projector noise
    is an n x n symmetric Gaussian matrix generated in blocks and never held; its top-r
    eigenvectors are found by block Krylov on ``X -> U (U^T X) + G X``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.spectral import private_subspace, EntryAdjacency, subspace_distance
    >>> u = np.ones(200) / np.sqrt(200)
    >>> M = 500 * np.outer(u, u)
    >>> res = private_subspace(M, 1, epsilon=1.0, delta=1e-6, adjacency=EntryAdjacency(1.0), rng=0)
    >>> res.halted, subspace_distance(u, res.basis) < 0.3
    (False, True)
    """
    split = DEFAULT_SUBSPACE_SPLIT if split is None else split
    if not isinstance(split, BudgetSplit):
        raise TypeError("split must be a BudgetSplit")
    if split.epsilon[3] != 0 or split.delta[3] != 0:
        raise ValueError("split: private_subspace has no core step; set its fractions to 0")
    M, kind, rank, consts, ledger, eps_parts, dlt_parts, diag = _prepare(
        M, rank, epsilon, delta, adjacency, ledger, symmetrize, split, which)
    gen = make_rng(rng)
    basis, halted = _run_subspace(M, kind, rank, consts, eps_parts, dlt_parts, ledger, gen, diag,
                                  dict(eig_options or {}), which,
                                  max_projector_noise=_check_max_noise(max_projector_noise))
    return PrivateSubspaceResult(basis=basis, halted=halted, ledger=ledger, diagnostics=diag)


def private_low_rank(M, rank, *, epsilon, delta, adjacency, rng=None, ledger=None,
                     which: str = "magnitude", split: BudgetSplit | None = None,
                     eig_options: dict | None = None) -> PrivateLowRankResult:
    """Private rank-r estimate ``B C B^T`` of a symmetric matrix (Alg. 5.10, Thm 5.1).

    Runs :func:`private_subspace` (gap, coherence, projector) for the basis ``B``, then releases
    the core ``C = B^T M B + N`` with ``N`` symmetric Gaussian (r x r), calibrated to the
    public row norms of ``B`` (docs/privacy.md 3.6). Parameters as in :func:`private_subspace`;
    ``M`` must be symmetric, ``split.epsilon[3]`` and ``split.delta[3]`` (the core's share) > 0.
    On halting the basis is uniformly random and the core is still released on it.

    Returns
    -------
    PrivateLowRankResult

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.spectral import private_low_rank, EntryAdjacency
    >>> u = np.ones(200) / np.sqrt(200)
    >>> res = private_low_rank(500 * np.outer(u, u), 1, epsilon=1.0, delta=1e-6,
    ...                        adjacency=EntryAdjacency(1.0), rng=0)
    >>> bool(abs(res.core[0, 0] - 500) < 5)
    True
    """
    split = DEFAULT_LOW_RANK_SPLIT if split is None else split
    if not isinstance(split, BudgetSplit):
        raise TypeError("split must be a BudgetSplit")
    if split.epsilon[3] <= 0 or split.delta[3] <= 0:
        raise ValueError("split: private_low_rank needs a core fraction > 0 of epsilon and delta")
    M, kind, rank, consts, ledger, eps_parts, dlt_parts, diag = _prepare(
        M, rank, epsilon, delta, adjacency, ledger, False, split, which)
    if kind != "symmetric":
        raise ValueError("private_low_rank needs a symmetric M; use private_subspace for the "
                         "left singular subspace of a rectangular matrix")
    gen = make_rng(rng)
    basis, halted = _run_subspace(M, kind, rank, consts, eps_parts, dlt_parts, ledger, gen, diag,
                                  dict(eig_options or {}), which)
    # -- step 4: core B^T M B with B public (Alg. 5.10)                           [privacy.md 3.6]
    MB = M @ basis
    C = basis.T @ np.asarray(MB)
    C = (C + C.T) / 2
    s_k = projected_core_sensitivity(adjacency, basis)
    N = symmetric_gaussian_noise(rank, sensitivity=s_k, epsilon=eps_parts["core"],
                                 delta=dlt_parts["core"], ledger=ledger,
                                 name="pca: core (Alg. 5.10)", rng=gen, diagonal_scale=SQRT2,
                                 note="upper triangle of B^T M B, public B; docs/privacy.md 3.6")
    diag.core_sensitivity, diag.core_sigma = s_k, N.sigma
    core = C + N.to_dense()
    return PrivateLowRankResult(basis=basis, core=core, halted=halted, ledger=ledger,
                                diagnostics=diag)
