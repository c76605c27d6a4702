"""Fuzzing harness for the file readers: hypothesis strategies that produce malformed
graph files, and one check that runs a reader on them.

Used by ``tests/test_fuzz_readers.py`` (a small derandomized run in the default suite, a
10,000-input run per reader marked slow) and by ``benchmarks/fuzz_readers.py`` (the counted run
reported in BENCHMARKS.md).

The contract checked (docs/audit.md, "Fuzzing"): a reader given any bytes either returns a
:class:`~dpgraph.graph.GraphData` or raises :class:`~dpgraph.io.GraphFormatError`,
``ValueError`` or ``TypeError`` whose message names the file; it never raises anything else and
never runs longer than :data:`TIME_LIMIT` seconds.
"""

from __future__ import annotations

import gzip
import io
import signal
import warnings

import networkx as nx
from hypothesis import strategies as st

from dpgraph.engine.formats import read_csp
from dpgraph.graph import from_edges
from dpgraph.io import GraphFormatError, read_graph, write_graph
from dpgraph.memory import InsufficientMemoryError

__all__ = ["READERS", "TIME_LIMIT", "Hang", "seed_files", "fuzzed_file", "check_reader"]

#: Seconds one read may take before it counts as a hang.
TIME_LIMIT = 5.0

#: reader name -> file extension (``"gzip"``: any format, gzip-compressed; ``"detect"``: the
#: format left to :func:`dpgraph.io.detect_format`; ``"csp"``: :func:`read_csp`).
READERS = {
    "gset": ".gset", "snap": ".txt", "mtx": ".mtx", "metis": ".graph", "dimacs": ".col",
    "graphml": ".graphml", "gml": ".gml", "pajek": ".net", "edgelist": ".edgelist",
    "gzip": ".gz", "detect": ".txt", "csp": ".csp", "csv": ".csv",
}

_CSP_SEED = (b"# a 2-CSP\np csp 4 3 3\nc 0 1 1.5 0,1 1,0 2,2\nc 1 2 1 0,0\n"
             b"c 2 3 0.25 1,2 2,1  # trailing comment\n")


def seed_files() -> dict:
    """A valid file per text format (weighted and with an isolated node), the fuzzer's seeds."""
    G = from_edges([(1, 2, 1.0), (2, 3, 2.0), (3, 1, 1.0), (3, 4, 5.0), (4, 5, 1.0)],
                   nodes=[1, 2, 3, 4, 5, 6])
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fmt in ("gset", "snap", "mtx", "metis", "dimacs", "graphml", "gml", "pajek",
                    "edgelist", "csv"):
            buf = io.BytesIO()
            if fmt in ("graphml", "gml", "pajek", "edgelist"):
                writer = {"graphml": nx.write_graphml, "gml": nx.write_gml,
                          "pajek": nx.write_pajek,
                          "edgelist": lambda g, f: nx.write_edgelist(g, f, data=["weight"])}[fmt]
                g = nx.Graph()
                g.add_nodes_from(range(1, 7))
                g.add_weighted_edges_from([(1, 2, 1.0), (2, 3, 2.0), (3, 1, 1.0), (3, 4, 5.0)])
                writer(g, buf)
                out[fmt] = buf.getvalue()
            else:
                import tempfile, os  # noqa: E401  (write through the real writer)
                with tempfile.TemporaryDirectory() as d:
                    p = os.path.join(d, "g" + READERS[fmt])
                    write_graph(G, p, format=fmt)
                    with open(p, "rb") as f:
                        out[fmt] = f.read()
    out["csp"] = _CSP_SEED
    return out


_SEEDS = seed_files()

# Tokens that stress the numeric paths: huge, negative, non-finite, overflowing, malformed.
_TOKENS = [b"0", b"-1", b"1", b"2", b"3", b"7", b"1e308", b"1e309", b"-1e309", b"nan", b"NaN",
           b"inf", b"-inf", b"Infinity", b"9" * 30, b"18446744073709551616",
           b"9223372036854775807", b"-9223372036854775808", b"4294967296", b"2147483648",
           b"1e-320", b"0x10", b"1_000", b"+5", b"--1", b"1.5", b"1,5", b"e", b"p", b"c",
           b"{'weight': nan}", b"{'weight': 1e400}", b"{", b"}", b"[", b"]", b"\"", b"'",
           b"*Vertices", b"*Edges", b"*Arcs", b"graph [", b"node [", b"edge [", b"id", b"label",
           b"source", b"target", b"weight", b"<graph>", b"<node id=\"x\"/>", b"</graphml>",
           b"%%MatrixMarket", b"matrix", b"coordinate", b"array", b"pattern", b"symmetric",
           b"general", b"complex", b"integer", b"real", b"hermitian", b"skew-symmetric",
           b"p edge", b"p csp", b"e", b"0,0", b"1,", b",", b"#", b"%", b"\x00", b"\xff\xfe",
           b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf"]
_SEPARATORS = [b" ", b"\t", b",", b";", b"  ", b" \t ", b"\r\n", b"\r", b"\n\n", b"\x0b",
               b"\x0c", b"\xa0", b"\xe2\x80\x83"]


@st.composite
def _mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["truncate", "byte", "insert", "replace-token", "separator",
                                     "long-line", "duplicate-line", "delete-line", "non-utf8"]))
        pos = draw(st.integers(0, len(data))) if data else 0
        if kind == "truncate":
            data = data[:pos]
        elif kind == "byte" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[pos:pos] = draw(st.sampled_from(_TOKENS)) + draw(st.sampled_from(_SEPARATORS))
        elif kind == "replace-token":
            tokens = bytes(data).split(b" ")
            if tokens:
                k = draw(st.integers(0, len(tokens) - 1))
                tokens[k] = draw(st.sampled_from(_TOKENS))
                data = bytearray(b" ".join(tokens))
        elif kind == "separator":
            old = draw(st.sampled_from([b" ", b"\t", b"\n"]))
            data = bytearray(bytes(data).replace(old, draw(st.sampled_from(_SEPARATORS))))
        elif kind == "long-line":
            unit = draw(st.sampled_from([b"1 ", b"9", b"x", b"1 2 ", b"\t", b"e 1 2\n"]))
            data[pos:pos] = unit * draw(st.integers(10_000, 200_000)) + b"\n"
        elif kind == "duplicate-line":
            lines = bytes(data).split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            lines.insert(k, lines[k])
            data = bytearray(b"\n".join(lines))
        elif kind == "delete-line":
            lines = bytes(data).split(b"\n")
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = bytearray(b"\n".join(lines))
        elif kind == "non-utf8":
            data[pos:pos] = draw(st.sampled_from([b"\xff", b"\xfe\xff", b"\xc3\x28", b"\x80",
                                                  b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]))
    return bytes(data)


def _gzipped(content: st.SearchStrategy) -> st.SearchStrategy:
    """gzip streams of ``content``: whole, cut short, or with a corrupted byte."""
    @st.composite
    def build(draw):
        raw = gzip.compress(draw(content), mtime=0)
        how = draw(st.sampled_from(["whole", "whole", "truncated", "corrupt"]))
        if how == "truncated":
            return raw[:draw(st.integers(0, len(raw) - 1))]
        if how == "corrupt":
            pos = draw(st.integers(2, len(raw) - 1))
            return raw[:pos] + bytes([draw(st.integers(0, 255))]) + raw[pos + 1:]
        return raw
    return build()


def fuzzed_file(reader: str) -> st.SearchStrategy:
    """Strategy of ``(file bytes, format)`` for ``reader`` (a key of :data:`READERS`)."""
    if reader == "gzip":
        return st.sampled_from(sorted(set(_SEEDS) - {"csp"})).flatmap(
            lambda fmt: st.tuples(_gzipped(fuzzed_file(fmt).map(lambda t: t[0])), st.just(fmt)))
    if reader == "detect":
        return st.sampled_from(sorted(set(_SEEDS) - {"csp"})).flatmap(
            lambda fmt: st.tuples(fuzzed_file(fmt).map(lambda t: t[0]), st.just(None)))
    seed = _SEEDS[reader]
    body = st.one_of(
        st.binary(max_size=512),  # random bytes
        st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")),
        _mutated(seed), _mutated(seed), _mutated(seed), _mutated(seed),
    )
    return st.tuples(body, st.just(reader))


class Hang(Exception):
    """A read that ran past :data:`TIME_LIMIT`."""


def _alarm(signum, frame):
    raise Hang(f"read took longer than {TIME_LIMIT} s")


def check_reader(reader: str, data: bytes, fmt, directory) -> str:
    """Write ``data`` to a file in ``directory`` and read it with ``reader``.

    Returns ``"ok"`` (a graph came back) or the name of the allowed exception. Raises
    ``AssertionError`` when another exception escapes, when the message does not name the file,
    or when the read hangs (> :data:`TIME_LIMIT` s, checked with ``SIGALRM``: main thread only).
    """
    import os

    path = os.path.join(os.fspath(directory), "fuzz" + READERS[reader])
    with open(path, "wb") as f:
        f.write(data)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if reader == "csp":
                read_csp(path)
            elif reader == "detect":
                read_graph(path)
            else:
                read_graph(path, format=fmt)
        return "ok"
    except Hang:
        raise AssertionError(f"{reader}: read hung (> {TIME_LIMIT} s) on {data[:200]!r}") from None
    except (GraphFormatError, ValueError, TypeError, InsufficientMemoryError) as exc:
        msg = str(exc)
        if path not in msg:
            raise AssertionError(f"{reader}: {type(exc).__name__} does not name the file: {msg!r} "
                                 f"(input {data[:200]!r})") from exc
        return type(exc).__name__
    except BaseException as exc:  # noqa: BLE001 -- anything else is the finding
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AssertionError(f"{reader}: {type(exc).__name__} escaped: {exc!r} "
                             f"(input {data[:200]!r})") from exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
