import itertools
import math

import numpy as np
import pytest

from dpgraph.mechanisms import kway_marginals, onehot_marginals, tensor_sensitivity
from dpgraph.mechanisms.marginals import (
    FlattenedPSD,
    SlicePSD,
    TensorClassBox,
    moment_tensor,
)
from dpgraph.mechanisms.onehot import _k2_sets, _tables_of


def _all_rows(n, t=None):
    rows = np.array(list(itertools.product((0, 1), repeat=n)), dtype=float)
    return rows if t is None else rows[rows.sum(axis=1) <= t]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("n,t", [(5, None), (5, 2), (4, 3)])
def test_tensor_sensitivity_exact_by_brute_force(k, n, t):
    """Replace-one-row: the largest ||x^{(x)k} - y^{(x)k}||_F over all pairs of admissible rows
    equals tensor_sensitivity(k, n, t) (the bound holds and is attained)."""
    rows = _all_rows(n, t)
    best = 0.0
    for x in rows:
        for y in rows:
            d = moment_tensor(x[None], k) - moment_tensor(y[None], k)
            best = max(best, np.linalg.norm(d))
    assert best == pytest.approx(tensor_sensitivity(k, n, t), rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_data_tensors_lie_in_the_convex_sets(k):
    rng = np.random.default_rng(k)
    n, m = 5, 40
    X = (rng.random((m, n)) < 0.4).astype(float)
    T = moment_tensor(X, k)
    assert TensorClassBox(n, k, 0.0, float(m)).contains(T, tol=1e-9)
    t = int(X.sum(axis=1).max())
    if k % 2 == 0:
        assert FlattenedPSD(n, k).contains(T, tol=1e-7)
        assert FlattenedPSD(n, k, trace=m * t ** (k / 2)).contains(T, tol=1e-7)
    else:
        assert SlicePSD(n, k).contains(T, tol=1e-7)
        assert SlicePSD(n, k, trace=m * t ** ((k - 1) / 2)).contains(T, tol=1e-7)


@pytest.mark.parametrize("k", [2, 3])
def test_kway_marginals_answers(k):
    rng = np.random.default_rng(0)
    m, n = 3000, 5
    X = (rng.random((m, n)) < rng.uniform(0.2, 0.7, n)).astype(float)
    # essentially no noise: the release equals the truth
    res = kway_marginals(X, k, epsilon=1e5, delta=0.1, rng=1, tol=1e-10)
    for f in itertools.combinations(range(n), k):
        tab = res.marginal(f)
        assert tab.sum() == pytest.approx(1.0, abs=1e-6)
        truth = np.zeros((2,) * k)
        for row in X.astype(int):
            truth[tuple(row[list(f)])] += 1 / m
        assert np.abs(tab - truth).max() < 1e-3
    # caller's feature order is respected
    t01 = res.marginal((0, 1))
    t10 = res.marginal((1, 0))
    assert np.allclose(t01, t10.T)
    # a real privacy level: projection is at least as close to the truth as the raw noise
    res = kway_marginals(X, k, epsilon=1.0, delta=1e-6, rng=2)
    assert res.projection.converged
    assert res.ledger.spent == pytest.approx((1.0, 1e-6))


def test_kway_marginals_sparse_variant():
    rng = np.random.default_rng(1)
    m, n, t = 2000, 8, 2
    X = np.zeros((m, n))
    for r in range(m):
        X[r, rng.choice(n, size=rng.integers(0, t + 1), replace=False)] = 1
    res = kway_marginals(X, 2, epsilon=1.0, delta=1e-6, sparsity=t, rng=0)
    assert res.sensitivity == pytest.approx(tensor_sensitivity(2, n, t))
    assert np.trace(res.tensor) <= m * t * (1 + 1e-6)
    with pytest.raises(ValueError, match="sparsity"):
        kway_marginals(X, 2, epsilon=1.0, delta=1e-6, sparsity=1)


@pytest.mark.parametrize("bad", [
    dict(data=np.array([[0, 2], [1, 0]]), k=1),
    dict(data=np.array([[0.5, 1], [1, 0]]), k=1),
    dict(data=np.ones((3, 2)), k=3),
    dict(data=np.ones((3, 2)), k=0),
    dict(data=np.ones((3, 2)), k=1, epsilon=0.0),
    dict(data=np.ones((3, 2)), k=1, epsilon=-1.0),
    dict(data=np.ones((3, 2)), k=1, delta=1.0),
    dict(data=np.ones((3, 2)), k=1, delta=-0.5),
])
def test_kway_marginals_bad_input(bad):
    args = dict(epsilon=1.0, delta=1e-6) | bad
    with pytest.raises(ValueError):
        kway_marginals(args.pop("data"), args.pop("k"), **args)


# ---- one-hot categorical data

SIZES = [3, 4, 2, 5, 1]


def _cat(m, rng):
    T = np.stack([rng.integers(0, s, m) for s in SIZES], 1)
    T[:, 1] = (T[:, 0] + rng.integers(0, 2, m)) % 4
    return T


def _onehot(T):
    off = np.concatenate([[0], np.cumsum(SIZES)])
    X = np.zeros((T.shape[0], off[-1]))
    X[np.arange(T.shape[0])[:, None], T + off[:-1]] = 1
    return X


def _k3_replace_one_maximum(sizes):
    """The largest L2 change of the vector of all 3-way tables when one row is replaced: the
    exact maximum over every pair of rows of the domain."""
    rows = np.array(list(itertools.product(*[range(s) for s in sizes])))
    tables = [_tables_of(rows[i:i + 1], sizes, 3) for i in range(len(rows))]
    keys = list(tables[0])
    V = np.array([np.concatenate([t[S].ravel() for S in keys]) for t in tables])
    sq = (V ** 2).sum(axis=1)
    return math.sqrt(max(float((sq[:, None] + sq[None, :] - 2 * V @ V.T).max()), 0.0))


# all pairs of rows of these domains (with 1, 0, 3 and 4 single-valued attributes) in the k = 3
# part of test_onehot_sensitivities_by_brute_force
K3_SIZES = [[3, 4, 2, 5, 1], [2, 2, 2, 2], [1, 1, 1, 3, 3], [1, 1, 1, 2], [1, 1, 1, 1, 2, 2],
            [2, 1, 3, 1, 1, 2], [1, 1, 1, 1, 3]]


def test_onehot_sensitivities_by_brute_force():
    """Replace-one-row over all pairs of categorical rows: the moment matrix moves by at most
    sqrt(2 d^2 - 2 c^2) in Frobenius norm, the 3-way tables by at most
    sqrt(2 (C(d, 3) - C(c, 3))). For k = 3 the code's constant must equal the exact maximum over
    every pair of rows of each domain of K3_SIZES: a smaller constant is not private, a larger one
    (sqrt(2 C(d, 3)), which ignores that c single-valued attributes put every row in the same
    cell of their C(c, 3) tables) wastes accuracy."""
    d = len(SIZES)
    c = sum(1 for s in SIZES if s == 1)
    allrows = np.array(list(itertools.product(*[range(s) for s in SIZES])))
    rng = np.random.default_rng(0)
    pick = allrows[rng.choice(len(allrows), 30, replace=False)]
    X = _onehot(pick)
    best2 = best3 = 0.0
    for i in range(len(pick)):
        for j in range(len(pick)):
            D = np.outer(X[i], X[i]) - np.outer(X[j], X[j])
            best2 = max(best2, np.linalg.norm(D))
            t1 = _tables_of(pick[i:i + 1], SIZES, 3)
            t2 = _tables_of(pick[j:j + 1], SIZES, 3)
            best3 = max(best3, math.sqrt(sum(((t1[S] - t2[S]) ** 2).sum() for S in t1)))
    assert best2 <= math.sqrt(2 * d * d - 2 * c * c) + 1e-12
    assert best3 <= math.sqrt(2 * (math.comb(d, 3) - math.comb(c, 3))) + 1e-12
    # attained by two rows differing in every attribute that has more than one value
    a = np.zeros((1, d), dtype=int)
    b = np.array([[1, 1, 1, 1, 0]])
    Xa, Xb = _onehot(a), _onehot(b)
    assert np.linalg.norm(np.outer(Xa, Xa) - np.outer(Xb, Xb)) == pytest.approx(
        math.sqrt(2 * d * d - 2 * c * c))
    for sizes in K3_SIZES:
        d, c = len(sizes), sum(1 for s in sizes if s == 1)
        best = _k3_replace_one_maximum(sizes)
        res = onehot_marginals(np.zeros((3, d), dtype=int), sizes, 3, epsilon=1.0, delta=1e-6,
                               rng=0, max_iter=2)
        assert best <= res.sensitivity + 1e-12, (sizes, best, res.sensitivity)
        assert res.sensitivity == pytest.approx(best, abs=1e-9), (sizes, best, res.sensitivity)
        assert best == pytest.approx(math.sqrt(2 * (math.comb(d, 3) - math.comb(c, 3))), abs=1e-9)
        if c >= 3:  # sqrt(2 C(d, 3)) is strictly above the maximum here
            assert math.sqrt(2 * math.comb(d, 3)) > best + 0.1


def test_onehot_k2_data_in_set_and_projection_helps():
    rng = np.random.default_rng(3)
    m = 2000
    T = _cat(m, rng)
    X = _onehot(T)
    M = X.T @ X
    for S in _k2_sets(SIZES, m):
        assert S.contains(M, tol=1e-6)
    res = onehot_marginals(T, SIZES, 2, epsilon=1.0, delta=1e-6, rng=4, tol=1e-7)
    assert res.projection.converged
    P = res.moment_matrix
    assert np.linalg.eigvalsh(P).min() > -1e-3
    # one attribute's marginal is the same from every table (consistency)
    for a in range(len(SIZES)):
        ms = [res.tables[K].sum(axis=1 - K.index(a)) for K in res.tables if a in K]
        assert max(np.abs(x - ms[0]).max() for x in ms) < 1e-2
    assert res.marginal([2, 0]).shape == (2, 3)
    assert res.marginal([1]).sum() == pytest.approx(1.0, abs=1e-6)


def test_onehot_k3_local_polytope():
    rng = np.random.default_rng(5)
    m = 1500
    T = _cat(m, rng)
    res = onehot_marginals(T, SIZES, 3, epsilon=1.0, delta=1e-6, rng=6, tol=1e-7,
                           max_iter=2000)
    assert res.projection.converged
    for S, tab in res.tables.items():
        assert tab.min() >= -1e-4 and tab.sum() == pytest.approx(m, rel=1e-6)
    # pair marginals agree across the triples that contain the pair
    for R in itertools.combinations(range(len(SIZES)), 2):
        ms = []
        for S, tab in res.tables.items():
            if set(R) <= set(S):
                third = [i for i, a in enumerate(S) if a not in R][0]
                ms.append(tab.sum(axis=third))
        assert max(np.abs(x - ms[0]).max() for x in ms) < 1e-3 * m


@pytest.mark.parametrize("bad", [
    dict(table=np.array([[0, 5, 0, 0, 0]]), k=2),  # code out of range
    dict(table=np.zeros((3, 4), dtype=int), k=2),   # wrong number of columns
    dict(table=np.zeros((3, 5), dtype=int), k=4),
    dict(table=np.zeros((3, 5), dtype=int), k=2, epsilon=0),
    dict(table=np.zeros((3, 5), dtype=int), k=2, delta=2.0),
])
def test_onehot_bad_input(bad):
    args = dict(epsilon=1.0, delta=1e-6) | bad
    with pytest.raises(ValueError):
        onehot_marginals(args.pop("table"), SIZES, args.pop("k"), **args)


def test_onehot_add_remove_adjacency():
    """Add/remove one row: the moment matrix moves by ||x x^T||_F = d exactly and each 3-way
    table by one cell; the sets do not use the (private) row count."""
    from dpgraph.mechanisms.onehot import _k2_sets, _k2_sets_augmented

    rng = np.random.default_rng(8)
    d = len(SIZES)
    T = _cat(400, rng)
    X = _onehot(T)
    for i in range(20):
        assert np.linalg.norm(np.outer(X[i], X[i])) == pytest.approx(d)
        t1 = _tables_of(T[i:i + 1], SIZES, 3)
        assert math.sqrt(sum((v ** 2).sum() for v in t1.values())) == pytest.approx(
            math.sqrt(math.comb(d, 3)))
    M = X.T @ X
    Xa = np.hstack([np.ones((400, 1)), X])
    assert all(S.contains(M, tol=1e-6) for S in _k2_sets(SIZES, None))
    assert all(S.contains(Xa.T @ Xa, tol=1e-6) for S in _k2_sets_augmented(SIZES, None))
    r2 = onehot_marginals(T, SIZES, 2, epsilon=1.0, delta=1e-6, rng=1, adjacency="add-remove",
                          tol=1e-7)
    assert r2.sensitivity == pytest.approx(math.sqrt(2 * math.comb(d, 2)))
    assert r2.projection.converged
    r2d = onehot_marginals(T, SIZES, 2, epsilon=1.0, delta=1e-6, rng=1, adjacency="add-remove",
                           noise_diagonal=True, tol=1e-7)
    assert r2d.sensitivity == pytest.approx(d)
    assert r2.marginal([0, 3]).sum() == pytest.approx(1.0, abs=1e-4)
    r3 = onehot_marginals(T, SIZES, 3, epsilon=1.0, delta=1e-6, rng=1, adjacency="add-remove",
                          tol=1e-7, max_iter=3000)
    assert r3.sensitivity == pytest.approx(math.sqrt(math.comb(d, 3)))
    with pytest.raises(ValueError):
        onehot_marginals(T, SIZES, 2, epsilon=1.0, delta=1e-6, adjacency="swap")


def test_onehot_offdiagonal_sensitivity_by_brute_force():
    """The off-diagonal part of x x^T - y y^T has Frobenius norm at most
    sqrt(2 (2 C(d,2) - 2 C(c,2))) (replace-one) and exactly sqrt(2 C(d,2)) for one row."""
    d = len(SIZES)
    c = sum(1 for s in SIZES if s == 1)
    allrows = np.array(list(itertools.product(*[range(s) for s in SIZES])))
    rng = np.random.default_rng(1)
    pick = allrows[rng.choice(len(allrows), 40, replace=False)]
    X = _onehot(pick)
    off = lambda A: A - np.diag(np.diag(A))  # noqa: E731
    bound = math.sqrt(2 * (2 * math.comb(d, 2) - 2 * math.comb(c, 2)))
    best = max(np.linalg.norm(off(np.outer(a, a) - np.outer(b, b))) for a in X for b in X)
    assert best <= bound + 1e-12
    a, b = _onehot(np.zeros((1, d), dtype=int)), _onehot(np.array([[1, 1, 1, 1, 0]]))
    assert np.linalg.norm(off(np.outer(a, a) - np.outer(b, b))) == pytest.approx(bound)
    assert np.linalg.norm(off(np.outer(a, a))) == pytest.approx(math.sqrt(2 * math.comb(d, 2)))


def test_onehot_add_remove_releases_the_empty_table():
    """Under add/remove the row count is private: the empty table and a one-row table are
    neighbours, so both must release (the empty one was refused: told apart with certainty)."""
    import warnings

    for k in (2, 3):
        outs = []
        for table in (np.zeros((0, 3), dtype=int), np.array([[0, 1, 2]])):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = onehot_marginals(table, [2, 2, 3], k, epsilon=1.0, delta=1e-6, rng=0,
                                       adjacency="add-remove")
            outs.append(sorted(res.tables))
        assert outs[0] == outs[1]
    with pytest.raises(ValueError, match="non-empty"):  # m public: nothing to release
        onehot_marginals(np.zeros((0, 3), dtype=int), [2, 2, 3], 2, epsilon=1.0, delta=1e-6)
