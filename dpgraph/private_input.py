"""What the private entry points accept: the input graph and the adjacency they protect.

:func:`input_graph` turns a user's graph (NetworkX, igraph, SciPy, NumPy, an edge list, a
:class:`~dpgraph.graph.GraphData`, or a Dask DataFrame of edges) into the pipeline's view;
:func:`check_private_graph_input` refuses graphs outside the protected domain (docs/privacy.md
4.12: weights in [0, 1], one pair's weight changing by at most 1 is the adjacency). Every
private release (:func:`dpgraph.privatize`, :func:`dpgraph.release_synthetic`,
:func:`dpgraph.max_cut`) goes through both before it reads an edge.
"""

from __future__ import annotations

import warnings

from dpgraph.caller import caller_stacklevel
from dpgraph.graph import (GraphData, GraphInputWarning, as_undirected_data, in_label_order,
                           is_edge_iterable, summed_parallel_edges)
from dpgraph.io.dask import is_dask_input
from dpgraph.memory import InsufficientMemoryError, format_bytes, memory_limit

__all__ = ["input_graph", "check_private_graph_input"]


def input_graph(G, *, weight: str | None = "weight"):
    """The pipeline's view of ``G``: a :class:`~dpgraph.graph.GraphData` with its nodes in the
    sorted order of their labels (:func:`~dpgraph.graph.in_label_order`: an order that a graph
    object takes from its edges would otherwise show in the release; docs/privacy.md 4.14), or
    a :class:`~dpgraph.io.dask.DaskGraph` for a Dask DataFrame of edges (columns ``u``, ``v``,
    ``weight`` named by ``weight=``; ``weight=None``: no weight column is read; its node ids
    are sorted already). An iterable of edges has no node set of its own: it is read from the
    endpoints, which the guarantee needs to be public (docs/privacy.md 4), and a
    :class:`~dpgraph.graph.GraphInputWarning` says so (a graph object, a matrix or
    ``dpgraph.graph.from_edges(edges, nodes=...)`` carries the node set)."""
    if is_dask_input(G):
        from dpgraph.io.dask import DaskGraph, from_dask

        if isinstance(G, DaskGraph):
            return G
        data = from_dask(G, weight=weight)
        _warn_node_set_from_edges("a Dask DataFrame of edges", "dpgraph.io.dask.from_dask(df, "
                                  "nodes=...)")
        return data
    from_edges = is_edge_iterable(G)
    try:
        data = in_label_order(as_undirected_data(G, weight=weight))
    except InsufficientMemoryError as exc:
        # the converters' refusals name the input's edge count, which is private (a neighbour
        # reads one fewer), in the count, the memory it needs and what fits beside it: the
        # refusal itself depends on the input (docs/privacy.md 11.1), its message names no
        # size of it. A matrix without stored entries is priced by its public order alone.
        if not getattr(exc, "edge_dependent", True):
            raise
        have, where = memory_limit()
        raise InsufficientMemoryError(
            f"converting the input graph for a private release needs more memory than the "
            f"{format_bytes(have)} {where} (nothing was allocated); how much more is not "
            f"said, since it grows with the edge count, which is private. Free memory, raise "
            f"DPGRAPH_MEMORY_LIMIT, or convert the graph first with dpgraph.as_graph_data (not "
            f"private: its message names the sizes and what fits)") from None
    if from_edges:  # said once the edges are read (a malformed list is refused first)
        _warn_node_set_from_edges("an edge list", "dpgraph.graph.from_edges(edges, nodes=...)")
    return data


def _warn_node_set_from_edges(what: str, remedy: str) -> None:
    """The :class:`~dpgraph.graph.GraphInputWarning` that ``what``'s node set comes from its
    edges (docs/privacy.md 4), naming the call that states it."""
    warnings.warn(f"the node set of {what} is read from its edges: a node whose only edge is "
                  f"removed vanishes from the answer, which tells the two graphs apart "
                  f"(docs/privacy.md 4). Pass the public node set: {remedy}",
                  GraphInputWarning, stacklevel=caller_stacklevel())


def check_private_graph_input(data: GraphData, *, what: str = "the private pipeline") -> None:
    """Refuse graphs outside what edge-level privacy covers here (docs/privacy.md, section 4).

    The protected adjacency: two graphs on the same public node set whose edge weights, all in
    [0, 1], differ on one node pair (an unweighted edge added or removed is the main case).
    """
    if data.n < 3:
        raise ValueError(f"{what} needs a graph with at least 3 nodes, got {data.n}")
    if data.m:
        lo, hi = (data.weight_range if hasattr(data, "weight_range")  # Dask edges: one pass
                  else (data.weights.data.min(), data.weights.data.max()))
        if not (lo >= 0 and hi <= 1):  # NaN fails both comparisons: refused, not accepted
            summed = summed_parallel_edges(data)
            if summed and hi > 1:  # the caller may have no weights at all: name the cause
                count, source = summed
                advice = (f": {count} parallel edge(s) of the {source} (a node pair listed more "
                          f"than once) were summed into one edge per pair (duplicates='sum': "
                          f"as_graph_data's default for graph objects and edge lists; "
                          f"read_graph's default, 'max', keeps the largest), which can take "
                          f"weights above 1. Pass duplicates='max' to count each pair once "
                          f"(dpgraph.as_graph_data(G, duplicates='max') in place of G; "
                          f"--duplicates max for a file), weight=None to treat every edge as "
                          f"weight 1, or rescale the weights into [0, 1].")
            else:
                advice = (". Pass weight=None to treat every edge as weight 1 (as NetworkX "
                          "does), or rescale the weights into [0, 1].")
            raise ValueError(
                f"{what} protects graphs whose edge weights lie in [0, 1] (one edge's weight "
                f"changing by at most 1 is the adjacency); this graph has weights in "
                f"[{float(lo)!r}, {float(hi)!r}]{advice}")
