"""Non-private scoring of partitions on a graph, for benchmarks and tests.

NOT PRIVATE: every function here reads the true graph and returns exact statistics of it.
Never release their output under a privacy claim; they exist to measure how well a private
answer transfers to the true graph (e.g. the transfer ratio of BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .graph import GraphData, as_graph_data

__all__ = ["cut_value", "partition_vector", "bisection_imbalance", "transfer_ratio"]


def partition_vector(data: GraphData, partition) -> np.ndarray:
    """Turn a partition into a +-1 vector in node-index order.

    ``partition`` may be a pair ``(S, T)`` of label collections covering every node, a mapping
    label -> side (0/1, -1/+1 or bool), a result object with an ``assignment`` mapping, or a
    +-1 / 0-1 array in node-index order.
    """
    if hasattr(partition, "assignment"):
        partition = partition.assignment
    n = data.n
    if isinstance(partition, Mapping):
        missing = [lab for lab in data.labels if lab not in partition]
        if missing:
            raise ValueError(f"the partition does not place {len(missing)} node(s), e.g. {missing[0]!r}")
        sides = np.array([partition[lab] for lab in data.labels], dtype=float)
    elif isinstance(partition, tuple) and len(partition) == 2 and not isinstance(partition[0], (int, float)):
        S, T = (set(partition[0]), set(partition[1]))
        if S & T:
            raise ValueError(f"the two sides share {len(S & T)} node(s)")
        unknown = (S | T) - set(data.labels)
        if unknown:
            raise ValueError(f"the partition names {len(unknown)} node(s) not in the graph, e.g. {next(iter(unknown))!r}")
        if len(S) + len(T) != n:
            raise ValueError(f"the partition places {len(S) + len(T)} of {n} nodes")
        sides = np.array([1.0 if lab in S else 0.0 for lab in data.labels])
    else:
        sides = np.asarray(partition, dtype=float).ravel()
        if sides.shape != (n,):
            raise ValueError(f"a partition vector needs {n} entries, got {sides.shape}")
    values = set(np.unique(sides).tolist())
    if values <= {0.0, 1.0}:
        return np.where(sides > 0, 1.0, -1.0)
    if values <= {-1.0, 1.0}:
        return sides
    raise ValueError(f"partition sides must be 0/1 or -1/+1, got values {sorted(values)[:5]}")


def cut_value(G, partition, *, weight: str | None = "weight") -> float:
    """Total weight of the edges crossing ``partition`` in ``G``. NOT PRIVATE.

    ``weight`` names the edge attribute (NetworkX, igraph); ``None`` counts every edge as 1.

    Examples
    --------
    >>> import networkx as nx
    >>> cut_value(nx.cycle_graph(4), ({0, 2}, {1, 3}))
    4.0
    """
    from .csp import cut_value as objective  # the engine's objective, so scores match it

    data = as_graph_data(G, weight=weight)
    return objective(data, partition_vector(data, partition))


def bisection_imbalance(G, partition) -> int:
    """``| |S| - |T| |`` of a partition (0 or 1 for a bisection)."""
    data = as_graph_data(G)
    return int(abs(partition_vector(data, partition).sum()))


def transfer_ratio(G, partition, reference_value: float, *,
                   weight: str | None = "weight") -> float:
    """``cut_value(G, partition, weight=weight) / reference_value``. NOT PRIVATE."""
    if reference_value <= 0:
        raise ValueError(f"reference_value must be > 0, got {reference_value}")
    return cut_value(G, partition, weight=weight) / reference_value
