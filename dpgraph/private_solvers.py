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
from .privacy._validate import check_delta, check_epsilon, check_number
from .privatize import (SCREEN_SHARE, PrivateGraph, check_private_graph_input, input_graph,
                        check_share, privatize, release_edge_count, screen, screens)
from .dask_graph import is_dask_input
from .progress import report
from .rr_posterior import prior_rank

__all__ = ["PrivateCutResult", "max_cut", "max_bisection", "candidate_objectives", "side_budgets"]

# Above this many nodes "auto" solves one objective (the de-biased release) instead of four and
# chooses among its roundings only: one solve of a dense n = 10,000 instance takes about a
# minute and a half on this machine (BENCHMARKS.md), and the goal is two minutes end to end.
_ONE_OBJECTIVE_ABOVE_N = 5000
# Solver tolerance of the candidate solves. The instances are noisy releases, and the private
# choice among the roundings of several objectives matters more than the last digits of any one
# SDP: at 1e-3 the four solves of a 1,000-node release take ~2.4 s instead of ~6 s at 1e-4
# with the same transfer ratio (BENCHMARKS.md, "Fit the NetworkX world").
SOLVER_TOL = 1e-3
# Burer-Monteiro rank of the candidate solves: at most 16 instead of the engine's default of up
# to 32 (each SDP product and rounding costs O(n^2 r) on the dense objectives); the releases'
# signal is of low rank, and the transfer ratios stay as they were (BENCHMARKS.md, "Fit the
# NetworkX world"). Passing solver_options={"rank": ...} overrides it.
SOLVER_MAX_RANK = 16


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
        The engine's result on the chosen objective (certificate, the engine's timings of its
        work on the release: post-processing, ...); its own best
        rounding on that objective may differ from ``partition``, which the private choice
        picked among all roundings.
    diagnostics : dict
        ``objective`` (the winner), ``candidates`` (objectives solved),
        ``candidate_partitions`` (distinct roundings chosen among), ``objective_values``
        (each solve's value on its own objective, post-processing). No timings: the time of
        work on the input is not covered by the guarantee (docs/privacy.md 11).
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
    try:
        names = (candidates,) if isinstance(candidates, str) else tuple(candidates)
    except TypeError:
        raise ValueError(f"candidates must be 'auto', an objective name or a sequence of "
                         f"names, got {candidates!r}") from None
    bad = [c for c in names if not isinstance(c, str) or c not in offered
           and not (prior_rank(c) is not None and "unbiased" in offered)]
    if not names or bad:
        raise ValueError(f"candidates={candidates!r}: this release ({pg.diagnostics.get('route')} "
                         f"route) offers {offered}")
    return names


def _solve(problem: str, G, *, epsilon, delta, rank, rng, kappa, estimate_share, select_share,
           candidates, solver_options, privatize_options, weight, route=None):
    from .csp import WeightOperator, as_weight_operator, solve_max_bisection, solve_max_cut
    from .csp import default_rank as default_sdp_rank
    from .csp.rounding import cut_values
    from .graph import as_graph_data

    gen = make_rng(rng)
    if isinstance(G, PrivateGraph):
        raise TypeError("max_cut needs the graph itself (it releases a private estimate of the "
                        "returned partition's cut); to reuse a release, solve it with "
                        "dpgraph.solve_max_cut(pg.weights(), labels=pg.labels)")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    kappa = check_number(kappa, name="kappa", low=0.0)
    estimate_share = check_share("estimate_share", estimate_share)
    select_share = check_share("select_share", select_share)
    if estimate_share + select_share >= 1:
        raise ValueError("estimate_share + select_share must be < 1 (the rest privatizes)")
    data = input_graph(G, weight=weight)
    if is_dask_input(data):
        route = "matrix-free"
    check_private_graph_input(data)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    # no synthetic-graph export: max_cut does not use it, so it pays nothing for it
    opts = {"synthetic_share": None, **(privatize_options or {})}
    if route is not None:
        opts["route"] = route
    forced_matrix_free = opts.get("route") == "matrix-free"
    # every refusal that needs no release, before the screening release below
    _precheck_solver(problem, candidates, solver_options)
    privatize(data, epsilon=epsilon, delta=delta, rank=rank, rng=None, _check_only=True,
              **opts)
    m_hat = None
    if forced_matrix_free or screens(data, opts.get("route", "auto"),
                                     opts.get("fallback", "randomized-response")):
        # the screening count, released here so that it can also size the side releases (on
        # the matrix-free route too, where nothing else needs it)
        screen_share = check_share("screen_share", opts.pop("screen_share", SCREEN_SHARE))
        m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
        if not forced_matrix_free:
            opts["edge_count"] = m_hat
    eps_select, eps_estimate = _side_budgets(epsilon, select_share, estimate_share, m_hat)
    shares = {k: opts[k] for k in ("degree_share", "tail_share", "core_share") if k in opts}
    if m_hat is not None and not forced_matrix_free and screen(m_hat, data.n, epsilon - ledger.spent[0] - eps_select
                                     - eps_estimate, delta, **shares)["predicted_pass"]:
        eps_select = 0.0  # the PCA route makes no choice (its budget goes to the PCA instead)
    pg = privatize(data, epsilon=epsilon - ledger.spent[0] - eps_select - eps_estimate,
                   delta=delta, rank=rank, rng=gen, **opts)
    ledger.extend(pg.ledger)
    names = _candidate_names(pg, candidates, rank)
    eta = max(float(pg.diagnostics.get("tail_estimate", 0.0)), float(kappa))
    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    matrix_free = pg.diagnostics.get("route") == "matrix-free"
    # the factor form's engine options (Burer-Monteiro rank, local search by size)
    route_options = pg.solver_options() if matrix_free else {}
    options = {"tol": SOLVER_TOL, "rank": min(default_sdp_rank(pg.n), SOLVER_MAX_RANK),
               **route_options, **(solver_options or {})}
    # the candidates are solved without the dual certificate; only the returned objective's
    # bound is certified, below (post-processing either way; it halves small-graph solve time)
    cert_method = options.pop("certificate", "auto")
    results, ops = [], []
    for k, name in enumerate(names, 1):
        report(f"solving objective {k}/{len(names)} ({name}) with the degree-2 SoS engine")
        # symmetric by construction: skip the engine's O(n^2) symmetry check of a dense input
        obj = pg.objective(name)
        if matrix_free:  # the factor form's low-rank operator (no n x n array)
            op = obj if isinstance(obj, WeightOperator) else as_weight_operator(obj, labels=pg.labels)
        else:
            op = as_weight_operator(obj, labels=pg.labels, check=False)
        ops.append(op)
        results.append(solver(op, rng=gen, certificate=False, **options))
    chosen, x = 0, results[0].x
    pool, owner = _candidate_pool(results)
    # NOT private: the input is read only through the releases below (cuts of fixed partitions;
    # on Dask edges each is one pass over the partitions)
    true_cuts = (data.cut_values if is_dask_input(data)
                 else lambda X, op=as_weight_operator(data): cut_values(op, X))
    if (pg.unbiased is not None or matrix_free) and pool.shape[1] > 1 and eps_select > 0:
        # Every candidate partition is fixed (post-processing); their cuts in the input are
        # monotone with sensitivity 1 under edge adjacency: docs/privacy.md 4.11.
        k = monotone_exponential_mechanism(
            true_cuts(pool.astype(np.float64)), sensitivity=1.0, epsilon=eps_select,
            ledger=ledger,
            name="choice among candidate partitions", rng=gen,
            note=f"{pool.shape[1]} distinct roundings of {len(names)} objectives {names}; "
                 f"monotone cuts (docs/privacy.md 4.11)")
        chosen, x = owner[k], pool[:, k].astype(np.float64)
    res = results[chosen]
    _certify_result(res, ops[chosen], balanced=problem != "maxcut", method=cert_method, rng=gen)
    assignment = {lab: int(xi > 0) for lab, xi in zip(pg.labels, x)}
    partition = ({lab for lab, xi in zip(pg.labels, x) if xi > 0},
                 {lab for lab, xi in zip(pg.labels, x) if xi < 0})
    # The partition is fixed now; its cut in the input has sensitivity 1 (4.10).
    estimate, _ = laplace_mechanism(
        float(np.ravel(true_cuts(x))[0]), sensitivity=1.0, epsilon=eps_estimate,
        ledger=ledger, name="cut of the returned partition", rng=gen,
        note="fixed partition; one edge changes its cut by <= 1 (docs/privacy.md 4.10)")
    if matrix_free:  # the factor form's own operator: no n x n array
        synthetic_op = pg.objective(names[chosen])
    else:
        synthetic_op = as_weight_operator(pg.weights(), check=False)
    synthetic_value = float(cut_values(synthetic_op, x))
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=float(estimate),
        synthetic_value=synthetic_value, sdp_bound=float(res.upper_bound), eta=eta,
        ledger=ledger, private_graph=pg, solver=res,
        diagnostics={"objective": names[chosen], "candidates": names,
                     "route": pg.diagnostics.get("route"), "rank": pg.diagnostics.get("rank"),
                     **({"rank_note": pg.diagnostics["rank_note"]}
                        if "rank_note" in pg.diagnostics else {}),
                     "candidate_partitions": int(pool.shape[1]),
                     "objective_values": {n: float(r.value) for n, r in zip(names, results)}})


_KNOWN_OBJECTIVES = ("synthetic", "low-rank", "unbiased", "posterior-degree")


def _precheck_solver(problem: str, candidates, solver_options) -> None:
    """Refuse, before any release, engine options the solver does not take and objective names
    no route offers (which ones a release offers depends on its route: checked again after)."""
    import inspect

    from .csp import solve_max_bisection, solve_max_cut

    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    params = inspect.signature(solver).parameters
    bad = sorted(set(solver_options or {}) - set(params) - {"G"})
    if bad:
        raise TypeError(f"solver_options {bad} are not options of dpgraph.{solver.__name__} "
                        f"(it takes {', '.join(p for p in params if p != 'G')})")
    if not isinstance(candidates, str) or candidates != "auto":
        try:
            names = (candidates,) if isinstance(candidates, str) else tuple(candidates)
        except TypeError:
            raise TypeError(f"candidates must be 'auto', an objective name or a sequence of "
                            f"names, got {candidates!r}") from None
        unknown = [c for c in names if not isinstance(c, str)
                   or (c not in _KNOWN_OBJECTIVES and prior_rank(c) is None)]
        if not names or unknown:
            raise ValueError(f"candidates={candidates!r}: objectives are 'auto' or among "
                             f"{_KNOWN_OBJECTIVES} and 'posterior-lowrank-<k>'")


def _certify_result(res, op, *, balanced: bool, method, rng) -> None:
    """Replace the bound of a solve run with ``certificate=False`` by the certified dual bound of
    its SDP factor (:func:`dpgraph.csp.certify_upper_bound`), in place: ``upper_bound``, ``gap``,
    ``info`` and ``timings["certificate"]``. ``method=False`` keeps the trivial bound."""
    from .csp import certify_upper_bound

    if method is None or method is False or method == "none":
        return
    t = time.perf_counter()
    ub, cert = certify_upper_bound(op, res.V, nu=float(res.info.get("multiplier", 0.0)),
                                   balance=balanced, method=method, rng=rng)
    ub = min(float(ub), float(res.upper_bound))  # both are certified; keep the smaller
    if ub < res.upper_bound:
        res.info.update(cert)
        res.upper_bound = ub
    res.timings["certificate"] = time.perf_counter() - t
    denom = max(abs(ub), 1e-300)
    scale = op.abs_total() if hasattr(op, "abs_total") else abs(ub)
    res.gap = 0.0 if ub - res.value <= 1e-12 * scale or scale == 0 else (ub - res.value) / denom
    res.info["sdp_gap"] = (ub - res.sdp_value) / denom if ub != 0 or res.sdp_value != 0 else 0.0


def candidate_objectives(pg: PrivateGraph, candidates="auto", rank: int | None = None) -> tuple:
    """The objectives :func:`max_cut` solves on the release ``pg`` (``candidates`` as there;
    validated against :meth:`PrivateGraph.objective_names`). Used by :func:`dpgraph.max_2csp`.

    >>> import networkx as nx, dpgraph
    >>> pg = dpgraph.privatize(nx.path_graph(6), epsilon=1.0, delta=1e-6, rank=2, rng=0)
    >>> candidate_objectives(pg, "unbiased")
    ('unbiased',)
    """
    return _candidate_names(pg, candidates, rank)


def side_budgets(epsilon: float, select_share: float, estimate_share: float,
                 m_hat: float | None = None) -> tuple[float, float]:
    """Epsilon of the private choice and of the Laplace estimate (see ``_side_budgets``);
    ``m_hat`` is a released size of the objective's scale (edge count / constraint weight).

    >>> side_budgets(1.0, 0.04, 0.01)
    (0.04, 0.01)
    """
    return _side_budgets(epsilon, select_share, estimate_share, m_hat)


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


def max_cut(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
            kappa: float = 0.0, estimate_share: float = 0.01, select_share: float = 0.04,
            candidates="auto", solver_options: dict | None = None,
            privatize_options: dict | None = None, route: str | None = None,
            weight: str | None = "weight") -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Cut of ``G`` (d'Orsi & Novikov, Alg. 7.13).

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts (edge weights in [0, 1]).
    epsilon, delta : float
        Privacy budget of the whole call.
    rank : int or None
        Rank of the private low-rank estimate; ``None`` (default): 8, capped at ``n - 2`` on
        graphs with fewer than 10 nodes (``private_graph.diagnostics["rank_note"]``).
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
    route : str, optional
        ``route`` of :func:`dpgraph.privatize` (overrides ``privatize_options["route"]``).
        On the matrix-free route (``"matrix-free"``, or ``"auto"`` on large graphs) the engine
        runs on the release's low-rank operator (no n x n array), every distinct rounding is a
        candidate for the private choice (4.11), and their cuts in the input, like the
        estimate's, are computed by sparse products; with ``route="matrix-free"`` the edge
        count is released first (0.5% of epsilon, as for the screening) to size the choice and
        the estimate (docs/privacy.md 5.5).
    weight : str or None
        Edge attribute holding the weight (NetworkX, igraph; default ``"weight"``); ``None``
        treats every edge as weight 1, as NetworkX does. Weights must lie in [0, 1].

    Returns
    -------
    PrivateCutResult

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> res = dpgraph.max_cut(nx.karate_club_graph(), epsilon=4.0, delta=1e-6, weight=None,
    ...                       rng=1)
    >>> len(res.assignment), res.ledger.spent <= (4.0, 1e-6)
    (34, True)
    """
    return _solve("maxcut", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options, route=route, weight=weight)


def max_bisection(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
                  kappa: float = 0.0, estimate_share: float = 0.01, select_share: float = 0.04,
                  candidates="auto", solver_options: dict | None = None,
                  privatize_options: dict | None = None,
                  route: str | None = None,
                  weight: str | None = "weight") -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Bisection of ``G`` (d'Orsi & Novikov, Thm 7.19).

    Same as :func:`max_cut`, with the balanced engine: the sides differ in size by at most 1.
    """
    return _solve("bisection", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options, route=route, weight=weight)
