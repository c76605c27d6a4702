"""Adjacent-instance checks of ``dpgraph.max_2csp``'s releases (docs/privacy.md 6 and 14.6) that
the other tests leave open: the local route's label choices along a whole transcript, the
ledger entries of the local route against the noise actually drawn, the choice's scores and the
estimate's value as ``_choose_and_estimate`` hands them to its mechanisms, and the dense routes'
group-privacy call of ``privatize``.

Adjacency (docs/privacy.md 6): instances on the same public variables and alphabet that differ
in one constraint ``(i, j, R, w)``, ``i != j``, ``w`` in ``[0, 1]``, ``R`` any subset of
``[q]^2`` (at most ``relation_size`` pairs on the dense routes), added or removed; several
constraints may share a pair. Every pair below is ``I`` and ``I`` plus one constraint, with
random relations (empty and full included), weights 1 and random, both orientations and
repeated pairs, ``q`` from 2 to 4.
"""
import math

import numpy as np
import pytest

from dpgraph.engine import CSPInstance
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.noise import discrete_laplace_parameters
from dpgraph.release.routes import local as L
from dpgraph.solve import csp as C


class _Stop(Exception):
    """Raised by a spy once it has what it needs."""


def _relation(rng, q):
    pairs = [(a, b) for a in range(q) for b in range(q)]
    kind = int(rng.integers(0, 4))
    if kind == 0:
        return set()
    if kind == 1:
        return set(pairs)
    k = int(rng.integers(1, q * q + 1))
    return {pairs[t] for t in rng.choice(len(pairs), k, replace=False)}


def _weight(rng):
    return 1.0 if rng.random() < 0.5 else float(rng.choice([0.0, rng.uniform(0.0, 1.0)]))


def _adjacent_pairs(seed, trials, max_n=7, unit=False, max_relation=None):
    """``(I, I + c, c)`` for random small instances ``I`` and one added constraint ``c``."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        n, q = int(rng.integers(2, max_n + 1)), int(rng.integers(2, 5))
        cons = []
        for _ in range(int(rng.integers(0, 12))):
            i, j = (int(v) for v in rng.choice(n, 2, replace=False))
            R = _relation(rng, q)
            if max_relation is not None:
                R = set(list(R)[:max_relation])
            cons.append((i, j, R, 1.0 if unit else _weight(rng)))
        if cons and rng.random() < 0.4:  # on a pair that already has a constraint
            i, j = cons[int(rng.integers(len(cons)))][:2]
        else:
            i, j = (int(v) for v in rng.choice(n, 2, replace=False))
        if rng.random() < 0.5:
            i, j = j, i
        R = _relation(rng, q)
        if max_relation is not None:
            R = set(list(R)[:max_relation])
        w = 1.0 if unit or rng.random() < 0.5 else float(rng.uniform(0.0, 1.0))
        extra = (i, j, R, w)
        yield CSPInstance(n, q, cons), CSPInstance(n, q, cons + [extra]), extra


# --------------------------------------------- 14.6: the label choices along one transcript

def _label_transcript(monkeypatch, inst, key, seed, plan):
    """``release_local_labels`` with the constraint degrees' draw replaced by the public ``key``
    (so the order is fixed) and the Gumbel draws taken from a generator seeded ``seed``: the
    score matrix of every batch, the batches, the order and the labels."""
    scores, gumbels = [], np.random.default_rng(seed)

    def degrees(value, **kw):
        kw["ledger"].charge("degrees (fixed here)", mechanism="discrete laplace",
                            epsilon=kw["epsilon"])
        return key.copy(), 1.0

    real = L.label_scores
    monkeypatch.setattr(L, "laplace_mechanism", degrees)
    monkeypatch.setattr(L, "gumbel_noise",
                        lambda shape, **kw: gumbels.gumbel(0.0, 1.0, size=shape))
    monkeypatch.setattr(L, "label_scores", lambda *a: scores.append(real(*a)) or scores[-1])
    labels, order = L.release_local_labels(inst.label_adjacency(name_size=False),
                                           inst.variable_weights(), inst.q, epsilon=1.0,
                                           ledger=PrivacyLedger(epsilon=1.0, delta=0), rng=0,
                                           plan=plan)
    monkeypatch.undo()
    bounds = L.batch_bounds(0, inst.n, plan.first_batch, plan.batch_growth)
    return scores, bounds, order, labels


def test_local_label_choices_read_each_constraint_once_monotone_by_at_most_its_weight(
        monkeypatch):
    """docs/privacy.md 14.6: with the order and the noise fixed, the transcripts of ``I`` and of
    ``I`` plus ``(i, j, R, w)`` agree up to the first batch whose scores differ; there is at most
    one such batch, it is the batch of the later of ``i, j`` (none when they share a batch), and
    in it only that variable's row moves, every label by a value in ``[0, w]`` (monotone,
    sensitivity 1). Where the labels come out the same, no other batch's scores differ (the
    constraint is read once); otherwise the histories differ after that batch, which the chain
    rule allows.
    Some pair moves a score by exactly 1 (the constant is attained)."""
    rng = np.random.default_rng(7)
    worst, read, unread, same_after = 0.0, 0, 0, 0
    for a, b, (i, j, R, w) in _adjacent_pairs(31, 250):
        n = a.n
        key = rng.standard_normal(n)
        seed = int(rng.integers(1 << 30))
        plan = (L.LocalPlan(first_batch=int(rng.integers(1, 3)), batch_growth=0.3)
                if rng.random() < 0.4 else L.LocalPlan())
        sa, bounds, order, xa = _label_transcript(monkeypatch, a, key, seed, plan)
        sb, _, order_b, xb = _label_transcript(monkeypatch, b, key, seed, plan)
        assert np.array_equal(order, order_b) and len(sa) == len(sb) == len(bounds)
        pos = np.empty(n, dtype=int)
        pos[order] = np.arange(n)
        batch_of = np.empty(n, dtype=int)
        for t, (lo, hi) in enumerate(bounds):
            batch_of[order[lo:hi]] = t
        later = i if pos[i] > pos[j] else j
        same_batch = batch_of[i] == batch_of[j]
        first = next((t for t, (x, y) in enumerate(zip(sa, sb))
                      if np.abs(y - x).max() > 1e-12), None)
        if first is None:
            unread += 1
            continue
        read += 1
        assert not same_batch, "a constraint inside a batch was read"
        assert first == batch_of[later], "the constraint was read before its later variable"
        D = sb[first] - sa[first]
        lo, hi = bounds[first]
        rows = np.flatnonzero(np.abs(D).max(axis=1) > 1e-12)
        assert [order[lo + r] for r in rows] == [later], "another variable's scores moved"
        assert D.min() >= -1e-12, "not monotone: a label's score fell when a constraint was added"
        assert D.max() <= w + 1e-12 and D.max() <= 1.0 + 1e-12
        worst = max(worst, float(D.max()))
        # histories equal up to here: every earlier batch identical (nothing read it before)
        assert all(np.array_equal(x, y) for x, y in zip(sa[:first], sb[:first]))
        if np.array_equal(xa, xb):  # the same labels throughout: no later batch reads it again
            assert all(np.array_equal(x, y) for x, y in zip(sa[first + 1:], sb[first + 1:]))
            same_after += 1
    assert read > 50 and unread > 0 and same_after > 25
    assert worst == pytest.approx(1.0, abs=1e-9)


# ------------------------------- 6.5 and 14.6: the local route's ledger against its draws

def test_local_route_ledger_entries_agree_with_the_noise_drawn(monkeypatch):
    """Every release of the local route: the ledger entry's epsilon, sensitivity and noise scale
    are those of the draw (a Gumbel scale of ``1 / eps_m`` for the label choices, the discrete
    Laplace of the passed sensitivity, epsilon and changed coordinates), the constraint degrees
    are drawn for 2 changed coordinates (a constraint moves ``d_i`` and ``d_j``), and the
    entries add up to ``epsilon`` with no delta (docs/privacy.md 6.5, 6.6, 14.6)."""
    rng = np.random.default_rng(3)
    cons = [(int(i), int(j), _relation(rng, 3), _weight(rng))
            for i, j in rng.integers(0, 30, (80, 2)) if i != j]
    inst = CSPInstance(30, 3, cons)
    gumbel_scales, laplace_calls = [], []
    real_gumbel, real_local, real_csp = L.gumbel_noise, L.laplace_mechanism, C.laplace_mechanism

    def gumbel(shape, *, scale, **kw):
        gumbel_scales.append(scale)
        return real_gumbel(shape, scale=scale, **kw)

    def laplace(real):
        def spy(value, **kw):
            laplace_calls.append((kw["name"], kw["sensitivity"], kw["epsilon"],
                                  kw.get("changed"), np.size(value)))
            return real(value, **kw)
        return spy

    monkeypatch.setattr(L, "gumbel_noise", gumbel)
    monkeypatch.setattr(L, "laplace_mechanism", laplace(real_local))
    monkeypatch.setattr(C, "laplace_mechanism", laplace(real_csp))
    for eps, estimate in ((1.0, True), (3.0, False)):
        gumbel_scales.clear(), laplace_calls.clear()
        res = C.max_2csp(inst, epsilon=eps, delta=1e-6, rng=0, estimate=estimate)
        entries = {e.name: e for e in res.ledger.entries}
        assert res.diagnostics["route"] == "local"
        choice = entries["local route: label choices"]
        assert gumbel_scales and set(gumbel_scales) == {choice.noise_scale}
        assert choice.noise_scale == pytest.approx(choice.sensitivity / choice.epsilon, rel=1e-12)
        assert choice.sensitivity == 1.0 and choice.mechanism == "exponential (monotone)"
        assert len(laplace_calls) == (3 if estimate else 1)
        for name, sens, e, changed, size in laplace_calls:
            entry = entries[name]
            k = size if changed is None else changed
            assert (entry.sensitivity, entry.epsilon) == (sens, e)
            assert entry.noise_scale == discrete_laplace_parameters(sens, e, k)["scale"]
            if name == "local route: constraint degrees":
                assert (sens, k) == (2.0, 2)  # a constraint moves two degrees by <= w each
            else:
                assert (sens, k) == (1.0, 1)
        shares = {"total constraint weight": C.CSP_TOTAL_SHARE * eps,
                  "value of the returned assignment": C.CSP_ESTIMATE_SHARE * eps}
        rest = eps - (sum(shares.values()) if estimate else 0.0)
        shares["local route: constraint degrees"] = L.DEGREE_SHARE * rest
        shares["local route: label choices"] = (1 - L.DEGREE_SHARE) * rest
        for name, expected in shares.items():
            if name in entries:
                assert entries[name].epsilon == pytest.approx(expected, rel=1e-12)
        assert res.ledger.spent == (pytest.approx(eps, rel=1e-12), 0.0)


# -------------------------- 6.4 and 6.5: what _choose_and_estimate hands to its mechanisms

def _choice_inputs(monkeypatch, inst, pool):
    got = {}

    def choose(scores, **kw):
        got["scores"], got["s_sens"] = np.asarray(scores, dtype=float), kw["sensitivity"]
        return 0

    def estimate(value, **kw):
        got["value"], got["v_sens"] = float(value), kw["sensitivity"]
        return float(value), 1.0

    monkeypatch.setattr(C, "monotone_exponential_mechanism", choose)
    monkeypatch.setattr(C, "laplace_mechanism", estimate)
    C._choose_and_estimate(inst, pool, ("t",), 0.1, 0.1, 1e9,
                           PrivacyLedger(epsilon=1.0, delta=0), 0)
    monkeypatch.undo()
    return got


def test_choice_scores_and_estimate_move_monotonically_by_at_most_one(monkeypatch):
    """docs/privacy.md 6.4 and 6.5: for a fixed pool of assignments (the first one chosen), the
    scores of the exponential mechanism and the value released by the Laplace mechanism move
    between adjacent instances by ``w [(x_i, x_j) in R]``: all in one direction, each in
    ``[0, w]``, at most the sensitivity passed (1), which some pair attains."""
    rng = np.random.default_rng(5)
    worst = 0.0
    for a, b, (i, j, R, w) in _adjacent_pairs(41, 200):
        pool = rng.integers(0, a.q, (40, a.n))
        if rng.random() < 0.5:  # an assignment that satisfies the added constraint, if any
            if R:
                x, y = sorted(R)[int(rng.integers(len(R)))]
                pool[0, i], pool[0, j] = x, y
        ga, gb = _choice_inputs(monkeypatch, a, pool), _choice_inputs(monkeypatch, b, pool)
        assert ga["s_sens"] == gb["s_sens"] == 1.0 and ga["v_sens"] == gb["v_sens"] == 1.0
        D = gb["scores"] - ga["scores"]
        assert D.min() >= -1e-12 and D.max() <= w + 1e-12  # one direction, at most w
        assert D.max() <= ga["s_sens"] + 1e-12
        dv = gb["value"] - ga["value"]
        assert -1e-12 <= dv <= min(w, ga["v_sens"]) + 1e-12
        assert dv == pytest.approx(D[0], abs=1e-12)  # the value of the chosen (first) one
        expected = w * np.array([(x[i], x[j]) in R for x in pool], dtype=float)
        assert np.allclose(D, expected, atol=1e-12)
        worst = max(worst, float(D.max()), dv)
    assert worst == pytest.approx(1.0, abs=1e-9)


# ------------------------------------ 6.1-6.3: the dense routes' group-privacy release

def _label_release_call(monkeypatch, inst, s, route, eps, delta):
    """The graph, epsilon and delta ``max_2csp`` hands to ``privatize`` on a dense route (its
    check-only call passes through), and the charges made before it."""
    real, got = C.privatize, {}

    def spy(graph, **kw):
        if kw.get("_check_only"):
            return real(graph, **kw)
        got.update(L=graph.weights.toarray(), epsilon=kw["epsilon"], delta=kw["delta"])
        raise _Stop

    monkeypatch.setattr(C, "privatize", spy)
    running = PrivacyLedger(epsilon=eps, delta=delta)
    with pytest.raises(_Stop):
        C.max_2csp(inst, epsilon=eps, delta=delta, rng=0, rank=1, relation_size=s, route=route,
                   ledger=running)
    monkeypatch.undo()
    got["entries"] = {e.name.split(" (")[0]: e for e in running.entries}
    return got


@pytest.mark.parametrize("route", ["randomized-response", "pca"])
def test_dense_label_release_pays_for_every_pair_one_constraint_moves(route, monkeypatch):
    """docs/privacy.md 6.1-6.3 on adjacent instances with unit weights (the rounding is then
    deterministic, so ``L`` and ``L'`` are the coupled draws of 6.2): ``privatize`` gets a 0/1
    symmetric graph that moves on at most ``|R| <= s`` pairs, all in one direction, and the
    per-pair budget it is given, chained over that many pairs (6.3), is within the ledger's
    group-privacy entry; with the total weight, the choice and the estimate the shares add up
    to epsilon."""
    eps, delta = 2.0, 1e-6
    rng = np.random.default_rng(9)
    most = 0
    for a, b, (i, j, R, w) in _adjacent_pairs(51, 30, max_n=5, unit=True):
        s = int(rng.integers(max(len(R), 1), a.q * a.q + 1))
        if any(len(r) > s for *_, r, _ in a.constraints):
            continue
        ga = _label_release_call(monkeypatch, a, s, route, eps, delta)
        gb = _label_release_call(monkeypatch, b, s, route, eps, delta)
        for g in (ga, gb):
            assert set(np.unique(g["L"])) <= {0.0, 1.0} and np.array_equal(g["L"], g["L"].T)
        D = np.triu(gb["L"] - ga["L"], 1)
        k = int(np.count_nonzero(D))
        assert D.min() >= 0 and k <= len(R) <= s
        most = max(most, k)
        group = ga["entries"]["privatize the label-extended graph"]
        e0, d0 = ga["epsilon"], ga["delta"]
        assert s * e0 <= group.epsilon * (1 + 1e-12)  # s pairs, each at e0
        assert d0 * math.fsum(math.exp(t * e0) for t in range(s)) <= group.delta * (1 + 1e-9) \
            + (0.0 if route == "pca" else 1e-300)
        if route == "randomized-response":
            assert d0 == 0.0 and group.delta == 0.0
        total = ga["entries"]["total constraint weight"]
        assert (total.sensitivity, total.epsilon) == (1.0, pytest.approx(C.CSP_TOTAL_SHARE * eps))
        spent = (group.epsilon + total.epsilon + C.CSP_SELECT_SHARE * eps
                 + C.CSP_ESTIMATE_SHARE * eps)
        assert spent == pytest.approx(eps, rel=1e-12)
    assert most >= 4  # some constraint moved several pairs: group privacy was needed


def test_dense_route_spends_the_request_and_the_release_stays_within_its_per_pair_budget():
    """docs/privacy.md 6.3 and 6.6 run to the end on the PCA route: the inner ledger of
    ``privatize`` spends at most ``(eps_p / s, delta_0)``, the group entry is ``(eps_p,
    delta)``, and the call's ledger totals ``(epsilon, delta)``."""
    import warnings

    rng = np.random.default_rng(0)
    cons = [(i, j, {(a, (a + 1) % 3) for a in range(3)}, float(rng.uniform(0, 1)))
            for i in range(10) for j in range(i + 1, 10) if rng.random() < 0.5]
    inst = CSPInstance(10, 3, cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = C.max_2csp(inst, epsilon=3.0, delta=1e-5, rng=1, rank=2, relation_size=3,
                         route="pca")
    s = res.diagnostics["relation_size"]
    group, = [e for e in res.ledger.entries if e.name.startswith("privatize the label")]
    pe, pd = res.private_graph.ledger.spent
    assert s == 3 and res.diagnostics["candidate_assignments"] > 1
    assert pe <= group.epsilon / s * (1 + 1e-12)
    assert pd * math.fsum(math.exp(t * pe) for t in range(s)) <= group.delta * (1 + 1e-9)
    assert group.delta == 1e-5
    assert res.ledger.spent == (pytest.approx(3.0, rel=1e-12), pytest.approx(1e-5, rel=1e-12))
