"""The ``dpgraph`` command: builds the parser from :data:`dpgraph.cli.commands.COMMANDS` and
runs the chosen subcommand, reporting expected errors as one line (:mod:`dpgraph.cli.errors`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings

import dpgraph
from dpgraph.cli import commands
from dpgraph.cli.common import check_budget_arguments, check_graph_input, dask_session
from dpgraph.cli.errors import error_line, expected_errors, show_warning

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpgraph",
        description="Edge-differentially private Max-Cut, Max-Bisection, 2-CSP and synthetic "
                    "graphs.")
    parser.add_argument("--version", action="version", version=f"dpgraph {dpgraph.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name, add, run in commands.COMMANDS:
        sub = add(subparsers)
        sub.set_defaults(handler=run)
    return parser


#: exit status after a closed pipe: what a shell reports for a command ended by SIGPIPE
CLOSED_PIPE_STATUS = 128 + getattr(signal, "SIGPIPE", 13)


def main(argv=None) -> int:
    """Run the ``dpgraph`` command with ``argv`` (default ``sys.argv[1:]``); return the exit
    status (0 success, 2 usage or input error, 130 interrupted, 141 when the reader of its
    output went away: ``dpgraph info G3 | head -1`` ends quietly, as Unix tools do)."""
    try:
        return _run(argv)
    except BrokenPipeError:
        return _closed_pipe()


def _run(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from dpgraph.progress import reporting

    quiet = getattr(args, "quiet", False)
    try:
        with reporting(enabled=not quiet), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = show_warning(quiet)
            check_budget_arguments(args)  # a bad --epsilon or --delta: before any reading
            precheck = commands.PRECHECKS.get(args.command)
            if precheck is not None:  # refusals before a Dask cluster is started
                precheck(args)
            check_graph_input(args)  # a folder or glob given by mistake: before any Dask
            with dask_session(args):
                status = int(args.handler(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        raise  # an OSError, but not an input error: main() ends quietly
    except expected_errors() as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpgraph: interrupted", file=sys.stderr)
        return 130


def _closed_pipe() -> int:
    """The reader of standard output (or error) closed the pipe: point both at the null
    device, so that nothing else (the interpreter's final flush) fails on it, and return the
    status of a command ended by SIGPIPE, with no message."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):  # not a real file (captured output)
                pass
    finally:
        os.close(devnull)
    return CLOSED_PIPE_STATUS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
