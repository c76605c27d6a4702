"""The "dpgraph" NetworkX backend (dpgraph/nx_backend.py): NetworkX's own call signatures with
backend="dpgraph", NetworkX's result types, and no silent non-private answer.

Dispatch needs the ``networkx.backends`` entry point. When dpgraph is installed (CI runs
``pip install ".[test]"``) it is registered already; from a source checkout the dispatch tests
run in a child interpreter that sees the entry point of pyproject.toml through standard
installation metadata (the ``nx_backend_paths`` fixture of conftest.py). NetworkX is not patched.
"""

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import networkx as nx
import pytest

from dpgraph import nx_backend

ROOT = Path(__file__).resolve().parent.parent


def _run_child(code: str, tmp_path, paths) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([*paths, str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=600, cwd=str(tmp_path), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_entry_point_names_the_backend_interface(backend_entry_point):
    module, _, attr = backend_entry_point.partition(":")
    assert module == "dpgraph.nx_backend"
    backend = getattr(nx_backend, attr)
    for name in ("convert_from_nx", "convert_to_nx", "can_run", "should_run", *nx_backend.FUNCTIONS):
        assert callable(getattr(backend, name)), name


_DISPATCH = """
import json, random
import networkx as nx
import dpgraph

assert "dpgraph" in nx.utils.backends.backends, sorted(nx.utils.backends.backends)
out = {}
G = nx.karate_club_graph()            # weights in [1, 7]: weight=None, as in NetworkX

# NetworkX's own signatures: one_exchange(G, initial_cut=None, seed=None, weight=None)
value, (S, T) = nx.approximation.one_exchange(G, backend="dpgraph", epsilon=100.0, delta=1e-6,
                                              seed=0)
out["one_exchange"] = [type(value).__name__, sorted(S), sorted(T),
                       nx.cut_size(G, S, T, weight=None), value]
# the same call made directly: NetworkX's py_random_state turns seed=0 into random.Random(0),
# and the backend seeds dpgraph with its first 63 bits
ref = dpgraph.max_cut(G, epsilon=100.0, delta=1e-6, weight=None,
                      rng=random.Random(0).getrandbits(63))
out["one_exchange_direct"] = [ref.estimated_value, sorted(ref.partition[0]),
                              sorted(ref.partition[1])]
# a NumPy RandomState seed, which NetworkX wraps without getrandbits
value, (S, T) = nx.approximation.one_exchange(G, backend="dpgraph", epsilon=2.0, delta=1e-6,
                                              seed=__import__("numpy").random.RandomState(4))
out["numpy_seed"] = len(S) + len(T)

errors = {}
for key, call in {
        "no budget": lambda: nx.approximation.one_exchange(G, backend="dpgraph"),
        "no delta": lambda: nx.approximation.one_exchange(G, backend="dpgraph", epsilon=1.0),
        "weights > 1": lambda: nx.approximation.one_exchange(
            G, weight="weight", backend="dpgraph", epsilon=1.0, delta=1e-6),
        # NetworkX's kernighan_lin_bisection minimizes the cut: not answered by a maximum one
        "kernighan_lin": lambda: nx.community.kernighan_lin_bisection(
            G, backend="dpgraph", epsilon=1.0, delta=1e-6),
        "initial_cut": lambda: nx.approximation.one_exchange(
            G, initial_cut={0}, backend="dpgraph", epsilon=1.0, delta=1e-6),
        "multigraph": lambda: nx.approximation.one_exchange(
            nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 0)]), weight=None,
            backend="dpgraph", epsilon=1.0, delta=1e-6)}.items():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            errors[key] = None
        except Exception as exc:
            errors[key] = [type(exc).__name__, str(exc)]
    errors[key + " warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught
                                 if "Reproducible" not in w.category.__name__]
out["errors"] = errors

# automatic dispatch: dpgraph first in the priority list
nx.config.backend_priority.algos = ["dpgraph"]
own = nx.approximation.one_exchange(G, seed=7, backend="networkx")
auto_plain = nx.approximation.one_exchange(G, seed=7)
out["auto_without_budget"] = [own[0], auto_plain[0], sorted(own[1][0]) == sorted(auto_plain[1][0])]
try:
    nx.approximation.one_exchange(G, epsilon=1.0)
    out["auto_only_epsilon"] = None
except TypeError as exc:
    out["auto_only_epsilon"] = str(exc)
value, (S, T) = nx.approximation.one_exchange(G, epsilon=100.0, delta=1e-6, seed=3)
ref = dpgraph.max_cut(G, epsilon=100.0, delta=1e-6, weight=None,
                      rng=random.Random(3).getrandbits(63))
out["auto_with_budget"] = [value, nx.cut_size(G, S, T, weight=None), ref.estimated_value,
                           sorted(S) == sorted(ref.partition[0])]
# a multigraph with a budget: refused, not merged
M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 0), (3, 0)])
# and kernighan_lin_bisection, even with a budget, is NetworkX's own (dpgraph does not have it)
own = nx.community.kernighan_lin_bisection(G, seed=1, backend="networkx")
auto = nx.community.kernighan_lin_bisection(G, seed=1)
out["auto_kernighan_lin"] = [sorted(map(sorted, own)), sorted(map(sorted, auto))]
try:
    nx.approximation.one_exchange(M, weight=None, epsilon=1.0, delta=1e-6)
    out["auto_multigraph_budget"] = None
except nx.NetworkXNotImplemented as exc:
    out["auto_multigraph_budget"] = str(exc)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def dispatched(tmp_path_factory, nx_backend_paths):
    return _run_child(_DISPATCH, tmp_path_factory.mktemp("nxbackend"), nx_backend_paths)


def test_one_exchange_returns_networkx_types_with_private_estimate(dispatched):
    kind, S, T, true_cut, value = dispatched["one_exchange"]
    assert kind == "float"
    assert sorted(S + T) == list(range(34)) and not set(S) & set(T)
    # the value is the Laplace estimate of this partition's cut, not the cut: at epsilon 100 the
    # estimate's epsilon is min(1, 200 / m^) ~ 1 (dpgraph.privacy.budget.answer_side_budgets), scale <= 1/0.9;
    # |Lap(b)| > b ln(1e6) has probability 1e-6
    assert abs(value - true_cut) <= (1 / 0.9) * 13.82
    # and it is exactly dpgraph.max_cut's estimate for the same seed (the noisy value, which may
    # equal the true cut: the estimate's noise is discrete), with the same partition
    assert [value, S, T] == dispatched["one_exchange_direct"]


def test_kernighan_lin_bisection_is_not_answered_by_a_maximum_bisection(dispatched):
    """NetworkX's kernighan_lin_bisection minimizes the cut; dpgraph's bisection maximizes it,
    so the backend does not take the call (NetworkX says it is not implemented there)."""
    kind, msg = dispatched["errors"]["kernighan_lin"]
    assert kind == "NotImplementedError" and "kernighan_lin_bisection" in msg
    assert "kernighan_lin_bisection" not in nx_backend.FUNCTIONS
    assert not hasattr(nx_backend.BackendInterface, "kernighan_lin_bisection")
    own, auto = dispatched["auto_kernighan_lin"]
    assert own == auto


def test_numpy_random_state_seed(dispatched):
    assert dispatched["numpy_seed"] == 34


def test_backend_call_without_budget_raises_clearly(dispatched):
    errors = dispatched["errors"]
    kind, msg = errors["no budget"]
    assert kind == "TypeError" and "epsilon and delta" in msg and "non-private" in msg
    kind, msg = errors["no delta"]
    assert kind == "TypeError" and "pass delta" in msg
    kind, msg = errors["weights > 1"]
    assert kind == "ValueError" and "weight" in msg
    kind, msg = errors["initial_cut"]
    assert kind == "NotImplementedError"
    # NetworkX's own message has no reason; the warning gives it
    assert any(w.startswith("BackendDeclinedWarning") and "initial_cut has no private "
               "counterpart" in w for w in errors["initial_cut warnings"])
    # parallel edges are not silently merged: refused as NetworkX's one_exchange refuses them
    kind, msg = errors["multigraph"]
    assert kind == "NetworkXNotImplemented" and "multigraph" in msg
    with pytest.raises(nx.NetworkXNotImplemented, match=r"nx\.Graph\(G\)"):
        nx_backend.convert_from_nx(nx.MultiGraph([(0, 1), (0, 1)]))


def test_automatic_dispatch_never_answers_silently(dispatched):
    own, auto, same_partition = dispatched["auto_without_budget"]
    # no budget: the caller asked NetworkX for its own algorithm, and gets exactly that
    assert own == auto and same_partition
    # one of the two given: the call goes to dpgraph, which names the missing one
    assert "pass delta" in dispatched["auto_only_epsilon"]
    # the caller never named the backend: the message does not tell them to drop it
    assert "drop backend" not in dispatched["auto_only_epsilon"]
    value, true_cut, direct, same_partition = dispatched["auto_with_budget"]
    assert value == direct and same_partition and abs(value - true_cut) <= (1 / 0.9) * 13.82
    # a multigraph with a budget is refused, not merged
    assert "multigraph" in dispatched["auto_multigraph_budget"]


def test_can_run_and_should_run():
    budget = {"epsilon": 1.0, "delta": 1e-6}
    assert nx_backend.can_run("one_exchange", (None,), budget) is True
    # NetworkX reads a string as "cannot run" and logs it as the reason: no budget (and not
    # called through a NetworkX call that names the backend) means no private answer asked for
    assert "no epsilon/delta" in nx_backend.can_run("one_exchange", (None,), {})
    with pytest.warns(nx_backend.BackendDeclinedWarning, match="initial_cut"):
        assert isinstance(nx_backend.can_run("one_exchange", (None,),
                                             {"initial_cut": {0}, **budget}), str)
    assert nx_backend.can_run("kernighan_lin_bisection", (None,), budget) is False
    assert nx_backend.can_run("pagerank", (None,), {}) is False
    assert isinstance(nx_backend.should_run("one_exchange", (None,), {}), str)
    assert nx_backend.should_run("one_exchange", (None,), {"epsilon": 1.0, "delta": 1e-6}) is True
    assert nx_backend.should_run("one_exchange", (None,), {"delta": 1e-6}) is True


def test_functions_called_directly():
    G = nx.Graph(nx.karate_club_graph().edges())
    with pytest.raises(TypeError, match="epsilon and delta"):
        nx_backend.one_exchange(G)
    value, (S, T) = nx_backend.one_exchange(G, epsilon=2.0, delta=1e-6, seed=random.Random(0))
    assert isinstance(value, float) and len(S) + len(T) == 34
    g = nx_backend.convert_from_nx(nx.karate_club_graph(), edge_attrs=None)
    assert g.data.is_unweighted and g.graph_data("weight").weights.data.max() == 7


def test_seed_none_means_secure_noise():
    assert nx_backend._rng(random._inst) is None
    assert nx_backend._rng(None) is None
    assert isinstance(nx_backend._rng(random.Random(5)), int)
    from networkx.utils.misc import PythonRandomInterface
    import numpy as np

    assert isinstance(nx_backend._rng(PythonRandomInterface(np.random.RandomState(5))), int)


_NETWORKX_SUITE = """
import importlib.util, json, sys
import pytest
from dpgraph import nx_backend

calls = []
can_run = nx_backend.BackendInterface.can_run


def counted(name, args, kwargs):
    answer = can_run(name, args, kwargs)
    calls.append([name, answer is True, bool(args) and args[0].is_multigraph()])
    return answer


nx_backend.BackendInterface.can_run = staticmethod(counted)
modules = [m for m in ("networkx.algorithms.approximation.tests.test_maxcut",)
           if importlib.util.find_spec(m) is not None]


class Count:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.outcomes[report.outcome] = self.outcomes.get(report.outcome, 0) + 1


count = Count()
rc = pytest.main(["--pyargs", *modules, "-q", "-p", "no:cacheprovider"], plugins=[count])
print(json.dumps({"rc": int(rc), "modules": modules, "outcomes": count.outcomes, "calls": calls}))
"""


def test_networkx_own_tests_pass_with_the_backend(tmp_path, nx_backend_paths):
    """NetworkX's own tests of one_exchange, run as NetworkX runs
    them against a backend (NETWORKX_TEST_BACKEND: every dispatchable call goes to dpgraph
    first). None of them passes a budget, so dpgraph must decline each (NetworkX's own answer
    follows) instead of raising: multigraphs, seeds and starting partitions included."""
    env = dict(os.environ, NETWORKX_TEST_BACKEND="dpgraph", NETWORKX_FALLBACK_TO_NX="True",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([*nx_backend_paths, str(ROOT),
                                           os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _NETWORKX_SUITE], capture_output=True,
                          text=True, timeout=600, cwd=str(tmp_path), env=env)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0, done.stdout[-4000:]
    assert len(out["modules"]) == 1
    assert set(out["outcomes"]) == {"passed"} and out["outcomes"]["passed"] >= 5, out
    # the calls did reach the backend, which declined every one (no budget anywhere)
    names = {name for name, _, _ in out["calls"]}
    assert names == {"one_exchange"}
    assert not any(ran for _, ran, _ in out["calls"])


def test_reproducible_noise_warning_points_at_the_callers_line():
    """Through the backend the warning named networkx's dispatcher as its place; it names the
    line that called NetworkX, as a direct call names the line that called dpgraph."""
    import warnings

    import dpgraph
    from dpgraph.privacy.rng import ReproducibleNoiseWarning

    G = nx.karate_club_graph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nx.approximation.one_exchange(G, backend="dpgraph", epsilon=1.0, delta=1e-6, seed=0)
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None, rng=0)
    places = {w.filename for w in caught if issubclass(w.category, ReproducibleNoiseWarning)}
    assert places == {__file__}


def test_declined_warning_points_at_the_callers_line():
    """The BackendDeclinedWarning named NetworkX's dispatcher as its place; it names the line
    that called NetworkX."""
    import warnings

    G = nx.karate_club_graph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(NotImplementedError):
            nx.approximation.one_exchange(G, initial_cut={0}, backend="dpgraph", epsilon=1.0,
                                          delta=1e-6)
    places = {w.filename for w in caught
              if issubclass(w.category, nx_backend.BackendDeclinedWarning)}
    assert places == {__file__}
