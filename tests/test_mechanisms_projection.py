"""Convex sets, Dykstra and averaged projections, checked against CVXPY+SCS and first principles."""

import math

import cvxpy as cp
import numpy as np
import pytest

from dpgraph.mechanisms import (
    AffineSubspace,
    BlockSimplex,
    Box,
    DiagonalBox,
    FrobeniusBall,
    Intersection,
    NonNegative,
    NuclearBall,
    PSDBoundedDiagonal,
    PSDCone,
    PSDTraceBall,
    Simplex,
    SpectralBall,
    averaged_projections,
    dykstra,
)


def _sym(rng, n, scale=1.0):
    A = rng.standard_normal((n, n)) * scale
    return (A + A.T) / 2


def _low_rank_center(rng, n, r):
    U, _ = np.linalg.qr(rng.standard_normal((n, r)))
    s = rng.uniform(1, 3, r) * rng.choice([-1, 1], r)
    return U, s


def _sets_for(n, rng):
    U, s = _low_rank_center(rng, n, 3)
    C = (U * s) @ U.T
    return [
        PSDCone(), Box(-0.3, 0.4), NonNegative(), FrobeniusBall(2.0), FrobeniusBall(1.0, center=C),
        NuclearBall(3.0), PSDTraceBall(2.0), SpectralBall(C, 0.7, method="eigh"),
        SpectralBall((U, s), 0.7, method="partial"), DiagonalBox(upper=1.0),
        PSDBoundedDiagonal(1.0), PSDBoundedDiagonal(1.0, equality=True),
    ]


@pytest.mark.parametrize("k", range(12))
def test_projection_is_a_projection(k):
    """Idempotent, lands in the set, and satisfies <z - P z, y - P z> <= 0 for y in the set."""
    rng = np.random.default_rng(k)
    n = 12
    S = _sets_for(n, rng)[k]
    z = _sym(rng, n, 2.0)
    p = S.project(z)
    assert S.contains(p, tol=1e-6)
    assert np.allclose(S.project(p), p, atol=1e-6)
    for _ in range(5):
        y = S.project(_sym(rng, n, 2.0))
        assert np.sum((z - p) * (y - p)) <= 1e-5 * max(1, np.linalg.norm(z))


def test_simplex_and_block_simplex():
    rng = np.random.default_rng(1)
    v = rng.standard_normal(30)
    p = Simplex(2.5).project(v)
    assert p.min() >= 0 and p.sum() == pytest.approx(2.5)
    x = cp.Variable(30)
    cp.Problem(cp.Minimize(cp.sum_squares(x - v)), [x >= 0, cp.sum(x) == 2.5]).solve(
        solver=cp.SCS, eps_abs=1e-10, eps_rel=1e-10)
    assert np.allclose(p, x.value, atol=1e-5)
    capped = Simplex(100.0, capped=True).project(v)
    assert np.allclose(capped, np.maximum(v, 0))
    B = BlockSimplex([np.arange(0, 10), np.arange(10, 30)], [1.0, 2.5])
    q = B.project(v)
    assert np.allclose(q[:10], Simplex(1.0).project(v[:10]))
    assert np.allclose(q[10:], Simplex(2.5).project(v[10:]))


def test_affine_subspace_with_redundant_equations():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((4, 10))
    A = np.vstack([A, A[:2] * 2.0])  # redundant rows
    x0 = rng.standard_normal(10)
    S = AffineSubspace(A, A @ x0)
    z = rng.standard_normal(10)
    p = S.project(z)
    assert S.contains(p, tol=1e-9)
    assert np.allclose(S.project(p), p)
    assert abs((z - p) @ (x0 - p)) < 1e-9  # residual orthogonal to the subspace


def _cvx_project(Z, constraints_fn):
    n = Z.shape[0]
    X = cp.Variable((n, n), symmetric=True)
    cp.Problem(cp.Minimize(cp.sum_squares(X - Z)), constraints_fn(X)).solve(
        solver=cp.SCS, eps_abs=1e-9, eps_rel=1e-9, max_iters=200000)
    return X.value


CASES = {
    "psd+box": (lambda C: [PSDCone(), Box(0.0, 0.5)], lambda X, C: [X >> 0, X >= 0, X <= 0.5]),
    "psd+diag<=1": (lambda C: [PSDCone(), DiagonalBox(upper=1.0)],
                    lambda X, C: [X >> 0, cp.diag(X) <= 1]),
    "nonneg+spectral": (lambda C: [NonNegative(), SpectralBall(C, 0.5)],
                        lambda X, C: [X >= 0, cp.sigma_max(X - C) <= 0.5]),
    "trace+box": (lambda C: [PSDTraceBall(1.0), Box(upper=0.05)],
                  lambda X, C: [X >> 0, cp.trace(X) <= 1, X <= 0.05]),
}


_PARAMS = [pytest.param(c, n, a, marks=[pytest.mark.slow] if (c, a) == ("trace+box", False) else [])
           for c in CASES for n, a in [(8, False), (8, True), (20, True)]]


@pytest.mark.parametrize("case,n,accelerate", _PARAMS)
def test_dykstra_matches_cvxpy(case, n, accelerate):
    rng = np.random.default_rng(n)
    B = np.abs(rng.standard_normal((n, 2)))
    C = B @ B.T / n  # non-negative and PSD, so every intersection below is non-empty
    Z = C + _sym(rng, n, 1.0)
    ours, theirs = CASES[case]
    res = dykstra(Z, ours(C), tol=1e-10, max_iter=20000, accelerate=accelerate)
    assert res.converged
    ref = _cvx_project(Z, lambda X: theirs(X, C))
    assert np.abs(res.point - ref).max() < 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_dykstra_matches_cvxpy_n50(case):
    test_dykstra_matches_cvxpy(case, 50, False)
    test_dykstra_matches_cvxpy(case, 50, True)


def test_dykstra_fixes_points_of_the_set():
    rng = np.random.default_rng(7)
    n = 15
    B = rng.uniform(0, 1, (n, 3))
    X = B @ B.T / 3  # PSD, entries in [0, 1]
    res = dykstra(X, [PSDCone(), Box(0, 1)], tol=1e-12)
    assert res.converged and np.allclose(res.point, X, atol=1e-10)
    res = averaged_projections(X, [PSDCone(), Box(0, 1)], tol=1e-12)
    assert res.iterations == 1 and np.allclose(res.point, X)


@pytest.mark.parametrize("method", ["average", "alternating"])
def test_averaged_projections_feasible_not_projection(method):
    rng = np.random.default_rng(3)
    n = 20
    B = np.abs(rng.standard_normal((n, 2)))
    C = B @ B.T / n
    Z = C + _sym(rng, n, 1.0)
    sets = [NonNegative(), SpectralBall(C, 0.5)]
    res = averaged_projections(Z, sets, tol=1e-8, method=method, max_iter=20000)
    assert res.converged
    assert sets[0].contains(res.point, tol=1e-6) and sets[1].contains(res.point, tol=1e-6)
    exact = dykstra(Z, sets, tol=1e-10, max_iter=20000).point
    # the exact projection is at least as close to Z as any feasible point
    assert np.linalg.norm(exact - Z) <= np.linalg.norm(res.point - Z) + 1e-7


def test_spectral_ball_partial_equals_eigh_and_keeps_input():
    rng = np.random.default_rng(4)
    n = 400
    U, s = _low_rank_center(rng, n, 4)
    X = (U * (s * 30)) @ U.T + _sym(rng, n, 1.0)
    X0 = X.copy()
    a = SpectralBall((U, s), 1.7 * math.sqrt(n), method="partial").project(X)
    b = SpectralBall((U * s) @ U.T, 1.7 * math.sqrt(n), method="eigh").project(X)
    assert np.array_equal(X, X0)
    assert np.abs(a - b).max() < 1e-8
    # in place
    S = SpectralBall((U, s), 1.7 * math.sqrt(n), method="partial")
    S.project(X, out=X)
    assert np.abs(X - b).max() < 1e-8 and S.last_num_eigenpairs >= 4


def test_intersection_object_and_errors():
    I = Intersection([PSDCone(), Box(0, 1)], tol=1e-10)
    rng = np.random.default_rng(0)
    Z = _sym(rng, 6)
    P = I.project(Z)
    assert I.contains(P, tol=1e-7) and I.last_result.converged
    with pytest.raises(ValueError):
        FrobeniusBall(-1.0)
    with pytest.raises(ValueError):
        Box(1.0, 0.0)
    with pytest.raises(ValueError):
        dykstra(np.array([np.nan]), [Box(0, 1), FrobeniusBall(1)])
    with pytest.raises(TypeError):
        dykstra(np.zeros(3), ["not a set"])


@pytest.mark.parametrize("accelerate", [False, True])
def test_chunked_paths_on_large_arrays(accelerate):
    """Arrays with more rows than the 1024-row chunk go through the blockwise norms."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((1100, 40))
    sets = [NonNegative(), FrobeniusBall(5.0)]
    res = dykstra(Z, sets, tol=1e-9, accelerate=accelerate)
    exact = np.maximum(Z, 0)
    exact *= min(1.0, 5.0 / np.linalg.norm(exact))  # projection onto the intersection
    assert res.converged and np.abs(res.point - exact).max() < 1e-6
    avg = averaged_projections(Z, sets, tol=1e-9)
    tol = 1e-9 * np.linalg.norm(Z)  # the residual is relative to ||Z||
    assert avg.converged and sets[0].contains(avg.point, tol) and sets[1].contains(avg.point, tol)
