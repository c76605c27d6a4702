"""``--json`` on maxcut, bisection, synth and info: one strict JSON document on stdout
(schema in docs/cli.md), checked by parsing it."""

import json
import math

import networkx as nx
import numpy as np
import pytest

from dpgraph.cli.app import main
from dpgraph.cli.output import dumps, jsonable
from dpgraph.io import read_graph, write_graph


def _parse(capsys) -> dict:
    out = capsys.readouterr().out
    # strict: NaN/Infinity literals are not JSON
    return json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def _check_ledger(doc):
    ledger = doc["ledger"]
    entries = ledger["entries"]
    assert entries and all({"name", "mechanism", "epsilon", "delta"} <= set(e) for e in entries)
    # basic composition: the spent budget is the sum of the charges, within the budget
    assert math.isclose(sum(e["epsilon"] for e in entries), ledger["spent"]["epsilon"],
                        rel_tol=1e-9)
    assert ledger["spent"]["epsilon"] <= ledger["budget"]["epsilon"] * (1 + 1e-9)
    assert ledger["spent"]["delta"] <= ledger["budget"]["delta"] * (1 + 1e-9)


@pytest.mark.parametrize("command", ["maxcut", "bisection"])
def test_cut_json(command, tmp_path, capsys):
    out = tmp_path / "part.tsv"
    assert main([command, "karate", "--epsilon", "2", "--delta", "1e-6", "--seed", "0",
                 "--json", "-q", "--out", str(out)]) == 0
    doc = _parse(capsys)
    assert doc["schema"] == "dpgraph.cut/1" and doc["command"] == command
    assert doc["graph"]["nodes"] == 34
    sizes = doc["partition"]["sizes"]
    assert sum(sizes) == 34 and doc["partition"]["file"] == str(out)
    lines = out.read_text().splitlines()
    assert [sum(1 for x in lines if x.endswith("\t0")),
            sum(1 for x in lines if x.endswith("\t1"))] == sizes  # sizes[k]: nodes on side k
    if command == "bisection":
        assert abs(sizes[0] - sizes[1]) <= 1
    assert isinstance(doc["estimated_value"], float)
    assert doc["route"] in ("local", "randomized-response", "pca", "matrix-free")
    assert doc["route"] == doc["diagnostics"]["release"]["route"]
    assert doc["private_release"] is False and "not a private release" in doc["warning"]
    _check_ledger(doc)
    assert doc["ledger"]["entries"][-1]["name"] == "cut of the returned partition"


def test_synth_json(tmp_path, capsys):
    out = tmp_path / "syn.graphml"
    assert main(["synth", "karate", "--epsilon", "2", "--delta", "1e-6", "--seed", "1", "--json",
                 "-q", "-o", str(out)]) == 0
    doc = _parse(capsys)
    assert doc["schema"] == "dpgraph.synth/1" and doc["output"]["file"] == str(out)
    written = read_graph(out)
    assert (doc["output"]["nodes"], doc["output"]["edges"]) == (written.n, written.m)
    _check_ledger(doc)


def test_info_json_matches_networkx(tmp_path, capsys):
    G = nx.les_miserables_graph()  # weighted
    path = tmp_path / "lesmis.graphml"
    write_graph(G, path)
    assert main(["info", str(path), "--json"]) == 0
    doc = _parse(capsys)
    assert doc["schema"] == "dpgraph.info/1" and doc["private_release"] is False
    assert (doc["nodes"], doc["edges"]) == (G.number_of_nodes(), G.number_of_edges())
    assert doc["weights"]["total"] == G.size(weight="weight")
    assert doc["degree"]["max"] == max(d for _, d in G.degree())
    assert doc["components"] == nx.number_connected_components(G)
    assert main(["info", str(path), "--json", "--unweighted"]) == 0
    doc = _parse(capsys)
    assert doc["weights"]["kind"] == "unweighted" and doc["weights"]["total"] == G.size()


def test_nonfinite_and_numpy_values_serialize():
    doc = {"nan": float("nan"), "inf": np.float64(np.inf), "neg": -math.inf,
           "arr": np.array([1.5, np.nan]), "i": np.int32(7), "b": np.bool_(True),
           "labels": {2, 1}, "t": (np.float32(0.25),)}
    back = json.loads(dumps(doc))
    assert back == {"nan": "NaN", "inf": "Infinity", "neg": "-Infinity", "arr": [1.5, "NaN"],
                    "i": 7, "b": True, "labels": [1, 2], "t": [0.25]}
    assert jsonable({"mixed": {1, "a"}})["mixed"] in ([1, "a"], ["a", 1])


def test_synth_communities_option(tmp_path, capsys):
    """``--communities none`` keeps one block (the diagnostics say so); it is refused with
    ``--mechanism privatize`` before anything is spent."""
    out = tmp_path / "syn.txt"
    assert main(["synth", "karate", "--epsilon", "2", "--seed", "1", "--json", "-q",
                 "--communities", "none", "-o", str(out)]) == 0
    doc = _parse(capsys)
    assert doc["diagnostics"]["communities"] == 1
    assert main(["synth", "karate", "--epsilon", "2", "--delta", "1e-6", "--seed", "1", "-q",
                 "--mechanism", "privatize", "--communities", "none", "-o", str(out)]) != 0
    assert "--communities applies to --mechanism block-model" in capsys.readouterr().err
