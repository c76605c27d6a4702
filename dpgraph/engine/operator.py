"""Weight operators: one interface over a dense ndarray or a SciPy sparse matrix.

The CSP engine needs only three things from the weight matrix ``W`` of an instance:
blocked products ``W_off @ V`` (``V`` is ``n x k``), the row sums of ``W_off`` and, for the
small-instance certificate, a dense copy. ``W_off`` is ``W`` with its diagonal removed (no cut
objective sees a self-loop), applied as ``W @ V - diag(W)[:, None] * V`` so that a dense input
of 10,000 x 10,000 is never copied or converted to CSR.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import (GraphData, as_graph_data, as_undirected_data, check_matrix_memory,
                           check_own_labels, label_sequence, matrix_labels)
from dpgraph.memory import check_memory
from dpgraph.privacy.validation import InvalidParameterError

__all__ = ["WeightOperator", "as_weight_operator", "input_node_count", "check_weight_scale",
           "normalizing_exponent", "normalized_operator", "unscaled", "WEIGHT_UNIT_INFO"]

_BLOCK = 2048  # rows per block for dense symmetry / finiteness checks (bounded temporaries)
# The largest total absolute weight the engines solve on: their float64 sums of squared and
# multiplied weights overflow from about 1e154 (a 3-node path of weight 1e200 ended in NumPy's
# LinAlgError "Eigenvalues did not converge", a 2-CSP of weight 1e300 too); far above any
# real graph's total weight.
MAX_WEIGHT_TOTAL = 1e100
# A caller's dense float64 matrix is solved in place, unscaled, when its largest |weight| lies
# in [2^-10, 2^20]; outside it the engine works on a scaled copy (priced). Its tolerances are
# floored at 1 in weight units (``1e-12 * max(1, |mu|)`` in the certificate, ``max(1, ...)``
# in the searches) and its step sizes clipped to [1e-12, 1e12], so within that range a
# power-of-two scaling changes nothing but the certificate's slack: on a 4-regular graph of 60
# nodes the SDP iterates were bit for bit the same from 2^-26 to 2^26 and the certified bound
# 1.4e-10 (relative) looser at 2^-10; at 2^-40 the bound fell back to the total weight, at
# 2^40 the SDP took 3.6 times the iterations. Copying an n x n matrix for less is not worth
# its memory.
DENSE_UNSCALED_EXPONENTS = (-10, 20)
# The smallest positive normal float64, 2^-1022: scaling a weight down past it loses bits.
_MIN_NORMAL_EXPONENT = -1022
# The engines' ``info`` entries in weight units, which :func:`unscaled` brings back to the
# caller's: the SDP's gradient norm and balance multiplier, the dual certificates' eigenvalue
# bound and its parts (Rump's margin, the LDL^T shift's gap, the asymmetry allowance, the
# Lanczos estimate, LAPACK's eigenvalue, the dual bound above the trivial one, the 2-CSP's
# dual base, the factor form's Weyl bound). Every other number there is a count, a ratio or
# seconds (tests/test_engine_scale.py checks each entry is one or the other).
WEIGHT_UNIT_INFO = ("grad_norm", "multiplier", "lambda_max_bound", "rump_margin",
                    "ldl_shift_gap", "matrix_allowance", "lanczos_theta", "lanczos_residual",
                    "dense_eig", "dual_bound", "dual_base", "weyl_bound")


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

    def abs_stats(self) -> tuple[float, float, float]:
        """``(sum |W_off|, max |W_off|, min of the nonzero |W_off|)`` in one pass over the
        stored weights (row blocks of a dense ndarray; a SciPy sparse matrix's stored values);
        the minimum is ``inf`` when every weight is 0. The first is what
        :func:`check_weight_scale` refuses, the other two set the engine's scale
        (:func:`normalizing_exponent`).

        >>> as_weight_operator(np.array([[0., 2, 0], [2, 0, 0.5], [0, 0.5, 0]])).abs_stats()
        (5.0, 2.0, 0.5)
        """
        total, largest, smallest = 0.0, 0.0, np.inf
        for block in self._abs_blocks():
            total += float(block.sum())
            largest = max(largest, float(np.max(block, initial=0.0)))
            smallest = min(smallest, float(np.min(block, where=block > 0, initial=np.inf)))
        return total, largest, smallest

    def _abs_blocks(self):
        """``|W_off|`` in pieces (dense: row blocks; sparse: the stored values), each a fresh
        array with the diagonal's entries set to 0."""
        W = self.W
        if not (isinstance(W, np.ndarray) or sp.issparse(W)):
            raise TypeError(f"abs_stats reads an explicit weight matrix (dense or SciPy sparse), "
                            f"not {type(W).__name__}")
        if self.is_dense:
            for a in range(0, self.n, _BLOCK):
                block = np.abs(W[a:a + _BLOCK])
                rows = np.arange(block.shape[0])
                block[rows, rows + a] = 0.0
                yield block
            return
        values = np.abs(np.asarray(W.data, dtype=np.float64))
        if self.has_diag:
            rows = np.repeat(np.arange(self.n), np.diff(W.indptr))
            values[rows == W.indices] = 0.0
        yield values

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
        cols = W[:, a:b].T
        # relative to the weights, not floored at 1: weights of 1e-30 are no more symmetric
        # for being small (an absolute 1e-12 let any matrix of them pass)
        scale = max(float(np.max(np.abs(blk), initial=0.0)),
                    float(np.max(np.abs(cols), initial=0.0)))
        if not np.allclose(blk, cols, rtol=0, atol=1e-12 * scale):
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


def normalizing_exponent(largest: float, smallest: float = np.inf) -> int:
    """The ``k`` that puts ``2^k * largest`` in [1, 2), where the engine's tolerances are tuned,
    for weights of largest magnitude ``largest`` and smallest nonzero magnitude ``smallest``;
    0 when every weight is 0. Scaling down stops where ``2^k * smallest`` would leave the normal
    floats (below 2^-1022 a weight loses bits, and a bound proven for the scaled weights would
    no longer hold for the given ones), so the scaling is always exact.

    >>> normalizing_exponent(1.0), normalizing_exponent(3.0), normalizing_exponent(0.3)
    (0, -1, 2)
    >>> normalizing_exponent(1e-310), normalizing_exponent(0.0)  # subnormals: up, exactly
    (1030, 0)
    >>> normalizing_exponent(1e50, 1e-300)  # 1e-300 * 2^k stays normal: k = -25, not -166
    -25
    """
    if not largest > 0:
        return 0
    k = 1 - math.frexp(largest)[1]  # largest = m 2^e with m in [0.5, 1)
    if k < 0 and 0 < smallest < np.inf:
        # smallest >= 2^(e - 1), so 2^k smallest >= 2^-1022 for every k >= -1021 - e
        k = max(k, _MIN_NORMAL_EXPONENT + 1 - math.frexp(smallest)[1])
    return k


def normalized_operator(G, *, labels: Sequence[Hashable] | None = None,
                        weight: str | None = "weight") -> tuple[WeightOperator, int]:
    r""":func:`as_weight_operator` of ``G`` with every weight multiplied by :math:`2^k`
    (:func:`normalizing_exponent`: the largest :math:`|w|` in [1, 2)); returns ``(op, k)``.

    A product by a power of two is exact in binary floating point (no weight under- or
    overflows: :func:`normalizing_exponent`), so every value and every certified bound
    computed on ``op`` is :math:`2^k` times the one on ``G``, and a bound proven on ``op`` is
    proven on ``G`` after :math:`\times 2^{-k}`. ``G`` is never modified: sparse weights and
    graphs are scaled in a copy of their matrix (the unscaled one is dropped unless the caller
    holds it), a dense copy that :func:`as_weight_operator` made in place; a caller's dense
    float64 matrix with its largest weight in :data:`DENSE_UNSCALED_EXPONENTS` is used as it
    is (``k = 0``, no ``n x n`` copy), and outside it copied, priced first. Weights whose total
    magnitude passes :data:`MAX_WEIGHT_TOTAL` are refused (:func:`check_weight_scale`).

    >>> op, k = normalized_operator([(0, 1, 1e-30), (1, 2, 3e-30)])
    >>> k, op.abs_stats()[1], float(np.ldexp(op.total, -k))  # total 2 x 4e-30, exactly
    (99, 1.901475900342344, 8e-30)
    """
    op = as_weight_operator(G, labels=labels, weight=weight)
    total, largest, smallest = op.abs_stats()
    check_weight_scale(total, what="the graph's weights")
    k = normalizing_exponent(largest, smallest)
    if k == 0:
        return op, 0
    if not op.is_dense:  # a copy: the caller's GraphData may hold op.W
        W = op.W
        check_memory(sum(getattr(W, a).nbytes for a in ("data", "indices", "indptr")),
                     what="a copy of the sparse weights scaled by a power of two")
        W = W.copy()
        np.ldexp(W.data, k, out=W.data)
        return WeightOperator(W, op.labels), k
    if not (isinstance(G, np.ndarray) and np.may_share_memory(op.W, G)):
        np.ldexp(op.W, k, out=op.W)  # as_weight_operator's own copy
        return WeightOperator(op.W, op.labels), k
    lo, hi = DENSE_UNSCALED_EXPONENTS
    if 2.0 ** lo <= largest <= 2.0 ** hi:
        return op, 0
    n = op.n
    check_memory(8 * n * n, what=f"a copy of the {n:,} x {n:,} weight matrix scaled by 2^{k} "
                                 f"(its largest weight, {largest:.3g}, is far from 1)",
                 alternative="Pass the matrix multiplied by a power of two that brings its "
                             "largest weight near 1 (the values and bounds scale with it), or "
                             "as a SciPy sparse matrix.")
    return WeightOperator(np.ldexp(op.W, k), op.labels), k


def unscaled(value: float, k: int, *, upper: bool = False) -> float:
    r"""``value``, computed on the weights times :math:`2^k` (:func:`normalized_operator`), in
    the caller's units: :math:`2^{-k}` ``value``, exact unless the result is subnormal, where
    it is rounded to the nearest, or with ``upper=True`` (an upper bound) up, so that it stays
    a bound.

    >>> unscaled(3.0, 2), unscaled(1.5, -1)
    (0.75, 3.0)
    >>> unscaled(1.0 + 2**-52, 1074), unscaled(1.0 + 2**-52, 1074, upper=True)  # subnormal
    (5e-324, 1e-323)
    """
    out = float(np.ldexp(value, -k))
    if upper and np.ldexp(out, k) < value:  # rounded down into the subnormals
        out = math.nextafter(out, math.inf)
    return out


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
        return WeightOperator(W, matrix_labels(labels, W.shape[0]))
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
            if D.nnz and np.max(np.abs(D.data)) > 1e-12 * float(np.max(np.abs(W.data))):
                raise ValueError("weight matrix is not symmetric; symmetrize it first, e.g. (W + W.T) / 2")
        return WeightOperator(W, matrix_labels(labels, W.shape[0]))
    if isinstance(G, GraphData):
        check_own_labels(G, labels)  # its own labels, or a refusal: never dropped
    elif labels is not None:
        raise ValueError("labels= is only for matrix input; graphs carry their own node labels")
    data = as_undirected_data(G, weight=weight)  # the solvers take no symmetrize=
    return WeightOperator(data.weights, data.labels)
