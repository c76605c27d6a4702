"""Guards of the privacy-critical constants and steps: each test below fails on a
security-relevant change (a noise constant, a budget check or a composition step) that no
other test of the default suite caught when the code was mutated, and passes on the code as it
is.

Each test checks the code against something computed independently of it: the budget
arithmetic by hand, a conversion against the exact Gaussian privacy curve (Balle-Wang Thm 8
evaluated with scipy.stats), a release against its neighbours (docs/privacy.md 4, 6, 7: graphs
whose weights differ in one pair by at most 1; CSP instances that differ in one constraint),
or the scale of the noise a mechanism actually draws against the epsilon its ledger records
(a spy in place of the sampler records the draw's parameters; nothing here is statistical).
"""
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

from dpgraph.graph import from_matrix
from dpgraph.privacy import PrivacyBudgetError, PrivacyLedger
from dpgraph.privacy import calibration as CAL


def _exact_gaussian_delta(sigma, eps, sens=1.0):
    """Balle-Wang Thm 8 with scipy.stats directly (independent of dpgraph's log-space code)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)


# ---------------------------------------------------------------- 1: the ledger's refusal

def test_extend_refuses_a_ledger_that_would_pass_the_budget():
    """docs/privacy.md 1 (accounting; basic composition) and 11.1 (refuse before spending):
    ``PrivacyLedger.extend`` adds another ledger's charges and must refuse, recording nothing,
    when their sum passes the budget. Guards the mutant that drops ``extend``'s budget check
    (the charges of a sub-release, e.g. the PCA sub-ledger of routes/pca.py, were then added
    past the total)."""
    total = PrivacyLedger(epsilon=1.0, delta=1e-6)
    total.charge("first", mechanism="laplace", epsilon=0.6, sensitivity=1.0, noise_scale=1 / 0.6)
    other = PrivacyLedger()
    other.charge("second", mechanism="laplace", epsilon=0.6, sensitivity=1.0,
                 noise_scale=1 / 0.6)
    with pytest.raises(PrivacyBudgetError):
        total.extend(other)
    assert [e.name for e in total.entries] == ["first"]
    assert total.spent == (0.6, 0.0)
    dl = PrivacyLedger()
    dl.charge("delta", mechanism="ptr-failure", epsilon=0.0, delta=2e-6)
    with pytest.raises(PrivacyBudgetError):
        total.extend(dl)
    assert len(total.entries) == 1


# ---------------------------------------------------------------- 1: zCDP conversions

@pytest.mark.parametrize("rho", [0.01, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
@pytest.mark.parametrize("conversion", ["standard", "cks"])
def test_zcdp_conversion_is_valid_for_the_gaussian_mechanism(rho, delta, conversion):
    """docs/privacy.md 1 (zCDP accounting): rho-zCDP implies (epsilon, delta)-DP at
    ``epsilon = zcdp_to_approx_dp(rho, delta)``. The Gaussian mechanism with
    ``sigma = 1 / sqrt(2 rho)`` (sensitivity 1) is exactly rho-zCDP, so its exact delta at that
    epsilon (Balle-Wang, scipy.stats) must not exceed ``delta``; and ``"standard"`` is Bun-Steinke
    Prop. 1.3 to the digit. Guards the mutant ``rho + sqrt(rho ln 1/delta)`` (the factor 2
    dropped) in the standard conversion, which understates the ledger's epsilon under
    ``accounting="zcdp", conversion="standard"`` (its exact delta is then 1.6x to 1700x the
    claimed one on this grid)."""
    eps = CAL.zcdp_to_approx_dp(rho, delta, conversion=conversion)
    sigma = 1.0 / math.sqrt(2.0 * rho)
    assert _exact_gaussian_delta(sigma, eps) <= delta * (1 + 1e-9)
    if conversion == "standard":
        L = math.log(1.0 / delta)
        assert eps == pytest.approx(rho + 2.0 * math.sqrt(rho * L), rel=1e-12)


def test_zcdp_standard_ledger_total_is_a_valid_guarantee():
    """docs/privacy.md 1: the ``accounting="zcdp", conversion="standard"`` ledger's total for two
    Gaussian charges is a valid (epsilon, delta) for their composition, itself a Gaussian
    mechanism of ``mu = sqrt(mu_1^2 + mu_2^2)`` (exact delta by Balle-Wang). Guards the same
    mutant (a smaller epsilon than the composition's) through the ledger."""
    led = PrivacyLedger(accounting="zcdp", conversion="standard")
    mus = []
    for k, sigma in enumerate((3.0, 4.0)):
        mus.append(1.0 / sigma)
        led.charge(f"g{k}", mechanism="gaussian", epsilon=5.0, delta=5e-7, sensitivity=1.0,
                   sensitivity_norm="l2", noise_scale=sigma, rho=0.5 / sigma ** 2)
    eps, dlt = led.spent
    assert eps < 10.0  # the zCDP bound is the one used
    mu = math.hypot(*mus)
    assert _exact_gaussian_delta(1.0 / mu, eps) <= dlt * (1 + 1e-9)


# ---------------------------------------------------------------- 14.2: read once, by the later endpoint

def _random_graph(seed, n, density):
    rng = np.random.default_rng(seed)
    A = np.triu((rng.random((n, n)) < density).astype(float), 1)
    return from_matrix(sp.csr_array(A + A.T))


@pytest.mark.parametrize("core", [0, 6])
def test_forward_pass_reads_each_pair_once_against_decided_sides_only(core):
    """docs/privacy.md 14.2 (parallel composition of the forward pass): when batch ``[a, b)``
    is read, only the core and the earlier batches hold a side; every other node's side is 0,
    so a pair is read once, by its later endpoint (pairs inside a batch never). Checked on
    ``release_local_sides`` itself through the audit transcript (the sides each batch is read
    against). Guards the mutant that starts the undecided nodes at side 1 instead of 0
    (``x = np.ones(n)``): every pair is then read by both endpoints at the scale charged for
    one read, which only a utility test noticed."""
    from dpgraph.privacy.transcript import transcript
    from dpgraph.release.routes import local as L

    data = _random_graph(3, 40, 0.2)
    plan = L.LocalPlan(core=core, first_batch=3, batch_growth=0.2)
    with transcript() as seen:
        rel = L.release_local_sides(data, epsilon=2.0, ledger=PrivacyLedger(epsilon=2.0, delta=0),
                                    rng=np.random.default_rng(0), plan=plan)
    rows_seen = [v.astype(int) for name, v in seen if name == "forward pass rows"]
    sides_seen = [v for name, v in seen if name == "forward pass sides"]
    assert len(rows_seen) == len(sides_seen) > 3
    decided = np.zeros(data.n, dtype=bool)
    decided[rel.order[:core]] = True
    covered = decided.copy()
    for rows, sides in zip(rows_seen, sides_seen):
        assert not covered[rows].any()  # each node is read in one batch only
        assert np.all(sides[~decided] == 0.0)  # nothing undecided (this batch, later) is read
        assert np.all(np.abs(sides[decided]) == 1.0)
        decided[rows] = True
        covered[rows] = True
    assert covered.all()


# ------------------------------------------- the scale drawn against the epsilon recorded

def test_local_csp_label_choices_draw_gumbel_at_the_recorded_epsilon(monkeypatch):
    """docs/privacy.md 14.6 (the exponential mechanism on monotone scores of sensitivity 1,
    charged once by parallel composition): every Gumbel draw of the label choices has scale
    ``sensitivity / epsilon`` of the ledger's "label choices" entry. Guards the mutant that
    draws at ``0.5 / eps_m`` (an exponential mechanism at 2 eps_m, recorded as eps_m)."""
    from dpgraph.engine.twocsp import CSPInstance
    from dpgraph.release.routes import local as L

    rng = np.random.default_rng(5)
    cons = []
    for _ in range(25):
        i, j = (int(v) for v in rng.choice(12, 2, replace=False))
        cons.append((i, j, {(a, b) for a in range(3) for b in range(3) if rng.random() < 0.5}
                     or {(0, 1)}, float(rng.uniform(0.2, 1.0))))
    inst = CSPInstance(12, 3, cons)
    scales = []
    real = L.gumbel_noise

    def spy(shape, *, scale, ledger, rng=None):
        scales.append(float(scale))
        return real(shape, scale=scale, ledger=ledger, rng=rng)
    monkeypatch.setattr(L, "gumbel_noise", spy)
    led = PrivacyLedger(epsilon=1.5, delta=0)
    L.release_local_labels(inst.label_adjacency(), np.asarray(inst.variable_weights(), float),
                           3, epsilon=1.5, ledger=led, rng=np.random.default_rng(0),
                           plan=L.LocalPlan(first_batch=2, batch_growth=0.3))
    (entry,) = [e for e in led.entries if e.name == "local route: label choices"]
    assert entry.sensitivity == 1.0
    assert len(scales) > 2
    assert scales == pytest.approx([entry.sensitivity / entry.epsilon] * len(scales), rel=1e-12)
    assert led.spent[0] == pytest.approx(1.5, rel=1e-12)


# ------------------------------------------- 4.11: the choice among candidate partitions

def _spy_choice(monkeypatch, module) -> list:
    """``(scores, sensitivity)`` of every call of ``module.monotone_exponential_mechanism``,
    recorded as the calls go on to it."""
    calls, real = [], module.monotone_exponential_mechanism

    def spy(scores, **kw):
        calls.append((np.array(scores, dtype=float), float(kw["sensitivity"])))
        return real(scores, **kw)
    monkeypatch.setattr(module, "monotone_exponential_mechanism", spy)
    return calls


def test_candidate_choice_sensitivity_covers_adjacent_graphs(monkeypatch):
    """docs/privacy.md 4.11 (the monotone exponential mechanism; sensitivity 1): over graphs
    that differ in one pair by at most 1, the cuts of fixed candidate partitions move in one
    direction by at most 1, and by exactly 1 for a cut edge of weight 1, so the sensitivity
    ``choose_candidate`` hands the mechanism must be at least 1. Guards the mutant
    ``sensitivity=0.5`` (a choice at twice the recorded epsilon)."""
    from dpgraph.solve import candidates as K

    calls = _spy_choice(monkeypatch, K)
    rng = np.random.default_rng(11)
    n = 7
    A = np.triu((rng.random((n, n)) < 0.5) * np.where(rng.random((n, n)) < 0.5, 1.0,
                                                       rng.uniform(0.1, 1.0, (n, n))), 1)
    A = A + A.T
    pool = np.where(rng.random((n, 5)) < 0.5, 1.0, -1.0)

    def choose(W):
        K.choose_candidate(K.true_cuts(from_matrix(sp.csr_array(W))), pool, epsilon=1.0,
                           ledger=PrivacyLedger(), rng=np.random.default_rng(0), note="")
        return calls[-1]
    base, sens = choose(A)
    worst = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            for new in {0.0, 1.0, 0.5} - {A[i, j]}:
                B = A.copy()
                B[i, j] = B[j, i] = new
                scores, s = choose(B)
                d = scores - base
                assert np.all(d >= -1e-12) or np.all(d <= 1e-12)  # monotone
                worst = max(worst, float(np.abs(d).max()))
                assert s == sens
    assert worst == pytest.approx(1.0, abs=1e-9)
    assert sens >= worst - 1e-12


# ------------------------------------------- 6.4: the choice among candidate assignments

def test_csp_choice_sensitivity_covers_adjacent_instances(monkeypatch):
    """docs/privacy.md 6.4 (monotone exponential mechanism, sensitivity 1): one constraint of
    weight ``w <= 1`` added or removed moves the value of every fixed candidate assignment by 0
    or ``w``, all in one direction, and by exactly 1 for a satisfied constraint of weight 1;
    the sensitivity ``max_2csp`` hands the mechanism must cover it. Guards the mutant
    ``sensitivity=0.5`` in ``_choose_and_estimate``."""
    from dpgraph.engine.twocsp import CSPInstance
    from dpgraph.solve import csp as C

    calls = _spy_choice(monkeypatch, C)
    rng = np.random.default_rng(4)
    n, q = 6, 3
    pool = rng.integers(0, q, (5, n))

    def constraint(weight):
        i, j = (int(v) for v in rng.choice(n, 2, replace=False))
        R = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.5} or {(0, 0)}
        return (i, j, R, float(weight))

    def choose(cons):
        C._choose_and_estimate(CSPInstance(n, q, cons), pool, ["x"], 1.0, 0.0, 100.0,
                               PrivacyLedger(), np.random.default_rng(0))
        return calls[-1]
    cons = [constraint(rng.uniform(0.2, 1.0)) for _ in range(8)]
    base, sens = choose(cons)
    worst = 0.0
    near = [cons[:k] + cons[k + 1:] for k in range(len(cons))]
    near += [cons + [constraint(1.0 if t % 2 else rng.uniform(0.1, 1.0))] for t in range(12)]
    near.append(cons + [(0, 1, {(int(pool[0, 0]), int(pool[0, 1]))}, 1.0)])  # pool[0] meets it
    for other in near:
        scores, s = choose(other)
        d = scores - base
        assert np.all(d >= -1e-12) or np.all(d <= 1e-12)
        worst = max(worst, float(np.abs(d).max()))
        assert s == sens
    assert worst == pytest.approx(1.0, abs=1e-9)
    assert sens >= worst - 1e-12


# ------------------------------------------- 7.4, 7.14, 7.15: draws against their charges

class _DrawSpy:
    """Stands in for ``laplace_add`` / ``LaplaceDraws`` in one module: records the
    (sensitivity, epsilon) of every draw and hands the call on."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __call__(self, *args, **kw):
        self.calls.append((float(kw["sensitivity"]), float(kw["epsilon"])))
        return self.real(*args, **kw)


def _charged(ledger, prefix):
    return [(e.sensitivity, e.epsilon) for e in ledger.entries if e.name.startswith(prefix)]


def test_sequential_refinement_draws_at_its_charged_sensitivity(monkeypatch):
    """docs/privacy.md 7.4 (node-to-block counts, L1 sensitivity 2, one charge per round): every
    batch of ``refine_partition(batches > 1)`` draws at the sensitivity and epsilon of its
    round's ledger entry. Guards the mutant that draws at sensitivity 1 while the entry says 2
    (only a utility test noticed it)."""
    from dpgraph.synthetic import communities as CM

    spy = _DrawSpy(CM.laplace_add)
    monkeypatch.setattr(CM, "laplace_add", spy)
    data = _random_graph(7, 40, 0.15)
    led = PrivacyLedger(epsilon=2.0, delta=0)
    CM.refine_partition(data, np.arange(40) % 3, epsilon=2.0, ledger=led,
                        rng=np.random.default_rng(0), rounds=2, batches=4)
    charged = _charged(led, "synthetic: node-to-block counts")
    assert len(charged) == 2 and all(s == 2.0 for s, _ in charged)
    assert len(spy.calls) == 8
    assert spy.calls == [charged[0]] * 4 + [charged[1]] * 4


def test_label_passes_draw_at_their_charged_epsilon(monkeypatch):
    """docs/privacy.md 7.14 (two read-once label passes, each charged ``epsilon / 2`` at L1
    sensitivity 1): each pass's drawn-ahead noise has the sensitivity and epsilon of its
    ledger entry, and the entries sum to the budget. Guards the mutant whose forward pass
    draws at ``epsilon`` while recording ``epsilon / 2``."""
    from dpgraph.synthetic import communities as CM

    spy = _DrawSpy(CM.LaplaceDraws)
    monkeypatch.setattr(CM, "LaplaceDraws", spy)
    data = _random_graph(8, 50, 0.15)
    led = PrivacyLedger(epsilon=1.0, delta=0)
    CM.label_passes(data, epsilon=1.0, ledger=led, rng=np.random.default_rng(0), labels=3)
    charged = _charged(led, "synthetic: label pass")
    assert len(charged) == 2 and sum(e for _, e in charged) == pytest.approx(1.0, rel=1e-12)
    assert spy.calls == charged


def test_side_pass_draws_at_its_charged_epsilon(monkeypatch):
    """docs/privacy.md 7.15 (one forward pass in released-degree order, L1 sensitivity 1,
    charged once): the pass's drawn-ahead noise has the sensitivity and epsilon of its entry.
    Guards a side pass drawing at ``2 epsilon`` while recording ``epsilon``."""
    from dpgraph.synthetic import sides as SD

    spy = _DrawSpy(SD.LaplaceDraws)
    monkeypatch.setattr(SD, "LaplaceDraws", spy)
    data = _random_graph(9, 30, 0.2)
    led = PrivacyLedger(epsilon=0.7, delta=0)
    SD.side_pass(data, data.degrees, epsilon=0.7, ledger=led, rng=np.random.default_rng(0))
    assert spy.calls == _charged(led, "synthetic: cut sides") == [(1.0, 0.7)]


# ------------------------------------------- 7.1, 7.9: block counts on adjacent graphs

class _Stop(Exception):
    pass


def _prenoise(monkeypatch, module, release):
    """(value, sensitivity) handed to ``module.laplace_mechanism`` by ``release()``, which is
    stopped there."""
    seen = []

    def spy(value, *args, **kw):
        seen.append((np.array(value, dtype=float, copy=True), float(kw["sensitivity"])))
        raise _Stop
    monkeypatch.setattr(module, "laplace_mechanism", spy)
    with pytest.raises(_Stop):
        release()
    monkeypatch.undo()
    return seen[0]


def _unit_neighbours(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            for new in {0.0, 1.0, 0.4} - {A[i, j]}:
                B = A.copy()
                B[i, j] = B[j, i] = new
                yield B


def _assert_l1_sensitivity_one(monkeypatch, module, release, A) -> None:
    """Over the graphs that differ from ``A`` in one pair by at most 1, the value
    ``release(W)`` hands ``module.laplace_mechanism`` moves by at most 1 in L1 (exactly 1
    somewhere), and the sensitivity it passes, the same on every graph, covers that."""
    base, sens = _prenoise(monkeypatch, module, release(A))
    worst = 0.0
    for B in _unit_neighbours(A):
        value, s = _prenoise(monkeypatch, module, release(B))
        assert s == sens
        worst = max(worst, float(np.abs(value - base).sum()))
    assert worst == pytest.approx(1.0, abs=1e-9)
    assert sens >= worst - 1e-12


def test_super_graph_counts_sensitivity_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 7.1 (block edge counts, L1 sensitivity 1) as used by the super-graph of
    ``release_synthetic(init_labels=0)`` (7.6): over graphs that differ in one pair by at most
    1, the released super-node pair counts (diagonal included) move by at most 1 in L1, exactly
    1 for a weight-1 edge, and the sensitivity passed covers it. Guards the mutant
    ``sensitivity=0.5`` in ``supergraph_communities``."""
    from dpgraph.synthetic import communities as CM

    rng = np.random.default_rng(2)
    n = 12
    A = np.triu((rng.random((n, n)) < 0.3).astype(float), 1)
    A = A + A.T

    def release(W):
        return lambda: CM.supergraph_communities(from_matrix(sp.csr_array(W)), epsilon=1.0,
                                                 ledger=PrivacyLedger(), rng=3, group_size=3)
    _assert_l1_sensitivity_one(monkeypatch, CM, release, A)


def test_degree_class_counts_sensitivity_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 7.9 (degree-class pair counts, L1 sensitivity 1; the classes are a
    function of released degrees, fixed here): one pair changed by at most 1 moves the counts
    by at most 1 in L1, exactly 1 for a weight-1 edge. Guards the mutant ``sensitivity=0.5``
    in ``release_degree_mixing``."""
    from dpgraph.synthetic import degree_classes as DC

    rng = np.random.default_rng(6)
    n = 12
    A = np.triu((rng.random((n, n)) < 0.3).astype(float), 1)
    A = A + A.T
    bins = np.arange(n) % 3

    def release(W):
        return lambda: DC.release_degree_mixing(from_matrix(sp.csr_array(W)), bins, epsilon=1.0,
                                                ledger=PrivacyLedger(), rng=0)
    _assert_l1_sensitivity_one(monkeypatch, DC, release, A)


# ------------------------------------------- 3.7: the gap test's one-sided Laplace margin

@pytest.mark.parametrize("seed", [0, 1])
def test_gap_test_lower_end_keeps_the_laplace_tail_margin(seed):
    """docs/privacy.md 3.7 (propose-test-release; the failure probability ``delta_g`` is
    charged): the gap's lower end is ``L = g^ - b ln(1 / (2 delta_g))`` with ``b`` the drawn
    Laplace's (tail) scale, at least ``sensitivity / epsilon`` of the gap's ledger entry, and
    ``delta_g`` the delta of the "gap test failure" entry, so ``P[L > g] <= delta_g``. Guards
    the mutant ``L = g^`` (no margin: the test passes on a gap below ``eta`` half the time,
    which the charged ``delta_g`` does not cover)."""
    from dpgraph.spectral import EntryAdjacency
    from dpgraph.spectral.pca import private_subspace

    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.standard_normal((30, 2)))[0]
    M = 40.0 * U @ U.T + 0.1 * rng.standard_normal((30, 30))
    M = 0.5 * (M + M.T)
    res = private_subspace(M, 2, epsilon=2.0, delta=1e-6, adjacency=EntryAdjacency(1.0),
                           rng=np.random.default_rng(seed))
    d = res.diagnostics
    (gap,) = [e for e in res.ledger.entries if e.name.startswith("pca: spectral gap")]
    (fail,) = [e for e in res.ledger.entries if e.name == "pca: gap test failure"]
    assert d.gap_noise_scale >= gap.sensitivity / gap.epsilon * (1 - 1e-12)
    margin = d.gap_noise_scale * math.log(1.0 / (2.0 * fail.delta))
    assert margin > 0
    assert d.gap_lower <= d.gap_estimate - margin * (1 - 1e-12)


# ------------------------------------------- 4.1: the PCA route's degrees

def test_pca_route_degree_sensitivity_on_adjacent_graphs(monkeypatch):
    """docs/privacy.md 4.1 (private degrees, L2 sensitivity ``sqrt 2``): over graphs that differ
    in one pair by at most 1, the degree vector the dense PCA route hands its Gaussian mechanism
    moves by at most ``sqrt 2`` in L2, exactly ``sqrt 2`` for a weight-1 edge, and the
    sensitivity passed covers it. Guards the mutant ``sensitivity=1.0`` (a Gaussian release
    at ``sqrt 2`` less noise than its (epsilon, delta) needs)."""
    from dpgraph.release.routes import pca as RP

    seen = []

    def spy(value, **kw):
        seen.append((np.array(value, dtype=float, copy=True), float(kw["sensitivity"])))
        raise _Stop
    monkeypatch.setattr(RP, "gaussian_mechanism", spy)
    rng = np.random.default_rng(12)
    n = 9
    A = np.triu((rng.random((n, n)) < 0.4).astype(float), 1)
    A = A + A.T

    def prenoise(W):
        with pytest.raises(_Stop):
            RP.release(from_matrix(sp.csr_array(W)), epsilon=1.0, delta=1e-6, rank=2,
                       ledger=PrivacyLedger(), rng=np.random.default_rng(0), degree_share=0.05,
                       tail_share=0.05, core_share=0.1)
        return seen[-1]
    base, sens = prenoise(A)
    worst = 0.0
    for B in _unit_neighbours(A):
        value, s = prenoise(B)
        assert s == sens
        worst = max(worst, float(np.linalg.norm(value - base)))
    assert worst == pytest.approx(math.sqrt(2.0), abs=1e-9)
    assert sens >= worst - 1e-12


# ------------------------------------------- 4.3: the tail level

def test_pca_route_tail_level_sensitivity_is_the_entry_bound(monkeypatch):
    """docs/privacy.md 4.2-4.3 (tail level ``sigma_(r+1)(M)``, sensitivity ``w = 1 / min d~``
    by Weyl): the sensitivity the dense PCA route hands the tail's Gaussian mechanism is at
    least ``w`` of the normalizer it used, and covers the tail's change over the graphs that
    differ from the input in one pair (same released normalizer). Guards the mutant
    ``sensitivity=w / 2``."""
    from dpgraph.release.routes import pca as RP

    real_gauss, real_norm = RP.gaussian_mechanism, RP.normalized_adjacency
    seen, d_used = [], []

    def gauss(value, **kw):
        if kw["name"] != "tail singular value":
            return real_gauss(value, **kw)
        seen.append((float(value), float(kw["sensitivity"])))
        raise _Stop

    def normalized(weights, d_tilde):
        d_used.append(np.array(d_tilde, dtype=float, copy=True))
        return real_norm(weights, d_tilde)
    monkeypatch.setattr(RP, "gaussian_mechanism", gauss)
    monkeypatch.setattr(RP, "normalized_adjacency", normalized)
    rng = np.random.default_rng(13)
    n = 10
    A = np.triu((rng.random((n, n)) < 0.5).astype(float), 1)
    A = A + A.T
    with pytest.raises(_Stop), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the PCA may halt at this size: the tail comes after
        RP.release(from_matrix(sp.csr_array(A)), epsilon=4.0, delta=1e-6, rank=2,
                   ledger=PrivacyLedger(), rng=np.random.default_rng(0), degree_share=0.05,
                   tail_share=0.05, core_share=0.1, fallback="none")
    (tail, sens), d = seen[-1], d_used[-1]
    w = 1.0 / float(d.min())
    assert sens >= w * (1 - 1e-12)
    worst = 0.0
    for B in _unit_neighbours(A):
        M = real_norm(sp.csr_array(B), d)
        worst = max(worst, abs(RP.tail_singular_value(M, 2, np.random.default_rng(0)) - tail))
    assert worst <= sens


# ------------------------------------------- 2.2: the cosine release's two paths

@pytest.mark.parametrize("delta_f", [1.0, 2.5])
def test_cosine_practical_path_draws_the_exact_paths_noise(delta_f):
    """docs/privacy.md 2.2 (Gram-Frobenius adjacency ``Delta``): the upper triangle of the Gram
    matrix moves by ``Delta / sqrt 2`` in L2 when ``||dG||_F <= Delta`` (every off-diagonal
    change appears twice), so both paths of ``private_cosine_similarities`` must draw the
    off-diagonal noise of the Gaussian mechanism at that sensitivity: the same sigma, at least
    the analytic Gaussian's for ``Delta / sqrt 2``. Guards the mutant that calibrates the
    practical path to ``Delta / 2``, which only a utility comparison noticed."""
    from dpgraph.mechanisms.cosine import private_cosine_similarities

    V = np.random.default_rng(3).standard_normal((8, 4))
    sig = {m: private_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=delta_f,
                                          method=m, rng=0).sigma
           for m in ("exact", "practical")}
    floor = CAL.analytic_gaussian_sigma(1.0, 1e-6, delta_f / math.sqrt(2.0))
    assert sig["practical"] == pytest.approx(sig["exact"], rel=1e-12)
    assert sig["practical"] >= floor * (1 - 1e-12)


def test_node_order_is_a_function_of_the_node_set():
    """docs/privacy.md 4.14: a graph built from its edge list lists its nodes by first
    appearance, so removing one edge moves a node; every private entry point reads the nodes in
    their sorted label order instead, so the released order is the same on adjacent graphs, and
    the same graph listed in another order gives the same answer for the same seed."""
    import networkx as nx

    import dpgraph
    from dpgraph.engine import max_k_cut_instance

    E = list(nx.karate_club_graph().edges())
    G, H = nx.Graph(E), nx.Graph([e for e in E if e != (0, 1)])  # adjacent, same node set
    assert list(G.nodes) != list(H.nodes)  # first appearance: node 1 moved
    key = list(range(34))

    def released_orders(graph):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cut = dpgraph.max_cut(graph, epsilon=1.0, delta=1e-6, rng=0)
            bis = dpgraph.max_bisection(graph, epsilon=1.0, delta=1e-6, rng=0)
            csp = dpgraph.max_2csp(max_k_cut_instance(graph, 3, weight=None), epsilon=1.0,
                                   delta=1e-6, rng=0)
            pg = dpgraph.privatize(graph, epsilon=1.0, delta=1e-6, rng=0, weight=None)
            rel = dpgraph.release_synthetic(graph, epsilon=1.0, rng=0, weight=None)
        return (list(cut.assignment), list(cut.private_graph.labels), list(bis.assignment),
                list(csp.assignment), list(pg.labels), list(pg.sample(rng=1).labels),
                list(rel.sample(rng=1).labels)), cut.assignment

    orders_g, answer_g = released_orders(G)
    orders_h, _ = released_orders(H)
    assert all(order == key for order in orders_g + orders_h)
    # the same graph, its nodes listed in another order: the same answer for the same seed
    reordered = nx.Graph()
    reordered.add_nodes_from(reversed(list(G.nodes)))
    reordered.add_edges_from(reversed(E))
    _, answer_r = released_orders(reordered)
    assert answer_r == answer_g


def test_bernoulli_rounding_moves_the_callers_generator_the_same_whatever_the_weights():
    """docs/privacy.md 4.12: the number of fractional weights is private, so the rounding draws
    from a child stream and the caller's generator (whose next draws are the flips and the
    solves after them) moves by the same amount on adjacent graphs."""
    from dpgraph.engine import CSPInstance
    from dpgraph.release.routes.randomized_response import bernoulli_round
    from dpgraph.solve.csp import rounded_label_graph

    def next_draw(round_with, weights):
        gen = np.random.default_rng(7)
        round_with(weights, gen)
        return float(gen.random())

    ones, halves = np.ones(50), np.r_[np.ones(25), np.full(25, 0.5)]
    assert next_draw(bernoulli_round, ones) == next_draw(bernoulli_round, halves)
    differ = {(0, 1), (1, 0)}
    inst = lambda w: CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, w)])
    assert next_draw(lambda i, g: rounded_label_graph(i, g), inst(1.0)) == \
        next_draw(lambda i, g: rounded_label_graph(i, g), inst(0.5))


@pytest.mark.parametrize("relabel", [frozenset, float])
def test_partially_ordered_labels_get_the_same_order_on_adjacent_graphs(relabel):
    """docs/privacy.md 4.14 with labels Python orders only partly: frozensets (the nodes of
    ``networkx.quotient_graph``) and a NaN among floats kept part of their first-appearance
    order under ``sorted``; ``label_key`` orders any labels totally."""
    import networkx as nx

    import dpgraph

    nan = float("nan")  # one object, so that the graph has one NaN node
    label = (lambda v: frozenset({v})) if relabel is frozenset else \
        (lambda v: nan if v == 5 else float(v))
    E = [(label(u), label(v)) for u, v in nx.karate_club_graph().edges()]
    G, H = nx.Graph(E), nx.Graph(E[1:])  # E[0] is {0, 1}: node 1 moves in H's node list
    orders = []
    for graph in (G, H):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dpgraph.max_cut(graph, epsilon=1.0, delta=1e-6, rng=0, weight=None)
        orders.append([repr(k) for k in res.assignment])
    assert orders[0] == orders[1]
