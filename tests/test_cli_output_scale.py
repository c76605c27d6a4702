"""``--json`` at scale: lists of plain values on one line each, the same document once parsed."""

import json

import numpy as np

from dpgraph.cli.output import dumps


def test_partition_of_many_nodes_is_a_few_lines():
    n = 100_000
    rng = np.random.default_rng(0)
    doc = {"schema": "dpgraph.cut/1",
           "partition": {"sizes": [3, n - 3], "file": None, "nodes": range(1, n + 1),
                         "sides": rng.integers(0, 2, n)},
           "ledger": {"entries": [{"name": "a", "epsilon": 0.5}, {"name": "b", "epsilon": 0.5}]},
           "labels": ["x", "@@dpgraph-list-0@@", None, True, 1.5, float("nan")]}
    text = dumps(doc)
    assert len(text.splitlines()) < 40  # not one line per node
    reference = json.dumps(json.loads(text), indent=2)
    parsed = json.loads(text)
    assert parsed == json.loads(reference)
    assert parsed["partition"]["nodes"] == list(range(1, n + 1))
    assert parsed["partition"]["sides"] == doc["partition"]["sides"].tolist()
    assert parsed["labels"] == ["x", "@@dpgraph-list-0@@", None, True, 1.5, "NaN"]
    # lists of objects stay indented, one object per block
    assert '"entries": [\n' in text
