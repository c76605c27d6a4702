"""Linear algebra for private PCA: top-r singular structure of the input, and the top-r
eigenvectors of ``P + G`` (projector plus block-generated symmetric noise) without forming G."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

# Below this size dense LAPACK is both exact and fast; above it we use ARPACK / block Krylov.
DENSE_MAX_N = 2000
# ARPACK relative tolerance for the r + 1 top singular values of large inputs: sigma_(r+1) sits at
# the edge of a dense bulk, where tol=0 (machine precision) took ~1.5x the matrix products for no
# change in the printed digits (docs/privacy.md 3.8 states the numerical caveat).
ARPACK_TOL = 1e-10
# A dense eigendecomposition instead of ARPACK when more than 1/16 of the spectrum is asked for:
# at n = 3,000 (one thread) LAPACK's whole spectrum took 9 s and ARPACK 6 / 17 / 30 s for the top
# 100 / 375 / 750 pairs, and the Lanczos basis of 2k vectors grows without bound as k nears n
# (rank 2,990 of a 3,000-node graph ran for minutes). Only where the dense copy fits in memory.
DENSE_SPECTRUM_SHARE = 1.0 / 16.0


def dense_is_cheaper(n: int, k: int) -> bool:
    """Whether ``k`` eigenpairs of an ``n x n`` symmetric matrix are cheaper from LAPACK's full
    decomposition than from ARPACK, at any size: ``k > n / 16`` while the dense matrix and its
    eigenvectors (``16 n^2`` bytes) fit in the available memory.

    >>> dense_is_cheaper(5000, 100), dense_is_cheaper(5000, 400)
    (False, True)
    """
    if k <= DENSE_SPECTRUM_SHARE * n:
        return False
    from dpgraph.memory import available_memory

    have = available_memory()
    return have is None or 16 * n * n <= have


@dataclass
class TopSubspace:
    U: np.ndarray          # n x r left singular vectors (symmetric: eigenvectors)
    V: np.ndarray | None   # m x r right singular vectors (rectangular only)
    sigma: np.ndarray      # the r + 1 largest singular values, descending



def arpack_start(n: int) -> np.ndarray:
    """A fixed starting vector for ARPACK (``v0`` of ``eigsh`` / ``svds``).

    Without one, ARPACK draws its start from an internal generator whose state carries over
    from call to call in a process, so a seeded release would not repeat. The start vector is
    data-independent (post-processing has no privacy cost either way)."""
    return np.random.default_rng(n).standard_normal(n)

def check_matrix(M, *, symmetrize: bool = False):
    """Validate ``M``; return ``(M, kind)`` with kind ``"symmetric"`` or ``"rectangular"``.

    The kind follows the public shape and the caller's ``symmetrize`` only, never a test of the
    private entries: with ``symmetrize=True`` every square ``M`` is ``"rectangular"`` (its left
    singular subspace), symmetric or not; otherwise a square ``M`` is symmetric (its symmetric
    part is used, so a rounding-level asymmetry is not released without noise) and one that is
    not symmetric is refused: the symmetric algorithm's adjacency is among symmetric matrices
    (docs/privacy.md 3). Were the kind read from ``M``, a symmetric input and an adjacent
    non-symmetric one would run different algorithms and report different diagnostics."""
    if sp.issparse(M):
        M = sp.csr_matrix(M, dtype=np.float64)
        data = M.data
    else:
        M = np.asarray(M, dtype=np.float64)
        data = M
    if M.ndim != 2:
        raise ValueError(f"M must be a 2-d matrix, got shape {M.shape}")
    if M.shape[0] < 2 or M.shape[1] < 2:
        raise ValueError(f"M must be at least 2 x 2, got shape {M.shape}")
    if not np.all(np.isfinite(data)):
        raise ValueError("M contains NaN or infinite entries")
    n, m = M.shape
    if n != m or symmetrize:
        return M, "rectangular"
    if sp.issparse(M):
        diff = abs(M - M.T)
        asym = float(diff.max()) if diff.nnz else 0.0
        scale = float(abs(M).max()) if M.nnz else 0.0
    else:
        asym = float(np.max(np.abs(M - M.T)))
        scale = float(np.max(np.abs(M)))
    if asym <= 1e-12 * max(scale, 1e-300):
        return (0.5 * (M + M.T)).tocsr() if sp.issparse(M) else 0.5 * (M + M.T), "symmetric"
    raise ValueError(
        f"M is square but not symmetric (max |M - M^T| = {asym:.3g}); pass symmetrize=True to "
        f"estimate its left singular subspace, or symmetrize it yourself if it should be symmetric")


def top_subspace(M, r: int, kind: str, which: str = "magnitude") -> TopSubspace:
    """Top-r singular subspace(s) and the r + 1 largest singular values of ``M``.

    Symmetric ``M``: with ``which="magnitude"`` the singular values are ``|lambda|`` and ``U``
    spans the eigenvectors of the r eigenvalues of largest magnitude; ``"largest"`` /
    ``"smallest"`` order the eigenvalues algebraically (``sigma`` then holds ``lambda_1 >= ...``,
    resp. ``-lambda_n >= ...``), which equals the magnitude order of ``M + cI`` (resp.
    ``-M + cI``) for any ``c >= ||M||`` (docs/privacy.md 3.9). Sparse inputs stay sparse
    (ARPACK uses only products).
    """
    n, m = M.shape
    k = r + 1
    if kind == "symmetric":
        sign = -1.0 if which == "smallest" else 1.0
        if n <= DENSE_MAX_N or dense_is_cheaper(n, k):
            A = M.toarray() if sp.issparse(M) else M
            lam, W = np.linalg.eigh(A)
        else:
            mode = {"magnitude": "LM", "largest": "LA", "smallest": "SA"}[which]
            lam, W = spla.eigsh(M, k=k, which=mode, tol=ARPACK_TOL, ncv=min(n, max(2 * k + 1, 40)),
                               v0=arpack_start(n))
        lam = sign * lam
        order = np.argsort(-np.abs(lam)) if which == "magnitude" else np.argsort(-lam)
        lam, W = lam[order], W[:, order]
        vals = np.abs(lam[:k]) if which == "magnitude" else lam[:k]
        return TopSubspace(W[:, :r].copy(), None, vals.copy())
    p = min(n, m)
    if p <= DENSE_MAX_N or k >= p:
        A = M.toarray() if sp.issparse(M) else M
        Uf, s, Vt = np.linalg.svd(A, full_matrices=False)
    else:
        Uf, s, Vt = spla.svds(M, k=k, tol=ARPACK_TOL, ncv=min(p, max(2 * k + 1, 40)),
                              v0=arpack_start(p))
        order = np.argsort(-s)
        Uf, s, Vt = Uf[:, order], s[order], Vt[order]
    sig = np.zeros(k)
    sig[:min(k, s.size)] = s[:k]
    return TopSubspace(Uf[:, :r].copy(), Vt[:r].T.copy(), sig)


def symmetric_noise_matmul(G, X: np.ndarray) -> np.ndarray:
    """``G @ X`` for a :class:`~dpgraph.privacy.SymmetricGaussianNoise`, generating each block of
    the upper triangle once and using it for both ``(bi, bj)`` and its transpose (half the
    random-number work of ``G.matmul``)."""
    X = np.asarray(X, dtype=np.float64)
    bs = G.block_size
    nb = G.n_blocks[0]
    out = np.zeros_like(X)
    # Off-diagonal blocks are sigma * (raw standard normals): multiply the small product by sigma
    # instead of scaling the block (one fewer pass over bs^2 numbers). Checked against
    # G.to_dense() by tests/test_spectral.py::test_symmetric_noise_matmul_matches_dense.
    raw = getattr(G, "_raw_block", None)
    for bi in range(nb):
        si = slice(bi * bs, (bi + 1) * bs)
        for bj in range(bi, nb):
            sj = slice(bj * bs, (bj + 1) * bs)
            if bj == bi or raw is None:
                B = G.block(bi, bj)
                out[si] += B @ X[sj]
                if bj != bi:
                    out[sj] += B.T @ X[si]
            else:
                B = raw(bi, bj)
                out[si] += G.sigma * (B @ X[sj])
                out[sj] += G.sigma * (B.T @ X[si])
    return out


@dataclass
class EigInfo:
    method: str
    products: int       # number of block products with G (each regenerates G once)
    residual: float     # max residual norm ||A x - theta x|| of the returned Ritz vectors
    eigenvalues: np.ndarray


def top_eigvecs_projector_plus_noise(U: np.ndarray, G, r: int, rng: np.random.Generator, *,
                                     tol: float = 1e-4, max_products: int = 60,
                                     oversample: int = 8,
                                     dense_max_n: int = DENSE_MAX_N) -> tuple[np.ndarray, EigInfo]:
    """Top-r eigenvectors (largest algebraic eigenvalues) of ``A = U U^T + G``.

    Small ``n``: dense ``eigh``. Large ``n``: block Krylov (block Lanczos with full
    reorthogonalisation and Rayleigh-Ritz) on the operator ``X -> U (U^T X) + G X``, started from a
    data-independent Gaussian block, stopping when every returned Ritz pair has residual
    ``<= tol``. The result is a function of ``A`` and public randomness only, so it is
    post-processing of the private release ``A``. The default ``tol = 1e-4`` (residual norm;
    the eigenvalues are about 1) keeps the returned subspace within about ``1e-4 / (theta_r -
    theta_(r+1))`` of the exact one, far below the privacy noise's effect.
    """
    n = U.shape[0]
    if n <= dense_max_n:
        A = G.to_dense()
        A += U @ U.T
        theta, W = np.linalg.eigh(A)
        idx = np.argsort(-theta)[:r]
        X = W[:, idx]
        res = float(np.max(np.linalg.norm(A @ X - X * theta[idx], axis=0)))
        return X, EigInfo("dense-eigh", 1, res, theta[idx])

    def op(X):
        return U @ (U.T @ X) + symmetric_noise_matmul(G, X)

    b = r + oversample
    kmax = max(1, min(max_products, n // b))
    # preallocated Krylov basis Q and its image A Q; T = Q^T A Q grown one block at a time
    Q = np.empty((n, b * kmax))
    AQ = np.empty((n, b * kmax))
    T = np.zeros((b * kmax, b * kmax))
    Q[:, :b], _ = np.linalg.qr(rng.standard_normal((n, b)))
    products = 0
    while True:
        lo, hi = products * b, (products + 1) * b
        AQ[:, lo:hi] = op(Q[:, lo:hi])
        products += 1
        T[:hi, lo:hi] = Q[:, :hi].T @ AQ[:, lo:hi]
        T[lo:hi, :lo] = T[:lo, lo:hi].T
        Th = (T[:hi, :hi] + T[:hi, :hi].T) / 2
        theta, S = np.linalg.eigh(Th)
        idx = np.argsort(-theta)[:r]
        X = Q[:, :hi] @ S[:, idx]
        R = AQ[:, :hi] @ S[:, idx] - X * theta[idx]
        res = float(np.max(np.linalg.norm(R, axis=0)))
        if res <= tol or products >= kmax:
            break
        # next block: A Q_k orthogonalised (twice, for stability) against the basis so far
        W = AQ[:, lo:hi] - Q[:, :hi] @ (Q[:, :hi].T @ AQ[:, lo:hi])
        W -= Q[:, :hi] @ (Q[:, :hi].T @ W)
        Q[:, hi:hi + b], _ = np.linalg.qr(W)
    X, _ = np.linalg.qr(X)
    return X, EigInfo("block-krylov", products, res, theta[idx])


def random_subspace(n: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random (Haar) r-dimensional subspace of R^n, as an orthonormal basis."""
    Z = rng.standard_normal((n, r))
    Q, R = np.linalg.qr(Z)
    return Q * np.sign(np.diag(R))


def top_eigenpairs(W: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``rank`` eigenpairs of largest magnitude of a dense symmetric matrix (LAPACK's full
    decomposition on at most 400 nodes or where :func:`dense_is_cheaper`, else ARPACK)."""
    if W.shape[0] <= 400 or dense_is_cheaper(W.shape[0], rank):
        lam, vec = np.linalg.eigh(W)
    else:
        lam, vec = spla.eigsh(W, k=rank, which="LM", tol=1e-6, v0=arpack_start(W.shape[0]))
    order = np.argsort(-np.abs(lam))[:rank]
    return vec[:, order], lam[order]
