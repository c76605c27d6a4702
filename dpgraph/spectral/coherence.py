"""Coherence and subspace-distance helpers (d'Orsi & Novikov, Defs. 1.1, 1.2, 1.4).

These are plain (non-private) functions of their arguments; applying them to the private input
is *not* a private release.
"""

from __future__ import annotations

import numpy as np

__all__ = ["coherence", "basic_coherence", "subspace_distance", "max_row_norm",
           "check_orthonormal"]


def check_orthonormal(U, name: str) -> np.ndarray:
    """``U`` as a float ``n x r`` array (a vector as one column) with orthonormal columns
    (``U.T @ U == I`` to 1e-6), or a ValueError naming ``name``.

    >>> check_orthonormal([1.0, 0.0], "u").shape
    (2, 1)
    """
    U = np.asarray(U, dtype=np.float64)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2 or U.shape[1] == 0 or U.shape[1] > U.shape[0]:
        raise ValueError(f"{name} must be an n x r array with 1 <= r <= n, got shape {U.shape}")
    if not np.all(np.isfinite(U)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    gram = U.T @ U
    if not np.allclose(gram, np.eye(U.shape[1]), atol=1e-6):
        raise ValueError(f"{name} must have orthonormal columns (U.T @ U == I); "
                         f"orthonormalize it first, e.g. with numpy.linalg.qr")
    return U


def max_row_norm(U) -> float:
    """``max_i ||U_i||_2`` over the rows of ``U`` (``= ||U U^T||_{2->inf}`` for orthonormal U).

    Examples
    --------
    >>> import numpy as np
    >>> max_row_norm(np.eye(4)[:, :2])
    1.0
    >>> max_row_norm(np.ones(4) / 2)  # a vector is one column
    0.5
    """
    U = np.asarray(U, dtype=np.float64)
    if U.ndim == 1:
        U = U[:, None]
    return float(np.sqrt(np.max(np.einsum("ij,ij->i", U, U))))


def coherence(U) -> float:
    """Rank-r coherence ``mu_r(U) = (n / r) max_i ||U_i||^2`` (Def. 1.4).

    ``U`` is an ``n x r`` matrix with orthonormal columns (or a unit vector). ``mu_r`` lies in
    ``[1, n / r]``: 1 when every row has the same norm, ``n / r`` when a coordinate vector lies in
    the span.

    Examples
    --------
    >>> import numpy as np
    >>> round(coherence(np.ones(4) / 2), 12)
    1.0
    >>> coherence(np.eye(4)[:, :1])
    4.0
    """
    U = check_orthonormal(U, "U")
    n, r = U.shape
    return n / r * max_row_norm(U) ** 2


def basic_coherence(M) -> float:
    """Basic coherence of a matrix (Def. 1.1; Hardt & Roth 2013): ``max(n ||U||_max^2, m ||V||_max^2)``.

    ``U`` (``n x k``) and ``V`` (``m x k``) are the singular vectors of ``M`` for its ``k``
    nonzero singular values (relative threshold ``1e-12``), and ``||.||_max`` is the largest
    absolute entry. Where ``M`` has repeated singular values the singular vectors are not unique
    and the value depends on the basis LAPACK returns (e.g. ``1 1^T + I / n``).

    Examples
    --------
    >>> import numpy as np
    >>> round(basic_coherence(np.ones((4, 4))), 12)
    1.0
    """
    M = np.asarray(M.toarray() if hasattr(M, "toarray") else M, dtype=np.float64)
    if M.ndim != 2:
        raise ValueError(f"M must be a 2-d matrix, got shape {M.shape}")
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        raise ValueError("M is zero: its coherence is undefined")
    k = int(np.sum(s > 1e-12 * s[0]))
    n, m = M.shape
    return float(max(n * np.max(np.abs(U[:, :k])) ** 2, m * np.max(np.abs(Vt[:k])) ** 2))


def subspace_distance(U, V) -> float:
    """``||(I - P_V) U||`` (spectral norm; Def. 1.2): the sine of the largest principal angle.

    ``U`` (``n x r``) and ``V`` (``n x k``) have orthonormal columns; 0 means ``span U`` lies in
    ``span V``, 1 means some direction of ``U`` is orthogonal to ``span V``.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.eye(3)
    >>> subspace_distance(e[:, :1], e[:, :2])
    0.0
    >>> subspace_distance(e[:, :1], e[:, 1:])
    1.0
    """
    U = check_orthonormal(U, "U")
    V = check_orthonormal(V, "V")
    if U.shape[0] != V.shape[0]:
        raise ValueError(f"U and V must have the same number of rows, got {U.shape[0]} and "
                         f"{V.shape[0]}")
    R = U - V @ (V.T @ U)
    return float(min(np.linalg.norm(R, 2), 1.0))
