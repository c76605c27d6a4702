"""Privacy budget and ledger: every noise draw is recorded here before it happens.

Accounting is basic (sequential) composition: running mechanisms that are
``(eps_i, delta_i)``-DP on the same input is ``(sum eps_i, sum delta_i)``-DP
(Dwork & Roth, Thm 3.16). Halting steps (propose-test-release) record their failure
probability as a ``delta`` charge of their own, as the composition lemma requires.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ._validate import check_delta, check_epsilon

__all__ = ["PrivacyBudgetError", "LedgerEntry", "PrivacyLedger"]

# Relative slack when comparing spent and total budget, so that splitting a budget into
# floating-point fractions that sum to it does not raise.
_REL_TOL = 1e-9


class PrivacyBudgetError(RuntimeError):
    """Raised, before any noise is drawn, when a charge would exceed the ledger's budget."""


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


class PrivacyLedger:
    """A total (epsilon, delta) budget and the list of charges against it.

    Parameters
    ----------
    epsilon, delta : float or None
        Total budget. ``None`` means unlimited (the ledger only records).

    Examples
    --------
    >>> ledger = PrivacyLedger(epsilon=1.0, delta=1e-6)
    >>> _ = ledger.charge("degrees", mechanism="gaussian", epsilon=0.25, delta=2.5e-7,
    ...                   sensitivity=1.414, sensitivity_norm="l2", noise_scale=9.1)
    >>> ledger.remaining
    (0.75, 7.5e-07)
    """

    def __init__(self, epsilon: float | None = None, delta: float | None = None):
        self.epsilon = None if epsilon is None else check_epsilon(epsilon)
        self.delta = None if delta is None else check_delta(delta)
        self._entries: list[LedgerEntry] = []

    # -- state
    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        return tuple(self._entries)

    @property
    def spent(self) -> tuple[float, float]:
        """(epsilon, delta) spent so far under basic composition."""
        return (math.fsum(e.epsilon for e in self._entries), math.fsum(e.delta for e in self._entries))

    @property
    def remaining(self) -> tuple[float, float]:
        """(epsilon, delta) left; ``inf`` for an unlimited component."""
        eps, dlt = self.spent
        return (math.inf if self.epsilon is None else max(self.epsilon - eps, 0.0),
                math.inf if self.delta is None else max(self.delta - dlt, 0.0))

    # -- charging
    def check(self, epsilon: float, delta: float, *, name: str = "charge") -> None:
        """Raise :class:`PrivacyBudgetError` if spending (epsilon, delta) would exceed the budget."""
        eps, dlt = self.spent
        if self.epsilon is not None and eps + epsilon > self.epsilon * (1 + _REL_TOL):
            raise PrivacyBudgetError(
                f"{name} needs epsilon={epsilon:g} but only {max(self.epsilon - eps, 0):g} of "
                f"{self.epsilon:g} is left")
        if self.delta is not None and dlt + delta > self.delta * (1 + _REL_TOL) + 1e-300:
            raise PrivacyBudgetError(
                f"{name} needs delta={delta:g} but only {max(self.delta - dlt, 0):g} of "
                f"{self.delta:g} is left")

    def charge(self, name: str, *, mechanism: str, epsilon: float, delta: float = 0.0,
               sensitivity: float | None = None, sensitivity_norm: str | None = None,
               noise_scale: float | None = None, note: str = "") -> LedgerEntry:
        """Record a charge; raises :class:`PrivacyBudgetError` (recording nothing) if over budget.

        Call this *before* drawing the noise it pays for.
        """
        epsilon = check_epsilon(epsilon, name=f"{name}: epsilon", allow_zero=True)
        delta = check_delta(delta, name=f"{name}: delta")
        self.check(epsilon, delta, name=name)
        entry = LedgerEntry(name=name, mechanism=mechanism, epsilon=epsilon, delta=delta,
                            sensitivity=None if sensitivity is None else float(sensitivity),
                            sensitivity_norm=sensitivity_norm,
                            noise_scale=None if noise_scale is None else float(noise_scale),
                            note=note)
        self._entries.append(entry)
        return entry

    def extend(self, other: "PrivacyLedger") -> None:
        """Record every charge of ``other`` here (checking this ledger's budget)."""
        for e in other.entries:
            self.check(e.epsilon, e.delta, name=e.name)
            self._entries.append(e)

    # -- reporting
    def to_dict(self) -> dict:
        eps, dlt = self.spent
        return {"budget": {"epsilon": self.epsilon, "delta": self.delta},
                "spent": {"epsilon": eps, "delta": dlt},
                "entries": [asdict(e) for e in self._entries]}

    def report(self) -> str:
        """A plain-text table of the charges and the totals."""
        head = ("step", "mechanism", "epsilon", "delta", "sensitivity", "noise scale")
        rows = [head]
        for e in self._entries:
            sens = "" if e.sensitivity is None else f"{e.sensitivity:.4g} ({e.sensitivity_norm or '?'})"
            rows.append((e.name, e.mechanism, f"{e.epsilon:.4g}", f"{e.delta:.3g}", sens,
                         "" if e.noise_scale is None else f"{e.noise_scale:.4g}"))
        eps, dlt = self.spent
        rows.append(("total", "basic composition", f"{eps:.4g}", f"{dlt:.3g}", "", ""))
        if self.epsilon is not None or self.delta is not None:
            rows.append(("budget", "", "inf" if self.epsilon is None else f"{self.epsilon:.4g}",
                         "inf" if self.delta is None else f"{self.delta:.3g}", "", ""))
        widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __repr__(self) -> str:
        eps, dlt = self.spent
        return (f"PrivacyLedger(spent=(epsilon={eps:.4g}, delta={dlt:.3g}), "
                f"budget=(epsilon={self.epsilon}, delta={self.delta}), entries={len(self._entries)})")
