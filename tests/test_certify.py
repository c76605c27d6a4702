"""``certify=True``: the private upper bound on the input's maximum cut (docs/privacy.md 4.13).

The released function ``f(G)`` is checked on adjacent inputs against its sensitivity ``1 + tau``
and against the exact relaxation (CVXPY + SCS, or a bipartite graph whose relaxation equals its
edge count); the upper end's quantile, the coverage of the bound and of the ratio (brute-force
maximum cut, fixed seeds), the ledger and the refusals are checked on the public API.
"""

import itertools
import math

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.budget import CERTIFY_GAP, CERTIFY_SHARE, certify_budget, certify_gap
from dpgraph.solve import certify as cert
from dpgraph.solve.certify import input_sdp_bound, release_certificate

TAU = CERTIFY_GAP  # tau at the small n of these tests


def _f(G):
    bound = input_sdp_bound(as_graph_data(G, weight="weight"), rng=0)
    assert bound.tau == certify_gap(G.number_of_nodes()) == TAU
    return bound.value


def _sdp(G):
    from dpgraph.engine import cvxpy_max_cut_sdp

    value, _, _, status = cvxpy_max_cut_sdp(G, eps=1e-9)
    assert status == "optimal"
    return value


def _adjacent_pairs():
    """(G, G') pairs one pair apart: worst cases of 4.13's lemma."""
    pairs = []
    G = nx.gnp_random_graph(18, 0.3, seed=4)
    v = min(G.nodes, key=G.degree)  # an edge at a minimum-degree vertex
    u = next(w for w in G.nodes if w != v and not G.has_edge(v, w))
    H = G.copy()
    H.add_edge(u, v)
    pairs.append((G, H))
    H = G.copy()  # an edge removed between two high-degree vertices
    a, b = max(G.edges, key=lambda e: G.degree(e[0]) + G.degree(e[1]))
    H.remove_edge(a, b)
    pairs.append((G, H))
    W = nx.gnp_random_graph(16, 0.4, seed=7)  # weighted: one weight moved by 0.5
    for i, (x, y) in enumerate(W.edges):
        W.edges[x, y]["weight"] = 0.25 + 0.5 * (i % 2)
    H = W.copy()
    x, y = next(iter(W.edges))
    H.edges[x, y]["weight"] = W.edges[x, y]["weight"] + 0.5
    pairs.append((W, H))
    E = nx.empty_graph(10)  # an edge into an empty graph
    H = E.copy()
    H.add_edge(0, 1)
    pairs.append((E, H))
    return pairs


def test_released_function_moves_by_at_most_one_plus_tau():
    for G, H in _adjacent_pairs():
        fG, fH = _f(G), _f(H)
        assert abs(fG - fH) <= 1.0 + TAU + 1e-9
        for graph, f in ((G, fG), (H, fH)):
            sdp = _sdp(graph) if graph.number_of_edges() else 0.0
            # SDP(G) <= f(G) <= SDP(G) + tau (SCS's own accuracy: 1e-5 of the value)
            assert sdp - 1e-5 * max(1.0, sdp) <= f <= sdp + TAU + 1e-5 * max(1.0, sdp)
        # the lemma itself: the exact relaxation moves by at most the changed weight
        sG = _sdp(G) if G.number_of_edges() else 0.0
        assert abs(sG - _sdp(H)) <= 1.0 + 1e-5 * max(1.0, sG)


def test_verification_on_a_sparse_bipartite_torus():
    """n > 500 and mean degree 4 (where the engine's own certificate takes a sparse LDL^T): the
    dense Cholesky proof of Rump's theorem all the same. An even torus grid is bipartite, so its
    relaxation equals its edge count exactly: ``f`` must lie in ``[m, m + tau]``, before and
    after one edge is removed."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(20, 30, periodic=True))
    H = G.copy()
    H.remove_edge(0, 1)
    for graph in (G, H):
        data = as_graph_data(graph)
        m = graph.number_of_edges()
        assert m - 1e-9 <= input_sdp_bound(data, rng=1).value <= m + TAU + 1e-9


def test_upper_end_is_the_one_sided_quantile():
    """``certified_upper_bound = z + b ln 10``: at least ``f`` with probability 95% (the
    discrete sampler's tail scale makes it slightly more); 3 binomial standard deviations."""
    runs, value = 1500, 1234.5
    led = PrivacyLedger()
    gen = np.random.default_rng(11)
    bound = cert.VerifiedBound(value, TAU)
    hits = sum(release_certificate(bound, epsilon=0.5, m_hat=None, ledger=led, rng=gen)
               ["certified_upper_bound"] >= value for _ in range(runs))
    sd = math.sqrt(0.95 * 0.05 / runs)
    assert 0.95 - 3 * sd <= hits / runs <= 0.951 + 3 * sd


def _brute_max_cut(G) -> float:
    nodes = list(G.nodes)
    best = 0.0
    for bits in itertools.product((0, 1), repeat=len(nodes) - 1):
        side = dict(zip(nodes[1:], bits))
        side[nodes[0]] = 0
        best = max(best, sum(w for u, v, w in G.edges(data="weight", default=1.0)
                             if side[u] != side[v]))
    return best


@pytest.mark.parametrize("kind", ["bipartite", "random"])
def test_bound_and_ratio_cover_the_brute_force_optimum(kind):
    """Fixed seeds, brute-force maximum cut: ``certified_upper_bound >= maxcut`` in at least
    95% of the runs and ``certified_ratio <= cut / maxcut`` in at least 92.5% (minus 3
    binomial standard deviations). The bipartite graph is the tight case (SDP = maxcut)."""
    if kind == "bipartite":
        G = nx.bipartite.random_graph(6, 6, 0.6, seed=3)
    else:
        G = nx.gnp_random_graph(12, 0.5, seed=3)
    G = nx.Graph(G)
    opt = _brute_max_cut(G)
    runs, covered, ratio_ok = 60, 0, 0
    for seed in range(runs):
        res = dpgraph.max_cut(G, epsilon=1.0, delta=0, weight=None, rng=seed, certify=True)
        cut = sum(1.0 for u, v in G.edges if res.assignment[u] != res.assignment[v])
        covered += res.certified_upper_bound >= opt
        ratio_ok += res.certified_ratio <= cut / opt + 1e-12
        assert 0.0 <= res.certified_ratio <= 1.0
    for hits, level in ((covered, 0.95), (ratio_ok, 0.925)):
        assert hits >= runs * level - 3 * math.sqrt(runs * level * (1 - level))


@pytest.mark.parametrize("fn", [dpgraph.max_cut, dpgraph.max_bisection])
def test_ledger_and_budget_share(fn):
    G = nx.gnp_random_graph(40, 0.2, seed=2)
    res = fn(G, epsilon=2.0, delta=1e-6, weight=None, rng=0, certify=True)
    entry = next(e for e in res.ledger.entries
                 if e.name == "certified relaxation bound of the input")
    assert entry.sensitivity == 1.0 + TAU
    # a small graph: the share, not the 2000 / m^ cap
    assert entry.epsilon == pytest.approx(CERTIFY_SHARE * 2.0)
    assert res.certificate["epsilon"] == entry.epsilon
    assert "10.00% of epsilon" in entry.note
    spent = res.ledger.spent[0]  # all of it, or less by a choice's reserve that was not needed
    assert spent == pytest.approx(2.0, rel=1e-9) or (spent < 2.0 and res.diagnostics["unspent"])
    assert res.certificate["ratio_level"] == pytest.approx(0.925)
    assert "certified_upper_bound=" in repr(res) and "certified_ratio=" in repr(res)
    plain = fn(G, epsilon=2.0, delta=1e-6, weight=None, rng=0)
    assert plain.certified_upper_bound is None and plain.certified_ratio is None
    assert all(e.name != entry.name for e in plain.ledger.entries)
    assert certify_budget(1.0, 1e5) == pytest.approx(0.02)  # the cap on large graphs
    assert certify_gap(12_008) == pytest.approx(1.501)  # tau grows with n above 4,000 nodes


def test_no_estimate_no_ratio():
    res = dpgraph.max_cut(nx.cycle_graph(8), epsilon=1.0, delta=0, rng=0, certify=True,
                          estimate=False)
    assert res.certified_upper_bound is not None and res.certified_ratio is None
    assert res.ledger.spent[0] <= 1.0 * (1 + 1e-9)


@pytest.fixture
def charges(monkeypatch):
    from dpgraph.privacy import ledger as ledger_mod

    calls = []
    charge = ledger_mod.PrivacyLedger.charge

    def spy(self, name, **k):
        calls.append(name)
        return charge(self, name, **k)

    monkeypatch.setattr(ledger_mod.PrivacyLedger, "charge", spy)
    return calls


def test_refused_before_anything_is_spent(charges, monkeypatch):
    big = nx.path_graph(15_000)  # public n: three n^3/3 factorizations predicted > 600 s
    with pytest.raises(ValueError, match="certify=True at n = 15,000"):
        dpgraph.max_cut(big, epsilon=1.0, delta=0, rng=0, certify=True)
    monkeypatch.setattr(cert, "certificate_bytes", lambda n: 1 << 62)
    with pytest.raises(MemoryError, match="certified relaxation"):
        dpgraph.max_bisection(nx.cycle_graph(10), epsilon=1.0, delta=0, rng=0, certify=True)
    assert charges == []


@pytest.mark.parametrize("fn", [dpgraph.max_cut, dpgraph.max_bisection])
@pytest.mark.parametrize("shares", [(0.85, 0.14), (0.01, 0.98)])
def test_shares_that_leave_no_room_for_the_certificate_are_refused_first(charges, fn, shares):
    # they passed the check of estimate_share + select_share < 1 and failed inside the route
    # with a negative epsilon
    est, sel = shares
    with pytest.raises(ValueError, match="with certify=True, estimate_share \\+ select_share"):
        fn(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None, rng=1,
           estimate_share=est, select_share=sel, certify=True)
    assert charges == []


def test_unverified_solve_raises_before_anything_is_spent(charges, monkeypatch):
    monkeypatch.setattr(cert, "CERTIFY_TOLERANCES", (1e-3, 1e-4))
    monkeypatch.setattr(cert, "_verify", lambda op, V, tau: (False, 0.0, {"method": "test"}))
    with pytest.raises(cert.CertificateError, match="nothing was spent"):
        dpgraph.max_cut(nx.cycle_graph(10), epsilon=1.0, delta=0, rng=0, certify=True)
    assert charges == []


def test_cli_certify_json(capsys):
    import json

    from dpgraph.cli.app import main

    assert main(["bisection", "karate", "--epsilon", "2", "--delta", "0", "--seed", "1",
                 "--certify", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["certified_upper_bound"] >= 0 and 0 <= doc["certified_ratio"] <= 1
    assert doc["certificate"]["ratio_level"] == pytest.approx(0.925)
    names = [e["name"] for e in doc["ledger"]["entries"]]
    assert "certified relaxation bound of the input" in names
    assert main(["maxcut", "karate", "--epsilon", "2", "--delta", "0", "--seed", "1",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["certified_upper_bound"] is None and doc["certificate"] is None


def test_bumped_cholesky_is_numpys_where_no_pivot_fails_and_bumps_only_failing_pivots(
        monkeypatch):
    """Panels of 4 columns (several panels, a bump in a later one): on a positive definite
    matrix the factor is numpy's and nothing is bumped; where two eigenvalues are negative on
    a few nodes the bumps are non-negative, on those nodes only, within the budget, and the
    factor is that of ``A + Diag(E)`` (numpy: positive definite); over the budget: None."""
    monkeypatch.setattr(cert, "BUMP_PANEL", 4)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((11, 11))
    P = X @ X.T + 0.5 * np.eye(11)
    A = P.copy()
    assert not cert._bumped_cholesky(A, 1.0).any()
    assert np.allclose(np.tril(A), np.linalg.cholesky(P))
    w, Q = np.linalg.eigh(P)
    S = P - (w[0] + 1e-3) * np.outer(Q[:, 0], Q[:, 0])  # lambda_min -1e-3: costs >= 1e-3
    assert cert._bumped_cholesky(S.copy(), 1e-4) is None
    N = P.copy()  # eigenvalue -0.01 on nodes 2 and 9 (different panels), coupled to nothing
    N[[2, 9], :] = N[:, [2, 9]] = 0.0
    N[2, 2] = N[9, 9] = 1.0
    N[2, 9] = N[9, 2] = -1.01
    assert np.linalg.eigvalsh(N)[0] == pytest.approx(-0.01)
    A = N.copy()
    E = cert._bumped_cholesky(A, 0.5)
    assert E is not None and np.all(E >= 0) and 0 < E.sum() <= 0.5
    assert set(np.flatnonzero(E)) <= {2, 9}
    assert np.linalg.eigvalsh(N + np.diag(E))[0] > 0
    assert np.allclose(np.tril(A) @ np.tril(A).T, N + np.diag(E))
    P[3, 3] = np.nan                                   # LAPACK's factorization may pass a NaN
    assert cert._bumped_cholesky(P.copy(), 1.0) is None


def test_bumped_proof_is_a_valid_bound(monkeypatch):
    """A diagonal raised at one node past the target (the plain proof fails there): the bumped
    proof holds, its bumps ``E`` sum to at most the budget, ``lambda_max(Diag(g - E) - W) <=
    mu`` (numpy), and the dual bound ``(sum d - sum g + sum E + n mu) / 4`` is at least the
    relaxation's value (CVXPY + SCS)."""
    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.sdp import solve_lowrank_sdp

    G = nx.gnp_random_graph(20, 0.3, seed=5)
    op = as_weight_operator(G, weight=None)
    V = solve_lowrank_sdp(op, rank=5, tol=1e-8, max_iter=5000, rng=0).V
    V /= np.linalg.norm(V, axis=1)[:, None]
    n = G.number_of_nodes()
    mu, budget = 4 * TAU * (1 - cert.BUMP_SHARE) / n, 4 * TAU * cert.BUMP_SHARE
    g = np.einsum("ij,ij->i", op.matmul(V), V)
    g[4] += 4.5 * mu                                  # lambda_max 0.095 > mu = 0.0875
    assert not cert._prove(op, g, mu)[0]             # no bump allowed: fails
    real, seen = cert._bumped_cholesky, []
    monkeypatch.setattr(cert, "_bumped_cholesky", lambda A, b: seen.append(real(A, b)) or seen[-1])
    ok, info = cert._prove(op, g, mu, budget)
    E = seen[0]
    assert ok and "bump" in info["method"] and 0 < E.sum() <= budget
    W = nx.to_numpy_array(G, nodelist=sorted(G))
    assert np.linalg.eigvalsh(np.diag(g - E) - W)[-1] <= mu
    bound = 0.25 * (W.sum() - g.sum() + E.sum() + n * mu)
    assert bound >= _sdp(G) - 1e-6 * _sdp(G)


def test_bound_is_clamped_to_what_n_nodes_can_cut():
    """No cut of ``n`` nodes with weights in [0, 1] exceeds ``floor(n/2) ceil(n/2)``: the
    released upper end is clamped to it (path on 4 nodes: 4; it used to report 32)."""
    led, gen = PrivacyLedger(), np.random.default_rng(0)
    bound = cert.VerifiedBound(3.0, TAU)
    ups = [release_certificate(bound, epsilon=0.05, m_hat=None, ledger=led, rng=gen, n=5)
           ["certified_upper_bound"] for _ in range(200)]
    assert max(ups) == 6.0 and min(ups) >= 0.0
    res = dpgraph.max_cut(nx.path_graph(4), epsilon=1.0, delta=0, rng=0, certify=True)
    assert res.certified_upper_bound <= 4.0
