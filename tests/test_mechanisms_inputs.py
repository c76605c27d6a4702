"""Input validation of dpgraph.mechanisms and dpgraph.spectral.bounds: sparse inputs, convex-set
parameters, result accessors, one-hot tables, privacy parameters, documentation citations and
runnable examples (audit findings f04, f06-f11)."""

import inspect
import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.mechanisms import (
    Box,
    DiagonalBox,
    PSDCone,
    PSDTraceBall,
    jl_second_moment,
    jl_two_way_marginals,
    kway_marginals,
    onehot_marginals,
    perturb_and_project,
    private_cosine_similarities,
    private_second_moment,
    replace_one_vector_sensitivity,
)
from dpgraph.privacy import validation
from dpgraph.privacy.validation import check_sensitivity
from dpgraph.spectral import EntryAdjacency, bounds, private_low_rank

ROOT = Path(__file__).resolve().parent.parent
PRIV = dict(epsilon=1.0, delta=1e-6)


# --- f06: scipy.sparse inputs ------------------------------------------------------------------

def test_sparse_value_in_perturb_and_project_equals_dense():
    A = np.eye(3) * 0.5
    a = perturb_and_project(A, PSDCone(), sensitivity=1, rng=0, **PRIV)
    b = perturb_and_project(sp.csr_matrix(A), PSDCone(), sensitivity=1, rng=0, **PRIV)
    np.testing.assert_array_equal(a.release, b.release)


def test_sparse_vectors_in_cosine_similarities_equal_dense():
    V = np.random.default_rng(1).standard_normal((6, 5))
    V[V < 0.2] = 0.0
    V[:, 0] = 1.0  # no zero row
    a = private_cosine_similarities(V, rng=0, **PRIV)
    b = private_cosine_similarities(sp.csr_matrix(V), rng=0, **PRIV)
    np.testing.assert_allclose(a.similarities, b.similarities, atol=1e-10)
    with pytest.raises(ValueError, match="non-zero"):
        private_cosine_similarities(sp.csr_matrix((3, 4)), **PRIV)


def test_sparse_data_in_second_moment_and_marginals_equal_dense():
    X = np.eye(3)[[0, 1, 2, 0]] * 0.5
    a = private_second_moment(X, rng=0, **PRIV)
    b = private_second_moment(sp.csr_matrix(X), rng=0, **PRIV)
    np.testing.assert_array_equal(a.estimate, b.estimate)
    c = jl_second_moment(sp.csr_matrix(X), jl_dim=10, rng=0, **PRIV)
    np.testing.assert_array_equal(c.estimate, jl_second_moment(X, jl_dim=10, rng=0,
                                                                **PRIV).estimate)
    B = np.eye(3)[[0, 1, 2, 0]]
    k1 = kway_marginals(B, 2, rng=0, **PRIV)
    k2 = kway_marginals(sp.csr_matrix(B), 2, rng=0, **PRIV)
    np.testing.assert_array_equal(k1.tensor, k2.tensor)
    assert jl_two_way_marginals(sp.csr_matrix(B), jl_dim=10, rng=0, **PRIV).estimate.shape \
        == (3, 3)
    tab = np.array([[0, 1], [1, 0], [1, 1]])
    o1 = onehot_marginals(tab, [2, 2], 2, rng=0, **PRIV)
    o2 = onehot_marginals(sp.csr_matrix(tab), [2, 2], 2, rng=0, **PRIV)
    np.testing.assert_array_equal(o1.tables[(0, 1)], o2.tables[(0, 1)])


def test_non_numeric_arrays_are_refused_naming_the_parameter():
    with pytest.raises(ValueError, match="value must be a numeric array"):
        perturb_and_project(np.array(["1", "2"]), Box(0, 1), sensitivity=1, **PRIV)
    with pytest.raises(ValueError, match="data must be a numeric array"):
        kway_marginals(np.array([["1", "0"]]), 1, **PRIV)
    with pytest.raises(ValueError, match="vectors must be a numeric array"):
        private_cosine_similarities([[1, 0], [0]], **PRIV)  # ragged
    dense = validation.dense_array(sp.eye(2, format="coo"), name="x")
    assert dense.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_spectral_still_accepts_sparse():
    u = np.ones(30) / np.sqrt(30)
    M = sp.csr_matrix(100 * np.outer(u, u))
    res = private_low_rank(M, 1, adjacency=EntryAdjacency(1.0), rng=0, **PRIV)
    assert res.basis.shape == (30, 1)


# --- f07: convex-set constructors --------------------------------------------------------------

@pytest.mark.parametrize("trace", [0.0, -1.0, math.nan, math.inf, "1", True])
def test_psd_trace_ball_refuses_bad_trace(trace):
    with pytest.raises(ValueError, match="PSDTraceBall: trace must be"):
        PSDTraceBall(trace)


def test_diagonal_box_validates_like_box():
    with pytest.raises(ValueError, match="DiagonalBox: lower must be <= upper"):
        DiagonalBox(lower=2.0, upper=1.0)
    with pytest.raises(ValueError, match="DiagonalBox: lower must not contain NaN"):
        DiagonalBox(lower=math.nan)
    with pytest.raises(ValueError, match="DiagonalBox: upper"):
        DiagonalBox(upper="1")
    with pytest.raises(ValueError, match="DiagonalBox: lower must be <= upper"):
        DiagonalBox(lower=[0.0, 2.0], upper=[1.0, 1.0])
    box = DiagonalBox(lower=[0.0, 0.5], upper=[1.0, 1.0])  # arrays along the diagonal still work
    P = box.project(np.diag([2.0, 0.0]))
    np.testing.assert_array_equal(np.diag(P), [1.0, 0.5])
    assert box.contains(P)
    assert DiagonalBox(1, 1).contains(np.eye(2))


@pytest.mark.parametrize("lower,upper", [(math.nan, 1.0), (0.0, math.nan),
                                         (np.array([0.0, math.nan]), 1.0), (math.inf, None),
                                         (None, -math.inf), ("0", 1.0), (True, None)])
def test_box_refuses_nan_empty_and_non_numeric_bounds(lower, upper):
    with pytest.raises(ValueError, match="Box:"):
        Box(lower, upper)


def test_box_keeps_infinite_bounds_that_leave_the_set_non_empty():
    np.testing.assert_array_equal(Box(-math.inf, math.inf).project(np.array([3.0])), [3.0])
    np.testing.assert_array_equal(Box(0.0, np.array([math.inf, 1.0])).project(
        np.array([5.0, 5.0])), [5.0, 1.0])


# --- f08: result accessors ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def kway_result():
    X = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 0, 0]], float)
    return kway_marginals(X, 2, epsilon=1e4, delta=1e-6, rng=0)


@pytest.mark.parametrize("features,bad", [([-1], "-1"), ([-3], "-3"), ([3], "3"), ([0, 7], "7")])
def test_marginals_result_refuses_out_of_range_features(kway_result, features, bad):
    for accessor in (kway_result.conjunction, kway_result.marginal):
        with pytest.raises(ValueError, match=rf"feature index {bad} is out of range.*0 \.\. 2"):
            accessor(features)


def test_marginals_result_refuses_non_integer_features(kway_result):
    with pytest.raises(ValueError, match="feature index 0.5 is not an integer"):
        kway_result.conjunction([0.5])
    with pytest.raises(ValueError, match="must be a list of feature indices"):
        kway_result.marginal(1)
    # valid spellings still work: NumPy integers, integral floats, repeated features
    assert kway_result.conjunction([np.int64(0)]) == kway_result.conjunction([0.0])
    assert kway_result.conjunction([1, 1]) == kway_result.conjunction([1])
    assert kway_result.marginal([2, 0]).shape == (2, 2)


def test_onehot_result_refuses_out_of_range_attributes():
    o = onehot_marginals(np.array([[0, 1, 2], [1, 0, 1]]), [2, 2, 3], 2, rng=0, **PRIV)
    with pytest.raises(ValueError, match=r"attribute index 5 is out of range.*0 \.\. 2"):
        o.marginal([5])
    with pytest.raises(ValueError, match="attribute index -1 is out of range"):
        o.marginal([-1])
    assert o.marginal([2, 0]).shape == (3, 2)


# --- f09: onehot_marginals inputs ---------------------------------------------------------------

TAB = np.array([[0, 1, 2], [1, 0, 1]])


@pytest.mark.parametrize("size", [3.9, 2.9, "3", True, 0])
def test_onehot_refuses_non_integer_sizes(size):
    with pytest.raises(ValueError, match=r"sizes\[2\]"):
        onehot_marginals(TAB, [2, 2, size], 2, **PRIV)


def test_onehot_accepts_integral_float_sizes():
    assert onehot_marginals(TAB, [2, 2, 3.0], 2, rng=0, **PRIV).sizes == [2, 2, 3]


def test_onehot_refuses_string_and_fractional_codes():
    with pytest.raises(ValueError, match="integer category codes.*dtype <U1"):
        onehot_marginals(np.array([["a", "b"]]), [2, 2], 2, **PRIV)
    with pytest.raises(ValueError, match=r"integer category codes; entry \(0, 1\) is 0.5"):
        onehot_marginals(np.array([[0, 0.5]]), [2, 2], 2, **PRIV)
    with pytest.raises(ValueError, match="sizes must be a list"):
        onehot_marginals(TAB, 3, 2, **PRIV)


@pytest.mark.parametrize("k", [2, 3])
def test_onehot_all_single_valued_attributes_say_so(k):
    with pytest.raises(ValueError, match="every attribute has a single value"):
        onehot_marginals(np.zeros((3, 3), int), [1, 1, 1], k, rng=0, **PRIV)
    # with add/remove adjacency the row count is private: a release is still meaningful
    res = onehot_marginals(np.zeros((3, 3), int), [1, 1, 1], k, rng=0,
                           adjacency="add-remove", **PRIV)
    assert res.m > 0


# --- f10: privacy parameters and spectral bounds ------------------------------------------------

@pytest.mark.parametrize("bad", [True, np.bool_(True), "1", b"1"])
def test_sensitivity_refuses_booleans_and_strings(bad):
    with pytest.raises(ValueError, match="sensitivity must be a number"):
        check_sensitivity(bad)
    with pytest.raises(ValueError, match="sensitivity must be a number"):
        perturb_and_project(np.zeros(2), Box(-9, 9), sensitivity=bad, rng=0, **PRIV)


@pytest.mark.parametrize("bad", ["1", True, b"1"])
def test_adjacency_refuses_strings_and_booleans(bad):
    u = np.ones(30) / np.sqrt(30)
    with pytest.raises(ValueError, match="adjacency must be a float Delta > 0"):
        private_low_rank(100 * np.outer(u, u), 1, adjacency=bad, rng=0, **PRIV)
    with pytest.raises(ValueError, match="adjacency must be a float Delta > 0"):
        bounds.projected_core_sensitivity(bad, np.eye(3)[:, :2])
    with pytest.raises(ValueError, match="EntryAdjacency.max_abs must be a number"):
        EntryAdjacency(bad)


@pytest.mark.parametrize("n", [2.7, "3", True, 0, -1, math.nan])
def test_replace_one_vector_sensitivity_refuses_non_integers(n):
    with pytest.raises(ValueError, match="n \\(the number of vectors\\) must be an integer"):
        replace_one_vector_sensitivity(n)


def test_replace_one_vector_sensitivity_values():
    assert replace_one_vector_sensitivity(3) == replace_one_vector_sensitivity(3.0) == 4.0
    assert replace_one_vector_sensitivity(np.int64(1)) == 0.0


@pytest.mark.parametrize("call,match", [
    (lambda: bounds.gap_sensitivity(-1.0), "eta must be a finite number > 0"),
    (lambda: bounds.gap_sensitivity(math.nan), "eta must be a finite number > 0"),
    (lambda: bounds.gap_sensitivity("1"), "eta must be a number"),
    (lambda: bounds.log_row_scale_sensitivity(1.0, 0.1, math.nan), "gap_lower must be a finite"),
    (lambda: bounds.log_row_scale_sensitivity(-1.0, 0.1, 5.0), "c_E must be a finite number > 0"),
    (lambda: bounds.log_row_scale_sensitivity(1.0, 0.1, 0.05), "gap_lower > eta"),
    (lambda: bounds.sin_theta_bound(1.0, 1.0, 3.0, -0.5),
     r"row_scale must be a finite number >= 0"),
    (lambda: bounds.projector_sensitivity(1.0, 1.0, math.inf, 0.5), "gap_lower must be a finite"),
    (lambda: bounds.projector_sensitivity(1.0, 1.0, 3.0, math.nan), "row_scale_upper must be"),
    (lambda: bounds.projected_core_sensitivity(-1.0, np.eye(3)[:, :2]),
     "adjacency must be a finite Delta > 0"),
    (lambda: bounds.projected_core_sensitivity(1.0, 2 * np.eye(3)[:, :2]),
     "basis must have orthonormal columns"),
    (lambda: bounds.projected_core_sensitivity(1.0, np.full((3, 1), math.nan)),
     "basis contains NaN"),
    (lambda: bounds.adjacency_constants(-2.0, symmetric=True), "adjacency must be a finite"),
])
def test_spectral_bounds_validate_their_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_spectral_bounds_values_unchanged():
    assert bounds.gap_sensitivity(1.5) == 3.0
    assert bounds.sin_theta_bound(2.0, 1.0, 3.0, 0.5) == 0.5
    assert bounds.projector_sensitivity(2.0, 1.0, 3.0, 0.0) == 0.0
    assert bounds.log_row_scale_sensitivity(1.0, 1.0, 1.5) == math.inf
    B = np.eye(4)[:, :2]
    assert bounds.projected_core_sensitivity(EntryAdjacency(1.0), B) == pytest.approx(math.sqrt(2))
    assert bounds.projected_core_sensitivity(2.0, B) == pytest.approx(math.sqrt(2))


# --- f04: documentation citations and ledger notes ---------------------------------------------

def test_marginals_cite_the_binary_section_of_privacy_md():
    import dpgraph.mechanisms.marginals as mm

    doc = (ROOT / "docs" / "privacy.md").read_text()
    assert re.search(r"^### 2\.3 k-way marginals of binary data", doc, re.M)
    assert re.search(r"^### 2\.4 Marginals of categorical \(one-hot\) data", doc, re.M)
    src = inspect.getsource(mm)
    assert "privacy.md 2.4" not in src
    assert src.count("privacy.md 2.3") >= 2


@pytest.mark.parametrize("adjacency", ["replace-one", "add-remove"])
def test_onehot_k3_ledger_note_names_the_adjacency(adjacency):
    res = onehot_marginals(np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0]]), [2, 2, 3], 3, rng=0,
                           adjacency=adjacency, **PRIV)
    notes = [e.note for e in res.ledger.entries]
    assert any(adjacency in n for n in notes), notes
    other = "replace-one" if adjacency == "add-remove" else "add-remove"
    assert not any(other in n for n in notes), notes


# --- f11: runnable examples (they run as doctests under --doctest-modules) ----------------------

@pytest.mark.parametrize("func", [
    private_cosine_similarities, replace_one_vector_sensitivity, kway_marginals,
    onehot_marginals, jl_second_moment, jl_two_way_marginals,
])
def test_mechanisms_have_examples(func):
    assert ">>>" in (func.__doc__ or ""), func.__name__


def test_public_functions_have_examples():
    import dpgraph.mechanisms as M
    import dpgraph.spectral as S

    missing = [f"{mod.__name__}.{n}" for mod in (M, S, bounds) for n in mod.__all__
               if inspect.isfunction(getattr(mod, n))
               and ">>>" not in (getattr(mod, n).__doc__ or "")]
    assert not missing, missing
