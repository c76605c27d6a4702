r"""Empirical privacy audits: a lower confidence bound on epsilon from a distinguishing event.

A mechanism ``M`` is (epsilon, delta)-DP on an adjacent pair ``(x0, x1)`` (adjacency is
symmetric: an edge added or removed) only if every event ``S`` of its output satisfies

.. math:: P[M(x_a) \in S] \le e^{\varepsilon} P[M(x_b) \in S] + \delta
          \quad\text{for } (a, b) = (0, 1), (1, 0),

and the same for the complement ``S^c``. Run ``M`` many times on each input, count how often
``S`` happens, and bound ``p_b = P[M(x_b) \in S]`` by one-sided Clopper-Pearson intervals
``L_b <= p_b <= U_b`` (Clopper & Pearson 1934), each at level ``1 - (1 - confidence)/4``, so
that all four hold together with probability at least ``confidence`` (Bonferroni). On that
event each of

.. math:: \ln\frac{L_1 - \delta}{U_0},\quad \ln\frac{L_0 - \delta}{U_1},\quad
          \ln\frac{1 - U_1 - \delta}{1 - L_0},\quad \ln\frac{1 - U_0 - \delta}{1 - L_1}

is at most the true epsilon (at the claimed delta); their maximum is the reported lower bound
(``eps_lb = log((p1_lower - delta) / p0_upper)`` in the usual orientation). This is the statistical DP test of Ding et al. (CCS 2018) and the
distinguishing audits of Jagielski, Ullman & Oprea (NeurIPS 2020) and DP-Auditorium
(Kong et al. 2024), specialised to one event. An audit never proves a mechanism private; a
bound above the claimed epsilon proves it is not (up to the 1 - confidence error).

How close ``epsilon_lower_bound`` gets to the claim measures the audit's power: for a mechanism
with a known tight event (randomized response: the released bit; Laplace and Gaussian: a
threshold at the likelihood-ratio level, :func:`plan_threshold`) it approaches the claim as the
run count grows. ``docs/audit.md`` gives the adjacent pairs and events used on dpgraph's own
mechanisms and ``benchmarks/bench_audit.py`` runs them.

Examples
--------
Randomized response on one bit, vectorised (``size`` draws per call):

>>> import numpy as np
>>> from dpgraph.lab.audit import audit_event
>>> def rr(bit, rng, size):
...     flip = rng.random(size) < 1 / (1 + np.e)          # epsilon = 1
...     return np.where(flip, 1 - bit, bit)
>>> res = audit_event(rr, (0, 1), lambda out: out == 1, epsilon=1.0, runs=200_000,
...                   vectorized=True, rng=0, mechanism_name="randomized response")
>>> 0.9 < res.epsilon_lower_bound <= 1.0
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from dpgraph.privacy import make_rng

__all__ = ["AuditResult", "clopper_pearson_lower", "clopper_pearson_upper",
           "epsilon_lower_bound", "audit_event", "audit_threshold", "plan_threshold",
           "choose_threshold", "run_mechanism", "audit_thresholds"]

#: Largest number of outputs drawn at once by a vectorised mechanism.
CHUNK = 1 << 18


def clopper_pearson_lower(k: int, n: int, level: float) -> float:
    """One-sided lower Clopper-Pearson bound: ``P[p >= bound] >= level`` for ``k`` successes in
    ``n`` trials (the ``1 - level`` quantile of ``Beta(k, n - k + 1)``; 0 when ``k = 0``).

    >>> round(clopper_pearson_lower(50, 100, 0.975), 4)
    0.3983
    """
    k, n = _check_trials(k, n, level)
    return 0.0 if k == 0 else float(stats.beta.ppf(1.0 - level, k, n - k + 1))


def clopper_pearson_upper(k: int, n: int, level: float) -> float:
    """One-sided upper Clopper-Pearson bound: ``P[p <= bound] >= level`` (the ``level`` quantile
    of ``Beta(k + 1, n - k)``; 1 when ``k = n``).

    >>> round(clopper_pearson_upper(0, 100, 0.95), 4)
    0.0295
    """
    k, n = _check_trials(k, n, level)
    return 1.0 if k == n else float(stats.beta.ppf(level, k + 1, n - k))


def _check_trials(k, n, level) -> tuple[int, int]:
    """``(k, n)`` as Python ints, refused (a ValueError naming the parameter) unless ``n`` is
    a whole number >= 1, ``k`` a whole number in ``[0, n]`` and ``level`` a number in
    ``(0, 1)`` (a Beta quantile outside it is NaN; a fractional count is no count)."""
    def whole(x):
        return (not isinstance(x, bool) and isinstance(x, (int, float, np.integer, np.floating))
                and math.isfinite(x) and float(x).is_integer())

    if not whole(n) or n < 1:
        raise ValueError(f"n (the number of trials) must be an integer >= 1, got {n!r}")
    if not whole(k) or not 0 <= k <= n:
        raise ValueError(f"k (the number of successes) must be an integer in [0, n = {int(n)}], "
                         f"got {k!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)) \
            or not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    return int(k), int(n)


_ORIENTATIONS = ("P1[S] / P0[S]", "P0[S] / P1[S]", "P1[not S] / P0[not S]",
                 "P0[not S] / P1[not S]")


def _four_bounds(k0, n0, k1, n1, delta, level, min_den=0):
    """``(epsilon, orientation, numerator lower bound, denominator upper bound)`` for the four
    orientations; an orientation whose denominator event was seen fewer than ``min_den`` times
    is left out (used when planning from plug-in frequencies)."""
    lo0, hi0 = clopper_pearson_lower(k0, n0, level), clopper_pearson_upper(k0, n0, level)
    lo1, hi1 = clopper_pearson_lower(k1, n1, level), clopper_pearson_upper(k1, n1, level)
    cases = ((lo1, hi0, k0), (lo0, hi1, k1), (1.0 - hi1, 1.0 - lo0, n0 - k0),
             (1.0 - hi0, 1.0 - lo1, n1 - k1))
    out = []
    for name, (num, den, seen) in zip(_ORIENTATIONS, cases):
        if seen < min_den:
            continue
        eps = math.log((num - delta) / den) if num > delta and den > 0 else -math.inf
        out.append((eps, name, num, den))
    return out


def epsilon_lower_bound(k0: int, n0: int, k1: int, n1: int, *, delta: float = 0.0,
                        confidence: float = 0.95) -> dict:
    """Lower confidence bound on epsilon from event counts ``k0`` of ``n0`` runs on ``x0`` and
    ``k1`` of ``n1`` runs on ``x1``.

    The adjacency is symmetric (``x0 ~ x1`` both ways, as for adding or removing an edge), so
    the event and its complement each bound epsilon in both orders: four ratios, computed from
    one-sided Clopper-Pearson bounds ``L_b <= P_b[S] <= U_b`` (``b = 0, 1``), each at level
    ``1 - (1 - confidence)/4`` so that all four hold together with probability
    ``>= confidence`` (Bonferroni); on that event every ratio, e.g.
    ``(L_1 - delta) / U_0 <= (P_1[S] - delta) / P_0[S] <= e^epsilon``, is a valid bound.

    Returns a dict: ``epsilon`` (the largest, ``max(0, .)``), ``direction`` (which ratio),
    ``p_lower`` and ``p_upper`` (its numerator's lower and denominator's upper bound).

    >>> out = epsilon_lower_bound(2689, 10_000, 7311, 10_000, confidence=0.95)
    >>> round(out["epsilon"], 3), out["direction"]
    (0.95, 'P1[S] / P0[S]')
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not 0 <= delta < 1 or not math.isfinite(delta):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    level = 1.0 - (1.0 - confidence) / 4.0
    best = max(_four_bounds(k0, n0, k1, n1, delta, level), key=lambda c: c[0])
    return {"epsilon": max(best[0], 0.0), "direction": best[1], "p_lower": best[2],
            "p_upper": best[3]}


@dataclass(repr=False)
class AuditResult:
    """Result of an audit: the lower confidence bound on epsilon and what produced it.

    Attributes
    ----------
    mechanism, pair, event : str
        What was run, on which adjacent inputs, and the distinguishing event ``S``.
    runs : int
        Runs per input (the same on both).
    counts : tuple of int
        How often ``S`` happened on ``x0`` and on ``x1``.
    claimed_epsilon, claimed_delta : float
        The guarantee under audit (``claimed_delta`` enters the bound).
    confidence : float
        ``P[epsilon_lower_bound <= true epsilon] >= confidence``.
    epsilon_lower_bound : float
        The bound (0 when the event shows nothing).
    direction : str
        Which orientation gave it; ``p_lower`` and ``p_upper`` are its two probability bounds.
    seconds : float
        Wall-clock time of the runs.
    details : dict
        Anything else (e.g. the threshold and how it was chosen).
    """

    mechanism: str
    pair: str
    event: str
    runs: int
    counts: tuple
    claimed_epsilon: float
    claimed_delta: float
    confidence: float
    epsilon_lower_bound: float
    direction: str
    p_lower: float
    p_upper: float
    seconds: float
    details: dict = field(default_factory=dict)

    @property
    def fraction(self) -> float:
        """``epsilon_lower_bound / claimed_epsilon`` (how much of the claim the audit reached)."""
        return self.epsilon_lower_bound / self.claimed_epsilon if self.claimed_epsilon else math.inf

    @property
    def violated(self) -> bool:
        """True when the bound exceeds the claimed epsilon: evidence the mechanism is not
        (claimed_epsilon, claimed_delta)-DP on this pair (at level ``confidence``)."""
        return self.epsilon_lower_bound > self.claimed_epsilon

    def row(self) -> dict:
        """One table row: mechanism, pair, runs, event, claimed epsilon, bound, time."""
        return {"mechanism": self.mechanism, "pair": self.pair, "runs": self.runs,
                "event": self.event, "claimed": self.claimed_epsilon,
                "delta": self.claimed_delta, "lower_bound": self.epsilon_lower_bound,
                "fraction": self.fraction, "seconds": self.seconds}

    def __repr__(self) -> str:
        flag = "  VIOLATION" if self.violated else ""
        return (f"AuditResult({self.mechanism!r}: epsilon >= {self.epsilon_lower_bound:.4g} at "
                f"{self.confidence:.0%} confidence, claimed ({self.claimed_epsilon:.4g}, "
                f"{self.claimed_delta:.3g}) -> {self.fraction:.1%} reached; runs={self.runs} per "
                f"input, counts={self.counts}, event={self.event!r}, pair={self.pair!r}){flag}")


def _check_runs(runs, name="runs") -> int:
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ValueError(f"{name} must be a positive integer, got {runs!r}")
    return int(runs)


def run_mechanism(mechanism: Callable, x, runs: int, rng, *, vectorized: bool = False,
                  reduce: Callable | None = None) -> list | np.ndarray:
    """``runs`` outputs of ``mechanism`` on ``x``, each passed through ``reduce`` (if given).

    ``vectorized=False``: ``mechanism(x, rng)`` returns one output. ``vectorized=True``:
    ``mechanism(x, rng, size)`` returns ``size`` outputs stacked along the first axis (drawn in
    chunks of at most :data:`CHUNK`) and ``reduce`` maps such a stack to an array.

    Returns a list of the outputs (not vectorised, no ``reduce``), else an array of ``runs``
    entries along its first axis. ``rng`` is one stream for every run (None, a seed or a
    :class:`numpy.random.Generator`).

    Examples
    --------
    >>> import numpy as np
    >>> def noisy(x, rng):                          # one output per call
    ...     return x + rng.laplace()
    >>> outs = run_mechanism(noisy, 5.0, 3, rng=0)
    >>> type(outs).__name__, len(outs)
    ('list', 3)
    >>> def noisy_many(x, rng, size):               # vectorised: size outputs per call
    ...     return x + rng.laplace(size=size)
    >>> hits = run_mechanism(noisy_many, 5.0, 1000, 0, vectorized=True,
    ...                      reduce=lambda out: out > 5.0)
    >>> hits.shape, hits.dtype.name, 400 < int(hits.sum()) < 600  # about half above 5
    ((1000,), 'bool', True)
    """
    runs = _check_runs(runs)
    gen = make_rng(rng)
    if vectorized:
        parts = []
        done = 0
        while done < runs:
            size = min(CHUNK, runs - done)
            out = mechanism(x, gen, size)
            parts.append(np.asarray(out if reduce is None else reduce(out)))
            done += size
        return np.concatenate(parts)
    outs = [mechanism(x, gen) for _ in range(runs)]
    return outs if reduce is None else np.asarray([reduce(o) for o in outs])


def _label(value, default: str) -> str:
    return default if value is None else str(value)


def audit_event(mechanism: Callable, pair: Sequence, event: Callable, *, epsilon: float,
                delta: float = 0.0, runs: int = 10_000, confidence: float = 0.95, rng=None,
                vectorized: bool = False, mechanism_name: str | None = None,
                pair_name: str | None = None, event_name: str | None = None) -> AuditResult:
    """Audit ``mechanism`` on the adjacent pair ``(x0, x1)`` with a fixed event.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, rng) -> output`` (or ``mechanism(x, rng, size)`` with ``vectorized``),
        drawing all its randomness from ``rng`` (a :class:`numpy.random.Generator`).
    pair : (x0, x1)
        Two adjacent inputs, in whatever form ``mechanism`` takes.
    event : callable
        ``event(output) -> bool`` (with ``vectorized``: a stack of outputs -> boolean array). It
        must be fixed before the runs (choose a threshold on separate runs:
        :func:`audit_threshold`).
    epsilon, delta : float
        The claimed guarantee; ``delta`` enters the bound.
    runs : int
        Runs per input.
    confidence : float
        Level of the lower bound (default 95%).
    rng : None, int or Generator
        One stream for all runs (x0's runs first).
    vectorized : bool
    mechanism_name, pair_name, event_name : str, optional
        Labels for the result.

    Returns
    -------
    AuditResult
        ``epsilon_lower_bound`` (0 when the event tells nothing), ``counts`` (how often the
        event happened on ``x0`` and on ``x1``), ``violated`` (the bound exceeds the claim).

    Examples
    --------
    Randomized response that claims epsilon = 1 but flips a bit with probability
    ``1 / (1 + e^2)``, so is only 2-DP: the audit catches it.

    >>> import numpy as np
    >>> def leaky(bit, rng, size):
    ...     flip = rng.random(size) < 1 / (1 + np.exp(2.0))
    ...     return np.where(flip, 1 - bit, bit)
    >>> res = audit_event(leaky, (0, 1), lambda out: out == 1, epsilon=1.0, runs=20_000,
    ...                   vectorized=True, rng=0)
    >>> k0, k1 = res.counts                          # the event's count on x0 and on x1
    >>> res.violated, res.epsilon_lower_bound > 1.5, k1 > 5 * k0
    (True, True, True)

    Not vectorised: ``mechanism(x, rng)`` returns one output, ``event`` reads one.

    >>> def honest(bit, rng):                        # epsilon = 1
    ...     return 1 - bit if rng.random() < 1 / (1 + np.e) else bit
    >>> res = audit_event(honest, (0, 1), lambda out: out == 1, epsilon=1.0, runs=5_000, rng=0)
    >>> res.violated, 0.5 < res.epsilon_lower_bound <= 1.0
    (False, True)
    """
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon (the claim under audit) must be a finite number > 0, "
                         f"got {epsilon!r}")
    if len(pair) != 2:
        raise ValueError(f"pair must hold two adjacent inputs, got {len(pair)}")
    runs = _check_runs(runs)
    gen = make_rng(rng)
    t0 = time.perf_counter()
    hits = [run_mechanism(mechanism, x, runs, gen, vectorized=vectorized,
                          reduce=event).astype(bool) for x in pair]
    seconds = time.perf_counter() - t0
    k0, k1 = (int(np.count_nonzero(h)) for h in hits)
    bound = epsilon_lower_bound(k0, runs, k1, runs, delta=delta, confidence=confidence)
    return AuditResult(
        mechanism=_label(mechanism_name, getattr(mechanism, "__name__", "mechanism")),
        pair=_label(pair_name, "(x0, x1)"),
        event=_label(event_name, getattr(event, "__name__", "event")), runs=runs,
        counts=(k0, k1), claimed_epsilon=epsilon, claimed_delta=float(delta),
        confidence=float(confidence), epsilon_lower_bound=bound["epsilon"],
        direction=bound["direction"], p_lower=bound["p_lower"], p_upper=bound["p_upper"],
        seconds=seconds)


def _expected_bound(q0, q1, runs: int, delta: float, confidence: float,
                    min_count: int = 0) -> np.ndarray:
    """The bound that event probabilities ``q0``, ``q1`` (arrays over candidate thresholds)
    would give at ``runs`` runs if the counts came out at their expectations. Orientations
    whose denominator event would be seen fewer than ``min_count`` times are left out."""
    q0, q1 = np.atleast_1d(q0).astype(float), np.atleast_1d(q1).astype(float)
    level = 1.0 - (1.0 - confidence) / 4.0
    out = np.full(q0.shape, -np.inf)
    for k in range(q0.size):
        k0, k1 = int(round(q0[k] * runs)), int(round(q1[k] * runs))
        found = _four_bounds(k0, runs, k1, runs, delta, level, min_den=min_count)
        if found:
            out[k] = max(c[0] for c in found)
    return out


def plan_threshold(sf0: Callable, sf1: Callable, candidates, *, runs: int, delta: float = 0.0,
                   confidence: float = 0.95) -> tuple[float, float]:
    """The threshold ``t`` (among ``candidates``) whose event ``{statistic > t}`` gives the
    largest expected bound at ``runs`` runs, from the *known* output distributions: ``sf0(t)``
    and ``sf1(t)`` are the statistic's survival functions under ``x0`` and ``x1``.

    For the Laplace and Gaussian mechanisms the likelihood ratio is monotone in the released
    value, so these events are the likelihood-ratio tests (Neyman-Pearson); planning picks the
    level whose probabilities are large enough to be estimated from ``runs`` runs. Chosen before
    any run: no selection bias. Returns ``(t, expected bound)``.

    >>> from scipy import stats
    >>> t, e = plan_threshold(stats.laplace(0, 1).sf, stats.laplace(1, 1).sf,
    ...                       [0.5, 1.0, 2.0], runs=100_000)
    >>> t
    1.0
    """
    cand = np.asarray(candidates, dtype=np.float64)
    q0 = np.array([sf0(t) for t in cand], dtype=np.float64)
    q1 = np.array([sf1(t) for t in cand], dtype=np.float64)
    bounds = _expected_bound(q0, q1, _check_runs(runs), delta, confidence)
    k = int(np.argmax(bounds))
    return float(cand[k]), float(bounds[k])


def choose_threshold(s0: np.ndarray, s1: np.ndarray, *, runs: int, delta: float = 0.0,
                     confidence: float = 0.95, grid: int = 400,
                     min_count: int = 10) -> tuple[float, float]:
    """Choose ``t`` for the event ``{statistic > t}`` from *calibration* samples ``s0``, ``s1``
    of the statistic under ``x0`` and ``x1``: the candidate (quantiles of the pooled sample)
    whose empirical frequencies would give the largest bound at ``runs`` fresh runs. Events seen
    fewer than ``min_count`` times on either side (in the orientation used) are not trusted.
    Returns ``(t, predicted bound)``; the audit itself must use fresh runs. The prediction is a
    plug-in from the calibration frequencies, tuned on them: it may exceed the true epsilon,
    which the fresh runs' bound does not (at level ``confidence``).

    Examples
    --------
    Choose the event for the Laplace mechanism (epsilon = 1) on calibration runs, then audit
    it on fresh ones:

    >>> import numpy as np
    >>> def laplace(x, rng, size):
    ...     return x + rng.laplace(0.0, 1.0, size)
    >>> gen = np.random.default_rng(0)
    >>> s0, s1 = laplace(0.0, gen, 10_000), laplace(1.0, gen, 10_000)
    >>> t, predicted = choose_threshold(s0, s1, runs=50_000)
    >>> 0.5 < predicted < 1.5
    True
    >>> res = audit_threshold(laplace, (0.0, 1.0), epsilon=1.0, runs=50_000, threshold=t,
    ...                       vectorized=True, rng=1)
    >>> res.violated, 0.5 < res.epsilon_lower_bound <= 1.0
    (False, True)
    """
    s0 = np.sort(np.asarray(s0, dtype=np.float64))
    s1 = np.sort(np.asarray(s1, dtype=np.float64))
    pooled = np.concatenate([s0, s1])
    cand = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, grid)))
    c0 = s0.size - np.searchsorted(s0, cand, side="right")  # counts of {s > t}
    c1 = s1.size - np.searchsorted(s1, cand, side="right")
    q0, q1 = c0 / s0.size, c1 / s1.size
    # a plug-in frequency of 0 in a denominator would predict an infinite bound: scale the
    # calibration's min_count to the final run count
    need = min_count * runs / min(s0.size, s1.size)
    bounds = _expected_bound(q0, q1, _check_runs(runs), delta, confidence, min_count=need)
    if not np.isfinite(bounds).any():
        return float(np.median(pooled)), 0.0
    k = int(np.argmax(bounds))
    return float(cand[k]), float(max(bounds[k], 0.0))


def audit_thresholds(mechanism: Callable, pair: Sequence, statistics: dict, *, epsilon: float,
                     delta: float = 0.0, runs: int = 10_000,
                     calibration_runs: int | None = None, thresholds: dict | None = None,
                     confidence: float = 0.95, rng=None, vectorized: bool = False,
                     mechanism_name: str | None = None,
                     pair_name: str | None = None) -> dict:
    """Audit with several threshold events ``{statistic(output) > t}`` on the same runs.

    ``statistics`` maps a name to a function of one output (with ``vectorized``, of a stack of
    outputs) returning a number. Each statistic's threshold is ``thresholds[name]`` if given
    (e.g. from :func:`plan_threshold` on a known distribution); otherwise it is chosen by
    :func:`choose_threshold` on the first ``calibration_runs`` runs per input (default
    ``runs // 4``), and its bound comes from the ``runs`` runs after them, so the choice does
    not bias it. The mechanism runs once per run whatever the number of statistics; each
    result's bound holds at ``confidence`` on its own (not simultaneously). Returns
    ``{name: AuditResult}``.

    Examples
    --------
    Two statistics of one Laplace release (epsilon = 1), the second with a threshold fixed in
    advance:

    >>> def laplace(x, rng, size):
    ...     return x + rng.laplace(0.0, 1.0, size)
    >>> out = audit_thresholds(laplace, (0.0, 1.0), {"up": lambda o: o, "down": lambda o: -o},
    ...                        epsilon=1.0, runs=20_000, thresholds={"down": -1.0},
    ...                        vectorized=True, rng=0)
    >>> sorted(out), [out[k].violated for k in sorted(out)]
    (['down', 'up'], [False, False])
    >>> out["down"].event, out["up"].details["calibration_runs"]
    ('down > -1 (fixed in advance)', 5000)
    """
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon (the claim under audit) must be a finite number > 0, "
                         f"got {epsilon!r}")
    if len(pair) != 2:
        raise ValueError(f"pair must hold two adjacent inputs, got {len(pair)}")
    if not statistics:
        raise ValueError("statistics must name at least one statistic")
    runs = _check_runs(runs)
    thresholds = dict(thresholds or {})
    need_cal = any(name not in thresholds for name in statistics)
    cal = 0
    if need_cal:
        cal = _check_runs(calibration_runs if calibration_runs is not None
                          else max(runs // 4, 1), "calibration_runs")
    names = list(statistics)

    def reduce(out):
        if vectorized:
            return np.stack([np.asarray(statistics[k](out), dtype=np.float64) for k in names],
                            axis=1)
        return np.array([float(statistics[k](out)) for k in names])

    gen = make_rng(rng)
    t0 = time.perf_counter()
    samples = [np.asarray(run_mechanism(mechanism, x, cal + runs, gen, vectorized=vectorized,
                                        reduce=reduce), dtype=np.float64).reshape(cal + runs, -1)
               for x in pair]
    seconds = time.perf_counter() - t0
    results = {}
    for c, name in enumerate(names):
        s0, s1 = samples[0][:, c], samples[1][:, c]
        if name in thresholds:
            t, how, predicted = float(thresholds[name]), "fixed in advance", None
        else:
            t, predicted = choose_threshold(s0[:cal], s1[:cal], runs=runs, delta=delta,
                                            confidence=confidence)
            how = f"chosen on {cal} calibration runs"
        k0 = int(np.count_nonzero(s0[cal:] > t))
        k1 = int(np.count_nonzero(s1[cal:] > t))
        bound = epsilon_lower_bound(k0, runs, k1, runs, delta=delta, confidence=confidence)
        results[name] = AuditResult(
            mechanism=_label(mechanism_name, getattr(mechanism, "__name__", "mechanism")),
            pair=_label(pair_name, "(x0, x1)"), event=f"{name} > {t:.6g} ({how})", runs=runs,
            counts=(k0, k1), claimed_epsilon=epsilon, claimed_delta=float(delta),
            confidence=float(confidence), epsilon_lower_bound=bound["epsilon"],
            direction=bound["direction"], p_lower=bound["p_lower"], p_upper=bound["p_upper"],
            seconds=seconds,
            details={"threshold": t, "calibration_runs": cal, "predicted_bound": predicted})
    return results


def audit_threshold(mechanism: Callable, pair: Sequence, statistic: Callable | None = None, *,
                    epsilon: float, delta: float = 0.0, runs: int = 10_000,
                    calibration_runs: int | None = None, threshold: float | None = None,
                    confidence: float = 0.95, rng=None, vectorized: bool = False,
                    mechanism_name: str | None = None, pair_name: str | None = None,
                    statistic_name: str | None = None) -> AuditResult:
    """Audit with the event ``{statistic(output) > t}``: :func:`audit_thresholds` with one
    statistic (None: the output is the number). ``t`` is ``threshold`` if given, else chosen on
    ``calibration_runs`` separate runs per input (default ``runs // 4``).

    Examples
    --------
    >>> import numpy as np
    >>> def laplace(x, rng, size):                       # epsilon = 1, sensitivity 1
    ...     return x + rng.laplace(0.0, 1.0, size)
    >>> res = audit_threshold(laplace, (0.0, 1.0), epsilon=1.0, runs=100_000,
    ...                       vectorized=True, rng=1)
    >>> 0.8 < res.epsilon_lower_bound <= 1.0
    True
    """
    stat = statistic if statistic is not None else (lambda out: out)
    name = _label(statistic_name, getattr(statistic, "__name__", "output")
                  if statistic is not None else "output")
    out = audit_thresholds(mechanism, pair, {name: stat}, epsilon=epsilon, delta=delta,
                           runs=runs, calibration_runs=calibration_runs,
                           thresholds=None if threshold is None else {name: threshold},
                           confidence=confidence, rng=rng, vectorized=vectorized,
                           mechanism_name=mechanism_name, pair_name=pair_name)
    return out[name]
