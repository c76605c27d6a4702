"""Batches of a read-once pass: the positions along a public order cut into growing batches.

Mechanisms that read each node pair once, by its later endpoint in a public order (the local
route's forward pass, docs/privacy.md 14.2; the communities' label passes, 7.14), release one
batch at a time against the decisions of the earlier batches: a pair inside a batch is never
read. The batches depend on public quantities only.
"""

from __future__ import annotations

import numpy as np

from dpgraph.privacy.transcript import record

__all__ = ["batch_bounds", "forward_sides"]


def batch_bounds(start: int, n: int, first: int = 1, growth: float = 0.01) -> list[tuple[int, int]]:
    """Consecutive ``[a, b)`` position ranges covering ``start..n``: ``first`` positions, then
    ``growth`` times the position (public: they depend on n and the plan only).

    >>> batch_bounds(0, 30, first=8, growth=0.5)
    [(0, 8), (8, 16), (16, 24), (24, 30)]
    """
    out, i = [], int(start)
    while i < n:
        b = max(int(first), int(growth * i))
        out.append((i, min(n, i + b)))
        i += b
    return out


def forward_sides(read, order, x, bounds, add_noise, gen, fields=None) -> None:
    """The read-once forward pass (docs/privacy.md 14.2; 7.15), in place: for each batch
    ``[a, b)`` of positions, its nodes' fields ``read(rows, x)`` (their weights to the nodes of
    earlier batches, ``x_u = 0`` for the nodes not yet decided), released by
    ``add_noise(field, a, b)`` (the caller's Laplace noise, charged once by the caller), and
    their sides ``x[rows] = -sign(released field)`` (a fair coin from ``gen`` at 0);
    ``fields[rows]``, when given, receives the released fields. Each pair is read once, by its
    later endpoint; pairs inside a batch never. The batch and the sides it is read against are
    recorded for an audit (no-op otherwise)."""
    for a, b in bounds:
        rows = order[a:b]
        record("forward pass rows", rows)
        record("forward pass sides", x)
        noisy = add_noise(read(rows, x), a, b)
        side = -np.sign(noisy)
        ties = side == 0
        if ties.any():
            side[ties] = np.where(gen.random(int(ties.sum())) < 0.5, 1.0, -1.0)
        x[rows] = side
        if fields is not None:
            fields[rows] = noisy
