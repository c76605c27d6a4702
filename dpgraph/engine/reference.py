r"""Exact conic reference solvers (CVXPY + SCS) for small instances.

These solve the same degree-2 relaxations as the low-rank solvers, with a general-purpose conic
solver; they are the references the tests compare against. Their cost grows like
:math:`O(n^3)` per iteration with an :math:`n \times n` PSD variable, so they are for a few
hundred nodes at most (Max-Cut at n = 400 takes minutes on a laptop-class machine).
"""

from __future__ import annotations

import time

import numpy as np

from dpgraph.engine.operator import as_weight_operator

__all__ = ["cvxpy_max_cut_sdp", "cvxpy_max_bisection_sdp"]


def _solve(prob, eps, max_iters, time_limit):
    import cvxpy as cp

    kw = dict(eps_abs=eps, eps_rel=eps, max_iters=max_iters)
    if time_limit is not None:
        kw["time_limit_secs"] = float(time_limit)
    prob.solve(solver=cp.SCS, **kw)
    return prob


def cvxpy_max_cut_sdp(G, *, labels=None, balanced=False, eps=1e-7, max_iters=100000, time_limit=None):
    r"""Solve :math:`\max \tfrac14\langle L, X\rangle`, diag X = 1, X PSD (and, with ``balanced``,
    :math:`\langle J, X\rangle = n \bmod 2`) with CVXPY + SCS.

    Returns ``(value, X, seconds, status)``.

    >>> import math, networkx as nx
    >>> value, X, _, status = cvxpy_max_cut_sdp(nx.cycle_graph(5))
    >>> status, X.shape, bool(np.allclose(np.diag(X), 1.0, atol=1e-6))
    ('optimal', (5, 5), True)
    >>> round(value, 4), round(5 * (1 - math.cos(4 * math.pi / 5)) / 2, 4)  # C5: closed form
    (4.5225, 4.5225)
    """
    import cvxpy as cp

    op = as_weight_operator(G, labels=labels)
    W = op.to_dense()
    n = op.n
    L = np.diag(W.sum(axis=1)) - W
    X = cp.Variable((n, n), PSD=True)
    cons = [cp.diag(X) == 1]
    if balanced:
        cons.append(cp.sum(X) == float(n % 2))
    prob = cp.Problem(cp.Maximize(0.25 * cp.trace(L @ X)), cons)
    t = time.perf_counter()
    _solve(prob, eps, max_iters, time_limit)
    return float(prob.value), X.value, time.perf_counter() - t, prob.status


def cvxpy_max_bisection_sdp(G, **kw):
    """:func:`cvxpy_max_cut_sdp` with the balance constraint.

    >>> import networkx as nx
    >>> value, X, _, status = cvxpy_max_bisection_sdp(nx.cycle_graph(5))
    >>> status, round(value, 4), round(float(X.sum()), 4)  # <J, X> = n mod 2
    ('optimal', 4.3416, 1.0)
    >>> value < cvxpy_max_cut_sdp(nx.cycle_graph(5))[0]  # the constraint lowers the bound
    True
    """
    return cvxpy_max_cut_sdp(G, balanced=True, **kw)
