"""The exact discrete samplers (docs/privacy.md 13): their draws follow the exact pmfs
(chi-square against the pmf computed independently, fixed seeds), the grid rounding is exact
(checked with fractions.Fraction) and keeps the sensitivity bound on adjacent inputs, and the
mechanisms' guarantees hold as stated."""

import math
from fractions import Fraction

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



# grids of the mechanisms: the default ones and coarse ones (a tiny epsilon: D / g not an integer)
_GRIDS = {"laplace default": lambda: discrete_laplace_parameters(0.37, 1.0, 1),
          "laplace coarse": lambda: discrete_laplace_parameters(1.0, 1e-9, 2),
          "gaussian default": lambda: discrete_gaussian_parameters(1.0, 1.0, 1e-6, 2),
          "gaussian coarse": lambda: discrete_gaussian_parameters(1.0, 1e-5, 1e-10, 2)}


def _exact_distance(x, g, n) -> Fraction:
    """``|n - x / g|`` in exact rational arithmetic."""
    return abs(Fraction(int(n)) - Fraction(float(x)) / Fraction(float(g)))


@pytest.mark.parametrize("grid", sorted(_GRIDS))
def test_grid_rounding_is_exact_where_the_float_quotient_is_not(grid):
    """Values ``fl(g (m + 1/2))`` and their floating-point neighbours, from ``2^20`` to ``2^61``
    steps (within the clamp): for many of them ``rint(fl(x / g))`` is more than 1/2 from the
    exact ``x / g`` (the quotient lands on the wrong side of the half-integer, or beyond
    ``2^52`` steps tens of integers away); the grid integers are within 1/2 of it, checked with
    ``fractions.Fraction`` (docs/privacy.md 13)."""
    g = _GRIDS[grid]()["grid"]
    rng = np.random.default_rng(12)
    m = np.floor(rng.uniform(0.5, 1.0, 200) * 2.0 ** rng.integers(20, 62, 200))
    half = (m + 0.5) * g
    x = np.concatenate([half, np.nextafter(half, np.inf), np.nextafter(half, -np.inf)])
    x = np.concatenate([x, -x])
    float_far = sum(_exact_distance(v, g, np.rint(v / g)) > Fraction(1, 2) for v in x)
    assert float_far > 100  # the inputs do defeat the floating-point rounding
    n = noise._grid_rounded(x, g)
    far = [(v, k) for v, k in zip(x, n) if _exact_distance(v, g, k) > Fraction(1, 2)]
    assert not far, (grid, len(far), far[:3])


@pytest.mark.parametrize("grid,norm", [("laplace coarse", 1), ("gaussian default", 2)])
def test_grid_rounding_keeps_the_sensitivity_far_out(grid, norm):
    """Adjacent values about ``2 * 10^13`` times the sensitivity out (within the clamp: ``2^62``
    steps are over ``3 * 10^15`` times it here), two coordinates moved by an L1 / L2 distance of
    at most the sensitivity 1 (exact moves: multiples of the values' spacing ``h = 2^-8``): the
    floating-point rounding of ``x / g`` alone puts many pairs more than ``D_Z`` steps apart;
    the exact rounding keeps every pair within ``D_Z`` (docs/privacy.md 13)."""
    p = _GRIDS[grid]()
    g, rng, n_pairs = p["grid"], np.random.default_rng(13), 500
    x = rng.uniform(1.0, 1.98, (n_pairs, 2)) * 2.0 ** 44  # spacing h = 2^-8 on [2^44, 2^45)
    S = 2 ** 8  # 1 / h
    a = rng.integers(-S, S + 1, n_pairs)
    b = [S - abs(v) if norm == 1 else math.isqrt(S * S - v * v) for v in a.tolist()]
    moves = np.stack([a, np.array(b) * rng.choice([-1, 1], n_pairs)], axis=1) * 2.0 ** -8
    assert np.linalg.norm(moves * S, ord=norm, axis=1).max() <= S  # integers: exact
    y = x + moves
    assert np.array_equal(y - x, moves)  # the values moved by exactly that

    def steps(rounded_x, rounded_y):
        return np.linalg.norm((rounded_y - rounded_x).astype(float), ord=norm, axis=1)

    float_steps = steps(np.rint(x / g), np.rint(y / g))
    assert (float_steps > p["sensitivity_steps"]).sum() > 10  # the breach the exact rounding closes
    exact_steps = steps(noise._grid_rounded(x, g), noise._grid_rounded(y, g))
    assert exact_steps.max() <= p["sensitivity_steps"], (grid, exact_steps.max())


@pytest.mark.parametrize("grid", sorted(_GRIDS))
def test_grid_rounding_keeps_the_float_rounding_wherever_that_is_exact(grid):
    """Ordinary values (uniform, normal and integer, up to ``10^9`` steps) round to exactly
    ``rint(fl(x / g))``: the exact check corrects nothing there. Far out (``2^50``, ``2^58``
    steps), where that rounding often errs, the grid integer differs from it only where it is
    more than 1/2 from the exact quotient (``fractions.Fraction``)."""
    g = _GRIDS[grid]()["grid"]
    rng = np.random.default_rng(14)
    for steps in (1.0, 1e3, 1e6, 1e9):
        top = max(int(steps * g), 1)  # integer values (counts, degrees) up to about that far
        for x in (rng.uniform(-steps, steps, 50_000) * g, rng.standard_normal(50_000) * steps * g,
                  rng.integers(-top, top + 1, 50_000).astype(float)):
            assert np.array_equal(noise._grid_rounded(x, g), np.rint(x / g).astype(np.int64))
    for steps in (2.0 ** 50, 2.0 ** 58):
        x = rng.uniform(-steps, steps, 2_000) * g
        old, new = np.rint(x / g).astype(np.int64), noise._grid_rounded(x, g)
        differ = np.flatnonzero(old != new)
        assert all(_exact_distance(x[i], g, old[i]) > Fraction(1, 2) for i in differ)
        assert all(_exact_distance(v, g, k) <= Fraction(1, 2) for v, k in zip(x, new))


def test_grid_rounding_breaks_exact_ties_to_even_as_rint_does():
    """Values exactly halfway between two grid points (``(k + 1/2) 2^-10`` on the grid
    ``2^-10`` of a sensitivity-1 Laplace release, ``k`` up to ``2^51``) round to the even
    neighbour, as ``rint`` does: both neighbours are within 1/2, and the choice is unchanged."""
    g = discrete_laplace_parameters(1.0, 1.0, 1)["grid"]
    assert g == 2.0 ** -10
    rng = np.random.default_rng(15)
    k = np.concatenate([np.arange(-50, 50), rng.integers(-2 ** 51, 2 ** 51, 1000)])
    x = (k.astype(float) + 0.5) * g
    assert all(Fraction(float(v)) / Fraction(g) == Fraction(2 * int(m) + 1, 2)
               for v, m in zip(x, k))  # exact ties
    n = noise._grid_rounded(x, g)
    assert np.array_equal(n % 2, np.zeros_like(n)) and np.array_equal(n, np.rint(x / g))

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
