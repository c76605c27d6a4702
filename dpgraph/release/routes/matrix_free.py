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

from dpgraph.engine import WeightOperator
from dpgraph.graph import GraphData
from dpgraph.privacy import PrivacyLedger, approx_dp_to_zcdp_rho, gaussian_noise, make_rng, zcdp_to_approx_dp
from dpgraph.privacy.calibration import gdp_epsilon, gdp_mu
from dpgraph.privacy.noise import discrete_gaussian_noise
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.release.routes.pca import regularizer
from dpgraph.progress import report

__all__ = ["release", "release_matrix_free", "MATRIX_FREE_DEFAULT_RANK", "estimated_memory", "default_steps", "clip_levels",
           "step_sensitivity", "core_sensitivity", "LowRankOperator", "FactorPrivateGraph",
           "MATRIX_FREE_DEFAULTS", "SamplePlan", "sample_task", "SAMPLE_CHUNK",
           "composition_rho"]

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
MATRIX_FREE_DEFAULT_RANK = 2

# Above this many nodes the dense n x n export (PrivateGraph.weights) is refused: 5,000 nodes
# is a 200 MB array; the factor form serves everything else.
DENSE_EXPORT_MAX_N = 5000
# The engine's local search costs O(n r) per move on the factor form (one column of W^ per
# flip); above this many nodes it is switched off by default (FactorPrivateGraph.solver_options).
LOCAL_SEARCH_MAX_N = 5000


def default_steps(n: int) -> int:
    """Number of power steps: ``max(8, ceil(1.25 ln n))`` (13 at n = 20,000, 15 at 100,000,
    18 at 10^6). A random start overlaps the signal by about ``1/sqrt(n)``, so the number of
    steps needed to reach it grows like ``log n`` (BENCHMARKS.md, "Million-node graphs")."""
    return max(8, math.ceil(1.25 * math.log(max(int(n), 2))))


def clip_levels(d_tilde: np.ndarray, rank: int, kappa: float) -> np.ndarray:
    """Row clipping levels ``l_i = kappa sqrt(rank d~_i / S)``, ``S = sum d~`` (docs 5.2)."""
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
    / S`` (docs 5.3)."""
    S = float(np.sum(d_tilde))
    return math.sqrt(2.0) * (1.0 + core_kappa ** 2 * rank) / S


def estimated_memory(n: int, m: int, rank: int, *, solve: bool = True) -> int:
    """Bytes the matrix-free route needs at ``n`` nodes, ``m`` edges and ``rank`` (public).

    The input's symmetric CSR (``2m`` float64 values and int32 indices: ``24 m``, plus the
    index pointer) and the route's working set: ``16`` length-``n`` vectors and about ``12``
    ``n x (rank + 1)`` blocks (iterates, their clipped copies, products, noise, averaged
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
    """
    from dpgraph.engine.rounding import ROUND_MEMORY

    n, m, r = int(n), int(m), int(rank)
    total = 24 * m + 8 * (n + 1) + 8 * n * (16 + 12 * (r + 1))
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
        import dp_accounting

        ledger.charge(name, mechanism="discrete gaussian", epsilon=zcdp_to_approx_dp(
                          rho_i, min(dlt, 0.5)), delta=dlt, sensitivity=sensitivity,
                      sensitivity_norm="l2", noise_scale=sigma, note=note, rho=rho_i,
                      dp_event=dp_accounting.ZCDpEvent(rho_i))
        return
    eps = gdp_epsilon(math.sqrt(2.0 * rho_i), min(dlt, 0.5))
    ledger.charge(name, mechanism="gaussian", epsilon=eps, delta=dlt,
                  sensitivity=sensitivity, sensitivity_norm="l2", noise_scale=sigma, note=note,
                  rho=rho_i)


def _normalized_product(weights, inv_sqrt: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``M Z = D~^-1/2 W D~^-1/2 Z`` with one sparse product (no scaled copy of ``W``)."""
    return inv_sqrt[:, None] * np.asarray(weights @ (inv_sqrt[:, None] * Z))


def _clip_rows(Z: np.ndarray, levels: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    scale = np.minimum(1.0, levels / np.maximum(norms, 1e-300))
    return Z * scale[:, None]


def _deflate(X: np.ndarray, u0: np.ndarray) -> np.ndarray:
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
    opts = dict(MATRIX_FREE_DEFAULTS)
    for key, val in (("kappa", kappa), ("core_kappa", core_kappa),
                     ("degree_share", degree_share), ("core_share", core_share),
                     ("final_steps", final_steps), ("final_weight", final_weight),
                     ("average", average)):
        if val is not None:
            opts[key] = val
    n, labels = data.n, data.labels
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank < n - 1:
        raise ValueError(f"rank must be an integer with 1 <= rank < n - 1 = {n - 1}, got {rank!r}")
    rank = int(rank)
    steps = default_steps(n) if steps is None else int(steps)
    if steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps}")
    kap = _check_positive("kappa", opts["kappa"])
    ckap = _check_positive("core_kappa", opts["core_kappa"])
    dshare, cshare = float(opts["degree_share"]), float(opts["core_share"])
    if not (0 < dshare and 0 < cshare and dshare + cshare < 1):
        raise ValueError(f"degree_share and core_share must be > 0 with a sum < 1, got "
                         f"{dshare} and {cshare}")
    fsteps, fweight = int(opts["final_steps"]), _check_positive("final_weight", opts["final_weight"])
    avg = max(1, min(int(opts["average"]), steps))
    gen = make_rng(rng)
    t_start = time.perf_counter()

    def log(msg):
        if progress:
            print(f"[dpgraph matrix-free {time.perf_counter() - t_start:7.1f}s] {msg}",
                  file=sys.stderr, flush=True)
        else:
            report(f"matrix-free: {msg}")

    if noise not in ("continuous", "discrete"):
        raise ValueError(f"noise must be 'continuous' or 'discrete', got {noise!r}")
    discrete = noise == "discrete"
    budget = _split_budget(epsilon, delta, steps, dshare, cshare, fsteps, fweight, noise)
    import dp_accounting

    mu = math.sqrt(2.0 * budget.rho)
    if discrete:
        ledger.charge("matrix-free route (zCDP composition, discrete Gaussians)",
                      mechanism="discrete gaussian (zCDP composition)", epsilon=epsilon,
                      delta=delta, rho=budget.rho, dp_event=dp_accounting.ZCDpEvent(budget.rho),
                      note=f"degrees + {steps} noisy power steps + core, rho = "
                           f"{budget.rho:.4g}-zCDP (docs/privacy.md 13.3); itemized in "
                           f"diagnostics['composition_ledger']")
    else:
        ledger.charge("matrix-free route (Gaussian-DP composition)",
                      mechanism="gaussian (GDP composition)", epsilon=epsilon, delta=delta,
                      rho=budget.rho, dp_event=dp_accounting.GaussianDpEvent(1.0 / mu),
                      note=f"degrees + {steps} noisy power steps + core, mu = {mu:.4g}-GDP "
                           f"(docs/privacy.md 5.4); itemized in diagnostics['composition_ledger']")
    zled = PrivacyLedger(epsilon=epsilon, delta=delta,
                         accounting="zcdp" if discrete else "gdp")

    def noisy(value, sens, rho_i, changed, name, note):
        """value + Gaussian noise of zCDP / GDP share rho_i, itemized in zled."""
        if discrete:
            out, p = discrete_gaussian_noise(value, sensitivity=sens, rho=rho_i,
                                             changed=changed, ledger=ledger, rng=gen)
            _charge(zled, name, p["rho"], budget, delta, sens, p["sigma"], note, True)
            return out, p["sigma"]
        sigma = sens / math.sqrt(2.0 * rho_i)
        _charge(zled, name, rho_i, budget, delta, sens, sigma, note)
        return value + gaussian_noise(np.shape(value), sigma=sigma, ledger=ledger, rng=gen), sigma

    # 1. private degrees (sensitivity sqrt 2: docs 4.1, 5.1), public normalizer
    d_hat, sigma_d = noisy(np.asarray(data.degrees, dtype=np.float64), math.sqrt(2.0),
                           budget.degrees, 2, "degrees",
                           "one edge changes two degrees by <= 1 (docs/privacy.md 4.1)")
    tau = regularizer(d_hat, regularization)
    d_tilde = np.maximum(d_hat, 0.0) + tau
    S = float(d_tilde.sum())
    inv_sqrt = 1.0 / np.sqrt(d_tilde)
    u0 = np.sqrt(d_tilde / S)
    levels = clip_levels(d_tilde, rank, kap)
    delta_step = step_sensitivity(d_tilde, rank, kap)
    log(f"degrees released (sigma {sigma_d:.3g}); tau {tau:.4g}, step sensitivity "
        f"{delta_step:.3g}")

    # 2. noisy power iteration on the deflated M (docs 5.2)
    X = gen.standard_normal((n, rank))  # public random start (not privacy noise)
    kept, kept_w, sigmas = [], [], []
    W = data.weights
    for t in range(steps):
        Z = _clip_rows(_deflate(X, u0), levels)
        Y, sigma_t = noisy(_normalized_product(W, inv_sqrt, Z), delta_step,
                           float(budget.steps[t]), 2 * rank, f"power step {t + 1}",
                           "rows of Z clipped at kappa sqrt(r d~_i/S) (docs/privacy.md 5.2)")
        X, _ = np.linalg.qr(_deflate(Y, u0))
        sigmas.append(sigma_t)
        if t >= steps - avg:
            kept.append(X)
            kept_w.append(float(budget.steps[t]))
        log(f"power step {t + 1}/{steps} (noise sigma {sigma_t:.3g})")
    X = _aligned_average(kept, kept_w) if len(kept) > 1 else X

    # 3. private core on Q = [u0, clip(P X)] (docs 5.3)
    Q = np.column_stack([u0, _clip_rows(_deflate(X, u0), clip_levels(d_tilde, rank, ckap))])
    s_core = core_sensitivity(d_tilde, rank, ckap)
    C = Q.T @ _normalized_product(W, inv_sqrt, Q)
    k = rank + 1
    C = 0.5 * (C + C.T)
    note_c = "upper triangle of Q^T M Q, diagonal weighted 1/sqrt 2 (docs/privacy.md 5.3)"
    if discrete:  # the released vector: (C_ij)_{i<j} ++ (C_ii / sqrt 2)_i, then rebuilt
        iu = np.triu_indices(k, 1)
        v, sigma_c = noisy(np.concatenate([C[iu], np.diag(C) / math.sqrt(2.0)]), s_core,
                           budget.core, k * (k + 1) // 2, "core", note_c)
        C = np.zeros((k, k))
        C[iu] = v[:iu[0].size]
        C = C + C.T + np.diag(math.sqrt(2.0) * v[iu[0].size:])
    else:
        sigma_c = s_core / math.sqrt(2.0 * budget.core)
        _charge(zled, "core", budget.core, budget, delta, s_core, sigma_c, note_c)
        G = gaussian_noise((k, k), sigma=sigma_c, ledger=ledger, rng=gen)
        G = np.triu(G, 1)
        G = G + G.T + np.diag(math.sqrt(2.0) * gaussian_noise(k, sigma=sigma_c, ledger=ledger, rng=gen))
        C = C + G
    del data, W  # nothing below may see the input
    B, R = np.linalg.qr(Q)
    Rinv = np.linalg.inv(R)
    K = Rinv.T @ C @ Rinv
    K = 0.5 * (K + K.T)
    if ledger.reproducible:
        zled.mark_reproducible(warn=False)
    log("core released")
    diagnostics = {
        "route": "matrix-free", "screening": None, "tau": tau, "rank": rank, "steps": steps,
        "kappa": kap, "core_kappa": ckap, "rho": budget.rho, "degree_sigma": sigma_d,
        "step_sensitivity": delta_step, "step_sigmas": sigmas, "core_sensitivity": s_core,
        "core_sigma": sigma_c, "pca_halted": False,
        "low_rank_mechanism": f"matrix-free noisy power iteration ({steps} steps, "
                              f"{'discrete Gaussians, zCDP' if discrete else 'Gaussian DP'})",
        "noise": noise,
        "composition_ledger": zled,
    }
    return FactorPrivateGraph(labels=labels, degrees=d_hat, normalizer=d_tilde, basis=B, core=K,
                              projected=None, ledger=ledger, diagnostics=diagnostics)


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
        if self.n <= 4000:
            return float(np.abs(self.to_dense()).sum())
        return float(np.linalg.norm(K, 2) * np.sqrt(np.einsum("ij,ij->i", U, U)).sum() ** 2)

    def lambda_max_bound(self, g: np.ndarray, nu: float = 0.0) -> tuple[float, dict]:
        """An upper bound ``mu >= lambda_max(Diag(g) - W_off - nu J)`` for the engine's
        certificate (:func:`dpgraph.engine.certify_upper_bound`), from ``k x k`` matrices only.

        The matrix is ``Diag(a) - F L F^T`` with ``a = g + diag(W^)``, ``F = [U, 1]``,
        ``L = blockdiag(K, nu)``. For ``mu > max a``, ``Delta = Diag(mu - a) > 0`` and
        ``mu I - Diag(a) + F L F^T = Delta^1/2 (I + Delta^-1/2 F L F^T Delta^-1/2) Delta^1/2``
        is PSD iff ``lambda_min(H^1/2 L H^1/2) >= -1`` with ``H = F^T Delta^-1 F`` (the nonzero
        eigenvalues of ``Delta^-1/2 F L F^T Delta^-1/2`` are those of ``H^1/2 L H^1/2``). The
        condition is monotone in ``mu``; bisection between ``max a`` and Weyl's bound
        ``max a + lambda_max(-G^1/2 L G^1/2)^+`` (``G = F^T F``) finds the smallest passing
        ``mu`` to a relative 1e-10, and a margin of 1e-9 of the scale covers rounding.
        """
        U, K = self.W.U, self.W.K
        a = np.asarray(g, dtype=np.float64) + self.diag
        F, L = U, K
        if nu != 0.0:
            F = np.column_stack([U, np.ones(self.n)])
            L = np.zeros((K.shape[0] + 1,) * 2)
            L[:-1, :-1], L[-1, -1] = K, nu
        a_max = float(np.max(a))

        def sym_sqrt(H):
            w, V = np.linalg.eigh(0.5 * (H + H.T))
            return (V * np.sqrt(np.maximum(w, 0.0))) @ V.T

        def lam_min(mu):
            H = F.T @ (F / (mu - a)[:, None])
            R = sym_sqrt(H)
            return float(np.linalg.eigvalsh(R @ L @ R)[0])

        Gs = sym_sqrt(F.T @ F)
        push = max(0.0, float(np.linalg.eigvalsh(-(Gs @ L @ Gs))[-1]))
        scale = max(1.0, abs(a_max), push)
        lo, hi = a_max, a_max + push + 1e-9 * scale
        if lam_min(hi) < -1.0:  # cannot happen (Weyl); guard against rounding
            hi = a_max + 2.0 * push + 1e-6 * scale
        for _ in range(200):
            if hi - lo <= 1e-10 * scale:
                break
            mid = 0.5 * (lo + hi)
            if lam_min(mid) >= -1.0:
                hi = mid
            else:
                lo = mid
        return hi + 1e-9 * scale, {"weyl_bound": a_max + push}

    def __repr__(self) -> str:
        return f"LowRankOperator(n={self.n}, rank={self.W.U.shape[1]})"


@dataclass(eq=False)
class FactorPrivateGraph(PrivateGraph):
    """A :class:`~dpgraph.release.privatize.PrivateGraph` held in factor form (matrix-free route).

    ``basis`` (``n x (r + 1)``, orthonormal, first direction close to the public ``u0``) and
    ``core`` (``(r + 1) x (r + 1)``) give the private estimate ``M^ = basis core basis^T`` of
    ``D~^-1/2 A D~^-1/2``; the synthetic weights are ``W^ = D~^1/2 M^ D~^1/2`` (signed, low
    rank), served by :meth:`operator`. ``projected`` is None: nothing ``n x n`` is held.
    :meth:`weights` (the dense export, clipped at 0) is refused above 5,000 nodes;
    :meth:`sample` draws an unweighted graph in ``O(m + n r)``.
    """

    def operator(self) -> LowRankOperator:
        """:class:`LowRankOperator` of the synthetic weights ``W^ = U K U^T``, ``U = D~^1/2 B``."""
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        return LowRankOperator(U, self.core, self.labels)

    def weights(self) -> np.ndarray:
        """Dense synthetic weights ``max(W^, 0)`` with a zero diagonal (up to 5,000 nodes)."""
        if self.n > DENSE_EXPORT_MAX_N:
            raise ValueError(
                f"the matrix-free release holds n x {self.basis.shape[1]} factors; a dense "
                f"export of {self.n} nodes would need {8 * self.n ** 2 / 2**30:.1f} GiB. Use "
                f".operator() for products, .sample() for a synthetic graph, or the dense "
                f"routes below {DENSE_EXPORT_MAX_N} nodes")
        W = self.operator().to_dense()
        W += W.T  # (U K) U^T is symmetric up to rounding; the export must be exactly
        W *= 0.5
        np.maximum(W, 0.0, out=W)
        return W

    @property
    def edge_count(self) -> float:
        """The released edge count: the block model's (when :func:`dpgraph.privatize` released
        one), else half the released degree total, ``max(sum d^, 0) / 2`` (what :meth:`sample`
        aims at). ``O(n)`` at every size (post-processing of the release)."""
        if self.block_model is not None:
            return float(self.block_model.edge_count)
        return max(float(np.sum(self.degrees)), 0.0) / 2.0

    def to_graph_data(self, *, min_weight: float = 0.0, max_edges: int | None = None,
                      block_rows: int = 1024) -> GraphData:
        """The synthetic weighted graph ``max(W^, 0)`` as :class:`GraphData`.

        Up to 5,000 nodes: the dense export (:meth:`PrivateGraph.to_graph_data`). Above, the
        ``max_edges`` heaviest pairs of ``W^ = U K U^T`` (exactly ``max_edges`` of them: a tie at
        the threshold is broken arbitrarily), found ``block_rows`` rows at a time: ``O(n^2 r)`` time, ``O(block_rows n +
        max_edges)`` memory, no ``n x n`` array. ``max_edges`` is required there (a threshold
        alone could keep ``n^2`` pairs): ``max_edges=round(pg.edge_count)`` keeps the released
        edge count's worth. Post-processing."""
        if self.n <= DENSE_EXPORT_MAX_N:
            return super().to_graph_data(min_weight=min_weight, max_edges=max_edges)
        if max_edges is None:
            raise ValueError(f"a weighted export of the {self.n}-node factor form needs "
                             f"max_edges (a threshold alone may keep up to n^2 / 2 pairs): e.g. "
                             f"max_edges=round(pg.edge_count), or .sample() for an unweighted "
                             f"graph")
        import scipy.sparse as sp

        k = int(max_edges)
        if k < 0:
            raise ValueError(f"max_edges must be >= 0, got {k}")
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        UK = U @ (0.5 * (self.core + self.core.T))
        n, bs = self.n, max(int(block_rows), 1)
        keys = np.zeros(0, dtype=np.int64)
        vals = np.zeros(0)
        floor = max(float(min_weight), 0.0)
        for lo in range(0, n - 1, bs):
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

    def solver_options(self) -> dict:
        """Engine options for the factor form: a Burer-Monteiro rank of
        ``max(8, 2 (r + 1) + 2)`` at most (the objective has rank ``r + 1``), and no local search
        above 5,000 nodes (each move costs ``O(n r)`` there)."""
        from dpgraph.engine import default_rank

        k = self.basis.shape[1]
        return {"rank": min(default_rank(self.n), max(8, 2 * k + 2)),
                "local_search": self.n <= LOCAL_SEARCH_MAX_N}

    def blocks(self, n_blocks: int | None = None, rng=None) -> np.ndarray:
        """Block labels from the private embedding: k-means (k-means++ start) on the rows of
        ``D~^-1/2 B`` without its first (public) column; ``n_blocks`` defaults to
        ``min(2 r, 32)``. Post-processing."""
        from scipy.cluster.vq import kmeans2

        r = self.basis.shape[1] - 1
        k = min(2 * r, 32) if n_blocks is None else int(n_blocks)
        if k < 1:
            raise ValueError(f"n_blocks must be >= 1, got {n_blocks!r}")
        if k == 1:
            return np.zeros(self.n, dtype=np.int64)
        emb = self.basis[:, 1:] / np.sqrt(self.normalizer)[:, None]
        emb = emb / max(float(np.sqrt(np.mean(np.sum(emb ** 2, axis=1)))), 1e-300)
        _, lab = kmeans2(emb, k, minit="++", seed=make_rng(rng))
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
        (default :data:`SAMPLE_CHUNK`), and the key of the tasks' random streams (one
        independent stream per task, :func:`dpgraph.privacy.rng.block_generator`). Every
        draw from ``rng`` happens here, so the in-memory sampler and the Dask one
        (:meth:`sample_dask`) draw the same graph from the same plan."""
        from dpgraph.privacy.rng import block_key

        gen = make_rng(rng)
        chunk = SAMPLE_CHUNK if chunk is None else int(chunk)
        if chunk < 1:
            raise ValueError(f"chunk must be a positive number of draws, got {chunk!r}")
        blocks = self.blocks(n_blocks, gen)
        E = self.block_masses(blocks)
        target = max(float(np.sum(self.degrees)) / 2.0, 0.0)
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
        ``O(n r)``). Post-processing, no privacy cost.

        Examples
        --------
        >>> from dpgraph.datasets import planted_cut
        >>> from dpgraph.privacy import PrivacyLedger
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

        plan = self.sample_plan(rng, n_blocks=n_blocks)
        n = self.n
        keys = [sample_task(plan, t) for t in range(len(plan.tasks))]
        key = _distinct_sorted(np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64))
        del keys
        lo, hi = key // n, key % n
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
        edge list: see :func:`dpgraph.io.dask.sample_edges`. Post-processing."""
        from dpgraph.io.dask import sample_edges

        self._check_factor_sampler("sample_dask", n_blocks)
        return sample_edges(self.sample_plan(rng, n_blocks=n_blocks), self.labels,
                            partitions=partitions)

    def write_sample(self, folder, rng=None, *, n_blocks: int | None = None,
                     partitions: int | None = None) -> int:
        """Write :meth:`sample_dask`'s edges as Parquet files ``folder/part-00000.parquet``, ...
        (columns ``u``, ``v``), each written by the task that drew it; returns the number of
        edges written. ``folder`` is created; it must be empty if it exists, and on a
        multi-machine cluster visible to every worker. Post-processing."""
        from dpgraph.io.dask import write_sampled_edges

        self._check_factor_sampler("write_sample", n_blocks)
        return write_sampled_edges(self.sample_plan(rng, n_blocks=n_blocks), self.labels,
                                   folder, partitions=partitions)

    def _check_factor_sampler(self, name, n_blocks):
        if self.block_model is not None and n_blocks is None:
            raise ValueError(f"{name}: this release carries privatize's synthetic block model "
                             f"(synthetic_share), whose sampler runs in memory: use .sample(), "
                             f"or pass n_blocks= to sample the factor form's own block model")

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        return (f"FactorPrivateGraph(n={self.n}, rank={self.rank}, epsilon={eps:.4g}, "
                f"delta={dlt:.3g}, route='matrix-free')")


#: Draws per sampling task (:meth:`FactorPrivateGraph.sample_plan`): about 64 MB of pairs
#: each. Both samplers use the same tasks, so the graph does not depend on where they run.
SAMPLE_CHUNK = 2**22


@dataclass(frozen=True, eq=False)
class SamplePlan:
    """The sampler's input (:meth:`FactorPrivateGraph.sample_plan`): nodes grouped by block
    (``order``, block ``a`` is ``order[starts[a]:starts[a + 1]]``), endpoint weights ``theta``
    and their block sums ``mass``, the tasks ``(a, b, draws)`` (``a <= b``), and the key of the
    tasks' random streams (``cipher``, ``key``: :func:`dpgraph.privacy.rng.block_generator`)."""

    n: int
    order: np.ndarray
    starts: np.ndarray
    theta: np.ndarray
    mass: np.ndarray
    tasks: tuple
    cipher: object
    key: object


def sample_task(plan: SamplePlan, t: int) -> np.ndarray:
    """Task ``t`` of a plan: its ``draws`` node pairs, each endpoint drawn inside its block with
    probability ``theta_i / mass_block`` (endpoint multiplicities ``Multinomial(draws, .)``, the
    second side paired at random: ``draws`` independent pairs), self-pairs dropped. Returns the
    keys ``lo * n + hi`` (``lo < hi``), unsorted, possibly repeated. Its own random stream
    (``block_generator(cipher, key, (t, 0))``): the same numbers wherever it runs."""
    from dpgraph.privacy.rng import block_generator

    a, b, c = plan.tasks[t]
    gen = block_generator(plan.cipher, plan.key, (t, 0))

    def draw(x, size):
        members = plan.order[plan.starts[x]:plan.starts[x + 1]]
        # endpoint multiplicities ~ Multinomial(size, theta_x / mass_x): O(|x| + size)
        return np.repeat(members, gen.multinomial(size, plan.theta[members] / plan.mass[x]))

    i = draw(a, c).astype(np.int64)
    j = gen.permutation(draw(b, c)).astype(np.int64)  # pair the endpoints at random
    keep = i != j
    i, j = i[keep], j[keep]
    return np.minimum(i, j) * plan.n + np.maximum(i, j)


def _heaviest(keys: np.ndarray, vals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` entries of largest value (ties broken by the smaller key), sorted by key."""
    if vals.size > k:
        order = np.lexsort((keys, -vals))[:k]
        keys, vals = keys[order], vals[order]
    order = np.argsort(keys, kind="stable")
    return keys[order], vals[order]


def _distinct_sorted(key: np.ndarray) -> np.ndarray:
    """Sorted distinct keys (sort-based: numpy's hash unique is slower here)."""
    key = np.sort(key)
    return key[np.r_[True, key[1:] != key[:-1]]] if key.size else key


def release(data: GraphData, *, epsilon: float, delta: float, rank: int, ledger: PrivacyLedger,
            rng=None, screening=None, **options) -> FactorPrivateGraph:
    """The route interface of :mod:`dpgraph.release.routes`: :func:`release_matrix_free` (``options`` are
    its keyword arguments); ``screening`` (a released edge count's prediction, if any) is
    recorded in the diagnostics."""
    pg = release_matrix_free(data, epsilon=epsilon, delta=delta, rank=rank, ledger=ledger,
                             rng=rng, **options)
    pg.diagnostics["screening"] = screening
    return pg
