"""Noise calibration: the analytic Gaussian mechanism, the classical formula, zCDP conversions.

All functions are pure (no randomness). Formulas:

* Analytic Gaussian (Balle & Wang, ICML 2018, Thm 8): adding ``N(0, sigma^2 I)`` to a query of
  L2 sensitivity ``D`` is (epsilon, delta)-DP iff
  ``Phi(D/(2 sigma) - epsilon sigma / D) - exp(epsilon) Phi(-D/(2 sigma) - epsilon sigma / D) <= delta``.
  The left side decreases in sigma; :func:`analytic_gaussian_sigma` returns the smallest sigma
  satisfying it, valid for every epsilon > 0.
* Classical (Dwork & Roth, Thm A.1): ``sigma = sqrt(2 ln(1.25/delta)) D / epsilon``, valid only
  for epsilon <= 1; kept for comparison.
* Gaussian differential privacy (Dong, Roth & Su, JRSS-B 2022): the Gaussian mechanism with
  L2 sensitivity ``D`` and noise ``sigma`` is ``mu = D / sigma``-GDP (Thm 2.7); the adaptive
  composition of ``mu_i``-GDP mechanisms is exactly ``sqrt(sum mu_i^2)``-GDP (Cor. 3.3), and
  ``mu``-GDP is (epsilon, delta(epsilon))-DP for every epsilon with the analytic-Gaussian
  ``delta`` at ``sigma / D = 1 / mu`` (Cor. 2.13): :func:`gdp_mu`, :func:`gdp_epsilon`.
* zCDP (Bun & Steinke, 2016): the Gaussian mechanism is ``rho = D^2/(2 sigma^2)``-zCDP
  (Prop. 1.6); rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Prop. 1.3); the
  tighter conversion of Canonne, Kamath & Steinke (NeurIPS 2020, Prop. 12 via Renyi DP):
  ``epsilon = min_{a>1} a rho + (ln(1/delta) + (a-1) ln(1-1/a) - ln a) / (a-1)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from dpgraph.privacy.validation import check_delta, check_epsilon, check_sensitivity

__all__ = [
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "classical_gaussian_sigma",
    "gaussian_zcdp_rho",
    "zcdp_sigma",
    "zcdp_to_approx_dp",
    "approx_dp_to_zcdp_rho",
    "gdp_mu",
    "gdp_epsilon",
]


def _log_delta(s: float, epsilon: float) -> float:
    """log of the analytic-Gaussian delta at noise ratio s = sigma/D (stable for large eps)."""
    a = 0.5 / s
    b = epsilon * s
    l1 = special.log_ndtr(a - b)
    if l1 == -math.inf:  # delta underflows (huge epsilon * s): avoid -inf - -inf below
        return -math.inf
    l2 = epsilon + special.log_ndtr(-a - b)
    diff = l2 - l1
    if diff >= 0:  # cannot happen mathematically; guards round-off at absurd inputs
        return -math.inf
    return l1 + math.log(-math.expm1(diff))


def analytic_gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The exact delta of the Gaussian mechanism with this sigma at this epsilon (Balle-Wang Thm 8).

    Examples
    --------
    >>> sigma = analytic_gaussian_sigma(1.0, 1e-6)
    >>> analytic_gaussian_delta(sigma, 1.0) <= 1e-6  # the calibrated sigma meets its delta
    True
    >>> analytic_gaussian_delta(2 * sigma, 1.0) < analytic_gaussian_delta(sigma, 1.0)
    True
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    sigma = check_sensitivity(sigma, name="sigma")
    return math.exp(_log_delta(sigma / sensitivity, epsilon))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma making the Gaussian mechanism (epsilon, delta)-DP (Balle & Wang 2018).

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)
    sensitivity : float > 0
        L2 sensitivity of the released quantity.

    Returns
    -------
    float
        sigma with ``analytic_gaussian_delta(sigma, epsilon, sensitivity) <= delta`` and within
        a relative 1e-12 of the smallest such value.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1e-6), 4)
    4.2247
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)
    target = math.log(delta)
    f = lambda logs: _log_delta(math.exp(logs), epsilon) - target  # noqa: E731  decreasing in logs
    lo, hi = -1.0, 1.0
    while f(lo) < 0:
        lo -= 2.0
    while f(hi) > 0:
        hi += 2.0
    root = optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    s = math.exp(root)
    # brentq may land a hair below the root: step up until delta(s) <= target holds exactly
    while _log_delta(s, epsilon) > target:
        s *= 1 + 1e-13
    sigma = s * sensitivity
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sensitivity={sensitivity!r} at epsilon={epsilon!r}, delta={delta!r} "
                         f"gives a noise scale sigma={sigma!r} outside the floating-point range")
    return sigma


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``sqrt(2 ln(1.25/delta)) * sensitivity / epsilon`` (Dwork & Roth Thm A.1), epsilon <= 1 only.

    Examples
    --------
    >>> round(classical_gaussian_sigma(1.0, 1e-6), 4)
    5.2988
    >>> classical_gaussian_sigma(1.0, 1e-6) > analytic_gaussian_sigma(1.0, 1e-6)  # looser
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)
    if epsilon > 1:
        raise ValueError(f"the classical Gaussian formula is only valid for epsilon <= 1 (got "
                         f"{epsilon:g}); use analytic_gaussian_sigma, valid for every epsilon > 0")
    return math.sqrt(2 * math.log(1.25 / delta)) * sensitivity / epsilon


def gaussian_zcdp_rho(sigma: float, sensitivity: float = 1.0) -> float:
    """rho of the Gaussian mechanism: ``sensitivity^2 / (2 sigma^2)`` (Bun-Steinke Prop. 1.6).

    Examples
    --------
    >>> gaussian_zcdp_rho(2.0), gaussian_zcdp_rho(2.0, sensitivity=4.0)
    (0.125, 2.0)
    """
    sigma = check_sensitivity(sigma, name="sigma")
    sensitivity = check_sensitivity(sensitivity)
    return sensitivity**2 / (2 * sigma**2)


def zcdp_sigma(rho: float, sensitivity: float = 1.0) -> float:
    """sigma giving rho-zCDP for this L2 sensitivity: ``sensitivity / sqrt(2 rho)``.

    Examples
    --------
    >>> zcdp_sigma(0.125)
    2.0
    >>> gaussian_zcdp_rho(zcdp_sigma(0.125))  # the inverse of gaussian_zcdp_rho
    0.125
    """
    rho = check_epsilon(rho, name="rho")
    sensitivity = check_sensitivity(sensitivity)
    return sensitivity / math.sqrt(2 * rho)


def _cks_epsilon(rho: float, delta: float) -> float:
    L = math.log(1 / delta)

    def eps(log_am1: float) -> float:
        a = 1 + math.exp(log_am1)
        return a * rho + (L + (a - 1) * math.log1p(-1 / a) - math.log(a)) / (a - 1)

    res = optimize.minimize_scalar(eps, bounds=(-20, 20), method="bounded",
                                   options={"xatol": 1e-10})
    return min(float(res.fun), rho + 2 * math.sqrt(rho * L))


def zcdp_to_approx_dp(rho: float, delta: float, *, conversion: str = "cks") -> float:
    """epsilon such that rho-zCDP implies (epsilon, delta)-DP.

    ``conversion="standard"``: ``rho + 2 sqrt(rho ln(1/delta))`` (Bun-Steinke Prop. 1.3);
    ``"cks"`` (default): the tighter Canonne-Kamath-Steinke conversion (never looser).

    Examples
    --------
    >>> round(zcdp_to_approx_dp(0.1, 1e-6, conversion="standard"), 6)
    2.450788
    >>> round(zcdp_to_approx_dp(0.1, 1e-6), 6)  # cks: a smaller epsilon for the same rho
    2.141939
    """
    rho = check_epsilon(rho, name="rho")
    delta = check_delta(delta, allow_zero=False)
    if conversion == "standard":
        return rho + 2 * math.sqrt(rho * math.log(1 / delta))
    if conversion == "cks":
        return _cks_epsilon(rho, delta)
    raise ValueError(f"conversion={conversion!r} is not 'standard' or 'cks'")


def approx_dp_to_zcdp_rho(epsilon: float, delta: float, *, conversion: str = "cks") -> float:
    """Largest rho whose zCDP guarantee implies (epsilon, delta)-DP under ``conversion``.

    Examples
    --------
    >>> rho = approx_dp_to_zcdp_rho(1.0, 1e-6)
    >>> round(rho, 6), zcdp_to_approx_dp(rho, 1e-6) <= 1.0  # converts back within epsilon
    (0.024356, True)
    >>> round(approx_dp_to_zcdp_rho(1.0, 1e-6, conversion="standard"), 6)
    0.017469
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    L = math.log(1 / delta)
    standard = (math.sqrt(epsilon + L) - math.sqrt(L)) ** 2
    if conversion == "standard":
        return standard
    if conversion != "cks":
        raise ValueError(f"conversion={conversion!r} is not 'standard' or 'cks'")
    # cks epsilon is increasing in rho; standard rho is feasible, epsilon itself is an upper bound
    g = lambda r: _cks_epsilon(r, delta) - epsilon  # noqa: E731
    hi = epsilon
    if g(hi) <= 0:
        return hi
    rho = optimize.brentq(g, standard, hi, xtol=1e-15, rtol=1e-12)
    step = 1e-12  # down until feasible (a smaller rho is always safe), the step doubling: at
    while g(rho) > 0:  # small epsilon a fixed 1e-12 step took minutes of evaluations of g
        rho *= 1.0 - step
        step = min(2.0 * step, 0.5)
    return float(np.float64(rho))


def gdp_mu(epsilon: float, delta: float) -> float:
    """Largest ``mu`` whose ``mu``-GDP guarantee implies (epsilon, delta)-DP:
    ``1 / analytic_gaussian_sigma(epsilon, delta, 1)`` (Dong-Roth-Su Cor. 2.13, the
    Balle-Wang formula). A composition of Gaussian mechanisms with ``sum (D_i / sigma_i)^2 <=
    mu^2`` is (epsilon, delta)-DP.

    Examples
    --------
    >>> round(gdp_mu(1.0, 1e-6), 5)
    0.2367
    """
    return 1.0 / analytic_gaussian_sigma(epsilon, delta, 1.0)


def gdp_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon (to a relative 1e-12, rounded up) with ``mu``-GDP implying
    (epsilon, delta)-DP, i.e. ``analytic_gaussian_delta(1/mu, epsilon) <= delta``."""
    mu = check_epsilon(mu, name="mu")
    delta = check_delta(delta, allow_zero=False)
    s, target = 1.0 / mu, math.log(delta)
    f = lambda e: _log_delta(s, e) - target  # noqa: E731  decreasing in epsilon
    if f(0.0) <= 0:
        return 0.0
    hi = 1.0
    while f(hi) > 0:
        hi *= 2.0
    eps = optimize.brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-13, maxiter=500)
    while f(eps) > 0:
        eps *= 1 + 1e-13
    return float(eps)
