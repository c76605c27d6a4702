r"""The matrix-free coherence-aware route: O(m + n r) memory, sparse products only.

Edge-level (epsilon, delta)-DP release of a graph as an ``n x (r + 1)`` factor form, for graphs
far beyond what the dense routes can hold (derivations: docs/privacy.md, section 5):

1. **Private degrees** ``d^ = d + N(0, sigma_d^2 I)`` (L2 sensitivity ``sqrt 2``, 4.1 / 5.1)
   and the public normalizer ``d~ = max(d^, 0) + tau`` (``tau`` the mean of ``max(d^, 0)``,
   Qin & Rohe's regularization), ``S = sum d~``. One edge changes one entry pair of
   ``M = D~^-1/2 A D~^-1/2`` by at most ``1/sqrt(d~_i d~_j)`` (4.2).
2. **Noisy power iteration** (Hardt & Price 2014, Alg. 1, with Hardt & Roth's coherence-aware
   row control) on ``M`` with the public direction ``u0 = D~^1/2 1 / sqrt(S)`` deflated:
   ``Z = clip(P X)``, ``Y = M Z + N(0, sigma_t^2)``, ``X = orth(P Y)``, where ``P = I - u0 u0^T``
   and ``clip`` scales row ``i`` to norm at most ``l_i = kappa sqrt(r d~_i / S)``. The rows of
   the eigenvectors of a degree-corrected block model are proportional to ``sqrt(d_i)``, so
   these levels follow the signal's own coherence profile, and the per-step L2 sensitivity is
   deterministic: ``kappa sqrt(r / S) sqrt(1/d~_(1) + 1/d~_(2))`` (5.2; ``d~_(1) <= d~_(2)``
   the two smallest normalizers), which does not grow with ``n``: the noise's spectral norm
   depends on the degrees only. The final basis is the budget-weighted average of the last
   ``average`` iterates, aligned by orthogonal Procrustes (post-processing), which averages
   their independent noise; optionally the last ``final_steps`` steps get ``final_weight`` times
   the others' share.
3. **Private core** ``C = Q^T M Q + N`` on ``Q = [u0, clip(P X_T)]`` (row-clipped at
   ``core_kappa``; sensitivity ``sqrt 2 (1 + core_kappa^2 r) / S`` on its upper triangle, 5.3).
   With ``Q = B R`` (QR), ``M^ = B K B^T``, ``K = R^-T C R^-1``: the projection of ``M`` onto
   ``span Q``, and the synthetic weights are ``W^ = U K U^T`` with ``U = D~^1/2 B``.

Every release is a Gaussian mechanism, ``mu_i = Delta_i / sigma_i``-GDP (Dong, Roth & Su
2022, Thm 2.7; we write ``rho_i = mu_i^2 / 2``, also its zCDP parameter); their adaptive
composition is exactly ``mu = sqrt(sum mu_i^2)``-GDP (Cor. 3.3), calibrated to
``mu = gdp_mu(epsilon, delta)``, the exact analytic-Gaussian conversion to (epsilon, delta)-DP
(:func:`composition_rho`; 6-9% less noise than the zCDP bound of Canonne-Kamath-Steinke:
BENCHMARKS.md). The caller's ledger gets one charge for the whole composition, with its
``dp_accounting`` event (one Gaussian of noise multiplier ``1/mu``); every release is itemized,
with its sensitivity and noise scale, in the Gaussian-DP ledger
``diagnostics["composition_ledger"]``.

Memory: the input's CSR (``24 m`` bytes) and ``O(n r)`` floats: :func:`estimated_memory`.
Downstream, :class:`LowRankOperator` gives the CSP engine ``W^ V`` in ``O(n r k)`` and
:meth:`FactorPrivateGraph.sample` draws an unweighted graph in ``O(m + n r)`` expected time.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from dpgraph.graph import GraphData
from dpgraph.privacy import (PrivacyBudgetError, PrivacyLedger, approx_dp_to_zcdp_rho, gaussian_noise,
                             make_rng, zcdp_to_approx_dp)
from dpgraph.privacy.calibration import gdp_epsilon, gdp_mu
from dpgraph.privacy.noise import (discrete_gaussian_in_range, discrete_gaussian_min_rho,
                                   discrete_gaussian_noise)
from dpgraph.privacy.ledger import EventSpec, uncounted
from dpgraph.privacy.transcript import record
from dpgraph.release.factor_graph import FactorPrivateGraph
from dpgraph.release.routes import route_spec
from dpgraph.release.routes.pca import regularizer
from dpgraph.progress import report

__all__ = ["release", "release_matrix_free", "check_release_options", "check_options",
           "MATRIX_FREE_DEFAULT_RANK", "estimated_memory", "default_steps", "clip_levels",
           "step_sensitivity", "core_sensitivity", "MATRIX_FREE_DEFAULTS", "composition_rho"]

#: Defaults of :func:`release_matrix_free` (measured on planted graphs, BENCHMARKS.md,
#: "Million-node graphs").
MATRIX_FREE_DEFAULTS = {
    "kappa": 0.4,          # clipping level of the power steps, in units of sqrt(r d~_i / S)
    "core_kappa": 2.0,     # clipping level of the core's basis
    "degree_share": 0.1,   # fraction of rho for the degrees
    "core_share": 0.02,    # fraction of rho for the core
    "final_steps": 0,      # the last final_steps steps get final_weight times the others' budget
    "final_weight": 4.0,
    "average": 4,          # average the last 4 iterates (budget-weighted, aligned)
}

#: Default number of private directions (``privatize(..., route="matrix-free")`` with no
#: rank): each direction's noise grows like ``sqrt(r)`` (5.2), and on planted graphs rank 8
#: loses what rank 1-2 find (BENCHMARKS.md, "Million-node graphs").
MATRIX_FREE_DEFAULT_RANK = route_spec("matrix-free").default_rank  # declared with the route

def default_steps(n: int) -> int:
    """Number of power steps: ``max(8, ceil(1.25 ln n))`` (13 at n = 20,000, 15 at 100,000,
    18 at 10^6). A random start overlaps the signal by about ``1/sqrt(n)``, so the number of
    steps needed to reach it grows like ``log n`` (BENCHMARKS.md, "Million-node graphs").

    Examples
    --------
    >>> default_steps(100), default_steps(20000), default_steps(10**6)  # the floor, then log n
    (8, 13, 18)
    """
    return max(8, math.ceil(1.25 * math.log(max(int(n), 2))))


def clip_levels(d_tilde: np.ndarray, rank: int, kappa: float) -> np.ndarray:
    """Row clipping levels ``l_i = kappa sqrt(rank d~_i / S)``, ``S = sum d~`` (docs 5.2).

    Examples
    --------
    >>> clip_levels([1.0, 1.0, 2.0], 1, 2.0).round(6).tolist()  # 2 sqrt(1/4), 2 sqrt(2/4)
    [1.0, 1.0, 1.414214]
    """
    d_tilde = np.asarray(d_tilde, dtype=np.float64)
    return kappa * np.sqrt(rank * d_tilde / float(d_tilde.sum()))


def step_sensitivity(d_tilde: np.ndarray, rank: int, kappa: float) -> float:
    """L2 sensitivity of ``M Z`` over the rows clipped at :func:`clip_levels` (docs 5.2).

    One edge ``{i, j}`` changes ``M Z`` by ``t (e_i Z_j + e_j Z_i) / sqrt(d~_i d~_j)``,
    ``|t| <= 1``, of Frobenius norm at most
    ``sqrt((l_i^2 + l_j^2) / (d~_i d~_j)) = kappa sqrt(rank / S) sqrt(1/d~_i + 1/d~_j)``,
    largest at the two smallest normalizers.

    Examples
    --------
    >>> round(step_sensitivity([1.0, 1.0, 2.0], 1, 1.0), 6)  # sqrt(1/4) sqrt(2)
    0.707107
    """
    d = np.sort(np.asarray(d_tilde, dtype=np.float64))
    S = float(d.sum())
    return kappa * math.sqrt(rank / S) * math.sqrt(1.0 / d[0] + 1.0 / d[1])


def core_sensitivity(d_tilde: np.ndarray, rank: int, core_kappa: float) -> float:
    """L2 sensitivity of the upper triangle of ``Q^T M Q`` (diagonal weighted by
    ``1/sqrt 2``) for ``Q = [u0, rows clipped at core_kappa]``: ``sqrt 2 (1 + core_kappa^2 rank)
    / S`` (docs 5.3).

    Examples
    --------
    >>> round(core_sensitivity([1.0, 1.0, 2.0], 2, 1.0), 6)  # sqrt(2) (1 + 2) / 4
    1.06066
    """
    S = float(np.sum(d_tilde))
    return math.sqrt(2.0) * (1.0 + core_kappa ** 2 * rank) / S


def estimated_memory(n: int, m: int, rank: int, *, solve: bool = True,
                     edges_held: bool = True) -> int:
    """Bytes the matrix-free route needs at ``n`` nodes, ``m`` edges and ``rank`` (public).

    The input's symmetric CSR (``2m`` float64 values and int32 indices: ``24 m``, plus the
    index pointer; not with ``edges_held=False``, a Dask edge list, whose blocks stay on the
    workers: the client holds ``O(n r)``) and the route's working set: ``16`` length-``n``
    vectors and about ``12`` ``n x (rank + 1)`` blocks (iterates, their clipped copies, products, noise, averaged
    iterates, factors). ``solve=True`` (the default: the interface of :mod:`dpgraph.release.routes`
    counts the solves a release implies) adds the engine on the factor form: its Burer-Monteiro
    iterate, gradient and trial point (about six ``n x 8`` blocks: ``48 n`` floats) and the
    roundings, evaluated a few columns at a time within
    :data:`dpgraph.engine.rounding.ROUND_MEMORY` (measured at n = 10^6: 0.41 GiB above the input
    for the whole ``max_cut``; BENCHMARKS.md, "Graphs on Dask"). An estimate, not a bound
    (BENCHMARKS.md, "Million-node graphs", compares it with measured peaks).

    Examples
    --------
    >>> round(estimated_memory(1_000_000, 50_000_000, 2) / 2**30, 1)
    2.1
    >>> round(estimated_memory(1_000_000, 50_000_000, 2, edges_held=False) / 2**30, 1)
    1.0
    """
    from dpgraph.engine.rounding import ROUND_MEMORY

    n, m, r = int(n), int(m), int(rank)
    total = (24 * m + 8 * (n + 1) if edges_held else 0) + 8 * n * (16 + 12 * (r + 1))
    if solve:
        total += 8 * n * 48 + min(ROUND_MEMORY, 48 * 64 * n)
    return int(total)


@dataclass(frozen=True)
class _Budget:
    rho: float
    degrees: float
    steps: np.ndarray
    core: float


def composition_rho(epsilon: float, delta: float) -> float:
    """``mu^2 / 2`` for ``mu = gdp_mu(epsilon, delta)``, a hair under (float slack): the total
    that the releases' ``rho_i = (Delta_i / sigma_i)^2 / 2`` may sum to (docs/privacy.md 5.4).

    Examples
    --------
    >>> round(composition_rho(1.0, 1e-6), 6)
    0.028014
    """
    return 0.5 * gdp_mu(epsilon, delta) ** 2 * (1.0 - 1e-12)


def _split_budget(epsilon: float, delta: float, steps: int, degree_share: float,
                  core_share: float, final_steps: int, final_weight: float,
                  noise: str = "continuous") -> _Budget:
    # discrete Gaussians are proven zCDP (CKS Thm 14), not GDP: the zCDP conversion there
    rho = (composition_rho(epsilon, delta) if noise == "continuous"
           else approx_dp_to_zcdp_rho(epsilon, delta) * (1.0 - 1e-12))
    weights = np.ones(steps)
    if final_steps:
        weights[-min(final_steps, steps):] = final_weight
    rho_steps = (1.0 - degree_share - core_share) * rho * weights / weights.sum()
    return _Budget(rho=rho, degrees=degree_share * rho, steps=rho_steps, core=core_share * rho)


def _charge(ledger: PrivacyLedger, name: str, rho_i: float, budget: _Budget, delta: float,
            sensitivity: float, sigma: float, note: str, discrete: bool = False) -> None:
    """Record one Gaussian release in the Gaussian-DP ledger: its own ``rho_i = mu_i^2 / 2``, a
    delta share proportional to rho, and the epsilon its ``mu_i`` alone guarantees at that delta
    (a true statement of the step; the ledger composes the ``mu_i``)."""
    dlt = delta * rho_i / budget.rho
    if discrete:
        ledger.charge(name, mechanism="discrete gaussian", epsilon=zcdp_to_approx_dp(
                          rho_i, min(dlt, 0.5)), delta=dlt, sensitivity=sensitivity,
                      sensitivity_norm="l2", noise_scale=sigma, note=note, rho=rho_i,
                      dp_event=EventSpec.of("ZCDpEvent", rho=rho_i))
        return
    eps = gdp_epsilon(math.sqrt(2.0 * rho_i), min(dlt, 0.5))
    ledger.charge(name, mechanism="gaussian", epsilon=eps, delta=dlt,
                  sensitivity=sensitivity, sensitivity_norm="l2", noise_scale=sigma, note=note,
                  rho=rho_i)


def _normalized_product(weights, inv_sqrt: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``M Z = D~^-1/2 W D~^-1/2 Z`` with one sparse product (no scaled copy of ``W``)."""
    return inv_sqrt[:, None] * np.asarray(weights @ (inv_sqrt[:, None] * Z))


def _clip_rows(Z: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Rows of ``Z`` scaled down to norm at most ``levels`` (recorded for the audit: the
    ``Z_t`` of the transcript, docs/privacy.md 5.4)."""
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    scale = np.minimum(1.0, levels / np.maximum(norms, 1e-300))
    out = Z * scale[:, None]
    record("matrix-free clip", out)
    return out


def _deflate(X: np.ndarray, u0: np.ndarray) -> np.ndarray:
    """``X`` with its component along ``u0`` removed (recorded for the audit: its input is the
    noisy iterate ``Y_t`` of the transcript, docs/privacy.md 5.4)."""
    record("matrix-free deflate", X)
    return X - np.outer(u0, u0 @ X)


def _aligned_average(iterates, weights) -> np.ndarray:
    """Weighted average of orthonormal iterates after aligning each to the last one by orthogonal
    Procrustes (``X_t Q_t`` with ``Q_t = argmin ||X_t Q - X_T||_F``), re-orthonormalized."""
    ref = iterates[-1]
    acc = np.zeros_like(ref)
    for X, w in zip(iterates, weights):
        U, _, Vt = np.linalg.svd(X.T @ ref)
        acc += w * (X @ (U @ Vt))
    Q, _ = np.linalg.qr(acc)
    return Q


def _check_positive(name: str, value) -> float:
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return v


def release_matrix_free(data: GraphData, *, epsilon: float, delta: float, rank: int,
                        ledger: PrivacyLedger, rng=None, steps: int | None = None,
                        kappa: float | None = None, core_kappa: float | None = None,
                        degree_share: float | None = None, core_share: float | None = None,
                        final_steps: int | None = None, final_weight: float | None = None,
                        average: int | None = None, regularization="mean",
                        progress: bool = False, noise: str = "continuous") -> "FactorPrivateGraph":
    """Edge-(epsilon, delta)-DP factor-form release of ``data`` (module docstring; docs 5).

    Parameters
    ----------
    data : GraphData
        The input (symmetric CSR, weights in [0, 1]); read only through the releases.
    epsilon, delta : float
        The route's budget; all of it is spent (one charge in ``ledger``).
    rank : int
        Number of private directions ``r`` besides the public one (the factors have ``r + 1``
        columns).
    ledger : PrivacyLedger
        Charged once, before any draw, with ``(epsilon, delta)`` and the composed rho.
    rng : None, int or numpy.random.Generator
    steps : int, optional
        Power steps (default :func:`default_steps`).
    kappa, core_kappa, degree_share, core_share, final_steps, final_weight, average
        See :data:`MATRIX_FREE_DEFAULTS` and the module docstring.
    regularization : "mean" or float
        ``tau`` of the normalizer ``d~ = max(d^, 0) + tau``.
    progress : bool
        Print one line per stage to stderr (otherwise lines go to :func:`dpgraph.progress.report`,
        which the command line turns on).
    noise : {"continuous", "discrete"}
        ``"continuous"`` (default): floating-point Gaussians calibrated by exact Gaussian DP.
        ``"discrete"``: every release rounded to a grid plus exact discrete Gaussian noise
        (no floating-point sample; calibrated by zCDP, about 7% more noise, and slower:
        docs/privacy.md 13.3, BENCHMARKS.md).

    Returns
    -------
    FactorPrivateGraph

    Examples
    --------
    >>> from dpgraph.datasets import planted_cut
    >>> from dpgraph.privacy import PrivacyLedger
    >>> inst = planted_cut(2000, 100.0, rng=0)
    >>> led = PrivacyLedger(epsilon=4.0, delta=1e-6)
    >>> pg = release_matrix_free(inst.graph, epsilon=4.0, delta=1e-6, rank=1, ledger=led, rng=0)
    >>> pg.basis.shape, round(led.spent[0], 6)
    ((2000, 2), 4.0)
    """
    n, labels = data.n, data.labels
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank < n - 1:
        raise ValueError(f"rank must be an integer with 1 <= rank < n - 1 = {n - 1}, got {rank!r}")
    rank = int(rank)
    opts, budget = check_release_options(
        n, epsilon, delta, noise=noise, steps=steps, kappa=kappa, core_kappa=core_kappa,
        degree_share=degree_share, core_share=core_share, final_steps=final_steps,
        final_weight=final_weight, average=average)
    if noise == "discrete":  # before the route's one charge (docs/privacy.md 11.1, 13.2)
        check_discrete_range(budget, rank)
    gen = make_rng(rng)
    log = _logger(progress)
    out = _Releases(ledger, epsilon, delta, budget, noise, gen)
    # 1. private degrees (sensitivity sqrt 2: docs 4.1, 5.1), public normalizer
    d_hat, sigma_d = out.gaussian(np.asarray(data.degrees, dtype=np.float64), math.sqrt(2.0),
                                  budget.degrees, 2, "degrees",
                                  "one edge changes two degrees by <= 1 (docs/privacy.md 4.1)")
    tau = regularizer(d_hat, regularization)
    d_tilde = np.maximum(d_hat, 0.0) + tau
    delta_step = step_sensitivity(d_tilde, rank, opts.kappa)
    log(f"degrees released (sigma {sigma_d:.3g}); tau {tau:.4g}, step sensitivity "
        f"{delta_step:.3g}")
    # the public normalizer's derived vectors: D~^-1/2 and the public direction sqrt(d~ / S)
    inv_sqrt, u0 = 1.0 / np.sqrt(d_tilde), np.sqrt(d_tilde / float(d_tilde.sum()))
    X, sigmas = _power_iteration(data.weights, d_tilde, inv_sqrt, u0, delta_step, rank, opts,
                                 out, log)  # docs 5.2
    B, K, s_core, sigma_c = _release_core(data.weights, d_tilde, inv_sqrt, u0, X, rank, opts,
                                          out)  # 5.3
    del data  # nothing below may see the input
    if ledger.reproducible:
        out.composition.mark_reproducible(warn=False)
    log("core released")
    diagnostics = {
        "route": "matrix-free", "screening": None, "tau": tau, "rank": rank,
        "steps": opts.steps, "kappa": opts.kappa, "core_kappa": opts.core_kappa,
        "rho": budget.rho, "degree_sigma": sigma_d, "step_sensitivity": delta_step,
        "step_sigmas": sigmas, "core_sensitivity": s_core, "core_sigma": sigma_c,
        "pca_halted": False,
        "low_rank_mechanism": f"matrix-free noisy power iteration ({opts.steps} steps, "
                              f"{'discrete Gaussians, zCDP' if out.discrete else 'Gaussian DP'})",
        "noise": noise,
        "composition_ledger": out.composition,
    }
    return FactorPrivateGraph(labels=labels, degrees=d_hat, normalizer=d_tilde, basis=B, core=K,
                              projected=None, ledger=ledger, diagnostics=diagnostics)


@dataclass(frozen=True)
class _Options:
    """The checked options of :func:`release_matrix_free` (defaults: MATRIX_FREE_DEFAULTS)."""

    steps: int
    kappa: float
    core_kappa: float
    degree_share: float
    core_share: float
    final_steps: int
    final_weight: float
    average: int

    @classmethod
    def checked(cls, n: int, *, steps, **given) -> "_Options":
        opts = dict(MATRIX_FREE_DEFAULTS)
        opts.update({key: val for key, val in given.items() if val is not None})
        steps = default_steps(n) if steps is None else int(steps)
        if steps < 1:
            raise ValueError(f"steps must be a positive integer, got {steps}")
        kap = _check_positive("kappa", opts["kappa"])
        ckap = _check_positive("core_kappa", opts["core_kappa"])
        dshare, cshare = float(opts["degree_share"]), float(opts["core_share"])
        if not (0 < dshare and 0 < cshare and dshare + cshare < 1):
            raise ValueError(f"degree_share and core_share must be > 0 with a sum < 1, got "
                             f"{dshare} and {cshare}")
        fsteps = int(opts["final_steps"])
        fweight = _check_positive("final_weight", opts["final_weight"])
        avg = max(1, min(int(opts["average"]), steps))
        return cls(steps, kap, ckap, dshare, cshare, fsteps, fweight, avg)


def _logger(progress: bool):
    """One line per stage: to stderr with ``progress``, else to :func:`dpgraph.progress.report`."""
    t_start = time.perf_counter()

    def log(msg):
        if progress:
            print(f"[dpgraph matrix-free {time.perf_counter() - t_start:7.1f}s] {msg}",
                  file=sys.stderr, flush=True)
        else:
            report(f"matrix-free: {msg}")
    return log


def check_release_options(n: int, epsilon: float, delta: float, *, noise: str = "continuous",
                          steps=None, kappa=None, core_kappa=None, degree_share=None,
                          core_share=None, final_steps=None, final_weight=None, average=None,
                          rank: int | None = None):
    """The route's refusals that public values decide, before its first draw: its options, the
    noise, a ``delta`` too large for the itemized accounting of its releases at ``epsilon``
    (:func:`_check_itemization`) and, with ``rank`` given, discrete noise outside the
    sampler's range (:func:`check_discrete_range`). Returns the checked options and the budget
    split.
    :func:`dpgraph.privatize` calls it before anything is charged (docs/privacy.md 11.1).

    Examples
    --------
    >>> opts, budget = check_release_options(100, 1.0, 1e-6)
    >>> opts.steps == default_steps(100), len(budget.steps)
    (True, 8)
    >>> bool(np.isclose(budget.degrees + budget.steps.sum() + budget.core, budget.rho))
    True
    >>> check_release_options(100, 1.0, 1e-6, noise="gaussian")
    Traceback (most recent call last):
    ...
    ValueError: noise must be 'continuous' or 'discrete', got 'gaussian'
    """
    opts = check_options(n, noise=noise, steps=steps, kappa=kappa, core_kappa=core_kappa,
                         degree_share=degree_share, core_share=core_share,
                         final_steps=final_steps, final_weight=final_weight, average=average)
    budget = _split_budget(epsilon, delta, opts.steps, opts.degree_share, opts.core_share,
                           opts.final_steps, opts.final_weight, noise)
    _check_itemization(epsilon, delta, budget, noise == "discrete")
    if noise == "discrete" and rank is not None:
        check_discrete_range(budget, rank)
    return opts, budget


def check_options(n: int, *, noise: str = "continuous", steps=None, kappa=None, core_kappa=None,
                  degree_share=None, core_share=None, final_steps=None, final_weight=None,
                  average=None) -> "_Options":
    """The route's options checked, their defaults (:data:`MATRIX_FREE_DEFAULTS`) filled in:
    the refusals that depend on neither the budget nor the graph (public ``n`` sets the default
    number of steps). :func:`check_release_options` adds the budget's.

    Examples
    --------
    >>> check_options(100).steps, check_options(100, kappa=0.5).kappa
    (8, 0.5)
    >>> check_options(100, core_share=1.0)
    Traceback (most recent call last):
    ...
    ValueError: degree_share and core_share must be > 0 with a sum < 1, got 0.1 and 1.0
    """
    opts = _Options.checked(n, steps=steps, kappa=kappa, core_kappa=core_kappa,
                            degree_share=degree_share, core_share=core_share,
                            final_steps=final_steps, final_weight=final_weight, average=average)
    if noise not in ("continuous", "discrete"):
        raise ValueError(f"noise must be 'continuous' or 'discrete', got {noise!r}")
    return opts


def check_discrete_range(budget: "_Budget", rank: int) -> None:
    """Refuse, before the route's charge, ``noise="discrete"`` shares of rho outside the exact
    discrete Gaussian sampler's range (:func:`~dpgraph.privacy.noise.discrete_gaussian_in_range`):
    the degrees (2 changed coordinates), each power step (``2 rank``) and the core
    (``(rank + 1)(rank + 2) / 2``); it was refused at the draw, after the whole route was
    charged (and the releases before it drawn). Public arithmetic only."""
    k = int(rank) + 1
    parts = [("the degrees", budget.degrees, 2)] + [
        (f"power step {t + 1}", float(r), 2 * int(rank)) for t, r in enumerate(budget.steps)] + [
        ("the core", budget.core, k * (k + 1) // 2)]
    for what, rho_i, changed in parts:
        if rho_i > 0 and not discrete_gaussian_in_range(1.0, 1.0, 0.5, changed, rho=rho_i):
            need = discrete_gaussian_min_rho(changed)
            raise ValueError(f"the matrix-free route's {what} would get rho={rho_i:.3g} of its "
                             f"zCDP budget, below the exact discrete Gaussian sampler's range "
                             f"for {changed:,} changed coordinates (rho >= {need:.3g}): a noise "
                             f"this large hides any answer; use a larger epsilon or delta, or "
                             f"matrix_free_options={{'noise': 'continuous'}}. Refused before "
                             f"anything was charged or drawn")


def _check_itemization(epsilon: float, delta: float, budget: _Budget, discrete: bool) -> None:
    """Refuse, before anything is charged or drawn, a ``delta`` so large that the itemized
    ledger of the releases (degrees, power steps, core, in that order: :class:`_Releases`)
    would overrun ``epsilon`` part way: at a large delta the total ``mu`` is large, and a
    prefix of the releases holds only its share of delta, at which its ``mu`` is worth more
    epsilon than the whole (karate at epsilon 1, delta 0.5 failed at the first power step,
    after the degrees were drawn)."""
    scratch = PrivacyLedger(epsilon=epsilon, delta=delta,
                            accounting="zcdp" if discrete else "gdp")
    parts = [("degrees", budget.degrees)] + [
        (f"power step {t + 1}", float(r)) for t, r in enumerate(budget.steps)] + [
        ("core", budget.core)]
    try:
        with uncounted():  # a trial on a scratch ledger: nothing is drawn
            for name, rho_i in parts:
                if rho_i > 0:  # the draws charge these shares (the discrete ones at most these)
                    _charge(scratch, name, rho_i, budget, delta, 1.0,
                            1.0 / math.sqrt(2.0 * rho_i), "", discrete)
    except PrivacyBudgetError:
        raise ValueError(f"delta={delta!r} is too large for the matrix-free route (at its "
                         f"epsilon of {epsilon:.4g}): its releases' itemized accounting would "
                         f"exceed that epsilon part way; pass a delta well below 1 / n (1e-6 is "
                         f"usual), or another route") from None


class _Releases:
    """The route's Gaussian releases: the whole ``(epsilon, delta)`` charged once to ``ledger``
    (Gaussian-DP composition, docs/privacy.md 5.4, or zCDP with discrete Gaussians, 13.3), each
    draw itemized in :attr:`composition`."""

    def __init__(self, ledger, epsilon, delta, budget, noise, gen):
        self.ledger, self.delta, self.budget, self.gen = ledger, delta, budget, gen
        self.discrete = noise == "discrete"
        what = (f"degrees + {len(budget.steps)} noisy power steps + core")
        if self.discrete:
            ledger.charge("matrix-free route (zCDP composition, discrete Gaussians)",
                          mechanism="discrete gaussian (zCDP composition)", epsilon=epsilon,
                          delta=delta, rho=budget.rho,
                          dp_event=EventSpec.of("ZCDpEvent", rho=budget.rho),
                          note=f"{what}, rho = {budget.rho:.4g}-zCDP (docs/privacy.md 13.3); "
                               f"itemized in diagnostics['composition_ledger']")
        else:
            mu = math.sqrt(2.0 * budget.rho)
            ledger.charge("matrix-free route (Gaussian-DP composition)",
                          mechanism="gaussian (GDP composition)", epsilon=epsilon, delta=delta,
                          rho=budget.rho,
                          dp_event=EventSpec.of("GaussianDpEvent", noise_multiplier=1.0 / mu),
                          note=f"{what}, mu = {mu:.4g}-GDP (docs/privacy.md 5.4); itemized in "
                               f"diagnostics['composition_ledger']")
        self.composition = PrivacyLedger(epsilon=epsilon, delta=delta,
                                         accounting="zcdp" if self.discrete else "gdp")

    def _itemize(self, name, rho_i, sens, sigma, note, discrete=False):
        """One draw in :attr:`composition`, an itemized copy of the single charge on the
        call's ledger (not a further spend: :func:`~dpgraph.privacy.ledger.uncounted`)."""
        with uncounted():
            _charge(self.composition, name, rho_i, self.budget, self.delta, sens, sigma, note,
                    discrete)

    def gaussian(self, value, sens, rho_i, changed, name, note):
        """``value`` + Gaussian noise of zCDP / GDP share ``rho_i``; returns it and sigma."""
        if self.discrete:
            out, p = discrete_gaussian_noise(value, sensitivity=sens, rho=rho_i,
                                             changed=changed, ledger=self.ledger, rng=self.gen)
            self._itemize(name, p["rho"], sens, p["sigma"], note, True)
            return out, p["sigma"]
        sigma = sens / math.sqrt(2.0 * rho_i)
        self._itemize(name, rho_i, sens, sigma, note)
        noise = gaussian_noise(np.shape(value), sigma=sigma, ledger=self.ledger, rng=self.gen)
        return value + noise, sigma

    def symmetric_core(self, C, s_core, note):
        """``C`` (k x k, symmetric) + symmetric Gaussian noise of the core's share (docs 5.3:
        the upper triangle with the diagonal weighted ``1/sqrt 2``); returns it and sigma."""
        k = C.shape[0]
        if self.discrete:  # the released vector: (C_ij)_{i<j} ++ (C_ii / sqrt 2)_i, rebuilt
            iu = np.triu_indices(k, 1)
            v, sigma_c = self.gaussian(np.concatenate([C[iu], np.diag(C) / math.sqrt(2.0)]),
                                       s_core, self.budget.core, k * (k + 1) // 2, "core", note)
            C = np.zeros((k, k))
            C[iu] = v[:iu[0].size]
            return C + C.T + np.diag(math.sqrt(2.0) * v[iu[0].size:]), sigma_c
        sigma_c = s_core / math.sqrt(2.0 * self.budget.core)
        self._itemize("core", self.budget.core, s_core, sigma_c, note)
        G = gaussian_noise((k, k), sigma=sigma_c, ledger=self.ledger, rng=self.gen)
        G = np.triu(G, 1)
        G = G + G.T + np.diag(math.sqrt(2.0) * gaussian_noise(k, sigma=sigma_c, ledger=self.ledger,
                                                                rng=self.gen))
        return C + G, sigma_c


def _power_iteration(W, d_tilde, inv_sqrt, u0, delta_step, rank, opts, out, log):
    """Step 2 (docs 5.2): noisy power iteration on the deflated ``M`` from a public random
    start, rows of each iterate clipped; the last ``average`` iterates averaged (aligned,
    budget-weighted). Returns the basis and the steps' sigmas."""
    n = d_tilde.size
    levels = clip_levels(d_tilde, rank, opts.kappa)
    X = out.gen.standard_normal((n, rank))  # public random start (not privacy noise)
    kept, kept_w, sigmas = [], [], []
    steps = opts.steps
    for t in range(steps):
        Z = _clip_rows(_deflate(X, u0), levels)
        Y, sigma_t = out.gaussian(_normalized_product(W, inv_sqrt, Z), delta_step,
                                  float(out.budget.steps[t]), 2 * rank, f"power step {t + 1}",
                                  "rows of Z clipped at kappa sqrt(r d~_i/S) (docs/privacy.md 5.2)")
        X, _ = np.linalg.qr(_deflate(Y, u0))
        sigmas.append(sigma_t)
        if t >= steps - opts.average:
            kept.append(X)
            kept_w.append(float(out.budget.steps[t]))
        log(f"power step {t + 1}/{steps} (noise sigma {sigma_t:.3g})")
    return (_aligned_average(kept, kept_w) if len(kept) > 1 else X), sigmas


def _release_core(W, d_tilde, inv_sqrt, u0, X, rank, opts, out):
    """Step 3 (docs 5.3): the private core on ``Q = [u0, clip(P X)]``, then the factor form
    ``B K B^T`` with ``B`` orthonormal. Returns ``B``, ``K``, the core's sensitivity and
    sigma."""
    Q = np.column_stack([u0, _clip_rows(_deflate(X, u0), clip_levels(d_tilde, rank,
                                                                      opts.core_kappa))])
    s_core = core_sensitivity(d_tilde, rank, opts.core_kappa)
    C = Q.T @ _normalized_product(W, inv_sqrt, Q)
    C = 0.5 * (C + C.T)
    C, sigma_c = out.symmetric_core(
        C, s_core, "upper triangle of Q^T M Q, diagonal weighted 1/sqrt 2 (docs/privacy.md 5.3)")
    B, R = np.linalg.qr(Q)
    Rinv = np.linalg.inv(R)
    K = Rinv.T @ C @ Rinv
    return B, 0.5 * (K + K.T), s_core, sigma_c


def release(data: GraphData, *, epsilon: float, delta: float, rank: int, ledger: PrivacyLedger,
            rng=None, screening=None, **options) -> FactorPrivateGraph:
    """The route interface of :mod:`dpgraph.release.routes`: :func:`release_matrix_free` (``options`` are
    its keyword arguments); ``screening`` (a released edge count's prediction, if any) is
    recorded in the diagnostics.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> led = PrivacyLedger(epsilon=2, delta=1e-6)
    >>> pg = release(data, epsilon=2.0, delta=1e-6, rank=2, ledger=led, rng=0)
    >>> type(pg).__name__, pg.n, pg.diagnostics["route"], led.spent  # all of the budget
    ('FactorPrivateGraph', 34, 'matrix-free', (2.0, 1e-06))
    """
    pg = release_matrix_free(data, epsilon=epsilon, delta=delta, rank=rank, ledger=ledger,
                             rng=rng, **options)
    pg.diagnostics["screening"] = screening
    return pg
