"""Private Max-2-CSP (docs/privacy.md, section 6): adjacent-instance checks of every sensitivity,
the group-privacy accounting, the release, bad input."""

import math

import numpy as np
import pytest

from dpgraph.engine import CSPInstance
from dpgraph.engine.twocsp_sdp import label_values
from dpgraph.solve.csp import (block_posterior_weights, group_privacy_delta, max_2csp,
                                 rounded_label_graph)


def _random_constraints(rng, n, q, density, s=None):
    s = q * q if s is None else s
    cons = []
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < density:
                pairs = [(a, b) for a in range(q) for b in range(q)]
                k = int(rng.integers(1, s + 1))
                R = {pairs[t] for t in rng.choice(len(pairs), k, replace=False)}
                cons.append((i, j, R, float(rng.uniform(0.2, 1.0))))
    return cons


def _planted(rng, n, q, density):
    sigma = rng.integers(0, q, n)
    cons = []
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < density:
                pi = rng.permutation(q)
                # make pi(sigma_i) = sigma_j
                k = int(np.flatnonzero(pi == sigma[j])[0])
                pi[k], pi[sigma[i]] = pi[sigma[i]], pi[k]
                cons.append((i, j, {(a, int(pi[a])) for a in range(q)}, 1.0))
    return CSPInstance(n, q, cons), sigma


def test_label_graph_moves_at_most_s_pairs_adjacent():
    # 6.1: one constraint (|R| <= s, w <= 1) changes <= s entries of the clipped label graph,
    # each by <= w; worst cases: w = 1, R of size s, on a pair that already has constraints
    rng = np.random.default_rng(21)
    for trial in range(40):
        n, q = int(rng.integers(3, 8)), int(rng.integers(2, 5))
        s = int(rng.integers(1, q * q + 1))
        cons = _random_constraints(rng, n, q, 0.6, s)
        i, j = sorted(rng.choice(n, 2, replace=False).tolist())
        pairs = [(a, b) for a in range(q) for b in range(q)]
        R = {pairs[t] for t in rng.choice(len(pairs), s, replace=False)}
        w = 1.0 if trial % 2 else float(rng.uniform(0, 1))
        a, b = CSPInstance(n, q, cons), CSPInstance(n, q, cons + [(i, j, R, w)])
        La = np.minimum(a.label_adjacency().toarray(), 1.0)
        Lb = np.minimum(b.label_adjacency().toarray(), 1.0)
        D = np.triu(Lb - La)
        assert np.count_nonzero(D) <= s
        assert np.abs(D).max() <= w + 1e-12 and D.min() >= 0  # monotone: one direction
        # unit weights on fresh label pairs: the rounded graph is the clipped one (no randomness)
    inst, _ = _planted(rng, 8, 3, 0.5)
    L = rounded_label_graph(inst, 0).toarray()
    assert np.array_equal(L, np.minimum(inst.label_adjacency().toarray(), 1.0))


def test_bernoulli_rounding_is_unbiased():
    # 6.2: each pair kept with probability min(A, 1); fixed seed, 5-sigma binomial tolerance
    inst = CSPInstance(3, 2, [(0, 1, {(0, 0)}, 0.3), (1, 2, {(1, 1)}, 0.8), (0, 2, {(0, 1)}, 1.0)])
    reps = 800
    acc = sum(rounded_label_graph(inst, np.random.default_rng(t)).toarray() for t in range(reps)) / reps
    A = np.minimum(inst.label_adjacency().toarray(), 1.0)
    tol = 5 * np.sqrt(A * (1 - A) / reps) + 1e-12
    assert np.all(np.abs(acc - A) <= tol)


def test_candidate_values_are_monotone_sensitivity_one():
    # 6.4 / 6.5: for fixed assignments, one constraint (w <= 1) moves every value by 0 or w
    rng = np.random.default_rng(4)
    for _ in range(30):
        n, q = int(rng.integers(3, 8)), int(rng.integers(2, 4))
        cons = _random_constraints(rng, n, q, 0.5)
        i, j = sorted(rng.choice(n, 2, replace=False).tolist())
        full = {(a, b) for a in range(q) for b in range(q)}
        extra = (i, j, full if rng.random() < 0.3 else {(0, 1)}, 1.0)
        a, b = CSPInstance(n, q, cons), CSPInstance(n, q, cons + [extra])
        X = rng.integers(0, q, (50, n))
        d = label_values(b.label_adjacency(), X, q) - label_values(a.label_adjacency(), X, q)
        assert np.all(d >= -1e-12) and np.all(d <= 1.0 + 1e-12)
        assert np.all(np.isclose(d, 0) | np.isclose(d, 1.0))


def test_group_privacy_delta():
    # delta_0 * sum_{t<s} e^{t eps/s} = delta, and delta_0 <= delta / s
    for eps, s in [(1.0, 3), (4.0, 9), (0.5, 1)]:
        d0 = group_privacy_delta(eps, 1e-6, s)
        assert d0 * sum(math.exp(t * eps / s) for t in range(s)) == pytest.approx(1e-6)
        assert d0 <= 1e-6 / s * (1 + 1e-12)


def test_max_2csp_release_and_ledger():
    rng = np.random.default_rng(3)
    inst, sigma = _planted(rng, 40, 3, 0.5)
    res = max_2csp(inst, epsilon=8.0, delta=1e-6, rank=3, rng=0, relation_size=3,
                   privatize_options={"route": "randomized-response"})
    assert set(res.assignment) == set(range(40))
    assert all(0 <= v < 3 for v in res.assignment.values())
    eps, dlt = res.ledger.spent
    assert eps <= 8.0 * (1 + 1e-9) and dlt <= 1e-6 * (1 + 1e-9)
    # the release itself ran at eps/s per label pair
    pe, pd = res.private_graph.ledger.spent
    assert pe <= res.diagnostics["pair_epsilon"] * (1 + 1e-9)
    assert pd <= res.diagnostics["pair_delta"] * (1 + 1e-9)
    # no synthetic block model by default (docs/privacy.md 6.3): the route spent all of eps/s
    assert res.private_graph.block_model is None
    assert not any("block" in e.name for e in res.private_graph.ledger.entries)
    assert pe == pytest.approx(res.diagnostics["pair_epsilon"], rel=1e-9)
    names = [e.name for e in res.ledger.entries]
    assert names[0] == "total constraint weight"
    assert names[1].startswith("privatize the label-extended graph")
    assert names[-1] == "value of the returned assignment"
    entry = res.ledger.entries[-1]
    assert entry.sensitivity == 1.0 and entry.mechanism == "discrete laplace"
    true = inst.value(res.assignment)
    assert abs(res.estimated_value - true) <= 20 * entry.noise_scale  # P[|Lap| > 20 b] = e^-20
    # at epsilon 8 on a dense planted instance the answer beats a random assignment (m / 3)
    assert true > 0.5 * inst.m


@pytest.mark.parametrize("bad, match", [
    (dict(epsilon=0, delta=1e-6), "epsilon"),
    (dict(epsilon=1, delta=-1e-6), "delta"),
    (dict(epsilon=1, delta=0, privatize_options={"route": "pca"}), "delta=0"),
    (dict(epsilon=1, delta=1e-6, rank=0), "rank"),
    (dict(epsilon=1, delta=1e-6, relation_size=0), "relation_size"),
    (dict(epsilon=1, delta=1e-6, estimate_share=0.6, select_share=0.5), "share"),
    (dict(epsilon=1, delta=1e-6, privatize_options={"route": "bogus"}),
     "route='bogus' is not one of"),
])
def test_bad_arguments(bad, match):
    inst = CSPInstance(5, 2, [(0, 1, {(0, 1)}, 1.0), (1, 2, {(1, 0)}, 1.0)])
    with pytest.raises(ValueError, match=match):
        max_2csp(inst, **bad)


def test_refuses_heavy_weights_and_big_relations():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        max_2csp(CSPInstance(4, 2, [(0, 1, {(0, 1)}, 2.0)]), epsilon=1, delta=1e-6, rank=1)
    with pytest.raises(ValueError, match="relation_size"):  # the bound of 6.1-6.3's group privacy
        max_2csp(CSPInstance(4, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0)]), epsilon=1, delta=1e-6,
                 rank=1, relation_size=1, privatize_options={"route": "randomized-response"})
    # q = 1 is answered (the answer is forced): tests/test_fourth_round_api.py
    with pytest.raises(TypeError, match="CSPInstance"):
        max_2csp([(0, 1, {(0, 1)}, 1.0)], epsilon=1, delta=1e-6)


@pytest.mark.parametrize("q, s, seed", [(2, 2, 0), (3, 3, 1), (3, 9, 2)])
def test_block_posterior_matches_enumeration(q, s, seed):
    """The constraint-block posterior against Bayes' rule by enumerating every relation R of one
    block (2^(q^2) of them) under the prior: block on w.p. rho, each pair in R w.p. s/q^2."""
    import itertools

    rng = np.random.default_rng(seed)
    p, rho, n = 0.3, 0.4, 2
    N = n * q
    theta = s / (q * q)
    Y = np.zeros((N, N))
    bits = rng.integers(0, 2, (q, q))
    Y[:q, q:] = bits
    Y[q:, :q] = bits.T
    U = (Y - p) / (1 - 2 * p)
    np.fill_diagonal(U, 0.0)
    U[:q, :q] = U[q:, q:] = 0.0
    W = block_posterior_weights(U, p, n, q, s, rho=rho)
    post = np.zeros((q, q))
    evidence = (1 - rho) * np.prod(np.where(bits == 1, p, 1 - p))  # block empty
    for mask in itertools.product((0, 1), repeat=q * q):
        R = np.array(mask).reshape(q, q)
        prior = rho * theta ** R.sum() * (1 - theta) ** (q * q - R.sum())
        like = np.prod(np.where(R == bits, 1 - p, p))
        evidence += prior * like
        post += prior * like * R
    post /= evidence
    np.testing.assert_allclose(W[:q, q:], post, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(W, W.T)
    assert not W[:q, :q].any() and not W[q:, q:].any()


def test_block_posterior_objective_is_a_candidate_on_the_rr_route():
    rng = np.random.default_rng(5)
    inst, _ = _planted(rng, 30, 3, 0.5)
    res = max_2csp(inst, epsilon=4.0, delta=1e-6, rank=2, rng=0, relation_size=3,
                   privatize_options={"route": "randomized-response"})
    assert res.diagnostics["candidates"][-1] == "posterior-block"
    only = max_2csp(inst, epsilon=4.0, delta=1e-6, rank=2, rng=0, relation_size=3,
                    candidates="posterior-block",
                    privatize_options={"route": "randomized-response"})
    assert only.diagnostics["candidates"] == ("posterior-block",)
    with pytest.raises(ValueError, match="among .*posterior-block"):
        max_2csp(inst, epsilon=4.0, delta=1e-6, rank=2, rng=0, relation_size=3,
                 candidates="nonsense", privatize_options={"route": "randomized-response"})


def test_max_2csp_local_route_is_pure_and_beats_random():
    """docs/privacy.md 14.6: the default route labels variables one by one (exponential
    mechanism on monotone scores, each constraint read once); pure epsilon-DP."""
    rng = np.random.default_rng(3)
    inst, sigma = _planted(rng, 300, 3, 0.1)
    res = max_2csp(inst, epsilon=2.0, delta=0, rng=0)
    assert res.diagnostics["route"] == "local" and res.ledger.spent[1] == 0.0
    assert res.ledger.spent[0] == pytest.approx(2.0, rel=1e-12)
    assert [e.name for e in res.ledger.entries] == [
        "total constraint weight", "local route: constraint degrees",
        "local route: label choices", "value of the returned assignment"]
    true = inst.value(res.assignment)
    # a uniformly random assignment satisfies about a third of a planted 'not equal' instance;
    # the local route, reading each constraint once at epsilon ~1.9, far more
    assert true > 0.5 * inst.m
    assert "synthetic_value" not in repr(res)


def test_local_label_scores_move_one_row_monotonically_by_at_most_one():
    """docs/privacy.md 14.6: adding one constraint (any relation, weight <= 1) moves the label
    scores of one variable only, every label in the same direction, by at most the weight."""
    import scipy.sparse as sp

    from dpgraph.release.routes.local import label_scores

    rng = np.random.default_rng(5)
    inst, _ = _planted(rng, 12, 3, 0.4)
    z = np.zeros(12 * 3)
    decided = rng.integers(0, 3, 12)
    z[np.arange(0, 12) * 3 + decided] = 1.0  # every variable decided
    for extra in [(0, 11, {(0, 1), (1, 0), (2, 2)}, 1.0), (3, 4, {(a, b) for a in range(3)
                                                                  for b in range(3)}, 0.5)]:
        bigger = CSPInstance(12, 3, list(inst.constraints) + [extra])
        rows = np.arange(12)
        d = (label_scores(sp.csr_array(bigger.label_adjacency()), rows, z, 3)
             - label_scores(sp.csr_array(inst.label_adjacency()), rows, z, 3))
        moved = np.flatnonzero(np.abs(d).sum(axis=1) > 1e-12)
        assert set(moved) <= {extra[0], extra[1]}
        assert np.all(d >= -1e-12) and np.all(d <= extra[3] + 1e-12)


def test_local_route_takes_any_relation_whatever_relation_size():
    """docs/privacy.md 14.6: the local route allows any relation, so a constraint with more
    pairs than ``relation_size`` is not refused there (a refusal would tell the instance from
    its neighbour without that constraint); the same arguments run the same path."""
    base = CSPInstance(6, 2, [(0, 1, {(0, 1)}, 1.0), (2, 3, {(1, 0)}, 1.0)])
    big = CSPInstance(6, 2, list(base.constraints) + [(4, 5, {(0, 0), (0, 1), (1, 1)}, 1.0)])
    for inst in (base, big):
        res = max_2csp(inst, epsilon=1.0, delta=0, rng=0, relation_size=1)
        assert res.diagnostics["route"] == "local"
        assert [e.name for e in res.ledger.entries] == [
            "total constraint weight", "local route: constraint degrees",
            "local route: label choices", "value of the returned assignment"]


@pytest.mark.parametrize("route", [None, "randomized-response"])
def test_estimate_clamped_with_an_interval_that_covers(route):
    """docs/privacy.md 6.5: the estimate and its 95% interval lie in [0, upper end of the
    released total weight]; over fixed seeds the interval covers the assignment's true value
    at least as often as its stated level allows (binomial slack: 3 standard deviations)."""
    inst = CSPInstance(8, 2, [(i, i + 1, {(0, 1), (1, 0)}, 1.0) for i in range(6)])  # 6 clauses
    opts = None if route is None else {"route": route}
    runs = 60 if route is None else 20
    covered = 0
    for seed in range(runs):
        res = max_2csp(inst, epsilon=0.5, delta=1e-6, rank=1, rng=seed, privatize_options=opts)
        lo, hi = res.estimate_interval
        names = [e.name for e in res.ledger.entries]
        assert names[0] == "total constraint weight" and names[-1] == "value of the returned assignment"
        total = res.diagnostics["released_total_weight"]
        b = res.ledger.entries[0].noise_scale
        upper = max(total, 0.0) + b * math.log(500.0)
        assert 0.0 <= lo <= res.estimated_value <= hi <= upper + 1e-9
        assert res.ledger.spent[0] == pytest.approx(0.5, rel=1e-9)
        true = inst.value(res.assignment)
        covered += lo <= true <= hi
        assert "CI" in repr(res)
    level = 0.95 - 0.001  # the total's upper end fails with probability <= 0.1%
    assert covered >= runs * level - 3 * math.sqrt(runs * level * (1 - level))


@pytest.mark.parametrize("route", [None, "randomized-response"])
def test_estimate_false_releases_no_estimate_and_gives_its_budget_to_the_answer(route):
    """``estimate=False`` (as max_cut's): neither the estimate nor the total weight that bounds
    it is released, the whole epsilon goes to the assignment, and a non-boolean is refused
    before anything is spent."""
    from dpgraph import PrivacyLedger

    inst = CSPInstance(8, 2, [(i, i + 1, {(0, 1), (1, 0)}, 1.0) for i in range(6)])
    with_estimate = max_2csp(inst, epsilon=1.0, delta=1e-6, rank=1, rng=0, route=route)
    res = max_2csp(inst, epsilon=1.0, delta=1e-6, rank=1, rng=0, route=route, estimate=False)
    assert res.estimated_value is None and res.estimate_interval is None
    assert res.diagnostics["released_total_weight"] is None
    names = [e.name for e in res.ledger.entries]
    assert "value of the returned assignment" not in names
    assert "total constraint weight" not in names
    assert res.ledger.spent[0] == pytest.approx(1.0, rel=1e-9)
    answer = sum(e.epsilon for e in res.ledger.entries)
    answer_before = sum(e.epsilon for e in with_estimate.ledger.entries
                        if e.name not in ("value of the returned assignment",
                                          "total constraint weight"))
    assert answer > answer_before  # the shares went to the assignment
    assert "estimated_value" not in repr(res) and res.to_dict()["estimated_value"] is None
    running = PrivacyLedger(epsilon=2.0, delta=1e-5)
    with pytest.raises(ValueError, match="estimate must be True or False"):
        max_2csp(inst, epsilon=1.0, delta=1e-6, route=route, estimate="no", ledger=running)
    assert running.spent == (0.0, 0.0)


def test_a_two_by_two_array_over_two_values_is_refused_as_ambiguous():
    """[[1, 0], [0, 1]] means "equal" as a relation matrix and "different" as two pairs: with
    q = 2 an integer 2 x 2 array is refused; a boolean one is a matrix, a set is pairs."""
    eq = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="either a relation matrix or two"):
        CSPInstance(2, 2, [(0, 1, eq, 1.0)])
    as_matrix = CSPInstance(2, 2, [(0, 1, eq.astype(bool), 1.0)])
    assert as_matrix.value([0, 0]) == 1.0 and as_matrix.value([0, 1]) == 0.0
    as_pairs = CSPInstance(2, 2, [(0, 1, {(1, 0), (0, 1)}, 1.0)])
    assert as_pairs.value([0, 0]) == 0.0 and as_pairs.value([0, 1]) == 1.0
    # q = 3: a (3, 3) array is a matrix, an (r, 2) array r pairs, as before
    M = np.eye(3, dtype=int)
    assert CSPInstance(2, 3, [(0, 1, M, 1.0)]).value([2, 2]) == 1.0
    assert CSPInstance(2, 3, [(0, 1, np.array([[0, 2], [1, 1]]), 1.0)]).value([0, 2]) == 1.0


def test_group_privacy_delta_at_any_epsilon():
    """In log space: no OverflowError where exp(t eps / s) leaves the float range."""
    for eps in (1.0, 500.0, 5000.0, 1e6):
        d = group_privacy_delta(eps, 1e-6, 4)
        assert 0.0 <= d <= 1e-6
    e0 = 2.0 / 3  # the closed form delta / sum_{t<s} e^{t e0}
    assert math.isclose(group_privacy_delta(2.0, 1e-6, 3),
                        1e-6 / (1 + math.exp(e0) + math.exp(2 * e0)), rel_tol=1e-12)
    rng = np.random.default_rng(3)
    inst = CSPInstance(10, 3, _random_constraints(rng, 10, 3, 0.5))
    res = max_2csp(inst, epsilon=2000.0, delta=1e-6, rank=2, rng=0,
                   privatize_options={"route": "randomized-response"})
    assert res.ledger.spent[0] <= 2000.0 * (1 + 1e-9)


def test_refusals_of_read_constraints_name_the_file_line(tmp_path):
    from dpgraph.engine.formats import read_csp

    p = tmp_path / "w.wcnf"
    p.write_text("c comment\np wcnf 3 2\n0.5 1 -2 0\n\n3 2 3 0\n")
    inst = read_csp(p)
    assert inst.constraint_name(1) == f"{p}, line 5: constraint"
    with pytest.raises(ValueError, match=r"w\.wcnf, line 5: constraint has weight 3"):
        max_2csp(inst, epsilon=1.0, delta=0.0)


def test_relation_values_and_weights_are_checked_not_truncated():
    with pytest.raises(ValueError, match=r"\(0\.5, 1\) is not a pair of integer values"):
        CSPInstance(2, 2, [(0, 1, {(0.5, 1)}, 1.0)])
    for w in (None, 1j):
        with pytest.raises(ValueError, match="constraint #0 has weight .* not a real number"):
            CSPInstance(2, 2, [(0, 1, {(0, 1)}, w)])


def test_pure_route_spends_no_delta():
    """docs/privacy.md 6.3: randomized response is pure per label pair, so group privacy over
    s pairs costs eps_p and no delta: max_2csp on that route records none, takes delta = 0,
    and gives the same answer either way (the release never read delta)."""
    import warnings

    import dpgraph
    from dpgraph.engine import CSPInstance

    differ = {(a, b) for a in range(3) for b in range(3) if a != b}
    gen = np.random.default_rng(0)
    cons = [(int(i), int(j), differ, 1.0) for i, j in gen.integers(0, 20, (40, 2)) if i != j]
    inst = CSPInstance(20, 3, cons)
    outs = []
    for delta in (1e-6, 0.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dpgraph.max_2csp(inst, epsilon=4.0, delta=delta, rng=0,
                                   privatize_options={"route": "randomized-response"})
        assert res.ledger.spent == pytest.approx((4.0, 0.0)) and res.diagnostics["pair_delta"] == 0
        outs.append(res.assignment)
    assert outs[0] == outs[1]
    with pytest.raises(ValueError, match="pure epsilon-DP"):  # an approximate route needs delta
        dpgraph.max_2csp(inst, epsilon=4.0, delta=0.0, privatize_options={"route": "pca"})
