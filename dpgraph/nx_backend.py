"""The ``"dpgraph"`` NetworkX backend: NetworkX's cut algorithms, answered privately.

Registered through the ``networkx.backends`` entry point (``pyproject.toml``), so that code
written for NetworkX switches to the edge-(epsilon, delta)-differentially private algorithms by
naming the backend and the budget::

    cut, (S, T) = nx.approximation.one_exchange(G, backend="dpgraph", epsilon=1.0, delta=1e-6)

=======================================  ==================================================
NetworkX function                        dpgraph implementation
=======================================  ==================================================
``approximation.one_exchange``           :func:`dpgraph.max_cut` (d'Orsi & Novikov Alg. 7.13)
=======================================  ==================================================

``community.kernighan_lin_bisection`` is not implemented: it *minimizes* the edges across a
bisection (communities), and :func:`dpgraph.max_bisection` maximizes them; answering one for
the other would return the opposite partition. A private minimum bisection is not built (on
sparse graphs the additive error of a private release exceeds the minimum cut itself).

Semantics. The returned partition is private (a function of the private release and of
private choices). The cut value that ``one_exchange`` returns is the *private estimate* of the
returned partition's cut in ``G`` (its true cut plus Laplace noise, ``PrivateCutResult.
estimated_value``), not the exact cut: a private API never returns an unprivatized statistic.
The whole budget ``(epsilon, delta)`` is spent by the call. ``weight`` follows NetworkX (edge
attribute, ``None`` = every edge weight 1); weights must lie in [0, 1].

Safety. ``epsilon`` and ``delta`` have no defaults. With ``backend="dpgraph"`` a call without
them raises :class:`TypeError`. Under automatic dispatch (``nx.config.backend_priority``, or
NetworkX's own test suite run with ``NETWORKX_TEST_BACKEND=dpgraph``) the backend declines a
call that names neither (``can_run`` gives the reason), so NetworkX runs its own, non-private
algorithm, whatever the graph (multigraphs included), only when the caller did not ask for
privacy; a call that names one of them runs here and raises for the other. An argument with no private counterpart
(``initial_cut``) makes the backend decline (``can_run``), with a
:class:`BackendDeclinedWarning` that says why when the call asked for privacy. Multigraphs are
refused (:class:`networkx.NetworkXNotImplemented`) by a call that asks for privacy, as
NetworkX's ``one_exchange`` refuses them: merging parallel edges would answer for a different
graph.

=========================================  ===============================================
Not supported                              What happens
=========================================  ===============================================
directed graphs                            ``NetworkXNotImplemented`` (as in NetworkX)
multigraphs (with a budget)                ``NetworkXNotImplemented``: convert, ``nx.Graph(G)``
``initial_cut=``                           declined + ``BackendDeclinedWarning`` (why)
=========================================  ===============================================

Randomness. ``seed`` (NetworkX's ``py_random_state``) left at ``None`` means dpgraph's
cryptographically secure noise; a seed makes the run reproducible and *not a private release*
(:class:`~dpgraph.privacy.ReproducibleNoiseWarning`), as everywhere in dpgraph.
"""

from __future__ import annotations

import random

from dpgraph.caller import DPGraphWarning

__all__ = ["BackendInterface", "BackendGraph", "BackendDeclinedWarning", "one_exchange",
           "FUNCTIONS"]

BACKEND_NAME = "dpgraph"

#: NetworkX function name -> the argument with no private counterpart (None: none)
FUNCTIONS = {"one_exchange": "initial_cut"}


class BackendGraph:
    """A NetworkX graph converted for the backend: dpgraph's canonical :class:`GraphData`.

    ``weight`` is the edge attribute read (None: every edge weight 1); ``source`` the NetworkX
    graph it came from (NetworkX reuses a cached conversion for a call that needs fewer edge
    attributes, e.g. ``weight=None`` after ``weight="weight"``: :meth:`graph_data` then reads
    the source again).
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, data, weight, source=None):
        self.data = data
        self.weight = weight
        self.source = source

    def graph_data(self, weight):
        """The graph with the weights of edge attribute ``weight`` (None: all 1)."""
        from dpgraph.graph import as_graph_data

        if weight == self.weight:
            return self.data
        if self.source is None:
            raise ValueError(f"graph converted with weight={self.weight!r}, asked for {weight!r}")
        return as_graph_data(self.source, weight=weight)

    def is_directed(self) -> bool:
        return False

    def is_multigraph(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"BackendGraph({self.data!r}, weight={self.weight!r})"


def _weight_of(edge_attrs):
    """The edge attribute NetworkX asks for (``edge_attrs`` is ``{name: default}`` or None)."""
    if not edge_attrs:
        return None
    if len(edge_attrs) != 1:
        raise NotImplementedError(f"dpgraph reads one weight attribute, got {sorted(edge_attrs)}")
    (name, default), = edge_attrs.items()
    if default != 1:
        raise NotImplementedError(f"dpgraph reads a missing weight as 1, not {default!r}")
    return name


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """NetworkX graph -> :class:`BackendGraph` (weights from ``edge_attrs``; node labels kept)."""
    from dpgraph.graph import as_graph_data

    if G.is_directed():
        raise NotImplementedError("dpgraph's NetworkX backend takes undirected graphs")
    if G.is_multigraph():
        # as_graph_data would collapse parallel edges: a different graph (and one edge of the
        # multigraph would no longer be what one unit of privacy protects)
        import networkx as nx

        raise nx.NetworkXNotImplemented(
            "dpgraph's NetworkX backend does not take multigraphs (it would merge parallel "
            "edges into one); convert first, e.g. nx.Graph(G), to decide how parallel edges "
            "combine")
    weight = _weight_of(edge_attrs)
    return BackendGraph(as_graph_data(G, weight=weight), weight, G)


def convert_to_nx(obj, *, name=None):
    """:class:`BackendGraph` -> ``networkx.Graph``; results (cuts, partitions) pass unchanged."""
    if isinstance(obj, BackendGraph):
        from dpgraph.graph import to_networkx

        return to_networkx(obj.data)
    return obj


def _budget(name: str, epsilon, delta):
    if epsilon is None or delta is None:
        missing = " and ".join(k for k, v in (("epsilon", epsilon), ("delta", delta)) if v is None)
        raise TypeError(
            f"{name}() on the dpgraph NetworkX backend needs the privacy budget: pass {missing} "
            f"(e.g. epsilon=1.0, delta=1e-6). dpgraph never returns a non-private answer; for "
            f"NetworkX's own (non-private) algorithm, pass neither epsilon nor delta and do not "
            f"select the dpgraph backend.")
    return epsilon, delta


def _rng(seed):
    """NetworkX's ``py_random_state`` turns ``seed=None`` into the global ``random._inst``:
    that means dpgraph's secure default; any other generator is a caller's seed (reproducible
    noise, not a private release)."""
    if seed is None or seed is random or seed is getattr(random, "_inst", None):
        return None
    if hasattr(seed, "getrandbits"):  # random.Random
        return int(seed.getrandbits(63))
    # a NumPy RandomState / Generator seed, which NetworkX wraps in its PythonRandomInterface
    # (no getrandbits)
    return int(seed.randrange(2**62))


def _data(G, weight):
    from dpgraph.graph import as_graph_data

    if isinstance(G, BackendGraph):
        return G.graph_data(weight)
    return as_graph_data(G, weight=weight)


def one_exchange(G, initial_cut=None, seed=None, weight=None, *, epsilon=None, delta=None,
                 **options):
    """Private ``networkx.approximation.one_exchange``: :func:`dpgraph.max_cut`.

    Returns ``(cut_value, (S, T))`` as NetworkX does, with ``cut_value`` the private estimate
    of the cut of ``(S, T)`` in ``G`` (Laplace noise; not the exact cut). ``options`` go to
    :func:`dpgraph.max_cut` (e.g. ``rank``). The whole budget is spent.

    Examples
    --------
    Called directly here; through NetworkX: ``nx.approximation.one_exchange(G,
    backend="dpgraph", epsilon=2.0, delta=1e-6)``.

    >>> import networkx as nx
    >>> value, (S, T) = one_exchange(nx.karate_club_graph(), epsilon=2.0, delta=1e-6)
    >>> len(S) + len(T), isinstance(value, float)
    (34, True)
    """
    from dpgraph.solve.cut import max_cut

    epsilon, delta = _budget("one_exchange", epsilon, delta)
    if initial_cut is not None:
        raise NotImplementedError("dpgraph's one_exchange has no initial_cut (its partition "
                                  "comes from the private release)")
    res = max_cut(_data(G, weight), epsilon=epsilon, delta=delta, rng=_rng(seed), **options)
    return res.estimated_value, res.partition


def _asks_for_privacy(kwargs) -> bool:
    return kwargs.get("epsilon") is not None or kwargs.get("delta") is not None


class BackendDeclinedWarning(DPGraphWarning):
    """The dpgraph backend declined a call that asked for privacy, and why (NetworkX's own
    message, "not implemented by 'dpgraph' for the given arguments", does not say)."""


def _named_by_caller() -> bool:
    """True when the NetworkX call being dispatched named this backend (``backend="dpgraph"``).

    NetworkX does not pass ``backend=`` to ``can_run``; its dispatcher holds it as the local
    ``backend_name`` of ``networkx.utils.backends._dispatchable._call_if_any_backends_installed``
    (as of NetworkX 3.6), two frames up. Should a NetworkX release move it, this answers False:
    a budget-less call naming the backend then gets NetworkX's own NotImplementedError instead
    of the TypeError below (still refused, never a non-private answer; tests/test_nx_backend.py
    checks the TypeError)."""
    import sys

    frame = sys._getframe(1)
    for _ in range(4):
        frame = frame.f_back
        if frame is None:
            return False
        if (frame.f_code.co_name == "_call_if_any_backends_installed"
                and frame.f_globals.get("__name__") == "networkx.utils.backends"):
            return frame.f_locals.get("backend_name") == BACKEND_NAME
    return False


def can_run(name, args, kwargs):
    """Whether the backend takes this call: True, or a string saying why not (NetworkX reads a
    string as "cannot run", logs it and, under automatic dispatch, runs its own algorithm).

    Declined: a call that asks for no privacy (neither ``epsilon`` nor ``delta``) unless it
    named this backend (``backend="dpgraph"``: then the call runs here and raises the
    :class:`TypeError` that names the missing budget), and a call with an argument that has no
    private counterpart (a call that asked for privacy also gets that reason as a
    :class:`BackendDeclinedWarning`, since NetworkX's own message does not give it)."""
    if name not in FUNCTIONS:
        return False
    if not _asks_for_privacy(kwargs) and not _named_by_caller():
        return (f"{name}(): no epsilon/delta given, so the caller did not ask for a private "
                f"answer (dpgraph never gives a non-private one)")
    arg = FUNCTIONS[name]
    if kwargs.get(arg) is not None or len(args) > 1 and args[1] is not None:
        reason = (f"{name}(): {arg} has no private counterpart in dpgraph (the partition comes "
                  f"from the private release); call it without {arg}")
        if _asks_for_privacy(kwargs):
            import warnings

            from dpgraph.caller import caller_stacklevel

            # attributed to the caller's line, past NetworkX's dispatcher frames
            warnings.warn(f"the dpgraph backend declined the call: {reason}",
                          BackendDeclinedWarning, stacklevel=caller_stacklevel())
        return reason
    return True


def should_run(name, args, kwargs):
    """Under automatic dispatch, run only when the caller asked for privacy (``epsilon`` or
    ``delta`` given); otherwise (a string saying why) NetworkX's own algorithm answers, as the
    caller wrote it. :func:`can_run` declines such a call already; NetworkX consults this one
    only after ``can_run`` said True, and not when the caller names ``backend="dpgraph"``."""
    if not _asks_for_privacy(kwargs):
        return "no epsilon/delta given: the caller did not ask for a private answer"
    return True


class BackendInterface:
    """The object the ``networkx.backends`` entry point names (NetworkX's backend protocol)."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    one_exchange = staticmethod(one_exchange)

