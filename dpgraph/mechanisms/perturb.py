"""Perturb-and-Project (Cohen-Addad, d'Orsi, Epasto, Mirrokni, Zhong, ICML 2024, Alg. 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import (check_delta, check_epsilon, check_integer,
                                        check_positive, check_sensitivity, dense_array)
from dpgraph.privacy.noise import gaussian_mechanism, symmetric_gaussian_noise
from dpgraph.mechanisms.projection import ProjectionResult, averaged_projections, dykstra
from dpgraph.mechanisms.sets import ConvexSet, Intersection

__all__ = ["PerturbAndProjectResult", "perturb_and_project", "is_symmetric_matrix"]


@dataclass(repr=False)
class PerturbAndProjectResult:
    """Result of :func:`perturb_and_project`.

    Attributes
    ----------
    release : ndarray
        The projection of the noisy value onto the convex set (the private output).
    noisy : ndarray
        The raw noisy value (also private: plain Gaussian mechanism output).
    sigma : float
        Standard deviation of the noise on each entry (off-diagonal entries for symmetric noise;
        diagonal entries then have ``sqrt(2) * sigma``).
    ledger : PrivacyLedger
    projection : ProjectionResult
        Diagnostics of the projection (iterations, convergence, residual).
    symmetric_noise : bool
    """

    release: np.ndarray
    noisy: np.ndarray
    sigma: float
    ledger: PrivacyLedger
    projection: ProjectionResult
    symmetric_noise: bool

    def __repr__(self) -> str:
        return (f"PerturbAndProjectResult(shape={self.release.shape}, sigma={self.sigma:.4g}, "
                f"symmetric_noise={self.symmetric_noise}, projection={self.projection!r}, "
                f"spent={self.ledger.spent})")


def is_symmetric_matrix(X, tol: float = 0.0) -> bool:
    X = np.asarray(X)
    return X.ndim == 2 and X.shape[0] == X.shape[1] and bool(np.abs(X - X.T).max(initial=0) <= tol)


def _as_sets(convex_set):
    if isinstance(convex_set, ConvexSet):
        return [convex_set] if not isinstance(convex_set, Intersection) else list(convex_set.sets)
    try:
        sets = list(convex_set)
    except TypeError:
        sets = None
    if not sets or not all(isinstance(s, ConvexSet) for s in sets):
        raise TypeError(f"convex_set must be a ConvexSet or a non-empty list of ConvexSet "
                        f"objects, got {type(convex_set).__name__}")
    return sets


def perturb_and_project(value, convex_set, *, sensitivity: float, epsilon: float, delta: float,
                        ledger: PrivacyLedger | None = None, rng=None,
                        name: str = "perturb-and-project", symmetric: bool = False,
                        projection: str = "dykstra", tol: float = 1e-7, max_iter: int = 2000,
                        accelerate: bool = True, note: str = "") -> PerturbAndProjectResult:
    r"""Perturb-and-Project (Alg. 1): Gaussian noise on the input, then the Euclidean projection
    onto a convex set containing every possible input.

    Releases ``P_K(X + W)`` where ``X = value``, ``K = convex_set`` and ``W`` is Gaussian noise
    calibrated by the analytic Gaussian mechanism to the declared L2 (Frobenius) sensitivity
    ``Delta = max ||X - X'||_F`` over adjacent inputs. The projection is post-processing, so the
    release is (epsilon, delta)-DP. If ``X`` lies in ``K``, the error satisfies
    ``||P_K(X + W) - X||_F^2 <= 2 <W, P_K(X + W) - X> <= 2 sup_{Z in K} <W, Z - X>``
    (the Gaussian-complexity bound behind the paper's Thm 1.1).

    ``symmetric=True`` (a square matrix) releases its symmetric part ``(X + X^T) / 2`` (``X``
    itself when symmetric) with symmetric noise: i.i.d. ``N(0, sigma^2)`` above the diagonal
    and ``N(0, 2 sigma^2)`` on it, with ``sigma`` calibrated to ``Delta / sqrt(2)``. This is the
    Gaussian mechanism on the orthonormal coordinates ``(sqrt(2) X_ij)_{i<j}, (X_ii)_i`` of the
    symmetric subspace, whose sensitivity is ``||X - X'||_F`` (see docs/privacy.md, section 1);
    taking the symmetric part is an orthogonal projection, which does not increase
    ``||X - X'||_F``, so the calibration holds for any inputs. The noise's form is the caller's
    public choice, never read from ``value``: a test of the private value for symmetry would
    release one bit of it exactly.

    Parameters
    ----------
    value : array
        The exact (private) input; must be finite. A ``scipy.sparse`` matrix is densified (the
        noisy value and the release are dense arrays of the same shape).
    convex_set : ConvexSet or list of ConvexSet
        ``K``; a list (or :class:`Intersection`) is projected onto with ``projection``.
    sensitivity : float > 0
        L2/Frobenius sensitivity of ``value`` under the caller's adjacency.
    epsilon, delta : float
        Privacy parameters (``epsilon > 0``, ``0 < delta < 1``). A scalar ``value`` takes the
        exact discrete Gaussian of :func:`~dpgraph.privacy.gaussian_mechanism` (docs/privacy.md
        13), arrays the analytic Gaussian.
    ledger : PrivacyLedger, optional
        Charged before the noise is drawn; a fresh ledger with budget (epsilon, delta) if None.
    rng : None, int or numpy.random.Generator
    symmetric : bool
        Symmetric noise on the symmetric part of a square ``value`` (above); default: i.i.d.
        noise on every entry.
    projection : {"dykstra", "average", "alternating"}
        ``"dykstra"``: the exact projection (Alg. 1); the others: Alg. 2 (a point of ``K``).
    tol, max_iter, accelerate
        Passed to :func:`dykstra` (``accelerate`` applies to two sets: dual FISTA, same limit).

    Returns
    -------
    PerturbAndProjectResult

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.mechanisms import Simplex, perturb_and_project
    >>> res = perturb_and_project(np.array([0.2, 0.3, 0.5]), Simplex(1.0), sensitivity=0.1,
    ...                           epsilon=1.0, delta=1e-6, rng=0)
    >>> round(float(res.release.sum()), 9), bool(res.release.min() >= 0)
    (1.0, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)
    if projection not in ("dykstra", "average", "alternating"):
        raise ValueError(f"projection must be 'dykstra', 'average' or 'alternating', "
                         f"got {projection!r}")
    sets = _as_sets(convex_set)
    X = dense_array(value, name="value")  # the release is dense: a sparse value is densified
    if not np.all(np.isfinite(X)):
        raise ValueError("value must be finite (no NaN or inf entries)")
    # the projection's options and the sets' fit to the value's (public) shape, before the
    # charge (docs/privacy.md 11.1): the projection runs only after the noise is drawn
    tol = check_positive(tol, name="tol")
    max_iter = check_integer(max_iter, name="max_iter", low=1)
    for s in sets:  # before anything is charged (docs/privacy.md 11.1)
        s.check_shape(tuple(X.shape))
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    if not isinstance(symmetric, (bool, np.bool_)):
        raise ValueError(f"symmetric must be True or False, got {symmetric!r}")
    if symmetric:
        if X.ndim != 2 or X.shape[0] != X.shape[1]:
            raise ValueError(f"symmetric=True needs a square matrix, got shape {X.shape}")
        X = 0.5 * (X + X.T)  # the symmetric part: a projection, sensitivity unchanged
        G = symmetric_gaussian_noise(X.shape[0], sensitivity=sensitivity / math.sqrt(2),
                                     epsilon=epsilon, delta=delta, ledger=ledger, name=name,
                                     rng=rng, diagonal_scale=math.sqrt(2),
                                     note=note or "symmetric noise; Frobenius sensitivity "
                                     f"{sensitivity:.6g}")
        noisy = G.to_dense()
        noisy += X
        sigma = G.sigma
    else:
        noisy, sigma = gaussian_mechanism(X, sensitivity=sensitivity, epsilon=epsilon,
                                          delta=delta, ledger=ledger, name=name, rng=rng,
                                          note=note)
        noisy = np.asarray(noisy, dtype=np.float64)
    if projection == "dykstra":
        proj = dykstra(noisy, sets, tol=tol, max_iter=max_iter, accelerate=accelerate)
    else:
        proj = averaged_projections(noisy, sets, tol=tol, max_iter=max_iter, method=projection)
    return PerturbAndProjectResult(proj.point, noisy, float(sigma), ledger, proj, bool(symmetric))
