"""The degree-ordered local route: one private decision per node, each pair read once per pass
(pure epsilon-DP; docs/privacy.md 14).

Real graphs have no global two-block structure: their cut structure is local and concentrated
at the high-degree nodes. This route follows it:

1. **Order.** The weighted degrees are released with Laplace noise (L1 sensitivity 2,
   ``DEGREE_SHARE`` of the route's epsilon) and the nodes are ordered by released degree,
   largest first (on dense graphs spread by Gumbel draws, ``LocalPlan.order_spread``). From
   here on the order, and the released edge count ``m^ = sum(d^) / 2``, are public.
2. **Core** (explicit plans only, :class:`LocalPlan`): the first
   ``k`` nodes of the order. Their pairs are released by randomized response (weights in
   ``[0, 1]`` are Bernoulli-rounded first, docs/privacy.md 4.12), de-biased, and the core's
   sides are the engine's Max-Cut of that release (post-processing).
3. **Forward pass.** The other nodes in batches along the order (``FIRST_BATCH`` nodes, growing
   to ``BATCH_GROWTH`` of the position): node ``v`` releases the field
   ``s_v = sum_u w_uv x_u`` over the neighbours ``u`` decided *before its batch*, plus
   ``Laplace(1 / eps_1)`` (the exact discrete Laplace of docs/privacy.md 13.1, through
   :func:`~dpgraph.privacy.laplace_add`), and takes the side ``x_v = -sign`` of the released
   field (the side opposite to most of its decided neighbours). Pairs inside a batch and pairs
   of the core are not read here, every other pair exactly once (by its later endpoint), and
   one pair's weight moves ``s_v`` by at most 1: the pass is ``eps_1``-DP by adaptive
   composition over disjoint reads (docs/privacy.md 14.2). Releasing the noisy field and taking its sign is the
   Laplace-sign rule, whose error ``exp(-eps |s|) / 2`` is below the exponential mechanism's
   ``1 / (1 + exp(eps |s|))`` at every ``|s|``.
4. **Backward pass** (where :func:`plan_local` gives it a share): the same batches in reverse
   order; node ``v`` releases its field over the neighbours of *later* batches (their new sides)
   with ``Laplace(1 / eps_b)`` and takes ``-sign`` of its forward field plus that, weighted by
   the released backward fields' signal share near its position (post-processing): a round of
   local search over all its neighbours in which each pair is read once more, by its earlier
   endpoint: ``eps_b`` (docs/privacy.md 14.9).
5. **Refinement sweep** (explicit plans only): every node, in the same
   batches, re-releases its field over *all* its neighbours' current sides with
   ``Laplace(2 / eps_2)`` and moves to the other side when the released field leans to its own
   side by more than one noise scale (a private round of local search). Each pair is read twice
   (once by each endpoint): ``eps_2`` in all.

The candidates (the forward pass's sides and, with a backward pass or a sweep, the sides after
each) are returned;
:func:`dpgraph.max_cut` chooses among them privately (docs/privacy.md 4.11).
``delta`` is never spent. Memory ``O(m + k^2)``; work ``O(m)`` per pass beyond the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import math

import numpy as np
import scipy.sparse as sp

from dpgraph.privacy.batches import batch_bounds as _batch_bounds, forward_sides, window_share
from dpgraph.privacy.budget import LOCAL_DEGREE_SHARE, LOCAL_REFINE_SHARE, left
from dpgraph.graph import GraphData
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.privacy import (PrivacyLedger, gumbel_noise, laplace_add, laplace_mechanism,
                             make_rng)
from dpgraph.privacy.noise import laplace_add_scale, laplace_add_variance
from dpgraph.progress import report
from dpgraph.release.routes.randomized_response import randomized_response_matrix

__all__ = ["LocalPlan", "LocalRelease", "LocalPrivateGraph", "plan_local", "release_order",
           "release_local_sides", "release", "estimated_memory", "batch_bounds", "balance_sides",
           "forward_pass", "release_local_labels", "label_scores",
           "backward_pass", "DEGREE_SHARE", "FIRST_BATCH", "BATCH_GROWTH", "REFINE_SHARE",
           "SPREAD_RAMP", "ORDER_SPREAD_MAX", "BACKWARD_RAMP", "BACKWARD_SHARE_MAX",
           "REFINE_RAMP", "REFINE_NODES", "REFINE_SHARE_MAX", "BACKWARD_TO_REFINE", "SWEEP_WEIGHTS",
           "sweep_budgets",
           "DASK_FIRST_BATCH", "DASK_BATCH_GROWTH"]

# Share of the route's epsilon for the degrees that fix the order (the order only needs to be
# roughly right; the decisions need the budget): dpgraph.privacy.budget.LOCAL_DEGREE_SHARE.
DEGREE_SHARE = LOCAL_DEGREE_SHARE
# Batches along the order: FIRST_BATCH node(s), growing to BATCH_GROWTH of the position. A pair
# inside a batch is never read by the forward pass, so small batches keep almost every pair;
# the growth keeps the number of batches (sparse row products) near log(n) / BATCH_GROWTH.
# Measured (benchmarks/NOTES.md "Private Max-Cut: the dense
# routes and the local route"): batches of 1,000 nodes lose 0.01-0.18 of transfer ratio on
# chameleon, facebook and ca-hepph against these.
FIRST_BATCH = 1
BATCH_GROWTH = 0.01
# The plan is a continuous function of the released density rho = 2 m^ epsilon / n (public n,
# released m^, the decision budget), so that neither a larger epsilon nor the noise of m^ can
# switch it abruptly (docs/privacy.md 14.9):
# - the order spread ramps linearly from 0 at rho = SPREAD_RAMP[0] to ORDER_SPREAD_MAX at
#   SPREAD_RAMP[1]: on sparse graphs the strict degree order lets low-degree nodes see all
#   their (earlier, higher-degree) neighbours; on dense ones a spread order lets every node see
#   about half of its neighbours decided and gives the greedy pass a better start;
# - the backward pass's share of the decision budget ramps linearly from 0 at
#   rho = BACKWARD_RAMP[0] to BACKWARD_SHARE_MAX at BACKWARD_RAMP[1].
# Where each pays (benchmarks/NOTES.md, "The local route's plan"): the backward candidate beats
# the forward pass from rho of about 40-80 (chameleon from 12); below, the forward pass needs
# the whole budget. The core remains for explicit plans (LocalPlan);
# - refinement sweeps (14.3) take REFINE_SHARE_MAX * g of the decision budget and the backward
#   pass BACKWARD_TO_REFINE * g less, with g = ramp(rho; REFINE_RAMP) times a ramp in log n over
#   REFINE_NODES; the sweeps split their share by SWEEP_WEIGHTS. On large graphs the early
#   decisions of the passes form domains of opposite signs that the backward pass only partly
#   joins; each sweep (all neighbours' current sides) flips the nodes that disagree with the
#   leading orientation, so a few cheap sweeps join the domains and a last, larger one settles
#   the nodes that the cheap ones' noise left on the wrong side (planted-200000-50 at eps 4,
#   the release at 0.9 eps, seeds 0-2: backward 0.81 / 0.89 / 0.76 of the reference; one sweep
#   0.990 / 0.999 / 0.912; these sweeps 1.000 / 1.000 / 1.000). The sweeps amplify an
#   orientation the passes leave, they do not create one: max_cut as called there failed at 2
#   of 5 seeds (0.858, 0.762), where the backward sides' overlap with the planted cut was 0.04
#   or less (benchmarks/NOTES.md, "the failing seeds of planted-200000-50"). On graphs of up
#   to ~10^4 nodes one sweep cost the passes more than it gave (facebook and ca-hepph at eps 2
#   and 4: up to 0.014 below; benchmarks/NOTES.md, "Why "auto" misses the matrix-free route").
SPREAD_RAMP, ORDER_SPREAD_MAX = (8.0, 24.0), 1.0
BACKWARD_RAMP, BACKWARD_SHARE_MAX = (30.0, 80.0), 0.4
# The backward pass weighs each released backward field by its signal share (window_share) over
# the SHRINK_WINDOW positions from its batch on (the batch and the nodes just after it, released
# before it), so that a node with few later neighbours keeps its forward decision instead of
# following the backward noise. Measured against the unweighted sum (route="local", ten seeds,
# paired, share of the random-to-reference gap closed): chameleon eps 2 +0.041 (SE 0.002),
# ca-hepph eps 4 +0.018, facebook eps 2 +0.010, planted-2000-50 eps 1 +0.059; G3 eps 2 -0.006
# (SE 0.004), planted-2000-50 eps 2 -0.008, planted-cut-n1000-d20 eps 4 -0.007; windows of 200
# and 500 within 0.002 of each other (benchmarks/NOTES.md). SHRINK_WINDOW lives in
# dpgraph.privacy.batches, shared with the communities' label passes.
REFINE_RAMP, REFINE_NODES = (100.0, 150.0), (2e4, 2e5)
REFINE_SHARE_MAX, BACKWARD_TO_REFINE = 0.4, 0.2
SWEEP_WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0, 5.0)
REFINE_SHARE = LOCAL_REFINE_SHARE
# On Dask every batch is a pass over the edges: the first batch is DASK_FIRST_BATCH of the nodes
# and batches grow by DASK_BATCH_GROWTH of the position (about 32 batches whatever n).
DASK_FIRST_BATCH, DASK_BATCH_GROWTH = 0.001, 0.25
# Engine options of the core's solve (post-processing of the core's release).
_CORE_SOLVER = {"tol": 1e-3, "rank": 16, "certificate": False}


@dataclass(frozen=True)
class LocalPlan:
    """The public choices of the route: core size, refinement share, batches.

    >>> p = LocalPlan()  # the default: no core, no refinement, the released-degree order
    >>> p.core, p.refine_share, p.first_batch == FIRST_BATCH, p.sweep_weights
    (0, 0.0, True, (1.0,))
    """

    core: int = 0
    refine_share: float = 0.0
    first_batch: int = FIRST_BATCH
    batch_growth: float = BATCH_GROWTH
    #: spread of the order: nodes are ordered by ``log(1 + d^_v) + order_spread * G_v`` with
    #: ``G_v`` standard Gumbel draws (post-processing randomness); 0 is the released-degree order
    order_spread: float = 0.0
    #: of the decision budget: the backward pass (docs/privacy.md 14.9)
    backward_share: float = 0.0
    #: relative budgets of the refinement sweeps, in order (``refine_share`` of the decision
    #: budget in all; docs/privacy.md 14.3): one sweep by default
    sweep_weights: tuple = (1.0,)


def _ramp(rho: float, span: tuple) -> float:
    """0 below ``span[0]``, 1 above ``span[1]``, linear between."""
    return float(min(max((rho - span[0]) / (span[1] - span[0]), 0.0), 1.0))


def plan_local(n: int, m_hat: float, epsilon: float, *, passes_cost: bool = False) -> LocalPlan:
    """The plan of the route from public ``n``, a released edge count ``m_hat`` and the
    decision budget ``epsilon`` (no privacy cost): a continuous function of the released
    density ``rho = 2 m_hat epsilon / n`` (released mean degree times epsilon), which measures
    how much a node's decision can see.

    ``order_spread`` ramps from 0 at ``rho = SPREAD_RAMP[0]`` to ``ORDER_SPREAD_MAX`` at
    ``SPREAD_RAMP[1]``; ``backward_share`` from 0 at ``BACKWARD_RAMP[0]`` to
    ``BACKWARD_SHARE_MAX`` at ``BACKWARD_RAMP[1]``; on large dense graphs refinement sweeps
    (``refine_share``: ``REFINE_SHARE_MAX`` times a ramp in ``rho`` over ``REFINE_RAMP`` and in
    ``log n`` over ``REFINE_NODES``, split by ``SWEEP_WEIGHTS``; the backward pass gives up
    ``BACKWARD_TO_REFINE`` times the same ramp; none with ``passes_cost``). No core.
    ``passes_cost=True`` (edges on Dask, where every batch is one pass over the edges):
    ``DASK_FIRST_BATCH`` of the nodes first, growing by ``DASK_BATCH_GROWTH``.

    >>> plan_local(154908, 327162, 1.9).backward_share  # soc-douban, eps 2: rho 8
    0.0
    >>> p = plan_local(4039, 88234, 3.8)  # facebook, eps 4: rho 166
    >>> p.order_spread, p.backward_share, p.refine_share, p.core
    (1.0, 0.4, 0.0, 0)
    >>> p = plan_local(200000, 5e6, 3.0)  # planted-200000-50, eps 4: rho 150
    >>> round(p.backward_share, 3), round(p.refine_share, 3), len(p.sweep_weights)
    (0.2, 0.4, 6)
    >>> plan_local(200000, 5e6, 1.8).refine_share  # eps 2: rho 90
    0.0
    """
    rho = 2.0 * max(float(m_hat), 0.0) * float(epsilon) / max(int(n), 1)
    # on Dask each sweep would cost as many passes over the edges as the forward pass: none there
    sweep = 0.0 if passes_cost else _ramp(rho, REFINE_RAMP) * _ramp(
        math.log(max(int(n), 1)), tuple(map(math.log, REFINE_NODES)))
    shape = dict(order_spread=ORDER_SPREAD_MAX * _ramp(rho, SPREAD_RAMP),
                 backward_share=max(BACKWARD_SHARE_MAX * _ramp(rho, BACKWARD_RAMP)
                                    - BACKWARD_TO_REFINE * sweep, 0.0),
                 refine_share=REFINE_SHARE_MAX * sweep,
                 sweep_weights=SWEEP_WEIGHTS if sweep > 0 else LocalPlan.sweep_weights)
    if passes_cost:
        return LocalPlan(first_batch=max(1, int(DASK_FIRST_BATCH * n)),
                         batch_growth=DASK_BATCH_GROWTH, **shape)
    return LocalPlan(**shape)


def sweep_budgets(eps_2: float, sweep_weights) -> list[float]:
    """The sweeps' epsilons: ``eps_2`` split in proportion to ``sweep_weights`` (public; they sum
    to ``eps_2``, docs/privacy.md 14.3).

    >>> sweep_budgets(1.0, (1.0, 1.0, 2.0))
    [0.25, 0.25, 0.5]
    """
    w = [float(v) for v in sweep_weights]
    if not w or min(w) <= 0 or not all(math.isfinite(v) for v in w):
        raise ValueError(f"LocalPlan.sweep_weights must be positive finite numbers, got "
                         f"{tuple(sweep_weights)!r}")
    total = sum(w)
    return [eps_2 * v / total for v in w]


def batch_bounds(start: int, n: int, first: int = FIRST_BATCH,
                 growth: float = BATCH_GROWTH) -> list[tuple[int, int]]:
    """:func:`dpgraph.privacy.batches.batch_bounds` with the local route's defaults
    (``FIRST_BATCH``, ``BATCH_GROWTH``).

    >>> batch_bounds(4, 8)  # small n: one node per batch from position 4 (a core of 4)
    [(4, 5), (5, 6), (6, 7), (7, 8)]
    >>> batch_bounds(0, 10, first=3, growth=0.5)
    [(0, 3), (3, 6), (6, 9), (9, 10)]
    """
    return _batch_bounds(start, n, first, growth)


def estimated_memory(n: int, m: int, rank: int, core: int = 0, *,
                     edges_held: bool = True) -> int:
    """Peak bytes of the route from public sizes: a core's dense release and solve (about 48
    bytes per core pair; ``core`` nodes: only an explicit :class:`LocalPlan` has one, and
    :func:`release_local_sides` prices it before solving it), one batch of rows, and 320
    bytes per node: the route's
    length-n vectors and the answer built on them (``max_cut``'s assignment and partition, the
    command's output lists), measured at 238 bytes per node for ``max_cut`` (tracemalloc, n =
    10^6) and 329 for the whole ``dpgraph maxcut -o`` run above the interpreter, reading included
    (n = 3 * 10^6). ``rank`` is not used: the route has none. ``edges_held=False`` (a Dask
    edge list): the batch of rows is read on the workers, so no per-edge term.

    >>> estimated_memory(1000, 5000, 2) == estimated_memory(1000, 5000, 8)  # no rank
    True
    >>> estimated_memory(10**6, 10**7, 2) < 10**6 * 1000  # O(m + n): under 1 KB a node here
    True
    >>> estimated_memory(5000, 0, 2, core=1000) - estimated_memory(5000, 0, 2)
    48000000
    """
    k = min(max(int(core), 0), int(n))
    return int(48.0 * k * k + 320.0 * n + (24.0 * max(int(m), 0) / 10 if edges_held else 0.0))


@dataclass(eq=False)
class LocalRelease:
    """What the route released (and post-processing of it): no reference to the input.

    Attributes
    ----------
    order : ndarray
        Node indices by released degree, largest first (public after step 1).
    degrees : ndarray
        Released weighted degrees ``d^`` (Laplace, sensitivity 2).
    candidates : ndarray, (n, c) of +-1
        The forward pass's sides and, with a refinement sweep, the refined sides.
    fields : ndarray
        The forward pass's released fields (NaN for core nodes).
    confidence : ndarray
        ``|released field|`` of each node's last decision (``inf`` for core nodes): how firmly
        the release put it on its side; post-processing uses it to balance sides.
    candidate_confidence : tuple of ndarray
        One per column of ``candidates``: the confidence of the pass that produced it (the
        forward pass's ``|f_v|``, the backward pass's ``|f_v + k b_v|``, the last sweep's
        ``|g_v|``; ``inf`` for core nodes), so that each candidate is balanced by its own
        (docs/privacy.md 14.5); the last is ``confidence``.
    plan : LocalPlan

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> rel = release_local_sides(data, epsilon=2.0, ledger=PrivacyLedger(epsilon=2), rng=0)
    >>> rel.candidates.shape, sorted(np.unique(rel.candidates).tolist()), rel.order.size
    ((34, 1), [-1.0, 1.0], 34)
    """

    order: np.ndarray
    degrees: np.ndarray
    candidates: np.ndarray
    fields: np.ndarray
    confidence: np.ndarray
    plan: LocalPlan
    edge_count: float
    diagnostics: dict = field(default_factory=dict)
    candidate_confidence: tuple = ()


def release_order(degrees, *, epsilon: float, ledger: PrivacyLedger, rng,
                  spread: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Step 1: the weighted ``degrees`` released (Laplace, L1 sensitivity 2: one pair's weight
    moves two degrees by at most 1 each; docs/privacy.md 14.1) and the order by released
    degree; with ``spread > 0``, by ``log(1 + max(d^, 0)) + spread * Gumbel`` (post-processing:
    the Gumbel draws read nothing of the input).

    >>> led = PrivacyLedger(epsilon=100, delta=0)
    >>> dhat, order = release_order([1.0, 5.0, 3.0], epsilon=100.0, ledger=led, rng=0)
    >>> order.tolist(), led.spent  # by released degree, largest first (Laplace(2 / 100))
    ([1, 2, 0], (100.0, 0.0))
    """
    deg = np.asarray(degrees, dtype=np.float64).ravel()
    dhat, _ = laplace_mechanism(
        deg, sensitivity=2.0, epsilon=epsilon, ledger=ledger, name="local route: degrees",
        rng=rng, changed=2, note="one pair moves two degrees by <= 1 each (docs/privacy.md 14.1)")
    dhat = np.atleast_1d(np.asarray(dhat, dtype=np.float64))
    if spread <= 0:
        return dhat, np.argsort(-dhat, kind="stable")
    key = np.log1p(np.maximum(dhat, 0.0)) + float(spread) * rng.gumbel(size=dhat.size)
    return dhat, np.argsort(-key, kind="stable")


def _solve_core(weights, core: np.ndarray, *, epsilon: float, ledger: PrivacyLedger,
                rng) -> np.ndarray:
    """Step 2: randomized response on the core's pairs, de-biased, solved by the engine."""
    from dpgraph.engine import solve_max_cut

    sub = weights[core][:, core]
    W, _ = randomized_response_matrix(
        sub, epsilon=epsilon, ledger=ledger, rng=rng, name="local route: core pairs",
        note=f"randomized response on the {core.size} core nodes' pairs; read only here in "
             f"the first pass (docs/privacy.md 14.2)")
    del sub
    return np.asarray(solve_max_cut(W, rng=rng, **_CORE_SOLVER).x, dtype=np.float64)


def _rows_product(weights, rows: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(W x)[rows]``: a sparse row slice in memory; one pass over the edges on Dask (whose
    ``DaskAdjacency`` multiplies whole: the plan keeps the number of batches small there)."""
    if sp.issparse(weights):
        return weights[rows] @ x
    return (weights @ x)[rows]


def forward_pass(weights, order, x, fields, bounds, *, epsilon, ledger, rng) -> None:
    """Step 3 of the module docstring, in place: for each batch ``[a, b)`` of positions, the
    released fields ``fields[v] = sum_u w_uv x_u + Laplace(1 / epsilon)`` of its nodes (``x_u = 0``
    for nodes not yet decided) and their sides ``x[v] = -sign(fields[v])``
    (:func:`dpgraph.privacy.batches.forward_sides`). The caller has charged ``epsilon`` once
    (docs/privacy.md 14.2).

    On a path at a large epsilon each node takes the side opposite its decided neighbour:

    >>> import networkx as nx
    >>> W = sp.csr_array(nx.to_numpy_array(nx.path_graph(4)))
    >>> x, fields = np.zeros(4), np.full(4, np.nan)
    >>> led = PrivacyLedger(epsilon=1000, delta=0)
    >>> forward_pass(W, np.arange(4), x, fields, batch_bounds(0, 4), epsilon=1000.0, ledger=led,
    ...              rng=np.random.default_rng(0))
    >>> (x[:-1] * x[1:]).tolist(), led.spent  # every edge cut; charged by the caller
    ([-1.0, -1.0, -1.0], (0.0, 0.0))
    """
    forward_sides(lambda rows, sides: _rows_product(weights, rows, sides), order, x, bounds,
                  lambda field, a, b: laplace_add(field, sensitivity=1.0, epsilon=epsilon,
                                                  changed=1, ledger=ledger, rng=rng),
                  rng, fields)


def backward_pass(weights, order, x, earlier, bounds, *, epsilon, ledger, rng,
                  released=None) -> tuple[np.ndarray, np.ndarray]:
    """The backward pass (docs/privacy.md 14.9), over the forward pass's batches ``bounds`` in
    reverse order: node ``v`` releases ``b_v = sum_u w_uv y_u + Laplace(1 / epsilon)`` over the
    neighbours ``u`` of *later* batches (``y_u``: their new sides; 0 for the rest) and takes
    ``y_v = -sign(earlier_v + k b_v)`` (its old side at 0), ``earlier_v`` being its released
    forward field (its earlier neighbours still hold the sides that field summed) and ``k``
    the released backward fields' signal share near its position
    (:func:`~dpgraph.privacy.batches.window_share`, post-processing). Each pair is read once,
    by its earlier endpoint; nodes outside ``bounds`` (the core) keep their sides and read
    nothing. The caller charges ``epsilon`` once. Returns the new sides and
    ``|earlier + k b|``, the confidence of each decision (``inf`` for the core);
    ``released`` (length n), when given, receives the released ``b``.

    >>> import networkx as nx
    >>> W = sp.csr_array(nx.to_numpy_array(nx.path_graph(4)))
    >>> x = np.array([1.0, 1.0, -1.0, -1.0])  # cuts 1 of the 3 edges; no earlier fields
    >>> gen = np.random.default_rng(0)
    >>> y, conf = backward_pass(W, np.arange(4), x, np.zeros(4), batch_bounds(0, 4),
    ...                         epsilon=1000.0, ledger=PrivacyLedger(), rng=gen)
    >>> (y[:-1] * y[1:]).tolist()  # each node opposite its later neighbour: all 3 cut
    [-1.0, -1.0, -1.0]
    """
    y = np.zeros_like(x)
    conf = np.full(x.shape[0], np.inf)
    noise_var = laplace_add_variance(1.0, epsilon)
    by_position = np.zeros(order.size)  # released b^2, by position in the order
    for a, b in reversed(bounds):
        rows = order[a:b]
        noisy = laplace_add(_rows_product(weights, rows, y), sensitivity=1.0, epsilon=epsilon,
                            changed=1, ledger=ledger, rng=rng)
        if released is not None:
            released[rows] = noisy
        by_position[a:b] = noisy ** 2
        total = earlier[rows] + window_share(by_position, a, b, bounds[-1][1], noise_var) * noisy
        side = -np.sign(total)
        side[side == 0] = x[rows][side == 0]
        y[rows] = side
        conf[rows] = np.abs(total)
    start = bounds[0][0] if bounds else x.shape[0]
    y[order[:start]] = x[order[:start]]  # the core
    return y, conf


def _refine_sweep(weights, order, x, confidence, bounds, *, epsilon, ledger, rng) -> None:
    """Step 4, in place: flip a node when its released field (all neighbours, current sides)
    leans to its own side by more than one noise scale ``2 / epsilon``."""
    scale = 2.0 / epsilon
    for a, b in bounds:
        rows = order[a:b]
        # a pair moves two fields (its endpoints'), in one batch or two: L1 sensitivity 2
        noisy = laplace_add(_rows_product(weights, rows, x), sensitivity=2.0, epsilon=epsilon,
                            changed=2, ledger=ledger, rng=rng)
        lean = noisy * x[rows]
        flip = lean > scale
        x[rows[flip]] *= -1.0
        confidence[rows] = np.abs(noisy)


def release_local_sides(data: GraphData, *, epsilon: float, ledger: PrivacyLedger, rng,
                        plan: LocalPlan | None = None,
                        degree_share: float = DEGREE_SHARE) -> LocalRelease:
    """Steps 1-4 of the module docstring with ``epsilon`` in all (pure DP; docs/privacy.md 14).

    ``plan=None``: :func:`plan_local` from the released degrees (``m^ = sum(d^) / 2``).

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> rel = release_local_sides(data, epsilon=2.0, ledger=led, rng=0)
    >>> type(rel).__name__, rel.candidates.shape, rel.plan.core, led.spent  # pure DP
    ('LocalRelease', (34, 1), 0, (2.0, 0.0))
    """
    weights = data.weights
    n = data.n
    if plan is not None and plan.core > 0:  # an explicit core: priced before anything is spent
        from dpgraph.memory import check_memory

        if not (sp.issparse(weights) or isinstance(weights, np.ndarray)):
            raise ValueError(f"LocalPlan(core={plan.core}) needs the graph in memory: the core's "
                             f"pairs are read as one dense block, which edges on Dask "
                             f"({type(weights).__name__}) do not give; pass a plan with "
                             f"core=0 (plan_local's plans have none)")

        k = min(int(plan.core), n)
        check_memory(estimated_memory(k, 0, 0, core=k),
                     what=f"the local route's core of {k:,} nodes (a dense release of its pairs)",
                     fit=(lambda c: estimated_memory(c, 0, 0, core=c),
                          "LocalPlan(core=...) of at most {:,} nodes fits."))
    rng = make_rng(rng)
    eps_d = degree_share * epsilon
    eps_m = epsilon - eps_d
    dhat, order = release_order(data.degrees, epsilon=eps_d, ledger=ledger, rng=rng)
    if plan is None:
        plan = plan_local(n, float(dhat.sum()) / 2.0, eps_m,
                          passes_cost=not sp.issparse(weights))
    if plan.order_spread > 0:  # post-processing; a core stays the top nodes by released degree
        top, rest = order[:plan.core], order[plan.core:]
        key = np.log1p(np.maximum(dhat[rest], 0.0)) + plan.order_spread * rng.gumbel(
            size=rest.size)
        order = np.concatenate([top, rest[np.argsort(-key, kind="stable")]])
    m_hat = float(dhat.sum()) / 2.0
    eps_b = plan.backward_share * eps_m
    eps_2 = plan.refine_share * eps_m
    eps_1 = left(eps_m, eps_b, eps_2)
    x = np.zeros(n)
    fields = np.full(n, np.nan)  # the core's nodes release no field
    k = min(plan.core, n)
    if k:
        report(f"local route: core of {k:,} nodes (randomized response + engine)")
        core = order[:k]
        x[core] = _solve_core(weights, core, epsilon=eps_1, ledger=ledger, rng=rng)
    bounds = batch_bounds(k, n, plan.first_batch, plan.batch_growth)
    report(f"local route: forward pass over {n - k:,} nodes in {len(bounds):,} batches")
    # Parallel composition with the core's randomized response: the forward pass reads no core
    # pair, so the first pass costs eps_1 in all (charged by the core's release when there is a
    # core, here otherwise; docs/privacy.md 14.2).
    ledger.charge("local route: forward pass", mechanism="discrete laplace",
                  epsilon=0.0 if k else eps_1, sensitivity=1.0, sensitivity_norm="l1",
                  noise_scale=laplace_add_scale(1.0, eps_1),
                  note=(f"parallel composition with the core's randomized response: the two "
                        f"read disjoint pairs, so its eps {eps_1:.4g} is charged once, on the "
                        f"core's line; " if k else "") +
                       "adaptive, disjoint reads: each non-core pair read once, by its later "
                       "endpoint's field; inside-batch pairs never (docs/privacy.md 14.2)")
    forward_pass(weights, order, x, fields, bounds, epsilon=eps_1, ledger=ledger, rng=rng)
    confidence = np.where(np.isnan(fields), np.inf, np.abs(fields))
    candidates, confidences = [x.copy()], [confidence]
    if plan.backward_share > 0:
        report("local route: backward pass")
        ledger.charge("local route: backward pass", mechanism="discrete laplace",
                      epsilon=eps_b, sensitivity=1.0, sensitivity_norm="l1",
                      noise_scale=laplace_add_scale(1.0, eps_b),
                      note="adaptive, disjoint reads in reverse order: each non-core pair read "
                           "once, by its earlier endpoint's field (docs/privacy.md 14.9)")
        x, confidence = backward_pass(weights, order, x, np.nan_to_num(fields), bounds,
                                      epsilon=eps_b, ledger=ledger, rng=rng)
        candidates.append(x.copy())
        confidences.append(confidence)
    if plan.refine_share > 0:
        all_bounds = batch_bounds(0, n, plan.first_batch, plan.batch_growth)
        confidence = confidence.copy()  # the sweeps write a copy: the earlier ones stay
        for k, eps_k in enumerate(sweep_budgets(eps_2, plan.sweep_weights), 1):
            count = len(plan.sweep_weights)
            name = "local route: refinement sweep" + (f" {k}/{count}" if count > 1 else "")
            report(name)
            ledger.charge(name, mechanism="discrete laplace", epsilon=eps_k,
                          sensitivity=2.0, sensitivity_norm="l1",
                          noise_scale=laplace_add_scale(2.0, eps_k, 2),
                          note="adaptive; each pair read by both endpoints' fields, L1 "
                               "sensitivity 2 (docs/privacy.md 14.3)")
            _refine_sweep(weights, order, x, confidence, all_bounds, epsilon=eps_k,
                          ledger=ledger, rng=rng)
        candidates.append(x.copy())
        confidences.append(confidence)
    diagnostics = {"route": "local", "core": k, "refine_share": plan.refine_share,
                   "batches": len(bounds), "released_edge_count": m_hat,
                   "released_density": 2.0 * m_hat * eps_m / max(n, 1)}
    return LocalRelease(order=order, degrees=dhat, candidates=np.stack(candidates, axis=1),
                        fields=fields, confidence=confidence, plan=plan, edge_count=m_hat,
                        diagnostics=diagnostics, candidate_confidence=tuple(confidences))


def label_scores(label_adjacency, rows: np.ndarray, z: np.ndarray, q: int) -> np.ndarray:
    """``scores[i, a]``: the weight of the constraints of variable ``rows[i]`` to the decided
    variables (one-hot ``z`` of their labels, length ``n q``) that label ``a`` satisfies. One
    constraint of weight ``w <= 1`` adds ``w [(a, x_u) in R]`` to one variable's row: monotone,
    sensitivity 1 (docs/privacy.md 14.6).

    >>> from dpgraph.engine import CSPInstance
    >>> differ = {(0, 1), (1, 0)}  # constraints x0 != x1 and x1 != x2, q = 2
    >>> L = CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, 1.0)]).label_adjacency()
    >>> z = np.zeros(6); z[0 * 2 + 1] = 1  # variable 0 decided, with label 1
    >>> label_scores(L, np.array([1, 2]), z, 2).tolist()  # x1 = 0 satisfies; x2 sees nothing
    [[1.0, 0.0], [0.0, 0.0]]
    """
    idx = (np.asarray(rows)[:, None] * q + np.arange(q)[None, :]).ravel()
    return (label_adjacency[idx] @ z).reshape(len(rows), q)


def release_local_labels(label_adjacency, constraint_degrees: np.ndarray, q: int, *,
                         epsilon: float, ledger: PrivacyLedger, rng,
                         degree_share: float = DEGREE_SHARE,
                         plan: LocalPlan | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The local route for Max-2-CSP (docs/privacy.md 14.6): one label per variable.

    ``label_adjacency`` is the ``n q x n q`` label-extended adjacency (entry ``((v, a), (u, b))``:
    the weight of the constraints between ``v`` and ``u`` that allow ``(a, b)``) and
    ``constraint_degrees[v]`` the total weight of ``v``'s constraints (both private; weights in
    ``[0, 1]``). The constraint degrees are released (Laplace, L1 sensitivity 2) and fix the order;
    then, in batches along it, variable ``v`` takes the label ``a`` maximising
    ``score(v, a) + Gumbel(1 / eps_m)``, with ``score(v, a)`` the weight of its constraints to
    variables decided before its batch that ``a`` satisfies: the exponential mechanism on
    monotone scores of sensitivity 1, each constraint read once. Returns ``(labels, order)``.

    >>> from dpgraph.engine import CSPInstance
    >>> differ = {(0, 1), (1, 0)}
    >>> L = CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, 1.0)]).label_adjacency()
    >>> led = PrivacyLedger(epsilon=100, delta=0)
    >>> labels, order = release_local_labels(L, np.array([1.0, 2.0, 1.0]), 2, epsilon=100.0,
    ...                                      ledger=led, rng=np.random.default_rng(0))
    >>> bool(labels[0] != labels[1] != labels[2]), int(order[0]), led.spent  # both satisfied
    (True, 1, (100.0, 0.0))
    """
    n = int(constraint_degrees.shape[0])
    eps_d = degree_share * epsilon
    eps_m = epsilon - eps_d
    dhat, _ = laplace_mechanism(
        np.asarray(constraint_degrees, dtype=np.float64), sensitivity=2.0, epsilon=eps_d,
        ledger=ledger, name="local route: constraint degrees", rng=rng, changed=2,
        note="one constraint of weight <= 1 moves two degrees by <= 1 (docs/privacy.md 14.6)")
    order = np.argsort(-np.atleast_1d(dhat), kind="stable")
    plan = plan or LocalPlan()
    bounds = batch_bounds(0, n, plan.first_batch, plan.batch_growth)
    ledger.charge("local route: label choices", mechanism="exponential (monotone)",
                  epsilon=eps_m, sensitivity=1.0, sensitivity_norm="linf", noise_scale=1 / eps_m,
                  note="each constraint read once, by its later variable's choice; monotone "
                       "scores (docs/privacy.md 14.6)")
    A = sp.csr_array(label_adjacency)
    z = np.zeros(n * q)  # one-hot of the decided labels
    labels = np.full(n, -1, dtype=np.int64)
    for a, b in bounds:
        rows = order[a:b]
        scores = label_scores(A, rows, z, q)
        pick = np.argmax(scores + gumbel_noise((b - a, q), scale=1.0 / eps_m, ledger=ledger,
                                               rng=rng), axis=1)
        labels[rows] = pick
        z[rows * q + pick] = 1.0
    return labels, order


def balance_sides(x: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Sides of sizes within one of each other: the least confident nodes of the larger side
    (smallest ``confidence``, ties by index) move to the smaller side. Post-processing.

    >>> balance_sides(np.array([1., 1., 1., -1.]), np.array([3., 1., 2., 5.])).tolist()
    [1.0, -1.0, 1.0, -1.0]
    """
    x = np.asarray(x, dtype=np.float64).copy()
    plus = np.flatnonzero(x > 0)
    minus = np.flatnonzero(x <= 0)
    big, sign = (plus, -1.0) if plus.size > minus.size else (minus, 1.0)
    move = (abs(plus.size - minus.size)) // 2
    if move:
        weakest = big[np.argsort(confidence[big], kind="stable")[:move]]
        x[weakest] = sign
    return x


@dataclass(eq=False, repr=False)  # PrivateGraph's one-line repr, not every array
class LocalPrivateGraph(PrivateGraph):
    """:func:`dpgraph.privatize`'s release on the local route: released degrees and sides.

    ``sides`` (+-1 per node, the refined candidate) are a private two-way partition built for
    the cut; :meth:`sample` draws from the block model that :func:`dpgraph.privatize` releases
    on these sides (``synthetic_share``), so the synthetic graph keeps the cut structure.

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> pg = release(data, epsilon=2.0, delta=1e-6, rank=None, ledger=PrivacyLedger(), rng=0)
    >>> type(pg).__name__, pg.objective_names(), bool((pg.objective() == pg.sides).all())
    ('LocalPrivateGraph', ('sides',), True)
    """

    sides: np.ndarray | None = None
    local: LocalRelease | None = None

    def objective_names(self, rank: int | None = None) -> tuple:
        return ("sides",)

    def weights(self) -> np.ndarray:
        """Expected weights of the released block model on the sides (dense ``n x n``):
        ``W_ij = counts[b_i, b_j] * d_i d_j / (D_{b_i} D_{b_j})`` (``counts[b, b]`` counted
        once per pair inside a block). Needs the block model (``synthetic_share``)."""
        if self.block_model is None:
            raise ValueError("the local route releases degrees and sides, not pair weights: "
                             "call dpgraph.privatize with synthetic_share (e.g. 0.3) for a "
                             "block model whose expected weights and samples carry the sides")
        from dpgraph.memory import check_memory

        check_memory(16 * self.n * self.n, what=f"dense weights of {self.n:,} nodes",
                     alternative="Use .sample() (O(m) memory) instead of dense weights.")
        bm = self.block_model
        b = np.asarray(bm.blocks)
        d = np.maximum(np.asarray(bm.degrees, dtype=np.float64), 0.0)
        D = np.bincount(b, weights=d, minlength=bm.block_counts.shape[0])
        theta = np.divide(d, D[b], out=np.zeros_like(d), where=D[b] > 0)
        counts = np.maximum(np.asarray(bm.block_counts, dtype=np.float64), 0.0)
        # inside a block each pair appears twice in theta_i theta_j summed over ordered pairs
        scale = np.where(np.eye(counts.shape[0], dtype=bool), 2.0 * counts, counts)
        W = np.outer(theta, theta) * scale[np.ix_(b, b)]
        np.fill_diagonal(W, 0.0)
        return W

    def synthetic_blocks(self, k: int, rng=None) -> np.ndarray:
        """``2 c + side``: the released sides crossed with ``c = ceil(k / 2)`` classes of
        released degree (equal-count classes along the public order). Post-processing: the
        synthetic graph keeps the cut of the sides and the degree mixing of the classes."""
        classes = max(1, -(-int(k) // 2))
        rank = np.empty(self.n, dtype=np.int64)
        rank[self.local.order] = np.arange(self.n)
        cls = np.minimum(rank * classes // max(self.n, 1), classes - 1)
        return 2 * cls + (self.sides > 0)

    def objective(self, name: str = "sides") -> np.ndarray:
        if name != "sides":
            raise ValueError(f"objective {name!r}: the local route offers only 'sides'")
        return self.sides.copy()

    @property
    def edge_count(self) -> float:
        """The released edge count the exports aim at: the block model's (when released),
        else the route's noisy count clamped at 0 (post-processing), as the other routes'."""
        if self.block_model is not None:
            return float(self.block_model.edge_count)
        return max(0.0, float(self.local.edge_count))


def release(data: GraphData, *, epsilon: float, delta: float, rank: int, ledger: PrivacyLedger,
            rng, screening=None, plan: LocalPlan | None = None) -> LocalPrivateGraph:
    """:func:`dpgraph.privatize`'s entry to the route: :func:`release_local_sides` with the
    whole ``epsilon`` (``delta`` is not spent), as a :class:`LocalPrivateGraph` whose ``sides``
    are the last candidate (the refined sides when the plan has a sweep).

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> data = input_graph(nx.Graph(nx.karate_club_graph().edges()), weight=None)
    >>> led = PrivacyLedger(epsilon=2, delta=1e-6)
    >>> pg = release(data, epsilon=2.0, delta=1e-6, rank=None, ledger=led, rng=0)
    >>> pg.sides.shape, bool((pg.sides == pg.local.candidates[:, -1]).all()), led.spent
    ((34,), True, (2.0, 0.0))
    """
    rel = release_local_sides(data, epsilon=epsilon, ledger=ledger, rng=rng, plan=plan)
    diagnostics = {**rel.diagnostics, "screening": screening, "rank": rank,
                   "pca_halted": False,
                   "low_rank_mechanism": "none (degree-ordered local decisions)"}
    return LocalPrivateGraph(labels=data.labels, degrees=rel.degrees, normalizer=np.ones(data.n),
                             basis=None, core=None, projected=None, ledger=ledger,
                             diagnostics=diagnostics, sides=rel.candidates[:, -1].copy(),
                             local=rel)

