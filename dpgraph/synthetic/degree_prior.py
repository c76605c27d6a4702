"""Released degrees matched to their deconvolved distribution (post-processing, no privacy cost).

Each released degree of :func:`~dpgraph.synthetic.block_model.release_split_block_model` is the
node's degree plus Laplace noise of a known scale (one draw of scale ``2 / epsilon`` for one
block, the sum of an inside and an across draw for several; docs/privacy.md 7.7), clipped to
``[1, n - 1]``. Where that noise is as large as the degrees themselves (epsilon 0.1: a scale of
about 23 against a median degree of 5-25), the clipped values have the wrong distribution:
a third to a half of them sit at the clip, the rest spread over a Laplace-wide range.

:func:`deconvolved_degree_distribution` estimates the distribution of the true degrees from the
released ones alone: the nonparametric maximum-likelihood mixing distribution on a grid
(Kiefer and Wolfowitz 1956), by EM with a smoothing step (EMS, Silverman et al. 1990), the
clipped values read as censored at the clip. :func:`matched_degrees` then gives the nodes, in
the order of their released degrees, the quantiles of that distribution (the rank-preserving
map, Hay et al. ICDM 2009's idea of consistent degree sequences applied to a deconvolved
histogram). Both read released values and public ``n`` only: post-processing.
"""

from __future__ import annotations

import numpy as np

from dpgraph.privacy import make_rng

__all__ = ["noise_cdf", "deconvolved_degree_distribution", "matched_degrees",
           "PRIOR_ITERATIONS", "PRIOR_SMOOTH"]

#: EM iterations of the deconvolution (each one O(bins x grid))
PRIOR_ITERATIONS = 300
#: weight of each neighbour in the smoothing step after every EM step ([w, 1 - 2 w, w] on
#: the grid: integers up to _LINEAR_TOP, then a geometric grid of ratio _GRID_RATIO)
PRIOR_SMOOTH = 0.25
_LINEAR_TOP = 64
_GRID_RATIO = 1.03
_MAX_BINS = 2000


def noise_cdf(x, scales) -> np.ndarray:
    """CDF at ``x`` of the sum of independent zero-mean Laplace draws of the given ``scales``
    (one or two).

    >>> noise_cdf(np.array([0.0]), [2.0]).tolist(), round(float(noise_cdf(3.0, [1.0, 2.0])), 4)
    ([0.5], 0.8595)
    """
    x = np.asarray(x, dtype=float)
    s = [float(v) for v in scales]
    if len(s) == 1 or abs(s[0] - s[1]) < 1e-9 * max(s):
        a = s[0]
        if len(s) == 1:
            lo = 0.5 * np.exp(-np.abs(x) / a)
        else:  # two equal scales: Laplace(a) + Laplace(a)
            z = np.abs(x) / a
            lo = 0.5 * np.exp(-z) * (1.0 + z / 2.0)
    elif len(s) == 2:
        a, b = s
        z = np.abs(x)
        lo = (a * a * np.exp(-z / a) - b * b * np.exp(-z / b)) / (2.0 * (a * a - b * b))
    else:
        raise ValueError(f"scales must hold one or two Laplace scales, got {len(s)}")
    return np.where(x < 0, lo, 1.0 - lo)


def _grid(top: float) -> np.ndarray:
    lin = np.arange(0.0, min(_LINEAR_TOP, np.floor(top)) + 1.0)
    if top <= _LINEAR_TOP:
        return lin
    steps = int(np.ceil(np.log(top / _LINEAR_TOP) / np.log(_GRID_RATIO)))
    return np.concatenate([lin, _LINEAR_TOP * _GRID_RATIO ** np.arange(1, steps + 1)])


def deconvolved_degree_distribution(released, scales, n: int, *,
                                    iterations: int = PRIOR_ITERATIONS,
                                    smooth: float = PRIOR_SMOOTH):
    """The distribution of degrees whose noisy versions ``released`` (true degree plus the sum
    of Laplace draws of ``scales``, clipped to ``[1, n - 1]``) are: ``(grid, probabilities)``.
    Post-processing of released values (no privacy cost).

    The grid: every integer up to 64, then a geometric grid (ratio 1.03) to the largest
    released value plus four noise scales, at most ``n - 1``. The released values are binned
    (at most 2,000 bins; a value at a clip is its own censored bin) and the mixing weights
    fitted by ``iterations`` steps of EM, each followed by a ``[w, 1 - 2w, w]`` smoothing of
    neighbouring grid points (``w = smooth``), from the uniform distribution.

    >>> rng = np.random.default_rng(0)
    >>> true = rng.choice([3.0, 40.0], size=4000, p=[0.7, 0.3])
    >>> noisy = np.clip(true + rng.laplace(0, 5.0, 4000), 1, 3999)
    >>> g, p = deconvolved_degree_distribution(noisy, [5.0], 4000)
    >>> round(float(p[g < 20].sum()), 2), round(float((g * p).sum()), 1)
    (0.7, 14.2)
    """
    x = np.asarray(released, dtype=float)
    n = int(n)
    scale = float(np.sqrt(np.sum(np.square(scales))))
    hi_clip = max(n - 1, 1)
    top = min(float(x.max(initial=1.0)) + 4.0 * scale, hi_clip)
    grid = _grid(max(top, 1.0))
    # bins: (-inf, 1] (the clipped low values), regular bins over (1, n - 1), [n - 1, inf)
    width = max(scale / 4.0, (top - 1.0) / _MAX_BINS, 1e-6)
    inner = np.arange(1.0, top + width, width)
    edges = np.concatenate([[-np.inf], inner[inner < hi_clip], [hi_clip, np.inf]])
    edges = np.unique(edges)
    # a value exactly at a clip falls in the bin that starts or ends there
    low = x <= 1.0
    high = x >= hi_clip
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    idx[low] = 0
    idx[high] = edges.size - 2
    counts = np.bincount(idx, minlength=edges.size - 1).astype(float)
    used = counts > 0
    counts = counts[used]
    lo_e, hi_e = edges[:-1][used], edges[1:][used]
    L = noise_cdf(hi_e[:, None] - grid[None, :], scales) \
        - noise_cdf(lo_e[:, None] - grid[None, :], scales)
    L = np.maximum(L, 1e-300)
    p = np.full(grid.size, 1.0 / grid.size)
    w = float(smooth)
    for _ in range(int(iterations)):
        mix = L @ p
        p = p * (L.T @ (counts / mix)) / counts.sum()
        if w > 0 and p.size > 2:
            q = (1.0 - 2.0 * w) * p
            q[1:] += w * p[:-1]
            q[:-1] += w * p[1:]
            q[0] += w * p[0]  # reflect at the ends: mass is kept
            q[-1] += w * p[-1]
            p = q
        p /= p.sum()
    return grid, p


def matched_degrees(released, scales, n: int, *, rng=None, **kwargs) -> np.ndarray:
    """The released degrees replaced by the quantiles of their deconvolved distribution
    (:func:`deconvolved_degree_distribution`), in the order of the released values (ties in
    a random order): the node with the ``r``-th smallest released degree gets the ``r``-th
    smallest of ``n`` values spread over the distribution by largest remainders. Clipped to
    ``[1, n - 1]``. Post-processing of released values (no privacy cost).

    >>> rng = np.random.default_rng(1)
    >>> true = rng.choice([3.0, 40.0], size=4000, p=[0.7, 0.3])
    >>> noisy = np.clip(true + rng.laplace(0, 5.0, 4000), 1, 3999)
    >>> d = matched_degrees(noisy, [5.0], 4000, rng=2)
    >>> round(float(np.mean(d < 20)), 2), round(float(np.mean(noisy < 20)), 2)
    (0.71, 0.7)
    """
    x = np.asarray(released, dtype=float)
    gen = make_rng(rng)
    grid, p = deconvolved_degree_distribution(x, scales, n, **kwargs)
    m = x.size
    want = p * m
    take = np.floor(want).astype(np.int64)
    short = m - int(take.sum())
    if short > 0:
        take[np.argsort(want - take)[::-1][:short]] += 1
    values = np.repeat(grid, take)
    order = np.lexsort((gen.random(m), x))
    out = np.empty(m)
    out[order] = values
    return np.clip(out, 1.0, max(int(n) - 1, 1))
