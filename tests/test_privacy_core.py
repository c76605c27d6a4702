import math

import numpy as np
import pytest
from scipy.stats import norm

from dpgraph.privacy import (
    PrivacyBudgetError,
    PrivacyLedger,
    SymmetricGaussianNoise,
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    gaussian_mechanism,
    monotone_exponential_mechanism,
)


def _delta_independent(sigma, eps, sens):
    """Balle-Wang Thm 8 evaluated directly with scipy.stats (no log-space tricks)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)


def test_analytic_below_classical_and_exact():
    s = analytic_gaussian_sigma(1.0, 1e-6)
    assert s < classical_gaussian_sigma(1.0, 1e-6) == pytest.approx(5.30, abs=0.01)
    assert _delta_independent(s, 1.0, 1.0) == pytest.approx(1e-6, rel=1e-9)


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 8.0, 50.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
def test_analytic_sigma_range(eps, delta):
    s = analytic_gaussian_sigma(eps, delta, sensitivity=2.0)
    assert analytic_gaussian_delta(s, eps, 2.0) <= delta
    assert analytic_gaussian_delta(s * (1 - 1e-9), eps, 2.0) > delta * (1 - 1e-6)


def test_ledger_refuses_before_drawing():
    led = PrivacyLedger(epsilon=1.0, delta=1e-6)
    gaussian_mechanism(0.0, sensitivity=1, epsilon=0.6, delta=5e-7, ledger=led, name="a", rng=0)
    with pytest.raises(PrivacyBudgetError):
        gaussian_mechanism(0.0, sensitivity=1, epsilon=0.6, delta=5e-7, ledger=led, name="b", rng=0)
    assert len(led.entries) == 1
    assert "total" in led.report()


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_epsilon(bad):
    with pytest.raises(ValueError):
        analytic_gaussian_sigma(bad, 1e-6)


def test_symmetric_noise_blocks_are_consistent():
    G = SymmetricGaussianNoise(700, 1.5, rng=3, block_size=128)
    D = G.to_dense()
    assert np.array_equal(D, D.T)
    V = np.random.default_rng(0).standard_normal((700, 4))
    assert np.allclose(G.matmul(V), D @ V)
    off = D[np.triu_indices(700, 1)]
    # 244,650 draws: the sample sd is within 1% of 1.5 with overwhelming probability
    assert abs(off.std() - 1.5) < 0.015


def test_symmetric_noise_sensitivity_formula():
    """The vector the symmetric noise protects is (M_ij)_{i<j} ++ (M_ii / c); its change under a
    symmetric E must equal ||E||_F / sqrt(2) at c = sqrt(2) (and exceed it at c = 1/sqrt(2))."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        E = rng.standard_normal((9, 9))
        E = E + E.T
        iu = np.triu_indices(9, 1)
        for c, expect_equal in [(math.sqrt(2), True), (1 / math.sqrt(2), False)]:
            vec = np.concatenate([E[iu], np.diag(E) / c])
            target = np.linalg.norm(E) / math.sqrt(2)
            if expect_equal:
                assert np.linalg.norm(vec) == pytest.approx(target, rel=1e-12)
            else:
                assert np.linalg.norm(vec) > target
    # and the generated diagonal really has standard deviation c * sigma
    G = SymmetricGaussianNoise(400, 1.0, rng=1, block_size=100, diagonal_scale=math.sqrt(2)).to_dense()
    d = np.diag(G)
    # 400 draws of N(0, 2): sample variance within 5 standard errors (sd of s^2 ~ 2*sqrt(2/400))
    assert abs(d.var() - 2.0) < 5 * 2 * math.sqrt(2 / 400)


def test_monotone_exponential_frequencies():
    """Fixed-seed frequencies of the Gumbel-max draw match exp(eps * s / Delta), normalized."""
    scores, eps, sens = np.array([0.0, 1.0, 2.5, 0.5]), 0.8, 2.0
    rng = np.random.default_rng(5)
    draws = 40000
    counts = np.bincount([monotone_exponential_mechanism(
        scores, sensitivity=sens, epsilon=eps, ledger=PrivacyLedger(epsilon=1, delta=0), name="t",
        rng=rng) for _ in range(draws)], minlength=4)
    led = PrivacyLedger(epsilon=1, delta=0)
    monotone_exponential_mechanism(scores, sensitivity=sens, epsilon=eps, ledger=led, name="t")
    p = np.exp(eps * scores / sens)
    p /= p.sum()
    se = np.sqrt(p * (1 - p) / draws)
    assert np.all(np.abs(counts / draws - p) <= 4 * se)
    assert len(led.entries) == 1 and led.entries[0].noise_scale == sens / eps
    with pytest.raises(ValueError, match="finite"):
        monotone_exponential_mechanism([np.nan], sensitivity=1, epsilon=1, ledger=led, name="t")
