"""Audits of dpgraph's own mechanisms, each on the worst-case adjacent pair argued in
``docs/audit.md``.

Every function runs the released output of one dpgraph mechanism many times on two adjacent
inputs and returns :class:`~dpgraph.lab.audit.harness.AuditResult` (a dict of them where one set of
runs feeds several events). Cheap releases are drawn vectorised through the noise primitive of
:mod:`dpgraph.privacy` (``size`` independent copies per call); the pipeline audits call the
public function itself (:func:`dpgraph.privatize`, :func:`dpgraph.max_cut`, the mechanisms of
:mod:`dpgraph.mechanisms`) once per run on tiny inputs. Seeds are fixed: these are reproducible
tests (``rng`` is a seed), not private releases.

Tight events (the audit can reach the claim; ``docs/audit.md``): :func:`randomized_response`,
:func:`laplace`, :func:`gaussian`, :func:`exponential`, :func:`edge_count`,
:func:`rr_route` (``"released"``), :func:`cosine`, :func:`marginals`, and the synthetic
release's Laplace releases (:func:`synthetic_block_model`, :func:`synthetic_refinement`,
:func:`synthetic_label_passes`, :func:`synthetic_side_pass`, :func:`synthetic_cut_lead`,
:func:`synthetic_degree_classes`, :func:`synthetic_edge_count`) and the local route's
decisions (:func:`local_route`, :func:`local_route_backward`). The others audit
post-processed or composed releases and report how far they got.
"""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np
from scipy import stats

from dpgraph.privacy import (PrivacyLedger, analytic_gaussian_sigma, gaussian_mechanism,
                       laplace_mechanism, make_rng, monotone_exponential_mechanism)
from dpgraph.privacy import randomized_response as _rr_primitive
from dpgraph.privacy.transcript import transcript
from dpgraph.lab.audit.harness import (AuditResult, audit_event, audit_threshold, audit_thresholds,
                      plan_threshold, run_mechanism)

__all__ = ["randomized_response", "laplace", "gaussian", "exponential", "edge_count",
           "rr_route", "pca_route", "matrix_free", "max_cut", "cosine", "marginals", "jl",
           "synthetic_block_model", "synthetic_refinement", "synthetic_sequential_refinement",
           "synthetic_label_passes", "synthetic_side_pass", "synthetic_cut_lead",
           "synthetic_degree_classes", "synthetic_edge_count", "synthetic_clustering",
           "local_route",
           "local_route_backward", "weighted_pair", "TIGHT"]

#: Audits whose event is tight for the mechanism: their bound must reach a stated fraction.
TIGHT = ("randomized_response", "laplace", "gaussian", "exponential", "edge_count",
         "rr_route", "cosine", "marginals", "synthetic_block_model", "synthetic_refinement",
         "synthetic_sequential_refinement", "synthetic_label_passes", "synthetic_side_pass",
         "synthetic_cut_lead", "synthetic_degree_classes", "synthetic_edge_count",
         "synthetic_clustering",
         "local_route", "local_route_backward")


def _ledger(epsilon: float, delta: float = 0.0) -> PrivacyLedger:
    return PrivacyLedger(epsilon=epsilon, delta=delta)


def _noise_scale(s0, s1, centers) -> float:
    """The Gaussian noise scale fitted to calibration samples ``s0``, ``s1`` of a statistic
    whose noiseless values ``centers`` are known: ``sigma^2 = E[(s - c)_+^2] * 2`` over both
    samples. Only the spread *above* each centre enters, so a projection that clips below it
    (the cosine audit's ``x0`` sits on the clip at -1) does not bias the fit."""
    z = np.concatenate([np.maximum(np.asarray(s, dtype=np.float64) - c, 0.0)
                        for s, c in zip((s0, s1), centers)])
    return math.sqrt(2.0 * float(np.mean(z * z)))


def _gaussian_audit(mech, pair, centers, candidates, *, sigma, epsilon, delta, runs,
                    calibration_runs, confidence, rng, vectorized=False, mechanism_name,
                    pair_name, statistic_name) -> AuditResult:
    """Audit a Gaussian-type release with the event ``{statistic > t}``, ``t`` planned from the
    normal densities at the noiseless values ``centers`` (``x0``, ``x1``).

    ``calibration_runs > 0`` (the default of the public audits): the noise scale is the one
    the mechanism *draws*, fitted (:func:`_noise_scale`) on ``calibration_runs`` runs per
    input that are then discarded; the bound comes from ``runs`` fresh runs of the same
    stream, so the threshold is fixed before them and the Clopper-Pearson argument holds as
    for any fixed event. A mechanism that draws less noise than it claims gets the event
    suited to the noise it draws, which is what makes the audit able to fail (the threshold
    planned from the *claimed* scale sits so far in the tail of the smaller noise that
    neither input reaches it). ``calibration_runs = 0``: the threshold is planned from the
    claimed ``sigma`` (no calibration; powerless against under-noising). ``candidates`` maps a
    scale to the candidate thresholds."""
    cal = int(calibration_runs)
    if cal < 0:
        raise ValueError(f"calibration_runs must be >= 0, got {calibration_runs!r}")
    gen = make_rng(rng)
    seconds = 0.0
    if cal:
        t0 = time.perf_counter()
        s0, s1 = (np.asarray(run_mechanism(mech, x, cal, gen, vectorized=vectorized),
                             dtype=np.float64) for x in pair)
        seconds = time.perf_counter() - t0
        # floor: a mechanism that draws (almost) no noise still gets a finite plan
        scale = max(_noise_scale(s0, s1, centers), 1e-9 * abs(centers[1] - centers[0]))
        how = f"planned from the noise scale fitted on {cal} calibration runs"
    else:
        scale = float(sigma)
        how = "planned from the claimed noise scale"
    t, predicted = plan_threshold(stats.norm(centers[0], scale).sf,
                                  stats.norm(centers[1], scale).sf, candidates(scale),
                                  runs=runs, delta=delta, confidence=confidence)
    res = audit_threshold(mech, pair, epsilon=epsilon, delta=delta, runs=runs, threshold=t,
                          confidence=confidence, rng=gen, vectorized=vectorized,
                          mechanism_name=mechanism_name, pair_name=pair_name,
                          statistic_name=statistic_name)
    res.event = f"{statistic_name} > {t:.6g} ({how})"
    res.seconds += seconds
    res.details.update(calibration_runs=cal, predicted_bound=predicted, claimed_sigma=sigma,
                       planning_sigma=scale)
    return res


def randomized_response(*, epsilon: float = 1.0, runs: int = 200_000, rng=0,
                        confidence: float = 0.95) -> AuditResult:
    """The randomized-response primitive on one pair indicator, 0 (no edge) vs 1 (edge); event:
    the released bit is 1. Tight: ``P1/P0 = e^epsilon`` exactly.

    >>> randomized_response(runs=50_000).fraction > 0.8
    True
    """
    def mech(bit, gen, size):
        return _rr_primitive(np.full(size, bit, dtype=np.int8), epsilon=epsilon,
                             ledger=_ledger(epsilon), name="audit: randomized response", rng=gen)

    return audit_event(mech, (0, 1), lambda out: out == 1, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng, vectorized=True,
                       mechanism_name="randomized_response (noise primitive)",
                       pair_name="pair indicator 0 vs 1", event_name="released bit = 1")


def laplace(*, epsilon: float = 1.0, runs: int = 200_000, rng=0,
            confidence: float = 0.95) -> AuditResult:
    """The Laplace primitive at sensitivity 1 on values 0 vs 1; event: release above a threshold
    planned from the known Laplace densities (the likelihood-ratio test; at ``t >= 1`` the
    ratio ``P1/P0`` is exactly ``e^epsilon``)."""
    b = 1.0 / epsilon
    t, _ = plan_threshold(stats.laplace(0.0, b).sf, stats.laplace(1.0, b).sf,
                          np.linspace(-4.0, 5.0, 181) * b, runs=runs, confidence=confidence)

    def mech(x, gen, size):
        out, _ = laplace_mechanism(np.full(size, x), sensitivity=1.0, epsilon=epsilon,
                                   ledger=_ledger(epsilon), name="audit: laplace", rng=gen)
        return out

    return audit_threshold(mech, (0.0, 1.0), epsilon=epsilon, runs=runs, threshold=t,
                           confidence=confidence, rng=rng, vectorized=True,
                           mechanism_name="laplace_mechanism (noise primitive)",
                           pair_name="value 0 vs 1 (sensitivity 1)", statistic_name="release")


def gaussian(*, epsilon: float = 1.0, delta: float = 1e-5, runs: int = 10_000_000, rng=0,
             confidence: float = 0.95, calibration_runs: int | None = None) -> AuditResult:
    """The Gaussian primitive (analytic calibration) at sensitivity 1 on values 0 vs 1; event:
    release above a threshold planned from the normal densities. At the likelihood-ratio level
    ``t = 1/2 + epsilon sigma^2`` the calibration makes ``P1[S] - e^eps P0[S] = delta``
    exactly, so the bound can approach epsilon; how close depends on ``runs`` (``P0[S]`` is
    small). The noise scale of the plan is fitted on ``calibration_runs`` separate runs per
    input (default ``runs // 4``; 0 plans from the claimed sigma), so that a primitive drawing
    less noise than it claims is caught (docs/audit.md 1)."""
    sigma = analytic_gaussian_sigma(epsilon, delta, 1.0)

    def mech(x, gen, size):
        out, _ = gaussian_mechanism(np.full(size, x), sensitivity=1.0, epsilon=epsilon,
                                    delta=delta, ledger=_ledger(epsilon, delta),
                                    name="audit: gaussian", rng=gen)
        return out

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (0.0, 1.0), (0.0, 1.0),
                           lambda s: np.linspace(-2.0, 8.0, 401) * s, sigma=sigma,
                           epsilon=epsilon, delta=delta, runs=runs, calibration_runs=cal,
                           confidence=confidence, rng=rng, vectorized=True,
                           mechanism_name="gaussian_mechanism (noise primitive)",
                           pair_name="value 0 vs 1 (L2 sensitivity 1)", statistic_name="release")


def exponential(*, epsilon: float = 2.0, candidates: int = 50, runs: int = 20_000, rng=0,
                confidence: float = 0.95) -> AuditResult:
    """The monotone exponential mechanism (max_cut's private choice) on ``candidates`` scores:
    all 0 vs candidate 0 raised by the sensitivity 1 (one edge cut by candidate 0 only);
    event: candidate 0 is chosen. ``P1/P0 = k e^eps / (e^eps + k - 1)`` tends to ``e^eps`` as
    the number of candidates ``k`` grows (docs/audit.md)."""
    k = int(candidates)
    s0 = np.zeros(k)
    s1 = s0.copy()
    s1[0] = 1.0

    def mech(scores, gen):
        return monotone_exponential_mechanism(scores, sensitivity=1.0, epsilon=epsilon,
                                              ledger=_ledger(epsilon), name="audit: choice",
                                              rng=gen)

    return audit_event(mech, (s0, s1), lambda i: i == 0, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="monotone_exponential_mechanism",
                       pair_name=f"{k} scores 0 vs score 0 raised by 1",
                       event_name="candidate 0 chosen")


def _graph_pair(edges0, extra, n):
    G0 = nx.Graph()
    G0.add_nodes_from(range(n))
    G0.add_edges_from(edges0)
    G1 = G0.copy()
    G1.add_edge(*extra)
    return G0, G1


def edge_count(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
               confidence: float = 0.95) -> AuditResult:
    """The screening release of the pipeline (:func:`dpgraph.release.privatize.release_edge_count`,
    Laplace on the edge count, sensitivity 1) on a path vs the path plus one edge; event: the
    released count above the threshold planned from the known Laplace densities."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.screening import release_edge_count

    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))
    b = 1.0 / epsilon
    t, _ = plan_threshold(stats.laplace(2.0, b).sf, stats.laplace(3.0, b).sf,
                          2.0 + np.linspace(-4.0, 5.0, 181) * b, runs=runs,
                          confidence=confidence)

    def mech(data, gen):
        return release_edge_count(data, epsilon, _ledger(epsilon), gen)

    return audit_threshold(mech, pair, epsilon=epsilon, runs=runs, threshold=t,
                           confidence=confidence, rng=rng,
                           mechanism_name="privatize screening (release_edge_count)",
                           pair_name="path 0-2-1 vs + edge {0, 1}",
                           statistic_name="released edge count")


def rr_route(*, epsilon: float = 1.0, runs: int = 20_000, rng=0, confidence: float = 0.95,
             calibration_runs: int | None = None) -> dict:
    """:func:`dpgraph.privatize` with ``route="randomized-response"`` (all of epsilon on the pair
    indicators; the screening that picks this route under ``route="auto"`` is audited by
    :func:`edge_count`) on a 4-node graph: path 0-2-1 vs the triangle (edge ``{0, 1}`` added). Every pair indicator is flipped with
    the same probability, so every pair is a worst case. Events: ``"released"``, the de-biased
    release ``unbiased[0, 1] > 0`` (the released pair bit; tight); ``"export"``, the exported synthetic weight ``weights()[0, 1]`` (posterior mean
    under the empirical Chung-Lu prior: post-processing) above a calibrated threshold.
    Returns ``{"released": AuditResult, "export": AuditResult}``."""
    from dpgraph.release.privatize import privatize

    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)

    def mech(G, gen):
        # the route's release alone (no synthetic block model): its whole budget is on the bits
        pg = privatize(G, epsilon=epsilon, delta=1e-6, rank=1, rng=gen,
                       route="randomized-response", synthetic_share=None)
        i, j = pg.labels.index(0), pg.labels.index(1)
        return pg.unbiased[i, j], pg.weights()[i, j]

    out = audit_thresholds(mech, (G0, G1),
                           {"released": lambda o: o[0], "export": lambda o: o[1]},
                           epsilon=epsilon, delta=1e-6, runs=runs, thresholds={"released": 0.0},
                           calibration_runs=calibration_runs, confidence=confidence, rng=rng,
                           mechanism_name="privatize (randomized-response route)",
                           pair_name="path 0-2-1 vs triangle (n = 4)")
    out["released"].event = "de-biased release unbiased[0, 1] > 0 (the released pair bit)"
    out["export"].event = "exported weight w[0, 1] > t (" + out["export"].event.split("(", 1)[1]
    return out


def pca_route(*, epsilon: float = 60.0, runs: int = 2_000, rng=0, confidence: float = 0.95,
              calibration_runs: int | None = None, n: int = 40, mean_degree: float = 18.0) -> dict:
    """:func:`dpgraph.privatize` with ``route="pca"`` on a dense planted cut (n = 40, mean degree
    18, ratio 0.1: the PCA's private tests pass at epsilon 60), on the graph without vs with
    the edge between the minimum-degree node ``i`` and its minimum-degree neighbour ``j`` (the
    largest entry change of the normalized adjacency, ``1/sqrt(d~_i d~_j)``). Events (thresholds
    calibrated): ``"core"``, the trace of the released r x r core (``tr B^T M B`` + noise,
    invariant to the basis' rotation); ``"projected"``, the synthetic weight ``w[i, j]``;
    ``"degrees"``, the private degrees ``d^_i + d^_j`` (the step whose direction of change is
    known: a Gaussian at 5% of the budget). Returns a dict of AuditResult."""
    from dpgraph.datasets import planted_cut
    from dpgraph.graph import to_networkx
    from dpgraph.release.privatize import privatize

    G1 = to_networkx(planted_cut(n, mean_degree, ratio=0.1, rng=1).graph)
    for _, _, d in G1.edges(data=True):
        d.pop("weight", None)
    deg = dict(G1.degree())
    i = min(G1.nodes, key=lambda v: (deg[v], v))
    j = min(G1.neighbors(i), key=lambda v: (deg[v], v))
    G0 = G1.copy()
    G0.remove_edge(i, j)

    def mech(G, gen):
        pg = privatize(G, epsilon=epsilon, delta=1e-6, rank=2, rng=gen, route="pca",
                       synthetic_share=None)
        a, b = pg.labels.index(i), pg.labels.index(j)
        return (float(np.trace(pg.core)), float(pg.weights()[a, b]),
                float(pg.degrees[a] + pg.degrees[b]))

    stats_ = {"core": lambda o: o[0], "projected": lambda o: o[1], "degrees": lambda o: o[2]}
    return audit_thresholds(mech, (G0, G1), stats_, epsilon=epsilon, delta=1e-6, runs=runs,
                            calibration_runs=calibration_runs, confidence=confidence, rng=rng,
                            mechanism_name="privatize (PCA route)",
                            pair_name=f"planted cut n={n}: edge {{{i}, {j}}} (min degrees) "
                                      f"absent vs present")


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """Exact epsilon at ``delta`` of a Gaussian shift ``mu`` (sensitivity over sigma): the root
    of ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta`` (Balle & Wang 2018, Thm. 8),
    the most any event can show on a release with this shift."""
    from scipy import optimize

    def gap(e):
        return (stats.norm.cdf(-e / mu + mu / 2) - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
                - delta)

    return float(optimize.brentq(gap, 0.0, 50.0 + 10 * mu * mu)) if gap(0.0) > 0 else 0.0


def matrix_free(*, epsilon: float = 4.0, delta: float = 1e-3, runs: int = 10_000, rng=0,
                confidence: float = 0.95, n: int = 40, rank: int = 4) -> dict:
    r""":func:`dpgraph.privatize` with ``route="matrix-free"`` (docs/privacy.md 5) on the
    complete graph ``K_{n-2}`` plus two isolated nodes ``i, j``, vs the same graph with the edge
    ``{i, j}``. The pair is the worst case argued in 5.2: the two nodes of smallest degree get
    the two smallest released normalizers ``d~`` (with high probability: the other degrees sit
    far above the degree noise), where the step sensitivity
    ``kappa sqrt(r/S) sqrt(1/d~_(1) + 1/d~_(2))`` is attained when rows ``i, j`` of ``Z_t``
    are at their clipping level. They are: the deflated ``M`` of a complete graph is nearly
    zero, so the iterates are noise and every row of ``P X`` lies well above its level.

    Observed per run: the released degrees ``d^`` (public output) and, through the audit
    transcript (:mod:`dpgraph.privacy.transcript`: the route records each deflated and each
    clipped iterate), the transcript the proof of 5.4 composes: every noisy iterate ``Y_t = M Z_t + N_t`` and its
    ``Z_t``. Events:

    * ``"privacy loss"``: the log-likelihood ratio of the transcript (degrees and all ``T``
      power steps) between the two graphs, ``l = L - V/2`` with
      ``L = (d^_i + d^_j - d_i - d_j)/sigma_d^2 + sum_t <Y_t - M Z_t, D_t>/sigma_t^2``,
      ``D_t = (e_i Z_t[j] + e_j Z_t[i]) / sqrt(d~_i d~_j)`` the mean shift the edge causes and
      ``V = 2/sigma_d^2 + sum_t ||D_t||^2/sigma_t^2`` (``M``, ``d`` of the graph without the
      edge; ``sigma`` from the route's diagnostics). This is the Neyman-Pearson test of the
      adaptive Gaussian composition (``l ~ N(-V/2, V)`` vs ``N(V/2, V)``); with every
      sensitivity attained ``V = 2 (rho - rho_core)`` and the best any event can show is the
      exact Gaussian epsilon of that shift (``details["gaussian_optimum"]``), under the claim
      by the Canonne-Kamath-Steinke conversion's slack and the core's 2%.
    * ``"degrees"``: ``d^_i + d^_j`` (a released coordinate, no access to the transcript):
      the degree release alone, 10% of ``rho``.

    Both thresholds are planned before any run from the distributions the analysis states
    (``V`` at full sensitivity; ``d^_i + d^_j ~ N(d_i + d_j [+ 2], 2 sigma_d^2)`` with
    ``sigma_d = 1/sqrt(rho_d)``), so no calibration runs. ``rank = 4`` keeps the rows ``i, j``
    of ``Z_t`` at their clipping level (at rank 1 a row is one Gaussian entry, below the level
    about a quarter of the time). Returns ``{"privacy loss": AuditResult, "degrees":
    AuditResult}``; ``details`` hold ``gaussian_optimum`` and the mean of ``V`` over the runs
    against its value at full sensitivity (their ratio shows whether the pair attains it).
    """
    from dpgraph.release.privatize import privatize
    from dpgraph.release.routes import matrix_free as mf

    G0 = nx.complete_graph(n - 2)
    G0.add_nodes_from([n - 2, n - 1])
    i, j = n - 2, n - 1
    G1 = G0.copy()
    G1.add_edge(i, j)
    W0 = nx.to_scipy_sparse_array(G0, nodelist=range(n), format="csr", dtype=np.float64)
    deg0 = np.asarray(W0.sum(axis=1)).ravel()
    V_full, losses = [], {False: [], True: []}

    def mech(G, gen):
        with transcript() as record:
            pg = privatize(G, epsilon=epsilon, delta=delta, rank=rank, rng=gen,
                           route="matrix-free", synthetic_share=None)
        seen = {"deflate": [v for name, v in record if name == "matrix-free deflate"],
                "clip": [v for name, v in record if name == "matrix-free clip"]}
        diag = pg.diagnostics
        T = diag["steps"]
        # call order in release_matrix_free: per step _deflate(X_{t-1}), _deflate(Y_t); then
        # _deflate(X) for the core. _clip_rows: Z_1 .. Z_T, then the core's basis.
        if len(seen["deflate"]) != 2 * T + 1 or len(seen["clip"]) != T + 1:
            raise RuntimeError("the matrix-free route's call sequence changed: update "
                               "dpgraph.lab.audit.catalog.matrix_free")
        order = [pg.labels.index(v) for v in range(n)]  # node v -> its row
        a, b = order[i], order[j]
        d_hat = np.asarray(pg.degrees)[order]
        d_tilde = np.asarray(pg.normalizer)
        inv = 1.0 / np.sqrt(d_tilde[order])
        s = 1.0 / math.sqrt(d_tilde[a] * d_tilde[b])
        sig_d = diag["degree_sigma"]
        L = (d_hat[i] + d_hat[j] - deg0[i] - deg0[j]) / sig_d ** 2
        V = 2.0 / sig_d ** 2
        for t in range(T):
            Z = seen["clip"][t][order]
            Y = seen["deflate"][2 * t + 1][order]
            MZ_ij = inv[[i, j], None] * np.asarray(W0[[i, j]] @ (inv[:, None] * Z))
            R = Y[[i, j]] - MZ_ij
            sig = diag["step_sigmas"][t]
            L += s * (R[0] @ Z[j] + R[1] @ Z[i]) / sig ** 2
            V += s * s * (Z[j] @ Z[j] + Z[i] @ Z[i]) / sig ** 2
        V_full.append(V)
        losses[G.has_edge(i, j)].append(L - V / 2.0)
        return L - V / 2.0, d_hat[i] + d_hat[j]

    rho = mf.composition_rho(epsilon, delta)
    share = mf.MATRIX_FREE_DEFAULTS
    v_attained = 2.0 * rho * (1.0 - share["core_share"])  # degrees + steps, docs 5.1-5.4
    sd_deg = math.sqrt(2.0) / math.sqrt(share["degree_share"] * rho)  # of d^_i + d^_j
    v_sd = math.sqrt(v_attained)
    t_loss, _ = plan_threshold(stats.norm(-v_attained / 2, v_sd).sf,
                               stats.norm(v_attained / 2, v_sd).sf,
                               np.linspace(-4.0, 8.0, 1201) * v_sd, runs=runs, delta=delta,
                               confidence=confidence)
    base = float(deg0[i] + deg0[j])
    t_deg, _ = plan_threshold(stats.norm(base, sd_deg).sf, stats.norm(base + 2.0, sd_deg).sf,
                              base + np.linspace(-4.0, 8.0, 1201) * sd_deg, runs=runs,
                              delta=delta, confidence=confidence)
    out = audit_thresholds(mech, (G0, G1),
                           {"privacy loss": lambda o: o[0], "degrees": lambda o: o[1]},
                           epsilon=epsilon, delta=delta, runs=runs,
                           thresholds={"privacy loss": t_loss, "degrees": t_deg},
                           confidence=confidence, rng=rng,
                           mechanism_name="privatize (matrix-free route)",
                           pair_name=f"K_{n - 2} + isolated {i}, {j} (smallest normalizers) "
                                     f"vs + edge {{{i}, {j}}}")
    for name, v in (("privacy loss", v_attained), ("degrees", 2.0 * rho * share["degree_share"])):
        out[name].details.update(gaussian_optimum=_gaussian_epsilon(math.sqrt(v), delta),
                                 mean_V=float(np.mean(V_full)), V_at_sensitivity=v)
    # the loss is N(-V/2, V) without the edge and N(V/2, V) with it when every sigma the route
    # reports is the one it drew: a check of the statistic and of the noise scales
    out["privacy loss"].details["loss_moments"] = {
        "x0 (mean, var)": (float(np.mean(losses[False])), float(np.var(losses[False]))),
        "x1 (mean, var)": (float(np.mean(losses[True])), float(np.var(losses[True])))}
    out["privacy loss"].event = ("transcript log-likelihood ratio l > t (" +
                                 out["privacy loss"].event.split("(", 1)[1])
    out["degrees"].event = "released d^_i + d^_j > t (" + out["degrees"].event.split("(", 1)[1]
    return out


def max_cut(*, epsilon: float = 4.0, runs: int = 2_000, rng=0,
            confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.max_cut` end to end on a graph where one edge flips the optimum: the path
    0-2-1 (plus an isolated node 3), whose maximum cuts all put 0 and 1 on the same side, vs
    the triangle 0-1-2 (edge ``{0, 1}`` added), where two of the three maximum cuts separate
    them. Event: 0 and 1 on the same side of the returned partition."""
    from dpgraph.solve.cut import max_cut as private_max_cut

    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)

    def mech(G, gen):
        res = private_max_cut(G, epsilon=epsilon, delta=1e-6, rank=1, rng=gen)
        return res.assignment[0] == res.assignment[1]

    return audit_event(mech, (G0, G1), lambda same: same, epsilon=epsilon, delta=1e-6,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="max_cut (end to end)",
                       pair_name="path 0-2-1 vs triangle (n = 4)",
                       event_name="nodes 0 and 1 on the same side")


def cosine(*, epsilon: float = 4.0, delta: float = 1e-2, runs: int = 100_000, rng=0,
           confidence: float = 0.95, calibration_runs: int | None = None) -> AuditResult:
    """:func:`dpgraph.private_cosine_similarities` (exact elliptope projection) on two unit
    vectors: ``(e1, -e1)`` (cosine -1) vs ``(e1, v)`` with cosine ``-1 + 1/sqrt 2``: the Gram
    matrices differ by exactly the sensitivity 1 in Frobenius norm, all of it on the one
    off-diagonal pair. For n = 2 the projection is ``clip(Y_01, -1, 1)``, so the event
    ``similarity > t`` with ``-1 < t < 1`` is the Gaussian likelihood-ratio event; ``t`` is
    planned from the normal distribution of the off-diagonal entry, with its noise scale
    fitted on ``calibration_runs`` separate runs per input (default ``runs // 4``; 0 plans
    from the claimed ``sigma``), so that a release drawing less noise than it claims is
    caught (docs/audit.md 1). The pair attains the sensitivity: the noise is calibrated to
    ``Delta / sqrt 2`` on the upper triangle and the entry moves by exactly ``1/sqrt 2``. The
    likelihood-ratio level for the claim, ``t* = -1 + 1/(2 sqrt 2) + sqrt 2 epsilon sigma^2 =
    0.62``, lies inside ``(-1, 1)``, but there ``P0[S] = 3e-4``: the default 100,000 runs plan
    90% of the claim (20,000 planned 81% and reached 72.7% in one run)."""
    from dpgraph.mechanisms import private_cosine_similarities

    c1 = -1.0 + 1.0 / math.sqrt(2.0)
    V0 = np.array([[1.0, 0.0], [-1.0, 0.0]])
    V1 = np.array([[1.0, 0.0], [c1, math.sqrt(1.0 - c1 * c1)]])
    sigma = analytic_gaussian_sigma(epsilon, delta, 1.0 / math.sqrt(2.0))

    def mech(V, gen):
        return private_cosine_similarities(V, epsilon=epsilon, delta=delta,
                                           rng=gen).similarities[0, 1]

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (V0, V1), (-1.0, c1), lambda s: np.linspace(-0.99, 0.99, 199),
                           sigma=sigma, epsilon=epsilon, delta=delta, runs=runs,
                           calibration_runs=cal, confidence=confidence, rng=rng,
                           mechanism_name="private_cosine_similarities (exact)",
                           pair_name="cosine -1 vs -1 + 1/sqrt 2 (Gram change 1 in Frobenius)",
                           statistic_name="released similarity[0, 1]")


def marginals(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 20_000, rng=0,
              confidence: float = 0.95, m: int = 200, features: int = 3,
              calibration_runs: int | None = None) -> AuditResult:
    """:func:`dpgraph.kway_marginals` with ``k = 1`` on ``m`` rows of ``features`` bits, half of
    them all ones, vs the same data with an all-zero row replaced by an all-ones row: every
    count moves by 1, so the L2 change is ``sqrt(features)``, the sensitivity ``Delta_1``
    (attained). Statistic: the sum of the released counts, which moves by ``features`` against
    noise of standard deviation ``sigma sqrt(features)``: the Gaussian likelihood-ratio
    direction (the counts sit far from the projection's bounds 0 and m). The threshold is
    planned from the normal distribution, with its noise scale fitted on ``calibration_runs``
    separate runs per input (default ``runs // 4``; 0 plans from the claimed scale), so that a
    release drawing less noise than it claims is caught (docs/audit.md 1)."""
    from dpgraph.mechanisms import kway_marginals, tensor_sensitivity

    X0 = np.zeros((m, features))
    X0[: m // 2] = 1.0
    X1 = X0.copy()
    X1[-1] = 1.0
    base = float(X0.sum())
    sd = analytic_gaussian_sigma(epsilon, delta, tensor_sensitivity(1, features)) \
        * math.sqrt(features)

    def mech(X, gen):
        return float(kway_marginals(X, 1, epsilon=epsilon, delta=delta, rng=gen).tensor.sum())

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (X0, X1), (base, base + features),
                           lambda s: base + np.linspace(-2.0, 8.0, 401) * s, sigma=sd,
                           epsilon=epsilon, delta=delta, runs=runs, calibration_runs=cal,
                           confidence=confidence, rng=rng,
                           mechanism_name="kway_marginals (k = 1)",
                           pair_name=f"m={m}: an all-zero row vs an all-ones row "
                                     f"({features} features)",
                           statistic_name="sum of released counts")


def jl(*, epsilon: float = 1.0, delta: float = 1e-3, runs: int = 2_000, rng=0,
       confidence: float = 0.95, calibration_runs: int | None = None, m: int = 30,
       features: int = 3) -> AuditResult:
    """:func:`dpgraph.jl_two_way_marginals` (Gaussian JL matrix, Gordon sensitivity bound,
    projection lift) on one-hot rows (sparsity 1), with one row ``e_1`` replaced by ``e_2``:
    ``||x x^T - y y^T||_F = sqrt 2 = sqrt 2 r^2`` attains the second-moment sensitivity.
    Statistic: ``S^_11 - S^_22`` of the lifted estimate (moves by ``2/m``); threshold
    calibrated. Not tight: the noise is calibrated to Gordon's bound on the JL matrix's
    stretch over all rank-2 directions, above the stretch of this one direction."""
    from dpgraph.mechanisms import jl_two_way_marginals

    X0 = np.zeros((m, features))
    X0[np.arange(m), np.arange(m) % features] = 1.0
    X1 = X0.copy()
    X1[0] = 0.0
    X1[0, 1] = 1.0  # row 0 was e_1

    def mech(X, gen):
        S = jl_two_way_marginals(X, epsilon=epsilon, delta=delta, sparsity=1, jl_dim=6,
                                 rng=gen).estimate
        return float(S[0, 0] - S[1, 1])

    return audit_threshold(mech, (X1, X0), epsilon=epsilon, delta=delta, runs=runs,
                           calibration_runs=calibration_runs, confidence=confidence, rng=rng,
                           mechanism_name="jl_two_way_marginals (Gaussian, Gordon bound)",
                           pair_name=f"m={m} one-hot rows: a row e_2 vs e_1",
                           statistic_name="S[0,0] - S[1,1]")


# ----------------------------------------------------------------------------- synthetic release
# release_synthetic's Laplace releases (docs/privacy.md 7.4, 7.7, 7.9), each observed at the
# noise draw itself: the mechanism runs the public function and records what it passed
# through ``laplace_mechanism`` (the release before post-processing). Every coordinate the pair
# moves has Laplace noise of scale b and a shift s with s / b summing to epsilon, so the event
# "every moved coordinate at or above its x1 value" has P1 / P0 = e^epsilon exactly: tight.


def _observe_laplace(call):
    """Run ``call()`` and return the noisy vectors it released through
    :func:`dpgraph.privacy.laplace_mechanism` (in order), from the audit transcript."""
    with transcript() as record:
        call()
    return [v.ravel() for name, v in record if name == "laplace"]


def _all_at_least(index, target):
    index, target = np.asarray(index), np.asarray(target, dtype=float)
    return lambda noisy: bool(np.all(noisy[index] >= target))


def synthetic_block_model(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                          confidence: float = 0.95) -> dict:
    """:func:`dpgraph.synthetic.block_model.release_split_block_model` (7.7: one Laplace release, weighted
    L1 sensitivity 1) on blocks ``[0, 0, 1, 1]`` and the graph ``{0, 2}``, with a pair inside
    block 0 (``{0, 1}``: two inside degrees move, each by half the budget) and a pair across
    (``{1, 3}``: one inter-block count and two across degrees); and on one block
    ``[0, 0, 0, 0]`` with the pair ``{0, 1}`` (7.7's one-block release: two degrees, Laplace
    ``2 / epsilon``). Returns ``{"inside": ..., "across": ..., "one_block": ...}``."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.block_model import (degree_split, release_split_block_model,
                                               split_block_scales, split_block_statistics)

    two, one = np.array([0, 0, 1, 1]), np.zeros(4, dtype=np.int64)
    unit = epsilon * split_block_scales(4, 2, epsilon)
    cases = {"inside": (two, (0, 1), lambda w: split_block_statistics(w, two) / unit),
             "across": (two, (1, 3), lambda w: split_block_statistics(w, two) / unit),
             # one block: the released vector is the degrees themselves (sensitivity 2)
             "one_block": (one, (0, 1), lambda w: degree_split(w, one)[:, 0])}
    out = {}
    for kind, (blocks, extra, released) in cases.items():
        G0, G1 = _graph_pair([(0, 2)], extra, 4)
        pair = (as_graph_data(G0), as_graph_data(G1))
        v0, v1 = (released(d.weights) for d in pair)
        moved = np.flatnonzero(v0 != v1)

        def mech(data, gen, blocks=blocks):
            return _observe_laplace(lambda: release_split_block_model(
                data, blocks, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen))[0]

        out[kind] = audit_event(
            mech, pair, _all_at_least(moved, v1[moved]), epsilon=epsilon, runs=runs,
            confidence=confidence, rng=rng,
            mechanism_name="release_split_block_model (synthetic block model)",
            pair_name=f"blocks {blocks.tolist()}, edge {{0, 2}} vs + {kind} pair {set(extra)}",
            event_name=f"the {moved.size} moved coordinates at or above their x1 values")
    return out


def synthetic_refinement(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                         confidence: float = 0.95) -> AuditResult:
    """One round of :func:`dpgraph.synthetic.communities.refine_partition` (7.4: node-to-block counts,
    L1 sensitivity 2, Laplace ``2 / epsilon``) on blocks ``[0, 0, 1, 1]``, the graph
    ``{0, 2}`` vs + ``{1, 3}``: ``N[1, 1]`` and ``N[3, 0]`` move by 1."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.communities import node_block_counts, refine_partition

    blocks = np.array([0, 0, 1, 1])
    G0, G1 = _graph_pair([(0, 2)], (1, 3), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))
    n0, n1 = (node_block_counts(d.weights, blocks, 2).ravel() for d in pair)
    moved = np.flatnonzero(n0 != n1)

    def mech(data, gen):
        return _observe_laplace(lambda: refine_partition(
            data, blocks, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen, rounds=1))[0]

    return audit_event(mech, pair, _all_at_least(moved, n1[moved]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="refine_partition, one round (synthetic communities)",
                       pair_name="blocks [0, 0, 1, 1], edge {0, 2} vs + {1, 3}",
                       event_name="N[1, 1] and N[3, 0] at or above their x1 values")


def _reads_in_transcript(run, read):
    """An audited mechanism from a release ``run(data, gen)`` that records its reads in the
    transcript and a ``read(seen)`` that picks the released values the event looks at."""
    def mech(data, gen):
        with transcript() as seen:
            run(data, gen)
        return read(seen)
    return mech


def _pair_rows_read(seen, pair):
    """From a transcript of the sequential refinement (``refinement rows``, ``refinement
    partition``, then the batch's ``laplace`` rows, batch after batch): for each node ``u`` of
    ``pair = (u, v)``, its released count towards the block ``v`` was in when ``u``'s row was
    read -- the one coordinate of ``u``'s row that the pair ``{u, v}`` moves."""
    out, rows, part = {}, None, None
    for name, value in seen:
        if name == "refinement rows":
            rows = value.astype(np.int64)
        elif name == "refinement partition":
            part = value
        elif name == "laplace":  # the batch's noisy rows, read against ``part``
            noisy = value.reshape(rows.size, -1)
            for u, v in (pair, pair[::-1]):
                hit = np.flatnonzero(rows == u)
                if hit.size:
                    out[u] = noisy[hit[0], int(part[v])]
    return np.array([out[pair[0]], out[pair[1]]])


def synthetic_sequential_refinement(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                                    confidence: float = 0.95) -> AuditResult:
    """One round of :func:`dpgraph.synthetic.communities.refine_partition` in sequential
    batches (7.4, the default of :func:`dpgraph.release_synthetic`): one node per batch in a
    random order, each row read against the partition the earlier batches left. Blocks
    ``[0, 0, 1, 1]``, the graph ``{0, 2}`` vs + ``{1, 3}``: node 1's count towards node 3's
    block at the time node 1 is read, and node 3's towards node 1's, each move by 1 (Laplace
    ``2 / epsilon``), whichever blocks the earlier moves left them in. Event: both at or above
    1. Given the transcript so far each has ratio ``e^{epsilon / 2}``, so the event's ratio is
    ``e^epsilon`` (tight); reading a row against a stale partition, or a batch with less
    noise, would show."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.communities import refine_partition

    blocks = np.array([0, 0, 1, 1])
    G0, G1 = _graph_pair([(0, 2)], (1, 3), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def run(data, gen):
        refine_partition(data, blocks, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen,
                         rounds=1, batches=4)

    mech = _reads_in_transcript(run, lambda seen: _pair_rows_read(seen, (1, 3)))
    return audit_event(mech, pair, _all_at_least([0, 1], [1.0, 1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="refine_partition, one round in 4 sequential batches",
                       pair_name="blocks [0, 0, 1, 1], edge {0, 2} vs + {1, 3}",
                       event_name="N[1, block of 3] and N[3, block of 1], each as read, >= 1")


def _pair_label_reads(seen, pair):
    """From a transcript of :func:`dpgraph.synthetic.communities.label_passes` (``label pass
    rows``, ``label pass labels``, then the batch's ``laplace`` rows, batch after batch): the
    released counts in which the pair ``(u, v)`` was read, one per pass (a row of ``u`` read
    while ``v`` held a label, or the reverse), ``-inf`` where a pass did not read it (both
    ends in one batch)."""
    out, rows, lab = [], None, None
    for name, value in seen:
        if name == "label pass rows":
            rows = value.astype(np.int64)
        elif name == "label pass labels":
            lab = value.astype(np.int64)
        elif name == "laplace":
            noisy = value.reshape(rows.size, -1)
            for u, v in (pair, pair[::-1]):
                hit = np.flatnonzero(rows == u)
                if hit.size and lab[v] >= 0:
                    out.append(noisy[hit[0], lab[v]])
    return np.array((out + [-np.inf, -np.inf])[:2])


def synthetic_label_passes(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                           confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.communities.label_passes` (7.14, ``release_synthetic``'s
    default communities) with 2 labels on 4 nodes, the graph ``{2, 3}`` vs + ``{0, 1}``: the
    forward pass's count of the pair's later endpoint towards the earlier one's label and the
    backward pass's count of the earlier towards the later one's new label (each Laplace
    ``2 / epsilon``), read from the transcript whatever order and labels the run drew. Event:
    both at least 1. Given the transcript so far each has ratio ``e^{epsilon / 2}``, so the
    event's ratio is ``e^epsilon`` where the pair is read (tight); where both ends fall in the
    first batch nothing reads it and the event fails under both graphs."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.communities import label_passes

    G0, G1 = _graph_pair([(2, 3)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def run(data, gen):
        label_passes(data, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen, labels=2)

    mech = _reads_in_transcript(run, lambda seen: _pair_label_reads(seen, (0, 1)))
    return audit_event(mech, pair, _all_at_least([0, 1], [1.0, 1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="label_passes, 2 labels on 4 nodes",
                       pair_name="edge {2, 3} vs + {0, 1}",
                       event_name="the pair's forward and backward counts, each as read, >= 1")


def _pair_field_reads(seen, pair) -> list:
    """From a transcript of :func:`dpgraph.synthetic.sides.side_pass` (``forward pass rows``,
    ``forward pass sides``, then the batch's ``laplace`` fields, batch after batch): every field
    in which the pair ``(u, v)`` was read (the later endpoint's, while the earlier one had a
    side), times that side -- the direction in which the pair moves it. One read, or none
    where both ends share a batch."""
    out, rows, x = [], None, None
    for name, value in seen:
        if name == "forward pass rows":
            rows = value.astype(np.int64)
        elif name == "forward pass sides":
            x = value
        elif name == "laplace":
            for u, v in (pair, pair[::-1]):
                hit = np.flatnonzero(rows == u)
                if hit.size and x[v] != 0:
                    out.append(value[hit[0]] * x[v])
    return out


def synthetic_side_pass(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                        confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.sides.side_pass` (7.15, ``release_synthetic``'s cut sides) on
    4 nodes of equal released degree (a random order, one node per batch), the graph
    ``{2, 3}`` vs + ``{0, 1}``: the field of the pair's later endpoint (Laplace ``1 /
    epsilon``), times the side the earlier one took, read from the transcript whatever order
    and sides the run drew. Event: at least 1. Given the transcript so far the field has ratio
    ``e^epsilon`` (tight)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.sides import side_pass

    G0, G1 = _graph_pair([(2, 3)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def run(data, gen):
        side_pass(data, np.ones(4), epsilon=epsilon, ledger=_ledger(epsilon), rng=gen)

    mech = _reads_in_transcript(
        run, lambda seen: np.array((_pair_field_reads(seen, (0, 1)) + [-np.inf])[:1]))
    return audit_event(mech, pair, _all_at_least([0], [1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="side_pass on 4 nodes, one per batch",
                       pair_name="edge {2, 3} vs + {0, 1}",
                       event_name="the later endpoint's field towards the earlier's side, as "
                                  "read, >= 1")


def synthetic_cut_lead(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                       confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.sides.release_cut_lead` (7.15, ``release_synthetic``'s choice
    whether to lean: ``cut(x) - cut(y)`` plus Laplace, sensitivity 1) for sides ``x = (+, -, +,
    -)`` and ``y`` all ``+`` fixed in advance, on the path 0-2-1 vs + ``{0, 1}`` (the pair
    crosses ``x``, not ``y``: the lead moves from 1 to 2); event: the released lead above the
    threshold planned from the known Laplace densities."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.sides import release_cut_lead

    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))
    x, y = np.array([1.0, -1.0, 1.0, -1.0]), np.ones(4)
    b = 1.0 / epsilon
    t, _ = plan_threshold(stats.laplace(1.0, b).sf, stats.laplace(2.0, b).sf,
                          1.0 + np.linspace(-4.0, 5.0, 181) * b, runs=runs,
                          confidence=confidence)

    def mech(data, gen):
        return release_cut_lead(data, x, y, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen)

    return audit_threshold(mech, pair, epsilon=epsilon, runs=runs, threshold=t,
                           confidence=confidence, rng=rng,
                           mechanism_name="release_cut_lead (synthetic sides against the "
                                          "model's split)",
                           pair_name="path 0-2-1 vs + edge {0, 1}",
                           statistic_name="released lead of x's cut over y's")


def synthetic_degree_classes(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                             confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.degree_classes.release_degree_mixing` (7.10: class-pair edge counts, L1
    sensitivity 1) for classes ``[0, 1, 0, 1]`` fixed in advance, the path 0-2-1 vs + ``{0, 1}``
    (class pair (0, 1): its count moves from 1 to 2)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.block_model import block_edge_counts
    from dpgraph.synthetic.degree_classes import release_degree_mixing

    classes = np.array([0, 1, 0, 1])
    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))
    iu = np.triu_indices(2)
    c0, c1 = (block_edge_counts(d.weights, classes)[iu] for d in pair)
    moved = np.flatnonzero(c0 != c1)

    def mech(data, gen):
        return _observe_laplace(lambda: release_degree_mixing(
            data, classes, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen))[0]

    return audit_event(mech, pair, _all_at_least(moved, c1[moved]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="release_degree_mixing (synthetic degree classes)",
                       pair_name="path 0-2-1 vs + edge {0, 1}, classes [0, 1, 0, 1]",
                       event_name="class-pair (0, 1) count at or above 2")


def synthetic_edge_count(*, epsilon: float = 30.0, runs: int = 20_000, rng=0,
                         confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.block_model.release_edge_total` (7.10: the edge count at ``0.02
    epsilon``, then a second count at the share ``u`` that the first one's value chooses) on a
    300-node cycle vs + the chord ``{0, 150}``, at an ``epsilon`` (30) where the second count
    is drawn (``u`` about 0.024, the room 1: its cap 0.04). Both counts are observed; the event
    "both at or above 301" has ``P1 / P0 = e^{(0.02 + u) epsilon}``. The claim is the charge at
    a first count 10 below the graph's, the largest ``u`` but with probability ``e^-6 / 2``."""
    from dpgraph.graph import as_graph_data
    from dpgraph.privacy.budget import edge_count_top_up
    from dpgraph.synthetic.block_model import release_edge_total

    n, share = 300, 0.02
    G0, G1 = _graph_pair([(i, (i + 1) % n) for i in range(n)], (0, n // 2), n)
    pair = (as_graph_data(G0), as_graph_data(G1))
    claimed = epsilon * (share + edge_count_top_up(n - 10, epsilon, share, room=1.0))

    def mech(data, gen):
        return np.concatenate(_observe_laplace(lambda: release_edge_total(
            data, epsilon=epsilon, share=share, room=1.0, ledger=_ledger(epsilon), rng=gen)))

    return audit_event(mech, pair, lambda noisy: bool(noisy.size == 2 and np.all(noisy >= n + 1)),
                       epsilon=claimed, runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="release_edge_total (synthetic edge count, two counts)",
                       pair_name=f"{n}-cycle vs + chord {{0, {n // 2}}}",
                       event_name=f"both released counts at or above {n + 1}")


def synthetic_clustering(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                         confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.clustering.release_transitivity` (7.11: corners and wedges of
    the degree-capped projection, L1 sensitivity ``8 (theta - 1)``) with cap 3 and the node
    order fixed, on the lemma's worst case: ``a`` (0) with ``y1`` (1) and ``s1, s2`` (2, 3),
    ``y1`` adjacent to both; the same at ``b`` (4) with ``y2`` (5), ``s3, s4`` (6, 7); ``a`` and
    ``b`` first in the order, ``y1`` and ``y2`` last. Adding ``{a, b}`` evicts ``y1`` and ``y2``:
    12 corners and 4 wedges lost, the whole bound 16."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.clustering import bounded_projection, projection_counts
    from dpgraph.synthetic.clustering import release_transitivity

    theta = 3
    edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (4, 5), (4, 6), (4, 7), (5, 6), (5, 7)]
    order = np.empty(8, dtype=np.int64)
    order[[4, 0, 2, 3, 6, 7, 1, 5]] = np.arange(8)
    G_without, G_with = _graph_pair(edges, (0, 4), 8)
    pair = (as_graph_data(G_with), as_graph_data(G_without))
    c0, c1 = (projection_counts(bounded_projection(d.weights, theta, order)) for d in pair)
    moved = np.flatnonzero(c0 != c1)

    def mech(data, gen):
        return _observe_laplace(lambda: release_transitivity(
            data, theta=theta, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen,
            order=order))[0]

    return audit_event(mech, pair, _all_at_least(moved, c1[moved]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="release_transitivity (synthetic clustering)",
                       pair_name="the 7.11 worst case + {a, b} vs without, cap 3, order fixed",
                       event_name="corners and wedges at or above their values without {a, b}")


def local_route(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                confidence: float = 0.95) -> AuditResult:
    """The degree-ordered local route (:func:`dpgraph.release.routes.local.release_local_sides`,
    docs/privacy.md 14) on 3 isolated nodes vs the same plus edge ``{0, 1}``, with one node per
    batch (a public plan), so the pair is read by the forward field of whichever of 0 and 1
    comes later in the released order. Event: ``x_earlier * f_later >= 1`` (that field, released,
    leans by a full unit towards the earlier node's side): ``P = e^{-eps_1} / 2`` without the
    edge and ``1/2`` with it, the ratio ``e^{eps_1}`` with ``eps_1 = 0.95 eps`` (the degrees take
    the other 5%). Tight for the forward pass."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.local import LocalPlan, release_local_sides

    G0, G1 = _graph_pair([], (0, 1), 3)
    pair = (as_graph_data(G0), as_graph_data(G1))
    plan = LocalPlan(first_batch=1, batch_growth=0.0)

    def mech(data, gen):
        rel = release_local_sides(data, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen,
                                  plan=plan)
        pos = np.empty(3, dtype=np.int64)
        pos[rel.order] = np.arange(3)
        early, late = (0, 1) if pos[0] < pos[1] else (1, 0)
        return rel.candidates[early, 0] * rel.fields[late]

    return audit_event(mech, pair, lambda lean: lean >= 1.0, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="local route (forward pass)",
                       pair_name="3 isolated nodes vs + edge {0, 1}",
                       event_name="later field leans >= 1 to the earlier side")


def local_route_backward(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                         confidence: float = 0.95) -> AuditResult:
    """The local route's backward pass (:func:`dpgraph.release.routes.local.backward_pass`,
    docs/privacy.md 14.9) at ``eps_b = epsilon``, isolated the way :func:`local_route` isolates
    the forward pass: called directly with a public plan (one node per batch), the order
    ``0, 1, 2`` and fixed forward sides ``x = (1, -1, 1)`` and released forward fields
    ``f = (-1, 0, 1)``, on 3 isolated nodes vs the same plus edge ``{0, 1}``. Node 1's batch is
    released first (``b_1`` reads nothing: ``y_0 = 0`` then) and takes ``y_1 = -sign(f_1 + k b_1)``
    (``x_1`` at 0), either side; then ``b_0 = w_01 y_1 + Laplace(1 / eps_b)`` reads the pair,
    by its earlier endpoint. Event: ``y_1 b_0 >= 1`` (node 0's released backward field leans by
    a full unit towards node 1's new side), ``b_0`` read from the audit transcript:
    ``P = e^{-eps_b} / 2`` without the edge and ``1/2`` with it whatever ``y_1`` is, the ratio
    ``e^{eps_b}`` exactly (discrete Laplace, 13.1). Tight for the backward pass."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.local import LocalPlan, backward_pass, batch_bounds

    G0, G1 = _graph_pair([], (0, 1), 3)
    pair = (as_graph_data(G0), as_graph_data(G1))
    plan = LocalPlan(first_batch=1, batch_growth=0.0)
    bounds = batch_bounds(0, 3, plan.first_batch, plan.batch_growth)
    order = np.arange(3)
    x, earlier = np.array([1.0, -1.0, 1.0]), np.array([-1.0, 0.0, 1.0])

    def mech(data, gen):
        out = {}

        def call():
            out["y"], _ = backward_pass(data.weights, order, x.copy(), earlier, bounds,
                                        epsilon=epsilon, ledger=_ledger(epsilon), rng=gen)

        released = _observe_laplace(call)  # batches in reverse order: node 2, node 1, node 0
        return out["y"][1] * released[2][0]

    return audit_event(mech, pair, lambda lean: lean >= 1.0, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="local route (backward pass)",
                       pair_name="3 isolated nodes vs + edge {0, 1}, order 0, 1, 2 fixed",
                       event_name="earlier node's backward field leans >= 1 to the later "
                                  "node's new side")


def weighted_pair(*, epsilon: float = 1.0, runs: int = 200, rng=0,
                  confidence: float = 0.95) -> dict:
    """docs/privacy.md 4.12: a 30-node path with every weight 1 vs the same path plus edge
    ``{0, 29}`` of weight 0.5 (adjacent). Before every route took one path, the screening charge
    and the route were certain on one side and absent on the other (unbounded epsilon). Events:
    ``"privatize steps"``: :func:`dpgraph.privatize`'s ledger holds the screening charge;
    ``"max_cut route"``: :func:`dpgraph.max_cut` runs the local route. Both must now stay at or
    below the claim. Returns ``{"privatize steps": AuditResult, "max_cut route": AuditResult}``."""
    from dpgraph.solve.cut import max_cut as private_max_cut
    from dpgraph.release.privatize import privatize

    G0 = nx.path_graph(30)
    nx.set_edge_attributes(G0, 1.0, "weight")
    G1 = G0.copy()
    G1.add_edge(0, 29, weight=0.5)

    def steps(G, gen):
        pg = privatize(G, epsilon=epsilon, delta=1e-6, rank=2, rng=gen, synthetic_share=None)
        return "screening: edge count" in [e.name for e in pg.ledger.entries]

    def route(G, gen):
        return private_max_cut(G, epsilon=epsilon, delta=1e-6, rng=gen,
                               estimate=False).diagnostics["route"] == "local"

    out = {}
    for name, mech in (("privatize steps", steps), ("max_cut route", route)):
        out[name] = audit_event(mech, (G0, G1), lambda hit: hit, epsilon=epsilon, delta=1e-6,
                                runs=runs, confidence=confidence, rng=rng,
                                mechanism_name=f"weighted pair: {name}",
                                pair_name="path (weights 1) vs + edge {0, 29} of weight 0.5",
                                event_name=name)
    return out
