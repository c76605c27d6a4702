"""Guards of the privacy-critical constants of the matrix-free route, ``privatize``'s route
choice, the second-moment release and the one-hot marginals: each test fails on a
security-relevant change (a sensitivity, a clipping level, a noise construction, a ledger entry,
a value read from the private input) that the rest of the default suite did not catch when the
code was mutated, and passes on the code as it is.

Each test checks the code against something computed independently of it: brute force over
neighbouring inputs (docs/privacy.md 4: graphs whose weights differ in one pair by at most 1;
2.4 and 2.6: tables and datasets that differ in one row), coupled runs of a release on
neighbours whose noisy outputs are held equal (then everything returned must be equal: it may
depend on the input only through the noisy releases), the exact Gaussian privacy curve
(Balle-Wang Thm 8 evaluated with scipy.stats), or spies in place of the noise samplers that
record the scale a release draws at. Nothing here is statistical.
"""
import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.stats import norm

from dpgraph.graph import from_matrix
from dpgraph.privacy import PrivacyLedger


class _Stop(Exception):
    pass


def _exact_gaussian_delta(sigma, eps, sens=1.0):
    """Balle-Wang Thm 8 with scipy.stats directly (independent of dpgraph's code)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)


def _exact_mu(eps, delta):
    """The largest ``mu = sensitivity / sigma`` of a Gaussian mechanism that is
    (eps, delta)-DP (Balle-Wang, scipy only)."""
    return brentq(lambda mu: _exact_gaussian_delta(1.0 / mu, eps) - delta, 1e-6, 50.0, xtol=1e-14)


def _graph(n, p, seed):
    rng = np.random.default_rng(seed)
    A = np.triu((rng.random((n, n)) < p).astype(float), 1)
    return A + A.T


def _neighbours(A, weights=(0.0, 1.0)):
    """Every graph that differs from ``A`` in one pair, by at most 1 (docs/privacy.md 4)."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            for new in sorted(set(weights) - {A[i, j]}):
                B = A.copy()
                B[i, j] = B[j, i] = new
                yield (i, j), B


# ============================================================ 5: the matrix-free route

def _mf(monkeypatch, W, *, replay=None, rank=1, **options):
    """``release_matrix_free(noise="discrete")`` on ``W``, recording for every release the value
    it hands the sampler, the sensitivity and the number of changed coordinates it states, and
    what it released. With ``replay`` (the records of another run) every release returns what
    that run released instead of its own draw: the two runs are then coupled on the released
    values, the view of the adaptive composition (docs/privacy.md 5.4). The samplers draw from
    their own generator, so the route's public random start is the same in every run."""
    from dpgraph.release.routes import matrix_free as MF

    real = MF.discrete_gaussian_noise
    seen = []

    def spy(value, *, sensitivity, rho, changed, ledger, rng=None):
        out, p = real(value, sensitivity=sensitivity, rho=rho, changed=changed, ledger=ledger,
                      rng=np.random.default_rng(len(seen)))
        if replay is not None:
            out = replay[len(seen)][3].copy()
        seen.append((np.array(value, dtype=float, copy=True), float(sensitivity), int(changed),
                     np.array(out, dtype=float, copy=True), float(p["rho"])))
        return out, p
    monkeypatch.setattr(MF, "discrete_gaussian_noise", spy)
    led = PrivacyLedger(epsilon=2.0, delta=1e-6)
    try:
        pg = MF.release_matrix_free(from_matrix(sp.csr_array(W)), epsilon=2.0, delta=1e-6,
                                    rank=rank, ledger=led, rng=np.random.default_rng(7),
                                    noise="discrete", **options)
    finally:
        monkeypatch.undo()
    return seen, pg, led


@pytest.mark.parametrize("rank", [1, 2])
def test_matrix_free_releases_cover_every_neighbour(monkeypatch, rank):
    """docs/privacy.md 5.1-5.3 by brute force: run the route on a graph and, coupled on the same
    released values (each later release sees the same earlier outputs, as in the adaptive
    composition of 5.4), on every graph that differs from it in one pair. For each release
    (degrees, every power step, the core) the value handed to the sampler moves by at most the
    stated L2 sensitivity and in at most the stated number of coordinates (the discrete
    sampler's grid, docs 13.2, depends on it), and everything the route returns is the same
    (it may read the input only through its releases). Guards the mutants: a power step
    without its row clipping, clipping before the deflation, clipping at twice ``kappa``; the
    core's basis clipped at 4x ``core_kappa``; the discrete core's diagonal released unweighted;
    ``changed`` 2r -> r (steps) and k(k+1)/2 -> 1 (core); ``u0``, the normalization of ``M`` or
    ``tau`` computed from the private degrees."""
    A = _graph(10, 0.35, 3)
    # kappa 0.4 (the default) and core_kappa 0.5: both clippings bind on this graph
    opts = dict(kappa=0.4, core_kappa=0.5, steps=6)
    base, pg0, _ = _mf(monkeypatch, A, rank=rank, **opts)
    assert len(base) == 1 + 6 + 1  # degrees, six power steps, the core
    worst = np.zeros(len(base))
    for (i, j), B in _neighbours(A):
        seen, pg, _ = _mf(monkeypatch, B, replay=base, rank=rank, **opts)
        assert len(seen) == len(base)
        for t, ((v0, s0, c0, *_), (v1, s1, c1, *_)) in enumerate(zip(base, seen)):
            assert (s1, c1) == (s0, c0)  # public: the same on every graph
            diff = v1 - v0
            assert np.count_nonzero(diff) <= c0, (t, (i, j))
            change = float(np.linalg.norm(diff))
            assert change <= s0 * (1 + 1e-9), (t, (i, j), change, s0)
            worst[t] = max(worst[t], change / s0)
        for name in ("degrees", "normalizer", "basis", "core"):
            np.testing.assert_array_equal(getattr(pg, name), getattr(pg0, name), err_msg=name)
    # the degrees' bound sqrt 2 is attained (an unweighted edge); so is the steps' (the edge
    # between the two smallest normalizers with both rows at the clipping level)
    assert worst[0] == pytest.approx(1.0, abs=1e-9)
    assert max(worst[1:-1]) == pytest.approx(1.0, abs=1e-6)


def test_matrix_free_draws_match_the_ledger(monkeypatch):
    """docs/privacy.md 5.4 and 1 (Gaussian DP): with continuous noise, each release draws at the
    noise scale its item in ``diagnostics["composition_ledger"]`` records (a spy in place of
    the sampler); the drawn scales compose to ``mu = sqrt(sum (Delta_i / sigma_i)^2)`` whose
    exact Gaussian delta at the budget's epsilon (scipy, Balle-Wang) is within delta; the
    caller's single charge states at least that rho and a Gaussian event of noise multiplier
    at most ``1 / mu``; and each item's own epsilon is true of its release at its own delta.
    Guards the mutants: degrees and steps drawn at half the itemized sigma, the core drawn at
    half, the caller's ledger charged half the rho, its ``GaussianDpEvent(2 / mu)``, and items
    whose epsilon is that of ``mu_i / sqrt 2``."""
    from dpgraph.release.routes import matrix_free as MF

    drawn = []
    real = MF.gaussian_noise

    def spy(shape, *, sigma, ledger, rng=None):
        drawn.append((tuple(np.atleast_1d(shape)), float(sigma)))
        return real(shape, sigma=sigma, ledger=ledger, rng=rng)
    monkeypatch.setattr(MF, "gaussian_noise", spy)
    A = _graph(30, 0.3, 5)
    eps, delta = 1.5, 1e-6
    led = PrivacyLedger(epsilon=eps, delta=delta)
    pg = MF.release_matrix_free(from_matrix(sp.csr_array(A)), epsilon=eps, delta=delta, rank=2,
                                ledger=led, rng=np.random.default_rng(0), steps=5)
    items = pg.diagnostics["composition_ledger"].entries
    assert [e.name for e in items] == ["degrees"] + [f"power step {t}" for t in range(1, 6)] + \
        ["core"]
    # one draw per release, two for the symmetric core (off-diagonal block, diagonal)
    assert len(drawn) == len(items) + 1
    assert [s for _, s in drawn] == pytest.approx(
        [e.noise_scale for e in items[:-1]] + [items[-1].noise_scale] * 2, rel=1e-12)
    assert drawn[0][0] == (30,) and drawn[1][0] == (30, 2) and drawn[-2][0] == (3, 3)
    mu2 = sum((e.sensitivity / s) ** 2 for e, (_, s) in zip(items, drawn))
    mu = math.sqrt(mu2)
    assert mu <= _exact_mu(eps, delta) * (1 + 1e-9)
    assert _exact_gaussian_delta(1.0 / mu, eps) <= delta * (1 + 1e-9)
    (charge,) = led.entries
    assert (charge.epsilon, charge.delta) == pytest.approx((eps, delta), rel=1e-12)
    assert charge.rho >= mu2 / 2 * (1 - 1e-9)
    assert charge.dp_event.noise_multiplier <= (1.0 / mu) * (1 + 1e-9)
    assert sum(e.delta for e in items) <= delta * (1 + 1e-9)
    for e in items:
        assert _exact_gaussian_delta(e.noise_scale, e.epsilon, e.sensitivity) <= \
            e.delta * (1 + 1e-6), e.name


def test_matrix_free_core_noise_covers_its_sensitivity_in_every_direction(monkeypatch):
    """docs/privacy.md 1 (symmetric matrix noise) and 5.3: the core release is the Gaussian
    mechanism on ``v = (C_ij)_{i<j} ++ (C_ii / sqrt 2)_i`` with L2 sensitivity ``s_core``, so
    the noise it adds to ``v`` must have covariance at least ``sigma_c^2 I`` with
    ``sigma_c = s_core / sqrt(2 rho_core)`` (GDP ``mu_core = s_core / sigma_c``), the scale
    the ledger itemizes. The noise is a linear function of the standard normals drawn: a spy
    returns one unit draw at a time, which gives that map exactly. Guards the mutants: the
    diagonal drawn at ``sigma`` instead of ``sqrt 2 sigma``, the off-diagonal at
    ``sigma / sqrt 2``, and the core drawn at half its itemized sigma."""
    from dpgraph.release.routes import matrix_free as MF

    _, budget = MF.check_release_options(50, 1.0, 1e-6)
    k, s_core = 3, 0.37
    iu = np.triu_indices(k, 1)
    state = {}

    def spy(shape, *, sigma, ledger, rng=None):
        z = np.zeros(np.atleast_1d(shape)).ravel()
        p = state["probe"] - state["offset"]
        if 0 <= p < z.size:
            z[p] = 1.0
        state["offset"] += z.size
        return sigma * z.reshape(shape)
    monkeypatch.setattr(MF, "gaussian_noise", spy)
    columns, scales = [], set()
    for probe in range(k * k + k):  # at most this many standard normals are drawn
        state.update(probe=probe, offset=0)
        out = MF._Releases(PrivacyLedger(), 1.0, 1e-6, budget, "continuous",
                           np.random.default_rng(0))
        G, sigma_c = out.symmetric_core(np.zeros((k, k)), s_core, "")
        assert np.array_equal(G, G.T)
        columns.append(np.r_[G[iu], np.diag(G) / math.sqrt(2.0)])
        (item,) = out.composition.entries
        scales.add(item.noise_scale)
    (sigma_item,) = scales
    assert sigma_item == pytest.approx(s_core / math.sqrt(2.0 * budget.core), rel=1e-12)
    L = np.array(columns).T
    cov = L @ L.T
    assert np.linalg.eigvalsh(cov).min() >= sigma_item ** 2 * (1 - 1e-9)


def test_matrix_free_discrete_charge_covers_its_draws(monkeypatch):
    """docs/privacy.md 13.3 and 5.4 (discrete Gaussians compose in zCDP): the caller's single
    charge states at least the rho that the releases' samplers draw at (their parameters,
    recorded by a spy), in its ``rho`` and in its ``ZCDpEvent``, and that rho is within the
    budget by ``dp_accounting``'s RDP accountant. Guards the mutant that charges half the
    rho drawn."""
    from dp_accounting import ZCDpEvent
    from dp_accounting.rdp import RdpAccountant

    seen, _, led = _mf(monkeypatch, _graph(12, 0.4, 1), rank=2, steps=5)
    drawn = math.fsum(rec[4] for rec in seen)
    (charge,) = led.entries
    assert (charge.epsilon, charge.delta) == pytest.approx((2.0, 1e-6), rel=1e-12)
    assert charge.rho >= drawn * (1 - 1e-12)
    assert charge.dp_event.rho >= drawn * (1 - 1e-12)
    acc = RdpAccountant([1 + 10 ** (k / 100) for k in range(-200, 301)])
    acc.compose(ZCDpEvent(drawn))
    assert acc.get_epsilon(1e-6) <= 2.0 * (1 + 2e-3)


# ============================================================ 4.9: privatize's route choice

def test_privatize_route_choice_reads_only_the_released_count(monkeypatch):
    """docs/privacy.md 4.9 and privatize's module docstring (steps 0-1): the screening, the
    scale choice and the memory refusal are functions of public ``n`` and the *released* edge
    count only. Coupled runs on a graph and on graphs one edge away, with the screening release
    returning the same value: every argument of ``screen``, ``choose_scale_route`` and
    ``refuse_if_too_large`` is the same. Guards the mutants that hand them the true edge
    count (``data.total_weight``) instead of the released one."""
    from dpgraph.release import privatize as PV

    real_count = PV.release_edge_count
    calls = []

    def count(data, epsilon, ledger, gen):
        real_count(data, epsilon, ledger, gen)  # charged and drawn as usual
        return 40.0  # the released value, the same on every graph (coupled)

    def recorder(name, fn, stop=False):
        def wrapped(*args, **kw):
            calls.append((name, args, tuple(sorted(kw.items()))))
            if stop:
                raise _Stop
            return fn(*args, **kw)
        return wrapped
    monkeypatch.setattr(PV, "release_edge_count", count)
    monkeypatch.setattr(PV, "screen", recorder("screen", PV.screen))
    monkeypatch.setattr(PV, "choose_scale_route", recorder("scale", PV.choose_scale_route))
    monkeypatch.setattr(PV, "refuse_if_too_large", recorder("refuse", PV.refuse_if_too_large,
                                                            stop=True))
    A = _graph(14, 0.3, 8)

    def run(W):
        del calls[:]
        with pytest.raises(_Stop):
            PV.privatize(from_matrix(sp.csr_array(W)), epsilon=1.0, delta=1e-6, rank=2,
                         rng=np.random.default_rng(0), synthetic_share=None)
        return list(calls)
    base = run(A)
    assert [c[0] for c in base] == ["screen", "scale", "refuse"]
    for _, B in itertools.islice(_neighbours(A, weights=(0.0, 1.0, 0.5)), 0, None, 7):
        assert run(B) == base


def test_privatize_refuses_a_route_that_charges_past_the_budget(monkeypatch):
    """docs/privacy.md 1 (basic composition: a call spends at most its request): ``privatize``'s
    own ledger holds the call's ``(epsilon, delta)``, so a route that would charge more than the
    budget left to it is refused (:class:`PrivacyBudgetError`) before its draw, with no
    ``ledger=`` given. Guards the mutant that gives ``privatize``'s ledger no budget (the only
    check between a route's charges and the caller's total)."""
    from dpgraph.privacy import PrivacyBudgetError
    from dpgraph.release import privatize as PV
    from dpgraph.release.routes import randomized_response as RR

    real = RR.release

    def greedy(data, *, epsilon, **kw):
        return real(data, epsilon=1.25 * epsilon, **kw)
    monkeypatch.setattr(RR, "release", greedy)
    with pytest.raises(PrivacyBudgetError):
        PV.privatize(from_matrix(sp.csr_array(_graph(12, 0.3, 2))), epsilon=1.0, delta=1e-6,
                     rank=2, route="randomized-response", synthetic_share=None, rng=0)


def test_privatize_auto_prechecks_the_matrix_free_route_at_the_epsilon_it_gets():
    """docs/privacy.md 11.1 (refuse before spending) with 4.9 and 5.4: from ``MATRIX_FREE_MIN_N``
    nodes ``route="auto"`` releases the screening count (``screen_share`` of epsilon) and runs
    the matrix-free route with the rest, so a delta that the route's itemized accounting refuses
    at that epsilon (though not at the whole epsilon) must be refused before the screening count
    is charged and drawn. Guards the mutant that prechecks at the whole epsilon."""
    import inspect

    from dpgraph.release.privatize import ReleaseOptions, privatize, refuse_before_drawing
    from dpgraph.release.routes.matrix_free import check_release_options
    from dpgraph.release.screening import MATRIX_FREE_MIN_N

    opts = ReleaseOptions.checked(**{
        k: p.default for k, p in inspect.signature(privatize).parameters.items()
        if k in ReleaseOptions.__dataclass_fields__})
    n, eps, delta = MATRIX_FREE_MIN_N, 1.0, 0.2801
    check_release_options(n, eps, delta)  # the whole epsilon would pass ...
    with pytest.raises(ValueError, match="too large"):  # ... what the route gets does not
        check_release_options(n, eps * (1.0 - opts.screen_share), delta)
    with pytest.raises(ValueError, match="too large for the matrix-free route"):
        refuse_before_drawing("auto", n, eps, delta, opts)


# ============================================================ 2.4, 2.6: symmetric releases

class _Recorder(np.ndarray):
    """The noise matrix a release gets (zeros, or ``replay``): records what the release adds
    to it (the value the noise protects); with ``replay`` the sum is ``replay`` whatever was
    added (the noise that makes this run release exactly what another one did)."""

    def __new__(cls, n, seen, replay=None):
        obj = np.zeros((n, n)).view(cls)
        obj.seen, obj.replay = seen, replay
        return obj

    def __array_finalize__(self, obj):
        self.seen = getattr(obj, "seen", None)
        self.replay = getattr(obj, "replay", None)

    def __iadd__(self, other):
        self.seen["value"] = np.array(other, dtype=float, copy=True)
        if self.replay is not None:
            self[...] = self.replay
            return self
        return super().__iadd__(other)


class _FakeNoise:
    def __init__(self, n, sigma, seen, replay=None):
        self.sigma, self._dense = sigma, _Recorder(n, seen, replay)

    def to_dense(self):
        return self._dense


def _spy_symmetric_noise(monkeypatch, module, seen, replay=None):
    """``module.symmetric_gaussian_noise`` charging as usual, recording its keywords and
    handing out a :class:`_FakeNoise`."""
    real = module.symmetric_gaussian_noise

    def spy(n, **kw):
        G = real(n, **kw)
        seen["kw"] = {key: kw[key] for key in ("sensitivity", "epsilon", "delta")}
        seen["kw"]["diagonal_scale"] = G.diagonal_scale  # of the noise it would have drawn
        seen["ledger"] = kw["ledger"]
        return _FakeNoise(n, G.sigma, seen, replay)
    monkeypatch.setattr(module, "symmetric_gaussian_noise", spy)


def _symmetric_change(D, diagonal_scale):
    """L2 norm of the change of ``(D_ij)_{i<j} ++ (D_ii / c)_i``, what symmetric noise with
    diagonal sd ``c sigma`` protects (docs/privacy.md 1, symmetric matrix noise)."""
    iu = np.triu_indices(D.shape[0], 1)
    return float(np.linalg.norm(np.r_[D[iu], np.diag(D) / diagonal_scale]))


@pytest.mark.parametrize("radius", [1.0, 2.5])
def test_second_moment_sensitivity_on_neighbouring_datasets(monkeypatch, radius):
    """docs/privacy.md 2.6: replacing one row (all rows in the ball of ``radius``) moves the
    second moment the release adds noise to by at most the stated sensitivity in the coordinates
    its symmetric noise protects (the diagonal weighted by ``1 / diagonal_scale``), exactly
    that for two orthogonal rows at the radius; the caller's ledger holds the charge, at the
    sigma the result reports. Brute force over replacement rows; the noise is replaced by zeros
    (after the real charge) to read the value. Guards the mutants: the diagonal drawn at
    ``sigma`` or ``sigma / sqrt 2`` instead of ``sqrt 2 sigma``, the sensitivity without its
    ``radius^2``, the statistic divided by ``m - 1``, and the charge made on a throwaway
    ledger."""
    from dpgraph.mechanisms import covariance as CV

    rng = np.random.default_rng(4)
    m, d = 6, 3
    X = rng.standard_normal((m, d))
    X *= radius * rng.uniform(0.3, 1.0, (m, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    X[0] = radius * np.eye(d)[0]
    candidates = [radius * e for e in np.eye(d)] + [-X[0], np.zeros(d), 0.5 * X[1]] + [
        radius * u / np.linalg.norm(u) for u in rng.standard_normal((4, d))]

    def release(rows):
        seen = {}
        _spy_symmetric_noise(monkeypatch, CV, seen)
        led = PrivacyLedger(epsilon=1.0, delta=1e-6)
        try:
            res = CV.private_second_moment(rows, epsilon=1.0, delta=1e-6, radius=radius,
                                           project=False, ledger=led, rng=0)
        finally:
            monkeypatch.undo()
        assert len(led.entries) == 1 and seen["ledger"] is led  # the caller's ledger, charged
        assert led.entries[0].noise_scale == res.sigma
        assert led.spent == pytest.approx((1.0, 1e-6))
        return seen["value"], seen["kw"]
    base, kw = release(X)
    c = kw["diagonal_scale"]
    worst = 0.0
    for y in candidates:
        Y = X.copy()
        Y[0] = y
        value, kw1 = release(Y)
        assert kw1 == kw
        worst = max(worst, _symmetric_change(value - base, c))
    assert worst <= kw["sensitivity"] * (1 + 1e-9)
    assert worst == pytest.approx(radius ** 2 / m, rel=1e-9)  # sqrt 2 r^2 / m over sqrt 2


SIZES = [3, 2, 1, 2]  # d = 4 attributes, c = 1 single-valued
DOMAIN = np.array(list(itertools.product(*[range(s) for s in SIZES])))
TABLE = DOMAIN[[0, 5, 7, 10, 11, 3]]


def _table_neighbours(adjacency):
    if adjacency == "replace-one":
        for y in DOMAIN:
            T = TABLE.copy()
            T[0] = y
            yield T
    else:
        for r in range(len(TABLE)):
            yield np.delete(TABLE, r, axis=0)
        for y in DOMAIN:
            yield np.vstack([TABLE, y])


@pytest.mark.parametrize("adjacency", ["replace-one", "add-remove"])
@pytest.mark.parametrize("noise_diagonal", [False, True])
def test_onehot_k2_sensitivity_on_neighbouring_tables(monkeypatch, adjacency, noise_diagonal):
    """docs/privacy.md 2.4 (k = 2): over the tables one row away (replace one row: every row
    of the domain in place of the first; add/remove: every row removed, every domain row
    added), the moment matrix the release adds symmetric noise to moves by at most the stated
    sensitivity in the coordinates that noise protects (diagonal weighted by
    ``1 / diagonal_scale``), and the bound is attained. Noise replaced by zeros after the real
    charge; stopped before the projection (post-processing). Guards the mutants, with the
    diagonal noised (``noise_diagonal=True``): noise at ``sens / 2``, ``sqrt(d^2 - c^2)``,
    diagonal sd ``sigma``; and on every path attributes of size 2 counted as single-valued."""
    from dpgraph.mechanisms import onehot as OH

    def stop(*a, **k):
        raise _Stop
    kw = None
    worst = 0.0

    def release(T):
        seen = {}
        _spy_symmetric_noise(monkeypatch, OH, seen)
        monkeypatch.setattr(OH, "dykstra", stop)
        try:
            with pytest.raises(_Stop):
                OH.onehot_marginals(T, SIZES, 2, epsilon=1.0, delta=1e-6, rng=0,
                                    adjacency=adjacency, noise_diagonal=noise_diagonal)
        finally:
            monkeypatch.undo()
        return seen["value"], seen["kw"]
    base, kw = release(TABLE)
    c = kw["diagonal_scale"]
    for T in _table_neighbours(adjacency):
        value, kw1 = release(T)
        assert kw1 == kw
        worst = max(worst, _symmetric_change(value - base, c))
    assert worst <= kw["sensitivity"] * (1 + 1e-9)
    assert worst == pytest.approx(kw["sensitivity"], rel=1e-9)


@pytest.mark.parametrize("adjacency", ["replace-one", "add-remove"])
def test_onehot_k3_sensitivity_on_neighbouring_tables(monkeypatch, adjacency):
    """docs/privacy.md 2.4 (k = 3): over the tables one row away, the vector of all 3-way tables
    handed to the Gaussian mechanism moves by at most the sensitivity it is calibrated to
    (attained), and the result reports that sensitivity. Guards the mutant that calibrates the
    noise to ``sens / sqrt 2`` while reporting ``sens``."""
    from dpgraph.mechanisms import onehot as OH

    def release(T):
        seen = {}

        def spy(value, **kw):
            seen.update(value=np.array(value, dtype=float, copy=True), kw=kw)
            raise _Stop
        monkeypatch.setattr(OH, "gaussian_mechanism", spy)
        try:
            with pytest.raises(_Stop):
                OH.onehot_marginals(T, SIZES, 3, epsilon=1.0, delta=1e-6, rng=0,
                                    adjacency=adjacency)
        finally:
            monkeypatch.undo()
        return seen["value"], seen["kw"]["sensitivity"]
    base, sens = release(TABLE)
    worst = max(float(np.linalg.norm(v - base)) for v, s in map(release,
                                                                  _table_neighbours(adjacency)))
    assert worst <= sens * (1 + 1e-9)
    assert worst == pytest.approx(sens, rel=1e-9)
    res = OH.onehot_marginals(TABLE, SIZES, 3, epsilon=1.0, delta=1e-6, rng=0,
                              adjacency=adjacency, max_iter=2)
    assert res.sensitivity == sens


def _dyadic_symmetric(n, rng):
    """Symmetric noise with values k / 8 (exact in floating point, so sums stay exact)."""
    N = np.round(8 * rng.standard_normal((n, n))) / 8
    return np.triu(N) + np.triu(N, 1).T


@pytest.mark.parametrize("k, augmented", [(2, True), (2, False), (3, True)])
def test_onehot_add_remove_reads_the_table_only_through_the_release(monkeypatch, k, augmented):
    """docs/privacy.md 2.4, add/remove adjacency (the row count ``m`` is private): coupled runs
    on a table and on the tables one row away, each releasing the same noisy values (the noise
    in the second run is the released value minus its moment matrix), return the same tables
    and the same total: everything after the noise is post-processing. Guards the mutants that
    set the augmented matrix's corner, the released total (k = 2), the sets' total or the
    total projected onto (k = 3) to the private row count."""
    from dpgraph.mechanisms import onehot as OH

    rng = np.random.default_rng(9)
    state = {}

    def release(T):
        if k == 2:
            seen = {}
            _spy_symmetric_noise(monkeypatch, OH, seen, replay=state.get("noisy"))
        else:
            real = OH.gaussian_mechanism

            def spy(value, **kw):
                noisy, sigma = real(value, **kw)
                if "noisy" in state:
                    noisy = state["noisy"].copy()
                return noisy, sigma
            monkeypatch.setattr(OH, "gaussian_mechanism", spy)
        try:
            res = OH.onehot_marginals(T, SIZES, k, epsilon=1.0, delta=1e-6, rng=0,
                                      adjacency="add-remove", augmented=augmented, max_iter=30)
        finally:
            monkeypatch.undo()
        return res
    if k == 2:
        n = sum(SIZES)
        state["noisy"] = _dyadic_symmetric(n, rng) + 2.0
    else:  # the first run's own noisy tables, replayed
        real = OH.gaussian_mechanism

        def record(value, **kw):
            noisy, sigma = real(value, **kw)
            state["noisy"] = np.array(noisy, copy=True)
            return noisy, sigma
        monkeypatch.setattr(OH, "gaussian_mechanism", record)
        OH.onehot_marginals(TABLE, SIZES, 3, epsilon=1.0, delta=1e-6, rng=0,
                            adjacency="add-remove", max_iter=1)
        monkeypatch.undo()
    base = release(TABLE)
    for T in itertools.islice(_table_neighbours("add-remove"), 0, None, 3):
        res = release(T)
        assert res.m == base.m
        assert res.tables.keys() == base.tables.keys()
        for key in base.tables:
            np.testing.assert_array_equal(res.tables[key], base.tables[key])
