"""One behaviour for the same thing across the API: results compared by identity, ``weight=None``
for "unweighted", and ``ledger`` / ``tol`` / ``max_iter`` / ``rank`` checked by the shared
helpers with messages naming the parameter."""

import copy
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.mechanisms import Simplex

X01 = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]])
UNIT_ROWS = np.eye(3)[[0, 1, 2, 0]]


def _instance():
    ne = {(0, 1), (1, 0)}
    return dpgraph.CSPInstance(3, 2, [(0, 1, ne, 1.0), (1, 2, ne, 1.0)])


# ----------------------------------------------------------------------------- results


@pytest.mark.parametrize("solve", [
    lambda: dpgraph.solve_max_cut(nx.cycle_graph(6), rng=0),
    lambda: dpgraph.solve_max_2csp(_instance(), rng=0),
], ids=["CutResult", "CSPResult"])
def test_engine_results_compare_by_identity_and_hash(solve):
    r = solve()
    twin = copy.deepcopy(r)
    assert r == r and r != twin  # identity, no element-wise array comparison
    assert r in [twin, r] and r not in [twin]
    assert hash(r) == hash(r) and len({r, twin}) == 2


# ----------------------------------------------------------------------------- weight=None


def test_to_networkx_weight_none_writes_no_attribute():
    gd = dpgraph.as_graph_data([("a", "b", 0.5), ("b", "c")])
    H = gd.to_networkx(weight=None)
    assert sorted(H.edges(data=True)) == [("a", "b", {}), ("b", "c", {})]
    assert sorted(H.nodes) == ["a", "b", "c"]
    assert sorted(gd.to_networkx(weight="w").edges(data="w")) == [("a", "b", 0.5),
                                                                  ("b", "c", 1.0)]


def test_to_igraph_weight_none_writes_no_attribute():
    pytest.importorskip("igraph")
    gd = dpgraph.as_graph_data([("a", "b", 0.5), ("b", "c")])
    H = gd.to_igraph(weight=None)
    assert H.vs["name"] == ["a", "b", "c"] and H.ecount() == 2
    assert H.es.attributes() == []
    assert gd.to_igraph(weight="w").es["w"] == [0.5, 1.0]


# ----------------------------------------------------------------------------- JL mechanism


JL_CALLS = {
    "jl_second_moment": lambda **kw: dpgraph.jl_second_moment(
        UNIT_ROWS, epsilon=1, delta=1e-6, jl_dim=20, rng=0, **kw),
    "jl_two_way_marginals": lambda **kw: dpgraph.jl_two_way_marginals(
        X01, epsilon=1, delta=1e-6, sparsity=2, jl_dim=20, rng=0, **kw),
}


@pytest.mark.parametrize("name", sorted(JL_CALLS))
def test_jl_refuses_a_ledger_of_the_wrong_type(name):
    with pytest.raises(TypeError, match="ledger must be a dpgraph.privacy.PrivacyLedger"):
        JL_CALLS[name](ledger="x")


@pytest.mark.parametrize("name", sorted(JL_CALLS))
@pytest.mark.parametrize("kw, match", [
    ({"tol": -1}, "tol must be a finite number > 0, got -1"),
    ({"tol": "1e-6"}, "tol must be a number"),
    ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
    ({"max_iter": 2.5}, "max_iter must be an integer, got 2.5"),
])
def test_jl_checks_lift_options_before_spending(name, kw, match):
    ledger = dpgraph.PrivacyLedger(epsilon=1, delta=1e-6)
    with pytest.raises(ValueError, match=match):
        JL_CALLS[name](ledger=ledger, **kw)
    assert ledger.spent == (0.0, 0.0)


# ----------------------------------------------------------------------------- projections


@pytest.mark.parametrize("call", [
    lambda **kw: dpgraph.kway_marginals(X01, 2, epsilon=1, delta=1e-6, rng=0, **kw),
    lambda **kw: dpgraph.perturb_and_project(np.array([.2, .3, .5]), Simplex(1.0),
                                             sensitivity=.1, epsilon=1, delta=1e-6, rng=0, **kw),
], ids=["kway_marginals", "perturb_and_project"])
@pytest.mark.parametrize("kw, match", [
    ({"max_iter": 2.5}, "max_iter must be an integer, got 2.5"),
    ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
    ({"tol": -1}, "tol must be a finite number > 0, got -1"),
])
def test_projection_mechanisms_check_max_iter_and_tol(call, kw, match):
    with pytest.raises(ValueError, match=match):
        call(**kw)


# ----------------------------------------------------------------------------- engine options


@pytest.mark.parametrize("kw, match", [
    ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
    ({"max_iter": 2.5}, "max_iter must be an integer >= 1, got 2.5"),
    ({"tol": -1}, "tol must be a finite number > 0, got -1"),
    ({"rank": 2.5}, "rank must be an integer >= 1, got 2.5"),
    ({"rank": "auto"}, "rank must be an integer >= 1, got 'auto'"),
])
def test_solve_max_cut_checks_options(kw, match):
    with pytest.raises(ValueError, match=match):
        dpgraph.solve_max_cut(nx.cycle_graph(8), rng=0, **kw)


@pytest.mark.parametrize("kw, match", [
    ({"tol": -1}, "tol must be a finite number > 0, got -1"),
    ({"tol": "x"}, "tol must be a number"),
    ({"max_iters": 2.5}, "max_iters must be an integer, got 2.5"),
    ({"max_iters": 0}, "max_iters must be an integer >= 1, got 0"),
    ({"rank": 2.5}, "rank must be an integer, got 2.5"),
    ({"rank": "auto"}, "rank must be an integer, got 'auto'"),
    ({"rank": True}, "rank must be an integer, got True"),
    ({"rank": 1}, "rank must be an integer >= 2, got 1"),
])
def test_solve_max_2csp_checks_options(kw, match):
    with pytest.raises(ValueError, match=match):
        dpgraph.solve_max_2csp(_instance(), rng=0, **kw)


def test_solve_max_2csp_accepts_an_integer_rank():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.solve_max_2csp(_instance(), rng=0, rank=np.int64(3))
    assert res.info["rank"] == 3 and res.value == 2.0


@pytest.mark.parametrize("bad", [{"epsilon": "1"}, {"epsilon": -1.0}, {"rng": "0"}, {"rng": -3},
                                 {"delta": None}])
def test_a_bad_parameter_is_both_a_value_and_a_type_error(bad):
    """Wrong-type arguments raised ValueError in some places and TypeError in others: the
    shared checks raise dpgraph.InvalidParameterError, which is both (as scikit-learn's is), so
    a caller's except clause catches it whichever it expects; nothing is spent."""
    import networkx as nx

    import dpgraph

    kw = {"epsilon": 1.0, "delta": 1e-6, **bad}
    for expected in (ValueError, TypeError, dpgraph.InvalidParameterError):
        with pytest.raises(expected):
            dpgraph.max_cut(nx.karate_club_graph(), weight=None, **kw)


def test_every_public_function_and_class_has_a_runnable_example():
    """A runnable example in every docstring of ``dpgraph.__all__`` (they run as doctests
    under --doctest-modules), warnings and exceptions aside but for the budget's refusal."""
    import inspect

    missing = []
    for name in dpgraph.__all__:
        obj = getattr(dpgraph, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if inspect.isclass(obj) and issubclass(obj, (Warning, Exception)) \
                and obj is not dpgraph.PrivacyBudgetError:
            continue
        if ">>>" not in (inspect.getdoc(obj) or ""):
            missing.append(name)
    assert not missing, missing


# the subpackages with a public __all__, and the modules of dpgraph.release and dpgraph.solve
# (which have none of their own: they export through dpgraph itself, checked above), and the
# modules of dpgraph.lab (it has no __all__ of its own). dpgraph.lab.audit.catalog is left out:
# its functions are the full-size audits of dpgraph's mechanisms (benchmarks/bench_audit.py)
SUBPACKAGES = ["dpgraph.io", "dpgraph.privacy", "dpgraph.engine", "dpgraph.datasets",
               "dpgraph.synthetic", "dpgraph.mechanisms", "dpgraph.spectral",
               "dpgraph.release.screening", "dpgraph.release.privatize",
               "dpgraph.release.posterior", "dpgraph.release.factor_graph",
               "dpgraph.release.routes", "dpgraph.release.routes.local",
               "dpgraph.release.routes.matrix_free", "dpgraph.release.routes.pca",
               "dpgraph.release.routes.randomized_response", "dpgraph.solve.candidates",
               "dpgraph.solve.certify", "dpgraph.solve.csp", "dpgraph.solve.cut",
               "dpgraph.solve.cut_local", "dpgraph.lab.audit", "dpgraph.lab.audit.harness",
               "dpgraph.lab.baselines", "dpgraph.lab.benchmarking", "dpgraph.lab.evaluate",
               "dpgraph.lab.pca_baselines"]


@pytest.mark.parametrize("module_name", SUBPACKAGES)
def test_every_public_function_of_a_subpackage_has_a_runnable_example(module_name):
    """A runnable example (``>>>``, run as a doctest) in the docstring of every function a
    subpackage exports in its ``__all__``; classes and constants aside."""
    import importlib
    import inspect

    module = importlib.import_module(module_name)
    missing = [name for name in module.__all__
               if inspect.isfunction(getattr(module, name))
               and ">>>" not in (inspect.getdoc(getattr(module, name)) or "")]
    assert not missing, f"{module_name}: {missing}"


# ----------------------------------------------------------------------------- dpgraph.lab


@pytest.mark.parametrize("name", ["input_perturbation_subspace", "noisy_power_method"])
@pytest.mark.parametrize("kw, match", [
    ({"rank": 0}, "rank must be >= 1, got 0"),
    ({"rank": -1}, "rank must be >= 1, got -1"),
    ({"rank": 6}, r"rank must be < min\(n, m\) = 6"),
    ({"rank": 2.5}, "rank must be an integer, got 2.5"),
])
def test_pca_baselines_check_rank_before_spending(name, kw, match):
    """rank 0 or -1 returned an n x 0 or n x (n-1) basis, rank > n a full one, rank 0 in the
    noisy power method charged the ledger and then failed: refused first, nothing spent."""
    from dpgraph.lab import pca_baselines
    from dpgraph.spectral import EntryAdjacency

    ledger = dpgraph.PrivacyLedger(epsilon=1, delta=1e-6)
    with pytest.raises(ValueError, match=match):
        getattr(pca_baselines, name)(nx.to_numpy_array(nx.cycle_graph(6)), epsilon=1,
                                     delta=1e-6, adjacency=EntryAdjacency(1.0), rng=0,
                                     ledger=ledger, **kw)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("iterations", [0, -1, 2.5, "3"])
def test_noisy_power_method_checks_iterations(iterations):
    """iterations=2.5 ran 2, 0 charged the budget for a random basis, -1 failed in math.log."""
    from dpgraph.lab.pca_baselines import noisy_power_method
    from dpgraph.spectral import EntryAdjacency

    with pytest.raises(ValueError, match="iterations must be an integer"):
        noisy_power_method(nx.to_numpy_array(nx.cycle_graph(6)), 2, epsilon=1, delta=1e-6,
                           adjacency=EntryAdjacency(1.0), iterations=iterations, rng=0)


@pytest.mark.parametrize("rank", [0, 2.5])
def test_gaussian_perturbation_checks_rank(rank):
    """rank 0 and 2.5 reached ARPACK (a ValueError naming k, a SystemError)."""
    from dpgraph.lab.baselines import gaussian_perturbation

    with pytest.raises(ValueError, match="rank must"):
        gaussian_perturbation(nx.cycle_graph(6), epsilon=1, delta=1e-6, rank=rank, rng=0)


def test_lab_node_set_helpers_read_no_weight():
    """random_partition and bisection_imbalance read the node set only: an edge weight that is
    not a number was refused with advice to pass weight=None, a parameter they do not have."""
    from dpgraph.lab.baselines import random_partition
    from dpgraph.lab.evaluate import bisection_imbalance

    G = nx.path_graph(4)
    G[0][1]["weight"] = "heavy"
    assert sorted(random_partition(G, rng=0)) == [0, 1, 2, 3]
    assert bisection_imbalance(G, [0, 1, 0, 1]) == 0


def test_graph_statistics_reads_a_partition_mapping_by_label():
    """A mapping label -> community was read as the list of its keys: a wrong modularity."""
    from dpgraph.lab.evaluate import graph_statistics

    G = nx.karate_club_graph()
    clubs = nx.get_node_attributes(G, "club")
    expected = nx.community.modularity(
        G, [{v for v in G if clubs[v] == c} for c in set(clubs.values())], weight=None)
    assert graph_statistics(G, partition=clubs)["modularity"] == pytest.approx(expected)
    assert graph_statistics(G, partition=[clubs[v] for v in G])["modularity"] \
        == pytest.approx(expected)
    with pytest.raises(ValueError, match="2 communities for 34 nodes"):
        graph_statistics(G, partition=[0, 1])
