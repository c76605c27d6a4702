"""``dpgraph max2csp``: a private assignment of a Max-2-CSP file (Max-k-Cut, Max-2-SAT).

Registered in :data:`dpgraph.cli.commands.COMMANDS`. Reads the instance with
:func:`dpgraph.read_csp` (``--format max-k-cut`` reads any graph file ``read_graph`` knows, with
``--k`` parts; ``cnf`` and ``wcnf`` read Max-2-SAT; ``csp`` dpgraph's own text format) and
answers with :func:`dpgraph.max_2csp` under edge-level (epsilon, delta)-DP, where one constraint
added or removed is the adjacency. Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import os

from dpgraph.cli.common import (add_json_argument, add_quiet_argument, add_reading_arguments,
                                check_out_folder, check_tab_labels, formats, print_ledger,
                                open_output_text, print_reproducible, seed_argument)
from dpgraph.cli.errors import show_notes
from dpgraph.cli.output import csp_document, dumps
from dpgraph.cli.text import interval, number
from dpgraph.progress import report

__all__ = ["add_max2csp_parser", "cmd_max2csp", "unused_options", "CSP_ROUTES"]


#: ``--route`` choices: the local route (the default) and the dense routes that release the
#: label-extended graph (max_2csp refuses the matrix-free route)
CSP_ROUTES = ("auto", "local", "randomized-response", "pca")
_SPECTRAL = "--route pca or randomized-response"


def add_max2csp_parser(subparsers):
    from dpgraph.engine.formats import CSP_FORMATS

    p = subparsers.add_parser(
        "max2csp", help="private assignment of a Max-2-CSP file (Max-k-Cut, Max-2-SAT)",
        description="Release a private assignment of a Max-2-CSP instance whose constraints "
                    "are private (dpgraph.max_2csp; edge-level DP for one constraint added or "
                    "removed). By default (--route auto) the degree-ordered local route labels "
                    "the variables one by one, each by the exponential mechanism on the weight "
                    "of its constraints to the variables already labelled: pure epsilon-DP "
                    "(delta is not spent), no low-rank release and no SDP bound, so --rank and "
                    "--relation-size are not used. " + _SPECTRAL + " privatizes the "
                    "label-extended graph (n q nodes, dense memory) with group privacy over "
                    "--relation-size pairs and solves its degree-2 sum-of-squares relaxation, "
                    "printing also the value on the released instance and its certified bound. "
                    "Prints the private value estimate and the ledger.")
    p.add_argument("instance", metavar="PATH|NAME",
                   help="the instance file, or a data set name (a graph, read as Max-k-Cut "
                        "with --k, as the other commands read it)")
    p.add_argument("--format", choices=CSP_FORMATS, default=None,
                   help="max-k-cut: a graph file or data set, each edge a 'parts differ' "
                        "constraint (needs --k); cnf / wcnf: Max-2-SAT (clauses of 1 or 2 "
                        "literals); csp: dpgraph's own format. Default: from the extension "
                        "(.cnf, .wcnf), else max-k-cut when --k is given, else csp")
    p.add_argument("--k", type=int, default=None,
                   help="number of parts for --format max-k-cut (e.g. 3)")
    p.add_argument("--graph-format", choices=formats(), default=None,
                   help="graph file format for --format max-k-cut (default: detected)")
    p.add_argument("--variables", type=int, default=None, metavar="N",
                   help="cnf / wcnf: the public number of variables. A 2022-format WCNF file "
                        "(no 'p' line) does not state it, and its count is then read from "
                        "the clauses (the largest variable named), which a clause on a new "
                        "variable changes: pass it so that the answer's length is public")
    add_reading_arguments(p)  # for --format max-k-cut: the graph's reading options
    p.add_argument("--epsilon", type=float, required=True, help="privacy budget epsilon (> 0)")
    p.add_argument("--delta", type=float, required=True,
                   help="privacy budget delta, in [0, 1); the default local route is pure "
                        "epsilon-DP and spends none of it; " + _SPECTRAL + " needs delta > 0")
    p.add_argument("--route", choices=CSP_ROUTES, default="auto",
                   help="auto or local (default): the degree-ordered local route; "
                        "randomized-response, pca: a dense release of the label-extended "
                        "graph, solved by the degree-2 SoS engine (refused before allocating "
                        "when it would not fit in memory)")
    p.add_argument("--rank", type=int, default=None,
                   help=_SPECTRAL + " only: rank of the private release of the label-extended "
                        "graph (default 8, capped at n q - 2 on tiny instances). The local "
                        "route does not use it: given there, a note on stderr says so")
    p.add_argument("--relation-size", type=int, default=None,
                   help=_SPECTRAL + " only: public bound on the allowed value pairs of one "
                        "constraint, the release's group-privacy factor (default q*q; "
                        "max-k-cut uses k*(k-1), Max-2-SAT 3). The local route's noise does "
                        "not depend on it: given there, a note on stderr says so")
    p.add_argument("--seed", type=seed_argument, default=None,
                   help="TESTING ONLY: seed the noise so runs repeat (NOT a private release)")
    p.add_argument("-o", "--out", default=None,
                   help="write the assignment as 'variable<TAB>value' lines (checked before "
                        "any budget is spent)")
    add_quiet_argument(p)
    add_json_argument(p, "the result (assignment, estimates, ledger, diagnostics)")
    return p


def _format_of(args) -> str:
    """The instance format: ``--format``, else from the extension, else max-k-cut when
    ``--k`` is given, else csp. A trailing ``.gz`` is not the format (gzip is told from the
    content)."""
    low = args.instance.lower().removesuffix(".gz")
    return args.format or ("wcnf" if low.endswith(".wcnf") else "cnf" if low.endswith(".cnf")
                           else "max-k-cut" if args.k is not None else "csp")


def _check_options(args, fmt: str) -> None:
    if args.variables is not None and fmt not in ("cnf", "wcnf"):
        raise ValueError(f"--variables applies to --format cnf and wcnf only, not {fmt} (a "
                         f"csp file declares its variables; a graph's nodes are --nodes)")
    if fmt != "max-k-cut":
        if args.k is not None:
            raise ValueError(f"--k applies to --format max-k-cut only, not {fmt}")
        if (args.graph_format is not None or args.unweighted or args.weight is not None
                or args.symmetrize is not None or args.ids is not None
                or args.duplicates is not None or args.nodes is not None):
            raise ValueError(f"--graph-format, --unweighted, --weight, --symmetrize, --ids, "
                             f"--nodes and --duplicates apply to --format max-k-cut only, not "
                             f"{fmt}")
    elif args.k is None:
        raise ValueError("--format max-k-cut needs --k (the number of parts, e.g. --k 3)")


def _read_instance(args):
    """``(instance, variable names, format, relation size, source)``: the variables as the file
    names them (graph node labels for max-k-cut, 1-based variable numbers for (W)CNF); a name
    that is no file is looked up among the data sets (graphs, so max-k-cut), as the other
    commands do."""
    from dpgraph.cli.common import is_edge_files, load_input, read_node_set
    from dpgraph.engine import read_csp
    from dpgraph.engine.formats import max_k_cut_instance

    path = args.instance
    if is_edge_files(path):
        raise ValueError(f"max2csp needs the instance in memory; {path!r} names Dask edge "
                         f"files (a glob, folder or .parquet path)")
    exists = os.path.isfile(path)
    fmt = _format_of(args)
    if not exists and fmt != "max-k-cut":
        if _is_dataset(path):
            raise ValueError(f"{path!r} is a data set (a graph): read it as Max-k-Cut with "
                             f"--k K (e.g. --k 3)")
        raise FileNotFoundError(f"no such instance file: {path}")
    _check_options(args, fmt)
    if fmt == "max-k-cut":
        data, where, _ = load_input(path, format=args.graph_format, unweighted=args.unweighted,
                                    ids=args.ids, duplicates=args.duplicates,
                                    nodes=read_node_set(args.nodes, args.ids),
                                    symmetrize=args.symmetrize, weight=args.weight,
                                    format_option="--graph-format")
        try:
            inst = max_k_cut_instance(data, args.k)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        # the instance's variables are the nodes in sorted label order (max_k_cut_instance),
        # not the file's order: its names, not data.labels, go with the assignment's values
        return inst, inst.variables, fmt, args.k * (args.k - 1), where
    try:
        inst = read_csp(path, format=fmt, variables=args.variables)
    except ValueError as exc:  # a graph file read as csp: say how to read it as one
        graph = args.format is None and fmt == "csp" and _graph_format_of(path)
        if not graph:
            raise
        raise ValueError(f"{exc}; {path} reads as a {graph} graph file: give --k K (e.g. "
                         f"--k 3) to solve Max-k-Cut on it, or write the instance in the csp "
                         f"format (docs/cli.md)") from None
    if fmt in ("cnf", "wcnf"):  # variable i of the instance is variable i + 1 of the file
        return inst, range(1, inst.n + 1), fmt, 3, path
    return inst, inst.variables, fmt, None, path  # 0..n-1, or the names of its '# name:' lines


def _graph_format_of(path: str) -> str | None:
    """The graph format ``read_graph`` detects for ``path`` (by its extension, or by its
    content for ``.txt``, ``.dat`` and no extension: a SNAP or G-set edge list), or None; a
    csp file matches no graph format."""
    from dpgraph.io import detect_format

    try:
        return detect_format(path)
    except (ValueError, OSError):
        return None


def _is_dataset(name: str) -> bool:
    from dpgraph import datasets

    return name in set(datasets.REGISTRY) | set(datasets.BUILTIN) | set(datasets.BUNDLED)


def unused_options(args, route: str) -> list:
    """Notes on ``--rank`` and ``--relation-size`` when the route that ran (the local route)
    does not use them."""
    from dpgraph.release.routes import route_names, route_spec

    if route not in route_names() or route_spec(route).answers != "sides":
        return []
    return [f"{opt} {value} is not used: the {route} route labels one variable at a time "
            f"(pure epsilon-DP, no low-rank release); it applies to {_SPECTRAL}"
            for opt, value in (("--rank", args.rank), ("--relation-size", args.relation_size))
            if value is not None]


def cmd_max2csp(args) -> int:
    from dpgraph.solve.csp import max_2csp

    check_out_folder(args.out, inputs=(args.instance, getattr(args, "nodes", None)))
    inst, names, fmt, default_size, source = _read_instance(args)
    check_tab_labels(names, args.out, what="variable")  # public names: before any budget
    report(f"read {source} ({fmt}): {inst.n:,} variables over {inst.q} values; "
           f"privatizing and solving")
    size = args.relation_size if args.relation_size is not None else default_size
    try:
        res = max_2csp(inst, epsilon=args.epsilon, delta=args.delta, rng=args.seed,
                       relation_size=size, rank=args.rank,
                       privatize_options=None if args.route == "auto" else {"route": args.route})
    except ValueError as exc:  # a constraint max_2csp refuses: name the file it came from
        text = str(exc)
        hint = ("; --unweighted reads every edge as weight 1" if fmt == "max-k-cut"
                and " has weight " in text else "")
        if text.startswith("constraint #"):  # read files name their line themselves
            raise ValueError(f"{source}: {text}{hint}") from None
        if hint:
            raise ValueError(f"{text}{hint}") from None
        raise
    values = [int(v) for v in res.assignment.values()]  # in the order of inst.variables
    notes = unused_options(args, res.diagnostics.get("route"))
    show_notes(notes, quiet=args.quiet)
    print_reproducible(res.ledger, json_output=args.json)
    if args.out:
        with open_output_text(args.out) as fh:  # gzip where the name ends in .gz
            fh.writelines(f"{name}\t{v}\n" for name, v in zip(names, values))
    if args.json:
        print(dumps(csp_document(res, source=source, fmt=fmt, n=inst.n, q=inst.q,
                                 names=names, values=values,
                                 relation_size=res.diagnostics.get("relation_size", size),
                                 out=args.out, notes=notes)))
        return 0
    _print_result(res, inst, fmt, values, source)
    if args.out:
        print(f"assignment written to {args.out}")
    return 0


def _print_result(res, inst, fmt: str, values, source: str) -> None:
    counts = ", ".join(number(values.count(a)) for a in range(inst.q))
    print(f"instance:          {source} ({fmt}; {number(inst.n)} variables, {inst.q} values)")
    print(f"assignment:        variables per value [{counts}]")
    ci = getattr(res, "estimate_interval", None)
    ci = ("" if ci is None else
          f"; {res.estimate_level:.0%} interval {interval(*ci)}")
    print(f"private estimate:  {number(res.estimated_value)}{ci} (noisy weight of the "
          f"constraints this assignment satisfies in the input)")
    if res.synthetic_value is not None:  # the spectral routes' released instance
        print(f"synthetic value:   {number(res.synthetic_value)} (its value on the released "
              f"instance)")
    if res.sdp_bound is not None:
        print(f"SDP bound:         {number(res.sdp_bound)} (of the released instance, not the "
              f"input)")
    print(f"route:             {res.diagnostics.get('route')}")
    print_ledger(res.ledger)
