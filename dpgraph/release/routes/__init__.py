"""The private routes: one module per mechanism, behind one small interface.

:func:`dpgraph.privatize` validates its arguments, makes the screening release, chooses a route
(a function of public sizes and released values only) and calls that route's module. Every
route module provides

``release(data, *, epsilon, delta, rank, ledger, rng, screening=None, **options) -> PrivateGraph``
    Spend at most ``(epsilon, delta)`` on ``data`` (a :class:`~dpgraph.graph.GraphData`),
    charging every draw to ``ledger`` through :mod:`dpgraph.privacy.noise`, and return the
    :class:`~dpgraph.release.private_graph.PrivateGraph` (which holds no reference to ``data``).
``estimated_memory(n, m, rank) -> int``
    Peak bytes of the route (and of the solves it implies downstream), from public sizes; used
    to refuse before allocating (:mod:`dpgraph.memory`).

Routes:

- ``"randomized-response"`` (:mod:`.randomized_response`): randomized response on all pairs;
  dense ``O(n^2)``; strongest at small n.
- ``"pca"`` (:mod:`.pca`): the coherence-aware private PCA of d'Orsi & Novikov; dense
  ``O(n^2)``; for dense graphs with a large spectral gap.
- ``"matrix-free"`` (:mod:`.matrix_free`): coherence-aware private subspace by sparse products
  only; ``O(m + n r)``; for large n with global low-rank structure.
- ``"local"`` (:mod:`.local`): degree-ordered local decisions, one per node, each pair read
  once per pass (pure DP); ``O(m + k^2)``; for real graphs, whose cut structure is local.

Adding a route: one module with ``release`` and ``estimated_memory``, and one
:class:`RouteSpec` line in ``_SPECS`` declaring what it offers.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from dpgraph.memory import InsufficientMemoryError, available_memory, check_memory, format_bytes

__all__ = ["ROUTES", "DENSE_ROUTES", "RouteSpec", "route_spec", "route_module",
           "InsufficientMemoryError", "available_memory", "check_memory", "format_bytes"]


@dataclass(frozen=True)
class RouteSpec:
    """What a route offers, declared once here so that no code outside :mod:`dpgraph.release.routes`
    needs to branch on a route's name.

    Attributes
    ----------
    name : str
        The ``route=`` value.
    module : str
        The module (in this package) with ``release`` and ``estimated_memory``.
    pure : bool
        Whether the release is pure epsilon-DP (``delta`` unspent).
    dense : bool
        Whether it holds ``n x n`` arrays (refused before allocating when they would not fit).
    answers : {"objectives", "sides"}
        ``"objectives"``: the release offers weight objectives that the engine solves
        (:meth:`PrivateGraph.objective_names`); ``"sides"``: the release *is* a private
        partition (with candidates), built by the route for the cut.
    """

    name: str
    module: str
    pure: bool
    dense: bool
    answers: str = "objectives"


_SPECS = (
    RouteSpec("randomized-response", "randomized_response", pure=True, dense=True),
    RouteSpec("pca", "pca", pure=False, dense=True),
    RouteSpec("matrix-free", "matrix_free", pure=False, dense=False),
    RouteSpec("local", "local", pure=True, dense=False, answers="sides"),
)
ROUTES = tuple(s.name for s in _SPECS)
DENSE_ROUTES = tuple(s.name for s in _SPECS if s.dense)
_BY_NAME = {s.name: s for s in _SPECS}


def route_spec(name: str) -> RouteSpec:
    """The declared capabilities of route ``name``."""
    if name not in _BY_NAME:
        raise ValueError(f"route={name!r} is not one of {', '.join(map(repr, ROUTES))}")
    return _BY_NAME[name]


def route_module(name: str):
    """The module implementing route ``name`` (see the module docstring)."""
    spec = route_spec(name)
    try:
        return importlib.import_module(f".{spec.module}", __name__)
    except ModuleNotFoundError as exc:  # a route not in this build
        if exc.name != f"{__name__}.{spec.module}":
            raise
        raise NotImplementedError(f"route={name!r} is not available in this version of "
                                  f"dpgraph") from exc
