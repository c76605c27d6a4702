import math

import numpy as np
import pytest

from dpgraph.mechanisms import NonNegative, PSDCone, Simplex, SpectralBall, perturb_and_project
from dpgraph.privacy import PrivacyBudgetError, PrivacyLedger, analytic_gaussian_sigma


def test_perturb_and_project_vector():
    x = np.full(50, 1 / 50)
    res = perturb_and_project(x, Simplex(1.0), sensitivity=0.1, epsilon=1.0, delta=1e-6, rng=1)
    assert res.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-6, 0.1))
    assert not res.symmetric_noise
    assert res.release.min() >= 0 and res.release.sum() == pytest.approx(1.0)
    # projection onto a convex set containing x never increases the distance to x
    assert np.linalg.norm(res.release - x) <= np.linalg.norm(res.noisy - x)
    assert res.ledger.spent == pytest.approx((1.0, 1e-6))
    assert "PerturbAndProjectResult" in repr(res)


def test_perturb_and_project_symmetric_noise_scale():
    n = 300
    X = np.eye(n)
    res = perturb_and_project(X, PSDCone(), sensitivity=2.0, epsilon=1.0, delta=1e-6, rng=2,
                              symmetric=True)
    assert res.symmetric_noise
    sigma = analytic_gaussian_sigma(1.0, 1e-6, 2.0 / math.sqrt(2))
    assert res.sigma == pytest.approx(sigma)
    W = res.noisy - X
    assert np.array_equal(W, W.T)
    off = W[np.triu_indices(n, 1)]
    # 44,850 off-diagonal N(0, sigma^2): sd within 2% ; diagonal N(0, 2 sigma^2) within 15%
    assert abs(off.std() / sigma - 1) < 0.02
    assert abs(np.diag(W).std() / (math.sqrt(2) * sigma) - 1) < 0.15
    assert np.linalg.eigvalsh(res.release).min() > -1e-8


def test_noise_form_is_never_read_from_the_private_value():
    """Adjacent inputs, one symmetric and one not (one entry changed by the sensitivity), get
    the same noise form, so no release tells them apart with certainty; symmetric=True takes
    the symmetric part of either, which leaves no noise-free antisymmetric part."""
    X = np.zeros((3, 3))
    Xp = X.copy()
    Xp[0, 1] = 1.0
    for value in (X, Xp):
        res = perturb_and_project(value, NonNegative(), sensitivity=1.0, epsilon=1.0,
                                  delta=1e-6, rng=0)
        assert not res.symmetric_noise and not np.allclose(res.noisy, res.noisy.T)
        sym = perturb_and_project(value, NonNegative(), sensitivity=1.0, epsilon=1.0,
                                  delta=1e-6, rng=0, symmetric=True)
        assert sym.symmetric_noise and np.array_equal(sym.noisy, sym.noisy.T)
    near = np.array([[1e6, 3e-7], [0.0, 1e6]])
    res = perturb_and_project(near, NonNegative(), sensitivity=1.0, epsilon=1.0, delta=1e-6,
                              rng=1, symmetric=True)
    assert res.noisy[0, 1] == res.noisy[1, 0]
    with pytest.raises(ValueError, match="square matrix"):
        perturb_and_project(np.zeros(3), NonNegative(), sensitivity=1.0, epsilon=1.0,
                            delta=1e-6, symmetric=True)
    with pytest.raises(ValueError, match="symmetric must be True or False"):
        perturb_and_project(X, NonNegative(), sensitivity=1.0, epsilon=1.0, delta=1e-6,
                            symmetric=None)


def test_perturb_and_project_intersection_and_ledger():
    rng = np.random.default_rng(0)
    n = 40
    B = np.abs(rng.standard_normal((n, 2)))
    C = B @ B.T / n
    led = PrivacyLedger(epsilon=1.5, delta=1e-5)
    res = perturb_and_project(C, [NonNegative(), SpectralBall(C, 1.0)], sensitivity=1.0,
                              epsilon=1.0, delta=5e-6, ledger=led, rng=3, tol=1e-7)
    assert res.projection.converged
    assert res.release.min() >= -1e-9
    with pytest.raises(PrivacyBudgetError):
        perturb_and_project(C, NonNegative(), sensitivity=1.0, epsilon=1.0, delta=5e-6,
                            ledger=led, rng=3)
    assert len(led.entries) == 1


@pytest.mark.parametrize("kw", [dict(epsilon=0.0), dict(epsilon=-1.0), dict(delta=1.0),
                                dict(delta=-0.1), dict(sensitivity=0.0),
                                dict(sensitivity=float("inf")), dict(sensitivity=float("nan"))])
def test_perturb_and_project_bad_input(kw):
    args = dict(sensitivity=1.0, epsilon=1.0, delta=1e-6) | kw
    with pytest.raises(ValueError):
        perturb_and_project(np.zeros(3), Simplex(1.0), **args)
