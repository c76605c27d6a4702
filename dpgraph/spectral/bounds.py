"""Adjacency notions and the sensitivity bounds of private PCA, each with its constant.

Every function here is a closed-form bound derived in ``docs/privacy.md``, section 3 (the
numbers 3.x below refer to its subsections), and checked on adjacent inputs by
``tests/test_spectral_bounds.py``.

Notation: ``M`` and ``M' = M + E`` adjacent; ``sigma_1 >= sigma_2 >= ...`` singular values;
``g = sigma_r - sigma_{r+1}`` the rank-r gap; ``U`` (``n x r``) and ``V`` (``m x r``) the top-r
left and right singular vectors of ``M`` (for symmetric ``M``: eigenvectors of the r eigenvalues
of largest absolute value); ``t`` the *row scale* of the top-r subspace,

* symmetric ``M``:   ``t = max_i ||U_i||``                         (``mu_r = n t^2 / r``),
* rectangular ``M``: ``t = sqrt(max_i ||U_i||^2 + max_j ||V_j||^2)``.

An adjacency notion is summarised by two constants (3.1):

* ``eta``  with ``||E|| <= eta``                                      (spectral norm),
* ``c_E``  with ``||E U||_F <= c_E t`` (symmetric), or
  ``sqrt(||E V||_F^2 + ||E^T U||_F^2) <= c_E t`` (rectangular), for every orthonormal U, V.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpgraph.privacy.validation import check_number, check_sensitivity

__all__ = [
    "EntryAdjacency",
    "AdjacencyConstants",
    "adjacency_constants",
    "gap_sensitivity",
    "log_row_scale_sensitivity",
    "sin_theta_bound",
    "projector_sensitivity",
    "projected_core_sensitivity",
    "core_sensitivity",
]

SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class EntryAdjacency:
    """Adjacent inputs differ in one entry (or one symmetric pair of entries) by at most ``max_abs``.

    * ``symmetric=True`` (symmetric ``M``): ``E = w (e_i e_j^T + e_j e_i^T)`` for one pair
      ``i != j``, or ``E = w e_i e_i^T``, with ``|w| <= max_abs``. This is edge-level adjacency
      for a weighted graph, and for the normalized adjacency ``D~^-1/2 A D~^-1/2`` with a public
      ``D~`` (``w = 1/sqrt(d~_i d~_j) <= 1 / min_i d~_i``).
    * ``symmetric=False`` (rectangular ``M``): ``E = w e_i e_j^T`` with ``|w| <= max_abs``.

    >>> adj = EntryAdjacency(1.0)  # one edge of weight at most 1 changes
    >>> c = adjacency_constants(adj, symmetric=True)
    >>> c.eta  # ||E|| <= max_abs: what private_subspace calibrates its noise to
    1.0
    """

    max_abs: float
    symmetric: bool = True

    def __post_init__(self):
        # strings and booleans refused: float("1") and float(True) are not a bound on E
        w = check_sensitivity(self.max_abs, name="EntryAdjacency.max_abs")
        object.__setattr__(self, "max_abs", w)
        object.__setattr__(self, "symmetric", bool(self.symmetric))


@dataclass(frozen=True)
class AdjacencyConstants:
    """``eta`` bounds ``||E||``; ``c_E`` bounds the residual of Wedin's theorem per unit row scale."""

    eta: float
    c_E: float
    description: str


def adjacency_constants(adjacency, *, symmetric: bool) -> AdjacencyConstants:
    """The constants ``(eta, c_E)`` of an adjacency notion (docs/privacy.md 3.1).

    ``adjacency`` is an :class:`EntryAdjacency` or a float ``Delta > 0`` meaning general
    Delta-adjacency (Def. 4.2 with the *entrywise* l1 norm ``||X||_1 = sum_ab |X_ab|``):
    ``||E E^T||_1 <= Delta^2`` (and, for rectangular ``M``, also ``||E^T E||_1 <= Delta^2``).

    ============================  =======  ==============
    adjacency                     eta      c_E
    ============================  =======  ==============
    EntryAdjacency(w, sym=True)   w        sqrt(2) w
    EntryAdjacency(w, sym=False)  w        w
    Delta (symmetric or not)      Delta    Delta
    ============================  =======  ==============

    Examples
    --------
    >>> c = adjacency_constants(EntryAdjacency(1.0), symmetric=True)
    >>> c.eta, round(c.c_E, 6)
    (1.0, 1.414214)
    >>> adjacency_constants(2.0, symmetric=False).c_E
    2.0
    """
    if isinstance(adjacency, EntryAdjacency):
        w = adjacency.max_abs
        if adjacency.symmetric != symmetric:
            kind = "symmetric" if symmetric else "rectangular (or non-symmetric)"
            raise ValueError(
                f"adjacency=EntryAdjacency(symmetric={adjacency.symmetric}) does not fit a {kind} "
                f"M: use EntryAdjacency(max_abs, symmetric={symmetric})")
        if symmetric:
            return AdjacencyConstants(w, SQRT2 * w, f"one symmetric entry pair, |w| <= {w:g}")
        return AdjacencyConstants(w, w, f"one entry, |w| <= {w:g}")
    d = _delta(adjacency)
    return AdjacencyConstants(d, d, f"Delta-adjacency, sqrt(||E E^T||_1) <= {d:g} (entrywise l1)")


def _delta(adjacency) -> float:
    """The ``Delta`` of general Delta-adjacency as a float, refusing strings (``"1"``),
    booleans and anything but a finite number > 0."""
    if isinstance(adjacency, (str, bytes, bool, np.bool_)):
        raise ValueError(f"adjacency must be a float Delta > 0 or an EntryAdjacency, got "
                         f"{adjacency!r} ({type(adjacency).__name__})")
    try:
        d = float(adjacency)
    except (TypeError, ValueError):
        raise ValueError(f"adjacency must be a float Delta > 0 or an EntryAdjacency, got "
                         f"{adjacency!r}") from None
    if not math.isfinite(d) or d <= 0:
        raise ValueError(f"adjacency must be a finite Delta > 0, got {adjacency!r}")
    return d


def _finite(value, name: str, *, nonnegative: bool = False) -> float:
    """``value`` as a finite float (``>= 0`` if ``nonnegative``), else a ValueError naming
    ``name`` (strings, booleans and NaN refused)."""
    return check_number(value, name=name, low=0.0 if nonnegative else -math.inf)


def _positive(value, name: str) -> float:
    """``value`` as a finite float > 0 (strings and booleans refused), else a ValueError naming
    ``name``."""
    return check_sensitivity(value, name=name)


def gap_sensitivity(eta: float) -> float:
    """Sensitivity of ``g = sigma_r - sigma_{r+1}``: ``2 eta`` (Weyl's inequality, 3.2).

    ``eta > 0`` bounds ``||E||`` (:func:`adjacency_constants`).

    Examples
    --------
    >>> gap_sensitivity(1.0)
    2.0
    """
    return 2.0 * _positive(eta, "eta")


def _kappa(c_E: float, eta: float, gap_lower: float) -> float:
    c_E, eta = _positive(c_E, "c_E"), _positive(eta, "eta")
    gap_lower = _finite(gap_lower, "gap_lower")
    if gap_lower <= eta:
        raise ValueError(f"the bounds need gap_lower > eta (got {gap_lower:g} <= {eta:g})")
    return c_E / (gap_lower - eta)


def sin_theta_bound(c_E: float, eta: float, gap: float, row_scale: float) -> float:
    """``||sin Theta(U, U')||_F <= c_E t / (g - eta)`` for ``g > eta`` (Wedin / Davis-Kahan, 3.3).

    For rectangular ``M`` the same number bounds ``sqrt(||sin Theta_U||_F^2 + ||sin Theta_V||_F^2)``.
    ``c_E, eta > 0``, ``gap > eta`` and ``row_scale >= 0`` must be finite numbers.

    Examples
    --------
    >>> round(sin_theta_bound(math.sqrt(2), 1.0, 11.0, 0.5), 6)
    0.070711
    """
    t = _finite(row_scale, "row_scale", nonnegative=True)
    return _kappa(c_E, eta, gap) * t


def projector_sensitivity(c_E: float, eta: float, gap_lower: float, row_scale_upper: float) -> float:
    """Upper-triangle L2 sensitivity of the projector ``P = U U^T`` (3.4).

    With the diagonal weighted by ``1/sqrt(2)`` (noise ``diagonal_scale = sqrt(2)``) the
    sensitivity is ``||P' - P||_F / sqrt(2) = ||sin Theta||_F <= c_E t / (g - eta)``, valid for
    every adjacent pair with ``g(M) >= gap_lower > eta`` and ``t(M) <= row_scale_upper``.

    Examples
    --------
    >>> round(projector_sensitivity(math.sqrt(2), 1.0, 11.0, 0.5), 6)
    0.070711
    """
    t = _finite(row_scale_upper, "row_scale_upper", nonnegative=True)
    return _kappa(c_E, eta, gap_lower) * t


def log_row_scale_sensitivity(c_E: float, eta: float, gap_lower: float) -> float:
    """Sensitivity of ``log t`` on pairs with ``g(M) >= gap_lower``: ``-log(1 - kappa)`` (3.5).

    ``kappa = c_E / (gap_lower - eta)`` must be < 1 (otherwise the bound is infinite).
    Doubling it gives the sensitivity of ``log mu_r`` (Lemma 5.4, explicit constant).

    Examples
    --------
    >>> round(log_row_scale_sensitivity(1.0, 1.0, 11.0), 6)  # -log(1 - 0.1)
    0.105361
    >>> log_row_scale_sensitivity(1.0, 1.0, 1.5)  # kappa = 2 >= 1
    inf
    """
    k = _kappa(c_E, eta, gap_lower)
    if k >= 1:
        return math.inf
    return -math.log1p(-k)


def projected_core_sensitivity(adjacency, basis: np.ndarray) -> float:
    """Upper-triangle sensitivity of the projected core ``C = B^T M B`` for a public orthonormal
    ``B`` (3.6). (The matrix-free route's core has its own bound,
    :func:`dpgraph.release.routes.matrix_free.core_sensitivity`.)

    Diagonal weighted by ``1/sqrt(2)`` (noise ``diagonal_scale = sqrt(2)``), so this bounds
    ``||B^T E B||_F / sqrt(2)``. With ``b_1 >= b_2`` the two largest row norms of ``B``:
    entry adjacency ``w max(sqrt(2) b_1 b_2, b_1^2 / sqrt(2))``; Delta-adjacency ``Delta b_1 / sqrt(2)``.

    ``basis`` must be an ``n x r`` array with orthonormal columns (``1 <= r <= n``; a vector is
    one column); ``adjacency`` is as in :func:`adjacency_constants`.

    Examples
    --------
    >>> import numpy as np
    >>> B = np.eye(4)[:, :2]
    >>> round(projected_core_sensitivity(EntryAdjacency(1.0), B), 6)
    1.414214
    >>> round(projected_core_sensitivity(1.0, np.ones((4, 1)) / 2), 6)
    0.353553
    """
    from dpgraph.spectral.coherence import check_orthonormal

    if not isinstance(adjacency, EntryAdjacency):
        adjacency = _delta(adjacency)
    B = check_orthonormal(basis, "basis")
    norms = np.sqrt(np.einsum("ij,ij->i", B, B))
    top = np.sort(norms)[-2:] if norms.size >= 2 else np.array([0.0, norms[0]])
    b1, b2 = float(top[-1]), float(top[-2])
    if isinstance(adjacency, EntryAdjacency):
        w = adjacency.max_abs
        return w * max(SQRT2 * b1 * b2, b1 * b1 / SQRT2)
    return float(adjacency) * b1 / SQRT2


#: The name docs/privacy.md section 3 and the PCA route use for :func:`projected_core_sensitivity`.
core_sensitivity = projected_core_sensitivity
