"""Baselines for private PCA, for benchmarks: input perturbation and the Hardt-Price noisy power method.

Both are private under :class:`~dpgraph.spectral.EntryAdjacency` (one entry, or one symmetric
pair, changes by at most ``w``) and charge the ledger before drawing.

* :func:`input_perturbation_subspace`: the Gaussian mechanism on ``M`` itself (L2 sensitivity
  ``||E||_F = w`` for one entry; for a symmetric pair, noise on the upper triangle with the
  diagonal variance doubled has sensitivity ``||E||_F / sqrt 2 = w``), then the top-r subspace.
* :func:`noisy_power_method`: Hardt & Price, "The Noisy Power Method" (NeurIPS 2014), Alg. 1 /
  Sec. 4 (entry-level privacy): ``X_l = orth(M X_(l-1) + G_l)``; the L2 sensitivity of
  ``M X`` for public ``X`` is ``||E X||_F <= c w max_a ||X_a||`` (``c = sqrt 2`` for a symmetric
  pair, 1 for one entry), so each step's noise is scaled by the public row norms of ``X`` (the
  coherence adaptivity of Hardt-Price). For rectangular ``M`` each iteration is the two steps
  ``Y = M^T X``, ``X = M Y``. The ``K`` Gaussian steps, each with noise ``s`` times its
  sensitivity, are ``K / (2 s^2)``-zCDP together (Bun & Steinke Prop. 1.6 and Lemma 2.3); ``s`` is
  chosen so that this converts to the requested ``(epsilon, delta)`` (Canonne-Kamath-Steinke).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dpgraph.privacy import PrivacyLedger, approx_dp_to_zcdp_rho, make_rng
from dpgraph.privacy.noise import gaussian_noise, symmetric_gaussian_noise, gaussian_mechanism
from dpgraph.privacy.validation import check_integer
from dpgraph.spectral import linalg as _linalg
from dpgraph.spectral.bounds import EntryAdjacency
from dpgraph.spectral.pca import check_rank

__all__ = ["BaselineResult", "input_perturbation_subspace", "noisy_power_method"]


@dataclass
class BaselineResult:
    """A baseline's private estimate of the top-r subspace: ``basis`` (``n x r``, orthonormal
    columns), the ``ledger`` charged and the ``noise_scale`` (input perturbation: the Gaussian
    ``sigma`` of each entry; noisy power method: the multiplier ``s`` of each step's
    sensitivity)."""

    basis: np.ndarray
    ledger: PrivacyLedger
    noise_scale: float

    def __repr__(self):
        return (f"BaselineResult(n={self.basis.shape[0]}, rank={self.basis.shape[1]}, "
                f"noise_scale={self.noise_scale:.4g}, spent={self.ledger.spent})")


def _entry(adjacency) -> EntryAdjacency:
    if not isinstance(adjacency, EntryAdjacency):
        raise ValueError("the baselines support EntryAdjacency only")
    return adjacency


def input_perturbation_subspace(M, rank, *, epsilon, delta, adjacency, rng=None, ledger=None):
    adj = _entry(adjacency)
    M, kind = _linalg.check_matrix(M, symmetrize=not adj.symmetric)
    rank = check_rank(rank, *M.shape)
    A = M.toarray() if sp.issparse(M) else np.array(M, dtype=np.float64)
    ledger = PrivacyLedger(epsilon, delta) if ledger is None else ledger
    gen = make_rng(rng)
    w = adj.max_abs
    if kind == "symmetric":
        G = symmetric_gaussian_noise(A.shape[0], sensitivity=w, epsilon=epsilon, delta=delta,
                                     ledger=ledger, name="baseline: input perturbation", rng=gen,
                                     diagonal_scale=math.sqrt(2),
                                     note="||E||_F/sqrt2 = w for one symmetric pair")
        A = A + G.to_dense()
        sigma = G.sigma
    else:
        A, sigma = gaussian_mechanism(A, sensitivity=w, epsilon=epsilon, delta=delta, ledger=ledger,
                                      name="baseline: input perturbation", rng=gen,
                                      note="||E||_F = w for one entry")
    top = _linalg.top_subspace(A, rank, "symmetric" if kind == "symmetric" else "rectangular")
    return BaselineResult(top.U, ledger, sigma)


def noisy_power_method(M, rank, *, epsilon, delta, adjacency, iterations=None, rng=None,
                       ledger=None):
    adj = _entry(adjacency)
    M, kind = _linalg.check_matrix(M, symmetrize=not adj.symmetric)
    rank = check_rank(rank, *M.shape)
    if iterations is not None:
        iterations = check_integer(iterations, name="iterations", low=1)
    n, m = M.shape
    L = iterations if iterations is not None else max(1, math.ceil(math.log(n)))
    steps = L if kind == "symmetric" else 2 * L
    c = math.sqrt(2) if kind == "symmetric" else 1.0
    rho = approx_dp_to_zcdp_rho(epsilon, delta)
    s = math.sqrt(steps / (2 * rho))      # noise = s * sensitivity at every step
    ledger = PrivacyLedger(epsilon, delta) if ledger is None else ledger
    ledger.charge("baseline: noisy power method", mechanism="gaussian (zCDP composition)",
                  epsilon=epsilon, delta=delta, noise_scale=s,
                  note=f"{steps} Gaussian steps, noise {s:.4g} x (c w max row norm), "
                       f"rho = {rho:.4g}")
    gen = make_rng(rng)
    w = adj.max_abs
    X, _ = np.linalg.qr(gen.standard_normal((n, rank)))
    for _ in range(L):
        if kind == "rectangular":
            sens = w * float(np.sqrt(np.max(np.sum(X ** 2, axis=1))))
            Y = np.asarray(M.T @ X) + gaussian_noise((m, rank), sigma=s * sens, ledger=ledger, rng=gen)
            Y, _ = np.linalg.qr(Y)
            sens = w * float(np.sqrt(np.max(np.sum(Y ** 2, axis=1))))
            X = np.asarray(M @ Y) + gaussian_noise((n, rank), sigma=s * sens, ledger=ledger, rng=gen)
        else:
            sens = c * w * float(np.sqrt(np.max(np.sum(X ** 2, axis=1))))
            X = np.asarray(M @ X) + gaussian_noise((n, rank), sigma=s * sens, ledger=ledger, rng=gen)
        X, _ = np.linalg.qr(X)
    return BaselineResult(X, ledger, s)


# the parameters and returns the two baselines share
_PARAMS = """    M : array_like or sparse matrix
        The private matrix: symmetric ``n x n`` under ``EntryAdjacency(w)`` (its symmetric
        part is used), or any ``n x m`` under ``EntryAdjacency(w, symmetric=False)`` (its left
        singular subspace).
    rank : int
        ``r``, with ``1 <= r < min(n, m)``.
    epsilon, delta : float
        The privacy parameters (``delta > 0``).
    adjacency : EntryAdjacency
        What one private change is (:class:`dpgraph.spectral.EntryAdjacency`); no other notion
        is supported.
"""
_RNG_RETURNS = """    rng : None, int or Generator
        The noise source (``None``: fresh, for a private release; a seed is for tests only).
    ledger : PrivacyLedger or None
        Charged ``(epsilon, delta)``; ``None``: a new one with exactly that budget.

    Returns
    -------
    BaselineResult
        ``basis`` (``n x r``, orthonormal columns), ``ledger`` and ``noise_scale``.
"""

input_perturbation_subspace.__doc__ = """Gaussian mechanism on ``M``, then its top-r left singular (or eigen-by-magnitude) subspace.

    PRIVATE: ``(epsilon, delta)``-DP under ``adjacency`` (the noisy matrix is one Gaussian
    release; the subspace is post-processing). Dense: O(n m) memory. A baseline for
    :func:`dpgraph.spectral.private_subspace`, whose noise adapts to the subspace's
    coherence where this one's does not.

    Parameters
    ----------
{params}{rng_returns}
    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from dpgraph.spectral import EntryAdjacency
    >>> A = nx.to_numpy_array(nx.karate_club_graph(), weight=None)
    >>> res = input_perturbation_subspace(A, 2, epsilon=1.0, delta=1e-6,
    ...                                   adjacency=EntryAdjacency(1.0), rng=0)
    >>> res.basis.shape, bool(np.allclose(res.basis.T @ res.basis, np.eye(2)))
    ((34, 2), True)
    >>> res.ledger.spent, round(res.noise_scale, 3)  # sigma of each entry
    ((1.0, 1e-06), 4.225)
    """.format(params=_PARAMS, rng_returns=_RNG_RETURNS)

noisy_power_method.__doc__ = """Hardt-Price noisy power method with coherence-scaled noise (see module docstring).

    PRIVATE: ``(epsilon, delta)``-DP under ``adjacency`` (all its Gaussian steps together, by
    zCDP composition; charged once, before any draw). ``iterations`` (``L``, an integer
    >= 1) defaults to ``ceil(log n)``. Hardt and Price's analysis takes
    ``L = O(lambda_r / (lambda_r - lambda_(r+1)) log n)`` for the matrix the iteration multiplies
    by (``M``, or ``M M^T`` if rectangular); ``benchmarks/bench_pca.py`` passes that count, from
    the true spectrum, as ``iterations``. Each step's noise grows with ``sqrt(L)``, so more
    iterations are not free.

    Parameters
    ----------
{params}    iterations : int or None
        ``L``, the number of power iterations (default ``ceil(log n)``).
{rng_returns}
    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from dpgraph.spectral import EntryAdjacency
    >>> A = nx.to_numpy_array(nx.karate_club_graph(), weight=None)
    >>> res = noisy_power_method(A, 2, epsilon=1.0, delta=1e-6,
    ...                          adjacency=EntryAdjacency(1.0), rng=0)
    >>> res.basis.shape, bool(np.allclose(res.basis.T @ res.basis, np.eye(2)))
    ((34, 2), True)
    >>> res.ledger.spent, round(res.noise_scale, 3)  # noise s x sensitivity at each of ceil(log 34) = 4 steps
    ((1.0, 1e-06), 9.062)
    """.format(params=_PARAMS, rng_returns=_RNG_RETURNS)
