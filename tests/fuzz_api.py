"""Fuzzing harness for the public API's argument checks.

Each case calls one public function with valid arguments except one, replaced by a drawn value
(NaN, infinities, huge and negative numbers, zero, booleans, strings, None, containers,
complex numbers, numpy scalars and arrays). The contract: the call returns, or raises
``ValueError`` / ``TypeError`` whose message names the argument (or
:class:`~dpgraph.privacy.PrivacyBudgetError` when a primitive is asked to spend more than its
ledger holds: the documented refusal); nothing else escapes and no call runs longer than
:data:`TIME_LIMIT` seconds.
"""

from __future__ import annotations

import math
import signal
import warnings

import networkx as nx
import numpy as np
from hypothesis import strategies as st

import dpgraph
from dpgraph.privacy import (PrivacyBudgetError, PrivacyLedger, gaussian_mechanism,
                             laplace_mechanism)

__all__ = ["CASES", "TIME_LIMIT", "bad_values", "check_call", "warm_up"]

TIME_LIMIT = 5.0

_G = nx.Graph(nx.karate_club_graph().edges())
_V = np.random.default_rng(0).standard_normal((6, 3))
_X = (np.random.default_rng(1).random((20, 4)) < 0.5).astype(float)


def _ledger():
    return PrivacyLedger(epsilon=10.0, delta=1e-3)


#: name -> (function, valid keyword arguments, the arguments fuzzed)
CASES = {
    "privatize": (lambda **kw: dpgraph.privatize(_G, **kw),
                  dict(epsilon=2.0, delta=1e-6, rank=2, rng=0),
                  ["epsilon", "delta", "rank", "rng", "degree_share", "tail_share", "core_share",
                   "screen_share", "route", "fallback", "projection", "rr_postprocess",
                   "regularization"]),
    "max_cut": (lambda **kw: dpgraph.max_cut(_G, **kw),
                dict(epsilon=2.0, delta=1e-6, rank=2, rng=0),
                ["epsilon", "delta", "rank", "rng", "estimate_share", "select_share", "kappa",
                 "candidates"]),
    "cosine": (lambda **kw: dpgraph.private_cosine_similarities(_V, **kw),
               dict(epsilon=1.0, delta=1e-6, rng=0),
               ["epsilon", "delta", "sensitivity", "method", "rank", "rng"]),
    "kway_marginals": (lambda **kw: dpgraph.kway_marginals(_X, **kw),
                       dict(k=2, epsilon=1.0, delta=1e-6, rng=0),
                       ["k", "epsilon", "delta", "sparsity", "rng"]),
    "jl_two_way_marginals": (lambda **kw: dpgraph.jl_two_way_marginals(_X, **kw),
                             dict(epsilon=1.0, delta=1e-6, jl_dim=8, rng=0),
                             ["epsilon", "delta", "jl_dim", "sparsity", "noise", "jl", "lift",
                              "rng"]),
    "laplace_mechanism": (lambda **kw: laplace_mechanism(1.0, ledger=_ledger(), name="x", **kw),
                          dict(sensitivity=1.0, epsilon=1.0, rng=0),
                          ["sensitivity", "epsilon", "rng"]),
    "gaussian_mechanism": (lambda **kw: gaussian_mechanism(1.0, ledger=_ledger(), name="x", **kw),
                           dict(sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0),
                           ["sensitivity", "epsilon", "delta", "rng"]),
}


def bad_values() -> st.SearchStrategy:
    """Values an argument should be checked against."""
    return st.one_of(
        st.sampled_from([math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, -1.0, 1e308, -1e308,
                         5e-324, 2**63, 2**64, -(2**63), 10**30, True, False, None, "", "1",
                         "auto", "nan", [], [1.0], {}, (1, 2), 1j, np.float64("nan"),
                         np.int64(-5), np.array([1.0, 2.0]), np.array(3.0), object()]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(10**20), 10**20),
        st.text(max_size=20),
    )


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


_WARM: set = set()


def warm_up(case: str) -> None:
    """Call ``CASES[case]`` once with its valid arguments, outside the time limit: the first
    call compiles numba kernels (the tabu search of max_cut), which in a fresh checkout took
    over 5 s under load and was reported as a hang of whatever argument came first."""
    if case not in _WARM:
        func, valid, _ = CASES[case]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            func(**valid)
        _WARM.add(case)


def check_call(case: str, argument: str, value) -> str:
    """Call ``CASES[case]`` with ``argument=value``; return ``"ok"`` or the exception name, or
    raise AssertionError on a contract violation. The case is warmed up first
    (:func:`warm_up`), so the time limit applies to the call, not to one-off compilation."""
    warm_up(case)
    func, valid, _ = CASES[case]
    kw = dict(valid, **{argument: value})
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            func(**kw)
        return "ok"
    except Hang:
        raise AssertionError(f"{case}({argument}={value!r}) ran longer than {TIME_LIMIT} s") \
            from None
    except PrivacyBudgetError as exc:
        if "needs epsilon" not in str(exc) and "needs delta" not in str(exc):
            raise AssertionError(f"{case}({argument}={value!r}): {exc}") from exc
        return "PrivacyBudgetError"
    except (ValueError, TypeError) as exc:
        if argument not in str(exc):
            raise AssertionError(f"{case}({argument}={value!r}): {type(exc).__name__} does not "
                                 f"name the argument: {exc}") from exc
        return type(exc).__name__
    except BaseException as exc:  # noqa: BLE001 -- anything else is the finding
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AssertionError(f"{case}({argument}={value!r}): {type(exc).__name__} escaped: "
                             f"{exc!r}") from exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
