"""``dpgraph synth``: write a private synthetic graph.

Two mechanisms: ``block-model`` (:func:`dpgraph.release_synthetic`, pure epsilon-DP) and
``privatize`` (a spectral release of :func:`dpgraph.privatize`, sampled or, with
``--weighted``, exported with its weights). On Dask edge files the matrix-free release's
sampler runs as Dask tasks and writes a folder of Parquet files. Every refusal happens before
any budget is spent. Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

from dpgraph.cli.common import (add_graph_argument, add_privacy_arguments, check_graph_input,
                                check_not_input, formats, is_edge_files, load_graph, print_ledger,
                                print_release_notes, print_reproducible)
from dpgraph.cli.errors import show_notes
from dpgraph.cli.output import dumps, synth_document
from dpgraph.cli.text import counted, number
from dpgraph.privacy.validation import check_number
from dpgraph.release.private_graph import DEFAULT_RANK
from dpgraph.release.routes import route_spec
from dpgraph.release.screening import MATRIX_FREE_MIN_N
from dpgraph.progress import report

__all__ = ["add_synth_parser", "precheck_synth", "check_dask_synth", "cmd_synth"]


def add_synth_parser(subparsers):
    p = subparsers.add_parser(
        "synth", help="write a private synthetic graph",
        description="Release a private synthetic graph and write it with write_graph (format "
                    "from the output extension). By default (--mechanism block-model) "
                    "dpgraph.release_synthetic: private communities (one block where the "
                    "released edge count says they would be random) and a degree-corrected "
                    "block model, pure epsilon-DP (delta unused), O(m + n k) time and memory; "
                    "--mechanism privatize samples the block model of dpgraph.privatize "
                    "(a spectral route; keeps more of the cut structure, costs n^2 memory on "
                    "the dense routes); --weighted writes privatize's weighted graph.")
    add_graph_argument(p, "the result (output file and size, ledger, route, diagnostics)")
    add_privacy_arguments(
        p, delta_required=False,
        delta_help="; needed by --mechanism privatize only (the block model is pure "
                   "epsilon-DP: given with it, the output notes that it is not used); with "
                   "--mechanism privatize, 0 asks for a pure epsilon-DP route",
        rank_help=_RANK_HELP, route_help=_ROUTE_HELP)
    p.add_argument("-o", "--out", required=True,
                   help="output file; the format comes from --output-format or the extension "
                        "(e.g. out.graphml, out.mtx; .txt, .edges, .tsv: a plain 'u v' edge "
                        "list); checked before any budget is spent. For Dask "
                        "edge files (a glob, folder or .parquet input) a folder instead: the "
                        "sample is drawn by Dask tasks and written there as Parquet files "
                        "part-00000.parquet, ... (columns u, v), never held whole")
    p.add_argument("--output-format", choices=formats(), default=None,
                   help="format of the -o file (default: from its extension; snap is the plain "
                        "'u v' edge list)")
    _add_output_options(p)
    return p


_RANK_HELP = (f"--mechanism privatize only: rank of the private low-rank release (default "
              f"{DEFAULT_RANK}, capped at n - 2 on graphs with fewer than {DEFAULT_RANK + 2} "
              f"nodes; {route_spec('matrix-free').default_rank} on the matrix-free route)")
_ROUTE_HELP = (f"--mechanism privatize only (the block model has no routes). auto (default): "
               f"a private edge count predicts whether the PCA's gap test can pass: pca if so, "
               f"else randomized-response; the matrix-free route from {MATRIX_FREE_MIN_N:,} "
               f"nodes, on Dask edge files, or where a dense route would not fit in memory; "
               f"with --delta 0 a pure route (randomized-response, or local from "
               f"{MATRIX_FREE_MIN_N:,} nodes)")


def _add_output_options(p):
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
    p.add_argument("--communities", choices=("auto", "private", "none"), default=None,
                   help="block-model only: private communities 'auto' (default: where the "
                        "released edge count says they can carry signal, else one block), "
                        "'private' (always) or 'none' (one block; the degrees get the budget)")
    p.add_argument("--synthetic-share", type=float, default=None,
                   help="with --mechanism privatize: fraction of epsilon for the synthetic "
                        "block model (degrees and block edge counts; default 0.3, "
                        "docs/privacy.md 7); the rest privatizes. On the matrix-free route "
                        f"(--route matrix-free, or auto from {MATRIX_FREE_MIN_N:,} nodes) the "
                        "default is none: its factor form samples itself and the whole "
                        "budget goes to the release")
    p.add_argument("--report", action="store_true",
                   help="also print NON-PRIVATE fidelity metrics of the written graph against "
                        "the input (edge count, degree KL/Hellinger, clustering, triangles, "
                        "modularity, NMI, eigenvector centrality, path length, max-cut "
                        "transfer); never publish them with the release. Not with --json")


# ----------------------------------------------------------------------------- checks


def precheck_synth(args) -> None:
    """What ``synth`` checks before anything is read, any Dask cluster started or any budget
    spent: the output path (a Parquet folder for Dask edge files) and the option combination.
    The command line runs it before opening the Dask session."""
    from dpgraph.io import check_output_path

    check_graph_input(args)  # a folder or glob given by mistake: said first, not the options
    if is_edge_files(args.graph):
        if args.output_format is not None:
            raise ValueError("--output-format does not apply to Dask edge files: -o is then a "
                             "folder of Parquet files")
        check_dask_synth(args)
    else:
        if args.out == "-":  # not standard output: write_graph would make a file named '-'
            raise ValueError("-o -: writes a file, not standard output, and would create a "
                             "file named '-'; name a file")
        check_not_input(args.out, (args.graph, getattr(args, "nodes", None)), "-o")
        try:
            check_output_path(args.out, format=args.output_format)
        except ValueError as exc:
            raise ValueError(str(exc).replace("pass format=", "pass --output-format")) from None


def check_dask_synth(args) -> None:
    """``synth`` on Dask edge files: only the matrix-free release's sampler runs on Dask;
    ``-o`` is a folder for its Parquet files (refused here, before any budget is spent)."""
    if args.mechanism != "privatize":
        raise ValueError("synth on Dask edge files needs --mechanism privatize --delta D (the "
                         "matrix-free route, whose sampler runs as Dask tasks); the default "
                         "block-model mechanism needs the graph in memory")
    if args.weighted or args.report:
        raise ValueError("--weighted and --report need the graph in memory; not available for "
                         "Dask edge files")
    own = args.route == "auto" or (route_spec(args.route).streams
                                   and route_spec(args.route).own_sampler)
    if not own or args.synthetic_share is not None:
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


def _mechanism(args) -> tuple:
    """``(mechanism, notes)``: the mechanism the options ask for, refusing combinations that
    do not apply to it, and the notes the output carries about ignored options."""
    if args.min_weight is not None and not args.weighted:
        raise ValueError("--min-weight applies to --weighted exports only")
    if args.min_weight is not None:
        check_number(args.min_weight, name="--min-weight", low=0.0)
    if args.report and args.json:  # the report is text, printed after the result
        raise ValueError("--report prints a text report and does not combine with --json")
    mechanism = args.mechanism or ("privatize" if args.weighted else "block-model")
    if mechanism == "block-model":
        if args.weighted:
            raise ValueError("--weighted needs --mechanism privatize (the block model has no "
                             "weights)")
        if args.synthetic_share is not None or args.rank is not None or args.route != "auto":
            raise ValueError("--synthetic-share, --rank and --route apply to --mechanism "
                             "privatize only")
    elif args.communities is not None:
        raise ValueError("--communities applies to --mechanism block-model only")
    elif args.delta is None:
        raise ValueError("--delta is required with --mechanism privatize (and with --weighted, "
                         "which uses it): an (epsilon, delta)-DP route")
    notes = []
    if mechanism == "block-model" and args.delta is not None:
        notes.append(f"--delta {args.delta:g} is not used: the block-model mechanism is pure "
                     f"epsilon-DP and spends delta 0 (--mechanism privatize is the "
                     f"(epsilon, delta) mechanism)")
    return mechanism, notes


def _check_min_weight(args, n: int) -> None:
    """``--min-weight`` needs a dense release: the factor form keeps the heaviest pairs, not a
    threshold (checked before any budget is spent)."""
    from dpgraph.release.factor_graph import DENSE_EXPORT_MAX_N

    if (args.weighted and args.min_weight is not None and n > DENSE_EXPORT_MAX_N
            and (args.route == "auto" or not route_spec(args.route).dense)):
        raise ValueError(f"--min-weight needs a dense release ({n:,} nodes may take the "
                         f"matrix-free route, whose export keeps the released edge count's "
                         f"heaviest pairs): drop --min-weight, or pass --route pca")


# ----------------------------------------------------------------------------- release


def _release(args, data, where: str, mechanism: str, on_dask: bool):
    """``(release, written graph)``: the private release and the graph drawn from it (on Dask
    edge files, the sample's size only: Dask tasks write it to the ``-o`` folder)."""
    from dpgraph.privacy import make_rng
    from dpgraph.release.privatize import privatize

    gen = make_rng(args.seed)
    if mechanism == "block-model":
        from dpgraph.synthetic.release import release_synthetic

        report(f"read {where}: {counted(data.n, 'node')}; releasing communities and a block model")
        pg = release_synthetic(data, epsilon=args.epsilon, rng=gen,
                               communities=args.communities or "auto")
        return pg, pg.sample(rng=gen)
    share = "auto" if args.synthetic_share is None else args.synthetic_share
    report(f"read {where}: {counted(data.n, 'node')}; privatizing")
    pg = privatize(data, epsilon=args.epsilon, delta=args.delta, rank=args.rank, rng=gen,
                   route=args.route, synthetic_share=share)
    if on_dask:
        # drawn and written by Dask tasks (docs: FactorPrivateGraph.write_sample)
        edges = pg.write_sample(args.out, rng=gen)
        return pg, SimpleNamespace(n=pg.n, m=edges, total_weight=float(edges))
    if args.weighted:
        return pg, (pg.to_graph_data(max_edges=int(round(pg.edge_count)))
                    if args.min_weight is None else pg.to_graph_data(min_weight=args.min_weight))
    return pg, pg.sample(rng=gen)


def cmd_synth(args) -> int:
    from dpgraph.io import check_labels_storable, output_format, write_graph

    on_dask = is_edge_files(args.graph)  # output and options: checked by precheck_synth
    mechanism, notes = _mechanism(args)
    data, where, fmt = load_graph(args)
    _check_min_weight(args, data.n)
    if not on_dask:  # the sample keeps the input's labels: refused before any budget is spent
        check_labels_storable(data.labels, args.output_format or output_format(args.out))
    pg, out = _release(args, data, where, mechanism, on_dask)
    listed = None
    if not on_dask:
        report(f"writing {counted(out.n, 'node')} and {counted(out.m, 'edge')} to {args.out}")
        write_graph(out, args.out, format=args.output_format)
        listed = _nodes_in_file(out, args.output_format or output_format(args.out))
    show_notes(notes, quiet=args.quiet)
    print_reproducible(pg.ledger, json_output=args.json)
    if args.json:
        print(dumps(synth_document(pg, out, where=where, fmt=fmt, path=args.out,
                                   weighted=args.weighted, notes=notes, nodes_in_file=listed)))
        return 0
    _print_result(args, pg, out, notes, on_dask, listed)
    if args.report:
        from dpgraph.lab.evaluate import format_synthetic_report, synthetic_report

        report("computing the NON-PRIVATE fidelity report")
        print(format_synthetic_report(synthetic_report(data, out)))
    return 0


def _nodes_in_file(out, fmt: str) -> int:
    """The nodes a file of format ``fmt`` holding ``out`` lists: the edge-list formats (snap,
    csv, edgelist) list edges only, so none of the isolated nodes."""
    if fmt in ("snap", "csv", "edgelist"):
        import numpy as np

        return int(np.count_nonzero(np.diff(out.weights.indptr)))
    return out.n


def _print_result(args, pg, out, notes, on_dask: bool, listed: int | None = None) -> None:
    print(f"mechanism: {pg.diagnostics.get('low_rank_mechanism', pg.diagnostics.get('mechanism'))}")
    print(f"wrote {'weighted' if args.weighted else 'sampled'} synthetic graph "
          f"({counted(out.n, 'node')}, {counted(out.m, 'edge')}) to {args.out}"
          + (" (Parquet files written by the Dask workers; isolated nodes are not listed)"
             if on_dask else "")
          + (f" (the file lists {number(listed)} of the nodes: an edge list holds no isolated "
             f"node; read it back with --nodes)" if listed is not None and listed < out.n
             else ""))
    print_release_notes(pg.ledger)
    print(f"released edge count: {number(round(pg.edge_count))}")
    print_ledger(pg.ledger)
