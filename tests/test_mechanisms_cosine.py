import math

import cvxpy as cp
import numpy as np
import pytest

from dpgraph.mechanisms.cosine import (
    private_cosine_similarities,
    replace_one_vector_sensitivity,
)
from dpgraph.privacy import analytic_gaussian_sigma


def _clustered(n, d, rng):
    centers = rng.standard_normal((4, d))
    V = centers[rng.integers(0, 4, n)] + 0.3 * rng.standard_normal((n, d))
    return V / np.linalg.norm(V, axis=1, keepdims=True)


@pytest.mark.parametrize("method", ["exact", "practical"])
def test_cosine_release_is_in_elliptope_and_beats_gaussian(method):
    rng = np.random.default_rng(0)
    n = 150
    V = _clustered(n, 5, rng)
    G = V @ V.T
    res = private_cosine_similarities(V, epsilon=1.0, delta=1e-6, method=method, rng=1,
                                      rank=5 if method == "practical" else None)
    S = res.similarities
    assert np.allclose(np.diag(S), 1.0, atol=1e-5)
    assert np.linalg.eigvalsh(S).min() > -1e-5
    sigma = analytic_gaussian_sigma(1.0, 1e-6, 1 / math.sqrt(2))
    assert res.sigma == pytest.approx(sigma)
    # plain Gaussian mechanism error: E ||W||_F^2 = n(n-1) sigma^2 + 2 n sigma^2 (no projection)
    gauss_err = n * (n - 1) * sigma**2
    err = np.linalg.norm(S - G) ** 2
    # the projection bound ||X - G||_F^2 <= 4 n ||W||_2 with ||W||_2 <= 2.2 sigma sqrt(n) w.h.p.
    if method == "exact":
        assert err <= 4 * n * 2.2 * sigma * math.sqrt(n)
        assert res.projection.converged
    assert err < gauss_err / 5
    assert res.ledger.spent == pytest.approx((1.0, 1e-6))


def test_exact_matches_cvxpy_projection():
    """Re-run the same noise (same seed) and project with CVXPY+SCS onto the elliptope."""
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.privacy.noise import symmetric_gaussian_noise

    rng = np.random.default_rng(3)
    n = 20
    V = _clustered(n, 3, rng)
    res = private_cosine_similarities(V, epsilon=2.0, delta=1e-5, rng=11, tol=1e-10,
                                      max_iter=20000)
    G = V @ V.T
    W = symmetric_gaussian_noise(n, sensitivity=1 / math.sqrt(2), epsilon=2.0, delta=1e-5,
                                 ledger=PrivacyLedger(), name="w", rng=11,
                                 diagonal_scale=math.sqrt(2)).to_dense()
    Y = G + W
    X = cp.Variable((n, n), symmetric=True)
    cp.Problem(cp.Minimize(cp.sum_squares(X - Y)), [X >> 0, cp.diag(X) == 1]).solve(
        solver=cp.SCS, eps_abs=1e-10, eps_rel=1e-10, max_iters=200000)
    assert np.abs(res.similarities - X.value).max() < 1e-5


def test_gram_frobenius_adjacency_sensitivity():
    """Adjacent inputs under ||G - G'||_F <= 1 (including the boundary): the coordinates the
    symmetric noise protects, (G_ij)_{i<j} ++ (G_ii / sqrt 2), move by at most 1/sqrt(2)."""
    rng = np.random.default_rng(5)
    n = 30
    iu = np.triu_indices(n, 1)
    for trial in range(200):
        V = _clustered(n, 4, rng)
        W = V.copy()
        i = rng.integers(n)
        W[i] = W[i] + rng.standard_normal(4) * rng.uniform(0.01, 1)
        W[i] /= np.linalg.norm(W[i])
        E = V @ V.T - W @ W.T
        f = np.linalg.norm(E)
        if f == 0:
            continue
        # rescale the change to sit exactly on (or inside) the adjacency boundary
        E *= min(1.0, 1.0 / f) if trial % 2 else 1.0 / f
        vec = np.concatenate([E[iu], np.diag(E) / math.sqrt(2)])
        assert np.linalg.norm(vec) <= 1 / math.sqrt(2) + 1e-12


def test_replace_one_vector_sensitivity_is_tight():
    rng = np.random.default_rng(0)
    n = 25
    bound = replace_one_vector_sensitivity(n)
    worst = 0.0
    for _ in range(300):
        V = _clustered(n, 3, rng)
        W = V.copy()
        W[0] = -V[0] if rng.random() < 0.3 else rng.standard_normal(3)
        W[0] /= np.linalg.norm(W[0])
        worst = max(worst, np.linalg.norm(V @ V.T - W @ W.T))
        assert worst <= bound + 1e-9
    V = np.tile(np.array([1.0, 0, 0]), (n, 1))
    W = V.copy()
    W[0] = -W[0]
    assert np.linalg.norm(V @ V.T - W @ W.T) == pytest.approx(bound)


def test_cosine_bad_input():
    with pytest.raises(ValueError):
        private_cosine_similarities(np.zeros((3, 2)), epsilon=1, delta=1e-6)
    with pytest.raises(ValueError):
        private_cosine_similarities(np.ones((3, 2)), epsilon=0, delta=1e-6)
    with pytest.raises(ValueError):
        private_cosine_similarities(np.ones((3, 2)), epsilon=1, delta=1.5)
    with pytest.raises(ValueError):
        private_cosine_similarities(np.ones((3, 2)), epsilon=1, delta=1e-6, sensitivity=-1)
