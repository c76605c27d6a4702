"""Private Max-Cut and Max-Bisection on the degree-ordered local route (docs/privacy.md 14).

The route releases sides, not weights: its candidates (the forward pass, and the refined
sides when the plan has a sweep) are balanced for bisection by post-processing, one is chosen
privately and its cut is estimated. Pure epsilon-DP: delta is not spent.
"""

from __future__ import annotations

import numpy as np

from dpgraph.io.dask import is_dask_input
from dpgraph.privacy.budget import LOCAL_DEGREE_SHARE, answer_side_budgets, left
from dpgraph.release.routes import route_spec
from dpgraph.release.routes.local import (LocalPrivateGraph, balance_sides, plan_local,
                                          release_local_sides)
from dpgraph.solve.candidates import (choose_candidate, partition_capacity, partition_of,
                                      release_estimate, true_cuts, unspent_note)
from dpgraph.solve.result import PrivateCutResult

__all__ = ["solve_local", "BALANCE_DEGREE_WEIGHT"]

# Balancing the forward sides: a node's confidence is max(|f_v|, BALANCE_DEGREE_WEIGHT * d^_v).
# An early node's forward field counts only its few earlier neighbours, but its later
# neighbours then decided against it, so moving it costs about its degree; half the released
# degree stands in for that. Measured (max_bisection, 3 seeds, cut / Max-Cut reference):
# email-Enron eps 4 0.923 -> 0.931, soc-douban eps 4 0.810 -> 0.851, chameleon eps 1 0.843 ->
# 0.860 (1.0 instead of 0.5: the same within 0.005).
BALANCE_DEGREE_WEIGHT = 0.5
# Balancing by the forward confidence too: the sides after a backward pass or a sweep are
# balanced twice, by their own pass's confidence and by the forward one, and both join the
# pool (the private choice keeps the better). Measured (max_bisection, ten seeds, cut /
# Max-Cut reference, median / mean), before the backward field was weighed by its signal
# share: chameleon eps 2 0.906 / 0.907 -> 0.912 / 0.911; eps 4, facebook and ca-hepph at eps
# 2 and 4 within 0.001. A node the backward pass decided on a weak total may still hold an
# early, confident forward decision; the forward floor of half its degree keeps hubs in place.


def solve_local(problem: str, data, *, ledger, rng, m_hat: float, m_upper: float,
                select_share: float, estimate_share: float, estimate: bool,
                extra=None, extra_route: str | None = None) -> PrivateCutResult:
    """Max-Cut / Max-Bisection on the degree-ordered local route (docs/privacy.md 14).

    The route's candidates (forward pass; the sides after the backward pass when the plan has
    one) and their balanced versions (:func:`dpgraph.release.routes.local.balance_sides`,
    post-processing) are pooled: all of them for Max-Cut, the balanced ones for Max-Bisection.
    One is chosen by the monotone exponential mechanism on their cuts (4.11) when there are
    several, and its cut is estimated (4.10). Pure epsilon-DP: delta is not spent.

    ``extra``: +-1 columns released before by ``extra_route`` (the matrix-free or the
    randomized-response route's candidates of an ``"auto"`` answer, charged to ``ledger``
    already: docs/privacy.md 14.10, 14.11), pooled with the route's candidates (balanced for
    Max-Bisection).

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> from dpgraph.privacy import PrivacyLedger
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> led = PrivacyLedger(epsilon=2.0, delta=0)
    >>> res = solve_local("maxbisection", input_graph(G, weight=None), ledger=led, rng=0,
    ...                   m_hat=78.0, m_upper=561.0, select_share=0.04, estimate_share=0.01,
    ...                   estimate=True)
    >>> [len(side) for side in res.partition], res.diagnostics["route"]
    ([17, 17], 'local')
    >>> res.diagnostics["candidate_partitions"], round(led.spent[0], 6), led.spent[1]
    (1, 1.92, 0.0)

    One candidate: the choice's ``0.04 * 2`` is not spent, and delta is not spent (pure).
    """
    epsilon = ledger.epsilon
    eps_left = left(epsilon, ledger.spent[0])
    plan = plan_local(data.n, m_hat, eps_left * (1.0 - LOCAL_DEGREE_SHARE),
                      passes_cost=is_dask_input(data))
    eps_select, eps_estimate = answer_side_budgets(epsilon, select_share, estimate_share, m_hat)
    # Max-Cut and Max-Bisection reserve the same eps_select, so that with the same rng their
    # releases are identical and Max-Cut's pool holds Max-Bisection's (docs/privacy.md 14.5)
    if not estimate:
        eps_estimate = 0.0
    rel = release_local_sides(data, epsilon=left(eps_left, eps_select, eps_estimate), ledger=ledger,
                              rng=rng, plan=plan)
    names = ["forward"] + ["backward"] * (plan.backward_share > 0) + \
        ["refined"] * (plan.refine_share > 0)
    extra_route = extra_route or "matrix-free"
    cands, names = _candidates(problem, rel, names, extra, extra_route)
    cuts_of = true_cuts(data)  # NOT private: read only through the releases below
    chosen = cands.shape[1] - 1
    if cands.shape[1] > 1:
        chosen = choose_candidate(cuts_of, cands, epsilon=eps_select, ledger=ledger, rng=rng,
                                  note=f"{', '.join(names)} sides of the local route; monotone "
                                       f"cuts (docs/privacy.md 4.11, 14.5)")
    x = cands[:, chosen]
    value, interval = (None, None)
    if estimate:
        value, interval = release_estimate(float(np.ravel(cuts_of(x[:, None]))[0]),
                                           epsilon=eps_estimate, ledger=ledger, rng=rng,
                                           upper=min(m_upper, partition_capacity(x)))
    pg = LocalPrivateGraph(labels=data.labels, degrees=rel.degrees, normalizer=np.ones(data.n),
                           basis=None, core=None, projected=None, ledger=ledger,
                           diagnostics={**rel.diagnostics, "pca_halted": False,
                                        "low_rank_mechanism": "none (degree-ordered local "
                                                              "decisions)"},
                           sides=x.copy(), local=rel)
    partition, assignment = partition_of(pg.labels, x)
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=value,
        estimate_interval=interval, synthetic_value=None, sdp_bound=None, eta=0.0,
        ledger=ledger, private_graph=pg, solver=None,
        diagnostics={"route": "local", "objective": names[chosen], "candidates": names,
                     "candidate_partitions": int(cands.shape[1]), "core": rel.plan.core,
                     "refine_share": rel.plan.refine_share,
                     "backward_share": rel.plan.backward_share,
                     "order_spread": rel.plan.order_spread, "rank": None,
                     **({"routes": ("local", extra_route)} if extra is not None else {}),
                     **unspent_note(ledger, extra is None or route_spec(extra_route).pure)})


def _candidates(problem: str, rel, names: list, extra=None,
                extra_route: str = "matrix-free") -> tuple[np.ndarray, list]:
    """The distinct candidate partitions (up to the global flip) and their names: for Max-Cut the
    route's sides *and* their balanced versions (so that the cut is never below what the
    bisection finds), for Max-Bisection the balanced versions only (docs/privacy.md 14.5).
    Post-processing of the release. Each candidate is balanced by the confidence of the pass
    that produced it (``rel.candidate_confidence``; for the forward sides ``max(|f_v|,
    BALANCE_DEGREE_WEIGHT d^_v)``, released values only); the sides after a backward pass or a
    sweep are also balanced by the forward confidence."""
    conf_fwd = np.where(np.isnan(rel.fields), np.inf,
                        np.maximum(np.abs(rel.fields),
                                   BALANCE_DEGREE_WEIGHT * np.maximum(rel.degrees, 0.0)))
    cols, out = [], []
    for j, name in enumerate(names):
        x = rel.candidates[:, j]
        conf = conf_fwd if j == 0 else rel.candidate_confidence[j]
        balanced = balance_sides(x, conf)
        pairs = [(balanced, f"balanced {name}")]
        if j > 0:  # also by the forward confidence (above)
            pairs.append((balance_sides(x, conf_fwd), f"balanced {name} (forward confidence)"))
        if problem == "maxcut":
            pairs.insert(0, (x, name))
        for col, label in pairs:
            cols.append(col)
            out.append(label)
    for j in range(0 if extra is None else extra.shape[1]):
        col = np.asarray(extra[:, j], dtype=np.float64)
        if problem != "maxcut":
            col = balance_sides(col, np.zeros(col.size))
        cols.append(col)
        out.append(f"{extra_route} {j + 1}" if problem == "maxcut"
                   else f"balanced {extra_route} {j + 1}")
    keep, seen = [], set()
    for k, col in enumerate(cols):
        key = (col if col[0] > 0 else -col).tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(k)
    return np.stack([cols[k] for k in keep], axis=1), [out[k] for k in keep]
