"""Small argument checks shared by every mechanism (diffprivlib-style ``_check_*`` helpers)."""

from __future__ import annotations

import math

import numpy as np

class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or out of its range, refused naming it.

    It subclasses both ``ValueError`` and ``TypeError`` (as scikit-learn's
    ``InvalidParameterError`` does), so ``except ValueError`` and ``except TypeError`` both
    catch it, whichever a caller expects of ``epsilon="1"`` or ``rng="0"``.

    >>> issubclass(InvalidParameterError, ValueError), issubclass(InvalidParameterError, TypeError)
    (True, True)
    """


#: Largest epsilon accepted: ``epsilon^2 / 2`` (the zCDP rho of pure DP) stays far inside the
#: floating-point range, so every accounting step on it is finite.
MAX_EPSILON = 1e50


def _refuse_non_numeric(value, name: str) -> None:
    """Strings and booleans convert to floats (``float('1')``, ``float(True)``) but are not
    privacy parameters: a typo must not become a budget."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be a number, got {value!r} ({type(value).__name__})")


def check_epsilon(epsilon, *, name: str = "epsilon", allow_zero: bool = False) -> float:
    """Return ``epsilon`` as a float, or raise ValueError unless it is a finite number > 0
    (strings and booleans refused).

    >>> check_epsilon(1)
    1.0
    """
    _refuse_non_numeric(epsilon, name)
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a number, got {epsilon!r}") from None
    if not math.isfinite(eps) or eps < 0 or (eps == 0 and not allow_zero):
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {epsilon!r}")
    if eps > MAX_EPSILON:
        raise InvalidParameterError(f"{name} must be at most {MAX_EPSILON:g} (the ledger's zCDP accounting "
                         f"squares it), got {epsilon!r}")
    return eps


def check_delta(delta, *, name: str = "delta", allow_zero: bool = True) -> float:
    """Return ``delta`` as a float, or raise ValueError unless it is a number in [0, 1) (or
    (0, 1)); strings and booleans refused."""
    _refuse_non_numeric(delta, name)
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a number, got {delta!r}") from None
    if not (0.0 <= d < 1.0) or (d == 0 and not allow_zero):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidParameterError(f"{name} must lie in {interval}, got {delta!r}")
    return d


def check_sensitivity(sensitivity, *, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float, or raise ValueError unless it is finite and > 0
    (strings and booleans refused, as for epsilon: ``True`` is not a sensitivity).

    >>> check_sensitivity(2)
    2.0
    """
    _refuse_non_numeric(sensitivity, name)
    try:
        s = float(sensitivity)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a number, got {sensitivity!r}") from None
    if not math.isfinite(s) or s <= 0:
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {sensitivity!r}")
    return s


def check_positive(value, *, name: str) -> float:
    """Return ``value`` as a float, or raise ValueError naming ``name`` unless it is a finite
    number > 0 (strings and booleans refused): a solver's tolerance, for instance.

    >>> check_positive(1e-6, name="tol")
    1e-06
    """
    return check_sensitivity(value, name=name)


#: float64 copies of a densified ``scipy.sparse`` input that :func:`dense_array`'s callers hold
#: at once: the dense array, its float64 conversion or a same-size temporary of the checks
#: (``(X == 0) | (X == 1)``, ``X * X`` of the row norms, ``X + X.T``), and the release's
#: own work on it (measured 15.9 bytes per entry for ``kway_marginals`` on a 20,000 x 20,000
#: sparse input); rounded up
DENSIFY_COPIES = 3


def check_densify_memory(shape, *, name: str) -> None:
    """Refuse, before ``.toarray()``, a ``scipy.sparse`` input of ``shape`` whose dense form
    (``DENSIFY_COPIES`` float64 copies, ``24 * rows * columns`` bytes) would not fit in the
    available memory (:func:`dpgraph.memory.check_memory`), naming ``name`` and the number of
    rows that would fit. A 10^6 x 3,000 sparse matrix of one entry per row takes 16 MB but
    22 GiB dense: it used to die in ``toarray`` with a bare MemoryError.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1M"}):
    ...     try:
    ...         check_densify_memory((10**6, 3000), name="data")
    ...     except MemoryError as exc:
    ...         print(exc)
    data as a dense 1,000,000 x 3,000 array (it is scipy.sparse; this mechanism's work is dense) needs about 67.1 GiB but only 1.0 MiB is allowed by DPGRAPH_MEMORY_LIMIT=1M (nothing was allocated). At most 14 rows of data fit at 3,000 columns.
    """
    from dpgraph.memory import check_memory

    shape = tuple(int(s) for s in shape)
    rows = shape[0] if shape else 1
    per_row = 8 * DENSIFY_COPIES * math.prod(shape[1:])
    check_memory(per_row * rows,
                 what=(f"{name} as a dense {' x '.join(f'{s:,}' for s in shape)} array (it is "
                       f"scipy.sparse; this mechanism's work is dense)"),
                 fit=(lambda k: per_row * k,
                      f"At most {{:,}} rows of {name} fit at "
                      f"{' x '.join(f'{s:,}' for s in shape[1:]) or 'one'} column"
                      f"{'s' if math.prod(shape[1:]) != 1 else ''}."))


def dense_array(value, *, name: str, dtype=np.float64) -> np.ndarray:
    """``value`` as a NumPy array of ``dtype`` (``None``: NumPy's choice, only numbers and
    booleans accepted), densifying a ``scipy.sparse`` matrix or array (``.toarray()``); strings,
    ragged nestings and other non-numeric input raise a ValueError naming ``name``.

    For mechanisms whose work and output are dense anyway (the noise is dense), so that
    densifying costs no more than the computation itself. The dense copy is priced first
    (:func:`check_densify_memory`): one that would not fit raises
    :class:`~dpgraph.memory.InsufficientMemoryError` before anything is allocated.

    >>> import scipy.sparse as sp
    >>> dense_array(sp.eye(2, format="csr"), name="value").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if hasattr(value, "toarray"):
        import scipy.sparse as sp  # lazy: only sparse input needs it

        if sp.issparse(value):
            check_densify_memory(value.shape, name=name)
            value = value.toarray()
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # e.g. a ragged nesting
        raise InvalidParameterError(f"{name} must be a numeric array, got {type(value).__name__} "
                         f"({exc})") from None
    if arr.dtype.kind not in "biuf" and not (arr.dtype.kind == "O" and dtype is not None):
        raise InvalidParameterError(f"{name} must be a numeric array, got dtype {arr.dtype} "
                         f"({type(value).__name__})")
    if dtype is None:
        return arr
    try:
        return arr.astype(dtype, copy=False)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a numeric array, got {type(value).__name__} with "
                         f"entries that are not numbers") from None


def check_number(value, *, name: str, low: float = -math.inf, high: float = math.inf,
                 open_low: bool = False, open_high: bool = False) -> float:
    """Return ``value`` as a finite float in the stated interval, or raise ValueError naming
    ``name`` (strings, containers and non-finite values included)."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}") from None
    if (not math.isfinite(v) or v < low or v > high or (open_low and v == low)
            or (open_high and v == high)):
        if math.isinf(low) and math.isinf(high):
            where = ""
        elif math.isinf(high):  # not "in [0, inf]": that would admit inf, which is refused
            where = f" {'>' if open_low else '>='} {low:g}"
        elif math.isinf(low):
            where = f" {'<' if open_high else '<='} {high:g}"
        else:
            lo, hi = ("(" if open_low else "["), (")" if open_high else "]")
            where = f" in {lo}{low:g}, {high:g}{hi}"
        raise InvalidParameterError(f"{name} must be a finite number{where}, got {value!r}")
    return v


def check_integer(value, *, name: str, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int (Python or numpy integer, or a float with an integral value)
    within ``[low, high]``, or raise ValueError naming ``name``."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    try:
        as_float = float(value)
        k = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}") from None
    if not math.isfinite(as_float) or k != as_float and not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    if (low is not None and k < low) or (high is not None and k > high):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise InvalidParameterError(f"{name} must be an integer {bounds}, got {value!r}")
    return k


def check_choice(value, *, name: str, choices) -> str:
    """Return ``value`` if it is one of the strings ``choices``, else raise ValueError naming
    ``name`` and the choices (arrays and other unhashable values included)."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidParameterError(f"{name}={value!r} is not one of {', '.join(map(repr, choices))}")
    return value


def check_flag(value, *, name: str, allow_none: bool = False) -> bool | None:
    """``value`` as a bool if it is one (NumPy's included; None where ``allow_none``), else a
    ValueError naming ``name``: a string such as ``"no"`` is truthy, and must not turn a
    release on.

    >>> check_flag(False, name="certify"), check_flag(None, name="x", allow_none=True)
    (False, None)
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        allowed = "True, False or None" if allow_none else "True or False"
        raise InvalidParameterError(f"{name} must be {allowed}, got {value!r}")
    return bool(value)


def check_share(name: str, value: float) -> float:
    """``value`` if it is a share of a budget strictly between 0 and 1, else a ValueError
    naming ``name``."""
    return check_number(value, name=name, low=0.0, high=1.0, open_low=True, open_high=True)


def check_optional_share(name: str, value: float) -> float:
    """``value`` if it is a share of a budget in ``[0, 1)``, where 0 turns its step off, else a
    ValueError naming ``name`` and that interval.

    >>> check_optional_share("bin_share", 0), check_optional_share("bin_share", 0.05)
    (0.0, 0.05)
    >>> check_optional_share("bin_share", 1)
    Traceback (most recent call last):
    ...
    dpgraph.privacy.validation.InvalidParameterError: bin_share must be a finite number in [0, 1), got 1
    """
    return check_number(value, name=name, low=0.0, high=1.0, open_high=True)
