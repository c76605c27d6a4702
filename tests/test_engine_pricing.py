"""What the non-private engine prices before it allocates, and what it takes where that fits.

* The sparse LDL^T certificate: ``certificate="auto"`` of the Max-Cut engine and ``"auto"`` /
  ``"ldl"`` of the 2-CSP one take it where its factors, counted from the matrix's pattern
  (:func:`~dpgraph.engine.sdp.ldl_fill_entries`) at ``SPARSE_FACTOR_ENTRY_BYTES`` each, fit.
  A full factor priced at 12 B per entry (a quarter of what one takes) let a near-dense factor
  through and kept a sparse one out.
* The Max-k-Cut instance: one "not equal" relation shared by every edge, the instance's values
  and the solver's results those of an instance built with one relation per edge.

Each check runs at a small size under a small ``DPGRAPH_MEMORY_LIMIT``.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
import dpgraph.engine.sdp as sdp
from dpgraph.engine import (CSPInstance, as_weight_operator, certify_label_sdp, certify_upper_bound,
                            max_k_cut_instance, solve_label_sdp, solve_lowrank_sdp, solve_max_2csp)
from dpgraph.engine.formats import read_csp, read_wcnf, write_csp
from dpgraph.engine.sdp import SPARSE_FACTOR_ENTRY_BYTES, gershgorin_upper_bound, ldl_fill_entries
from dpgraph.engine.twocsp import instance_bytes
from dpgraph.engine.twocsp_sdp import (_dual_matrix, _fit_multipliers, _LabelOp, _local_repair,
                                       _reduced_objective)
from dpgraph.memory import InsufficientMemoryError


def _proof_bytes(P) -> int:
    """The sparse proof's price for a matrix of ``P``'s pattern: its counted factor entries,
    40 B per entry of ``P`` and 64 per row."""
    P = sp.csc_matrix(P)
    return SPARSE_FACTOR_ENTRY_BYTES * ldl_fill_entries(P) + 40 * P.nnz + 64 * P.shape[0]


def _full_factor_at_12(n: int, nnz: int) -> int:
    return 12 * n * n + 40 * nnz


def _cut_case(G):
    op = as_weight_operator(dpgraph.as_graph_data(G))
    V = solve_lowrank_sdp(op, rng=0).V
    pattern = sp.csc_matrix(op.W) + sp.eye_array(op.n, format="csc")
    return op, V, _proof_bytes(pattern)


@pytest.fixture(scope="module")
def _grid():
    return _cut_case(nx.grid_2d_graph(30, 40))  # n = 1,200: 27,752 factor entries


@pytest.fixture(scope="module")
def _near_dense():
    return _cut_case(nx.gnm_random_graph(600, 4800, seed=3))  # 161,864 of 360,600 entries


def _spy_superlu(monkeypatch):
    calls = []
    real = sdp._symmetric_lu
    monkeypatch.setattr(sdp, "_symmetric_lu", lambda M, *a: calls.append(1) or real(M, *a))
    return calls


def test_auto_takes_the_sparse_proof_where_its_counted_factors_fit(monkeypatch, _grid):
    # a grid's factors hold 27,752 entries (1.6 MB priced) where a full factor at 12 B per
    # entry is 17.5 MB: at the proof's own price auto proves the bound with them; a byte less
    # and it takes the other proof (the dense Cholesky, 34.6 MB, does not fit: Gershgorin)
    op, V, need = _grid
    assert need < _full_factor_at_12(op.n, op.nnz)
    calls = _spy_superlu(monkeypatch)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need))
    ub, info = certify_upper_bound(op, V, rng=1)
    assert "ldl-verified" in info["certificate"] and calls  # (a grid: all edges cut, capped)
    assert info["ldl_nnz_factor"] * SPARSE_FACTOR_ENTRY_BYTES < need
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need - 1))
    calls.clear()
    ub_g, info_g = certify_upper_bound(op, V, rng=1)
    assert not calls and "gershgorin" in info_g["certificate"]
    sdp_value = float(np.einsum("ij,ij->", op.matmul(V), V))
    value = (float(op.total) - sdp_value) / 4  # the relaxation's value at V
    assert value <= ub <= ub_g


def test_auto_prices_a_near_dense_factor_before_factorizing(monkeypatch, _near_dense):
    # G(600, 4,800): its factors hold 161,864 entries, 8.2 MB priced, above the 4.7 MB of a
    # full factor at 12 B per entry: a byte below the price SuperLU is not started, and the
    # bound is the next proof's (Gershgorin: the dense Cholesky's 8.6 MB do not fit either)
    op, V, need = _near_dense
    assert _full_factor_at_12(op.n, op.nnz) < need < sdp.dense_certificate_bytes(op.n)
    calls = _spy_superlu(monkeypatch)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need - 1))
    ub, info = certify_upper_bound(op, V, rng=1)
    assert not calls, "SuperLU factorized a factor priced past the limit"
    assert "gershgorin (the dense Cholesky check would not fit" in info["certificate"]
    g = np.einsum("ij,ij->i", op.matmul(V), V)
    edges = float(op.W.sum()) / 2  # the sum of the weights bounds every cut
    assert ub == pytest.approx(min(edges, 0.25 * (
        float(op.total) - g.sum() + op.n * gershgorin_upper_bound(op, g, 0.0))), rel=1e-9)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need))
    ub_f, info_f = certify_upper_bound(op, V, rng=1)
    assert calls and info_f["certificate"].startswith("ldl-verified") and ub_f < ub


@pytest.fixture(scope="module")
def _label_case():
    inst = max_k_cut_instance(nx.grid_2d_graph(20, 30), 3)  # N = n (q - 1) + 1 = 1,201
    A, n, q = inst.label_adjacency(), inst.n, inst.q
    V = solve_label_sdp(A, n, q, rng=0).V
    op = _LabelOp(A, n, q)
    Cr = _reduced_objective(op)
    lam = _fit_multipliers(Cr, V)
    S = _local_repair(Cr, n, q, lam, _dual_matrix(Cr, n, q, *lam))[1]
    return A, V, S


def test_label_certificate_counts_the_sparse_factors(monkeypatch, _label_case):
    # the 2-CSP certificate's sparse proof at its counted price: 'ldl' runs and 'auto' takes
    # it (the dense copies do not fit); a full factor at 12 B per entry (17.3 MB) refused both
    A, V, S = _label_case
    N = S.shape[0]
    need = _proof_bytes(S)
    assert need < _full_factor_at_12(N, S.nnz) and need < sdp.dense_certificate_bytes(N)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need))
    ub_l, info_l = certify_label_sdp(A, V, method="ldl", rng=0)
    ub_a, info_a = certify_label_sdp(A, V, method="auto", rng=0)
    assert info_l["certificate"] == info_a["certificate"] == "ldl-verified" and ub_l == ub_a
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(need - 1))
    with pytest.raises(InsufficientMemoryError, match="counted from the matrix's pattern"):
        certify_label_sdp(A, V, method="ldl", rng=0)
    ub_u, info_u = certify_label_sdp(A, V, method="auto", rng=0)
    assert info_u["certificate"].startswith(
        "lanczos-residual (unverified: the sparse LDL^T certificate's factors hold more than")
    monkeypatch.delenv("DPGRAPH_MEMORY_LIMIT")
    ub_d, info_d = certify_label_sdp(A, V, method="factor", rng=0)
    assert info_d["certificate"] == "cholesky-verified"
    assert ub_d <= ub_l * (1 + 1e-6) and ub_l <= ub_d * (1 + 1e-3)


def _per_edge_instance(G, k):
    """The Max-k-Cut instance built with a relation object of its own per edge (a boolean
    matrix each), in the variables' sorted label order."""
    labels = sorted(G.nodes)
    at = {v: i for i, v in enumerate(labels)}
    cons = []
    for u, v, w in G.edges(data="weight", default=1.0):
        i, j = sorted((at[u], at[v]))
        cons.append((i, j, ~np.eye(k, dtype=bool), float(w)))
    cons.sort(key=lambda c: (c[0], c[1]))
    return CSPInstance(len(labels), k, cons).with_names(labels)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_max_k_cut_edges_share_one_relation(k):
    rng = np.random.default_rng(k)
    G = nx.gnm_random_graph(60, 240, seed=k)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(rng.integers(1, 5))
    inst = max_k_cut_instance(G, k)
    ref = _per_edge_instance(G, k)
    # one relation object (and one matrix) for every edge
    assert len({id(c[2]) for c in inst.constraints}) == 1
    assert inst.constraints[0][2] == frozenset((a, b) for a in range(k) for b in range(k) if a != b)
    assert inst.constraints == ref.constraints and inst.names == ref.names
    for mine, theirs in zip(inst._arrays, ref._arrays):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    for _ in range(20):  # the cut's weight, counted edge by edge
        x = rng.integers(0, k, size=inst.n)
        pos = {v: i for i, v in enumerate(sorted(G.nodes))}
        cut = sum(w for u, v, w in G.edges(data="weight") if x[pos[u]] != x[pos[v]])
        assert inst.value(x) == ref.value(x) == cut
    a, b = solve_max_2csp(inst, rng=0), solve_max_2csp(ref, rng=0)
    assert (a.value, a.upper_bound) == (b.value, b.upper_bound)
    assert np.array_equal(a.assignment, b.assignment)


def test_max_k_cut_instance_is_priced_with_its_shared_relation(monkeypatch):
    # a star of 3,000 leaves: one relation, a k x k row per edge; the label-extended graph
    # it is priced with needs about 1.9 MB at k = 2, the instance 1.3 MB (one relation per
    # edge, 320 B per cell: 3.8 MB); under 3.5 MB it builds
    G = nx.star_graph(3000)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(3_500_000))
    inst = max_k_cut_instance(G, 2)
    assert inst.m == 3000 and inst.value([0] + [1] * 3000) == 3000.0
    assert instance_bytes(3000, 2, 1) < 3_500_000 < instance_bytes(3000, 2)


def test_max_k_cut_build_holds_less_than_its_price():
    # what the build allocates (Python's tracemalloc, NumPy's buffers included), the graph's
    # own arrays aside, against the instance's price at k = 2 and 5
    import tracemalloc

    data = dpgraph.as_graph_data(nx.gnm_random_graph(5000, 20000, seed=1))
    for k in (2, 5):
        tracemalloc.start()
        inst = max_k_cut_instance(data, k)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert inst.m == 20000
        assert peak <= instance_bytes(inst.m, k, 1), (k, peak / inst.m)
        del inst


def test_readers_share_equal_relations(tmp_path):
    # a WCNF file's clauses have at most seven distinct relations, a csp file's constraints
    # as many as it writes: each one object, the instance as written
    lines = ["p wcnf 4 6 10"] + [f"{w} {a} {b} 0" for w, a, b in
                                 [(1, 1, 2), (2, 1, -3), (3, 2, 4), (1, -1, -4), (2, 3, 4), (1, 2, -3)]]
    path = tmp_path / "f.wcnf"
    path.write_text("\n".join(lines) + "\n")
    inst = read_wcnf(path)
    kinds = {}
    for _, _, rel, _ in inst.constraints:
        kinds.setdefault(rel, set()).add(id(rel))
    assert all(len(ids) == 1 for ids in kinds.values()) and len(kinds) == 3
    # every clause satisfied by its own relation, literal by literal
    x = np.array([1, 0, 1, 1])
    sat = sum(w for w, a, b in [(1, 1, 2), (2, 1, -3), (3, 2, 4), (1, -1, -4), (2, 3, 4), (1, 2, -3)]
              if any((x[abs(v) - 1] == 1) == (v > 0) for v in (a, b)))
    assert inst.value(x) == sat
    csp = max_k_cut_instance(nx.cycle_graph(9), 3)
    write_csp(csp, tmp_path / "c.csp")
    back = read_csp(tmp_path / "c.csp")
    assert len({id(c[2]) for c in back.constraints}) == 1 and back.constraints == csp.constraints


# ----------------------------------------------------------------------------- numba's first load


def _no_kernel_has_run(monkeypatch, *, compiled=()):
    """The kernels' state of a process where no kernel has run yet: one kernel whose numba
    dispatcher has the signatures ``compiled`` (none: not compiled)."""
    from dpgraph.engine import local_search

    if not local_search._KERNELS or local_search._numba is False:
        pytest.skip("numba is not installed: the kernels run as Python, nothing to load")
    dispatcher = type("Dispatcher", (), {"signatures": list(compiled)})()
    monkeypatch.setattr(local_search, "_KERNELS", [type("Kernel", (), {"_run": dispatcher})()])
    monkeypatch.delenv("DPGRAPH_NO_NUMBA", raising=False)


def test_numba_first_load_is_priced_until_a_kernel_has_run(monkeypatch):
    """numba's import and first compile (about 160 MiB of RSS, measured) were priced nowhere;
    they are added while no kernel has run in the process, and only then."""
    import sys

    from dpgraph.engine.local_search import (NUMBA_COMPILE_BYTES, NUMBA_IMPORT_BYTES,
                                             kernel_load_bytes)

    _no_kernel_has_run(monkeypatch)
    assert kernel_load_bytes() == NUMBA_COMPILE_BYTES  # numba imported (conftest), no kernel
    monkeypatch.delitem(sys.modules, "numba")
    assert kernel_load_bytes() == NUMBA_COMPILE_BYTES + NUMBA_IMPORT_BYTES
    monkeypatch.setenv("DPGRAPH_NO_NUMBA", "1")
    assert kernel_load_bytes() == 0  # the kernels run as Python: nothing to load
    _no_kernel_has_run(monkeypatch, compiled=["(int64,)"])
    assert kernel_load_bytes() == 0


def test_engine_checks_add_numba_first_load(monkeypatch):
    """The Max-Cut engine (its local search runs the tabu kernel) and the 2-CSP engine with
    tabu moves are refused one byte short of their arrays plus numba's first load, and pass
    at it; the 2-CSP engine without tabu moves (no kernel at this size) does not pay it."""
    from dpgraph.engine.local_search import NUMBA_COMPILE_BYTES
    from dpgraph.engine.maxcut import check_engine_memory, engine_bytes
    from dpgraph.engine.twocsp import check_label_engine_memory, label_engine_bytes

    _no_kernel_has_run(monkeypatch)
    checks = [(lambda: check_engine_memory(100), engine_bytes(100)),
              (lambda: check_label_engine_memory(100, 3, tabu_moves=50),
               label_engine_bytes(100, 3))]
    for check, arrays in checks:
        monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(arrays + NUMBA_COMPILE_BYTES - 1))
        with pytest.raises(InsufficientMemoryError, match=r"numba's first load in this "
                           r"process, 128\.0 MiB, included.*DPGRAPH_NO_NUMBA=1"):
            check()
        monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(arrays + NUMBA_COMPILE_BYTES))
        check()
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(label_engine_bytes(100, 3)))
    check_label_engine_memory(100, 3)


@pytest.mark.parametrize("answer", [dpgraph.max_cut, dpgraph.max_bisection])
def test_private_cut_refuses_numba_first_load_before_spending(monkeypatch, spend_spy, answer):
    """The engine's check (with numba's first load) runs after the release: the private cut
    answers check the load before anything is spent."""
    _no_kernel_has_run(monkeypatch)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")
    with pytest.raises(InsufficientMemoryError, match=r"numba's first load in this process "
                       r"\(the compiled kernels of max_(cut|bisection)'s solves\) needs about "
                       r"128\.0 MiB.*DPGRAPH_NO_NUMBA=1"):
        answer(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None, rng=0)
    assert spend_spy == {"charge": 0, "draw": 0}


def test_a_fresh_process_refuses_before_loading_numba(tmp_path):
    """In a fresh process under DPGRAPH_MEMORY_LIMIT=16M, solve_max_cut on 20 nodes passed
    every check and then loaded numba (+160 MiB resident): it is refused before numba is
    imported, and DPGRAPH_NO_NUMBA=1 (the alternative the refusal names) runs it."""
    import os
    import subprocess
    import sys

    pytest.importorskip("numba")
    code = ("import sys, networkx as nx, dpgraph\n"
            "try:\n"
            "    dpgraph.solve_max_cut(nx.cycle_graph(20), rng=0)\n"
            "    print('solved', 'numba' in sys.modules)\n"
            "except MemoryError as exc:\n"
            "    print('refused', 'numba' in sys.modules, exc)\n")
    root = str(Path(__file__).resolve().parents[1])  # this checkout's dpgraph
    env = {**os.environ, "DPGRAPH_MEMORY_LIMIT": "16M", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    env.pop("DPGRAPH_NO_NUMBA", None)
    run = lambda extra: subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, env={**env, **extra}, cwd=tmp_path,
                                       timeout=120)
    done = run({})
    assert done.stdout.startswith("refused False "), done.stdout + done.stderr
    assert "numba's first load in this process" in done.stdout
    done = run({"DPGRAPH_NO_NUMBA": "1"})
    assert done.stdout.startswith("solved False"), done.stdout + done.stderr
