"""The exact discrete samplers (docs/privacy.md 13): their draws follow the exact pmfs
(chi-square against the pmf computed independently, fixed seeds), the grid rounding keeps the
sensitivity bound on adjacent inputs, and the mechanisms' guarantees hold as stated."""

import math

import numpy as np
import pytest
from scipy import stats

from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy import noise
from dpgraph.privacy.noise import (discrete_gaussian_parameters, discrete_laplace_parameters,
                                   sample_discrete_gaussian, sample_discrete_laplace)


def _chi2_pvalue(draws, logpmf, lo, hi):
    """Chi-square p-value of integer draws against the pmf ``exp(logpmf(y))`` on [lo, hi]
    (normalised over a range wide enough to hold all but ~1e-30 of the mass), the two tails
    lumped into one bin each."""
    ys = np.arange(lo - 2000, hi + 2001)
    p = np.exp(logpmf(ys) - logpmf(ys).max())
    p /= p.sum()
    inside = (ys >= lo) & (ys <= hi)
    expected = np.concatenate([[p[ys < lo].sum()], p[inside], [p[ys > hi].sum()]]) * draws.size
    counts = np.concatenate([[np.sum(draws < lo)], np.bincount(draws[(draws >= lo) & (draws <= hi)] - lo,
                                                               minlength=hi - lo + 1),
                             [np.sum(draws > hi)]])
    keep = expected > 5
    stat = ((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    return stats.chi2.sf(stat, keep.sum() - 1)


@pytest.mark.parametrize("t,s", [(7, 2), (1, 1), (40, 3)])
def test_discrete_laplace_matches_its_pmf(t, s):
    y = sample_discrete_laplace(t, s, 200_000, np.random.default_rng(1))
    b = t / s
    assert _chi2_pvalue(y, lambda v: -np.abs(v) / b, -int(8 * b) - 1, int(8 * b) + 1) > 1e-4
    # the test has power: the same draws against a 5% wider scale are rejected
    assert _chi2_pvalue(y, lambda v: -np.abs(v) / (1.05 * b), -int(8 * b) - 1,
                        int(8 * b) + 1) < 1e-6


@pytest.mark.parametrize("t,u", [(5, 4), (1, 1), (33, 31)])
def test_discrete_gaussian_matches_its_pmf(t, u):
    y = sample_discrete_gaussian(t, u, 200_000, np.random.default_rng(2))
    s2 = t * u
    k = int(6 * math.sqrt(s2)) + 1
    assert _chi2_pvalue(y, lambda v: -v.astype(float) ** 2 / (2 * s2), -k, k) > 1e-4
    if s2 > 1:
        assert _chi2_pvalue(y, lambda v: -v.astype(float) ** 2 / (2 * 1.1 * s2), -k, k) < 1e-6


def test_large_discrete_gaussian_has_its_variance():
    t, u = 2 ** 20 + 1, 2 ** 20
    y = sample_discrete_gaussian(t, u, 100_000, np.random.default_rng(3)).astype(float)
    # the variance of N_Z(0, s2) is within 1e-100 of s2 at this size; 5 standard errors
    var = y.var() / (t * u)
    assert abs(var - 1) < 5 * math.sqrt(2 / y.size)
    assert abs(y.mean()) / math.sqrt(t * u) < 5 / math.sqrt(y.size)


def test_grid_rounding_keeps_the_sensitivity_on_adjacent_inputs():
    """Adjacent values (changed coordinates moved by L2 / L1 distance up to the sensitivity,
    fractional parts chosen adversarially) round to grid vectors at most the stated number of
    steps apart."""
    rng = np.random.default_rng(4)
    for sens, k in [(1.0, 1), (math.sqrt(2), 2), (0.37, 5)]:
        pg = discrete_gaussian_parameters(sens, 1.0, 1e-6, k)
        pl = discrete_laplace_parameters(sens, 1.0, k)
        for p, norm in ((pg, 2), (pl, 1)):
            g = p["grid"]
            worst = 0.0
            for _ in range(2000):
                x = rng.uniform(-1e3, 1e3, 10)
                d = rng.standard_normal(k)
                d *= sens / np.linalg.norm(d, ord=norm)
                x[:k] = (np.floor(x[:k] / g) + 0.5 - 1e-9 * np.sign(d)) * g  # halfway points
                y = x.copy()
                y[:k] += d
                diff = noise._grid_rounded(x, g) - noise._grid_rounded(y, g)
                worst = max(worst, np.linalg.norm(diff, ord=norm))
            assert worst <= p["sensitivity_steps"], (p, worst)


def test_discrete_mechanisms_spend_what_they_claim():
    p = discrete_laplace_parameters(2.0, 0.5, 3)
    # pmf ratio of the discrete Laplace at a shift of D_Z steps: exp(D_Z s / t) <= e^eps
    assert p["sensitivity_steps"] * p["s"] / p["t"] <= 0.5 * (1 + 1e-12)
    assert p["epsilon"] <= 0.5 and p["scale"] >= 2.0 / 0.5
    q = discrete_gaussian_parameters(1.0, 1.0, 1e-6, 2)
    from dpgraph.privacy import approx_dp_to_zcdp_rho

    assert q["rho"] <= approx_dp_to_zcdp_rho(1.0, 1e-6)
    led = PrivacyLedger(epsilon=2.0, delta=1e-6)
    out, sigma = noise.gaussian_mechanism(np.arange(4.0), sensitivity=1.0, epsilon=1.0,
                                          delta=1e-6, ledger=led, name="g", rng=0, changed=2,
                                          sampler="discrete")
    e = led.entries[-1]
    assert e.mechanism == "discrete gaussian" and e.rho == pytest.approx(q["rho"])
    assert np.all(np.abs(out / q["grid"] - np.rint(out / q["grid"])) < 1e-6)  # on the grid
    out, b = noise.laplace_mechanism(5.0, sensitivity=1.0, epsilon=1.0, ledger=led, name="l",
                                     rng=0)
    assert led.entries[-1].mechanism == "discrete laplace" and b >= 1.0


def test_discrete_laplace_tail_scale_bounds_the_release_tail():
    """P[release - x >= tail_scale ln(1/(2 beta))] <= beta (docs 13.1), exactly from the pmf,
    at the worst rounding offset (x just above a grid midpoint)."""
    for sens, eps in [(1.0, 0.1), (0.03, 0.34), (2.0, 3.0)]:
        p = discrete_laplace_parameters(sens, eps, 1)
        g, b_steps = p["grid"], p["t"] / p["s"]
        for beta in (1e-2, 1e-6, 1e-12):
            m = p["tail_scale"] * math.log(1 / (2 * beta))
            r = g / 2  # rounding moved the value up half a step: the release is x + r + gZ
            z0 = math.ceil((m - r) / g)  # smallest Z with g Z + r >= m
            tail = math.exp(-z0 / b_steps) / (1 + math.exp(-1 / b_steps))
            assert tail <= beta * (1 + 1e-12), (sens, eps, beta, tail)


def test_matrix_free_route_with_discrete_noise():
    """``noise="discrete"``: every release from the exact sampler, composed by zCDP within the
    budget (each item's rho at most its share), and the accountant agrees."""
    import dpgraph
    from dpgraph.datasets import planted_cut
    from dpgraph.privacy import approx_dp_to_zcdp_rho

    G = planted_cut(600, 30.0, rng=0).graph
    pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rank=2, rng=0, route="matrix-free",
                           matrix_free_options={"noise": "discrete"})
    z = pg.diagnostics["composition_ledger"]
    assert {e.mechanism for e in z.entries} == {"discrete gaussian"}
    assert z.rho <= approx_dp_to_zcdp_rho(2.0, 1e-6)
    assert pg.ledger.spent == pytest.approx((2.0, 1e-6))
    eps_acc, _ = pg.ledger.accountant_spent()
    assert eps_acc <= 2.0 * (1 + 2e-3)
    # the released degrees lie on the degrees' grid (sensitivity sqrt 2, two changed entries)
    g = discrete_gaussian_parameters(math.sqrt(2.0), 1.0, 0.5, 2, rho=z.entries[0].rho)["grid"]
    d = np.asarray(pg.degrees) / g
    assert np.all(np.abs(d - np.rint(d)) < 1e-6)
    with pytest.raises(ValueError, match="noise"):
        dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rank=2, route="matrix-free",
                          matrix_free_options={"noise": "nope"})


def test_laplace_draws_release_what_per_batch_calls_would():
    """Noise drawn ahead for a pass (one sampler call) and added batch by batch is the very
    release of one laplace_add call on the whole array with the same generator state: same
    grid, same draws, each used once; a batch of the wrong shape is refused."""
    import warnings

    from dpgraph.privacy import LaplaceDraws, laplace_add

    value = np.arange(30.0).reshape(10, 3) * 0.37
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        draws = LaplaceDraws((10, 3), sensitivity=1.0, epsilon=0.7, changed=1,
                             ledger=PrivacyLedger(), rng=11)
        whole = laplace_add(value, sensitivity=1.0, epsilon=0.7, changed=1,
                            ledger=PrivacyLedger(), rng=11)
    parts = [draws.add(value[a:b], slice(a, b)) for a, b in ((0, 1), (1, 4), (4, 10))]
    assert np.array_equal(np.vstack(parts), whole)
    with pytest.raises(ValueError, match="shape"):
        draws.add(value[:2], slice(0, 3))
    with pytest.raises(TypeError, match="PrivacyLedger"):
        LaplaceDraws((2,), sensitivity=1.0, epsilon=1.0, changed=1, ledger=None, rng=0)


def test_grid_values_beyond_the_int64_range_are_clamped_not_refused():
    """A refusal at 2^62 grid steps would depend on the private value; the clamp is 1-Lipschitz
    (docs/privacy.md 13), so adjacent values far out stay within the sensitivity in steps."""
    from dpgraph.privacy.noise import GRID_LIMIT, _grid_rounded

    q = _grid_rounded(np.array([1e30, -1e30, np.inf, 3.2, 2.0 ** 62 - 1024.0]), 1.0)
    assert q.tolist() == [GRID_LIMIT, -GRID_LIMIT, GRID_LIMIT, 3, 2 ** 62 - 1024]
    a, b = _grid_rounded(np.array([2.0 ** 62 - 0.5, 2.0 ** 62 + 1e6]), 1.0)
    assert abs(int(b) - int(a)) <= 1e6 + 1
    with pytest.raises(ValueError, match="NaN"):
        _grid_rounded(np.array([np.nan]), 1.0)
