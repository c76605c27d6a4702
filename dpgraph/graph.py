"""Canonical graph data and adapters to and from NetworkX, igraph, SciPy, NumPy and edge lists.

Every dpgraph algorithm works on one internal form, :class:`GraphData`: a symmetric
``scipy.sparse.csr_array`` of float64 edge weights with a zero diagonal and no stored zeros,
plus the node labels (index ``i`` of the matrix is node ``labels[i]``): a tuple, or a ``range``
for the default integer labels (``0..n-1``, or ``1..n`` from the 1-indexed file formats), so that
a graph with many nodes does not hold one Python int per node.

Input policy (documented here once; every adapter follows it, and nothing is dropped silently):

* **Directed graphs** (``networkx.DiGraph``, directed ``igraph.Graph``, non-symmetric matrices)
  are refused unless ``symmetrize=`` says how to make them undirected: the weight of
  ``u-v`` is the ``"max"``, ``"sum"`` or ``"mean"`` of the arcs ``u->v`` and ``v->u`` that
  are present (an arc in either direction is an edge). An arc given in one direction only
  keeps its weight under every rule (as igraph's ``combine_edges``), so an undirected edge
  list read as arcs keeps its weights; arcs both ways give ``max(a, b)``, ``a + b`` or
  ``(a + b) / 2``.
* **Multigraphs** and repeated pairs in edge iterables: the weights of parallel edges are
  summed (``duplicates="sum"``, the default here, with a warning for edge iterables), or merged
  by their maximum (``duplicates="max"``: the right choice for edge lists that list both
  directions of each edge), or refused (``duplicates="error"``); under ``weight=None`` the
  NetworkX and igraph adapters warn that parallel edges became one edge of weight 1, and a
  private entry point that refuses summed weights above 1 says that parallel edges were
  summed (pass ``as_graph_data(G, duplicates="max")`` to count a pair once). Graph *files*
  follow one rule for every format (:mod:`dpgraph.io`): ``duplicates="max"`` by default, and a
  :class:`DuplicateEdgeWarning` whenever repeats are merged, with their count and the rule.
* **Self-loops** are dropped with a :class:`GraphInputWarning` that counts them (none of the
  cut-type objectives sees a self-loop).
* **Weights**: non-finite weights are refused, and so are weights whose weighted degrees or
  total overflow float64 (past about 1.8e308: :func:`check_weight_sums`). Negative weights
  are kept (Max-Cut accepts signed weights such as G-set's +-1); algorithms that need
  non-negative weights call :func:`require_nonnegative`. Edges of weight exactly zero are
  not edges: they are removed with a warning that counts them.
* **Isolated nodes** are kept (they are rows of zeros). An **empty graph** (no nodes) raises.
* Inputs are never modified.

Example
-------
>>> import networkx as nx
>>> from dpgraph.graph import as_graph_data, to_networkx
>>> data = as_graph_data(nx.karate_club_graph())
>>> data.n, data.m
(34, 78)
>>> H = to_networkx(data)
>>> sorted(H.nodes) == sorted(nx.karate_club_graph().nodes)
True
"""

from __future__ import annotations

import numbers
import os
from decimal import Decimal
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from dpgraph.caller import DPGraphWarning
from dpgraph.privacy.validation import InvalidParameterError

__all__ = [
    "GraphData",
    "GraphInputWarning",
    "DuplicateEdgeWarning",
    "WeightSumOverflowError",
    "as_graph_data",
    "from_edges",
    "from_coo",
    "canonical_graph",
    "check_weight_sums",
    "weight_sums_error",
    "summed_pair_problem",
    "label_sequence",
    "same_labels",
    "check_own_labels",
    "in_label_order",
    "is_edge_iterable",
    "label_key",
    "as_undirected_data",
    "from_matrix",
    "to_networkx",
    "to_igraph",
    "to_scipy",
    "require_nonnegative",
    "unweighted",
    "check_matrix_memory",
    "matrix_labels",
    "python_labels",
]

_SYMMETRIZE = ("max", "sum", "mean")
_DUPLICATES = ("sum", "max", "error")


class GraphInputWarning(DPGraphWarning):
    """Issued when an adapter changes the input as its documented policy says (self-loops, zeros)."""


class WeightSumOverflowError(ValueError):
    """Edge weights whose weighted degrees or total overflow float64 (past about 1.8e308):
    refused by :func:`check_weight_sums`, with the input, the node and the weight to divide
    by named; or the weights of one node pair whose sum overflows where ``duplicates="sum"``
    adds its repeats (or ``symmetrize="sum"`` its two arcs), naming the pair. A
    ``ValueError``; the file readers raise it as a
    :class:`~dpgraph.io.GraphFormatError` too (``dpgraph.io.base.WeightSumFormatError``, both
    at once), naming the file and, where they know them, the pair's lines.

    Attributes: ``source`` (the input, as the message names it), ``pair`` (the node pair's
    labels, None for a degree or the total), ``entries`` (the positions of the pair's
    listings among the input's edges, in input order; None where unknown), ``rule`` (the
    rule that added them, e.g. ``"duplicates='sum'"``) and ``peak`` (the largest absolute
    weight)."""

    def __init__(self, message, *, source=None, pair=None, entries=None, rule=None,
                 peak=None):
        super().__init__(message)
        self.source, self.pair, self.entries, self.rule, self.peak = (source, pair, entries,
                                                                      rule, peak)

    def __reduce__(self):  # the attributes kept through pickling (Dask, multiprocessing)
        return (type(self), (str(self),), self.__dict__)

    def describe(self, lines=None) -> str:
        """The message without its leading ``source: ``; for a pair whose sum overflows,
        naming the ``lines`` that list it (line numbers) where given."""
        if self.pair is None:
            text, prefix = str(self), f"{self.source}: "
            return text[len(prefix):] if self.source and text.startswith(prefix) else text
        return summed_pair_problem(self.pair, self.rule, self.peak,
                                   listed=None if self.entries is None else len(self.entries),
                                   lines=lines)


def summed_pair_problem(pair, rule: str, peak: float, *, listed=None, lines=None,
                        places=None) -> str:
    """The refusal of a node ``pair`` whose weights, added by ``rule`` (``"duplicates='sum'"``
    or ``"symmetrize='sum'"``), overflow float64, without the input's name: how many times it
    is ``listed`` and on which ``lines`` (line numbers of one file) or ``places`` (where the
    listings are spread over several files or partitions, e.g. ``"p0.csv line 2"``) where
    known, and what to do.

    >>> summed_pair_problem(("a", "b"), "duplicates='sum'", 1e308, listed=2, lines=[3, 9])
    "node pair ('a', 'b'), listed 2 times (lines 3 and 9), has weights that add up past 1.8e+308, the largest float64, under duplicates='sum': the sum overflows; rescale them, e.g. divide every weight by their largest, 1e+308, or pass duplicates='max'"
    >>> summed_pair_problem((0, 1), "duplicates='sum'", 1e308, listed=2,
    ...                     places=["p0.csv line 2", "p1.csv line 4"]).split(", has")[0]
    'node pair (0, 1), listed 2 times (p0.csv line 2 and p1.csv line 4)'
    """
    a, b = (x.item() if isinstance(x, np.generic) else x for x in pair)
    where = ""
    if listed is not None or lines or places:
        found = list(places or lines or [])
        shown = [str(x) for x in found[:5]]
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        word = "" if places else "line " if len(shown) == 1 else "lines "
        on = ((f" ({word}{shown[0]})" if len(shown) == 1 else
               f" ({word}{', '.join(shown[:-1])} and {shown[-1]})" if not more else
               f" ({word}{', '.join(shown)}{more})") if shown else "")
        where = f", listed {listed} times{on}," if listed is not None else f"{on},"
    other = ("duplicates='max'" if rule.startswith("duplicates") else
             "symmetrize='max' or 'mean'")
    return (f"node pair ({a!r}, {b!r}){where} has weights that add up past 1.8e+308, the "
            f"largest float64, under {rule}: the sum overflows; rescale them, e.g. divide "
            f"every weight by their largest, {peak:g}, or pass {other}")


def _summed_overflow(M, labels, source: str, rule: str, peak: float, key=None,
                     either_way: bool = False) -> WeightSumOverflowError:
    """The refusal of the first non-finite entry of ``M`` (CSR, added up from finite
    weights by ``rule``): its node pair by ``labels`` (or index), and with ``key`` (the
    input's ``(rows, cols)`` index arrays) the positions of its listings, in either
    direction where ``either_way``."""
    M = sp.csr_array(M)
    k = int(np.flatnonzero(~np.isfinite(M.data))[0])
    r = int(np.searchsorted(M.indptr, k, side="right") - 1)
    c = int(M.indices[k])
    entries = None
    if key is not None:
        a, b = np.asarray(key[0]), np.asarray(key[1])
        hit = (a == r) & (b == c)
        if either_way:
            hit |= (a == c) & (b == r)
        entries = np.flatnonzero(hit)
    pair = ((labels[r], labels[c]) if labels is not None else (f"#{r}", f"#{c}"))
    pair = tuple(x.item() if isinstance(x, np.generic) else x for x in pair)
    problem = summed_pair_problem(pair, rule, peak,
                                  listed=None if entries is None else len(entries))
    return WeightSumOverflowError(f"{source}: {problem}", source=source, pair=pair,
                                  entries=entries, rule=rule, peak=peak)


class DuplicateEdgeWarning(GraphInputWarning):
    """Issued when repeated node pairs (an edge listed twice, or in both directions) are merged
    into one edge; the message counts them and names the ``duplicates`` rule that merged them."""


@dataclass(frozen=True, eq=False)
class GraphData:
    """A weighted undirected graph in dpgraph's canonical form.

    Attributes
    ----------
    weights : scipy.sparse.csr_array
        Symmetric ``n x n`` float64 matrix, zero diagonal, no stored zeros, sorted indices.
    labels : tuple, or range for the default integer labels
        ``labels[i]`` is the caller's label of node ``i``. The default integer labels
        (``0..n-1``, or ``1..n`` from the G-set, Matrix Market, METIS and DIMACS readers) are
        kept as a ``range``: ``O(1)`` memory whatever ``n``. Compare label sequences by their
        items (``tuple(a) == tuple(b)``), not with ``==`` alone: ``range(3) == (0, 1, 2)`` is
        False.
    modes : numpy.ndarray of int8, or None
        A two-mode network's mode of each node, as its file declares it (a Pajek
        ``*Vertices n n1`` line: the vertices numbered ``1..n1`` are the first mode):
        ``modes[i]`` is 0 (first mode) or 1 (second), or -1 for a node the file does not
        declare (added by ``nodes=``); None for a one-mode graph. :func:`to_networkx` writes
        it as the node attribute ``bipartite`` (NetworkX's convention), :func:`to_igraph` as
        the vertex attribute ``type`` (igraph's: False for the first mode). Public (the node
        set is), and read by no private answer.

    Examples
    --------
    >>> import networkx as nx
    >>> g = as_graph_data(nx.Graph([("a", "b"), ("b", "c")]), weight=None)
    >>> g.n, g.m, tuple(g.labels)
    (3, 2, ('a', 'b', 'c'))
    >>> g.weights.toarray()[1].tolist()  # node "b": weight 1 to "a" and to "c"
    [1.0, 0.0, 1.0]
    """

    weights: sp.csr_array
    labels: tuple | range
    _index: dict = field(default=None, repr=False, compare=False)
    # (count, source) when the adapter that built this graph summed parallel edges
    # (duplicates="sum": a multigraph, an igraph graph or an edge iterable listing a pair more
    # than once), so that a refusal of weights above 1 can name the cause (private_input.py)
    _summed: tuple = field(default=None, repr=False, compare=False)
    # True once as_graph_data has seen ``weights`` in the canonical form (checked once)
    _checked: bool = field(default=False, repr=False, compare=False)
    modes: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        n = self.weights.shape[0]
        if self.weights.shape != (n, n):
            raise ValueError(f"weights must be square, got shape {self.weights.shape}")
        if len(self.labels) != n:
            raise ValueError(f"{len(self.labels)} labels for {n} nodes")
        if self.modes is not None:
            modes = np.asarray(self.modes)
            if modes.shape != (n,) or not np.isin(modes, (-1, 0, 1)).all():
                raise ValueError(f"modes must hold 0, 1 or -1 for each of the {n} nodes, got "
                                 f"shape {modes.shape}")
            object.__setattr__(self, "modes", modes.astype(np.int8))

    @property
    def n(self) -> int:
        """Number of nodes."""
        return self.weights.shape[0]

    @property
    def m(self) -> int:
        """Number of undirected edges (stored off-diagonal pairs)."""
        return self.weights.nnz // 2

    @cached_property
    def index(self) -> dict:
        """Map from node label to row index."""
        return {label: i for i, label in enumerate(self.labels)}

    @cached_property
    def degrees(self) -> np.ndarray:
        """Weighted degrees ``sum_j W_ij`` (signed weights are summed as they are)."""
        return np.asarray(self.weights.sum(axis=1)).ravel()

    @property
    def total_weight(self) -> float:
        """Sum of edge weights, each undirected edge counted once."""
        return float(self.weights.sum()) / 2.0

    @property
    def is_unweighted(self) -> bool:
        """True when every edge has weight exactly 1."""
        return bool(np.all(self.weights.data == 1.0))

    def to_networkx(self, *, weight: str | None = "weight"):
        """This graph as a ``networkx.Graph``: every node under its label (isolated nodes
        included) and every edge with its weight in the attribute ``weight``; ``weight=None``
        writes the edges without attributes (:func:`to_networkx`). A synthetic graph from
        ``sample()`` converts this way.

        Examples
        --------
        >>> H = as_graph_data([("a", "b", 0.5), ("b", "c")]).to_networkx()
        >>> sorted(H.edges(data="weight"))
        [('a', 'b', 0.5), ('b', 'c', 1.0)]
        """
        return to_networkx(self, weight=weight)

    def to_igraph(self, *, weight: str | None = "weight"):
        """This graph as an ``igraph.Graph``: labels in the vertex attribute ``name``, weights in
        the edge attribute ``weight``, none with ``weight=None`` (:func:`to_igraph`).

        Examples
        --------
        >>> H = as_graph_data([("a", "b", 0.5), ("b", "c")]).to_igraph()
        >>> H.vs["name"], H.es["weight"]
        (['a', 'b', 'c'], [0.5, 1.0])
        """
        return to_igraph(self, weight=weight)

    def edges(self):
        """Return ``(i, j, w)`` arrays of the edges with ``i < j`` (row indices, not labels)."""
        upper = sp.triu(self.weights, k=1, format="coo")
        return upper.row.astype(np.int64), upper.col.astype(np.int64), upper.data.copy()

    def __repr__(self) -> str:
        if self.m:
            w = self.weights.data
            wr = f", weights in [{w.min():g}, {w.max():g}]"
        else:
            wr = ""
        return f"GraphData(n={self.n}, m={self.m}{wr})"


# ----------------------------------------------------------------------------- helpers


def _warn(msg: str, category=GraphInputWarning) -> None:
    from dpgraph.caller import caller_stacklevel

    warnings.warn(msg, category, stacklevel=caller_stacklevel())  # the caller's line


def canonical_graph(weights: sp.csr_array, labels) -> GraphData:
    """:class:`GraphData` from ``weights`` that its builder made in the canonical form
    (symmetric float CSR, sorted, no duplicate, zero, non-finite or diagonal entry), so that
    :func:`as_graph_data` does not check it again (an O(nnz) pass and a transposed copy)."""
    return GraphData(weights=weights, labels=label_sequence(labels), _checked=True)


def label_key(x) -> tuple:
    """A sort key under which any labels are totally ordered, a function of the label's value
    alone (never of the order it came in): real numbers by value (NaN after them), strings and
    bytes by value, tuples and frozensets element by element (a frozenset's elements sorted
    first), anything else by its type's name and ``repr``. Python's own ``<`` is not enough:
    frozensets (the nodes of ``networkx.quotient_graph``) and NaN are only partially ordered,
    so sorting them keeps part of the order they came in.

    >>> sorted([frozenset({2}), frozenset({1, 2}), frozenset({1})], key=label_key)
    [frozenset({1}), frozenset({1, 2}), frozenset({2})]
    >>> sorted([float("nan"), "a", 2, 1.5, (1, "b")], key=label_key)
    [1.5, 2, nan, 'a', (1, 'b')]
    """
    if isinstance(x, (bool, numbers.Real, np.bool_)):
        v = float(x) if not isinstance(x, numbers.Integral) else int(x)
        return (0, 1, 0) if v != v else (0, 0, v)
    if isinstance(x, Decimal):
        return (0, 1, 0) if x.is_nan() else (0, 0, x)
    if isinstance(x, str):
        return (1, x)
    if isinstance(x, bytes):
        return (2, x)
    if isinstance(x, tuple):
        return (3, tuple(label_key(e) for e in x))
    if isinstance(x, frozenset):
        return (4, tuple(sorted(label_key(e) for e in x)))
    return (5, type(x).__module__ + "." + type(x).__qualname__, repr(x))


def _label_order(labels) -> list | None:
    """The positions of ``labels`` in :func:`label_key` order, None where they are in it."""
    if isinstance(labels, range):
        return None if labels.step > 0 else list(range(len(labels)))[::-1]
    first = type(labels[0]) if len(labels) else int
    if first in (int, str) and all(type(x) is first for x in labels):  # the usual labels
        if all(a < b for a, b in zip(labels, labels[1:])):
            return None
        return sorted(range(len(labels)), key=labels.__getitem__)
    key = [label_key(x) for x in labels]
    if all(a < b for a, b in zip(key, key[1:])):
        return None
    order = sorted(range(len(labels)), key=key.__getitem__)
    for a, b in zip(order, order[1:]):
        if key[a] == key[b]:  # a tie: sorted would keep the input's order, which edges can move
            raise ValueError(f"the nodes {labels[a]!r} and {labels[b]!r} have the same sort key "
                             f"(dpgraph.graph.label_key): their order would be the input's, "
                             f"which can follow its edges (docs/privacy.md 4.14); relabel them "
                             f"so that no two labels compare equal by value")
    return order


def in_label_order(data: GraphData) -> GraphData:
    """``data`` with its nodes in the sorted order of their labels: a function of the node set
    alone; ``data`` itself where they are in it already.

    Every private entry point reads its input in this order (docs/privacy.md 4.14). The order a
    graph object lists its nodes in can depend on its edges -- ``networkx.Graph(edge_list)`` and
    ``networkx.read_edgelist`` list them by first appearance, so removing one edge can move a
    node -- and a release that kept it would show it (the order of a returned assignment) and
    break ties by it. Labels of any kind sort by :func:`label_key`, a total order.

    >>> import networkx as nx
    >>> G = nx.Graph([(2, 0), (0, 1)])  # nodes listed by first appearance: 2, 0, 1
    >>> data = in_label_order(as_graph_data(G))
    >>> data.labels, data.weights.toarray().tolist()
    ((0, 1, 2), [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    >>> in_label_order(data) is data
    True
    """
    order = _label_order(data.labels)
    if order is None:
        return data
    from dpgraph.memory import check_memory

    W, n = data.weights, data.n
    # the permuted copy beside the input (traced 2.0-2.2 times the CSR at 10^6 nodes and
    # 2 * 10^7 entries), priced before it is allocated
    check_memory(int(2.5 * (12 * W.nnz + 8 * n)) + 64 * n,
                 what=f"putting {n:,} nodes and {W.nnz // 2:,} edges in sorted label order")
    idx = np.asarray(order, dtype=np.int64)
    inv = np.empty(n, dtype=np.int64)
    inv[idx] = np.arange(n)
    out = sp.csr_array(W[idx])  # row i is row idx[i] of W (SciPy's row gather) ...
    out.indices = inv[out.indices].astype(out.indices.dtype)  # ... its columns renumbered
    out.has_sorted_indices = False
    out.sort_indices()
    return GraphData(weights=out, labels=tuple(map(data.labels.__getitem__, order)),
                     _summed=data._summed, _checked=True)


def as_undirected_data(G, *, weight: str | None = "weight") -> GraphData:
    """:func:`as_graph_data` for a function that takes no ``symmetrize=`` (the private
    functions, the engine's solvers): a directed graph's refusal says to make it undirected
    with :func:`as_graph_data` first, instead of "pass symmetrize=".

    >>> import networkx as nx
    >>> try:
    ...     as_undirected_data(nx.DiGraph([(0, 1)]))
    ... except ValueError as exc:
    ...     print(str(exc).split(" (")[0])
    networkx.DiGraph is directed; make it undirected first, e.g. dpgraph.as_graph_data(G, symmetrize='max')
    """
    try:
        return as_graph_data(G, weight=weight)
    except ValueError as exc:
        text = str(exc)
        if " is directed" not in text or "pass symmetrize=" not in text:
            raise
        source = text.split(" is directed", 1)[0]
        why = " (its weight matrix is not symmetric)" if "not symmetric" in text else ""
        raise ValueError(f"{source} is directed{why}; make it undirected first, e.g. "
                         f"dpgraph.as_graph_data(G, symmetrize='max') ('sum' and 'mean' "
                         f"too), and pass that") from None


def summed_parallel_edges(data) -> tuple | None:
    """``(count, source)`` when :func:`as_graph_data` built ``data`` by summing ``count``
    parallel edges (``duplicates="sum"``, its rule for multigraphs, igraph graphs and edge
    iterables), else None."""
    return getattr(data, "_summed", None)


def _check_choice(name: str, value, choices) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"{name}={value!r} is not one of {choices}")


def label_sequence(labels) -> tuple | range:
    """Node labels as :class:`GraphData` stores them: a ``range`` unchanged (the default integer
    labels: ``O(1)`` memory, not ``n`` Python ints), any other sequence as a tuple."""
    return labels if isinstance(labels, range) else tuple(labels)


def same_labels(a, b) -> bool:
    """True when two label sequences list the same labels in the same order, each a tuple or a
    ``range`` (``range(3) == (0, 1, 2)`` is False in Python; two ranges compare in ``O(1)``)."""
    if isinstance(a, range) and isinstance(b, range):
        return a == b
    return len(a) == len(b) and tuple(a) == tuple(b)



def _finalize(matrix, labels: Sequence[Hashable], *, source: str, summed: int = 0) -> GraphData:
    """Drop self-loops and zero-weight edges (warning with counts), check finiteness,
    canonicalize CSR (summed duplicates, sorted indices, no stored zeros). ``summed``: how
    many parallel edges of ``source`` the adapter summed into it (``GraphData._summed``)."""
    W = sp.csr_array(matrix, dtype=np.float64)
    n = W.shape[0]
    if n == 0:
        raise ValueError(f"{source} has no nodes: dpgraph needs a graph with at least one node")
    W.sum_duplicates()
    if not np.all(np.isfinite(W.data)):
        C = W.tocoo()  # symmetric: count each pair once
        bad = int(np.count_nonzero(~np.isfinite(C.data) & (C.row <= C.col)))
        raise ValueError(f"{source} has {bad} non-finite edge weight(s) (NaN or inf)")
    C = W.tocoo()
    on_diag = C.row == C.col
    loops = int(np.count_nonzero(on_diag & (C.data != 0)))
    zero_off = (C.data == 0) & ~on_diag
    zero_edges = int(np.count_nonzero(zero_off & (C.row < C.col)))  # W is symmetric here
    if loops:
        _warn(f"{source}: dropped {loops} self-loop(s); cut, bisection and CSP objectives ignore them")
    if zero_edges:
        _warn(f"{source}: removed {zero_edges} edge(s) of weight 0")
    keep = ~on_diag & (C.data != 0)
    if not keep.all():
        W = sp.csr_array((C.data[keep], (C.row[keep], C.col[keep])), shape=(n, n))
    W.sort_indices()
    labels = python_labels(label_sequence(labels))
    check_weight_sums(W, source, labels)
    if not isinstance(labels, range) and any(label is None for label in labels):
        # refused here, before anything is spent: every export (networkx, GraphML, ...) of a
        # release on these labels would fail on it, as networkx refuses None as a node
        raise ValueError(f"{source} has a node labelled None, which networkx and the graph "
                         f"file formats cannot hold; relabel it (e.g. 'none')")
    return GraphData(weights=W, labels=labels, _checked=True,
                     _summed=(int(summed), source) if summed else None)


#: The largest float64, about 1.8e308: weighted degrees and totals past it overflow to inf.
FLOAT_MAX = float(np.finfo(np.float64).max)


def check_weight_sums(W: sp.csr_array, source: str, labels=None) -> None:
    """Refuse the symmetric weights ``W`` (CSR, finite) whose weighted degrees (row sums, as
    :attr:`GraphData.degrees` adds them) or whose sum (as :attr:`GraphData.total_weight`
    adds it, every edge from both of its ends) overflow float64, past about 1.8e308: they
    would read as ``inf`` (and numpy would warn of an overflow). The message names ``source``,
    the node (by its label, from ``labels``) or the total, and the largest weight to divide
    by. Weights below ``1.8e308 / nnz`` cannot overflow: one min and max pass decides, with
    no copy and no sum.

    >>> W = sp.csr_array(np.array([[0, 1e308, 1e308], [1e308, 0, 0], [1e308, 0, 0]]))
    >>> check_weight_sums(W, "big.txt", ["a", "b", "c"])
    Traceback (most recent call last):
    ...
    dpgraph.graph.WeightSumOverflowError: big.txt: the edge weights add up past 1.8e+308, the largest float64: the weighted degree of node 'a' overflows; rescale them, e.g. divide every weight by their largest, 1e+308
    >>> check_weight_sums(W / 4, "big.txt")  # 2.5e307 + 2.5e307 and the total 2e308 / 2 fit
    """
    d = W.data
    if d.size == 0:
        return
    peak = max(abs(float(d.min())), abs(float(d.max())))
    if peak * d.size <= FLOAT_MAX:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        degrees = np.asarray(W.sum(axis=1)).ravel()
        total = float(W.sum())
    error = weight_sums_error(source, degrees, total, peak, labels)
    if error is not None:
        raise error


def weight_sums_error(source: str, degrees, total: float, peak: float,
                      labels=None) -> WeightSumOverflowError | None:
    """The refusal of :func:`check_weight_sums` where the weighted ``degrees`` or their sum
    ``total`` (every edge from both ends) are not finite, else None; ``peak`` is the largest
    absolute weight. The Dask edge-file reader checks its passes' sums with it.

    >>> weight_sums_error("g.txt", np.array([1.0, 2.0]), 3.0, 1.0) is None
    True
    """
    bad = np.flatnonzero(~np.isfinite(np.asarray(degrees)))
    if bad.size:
        k = int(bad[0])
        label = labels[k] if labels is not None else None
        label = label.item() if isinstance(label, np.generic) else label  # np.int64(3): 3
        what = f"the weighted degree of node {label!r}" if labels is not None else \
            f"the weighted degree of node #{k}"
    elif not np.isfinite(total):
        what = "their total (every edge counted from both of its ends)"
    else:
        return None
    return WeightSumOverflowError(
        f"{source}: the edge weights add up past 1.8e+308, the largest float64: {what} "
        f"overflows; rescale them, e.g. divide every weight by their largest, {peak:g}",
        source=source, peak=peak)


def python_labels(labels: tuple | range) -> tuple | range:
    """``labels`` with every NumPy scalar as the Python value it holds (``np.float64(0.5)`` as
    ``0.5``: equal, and hashed alike, so a node is found under either), as :func:`from_edges`
    stores them: an export writes them as Python writes its own (GML wrote
    ``NP.FLOAT64(0.5)``), and a result lists ``0.5``, not ``np.float64(0.5)``.

    >>> python_labels((np.int64(1), np.str_("a"), 2.5))
    (1, 'a', 2.5)
    """
    if isinstance(labels, range) or not any(isinstance(x, np.generic) for x in labels):
        return labels
    return tuple(x.item() if isinstance(x, np.generic) else x for x in labels)


def matrix_labels(labels, n: int, *, name: str = "labels") -> tuple | range:
    """The node labels of an ``n``-node matrix as :class:`GraphData` stores them: ``range(n)``
    for None; else one label per row, in row order, so ``labels`` must be ordered (a list,
    tuple, range, array, a string of one-character labels or any other iterable with an
    order; a set is refused: its order is not the rows'), hashable, unique and not None;
    NumPy scalars become Python values (:func:`python_labels`).

    >>> matrix_labels(np.array([10, 20]), 2)
    (10, 20)
    >>> matrix_labels({"a", "b"}, 2)
    Traceback (most recent call last):
    ...
    TypeError: labels must be ordered (a list, tuple, range or array: labels[i] names row i), not a set
    """
    if labels is None:
        return range(n)
    if isinstance(labels, (set, frozenset)):
        raise TypeError(f"{name} must be ordered (a list, tuple, range or array: labels[i] "
                        f"names row i), not a {type(labels).__name__}")
    if not isinstance(labels, range):
        labels = tuple(labels)  # a generator or a dict view: read once
        for label in labels:  # set(labels) below would say only "unhashable type: 'list'"
            try:
                hash(label)
            except TypeError:
                raise TypeError(f"{name}: node label {label!r} ({type(label).__name__}) is not "
                                f"hashable; a node label must be hashable (a number, a string, "
                                f"a tuple of them)") from None
    if len(labels) != n:
        raise ValueError(f"{len(labels)} {name} for a {n}-node matrix")
    if isinstance(labels, range):
        return labels
    labels = python_labels(labels)
    if len(set(labels)) != len(labels):
        first: dict = {}
        for i, label in enumerate(labels):
            j = first.setdefault(label, i)
            if j != i:
                raise ValueError(f"{name} has repeated values; node labels must be unique: "
                                 f"{label!r} is at positions {j} and {i}")
    if any(label is None for label in labels):
        raise ValueError(f"{name} has a node labelled None, which networkx and the graph file "
                         f"formats cannot hold; relabel it (e.g. 'none')")
    return labels


def public_nodes(nodes, *, name: str = "nodes", first: int = 0) -> tuple | range:
    """The public node set as :class:`GraphData` stores labels: an integer ``N`` is
    ``range(first, first + N)`` (ids ``0..N-1``; ``1..N`` for the 1-indexed file formats),
    any other iterable its labels in order (numpy scalars as Python ones); repeated labels,
    booleans (``True == 1`` would merge two nodes) and None are refused."""
    if isinstance(nodes, np.ndarray) and nodes.ndim == 0:
        nodes = nodes.item()
    if isinstance(nodes, (bool, np.bool_)):
        raise TypeError(f"{name} must be a node count or an iterable of node labels, got {nodes!r}")
    if isinstance(nodes, (int, np.integer)):
        if nodes < 1:
            raise ValueError(f"{name}={nodes!r}: a graph needs at least one node")
        return range(int(first), int(first) + int(nodes))
    if isinstance(nodes, (str, bytes)):
        raise TypeError(f"{name} must be a node count or an iterable of node labels, got the "
                        f"string {nodes!r}")
    if isinstance(nodes, (set, frozenset)):
        raise TypeError(f"{name} must be ordered (a list, tuple, range or array), not a "
                        f"{type(nodes).__name__}: the order is the graph's node order")
    if not isinstance(nodes, Iterable):  # a float count (5.0, n / 2): named, not 'not iterable'
        raise TypeError(f"{name} must be a node count (an int) or an iterable of node labels, "
                        f"got {nodes!r} ({type(nodes).__name__})")
    labels = label_sequence(x.item() if isinstance(x, np.generic) else x for x in nodes) \
        if not isinstance(nodes, range) else nodes
    if not labels:
        raise ValueError(f"{name} is empty: a graph needs at least one node")
    if not isinstance(labels, range):
        if any(x is None for x in labels):
            raise ValueError(f"{name} holds None, which networkx and the graph file formats "
                             f"cannot hold as a node")
        if any(isinstance(x, bool) for x in labels):
            raise TypeError(f"{name} holds a boolean, which equals the node 0 or 1 as a label; "
                            f"give node labels")
        if len(set(labels)) != len(labels):
            seen = set()
            twice = next(x for x in labels if x in seen or seen.add(x))
            raise ValueError(f"{name} lists node {twice!r} more than once")
    return labels


def with_nodes(data: GraphData, nodes, *, source: str, first: int = 0) -> GraphData:
    """``data`` on the public node set ``nodes`` (:func:`public_nodes`): its edges unchanged,
    the nodes it does not name added as isolated nodes, in the order of ``nodes``.

    An edge list names only the nodes that have an edge, so a node whose only edge is removed
    would vanish from the graph and from every answer on it, which tells the two graphs apart:
    edge-level privacy holds for graphs on one public node set (docs/privacy.md 4). A node of
    ``data`` missing from ``nodes`` is refused, naming it.

    >>> from dpgraph.graph import from_edges
    >>> g = with_nodes(from_edges([(0, 1), (1, 2)]), 5, source="example")
    >>> g.n, g.m, tuple(g.labels)
    (5, 2, (0, 1, 2, 3, 4))
    """
    labels = public_nodes(nodes, first=first)
    if isinstance(labels, range) and isinstance(data.labels, range) and labels == data.labels:
        return data  # (tuples of equal labels may differ in type: 0.0 == 0, so they are mapped)
    where = {x: i for i, x in enumerate(labels)} if not isinstance(labels, range) else None
    position = np.empty(data.n, dtype=np.int64)
    missing = []  # the indices of the graph's nodes that nodes does not hold
    vectorized = (isinstance(labels, range) and isinstance(data.labels, range)
                  and labels.step == 1 and data.labels.step == 1)
    if vectorized:  # O(1) per node, no Python loop
        ids = np.arange(data.labels.start, data.labels.stop, data.labels.step, dtype=np.int64)
        position = ids - labels.start
        missing = np.flatnonzero((position < 0) | (position >= len(labels))).tolist()
    for i, x in enumerate(() if vectorized else data.labels):
        if where is None:
            ok = isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x in labels
            k = labels.index(int(x)) if ok else None
        else:
            k = where.get(x)
        if k is None:
            missing.append(i)
        else:
            position[i] = k
    if missing:
        raise ValueError(_not_in_nodes(data, missing, labels, source))
    C = data.weights.tocoo()
    n = len(labels)
    W = sp.csr_array((C.data, (position[C.row], position[C.col])), shape=(n, n))
    W.sort_indices()
    modes = None
    if data.modes is not None:  # a node the file does not declare has no mode (-1)
        modes = np.full(n, -1, dtype=np.int8)
        modes[position] = data.modes
    return GraphData(weights=W, labels=labels, _checked=True, _summed=data._summed,
                     modes=modes)


def _not_in_nodes(data: GraphData, missing: list, labels, source: str) -> str:
    """The refusal of :func:`with_nodes` for the nodes of ``data`` (indices ``missing``) that
    the public node set ``labels`` does not hold: it counts those with an edge and the
    isolated ones (GraphML, GML, Pajek and NetworkX graphs list nodes without an edge)."""
    names = [data.labels[i] for i in missing]
    kinds = {type(x).__name__ for x in names} - {type(x).__name__ for x in labels[:1]}
    hint = (f" (the graph's ids are {', '.join(sorted(kinds))}, nodes holds "
            f"{type(labels[0]).__name__}: give nodes of the ids' type, or read the file "
            f"with ids= to match them)" if kinds else "")
    linked = int(np.count_nonzero(np.diff(data.weights.indptr)[missing]))
    isolated = len(missing) - linked
    what = (f"{len(missing):,} node(s) with an edge" if not isolated else
            f"{isolated:,} isolated node(s) of the graph (without an edge)" if not linked else
            f"{len(missing):,} node(s) of the graph ({linked:,} with an edge, {isolated:,} "
            f"isolated)")
    return (f"{source}: {what} are not in nodes, e.g. {names[0]!r}{hint}; nodes is the public "
            f"node set and must hold every node of the graph")


def _pair_keys(W, *, zero: bool = False) -> np.ndarray:
    """The sorted distinct keys ``min(i, j) * n + max(i, j)`` of the off-diagonal node pairs
    that hold a nonzero entry of ``W`` in either direction (``zero``: a stored zero)."""
    C = sp.coo_array(W)
    keep = (C.row != C.col) & ((C.data == 0) if zero else (C.data != 0))
    r, c = C.row[keep].astype(np.int64), C.col[keep].astype(np.int64)
    return np.unique(np.minimum(r, c) * W.shape[0] + np.maximum(r, c))


def _without_stored_zeros(W: sp.csr_array, *, source: str) -> sp.csr_array:
    """``W`` without its stored zeros (a SciPy matrix may hold explicit zeros): a weight-0
    entry is no edge and no arc, so ``symmetrize="mean"`` does not average it in (a dense
    array, an edge list or an igraph graph never gives it one). The node pairs left with no
    weight at all are counted in a :class:`GraphInputWarning`, as :func:`_finalize` counts
    them."""
    if not W.nnz or np.all(W.data != 0):
        return W
    zero_keys = _pair_keys(W, zero=True)
    W = W.copy()
    W.eliminate_zeros()
    removed = int(np.count_nonzero(~np.isin(zero_keys, _pair_keys(W))))
    if removed:
        _warn(f"{source}: removed {removed} edge(s) of weight 0")
    return W


def _symmetrize(W: sp.csr_array, how: str | None, *, source: str,
                arcs: bool = False, labels=None, key=None) -> sp.csr_array:
    """``W`` made undirected by ``how`` (:func:`_combine_arcs`). ``arcs``: every entry is an
    arc (a directed graph, an edge list read as arcs), so ``how`` combines them even where
    each arc has its reverse; otherwise a symmetric ``W`` is an undirected graph, kept as it
    is. Two finite arcs whose sum overflows under ``"sum"`` are refused naming their pair
    (by ``labels``; ``key``, the input's ``(rows, cols)``, finds their listings)."""
    if not (arcs and how is not None):
        asym = W - W.T
        asym.eliminate_zeros()
        if asym.nnz == 0:
            return W
        if how is None:
            raise ValueError(
                f"{source} is directed (its weight matrix is not symmetric); pass "
                f"symmetrize='max', 'sum' or 'mean' to say how to make it undirected"
            )
        del asym
    check_symmetrize(how)
    out = sp.csr_array(W + W.T) if how == "sum" else _combine_arcs(W, how)
    if how == "sum" and out.nnz and not np.all(np.isfinite(out.data)) \
            and np.all(np.isfinite(W.data)):
        raise _summed_overflow(out, labels, source, "symmetrize='sum'",
                               float(np.abs(W.data).max()), key=key, either_way=True)
    if how != "max" and W.nnz and W.data.min() < 0:  # arcs a and -a add up to no edge
        out.eliminate_zeros()
        lost = _pair_keys(W).size - _pair_keys(out).size
        if lost:
            _warn(f"{source}: removed {lost} edge(s) whose arcs' weights cancel to 0 under "
                  f"symmetrize={how!r}")
    return out


def _combine_arcs(W: sp.csr_array, how: str) -> sp.csr_array:
    """The undirected matrix whose ``u-v`` weight is the ``how`` ("max" or "mean") of the arcs
    ``u->v`` and ``v->u`` present in ``W``: an arc given in one direction only keeps its weight
    (a missing arc is no arc of weight 0). The arcs are keyed by their pair and combined in one
    sort (a random directed graph of 2 * 10^6 arcs, the symmetry check included: traced peak
    218 MB, where sparse products masking the pairs with an arc each way took 331-394 MB, and
    ``max(W, W^T)``, which drops a negative arc given once, 157 MB)."""
    n = W.shape[0]
    if not W.nnz:  # no arc (a directed graph without edges): nothing to combine
        return sp.csr_array(W.shape, dtype=np.float64)
    C = sp.coo_array(W)
    key = np.minimum(C.row, C.col).astype(np.int64) * n + np.maximum(C.row, C.col)
    order = np.argsort(key, kind="stable")
    key, w = key[order], C.data[order]
    del order, C
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    if how == "max":
        v = np.maximum.reduceat(w, start).astype(np.float64)
    else:
        counts = np.diff(np.r_[start, key.size])
        with np.errstate(over="ignore"):
            v = np.add.reduceat(w, start) / counts
        bad = ~np.isfinite(v)
        if bad.any() and np.all(np.isfinite(w)):  # a mean that fits where the sum does not
            v[bad] = np.add.reduceat(w / np.repeat(counts, counts), start)[bad]
    key = key[start]
    i, j = key // n, key % n
    v[i == j] *= 0.5  # a loop is its own reverse: halved here, whole again in U + U^T
    U = sp.csr_array((v, (i, j)), shape=W.shape)
    return sp.csr_array(U + U.T)


# ----------------------------------------------------------------------------- constructors


# Bytes a matrix's conversion holds at once, measured as traced peaks (tracemalloc):
# from_matrix on a SciPy matrix (its float64 CSR copy, W - W.T for the symmetry check, the
# canonical CSR) 24 B per node and 64 B per stored entry (24.0 MB at n = 10^6 with 2 entries,
# 130.4 MB at n = 10^5 with 2.0 * 10^6 entries; 240 MB for 10^7 isolated nodes); a GraphData
# built by hand, 16 and 48 B to check its canonical form, 32 and 80 B when it is not canonical
# and is copied and converted (32.0 MB, 163.2 MB); the engine's as_weight_operator, 40 and 64 B
# (40.0 MB, 130.4 MB); a dense array, 8 B per pair (its float64 copy) and 40 B per nonzero
# (8.0 B per pair with no edge, 48.0 B with every pair an edge, at n = 1,000 and 2,000).
MATRIX_BYTES_PER_NODE, MATRIX_BYTES_PER_ENTRY = 24, 64
DENSE_BYTES_PER_PAIR, DENSE_BYTES_PER_NONZERO = 8, 40


def check_matrix_memory(n: int, entries: int, *, source: str = "matrix",
                        per_node: int = MATRIX_BYTES_PER_NODE,
                        per_entry: int = MATRIX_BYTES_PER_ENTRY, per_pair: int = 0) -> None:
    """Refuse, before converting it, an ``n x n`` matrix with ``entries`` stored (or nonzero)
    entries whose conversion would not fit in the available memory
    (:class:`~dpgraph.memory.InsufficientMemoryError`, one line naming what fits, with
    ``edge_dependent`` set where its sizes grow with ``entries > 0``): a SciPy
    matrix of 10^7 isolated nodes is 40 MB to pass in and 240 MB to convert.

    >>> check_matrix_memory(1000, 5000)  # fits: returns None
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "100M"}):
    ...     check_matrix_memory(10**7, 2)
    Traceback (most recent call last):
    ...
    dpgraph.memory.InsufficientMemoryError: a 10,000,000 x 10,000,000 matrix with 2 stored entries needs about 228.9 MiB ... At most 4,369,061 nodes fit.
    """
    from dpgraph.memory import InsufficientMemoryError, available_memory, check_memory

    n, entries = int(n), int(entries)

    def nodes_cost(k):
        return per_node * k + per_pair * k * k

    need = nodes_cost(n) + per_entry * entries
    have = available_memory()
    if entries and have is not None and nodes_cost(n) <= have:
        fit = (lambda e: nodes_cost(n) + per_entry * e,
               "At most about {:,} stored entries fit with these nodes.")
    else:
        fit = (lambda k: nodes_cost(k) + per_entry * entries, "At most {:,} nodes fit.")
    try:
        check_memory(need, what=f"a {n:,} x {n:,} {source} with {entries:,} stored entries",
                     fit=fit)
    except InsufficientMemoryError as exc:
        # whether the message names sizes that grow with the entries (the edge count, private
        # where a private call converts its input: dpgraph.private_input.input_graph)
        exc.edge_dependent = entries > 0
        raise


def from_matrix(matrix, labels: Sequence[Hashable] | None = None, *, symmetrize: str | None = None,
                source: str = "matrix") -> GraphData:
    """Build :class:`GraphData` from a square SciPy sparse or dense NumPy weight matrix.

    The matrix is read as a weighted adjacency matrix: entry ``(i, j)`` is the weight of edge
    ``{i, j}``. A non-symmetric matrix is a directed graph and needs ``symmetrize``. ``labels``
    (one per row, unique and hashable: a list is not a label, a tuple of numbers or strings is)
    default to ``0 .. n-1``.

    >>> from_matrix(np.ones((3, 3, 3)))
    Traceback (most recent call last):
    ...
    ValueError: matrix must be a square 2-d matrix, got shape (3, 3, 3)
    >>> from_matrix(np.ones((3, 3)) - np.eye(3), labels=[[1], [2], [3]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: labels: node label [1] (list) is not hashable; a node label must be ...
    """
    if sp.issparse(matrix):
        if matrix.ndim != 2:  # before SciPy's own words, "CSR arrays don't yet support 3D"
            raise ValueError(f"{source} must be a square 2-d matrix, got shape {matrix.shape}")
        if np.iscomplexobj(matrix):
            raise InvalidParameterError(f"{source} is complex; edge weights must be real "
                                        f"numbers")
        if matrix.ndim == 2:
            check_matrix_memory(matrix.shape[0], matrix.nnz, source=source)
        W = sp.csr_array(matrix, dtype=np.float64, copy=True)
    else:
        arr = np.asarray(matrix)
        if arr.ndim != 2:
            raise ValueError(f"{source} must be a square 2-d matrix, got shape {arr.shape}")
        if np.iscomplexobj(arr):
            raise InvalidParameterError(f"{source} is complex; edge weights must be real "
                                        f"numbers")
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise InvalidParameterError(f"{source} must be numeric, got dtype {arr.dtype}")
        if arr.shape[0] == arr.shape[1]:
            check_matrix_memory(arr.shape[0], np.count_nonzero(arr), source=source,
                                per_node=0, per_entry=DENSE_BYTES_PER_NONZERO,
                                per_pair=DENSE_BYTES_PER_PAIR)
        W = sp.csr_array(arr.astype(np.float64))
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        hint = ""
        if W.ndim == 2 and W.shape[1] in (2, 3):
            hint = ("; an array of edges (one (u, v[, w]) row per edge) goes through "
                    "dpgraph.graph.from_edges(array.tolist())")
        raise ValueError(f"{source} must be a square matrix, got shape {W.shape}{hint}")
    labels = matrix_labels(labels, W.shape[0])
    if W.nnz and not np.all(np.isfinite(W.data)):
        raise ValueError(f"{source} has non-finite entries (NaN or inf)")
    W = _without_stored_zeros(W, source=source)  # no arc of weight 0 for symmetrize= to combine
    W = _symmetrize(W, symmetrize, source=source, labels=labels)
    return _finalize(W, labels, source=source)


def _not_an_edge(source: str, k: int, edge) -> str:
    """The refusal of item ``k`` of an edge iterable that is not a ``(u, v[, w])`` tuple, with a
    hint for the usual mistakes: text lines (``"1 2"``, which unpacks into characters), a list
    of nodes, and rows of an adjacency matrix."""
    shown = repr(edge) if len(repr(edge)) <= 60 else repr(edge)[:56] + "..."
    text = f"{source}: edge #{k} {shown} is not a (u, v) or (u, v, w) tuple"
    if isinstance(edge, (str, bytes)):
        return (f"{text}: it is text (a string would be read character by character); for "
                f"lines 'u v' pass [line.split() for line in lines], for a file "
                f"dpgraph.read_graph(path)")
    if not hasattr(edge, "__len__"):
        return f"{text} (an iterable of nodes is not a graph: pass its edges)"
    if len(edge) > 3 and isinstance(edge, (list, np.ndarray)):
        return (f"{text} (a list of rows is not read as an adjacency matrix: pass "
                f"numpy.asarray(rows) for one)")
    return text


def from_edges(edges: Iterable, nodes: Iterable[Hashable] | None = None, *,
               duplicates: str = "sum", directed: bool = False, symmetrize: str | None = None,
               source: str = "edge list") -> GraphData:
    """Build :class:`GraphData` from an iterable of ``(u, v)`` or ``(u, v, w)`` tuples.

    Labels are kept as given (any hashable). ``nodes`` adds isolated nodes and fixes the order;
    otherwise nodes are ordered by first appearance. With ``directed=True`` each tuple is an arc
    and ``symmetrize`` must say how arcs become edges.
    """
    _check_choice("duplicates", duplicates, _DUPLICATES)
    index: dict = {}
    labels: list = []
    if nodes is not None and hasattr(nodes, "__len__"):
        # refuse before building a label and an index entry per node (about 200 B each)
        from dpgraph.memory import check_memory

        check_memory(200 * len(nodes), what=f"{source} with {len(nodes):,} nodes",
                     fit=(lambda k: 200 * k, "At most {:,} nodes fit."))
    if nodes is not None:
        for node in nodes:
            if isinstance(node, np.generic):
                node = node.item()
            if node not in index:
                index[node] = len(labels)
                labels.append(node)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for k, edge in enumerate(edges):
        if isinstance(edge, (str, bytes)) or not hasattr(edge, "__len__"):
            raise ValueError(_not_an_edge(source, k, edge))
        if len(edge) == 2:
            u, v = edge
            w = 1.0
        elif len(edge) == 3:
            u, v, w = edge
            try:
                if isinstance(w, (complex, np.complexfloating)):  # float() drops the imaginary
                    raise TypeError                                # part of NumPy's: refused
                w = float(w)
            except (TypeError, ValueError):
                hint = ("; an attribute dict, as networkx's G.edges(data=True) gives: pass "
                        "networkx.Graph(edges), or (u, v, d['weight']) tuples"
                        if isinstance(w, Mapping) else "")
                raise InvalidParameterError(f"{source}: edge #{k} {edge!r} has a non-numeric "
                                            f"weight {w!r} (edge weights are real numbers)"
                                            f"{hint}") from None
        else:
            raise ValueError(_not_an_edge(source, k, edge))
        if isinstance(u, np.generic):
            u = u.item()
        if isinstance(v, np.generic):
            v = v.item()
        for node in (u, v):
            if node not in index:
                index[node] = len(labels)
                labels.append(node)
        rows.append(index[u])
        cols.append(index[v])
        vals.append(w)
    return from_coo(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                     np.asarray(vals, dtype=np.float64), labels, duplicates=duplicates,
                     directed=directed, symmetrize=symmetrize, source=source)


def from_coo(rows, cols, vals, labels, *, duplicates="sum", directed=False, symmetrize=None,
             source="edge list", warn_duplicates=True) -> GraphData:
    """A :class:`GraphData` from edge index arrays: edge ``k`` joins nodes ``rows[k]`` and
    ``cols[k]`` (indices into ``labels``) with weight ``vals[k]``.

    The constructor behind :func:`from_edges`, the igraph adapter and the file readers
    (:mod:`dpgraph.io`), with their policy: ``duplicates`` ("sum", "max" or "error") merges
    repeated pairs (warning unless ``warn_duplicates=False``); ``directed=True`` reads each pair
    as an arc and ``symmetrize`` ("max", "sum", "mean") says how arcs become edges; self-loops
    and zero weights are dropped with a warning; non-finite weights are refused. ``source``
    names the input in messages.
    """
    _check_choice("duplicates", duplicates, _DUPLICATES)
    n = len(labels)
    if n == 0:
        raise ValueError(f"{source} has no nodes: dpgraph needs a graph with at least one node")
    if vals.size and not np.all(np.isfinite(vals)):
        raise ValueError(f"{source} has non-finite edge weight(s) (NaN or inf)")
    if directed:
        A = sp.coo_array((vals, (rows, cols)), shape=(n, n))
        M = _merge(A, duplicates, source=source, warn=warn_duplicates, pair_key=(rows, cols),
                   labels=labels)
        summed = A.nnz - M.nnz if duplicates == "sum" else 0
        W = _drop_zero_pairs(M, source=source)
        W = _symmetrize(W, symmetrize, source=source, arcs=True, labels=labels,
                        key=(rows, cols))
        return _finalize(W, labels, source=source, summed=summed)
    lo = np.minimum(rows, cols)
    hi = np.maximum(rows, cols)
    A = sp.coo_array((vals, (lo, hi)), shape=(n, n))
    M = _merge(A, duplicates, source=source, warn=warn_duplicates, pair_key=(lo, hi),
               labels=labels)
    summed = A.nnz - M.nnz if duplicates == "sum" else 0
    U = _drop_zero_pairs(M, source=source)
    # W = U + U^T with the loops kept once (so _finalize can count them), from U's stored
    # entries: O(n + m) index work, no length-n diagonal or DIA matrix (a header announcing
    # 10^8 nodes and no edges must not allocate gigabytes)
    C = U.tocoo()
    off = C.row != C.col
    if off.all():
        # no self-loop: SciPy's sparse sum (half the time of the COO assembly below on 10^7
        # edges; U and U^T share no entry, so nothing cancels)
        return _finalize(sp.csr_array(U + U.T), labels, source=source, summed=summed)
    W = sp.csr_array((np.concatenate([C.data, C.data[off]]),
                      (np.concatenate([C.row, C.col[off]]), np.concatenate([C.col, C.row[off]]))),
                     shape=(n, n))
    return _finalize(W, labels, source=source, summed=summed)


def check_duplicates(duplicates) -> str:
    """``duplicates`` if it is a rule for repeated pairs ("max", "sum" or "error"), else a
    ValueError naming the choices (for the readers that check it before reading)."""
    _check_choice("duplicates", duplicates, _DUPLICATES)
    return duplicates


def check_symmetrize(symmetrize):
    """``symmetrize`` if it is None or a rule for arcs ("max", "sum" or "mean"), else a
    ValueError naming the choices (for the readers that check it before reading)."""
    if symmetrize is not None:
        _check_choice("symmetrize", symmetrize, _SYMMETRIZE)
    return symmetrize


def duplicates_message(source: str, repeats: int, pairs: int, duplicates: str) -> str:
    """The one wording of a merge of repeated edges (the note of :class:`DuplicateEdgeWarning`),
    or of the refusal under ``duplicates="error"``: how many, and under which rule."""
    repeats, pairs = f"{int(repeats):,}", f"{int(pairs):,}"  # as every count the command prints
    listed = f"{pairs} node pair(s) listed more than once, e.g. in both directions"
    if duplicates == "error":
        return (f"{source} lists {repeats} repeated edge(s) ({listed}); pass duplicates='max' "
                f"(keep the largest weight) or duplicates='sum' (add the weights)")
    if duplicates == "sum":
        return (f"{source}: summed the weights of {repeats} repeated edge(s) under "
                f"duplicates='sum' ({listed}); duplicates='max' keeps the largest weight "
                f"instead, duplicates='error' refuses")
    return (f"{source}: merged {repeats} repeated edge(s) under duplicates='max', keeping the "
            f"largest weight of each ({listed}); duplicates='sum' adds the weights instead, "
            f"duplicates='error' refuses")


def merge_arcs(rows, cols, vals, n: int, *, duplicates: str, source: str,
               labels=None) -> sp.csr_array:
    """The ``n x n`` matrix of arcs ``rows[k] -> cols[k]`` of weight ``vals[k]``, an arc listed
    more than once merged by ``duplicates`` ("max", "sum" or "error") with a
    :class:`DuplicateEdgeWarning` that counts the repeats (the step :func:`from_coo` runs; for
    readers that check the merged matrix before building the graph, as METIS does). Finite
    weights whose sum overflows are refused (:class:`WeightSumOverflowError`) naming the arc
    by ``labels`` (default: its indices)."""
    _check_choice("duplicates", duplicates, _DUPLICATES)
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    A = sp.coo_array((np.asarray(vals, dtype=np.float64), (rows, cols)), shape=(n, n))
    return _merge(A, duplicates, source=source, warn=True, pair_key=(rows, cols),
                  labels=labels)


def _drop_zero_pairs(M: sp.csr_array, *, source: str) -> sp.csr_array:
    """Remove stored zeros (weight-0 lines, or repeats that cancel) with a warning that counts
    the off-diagonal ones, before later sparse arithmetic would drop them unseen."""
    zero = M.data == 0
    if zero.any():
        C = M.tocoo()
        count = int(np.count_nonzero((C.data == 0) & (C.row != C.col)))
        if count:
            _warn(f"{source}: removed {count} edge(s) of weight 0")
        M = M.copy()
        M.eliminate_zeros()
    return M


def _merge(A: sp.coo_array, duplicates: str, *, source: str, warn: bool, pair_key,
           labels=None) -> sp.csr_array:
    """Combine repeated ``(row, col)`` entries of ``A`` as ``duplicates`` says (one sort).
    Finite weights whose sum overflows under ``"sum"`` are refused, naming the pair (by
    ``labels``) and its listings (:class:`WeightSumOverflowError`)."""
    n = A.shape[0]
    if A.nnz < 2:
        return A.tocsr()
    # the common case, no repeated pair: SciPy's O(m) conversion sums repeats and drops zero
    # sums, so as many stored entries as input entries, none of them zero, means neither
    # happened (no O(m log m) sort of the pair keys)
    M = A.tocsr()
    if M.nnz == A.nnz and (A.data != 0).all():
        return M
    key = np.asarray(pair_key[0], dtype=np.int64) * n + pair_key[1]  # int32 rows would wrap
    if duplicates == "max":
        order = np.lexsort((-A.data, key))  # by key, largest weight first within a key
    else:
        order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = sorted_key[1:] != sorted_key[:-1]
    repeats = int(order.size - np.count_nonzero(first))
    if repeats == 0:
        return M
    starts = np.flatnonzero(first)
    pairs = int(np.count_nonzero(np.diff(np.append(starts, order.size)) > 1))
    message = duplicates_message(source, repeats, pairs, duplicates)
    if duplicates == "error":
        raise ValueError(message)
    if warn:
        _warn(message, DuplicateEdgeWarning)
    if duplicates == "sum":  # M = A.tocsr(): COO -> CSR sums duplicates
        if not np.all(np.isfinite(M.data)) and np.all(np.isfinite(A.data)):
            raise _summed_overflow(M, labels, source, "duplicates='sum'",
                                   float(np.abs(A.data).max()), key=pair_key)
        return M
    keep = order[first]
    return sp.coo_array((A.data[keep], (A.row[keep], A.col[keep])), shape=A.shape).tocsr()


def _weighted_edges(G, weight: str | None):
    """``(u, v, w)`` for every edge of a NetworkX graph, ``w`` a float (a numeric string such
    as ``"7"`` read as its number, as NumPy reads it: merged parallel edges add numbers, not
    strings); ``weight=None`` gives every edge 1."""
    if weight is None:
        return ((u, v, 1.0) for u, v in G.edges())
    return ((u, v, float(w)) for u, v, w in G.edges(data=weight, default=1.0))


def _check_networkx_weights(G, weight: str, source: str) -> None:
    """Refuse, naming the edge, a ``weight`` attribute that is not a real number (None, a
    list, a complex number, a string that does not spell one), with an
    :class:`~dpgraph.InvalidParameterError` (a ValueError and a TypeError): NumPy would fail
    on ``"abc"`` without naming the edge (:func:`_check_weight_values`).

    Accepted, as the number they stand for: every :class:`numbers.Real` (``int``, ``float``,
    ``fractions.Fraction``, NumPy's numbers; ``True`` / ``False`` are 1 / 0), NumPy's booleans
    as Python's, :class:`decimal.Decimal` (not a :class:`numbers.Real`, but a real number:
    read as ``float(w)``, as :class:`dpgraph.CSPInstance` reads it; a signalling NaN is
    refused), and a numeric string (``networkx.read_pajek`` and GraphML files without key
    types give ``"7"``) as the number it spells in a file, as NumPy reads it: decimal digits,
    sign, point, exponent (``" 7 "``, ``"1e-3"``, ``"inf"``). Python's digit separator is
    not part of a number in a file: ``"1_0"`` (which ``float`` would read as 10) is refused.
    A non-finite weight passes here and is refused afterwards, as a float's is.

    >>> import networkx as nx
    >>> from decimal import Decimal
    >>> G = nx.Graph()
    >>> G.add_edge(0, 1, weight=Decimal("0.5")); G.add_edge(1, 2, weight=np.True_)
    >>> _check_networkx_weights(G, "weight", "networkx.Graph")  # accepted
    >>> G.add_edge(2, 3, weight="1_0")
    >>> _check_networkx_weights(G, "weight", "networkx.Graph")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpgraph.privacy.validation.InvalidParameterError: networkx.Graph: edge (2, 3) has weight='1_0', which is not a real number (a ...
    """
    _check_weight_values(G.edges(data=weight, default=1.0), weight, source)


def _check_weight_values(edges, weight: str, source: str, *, none_is_one: bool = False) -> None:
    """The rule of :func:`_check_networkx_weights` on ``(u, v, w)`` triples (labels and the
    ``weight`` attribute's value), refused with an :class:`~dpgraph.InvalidParameterError`
    naming the edge and the attribute. ``none_is_one``: None is a missing value, weight 1
    (igraph's edges added without the attribute)."""
    from decimal import Decimal

    for u, v, w in edges:
        if w is None and none_is_one:
            continue
        why = ""
        if isinstance(w, str):
            if "_" in w:
                why = " (a numeric string may not hold '_', Python's digit separator)"
            else:
                try:
                    float(w)
                    continue
                except ValueError:
                    pass
        elif isinstance(w, (numbers.Real, np.bool_)):
            continue
        elif isinstance(w, Decimal):
            if not w.is_snan():  # float() refuses a signalling NaN
                continue
            why = " (a signalling NaN)"
        raise InvalidParameterError(f"{source}: edge ({u!r}, {v!r}) has {weight}={w!r}, which "
                                    f"is not a real number{why}; fix it, or pass weight=None "
                                    f"to read every edge as weight 1")


def _warn_if_no_edge_has(G, weight: str, source: str) -> None:
    """Warn when ``weight`` names an attribute that no edge of ``G`` carries, other than the
    default ``"weight"`` (an unweighted graph): every edge then reads as weight 1, as NetworkX
    reads it, and a misspelt name would otherwise go unnoticed. The warning names the
    attributes the edges do carry."""
    if weight == "weight" or G.number_of_edges() == 0:
        return
    if any(weight in d for *_, d in G.edges(data=True)):
        return
    names = sorted({str(k) for *_, d in G.edges(data=True) for k in d})
    have = f"the edges carry {names}" if names else "the edges carry no attribute"
    _warn(f"{source}: no edge has the attribute weight={weight!r}, so every edge is read as "
          f"weight 1 ({have}; weight=None reads them as 1 without this warning)")


def _from_networkx(G, *, weight: str | None, symmetrize, duplicates) -> GraphData:
    import networkx as nx

    labels = list(G.nodes)
    source = f"networkx.{type(G).__name__}"
    if not labels:
        raise ValueError(f"{source} has no nodes: dpgraph needs a graph with at least one node")
    if weight is not None:
        _check_networkx_weights(G, weight, source)
        _warn_if_no_edge_has(G, weight, source)
    if G.is_multigraph():
        if duplicates == "error":
            raise ValueError(f"{source} is a multigraph; pass duplicates='sum' or 'max'")
        H = nx.DiGraph() if G.is_directed() else nx.Graph()
        H.add_nodes_from(labels)
        merged = 0
        for u, v, w in _weighted_edges(G, weight):
            if H.has_edge(u, v):
                old = H[u][v]["w"]
                H[u][v]["w"] = old + w if duplicates == "sum" else max(old, w)
                if duplicates == "sum" and not np.isfinite(H[u][v]["w"]) \
                        and np.isfinite(old) and np.isfinite(w):  # finite weights, their sum not
                    peak = max(abs(x) for *_, x in _weighted_edges(G, weight))
                    raise WeightSumOverflowError(
                        f"{source}: {summed_pair_problem((u, v), 'duplicates=' + repr('sum'), peak)}",
                        source=source, pair=(u, v), rule="duplicates='sum'", peak=peak)
                merged += 1
            else:
                H.add_edge(u, v, w=w)
        if merged and weight is None:  # NetworkX's weight=None would count each of them
            _warn(f"{source}: {merged} parallel edge(s) merged, one edge of weight 1 per pair "
                  f"(weight=None; a dpgraph graph has one edge per pair)")
        G, weight = H, "w"
        summed = merged if duplicates == "sum" else 0
    else:
        summed = 0
    A = nx.to_scipy_sparse_array(G, nodelist=labels, weight=weight, dtype=np.float64, format="csr")
    if G.is_directed():
        if symmetrize is None:
            raise ValueError(f"{source} is directed; pass symmetrize='max', 'sum' or 'mean' "
                             f"to say how to make it undirected")
        check_symmetrize(symmetrize)
        A = sp.csr_array(A)
        A.eliminate_zeros()  # an arc of weight 0 is no arc (counted below): not in a mean
        A = _symmetrize(A, symmetrize, source=source, arcs=True, labels=labels)
    zero_edges = 0 if weight is None else sum(1 for *_, w in _weighted_edges(G, weight) if w == 0)
    if zero_edges:
        _warn(f"{source}: removed {zero_edges} edge(s) of weight 0")
    A = sp.csr_array(A)
    A.eliminate_zeros()
    # NetworkX stores an undirected self-loop once on the diagonal: _finalize counts and drops it
    return _finalize(A, labels, source=source, summed=summed)


def _from_igraph(G, *, weight: str | None, symmetrize, duplicates) -> GraphData:
    n = G.vcount()
    source = "igraph.Graph"
    # igraph's ``Graph.from_networkx`` keeps the NetworkX labels in ``_nx_name``
    key = next((k for k in ("name", "_nx_name") if k in G.vs.attributes()), None)
    labels = G.vs[key] if key else range(n)
    if not isinstance(labels, range) and len(set(labels)) != len(labels):
        raise ValueError(f"{source}: vertex {key!r} attribute has repeated values; labels must "
                         f"be unique")
    edges = np.asarray(G.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    if G.is_directed() and symmetrize is None:
        raise ValueError(f"{source} is directed; pass symmetrize='max', 'sum' or 'mean' "
                         f"to say how to make it undirected")
    if weight is not None and weight in G.es.attributes():
        # an edge added without the attribute has None: missing means 1, as for NetworkX;
        # anything else but a real number is refused naming the edge, as for NetworkX
        raw = G.es[weight]
        _check_weight_values(((labels[a], labels[b], x) for (a, b), x in zip(edges.tolist(), raw)),
                             weight, source, none_is_one=True)
        vals = np.asarray([1.0 if x is None else float(x) for x in raw], dtype=np.float64)
    else:
        vals = np.ones(len(edges))
    zero = int(np.count_nonzero(vals == 0))
    if zero:
        _warn(f"{source}: removed {zero} edge(s) of weight 0")
        keep = vals != 0
        edges, vals = edges[keep], vals[keep]
    if weight is None and len(edges) and G.has_multiple():  # as the NetworkX adapter says it
        a, b = edges[:, 0], edges[:, 1]
        if not G.is_directed():
            a, b = np.minimum(a, b), np.maximum(a, b)
        merged = len(edges) - np.unique(a * max(n, 1) + b).size
        if merged:
            _warn(f"{source}: {merged} parallel edge(s) merged, one edge of weight 1 per pair "
                  f"(weight=None; a dpgraph graph has one edge per pair)")
    return from_coo(edges[:, 0], edges[:, 1], vals, labels, duplicates=duplicates,
                     directed=G.is_directed(), symmetrize=symmetrize, source=source,
                     warn_duplicates=False)


def as_graph_data(G, *, weight: str | None = "weight", symmetrize: str | None = None,
                  duplicates: str = "sum", labels: Sequence[Hashable] | None = None) -> GraphData:
    """Convert any supported graph input to :class:`GraphData` (see the module policy).

    Parameters
    ----------
    G : GraphData, networkx.Graph (any class), igraph.Graph, SciPy sparse array or matrix,
        numpy.ndarray, or an iterable of ``(u, v)`` / ``(u, v, w)`` tuples.
    weight : str or None
        Edge attribute holding the weight (NetworkX and igraph); missing means 1. ``None``
        ignores edge data and gives every edge weight 1, as in NetworkX (``weight=None``); for
        :class:`GraphData`, matrices and ``(u, v, w)`` tuples it sets every edge's weight to 1.
    symmetrize : {None, "max", "sum", "mean"}
        How to make a directed input undirected: the max, sum or mean of the arcs ``u->v``
        and ``v->u`` present (an arc given once keeps its weight); ``None`` refuses directed
        input.
    duplicates : {"sum", "max", "error"}
        How parallel edges (multigraphs, repeated pairs in edge iterables) combine.
    labels : sequence, optional
        Node labels for matrix input (default ``0..n-1``).

    Returns
    -------
    GraphData

    Raises
    ------
    ValueError
        Directed input without ``symmetrize``, empty graph, non-finite weights, bad tuples.
    TypeError
        An input type dpgraph does not know.

    Examples
    --------
    >>> as_graph_data([("a", "b"), ("b", "c", 2.5)])
    GraphData(n=3, m=2, weights in [1, 2.5])
    >>> import networkx as nx
    >>> as_graph_data(nx.karate_club_graph(), weight=None)  # its 'weight' attribute ignored
    GraphData(n=34, m=78, weights in [1, 1])
    """
    check_symmetrize(symmetrize)
    _check_choice("duplicates", duplicates, _DUPLICATES)
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be an edge attribute name (str) or None, got {weight!r}")
    data = _as_graph_data(G, weight=weight, symmetrize=symmetrize, duplicates=duplicates,
                          labels=labels)
    return unweighted(data) if weight is None else data


def unweighted(data: GraphData) -> GraphData:
    """The same graph with every edge of weight 1 (``weight=None`` of NetworkX).

    Examples
    --------
    >>> unweighted(as_graph_data([(0, 1, 0.5), (1, 2, -3.0)]))
    GraphData(n=3, m=2, weights in [1, 1])
    """
    if data.m == 0 or data.is_unweighted:
        return data
    W = data.weights.copy()
    W.data[:] = 1.0
    return GraphData(weights=W, labels=data.labels, modes=data.modes)


def _library_of(G) -> str | None:
    """"networkx", "igraph" or "pandas" where ``G``'s class or one it derives from comes from
    that library (a user's subclass of networkx.Graph is a networkx graph), else None."""
    for cls in type(G).__mro__:
        root = (cls.__module__ or "").split(".", 1)[0]
        if root in ("networkx", "igraph", "pandas"):
            return root
    return None


def is_edge_iterable(G) -> bool:
    """Whether :func:`as_graph_data` reads ``G`` as an iterable of edges, whose node set is the
    edges' endpoints (no isolated node): not a graph object (NetworkX, igraph), a matrix, a
    :class:`GraphData`, a mapping or a path.

    >>> import networkx as nx
    >>> is_edge_iterable([(0, 1), (1, 2)]), is_edge_iterable(nx.path_graph(3))
    (True, False)
    """
    if isinstance(G, (GraphData, np.ndarray, str, bytes, os.PathLike, Mapping)) or sp.issparse(G):
        return False
    return _library_of(G) is None and isinstance(G, Iterable)


def _no_labels(labels, what: str) -> None:
    if labels is not None:
        raise ValueError(f"labels= is only for matrix input; {what} carries its own node labels")


def check_own_labels(G: GraphData, labels) -> None:
    """Refuse ``labels=`` given with a :class:`GraphData` ``G`` unless they are ``G``'s own
    labels in its order: a GraphData carries its labels, and other ones passed beside it
    would otherwise be dropped without a word (as they are refused for a NetworkX or igraph
    graph). A matrix takes ``labels=``: ``as_graph_data(G.weights, labels=...)`` relabels.

    >>> g = as_graph_data([("a", "b")])
    >>> check_own_labels(g, None); check_own_labels(g, ["a", "b"])  # its own: accepted
    >>> check_own_labels(g, ["x", "y"])
    Traceback (most recent call last):
    ...
    ValueError: labels= is only for matrix input; a GraphData carries its own node labels ('a', 'b'); to relabel it, pass as_graph_data(g.weights, labels=...)
    """
    if labels is None:
        return
    given = labels if isinstance(labels, range) else tuple(labels)
    if not same_labels(given, G.labels):
        shown = ", ".join(repr(x) for x in G.labels[:3]) + (", ..." if G.n > 3 else "")
        raise ValueError(f"labels= is only for matrix input; a GraphData carries its own node "
                         f"labels ({shown}); to relabel it, pass as_graph_data(g.weights, "
                         f"labels=...)")


def _is_canonical(W) -> bool:
    """Whether ``W`` is in :class:`GraphData`'s documented form: a float64 CSR array with
    sorted indices and no duplicate entries, finite, no stored zeros, zero diagonal,
    symmetric (O(nnz))."""
    if not (sp.issparse(W) and W.format == "csr" and W.dtype == np.float64
            and W.has_canonical_format):
        return False
    if W.nnz == 0:
        return True
    if not np.all(np.isfinite(W.data)) or np.any(W.data == 0) or np.any(W.diagonal() != 0):
        return False
    asym = W - W.T
    if asym.count_nonzero():
        return False
    try:  # weights whose sums overflow: from_matrix refuses them, naming the cause
        check_weight_sums(W, "GraphData")
    except ValueError:
        return False
    return True


def _checked_graph_data(G: GraphData, symmetrize) -> GraphData:
    """A :class:`GraphData` built by hand is read as its adjacency says: one that is not in the
    canonical form (duplicate entries, which SciPy sums into one pair of weight 2; a
    self-loop; an asymmetric matrix) goes through :func:`from_matrix` on a copy, which sums,
    drops or refuses as for any matrix, so the private pipeline's checks see the graph it
    will read (the caller's matrix is left as it was). Checked once per object."""
    if G._checked:
        return G
    W = G.weights
    if sp.issparse(W) and W.ndim == 2:  # the check's W - W.T, and the copy where it fails
        cheap = W.format == "csr" and W.dtype == np.float64 and W.has_canonical_format
        check_matrix_memory(W.shape[0], W.nnz, source="GraphData weight matrix",
                            per_node=16 if cheap else 32, per_entry=48 if cheap else 80)
    if _is_canonical(G.weights):
        object.__setattr__(G, "_checked", True)
        return G
    W = G.weights.copy() if sp.issparse(G.weights) else G.weights
    out = from_matrix(W, G.labels, symmetrize=symmetrize, source="GraphData")
    object.__setattr__(out, "_summed", G._summed)
    return out


def _as_graph_data(G, *, weight, symmetrize, duplicates, labels) -> GraphData:
    if isinstance(G, GraphData):
        check_own_labels(G, labels)
        return _checked_graph_data(G, symmetrize)
    library = _library_of(G)
    if library == "networkx":
        import networkx as nx

        if not isinstance(G, nx.Graph):  # a view (G.edges(), G.adj, ...): not a graph
            raise TypeError(f"as_graph_data got a networkx {type(G).__name__}, not a graph; "
                            f"pass the graph itself (or G.edge_subgraph(...) for some of its "
                            f"edges)")
        _no_labels(labels, "a networkx graph")
        return _from_networkx(G, weight=weight, symmetrize=symmetrize, duplicates=duplicates)
    if library == "igraph":
        _no_labels(labels, "an igraph graph")
        return _from_igraph(G, weight=weight, symmetrize=symmetrize, duplicates=duplicates)
    if library == "pandas":
        shape = getattr(G, "shape", ())
        if (len(shape) == 2 and shape[0] == shape[1] > 0
                and list(getattr(G, "index", ())) == list(getattr(G, "columns", ()))):
            # rows and columns named alike: an adjacency matrix (networkx.to_pandas_adjacency)
            raise TypeError("as_graph_data got a pandas DataFrame whose rows and columns carry "
                            "the same names: if it is an adjacency matrix "
                            "(networkx.to_pandas_adjacency), pass "
                            "as_graph_data(df.to_numpy(), labels=list(df.index)), or "
                            "networkx.from_pandas_adjacency(df); if its rows are edges, pass "
                            "df.itertuples(index=False, name=None)")
        if len(shape) != 2:  # a Series or an Index: not a table of edges
            raise TypeError(f"as_graph_data got a pandas {type(G).__name__}, not a graph; pass "
                            f"a list of (u, v[, w]) tuples (list(series) where it holds them), "
                            f"or a DataFrame's rows, e.g. "
                            f"df[['u', 'v']].itertuples(index=False, name=None)")
        raise TypeError("as_graph_data got a pandas DataFrame: iterating it gives its column "
                        "names, not edges; pass its rows, e.g. "
                        "df[['u', 'v', 'weight']].itertuples(index=False, name=None), or "
                        "networkx.from_pandas_edgelist(df, 'u', 'v', edge_attr='weight')")
    if sp.issparse(G) or isinstance(G, np.ndarray):
        return from_matrix(G, labels, symmetrize=symmetrize)
    if isinstance(G, (str, bytes, os.PathLike)):
        what = "a path" if isinstance(G, os.PathLike) else "a string"
        shown = repr(G) if len(repr(G)) <= 80 else repr(G)[:76] + "..."
        raise TypeError(f"as_graph_data got {what} ({shown}); to read a file use "
                        f"dpgraph.read_graph(path), for a named data set "
                        f"dpgraph.datasets.load(name)")
    if isinstance(G, Mapping):
        raise TypeError("as_graph_data got a dict: iterating it gives its keys, not edges; for a "
                        "dict of dicts or of lists pass networkx.Graph(d), for edges a list of "
                        "(u, v[, w]) tuples")
    if isinstance(G, Iterable):
        _no_labels(labels, "an edge list (its labels are the endpoints)")
        if weight is None:  # every listed pair is an edge of weight 1, whatever its w (0 too)
            G = (t[:2] if isinstance(t, (tuple, list)) and len(t) == 3 else t for t in G)
        return from_edges(G, duplicates=duplicates, directed=symmetrize is not None,
                          symmetrize=symmetrize)
    held = getattr(G, "graph", None)  # e.g. datasets.planted_cut's PlantedInstance
    hint = (f" ({type(G).__name__} holds one: pass its .graph)"
            if isinstance(held, GraphData) or _library_of(held) in ("networkx", "igraph")
            else "")
    if not hint and callable(getattr(G, "sample", None)):  # SyntheticRelease, PrivateGraph
        hint = (f" (a {type(G).__name__} is a private release, not a graph: pass a graph "
                f"drawn from it, .sample()"
                + (", or its weighted graph, .to_graph_data()"
                   if callable(getattr(G, "to_graph_data", None)) else "") + ")")
    raise TypeError(
        f"cannot make a graph from {type(G).__name__}; pass a networkx or igraph graph, a SciPy "
        f"sparse or NumPy matrix, or an iterable of (u, v[, w]) tuples{hint}"
    )


# ----------------------------------------------------------------------------- exports


def to_networkx(data: GraphData, *, weight: str | None = "weight"):
    """Return a ``networkx.Graph`` with the original labels and a ``weight`` on every edge
    (``weight=None``: no edge attribute, NetworkX's spelling of "unweighted"); a two-mode
    network's nodes carry their mode (:attr:`GraphData.modes`) in the node attribute
    ``bipartite``, 0 or 1, as NetworkX's bipartite algorithms expect (none on a node of
    unknown mode)."""
    import networkx as nx

    H = nx.Graph()
    if data.modes is None:
        H.add_nodes_from(data.labels)
    else:
        H.add_nodes_from((x, {"bipartite": int(k)} if k >= 0 else {})
                         for x, k in zip(data.labels, data.modes.tolist()))
    i, j, w = data.edges()
    lab = data.labels
    if weight is None:
        H.add_edges_from((lab[a], lab[b]) for a, b in zip(i, j))
    else:
        H.add_weighted_edges_from(((lab[a], lab[b], float(c)) for a, b, c in zip(i, j, w)),
                                  weight=weight)
    return H


def to_igraph(data: GraphData, *, weight: str | None = "weight"):
    """Return an ``igraph.Graph`` with vertex attribute ``name`` (labels) and edge ``weight``
    (``weight=None``: no edge attribute); a two-mode network's vertices carry their mode in
    ``type`` (False for the first mode, None where unknown: :attr:`GraphData.modes`)."""
    import igraph as ig

    i, j, w = data.edges()
    H = ig.Graph(n=data.n, edges=list(zip(i.tolist(), j.tolist())), directed=False)
    H.vs["name"] = list(data.labels)
    if data.modes is not None:  # igraph's bipartite convention: False for the first mode
        H.vs["type"] = [None if k < 0 else bool(k) for k in data.modes.tolist()]
    if weight is not None:
        H.es[weight] = w.tolist()
    return H


def to_scipy(data: GraphData) -> sp.csr_array:
    """Return a copy of the symmetric CSR weight matrix (row ``i`` is ``data.labels[i]``)."""
    return data.weights.copy()


def require_nonnegative(data: GraphData, *, what: str) -> None:
    """Raise a ValueError naming ``what`` if ``data`` has a negative edge weight."""
    if data.m and data.weights.data.min() < 0:
        neg = int(np.count_nonzero(data.weights.data < 0)) // 2
        raise ValueError(f"{what} needs non-negative edge weights; the graph has {neg} negative edge(s)")
