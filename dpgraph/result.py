"""One shape for every solver's result, in the spirit of SciPy's ``OptimizeResult``.

Every result of the engine (:class:`dpgraph.engine.CutResult`, :class:`dpgraph.engine.CSPResult`)
and of the private solvers (:class:`dpgraph.PrivateCutResult`, :class:`dpgraph.PrivateCSPResult`)
is a :class:`Result`, and answers the same five questions under the same names, whatever its
own fields are called:

``answer``
    The solution: node (or variable) label -> side (or value).
``value``
    Its objective value: on the given weights for the engine; the private estimate on the
    input for the private solvers (None when no estimate was released).
``bound``
    A certified upper bound: of the relaxation of the instance that was solved (for the
    private solvers, the *released* instance), or None where no relaxation was solved.
``ledger``
    The :class:`~dpgraph.privacy.PrivacyLedger` of the privacy spent, or None for the
    non-private engine.
``diagnostics``
    A dict of details whose keys each class documents (no timings in private results:
    docs/privacy.md 11).

Subclasses map the names onto their fields with the class attributes ``ANSWER`` and
``BOUND`` (and define ``value`` / ``ledger`` / ``diagnostics`` where their fields are named
otherwise).

Examples
--------
>>> import networkx as nx
>>> from dpgraph.engine import solve_max_cut
>>> r = solve_max_cut(nx.cycle_graph(4), rng=0)
>>> r.value, r.bound >= r.value, r.ledger is None
(4.0, True, True)
>>> sorted(r.answer.values())
[0, 0, 1, 1]
"""

from __future__ import annotations

__all__ = ["Result", "EngineResult", "PrivateResult"]


class Result:
    """Mixin giving every result ``answer``, ``value``, ``bound``, ``ledger`` and
    ``diagnostics`` (see the module docstring)."""

    #: the field that holds the solution
    ANSWER = "assignment"
    #: the field that holds the certified bound (None: no bound)
    BOUND: str | None = None

    @property
    def answer(self) -> dict:
        return getattr(self, self.ANSWER)

    @property
    def bound(self) -> float | None:
        return None if self.BOUND is None else getattr(self, self.BOUND)


class EngineResult(Result):
    """The non-private engine's results: no ledger; ``diagnostics`` is their ``info``."""

    BOUND = "upper_bound"

    @property
    def ledger(self):
        """None: the engine is not private."""
        return None

    @property
    def diagnostics(self) -> dict:
        """``info``: method details (rank, iterations, certificate, ...)."""
        return self.info


class PrivateResult(Result):
    """The private solvers' results: ``value`` is the private estimate ``estimated_value``;
    ``bound`` the relaxation bound of the released instance (``sdp_bound``)."""

    BOUND = "sdp_bound"

    @property
    def value(self) -> float | None:
        """``estimated_value``: the private estimate of the answer's value on the input."""
        return self.estimated_value
