"""Degree classes: the synthetic graph keeps the input's degree mixing (docs/privacy.md 7.9).

Logarithmic classes of the released degrees (:func:`degree_bins`, post-processing), the edge
counts between classes released with Laplace noise (:func:`release_degree_mixing`, L1
sensitivity 1), and each community of a :class:`~dpgraph.synthetic.block_model.BlockModel`
split by class, its counts fitted to both released margins (:func:`split_by_degree_bins`,
post-processing): the samples keep the graph's assortativity, which shapes triangles, paths
and cuts. :func:`split_by_released_degree_classes` runs the three for
:func:`dpgraph.release_synthetic`.
"""

from __future__ import annotations

import numpy as np

from dpgraph.graph import GraphData
from dpgraph.privacy import PrivacyLedger, laplace_mechanism, make_rng
from dpgraph.synthetic.block_model import (BlockModel, block_edge_counts, capped_counts,
                                           check_blocks, combined_estimate,
                                           laplace_sum_variance, released_degree_noise_sd)

__all__ = ["degree_bins", "release_degree_mixing", "mixing_assortativity",
           "split_by_degree_bins", "split_by_released_degree_classes", "MAX_DEGREE_BINS",
           "DEGREE_CLASS_RATIO", "MAX_SPLIT_BLOCKS"]

MAX_DEGREE_BINS = 16
DEGREE_CLASS_RATIO = 2.0  # each class spans this factor of degrees
# at most this many (community, class) blocks: the fit holds (k B)^2 floats (32 MB at 2048)
MAX_SPLIT_BLOCKS = 2048


def degree_bins(degrees, noise: float = 1.0) -> np.ndarray:
    """Logarithmic degree classes of released degrees: ``floor(log2(max(d / noise, 1)))``,
    capped at ``MAX_DEGREE_BINS - 1``, relabelled ``0..B-1`` in increasing order
    (post-processing). ``noise`` (the standard deviation of the released degrees' noise) sets
    the lowest class, ``d < 2 noise``: below it the classes would sort noise. The top class
    may hold a single hub: its row of the class table keeps the hub's own mixing.

    Examples
    --------
    >>> degree_bins(np.array([1.0, 3.0, 4.5, 100.0])).tolist()
    [0, 1, 2, 3]
    >>> degree_bins(np.array([1.0, 3.0, 4.5, 100.0]), noise=4.0).tolist()
    [0, 0, 0, 1]
    """
    d = np.asarray(degrees, dtype=float) / max(float(noise), 1.0)
    raw = np.minimum(np.floor(np.log(np.maximum(d, 1.0)) / np.log(DEGREE_CLASS_RATIO)),
                     MAX_DEGREE_BINS - 1)
    return np.unique(raw.astype(np.int64), return_inverse=True)[1].astype(np.int64)


def release_degree_mixing(data: GraphData, bins, *, epsilon: float, ledger: PrivacyLedger,
                          rng=None, clip: bool = True) -> np.ndarray:
    """The edge counts between degree classes, released with Laplace noise of scale
    ``1 / epsilon`` (pure ``epsilon``-DP): the ``B (B + 1) / 2`` entries of
    :func:`~dpgraph.synthetic.block_model.block_edge_counts` for the classes ``bins``. One
    edge lies in exactly one pair of classes, so the L1 sensitivity is 1 (docs/privacy.md 7.9), provided ``bins`` depends on
    ``data`` only through earlier releases (adaptive composition; :func:`degree_bins` of the
    released degrees). Returns the symmetric ``B x B`` matrix, clipped at 0 (diagonal: edges
    inside a class); ``clip=False``: the raw released values (whose sum is an unbiased
    estimate of the total edge weight, docs/privacy.md 7.12).

    Examples
    --------
    Three classes of a 30-node cycle; one epsilon-1 charge:

    >>> import scipy.sparse as sp
    >>> from dpgraph.graph import from_matrix
    >>> ring = sp.diags([np.ones(29), np.ones(29)], [1, -1]).tocsr()
    >>> ledger = PrivacyLedger(epsilon=1, delta=0)
    >>> M = release_degree_mixing(from_matrix(ring), np.arange(30) % 3, epsilon=1,
    ...                           ledger=ledger, rng=0)
    >>> M.shape, bool((M == M.T).all()), round(ledger.spent[0], 6)
    ((3, 3), True, 1.0)
    """
    b, B = check_blocks(bins, data.n)
    iu = np.triu_indices(B)
    counts, _ = laplace_mechanism(
        block_edge_counts(data.weights, b)[iu], sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="synthetic: degree-class edge counts", rng=make_rng(rng),
        note=f"{B} degree classes of the released degrees; one edge lies in one class pair "
             "(docs/privacy.md 7.9)")
    M = np.zeros((B, B))
    M[iu] = np.maximum(counts, 0.0) if clip else counts
    return M + np.triu(M, 1).T


def mixing_assortativity(mixing: np.ndarray, degrees, bins) -> float:
    """Degree assortativity (Newman 2002, the Pearson correlation of the degrees at the two
    ends of an edge) of released class-pair counts ``mixing``, each class represented by the
    mean released degree of its nodes (post-processing). 0 where undefined.

    Examples
    --------
    >>> M = np.array([[0.0, 8.0], [8.0, 0.0]])  # every edge joins class 0 to class 1
    >>> mixing_assortativity(M, np.array([1.0, 1, 4, 4]), np.array([0, 0, 1, 1]))
    -1.0
    """
    b, B = check_blocks(bins)
    x = np.bincount(b, weights=np.asarray(degrees, dtype=float), minlength=B) / np.maximum(
        np.bincount(b, minlength=B), 1)
    E = np.asarray(mixing, dtype=float)
    E = E + np.diag(np.diag(E))  # endpoints
    S = E.sum()
    if S <= 0:
        return 0.0
    p = E.sum(axis=1) / S
    mu = p @ x
    var = p @ (x * x) - mu * mu
    return float((x @ E @ x / S - mu * mu) / var) if var > 0 else 0.0


def _random_round(gen, x: np.ndarray) -> np.ndarray:
    """Unbiased randomized rounding of non-negative reals to integers."""
    lo = np.floor(x)
    return (lo + (gen.random(x.shape) < x - lo)).astype(np.int64)


def split_by_degree_bins(bm: BlockModel, bins, mixing: np.ndarray, *, rng=None,
                         iterations: int = 100) -> BlockModel:
    """Refine a block model's communities by degree class (post-processing, no privacy cost).

    New blocks: (community c, class a) for the nodes of ``bm`` in community c whose released
    degree lies in class a; ``groups`` records c. Their edge counts ``T[(c, a), (c', b)]`` are
    the maximum-entropy table (iterative proportional fitting, Deming and Stephan 1940) that
    starts from the degree-proportional split of each community pair's released count
    (``inside`` weights within a community, ``across`` weights between two) and matches both
    the released community-pair counts (``bm.block_counts``) and the released class-pair
    counts ``mixing`` (rescaled to the same total): the samples keep the communities and
    gain the degree mixing (assortativity) of the graph. Counts are rounded at random
    (unbiased).

    Examples
    --------
    One community of two hubs and four leaves; the class counts say every edge joins a hub
    to a leaf (a star-like mixing), which the split keeps:

    >>> from dpgraph.synthetic.block_model import consistent_block_model
    >>> bm = consistent_block_model(np.zeros(6, dtype=int), np.array([[8]]),
    ...                             np.array([4.0, 4, 2, 2, 2, 2]))
    >>> out = split_by_degree_bins(bm, np.array([1, 1, 0, 0, 0, 0]),
    ...                            np.array([[0.0, 8], [8, 0]]), rng=0)
    >>> out.block_counts.tolist(), out.groups.tolist()
    ([[0, 8], [8, 0]], [0, 0])
    """
    gen = make_rng(rng)
    b = bm.blocks
    a, B = check_blocks(bins, b.size)
    K = bm.block_counts.shape[0]
    d = bm.degrees
    f = np.full(b.size, 0.5) if bm.inside is None else bm.inside
    comp = b * B + a
    w_in = np.bincount(comp, weights=d * f, minlength=K * B).reshape(K, B)
    w_out = np.bincount(comp, weights=d * (1 - f), minlength=K * B).reshape(K, B)
    p_in = w_in / np.maximum(w_in.sum(axis=1, keepdims=True), 1e-12)
    p_out = w_out / np.maximum(w_out.sum(axis=1, keepdims=True), 1e-12)
    C = bm.block_counts.astype(float)
    Ec = C + np.diag(np.diag(C))  # endpoint convention: the diagonal counts both ends
    M = np.asarray(mixing, dtype=float)
    Em = M + np.diag(np.diag(M))
    Em *= Ec.sum() / max(Em.sum(), 1e-12)
    T = np.einsum("cd,ca,db->cadb", Ec, p_out, p_out)
    for c in range(K):
        T[c, :, c, :] = Ec[c, c] * np.outer(p_in[c], p_in[c])
    s = T.sum(axis=(0, 2))
    for _ in range(int(iterations)):
        T *= np.where(s > 0, Em / np.where(s > 0, s, 1.0), 0.0)[None, :, None, :]
        s = T.sum(axis=(1, 3))
        T *= np.where(s > 0, Ec / np.where(s > 0, s, 1.0), 0.0)[:, None, :, None]
        s = T.sum(axis=(0, 2))
        if np.abs(s - Em)[s > 0].max(initial=0.0) < 0.01:  # class margins met to 0.01 edge
            break
    used, new_b = np.unique(comp, return_inverse=True)
    T = T.reshape(K * B, K * B)[np.ix_(used, used)]
    counts = np.triu(T, 1) + np.diag(np.diag(T) / 2.0)
    counts = np.triu(_random_round(gen, counts))
    new_b = new_b.astype(np.int64)
    return BlockModel(blocks=new_b, block_counts=capped_counts(new_b, used.size, counts),
                      degrees=d, inside=f, groups=(used // B).astype(np.int64),
                      edge_total=bm.edge_total)


def split_by_released_degree_classes(data: GraphData, bm: BlockModel, *, epsilon: float,
                                     model_epsilon: float, count_share: float,
                                     ledger: PrivacyLedger, rng=None,
                                     noise_sd: float | None = None) -> tuple[BlockModel, dict]:
    """Split ``bm`` (released by :func:`~dpgraph.synthetic.block_model.release_split_block_model`
    with ``model_epsilon`` and ``count_share``) by the degree classes of its released degrees
    (pure ``epsilon``-DP): :func:`degree_bins` with the lowest class below twice the degrees'
    noise standard deviation, the hubs in a class of their own (its row of the class table
    holds their edges to lower degrees; benchmarks/NOTES.md), at most ``MAX_SPLIT_BLOCKS``
    blocks (neighbouring classes merged),
    their pair counts released with ``epsilon`` (:func:`release_degree_mixing`), the block
    model split by class (:func:`split_by_degree_bins`). Returns the split model and its
    diagnostics (``degree_classes``, ``released_assortativity``). The split model's
    ``edge_total`` combines ``bm``'s with the sum of the raw class-pair counts (an independent
    unbiased estimate of the total, variance ``2 (B (B + 1) / 2) / epsilon^2``; 7.12).
    ``noise_sd``: the degrees' noise standard deviation where they were combined with another
    estimate (default: that of ``bm``'s release alone)."""
    gen = make_rng(rng)
    k = bm.block_counts.shape[0]
    if noise_sd is None:
        noise_sd = released_degree_noise_sd(k, model_epsilon, count_share)
    bins = degree_bins(bm.degrees, noise=noise_sd)
    while k * (int(bins.max()) + 1) > MAX_SPLIT_BLOCKS and bins.max() > 0:
        bins = bins // 2  # merge neighbouring classes: the split's k^2 B^2 table stays small
    raw = release_degree_mixing(data, bins, epsilon=epsilon, ledger=ledger, rng=gen, clip=False)
    B = int(bins.max()) + 1
    cells = B * (B + 1) // 2
    class_total = (float(np.triu(raw).sum()), laplace_sum_variance(cells, 1.0 / epsilon))
    mixing = np.maximum(raw, 0.0)
    info = {"degree_classes": B,
            "released_assortativity": round(mixing_assortativity(mixing, bm.degrees, bins), 4)}
    out = split_by_degree_bins(bm, bins, mixing, rng=gen)
    out.edge_total = combined_estimate(bm.edge_total, class_total)
    return out, info
