"""Privacy constants checked against their derivations in docs/privacy.md, where the other
adjacency tests left a less private constant undetected (a mutation audit of the noise
calibrations: each test below fails when its constant is weakened, e.g. a sensitivity halved
or an epsilon doubled in the draw).

The expected values are computed here from the derivation (the docs section is cited on each
test), never read back from the module under test: a distributional check with a fixed seed
(the frequency of an event whose probability the derivation gives in closed form), or the
change of a pre-noise quantity over adjacent inputs computed by brute force.
"""
import math

import numpy as np
import pytest

from dpgraph.engine import CSPInstance
from dpgraph.solve.csp import max_2csp


def _binomial_close(hits: int, trials: int, p: float, z: float = 5.0) -> bool:
    """``hits / trials`` within ``z`` standard errors of ``p`` (a fixed seed makes the check
    deterministic; ``z = 5`` keeps a correct constant far from the edge)."""
    se = math.sqrt(p * (1.0 - p) / trials)
    return abs(hits / trials - p) <= z * se


# ------------------------------------------- 14.6: Max-2-CSP's local route, the label choice

def test_local_label_choice_is_the_exponential_mechanism_at_the_charged_epsilon():
    """docs/privacy.md 14.6: variable ``v`` takes label ``a`` with probability proportional to
    ``exp(eps_m score(v, a))``, ``eps_m = (1 - 0.05) eps`` (14.1's 5% for the constraint
    degrees; ``estimate=False`` leaves the route the whole ``eps``), scores of sensitivity 1.

    100 disjoint "not equal" constraints over two values, weight 1: every variable has one
    constraint, so the order puts the two ends of a pair in different batches (one node per
    batch below 200 positions); the earlier end sees no decided neighbour (uniform label), the
    later one scores 1 for the label that differs and 0 for the other, so the pair is satisfied
    with probability exactly ``e^eps_m / (1 + e^eps_m)``. A Gumbel scale below ``1 / eps_m``
    (less noise than the charge pays for) satisfies more pairs."""
    differ = {(0, 1), (1, 0)}
    pairs = 100
    inst = CSPInstance(2 * pairs, 2, [(2 * i, 2 * i + 1, differ, 1.0) for i in range(pairs)])
    eps_m = 1.0
    eps = eps_m / (1.0 - 0.05)
    hits = trials = 0
    for seed in range(25):
        res = max_2csp(inst, epsilon=eps, delta=0, rng=seed, estimate=False)
        choice, = [e for e in res.ledger.entries if e.name == "local route: label choices"]
        assert choice.epsilon == pytest.approx(eps_m, rel=1e-12)
        x = res.assignment
        hits += sum(x[2 * i] != x[2 * i + 1] for i in range(pairs))
        trials += pairs
    p = math.exp(eps_m) / (1.0 + math.exp(eps_m))  # 0.731; at half the Gumbel scale 0.881
    assert _binomial_close(hits, trials, p), (hits / trials, p)


# ------------------------------------------------ 13 and 14.1: the local route's degree release

class _Stop(Exception):
    """Raised by a spy once it has what it needs: the release goes no further."""


def _adjacent_weights(rng, n):
    """A random weighted graph on ``n`` nodes and its neighbours: every pair's weight moved to
    0, to 1 and to a random value in (0, 1) (docs/privacy.md 4: one pair, by at most 1)."""
    A = np.triu((rng.random((n, n)) < 0.5) * rng.choice([1.0, 0.3, 0.7], (n, n)), 1)
    A = A + A.T
    near = []
    for i in range(n):
        for j in range(i + 1, n):
            for new in {0.0, 1.0, float(rng.uniform(0.05, 0.95))} - {A[i, j]}:
                B = A.copy()
                B[i, j] = B[j, i] = new
                near.append(B)
    return A, near


def test_local_route_degree_release_rounds_on_a_grid_for_two_changed_coordinates(monkeypatch):
    """docs/privacy.md 13 (rounding and sensitivity) and 14.1: the discrete Laplace rounds the
    value to a grid and is calibrated to ``D_Z = D / g + k`` steps, ``k`` the caller's
    ``changed=``; a ``k`` below the number of coordinates that adjacent inputs move leaves the
    rounding's extra step per coordinate unpaid (the release spends more than its epsilon).
    One pair moves two degrees, so the local route's degree release must pass ``changed >= 2``
    (and sensitivity >= the L1 change, 2)."""
    import scipy.sparse as sp

    from dpgraph.graph import from_matrix
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes import local as L

    calls = []

    def spy(value, *args, **kwargs):
        arr = np.array(value, dtype=np.float64, copy=True)
        changed = kwargs.get("changed")
        calls.append((arr, float(kwargs["sensitivity"]), arr.size if changed is None else changed))
        raise _Stop

    def prenoise(A):
        monkeypatch.setattr(L, "laplace_mechanism", spy)
        with pytest.raises(_Stop):
            L.release_local_sides(from_matrix(sp.csr_array(A)), epsilon=1.0,
                                  ledger=PrivacyLedger(epsilon=1.0, delta=0), rng=0)
        monkeypatch.undo()
        return calls.pop()

    rng = np.random.default_rng(4)
    worst_l1 = worst_count = 0
    for n in (5, 7):
        A, near = _adjacent_weights(rng, n)
        d0, s0, k0 = prenoise(A)
        for B in near:
            d1, s1, k1 = prenoise(B)
            moved = np.abs(d1 - d0)
            worst_l1 = max(worst_l1, float(moved.sum()))
            worst_count = max(worst_count, int(np.count_nonzero(moved > 0)))
            assert moved.sum() <= min(s0, s1) + 1e-12
            assert np.count_nonzero(moved > 0) <= min(k0, k1)
    assert worst_l1 == pytest.approx(2.0) and worst_count == 2  # both bounds are attained


# ------------------------------------------------------ 7.1: the super-graph's edge counts

def _spy_laplace(module, monkeypatch) -> list:
    """Record what ``module``'s Laplace mechanism is handed (the pre-noise value and the
    sensitivity), then draw as usual."""
    calls = []
    real = module.laplace_mechanism

    def spy(value, *args, **kwargs):
        calls.append((np.array(value, dtype=np.float64, copy=True), float(kwargs["sensitivity"])))
        return real(value, *args, **kwargs)

    monkeypatch.setattr(module, "laplace_mechanism", spy)
    return calls


def _worst_count_change(release, eps: float, seed: int) -> float:
    """Brute force over a 7-node graph's neighbours: the largest L1 change of the counts
    ``release(A)`` hands the Laplace mechanism, checked against the sensitivity it hands over
    and the ledger's entry (scale at least ``D / eps``) on both sides."""
    A, near = _adjacent_weights(np.random.default_rng(seed), 7)
    (c0, s0), e0 = release(A)
    worst = 0.0
    for B in near:
        (c1, s1), e1 = release(B)
        worst = max(worst, float(np.abs(c1 - c0).sum()))
        for s, e in ((s0, e0), (s1, e1)):
            assert s >= worst - 1e-12
            assert e.sensitivity >= worst - 1e-12
            assert e.noise_scale >= worst / eps  # Laplace scale D / eps (the grid adds 1/1024)
    return worst


def test_supergraph_counts_sensitivity_and_scale_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 7.1 (``supergraph_communities``, the start of
    ``community_method="refine"`` with ``init_labels=0``): one pair lies in one super-node pair,
    so the counts move by at most 1 in L1 over adjacent graphs (brute force here, attained by an
    edge added), and the release must be calibrated to at least that: the sensitivity handed to
    the Laplace mechanism and the scale the ledger records (``>= 1 / epsilon``)."""
    import scipy.sparse as sp

    from dpgraph.graph import from_matrix
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.synthetic import communities as CM

    calls = _spy_laplace(CM, monkeypatch)
    eps = 0.7

    def release(A):
        led = PrivacyLedger(epsilon=eps, delta=0)
        CM.supergraph_communities(from_matrix(sp.csr_array(A)), epsilon=eps, ledger=led, rng=3,
                                  group_size=2)
        (entry,) = led.entries
        return calls.pop(), entry

    assert _worst_count_change(release, eps, seed=8) == pytest.approx(1.0)


# ------------------------------------------------------- 7.9: the degree-class pair counts

def test_degree_class_counts_sensitivity_and_scale_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 7.9 (``release_degree_mixing``, ``bin_share`` of ``release_synthetic``'s
    default plan): for classes fixed before the release (the released degrees' classes), one
    pair lies in one class pair, so the counts move by at most 1 in L1 (brute force over
    adjacent graphs, attained); the sensitivity handed to the Laplace mechanism and the scale
    the ledger records must cover it."""
    import scipy.sparse as sp

    from dpgraph.graph import from_matrix
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.synthetic import degree_classes as DC

    calls = _spy_laplace(DC, monkeypatch)
    eps = 0.9
    bins = np.array([0, 1, 2, 0, 1, 2, 2])  # public classes, fixed for both graphs

    def release(A):
        led = PrivacyLedger(epsilon=eps, delta=0)
        DC.release_degree_mixing(from_matrix(sp.csr_array(A)), bins, epsilon=eps, ledger=led,
                                 rng=1)
        (entry,) = led.entries
        return calls.pop(), entry

    assert _worst_count_change(release, eps, seed=9) == pytest.approx(1.0)


# ------------------------------------------- 4.5: privatize's randomized-response route, flips

def test_randomized_response_route_flips_each_pair_with_one_over_one_plus_e_eps():
    """docs/privacy.md 4.5: every pair's bit flips independently with probability
    ``p = 1 / (1 + e^eps)`` (Warner), ``eps`` what the ledger charges for the pairs: at that
    probability the likelihood ratio of an output bit is ``(1 - p) / p = e^eps``. A smaller
    ``p`` (e.g. ``1 / (1 + e^{2 eps})``, 0.119 against 0.269 at eps 1) spends more than the
    charge. Read off the release: a de-biased entry is positive iff the released bit is 1."""
    import networkx as nx

    import dpgraph

    n, eps = 300, 1.0
    G = nx.gnp_random_graph(n, 0.1, seed=5)
    pg = dpgraph.privatize(G, epsilon=eps, delta=1e-6, route="randomized-response", rng=0,
                           synthetic_share=None)
    (rr,) = [e for e in pg.ledger.entries if e.mechanism == "randomized-response"]
    assert rr.epsilon == pytest.approx(eps, rel=1e-12)  # the whole budget, no screening here
    A = nx.to_numpy_array(G, nodelist=list(pg.labels)) > 0
    released = np.asarray(pg.unbiased) > 0
    iu = np.triu_indices(n, 1)
    flipped = released[iu] != A[iu]
    p = 1.0 / (1.0 + math.exp(rr.epsilon))
    assert _binomial_close(int(flipped.sum()), flipped.size, p), (flipped.mean(), p)


# ------------------------------------------- 1: the Laplace mechanism's continuous sampler

def test_continuous_laplace_draws_at_scale_sensitivity_over_epsilon():
    """docs/privacy.md 1 (Dwork & Roth Thm 3.6): ``laplace_mechanism(sampler="continuous")``
    adds ``Laplace(D / eps)``, whose mean absolute value is ``D / eps``; at half that scale
    it would spend ``2 eps``. 20,000 draws, fixed seed: the sample mean of ``|noise|`` has a
    standard error of ``b / sqrt(20000)`` (0.7% of ``b``)."""
    from dpgraph.privacy import PrivacyLedger, laplace_mechanism

    sens, eps, size = 2.0, 0.5, 20_000
    led = PrivacyLedger(epsilon=eps, delta=0)
    noisy, b = laplace_mechanism(np.zeros(size), sensitivity=sens, epsilon=eps, ledger=led,
                                 name="x", rng=0, sampler="continuous")
    expected = sens / eps
    assert b == pytest.approx(expected) and led.entries[0].noise_scale == pytest.approx(expected)
    assert np.mean(np.abs(noisy)) == pytest.approx(expected, rel=5.0 / math.sqrt(size))


# ------------------------------------- 4.11: max_cut's choice among the candidate partitions

def test_choice_among_candidates_is_the_exponential_mechanism_on_cuts_at_its_epsilon():
    """docs/privacy.md 4.11: the choice among fixed partitions is the monotone exponential
    mechanism on their cuts, sensitivity 1: ``P[x_k] ~ exp(eps cut_G(x_k))``. On the path
    0-1-2 the partitions ``(+, -, +)`` and ``(+, +, -)`` cut 2 and 1 edges, so the first is
    chosen with probability ``e^eps / (1 + e^eps)`` (0.731 at eps 1; with the Gumbel scale
    of sensitivity 1/2, 0.881). The cuts are brute force here; the frequency uses 2,000
    choices from one seeded generator."""
    import networkx as nx

    from dpgraph.privacy import PrivacyLedger, make_rng
    from dpgraph.solve.candidates import choose_candidate, true_cuts

    G = nx.path_graph(3)
    pool = np.array([[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])  # columns: the two partitions
    cut = [sum(pool[u, k] != pool[v, k] for u, v in G.edges()) for k in range(2)]
    assert cut == [2, 1]
    eps, runs = 1.0, 2000
    gen = make_rng(0)
    led = PrivacyLedger(epsilon=eps * runs, delta=0)
    cuts_of = true_cuts(G)
    best = sum(choose_candidate(cuts_of, pool, epsilon=eps, ledger=led, rng=gen, note="t") == 0
               for _ in range(runs))
    assert all(e.epsilon == pytest.approx(eps) for e in led.entries)
    p = math.exp(eps * (cut[0] - cut[1])) / (1.0 + math.exp(eps * (cut[0] - cut[1])))
    assert _binomial_close(best, runs, p), (best / runs, p)


# ------------------------------- 6.4: max_2csp's choice among candidate assignments (spectral)

def test_choice_among_assignments_is_the_exponential_mechanism_on_values_at_its_epsilon():
    """docs/privacy.md 6.4: on the spectral and randomized-response routes the assignment is
    chosen among fixed candidates by the monotone exponential mechanism on their values,
    sensitivity 1: ``P[x_k] ~ exp(eps value(x_k))``. One "not equal" constraint of weight 1
    over two values: the assignments ``(0, 1)`` and ``(0, 0)`` have values 1 and 0 (brute
    force), so the first is chosen with probability ``e^eps / (1 + e^eps)`` (0.731 at eps 1;
    0.881 at the Gumbel scale of sensitivity 1/2). 2,000 choices from one seeded generator."""
    from dpgraph.privacy import PrivacyLedger, make_rng
    from dpgraph.solve.csp import _choose_and_estimate

    differ = {(0, 1), (1, 0)}
    inst = CSPInstance(2, 2, [(0, 1, differ, 1.0)])
    pool = np.array([[0, 1], [0, 0]])
    values = [sum(w for i, j, R, w in inst.constraints if (x[i], x[j]) in R) for x in pool]
    assert values == [1.0, 0.0]
    eps, runs = 1.0, 2000
    gen = make_rng(0)
    led = PrivacyLedger(epsilon=eps * runs, delta=0)
    first = sum(_choose_and_estimate(inst, pool, ("t",), eps, 0.0, 1.0, led, gen)[0] == 0
                for _ in range(runs))
    assert all(e.epsilon == pytest.approx(eps) for e in led.entries) and len(led.entries) == runs
    p = math.exp(eps) / (1.0 + math.exp(eps))
    assert _binomial_close(first, runs, p), (first / runs, p)


# ----------------------------------- 3.4 and 3.6: the noise form of the projector and the core

def _symmetric_noise_variances(real, kwargs, n=300):
    """Off-diagonal and diagonal mean squares of the symmetric noise that a call
    ``symmetric_gaussian_noise(**kwargs)`` configures, drawn at size ``n`` (its form does not
    depend on the size) on a scratch ledger from a fixed seed."""
    from dpgraph.privacy import PrivacyLedger

    kw = dict(kwargs, ledger=PrivacyLedger(epsilon=kwargs["epsilon"], delta=kwargs["delta"]),
              rng=11)
    D = real(n, **kw).to_dense()
    iu = np.triu_indices(n, 1)
    return float(np.mean(D[iu] ** 2)), float(np.mean(np.diag(D) ** 2))


def test_pca_projector_and_core_noise_is_the_upper_triangle_mechanism(monkeypatch):
    """docs/privacy.md 3.4 and 3.6 (section 1, symmetric matrix noise): the projector ``U U^T``
    and the core ``B^T M B`` get symmetric Gaussian noise of off-diagonal variance ``sigma^2``
    and diagonal variance ``2 sigma^2`` (the Gaussian mechanism on
    ``((X_ab)_(a<b), (X_aa / sqrt 2)_a)``, of norm ``||X||_F / sqrt 2``), ``sigma`` the
    analytic Gaussian at the step's share for ``c_E T / (L - eta)`` (``c_E = sqrt 2 w``,
    ``eta = w``; ``L``, ``T`` the released bounds) and for
    ``w max(sqrt 2 b_1 b_2, b_1^2 / sqrt 2)`` (``b_1 >= b_2`` the released basis's largest
    row norms). A diagonal variance of ``sigma^2`` makes a diagonal change cost ``sqrt 2``
    times the calibrated sensitivity. Measured on a 300 x 300 draw of the same form (the
    diagonal's 300 squares: standard error 8%)."""
    from dpgraph.privacy import analytic_gaussian_sigma
    from dpgraph.spectral import EntryAdjacency, private_low_rank
    from dpgraph.spectral import pca as PCA

    real, calls = PCA.symmetric_gaussian_noise, []

    def spy(n, **kwargs):
        calls.append((kwargs["name"], _symmetric_noise_variances(real, kwargs)))
        return real(n, **kwargs)

    monkeypatch.setattr(PCA, "symmetric_gaussian_noise", spy)
    n, w, eps, delta = 200, 1.0, 1.0, 1e-6
    u = np.ones(n) / math.sqrt(n)
    res = private_low_rank(500.0 * np.outer(u, u), 1, epsilon=eps, delta=delta,
                           adjacency=EntryAdjacency(w), rng=0)
    assert not res.halted
    d, split = res.diagnostics, PCA.DEFAULT_LOW_RANK_SPLIT
    b = np.sort(np.linalg.norm(res.basis, axis=1))[::-1]
    expected = {
        "pca: projector (Alg. 5.8)": analytic_gaussian_sigma(
            split.epsilon[2] * eps, split.delta[2] * delta,
            math.sqrt(2) * w * d.row_scale_upper / (d.gap_lower - w)),
        "pca: core (Alg. 5.10)": analytic_gaussian_sigma(
            split.epsilon[3] * eps, split.delta[3] * delta,
            w * max(math.sqrt(2) * b[0] * b[1], b[0] ** 2 / math.sqrt(2))),
    }
    assert sorted(name for name, _ in calls) == sorted(expected)
    for name, (off, diag) in calls:
        sigma = expected[name]
        assert off == pytest.approx(sigma ** 2, rel=0.03), name
        assert diag == pytest.approx(2 * sigma ** 2, rel=0.35), name


def test_pca_route_core_noise_is_the_upper_triangle_mechanism(monkeypatch):
    """docs/privacy.md 3.6 on the graph route (``release_low_rank``, which releases the core
    itself): off-diagonal variance ``sigma^2``, diagonal ``2 sigma^2``, ``sigma`` the analytic
    Gaussian at ``core_share`` of the budget for ``w max(sqrt 2 b_1 b_2, b_1^2 / sqrt 2)``."""
    from dpgraph.privacy import PrivacyLedger, analytic_gaussian_sigma
    from dpgraph.release.routes import pca as R
    from dpgraph.spectral import EntryAdjacency

    real, calls = R.symmetric_gaussian_noise, []

    def spy(n, **kwargs):
        calls.append(_symmetric_noise_variances(real, kwargs))
        return real(n, **kwargs)

    monkeypatch.setattr(R, "symmetric_gaussian_noise", spy)
    n, w, eps, delta, share = 200, 1.0, 1.0, 1e-6, 0.2
    u = np.ones(n) / math.sqrt(n)
    basis, core, how, sub = R.release_low_rank(
        500.0 * np.outer(u, u), 1, EntryAdjacency(w), epsilon=eps, delta=delta,
        core_share=share, ledger=PrivacyLedger(epsilon=eps, delta=delta), rng=0)
    assert not sub.halted
    b = np.sort(np.linalg.norm(basis, axis=1))[::-1]
    sigma = analytic_gaussian_sigma(share * eps, share * delta,
                                    w * max(math.sqrt(2) * b[0] * b[1], b[0] ** 2 / math.sqrt(2)))
    (off, diag), = calls
    assert off == pytest.approx(sigma ** 2, rel=0.03)
    assert diag == pytest.approx(2 * sigma ** 2, rel=0.35)


# ------------------------------------------- 3.7: the PCA's two tests fail with their delta

def test_pca_tests_fail_with_probability_their_delta_share():
    """docs/privacy.md 3.7: the released lower gap bound ``L = g^ - b ln(1 / (2 delta_g))``
    exceeds the true gap ``g(M)``, and the row-scale bound
    ``T = exp(x^ + b_c ln(1 / (2 delta_c)))`` falls below the true row scale ``t(M)``, each
    with probability at most its delta share (the one-sided Laplace tail
    ``P[Lap(b) > b ln(1/(2 beta))] = beta``; 13.1 for the discrete sampler's tail scale).
    Here ``delta_g = delta_c = 0.1``; a margin of half that size fails with probability
    ``0.5 * 0.2^(1/2) = 0.22``. ``g`` and ``t`` from ``numpy.linalg.eigh``; 400 runs from one
    seeded generator, each halting before the projector (``max_projector_noise`` tiny)."""
    from dpgraph.privacy import make_rng
    from dpgraph.spectral import BudgetSplit, EntryAdjacency, private_subspace

    rng = np.random.default_rng(3)
    u = rng.standard_normal(8)
    u /= np.linalg.norm(u)
    M = 3.0 * np.outer(u, u)
    lam, vec = np.linalg.eigh(M)
    order = np.argsort(-np.abs(lam))
    g = abs(lam[order[0]]) - abs(lam[order[1]])
    t = np.abs(vec[:, order[0]]).max()
    split = BudgetSplit(epsilon=(0.5, 0.4, 0.1, 0.0), delta=(0.3, 0.3, 0.4, 0.0))
    gen = make_rng(0)
    runs, gap_fail, scale_fail = 400, 0, 0
    for _ in range(runs):
        d = private_subspace(M, 1, epsilon=2.0, delta=1.0 / 3.0, adjacency=EntryAdjacency(0.05),
                             rng=gen, split=split, max_projector_noise=1e-300).diagnostics
        assert d.halted_at == "projector noise"  # both tests ran
        gap_fail += d.gap_lower > g
        scale_fail += d.row_scale_upper < t
    limit = 0.1 + 4.0 * math.sqrt(0.1 * 0.9 / runs)  # 0.16
    assert gap_fail / runs <= limit and scale_fail / runs <= limit, (gap_fail, scale_fail)


# ------------------------------------------ 4.1-4.3: the dense PCA route's graph-side bounds

def test_pca_route_degrees_normalizer_and_tail_sensitivities_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 4.1-4.3 (``route="pca"``): the degrees move by at most ``sqrt 2`` in L2,
    in 2 coordinates (the discrete sampler's ``changed``); for a fixed released normalizer
    ``d~`` the normalized adjacency moves by one symmetric entry pair of size at most
    ``w = 1 / min d~`` (the ``EntryAdjacency`` handed to the private PCA), and the tail level
    by at most ``||M(G') - M(G)||_2 <= w`` (Weyl; the sensitivity handed to its Gaussian).
    Brute force over adjacent graphs; the degree release is replaced by a fixed public value,
    so ``d~`` is the same for both graphs (the bounds hold for every ``d~``) and the entry and
    spectral bounds are attained; the PCA itself is stubbed out (3 has its own tests)."""
    import types

    import scipy.sparse as sp

    from dpgraph.graph import from_matrix
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.release.routes import pca as R

    seen = {}

    def fake_gaussian(value, **kwargs):
        arr = np.array(value, dtype=np.float64, copy=True)
        if kwargs["name"] == "degrees":
            seen["deg"] = (arr, float(kwargs["sensitivity"]), kwargs.get("changed", arr.size))
            return np.full(arr.shape, 3.0), 1.0  # fixed and public: tau = 3, d~ = 6
        seen["tail"] = (float(arr), float(kwargs["sensitivity"]))
        raise _Stop

    def fake_low_rank(M, rank, adjacency, **kwargs):
        seen["M"], seen["adj"] = (M.toarray() if sp.issparse(M) else np.asarray(M)), adjacency
        return (np.eye(M.shape[0])[:, :rank], np.zeros((rank, rank)), "stub",
                types.SimpleNamespace(halted=True, diagnostics={}))

    monkeypatch.setattr(R, "gaussian_mechanism", fake_gaussian)
    monkeypatch.setattr(R, "release_low_rank", fake_low_rank)

    def run(A):
        seen.clear()
        with pytest.raises(_Stop):
            R.release(from_matrix(sp.csr_array(A)), epsilon=1.0, delta=1e-6, rank=1,
                      ledger=PrivacyLedger(epsilon=1.0, delta=1e-6), rng=0, degree_share=0.1,
                      tail_share=0.05, core_share=0.2)
        return dict(seen)

    rng = np.random.default_rng(6)
    A, near = _adjacent_weights(rng, 7)
    s0 = run(A)
    worst = {"deg": 0.0, "count": 0, "entry": 0.0, "spec": 0.0, "tail": 0.0}
    for B in near:
        s1 = run(B)
        moved, E = s1["deg"][0] - s0["deg"][0], s1["M"] - s0["M"]
        worst["deg"] = max(worst["deg"], float(np.linalg.norm(moved)))
        worst["count"] = max(worst["count"], int(np.count_nonzero(moved)))
        worst["entry"] = max(worst["entry"], float(np.abs(E).max()))
        worst["spec"] = max(worst["spec"], float(np.linalg.norm(E, 2)))
        worst["tail"] = max(worst["tail"], abs(s1["tail"][0] - s0["tail"][0]))
        for s in (s0, s1):
            assert worst["deg"] <= s["deg"][1] + 1e-12 and worst["count"] <= s["deg"][2]
            assert s["adj"].symmetric and worst["entry"] <= s["adj"].max_abs + 1e-12
            assert worst["spec"] <= s["tail"][1] and worst["tail"] <= s["tail"][1]
    assert worst["deg"] == pytest.approx(math.sqrt(2)) and worst["count"] == 2
    assert worst["entry"] == pytest.approx(1 / 6) and worst["spec"] == pytest.approx(1 / 6)


def test_pca_rectangular_row_scale_bound_covers_rows_up_to_sqrt_2():
    """docs/privacy.md 3 (step 2) and 3.7: for rectangular ``M`` the row scale is
    ``t = sqrt(max_a ||U_a||^2 + max_b ||V_b||^2)``, up to ``t_max = sqrt 2``; the released
    ``T = min(t_max, ...)`` may fall below ``t`` only with probability ``delta_c``. On
    ``M = 3 e_1 e_1^T`` (8 x 6) both singular vectors are coordinate vectors, so
    ``t = sqrt 2``; a cap of 1 would make ``T < t`` on every run (and the projector's
    sensitivity ``c_E T / (L - eta)`` too small by ``sqrt 2``)."""
    from dpgraph.privacy import make_rng
    from dpgraph.spectral import BudgetSplit, EntryAdjacency, private_subspace

    M = np.zeros((8, 6))
    M[0, 0] = 3.0
    t = math.sqrt(2.0)  # ||U_1|| = ||V_1|| = 1
    split = BudgetSplit(epsilon=(0.5, 0.4, 0.1, 0.0), delta=(0.3, 0.3, 0.4, 0.0))
    gen = make_rng(1)
    runs, fail = 100, 0
    for _ in range(runs):
        d = private_subspace(M, 1, epsilon=2.0, delta=1.0 / 3.0,
                             adjacency=EntryAdjacency(0.05, symmetric=False), rng=gen,
                             split=split, max_projector_noise=1e-300).diagnostics
        assert d.halted_at == "projector noise"  # both tests ran
        fail += d.row_scale_upper < t * (1 - 1e-12)
    assert fail / runs <= 0.1 + 4.0 * math.sqrt(0.1 * 0.9 / runs), fail


# --------------------------------------------------- 5.1: the matrix-free route's degrees

def test_matrix_free_degree_release_sensitivity_and_noise_on_adjacent_graphs():
    """docs/privacy.md 5.1 and 5.4: the degrees move by at most ``sqrt 2`` in L2 over adjacent
    graphs (brute force, attained by one unweighted edge), and their release gets the share
    ``rho_d = 0.1 rho`` of ``rho = mu^2 / 2``, ``mu = 1 / analytic_gaussian_sigma(eps, delta,
    1)``, so ``sigma_d = sqrt 2 / sqrt(2 rho_d)``: the itemized entry's sensitivity and scale
    must cover that, and the released degrees' error must have that standard deviation
    (400 nodes: standard error 3.5%)."""
    import scipy.sparse as sp

    from dpgraph.graph import from_matrix
    from dpgraph.privacy import PrivacyLedger, analytic_gaussian_sigma
    from dpgraph.release.routes import matrix_free as MF

    rng = np.random.default_rng(2)
    A, near = _adjacent_weights(rng, 6)
    d0 = A.sum(axis=1)
    worst = max(float(np.linalg.norm(B.sum(axis=1) - d0)) for B in near)
    assert worst == pytest.approx(math.sqrt(2))
    eps, delta, n = 1.0, 1e-6, 400
    rho = 0.5 / analytic_gaussian_sigma(eps, delta, 1.0) ** 2
    sigma = worst / math.sqrt(2 * 0.1 * rho)
    W = sp.random(n, n, density=0.02, random_state=4, data_rvs=lambda k: np.ones(k))
    W = sp.csr_array(sp.triu(W, 1) + sp.triu(W, 1).T)
    pg = MF.release(from_matrix(W), epsilon=eps, delta=delta, rank=2,
                    ledger=PrivacyLedger(epsilon=eps, delta=delta), rng=0)
    (entry,) = [e for e in pg.diagnostics["composition_ledger"].entries if e.name == "degrees"]
    assert entry.sensitivity >= worst - 1e-12
    assert entry.noise_scale >= sigma * (1 - 1e-9)
    err = np.asarray(pg.degrees) - np.asarray(W.sum(axis=1)).ravel()
    assert float(np.std(err)) == pytest.approx(sigma, rel=0.15)


# ------------------------------------- 2.2: cosine similarities, the practical variant's noise

def test_practical_cosine_noise_is_the_upper_triangle_mechanism(monkeypatch):
    """docs/privacy.md 2.2 (``method="practical"``) and section 1: the Gram matrix gets
    symmetric noise of off-diagonal variance ``sigma^2`` and diagonal ``2 sigma^2``,
    ``sigma = analytic_gaussian_sigma(eps, delta, Delta / sqrt 2)``: the Gaussian mechanism on
    ``((G_ij)_(i<j), (G_ii / sqrt 2)_i)``, of norm ``||G||_F / sqrt 2``. Diagonal variance
    ``sigma^2`` would spend more than the charge on a diagonal change."""
    import dpgraph.privacy.noise as NZ
    from dpgraph.mechanisms import private_cosine_similarities
    from dpgraph.privacy import analytic_gaussian_sigma

    real, calls = NZ.symmetric_gaussian_noise, []

    def spy(n, **kwargs):
        calls.append(_symmetric_noise_variances(real, kwargs))
        return real(n, **kwargs)

    monkeypatch.setattr(NZ, "symmetric_gaussian_noise", spy)
    V = np.random.default_rng(0).standard_normal((30, 4))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    eps, delta, Delta = 1.0, 1e-6, 1.0
    private_cosine_similarities(V, epsilon=eps, delta=delta, sensitivity=Delta,
                                method="practical", rank=2, rng=0)
    sigma = analytic_gaussian_sigma(eps, delta, Delta / math.sqrt(2))
    (off, diag), = calls
    assert off == pytest.approx(sigma ** 2, rel=0.03)
    assert diag == pytest.approx(2 * sigma ** 2, rel=0.35)


# ---------------------------------------------------- 2.5: the JL mechanism's Gordon factor

@pytest.mark.parametrize("d, jl_dim, beta", [(3, 20, 1e-7), (10, 200, 1e-3), (50, 1000, 0.01)])
def test_gordon_factor_is_the_derived_bound(d, jl_dim, beta):
    """docs/privacy.md 2.5: with probability ``>= 1 - beta`` over ``Pi = G / sqrt l``, every
    rank-2 unit ``Z`` has ``||Pi svec Z|| <= 1 + (w(T) + sqrt(2 ln(1/beta))) / sqrt l`` (Gordon,
    then Gaussian concentration of a 1-Lipschitz supremum), with the Gaussian width
    ``w(T) <= sqrt 2 * E||S_g||_2 <= sqrt 2 * 2 sqrt d`` (nuclear norm ``<= sqrt 2`` at rank 2;
    ``E||G'||_2 <= 2 sqrt d``). A smaller factor under-calibrates the release's noise; the
    empirical check in ``tests/test_mechanisms_jl.py`` is too loose to see a factor ``sqrt 2``
    in either term."""
    from dpgraph.mechanisms.jl import gordon_factor

    width = math.sqrt(2.0) * 2.0 * math.sqrt(d)
    expected = 1.0 + (width + math.sqrt(2.0 * math.log(1.0 / beta))) / math.sqrt(jl_dim)
    assert gordon_factor(d, jl_dim, beta) >= expected * (1 - 1e-12)


# ------------------------------------------ 2.3: even-k marginals, the flattening's noise form

@pytest.mark.parametrize("k, n, sparsity", [(2, 4, None), (2, 5, 2), (4, 4, None)])
def test_even_k_marginals_noise_is_the_upper_triangle_mechanism(monkeypatch, k, n, sparsity):
    """docs/privacy.md 2.3 (even ``k``) and section 1: the flattening of
    ``T = sum_rows x^{(x)k}`` is a symmetric ``n^{k/2} x n^{k/2}`` matrix with the Frobenius
    norm of ``T``, released with symmetric noise of off-diagonal variance ``sigma^2`` and
    diagonal ``2 sigma^2``, ``sigma = analytic_gaussian_sigma(eps, delta, Delta_k / sqrt 2)``
    (the Gaussian mechanism on ``((F_ab)_(a<b), (F_aa / sqrt 2)_a)``, of norm
    ``||F||_F / sqrt 2``). ``Delta_k`` by brute force: the largest ``||x^{(x)k} - y^{(x)k}||_F``
    over all pairs of 0/1 rows with at most ``t`` ones. Noise at ``Delta_k / 2`` halves the
    off-diagonal variance; a diagonal variance of ``sigma^2`` makes a change of the diagonal
    (e.g. the all-ones row against the zero row) cost ``sqrt 2`` times the calibrated
    sensitivity. Stopped at the noise (the projection is post-processing)."""
    import itertools

    from dpgraph.mechanisms import marginals as MG
    from dpgraph.privacy import analytic_gaussian_sigma

    real, calls = MG.symmetric_gaussian_noise, []

    def spy(N, **kwargs):
        calls.append((N, _symmetric_noise_variances(real, kwargs)))
        raise _Stop

    monkeypatch.setattr(MG, "symmetric_gaussian_noise", spy)
    t = n if sparsity is None else sparsity
    rows = [np.array(x, dtype=float) for x in itertools.product((0, 1), repeat=n) if sum(x) <= t]

    def power(x):
        out = np.array(1.0)
        for _ in range(k):
            out = np.multiply.outer(out, x)
        return out

    tens = [power(x) for x in rows]
    Delta = max(float(np.linalg.norm(a - b)) for a in tens for b in tens)
    eps, delta = 1.0, 1e-6
    data = np.array(rows[1:4], dtype=int)
    with pytest.raises(_Stop):
        MG.kway_marginals(data, k, epsilon=eps, delta=delta, sparsity=sparsity, rng=0)
    sigma = analytic_gaussian_sigma(eps, delta, Delta / math.sqrt(2))
    (N, (off, diag)), = calls
    assert N == n ** (k // 2)
    assert off == pytest.approx(sigma ** 2, rel=0.03)
    assert diag == pytest.approx(2 * sigma ** 2, rel=0.35)


# ------------------------------------------------ 9: Dask edge lists, the weight-range check

def test_dask_edge_list_with_a_weight_above_one_is_refused_before_any_release():
    """docs/privacy.md 9 (and 4: the adjacency changes one pair's weight in ``[0, 1]`` by at
    most 1, so every sensitivity of sections 4 and 5 assumes weights in ``[0, 1]``): a Dask
    edge list's weights must lie in ``[0, 1]``, checked before any release. One edge of weight
    2 among edges of weight 1/2, all in one row block: the graph's weight range is
    ``(0.5, 2.0)`` (the smallest and the largest weight) and ``privatize`` refuses it. A range
    whose upper end is the largest of the blocks' *smallest* weights (0.5 here) lets the
    weight-2 edge through, and a change of that pair then moves the degrees by
    ``2 sqrt 2``, twice the calibrated ``sqrt 2``."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    import dask

    import dpgraph
    from dpgraph.io.dask import from_dask

    df = pd.DataFrame({"u": [0, 1, 2, 3], "v": [1, 2, 3, 0], "w": [0.5, 2.0, 0.5, 0.5]})
    with dask.config.set(scheduler="sync"):
        g = from_dask(dd.from_pandas(df, npartitions=1), weight="w")
        assert g.weight_range == (0.5, 2.0)
        led = dpgraph.PrivacyLedger(epsilon=1.0, delta=1e-6)
        with pytest.raises(ValueError, match=r"weights in \[0\.5, 2\.0\]"):
            dpgraph.privatize(dd.from_pandas(df, npartitions=1), epsilon=1.0, delta=1e-6,
                              weight="w", route="matrix-free", rank=1, ledger=led, rng=0)
        assert led.spent == (0.0, 0.0)
