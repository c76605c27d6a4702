"""Transfer-ratio benchmark of private Max-Cut / Max-Bisection against baselines.

NOT PRIVATE: this module scores private answers on the true graph (the transfer ratio =
true cut of the private partition / best non-private cut found by the same engine). It is for
benchmarks and the ``dpgraph bench`` command, never for releasing results.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpgraph.lab.evaluate import bisection_imbalance, cut_value
from dpgraph.graph import as_graph_data

__all__ = ["METHODS", "TransferBenchmark", "run_transfer_benchmark", "plot_transfer"]

METHODS = ("dpgraph", "randomized response", "gaussian perturbation", "random")
#: the baselines that release a dense n x n matrix and solve it: bytes per n^2 with the solve
#: (the dense routes' 40-48, dpgraph.release.screening)
DENSE_BASELINES, DENSE_BASELINE_BYTES = ("randomized response", "gaussian perturbation"), 48


@dataclass
class TransferBenchmark:
    """Rows of (method, epsilon, seed, ratio, seconds) plus the reference value."""

    problem: str
    reference_value: float
    rows: list = field(default_factory=list)

    def summary(self) -> dict:
        """{(method, epsilon): (median ratio, min, max, runs)}."""
        out: dict = {}
        keys = sorted({(r["method"], r["epsilon"]) for r in self.rows}, key=lambda k: (k[0], k[1]))
        for key in keys:
            vals = np.array([r["ratio"] for r in self.rows if (r["method"], r["epsilon"]) == key])
            out[key] = (float(np.median(vals)), float(vals.min()), float(vals.max()), len(vals))
        return out

    def table(self) -> str:
        """Plain-text table: one row per method, one column per epsilon (median ratio)."""
        summ = self.summary()
        methods = [m for m in METHODS if any(k[0] == m for k in summ)]
        eps = sorted({k[1] for k in summ})
        head = ["method"] + [f"eps={e:g}" for e in eps]
        lines = [head]
        for m in methods:
            lines.append([m] + [f"{summ[(m, e)][0]:.3f}" if (m, e) in summ else "-" for e in eps])
        widths = [max(len(row[k]) for row in lines) for k in range(len(head))]
        text = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in lines]
        text.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(text)


def _partition_of(method: str, data, problem: str, eps: float, delta: float, rank: int, rng,
                  solver_options: dict):
    from dpgraph.lab import baselines
    from dpgraph.solve.cut import max_bisection, max_cut

    if method == "dpgraph":
        fn = max_cut if problem == "maxcut" else max_bisection
        return fn(data, epsilon=eps, delta=delta, rank=rank, rng=rng,
                  solver_options=solver_options).assignment
    if method == "random":
        part = baselines.random_partition(data, rng=rng)
        if problem == "bisection":  # a uniformly random balanced split
            perm = np.random.default_rng(rng).permutation(data.n)
            part = {data.labels[i]: int(k < data.n // 2) for k, i in enumerate(perm)}
        return part
    if method == "randomized response":
        release = baselines.randomized_response(data, epsilon=eps, rng=rng)
    elif method == "gaussian perturbation":
        release = baselines.gaussian_perturbation(data, epsilon=eps, delta=delta, rank=rank, rng=rng)
    else:
        raise ValueError(f"unknown method {method!r}; choose from {METHODS}")
    return baselines.solve_release(release, problem, rng=rng, **solver_options).assignment


def run_transfer_benchmark(G, *, epsilons: Sequence[float] = (0.5, 1, 2, 4, 8),
                           delta: float = 1e-6, seeds: Sequence[int] = (0, 1, 2, 3, 4),
                           methods: Sequence[str] = METHODS, problem: str = "maxcut",
                           rank: int = 8, solver_options: dict | None = None,
                           progress: Callable[[str], None] | None = None,
                           weight: str | None = "weight") -> TransferBenchmark:
    """Score every method at every epsilon and seed on the true graph (NOT PRIVATE).

    ``weight``: edge attribute of NetworkX / igraph input (``None``: every edge weight 1)."""
    from dpgraph.engine import solve_max_bisection, solve_max_cut

    if problem not in ("maxcut", "bisection"):
        raise ValueError(f"problem={problem!r} is not 'maxcut' or 'bisection'")
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"unknown method(s) {sorted(unknown)}; choose from {METHODS}")
    data = as_graph_data(G, weight=weight)
    dense = [m for m in methods if m in DENSE_BASELINES]
    if dense:  # before the reference solve: a dense baseline on a large graph cannot run
        from dpgraph.memory import check_memory

        check_memory(DENSE_BASELINE_BYTES * data.n * data.n,
                     what=f"the dense baselines ({', '.join(dense)}) on {data.n:,} nodes "
                          f"(n x n arrays)",
                     fit=(lambda k: DENSE_BASELINE_BYTES * k * k,
                          "They fit up to {:,} nodes."),
                     alternative=f"Leave them out of methods (--methods "
                                 f"{','.join(m for m in methods if m not in dense)}).")
    solver_options = dict(solver_options or {})
    ref_solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
    t0 = time.perf_counter()
    reference = ref_solver(data, rng=0, **solver_options)
    ref_value = cut_value(data, reference.assignment)
    if progress:
        progress(f"non-private reference: {ref_value:g} ({time.perf_counter() - t0:.1f} s)")
    bench = TransferBenchmark(problem=problem, reference_value=ref_value)
    for method in methods:
        for eps in epsilons:
            if method == "random" and eps != epsilons[0]:
                # the random cut does not depend on epsilon: reuse its runs for every column
                bench.rows.extend([dict(r, epsilon=eps) for r in bench.rows
                                   if r["method"] == "random" and r["epsilon"] == epsilons[0]])
                continue
            for seed in seeds:
                t0 = time.perf_counter()
                part = _partition_of(method, data, problem, eps, delta, rank, seed, solver_options)
                value = cut_value(data, part)
                if problem == "bisection" and bisection_imbalance(data, part) > 1:
                    raise RuntimeError(f"{method} returned an unbalanced bisection")
                row = {"method": method, "epsilon": eps, "seed": seed, "value": value,
                       "ratio": value / ref_value, "seconds": time.perf_counter() - t0}
                bench.rows.append(row)
                if progress:
                    progress(f"{method:22s} eps={eps:<5g} seed={seed}  ratio={row['ratio']:.4f}  "
                             f"({row['seconds']:.1f} s)")
    return bench


def plot_transfer(bench: TransferBenchmark, path, *, title: str = "") -> None:
    """Write a PNG: median transfer ratio (with min-max band) against epsilon, per method."""
    try:
        import matplotlib
    except ImportError:
        raise ModuleNotFoundError(
            "writing the benchmark plot needs matplotlib: pip install 'dpgraph[bench]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summ = bench.summary()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for method in METHODS:
        keys = sorted(k for k in summ if k[0] == method)
        if not keys:
            continue
        eps = [k[1] for k in keys]
        med = [summ[k][0] for k in keys]
        lo = [summ[k][1] for k in keys]
        hi = [summ[k][2] for k in keys]
        line, = ax.plot(eps, med, marker="o", label=method)
        ax.fill_between(eps, lo, hi, color=line.get_color(), alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("epsilon (delta = 1e-6 where used)")
    ax.set_ylabel("transfer ratio (true cut / non-private cut)")
    ax.set_title(title or f"private {bench.problem}: transfer ratio")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def fidelity(G, weights, *, partition=None, n_cuts: int = 200, rng=0,
             weight: str | None = "weight") -> dict:
    """How well a synthetic weighted graph matches the true one (NOT PRIVATE).

    * ``degree_kl``: KL divergence between the degree histograms (true || synthetic), on
      logarithmic bins, with add-one smoothing;
    * ``top_eigenvalues``: the 4 largest-magnitude eigenvalues of ``D^-1/2 W D^-1/2`` for both;
    * ``cut_query_error``: median relative error of ``n_cuts`` uniformly random cut queries;
    * ``planted_modularity``: modularity of ``partition`` in both graphs (if given).
    """
    import scipy.sparse as sp
    from scipy.sparse import linalg as spla

    data = as_graph_data(G, weight=weight)
    A = data.weights
    W = weights.toarray() if sp.issparse(weights) else np.asarray(weights)
    gen = np.random.default_rng(rng)
    d_true, d_syn = data.degrees, W.sum(axis=1)
    hi = max(d_true.max(), d_syn.max(), 1.0)
    bins = np.concatenate([[0], np.geomspace(0.5, hi + 1, 30)])
    p = np.histogram(d_true, bins)[0] + 1.0
    q = np.histogram(np.maximum(d_syn, 0), bins)[0] + 1.0
    p, q = p / p.sum(), q / q.sum()
    out = {"degree_kl": float(np.sum(p * np.log(p / q)))}

    def top_eigs(X, deg):
        s = 1.0 / np.sqrt(np.maximum(deg, 1e-12))
        N = X.multiply(s[:, None]).multiply(s[None, :]) if sp.issparse(X) else X * np.outer(s, s)
        vals = spla.eigsh(N, k=4, which="LM", return_eigenvectors=False, tol=1e-6)
        return sorted(vals.tolist(), key=lambda v: -abs(v))

    out["top_eigenvalues_true"] = top_eigs(A.astype(float), d_true)
    out["top_eigenvalues_synthetic"] = top_eigs(W, np.maximum(d_syn, 1e-12))
    errs = []
    for _ in range(n_cuts):
        x = np.where(gen.random(data.n) < 0.5, 1.0, -1.0)
        true = (data.total_weight - 0.5 * x @ (A @ x)) / 2
        syn = (W.sum() / 2 - 0.5 * x @ (W @ x)) / 2
        errs.append(abs(syn - true) / max(true, 1e-12))
    out["cut_query_error"] = float(np.median(errs))
    if partition is not None:
        z = np.asarray(partition)

        def modularity(X, deg):
            total = deg.sum()
            same = z[:, None] == z[None, :]
            Xd = X.toarray() if sp.issparse(X) else X
            return float(((Xd - np.outer(deg, deg) / total) * same).sum() / total)

        out["planted_modularity_true"] = modularity(A, d_true)
        out["planted_modularity_synthetic"] = modularity(W, d_syn)
    return out
