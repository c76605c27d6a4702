"""``dpgraph maxcut`` and ``dpgraph bisection``: a private partition of a graph.

Both privatize the graph and solve the released instance (:func:`dpgraph.max_cut`,
:func:`dpgraph.max_bisection`); they differ only in the solver and in their names. Progress
goes to stderr, results to stdout.
"""

from __future__ import annotations

import time

from dpgraph.cli.common import (add_graph_argument, add_privacy_arguments, check_out_folder,
                                load_graph, print_ledger, print_release_notes,
                                print_reproducible)
from dpgraph.cli.output import cut_document, dumps
from dpgraph.progress import report
from dpgraph.release.routes import route_spec

__all__ = ["add_maxcut_parser", "add_bisection_parser", "cmd_maxcut", "cmd_bisection"]


def _add_cut_parser(subparsers, name, what):
    p = subparsers.add_parser(
        name, help=f"private {what} of a graph (edge-level (epsilon, delta)-DP)",
        description=f"Release a private {what} of the graph: privatize it (private degrees, "
                    f"private low-rank normalized adjacency, projection), then solve the "
                    f"synthetic instance with the degree-2 sum-of-squares engine. Prints the "
                    f"partition sizes, the private value estimate, the SDP bound of the "
                    f"synthetic instance and the privacy ledger.")
    add_graph_argument(p, "the result (partition sizes or file, private estimate, ledger, "
                          "route, diagnostics)")
    add_privacy_arguments(p)
    p.add_argument("--out", "-o", default=None,
                   help="write the partition to this file: one 'label<TAB>side' line per node")
    return p


def add_maxcut_parser(subparsers):
    return _add_cut_parser(subparsers, "maxcut", "maximum cut")


def add_bisection_parser(subparsers):
    return _add_cut_parser(subparsers, "bisection", "maximum bisection")


def cmd_maxcut(args) -> int:
    return _run_cut(args, "maxcut")


def cmd_bisection(args) -> int:
    return _run_cut(args, "bisection")


def _write_partition(res, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for label, side in res.assignment.items():
            fh.write(f"{label}\t{int(side)}\n")


def _run_cut(args, problem: str) -> int:
    from dpgraph.solve.cut import max_bisection, max_cut

    check_out_folder(args.out)
    data, where, fmt = load_graph(args)
    report(f"read {where}: {data.n} nodes; privatizing and solving ({problem})")
    fn = max_cut if problem == "maxcut" else max_bisection
    t0 = time.perf_counter()
    res = fn(data, epsilon=args.epsilon, delta=args.delta, rank=args.rank, rng=args.seed,
             solver_options={"progress": False}, route=args.route)
    # stderr only, seen by the data holder: released objects carry no timing (docs/privacy.md)
    report(f"done in {time.perf_counter() - t0:.1f} s ({res.diagnostics['route']} route)")
    print_reproducible(res.ledger, json_output=args.json)
    if args.out:
        _write_partition(res, args.out)
    if args.json:
        print(dumps(cut_document(res, problem=problem, where=where, fmt=fmt, out=args.out)))
        return 0
    _print_result(res, problem, where)
    print_release_notes(res.ledger)
    print_ledger(res.ledger)
    if args.out:
        print(f"partition written to {args.out}")
    return 0


def _print_result(res, problem: str, where: str) -> None:
    """The partition, the private estimate and the released instance's values."""
    left, right = res.partition
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
    _print_route(res)


def _print_route(res) -> None:
    """The route, how it chose the sides, and its release's rank and screening notes."""
    print(f"route:             {res.diagnostics['route']}")
    diag = res.private_graph.diagnostics
    if route_spec(res.diagnostics["route"]).answers == "sides":
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
