"""Deconvolved degrees in ``release_synthetic``'s block model: a post-processing variant,
measured and not adopted (benchmarks/NOTES.md, "Deconvolved degrees").

NOT PRIVATE scoring (benchmarks/pgb_queries.py reads the true graph): benchmark use only.

The released degree of node i is ``y_i = d_i + z_i``, ``z_i`` the sum of two Laplace draws of
known scales ``a`` (inside degree) and ``b`` (across degree), whose density is
``(a e^{-|z|/a} - b e^{-|z|/b}) / (2 (a^2 - b^2))``. Modes, each on the same seeds:

- ``default``: ``release_synthetic(G, epsilon).sample()``;
- ``deconv``: the prior of the degrees estimated by EM (a maximum-likelihood mixing
  distribution on a grid, from the histogram of the ``y_i``), each node given that prior's
  quantile at its rank among the ``y_i`` (post-processing of the release);
- ``*_cal``: the endpoint weights rescaled per degree band after trial samples, so that a
  sample's degrees meet them.

The raw ``y_i`` and scales are read by wrapping the block model's module functions (a
benchmark-only hook).

Usage (repository root, DPGRAPH_DATA set; the true statistics are computed on first use):
    PYTHONPATH=. python benchmarks/bench_synthetic_deconvolve.py chameleon 0.5,1 3 default,deconv
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_synthetic as bs  # noqa: E402
import pgb_queries as pq  # noqa: E402

import dpgraph  # noqa: E402
import dpgraph.synthetic.block_model as bmod  # noqa: E402
from dpgraph.graph import from_matrix  # noqa: E402
from dpgraph.synthetic.sampler import sample_block_model  # noqa: E402

RAW = {}
_consistent, _scales = bmod.consistent_block_model, bmod.split_block_scales


def _keep_raw_degrees(blocks, counts, degrees, **kw):
    RAW["y"] = np.asarray(degrees, dtype=float).copy()
    return _consistent(blocks, counts, degrees, **kw)


def _keep_scales(n, k, epsilon, count_share=bmod.SPLIT_COUNT_SHARE):
    s = _scales(n, k, epsilon, count_share)
    RAW["scales"] = (float(s[0]), float(s[-1]))
    return s


bmod.consistent_block_model = _keep_raw_degrees
bmod.split_block_scales = _keep_scales


def grid(lo, hi, step=1.0, ratio=1.02, switch=100.0):
    """Unit steps up to ``switch``, then geometric steps of ``ratio``."""
    a = np.arange(lo, min(hi, switch) + step, step)
    if hi > switch:
        g = [switch]
        while g[-1] < hi:
            g.append(g[-1] * ratio)
        a = np.r_[a[a < switch], g]
    return a


def noise_density(z, a, b):
    """Density of the sum of two independent Laplace draws of scales ``a`` and ``b``."""
    z = np.abs(z)
    if abs(a - b) < 1e-9 * a:
        return (1 + z / a) * np.exp(-z / a) / (4 * a)
    return (a * np.exp(-z / a) - b * np.exp(-z / b)) / (2 * (a * a - b * b))


def deconvolve(y, a, b, upper, iters=300):
    """EM for the mixing distribution (support ``s``, weights ``w``) of the noisy ``y``."""
    s = grid(1.0, max(float(np.max(y)), 2.0))
    s = s[s <= upper]
    edges = grid(np.floor(y.min()) - 0.5, np.max(y) + 1.0)
    idx = np.clip(np.searchsorted(edges, y) - 1, 0, len(edges) - 2)
    cnt = np.bincount(idx, minlength=len(edges) - 1).astype(float)
    centers = 0.5 * (edges[:-1] + edges[1:])
    keep = cnt > 0
    cnt, centers = cnt[keep], centers[keep]
    K = noise_density(centers[:, None] - s[None, :], a, b) + 1e-300
    w = np.full(s.size, 1.0 / s.size)
    for _ in range(iters):
        w = w * (K.T @ (cnt / (K @ w))) / cnt.sum()
    return s, w


def quantile_assign(y, s, w, gen):
    """Each node the prior's quantile at its rank among the ``y`` (ties broken at random)."""
    n = y.size
    order = np.lexsort((gen.random(n), y))
    cdf = np.cumsum(w) / np.sum(w)
    vals = s[np.minimum(np.searchsorted(cdf, (np.arange(n) + 0.5) / n), s.size - 1)]
    out = np.empty(n)
    out[order] = vals
    return out


def calibrate(bm, gen, passes=2, ratio=1.25):
    """Endpoint weights rescaled per degree band so that trial samples meet the degrees."""
    target = bm.degrees.copy()
    w = target.copy()
    edges = np.exp(np.arange(0, np.log(target.max()) + np.log(ratio), np.log(ratio)))
    band = np.searchsorted(edges, target)
    for _ in range(passes):
        S = sample_block_model(bm.blocks, bm.block_counts, w, inside=bm.inside, rng=gen,
                               groups=bm.groups)
        r = np.asarray(abs(S.weights).sum(axis=1)).ravel()
        tb = np.bincount(band, target, edges.size + 1)
        rb = np.bincount(band, r, edges.size + 1)
        w = w * np.where(rb > 0, tb / np.maximum(rb, 1e-12), 1.0)[band]
    return w


def run(A, ts, eps, seed, mode):
    data = from_matrix(A, range(A.shape[0]), source="benchmark")
    gen = np.random.default_rng(1000 * seed + 17)  # bench_synthetic.py's stream
    rel = dpgraph.release_synthetic(data, epsilon=eps, rng=gen)
    bm = rel.block_model
    if mode.startswith("deconv"):
        a, b = RAW["scales"]
        s, w = deconvolve(RAW["y"], a, b, A.shape[0] - 1)
        d = quantile_assign(RAW["y"], s, w, gen)
        bm.degrees = bmod.degrees_summing_to(np.maximum(d, 1.0), 2.0 * bm.edge_count)
    if mode.endswith("_cal"):
        bm.degrees = calibrate(bm, gen)
    own = sp.csr_array(rel.sample(rng=gen).weights)
    own.data[:] = 1
    return pq.score(A, ts, own, own, seed=bs.SCORE_SEED, max_cut=False)


KEYS = ["q3_triangles_re", "q5_degree_var_re", "q6_degree_kl", "degree_hellinger",
        "q7_diameter_re", "q8_avg_path_re", "q9_distance_kl", "q10_transitivity_re",
        "q11_avg_clustering_re", "q12_nmi", "q13_modularity_re", "q14_assortativity_re",
        "q15_evc_mae", "evc_overlap", "modularity_true_partition_re"]


def main(argv):
    name, eps_list, seeds, modes = argv[0], argv[1], int(argv[2]), argv[3]
    warnings.simplefilter("ignore")  # seeded releases warn (benchmarks are reproducible)
    ids, edges = bs.read_edgelist(bs.DATA / f"{name}.txt")
    A = pq.adjacency(ids.size, edges)
    ts = bs.true_stats(name, ids, edges)
    for eps in map(float, eps_list.split(",")):
        for mode in modes.split(","):
            rows = [run(A, ts, eps, seed, mode) for seed in range(seeds)]
            print(name, eps, f"{mode:12s}", " ".join(
                f"{k}={np.mean([r[k] for r in rows]):.3f}" for k in KEYS), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
