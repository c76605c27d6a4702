"""Low-rank Max-2-CSP engine: exact feasibility, certificate validity, agreement with CVXPY+SCS."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.engine import CSPInstance, solve_max_2csp
from dpgraph.engine.twocsp_sdp import (certify_label_sdp, cvxpy_label_sdp, label_local_search,
                                        label_values, round_label_sdp, solve_label_sdp)


def _random_instance(n, q, m, rng):
    cons = []
    for _ in range(m):
        i, j = rng.choice(n, 2, replace=False)
        rel = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.35}
        cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
    return CSPInstance(n, q, cons)


def _gram(V):
    n, q, k = V.shape
    Vf = np.vstack([np.eye(1, k), V.reshape(n * q, k)])
    return Vf @ Vf.T


@pytest.mark.parametrize("q", [2, 3, 4])
def test_factor_is_exactly_feasible(q):
    rng = np.random.default_rng(q)
    inst = _random_instance(15, q, 40, rng)
    sol = solve_label_sdp(inst.label_adjacency(), 15, q, rng=0, max_iter=30)
    Y = _gram(sol.V)
    p = Y[0, 1:].reshape(15, q)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert np.allclose(np.diag(Y)[1:], Y[0, 1:], atol=1e-12)
    blocks = Y[1:, 1:].reshape(15, q, 15, q)[np.arange(15), :, np.arange(15), :]
    off = blocks - np.einsum("iab,ab->iab", blocks, np.eye(q))
    assert np.abs(off).max() < 1e-12
    assert sol.value == pytest.approx(0.5 * np.sum(inst.label_adjacency().toarray() * Y[1:, 1:]))


@pytest.mark.parametrize("seed", range(3))
def test_matches_scs_and_certifies(seed):
    # the same relaxation (per-variable constraints only) solved by CVXPY + SCS, in reduced
    # coordinates (Slater holds there; in the full moment form SCS is slow and inaccurate)
    rng = np.random.default_rng(seed)
    inst = _random_instance(10, 3, 30, rng)
    ref = cvxpy_label_sdp(inst.label_adjacency(), inst.n, inst.q)
    A = inst.label_adjacency()
    sol = solve_label_sdp(A, 10, 3, rng=seed, tol=1e-10)
    ub, info = certify_label_sdp(A, sol.V)
    assert info["certificate"] == "cholesky-verified"
    assert sol.value == pytest.approx(ref, rel=1e-6)
    assert ub >= ref - 1e-7 * ref   # valid (SCS's own value is accurate to ~1e-9)
    assert ub <= ref * (1 + 1e-4)   # and tight
    X = np.array(list(itertools.product(range(3), repeat=10)))
    opt = label_values(A, X, 3).max()  # brute force over all 3^10 assignments
    assert ub >= opt and sol.value >= opt - 1e-9


def test_certificate_valid_for_any_factor():
    # a far-from-optimal factor still gives an upper bound on the relaxation optimum
    rng = np.random.default_rng(5)
    inst = _random_instance(10, 3, 30, rng)
    ref = cvxpy_label_sdp(inst.label_adjacency(), inst.n, inst.q)
    A = inst.label_adjacency()
    for it in (0, 3):
        sol = solve_label_sdp(A, 10, 3, rng=it, max_iter=it)
        ub, _ = certify_label_sdp(A, sol.V)
        assert ub >= ref - 1e-7 * ref
    ub_l, info = certify_label_sdp(A, solve_label_sdp(A, 10, 3, rng=1).V, method="lanczos")
    assert info["certificate"] == "lanczos-residual" and ub_l >= ref - 1e-7 * ref


@pytest.mark.parametrize("seed", range(3))
def test_converges_on_random_instances(seed):
    # q = 3, 3n constraints (the benchmark family): certified relative gap <= 1e-3
    rng = np.random.default_rng(100 + seed)
    n = 150
    inst = _random_instance(n, 3, 3 * n, rng)
    A = inst.label_adjacency()
    sol = solve_label_sdp(A, n, 3, rng=seed)
    ub, info = certify_label_sdp(A, sol.V)
    assert info["certificate"] == "cholesky-verified"
    assert sol.converged
    assert (ub - sol.value) / ub <= 1e-3


@pytest.mark.slow
def test_matches_scs_at_n60():
    rng = np.random.default_rng(60)
    inst = _random_instance(60, 3, 180, rng)
    ref = cvxpy_label_sdp(inst.label_adjacency(), inst.n, inst.q, eps=1e-8)
    res = solve_max_2csp(inst, rng=0, tol=1e-9)
    assert abs(res.sdp_value - ref) <= 1e-4 * ref
    assert res.upper_bound >= ref * (1 - 1e-6)


def test_rounding_and_local_search():
    rng = np.random.default_rng(8)
    inst = _random_instance(9, 3, 25, rng)
    A = inst.label_adjacency()
    sol = solve_label_sdp(A, 9, 3, rng=0)
    X = round_label_sdp(A, sol.V, rng=0)
    assert X.shape[1] == 9 and X.min() >= 0 and X.max() < 3
    assert len({r.tobytes() for r in X}) == X.shape[0]
    v = label_values(A, X, 3)
    assert np.allclose(v, [inst.value(x) for x in X])
    x, _ = label_local_search(A, X[0], 3)
    base = inst.value(x)
    for i in range(9):  # a local optimum: no single move improves
        for b in range(3):
            y = x.copy()
            y[i] = b
            assert inst.value(y) <= base + 1e-9
    Ad = A.toarray()
    assert np.array_equal(label_local_search(Ad, X[0], 3)[0], x)


def test_solve_max_2csp_lowrank_small_alphabets():
    inst = CSPInstance(4, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0), (1, 2, {(0, 1), (1, 0)}, 1.0),
                              (2, 3, {(0, 1), (1, 0)}, 1.0), (3, 0, {(0, 1), (1, 0)}, 1.0)])
    res = solve_max_2csp(inst, rng=0)
    assert res.value == 4.0 and res.upper_bound == pytest.approx(4.0, abs=1e-5)
    res = solve_max_2csp(CSPInstance(3, 1, [(0, 1, {(0, 0)}, 2.0)]), rng=0)
    assert res.value == 2.0 and res.upper_bound == pytest.approx(2.0, abs=1e-6)
    with pytest.raises(ValueError, match="method"):
        solve_max_2csp(inst, method="cgal")
    with pytest.raises(ValueError, match="shape"):
        solve_label_sdp(sp.eye(5), 2, 2)


@pytest.mark.parametrize("seed", range(3))
def test_ldl_certificate_rigorous_and_tight(seed):
    # the sparse LDL^T certificate (the large-n path) against CVXPY + SCS on the same relaxation
    rng = np.random.default_rng(200 + seed)
    inst = _random_instance(10, 3, 30, rng)
    A = inst.label_adjacency()
    ref = cvxpy_label_sdp(A, inst.n, inst.q)
    sol = solve_label_sdp(A, 10, 3, rng=seed, tol=1e-10)
    ub, info = certify_label_sdp(A, sol.V, method="ldl")
    assert info["certificate"] == "ldl-verified" and info["factorizations"] >= 1
    assert ub >= ref - 1e-7 * ref
    assert ub <= ref * (1 + 1e-3)
    # the same dual point as the dense Cholesky certificate: the same bound (the gap above is
    # the fitted multipliers', shared by both)
    ub_dense, _ = certify_label_sdp(A, sol.V, method="factor")
    assert abs(ub - ub_dense) <= 1e-8 * ub
    # any factor, however poor, still gives a bound (the Lanczos guess is then far off)
    ub0, info0 = certify_label_sdp(A, solve_label_sdp(A, 10, 3, rng=seed, max_iter=0).V,
                                   method="ldl")
    assert info0["certificate"].startswith(("ldl-verified", "gershgorin")) and ub0 >= ref - 1e-7 * ref


def test_ldl_lambda_max_never_below_the_spectrum():
    # a wrong guess (far below the top eigenvalue, as when Lanczos misses it) must not leak into
    # the bound: every returned mu is verified, and bisection brings it close to lambda_max
    from dpgraph.engine.twocsp_sdp import ldl_verified_lambda_max

    rng = np.random.default_rng(3)
    for trial in range(5):
        B = sp.random(300, 300, density=0.02, random_state=rng.integers(1 << 30))
        S = sp.csr_array(B + B.T - 3.0 * sp.eye(300))
        top = float(np.linalg.eigvalsh(S.toarray())[-1])
        for guess in ((top - 2.0, 1e-3), (top, 0.0), (-50.0, 0.0), None):
            mu, info = ldl_verified_lambda_max(S, guess, rel=1e-3, max_factorizations=40)
            assert info["certificate"] == "ldl-verified"
            assert mu >= top
            assert mu <= top + 2e-3 * max(abs(top), 1.0)


@pytest.mark.slow  # 3-6 s on 2 cores
def test_auto_uses_ldl_above_the_dense_cap(monkeypatch):
    # the path taken at n > 3,250 (N = 2n + 1 > LABEL_DENSE_CERTIFICATE_MAX_N), forced at n = 150
    import dpgraph.engine.twocsp_sdp as lr

    rng = np.random.default_rng(7)
    inst = _random_instance(150, 3, 450, rng)
    A = inst.label_adjacency()
    sol = solve_label_sdp(A, 150, 3, rng=0)
    ub_dense, info_dense = certify_label_sdp(A, sol.V)
    assert info_dense["certificate"] == "cholesky-verified"
    monkeypatch.setattr(lr, "LABEL_DENSE_CERTIFICATE_MAX_N", 100)
    ub, info = certify_label_sdp(A, sol.V)
    assert info["certificate"] == "ldl-verified"
    assert (ub - sol.value) / ub <= 1e-3
    # both rigorous bounds of the same dual point agree to the bisection tolerance
    assert abs(ub - ub_dense) <= 1e-4 * ub
    # when the sparse factor cannot fit, 'auto' says the bound is unverified; 'ldl' refuses
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1K")
    _, info_l = certify_label_sdp(A, sol.V)
    assert info_l["certificate"].startswith("lanczos-residual (unverified")
    from dpgraph.memory import InsufficientMemoryError
    with pytest.raises(InsufficientMemoryError, match="lanczos"):
        certify_label_sdp(A, sol.V, method="ldl")


def test_label_tabu_search_finds_brute_force_optimum():
    from dpgraph.engine.twocsp_sdp import label_tabu_search

    X = np.array(list(itertools.product(range(3), repeat=9)))
    for seed in range(3):
        rng = np.random.default_rng(300 + seed)
        inst = _random_instance(9, 3, 27, rng)
        A = inst.label_adjacency()
        opt = label_values(A, X, 3).max()  # brute force over all 3^9 assignments
        x0 = np.zeros(9, dtype=np.int64)
        x, v, moves = label_tabu_search(A, x0, 3, moves=3000, rng=seed)
        assert v == pytest.approx(inst.value(x))  # the returned value is the assignment's
        assert v >= inst.value(x0) - 1e-12 and moves == 3000
        assert v == pytest.approx(opt)
    # Max-3-Cut of a 10-cycle with chords, through solve_max_2csp: never below the descent
    edges = [(i, (i + 1) % 10) for i in range(10)] + [(i, (i + 3) % 10) for i in range(10)] \
        + [(i, (i + 5) % 10) for i in range(5)]
    inst = CSPInstance(10, 3, [(i, j, {(a, b) for a in range(3) for b in range(3) if a != b}, 1.0)
                               for i, j in edges])
    plain = solve_max_2csp(inst, rng=0)
    tabu = solve_max_2csp(inst, rng=0, tabu_moves=2000)
    assert tabu.value >= plain.value and tabu.value == inst.value(tabu.x)
    X = np.array(list(itertools.product(range(3), repeat=10)))
    assert tabu.value == label_values(inst.label_adjacency(), X, 3).max()
