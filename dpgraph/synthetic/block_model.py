"""Private synthetic graphs: a degree-corrected block model released from the graph and sampled.

Two releases share the block model and its sampler:

- :func:`release_synthetic` (what ``dpgraph synth`` runs by default; docs/privacy.md 7.6-7.8):
  pure epsilon-DP, ``O(m + n k + g^2)``, no spectral release. Private communities
  (:func:`private_communities`: Louvain on a noisy super-graph of random super-nodes, or from
  epsilon 3 on random labels, then noisy refinement, PrivGraph's community step), then one
  Laplace release of the inside degrees, inter-block counts and across degrees
  (:func:`release_split_block_model`).
- The export of :meth:`dpgraph.PrivateGraph.sample` (``dpgraph synth --mechanism privatize``)
  when ``privatize`` was given a ``synthetic_share`` (the default), described below.

The ``privatize`` export has three steps (docs/privacy.md, sections 7.1-7.5):

1. **Partition** (post-processing, no privacy cost; :func:`synthetic_partition`): k-means on
   the spectral embedding of the route's release (:func:`partition_from_release`: the top
   positive eigenvectors of the randomized-response release's de-biased matrix, or of the
   private low-rank factors ``basis @ core @ basis.T`` on the PCA and matrix-free routes, from
   the r x r core: never n x n), each community split in two by the sign of the release's most
   negative eigenvector (:func:`cut_side_from_release`), so the samples keep its cut structure.
2. **Release** (:func:`release_block_model`): given that partition, the block edge counts
   (Laplace, L1 sensitivity 1: one edge lies in exactly one block pair) and each node's degree
   inside its block and across blocks (Laplace, L1 sensitivity 2: one edge changes two entries
   by 1), then made consistent (post-processing, :func:`consistent_block_model`): counts
   rounded, non-negative and at most the pairs a block pair has; degrees clipped to
   ``[1, n - 1]`` (each node's own noisy value: no smoothing across nodes).
3. **Sample** (:func:`sample_block_model`, post-processing): one anchor edge per node (no
   isolated nodes), then for every block pair ``(a, b)`` exactly ``k_ab`` distinct edges whose
   endpoints are drawn with probability proportional to the released degrees inside (or
   across) blocks (Chung-Lu within and between blocks, the degree-corrected stochastic block
   model of Karrer & Newman 2011), rejecting self-loops and repeated pairs. Expected time
   ``O((m + n) log n)``, memory ``O(m + n + k^2)``: no n x n array, so any route (the
   matrix-free one included) can call it with ``(blocks, block_counts, degrees)``.

The sampled graph has exactly ``sum_{a <= b} k_ab`` edges, the released edge count (block
counts are capped at the pairs a block pair has).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData, _label_sequence, from_matrix
from dpgraph.privacy import PrivacyLedger, laplace_mechanism, make_rng
from dpgraph.progress import progress, report
from dpgraph.spectral.linalg import arpack_start

__all__ = ["BlockModel", "partition_from_release", "release_block_model", "consistent_block_model",
           "sample_block_model", "block_edge_counts", "degree_split", "node_block_counts",
           "refine_partition", "cut_side_from_release", "synthetic_partition",
           "SYNTHETIC_SHARE", "COUNT_SHARE",
           "DEFAULT_BLOCKS", "supergraph_communities", "private_communities",
           "split_block_statistics", "split_block_scales", "release_split_block_model",
           "default_rounds", "SyntheticRelease", "release_synthetic", "COMMUNITY_SHARE",
           "INIT_SHARE", "SPLIT_COUNT_SHARE", "GROUP_SIZE", "MAX_GROUPS", "default_init_labels",
           "RANDOM_INIT_FROM", "RANDOM_INIT_LABELS", "RANDOM_INIT_ROUNDS", "EDGE_COUNT_SHARE",
           "release_edge_count", "match_edge_count", "degrees_summing_to"]

# privatize's default share of epsilon for the block model (degrees + block counts); the rest
# goes to the route, whose release gives the partition (BENCHMARKS.md, "Synthetic graphs").
SYNTHETIC_SHARE = 0.3
# share of the block model's epsilon for the block counts (the rest: degrees). The counts are
# sums of many edges, so a small share already makes their noise small relative to them.
COUNT_SHARE = 0.2
DEFAULT_BLOCKS = 8


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
        community x degree bin, :func:`split_by_degree_bins`): the inside weights then serve
        every pair of blocks of one community. None: each block is its own community.
    """

    blocks: np.ndarray
    block_counts: np.ndarray
    degrees: np.ndarray
    inside: np.ndarray | None = None
    groups: np.ndarray | None = None

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


def _check_blocks(blocks, n: int | None = None) -> tuple[np.ndarray, int]:
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
    b, k = _check_blocks(blocks, weights.shape[0])
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
    b, _ = _check_blocks(blocks, weights.shape[0])
    coo = sp.coo_array(weights)
    same = b[coo.row] == b[coo.col]
    return np.column_stack([np.bincount(coo.row, weights=coo.data * same, minlength=b.size),
                            np.bincount(coo.row, weights=coo.data * ~same, minlength=b.size)])


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
    b, kb = _check_blocks(blocks, weights.shape[0])
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
    >>> from dpgraph.synthetic.block_model import partition_from_release
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
    _, labels = _kmeans(X, k, gen, iters=30)
    # relabel to 0..k'-1 (empty clusters dropped)
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)


def cut_side_from_release(pg) -> np.ndarray:
    """A two-sided split of the nodes along the release's most negative eigenvector (the
    spectral max-cut heuristic; post-processing, no privacy cost): 0/1 by its sign. From the
    randomized-response release's de-biased matrix, or from the r x r core of the low-rank
    routes (``basis @ core @ basis.T``)."""
    from scipy.sparse import linalg as spla

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


def _kmeans(X: np.ndarray, k: int, gen, iters: int):
    """SciPy's k-means++ / Lloyd; an empty cluster is expected (it is dropped by relabelling),
    so its warning is silenced."""
    import warnings

    from scipy.cluster.vq import kmeans2

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
    from scipy.sparse import linalg as spla

    n = W.shape[0]
    if n <= 400:
        lam, vec = np.linalg.eigh(W)
    else:
        lam, vec = spla.eigsh(W, k=min(k, n - 2), which="LA", tol=1e-4, v0=arpack_start(n))
    order = np.argsort(-lam)[:k]
    return lam[order], vec[:, order]


def refine_partition(data: GraphData, blocks, *, epsilon: float, ledger: PrivacyLedger,
                     rng=None, rounds: int = 2) -> np.ndarray:
    """Private local moves (Louvain's modularity gain) from ``blocks``: ``rounds`` rounds, each
    releasing the node-to-block edge counts ``N = A Z`` (n x k) with Laplace noise of scale
    ``2 rounds / epsilon`` (L1 sensitivity 2: one edge ``{i, j}`` changes ``N[i, z_j]`` and
    ``N[j, z_i]`` by at most 1 each; docs/privacy.md 7.4) and moving every node to the block
    of largest noisy gain ``N^_ib - d^_i vol^_b / vol^`` with ``d^ = N^ 1``,
    ``vol^_b = sum_{i in b} d^_i`` (post-processing). The rounds compose adaptively: total
    ``epsilon``. This is the community-adjustment step of PrivGraph (Yuan et al., USENIX
    Security 2023) as we read the paper; the PrivGraph-style baseline of
    ``benchmarks/bench_synthetic.py`` uses it. ``privatize`` does not (measured on chameleon,
    it lowered the NMI of the spectral partition at epsilon >= 2: BENCHMARKS.md).

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
    b, k = _check_blocks(blocks, data.n)
    rounds = int(rounds)
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    gen = make_rng(rng)
    A = sp.csr_array(data.weights)
    del data
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
    b, k = _check_blocks(blocks, data.n)
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
    return consistent_block_model(b, C, split.sum(axis=1), inside=split[:, 0],
                                  across=split[:, 1], shrink=scale)



def _capped_counts(b: np.ndarray, k: int, counts) -> np.ndarray:
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
    (benchmarks/NOTES.md, "Synthetic graphs").

    Examples
    --------
    >>> bm = consistent_block_model(np.array([0, 0, 1]), np.array([[1.4, -2.0], [0, 0.2]]),
    ...                             np.array([3.0, -1.0, 0.5]))
    >>> bm.block_counts.tolist(), bm.degrees.tolist()
    ([[1, 0], [0, 0]], [2.0, 1.0, 1.0])
    """
    b, k = _check_blocks(blocks)
    n = b.size
    C = _capped_counts(b, k, counts)
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


def _draw_endpoints(gen, cdf: tuple, block_ids: np.ndarray) -> np.ndarray:
    """One endpoint per entry of ``block_ids``, drawn proportional to weight inside the block:
    one binary search in the concatenated cumulative weights of :func:`_cdfs` for all blocks
    (a loop over blocks costs a pass per block, and blocks x degree classes are many)."""
    order, cum, base, tot, off = cdf
    r = base[block_ids] + gen.random(block_ids.size) * tot[block_ids]
    pos = np.searchsorted(cum, r, side="right")
    return order[np.clip(pos, off[block_ids], off[block_ids + 1] - 1)]


def _cdfs(w: np.ndarray, members: list) -> tuple:
    """Cumulative endpoint weights of all blocks, concatenated in block order (uniform where a
    block's weights sum to 0): ``(nodes, cumsum, start of each block, block total, offsets)``."""
    k = len(members)
    sizes = np.array([m.size for m in members], dtype=np.int64)
    order = np.concatenate(members) if k else np.zeros(0, dtype=np.int64)
    blk = np.repeat(np.arange(k), sizes)
    x = np.asarray(w, dtype=float)[order]
    tot = np.bincount(blk, weights=x, minlength=k)
    x = np.where(tot[blk] > 0, x, 1.0)
    tot = np.bincount(blk, weights=x, minlength=k)
    cum = np.cumsum(x)
    off = np.concatenate([[0], np.cumsum(sizes)])
    base = np.concatenate([[0.0], cum])[off[:-1]]
    return order, cum, base, tot, off


def _absent(keys: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Mask of the entries of ``cand`` not in the sorted array ``keys`` (binary search)."""
    if not keys.size:
        return np.ones(cand.size, dtype=bool)
    return keys[np.minimum(np.searchsorted(keys, cand), keys.size - 1)] != cand


def _fill_remaining(gen, keys, members, ia, ib, need, n, weights, inner):
    """Place the edges that the rejection rounds did not (nearly complete block pairs, hubs
    whose pairs are used up): for each block pair, ``need`` distinct free pairs ``{u, v}``
    drawn without replacement with probability proportional to ``w_u w_v`` (Efraimidis and
    Spirakis 2006: the largest keys ``log(U) / (w_u w_v)``), ``weights = (inside, across)``.
    Block pairs of more than ``FILL_ENUMERATE`` node pairs are not enumerated (memory): their
    free pairs are many, so uniform pairs with rejection fill them."""
    extra = []  # block pairs are disjoint: one pair's extra edges never meet another's
    for p in np.flatnonzero(need):
        ma, mb = members[ia[p]], members[ib[p]]
        w = weights[0] if inner[p] else weights[1]
        if ma.size * mb.size > FILL_ENUMERATE:
            extra.append(_fill_by_rejection(gen, keys, ma, mb, int(need[p]), n))
            continue
        u, v = np.meshgrid(ma, mb, indexing="ij")
        u, v = u.ravel(), v.ravel()
        ok = u < v if ia[p] == ib[p] else np.ones(u.size, dtype=bool)
        lo, hi = np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok])
        cand = lo * n + hi  # distinct
        free = _absent(keys, cand)
        cand, lo, hi = cand[free], lo[free], hi[free]
        take = min(int(need[p]), cand.size)
        wt = np.maximum(w[lo] * w[hi], 1e-300)
        key = np.log(gen.random(cand.size)) / wt
        extra.append(cand[np.argpartition(-key, take - 1)[:take]] if take else cand[:0])
    return np.sort(np.concatenate([keys, *extra]), kind="stable") if extra else keys


def _fill_by_rejection(gen, keys, ma, mb, need, n):
    """``need`` distinct uniform pairs between ``ma`` and ``mb`` (not in sorted ``keys``)."""
    got = np.zeros(0, dtype=np.int64)
    while got.size < need:
        u = ma[gen.integers(ma.size, size=2 * (need - got.size) + 8)]
        v = mb[gen.integers(mb.size, size=u.size)]
        ok = u != v
        c = np.unique(np.minimum(u[ok], v[ok]) * n + np.maximum(u[ok], v[ok]))
        got = np.union1d(got, c[_absent(keys, c)])[:need]
    return got


def _anchor_blocks(gen, b: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every node, a partner block drawn with probability proportional to its block's row
    of incidences (``2 k_aa`` inside, ``k_ab`` across); -1 where that row is empty."""
    k = target.shape[0]
    full = (target + target.T).astype(float)  # the diagonal doubles: 2 k_aa inside block a
    # all rows' cumulative sums in one increasing array (row a shifted by the totals of the
    # rows before it): one binary search per node, O(n log k^2) time and no n x k array
    flat = np.cumsum(full.ravel())
    tot = full.sum(axis=1)
    base = np.concatenate([[0.0], np.cumsum(tot)])[:-1]
    u = np.arange(b.size)
    r = base[b] + gen.random(b.size) * tot[b]
    pos = np.searchsorted(flat, r, side="right")
    c = np.clip(pos - b * k, 0, k - 1).astype(np.int64)
    c[tot[b] <= 0] = -1
    return u, c


def _accept(keys, u, v, pair_of, need, n):
    """Add the new distinct non-loop pairs ``{u, v}`` not yet in ``keys`` (sorted), at most
    ``need[p]`` for each block pair ``p``; return the new sorted keys and the remaining need.
    Membership by binary search and a merge of sorted arrays: the rejection rounds after the
    first add few edges, so they cost ``O(m)`` each, not a re-sort of all keys."""
    ok = (u != v) & (pair_of >= 0)
    lo, hi = np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok])
    new, first = np.unique(lo * n + hi, return_index=True)
    pair_of = pair_of[ok][first]
    fresh = _absent(keys, new)
    new, pair_of = new[fresh], pair_of[fresh]
    order = np.argsort(pair_of, kind="stable")
    new, pair_of = new[order], pair_of[order]
    start = np.searchsorted(pair_of, np.arange(need.size))
    take = (np.arange(pair_of.size) - start[pair_of]) < need[pair_of]
    added = np.sort(new[take])
    merged = np.concatenate([keys, added])
    merged[np.searchsorted(keys, added) + np.arange(added.size)] = added  # stable merge slots
    mask = np.ones(merged.size, dtype=bool)
    mask[np.searchsorted(keys, added) + np.arange(added.size)] = False
    merged[mask] = keys
    return merged, need - np.bincount(pair_of[take], minlength=need.size)


ANCHOR_RETRIES = 5
# how an anchor edge picks its partner inside the drawn block: "degree" (in proportion to the
# released degrees, like every other endpoint) or "uniform" (every member alike). Measured
# (benchmarks/NOTES.md, "Synthetic graphs"): "uniform" gives better degree distances, paths and
# NMI on chameleon, facebook, ca-hepph and email-Enron (36 of 140 cells better beyond 2 standard
# errors, 2 worse) but worse on the sparse soc-douban (degree KL 0.19 -> 0.38 at epsilon 1). It
# lifts the nodes whose released degree sits at the floor of 1: their true mean degree is 5-11
# on the first three graphs and 1.8 on soc-douban (72% truly 1). Kept at "degree"; the lever is
# the released degrees' low end, not the anchors.
ANCHOR_PARTNER = "degree"
FILL_ENUMERATE = 4_000_000  # node pairs of a block pair enumerated by the final fill (64 MB)


def sample_block_model(blocks, block_counts, degrees, *, inside=None, rng=None, labels=None,
                       max_rounds: int = 50, groups=None) -> GraphData:
    """Sample a simple graph from a degree-corrected block model (post-processing).

    For each block pair ``a <= b``, draw exactly ``block_counts[a, b]`` distinct edges, each
    endpoint chosen with probability proportional to ``degrees`` inside its block (Chung-Lu
    within and between blocks); self-loops and repeated pairs are rejected and redrawn, for at
    most ``max_rounds`` rounds; what is still missing then (a nearly complete block pair) is
    placed uniformly among the block pair's free pairs. Expected time ``O((m + n) log n)``,
    memory ``O(m + n + k^2)``.

    Parameters
    ----------
    blocks : array of int, shape (n,)
    block_counts : array, shape (k, k)
        Symmetric non-negative integers (upper triangle read); capped at the pairs available.
    degrees : array, shape (n,)
        Positive endpoint weights (e.g. released degrees); a block whose weights sum to 0 gets
        uniform weights.
    inside : array, shape (n,), optional
        Fraction in [0, 1] of each node's weight used for edges inside its block (the rest for
        edges across blocks); default: the same weights for both.
    groups : array of int, shape (k,), optional
        Community of each block: with it, "inside" means inside the block's community (pairs of
        blocks of one group draw with the inside weights). Default: ``arange(k)``.
    rng : None, int or numpy.random.Generator
    labels : sequence, optional
        Node labels of the result (default ``0..n-1``).
    max_rounds : int

    Returns
    -------
    GraphData
        Unweighted, with exactly ``sum_{a<=b} min(block_counts[a, b], pairs_ab)`` edges.

    Examples
    --------
    >>> import numpy as np
    >>> g = sample_block_model(np.array([0, 0, 0, 1, 1, 1]), np.array([[3, 1], [1, 2]]),
    ...                        np.ones(6), rng=0)
    >>> g.m
    6
    """
    b, k = _check_blocks(blocks)
    n = b.size
    d = np.asarray(degrees, dtype=float)
    if d.shape != (n,) or not np.all(np.isfinite(d)) or (d < 0).any():
        raise ValueError(f"degrees must be {n} finite non-negative numbers")
    C = np.asarray(block_counts)
    if C.shape != (k, k):
        raise ValueError(f"block_counts must be {k} x {k} for {k} blocks, got {C.shape}")
    gen = make_rng(rng)
    sizes = np.bincount(b, minlength=k)
    pairs = np.outer(sizes, sizes).astype(np.int64)
    pairs[np.diag_indices(k)] = sizes * (sizes - 1) // 2
    target = np.minimum(np.rint(np.triu(C)).astype(np.int64), np.triu(pairs))
    # each block's nodes in increasing order: one stable sort, not k passes over the nodes
    members = np.split(np.argsort(b, kind="stable"), np.cumsum(sizes)[:-1])
    f = np.full(n, 0.5) if inside is None else np.clip(np.asarray(inside, dtype=float), 0, 1)
    if f.shape != (n,) or not np.all(np.isfinite(f)):
        raise ValueError(f"inside must be {n} finite numbers in [0, 1]")
    w_in, w_out = d * f, d * (1.0 - f)
    grp = np.arange(k) if groups is None else np.asarray(groups, dtype=np.int64)
    if grp.shape != (k,):
        raise ValueError(f"groups must give the community of each of the {k} blocks")
    ia, ib = np.nonzero(target)
    need = target[ia, ib]
    pair_index = np.full((k, k), -1, dtype=np.int64)
    pair_index[ia, ib] = np.arange(ia.size)
    keys = np.empty(0, dtype=np.int64)
    keep = np.ones(n)
    cin, cout = _cdfs(w_in, members), _cdfs(w_out, members)
    if ANCHOR_PARTNER == "uniform":
        a_in = a_out = _cdfs(np.ones(n), members)
    else:
        a_in, a_out = cin, cout
    if ia.size:
        # anchors: one edge from every node, to a block drawn in proportion to its block's
        # released incidences, so no node with a positive released block volume is isolated
        # (the first pass draws for every node; a node whose anchor was rejected -- its block
        # pair's count used up by other anchors: small blocks -- draws again, in proportion to
        # the counts still unplaced)
        for _ in range(1 + ANCHOR_RETRIES):
            deg = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
            left = np.zeros((k, k), dtype=np.int64)
            left[ia, ib] = need
            u, c = _anchor_blocks(gen, b, left)
            has = (c >= 0) & (deg == 0)
            if not has.any():
                break
            u, c = u[has], c[has]
            v = np.where(grp[c] == grp[b[u]], _draw_endpoints(gen, a_in, c),
                         _draw_endpoints(gen, a_out, c))
            lo_b, hi_b = np.minimum(b[u], c), np.maximum(b[u], c)
            keys, need = _accept(keys, u, v, pair_index[lo_b, hi_b], need, n)
        # the remaining draws discount the anchor edge (each node already has about one)
        keep = np.maximum(d - 1.0, 0.1) / d
        cin, cout = _cdfs(w_in * keep, members), _cdfs(w_out * keep, members)
    inner = grp[ia] == grp[ib]
    for t in progress(range(max_rounds), total=None, desc="sampling: edge draws",
                      unit="round"):
        left = int(need.sum())
        if left == 0:
            break
        pair_of = np.repeat(np.arange(ia.size), need)
        inn = inner[pair_of]
        u = np.empty(pair_of.size, dtype=np.int64)
        v = np.empty(pair_of.size, dtype=np.int64)
        for sel, cdfs in ((inn, cin), (~inn, cout)):
            u[sel] = _draw_endpoints(gen, cdfs, ia[pair_of[sel]])
            v[sel] = _draw_endpoints(gen, cdfs, ib[pair_of[sel]])
        keys, need = _accept(keys, u, v, pair_of, need, n)
        if t >= 2 and left - need.sum() < 0.1 * left:
            break  # the rest lies in nearly used-up pairs: draw them among the free pairs
    if need.sum():
        keys = _fill_remaining(gen, keys, members, ia, ib, need, n,
                               (w_in * keep, w_out * keep), inner)
    rows, cols = keys // n, keys % n
    A = sp.coo_array((np.ones(keys.size), (rows, cols)), shape=(n, n))
    lab = range(n) if labels is None else _label_sequence(labels)  # a range stays O(1)
    out = from_matrix((A + A.T).tocsr(), lab, source="sampled synthetic graph (block model)")
    return out


# ----------------------------------------------------------------------------- release_synthetic
#
# A dedicated synthetic-graph release (docs/privacy.md 7.6-7.10): pure epsilon-DP, no
# n x n array and no eigensolve. What ``dpgraph synth`` runs by default.

# share of epsilon for the communities (the rest: the block model, the degree classes and the
# edge count); of that, INIT_SHARE for the super-graph and the rest for the refinement. 0.75 was
# chosen on chameleon and ca-hepph at epsilon 1 and 4 (benchmarks/NOTES.md, "Synthetic
# graphs"); the edge count's 0.02 comes out of it, not out of the block model's 0.2: taken from
# the block model it made the degree mixing worse at epsilon 0.5 (chameleon, assortativity
# error 0.51 -> 0.76, 3 seeds), taken from here it changed no other cell beyond 2 standard errors
COMMUNITY_SHARE = 0.73
INIT_SHARE = 0.5
# the block model's epsilon share for the inter-block counts (the rest: the across-degrees; the
# inside-degrees get the whole block-model epsilon by parallel composition, docs 7.7)
SPLIT_COUNT_SHARE = 0.3
# nodes per random super-node (PrivGraph's N1), and at most this many super-nodes: the noisy
# super-graph is dense, g (g + 1) / 2 Laplace draws, so g is capped to bound memory at
# 8 g^2 bytes (32 MB)
GROUP_SIZE = 20
MAX_GROUPS = 2000
# from epsilon RANDOM_INIT_FROM on, the communities start from RANDOM_INIT_LABELS uniformly
# random labels (no super-graph; the whole community budget goes to RANDOM_INIT_ROUNDS
# refinement rounds), which opens more communities than the super-graph's 3-7. Below it the
# per-node noise of the refinement is too large for 12 labels (chameleon, ca-hepph at epsilon 2
# lost NMI and modularity). Chosen on chameleon, facebook, ca-hepph at epsilon 2, 3, 4
# (benchmarks/NOTES.md, "Synthetic graphs").
RANDOM_INIT_FROM = 3.0
RANDOM_INIT_LABELS = 12
RANDOM_INIT_ROUNDS = 4
# share of epsilon for the edge counts between degree classes (docs/privacy.md 7.9); the
# counts are sums over many edges, so a small share suffices. At most MAX_DEGREE_BINS classes.
DEGREE_BIN_SHARE = 0.05
MAX_DEGREE_BINS = 16
DEGREE_CLASS_RATIO = 2.0  # each class spans this factor of degrees
# share of epsilon for the total edge weight (docs/privacy.md 7.10): a single count of L1
# sensitivity 1, so a small share pins it to within 1 / (EDGE_COUNT_SHARE eps) edges on average
# (50 edges at epsilon 1), where the sum of the block counts carries the noise of every node's
# released inside degree (chameleon at epsilon 0.5: up to 5.5% short; benchmarks/NOTES.md)
EDGE_COUNT_SHARE = 0.02
# at most this many (community, class) blocks: the fit holds (k B)^2 floats (32 MB at 2048)
MAX_SPLIT_BLOCKS = 2048
# the top degree class holds at least this many nodes (measured on chameleon, facebook,
# ca-hepph: 32 gave 108 of 120 benchmark cells, 1 gave 104 and 100 gave 105; benchmarks/NOTES.md)
MIN_TOP_CLASS = 32


def _louvain_on_weights(g: int, W: np.ndarray, seed: int, resolution: float = 1.0) -> np.ndarray:
    """igraph's multilevel (Louvain) on the weighted graph of the positive upper triangle of
    ``W`` (g x g); igraph's global generator is seeded from ``seed`` and restored."""
    import random

    import igraph as ig

    iu, ju = np.nonzero(np.triu(W))
    graph = ig.Graph(n=g, edges=np.column_stack([iu, ju]).tolist())
    ig.set_random_number_generator(random.Random(seed))
    try:
        return np.asarray(graph.community_multilevel(weights=W[iu, ju].tolist(),
                                                     resolution=resolution).membership)
    finally:
        ig.set_random_number_generator(random)


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
    gen = make_rng(rng)
    n = data.n
    g = min(max(n // int(group_size), 1), MAX_GROUPS)
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
                        group_size: int = GROUP_SIZE, init_labels: int = 0) -> np.ndarray:
    """A private community partition: :func:`supergraph_communities` with
    ``init_share * epsilon``, then :func:`refine_partition` (``rounds`` rounds of noisy
    node-to-community counts and Louvain moves) with the rest. Adaptive sequential composition:
    ``epsilon`` in all (docs/privacy.md 7.6). This is PrivGraph's community step (Yuan et al.,
    USENIX Security 2023) as we read the paper, with its split of the budget a parameter.

    ``init_labels >= 2``: start instead from that many uniformly random labels (fresh
    randomness, independent of the graph: no privacy cost) and give the whole ``epsilon``
    to the ``rounds`` refinement rounds (docs/privacy.md 7.6, step 1'); ``init_share`` and
    ``group_size`` are then unused."""
    if not 0 < init_share < 1:
        raise ValueError(f"init_share must lie strictly between 0 and 1, got {init_share!r}")
    if isinstance(init_labels, bool) or int(init_labels) != init_labels or init_labels < 0 \
            or init_labels == 1:
        raise ValueError(f"init_labels must be 0 (super-graph) or an integer >= 2, "
                         f"got {init_labels!r}")
    gen = make_rng(rng)
    if init_labels:
        z = gen.integers(int(init_labels), size=data.n)  # data-independent start
        return refine_partition(data, z, epsilon=epsilon, ledger=ledger, rng=gen, rounds=rounds)
    z = supergraph_communities(data, epsilon=init_share * epsilon, ledger=ledger, rng=gen,
                               group_size=group_size)
    if int(z.max()) == 0:  # one community: nothing to refine, keep the budget unspent
        return z
    return refine_partition(data, z, epsilon=(1.0 - init_share) * epsilon, ledger=ledger,
                            rng=gen, rounds=rounds)


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
    b, k = _check_blocks(blocks, weights.shape[0])
    split = degree_split(weights, b)
    inter = block_edge_counts(weights, b)[np.triu_indices(k, 1)] if k > 1 else np.zeros(0)
    return np.concatenate([split[:, 0], inter, split[:, 1]])


def split_block_scales(n: int, k: int, epsilon: float,
                       count_share: float = SPLIT_COUNT_SHARE) -> np.ndarray:
    """Laplace scale of each coordinate of :func:`split_block_statistics` in
    :func:`release_split_block_model`: ``2 / epsilon`` (inside degrees),
    ``1 / (count_share epsilon)`` (inter-block counts), ``2 / ((1 - count_share) epsilon)``
    (across degrees); with them ``max over adjacent graphs of sum_k |Delta_k| / b_k = epsilon``
    (docs/privacy.md 7.7)."""
    return np.concatenate([np.full(n, 2.0 / epsilon),
                           np.full(k * (k - 1) // 2, 1.0 / (count_share * epsilon)),
                           np.full(n, 2.0 / ((1.0 - count_share) * epsilon))])


# pseudo-counts (in units of the across degrees' noise scale) that shrink each node's released
# inside share towards its block's: 1 pulled the shares of most nodes to the block's (chameleon
# at epsilon 1: modularity error 0.806, EVC 0.594); 0-0.25 all did better (0.78, 0.59-0.67;
# 108 -> 108-112 of 120 benchmark cells), 0.1 is the middle of that range (benchmarks/NOTES.md).
INSIDE_SHRINK = 0.1


def release_split_block_model(data: GraphData, blocks, *, epsilon: float,
                              ledger: PrivacyLedger, rng=None,
                              count_share: float = SPLIT_COUNT_SHARE) -> BlockModel:
    """Release a degree-corrected block model for fixed ``blocks`` (pure ``epsilon``-DP).

    One Laplace release of :func:`split_block_statistics` with per-coordinate scales
    :func:`split_block_scales`: a pair inside a block moves only two inside degrees (L1 2,
    scale ``2 / epsilon``); a pair across blocks moves one inter-block count and two across
    degrees (``1 / (count_share eps) + 2 / ((1 - count_share) eps)`` in scaled units): the
    weighted L1 sensitivity is ``epsilon`` either way, so the release is ``epsilon``-DP
    (docs/privacy.md 7.7; the parallel composition of PrivGraph's extraction step). The
    block's inside count is half the sum of its released inside degrees (post-processing);
    then :func:`consistent_block_model`. ``blocks`` must not depend on ``data`` except through
    earlier releases (adaptive composition).

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
    b, k = _check_blocks(blocks, data.n)
    if not 0 < count_share < 1:
        raise ValueError(f"count_share must lie strictly between 0 and 1, got {count_share!r}")
    gen = make_rng(rng)
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
    return consistent_block_model(b, C, d_in + d_out, inside=d_in, across=d_out,
                                  shrink=INSIDE_SHRINK * float(scales[-1]))


def degree_bins(degrees, noise: float = 1.0, min_top: int = 1) -> np.ndarray:
    """Logarithmic degree classes of released degrees: ``floor(log2(max(d / noise, 1)))``,
    capped at ``MAX_DEGREE_BINS - 1``, relabelled ``0..B-1`` in increasing order
    (post-processing). ``noise`` (the standard deviation of the released degrees' noise) sets
    the lowest class, ``d < 2 noise``: below it the classes would sort noise. The top class
    is merged into the one below until it holds at least ``min_top`` nodes (a class of a few
    hubs, split again by community, makes blocks with almost no free node pairs).

    Examples
    --------
    >>> degree_bins(np.array([1.0, 3.0, 4.5, 100.0])).tolist()
    [0, 1, 2, 3]
    >>> degree_bins(np.array([1.0, 3.0, 4.5, 100.0]), noise=4.0).tolist()
    [0, 0, 0, 1]
    >>> degree_bins(np.array([1.0, 3.0, 4.5, 100.0]), min_top=2).tolist()
    [0, 1, 2, 2]
    """
    d = np.asarray(degrees, dtype=float) / max(float(noise), 1.0)
    raw = np.minimum(np.floor(np.log(np.maximum(d, 1.0)) / np.log(DEGREE_CLASS_RATIO)),
                     MAX_DEGREE_BINS - 1)
    out = np.unique(raw.astype(np.int64), return_inverse=True)[1].astype(np.int64)
    # the top classes hold the few hubs: merge them down until the top one has enough nodes
    while out.max() > 0 and np.count_nonzero(out == out.max()) < min_top:
        out[out == out.max()] -= 1
    return out


def release_degree_mixing(data: GraphData, bins, *, epsilon: float, ledger: PrivacyLedger,
                          rng=None) -> np.ndarray:
    """The edge counts between degree classes, released with Laplace noise of scale
    ``1 / epsilon`` (pure ``epsilon``-DP): the ``B (B + 1) / 2`` entries of
    :func:`block_edge_counts` for the classes ``bins``. One edge lies in exactly one pair of
    classes, so the L1 sensitivity is 1 (docs/privacy.md 7.9), provided ``bins`` depends on
    ``data`` only through earlier releases (adaptive composition; :func:`degree_bins` of the
    released degrees). Returns the symmetric ``B x B`` matrix, clipped at 0 (diagonal: edges
    inside a class).

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
    b, B = _check_blocks(bins, data.n)
    iu = np.triu_indices(B)
    counts, _ = laplace_mechanism(
        block_edge_counts(data.weights, b)[iu], sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="synthetic: degree-class edge counts", rng=make_rng(rng),
        note=f"{B} degree classes of the released degrees; one edge lies in one class pair "
             "(docs/privacy.md 7.9)")
    M = np.zeros((B, B))
    M[iu] = np.maximum(counts, 0.0)
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
    b, B = _check_blocks(bins)
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

    >>> bm = consistent_block_model(np.zeros(6, dtype=int), np.array([[8]]),
    ...                             np.array([4.0, 4, 2, 2, 2, 2]))
    >>> out = split_by_degree_bins(bm, np.array([1, 1, 0, 0, 0, 0]),
    ...                            np.array([[0.0, 8], [8, 0]]), rng=0)
    >>> out.block_counts.tolist(), out.groups.tolist()
    ([[0, 8], [8, 0]], [0, 0])
    """
    gen = make_rng(rng)
    b = bm.blocks
    a, B = _check_blocks(bins, b.size)
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
    return BlockModel(blocks=new_b, block_counts=_capped_counts(new_b, used.size, counts),
                      degrees=d, inside=f, groups=(used // B).astype(np.int64))


def release_edge_count(data: GraphData, *, epsilon: float, ledger: PrivacyLedger,
                       rng=None) -> float:
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
    total = float(sp.csr_array(data.weights).sum()) / 2.0
    m_hat, _ = laplace_mechanism(total, sensitivity=1.0, epsilon=epsilon, ledger=ledger,
                                 name="synthetic: total edge weight", rng=make_rng(rng),
                                 note="one pair changes the total by <= 1 (docs/privacy.md 7.10)")
    return m_hat


def match_edge_count(bm: BlockModel, target: float, *, rng=None) -> BlockModel:
    """Rescale a block model's pair counts to total ``round(target)`` (post-processing).

    The counts are multiplied by one factor; a count that would exceed the pairs its block
    pair has is capped and the rest is spread over the others in proportion (repeated until
    nothing is capped); then each count is rounded down and the remaining units go to
    distinct block pairs by systematic sampling on the fractional parts, so the total is exact
    (``target`` is first clipped to ``[0, all pairs]``) and every count is an unbiased
    rounding (systematic sampling: a count gains 1 with probability its fractional part). Block pairs with no count keep none (if all are empty, the pairs decide).

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
                      groups=bm.groups)


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


def default_init_labels(epsilon: float) -> int:
    """How :func:`release_synthetic` starts its communities (a public function of epsilon):
    ``RANDOM_INIT_LABELS`` random labels from ``epsilon >= RANDOM_INIT_FROM`` on, else 0 (the
    noisy super-graph)."""
    return RANDOM_INIT_LABELS if epsilon >= RANDOM_INIT_FROM else 0


def default_rounds(epsilon: float, init_labels: int | None = None) -> int:
    """Refinement rounds of :func:`release_synthetic` (a public function of epsilon):
    ``RANDOM_INIT_ROUNDS`` after a random start (``init_labels >= 2``; by default from
    ``epsilon >= RANDOM_INIT_FROM``); after the super-graph 2 from epsilon 2 on, where a second
    round raised the NMI on chameleon and ca-hepph, else 1."""
    if init_labels is None:
        init_labels = default_init_labels(epsilon)
    if init_labels:
        return RANDOM_INIT_ROUNDS
    return 2 if epsilon >= 2 else 1


@dataclass(eq=False)
class SyntheticRelease:
    """What :func:`release_synthetic` released: a :class:`BlockModel` and its ledger.

    ``sample(rng)`` draws a synthetic graph (post-processing, as often as wanted);
    ``edge_count`` is the released edge count (every sample has exactly that many edges).
    """

    block_model: BlockModel
    ledger: PrivacyLedger
    labels: tuple | range  # the graph's labels, as GraphData keeps them
    diagnostics: dict

    @property
    def n(self) -> int:
        return self.block_model.n

    @property
    def edge_count(self) -> int:
        return self.block_model.edge_count

    def sample(self, rng=None) -> GraphData:
        """An unweighted simple graph from the block model (:func:`sample_block_model`)."""
        bm = self.block_model
        return sample_block_model(bm.blocks, bm.block_counts, bm.degrees, inside=bm.inside,
                                  rng=make_rng(rng), labels=self.labels, groups=bm.groups)

    def __repr__(self) -> str:
        from dpgraph.privacy import reproducible_tag

        eps, _ = self.ledger.spent
        return (f"SyntheticRelease(n={self.n}, blocks={self.block_model.block_counts.shape[0]}, "
                f"edge_count={self.edge_count}, epsilon={eps:.4g}"
                f"{reproducible_tag(self.ledger)})")


def _split_by_released_degree_classes(data, bm, *, eps_model, eps_bins, count_share, ledger,
                                      gen, diag) -> BlockModel:
    """Step 3 of :func:`release_synthetic`: degree classes of the released degrees (lowest
    class below twice the degrees' noise standard deviation), their pair counts released with
    ``eps_bins`` (:func:`release_degree_mixing`), the block model split by class
    (:func:`split_by_degree_bins`)."""
    sc = split_block_scales(1, 1, eps_model, count_share)  # [inside, count, across] scales
    noise_sd = float(np.sqrt(2.0 * (sc[0] ** 2 + sc[-1] ** 2)))  # Laplace(b): variance 2 b^2
    bins = degree_bins(bm.degrees, noise=noise_sd, min_top=MIN_TOP_CLASS)
    k = bm.block_counts.shape[0]
    while k * (int(bins.max()) + 1) > MAX_SPLIT_BLOCKS and bins.max() > 0:
        bins = bins // 2  # merge neighbouring classes: the split's k^2 B^2 table stays small
    mixing = release_degree_mixing(data, bins, epsilon=eps_bins, ledger=ledger, rng=gen)
    diag["degree_classes"] = int(bins.max()) + 1
    diag["released_assortativity"] = round(mixing_assortativity(mixing, bm.degrees, bins), 4)
    return split_by_degree_bins(bm, bins, mixing, rng=gen)


def release_synthetic(G, *, epsilon: float, rng=None, weight: str | None = "weight",
                      community_share: float = COMMUNITY_SHARE, init_share: float = INIT_SHARE,
                      rounds: int | None = None, count_share: float = SPLIT_COUNT_SHARE,
                      group_size: int = GROUP_SIZE,
                      init_labels: int | None = None,
                      bin_share: float = DEGREE_BIN_SHARE) -> SyntheticRelease:
    """Release a private synthetic-graph model of ``G`` (pure edge-level ``epsilon``-DP).

    Cheaper than :func:`dpgraph.privatize` for this one use: ``O(m + n k + g^2)`` time and
    memory (``k`` communities, ``g <= MAX_GROUPS`` super-nodes), no eigensolve, no n x n array.
    Steps (docs/privacy.md 7.6-7.10):

    1. ``community_share * epsilon``: a private community partition
       (:func:`private_communities`: Louvain on a noisy super-graph of random super-nodes, or
       from ``epsilon >= 3`` by default ``RANDOM_INIT_LABELS`` random labels
       (:func:`default_init_labels`), then ``rounds`` rounds of noisy node-to-community counts;
       default :func:`default_rounds`).
    2. ``(1 - community_share - bin_share - EDGE_COUNT_SHARE) * epsilon``: inside degrees, inter-community edge
       counts and across degrees in one Laplace release (:func:`release_split_block_model`),
       post-processed into a consistent degree-corrected block model (degrees clipped to
       ``[1, n - 1]``, counts capped by the pairs available).
    3. ``bin_share * epsilon`` (0: skipped): the edge counts between logarithmic classes of
       the released degrees (:func:`release_degree_mixing`); every community is split by
       degree class and the new block pair counts fitted to both released margins
       (:func:`split_by_degree_bins`), so the samples keep the graph's degree mixing
       (assortative or not), which shapes triangles, paths and cuts.
    4. ``EDGE_COUNT_SHARE * epsilon`` (0.02): the total edge weight
       (:func:`release_edge_count`); the block pair counts are rescaled to it
       (:func:`match_edge_count`), so the edge count is within ``1 / (0.02 epsilon)`` on
       average instead of carrying the noise of n released inside degrees; the released
       degrees are shifted down to sum to twice that count (:func:`degrees_summing_to`).
    5. :meth:`SyntheticRelease.sample`: exactly the released number of edges per block pair,
       endpoints drawn in proportion to the released degrees (Chung-Lu within and between
       blocks), one anchor edge per node (no isolated nodes).

    Unlike the export of :func:`dpgraph.privatize` this keeps no spectral release.

    Parameters
    ----------
    G : graph (NetworkX, igraph, SciPy sparse, GraphData), edge weights in [0, 1]
    epsilon : float
        Total privacy budget (delta = 0).
    rng : None, int or numpy.random.Generator
        None: the secure generator; an int: reproducible (and warned about).
    weight : str or None
        Edge attribute read as weight; None: every edge weighs 1.
    community_share, init_share, count_share : float in (0, 1)
    bin_share : float in [0, 1)
        Share of ``epsilon`` for the degree-class counts (step 3; 0 turns it off);
        ``community_share + bin_share < 1 - EDGE_COUNT_SHARE``.
    rounds : int, optional
    group_size : int
    init_labels : int, optional
        0: start the communities from the noisy super-graph; ``k >= 2``: from ``k`` random
        labels (all of the community budget to the refinement). Default
        :func:`default_init_labels` (``epsilon``-dependent).

    Returns
    -------
    SyntheticRelease

    Raises
    ------
    ValueError
        Fewer than 3 nodes, weights outside [0, 1], a share outside (0, 1), or a Dask edge
        list (use ``dpgraph.privatize(..., route="matrix-free").sample()`` there).

    Examples
    --------
    >>> import networkx as nx, warnings
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # seeded: reproducible mode warns
    ...     rel = release_synthetic(G, epsilon=2.0, rng=0)
    >>> H = rel.sample(rng=1)
    >>> H.n, H.m == rel.edge_count, round(rel.ledger.spent[0], 6)
    (34, True, 2.0)
    """
    from dpgraph.io.dask import is_dask_input
    from dpgraph.privacy.validation import check_epsilon
    from dpgraph.privacy.validation import check_share
    from dpgraph.private_input import check_private_graph_input, input_graph

    epsilon = check_epsilon(epsilon)
    for name, value in (("community_share", community_share), ("init_share", init_share),
                        ("count_share", count_share)):
        check_share(name, value)
    if bin_share != 0:
        check_share("bin_share", bin_share)
    if community_share + bin_share + EDGE_COUNT_SHARE >= 1:
        raise ValueError(f"community_share + bin_share must be below {1 - EDGE_COUNT_SHARE:g} "
                         f"(the rest is the block model's and the edge count's), got "
                         f"{community_share!r} + {bin_share!r}")
    if is_dask_input(G):
        raise ValueError("release_synthetic needs the graph in memory; for a Dask edge list use "
                         "dpgraph.privatize(..., route='matrix-free').sample()")
    data = input_graph(G, weight=weight)
    check_private_graph_input(data, what="release_synthetic")
    if isinstance(group_size, bool) or int(group_size) != group_size or group_size < 1:
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    init_labels = default_init_labels(epsilon) if init_labels is None else init_labels
    rounds = default_rounds(epsilon, init_labels) if rounds is None else int(rounds)
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=0.0)  # the draws mark it if seeded
    eps_c = community_share * epsilon
    report(f"release_synthetic: private communities of {data.n:,} nodes")
    blocks = private_communities(data, epsilon=eps_c, ledger=ledger, rng=gen,
                                 init_share=init_share, rounds=rounds, group_size=group_size,
                                 init_labels=init_labels)
    diag = {"communities": int(blocks.max()) + 1, "rounds": rounds,
            "init": f"{init_labels} random labels" if init_labels else "super-graph",
            "community_share": community_share, "mechanism": "release_synthetic (block model)"}
    # whatever the communities left unspent (one community: no refinement) goes to the model
    eps_bins = bin_share * epsilon
    eps_edges = EDGE_COUNT_SHARE * epsilon
    eps_model = epsilon - ledger.spent[0] - eps_bins - eps_edges
    report(f"release_synthetic: block model of {diag['communities']} communities")
    bm = release_split_block_model(data, blocks, epsilon=eps_model, ledger=ledger, rng=gen,
                                   count_share=count_share)
    if eps_bins > 0:
        bm = _split_by_released_degree_classes(data, bm, eps_model=eps_model,
                                               eps_bins=eps_bins, count_share=count_share,
                                               ledger=ledger, gen=gen, diag=diag)
    m_hat = release_edge_count(data, epsilon=eps_edges, ledger=ledger, rng=gen)
    diag["released_edge_weight"] = round(m_hat, 2)
    bm = match_edge_count(bm, m_hat, rng=gen)
    bm.degrees = degrees_summing_to(bm.degrees, 2.0 * bm.edge_count)
    return SyntheticRelease(block_model=bm, ledger=ledger, labels=_label_sequence(data.labels),
                            diagnostics=diag)
