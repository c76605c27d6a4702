"""Private PCA benchmarks: subspace error of dpgraph.spectral vs baselines.

Usage (from the repository root):
    python benchmarks/bench_pca.py wishart   [--seeds 5]
    python benchmarks/bench_pca.py examples  [--seeds 5]
    python benchmarks/bench_pca.py graphs    [--seeds 3]
    python benchmarks/bench_pca.py split     [--seeds 4]

Sections:
  wishart   (a) spiked Wishart M = sqrt(beta) u g^T + W (n x m), top left singular vector, across
            n, m, epsilon: ours (direct) vs Gaussian mechanism on M + SVD vs Hardt-Price noisy
            power method; also the non-private error (the floor).
  examples  (b) 1 1^T + I/n and Erdos-Renyi + a small isolated clique (symmetric, entry adjacency 1).
  graphs    (c) normalized adjacency D^-1/2 A D^-1/2 of planted two-block graphs (D treated as
            public, entry adjacency w = 1/d_min), rank 2: error vs the non-private top-2
            subspace across degrees at epsilon = 1, ours vs paper-like constants (general
            Delta = 8/d_min, budget in four equal parts).
  split     measures median error of ours over budget splits (the defaults come from here).

Every private run uses delta = 1e-6. BLAS is pinned to one thread (the machine is shared; a
multi-threaded BLAS under contention was 5x slower here).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from dpgraph.spectral import BudgetSplit, EntryAdjacency, basic_coherence, private_low_rank, private_subspace, subspace_distance
from dpgraph.spectral import coherence
from dpgraph.spectral.linalg import top_subspace  # noqa: E402
from dpgraph.lab.pca_baselines import input_perturbation_subspace, noisy_power_method  # noqa: E402

DELTA = 1e-6


def wishart(n, m, beta, rng):
    u = rng.standard_normal(n)
    u /= np.linalg.norm(u)
    return u, math.sqrt(beta) * np.outer(u, rng.standard_normal(m)) + rng.standard_normal((n, m))


def med(xs):
    return float(np.median(xs))


def run_wishart(seeds):
    print("(a) spiked Wishart, rank 1, entry adjacency 1 (one entry of M changes by <= 1), "
          f"delta={DELTA:g}; median subspace error ||(I - P^) u|| over {seeds} seeds")
    print(f"{'n':>5} {'m':>6} {'beta':>7} {'eps':>5} | {'nonpriv':>7} {'ours':>6} {'halt':>4} "
          f"{'inputGM':>7} {'HP-NPM':>7} | {'t_ours':>6} {'t_HP':>6}")
    grid = [(400, 4000, 80 * math.sqrt(400 / 4000)), (400, 4000, 20 * math.sqrt(400 / 4000)),
            (1000, 4000, 80 * math.sqrt(1000 / 4000)), (400, 1000, 80 * math.sqrt(400 / 1000))]
    adj = EntryAdjacency(1.0, symmetric=False)
    for (n, m, beta), eps in itertools.product(grid, (0.5, 1.0, 2.0, 4.0)):
        e_np, e_o, e_ip, e_hp, halts, t_o, t_hp = [], [], [], [], 0, 0.0, 0.0
        for s in range(seeds):
            u, M = wishart(n, m, beta, np.random.default_rng(1000 + s))
            e_np.append(subspace_distance(u, top_subspace(M, 1, "rectangular").U))
            t0 = time.perf_counter()
            r = private_subspace(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s)
            t_o += time.perf_counter() - t0
            halts += r.halted
            e_o.append(subspace_distance(u, r.basis))
            e_ip.append(subspace_distance(u, input_perturbation_subspace(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
            t0 = time.perf_counter()
            hp = noisy_power_method(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s)
            t_hp += time.perf_counter() - t0
            e_hp.append(subspace_distance(u, hp.basis))
        print(f"{n:5d} {m:6d} {beta:7.2f} {eps:5.1f} | {med(e_np):7.3f} {med(e_o):6.3f} "
              f"{halts:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} | {t_o / seeds:6.2f} {t_hp / seeds:6.2f}")


def run_dilation(seeds):
    """Direct (n x n noise, t^2 = s_U^2 + s_V^2) vs the symmetrization of Sec. 2
    (S = [[0, M], [M^T, 0]], rank 2r, (n+m) x (n+m) noise, symmetric pair adjacency)."""
    n, m = 400, 4000
    beta = 80 * math.sqrt(n / m)
    print(f"\n(a') direct vs dilation, n={n}, m={m}, beta={beta:.2f}, entry adjacency 1, "
          f"median over {seeds} seeds")
    print(f"{'eps':>4} | {'mu_U':>6} {'mu_V':>6} {'mu_dil':>6} | {'direct':>6} {'dilation':>8}")
    for eps in (2.0, 4.0):
        mu_u, mu_v, mu_s, e_d, e_s = [], [], [], [], []
        for s in range(seeds):
            u, M = wishart(n, m, beta, np.random.default_rng(1000 + s))
            top = top_subspace(M, 1, "rectangular")
            mu_u.append(coherence(top.U))
            mu_v.append(coherence(top.V))
            S = sp.bmat([[None, sp.csr_matrix(M)], [sp.csr_matrix(M.T), None]]).tocsr()
            mu_s.append(coherence(top_subspace(S, 2, "symmetric").U))
            r = private_subspace(M, 1, epsilon=eps, delta=DELTA, rng=s,
                                 adjacency=EntryAdjacency(1.0, symmetric=False))
            e_d.append(subspace_distance(u, r.basis))
            rs = private_subspace(S, 2, epsilon=eps, delta=DELTA, rng=s,
                                  adjacency=EntryAdjacency(1.0))
            left = np.linalg.svd(rs.basis[:n], full_matrices=False)[0][:, :1]
            e_s.append(subspace_distance(u, left))
        print(f"{eps:4.1f} | {med(mu_u):6.1f} {med(mu_v):6.1f} {med(mu_s):6.1f} | "
              f"{med(e_d):6.3f} {med(e_s):8.3f}")


def er_plus_clique(n, p, k, rng):
    A = sp.random(n, n, density=p, random_state=rng, data_rvs=lambda s: np.ones(s), format="csr")
    A = sp.triu(A, 1)
    A = (A + A.T).tolil()
    A[n - k:, :] = 0
    A[:, n - k:] = 0
    for i in range(n - k, n):
        for j in range(n - k, n):
            if i != j:
                A[i, j] = 1.0
    return A.tocsr()


def run_examples(seeds):
    print("(b) paper examples, symmetric, entry adjacency 1, rank 1, median error vs the "
          f"non-private top eigenvector over {seeds} seeds")
    print("    HP-NPM uses L = ceil(ln n) iterations; HP-long uses L = 20 ceil(ln n) (Hardt-Price's "
          "L = O(sigma_1/gap log n) for the last instance)")
    print(f"{'instance':<34} {'eps':>4} | {'mu_1':>6} {'basic':>7} | {'ours':>6} {'halt':>4} "
          f"{'inputGM':>7} {'HP-NPM':>7} {'HP-long':>7}")
    adj = EntryAdjacency(1.0)
    n = 1000
    cases = [("1 1^T + I/n, n=1000", lambda rng: np.ones((n, n)) + np.eye(n) / n)]
    for k in (20, 60):
        cases.append((f"ER(n=1000, d=40) + K_{k} clique",
                      lambda rng, k=k: er_plus_clique(n, 40 / n, k, rng)))

    def close_spikes(rng):
        """sigma_2 / sigma_1 = 0.95: gap 1000 but a slow power method."""
        Q, _ = np.linalg.qr(rng.standard_normal((n, 2)))
        W = rng.standard_normal((n, n))
        return 20000 * np.outer(Q[:, 0], Q[:, 0]) + 19000 * np.outer(Q[:, 1], Q[:, 1]) + (W + W.T)
    cases.append(("two spikes 20000/19000 + GOE", close_spikes))
    for (name, make), eps in itertools.product(cases, (0.5, 1.0, 2.0)):
        e_o, e_ip, e_hp, e_hl, halts, mus, bas = [], [], [], [], 0, [], []
        for s in range(seeds):
            M = make(np.random.default_rng(2000 + s))
            U = top_subspace(M, 1, "symmetric").U
            mus.append(coherence(U))
            if s == 0:
                bas.append(basic_coherence(M.toarray() if sp.issparse(M) else M))
            r = private_subspace(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s)
            halts += r.halted
            e_o.append(subspace_distance(U, r.basis))
            e_ip.append(subspace_distance(U, input_perturbation_subspace(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
            e_hp.append(subspace_distance(U, noisy_power_method(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
            e_hl.append(subspace_distance(U, noisy_power_method(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s,
                iterations=20 * math.ceil(math.log(n))).basis))
        print(f"{name:<34} {eps:4.1f} | {med(mus):6.1f} {bas[0]:7.1f} | {med(e_o):6.3f} "
              f"{halts:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} {med(e_hl):7.3f}")


def two_block(n, d, rng, ratio=4.0):
    """Planted bisection: p_in / p_out = ratio, expected degree d."""
    p_out = 2 * d / (n * (1 + ratio))
    p_in = ratio * p_out
    half = n // 2
    lab = np.repeat([0, 1], [half, n - half])
    iu, ju = np.triu_indices(n, 1)
    same = lab[iu] == lab[ju]
    keep = rng.random(iu.size) < np.where(same, p_in, p_out)
    A = sp.coo_matrix((np.ones(keep.sum()), (iu[keep], ju[keep])), shape=(n, n))
    A = (A + A.T).tocsr()
    deg = np.asarray(A.sum(axis=1)).ravel()
    deg = np.maximum(deg, 1.0)
    Dm = sp.diags(1 / np.sqrt(deg))
    return (Dm @ A @ Dm).tocsr(), deg.min()


def oracle_projector(top, w, eps, seed):
    """NOT PRIVATE (benchmark reference only): the projector step with the TRUE gap and row
    scale and the whole (eps, delta) on it, i.e. what the gap and coherence tests cost."""
    from dpgraph.privacy import analytic_gaussian_sigma
    from dpgraph.privacy.noise import SymmetricGaussianNoise
    from dpgraph.spectral.linalg import top_eigvecs_projector_plus_noise
    r = top.U.shape[1]
    g = top.sigma[r - 1] - top.sigma[r]
    t = math.sqrt(np.max(np.sum(top.U ** 2, axis=1)))
    sigma = analytic_gaussian_sigma(eps, DELTA, math.sqrt(2) * w * t / (g - w))
    G = SymmetricGaussianNoise(top.U.shape[0], sigma, rng=seed, diagonal_scale=math.sqrt(2))
    return top_eigvecs_projector_plus_noise(top.U, G, r, np.random.default_rng(seed))[0]


PAPER_SPLIT = BudgetSplit(epsilon=(0.25, 0.25, 0.25, 0.25), delta=(0.25, 0.25, 0.25, 0.25))


def run_graphs(seeds, n=2000, eps=1.0, degrees=(100, 200, 300, 400, 600, 900)):
    print(f"(c) normalized adjacency of planted two-block graphs, n={n}, p_in/p_out=4, rank 2 "
          f"(magnitude), eps={eps}, delta={DELTA:g}; median error vs the non-private top-2 "
          f"subspace over {seeds} seeds")
    print("    ours: private_low_rank, EntryAdjacency(1/d_min), default split; paper-like: general "
          "Delta = 8/d_min, four equal budget parts (our Wedin constant; see BENCHMARKS.md); "
          "oracle*: NOT private, true gap/coherence, all budget on the projector")
    print(f"{'deg':>5} {'d_min':>6} {'gap':>6} {'mu_2':>6} | {'ours':>6} {'halt':>4} "
          f"{'paper':>6} {'halt':>4} {'inputGM':>7} {'HP-NPM':>7} {'oracle*':>7}")
    for d in degrees:
        e_o, e_p, e_ip, e_or, e_hp, h_o, h_p, dmins, gaps, mus = [], [], [], [], [], 0, 0, [], [], []
        for s in range(seeds):
            M, dmin = two_block(n, d, np.random.default_rng(3000 + s))
            top = top_subspace(M, 2, "symmetric")
            dmins.append(dmin)
            gaps.append(top.sigma[1] - top.sigma[2])
            mus.append(coherence(top.U))
            w = 1.0 / dmin
            r = private_low_rank(M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(w), rng=s)
            h_o += r.halted
            e_o.append(subspace_distance(top.U, r.basis))
            rp = private_low_rank(M, 2, epsilon=eps, delta=DELTA, adjacency=8 * w, rng=s,
                                  split=PAPER_SPLIT)
            h_p += rp.halted
            e_p.append(subspace_distance(top.U, rp.basis))
            e_ip.append(subspace_distance(top.U, input_perturbation_subspace(
                M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(w), rng=s).basis))
            e_or.append(subspace_distance(top.U, oracle_projector(top, w, eps, s)))
            e_hp.append(subspace_distance(top.U, noisy_power_method(
                M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(w), rng=s).basis))
        print(f"{d:5d} {med(dmins):6.0f} {med(gaps):6.3f} {med(mus):6.2f} | {med(e_o):6.3f} "
              f"{h_o:4d} {med(e_p):6.3f} {h_p:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} {med(e_or):7.3f}")


def run_split(seeds):
    print("budget split (epsilon fractions gap/coherence/projector[/core]) vs median error")
    n, m = 400, 4000
    data = [wishart(n, m, 80 * math.sqrt(n / m), np.random.default_rng(4000 + s))
            for s in range(seeds)]
    graphs = [two_block(2000, 300, np.random.default_rng(5000 + s)) for s in range(seeds)]
    gtops = [top_subspace(M, 2, "symmetric").U for M, _ in graphs]
    print(f"{'gap':>5} {'coh':>5} {'dtest':>5} | {'wishart e=2':>11} {'wishart e=1':>11} "
          f"{'graph d300 e=1':>14} {'graph d300 e=2':>14}")
    for g, c, dg in itertools.product((0.2, 0.3, 0.4), (0.15, 0.25, 0.35), (0.3,)):
        if g + c > 0.8:
            continue
        sp_ = BudgetSplit(epsilon=(g, c, 1 - g - c, 0), delta=(dg, dg, 1 - 2 * dg, 0))
        row = []
        for eps in (2.0, 1.0):
            row.append(med([subspace_distance(u, private_subspace(
                M, 1, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(1.0, symmetric=False),
                rng=i, split=sp_).basis) for i, (u, M) in enumerate(data)]))
        for eps in (1.0, 2.0):
            row.append(med([subspace_distance(U, private_subspace(
                M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(1 / dmin), rng=i,
                split=sp_).basis) for i, ((M, dmin), U) in enumerate(zip(graphs, gtops))]))
        print(f"{g:5.2f} {c:5.2f} {dg:5.2f} | {row[0]:11.3f} {row[1]:11.3f} {row[2]:14.3f} "
              f"{row[3]:14.3f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("section", choices=["wishart", "examples", "graphs", "split"])
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--n", type=int, default=2000, help="graphs: number of nodes")
    ap.add_argument("--eps", type=float, default=1.0, help="graphs: epsilon")
    ap.add_argument("--degrees", type=int, nargs="+", default=[100, 200, 300, 400, 600, 900],
                    help="graphs: expected degrees")
    a = ap.parse_args()
    t0 = time.perf_counter()
    {"wishart": lambda: (run_wishart(a.seeds or 5), run_dilation(a.seeds or 5)), "examples": lambda: run_examples(a.seeds or 5),
     "graphs": lambda: run_graphs(a.seeds or 3, a.n, a.eps, tuple(a.degrees)), "split": lambda: run_split(a.seeds or 4)}[a.section]()
    print(f"[{a.section}: {time.perf_counter() - t0:.0f} s wall, shared 2-core machine]")
