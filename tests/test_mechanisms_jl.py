import math

import numpy as np
import pytest

from dpgraph.mechanisms import jl_second_moment, jl_two_way_marginals
from dpgraph.mechanisms.jl import gordon_factor, second_moment_sensitivity, smat, svec
from dpgraph.mechanisms.sets import PSDTraceBall


def _rows(m, d, rng):
    X = rng.standard_normal((m, d)) * np.linspace(0.3, 1.0, d)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_svec_is_an_isometry():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    A = A + A.T
    assert np.linalg.norm(svec(A)) == pytest.approx(np.linalg.norm(A))
    assert np.allclose(smat(svec(A), 6), A)


def test_second_moment_sensitivity_adjacent_rows():
    """||x x^T - y y^T||_F <= sqrt 2 for unit-norm rows; attained by orthogonal rows."""
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(2000):
        x, y = _rows(2, 5, rng)
        worst = max(worst, np.linalg.norm(np.outer(x, x) - np.outer(y, y)))
    assert worst <= math.sqrt(2) + 1e-12
    e1, e2 = np.eye(5)[:2]
    assert np.linalg.norm(np.outer(e1, e1) - np.outer(e2, e2)) == pytest.approx(math.sqrt(2))
    assert second_moment_sensitivity(100) == pytest.approx(math.sqrt(2) / 100)


def test_gordon_factor_bounds_rank_two_images():
    """For a drawn Gaussian JL matrix, ||Pi svec Z|| <= factor ||Z||_F on rank-2 symmetric Z,
    including ones chosen adversarially (top singular directions of Pi mapped to matrices)."""
    d, l = 8, 60
    D = d * (d + 1) // 2
    fac = gordon_factor(d, l, 1e-6)
    rng = np.random.default_rng(2)
    for trial in range(20):
        Pi = rng.standard_normal((l, D)) / math.sqrt(l)
        # adversarial: best rank-2 approximation of the top right singular vector
        _, _, Vt = np.linalg.svd(Pi, full_matrices=False)
        cands = []
        for k in range(3):
            A = smat(Vt[k], d)
            w, V = np.linalg.eigh(A)
            idx = np.argsort(-np.abs(w))[:2]
            cands.append((V[:, idx] * w[idx]) @ V[:, idx].T)
        for _ in range(50):
            u, v = rng.standard_normal((2, d))
            cands.append(np.outer(u, u) - np.outer(v, v))
        for Z in cands:
            Z = Z / np.linalg.norm(Z)
            assert np.linalg.norm(Pi @ svec(Z)) <= fac


@pytest.mark.parametrize("lift", ["projection", "frank-wolfe"])
def test_jl_second_moment_recovers_with_little_noise(lift):
    rng = np.random.default_rng(3)
    m, d = 4000, 6
    X = _rows(m, d, rng)
    S = X.T @ X / m
    D = d * (d + 1) // 2
    res = jl_second_moment(X, epsilon=1e4, delta=1e-3, jl_dim=3 * D, rng=4, lift=lift,
                           max_iter=5000, tol=1e-10)
    assert PSDTraceBall(1.0).contains(res.estimate, tol=1e-6)
    assert np.linalg.norm(res.estimate - S) < 0.02
    # ledger: Gordon failure probability charged to delta, the rest to the Gaussian
    assert res.ledger.spent[1] == pytest.approx(1e-3)
    assert any(e.mechanism == "jl-gordon-failure" for e in res.ledger.entries)


@pytest.mark.slow
def test_jl_lifts_agree():
    rng = np.random.default_rng(5)
    X = _rows(3000, 5, rng)
    a = jl_second_moment(X, epsilon=1.0, delta=1e-6, jl_dim=40, rng=6, lift="projection",
                         max_iter=5000, tol=1e-10)
    b = jl_second_moment(X, epsilon=1.0, delta=1e-6, jl_dim=40, rng=6, lift="frank-wolfe",
                         max_iter=20000, tol=1e-9)
    assert np.linalg.norm(a.estimate - b.estimate) < 5e-3


def test_jl_pure_dp_operator_bound_and_adjacent_sensitivity():
    """Pure DP with the computed operator-norm bound; adjacent datasets' JL images move by at
    most the sensitivity used (rows chosen adversarially along Pi's top directions)."""
    rng = np.random.default_rng(7)
    m, d = 500, 4
    X = _rows(m, d, rng)
    res = jl_second_moment(X, epsilon=1.0, jl_dim=12, jl="rademacher", noise="knorm",
                           sensitivity_bound="operator", rng=8)
    assert res.ledger.spent == pytest.approx((1.0, 0.0))
    from dpgraph.mechanisms.jl import _jl_matrix
    from dpgraph.privacy import make_rng

    Pi = _jl_matrix("rademacher", 12, d * (d + 1) // 2, make_rng(8))  # same draw as above
    for _ in range(500):
        x, y = _rows(2, d, rng)
        diff = Pi @ svec(np.outer(x, x) - np.outer(y, y)) / m
        assert np.linalg.norm(diff) <= res.sensitivity + 1e-15


def test_jl_defaults_follow_delta_and_spend_what_was_asked():
    """delta=0 (the default) is pure DP: K-norm noise and the operator-norm bound, the ledger
    holds (epsilon, 0); with delta > 0, Gaussian noise and Gordon's bound, whose beta is
    charged inside delta. A call never spends a delta it was not given."""
    X = _rows(50, 3, np.random.default_rng(0))
    pure = jl_second_moment(X, epsilon=1.0, jl_dim=5, rng=0)
    assert pure.noise == "knorm" and pure.ledger.spent == pytest.approx((1.0, 0.0))
    assert (pure.ledger.epsilon, pure.ledger.delta) == (1.0, 0.0)
    approx = jl_second_moment(X, epsilon=1.0, delta=1e-6, jl_dim=5, rng=0)
    assert approx.noise == "gaussian" and approx.ledger.spent == pytest.approx((1.0, 1e-6))
    knorm = jl_second_moment(X, epsilon=1.0, delta=1e-6, jl_dim=5, noise="knorm", rng=0)
    assert knorm.ledger.spent == pytest.approx((1.0, 1e-7))  # beta = delta / 10, Gordon's bound
    assert jl_second_moment(X, epsilon=1.0, jl_dim=5, jl="rademacher", rng=0).noise == "knorm"


def test_jl_two_way_marginals():
    rng = np.random.default_rng(9)
    m, n = 5000, 5
    X = (rng.random((m, n)) < 0.4).astype(float)
    res = jl_two_way_marginals(X, epsilon=1e4, delta=1e-3, jl_dim=60, rng=1, max_iter=5000,
                               tol=1e-10)
    assert np.abs(res.estimate - X.T @ X / m).max() < 0.02


def test_jl_two_way_marginals_sensitivity_is_the_exact_tensor_bound():
    """0/1 rows with at most t ones: the release's sensitivity is Delta_2(t, n) ||Pi|| / m
    (docs/privacy.md 2.5), attained by the all-ones row against the zero row at t = n, and
    below the sqrt(2) t of rows of norm sqrt t; every adjacent pair of rows stays within it."""
    import itertools

    from dpgraph.mechanisms import tensor_sensitivity
    from dpgraph.mechanisms.jl import _jl_matrix
    from dpgraph.privacy import make_rng

    m, n = 40, 4
    X = (np.random.default_rng(3).random((m, n)) < 0.5).astype(float)
    res = jl_two_way_marginals(X, epsilon=1.0, jl_dim=8, jl="rademacher", noise="knorm",
                               sensitivity_bound="operator", rng=5)
    Pi = _jl_matrix("rademacher", 8, n * (n + 1) // 2, make_rng(5))  # the same draw
    L = np.linalg.norm(Pi, 2)
    assert res.sensitivity == pytest.approx(tensor_sensitivity(2, n) * L / m, rel=1e-6)
    assert res.sensitivity < np.sqrt(2) * n * L / m
    rows = [np.array(r, float) for r in itertools.product([0, 1], repeat=n)]
    worst = max(np.linalg.norm(Pi @ svec(np.outer(x, x) - np.outer(y, y))) / m
                for x in rows for y in rows)
    assert worst <= res.sensitivity * (1 + 1e-12)


@pytest.mark.parametrize("kw", [dict(jl="rademacher", sensitivity_bound="gordon"),
                                dict(delta=0.0, noise="gaussian"),
                                dict(delta=0.0, noise="knorm", sensitivity_bound="gordon"),
                                dict(delta=0.0, noise="knorm", sensitivity_bound="gordon",
                                     beta=1e-2),
                                dict(beta=1e-3), dict(beta=1e-6), dict(beta=True),
                                dict(noise="laplace"), dict(sensitivity_bound="l1"),
                                dict(lift="admm"), dict(jl_dim=0), dict(epsilon=0.0),
                                dict(delta=1.0)])
def test_jl_bad_input(kw):
    X = _rows(10, 3, np.random.default_rng(0))
    args = dict(epsilon=1.0, delta=1e-6, jl_dim=5) | kw
    with pytest.raises(ValueError):
        jl_second_moment(X, **args)
    with pytest.raises(ValueError):
        jl_second_moment(2 * X, epsilon=1.0, delta=1e-6, jl_dim=5)
    with pytest.raises(ValueError):
        jl_two_way_marginals(np.array([[0, 2]]), epsilon=1.0, delta=1e-6, jl_dim=3)


def test_private_second_moment_projection_and_bad_input():
    from dpgraph.mechanisms import private_second_moment
    from dpgraph.privacy import analytic_gaussian_sigma

    rng = np.random.default_rng(11)
    m, d = 2000, 30
    X = _rows(m, d, rng)
    S = X.T @ X / m
    res = private_second_moment(X, epsilon=1.0, delta=1e-6, rng=1)
    assert res.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-6, 1 / m))
    assert PSDTraceBall(1.0).contains(res.estimate, tol=1e-9)
    # projection onto a convex set containing S never increases the error
    assert np.linalg.norm(res.estimate - S) <= np.linalg.norm(res.noisy - S)
    with pytest.raises(ValueError):
        private_second_moment(2 * X, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError):
        private_second_moment(X, epsilon=1.0, delta=0.0)
