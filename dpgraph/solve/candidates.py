"""The private choice among candidates, shared by the private answers.

A private answer solves several objectives of one release (post-processing), pools their
distinct roundings, chooses one by the monotone exponential mechanism on the candidates' true
cuts (sensitivity 1, docs/privacy.md 4.11) and estimates the chosen one's value with Laplace
noise (4.10). The true cuts are read only as inputs to those two mechanisms (:func:`true_cuts`
is NOT private on its own).
"""

from __future__ import annotations

import numpy as np

from dpgraph.io.dask import is_dask_input
from dpgraph.privacy import laplace_mechanism, monotone_exponential_mechanism
from dpgraph.release.posterior import prior_rank
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.release.routes import route_spec

__all__ = ["ONE_OBJECTIVE_ABOVE_N", "KNOWN_OBJECTIVES", "candidate_objectives", "precheck_solver",
           "candidate_pool", "choose_candidate", "release_estimate", "clamped_interval",
           "true_cuts", "partition_of", "unspent_note", "partition_capacity",
           "check_solver_options", "check_candidate_names", "check_route_objectives"]

# Above this many nodes "auto" solves one objective (the de-biased release) instead of four and
# chooses among its roundings only: one solve of a dense n = 10,000 instance takes about a
# minute and a half (BENCHMARKS.md), and the goal is two minutes end to end.
ONE_OBJECTIVE_ABOVE_N = 5000


def check_privatize_keys(privatize_options, *, caller: str) -> None:
    """Refuse, before anything is spent, ``privatize_options`` keys :func:`dpgraph.privatize`
    does not take, or that ``caller`` sets itself, whichever route runs (the local route, which
    does not call ``privatize``, would otherwise ignore them)."""
    import inspect

    from dpgraph.release.privatize import privatize

    if privatize_options is None:
        return
    if not isinstance(privatize_options, dict):
        raise TypeError(f"privatize_options must be a dict, got {type(privatize_options).__name__}")
    own = {k: f"{k}=" for k in ("rank", "rng", "epsilon", "delta", "ledger")}
    if caller != "max_2csp":  # the graph's weight attribute; a CSP instance has no other
        own["weight"] = "weight="
    clash = sorted(set(privatize_options) & set(own))
    if clash:
        raise TypeError(f"privatize_options {clash}: {caller} sets them itself; pass "
                        f"{', '.join(own[k] for k in clash)} to {caller}")
    params = set(inspect.signature(privatize).parameters) - {"G", "_check_only", "ledger",
                                                               "weight"}
    bad = sorted(set(privatize_options) - params)
    if bad:
        raise TypeError(f"privatize_options {bad} are not options of dpgraph.privatize "
                        f"(it takes {', '.join(sorted(params - set(own)))})")


def auto_objectives(offered: tuple, n: int) -> tuple:
    """The objectives ``candidates="auto"`` solves among those a release on ``n`` nodes
    ``offered``: all of them, or the de-biased release alone above ``ONE_OBJECTIVE_ABOVE_N``
    nodes (the time goal). Public ``n`` and names only.

    >>> auto_objectives(("unbiased", "posterior-degree"), 100)
    ('unbiased', 'posterior-degree')
    >>> auto_objectives(("unbiased", "posterior-degree"), ONE_OBJECTIVE_ABOVE_N + 1)
    ('unbiased',)
    """
    if n > ONE_OBJECTIVE_ABOVE_N and "unbiased" in offered:
        return ("unbiased",)
    return tuple(offered)


def candidate_objectives(pg: PrivateGraph, candidates="auto", rank: int | None = None) -> tuple:
    """The objectives :func:`dpgraph.max_cut` solves on the release ``pg`` (``candidates``
    as there; validated against :meth:`PrivateGraph.objective_names`): every objective the
    release offers, or the de-biased release alone above ``ONE_OBJECTIVE_ABOVE_N`` nodes.

    >>> import networkx as nx, dpgraph
    >>> pg = dpgraph.privatize(nx.path_graph(6), epsilon=1.0, delta=1e-6, rank=2, rng=0)
    >>> candidate_objectives(pg, "unbiased")
    ('unbiased',)
    """
    offered = pg.objective_names(rank)
    if candidates == "auto":
        return auto_objectives(offered, pg.n)
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


def release_estimate(cut_of_x: float, *, epsilon: float, ledger, rng, upper: float,
                     level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The private estimate of a fixed partition's cut (Laplace, sensitivity 1; docs/privacy.md
    4.10) and a ``level`` confidence interval, both clamped to ``[0, upper]`` (post-processing;
    ``upper``: the 99.9% upper end of the released edge count, at most ``n (n - 1) / 2``, and the
    partition's :func:`partition_capacity`).

    ``P[|Laplace(b)| > t] = exp(-t / b)``, so ``t = b ln(1 / (1 - level))`` gives the interval
    (:func:`clamped_interval`).

    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> value, (lo, hi) = release_estimate(50.0, epsilon=1.0, ledger=led, rng=0, upper=78.0)
    >>> float(round((hi - lo) / 2 / np.log(20), 2)), bool(lo <= value <= hi)  # t = b ln 20
    (1.0, True)
    >>> round(led.spent[0], 6)  # one Laplace release at epsilon 1
    1.0
    """
    noisy, b = laplace_mechanism(
        float(cut_of_x), sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="cut of the returned partition", rng=rng,
        note="fixed partition; one edge changes its cut by <= 1 (docs/privacy.md 4.10)")
    return clamped_interval(noisy, b * np.log(1.0 / (1.0 - level)), upper)


def partition_capacity(x) -> float:
    """``|S| |T|``: the most any graph with weights in ``[0, 1]`` can cut across the partition
    with sides ``x`` (+-1 or 0/1 entries; public, post-processing), so the estimate of its
    cut is clamped to it as well.

    >>> partition_capacity([1, 1, -1, 1, -1])
    6.0
    """
    x = np.ravel(np.asarray(x, dtype=np.float64))
    s = int(np.count_nonzero(x > 0))
    return float(s) * float(x.size - s)


def clamped_interval(noisy: float, t: float, upper: float) -> tuple[float, tuple[float, float]]:
    """A noisy value clamped to ``[0, upper]`` and the interval ``clamped +- t``, clamped
    likewise (post-processing).

    The interval is centred on the *clamped* value: where a draw falls beyond the feasible
    range, clamping ``noisy +- t`` end by end would collapse it onto the range's end (a point,
    which reads as certainty). Centred on the clamped value it keeps width ``min(t, upper)`` or
    more, and it contains ``[noisy - t, noisy + t]`` clamped, so it covers every true value in
    ``[0, upper]`` whenever ``|noisy - true| <= t``: its coverage is at least the Laplace
    interval's.

    >>> clamped_interval(33.0, 30.0, 6.0), clamped_interval(-31.0, 30.0, 3.0)
    ((6.0, (0.0, 6.0)), (0.0, (0.0, 3.0)))
    >>> clamped_interval(100.0, 5.0, 1000.0)
    (100.0, (95.0, 105.0))
    """
    clamp = lambda v: float(min(max(v, 0.0), upper))  # noqa: E731
    value = clamp(noisy)
    return value, (clamp(value - t), clamp(value + t))


def unspent_note(ledger, pure: bool) -> dict:
    """``{"unspent": why}`` when the call spent less than it was given (for the repr).

    >>> from dpgraph.privacy import PrivacyLedger
    >>> note = unspent_note(PrivacyLedger(epsilon=1, delta=1e-6), pure=True)["unspent"]
    >>> for why in note.split("; "):  # doctest: +ELLIPSIS
    ...     print(why)
    epsilon 1 reserved for a private choice among candidate partitions was not needed (...)
    pure epsilon-DP route: delta is not spent
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> _ = release_estimate(5.0, epsilon=1.0, ledger=led, rng=0, upper=10.0)  # all spent
    >>> unspent_note(led, pure=True)
    {}
    """
    why = []
    eps_left = ledger.epsilon - ledger.spent[0]
    if eps_left > 1e-9 * ledger.epsilon:
        why.append(f"epsilon {eps_left:.3g} reserved for a private choice among candidate "
                   f"partitions was not needed (one candidate)")
    if pure and ledger.delta:
        why.append("pure epsilon-DP route: delta is not spent")
    return {"unspent": "; ".join(why)} if why else {}


def true_cuts(data):
    """Cuts of fixed +-1 partitions (columns) in the input: NOT private; every use is an input
    to a mechanism (docs/privacy.md 4.10, 4.11).

    >>> import networkx as nx
    >>> cuts_of = true_cuts(nx.path_graph(4))  # edges 0-1, 1-2, 2-3; rows: nodes
    >>> cuts_of(np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=float)).tolist()
    [1.0, 3.0]

    """
    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.rounding import cut_values

    if is_dask_input(data):
        return data.cut_values
    op = as_weight_operator(data)
    return lambda X: cut_values(op, np.asarray(X, dtype=np.float64))


def partition_of(labels, x) -> tuple[tuple, dict]:
    """The two sides (label sets) and the label -> 0/1 assignment of a +-1 vector ``x``.

    >>> (S, T), assignment = partition_of(["a", "b", "c"], [1, -1, 1])
    >>> sorted(S), sorted(T), assignment
    (['a', 'c'], ['b'], {'a': 1, 'b': 0, 'c': 1})
    """
    assignment = {lab: int(xi > 0) for lab, xi in zip(labels, x)}
    partition = ({lab for lab, xi in zip(labels, x) if xi > 0},
                 {lab for lab, xi in zip(labels, x) if xi <= 0})
    return partition, assignment


KNOWN_OBJECTIVES = ("synthetic", "low-rank", "unbiased", "posterior-degree")


def precheck_solver(problem: str, candidates, solver_options, n: int | None = None,
                    route: str = "auto") -> None:
    """Refuse, before any release, engine options the solver does not take, options that would
    not fit in memory on ``n`` nodes, objective names no route offers, and names an explicit
    ``route`` never offers (its :attr:`RouteSpec.objectives`; where a release's objectives
    depend on the release they are checked again after it).

    >>> precheck_solver("maxcut", ["unbiased", "synthetic"], {"rank": 4}, n=100)  # accepted
    >>> precheck_solver("maxbisection", "auto", {"colour": 1})
    Traceback (most recent call last):
    ...
    TypeError: solver_options ['colour'] are not options of dpgraph.solve_max_bisection (...)
    >>> precheck_solver("maxcut", "best", None)
    Traceback (most recent call last):
    ...
    ValueError: candidates='best': objectives are 'auto' or among (...) and 'posterior-lowrank-<k>'
    """
    from dpgraph.engine import solve_max_bisection, solve_max_cut
    from dpgraph.engine.maxcut import check_solver_memory

    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    check_solver_options(solver, solver_options, fixed=("G",))
    if n is not None and set(solver_options or {}) & {"rank", "samples", "anneal_sweeps"}:
        check_solver_memory(n, solver_options)  # the options that grow the engine's arrays
    check_candidate_names(candidates)
    check_route_objectives(route, candidates)


def check_route_objectives(route: str, candidates) -> None:
    """Refuse, before any release, objective names that an explicit ``route``'s release never
    offers (:attr:`~dpgraph.release.routes.RouteSpec.objectives`, where the route declares
    them; ``"auto"`` and the routes whose offer depends on the release pass).

    >>> check_route_objectives("pca", "synthetic"), check_route_objectives("auto", "unbiased")
    (None, None)
    >>> check_route_objectives("pca", ["unbiased"])
    Traceback (most recent call last):
    ...
    ValueError: candidates=['unbiased']: the pca route's release offers ('synthetic',); refused before anything is spent
    """
    offered = None if route == "auto" else route_spec(route).objectives
    if offered is None or candidates == "auto":
        return
    names = (candidates,) if isinstance(candidates, str) else tuple(candidates)
    if any(c not in offered for c in names):
        raise ValueError(f"candidates={candidates!r}: the {route} route's release offers "
                         f"{offered}; refused before anything is spent")


def check_solver_options(solver, solver_options, *, fixed=(), name: str | None = None) -> None:
    """Refuse ``solver_options`` keys that ``solver`` (public ``name``, default
    ``dpgraph.<its name>``) does not take, or that the caller sets itself (``fixed``), before
    any release.

    >>> def solver(G, rank=2, tol=1e-6):
    ...     pass
    >>> check_solver_options(solver, {"rank": 4}, fixed=("G",))  # accepted
    >>> check_solver_options(solver, {"G": None}, fixed=("G",))
    Traceback (most recent call last):
    ...
    TypeError: solver_options ['G'] are not options of dpgraph.solver (it takes rank, tol)
    >>> check_solver_options(solver, [("rank", 4)])
    Traceback (most recent call last):
    ...
    TypeError: solver_options must be a dict, got list
    """
    import inspect

    if solver_options is not None and not isinstance(solver_options, dict):
        raise TypeError(f"solver_options must be a dict, got {type(solver_options).__name__}")
    params = inspect.signature(solver).parameters
    bad = sorted(set(solver_options or {}) - (set(params) - set(fixed)))
    if bad:
        raise TypeError(f"solver_options {bad} are not options of "
                        f"{name or 'dpgraph.' + solver.__name__} "
                        f"(it takes {', '.join(p for p in params if p not in fixed)})")


def check_candidate_names(candidates, extra: tuple = ()) -> None:
    """Refuse, before any release, ``candidates`` that name no objective a route offers
    (``KNOWN_OBJECTIVES``, ``posterior-lowrank-<k>`` and the caller's ``extra`` names).

    >>> check_candidate_names(["unbiased", "posterior-lowrank-3"])  # accepted
    >>> check_candidate_names("spectral", extra=("spectral",))  # accepted: the caller's name
    >>> check_candidate_names("spectral")
    Traceback (most recent call last):
    ...
    ValueError: candidates='spectral': objectives are 'auto' or among ...
    >>> check_candidate_names(5)
    Traceback (most recent call last):
    ...
    TypeError: candidates must be 'auto', an objective name or a sequence of names, got 5
    """
    if isinstance(candidates, str) and candidates == "auto":
        return
    try:
        names = (candidates,) if isinstance(candidates, str) else tuple(candidates)
    except TypeError:
        raise TypeError(f"candidates must be 'auto', an objective name or a sequence of "
                        f"names, got {candidates!r}") from None
    unknown = [c for c in names if not isinstance(c, str)
               or (c not in KNOWN_OBJECTIVES + tuple(extra) and prior_rank(c) is None)]
    if not names or unknown:
        raise ValueError(f"candidates={candidates!r}: objectives are 'auto' or among "
                         f"{KNOWN_OBJECTIVES + tuple(extra)} and 'posterior-lowrank-<k>'")


def candidate_pool(results) -> tuple[np.ndarray, list]:
    """Distinct rounded partitions (up to the global sign flip) of all solves, and the index of
    the solve each came from (its first occurrence).

    >>> from types import SimpleNamespace
    >>> solves = [SimpleNamespace(x=[1, -1, 1], info={}), SimpleNamespace(x=[-1, 1, -1], info={}),
    ...           SimpleNamespace(x=[1, 1, -1], info={})]  # the second flips the first
    >>> pool, owner = candidate_pool(solves)
    >>> pool.T.tolist(), owner
    ([[1, -1, 1], [1, 1, -1]], [0, 2])
    """
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


def choose_candidate(cuts_of, pool: np.ndarray, *, epsilon: float, ledger, rng, note: str) -> int:
    """The index of the column of ``pool`` (fixed +-1 partitions) chosen by the monotone
    exponential mechanism on their cuts in the input (``cuts_of``: :func:`true_cuts`):
    monotone with sensitivity 1 under edge adjacency (docs/privacy.md 4.11).

    >>> import networkx as nx
    >>> from dpgraph.privacy import PrivacyLedger
    >>> G = nx.complete_bipartite_graph(10, 10)  # the sides 0-9 / 10-19 cut all 100 edges
    >>> best = np.repeat([1, -1], 10)
    >>> pool = np.stack([np.ones(20), best, np.tile([1, -1], 10)], axis=1)  # cuts 0, 100, 50
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> choose_candidate(true_cuts(G), pool, epsilon=1.0, ledger=led, rng=0, note="example")
    1
    >>> round(led.spent[0], 6)
    1.0
    """

    return monotone_exponential_mechanism(
        cuts_of(pool.astype(np.float64)), sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="choice among candidate partitions", rng=rng, note=note)
