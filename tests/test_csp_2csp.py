"""Tests for dpgraph.engine Max-2-CSP: brute force, CVXPY+SCS reference, file format, bad input."""

import itertools

import numpy as np
import pytest

from dpgraph.engine import CSPInstance, read_csp, solve_max_2csp, write_csp


def _random_instance(n, q, m, rng):
    cons = []
    for _ in range(m):
        i, j = rng.choice(n, 2, replace=False)
        rel = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.35}
        cons.append((int(i), int(j), rel, float(rng.uniform(0.5, 2.0))))
    return CSPInstance(n, q, cons)


def _brute(inst):
    return max(inst.value(np.array(a)) for a in itertools.product(range(inst.q), repeat=inst.n))


@pytest.mark.parametrize("seed", range(3))
def test_2csp_bound_vs_brute_force_q3(seed):
    rng = np.random.default_rng(seed)
    inst = _random_instance(8 + seed, 3, 18, rng)
    opt = _brute(inst)
    res = solve_max_2csp(inst, rng=seed)
    assert res.upper_bound >= opt - 1e-7
    assert res.upper_bound >= res.sdp_value - 1e-6
    assert res.value <= opt + 1e-9
    assert res.value == pytest.approx(inst.value(res.assignment))
    assert all(0 <= a < 3 for a in res.assignment.values())
    assert res.value >= 0.85 * opt


def test_2csp_certificate_is_tight_and_valid():
    # the certificate (SCS duals, Cholesky-verified eigenvalue bound) is within 1e-4 of the
    # relaxation value and above the brute-force optimum
    rng = np.random.default_rng(11)
    inst = _random_instance(7, 3, 14, rng)
    res = solve_max_2csp(inst, method="scs", rng=0, scs_eps=1e-8)
    assert res.info["certificate"] == "cholesky-verified"
    assert res.upper_bound >= _brute(inst) - 1e-9
    assert res.upper_bound == pytest.approx(res.sdp_value, rel=1e-4)
    # an independent check of the relaxation: Y is PSD and satisfies the local constraints
    Y = res.Y
    assert np.linalg.eigvalsh(0.5 * (Y + Y.T)).min() > -1e-5
    p = Y[0, 1:].reshape(7, 3)
    assert np.allclose(p.sum(axis=1), 1, atol=1e-5)


def test_label_extended_graph_counts_satisfied_weight():
    rng = np.random.default_rng(3)
    inst = _random_instance(6, 3, 12, rng)
    G = inst.label_extended_graph()
    assert G.n == 18 and G.labels[4] == (1, 1)
    A = G.weights
    for _ in range(5):
        x = rng.integers(0, 3, 6)
        z = np.zeros(18)
        z[np.arange(6) * 3 + x] = 1
        assert 0.5 * z @ (A @ z) == pytest.approx(inst.value(x))


def test_file_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    inst = _random_instance(5, 3, 7, rng)
    path = tmp_path / "x.csp"
    write_csp(inst, path)
    back = read_csp(path)
    assert back.n == 5 and back.q == 3 and back.constraints == inst.constraints
    bad = tmp_path / "bad.csp"
    bad.write_text("p csp 2 2 1\nc 0 1 1.0 0,2\n")
    with pytest.raises(ValueError, match="line|outside"):
        read_csp(bad)


def test_bad_input():
    with pytest.raises(ValueError, match="outside"):
        CSPInstance(2, 2, [(0, 1, {(0, 5)}, 1.0)])
    with pytest.raises(ValueError, match="itself"):
        CSPInstance(2, 2, [(0, 0, {(0, 1)}, 1.0)])
    with pytest.raises(ValueError, match="weight"):
        CSPInstance(2, 2, [(0, 1, {(0, 1)}, float("nan"))])
    with pytest.raises(ValueError, match="q must"):
        CSPInstance(2, 0, [])


def test_q1_and_single_variable():
    inst = CSPInstance(3, 1, [(0, 1, {(0, 0)}, 2.0), (1, 2, set(), 1.0)])
    res = solve_max_2csp(inst, rng=0)
    assert res.value == 2.0 and res.upper_bound >= 2.0 - 1e-7
    res = solve_max_2csp(CSPInstance(1, 3, []), rng=0)
    assert res.value == 0.0 and res.upper_bound == pytest.approx(0.0, abs=1e-6)


def test_max_k_cut_assignment_is_keyed_by_the_graph_labels():
    """max_k_cut_instance names its variables by the graph's labels, so max_2csp's assignment
    comes back in them (as max_cut's partition does), and value() takes it as it is."""
    import networkx as nx

    import dpgraph
    from dpgraph.engine.formats import max_k_cut_instance

    G = nx.relabel_nodes(nx.cycle_graph(6), {i: f"user_{i}" for i in range(6)})
    inst = max_k_cut_instance(G, 3)
    assert inst.names == tuple(f"user_{i}" for i in range(6))
    for route in ("local", "randomized-response"):
        res = dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rng=0,
                               privatize_options={"route": route})
        assert list(res.assignment) == list(inst.names)
        assert inst.value(res.assignment) == inst.value(list(res.assignment.values()))
    # numbered variables keep 0..n-1, and a numbered assignment still evaluates
    plain = max_k_cut_instance(nx.cycle_graph(4), 2)
    assert plain.names is None and list(plain.variables) == [0, 1, 2, 3]
    assert inst.value({i: i % 3 for i in range(6)}) == 6.0
    with pytest.raises(ValueError, match="distinct"):
        CSPInstance(2, 2, [(0, 1, {(0, 1)}, 1.0)]).with_names(["a", "a"])


@pytest.mark.parametrize("route", [None, "randomized-response"])
def test_label_graph_memory_refusal_comes_before_any_charge_and_names_no_size(monkeypatch,
                                                                               route):
    """The label-extended graph's size follows the private constraints: a refusal for it
    comes before the first charge and prints no number of pairs (it came after the released
    total weight, with the exact private count of allowed label pairs)."""
    import dpgraph
    from dpgraph.engine.twocsp import label_graph_bytes
    from dpgraph.memory import InsufficientMemoryError
    from dpgraph.privacy import PrivacyLedger

    n, q, K = 12, 3, 200
    full = {(a, b) for a in range(q) for b in range(q)}
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    inst = CSPInstance(n, q, [(*pairs[k % len(pairs)], full, 1.0) for k in range(K + 1)])
    limit = label_graph_bytes(n, q, 9 * K)
    if route is not None:  # the rest of the dense call fits (it is priced first, in full)
        from dpgraph.solve.csp import dense_2csp_bytes

        limit = max(limit, dense_2csp_bytes(n, q, route=route, rank=2))
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(limit))
    charged = []
    real = PrivacyLedger.charge
    monkeypatch.setattr(PrivacyLedger, "charge",
                        lambda self, name, **kw: charged.append(name) or real(self, name, **kw))
    options = None if route is None else {"route": route}
    with pytest.raises(InsufficientMemoryError, match="nothing was allocated or spent") as info:
        dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rank=2, privatize_options=options)
    assert charged == []
    assert str(9 * (K + 1)) not in str(info.value) and "1,809" not in str(info.value)


def test_route_keyword_is_privatize_options_route():
    """max_2csp takes route= as max_cut does: the same release as privatize_options' route."""
    import dpgraph

    inst = CSPInstance(6, 2, [(i, (i + 1) % 6, {(0, 1), (1, 0)}, 1.0) for i in range(6)])
    a = dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rng=0, route="randomized-response")
    b = dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, rng=0,
                         privatize_options={"route": "randomized-response"})
    assert a.assignment == b.assignment and a.diagnostics["route"] == "randomized-response"
    assert dpgraph.max_2csp(inst, epsilon=2.0, delta=0, rng=0, route="local").diagnostics[
        "route"] == "local"
    with pytest.raises(ValueError, match="route"):
        dpgraph.max_2csp(inst, epsilon=2.0, delta=1e-6, route="bogus")


def test_randomized_response_route_certifies_where_arpack_fails():
    """Max-3-Cut of a 150-node random graph on the randomized-response route raised ARPACK's
    error -9 ("starting vector is zero") in the certificate's Ritz pair: the shift dwarfed the
    label dual matrix's spectrum. top_ritz_pair now falls back to a dense factorization."""
    import warnings

    import networkx as nx

    import dpgraph
    from dpgraph.engine.formats import max_k_cut_instance

    inst = max_k_cut_instance(nx.gnm_random_graph(150, 750, seed=0), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=0,
                               privatize_options={"route": "randomized-response"})
    assert sorted(res.assignment) == list(range(150))
    assert set(res.assignment.values()) <= {0, 1, 2}
    # the certified bound is of the chosen objective (which need not be the exported weights
    # that synthetic_value scores): at least that objective's value of the rounded assignment
    assert res.solver["certificate"]["certificate"].endswith("verified")
    assert res.sdp_bound >= res.solver["value"] - 1e-6
