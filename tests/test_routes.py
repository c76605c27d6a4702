"""Route dispatch: memory refusal before allocating, the scale rule, progress lines."""

import io
import subprocess
import sys
import tracemalloc

import networkx as nx
import pytest

import dpgraph
from dpgraph import progress
from dpgraph.release.screening import MATRIX_FREE_MIN_N, choose_scale_route
from dpgraph.release.routes import InsufficientMemoryError, route_module
from dpgraph.memory import available_memory, parse_bytes


def _graph(n=400):
    return dpgraph.datasets.planted_cut(n, 10, rng=0).graph


@pytest.mark.parametrize("route", ["randomized-response", "pca"])
def test_dense_route_refused_before_allocating(monkeypatch, route):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")  # 400 nodes need ~5 MiB dense
    g = _graph()
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match="matrix-free") as info:
            dpgraph.privatize(g, epsilon=1.0, delta=1e-6, route=route, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "needs about" in str(info.value) and "nothing was allocated" in str(info.value)
    assert peak < 1_000_000  # refused before the n x n arrays (400^2 doubles = 1.28 MB each)


def test_memory_limit_environment_variable(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "2G")
    assert available_memory() <= 2 * 2**30
    assert parse_bytes("512M") == 512 * 2**20
    with pytest.raises(ValueError, match="memory size"):
        parse_bytes("lots")


def test_scale_rule_uses_public_sizes(monkeypatch):
    monkeypatch.delenv("DPGRAPH_MEMORY_LIMIT", raising=False)
    assert choose_scale_route("randomized-response", 1000, 5000, 8) == "randomized-response"
    assert choose_scale_route("pca", MATRIX_FREE_MIN_N, 10**6, 8) == "matrix-free"
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1M")
    assert choose_scale_route("randomized-response", 1000, 5000, 8) == "matrix-free"


def test_dense_estimates_grow_quadratically():
    # at a small rank: the pca route's rank-r arrays (n r) are 0.2 % of its n x n ones here
    for name in ("randomized-response", "pca"):
        est = route_module(name).estimated_memory
        assert est(20000, 0, 8) == pytest.approx(4 * est(10000, 0, 8), rel=1e-2)


def test_unknown_route():
    with pytest.raises(ValueError, match="route='dense'"):
        dpgraph.privatize(_graph(50), epsilon=1.0, delta=1e-6, route="dense")


def test_progress_lines_only_when_reporting():
    buf = io.StringIO()
    with progress.reporting(stream=buf):
        dpgraph.privatize(nx.Graph(nx.karate_club_graph().edges()), epsilon=1.0, delta=1e-6,
                          rank=2, rng=0)
    assert "route 'randomized-response'" in buf.getvalue()
    quiet = io.StringIO()
    with progress.reporting(enabled=False, stream=quiet):
        dpgraph.privatize(nx.Graph(nx.karate_club_graph().edges()), epsilon=1.0, delta=1e-6,
                          rank=2, rng=0)
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("quiet", [False, True])
def test_cli_progress_and_quiet(quiet, tmp_path):
    cmd = [sys.executable, "-m", "dpgraph", "maxcut", "karate", "--epsilon", "2", "--delta",
           "1e-6", "--rank", "2"] + (["--quiet"] if quiet else [])
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          cwd=str(__import__("pathlib").Path(dpgraph.__file__).parent.parent))
    assert done.returncode == 0, done.stderr
    assert ("[dpgraph " in done.stderr) is (not quiet)


def test_cli_memory_refusal_is_a_clean_error(monkeypatch, capsys):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1K")
    from dpgraph.cli import app as cli

    code = cli.main(["maxcut", "karate", "--epsilon", "1", "--delta", "1e-6", "--rank", "2",
                     "--route", "randomized-response", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "needs about" in err and "matrix-free" in err
