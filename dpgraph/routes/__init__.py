"""The private routes: one module per mechanism, behind one small interface.

:func:`dpgraph.privatize` validates its arguments, makes the screening release, chooses a route
(a function of public sizes and released values only) and calls that route's module. Every
route module provides

``release(data, *, epsilon, delta, rank, ledger, rng, screening=None, **options) -> PrivateGraph``
    Spend at most ``(epsilon, delta)`` on ``data`` (a :class:`~dpgraph.graph.GraphData`),
    charging every draw to ``ledger`` through :mod:`dpgraph.privacy.noise`, and return the
    :class:`~dpgraph.private_graph.PrivateGraph` (which holds no reference to ``data``).
``estimated_memory(n, m, rank) -> int``
    Peak bytes of the route (and of the solves it implies downstream), from public sizes; used
    to refuse before allocating (:mod:`dpgraph.routes.memory`).

Routes:

- ``"randomized-response"`` (:mod:`.randomized_response`): randomized response on all pairs;
  dense ``O(n^2)``; strongest at small n.
- ``"pca"`` (:mod:`.pca`): the coherence-aware private PCA of d'Orsi & Novikov; dense
  ``O(n^2)``; for dense graphs with a large spectral gap.
- ``"matrix-free"`` (:mod:`.matrix_free`): coherence-aware private subspace by sparse products
  only; ``O(m + n r)``; for large n.
"""

from __future__ import annotations

import importlib

from .memory import InsufficientMemoryError, available_memory, check_memory, format_bytes

__all__ = ["ROUTES", "DENSE_ROUTES", "route_module", "InsufficientMemoryError",
           "available_memory", "check_memory", "format_bytes"]

ROUTES = ("randomized-response", "pca", "matrix-free")
DENSE_ROUTES = ("randomized-response", "pca")
_MODULES = {"randomized-response": "randomized_response", "pca": "pca",
            "matrix-free": "matrix_free"}


def route_module(name: str):
    """The module implementing route ``name`` (see the module docstring)."""
    if name not in _MODULES:
        raise ValueError(f"route={name!r} is not one of {', '.join(map(repr, ROUTES))}")
    try:
        return importlib.import_module(f".{_MODULES[name]}", __name__)
    except ModuleNotFoundError as exc:  # a route not in this build
        if exc.name != f"{__name__}.{_MODULES[name]}":
            raise
        raise NotImplementedError(f"route={name!r} is not available in this version of "
                                  f"dpgraph") from exc
