"""Private communities: the blocks a synthetic-graph release is built on.

Two sources (docs/privacy.md 7):

- **The spectral partition of a release** (:func:`synthetic_partition`, post-processing, no
  privacy cost), the blocks of :func:`dpgraph.privatize`'s export: k-means on the spectral
  embedding of the route's release (:func:`partition_from_release`: the top positive
  eigenvectors of the randomized-response release's de-biased matrix, or of the private
  low-rank factors ``basis @ core @ basis.T`` on the PCA and matrix-free routes, from the
  r x r core: never n x n), each community split in two by the sign of the release's most
  negative eigenvector (:func:`cut_side_from_release`), so the samples keep its cut structure.
- **Private communities from the graph** (:func:`private_communities`, pure DP), the blocks of
  :func:`dpgraph.release_synthetic`: random labels (by default) or Louvain on a noisy super-graph
  of random super-nodes (:func:`supergraph_communities`), then noisy local moves in sequential
  batches (:func:`refine_partition`): after PrivGraph's community step (Yuan et al., USENIX
  Security 2023).
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.cluster.vq import kmeans2
from scipy.sparse import linalg as spla

from dpgraph.privacy.budget import COMMUNITY_INIT_SHARE
from dpgraph.graph import GraphData
from dpgraph.memory import check_memory
from dpgraph.privacy import (LaplaceDraws, PrivacyLedger, laplace_add, laplace_mechanism,
                             make_rng)
from dpgraph.privacy.batches import batch_bounds, window_share
from dpgraph.privacy.noise import laplace_add_scale, laplace_add_variance
from dpgraph.progress import progress, report
from dpgraph.privacy.transcript import record
from dpgraph.spectral.linalg import arpack_start
from dpgraph.synthetic.block_model import block_edge_counts, check_blocks

__all__ = ["partition_from_release", "cut_side_from_release", "synthetic_partition",
           "node_block_counts", "refine_partition", "supergraph_communities",
           "private_communities", "DEFAULT_BLOCKS", "INIT_SHARE", "GROUP_SIZE", "MAX_GROUPS",
           "REFINE_BATCHES", "PASS_GROWTH", "label_passes", "label_pass_memory", "kmeans",
           "supergraph_size",
           "check_community_memory"]

# communities of privatize's spectral partition (each then split in two by the cut side)
DEFAULT_BLOCKS = 8
# private_communities' share of its epsilon for the super-graph (the rest: the refinement):
# dpgraph.privacy.budget.COMMUNITY_INIT_SHARE
INIT_SHARE = COMMUNITY_INIT_SHARE
# nodes per random super-node (PrivGraph's N1), and at most this many super-nodes: the noisy
# super-graph is dense, g (g + 1) / 2 Laplace draws, so g is capped to bound memory at
# 8 g^2 bytes (32 MB)
GROUP_SIZE = 20
MAX_GROUPS = 2000
# sequential batches per refinement round of private_communities: nodes move in this many
# batches, each read against the partition the earlier ones left (docs/privacy.md 7.4). From a
# random start, moving all nodes at once barely leaves it (released NMI 0.03 against the
# graph's Louvain partition on chameleon at epsilon 1); 64 batches reach 0.12, as many as one
# node per batch (0.12), at O(m + n k + 64 k) per round
REFINE_BATCHES = 64
# Bytes the refinement holds per (node of a batch, label) cell: the counts, their discrete
# Laplace noise and the gains (traced peaks of refine_partition at n = 20,000: 130 B per cell
# with one batch and 200 labels, 146-157 B with 8 or 64 batches and 200 or 2,000 labels); and
# the noisy super-graph per super-node pair (its dense g x g counts, Louvain's igraph copy:
# traced 73 B, resident 89-108 B at g = 1,000 and 2,000). Rounded up.
REFINE_BYTES_PER_CELL, SUPERGRAPH_BYTES_PER_PAIR = 160, 112
# label_passes: batches of this share of the position (after the first batch, one node per
# label), as the local route's forward pass
PASS_GROWTH = 0.01


def node_block_counts(weights, blocks, k: int | None = None) -> np.ndarray:
    """``N = A Z`` (n x k): each node's edge weight into each block. NOT PRIVATE (reads the
    graph); :func:`refine_partition` releases it (L1 sensitivity 2, docs/privacy.md 7.4).

    Examples
    --------
    >>> import scipy.sparse as sp, numpy as np
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> node_block_counts(A, np.array([0, 0, 1])).tolist()
    [[1.0, 1.0], [1.0, 0.0], [1.0, 0.0]]
    """
    b, kb = check_blocks(blocks, weights.shape[0])
    k = kb if k is None else int(k)
    Z = sp.csr_array((np.ones(b.size), (np.arange(b.size), b)), shape=(b.size, k))
    return (sp.csr_array(weights) @ Z).toarray()


def partition_from_release(pg, k: int = DEFAULT_BLOCKS, rng=None) -> np.ndarray:
    """Blocks from a :class:`~dpgraph.PrivateGraph` by spectral clustering (post-processing).

    Embedding: the eigenvectors of the ``k`` largest positive eigenvalues of the release
    (the randomized-response route's de-biased matrix; on the other routes
    ``basis @ core @ basis.T``, from its r x r core only), scaled by ``sqrt(eigenvalue)``, rows
    normalised to unit length (spherical spectral clustering, which suits heterogeneous
    degrees); then k-means++ (Lloyd) into ``k`` blocks. Uses only released values and fresh
    randomness: no privacy cost (docs/privacy.md 4.6).

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> from dpgraph.synthetic.communities import partition_from_release
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> pg = dpgraph.privatize(G, epsilon=4, delta=1e-6, rank=2, rng=0, synthetic_share=None)
    >>> partition_from_release(pg, 2, rng=0).shape
    (34,)
    """
    gen = make_rng(rng)
    k = int(k)
    if not 1 <= k <= pg.n:
        raise ValueError(f"k (number of blocks) must lie in [1, n={pg.n}], got {k}")
    if k == 1:
        return np.zeros(pg.n, dtype=np.int64)
    X = _embedding(pg, k)
    if X is None:
        return np.zeros(pg.n, dtype=np.int64)
    _, labels = kmeans(X, k, gen, iters=30)
    # relabel to 0..k'-1 (empty clusters dropped)
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)


def cut_side_from_release(pg) -> np.ndarray:
    """A two-sided split of the nodes along the release's most negative eigenvector (the
    spectral max-cut heuristic; post-processing, no privacy cost): 0/1 by its sign. From the
    randomized-response release's de-biased matrix, or from the r x r core of the low-rank
    routes (``basis @ core @ basis.T``)."""
    if pg.unbiased is not None:
        W = pg.unbiased
        if W.shape[0] <= 400:
            lam, vec = np.linalg.eigh(W)
            x = vec[:, np.argmin(lam)]
        else:
            x = spla.eigsh(W, k=1, which="SA", tol=1e-4, v0=arpack_start(W.shape[0]))[1][:, 0]
    elif pg.basis is not None:
        mu, U = np.linalg.eigh((pg.core + pg.core.T) / 2.0)
        x = pg.basis @ U[:, np.argmin(mu)]
    else:
        raise ValueError("this release holds neither a pair release nor low-rank factors")
    return (x > 0).astype(np.int64)


def synthetic_partition(pg, k: int = DEFAULT_BLOCKS, rng=None) -> np.ndarray:
    """The blocks :func:`dpgraph.privatize` releases its block model for: the ``k`` spectral
    communities of :func:`partition_from_release` crossed with the two sides of
    :func:`cut_side_from_release` (up to ``2k`` blocks; the side keeps the release's cut
    structure in the samples, so a cut found on a sample transfers to the input). Post-processing.

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> pg = dpgraph.privatize(nx.Graph(nx.karate_club_graph().edges()), epsilon=4, delta=1e-6,
    ...                        rank=2, rng=0, synthetic_share=None)
    >>> int(synthetic_partition(pg, 2, rng=0).max()) <= 3
    True
    """
    z = 2 * partition_from_release(pg, k, rng=rng) + cut_side_from_release(pg)
    return np.unique(z, return_inverse=True)[1].astype(np.int64)


def kmeans(X: np.ndarray, k: int, gen, iters: int = 10):
    """SciPy's k-means++ / Lloyd; an empty cluster is expected (it is dropped by relabelling),
    so its warning is silenced.

    Points with fewer than ``k`` distinct rows (an embedding that puts every node on one or two
    points, as a release with one positive eigenvalue does) are clustered exactly, one cluster
    per distinct row: k-means++ would run out of points to seed from and divide 0 by 0 (SciPy's
    ``D2 / D2.sum()``).

    >>> kmeans(np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 2), 4, None, iters=5)[1].tolist()
    [1, 1, 1, 0, 0]
    """
    X = np.asarray(X, dtype=float)
    distinct, inverse = np.unique(X, axis=0, return_inverse=True)
    if distinct.shape[0] < k:
        return distinct, inverse.reshape(-1).astype(np.int64)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="One of the clusters is empty")
        return kmeans2(X, k, minit="++", seed=gen, iter=iters)


def _embedding(pg, k: int):
    """Rows-normalised spectral embedding of the release (top positive eigenpairs), or None."""
    if pg.unbiased is not None:
        lam, V = _top_positive(pg.unbiased, k)
    elif pg.basis is not None:
        mu, U = np.linalg.eigh((pg.core + pg.core.T) / 2.0)
        order = np.argsort(-mu)[:k]
        lam, V = mu[order], pg.basis @ U[:, order]
    else:
        raise ValueError("this release holds neither a pair release nor low-rank factors")
    keep = lam > 0
    if not keep.any():
        return None
    X = V[:, keep] * np.sqrt(lam[keep])
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def _top_positive(W: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    n = W.shape[0]
    if n <= 400:
        lam, vec = np.linalg.eigh(W)
    else:
        lam, vec = spla.eigsh(W, k=min(k, n - 2), which="LA", tol=1e-4, v0=arpack_start(n))
    order = np.argsort(-lam)[:k]
    return lam[order], vec[:, order]


def _check_refine_memory(n: int, k: int, batches: int) -> None:
    rows = -(-int(n) // max(min(int(batches), int(n)), 1))  # the largest batch
    check_memory(REFINE_BYTES_PER_CELL * rows * int(k),
                 what=f"the community refinement of {int(n):,} nodes with {int(k):,} labels "
                      f"({rows:,} nodes per batch)",
                 fit=(lambda x: REFINE_BYTES_PER_CELL * rows * x,
                      "At most {:,} labels fit (init_labels), or more batches."))


def _check_supergraph_memory(n: int, group_size: int) -> None:
    g = supergraph_size(n, group_size)
    check_memory(SUPERGRAPH_BYTES_PER_PAIR * g * g,
                 what=f"the noisy super-graph of {g:,} super-nodes (group_size={group_size})",
                 fit=(lambda x: SUPERGRAPH_BYTES_PER_PAIR * x * x,
                      "At most {:,} super-nodes fit: a larger group_size (n // group_size "
                      "super-nodes), or init_labels >= 2."))


def check_community_memory(n: int, *, init_labels: int = 0, group_size: int = GROUP_SIZE,
                           batches: int = REFINE_BATCHES) -> None:
    """Refuse, before anything is spent, :func:`private_communities`' options whose arrays would
    not fit (:class:`~dpgraph.memory.InsufficientMemoryError`): the super-graph's ``g x g``
    counts (``init_labels=0``) and the refinement's batch of node-to-label counts, ``n /
    batches`` rows of ``k`` labels (``k = init_labels``, or ``g`` after the super-graph).
    Public sizes only. ``init_labels=10**7`` asked 23 GiB of a 20,000-node graph.

    >>> check_community_memory(10**6)  # the defaults: fits
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "200M"}):
    ...     check_community_memory(20000, init_labels=10**7)
    Traceback (most recent call last):
    ...
    dpgraph.memory.InsufficientMemoryError: the community refinement of 20,000 nodes with 10,000,000 labels ... At most 4,187 labels fit (init_labels), or more batches.
    """
    if init_labels:
        _check_refine_memory(n, init_labels, batches)
    else:
        _check_supergraph_memory(n, group_size)
        _check_refine_memory(n, supergraph_size(n, group_size), batches)


def refine_partition(data: GraphData, blocks, *, epsilon: float, ledger: PrivacyLedger,
                     rng=None, rounds: int = 2, batches: int = 1) -> np.ndarray:
    """Private local moves (Louvain's modularity gain) from ``blocks``: ``rounds`` rounds, each
    releasing the node-to-block edge counts ``N = A Z`` (n x k) with Laplace noise of scale
    ``2 rounds / epsilon`` (L1 sensitivity 2: one edge ``{i, j}`` changes ``N[i, z_j]`` and
    ``N[j, z_i]`` by at most 1 each; docs/privacy.md 7.4) and moving every node to the block
    of largest noisy gain ``N^_ib - d^_i vol^_b / vol^`` with ``d^ = N^ 1``,
    ``vol^_b = sum_{i in b} d^_i`` (post-processing). The rounds compose adaptively: total
    ``epsilon``. This is the community-adjustment step of PrivGraph (Yuan et al., USENIX
    Security 2023) as we read the paper; the PrivGraph-style baseline of
    ``benchmarks/bench_synthetic_baseline.py`` uses it. ``privatize`` does not: on chameleon it lowers the
    NMI of the spectral partition at epsilon >= 2.

    ``batches > 1``: each round visits the nodes in a fresh random order, in ``batches``
    consecutive batches; a batch's rows of ``N`` are read against the partition as the earlier
    batches left it (sequential moves, as in Louvain, instead of all nodes moving at once), and
    ``vol^`` is kept up to date with the latest ``d^`` of every node (nodes not yet released
    count with the mean ``d^`` so far). Each edge still enters two released rows per round (its
    endpoints', in one batch or two): the same noise and the same ``epsilon`` (docs/privacy.md
    7.4). From a nearly random start, simultaneous moves barely leave it; sequential ones
    snowball into communities. Cost ``O(m + n k + batches k)`` per round.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> G = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> z = refine_partition(G, np.arange(34) % 2, epsilon=2, ledger=led, rng=0)
    >>> z.shape, round(led.spent[0], 6)
    ((34,), 2.0)
    """
    b, k = check_blocks(blocks, data.n)
    rounds = int(rounds)
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if isinstance(batches, bool) or int(batches) != batches or batches < 1:
        raise ValueError(f"batches must be a positive integer, got {batches!r}")
    _check_refine_memory(data.n, k, 1 if int(batches) <= 1 else batches)  # before a charge
    gen = make_rng(rng)
    A = sp.csr_array(data.weights)
    del data
    if int(batches) > 1:
        b = _sequential_rounds(A, b, k, epsilon=epsilon, ledger=ledger, rng=gen, rounds=rounds,
                               batches=min(int(batches), A.shape[0]))
        return np.unique(b, return_inverse=True)[1].astype(np.int64)
    for t in progress(range(rounds), desc="communities: private refinement rounds",
                      unit="round"):
        N, _ = laplace_mechanism(
            node_block_counts(A, b, k), sensitivity=2.0, epsilon=epsilon / rounds, ledger=ledger,
            name=f"synthetic: node-to-block counts (round {t + 1}/{rounds})", rng=gen,
            note="one edge changes two entries by <= 1 each (docs/privacy.md 7.4)")
        d = np.maximum(N.sum(axis=1), 0.0)
        vol = np.bincount(b, weights=d, minlength=k)
        gain = N - np.outer(d, vol) / max(vol.sum(), 1.0)
        b = np.argmax(gain, axis=1).astype(np.int64)
    return np.unique(b, return_inverse=True)[1].astype(np.int64)


def _rows_block_counts(A: sp.csr_array, rows: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """``(A Z)[rows]`` without forming ``Z``: O(edges of the rows + len(rows) k). Neighbours
    with a negative label (not decided yet) are not read."""
    sub = A[rows]
    local = np.repeat(np.arange(rows.size), np.diff(sub.indptr))
    lab = b[sub.indices]
    keep = lab >= 0
    return np.bincount(local[keep] * k + lab[keep], weights=sub.data[keep],
                       minlength=rows.size * k).reshape(rows.size, k)


def _label_choice(counts: np.ndarray, vol: np.ndarray, own=None) -> tuple:
    """Louvain's modularity gain on released counts (post-processing): the label
    ``argmax_c N_c - d vol_c / sum(vol)`` of each row, with ``d = max(sum_c N_c, 0)`` and a
    node's own mass taken out of its current label ``own`` (when given); returns the labels
    and ``d``."""
    d = np.maximum(counts.sum(axis=1), 0.0)
    expect = np.broadcast_to(vol, counts.shape).copy()
    if own is not None:
        expect[np.arange(own.size), own] -= d
    gain = counts - d[:, None] * np.maximum(expect, 0.0) / max(float(vol.sum()), 1e-12)
    return np.argmax(gain, axis=1), d


def _forward_labels(A, order, bounds, z, counts, vol, *, eps, ledger, rng) -> None:
    """The forward pass of :func:`label_passes`, in place: each batch's counts towards the
    labels ``z`` of the earlier batches (Laplace ``1 / eps`` each), its labels, and the
    labels' released endpoint mass ``vol`` (each released count once on each side)."""
    k = counts.shape[1]
    noise = LaplaceDraws((order.size, k), sensitivity=1.0, epsilon=eps, changed=1,
                         ledger=ledger, rng=rng)  # drawn ahead (docs/privacy.md 13.1)
    for a, b in bounds:
        rows = order[a:b]
        record("label pass rows", rows)
        record("label pass labels", z)
        N = noise.add(_rows_block_counts(A, rows, z, k), slice(a, b))
        z[rows], d = _label_choice(N, vol)
        counts[rows] = N
        vol += np.maximum(N, 0.0).sum(axis=0) + np.bincount(z[rows], weights=d, minlength=k)


def _backward_labels(A, order, bounds, z, y, counts, vol, *, eps, ledger, rng) -> None:
    """The backward pass of :func:`label_passes`, in place: the batches in reverse order, each
    node's counts towards the new labels ``y`` of the later batches added to its forward
    counts (``counts`` keeps the plain sum, for the degrees), its new label from
    ``k_f F + k_b B`` (its forward and backward counts, each weighed by its released signal
    share across the labels near the batch, :func:`_label_shares`), its mass moved from its
    forward label to it."""
    k = counts.shape[1]
    noise = LaplaceDraws((order.size, k), sensitivity=1.0, epsilon=eps, changed=1,
                         ledger=ledger, rng=rng)  # drawn ahead (docs/privacy.md 13.1)
    noise_var = laplace_add_variance(1.0, eps)
    spread = np.zeros((2, order.size))  # across-label second moments of F and B, by position
    end = bounds[-1][1]
    for a, b in reversed(bounds):
        rows = order[a:b]
        record("label pass rows", rows)
        record("label pass labels", y)
        forward = counts[rows]
        back = noise.add(_rows_block_counts(A, rows, y, k), slice(a, b))
        counts[rows] = forward + back
        k_f, k_b = _label_shares(spread, forward, back, a, b, end, noise_var)
        y[rows], d = _label_choice(k_f * forward + k_b * back, vol, own=z[rows])
        vol += np.bincount(y[rows], weights=d, minlength=k) \
            - np.bincount(z[rows], weights=d, minlength=k)


def _label_shares(spread, forward, back, a, b, end, noise_var) -> tuple[float, float]:
    """The weights of a batch's forward and backward counts in its label choice: each one's
    :func:`~dpgraph.privacy.batches.window_share` of the counts' spread across the labels
    (per node, ``sum_c (N_c - mean)^2 / (k - 1)``: signal spread plus the noise's variance)
    over the batch and the positions just after it; the plain sum (1, 1) where neither
    carries signal above its noise. Post-processing of released counts."""
    spread[0, a:b] = forward.var(axis=1, ddof=1)  # label_passes has k >= 2 labels
    spread[1, a:b] = back.var(axis=1, ddof=1)
    k_f = window_share(spread[0], a, b, end, noise_var)
    k_b = window_share(spread[1], a, b, end, noise_var)
    return (1.0, 1.0) if k_f == 0.0 and k_b == 0.0 else (k_f, k_b)


def label_pass_memory(n: int, labels: int) -> int:
    """Bytes :func:`label_passes` holds for ``n`` nodes and ``labels`` labels (public sizes): the
    counts and one pass's noise drawn ahead (``n x labels`` each), scale factors, draw counts,
    the order, two label vectors and the backward pass's two spreads by position.

    >>> label_pass_memory(10**6, 24) // 10**6  # MB
    440
    """
    return 8 * int(n) * (2 * int(labels) + 7)


def label_passes(data: GraphData, *, epsilon: float, ledger: PrivacyLedger, rng=None,
                 labels: int = 6, growth: float = PASS_GROWTH, degrees: bool = False):
    """Private communities from two read-once label passes (pure ``epsilon``-DP;
    docs/privacy.md 7.14).

    The nodes are visited in a uniformly random order (data-independent), in batches
    (:func:`dpgraph.privacy.batches.batch_bounds`: the first ``labels`` nodes, one label each,
    then batches of ``growth`` times the position).

    1. **Forward pass** (``epsilon / 2``): node ``v`` releases ``N_vc``, its edge weight to
       the nodes of *earlier* batches holding label ``c``, plus ``Laplace(2 / epsilon)``,
       for every ``c``, and takes the label of largest modularity gain
       ``N_vc - d_v vol_c / vol`` (``d_v = max(sum_c N_vc, 0)``, ``vol_c`` the released
       endpoint mass of label ``c`` among the decided nodes; post-processing). A pair is read
       once, by its later endpoint, and moves one released count by at most its weight.
    2. **Backward pass** (``epsilon / 2``): the batches in reverse order (the first one too);
       node ``v`` releases ``B_vc`` over the nodes of *later* batches (their new labels) and
       takes the label of largest gain on ``k_N N_v + k_B B_v``, its released counts over all
       its neighbours, each vector weighed by its signal share across the labels near the
       batch (post-processing; 1 and 1 where neither carries signal). A pair is read once
       more, by its earlier endpoint.

    Pairs inside a batch are never read. Each pass is a sequence of adaptive releases over
    disjoint pairs with L1 sensitivity 1: ``epsilon / 2`` each, ``epsilon`` in all. Against
    :func:`refine_partition`'s rounds, where both endpoints read a pair in every round (L1
    sensitivity 2), the last decision of each node sees all its neighbours with half the
    noise variance, and the labels grow from decided nodes instead of a random start.

    With ``degrees=True`` also returns each node's weighted degree estimated from its released
    counts (post-processing): their sum, over ``1 - (s - 1) / (n - 1)`` for a node in a batch
    of ``s`` (the share of its neighbours a uniformly random order puts in its own batch,
    which no pass reads: unbiased over the order), and the variance of its noise (``2 k`` or,
    in the first batch, ``k`` Laplace draws of scale ``2 / epsilon``, times that factor
    squared).

    Refused before anything is spent where the ``n x labels`` counts would not fit in memory
    (:class:`~dpgraph.memory.InsufficientMemoryError`).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> G = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> z = label_passes(G, epsilon=2, ledger=led, rng=0, labels=2)
    >>> z.shape, round(led.spent[0], 6)
    ((34,), 2.0)
    """
    if isinstance(labels, bool) or int(labels) != labels or labels < 2:
        raise ValueError(f"labels must be an integer >= 2, got {labels!r}")
    k = int(labels)
    n = data.n
    check_memory(label_pass_memory(n, k), what=f"label_passes on {n:,} nodes with {k} labels",
                 fit=(lambda kk: label_pass_memory(n, kk), "At most {:,} labels fit."))
    gen = make_rng(rng)
    A = sp.csr_array(data.weights)
    del data
    order = gen.permutation(n)
    first = min(k, n)
    z = np.full(n, -1, dtype=np.int64)
    z[order[:first]] = np.arange(first)
    bounds = [(0, first)] + batch_bounds(first, n, 1, growth)
    eps_p = epsilon / 2.0
    for name in ("forward", "backward"):
        ledger.charge(f"synthetic: label pass ({name})", mechanism="discrete laplace",
                      epsilon=eps_p, sensitivity=1.0, sensitivity_norm="l1",
                      noise_scale=laplace_add_scale(1.0, eps_p),
                      note="adaptive, disjoint reads: each pair read once in this pass, by "
                           + ("its later" if name == "forward" else "its earlier")
                           + " endpoint; inside-batch pairs never (docs/privacy.md 7.14)")
    counts = np.zeros((n, k))
    draws = np.full(n, 2 * k)
    draws[order[:first]] = k  # the first batch releases in the backward pass only
    scale_up = np.empty(n)
    for a, b in bounds:
        scale_up[order[a:b]] = (n - 1.0) / max(n - (b - a), 1.0)
    vol = np.zeros(k)
    y = np.full(n, -1, dtype=np.int64)
    for step in progress(("forward", "backward"), desc="communities: label passes",
                         unit="sweep"):
        if step == "forward":
            _forward_labels(A, order, bounds[1:], z, counts, vol, eps=eps_p, ledger=ledger,
                            rng=gen)
        else:
            _backward_labels(A, order, bounds, z, y, counts, vol, eps=eps_p, ledger=ledger,
                             rng=gen)
    y = np.unique(y, return_inverse=True)[1].astype(np.int64)
    if not degrees:
        return y
    variance = draws * 2.0 * (1.0 / eps_p) ** 2 * scale_up ** 2
    return y, counts.sum(axis=1) * scale_up, variance


def _sequential_rounds(A: sp.csr_array, b: np.ndarray, k: int, *, epsilon: float,
                       ledger: PrivacyLedger, rng, rounds: int, batches: int) -> np.ndarray:
    """The ``batches > 1`` rounds of :func:`refine_partition` (one ledger charge per round)."""
    n = A.shape[0]
    b = b.copy()
    eps_t = epsilon / rounds
    dhat = np.zeros(n)
    known = np.zeros(n, dtype=bool)
    # vol^_b = S_b + U_b dbar: S_b the latest d^ of b's released nodes, U_b its nodes not yet
    # released (counted with the mean d^ so far, dbar); kept up to date batch by batch
    S = np.zeros(k)
    U = np.bincount(b, minlength=k).astype(float)
    for t in progress(range(rounds), desc="communities: private refinement rounds",
                      unit="round"):
        ledger.charge(f"synthetic: node-to-block counts (round {t + 1}/{rounds}, "
                      f"{batches} sequential batches)", mechanism="discrete laplace",
                      epsilon=eps_t, sensitivity=2.0, sensitivity_norm="l1",
                      noise_scale=laplace_add_scale(2.0, eps_t, 2),
                      note="adaptive: each batch's rows read against the partition the earlier "
                           "batches left; one edge enters two released rows per round, by at "
                           "most 1 each (docs/privacy.md 7.4)")
        for rows in np.array_split(rng.permutation(n), batches):
            # for an audit (no-op otherwise): the batch and the partition its rows are read in
            record("refinement rows", rows)
            record("refinement partition", b)
            N = laplace_add(_rows_block_counts(A, rows, b, k), sensitivity=2.0, epsilon=eps_t,
                            changed=2, ledger=ledger, rng=rng)
            d = np.maximum(N.sum(axis=1), 0.0)
            n_known = n - U.sum()
            dbar = S.sum() / n_known if n_known > 0 else 1.0
            vol = S + U * dbar
            est = np.where(known[rows], dhat[rows], dbar)
            own = np.zeros_like(N)
            own[np.arange(rows.size), b[rows]] = est  # a node leaves its block to choose
            gain = N - d[:, None] * (vol[None, :] - own) / max(vol.sum(), 1e-12)
            old, was = b[rows], known[rows]
            S -= np.bincount(old[was], weights=dhat[rows][was], minlength=k)
            U -= np.bincount(old[~was], minlength=k)
            b[rows] = np.argmax(gain, axis=1)
            dhat[rows] = d
            known[rows] = True
            S += np.bincount(b[rows], weights=d, minlength=k)
    return b


def _louvain_on_weights(g: int, W: np.ndarray, seed: int, resolution: float = 1.0) -> np.ndarray:
    """igraph's multilevel (Louvain) on the weighted graph of the positive upper triangle of
    ``W`` (g x g); igraph's global generator is seeded from ``seed`` and restored. igraph
    (which loads matplotlib: about 30 MB and 0.7 s) is imported here, on the super-graph's
    start alone, not with dpgraph."""
    import igraph as ig

    iu, ju = np.nonzero(np.triu(W))
    graph = ig.Graph(n=g, edges=np.column_stack([iu, ju]).tolist())
    ig.set_random_number_generator(random.Random(seed))
    try:
        return np.asarray(graph.community_multilevel(weights=W[iu, ju].tolist(),
                                                     resolution=resolution).membership)
    finally:
        ig.set_random_number_generator(random)


def supergraph_size(n: int, group_size: int = GROUP_SIZE) -> int:
    """Super-nodes of :func:`supergraph_communities` (a public function of ``n``):
    ``min(max(n // group_size, 1), MAX_GROUPS)``.

    >>> supergraph_size(34, 4), supergraph_size(10**6)
    (8, 2000)
    """
    return min(max(int(n) // int(group_size), 1), MAX_GROUPS)


def supergraph_communities(data: GraphData, *, epsilon: float, ledger: PrivacyLedger, rng=None,
                           group_size: int = GROUP_SIZE) -> np.ndarray:
    """Communities from a noisy super-graph (PrivGraph's initialization; pure DP).

    The nodes are dealt at random (data-independent) into ``g = min(max(n // group_size, 1),
    MAX_GROUPS)`` super-nodes; the ``g (g + 1) / 2`` super-node edge counts (a block edge-count
    vector, L1 sensitivity 1, docs/privacy.md 7.1) are released with Laplace noise of scale
    ``1 / epsilon``, clipped at 0, and Louvain runs on that weighted super-graph
    (post-processing). Every node takes its super-node's community. Memory ``O(m + n + g^2)``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> z = supergraph_communities(data, epsilon=1, ledger=led, rng=0, group_size=4)
    >>> z.shape, round(led.spent[0], 6)
    ((34,), 1.0)
    """
    _check_supergraph_memory(data.n, group_size)  # before the charge
    gen = make_rng(rng)
    n = data.n
    g = supergraph_size(n, group_size)
    groups = gen.permutation(n) % g
    iu = np.triu_indices(g)
    counts, _ = laplace_mechanism(
        block_edge_counts(data.weights, groups)[iu], sensitivity=1.0, epsilon=epsilon,
        ledger=ledger, name="synthetic: super-graph edge counts", rng=gen,
        note=f"{g} random super-nodes; one edge lies in one super-node pair (docs/privacy.md 7.1)")
    W = np.zeros((g, g))
    W[iu] = np.maximum(counts, 0.0)
    del counts
    report(f"communities: Louvain on the noisy super-graph ({g:,} super-nodes, "
           f"{int(np.count_nonzero(W)):,} weighted pairs)")
    comm = _louvain_on_weights(g, W, int(gen.integers(2**31)))
    return np.unique(comm[groups], return_inverse=True)[1].astype(np.int64)


def private_communities(data: GraphData, *, epsilon: float, ledger: PrivacyLedger, rng=None,
                        init_share: float = INIT_SHARE, rounds: int = 1,
                        group_size: int = GROUP_SIZE, init_labels: int = 0,
                        batches: int = REFINE_BATCHES) -> np.ndarray:
    """A private community partition: :func:`supergraph_communities` with
    ``init_share * epsilon``, then :func:`refine_partition` (``rounds`` rounds of noisy
    node-to-community counts and Louvain moves, in ``batches`` sequential batches) with the
    rest. Adaptive sequential composition: ``epsilon`` in all (docs/privacy.md 7.6). This is
    PrivGraph's community step (Yuan et al., USENIX Security 2023) as we read the paper, with
    its split of the budget a parameter.

    ``init_labels >= 2``: start instead from that many uniformly random labels (fresh
    randomness, independent of the graph: no privacy cost) and give the whole ``epsilon``
    to the ``rounds`` refinement rounds (docs/privacy.md 7.6, step 1'); ``init_share`` and
    ``group_size`` are then unused.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> z = private_communities(data, epsilon=2, ledger=led, rng=0, group_size=4)
    >>> z.shape, [round(e.epsilon, 6) for e in led.entries]  # super-graph, then refinement
    ((34,), [1.0, 1.0])
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> z = private_communities(data, epsilon=2, ledger=led, rng=0, init_labels=4)
    >>> int(z.max()) < 4, led.spent  # a random start is free: all of epsilon refines
    (True, (2.0, 0.0))
    """
    if not 0 < init_share < 1:
        raise ValueError(f"init_share must lie strictly between 0 and 1, got {init_share!r}")
    if isinstance(init_labels, bool) or int(init_labels) != init_labels or init_labels < 0 \
            or init_labels == 1:
        raise ValueError(f"init_labels must be 0 (super-graph) or an integer >= 2, "
                         f"got {init_labels!r}")
    # both steps priced before the first charge (the refinement after the super-graph too)
    check_community_memory(data.n, init_labels=int(init_labels), group_size=group_size,
                           batches=batches)
    gen = make_rng(rng)
    if init_labels:
        z = gen.integers(int(init_labels), size=data.n)  # data-independent start
        return refine_partition(data, z, epsilon=epsilon, ledger=ledger, rng=gen, rounds=rounds,
                                batches=batches)
    z = supergraph_communities(data, epsilon=init_share * epsilon, ledger=ledger, rng=gen,
                               group_size=group_size)
    if int(z.max()) == 0:  # one community: nothing to refine, keep the budget unspent
        return z
    return refine_partition(data, z, epsilon=(1.0 - init_share) * epsilon, ledger=ledger,
                            rng=gen, rounds=rounds, batches=batches)
