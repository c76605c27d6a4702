"""Private Max-Cut and Max-Bisection: privatize, then solve the synthetic instance.

d'Orsi & Novikov Alg. 7.13 (Max-Cut) and Thm 7.19 (Max-Bisection): release a private
synthetic graph ``D~^1/2 A^ D~^1/2`` (:func:`dpgraph.privatize`), then run the degree-2
sum-of-squares engine with global correlation rounding (:mod:`dpgraph.csp`) on it. The solve is
post-processing; a last Gaussian release (sensitivity 1) estimates the returned partition's
cut in the input. The ledger holds every charge; the total is the requested budget.

What comes back is private: the partition, the noisy estimate of its cut, its cut *on the
synthetic graph* and the certified SDP bound *of the synthetic instance*. No unprivatized
statistic of the input is returned; score a partition on a graph you may see with
:func:`dpgraph.evaluate.cut_value` (not private).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .privacy import PrivacyLedger, gaussian_mechanism, make_rng
from .privacy._validate import check_delta, check_epsilon
from .privatize import DEFAULT_RANK, PrivateGraph, _check_share, check_private_graph_input, privatize

__all__ = ["PrivateCutResult", "max_cut", "max_bisection"]


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
        plus Gaussian noise (sensitivity 1, ``estimate_share`` of the budget).
    synthetic_value : float
        Cut of ``partition`` on the synthetic graph (post-processing; biased upward on sparse
        graphs, where the partition is chosen on the same noise).
    sdp_bound : float
        Certified upper bound of the degree-2 SoS relaxation of the synthetic instance.
    eta : float
        ``max(sigma_{r+1} estimate, kappa)`` of Alg. 7.13 step 4 (private).
    ledger : PrivacyLedger
    private_graph : PrivateGraph
    solver : object
        The engine's result on the synthetic instance (rounding used, timings, ...).
    diagnostics : dict
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
                f"halted={self.halted})")


def _solve(problem: str, G, *, epsilon, delta, rank, rng, kappa, estimate_share, solver_options,
           privatize_options):
    from .csp import solve_max_bisection, solve_max_cut
    from .evaluate import cut_value
    from .graph import as_graph_data

    gen = make_rng(rng)
    t0 = time.perf_counter()
    if isinstance(G, PrivateGraph):
        raise TypeError("max_cut needs the graph itself (it releases a private estimate of the "
                        "returned partition's cut); to reuse a release, solve it with "
                        "dpgraph.solve_max_cut(pg.weights(), labels=pg.labels)")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    estimate_share = _check_share("estimate_share", estimate_share)
    data = as_graph_data(G)
    check_private_graph_input(data)
    pg = privatize(data, epsilon=(1 - estimate_share) * epsilon,
                   delta=(1 - estimate_share) * delta, rank=rank, rng=gen,
                   **(privatize_options or {}))
    t_priv = time.perf_counter() - t0
    eta = max(float(pg.diagnostics.get("tail_estimate", 0.0)), float(kappa))
    solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    t0 = time.perf_counter()
    # tol 1e-4: the synthetic instance is noisy anyway, and on dense n = 2000 instances it is
    # 4x faster than 1e-6 with a certified gap of ~4e-5 (BENCHMARKS.md, CSP engine)
    options = {"tol": 1e-4, **(solver_options or {})}
    res = solver(pg.weights(), labels=pg.labels, rng=gen, **options)
    t_solve = time.perf_counter() - t0
    # The partition is fixed now (post-processing of the release); its cut in the input has
    # sensitivity 1 (one edge of weight <= 1 crosses it or not): docs/privacy.md 4.10.
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    ledger.extend(pg.ledger)
    estimate, _ = gaussian_mechanism(
        cut_value(data, res.assignment), sensitivity=1.0, epsilon=estimate_share * epsilon,
        delta=estimate_share * delta, ledger=ledger, name="cut of the returned partition",
        rng=gen, note="fixed partition; one edge changes its cut by <= 1 (docs/privacy.md 4.10)")
    return PrivateCutResult(
        partition=res.partition, assignment=res.assignment, estimated_value=float(estimate),
        synthetic_value=float(res.value), sdp_bound=float(res.upper_bound), eta=eta,
        ledger=ledger, private_graph=pg, solver=res,
        diagnostics={"timings": {"privatize": t_priv, "solve": t_solve}})


def max_cut(G, *, epsilon: float, delta: float, rank: int = DEFAULT_RANK, rng=None,
            kappa: float = 0.0, estimate_share: float = 0.05,
            solver_options: dict | None = None,
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
        Fraction of (epsilon, delta) spent on the private estimate of the returned partition's
        cut (default 0.05); the rest goes to :func:`dpgraph.privatize`.
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
                  estimate_share=estimate_share, solver_options=solver_options,
                  privatize_options=privatize_options)


def max_bisection(G, *, epsilon: float, delta: float, rank: int = DEFAULT_RANK, rng=None,
                  kappa: float = 0.0, estimate_share: float = 0.05,
                  solver_options: dict | None = None,
                  privatize_options: dict | None = None) -> PrivateCutResult:
    """Edge-(epsilon, delta)-DP Max-Bisection of ``G`` (d'Orsi & Novikov, Thm 7.19).

    Same as :func:`max_cut`, with the balanced engine: the sides differ in size by at most 1.
    """
    return _solve("bisection", G, epsilon=epsilon, delta=delta, rank=rank, rng=rng, kappa=kappa,
                  estimate_share=estimate_share, solver_options=solver_options,
                  privatize_options=privatize_options)
