"""Small argument checks shared by every mechanism (diffprivlib-style ``_check_*`` helpers)."""

from __future__ import annotations

import math


def check_epsilon(epsilon, *, name: str = "epsilon", allow_zero: bool = False) -> float:
    """Return ``epsilon`` as a float, or raise ValueError unless it is finite and > 0."""
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {epsilon!r}") from None
    if not math.isfinite(eps) or eps < 0 or (eps == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return eps


def check_delta(delta, *, name: str = "delta", allow_zero: bool = True) -> float:
    """Return ``delta`` as a float, or raise ValueError unless it lies in [0, 1) (or (0, 1))."""
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {delta!r}") from None
    if not (0.0 <= d < 1.0) or (d == 0 and not allow_zero):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {delta!r}")
    return d


def check_sensitivity(sensitivity, *, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float, or raise ValueError unless it is finite and > 0."""
    try:
        s = float(sensitivity)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {sensitivity!r}") from None
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {sensitivity!r}")
    return s
