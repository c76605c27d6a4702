"""res.to_dict(): a private result as plain JSON-ready data, the fields of the command's --json
document (docs/cli.md) without the command's own."""

import json

import networkx as nx
import numpy as np

import dpgraph
from dpgraph.cli.output import cut_document
from dpgraph.engine.formats import max_k_cut_instance


def _labelled():
    G = nx.Graph(nx.karate_club_graph().edges())
    return nx.relabel_nodes(G, {i: f"user_{i:03d}" for i in G})


def test_cut_result_round_trips_through_json_with_its_labels():
    G = _labelled()
    res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, certify=True)
    doc = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert doc["answer"]["labels"] == list(res.assignment)
    assert dict(zip(doc["answer"]["labels"], doc["answer"]["values"])) == res.assignment
    assert doc["estimated_value"] == res.estimated_value
    assert doc["estimate_interval"] == {"level": 0.95, "low": res.estimate_interval[0],
                                        "high": res.estimate_interval[1]}
    assert doc["certified_upper_bound"] == res.certified_upper_bound
    assert doc["private_release"] is True and "warning" not in doc
    assert [e["name"] for e in doc["ledger"]["entries"]] == [e.name for e in res.ledger.entries]
    assert doc["diagnostics"]["route"] == res.diagnostics["route"]
    # the same fields as the command's document
    cli = cut_document(res, problem="maxcut", where="g", fmt="snap", out=None)
    for key in ("estimated_value", "estimate_interval", "synthetic_value", "sdp_bound",
                "certified_upper_bound", "certified_ratio", "private_release"):
        assert json.loads(json.dumps(cli[key])) == doc[key]


def test_csp_result_and_seeded_results_say_what_they_are():
    inst = max_k_cut_instance(_labelled(), 3)
    res = dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=0)
    doc = json.loads(json.dumps(res.to_dict()))
    assert doc["answer"]["labels"][:2] == ["user_000", "user_001"]
    assert set(doc["answer"]["values"]) <= {0, 1, 2}
    assert doc["private_release"] is False and "not a private release" in doc["warning"]
    assert isinstance(doc["estimated_value"], float)
    assert not any(isinstance(v, np.generic) for v in doc["answer"]["values"])
