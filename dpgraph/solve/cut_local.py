"""Private Max-Cut and Max-Bisection on the degree-ordered local route (docs/privacy.md 14).

The route releases sides, not weights: its candidates (the forward pass, and the refined
sides when the plan has a sweep) are balanced for bisection by post-processing, one is chosen
privately and its cut is estimated. Pure epsilon-DP: delta is not spent.
"""

from __future__ import annotations

import numpy as np

from dpgraph.io.dask import is_dask_input
from dpgraph.privacy.budget import LOCAL_DEGREE_SHARE, answer_side_budgets, left
from dpgraph.release.routes.local import (LocalPrivateGraph, balance_sides, plan_local,
                                          release_local_sides)
from dpgraph.solve.candidates import choose_candidate, partition_of, release_estimate, true_cuts
from dpgraph.solve.result import PrivateCutResult

__all__ = ["solve_local"]


def solve_local(problem: str, data, *, ledger, rng, m_hat: float, m_upper: float,
                select_share: float, estimate_share: float, estimate: bool) -> PrivateCutResult:
    """Max-Cut / Max-Bisection on the degree-ordered local route (docs/privacy.md 14).

    The route's candidates (forward pass; refined sides when the plan has a sweep) are balanced
    for bisection by post-processing (:func:`dpgraph.release.routes.local.balance_sides`), one is chosen
    by the monotone exponential mechanism on their cuts (4.11) when there are two, and its cut
    is estimated (4.10). Pure epsilon-DP: delta is not spent.
    """
    epsilon = ledger.epsilon
    eps_left = left(epsilon, ledger.spent[0])
    plan = plan_local(data.n, m_hat, eps_left * (1.0 - LOCAL_DEGREE_SHARE),
                      passes_cost=is_dask_input(data))
    eps_select, eps_estimate = answer_side_budgets(epsilon, select_share, estimate_share, m_hat)
    if plan.refine_share == 0:
        eps_select = 0.0  # one candidate: nothing to choose
    if not estimate:
        eps_estimate = 0.0
    rel = release_local_sides(data, epsilon=left(eps_left, eps_select, eps_estimate), ledger=ledger,
                              rng=rng, plan=plan)
    cands = rel.candidates
    if problem != "maxcut":
        cands = np.stack([balance_sides(cands[:, j], rel.confidence)
                          for j in range(cands.shape[1])], axis=1)
    cuts_of = true_cuts(data)  # NOT private: read only through the releases below
    chosen = cands.shape[1] - 1
    if cands.shape[1] > 1:
        chosen = choose_candidate(cuts_of, cands, epsilon=eps_select, ledger=ledger, rng=rng,
                                  note="forward-pass and refined sides of the local route; "
                                       "monotone cuts (docs/privacy.md 4.11)")
    x = cands[:, chosen]
    value, interval = (None, None)
    if estimate:
        value, interval = release_estimate(float(np.ravel(cuts_of(x[:, None]))[0]),
                                           epsilon=eps_estimate, ledger=ledger, rng=rng,
                                           upper=m_upper)
    pg = LocalPrivateGraph(labels=data.labels, degrees=rel.degrees, normalizer=np.ones(data.n),
                           basis=None, core=None, projected=None, ledger=ledger,
                           diagnostics={**rel.diagnostics, "pca_halted": False,
                                        "low_rank_mechanism": "none (degree-ordered local "
                                                              "decisions)"},
                           sides=x.copy(), local=rel)
    partition, assignment = partition_of(pg.labels, x)
    names = ("forward", "refined")[:cands.shape[1]]
    return PrivateCutResult(
        partition=partition, assignment=assignment, estimated_value=value,
        estimate_interval=interval, synthetic_value=None, sdp_bound=None, eta=0.0,
        ledger=ledger, private_graph=pg, solver=None,
        diagnostics={"route": "local", "objective": names[chosen], "candidates": names,
                     "candidate_partitions": int(cands.shape[1]), "core": rel.plan.core,
                     "refine_share": rel.plan.refine_share, "rank": None,
                     "unspent": "pure epsilon-DP route: delta is not spent"})
