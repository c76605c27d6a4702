"""``dpgraph max2csp``: a private assignment of a Max-2-CSP file (Max-k-Cut, Max-2-SAT).

Registered in :data:`dpgraph.cli.commands.COMMANDS`. Reads the instance with
:func:`dpgraph.read_csp` (``--format max-k-cut`` reads any graph file ``read_graph`` knows, with
``--k`` parts; ``cnf`` and ``wcnf`` read Max-2-SAT; ``csp`` dpgraph's own text format) and
answers with :func:`dpgraph.max_2csp` under edge-level (epsilon, delta)-DP, where one constraint
added or removed is the adjacency. Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import os

from dpgraph.cli.common import (add_json_argument, add_quiet_argument, add_unweighted_argument,
                                check_out_folder, formats, print_ledger, print_reproducible)
from dpgraph.cli.output import csp_document, dumps
from dpgraph.progress import report

__all__ = ["add_max2csp_parser", "cmd_max2csp"]


def add_max2csp_parser(subparsers):
    from dpgraph.engine.formats import CSP_FORMATS

    p = subparsers.add_parser(
        "max2csp", help="private assignment of a Max-2-CSP file (Max-k-Cut, Max-2-SAT)",
        description="Release a private assignment of a Max-2-CSP instance whose constraints "
                    "are private (dpgraph.max_2csp: privatize the label-extended graph, solve "
                    "its degree-2 SoS relaxation, choose privately; edge-level "
                    "(epsilon, delta)-DP for one constraint added or removed). Prints the "
                    "private value estimate, the value on the synthetic instance, the "
                    "certified bound of the released instance and the ledger.")
    p.add_argument("instance", metavar="FILE", help="the instance file")
    p.add_argument("--format", choices=CSP_FORMATS, default=None,
                   help="max-k-cut: a graph file, each edge a 'parts differ' constraint (needs "
                        "--k); cnf / wcnf: Max-2-SAT (clauses of 1 or 2 literals); csp: "
                        "dpgraph's own format. Default: from the extension (.cnf, .wcnf), "
                        "else max-k-cut when --k is given, else csp")
    p.add_argument("--k", type=int, default=None,
                   help="number of parts for --format max-k-cut (e.g. 3)")
    p.add_argument("--graph-format", choices=formats(), default=None,
                   help="graph file format for --format max-k-cut (default: detected)")
    add_unweighted_argument(p)
    p.add_argument("--epsilon", type=float, required=True, help="privacy budget epsilon (> 0)")
    p.add_argument("--delta", type=float, required=True, help="privacy budget delta (in (0, 1))")
    p.add_argument("--rank", type=int, default=None,
                   help="rank of the private release of the label-extended graph (default: "
                        "max_2csp's, capped at n q - 2 on tiny instances)")
    p.add_argument("--relation-size", type=int, default=None,
                   help="public bound on the allowed value pairs of one constraint (default "
                        "q*q; max-k-cut uses k*(k-1), Max-2-SAT 3)")
    p.add_argument("--seed", type=int, default=None,
                   help="TESTING ONLY: seed the noise so runs repeat (NOT a private release)")
    p.add_argument("-o", "--out", default=None,
                   help="write the assignment as 'variable<TAB>value' lines (checked before "
                        "any budget is spent)")
    add_quiet_argument(p)
    add_json_argument(p, "the result (assignment, estimates, ledger, diagnostics)")
    return p


def _read_instance(args):
    """``(instance, variable names, format, relation size)``: the variables as the file
    names them (graph node labels for max-k-cut, 1-based variable numbers for (W)CNF)."""
    from dpgraph.engine import read_csp
    from dpgraph.engine.formats import max_k_cut_instance

    path = args.instance
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such instance file: {path}")
    low = path.lower()
    fmt = args.format or ("wcnf" if low.endswith(".wcnf") else "cnf" if low.endswith(".cnf")
                          else "max-k-cut" if args.k is not None else "csp")
    if fmt != "max-k-cut":
        if args.k is not None:
            raise ValueError(f"--k applies to --format max-k-cut only, not {fmt}")
        if args.graph_format is not None or args.unweighted or args.ids is not None:
            raise ValueError(f"--graph-format, --unweighted and --ids apply to --format "
                             f"max-k-cut only, not {fmt}")
    if fmt == "max-k-cut":
        if args.k is None:
            raise ValueError("--format max-k-cut needs --k (the number of parts, e.g. --k 3)")
        from dpgraph.io import read_graph

        kw = {"weight": None} if args.unweighted else {}
        if args.ids is not None:
            kw["ids"] = args.ids
        data = read_graph(path, format=args.graph_format, **kw)
        try:
            inst = max_k_cut_instance(data, args.k)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        return inst, list(data.labels), fmt, args.k * (args.k - 1)
    inst = read_csp(path, format=fmt)
    if fmt in ("cnf", "wcnf"):  # variable i of the instance is variable i + 1 of the file
        return inst, list(range(1, inst.n + 1)), fmt, 3
    return inst, list(range(inst.n)), fmt, None


def cmd_max2csp(args) -> int:
    from dpgraph.solve.csp import max_2csp

    check_out_folder(args.out)
    inst, names, fmt, default_size = _read_instance(args)
    report(f"read {args.instance} ({fmt}): {inst.n} variables over {inst.q} values; "
           f"privatizing and solving")
    size = args.relation_size if args.relation_size is not None else default_size
    res = max_2csp(inst, epsilon=args.epsilon, delta=args.delta, rng=args.seed,
                   relation_size=size, rank=args.rank)
    values = [int(res.assignment[i]) for i in range(inst.n)]
    print_reproducible(res.ledger, json_output=args.json)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.writelines(f"{name}\t{v}\n" for name, v in zip(names, values))
    if args.json:
        print(dumps(csp_document(res, source=args.instance, fmt=fmt, n=inst.n, q=inst.q,
                                 names=names, values=values, relation_size=size,
                                 out=args.out)))
        return 0
    _print_result(args, res, inst, fmt, values)
    if args.out:
        print(f"assignment written to {args.out}")
    return 0


def _print_result(args, res, inst, fmt: str, values) -> None:
    counts = [values.count(a) for a in range(inst.q)]
    print(f"instance:          {args.instance} ({fmt}; {inst.n} variables, {inst.q} values)")
    print(f"assignment:        variables per value {counts}")
    print(f"private estimate:  {res.estimated_value:.6g} (noisy weight of the constraints "
          f"this assignment satisfies in the input)")
    if res.synthetic_value is not None:  # the spectral routes' released instance
        print(f"synthetic value:   {res.synthetic_value:.6g} (its value on the released "
              f"instance)")
    if res.sdp_bound is not None:
        print(f"SDP bound:         {res.sdp_bound:.6g} (of the released instance, not the input)")
    print(f"route:             {res.diagnostics.get('route')}")
    print_ledger(res.ledger)
