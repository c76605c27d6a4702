"""``certify=True`` (docs/privacy.md 4.13): the released function, its proof, the retries, the
noise's tails and the budget, checked against references that do not go through dpgraph's own
solver.

- ``f(G)`` (``input_sdp_bound``, as ``max_cut`` calls it) lies in ``[SDP(G), SDP(G) + tau]``
  and moves by at most ``1 + tau`` on adjacent inputs, ``SDP`` from closed forms (complete
  graph, star, odd cycle, single edge) or from an independent CVXPY + SCS model built here;
- the proof (``_prove``) near its boundary and with bumps: whenever it succeeds,
  ``lambda_max(Diag(g - E*) - W) <= mu`` by numpy's eigenvalues;
- Rump's margin as checked: at least the constant of Rump's theorem with Rump-Jeannerod's
  bounds, evaluated exactly, and (in practice) that of Rump (2006) with ``gamma``;
- retries (forced failures, rank doubling) change the released value only within its
  interval and leave every draw from the call's generator as it was;
- the one-sided tails behind the 95% and 92.5% claims, computed exactly for the discrete
  sampler (with its grid rounding at its worst);
- ``eps_c = min(10% eps, 2000 / m^)`` with the ``m^`` released before it;
- constants that docs/privacy.md 4.13 states against the code.
"""

import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.engine import as_weight_operator
from dpgraph.privacy import noise as noise_mod
from dpgraph.privacy.budget import (_CERTIFY_CAP, CERTIFY_GAP, CERTIFY_GAP_NODES, CERTIFY_SHARE,
                                    certify_gap)
from dpgraph.private_input import input_graph
from dpgraph.solve import certify as cert

ROOT = Path(__file__).resolve().parents[1]
_U = Fraction(1, 2 ** 53)
_ETA = Fraction(1, 2 ** 1074)


def _dense(G):
    nodes = sorted(G.nodes)
    idx = {v: i for i, v in enumerate(nodes)}
    W = np.zeros((len(nodes), len(nodes)))
    for u, v, w in G.edges(data="weight", default=1.0):
        W[idx[u], idx[v]] = W[idx[v], idx[u]] = w
    return W


def _scs_sdp(W) -> float:
    """``max (1/4) <L, X>``, ``diag X = 1``, ``X`` PSD: a CVXPY model built here from the
    dense weights (not dpgraph's reference helper)."""
    cp = pytest.importorskip("cvxpy")
    if not W.any():
        return 0.0
    n = W.shape[0]
    L = np.diag(W.sum(axis=1)) - W
    X = cp.Variable((n, n), PSD=True)
    prob = cp.Problem(cp.Maximize(0.25 * cp.trace(L @ X)), [cp.diag(X) == 1])
    prob.solve(solver="SCS", eps=1e-10, max_iters=200_000)
    assert prob.status == "optimal"
    return float(prob.value)


def _f(G, rng=0):
    """The released function before noise, as ``max_cut`` computes it."""
    return cert.input_sdp_bound(input_graph(G, weight="weight"), rng=rng)


def _cases():
    """(name, G, exact SDP or None for SCS) and adjacent graphs of each."""
    one = nx.empty_graph(5)
    one.add_edge(0, 1)
    k5 = nx.complete_graph(5)
    star = nx.star_graph(7)                   # bipartite: SDP = total weight
    c7 = nx.cycle_graph(7)
    c7.add_nodes_from([7, 8, 9])              # isolated nodes
    rs = np.random.default_rng(5)
    wt = nx.gnp_random_graph(9, 0.6, seed=8)
    wt.add_nodes_from([9, 10])
    for u, v in wt.edges:
        wt.edges[u, v]["weight"] = float(rs.choice([1e-9, 0.25, 0.5, 0.999999, 1.0]))
    odd = lambda k: k * (1 + math.cos(math.pi / k)) / 2  # noqa: E731
    return [("single edge", one, 1.0), ("K5", k5, 25 / 4), ("star", star, 7.0),
            ("C7 + 3 isolated", c7, odd(7)), ("weighted + isolated", wt, None)]


def _neighbours(G):
    out = []
    non = [e for e in itertools.combinations(sorted(G.nodes), 2) if not G.has_edge(*e)]
    if non:
        H = G.copy()
        H.add_edge(*non[-1], weight=1.0)           # 0 -> 1 (at an isolated node where any)
        out.append(H)
        H = G.copy()
        H.add_edge(*non[0], weight=0.5)            # 0 -> 0.5
        out.append(H)
    edges = sorted(G.edges)
    H = G.copy()
    H.remove_edge(*edges[0])                       # 1 -> 0 (the single edge: to empty)
    out.append(H)
    H = G.copy()
    H.edges[edges[-1]]["weight"] = 0.5             # w -> 0.5
    out.append(H)
    return out


def test_released_function_lies_in_its_interval_and_moves_by_at_most_one_plus_tau():
    tau = CERTIFY_GAP
    for name, G, exact in _cases():
        sdp = exact if exact is not None else _scs_sdp(_dense(G))
        b = _f(G)
        assert b.tau == certify_gap(G.number_of_nodes()) == tau
        # the SCS value is accurate to ~1e-9 here; the exact ones to rounding
        tol = 1e-7 * max(1.0, sdp)
        assert sdp - tol <= b.value <= sdp + tau + tol, name
        for H in _neighbours(G):
            sH = _scs_sdp(_dense(H))
            fH = _f(H, rng=1).value
            assert sH - 1e-7 * max(1.0, sH) <= fH <= sH + tau + 1e-7 * max(1.0, sH), name
            assert abs(b.value - fH) <= 1.0 + tau, name
            assert abs(sdp - sH) <= 1.0 + 1e-7 * max(1.0, sdp), name  # the lemma


def test_the_proof_holds_near_its_boundary_and_with_bumps(monkeypatch):
    """``_prove`` at ``lambda_max(Diag(g) - W) = mu - delta`` for ``delta`` from ``1e-4``
    down to ``-1e-8``, with and without a bump budget: where it succeeds, ``E*_i = max(0, b_i -
    mu + g_i)`` (``b`` the diagonal Rump's check proved) gives ``lambda_max(Diag(g - E*) - W)
    <= mu`` by numpy's eigenvalues, ``sum E* <=`` the reported excess bound; without a budget it
    never succeeds above ``mu``."""
    seen = {}
    real = cert.rump_certified_diagonal
    monkeypatch.setattr(cert, "rump_certified_diagonal",
                        lambda d, c: seen.__setitem__("b", real(d, c)) or seen["b"])
    rs = np.random.default_rng(2)
    G = nx.gnp_random_graph(30, 0.3, seed=1)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(rs.uniform(0.05, 1.0))
    op = as_weight_operator(input_graph(G, weight="weight"))
    W = _dense(G)
    g0 = rs.uniform(-3.0, 0.0, W.shape[0])
    lam0 = np.linalg.eigvalsh(np.diag(g0) - W)[-1]
    mu = 1e-3
    bumped = 0
    for delta in (1e-4, 1e-8, 1e-11, 1e-12, 1e-13, 0.0, -1e-13, -1e-11, -1e-8):
        g = g0 + (mu - delta - lam0)
        for budget in (0.0, 0.01):
            seen.clear()
            ok, info = cert._prove(op, g, mu, budget)
            if budget == 0.0 and delta <= 0.0:
                assert not ok
            if not ok:
                continue
            E = np.maximum(0.0, seen["b"] - mu + g)
            assert np.linalg.eigvalsh(np.diag(g - E) - W)[-1] <= mu + 1e-13
            assert E.sum() <= info["excess_bound"]
            bumped += "bump" in info["method"]
    assert bumped >= 3  # the budget was used where the plain proof fails


def test_rump_margin_as_checked_meets_the_theorem_exactly(monkeypatch):
    """Every margin ``c`` that ``rump_certified_diagonal`` accepts during ``input_sdp_bound``
    satisfies, in exact arithmetic for the diagonal ``b`` it returns (``N`` the order):
    Rump's Cor. 2.4 with Rump-Jeannerod's bounds (ValidSDP's constant, what the code checks),
    ``c >= (N+1)u / (1 - (N+1)u) tr + 4 eta N (2 (N+1) + max b)``, and also the larger
    constant of Rump (2006) itself, ``gamma_{N+1} / (1 - gamma_{N+1}) = (N+1)u / (1 - 2(N+1)u)``,
    which the code does not check but its choice of ``c`` (``gamma_{N+2}``, for a trace at
    least ``sum b``) meets."""
    got = []
    real = cert.rump_certified_diagonal
    monkeypatch.setattr(cert, "rump_certified_diagonal",
                        lambda d, c: got.append((real(d, c), c)) or got[-1][0])
    for G in (nx.petersen_graph(), nx.gnp_random_graph(40, 0.2, seed=3)):
        cert.input_sdp_bound(input_graph(G, weight=None), rng=0)
    accepted = [(b, c) for b, c in got if b is not None]
    assert accepted
    for b, c in accepted:
        N = b.size
        tr = sum(Fraction(float(x)) for x in b)
        tail = 4 * _ETA * N * (2 * (N + 1) + Fraction(float(b.max())))
        k = (N + 1) * _U
        assert Fraction(c) >= k / (1 - k) * tr + tail
        assert Fraction(c) >= k / (1 - 2 * k) * tr + tail


@pytest.mark.parametrize("over", [-1e-9, 1e-9])
def test_the_check_before_release_refuses_a_dual_bound_above_f(monkeypatch, over):
    """A proof that reports its whole room used (``n mu + sum E = 4 tau - R``) plus ``over``
    times ``4 tau``: below, ``_verify`` releases; above, the exact dual bound exceeds ``f = L +
    tau`` and it refuses (a failed attempt, never a release), so ``input_sdp_bound`` raises.
    (Without the final check nothing else would catch a proof step that overshoots.)"""
    G = nx.petersen_graph()
    op = as_weight_operator(input_graph(G, weight=None))
    tau = CERTIFY_GAP
    real = cert._prove

    def overshoot(op, g, mu, budget):
        ok, info = real(op, g, mu, budget)
        return ok, {**info, "excess_bound": info["excess_bound"] + budget + over * 4 * tau}

    V = cert.solve_lowrank_sdp(op, rank=cert.sdp_rank(op.n), tol=1e-10, max_iter=20000,
                               rng=np.random.default_rng(0)).V
    assert cert._verify(op, V, tau)[0]
    monkeypatch.setattr(cert, "_prove", overshoot)
    ok, L, info = cert._verify(op, V, tau)
    assert ok == (over < 0)
    if over > 0:
        assert "dual bound is above" in info["method"]
        with pytest.raises(cert.CertificateError):
            cert.input_sdp_bound(input_graph(G, weight=None), rng=0)


@pytest.mark.parametrize("fails", [1, 3])
def test_retries_change_the_value_only_within_its_interval_and_no_other_draw(monkeypatch,
                                                                              fails):
    """The first ``fails`` verifications are refused (from the third attempt on, the rank
    doubles): the value released is still in ``[SDP, SDP + tau]``, and the screening count,
    the partition, the estimate and the certificate's integer noise are those of the call
    whose first solve verified (the solve draws from its own stream)."""
    G = nx.gnp_random_graph(14, 0.35, seed=4)
    sdp = _scs_sdp(_dense(G))
    real_verify, real_lap = cert._verify, cert.laplace_mechanism

    def run(k):
        calls, drawn = [], {}

        def verify(op, V, tau):
            calls.append(V.shape[1])
            return (False, 0.0, {"method": "refused (test)"}) if len(calls) <= k \
                else real_verify(op, V, tau)

        def lap(value, **kw):
            noisy, b = real_lap(value, **kw)
            p = noise_mod.discrete_laplace_parameters(kw["sensitivity"], kw["epsilon"], 1)
            drawn.update(value=value, z=round(noisy / p["grid"]) - round(value / p["grid"]))
            return noisy, b

        monkeypatch.setattr(cert, "_verify", verify)
        monkeypatch.setattr(cert, "laplace_mechanism", lap)
        res = dpgraph.max_cut(G, epsilon=1.0, delta=0, weight=None, rng=7, certify=True)
        return res, calls, drawn

    base, calls0, d0 = run(0)
    res, calls, d = run(fails)
    assert len(calls0) == 1 and len(calls) == fails + 1
    if fails >= cert.CERTIFY_DOUBLE_FROM:
        assert calls[-1] > calls[0]  # the rank doubled
    for x in (d0["value"], d["value"]):
        assert sdp - 1e-7 * sdp <= x <= sdp + CERTIFY_GAP + 1e-7 * sdp
    assert d["z"] == d0["z"]
    assert res.assignment == base.assignment
    assert res.estimated_value == base.estimated_value
    assert [(e.name, e.epsilon) for e in res.ledger.entries] == \
        [(e.name, e.epsilon) for e in base.ledger.entries]


def _worst_tail(sensitivity, eps, mult, upper):
    """The exact probability, at the worst grid rounding, that the discrete Laplace release
    ``g (rint(f / g) + Z)`` falls below ``f - mult * tail_scale`` (``upper=False``) or above
    ``f + mult * tail_scale`` (``upper=True``): ``P[Z = z]`` proportional to ``r^|z|``,
    ``r = exp(-s / t)``, ``P[Z <= -K] = r^K / (1 + r)`` for ``K >= 1``."""
    p = noise_mod.discrete_laplace_parameters(sensitivity, eps, 1)
    g, t, s, tail = p["grid"], p["t"], p["s"], p["tail_scale"]
    a = mult * tail / g
    # miss below: g (q + Z) < f - a g with g q >= f - g / 2  =>  Z < 1/2 - a
    # miss above: g (q + Z) > f + a g with g q <= f + g / 2  =>  Z > a - 1/2
    # both: |Z| >= K (on the side of the miss) for K = floor(a - 1/2) + 1, by symmetry
    K = max(math.floor(a - 0.5) + 1, 1)
    r = math.exp(-s / t)
    return r ** K / (1 + r)


@pytest.mark.parametrize("eps", [1e-4, 0.02, 0.1, 0.37, 1.0, 5.0])
def test_one_sided_tails_behind_the_95_and_92_5_percent_claims(eps):
    for tau in (CERTIFY_GAP, 1.801):  # up to 4,000 nodes; 14,408 nodes
        # certified_upper_bound = z + b ln 10 misses f(G) with probability <= 5%
        assert _worst_tail(1.0 + tau, eps, math.log(10.0), upper=False) <= 0.05
    # the estimate's lower end (t = b ln 20, sensitivity 1) exceeds the cut w.p. <= 2.5%
    assert _worst_tail(1.0, eps, math.log(20.0), upper=True) <= 0.025
    # ... and the code adds exactly that multiple of the tail scale it was given
    from dpgraph.privacy import PrivacyLedger

    rel = cert.release_certificate(cert.VerifiedBound(50.0, CERTIFY_GAP), epsilon=eps,
                                   m_hat=None, ledger=PrivacyLedger(), rng=1)
    if rel["certified_upper_bound"] > 0.0:
        assert rel["certified_upper_bound"] == pytest.approx(
            rel["noisy_bound"] + rel["scale"] * math.log(10.0), rel=1e-12, abs=1e-12)
    p = noise_mod.discrete_laplace_parameters(1.0 + CERTIFY_GAP, CERTIFY_SHARE * eps, 1)
    assert rel["scale"] == p["tail_scale"] and rel["epsilon"] == CERTIFY_SHARE * eps
    released = {"certified_upper_bound": 10.0, "level": cert.CERTIFY_LEVEL,
                "noisy_bound": 9.0, "scale": 1.0, "epsilon": 0.1, "tau": 0.5}
    res = cert.attach_certificate(
        type("R", (), {"estimate_interval": (5.0, 7.0), "estimate_level": 0.95})(), released)
    assert res.certificate["ratio_level"] == pytest.approx(1 - 0.05 - 0.025)


def test_certificate_epsilon_is_capped_by_the_count_released_before_it(monkeypatch):
    """``eps_c = min(0.1 eps, 2000 / m^)`` with ``m^`` the screening count released earlier
    in the same call: the cap binds at epsilon 10 on about 2,500 edges."""
    from dpgraph.solve import cut as cut_mod

    seen = {}
    real_count, real_release = cut_mod.release_edge_count, cut_mod.release_certificate

    def count(*a, **k):
        seen["m_hat"] = real_count(*a, **k)
        return seen["m_hat"]

    def release(bound, **k):
        seen["passed"] = k["m_hat"]
        return real_release(bound, **k)

    monkeypatch.setattr(cut_mod, "release_edge_count", count)
    monkeypatch.setattr(cut_mod, "release_certificate", release)
    G = nx.gnp_random_graph(100, 0.5, seed=1)
    res = dpgraph.max_cut(G, epsilon=10.0, delta=1e-6, weight=None, rng=3, certify=True)
    names = [e.name for e in res.ledger.entries]
    k = names.index("certified relaxation bound of the input")
    entry = res.ledger.entries[k]
    assert seen["passed"] == seen["m_hat"] > _CERTIFY_CAP / (CERTIFY_SHARE * 10.0)
    assert entry.epsilon == pytest.approx(_CERTIFY_CAP / seen["m_hat"], rel=1e-12)
    assert entry.sensitivity == 1.0 + CERTIFY_GAP
    assert k > 0 and "edge" in names[0].lower()  # the count was charged first
    assert res.ledger.spent[0] <= 10.0 * (1 + 1e-9)


def test_constants_stated_in_section_4_13_are_the_codes():
    text = (ROOT / "docs" / "privacy.md").read_text()
    start = text.index("### 4.13 The certified bound")
    sec = text[start:text.index("### 4.14", start)]
    flat = re.sub(r"\s+", " ", sec)
    assert f"max({CERTIFY_GAP:g}, n / {CERTIFY_GAP_NODES:.0f})" in flat
    assert f"min(CERTIFY_SHARE eps, {_CERTIFY_CAP:.0f} / m^)" in flat
    assert CERTIFY_SHARE == 0.1 and "10% of epsilon" in flat
    assert cert.CERTIFY_TOLERANCES == (1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12)
    assert "`1e-7, 1e-8, ..., 1e-12`" in flat
    assert cert.BUMP_SHARE == 1 / 8 and "`(4 tau - R) / 8`" in flat
    assert cert.BUMP_PANEL == 1024 and "1,024 columns" in flat
    # the smallest bump: the budget over BUMP_COUNT, ((4 tau - R) / 8) / 64
    assert cert.BUMP_COUNT == 64 and "at least `(4 tau - R) / 512`, about `tau / 128`" in flat
    assert f"`CERTIFY_MAX_SECONDS = {cert.CERTIFY_MAX_SECONDS:.0f}`" in flat
    largest = int((cert.CERTIFY_MAX_SECONDS * cert.CHOLESKY_FLOPS) ** (1 / 3))
    assert f"up to {largest:,} nodes" in flat
    assert cert.CERTIFY_LEVEL == 0.95 and "z + b ln 10" in flat and "92.5%" in flat
    # 0.075% of m^: the scale (1 + tau) m^ / 2000 at tau = 0.5
    assert (1 + CERTIFY_GAP) / _CERTIFY_CAP == pytest.approx(0.00075)
