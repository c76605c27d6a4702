"""Coverage and power of the audit catalogue (docs/audit.md 2, 3).

Every function of dpgraph that draws privacy noise must be listed in
``dpgraph.lab.audit.catalog.COVERAGE`` with the audits whose events read its release (or in
``UNAUDITED`` with the reason), and every audit of a release must be able to fail: run on the
release with its noise at half the calibrated scale (twice the claimed epsilon spent), its bound
exceeds the claim at the run count of the test, while on the real release it stays at or below
the claim and reaches a stated fraction of it. The cheap audits run here; those that call a
whole route, Louvain, the JL lift or a Dykstra projection per run are marked slow.
"""

import ast
import warnings
from pathlib import Path

import pytest

import dpgraph.privacy.noise as noise
from dpgraph.lab.audit import catalog

PACKAGE = Path(catalog.__file__).resolve().parents[2]

#: the noise primitives of dpgraph.privacy.noise, and the randomized-response route's matrix
#: release (the one wrapper outside dpgraph.privacy that others call to draw)
PRIMITIVES = {"gaussian_mechanism", "gaussian_noise", "symmetric_gaussian_noise",
              "SymmetricGaussianNoise", "GaussianMatrixNoise", "ball_knorm_mechanism",
              "ball_knorm_noise", "laplace_mechanism", "laplace_add", "LaplaceDraws",
              "gumbel_noise", "randomized_response", "monotone_exponential_mechanism",
              "discrete_gaussian_noise", "sample_discrete_laplace", "sample_discrete_gaussian",
              "randomized_response_matrix"}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded generators: reproducible-noise warnings
        yield


def _draw_sites() -> set:
    """``module.function`` (``module.Class.method``) of every call of a primitive in dpgraph,
    ``dpgraph.privacy`` (where they live) and ``dpgraph.lab`` (not private) aside."""
    sites = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if rel.parts[1] in ("privacy", "lab"):
            continue
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)

        def walk(node, scope):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    walk(child, scope + [child.name])
                    continue
                if isinstance(child, ast.Call):
                    f = child.func
                    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                    if name in PRIMITIVES:
                        sites.add(".".join([module] + scope))
                walk(child, scope)

        walk(ast.parse(path.read_text(encoding="utf-8")), [])
    return sites


def test_every_noise_draw_site_is_in_the_coverage_table():
    sites = _draw_sites()
    assert "dpgraph.solve.candidates.release_estimate" in sites  # the scan finds the sites
    missing = sorted(sites - set(catalog.COVERAGE))
    stale = sorted(set(catalog.COVERAGE) - sites)
    assert not missing, f"draw sites with no entry in catalog.COVERAGE: {missing}"
    assert not stale, f"catalog.COVERAGE names functions that draw nothing: {stale}"


def test_every_covering_audit_exists_and_every_gap_has_its_reason():
    for site, audits in catalog.COVERAGE.items():
        for name in audits:
            assert name in catalog.__all__ and callable(getattr(catalog, name)), (site, name)
        assert bool(audits) != (site in catalog.UNAUDITED), site
    assert set(catalog.UNAUDITED) <= set(catalog.COVERAGE)
    assert set(catalog.TIGHT) <= set(catalog.__all__)


def _fault(module_name, function, keyword="sensitivity", factor=0.5):
    """A fault: ``module_name.function`` called with its ``keyword`` argument times
    ``factor`` (a sensitivity or a noise scale halved, an epsilon doubled)."""
    def inject(monkeypatch):
        import importlib

        module = importlib.import_module(module_name)
        original = getattr(module, function)
        monkeypatch.setattr(module, function,
                            lambda *a, **kw: original(*a, **{**kw, keyword: factor * kw[keyword]}))
    return inject


def _half_sigma(monkeypatch):
    """Every Gaussian draw of the noise primitives at half its calibrated sigma (as in
    tests/test_audit_power.py): the claim (epsilon, delta) is unchanged."""
    original = noise.analytic_gaussian_sigma
    monkeypatch.setattr(noise, "analytic_gaussian_sigma", lambda *a, **k: 0.5 * original(*a, **k))


def _flips_at_twice_epsilon(monkeypatch):
    """Randomized response flips each bit with the probability of twice its epsilon; the
    charge (and the de-biasing) stay at its epsilon."""
    original = noise.flip_probability
    monkeypatch.setattr(noise, "flip_probability", lambda epsilon: original(2.0 * epsilon))


def _half_core_noise(monkeypatch):
    """The matrix-free route's core drawn and reported at half its sigma (its sensitivity
    halved): twice the core's share spent, the route's claim unchanged."""
    from dpgraph.release.routes import matrix_free as mf

    original = mf.core_sensitivity
    monkeypatch.setattr(mf, "core_sensitivity", lambda *a, **k: 0.5 * original(*a, **k))


LOCAL, CANDIDATES = "dpgraph.release.routes.local", "dpgraph.solve.candidates"
SYNTHETIC = "dpgraph.synthetic"
# case -> (audit, its keyword arguments, the results' keys where it returns several (each
# checked), the fraction of the claim the real release must reach, the fault that spends twice
# the claim)
FAST = {
    "cut_estimate": ("cut_estimate", dict(runs=600), None, 0.55,
                     _fault(CANDIDATES, "laplace_mechanism")),
    "candidate_choice": ("candidate_choice", dict(runs=800), None, 0.6,
                         _fault(CANDIDATES, "monotone_exponential_mechanism")),
    "certificate": ("certificate", dict(runs=600), None, 0.5,
                    _fault("dpgraph.solve.certify", "laplace_mechanism")),
    "local_degrees": ("local_degrees", dict(runs=1_500), None, 0.45,
                      _fault(LOCAL, "laplace_mechanism")),
    "pca_gap": ("pca_gap", dict(runs=600), None, 0.55,
                _fault("dpgraph.spectral.pca", "laplace_mechanism")),
    "second_moment": ("second_moment", dict(runs=1_000), None, 0.35, _half_sigma),
    "perturb_and_project": ("perturb_and_project", dict(runs=1_000), None, 0.3, _half_sigma),
    "synthetic_edge_count": ("synthetic_edge_count", dict(runs=800), None, 0.6,
                             _fault(f"{SYNTHETIC}.block_model", "laplace_mechanism")),
    "synthetic_refinement": ("synthetic_refinement", dict(runs=600), None, 0.45,
                             _fault(f"{SYNTHETIC}.communities", "laplace_mechanism")),
    "synthetic_degree_classes": ("synthetic_degree_classes", dict(runs=500), None, 0.6,
                                 _fault(f"{SYNTHETIC}.degree_classes", "laplace_mechanism")),
    "pca_fallback": ("pca_fallback", dict(runs=1_000), None, 0.7, _flips_at_twice_epsilon),
}

SLOW = {
    "local_sweep": ("local_sweep", dict(runs=1_000), None, 0.5, _fault(LOCAL, "laplace_add")),
    "local_core": ("local_core", dict(runs=300), None, 0.5, _flips_at_twice_epsilon),
    "local_labels": ("local_labels", dict(runs=1_500), "labels", 0.35,
                     _fault(LOCAL, "gumbel_noise", "scale")),
    "local_constraint_degrees": ("local_labels", dict(runs=1_500), "constraint degrees", 0.5,
                                 _fault(LOCAL, "laplace_mechanism")),
    "csp_estimates": ("csp_estimates", dict(runs=1_000), None, 0.6,
                      _fault("dpgraph.solve.csp", "laplace_mechanism")),
    "privatize_block_model": ("privatize_block_model", dict(runs=2_000), ("inside", "across"),
                              0.45, _fault("dpgraph.synthetic.block_model", "laplace_mechanism")),
    "synthetic_supergraph": ("synthetic_supergraph", dict(runs=1_000), None, 0.6,
                             _fault("dpgraph.synthetic.communities", "laplace_mechanism")),
    "jl": ("jl", dict(runs=2_000), None, 0.4, _half_sigma),
    "onehot": ("onehot", dict(runs=1_000), None, 0.4, _half_sigma),
    "matrix_free_core": ("matrix_free_core", dict(runs=1_000), None, 0.35, _half_core_noise),
}


def _check_power(monkeypatch, case):
    audit, kwargs, keys, fraction, fault = case

    def run():
        out = getattr(catalog, audit)(**kwargs)
        if keys is None:
            return [out]
        return [out[k] for k in ((keys,) if isinstance(keys, str) else keys)]

    for res in run():
        assert not res.violated and res.fraction >= fraction, res
    fault(monkeypatch)
    for flagged in run():
        assert flagged.violated, flagged


@pytest.mark.parametrize("case", list(FAST))
def test_audit_reaches_its_claim_and_catches_twice_the_epsilon(monkeypatch, case):
    _check_power(monkeypatch, FAST[case])


def test_matrix_free_core_loss_has_the_moments_of_the_analysis():
    """The core's privacy loss, rebuilt from the release and the transcript, is N(-V/2, V)
    without the edge and N(V/2, V) with it (V the mean over the runs, at least 0.88 of its
    value at the core's full sensitivity): a check of the rebuilt core, of the reported sigma
    and of the pair."""
    import math

    res = catalog.matrix_free_core(runs=150, calibration_runs=0)
    det = res.details
    v, full = det["mean_V"], det["V_at_sensitivity"]
    assert 0.88 * full <= v <= full * (1 + 1e-9), det
    se_mean, se_var = math.sqrt(v / 150), v * math.sqrt(2 / 150)
    for key, sign in (("x0 (mean, var)", -1), ("x1 (mean, var)", 1)):
        mean, var = det["loss_moments"][key]
        assert abs(mean - sign * v / 2) < 4 * se_mean, det
        assert abs(var - v) < 4 * se_var, det
    assert not res.violated, res


@pytest.mark.slow  # 10-40 s each on 2 cores: each run calls a route, max_2csp, Louvain, the
# JL lift or a Dykstra projection
@pytest.mark.parametrize("case", list(SLOW))
def test_slow_audit_reaches_its_claim_and_catches_twice_the_epsilon(monkeypatch, case):
    _check_power(monkeypatch, SLOW[case])
