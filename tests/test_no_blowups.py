"""Engine options and weights that made a solve die (an unpriced MemoryError past the memory
limit, or a NumPy error from overflowing arithmetic) are refused before the solve, in one line
naming the parameter and what fits; the private answers refuse them before anything is spent.

Each refusal runs under a small ``DPGRAPH_MEMORY_LIMIT``: nothing large is allocated.
"""

import tracemalloc
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph import CSPInstance
from dpgraph.engine import max_k_cut_instance
from dpgraph.memory import InsufficientMemoryError, parse_bytes

LIMIT = "24M"


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    return parse_bytes(LIMIT)


def _chain(n=100, q=3, weight=1.0):
    return CSPInstance(n, q, [(i, i + 1, {(0, 1), (1, 2)}, weight) for i in range(n - 1)])


def _refusal(call, limit, match):
    """The refusal ``call()`` raises, checked to be one line naming ``match``, with less
    than the limit allocated on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match=match) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = str(info.value)
    assert "\n" not in text and f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in text and peak < limit
    return text


@pytest.mark.parametrize("solve", [dpgraph.solve_max_cut, dpgraph.solve_max_bisection])
def test_a_rank_above_n_is_priced_with_its_gram_matrix(limited, solve):
    """rank=20,000 on 20 nodes held 3 GiB under a 300 MiB limit and died of a bare
    MemoryError in the rounding's rank x rank Gram matrix: it was priced per node only."""
    _refusal(lambda: solve(nx.cycle_graph(20), rank=2000, rng=0), limited, r"At most rank=\d+")


def test_max_cut_prices_the_engine_rank_before_spending(limited, spend_spy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _refusal(lambda: dpgraph.max_cut(nx.cycle_graph(20), epsilon=1.0, delta=1e-6,
                                         route="pca", solver_options={"rank": 2000}, rng=0),
                 limited, r"At most rank=\d+")
    assert spend_spy == {"charge": 0, "draw": 0}


@pytest.mark.parametrize("options, fits", [({"samples": 10**9}, "At most samples="),
                                           ({"rank": 10**9}, "At most rank="),
                                           ({"samples": 100, "seeds": 7}, "Lower samples")])
def test_2csp_engine_options_are_priced_before_the_solve(limited, options, fits):
    """samples=10**9 and rank=10**9 died of a bare MemoryError (1.5 TiB of draws, 1.6 PiB of
    factor); samples=2,000 on 3,000 variables held 1.1 GiB under a 300 MiB limit."""
    text = _refusal(lambda: dpgraph.solve_max_2csp(_chain(), rng=0, **options), limited,
                    "the 2-CSP engine on 100 variables x 3 values")
    assert fits in text


def test_the_named_samples_fit(limited):
    text = _refusal(lambda: dpgraph.solve_max_2csp(_chain(), samples=10**6, rng=0), limited,
                    "At most samples=")
    fits = int(text.split("At most samples=")[1].split(" ")[0].replace(",", ""))
    from dpgraph.engine.twocsp import label_engine_bytes

    assert label_engine_bytes(100, 3, samples=fits) <= limited
    assert label_engine_bytes(100, 3, samples=fits + 1) > limited


def test_the_scs_moment_matrix_is_priced_before_cvxpy(limited):
    """method='scs' on 1,500 variables x 2 values (a 3,001 x 3,001 moment matrix) reached
    2.4 GiB under a 300 MiB limit, then SCS failed with 'ScsWork allocation error!'."""
    inst = CSPInstance(150, 2, [(i, i + 1, {(0, 1), (1, 0)}, 1.0) for i in range(149)])
    text = _refusal(lambda: dpgraph.solve_max_2csp(inst, method="scs", rng=0), limited,
                    "301 x 301 moment matrix")
    assert "method='lowrank'" in text


def test_max_2csp_prices_the_solver_options_before_spending(limited, spend_spy):
    """solver_options={'samples': 10**7} on a dense route died of a bare MemoryError after
    the release was charged; samples=50,000 held 2.3 GiB under a 300 MiB limit."""
    inst = max_k_cut_instance(nx.cycle_graph(30), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _refusal(lambda: dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6,
                                          route="randomized-response",
                                          solver_options={"samples": 10**9}, rng=0),
                 limited, "At most samples=")
    assert spend_spy == {"charge": 0, "draw": 0}


@pytest.mark.parametrize("kw, count", [
    ({"route": "randomized-response"}, 4),                      # relation_size q*q: no block
    ({"route": "randomized-response", "relation_size": 6}, 5),  # the block posterior informs
    ({"route": "randomized-response", "rank": 2}, 3),           # one low-rank posterior
    ({"route": "pca"}, 1),
    ({"route": "randomized-response", "relation_size": 6,
      "candidates": ["unbiased", "posterior-block"]}, 2),
], ids=["rr", "rr-block", "rr-rank-2", "pca", "named"])
def test_max_2csp_prices_as_many_solves_as_it_runs(kw, count):
    """The solver's memory was priced for five objectives whatever the route, rank and
    relation_size: the count from public values is the number of objectives the run solves."""
    from dpgraph.solve.csp import solved_objectives

    inst = max_k_cut_instance(nx.cycle_graph(12), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=0, **kw)
    priced = solved_objectives(kw["route"], inst.n * inst.q, kw.get("rank", 8),
                               kw.get("candidates", "auto"),
                               block_informative=kw.get("relation_size", 9) < 9)
    assert priced == len(res.diagnostics["candidates"]) == count


def _rr_samples(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dpgraph.max_2csp(max_k_cut_instance(nx.cycle_graph(30), 3), epsilon=1.0,
                                delta=1e-6, route="randomized-response",
                                solver_options={"samples": 2000}, rng=0, **kw)


def test_max_2csp_runs_the_solves_that_fit(monkeypatch):
    """samples=2,000 on 30 variables x 3 values (four objectives) was refused under a 64 MiB
    limit, priced as five whole solves (91 MiB): the solves run one after another, and each
    finished one holds only its candidates and factor for the pooled choice. The run holds
    less than the limit."""
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "64M")
    tracemalloc.start()
    try:
        res = _rr_samples()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(res.diagnostics["candidates"]) == 4 and peak < parse_bytes("64M")


def test_max_2csp_refuses_solves_that_do_not_fit_before_spending(monkeypatch, spend_spy):
    """One byte under the price of the four solves: refused before anything is spent (no
    draw, no charge, nothing recorded in a running ledger), naming the samples that fit
    with the four objectives, the release and the certificates held with them
    (:func:`dpgraph.solve.csp.dense_2csp_bytes`)."""
    from dpgraph.engine.twocsp import label_engine_bytes
    from dpgraph.solve.csp import dense_2csp_bytes

    def price(samples):
        return dense_2csp_bytes(30, 3, route="randomized-response",
                                solver_options={"samples": samples})

    limit = label_engine_bytes(30, 3, samples=2000, objectives=4) - 1
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(limit))
    total = dpgraph.PrivacyLedger(epsilon=2.0, delta=1e-5)
    with pytest.raises(InsufficientMemoryError, match="At most samples=") as info:
        _rr_samples(ledger=total)
    assert spend_spy == {"charge": 0, "draw": 0} and total.entries == ()
    fits = int(str(info.value).split("At most samples=")[1].split(" ")[0].replace(",", ""))
    assert price(fits) <= limit < price(fits + 1)


@pytest.mark.parametrize("solve", [dpgraph.solve_max_cut, dpgraph.solve_max_bisection])
def test_weights_that_overflow_the_engine_are_refused(solve):
    """Weights of 1e200 (or 1e308 read from a file) ended in NumPy's LinAlgError
    'Eigenvalues did not converge' or a failed Cholesky certificate."""
    G = nx.Graph([(u, (u + 1) % 4, {"weight": 1e200}) for u in range(4)])
    with pytest.raises(ValueError, match="divide every weight by a common factor"):
        solve(G, rng=0)
    H = nx.Graph([(u, (u + 1) % 4, {"weight": 1e50}) for u in range(4)])
    assert solve(H, rng=0).value == pytest.approx(4e50)


def test_2csp_weights_that_overflow_the_engine_are_refused():
    with pytest.raises(ValueError, match="constraints' weights add up to 9.9e\\+301"):
        dpgraph.solve_max_2csp(_chain(weight=1e300), rng=0)


@pytest.mark.parametrize("call, fits", [
    (lambda: dpgraph.onehot_marginals(np.zeros((4, 3), dtype=int), [10**6] * 3, 2, epsilon=1.0,
                                      delta=1e-6, rng=0), r"one-hot columns \(sum of sizes\) fit"),
    (lambda: dpgraph.private_second_moment(np.full((3, 100_000), 1e-3), epsilon=1.0,
                                           delta=1e-6, rng=0), "columns fit"),
    (lambda: dpgraph.private_cosine_similarities(np.ones((100_000, 3)), epsilon=1.0,
                                                 delta=1e-6, rng=0), "vectors fit"),
], ids=["onehot_marginals", "private_second_moment", "private_cosine_similarities"])
def test_dense_mechanism_releases_are_priced_before_spending(limited, spend_spy, call, fits):
    """Their n x n (d x d) releases were never priced: a bare MemoryError at 10^5 (after the
    noise was charged, for the second moment), and 0.3 to 1.3 GiB under a 300 MiB limit at
    3,000 columns or vectors."""
    text = _refusal(call, limited, fits)
    assert "At most" in text
    assert spend_spy == {"charge": 0, "draw": 0}


@pytest.mark.parametrize("adjacency", ["replace-one", "add-remove"])
@pytest.mark.parametrize("sizes, fits", [([100] * 4, "cells in all .* fit"),
                                         ([10**6] * 3, "cells in all .* fit"),
                                         ([2] * 3 + [100] * 3, "cells in all .* fit"),
                                         ([2] * 200, "use fewer attributes")],
                         ids=["4x100", "3x10^6", "mixed", "200x2"])
def test_onehot_3way_marginals_are_priced_before_spending(limited, spend_spy, sizes, fits,
                                                          adjacency):
    """k=3 was never priced (k=2 was): 3-way tables of 4 attributes of 100 values (4 * 10**6
    cells) held about 150 MiB under a 24 MiB limit, sizes of 10**6 asked NumPy for 10**18
    cells, and 200 binary attributes (1.3 million tables) built a Python object per table;
    refused now before the ledger or the noise, naming the cells that fit."""
    from itertools import combinations

    from dpgraph.privacy import PrivacyLedger

    table = np.zeros((4, len(sizes)), dtype=int)
    table[1] = 1
    led = PrivacyLedger(epsilon=1.0, delta=1e-6)
    text = _refusal(lambda: dpgraph.onehot_marginals(table, sizes, 3, epsilon=1.0, delta=1e-6,
                                                     ledger=led, adjacency=adjacency,
                                                     max_iter=2, rng=0),
                    limited, fits)
    assert "3-way marginals" in text and spend_spy == {"charge": 0, "draw": 0}
    assert led.entries == () and led.spent == (0.0, 0.0)
    if "At most " in text:
        cells = int(text.split("At most ")[1].split(" ")[0].replace(",", ""))
        assert 1 <= cells < sum(int(np.prod(c)) for c in combinations(sizes, 3))


def test_onehot_3way_marginals_that_fit_are_released(limited):
    """The price lets a small release through (under the same 24 MiB limit)."""
    rng = np.random.default_rng(0)
    table = rng.integers(0, 5, size=(50, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpgraph.onehot_marginals(table, [5] * 4, 3, epsilon=1.0, delta=1e-6, rng=0)
    assert len(res.tables) == 4 and res.ledger.spent[0] > 0


@pytest.mark.parametrize("sparse", [False, True])
def test_a_huge_self_loop_leaves_the_cut_and_its_bound_alone(sparse):
    # self-loops count in no cut; kept in W and subtracted in every product, a loop 1e17 times
    # the edges cancelled them (a cut of 1.5 and a "certified" bound of 0.75 on a path of cut 2)
    import scipy.sparse as sp

    from dpgraph.engine import solve_max_cut

    M = np.array([[1e17, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    given = sp.csr_array(M) if sparse else M
    before = given.copy()
    res = solve_max_cut(given, rng=0)
    assert res.value == 2.0 and res.upper_bound >= 2.0 - 1e-9
    diff = (given - before)
    assert (abs(diff).sum() if sparse else np.abs(diff).sum()) == 0  # the input is left as given
