"""Private PCA at scale: time and peak memory of private_low_rank on large sparse graphs.

Usage (from the repository root):
    python benchmarks/bench_pca_scale.py [--sizes 2000 5000 10000 20000] [--degree 300]
           [--timeout 600]

Each size runs in its own subprocess (so peak RSS, ``ru_maxrss``, is per size). Input: the
normalized adjacency of a planted two-block graph (sparse CSR, p_in/p_out = 4, expected degree
``--degree``, default 1000), rank 2, EntryAdjacency(1/d_min), ``--epsilon`` (default 2), delta = 1e-6. The n x n projector
noise is never held: the block Krylov solver regenerates it block by block for every product.
Baseline measured in the same process: the time to draw n(n+1)/2 standard normals in the same
2048 x 2048 blocks (one pass over the noise), so ``time / baseline`` counts passes.
BLAS is pinned to one thread; the machine is shared (2 cores, several users): absolute times
are indicative only.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def planted_sparse(n, d, rng, ratio=4.0):
    """Two-block graph by sampling edge counts per block pair (no n^2 work)."""
    p_out = 2 * d / (n * (1 + ratio))
    p_in = ratio * p_out
    half = n // 2
    rows, cols = [], []
    for (a0, a1), (b0, b1), p, same in [((0, half), (0, half), p_in, True),
                                        ((half, n), (half, n), p_in, True),
                                        ((0, half), (half, n), p_out, False)]:
        na, nb = a1 - a0, b1 - b0
        pairs = na * (na - 1) // 2 if same else na * nb
        k = rng.binomial(pairs, p)
        i = rng.integers(a0, a1, k)
        j = rng.integers(b0, b1, k)
        keep = i != j
        rows.append(i[keep])
        cols.append(j[keep])
    i = np.concatenate(rows)
    j = np.concatenate(cols)
    A = sp.coo_matrix((np.ones(i.size), (i, j)), shape=(n, n)).tocsr()
    A = A + A.T
    A.data[:] = 1.0
    deg = np.maximum(np.asarray(A.sum(axis=1)).ravel(), 1.0)
    Dm = sp.diags(1 / np.sqrt(deg))
    return (Dm @ A @ Dm).tocsr(), float(deg.min())


EPS = 2.0


def one(n, d):
    from dpgraph.privacy.noise import SymmetricGaussianNoise
    from dpgraph.spectral import EntryAdjacency, private_low_rank, subspace_distance
    from dpgraph.spectral.linalg import top_subspace

    M, dmin = planted_sparse(n, d, np.random.default_rng(n))
    # baseline: one pass over the upper-triangle blocks of the noise
    G = SymmetricGaussianNoise(n, 1.0, rng=0)
    nb = G.n_blocks[0]
    t0 = time.perf_counter()
    for bi in range(nb):
        for bj in range(bi, nb):
            G.block(bi, bj)
    base = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = private_low_rank(M, 2, epsilon=EPS, delta=1e-6, adjacency=EntryAdjacency(1 / dmin), rng=1)
    total = time.perf_counter() - t0
    top = top_subspace(M, 2, "symmetric")  # non-private reference, for the error column only
    return dict(n=n, d_min=dmin, nnz=int(M.nnz), seconds=total, baseline=base,
                products=getattr(res.diagnostics.eig, "products", 0), halted=res.halted,
                error=subspace_distance(top.U, res.basis),
                peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    ap.add_argument("--degree", type=int, default=1000)
    ap.add_argument("--epsilon", type=float, default=2.0)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--child", type=int, default=None)
    a = ap.parse_args()
    if a.child:
        EPS = a.epsilon
        print(json.dumps(one(a.child, a.degree)))
        sys.exit()
    print(f"private_low_rank, rank 2, two-block graph, degree {a.degree}, eps={a.epsilon}, delta=1e-6")
    print(f"{'n':>7} {'nnz':>10} {'d_min':>6} | {'time s':>7} {'1 pass s':>8} {'ratio':>6} "
          f"{'products':>8} | {'peak RSS MiB':>12} {'error':>6} {'halted':>6}")
    for n in a.sizes:
        try:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), "--epsilon", str(a.epsilon), "--degree",
                                  str(a.degree)], capture_output=True, text=True,
                                 timeout=a.timeout)
            r = json.loads(out.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            print(f"{n:7d}  timed out after {a.timeout} s")
            continue
        except Exception:  # noqa: BLE001
            print(f"{n:7d}  failed: {out.stderr[-500:]}")
            continue
        print(f"{r['n']:7d} {r['nnz']:10d} {r['d_min']:6.0f} | {r['seconds']:7.1f} "
              f"{r['baseline']:8.2f} {r['seconds'] / r['baseline']:6.1f} {r['products']:8d} | "
              f"{r['peak_rss_mib']:12.0f} {r['error']:6.3f} {str(r['halted']):>6}")
