r"""Max-2-CSP instances from files: dpgraph's text format, Max-k-Cut of a graph, Max-2-SAT.

Formats read by :func:`read_csp` (``dpgraph.read_csp``, ``format=``):

``"csp"``
    dpgraph's own text format (written by :func:`write_csp`), plain text, ``#`` starts a
    comment::

        p csp <n> <q> <m>          # header: variables, alphabet size, number of constraints
        # name: <i> <name>         # optional, after the header: variable i's name, a JSON
                                   # string or integer ("alice", 7); all n or none
        c <i> <j> <w> a,b a,b ...  # one line per constraint: 0-indexed variables i != j,
                                   # weight w, then the allowed pairs (x_i, x_j) = (a, b),
                                   # values in 0..q-1

    The ``# name:`` lines are comments to other readers; :func:`read_csp` gives the instance
    those names (:attr:`CSPInstance.names`), and :func:`write_csp` writes them for an instance
    whose names are strings or integers (a graph's node labels: :func:`max_k_cut_instance`).
``"max-k-cut"`` (with ``k``)
    Any graph file :func:`dpgraph.read_graph` reads (G-set / rudy, SNAP, Matrix Market, ...);
    each edge ``{u, v}`` of weight w becomes the constraint "``x_u != x_v``" of weight w over
    the alphabet ``range(k)``: the value of an assignment is the weight of the k-cut it
    defines. Variable i is the graph's i-th node (its label: ``dpgraph.read_graph(path)
    .labels[i]``, or build the instance from the graph with :func:`max_k_cut_instance`).
    Negative edge weights are refused (a 2-CSP weight is >= 0).
``"cnf"``, ``"wcnf"``
    Max-2-SAT (q = 2, label 1 = true) in the DIMACS CNF format (``p cnf <vars> <clauses>``,
    every clause weight 1) or the MaxSAT-evaluation WCNF formats: the pre-2022 one
    (``p wcnf <vars> <clauses> [<top>]``, each clause line starts with its weight; a weight
    >= top marks a hard clause) and the 2022 one (no ``p`` line; ``h <lits> 0`` hard,
    ``<w> <lits> 0`` soft). Literals are non-zero integers (``-v`` is "not x_v"), variables
    ``1..vars``, each clause ends with ``0``. Only clauses of length 1 or 2 fit a 2-CSP: a unit
    clause ``(l)`` becomes a constraint between its variable and another one (any: the relation
    ignores it); ``(l or l)`` is the unit clause, ``(x or -x)`` is always satisfied. Hard
    clauses, longer clauses and empty clauses are refused with the line named. A line ``%``
    ends the clauses (SATLIB's files end with ``%`` and ``0``); only ``0`` and comments may
    follow it.

A file of any of these formats may be gzip-compressed: it is told from the content (the gzip
bytes ``1f 8b``), whatever its name, as :func:`dpgraph.read_graph` does; a ``.gz`` name is
stripped before the format is read from the extension (``x.wcnf.gz`` is ``"wcnf"``), and a file
named ``.gz`` that is not gzip is read as it is, with a
:class:`~dpgraph.graph.GraphInputWarning` naming it. A pipe (``/dev/stdin``) is read as it is.

Every error names the file and the line (a gzip stream cut short or corrupted: the line being
read when it broke).
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import math
import os
import re
import zlib

import numpy as np

from dpgraph.engine.twocsp import CSPInstance, instance_bytes, label_graph_bytes
from dpgraph.graph import as_undirected_data, in_label_order
from dpgraph.io import atomic_output, read_graph
from dpgraph.io.base import is_regular_file, open_binary, warn_if_not_gzip
from dpgraph.memory import InsufficientMemoryError, check_memory, largest_fitting, memory_limit

__all__ = ["read_csp", "write_csp", "max_k_cut_instance", "read_wcnf", "read_max_k_cut", "CSP_FORMATS"]

CSP_FORMATS = ("csp", "max-k-cut", "cnf", "wcnf")


def _not_equal(k: int) -> frozenset:
    return frozenset((a, b) for a in range(k) for b in range(k) if a != b)


def _pairs(R: np.ndarray) -> frozenset:
    # pairs, not a matrix: CSPInstance reads a 2 x 2 array as two pairs
    return frozenset((int(a), int(b)) for a, b in zip(*np.nonzero(R)))


def max_k_cut_instance(G, k: int, *, weight: str = "weight"):
    r"""The Max-k-Cut of a graph as a 2-CSP: one "``x_u != x_v``" constraint per edge, q = k.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts; edge weights must be >= 0.
    k : int
        Number of parts (alphabet size), at least 2.

    Returns
    -------
    CSPInstance
        Variable i is the graph's node of the ``i``-th label in sorted order
        (:func:`dpgraph.graph.in_label_order`), its name
        (:attr:`CSPInstance.names`): :func:`dpgraph.max_2csp` keys the assignment by the labels.

    Examples
    --------
    >>> import networkx as nx
    >>> inst = max_k_cut_instance(nx.cycle_graph(5), 3)
    >>> inst.n, inst.q, inst.m, inst.value([0, 1, 0, 1, 2])
    (5, 3, 5, 5.0)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    # the nodes in sorted label order, a function of the node set alone: an order the graph
    # object took from its edges would show in a private answer's assignment (privacy.md 4.14)
    # as the solvers: no symmetrize= here, so a directed graph is pointed to as_graph_data
    data = in_label_order(as_undirected_data(G, weight=weight))
    W = data.weights.tocoo()
    keep = W.row < W.col
    r, c, w = W.row[keep], W.col[keep], W.data[keep]
    if w.size and w.min() < 0:
        j = int(np.argmin(w))
        raise ValueError(f"edge ({data.labels[r[j]]!r}, {data.labels[c[j]]!r}) has weight {w[j]:g}; "
                         f"Max-k-Cut as a 2-CSP needs weights >= 0")
    # refuse before allocating: the instance holds one k x k relation shared by every edge
    # and a k x k row per edge, and the label-extended graph k (k - 1) pairs per edge over
    # n k vertices
    m, k = int(r.size), int(k)
    need = _max_k_cut_bytes(data.n, m, k)
    have = memory_limit()[0]
    fewer_edges = ""
    if have is not None and need > have and _max_k_cut_bytes(data.n, m, 2) > have:
        # not even k = 2 fits: name the edges that would, at this k and at k = 2 (a function
        # of n, k and the limit only)
        at_k = largest_fitting(lambda x: _max_k_cut_bytes(data.n, x, k), have)
        at_2 = largest_fitting(lambda x: _max_k_cut_bytes(data.n, x, 2), have)
        fewer_edges = ("Not even k = 2 parts fit on these edges; " + (
            f"at most {at_k:,} edges fit with k = {k:,}" + (
                f" ({at_2:,} with k = 2)" if k > 2 else "") + " on these nodes."
            if at_2 >= 1 else "no edge fits on these nodes."))
    check_memory(need,
                 what=f"Max-k-Cut with k = {k:,} parts on {data.n:,} nodes and {m:,} edges",
                 alternative=fewer_edges,
                 fit=(lambda x: _max_k_cut_bytes(data.n, m, max(x, 2)),
                      "At most k = {:,} parts fit."))
    # one relation object for every edge: CSPInstance parses it once and every constraint
    # shares it; the edges are handed over one at a time (the instance's own objects, with
    # the integers and floats of these lists)
    R = _not_equal(k)
    inst = CSPInstance(data.n, k, zip(r.tolist(), c.tolist(), itertools.repeat(R), w.tolist()))
    return inst.with_names(data.labels)


def _max_k_cut_bytes(n: int, m: int, k: int) -> int:
    """The instance, one relation shared by its ``m`` constraints
    (:func:`~dpgraph.engine.twocsp.instance_bytes`), and its label-extended graph
    (:func:`~dpgraph.engine.twocsp.label_graph_bytes`)."""
    return instance_bytes(m, k, 1) + label_graph_bytes(n, k, m * k * (k - 1))


def read_max_k_cut(path, k: int, *, graph_format: str | None = None):
    """Read a graph file (:func:`dpgraph.read_graph`) as its Max-k-Cut 2-CSP instance."""
    if k is None:
        raise ValueError("format='max-k-cut' needs k (the number of parts)")
    data = read_graph(path, format=graph_format)
    try:
        return max_k_cut_instance(data, k)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _clause_relation(lits, n_vars, where):
    """(i, j, 2x2 relation) of a clause of 1 or 2 literals over variables 1..n_vars."""
    for lit in lits:
        if not 1 <= abs(lit) <= n_vars:
            raise ValueError(f"{where}: literal {lit} names a variable outside 1..{n_vars}")
    if len(set(lits)) == 1:
        lits = [lits[0]]
    R = np.zeros((2, 2))
    if len(lits) == 1:
        v = abs(lits[0]) - 1
        if n_vars < 2:
            raise ValueError(f"{where}: a unit clause needs a second variable to pair with "
                             f"(the instance has only one)")
        other = (v + 1) % n_vars
        R[int(lits[0] > 0), :] = 1.0
        return v, other, R
    a, b = lits
    i, j = abs(a) - 1, abs(b) - 1
    if i == j:  # (x or not x): always satisfied
        other = (i + 1) % n_vars
        if n_vars < 2:
            raise ValueError(f"{where}: a tautology on the only variable cannot be a 2-CSP "
                             f"constraint")
        return i, other, np.ones((2, 2))
    R[int(a > 0), :] = 1.0
    R[:, int(b > 0)] = 1.0
    return i, j, R


def read_wcnf(path, *, format: str | None = None, variables: int | None = None):
    """Read a Max-2-SAT instance (CNF or WCNF, module docstring) as a 2-CSP with q = 2.

    A gzip-compressed file is read transparently (told from the content; the format from the
    name without its ``.gz``), as :func:`read_csp` reads one.

    ``variables``: the public number of variables. A file with a ``p`` line declares it; a
    2022-format WCNF file (no ``p`` line) does not, and without ``variables`` its count is
    the largest variable its clauses name, which is private: a clause added on a new variable
    changes it, and with it the length of every answer (docs/privacy.md 6). Given with a ``p``
    line, it must agree with it.

    Raises ValueError naming the file and line for malformed content, clauses longer than 2,
    hard clauses, literals out of range and a clause count that disagrees with the header.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x.wcnf")
    >>> _ = open(p, "w").write("p wcnf 2 2 10\\n3 1 -2 0\\n1 2 0\\n")
    >>> inst = read_wcnf(p)
    >>> inst.n, inst.q, inst.value([1, 1]), inst.value([0, 1])
    (2, 2, 4.0, 1.0)

    The variables are named as the file numbers them, ``1..n`` (:attr:`CSPInstance.names`):
    :func:`dpgraph.max_2csp` and :func:`dpgraph.solve_max_2csp` key their assignments so,
    and :meth:`CSPInstance.value` takes an assignment keyed so (variable ``v`` is entry
    ``v - 1`` of an array).

    >>> inst.variables, inst.value({1: 1, 2: 1})
    (range(1, 3), 4.0)
    """
    path_s = os.fspath(path)
    if format is None:
        format = "wcnf" if _name_without_gz(path_s).endswith(".wcnf") else "cnf"
    if format not in ("cnf", "wcnf"):
        raise ValueError(f"format={format!r} is not 'cnf' or 'wcnf'")
    _check_lines_fit(path_s, 2)
    header = None      # (n_vars, n_clauses, top)
    new_style = None   # 2022 WCNF: no p line
    cons = []
    max_var = 0
    ended = None  # the line of SATLIB's end marker '%' (its files end with '%' and '0')
    with _open_instance(path_s) as f:
        for lineno, raw in _decoded_lines(f, path_s):
            line = raw.strip()
            where = f"{path_s}, line {lineno}"
            if not line or line.startswith("c"):
                continue
            if ended is not None:
                if line == "0":
                    continue
                raise ValueError(f"{where}: {line!r} after the end marker '%' of line {ended} "
                                 f"(SATLIB files end with '%' and '0'); clauses come before it")
            if line == "%":
                ended = lineno
                continue
            tok = line.split()
            if tok[0] == "p":
                if header is not None or cons:
                    raise ValueError(f"{where}: the 'p' line must come once, before the clauses")
                want = "cnf" if format == "cnf" else "wcnf"
                if len(tok) < 4 or tok[1] != want or (want == "cnf" and len(tok) != 4) \
                        or (want == "wcnf" and len(tok) > 5):
                    raise ValueError(f"{where}: expected 'p {want} <vars> <clauses>"
                                     f"{' [<top>]' if want == 'wcnf' else ''}', got {line!r}")
                try:
                    nv, nc = int(tok[2]), int(tok[3])
                    top = float(tok[4]) if len(tok) == 5 else math.inf
                except ValueError:
                    raise ValueError(f"{where}: header numbers must be integers") from None
                if nv < 1 or nc < 0:
                    raise ValueError(f"{where}: need at least one variable, got {nv}")
                header = (nv, nc, top)
                new_style = False
                continue
            if header is None:
                if format == "cnf":
                    raise ValueError(f"{where}: clause before the 'p cnf <vars> <clauses>' line")
                new_style = True
            if format == "wcnf":
                if tok[0] == "h":
                    raise ValueError(f"{where}: hard clause; a Max-2-CSP has soft constraints "
                                     f"only (drop the hard clauses or give them a weight)")
                try:
                    w = float(tok[0])
                except ValueError:
                    raise ValueError(f"{where}: expected '<weight> <literals> 0', got {line!r}") from None
                if not new_style and w >= header[2]:
                    raise ValueError(f"{where}: hard clause (weight {tok[0]} >= top "
                                     f"{header[2]:g}); a Max-2-CSP has soft constraints only")
                if not math.isfinite(w) or w < 0:
                    raise ValueError(f"{where}: clause weight {tok[0]} must be finite and >= 0")
                tok = tok[1:]
            else:
                w = 1.0
            try:
                lits = [int(t) for t in tok]
            except ValueError:
                raise ValueError(f"{where}: literals must be integers, got {line!r}") from None
            if not lits or lits[-1] != 0 or 0 in lits[:-1]:
                raise ValueError(f"{where}: a clause is its literals followed by one 0 on one line")
            lits = lits[:-1]
            if not lits:
                raise ValueError(f"{where}: empty clause (never satisfied)")
            if len(lits) > 2:
                raise ValueError(f"{where}: clause of length {len(lits)}; Max-2-SAT (a 2-CSP) "
                                 f"takes clauses of length <= 2")
            max_var = max(max_var, *(abs(v) for v in lits))
            cons.append((lineno, lits, w))
    if header is None and new_style is None:
        raise ValueError(f"{path_s}: no 'p {format} ...' line and no clauses")
    n_vars = header[0] if header is not None else max_var
    if variables is not None:
        variables = _checked_variables(variables)
        if header is not None and header[0] != variables:
            raise ValueError(f"{path_s}: variables={variables} but its 'p' line declares "
                             f"{header[0]}")
        if max_var > variables:
            raise ValueError(f"{path_s}: a clause names variable {max_var}, beyond "
                             f"variables={variables} (the public number of variables)")
        n_vars = variables
    if header is not None and header[1] != len(cons):
        raise ValueError(f"{path_s}: header says {header[1]} clauses, found {len(cons)}")
    # a clause's relation follows its literals' signs (at most seven distinct ones): one
    # frozenset each, shared by the clauses that have it
    relations = {}

    def constraint(ln, lits, w):
        i, j, R = _clause_relation(lits, n_vars, f"{path_s}, line {ln}")
        key = R.tobytes()
        pairs = relations.get(key)
        if pairs is None:
            pairs = relations[key] = _pairs(R)
        return i, j, pairs, w

    out = [constraint(ln, lits, w) for ln, lits, w in cons]
    # named as the file numbers them (1..n), so that an assignment is keyed by the file's
    # variables, as `dpgraph max2csp` reports them (a range: no n-sized tuple of names)
    return CSPInstance(n_vars, 2, out).with_source(
        path_s, [ln for ln, _, _ in cons]).with_names(range(1, n_vars + 1))


def _check_lines_fit(path, q: int) -> None:
    """Refuse, before its constraints are read, a file whose constraint lines (predicted from
    its size) would not fit as a :class:`CSPInstance` over
    ``q`` values (:func:`~dpgraph.engine.twocsp.instance_bytes`). The parse peaks below
    that: 970 B per clause measured with tracemalloc on a 200,000-clause WCNF file, against
    1,220 B priced for its instance."""
    from dpgraph.io.base import predicted_lines

    if not is_regular_file(path):  # a pipe: priced as the instance, after the parse
        return
    # the lines the file can hold: a header that overstates its count is a format error,
    # named after the parse (a gzip file, which the readers decompress, by its lines counted
    # in one streamed pass)
    try:
        m = predicted_lines(path)[0]
    except _BROKEN_GZIP:  # the counting pass reached the break: name its line
        with open_binary(path) as f:
            for _ in _numbered_lines(f, path):
                pass
        raise ValueError(f"{path}: the gzip-compressed file is truncated or corrupted") from None
    check_memory(instance_bytes(m, q),
                 what=f"{path}: an instance of about {m:,} constraint lines over q = {q:,} values",
                 fit=(lambda k: instance_bytes(k, q), "About {:,} constraints fit."))


def write_csp(instance: CSPInstance, path) -> None:
    """Write ``instance`` in dpgraph's ``"csp"`` text format (module docstring).

    Examples
    --------
    >>> import os, tempfile, networkx as nx
    >>> inst = max_k_cut_instance(nx.cycle_graph(5), 3)
    >>> path = os.path.join(tempfile.mkdtemp(), "c5.csp")
    >>> write_csp(inst, path)
    >>> with open(path) as f:
    ...     f.readline()  # the header: n, q, m
    'p csp 5 3 5\\n'
    >>> back = read_csp(path)  # reads back the same instance
    >>> back.constraints == inst.constraints, back.value([0, 1, 0, 1, 2])
    (True, 5.0)

    Named variables (:attr:`CSPInstance.names`, e.g. a graph's node labels) are written as
    ``# name: <i> <name>`` lines, JSON strings or integers, which :func:`read_csp` reads back;
    names of other types are not written, with a :class:`~dpgraph.graph.GraphInputWarning`.

    >>> import dpgraph
    >>> named = max_k_cut_instance(dpgraph.as_graph_data([("a", "b"), ("b", "c")]), 2)
    >>> write_csp(named, path)
    >>> read_csp(path).names
    ('a', 'b', 'c')
    """
    names = _storable_names(instance, path)
    # written whole or not at all: a failed write leaves an existing file as it was
    with atomic_output(path) as raw, io.TextIOWrapper(raw, encoding="utf-8") as f:
        f.write(f"p csp {instance.n} {instance.q} {instance.m}\n")
        if names is not None:
            f.writelines(f"{_NAME_LINE} {i} {json.dumps(name)}\n" for i, name in enumerate(names))
        for i, j, rel, w in instance.constraints:
            pairs = " ".join(f"{a},{b}" for a, b in sorted(rel))
            f.write(f"c {i} {j} {w!r} {pairs}\n".rstrip() + "\n")


#: the comment that starts a variable's name line in the csp format (module docstring)
_NAME_LINE = "# name:"


def _storable_names(instance: CSPInstance, path):
    """The instance's variable names as the csp format writes them (str and int, JSON), or
    None: no names, or names of other types (said by a GraphInputWarning: not written)."""
    if instance.names is None:
        return None
    names = [int(x) if isinstance(x, np.integer) else x for x in instance.names]
    bad = [x for x in names if isinstance(x, bool) or not isinstance(x, (str, int))]
    if not bad:
        return names
    import warnings

    from dpgraph.caller import caller_stacklevel
    from dpgraph.graph import GraphInputWarning

    warnings.warn(f"{path}: the csp format holds variable names that are strings or integers; "
                  f"this instance's names (e.g. {bad[0]!r}, a {type(bad[0]).__name__}) are not "
                  f"written, and the file numbers the variables 0..{instance.n - 1} in their "
                  f"order", GraphInputWarning, stacklevel=caller_stacklevel())
    return None


def _read_name_line(line: str, where: str, n: int | None, names: dict) -> None:
    """One ``# name: <i> <name>`` line into ``names`` (ValueError naming the line)."""
    expected = f"expected '{_NAME_LINE} <i> <name>' with a JSON string or integer name"
    if n is None:
        raise ValueError(f"{where}: a variable name before the 'p csp n q m' header")
    parts = line.strip()[len(_NAME_LINE):].strip().split(None, 1)
    try:
        i = int(parts[0])
        name = json.loads(parts[1])
    except (IndexError, ValueError):
        raise ValueError(f"{where}: {expected}, got {line.strip()!r}") from None
    if isinstance(name, bool) or not isinstance(name, (str, int)):
        raise ValueError(f"{where}: {expected}, got {line.strip()!r}")
    if not 0 <= i < n:
        raise ValueError(f"{where}: names variable {i}, outside 0..{n - 1}")
    if i in names:
        raise ValueError(f"{where}: variable {i} is named twice")
    names[i] = name


def _name_without_gz(path) -> str:
    """The lower-case name of ``path`` without a trailing ``.gz`` (the format's extension)."""
    low = str(path).lower()
    return low[:-3] if low.endswith(".gz") else low


def _open_instance(path):
    """``path`` opened for reading bytes: decompressed when it is gzip (told from the content,
    :func:`dpgraph.io.base.open_binary`), with a :class:`~dpgraph.graph.GraphInputWarning` when
    it is named ``.gz`` but is not gzip (as :func:`dpgraph.read_graph` warns). A pipe is read
    as it is: a look at its first bytes would consume them."""
    if not is_regular_file(path):
        return open(path, "rb")
    warn_if_not_gzip(path)
    return open_binary(path)


# what a gzip stream cut short or corrupted raises while it is read
_BROKEN_GZIP = (EOFError, gzip.BadGzipFile, zlib.error)


def _numbered_lines(f, path):
    """``(line number, bytes)`` of a binary file, with a gzip stream that breaks off or is
    corrupted reported as a ValueError naming the file and the line being read."""
    lines, lineno = iter(f), 0
    while True:
        try:
            raw = next(lines)
        except StopIteration:
            return
        except _BROKEN_GZIP as exc:
            raise ValueError(f"{path}, line {lineno + 1}: the gzip-compressed file is truncated "
                             f"or corrupted ({type(exc).__name__}: {exc})") from None
        lineno += 1
        yield lineno, raw


def _decoded_lines(f, path):
    """``(line number, text)`` of a binary file, with a line that is not UTF-8, or a gzip
    stream that breaks off or is corrupted, reported as a ValueError naming the file and the
    line."""
    for lineno, raw in _numbered_lines(f, path):
        try:
            yield lineno, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}, line {lineno}: not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start} of the line)") from None


def _checked_variables(variables) -> int:
    if isinstance(variables, bool) or not isinstance(variables, (int, np.integer)) \
            or variables < 1:
        raise ValueError(f"variables must be a positive integer (the public number of "
                         f"variables), got {variables!r}")
    return int(variables)


def read_csp(path, format: str | None = None, *, k: int | None = None,
             graph_format: str | None = None, variables: int | None = None) -> CSPInstance:
    """Read a 2-CSP instance: dpgraph's text format, Max-k-Cut of a graph file, Max-2-SAT.

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip-compressed files are read transparently (told from the content: a
        file named ``.gz`` that is not gzip is read as it is, with a
        :class:`~dpgraph.graph.GraphInputWarning` naming it).
    format : {"csp", "max-k-cut", "cnf", "wcnf"}, optional
        See the module docstring. Default: from the extension (``.wcnf``, ``.cnf``; a
        trailing ``.gz`` stripped), else ``"max-k-cut"`` when ``k`` is given, else ``"csp"``.
    k : int, optional
        Number of parts for ``"max-k-cut"`` (e.g. ``read_csp("G3.txt", k=3)``).
    graph_format : str, optional
        Graph file format for ``"max-k-cut"`` (:func:`dpgraph.read_graph`; detected if omitted).
    variables : int, optional
        ``"cnf"`` / ``"wcnf"``: the public number of variables, for a 2022-format WCNF file
        (no ``p`` line), whose count is otherwise read from its clauses (:func:`read_wcnf`).

    Raises ValueError naming the file and line on malformed input.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("3 3\\n1 2 1\\n2 3 1\\n1 3 1\\n")  # a triangle, G-set format
    >>> inst = read_csp(p, "max-k-cut", k=3)
    >>> inst.n, inst.q, inst.m, inst.value([0, 1, 2])
    (3, 3, 3, 3.0)
    """
    if format is None:
        low = _name_without_gz(path)
        format = ("wcnf" if low.endswith(".wcnf") else "cnf" if low.endswith(".cnf")
                  else "max-k-cut" if k is not None else "csp")
    if format not in CSP_FORMATS:
        raise ValueError(f"format={format!r} is not one of {CSP_FORMATS}")
    if variables is not None and format not in ("cnf", "wcnf"):
        raise ValueError(f"variables={variables!r} is only used with format='cnf' or 'wcnf' (a "
                         f"csp file declares n; a graph's nodes are stated by "
                         f"max_k_cut_instance(read_graph(path, nodes=N), k))")
    if format == "max-k-cut":
        return read_max_k_cut(path, k, graph_format=graph_format)
    if k is not None:
        raise ValueError(f"k={k!r} is only used with format='max-k-cut'")
    if format in ("cnf", "wcnf"):
        return read_wcnf(path, format=format, variables=variables)
    header = None
    cons, lines = [], []  # the constraints and their line numbers
    relations = {}  # each distinct relation once (a tuple of its pairs)
    names: dict = {}  # variable -> name, from the '# name:' lines
    with _open_instance(path) as f:
        for lineno, raw in _decoded_lines(f, path):
            if raw.lstrip().startswith(_NAME_LINE):
                _read_name_line(raw, f"{path}, line {lineno}",
                                None if header is None else header[0], names)
                continue
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tok = line.split()
            where = f"{path}, line {lineno}"
            if tok[0] == "p":
                if header is not None:
                    raise ValueError(f"{where}: second header line")
                if len(tok) != 5 or tok[1] != "csp":
                    raise ValueError(f"{where}: expected 'p csp <n> <q> <m>', got {line!r}")
                try:
                    header = tuple(int(t) for t in tok[2:])
                except ValueError:
                    raise ValueError(f"{where}: n, q, m must be integers") from None
                if header[1] >= 1:  # (a q below 1 is refused with the instance, below)
                    _check_lines_fit(path, header[1])
            elif tok[0] == "c":
                if header is None:
                    raise ValueError(f"{where}: constraint before the 'p csp n q m' header")
                if len(tok) < 4:
                    raise ValueError(f"{where}: expected 'c <i> <j> <w> a,b ...', got {line!r}")
                try:
                    i, j, w = int(tok[1]), int(tok[2]), float(tok[3])
                    pairs = [tuple(int(v) for v in p.split(",")) for p in tok[4:]]
                except ValueError:
                    raise ValueError(f"{where}: could not parse {line!r} as 'c <i> <j> <w> a,b ...'") from None
                if any(len(p) != 2 for p in pairs):
                    raise ValueError(f"{where}: relation pairs must be written a,b")
                # equal relations share one tuple, which the instance parses once
                pairs = relations.setdefault(tuple(pairs), tuple(pairs))
                cons.append((i, j, pairs, w))
                lines.append(lineno)
            else:
                raise ValueError(f"{where}: lines start with 'p' or 'c', got {tok[0]!r}")
    if header is None:
        raise ValueError(f"{path}: no 'p csp n q m' header")
    n, q, m = header
    if m != len(cons):
        raise ValueError(f"{path}: header says {m} constraints, found {len(cons)}")
    if names and len(names) != n:
        missing = min(set(range(n)) - set(names))
        raise ValueError(f"{path}: '{_NAME_LINE}' lines name {len(names)} of the {n} variables "
                         f"(not variable {missing}); name all of them or none")
    try:
        inst = CSPInstance(n, q, cons).with_source(path, lines)
    except ValueError as exc:
        raise ValueError(_at_constraint_line(path, str(exc), lines)) from None
    except InsufficientMemoryError as exc:  # e.g. a header's q of 10^18 values
        raise InsufficientMemoryError(f"{path}: {exc}") from None
    if not names:
        return inst
    try:
        return inst.with_names([names[i] for i in range(n)])
    except ValueError as exc:  # names that are not distinct
        raise ValueError(f"{path}: the '{_NAME_LINE}' lines: {exc}") from None


def _at_constraint_line(path, message: str, lines: list) -> str:
    """``message`` about ``constraint #k`` (CSPInstance's validation) as ``path, line L: ...``
    with the line that constraint came from."""
    found = re.match(r"constraint #(\d+)(?::)? ?(.*)", message, flags=re.S)
    if found and int(found.group(1)) < len(lines):
        return f"{path}, line {lines[int(found.group(1))]}: constraint {found.group(2)}"
    return f"{path}: {message}"
