"""The shared mechanisms' constants end to end (docs/privacy.md 2.3-2.6, 12, 13).

For each mechanism the test draws worst-case adjacent inputs (replace one row; add or remove one
row where the mechanism offers it), computes the statistic and the exact worst-case sensitivity
independently (brute force over every pair of rows of a small domain, or the closed form with
the pair that attains it), and checks three things:

* **the change**: two runs with the same seed draw the same noise, so their noisy values differ
  by exactly the change of the statistic; in the coordinates the noise protects (the upper
  triangle and the diagonal over its scale for symmetric noise, section 1) it is at most the
  charged sensitivity, and reaches it on the worst pair (the constant is not loose);
* **the draw**: the noise added is, draw for draw, the noise of the derived form at the
  analytic-Gaussian ``sigma`` of the derived sensitivity (off-diagonal ``sigma``, diagonal
  ``sqrt 2 sigma`` for a Frobenius sensitivity; i.i.d. for a vector), rebuilt here from the
  same seed: a halved constant, a wrong diagonal scale, a radius where its square belongs all
  draw different numbers;
* **the ledger**: the charge records that sensitivity and sigma, and its ``dp_accounting``
  event the ratio of the two (section 12).

Where the row count is private (``adjacency="add-remove"``), the run on the larger table gets
the smaller table's statistic in place of its own, and must then return the very same result:
nothing else of the input (the true row count) reaches the output.
"""

import itertools
import math
import warnings

import numpy as np
import pytest

from dpgraph.mechanisms import (jl_second_moment, kway_marginals, onehot_marginals,
                                private_second_moment)
from dpgraph.mechanisms import jl as JL
from dpgraph.mechanisms import marginals as MG
from dpgraph.mechanisms import onehot as OH
from dpgraph.mechanisms.jl import gordon_factor, svec
from dpgraph.privacy import analytic_gaussian_sigma
from dpgraph.privacy.noise import SymmetricGaussianNoise, ball_knorm_noise

SQRT2 = math.sqrt(2.0)
EPS, DELTA = 1.0, 1e-6


class _Stop(Exception):
    """Raised by a spy once it holds the noisy value (what follows is post-processing)."""


def _sym_noise(n, sigma, seed, diagonal_scale):
    """The symmetric noise a seeded mechanism draws first from ``seed``."""
    return SymmetricGaussianNoise(n, sigma, rng=seed, diagonal_scale=diagonal_scale).to_dense()


def _protected(E, diagonal_scale):
    """The coordinates symmetric noise of that diagonal scale protects (section 1)."""
    iu = np.triu_indices(E.shape[0], 1)
    return np.concatenate([E[iu], np.diag(E) / diagonal_scale])


def _event_multiplier(entry):
    ev = entry.event
    return ev.param("noise_multiplier") if hasattr(ev, "param") else ev.noise_multiplier


def _check_entry(entry, sensitivity, sigma):
    assert entry.sensitivity == pytest.approx(sensitivity, rel=1e-9)
    assert entry.noise_scale == pytest.approx(sigma, rel=1e-9)
    assert _event_multiplier(entry) == pytest.approx(sigma / sensitivity, rel=1e-9)


# ------------------------------------------------------------- 2.6: second moment, radius r

def test_second_moment_noise_is_the_frobenius_mechanism_at_radius_squared():
    """docs/privacy.md 2.6 at ``r = 2``: orthogonal rows of norm ``r`` move ``S`` by exactly
    ``sqrt 2 r^2 / m`` in Frobenius norm; the noise is symmetric with diagonal scale ``sqrt 2``
    at ``sigma = analytic(eps, delta, r^2 / m)``. A sensitivity in ``r`` instead of ``r^2``, a
    halved constant or diagonal noise of variance ``sigma^2`` draw other numbers."""
    r, m, d = 2.0, 6, 4
    rng = np.random.default_rng(1)
    X = rng.standard_normal((m, d))
    X *= r * rng.uniform(0.2, 1.0, (m, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    X[0] = r * np.eye(d)[0]
    Xp = X.copy()
    Xp[0] = r * np.eye(d)[1]
    a = private_second_moment(X, epsilon=EPS, delta=DELTA, radius=r, rng=0)
    b = private_second_moment(Xp, epsilon=EPS, delta=DELTA, radius=r, rng=0)
    bound = SQRT2 * r * r / m
    assert a.sensitivity == pytest.approx(bound, rel=1e-12)
    change = np.linalg.norm(_protected(a.noisy - b.noisy, SQRT2))
    assert change == pytest.approx(bound / SQRT2, rel=1e-12)  # attained
    sigma = analytic_gaussian_sigma(EPS, DELTA, bound / SQRT2)
    assert a.sigma == pytest.approx(sigma, rel=1e-12)
    W = a.noisy - X.T @ X / m
    assert np.allclose(W, _sym_noise(d, sigma, 0, SQRT2), rtol=0, atol=1e-12 * sigma)
    _check_entry(a.ledger.entries[-1], bound / SQRT2, sigma)


@pytest.mark.parametrize("release", ["second_moment", "jl"])
def test_rows_at_the_radius_tolerance_stay_within_the_sensitivity(monkeypatch, release):
    """``rows_in_ball`` accepts a row up to ``radius (1 + 1e-12)`` (a row normalised in floating
    point has a computed norm a few ulps above 1); such a row is scaled onto the sphere of
    radius ``radius`` before the release, so the statistic moves by at most the sensitivity
    ``sqrt 2 r^2 / m`` the noise is calibrated to (a row kept at ``r (1 + 0.9e-12)`` moved it by
    ``1.8e-12`` relative more). The caller's array is left as it was."""
    r, m, d = 1.5, 3, 3
    over = r * (1 + 0.9e-12)
    X = np.zeros((m, d))
    X[0, 0] = over
    X[1, 1] = X[2, 2] = 0.5
    Xp = X.copy()
    Xp[0] = 0.0
    Xp[0, 1] = over
    keep = X.copy()
    bound = SQRT2 * r * r / m
    if release == "second_moment":
        a = private_second_moment(X, epsilon=EPS, delta=DELTA, radius=r, rng=0, project=False)
        b = private_second_moment(Xp, epsilon=EPS, delta=DELTA, radius=r, rng=0, project=False)
        change = np.linalg.norm(a.noisy - b.noisy)
        assert change <= a.sensitivity * (1 + 1e-14)
        assert change == pytest.approx(bound, rel=1e-13)
    else:
        seen = []

        def spy(Pi, y, *args):
            seen.append((Pi, y))
            raise _Stop

        monkeypatch.setattr(JL, "_lift_projection", spy)
        for data in (X, Xp):
            with pytest.raises(_Stop):
                jl_second_moment(data, epsilon=EPS, radius=r, jl_dim=8, noise="knorm",
                                 sensitivity_bound="operator", rng=0)
        (Pi, ya), (_, yb) = seen
        # the same draws: the images differ by Pi svec of the change of S
        change = np.linalg.norm(np.linalg.pinv(Pi) @ (ya - yb))  # Pi has full column rank
        assert change <= bound * (1 + 1e-12)
        assert change == pytest.approx(bound, rel=1e-9)
    assert np.array_equal(X, keep)


# --------------------------------------------------------------- 2.3: k-way binary marginals

def _power(x, k):
    out = np.array(1.0)
    for _ in range(k):
        out = np.multiply.outer(out, x)
    return out


@pytest.mark.parametrize("k, n, t", [(1, 4, None), (3, 4, None), (3, 4, 2), (2, 4, 2),
                                     (4, 4, None)])
def test_kway_marginals_noise_is_the_gaussian_at_the_exact_tensor_sensitivity(monkeypatch, k,
                                                                              n, t):
    """docs/privacy.md 2.3: the worst pair of 0/1 rows (brute force over every pair with at most
    ``t`` ones) moves ``T = sum x^{(x)k}`` by ``Delta_k``; odd ``k`` gets i.i.d. noise at
    ``analytic(eps, delta, Delta_k)``, even ``k`` the symmetric noise of the flattening at
    ``Delta_k / sqrt 2`` (diagonal ``sqrt 2``). Stopped at the noisy tensor (the projection is
    post-processing)."""
    tmax = n if t is None else t
    rows = [np.array(x, float) for x in itertools.product((0, 1), repeat=n) if sum(x) <= tmax]
    tens = [_power(x, k) for x in rows]
    Delta, i, j = max((float(np.linalg.norm(a - b)), i, j)
                      for i, a in enumerate(tens) for j, b in enumerate(tens))
    others = [rows[(i + 3) % len(rows)], rows[(i + 5) % len(rows)]]
    X = np.array([rows[i]] + others)
    Xp = np.array([rows[j]] + others)
    seen = []

    def spy(Y, sets, **kw):
        seen.append(np.array(Y))
        raise _Stop

    monkeypatch.setattr(MG, "dykstra", spy)
    ledgers = []
    for data in (X, Xp):
        from dpgraph.privacy import PrivacyLedger

        led = PrivacyLedger(epsilon=EPS, delta=DELTA)
        ledgers.append(led)
        with pytest.raises(_Stop):
            kway_marginals(data.astype(int), k, epsilon=EPS, delta=DELTA, sparsity=t, rng=0,
                           ledger=led)
    Ya, Yb = seen
    Ta = sum(_power(x, k) for x in X)
    N = n ** (k // 2)
    if k % 2 == 0:
        sens = Delta / SQRT2
        change = np.linalg.norm(_protected((Ya - Yb).reshape(N, N), SQRT2))
        sigma = analytic_gaussian_sigma(EPS, DELTA, sens)
        W = _sym_noise(N, sigma, 0, SQRT2).reshape((n,) * k)
    else:
        sens = Delta
        change = np.linalg.norm(Ya - Yb)
        sigma = analytic_gaussian_sigma(EPS, DELTA, sens)
        W = sigma * np.random.default_rng(0).standard_normal((n,) * k)
    assert change == pytest.approx(sens, rel=1e-12)  # the worst pair attains the charge
    assert np.allclose(Ya - Ta, W, rtol=0, atol=1e-9 * sigma)
    _check_entry(ledgers[0].entries[-1], sens, sigma)


# ------------------------------------------------------ 2.4: marginals of categorical data

SIZES = [2, 3, 1, 2]  # d = 4 attributes, c = 1 of them single-valued
OFF = np.concatenate([[0], np.cumsum(SIZES)])
DOMAIN = np.array(list(itertools.product(*[range(s) for s in SIZES])))


def _onehot(T):
    X = np.zeros((len(T), OFF[-1]))
    for r, row in enumerate(T):
        X[r, OFF[:-1] + row] = 1.0
    return X


def _offdiag(M):
    return M - np.diag(np.diag(M))


def _triples_vector(T):
    """All 3-way tables of the rows of ``T``, concatenated in the order of the attribute
    triples (itertools.combinations), each table in C order."""
    parts = []
    for S in itertools.combinations(range(len(SIZES)), 3):
        tab = np.zeros([SIZES[a] for a in S])
        for row in T:
            tab[tuple(row[a] for a in S)] += 1
        parts.append(tab.ravel())
    return np.concatenate(parts)


def _onehot_worst(stat):
    """(sensitivity, row, other row) over every pair of rows of the domain (replace one) and
    every single row (add/remove, against the empty change)."""
    vals = [stat(r[None]) for r in DOMAIN]
    replace = max((float(np.linalg.norm(a - b)), i, j)
                  for i, a in enumerate(vals) for j, b in enumerate(vals))
    addrem = max((float(np.linalg.norm(a)), i, None) for i, a in enumerate(vals))
    return replace, addrem


@pytest.mark.parametrize("k, noise_diagonal", [(2, False), (2, True), (3, False)])
@pytest.mark.parametrize("adjacency", ["replace-one", "add-remove"])
def test_onehot_noise_is_the_gaussian_at_the_exact_sensitivity(monkeypatch, k, noise_diagonal,
                                                               adjacency):
    """docs/privacy.md 2.4 on a domain with a single-valued attribute: the worst pair of rows
    (brute force over the domain) moves the released coordinates by exactly the charged
    sensitivity, and the noise is the derived one: ``k = 2`` off the diagonal (default) i.i.d.
    on the upper triangle at ``analytic(eps, delta, sqrt(2 C(d,2) - 2 C(c,2)))`` (the diagonal
    is rebuilt from the blocks afterwards); ``noise_diagonal=True`` symmetric with diagonal
    scale ``sqrt 2`` at ``sqrt(2 d^2 - 2 c^2) / sqrt 2``; ``k = 3`` i.i.d. on the tables at
    ``sqrt(2 (C(d,3) - C(c,3)))``; add/remove: ``sqrt C(d,2)``, ``d / sqrt 2``,
    ``sqrt C(d,3)``."""
    from dpgraph.privacy import PrivacyLedger

    addrem = adjacency == "add-remove"
    if k == 3:
        stat = _triples_vector
    elif noise_diagonal:
        def stat(T):
            X = _onehot(T)
            return _protected(X.T @ X, SQRT2)
    else:
        def stat(T):
            X = _onehot(T)
            M = X.T @ X
            return M[np.triu_indices(M.shape[0], 1)]
    (rep, i, j), (ar, i_ar, _) = _onehot_worst(stat)
    rest = DOMAIN[[1, 4, 7]]
    if addrem:
        sens = ar
        A, B = np.vstack([rest, DOMAIN[i_ar]]), rest
    else:
        sens = rep
        A, B = np.vstack([DOMAIN[i], rest]), np.vstack([DOMAIN[j], rest])
    seen = []
    if k == 2:
        def spy(Y, sets, **kw):
            seen.append(np.array(Y))
            raise _Stop
        monkeypatch.setattr(OH, "dykstra", spy)
    else:
        def spy(tabs, sizes, m, tol, max_iter):
            seen.append(np.concatenate([tabs[S].ravel() for S in tabs]))
            raise _Stop
        monkeypatch.setattr(OH, "_project_L3", spy)
    ledgers = []
    for T in (A, B):
        led = PrivacyLedger(epsilon=EPS, delta=DELTA)
        ledgers.append(led)
        with pytest.raises(_Stop):
            onehot_marginals(T, SIZES, k, epsilon=EPS, delta=DELTA, rng=0, ledger=led,
                             adjacency=adjacency, noise_diagonal=noise_diagonal)
    n = OFF[-1]
    Ya, Yb = seen
    if k == 2:
        Ya, Yb = Ya[1:, 1:], Yb[1:, 1:]  # the augmented matrix's lower block is the noisy Y
        Ma = _onehot(A).T @ _onehot(A)
        if noise_diagonal:
            change = np.linalg.norm(_protected(Ya - Yb, SQRT2))
            sigma = analytic_gaussian_sigma(EPS, DELTA, sens)
            assert np.allclose(Ya - Ma, _sym_noise(n, sigma, 0, SQRT2), rtol=0,
                               atol=1e-9 * sigma)
        else:
            iu = np.triu_indices(n, 1)
            change = np.linalg.norm((Ya - Yb)[iu])
            sigma = analytic_gaussian_sigma(EPS, DELTA, sens)
            assert np.allclose((Ya - Ma)[iu], _sym_noise(n, sigma, 0, 1.0)[iu], rtol=0,
                               atol=1e-9 * sigma)
    else:
        change = np.linalg.norm(Ya - Yb)
        sigma = analytic_gaussian_sigma(EPS, DELTA, sens)
        W = sigma * np.random.default_rng(0).standard_normal(Ya.size)
        assert np.allclose(Ya - _triples_vector(A), W, rtol=0, atol=1e-9 * sigma)
    assert change == pytest.approx(sens, rel=1e-12)
    _check_entry(ledgers[0].entries[-1], sens, sigma)


@pytest.mark.parametrize("k, noise_diagonal, augmented", [(2, False, True), (2, False, False),
                                                          (2, True, True), (3, False, True)])
def test_onehot_add_remove_reads_the_row_count_only_through_the_release(monkeypatch, k,
                                                                        noise_diagonal,
                                                                        augmented):
    """docs/privacy.md 2.4, add/remove (the row count ``m`` is private): the run on a table
    with one row more gets the smaller table's statistic added to its own noise draw, so the
    two noisy releases are equal; then every output (tables, released total, moment matrix,
    sigma, ledger) must be equal too. The corner of the augmented matrix, the ``k = 3``
    projection's total or the returned ``m`` taken from the true row count make them differ."""
    small = DOMAIN[[0, 5, 7, 9, 11]]
    big = np.vstack([small, DOMAIN[[6]]])
    recorded = {}
    real_sym, real_gauss = OH.symmetric_gaussian_noise, OH.gaussian_mechanism
    n = OFF[-1]

    def moment(T):
        X = _onehot(T)
        M = X.T @ X
        return M if noise_diagonal else _offdiag(M)

    class Shifted:
        def __init__(self, G, shift):
            self.G, self.shift, self.sigma = G, shift, G.sigma

        def to_dense(self):
            return self.G.to_dense() + self.shift

    def sym_spy(size, **kw):
        G = real_sym(size, **kw)
        return Shifted(G, recorded["shift"])

    def gauss_spy(value, **kw):
        if "value" in recorded:
            value = recorded["value"]
        else:
            recorded["value"] = np.array(value)
        return real_gauss(value, **kw)

    monkeypatch.setattr(OH, "symmetric_gaussian_noise", sym_spy)
    monkeypatch.setattr(OH, "gaussian_mechanism", gauss_spy)
    out = []
    for T in (small, big):
        recorded["shift"] = moment(small) - moment(T)
        assert recorded["shift"].shape == (n, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(onehot_marginals(T, SIZES, k, epsilon=EPS, delta=DELTA, rng=0,
                                        adjacency="add-remove", noise_diagonal=noise_diagonal,
                                        augmented=augmented))
    a, b = out
    assert sorted(a.tables) == sorted(b.tables)
    # equal up to the rounding of the two additions (noise + shift) + statistic
    for S in a.tables:
        assert np.allclose(a.tables[S], b.tables[S], rtol=0, atol=1e-9), S
    assert a.m == pytest.approx(b.m, rel=1e-12)
    assert a.sigma == b.sigma and a.sensitivity == b.sensitivity
    if k == 2:
        assert np.allclose(a.moment_matrix, b.moment_matrix, rtol=0, atol=1e-9)
    assert [(e.name, e.epsilon, e.delta, e.sensitivity, e.noise_scale) for e in a.ledger.entries] \
        == [(e.name, e.epsilon, e.delta, e.sensitivity, e.noise_scale) for e in b.ledger.entries]


# ---------------------------------------------------------------------- 2.5: the JL mechanism

@pytest.mark.parametrize("noise, bound", [("gaussian", "gordon"), ("gaussian", "operator"),
                                          ("knorm", "operator"), ("knorm", "gordon")])
def test_jl_noise_is_calibrated_to_the_derived_sensitivity(monkeypatch, noise, bound):
    """docs/privacy.md 2.5 at ``r = 2``: the image ``Pi svec(S)`` gets noise calibrated to
    ``sqrt 2 r^2 L / m`` with ``L`` Gordon's factor at ``beta = delta / 10`` or the operator
    norm of ``Pi`` (times the ARPACK margin ``1 + 1e-9``); Gaussian noise at
    ``analytic(eps, delta - beta, .)``, K-norm noise at scale ``. / eps``; Gordon's ``beta`` is
    a charge of its own. ``Pi`` (``N(0, 1/l)`` entries) and the noise are rebuilt from the seed:
    the JL matrix is drawn first, then the noise."""
    r, m, d, l = 2.0, 5, 3, 8
    D = d * (d + 1) // 2
    delta = DELTA if (noise == "gaussian" or bound == "gordon") else 0.0
    rng = np.random.default_rng(2)
    X = rng.standard_normal((m, d))
    X *= r * rng.uniform(0.3, 1.0, (m, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    seen = []

    def spy(Pi, y, *args):
        seen.append((Pi, y))
        raise _Stop

    monkeypatch.setattr(JL, "_lift_projection", spy)
    from dpgraph.privacy import PrivacyLedger

    led = PrivacyLedger(epsilon=EPS, delta=delta)
    with pytest.raises(_Stop):
        jl_second_moment(X, epsilon=EPS, delta=delta, radius=r, jl_dim=l, noise=noise,
                         sensitivity_bound=bound, rng=0, ledger=led)
    (Pi_used, y), = seen
    gen = np.random.default_rng(0)
    Pi = gen.standard_normal((l, D)) / math.sqrt(l)
    assert np.array_equal(Pi, Pi_used)
    S = X.T @ X / m
    beta = delta / 10 if bound == "gordon" else 0.0
    exact = np.linalg.norm(Pi, 2)
    L = gordon_factor(d, l, beta) if bound == "gordon" else exact * (1 + 1e-9)
    sens = SQRT2 * r * r * L / m
    entries = led.entries
    if bound == "gordon":
        assert entries[0].mechanism == "jl-gordon-failure"
        assert (entries[0].epsilon, entries[0].delta) == (0.0, pytest.approx(beta, rel=1e-12))
        assert entries[0].event is None
    else:  # the margin over the computed norm is there (ARPACK's accuracy, docs 2.5)
        assert entries[-1].sensitivity >= SQRT2 * r * r * exact / m * (1 + 5e-10)
    if noise == "gaussian":
        scale = analytic_gaussian_sigma(EPS, delta - beta, sens)
        z = scale * gen.standard_normal(l)
        assert (entries[-1].epsilon, entries[-1].delta) == (EPS, pytest.approx(delta - beta))
        _check_entry(entries[-1], sens, scale)
    else:
        scale = sens / EPS
        z = ball_knorm_noise(l, scale, gen)
        assert entries[-1].mechanism == "knorm-l2-ball" and entries[-1].delta == 0.0
        assert entries[-1].sensitivity == pytest.approx(sens, rel=1e-9)
        assert entries[-1].noise_scale == pytest.approx(scale, rel=1e-9)
    assert np.allclose(y, Pi @ svec(S) + z, rtol=0, atol=1e-7 * scale)
    assert led.spent == pytest.approx((EPS, delta if noise == "gaussian" else beta))


@pytest.mark.parametrize("k", [2, 3])
def test_onehot_add_remove_memory_pricing_reads_no_row_count(monkeypatch, k):
    """docs/privacy.md 2.4, add/remove: the memory refusal runs before anything is spent, so it
    must not depend on the private row count: the bytes it prices, its message and the largest
    size it would name are the same for a table and the table with one row more (they grew by
    8 bytes a row and column, so two neighbours either side of the limit were told apart, and the
    message named a size computed from ``m``). With ``m`` public (replace-one) it is priced."""
    seen = []
    real = OH.check_memory

    def spy(needed, *, what, alternative="", fit=None):
        seen.append((needed, what, alternative, None if fit is None else fit[0](1000)))
        return real(needed, what=what, alternative=alternative, fit=fit)

    monkeypatch.setattr(OH, "check_memory", spy)
    small = DOMAIN[[0, 5, 7]]
    big = np.vstack([small] * 40)
    for adjacency in ("add-remove", "replace-one"):
        seen.clear()
        for T in (small, big):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                onehot_marginals(T, SIZES, k, epsilon=EPS, delta=DELTA, rng=0, max_iter=2,
                                 adjacency=adjacency)
        assert len(seen) == 2
        assert (seen[0] == seen[1]) == (adjacency == "add-remove"), (adjacency, seen)


# ------------------------------------------------ 13.2: the zCDP rho of the discrete Gaussian

@pytest.mark.parametrize("epsilon, delta", [(1e-13, 1e-20), (1e-7, 1e-20), (1.0, 1e-6),
                                            (0.05, 1e-10), (8.0, 1e-3)])
def test_discrete_gaussian_rho_converts_back_within_the_requested_epsilon(epsilon, delta):
    """docs/privacy.md 13.2: the rho the discrete Gaussian is calibrated to must give
    ``(epsilon, delta)``-DP: by the Bun-Steinke conversion ``rho + 2 sqrt(rho ln(1/delta))``
    where the CKS root-finding fails in floating point (``1e-13`` at ``1e-20``: the fallback),
    and by the CKS conversion elsewhere (never looser); and it is not needlessly small. (At the
    fallback's tiny epsilons ``epsilon^2 / (4 L)`` is the same number to a relative
    ``epsilon / (4 L)``, so that approximation would be harmless there.)"""
    from dpgraph.privacy import zcdp_to_approx_dp
    from dpgraph.privacy import noise as noise_mod

    rho = noise_mod._zcdp_rho(epsilon, delta)
    L = math.log(1 / delta)
    standard = rho + 2 * math.sqrt(rho * L)
    cks = zcdp_to_approx_dp(rho, delta) if epsilon > 1e-9 else standard
    assert min(standard, cks) <= epsilon * (1 + 1e-12)
    # and not needlessly small: at least the standard conversion's root (computed without
    # cancellation), up to the fallback's 1e-9 shrink
    assert rho >= (epsilon / (math.sqrt(epsilon + L) + math.sqrt(L))) ** 2 * (1 - 1e-6)


# ------------------------------------------- 1 and 12: the zCDP rho each pure charge records

def test_pure_charges_record_the_zcdp_rho_of_pure_dp():
    """docs/privacy.md 1 (zCDP accounting): a pure epsilon-DP charge (the K-norm mechanism of
    2.5, randomized response) records ``rho = epsilon^2 / 2`` (Bun-Steinke Prop. 1.4), the
    Gaussian ``D^2 / (2 sigma^2)``; a smaller rho under-reports under ``accounting="zcdp"``."""
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.privacy.noise import (ball_knorm_mechanism, gaussian_mechanism,
                                       randomized_response)

    led = PrivacyLedger(epsilon=10.0, delta=1e-5, accounting="zcdp")
    ball_knorm_mechanism(np.zeros(3), sensitivity=2.0, epsilon=0.7, ledger=led, name="k", rng=0)
    randomized_response(np.zeros(4, dtype=int), epsilon=0.4, ledger=led, name="r", rng=0)
    _, sigma = gaussian_mechanism(np.zeros(3), sensitivity=1.5, epsilon=1.0, delta=1e-6,
                                  ledger=led, name="g", rng=0)
    k, r, g = led.entries
    assert k.rho == pytest.approx(0.5 * 0.7 ** 2, rel=1e-12)
    assert r.rho == pytest.approx(0.5 * 0.4 ** 2, rel=1e-12)
    assert g.rho == pytest.approx(1.5 ** 2 / (2 * sigma ** 2), rel=1e-12)
