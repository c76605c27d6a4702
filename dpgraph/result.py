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

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

__all__ = ["Result", "EngineResult", "PrivateResult", "jsonable", "privacy_fields"]

_NONFINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def jsonable(value):
    """``value`` with every NumPy type, tuple/set and non-finite float made JSON-safe.

    Examples
    --------
    JSON object keys are text: two keys that spell the same text (``1`` and ``"1"``) are
    refused, naming both, rather than one silently replacing the other (the results keep
    such labels apart by listing them: ``{"labels": [...], "values": [...]}``).

    >>> jsonable({"a": np.float32(0.5), "b": (np.int64(3), float("nan")), "c": np.arange(2)})
    {'a': 0.5, 'b': [3, 'NaN'], 'c': [0, 1]}
    >>> jsonable({1: "int", "1": "str"})
    Traceback (most recent call last):
    ...
    ValueError: cannot write both keys 1 and '1' as JSON: they become the same text '1'; relabel first, or list the pairs
    """
    if isinstance(value, Mapping):
        out, seen = {}, {}
        for k, v in value.items():
            text = str(k)
            if text in seen:
                raise ValueError(f"cannot write both keys {seen[text]!r} and {k!r} as JSON: "
                                 f"they become the same text {text!r}; relabel first, or "
                                 f"list the pairs")
            seen[text] = k
            out[text] = jsonable(v)
        return out
    if isinstance(value, (list, tuple, range)):  # range: GraphData's default integer labels
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:  # mixed label types: keep them, in a stable order
            return sorted(items, key=repr)
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return _NONFINITE.get(value, value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if callable(getattr(value, "to_dict", None)):  # a nested ledger
        return jsonable(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # e.g. PCA diagnostics
        return jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    return str(value)  # anything else (paths, enums): its text


def privacy_fields(ledger) -> dict:
    """``private_release`` (False for seeded noise), ``warning`` (then) and ``ledger`` (its
    :meth:`~dpgraph.privacy.PrivacyLedger.to_dict`): the privacy part of every document."""
    from dpgraph.privacy import REPRODUCIBLE_NOTICE

    doc = {"private_release": not ledger.reproducible, "ledger": ledger.to_dict()}
    if ledger.reproducible:
        doc["warning"] = REPRODUCIBLE_NOTICE
    return doc


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

    def to_dict(self) -> dict:
        """The result as plain, JSON-ready data (:func:`jsonable`, as
        :meth:`PrivateResult.to_dict`): ``answer`` (``{"labels": [...], "values": [...]}``, in
        the input's order, so that labels such as ``1`` and ``"1"`` stay apart), ``value``,
        ``sdp_value``, ``upper_bound``, ``gap``, ``rounding``, ``timings``,
        ``private_release`` (False: the engine reads the exact input) and ``diagnostics``
        (``info``). The arrays are left out: ``x`` (the answer in index order), the factor
        ``V`` / moment matrix ``Y`` and ``info["rounded"]`` (every rounding candidate, n
        values each); save them with NumPy where needed.

        >>> import json, networkx as nx
        >>> from dpgraph.engine import solve_max_cut
        >>> doc = json.loads(json.dumps(solve_max_cut(nx.cycle_graph(4), rng=0).to_dict()))
        >>> doc["answer"]["labels"], doc["value"], doc["private_release"]
        ([0, 1, 2, 3], 4.0, False)
        """
        answer = self.answer
        info = {k: v for k, v in self.info.items() if k != "rounded"}
        return jsonable({"answer": {"labels": list(answer), "values": list(answer.values())},
                         "value": self.value, "sdp_value": self.sdp_value,
                         "upper_bound": self.upper_bound, "gap": self.gap,
                         "rounding": self.rounding, "timings": dict(self.timings),
                         "private_release": False, "diagnostics": info})


class PrivateResult(Result):
    """The private solvers' results: ``value`` is the private estimate ``estimated_value``;
    ``bound`` the relaxation bound of the released instance (``sdp_bound``)."""

    BOUND = "sdp_bound"

    @property
    def value(self) -> float | None:
        """``estimated_value``: the private estimate of the answer's value on the input."""
        return self.estimated_value

    def estimate_fields(self) -> dict:
        """``estimated_value``, ``estimate_interval`` (``{level, low, high}`` or None),
        ``synthetic_value`` and ``sdp_bound``."""
        ci = self.estimate_interval
        return {"estimated_value": self.estimated_value,
                "estimate_interval": None if ci is None else {
                    "level": self.estimate_level, "low": ci[0], "high": ci[1]},
                "synthetic_value": self.synthetic_value, "sdp_bound": self.sdp_bound}

    def to_dict(self) -> dict:
        """The result as plain, JSON-ready data (``json.dumps(res.to_dict())`` works; NumPy
        values become Python numbers, sets sorted lists, non-finite floats the strings
        ``"NaN"`` / ``"Infinity"``): ``answer`` (``{"labels": [...], "values": [...]}``, in the
        input's order), the estimate and its interval, the bounds, ``private_release``,
        ``ledger`` (:meth:`~dpgraph.privacy.PrivacyLedger.to_dict`) and ``diagnostics``: the
        fields of the command's ``--json`` document (docs/cli.md) without the command's own.

        >>> import json, networkx as nx, dpgraph
        >>> res = dpgraph.max_cut(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None)
        >>> doc = json.loads(json.dumps(res.to_dict()))
        >>> len(doc["answer"]["labels"]), doc["private_release"], "ledger" in doc
        (34, True, True)
        """
        answer = self.answer
        doc = {"answer": {"labels": list(answer), "values": list(answer.values())},
               **self.estimate_fields(), **self._document_fields(),
               **privacy_fields(self.ledger), "diagnostics": dict(self.diagnostics)}
        return jsonable(doc)

    def _document_fields(self) -> dict:
        """A subclass's own fields in :meth:`to_dict` (between the bounds and the privacy)."""
        return {}
