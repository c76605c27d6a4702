"""The certified bounds contain their own floating-point arithmetic (docs/privacy.md 4.13,
"Rounding"): the returned float is at least the exact value of the bound's formula, evaluated
in rational arithmetic (``fractions.Fraction``) from the very floats the certificate used, and
at least the brute-force optimum.

The instances are small (n <= 8, so that exact positive-definiteness checks and brute force
are cheap) with weights spanning up to 24 orders of magnitude and both signs: there the float
sums the certificate forms (``T = sum W``, ``sum g``, ``n mu``, the matrix ``-W - nu J``) round
by whole units of the small weights. Before the allowances, the returned Max-Cut bound fell
below the exact value of its own formula on 272 of 600 such instances (never below the
brute-force cut: Rump's margin and the solver's gap are far larger), the private
certificate's ``L`` above the exact value of its feasible point on 199 of 300 weighted graphs,
and the trivial bound of an operator with self-loops below its exact value on 218 of 600.
"""
import itertools
from decimal import Decimal, getcontext
from fractions import Fraction as F

import numpy as np
import pytest
import scipy.sparse as sp

from dpgraph.engine import as_weight_operator, certify_upper_bound, solve_lowrank_sdp
from dpgraph.engine.twocsp import (CSPInstance, _certify_csp, _csp_dual_matrix,
                                   csp_moment_constraints, solve_max_2csp)
from dpgraph.engine.sdp import (rump_certified_diagonal, rump_margin, trivial_upper_bound,
                                upward_sum, verified_lambda_max, weight_sums)


def _random_weights(rng, n, spread, density=0.7):
    """Exactly symmetric, zero diagonal, signed weights |w| in [10^-spread, 10^spread]."""
    W = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < density:
                W[i, j] = W[j, i] = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-spread, spread)
    return W


def _dual_vector(op, V, nu=0.0, balance=False):
    """``g`` exactly as the certificate computes it (rows normalised, ``(W + nu J) V . V``)."""
    V = np.asarray(V, dtype=np.float64)
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    nrm[nrm == 0] = 1.0
    V = V / nrm[:, None]
    WV = op.matmul(V)
    if balance:
        WV = WV + nu * V.sum(axis=0)[None, :]
    return np.einsum("ij,ij->i", WV, V)


def _fr(M):
    return [[F(float(x)) for x in row] for row in np.asarray(M)]


def _exact_pd(A) -> bool:
    """Positive definiteness of a symmetric rational matrix: every Gaussian pivot positive."""
    A = [row[:] for row in A]
    n = len(A)
    for k in range(n):
        if A[k][k] <= 0:
            return False
        for i in range(k + 1, n):
            f = A[i][k] / A[k][k]
            if f:
                for j in range(k + 1, n):
                    A[i][j] -= f * A[k][j]
    return True


def _brute_force(W, balanced=False) -> F:
    """The maximum cut (or bisection) of the symmetric part of W, exactly (integers)."""
    n = W.shape[0]
    Ws = [[(F(float(W[i, j])) + F(float(W[j, i]))) / 2 for j in range(n)] for i in range(n)]
    den = 1
    for row in Ws:
        for x in row:
            den = max(den, x.denominator)  # powers of two: the largest is a common multiple
    Wi = [[int(x * den) for x in row] for row in Ws]
    best = None
    for mask in range(1 << (n - 1)):
        side = [(mask >> i) & 1 for i in range(n)]
        if balanced and abs(2 * sum(side) - n) > 1:
            continue
        val = sum(Wi[i][j] for i in range(n) for j in range(i + 1, n) if side[i] != side[j])
        best = val if best is None or val > best else best
    return F(best, den)


def _check_cut_certificate(W, V, *, nu=0.0, balance=False, sparse_input=False):
    op = as_weight_operator(sp.csr_array(W) if sparse_input else W)
    n = op.n
    ub, info = certify_upper_bound(op, V, nu=nu, balance=balance, method="factor", rng=0)
    if info["certificate"] == "exact (no edges)":  # no dual formula: the optimum itself
        assert ub == 0.0 == _brute_force(W, balanced=balance) and not np.any(W - np.diag(W.diagonal()))
        return ub, info
    g = _dual_vector(op, V, nu, balance)
    b = n % 2 if balance else 0
    mu = F(float(info["lambda_max_bound"]))
    Wf = _fr(W)
    T = sum(Wf[i][j] for i in range(n) for j in range(n) if i != j)
    exact_dual = (T - sum(F(float(x)) for x in g) + (F(nu) * b if balance else 0) + n * mu) / 4
    dual = info.get("dual_bound", ub)  # the dual bound, also where the trivial cap is lower
    assert F(dual) >= exact_dual, (dual, float(exact_dual))
    A = sum(abs(Wf[i][j]) for i in range(n) for j in range(n) if i != j)
    assert F(ub) >= min(exact_dual, (T + A) / 4)
    assert F(ub) >= _brute_force(W, balanced=balance)
    if info["certificate"].startswith(("cholesky", "trivial (below the cholesky")):
        # the eigenvalue statement, exactly: (mu + allowance) I - M_s is positive definite
        # for the exact M_s = Diag(g) - (W + W^T) / 2 - nu J (||E||_2 <= sum_ij |E_ij|)
        shift = mu + F(float(info.get("matrix_allowance", 0.0)))
        nuf = F(nu) if balance else F(0)
        Ms = [[(F(float(g[i])) if i == j else 0) - (Wf[i][j] + Wf[j][i]) / 2 - nuf
               for j in range(n)] for i in range(n)]
        assert _exact_pd([[(shift if i == j else 0) - Ms[i][j] for j in range(n)]
                          for i in range(n)])
    return ub, info


@pytest.mark.parametrize("spread", [0, 6, 12])
def test_maxcut_bound_dominates_its_exact_formula_and_the_optimum(spread):
    """Random small signed graphs, weights spanning 10^-spread .. 10^spread, random and
    solved factors V, dense and sparse input: the returned bound is at least the exact
    rational value of (T - sum g + n mu) / 4 from the floats used, and at least the
    brute-force maximum cut; the proven eigenvalue statement holds exactly."""
    rng = np.random.default_rng(100 + spread)
    for trial in range(60):
        n = int(rng.integers(2, 9))
        W = _random_weights(rng, n, spread)
        if trial % 2:
            V = rng.standard_normal((n, 3))
        else:
            V = solve_lowrank_sdp(as_weight_operator(W), rng=trial, max_iter=300).V
        _check_cut_certificate(W, V, sparse_input=bool(trial % 3 == 0))


def test_maxcut_bound_dominates_on_mixed_magnitude_rows():
    """The adversarial case of the unguarded sum: rows with one weight of 2^53 and units
    beside it, so that every degree and ``sum(d - g)`` drops the units. The returned bound
    still dominates its exact formula (before the allowances it fell short of it on 19 of
    these 40 instances, by up to 2.08)."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(3, 8))
        W = _random_weights(rng, n, 0.3, density=0.9)
        i, j = rng.choice(n, 2, replace=False)
        W[i, j] = W[j, i] = float(2 ** 53) * rng.choice([-1.0, 1.0])
        V = rng.standard_normal((n, 2)) if trial % 2 else np.sign(rng.standard_normal((n, 1)))
        _check_cut_certificate(W, V)


@pytest.mark.parametrize("spread", [0, 8])
def test_bisection_bound_dominates_its_exact_formula_and_the_optimum(spread):
    """Max-Bisection with a multiplier of either sign (the dense matrix ``-W - nu J`` is then
    formed with rounding: the matrix allowance covers it)."""
    rng = np.random.default_rng(200 + spread)
    for trial in range(40):
        n = int(rng.integers(2, 9))
        W = _random_weights(rng, n, spread)
        V = rng.standard_normal((n, 3))
        nu = float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-3, 3) * max(1.0, abs(W).max()))
        _check_cut_certificate(W, V, nu=nu, balance=True)


def test_asymmetric_input_is_charged_its_asymmetry():
    """A sparse matrix symmetric only to 1e-13 (the input check allows 1e-12): the dense
    Cholesky reads one triangle, the bound adds sum_{i<j} |W_ij - W_ji|, and the exact
    statement about the symmetric part holds."""
    rng = np.random.default_rng(5)
    for trial in range(20):
        n = int(rng.integers(3, 8))
        W = _random_weights(rng, n, 0, density=1.0)
        E = np.triu(rng.uniform(-1e-13, 1e-13, (n, n)), 1)
        W = W + E  # upper triangle perturbed only
        exact = sum(abs(F(float(W[i, j])) - F(float(W[j, i])))
                    for i in range(n) for j in range(i + 1, n))
        for sparse_input in (True, False):
            s = weight_sums(as_weight_operator(sp.csr_array(W) if sparse_input else W),
                            asymmetry=True)
            assert F(s.asym) >= exact > 0
            _, info = _check_cut_certificate(W, rng.standard_normal((n, 2)),
                                             sparse_input=sparse_input)
            assert info["matrix_allowance"] >= s.asym


def test_weight_sums_and_trivial_bound_are_rigorous():
    """``weight_sums``: |T - total| <= total_err, sum |W| <= abs_total, exactly; the trivial
    bound is at least (T + sum |W|) / 4 exactly, on rows that cancel catastrophically."""
    from dpgraph.engine import WeightOperator

    rng = np.random.default_rng(11)
    for trial in range(50):
        n = int(rng.integers(2, 300 if trial % 10 == 0 else 40))  # several 256-tiles
        W = _random_weights(rng, n, 16, density=0.7 if n < 40 else 0.1)
        loops = W + np.diag(rng.uniform(-1e17, 1e17, n))  # self-loops: no cut counts them
        off = [F(float(x)) for x in W[~np.eye(n, dtype=bool)] if x != 0]
        T, A = sum(off), sum(abs(x) for x in off)
        for op in (as_weight_operator(W), as_weight_operator(sp.csr_array(W)),
                   WeightOperator(loops, range(n)), WeightOperator(sp.csr_array(loops), range(n))):
            s = weight_sums(op)
            assert abs(T - F(s.total)) <= F(s.total_err)
            assert F(s.abs_total) >= A
            assert F(trivial_upper_bound(op)) >= (T + A) / 4
    assert upward_sum([1.0, 2.0 ** -60]) > 1.0 and upward_sum([0.5, 0.25]) >= 0.75


def test_verified_lambda_max_is_exactly_proven_on_badly_scaled_diagonals():
    """The diagonal actually factorised, ``fl(fl(mu - c) - S_ii)``, is rounded to nearest;
    the returned bound is recomputed from it (Rump's theorem needs the exact inequality):
    ``mu' I - S`` is positive definite in exact arithmetic, with diagonals of 10^12 and
    off-diagonal entries of 10^-3."""
    rng = np.random.default_rng(3)
    for trial in range(30):
        n = int(rng.integers(2, 8))
        X = rng.standard_normal((n, n)) * 10.0 ** rng.uniform(-3, 3)
        S = 0.5 * (X + X.T)
        S[np.diag_indices(n)] = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(0, 12, n)
        top = float(np.linalg.eigvalsh(S)[-1])
        mu, c = verified_lambda_max(S.copy(), top)
        assert c > 0 and _exact_pd([[(F(mu) if i == j else 0) - F(float(S[i, j]))
                                     for j in range(n)] for i in range(n)])


def test_rump_certified_diagonal_checks_the_margin_exactly():
    d = np.array([1.0, 3.0, 1e-300, 7.5e12])
    c = rump_margin(4, 2 * float(d.sum()))
    b = rump_certified_diagonal(d, c)
    assert all(F(float(bi)) >= F(float(di)) + F(c) for bi, di in zip(b, d))
    assert rump_certified_diagonal(d, 0.5 * rump_margin(4, float(d.sum()))) is None
    assert rump_certified_diagonal(np.array([1.0, -3.0]), 1e-20) is None  # b < 0: no proof


def test_label_certificate_dominates_its_exact_formula_and_allowance_covers_the_matrix():
    """2-CSP: ``S = T^T C T - Lambda`` is formed by sparse products and a subtraction; the
    reported ``matrix_allowance`` is at least sum_ij |S_float - S_exact| (exact rational
    products), plus the asymmetry for the dense route, and the bound is at least the exact
    ``lambda_00 + (n + 1) max(mu, 0)``."""
    from dpgraph.engine.twocsp_sdp import (_LabelOp, _dual_matrix, _fit_multipliers,
                                           _reduced_objective, _reduction, certify_label_sdp,
                                           solve_label_sdp)

    rng = np.random.default_rng(9)
    for trial in range(6):
        n, q = int(rng.integers(2, 5)), int(rng.integers(2, 4))
        N = n * q
        A = np.zeros((N, N))
        for i in range(n):
            for j in range(i + 1, n):
                if rng.random() < 0.8:
                    blk = rng.choice([-1.0, 1.0], (q, q)) * 10.0 ** rng.uniform(-6, 6, (q, q))
                    A[i * q:(i + 1) * q, j * q:(j + 1) * q] = blk
                    A[j * q:(j + 1) * q, i * q:(i + 1) * q] = blk.T
        A = sp.csr_array(A)
        V = solve_label_sdp(A, n, q, rng=trial, max_iter=200).V
        op = _LabelOp(A, n, q)
        Cr = _reduced_objective(op)
        lam = _fit_multipliers(Cr, V)
        S = _dual_matrix(Cr, n, q, *lam)
        T = _reduction(n, q).toarray()
        Af = _fr(A.toarray())
        Nr = T.shape[1]
        C = [[F(0)] * (N + 1)] + [[F(0)] + [x / 2 for x in row] for row in Af]
        TC = [[sum(F(int(T[x, a])) * C[x][y] for x in range(N + 1) if T[x, a]) for y in range(N + 1)]
              for a in range(Nr)]
        Cr_exact = [[sum(TC[a][y] * int(T[y, bb]) for y in range(N + 1) if T[y, bb])
                     for bb in range(Nr)] for a in range(Nr)]
        lam00, lam_diag, lam_off = lam
        r = q - 1
        Lx = [[F(0)] * Nr for _ in range(Nr)]
        Lx[0][0] = F(lam00)
        for i in range(n):
            for a in range(r):
                ia = 1 + i * r + a
                Lx[ia][ia] = F(float(lam_diag[i, a]))
                Lx[0][ia] = Lx[ia][0] = F(float(-0.5 * lam_diag[i, a]))
                for bb in range(r):
                    if bb != a:
                        Lx[ia][1 + i * r + bb] = F(float(0.5 * lam_off[i, a, bb]))
        Sf = _fr(S.toarray())
        err = sum(abs(Sf[a][bb] - (Cr_exact[a][bb] - Lx[a][bb])) for a in range(Nr) for bb in range(Nr))
        skew = sum(abs(Sf[a][bb] - Sf[bb][a]) for a in range(Nr) for bb in range(a + 1, Nr))
        for method in ("factor", "ldl"):
            ub, info = certify_label_sdp(A, V, method=method, rng=0)
            allowance = F(info["matrix_allowance"])
            assert allowance >= err + (skew if method == "factor" else 0)
            mu = F(float(info["lambda_max_bound"]))
            assert F(ub) >= F(info["dual_base"]) + (n + 1) * max(mu, F(0)) + allowance


def _feasible_value(W, V):
    """(1/4) sum_{i != j} W_ij (1 - X_ij) for X_ij = v_i . v_j / (|v_i| |v_j|), the float rows
    the private certificate forms (V's rows divided by their float norms) normalised exactly,
    in 80-digit decimal arithmetic (a square root: not rational)."""
    getcontext().prec = 80
    n = W.shape[0]
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    nrm[nrm == 0] = 1.0
    Vd = [[Decimal(float(x)) for x in row] for row in V / nrm[:, None]]
    s = [sum(x * x for x in row).sqrt() for row in Vd]
    tot = Decimal(0)
    for i in range(n):
        for j in range(n):
            if i != j and W[i, j] != 0:
                x = sum(a * b for a, b in zip(Vd[i], Vd[j])) / (s[i] * s[j])
                tot += Decimal(float(W[i, j])) * (1 - x)
    return tot / 4


def test_private_certificate_value_is_proven_on_both_sides():
    """The private certificate releases f = L + tau with SDP <= f <= SDP + tau
    (docs/privacy.md 4.13): ``L`` is at most the exact value of a feasible point (before the
    allowance the float ``(sum d - sum g) / 4`` exceeded it on two thirds of such graphs, by
    up to 4e-15), ``f`` is at most ``L + tau`` exactly, and the dual bound, recomputed in
    rationals from the proof's floats, is at most ``f`` and at least the brute-force cut."""
    import networkx as nx

    import dpgraph.solve.certify as cert

    rng = np.random.default_rng(0)
    tau = 0.5
    for trial in range(40):
        n = int(rng.integers(4, 11))
        G = nx.gnp_random_graph(n, 0.6, seed=trial)
        for u, v in G.edges:
            G[u][v]["weight"] = float(rng.uniform(0.01, 1.0))
        if G.number_of_edges() == 0:
            continue
        op = as_weight_operator(G)
        V = solve_lowrank_sdp(op, rank=3, tol=1e-12, max_iter=3000, rng=trial).V
        ok, L, info = cert._verify(op, V, tau)
        W = op.to_dense()
        assert Decimal(L) <= _feasible_value(W, V)
        assert ok, info
        f = cert._released_value(L, tau)
        assert F(f) <= F(L) + F(tau)
        g = _dual_vector(op, V)
        Wf = _fr(W)
        T = sum(Wf[i][j] for i in range(n) for j in range(n) if i != j)
        dual = (T - sum(F(float(x)) for x in g) + n * F(info["lambda_max_bound"])
                + F(info["excess_bound"])) / 4
        assert _brute_force(W) <= dual <= F(f)


# ----------------------------------------------------------------------------- more certificates
# The same for the other certificates: the returned float is at least the exact value of its
# formula, evaluated in rational arithmetic from the very floats used, and the eigenvalue
# statement holds exactly.
#
# * The ``method="scs"`` 2-CSP certificate (:func:`dpgraph.engine.twocsp._certify_csp`): its
#   dual matrix ``S`` is formed in floating point from float multipliers (``cobj - A^T lam``,
#   ``+ max(z, 0)``, halved off the diagonal) and ``cobj`` itself holds float sums of the weights
#   of repeated constraints; the bound ``b^T lam + (n + 1) mu`` was a float expression. Before
#   the allowance the returned bound fell below the exact ``b^T lam + (n + 1) mu + sum |S -
#   S_exact|`` on 33 of the 50 random instances of the first test (below the exact value of
#   ``b^T lam + (n + 1) mu`` alone, its own float formula, on 21).
# * The factor form's structured eigenvalue bound
#   (:meth:`dpgraph.release.factor_graph.LowRankOperator.lambda_max_bound`), proven by a
#   ``k x k`` Cholesky with Rump's margin instead of bisection plus a margin of 1e-9 of the
#   scale (no instance was found where that margin fell short; it was 1e-9 of the scale above
#   LAPACK's value, where the proof is now within 1e-9 of it), and the engine's float total
#   weight of a factor form, whose rounding ``tau`` the bound now carries.



def _certificate(mom, n, lam, z, inst):
    """``(ub, mu, S, allowance)`` of the 2-CSP certificate for the multipliers ``lam, z``."""
    ub, mu, parts = _certify_csp(mom, n, lam, z, inst=inst)
    S, allowance, _ = _csp_dual_matrix(mom, lam, z, inst)
    assert parts["matrix_allowance"] == allowance
    return ub, mu, S, allowance


def _random_csp(rng, n, q, m, spread, repeats=True):
    """Random constraints with weights spanning 10^-spread .. 10^spread; with ``repeats``
    some pairs carry several constraints (also in the reverse order), whose weights the
    moment relaxation sums in floating point."""
    cons = []
    for _ in range(m):
        i, j = (int(x) for x in rng.choice(n, 2, replace=False))
        R = rng.random((q, q)) < 0.6
        R[rng.integers(q), rng.integers(q)] = True
        w = float(10.0 ** rng.uniform(-spread, spread))
        cons.append((i, j, R, w))
        if repeats and rng.random() < 0.5:
            cons.append((j, i, R.T.copy(), float(w * 10.0 ** rng.uniform(-17, -1))))
    return CSPInstance(n, q, cons)


def _exact_objective(inst, mom):
    """The exact objective coefficient of every moment entry (rational sums of the weights)."""
    n, q = inst.n, inst.q
    index = {(int(r), int(c)): e for e, (r, c) in enumerate(zip(mom.er, mom.ec))}
    cobj = [F(0)] * len(index)
    I, J, R, Wt = inst._arrays
    for c in range(len(I)):
        for a in range(q):
            for b in range(q):
                if R[c, a, b]:
                    r, s = 1 + int(I[c]) * q + a, 1 + int(J[c]) * q + b
                    cobj[index[(min(r, s), max(r, s))]] += F(float(Wt[c]))
    return cobj


def _csp_brute_force(inst) -> F:
    I, J, R, Wt = inst._arrays
    best = None
    for x in itertools.product(range(inst.q), repeat=inst.n):
        v = sum((F(float(Wt[c])) for c in range(len(I)) if R[c, x[I[c]], x[J[c]]]), F(0))
        best = v if best is None or v > best else best
    return best


def _check_csp_certificate(inst, lam, z):
    mom = csp_moment_constraints(inst)
    n, N = inst.n, mom.N
    ub, mu, S, allowance = _certificate(mom, n, lam, z, inst)
    # the exact dual matrix S* of the float multipliers and the exact objective
    A = mom.A.tocsc()
    cobj = _exact_objective(inst, mom)
    zplus = {int(e): F(float(max(zz, 0.0))) for e, zz in zip(mom.nonneg, z)}
    Sx = [[F(0)] * N for _ in range(N)]
    for e, (r, c) in enumerate(zip(mom.er, mom.ec)):
        col = slice(A.indptr[e], A.indptr[e + 1])
        coef = cobj[e] - sum((F(float(a)) * F(float(lam[k]))
                              for a, k in zip(A.data[col], A.indices[col])), F(0))
        coef += zplus.get(e, F(0))
        if r == c:
            Sx[r][r] = coef
        else:
            Sx[r][c] = Sx[c][r] = coef / 2
    Sf = [[F(float(x)) for x in row] for row in S]
    err = sum(abs(Sf[i][j] - Sx[i][j]) for i in range(N) for j in range(N))
    skew = sum(abs(Sf[i][j] - Sf[j][i]) for i in range(N) for j in range(i + 1, N))
    assert F(allowance) >= err + skew, (allowance, float(err + skew))
    # mu I - S (its lower triangle reflected, as the Cholesky read it) is positive definite
    muf = F(float(mu))
    assert _exact_pd([[(muf if i == j else 0) - Sf[max(i, j)][min(i, j)] for j in range(N)]
                      for i in range(N)])
    # the bound dominates the exact b^T lam + (n + 1) mu + allowance, and the optimum
    blam = sum((F(float(b)) * F(float(x)) for b, x in zip(mom.b, lam)), F(0))
    assert F(ub) >= blam + (n + 1) * muf + F(allowance), (ub, float(blam + (n + 1) * muf))
    assert F(ub) >= _csp_brute_force(inst)
    return ub, mu, allowance, err


@pytest.mark.parametrize("spread", [0, 6])
def test_csp_bound_dominates_its_exact_formula_for_any_multipliers(spread):
    """Random multipliers of mixed magnitudes (any multipliers give a valid bound; negative
    z is dropped): the reported allowance is at least sum_ij |S_float - S_exact| for the exact
    dual matrix of the exact objective, mu I - S is positive definite exactly, and the bound
    is at least b^T lam + (n + 1) mu + allowance exactly (mu of either sign: the trace of a
    feasible moment matrix is exactly n + 1) and at least the brute-force optimum."""
    rng = np.random.default_rng(300 + spread)
    negative = 0
    for trial in range(25):
        n, q = int(rng.integers(2, 5)), int(rng.integers(2, 4))
        inst = _random_csp(rng, n, q, int(rng.integers(1, 6)), spread)
        mom = csp_moment_constraints(inst)
        lam = rng.standard_normal(len(mom.b)) * 10.0 ** rng.uniform(-8, 8, len(mom.b))
        z = rng.standard_normal(mom.nonneg.size) * 10.0 ** rng.uniform(-8, 2, mom.nonneg.size)
        if trial % 2:  # a negative definite S: large multipliers of Y_00 = 1, Y_ia,ia = Y_0,ia
            big = 10.0 ** rng.uniform(10, 12)  # above the other multipliers (<= 1e8 or so)
            diag_rows = np.flatnonzero(np.asarray((mom.A < 0).sum(axis=1)).ravel())  # -Y_0,ia
            lam[diag_rows] = big * rng.uniform(1, 2, diag_rows.size)
            lam[0] = big * n * q
        _, mu, _, _ = _check_csp_certificate(inst, lam, z)
        negative += mu < 0
        assert mu < 0 or not trial % 2
    assert negative  # some duals have lambda_max < 0: no max(mu, 0) is needed or used


def test_csp_bound_with_solver_duals_is_rigorous_and_tight():
    """SCS's duals on instances with repeated constraints (weights 1 and 1e-17 .. 1e-1 of it
    on one pair: their float sum drops the small ones): the allowance covers the exact
    objective too, and the bound stays within 1e-6 of the relaxation value."""
    pytest.importorskip("cvxpy")
    from dpgraph.engine.twocsp import cvxpy_max_2csp_sdp

    rng = np.random.default_rng(17)
    for trial in range(4):
        n, q = int(rng.integers(2, 5)), int(rng.integers(2, 4))
        inst = _random_csp(rng, n, q, int(rng.integers(2, 6)), 0)
        value, _, _, _, (mom, lam, z) = cvxpy_max_2csp_sdp(inst, eps=1e-9, return_duals=True)
        ub, _, allowance, err = _check_csp_certificate(inst, lam, z)
        assert 0 < allowance < 1e-12 * max(1.0, abs(value)) and err > 0
        assert ub == pytest.approx(value, rel=1e-6)


def test_scs_solve_reports_its_certificate_parts():
    """``solve_max_2csp(method="scs")``: the certificate's Rump margin and matrix allowance
    are in ``info`` (weight units), and the bound is above the brute-force optimum."""
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(5)
    inst = _random_csp(rng, 4, 3, 6, 1)
    res = solve_max_2csp(inst, method="scs", rng=0, scs_eps=1e-8)
    assert res.info["certificate"] == "cholesky-verified"
    assert res.info["matrix_allowance"] > 0 and res.info["rump_margin"] > 0
    assert F(res.upper_bound) >= _csp_brute_force(inst)


# ----------------------------------------------------------------------------- factor form


def _exact_matrix(U, K, g, nu):
    """``Diag(g) - W_off - nu J`` for ``W = U K U^T`` in rationals, and ``T = sum W_off``."""
    n, k = U.shape
    Uf = [[F(float(x)) for x in row] for row in U]
    Kf = [[F(float(x)) for x in row] for row in K]
    UK = [[sum(Uf[i][a] * Kf[a][b] for a in range(k)) for b in range(k)] for i in range(n)]
    W = [[sum(UK[i][b] * Uf[j][b] for b in range(k)) for j in range(n)] for i in range(n)]
    M = [[(F(float(g[i])) if i == j else -W[i][j]) - F(nu) for j in range(n)] for i in range(n)]
    T = sum(W[i][j] for i in range(n) for j in range(n) if i != j)
    return M, T


def _check_structured(U, K, g, nu, *, tight=1e-6, magnitude=1.0):
    """The structured bound, exactly: ``(mu - tau / n) I - M`` is positive definite for the
    exact M and ``tau >= |T_float - T|`` (the part of mu that covers the engine's float total);
    mu within ``tight`` of the scale above LAPACK's top eigenvalue, or where that lies below
    ``max a`` (``a = g + diag(W)``, the search starts there), above ``max a``; the scale is
    at least ``magnitude``."""
    from dpgraph.release.factor_graph import LowRankOperator, _total_allowance

    n = U.shape[0]
    op = LowRankOperator(U, K, tuple(range(n)))
    mu, info = op.lambda_max_bound(g, nu)
    tau = _total_allowance(op)
    M, T = _exact_matrix(U, op.W.K, g, nu)
    assert abs(F(float(op.total)) - T) <= F(tau)
    shift = F(mu) - F(tau) / n
    assert _exact_pd([[(shift if i == j else 0) - M[i][j] for j in range(n)] for i in range(n)])
    top = float(np.linalg.eigvalsh(np.diag(g) - op.to_dense() - nu)[-1])
    a_max = float(np.max(g + op.diag))
    scale = max(magnitude, abs(top), abs(a_max))
    assert mu - max(top, a_max) <= tight * scale, (mu, top, a_max, info)
    if top > a_max + tight * scale:  # the k x k proof, not Gershgorin's fallback
        assert info["structured_proof"] == "k x k cholesky"
    return mu, top


@pytest.mark.parametrize("nu", [0.0, 0.7, -0.3])
def test_structured_bound_is_proven_exactly(nu):
    """Random factor forms of small order with factors spanning 10^-4 .. 10^4: the bound is
    at least lambda_max in exact arithmetic (with the diagonal ``diag(U K U^T)``, which the
    float ``g + diag`` rounds, exact) and within 1e-9 of the scale above LAPACK's value."""
    rng = np.random.default_rng(400 + int(10 * nu))
    for trial in range(12):
        n, k = int(rng.integers(3, 8)), int(rng.integers(1, 4))
        U = rng.standard_normal((n, k)) * 10.0 ** rng.uniform(-2, 2, (n, 1))
        X = rng.standard_normal((k, k))
        K = (X + X.T) * 10.0 ** rng.uniform(-2, 2)
        g = rng.standard_normal(n) * 10.0 ** rng.uniform(-1, 1)
        _check_structured(U, K, g, nu, tight=1e-9)


def test_structured_bound_against_dense_eigenvalues():
    """Orders 100 to 400, ranks up to 6, either sign of nu: above LAPACK's top eigenvalue of
    the dense matrix (to its own accuracy) and within 1e-9 of the scale (the former bisection
    plus margin was 1e-9 of the scale above)."""
    from dpgraph.release.factor_graph import LowRankOperator

    rng = np.random.default_rng(41)
    for trial in range(9):
        n, k = int(rng.choice([100, 250, 400])), int(rng.integers(1, 7))
        nu = [0.0, 0.7, -0.3][trial % 3]
        U = rng.standard_normal((n, k)) * 5.0 / np.sqrt(n)
        X = rng.standard_normal((k, k))
        op = LowRankOperator(U, X + X.T, tuple(range(n)))
        g = rng.standard_normal(n) * 0.3 + float(rng.uniform(-1, 1))
        mu, info = op.lambda_max_bound(g, nu)
        top = float(np.linalg.eigvalsh(np.diag(g) - op.to_dense() - nu)[-1])
        scale = max(1.0, abs(top))
        assert info["structured_proof"] == "k x k cholesky"
        assert top - 1e-12 * scale <= mu <= top + 1e-9 * scale, (mu, top)


def test_structured_bound_on_near_singular_factors():
    """Rank-deficient and ill-conditioned factors, proven exactly and tight: U with two equal
    columns; nu != 0 with U's first column all ones (F = [U, 1] has two equal columns); two
    nearly parallel columns of size 10^4 with K = diag(1, -1), so that W = U K U^T is a small
    difference of terms of 10^8 (a float H = F^T Diag(w) F cannot resolve it: the bound comes
    from the QR factor of F); and K positive semidefinite, where lambda_max sits at max(a)."""
    rng = np.random.default_rng(43)
    for trial in range(6):
        n = int(rng.integers(4, 8))
        x = rng.standard_normal(n)
        U = np.column_stack([x, x, rng.standard_normal(n)])  # equal columns
        X = rng.standard_normal((3, 3))
        _check_structured(U, X + X.T, rng.standard_normal(n), 0.0)
        U1 = np.column_stack([np.ones(n), rng.standard_normal(n)])  # the ones column twice
        _check_structured(U1, np.array([[-1.5, 0.3], [0.3, 0.8]]), rng.standard_normal(n), 1.5)
        b = 10.0 ** rng.uniform(3.5, 4.5)
        bp = b * (1.0 - 10.0 ** rng.uniform(-14, -11))
        c = rng.uniform(-1, 1, n)
        U2 = np.column_stack([c, c * (b / bp)])
        U2[0] = [b, bp]
        g = rng.uniform(-1, -0.5, n)
        g[0] = 0.5
        _check_structured(U2, np.diag([1.0, -1.0]), g, 0.0, tight=1e-13, magnitude=b * b)
        _check_structured(rng.standard_normal((n, 2)), np.diag([1.0, 0.0]),
                          rng.standard_normal(n), 0.0)
