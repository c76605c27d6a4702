"""dpgraph.read_csp: Max-k-Cut of graph files, Max-2-SAT in CNF / WCNF, errors naming the line."""

import itertools
import json
import os

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.engine import max_k_cut_instance


def _kcut(G, x):
    return sum(d.get("weight", 1.0) for u, v, d in G.edges(data=True) if x[u] != x[v])


def test_max_k_cut_values_match_the_cut(tmp_path):
    G = nx.gnp_random_graph(9, 0.5, seed=1)
    path = tmp_path / "g.txt"
    with open(path, "w") as f:  # G-set / rudy: "n m" then 1-indexed "u v w"
        f.write(f"{G.number_of_nodes()} {G.number_of_edges()}\n")
        for u, v in G.edges():
            f.write(f"{u + 1} {v + 1} 1\n")
    inst = dpgraph.read_csp(path, "max-k-cut", k=3)
    assert (inst.n, inst.q, inst.m) == (9, 3, G.number_of_edges())
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.integers(0, 3, 9)
        assert inst.value(x) == _kcut(G, x)
    assert max_k_cut_instance(G, 2).value([0, 1] * 4 + [0]) == _kcut(G, [0, 1] * 4 + [0])
    with pytest.raises(ValueError, match="k must"):
        max_k_cut_instance(G, 1)
    with pytest.raises(ValueError, match="needs k"):
        dpgraph.read_csp(path, "max-k-cut")
    H = nx.Graph()
    H.add_edge(0, 1, weight=-1.0)
    H.add_edge(1, 2, weight=1.0)
    with pytest.raises(ValueError, match="weights >= 0"):
        max_k_cut_instance(H, 3)


def _clauses_value(clauses, x):
    return sum(w for w, lits in clauses
               if any((x[abs(l) - 1] == 1) == (l > 0) for l in lits))


@pytest.mark.parametrize("style", ["cnf", "wcnf-old", "wcnf-new"])
def test_max_2sat_values_match_brute_force(tmp_path, style):
    rng = np.random.default_rng(7)
    nv = 6
    clauses = []
    for _ in range(15):
        k = int(rng.integers(1, 3))
        vs = rng.choice(nv, k, replace=False) + 1
        lits = [int(v) * (1 if rng.random() < 0.5 else -1) for v in vs]
        w = 1 if style == "cnf" else int(rng.integers(1, 5))
        clauses.append((w, lits))
    clauses.append((1, [2, -2]))   # tautology
    clauses.append((1, [3, 3]))    # repeated literal: the unit clause (x3)
    if style == "cnf":
        text = f"c comment\np cnf {nv} {len(clauses)}\n" + "".join(
            " ".join(map(str, lits)) + " 0\n" for _, lits in clauses)
        name = "x.cnf"
    elif style == "wcnf-old":
        text = f"p wcnf {nv} {len(clauses)} 1000\n" + "".join(
            f"{w} " + " ".join(map(str, lits)) + " 0\n" for w, lits in clauses)
        name = "x.wcnf"
    else:
        text = "c 2022 format\n" + "".join(
            f"{w} " + " ".join(map(str, lits)) + " 0\n" for w, lits in clauses)
        name = "y.wcnf"
    path = tmp_path / name
    path.write_text(text)
    inst = dpgraph.read_csp(path)
    assert inst.q == 2 and inst.n == nv and inst.m == len(clauses)
    for x in itertools.product(range(2), repeat=nv):
        assert inst.value(np.array(x)) == _clauses_value(clauses, x)


@pytest.mark.parametrize("text, fmt, match", [
    ("p cnf 3 1\n1 2 3 0\n", "cnf", "line 2: clause of length 3"),
    ("p cnf 3 1\n1 4 0\n", "cnf", "line 2: literal 4"),
    ("p cnf 3 1\n1 2\n", "cnf", "line 2: .*followed by one 0"),
    ("p cnf 3 2\n1 2 0\n", "cnf", "header says 2 clauses"),
    ("1 2 0\n", "cnf", "line 1: clause before"),
    ("p cnf 3 1\n1 x 0\n", "cnf", "line 2: literals must be integers"),
    ("p cnf 3 1\n0\n", "cnf", "line 2: empty clause"),
    ("p wcnf 3 1 10\n10 1 2 0\n", "wcnf", "line 1|line 2: hard clause"),
    ("h 1 2 0\n", "wcnf", "line 1: hard clause"),
    ("p wcnf 3 1 10\n-1 1 2 0\n", "wcnf", "line 2: clause weight -1"),
    ("p wcnf 3\n", "wcnf", "line 1: expected 'p wcnf"),
    ("p csp 2 2 1\nc 0 1 1.0 0,2\n", "csp", "line 2: constraint relation pair .* outside"),
    ("p csp 3 2 2\nc 0 1 1 0,1\n# a comment\nc 0 5 1 0,1\n", "csp",
     "line 4: constraint variable 5 is outside"),
    ("p csp 3 2 1\nc 1 1 1 0,1\n", "csp", "line 2: constraint relates variable 1 to itself"),
    ("p csp 2 2 1\nc 0 1 x 0,1\n", "csp", "line 2"),
])
def test_malformed_files_name_the_line(tmp_path, text, fmt, match):
    path = tmp_path / f"bad.{fmt}"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        dpgraph.read_csp(path, fmt)


def test_format_argument_checked(tmp_path):
    path = tmp_path / "a.csp"
    path.write_text("p csp 2 2 0\n")
    with pytest.raises(ValueError, match="format"):
        dpgraph.read_csp(path, "dimacs")
    with pytest.raises(ValueError, match="k="):
        dpgraph.read_csp(path, "csp", k=3)


@pytest.mark.skipif(not os.environ.get("DPGRAPH_DATA"), reason="DPGRAPH_DATA not set")
def test_gset_g3_reads_as_max3cut():
    inst = dpgraph.read_csp(os.path.join(os.environ["DPGRAPH_DATA"], "gset", "G3.txt"),
                            "max-k-cut", k=3)
    assert (inst.n, inst.q, inst.m) == (800, 3, 19176)


def test_a_csp_header_too_large_for_memory_is_refused_naming_the_file(tmp_path):
    """A header's q of 9.2e18 values is a memory refusal that names the file (found by the
    reader fuzzer: it escaped without the path)."""
    from dpgraph.memory import InsufficientMemoryError

    p = tmp_path / "huge.csp"
    p.write_text("p csp 4 9223372036854775807 1\nc 0 1 1.0 0,1\n")
    with pytest.raises(InsufficientMemoryError, match=r"huge\.csp: .*nothing was allocated"):
        dpgraph.read_csp(p)


def test_wcnf_without_a_p_line_takes_the_public_variable_count(tmp_path, capsys):
    """A 2022-format WCNF file names only the variables its clauses use: an added clause on a
    new variable changed the instance's n (4 -> 7) and so the answer's length. variables= (the
    command's --variables) states the public count; a clause beyond it, or a count that
    disagrees with a 'p' line, is refused."""
    from dpgraph.cli import app
    from dpgraph.engine import read_csp

    base = "1 1 2 0\n1 -2 3 0\n1 3 4 0\n1 -1 4 0\n"
    a, b = tmp_path / "a.wcnf", tmp_path / "b.wcnf"
    a.write_text(base)
    b.write_text(base + "1 4 7 0\n")
    assert (read_csp(a).n, read_csp(b).n) == (4, 7)  # read from the clauses
    assert read_csp(a, variables=9).n == read_csp(b, variables=9).n == 9
    with pytest.raises(ValueError, match="names variable 7, beyond variables=5"):
        read_csp(b, variables=5)
    c = tmp_path / "c.wcnf"
    c.write_text("p wcnf 4 2 10\n1 1 2 0\n1 -1 3 0\n")
    with pytest.raises(ValueError, match="declares 4"):
        read_csp(c, variables=5)
    with pytest.raises(ValueError, match="only used with format='cnf' or 'wcnf'"):
        read_csp(tmp_path / "x.csp", format="csp", variables=3)
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    with pytest.raises(ValueError, match=r"read_graph\(path, nodes=N\)"):  # not ignored
        read_csp(graph, "max-k-cut", k=3, variables=5)
    for path in (a, b):
        code = app.main(["max2csp", str(path), "--epsilon", "1", "--delta", "0",
                         "--variables", "9", "--quiet", "--json"])
        out = capsys.readouterr().out
        assert code == 0 and json.loads(out)["instance"]["variables"] == 9


@pytest.mark.parametrize("fmt", ["wcnf", "cnf-2022", "csp"])
def test_a_csp_file_too_large_for_memory_is_refused_before_it_is_parsed(tmp_path, monkeypatch,
                                                                         fmt):
    """The readers parsed every clause (about 1 KB each) and then priced the instance: a
    200,000-clause WCNF file allocated 194 MB before a refusal that said nothing was
    allocated. The file's constraint lines are now priced first, from its size."""
    import tracemalloc

    from dpgraph.memory import InsufficientMemoryError

    rng = np.random.default_rng(0)
    m, n = 20_000, 2_000
    a = rng.integers(1, n + 1, m)
    b = (a + rng.integers(0, n - 1, m)) % n + 1  # another variable than a
    body = "".join(f"1 {x} -{y} 0\n" for x, y in zip(a, b))
    p = tmp_path / ("g.csp" if fmt == "csp" else "g.wcnf")
    if fmt == "wcnf":
        p.write_text(f"p wcnf {n} {m} 100\n" + body)
    elif fmt == "cnf-2022":
        p.write_text(body)
    else:
        p.write_text(f"p csp {n} 2 {m}\n"
                     + "".join(f"c {x - 1} {y - 1} 1.0 0,1 1,0\n" for x, y in zip(a, b)))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "2M")
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match=r"g\.(csp|wcnf): .*constraints fit"):
            dpgraph.read_csp(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "512M")
    kw = {"variables": n} if fmt == "cnf-2022" else {}
    assert dpgraph.read_csp(p, **kw).n == n


@pytest.mark.parametrize("fmt", ["wcnf", "csp"])
def test_a_csp_file_read_from_a_pipe_loses_nothing(tmp_path, fmt):
    """Pricing a file ahead reads its first bytes and its size; on a pipe (/dev/stdin, a FIFO)
    that look ahead consumed them, and a 2022-format WCNF file lost 4,789 of its 12,000
    clauses without an error. A pipe is priced as the instance, after the parse."""
    import threading

    rng = np.random.default_rng(1)
    m, n = 3_000, 500
    a = rng.integers(1, n + 1, m)
    b = (a + rng.integers(0, n - 1, m)) % n + 1
    if fmt == "wcnf":
        text = "c a comment\n" + "".join(f"1 {x} -{y} 0\n" for x, y in zip(a, b))
    else:
        text = f"p csp {n} 2 {m}\n" + "".join(f"c {x - 1} {y - 1} 1.0 0,1 1,0\n"
                                               for x, y in zip(a, b))
    fifo = tmp_path / f"pipe.{fmt}"
    os.mkfifo(fifo)
    kw = {"variables": n} if fmt == "wcnf" else {}
    got = []

    def read():  # a reader that opens the pipe twice blocks on the second open: a daemon
        got.append(dpgraph.read_csp(str(fifo), format=fmt, **kw))
    threads = [threading.Thread(target=lambda: fifo.write_text(text), daemon=True),
               threading.Thread(target=read, daemon=True)]
    for t in threads:
        t.start()
    threads[1].join(timeout=30)
    assert got and got[0].m == m
