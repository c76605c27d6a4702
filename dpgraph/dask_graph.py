"""Graphs whose edge list lives on a Dask cluster: every pass over the edges is a Dask computation.

For edge lists too large for one machine (folders of Parquet or CSV files, or a
``dask.dataframe.DataFrame`` with columns ``u``, ``v`` and optionally ``weight``).
:func:`from_dask` reads them into a :class:`DaskGraph`, which the matrix-free route
(:mod:`dpgraph.routes.matrix_free`) and the private solvers use exactly like an in-memory
:class:`~dpgraph.graph.GraphData`: they only ever ask for

* ``degrees`` and ``total_weight`` (one pass each, cached),
* ``weights @ X`` for an ``n x k`` dense ``X`` (one pass: each partition multiplies its own edges,
  the partial ``n x k`` products are summed in a tree on the workers),
* :meth:`DaskGraph.cut_values` of fixed partitions (one pass).

No worker and not the client ever holds the whole edge list: a worker holds one partition
(plus ``O(n k)`` for the vectors it multiplies), the client ``O(n k)`` (the labels, the degrees,
the iterate). Noise is drawn on the client by :mod:`dpgraph.privacy.noise`, so the ledger and
the proofs (docs/privacy.md, section 5) are those of the in-memory route; for the same seed
the release equals the in-memory one up to the summation order of floating-point products
(docs/privacy.md 9).

Input policy (that of :mod:`dpgraph.graph`): node ids are any hashable values of one type
(integers or strings); they are mapped to ``0..n-1`` in sorted order by one Dask pass, and
results come back in them. Self-loops are dropped with a warning that counts them. Each
undirected pair is stored once (``(min, max)``); repeated pairs, e.g. a file listing both
directions, are merged by ``duplicates="max"`` (the default: an edge listed twice is one edge),
``"sum"``, or refused with ``"error"``. Weights must be finite; the private routes need them
in ``[0, 1]``.

Requires the ``dask`` extra: ``pip install "dpgraph[dask]"``.

Examples
--------
>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"u": ["a", "b", "c", "a"], "v": ["b", "c", "a", "d"]})
>>> g = from_dask(dd.from_pandas(df, npartitions=2))
>>> g.n, g.m, g.labels
(4, 4, ('a', 'b', 'c', 'd'))
>>> g.degrees.tolist()
[3.0, 2.0, 2.0, 1.0]
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
import warnings
import weakref
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .graph import GraphInputWarning

__all__ = ["DaskGraph", "DaskAdjacency", "from_dask", "read_edge_files", "is_dask_input"]

_DUPLICATES = ("max", "sum", "error")


def _dask():
    try:
        import dask
        import dask.dataframe as dd
    except ModuleNotFoundError as exc:  # pragma: no cover - the extra is installed in CI
        raise ModuleNotFoundError("Dask input needs the dask extra: pip install "
                                  "\"dpgraph[dask]\" (dask, distributed, pyarrow)") from exc
    return dask, dd


def is_dask_input(G) -> bool:
    """Whether ``G`` is a Dask DataFrame or a :class:`DaskGraph` (without importing Dask)."""
    if isinstance(G, DaskGraph):
        return True
    mod = type(G).__module__ or ""
    return mod.startswith("dask") and hasattr(G, "map_partitions")


# ----------------------------------------------------------------------------- reading


def read_edge_files(path, *, u: str = "u", v: str = "v", weight: str | None = "weight",
                    duplicates: str = "max", spill_dir: str | None = None) -> "DaskGraph":
    """Read a path or glob of Parquet (``.parquet``/``.pq``) or CSV (``.csv``, ``.tsv``, ``.txt``;
    with a header row) edge files as a :class:`DaskGraph` (see :func:`from_dask`).

    Raises ``FileNotFoundError`` when nothing matches and ``ValueError`` naming the columns found
    when ``u`` or ``v`` is missing.
    """
    _, dd = _dask()
    spec = os.fspath(path)
    files = sorted(glob.glob(os.path.join(spec, "*")) if os.path.isdir(spec) else glob.glob(spec))
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        raise FileNotFoundError(f"no edge files match {spec!r}")
    exts = {os.path.splitext(f[:-3] if f.endswith(".gz") else f)[1].lower() for f in files}
    if exts <= {".parquet", ".pq"}:
        ddf = dd.read_parquet(files)
    elif exts <= {".csv", ".tsv", ".txt"}:
        sep = "\t" if exts == {".tsv"} else ","
        try:
            ddf = dd.read_csv(files, sep=sep, blocksize="64MB",
                              compression="gzip" if files[0].endswith(".gz") else None)
        except Exception as exc:  # pandas/pyarrow parser errors name the file and line
            raise ValueError(f"cannot read edge files {spec!r}: {exc}") from exc
    else:
        raise ValueError(f"edge files must all be Parquet (.parquet, .pq) or CSV (.csv, .tsv, "
                         f".txt), got extensions {sorted(exts)} in {spec!r}")
    return from_dask(ddf, u=u, v=v, weight=weight, duplicates=duplicates, spill_dir=spill_dir,
                     source=spec)


def _check_columns(ddf, u, v, weight, source):
    cols = list(ddf.columns)
    missing = [c for c in (u, v) if c not in cols]
    if missing:
        raise ValueError(f"{source}: missing column(s) {missing}; columns found: {cols} (name "
                         f"them with u=, v=, weight=)")
    return weight if weight is not None and weight in cols else None


def _labels(ddf, u, v, source):
    """The sorted distinct node ids (one Dask pass); refuses ids of mixed types."""
    _, dd = _dask()
    ids = dd.concat([ddf[u].rename("id"), ddf[v].rename("id")]).drop_duplicates().compute()
    if ids.isna().any():
        raise ValueError(f"{source}: missing node ids (empty u or v) in some rows")
    values = ids.to_numpy()
    kinds = {type(x) for x in values[: min(len(values), 100000)]} if values.dtype == object else set()
    kinds = {int if issubclass(k, (int, np.integer)) else k for k in kinds}
    if len(kinds) > 1:
        raise ValueError(f"{source}: node ids are not of one type across partitions (found "
                         f"{sorted(k.__name__ for k in kinds)}); cast the u and v columns to one "
                         f"type (e.g. all str)")
    try:
        values = np.sort(values)
    except TypeError as exc:
        raise ValueError(f"{source}: node ids cannot be ordered ({exc}); cast u and v to one "
                         f"type") from exc
    if values.dtype == object and kinds == {int}:
        values = values.astype(np.int64)
    return values


def _canonical_partition(df, u, v, weight, index):
    """One partition: ids -> indices (i < j), weights, self-loops dropped and counted."""
    import pandas as pd

    i = index.get_indexer(df[u])
    j = index.get_indexer(df[v])
    w = (df[weight].to_numpy(dtype=np.float64) if weight is not None
         else np.ones(len(df), dtype=np.float64))
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    keep = lo != hi
    return pd.DataFrame({"i": lo[keep].astype(np.int64), "j": hi[keep].astype(np.int64),
                         "w": w[keep]})


def _partition_stats(df, u, v, weight):
    import pandas as pd

    w = (df[weight].to_numpy(dtype=np.float64) if weight is not None else np.ones(len(df)))
    loops = int((df[u].to_numpy() == df[v].to_numpy()).sum())
    bad = int((~np.isfinite(w)).sum())
    return pd.DataFrame({"rows": [len(df)], "loops": [loops], "nonfinite": [bad],
                         "zeros": [int((w == 0).sum())]})


def from_dask(ddf, *, u: str = "u", v: str = "v", weight: str | None = "weight",
              duplicates: str = "max", spill_dir: str | None = None,
              source: str = "dask DataFrame") -> "DaskGraph":
    """A :class:`DaskGraph` from a Dask DataFrame of edges (columns ``u``, ``v``, optional
    ``weight``; no ``weight`` column means weight 1).

    Passes over the input: the distinct ids (labels), row statistics (self-loops, non-finite
    weights), and the canonical edge list ``(i < j, w)`` with repeated pairs merged
    (``duplicates``), which is written once to Parquet files in ``spill_dir`` (default: a
    temporary folder removed with the object) so that later passes read it partition by
    partition instead of recomputing it.
    """
    dask, dd = _dask()
    import pandas as pd

    if duplicates not in _DUPLICATES:
        raise ValueError(f"duplicates={duplicates!r} is not one of {_DUPLICATES}")
    weight = _check_columns(ddf, u, v, weight, source)
    try:
        stats = ddf.map_partitions(_partition_stats, u, v, weight,
                                   meta={"rows": "i8", "loops": "i8", "nonfinite": "i8",
                                         "zeros": "i8"}).sum().compute()
    except (ValueError, TypeError) as exc:  # e.g. ids parsed as int in one file, str in another
        first = " ".join(str(exc).split())[:400]
        raise ValueError(f"{source}: the edge partitions are not consistent (node ids or "
                         f"weights of different types in different files or partitions?; cast "
                         f"u and v to one type): {first}") from exc
    if stats["nonfinite"]:
        raise ValueError(f"{source}: {int(stats['nonfinite'])} edge weight(s) are NaN or "
                         f"infinite; weights must be finite")
    labels = _labels(ddf, u, v, source)
    index = pd.Index(labels)
    canon = ddf.map_partitions(_canonical_partition, u, v, weight, index,
                               meta={"i": "i8", "j": "i8", "w": "f8"})
    merged = canon.groupby(["i", "j"]).w.agg("max" if duplicates == "max" else "sum",
                                              split_out=max(canon.npartitions, 1))
    merged = merged.reset_index()
    rows_kept = int(stats["rows"]) - int(stats["loops"])
    tmp = None
    if spill_dir is None:
        tmp = tempfile.mkdtemp(prefix="dpgraph-edges-")
        spill_dir = tmp
    merged.to_parquet(spill_dir, write_index=False)
    edges = dd.read_parquet(spill_dir)
    m = int(edges.shape[0].compute())
    if m < rows_kept:
        if duplicates == "error":
            raise ValueError(f"{source}: {rows_kept - m} repeated node pair(s) (counting both "
                             f"directions); pass duplicates='max' or 'sum'")
        warnings.warn(f"{source}: {rows_kept - m} repeated node pair(s) merged by their "
                      f"{duplicates}", GraphInputWarning, stacklevel=2)
    if stats["loops"]:
        warnings.warn(f"{source}: dropped {int(stats['loops'])} self-loop(s)", GraphInputWarning,
                      stacklevel=2)
    graph = DaskGraph(edges, tuple(labels.tolist()), m=m, source=source)
    if tmp is not None:
        weakref.finalize(graph, shutil.rmtree, tmp, ignore_errors=True)
    return graph


# ----------------------------------------------------------------------------- the graph


def _tree_sum(parts):
    """Sum a list of delayed arrays pairwise (depth log2 P), so no task holds more than two."""
    dask, _ = _dask()
    add = dask.delayed(np.add, pure=True)
    while len(parts) > 1:
        parts = [add(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return parts[0]


def _partition_csr(df, n):
    """One partition's edges ``(i < j, w)`` as an upper-triangular CSR block (built once)."""
    i, j, w = df["i"].to_numpy(), df["j"].to_numpy(), df["w"].to_numpy()
    return sp.csr_array((w, (i, j)), shape=(n, n))


def _block_matmul(A, X):
    return np.asarray(A @ X) + np.asarray(A.T @ X)


def _partition_degrees(df, n):
    i, j, w = df["i"].to_numpy(), df["j"].to_numpy(), df["w"].to_numpy()
    return np.bincount(i, weights=w, minlength=n) + np.bincount(j, weights=w, minlength=n)


def _partition_cuts(df, P):
    i, j, w = df["i"].to_numpy(), df["j"].to_numpy(), df["w"].to_numpy()
    return w @ (P[i] != P[j])


def _partition_weight_stats(df):
    w = df["w"].to_numpy()
    if w.size == 0:
        return np.array([np.inf, -np.inf, 0.0, 1.0])
    return np.array([w.min(), w.max(), w.sum(), float(np.all(w == 1.0))])


def _combine_stats(a, b):
    return np.array([min(a[0], b[0]), max(a[1], b[1]), a[2] + b[2], min(a[3], b[3])])


class DaskAdjacency:
    """The symmetric ``n x n`` weight matrix of a :class:`DaskGraph` as an operator:
    ``A @ X`` is one Dask pass (each partition multiplies its edges; tree-summed)."""

    def __init__(self, graph: "DaskGraph"):
        self._graph = graph
        self.shape = (graph.n, graph.n)
        self.dtype = np.dtype(np.float64)

    def __matmul__(self, X):
        dask, _ = _dask()
        X = np.asarray(X, dtype=np.float64)
        Xd = dask.delayed(X)  # sent once per worker, not once per partition
        parts = [dask.delayed(_block_matmul, pure=True)(b, Xd) for b in self._graph.blocks]
        return _tree_sum(parts).compute()

    def __repr__(self) -> str:
        return f"DaskAdjacency(shape={self.shape}, partitions={self._graph.edges.npartitions})"


class DaskGraph:
    """An undirected weighted graph stored as a partitioned edge list ``(i < j, w)`` on Dask,
    with its node labels on the client. Use :func:`from_dask` or :func:`read_edge_files`.

    Attributes: ``n``, ``m`` (distinct pairs), ``labels``, ``edges`` (the Dask DataFrame),
    ``weights`` (a :class:`DaskAdjacency`), and the cached passes ``degrees``,
    ``total_weight``, ``weight_range``, ``is_unweighted``.
    """

    def __init__(self, edges, labels: tuple, *, m: int, source: str = "dask"):
        self.edges = edges
        self.labels = labels
        self.m = int(m)
        self.source = source
        self.weights = DaskAdjacency(self)

    @property
    def n(self) -> int:
        return len(self.labels)

    @cached_property
    def blocks(self) -> tuple:
        """Each partition's edges as a CSR block, built once and kept where it was computed
        (``dask.persist``: in the workers' memory on a cluster). The private iteration's
        products reuse them instead of re-reading the Parquet files at every step; memory is
        that of the edge list, spread over the workers (``~12 m`` bytes in all)."""
        dask, _ = _dask()
        parts = [dask.delayed(_partition_csr, pure=True)(p, self.n)
                 for p in self.edges.to_delayed()]
        return tuple(dask.persist(*parts))

    @cached_property
    def degrees(self) -> np.ndarray:
        """Weighted degrees (one Dask pass)."""
        dask, _ = _dask()
        parts = [dask.delayed(_partition_degrees, pure=True)(p, self.n)
                 for p in self.edges.to_delayed()]
        return _tree_sum(parts).compute()

    @cached_property
    def _weight_stats(self) -> np.ndarray:
        dask, _ = _dask()
        parts = [dask.delayed(_partition_weight_stats, pure=True)(p)
                 for p in self.edges.to_delayed()]
        combine = dask.delayed(_combine_stats, pure=True)
        while len(parts) > 1:
            parts = [combine(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                     for k in range(0, len(parts), 2)]
        return parts[0].compute()

    @property
    def weight_range(self) -> tuple[float, float]:
        """(smallest, largest) edge weight; (0, 0) without edges."""
        lo, hi = self._weight_stats[:2]
        return (0.0, 0.0) if self.m == 0 else (float(lo), float(hi))

    @property
    def total_weight(self) -> float:
        return float(self._weight_stats[2])

    @property
    def is_unweighted(self) -> bool:
        return bool(self._weight_stats[3])

    def cut_values(self, P) -> np.ndarray:
        """Cut weight of each column of ``P`` (``n x k``, entries +-1 or 0/1 sides): one pass."""
        dask, _ = _dask()
        P = np.asarray(P)
        P = (P.reshape(self.n, -1) > 0)
        Pd = dask.delayed(P)
        parts = [dask.delayed(_partition_cuts, pure=True)(p, Pd) for p in self.edges.to_delayed()]
        return np.atleast_1d(_tree_sum(parts).compute()).astype(np.float64)

    def to_graph_data(self):
        """Collect the whole graph on the client as :class:`~dpgraph.graph.GraphData` (for
        graphs that fit in memory: tests, comparisons)."""
        from .graph import from_matrix

        df = self.edges.compute()
        A = sp.coo_array((df["w"].to_numpy(), (df["i"].to_numpy(), df["j"].to_numpy())),
                         shape=(self.n, self.n))
        return from_matrix((A + A.T).tocsr(), self.labels, source=self.source)

    def __repr__(self) -> str:
        return (f"DaskGraph(n={self.n}, m={self.m}, partitions={self.edges.npartitions}, "
                f"source={self.source!r})")
