"""The engine's answers scale with the weights: multiplying every weight by s multiplies the
cut value, the SDP value and the certified bound by s and leaves the partition as it is.

The solvers' tolerances are relative to weights near 1 (``max(1, ...)`` floors, step sizes
clipped to [1e-12, 1e12], SCS's absolute accuracy), so the engine solves on the weights times
the power of two that brings the largest to [1, 2) and scales every value back: both products
are exact in binary floating point. Before that, weights of 1e-30 gave a worse cut and only the
trivial bound, weights of 1e30 an SDP value below the cut itself, and a 2-CSP of weight 1e30
ended in NumPy's "Eigenvalues did not converge".
"""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.engine import CSPInstance, solve_max_2csp

N = 14
# powers of two scale exactly (the same normalised weights, bit for bit); the others give
# weights rounded differently, a problem equal only up to rounding
DYADIC = [2.0 ** -100, 2.0 ** -30, 2.0 ** 60]
DECIMAL = [1e-30, 1e-8, 1e8, 1e30, 1e50]
SCALES = DYADIC + DECIMAL


def _weights() -> np.ndarray:
    """A weighted G(14, 0.4): integer weights 1..5, dense, zero diagonal."""
    rs = np.random.default_rng(5)
    W = np.zeros((N, N))
    for u, v in nx.gnp_random_graph(N, 0.4, seed=3).edges():
        W[u, v] = W[v, u] = rs.integers(1, 6)
    return W


def _graph(s: float) -> nx.Graph:
    W = _weights()
    g = nx.Graph()
    g.add_nodes_from(range(N))
    g.add_weighted_edges_from((u, v, W[u, v] * s) for u, v in zip(*np.nonzero(np.triu(W))))
    return g


def _brute_force(W: np.ndarray, *, balanced: bool) -> float:
    """The maximum cut (bisection: over ``|sum x| <= 1``) by enumerating every x with x_0 = 1,
    each cut summed over its edges (no cancellation)."""
    n = W.shape[0]
    bits = (np.arange(2 ** (n - 1))[:, None] >> np.arange(n - 1)) & 1
    X = np.hstack([np.zeros((bits.shape[0], 1), dtype=bits.dtype), bits])
    if balanced:
        X = X[np.abs(2 * X.sum(axis=1) - n) <= 1]
    iu, ju = np.nonzero(np.triu(W, 1))
    return float(np.max(((X[:, iu] != X[:, ju]) * W[iu, ju]).sum(axis=1)))


SOLVERS = {"max-cut": dpgraph.solve_max_cut, "bisection": dpgraph.solve_max_bisection}


@pytest.fixture(scope="module", params=sorted(SOLVERS))
def reference(request):
    """The problem's name, its solver, the solve at scale 1 and the optimum by brute force."""
    solve = SOLVERS[request.param]
    return (request.param, solve, solve(_graph(1.0), rng=0),
            _brute_force(_weights(), balanced=request.param == "bisection"))


def _agree(got: float, want: float, rel: float) -> bool:
    return abs(got - want) <= rel * abs(want)


@pytest.mark.parametrize("s", SCALES)
def test_cut_and_bounds_scale_with_the_weights(reference, s):
    """Same partition, value, SDP value and bound times s; the bound stays above the optimum.
    Powers of two give the scale-1 numbers exactly; Max-Cut agrees to 1e-9 at every scale.
    Max-Bisection's augmented Lagrangian solve (tol 1e-6) follows another path on weights that
    round differently: its SDP value agrees to 1e-6 and its bound to 2e-3 (measured 8e-4)."""
    name, solve, ref, best = reference
    res = solve(_graph(s), rng=0)
    assert res.assignment == ref.assignment
    assert _agree(res.value, s * ref.value, 1e-12)
    loose = name == "bisection" and s not in DYADIC
    assert _agree(res.sdp_value, s * ref.sdp_value, 1e-6 if loose else 1e-9)
    assert _agree(res.upper_bound, s * ref.upper_bound, 2e-3 if loose else 1e-9)
    assert res.upper_bound >= best * s >= res.value * (1 - 1e-12)
    assert res.gap == pytest.approx(ref.gap, abs=1e-3 if loose else 1e-9)
    assert "trivial" not in res.info["certificate"]


# info entries that are counts, ratios or flags (seconds aside): the same at every scale
UNITLESS = {"n", "nnz", "rank", "iterations", "products", "sdp_gap", "imbalance", "converged",
            "dense_input", "N", "N_reduced", "factorizations", "ldl_nnz_factor", "equalities",
            "nonneg", "local_search_moves"}


def _check_info(info: dict, ref: dict, s: float) -> None:
    """Each number of ``info`` is ``ref``'s times s (weight units) or the same (the rest); a
    number in neither list fails, naming its key."""
    from dpgraph.engine.operator import WEIGHT_UNIT_INFO

    for key, value in ref.items():
        if isinstance(value, (bool, str, dict, list, tuple, np.ndarray)) or value is None \
                or key.endswith("seconds"):
            continue
        assert key in set(WEIGHT_UNIT_INFO) | UNITLESS, f"info[{key!r}]: in weight units or not?"
        assert info[key] == (value * s if key in WEIGHT_UNIT_INFO else value), key


def _grid(s: float) -> nx.Graph:
    """A weighted 25 x 25 grid: over 500 nodes and sparse, certified by sparse LDL^T."""
    g = nx.convert_node_labels_to_integers(nx.grid_2d_graph(25, 25))
    h = nx.Graph()
    h.add_weighted_edges_from((u, v, s * (1 + (u + v) % 3)) for u, v in g.edges())
    return h


@pytest.mark.parametrize("certificate", ["auto", "lanczos", "factor"])
@pytest.mark.parametrize("s", [2.0 ** -100, 2.0 ** 60])
def test_every_diagnostic_in_weight_units_scales(reference, s, certificate):
    """At a power-of-two scale every entry of ``info`` is the scale-1 one times s (weight
    units) or the same (counts, ratios, names), for the dense Cholesky, the Lanczos and the
    sparse LDL^T certificates; a new entry must say which it is."""
    _, solve, ref, _ = reference
    graph = _grid if certificate == "factor" else _graph
    if certificate != "auto":
        ref = solve(graph(1.0), rng=0, certificate=certificate)
    res = solve(graph(s), rng=0, certificate=certificate)
    assert res.info["certificate"].split(" (")[0] == ref.info["certificate"].split(" (")[0]
    assert res.info["candidates"] == {k: v * s for k, v in ref.info["candidates"].items()}
    assert np.array_equal(res.info["rounded"], ref.info["rounded"])
    assert np.array_equal(res.V, ref.V)
    improve = ref.info["improve"]
    if improve is not None and "anneal_value" in improve:
        assert res.info["improve"]["anneal_value"] == improve["anneal_value"] * s
    _check_info(res.info, ref.info, s)


@pytest.mark.parametrize("s", [1e-30, 2.0 ** -100, 1e30])
def test_a_time_budget_and_no_certificate_scale_too(s):
    """The time-budgeted improvement's target and the trivial bound follow the weights."""
    ref = dpgraph.solve_max_cut(_graph(1.0), rng=0, certificate=False, time_limit=0.3)
    res = dpgraph.solve_max_cut(_graph(s), rng=0, certificate=False, time_limit=0.3)
    assert _agree(res.value, s * ref.value, 1e-12)
    assert _agree(res.upper_bound, s * ref.upper_bound, 1e-12)
    assert res.upper_bound >= _brute_force(_weights(), balanced=False) * s


@pytest.mark.parametrize("solve", sorted(SOLVERS))
def test_subnormal_weights(solve):
    """Weights of about 1e-310 (subnormal floats) are scaled up exactly: the scale-1 cut and
    bound times the scale, the bound still above the optimum (rounded up where subnormal)."""
    s = 1e-310
    ref = SOLVERS[solve](_graph(1.0), rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no underflow or overflow on the way
        res = SOLVERS[solve](_graph(s), rng=0)
    assert res.assignment == ref.assignment
    assert res.value == pytest.approx(s * ref.value, rel=1e-12, abs=0)
    best = _brute_force(_weights() * s, balanced=solve == "bisection")
    assert res.upper_bound >= best > 0
    assert res.upper_bound == pytest.approx(s * ref.upper_bound, abs=0,
                                            rel=1e-3 if solve == "bisection" else 1e-9)


@pytest.mark.parametrize("s", [1e-30, 2.0 ** -4, 1e30])
def test_a_dense_matrix_is_not_modified(s):
    """A caller's dense matrix: solved in place where its largest weight is near 1 (no copy),
    copied (priced) outside [2^-10, 2^20]; never changed, and the answer scales either way."""
    W = _weights() * s
    W.flags.writeable = False  # any write raises
    before = W.copy()
    ref = dpgraph.solve_max_cut(_weights(), rng=0)
    res = dpgraph.solve_max_cut(W, rng=0)
    assert np.array_equal(W, before)
    assert res.assignment == ref.assignment
    assert _agree(res.upper_bound, s * ref.upper_bound, 1e-9)
    from dpgraph.engine.operator import normalized_operator

    op, k = normalized_operator(W)
    assert (op.W is W) == (k == 0) and (k == 0) == (s == 2.0 ** -4)


def test_owned_copies_are_scaled_and_inputs_kept():
    """A sparse matrix, a GraphData (whose matrix the caller holds) and a dense matrix with a
    diagonal (which the engine copies anyway) come back unchanged."""
    from dpgraph.engine.operator import normalized_operator

    W = _weights() * 1e-30
    S = sp.csr_array(W)
    gd = dpgraph.as_graph_data(S)
    held = gd.weights.copy()
    D = W + np.diag(np.full(N, 3e-30))
    for G in (S, gd, D):
        op, k = normalized_operator(G)
        largest = op.abs_stats()[1]
        assert 1 <= largest < 2 and largest == np.ldexp(np.max(W), k)
        assert dpgraph.solve_max_cut(G, rng=0).upper_bound >= 1e-30 * _brute_force(
            _weights(), balanced=False)
    assert (S != sp.csr_array(W)).nnz == 0 and (gd.weights != held).nnz == 0
    assert np.array_equal(np.diagonal(D), np.full(N, 3e-30))


@pytest.mark.parametrize("s", [1.0, 1e-13, 1e-30])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
def test_the_symmetry_check_is_relative_to_the_weights(form, s):
    """A matrix that is not symmetric is refused at any scale: the check's tolerance was an
    absolute 1e-12, which every matrix of weights below it passed."""
    A = np.random.default_rng(0).random((6, 6))
    np.fill_diagonal(A, 0.0)
    with pytest.raises(ValueError, match="not symmetric"):
        dpgraph.solve_max_cut(form(A * s), rng=0)
    assert dpgraph.solve_max_cut(form((A + A.T) * s), rng=0).value > 0


def test_extreme_weight_ranges_stay_exact():
    """Weights of 1e50 beside 1e-300: scaling down stops where the smallest would leave the
    normal floats (the solve then runs at 2^-25 times the weights, not near 1), so the scaled
    weights are exact and the bound holds."""
    from dpgraph.engine.operator import normalized_operator

    W = _weights() * 1e50
    W[0, 1] = W[1, 0] = 1e-300
    op, k = normalized_operator(W)
    assert np.array_equal(np.ldexp(op.W, -k), W)  # nothing lost
    res = dpgraph.solve_max_cut(W, rng=0)
    assert res.upper_bound >= _brute_force(W, balanced=False) >= res.value * (1 - 1e-12)


# ----------------------------------------------------------------------------- 2-CSP


def _csp(s: float, n: int = 12, q: int = 3) -> CSPInstance:
    rs = np.random.default_rng(3)
    cons = []
    for u, v in nx.random_regular_graph(4, n, seed=2).edges():
        rel = {(a, b) for a in range(q) for b in range(q) if rs.random() < 0.4}
        cons.append((u, v, rel, float(rs.integers(1, 4)) * s))
    return CSPInstance(n, q, cons)


def _csp_optimum(inst: CSPInstance) -> float:
    """The best assignment's value, by enumerating all ``q**n``."""
    X = np.indices((inst.q,) * inst.n).reshape(inst.n, -1).T
    total = np.zeros(X.shape[0])
    for i, j, rel, w in inst.constraints:
        allowed = np.zeros((inst.q, inst.q), dtype=bool)
        for a, b in rel:
            allowed[a, b] = True
        total += w * allowed[X[:, i], X[:, j]]
    return float(total.max())


@pytest.fixture(scope="module")
def csp_reference():
    """The solve at scale 1 and the optimum by brute force (3^12 assignments)."""
    return solve_max_2csp(_csp(1.0), rng=0), _csp_optimum(_csp(1.0))


@pytest.mark.parametrize("s", SCALES + [1e-310])
def test_2csp_scales_with_the_weights(csp_reference, s):
    """The low-rank 2-CSP solve: the value times s and the bound above the optimum times s; at
    powers of two the same assignment and every number exactly. Elsewhere the weights round
    differently and the solver (tol 1e-7 on the relative change) stops elsewhere: the rounding
    may draw another assignment of the same value, and the bound moves by up to 1.3e-3 (as
    it does between weights of 1 and 0.75 = 1.5 / 2: 2.7e-4, not a matter of scale). Weights
    of 1e30 raised LinAlgError; 1e-30 gave a bound of 3e19 times the weights."""
    ref, best = csp_reference
    res = solve_max_2csp(_csp(s), rng=0)
    exact = s in DYADIC
    assert np.array_equal(res.x, ref.x) or not exact
    assert res.value == pytest.approx(s * ref.value, rel=1e-12, abs=0)
    assert res.sdp_value == pytest.approx(s * ref.sdp_value, rel=1e-9 if exact else 1e-4, abs=0)
    assert res.upper_bound == pytest.approx(s * ref.upper_bound, rel=1e-9 if exact else 5e-3,
                                            abs=0)
    assert res.upper_bound >= best * s >= res.value * (1 - 1e-12)
    if exact:
        _check_info(res.info, ref.info, s)


@pytest.mark.parametrize("s", [2.0 ** -100, 2.0 ** 60])
def test_2csp_ldl_certificate_diagnostics_scale(s):
    """The sparse LDL^T certificate of the 2-CSP: its entries in weight units scale too."""
    ref = solve_max_2csp(_csp(1.0), rng=0, certificate="ldl")
    res = solve_max_2csp(_csp(s), rng=0, certificate="ldl")
    assert res.info["certificate"] == ref.info["certificate"] == "ldl-verified"
    assert res.upper_bound == ref.upper_bound * s
    _check_info(res.info, ref.info, s)


@pytest.fixture(scope="module", params=["lowrank", "scs"])
def small_csp_reference(request):
    """The method, its solve at scale 1 of 6 variables x 2 values, and the optimum."""
    if request.param == "scs":
        pytest.importorskip("cvxpy")
    return (request.param, solve_max_2csp(_csp(1.0, n=6, q=2), rng=0, method=request.param),
            _csp_optimum(_csp(1.0, n=6, q=2)))


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate:UserWarning")  # SCS, any scale
@pytest.mark.parametrize("s", [1e-30, 1e30])
def test_2csp_bound_holds_at_any_scale(small_csp_reference, s):
    """Both methods: the value and the bound times s, the bound above the optimum (brute
    force). SCS's absolute accuracy gave 1e20 times the optimum at 1e-30 and no solution at
    1e30 ("unbounded_inaccurate")."""
    method, ref, best = small_csp_reference
    res = solve_max_2csp(_csp(s, n=6, q=2), rng=0, method=method)
    assert res.upper_bound >= best * s >= res.value * (1 - 1e-12)
    assert res.upper_bound == pytest.approx(s * ref.upper_bound, rel=1e-3, abs=0)
    assert res.value == pytest.approx(s * ref.value, rel=1e-12, abs=0)


def _progress_values(text: str) -> list[float]:
    """Every number printed after 'value', 'relaxation' or 'bound' in the progress lines."""
    import re

    return [float(x) for x in re.findall(r"(?:value|relaxation|bound) (-?[0-9.]+(?:e[-+]?\d+)?)",
                                         text)]


@pytest.mark.parametrize("problem", ["cut", "2csp"])
def test_progress_lines_print_the_callers_units(capsys, problem):
    """The per-iteration lines of the SDP solvers (and the 2-CSP summary) printed the
    normalised values: about 100 for weights of 1e-30."""
    s = 1e-30
    if problem == "cut":
        dpgraph.solve_max_cut(_graph(s), rng=0, progress=True, max_iter=200, tol=1e-12)
        at_one = 100.0  # the graph's cut values are tens of its unit weights
    else:
        solve_max_2csp(_csp(s, n=40), rng=0, progress=True, tol=1e-12)
        at_one = 200.0  # 80 constraints of weight 1-3
    values = _progress_values(capsys.readouterr().err)
    assert len(values) >= 2
    assert all(0 < v < 10 * at_one * s for v in values), values
