"""Private Max-Cut and Max-Bisection: privatize, solve candidate objectives, choose privately.

d'Orsi & Novikov Alg. 7.13 (Max-Cut) and Thm 7.19 (Max-Bisection): release a private
synthetic graph (:func:`dpgraph.privatize`), then run the degree-2 sum-of-squares engine with
global correlation rounding (:mod:`dpgraph.csp`) on it. On the randomized-response route (every
sparse graph) the release supports several objectives: the de-biased release and posterior-mean
weights under empirical-Bayes priors (:mod:`dpgraph.rr_posterior`). Each is solved (post-
processing); one partition is chosen by the monotone exponential mechanism on the candidates'
cuts in the input (sensitivity 1, docs/privacy.md 4.11); a last Laplace release estimates the
chosen partition's cut (4.10). The ledger holds every charge; the total is the requested budget.

What comes back is private: the partition, the noisy estimate of its cut, its cut *on the
synthetic graph* and the certified SDP bound *of the instance it was solved on*. No unprivatized
statistic of the input is returned; score a partition on a graph you may see with
:func:`dpgraph.evaluate.cut_value` (not private).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .privacy import (PrivacyLedger, reproducible_tag, laplace_mechanism, make_rng,
                      monotone_exponential_mechanism)
from .privacy._validate import check_delta, check_epsilon
from .privatize import (DEFAULT_RANK, SCREEN_SHARE, PrivateGraph, check_private_graph_input,
                        check_share, privatize, release_edge_count, screen, screens)
from .progress import report
from .rr_posterior import prior_rank

__all__ = ["PrivateCutResult", "max_cut", "max_bisection"]

# Above this many nodes "auto" solves one objective (the de-biased release) instead of four and
# chooses among its roundings only: one solve of a dense n = 10,000 instance takes about a
# minute and a half on this machine (BENCHMARKS.md), and the goal is two minutes end to end.
_ONE_OBJECTIVE_ABOVE_N = 5000


@dataclass(eq=False)
class PrivateCutResult:
    """Result of :func:`max_cut` / :func:`max_bisection`.

    Attributes
    ----------
    partition : tuple of two sets
        The two sides, in the caller's node labels.
    assignment : dict
        label -> 0/1.
    estimated_value : float
        Private, unbiased estimate of the cut of ``partition`` in the input graph: its true cut
        plus Laplace noise (sensitivity 1, ``estimate_share`` of epsilon).
    synthetic_value : float
        Cut of ``partition`` on the exported synthetic graph (post-processing; biased upward on
        sparse graphs, where the partition is chosen on the same noise).
    sdp_bound : float
        Certified upper bound of the degree-2 SoS relaxation of the instance the partition was
        solved on (the chosen objective, ``diagnostics["objective"]``).
    eta : float
        ``max(sigma_{r+1} estimate, kappa)`` of Alg. 7.13 step 4 (private).
    ledger : PrivacyLedger
    private_graph : PrivateGraph
    solver : object
        The engine's result on the chosen objective (timings, certificate, ...); its own best
        rounding on that objective may differ from ``partition``, which the private choice
        picked among all roundings.
    diagnostics : dict
        ``objective`` (the winner), ``candidates`` (objectives solved),
        ``candidate_partitions`` (distinct roundings chosen among), ``objective_values``
        (each solve's value on its own objective, post-processing), timings.
    """

    partition: tuple
    assignment: dict
    estimated_value: float
    synthetic_value: float
    sdp_bound: float
    eta: float
    ledger: object
    private_graph: PrivateGraph
    solver: object
    diagnostics: dict = field(default_factory=dict)

    @property
    def halted(self) -> bool:
        return self.private_graph.halted

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        return (f"PrivateCutResult(sides=({len(self.partition[0])}, {len(self.partition[1])}), "
                f"estimated_value={self.estimated_value:.6g}, synthetic_value={self.synthetic_value:.6g}, "
                f"sdp_bound={self.sdp_bound:.6g}, "
                f"epsilon={eps:.4g}, delta={dlt:.3g}, rank={self.private_graph.rank}, "
                f"halted={self.halted}{reproducible_tag(self.ledger)})")


def _candidate_names(pg: PrivateGraph, candidates, rank: int) -> tuple:
    offered = pg.objective_names(rank)
    if candidates == "auto":
        if pg.n > _ONE_OBJECTIVE_ABOVE_N and "unbiased" in offered:  # the time goal
            return ("unbiased",)
        return offered
    names = (candidates,) if isinstance(candidates, str) else tuple(candidates)
    bad = [c for c in names if c not in offered
           and not (prior_rank(c) is not None and "unbiased" in offered)]
    if not names or bad:
        raise ValueError(f"candidates={candidates!r}: this release ({pg.diagnostics.get('route')} "
                         f"route) offers {offered}")
    return names


def _solve(problem: str, G, *, epsilon, delta, rank, rng, kappa, estimate_share, select_share,
           candidates, solver_options, privatize_options):
    from .csp import solve_max_bisection, solve_max_cut
    from .csp._operator import as_weight_operator
    from .csp.rounding import cut_values
    from .graph import as_graph_data

    gen = make_rng(rng)
    t0 = time.perf_counter()
    if isinstance(G, PrivateGraph):
        raise TypeError("max_cut needs the graph itself (it releases a private estimate of the "
                        "returned partition's cut); to reuse a release, solve it with "
                        "dpgraph.solve_max_cut(pg.weights(), labels=pg.labels)")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    estimate_share = check_share("estimate_share", estimate_share)
    select_share = check_share("select_share", select_share)
    if estimate_share + select_share >= 1:
        raise ValueError("estimate_share + select_share must be < 1 (the rest privatizes)")
    data = as_graph_data(G)
    check_private_graph_input(data)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    # no synthetic-graph export: max_cut does not use it, so it pays nothing for it
    opts = {"synthetic_share": None, **(privatize_options or {})}
    m_hat = None
    if screens(data, opts.get("route", "auto"), opts.get("fallback", "randomized-response")):
        # the screening count, released here so that it can also size the side releases
        screen_share = check_share("screen_share", opts.pop("screen_share", SCREEN_SHARE))
        m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
        opts["edge_count"] = m_hat
    eps_select, eps_estimate = _side_budgets(epsilon, select_share, estimate_share, m_hat)
    shares = {k: opts[k] for k in ("degree_share", "tail_share", "core_share") if k in opts}
    if m_hat is not None and screen(m_hat, data.n, epsilon - ledger.spent[0] - eps_select
                                     - eps_estimate, delta, **shares)["predicted_pass"]:
        eps_select = 0.0  # the PCA route makes no choice (its budget goes to the PCA instead)
    pg = privatize(data, epsilon=epsilon - ledger.spent[0] - eps_select - eps_estimate,
                   delta=delta, rank=rank, rng=gen, **opts)
    ledger.extend(pg.ledger)
    t_priv = time.perf_counter() - t0
    names = _candidate_names(pg, candidates, rank)
    eta = max(float(pg.diagnostics.get("tail_estimate", 0.0)), float(kappa))
    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    # tol 1e-4: the synthetic instance is noisy anyway, and on dense n = 2000 instances it is
    # 4x faster than 1e-6 with a certified gap of ~4e-5 (BENCHMARKS.md, CSP engine)
    options = {"tol": 1e-4, **(solver_options or {})}
    t0 = time.perf_counter()
    results = []
    for k, name in enumerate(names, 1):
        report(f"solving objective {k}/{len(names)} ({name}) with the degree-2 SoS engine")
        results.append(solver(pg.objective(name), labels=pg.labels, rng=gen, **options))
    t_solve = time.perf_counter() - t0
    chosen, x = 0, results[0].x
    pool, owner = _candidate_pool(results)
    true_op = as_weight_operator(data)  # NOT private: read only through the releases below
    if pg.unbiased is not None and pool.shape[1] > 1:  # the randomized-response route
        # Every candidate partition is fixed (post-processing); their cuts in the input are
        # monotone with sensitivity 1 under edge adjacency: docs/privacy.md 4.11.
        k = monotone_exponential_mechanism(
            cut_values(true_op, pool.astype(np.float64)), sensitivity=1.0, epsilon=eps_select,
            ledger=ledger,
            name="choice among candidate partitions", rng=gen,
            note=f"{pool.shape[1]} distinct roundings of {len(names)} objectives {names}; "
                 f"monotone cuts (docs/privacy.md 4.11)")
        chosen, x = owner[k], pool[:, k].astype(np.float64)
    res = results[chosen]
    assignment = {lab: int(xi > 0) for lab, xi in zip(pg.labels, x)}
    partition = ({lab for lab, xi in zip(pg.labels, x) if xi > 0},
                 {lab for lab, xi in zip(pg.labels, x) if xi < 0})
    # The partition is fixed now; its cut in the input has sensitivity 1 (4.10).
    estimate, _ = laplace_mechanism(
        float(cut_values(true_op, x)), sensitivity=1.0, epsilon=eps_estimate,
        ledger=ledger, name="cut of the returned partition", rng=gen,
        note="fixed partition; one edge changes its cut by <= 1 (docs/privacy.md 4.10)")
    synthetic_value = float(cut_values(as_weight_operator(pg.weights(), check=False), x))
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=float(estimate),
        synthetic_value=synthetic_value, sdp_bound=float(res.upper_bound), eta=eta,
        ledger=ledger, private_graph=pg, solver=res,
        diagnostics={"timings": {"privatize": t_priv, "solve": t_solve},
                     "objective": names[chosen], "candidates": names,
                     "candidate_partitions": int(pool.shape[1]),
                     "objective_values": {n: float(r.value) for n, r in zip(names, results)}})


def _side_budgets(epsilon: float, select_share: float, estimate_share: float,
                  m_hat: float | None) -> tuple[float, float]:
    """Epsilon of the choice (4.11) and of the estimate (4.10).

    At most ``select_share`` / ``estimate_share`` of epsilon, and no more than what puts the
    choice's Gumbel scale at 0.1% and the estimate's Laplace scale at 0.5% of the released
    edge count ``m_hat`` (cuts are of order m / 2). Both releases need a fixed *absolute*
    epsilon for a given accuracy, so at large epsilon they take an ever smaller share and the
    rest goes to the release that limits the answer. A function of released values only.
    """
    eps_s, eps_e = select_share * epsilon, estimate_share * epsilon
    if m_hat is None:
        return eps_s, eps_e
    m = max(float(m_hat), 1.0)
    return min(eps_s, 1000.0 / m), min(eps_e, 200.0 / m)


def _candidate_pool(results) -> tuple[np.ndarray, list]:
    """Distinct rounded partitions (up to the global sign flip) of all solves, and the index of
    the solve each came from (its first occurrence)."""
    seen, cols, owner = set(), [], []
    for k, r in enumerate(results):
        R = r.info.get("rounded", np.asarray(r.x, dtype=np.int8)[:, None])
        for c in range(R.shape[1]):
            col = R[:, c] if R[0, c] > 0 else -R[:, c]
            key = col.tobytes()
            if key not in seen:
                seen.add(key)
                cols.append(col)
                owner.append(k)
    return np.stack(cols, axis=1), owner


def max_cut(G, *, epsilon: float, delta: float, rank: int = DEFAULT_RANK, rng=None,
            kappa: float = 0.0, estimate_share: float = 0.01, select_share: float = 0.04,
            candidates="auto", solver_options: dict | None = None,
            privatize_options: dict | None = None) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Cut of ``G`` (d'Orsi & Novikov, Alg. 7.13).

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts (edge weights in [0, 1]).
    epsilon, delta : float
        Privacy budget of the whole call.
    rank : int
        Rank of the private low-rank estimate.
    rng : None, int or numpy.random.Generator
    kappa : float
        Accuracy floor of Alg. 7.13 step 4: ``eta = max(sigma_{r+1} estimate, kappa)``.
    estimate_share : float
        At most this fraction of epsilon (default 0.01) goes to the private estimate of the
        returned partition's cut (Laplace; 4.10).
    select_share : float
        At most this fraction of epsilon (default 0.04) goes to choosing among the candidate
        partitions (every distinct rounding of every objective's solve; monotone exponential
        mechanism on their cuts in the input; docs/privacy.md 4.11). None on the PCA route.
        On unweighted graphs 0.5% of epsilon first releases the edge count ``m^`` (the
        screening of :func:`dpgraph.privatize`), and the two side releases take no more than
        what puts their noise scales at 0.1% (choice) and 0.5% (estimate) of ``m^``: at epsilon
        1 on a 20,000-edge graph they take the full 4% and 1%, at epsilon 4 1.25% and 0.25%.
        The rest of epsilon and all of delta go to :func:`dpgraph.privatize`.
    candidates : "auto", str or sequence of str
        Objectives solved on the release (:meth:`PrivateGraph.objective_names`). On the
        randomized-response route ``"auto"`` solves the de-biased release and three
        empirical-Bayes posterior objectives (only the de-biased release above 5,000 nodes),
        then picks one of all their distinct roundings privately; measured, no single objective
        is best on every graph (BENCHMARKS.md). On the PCA route: the synthetic graph, and the
        engine's best rounding on it (no choice; nothing is reserved for one).
    solver_options, privatize_options : dict
        Passed to :func:`dpgraph.csp.solve_max_cut` and :func:`dpgraph.privatize`.

    Returns
    -------
    PrivateCutResult

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> G = nx.karate_club_graph()
    >>> res = dpgraph.max_cut(nx.Graph(G.edges()), epsilon=4.0, delta=1e-6, rank=2, rng=1)
    >>> sorted(map(len, res.partition)) and len(res.assignment)
    34
    """
    return _solve("maxcut", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options)


def max_bisection(G, *, epsilon: float, delta: float, rank: int = DEFAULT_RANK, rng=None,
                  kappa: float = 0.0, estimate_share: float = 0.01, select_share: float = 0.04,
                  candidates="auto", solver_options: dict | None = None,
                  privatize_options: dict | None = None) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Bisection of ``G`` (d'Orsi & Novikov, Thm 7.19).

    Same as :func:`max_cut`, with the balanced engine: the sides differ in size by at most 1.
    """
    return _solve("bisection", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options)
