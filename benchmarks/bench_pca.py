"""Private PCA benchmarks: subspace error of dpgraph.spectral vs baselines.

Usage (from the repository root):
    python benchmarks/bench_pca.py wishart   [--seeds 5]
    python benchmarks/bench_pca.py examples  [--seeds 5]
    python benchmarks/bench_pca.py graphs    [--seeds 3]
    python benchmarks/bench_pca.py split     [--seeds 4]
    python benchmarks/bench_pca.py regime    [--seeds 3]
    python benchmarks/bench_pca.py scale     [--sizes 2000 5000 10000 20000] [--degree 1000]
                                             [--epsilon 2] [--timeout 600]

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
  regime    where the private gap test (step 1 of Thm 5.1) halts on spiked Wishart inputs with
            beta = 8 sqrt(n/m): the measured gap sigma_1 - sigma_2 against the test's threshold.
  scale     time and peak memory of private_low_rank on large sparse planted graphs, each size in
            its own subprocess (so peak RSS, ``ru_maxrss``, is per size); the n x n projector
            noise is never held (the block Krylov solver regenerates it block by block for
            every product). Baseline measured in the same process: the time to draw n(n+1)/2
            standard normals in the same 2048 x 2048 blocks (one pass over the noise), so
            ``time / baseline`` counts passes.

HP-NPM (Hardt-Price noisy power method) runs Hardt and Price's iteration count
L = ceil(lambda_r / (lambda_r - lambda_(r+1)) ln n), lambda the eigenvalues (in magnitude) of
the matrix the iteration multiplies by (M if symmetric, M M^T if rectangular), computed from the
true spectrum: a non-private choice that favours the baseline. "HP ln n" is the same method with
L = ceil(ln n) (dpgraph.lab.pca_baselines' default), for comparison.

Every private run uses delta = 1e-6. BLAS is pinned to one thread (the machine is shared; a
multi-threaded BLAS under contention was 5x slower here): absolute times are indicative only.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from dpgraph.spectral import BudgetSplit, EntryAdjacency, basic_coherence, private_low_rank, private_subspace, subspace_distance  # noqa: E402
from dpgraph.spectral import coherence  # noqa: E402
from dpgraph.spectral.linalg import top_subspace  # noqa: E402
from dpgraph.lab.pca_baselines import input_perturbation_subspace, noisy_power_method  # noqa: E402

DELTA = 1e-6


def wishart(n, m, beta, rng):
    u = rng.standard_normal(n)
    u /= np.linalg.norm(u)
    return u, math.sqrt(beta) * np.outer(u, rng.standard_normal(m)) + rng.standard_normal((n, m))


def med(xs):
    return float(np.median(xs))


def hp_iterations(top, r, kind, n):
    """Hardt and Price's count L = ceil(lambda_r / (lambda_r - lambda_(r+1)) ln n) for the
    matrix the power iteration multiplies by (M, or M M^T for rectangular M), from the true
    spectrum ``top.sigma`` (NOT private: it favours the baseline). Noiselessly, the angle to the top-r
    subspace after L iterations is at most about (lambda_(r+1)/lambda_r)^L <= 1/n."""
    sig = np.abs(top.sigma[:r + 1])
    lam = sig ** 2 if kind == "rectangular" else sig
    return max(1, math.ceil(lam[r - 1] / (lam[r - 1] - lam[r]) * math.log(n)))


def run_wishart(seeds):
    print("(a) spiked Wishart, rank 1, entry adjacency 1 (one entry of M changes by <= 1), "
          f"delta={DELTA:g}; median subspace error ||(I - P^) u|| over {seeds} seeds")
    print(f"{'n':>5} {'m':>6} {'beta':>7} {'eps':>5} | {'nonpriv':>7} {'ours':>6} {'halt':>4} "
          f"{'inputGM':>7} {'HP-NPM':>7} {'L':>3} {'HP ln n':>7} | {'t_ours':>6} {'t_HP':>6}")
    grid = [(400, 4000, 80 * math.sqrt(400 / 4000)), (400, 4000, 20 * math.sqrt(400 / 4000)),
            (1000, 4000, 80 * math.sqrt(1000 / 4000)), (400, 1000, 80 * math.sqrt(400 / 1000))]
    adj = EntryAdjacency(1.0, symmetric=False)
    for (n, m, beta), eps in itertools.product(grid, (0.5, 1.0, 2.0, 4.0)):
        e_np, e_o, e_ip, e_hp, e_hl, Ls, halts, t_o, t_hp = [], [], [], [], [], [], 0, 0.0, 0.0
        for s in range(seeds):
            u, M = wishart(n, m, beta, np.random.default_rng(1000 + s))
            top = top_subspace(M, 1, "rectangular")
            e_np.append(subspace_distance(u, top.U))
            Ls.append(hp_iterations(top, 1, "rectangular", n))
            t0 = time.perf_counter()
            r = private_subspace(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s)
            t_o += time.perf_counter() - t0
            halts += r.halted
            e_o.append(subspace_distance(u, r.basis))
            e_ip.append(subspace_distance(u, input_perturbation_subspace(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
            t0 = time.perf_counter()
            hp = noisy_power_method(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s,
                                    iterations=Ls[-1])
            t_hp += time.perf_counter() - t0
            e_hp.append(subspace_distance(u, hp.basis))
            e_hl.append(subspace_distance(u, noisy_power_method(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
        print(f"{n:5d} {m:6d} {beta:7.2f} {eps:5.1f} | {med(e_np):7.3f} {med(e_o):6.3f} "
              f"{halts:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} {med(Ls):3.0f} {med(e_hl):7.3f} | "
              f"{t_o / seeds:6.2f} {t_hp / seeds:6.2f}")


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
    print("    HP-NPM uses Hardt-Price's L = ceil(lambda_1/(lambda_1 - lambda_2) ln n) (true "
          "spectrum); HP ln n uses L = ceil(ln n)")
    print(f"{'instance':<34} {'eps':>4} | {'mu_1':>6} {'basic':>7} | {'ours':>6} {'halt':>4} "
          f"{'inputGM':>7} {'HP-NPM':>7} {'L':>4} {'HP ln n':>7}")
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
        e_o, e_ip, e_hp, e_hl, Ls, halts, mus, bas = [], [], [], [], [], 0, [], []
        for s in range(seeds):
            M = make(np.random.default_rng(2000 + s))
            top = top_subspace(M, 1, "symmetric")
            U = top.U
            Ls.append(hp_iterations(top, 1, "symmetric", n))
            mus.append(coherence(U))
            if s == 0:
                bas.append(basic_coherence(M.toarray() if sp.issparse(M) else M))
            r = private_subspace(M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s)
            halts += r.halted
            e_o.append(subspace_distance(U, r.basis))
            e_ip.append(subspace_distance(U, input_perturbation_subspace(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
            e_hp.append(subspace_distance(U, noisy_power_method(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s,
                iterations=Ls[-1]).basis))
            e_hl.append(subspace_distance(U, noisy_power_method(
                M, 1, epsilon=eps, delta=DELTA, adjacency=adj, rng=s).basis))
        print(f"{name:<34} {eps:4.1f} | {med(mus):6.1f} {bas[0]:7.1f} | {med(e_o):6.3f} "
              f"{halts:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} {med(Ls):4.0f} {med(e_hl):7.3f}")


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
          f"{'paper':>6} {'halt':>4} {'inputGM':>7} {'HP-NPM':>7} {'L':>3} {'HP ln n':>7} "
          f"{'oracle*':>7}")
    for d in degrees:
        e_o, e_p, e_ip, e_or, e_hp, e_hl, Ls = [], [], [], [], [], [], []
        h_o, h_p, dmins, gaps, mus = 0, 0, [], [], []
        for s in range(seeds):
            M, dmin = two_block(n, d, np.random.default_rng(3000 + s))
            top = top_subspace(M, 2, "symmetric")
            Ls.append(hp_iterations(top, 2, "symmetric", n))
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
                M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(w), rng=s,
                iterations=Ls[-1]).basis))
            e_hl.append(subspace_distance(top.U, noisy_power_method(
                M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(w), rng=s).basis))
        print(f"{d:5d} {med(dmins):6.0f} {med(gaps):6.3f} {med(mus):6.2f} | {med(e_o):6.3f} "
              f"{h_o:4d} {med(e_p):6.3f} {h_p:4d} {med(e_ip):7.3f} {med(e_hp):7.3f} "
              f"{med(Ls):3.0f} {med(e_hl):7.3f} {med(e_or):7.3f}")


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


def run_regime(seeds, grid=((400, 4000), (400, 16000), (1000, 10000), (1000, 40000),
                             (2000, 20000)), epsilons=(1.0, 2.0, 4.0)):
    """Step 1 of Thm 5.1 (Alg. 5.2) passes when g^ - b ln(1/(2 delta_g)) > eta, with
    g^ = g + Lap(b), b = 2 eta / eps_g: its threshold and pass probability come from the code's
    own constants (adjacency_constants, gap_sensitivity, the default split); g is measured."""
    import scipy.sparse.linalg as spla
    from dpgraph.spectral.bounds import adjacency_constants, gap_sensitivity
    from dpgraph.spectral.pca import DEFAULT_SUBSPACE_SPLIT

    eta = adjacency_constants(EntryAdjacency(1.0, symmetric=False), symmetric=False).eta
    f_eps, f_dl = DEFAULT_SUBSPACE_SPLIT.epsilon[0], DEFAULT_SUBSPACE_SPLIT.delta[0]

    def scale(eps):
        return gap_sensitivity(eta) / (f_eps * eps)

    def threshold(eps):
        return eta + scale(eps) * math.log(1 / (2 * f_dl * DELTA))

    def p_pass(g, eps):
        x, b = threshold(eps) - g, scale(eps)
        return 0.5 * math.exp(-x / b) if x >= 0 else 1 - 0.5 * math.exp(x / b)

    print(f"private gap test (Alg. 5.2) on spiked Wishart n x m, beta = 8 sqrt(n/m), entry "
          f"adjacency 1 (eta = {eta:g}), default split ({f_eps:.0%} of epsilon, {f_dl:.0%} of "
          f"delta = {DELTA:g}); it passes when gap + Lap(b) - b ln(1/(2 delta_g)) > eta, "
          f"b = 2 eta / eps_g")
    print("    threshold (the gap at which it passes half the time): " + ", ".join(
        f"{threshold(e):.1f} at eps {e:g}" for e in epsilons))
    print("    predicted gap: sqrt(m (1 + beta)(1 + (n/m)/beta)) - (sqrt(m) + sqrt(n)) (the "
          "spiked model's top singular value minus the bulk edge)")
    print(f"{'n':>5} {'m':>6} {'beta':>6} | {'gap':>6} {'pred':>6} | " + " ".join(
        f"{'P[pass] e=' + format(e, 'g'):>11}" for e in epsilons))
    for n, m in grid:
        beta = 8 * math.sqrt(n / m)
        gaps = []
        for s in range(seeds):
            _, M = wishart(n, m, beta, np.random.default_rng(6000 + s))
            sv = np.sort(spla.svds(M, k=2, tol=1e-8, random_state=s, return_singular_vectors=False))
            gaps.append(float(sv[1] - sv[0]))
            del M
        pred = math.sqrt(m * (1 + beta) * (1 + n / m / beta)) - (math.sqrt(m) + math.sqrt(n))
        print(f"{n:5d} {m:6d} {beta:6.3f} | {med(gaps):6.1f} {pred:6.1f} | " + " ".join(
            f"{p_pass(med(gaps), e):11.3f}" for e in epsilons))
    # with s = sqrt(n/m): sqrt((1 + 8 s)(1 + s/8)) - 1 - s = 3.0625 s - 7.75 s^2 + O(s^3), so the
    # predicted gap is 3.0625 sqrt(n) - 7.75 n / sqrt(m) + O(n^1.5 / m)
    lim = 3.0625
    print(f"    m -> infinity (the large-sample regime, m >= n^3): the predicted gap tends to "
          f"{lim} sqrt(n) - 7.75 n / sqrt(m); it reaches the threshold at n = " + ", ".join(
              f"{(threshold(e) / lim) ** 2:,.0f} (eps {e:g})" for e in epsilons)
          + f"; at n = 1,000 the n x n^3 input is {1000 * 1000 ** 3 * 8 / 2 ** 40:,.0f} TiB in "
            f"float64")


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


def scale_one(n, d, eps):
    """One size of ``scale`` (run in a child process, so ru_maxrss is this size's peak)."""
    from dpgraph.privacy.noise import SymmetricGaussianNoise

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
    res = private_low_rank(M, 2, epsilon=eps, delta=DELTA, adjacency=EntryAdjacency(1 / dmin),
                           rng=1)
    total = time.perf_counter() - t0
    top = top_subspace(M, 2, "symmetric")  # non-private reference, for the error column only
    return dict(n=n, d_min=dmin, nnz=int(M.nnz), seconds=total, baseline=base,
                products=getattr(res.diagnostics.eig, "products", 0), halted=res.halted,
                error=subspace_distance(top.U, res.basis),
                peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def run_scale(sizes, degree, eps, timeout):
    print(f"private_low_rank, rank 2, two-block graph (p_in/p_out = 4), degree {degree}, "
          f"eps={eps}, delta={DELTA:g}, EntryAdjacency(1/d_min)")
    print(f"{'n':>7} {'nnz':>10} {'d_min':>6} | {'time s':>7} {'1 pass s':>8} {'ratio':>6} "
          f"{'products':>8} | {'peak RSS MiB':>12} {'error':>6} {'halted':>6}")
    for n in sizes:
        try:
            out = subprocess.run([sys.executable, __file__, "scale", "--child", str(n),
                                  "--epsilon", str(eps), "--degree", str(degree)],
                                 capture_output=True, text=True, timeout=timeout)
            r = json.loads(out.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            print(f"{n:7d}  timed out after {timeout} s")
            continue
        except Exception:  # noqa: BLE001
            print(f"{n:7d}  failed: {out.stderr[-500:]}")
            continue
        print(f"{r['n']:7d} {r['nnz']:10d} {r['d_min']:6.0f} | {r['seconds']:7.1f} "
              f"{r['baseline']:8.2f} {r['seconds'] / r['baseline']:6.1f} {r['products']:8d} | "
              f"{r['peak_rss_mib']:12.0f} {r['error']:6.3f} {str(r['halted']):>6}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("section", choices=["wishart", "examples", "graphs", "split", "regime",
                                        "scale"])
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--n", type=int, default=2000, help="graphs: number of nodes")
    ap.add_argument("--eps", type=float, default=1.0, help="graphs: epsilon")
    ap.add_argument("--degrees", type=int, nargs="+", default=[100, 200, 300, 400, 600, 900],
                    help="graphs: expected degrees")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000],
                    help="scale: numbers of nodes")
    ap.add_argument("--degree", type=int, default=1000, help="scale: expected degree")
    ap.add_argument("--epsilon", type=float, default=2.0, help="scale: epsilon")
    ap.add_argument("--timeout", type=int, default=600, help="scale: seconds per size")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(scale_one(a.child, a.degree, a.epsilon)))
        sys.exit()
    t0 = time.perf_counter()
    {"wishart": lambda: (run_wishart(a.seeds or 5), run_dilation(a.seeds or 5)), "examples": lambda: run_examples(a.seeds or 5),
     "graphs": lambda: run_graphs(a.seeds or 3, a.n, a.eps, tuple(a.degrees)), "split": lambda: run_split(a.seeds or 4),
     "regime": lambda: run_regime(a.seeds or 3),
     "scale": lambda: run_scale(a.sizes, a.degree, a.epsilon, a.timeout)}[a.section]()
    print(f"[{a.section}: {time.perf_counter() - t0:.0f} s wall, shared 2-core machine]")
