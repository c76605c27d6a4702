"""Privacy budget and ledger: every noise draw is recorded here before it happens.

Accounting is basic (sequential) composition by default: running mechanisms that are
``(eps_i, delta_i)``-DP on the same input is ``(sum eps_i, sum delta_i)``-DP
(Dwork & Roth, Thm 3.16). Halting steps (propose-test-release) record their failure
probability as a ``delta`` charge of their own, as the composition lemma requires.

Optional zCDP accounting (``accounting="zcdp"``): charges that carry a ``rho`` (the Gaussian
mechanism: ``rho = D^2 / (2 sigma^2)``, Bun & Steinke 2016 Prop. 1.6; pure epsilon-DP charges:
``rho = epsilon^2 / 2``, Prop. 1.4) compose by adding rho (Lemma 1.7); the sum ``R`` is converted
to ``(epsilon_R, delta_R)`` at ``delta_R`` = the sum of those charges' deltas (Canonne-Kamath-Steinke
conversion, never looser than Bun-Steinke Prop. 1.3), and the smaller of that epsilon and their
basic-composition sum is used (both guarantees hold). Charges without a rho add on top by basic
composition.

Gaussian-DP accounting (``accounting="gdp"``): the Gaussian charges (those whose
:attr:`LedgerEntry.dp_event` is a Gaussian event, ``mu_i = sensitivity / sigma``) compose
exactly to ``mu = sqrt(sum mu_i^2)``-GDP (Dong, Roth & Su 2022, Cor. 3.3), converted to
``(epsilon, delta)`` at the sum of their deltas by the analytic-Gaussian formula
(:func:`~dpgraph.privacy.calibration.gdp_epsilon`); the smaller of that and their basic sum is
used; every other charge adds by basic composition.

Vetted accounting: every charge also carries a ``dp_accounting`` event (Google's
``dp-accounting`` library; :attr:`LedgerEntry.dp_event`): the Gaussian and Laplace mechanisms as
``GaussianDpEvent`` / ``LaplaceDpEvent`` with noise multiplier ``scale / sensitivity``; every
other pure epsilon-DP charge (randomized response, the exponential and K-norm mechanisms) as
binary randomized response at that epsilon, which dominates every pure epsilon-DP mechanism
(Kairouz, Oh & Viswanath 2015); a composition the caller describes itself (the matrix-free
route) passes its own event. Charges that are only an ``(epsilon, delta)`` statement (a halting
step's failure probability, a reserved share, group privacy) carry none. A charge records its
event as an :class:`EventSpec` and builds it on first use: importing ``dp_accounting`` costs
about 0.5 s and 28 MB (it loads ``scipy.signal`` and ``scipy.stats``), which a release that
never asks for the accountant does not pay.
:meth:`PrivacyLedger.accountant_spent` recomputes the total with ``dp_accounting``'s
privacy-loss-distribution accountant; tests check it never exceeds :attr:`PrivacyLedger.spent`
and that each charge's own epsilon is the accountant's (docs/privacy.md 12).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import inspect
import math
import os
import threading
import warnings
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from dpgraph.caller import caller_stacklevel
from dpgraph.privacy.validation import check_delta, check_epsilon, check_number
from dpgraph.privacy.rng import REPRODUCIBLE_NOTICE, ReproducibleNoiseWarning

__all__ = ["PrivacyBudgetError", "LedgerEntry", "PrivacyLedger", "EventSpec", "reproducible_tag",
           "spent_text", "records_in_ledger"]

# Relative slack when comparing spent and total budget, so that splitting a budget into
# floating-point fractions that sum to it does not raise.
_REL_TOL = 1e-9


class PrivacyBudgetError(RuntimeError):
    """Raised, before any noise is drawn, when a charge would exceed the ledger's budget.

    >>> ledger = PrivacyLedger(epsilon=1.0)
    >>> _ = ledger.charge("a count", mechanism="laplace", epsilon=0.8, sensitivity=1.0)
    >>> try:
    ...     ledger.charge("another count", mechanism="laplace", epsilon=0.5, sensitivity=1.0)
    ... except PrivacyBudgetError:
    ...     print("refused; spent", ledger.spent)
    refused; spent (0.8, 0.0)
    """


class EventSpec(NamedTuple):
    """A ``dp_accounting`` event, named by its class and keyword arguments and built on first
    use (:meth:`build`), so that recording a charge does not import ``dp_accounting``.

    >>> spec = EventSpec.of("GaussianDpEvent", noise_multiplier=2.0)
    >>> spec.param("noise_multiplier"), spec.build()
    (2.0, GaussianDpEvent(noise_multiplier=2.0))
    """

    kind: str
    params: tuple = ()

    @classmethod
    def of(cls, kind: str, **params) -> "EventSpec":
        """The event ``dp_accounting.<kind>(**params)``, not built yet."""
        return cls(kind, tuple(params.items()))

    def param(self, name: str):
        """The keyword argument ``name`` (None if absent)."""
        return dict(self.params).get(name)

    def build(self):
        """The ``dp_accounting`` event itself."""
        import dp_accounting

        return getattr(dp_accounting, self.kind)(**dict(self.params))


class _LazyEvent:
    """The field :attr:`LedgerEntry.dp_event`: it holds the event or its :class:`EventSpec`,
    as given, and reads as the event, built on the first read (a data descriptor, so that
    ``LedgerEntry(..., dp_event=...)`` and :func:`dataclasses.replace` take it as a field)."""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:  # the class's default: no event
            return self
        value = obj.__dict__.get(self.slot)
        if isinstance(value, EventSpec):
            value = obj.__dict__[self.slot] = value.build()
        return value

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = None if value is self else value


@dataclass(frozen=True)
class LedgerEntry:
    """One privacy charge.

    ``sensitivity`` is the bound used for calibration, measured in ``sensitivity_norm``
    (e.g. ``"l2"``, ``"l1"``); ``noise_scale`` is the standard deviation (Gaussian), the
    scale (Laplace, K-norm), or a flip probability (randomized response).
    """

    name: str
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float | None = None
    sensitivity_norm: str | None = None
    noise_scale: float | None = None
    note: str = ""
    rho: float | None = None  # zCDP parameter of this charge, when it has one
    #: the ``dp_accounting`` event of this charge (module docstring), built on first read from
    #: the :class:`EventSpec` it was given, or None for a charge that is only an
    #: (epsilon, delta) statement
    dp_event: object | None = field(default=_LazyEvent(), compare=False, repr=False)

    @property
    def event(self):
        """:attr:`dp_event` as it is held: an :class:`EventSpec` not read yet, or the event."""
        return self.__dict__.get("_dp_event")

    @property
    def event_kind(self) -> str:
        """The class name of :attr:`dp_event` ("" for none), without building it."""
        ev = self.event
        return "" if ev is None else ev.kind if isinstance(ev, EventSpec) else type(ev).__name__

    @property
    def gdp_mu(self) -> float | None:
        """``mu`` of a Gaussian charge (``sensitivity / sigma``), else None."""
        if self.event_kind != "GaussianDpEvent":
            return None
        ev = self.event
        nm = ev.param("noise_multiplier") if isinstance(ev, EventSpec) else ev.noise_multiplier
        return math.inf if nm == 0 else 1.0 / nm


# Renyi orders for zCDP events: a fine grid (the conversion minimises over them)
_RDP_ORDERS = tuple(1.0 + 10.0 ** (k / 100.0) for k in range(-300, 301))

#: delta read off the accountant for a group of pure epsilon-DP charges (see accountant_spent)
PLD_TAIL = 1e-12

_PURE = ("randomized-response", "exponential (monotone)", "knorm-l2-ball", "discrete laplace")


def dp_event_for(mechanism: str, epsilon: float, delta: float, sensitivity, noise_scale):
    """The ``dp_accounting`` event of a charge (module docstring) as an :class:`EventSpec`, or
    None."""
    if mechanism in ("gaussian", "laplace") and sensitivity and noise_scale is not None:
        ratio = float(noise_scale) / float(sensitivity)
        kind = "GaussianDpEvent" if mechanism == "gaussian" else "LaplaceDpEvent"
        return EventSpec.of(kind, noise_multiplier=ratio)
    if mechanism in _PURE and delta == 0.0 and epsilon > 0:
        # binary randomized response at epsilon: keep the true answer w.p. e^eps / (1 + e^eps)
        return EventSpec.of("RandomizedResponseDpEvent", num_buckets=2,
                            noise_parameter=2.0 / (1.0 + math.exp(min(epsilon, 700.0))))
    return None


#: ``PrivacyLedger``'s default delta: 0 when an epsilon is given, unlimited otherwise
_PURE_IF_EPSILON = object()


class PrivacyLedger:
    """A total (epsilon, delta) budget and the list of charges against it.

    Parameters
    ----------
    epsilon, delta : float or None
        Total budget. ``PrivacyLedger()`` is unlimited (the ledger only records); an
        ``epsilon`` without a ``delta`` is a pure epsilon-DP budget (``delta = 0``: a charge
        with a delta is refused), and ``delta=None`` given with it leaves delta unlimited.
    accounting : {"basic", "zcdp"}
        How charges compose (see the module docstring). ``"zcdp"`` is never worse than basic.
    conversion : {"cks", "standard"}
        zCDP to (epsilon, delta) conversion used by ``accounting="zcdp"``.

    Examples
    --------
    >>> ledger = PrivacyLedger(epsilon=1.0, delta=1e-6)
    >>> _ = ledger.charge("degrees", mechanism="gaussian", epsilon=0.25, delta=2.5e-7,
    ...                   sensitivity=1.414, sensitivity_norm="l2", noise_scale=9.1)
    >>> ledger.remaining
    (0.75, 7.5e-07)
    """

    def __init__(self, epsilon: float | None = None, delta: float | None = _PURE_IF_EPSILON, *,
                 accounting: str = "basic", conversion: str = "cks"):
        self.epsilon = None if epsilon is None else check_epsilon(epsilon)
        if delta is _PURE_IF_EPSILON:
            # a budget of epsilon alone is pure: "epsilon=1" never means an unlimited delta
            delta = None if epsilon is None else 0.0
            self._delta_defaulted = epsilon is not None
        else:
            self._delta_defaulted = False
        self.delta = None if delta is None else check_delta(delta)
        if accounting not in ("basic", "zcdp", "gdp"):
            raise ValueError(f"accounting must be 'basic', 'zcdp' or 'gdp', got {accounting!r}")
        if conversion not in ("cks", "standard"):
            raise ValueError(f"conversion must be 'cks' or 'standard', got {conversion!r}")
        self.accounting = accounting
        self.conversion = conversion
        self._entries: list[LedgerEntry] = []
        self._reproducible = False
        # a running budget (records_in_ledger): requests of calls under way, checked with the
        # charges under one lock, and the process whose calls may record here
        self._reserved: list[LedgerEntry] = []
        self._lock = threading.Lock()
        self._owner = os.getpid()

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]  # a lock does not pickle; the copy gets its own
        state["_reserved"] = []
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_owner", os.getpid())
        self._reserved = []
        self._lock = threading.Lock()

    def __copy__(self):
        """A copy with its own list of charges (a shallow copy shared the list, so charging
        the copy charged the original)."""
        new = PrivacyLedger.__new__(PrivacyLedger)
        new.__setstate__(self.__getstate__())  # a new dict already
        new._entries = list(self._entries)
        return new

    def claim(self) -> "PrivacyLedger":
        """Make the calling process this ledger's owner, so that ``ledger=`` calls record here:
        for a running ledger saved to a file (pickle) and loaded by a later process to go on with
        the same budget. A copy that reached a worker process is not the parent's ledger
        (charges there never reach it); do not claim it: pass ``ledger=None`` in the workers
        and ``total.extend(res.ledger)`` in the parent."""
        self._owner = os.getpid()
        return self

    # -- reproducible (seeded) noise: a testing mode, not a private release
    @property
    def reproducible(self) -> bool:
        """True when some charged noise came from a seeded or caller-supplied generator: then
        the results of this ledger are **not private** (see :mod:`dpgraph.privacy.rng`)."""
        return self._reproducible

    def mark_reproducible(self, *, warn: bool = True) -> None:
        """Record that noise charged here is reproducible; warn (once per ledger) when ``warn``."""
        if self._reproducible:
            return
        self._reproducible = True
        if warn:
            warnings.warn(f"{REPRODUCIBLE_NOTICE}: the noise came from a fixed seed or a caller's "
                          "generator (rng=...). Use rng=None (the default) for a private release.",
                          ReproducibleNoiseWarning, stacklevel=caller_stacklevel())

    def _spent_of(self, entries) -> tuple[float, float]:
        if self.accounting == "basic":
            return (math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries))
        if self.accounting == "gdp":
            from dpgraph.privacy.calibration import gdp_epsilon

            g = [e for e in entries if e.gdp_mu is not None]
            a = [e for e in entries if e.gdp_mu is None]
            eps_g = math.fsum(e.epsilon for e in g)
            dlt_g = math.fsum(e.delta for e in g)
            mu = math.sqrt(math.fsum(e.gdp_mu ** 2 for e in g))
            if 0 < mu < math.inf and 0 < dlt_g < 1:
                eps_g = min(eps_g, gdp_epsilon(mu, dlt_g))
            return (eps_g + math.fsum(e.epsilon for e in a), dlt_g + math.fsum(e.delta for e in a))
        from dpgraph.privacy.calibration import zcdp_to_approx_dp

        z = [e for e in entries if e.rho is not None]
        a = [e for e in entries if e.rho is None]
        eps_z = math.fsum(e.epsilon for e in z)
        dlt_z = math.fsum(e.delta for e in z)
        rho = math.fsum(e.rho for e in z)
        if rho > 0 and dlt_z > 0:
            eps_z = min(eps_z, zcdp_to_approx_dp(rho, min(dlt_z, 0.5), conversion=self.conversion))
        return (eps_z + math.fsum(e.epsilon for e in a), dlt_z + math.fsum(e.delta for e in a))

    @property
    def rho(self) -> float | None:
        """The ledger's total zCDP rho: each charge's own ``rho`` where it carries one, and
        ``epsilon^2 / 2`` for a pure epsilon-DP charge (Bun & Steinke 2016, Prop. 1.4); None
        when some charge has a delta and no rho (no zCDP statement covers it)."""
        if any(e.rho is None and e.delta > 0 for e in self._entries):
            return None
        return math.fsum(e.rho if e.rho is not None else 0.5 * e.epsilon ** 2
                         for e in self._entries)

    # -- state
    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        return tuple(self._entries)

    @property
    def spent(self) -> tuple[float, float]:
        """(epsilon, delta) spent so far under the ledger's accounting."""
        return self._spent_of(self._entries)

    @property
    def remaining(self) -> tuple[float, float]:
        """(epsilon, delta) left; ``inf`` for an unlimited component."""
        eps, dlt = self.spent
        return (math.inf if self.epsilon is None else max(self.epsilon - eps, 0.0),
                math.inf if self.delta is None else max(self.delta - dlt, 0.0))

    # -- charging
    def check(self, epsilon: float, delta: float, *, name: str = "charge",
              rho: float | None = None) -> None:
        """Raise :class:`PrivacyBudgetError` if spending (epsilon, delta) would exceed the budget."""
        self._check_entries([LedgerEntry(name=name, mechanism="?", epsilon=float(epsilon),
                                         delta=float(delta), rho=rho)])

    def _check_entries(self, new) -> None:
        held = self._entries + self._reserved  # the requests of running calls count too
        eps0, dlt0 = self._spent_of(held)
        eps, dlt = self._spent_of(held + list(new))
        name = new[-1].name if new else "charge"
        if self.epsilon is not None and eps > self.epsilon * (1 + _REL_TOL):
            raise PrivacyBudgetError(
                f"{name} needs epsilon={eps - eps0:g} but only {max(self.epsilon - eps0, 0):g} of "
                f"{self.epsilon:g} is left")
        if self.delta is not None and dlt > self.delta * (1 + _REL_TOL) + 1e-300:
            hint = ("; this ledger was made with an epsilon and no delta, which is a pure "
                    "epsilon-DP budget: PrivacyLedger(epsilon=..., delta=...) allows a delta"
                    if getattr(self, "_delta_defaulted", False) else "")
            raise PrivacyBudgetError(
                f"{name} needs delta={dlt - dlt0:g} but only {max(self.delta - dlt0, 0):g} of "
                f"{self.delta:g} is left{hint}")

    def charge(self, name: str, *, mechanism: str, epsilon: float, delta: float = 0.0,
               sensitivity: float | None = None, sensitivity_norm: str | None = None,
               noise_scale: float | None = None, note: str = "",
               rho: float | None = None, dp_event=None) -> LedgerEntry:
        """Record a charge; raises :class:`PrivacyBudgetError` (recording nothing) if over budget.

        Call this *before* drawing the noise it pays for. ``rho``: the charge's zCDP parameter,
        if it has one (used by ``accounting="zcdp"``; recorded either way). ``dp_event``: the
        charge's ``dp_accounting`` event (or its :class:`EventSpec`), when the caller composes
        several mechanisms itself (otherwise derived from ``mechanism``: :func:`dp_event_for`).
        """
        epsilon = check_epsilon(epsilon, name=f"{name}: epsilon", allow_zero=True)
        delta = check_delta(delta, name=f"{name}: delta")
        if rho is not None:
            rho = check_number(rho, name=f"{name}: rho", low=0.0)
        if dp_event is None:
            dp_event = dp_event_for(mechanism, epsilon, delta, sensitivity, noise_scale)
        entry = LedgerEntry(name=name, mechanism=mechanism, epsilon=epsilon, delta=delta,
                            sensitivity=None if sensitivity is None else float(sensitivity),
                            sensitivity_norm=sensitivity_norm,
                            noise_scale=None if noise_scale is None else float(noise_scale),
                            note=note, rho=rho, dp_event=dp_event)
        with self._lock:
            self._check_entries([entry])
            self._entries.append(entry)
        seen = _CHARGED.get()
        if seen is not None and mechanism != "reserved":  # a halted step's unused share: no draw
            seen.append(entry)
        return entry

    def extend(self, other: "PrivacyLedger") -> None:
        """Record every charge of ``other``, a :class:`PrivacyLedger` (a result's ``.ledger``),
        here (checking this ledger's budget first; all or nothing), and its reproducible mark.
        Anything else, a list of ledgers or of entries included, is refused with a
        ``TypeError``: call ``extend`` once per ledger.

        >>> total, part = PrivacyLedger(epsilon=1.0), PrivacyLedger()
        >>> _ = part.charge("count", mechanism="laplace", epsilon=0.25)
        >>> total.extend(part)
        >>> total.remaining
        (0.75, 0.0)
        """
        if not isinstance(other, PrivacyLedger):
            items = list(other) if isinstance(other, (list, tuple)) else []
            hint = ("; pass the ledger that holds these entries" if items and all(
                isinstance(x, LedgerEntry) for x in items) else
                "; call extend once per ledger" if items else "")
            raise TypeError(f"PrivacyLedger.extend takes one PrivacyLedger (a result's "
                            f".ledger), got {type(other).__name__}{hint}")
        with self._lock:
            self._check_entries(list(other.entries))
            self._entries.extend(other.entries)
        if other.reproducible:
            self.mark_reproducible(warn=False)

    # -- vetted accounting (dp_accounting)
    def accountant_spent(self, *, value_discretization_interval: float = 1e-4) -> tuple[float, float]:
        """(epsilon, delta) of this ledger's charges recomputed with ``dp_accounting``.

        The charges with a Gaussian or Laplace event are composed by a ``PLDAccountant``
        (shift mechanisms, sensitivity-normalised: its add-or-remove relation), those with a
        randomized-response event by a second one (its replace-one relation, the adjacency of
        one pair's value), each read at the sum of its charges' deltas (pessimistic estimates:
        upper bounds); the two and every charge without an event then add by basic composition.
        Never more than :attr:`spent` for a sound ledger (up to the accountant's
        discretization); tests check this for every entry point."""
        import dp_accounting as dpa
        from dp_accounting.pld import PLDAccountant

        rel = dpa.NeighboringRelation
        groups = {"shift": [], "rr": [], "zcdp": [], "none": []}
        for e in self._entries:
            kind = e.event_kind
            groups["shift" if kind in ("GaussianDpEvent", "LaplaceDpEvent", "ComposedDpEvent")
                   else "rr" if kind == "RandomizedResponseDpEvent"
                   else "zcdp" if kind == "ZCDpEvent" else "none"].append(e)
        eps = math.fsum(e.epsilon for e in groups["none"])
        dlt = math.fsum(e.delta for e in self._entries)
        for key, relation in (("shift", rel.ADD_OR_REMOVE_ONE), ("rr", rel.REPLACE_ONE)):
            if not groups[key]:
                continue
            acc = PLDAccountant(relation, value_discretization_interval=value_discretization_interval)
            acc.compose(dpa.ComposedDpEvent([e.dp_event for e in groups[key]]))
            # the PLD truncates each tail of mass below ~1e-15 and counts it at infinite loss:
            # read at least PLD_TAIL of delta (added to the returned delta)
            d_group = math.fsum(e.delta for e in groups[key])
            eps += acc.get_epsilon(max(d_group, PLD_TAIL))
            dlt += max(PLD_TAIL - d_group, 0.0)
        if groups["zcdp"]:  # zCDP events (the discrete Gaussian): the library's RDP accountant
            from dp_accounting.rdp import RdpAccountant

            acc = RdpAccountant(_RDP_ORDERS)
            acc.compose(dpa.ComposedDpEvent([e.dp_event for e in groups["zcdp"]]))
            eps += acc.get_epsilon(math.fsum(e.delta for e in groups["zcdp"]))
        return eps, dlt

    # -- reporting
    def to_dict(self) -> dict:
        eps, dlt = self.spent
        entries = []
        for e in self._entries:
            d = {k: v for k, v in asdict(e).items() if k != "dp_event"}
            d["dp_event"] = None if e.dp_event is None else repr(e.dp_event)
            entries.append(d)
        return {"budget": {"epsilon": self.epsilon, "delta": self.delta},
                "accounting": self.accounting,
                "reproducible": self._reproducible,
                "spent": {"epsilon": eps, "delta": dlt, "rho": self.rho},
                "entries": entries}

    def report(self) -> str:
        """A plain-text table of the charges and the totals."""
        head = ("step", "mechanism", "epsilon", "delta", "sensitivity", "noise scale")
        rows = [head]
        footnotes = []
        for e in self._entries:
            sens = "" if e.sensitivity is None else f"{e.sensitivity:.4g} ({e.sensitivity_norm or '?'})"
            # a step that draws noise at no charge of its own (parallel composition with
            # another step): its line says 0, and a footnote says why, from its note
            free = e.epsilon == 0 and e.delta == 0 and e.noise_scale is not None and e.note
            if free:
                footnotes.append(f"* {e.name}: epsilon 0 on its line: {e.note}")
            rows.append((e.name, e.mechanism, f"{e.epsilon:.4g}" + ("*" if free else ""),
                         f"{e.delta:.3g}", sens,
                         "" if e.noise_scale is None else f"{e.noise_scale:.4g}"))
        eps, dlt = self.spent
        mu = math.sqrt(math.fsum(e.gdp_mu ** 2 for e in self._entries if e.gdp_mu is not None))
        how = ("basic composition" if self.accounting == "basic"
               else f"zCDP (rho={self.rho:.4g}) + basic" if self.accounting == "zcdp"
               else f"Gaussian DP (mu={mu:.4g}) + basic")
        rows.append(("total", how, f"{eps:.4g}", f"{dlt:.3g}", "", ""))
        if self.epsilon is not None or self.delta is not None:
            rows.append(("budget", "", "inf" if self.epsilon is None else f"{self.epsilon:.4g}",
                         "inf" if self.delta is None else f"{self.delta:.3g}", "", ""))
        widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        lines.extend(footnotes)
        if self._reproducible:
            lines.insert(0, f"*** {REPRODUCIBLE_NOTICE.upper()} (seeded or caller-supplied rng) ***")
        return "\n".join(lines)

    def __repr__(self) -> str:
        eps, dlt = self.spent
        return (f"PrivacyLedger(spent=(epsilon={eps:.4g}, delta={dlt:.3g}), "
                f"budget=(epsilon={self.epsilon}, delta={self.delta}), entries={len(self._entries)}"
                + (f", {REPRODUCIBLE_NOTICE}" if self._reproducible else "") + ")")


def spent_text(ledger: PrivacyLedger, why: str | None = None) -> str:
    """``spent=(epsilon=.., delta=..)`` for a result's repr, followed, where the ledger has a
    budget, by ``of requested (epsilon=.., delta=..)`` and, where part of the request went
    unspent, the reason in brackets: ``why``, or for a delta left unspent by charges that are
    all pure epsilon-DP, that.

    Examples
    --------
    >>> led = PrivacyLedger(epsilon=1.0, delta=1e-6)
    >>> _ = led.charge("count", mechanism="laplace", epsilon=1.0, sensitivity=1, noise_scale=1)
    >>> spent_text(led)
    'spent=(epsilon=1, delta=0) of requested (epsilon=1, delta=1e-06) [pure epsilon-DP: delta is not spent]'
    """
    eps, dlt = ledger.spent
    text = f"spent=(epsilon={eps:.4g}, delta={dlt:.3g})"
    if ledger.epsilon is None:
        return text
    req_dlt = ledger.delta or 0.0
    text += f" of requested (epsilon={ledger.epsilon:.4g}, delta={req_dlt:.3g})"
    if why is None and dlt == 0 and req_dlt > 0:
        why = "pure epsilon-DP: delta is not spent"
    unspent = eps < ledger.epsilon * (1 - 1e-9) or dlt < req_dlt * (1 - 1e-9)
    return text + (f" [{why}]" if why and unspent else "")


def reproducible_tag(ledger: PrivacyLedger) -> str:
    """``", reproducible noise: not a private release"`` for a reproducible ledger, else ``""``
    (appended to the repr of every result that holds a ledger).

    Examples
    --------
    >>> led = PrivacyLedger(epsilon=1.0)
    >>> reproducible_tag(led)
    ''
    >>> led.mark_reproducible(warn=False)  # as a seeded draw (rng=0) marks it
    >>> reproducible_tag(led)
    ', reproducible noise: not a private release'
    """
    return f", {REPRODUCIBLE_NOTICE}" if ledger.reproducible else ""


#: the charges made in the current context while a records_in_ledger call runs
_CHARGED: ContextVar[list | None] = ContextVar("dpgraph_charged", default=None)


@contextlib.contextmanager
def uncounted():
    """Charges made inside are not what a call spent, for a caller's running ledger
    (:func:`records_in_ledger`) when the call fails: a scratch ledger that tries a split
    before anything is drawn, an itemized copy of a composition that is charged once on the
    call's own ledger, or a re-charge of entries already recorded. Without it a failed call
    recorded them too (the matrix-free route's itemization and trial: 7.5 times its epsilon)."""
    token = _CHARGED.set(None)
    try:
        yield
    finally:
        _CHARGED.reset(token)


def _failed_call_charges(charged: list, request: "LedgerEntry") -> list:
    """What a failed call records in the running ledger: its charges before the error (each
    comes before its draw), or, should they add up to more than its request (a charge to a
    nested ledger that was not marked :func:`uncounted`), one entry of the request itself: the
    call's own ledger holds its draws to the request, so that bound is sound."""
    eps = math.fsum(e.epsilon for e in charged)
    dlt = math.fsum(e.delta for e in charged)
    if eps <= request.epsilon * (1 + 1e-9) and dlt <= request.delta * (1 + 1e-9) + 1e-300:
        return list(charged)
    return [LedgerEntry(name=f"{request.name}: failed; its charges, bounded by its request",
                        mechanism="bound", epsilon=request.epsilon, delta=request.delta,
                        note=f"{len(charged)} charges before the error added up to "
                             f"(epsilon={eps:.4g}, delta={dlt:.3g}), more than the request "
                             f"(nested ledgers); the call drew at most its request")]


# Keywords other libraries use for what dpgraph names otherwise: a caller coming from NetworkX
# (``seed=``) or scikit-learn (``random_state=``) is told dpgraph's name instead of a bare
# "unexpected keyword argument".
_KEYWORD_ALIASES = {"seed": "rng", "random_state": "rng", "random_seed": "rng", "eps": "epsilon",
                    "budget": "epsilon", "weights": "weight"}
_RNG_NOTE = ("; rng=None, the default, draws private noise, and a seed makes the result "
             "reproducible and not private")


def unexpected_keyword_message(name: str, accepted, key: str) -> str:
    """The ``TypeError`` text for keyword ``key`` that ``name`` does not take, naming what it
    does take instead: dpgraph's name for another library's keyword, that a pure epsilon-DP
    call has no ``delta``, or the closest accepted spelling.

    >>> unexpected_keyword_message("max_cut", ["G", "epsilon", "delta", "rng"], "seed")
    "max_cut() got an unexpected keyword argument 'seed': dpgraph calls it rng=; rng=None, \
the default, draws private noise, and a seed makes the result reproducible and not private"
    >>> unexpected_keyword_message("release_synthetic", ["G", "epsilon", "rng"], "delta")
    "release_synthetic() got an unexpected keyword argument 'delta': release_synthetic is pure \
epsilon-DP (delta = 0) and takes no delta; privatize(G, epsilon=..., delta=...) is dpgraph's \
(epsilon, delta) release"
    """
    accepted = [a for a in accepted if not a.startswith("_")]
    head = f"{name}() got an unexpected keyword argument {key!r}"
    alias = _KEYWORD_ALIASES.get(key)
    if alias in accepted:
        return f"{head}: dpgraph calls it {alias}=" + (_RNG_NOTE if alias == "rng" else "")
    if key == "delta" and "epsilon" in accepted:
        return (f"{head}: {name} is pure epsilon-DP (delta = 0) and takes no delta; "
                f"privatize(G, epsilon=..., delta=...) is dpgraph's (epsilon, delta) release")
    close = difflib.get_close_matches(key, accepted, n=1)
    if close:
        return f"{head}: did you mean {close[0]}=?"
    return f"{head}; it takes {', '.join(accepted)} and ledger"


def _check_keywords(fn, signature: inspect.Signature, kwargs: dict) -> None:
    """Refuse a keyword ``fn`` does not take with :func:`unexpected_keyword_message`."""
    params = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    for key in kwargs:
        if key not in params:
            raise TypeError(unexpected_keyword_message(fn.__name__, params, key))


def records_in_ledger(fn):
    """Give a private entry point (``max_cut``, ``privatize``, ...) the keyword ``ledger``: a
    caller's running :class:`PrivacyLedger` that holds several calls to one total budget.

    With ``ledger=L`` the call is refused with :class:`PrivacyBudgetError` *before anything is
    spent* unless its requested ``(epsilon, delta)`` fits in ``L.remaining`` (the request, not
    what a pure route ends up spending: that is known only after the call); on return every
    charge of the call's own ledger (``result.ledger``) is recorded in ``L``. The call spends
    at most its request, so the recording never exceeds ``L``'s budget. The request is reserved
    in ``L`` while the call runs, under ``L``'s lock, so calls in several threads cannot pass
    the check together; a call that raises records in ``L`` whatever it charged before the
    error (nothing, for a refusal before any draw). A copy of ``L`` in another process (a
    process pool's worker) is refused: its charges would never reach ``L``.
    ``ledger=None`` (the default): the call's own ledger only, as before.

    >>> import networkx as nx, dpgraph
    >>> total = dpgraph.PrivacyLedger(epsilon=1.5, delta=1e-6)
    >>> G = nx.karate_club_graph()
    >>> res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None, ledger=total)
    >>> total.remaining[0] >= 0.5 - 1e-9
    True
    >>> dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None, ledger=total)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpgraph.privacy.ledger.PrivacyBudgetError: max_cut(epsilon=1, delta=1e-06) needs epsilon=1 but only ... of 1.5 is left (nothing was spent)
    """
    signature = inspect.signature(fn)
    parameters = list(signature.parameters.values())
    extra = inspect.Parameter("ledger", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="PrivacyLedger | None")
    has_kwargs = parameters and parameters[-1].kind is inspect.Parameter.VAR_KEYWORD
    parameters.insert(len(parameters) - 1 if has_kwargs else len(parameters), extra)

    @functools.wraps(fn)
    def wrapper(*args, ledger=None, **kwargs):
        _check_keywords(fn, signature, kwargs)
        if ledger is None:
            return fn(*args, **kwargs)
        if not isinstance(ledger, PrivacyLedger):
            raise TypeError(f"{fn.__name__}: ledger must be a dpgraph.PrivacyLedger (a running "
                            f"budget that the call's charges are recorded in), got "
                            f"{type(ledger).__name__}")
        if ledger._owner != os.getpid():
            raise PrivacyBudgetError(
                f"{fn.__name__}: this ledger belongs to process {ledger._owner}, and this call "
                f"runs in process {os.getpid()} (a worker of a process pool, or a ledger loaded "
                f"from a file): charges recorded in this copy would never reach the original, so "
                f"its total would not hold. In workers pass ledger=None and record each result "
                f"in the parent with total.extend(res.ledger); a ledger loaded to go on with a "
                f"saved budget: call ledger.claim() first. Nothing was spent.")
        epsilon = check_epsilon(kwargs.get("epsilon"))
        delta = check_delta(kwargs.get("delta", 0.0))
        name = f"{fn.__name__}(epsilon={epsilon:g}, delta={delta:g})"
        request = LedgerEntry(name=name, mechanism="reserved", epsilon=epsilon, delta=delta)
        with ledger._lock:  # check and reserve at once: concurrent calls cannot both pass
            try:
                ledger._check_entries([request])
            except PrivacyBudgetError as exc:
                raise PrivacyBudgetError(f"{exc} (nothing was spent)") from None
            ledger._reserved.append(request)
        charged: list = []
        token = _CHARGED.set(charged)
        result = None
        try:
            result = fn(*args, **kwargs)
        finally:
            _CHARGED.reset(token)
            with ledger._lock:
                ledger._reserved.remove(request)
                # on success the call's own ledger; on an error, whatever it charged before it
                # (a charge comes before its draw), so the total never misses a draw
                done = (list(result.ledger.entries) if result is not None
                        else _failed_call_charges(charged, request))
                ledger._entries.extend(done)
        if result is not None and result.ledger.reproducible:
            ledger.mark_reproducible(warn=False)
        return result

    wrapper.__signature__ = signature.replace(parameters=parameters)
    return wrapper
