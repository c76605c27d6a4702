"""Released objects carry nothing the guarantee does not cover: no wall-clock timing of work
on the private input (docs/privacy.md 11)."""

import json
import re

import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.datasets import planted_cut
from dpgraph.release.routes import InsufficientMemoryError

_TIME_KEY = re.compile(r"time|timing|second|elapsed|duration", re.IGNORECASE)


def _time_keys(obj, path="") -> list[str]:
    """Every key below ``obj`` (dicts, lists, ledgers' dicts) that names a time."""
    found = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if _TIME_KEY.search(str(k)):
                found.append(f"{path}/{k}")
            found += _time_keys(v, f"{path}/{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            found += _time_keys(v, f"{path}[{i}]")
    elif isinstance(obj, dpgraph.PrivacyLedger):
        found += _time_keys(obj.to_dict(), f"{path}<ledger>")
    return found


def _csp_instance(n, q, m, seed=0):
    """A random 2-CSP: ``m`` constraints, each one random pair of labels on a random pair."""
    rng = np.random.default_rng(seed)
    cons = []
    for _ in range(m):
        i, j = rng.choice(n, size=2, replace=False)
        cons.append((int(i), int(j), {(int(rng.integers(q)), int(rng.integers(q)))}, 1.0))
    return dpgraph.CSPInstance(n, q, cons)


def test_time_key_walker_finds_a_nested_timing():
    # the check below can fail: a nested timing is found
    assert _time_keys({"a": [{"b": {"timings": {"x": 1.0}}}]}) == ["/a[0]/b/timings"]


@pytest.mark.parametrize("route", ["randomized-response", "pca", "matrix-free"])
def test_privatize_diagnostics_carry_no_timing(route):
    G = planted_cut(300, 40.0, rng=0).graph
    pg = dpgraph.privatize(G, epsilon=4.0, delta=1e-6, rank=2, rng=0, route=route)
    assert pg.diagnostics["route"] == route
    assert _time_keys(pg.diagnostics) == []


def test_max_cut_and_max_2csp_diagnostics_carry_no_timing():
    G = planted_cut(200, 16.0, rng=0).graph
    res = dpgraph.max_cut(G, epsilon=2.0, delta=1e-6, rng=0)
    assert _time_keys(res.diagnostics) == [] and _time_keys(res.private_graph.diagnostics) == []
    inst = _csp_instance(12, 3, 30)
    res = dpgraph.max_2csp(inst, epsilon=4.0, delta=1e-6, rank=3, rng=0,
                           privatize_options={"route": "randomized-response"})
    assert _time_keys(res.diagnostics) == [] and _time_keys(res.private_graph.diagnostics) == []
    res = dpgraph.max_2csp(inst, epsilon=4.0, delta=1e-6, rng=0)  # the local route
    assert res.private_graph is None and _time_keys(res.diagnostics) == []
    rel = dpgraph.release_synthetic(G, epsilon=2.0, rng=0)
    assert rel.diagnostics and _time_keys(rel.diagnostics) == []
    assert _time_keys(rel.to_dict()) == []


@pytest.mark.parametrize("command", [["maxcut"], ["bisection"], ["synth", "-o", "{tmp}/s.edgelist"],
                                     ["max2csp", "--k", "3"]])
def test_cli_json_carries_no_timing(command, tmp_path, capsys):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    assert main([args[0], "karate", "--epsilon", "2", "--delta", "1e-6", "--seed", "0",
                 "--json", "-q", *args[1:]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert _time_keys(doc) == []


# --------------------------------------------------------------------------------------------
# A call refuses before its first charge and draw, or returns its result (docs/privacy.md 11).



def test_spend_spy_sees_a_release(spend_spy):
    G = planted_cut(200, 16.0, rng=0).graph
    dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rank=2, rng=0)
    assert spend_spy["charge"] > 0 and spend_spy["draw"] > 0


def _big_sparse(n=200_000):
    import scipy.sparse as sp

    i = np.arange(n - 1)
    A = sp.coo_array((np.ones(n - 1), (i, i + 1)), shape=(n, n))
    return dpgraph.as_graph_data((A + A.T).tocsr())


_SMALL = planted_cut(200, 16.0, rng=0).graph


def _refusals():
    small, big = _SMALL, _big_sparse
    csp_small = _csp_instance(12, 3, 30)
    return {
        "privatize: dense route too large": (
            lambda: dpgraph.privatize(big(), epsilon=1, delta=1e-6, route="pca"),
            MemoryError),
        "privatize: unknown route": (
            lambda: dpgraph.privatize(small, epsilon=1, delta=1e-6, route="nope"), ValueError),
        "privatize: bad postprocess": (
            lambda: dpgraph.privatize(small, epsilon=1, delta=1e-6, rr_postprocess="x"),
            ValueError),
        "privatize: weights outside [0, 1]": (
            lambda: dpgraph.privatize(_scaled(small, 2.0), epsilon=1, delta=1e-6), ValueError),
        "max_cut: dense route too large": (
            lambda: dpgraph.max_cut(big(), epsilon=1, delta=1e-6, route="pca"), MemoryError),
        "max_cut: bad privatize option": (
            lambda: dpgraph.max_cut(small, epsilon=1, delta=1e-6,
                                    privatize_options={"rr_postprocess": "x"}), ValueError),
        "max_cut: unknown privatize option": (
            lambda: dpgraph.max_cut(small, epsilon=1, delta=1e-6,
                                    privatize_options={"nope": 1}), TypeError),
        "max_cut: unknown solver option": (
            lambda: dpgraph.max_cut(small, epsilon=1, delta=1e-6,
                                    solver_options={"nope": 1}), TypeError),
        "max_cut: an engine rank no machine holds": (
            lambda: dpgraph.max_cut(small, epsilon=1, delta=1e-6, route="randomized-response",
                                    solver_options={"rank": 10**9}), InsufficientMemoryError),
        "max_bisection: rounding samples no machine holds": (
            lambda: dpgraph.max_bisection(small, epsilon=1, delta=1e-6,
                                          solver_options={"samples": 10**10}),
            InsufficientMemoryError),
        "max_bisection: unknown objective": (
            lambda: dpgraph.max_bisection(small, epsilon=1, delta=1e-6, candidates=["nope"]),
            ValueError),
        "max_2csp: dense release at the matrix-free size": (
            lambda: dpgraph.max_2csp(_csp_instance(10000, 3, 10), epsilon=1, delta=1e-6,
                                     rank=2, privatize_options={"route": "pca"}),
            InsufficientMemoryError),
        "max_2csp: matrix-free route asked for": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6, rank=2,
                                     privatize_options={"route": "matrix-free"}), ValueError),
        "max_2csp: unknown solver option on a dense route": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6, rank=2,
                                     privatize_options={"route": "randomized-response"},
                                     solver_options={"nope": 1}), TypeError),
        "max_2csp: unknown objective on a dense route": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6, rank=2,
                                     privatize_options={"route": "randomized-response"},
                                     candidates="nope"), ValueError),
        "max_2csp: unknown privatize option": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6, rank=2,
                                     privatize_options={"route": "pca", "nope": 1}), TypeError),
        "max_2csp: unknown privatize option on the local route": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6,
                                     privatize_options={"nope": 1}), TypeError),
        "max_2csp: rank given in privatize_options": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1, delta=1e-6,
                                     privatize_options={"route": "pca", "rank": 2}), TypeError),
        "max_2csp: pca at an epsilon that leaves no per-pair delta": (
            lambda: dpgraph.max_2csp(csp_small, epsilon=1e5, delta=1e-6, rank=2,
                                     privatize_options={"route": "pca"}), ValueError),
        "max_cut: certify given as a string": (
            lambda: dpgraph.max_cut(small, epsilon=1, delta=1e-6, certify="no"), ValueError),
        "max_bisection: estimate given as a string": (
            lambda: dpgraph.max_bisection(small, epsilon=1, delta=1e-6, estimate="no"),
            ValueError),
        "release_synthetic: bad share": (
            lambda: dpgraph.release_synthetic(small, epsilon=1, community_share=2.0),
            ValueError),
        "release_synthetic: unknown communities plan": (
            lambda: dpgraph.release_synthetic(small, epsilon=1, communities="louvain"),
            ValueError),
    }


def _scaled(G, c):
    data = dpgraph.as_graph_data(G)
    return dpgraph.GraphData(weights=data.weights * c, labels=data.labels)


@pytest.mark.parametrize("case", sorted(_refusals()))
def test_entry_points_refuse_before_spending(case, spend_spy):
    call, error = _refusals()[case]
    with pytest.raises(error):
        call()
    assert spend_spy == {"charge": 0, "draw": 0}


def _cli_refusals(tmp_path, big_path):
    return {
        "maxcut: --out in a missing folder": ["maxcut", "karate", "--epsilon", "1", "--delta",
                                              "1e-6", "--out", str(tmp_path / "no" / "p.tsv")],
        "bisection: --out names a directory": ["bisection", "karate", "--epsilon", "1",
                                               "--delta", "1e-6", "--out", str(tmp_path)],
        "max2csp: --out names a directory": ["max2csp", "karate", "--format", "max-k-cut",
                                             "--k", "3", "--epsilon", "1", "--delta", "0",
                                             "--out", str(tmp_path)],
        "maxcut: dense route too large": ["maxcut", big_path, "--epsilon", "1", "--delta",
                                          "1e-6", "--route", "pca"],
        "synth: unknown output format": ["synth", "karate", "--epsilon", "1", "-o",
                                         str(tmp_path / "out.nope")],
        "synth: --weighted with the block model": ["synth", "karate", "--epsilon", "1",
                                                   "--weighted", "--mechanism", "block-model",
                                                   "-o", str(tmp_path / "o.edgelist")],
        "synth: --min-weight on a factor-form size": ["synth", big_path, "--epsilon", "1",
                                                      "--delta", "1e-6", "--weighted",
                                                      "--min-weight", "0.5", "-o",
                                                      str(tmp_path / "o.edgelist")],
        "synth: privatize without --delta": ["synth", "karate", "--epsilon", "1", "--mechanism",
                                             "privatize", "-o", str(tmp_path / "o.edgelist")],
    }


@pytest.fixture(scope="module")
def big_edgelist(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "path.edgelist"
    n = 200_000  # a dense route would need ~1.8 TB: refused on any machine
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(n - 1)))
    return str(path)


@pytest.mark.parametrize("case", sorted(_cli_refusals(__import__("pathlib").Path("."), "x")))
def test_cli_refuses_before_spending(case, tmp_path, big_edgelist, spend_spy, capsys):
    argv = _cli_refusals(tmp_path, big_edgelist)[case]
    assert main(argv + ["-q"]) != 0
    assert spend_spy == {"charge": 0, "draw": 0}
    assert not list(tmp_path.glob("o.*")) and not list(tmp_path.glob("out.*"))


def test_bench_without_matplotlib_refuses_before_running(spend_spy, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["bench", "planted-cut-n200-d16", "--epsilons", "1", "--seeds", "1",
                 "--plot", str(tmp_path / "b.png"), "-q"]) != 0
    assert spend_spy == {"charge": 0, "draw": 0}


def test_factor_form_export_and_edge_count_at_every_size(monkeypatch):
    """The factor form's edge count is O(n) at every size, and its blockwise heaviest-pairs
    export equals the dense export (forced below 5,000 nodes here)."""
    from dpgraph.release import factor_graph

    G = planted_cut(400, 20.0, rng=0).graph
    pg = dpgraph.privatize(G, epsilon=4.0, delta=1e-6, rank=2, rng=0, route="matrix-free")
    assert pg.edge_count == pytest.approx(max(pg.degrees.sum(), 0) / 2)
    k = int(round(pg.edge_count))
    dense = pg.to_graph_data(max_edges=k).weights
    monkeypatch.setattr(factor_graph, "DENSE_EXPORT_MAX_N", 100)
    with pytest.raises(ValueError, match="dense export"):
        pg.weights()
    blockwise = pg.to_graph_data(max_edges=k, block_rows=37).weights
    assert blockwise.nnz == dense.nnz == 2 * k
    assert abs(blockwise - dense).max() < 1e-12
    with pytest.raises(ValueError, match="max_edges"):
        pg.to_graph_data(min_weight=0.1)


def test_every_laplace_release_reaches_the_audit_transcript():
    """laplace_add (the per-batch draws of a mechanism charged once) records its raw output
    like laplace_mechanism, so an audit sees every Laplace release."""
    from dpgraph.privacy import PrivacyLedger, laplace_add, laplace_mechanism
    from dpgraph.privacy.transcript import transcript

    led = PrivacyLedger(epsilon=None, delta=None)
    with transcript() as seen:
        a = laplace_add(np.zeros(3), sensitivity=1.0, epsilon=1.0, changed=1, ledger=led, rng=0)
        b, _ = laplace_mechanism(np.zeros(2), sensitivity=1.0, epsilon=1.0, ledger=led, rng=1,
                                  name="check")
    assert [name for name, _ in seen] == ["laplace", "laplace"]
    np.testing.assert_array_equal(seen[0][1], a)
    np.testing.assert_array_equal(seen[1][1], b)


def test_memory_limit_makes_the_memory_reading_public(monkeypatch):
    """docs/privacy.md 11.1, "Memory readings": the memory left depends on what the process
    holds, the input included; with ``DPGRAPH_MEMORY_LIMIT`` below it, ``available_memory()``
    is the limit itself, so the choices that read it (the matrix-free share, the dense route's
    move) do not move when the process holds more."""
    from dpgraph.memory import available_memory, memory_limit
    from dpgraph.release.screening import choose_scale_route, matrix_free_share

    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "256M")
    have, where = memory_limit()
    if where != "allowed by DPGRAPH_MEMORY_LIMIT=256M":
        pytest.skip(f"this machine has less than 256 MiB left ({where})")

    def choices():
        return (available_memory(), matrix_free_share(20_000, 4e6, 8.0, 1e-6),
                choose_scale_route("pca", 5_000, 1e5, 2))

    before = choices()
    held = np.ones(8 * 2**20)  # 64 MiB held, as a larger input would be
    after = choices()
    assert held.sum() > 0
    assert before == after
    assert before[0] == 256 * 2**20
