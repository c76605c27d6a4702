"""The private subcommands of the ``dpgraph`` command: maxcut, bisection, synth, bench.

Registered in :data:`dpgraph.cli.app.COMMANDS`. Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from dpgraph.progress import report


def _add_graph_argument(p, what: str | None = None):
    from dpgraph.cli.app import _formats, add_json_argument, add_quiet_argument, add_unweighted_argument

    p.add_argument("graph", metavar="PATH|NAME",
                   help="a graph file (any format read_graph knows) or a data set name")
    p.add_argument("--format", choices=_formats(), default=None,
                   help="file format (default: detected)")
    add_unweighted_argument(p)
    add_quiet_argument(p)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler to use for edge files given as a glob, folder or "
                        ".parquet path (default: a local cluster on this machine)")
    if what:
        add_json_argument(p, what)


def _add_privacy_arguments(p, *, rank=True, delta_required=True):
    p.add_argument("--epsilon", type=float, required=True, help="privacy budget epsilon (> 0)")
    p.add_argument("--delta", type=float, required=delta_required, default=None,
                   help="privacy budget delta (in (0, 1))" + (
                       "" if delta_required else
                       "; needed by --mechanism privatize only (the block model is pure "
                       "epsilon-DP: given with it, the output notes that it is not used)"))
    if rank:
        from dpgraph.release.privatize import DEFAULT_RANK
        p.add_argument("--rank", type=int, default=None,
                       help=f"rank of the private low-rank estimate (default {DEFAULT_RANK}; 2 "
                            f"on the matrix-free route; capped at n - 2 on graphs with fewer "
                            f"than {DEFAULT_RANK + 2} nodes)")
    p.add_argument("--seed", type=int, default=None,
                   help="TESTING ONLY: seed the noise so runs repeat. A seeded release is NOT "
                        "private (anyone with the seed can remove the noise); the output says "
                        "'reproducible noise: not a private release'. Default: a "
                        "cryptographically secure generator keyed from the operating system")
    p.add_argument("--route", choices=("auto", "local", "randomized-response", "pca",
                                       "matrix-free"),
                   default="auto",
                   help="private mechanism (default auto: the degree-ordered local route, or the "
                        "matrix-free route on large graphs of high private density; chosen from "
                        "the number of nodes and a private edge count; a dense route that would "
                        "not fit is refused before allocating)")


# ----------------------------------------------------------------------------- maxcut / bisection


def _add_cut_parser(subparsers, name, what):
    p = subparsers.add_parser(
        name, help=f"private {what} of a graph (edge-level (epsilon, delta)-DP)",
        description=f"Release a private {what} of the graph: privatize it (private degrees, "
                    f"private low-rank normalized adjacency, projection), then solve the "
                    f"synthetic instance with the degree-2 sum-of-squares engine. Prints the "
                    f"partition sizes, the private value estimate, the SDP bound of the "
                    f"synthetic instance and the privacy ledger.")
    _add_graph_argument(p, "the result (partition sizes or file, private estimate, ledger, "
                           "route, diagnostics)")
    _add_privacy_arguments(p)
    p.add_argument("--out", "-o", default=None,
                   help="write the partition to this file: one 'label<TAB>side' line per node")
    return p


def _add_maxcut_parser(subparsers):
    return _add_cut_parser(subparsers, "maxcut", "maximum cut")


def _add_bisection_parser(subparsers):
    return _add_cut_parser(subparsers, "bisection", "maximum bisection")


def _print_reproducible(ledger, *, json_output: bool = False) -> None:
    """Say it first, on stdout and stderr, when the noise was seeded (``--seed``); with
    ``--json`` on stderr only (the document says it in ``private_release`` and ``warning``)."""
    from dpgraph.privacy import REPRODUCIBLE_NOTICE

    if ledger.reproducible:
        line = f"WARNING: {REPRODUCIBLE_NOTICE} (--seed was given; for tests and benchmarks only)"
        if not json_output:
            print(line)
        print(f"dpgraph: {line}", file=sys.stderr)


def _print_release_notes(ledger) -> None:
    """Say what was released when a charge's note warns (e.g. randomized response at an
    epsilon so large that nothing is flipped: docs/privacy.md 10.2)."""
    for e in ledger.entries:
        if "released unchanged" in (e.note or ""):
            print(f"note:              {e.name}: at epsilon {e.epsilon:.4g} the flip probability "
                  f"is 0, so the release holds the input's pair indicators unchanged "
                  f"(an epsilon this large protects nothing)")


def _write_partition(res, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for label, side in res.assignment.items():
            fh.write(f"{label}\t{int(side)}\n")


def _run_cut(args, problem: str) -> int:
    import os
    import time

    from dpgraph.cli.app import load_input
    from dpgraph.solve.cut import max_bisection, max_cut

    if args.out:  # before any budget is spent
        folder = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise FileNotFoundError(f"cannot write --out {args.out!r}: directory {folder!r} "
                                    f"does not exist or is not writable")

    data, where, fmt = load_input(args.graph, format=args.format, unweighted=args.unweighted,
                                  ids=args.ids)
    report(f"read {where}: {data.n} nodes; privatizing and solving ({problem})")
    fn = max_cut if problem == "maxcut" else max_bisection
    t0 = time.perf_counter()
    res = fn(data, epsilon=args.epsilon, delta=args.delta, rank=args.rank, rng=args.seed,
             solver_options={"progress": False}, route=args.route)
    # stderr only, seen by the data holder: released objects carry no timing (docs/privacy.md)
    report(f"done in {time.perf_counter() - t0:.1f} s ({res.diagnostics['route']} route)")
    left, right = res.partition
    _print_reproducible(res.ledger, json_output=args.json)
    if args.out:
        _write_partition(res, args.out)
    if args.json:
        from dpgraph.cli.output import cut_document, dumps

        print(dumps(cut_document(res, problem=problem, where=where, fmt=fmt, out=args.out)))
        return 0
    print(f"graph:             {where}")
    print(f"problem:           private {'max-cut' if problem == 'maxcut' else 'max-bisection'}")
    print(f"partition sizes:   {len(left)} / {len(right)}")
    if res.estimated_value is not None:
        lo, hi = res.estimate_interval
        print(f"private estimate:  {res.estimated_value:.6g}, {res.estimate_level:.0%} interval "
              f"[{lo:.6g}, {hi:.6g}] (noisy cut of this partition in the input)")
    if res.synthetic_value is not None:
        print(f"synthetic value:   {res.synthetic_value:.6g} (cut of this partition on the "
              f"synthetic graph)")
    if res.sdp_bound is not None:
        print(f"SDP bound:         {res.sdp_bound:.6g} (certified bound of the released "
              f"instance the partition was solved on, not of the input)")
    print(f"route:             {res.diagnostics['route']}")
    diag = res.private_graph.diagnostics
    if res.diagnostics["route"] == "local":
        k = res.diagnostics["candidate_partitions"]
        print(f"sides:             {res.diagnostics['objective']} "
              + (f"(chosen privately between {k} candidates: forward pass, refined)" if k > 1
                 else "(one private decision per node, in order of released degree)"))
        print(f"plan:              core of {diag['core']:,} nodes, refinement share "
              f"{diag['refine_share']:g}, {diag['batches']:,} batches")
    else:
        print(f"objective:         {res.diagnostics['objective']} (chosen privately among "
              f"{res.diagnostics['candidate_partitions']} candidate partition(s) of "
              f"{len(res.diagnostics['candidates'])} objective(s))")
        print(f"mechanism:         {diag['low_rank_mechanism']} (rank {diag.get('rank')})")
    if diag.get("rank_note"):
        print(f"rank:              {diag['rank_note']}")
    scr = diag.get("screening")
    if scr:
        print(f"screening:         private mean degree {scr['mean_degree']:.4g}; predicted gap "
              f"ratio {scr['predicted_gap_ratio']:.4g} vs {scr['required_gap_ratio']:.4g} needed "
              f"by the PCA's gap test")
    _print_release_notes(res.ledger)
    print("privacy ledger:")
    print("  " + res.ledger.report().replace("\n", "\n  "))
    if args.out:
        print(f"partition written to {args.out}")
    return 0


def _cmd_maxcut(args) -> int:
    return _run_cut(args, "maxcut")


def _cmd_bisection(args) -> int:
    return _run_cut(args, "bisection")


# ----------------------------------------------------------------------------- synth


def _add_synth_parser(subparsers):
    p = subparsers.add_parser(
        "synth", help="write a private synthetic graph",
        description="Release a private synthetic graph and write it with write_graph (format "
                    "from the output extension). By default (--mechanism block-model) "
                    "dpgraph.release_synthetic: private communities and a degree-corrected "
                    "block model, pure epsilon-DP (delta unused), O(m + n k) time and memory; "
                    "--mechanism privatize samples the block model of dpgraph.privatize "
                    "(a spectral route; keeps more of the cut structure, costs n^2 memory on "
                    "the dense routes); --weighted writes privatize's weighted graph.")
    _add_graph_argument(p, "the result (output file and size, ledger, route, diagnostics)")
    _add_privacy_arguments(p, delta_required=False)
    p.add_argument("-o", "--out", required=True,
                   help="output file; the format comes from --output-format or the extension "
                        "(e.g. out.graphml, out.mtx; .txt, .edges, .tsv: a plain 'u v' edge "
                        "list); checked before any budget is spent. For Dask "
                        "edge files (a glob, folder or .parquet input) a folder instead: the "
                        "sample is drawn by Dask tasks and written there as Parquet files "
                        "part-00000.parquet, ... (columns u, v), never held whole")
    from dpgraph.cli.app import _formats
    p.add_argument("--output-format", choices=_formats(), default=None,
                   help="format of the -o file (default: from its extension; snap is the plain "
                        "'u v' edge list)")
    p.add_argument("--weighted", action="store_true",
                   help="write the weighted synthetic graph instead of a sampled unweighted one: "
                        "its heaviest pairs, as many as the released edge count")
    p.add_argument("--min-weight", type=float, default=None,
                   help="with --weighted, keep every pair of weight > this instead of the "
                        "released edge count's worth of heaviest pairs")
    p.add_argument("--mechanism", choices=("block-model", "privatize"), default=None,
                   help="block-model (default): dpgraph.release_synthetic; privatize: "
                        "dpgraph.privatize(...).sample() (the default with --weighted, the only "
                        "mechanism that has weights)")
    p.add_argument("--synthetic-share", type=float, default=None,
                   help="with --mechanism privatize: fraction of epsilon for the synthetic "
                        "block model (degrees and block edge counts; default 0.3, "
                        "docs/privacy.md 7); the rest privatizes")
    p.add_argument("--report", action="store_true",
                   help="also print NON-PRIVATE fidelity metrics of the written graph against "
                        "the input (edge count, degree KL/Hellinger, clustering, triangles, "
                        "modularity, NMI, eigenvector centrality, path length, max-cut "
                        "transfer); never publish them with the release")
    return p


def precheck_synth(args) -> None:
    """What ``synth`` checks before anything is read, any Dask cluster started or any budget
    spent: the output path (a Parquet folder for Dask edge files) and the option combination.
    ``dpgraph.cli.app`` runs it before opening the Dask session."""
    from dpgraph.cli.app import is_edge_files
    from dpgraph.io import check_output_path

    if is_edge_files(args.graph):
        if args.output_format is not None:
            raise ValueError("--output-format does not apply to Dask edge files: -o is then a "
                             "folder of Parquet files")
        _check_dask_synth(args)
    else:
        try:
            check_output_path(args.out, format=args.output_format)
        except ValueError as exc:
            raise ValueError(str(exc).replace("pass format=", "pass --output-format")) from None


def _cmd_synth(args) -> int:
    from dpgraph.cli.app import is_edge_files, load_input
    from dpgraph.io import write_graph
    from dpgraph.privacy import make_rng
    from dpgraph.release.privatize import privatize

    on_dask = is_edge_files(args.graph)  # output and options: checked by precheck_synth
    if args.min_weight is not None and not args.weighted:
        raise ValueError("--min-weight applies to --weighted exports only")
    mechanism = args.mechanism or ("privatize" if args.weighted else "block-model")
    if mechanism == "block-model":
        if args.weighted:
            raise ValueError("--weighted needs --mechanism privatize (the block model has no "
                             "weights)")
        if args.synthetic_share is not None or args.rank is not None or args.route != "auto":
            raise ValueError("--synthetic-share, --rank and --route apply to --mechanism "
                             "privatize only")
    elif args.delta is None:
        raise ValueError("--delta is required with --mechanism privatize (and with --weighted, "
                         "which uses it): an (epsilon, delta)-DP route")
    notes = []
    if mechanism == "block-model" and args.delta is not None:
        notes.append(f"--delta {args.delta:g} is not used: the block-model mechanism is pure "
                     f"epsilon-DP and spends delta 0 (--mechanism privatize is the "
                     f"(epsilon, delta) mechanism)")
    share = "auto" if args.synthetic_share is None else args.synthetic_share
    data, where, fmt = load_input(args.graph, format=args.format, unweighted=args.unweighted,
                                  ids=args.ids)
    from dpgraph.release.factor_graph import DENSE_EXPORT_MAX_N

    if (args.weighted and args.min_weight is not None and data.n > DENSE_EXPORT_MAX_N
            and args.route not in ("pca", "randomized-response")):
        # before any budget is spent: the factor form keeps the heaviest pairs, not a threshold
        raise ValueError(f"--min-weight needs a dense release ({data.n:,} nodes may take the "
                         f"matrix-free route, whose export keeps the released edge count's "
                         f"heaviest pairs): drop --min-weight, or pass --route pca")
    gen = make_rng(args.seed)
    if mechanism == "block-model":
        from dpgraph.synthetic.release import release_synthetic

        report(f"read {where}: {data.n} nodes; releasing communities and a block model")
        pg = release_synthetic(data, epsilon=args.epsilon, rng=gen)
        out = pg.sample(rng=gen)
    else:
        report(f"read {where}: {data.n} nodes; privatizing")
        pg = privatize(data, epsilon=args.epsilon, delta=args.delta, rank=args.rank, rng=gen,
                       route=args.route, synthetic_share=share)
        if on_dask:
            # drawn and written by Dask tasks (docs: FactorPrivateGraph.write_sample)
            edges = pg.write_sample(args.out, rng=gen)
            out = SimpleNamespace(n=pg.n, m=edges, total_weight=float(edges))
        elif args.weighted:
            out = (pg.to_graph_data(max_edges=int(round(pg.edge_count)))
                   if args.min_weight is None else pg.to_graph_data(min_weight=args.min_weight))
        else:
            out = pg.sample(rng=gen)
    if not on_dask:
        report(f"writing {out.n:,} nodes and {out.m:,} edges to {args.out}")
        write_graph(out, args.out, format=args.output_format)
    _print_reproducible(pg.ledger, json_output=args.json)
    if args.json:
        from dpgraph.cli.output import dumps, synth_document

        print(dumps(synth_document(pg, out, where=where, fmt=fmt, path=args.out,
                                   weighted=args.weighted, notes=notes)))
        return 0
    for note in notes:
        print(f"note: {note}")
    print(f"mechanism: {pg.diagnostics.get('low_rank_mechanism', pg.diagnostics.get('mechanism'))}")
    print(f"wrote {'weighted' if args.weighted else 'sampled'} synthetic graph "
          f"({out.n} nodes, {out.m} edges) to {args.out}"
          + (" (Parquet files written by the Dask workers; isolated nodes are not listed)"
             if on_dask else ""))
    _print_release_notes(pg.ledger)
    print(f"released edge count: {pg.edge_count:,.0f}")
    print("privacy ledger:")
    print("  " + pg.ledger.report().replace("\n", "\n  "))
    if args.report:
        from dpgraph.lab.evaluate import format_synthetic_report, synthetic_report

        report("computing the NON-PRIVATE fidelity report")
        print(format_synthetic_report(synthetic_report(data, out)))
    return 0


def _check_dask_synth(args) -> None:
    """``synth`` on Dask edge files: only the matrix-free release's sampler runs on Dask;
    ``-o`` is a folder for its Parquet files (refused here, before any budget is spent)."""
    if args.mechanism != "privatize":
        raise ValueError("synth on Dask edge files needs --mechanism privatize --delta D (the "
                         "matrix-free route, whose sampler runs as Dask tasks); the default "
                         "block-model mechanism needs the graph in memory")
    if args.weighted or args.report:
        raise ValueError("--weighted and --report need the graph in memory; not available for "
                         "Dask edge files")
    if args.route not in ("auto", "matrix-free") or args.synthetic_share is not None:
        raise ValueError("Dask edge files take the matrix-free route, which samples its own "
                         "block model: drop --route and --synthetic-share")
    from dpgraph.synthetic.factor_sampler import check_sample_folder

    check_sample_folder(args.out)  # for Dask edge files -o is a folder of Parquet files
    out = os.path.abspath(args.out)
    parent = os.path.dirname(out.rstrip(os.sep)) or os.sep
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"cannot write {args.out!r}: no such directory {parent!r}")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write {args.out!r}: permission denied")


# ----------------------------------------------------------------------------- bench


def _add_bench_parser(subparsers):
    from dpgraph.lab.benchmarking import METHODS

    p = subparsers.add_parser(
        "bench", help="transfer ratio of private Max-Cut vs baselines, table + PNG plot",
        description="NOT PRIVATE (scores on the true graph). For each method and epsilon, the "
                    "cut of the private partition on the true graph divided by the best "
                    "non-private cut found by the same engine; prints a table of medians over "
                    "seeds and writes a PNG plot.")
    _add_graph_argument(p)
    p.add_argument("--epsilons", default="0.5,1,2,4,8", help="comma-separated (default 0.5,1,2,4,8)")
    p.add_argument("--delta", type=float, default=1e-6, help="delta (default 1e-6)")
    p.add_argument("--seeds", type=int, default=3, help="seeds per point (default 3)")
    p.add_argument("--rank", type=int, default=8, help="rank for dpgraph and Gaussian perturbation")
    p.add_argument("--problem", choices=["maxcut", "bisection"], default="maxcut")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated subset of: {', '.join(METHODS)}")
    p.add_argument("--plot", default="dpgraph-bench.png", help="PNG output (default dpgraph-bench.png)")
    return p


def _cmd_bench(args) -> int:
    from dpgraph.lab.benchmarking import plot_transfer, run_transfer_benchmark
    from dpgraph.cli.app import load_input

    try:
        epsilons = [float(e) for e in args.epsilons.split(",") if e.strip()]
    except ValueError:
        raise ValueError(f"--epsilons must be comma-separated numbers, got {args.epsilons!r}") from None
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    try:  # the plot is written last: refuse now, not after minutes of runs
        import matplotlib  # noqa: F401
    except ImportError:
        raise ModuleNotFoundError("dpgraph bench writes a PNG plot, which needs matplotlib: "
                                  "pip install 'dpgraph[bench]'") from None
    data, where, _ = load_input(args.graph, format=args.format, unweighted=args.unweighted,
                                ids=args.ids)
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
