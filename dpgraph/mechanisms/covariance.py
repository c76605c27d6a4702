"""Private second-moment (uncentred covariance) matrix by perturb-and-project.

``S = (1/m) sum_rows x x^T`` with ``||x|| <= r`` (public bound; rows are refused otherwise).
Replace-one-row sensitivity ``||Delta S||_F <= sqrt 2 r^2 / m`` (docs/privacy.md 2.6). The
Gaussian mechanism adds symmetric noise calibrated to it; perturb-and-project then projects onto
``K = {A PSD, tr A <= r^2}`` (every ``S`` lies in ``K``), exactly, by one eigendecomposition.
The JL alternative is :func:`dpgraph.mechanisms.jl_second_moment`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpgraph.memory import check_memory
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import check_delta, check_epsilon
from dpgraph.privacy.noise import symmetric_gaussian_noise
from dpgraph.mechanisms.jl import rows_in_ball, second_moment_sensitivity
from dpgraph.mechanisms.sets import PSDTraceBall

__all__ = ["SecondMomentResult", "private_second_moment"]


@dataclass(repr=False)
class SecondMomentResult:
    """``estimate`` (projected unless ``project=False``), ``noisy`` (raw Gaussian release),
    ``sigma`` (off-diagonal noise sd), ``sensitivity`` (Frobenius), ``ledger``."""

    estimate: np.ndarray
    noisy: np.ndarray
    sigma: float
    sensitivity: float
    ledger: PrivacyLedger

    def __repr__(self) -> str:
        return (f"SecondMomentResult(d={self.estimate.shape[0]}, sigma={self.sigma:.4g}, "
                f"sensitivity={self.sensitivity:.4g}, spent={self.ledger.spent})")


# Copies of the d x d matrix the release holds at once (the noise, the noisy moment, X^T X and
# the projection's eigendecomposition): 4 measured at d = 3,000 (100,000 columns died of a bare
# MemoryError); rounded up.
SECOND_MOMENT_COPIES = 6


def private_second_moment(data, *, epsilon: float, delta: float, radius: float = 1.0,
                          project: bool = True, ledger: PrivacyLedger | None = None, rng=None,
                          name: str = "second-moment") -> SecondMomentResult:
    """Release ``(1/m) sum x x^T`` (rows ``||x|| <= radius``): symmetric Gaussian noise
    calibrated to ``sqrt 2 radius^2 / m`` (Frobenius), then (``project=True``) the Euclidean
    projection onto ``{A PSD, tr A <= radius^2}`` (perturb-and-project, Alg. 1). Adjacency: one
    row replaced (``m`` public). Rows longer than ``radius`` are refused (clip them first,
    publicly); a row within ``1e-12`` of it (normalised in floating point) is scaled onto the
    sphere (docs/privacy.md 2.6).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.eye(3)[[0, 1, 2, 0]]
    >>> res = private_second_moment(X, epsilon=1.0, delta=1e-6, rng=0)
    >>> bool(np.trace(res.estimate) <= 1 + 1e-9)
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    X, r = rows_in_ball(data, radius)
    m, d = X.shape
    sens = second_moment_sensitivity(m, r)
    check_memory(8 * SECOND_MOMENT_COPIES * d * d,  # before anything is spent
                 what=f"the second moment of {d:,} columns (a d x d release)",
                 fit=(lambda k: 8 * SECOND_MOMENT_COPIES * k * k, "At most {:,} columns fit."))
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    G = symmetric_gaussian_noise(d, sensitivity=sens / math.sqrt(2), epsilon=epsilon,
                                 delta=delta, ledger=ledger, name=name, rng=rng,
                                 diagonal_scale=math.sqrt(2),
                                 note="second moment, replace-one-row, rows in a ball")
    noisy = G.to_dense()
    noisy += X.T @ X / m
    est = PSDTraceBall(r * r).project(noisy) if project else noisy.copy()
    return SecondMomentResult(est, noisy, G.sigma, sens, ledger)
