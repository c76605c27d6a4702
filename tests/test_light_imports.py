"""What ``import dpgraph`` loads, and what a call loads on its first use.

numba, igraph (which loads matplotlib), pyarrow and pandas cost about 150 MB of memory and a
second or more of start-up together; ``import dpgraph`` (and so every ``dpgraph`` command) loads
none of them. numba is imported on the first kernel call, igraph where the super-graph start
runs Louvain, pyarrow for files of ``ARROW_MIN_BYTES`` and more. Each check runs in a fresh
process, since this one has imported everything already."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "llvmlite", "igraph", "matplotlib", "pyarrow", "pandas", "cvxpy", "dask")


def _fresh(code: str, **env) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line, returned."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_module():
    loaded = _fresh("import sys, json, dpgraph\n"
                    f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert loaded == []


def test_cli_help_loads_no_heavy_module():
    code = ("import sys, json, contextlib, io\n"
            "from dpgraph.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert _fresh(code) == []


def _write_files(tmp_path):
    snap = tmp_path / "small.txt"
    snap.write_text("# a small edge list\n1\t2\n2\t3\n3\t1\n3\t4\n")
    csv = tmp_path / "small.csv"
    csv.write_text("source,target,weight\n1,2,0.5\n2,3,1.5\n3,1,2\n3,4,1\n")
    return snap, csv


@pytest.mark.parametrize("arrow_min", [None, 0])
def test_small_files_read_without_pyarrow_and_alike_with_it(tmp_path, arrow_min):
    """Below ARROW_MIN_BYTES the NumPy (SNAP) and csv-module (CSV) paths read the file; with
    the threshold at 0, pyarrow's; the same graphs either way."""
    pytest.importorskip("pyarrow")
    snap, csv = _write_files(tmp_path)
    set_min = "" if arrow_min is None else f"dpgraph.io.base.ARROW_MIN_BYTES = {arrow_min}\n"
    code = ("import sys, json, dpgraph, dpgraph.io.base\n" + set_min +
            "out = {}\n"
            f"for p in ({str(snap)!r}, {str(csv)!r}):\n"
            "    g = dpgraph.read_graph(p)\n"
            "    w = g.weights.tocoo()\n"
            "    out[p] = [list(map(str, g.labels)), sorted(zip(map(int, w.row), "
            "map(int, w.col), map(float, w.data)))]\n"
            "out['pyarrow'] = 'pyarrow' in sys.modules\n"
            "print(json.dumps(out))")
    got = _fresh(code)
    assert got.pop("pyarrow") is (arrow_min == 0)
    expected = {str(snap): [["1", "2", "3", "4"], sorted(
                    [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0), (0, 2, 1.0),
                     (2, 0, 1.0), (2, 3, 1.0), (3, 2, 1.0)])],
                str(csv): [["1", "2", "3", "4"], sorted(
                    [(0, 1, 0.5), (1, 0, 0.5), (1, 2, 1.5), (2, 1, 1.5), (0, 2, 2.0),
                     (2, 0, 2.0), (2, 3, 1.0), (3, 2, 1.0)])]}
    assert {k: [v[0], [tuple(e) for e in v[1]]] for k, v in got.items()} == expected


def test_prefer_arrow_by_size(tmp_path, monkeypatch):
    """Small files skip pyarrow while it is not loaded; once it is (a warm process), every
    file takes its faster path."""
    from dpgraph.io.base import ARROW_MIN_BYTES, prefer_arrow

    small, big = tmp_path / "a.txt", tmp_path / "b.txt"
    small.write_text("1 2\n")
    with open(big, "wb") as fh:
        fh.truncate(ARROW_MIN_BYTES)
    monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
    assert not prefer_arrow(small)
    assert prefer_arrow(big)
    assert prefer_arrow(tmp_path / "missing.txt")  # not a regular file: the readers decide
    monkeypatch.setitem(sys.modules, "pyarrow", object())
    assert prefer_arrow(small)


@pytest.mark.skipif(bool(os.environ.get("DPGRAPH_NO_NUMBA")), reason="numba disabled")
def test_numba_kernels_compile_on_first_call():
    """The first kernel call imports numba and binds every kernel's name in its module to a
    numba dispatcher, so a kernel calling another one is compiled as a whole."""
    pytest.importorskip("numba")
    code = ("import sys, json\n"
            "import networkx as nx\n"
            "import dpgraph\n"
            "from dpgraph.engine import local_search as ls\n"
            "before = 'numba' in sys.modules\n"
            "g = nx.random_regular_graph(3, 60, seed=1)\n"
            "r = dpgraph.solve_max_cut(g, rng=0)\n"
            "import numba\n"
            "disp = numba.core.registry.CPUDispatcher\n"
            "print(json.dumps({'before': before, 'after': 'numba' in sys.modules,\n"
            "    'kernel': isinstance(ls._tabu_kernel, disp), 'helper': isinstance(ls._flip, disp),\n"
            "    'cut': float(r.value),\n"
            "    'recount': int(sum(r.x[u] != r.x[v] for u, v in g.edges()))}))")
    got = _fresh(code)
    assert got["before"] is False and got["after"] is True
    assert got["kernel"] and got["helper"]
    assert got["cut"] == got["recount"] >= 90 * 0.8  # a 3-regular graph: 90 edges


def test_charges_build_their_accounting_events_on_first_use():
    """Recording a charge does not import ``dp_accounting`` (0.5 s, 28 MB); the accountant
    builds the events when asked, and they are the ones the mechanisms describe."""
    code = ("import sys, json, warnings, networkx as nx, dpgraph\n"
            "warnings.simplefilter('ignore')\n"
            "G = nx.karate_club_graph()\n"
            "rel = dpgraph.release_synthetic(G, epsilon=1.0, weight=None, rng=3)\n"
            "before = 'dp_accounting' in sys.modules\n"
            "eps, dlt = rel.ledger.accountant_spent()\n"
            "kinds = sorted({type(e.dp_event).__name__ for e in rel.ledger.entries\n"
            "                if e.dp_event is not None})\n"
            "print(json.dumps({'before': before, 'after': 'dp_accounting' in sys.modules,\n"
            "                  'eps': eps, 'spent': rel.ledger.spent[0], 'kinds': kinds}))")
    out = _fresh(code)
    assert out["before"] is False and out["after"] is True
    assert out["kinds"] and set(out["kinds"]) <= {"LaplaceDpEvent", "RandomizedResponseDpEvent"}
    assert 0 < out["eps"] <= out["spent"] * (1 + 1e-3)  # up to the PLD discretization


def test_a_small_graphs_sample_is_rewired_without_numba():
    """Up to ``BATCH_MAX_N`` nodes the samples' closure swaps run in NumPy rounds: a release
    and a rewired sample of a 720-node graph load neither numba nor ``dp_accounting``."""
    code = ("import sys, json, networkx as nx, dpgraph\n"
            "G = nx.relaxed_caveman_graph(60, 12, 0.35, seed=2)\n"
            "G.remove_edges_from(list(nx.selfloop_edges(G)))\n"
            "rel = dpgraph.release_synthetic(G, epsilon=4.0)\n"
            "S = rel.sample()\n"
            "print(json.dumps({'closure': rel.closure is not None, 'm': S.m,\n"
            "                  'loaded': [m for m in ('numba', 'llvmlite', 'dp_accounting')\n"
            "                             if m in sys.modules]}))")
    out = _fresh(code)
    assert out["closure"] and out["m"] > 0
    assert out["loaded"] == []
