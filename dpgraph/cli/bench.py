"""``dpgraph bench``: transfer ratio of private Max-Cut against baselines, a table (and, with
``--plot FILE``, a plot: a PNG, or the format of FILE's extension).

NOT PRIVATE: it scores each private partition on the true graph
(:func:`dpgraph.lab.benchmarking.run_transfer_benchmark`).
"""

from __future__ import annotations

from dpgraph.cli.common import add_graph_argument, check_out_folder, is_edge_files, load_graph
from dpgraph.cli.text import counted, number
from dpgraph.progress import report

__all__ = ["add_bench_parser", "cmd_bench", "precheck_bench"]


def add_bench_parser(subparsers):
    from dpgraph.lab.benchmarking import METHODS
    from dpgraph.release.privatize import DEFAULT_RANK

    p = subparsers.add_parser(
        "bench", help="transfer ratio of private Max-Cut vs baselines (table; plot with --plot)",
        description="NOT PRIVATE (scores on the true graph). For each method and epsilon, the "
                    "cut of the private partition on the true graph divided by the best "
                    "non-private cut found by the same engine; prints a table of medians over "
                    "seeds and, with --plot FILE, writes a plot (a PNG unless FILE's "
                    "extension names another format; needs matplotlib: "
                    "pip install 'dpgraph[bench]'). The dpgraph method runs dpgraph.max_cut "
                    "(or max_bisection) with its default route: the local route on most "
                    "graphs, which does not use --rank.")
    add_graph_argument(p, scheduler=False)  # bench refuses Dask edge files: no --scheduler
    p.add_argument("--epsilons", default="0.5,1,2,4,8",
                   help="comma-separated, each a finite number > 0 (default 0.5,1,2,4,8)")
    p.add_argument("--delta", type=float, default=1e-6,
                   help="delta of the dpgraph method (in [0, 1)) and of the Gaussian-perturbation "
                        "baseline (in (0, 1)); default 1e-6")
    p.add_argument("--seeds", type=int, default=3, help="seeds per point (default 3)")
    p.add_argument("--rank", type=int, default=None,
                   help="rank of the Gaussian-perturbation baseline, and of dpgraph on its "
                        "spectral routes (not used by the local route, dpgraph's default on "
                        f"most graphs; default {DEFAULT_RANK}, capped at n - 2 on graphs with "
                        f"fewer than {DEFAULT_RANK + 2} nodes)")
    p.add_argument("--problem", choices=["maxcut", "bisection"], default="maxcut",
                   help="maxcut (default): dpgraph.max_cut against the best non-private cut; "
                        "bisection: max_bisection against the best non-private bisection")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated subset of: {', '.join(METHODS)}")
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="also write a plot to FILE: a PNG, or the format of FILE's extension "
                        "(.pdf, .svg, ...) (needs matplotlib; default: the table only)")
    return p


def precheck_bench(args) -> tuple:
    """What ``bench`` refuses before anything is read (and before a Dask session would start):
    its option values (:func:`_parse_options`, whose ``(epsilons, methods)`` it returns) and
    Dask edge files, which it cannot score (the transfer ratio solves and scores the graph in
    memory)."""
    options = _parse_options(args)
    if is_edge_files(args.graph):
        raise ValueError(f"bench needs the graph in memory; {args.graph!r} names Dask edge "
                         f"files (a glob, folder or .parquet path)")
    return options


def _parse_options(args) -> tuple:
    """``(epsilons, methods)`` from their comma-separated lists, refusing bad values before
    anything is read: epsilons that are not finite numbers > 0, an unknown method, a delta
    the listed methods cannot use (:func:`dpgraph.lab.benchmarking.check_benchmark_options`)."""
    from dpgraph.lab.benchmarking import check_benchmark_options

    try:
        epsilons = [float(e) for e in args.epsilons.split(",") if e.strip()]
    except ValueError:
        raise ValueError(f"--epsilons must be comma-separated numbers, "
                         f"got {args.epsilons!r}") from None
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    epsilons = check_benchmark_options(epsilons, args.delta, methods,
                                       option=lambda name: f"--{name}")
    return epsilons, methods


def _check_plot(args) -> None:
    """With ``--plot``: its folder and matplotlib, checked after the graph is read (a missing
    file is reported first) and before the runs (the plot is written last: refuse now, not
    after minutes of runs)."""
    if args.plot is None:
        return
    check_out_folder(args.plot, option="--plot",
                     inputs=(args.graph, getattr(args, "nodes", None)))
    from dpgraph.lab.benchmarking import NEEDS_MATPLOTLIB, plot_format

    try:
        import matplotlib  # noqa: F401
        plot_format(args.plot)  # an extension matplotlib cannot write: refused now
    except ImportError:  # the message plot_transfer would give, in the option's words
        raise ModuleNotFoundError(f"--plot: {NEEDS_MATPLOTLIB} (or drop --plot)") from None
    except ValueError as exc:
        raise ValueError(f"--plot: {exc}") from None


def cmd_bench(args) -> int:
    from dpgraph.lab.benchmarking import run_transfer_benchmark

    epsilons, methods = precheck_bench(args)
    data, where, _ = load_graph(args)
    if data.m == 0:
        raise ValueError(f"{where} has no edges ({counted(data.n, 'node')}): every cut is 0, so "
                         f"bench has no transfer ratio (cut / best non-private cut) to score")
    _check_plot(args)
    report(f"read {where}: {counted(data.n, 'node')}")
    bench = run_transfer_benchmark(data, epsilons=epsilons, delta=args.delta,
                                   seeds=range(args.seeds), methods=methods, problem=args.problem,
                                   rank=args.rank, progress=report)
    seeds = f"{args.seeds} seed" + ("" if args.seeds == 1 else "s")
    print(f"graph: {where}; problem: {args.problem}; reference (non-private engine): "
          f"{number(bench.reference_value)}; median over {seeds}")
    print(bench.table())
    if args.plot is not None:
        from dpgraph.lab.benchmarking import plot_transfer

        written = plot_transfer(bench, args.plot, title=f"{where}: private {args.problem}")
        print(f"plot written to {written}")
    return 0
