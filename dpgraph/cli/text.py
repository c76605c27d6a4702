"""How the ``dpgraph`` command writes numbers in its text output: one style everywhere.

Counts and values of 1,000 or more are thousands-separated (``1,999,985``, never
``1.99998e+06``); smaller values keep six significant digits. An interval's ends are rounded
outward, so the printed interval always contains the computed one, and an interval of positive
width never prints as a point (more digits are shown where the rounding would merge its ends).
"""

from __future__ import annotations

import math

__all__ = ["number", "counted", "interval"]

_SIGNIFICANT = 6


def number(value) -> str:
    """``value`` as the command prints it.

    >>> number(1999985), number(1224451.6), number(61.54486), number(0.5), number(3.0)
    ('1,999,985', '1,224,452', '61.5449', '0.5', '3')
    >>> number(float("nan")), number(-12345.0), number(2.5e-07)
    ('nan', '-12,345', '2.5e-07')
    >>> number(1e308), number(2.0 ** 60)  # from 1e15 on: 6 significant digits, not 300
    ('1e+308', '1.15292e+18')
    """
    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if abs(v) >= 1e15:  # a float holds about 16 digits: commas would print up to 309 of them
        return f"{v:.{_SIGNIFICANT}g}"
    if abs(v) >= 1000 or v == int(v):
        return f"{v:,.0f}"
    return f"{v:.{_SIGNIFICANT}g}"


def counted(value, noun: str) -> str:
    """``value`` as :func:`number` prints it, then ``noun``, plural unless ``value`` is 1.

    >>> counted(1, "edge"), counted(0, "edge"), counted(30, "node"), counted(1500, "batch")
    ('1 edge', '0 edges', '30 nodes', '1,500 batches')
    """
    plural = noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{number(value)} {noun if value == 1 else plural}"


def _outward(value: float, step: float, up: bool) -> float:
    """``value`` rounded to a multiple of ``step``, up or down (never toward the inside)."""
    k = value / step
    r = math.ceil(k) if up else math.floor(k)
    if abs(round(k) - k) < 1e-6:  # a multiple up to float error: keep it, not a whole step
        r = round(k)
    return r * step


def _rounded(lo: float, hi: float, digits: int) -> tuple[str, str]:
    """The ends at ``digits`` significant digits of the larger end (from 1,000 on: whole
    numbers, and one more decimal per digit beyond the default), rounded outward."""
    top = max(abs(lo), abs(hi))
    exponent = math.floor(math.log10(top)) if top > 0 else 0
    if top >= 1000:  # whole numbers, as number() prints them; decimals only beyond that
        step = 10.0 ** (_SIGNIFICANT - digits)
    else:
        step = 10.0 ** (exponent - digits + 1)
    a, b = _outward(lo, step, up=False), _outward(hi, step, up=True)
    if step >= 1:
        return f"{a:,.0f}", f"{b:,.0f}"
    decimals = max(0, -int(math.floor(math.log10(step) + 1e-9)))
    fmt = lambda v: f"{v:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{v:,.0f}"  # noqa: E731
    return fmt(a), fmt(b)


def interval(lo, hi) -> str:
    """``[lo, hi]`` with both ends rounded outward; more digits where the rounding would print
    an interval of positive width as a point.

    >>> interval(6002.33, 6302.69), interval(0, 3), interval(2.99997, 3.00003)
    ('[6,002, 6,303]', '[0, 3]', '[2.99997, 3.00003]')
    >>> interval(1224450.2, 1224450.7), interval(0.0, 0.0)
    ('[1,224,450, 1,224,451]', '[0, 0]')
    >>> interval(3.0000001, 3.0000004), interval(1000.2, 1000.3)
    ('[3, 3.00001]', '[1,000, 1,001]')
    """
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"[{number(lo)}, {number(hi)}]"
    a, b = _rounded(lo, hi, _SIGNIFICANT)
    digits = _SIGNIFICANT
    while a == b and lo < hi and digits < 17:
        digits += 1
        a, b = _rounded(lo, hi, digits)
    return f"[{a}, {b}]"
