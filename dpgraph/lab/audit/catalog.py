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
:func:`rr_route` (``"released"``), :func:`pca_fallback`, :func:`cosine`, :func:`marginals`,
:func:`onehot`, :func:`second_moment`, :func:`perturb_and_project`; nearly tight, up to a
stated factor (``details["gaussian_optimum"]``): :func:`jl` (Gordon's factor at a large JL
dimension) and :func:`matrix_free_core` (the core's share of the route's budget); the
synthetic releases' Laplace releases
(:func:`synthetic_block_model`, :func:`synthetic_refinement`,
:func:`synthetic_label_passes`, :func:`synthetic_side_pass`, :func:`synthetic_cut_lead`,
:func:`synthetic_degree_classes`, :func:`synthetic_edge_count`,
:func:`synthetic_supergraph`, :func:`privatize_block_model`), the answers' releases
(:func:`cut_estimate`, :func:`candidate_choice`, :func:`certificate`,
:func:`csp_estimates`), the local route's (:func:`local_route`, :func:`local_route_backward`,
:func:`local_degrees`, :func:`local_sweep`, :func:`local_core`, :func:`local_labels`) and the
private PCA's gap (:func:`pca_gap`). The others audit post-processed or composed releases and
report how far they got. :data:`COVERAGE` maps every function of dpgraph that draws noise to
the audits of its release (``tests/test_audit_coverage.py`` keeps it complete).
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
                      epsilon_lower_bound, plan_threshold, run_mechanism)

__all__ = ["randomized_response", "laplace", "gaussian", "exponential", "edge_count",
           "rr_route", "pca_fallback", "pca_route", "matrix_free", "matrix_free_core", "max_cut",
           "cosine", "marginals", "onehot", "jl",
           "synthetic_block_model", "synthetic_refinement", "synthetic_sequential_refinement",
           "synthetic_label_passes", "synthetic_side_pass", "synthetic_cut_lead",
           "synthetic_degree_classes", "synthetic_edge_count", "synthetic_clustering",
           "synthetic_supergraph", "privatize_block_model",
           "local_route", "local_route_backward", "local_degrees", "local_sweep", "local_core",
           "local_labels", "cut_estimate", "candidate_choice", "certificate", "csp_estimates",
           "pca_gap", "second_moment", "perturb_and_project", "weighted_pair", "TIGHT",
           "COVERAGE", "UNAUDITED"]

#: Audits whose event is tight for the mechanism: their bound must reach a stated fraction.
TIGHT = ("randomized_response", "laplace", "gaussian", "exponential", "edge_count",
         "rr_route", "pca_fallback", "matrix_free_core", "cosine", "marginals", "onehot", "jl",
         "synthetic_block_model", "synthetic_refinement",
         "synthetic_sequential_refinement", "synthetic_label_passes", "synthetic_side_pass",
         "synthetic_cut_lead", "synthetic_degree_classes", "synthetic_edge_count",
         "synthetic_clustering", "synthetic_supergraph", "privatize_block_model",
         "local_route", "local_route_backward", "local_degrees", "local_sweep", "local_core",
         "local_labels", "cut_estimate", "candidate_choice", "certificate", "csp_estimates",
         "pca_gap", "second_moment", "perturb_and_project")

#: Every function of dpgraph outside ``dpgraph.privacy`` and ``dpgraph.lab`` that calls a noise
#: primitive of :mod:`dpgraph.privacy.noise` (or the randomized-response route's
#: ``randomized_response_matrix``), and the audits of this module whose events read its
#: release (docs/audit.md 2). ``tests/test_audit_coverage.py`` finds the calls in the source:
#: a new release must be listed here, with an audit or in :data:`UNAUDITED` with the reason.
COVERAGE = {
    "dpgraph.mechanisms.cosine.private_cosine_similarities": ("cosine",),
    "dpgraph.mechanisms.covariance.private_second_moment": ("second_moment",),
    "dpgraph.mechanisms.jl._jl_release": ("jl",),
    "dpgraph.mechanisms.marginals.kway_marginals": ("marginals",),
    "dpgraph.mechanisms.onehot.onehot_marginals": ("onehot",),
    "dpgraph.mechanisms.perturb.perturb_and_project": ("perturb_and_project",),
    "dpgraph.release.routes.local.release_order": ("local_degrees", "local_route"),
    "dpgraph.release.routes.local.forward_pass": ("local_route",),
    "dpgraph.release.routes.local._solve_core": ("local_core",),
    "dpgraph.release.routes.local.backward_pass": ("local_route_backward",),
    "dpgraph.release.routes.local._refine_sweep": ("local_sweep",),
    "dpgraph.release.routes.local.release_local_labels": ("local_labels",),
    "dpgraph.release.routes.matrix_free._Releases.gaussian": ("matrix_free",),
    "dpgraph.release.routes.matrix_free._Releases.symmetric_core": ("matrix_free_core",),
    "dpgraph.release.routes.pca.release": ("pca_route",),
    "dpgraph.release.routes.pca.release_low_rank": ("pca_route",),
    "dpgraph.release.routes.randomized_response.randomized_response_matrix":
        ("randomized_response", "rr_route", "local_core"),
    "dpgraph.release.routes.randomized_response.release": ("rr_route",),
    "dpgraph.release.routes.randomized_response.fallback_randomized_response":
        ("pca_fallback",),
    "dpgraph.release.screening.release_edge_count": ("edge_count",),
    "dpgraph.solve.candidates.release_estimate": ("cut_estimate",),
    "dpgraph.solve.candidates.choose_candidate": ("candidate_choice", "exponential"),
    "dpgraph.solve.certify.release_certificate": ("certificate",),
    "dpgraph.solve.csp._release_total_weight": ("csp_estimates",),
    "dpgraph.solve.csp._release_value": ("csp_estimates",),
    "dpgraph.solve.csp._choose_and_estimate": (),
    "dpgraph.spectral.pca._run_subspace": ("pca_gap", "pca_route"),
    "dpgraph.spectral.pca.private_low_rank": ("pca_route",),
    "dpgraph.synthetic.block_model.release_block_model": ("privatize_block_model",),
    "dpgraph.synthetic.block_model._release_one_block": ("synthetic_block_model",),
    "dpgraph.synthetic.block_model.release_split_block_model": ("synthetic_block_model",),
    "dpgraph.synthetic.block_model._release_total": ("synthetic_edge_count",),
    "dpgraph.synthetic.clustering.release_transitivity": ("synthetic_clustering",),
    "dpgraph.synthetic.communities.refine_partition": ("synthetic_refinement",),
    "dpgraph.synthetic.communities._forward_labels": ("synthetic_label_passes",),
    "dpgraph.synthetic.communities._backward_labels": ("synthetic_label_passes",),
    "dpgraph.synthetic.communities._sequential_rounds": ("synthetic_sequential_refinement",),
    "dpgraph.synthetic.communities.supergraph_communities": ("synthetic_supergraph",),
    "dpgraph.synthetic.degree_classes.release_degree_mixing": ("synthetic_degree_classes",),
    "dpgraph.synthetic.sides.side_pass": ("synthetic_side_pass",),
    "dpgraph.synthetic.sides.release_cut_lead": ("synthetic_cut_lead",),
}

#: The draw sites of :data:`COVERAGE` that no event of this module audits, and why.
UNAUDITED = {
    "dpgraph.solve.csp._choose_and_estimate":
        "the dense route's choice among candidate assignments runs only after a privatize "
        "call and SDP solves of the label graph; on 2 variables the pool held every one of "
        "the q^2 assignments in most runs (the event 'the one assignment a constraint allows "
        "is chosen' would be the exponential mechanism's pair), but each run costs a "
        "privatize call and five SDP solves (0.13-0.15 s at q = 3, 4) and flagging twice the "
        "choice's epsilon needs about 1,000 runs per input (expected counts of that pair at "
        "epsilon 1, q = 4); its value estimate is "
        "_release_value (csp_estimates) and its scores' monotonicity and sensitivity 1 are "
        "checked on adjacent instances (docs/privacy.md 6.4)",
}


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


def pca_fallback(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                 confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.release.routes.randomized_response.fallback_randomized_response` (the PCA
    route's branch after a halted test, docs/privacy.md 4.7: randomized response on every pair
    indicator at what the halted steps leave, de-biased, truncated to the top ``rank``
    eigenpairs and expressed as basis and core in the normalized frame) at ``epsilon``, on 2
    nodes without vs with their edge, ``rank = 2`` and ``d~ = (1, 1)``: the release ``B C B^T``
    is then the de-biased matrix itself, whose entry ``[0, 1]`` is positive exactly where the
    released bit is 1. Event: it is positive (``P1 / P0 = e^epsilon``, tight). The branch's
    charges (which steps halted, what they leave) are checked by coupled runs on adjacent
    graphs (``tests/test_pca_privacy_review.py``)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.randomized_response import fallback_randomized_response

    G0, G1 = _graph_pair([], (0, 1), 2)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def mech(data, gen):
        B, C = fallback_randomized_response(data.weights, np.ones(2), 2, epsilon=epsilon,
                                            ledger=_ledger(epsilon), rng=gen)
        return float((B @ C @ B.T)[0, 1])

    return audit_event(mech, pair, lambda w: w > 0, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="fallback_randomized_response (PCA route after a halt)",
                       pair_name="2 nodes without vs with their edge (rank 2, d~ = 1)",
                       event_name="released entry [0, 1] > 0 (the released pair bit)")


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


def matrix_free_core(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 5_000, rng=0,
                     confidence: float = 0.95, calibration_runs: int | None = None, n: int = 10,
                     core_share: float = 0.9, core_kappa: float = 0.25) -> AuditResult:
    r"""The core of the matrix-free route (docs/privacy.md 5.3: ``C = Q^T M Q`` plus symmetric
    Gaussian noise at the core's share of ``rho``, sensitivity ``sqrt 2 (1 + kappa_c^2 r) /
    S``), through :func:`dpgraph.release.routes.matrix_free.release_matrix_free` at rank 1 with
    ``core_share`` (default 0.9) of ``rho`` on the core, ``0.05`` on the degrees and the rest
    on the power steps, and the public option ``core_kappa`` (default 0.25), on the path
    ``0 - 1 - ... - (n-1)`` vs + the edge ``{0, n-1}``.

    The change is ``E = Q^T (M_1 - M_0) Q = (q_i q_j^T + q_j q_i^T) / sqrt(d~_i d~_j)``,
    ``q_a = (u0_a, clip(P X)_a)`` with ``u0_a = sqrt(d~_a / S)``. The bound is attained when
    ``q_i, q_j`` are parallel at full norm; with a small ``kappa_c`` they are nearly parallel
    whatever ``P X`` is (the public direction ``u0`` dominates both, and the rows are at their
    level but where ``P X`` is near 0), so every run attains at least 0.88 of the squared
    sensitivity (``details["mean_V"]`` against ``details["V_at_sensitivity"]``). The audit
    rebuilds the noisy core from the release and the transcript: ``Q = [u0, clip(P X)]``
    (``u0`` from the released normalizer ``d~``, ``clip(P X)`` the last ``matrix-free clip``
    record), ``R = B^T Q`` and ``C = R^T K R`` (``B``, ``K`` the released basis and core). Its
    event is the core's privacy loss given the earlier transcript, ``l = <C - C_0, E>_w /
    sigma_c^2 - ||E||_w^2 / (2 sigma_c^2)`` (``C_0 = Q^T M_0 Q``; ``w``: the upper triangle at
    variance ``sigma_c^2``, the diagonal at ``2 sigma_c^2``; ``sigma_c`` the route's reported
    ``core_sigma``), ``l > t``. At full sensitivity ``l`` is ``N(-V/2, V)`` without the edge and
    ``N(V/2, V)`` with it, ``V = 2 core_share rho``; ``t`` is planned from normal densities
    with the means and the pooled variance of ``l`` fitted on ``calibration_runs`` separate
    runs per input (default ``runs // 4``; 0 plans from ``V`` as stated), so that a core drawn
    with less noise than it reports, or reporting less than it claims, gets the event suited to
    it (docs/audit.md 1). The claim is the route's
    ``(epsilon, delta)``: the event reads the whole release, of which the core is
    ``core_share`` of ``rho``, so the most it can show is the Gaussian epsilon of shift
    ``sqrt V`` (``details["gaussian_optimum"]``); a core drawn with half its noise shows
    ``2 sqrt V``, above the claim."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes import matrix_free as mf

    if n < 4:
        raise ValueError(f"n must be >= 4 (rank 1 < n - 1 and a path with a chord), got {n!r}")
    G0, G1 = _graph_pair([(a, a + 1) for a in range(n - 1)], (0, n - 1), n)
    pair = (as_graph_data(G0), as_graph_data(G1))
    A0, A1 = (nx.to_numpy_array(G, nodelist=range(n)) for G in (G0, G1))
    degree_share = 0.05
    iu = np.triu_indices(2)
    w = np.where(iu[0] == iu[1], 0.5, 1.0)  # upper triangle at sigma_c^2, diagonal 2 sigma_c^2
    V_full, losses = [], {False: [], True: []}

    def mech(data, gen):
        with transcript() as record:
            pg = mf.release_matrix_free(data, epsilon=epsilon, delta=delta, rank=1,
                                        ledger=_ledger(epsilon, delta), rng=gen,
                                        degree_share=degree_share, core_share=core_share,
                                        core_kappa=core_kappa)
        clip = [v for name, v in record if name == "matrix-free clip"][-1]  # the core's basis
        order = [pg.labels.index(v) for v in range(n)]  # node v -> its row
        d_tilde = np.asarray(pg.normalizer, dtype=np.float64)[order]
        u0 = np.sqrt(d_tilde / d_tilde.sum())
        Q = np.column_stack([u0, clip[order]])
        R = np.asarray(pg.basis)[order].T @ Q
        C = R.T @ np.asarray(pg.core) @ R
        inv = 1.0 / np.sqrt(d_tilde)
        C0 = Q.T @ (inv[:, None] * A0 * inv[None, :]) @ Q
        E = Q.T @ (inv[:, None] * (A1 - A0) * inv[None, :]) @ Q
        sig = pg.diagnostics["core_sigma"]
        V = float(np.sum(w * E[iu] ** 2)) / sig ** 2
        loss = float(np.sum(w * (C - C0)[iu] * E[iu])) / sig ** 2 - V / 2.0
        V_full.append(V)
        losses[data.m > n - 1].append(loss)
        return loss

    rho = mf.composition_rho(epsilon, delta)
    v_attained = 2.0 * rho * core_share
    v_sd = math.sqrt(v_attained)
    gen = make_rng(rng)
    cal = max(runs // 4, 1) if calibration_runs is None else int(calibration_runs)
    if cal < 0:
        raise ValueError(f"calibration_runs must be >= 0, got {calibration_runs!r}")
    means, sd = (-v_attained / 2, v_attained / 2), v_sd
    if cal:
        s0, s1 = (np.asarray(run_mechanism(mech, x, cal, gen), dtype=np.float64) for x in pair)
        means = (float(np.mean(s0)), float(np.mean(s1)))
        sd = max(math.sqrt(0.5 * (np.var(s0) + np.var(s1))), 1e-9)
        V_full.clear()
        losses[False].clear()
        losses[True].clear()
    t, predicted = plan_threshold(stats.norm(means[0], sd).sf, stats.norm(means[1], sd).sf,
                                  means[0] + np.linspace(-4.0, 12.0, 1601) * sd, runs=runs,
                                  delta=delta, confidence=confidence)
    res = audit_threshold(mech, pair, epsilon=epsilon, delta=delta, runs=runs, threshold=t,
                          confidence=confidence, rng=gen,
                          mechanism_name=f"matrix-free route: the core ({core_share:g} of rho, "
                                         f"core_kappa {core_kappa:g}, rank 1)",
                          pair_name=f"path on {n} nodes vs + edge {{0, {n - 1}}}",
                          statistic_name="the core's privacy loss l")
    how = (f"planned from the moments fitted on {cal} calibration runs" if cal else
           "planned at the core's full sensitivity")
    res.event = f"the core's privacy loss l > {t:.6g} ({how})"
    res.details.update(calibration_runs=cal, predicted_bound=predicted,
                       gaussian_optimum=_gaussian_epsilon(v_sd, delta),
                       mean_V=float(np.mean(V_full)), V_at_sensitivity=v_attained,
                       loss_moments={
                           "x0 (mean, var)": (float(np.mean(losses[False])),
                                              float(np.var(losses[False]))),
                           "x1 (mean, var)": (float(np.mean(losses[True])),
                                              float(np.var(losses[True])))})
    return res


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


def onehot(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 5_000, rng=0,
           confidence: float = 0.95, m: int = 40,
           calibration_runs: int | None = None) -> AuditResult:
    r""":func:`dpgraph.onehot_marginals` on its default path (``k = 2``, replace-one, noise off
    the diagonal, the augmented projection; docs/privacy.md 2.4) on two attributes of 2 values,
    ``m`` rows spread evenly over the 4 cells, vs one ``(0, 0)`` row replaced by ``(1, 1)``:
    cells ``T[0, 0]`` and ``T[1, 1]`` of the one 2-way table move by 1 each, the L2 change
    ``sqrt 2`` of the off-diagonal release, its whole sensitivity ``sqrt(2 C(2, 2))``
    (attained). Statistic: ``T[1, 1] - T[0, 0]`` of the released (projected) table, moving by
    2 against noise of sd ``sqrt 2 sigma``: the likelihood-ratio direction of the raw
    release. The projection leaves it unchanged where no inequality binds: the direction is
    orthogonal to the all-ones direction of the fixed total and to the null space of the
    augmented moment matrix (on whose boundary every data matrix lies), and the cells (about
    ``m / 4``) sit far from 0 and ``m``. Threshold planned at the noise scale fitted on
    ``calibration_runs`` separate runs per input (default ``runs // 4``; 0 plans from the
    claimed scale), as for :func:`cosine` (docs/audit.md 1). Tight."""
    from dpgraph.mechanisms import onehot_marginals

    if m < 4 or m % 4:
        raise ValueError(f"m must be a multiple of 4 (rows spread over 4 cells), got {m!r}")
    T0 = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])[np.arange(m) % 4]
    T1 = T0.copy()
    T1[0] = [1, 1]  # a (0, 0) row replaced by (1, 1)
    sd = math.sqrt(2.0) * analytic_gaussian_sigma(epsilon, delta, math.sqrt(2.0))

    def mech(T, gen):
        tab = onehot_marginals(T, [2, 2], 2, epsilon=epsilon, delta=delta,
                               rng=gen).tables[(0, 1)]
        return float(tab[1, 1] - tab[0, 0])

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (T0, T1), (0.0, 2.0),
                           lambda s: np.linspace(-2.0, 8.0, 401) * s, sigma=sd,
                           epsilon=epsilon, delta=delta, runs=runs, calibration_runs=cal,
                           confidence=confidence, rng=rng,
                           mechanism_name="onehot_marginals (k = 2, off the diagonal, augmented)",
                           pair_name=f"m={m} rows over sizes [2, 2]: a (0, 0) row vs (1, 1)",
                           statistic_name="released T[1, 1] - T[0, 0] of table (0, 1)")


def jl(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 2_000, rng=0,
       confidence: float = 0.95, calibration_runs: int | None = None, m: int = 20,
       jl_dim: int = 4096) -> AuditResult:
    r""":func:`dpgraph.jl_two_way_marginals` on its default path (Gaussian noise, Gaussian JL
    matrix, Gordon's sensitivity bound, projection lift; docs/privacy.md 2.5) on ``m`` one-hot
    rows over 2 features, half ``e_1`` and half ``e_2``, vs one ``e_2`` row replaced by
    ``e_1``: ``S`` moves by ``diag(1, -1) / m``, Frobenius ``sqrt 2 / m``, the exact 0/1 bound
    ``Delta_2(1, 2) / m`` (attained). The noise is calibrated to that times Gordon's factor
    ``L = 1 + (2 sqrt(2 d) + sqrt(2 ln(1/beta))) / sqrt l``, a bound on the JL matrix's stretch
    over every rank-2 direction; at a large ``jl_dim`` (``l = 4096`` against ``D = 3``
    coordinates) ``Pi`` is nearly an isometry, every direction is stretched by about 1, and
    ``L = 1.12``: the pair moves ``Pi svec S`` by ``1 / L`` of the calibrated sensitivity
    (with a small ``l``, ``L`` is several times the stretch of any one direction and no
    event can approach the claim). The lift is then least squares in nearly orthonormal
    coordinates, and ``S`` sits at ``diag(1/2, 1/2)``, where the projection onto ``{A PSD,
    tr A <= 1}`` only shifts the trace: the statistic ``S^[0, 0] - S^[1, 1]`` is the
    likelihood-ratio direction, moving by ``2 / m`` against noise of sd about ``sqrt 2
    sigma``. Threshold planned at the noise scale fitted on ``calibration_runs`` separate runs
    per input (default ``runs // 4``; 0 plans from the claimed scale), as for :func:`cosine`
    (docs/audit.md 1). ``details["gaussian_optimum"]``: the exact Gaussian epsilon of the
    pair's shift over the claimed noise, the most any event can show (1.69, 0.84 of the claim,
    at the defaults)."""
    from dpgraph.mechanisms import jl_two_way_marginals
    from dpgraph.mechanisms.jl import gordon_factor

    if m < 2 or m % 2:
        raise ValueError(f"m must be an even number >= 2 (half the rows e_1), got {m!r}")
    X0 = np.eye(2)[np.arange(m) % 2]
    X1 = X0.copy()
    X1[1] = [1.0, 0.0]  # an e_2 row replaced by e_1
    beta = delta / 10.0  # jl_two_way_marginals' default: Gordon's failure probability
    sens = math.sqrt(2.0) / m * gordon_factor(2, jl_dim, beta)
    sd = math.sqrt(2.0) * analytic_gaussian_sigma(epsilon, delta - beta, sens)

    def mech(X, gen):
        S = jl_two_way_marginals(X, epsilon=epsilon, delta=delta, sparsity=1, jl_dim=jl_dim,
                                 rng=gen).estimate
        return float(S[0, 0] - S[1, 1])

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    shift = 2.0 / m
    res = _gaussian_audit(mech, (X0, X1), (0.0, shift),
                          lambda s: np.linspace(-2.0, 8.0, 401) * s, sigma=sd, epsilon=epsilon,
                          delta=delta, runs=runs, calibration_runs=cal, confidence=confidence,
                          rng=rng,
                          mechanism_name=f"jl_two_way_marginals (Gaussian, Gordon bound, "
                                         f"jl_dim {jl_dim})",
                          pair_name=f"m={m} one-hot rows over 2 features: an e_2 row vs e_1",
                          statistic_name="S^[0, 0] - S^[1, 1]")
    res.details.update(gordon_factor=gordon_factor(2, jl_dim, beta),
                       gaussian_optimum=_gaussian_epsilon(shift / sd, delta))
    return res


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


def _audit_events(mech, pair, events: dict, *, runs: int, confidence: float, rng,
                  mechanism_name: str, pair_name: str) -> dict:
    """Several fixed events on the same runs, each against its own claim: ``events`` maps a
    name to ``(event, epsilon, event_name)``, ``event`` a function of one output. The
    mechanism runs ``runs`` times per input whatever the number of events; each result's bound
    holds at ``confidence`` on its own (:func:`~dpgraph.lab.audit.harness.epsilon_lower_bound`,
    delta 0). Returns ``{name: AuditResult}``."""
    gen = make_rng(rng)
    names = list(events)
    t0 = time.perf_counter()
    hits = [np.asarray(run_mechanism(
        mech, x, runs, gen, reduce=lambda out: np.array([bool(events[k][0](out)) for k in names])),
        dtype=bool).reshape(runs, len(names)) for x in pair]
    seconds = time.perf_counter() - t0
    out = {}
    for c, name in enumerate(names):
        _, claim, event_name = events[name]
        k0, k1 = (int(np.count_nonzero(h[:, c])) for h in hits)
        bound = epsilon_lower_bound(k0, runs, k1, runs, confidence=confidence)
        out[name] = AuditResult(
            mechanism=mechanism_name, pair=pair_name, event=event_name, runs=runs,
            counts=(k0, k1), claimed_epsilon=float(claim), claimed_delta=0.0,
            confidence=float(confidence), epsilon_lower_bound=bound["epsilon"],
            direction=bound["direction"], p_lower=bound["p_lower"], p_upper=bound["p_upper"],
            seconds=seconds)
    return out


# ------------------------------------------------------------------------- the answers' releases
# The private answers' own releases (docs/privacy.md 4.10, 4.11, 4.13, 6.5, 14.1-14.6), each
# called through its public function at the epsilon it is handed, on a pair that attains its
# sensitivity, so that a constant below the derivation shows as a bound above the claim.


def cut_estimate(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                 confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.solve.candidates.release_estimate` (docs/privacy.md 4.10: the cut of a
    fixed partition, Laplace, sensitivity 1) of ``x = (+, -, +, -)`` fixed in advance, its cut
    read by :func:`~dpgraph.solve.candidates.true_cuts` on the path 0-2-1 vs + ``{0, 1}`` (the
    pair crosses ``x``: the cut moves from 1 to 2). Event: the released value, as drawn
    (before its clamp to ``[0, |S| |T|]``), at or above 2: ``P1 / P0 = e^epsilon`` (tight)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.solve.candidates import partition_capacity, release_estimate, true_cuts

    G0, G1 = _graph_pair([(0, 2), (2, 1)], (0, 1), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))
    x = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    c1 = float(true_cuts(pair[1])(x)[0])

    def mech(data, gen):
        return _observe_laplace(lambda: release_estimate(
            float(true_cuts(data)(x)[0]), epsilon=epsilon, ledger=_ledger(epsilon), rng=gen,
            upper=partition_capacity(x)))[0]

    return audit_event(mech, pair, _all_at_least([0], [c1]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="release_estimate (the returned partition's cut)",
                       pair_name="path 0-2-1 vs + edge {0, 1}, x = (+, -, +, -)",
                       event_name=f"released cut, as drawn, at or above {c1:g}")


def candidate_choice(*, epsilon: float = 2.0, candidates: int = 50, runs: int = 20_000,
                     rng=0, confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.solve.candidates.choose_candidate` (docs/privacy.md 4.11: the monotone
    exponential mechanism on the candidates' cuts, read by
    :func:`~dpgraph.solve.candidates.true_cuts`) on 8 isolated nodes vs + edge ``{0, 1}``, over
    ``candidates`` distinct partitions of which only the first separates 0 and 1: every cut is
    0 without the edge, the first one's 1 with it. Event: the first chosen. ``P1 / P0 =
    k e^eps / (e^eps + k - 1)`` as for :func:`exponential`, here through the call site's
    sensitivity and scores."""
    from dpgraph.graph import as_graph_data
    from dpgraph.solve.candidates import choose_candidate, true_cuts

    n, k = 8, int(candidates)
    if not 2 <= k <= 2 ** (n - 2):
        raise ValueError(f"candidates must lie in [2, {2 ** (n - 2)}], got {candidates!r}")
    pool = np.ones((n, k))
    pool[2:] = ((np.arange(k)[None, :] >> np.arange(n - 2)[:, None]) & 1) * 2.0 - 1.0
    pool[1, 0] = -1.0  # only the first candidate separates 0 and 1
    G0, G1 = _graph_pair([], (0, 1), n)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def mech(data, gen):
        return choose_candidate(true_cuts(data), pool, epsilon=epsilon, ledger=_ledger(epsilon),
                                rng=gen, note="audit")

    return audit_event(mech, pair, lambda i: i == 0, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="choose_candidate (choice among candidate partitions)",
                       pair_name=f"{n} isolated nodes vs + edge {{0, 1}}, {k} candidates",
                       event_name="the only candidate separating 0 and 1 chosen")


def certificate(*, epsilon: float = 1.0, tau: float = 0.1, runs: int = 20_000, rng=0,
                confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.solve.certify.release_certificate` (docs/privacy.md 4.13: Laplace at
    sensitivity ``1 + tau`` on the verified bound ``f(G)`` of
    :func:`~dpgraph.solve.certify.input_sdp_bound`) at ``eps_c = epsilon``, on the edge
    ``{2, 3}`` (plus isolated 0, 1) vs + ``{0, 1}``: the relaxation moves by exactly 1. Each
    graph's ``f`` is verified once (seed 0) at gap ``tau``; the event is the released value, as
    drawn, at or above the second graph's ``f``: ``P1 / P0 = e^{eps_c (f_1 - f_0) / (1 + tau)}``,
    so the bound reaches at most ``(f_1 - f_0) / (1 + tau)`` of the claim
    (``details["attainable"]``): ``f - SDP`` is the same on both graphs here, and no pair
    known to us moves ``f`` by the whole ``1 + tau``. ``tau = 0.1`` keeps that near 0.9;
    :func:`dpgraph.max_cut` uses ``certify_gap(n) >= 0.5``."""
    from dpgraph.graph import as_graph_data
    from dpgraph.privacy.budget import certify_budget
    from dpgraph.solve.certify import input_sdp_bound, release_certificate

    G0, G1 = _graph_pair([(2, 3)], (0, 1), 4)
    bounds = tuple(input_sdp_bound(as_graph_data(G), rng=0, tau=tau) for G in (G0, G1))
    total = epsilon / certify_budget(1.0)  # the call's epsilon whose certificate share is eps_c

    def mech(bound, gen):
        return release_certificate(bound, epsilon=total, m_hat=None, ledger=_ledger(total),
                                   rng=gen, n=4)["noisy_bound"]

    f1 = bounds[1].value
    res = audit_event(mech, bounds, lambda noisy: noisy >= f1, epsilon=epsilon, runs=runs,
                      confidence=confidence, rng=rng,
                      mechanism_name="release_certificate (certified bound on the maximum cut)",
                      pair_name="edge {2, 3} vs + {0, 1} (n = 4): the relaxation moves by 1",
                      event_name=f"released bound, as drawn, at or above f_1 = {f1:.6g}")
    shift = bounds[1].value - bounds[0].value
    res.details.update(f=(bounds[0].value, f1), tau=tau, attainable=shift / (1.0 + tau))
    return res


def local_degrees(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
                  confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.release.routes.local.release_order` (docs/privacy.md 14.1: the degrees
    that fix the local route's order, Laplace, L1 sensitivity 2) at ``epsilon``, on 3 isolated
    nodes vs + edge ``{0, 1}``: two degrees move by 1. Event: both released at or above 1
    (``P1 / P0 = e^epsilon``, tight)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.local import release_order

    G0, G1 = _graph_pair([], (0, 1), 3)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def mech(data, gen):
        return release_order(data.degrees, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen)[0]

    return audit_event(mech, pair, _all_at_least([0, 1], [1.0, 1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="release_order (local route degrees)",
                       pair_name="3 isolated nodes vs + edge {0, 1}",
                       event_name="released degrees of 0 and 1 both at or above 1")


def _sweep_reads(rel, seen, n: int, scale: float, pair=(0, 1)) -> np.ndarray:
    """From a run of :func:`~dpgraph.release.routes.local.release_local_sides` with one node per
    batch and one refinement sweep (its ``n`` noisy fields the last ``n`` of the transcript's
    ``laplace`` records, node ``order[i]`` in the ``i``-th): for each endpoint ``v`` of
    ``pair``, its sweep field times the side its partner held when ``v`` was read -- the
    direction in which the pair moves it. The sides are replayed from the forward sides with
    the sweep's rule (flip where ``field x_v > scale``)."""
    x = rel.candidates[:, 0].copy()  # the forward pass's sides, where the sweep starts
    fields = [v for name, v in seen if name == "laplace"][-n:]
    lean = {}
    for v, field in zip(rel.order, fields):
        f = float(field[0])
        if v in pair:
            lean[v] = f * x[pair[1] if v == pair[0] else pair[0]]
        if f * x[v] > scale:
            x[v] = -x[v]
    return np.array([lean[pair[0]], lean[pair[1]]])


def local_sweep(*, epsilon: float = 1.0, runs: int = 5_000, rng=0,
                confidence: float = 0.95) -> AuditResult:
    """The local route's refinement sweep (docs/privacy.md 14.3: every node's field over all
    its neighbours' current sides, Laplace ``2 / eps_2``, L1 sensitivity 2), run inside
    :func:`dpgraph.release.routes.local.release_local_sides` with one node per batch and
    ``refine_share = 0.5`` at the total that makes ``eps_2 = epsilon``, on 3 isolated nodes vs
    + edge ``{0, 1}``. The pair moves both endpoints' sweep fields by 1, each towards the side
    its partner holds when it is read (replayed from the transcript, flips included). Event:
    both fields lean by at least 1 that way: given the transcript so far each has ratio
    ``e^{eps_2 / 2}``, the event ``e^{eps_2}`` (tight)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.local import DEGREE_SHARE, LocalPlan, release_local_sides

    G0, G1 = _graph_pair([], (0, 1), 3)
    pair = (as_graph_data(G0), as_graph_data(G1))
    share = 0.5
    plan = LocalPlan(first_batch=1, batch_growth=0.0, refine_share=share)
    total = epsilon / (share * (1.0 - DEGREE_SHARE))

    def mech(data, gen):
        with transcript() as seen:
            rel = release_local_sides(data, epsilon=total, ledger=_ledger(total), rng=gen,
                                      plan=plan)
        return _sweep_reads(rel, seen, 3, 2.0 / epsilon)

    return audit_event(mech, pair, _all_at_least([0, 1], [1.0, 1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="local route (refinement sweep)",
                       pair_name="3 isolated nodes vs + edge {0, 1}",
                       event_name="both endpoints' sweep fields lean >= 1 to the partner's "
                                  "side as read")


def local_core(*, epsilon: float = 1.0, runs: int = 2_000, rng=0,
               confidence: float = 0.95) -> AuditResult:
    """The local route's core (docs/privacy.md 14.2: randomized response on the core's pairs
    at ``eps_1``, de-biased and solved by the engine) on 2 nodes, both in the core
    (``LocalPlan(core=2)``), at the total that makes ``eps_1 = epsilon``: no edge vs the edge.
    The de-biased core matrix holds the released bit, and its maximum cut separates the two
    nodes exactly where the bit is 1. Event: they are separated (``P1 / P0 = e^eps_1``, tight).
    Each run solves the core with the engine (about 10 ms)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.release.routes.local import DEGREE_SHARE, LocalPlan, release_local_sides

    G0, G1 = _graph_pair([], (0, 1), 2)
    pair = (as_graph_data(G0), as_graph_data(G1))
    plan = LocalPlan(core=2)
    total = epsilon / (1.0 - DEGREE_SHARE)

    def mech(data, gen):
        rel = release_local_sides(data, epsilon=total, ledger=_ledger(total), rng=gen, plan=plan)
        return rel.candidates[0, 0] != rel.candidates[1, 0]

    return audit_event(mech, pair, lambda split: split, epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="local route (core's randomized response)",
                       pair_name="2 nodes (the core) without vs with their edge",
                       event_name="the core's cut separates 0 and 1")


def local_labels(*, epsilon: float = 1.0, labels: int = 20, runs: int = 5_000, rng=0,
                 confidence: float = 0.95) -> dict:
    """:func:`dpgraph.release.routes.local.release_local_labels` (docs/privacy.md 14.6, the
    local route of :func:`dpgraph.max_2csp`) with ``degree_share = 0.5`` at ``2 epsilon``, so
    that the constraint degrees and the label choices each take ``epsilon``; one variable per
    batch. Pair: 3 variables over ``labels`` values and no constraint vs + the equality
    constraint ``x_0 = x_1`` (weight 1). Events: ``"constraint degrees"``, both moved degrees
    released at or above 1 (Laplace, L1 sensitivity 2: ``e^eps``, tight); ``"labels"``, 0 and 1
    take the same label: without the constraint ``1 / q``, with it the later one's choice
    ``e^eps / (e^eps + q - 1)``, a ratio ``q e^eps / (e^eps + q - 1)`` (the exponential
    mechanism's, tending to ``e^eps`` as ``q`` grows). Returns ``{"constraint degrees": ...,
    "labels": ...}``."""
    from dpgraph.engine import CSPInstance
    from dpgraph.release.routes.local import LocalPlan, release_local_labels

    q = int(labels)
    same = {(a, a) for a in range(q)}
    pair = tuple(CSPInstance(3, q, cons) for cons in ([], [(0, 1, same, 1.0)]))
    plan = LocalPlan(first_batch=1, batch_growth=0.0)
    total = 2.0 * epsilon

    def mech(inst, gen):
        with transcript() as seen:
            x, _ = release_local_labels(inst.label_adjacency(), inst.variable_weights(), q,
                                        epsilon=total, ledger=_ledger(total), rng=gen,
                                        degree_share=0.5, plan=plan)
        return [v for name, v in seen if name == "laplace"][0], x

    at_least = _all_at_least([0, 1], [1.0, 1.0])
    return _audit_events(
        mech, pair, {"constraint degrees": (lambda o: at_least(o[0]), epsilon,
                                            "released degrees of 0 and 1 both at or above 1"),
                     "labels": (lambda o: o[1][0] == o[1][1], epsilon,
                                "variables 0 and 1 take the same label")},
        runs=runs, confidence=confidence, rng=rng,
        mechanism_name=f"release_local_labels ({q} labels, degree share 0.5)",
        pair_name="3 variables, no constraint vs + x_0 = x_1")


def csp_estimates(*, epsilon: float = 1.0, runs: int = 5_000, rng=0,
                  confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.max_2csp` on its default (local) route, the two estimate releases of
    docs/privacy.md 6.5: the total constraint weight (Laplace, sensitivity 1, ``0.5%`` of the
    call's epsilon) and the returned assignment's value (sensitivity 1, ``1%``), at the call's
    epsilon that makes the two sum to ``epsilon``. Pair: 2 variables, 2 values, no constraint
    vs one constraint allowing every pair of values (weight 1): the label choices see the same
    scores on every label (their distribution is the same on both), and the total and every
    assignment's value move by exactly 1. Event: both, as drawn, at or above their values with
    the constraint (``P1 / P0 = e^epsilon``, tight)."""
    from dpgraph.engine import CSPInstance
    from dpgraph.privacy.budget import CSP_ESTIMATE_SHARE, CSP_TOTAL_SHARE
    from dpgraph.solve.csp import max_2csp

    every = {(a, b) for a in range(2) for b in range(2)}
    pair = tuple(CSPInstance(2, 2, cons) for cons in ([], [(0, 1, every, 1.0)]))
    total = epsilon / (CSP_TOTAL_SHARE + CSP_ESTIMATE_SHARE)

    def mech(inst, gen):
        drawn = _observe_laplace(lambda: max_2csp(inst, epsilon=total, delta=0.0, rng=gen))
        return np.array([drawn[0][0], drawn[-1][0]])  # the total first, the value last

    return audit_event(mech, pair, _all_at_least([0, 1], [1.0, 1.0]), epsilon=epsilon,
                       runs=runs, confidence=confidence, rng=rng,
                       mechanism_name="max_2csp (local route): total weight and value",
                       pair_name="2 variables, no constraint vs + one allowing every pair",
                       event_name="released total weight and value both at or above 1")


def pca_gap(*, epsilon: float = 1.0, runs: int = 20_000, rng=0,
            confidence: float = 0.95) -> AuditResult:
    """The spectral-gap release of :func:`dpgraph.spectral.private_subspace` (docs/privacy.md
    3.2: ``sigma_r - sigma_{r+1}`` plus Laplace, sensitivity ``2 eta``) with rank 1 under
    ``EntryAdjacency(1)``, at the total whose gap share is ``epsilon``. Pair: ``M = 10 u u^T +
    5 v v^T`` with ``u, v = (e_1 +- e_2) / sqrt 2`` vs ``M + (e_1 e_2^T + e_2 e_1^T)``: the
    change is ``u u^T - v v^T``, so the top singular value rises by 1 and the second falls by
    1, the gap moves from 5 to 7 (Weyl's bound attained). Event: the released gap, as drawn, at
    or above 7 (``P1 / P0 = e^eps_g``, tight). The later steps run as in any call."""
    from dpgraph.spectral import EntryAdjacency, private_subspace
    from dpgraph.spectral.pca import DEFAULT_SUBSPACE_SPLIT

    M0 = np.array([[7.5, 2.5], [2.5, 7.5]])  # 10 u u^T + 5 v v^T
    M1 = M0 + np.array([[0.0, 1.0], [1.0, 0.0]])
    total = epsilon / DEFAULT_SUBSPACE_SPLIT.epsilon[0]

    def mech(M, gen):
        return _observe_laplace(lambda: private_subspace(
            M, 1, epsilon=total, delta=1e-6, adjacency=EntryAdjacency(1.0), rng=gen))[0]

    return audit_event(mech, (M0, M1), _all_at_least([0], [7.0]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="private_subspace: spectral gap (Alg. 5.2)",
                       pair_name="10 u u^T + 5 v v^T vs + symmetric pair entry 1 (gap 5 -> 7)",
                       event_name="released gap, as drawn, at or above 7")


# ------------------------------------------------------------------------------ synthetic, more


def privatize_block_model(*, epsilon: float = 1.0, runs: int = 5_000, rng=0,
                          confidence: float = 0.95) -> dict:
    """:func:`dpgraph.synthetic.block_model.release_block_model` (docs/privacy.md 7.1-7.3: the
    block model :func:`dpgraph.privatize` exports; block edge counts at ``count_share epsilon``,
    L1 sensitivity 1, and the inside / across degrees at the rest, L1 sensitivity 2) on blocks
    ``[0, 0, 1, 1]`` and the graph ``{0, 2}``, with a pair inside block 0 (``{0, 1}``) and a
    pair across (``{1, 3}``): one block count and two degrees move by 1 each. Event: every
    moved coordinate of both releases, as drawn, at or above its ``x1`` value (``P1 / P0 =
    e^epsilon``, tight). Returns ``{"inside": ..., "across": ...}``."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.block_model import (block_edge_counts, degree_split,
                                               release_block_model)

    blocks = np.array([0, 0, 1, 1])
    iu = np.triu_indices(2)
    out = {}
    for kind, extra in (("inside", (0, 1)), ("across", (1, 3))):
        G0, G1 = _graph_pair([(0, 2)], extra, 4)
        pair = (as_graph_data(G0), as_graph_data(G1))
        v0, v1 = (np.concatenate([block_edge_counts(d.weights, blocks)[iu],
                                  degree_split(d.weights, blocks).ravel()]) for d in pair)
        moved = np.flatnonzero(v0 != v1)

        def mech(data, gen):
            return np.concatenate(_observe_laplace(lambda: release_block_model(
                data, blocks, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen)))

        out[kind] = audit_event(
            mech, pair, _all_at_least(moved, v1[moved]), epsilon=epsilon, runs=runs,
            confidence=confidence, rng=rng,
            mechanism_name="release_block_model (privatize's synthetic block model)",
            pair_name=f"blocks [0, 0, 1, 1], edge {{0, 2}} vs + {kind} pair {set(extra)}",
            event_name=f"the {moved.size} moved coordinates at or above their x1 values")
    return out


def synthetic_supergraph(*, epsilon: float = 1.0, runs: int = 5_000, rng=0,
                         confidence: float = 0.95) -> AuditResult:
    """:func:`dpgraph.synthetic.communities.supergraph_communities` (docs/privacy.md 7.6 step
    1: the super-node edge counts, L1 sensitivity 1) on 4 nodes dealt into one super-node
    (``group_size = 4``), so that the pair is inside whatever the random deal: the graph
    ``{0, 2}`` vs + ``{1, 3}``, the count moves from 1 to 2. Event: the count, as drawn, at or
    above 2 (``P1 / P0 = e^epsilon``, tight)."""
    from dpgraph.graph import as_graph_data
    from dpgraph.synthetic.communities import supergraph_communities

    G0, G1 = _graph_pair([(0, 2)], (1, 3), 4)
    pair = (as_graph_data(G0), as_graph_data(G1))

    def mech(data, gen):
        return _observe_laplace(lambda: supergraph_communities(
            data, epsilon=epsilon, ledger=_ledger(epsilon), rng=gen, group_size=4))[0]

    return audit_event(mech, pair, _all_at_least([0], [2.0]), epsilon=epsilon, runs=runs,
                       confidence=confidence, rng=rng,
                       mechanism_name="supergraph_communities (super-node edge counts)",
                       pair_name="4 nodes in one super-node: edge {0, 2} vs + {1, 3}",
                       event_name="released count at or above 2")


# ---------------------------------------------------------------------------- mechanisms, more


def second_moment(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 20_000, rng=0,
                  confidence: float = 0.95, m: int = 20,
                  calibration_runs: int | None = None) -> AuditResult:
    """:func:`dpgraph.private_second_moment` (docs/privacy.md 2.6: symmetric Gaussian noise at
    Frobenius sensitivity ``sqrt 2 r^2 / m``, the diagonal at twice the variance) on ``m``
    unit rows, half ``e_1`` and half ``e_2``, with one ``e_1`` row replaced by ``e_2``: the
    moment moves by ``(e_2 e_2^T - e_1 e_1^T) / m``, the whole sensitivity, on the diagonal.
    Statistic: ``noisy[1, 1] - noisy[0, 0]`` of the raw release (the likelihood-ratio
    direction: it moves by ``2 / m`` against noise of sd ``2 sigma``), thresholded at the
    noise scale fitted on ``calibration_runs`` separate runs per input (default ``runs // 4``;
    0 plans from the claimed scale), as for :func:`cosine` (docs/audit.md 1). Tight."""
    from dpgraph.mechanisms import private_second_moment

    X0 = np.eye(2)[np.arange(m) % 2]
    X1 = X0.copy()
    X1[0] = [0.0, 1.0]  # an e_1 row replaced by e_2
    centers = tuple(float((X.T @ X / m)[1, 1] - (X.T @ X / m)[0, 0]) for X in (X0, X1))
    sd = 2.0 * analytic_gaussian_sigma(epsilon, delta, 1.0 / m)  # Delta / sqrt 2, Delta = sqrt 2 / m

    def mech(X, gen):
        N = private_second_moment(X, epsilon=epsilon, delta=delta, project=False,
                                  rng=gen).noisy
        return float(N[1, 1] - N[0, 0])

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (X0, X1), centers,
                           lambda s: centers[0] + np.linspace(-2.0, 8.0, 401) * s, sigma=sd,
                           epsilon=epsilon, delta=delta, runs=runs, calibration_runs=cal,
                           confidence=confidence, rng=rng,
                           mechanism_name="private_second_moment (raw release)",
                           pair_name=f"m={m} unit rows: an e_1 row vs e_2",
                           statistic_name="noisy[1, 1] - noisy[0, 0]")


def perturb_and_project(*, epsilon: float = 2.0, delta: float = 1e-2, runs: int = 20_000, rng=0,
                        confidence: float = 0.95,
                        calibration_runs: int | None = None) -> AuditResult:
    """:func:`dpgraph.perturb_and_project` with ``symmetric=True`` (docs/privacy.md 2.1:
    symmetric noise calibrated to ``sensitivity / sqrt 2`` on the upper triangle, the diagonal
    at twice the variance) at ``sensitivity = 1``, projected onto the unbounded box (the
    identity), on the 2 x 2 zero matrix vs the one with ``1 / sqrt 2`` in both off-diagonal
    entries: Frobenius distance 1, all of it on the one off-diagonal pair. Statistic: the
    released entry ``[0, 1]`` (it moves by ``1 / sqrt 2``, the whole weighted sensitivity, against
    noise of sd ``sigma``), thresholded at the noise scale fitted on ``calibration_runs``
    separate runs per input (default ``runs // 4``; 0 plans from the claimed scale), as for
    :func:`cosine` (docs/audit.md 1). Tight."""
    from dpgraph.mechanisms import Box
    from dpgraph.mechanisms import perturb_and_project as release

    c1 = 1.0 / math.sqrt(2.0)
    X0 = np.zeros((2, 2))
    X1 = np.array([[0.0, c1], [c1, 0.0]])
    sd = analytic_gaussian_sigma(epsilon, delta, c1)

    def mech(X, gen):
        return float(release(X, Box(), sensitivity=1.0, epsilon=epsilon, delta=delta,
                             symmetric=True, rng=gen).release[0, 1])

    cal = max(runs // 4, 1) if calibration_runs is None else calibration_runs
    return _gaussian_audit(mech, (X0, X1), (0.0, c1),
                           lambda s: np.linspace(-2.0, 8.0, 401) * s, sigma=sd,
                           epsilon=epsilon, delta=delta, runs=runs, calibration_runs=cal,
                           confidence=confidence, rng=rng,
                           mechanism_name="perturb_and_project (symmetric noise)",
                           pair_name="2 x 2: zero vs 1/sqrt 2 off the diagonal (Frobenius 1)",
                           statistic_name="released entry [0, 1]")


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
