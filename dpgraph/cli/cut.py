"""``dpgraph maxcut`` and ``dpgraph bisection``: a private partition of a graph.

Both privatize the graph and solve the released instance (:func:`dpgraph.max_cut`,
:func:`dpgraph.max_bisection`); they differ only in the solver and in their names. Progress
goes to stderr, results to stdout.
"""

from __future__ import annotations

import time

from dpgraph.cli.common import (add_graph_argument, add_privacy_arguments, check_out_folder,
                                check_tab_labels, load_graph, print_ledger, print_release_notes,
                                open_output_text, print_reproducible)
from dpgraph.cli.output import cut_document, dumps, side_sizes
from dpgraph.progress import report
from dpgraph.cli.errors import show_notes
from dpgraph.cli.text import counted, interval, number
from dpgraph.release.private_graph import DEFAULT_RANK
from dpgraph.release.routes import route_spec

__all__ = ["add_maxcut_parser", "add_bisection_parser", "cmd_maxcut", "cmd_bisection"]


_MATRIX_FREE_RANK = route_spec("matrix-free").default_rank
_ROUTES_TEXT = (
    f"By default (--route auto) the degree-ordered local route answers: one private decision "
    f"per node from its already-decided neighbours (and a backward pass where the released "
    f"density allows), pure epsilon-DP (delta is not spent), O(m) memory, "
    f"with no low-rank release (--rank is not used) and no SDP bound; from 15,000 nodes and a "
    f"high released density (with delta > 0) the matrix-free route's candidates join its "
    f"private choice, and up to 2,000 nodes at a high released signal-to-noise ratio the "
    f"randomized-response route's (docs/privacy.md 14.10-14.11). The matrix-free route "
    f"releases a private rank-r subspace (d'Orsi & Novikov; r = --rank, default "
    f"{_MATRIX_FREE_RANK}) and solves the released instance with the degree-2 sum-of-squares "
    f"engine, printing its value and certified SDP bound; --route randomized-response and "
    f"--route pca ask for the dense routes (n^2 memory, solved the same way).")


def _add_cut_parser(subparsers, name, what):
    p = subparsers.add_parser(
        name, help=f"private {what} of a graph (edge-level (epsilon, delta)-DP)",
        description=f"Release a private {what} of the graph. {_ROUTES_TEXT} Prints the "
                    f"partition sizes, a private estimate of the partition's cut in the input "
                    f"with its 95% interval, the route and the privacy ledger.")
    add_graph_argument(p, "the result (partition sizes or file, private estimate, ledger, "
                          "route, diagnostics)")
    add_privacy_arguments(
        p, delta_help="; 0 asks for pure epsilon-DP (auto then takes the local route; a "
                      "route that needs delta > 0 is refused). The local route spends none "
                      "of it",
        rank_help=(f"rank of the private low-rank release on the spectral routes (matrix-free: "
                   f"default {_MATRIX_FREE_RANK}; pca and randomized-response's low-rank "
                   f"objectives: default {DEFAULT_RANK}, capped at n - 2 on graphs with fewer "
                   f"than {DEFAULT_RANK + 2} nodes). Not used by the local route, the default "
                   f"on most graphs: given there, a note on stderr says so"),
        route_help=("auto (default): the local route, or the matrix-free route on large dense "
                    "graphs (see above); local: degree-ordered local decisions (pure DP); "
                    "matrix-free: private low-rank subspace, O(m + n r) memory; "
                    "randomized-response (pure DP), pca: dense, refused before allocating "
                    "when they would not fit in memory"))
    p.add_argument("--out", "-o", default=None,
                   help="write the partition to this file: one 'label<TAB>side' line per node")
    p.add_argument("--certify", action="store_true",
                   help="also release a private upper bound on the graph's maximum cut (its "
                        "verified SDP relaxation plus noise; holds with probability 95%%) and a "
                        "lower confidence bound on the partition's approximation ratio (92.5%%); "
                        "takes up to 10%% of epsilon and seconds to a minute on 10^4-10^5 edges; "
                        "refused before anything is spent above 14,422 nodes "
                        "(docs/privacy.md 4.13)")
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
    """``label<TAB>side`` lines, written in chunks (10^6 nodes in well under a second)."""
    items = list(res.assignment.items())
    with open_output_text(path) as fh:  # gzip where the name ends in .gz
        for start in range(0, len(items), 1 << 16):
            fh.write("".join(f"{label}\t{int(side)}\n"
                             for label, side in items[start:start + (1 << 16)]))


def _run_cut(args, problem: str) -> int:
    from dpgraph.solve.cut import max_bisection, max_cut

    check_out_folder(args.out, inputs=(args.graph, getattr(args, "nodes", None)))
    data, where, fmt = load_graph(args)
    check_tab_labels(getattr(data, "labels", None), args.out)  # before any budget is spent
    report(f"read {where}: {counted(data.n, 'node')}; privatizing and solving ({problem})")
    fn = max_cut if problem == "maxcut" else max_bisection
    t0 = time.perf_counter()
    res = fn(data, epsilon=args.epsilon, delta=args.delta, rank=args.rank, rng=args.seed,
             solver_options={"progress": False}, route=args.route,
             certify=args.certify)
    # stderr only, seen by the data holder: released objects carry no timing (docs/privacy.md)
    report(f"done in {time.perf_counter() - t0:.1f} s ({res.diagnostics['route']} route)")
    notes = unused_options(args, res.diagnostics["route"])
    show_notes(notes, quiet=args.quiet)
    print_reproducible(res.ledger, json_output=args.json)
    if args.out:
        _write_partition(res, args.out)
    if args.json:
        print(dumps(cut_document(res, problem=problem, where=where, fmt=fmt, out=args.out,
                                 notes=notes)))
        return 0
    _print_result(res, problem, where)
    print_release_notes(res.ledger)
    print_ledger(res.ledger)
    if args.out:
        print(f"partition written to {args.out}")
    return 0


def unused_options(args, route: str) -> list:
    """Notes on the options given that the route which ran does not use: ``--rank`` on a route
    that answers with released sides (the local route: no low-rank release)."""
    if args.rank is not None and route_spec(route).answers == "sides":
        return [f"--rank {args.rank} is not used: the {route} route makes one private decision "
                f"per node and has no low-rank release (--rank applies to the matrix-free, "
                f"pca and randomized-response routes)"]
    return []


def _print_result(res, problem: str, where: str) -> None:
    """The partition, the private estimate and the released instance's values."""
    zeros, ones = side_sizes(res)
    print(f"graph:             {where}")
    print(f"problem:           private {'max-cut' if problem == 'maxcut' else 'max-bisection'}")
    print(f"partition sizes:   {number(zeros)} / {number(ones)} (sides 0 / 1)")
    if res.estimated_value is not None:
        print(f"private estimate:  {number(res.estimated_value)}; {res.estimate_level:.0%} "
              f"interval {interval(*res.estimate_interval)} (noisy cut of this partition in "
              f"the input)")
    if res.synthetic_value is not None:
        print(f"synthetic value:   {number(res.synthetic_value)} (cut of this partition on the "
              f"synthetic graph)")
    if res.sdp_bound is not None:
        print(f"SDP bound:         {number(res.sdp_bound)} (certified bound of the released "
              f"instance the partition was solved on, not of the input)")
    if res.certified_upper_bound is not None:
        cert = res.certificate
        print(f"certified bound:   {number(res.certified_upper_bound)} (private upper bound on "
              f"the input's maximum cut, {cert['level']:.0%} confidence)")
        if res.certified_ratio is not None:
            print(f"certified ratio:   {res.certified_ratio:.4f} (private lower bound on this "
                  f"partition's cut over the maximum cut, {cert['ratio_level']:.1%} "
                  f"confidence)")
    _print_route(res)


def _print_route(res) -> None:
    """The route, how it chose the sides, and its release's rank and screening notes."""
    print(f"route:             {res.diagnostics['route']}")
    diag = res.private_graph.diagnostics
    if route_spec(res.diagnostics["route"]).answers == "sides":
        k = res.diagnostics["candidate_partitions"]
        print(f"sides:             {res.diagnostics['objective']} "
              + (f"(chosen privately among {k} candidates: "
                 f"{', '.join(res.diagnostics['candidates'])})" if k > 1
                 else "(one private decision per node, in order of released degree)"))
        print(f"plan:              order spread {res.diagnostics.get('order_spread', 0):.2g}, "
              f"backward share {res.diagnostics.get('backward_share', 0):.2g}, "
              f"core of {counted(diag['core'], 'node')}, {counted(diag['batches'], 'batch')}")
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
