"""How the ``dpgraph`` command reports problems: library messages in the command's own option
spelling, one line per warning, and the exceptions that are expected errors.

Expected errors (a malformed file, a missing data set, a bad option value) print one line
``dpgraph: error: ...`` to stderr and exit with status 2, without a traceback.
"""

from __future__ import annotations

import re
import sys

__all__ = ["cli_message", "error_line", "expected_errors", "show_warning", "show_notes"]


def expected_errors() -> tuple:
    """The exception types the command reports as one ``dpgraph: error:`` line."""
    from dpgraph.datasets import DatasetNotFoundError
    from dpgraph.io import GraphFormatError
    from dpgraph.release.routes import InsufficientMemoryError

    return (GraphFormatError, DatasetNotFoundError, FileNotFoundError, ValueError, KeyError,
            OSError, ModuleNotFoundError, InsufficientMemoryError, NotImplementedError,
            MemoryError)


def _flag_values(match) -> str:
    """``symmetrize='max', 'sum' or 'mean'`` -> ``--symmetrize max|sum|mean``: a reading
    option and the values it takes, as the command line writes them."""
    return f"--{match.group(1)} " + "|".join(re.findall(r"'([^'\s]+)'", match.group(2)))


# the reading options that the command has as flags of the same name (read_graph's keywords)
_READING = r"(symmetrize|duplicates|ids)"

# Python spellings in library messages -> the command's options (see cli_message). The one
# place where they are translated: error_line (errors) and show_warning (warnings) pass every
# message through cli_message, and so do the notes of info.
_OPTION_SPELLINGS = [
    (r"\bPass weight=None\b", "Pass --unweighted"),
    # an edge attribute the user named (as_graph_data's warning, the file readers' refusal):
    # the flag that named it
    (r"\bthe attribute weight='([^'\s]*)'", r"the attribute '\1' (--weight \1)"),
    (r"\bweight=None\b", "--unweighted"),
    # a Python call shown next to the flag (private_input's advice): the flag is enough here
    (r" \(dpgraph\.as_graph_data\(G, duplicates='max'\) in place of G; --duplicates max for "
     r"a file\)", ""),
    (r"\(duplicates='sum': as_graph_data's default for graph objects and edge lists; "
     r"read_graph's default, 'max', keeps the largest\)", "(--duplicates sum; the default, "
     "max, keeps the largest)"),
    # a value list: symmetrize='max', 'sum' or 'mean' -> --symmetrize max|sum|mean
    (r"\b" + _READING + r"=('[^'\s]+'(?:, '[^'\s]+')*,? or '[^'\s]+')", _flag_values),
    # weight='count' is the column to pass only after "pass" ("has weight='x'" is a value)
    (r"\bpass weight=(?:'([^']*)'|\"([^\"]*)\")",
     lambda m: f"pass --weight {m.group(1) if m.group(1) is not None else m.group(2)}"),
    # the option named bare: "(weight=)", "read the file with ids= to match them"
    (r"\b(symmetrize|duplicates|ids|weight)=(?=[\s),;:]|$)", r"--\1"),
    # the public node set, named as the argument (with_nodes, from_dask; "are not in nodes"
    # reads as plain words and is left as it is)
    (r"\bgive nodes\b", "give --nodes"),
    (r"(^|[(:;,] )nodes (holds|is the public node set|is empty|lists)\b", r"\1--nodes \2"),
    (r"(^|[(:;,] )nodes=([0-9]+):", r"\1--nodes \2:"),
    # the node set's memory refusal (dpgraph.io.base.check_node_set): "nodes=N (a public
    # node set ...", "nodes= (a public node set of k node labels)", "fit in nodes=."
    (r"(^|[\s(:;,])nodes=([0-9]+) \(", r"\1--nodes \2 ("),
    (r"(^|[\s(:;,])nodes= \(", r"\1--nodes ("),
    (r"\bfit in nodes=\.", "fit in --nodes."),
    (r"\b(route|rank|epsilon|delta|format|ids|duplicates|symmetrize)='([^'\s]+)'",
     r"--\1 \2"),
    # A number after epsilon= / delta= in a library message is the user's own value only where
    # the message says so; elsewhere (a noise step's refusal, a ledger's) it is an internal
    # share of it, which must not read as the flag the user passed (--epsilon 1e-12 gave
    # "--epsilon 1e-13"). cli_message cannot see the command line, so only the messages known
    # to carry the user's value become flags; the shares are named as shares.
    (r"\bsensitivity=([^,\s]+), epsilon=([^,:\s]+), delta=([^:\s]+):",
     r"sensitivity \1 at a share of epsilon of \2 and of delta of \3:"),
    (r"\bsensitivity=([^,\s]+), epsilon=([^:\s]+):", r"sensitivity \1 at a share of epsilon "
     r"of \2:"),
    (r"\bsensitivity=(\S+) at epsilon=([^,\s]+), delta=(\S+)",
     r"sensitivity \1 at a share of epsilon of \2 and of delta of \3"),
    (r"\bneeds (epsilon|delta)=(\S+) but only\b", r"needs \1 \2 but only"),
    # the sampler= hint is for Python callers of dpgraph.privacy; the command has no such option
    (r"; a direct call of a dpgraph\.privacy mechanism may pass sampler='continuous'", ""),
    (r"\bdelta=([0-9][\w.+-]*) is too large for the matrix-free route\b",
     r"--delta \1 is too large for the matrix-free route"),  # privatize passes delta whole
    (r"\bat most rank=", "at most --rank "),  # a value to pass, not an internal one
    (r"\bvariables=([0-9]+)", r"--variables \1"),  # the user's own value (read_wcnf)
    (r"^variables must be\b", "--variables must be"),  # read_csp's refusal of the value
    # the command has no way to release without a block model: only a larger share helps
    (r", or synthetic_share=None \(no block model\)", ""),
    (r"\bsynthetic_share\b", "--synthetic-share"),
    (r"\brelation_size\b", "--relation-size"),
    (r"^delta=0 asks for pure\b", "--delta 0 asks for pure"),  # the caller's own value
    (r"\bor pass delta > 0\b", "or pass --delta > 0"),
    (r"\bpass format=", "pass --format"),
    (r"\bnodes= (for|reads)\b", r"--nodes N \1"),  # an edge list without edges
    (r"\bthe node set \(nodes=\)", "the node set (--nodes FILE)"),  # a node file as the graph
    (r"\bformat= one of\b", "--format one of"),
    (r"\bleave privatize_options\['route'\] unset \(the local route\)",
     "leave --route at auto (the local route)"),
    (r"\bwith certify=True\b", "with --certify"),
    (r"\bcertify=True\b", "--certify"),
    (r"\b[Cc]all without certify\b", "Run without --certify"),
    (r"(^|: )(k|rank) must (be|satisfy)\b", r"\1--\2 must \3"),
    (r"sample_dask\(\) or write_sample\(\) draw the same graph as Dask tasks",
     "With Dask edge files as input (a folder or glob of Parquet files) synth draws the same "
     "graph as Dask tasks"),
]


def cli_message(message: str) -> str:
    """A library message in the command's words: ``weight=None`` -> ``--unweighted``,
    ``route='matrix-free'`` -> ``--route matrix-free``, ``format=`` -> ``--format``, ...

    >>> cli_message("x: sample_dask() or write_sample() draw the same graph as Dask tasks.")
    'x: With Dask edge files as input (a folder or glob of Parquet files) synth draws the same graph as Dask tasks.'
    >>> cli_message("Pass weight=None to treat every edge as weight 1. Use "
    ...             "route='matrix-free' (memory O(m + n r)), or route='auto'.")
    'Pass --unweighted to treat every edge as weight 1. Use --route matrix-free (memory O(m + n r)), or --route auto.'
    """
    for pattern, repl in _OPTION_SPELLINGS:
        message = re.sub(pattern, repl, message)
    return message


def error_line(exc: BaseException) -> str:
    """The one line ``dpgraph: error: ...`` for an expected error (a ``KeyError``'s message
    without the quotes its ``str`` adds)."""
    from dpgraph.memory import InsufficientMemoryError

    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if isinstance(exc, MemoryError) and not isinstance(exc, InsufficientMemoryError):
        # a step whose size no check priced ran out: say so in one line, not a traceback
        message = (f"out of memory ({message or 'MemoryError'}): a step ran past what its "
                   f"memory check priced; a smaller input, rank or sample may fit")
    return f"dpgraph: error: {cli_message(' '.join(message.split()))}"


def show_warning(quiet: bool):
    """``warnings.showwarning`` for the command: one line ``dpgraph: warning: ...`` per
    distinct message on stderr (no source line, no traceback); nothing with ``--quiet``. The
    reproducible-noise warning is left out: the command prints its own notice for ``--seed``."""
    from dpgraph.privacy import ReproducibleNoiseWarning

    seen = set()

    def show(message, category, filename, lineno, file=None, line=None):
        if quiet or issubclass(category, ReproducibleNoiseWarning):
            return
        text = cli_message(" ".join(str(message).split()))
        if text in seen:
            return
        seen.add(text)
        print(f"dpgraph: warning: {text}", file=sys.stderr, flush=True)

    return show


def show_notes(notes, *, quiet: bool) -> None:
    """One line ``dpgraph: note: ...`` on stderr per note (an option the route that ran did
    not use, ...); nothing with ``--quiet``. ``--json`` documents carry them in ``notes``."""
    if quiet:
        return
    for note in notes:
        print(f"dpgraph: note: {note}", file=sys.stderr, flush=True)
