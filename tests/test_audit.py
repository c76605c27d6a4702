"""Empirical privacy audits (docs/audit.md).

The harness is checked against closed forms and against deliberately broken mechanisms (the
audit must be able to fail); every audit of a dpgraph mechanism runs here in a fast version
(fixed seeds, a few hundred to a few thousand runs) asserting that the bound never exceeds the
claim and, for tight events, that it reaches a stated fraction of it (an audit with no power
fails). The full runs of benchmarks/bench_audit.py are marked slow.
"""

import math
import warnings

import numpy as np
import pytest

from dpgraph.lab.audit import audit_event, audit_threshold, clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpgraph.lab.audit import catalog


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded generators: reproducible-noise warnings
        yield


@pytest.mark.parametrize("n", [1, 10, 1000])
@pytest.mark.parametrize("level", [0.9, 0.9875])
def test_clopper_pearson_closed_forms(n, level):
    # k = 0: P[X = 0] = (1 - p)^n = 1 - level at the upper bound; k = n symmetric
    assert math.isclose(clopper_pearson_upper(0, n, level), 1 - (1 - level) ** (1 / n),
                        rel_tol=1e-9)
    assert math.isclose(clopper_pearson_lower(n, n, level), (1 - level) ** (1 / n), rel_tol=1e-9)
    assert clopper_pearson_lower(0, n, level) == 0.0 and clopper_pearson_upper(n, n, level) == 1.0


def test_clopper_pearson_is_the_binomial_tail():
    from scipy import stats

    k, n, level = 37, 200, 0.95
    hi = clopper_pearson_upper(k, n, level)
    lo = clopper_pearson_lower(k, n, level)
    assert math.isclose(stats.binom.cdf(k, n, hi), 1 - level, rel_tol=1e-7)
    assert math.isclose(stats.binom.sf(k - 1, n, lo), 1 - level, rel_tol=1e-7)


def test_bound_from_exact_frequencies_approaches_the_ratio_from_below():
    p0, p1 = 0.2, 0.5  # ln(p1 / p0) = 0.916
    prev = 0.0
    for n in (10**3, 10**5, 10**7):
        eps = epsilon_lower_bound(int(p0 * n), n, int(p1 * n), n)["epsilon"]
        assert prev <= eps < math.log(p1 / p0)
        prev = eps
    assert prev > 0.99 * math.log(p1 / p0)


def test_bound_uses_delta_and_every_orientation():
    out = epsilon_lower_bound(100, 1000, 900, 1000, delta=0.0)
    with_delta = epsilon_lower_bound(100, 1000, 900, 1000, delta=0.5)
    assert with_delta["epsilon"] < out["epsilon"]
    swapped = epsilon_lower_bound(900, 1000, 100, 1000)  # the pair in the other order
    assert math.isclose(swapped["epsilon"], out["epsilon"])
    assert epsilon_lower_bound(500, 1000, 500, 1000)["epsilon"] == 0.0


def _rr(eps_used):
    def mech(bit, rng, size):
        flip = rng.random(size) < 1 / (1 + math.exp(eps_used))
        return np.where(flip, 1 - bit, bit)
    return mech


def test_audit_detects_a_mechanism_spending_more_than_it_claims():
    """A budget share counted twice: randomized response at epsilon 2 claiming epsilon 1."""
    res = audit_event(_rr(2.0), (0, 1), lambda o: o == 1, epsilon=1.0, runs=20_000,
                      vectorized=True, rng=0)
    assert res.violated and res.epsilon_lower_bound > 1.5
    assert "VIOLATION" in repr(res)


def test_audit_detects_laplace_noise_at_the_wrong_sensitivity():
    def laplace_half_scale(x, rng, size):  # calibrated to sensitivity 1/2 instead of 1
        return x + rng.laplace(0.0, 0.5, size)

    res = audit_threshold(laplace_half_scale, (0.0, 1.0), epsilon=1.0, runs=50_000,
                          vectorized=True, rng=0)
    assert res.violated


def test_audit_threshold_calibrates_on_separate_runs():
    res = audit_threshold(_rr(1.0), (0, 1), epsilon=1.0, runs=20_000, calibration_runs=2_000,
                          vectorized=True, rng=0)
    assert res.details["calibration_runs"] == 2_000 and res.runs == 20_000
    assert not res.violated and res.fraction > 0.85


def test_non_vectorised_mechanism_and_result_row():
    res = audit_event(lambda bit, rng: int(rng.random() < 0.5), (0, 1), lambda o: o == 1,
                      epsilon=1.0, runs=300, rng=0, mechanism_name="coin")
    row = res.row()
    assert row["mechanism"] == "coin" and row["runs"] == 300 and row["lower_bound"] == 0.0


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 0}, "epsilon"), ({"epsilon": math.nan}, "epsilon"), ({"runs": 0}, "runs"),
    ({"runs": 2.5}, "runs"), ({"confidence": 1.0}, "confidence"),
])
def test_audit_argument_checks(kwargs, match):
    args = dict(epsilon=1.0, runs=10, vectorized=True, rng=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        audit_event(_rr(1.0), (0, 1), lambda o: o == 1, **args)


# --- fast audits of dpgraph's mechanisms: (function, kwargs, fraction a tight audit must reach)
FAST = {
    "randomized_response": (dict(runs=100_000), 0.9),
    "laplace": (dict(runs=100_000), 0.9),
    "gaussian": (dict(runs=2_000_000), 0.7),
    "exponential": (dict(runs=4_000), 0.75),
    "edge_count": (dict(runs=4_000), 0.75),
    "cosine": (dict(runs=600), 0.3),
    "marginals": (dict(runs=600), 0.3),
    "jl": (dict(runs=20, calibration_runs=20), None),
    "synthetic_refinement": (dict(runs=3_000), 0.7),
    "synthetic_sequential_refinement": (dict(runs=2_000), 0.6),
    "synthetic_label_passes": (dict(runs=2_000), 0.6),
    "synthetic_side_pass": (dict(runs=3_000), 0.7),
    "synthetic_cut_lead": (dict(runs=4_000), 0.75),
    "synthetic_degree_classes": (dict(runs=3_000), 0.7),
    "synthetic_edge_count": (dict(runs=3_000), 0.7),
    "synthetic_clustering": (dict(runs=3_000), 0.7),
    "local_route": (dict(runs=4_000), 0.6),
    "local_route_backward": (dict(runs=3_000), 0.7),
}


@pytest.mark.parametrize("name", list(FAST))
def test_fast_audit(name):
    kwargs, fraction = FAST[name]
    res = getattr(catalog, name)(**kwargs)
    assert res.epsilon_lower_bound <= res.claimed_epsilon, res
    if fraction is not None:
        assert res.fraction >= fraction, res


@pytest.mark.slow  # 10-17 s on 2 cores; the other fast audits stay in the default run
def test_fast_audit_synthetic_block_model_both_pairs():
    """docs/privacy.md 7.7: an inside pair and an across pair each attain the weighted
    sensitivity, and a pair of the one-block release its sensitivity 2, so the three tight
    events approach the claim and none exceeds it."""
    out = catalog.synthetic_block_model(runs=3_000)
    for res in out.values():
        assert not res.violated and res.fraction >= 0.55, res


@pytest.mark.slow  # 10-17 s on 2 cores; the other fast audits stay in the default run
def test_synthetic_audit_catches_a_halved_noise_scale(monkeypatch):
    """The audit can fail: with the block model's noise scales halved (twice the claimed
    epsilon spent), the inside-pair event's bound exceeds the claim."""
    import dpgraph.synthetic.block_model as sy

    original = sy.split_block_scales
    monkeypatch.setattr(sy, "split_block_scales", lambda *a, **k: original(*a, **k) / 2)
    out = catalog.synthetic_block_model(runs=3_000)
    assert out["inside"].violated, out["inside"]


@pytest.mark.slow  # 10-17 s on 2 cores
def test_one_block_audit_catches_a_halved_noise_scale(monkeypatch):
    """The one-block event can fail: with the degrees released at sensitivity 1 instead of 2
    (half the noise), its bound exceeds the claim."""
    import dpgraph.synthetic.block_model as sy

    original = sy.laplace_mechanism
    monkeypatch.setattr(sy, "laplace_mechanism",
                        lambda v, sensitivity, **k: original(v, sensitivity=sensitivity / 2, **k))
    out = catalog.synthetic_block_model(runs=3_000)
    assert out["one_block"].violated, out["one_block"]


@pytest.mark.slow  # 10-20 s each on 2 cores
@pytest.mark.parametrize("name", ["synthetic_sequential_refinement", "synthetic_label_passes",
                                  "synthetic_side_pass"])
def test_community_audits_catch_less_noise(monkeypatch, name):
    """The communities' and sides' audits can fail: with each batch's counts or fields
    released at twice the round's or pass's epsilon (half the noise), the event's bound
    exceeds the claim."""
    import dpgraph.synthetic.communities as co
    import dpgraph.synthetic.sides as si

    module = si if name == "synthetic_side_pass" else co
    if hasattr(module, "laplace_add"):  # the refinement rounds' per-batch draws
        add = module.laplace_add
        monkeypatch.setattr(module, "laplace_add",
                            lambda x, *, epsilon, **kw: add(x, epsilon=2 * epsilon, **kw))
    ahead = module.LaplaceDraws  # the passes' draws made ahead (privacy.md 13.1)
    monkeypatch.setattr(module, "LaplaceDraws",
                        lambda shape, *, epsilon, **kw: ahead(shape, epsilon=2 * epsilon, **kw))
    res = getattr(catalog, name)(runs=3_000)
    assert res.violated, res


@pytest.mark.slow  # about 10 s on 2 cores
def test_clustering_audit_catches_a_halved_sensitivity(monkeypatch):
    """The clustering event can fail: with the projection's counts released at half the
    sensitivity of docs/privacy.md 7.11 (half the noise), its bound exceeds the claim."""
    import dpgraph.synthetic.clustering as cl

    original = cl.clustering_sensitivity
    monkeypatch.setattr(cl, "clustering_sensitivity", lambda theta: original(theta) / 2)
    res = catalog.synthetic_clustering(runs=3_000)
    assert res.violated, res


@pytest.mark.slow  # about 5 s on 2 cores
def test_backward_pass_audit_catches_a_halved_sensitivity(monkeypatch):
    """The backward-pass event can fail: with its fields released at half the sensitivity of
    docs/privacy.md 14.9 (half the noise), its bound exceeds the claim."""
    import dpgraph.release.routes.local as lo

    original = lo.laplace_add
    monkeypatch.setattr(lo, "laplace_add",
                        lambda x, *, sensitivity, **kw: original(x, sensitivity=sensitivity / 2,
                                                                 **kw))
    res = catalog.local_route_backward(runs=3_000)
    assert res.violated, res


def test_fast_audit_max_cut_has_power():
    res = catalog.max_cut(runs=100)
    assert 0 < res.epsilon_lower_bound <= res.claimed_epsilon, res


def test_fast_audit_randomized_response_route():
    out = catalog.rr_route(runs=800, calibration_runs=200)
    assert out["released"].fraction >= 0.8, out["released"]
    for res in out.values():
        assert not res.violated, res


@pytest.mark.slow  # 10-17 s on 2 cores; the other fast audits stay in the default run
def test_fast_audit_matrix_free_route():
    """The transcript's log-likelihood ratio has the moments the analysis predicts (N(-V/2, V)
    without the edge, N(V/2, V) with it), the pair attains the step sensitivity (mean V at
    least 97% of its value at full sensitivity), and no bound exceeds the claim."""
    out = catalog.matrix_free(runs=300)
    for res in out.values():
        assert not res.violated, res
    det = out["privacy loss"].details
    v = det["V_at_sensitivity"]
    assert 0.97 * v <= det["mean_V"] <= v * (1 + 1e-9)
    se_mean, se_var = math.sqrt(v / 300), v * math.sqrt(2 / 300)
    for key, sign in (("x0 (mean, var)", -1), ("x1 (mean, var)", 1)):
        mean, var = det["loss_moments"][key]
        assert abs(mean - sign * det["mean_V"] / 2) < 4 * se_mean, det
        assert abs(var - det["mean_V"]) < 4 * se_var, det
    assert out["privacy loss"].epsilon_lower_bound > 0  # the event has power


def test_cut_lead_audit_catches_half_the_noise(monkeypatch):
    """The cut lead's audit can fail: released at sensitivity 1/2 (twice the claimed epsilon
    spent), its bound exceeds the claim."""
    import dpgraph.synthetic.sides as si

    original = si.laplace_mechanism
    monkeypatch.setattr(si, "laplace_mechanism",
                        lambda v, sensitivity, **k: original(v, sensitivity=sensitivity / 2, **k))
    res = catalog.synthetic_cut_lead(runs=4_000)
    assert res.violated, res


def test_fast_audit_pca_route():
    out = catalog.pca_route(runs=60, calibration_runs=40)
    for res in out.values():
        assert not res.violated, res


@pytest.mark.slow
@pytest.mark.parametrize("name", ["randomized_response", "laplace", "gaussian", "exponential",
                                  "edge_count", "cosine", "marginals", "synthetic_refinement",
                                  "synthetic_sequential_refinement", "synthetic_label_passes",
                                  "synthetic_side_pass", "synthetic_cut_lead",
                                  "synthetic_degree_classes", "synthetic_edge_count",
                                  "synthetic_clustering", "local_route", "local_route_backward"])
def test_full_tight_audit_reaches_80_percent(name):
    res = getattr(catalog, name)()
    assert 0.8 <= res.fraction <= 1.0, res


def test_weighted_pair_audit_stays_at_or_below_the_claim():
    """docs/privacy.md 4.12: the pair on which routes once branched on the weights."""
    for res in catalog.weighted_pair(runs=60).values():
        assert not res.violated and res.epsilon_lower_bound <= res.claimed_epsilon, res
        assert res.counts[0] == res.counts[1]  # the same path on both graphs


@pytest.mark.slow
def test_full_pipeline_audits_never_exceed_the_claim():
    for res in [catalog.max_cut(), catalog.jl(), *catalog.rr_route().values(),
                *catalog.pca_route().values(), *catalog.matrix_free().values()]:
        assert not res.violated, res
