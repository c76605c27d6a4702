"""Transfer-ratio benchmark of private Max-Cut / Max-Bisection against baselines.

NOT PRIVATE: this module scores private answers on the true graph (the transfer ratio =
true cut of the private partition / best non-private cut found by the same engine). It is for
benchmarks and the ``dpgraph bench`` command, never for releasing results.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpgraph.lab.evaluate import bisection_imbalance, cut_value
from dpgraph.graph import as_graph_data
from dpgraph.privacy.validation import check_delta, check_epsilon

__all__ = ["METHODS", "TransferBenchmark", "run_transfer_benchmark", "plot_transfer"]

METHODS = ("dpgraph", "randomized response", "gaussian perturbation", "random")
#: the baselines that release a dense n x n matrix and solve it: bytes per n^2 with the solve
#: (the dense routes' 40-48, dpgraph.release.screening)
DENSE_BASELINES, DENSE_BASELINE_BYTES = ("randomized response", "gaussian perturbation"), 48
#: the methods that spend delta: method -> whether it needs delta > 0 (dpgraph takes delta = 0 as
#: pure epsilon-DP; the Gaussian mechanism needs delta > 0)
DELTA_METHODS = {"dpgraph": False, "gaussian perturbation": True}


@dataclass
class TransferBenchmark:
    """Rows of (method, epsilon, seed, ratio, seconds) plus the reference value, and the delta
    of the methods that spend one (``None``: not recorded)."""

    problem: str
    reference_value: float
    rows: list = field(default_factory=list)
    delta: float | None = None

    def summary(self) -> dict:
        """{(method, epsilon): (median ratio, min, max, runs)}."""
        out: dict = {}
        keys = sorted({(r["method"], r["epsilon"]) for r in self.rows}, key=lambda k: (k[0], k[1]))
        for key in keys:
            vals = np.array([r["ratio"] for r in self.rows if (r["method"], r["epsilon"]) == key])
            out[key] = (float(np.median(vals)), float(vals.min()), float(vals.max()), len(vals))
        return out

    def methods(self) -> list:
        """The methods of the rows: those of :data:`METHODS` in its order, then any other
        (rows added by hand) in order of first appearance."""
        seen = list(dict.fromkeys(r["method"] for r in self.rows))
        return [m for m in METHODS if m in seen] + [m for m in seen if m not in METHODS]

    def table(self) -> str:
        """Plain-text table: one row per method, one column per epsilon (median ratio)."""
        summ = self.summary()
        methods = self.methods()
        eps = sorted({k[1] for k in summ})
        head = ["method"] + [f"eps={e:g}" for e in eps]
        lines = [head]
        for m in methods:
            lines.append([m] + [f"{summ[(m, e)][0]:.3f}" if (m, e) in summ else "-" for e in eps])
        widths = [max(len(row[k]) for row in lines) for k in range(len(head))]
        text = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in lines]
        text.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(text)


def check_benchmark_options(epsilons: Sequence[float], delta: float, methods: Sequence[str], *,
                            option: Callable[[str], str] = str,
                            seeds: Sequence[int] | None = None) -> list[float]:
    """Refuse what :func:`run_transfer_benchmark` cannot run, before anything is read or solved:
    an unknown method, an epsilon that is not a finite number > 0, a delta outside [0, 1) for
    dpgraph or outside (0, 1) for the Gaussian baseline (the message names the method), a
    single value where a sequence is expected (``methods="random"``, ``epsilons=1``,
    ``seeds=3``), no seeds, and an epsilon, method or seed listed twice (its runs would count
    twice in every median). Return the epsilons as floats. ``option`` spells a parameter's
    name (the command line passes ``lambda name: "--" + name``).

    >>> check_benchmark_options([1, 2], 0.0, ["random", "dpgraph"])
    [1.0, 2.0]
    >>> check_benchmark_options([1], 0.0, ["gaussian perturbation"])
    Traceback (most recent call last):
    ...
    ValueError: delta must be a number in (0, 1) for the gaussian perturbation method, got 0.0
    >>> check_benchmark_options([1, 1.0], 0.0, ["random"])
    Traceback (most recent call last):
    ...
    ValueError: epsilons lists 1 twice: its runs would count twice in the medians
    """
    methods = _listed(methods, option("methods"), "('random',)")
    epsilons = _listed(epsilons, option("epsilons"), "(1.0,)")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"{option('methods')}: unknown method(s) {unknown}; choose from "
                         f"{', '.join(METHODS)}")
    if not len(methods):
        raise ValueError(f"{option('methods')} must list at least one method")
    if not len(epsilons):
        raise ValueError(f"{option('epsilons')} must list at least one number")
    eps = [check_epsilon(e, name=f"each of {option('epsilons')}") for e in epsilons]
    seeds = None if seeds is None else _listed(seeds, option("seeds"), "range(3)")
    if seeds is not None and not seeds:
        raise ValueError(f"{option('seeds')} must list at least one seed")
    for name, values in (("epsilons", eps), ("methods", methods), ("seeds", seeds or [])):
        twice = next((v for k, v in enumerate(values) if v in values[:k]), None)
        if twice is not None:
            shown = f"{twice:g}" if isinstance(twice, float) else repr(twice)
            raise ValueError(f"{option(name)} lists {shown} twice: its runs would count twice "
                             f"in the medians")
    for method in (m for m in DELTA_METHODS if m in methods):
        positive = DELTA_METHODS[method]
        try:
            check_delta(delta, allow_zero=not positive)
        except ValueError:
            raise ValueError(f"{option('delta')} must be a number in "
                             f"{'(0, 1)' if positive else '[0, 1)'} for the {method} method, "
                             f"got {delta!r}") from None
    return eps


def _listed(values, name: str, example: str) -> list:
    """``values`` as a list; a TypeError naming ``name`` for a string or a single value
    (``methods="random"`` would be read letter by letter, ``seeds=3`` is not three seeds)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence (e.g. {example}), got {values!r}")
    return list(values)


def _partition_of(method: str, data, problem: str, eps: float, delta: float, rank, rng,
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
                           rank: int | None = None, solver_options: dict | None = None,
                           progress: Callable[[str], None] | None = None,
                           weight: str | None = "weight") -> TransferBenchmark:
    """Score every method at every epsilon and seed on the true graph (NOT PRIVATE).

    ``rank``: of the Gaussian-perturbation baseline and of dpgraph's spectral routes; ``None``
    (default): dpgraph's default rank, 8, capped at ``n - 2`` on graphs with fewer than 10
    nodes (:func:`dpgraph.release.privatize.default_rank`). ``weight``: edge attribute of
    NetworkX / igraph input (``None``: every edge weight 1). A graph with no edges (every cut
    0, so no ratio), and a graph the private methods refuse (weights outside [0, 1], fewer
    than 3 nodes), are refused with a ValueError before the reference solve.

    Each private method runs at each epsilon and seed and its partition is scored on the true
    graph: ``ratio = cut_value(G, partition) / reference_value``, the reference being the cut
    the same engine finds on the true graph (``rng=0``). The private methods are private; the
    benchmark is not (it reads the true graph to score them and to take the reference): never
    publish its numbers as a private release.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.as_graph_data` reads; edge weights in ``[0, 1]`` where a
        private method runs.
    epsilons : sequence of float
        The epsilons, each > 0 (``"random"`` spends none: its runs are shared by every column).
    delta : float
        The delta of ``"dpgraph"`` (0 allowed: pure epsilon-DP) and of
        ``"gaussian perturbation"`` (> 0).
    seeds : sequence of int
        One run per seed (the noise and rounding seed: reproducible, not private noise).
    methods : sequence of str
        Among :data:`METHODS`: ``"dpgraph"`` (:func:`dpgraph.max_cut` /
        :func:`dpgraph.max_bisection`), ``"randomized response"`` and
        ``"gaussian perturbation"`` (:mod:`dpgraph.lab.baselines`, solved by the same engine),
        ``"random"`` (a uniformly random cut, or balanced split).
    problem : {"maxcut", "bisection"}
    rank, weight
        As above.
    solver_options : dict, optional
        Passed to the engine, for the reference and every method.
    progress : callable, optional
        Called with one line of text per run (and for the reference).

    Returns
    -------
    TransferBenchmark
        ``rows``: one dict per (method, epsilon, seed) with ``value``, ``ratio`` and
        ``seconds``; ``reference_value``; ``summary()`` and ``table()``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.cycle_graph(8)                      # bipartite: the reference is the maximum, 8
    >>> bench = run_transfer_benchmark(G, epsilons=(1, 4), seeds=(0, 1),
    ...                                methods=("randomized response", "random"))
    >>> bench.reference_value, len(bench.rows)     # 2 methods x 2 epsilons x 2 seeds
    (8.0, 8)
    >>> all(0 <= row["ratio"] <= 1 for row in bench.rows)  # no cut beats the maximum
    True
    >>> sorted(bench.summary())
    [('random', 1.0), ('random', 4.0), ('randomized response', 1.0), ('randomized response', 4.0)]
    >>> print(bench.table().splitlines()[0])
    method               eps=1  eps=4
    """
    from dpgraph.engine import solve_max_bisection, solve_max_cut
    from dpgraph.release.privatize import check_rank, default_rank

    if problem not in ("maxcut", "bisection"):
        raise ValueError(f"problem={problem!r} is not 'maxcut' or 'bisection'")
    methods = _listed(methods, "methods", "('random',)")
    seeds = _listed(seeds, "seeds", "range(3)")  # (an iterator is read once, here)
    epsilons = check_benchmark_options(epsilons, delta, methods, seeds=seeds)
    data = as_graph_data(G, weight=weight)
    if data.m == 0:
        raise ValueError(f"the graph has no edges ({data.n:,} nodes): every cut is 0, so the "
                         f"transfer ratio (cut / best non-private cut) is undefined")
    private = [m for m in methods if m != "random"]
    if private:  # before the reference solve, which takes minutes on a large graph
        from dpgraph.private_input import check_private_graph_input

        check_private_graph_input(data, what=f"each private method of the benchmark "
                                             f"({', '.join(private)})")
    uses_rank = any(m in methods for m in ("dpgraph", "gaussian perturbation"))
    baseline_rank = rank  # None -> max_cut's own default for dpgraph (the same capped rank)
    if rank is not None and uses_rank:
        check_rank(rank, data.n)
    elif "gaussian perturbation" in methods:
        baseline_rank, note = default_rank(data.n)
        if note and progress:
            progress(note)
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
    if not ref_value > 0:  # edges of weight 0 or below only: no ratio to take
        raise ValueError(f"the non-private reference cut is {ref_value:g}: the transfer ratio "
                         f"(cut / best non-private cut) needs a graph with a positive cut")
    bench = TransferBenchmark(problem=problem, reference_value=ref_value,
                              delta=float(delta) if any(m in DELTA_METHODS for m in methods)
                              else None)
    for method in methods:
        for eps in epsilons:
            if method == "random" and eps != epsilons[0]:
                # the random cut does not depend on epsilon: reuse its runs for every column
                bench.rows.extend([dict(r, epsilon=eps) for r in bench.rows
                                   if r["method"] == "random" and r["epsilon"] == epsilons[0]])
                continue
            for seed in seeds:
                t0 = time.perf_counter()
                part = _partition_of(method, data, problem, eps, delta,
                                     baseline_rank if method == "gaussian perturbation" else rank,
                                     seed, solver_options)
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


#: What :func:`plot_transfer` and :func:`plot_format` say without matplotlib (an optional
#: dependency: the ``bench`` and ``test`` extras).
NEEDS_MATPLOTLIB = "writing the benchmark plot needs matplotlib: pip install 'dpgraph[bench]'"


def plot_transfer(bench: TransferBenchmark, path, *, title: str = "") -> str:
    """Write a plot of the median transfer ratio (with min-max band) against epsilon, per
    method, with a line on the plot saying so (and how many seeds); return the path written.

    The format follows the file name's extension (one matplotlib writes: ``.png``, ``.pdf``,
    ``.svg``, ...); a name without one (or a binary file object) gets a PNG, written under the
    name as given. A file name is written whole or not at all
    (:func:`dpgraph.io.atomic_output`: a failed write leaves an existing file as it was).
    Drawn on its own :class:`matplotlib.figure.Figure`: pyplot's state and the
    session's backend are left as they were. Every method of the rows is drawn (those of
    :data:`METHODS` and any other); a benchmark without rows is refused (ValueError).

    Needs matplotlib, an optional dependency (the ``bench`` and ``test`` extras:
    ``pip install 'dpgraph[bench]'``); without it, a ModuleNotFoundError saying so.

    Parameters
    ----------
    bench : TransferBenchmark
        From :func:`run_transfer_benchmark`.
    path : str, os.PathLike or binary file object
        Where to write.
    title : str
        The plot's heading (default: ``"private <problem>: transfer ratio"``).

    Returns
    -------
    str or file object
        ``path`` as a string (``os.fspath``), or the file object given.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> bench = run_transfer_benchmark(nx.cycle_graph(8), epsilons=(1, 4), seeds=(0,),
    ...                                methods=("randomized response", "random"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = plot_transfer(bench, os.path.join(folder, "transfer.png"))
    ...     with open(written, "rb") as f:
    ...         print(os.path.basename(written), f.read(4)[1:])  # a PNG file's signature
    transfer.png b'PNG'
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ModuleNotFoundError(NEEDS_MATPLOTLIB) from None

    if not isinstance(bench, TransferBenchmark):
        raise TypeError(f"bench must be a TransferBenchmark (from run_transfer_benchmark), got "
                        f"{type(bench).__name__}")
    if not (isinstance(path, (str, os.PathLike)) or hasattr(path, "write")):
        raise TypeError(f"path must be a file name or a binary file object, got "
                        f"{type(path).__name__}")
    if not bench.rows:
        raise ValueError("the benchmark has no rows: nothing to plot")
    fmt = plot_format(path)
    summ = bench.summary()
    fig = Figure(figsize=(6.4, 4.2), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for method in bench.methods():
        keys = sorted(k for k in summ if k[0] == method)
        eps = [k[1] for k in keys]
        med = [summ[k][0] for k in keys]
        lo = [summ[k][1] for k in keys]
        hi = [summ[k][2] for k in keys]
        line, = ax.plot(eps, med, marker="o", label=method)
        ax.fill_between(eps, lo, hi, color=line.get_color(), alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("epsilon" if bench.delta is None else
                  f"epsilon (delta = {bench.delta:g} where used)")
    ax.set_ylabel("transfer ratio (true cut / non-private cut)")
    heading = title or f"private {bench.problem}: transfer ratio"
    if summ:  # what the lines and the bands are (the table prints the medians too)
        runs = max(v[3] for v in summ.values())
        heading += (f"\nlines: median of {runs} seed{'' if runs == 1 else 's'}; "
                    f"bands: min to max")
    ax.set_title(heading, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    if not isinstance(path, (str, os.PathLike)):  # a file object: the caller's
        fig.savefig(path, format=fmt)
        return path
    from dpgraph.io import atomic_output

    with atomic_output(path) as raw:  # a failed write leaves an existing file as it was
        fig.savefig(raw, format=fmt)
    return os.fspath(path)


def plot_format(path) -> str:
    """The file format :func:`plot_transfer` writes to ``path``: its extension's, or ``"png"``
    for a name without one; a ValueError for an extension matplotlib cannot write (checked
    before a benchmark runs, not after). Checking an extension needs matplotlib: without it, a
    ModuleNotFoundError saying what to install, as :func:`plot_transfer` says.

    >>> plot_format("bench")  # written as a PNG named bench, not bench.png
    'png'
    """
    if not isinstance(path, (str, os.PathLike)):
        return "png"
    ext = os.path.splitext(os.fspath(path))[1][1:].lower()
    if not ext:
        return "png"
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ModuleNotFoundError(NEEDS_MATPLOTLIB) from None

    known = FigureCanvasBase.get_supported_filetypes()
    if ext not in known:
        raise ValueError(f"cannot write a plot to {os.fspath(path)}: matplotlib writes no "
                         f"'.{ext}' files (use .png, or one of {', '.join(sorted(known))})")
    return ext


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
