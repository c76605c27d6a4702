"""Empirical-Bayes objectives from a randomized-response release (post-processing, no privacy cost).

Randomized response releases every pair indicator ``A_ij`` flipped with probability ``p``
(``Y_ij``). Suppose the indicators are independent ``Bernoulli(pi_ij)`` a priori. For a partition
``x`` chosen from the release, linearity of expectation gives

    E[cut_A(x) | Y] = cut_P(x),   P_ij = E[A_ij | Y_ij] = pi_ij (1-p) / (pi_ij (1-p) + (1-pi_ij) p)   if Y_ij = 1,
                                                         pi_ij p / (pi_ij p + (1-pi_ij)(1-p))       if Y_ij = 0,

so the partition that maximises the expected true cut under the prior is the maximum cut of the
posterior-mean weights ``P`` (Bayes decision rule). The de-biased matrix ``(Y - p)/(1 - 2p)``,
which :mod:`dpgraph.lab.baselines` solves, is the unbiased estimate of ``A``; it ignores any prior
knowledge and weighs every pair's noisy bit the same.

The prior is estimated from the release itself (empirical Bayes), so everything here is a
function of the released ``Y`` and public parameters: post-processing (docs/privacy.md 4.6).

* ``low_rank_prior(k)``: ``pi`` = the rank-``k`` truncation (largest ``|eigenvalues|``) of the
  de-biased matrix, clipped to ``[PI_MIN, 1 - PI_MIN]``: a block (stochastic block model) prior.
* ``degree_prior``: ``pi_ij = d_i d_j / sum(d)`` (Chung-Lu) with ``d`` the de-biased row sums,
  floored at 1.

No single prior wins everywhere (benchmarks/NOTES.md, "Private Max-Cut"): the block prior helps on
planted disassortative graphs and on chameleon at epsilon 1 and hurts on facebook and on
chameleon at epsilon 4. :func:`dpgraph.max_cut` therefore solves several candidates and
selects among them privately (docs/privacy.md 4.11).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["PI_MIN", "posterior_weights", "low_rank_prior", "degree_prior", "prior_rank"]

PI_MIN = 1e-4  # prior floor: keeps P finite and lets an observed bit still count
_BLOCK = 1024  # rows per block: keeps temporaries at O(block * n), not O(n^2)


def prior_rank(name) -> int | None:
    """``k`` for an objective name ``"posterior-lowrank-<k>"`` with ``k >= 1``, else None.

    Examples
    --------
    >>> [prior_rank(f"posterior-lowrank-{k}") for k in ("3", "0", "x")], prior_rank("unbiased")
    ([3, None, None], None)
    """
    prefix = "posterior-lowrank-"
    if isinstance(name, str) and name.startswith(prefix) and name[len(prefix):].isdigit():
        k = int(name[len(prefix):])
        return k if k >= 1 else None
    return None


def low_rank_prior(unbiased: np.ndarray, k: int) -> Callable[[int, int], np.ndarray]:
    """Prior rows ``[s, e)`` of the rank-``k`` truncation of the de-biased release.

    Examples
    --------
    >>> import numpy as np
    >>> K3 = np.ones((3, 3)) - np.eye(3)  # eigenvalues 2, -1, -1; top vector ones / sqrt(3)
    >>> low_rank_prior(K3, 1)(0, 2).round(3).tolist()  # 2 (1/3) in every entry
    [[0.667, 0.667, 0.667], [0.667, 0.667, 0.667]]
    >>> C4 = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], dtype=float)
    >>> bool(np.allclose(low_rank_prior(C4, 2)(0, 4), C4))  # rank 2 (eigenvalues +-2): exact
    True
    """
    from dpgraph.spectral.linalg import top_eigenpairs

    V, lam = top_eigenpairs(unbiased, k)
    Vl = V * lam
    return lambda s, e: Vl[s:e] @ V.T


def degree_prior(unbiased: np.ndarray) -> Callable[[int, int], np.ndarray]:
    """Prior rows ``[s, e)`` of the Chung-Lu matrix ``d d^T / sum(d)`` of the de-biased degrees.

    Examples
    --------
    >>> import numpy as np
    >>> U = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)  # d = (1, 1, 0 -> 1)
    >>> degree_prior(U)(0, 3).round(3).tolist()  # 1 * 1 / 3 everywhere
    [[0.333, 0.333, 0.333], [0.333, 0.333, 0.333], [0.333, 0.333, 0.333]]
    """
    d = np.maximum(unbiased.sum(axis=1), 1.0)
    total = float(d.sum())
    return lambda s, e: np.outer(d[s:e], d) / total


def posterior_weights(unbiased: np.ndarray, p: float,
                      prior: Callable[[int, int], np.ndarray]) -> np.ndarray:
    """Posterior means ``E[A_ij | Y_ij]`` (zero diagonal) from the de-biased release.

    ``unbiased`` is ``(Y - p)/(1 - 2p)`` with a zero diagonal, so ``Y_ij = 1`` exactly where it
    is positive. ``prior(s, e)`` returns the prior's rows ``s..e-1``.

    Examples
    --------
    >>> import numpy as np
    >>> p = 0.25
    >>> Y = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    >>> U = (Y - p) / (1 - 2 * p); np.fill_diagonal(U, 0)
    >>> P = posterior_weights(U, p, lambda s, e: np.full((e - s, 3), 0.5))
    >>> P.round(3).tolist()  # a flat prior 1/2: P = 1 - p where a bit is seen, p where not
    [[0.0, 0.75, 0.25], [0.75, 0.0, 0.25], [0.25, 0.25, 0.0]]
    """
    if not 0 <= p <= 0.5:  # p = 1/2 (epsilon below 1e-16): the posterior is the prior
        raise ValueError(f"flip probability must lie in [0, 1/2], got {p!r}")
    n = unbiased.shape[0]
    out = np.empty((n, n))
    for s in range(0, n, _BLOCK):
        e = min(n, s + _BLOCK)
        pi = np.clip(prior(s, e), PI_MIN, 1.0 - PI_MIN)
        seen = pi * (1.0 - p) / (pi * (1.0 - p) + (1.0 - pi) * p)
        unseen = pi * p / (pi * p + (1.0 - pi) * (1.0 - p))
        out[s:e] = np.where(unbiased[s:e] > 0, seen, unseen)
    out += out.T  # the low-rank prior is symmetric only up to rounding
    out *= 0.5
    np.fill_diagonal(out, 0.0)
    return out
