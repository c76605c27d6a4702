"""The dense PCA route of ``privatize`` end to end on adjacent graphs (docs/privacy.md 3, 4.1-4.7).

Two runs are coupled on the released values. The run on ``G`` records, for every draw, the
statistic the noise is added to: the value rounded to the grid of an exact discrete sampler
(``noise._grid_rounded``: the degrees, the gap, the log row scale, the tail level, the
screening count), the top-r eigenvectors ``U`` whose projector ``U U^T`` the projector noise is
added to, the core ``B^T M B``, the bits that randomized response flips. The run on a neighbour
``H`` with the same seed gets ``G``'s statistics back in place of its own, so both runs draw
the same noise and release the same values. Then:

* **data flow**: the two results must be identical (the ``PrivateGraph``'s arrays, diagnostics
  and ledger), bit for bit. Anything of the input that reaches the output other than through a
  draw (a branch, a size, a normalizer, a halting decision on an unreleased value) makes them
  differ;
* **constants**: each draw's statistic moves between ``G`` and ``H`` by no more than the noise
  drawn for it can hide at the charge's budget: the discrete Laplace's ``|dq| s / t <= eps``,
  the discrete Gaussian's ``||dq||^2 / (2 t u) <= rho``, the Gaussian matrices'
  ``||dX||_F / sqrt 2`` (diagonal variance doubled) within the charged sensitivity and ``sigma``
  the analytic Gaussian's at the charge (the projector's only on its good event
  ``L <= g(M)``, ``T >= t(M)``, 3.7), at most one bit of randomized response; the
  ``EntryAdjacency`` handed to the PCA covers the change of ``M = D~^-1/2 A D~^-1/2`` (4.2);
* **ledger**: its noise scales are those drawn, and its charges add up to the caller's budget.

Neighbours: a pair toggled between the two nodes of least released normalizer (the worst case of
``w = 1 / min d~``, 4.2), an edge inside a block, a pair across the blocks, a pair at a hub.
"""

import math
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.privacy import analytic_gaussian_sigma
from dpgraph.privacy import noise as noise_mod
from dpgraph.privacy.ledger import PrivacyLedger
from dpgraph.release.routes import pca as R
from dpgraph.release.routes import randomized_response as RR
from dpgraph.spectral import bounds as B
from dpgraph.spectral import linalg as LA

SQRT2 = math.sqrt(2.0)


class _Coupling:
    """Spies on every draw of the dense PCA route; with ``replay`` (the events of a run on
    another graph) hands each draw that run's statistic instead of its own."""

    def __init__(self, monkeypatch, replay=None):
        self.events = []
        self.replay = replay
        self.used = 0
        self.params = None  # the exact sampler's parameters of the draw about to be made
        self.charge = None  # the charge the next draw pays for
        self.seen = set()
        self.captured = {}
        spy = self
        grid_rounded = noise_mod._grid_rounded
        lap, gau = noise_mod.discrete_laplace_parameters, noise_mod.discrete_gaussian_parameters
        charge = PrivacyLedger.charge
        top, low_rank = LA.top_eigvecs_projector_plus_noise, R.release_low_rank
        core_sens, sym_noise, flip = (B.projected_core_sensitivity, R.symmetric_gaussian_noise,
                                      RR.randomized_response)

        def spy_lap(sensitivity, epsilon, changed):
            p = lap(sensitivity, epsilon, changed)
            spy.params = ("laplace", p)
            return p

        def spy_gau(sensitivity, epsilon, delta, changed, **kw):
            p = gau(sensitivity, epsilon, delta, changed, **kw)
            spy.params = ("gaussian", p)
            return p

        def spy_charge(self, name, **kw):
            if kw.get("mechanism") not in ("ptr-failure", "reserved") and name not in spy.seen:
                spy.seen.add(name)  # a re-charge of entries already recorded pays for nothing
                spy.charge = (name, kw)
            return charge(self, name, **kw)

        def statistic(kind, own, name=None):
            """Record ``own``; return the coupled run's statistic in its place. ``name``: the
            charge's, where it is made after the statistic is handed over."""
            charge = spy.charge if name is None else (name, None)
            spy.events.append((kind, own, charge, spy.params))
            if spy.replay is None:
                return own
            kind0, base, charge0, _ = spy.replay[spy.used]
            spy.used += 1
            assert kind0 == kind and charge0[0] == charge[0], "the runs drew in another order"
            return base

        def spy_grid(arr, g):
            assert spy.params is not None and spy.params[1]["grid"] == g
            return statistic("grid", grid_rounded(arr, g)).copy()

        def spy_top(U, G, r, rng, **kw):
            spy.captured["projector noise"] = G
            return top(statistic("projector", np.array(U, copy=True)), G, r, rng, **kw)

        def spy_core_sens(adjacency, basis):
            spy.captured["basis"] = np.array(basis, copy=True)
            return core_sens(adjacency, basis)

        def spy_noise(n, **kw):
            spy.captured["core noise"] = out = sym_noise(n, **kw)
            return out

        def spy_low_rank(M, rank, adjacency, **kw):
            spy.captured["M"], spy.captured["adjacency"] = M.toarray(), adjacency
            basis, core, how, sub = low_rank(M, rank, adjacency, **kw)
            if not sub.halted:  # the core: B^T M B as the route computes it, plus its noise
                C = basis.T @ np.asarray(M @ basis)
                noise = spy.captured["core noise"]
                assert np.array_equal(core, 0.5 * (C + C.T) + noise.to_dense())
                C = statistic("core", C)
                core = 0.5 * (C + C.T) + noise.to_dense()
            spy.captured["sub"] = sub
            return basis, core, how, sub

        def spy_flip(bits, **kw):
            out = flip(statistic("bits", np.array(bits, copy=True), kw["name"]), **kw)
            kind, own, _, params = spy.events[-1]
            assert spy.charge[0] == kw["name"]  # charged inside, before its draw
            spy.events[-1] = (kind, own, spy.charge, params)
            return out

        for module, name, value in (
                (noise_mod, "_grid_rounded", spy_grid), (noise_mod, "discrete_laplace_parameters", spy_lap),
                (noise_mod, "discrete_gaussian_parameters", spy_gau), (PrivacyLedger, "charge", spy_charge),
                (LA, "top_eigvecs_projector_plus_noise", spy_top),
                (B, "projected_core_sensitivity", spy_core_sens),
                (R, "symmetric_gaussian_noise", spy_noise), (R, "release_low_rank", spy_low_rank),
                (RR, "randomized_response", spy_flip)):
            monkeypatch.setattr(module, name, value)


def _run(monkeypatch, G, seed, replay=None, **kw):
    spy = _Coupling(monkeypatch, replay)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pg = dpgraph.privatize(G, rng=seed, synthetic_share=None, **kw)
    finally:
        monkeypatch.undo()
    if replay is not None:
        assert spy.used == len(replay), "the runs made different numbers of draws"
    return spy, pg


def _same(a, b, where="release"):
    """Exact equality of two results, recursively (NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert type(a) is type(b), where
        _same(vars(a), vars(b), where)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert a == b, (where, a, b)


def _release(pg):
    entries = [(e.name, e.mechanism, e.epsilon, e.delta, e.sensitivity, e.noise_scale)
               for e in pg.ledger.entries]
    return {"labels": pg.labels, "degrees": pg.degrees, "normalizer": pg.normalizer,
            "basis": pg.basis, "core": pg.core, "projected": pg.projected,
            "diagnostics": pg.diagnostics, "ledger": entries}


def _good_event(M, rank, d):
    """Whether the released bounds hold for ``M``: ``L <= g(M)`` and ``T >= t(M)`` (3.7)."""
    lam, vec = np.linalg.eigh(M)
    order = np.argsort(-np.abs(lam))
    g = abs(lam[order[rank - 1]]) - abs(lam[order[rank]])
    t = float(np.sqrt(np.max(np.sum(vec[:, order[:rank]] ** 2, axis=1))))
    return d.gap_lower <= g and d.row_scale_upper >= t


def _losses(base, coupled, rank):
    """Per draw: (charge name, what the coupled statistics spend of the charge: a ratio that
    must not exceed 1). Also checks that the ledger's scale is the one drawn."""
    out = []
    captured0, captured1 = base.captured, coupled.captured
    for (kind, own0, (name, kw), params), (_, own1, _, _) in zip(base.events, coupled.events):
        if kind == "grid":
            which, p = params
            dq = np.ravel(own1 - own0).astype(float)
            assert kw["noise_scale"] == pytest.approx(p["scale" if which == "laplace" else "sigma"],
                                                      rel=1e-12), name
            if which == "laplace":
                ratio = float(np.abs(dq).sum()) * p["s"] / p["t"] / kw["epsilon"]
            else:
                ratio = float(dq @ dq) / (2.0 * p["t"] * p["u"]) / kw["rho"]
        elif kind == "bits":
            assert kw["noise_scale"] == pytest.approx(1.0 / (1.0 + math.exp(kw["epsilon"])))
            ratio = float(np.count_nonzero(own1 != own0))  # each differing bit costs epsilon
        else:  # the projector and the core: the upper-triangle Gaussian mechanism (3.4, 3.6)
            noise = captured0["projector noise" if kind == "projector" else "core noise"]
            assert noise.diagonal_scale == SQRT2, name
            assert noise.sigma == kw["noise_scale"] == analytic_gaussian_sigma(
                kw["epsilon"], kw["delta"], kw["sensitivity"]), name
            if kind == "projector":
                if not _good_event(captured0["M"], rank, captured0["sub"].diagnostics):
                    continue  # a failure of the tests, charged as their delta (3.7)
                X0, X1 = own0 @ own0.T, own1 @ own1.T
            else:
                X0, X1 = own0, own1
                X0, X1 = 0.5 * (X0 + X0.T), 0.5 * (X1 + X1.T)
            ratio = float(np.linalg.norm(X1 - X0)) / SQRT2 / kw["sensitivity"]
        out.append((name, ratio))
    return out


def _planted():
    G = nx.Graph(nx.planted_partition_graph(2, 60, 0.6, 0.05, seed=1).edges())
    G.add_nodes_from(range(120))
    return G


def _toggled(G, u, v):
    H = G.copy()
    if H.has_edge(u, v):
        H.remove_edge(u, v)
    else:
        H.add_edge(u, v)
    return H


def _neighbours(G, seed, **kw):
    """The toggled pairs: the two nodes of least released normalizer, an edge inside a block
    (both ends in one half of the nodes), a pair across the halves, the highest-degree node
    and the last node (or the first)."""
    _, pg = _run(pytest.MonkeyPatch(), G, seed, **kw)
    nodes = pg.labels
    n = len(nodes)
    low = [nodes[int(i)] for i in np.argsort(pg.normalizer, kind="stable")[:2]]
    half = {v: i < n // 2 for i, v in enumerate(nodes)}
    hub = max(nodes, key=lambda v: (G.degree(v), -nodes.index(v)))
    inside = next(e for e in G.edges if half[e[0]] == half[e[1]])
    pairs = [tuple(low), inside, (nodes[3], nodes[n // 2 + 1]),
             (hub, nodes[-1] if hub != nodes[-1] else nodes[0])]
    return [_toggled(G, u, v) for u, v in pairs]


_PLANTED = _planted()
_KARATE = nx.Graph(nx.karate_club_graph().edges())
# (graph, privatize's keywords, the branch the base run must take, seeds)
_CASES = {
    "passes": (_PLANTED, dict(epsilon=40.0, delta=1e-6, rank=2, route="pca"),
               "private PCA (Alg. 5.10)", (0, 5)),
    "auto-passes": (_PLANTED, dict(epsilon=40.0, delta=1e-6, rank=2), "private PCA (Alg. 5.10)",
                    (1,)),
    "gap-halts": (_PLANTED, dict(epsilon=4.0, delta=1e-6, rank=2, route="pca"),
                  "randomized response (PCA halted at the gap test)", (0, 1)),
    "noise-halts": (_PLANTED, dict(epsilon=16.0, delta=1e-6, rank=2, route="pca"),
                    "randomized response (PCA halted at the projector noise test)", (0,)),
    "halts-no-fallback": (_KARATE, dict(epsilon=2.0, delta=1e-6, rank=2, route="pca",
                                        fallback="none"),
                          "random subspace (PCA halted, no fallback)", (0,)),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_coupled_runs_on_adjacent_graphs_release_the_same_and_stay_within_each_charge(
        monkeypatch, case):
    """docs/privacy.md 3.2-3.7 and 4.1-4.7: on every branch of the dense PCA route (passing,
    halted at the gap test or at the projector-noise test with the randomized-response
    fallback, halted with no fallback; screened by ``route="auto"``), the coupled runs on
    ``G`` and a neighbour release exactly the same thing, each draw's statistic moves within
    what its charge pays for, the ledger records the scales drawn and adds up to the budget,
    and the ``EntryAdjacency`` handed to the PCA covers the change of ``M`` (attained up to
    ``sqrt(d~_1 / d~_2)`` by the pair of least normalizer)."""
    G, kw, branch, seeds = _CASES[case]
    worst, entry = {}, 0.0
    for seed in seeds:
        for H in _neighbours(G, seed, **kw):
            for A, C in ((G, H), (H, G)):
                base, pg0 = _run(monkeypatch, A, seed, **kw)
                assert pg0.diagnostics["low_rank_mechanism"] == branch
                eps, delta = pg0.ledger.spent
                assert eps == pytest.approx(kw["epsilon"], rel=1e-12)
                assert delta <= kw["delta"] * (1 + 1e-12)
                if "halted" not in branch or "no fallback" in branch:
                    assert delta == pytest.approx(kw["delta"], rel=1e-12)  # every share charged
                coupled, pg1 = _run(monkeypatch, C, seed, replay=base.events, **kw)
                _same(_release(pg0), _release(pg1))
                for name, ratio in _losses(base, coupled, kw["rank"]):
                    assert ratio <= 1 + 1e-9, (name, ratio)
                    worst[name] = max(worst.get(name, 0.0), ratio)
                M0, M1 = base.captured["M"], coupled.captured["M"]
                adjacency = base.captured["adjacency"]
                E = M1 - M0
                assert adjacency.symmetric and np.count_nonzero(E) <= 2
                assert np.abs(E).max() <= adjacency.max_abs * (1 + 1e-12)
                entry = max(entry, float(np.abs(E).max()) / adjacency.max_abs)
    assert worst["degrees"] >= 0.99  # one unit edge moves two degrees by 1: sqrt 2, attained
    assert entry >= 0.8
    if "screening: edge count" in worst:
        assert worst["screening: edge count"] >= 0.99
    if "fallback: randomized response" in worst:
        assert worst["fallback: randomized response"] == 1.0  # one pair's bit


def test_the_coupling_sees_a_normalizer_read_from_the_input(monkeypatch):
    """The check can fail: with the normalizer's ``tau`` taken from the true degrees (a read of
    the input outside any mechanism), the coupled runs release different normalizers."""
    real = R.regularizer
    G = _PLANTED
    H = _toggled(G, 3, 61)
    kw = _CASES["passes"][1]

    def run(A, replay=None):
        spy = _Coupling(monkeypatch, replay)
        true = {}
        real_release = R.gaussian_mechanism

        def gauss(value, **k):
            if k["name"] == "degrees":
                true["d"] = np.array(value, dtype=float, copy=True)
            return real_release(value, **k)
        monkeypatch.setattr(R, "gaussian_mechanism", gauss)
        monkeypatch.setattr(R, "regularizer", lambda d_hat, reg: real(true["d"], reg))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pg = dpgraph.privatize(A, rng=0, synthetic_share=None, **kw)
        finally:
            monkeypatch.undo()
        return spy, pg

    base, pg0 = run(G)
    _, pg1 = run(H, base.events)
    assert not np.array_equal(pg0.normalizer, pg1.normalizer)


def test_halting_without_fallback_charges_the_cores_share_as_reserved():
    """docs/privacy.md 3.7 and 4.7: when the PCA halts and no fallback runs, the core's share
    of the budget is charged as ``reserved`` (nothing is drawn for it), like the subspace's
    halted steps, so that the ledger adds up to the budget on every branch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(_KARATE, epsilon=2.0, delta=1e-6, rank=2, rng=0, route="pca",
                               fallback="none", synthetic_share=None)
    assert pg.halted
    eps, delta = pg.ledger.spent
    assert eps == pytest.approx(2.0, rel=1e-12) and delta == pytest.approx(1e-6, rel=1e-12)
    (core,) = [e for e in pg.ledger.entries if e.name == "pca: core (Alg. 5.10)"]
    assert core.mechanism == "reserved"
    share = (1 - 0.05 - 0.05) * 0.1  # (1 - degree_share - tail_share) * core_share
    assert (core.epsilon, core.delta) == (pytest.approx(share * 2.0), pytest.approx(share * 1e-6))


def test_symmetrize_is_refused_before_the_degrees_are_drawn():
    """docs/privacy.md 11.1: ``pca_options={"symmetrize": True}`` asks the route's PCA to treat
    the symmetric normalized adjacency as rectangular, which the route's symmetric pair
    adjacency does not fit; it is refused before anything is charged or drawn."""
    ledger = PrivacyLedger(epsilon=10.0, delta=1e-5)
    with pytest.raises(ValueError, match="symmetrize"):
        dpgraph.privatize(_KARATE, epsilon=2.0, delta=1e-6, rank=2, rng=0, route="pca",
                          synthetic_share=None, pca_options={"symmetrize": True}, ledger=ledger)
    assert ledger.spent == (0.0, 0.0)
