"""Distributional tests of the noise module: an empirical privacy-loss test of the Gaussian
mechanism on adjacent inputs, the K-norm radius law, and zCDP accounting in the ledger."""

import math

import numpy as np
import pytest
from scipy import stats

from dpgraph.privacy import (
    PrivacyBudgetError,
    PrivacyLedger,
    analytic_gaussian_sigma,
    ball_knorm_mechanism,
    ball_knorm_noise,
    gaussian_mechanism,
    gaussian_zcdp_rho,
    zcdp_to_approx_dp,
)

ALPHA = 1e-9  # total false-alarm probability of each statistical assertion (union bound)


def _cp_bounds(k, n, alpha):
    """Clopper-Pearson two-sided bounds (exact binomial) at level alpha."""
    lo = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


def _empirical_delta_lower_bound(a, b, eps, thresholds, alpha):
    """Largest certified lower bound over half-lines S = {y < c} of
    P[M(x) in S] - e^eps P[M(x') in S], from samples a ~ M(x), b ~ M(x') (both 1-d).

    For every S, (eps, delta)-DP demands P[M(x) in S] - e^eps P[M(x') in S] <= delta. With
    Clopper-Pearson bounds (lower for the first, upper for the second), the returned value is
    below the true max over the thresholds with probability >= 1 - alpha.
    """
    a = np.sort(a)
    b = np.sort(b)
    best = -1.0
    per = alpha / (2 * len(thresholds))
    for c in thresholds:
        ka = int(np.searchsorted(a, c))
        kb = int(np.searchsorted(b, c))
        lo_a, _ = _cp_bounds(ka, a.size, per)
        _, hi_b = _cp_bounds(kb, b.size, per)
        best = max(best, lo_a - math.exp(eps) * hi_b)
    return best


@pytest.mark.parametrize("eps,delta,sens,dim", [(1.0, 1e-3, 1.0, 1), (0.5, 1e-2, 2.0, 3),
                                                (3.0, 1e-3, 1.0, 2)])
def test_gaussian_mechanism_empirical_privacy_loss(eps, delta, sens, dim):
    """Draw the real mechanism many times on two adjacent inputs (x and x + sens * u, u a unit
    vector) and check no half-space S = {<y, u> < c} shows a privacy loss beyond (eps, delta);
    then check the same test does detect an under-noised mechanism (sigma * 0.7)."""
    N = 1_000_000
    rng = np.random.default_rng(2024)
    u = rng.standard_normal(dim)
    u /= np.linalg.norm(u)
    x = rng.standard_normal(dim)
    xp = x + sens * u
    led = PrivacyLedger()  # unlimited: records only
    ya, sigma = gaussian_mechanism(np.broadcast_to(x, (N, dim)), sensitivity=sens, epsilon=eps,
                                   delta=delta, ledger=led, name="a", rng=rng,
                                   sampler="continuous")
    yb, _ = gaussian_mechanism(np.broadcast_to(xp, (N, dim)), sensitivity=sens, epsilon=eps,
                               delta=delta, ledger=led, name="b", rng=rng, sampler="continuous")
    # the worst half-lines for the Gaussian are around c* = <x,u> + sens/2 - eps sigma^2 / sens
    c0 = x @ u + sens / 2 - eps * sigma**2 / sens
    thresholds = c0 + sigma * np.linspace(-1.5, 1.5, 31)
    pa, pb = ya @ u, yb @ u
    lb = _empirical_delta_lower_bound(pa, pb, eps, thresholds, ALPHA)
    assert lb <= delta, f"empirical privacy loss exceeds the claim: delta >= {lb:.3g} > {delta:g}"
    # the calibration is tight: the empirical value is close to delta (not vacuous) ...
    c_star = x @ u + sens / 2 - eps * sigma**2 / sens
    ka, kb = np.mean(pa < c_star), np.mean(pb < c_star)
    est = ka - math.exp(eps) * kb
    assert est > 0.5 * delta
    # ... and the same test catches a mechanism with too little noise
    bad_a = x @ u + 0.7 * (pa - x @ u)
    bad_b = xp @ u + 0.7 * (pb - xp @ u)
    c1 = x @ u + sens / 2 - eps * (0.7 * sigma) ** 2 / sens
    thr_bad = c1 + 0.7 * sigma * np.linspace(-1.5, 1.5, 31)
    assert _empirical_delta_lower_bound(bad_a, bad_b, eps, thr_bad, ALPHA) > delta


def test_knorm_radius_distribution():
    """Density ~ exp(-||z|| / scale) (Nikolov Lemma 4.2): ||noise|| ~ Gamma(d, scale =
    sensitivity/epsilon), direction uniform. Kolmogorov-Smirnov on 1,500 draws (which rejects
    Gamma(d + 1), the law of a radius meant for a point inside the ball) and a direction-mean
    check."""
    d, sens, eps = 5, 2.0, 0.5
    led = PrivacyLedger()
    rng = np.random.default_rng(7)
    radii, dirs = [], []
    for _ in range(1500):
        z, scale = ball_knorm_mechanism(np.zeros(d), sensitivity=sens, epsilon=eps, ledger=led,
                                        name="k", rng=rng)
        r = np.linalg.norm(z)
        radii.append(r)
        dirs.append(z / r)
    assert scale == pytest.approx(sens / eps)
    p = stats.kstest(radii, stats.gamma(a=d, scale=sens / eps).cdf).pvalue
    assert p > 1e-6
    assert stats.kstest(radii, stats.gamma(a=d + 1, scale=sens / eps).cdf).pvalue < 1e-6
    # mean of uniform directions: each coordinate has sd 1/sqrt(d * 1500)
    assert np.abs(np.mean(dirs, axis=0)).max() < 6 / math.sqrt(d * 1500)
    assert led.spent == pytest.approx((1500 * eps, 0.0))


@pytest.mark.parametrize("dim", [1, 2])
def test_knorm_mechanism_empirical_privacy_loss(dim):
    """Pure eps-DP of the K-norm noise on adjacent inputs x and x' = x + D u: for balls around
    x and x' and half-spaces across the segment, a certified lower bound on
    P[M(x') in S] - e^eps P[M(x) in S] (and with x, x' swapped) must not exceed 0. The same test
    catches the radius law Gamma(d + 1) on the sphere (its density vanishes at the input)."""
    N, eps, sens = 1_000_000, 1.0, 1.0
    scale = sens / eps
    rng = np.random.default_rng(11)
    u = np.zeros(dim)
    u[0] = 1.0
    x, xp = np.zeros(dim), sens * u
    # the mechanism is value + ball_knorm_noise(d, sensitivity / epsilon) from the same stream
    led = PrivacyLedger()
    out, got_scale = ball_knorm_mechanism(x, sensitivity=sens, epsilon=eps, ledger=led, name="k",
                                          rng=np.random.default_rng(5))
    assert got_scale == scale
    assert np.array_equal(out, ball_knorm_noise(dim, scale, np.random.default_rng(5)))

    def worst(ya, yb):
        """Certified lower bound of max_S P[ya in S] - e^eps P[yb in S] over the sets S."""
        per = ALPHA / (2 * 2 * 50)
        best = -1.0
        for centre in (x, xp):
            da, db = np.linalg.norm(ya - centre, axis=1), np.linalg.norm(yb - centre, axis=1)
            for r in scale * np.geomspace(0.01, 2.0, 25):
                lo_a, _ = _cp_bounds(int(np.sum(da < r)), N, per)
                _, hi_b = _cp_bounds(int(np.sum(db < r)), N, per)
                best = max(best, lo_a - math.exp(eps) * hi_b)
        return best

    def check(noise):
        ya, yb = x + noise(), xp + noise()
        half = max(_empirical_delta_lower_bound(ya @ u, yb @ u, eps,
                                                np.linspace(-2, 3, 26) * scale, ALPHA),
                   _empirical_delta_lower_bound(-(yb @ u), -(ya @ u), eps,
                                                np.linspace(-3, 2, 26) * scale, ALPHA))
        return max(worst(ya, yb), worst(yb, ya), half)

    assert check(lambda: ball_knorm_noise(dim, scale, rng, size=N)) <= 0.0

    def sphere_gamma_d_plus_1():
        z = ball_knorm_noise(dim, scale, rng, size=N)
        return z / np.linalg.norm(z, axis=1, keepdims=True) * rng.gamma(dim + 1, scale, (N, 1))

    assert check(sphere_gamma_d_plus_1) > 0.0


def test_zcdp_ledger_composes_gaussians_tighter():
    basic = PrivacyLedger(epsilon=1.0, delta=1e-6)
    z = PrivacyLedger(epsilon=1.0, delta=1e-6, accounting="zcdp")
    rng = np.random.default_rng(0)
    for i in range(10):
        for led in (basic, z):
            gaussian_mechanism(0.0, sensitivity=1.0, epsilon=0.1, delta=1e-7, ledger=led,
                               name=f"q{i}", rng=rng, sampler="continuous")
    sigma = analytic_gaussian_sigma(0.1, 1e-7)
    rho = 10 * gaussian_zcdp_rho(sigma)
    assert z.rho == pytest.approx(rho)
    assert basic.spent == pytest.approx((1.0, 1e-6))
    assert z.spent[0] == pytest.approx(min(1.0, zcdp_to_approx_dp(rho, 1e-6)))
    assert z.spent[1] == pytest.approx(1e-6)
    # the basic ledger is full
    with pytest.raises(PrivacyBudgetError):
        gaussian_mechanism(0.0, sensitivity=1.0, epsilon=0.1, delta=1e-7, ledger=basic,
                           name="more", rng=rng, sampler="continuous")
    assert "zCDP" in z.report() and z.to_dict()["accounting"] == "zcdp"


def test_zcdp_ledger_allows_more_small_charges():
    z = PrivacyLedger(epsilon=1.0, delta=1e-5, accounting="zcdp")
    rng = np.random.default_rng(1)
    count = 0
    with pytest.raises(PrivacyBudgetError):
        for count in range(1, 1000):
            gaussian_mechanism(0.0, sensitivity=1.0, epsilon=0.05, delta=1e-8, ledger=z,
                               name=f"q{count}", rng=rng, sampler="continuous")
    # basic composition would stop after 20 charges of epsilon 0.05; zCDP allows many more
    assert len(z.entries) > 30
    assert z.spent[0] <= 1.0 * (1 + 1e-9) and z.spent[1] <= 1e-5


def test_ledger_bad_accounting():
    with pytest.raises(ValueError):
        PrivacyLedger(1.0, 1e-6, accounting="rdp")
