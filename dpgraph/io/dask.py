"""Graphs whose edge list lives on a Dask cluster: every pass over the edges is a Dask computation.

For edge lists too large for one machine (folders of Parquet or CSV files, whose endpoints
are the columns ``u`` and ``v`` or else the first two columns, as in a ``.csv`` file that
:func:`dpgraph.read_graph` reads; or a ``dask.dataframe.DataFrame`` with columns ``u``, ``v``
and optionally ``weight``).
:func:`from_dask` reads them into a :class:`DaskGraph`, which the matrix-free route
(:mod:`dpgraph.release.routes.matrix_free`) and the private solvers use exactly like an in-memory
:class:`~dpgraph.graph.GraphData`: they only ever ask for

* ``degrees`` and ``total_weight`` (computed once, when the graph is read),
* ``weights @ X`` for an ``n x k`` dense ``X`` (one pass: ``X`` is sent once to each worker,
  each row block of the symmetric weight matrix computes its rows of the product, the client
  concatenates them),
* :meth:`DaskGraph.cut_values` of fixed partitions (one pass).

The graph is kept as row blocks: block ``b`` holds rows ``lo_b..hi_b - 1`` of the symmetric
weight matrix (both directions of every edge) as a CSR block in the memory of the worker that
built it. A product moves ``O(n k)`` numbers in all, whatever the number of blocks (summing
per-partition ``n x k`` partial products would move ``O(P n k)``). No task and not the client
ever holds the whole edge list: a task holds one input partition or one row block (plus
``O(n k)`` for the vectors it multiplies), a worker the blocks it built, the client ``O(n k)``
(the labels, the degrees, the iterate). Noise is drawn on the client by
:mod:`dpgraph.privacy.noise`, so the ledger and the proofs (docs/privacy.md, section 5) are
those of the in-memory route; each block's product is the float64 CSR product of the same rows
with the same sorted columns, so for the same seed the release equals the in-memory one
(docs/privacy.md 9).

Input policy (that of :mod:`dpgraph.graph`): node ids are any hashable values of one type
(integers or strings); they are mapped to ``0..n-1`` in sorted order by one Dask pass, and
results come back in them. Edge files are read as :func:`dpgraph.read_graph` reads a ``.csv``
file: ``#`` comment lines before each file's header row, and the node-id rule ``ids=``
(``"auto"``, ``"str"``, ``"int"``; see :func:`read_edge_files`). Self-loops are dropped
with a warning that counts them, and so are weight-0 edges. Repeated pairs, e.g. a file listing both directions, are merged by ``duplicates="max"`` (the default: an edge listed twice is one edge),
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
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from dpgraph.caller import caller_stacklevel
from dpgraph.graph import (FLOAT_MAX, DuplicateEdgeWarning, GraphInputWarning,
                           WeightSumOverflowError, summed_pair_problem, weight_sums_error)
from dpgraph.io.base import check_ids, open_text

__all__ = ["DaskGraph", "DaskAdjacency", "from_dask", "read_edge_files", "is_dask_input",
           "dask_modules", "share_with_workers", "edge_file_list", "edge_file_extension",
           "edge_file_columns", "text_edge_files_error", "TEXT_EXTENSIONS",
           "PARQUET_EXTENSIONS", "CSV_EXTENSIONS"]

#: the extensions of the edge files read_edge_files reads (a ``.gz`` suffix is looked through)
PARQUET_EXTENSIONS = (".parquet", ".pq")
#: the extensions of CSV edge files; ``.tsv`` and ``.txt`` among them are refused
#: (:data:`TEXT_EXTENSIONS`)
CSV_EXTENSIONS = (".csv", ".tsv", ".txt")
#: extensions that :func:`dpgraph.read_graph` reads as plain edge lists (SNAP ``u v [w]``
#: lines, no header row, ``#`` comments anywhere), which :func:`read_edge_files` does not
#: read: refused, saying how to read them (:func:`text_edge_files_error`)
TEXT_EXTENSIONS = (".tsv", ".txt")


def text_edge_files_error(spec, files) -> ValueError | None:
    """The refusal of Dask edge ``files`` (of ``spec``) named ``.txt`` or ``.tsv``, or None:
    :func:`dpgraph.read_graph` reads such a file as a plain edge list (SNAP ``u v [w]`` lines
    split by whitespace, no header row, ``#`` comments anywhere), which the Dask reader does
    not read; reading them as CSV with a header row instead would give the same file another
    graph (its first edge taken for column names), so they are refused.

    >>> str(text_edge_files_error("parts", ["parts/p0.txt"])).split(":")[0]
    'parts'
    >>> text_edge_files_error("parts", ["parts/p0.csv"]) is None
    True
    """
    named = [f for f in files if edge_file_extension(f) in TEXT_EXTENSIONS]
    if not named:
        return None
    return ValueError(
        f"{os.fspath(spec)}: {os.path.basename(named[0])} is named "
        f"{edge_file_extension(named[0])}, which dpgraph.read_graph reads as a plain edge list "
        f"('u v [w]' lines split by whitespace, no header row, '#' comments anywhere) and the "
        f"Dask edge-file reader does not read: read each file with dpgraph.read_graph, or "
        f"write the edges as CSV files with a header row named .csv (comma-separated, or "
        f"tab-separated with a header row of tabs) or as Parquet files")


def edge_file_list(spec) -> list:
    """The files :func:`read_edge_files` reads for ``spec`` (no Dask needed): a folder's files
    but its markers and metadata (``_*``, ``.*``: Spark's ``_SUCCESS``, dask's ``_metadata``,
    ``.crc`` checksums), or the files a glob or path matches; sorted.

    >>> edge_file_list("/no/such/folder/*.parquet")
    []
    """
    spec = os.fspath(spec)
    folder = os.path.isdir(spec)
    files = sorted(glob.glob(os.path.join(spec, "*")) if folder else glob.glob(spec))
    return [f for f in files if os.path.isfile(f)
            and not (folder and os.path.basename(f)[:1] in "_.")]


def edge_file_extension(path) -> str:
    """``path``'s extension, lower case, through a ``.gz`` suffix.

    >>> edge_file_extension("part-0.CSV.gz"), edge_file_extension("e.parquet")
    ('.csv', '.parquet')
    """
    low = os.fspath(path).lower()
    return os.path.splitext(low[:-3] if low.endswith(".gz") else low)[1]

_DUPLICATES = ("max", "sum", "error")


def dask_modules():
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


def read_edge_files(path, *, u: str | None = None, v: str | None = None,
                    weight: str | None = "weight", ids: str = "auto", duplicates: str = "max",
                    spill_dir: str | None = None, blocks: int | None = None,
                    nodes=None) -> "DaskGraph":
    """Read a path or glob of Parquet (``.parquet``/``.pq``) or CSV (``.csv``, with a header
    row; comma-separated, or tab-separated where the header row has tabs and no comma, as
    :func:`dpgraph.read_graph` reads a ``.csv`` file) edge files as a :class:`DaskGraph` (see
    :func:`from_dask`, which says what ``nodes`` is). ``.txt`` and ``.tsv`` files, which
    :func:`dpgraph.read_graph` reads as plain edge lists without a header row, are refused
    with what to do (:func:`text_edge_files_error`).

    The endpoints are the columns ``u`` and ``v`` when given; by default the columns named
    ``u`` and ``v`` where the files have both, else the first two columns, whatever their
    names (``source,target``, ``from,to``, ...), as :func:`dpgraph.read_graph` reads a
    ``.csv`` file. The weights are the column ``weight`` (its name matched without regard to
    case, as there; ``weight=None`` reads every edge as weight 1); an edge is of weight 1 when
    there is no such column.

    A CSV file is read as :func:`dpgraph.read_graph` reads a ``.csv`` file: lines starting
    with ``#`` before its header row are comments (each file may have its own), blank lines
    are skipped, fields may be quoted, and spaces around an id are not part of it. A ``#``
    line after the header row is no comment there, and is refused here too, naming the file
    and the line; a ``#`` inside a field is part of it (``a#1`` is a node id).

    ``ids`` is the node-id rule of :func:`dpgraph.read_graph`:

    * ``"auto"`` (default): in CSV files, a ``# ids: str`` (or ``# ids: int``) comment line
      before the header row, or a first id in double quotes under an unquoted header row
      (``"007"``, as :func:`dpgraph.write_graph` writes string ids that look like integers),
      makes every id of every file a name (or an integer; files that declare both are
      refused); else the ids keep the type the reader infers, integers where every id of a
      column is one, and when the first edge row's first id is an integer, an id that is
      not (``3,x``, ``1.0``, a ``#`` line holding a comma) is refused with its file and line;
      when it is a name, an id that reads as an integer (``7``, ``007``) is, as
      :func:`dpgraph.read_graph` refuses both. Parquet ids keep their stored type.
    * ``"str"``: every id is a name: ``007`` stays ``'007'``. Parquet integer columns are
      read as their decimal digits (``7`` becomes ``'7'``; leading zeros that were never
      stored do not come back), string columns as stored; columns of other types are refused.
    * ``"int"``: every id must be an integer: a CSV id that is not (``x``, ``1.0``) is refused
      with its file and line, a Parquet id column that is not of an integer type with its file
      and column.

    In CSV files only an empty field is a missing id (refused with its line): ``NA`` or
    ``null`` is a name, as in :func:`dpgraph.read_graph`.

    Raises ``FileNotFoundError`` when nothing matches and ``ValueError`` naming the columns found
    when a column named by ``u`` or ``v`` is missing, or the files have fewer than two columns;
    ``ValueError`` naming the file and line of a malformed CSV row; and, under
    ``duplicates="sum"``, a :class:`~dpgraph.io.base.WeightSumFormatError` (a
    :class:`~dpgraph.io.GraphFormatError` and a :class:`~dpgraph.graph.WeightSumOverflowError`)
    for a node pair whose listings' weights add up past float64, naming the file and line of
    its first listing and every listing by file and line (a Parquet file's by row, from 1),
    found by one more pass over the files, as :func:`dpgraph.read_graph` names them.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "part-0.csv"), "w") as f:
    ...     _ = f.write("# ids: str\\nu,v\\n007,010\\n010,1\\n")
    >>> read_edge_files(folder).labels  # the comment line names the ids strings
    ('007', '010', '1')
    >>> read_edge_files(folder, ids="int").labels  # integers: 007 is 7
    (1, 7, 10)
    """
    _, dd = dask_modules()
    check_ids(ids)
    spec = os.fspath(path)
    files = edge_file_list(spec)
    if not files:
        raise FileNotFoundError(f"no edge files match {spec!r}")
    exts = {edge_file_extension(f) for f in files}
    sep, heads, check, rule = None, None, None, ids  # Parquet: columns from the metadata
    if exts <= set(PARQUET_EXTENSIONS):
        with warnings.catch_warnings():
            # dask's Parquet reader builds its meta frame with pandas' deprecated inplace=True
            # (a Pandas4Warning under pandas >= 3.1): dask's to change, nothing for the caller
            warnings.filterwarnings("ignore", message=r"The inplace keyword in DataFrame\.",
                                    module=r"dask\.")
            ddf = dd.read_parquet(files)
        _check_same_columns(files, [_file_columns(f, None) for f in files], spec)
        u, v, weight = _file_columns_read(list(ddf.columns), u, v, weight, spec, sep)
        if ids != "auto":
            ddf = _parquet_ids(ddf, files, u, v, ids, spec)
        locate = _file_locator(files, _parquet_id_reader(u, v, ids), None)
    elif exts <= set(CSV_EXTENSIONS):
        refusal = text_edge_files_error(spec, files)
        if refusal is not None:
            raise refusal
        heads = [_csv_head(f) for f in files]
        sep = _csv_separator(files, heads, spec)
        packed = [f.lower().endswith(".gz") for f in files]
        if any(packed) and not all(packed):
            # dask decides the compression once, for every file: the others were read as
            # text ("'utf-8' codec can't decode byte 0x8b") or as gzip
            raise ValueError(f"{spec}: some edge files are gzip-compressed "
                             f"({os.path.basename(files[packed.index(True)])}) and some are "
                             f"not ({os.path.basename(files[packed.index(False)])}); compress "
                             f"all of them or none")
        gz = all(packed)
        _check_csv_heads(files, heads, spec)
        rule, first_int = _csv_ids_rule(files, heads, ids, sep, spec)
        skips = [h.number - 1 for h in heads]

        def read_csv_files(**options):
            # each file's comment (and blank) lines before its header row skipped: one reader
            # per run of files that skip as many lines (dask applies skiprows to every file)
            frames, start = [], 0
            while start < len(files):
                stop = start + 1
                while stop < len(files) and skips[stop] == skips[start]:
                    stop += 1
                kw = dict(options, skiprows=skips[start]) if skips[start] else options
                try:  # a gzip file is one partition (it cannot be split): no blocksize
                    frames.append(dd.read_csv(files[start:stop], sep=sep,
                                              blocksize=None if gz else "64MB",
                                              compression="gzip" if gz else None, **kw))
                except Exception as exc:  # pandas/pyarrow parser errors name the file and line
                    raise ValueError(f"cannot read edge files {spec!r}: {exc}") from exc
                start = stop
            return frames[0] if len(frames) == 1 else dd.concat(frames)

        ddf = read_csv_files()
        _check_same_columns(files, [h.columns for h in heads], spec, ordered=True)
        if u is None and v is None:
            _check_named_endpoints(files, heads, spec)
        u, v, weight = _file_columns_read(list(ddf.columns), u, v, weight, spec, sep)
        # only an empty endpoint is a missing id ('NA' and 'null' are names, as read_graph
        # reads them); the other columns keep pandas' missing values
        options = {"keep_default_na": False,
                   "na_values": {c: [""] if c in (u, v) else list(_PANDAS_NA)
                                 for c in ddf.columns}}
        dtype = {c: str for c in (u, v) if rule == "str" and c in ddf.columns}
        if weight in ddf.columns and ddf[weight].dtype != np.float64:
            # dask infers the dtypes from the first file's first bytes: weights 1, 1, ... there
            # (int64) failed on a later 0.5 with "Mismatched dtypes"; weights are floats
            dtype[weight] = "float64"
        ddf = _stripped_ids(read_csv_files(dtype=dtype or None, **options), u, v)
        if rule in ("int", "auto"):
            check = _IdKindCheck(files, sep, heads, rule, spec, first_int)
        from dpgraph.io.text import csv_row_lines

        locate = _file_locator(files, _csv_id_reader(dict(zip(files, skips)), sep, gz, u, v,
                                                     rule == "str"), csv_row_lines)
    else:
        raise ValueError(f"edge files must all be Parquet (.parquet, .pq) or CSV (.csv), got "
                         f"extensions {sorted(exts)} in {spec!r}")
    with warnings.catch_warnings():  # the same deprecation again when the passes compute
        warnings.filterwarnings("ignore", message=r"The inplace keyword in DataFrame\.",
                                module=r"dask\.")
        try:
            return _from_frame(ddf, u=u, v=v, weight=weight, duplicates=duplicates,
                               spill_dir=spill_dir, blocks=blocks, source=spec, nodes=nodes,
                               check_labels=check, locate=locate)
        except _BadRow as exc:  # named by file and line already
            raise ValueError(str(exc)) from None
        except WeightSumOverflowError:  # named by file and line (or row) already
            raise
        except ValueError as exc:
            # dask's CSV errors name neither the file nor its line (a line of a 64 MB chunk)
            where = (_first_bad_csv_row(files, sep, heads, rule if check else "str")
                     if sep is not None else None)
            if where is None:
                raise
            raise ValueError(f"{spec}: {where}") from exc


def _csv_id_reader(skips: dict, sep: str, gz: bool, u, v, names: bool):
    """``read_ids(path)`` of :func:`_file_locator` for CSV edge files: the ``u``, ``v``
    columns of one file read as :func:`read_edge_files` reads them (its comment lines before
    the header row skipped, ``skips[path]`` lines; only an empty id missing; ``names``: every
    id a string; spaces around an id not part of it)."""
    def read_ids(path):
        import pandas as pd

        df = pd.read_csv(path, sep=sep, skiprows=skips[path] or None, usecols=[u, v],
                         compression="gzip" if gz else None, keep_default_na=False,
                         na_values={u: [""], v: [""]},
                         dtype={u: str, v: str} if names else None)
        return pd.DataFrame({c: _strip_ids(df[c]) for c in (u, v)})
    return read_ids


def _parquet_id_reader(u, v, ids: str):
    """``read_ids(path)`` of :func:`_file_locator` for Parquet edge files: the ``u``, ``v``
    columns of one file as :func:`read_edge_files` reads them (``ids="str"``: as text)."""
    def read_ids(path):
        import pyarrow.parquet as pq

        df = pq.read_table(path, columns=[u, v]).to_pandas()
        if ids == "str":
            df = df.assign(**{c: _ids_as_text(df[c]) for c in (u, v)})
        return df[[u, v]]
    return read_ids


#: pandas' default missing-value strings (``pandas.read_csv``'s ``na_values``), which the
#: weight column and the other columns keep
_PANDAS_NA = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
              "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


class _BadRow(ValueError):
    """A CSV row refused by :func:`read_edge_files`'s id rule, already named by file and line."""


class _CsvHead(NamedTuple):
    """The head of a CSV edge file: its ``#`` comment lines before the header row
    ``(number, line)``, the header row's line number (0: none) and text, its column names, and
    the first edge row ``(number, line)`` (None: none)."""
    comments: list
    number: int
    header: str
    columns: list
    first: tuple | None


def _csv_head(path: str, sep: str | None = None) -> _CsvHead:
    """:class:`_CsvHead` of ``path``, by :func:`dpgraph.io.text.read_csv`'s rule: blank lines
    and lines starting with ``#`` before the header row are skipped; its columns split at
    ``sep`` (default: the header row's own, :func:`dpgraph.io.text.csv_separator`)."""
    import csv

    from dpgraph.io.text import csv_separator

    comments, number, header, first = [], 0, "", None
    with open_text(path) as fh:
        for k, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            if number:
                first = (k, line)
                break
            if line.lstrip().startswith("#"):
                comments.append((k, line))
                continue
            number, header = k, line
    sep = sep or csv_separator(header)
    columns = next(csv.reader([header], delimiter=sep)) if number else []
    return _CsvHead(comments, number, header, columns, first)


def _csv_separator(files: list, heads: list, spec: str) -> str:
    """The one separator of the CSV ``files`` (:func:`dpgraph.io.text.csv_separator` of each
    header row in ``heads``); files that differ are refused, naming one of each."""
    from dpgraph.io.text import csv_separator

    seps = [csv_separator(h.header) for h in heads]
    if len(set(seps)) > 1:
        tab = os.path.basename(files[seps.index("\t")])
        comma = os.path.basename(files[seps.index(",")])
        raise ValueError(f"{spec}: the CSV edge files use different separators: {tab} has a "
                         f"header row of tabs, {comma} one of commas; write every file with "
                         f"one separator")
    return seps[0]


def edge_file_columns(path, sep: str | None = None) -> list:
    """The column names of one edge file, as :func:`read_edge_files` reads them: a Parquet
    file's schema, or a CSV file's header row, its first line that is neither blank nor a
    ``#`` comment line (separated by ``sep``: default a tab where that row has tabs and no
    comma, else a comma, as :func:`dpgraph.io.text.read_csv` reads it).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "e.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# ids: str\\nu,v,weight\\n007,010,0.5\\n")
    >>> edge_file_columns(path)
    ['u', 'v', 'weight']
    """
    ext = edge_file_extension(path)
    if ext in PARQUET_EXTENSIONS:
        return _file_columns(path, None)
    return _csv_head(os.fspath(path), sep).columns


def _check_csv_heads(files: list, heads: list, spec: str) -> None:
    """Refuse a CSV edge file without a header row: only comment lines, a first row of
    numbers (an edge, as :func:`dpgraph.io.text.read_csv` refuses it), or a first line
    starting with ``%`` (a comment in other edge-list formats, not in CSV files)."""
    from dpgraph.io.text import is_number

    for f, head in zip(files, heads):
        if not head.number:
            raise ValueError(f"{spec}: {os.path.basename(f)} has no header row (only blank or "
                             f"'#' comment lines); CSV edge files start with their header row "
                             f"(e.g. 'u,v' or 'u,v,weight')")
        if len(head.columns) >= 2 and all(is_number(c) for c in head.columns[:2]):
            # (read_graph's refusal: the first edge was read as the column names, and lost)
            raise ValueError(f"{spec}: {os.path.basename(f)}, line {head.number}: the first "
                             f"row {head.header.strip()!r} holds numbers, not column names; "
                             f"CSV edge files start with a header row (e.g. 'u,v' or "
                             f"'u,v,weight'): add one")
        if head.header.lstrip().startswith("%"):
            raise ValueError(f"{spec}: {os.path.basename(f)}, line {head.number}: "
                             f"{head.header.strip()!r} stands where the header row belongs; in "
                             f"CSV edge files only lines starting with '#' are comments (as "
                             f"dpgraph.read_graph reads CSV): start the line with '#', or remove "
                             f"it")


def _check_named_endpoints(files: list, heads: list, spec: str) -> None:
    """Refuse CSV edge files whose endpoints are their first two columns (no ``u`` and ``v``
    columns, none named by the caller) where one of those has no name, as
    :func:`dpgraph.io.text.read_csv` refuses one file: pandas' ``to_csv`` writes its index so
    (``,source,target``), and reading that index as an endpoint would make another graph
    without a word."""
    from dpgraph.io.text import index_column_hint

    for f, head in zip(files, heads):
        if not {"u", "v"} <= set(head.columns) and not all(head.columns[:2]):
            raise ValueError(f"{spec}: {os.path.basename(f)}, line {head.number}: an empty "
                             f"column name in the header row {head.header.strip()!r}"
                             f"{index_column_hint(head.columns)}; or name the endpoint columns "
                             f"with u= and v=")


def _csv_ids_rule(files: list, heads: list, ids: str, sep: str, spec: str) -> tuple:
    """``(rule, first_int)``: the id rule of CSV edge files read with ``ids`` (for ``"auto"``,
    what the files declare, as :func:`dpgraph.io.text.read_csv` reads one file: a ``# ids:``
    comment line before the header row, else a first id in double quotes under an unquoted
    header row, which makes the ids names), and whether the first edge row's first id is an
    integer (``"auto"``: then every id must be one)."""
    from dpgraph.io.text import declared_ids, first_id_quoted, is_integer_id

    declared = {}
    if ids == "auto":
        for f, head in zip(files, heads):
            rule = declared_ids(line for _, line in head.comments)
            if rule is None and head.first is not None and first_id_quoted(head.header,
                                                                          head.first[1]):
                rule = "str"
            if rule in ("str", "int"):
                declared.setdefault(rule, os.path.basename(f))
        if len(declared) > 1:
            raise ValueError(f"{spec}: the edge files declare different id rules: "
                             f"{declared['str']} names its ids (a '# ids: str' line or quoted "
                             f"ids), {declared['int']} declares '# ids: int'; pass ids='str' or "
                             f"ids='int'")
    rule = next(iter(declared), ids)
    first = next((h.first for h in heads if h.first is not None), None)
    first_int = False
    if first is not None and rule == "auto":
        import csv

        row = next(csv.reader([first[1]], delimiter=sep), [])
        first_int = bool(row) and is_integer_id(row[0])
    return rule, first_int


class _IdKindCheck:
    """The labels check of CSV edge files under ``ids="int"`` or ``"auto"``, as
    :func:`dpgraph.read_graph` reads one file: where the ids must be integers (``"int"``, or
    ``"auto"`` with an integer first id), labels that are not, or ids that some partition read
    as floats (``1.0``, merged into the integers of the others), refuse the files; where the
    first id is a name (``"auto"``), an id that reads as an integer does (``007``: read
    ``ids='str'``). The refusal names the file and line of the first such id (one pass over
    the files, run only then; the labels check is one pass over the labels on the client)."""

    def __init__(self, files, sep, heads, rule, spec, first_int=False):
        self.files, self.sep, self.heads, self.rule, self.spec = files, sep, heads, rule, spec
        self.integers = rule == "int" or bool(first_int)

    def explain(self) -> str | None:
        """``"FILE, line L: ..."`` of the first row that breaks the rule, or None."""
        return _first_bad_csv_row(self.files, self.sep, self.heads, self.rule)

    def __call__(self, labels: np.ndarray, float_ids: bool = False) -> None:
        if self.integers:
            if labels.dtype.kind in "iu" and not float_ids:
                return
        elif labels.dtype != object or not _any_integer_id(labels):
            return
        where = self.explain()
        if where is None and not self.integers:
            return  # (each label was read from a row that the scan passes)
        raise _BadRow(f"{self.spec}: " + (where or (
            f"the node ids were read as {'names' if labels.dtype == object else 'numbers'}, "
            f"not integers (an integer beyond 64 bits?); pass ids='str' to read every id as a "
            f"name")))


def _any_integer_id(labels: np.ndarray) -> bool:
    """Whether some of the string ``labels`` reads as an integer id
    (:func:`dpgraph.io.text.is_integer_id`), in one vectorized pass."""
    import pandas as pd

    from dpgraph.io.text import INTEGER_ID

    text = pd.Series(labels, dtype=object)
    text = text[text.map(type) == str]
    return bool(text.str.strip().str.fullmatch(INTEGER_ID.pattern).any())


def _first_bad_csv_row(files: list, sep: str, heads: list, rule: str = "str") -> str | None:
    """``"FILE, line L: ..."`` for the first row of the CSV ``files`` whose number of fields
    differs from its header's, whose first two fields (the node ids) are empty, or, under
    ``rule`` ``"int"`` (or ``"auto"`` with an integer first id), whose id is not an integer;
    or None. Run only after a read failed, to name what dask's parser does not (one pass per
    file, in the csv module's C reader)."""
    import csv

    from dpgraph.io.text import is_integer_id

    first = None  # (file, line number, row text) of the first edge row: the "auto" rule's
    first_int = False
    for path, head in zip(files, heads):
        name = os.path.basename(path)
        with open_text(path) as fh:
            for _ in range(head.number):
                fh.readline()
            rows = csv.reader(fh, delimiter=sep)
            for row in rows:
                if not any(c.strip() for c in row):
                    continue
                number = head.number + rows.line_num
                text = sep.join(row)
                hint = (" (a '#' line is a comment only before the header row, as "
                        "dpgraph.read_graph reads CSV)" if text.lstrip().startswith("#") else "")
                if len(row) != len(head.columns) or not (row[0].strip() and row[1].strip()):
                    what = (f"{len(row)} field(s) where the header has {len(head.columns)}"
                            if len(row) != len(head.columns) else "an empty node id")
                    return f"{name}, line {number}: {what} ({text!r}){hint}"
                if rule == "str":
                    continue
                if first is None:
                    first = (name, number, text)
                    first_int = rule == "int" or is_integer_id(row[0])
                for token in row[:2]:
                    if is_integer_id(token) == first_int:
                        continue
                    if rule == "int":
                        return (f"{name}, line {number}: {token.strip()!r} is not an integer "
                                f"node id (ids='int'){hint}")
                    if not first_int:  # names first, as read_graph refuses an integer then
                        return (f"{name}, line {number}: {token.strip()!r} is an integer node "
                                f"id, and the ids of these edge files are names (decided by "
                                f"their first edge row, {first[0]} line {first[1]}: "
                                f"{first[2]!r}){hint}; pass ids='str' to read every id, this "
                                f"one included, as a name")
                    return (f"{name}, line {number}: {token.strip()!r} is not an integer node "
                            f"id, and the ids of these edge files are integers (decided by "
                            f"their first edge row, {first[0]} line {first[1]}: {first[2]!r})"
                            f"{hint}; pass ids='str' to read every id as a name")
    return None


def _stripped_ids(ddf, u, v):
    """``ddf`` with the spaces around its string ids removed (``a, b``: the id ``'b'``, as
    :func:`dpgraph.io.text.read_csv` reads it; integer ids are read so already)."""
    import pandas as pd

    cols = [c for c in (u, v) if c in ddf.columns
            and (ddf[c].dtype == object or pd.api.types.is_string_dtype(ddf[c].dtype))]
    return ddf.assign(**{c: ddf[c].map_partitions(_strip_ids, meta=(c, ddf[c].dtype))
                         for c in cols}) if cols else ddf


def _strip_ids(s):
    """One partition's ids without surrounding spaces: strings stripped, other values (the
    integers of a partition whose column pandas read as integers) as they are."""
    import pandas as pd

    if s.dtype != object:
        return s.str.strip() if pd.api.types.is_string_dtype(s.dtype) else s
    if pd.api.types.infer_dtype(s, skipna=True) == "string":
        return s.str.strip()
    return s.map(lambda x: x.strip() if isinstance(x, str) else x)


def _parquet_ids(ddf, files: list, u, v, ids: str, spec: str):
    """Parquet edge files read under ``ids`` ``"int"`` or ``"str"``: integer id columns (and
    string columns for ``"str"``) in every file, else a refusal naming the file and column;
    under ``"str"`` the ids as text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def is_text(t):
        return (pa.types.is_string(t) or pa.types.is_large_string(t)
                or getattr(pa.types, "is_string_view", lambda _: False)(t))

    for f in files:
        schema = pq.read_schema(f)
        for c in (u, v):
            if c not in schema.names:
                continue  # (refused by the columns' check, naming the columns found)
            t = schema.field(c).type
            t = t.value_type if pa.types.is_dictionary(t) else t
            if pa.types.is_integer(t) or (ids == "str" and is_text(t)):
                continue
            need = "integer" if ids == "int" else "integer or string"
            raise ValueError(f"{spec}: {os.path.basename(f)}: column {c!r} holds node ids of "
                             f"type {t}; ids={ids!r} reads {need} columns (ids='auto' reads "
                             f"the ids as stored)")
    if ids == "int":
        return ddf
    return ddf.assign(**{c: ddf[c].map_partitions(_ids_as_text, meta=(c, object))
                         for c in (u, v) if c in ddf.columns})


def _ids_as_text(s):
    """One partition's id column as text: integers as their decimal digits (integers stored
    as floats, where a column holds a missing value, too), strings as they are; a missing id
    stays missing (refused by the scan)."""
    import pandas as pd

    if s.dtype.kind not in "iuf":
        return s.astype(object)
    missing = s.isna().to_numpy()
    values = s.to_numpy()[~missing]
    out = np.full(len(s), None, dtype=object)
    if values.dtype.kind == "f":
        values = values.astype(np.int64)
    out[~missing] = values.astype(str).astype(object)
    return pd.Series(out, index=s.index, name=s.name, dtype=object)


def _file_columns_read(cols: list, u, v, weight, spec: str, sep: str | None) -> tuple:
    """``(u, v, weight)``: the columns :func:`read_edge_files` reads from files of columns
    ``cols`` (those of :func:`dpgraph.io.text.read_csv`: ``u`` and ``v`` where both are
    columns, else the first two; the weight column's name matched without regard to case)."""
    if u is None and v is None and not {"u", "v"} <= set(cols):
        if len(cols) < 2:
            from dpgraph.io.text import other_separator_hint

            hint = other_separator_hint(str(cols[0])) if cols and sep is not None else ""
            raise ValueError(f"{spec}: {len(cols)} column(s) {cols}: edge files need two "
                             f"endpoint columns (and an optional weight column){hint}")
        u, v = cols[0], cols[1]
    u, v = ("u" if u is None else u), ("v" if v is None else v)
    if weight is not None and weight not in cols:
        # (and without the spaces of a header 'u, v, weight', which read_csv strips)
        same = [c for c in cols
                if c not in (u, v) and str(c).strip().lower() == weight.strip().lower()]
        weight = same[0] if same else weight
    return u, v, weight


def _file_columns(path: str, sep: str | None) -> list:
    """The column names of one edge file: its Parquet metadata (``sep`` None) or its CSV
    header row (after its ``#`` comment lines)."""
    if sep is None:
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    return _csv_head(path, sep).columns


def _check_same_columns(files: list, columns: list, spec: str, *, ordered: bool = False) -> None:
    """Refuse edge files whose columns (``columns[k]``: those of ``files[k]``) differ: Dask
    takes the first file's columns, so a weight column present in some files only was dropped
    without a word (or failed in a worker with a KeyError that named no file). With
    ``ordered`` (CSV files) the order must agree too: Dask reads every 64 MB block after a
    file's first under the first file's header row, so ``u,weight,v`` after ``u,v,weight``
    swapped the columns of those blocks."""
    first = columns[0]
    for f, cols in zip(files[1:], columns[1:]):
        if sorted(cols) != sorted(first):
            raise ValueError(f"{spec}: the edge files do not have the same columns: "
                             f"{os.path.basename(files[0])} has {first}, "
                             f"{os.path.basename(f)} has {cols}; every file needs the same "
                             f"u, v (and weight) columns")
        if ordered and list(cols) != list(first):
            raise ValueError(f"{spec}: the CSV edge files list their columns in different "
                             f"orders: {os.path.basename(files[0])} has {first}, "
                             f"{os.path.basename(f)} has {cols}; write every file's columns in "
                             f"one order")


def _check_columns(ddf, u, v, weight, source):
    cols = list(ddf.columns)
    missing = [c for c in (u, v) if c not in cols]
    if missing:
        raise ValueError(f"{source}: missing column(s) {missing}; columns found: {cols} (name "
                         f"the columns u, v and weight, or read them with "
                         f"dpgraph.io.dask.read_edge_files(path, u=..., v=..., weight=...) or "
                         f"from_dask(ddf, u=..., v=..., weight=...) and pass the result)")
    if weight is not None and weight not in cols:
        # as the CSV reader (dpgraph.io.text): a weight column named by the caller must exist
        # (its weights were dropped without a word, every edge weight 1); the default name,
        # absent, means weight 1, said when the one other column may hold the weights
        # (column names only: the schema, not the edges)
        others = [c for c in cols if c not in (u, v)]
        if weight != "weight":
            raise ValueError(f"{source}: no weight column {weight!r} (weight=); columns found: "
                             f"{cols}; name the weights' column, or pass weight=None to read "
                             f"every edge as weight 1")
        if len(others) == 1:
            warnings.warn(f"{source}: column {others[0]!r} is not read (the weight column is "
                          f"the one named 'weight'); pass weight={others[0]!r} to read its "
                          f"values as edge weights, or weight=None to say that every edge has "
                          f"weight 1", GraphInputWarning, stacklevel=caller_stacklevel())
        return None
    return weight


def _partition_scan(df, u, v, weight):
    """One input partition: its distinct node ids (sorted when they can be) and its row
    statistics ``[rows, self-loops, non-finite weights, ids read as floats (0 or 1)]``."""
    import pandas as pd

    a, b = df[u].to_numpy(), df[v].to_numpy()
    if pd.isna(a).any() or pd.isna(b).any():  # before any comparison (pd.NA has no truth)
        raise ValueError("missing node ids (empty u or v) in some rows")
    w = df[weight].to_numpy(dtype=np.float64) if weight is not None else None
    stats = np.array([len(df), int(np.count_nonzero(a == b)),
                      0 if w is None else int(np.count_nonzero(~np.isfinite(w))),
                      int(a.dtype.kind == "f" or b.dtype.kind == "f")], dtype=np.int64)
    ids = np.concatenate([a, b])
    if ids.dtype == object or ids.dtype.kind in "USO":
        ids = pd.unique(ids)
        ids = np.sort(ids)  # TypeError when the ids mix types (refused on the client)
    else:
        ids = _distinct(ids)
    return ids, stats


def _distinct(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values by one sort (numpy's hash-based ``np.unique`` of integers took
    4.5 CPU s for 8e6 ids here, the sort 0.7 s)."""
    a = np.sort(a)
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if a.size else a


def _combine_scans(x, y):
    """Union of two partitions' sorted ids, sum of their statistics (a tree reduction)."""
    a, b = x[0], y[0]
    if a.dtype == object or b.dtype == object:
        return np.union1d(a, b), x[1] + y[1]
    kinds = {a.dtype.kind, b.dtype.kind}
    if kinds == {"i", "u"}:
        # int64 ids in one file, uint64 in another: numpy's union of the two is float64 (the
        # labels came back 0.0, 1.0, ...); the integers they are, in the type that holds them
        signed, unsigned = (a, b) if a.dtype.kind == "i" else (b, a)
        if not unsigned.size or int(unsigned[-1]) < 2 ** 63:  # sorted: the largest is last
            a, b = a.astype(np.int64), b.astype(np.int64)
        elif not signed.size or int(signed[0]) >= 0:
            a, b = a.astype(np.uint64), b.astype(np.uint64)
    if "f" in kinds and kinds & {"i", "u"}:
        # integer ids in one file, the same ids stored as floats in another (a column that
        # held a missing value once): the integers they are, not floats for every id
        f = a if a.dtype.kind == "f" else b
        if np.all(f == np.round(f)):
            a, b = a.astype(np.int64), b.astype(np.int64)
    return _distinct(np.concatenate([a, b])), x[1] + y[1]


def _tree(parts, fn):
    """Combine a list of delayed values pairwise with ``fn`` (depth ``log2 P``)."""
    dask, _ = dask_modules()
    step = dask.delayed(fn, pure=True)
    while len(parts) > 1:
        parts = [step(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return parts[0]


def share_with_workers(obj):
    """``obj`` for use in many tasks, sent once to each worker: scattered with ``broadcast``
    when a ``distributed`` client is active (so it is neither embedded in the task graph nor
    copied per task), else a ``dask.delayed`` constant (local schedulers)."""
    dask, _ = dask_modules()
    try:
        from distributed import get_client
        client = get_client()
    except (ImportError, ValueError):
        return dask.delayed(obj)
    if getattr(dask.base.get_scheduler(), "__self__", None) is not client:
        return dask.delayed(obj)  # a client exists but another scheduler was chosen
    return client.scatter(obj, broadcast=True, hash=False)


class _IdMap:
    """Node ids -> indices ``0..n-1`` (``labels`` sorted): a subtraction when the ids are the
    integers ``lo..lo+n-1``, a binary search for other numbers, a hash lookup otherwise."""

    def __init__(self, labels: np.ndarray):
        self.n = len(labels)
        self.lo = None
        self.labels = None
        self.index = None
        if labels.dtype.kind in "iu" and (self.n == 0 or int(labels[-1]) - int(labels[0]) == self.n - 1):
            self.lo = int(labels[0]) if self.n else 0
        elif labels.dtype.kind in "iuf":
            self.labels = labels
        else:
            import pandas as pd
            self.index = pd.Index(labels)

    def __call__(self, ids) -> np.ndarray:
        ids = np.asarray(ids)
        if self.lo is not None:
            if self.lo >= 2 ** 63:  # uint64 ids above int64's range (hashed ids)
                return (ids.astype(np.uint64) - np.uint64(self.lo)).astype(np.int64)
            return ids.astype(np.int64) - self.lo
        if self.labels is not None:
            return np.searchsorted(self.labels, ids).astype(np.int64)
        return self.index.get_indexer(ids).astype(np.int64)


def _split_partition(df, p, u, v, weight, idmap, bounds, folder):
    """One input partition: ids -> indices, self-loops dropped, each edge written in both
    directions ``(i, j), (j, i)`` to ``folder``, ordered by the row block of its first index.
    Returns the offsets of the ``B`` row blocks in the files (``B + 1`` numbers)."""
    i, j = idmap(df[u].to_numpy()), idmap(df[v].to_numpy())
    keep = i != j
    i, j = i[keep], j[keep]
    rows, cols = np.concatenate([i, j]), np.concatenate([j, i])
    B = len(bounds) - 1
    block = np.searchsorted(bounds, rows, side="right") - 1
    # a stable sort of small integers is numpy's radix sort: O(rows)
    order = np.argsort(block.astype(np.int16) if B < 2**15 else block, kind="stable")
    itype = np.int32 if bounds[-1] < 2**31 else np.int64
    np.save(os.path.join(folder, f"p{p:06d}-rows.npy"), rows[order].astype(itype))
    np.save(os.path.join(folder, f"p{p:06d}-cols.npy"), cols[order].astype(itype))
    if weight is not None:
        w = df[weight].to_numpy(dtype=np.float64)[keep]
        np.save(os.path.join(folder, f"p{p:06d}-w.npy"), np.concatenate([w, w])[order])
    counts = np.bincount(block, minlength=B)
    return np.concatenate([[0], np.cumsum(counts)])


class _Block:
    """Rows ``lo..hi-1`` of the symmetric weight matrix as a CSR block ``(hi - lo) x n`` with
    sorted column indices, int32 indices where they fit, and the narrowest exact data type:
    ``bool`` when every weight is 1 (an unweighted graph: 5 bytes per stored entry instead of
    12), ``float32`` when every weight is a float32 number, else ``float64``. Products convert
    the data to float64, so ``A @ X`` is exactly the float64 CSR product. ``merged`` and
    ``zeros`` count the repeated entries merged and the weight-0 entries dropped (both
    directions: twice the pairs)."""

    __slots__ = ("matrix", "lo", "merged", "zeros", "overflow")

    def __init__(self, matrix, lo, merged, zeros, overflow=None):
        self.matrix, self.lo, self.merged, self.zeros = matrix, lo, merged, zeros
        # (row, column, times listed, largest |weight|) of the first pair whose weights,
        # finite, add up past float64 under duplicates="sum"; None when none does
        self.overflow = overflow


def _build_block(folder, pieces, lo, hi, n, duplicates, weighted):
    """Row block ``lo..hi-1`` from its slices ``(p, start, stop)`` of the partitions' files:
    repeated ``(i, j)`` merged by ``duplicates`` (one sort of the keys ``(i - lo) n + j``)."""
    def load(p, kind, a, b):
        return np.load(os.path.join(folder, f"p{p:06d}-{kind}.npy"), mmap_mode="r")[a:b]

    pieces = [pc for pc in pieces if pc[2] > pc[1]]
    rows = np.concatenate([load(p, "rows", a, b) for p, a, b in pieces] or [np.empty(0, np.int64)])
    cols = np.concatenate([load(p, "cols", a, b) for p, a, b in pieces] or [np.empty(0, np.int64)])
    key = (rows.astype(np.int64) - lo) * n + cols
    del rows, cols
    total = key.size
    w = None
    overflow = None
    if weighted:
        w = np.concatenate([load(p, "w", a, b) for p, a, b in pieces] or [np.empty(0)])
        order = np.argsort(key, kind="stable")
        key, w = key[order], w[order]
        del order
        first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if key.size else key
        if first.size < key.size:
            with np.errstate(over="ignore"):  # an overflow: refused by the client
                merged_w = (np.maximum if duplicates == "max" else np.add).reduceat(w, first)
            bad = np.flatnonzero(~np.isfinite(merged_w))  # the weights are finite (the scan)
            if bad.size:
                k = int(bad[0])
                stop = int(first[k + 1]) if k + 1 < first.size else key.size
                pair_key = int(key[first[k]])
                overflow = (pair_key // n + lo, pair_key % n, stop - int(first[k]),
                            float(np.abs(w).max()))
            w = merged_w
            key = key[first]
    elif duplicates == "sum":
        key = np.sort(key)
        first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if key.size else key
        if first.size < key.size:
            w = np.diff(np.append(first, key.size)).astype(np.float64)  # multiplicities
            key = key[first]
    else:
        key = _distinct(key)
    merged = total - key.size
    zeros = 0
    if w is not None:
        nonzero = w != 0
        zeros = int(key.size - np.count_nonzero(nonzero))
        if zeros:
            key, w = key[nonzero], w[nonzero]
    local = key // n
    cols = (key - local * n)
    nnz = key.size
    itype = np.int32 if max(n, nnz) < 2**31 else np.int64
    indptr = np.zeros(hi - lo + 1, dtype=itype)
    np.cumsum(np.bincount(local, minlength=hi - lo), out=indptr[1:])
    del key, local
    if w is None or np.all(w == 1.0):
        data = np.ones(nnz, dtype=bool)
    elif _float32_exact(w):
        data = w.astype(np.float32)
    else:
        data = w
    A = sp.csr_array((data, cols.astype(itype), indptr), shape=(hi - lo, n))
    A.has_sorted_indices = True
    return _Block(A, lo, merged, zeros, overflow)


def _float32_exact(w: np.ndarray) -> bool:
    """Whether float32 holds every weight of ``w`` exactly (a weight past float32's range,
    3.4e38, does not: its cast overflows to inf, without numpy's warning)."""
    with np.errstate(over="ignore"):
        return np.array_equal(w.astype(np.float32), w)


def _block_summary(block):
    """``([stored entries, merged, zeros, min w, max w, sum w, all ones], row sums,
    overflow)`` (``overflow``: :class:`_Block`'s)."""
    A = block.matrix
    if A.nnz:
        d = A.data
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow: refused by the client
            stats = [A.nnz, block.merged, block.zeros, float(d.min()), float(d.max()),
                     float(np.sum(d, dtype=np.float64)), float(d.dtype == bool)]
    else:
        stats = [0, block.merged, block.zeros, np.inf, -np.inf, 0.0, 1.0]
    # row sums as GraphData.degrees computes them (the same float64 additions, same order)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = np.asarray(A.astype(np.float64).sum(axis=1)).ravel()
    return np.array(stats, dtype=np.float64), rows, block.overflow


def _block_matmul(block, X):
    return np.asarray(block.matrix @ X)


def _block_cuts(block, P):
    """Twice the cut weight, within this block's rows, of each column of the boolean ``P``."""
    A = block.matrix
    rows = np.repeat(np.arange(block.lo, block.lo + A.shape[0]), np.diff(A.indptr))
    w = A.data.astype(np.float64)
    return np.array([w @ (P[rows, k] != P[A.indices, k]) for k in range(P.shape[1])])


def _block_upper(block):
    """The block's entries with ``i < j`` as a DataFrame ``(i, j, w)`` (the canonical edges)."""
    import pandas as pd

    A = block.matrix.tocoo()
    i = A.row.astype(np.int64) + block.lo
    j = A.col.astype(np.int64)
    keep = i < j
    return pd.DataFrame({"i": i[keep], "j": j[keep], "w": A.data[keep].astype(np.float64)})


#: the fewest stored entries of a default row block made for the input partitions' sake
MIN_BLOCK_ENTRIES = 2**20


def _default_blocks(entries: int, npartitions: int, n: int) -> int:
    """Row blocks: at most ``2**24`` stored entries (about 84 MB unweighted) each; one per input
    partition (passes in parallel) as long as blocks keep ``MIN_BLOCK_ENTRIES``; at most ``n``.
    Each block reads a slice of every partition's spill files, ``P B`` reads in all: one block
    per partition made many small partitions (Spark's 200 part files) quadratic (300
    partitions of 1e5 edges: 90,000 file opens, 20 s instead of 0.3 s)."""
    many = min(npartitions, -(-entries // MIN_BLOCK_ENTRIES))
    return int(max(1, min(max(n, 1), max(many, -(-entries // 2**24)))))


def from_dask(ddf, *, u: str = "u", v: str = "v", weight: str | None = "weight",
              duplicates: str = "max", spill_dir: str | None = None, blocks: int | None = None,
              source: str = "dask DataFrame", nodes=None) -> "DaskGraph":
    """A :class:`DaskGraph` from a Dask DataFrame of edges (columns ``u``, ``v``, optional
    ``weight``; no ``weight`` column means weight 1).

    Three passes, none of which shuffles and none of which holds more than one partition or
    one row block in a task:

    1. each partition's distinct ids and row statistics (self-loops, non-finite weights),
       combined in a tree (the union of sorted ids): the labels, sorted;
    2. each partition maps its ids to ``0..n-1``, drops self-loops and writes every edge in both
       directions to ``spill_dir``, ordered by row block (``blocks`` equal ranges of rows);
    3. each row block reads its slices of those files, merges repeated pairs (``duplicates``;
       both directions of a pair are in the same blocks, so the result stays symmetric), drops
       weight-0 edges (with a warning, as the in-memory reader), and is kept in the workers'
       memory as a CSR block (``dask.persist``), which every later pass reuses.

    ``spill_dir`` (default: a temporary folder removed with the object) must be visible to
    every worker, e.g. shared storage on a multi-machine cluster; it holds ``8`` bytes per
    edge and direction (``16`` with weights) until the graph is released, so that a lost block
    can be rebuilt.

    ``nodes`` is the public node set, as for :func:`dpgraph.io.read_graph`: an integer ``N``
    (ids ``0..N-1``) or the labels; nodes without an edge become isolated nodes and an id not
    in it is refused. Edge files name only nodes with an edge, so without it a node whose only
    edge is removed vanishes from every answer (docs/privacy.md 4). The labels are kept sorted,
    as the ids are.

    Under ``duplicates="sum"`` a node pair whose rows' weights add up past float64 is refused
    with a :class:`~dpgraph.graph.WeightSumOverflowError` naming the pair and each row that
    lists it, by partition and index label (one more pass over the partitions).
    """
    return _from_frame(ddf, u=u, v=v, weight=weight, duplicates=duplicates,
                       spill_dir=spill_dir, blocks=blocks, source=source, nodes=nodes)


def _from_frame(ddf, *, u, v, weight, duplicates, spill_dir, blocks, source, nodes,
                check_labels=None, locate=None) -> "DaskGraph":
    """:func:`from_dask`, with ``check_labels(labels, float_ids=...)`` called on the sorted
    ids of the scan pass before anything is written (:func:`read_edge_files`' id rule;
    ``float_ids``: some partition read its ids as floats), and ``check_labels.explain()``
    naming the file and line where the partitions' ids are of different types; ``locate``
    names where a node pair whose summed weights overflow is listed
    (:func:`_pair_overflow`; default: by partition and index, :func:`_frame_locator`)."""
    dask, dd = dask_modules()

    if duplicates not in _DUPLICATES:
        raise ValueError(f"duplicates={duplicates!r} is not one of {_DUPLICATES}")
    if nodes is not None:  # priced before any pass: a node set that cannot fit is refused
        from dpgraph.io.base import check_node_set

        check_node_set(nodes, source)
    weight = _check_columns(ddf, u, v, weight, source)
    parts = ddf.to_delayed()
    scan = [dask.delayed(_partition_scan, pure=True)(p, u, v, weight) for p in parts]
    try:
        try:
            ids, stats = _tree(scan, _combine_scans).compute()
        except (TypeError, ValueError):
            # ids of different types in different partitions: the row that breaks the files'
            # id rule, where they have one, says more than the types do
            where = check_labels.explain() if check_labels is not None else None
            if where is not None:
                raise _BadRow(f"{source}: {where}") from None
            raise
    except _BadRow:
        raise
    except TypeError as exc:
        raise ValueError(f"{source}: node ids are not of one type across partitions ({exc}); "
                         f"the edge partitions are not consistent: cast the u and v columns to "
                         f"one type (e.g. all str)") from exc
    except ValueError as exc:  # e.g. ids parsed as int in one file, str in another
        first = " ".join(str(exc).split())[:400]
        if "missing node ids" in first:
            raise ValueError(f"{source}: {first}") from exc
        raise ValueError(f"{source}: the edge partitions are not consistent (node ids or "
                         f"weights of different types in different files or partitions?; cast "
                         f"u and v to one type): {first}") from exc
    rows_in, loops, nonfinite, float_parts = (int(s) for s in stats)
    if nonfinite:
        raise ValueError(f"{source}: {nonfinite} edge weight(s) are NaN or infinite; weights "
                         f"must be finite")
    labels = _check_labels(ids, source)
    if check_labels is not None:
        check_labels(labels, float_ids=float_parts > 0)
    if nodes is not None:
        labels = _public_labels(labels, nodes, source)
    n = len(labels)
    B = _default_blocks(2 * (rows_in - loops), ddf.npartitions, n) if blocks is None else int(blocks)
    if not 1 <= B <= max(n, 1):
        raise ValueError(f"blocks={blocks!r} must be between 1 and n = {n}")
    bounds = (np.arange(B + 1, dtype=np.int64) * n) // B
    folder = tempfile.mkdtemp(prefix="dpgraph-edges-", dir=spill_dir)
    try:
        idmap = share_with_workers(_IdMap(labels))
        split = [dask.delayed(_split_partition, pure=False)(p, k, u, v, weight, idmap, bounds,
                                                            folder)
                 for k, p in enumerate(parts)]
        offsets = dask.compute(*split)
        built = [dask.delayed(_build_block, pure=False)(
            folder, [(p, int(off[b]), int(off[b + 1])) for p, off in enumerate(offsets)],
            int(bounds[b]), int(bounds[b + 1]), n, duplicates, weight is not None)
            for b in range(B)]
        built = dask.persist(*built)
        summaries = dask.compute(*[dask.delayed(_block_summary, pure=True)(b) for b in built])
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    overflows = [o for *_, o in summaries if o is not None]
    summaries = [(s, d) for s, d, _ in summaries]
    if overflows:  # repeats whose weights add up past float64 under duplicates="sum"
        shutil.rmtree(folder, ignore_errors=True)
        raise _pair_overflow(overflows[0], _client_labels(labels), source,
                             locate or _frame_locator(parts, u, v), idmap)
    stats = np.sum([s for s, _ in summaries], axis=0) if summaries else np.zeros(7)
    entries, merged, zeros = (int(x) for x in stats[:3])
    degrees = (np.concatenate([d for _, d in summaries]) if summaries else np.zeros(0))
    m = entries // 2
    if merged:
        if duplicates == "error":
            shutil.rmtree(folder, ignore_errors=True)
            raise ValueError(f"{source}: {merged // 2} repeated node pair(s) (counting both "
                             f"directions); pass duplicates='max' or 'sum'")
        kept = "the largest weight kept" if duplicates == "max" else "the weights added"
        warnings.warn(f"{source}: {merged // 2} repeated node pair(s) merged under "
                      f"duplicates={duplicates!r}, {kept}", DuplicateEdgeWarning, stacklevel=caller_stacklevel())
    if loops:
        warnings.warn(f"{source}: dropped {loops} self-loop(s)", GraphInputWarning, stacklevel=caller_stacklevel())
    if zeros:
        warnings.warn(f"{source}: removed {zeros // 2} edge(s) of weight 0", GraphInputWarning,
                      stacklevel=caller_stacklevel())
    lo_w = min((float(s[3]) for s, _ in summaries), default=np.inf)
    hi_w = max((float(s[4]) for s, _ in summaries), default=-np.inf)
    peak = max(abs(lo_w), abs(hi_w)) if entries else 0.0
    if peak * entries > FLOAT_MAX:  # sums that may overflow: refused as read_graph's are
        error = weight_sums_error(source, degrees, float(stats[5]), peak, _client_labels(labels))
        if error is not None:
            shutil.rmtree(folder, ignore_errors=True)
            raise error
    graph = DaskGraph(tuple(built), _client_labels(labels), m=m, degrees=degrees,
                      weight_stats=(lo_w, hi_w, float(stats[5]) / 2.0,
                                    bool(all(s[6] for s, _ in summaries))),
                      source=source)
    weakref.finalize(graph, shutil.rmtree, folder, ignore_errors=True)
    return graph


def _client_labels(labels: np.ndarray) -> tuple | range:
    """The sorted distinct ids as the client keeps them (as :class:`~dpgraph.graph.GraphData`
    does): ``range(lo, lo + n)`` when they are the integers ``lo..lo+n-1``, so the client holds
    no Python int per node; a tuple of Python values otherwise."""
    n = len(labels)
    if n and labels.dtype.kind in "iu" and int(labels[-1]) - int(labels[0]) == n - 1:
        return range(int(labels[0]), int(labels[0]) + n)
    return tuple(labels.tolist())


class _Listings(NamedTuple):
    """Where a node pair is listed: ``places`` (``"p0.csv line 2"``, ``"partition 0 index
    3"``), and the file and line of the first (``path`` None for a Dask DataFrame; ``line``
    None where the file has no lines, as a Parquet file)."""
    places: list
    path: str | None = None
    line: int | None = None


def _pair_overflow(overflow: tuple, labels, source: str, locate, idmap) -> ValueError:
    """The refusal of the node pair whose listings' weights add up past float64 under
    ``duplicates="sum"`` (``overflow``: :class:`_Block`'s), naming its listings: the file and
    line of each in edge files (a :class:`~dpgraph.io.base.WeightSumFormatError`, as
    :func:`dpgraph.read_graph` names them), the partition and index of each in a Dask
    DataFrame. ``locate(i, j, idmap)`` (:func:`_frame_locator`, :func:`_file_locator`) finds
    them in one more pass over the input, made only here."""
    from dpgraph.io.base import WeightSumFormatError

    row, col, listed, peak = overflow
    i, j = min(row, col), max(row, col)
    pair = tuple(x.item() if isinstance(x, np.generic) else x for x in (labels[i], labels[j]))
    rule = "duplicates='sum'"
    found = locate(i, j, idmap)
    problem = summed_pair_problem(pair, rule, peak, listed=listed, places=found.places or None)
    if found.path is None:
        return WeightSumOverflowError(f"{source}: {problem}", source=source, pair=pair,
                                      rule=rule, peak=peak)
    err = WeightSumFormatError(found.path, found.line, None, None, problem=problem)
    err.source, err.pair, err.entries, err.rule, err.peak = (found.path, pair, None, rule, peak)
    return err


def _listing_rows(df, u, v, idmap, i: int, j: int) -> np.ndarray:
    """0-based positions of the rows of ``df`` (one partition or file) that list the node pair
    of indices ``i``, ``j``, either way round (ids mapped as the graph maps them)."""
    a, b = idmap(df[u].to_numpy()), idmap(df[v].to_numpy())
    return np.flatnonzero(((a == i) & (b == j)) | ((a == j) & (b == i)))


def _frame_locator(parts, u, v):
    """``locate`` of :func:`_pair_overflow` for a Dask DataFrame: one pass over its
    partitions ``parts``, each naming the index labels of its rows that list the pair."""
    def locate(i, j, idmap):
        dask, _ = dask_modules()

        def index_of(df, idmap):
            return [x.item() if isinstance(x, np.generic) else x
                    for x in df.index[_listing_rows(df, u, v, idmap, i, j)]]
        found = dask.compute(*[dask.delayed(index_of, pure=True)(p, idmap) for p in parts])
        return _Listings([f"partition {k} index {x!r}" for k, xs in enumerate(found)
                          for x in xs])
    return locate


def _file_locator(files: list, read_ids, lines):
    """``locate`` of :func:`_pair_overflow` for edge files: one task per file reads its id
    columns (``read_ids(path)``, a DataFrame of the ``u``, ``v`` ids as the reader reads
    them) and names its rows that list the pair, by line (``lines(path, rows)``: a CSV
    file's line numbers of its 0-based edge rows, :func:`dpgraph.io.text.csv_row_lines`) or,
    where ``lines`` is None (Parquet), by row (counted from 1)."""
    def locate(i, j, idmap):
        dask, _ = dask_modules()

        def where(path, idmap):
            df = read_ids(path)
            rows = _listing_rows(df, df.columns[0], df.columns[1], idmap, i, j)
            return [int(x) for x in (lines(path, rows) if lines else rows + 1)]
        found = dask.compute(*[dask.delayed(where, pure=True)(f, idmap) for f in files])
        word = "line" if lines else "row"
        places = [f"{os.path.basename(f)} {word} {x}" for f, xs in zip(files, found) for x in xs]
        first = next(((f, xs[0]) for f, xs in zip(files, found) if xs), (None, None))
        if first[0] is None:  # (not found again: the files changed since they were read)
            return _Listings([])
        return _Listings(places, first[0], first[1] if lines else None)
    return locate


def _check_labels(values, source):
    """The sorted distinct ids of the scan pass, refusing ids of mixed types."""
    kinds = {type(x) for x in values[: min(len(values), 100000)]} if values.dtype == object else set()
    kinds = {int if issubclass(k, (int, np.integer)) else k for k in kinds}
    if len(kinds) > 1:
        raise ValueError(f"{source}: node ids are not of one type across partitions (found "
                         f"{sorted(k.__name__ for k in kinds)}); cast the u and v columns to one "
                         f"type (e.g. all str)")
    if values.dtype == object and kinds == {int}:
        values = values.astype(np.int64)
    return values


def _public_labels(ids: np.ndarray, nodes, source: str) -> np.ndarray:
    """The public node set ``nodes`` (:func:`dpgraph.graph.public_nodes`) as sorted labels,
    refusing an id of the edges that it does not hold."""
    from dpgraph.graph import public_nodes

    given = public_nodes(nodes)
    if isinstance(given, range) and given.step == 1:
        labels = np.arange(given.start, given.stop, dtype=np.int64)
    else:
        values = list(given)
        ints = all(isinstance(x, int) for x in values)
        if ints and any(not -2 ** 63 <= x < 2 ** 63 for x in values):
            raise ValueError(f"{source}: nodes holds an id beyond 64-bit integers, which edge "
                             f"files cannot hold")
        if not ints and not all(isinstance(x, str) for x in values):
            kinds = sorted({type(x).__name__ for x in values})
            raise ValueError(f"{source}: nodes mixes {', '.join(kinds)}; edge files hold ids "
                             f"of one type (integers or strings): give nodes of that type")
        labels = np.sort(np.array(values, dtype=np.int64 if ints else object))
    if ids.dtype.kind == "f" and labels.dtype.kind in "iu" and ids.size \
            and np.all(ids == np.round(ids)) and np.all(np.abs(ids) < 2.0 ** 53):
        # integer ids stored as floats in every file (a column that once held a missing
        # value): the integers they are, which integer nodes can name
        ids = ids.astype(np.int64)
    # numbers compare with numbers (an id 0.5 is missing from integer nodes, named as such)
    same_kind = (ids.dtype.kind in "iuf") == (labels.dtype.kind in "iuf")
    missing = ids[~np.isin(ids, labels)] if same_kind else ids
    if missing.size:
        kind = {True: "integers", False: "not integers"}
        hint = ("" if same_kind else
                f" (the edges' ids are {kind[ids.dtype.kind in 'iu']}, the nodes "
                f"{kind[labels.dtype.kind in 'iu']}: give nodes of the ids' type)")
        first = missing[0].item() if isinstance(missing[0], np.generic) else missing[0]
        raise ValueError(f"{source}: {missing.size:,} node(s) with an edge are not in nodes, "
                         f"e.g. {first!r}{hint}; nodes is the public node set and must hold "
                         f"every node of the graph")
    return labels


# ----------------------------------------------------------------------------- the graph


class DaskAdjacency:
    """The symmetric ``n x n`` weight matrix of a :class:`DaskGraph` as an operator:
    ``A @ X`` is one Dask pass: ``X`` is sent once to each worker, each row block computes its
    rows of the product, and the client concatenates them (``O(n k)`` moved in all, whatever
    the number of blocks)."""

    def __init__(self, graph: "DaskGraph"):
        self._graph = graph
        self.shape = (graph.n, graph.n)
        self.dtype = np.dtype(np.float64)

    def __matmul__(self, X):
        dask, _ = dask_modules()
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] != self.shape[1]:
            raise ValueError(f"DaskAdjacency @ X: X has {X.shape[0]} rows, expected "
                             f"n = {self.shape[1]}")
        Xs = share_with_workers(X)
        parts = dask.compute(*[dask.delayed(_block_matmul, pure=True)(b, Xs)
                               for b in self._graph.blocks])
        return np.concatenate(parts, axis=0) if parts else np.zeros(X.shape)

    def __repr__(self) -> str:
        return f"DaskAdjacency(shape={self.shape}, blocks={len(self._graph.blocks)})"


class DaskGraph:
    """An undirected weighted graph kept on Dask as row blocks of its symmetric weight matrix
    (one CSR block per range of rows, in the workers' memory), with its node labels, degrees
    and weight statistics on the client. Use :func:`from_dask` or :func:`read_edge_files`.

    Attributes: ``n``, ``m`` (distinct pairs), ``labels`` (sorted ids: a ``range`` when they
    are consecutive integers, else a tuple), ``blocks`` (persisted Dask values),
    ``weights`` (a :class:`DaskAdjacency`), ``degrees``, ``total_weight``, ``weight_range``,
    ``is_unweighted``, and ``edges``: the canonical edge list ``(i < j, w)`` as a Dask
    DataFrame (built from the blocks on demand).
    """

    def __init__(self, blocks: tuple, labels: tuple | range, *, m: int, degrees: np.ndarray,
                 weight_stats: tuple, source: str = "dask"):
        self.blocks = blocks
        self.labels = labels
        self.m = int(m)
        self.degrees = degrees
        self._weight_stats = weight_stats
        self.source = source
        self.weights = DaskAdjacency(self)

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def weight_range(self) -> tuple[float, float]:
        """(smallest, largest) edge weight; (0, 0) without edges."""
        lo, hi = self._weight_stats[:2]
        return (0.0, 0.0) if self.m == 0 else (float(lo), float(hi))

    @property
    def total_weight(self) -> float:
        """Sum of the edge weights, each edge once."""
        return float(self._weight_stats[2])

    @property
    def is_unweighted(self) -> bool:
        return bool(self._weight_stats[3])

    @cached_property
    def edges(self):
        """The canonical edge list ``(i < j, w)`` as a Dask DataFrame, one partition per block."""
        dask, dd = dask_modules()
        return dd.from_delayed([dask.delayed(_block_upper, pure=True)(b) for b in self.blocks],
                               meta={"i": "i8", "j": "i8", "w": "f8"}, verify_meta=False)

    def cut_values(self, P) -> np.ndarray:
        """Cut weight of each column of ``P`` (``n x k``, entries +-1 or 0/1 sides): one pass
        (each block counts its rows' cut entries; every edge is seen twice, once per row)."""
        dask, _ = dask_modules()
        P = np.asarray(P)
        P = (P.reshape(self.n, -1) > 0)
        Ps = share_with_workers(P)
        parts = dask.compute(*[dask.delayed(_block_cuts, pure=True)(b, Ps) for b in self.blocks])
        return np.atleast_1d(np.sum(parts, axis=0) / 2.0).astype(np.float64)

    def to_graph_data(self):
        """Collect the whole graph on the client as :class:`~dpgraph.graph.GraphData` (for
        graphs that fit in memory: tests, comparisons)."""
        dask, _ = dask_modules()
        from dpgraph.graph import from_matrix

        mats = [b.matrix.astype(np.float64) for b in dask.compute(*self.blocks)]
        A = sp.vstack(mats, format="csr") if mats else sp.csr_array((self.n, self.n))
        return from_matrix(A, self.labels, source=self.source)

    def __repr__(self) -> str:
        return (f"DaskGraph(n={self.n}, m={self.m}, blocks={len(self.blocks)}, "
                f"source={self.source!r})")
