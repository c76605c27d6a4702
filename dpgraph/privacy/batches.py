"""Batches of a read-once pass: the positions along a public order cut into growing batches.

Mechanisms that read each node pair once, by its later endpoint in a public order (the local
route's forward pass, docs/privacy.md 14.2; the communities' label passes, 7.14), release one
batch at a time against the decisions of the earlier batches: a pair inside a batch is never
read. The batches depend on public quantities only.
"""

from __future__ import annotations

__all__ = ["batch_bounds"]


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
