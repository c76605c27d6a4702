"""Every sensitivity bound of private PCA (docs/privacy.md section 3) against adjacent inputs.

For each bound: many random matrices (incoherent and highly coherent eigenvectors, wide and
small spectral gaps, symmetric and rectangular) and adjacent perturbations, including brute force
over every entry pair of small matrices, perturbations at the highest-coherence rows, and the
adversarial gap-closing construction of docs/privacy.md 3.2. The observed change must never
exceed the bound.
"""

import itertools
import math

import numpy as np
import pytest

from dpgraph.spectral import EntryAdjacency
from dpgraph.spectral import bounds as B
from dpgraph.spectral.linalg import top_subspace

SQ2 = math.sqrt(2)


def _orth(n, rng, coherent):
    """Random orthogonal matrix; ``coherent`` makes columns close to coordinate vectors."""
    A = np.eye(n) + (0.15 if coherent else 10.0) * rng.standard_normal((n, n))
    Q, _ = np.linalg.qr(A)
    return Q


def _sym(n, r, rng, *, gap, coherent, top=3.0):
    """Symmetric M with |lambda|_r - |lambda|_{r+1} = gap, random eigenvalue signs."""
    Q = _orth(n, rng, coherent)
    s_rest = np.sort(rng.uniform(0, top, n - r))[::-1]
    s_top = s_rest[0] + gap + np.sort(rng.uniform(0, top, r))[::-1]
    s_top[-1] = s_rest[0] + gap
    lam = np.concatenate([s_top, s_rest]) * rng.choice([-1, 1], n)
    return (Q * lam) @ Q.T


def _rect(n, m, r, rng, *, gap, coherent, top=3.0):
    Q = _orth(n, rng, coherent)
    R = _orth(m, rng, coherent)
    p = min(n, m)
    s_rest = np.sort(rng.uniform(0, top, p - r))[::-1]
    s_top = s_rest[0] + gap + np.sort(rng.uniform(0, top, r))[::-1]
    s_top[-1] = s_rest[0] + gap
    s = np.concatenate([s_top, s_rest])
    return (Q[:, :p] * s) @ R[:, :p].T


def _sin_theta_F(U, U2):
    return np.linalg.norm(U - U2 @ (U2.T @ U), "fro")


def _row_scale(top, sym):
    su = np.max(np.sum(top.U ** 2, axis=1))
    if sym:
        return math.sqrt(su)
    return math.sqrt(su + np.max(np.sum(top.V ** 2, axis=1)))


def _upper_norm(D):
    """L2 norm of the upper-triangle vector with diagonal weight 1/sqrt2 (diagonal_scale sqrt2)."""
    iu = np.triu_indices(D.shape[0], 1)
    return math.sqrt(np.sum(D[iu] ** 2) + np.sum(np.diag(D) ** 2) / 2)


def _sym_pairs(n, rng, U, k_random=6):
    """Pairs (i, j): the two highest-coherence rows, every diagonal entry of those, random pairs."""
    norms = np.sum(U ** 2, axis=1)
    order = np.argsort(-norms)
    pairs = [(order[0], order[1]), (order[0], order[0]), (order[1], order[2])]
    for _ in range(k_random):
        i, j = rng.choice(n, 2, replace=False)
        pairs.append((i, j))
    return pairs


def _entry_E(n, i, j, w):
    E = np.zeros((n, n))
    E[i, j] += w
    if i != j:
        E[j, i] += w
    return E


def _check_sym_pair(M, r, E, c, tol=1e-9):
    """Check gap, sin-theta / projector and log-row-scale bounds for M -> M + E. Returns #checks."""
    top = top_subspace(M, r, "symmetric")
    top2 = top_subspace(M + E, r, "symmetric")
    g = top.sigma[r - 1] - top.sigma[r]
    g2 = top2.sigma[r - 1] - top2.sigma[r]
    assert np.linalg.norm(E, 2) <= c.eta * (1 + tol)
    assert abs(g - g2) <= B.gap_sensitivity(c.eta) * (1 + tol) + tol
    if not g > c.eta:
        return 1
    t = _row_scale(top, True)
    st = _sin_theta_F(top.U, top2.U)
    assert st <= B.sin_theta_bound(c.c_E, c.eta, g, t) * (1 + tol) + tol
    dP = top2.U @ top2.U.T - top.U @ top.U.T
    assert _upper_norm(dP) <= B.projector_sensitivity(c.c_E, c.eta, g, t) * (1 + tol) + tol
    s_log = B.log_row_scale_sensitivity(c.c_E, c.eta, g)
    if math.isfinite(s_log):
        t2 = _row_scale(top2, True)
        assert abs(math.log(t2) - math.log(t)) <= s_log * (1 + tol) + tol
    return 2


@pytest.mark.parametrize("coherent", [False, True])
def test_symmetric_entry_bounds_random(coherent):
    rng = np.random.default_rng(11 + coherent)
    adj = EntryAdjacency(1.0)
    c0 = B.adjacency_constants(adj, symmetric=True)
    checked = 0
    for trial in range(20):
        n = int(rng.integers(6, 40))
        r = int(rng.integers(1, min(4, n - 1) + 1))
        gap = float(rng.choice([0.05, 0.3, 1.0, 3.0]))
        M = _sym(n, r, rng, gap=gap, coherent=coherent)
        U = top_subspace(M, r, "symmetric").U
        for i, j in _sym_pairs(n, rng, U):
            for w in (gap / 8, gap / 2.5, gap / 1.2, gap * 1.5):
                w *= rng.choice([-1, 1])
                c = B.AdjacencyConstants(abs(w) * c0.eta, abs(w) * c0.c_E, "")
                checked += _check_sym_pair(M, r, _entry_E(n, i, j, w), c)
    assert checked > 400


def test_symmetric_entry_bounds_brute_force_all_pairs():
    """Every pair (i <= j) and both signs on small coherent matrices with small gaps."""
    rng = np.random.default_rng(5)
    for trial in range(6):
        n, r = 7, 1 + trial % 3
        gap = 0.4
        M = _sym(n, r, rng, gap=gap, coherent=True)
        for i, j in itertools.combinations_with_replacement(range(n), 2):
            for w in (0.1, -0.1, 0.3, -0.3):
                c = B.AdjacencyConstants(abs(w), SQ2 * abs(w), "")
                _check_sym_pair(M, r, _entry_E(n, i, j, w), c)


def test_sin_theta_bound_is_nearly_attained():
    """Flat top eigenvector, rest of the spectrum 0, a pair perturbation: observed / bound -> 1.

    This shows the symmetric entry constants (c_E = sqrt2 w, denominator g - eta) cannot be
    lowered by much; the test would fail if the bound were more than 1/0.9 too loose here.
    """
    n, g, w = 60, 1.0, 0.005
    u = np.ones(n) / math.sqrt(n)
    M = g * np.outer(u, u)
    top = top_subspace(M, 1, "symmetric")
    top2 = top_subspace(M + _entry_E(n, 0, 1, w), 1, "symmetric")
    obs = _sin_theta_F(top.U, top2.U)
    bound = B.sin_theta_bound(SQ2 * w, w, g, 1 / math.sqrt(n))
    assert 0.9 * bound <= obs <= bound


def test_gap_bound_is_attained_by_adversarial_pair():
    """M = -a uu^T - b vv^T with u = (e1+e2)/sqrt2, v = (e1-e2)/sqrt2: one pair moves the gap by 2w."""
    n, a, b, w = 6, 3.0, 1.0, 0.25
    u = np.zeros(n); u[:2] = 1 / SQ2
    v = np.zeros(n); v[0], v[1] = 1 / SQ2, -1 / SQ2
    M = -a * np.outer(u, u) - b * np.outer(v, v)
    E = _entry_E(n, 0, 1, w)
    g = np.subtract(*top_subspace(M, 1, "symmetric").sigma[:2])
    g2 = np.subtract(*top_subspace(M + E, 1, "symmetric").sigma[:2])
    assert g - g2 == pytest.approx(B.gap_sensitivity(w), rel=1e-12)


@pytest.mark.parametrize("coherent", [False, True])
def test_general_delta_bounds_symmetric(coherent):
    """Dense symmetric E scaled to sum_ab |(E E^T)_ab| = Delta^2 (Def. 4.2, entrywise l1)."""
    rng = np.random.default_rng(21 + coherent)
    for trial in range(20):
        n = int(rng.integers(6, 30))
        r = int(rng.integers(1, 4))
        gap = float(rng.choice([0.1, 0.5, 2.0]))
        M = _sym(n, r, rng, gap=gap, coherent=coherent)
        U = top_subspace(M, r, "symmetric").U
        for kind in ("dense", "rowcol", "aligned"):
            if kind == "dense":
                E = rng.standard_normal((n, n))
                E = E + E.T
            elif kind == "rowcol":  # a star at the most coherent row
                i = int(np.argmax(np.sum(U ** 2, axis=1)))
                E = np.zeros((n, n))
                E[i] = rng.standard_normal(n)
                E[:, i] = E[i]
            else:  # aligned with the top subspace: E = U_1 x^T + x U_1^T
                x = rng.standard_normal(n)
                E = np.outer(U[:, 0], x) + np.outer(x, U[:, 0])
            delta_now = math.sqrt(np.abs(E @ E.T).sum())
            for Delta in (gap / 6, gap / 2.2, gap / 1.1):
                Es = E * (Delta / delta_now)
                c = B.adjacency_constants(Delta, symmetric=True)
                _check_sym_pair(M, r, Es, c)
                assert np.linalg.norm(Es @ U, "fro") <= c.c_E * _row_scale(
                    top_subspace(M, r, "symmetric"), True) * (1 + 1e-9)


@pytest.mark.parametrize("coherent", [False, True])
def test_rectangular_entry_and_delta_bounds(coherent):
    """Wedin: sqrt(||sin Theta_U||_F^2 + ||sin Theta_V||_F^2) <= c_E t / (g - eta)."""
    rng = np.random.default_rng(31 + coherent)
    checked = 0
    for trial in range(60):
        n = int(rng.integers(5, 25))
        m = int(rng.integers(5, 40))
        r = int(rng.integers(1, min(3, min(n, m) - 1) + 1))
        gap = float(rng.choice([0.05, 0.4, 2.0]))
        M = _rect(n, m, r, rng, gap=gap, coherent=coherent)
        top = top_subspace(M, r, "rectangular")
        t = _row_scale(top, False)
        g = top.sigma[r - 1] - top.sigma[r]
        iu = int(np.argmax(np.sum(top.U ** 2, axis=1)))
        jv = int(np.argmax(np.sum(top.V ** 2, axis=1)))
        cases = [("entry", iu, jv)] + [("entry", int(rng.integers(n)), int(rng.integers(m)))
                                       for _ in range(4)] + [("delta", None, None)] * 2
        for kind, i, j in cases:
            for scale in (gap / 8, gap / 2.5, gap / 1.2):
                if kind == "entry":
                    E = np.zeros((n, m))
                    E[i, j] = scale * rng.choice([-1, 1])
                    c = B.adjacency_constants(EntryAdjacency(scale, symmetric=False),
                                              symmetric=False)
                else:
                    E = rng.standard_normal((n, m)) * (rng.random((n, m)) < 0.3)
                    E[iu, jv] += 3.0
                    d = math.sqrt(max(np.abs(E @ E.T).sum(), np.abs(E.T @ E).sum()))
                    E *= scale / d
                    c = B.adjacency_constants(scale, symmetric=False)
                top2 = top_subspace(M + E, r, "rectangular")
                g2 = top2.sigma[r - 1] - top2.sigma[r]
                assert np.linalg.norm(E, 2) <= c.eta * (1 + 1e-9)
                assert abs(g - g2) <= B.gap_sensitivity(c.eta) * (1 + 1e-9) + 1e-12
                if g <= c.eta:
                    continue
                lhs = math.hypot(_sin_theta_F(top.U, top2.U), _sin_theta_F(top.V, top2.V))
                assert lhs <= B.sin_theta_bound(c.c_E, c.eta, g, t) * (1 + 1e-9) + 1e-12
                dP = top2.U @ top2.U.T - top.U @ top.U.T
                assert _upper_norm(dP) <= B.projector_sensitivity(c.c_E, c.eta, g, t) * (1 + 1e-9)
                s_log = B.log_row_scale_sensitivity(c.c_E, c.eta, g)
                if math.isfinite(s_log):
                    assert abs(math.log(_row_scale(top2, False)) - math.log(t)) <= s_log * (1 + 1e-9)
                checked += 1
    assert checked > 400


def test_projected_core_sensitivity_entry_and_delta():
    rng = np.random.default_rng(41)
    for trial in range(200):
        n = int(rng.integers(4, 30))
        r = int(rng.integers(1, min(5, n) + 1))
        A = np.eye(n)[:, :r] + rng.choice([0.05, 1.0]) * rng.standard_normal((n, r))
        Bq, _ = np.linalg.qr(A)
        norms = np.sum(Bq ** 2, axis=1)
        o = np.argsort(-norms)
        w = float(rng.uniform(0.1, 2))
        adj = EntryAdjacency(w)
        bound = B.projected_core_sensitivity(adj, Bq)
        for i, j in [(o[0], o[1]), (o[0], o[0]), (o[1], o[1])] + [
                tuple(rng.integers(n, size=2)) for _ in range(5)]:
            E = _entry_E(n, i, j, w * rng.choice([-1, 1]))
            assert _upper_norm(Bq.T @ E @ Bq) <= bound * (1 + 1e-12)
        # general Delta
        E = rng.standard_normal((n, n))
        E = E + E.T
        Delta = math.sqrt(np.abs(E @ E.T).sum())
        assert _upper_norm(Bq.T @ E @ Bq) <= B.projected_core_sensitivity(Delta, Bq) * (1 + 1e-12)


def test_upper_norm_is_frobenius_over_sqrt2():
    """With diagonal_scale sqrt2 the upper-triangle sensitivity is exactly ||E||_F / sqrt2."""
    rng = np.random.default_rng(0)
    D = rng.standard_normal((9, 9))
    D = D + D.T
    assert _upper_norm(D) == pytest.approx(np.linalg.norm(D, "fro") / SQ2, rel=1e-12)


def test_adjacency_constants_table_and_errors():
    c = B.adjacency_constants(EntryAdjacency(0.5), symmetric=True)
    assert (c.eta, c.c_E) == (0.5, pytest.approx(SQ2 * 0.5))
    c = B.adjacency_constants(EntryAdjacency(0.5, symmetric=False), symmetric=False)
    assert (c.eta, c.c_E) == (0.5, 0.5)
    c = B.adjacency_constants(2.0, symmetric=True)
    assert (c.eta, c.c_E) == (2.0, 2.0)
    for bad in (0, -1.0, float("nan"), float("inf"), "x", True):
        with pytest.raises(ValueError, match="adjacency"):
            B.adjacency_constants(bad, symmetric=True)
    for bad in (0, -2.0, float("nan")):
        with pytest.raises(ValueError, match="max_abs"):
            EntryAdjacency(bad)
    with pytest.raises(ValueError, match="symmetric"):
        B.adjacency_constants(EntryAdjacency(1.0, symmetric=False), symmetric=True)
    assert B.log_row_scale_sensitivity(1.0, 1.0, 1.5) == math.inf
    with pytest.raises(ValueError, match="gap_lower"):
        B.projector_sensitivity(1.0, 1.0, 0.5, 1.0)


@pytest.mark.parametrize("which", ["largest", "smallest"])
def test_eigenspace_variant_bounds(which):
    """Cor. 1.6 variant: algebraic order; gap lambda_r - lambda_(r+1) (3.9) obeys the same bounds."""
    rng = np.random.default_rng(51 if which == "largest" else 52)
    for trial in range(20):
        n = int(rng.integers(6, 30))
        r = int(rng.integers(1, 4))
        Q = _orth(n, rng, bool(trial % 2))
        lam = np.sort(rng.uniform(-6, 2, n))[::-1]          # large negative eigenvalues too
        gap = float(rng.choice([0.1, 0.5, 2.0]))
        lam[:r] += gap - (lam[r - 1] - lam[r])              # set the algebraic gap
        if which == "smallest":
            lam = -lam
        M = (Q * lam) @ Q.T
        top = top_subspace(M, r, "symmetric", which)
        g = top.sigma[r - 1] - top.sigma[r]
        assert g == pytest.approx(gap)
        t = _row_scale(top, True)
        U = top.U
        for i, j in _sym_pairs(n, rng, U):
            for w in (gap / 6, gap / 2.2, gap / 1.1):
                E = _entry_E(n, i, j, w * rng.choice([-1, 1]))
                top2 = top_subspace(M + E, r, "symmetric", which)
                g2 = top2.sigma[r - 1] - top2.sigma[r]
                assert abs(g - g2) <= 2 * w * (1 + 1e-9)
                st = _sin_theta_F(U, top2.U)
                assert st <= B.sin_theta_bound(SQ2 * w, w, g, t) * (1 + 1e-9) + 1e-12
                s_log = B.log_row_scale_sensitivity(SQ2 * w, w, g)
                if math.isfinite(s_log):
                    assert abs(math.log(_row_scale(top2, True) / t)) <= s_log * (1 + 1e-9)
