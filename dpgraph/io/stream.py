"""Edge lists streamed into the CSR: the large-file path of :func:`dpgraph.io.read_graph` for
SNAP edge lists of integer ids and for G-set (rudy) bodies.

The text is parsed in blocks by pyarrow's streaming CSV reader; each block's ids are kept as
int32 while they fit (int64 otherwise), and nothing else is kept of the text. When the file is
read, the ids become node positions (a counting pass when they are compact, a merge of the
blocks' distinct ids otherwise), written straight into the two index arrays of the symmetric
matrix (both directions of each line) while the blocks are freed, and SciPy's COO -> CSR
conversion (one counting pass and a sort of each row, no sort of the whole edge list) builds
the CSR with int32 indices (n and 2m below 2^31). An unweighted file carries a one-byte
placeholder per entry until the CSR is built; its float64 weights (all 1) are made last. So
the text table, a COO and the CSR are never held at once: about 34 bytes per edge at the peak
(unweighted, int32 ids), 24 bytes per edge once read (:data:`PEAK_BYTES_PER_EDGE`), beside
pyarrow's own pool of blocks read ahead (:func:`arrow_reader_bytes`: about 1.25 bytes per byte
of text).

The stream handles the simple files, which are the large ones: every line ``u v`` or ``u v w``
with one separator, integer ids, no self-loop, no pair listed twice, finite non-zero weights.
Anything else (a comment or blank field after the first edge line, a self-loop, a repeated
pair, a zero weight, ...) returns the file to the reader's general path (:func:`read_edge_stream`
returns ``None``, or hands the positions it has to :func:`dpgraph.graph.from_coo`), which reads
it with the same result, the same warnings and the same error messages as before.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData, canonical_graph, check_weight_sums, from_coo
from dpgraph.io.base import arrow_edge_options, is_gzip, predicted_lines, simple_delimiter
from dpgraph.memory import check_memory

__all__ = ["read_edge_stream", "PEAK_BYTES_PER_EDGE", "BLOCK_SIZE", "arrow_reader_bytes"]

# Peak bytes per edge line while a simple file is streamed into the CSR: unweighted with int32
# ids, 8 (the blocks) then 16 (both index arrays) + 1 (placeholder) + 8 (CSR indices) + 1
# (CSR placeholder) = 34; weighted, 16 + 16 (weights twice) + 8 + 16 = 56. Rounded up; the
# node arrays are priced apart (NODE_BYTES).
PEAK_BYTES_PER_EDGE = {False: 40, True: 64}
# pyarrow's reader holds the blocks it reads ahead in its own memory pool, priced apart
# (arrow_reader_bytes): its peak was 17 / 43 / 182 / 238 MB on files of 1 / 11 / 131 / 169 MB
# (10^5 to 10^7 lines). With it, a process that had read a small file once grew by 89 MB
# reading 10^6 lines (priced 90 MB), by 558 and 833 MB reading 10^7 lines unweighted and
# weighted (priced 639 and 915 MB, with NODE_BYTES per node)
ARROW_POOL_PER_BYTE = 1.25
ARROW_POOL_BYTES = 32 << 20
# Bytes per edge line of the general path (dpgraph.graph.from_coo), which merges repeated pairs
# and drops self-loops: its COO, the merge's sort keys and the symmetric CSR (measured 110-160 B
# per line for the whole-file readers); rounded up.
GENERAL_BYTES_PER_EDGE = 160
# Bytes per node: its label (a Python int in a tuple), the position map and the CSR row pointer.
NODE_BYTES = 64
# Bytes of text pyarrow parses per block (measured: 4 MiB and 16 MiB blocks read a 10^7-line
# file equally fast, as fast as pyarrow's whole-file reader).
BLOCK_SIZE = 1 << 24
_INT32 = np.iinfo(np.int32)


def arrow_reader_bytes(file_bytes: int) -> int:
    """Peak bytes of pyarrow's streaming reader on a file of ``file_bytes``: the blocks it
    reads ahead, ``ARROW_POOL_PER_BYTE`` per byte of text, and its pool's first chunks, up to
    ``ARROW_POOL_BYTES`` (16 per byte on small files).

    >>> arrow_reader_bytes(0), arrow_reader_bytes(1 << 20) >> 20, arrow_reader_bytes(131 << 20) >> 20
    (0, 17, 195)
    """
    size = max(int(file_bytes), 0)
    return int(ARROW_POOL_PER_BYTE * size) + min(ARROW_POOL_BYTES, 16 * size)


def read_edge_stream(path, ncols: int, *, skip: int, first: str, duplicates: str = "max",
                     comments=("#", "%"), nodes: int | None = None,
                     lines: int | None = None, stats: dict | None = None) -> GraphData | None:
    """The SNAP edge list ``path`` (``ncols`` 2 or 3 fields, edge lines after its first
    ``skip`` lines) as :class:`~dpgraph.graph.GraphData`, labels the sorted distinct ids, or
    ``None`` when the file is not one the stream handles (the caller's general path then reads
    it). Refuses with :class:`~dpgraph.memory.InsufficientMemoryError` before reading a file
    whose predicted edge count would not fit, and before building a CSR that would not fit.

    ``nodes`` (a G-set body): the ids are vertex numbers ``1..nodes`` and the labels
    ``range(1, nodes + 1)``; ``lines``: the edge-line count the header announces. A file that
    breaks either returns ``None``, so that the caller's path names the line at fault.
    ``stats``, a dict, receives ``"lines"``: the number of edge lines read.
    """
    if ncols not in (2, 3) or is_gzip(path):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    delimiter = simple_delimiter(path, skip, first, comments)
    if delimiter is None:
        return None
    weighted = ncols == 3
    per_edge = PEAK_BYTES_PER_EDGE[weighted]
    predicted = predicted_lines(path, skip)[0]
    pool = arrow_reader_bytes(os.path.getsize(path))
    check_memory(pool + per_edge * predicted,
                 what=f"reading {path} (about {predicted:,} edge lines predicted from its size)",
                 fit=(lambda k: pool + per_edge * k, "About {:,} edge lines fit."))
    try:
        reader = pcsv.open_csv(path, *arrow_edge_options(delimiter, ncols, skip=skip,
                                                           block_size=BLOCK_SIZE))
        blocks_u, blocks_v, blocks_w = [], [], []
        lo, hi, m, simple = None, None, 0, True
        for batch in reader:
            if batch.num_columns != ncols or any(c.null_count for c in batch.columns):
                return None
            if not batch.num_rows:
                continue
            u = batch.column(0).to_numpy()
            v = batch.column(1).to_numpy()
            b_lo, b_hi = min(int(u.min()), int(v.min())), max(int(u.max()), int(v.max()))
            lo = b_lo if lo is None else min(lo, b_lo)
            hi = b_hi if hi is None else max(hi, b_hi)
            simple = simple and not np.any(u == v)
            if weighted:
                w = batch.column(2).to_numpy()
                simple = simple and bool(np.all(np.isfinite(w) & (w != 0)))
                blocks_w.append(w)
            small = _INT32.min <= lo and hi <= _INT32.max
            blocks_u.append(u.astype(np.int32) if small else u)
            blocks_v.append(v.astype(np.int32) if small else v)
            m += int(u.size)
            if m > 1.25 * predicted:  # more lines than predicted: price them again
                predicted = 2 * m
                check_memory(per_edge * (predicted - m),
                             what=f"reading {path} (more than {m:,} edge lines)")
            del batch, u, v
    except (pa.ArrowException, OSError, ValueError):
        return None
    if m == 0 or (lines is not None and m != lines):
        return None
    if stats is not None:
        stats["lines"] = m
    if nodes is not None:
        if lo < 1 or hi > nodes:
            return None
        dtype = np.int32 if nodes < _INT32.max else np.int64
        labels = range(1, nodes + 1)

        def positions(b):
            return _offset(b, 1).astype(dtype)
    else:
        positions, labels = _positions(blocks_u + blocks_v, lo, hi, m)
    n = len(labels)
    # rows and columns (8 B per line each), the values and the CSR's indices and values:
    # 28 B per line unweighted, 56 B weighted
    check_memory((56 if weighted else 28) * m + NODE_BYTES * n,
                 what=f"the CSR of {path} ({n:,} nodes, {m:,} edge lines)")
    index_dtype = np.int32 if max(n, 2 * m) < _INT32.max else np.int64
    # both directions of every line: rows [u; v], columns [v; u]
    rows = np.empty(2 * m, dtype=index_dtype)
    cols = np.empty(2 * m, dtype=index_dtype)
    start = 0
    while blocks_u:
        bu, bv = positions(blocks_u.pop(0)), positions(blocks_v.pop(0))
        end = start + bu.size
        rows[start:end], cols[m + start:m + end] = bu, bu
        cols[start:end], rows[m + start:m + end] = bv, bv
        start = end
        del bu, bv
    w = np.concatenate(blocks_w) if weighted else None
    del blocks_w
    if not simple:  # a self-loop or a weight the general policy handles: from_coo's path
        u, v = rows[:m].astype(np.int64), cols[:m].astype(np.int64)
        del rows, cols
        return _general(u, v, w, labels, duplicates, path)
    values = np.concatenate([w, w]) if weighted else np.ones(2 * m, dtype=np.int8)
    W = sp.coo_array((values, (rows, cols)), shape=(n, n)).tocsr()  # sorted, repeats summed
    del values
    if W.nnz != 2 * m:  # a pair listed twice: merged by the duplicates rule of from_coo
        del W
        u, v = rows[:m].astype(np.int64), cols[:m].astype(np.int64)
        del rows, cols
        return _general(u, v, w, labels, duplicates, path)
    del rows, cols, w
    data = W.data if weighted else np.ones(W.nnz)
    W = sp.csr_array((data, W.indices, W.indptr), shape=(n, n))
    W.has_sorted_indices = True
    # canonical by construction (both directions of distinct pairs, no loop or zero): no O(m)
    # re-check in as_graph_data; weights whose sums overflow are refused as from_coo's are
    check_weight_sums(W, str(path), labels)
    return canonical_graph(W, labels)


def _general(u, v, w, labels, duplicates, path) -> GraphData:
    """The lines as the general path reads them (:func:`dpgraph.graph.from_coo`: its warnings,
    its merge of repeated pairs, its errors), priced first. ``u``, ``v``: positions in int64,
    as from_coo's pair key ``row * n + col`` passes 2^31 from n = 46,341 on."""
    m = u.size
    check_memory(GENERAL_BYTES_PER_EDGE * m,
                 what=f"merging the repeated pairs or self-loops of {path} ({m:,} edge lines)")
    return from_coo(u, v, w if w is not None else np.ones(m), labels, duplicates=duplicates,
                    source=str(path))


def _offset(ids: np.ndarray, lo: int) -> np.ndarray:
    """``ids - lo`` in int64 (int32 ids minus a negative ``lo`` may pass 2^31)."""
    return np.subtract(ids, lo, dtype=np.int64)


def _positions(blocks, lo: int, hi: int, m: int):
    """``(position, labels)``: a function from a block of ids to their positions among the
    sorted distinct ids (int32 while they fit), and those ids as a tuple of Python ints. A
    counting pass when the ids are compact (``hi - lo`` at most ``4 m + 1024``), else the
    blocks' distinct ids merged block by block (no sort of the whole edge list)."""
    span = hi - lo + 1
    if span <= 4 * m + 1024:
        present = np.zeros(span, dtype=bool)
        for b in blocks:
            present[_offset(b, lo)] = True
        if present.all():
            labels = tuple(range(lo, hi + 1))
            dtype = np.int32 if span < _INT32.max else np.int64

            def position(b):
                return _offset(b, lo).astype(dtype)
            return position, labels
        distinct = np.flatnonzero(present) + lo
        rank = np.cumsum(present, dtype=np.int64) - 1
        del present
        dtype = np.int32 if distinct.size < _INT32.max else np.int64
        rank = rank.astype(dtype)

        def position(b):
            return rank[_offset(b, lo)]
        return position, tuple(distinct.tolist())
    distinct = np.empty(0, dtype=np.int64)
    for b in blocks:
        distinct = np.union1d(distinct, np.unique(b))
    dtype = np.int32 if distinct.size < _INT32.max else np.int64

    def position(b):
        return np.searchsorted(distinct, b).astype(dtype)
    return position, tuple(distinct.tolist())

