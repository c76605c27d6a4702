"""Weight operators: one interface over a dense ndarray or a SciPy sparse matrix.

The CSP engine needs only three things from the weight matrix ``W`` of an instance:
blocked products ``W_off @ V`` (``V`` is ``n x k``), the row sums of ``W_off`` and, for the
small-instance certificate, a dense copy. ``W_off`` is ``W`` with its diagonal removed (no cut
objective sees a self-loop), applied as ``W @ V - diag(W)[:, None] * V`` so that a dense input
of 10,000 x 10,000 is never copied or converted to CSR.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import (GraphData, as_graph_data, as_undirected_data, check_matrix_memory,
                           label_sequence)
from dpgraph.memory import check_memory
from dpgraph.privacy.validation import InvalidParameterError

__all__ = ["WeightOperator", "as_weight_operator", "input_node_count", "check_weight_scale"]

_BLOCK = 2048  # rows per block for dense symmetry / finiteness checks (bounded temporaries)
# The largest total absolute weight the engines solve on: their float64 sums of squared and
# multiplied weights overflow from about 1e154 (a 3-node path of weight 1e200 ended in NumPy's
# LinAlgError "Eigenvalues did not converge", a 2-CSP of weight 1e300 too); far above any
# real graph's total weight.
MAX_WEIGHT_TOTAL = 1e100


class WeightOperator:
    """A symmetric weight matrix with a zero-diagonal view, dense or sparse.

    Parameters
    ----------
    W : numpy.ndarray or scipy sparse matrix/array
        Symmetric ``n x n`` float64 weights (the diagonal is ignored).
    labels : tuple or range
        Node labels (``labels[i]`` is row ``i``); a ``range`` (the default ``0..n-1``) is kept
        as it is, any other sequence becomes a tuple.
    """

    def __init__(self, W, labels: tuple | range):
        self.W = W
        self.labels = label_sequence(labels)
        self.n = W.shape[0]
        self.is_dense = isinstance(W, np.ndarray)
        diag = np.asarray(W.diagonal(), dtype=np.float64).copy()
        self.diag = diag
        self.has_diag = bool(np.any(diag != 0))
        rs = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
        self.degrees = rs - diag  # row sums of W_off
        self.total = float(self.degrees.sum())  # sum of all entries of W_off (= 2 x edge weight)

    @property
    def nnz(self) -> int:
        return self.n * self.n if self.is_dense else int(self.W.nnz)

    def matmul(self, V: np.ndarray) -> np.ndarray:
        """Return ``W_off @ V`` as one blocked product (plus a diagonal correction)."""
        out = self.W @ V
        out = np.asarray(out)
        if self.has_diag:
            if V.ndim == 1:
                out = out - self.diag * V
            else:
                out = out - self.diag[:, None] * V
        return out

    def column(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and values of the nonzeros of column ``i`` of ``W_off`` (= row ``i``)."""
        if self.is_dense:
            col = self.W[i].astype(np.float64, copy=True)  # row i == column i (symmetric), contiguous
            col[i] = 0.0
            idx = np.flatnonzero(col)
            return idx, col[idx]
        W = self.W
        a, b = W.indptr[i], W.indptr[i + 1]
        idx = W.indices[a:b]
        val = W.data[a:b]
        keep = idx != i
        return idx[keep], val[keep].astype(np.float64)

    def entry(self, i: int, j: int) -> float:
        if i == j:
            return 0.0
        return float(self.W[i, j])

    def to_dense(self) -> np.ndarray:
        """A dense copy of ``W_off`` (used only by the small-instance certificate and references)."""
        D = self.W.copy() if self.is_dense else self.W.toarray()
        D = np.asarray(D, dtype=np.float64)
        np.fill_diagonal(D, 0.0)
        return D

    def abs_total(self) -> float:
        """Sum of ``|W_off|`` over all entries (a scale for relative tolerances)."""
        if self.is_dense:
            tot = 0.0
            for a in range(0, self.n, _BLOCK):
                tot += float(np.abs(self.W[a:a + _BLOCK]).sum())
            return tot - float(np.abs(self.diag).sum())
        return float(abs(self.W).sum()) - float(np.abs(self.diag).sum())

    def quad(self, X: np.ndarray) -> np.ndarray:
        """``x^T W_off x`` for every column ``x`` of ``X`` (one blocked product)."""
        return np.einsum("ij,ij->j", X, self.matmul(X)) if X.ndim == 2 else float(X @ self.matmul(X))

    def __repr__(self) -> str:
        kind = "dense" if self.is_dense else "sparse"
        return f"WeightOperator(n={self.n}, {kind}, nnz={self.nnz})"


def _without_diagonal(W: np.ndarray, *, copied: bool) -> np.ndarray:
    """``W`` with a zero diagonal (self-loops, which no cut counts), copied unless ``copied``
    says it is a copy already (the caller's array is theirs), priced before the copy.
    Keeping the diagonal and subtracting it in every product cancels the edges' weights once
    a loop is about 1e16 times them (a path with a loop of 1e17 gave a cut of 1.5 and a
    "certified" bound of 0.75, both below its true cut of 2)."""
    diag = np.diagonal(W)
    if not np.any(diag != 0):
        return W
    if not copied:
        n = W.shape[0]
        check_memory(8 * n * n, what=f"a copy of the {n:,} x {n:,} weight matrix without its "
                                     f"diagonal (self-loops, which no cut counts)",
                     alternative="Pass the matrix with a zero diagonal, or as a SciPy sparse "
                                 "matrix.")
        W = W.copy()
    np.fill_diagonal(W, 0.0)
    return W


def _check_dense(W: np.ndarray, *, name: str) -> None:
    n = W.shape[0]
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        blk = W[a:b]
        if not np.all(np.isfinite(blk)):
            raise ValueError(f"{name} has non-finite entries (NaN or inf) in rows {a}..{b - 1}")
        scale = max(1.0, float(np.max(np.abs(blk))) if blk.size else 1.0)
        if not np.allclose(blk, W[:, a:b].T, rtol=0, atol=1e-12 * scale):
            raise ValueError(f"{name} is not symmetric (rows {a}..{b - 1} differ from the "
                             f"matching columns); symmetrize it first, e.g. (W + W.T) / 2")


def check_weight_scale(total: float, *, what: str = "the weights") -> None:
    """Refuse, before the solve, weights whose total absolute value ``total`` passes
    ``MAX_WEIGHT_TOTAL`` (the engines' float64 arithmetic would overflow), naming the remedy.

    >>> check_weight_scale(6.0)  # fits: returns None
    >>> try:
    ...     check_weight_scale(2e200, what="the graph's weights")
    ... except ValueError as exc:
    ...     print(str(exc)[:72])
    the graph's weights add up to 2e+200 in absolute value, above the 1e+100
    """
    if not total <= MAX_WEIGHT_TOTAL:
        raise ValueError(f"{what} add up to {total:.3g} in absolute value, above the "
                         f"{MAX_WEIGHT_TOTAL:.0e} the engine's float64 arithmetic holds without "
                         f"overflow: divide every weight by a common factor (the values and "
                         f"bounds scale with it)")


def input_node_count(G) -> int | None:
    """The node count of a graph input, read without converting it (a matrix's shape, a
    GraphData's ``n``, a networkx or igraph graph's node count), or None where only the
    conversion tells (edge iterables): to price a solve before its input is converted.

    >>> import networkx as nx
    >>> input_node_count(nx.cycle_graph(5)), input_node_count(np.zeros((3, 3)))
    (5, 3)
    >>> input_node_count([(0, 1)]) is None
    True
    """
    if isinstance(G, (GraphData, WeightOperator)):
        return int(G.n)
    if isinstance(G, np.ndarray) or sp.issparse(G):
        shape = getattr(G, "shape", ())
        return int(shape[0]) if len(shape) == 2 and shape[0] == shape[1] else None
    for counter in ("number_of_nodes", "vcount"):  # networkx, igraph
        if callable(getattr(G, counter, None)):
            try:
                return int(getattr(G, counter)())
            except (TypeError, ValueError):
                return None
    return None


def as_weight_operator(G, *, labels: Sequence[Hashable] | None = None,
                       weight: str | None = "weight", check: bool = True) -> WeightOperator:
    """Make a :class:`WeightOperator` from any graph input without densifying or sparsifying.

    A dense ``numpy.ndarray`` stays dense (it is checked for squareness, finiteness and symmetry
    in row blocks, never copied); a SciPy sparse matrix is used as CSR; everything else
    (GraphData, NetworkX, igraph, edge iterables) goes through :func:`dpgraph.graph.as_graph_data`.
    ``weight=None`` gives every edge weight 1 (NetworkX's convention; a matrix is then read as
    its nonzero pattern, sparse).

    >>> import networkx as nx
    >>> op = as_weight_operator(np.array([[0., 2, 0], [2, 0, 1], [0, 1, 0]]))
    >>> op.n, op.is_dense, op.degrees.tolist(), op.total  # total: twice the edge weight
    (3, True, [2.0, 3.0, 1.0], 6.0)
    >>> op = as_weight_operator(nx.cycle_graph(5))  # a graph: sparse (CSR)
    >>> op.is_dense, op.labels, op.total
    (False, (0, 1, 2, 3, 4), 10.0)
    """
    if isinstance(G, np.matrix):  # np.matrix's products stay 2-d: the engine needs arrays
        G = np.asarray(G)
    if (isinstance(G, np.ndarray) or sp.issparse(G)) and np.iscomplexobj(G):
        raise InvalidParameterError("weight matrix is complex; edge weights must be real "
                                    "numbers")
    if weight is None and (isinstance(G, np.ndarray) or sp.issparse(G)):
        G, labels = as_graph_data(G, labels=labels, weight=None), None
    if isinstance(G, np.ndarray):
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"weight matrix must be square, got shape {G.shape}")
        if G.shape[0] == 0:
            raise ValueError("weight matrix has no nodes: need at least one node")
        if not np.issubdtype(G.dtype, np.number) and G.dtype != bool:
            raise InvalidParameterError(f"weight matrix must be numeric, got dtype {G.dtype}")
        W = G if G.dtype == np.float64 else G.astype(np.float64)
        if check:
            _check_dense(W, name="weight matrix")
        W = _without_diagonal(W, copied=W is not G)
        n = W.shape[0]
        lab = range(n) if labels is None else label_sequence(labels)
        if len(lab) != n:
            raise ValueError(f"labels has {len(lab)} entries for {n} nodes")
        if not isinstance(lab, range) and len(set(lab)) != n:
            raise ValueError("labels must be unique")
        return WeightOperator(W, lab)
    if sp.issparse(G):
        # a copy: the solve sorts the indices and sums duplicate entries in place, and the
        # caller's matrix is theirs; priced first with the symmetry check and the operator's
        # vectors (40 B per node and 64 B per entry measured: dpgraph.graph)
        if G.ndim == 2:
            check_matrix_memory(G.shape[0], G.nnz, source="weight matrix", per_node=40)
        W = sp.csr_array(G, dtype=np.float64, copy=True)
        if W.shape[0] != W.shape[1]:
            raise ValueError(f"weight matrix must be square, got shape {W.shape}")
        if W.shape[0] == 0:
            raise ValueError("weight matrix has no nodes: need at least one node")
        if W.nnz and not np.all(np.isfinite(W.data)):
            raise ValueError("weight matrix has non-finite entries (NaN or inf)")
        if np.any(W.diagonal() != 0):  # self-loops: no cut counts them (W is a copy)
            W.setdiag(0.0)
            W.eliminate_zeros()
        if check:
            D = (W - W.T)
            if D.nnz and np.max(np.abs(D.data)) > 1e-12 * max(1.0, float(np.max(np.abs(W.data)))):
                raise ValueError("weight matrix is not symmetric; symmetrize it first, e.g. (W + W.T) / 2")
        n = W.shape[0]
        lab = range(n) if labels is None else label_sequence(labels)
        if len(lab) != n:
            raise ValueError(f"labels has {len(lab)} entries for {n} nodes")
        if not isinstance(lab, range) and len(set(lab)) != n:
            raise ValueError("labels must be unique")
        return WeightOperator(W, lab)
    if labels is not None and not isinstance(G, GraphData):
        raise ValueError("labels= is only for matrix input; graphs carry their own node labels")
    data = as_undirected_data(G, weight=weight)  # the solvers take no symmetrize=
    return WeightOperator(data.weights, data.labels)
