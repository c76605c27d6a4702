"""What the private entry points accept: the input graph and the adjacency they protect.

:func:`input_graph` turns a user's graph (NetworkX, igraph, SciPy, NumPy, an edge list, a
:class:`~dpgraph.graph.GraphData`, or a Dask DataFrame of edges) into the pipeline's view;
:func:`check_private_graph_input` refuses graphs outside the protected domain (docs/privacy.md
4.12: weights in [0, 1], one pair's weight changing by at most 1 is the adjacency). Every
private release (:func:`dpgraph.privatize`, :func:`dpgraph.release_synthetic`,
:func:`dpgraph.max_cut`) goes through both before it reads an edge.
"""

from __future__ import annotations

from dpgraph.graph import GraphData, as_undirected_data, in_label_order, summed_parallel_edges
from dpgraph.io.dask import is_dask_input
from dpgraph.memory import InsufficientMemoryError, available_memory, format_bytes

__all__ = ["input_graph", "check_private_graph_input"]


def input_graph(G, *, weight: str | None = "weight"):
    """The pipeline's view of ``G``: a :class:`~dpgraph.graph.GraphData` with its nodes in the
    sorted order of their labels (:func:`~dpgraph.graph.in_label_order`: an order that a graph
    object takes from its edges would otherwise show in the release; docs/privacy.md 4.14), or
    a :class:`~dpgraph.io.dask.DaskGraph` for a Dask DataFrame of edges (columns ``u``, ``v``,
    ``weight`` named by ``weight=``; ``weight=None``: no weight column is read; its node ids
    are sorted already)."""
    if is_dask_input(G):
        from dpgraph.io.dask import DaskGraph, from_dask

        return G if isinstance(G, DaskGraph) else from_dask(G, weight=weight)
    try:
        return in_label_order(as_undirected_data(G, weight=weight))
    except InsufficientMemoryError:
        # the converters' refusals name the input's edge count, which is private (a neighbour
        # reads one fewer): the refusal itself depends on the input (docs/privacy.md 11.1),
        # its message names no size of it
        have = available_memory()
        raise InsufficientMemoryError(
            "converting the input graph for a private release needs more memory than is "
            "available" + ("" if have is None else f" ({format_bytes(have)})") + "; the "
            "sizes are not named, since the edge count is private. Free memory or raise "
            "DPGRAPH_MEMORY_LIMIT, or convert it first with dpgraph.as_graph_data (not "
            "private: its messages name the sizes)") from None


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
        if lo < 0 or hi > 1:
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
