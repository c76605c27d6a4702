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
    to refuse before allocating (:mod:`dpgraph.memory`). A route that reads edges by passes
    (``RouteSpec.streams``) also takes ``edges_held=False``: the edges stay on Dask workers,
    and the estimate is of what the client holds.

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
:class:`RouteSpec` line in ``_SPECS`` declaring what it offers (or, from outside the package,
one call of :func:`register_route`). Nothing else branches on a route's name: the release
stage's choices (:mod:`dpgraph.release.screening`) and the private answers read the spec.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from dpgraph.memory import InsufficientMemoryError, available_memory, check_memory, format_bytes

__all__ = ["ROUTES", "DENSE_ROUTES", "RouteSpec", "route_spec", "route_module", "route_names",
           "register_route", "unregister_route",
           "InsufficientMemoryError", "available_memory", "check_memory", "format_bytes"]


@dataclass(frozen=True)
class RouteSpec:
    """What a route offers, declared once here so that no code outside the release stage needs
    to branch on a route's name.

    Attributes
    ----------
    name : str
        The ``route=`` value.
    module : str
        The module with ``release`` and ``estimated_memory``: its name in this package, or,
        for a route added by :func:`register_route`, its full name.
    pure : bool
        Whether the release is pure epsilon-DP (``delta`` unspent).
    dense : bool
        Whether it holds ``n x n`` arrays (refused before allocating when they would not fit).
    answers : {"objectives", "sides"}
        ``"objectives"``: the release offers weight objectives that the engine solves
        (:meth:`PrivateGraph.objective_names`); ``"sides"``: the release *is* a private
        partition (with candidates), built by the route for the cut.
    options : tuple of str
        The :func:`dpgraph.privatize` keywords its ``release`` takes.
    expand : str or None
        A :func:`dpgraph.privatize` keyword holding a dict of further ``release`` keywords.
    streams : bool
        Whether it reads the edges by passes, so that it runs on Dask edge lists.
    own_sampler : bool
        Whether its release samples synthetic graphs itself (no block-model release needed).
    default_rank : int or None
        Its rank when none is given (None: :func:`dpgraph.release.privatize.default_rank`).
    selects : bool
        Whether a private answer chooses among the roundings of its candidate objectives
        (the exponential mechanism, docs/privacy.md 4.11).
    sized_by_edge_count : bool
        Whether a private answer releases the edge count before it (to size its releases and
        the estimate's range).
    objectives : tuple of str or None
        The objectives (:meth:`PrivateGraph.objective_names`) its release offers where they do
        not depend on the release, so that an answer can refuse others before spending
        anything; None where they do (randomized response's depend on ``n`` and the rank).

    Examples
    --------
    >>> local = route_spec("local")
    >>> local.pure, local.dense, local.answers, local.streams, local.sized_by_edge_count
    (True, False, 'sides', True, True)
    """

    name: str
    module: str
    pure: bool
    dense: bool
    answers: str = "objectives"
    options: tuple = ()
    expand: str | None = None
    streams: bool = False
    own_sampler: bool = False
    default_rank: int | None = None
    selects: bool = True
    sized_by_edge_count: bool = False
    objectives: tuple | None = None


_PCA_OPTIONS = ("degree_share", "tail_share", "core_share", "regularization", "projection",
                "fallback", "max_projector_noise", "pca_options")
_SPECS = (
    RouteSpec("local", "local", pure=True, dense=False, answers="sides", streams=True,
              sized_by_edge_count=True),
    RouteSpec("randomized-response", "randomized_response", pure=True, dense=True,
              options=("rr_postprocess",)),
    RouteSpec("pca", "pca", pure=False, dense=True, options=_PCA_OPTIONS, selects=False,
              objectives=("synthetic",)),
    RouteSpec("matrix-free", "matrix_free", pure=False, dense=False,
              options=("regularization",), expand="matrix_free_options", streams=True,
              own_sampler=True, default_rank=2, sized_by_edge_count=True,
              objectives=("low-rank",)),
)
_BY_NAME = {s.name: s for s in _SPECS}
ROUTES = tuple(_BY_NAME)
DENSE_ROUTES = tuple(s.name for s in _SPECS if s.dense)


_ADDED: set = set()


def register_route(spec: RouteSpec) -> None:
    """Add a route defined outside this package (``spec.module``: its module's full name).
    ``ROUTES`` and ``DENSE_ROUTES`` are tuples made at import, so they list the built-in routes
    only; :func:`route_names` lists every route.

    >>> spec = RouteSpec("demo", "dpgraph.release.routes.local", pure=True, dense=False)
    >>> register_route(spec)
    >>> route_names()[-1], route_spec("demo").pure, "demo" in ROUTES
    ('demo', True, False)
    >>> register_route(spec)
    Traceback (most recent call last):
    ...
    ValueError: route 'demo' exists already
    >>> unregister_route("demo")
    >>> "demo" in route_names()
    False
    """
    if spec.name in _BY_NAME or spec.name == "auto":
        raise ValueError(f"route {spec.name!r} exists already")
    _BY_NAME[spec.name] = spec
    _ADDED.add(spec.name)


def unregister_route(name: str) -> None:
    """Remove a route added by :func:`register_route` (the built-in ones stay).

    >>> register_route(RouteSpec("demo", "dpgraph.release.routes.local", pure=True, dense=False))
    >>> unregister_route("demo")
    >>> route_names() == ROUTES  # the built-in routes only, as before
    True
    >>> unregister_route("pca")
    Traceback (most recent call last):
    ...
    ValueError: route 'pca' is built in
    """
    if name in ROUTES:
        raise ValueError(f"route {name!r} is built in")
    _BY_NAME.pop(name, None)
    _ADDED.discard(name)


def route_names() -> tuple:
    """Every route's name, the registered ones after the built-in ones.

    >>> route_names()
    ('local', 'randomized-response', 'pca', 'matrix-free')
    """
    return tuple(_BY_NAME)


def route_spec(name: str) -> RouteSpec:
    """The declared capabilities of route ``name``.

    >>> spec = route_spec("randomized-response")
    >>> spec.pure, spec.dense, spec.options
    (True, True, ('rr_postprocess',))
    >>> route_spec("auto")
    Traceback (most recent call last):
    ...
    ValueError: route='auto' is not one of 'local', 'randomized-response', 'pca', 'matrix-free'
    """
    if name not in _BY_NAME:
        raise ValueError(f"route={name!r} is not one of {', '.join(map(repr, _BY_NAME))}")
    return _BY_NAME[name]


def route_module(name: str):
    """The module implementing route ``name`` (see the module docstring).

    >>> mod = route_module("local")
    >>> mod.__name__, callable(mod.release), mod.estimated_memory(1000, 5000, 2) > 0
    ('dpgraph.release.routes.local', True, True)
    """
    spec = route_spec(name)
    full = spec.module if name in _ADDED else f"{__name__}.{spec.module}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as exc:  # a route not in this build
        if exc.name != full:
            raise
        raise NotImplementedError(f"route={name!r} is not available in this version of "
                                  f"dpgraph") from exc
