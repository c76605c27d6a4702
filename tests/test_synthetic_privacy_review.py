"""The privacy constants of ``release_synthetic`` end to end (docs/privacy.md 7.6-7.15, 13.1).

The data-flow harness (tests/test_synthetic_data_flow.py) checks that each charge's statistics
move by at most the charge's *stated* sensitivity. This file checks the other half: that the
noise actually drawn for each charge is as wide as the charged epsilon needs. Two runs are
coupled on the released values: the run on ``G`` records every value rounded to a discrete
Laplace grid (``noise._grid_rounded``) together with the parameters ``(t, s)`` of the draws
added to it (``P[Z = z] ~ exp(-|z| s / t)``, docs/privacy.md 13.1); the run on a neighbour
``H`` with the same seed gets ``G``'s rounded values back, so both runs release the same
values with the same draws. The privacy loss of that common transcript is then at most
``sum |q_G - q_H|_1 s / t`` over the draws, which for every charge must be at most the epsilon
it charged: a draw at a smaller scale than its charge (a wrong sensitivity or epsilon passed to
the sampler, a wrong ``changed``) makes it exceed. The maximum over the neighbours must also
come close to the charge (1024 / 1025 of it, the grid's slack): the constants are not loose.
"""

import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.privacy import noise as noise_mod
from dpgraph.privacy.ledger import PrivacyLedger

# the grid costs a factor 1 + 1/1024 in sensitivity (docs/privacy.md 13): an attained bound
# reaches 1024 / 1025 of the charge
ATTAINED = 0.99


class _LossSpy:
    """Records, in order, every charge (name, epsilon, noise scale) and every grid-rounded
    statistic with the draws' ``(t, s, g)`` and their source (a ``LaplaceDraws`` object, or
    None for one ``laplace_mechanism`` / ``laplace_add`` call); with ``replay`` returns that
    run's rounded values instead of its own."""

    def __init__(self, monkeypatch, replay=None):
        self.events = []
        self.replay = None if replay is None else [e for e in replay if e[0] == "value"]
        self.used = 0
        self.current = None  # (t, s, g, scale, source) of the draws about to be added
        self.sources = 0
        grid_rounded, params = noise_mod._grid_rounded, noise_mod.discrete_laplace_parameters
        charge = PrivacyLedger.charge
        init, add = noise_mod.LaplaceDraws.__init__, noise_mod.LaplaceDraws.add
        spy = self

        def spy_params(sensitivity, epsilon, changed):
            p = params(sensitivity, epsilon, changed)
            spy.current = (p["t"], p["s"], p["grid"], p["scale"], None)
            return p

        def spy_grid(arr, g):
            own = grid_rounded(arr, g)
            q = own
            if spy.replay is not None:
                _, q0, g0, _ = spy.replay[spy.used]
                assert (q0.shape, g0) == (own.shape, g), "a release moved between the runs"
                q = q0.copy()
            assert spy.current is not None and spy.current[2] == g, (spy.current, g)
            spy.used += 1
            spy.events.append(("value", own.copy(), g, spy.current))
            return q

        def spy_charge(self, name, **kw):
            spy.events.append(("charge", name, kw.get("epsilon"), kw.get("noise_scale")))
            return charge(self, name, **kw)

        def spy_init(self, shape, **kw):
            init(self, shape, **kw)
            t, s, g, scale, _ = spy.current
            spy.sources += 1  # a serial number: an id() may be reused once a pass's draws go
            self._review_draws = (t, s, g, scale, spy.sources)

        def spy_add(self, value, index):
            spy.current = self._review_draws
            return add(self, value, index)

        monkeypatch.setattr(noise_mod, "_grid_rounded", spy_grid)
        monkeypatch.setattr(noise_mod, "discrete_laplace_parameters", spy_params)
        monkeypatch.setattr(PrivacyLedger, "charge", spy_charge)
        monkeypatch.setattr(noise_mod.LaplaceDraws, "__init__", spy_init)
        monkeypatch.setattr(noise_mod.LaplaceDraws, "add", spy_add)


def _run(monkeypatch, G, *, epsilon, seed, replay=None, **kw):
    spy = _LossSpy(monkeypatch, replay)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = dpgraph.release_synthetic(G, epsilon=epsilon, rng=seed, **kw)
    finally:
        monkeypatch.undo()
    if replay is not None:
        assert spy.used == len(spy.replay), "the runs made different numbers of releases"
    bm = rel.block_model
    out = (rel.to_dict(), bm.blocks.tolist(), bm.block_counts.tolist(), bm.degrees.tolist(),
           None if rel.sides is None else rel.sides.tolist(), rel.closure)
    return spy.events, out


def _charges(events):
    """``[(name, epsilon, noise_scale, [value events])]``: a value belongs to the latest charge
    before it, except where charges are made together before their draws (the label passes:
    two charges, then one ``LaplaceDraws`` per pass): the k-th draws object after them belongs
    to the k-th of those charges."""
    out, block = [], []
    for e in events:
        if e[0] == "charge":
            if block and any(v for *_, v in block):
                out += block
                block = []
            block.append([e[1], e[2], e[3], []])
            continue
        source = e[3][4]
        if len(block) == 1 or source is None:
            block[-1 if source is None else 0][3].append(e)
        else:  # several charges made together: one draws object each, in order
            sources = []
            for c in block:
                for x in c[3]:
                    if x[3][4] not in sources:
                        sources.append(x[3][4])
            i = sources.index(source) if source in sources else len(sources)
            assert i < len(block), "more draws objects than charges made together"
            block[i][3].append(e)
    return out + block


def _losses(base, coupled):
    """Per charge: (name, epsilon charged, privacy loss of the common transcript, whether the
    ledger records the scale of the draws it charged for)."""
    out = []
    for (name, eps, scale, calls0), (name1, _, _, calls1) in zip(_charges(base),
                                                                  _charges(coupled)):
        assert name == name1
        assert calls0, f"{name}: a charge with no draw"
        loss, same_scale = 0.0, True
        for v0, v1 in zip(calls0, calls1):
            t, s, g, drawn_scale, _ = v0[3]
            same_scale &= abs(drawn_scale - scale) <= 1e-12 * scale
            loss += float(np.abs(v1[1] - v0[1]).sum()) * s / t
        out.append((name, eps, loss, same_scale))
    return out


def _planted():
    return nx.Graph(nx.planted_partition_graph(4, 40, 0.3, 0.02, seed=1).edges())


def _bipartite():
    B = nx.bipartite.random_graph(70, 70, 0.12, seed=2)
    G = nx.Graph()
    G.add_nodes_from(range(140))
    G.add_edges_from(B.edges())
    return G


def _toggled(G, pairs):
    out = []
    for u, v in pairs:
        H = G.copy()
        if H.has_edge(u, v):
            H.remove_edge(u, v)
        else:
            H.add_edge(u, v)
        out.append(H)
    return out


_KARATE = nx.Graph(nx.karate_club_graph().edges())
_PLANTED = _planted()
_BIPARTITE = _bipartite()
# (graph, epsilon, options, pairs toggled, the charges the run must make, seeds). The pairs: two
# low-degree nodes of different planted blocks (read once by each pass and the side pass), an
# edge inside a block, an edge between blocks, two hubs; in the bipartite graph a pair on one
# side and an edge across.
_CASES = {
    "passes-clustering-sides": (_PLANTED, 4.0, {}, [(103, 89), (0, 1), (17, 52), (3, 21)],
                                ["total edge weight", "label pass (forward)",
                                 "label pass (backward)", "projection triangles",
                                 "inside degrees", "degree-class", "cut sides (forward pass)"],
                                (3, 11)),
    "second-count": (_PLANTED, 6.0, {}, [(103, 89), (104, 46)],
                     ["total edge weight (second count)"], (3, 11)),
    "cut-lead": (_BIPARTITE, 4.0, {}, [(3, 139), (2, 4), (3, 21)],
                 ["cut sides against the model's split"], (3, 11)),
    "one-block": (_KARATE, 1.0, {}, [(6, 19), (0, 1), (32, 33)], ["degrees (one block)"],
                  (3, 11)),
    "refine-sequential": (_PLANTED, 3.0, dict(community_method="refine"), [(103, 89), (0, 1)],
                          ["node-to-block counts"], (3,)),
    "refine-supergraph": (_PLANTED, 2.0, dict(community_method="refine", init_labels=0,
                                              group_size=10), [(103, 89), (0, 1)],
                          ["super-graph edge counts", "node-to-block counts"], (3,)),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_each_charge_bounds_the_privacy_loss_on_adjacent_graphs(monkeypatch, case):
    """For every charge of ``release_synthetic``, the privacy loss of a transcript common to
    ``G`` and a neighbour, computed from the draws' own discrete Laplace parameters, is at most
    the epsilon charged (docs/privacy.md 7.6-7.15 with 13.1), the charges sum to epsilon, the
    ledger records the drawn scales; and for each charge but the clustering one (whose bound,
    attained by a construction in tests/test_synthetic_clustering.py, these neighbours do not
    reach) some neighbour attains the charge: no constant is loose (checked for the charges
    each case is for)."""
    G, eps, kw, pairs, must, seeds = _CASES[case]
    worst = {}
    for seed in seeds:
        for H in _toggled(G, pairs):
            for A, B in ((G, H), (H, G)):
                base, out = _run(monkeypatch, A, epsilon=eps, seed=seed, **kw)
                assert sum(e[2] for e in base if e[0] == "charge") == pytest.approx(eps)
                coupled, out1 = _run(monkeypatch, B, epsilon=eps, seed=seed, replay=base, **kw)
                assert out == out1, "the coupled runs released different values"
                for name, charged, loss, same_scale in _losses(base, coupled):
                    assert loss <= charged * (1 + 1e-9), (name, loss, charged)
                    assert same_scale, f"{name}: the ledger's noise scale is not the drawn one"
                    key = name.split(" (round")[0]
                    worst[key] = max(worst.get(key, 0.0), loss / charged)
    for what in must:  # the charges this case is for: made, and (but the clustering) attained
        ratios = [ratio for key, ratio in worst.items() if what in key]
        assert ratios, (what, sorted(worst))
        if "projection" not in what:
            assert max(ratios) >= ATTAINED, (what, ratios)


# ------------------------------------------------------------------- the check can fail

def _twice_the_epsilon(monkeypatch, module, name):
    real = getattr(module, name)

    def draws(*a, epsilon, **kw):
        return real(*a, epsilon=2 * epsilon, **kw)
    monkeypatch.setattr(module, name, draws)


@pytest.mark.parametrize("target", ["label passes", "side pass", "refinement batches"])
def test_the_loss_check_catches_draws_narrower_than_their_charge(monkeypatch, target):
    """Draws at twice the epsilon their charge records (half the noise) exceed the charge on
    some neighbour, where the data-flow harness, which compares the statistics with the stated
    sensitivity only, sees nothing."""
    import dpgraph.synthetic.communities as co
    import dpgraph.synthetic.sides as si

    module, name, case = {"label passes": (co, "LaplaceDraws", "passes-clustering-sides"),
                          "side pass": (si, "LaplaceDraws", "passes-clustering-sides"),
                          "refinement batches": (co, "laplace_add", "refine-sequential")}[target]
    G, eps, kw, pairs, *_ = _CASES[case]
    H = _toggled(G, pairs[:1])[0]
    real_run = _run

    def run(*a, **k):
        _twice_the_epsilon(monkeypatch, module, name)  # _run undoes every patch on return
        return real_run(*a, **k)

    base, _ = run(monkeypatch, G, epsilon=eps, seed=3, **kw)
    coupled, _ = run(monkeypatch, H, epsilon=eps, seed=3, replay=base, **kw)
    losses = _losses(base, coupled)
    assert any(loss > charged * 1.5 for _, charged, loss, _ in losses)
    assert not all(same_scale for *_, same_scale in losses)
