"""Time-capped and skipped certificates: every bound returned stays rigorous.

Independent references: LAPACK's top eigenvalue of the dual matrix, brute force over all cuts,
the sum of the positive weights computed directly.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.engine import as_weight_operator, certify_upper_bound, solve_max_bisection, solve_max_cut
from dpgraph.engine.sdp import gershgorin_upper_bound, solve_lowrank_sdp, trivial_upper_bound


def _dual_matrix(op, V, nu=0.0):
    WV = op.matmul(V) + nu * V.sum(axis=0)[None, :]
    g = np.einsum("ij,ij->i", WV, V)
    M = -op.to_dense() - nu
    M[np.diag_indices(op.n)] += g
    return M, g


def _brute(W, balanced=False):
    n = W.shape[0]
    best = -np.inf
    for bits in itertools.product((-1.0, 1.0), repeat=n - 1):
        x = np.r_[1.0, bits]
        if balanced and abs(x.sum()) > 1:
            continue
        best = max(best, 0.25 * (W.sum() - x @ W @ x))
    return best


def _sparse_torus(rows, cols, seed, signed=True):
    G = nx.grid_2d_graph(rows, cols, periodic=True)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    rng = np.random.default_rng(seed)
    U = sp.triu(A, 1).tocoo()
    w = rng.integers(1, 4, U.nnz).astype(float)
    if signed:
        w *= np.where(rng.random(U.nnz) < 0.3, -1.0, 1.0)
    B = sp.coo_array((w, (U.row, U.col)), shape=A.shape)
    return (B + B.T).tocsr()


@pytest.mark.parametrize("time_limit", [None, 0.0, 1e-3])
@pytest.mark.parametrize("tol", [1e-6, 1e-2])
def test_capped_sparse_certificate_bounds_lambda_max(time_limit, tol):
    # n = 576 > 500 and mean degree 4: the sparse LDL^T route; a loose iterate has a large lambda_max
    op = as_weight_operator(_sparse_torus(24, 24, seed=3))
    sol = solve_lowrank_sdp(op, tol=tol, rng=0)
    ub, info = certify_upper_bound(op, sol.V, rng=0, time_limit=time_limit)
    M, g = _dual_matrix(op, sol.V)
    lam = float(np.linalg.eigvalsh(M)[-1])
    assert ub >= sol.value - 1e-9 * abs(sol.value)           # weak duality: above the primal value
    if "lambda_max_bound" in info:
        assert info["lambda_max_bound"] >= lam                # the verified shift is above lambda_max
    assert ub <= trivial_upper_bound(op) + 1e-12
    if time_limit is None:
        assert info["certificate"] == "ldl-verified"
        assert ub <= sol.value + 1e-3 * abs(sol.value) + 0.25 * op.n * lam + 1e-6 * abs(sol.value)


def test_dense_certificate_over_budget_falls_back_to_rigorous_bounds():
    rng = np.random.default_rng(5)
    A = np.triu((rng.random((12, 12)) < 0.5) * rng.integers(1, 4, (12, 12)).astype(float), 1)
    W = A + A.T
    op = as_weight_operator(W)
    sol = solve_lowrank_sdp(op, tol=1e-6, rng=0)
    ub, info = certify_upper_bound(op, sol.V, rng=0, time_limit=0.0)
    assert "time cap" in info["certificate"]
    assert ub >= _brute(W)
    M, g = _dual_matrix(op, sol.V)
    assert gershgorin_upper_bound(op, g) >= float(np.linalg.eigvalsh(M)[-1])
    full, info_full = certify_upper_bound(op, sol.V, rng=0)
    assert info_full["certificate"] == "cholesky-verified"
    assert _brute(W) <= full <= ub + 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_trivial_bound_is_the_positive_weight_sum_and_bounds_the_optimum(seed):
    rng = np.random.default_rng(seed)
    A = np.triu(rng.normal(size=(10, 10)) * (rng.random((10, 10)) < 0.6), 1)
    W = A + A.T
    op = as_weight_operator(W)
    t = trivial_upper_bound(op)
    assert t == pytest.approx(A[A > 0].sum(), rel=1e-12)
    assert t >= _brute(W) and t >= _brute(W, balanced=True)


@pytest.mark.parametrize("balanced", [False, True])
def test_certificate_false_gives_the_trivial_bound_and_the_same_cut_quality(balanced):
    rng = np.random.default_rng(11)
    A = np.triu((rng.random((11, 11)) < 0.5) * rng.integers(1, 4, (11, 11)).astype(float), 1)
    W = A + A.T
    solve = solve_max_bisection if balanced else solve_max_cut
    res = solve(W, rng=0, certificate=False)
    assert res.upper_bound == pytest.approx(A.sum())
    assert "trivial" in res.info["certificate"]
    assert res.value == pytest.approx(_brute(W, balanced))
    assert res.value <= res.upper_bound
    with pytest.raises(ValueError, match="certificate"):
        solve(W, certificate="fast")


def test_time_limit_stops_at_a_proven_optimum():
    # an even torus is bipartite: the optimum cuts every edge, and the certified bound proves it
    W = abs(_sparse_torus(20, 20, seed=0, signed=False)).sign()
    res = solve_max_cut(W, rng=0, time_limit=30.0)
    assert res.value == W.nnz / 2
    imp = res.info["improve"]
    assert imp is None or imp.get("stopped") == "target reached" or imp["moves"] == 0


def test_private_max_cut_certifies_the_returned_objective_only():
    G = nx.gnm_random_graph(60, 400, seed=2)
    res = dpgraph.max_cut(G, epsilon=2.0, delta=1e-6, rng=0, weight=None,
                          route="randomized-response")
    cert = res.solver.info["certificate"]
    assert "trivial" not in cert and cert  # a dual certificate, not the fallback
    assert res.sdp_bound == res.solver.upper_bound
    assert res.solver.value <= res.sdp_bound + 1e-9
    assert res.solver.sdp_value <= res.sdp_bound + 1e-9 * abs(res.sdp_bound)


def test_dense_certificate_refuses_before_allocating_when_it_cannot_fit(monkeypatch):
    from dpgraph.memory import InsufficientMemoryError

    g = nx.gnm_random_graph(400, 4000, seed=1)   # n <= 500: the dense check
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")   # 400^2 * 24 bytes = 3.8 MB does not fit
    with pytest.raises(InsufficientMemoryError, match="dense Cholesky certificate.*lanczos"):
        solve_max_cut(g, rng=0, certificate="factor")
    # 'auto' falls back to Gershgorin's bound on the same dual (rigorous, looser), never raising
    res = solve_max_cut(g, rng=0)
    assert res.info["certificate"].startswith(("gershgorin", "trivial"))
    assert res.upper_bound >= res.value
    monkeypatch.delenv("DPGRAPH_MEMORY_LIMIT")
    tight = solve_max_cut(g, rng=0)
    assert tight.info["certificate"] == "cholesky-verified"
    assert tight.upper_bound <= res.upper_bound + 1e-9


@pytest.mark.parametrize("n", [4, 300])
def test_verified_lambda_max_never_proves_a_matrix_with_nan(n):
    """OpenBLAS's potrf lets a NaN pivot pass; the dense proof must count it as a failure and
    still prove the same matrix once it is finite."""
    from dpgraph.engine.sdp import verified_lambda_max
    S = np.eye(n)
    S[n // 2, n // 4] = S[n // 4, n // 2] = np.nan
    with pytest.raises(RuntimeError, match="could not verify"):
        verified_lambda_max(S.copy(), 2.0, attempts=3)
    with pytest.raises(RuntimeError, match="must be finite"):
        verified_lambda_max(np.eye(n), float("nan"))
    S[n // 2, n // 4] = S[n // 4, n // 2] = 0.5
    mu, c = verified_lambda_max(S.copy(), float(np.linalg.eigvalsh(S)[-1]))
    assert np.linalg.eigvalsh(S)[-1] <= mu <= np.linalg.eigvalsh(S)[-1] + 1e-6


def _integer_laplacian(n, seed):
    # integer weights: the degrees are exact, so the all-ones vector is an exact null vector
    A = nx.to_scipy_sparse_array(nx.random_regular_graph(4, n, seed=seed), format="csr", dtype=float)
    return (sp.diags_array(np.asarray(A.sum(axis=1)).ravel()) - A).tocsc()


def test_sparse_shift_check_never_verifies_below_lambda_max():
    from dpgraph.engine.sdp import rump_margin, sparse_shift_verified

    negM = _integer_laplacian(800, 3)                      # M = -Laplacian: lambda_max(M) = 0 exactly
    c = rump_margin(800, 800 * 8.0)
    for k in range(30, 60, 3):
        below = -(2.0 ** -k)
        for shift in (below - 2 * c, below - 1e-3, below - 1.0):
            assert not sparse_shift_verified(negM, below, shift)[0]
    assert sparse_shift_verified(negM, 1e-6, 1e-6 - 2 * c)[0]   # just above it: proven


def _matrix_residual_bound(A):
    """sparse_ldl_lower_bound's bound with whole sparse matrices (the formula as written in its
    docstring; memory-hungry, for small A only)."""
    from dpgraph.engine.sdp import _gamma, _symmetric_lu

    n = A.shape[0]
    lu = _symmetric_lu(A)
    L, U = lu.L, lu.U
    d = U.diagonal()
    N = abs(U - sp.diags_array(d) @ L.T)
    absL, absU, ones = abs(L), abs(U), np.ones(n)
    strict_U, strict_L = absU - sp.diags_array(d), absL - sp.eye_array(n)
    rows = (_gamma(n) * (absL @ (absU @ ones)) + absL @ (N @ ones)
            + _gamma(2) * (absL @ (strict_U @ ones + d * (strict_L.T @ ones))))
    return -(float(np.max(rows)) / (1 - _gamma(2 * n + 8)) + 8 * n * (n + 4) * np.finfo(float).tiny)


@pytest.mark.parametrize("seed", [0, 1])
def test_blockwise_residual_bound_is_the_matrix_formula(seed, monkeypatch):
    # integer weights: SciPy's L and U then differ by a few entries of rounding size, so the
    # unpaired entries are exercised; tiny blocks make every pass run over many blocks
    from dpgraph.engine import sdp

    W = _sparse_torus(20, 20, seed=seed)
    W.data = np.sign(W.data)
    A = (sp.diags_array(np.asarray(abs(W).sum(axis=1)).ravel() + 0.1) - W).tocsc()
    expected = _matrix_residual_bound(A)
    for block in (1 << 20, 64):
        monkeypatch.setattr(sdp, "LDL_RESIDUAL_BLOCK", block)
        lower, nnz = sdp.sparse_ldl_lower_bound(A)
        assert lower == pytest.approx(expected, rel=1e-12) and -1e-10 < lower < 0


def test_auto_certificate_leaves_large_sparse_graphs_to_lanczos(monkeypatch):
    # a low mean degree does not bound SuperLU's fill (about n^2 without small separators):
    # above SPARSE_FACTOR_MAX_N 'auto' takes Lanczos; 'factor', asked for, the sparse proof
    from dpgraph.engine import sdp

    monkeypatch.setattr(sdp, "SPARSE_FACTOR_MAX_N", 600)
    monkeypatch.setattr(sdp, "CUT_DENSE_CERTIFICATE_MAX_N", 500)  # as at n above 4,000
    small, large = (as_weight_operator(_sparse_torus(k, k, seed=1)) for k in (24, 30))
    for op, expected in ((small, "ldl-verified"), (large, "lanczos-residual")):
        sol = solve_lowrank_sdp(op, tol=1e-6, rng=0)
        ub, info = certify_upper_bound(op, sol.V, rng=0)
        assert info["certificate"] == expected and ub >= sol.value - 1e-9 * abs(sol.value)
    ub, info = certify_upper_bound(large, sol.V, rng=0, method="factor")  # asked for: sparse
    assert info["certificate"] == "ldl-verified"


def test_auto_2csp_certificate_takes_the_sparse_proof_where_the_dense_copies_do_not_fit(monkeypatch):
    # N = n (q - 1) + 1 = 1,001 is below LABEL_DENSE_CERTIFICATE_MAX_N, but the dense check's
    # three copies (24 N^2 bytes, 24 MB) do not fit under 18 MB while the sparse proof's
    # worst case (12 N^2 bytes plus the matrix) does: 'auto' proves the bound with it instead
    # of refusing after the whole solve
    from dpgraph.engine.twocsp_sdp import certify_label_sdp, solve_label_sdp

    n, q = 500, 3
    rng = np.random.default_rng(2)
    W = sp.random(n, n, density=4 / n, random_state=3, format="csr")
    W.data[:] = 1.0
    W = sp.triu(W, 1)
    W = W + W.T
    A = sp.csr_array(sp.kron(W, np.ones((q, q)) - np.eye(q)))  # Max-3-Cut's label graph
    sol = solve_label_sdp(A, n, q, rng=rng)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "18M")
    ub, info = certify_label_sdp(A, sol.V, rng=0)
    assert info["certificate"] == "ldl-verified" and info["N_reduced"] == 1001
    assert ub >= sol.value - 1e-6 * abs(sol.value)


def test_residual_bound_covers_an_asymmetry_of_rounding_size():
    # a matrix symmetric only up to rounding (as T^T C T computes a 2-CSP dual): the bound is
    # on its symmetric part, so it widens by the asymmetry's largest row sum over 2
    from dpgraph.engine.sdp import sparse_ldl_lower_bound

    W = _sparse_torus(12, 12, seed=4)
    A = (sp.diags_array(np.asarray(abs(W).sum(axis=1)).ravel() + 0.5) - W).tocsc()
    E = sp.triu(A, 1).tocsc()
    E.data = np.full(E.nnz, 1e-9)
    skewed = (A + E - E.T).tocsc()                     # the symmetric part is A exactly
    symmetric, _ = sparse_ldl_lower_bound(A)
    lower, _ = sparse_ldl_lower_bound(skewed)
    half_skew = 0.5 * float(np.max(np.asarray(abs(E - E.T).sum(axis=1)).ravel()))
    assert half_skew > 1e-9 and lower <= symmetric - 0.99 * half_skew
