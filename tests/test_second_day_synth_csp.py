"""A newcomer's second day with the synthetic-graph and Max-2-CSP APIs (release_synthetic,
PrivateGraph.sample, max_2csp, CSPInstance, read_csp / write_csp, ``dpgraph synth`` and
``dpgraph max2csp``): each test a defect found and fixed."""

import json

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import main
from dpgraph.engine import CSPInstance, max_k_cut_instance

DIFFER = {(0, 1), (1, 0)}


pytestmark = pytest.mark.usefixtures("quiet_seeds")


def test_max2csp_out_gives_each_node_its_own_value_when_the_file_is_not_sorted(tmp_path, capsys):
    """``dpgraph max2csp g.graphml --k 2 -o a.tsv`` wrote the values of the instance's
    variables (the nodes in sorted label order) beside the file's labels in the file's order:
    on a GraphML file listing 'zed' first, zed got amy's value (and the JSON said the same)."""
    G = nx.Graph([("zed", "amy"), ("amy", "bob"), ("bob", "zed"), ("zed", "carl"),
                  ("carl", "dan"), ("dan", "amy")])
    path = tmp_path / "g.graphml"
    nx.write_graphml(G, path)
    assert tuple(dpgraph.read_graph(path).labels)[0] == "zed"  # the file's order, not sorted
    out = tmp_path / "a.tsv"
    assert main(["max2csp", str(path), "--k", "2", "--epsilon", "5", "--delta", "0",
                 "--seed", "1", "-q", "-o", str(out)]) == 0
    written = {k: int(v) for k, v in (line.split("\t") for line in out.read_text().splitlines())}
    inst = max_k_cut_instance(dpgraph.read_graph(path), 2)
    res = dpgraph.max_2csp(inst, epsilon=5, delta=0, rng=1, relation_size=2)
    assert written == res.assignment
    capsys.readouterr()
    assert main(["max2csp", str(path), "--k", "2", "--epsilon", "5", "--delta", "0",
                 "--seed", "1", "-q", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["assignment"]
    assert dict(zip(doc["variables"], doc["values"])) == res.assignment


def test_with_names_leaves_the_instance_it_was_called_on_as_it_was():
    """``named = inst.with_names([...])`` renamed ``inst`` too (it set the names on ``inst``
    and returned it): a second naming of the same instance renamed the first copy's
    variables, and ``max_2csp(inst)`` answered in names the caller never gave ``inst``."""
    inst = CSPInstance(3, 2, [(0, 1, DIFFER, 1.0), (1, 2, DIFFER, 1.0)])
    a = inst.with_names(["a", "b", "c"])
    b = inst.with_names(["x", "y", "z"])
    assert inst.names is None and a.names == ("a", "b", "c") and b.names == ("x", "y", "z")
    assert sorted(dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0).assignment) == [0, 1, 2]
    assert a.value({"a": 0, "b": 1, "c": 0}) == inst.value([0, 1, 0]) == 2.0


def test_max2csp_randomized_response_at_a_large_epsilon_solves_its_block_posterior():
    """At a pair epsilon above about 745 the randomized-response release flips no bit (its
    flip probability is 0.0), and ``max_2csp(..., route='randomized-response')`` raised
    "flip probability must lie in (0, 1/2), got 0.0" after the whole budget was spent, from
    the "posterior-block" objective that candidates='auto' solves. Every bit is then exact:
    the posterior keeps exactly the released constraint blocks, and the answer is optimal."""
    cycle = [(i, (i + 1) % 6, DIFFER, 1.0) for i in range(6)]  # an even cycle: all 6 met
    inst = CSPInstance(6, 2, cycle)
    res = dpgraph.max_2csp(inst, epsilon=5000.0, delta=1e-6, rng=0, relation_size=2,
                           route="randomized-response", candidates="posterior-block")
    assert res.private_graph.diagnostics["flip_probability"] == 0.0
    assert inst.value(res.assignment) == 6.0
    res = dpgraph.max_2csp(inst, epsilon=5000.0, delta=1e-6, rng=0, relation_size=2,
                           route="randomized-response")
    assert "posterior-block" in res.diagnostics["candidates"]
    assert inst.value(res.assignment) == 6.0


def test_max2csp_local_route_refuses_unknown_engine_options_and_notes_unused_ones():
    """On the default (local) route ``max_2csp(..., candidates="unbaised")`` and
    ``solver_options={"sample": 10}`` (typos) were accepted without a word, where the dense
    routes and ``max_cut`` refuse them before anything is spent; options the local route does
    not read were dropped silently, where ``max_cut`` names them in ``options_note``."""
    inst = CSPInstance(4, 2, [(0, 1, DIFFER, 1.0), (2, 3, DIFFER, 1.0)])
    with pytest.raises(ValueError, match="candidates='unbaised'"):
        dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0, candidates="unbaised")
    with pytest.raises(TypeError, match="sample"):
        dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0, solver_options={"sample": 10})
    res = dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0, candidates="unbiased",
                           solver_options={"samples": 10})
    note = res.diagnostics["options_note"]
    assert "candidates='unbiased'" in note and "solver_options={'samples': 10}" in note
    assert "options_note" not in dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0).diagnostics


def test_a_seed_sequence_given_twice_gives_the_same_samples_and_is_left_as_it_was():
    """``release_synthetic(G, rng=ss)`` with a ``numpy.random.SeedSequence`` spawned the
    release's sample stream from the caller's own sequence: ``ss`` came back advanced
    (``n_children_spawned`` 1, so the caller's later ``ss.spawn`` children shifted), and the
    same call made twice gave the same release but different ``sample()`` graphs, where an
    int seed gives the same ones (numpy's ``default_rng(ss)`` does not change ``ss``)."""
    G = nx.Graph(nx.karate_club_graph().edges())
    ss = np.random.SeedSequence(0)
    a = dpgraph.release_synthetic(G, epsilon=1.0, rng=ss)
    b = dpgraph.release_synthetic(G, epsilon=1.0, rng=ss)
    assert ss.n_children_spawned == 0
    seeded = dpgraph.release_synthetic(G, epsilon=1.0, rng=0)  # default_rng(0): SeedSequence(0)
    samples = [r.sample() for r in (a, b, seeded)]
    assert all((s.weights != samples[0].weights).nnz == 0 for s in samples[1:])


@pytest.mark.parametrize("bad", [-3.0, np.nan, np.inf])
def test_sample_block_model_names_a_negative_or_missing_block_count(bad):
    """``sample_block_model`` with a negative or NaN block count failed deep in NumPy with
    "repeats may not contain negative values" (an infinite one overflowed), naming neither
    the argument nor what it must hold."""
    from dpgraph.synthetic import sample_block_model

    blocks = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="block_counts must hold finite non-negative"):
        sample_block_model(blocks, np.array([[bad, 1.0], [1.0, 2.0]]), np.ones(6), rng=0)
    # the lower triangle is not read, and a count that rounds to 0 is no edge
    g = sample_block_model(blocks, np.array([[-0.2, 1.0], [bad, 2.0]]), np.ones(6), rng=0)
    assert g.m == 3


def test_a_refused_max_k_cut_constraint_names_its_edge():
    """``max_2csp(max_k_cut_instance(nx.karate_club_graph(), 3), ...)`` refused "constraint #0
    has weight 4.0": the caller listed no constraints (the instance numbers the graph's edges
    in its own order), so the number named no edge; the names of the two variables (the
    edge's endpoints) are given now."""
    G = nx.karate_club_graph()  # 'weight' counts meetings, 1 to 7
    inst = max_k_cut_instance(G, 3)
    with pytest.raises(ValueError, match="has weight") as info:
        dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0)
    found = __import__("re").search(r"variables (\d+) and (\d+)\) has weight ([0-9.]+)",
                                    str(info.value))
    u, v, w = int(found.group(1)), int(found.group(2)), float(found.group(3))
    assert G[u][v]["weight"] == w > 1


def test_a_constraint_on_named_variables_says_how_to_name_them():
    """``CSPInstance(3, 2, [("alice", "bob", R, 1.0)])``, the way a NetworkX user names
    nodes, was refused with "variable 'alice' is not an integer" and no word of
    :meth:`CSPInstance.with_names`, the way to have ``max_2csp``'s answer keyed by names."""
    with pytest.raises(ValueError, match=r"'alice' is not an integer.*with_names\(names\)"):
        CSPInstance(3, 2, [("alice", "bob", DIFFER, 1.0)])
    names = ["alice", "bob", "carol"]
    idx = {v: i for i, v in enumerate(names)}
    inst = CSPInstance(3, 2, [(idx["alice"], idx["bob"], DIFFER, 1.0)]).with_names(names)
    assert sorted(dpgraph.max_2csp(inst, epsilon=1, delta=0, rng=0).assignment) == sorted(names)
