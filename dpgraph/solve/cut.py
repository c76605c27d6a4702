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
from functools import partial

import numpy as np

from dpgraph.engine import solve_max_bisection, solve_max_cut
from dpgraph.engine import sdp_rank
from dpgraph.engine.rounding import cut_values
from dpgraph.engine.local_search import check_kernel_load
from dpgraph.io.dask import is_dask_input
from dpgraph.privacy import PrivacyLedger, make_rng
from dpgraph.privacy.ledger import records_in_ledger
from dpgraph.privacy.budget import (ANSWER_ESTIMATE_SHARE, ANSWER_SELECT_SHARE, CERTIFY_SHARE,
                                    SCREEN_SHARE, answer_side_budgets, left)
from dpgraph.privacy.validation import (check_choice, check_delta, check_epsilon, check_flag,
                                        check_number, check_share)
from dpgraph.private_input import check_private_graph_input, input_graph
from dpgraph.progress import report
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.release.privatize import check_rank, privatize
from dpgraph.release.routes import route_names, route_spec
from dpgraph.release.screening import (answer_route, matrix_free_share, randomized_response_share,
                                      release_edge_count, streamed_route)
from dpgraph.solve.candidates import (candidate_objectives, candidate_pool, check_privatize_keys,
                                      choose_candidate, partition_capacity, partition_of, precheck_solver,
                                      release_estimate, true_cuts, unspent_note)
from dpgraph.solve.certify import (attach_certificate, check_certify, input_sdp_bound,
                                   release_certificate)
from dpgraph.solve.cut_local import solve_local
from dpgraph.solve.result import PrivateCutResult

__all__ = ["PrivateCutResult", "max_cut", "max_bisection", "candidate_objectives", "side_budgets"]

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
# Tabu moves of each candidate solve in an "auto" answer's pool (docs/privacy.md 14.10, 14.11):
# at most POOL_TABU_WORK / n, and the engine's 10 n below that (n <= 632). On the dense release
# a tabu move costs O(n), so the engine's 10 n moves per rounding (about 36 of them over the four
# objectives) took about half of a 2,000-node answer: planted-2000-25 at eps 4 took 6.5-8.3 CPU s,
# 3.8-5.4 s at n moves with the same cut seed by seed; G3 at eps 4 (n = 800, 5,000 moves) 0.973 /
# 0.975 / 0.974 of the reference against 0.972 / 0.974 / 0.970 (benchmarks/NOTES.md, "The
# randomized-response pool's solves").
POOL_TABU_WORK = 4.0e6
# SDP iterations of each candidate solve in an "auto" answer's pool. The Max-Bisection SDP on
# the dense released objectives ran 541-811 iterations to the pool's tolerance where Max-Cut's
# needs 83-131 (polblogs, n = 1,222, eps 4): 10.2 CPU s a call. At 200 the pooled bisections'
# cuts stay within 0.16% (three seeds of polblogs, email-Eu-core, G3, planted-1000-20 and
# planted-2000-25 at eps 4; the same at eps 2, where no pool is solved) and the call takes 4.6
# CPU s on polblogs, 2.3 on email-Eu-core (benchmarks/NOTES.md, "The pool's SDP iterations").
POOL_SDP_ITERATIONS = 200


#: Epsilon of an answer's private choice and of its estimate (kept here for callers of the
#: earlier name): :func:`dpgraph.privacy.budget.answer_side_budgets`.
side_budgets = answer_side_budgets


def _solve(problem: str, G, *, epsilon, delta, rank, rng, kappa, estimate_share, select_share,
           candidates, solver_options, privatize_options, weight, route=None, estimate=True,
           certify=False):
    """:func:`max_cut` / :func:`max_bisection`: refuse what needs no release, release the edge
    count where the route is sized by it, then answer on the route's release (and, with
    ``certify``, release the certified bound of the input's relaxation: docs/privacy.md 4.13)."""
    estimate = check_flag(estimate, name="estimate")
    certify = check_flag(certify, name="certify")
    gen = make_rng(rng)
    data, opts, requested, epsilon, delta = _checked_call(
        problem, G, epsilon=epsilon, delta=delta, rank=rank, kappa=kappa,
        estimate_share=estimate_share, select_share=select_share, candidates=candidates,
        solver_options=solver_options, privatize_options=privatize_options, weight=weight,
        route=route, certify=certify, estimate=estimate)
    sdp_value = None
    if certify:  # refusals, the solve and its verification: all before anything is spent
        check_certify(data)
        # NOT private: released below only. The solve draws from its own stream, one draw of
        # gen: how many draws it makes depends on the graph (a second solve where the first
        # does not verify), and the noise drawn after it must not (docs/privacy.md 4.13)
        sdp_value = input_sdp_bound(data, rng=make_rng(int(gen.integers(2**63))))
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    m_hat, m_upper = None, data.n * (data.n - 1) / 2.0
    auto = requested == "auto"
    if requested == "auto" or route_spec(requested).sized_by_edge_count:
        m_hat, m_upper, requested = _size_by_edge_count(data, requested, opts, epsilon, delta,
                                                        ledger, gen)
    released = None
    if certify:
        released = release_certificate(sdp_value, epsilon=epsilon, m_hat=m_hat, ledger=ledger,
                                       rng=gen, n=data.n)
        del sdp_value
    if route_spec(requested).answers == "sides":
        extra, pooled, skipped = None, None, None
        eps_now = left(epsilon, ledger.spent[0])
        # randomized response's share is of what the releases get after the local route's
        # choice and estimate (docs/privacy.md 14.11); the matrix-free share of eps_now (14.10)
        eps_rr = left(eps_now, *answer_side_budgets(epsilon, select_share,
                                                     estimate_share if estimate else 0.0, m_hat))
        # on Dask the workers hold the edges: the matrix-free share prices the client alone
        mf_share = partial(matrix_free_share, edges_held=not is_dask_input(data))
        for pooled, share_of, base in (("matrix-free", mf_share, eps_now),
                                       ("randomized-response", randomized_response_share,
                                        eps_rr)):
            # a Dask edge list pools only a route that reads the edges by passes
            fits = route_spec(pooled).streams or not is_dask_input(data)
            share = share_of(data.n, m_hat, eps_now, delta) if auto and fits else 0.0
            if share > 0:  # the route's own refusals at the pool's budget (docs/privacy.md 11.1)
                skipped = _pool_refusal(pooled, data, share * base, delta, rank, opts)
                share = 0.0 if skipped else share
            if share > 0:  # docs/privacy.md 14.10-14.11: its candidates join the local choice
                extra = _route_pool(pooled, problem, data, share * base, delta, rank, opts,
                                    solver_options, ledger, gen)
                break
        res = solve_local(problem, data, ledger=ledger, rng=gen, m_hat=m_hat, m_upper=m_upper,
                          select_share=select_share, estimate_share=estimate_share,
                          estimate=estimate, extra=extra, extra_route=pooled)
        if skipped:
            res.diagnostics["pool_note"] = skipped
        if rank is not None and extra is None:  # said, not silently dropped (as the CLI does)
            res.diagnostics["rank_note"] = (f"rank={rank} is not used: the local route makes "
                                            f"one private decision per node and has no "
                                            f"low-rank release")
        unused = _unused_on_local(candidates, kappa, solver_options if extra is None else None)
        if unused:
            res.diagnostics["options_note"] = (f"{unused} not used: they shape the solves on a "
                                               f"spectral route's release, and the local route "
                                               f"makes one private decision per node")
        return attach_certificate(res, released)
    eps_select, eps_estimate = answer_side_budgets(epsilon, select_share, estimate_share, m_hat)
    if not estimate:
        eps_estimate = 0.0
    if not route_spec(requested).selects:
        eps_select = 0.0  # a route that makes no choice: its budget goes to the release
    pg = privatize(data, epsilon=left(epsilon, ledger.spent[0], eps_select, eps_estimate),
                   delta=delta, rank=rank, rng=gen, **opts)
    ledger.extend(pg.ledger)
    return attach_certificate(
        _answer_on_release(problem, data, pg, ledger=ledger, rng=gen, rank=rank, kappa=kappa,
                           candidates=candidates, solver_options=solver_options,
                           eps_select=eps_select, eps_estimate=eps_estimate,
                           m_upper=m_upper, estimate=estimate), released)


def _unused_on_local(candidates, kappa, solver_options) -> str:
    """The options of ``max_cut`` / ``max_bisection`` given away from their defaults that the
    local route does not read (``solver_options``: None where a pooled route used them; its
    ``progress`` key, which only silences a display, is not named), as
    ``"candidates=..., kappa=..."``; empty when there is none."""
    if solver_options:
        solver_options = {k: v for k, v in solver_options.items() if k != "progress"}
    given = [("candidates", candidates, isinstance(candidates, str) and candidates == "auto"),
             ("kappa", kappa, kappa == 0.0),
             ("solver_options", solver_options, not solver_options)]
    return ", ".join(f"{name}={value!r}" for name, value, default in given if not default)


def _checked_call(problem, G, *, epsilon, delta, rank, kappa, estimate_share, select_share,
                  candidates, solver_options, privatize_options, weight, route, certify=False,
                  estimate=True):
    """Every refusal that needs no release, before anything is spent (docs/privacy.md 11.1):
    among them a share of epsilon too small for the exact Laplace sampler
    (:func:`_check_answer_shares`) and, through ``privatize(..., _check_only=True)`` at the
    epsilon the route's release gets, the route's own (the matrix-free route's itemized
    accounting at a large delta). Returns the input, the privatize options, the requested
    route and the checked budget. ``estimate=False``: no estimate is released, so its share
    is not checked."""
    if isinstance(G, PrivateGraph):
        raise TypeError("max_cut needs the graph itself (it releases a private estimate of the "
                        "returned partition's cut); to reuse a release, solve it with "
                        "dpgraph.solve_max_cut(pg.weights(), labels=pg.labels)")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    check_number(kappa, name="kappa", low=0.0)
    estimate_share = check_share("estimate_share", estimate_share)
    select_share = check_share("select_share", select_share)
    if estimate_share + select_share >= 1:
        raise ValueError("estimate_share + select_share must be < 1 (the rest privatizes)")
    if certify and estimate_share + select_share + CERTIFY_SHARE + SCREEN_SHARE >= 1:
        raise ValueError(f"with certify=True, estimate_share + select_share must be < "
                         f"{1 - CERTIFY_SHARE - SCREEN_SHARE:g}: the certificate takes up to "
                         f"{CERTIFY_SHARE:g} of epsilon and the screening count {SCREEN_SHARE:g}, "
                         f"and the rest privatizes; got {estimate_share:g} + {select_share:g}")
    check_privatize_keys(privatize_options, caller="max_cut" if problem == "maxcut"
                         else "max_bisection")
    # no synthetic-graph export: max_cut does not use it, so it pays nothing for it
    opts = {"synthetic_share": None, **(privatize_options or {})}
    if route is not None:
        opts["route"] = route
    requested = check_choice(opts.get("route", "auto"), name="route",
                             choices=("auto", *route_names()))
    if delta == 0 and requested != "auto" and not route_spec(requested).pure:
        raise ValueError(f"delta=0 asks for pure epsilon-DP, which route={requested!r} does not "
                         f"give; use route='local' or route='randomized-response' (pure), or "
                         f"pass delta > 0")
    precheck_solver(problem, candidates, solver_options)
    if is_dask_input(G):  # before the edges are read: a pass over them all, and a spill
        if certify:
            check_certify(G)
        if requested != "auto":
            streamed_route(requested)
    data = input_graph(G, weight=weight)
    check_private_graph_input(data)
    if rank is not None:  # refused before anything is spent, whichever route runs
        check_rank(rank, data.n)
    precheck_solver(problem, candidates, solver_options, n=data.n, route=requested)
    eps_route = _check_answer_shares(epsilon, requested, opts, estimate_share=estimate_share,
                                     select_share=select_share, certify=certify,
                                     estimate=estimate,
                                     caller="max_cut" if problem == "maxcut" else "max_bisection")
    privatize(data, epsilon=eps_route, delta=delta, rank=rank, rng=None, _check_only=True,
              **{**opts, "route": "local" if requested == "auto" else requested})
    # the answers' solves run numba kernels (the engine on a dense release, on the local
    # route's core): numba's first load is refused here, not by the engine's check after the
    # release (a call whose solves run none, e.g. a local route without a core, pays it too)
    check_kernel_load(f"{'max_cut' if problem == 'maxcut' else 'max_bisection'}'s solves")
    return data, opts, requested, epsilon, delta


def _check_answer_shares(epsilon, requested, opts, *, estimate_share, select_share, certify,
                         estimate=True, caller="max_cut") -> float:
    """:func:`_checked_call`'s refusal of a share of epsilon too small for the exact discrete
    Laplace sampler (:func:`dpgraph.privacy.noise.check_laplace_shares`), made before the
    screening count is drawn: the screening count (``screen_share``, where the route is sized by
    the edge count), the certificate (at most ``CERTIFY_SHARE``) and the estimate of the
    returned partition's cut (at most ``estimate_share``). The latter two are capped further by
    the released edge count on the routes sized by it; a share out of range at its cap is out of
    range whatever was released. Returns the epsilon the route's release gets when those caps do
    not bind (the most the answer's other releases can take: the epsilon at which the route's
    own prechecks run)."""
    from dpgraph.privacy.noise import check_laplace_shares

    spec = None if requested == "auto" else route_spec(requested)
    sized = spec is None or spec.sized_by_edge_count
    screen_share = check_share("screen_share", opts.get("screen_share", SCREEN_SHARE)) \
        if sized else 0.0
    releases = [("the screening edge count (screen_share)", screen_share, 1),
                ("the certified bound (certify=True)", CERTIFY_SHARE if certify else 0.0, 1),
                ("the estimate of the partition's cut (estimate_share)",
                 estimate_share if estimate else 0.0, 1)]
    check_laplace_shares(epsilon, releases, caller=caller)
    selects = spec is None or spec.selects
    eps_route = left(epsilon, screen_share * epsilon, CERTIFY_SHARE * epsilon if certify else 0.0,
                     select_share * epsilon if selects else 0.0,
                     estimate_share * epsilon if estimate else 0.0)
    return eps_route if eps_route > 0 else epsilon


def _size_by_edge_count(data, requested, opts, epsilon, delta, ledger, gen):
    """The screening count (docs/privacy.md 4.9), released here so that it can also choose the
    route ("auto") and size the side releases. Returns ``m^``, the feasible range of a cut as
    released (up to the one-sided 99.9% upper end of ``m^``, at most ``n (n - 1) / 2``) and the
    route. ``P[Laplace(b) < -b ln 500] = 0.001``: the estimate's 95% interval, clamped to it,
    misses a partition that cuts nearly every edge with probability at most 0.051 (a 97.5%
    end had made it 0.074: docs/privacy.md 4.10)."""
    from dpgraph.privacy.noise import discrete_laplace_parameters

    screen_share = check_share("screen_share", opts.pop("screen_share", SCREEN_SHARE))
    m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
    # the exact sampler's tail scale (docs/privacy.md 13.1), for which the tail bound holds
    tail = discrete_laplace_parameters(1.0, screen_share * epsilon, 1)["tail_scale"]
    m_upper = min(data.n * (data.n - 1) / 2.0, max(m_hat, 0.0) + tail * np.log(500.0))
    if requested == "auto":
        requested = answer_route(data.n, m_hat, epsilon, delta)
        opts["route"] = requested
    return m_hat, m_upper, requested


def _pool_refusal(route, data, epsilon, delta, rank, opts) -> str | None:
    """Why ``privatize`` would refuse ``route`` at the pool's ``(epsilon, delta)`` (its
    refusals that public values decide, run without a release: docs/privacy.md 11.1), or None.
    A pool the route refuses is not made, and the local route answers without it, rather than
    the call raising after the screening count was spent: the matrix-free route's itemized accounting at a large delta
    and the small epsilon near the foot of its ramp, its discrete sampler's range, its memory
    at the call's rank. The options were checked before anything was spent, so what remains
    depends on the budget, public ``n`` and the machine only: a function of released and
    public values, like the share (14.10)."""
    try:
        privatize(data, epsilon=epsilon, delta=delta, rank=rank, rng=None, _check_only=True,
                  **{**opts, "route": route, "synthetic_share": None})
    except (ValueError, MemoryError) as exc:
        return (f"the {route} route's candidates were not pooled: at its share of the budget "
                f"(epsilon {epsilon:.4g}, delta {delta:g}) it refuses ({exc})")
    return None


def _route_pool(route, problem, data, epsilon, delta, rank, opts, solver_options, ledger, gen):
    """The release of ``route`` at ``(epsilon, delta)`` (the matrix-free route: docs/privacy.md
    5; randomized response, pure: 4.5), its candidate objectives solved (post-processing) and
    their distinct roundings, as +-1 columns for the private choice of an ``"auto"`` answer
    (docs/privacy.md 14.10, 14.11)."""
    pg = privatize(data, epsilon=epsilon, delta=delta, rank=rank, rng=gen,
                   **{**opts, "route": route, "synthetic_share": None})
    ledger.extend(pg.ledger)
    names = candidate_objectives(pg, "auto", rank)
    # the solves (post-processing) draw from a generator of their own, seeded by one draw of
    # ``gen``: Max-Cut and Max-Bisection then leave ``gen`` in the same state, so with the same
    # rng the local route's release is the same for both (docs/privacy.md 14.5)
    solve_rng = make_rng(int(gen.integers(2**63)))
    options = {"tabu_moves": pool_tabu_moves(data.n), "max_iter": POOL_SDP_ITERATIONS,
               **(solver_options or {})}
    results, _ = _solve_candidates(problem, pg, names, options, solve_rng)
    return candidate_pool(results)[0].astype(np.float64)


def pool_tabu_moves(n: int) -> int:
    """Tabu moves per rounding of a pooled route's solves at public ``n`` (post-processing):
    ``min(10 n, POOL_TABU_WORK / n)``, so that their O(n)-per-move work stays bounded.

    >>> pool_tabu_moves(200), pool_tabu_moves(800), pool_tabu_moves(2000)
    (2000, 5000, 2000)
    """
    n = max(int(n), 1)
    return int(min(10 * n, POOL_TABU_WORK // n))


def _solve_candidates(problem, pg, names, solver_options, gen):
    """The engine on each candidate objective of the release (post-processing), without the
    dual certificate (only the returned objective's bound is certified, in
    :func:`_answer_on_release`). Returns the results and the certificate method. Each
    objective's operator is dropped after its solve: on a dense release each is an n x n
    array, and holding all of them took the randomized-response route at n = 1,000 to 1.45
    times its priced memory (the returned one is built again to certify it)."""
    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    options = {"tol": SOLVER_TOL, "rank": min(sdp_rank(pg.n), SOLVER_MAX_RANK),
               **pg.solver_options(), **(solver_options or {})}
    cert_method = options.pop("certificate", "auto")
    results = []
    for k, name in enumerate(names, 1):
        report(f"solving objective {k}/{len(names)} ({name}) with the degree-2 SoS engine")
        op = pg.objective_operator(name)
        results.append(solver(op, rng=gen, certificate=False, **options))
        del op
    return results, cert_method


def _answer_on_release(problem, data, pg, *, ledger, rng, rank, kappa, candidates,
                       solver_options, eps_select, eps_estimate, m_upper, estimate):
    """Solve the release's candidate objectives, choose one partition privately (4.11),
    certify its objective's bound and estimate its cut (4.10)."""
    names = candidate_objectives(pg, candidates, rank)
    eta = max(float(pg.diagnostics.get("tail_estimate", 0.0)), float(kappa))
    results, cert_method = _solve_candidates(problem, pg, names, solver_options, rng)
    chosen, x = 0, results[0].x
    pool, owner = candidate_pool(results)
    # NOT private: the input is read only through the releases below (cuts of fixed partitions;
    # on Dask edges each is one pass over the partitions)
    cuts_of = true_cuts(data)
    route = route_spec(pg.diagnostics.get("route"))
    if route.selects and pool.shape[1] > 1 and eps_select > 0:
        k = choose_candidate(cuts_of, pool, epsilon=eps_select, ledger=ledger, rng=rng,
                             note=f"{pool.shape[1]} distinct roundings of {len(names)} "
                                  f"objectives {names}; monotone cuts (docs/privacy.md 4.11)")
        chosen, x = owner[k], pool[:, k].astype(np.float64)
    res = results[chosen]
    _certify_result(res, pg.objective_operator(names[chosen]), balanced=problem != "maxcut",
                    method=cert_method, rng=rng)
    partition, assignment = partition_of(pg.labels, x)
    value, interval = (None, None)
    if estimate:  # the partition is fixed now; its cut in the input has sensitivity 1 (4.10)
        value, interval = release_estimate(float(np.ravel(cuts_of(x))[0]), epsilon=eps_estimate,
                                           ledger=ledger, rng=rng,
                                           upper=min(m_upper, partition_capacity(x)))
    synthetic_value = float(cut_values(pg.synthetic_operator(names[chosen]), x))
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
                     **unspent_note(ledger, route.pure),
                     "objective_values": {n: float(r.value) for n, r in zip(names, results)}})


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


@records_in_ledger
def max_cut(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
            kappa: float = 0.0, estimate_share: float = ANSWER_ESTIMATE_SHARE,
            select_share: float = ANSWER_SELECT_SHARE,
            candidates="auto", solver_options: dict | None = None,
            privatize_options: dict | None = None, route: str | None = None,
            weight: str | None = "weight", estimate: bool = True,
            certify: bool = False) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Cut of ``G``.

    By default (``route="auto"``, :func:`answer_route`) the **degree-ordered local route**
    answers (pure epsilon-DP, docs/privacy.md 14: one private decision per node from its
    already-decided neighbours, each pair read once per pass, and a backward pass where the
    released density ``rho = 2 m^ epsilon / n`` pays for it; ``m^``: a private edge count, 0.5%
    of epsilon, that sizes the plan continuously). It carries the local cut structure of real
    graphs and the global one of planted graphs. The **matrix-free route** (d'Orsi & Novikov's
    coherence-aware private subspace, Alg. 7.13 on its release), which is a random cut on graphs
    whose cut structure is local, and the dense routes (``"randomized-response"``, ``"pca"``)
    are taken when asked for; with ``delta > 0``, the matrix-free route's candidates join the
    local route's private choice on large dense graphs (docs/privacy.md 14.10) and the
    randomized-response route's on graphs of up to 2,000 nodes whose released
    signal-to-noise ratio lets it recover a global cut (14.11; ``diagnostics["routes"]``).

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
    certify : bool
        Also release a private upper bound on the input's maximum cut (docs/privacy.md 4.13):
        the degree-2 SoS relaxation of ``G`` itself, solved and verified to within
        ``tau = certify_gap(n)`` (0.5, or ``n / 8000`` above 4,000 nodes), plus Laplace noise
        of sensitivity ``1 + tau``, at
        ``min(10% of epsilon, 2000 / m^)``. ``res.certified_upper_bound`` is at least the
        maximum cut with probability >= 95%; ``res.certified_ratio`` (the lower end of the
        estimate's 95% interval over that bound) is at most the returned partition's true
        approximation ratio with probability >= 92.5%. Refused before anything is spent when
        the verification would not fit in memory or time at ``n``
        (:func:`dpgraph.solve.certify.check_certify`; up to 14,422 nodes here); the solve
        takes seconds to a minute on graphs of 10^4-10^5 edges (BENCHMARKS.md).
    ledger : PrivacyLedger, optional
        A running budget for several calls: the call is refused before anything is spent
        unless its ``(epsilon, delta)`` fits in ``ledger.remaining``, and its charges are
        recorded there on return (:func:`dpgraph.privacy.ledger.records_in_ledger`).

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
                  estimate=estimate, certify=certify)


@records_in_ledger
def max_bisection(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
                  kappa: float = 0.0, estimate_share: float = ANSWER_ESTIMATE_SHARE,
                  select_share: float = ANSWER_SELECT_SHARE,
                  candidates="auto", solver_options: dict | None = None,
                  privatize_options: dict | None = None,
                  route: str | None = None,
                  weight: str | None = "weight", estimate: bool = True,
                  certify: bool = False) -> PrivateCutResult:
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
                  estimate=estimate, certify=certify)
