"""The registry of ``dpgraph`` subcommands.

Each subcommand lives in its own module as a pair ``add_<name>_parser(subparsers) -> parser``
and ``cmd_<name>(args) -> int``, registered once in :data:`COMMANDS`; adding a subcommand means
writing such a pair and appending it there. :mod:`dpgraph.cli.app` builds the parser from this
list, in this order, and dispatches to the pair's command function.
"""

from __future__ import annotations

from dpgraph.cli import bench, cut, info, max2csp, synth

__all__ = ["COMMANDS", "PRECHECKS"]

#: (name, add-parser function, command function), in the order ``dpgraph --help`` lists them
COMMANDS = [
    ("info", info.add_info_parser, info.cmd_info),
    ("maxcut", cut.add_maxcut_parser, cut.cmd_maxcut),
    ("bisection", cut.add_bisection_parser, cut.cmd_bisection),
    ("synth", synth.add_synth_parser, synth.cmd_synth),
    ("max2csp", max2csp.add_max2csp_parser, max2csp.cmd_max2csp),
    ("bench", bench.add_bench_parser, bench.cmd_bench),
]

#: subcommand -> checks that must refuse before the command opens a Dask session (which may
#: start a local cluster)
PRECHECKS = {"synth": synth.precheck_synth, "bench": bench.precheck_bench}
