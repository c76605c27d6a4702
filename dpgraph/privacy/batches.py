"""Batches of a read-once pass: the positions along a public order cut into growing batches.

Mechanisms that read each node pair once, by its later endpoint in a public order (the local
route's forward pass, docs/privacy.md 14.2; the communities' label passes, 7.14), release one
batch at a time against the decisions of the earlier batches: a pair inside a batch is never
read. The batches depend on public quantities only.
"""

from __future__ import annotations

import numpy as np

from dpgraph.privacy.transcript import record

__all__ = ["batch_bounds", "forward_sides", "signal_share", "window_share", "SHRINK_WINDOW"]

# positions whose released values estimate a batch's signal share (window_share)
SHRINK_WINDOW = 200


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


def signal_share(mean_square: float, noise_var: float) -> float:
    """``max(0, 1 - noise_var / mean_square)``: the share of a released value's second moment
    that is signal, the weight ``s^2 / (s^2 + sigma^2)`` of a zero-mean signal of variance
    ``s^2`` in its posterior mean given one release with noise variance ``sigma^2``
    (``mean_square`` estimates ``s^2 + sigma^2``). Post-processing of released values.

    >>> signal_share(10.0, 2.0), signal_share(1.5, 2.0), signal_share(0.0, 2.0)
    (0.8, 0.0, 0.0)
    """
    if not mean_square > 0:
        return 0.0
    return max(0.0, 1.0 - float(noise_var) / float(mean_square))


def window_share(by_position: np.ndarray, a: int, b: int, end: int, noise_var: float,
                 window: int = SHRINK_WINDOW) -> float:
    """:func:`signal_share` of the mean of ``by_position`` (released second moments, by
    position along the order) over the batch ``[a, b)`` and the positions just after it,
    ``window`` positions in all (fewer before ``end``): in a backward pass, the batch and the
    nodes released just before it. Post-processing of released values.

    >>> window_share(np.array([0., 0., 8., 8., 8., 8.]), 2, 3, 6, 2.0, window=3)
    0.75
    """
    hi = min(max(int(b), int(a) + int(window)), int(end))
    return signal_share(float(np.mean(by_position[a:hi])), noise_var)
