"""The budget plan: every default share of epsilon (and delta) in one place.

Each private entry point splits its budget by basic (or adaptive) composition over named
steps; the default fraction of each step is named here, and the entry points state their
split by calling the functions below, so a reader finds every default in one file. The ledger
(:class:`~dpgraph.privacy.PrivacyLedger`) still records every draw, whatever the plan.

Shares are fractions of the budget *of the step that holds them* (so that a ``*_SHARE``
changes one split only); each group says of what.

Examples
--------
>>> release_split(1.0, 0.3)
(0.7, 0.3)
>>> answer_side_budgets(1.0, 0.04, 0.01)
(0.04, 0.01)
>>> answer_side_budgets(2.0, 0.04, 0.1, m_hat=50_000.0)  # a large graph: capped absolutely
(0.02, 0.004)
"""

from __future__ import annotations

import math

__all__ = [
    "DEGREE_SHARE", "TAIL_SHARE", "CORE_SHARE", "SCREEN_SHARE", "SYNTHETIC_SHARE",
    "BLOCK_COUNT_SHARE", "COMMUNITY_SHARE", "COMMUNITY_INIT_SHARE", "DEGREE_BIN_SHARE",
    "EDGE_COUNT_SHARE", "EDGE_COUNT_MAX_SHARE", "EDGE_COUNT_SMALL_N", "SPLIT_COUNT_SHARE",
    "CLUSTERING_SHARE", "SIDE_SHARE",
    "ANSWER_ESTIMATE_SHARE", "ANSWER_SELECT_SHARE", "CSP_ESTIMATE_SHARE", "CSP_SELECT_SHARE",
    "CSP_TOTAL_SHARE", "CERTIFY_SHARE", "CERTIFY_GAP", "CERTIFY_GAP_NODES", "certify_budget",
    "certify_gap",
    "LOCAL_DEGREE_SHARE", "LOCAL_REFINE_SHARE", "left", "release_split", "answer_side_budgets",
    "edge_count_share", "EDGE_COUNT_TARGET_SD", "EDGE_COUNT_TOP_UP_MAX", "edge_count_top_up",
    "edge_count_top_up_cap",
]

# -- dpgraph.privatize: fractions of its (epsilon, delta) -------------------------------------
#: the dense PCA route's private degrees and tail level (docs/privacy.md 4.1, 4.3); the rest
#: goes to the private PCA
DEGREE_SHARE = 0.05
TAIL_SHARE = 0.05
#: of the PCA's share: the r x r core (Alg. 5.10); the rest goes to the private subspace
CORE_SHARE = 0.1
#: the screening edge count (docs/privacy.md 4.9; Laplace, of epsilon)
SCREEN_SHARE = 0.005
#: the synthetic block model released beside a dense or local route (docs/privacy.md 7); the
#: rest goes to the route, whose release gives the partition
SYNTHETIC_SHARE = 0.3
#: of the block model's epsilon: the block counts (the rest: degrees). The counts are sums of
#: many edges, so a small share already makes their noise small relative to them.
BLOCK_COUNT_SHARE = 0.2

# -- dpgraph.release_synthetic: fractions of epsilon --------------------------------------------
#: the private communities (the rest: the block model, the degree classes and the edge count):
#: with the sequential refinement, 0.6, 0.67, 0.79 and 0.85 each lose more cells than they win
#: against 0.73 on chameleon and facebook (benchmarks/NOTES.md, "Community share with the
#: sequential refinement")
COMMUNITY_SHARE = 0.73
#: of the communities' epsilon: the noisy super-graph when release_synthetic starts from it
#: (init_labels=0; by default it starts from random labels), the rest: the refinement rounds
COMMUNITY_INIT_SHARE = 0.5
#: the edge counts between degree classes (docs/privacy.md 7.9); sums over many edges, so a
#: small share suffices
DEGREE_BIN_SHARE = 0.05
#: the total edge weight (docs/privacy.md 7.10): a single count of L1 sensitivity 1, so a small
#: share pins it to within 1 / (EDGE_COUNT_SHARE eps) edges on average (50 edges at epsilon 1);
#: the share on graphs of EDGE_COUNT_SMALL_N nodes or more (edge_count_share)
EDGE_COUNT_SHARE = 0.02
#: on small graphs the count gets more (edge_count_share): it decides the community plan and
#: 50 edges is most of the graph there; at most this share. Karate (34 nodes) at epsilon 1,
#: 400 seeds: a cap of 0.1 (4 / n) left 0.25% of the samples off by more than half their
#: edges (2% planned communities on a count too high), 0.15 (5 / n) none; 0.2 (6 / n) gains
#: little more and takes more from the degrees
EDGE_COUNT_MAX_SHARE = 0.15
#: the share is EDGE_COUNT_SHARE * EDGE_COUNT_SMALL_N / n (5 / n), between the two shares
#: above: the count's Laplace scale at epsilon 1 is n / 5 edges up to EDGE_COUNT_SMALL_N nodes
EDGE_COUNT_SMALL_N = 250
#: the edge count's standard deviation, as a share of the released count, that a second
#: release of it buys where the first share leaves more (edge_count_top_up): a relative error
#: of about 0.4% on average. Graphs of 16,000 edges at epsilon 0.5 (1,000 nodes, mean degree
#: 33) are 0.6% off with the first share alone
EDGE_COUNT_TARGET_SD = 0.005
#: the most that second release takes, as a share of epsilon; a quarter of what the block
#: model would get at most (edge_count_top_up's ``room``)
EDGE_COUNT_TOP_UP_MAX = 0.04
#: the triangles and wedges of the degree-capped projection (docs/privacy.md 7.11), which set
#: the density of the sampler's affinity groups (clustering)
CLUSTERING_SHARE = 0.05
#: of release_synthetic's epsilon, out of the community share: the cut sides of one forward pass
#: in released-degree order (docs/privacy.md 7.15), which the sampler leans its edges across
#: where the released model carries no cut of its own. Measured (10 seeds, eps 0.5-4): the
#: max-cut transfer of facebook's and ca-hepph's samples rises from the level of random sides
#: (0.863-0.879) to 0.873-0.914, above TmF's in all eight cells; 0.1 gains little more there
#: (0.876-0.927) and costs the communities more (facebook's degree classes 5 -> 4 at eps 1,
#: EVC overlap 0.66 -> 0.33; benchmarks/NOTES.md)
SIDE_SHARE = 0.05
#: of the block model's epsilon in release_split_block_model: the inter-block counts (the rest:
#: the across degrees; the inside degrees get the whole epsilon by parallel composition, 7.7)
SPLIT_COUNT_SHARE = 0.3

# -- dpgraph.max_cut / max_bisection: fractions of epsilon --------------------------------------
#: the Laplace estimate of the answer's cut (docs/privacy.md 4.10)
ANSWER_ESTIMATE_SHARE = 0.1
#: the private choice among candidate partitions (docs/privacy.md 4.11)
ANSWER_SELECT_SHARE = 0.04

#: ``certify=True``: the released bound on the input's relaxation (docs/privacy.md 4.13), at
#: most this share of epsilon and no more than what puts its Laplace scale at
#: ``(1 + CERTIFY_GAP) m^ / _CERTIFY_CAP`` (0.075% of the released edge count)
CERTIFY_SHARE = 0.1
#: the verified gap ``tau`` of that bound (in weight units): the released function lies in
#: ``[SDP(G), SDP(G) + tau]``, so its sensitivity is ``1 + tau``; ``tau = certify_gap(n)``,
#: at least CERTIFY_GAP and ``n / CERTIFY_GAP_NODES``: the dual certificate of a low-rank
#: solve is tight to a relative accuracy, so its absolute gap grows with n (ca-hepph, 12,008
#: nodes: 0.5 was not verified after two solves, 1.0 once in two)
CERTIFY_GAP = 0.5
CERTIFY_GAP_NODES = 8000.0

# -- dpgraph.max_2csp: fractions of epsilon -----------------------------------------------------
CSP_ESTIMATE_SHARE = 0.01
CSP_SELECT_SHARE = 0.02
#: the total constraint weight (docs/privacy.md 6.5; Laplace, sensitivity 1), whose upper end
#: bounds the estimate's feasible range, as the screening count does for max_cut
CSP_TOTAL_SHARE = 0.005

# -- the degree-ordered local route: fractions of its epsilon -----------------------------------
#: the released degrees that order the nodes (docs/privacy.md 14.1)
LOCAL_DEGREE_SHARE = 0.05
#: of the decision budget: the refinement sweep (docs/privacy.md 14.3)
LOCAL_REFINE_SHARE = 0.2

# the absolute caps of the answer's side releases: the choice's Gumbel scale at 0.1% and the
# estimate's Laplace scale at 0.5% of the released edge count (cuts are of order m / 2)
_SELECT_CAP, _ESTIMATE_CAP = 1000.0, 200.0
# the certificate's cap: scale (1 + tau) / eps_c at most (1 + tau) m^ / 2000
_CERTIFY_CAP = 2000.0


def left(total: float, *spent: float) -> float:
    """What remains of ``total`` after the steps ``spent`` (basic composition), subtracted in
    order (so the float result is the same wherever a split is stated).

    >>> left(1.0, 0.005, 0.04, 0.1)
    0.855
    """
    for amount in spent:
        total = total - amount
    return total


def edge_count_share(n: int) -> float:
    """Share of epsilon for :func:`dpgraph.release_synthetic`'s edge count (docs/privacy.md
    7.10), a function of the public ``n``: ``EDGE_COUNT_SHARE * EDGE_COUNT_SMALL_N / n``
    (``5 / n``) clipped to ``[EDGE_COUNT_SHARE, EDGE_COUNT_MAX_SHARE]``: its Laplace scale at
    epsilon 1 is ``n / 5`` edges (about 40% of the edges at mean degree 1) from 34 to 250
    nodes, and 50 edges on larger graphs, as before.

    >>> round(edge_count_share(34), 4), round(edge_count_share(77), 4), edge_count_share(2277)
    (0.1471, 0.0649, 0.02)
    """
    return min(max(EDGE_COUNT_SHARE * EDGE_COUNT_SMALL_N / max(int(n), 1), EDGE_COUNT_SHARE),
               EDGE_COUNT_MAX_SHARE)


def edge_count_top_up(m_hat: float, epsilon: float, share: float, room: float = 1.0) -> float:
    """Share of epsilon for a second, independent release of the edge count (docs/privacy.md
    7.10), a function of the first release ``m_hat`` (at ``share * epsilon``), ``epsilon`` and
    the public plan only. The inverse-variance combination of the two Laplace counts has
    standard deviation ``sqrt(2) / (epsilon sqrt(share^2 + s^2))``; the second share ``s`` is
    the least that puts it at ``EDGE_COUNT_TARGET_SD * m_hat`` (at least ``share / 2``), and 0
    where the first is already there, or where even ``min(EDGE_COUNT_TOP_UP_MAX, room / 4)``
    (``room``: the share the block model would get without it) would not reach it: a count
    whose noise is large beside the released count (a small graph, a tiny epsilon) is not
    worth the model's budget.

    >>> edge_count_top_up(16714, 0.5, 0.02) > 0, edge_count_top_up(16714, 1.0, 0.02)
    (True, 0.0)
    >>> round(edge_count_top_up(16714, 0.5, 0.02), 4)
    0.0273
    >>> edge_count_top_up(78, 1.0, 0.147)  # karate: no share reaches 0.5%
    0.0
    """
    target = EDGE_COUNT_TARGET_SD * float(m_hat)
    if not (target > 0 and epsilon > 0 and share > 0):
        return 0.0
    need = math.sqrt(2.0) / (float(epsilon) * target)  # the combined share sqrt(s0^2 + s^2)
    if need <= share:
        return 0.0
    top = max(math.sqrt(need ** 2 - share ** 2), share / 2.0)
    return top if top <= edge_count_top_up_cap(room) else 0.0


def edge_count_top_up_cap(room: float = 1.0) -> float:
    """The most :func:`edge_count_top_up` gives the second count: ``EDGE_COUNT_TOP_UP_MAX``,
    and no more than a quarter of ``room`` (the block model's share without it).

    >>> edge_count_top_up_cap(), edge_count_top_up_cap(0.1)
    (0.04, 0.025)
    """
    return min(EDGE_COUNT_TOP_UP_MAX, room / 4.0)


def release_split(epsilon: float, synthetic_share: float | None) -> tuple[float, float]:
    """``(route's epsilon, synthetic block model's epsilon)`` of :func:`dpgraph.privatize`:
    ``synthetic_share`` of epsilon for the block model (none when None), the rest for the
    route (basic composition)."""
    eps_synthetic = 0.0 if synthetic_share is None else synthetic_share * epsilon
    return epsilon - eps_synthetic, eps_synthetic


def answer_side_budgets(epsilon: float, select_share: float, estimate_share: float,
                        m_hat: float | None = None) -> tuple[float, float]:
    """Epsilon of a private answer's choice (docs/privacy.md 4.11) and of its estimate (4.10).

    At most ``select_share`` / ``estimate_share`` of epsilon, and no more than what puts the
    choice's Gumbel scale at 0.1% and the estimate's Laplace scale at 0.5% of the released
    size ``m_hat`` (edge count or constraint weight). Both releases need a fixed *absolute*
    epsilon for a given accuracy, so at large epsilon they take an ever smaller share and the
    rest goes to the release that limits the answer. A function of released values only.

    >>> answer_side_budgets(1.0, 0.04, 0.01, m_hat=100.0)  # a small graph: the shares
    (0.04, 0.01)
    >>> answer_side_budgets(10.0, 0.04, 0.01, m_hat=1e5)  # a large one: 1000 / m, 200 / m
    (0.01, 0.002)
    """
    eps_s, eps_e = select_share * epsilon, estimate_share * epsilon
    if m_hat is None:
        return eps_s, eps_e
    m = max(float(m_hat), 1.0)
    return min(eps_s, _SELECT_CAP / m), min(eps_e, _ESTIMATE_CAP / m)


def certify_budget(epsilon: float, m_hat: float | None = None) -> float:
    """Epsilon of ``certify=True``'s released bound (docs/privacy.md 4.13): ``CERTIFY_SHARE``
    of epsilon, capped at ``2000 / m^`` when the released edge count ``m^`` is known (the bound
    is of order ``m``; its noise needs a fixed absolute epsilon for a given relative accuracy).
    A function of public and released values only.

    >>> certify_budget(1.0), certify_budget(1.0, 10_000.0), certify_budget(1.0, 100_000.0)
    (0.1, 0.1, 0.02)
    """
    eps_c = CERTIFY_SHARE * epsilon
    if m_hat is None:
        return eps_c
    return min(eps_c, _CERTIFY_CAP / max(float(m_hat), 1.0))


def certify_gap(n: int) -> float:
    """The verified gap ``tau`` of ``certify=True``'s bound at public ``n`` (docs/privacy.md
    4.13): ``max(CERTIFY_GAP, n / CERTIFY_GAP_NODES)``.

    >>> certify_gap(800), certify_gap(4000), certify_gap(12008)
    (0.5, 0.5, 1.501)
    """
    return max(CERTIFY_GAP, int(n) / CERTIFY_GAP_NODES)
