"""``dpgraph bench``: transfer ratio of private Max-Cut against baselines, a table and a plot.

NOT PRIVATE: it scores each private partition on the true graph
(:func:`dpgraph.lab.benchmarking.run_transfer_benchmark`).
"""

from __future__ import annotations

from dpgraph.cli.common import add_graph_argument, load_graph
from dpgraph.progress import report

__all__ = ["add_bench_parser", "cmd_bench"]


def add_bench_parser(subparsers):
    from dpgraph.lab.benchmarking import METHODS

    p = subparsers.add_parser(
        "bench", help="transfer ratio of private Max-Cut vs baselines, table + PNG plot",
        description="NOT PRIVATE (scores on the true graph). For each method and epsilon, the "
                    "cut of the private partition on the true graph divided by the best "
                    "non-private cut found by the same engine; prints a table of medians over "
                    "seeds and writes a PNG plot.")
    add_graph_argument(p)
    p.add_argument("--epsilons", default="0.5,1,2,4,8",
                   help="comma-separated (default 0.5,1,2,4,8)")
    p.add_argument("--delta", type=float, default=1e-6, help="delta (default 1e-6)")
    p.add_argument("--seeds", type=int, default=3, help="seeds per point (default 3)")
    p.add_argument("--rank", type=int, default=8,
                   help="rank for dpgraph and Gaussian perturbation")
    p.add_argument("--problem", choices=["maxcut", "bisection"], default="maxcut")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated subset of: {', '.join(METHODS)}")
    p.add_argument("--plot", default="dpgraph-bench.png",
                   help="PNG output (default dpgraph-bench.png)")
    return p


def _parse_options(args) -> tuple:
    """``(epsilons, methods)`` from their comma-separated lists, refusing bad values (and a
    missing matplotlib) before any run starts."""
    try:
        epsilons = [float(e) for e in args.epsilons.split(",") if e.strip()]
    except ValueError:
        raise ValueError(f"--epsilons must be comma-separated numbers, "
                         f"got {args.epsilons!r}") from None
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    try:  # the plot is written last: refuse now, not after minutes of runs
        import matplotlib  # noqa: F401
    except ImportError:
        raise ModuleNotFoundError("dpgraph bench writes a PNG plot, which needs matplotlib: "
                                  "pip install 'dpgraph[bench]'") from None
    return epsilons, methods


def cmd_bench(args) -> int:
    from dpgraph.lab.benchmarking import plot_transfer, run_transfer_benchmark

    epsilons, methods = _parse_options(args)
    data, where, _ = load_graph(args)
    report(f"read {where}: {data.n} nodes")
    bench = run_transfer_benchmark(data, epsilons=epsilons, delta=args.delta,
                                   seeds=range(args.seeds), methods=methods, problem=args.problem,
                                   rank=args.rank, progress=report)
    print(f"graph: {where}; problem: {args.problem}; reference (non-private engine): "
          f"{bench.reference_value:g}; median over {args.seeds} seed(s)")
    print(bench.table())
    plot_transfer(bench, args.plot, title=f"{where}: private {args.problem}")
    print(f"plot written to {args.plot}")
    return 0
