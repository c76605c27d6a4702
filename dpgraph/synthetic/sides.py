"""Private cut sides for a synthetic graph: one read-once pass in released-degree order.

:func:`side_pass` (pure ``epsilon``-DP, docs/privacy.md 7.15) decides a side ``+-1`` for each
node the way the local Max-Cut route's forward pass does (docs/privacy.md 14.2): nodes in the
order of a *released* degree (largest first), in growing batches; each node of a batch releases
its weighted field ``sum_u w_uv x_u`` over the nodes of earlier batches (``x_u`` their sides; 0
for nodes not yet decided) plus Laplace noise, and takes the side against it
(:func:`dpgraph.privacy.batches.forward_sides`, the local route's pass too). The sampler then
leans its Chung-Lu edges across these sides (:func:`~dpgraph.synthetic.sampler.sample_block_model`,
``sides`` and ``side_accept``: post-processing, docs/privacy.md 7.13), so a Max-Cut found on a
sample cuts the graph's own edges. Where the model's own best split of its blocks
(:func:`best_block_split`) cuts more than half of its released edges, the pass starts from
that split (each node decides on its field plus what the model expects of it,
:func:`split_prior`: post-processing), and :func:`release_cut_lead`
(pure ``epsilon``-DP, sensitivity 1) releases by how much the sides cut more of the graph than
that split, and the samples lean only where that is positive. Lives in the synthetic layer (no
import of the routes): the release reads its order from the degrees it already released.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData
from dpgraph.privacy import LaplaceDraws, PrivacyLedger, laplace_mechanism, make_rng
from dpgraph.privacy.batches import batch_bounds, forward_sides
from dpgraph.privacy.noise import laplace_add_scale
from dpgraph.progress import report

__all__ = ["side_pass", "split_prior", "model_cut_share", "best_block_split", "release_cut_lead",
           "SIDE_GROWTH", "SIDE_PRIOR_MARGIN"]

# batches of this share of the position after a first node, as the local route's forward pass
SIDE_GROWTH = 0.01
# Where the pass starts from the model's split of its blocks (side_pass's ``split``), a node
# keeps its block's side unless its released field says otherwise by more than this many
# Laplace scales times its block's net lean across the split (split_prior)
SIDE_PRIOR_MARGIN = 4.0


def split_prior(order, bounds, degrees, blocks, block_counts, y, *, scale: float,
                margin: float = SIDE_PRIOR_MARGIN) -> np.ndarray:
    r"""What a released block model expects of each node's field in the pass, where every node
    takes its block's side of the split ``y`` (+-1 per block): added to the released field
    before the decision (post-processing of released values; docs/privacy.md 7.15).

    For the node ``v`` of block ``b`` at a batch ``t`` of the pass (``order`` and ``bounds``
    as in :func:`side_pass`), with ``P_bc`` the share of block ``b``'s released edge ends
    that go to block ``c`` (``block_counts``, the inside count twice) and ``L_c(t)`` the share
    of block ``c``'s released degree in batches after ``t``:

    .. math:: g_v = d_v \sum_c P_{bc} y_c L_c(t) - \mathrm{margin}\,\mathrm{scale}\,
              \Bigl|\sum_c P_{bc} y_c\Bigr|\, y_b

    The first term is the field the node's *later* neighbours would give if they kept their
    blocks' sides (the pass reads only the earlier ones); the second holds the node on its
    block's side unless its released field, of Laplace noise ``scale``, says otherwise by
    ``margin`` scales times its block's net lean across the split (0 for a block whose edges
    the split divides evenly). Returned in position order (``out[i]`` for ``order[i]``).

    >>> C = np.array([[0, 10], [10, 0]])  # two blocks joined by all their edges
    >>> g = split_prior(np.arange(4), [(0, 1), (1, 4)], np.ones(4), np.array([0, 1, 0, 1]),
    ...                 C, np.array([1.0, -1.0]), scale=1.0, margin=0.0)
    >>> g.round(3).tolist()  # node 0 (block 0) expects its later neighbours on side -1
    [-1.0, 0.0, 0.0, 0.0]
    """
    blocks = np.asarray(blocks, dtype=np.int64)
    d = np.asarray(degrees, dtype=float)
    y = np.asarray(y, dtype=float)
    k = y.size
    E = np.array(block_counts, dtype=float)
    E[np.diag_indices(k)] *= 2.0  # an edge inside a block has both ends there
    P = E / np.maximum(E.sum(axis=1), 1e-300)[:, None]
    lean = np.abs(P @ y)
    nb = len(bounds)
    batch = np.repeat(np.arange(nb), [b - a for a, b in bounds])  # each position's batch
    blk, deg = blocks[order], d[order]
    mass = np.bincount(batch * k + blk, weights=deg, minlength=nb * k).reshape(nb, k)
    later = np.cumsum(mass[::-1], axis=0)[::-1] - mass  # mass in the batches after t
    later /= np.maximum(mass.sum(axis=0), 1e-300)
    # per batch and block: the later neighbours' field per unit of released degree (one
    # product, k x k by k x batches)
    expected = (P @ (y[:, None] * later.T)).T
    return deg * expected[batch, blk] - margin * scale * lean[blk] * y[blk]


def side_pass(data: GraphData, released_degrees, *, epsilon: float, ledger: PrivacyLedger,
              rng=None, growth: float = SIDE_GROWTH, split=None) -> np.ndarray:
    """Sides ``x`` in ``{-1, +1}^n`` from one forward pass (pure ``epsilon``-DP; docs/privacy.md
    7.15).

    The order is by ``released_degrees`` (largest first; ties at random): a released value,
    so the order and the batches (:func:`dpgraph.privacy.batches.batch_bounds`, one node, then
    ``growth`` times the position) are public. Node ``v`` of a batch releases
    ``f_v = sum_u w_uv x_u + Laplace(1 / epsilon)`` over the nodes ``u`` of earlier batches and
    takes ``x_v = -sign(f_v)`` (a fair coin at 0). A pair is read once, by its later endpoint,
    and moves one released field by at most its weight (weights in [0, 1]); pairs inside a
    batch are never read: the adaptive releases over disjoint pairs have L1 sensitivity 1 in
    all, ``epsilon`` once.

    ``split = (blocks, block_counts, y)`` (a released block model's blocks and counts, and a
    split ``y`` of its blocks): each node decides on ``f_v + g_v`` instead, ``g_v`` the
    model's expectation of :func:`split_prior` (post-processing: the releases and their
    sensitivity are the same).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> G = as_graph_data(nx.complete_bipartite_graph(20, 20))
    >>> led = PrivacyLedger(epsilon=50, delta=0)
    >>> x = side_pass(G, G.degrees, epsilon=50, ledger=led, rng=0)
    >>> cut = float((x[:20, None] != x[None, 20:]).mean())  # share of the 400 edges cut
    >>> cut > 0.8, led.spent[0]
    (True, 50.0)
    """
    gen = make_rng(rng)
    A = sp.csr_array(data.weights)
    n = data.n
    d = np.asarray(released_degrees, dtype=float).reshape(-1)
    if d.shape != (n,) or not np.all(np.isfinite(d)):
        raise ValueError(f"released_degrees must be {n} finite numbers")
    order = np.lexsort((gen.random(n), -d))  # largest first, ties in a random order
    ledger.charge("synthetic: cut sides (forward pass)", mechanism="discrete laplace",
                  epsilon=epsilon, sensitivity=1.0, sensitivity_norm="l1",
                  noise_scale=laplace_add_scale(1.0, epsilon),
                  note="adaptive, disjoint reads in released-degree order: each pair read once, "
                       "by its later endpoint's field; inside-batch pairs never "
                       "(docs/privacy.md 7.15)")
    report(f"synthetic: cut sides of {n:,} nodes")
    x = np.zeros(n)
    # one discrete Laplace draw per position, drawn ahead in one call (docs/privacy.md 13.1)
    noise = LaplaceDraws((n,), sensitivity=1.0, epsilon=epsilon, changed=1, ledger=ledger,
                         rng=gen)
    bounds = batch_bounds(0, n, 1, growth)
    prior = np.zeros(n) if split is None else \
        split_prior(order, bounds, d, *split, scale=1.0 / epsilon)
    forward_sides(lambda rows, sides: A[rows] @ sides, order, x, bounds,
                  lambda field, a, b: noise.add(field, slice(a, b)) + prior[a:b], gen)
    return x


def best_block_split(block_counts, *, rng=None, starts: int = 32) -> tuple[float, np.ndarray]:
    """The best split of a released model's *blocks* found by single-block flips from
    ``starts`` random splits (a local optimum: a lower bound on the maximum), and the share of
    the model's edges it cuts: ``max_y sum_{a<b, y_a != y_b} C_ab / sum_{a<=b} C_ab`` over
    ``y`` in ``{-1, +1}^k`` (post-processing of released counts). Returns ``(share, y)``.

    >>> C = np.array([[0, 10, 1], [10, 0, 1], [1, 1, 0]])  # two blocks joined by 10 edges
    >>> share, y = best_block_split(C, rng=0)
    >>> round(share, 3), bool(y[0] != y[1])
    (0.917, True)
    """
    gen = make_rng(rng)
    W = np.array(block_counts, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"block_counts must be a square matrix, got shape {W.shape}")
    total = float(np.triu(W).sum())
    np.fill_diagonal(W, 0.0)
    k = W.shape[0]
    if total <= 0 or k < 2:
        return 0.0, np.ones(k)
    best, best_y = -1.0, np.ones(k)
    for _ in range(int(starts)):
        y = np.where(gen.random(k) < 0.5, 1.0, -1.0)
        while True:
            gain = y * (W @ y)  # flipping block a moves the cut by y_a sum_b W_ab y_b
            a = int(np.argmax(gain))
            if gain[a] <= 1e-9:
                break
            y[a] = -y[a]
        value = float((W.sum() - y @ W @ y) / 4.0)
        if value > best:
            best, best_y = value, y
    return best / total, best_y


def model_cut_share(block_counts, *, rng=None, starts: int = 32) -> float:
    """The largest share of a released model's edges that a split of its *blocks* cuts, each
    block wholly on one side (:func:`best_block_split`). Random sides cut half of a graph's
    edges. The share is a maximum over noisy counts, so it overstates the split's cut of the
    graph itself (email-Eu-core at eps 0.5: 0.503-0.512 against 0.496-0.505); near one half,
    :func:`release_cut_lead` reads the graph to decide.

    >>> C = np.array([[0, 10, 1], [10, 0, 1], [1, 1, 0]])  # two blocks joined by 10 edges
    >>> round(model_cut_share(C, rng=0), 3)
    0.917
    """
    return best_block_split(block_counts, rng=rng, starts=starts)[0]


def release_cut_lead(data: GraphData, x, y, *, epsilon: float, ledger: PrivacyLedger,
                     rng=None) -> float:
    """``cut_G(x) - cut_G(y) + Laplace(1 / epsilon)``: by how much the sides ``x`` cut more of
    the graph's weight than the sides ``y`` (pure ``epsilon``-DP, docs/privacy.md 7.15). Both
    are fixed before the call (released values or functions of them); one pair ``{u, v}``
    whose weight moves by ``t`` (``|t| <= 1``) moves the difference by ``t ([x_u != x_v] -
    [y_u != y_v])``, at most 1: L1 sensitivity 1.

    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> G = as_graph_data(nx.complete_bipartite_graph(3, 3))
    >>> x, y = np.array([1, 1, 1, -1, -1, -1.0]), np.ones(6)
    >>> lead = release_cut_lead(G, x, y, epsilon=100, ledger=PrivacyLedger(), rng=0)
    >>> abs(lead - 9) < 1
    True
    """
    n = data.n
    x, y = (np.asarray(s, dtype=float).reshape(-1) for s in (x, y))
    if x.shape != (n,) or y.shape != (n,):
        raise ValueError(f"x and y must give a side for each of the {n} nodes")
    C = sp.triu(sp.csr_array(data.weights), 1).tocoo()
    across = (x[C.row] != x[C.col]).astype(float) - (y[C.row] != y[C.col])
    noisy, _ = laplace_mechanism(
        float(C.data @ across), sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="synthetic: cut sides against the model's split", rng=rng, changed=1,
        note="one pair moves the difference of two fixed cuts by at most its weight "
             "(docs/privacy.md 7.15)")
    return float(noisy)
