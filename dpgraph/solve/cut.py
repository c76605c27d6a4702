"""Private Max-Cut and Max-Bisection: privatize, solve candidate objectives, choose privately.

d'Orsi & Novikov Alg. 7.13 (Max-Cut) and Thm 7.19 (Max-Bisection): release a private
synthetic graph (:func:`dpgraph.privatize`), then run the degree-2 sum-of-squares engine with
global correlation rounding (:mod:`dpgraph.engine`) on it. On the randomized-response route (every
sparse graph) the release supports several objectives: the de-biased release and posterior-mean
weights under empirical-Bayes priors (:mod:`dpgraph.release.posterior`). Each is solved (post-
processing); one partition is chosen by the monotone exponential mechanism on the candidates'
cuts in the input (sensitivity 1, docs/privacy.md 4.11); a last Laplace release estimates the
chosen partition's cut (4.10). The ledger holds every charge; the total is the requested budget.

What comes back is private: the partition, the noisy estimate of its cut, its cut *on the
synthetic graph* and the certified SDP bound *of the instance it was solved on*. No unprivatized
statistic of the input is returned; score a partition on a graph you may see with
:func:`dpgraph.lab.evaluate.cut_value` (not private).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dpgraph.result import Result
from dpgraph.privacy import (PrivacyLedger, reproducible_tag, laplace_mechanism, make_rng,
                      monotone_exponential_mechanism)
from dpgraph.privacy.validation import check_choice, check_delta, check_epsilon, check_number
from dpgraph.release.privatize import PrivateGraph, check_rank, privatize
from dpgraph.privacy.budget import SCREEN_SHARE
from dpgraph.release.screening import MATRIX_FREE_MIN_N, release_edge_count
from dpgraph.privacy.validation import check_share
from dpgraph.private_input import check_private_graph_input, input_graph
from dpgraph.release.routes import ROUTES, route_spec
from dpgraph.release.routes.local import (DEGREE_SHARE as LOCAL_DEGREE_SHARE, LocalPrivateGraph,
                           balance_sides, plan_local, release_local_sides)
from dpgraph.io.dask import is_dask_input
from dpgraph.progress import report
from dpgraph.release.posterior import prior_rank

__all__ = ["PrivateCutResult", "max_cut", "max_bisection", "candidate_objectives", "side_budgets"]

# Above this many nodes "auto" solves one objective (the de-biased release) instead of four and
# chooses among its roundings only: one solve of a dense n = 10,000 instance takes about a
# minute and a half on this machine (BENCHMARKS.md), and the goal is two minutes end to end.
_ONE_OBJECTIVE_ABOVE_N = 5000
# Solver tolerance of the candidate solves. The instances are noisy releases, and the private
# choice among the roundings of several objectives matters more than the last digits of any one
# SDP: at 1e-3 the four solves of a 1,000-node release take ~2.4 s instead of ~6 s at 1e-4
# with the same transfer ratio (benchmarks/NOTES.md, "Small graphs").
SOLVER_TOL = 1e-3
# Burer-Monteiro rank of the candidate solves: at most 16 instead of the engine's default of up
# to 32 (each SDP product and rounding costs O(n^2 r) on the dense objectives); the releases'
# signal is of low rank, and the transfer ratios stay as they were (benchmarks/NOTES.md,
# "Small graphs"). Passing solver_options={"rank": ...} overrides it.
SOLVER_MAX_RANK = 16


@dataclass(eq=False)
class PrivateCutResult(Result):
    """Result of :func:`max_cut` / :func:`max_bisection`.

    Attributes
    ----------
    partition : tuple of two sets
        The two sides, in the caller's node labels.
    assignment : dict
        label -> 0/1.
    estimated_value : float or None
        Private estimate of the cut of ``partition`` in the input graph: its true cut plus
        Laplace noise (sensitivity 1; docs/privacy.md 4.10), clamped to the feasible range
        ``[0, released edge count]`` (its 95% upper end; post-processing). None with
        ``estimate=False``.
    estimate_interval : tuple of float or None
        A ``estimate_level`` (95%) confidence interval for the true cut: the Laplace draw
        ``+- b ln(1 / (1 - level))`` clamped like the estimate (post-processing).
    estimate_level : float
    synthetic_value : float or None
        Cut of ``partition`` on the exported synthetic graph (post-processing; biased upward on
        sparse graphs, where the partition is chosen on the same noise). None on the local
        route, which releases sides rather than a weighted graph.
    sdp_bound : float or None
        Certified upper bound of the degree-2 SoS relaxation of the *released instance* the
        partition was solved on (the chosen objective, ``diagnostics["objective"]``): a bound
        on that synthetic instance, not on the input graph. None on the local route.
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

    BOUND = "sdp_bound"

    @property
    def value(self) -> float | None:
        """``estimated_value``: the private estimate of the answer's value on the input."""
        return self.estimated_value


    partition: tuple
    assignment: dict
    estimated_value: float | None
    synthetic_value: float | None
    sdp_bound: float | None
    eta: float
    ledger: object
    private_graph: PrivateGraph
    solver: object
    diagnostics: dict = field(default_factory=dict)
    estimate_interval: tuple | None = None
    estimate_level: float = 0.95

    @property
    def halted(self) -> bool:
        return self.private_graph.halted

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        req_eps, req_dlt = self.ledger.epsilon, self.ledger.delta
        parts = [f"sides=({len(self.partition[0])}, {len(self.partition[1])})",
                 f"route={self.diagnostics.get('route')!r}"]
        if self.estimated_value is not None:
            lo, hi = self.estimate_interval
            parts.append(f"estimated_value={self.estimated_value:.6g} "
                         f"[{self.estimate_level:.0%} CI {lo:.6g}, {hi:.6g}]")
        if self.synthetic_value is not None:
            parts.append(f"synthetic_value={self.synthetic_value:.6g}")
        if self.sdp_bound is not None:
            parts.append(f"sdp_bound_of_release={self.sdp_bound:.6g}")
        spent = f"spent=(epsilon={eps:.4g}, delta={dlt:.3g})"
        if req_eps is not None:
            spent += f" of requested (epsilon={req_eps:.4g}, delta={req_dlt:.3g})"
            why = self.diagnostics.get("unspent")
            if why:
                spent += f" [{why}]"
        parts.append(spent)
        rank = self.diagnostics.get("rank", self.private_graph.rank)
        if rank is not None:
            parts.append(f"rank={rank}")
        return (f"PrivateCutResult({', '.join(parts)}, halted={self.halted}"
                f"{reproducible_tag(self.ledger)})")


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


# route="auto" takes the matrix-free route from this released density on (large graphs only): on
# planted graphs it is exact from mean degree x epsilon of about 200 and random below
# (BENCHMARKS.md, "Million-node graphs"); the local route is never random.
MATRIX_FREE_FROM = 200.0


def answer_route(n: int, m_hat: float, epsilon: float, delta: float) -> str:
    """The route ``route="auto"`` takes for a private answer (a function of public ``n``, the
    released edge count ``m_hat`` and the budget only; no privacy cost).

    The matrix-free route when the graph is large (``n >= MATRIX_FREE_MIN_N``) and the released
    density ``rho = 2 m_hat epsilon / n`` is at least ``MATRIX_FREE_FROM`` (200; where its global
    low-rank release carries the cut: planted graphs, BENCHMARKS.md) and ``delta > 0``; the
    degree-ordered local route otherwise (real graphs, whose cut structure is local).

    >>> answer_route(4039, 88234, 1.0, 1e-6), answer_route(100000, 5e6, 2.0, 1e-6)
    ('local', 'matrix-free')
    """
    rho = 2.0 * max(float(m_hat), 0.0) * float(epsilon) / max(int(n), 1)
    if delta > 0 and n >= MATRIX_FREE_MIN_N and rho >= MATRIX_FREE_FROM:
        return "matrix-free"
    return "local"


def _solve(problem: str, G, *, epsilon, delta, rank, rng, kappa, estimate_share, select_share,
           candidates, solver_options, privatize_options, weight, route=None, estimate=True):
    from dpgraph.engine import WeightOperator, as_weight_operator, solve_max_bisection, solve_max_cut
    from dpgraph.engine import default_rank as default_sdp_rank
    from dpgraph.engine.rounding import cut_values
    gen = make_rng(rng)
    if isinstance(G, PrivateGraph):
        raise TypeError("max_cut needs the graph itself (it releases a private estimate of the "
                        "returned partition's cut); to reuse a release, solve it with "
                        "dpgraph.solve_max_cut(pg.weights(), labels=pg.labels)")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    kappa = check_number(kappa, name="kappa", low=0.0)
    estimate_share = check_share("estimate_share", estimate_share)
    select_share = check_share("select_share", select_share)
    if estimate_share + select_share >= 1:
        raise ValueError("estimate_share + select_share must be < 1 (the rest privatizes)")
    data = input_graph(G, weight=weight)
    check_private_graph_input(data)
    if rank is not None:  # refused before anything is spent, whichever route runs
        check_rank(rank, data.n)
    # no synthetic-graph export: max_cut does not use it, so it pays nothing for it
    opts = {"synthetic_share": None, **(privatize_options or {})}
    if route is not None:
        opts["route"] = route
    requested = check_choice(opts.get("route", "auto"), name="route", choices=("auto", *ROUTES))
    if delta == 0 and requested != "auto" and not route_spec(requested).pure:
        raise ValueError(f"delta=0 asks for pure epsilon-DP, which route={requested!r} does not "
                         f"give; use route='local' or route='randomized-response' (pure), or "
                         f"pass delta > 0")
    # every refusal that needs no release, before the screening release below
    _precheck_solver(problem, candidates, solver_options)
    privatize(data, epsilon=epsilon, delta=delta, rank=rank, rng=None, _check_only=True,
              **{**opts, "route": "local" if requested == "auto" else requested})
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    m_hat, m_upper = None, data.n * (data.n - 1) / 2.0
    if requested in ("auto", "matrix-free", "local"):
        # the screening count (docs/privacy.md 4.9), released here so that it can also choose
        # the route and size the side releases
        screen_share = check_share("screen_share", opts.pop("screen_share", SCREEN_SHARE))
        m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
        # the feasible range of a cut, as released: up to the 95% upper end of m^ (<= n(n-1)/2)
        m_upper = min(data.n * (data.n - 1) / 2.0,
                      max(m_hat, 0.0) + np.log(20.0) / (screen_share * epsilon))
        if requested == "auto":
            requested = answer_route(data.n, m_hat, epsilon, delta)
            opts["route"] = requested
    if route_spec(requested).answers == "sides":
        return _solve_local(problem, data, ledger=ledger, rng=gen, m_hat=m_hat,
                            m_upper=m_upper, select_share=select_share,
                            estimate_share=estimate_share, estimate=estimate)
    eps_select, eps_estimate = _side_budgets(epsilon, select_share, estimate_share, m_hat)
    if not estimate:
        eps_estimate = 0.0
    if requested == "pca":
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
    true_cuts = _true_cuts(data)
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
    partition, assignment = _partition_of(pg.labels, x)
    # The partition is fixed now; its cut in the input has sensitivity 1 (4.10).
    value, interval = (None, None)
    if estimate:
        value, interval = release_estimate(float(np.ravel(true_cuts(x))[0]),
                                           epsilon=eps_estimate, ledger=ledger, rng=gen,
                                           upper=m_upper)
    if matrix_free:  # the factor form's own operator: no n x n array
        synthetic_op = pg.objective(names[chosen])
    else:
        synthetic_op = as_weight_operator(pg.weights(), check=False)
    synthetic_value = float(cut_values(synthetic_op, x))
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=value,
        estimate_interval=interval,
        synthetic_value=synthetic_value, sdp_bound=float(res.upper_bound), eta=eta,
        ledger=ledger, private_graph=pg, solver=res,
        diagnostics={"objective": names[chosen], "candidates": names,
                     "route": pg.diagnostics.get("route"), "rank": pg.diagnostics.get("rank"),
                     **({"rank_note": pg.diagnostics["rank_note"]}
                        if "rank_note" in pg.diagnostics else {}),
                     "candidate_partitions": int(pool.shape[1]),
                     **_unspent(ledger, route_spec(pg.diagnostics.get("route")).pure),
                     "objective_values": {n: float(r.value) for n, r in zip(names, results)}})


def release_estimate(cut_of_x: float, *, epsilon: float, ledger, rng, upper: float,
                     level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The private estimate of a fixed partition's cut (Laplace, sensitivity 1; docs/privacy.md
    4.10) and a ``level`` confidence interval, both clamped to ``[0, upper]`` (post-processing;
    ``upper``: the 95% upper end of the released edge count, at most ``n (n - 1) / 2``).

    ``P[|Laplace(b)| > t] = exp(-t / b)``, so ``t = b ln(1 / (1 - level))`` gives the interval.
    """
    noisy, b = laplace_mechanism(
        float(cut_of_x), sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="cut of the returned partition", rng=rng,
        note="fixed partition; one edge changes its cut by <= 1 (docs/privacy.md 4.10)")
    t = b * np.log(1.0 / (1.0 - level))
    clamp = lambda v: float(min(max(v, 0.0), upper))  # noqa: E731
    return clamp(noisy), (clamp(noisy - t), clamp(noisy + t))


def _solve_local(problem: str, data, *, ledger, rng, m_hat: float, m_upper: float,
                 select_share: float,
                 estimate_share: float, estimate: bool) -> PrivateCutResult:
    """Max-Cut / Max-Bisection on the degree-ordered local route (docs/privacy.md 14).

    The route's candidates (forward pass; refined sides when the plan has a sweep) are balanced
    for bisection by post-processing (:func:`dpgraph.release.routes.local.balance_sides`), one is chosen
    by the monotone exponential mechanism on their cuts (4.11) when there are two, and its cut
    is estimated (4.10). Pure epsilon-DP: delta is not spent.
    """
    epsilon = ledger.epsilon
    eps_left = epsilon - ledger.spent[0]
    plan = plan_local(data.n, m_hat, eps_left * (1.0 - LOCAL_DEGREE_SHARE),
                      passes_cost=is_dask_input(data))
    eps_select, eps_estimate = _side_budgets(epsilon, select_share, estimate_share, m_hat)
    if plan.refine_share == 0:
        eps_select = 0.0  # one candidate: nothing to choose
    if not estimate:
        eps_estimate = 0.0
    rel = release_local_sides(data, epsilon=eps_left - eps_select - eps_estimate, ledger=ledger,
                              rng=rng, plan=plan)
    cands = rel.candidates
    if problem != "maxcut":
        cands = np.stack([balance_sides(cands[:, j], rel.confidence)
                          for j in range(cands.shape[1])], axis=1)
    true_cuts = _true_cuts(data)  # NOT private: read only through the releases below
    chosen = cands.shape[1] - 1
    if cands.shape[1] > 1:
        chosen = monotone_exponential_mechanism(
            true_cuts(cands), sensitivity=1.0, epsilon=eps_select, ledger=ledger,
            name="choice among candidate partitions", rng=rng,
            note="forward-pass and refined sides of the local route; monotone cuts "
                 "(docs/privacy.md 4.11)")
    x = cands[:, chosen]
    value, interval = (None, None)
    if estimate:
        value, interval = release_estimate(float(np.ravel(true_cuts(x[:, None]))[0]),
                                           epsilon=eps_estimate, ledger=ledger, rng=rng,
                                           upper=m_upper)
    pg = LocalPrivateGraph(labels=data.labels, degrees=rel.degrees, normalizer=np.ones(data.n),
                           basis=None, core=None, projected=None, ledger=ledger,
                           diagnostics={**rel.diagnostics, "pca_halted": False,
                                        "low_rank_mechanism": "none (degree-ordered local "
                                                              "decisions)"},
                           sides=x.copy(), local=rel)
    partition, assignment = _partition_of(pg.labels, x)
    names = ("forward", "refined")[:cands.shape[1]]
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=value,
        estimate_interval=interval, synthetic_value=None, sdp_bound=None, eta=0.0,
        ledger=ledger, private_graph=pg, solver=None,
        diagnostics={"route": "local", "objective": names[chosen], "candidates": names,
                     "candidate_partitions": int(cands.shape[1]), "core": rel.plan.core,
                     "refine_share": rel.plan.refine_share, "rank": None,
                     "unspent": "pure epsilon-DP route: delta is not spent"})


def _unspent(ledger, pure: bool) -> dict:
    """``{"unspent": why}`` when the call spent less than it was given (for the repr)."""
    why = []
    eps_left = ledger.epsilon - ledger.spent[0]
    if eps_left > 1e-9 * ledger.epsilon:
        why.append(f"epsilon {eps_left:.3g} reserved for a private choice among candidate "
                   f"partitions was not needed (one candidate)")
    if pure and ledger.delta:
        why.append("pure epsilon-DP route: delta is not spent")
    return {"unspent": "; ".join(why)} if why else {}


def _true_cuts(data):
    """Cuts of fixed +-1 partitions (columns) in the input: NOT private; every use is an input
    to a mechanism (docs/privacy.md 4.10, 4.11)."""
    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.rounding import cut_values

    if is_dask_input(data):
        return data.cut_values
    op = as_weight_operator(data)
    return lambda X: cut_values(op, np.asarray(X, dtype=np.float64))


def _partition_of(labels, x) -> tuple[tuple, dict]:
    assignment = {lab: int(xi > 0) for lab, xi in zip(labels, x)}
    partition = ({lab for lab, xi in zip(labels, x) if xi > 0},
                 {lab for lab, xi in zip(labels, x) if xi <= 0})
    return partition, assignment


_KNOWN_OBJECTIVES = ("synthetic", "low-rank", "unbiased", "posterior-degree")


def _precheck_solver(problem: str, candidates, solver_options) -> None:
    """Refuse, before any release, engine options the solver does not take and objective names
    no route offers (which ones a release offers depends on its route: checked again after)."""
    import inspect

    from dpgraph.engine import solve_max_bisection, solve_max_cut

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
    its SDP factor (:func:`dpgraph.engine.certify_upper_bound`), in place: ``upper_bound``, ``gap``,
    ``info`` and ``timings["certificate"]``. ``method=False`` keeps the trivial bound."""
    from dpgraph.engine import certify_upper_bound

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
            kappa: float = 0.0, estimate_share: float = 0.1, select_share: float = 0.04,
            candidates="auto", solver_options: dict | None = None,
            privatize_options: dict | None = None, route: str | None = None,
            weight: str | None = "weight", estimate: bool = True) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Cut of ``G``.

    By default (``route="auto"``) a private edge count ``m^`` (0.5% of epsilon, Laplace) chooses
    between two mechanisms from public ``n`` and ``rho = 2 m^ epsilon / n``
    (:func:`answer_route`): the **degree-ordered local route** (pure epsilon-DP, docs/privacy.md
    11: one private decision per node from its already-decided neighbours, each pair read once
    per pass), which carries the local cut structure of real graphs; or, for large graphs of
    high released density (``n >= 15,000`` and ``rho >= 200``), the **matrix-free route**
    (d'Orsi & Novikov's coherence-aware private subspace, Alg. 7.13 on its release), whose global
    low-rank release is exact on planted two-block graphs. The dense routes
    (``"randomized-response"``, ``"pca"``) are taken when asked for.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts (edge weights in [0, 1]).
    epsilon, delta : float
        Privacy budget of the whole call. ``delta=0`` asks for pure epsilon-DP: ``"auto"`` then
        takes the local route; a route that needs delta > 0 is refused before anything is
        spent. The pure routes leave delta unspent (``diagnostics["unspent"]`` says so).
    rank : int or None
        Rank of the private low-rank estimate on the spectral routes; ``None`` (default): 8,
        capped at ``n - 2`` on graphs with fewer than 10 nodes.
    rng : None, int or numpy.random.Generator
    kappa : float
        Accuracy floor of Alg. 7.13 step 4: ``eta = max(sigma_{r+1} estimate, kappa)``.
    estimate_share : float
        At most this fraction of epsilon (default 0.1) goes to the private estimate of the
        returned partition's cut (Laplace; 4.10), and no more than what puts its noise scale at
        0.5% of ``m^`` (so the 95% interval is about +-1.5% of the edge count when the budget
        allows): at epsilon 1 a 78-edge graph takes the full 10% (scale 10), a 20,000-edge graph
        1% and a 100,000-edge graph 0.2%. ``estimate=False`` spends nothing on it.
    select_share : float
        At most this fraction of epsilon (default 0.04) goes to choosing among the candidate
        partitions (monotone exponential mechanism on their cuts in the input; docs/privacy.md
        4.11), and no more than what puts the choice's noise scale at 0.1% of ``m^``. Nothing
        when there is a single candidate.
    candidates : "auto", str or sequence of str
        Objectives solved on the release of the spectral routes
        (:meth:`PrivateGraph.objective_names`). On the randomized-response route ``"auto"``
        solves the de-biased release and three empirical-Bayes posterior objectives (only the
        de-biased release above 5,000 nodes), then picks one of all their distinct roundings
        privately. Ignored on the local route, whose candidates are its forward-pass and
        refined sides.
    solver_options, privatize_options : dict
        Passed to :func:`dpgraph.engine.solve_max_cut` and :func:`dpgraph.privatize` (spectral
        routes).
    route : {"auto", "local", "matrix-free", "randomized-response", "pca"}, optional
        Overrides ``privatize_options["route"]``. On the matrix-free route the engine runs on
        the release's low-rank operator (no n x n array) and their cuts in the input, like the
        estimate's, are computed by sparse products (docs/privacy.md 5.5).
    weight : str or None
        Edge attribute holding the weight (NetworkX, igraph; default ``"weight"``); ``None``
        treats every edge as weight 1, as NetworkX does. Weights must lie in [0, 1]; every
        route takes the same path whatever their values (docs/privacy.md 4.12).
    estimate : bool
        Release the private estimate of the returned partition's cut (default True).

    Returns
    -------
    PrivateCutResult

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> res = dpgraph.max_cut(nx.karate_club_graph(), epsilon=4.0, delta=1e-6, weight=None,
    ...                       rng=1)
    >>> len(res.assignment), res.diagnostics["route"], res.ledger.spent[1]
    (34, 'local', 0.0)
    >>> lo, hi = res.estimate_interval
    >>> 0 <= lo <= res.estimated_value <= hi
    True
    """
    return _solve("maxcut", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options, route=route, weight=weight,
                  estimate=estimate)


def max_bisection(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
                  kappa: float = 0.0, estimate_share: float = 0.1, select_share: float = 0.04,
                  candidates="auto", solver_options: dict | None = None,
                  privatize_options: dict | None = None,
                  route: str | None = None,
                  weight: str | None = "weight", estimate: bool = True) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Bisection of ``G`` (d'Orsi & Novikov, Thm 7.19 on the
    spectral routes): the sides differ in size by at most 1.

    Same parameters as :func:`max_cut`. On the local route the candidates are balanced by
    post-processing of the release: the least confident nodes of the larger side (smallest
    released field) move to the smaller side (:func:`dpgraph.release.routes.local.balance_sides`); the
    guarantee is the local route's (docs/privacy.md 14.5). On the spectral routes the balanced
    engine solves the release.

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> res = dpgraph.max_bisection(nx.karate_club_graph(), epsilon=2.0, delta=0, weight=None,
    ...                             rng=1)
    >>> sorted(map(len, res.partition))
    [17, 17]
    """
    return _solve("bisection", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, select_share=select_share,
                  candidates=candidates, solver_options=solver_options,
                  privatize_options=privatize_options, route=route, weight=weight,
                  estimate=estimate)
