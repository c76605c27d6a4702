"""A release held in factor form: ``W^ = D^{1/2} B K B^T D^{1/2}`` without the n x n array.

What the matrix-free route (:mod:`dpgraph.release.routes.matrix_free`, docs/privacy.md 5)
returns: :class:`FactorPrivateGraph`, a :class:`~dpgraph.release.private_graph.PrivateGraph`
whose weights are an operator (:class:`LowRankOperator`: products in ``O(n r)``), with exports,
engine options and samplers (in memory, or on Dask through
:mod:`dpgraph.synthetic.factor_sampler`) that never form ``W^``. Everything here is
post-processing of the release.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpgraph.caller import caller_stacklevel
from dpgraph.engine import WeightOperator
from dpgraph.graph import GraphData
from dpgraph.memory import check_memory
from dpgraph.progress import progress
from dpgraph.privacy import make_rng, reproducible_tag, spent_text
from dpgraph.privacy.validation import check_integer, check_number
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.synthetic import factor_sampler
from dpgraph.synthetic.block_model import SyntheticSampleWarning, warn_if_sparse_sample
from dpgraph.synthetic.factor_sampler import SamplePlan, distinct_sorted, sample_task

__all__ = ["FactorPrivateGraph", "LowRankOperator", "DENSE_EXPORT_MAX_N", "LOCAL_SEARCH_MAX_N",
           "SAMPLE_BYTES_PER_DRAW", "sample_bytes", "export_bytes"]

# Peak bytes of the in-memory sampler per draw (the tasks' keys, their sorted distinct copy,
# the endpoints and the CSR array), measured with tracemalloc: 104 B per edge at n = 20,000
# and 10^6 edges; and of the weighted export per kept pair, besides its row blocks (each a
# block_rows x n float array and its temporaries, about five): 650 B per pair at n = 20,000,
# 10^6 pairs, blocks of 1,024 rows (of which 64 B per pair past the blocks).
SAMPLE_BYTES_PER_DRAW = 112
EXPORT_BYTES_PER_PAIR = 64
EXPORT_BLOCK_COPIES = 5


def sample_bytes(draws: float) -> int:
    """Bytes :meth:`FactorPrivateGraph.sample` needs for ``draws`` endpoint-pair draws.

    >>> sample_bytes(1000) == 1000 * SAMPLE_BYTES_PER_DRAW, sample_bytes(-5)  # linear, >= 0
    (True, 0)
    """
    return int(SAMPLE_BYTES_PER_DRAW * max(float(draws), 0.0))


def export_bytes(n: int, pairs: float, block_rows: int = 1024) -> int:
    """Bytes of the factor form's weighted export of ``pairs`` pairs on ``n`` nodes.

    >>> export_bytes(100, 0) == EXPORT_BLOCK_COPIES * 8 * 100 * 100  # 100 rows: one block
    True
    >>> export_bytes(10000, 1e6) - export_bytes(10000, 0) == 1e6 * EXPORT_BYTES_PER_PAIR
    True
    >>> export_bytes(10000, 0, block_rows=512) * 2 == export_bytes(10000, 0)  # half the rows
    True
    """
    return int(EXPORT_BLOCK_COPIES * 8 * min(block_rows, n) * n
               + EXPORT_BYTES_PER_PAIR * max(float(pairs), 0.0))

# Above this many nodes the dense n x n export (PrivateGraph.weights) is refused: 5,000 nodes
# is a 200 MB array; the factor form serves everything else.
DENSE_EXPORT_MAX_N = 5000
# The engine's local search costs O(n r) per move on the factor form (one column of W^ per
# flip); above this many nodes it is switched off by default (FactorPrivateGraph.solver_options).
LOCAL_SEARCH_MAX_N = 5000



#: :meth:`FactorPrivateGraph.sample` warns when repeated and self pairs took more than this
#: share of its draws
REPEATS_WARN = 0.2


def _warn_if_repeats_dropped(kept: int, drawn: int) -> None:
    """A :class:`SyntheticSampleWarning` when the distinct pairs ``kept`` of ``drawn`` draws
    fall short of the draws by more than ``REPEATS_WARN`` of them."""
    if drawn > 0 and kept < (1.0 - REPEATS_WARN) * drawn:
        import warnings

        warnings.warn(f"the sample has {kept:,} edges of {drawn:,} drawn: "
                      f"{1 - kept / drawn:.0%} were repeated or self pairs, dropped from a simple "
                      f"graph (the released degrees are too concentrated for a graph this small "
                      f"and dense)", SyntheticSampleWarning, stacklevel=caller_stacklevel())


class _FactorMatrix:
    """``W^ = U K U^T`` (diagonal included) as an object that multiplies and indexes like the
    dense matrix it stands for, without holding it: the engine code that reads ``op.W``
    (pairwise swap gains, row sums, the diagonal) works unchanged."""

    def __init__(self, U: np.ndarray, K: np.ndarray):
        self.U, self.K = U, K
        self.shape = (U.shape[0], U.shape[0])

    def __matmul__(self, V):
        return self.U @ (self.K @ (self.U.T @ np.asarray(V, dtype=np.float64)))

    def diagonal(self) -> np.ndarray:
        return np.einsum("ij,jk,ik->i", self.U, self.K, self.U)

    def sum(self, axis=None):
        rows = self.U @ (self.K @ self.U.sum(axis=0))
        if axis is None:
            return float(rows.sum())
        return rows

    def __getitem__(self, key):
        U, K = self.U, self.K
        if isinstance(key, tuple) and len(key) == 2:
            r, c = np.asarray(key[0]), np.asarray(key[1])
            if r.ndim == 0 and c.ndim == 0:
                return float(U[int(r)] @ K @ U[int(c)])
            if r.ndim == 2 and c.ndim == 2:  # np.ix_(rows, cols)
                return (U[r.ravel()] @ K) @ U[c.ravel()].T
        elif isinstance(key, (int, np.integer)):
            return U @ (K @ U[int(key)])
        raise TypeError(f"a factor-form weight matrix supports W[i], W[i, j] and W[np.ix_(P, Q)], "
                        f"not {key!r}")


class LowRankOperator(WeightOperator):
    """The CSP engine's weight operator on a factor form ``W^ = U K U^T`` (``U``: ``n x k``).

    Products ``W_off V`` cost ``O(n k c)`` for ``c`` columns and memory ``O(n (k + c))``; no
    ``n x n`` array is formed (``to_dense`` refuses above 20,000 nodes). ``W_off`` is ``W^``
    with its diagonal removed, as for every :class:`~dpgraph.engine.WeightOperator`.

    Examples
    --------
    >>> import numpy as np
    >>> U = np.array([[1.0], [1.0], [-1.0]])
    >>> op = LowRankOperator(U, np.array([[-1.0]]), labels=("a", "b", "c"))
    >>> op.to_dense()
    array([[ 0., -1.,  1.],
           [-1.,  0.,  1.],
           [ 1.,  1.,  0.]])
    >>> op.matmul(np.ones(3))
    array([0., 0., 2.])
    """

    _DENSE_MAX_N = 20000

    def __init__(self, U: np.ndarray, K: np.ndarray, labels: tuple):
        U = np.ascontiguousarray(U, dtype=np.float64)
        K = np.asarray(K, dtype=np.float64)
        if U.ndim != 2 or K.shape != (U.shape[1], U.shape[1]):
            raise ValueError(f"factor shapes do not match: U {U.shape}, K {K.shape}")
        super().__init__(_FactorMatrix(U, 0.5 * (K + K.T)), labels)
        self.is_dense = True  # indexable like a dense matrix (op.W[np.ix_(P, Q)]), never sparse

    @property
    def nnz(self) -> int:
        return int(self.W.U.size)

    def matmul(self, V: np.ndarray) -> np.ndarray:
        V = np.asarray(V, dtype=np.float64)
        out = self.W @ V
        # out - diag V, into the temporary (the same operations, one n x c array fewer)
        tmp = self.diag * V if V.ndim == 1 else self.diag[:, None] * V
        return np.subtract(out, tmp, out=tmp)

    def factors(self) -> tuple[np.ndarray, np.ndarray]:
        """``(U, K)`` with ``W^ = U K U^T`` (no copies): lets :func:`dpgraph.engine.rounding.rebalance`
        update gains in O(k) per move instead of one O(n k) column."""
        return self.W.U, self.W.K

    def column(self, i: int):
        col = self.W[int(i)]
        col[i] = 0.0
        idx = np.flatnonzero(col)
        return idx, col[idx]

    def entry(self, i: int, j: int) -> float:
        return 0.0 if i == j else self.W[i, j]

    def to_dense(self) -> np.ndarray:
        if self.n > self._DENSE_MAX_N:
            raise ValueError(f"a dense copy of this factor-form operator needs an {self.n} x "
                             f"{self.n} array ({8 * self.n ** 2 / 2**30:.1f} GiB); it serves "
                             f"products (matmul) instead")
        D = (self.W.U @ self.W.K) @ self.W.U.T
        np.fill_diagonal(D, 0.0)
        return D

    def abs_total(self) -> float:
        """Sum of ``|W_off|``: exact up to 4,000 nodes (row blocks), above that the upper bound
        ``||K|| (sum_i ||U_i||)^2`` (only used as a tolerance scale by the engine)."""
        U, K = self.W.U, self.W.K
        if self.n <= 4000:  # 256 rows at a time: 8 MB at n = 4,000, not two n x n copies
            UK, total = U @ K, 0.0
            for i0 in range(0, self.n, 256):
                block = UK[i0:i0 + 256] @ U.T
                rows = np.arange(block.shape[0])
                block[rows, rows + i0] = 0.0
                total += float(np.abs(block).sum())
            return total
        return float(np.linalg.norm(K, 2) * np.sqrt(np.einsum("ij,ij->i", U, U)).sum() ** 2)

    def lambda_max_bound(self, g: np.ndarray, nu: float = 0.0) -> tuple[float, dict]:
        """An upper bound ``mu >= lambda_max(Diag(g) - W_off - nu J)`` for the engine's
        certificate (:func:`dpgraph.engine.certify_upper_bound`), from ``k x k`` matrices only.

        The matrix is ``Diag(a) - F L F^T`` with ``a = g + diag(W^)``, ``F = [U, 1]``,
        ``L = blockdiag(K, nu)``. For ``mu > max a``, ``Delta = Diag(mu - a) > 0`` and
        ``mu I - Diag(a) + F L F^T = Delta^1/2 (I + Delta^-1/2 F L F^T Delta^-1/2) Delta^1/2``
        is PSD iff ``lambda_min(H^1/2 L H^1/2) >= -1`` with ``H = F^T Delta^-1 F`` (the nonzero
        eigenvalues of ``Delta^-1/2 F L F^T Delta^-1/2`` are those of ``H^1/2 L H^1/2``). The
        condition is monotone in ``mu``; bisection between ``max a`` and Weyl's bound
        ``max a + lambda_max(-G^1/2 L G^1/2)^+`` (``G = F^T F``) finds the smallest passing
        ``mu`` to a relative 1e-10, and a margin of 1e-9 of the scale covers rounding.
        """
        U, K = self.W.U, self.W.K
        a = np.asarray(g, dtype=np.float64) + self.diag
        F, L = U, K
        if nu != 0.0:
            F = np.column_stack([U, np.ones(self.n)])
            L = np.zeros((K.shape[0] + 1,) * 2)
            L[:-1, :-1], L[-1, -1] = K, nu
        a_max = float(np.max(a))

        def sym_sqrt(H):
            w, V = np.linalg.eigh(0.5 * (H + H.T))
            return (V * np.sqrt(np.maximum(w, 0.0))) @ V.T

        def lam_min(mu):
            H = F.T @ (F / (mu - a)[:, None])
            R = sym_sqrt(H)
            return float(np.linalg.eigvalsh(R @ L @ R)[0])

        Gs = sym_sqrt(F.T @ F)
        push = max(0.0, float(np.linalg.eigvalsh(-(Gs @ L @ Gs))[-1]))
        scale = max(1.0, abs(a_max), push)
        lo, hi = a_max, a_max + push + 1e-9 * scale
        if lam_min(hi) < -1.0:  # cannot happen (Weyl); guard against rounding
            hi = a_max + 2.0 * push + 1e-6 * scale
        for _ in range(200):
            if hi - lo <= 1e-10 * scale:
                break
            mid = 0.5 * (lo + hi)
            if lam_min(mid) >= -1.0:
                hi = mid
            else:
                lo = mid
        return hi + 1e-9 * scale, {"weyl_bound": a_max + push}

    def __repr__(self) -> str:
        return f"LowRankOperator(n={self.n}, rank={self.W.U.shape[1]})"


@dataclass(eq=False)
class FactorPrivateGraph(PrivateGraph):
    """A :class:`~dpgraph.release.privatize.PrivateGraph` held in factor form (matrix-free route).

    ``basis`` (``n x (r + 1)``, orthonormal, first direction close to the public ``u0``) and
    ``core`` (``(r + 1) x (r + 1)``) give the private estimate ``M^ = basis core basis^T`` of
    ``D~^-1/2 A D~^-1/2``; the synthetic weights are ``W^ = D~^1/2 M^ D~^1/2`` (signed, low
    rank), served by :meth:`operator`. ``projected`` is None: nothing ``n x n`` is held.
    :meth:`weights` (the dense export, clipped to ``[0, 1]``) is refused above 5,000 nodes;
    :meth:`sample` draws an unweighted graph in ``O(m + n r)``.

    The exports are post-processed into the range of the input: weights into ``[0, 1]`` (the
    range :func:`dpgraph.privatize` accepts; an unclipped ``W^_ij`` of a small or dense graph
    can be several times 1) and :attr:`edge_count` into ``[0, n (n - 1) / 2]``, as on the dense
    routes. The solvers' objective (:meth:`operator`) stays the unclipped low-rank ``W^``.

    >>> import networkx as nx, dpgraph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, route="matrix-free", rng=0)
    >>> type(pg).__name__, pg.basis.shape[0], pg.projected is None  # factors, nothing n x n
    ('FactorPrivateGraph', 34, True)
    >>> W = pg.weights()  # the dense export of a small graph, clipped to [0, 1]
    >>> bool(W.min() >= 0 and W.max() <= 1), 0 <= pg.edge_count <= 34 * 33 / 2
    (True, True)
    """

    def operator(self) -> LowRankOperator:
        """:class:`LowRankOperator` of the synthetic weights ``W^ = U K U^T``, ``U = D~^1/2 B``."""
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        return LowRankOperator(U, self.core, self.labels)

    def weights(self) -> np.ndarray:
        """Dense synthetic weights ``min(max(W^, 0), 1)`` with a zero diagonal (up to 5,000
        nodes): ``W^`` clipped to ``[0, 1]``, the range of an input weight (post-processing)."""
        if self.n > DENSE_EXPORT_MAX_N:
            raise ValueError(
                f"the matrix-free release holds n x {self.basis.shape[1]} factors; a dense "
                f"export of {self.n} nodes would need {8 * self.n ** 2 / 2**30:.1f} GiB. Use "
                f".operator() for products, .sample() for a synthetic graph, or the dense "
                f"routes below {DENSE_EXPORT_MAX_N} nodes")
        W = self.operator().to_dense()
        W += W.T  # (U K) U^T is symmetric up to rounding; the export must be exactly
        W *= 0.5
        np.clip(W, 0.0, 1.0, out=W)
        return W

    @property
    def edge_count(self) -> float:
        """The released edge count: the block model's (when :func:`dpgraph.privatize` released
        one), else half the released degree total, ``max(sum d^, 0) / 2`` (what :meth:`sample`
        aims at), clipped to ``[0, n (n - 1) / 2]``: no simple graph on ``n`` nodes has more
        edges, whatever the noise drew. ``O(n)`` at every size (post-processing of the release).

        >>> import networkx as nx, warnings, dpgraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     pg = dpgraph.privatize(nx.complete_graph(3), epsilon=1.0, delta=1e-6, rng=0,
        ...                            weight=None, route="matrix-free")
        >>> 0.0 <= pg.edge_count <= 3.0
        True
        """
        if self.block_model is not None:
            count = float(self.block_model.edge_count)
        else:
            count = float(np.sum(self.degrees)) / 2.0
        return min(max(count, 0.0), self.n * (self.n - 1) / 2.0)

    def to_graph_data(self, *, min_weight: float = 0.0, max_edges: int | None = None,
                      block_rows: int = 1024) -> GraphData:
        """The synthetic weighted graph ``min(max(W^, 0), 1)`` (``W^`` clipped to ``[0, 1]``,
        the range of an input weight) as :class:`GraphData`.

        Up to 5,000 nodes: the dense export (:meth:`PrivateGraph.to_graph_data`). Above, the
        ``max_edges`` heaviest pairs of ``W^ = U K U^T`` (exactly ``max_edges`` of them: a tie at
        the threshold is broken arbitrarily), found ``block_rows`` rows at a time: ``O(n^2 r)`` time, ``O(block_rows n +
        max_edges)`` memory, no ``n x n`` array. ``max_edges`` is required there (a threshold
        alone could keep ``n^2`` pairs): ``max_edges=round(pg.edge_count)`` keeps the released
        edge count's worth; the pairs are ranked by the unclipped ``W^`` and their weights then
        clipped at 1. Post-processing."""
        min_weight = check_number(min_weight, name="min_weight", low=0.0)
        if self.n <= DENSE_EXPORT_MAX_N:
            return super().to_graph_data(min_weight=min_weight, max_edges=max_edges)
        if max_edges is None:
            raise ValueError(f"a weighted export of the {self.n}-node factor form needs "
                             f"max_edges (a threshold alone may keep up to n^2 / 2 pairs): e.g. "
                             f"max_edges=round(pg.edge_count), or .sample() for an unweighted "
                             f"graph")
        import scipy.sparse as sp

        k = min(check_integer(max_edges, name="max_edges", low=0),
                self.n * (self.n - 1) // 2)  # no graph holds more pairs
        bs = max(int(block_rows), 1)
        check_memory(export_bytes(self.n, k, bs),
                     what=f"the weighted export of {k:,} pairs of the {self.n:,}-node factor form",
                     fit=(lambda x: export_bytes(self.n, x, bs),
                          "At most max_edges={:,} fits; .sample() draws an unweighted graph "
                          "in less."))
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        UK = U @ (0.5 * (self.core + self.core.T))
        n = self.n
        keys = np.zeros(0, dtype=np.int64)
        vals = np.zeros(0)
        floor = min_weight  # checked >= 0 above
        # O(n^2 r) in all: minutes from about 10^5 nodes, so the blocks report their progress
        for lo in progress(range(0, n - 1, bs), desc="weighted export", unit="block"):
            hi = min(lo + bs, n - 1)
            block = UK[lo:hi] @ U[lo:].T  # rows lo..hi-1, columns lo..n-1
            block[np.tril_indices(hi - lo, 0, block.shape[1])] = -np.inf  # keep pairs i < j
            flat = block.ravel()
            cand = np.flatnonzero(flat > floor)
            if cand.size > k:  # this block's k heaviest
                cand = cand[np.argpartition(flat[cand], cand.size - k)[cand.size - k:]]
            w = flat[cand]
            r, c = np.divmod(cand, block.shape[1])
            del block, flat
            keys = np.concatenate([keys, (r + lo).astype(np.int64) * n + (c + lo)])
            vals = np.concatenate([vals, w])
            if vals.size > k:  # the k heaviest so far
                top = np.argpartition(vals, vals.size - k)[vals.size - k:]
                keys, vals = keys[top], vals[top]
        keys, vals = _heaviest(keys, vals, k)
        vals = np.minimum(vals, 1.0)  # an input weight lies in [0, 1]; so does the export's
        i, j = keys // n, keys % n
        W = sp.csr_array((np.concatenate([vals, vals]), (np.concatenate([i, j]),
                                                         np.concatenate([j, i]))), shape=(n, n))
        from dpgraph.graph import from_matrix

        return from_matrix(W, self.labels, source="synthetic graph")

    def objective_names(self, rank: int | None = None) -> tuple:
        """``("low-rank",)``: the signed low-rank synthetic weights ``W^`` (:meth:`operator`)."""
        return ("low-rank",)

    def objective(self, name: str = "low-rank"):
        """``"low-rank"``: :meth:`operator`; ``"synthetic"``: :meth:`weights` (small n only)."""
        if name == "low-rank":
            return self.operator()
        if name == "synthetic":
            return self.weights()
        raise ValueError(f"unknown objective {name!r}; this release offers ('low-rank',)")

    def synthetic_operator(self, name: str):
        """The objective ``name`` itself (its low-rank operator: no n x n array)."""
        return self.objective(name)

    def solver_options(self) -> dict:
        """Engine options for the factor form: a Burer-Monteiro rank of
        ``max(8, 2 (r + 1) + 2)`` at most (the objective has rank ``r + 1``), and no local search
        above 5,000 nodes (each move costs ``O(n r)`` there)."""
        from dpgraph.engine import sdp_rank

        k = self.basis.shape[1]
        return {"rank": min(sdp_rank(self.n), max(8, 2 * k + 2)),
                "local_search": self.n <= LOCAL_SEARCH_MAX_N}

    def blocks(self, n_blocks: int | None = None, rng=None) -> np.ndarray:
        """Block labels from the private embedding: k-means (k-means++ start) on the rows of
        ``D~^-1/2 B`` without its first (public) column; ``n_blocks`` defaults to
        ``min(2 r, 32)``. Post-processing."""
        from dpgraph.synthetic.communities import kmeans

        r = self.basis.shape[1] - 1
        k = min(2 * r, 32) if n_blocks is None else int(n_blocks)
        if k < 1:
            raise ValueError(f"n_blocks must be >= 1, got {n_blocks!r}")
        if k == 1:
            return np.zeros(self.n, dtype=np.int64)
        emb = self.basis[:, 1:] / np.sqrt(self.normalizer)[:, None]
        emb = emb / max(float(np.sqrt(np.mean(np.sum(emb ** 2, axis=1)))), 1e-300)
        _, lab = kmeans(emb, k, make_rng(rng))  # exact when fewer than k distinct rows
        return np.asarray(lab, dtype=np.int64)

    def block_masses(self, blocks: np.ndarray) -> np.ndarray:
        """Expected edge counts between blocks under ``W^``: ``E_ab = 1_a^T W^_off 1_b`` for
        ``a != b`` and ``1_a^T W^_off 1_a / 2`` inside a block, clipped at 0 (``O(n r)``)."""
        U = np.sqrt(self.normalizer)[:, None] * self.basis
        k = int(blocks.max()) + 1
        T = np.zeros((k, U.shape[1]))
        np.add.at(T, blocks, U)
        E = T @ self.core @ T.T
        diag = np.einsum("ij,jk,ik->i", U, self.core, U)
        E[np.diag_indices(k)] -= np.bincount(blocks, weights=diag, minlength=k)
        E = 0.5 * (E + E.T)
        E[np.diag_indices(k)] *= 0.5
        return np.maximum(E, 0.0)

    def sample_plan(self, rng=None, *, n_blocks: int | None = None,
                    chunk: int | None = None) -> "SamplePlan":
        """What :meth:`sample` draws from (post-processing, ``O(n r + k^2)``): the blocks
        (:meth:`blocks`), the endpoint weights ``max(d^_i, 0)``, the ``Poisson(c E_ab)`` edge
        count of each block pair (:meth:`block_masses`; ``c`` scales the total to the released
        edge count ``max(sum d^, 0) / 2``), split into tasks of at most ``chunk`` draws
        (default :data:`~dpgraph.synthetic.factor_sampler.SAMPLE_CHUNK`), and the key of the tasks' random streams (one
        independent stream per task, :func:`dpgraph.privacy.rng.block_generator`). Every
        draw from ``rng`` happens here, so the in-memory sampler and the Dask one
        (:meth:`sample_dask`) draw the same graph from the same plan. ``rng=None`` here is fresh
        secure randomness; :meth:`sample`, :meth:`sample_dask` and :meth:`write_sample` pass a
        reproducible release's own stream instead (:meth:`PrivateGraph.sample`)."""
        from dpgraph.privacy.rng import block_key

        gen = make_rng(rng)
        chunk = factor_sampler.SAMPLE_CHUNK if chunk is None else int(chunk)
        if chunk < 1:
            raise ValueError(f"chunk must be a positive number of draws, got {chunk!r}")
        blocks = self.blocks(n_blocks, gen)
        E = self.block_masses(blocks)
        # no simple graph has more than n (n - 1) / 2 edges, whatever the noise drew
        target = min(max(float(np.sum(self.degrees)) / 2.0, 0.0), self.n * (self.n - 1) / 2.0)
        theta = np.maximum(self.degrees, 0.0)
        k = E.shape[0]
        # nodes grouped by block, with cumulative degree weights for inverse-CDF draws
        order = np.argsort(blocks, kind="stable")
        starts = np.searchsorted(blocks[order], np.arange(k + 1))
        mass = np.array([theta[order[starts[a]:starts[a + 1]]].sum() for a in range(k)])
        E[mass <= 0, :] = 0.0
        E[:, mass <= 0] = 0.0
        iu = np.triu_indices(k)
        pair_mass = E[iu]
        total = float(pair_mass.sum())
        tasks = []
        if total > 0 and target > 0:
            counts = gen.poisson(pair_mass * (target / total))
            for a, b, c in zip(iu[0], iu[1], counts):
                parts = -(-int(c) // chunk)
                for q in range(parts):  # near-equal parts; together exactly c draws
                    tasks.append((int(a), int(b), int(c) // parts + (q < int(c) % parts)))
        cipher, key = block_key(gen)
        return SamplePlan(n=self.n, order=order, starts=starts, theta=theta, mass=mass,
                          tasks=tuple(tasks), cipher=cipher, key=key)

    def sample(self, rng=None, *, n_blocks: int | None = None) -> GraphData:
        """An unweighted simple graph from a degree-corrected block model fitted to the release.

        Blocks: :meth:`blocks`. Block pair ``(a, b)`` gets ``Poisson(c E_ab)`` edges
        (:meth:`block_masses`; ``c`` scales the total to the released edge count
        ``max(sum d^, 0) / 2``), each endpoint drawn inside its block with probability
        proportional to ``max(d^_i, 0)`` (Chung-Lu inside and between blocks). Self-pairs and
        repeated pairs are dropped (the edge count comes out slightly below the released one on
        graphs with very high-degree nodes). ``O(m + n r)`` expected time and memory, on this
        machine; :meth:`sample_dask` draws the same graph as Dask tasks (the client then holds
        ``O(n r)``). Post-processing, no privacy cost. ``rng`` as in
        :meth:`PrivateGraph.sample`: ``None`` on a reproducible release draws from (and
        advances) its own seeded stream, shared with :meth:`sample_dask` and
        :meth:`write_sample`; on a secure release, fresh secure randomness. A
        :class:`~dpgraph.SyntheticSampleWarning` says when the
        sample has fewer than ``n / 2`` edges (empty included), and when dropping repeated pairs
        left fewer than ``1 - REPEATS_WARN`` of the draws (small dense graphs: the complete
        graph on 30 nodes keeps about half).

        Examples
        --------
        >>> from dpgraph.datasets import planted_cut
        >>> from dpgraph.privacy import PrivacyLedger
        >>> from dpgraph.release.routes.matrix_free import release_matrix_free
        >>> inst = planted_cut(2000, 40.0, rng=0)
        >>> pg = release_matrix_free(inst.graph, epsilon=4.0, delta=1e-6, rank=1,
        ...                          ledger=PrivacyLedger(4.0, 1e-6), rng=0)
        >>> G = pg.sample(rng=1)
        >>> G.n, abs(G.m / inst.graph.m - 1) < 0.1
        (2000, True)
        """
        if self.block_model is not None and n_blocks is None:  # released by privatize (docs 7)
            return super().sample(rng)
        import scipy.sparse as sp

        plan = self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks)
        n = self.n
        draws = sum(t[2] for t in plan.tasks)
        check_memory(sample_bytes(draws),
                     what=f"a sample of {draws:,} edge draws on {n:,} nodes",
                     alternative="sample_dask() or write_sample() draw the same graph as Dask "
                                 "tasks, which no single process holds.")
        keys = [sample_task(plan, t) for t in range(len(plan.tasks))]
        key = distinct_sorted(np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64))
        del keys
        lo, hi = key // n, key % n
        warn_if_sparse_sample(lo.size, n)
        _warn_if_repeats_dropped(lo.size, draws)
        A = sp.csr_array((np.ones(2 * lo.size), (np.concatenate([lo, hi]),
                                                 np.concatenate([hi, lo]))), shape=(n, n))
        A.sort_indices()
        return GraphData(weights=A, labels=self.labels)

    def sample_dask(self, rng=None, *, n_blocks: int | None = None,
                    partitions: int | None = None):
        """:meth:`sample` as a Dask computation: a ``dask.dataframe.DataFrame`` of the sampled
        edges (columns ``u < v`` by node index, in the release's labels), each partition one
        range of ``u``, in order. The same plan (:meth:`sample_plan`, drawn here on the client)
        and the same tasks as :meth:`sample`: for the same ``rng`` it is the same graph
        (isolated nodes are not in an edge list). No task and not the client holds the whole
        edge list: see :func:`dpgraph.synthetic.factor_sampler.sample_edges`. Post-processing."""
        from dpgraph.synthetic.factor_sampler import sample_edges

        self._check_factor_sampler("sample_dask", n_blocks)
        return sample_edges(self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks),
                            self.labels,
                            partitions=partitions)

    def write_sample(self, folder, rng=None, *, n_blocks: int | None = None,
                     partitions: int | None = None) -> int:
        """Write :meth:`sample_dask`'s edges as Parquet files ``folder/part-00000.parquet``, ...
        (columns ``u``, ``v``), each written by the task that drew it; returns the number of
        edges written. ``folder`` is created; it must be empty if it exists, and on a
        multi-machine cluster visible to every worker. Post-processing."""
        from dpgraph.synthetic.factor_sampler import write_sampled_edges

        self._check_factor_sampler("write_sample", n_blocks)
        return write_sampled_edges(self.sample_plan(self._sample_rng(rng), n_blocks=n_blocks),
                                   self.labels,
                                   folder, partitions=partitions)

    def _check_factor_sampler(self, name, n_blocks):
        if not isinstance(self.labels, range):
            odd = next((x for x in self.labels
                        if not isinstance(x, (int, np.integer, float, np.floating, str))
                        or isinstance(x, bool)),
                       None)
            if odd is not None:  # Dask and Parquet columns hold numbers or strings
                raise ValueError(f"{name}: node label {odd!r} ({type(odd).__name__}) cannot be "
                                 f"a Dask / Parquet column value (numbers and strings can); "
                                 f"relabel the graph first (e.g. "
                                 f"networkx.convert_node_labels_to_integers), or use .sample()")
        if self.block_model is not None and n_blocks is None:
            raise ValueError(f"{name}: this release carries privatize's synthetic block model "
                             f"(synthetic_share), whose sampler runs in memory: use .sample(), "
                             f"or pass n_blocks= to sample the factor form's own block model")

    @property
    def private_rank(self) -> int:
        """The private directions: the factors' columns less the public degree direction."""
        return self.basis.shape[1] - 1

    def rank_text(self) -> str:
        """``rank=r`` (private directions; the factors add the public degree direction) and,
        where it differs, the rank asked for."""
        r, asked = self.private_rank, self.diagnostics.get("rank")
        text = f"rank={r} (+ the public degree direction)"
        return text if asked is None or asked == r else text + f" of requested {asked}"

    def __repr__(self) -> str:
        return (f"FactorPrivateGraph(n={self.n}, route='matrix-free', {self.rank_text()}, "
                f"{spent_text(self.ledger, self.diagnostics.get('unspent'))}"
                f"{reproducible_tag(self.ledger)})")


def _heaviest(keys: np.ndarray, vals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` entries of largest value (ties broken by the smaller key), sorted by key."""
    if vals.size > k:
        order = np.lexsort((keys, -vals))[:k]
        keys, vals = keys[order], vals[order]
    order = np.argsort(keys, kind="stable")
    return keys[order], vals[order]
