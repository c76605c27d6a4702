"""Private PCA estimators: input checks, halting, ledger accounting, eigensolver, utility."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.privacy import PrivacyBudgetError, PrivacyLedger, analytic_gaussian_sigma
from dpgraph.privacy.noise import SymmetricGaussianNoise
from dpgraph.spectral import BudgetSplit, EntryAdjacency, basic_coherence, private_low_rank, private_subspace, subspace_distance
from dpgraph.spectral import coherence
from dpgraph.spectral import linalg as _linalg

ADJ = EntryAdjacency(1.0)


def _spiked_sym(n, r, strength, rng):
    Q, _ = np.linalg.qr(rng.standard_normal((n, r)))
    W = rng.standard_normal((n, n)) / math.sqrt(n)
    return Q, strength * Q @ Q.T + (W + W.T) / math.sqrt(2)


# ---------------------------------------------------------------- helpers (Defs 1.1, 1.2, 1.4)
def test_coherence_helpers_against_definitions():
    rng = np.random.default_rng(0)
    n, r = 30, 3
    U, _ = np.linalg.qr(rng.standard_normal((n, r)))
    assert coherence(U) == pytest.approx(n / r * max(np.sum(U ** 2, axis=1)))
    assert 1 <= coherence(U) <= n / r
    assert coherence(np.eye(n)[:, :r]) == pytest.approx(n / r)
    # 1 1^T + I/n: low rank-1 coherence, maximal basic coherence is not required but >= mu_1
    M = np.ones((n, n)) + np.eye(n) / n
    assert coherence(np.ones(n) / math.sqrt(n)) == pytest.approx(1.0)
    assert basic_coherence(M) >= 1.0
    V, _ = np.linalg.qr(rng.standard_normal((n, r)))
    d = subspace_distance(U, V)
    cosines = np.linalg.svd(U.T @ V, compute_uv=False)
    assert d == pytest.approx(math.sqrt(1 - min(cosines) ** 2), abs=1e-9)
    with pytest.raises(ValueError, match="orthonormal"):
        coherence(2 * U)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("fn", [private_subspace, private_low_rank])
def test_bad_input_raises_clear_errors(fn):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((10, 10))
    S = A + A.T
    kw = dict(epsilon=1.0, delta=1e-6, adjacency=ADJ)
    with pytest.raises(ValueError, match="not symmetric"):
        fn(A, 2, **kw)
    for bad_rank, msg in [(0, ">= 1"), (-1, ">= 1"), (10, "< min"), (12, "< min"), (1.5, "integer")]:
        with pytest.raises(ValueError, match=msg):
            fn(S, bad_rank, **kw)
    Snan = S.copy()
    Snan[0, 1] = Snan[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fn(Snan, 2, **kw)
    for bad_adj in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="adjacency"):
            fn(S, 2, epsilon=1.0, delta=1e-6, adjacency=bad_adj)
    with pytest.raises(ValueError, match="max_abs"):
        fn(S, 2, epsilon=1.0, delta=1e-6, adjacency=EntryAdjacency(0.0))
    with pytest.raises(ValueError, match="epsilon"):
        fn(S, 2, epsilon=0.0, delta=1e-6, adjacency=ADJ)
    with pytest.raises(ValueError, match="delta"):
        fn(S, 2, epsilon=1.0, delta=0.0, adjacency=ADJ)


def test_rectangular_and_symmetrize_rules():
    rng = np.random.default_rng(2)
    R = rng.standard_normal((8, 12))
    with pytest.raises(ValueError, match="symmetric"):
        private_subspace(R, 2, epsilon=1, delta=1e-6, adjacency=EntryAdjacency(1.0))
    res = private_subspace(R, 2, epsilon=1, delta=1e-6, adjacency=EntryAdjacency(1.0, symmetric=False),
                           rng=0)
    assert res.basis.shape == (8, 2)
    A = rng.standard_normal((8, 8))
    res = private_subspace(A, 2, epsilon=1, delta=1e-6, symmetrize=True,
                           adjacency=EntryAdjacency(1.0, symmetric=False), rng=0)
    assert res.diagnostics.kind == "rectangular"
    with pytest.raises(ValueError, match="symmetric M"):
        private_low_rank(R, 2, epsilon=1, delta=1e-6, adjacency=EntryAdjacency(1.0, symmetric=False))


def test_symmetrize_kind_is_never_read_from_the_private_matrix():
    """With symmetrize=True a symmetric M and an adjacent non-symmetric M' (one entry changed)
    run the same algorithm: the kind and the diagnostics' form do not tell them apart."""
    n = 60
    u = np.ones(n) / np.sqrt(n)
    M = 500 * np.outer(u, u)
    Mp = M.copy()
    Mp[0, 1] += 1.0
    for adj in (1.0, EntryAdjacency(1.0, symmetric=False)):
        diags = [private_subspace(A, 1, epsilon=1.0, delta=1e-6, adjacency=adj, rng=0,
                                  symmetrize=True).diagnostics for A in (M, Mp)]
        assert [d.kind for d in diags] == ["rectangular", "rectangular"]
        assert all(math.isnan(d.coherence_upper) for d in diags)
    # without symmetrize a square M is symmetric: its symmetric part is what is used
    near = M.copy()
    near[0, 1] += 1e-13
    a = private_subspace(M, 1, epsilon=1.0, delta=1e-6, adjacency=1.0, rng=0)
    b = private_subspace(near, 1, epsilon=1.0, delta=1e-6, adjacency=1.0, rng=0)
    assert a.diagnostics.kind == b.diagnostics.kind == "symmetric"


# ---------------------------------------------------------------- halting (Alg. 5.8 ⊥)
def test_halting_releases_random_subspace_and_charges_full_budget():
    rng = np.random.default_rng(3)
    n, r = 40, 2
    W = rng.standard_normal((n, n))
    M = (W + W.T) / 2          # gap ~ 0.1, far below the ~100 test margin at epsilon = 1
    eps, dlt = 1.0, 1e-6
    res = private_low_rank(M, r, epsilon=eps, delta=dlt, adjacency=ADJ, rng=4)
    assert res.halted and res.diagnostics.halted_at == "gap"
    assert np.allclose(res.basis.T @ res.basis, np.eye(r))
    assert res.ledger.spent == (pytest.approx(eps), pytest.approx(dlt))
    mechs = [e.mechanism for e in res.ledger.entries]
    assert mechs.count("reserved") == 2 and "gaussian" in mechs  # core still released
    # the halted basis is Haar: ||B^T e_1||^2 ~ Beta(r/2, (n-r)/2), mean r/n; 200 draws
    vals = []
    for seed in range(200):
        b = private_subspace(M, r, epsilon=eps, delta=dlt, adjacency=ADJ, rng=seed).basis
        vals.append(np.sum(b[0] ** 2))
    assert abs(np.mean(vals) - r / n) < 5 * math.sqrt(2 * r * (n - r) / (n ** 2 * (n + 2)) / 200)


def test_halting_is_independent_of_the_data():
    """Two different halting inputs with the same seed give the same basis."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((30, 30))
    B = rng.standard_normal((30, 30))
    r1 = private_subspace(A + A.T, 2, epsilon=1, delta=1e-6, adjacency=ADJ, rng=9)
    r2 = private_subspace(B + B.T, 2, epsilon=1, delta=1e-6, adjacency=ADJ, rng=9)
    assert r1.halted and r2.halted
    # the Laplace draw of the gap differs only in the added value; the subspace draws coincide
    assert np.allclose(r1.basis, r2.basis)


# ---------------------------------------------------------------- ledger and calibration
def test_ledger_records_calibrated_steps_and_respects_external_budget():
    rng = np.random.default_rng(6)
    U, M = _spiked_sym(300, 2, 800.0, rng)
    eps, dlt = 2.0, 1e-6
    res = private_low_rank(M, 2, epsilon=eps, delta=dlt, adjacency=ADJ, rng=0)
    assert not res.halted
    d = res.diagnostics
    by_name = {e.name: e for e in res.ledger.entries}
    proj = by_name["pca: projector (Alg. 5.8)"]
    assert proj.noise_scale == pytest.approx(
        analytic_gaussian_sigma(proj.epsilon, proj.delta, proj.sensitivity))
    assert proj.sensitivity == pytest.approx(
        math.sqrt(2) * d.row_scale_upper / (d.gap_lower - 1.0))
    gap = by_name["pca: spectral gap (Alg. 5.2)"]
    assert gap.sensitivity == 2.0 and gap.noise_scale == pytest.approx(2.0 / gap.epsilon, rel=1.5e-3)  # discrete: docs 13.1
    assert res.ledger.spent == (pytest.approx(eps), pytest.approx(dlt))
    # external ledger: charges land there; too small a budget raises before anything is drawn
    led = PrivacyLedger(epsilon=3.0, delta=2e-6)
    private_subspace(M, 2, epsilon=eps, delta=dlt, adjacency=ADJ, rng=0, ledger=led)
    assert led.spent[0] == pytest.approx(eps)
    with pytest.raises(PrivacyBudgetError):
        private_subspace(M, 2, epsilon=eps, delta=dlt, adjacency=ADJ, rng=0, ledger=led)
    assert led.spent[0] == pytest.approx(eps)


def test_budget_split_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        BudgetSplit(epsilon=(0.5, 0.5, 0.5, 0.0))
    with pytest.raises(ValueError, match="core"):
        private_subspace(np.eye(5), 1, epsilon=1, delta=1e-6, adjacency=ADJ,
                         split=BudgetSplit(epsilon=(0.2, 0.1, 0.6, 0.1)))


# ---------------------------------------------------------------- eigensolver for P + G
def test_symmetric_noise_matmul_matches_dense():
    G = SymmetricGaussianNoise(130, 0.7, rng=1, block_size=32, diagonal_scale=math.sqrt(2))
    X = np.random.default_rng(2).standard_normal((130, 5))
    assert np.allclose(_linalg.symmetric_noise_matmul(G, X), G.to_dense() @ X)


def test_block_krylov_matches_dense_eigh():
    rng = np.random.default_rng(7)
    n, r = 600, 3
    U, _ = np.linalg.qr(rng.standard_normal((n, r)))
    G = SymmetricGaussianNoise(n, 0.01, rng=3, block_size=128, diagonal_scale=math.sqrt(2))
    Xd, infod = _linalg.top_eigvecs_projector_plus_noise(U, G, r, rng)
    Xk, infok = _linalg.top_eigvecs_projector_plus_noise(U, G, r, rng, dense_max_n=0, tol=1e-9)
    assert infod.method == "dense-eigh" and infok.method == "block-krylov"
    assert subspace_distance(Xd, Xk) < 1e-6
    assert np.allclose(infod.eigenvalues, infok.eigenvalues, atol=1e-8)


def test_diagonal_noise_variance_is_doubled():
    """diagonal_scale sqrt2: diag ~ N(0, 2 sigma^2), off-diagonal N(0, sigma^2) (chi-square tolerances)."""
    n, sigma = 600, 0.5
    G = SymmetricGaussianNoise(n, sigma, rng=11, block_size=256, diagonal_scale=math.sqrt(2)).to_dense()
    dvar = np.mean(np.diag(G) ** 2) / sigma ** 2
    ovar = np.mean(G[np.triu_indices(n, 1)] ** 2) / sigma ** 2
    assert abs(dvar - 2) < 5 * 2 * math.sqrt(2 / n)
    assert abs(ovar - 1) < 5 * math.sqrt(2 / (n * (n - 1) / 2))


def test_sparse_input_matches_dense_input():
    n = 200
    A = sp.random(n, n, density=0.05, random_state=1, format="csr")
    A = A + A.T
    u = np.ones(n) / math.sqrt(n)
    Md = A.toarray() + 400 * np.outer(u, u)
    rs = private_subspace(sp.csr_matrix(Md), 1, epsilon=1, delta=1e-6, adjacency=ADJ, rng=3)
    rd = private_subspace(Md, 1, epsilon=1, delta=1e-6, adjacency=ADJ, rng=3)
    assert subspace_distance(rs.basis, rd.basis) < 1e-8


def test_top_subspace_sparse_arpack_path(monkeypatch):
    n = 300
    A = sp.random(n, n, density=0.05, random_state=2, format="csr")
    A = (A + A.T).tocsr()
    R = sp.random(200, 260, density=0.05, random_state=3, format="csr")
    dense = {w: _linalg.top_subspace(A, 3, "symmetric", w) for w in ("magnitude", "largest", "smallest")}
    d = _linalg.top_subspace(R, 2, "rectangular")
    monkeypatch.setattr(_linalg, "DENSE_MAX_N", 10)
    for w, ref in dense.items():
        arp = _linalg.top_subspace(A, 3, "symmetric", w)
        assert np.allclose(ref.sigma, arp.sigma, atol=1e-9)
        assert subspace_distance(ref.U, arp.U) < 1e-7
    a = _linalg.top_subspace(R, 2, "rectangular")
    assert np.allclose(d.sigma, a.sigma, atol=1e-9) and subspace_distance(d.U, a.U) < 1e-7



def test_large_share_of_the_spectrum_is_taken_dense(monkeypatch):
    """More than n / 16 eigenpairs come from LAPACK's full decomposition (ARPACK's Lanczos basis
    of 2k vectors ran for minutes at k near n), with the same pairs as eigh."""
    import scipy.sparse.linalg as spla

    from dpgraph.release.routes.randomized_response import top_eigenpairs

    rng = np.random.default_rng(0)
    A = rng.standard_normal((500, 500))
    A = A + A.T
    lam, W = np.linalg.eigh(A)
    top = np.argsort(-np.abs(lam))[:40]

    def no_arpack(*args, **kwargs):
        raise AssertionError("ARPACK called for a large share of the spectrum")

    monkeypatch.setattr(spla, "eigsh", no_arpack)
    monkeypatch.setattr(_linalg, "DENSE_MAX_N", 10)
    assert _linalg.dense_is_cheaper(500, 40) and not _linalg.dense_is_cheaper(500, 20)
    V, vals = top_eigenpairs(A, 40)
    assert np.allclose(vals, lam[top]) and subspace_distance(V, W[:, top]) < 1e-8
    sub = _linalg.top_subspace(sp.csr_array(A), 39, "symmetric")
    assert np.allclose(sub.sigma, np.abs(lam[top])) and subspace_distance(sub.U, W[:, top[:39]]) < 1e-8
    with pytest.raises(AssertionError, match="ARPACK"):  # a small share still uses ARPACK
        top_eigenpairs(A, 20)


def test_pca_projection_reports_its_iterations():
    """The pca route's projection (one eigendecomposition per iteration) shows its iterations
    while reporting is on."""
    import io

    from dpgraph import progress
    from dpgraph.release.routes.pca import project

    rng = np.random.default_rng(1)
    basis, _ = np.linalg.qr(rng.standard_normal((60, 3)))
    core = np.diag([3.0, -2.0, 1.0])
    buf = io.StringIO()
    with progress.reporting(stream=buf):
        X, info = project(basis, core, radius=1e-3, method="dykstra")
    assert info["method"] == "dykstra" and np.all(X >= 0)
    assert "projection onto non-negative bounded-spectrum 60 x 60 matrices: " in buf.getvalue()
    assert f"{info['iterations']} iteration" in buf.getvalue()


# ---------------------------------------------------------------- utility
def test_utility_strong_spike_symmetric_and_core():
    rng = np.random.default_rng(10)
    U, M = _spiked_sym(400, 2, 600.0, rng)
    res = private_low_rank(M, 2, epsilon=1.0, delta=1e-6, adjacency=ADJ, rng=1)
    assert not res.halted
    assert subspace_distance(U, res.basis) < 0.25
    # the core is B^T M B plus symmetric noise of the recorded scale (diagonal sd sqrt2 sigma)
    B = res.basis
    dev = res.core - B.T @ M @ B
    assert np.allclose(dev, dev.T)
    assert np.max(np.abs(dev)) < 6 * math.sqrt(2) * res.diagnostics.core_sigma
    assert np.allclose(res.to_dense(), B @ res.core @ B.T)
    # rank-2 estimate vs the spike: error <= 2 * 600 * dist + noise
    err = np.linalg.norm(res.to_dense() - 600 * U @ U.T, 2)
    assert err < 2 * 600 * subspace_distance(U, B) + 10 * res.diagnostics.core_sigma + 3


def _wishart(n, m, beta, rng):
    u = rng.standard_normal(n)
    u /= np.linalg.norm(u)
    return u, math.sqrt(beta) * np.outer(u, rng.standard_normal(m)) + rng.standard_normal((n, m))


def test_acceptance_spiked_wishart_rectangular_one_seed():
    """The acceptance setting (one seed; all seeds in the slow test below)."""
    n, m = 400, 4000
    u, M = _wishart(n, m, 80 * math.sqrt(n / m), np.random.default_rng(100))
    res = private_subspace(M, 1, epsilon=2.0, delta=1e-6,
                           adjacency=EntryAdjacency(1.0, symmetric=False), rng=0)
    assert not res.halted
    assert subspace_distance(u, res.basis) <= 0.3


@pytest.mark.slow
def test_acceptance_spiked_wishart_rectangular_median():
    """Acceptance: n=400, m=4000, beta=80 sqrt(n/m), entry adjacency 1, eps=2, delta=1e-6:
    median subspace error over 9 seeds <= 0.3."""
    n, m = 400, 4000
    errs = []
    for seed in range(9):
        u, M = _wishart(n, m, 80 * math.sqrt(n / m), np.random.default_rng(200 + seed))
        res = private_subspace(M, 1, epsilon=2.0, delta=1e-6,
                               adjacency=EntryAdjacency(1.0, symmetric=False), rng=seed)
        errs.append(subspace_distance(u, res.basis))
    assert np.median(errs) <= 0.3


def test_eigenspace_variant_picks_algebraic_top():
    """which='largest' returns the positive spike even when a negative eigenvalue dominates."""
    rng = np.random.default_rng(12)
    n = 300
    Q, _ = np.linalg.qr(rng.standard_normal((n, 2)))
    M = 900 * np.outer(Q[:, 0], Q[:, 0]) - 3000 * np.outer(Q[:, 1], Q[:, 1])
    kw = dict(epsilon=2.0, delta=1e-6, adjacency=ADJ, rng=0)
    big = private_subspace(M, 1, which="largest", **kw)
    mag = private_subspace(M, 1, **kw)
    small = private_subspace(M, 1, which="smallest", **kw)
    assert subspace_distance(Q[:, :1], big.basis) < 0.3
    assert subspace_distance(Q[:, 1:], mag.basis) < 0.3
    assert subspace_distance(Q[:, 1:], small.basis) < 0.3
    with pytest.raises(ValueError, match="which"):
        private_subspace(M, 1, which="LA", **kw)
    with pytest.raises(ValueError, match="symmetric"):
        private_subspace(rng.standard_normal((5, 7)), 1, which="largest", epsilon=1, delta=1e-6,
                         adjacency=EntryAdjacency(1.0, symmetric=False))


def test_baselines_private_and_accurate_on_strong_signal():
    from dpgraph.lab.pca_baselines import input_perturbation_subspace, noisy_power_method
    rng = np.random.default_rng(13)
    n, m = 200, 600
    u = rng.standard_normal(n)
    u /= np.linalg.norm(u)
    M = 8 * np.outer(u, rng.standard_normal(m)) + rng.standard_normal((n, m))
    adj = EntryAdjacency(1.0, symmetric=False)
    hp = noisy_power_method(M, 1, epsilon=2.0, delta=1e-6, adjacency=adj, rng=0)
    ip = input_perturbation_subspace(M, 1, epsilon=2.0, delta=1e-6, adjacency=adj, rng=0)
    for res in (hp, ip):
        assert res.ledger.spent == (pytest.approx(2.0), pytest.approx(1e-6))
        assert subspace_distance(u, res.basis) < 0.5
    # the input-perturbation noise is the analytic Gaussian for sensitivity w = 1
    assert ip.noise_scale == pytest.approx(analytic_gaussian_sigma(2.0, 1e-6, 1.0))
    with pytest.raises(ValueError, match="EntryAdjacency"):
        noisy_power_method(M, 1, epsilon=1, delta=1e-6, adjacency=1.0)
