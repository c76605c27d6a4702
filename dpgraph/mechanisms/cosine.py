"""Private pairwise cosine similarities (Perturb-and-Project, Sec. 3: Alg. 3 and the practical
Alg. 4).

Input: ``n`` vectors (rows of ``vectors``), normalised to unit length; the released object is
the cosine-similarity (Gram) matrix ``G = V V^T``, which lies in the elliptope
``E = {X PSD, X_ii = 1}``.

Adjacency (the paper's Gram-Frobenius adjacency): datasets ``V, V'`` are adjacent when
``||V V^T - V' V'^T||_F <= Delta`` (``sensitivity=Delta``, default 1). Under the other common
notion, "one vector replaced", ``||G - G'||_F <= 2 sqrt(2 (n - 1))`` (docs/privacy.md, 2.2;
:func:`replace_one_vector_sensitivity`), which callers then pass as ``sensitivity``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import linalg as sla
from scipy.sparse import linalg as spla

from dpgraph.memory import check_memory
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import (check_choice, check_delta, check_epsilon, check_integer,
                                        check_sensitivity, dense_array)
from dpgraph.mechanisms.perturb import perturb_and_project
from dpgraph.mechanisms.projection import ProjectionResult
from dpgraph.mechanisms.sets import DiagonalBox, PSDCone

__all__ = ["CosineSimilarityResult", "private_cosine_similarities",
           "replace_one_vector_sensitivity"]


@dataclass(repr=False)
class CosineSimilarityResult:
    """Result of :func:`private_cosine_similarities`.

    Attributes
    ----------
    similarities : ndarray (n, n)
        The private cosine-similarity matrix (PSD, unit diagonal).
    embedding : ndarray (n, k) or None
        For ``method="practical"``: unit-norm rows with ``similarities = embedding @ embedding.T``.
    sigma : float
        Noise standard deviation on each off-diagonal entry.
    method : str
    ledger : PrivacyLedger
    projection : ProjectionResult or None
    """

    similarities: np.ndarray
    embedding: np.ndarray | None
    sigma: float
    method: str
    ledger: PrivacyLedger
    projection: ProjectionResult | None

    def __repr__(self) -> str:
        k = None if self.embedding is None else self.embedding.shape[1]
        return (f"CosineSimilarityResult(n={self.similarities.shape[0]}, method={self.method!r}, "
                f"rank={k}, sigma={self.sigma:.4g}, spent={self.ledger.spent})")


def replace_one_vector_sensitivity(n: int) -> float:
    """Frobenius sensitivity of the Gram matrix of ``n`` unit vectors when one vector is replaced:
    ``2 sqrt(2 (n - 1))`` (tight: all vectors equal, the replaced one negated).

    ``n`` must be an integer >= 1 (a float with an integral value is accepted; ``2.7``, ``"3"``
    and booleans are refused).

    Examples
    --------
    >>> replace_one_vector_sensitivity(3)
    4.0
    >>> round(replace_one_vector_sensitivity(10), 4)
    8.4853
    """
    n = check_integer(n, name="n (the number of vectors)", low=1)
    return 2.0 * math.sqrt(2.0 * (n - 1)) if n > 1 else 0.0


def _gram_of_unit_rows(vectors) -> np.ndarray:
    """The (dense ``n x n``) Gram matrix of the rows of ``vectors`` scaled to unit norm; a
    ``scipy.sparse`` ``vectors`` stays sparse (only ``G`` is dense).

    Each row is first divided by its largest ``|x|`` and then by its norm, so that the result
    does not depend on the rows' scale: a row of entries ``1e200`` (whose norm overflows) or
    ``1e-200`` (whose squares underflow to zero) gives the same unit row as one of ``1``.

    >>> V = np.array([[1e200, 1e200], [1e-200, 0.0], [0.0, 1.0]])
    >>> np.round(_gram_of_unit_rows(V), 4).tolist()
    [[1.0, 0.7071, 0.7071], [0.7071, 1.0, 0.0], [0.7071, 0.0, 1.0]]
    """
    if sp.issparse(vectors):
        V = sp.csr_matrix(vectors, dtype=np.float64)
        shape = V.shape
    else:
        V = dense_array(vectors, name="vectors")
        shape = V.shape
        if V.ndim != 2:
            raise ValueError(f"vectors must be a 2-d array (n vectors as rows), got shape "
                             f"{shape}")
    if shape[0] < 1:
        raise ValueError(f"vectors must hold at least one vector (one row), got shape {shape}")
    if not np.all(np.isfinite(V.data if sp.issparse(V) else V)):
        raise ValueError("vectors must be finite")
    # the largest |x| of each row (0 for a zero row, and for every row when there are no columns)
    if sp.issparse(V):
        top = (np.asarray(abs(V).max(axis=1).toarray()).ravel() if shape[1] > 0
               else np.zeros(shape[0]))
    else:
        top = np.max(np.abs(V), axis=1) if shape[1] > 0 else np.zeros(shape[0])
    zero = top == 0
    if np.any(zero):
        raise ValueError("vectors: every row must be non-zero (cosine similarity is undefined "
                         f"for the zero vector; rows {np.flatnonzero(zero)[:5].tolist()})")
    if sp.issparse(V):
        S = V.copy()  # divided, not multiplied by 1 / top (which overflows for top < 1e-308)
        S.data /= np.repeat(top, np.diff(S.indptr))  # entries in [-1, 1], one +-1 per row
        nrm = np.sqrt(np.asarray(S.multiply(S).sum(axis=1)).ravel())  # in [1, sqrt(d)]
        U = sp.diags(1.0 / nrm) @ S
        return np.asarray((U @ U.T).toarray())
    S = V / top[:, None]
    U = S / np.linalg.norm(S, axis=1)[:, None]
    return U @ U.T


def _practical(Y: np.ndarray, rank: int | None):
    """PSD projection (optionally rank-k), then rows scaled to unit norm: a point of E."""
    n = Y.shape[0]
    if rank is None or rank >= n // 4:
        w, Q = sla.eigh(Y, check_finite=False)
        if rank is not None:
            w, Q = w[-rank:], Q[:, -rank:]
    else:
        w, Q = spla.eigsh(Y, k=int(rank), which="LA",
                          v0=np.random.default_rng(0).standard_normal(n))
    keep = w > 0
    E = Q[:, keep] * np.sqrt(w[keep])
    nrm = np.linalg.norm(E, axis=1)
    # a row with no positive mass gets an arbitrary unit vector (e_1): still a point of E
    zero = nrm == 0
    if E.shape[1] == 0:
        E = np.zeros((n, 1))
        zero = np.ones(n, dtype=bool)
        nrm = np.ones(n)
    E[~zero] /= nrm[~zero, None]
    E[zero] = 0.0
    E[zero, 0] = 1.0
    return E @ E.T, E


# Copies of the n x n Gram matrix the release holds at once (the Gram, its noisy copy, the
# projection's iterates and eigendecompositions): 12 measured at n = 3,000; rounded up.
COSINE_COPIES = 14


def _check_release_memory(vectors) -> None:
    """Refuse, before the Gram matrix, ``n`` vectors whose ``n x n`` release would not fit
    (100,000 vectors died of a bare MemoryError; 3,000 held 884 MiB under a 300 MiB limit)."""
    shape = getattr(vectors, "shape", None)
    n = shape[0] if shape is not None and len(shape) == 2 else None
    if n is not None:
        check_memory(8 * COSINE_COPIES * n * n,
                     what=f"the cosine similarities of {n:,} vectors (an n x n release)",
                     fit=(lambda k: 8 * COSINE_COPIES * k * k, "At most {:,} vectors fit."))


def private_cosine_similarities(vectors, *, epsilon: float, delta: float,
                                sensitivity: float = 1.0, method: str = "exact",
                                rank: int | None = None, ledger: PrivacyLedger | None = None,
                                rng=None, tol: float = 1e-6, max_iter: int = 500,
                                name: str = "cosine-similarities") -> CosineSimilarityResult:
    r"""Private pairwise cosine similarities by perturb-and-project (Perturb-and-Project Sec. 3).

    ``Y = G + W`` with ``G`` the cosine-similarity matrix and ``W`` symmetric Gaussian noise
    calibrated to the Frobenius sensitivity ``Delta`` (off-diagonal ``N(0, sigma^2)``, diagonal
    ``N(0, 2 sigma^2)``, ``sigma = analytic_gaussian_sigma(epsilon, delta, Delta / sqrt 2)``).
    Then

    * ``method="exact"`` (Alg. 3): the Euclidean projection of ``Y`` onto the elliptope
      ``{X PSD, X_ii = 1}`` (Dykstra, accelerated; one eigendecomposition per sweep; the final
      PSD iterate is rescaled to exact unit diagonal, a change of the order of the residual). Error
      bound: ``||X - G||_F^2 <= 2 <W, X - G> <= 2 ||W||_2 ||X - G||_* <= 4 n ||W||_2``, i.e.
      ``O(sigma n^{1.5})`` against ``~ sigma^2 n^2`` for the raw Gaussian mechanism.
    * ``method="practical"`` (our reading of Alg. 4): project ``Y`` onto the PSD cone (keeping
      the top ``rank`` eigenpairs if ``rank`` is given, computed by ARPACK), then rescale to unit
      diagonal, ``X_ij / sqrt(X_ii X_jj)``: one eigendecomposition, a point of the elliptope
      (PSD and unit diagonal by construction), not the projection. Returns the embedding too.

    Parameters
    ----------
    vectors : array (n, d), or a ``scipy.sparse`` matrix
        Rows are the vectors (normalised here; zero rows are refused). Sparse vectors stay
        sparse; only the ``n x n`` similarity matrix is dense.
    epsilon, delta : privacy parameters
    sensitivity : float
        ``Delta`` of the Gram-Frobenius adjacency (see the module docstring).
    method : {"exact", "practical"}
    rank : int, optional (practical only)
    ledger, rng, tol, max_iter, name

    Returns
    -------
    CosineSimilarityResult

    Examples
    --------
    >>> import numpy as np
    >>> V = np.random.default_rng(0).standard_normal((6, 3))
    >>> res = private_cosine_similarities(V, epsilon=1.0, delta=1e-6, rng=0)
    >>> res.similarities.shape, bool(np.allclose(np.diag(res.similarities), 1.0))
    ((6, 6), True)
    >>> bool(np.linalg.eigvalsh(res.similarities).min() >= -1e-6)
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)
    check_choice(method, name="method", choices=("exact", "practical"))
    if rank is not None:
        rank = check_integer(rank, name="rank", low=1)
    _check_release_memory(vectors)  # before the n x n Gram matrix and anything spent
    G = _gram_of_unit_rows(vectors)
    G = 0.5 * (G + G.T)
    np.fill_diagonal(G, 1.0)
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    sets = [PSDCone(), DiagonalBox(1.0, 1.0)]
    if method == "exact":
        res = perturb_and_project(G, sets, sensitivity=sensitivity, epsilon=epsilon, delta=delta,
                                  ledger=ledger, rng=rng, name=name, symmetric=True, tol=tol,
                                  max_iter=max_iter, accelerate=True,
                                  note="Gram-Frobenius adjacency")
        X = res.release  # PSD (the accelerated solver returns a point of the first set)
        d = np.sqrt(np.maximum(np.diag(X), 1e-300))
        X = X / d[:, None] / d[None, :]  # exact unit diagonal; moves X by O(residual)
        np.fill_diagonal(X, 1.0)
        return CosineSimilarityResult(X, None, res.sigma, "exact", ledger, res.projection)
    # practical: only the noise of perturb_and_project, then the cheap projection
    from dpgraph.privacy.noise import symmetric_gaussian_noise

    Gn = symmetric_gaussian_noise(G.shape[0], sensitivity=sensitivity / math.sqrt(2),
                                  epsilon=epsilon, delta=delta, ledger=ledger, name=name, rng=rng,
                                  diagonal_scale=math.sqrt(2), note="Gram-Frobenius adjacency")
    Y = Gn.to_dense()
    Y += G
    S, E = _practical(Y, rank)
    return CosineSimilarityResult(S, E, Gn.sigma, "practical", ledger, None)
