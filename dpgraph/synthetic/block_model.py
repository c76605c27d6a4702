"""The degree-corrected block model of a synthetic-graph release, and the releases that fill it.

A :class:`BlockModel` holds blocks, block-pair edge counts and per-node degrees (with each
node's share of its degree inside its block), every entry a post-processed Laplace release:

- :func:`release_block_model`, the export of :func:`dpgraph.privatize` (docs/privacy.md
  7.1-7.3): for blocks from the route's release
  (:func:`dpgraph.synthetic.communities.synthetic_partition`), the block edge counts (Laplace,
  L1 sensitivity 1: one edge lies in exactly one block pair) and each node's degree inside its
  block and across blocks (Laplace, L1 sensitivity 2: one edge changes two entries by 1).
- :func:`release_split_block_model`, the block model of :func:`dpgraph.release_synthetic`
  (docs/privacy.md 7.7): inside degrees, inter-block counts and across degrees in one Laplace
  release of weighted L1 sensitivity 1.
- :func:`release_edge_count` and :func:`match_edge_count` (docs/privacy.md 7.10): the total
  edge weight, and the block counts rescaled to it; :func:`combined_estimate` (7.12): the
  inverse-variance combination of the unbiased totals the releases carry
  (:attr:`BlockModel.edge_total`), to which both block models are rescaled.

Both are made consistent by post-processing (:func:`consistent_block_model`): counts rounded,
non-negative and at most the pairs a block pair has; degrees clipped to ``[1, n - 1]`` (each
node's own noisy value: no smoothing across nodes). :mod:`dpgraph.synthetic.sampler` draws
graphs from the result.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dpgraph.caller import DPGraphWarning, caller_stacklevel
from dpgraph.privacy.budget import (BLOCK_COUNT_SHARE, SPLIT_COUNT_SHARE, SYNTHETIC_SHARE,
                                    edge_count_top_up)
from dpgraph.graph import GraphData
from dpgraph.memory import check_memory
from dpgraph.privacy import PrivacyLedger, laplace_mechanism, make_rng

__all__ = ["BlockModel", "check_blocks", "block_edge_counts", "degree_split", "capped_counts",
           "release_block_model", "consistent_block_model", "split_block_statistics",
           "split_block_scales", "released_degree_noise_sd", "release_split_block_model",
           "degree_combination",
           "release_edge_count", "release_edge_total", "combined_estimate", "laplace_sum_variance",
           "warn_if_sparse_sample", "SyntheticSampleWarning",
           "match_edge_count", "degrees_summing_to", "SYNTHETIC_SHARE", "COUNT_SHARE",
           "SPLIT_COUNT_SHARE", "INSIDE_SHRINK", "BLOCK_MODEL_BYTES_PER_PAIR", "block_model_bytes",
           "check_block_model_memory"]

# the default shares (dpgraph.privacy.budget): privatize's share of epsilon for the block
# model, and the block counts' share of the block model's epsilon (plain and split release)
COUNT_SHARE = BLOCK_COUNT_SHARE
# pseudo-counts (in units of the across degrees' noise scale) that shrink each node's released
# inside share towards its block's: small, so that nodes keep their own shares (1 pulls most of
# them to the block's and loses modularity and EVC; 0 to 0.25 measure alike on chameleon at
# epsilon 1), 0.1 the middle of that range
INSIDE_SHRINK = 0.1
# Bytes per block pair (a, b) of a k-block model, for its release and one sample of it: the
# k x k block sums, their upper-triangle indices and Laplace draws, the pair capacities and the
# rounded, clipped and symmetrised counts (release_block_model, consistent_block_model), then the
# sampler's targets and cumulative weights. Traced peaks on 30,000 nodes: the release 9.7-9.8 x
# 8 B per pair at k = 1,000 and 3,000 blocks (privatize's local route: 9.7-11.6 x 8 B at 500 to
# 4,000), a sample 6.1-6.8 x 8 B beside the model it holds; rounded up.
BLOCK_MODEL_BYTES_PER_PAIR = 96


@dataclass(eq=False)
class BlockModel:
    """A released degree-corrected block model (all entries are post-processed releases).

    Attributes
    ----------
    blocks : ndarray of int, shape (n,)
        Block of each node (a function of the route's release: no privacy cost).
    block_counts : ndarray of int, shape (k, k)
        Symmetric; ``block_counts[a, b]`` edges between blocks ``a != b``, ``block_counts[a, a]``
        edges inside block ``a``.
    degrees : ndarray of float, shape (n,)
        Released degrees (>= 1): the sampler's relative endpoint weights inside each block.
    inside : ndarray of float, shape (n,), or None
        Released fraction of each node's degree inside its own block (in [0, 1]): endpoint
        weights ``degrees * inside`` for edges inside a block, ``degrees * (1 - inside)``
        across blocks. None: the same weights for both.
    groups : ndarray of int, shape (k,), or None
        Community of each block, where the blocks refine a community partition (blocks =
        community x degree bin,
        :func:`~dpgraph.synthetic.degree_classes.split_by_degree_bins`): the inside weights
        then serve every pair of blocks of one community. None: each block is its own community.
    affinity : float or None
        Edge density of the sampler's affinity groups (its clustering phase,
        :func:`~dpgraph.synthetic.sampler.affinity_edges`), from a released transitivity
        (:func:`~dpgraph.synthetic.clustering.affinity_density`). None: no clustering phase.
    edge_total : (float, float) or None
        An unbiased estimate of the total edge weight made from the raw (unclipped) released
        values behind this model, and the variance of its noise (a public function of the
        noise scales): docs/privacy.md 7.12. None: not known.
    """

    blocks: np.ndarray
    block_counts: np.ndarray
    degrees: np.ndarray
    inside: np.ndarray | None = None
    groups: np.ndarray | None = None
    affinity: float | None = None
    edge_total: tuple | None = None

    @property
    def n(self) -> int:
        return int(self.blocks.shape[0])

    @property
    def edge_count(self) -> int:
        """The released edge count ``sum_{a <= b} block_counts[a, b]``."""
        return int(np.triu(self.block_counts).sum())

    def __repr__(self) -> str:
        return (f"BlockModel(n={self.n}, blocks={self.block_counts.shape[0]}, "
                f"edge_count={self.edge_count})")


def block_model_bytes(k: int) -> int:
    """Bytes a block model of ``k`` blocks takes to release and to sample once, beyond its
    ``n``-sized arrays: ``BLOCK_MODEL_BYTES_PER_PAIR`` per block pair (a public function of
    ``k``).

    >>> block_model_bytes(1000) // 2**20  # MiB
    91
    """
    return BLOCK_MODEL_BYTES_PER_PAIR * int(k) * int(k)


def check_block_model_memory(n: int, blocks: int, *, name: str = "blocks",
                             blocks_per_community: int = 2, alternative: str = "",
                             what: str = "the synthetic block model") -> None:
    """Refuse, before anything is drawn, a block model of up to ``min(blocks_per_community *
    blocks, n)`` blocks whose ``k x k`` arrays (:func:`block_model_bytes`) would not fit; the
    message names the largest ``blocks`` (the keyword ``name``) that fits. Public ``n`` and
    ``blocks`` only.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1G"}):
    ...     try:
    ...         check_block_model_memory(10**6, 10**5)
    ...     except MemoryError as exc:
    ...         print(str(exc).split(" needs")[0], "|", str(exc).split(").")[-1].strip())
    the synthetic block model of up to 200,000 blocks (blocks=100,000) | At most blocks=1,672 fits.
    """
    n, blocks, per = int(n), int(blocks), int(blocks_per_community)

    def cost(b):
        return block_model_bytes(min(per * b, n))

    check_memory(cost(blocks),
                 what=f"{what} of up to {min(per * blocks, n):,} blocks ({name}={blocks:,})",
                 alternative=alternative, fit=(cost, f"At most {name}={{:,}} fits."))


def check_blocks(blocks, n: int | None = None) -> tuple[np.ndarray, int]:
    """``blocks`` as an int64 array and the number of blocks ``max + 1`` (0 if empty); a
    ValueError unless it is a 1-d array of non-negative integers (of length ``n`` if given)."""
    b = np.asarray(blocks)
    if b.ndim != 1 or (n is not None and b.shape[0] != n):
        raise ValueError(f"blocks must be a 1-d array of length n={n}, got shape {b.shape}")
    if b.size and (not np.issubdtype(b.dtype, np.integer) or b.min() < 0):
        raise ValueError("blocks must hold non-negative integer block indices")
    return b.astype(np.int64), int(b.max()) + 1 if b.size else 0


def block_edge_counts(weights, blocks) -> np.ndarray:
    """Upper triangle (diagonal included) of the block edge-weight matrix ``Z^T A Z`` with the
    diagonal halved: entry ``(a, b)``, ``a <= b``, is the total weight of the edges between
    blocks ``a`` and ``b``. NOT PRIVATE (reads the graph); :func:`release_block_model` releases it.

    Examples
    --------
    >>> import scipy.sparse as sp, numpy as np
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> block_edge_counts(A, np.array([0, 0, 1])).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    b, k = check_blocks(blocks, weights.shape[0])
    Z = sp.csr_array((np.ones(b.size), (np.arange(b.size), b)), shape=(b.size, k))
    B = (Z.T @ (sp.csr_array(weights) @ Z)).toarray()
    out = np.triu(B, 1)
    out[np.diag_indices(k)] = np.diag(B) / 2.0
    return out


def degree_split(weights, blocks) -> np.ndarray:
    """``n x 2``: each node's edge weight inside its own block and across blocks. NOT PRIVATE
    (reads the graph); :func:`release_block_model` releases it (L1 sensitivity 2, 7.2).

    Examples
    --------
    >>> import scipy.sparse as sp, numpy as np
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> degree_split(A, np.array([0, 0, 1])).tolist()
    [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    """
    b, _ = check_blocks(blocks, weights.shape[0])
    coo = sp.coo_array(weights)
    same = b[coo.row] == b[coo.col]
    return np.column_stack([np.bincount(coo.row, weights=coo.data * same, minlength=b.size),
                            np.bincount(coo.row, weights=coo.data * ~same, minlength=b.size)])


def release_block_model(data: GraphData, blocks, *, epsilon: float, ledger: PrivacyLedger,
                        rng=None, count_share: float = COUNT_SHARE) -> BlockModel:
    """Release the block edge counts and the degrees of ``data`` for fixed ``blocks`` (pure DP).

    ``count_share * epsilon`` goes to the ``k(k+1)/2`` block counts (Laplace scale
    ``1 / (count_share epsilon)``: one edge of weight in [0, 1] lies in exactly one block pair,
    L1 sensitivity 1, docs/privacy.md 7.1) and the rest to the ``n`` degrees (Laplace scale
    ``2 / ((1 - count_share) epsilon)``: L1 sensitivity 2, docs/privacy.md 7.2). ``blocks``
    must not depend on ``data`` except through earlier releases (adaptive composition, 7.3).
    The two draws are post-processed by :func:`consistent_block_model`.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> from dpgraph.privacy import PrivacyLedger
    >>> data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> bm = release_block_model(data, np.arange(34) % 2, epsilon=1, ledger=led, rng=0)
    >>> bm.block_counts.shape, round(led.spent[0], 6)
    ((2, 2), 1.0)
    """
    b, k = check_blocks(blocks, data.n)
    if not 0 < count_share < 1:
        raise ValueError(f"count_share must lie strictly between 0 and 1, got {count_share!r}")
    gen = make_rng(rng)
    A = data.weights
    iu = np.triu_indices(k)
    counts, _ = laplace_mechanism(
        block_edge_counts(A, b)[iu], sensitivity=1.0, epsilon=count_share * epsilon,
        ledger=ledger, name="synthetic: block edge counts", rng=gen,
        note=f"{k} blocks; one edge lies in one block pair (docs/privacy.md 7.1)")
    split, scale = laplace_mechanism(
        degree_split(A, b), sensitivity=2.0, epsilon=(1.0 - count_share) * epsilon, ledger=ledger,
        name="synthetic: degrees inside / across blocks", rng=gen,
        note="one edge changes two entries by <= 1 each (docs/privacy.md 7.2)")
    del data, A  # nothing below reads the input
    C = np.zeros((k, k))
    C[iu] = np.atleast_1d(counts)
    bm = consistent_block_model(b, C, split.sum(axis=1), inside=split[:, 0],
                                across=split[:, 1], shrink=scale)
    # the raw totals (7.12): inside and across, each from the block counts and from half the
    # degrees, combined by inverse variance (the clipped counts would sum too high)
    n, scale_c = b.size, 1.0 / (count_share * epsilon)
    inner = np.diag(C).copy()
    bm.edge_total = tuple(float(x) for x in np.add(
        combined_estimate((inner.sum(), laplace_sum_variance(k, scale_c)),
                          (split[:, 0].sum() / 2.0, laplace_sum_variance(n, scale) / 4.0)),
        combined_estimate((C[iu].sum() - inner.sum(), laplace_sum_variance(k * (k - 1) // 2,
                                                                           scale_c)),
                          (split[:, 1].sum() / 2.0, laplace_sum_variance(n, scale) / 4.0))))
    return bm


def capped_counts(b: np.ndarray, k: int, counts) -> np.ndarray:
    """The upper triangle of ``counts`` rounded, clipped to ``[0, pairs_ab]`` (``pairs_aa =
    n_a (n_a - 1) / 2``, ``pairs_ab = n_a n_b``) and symmetrised, as int64."""
    sizes = np.bincount(b, minlength=k).astype(float)
    pairs = np.outer(sizes, sizes)
    pairs[np.diag_indices(k)] = sizes * (sizes - 1) / 2.0
    C = np.rint(np.triu(np.asarray(counts, dtype=float)[:k, :k]))
    C = np.clip(C, 0.0, np.triu(pairs)).astype(np.int64)
    return C + np.triu(C, 1).T


def consistent_block_model(blocks, counts: np.ndarray, degrees: np.ndarray, *, inside=None,
                           across=None, shrink: float = 1.0) -> BlockModel:
    """Post-process noisy releases into a consistent :class:`BlockModel` (no privacy cost).

    ``counts``: upper triangle used (a <= b); rounded, clipped to ``[0, pairs_ab]`` with
    ``pairs_aa = n_a (n_a - 1) / 2`` and ``pairs_ab = n_a n_b``, symmetrised. ``degrees``:
    clipped to ``[1, n - 1]``, each node's own noisy value. There is no smoothing across nodes:
    Hay et al.'s isotonic regression (ICDM 2009) smooths noise added to the *sorted* true
    sequence, whereas here each node's degree carries its own noise. Where many degrees are
    small and noisy, the clip at 1 makes them sum to more than twice the released edge count
    (:func:`degrees_summing_to` shifts them back).

    Examples
    --------
    >>> bm = consistent_block_model(np.array([0, 0, 1]), np.array([[1.4, -2.0], [0, 0.2]]),
    ...                             np.array([3.0, -1.0, 0.5]))
    >>> bm.block_counts.tolist(), bm.degrees.tolist()
    ([[1, 0], [0, 0]], [2.0, 1.0, 1.0])
    """
    b, k = check_blocks(blocks)
    n = b.size
    C = capped_counts(b, k, counts)
    d = np.clip(np.asarray(degrees, dtype=float), 1.0, max(n - 1, 1))
    frac = None
    if inside is not None:
        # each node's share of its degree inside its block, shrunk towards its block's share
        # by ``shrink`` pseudo-counts: noisy small degrees fall back on the block
        din = np.maximum(np.asarray(inside, dtype=float), 0.0)
        dout = np.maximum(np.asarray(across, dtype=float), 0.0)
        tot_in, tot_out = np.bincount(b, din, k), np.bincount(b, dout, k)
        f_block = tot_in / np.maximum(tot_in + tot_out, 1e-12)
        frac = (din + shrink * f_block[b]) / (din + dout + shrink)
    return BlockModel(blocks=b, block_counts=C, degrees=d, inside=frac)


def split_block_statistics(weights, blocks) -> np.ndarray:
    """The vector released by :func:`release_split_block_model`: each node's weight inside its
    block (n), the edge weight between every pair of distinct blocks ``a < b``
    (``k (k - 1) / 2``, row-major upper triangle), each node's weight across blocks (n).
    NOT PRIVATE (reads the graph).

    Examples
    --------
    >>> import scipy.sparse as sp, numpy as np
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> split_block_statistics(A, np.array([0, 0, 1])).tolist()
    [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    """
    b, k = check_blocks(blocks, weights.shape[0])
    split = degree_split(weights, b)
    inter = block_edge_counts(weights, b)[np.triu_indices(k, 1)] if k > 1 else np.zeros(0)
    return np.concatenate([split[:, 0], inter, split[:, 1]])


def split_block_scales(n: int, k: int, epsilon: float,
                       count_share: float = SPLIT_COUNT_SHARE) -> np.ndarray:
    """Laplace scale of each coordinate of :func:`split_block_statistics` in
    :func:`release_split_block_model`: ``2 / epsilon`` (inside degrees),
    ``1 / (count_share epsilon)`` (inter-block counts), ``2 / ((1 - count_share) epsilon)``
    (across degrees); with them ``max over adjacent graphs of sum_k |Delta_k| / b_k = epsilon``
    (docs/privacy.md 7.7).

    Examples
    --------
    >>> b = split_block_scales(3, 2, epsilon=1.0, count_share=0.5)
    >>> b.tolist()  # 3 inside degrees, 1 inter-block count, 3 across degrees
    [2.0, 2.0, 2.0, 2.0, 4.0, 4.0, 4.0]
    >>> float(2 / b[0]), float(1 / b[3] + 2 / b[4])  # an edge inside, one across: epsilon
    (1.0, 1.0)
    """
    return np.concatenate([np.full(n, 2.0 / epsilon),
                           np.full(k * (k - 1) // 2, 1.0 / (count_share * epsilon)),
                           np.full(n, 2.0 / ((1.0 - count_share) * epsilon))])


def released_degree_noise_sd(k: int, epsilon: float,
                             count_share: float = SPLIT_COUNT_SHARE) -> float:
    """Standard deviation of the noise on each released degree of
    :func:`release_split_block_model` with ``k`` blocks: the inside and across degrees' Laplace
    draws (variance ``2 b^2`` each) for ``k >= 2``, the inside draw alone for one block."""
    sc = split_block_scales(1, 1, epsilon, count_share)  # [inside, across] scales
    return float(np.sqrt(2.0 * (sc[0] ** 2 + (sc[-1] ** 2 if k > 1 else 0.0))))


def _release_one_block(data: GraphData, b: np.ndarray, *, epsilon: float,
                       ledger: PrivacyLedger, gen) -> BlockModel:
    """:func:`release_split_block_model` for one block: every pair is inside it, so the
    inter-block counts and across degrees are identically zero and not released; the degrees
    carry Laplace noise of scale ``2 / epsilon`` (one pair moves two degrees by at most 1:
    L1 sensitivity 2, docs/privacy.md 7.7)."""
    n = data.n
    d, _ = laplace_mechanism(degree_split(data.weights, b)[:, 0], sensitivity=2.0,
                             epsilon=epsilon, ledger=ledger,
                             name="synthetic: degrees (one block)", rng=gen,
                             note="one block; L1 sensitivity 2 (docs/privacy.md 7.7)")
    del data  # nothing below reads the input
    C = np.array([[d.sum() / 2.0]])
    bm = consistent_block_model(b, C, d, inside=d, across=np.zeros(n))
    # half the raw degree sum: unbiased, n Laplace(2 / epsilon) draws over 2 (7.12)
    bm.edge_total = (float(d.sum()) / 2.0, laplace_sum_variance(n, 2.0 / epsilon) / 4.0)
    return bm


def release_split_block_model(data: GraphData, blocks, *, epsilon: float,
                              ledger: PrivacyLedger, rng=None,
                              count_share: float = SPLIT_COUNT_SHARE,
                              degree_estimate=None) -> BlockModel:
    """Release a degree-corrected block model for fixed ``blocks`` (pure ``epsilon``-DP).

    One Laplace release of :func:`split_block_statistics` with per-coordinate scales
    :func:`split_block_scales`: a pair inside a block moves only two inside degrees (L1 2,
    scale ``2 / epsilon``); a pair across blocks moves one inter-block count and two across
    degrees (``1 / (count_share eps) + 2 / ((1 - count_share) eps)`` in scaled units): the
    weighted L1 sensitivity is ``epsilon`` either way, so the release is ``epsilon``-DP
    (docs/privacy.md 7.7; the parallel composition of PrivGraph's extraction step). The
    block's inside count is half the sum of its released inside degrees (post-processing);
    then :func:`consistent_block_model`. ``blocks`` must not depend on ``data`` except through
    earlier releases (adaptive composition). ``degree_estimate``: ``(values, variances)``, an
    earlier release's independent unbiased estimate of each node's weighted degree (the label
    passes', :func:`~dpgraph.synthetic.communities.label_passes`); each released degree
    ``d_in + d_out`` is then combined with it by inverse variance (post-processing,
    :func:`degree_combination`).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> bm = release_split_block_model(data, np.arange(34) % 2, epsilon=1, ledger=led, rng=0)
    >>> bm.block_counts.shape, round(led.spent[0], 6)
    ((2, 2), 1.0)
    """
    b, k = check_blocks(blocks, data.n)
    if not 0 < count_share < 1:
        raise ValueError(f"count_share must lie strictly between 0 and 1, got {count_share!r}")
    gen = make_rng(rng)
    if k == 1:
        return _release_one_block(data, b, epsilon=epsilon, ledger=ledger, gen=gen)
    n = data.n
    scales = split_block_scales(n, k, epsilon, count_share)
    # one Laplace(1 / epsilon) release of the vector divided coordinatewise by epsilon * scale:
    # its L1 sensitivity is 1 (docs/privacy.md 7.7)
    unit = epsilon * scales
    noisy, _ = laplace_mechanism(
        split_block_statistics(data.weights, b) / unit, sensitivity=1.0, epsilon=epsilon,
        ledger=ledger, name="synthetic: inside degrees, inter-block counts, across degrees",
        rng=gen, note=f"{k} blocks; weighted L1 sensitivity 1 (docs/privacy.md 7.7)")
    del data  # nothing below reads the input
    noisy = noisy * unit
    d_in, inter, d_out = noisy[:n], noisy[n:n + k * (k - 1) // 2], noisy[n + k * (k - 1) // 2:]
    C = np.zeros((k, k))
    C[np.triu_indices(k, 1)] = inter
    C[np.diag_indices(k)] = np.bincount(b, weights=d_in, minlength=k) / 2.0
    total = d_in + d_out
    if degree_estimate is not None:
        total = degree_combination(total, 2.0 * (scales[0] ** 2 + scales[-1] ** 2),
                                   *degree_estimate)
    bm = consistent_block_model(b, C, total, inside=d_in, across=d_out,
                                shrink=INSIDE_SHRINK * float(scales[-1]))
    # the raw total (7.12): half the inside degrees, plus the across weight from the
    # inter-block counts and from half the across degrees combined by inverse variance
    s_in, s_c, s_out = float(scales[0]), 1.0 / (count_share * epsilon), float(scales[-1])
    across = combined_estimate((inter.sum(), laplace_sum_variance(inter.size, s_c)),
                               (d_out.sum() / 2.0, laplace_sum_variance(n, s_out) / 4.0))
    bm.edge_total = (float(d_in.sum()) / 2.0 + across[0],
                     laplace_sum_variance(n, s_in) / 4.0 + across[1])
    return bm


def degree_combination(released, variance, estimate, estimate_variance) -> np.ndarray:
    """Each node's inverse-variance combination of two independent unbiased estimates of its
    degree (post-processing; the weights are public functions of the noise scales).

    >>> degree_combination(np.array([10.0, 0.0]), 4.0, np.array([20.0, 3.0]), np.array([4.0, 12.0])).tolist()
    [15.0, 0.75]
    """
    w1 = 1.0 / np.asarray(variance, dtype=float)
    w2 = 1.0 / np.asarray(estimate_variance, dtype=float)
    return (np.asarray(released, dtype=float) * w1 + np.asarray(estimate, dtype=float) * w2) \
        / (w1 + w2)


def release_edge_count(data: GraphData, *, epsilon: float, ledger: PrivacyLedger,
                       rng=None, name: str = "synthetic: total edge weight") -> float:
    """The total edge weight ``sum_{u < v} A_uv`` plus Laplace noise of scale ``1 / epsilon``
    (pure ``epsilon``-DP: one pair changes it by ``|t| <= 1``, docs/privacy.md 7.10).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> m = release_edge_count(as_graph_data(nx.karate_club_graph(), weight=None), epsilon=1,
    ...                        ledger=led, rng=0)
    >>> abs(m - 78) < 20, round(led.spent[0], 6)
    (True, 1.0)
    """
    return _release_total(_edge_total(data), epsilon=epsilon, ledger=ledger, rng=rng, name=name)


def _edge_total(data: GraphData) -> float:
    """The total edge weight ``sum_{u < v} A_uv`` (NOT private: released only by
    :func:`_release_total`)."""
    return float(sp.csr_array(data.weights).sum()) / 2.0


def _release_total(total: float, *, epsilon: float, ledger: PrivacyLedger, rng,
                   name: str) -> float:
    """``total`` plus Laplace noise of scale ``1 / epsilon`` (sensitivity 1, 7.10)."""
    m_hat, _ = laplace_mechanism(total, sensitivity=1.0, epsilon=epsilon, ledger=ledger,
                                 name=name, rng=make_rng(rng),
                                 note="one pair changes the total by <= 1 (docs/privacy.md 7.10)")
    return m_hat


def release_edge_total(data: GraphData, *, epsilon: float, share: float, room: float,
                       ledger: PrivacyLedger, rng=None) -> tuple[tuple[float, float], float]:
    """Steps 0 and 0b of :func:`dpgraph.release_synthetic` (docs/privacy.md 7.10): the total edge
    weight released at ``share * epsilon`` (:func:`release_edge_count`) and, where
    :func:`~dpgraph.privacy.budget.edge_count_top_up` asks for it from that released value, a
    second independent release at ``u * epsilon``; returns their inverse-variance combination
    ``(estimate, variance)`` (:func:`combined_estimate`) and ``u`` (0 without a second release).
    Pure ``(share + u) epsilon``-DP (adaptive composition); ``room``: the block model's share
    without the second release, of which it takes at most a quarter.

    >>> import networkx as nx
    >>> from dpgraph.graph import as_graph_data
    >>> led = PrivacyLedger(epsilon=10, delta=0)
    >>> G = nx.gnm_random_graph(200, 1000, seed=1)
    >>> (m, var), u = release_edge_total(as_graph_data(G, weight=None), epsilon=10, share=0.02,
    ...                                  room=0.15, ledger=led, rng=0)
    >>> 0.01 <= u <= 0.0375, abs(m - 1000) < 30, round(led.spent[0], 6) == round(10 * (0.02 + u), 6)
    (True, True, True)
    """
    gen = make_rng(rng)
    total = _edge_total(data)  # one pass over the edges for both counts
    first = _release_total(total, epsilon=share * epsilon, ledger=ledger, rng=gen,
                           name="synthetic: total edge weight")
    count = (first, laplace_sum_variance(1, 1.0 / (share * epsilon)))
    top_up = edge_count_top_up(first, epsilon, share, room=room)
    if top_up > 0:
        second = _release_total(total, epsilon=top_up * epsilon, ledger=ledger, rng=gen,
                                name="synthetic: total edge weight (second count)")
        count = combined_estimate(count, (second, laplace_sum_variance(1, 1.0 / (top_up * epsilon))))
    return count, top_up


def laplace_sum_variance(count: int, scale: float) -> float:
    """Variance of the sum of ``count`` independent Laplace draws of scale ``scale``:
    ``2 count scale^2`` (a public function of the release's parameters)."""
    return 2.0 * int(count) * float(scale) ** 2


def combined_estimate(*estimates) -> tuple[float, float]:
    """The inverse-variance combination of independent unbiased estimates ``(value,
    variance)`` of one quantity (entries that are None are skipped): ``sum(v_i / s_i) /
    sum(1 / s_i)`` and its variance ``1 / sum(1 / s_i)``, the least-variance unbiased linear
    combination (docs/privacy.md 7.12). A variance of 0 is an exact value and wins.

    >>> combined_estimate((100.0, 4.0), (90.0, 1.0))
    (92.0, 0.8)
    >>> combined_estimate((100.0, 4.0), None)
    (100.0, 4.0)
    """
    pairs = [(float(v), float(s)) for v, s in (e for e in estimates if e is not None)]
    if not pairs:
        raise ValueError("combined_estimate needs at least one (value, variance) pair")
    exact = [v for v, s in pairs if s <= 0]
    if exact:
        return float(np.mean(exact)), 0.0
    w = np.array([1.0 / s for _, s in pairs])
    vals = np.array([v for v, _ in pairs])
    return float(w @ vals / w.sum()), float(1.0 / w.sum())


class SyntheticSampleWarning(DPGraphWarning):
    """A graph sampled from a private release is not the graph its released statistics
    describe: too few edges for its nodes (the noise dominates the released count), or many
    draws dropped as repeated or self pairs."""


def warn_if_sparse_sample(edge_count: int, n: int, edge_total=None, *,
                          stacklevel: int | None = None) -> None:
    """A :class:`SyntheticSampleWarning` when a sample of ``edge_count`` edges on ``n`` nodes
    would be empty or have fewer than ``n / 2`` edges (the fewest with no isolated node, a public
    reference): it names the released count, and the noise's standard deviation when
    ``edge_total = (estimate, variance)`` gives it. Reads released values only. The warning
    points at ``stacklevel``, by default the caller's line outside dpgraph.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_sparse_sample(3, 34, (2.6, 100.0))
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    the released edge count is 3 for 34 nodes, below n / 2 = 17: ...
    """
    m, n = int(edge_count), int(n)
    if n < 2 or 2 * m >= n:
        return
    sd = "" if edge_total is None else (f" (the released estimate {float(edge_total[0]):.4g} "
                                        f"has noise of standard deviation "
                                        f"{np.sqrt(max(float(edge_total[1]), 0.0)):.3g})")
    what = "the sample is empty" if m == 0 else (f"the sample has {m} edge{'s' * (m != 1)}, "
                                                 f"so at least {n - 2 * m} nodes are isolated")
    warnings.warn(f"the released edge count is {m} for {n} nodes, below n / 2 = {n / 2:g}: "
                  f"{what}{sd}; the noise may dominate the count at this epsilon (a larger "
                  f"epsilon gives a truer count)", SyntheticSampleWarning,
                  stacklevel=caller_stacklevel() if stacklevel is None else stacklevel)


def match_edge_count(bm: BlockModel, target: float, *, rng=None) -> BlockModel:
    """Rescale a block model's pair counts to total ``round(target)`` (post-processing).

    The counts are multiplied by one factor; a count that would exceed the pairs its block
    pair has is capped and the rest is spread over the others in proportion (repeated until
    nothing is capped); then each count is rounded down and the remaining units go to
    distinct block pairs by systematic sampling on the fractional parts, so the total is exact
    (``target`` is first clipped to ``[0, all pairs]``) and every count is an unbiased
    rounding (systematic sampling: a count gains 1 with probability its fractional part).
    Block pairs with no count keep none while the others can hold the total; where they are
    all full, the rest goes to the empty block pairs in proportion to their pairs (if all are
    empty, the pairs decide).

    Examples
    --------
    >>> bm = consistent_block_model(np.array([0, 0, 0, 1, 1, 1]), np.array([[2, 2], [0, 1]]),
    ...                             np.ones(6))
    >>> out = match_edge_count(bm, 7.6, rng=0)
    >>> out.edge_count, int(out.block_counts[0, 0])
    (8, 3)
    """
    gen = make_rng(rng)
    b = bm.blocks
    k = bm.block_counts.shape[0]
    sizes = np.bincount(b, minlength=k).astype(float)
    cap = np.outer(sizes, sizes)
    cap[np.diag_indices(k)] = sizes * (sizes - 1) / 2.0
    iu = np.triu_indices(k)
    cap = cap[iu]
    x = bm.block_counts[iu].astype(float)
    goal = float(np.clip(np.rint(target), 0.0, cap.sum()))
    base = x if x.sum() > 0 else cap.copy()
    free = np.ones(x.size, dtype=bool)
    x = np.zeros(x.size)
    left = goal
    for _ in range(x.size + 1):  # each pass caps at least one more pair, or ends
        w = np.where(free, base, 0.0)
        if left <= 0 or w.sum() <= 0:
            break
        x = np.where(free, w * (left / w.sum()), x)
        over = free & (x >= cap)
        if not over.any():
            break
        x[over] = cap[over]
        free &= ~over
        left = goal - x[~free].sum()
    # the pairs with a count are all full and the released total asks for more (a dense graph
    # whose small blocks' noisy counts were clipped to 0): the rest goes to the empty block
    # pairs in proportion to the pairs they have, not dropped
    rest = goal - x.sum()
    room = np.where(base > 0, 0.0, cap)
    if rest > 1e-9 and room.sum() > 0:
        x = x + room * min(1.0, rest / room.sum())
    lo = np.floor(x + 1e-9)
    frac = np.clip(x - lo, 0.0, 1.0)
    if frac.sum() > 0:
        # systematic sampling in a random order: block pair i gains 1 with probability
        # exactly frac_i, and the gains sum to sum(frac) = goal - sum(lo)
        order = gen.permutation(x.size)
        cum = np.cumsum(frac[order]) * (round(frac.sum()) / frac.sum())  # float error only
        u = gen.random()
        gain = np.diff(np.floor(np.concatenate([[0.0], cum]) - u + 1.0)) > 0
        lo[order[gain]] += 1
    C = np.zeros((k, k), dtype=np.int64)
    C[iu] = lo.astype(np.int64)
    C = C + np.triu(C, 1).T
    return BlockModel(blocks=b, block_counts=C, degrees=bm.degrees, inside=bm.inside,
                      groups=bm.groups, edge_total=bm.edge_total)


def degrees_summing_to(degrees, total: float) -> np.ndarray:
    """``max(d - theta, 1)`` with the one shift ``theta >= 0`` that makes the degrees sum to
    ``total`` (or ``theta = 0`` if they already sum to at most it; never below the floor of
    1 each): post-processing that removes the mass that clipping at 1 added to the low
    released degrees (chameleon at epsilon 1: the clipped degrees sum to 1.14 times twice the
    edge count), so that the sampler's endpoint weights agree with the released edge count.
    It is PrivGraph's "norm_sub" consistency step (Yuan et al. 2023), applied to degrees.

    Examples
    --------
    >>> degrees_summing_to(np.array([1.0, 1.0, 5.0, 9.0]), 12.0).tolist()
    [1.0, 1.0, 3.0, 7.0]
    """
    d = np.asarray(degrees, dtype=float)
    if d.sum() <= total or d.size == 0:
        return d
    v = np.sort(d)[::-1] - 1.0  # mass above the floor, largest first
    cs = np.cumsum(v)
    # solve sum(max(v - theta, 0)) = goal: with the j largest above theta, theta =
    # (cs_j - goal) / j for the largest j with v_j > theta (the simplex-projection rule)
    goal = max(cs[-1] - (d.sum() - total), 0.0)
    j = np.arange(1, v.size + 1)
    th = (cs - goal) / j
    ok = v > th
    theta = max(float(th[np.flatnonzero(ok).max()]), 0.0) if ok.any() else float(v.max())
    return np.maximum(d - theta, 1.0)
