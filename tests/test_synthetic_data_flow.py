"""Data flow of ``release_synthetic`` and ``SyntheticRelease.sample`` (docs/privacy.md 7.6-7.15):
the private graph may reach the output only through the charged mechanisms.

The check couples two runs on the *released values* (the view of adaptive composition): the
first run, on ``G``, records every value each discrete Laplace release rounds to its grid
(``dpgraph.privacy.noise._grid_rounded``, the one place every ``laplace_mechanism``,
``laplace_add`` and ``LaplaceDraws.add`` hands the private statistic to the sampler); the
second run, on ``H``, with the same seed, gets those same rounded values back instead of its
own. Its noise draws are the same draws (the exact samplers read nothing of the value), so the
two runs release the same values, and everything else the call does must then be the same:
the plan and every branch, the ledger (names, epsilons, sensitivities, scales, notes), the
number of generators handed out and the size of every noise draw, the diagnostics, the model,
the sides, the warnings, and the samples. Anything that differs read the graph outside a
mechanism (a share or a threshold from a true count, a loop or a draw count on true data, a
diagnostic of a true value, a sampler that reads the input).

With ``H`` a neighbour of ``G`` the same coupling checks the sensitivities end to end: every
charge's statistics (all of its grid-rounded arrays together) move by at most the charge's
stated L1 sensitivity, in at most as many coordinates as its grid was made for.
"""

import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.privacy import noise as noise_mod
from dpgraph.privacy.ledger import PrivacyLedger
from dpgraph.privacy.noise import GRID_STEPS
from dpgraph.synthetic import release as release_mod


# ------------------------------------------------------------------------------- the harness

class _Spy:
    """Records, in order, every ledger charge and every grid-rounded statistic of one call,
    the generators handed out for noise and the size of every discrete Laplace draw; with
    ``replay`` (another run's records) returns that run's rounded values instead."""

    def __init__(self, monkeypatch, replay=None):
        self.events = []  # ("charge", name, epsilon, sensitivity) | ("value", arr, g, q)
        self.draws = []  # ("rng",) | ("laplace", t, s, size)
        self.replay = None if replay is None else [e for e in replay if e[0] == "value"]
        self.used = 0
        grid_rounded, charge = noise_mod._grid_rounded, PrivacyLedger.charge
        draw_rng, laplace = noise_mod._draw_rng, noise_mod.sample_discrete_laplace
        spy = self

        def spy_grid(arr, g):
            q = grid_rounded(arr, g)
            if spy.replay is not None:
                assert spy.used < len(spy.replay), "more releases than in the coupled run"
                _, arr0, g0, q0 = spy.replay[spy.used]
                assert (np.shape(arr), g) == (np.shape(arr0), g0), "release size or grid moved"
                q = q0.copy()
            spy.used += 1
            spy.events.append(("value", np.array(arr, dtype=float, copy=True), g, q.copy()))
            return q

        def spy_charge(self, name, **kw):
            spy.events.append(("charge", name, kw.get("epsilon"), kw.get("sensitivity")))
            return charge(self, name, **kw)

        def spy_draw_rng(*a, **k):
            spy.draws.append(("rng",))
            return draw_rng(*a, **k)

        def spy_laplace(t, s, size, gen):
            spy.draws.append(("laplace", int(t), int(s), int(size)))
            return laplace(t, s, size, gen)

        monkeypatch.setattr(noise_mod, "_grid_rounded", spy_grid)
        monkeypatch.setattr(PrivacyLedger, "charge", spy_charge)
        monkeypatch.setattr(noise_mod, "_draw_rng", spy_draw_rng)
        monkeypatch.setattr(noise_mod, "sample_discrete_laplace", spy_laplace)


def _arrays(x):
    return None if x is None else np.asarray(x).tolist()


def _outcome(rel) -> dict:
    """Everything a release hands its caller, and two samples (a given seed, and the
    release's own reproducible stream), as comparable plain data."""
    bm = rel.block_model
    doc = rel.to_dict()
    samples = []
    for rng in (5, None):
        S = rel.sample(rng=rng)
        samples.append((list(S.labels), S.weights.indptr.tolist(), S.weights.indices.tolist()))
    return {"to_dict": doc, "repr": repr(rel),
            "ledger": [(e.name, e.mechanism, e.epsilon, e.delta, e.sensitivity, e.noise_scale,
                        e.note) for e in rel.ledger.entries],
            "blocks": _arrays(bm.blocks), "counts": _arrays(bm.block_counts),
            "degrees": _arrays(bm.degrees), "inside": _arrays(bm.inside),
            "groups": _arrays(bm.groups), "affinity": bm.affinity, "edge_total": bm.edge_total,
            "labels": list(rel.labels), "sides": _arrays(rel.sides),
            "side_accept": rel.side_accept, "closure": rel.closure,
            "block_tolerance": rel.block_tolerance, "affinity_cap": rel.affinity_cap,
            "samples": samples}


def _run(monkeypatch, G, *, epsilon, seed, replay=None, **kw):
    spy = _Spy(monkeypatch, replay)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rel = dpgraph.release_synthetic(G, epsilon=epsilon, rng=seed, **kw)
            out = _outcome(rel)
    finally:
        monkeypatch.undo()
    if replay is not None:
        assert spy.used == len(spy.replay), "fewer releases than in the coupled run"
    out["warnings"] = [(type(w.message).__name__, str(w.message)) for w in caught]
    out["draws"] = spy.draws
    return spy.events, out


def _assert_same(a: dict, b: dict) -> None:
    for key in a:
        assert a[key] == b[key], f"{key} depends on the graph outside the releases"


# ------------------------------------------------------------------------------- the graphs

def _planted(n_blocks=4, size=40, p_in=0.3, p_out=0.02, seed=1):
    return nx.Graph(nx.planted_partition_graph(n_blocks, size, p_in, p_out, seed=seed).edges())


def _bipartite(seed=2):
    B = nx.bipartite.random_graph(70, 70, 0.12, seed=seed)
    G = nx.Graph()
    G.add_nodes_from(range(140))
    G.add_edges_from(B.edges())
    return G


def _weighted(G, seed=0):
    rng = np.random.default_rng(seed)
    W = nx.Graph()
    W.add_nodes_from(G)
    W.add_edges_from((u, v, {"weight": float(rng.uniform(0.2, 1.0))}) for u, v in G.edges())
    return W


def _other(G, seed=7):
    """A random graph on the same nodes with a fifth fewer edges (not a neighbour: everything
    but the node set differs)."""
    R = nx.gnm_random_graph(G.number_of_nodes(), int(0.8 * G.number_of_edges()), seed=seed)
    return nx.relabel_nodes(R, dict(enumerate(sorted(G.nodes()))))


_KARATE = nx.Graph(nx.karate_club_graph().edges())
_PLANTED = _planted()
_BIPARTITE = _bipartite()
# (graph, epsilon, options, what the run must reach: diagnostics keys and values)
_CASES = {
    # one block (the community signal is low), the deconvolved degree prior, no clustering
    "karate-one-block": (_KARATE, 1.0, {}, {"communities": 1, "degree_prior": True}),
    # the label passes, the clustering release, the cut sides
    "planted-passes": (_PLANTED, 4.0, {}, {"degree_prior": False, "side_accept": 0.2}),
    # the second edge count (its share a function of the first count's released value)
    "planted-second-count": (_PLANTED, 6.0, {},
                             {"charges": "synthetic: total edge weight (second count)"}),
    # disassortative: the model's blocks carry a cut, so the cut lead is released (and, at
    # this seed, is not positive: the samples keep the model's own cut)
    "bipartite-cut-lead": (_BIPARTITE, 4.0, {}, {"side_cut_lead": None, "side_accept": 1.0}),
    # weights in (0, 1]
    "weighted-passes": (_weighted(_PLANTED), 2.0, {}, {"labels": None}),
    # the refinement rounds (an option), from the super-graph
    "planted-refine": (_PLANTED, 2.0, dict(community_method="refine", init_labels=0,
                                            group_size=10), {"rounds": None}),
}


def _reached(out, want):
    diag = out["to_dict"]["diagnostics"]
    for key, value in want.items():
        if key == "charges":
            assert value in [e[0] for e in out["ledger"]], (value, out["ledger"])
            continue
        assert key in diag, (key, sorted(diag))
        if value is not None:
            assert diag[key] == value, (key, diag[key])


# ------------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("case", sorted(_CASES))
def test_release_reads_the_graph_only_through_its_releases(monkeypatch, case):
    """Coupled on ``G``'s released values, a run on a different graph on the same nodes (and
    one on ``G`` itself, the control) returns exactly what ``G``'s run returns: the ledger,
    the draws, the diagnostics, the model, the sides, the warnings and the samples."""
    G, eps, kw, want = _CASES[case]
    base, out = _run(monkeypatch, G, epsilon=eps, seed=3, **kw)
    _reached(out, want)
    charges = [e for e in base if e[0] == "charge"]
    assert sum(e[2] for e in charges) == pytest.approx(eps, rel=1e-9)  # the whole budget
    for H in (G, _other(G)):
        _, coupled = _run(monkeypatch, H, epsilon=eps, seed=3, replay=base, **kw)
        _assert_same(out, coupled)


def _neighbours(G, count=6, seed=0):
    """Graphs that differ from ``G`` in one pair: edges removed, edges added between the
    lowest-degree nodes and between random pairs, and (weighted) a weight moved by 0.5."""
    rng = np.random.default_rng(seed)
    nodes = sorted(G.nodes())
    edges = sorted(G.edges())
    weighted = any("weight" in d for *_, d in G.edges(data=True))
    low = sorted(nodes, key=lambda v: (G.degree(v), v))
    pairs = [(u, v) for i, u in enumerate(low[:6]) for v in low[i + 1:6] if not G.has_edge(u, v)]
    out = []
    for i in rng.choice(len(edges), size=count // 2, replace=False):
        H = G.copy()
        u, v = edges[i]
        if weighted:
            w = G[u][v]["weight"]
            H[u][v]["weight"] = w - 0.5 if w > 0.5 else w + 0.5
        else:
            H.remove_edge(u, v)
        out.append(H)
    for u, v in pairs[:count - count // 2 - 1]:
        H = G.copy()
        H.add_edge(u, v, weight=1.0)
        out.append(H)
    while len(out) < count:
        u, v = rng.choice(nodes, size=2, replace=False)
        if not G.has_edge(u, v):
            H = G.copy()
            H.add_edge(u, v, weight=1.0)
            out.append(H)
    return out


def _charge_groups(events):
    """The grid-rounded arrays of each charge: a call belongs to the latest charge before it;
    charges with no call of their own before the next one (the two label passes charge
    together, then draw) are merged with it, their sensitivities added."""
    groups, pending = [], []
    for e in events:
        if e[0] == "charge":
            if groups and not groups[-1][2]:  # the previous charge has no value yet
                pending.append(groups.pop())
            groups.append([e[1], [float(e[3])], []])
            for name, sens, _ in pending:
                groups[-1][0] = f"{name} + {groups[-1][0]}"
                groups[-1][1] = sens + groups[-1][1]
            pending = []
        else:
            groups[-1][2].append(e)
    return groups


@pytest.mark.parametrize("case", ["planted-passes", "bipartite-cut-lead", "weighted-passes",
                                  "karate-one-block"])
def test_adjacent_inputs_move_each_charge_by_its_sensitivity(monkeypatch, case):
    """Coupled on ``G``'s released values, on each neighbour ``H`` of ``G`` (one pair added,
    removed, or its weight moved by 0.5) the whole release returns the same outputs, and each
    charge's statistics (every array its draws were added to, together) move by at most its
    stated L1 sensitivity, in at most the coordinates its grid was made for
    (``g = sensitivity / (GRID_STEPS changed)``, docs/privacy.md 13.1)."""
    G, eps, kw, _ = _CASES[case]
    base, out = _run(monkeypatch, G, epsilon=eps, seed=4, **kw)
    groups = _charge_groups(base)
    worst = 0.0
    for H in _neighbours(G):
        seen, coupled = _run(monkeypatch, H, epsilon=eps, seed=4, replay=base, **kw)
        _assert_same(out, coupled)
        for (name, sens, calls0), (name1, sens1, calls1) in zip(groups, _charge_groups(seen)):
            assert (name, sens) == (name1, sens1)
            moved = sum(float(np.abs(c1[1] - c0[1]).sum()) for c0, c1 in zip(calls0, calls1))
            assert moved <= sum(sens) * (1 + 1e-9), (name, moved, sens)
            # the coordinates the grid was made for: g = sensitivity / (GRID_STEPS changed)
            grids = {c[2] for c in calls0}
            assert len(grids) == 1, name
            g = grids.pop()
            changed = sum(round(s / (GRID_STEPS * g)) for s in sens)
            assert sum(int(np.count_nonzero(c1[1] != c0[1]))
                       for c0, c1 in zip(calls0, calls1)) <= changed, name
            worst = max(worst, moved / sum(sens))
    assert worst > 0.0  # the neighbours are read


# ------------------------------------------------------------------- the harness can fail

def _leak_side_order(monkeypatch):
    """The cut sides ordered by the true degrees instead of the released ones."""
    real = release_mod.side_pass
    monkeypatch.setattr(release_mod, "side_pass",
                        lambda data, degrees, **kw: real(data, data.degrees, **kw))


def _leak_cap(monkeypatch):
    """The projection's degree cap from the true edge count instead of the released one."""
    from dpgraph.synthetic.clustering import projection_cap
    real = release_mod.release_transitivity
    monkeypatch.setattr(release_mod, "release_transitivity",
                        lambda data, theta, **kw: real(data, theta=projection_cap(data.m, data.n),
                                                       **kw))


def _leak_draws(monkeypatch):
    """A draw from the release's generator whose size depends on the true edge count."""
    real = release_mod.release_transitivity

    def leaky(data, *, rng, **kw):
        rng.random(int(data.m))
        return real(data, rng=rng, **kw)
    monkeypatch.setattr(release_mod, "release_transitivity", leaky)


def _leak_diagnostic(monkeypatch):
    """A diagnostic that reports a true quantity (the graph's maximum degree)."""
    real = release_mod.split_by_released_degree_classes

    def leaky(data, bm, **kw):
        out, info = real(data, bm, **kw)
        return out, {**info, "max_degree": float(data.degrees.max())}
    monkeypatch.setattr(release_mod, "split_by_released_degree_classes", leaky)


@pytest.mark.parametrize("leak", [_leak_side_order, _leak_cap, _leak_draws, _leak_diagnostic])
def test_the_coupling_catches_a_planted_leak(monkeypatch, leak):
    """The harness above is not vacuous: each of these flows of the true graph around the
    mechanisms (an order, a cap, a draw count, a diagnostic) makes the coupled run on another
    graph differ from the original."""
    G, eps, kw, _ = _CASES["planted-passes"]

    def run(H, replay=None):
        leak(monkeypatch)  # _run undoes every patch when it returns
        return _run(monkeypatch, H, epsilon=eps, seed=3, replay=replay, **kw)

    base, out = run(G)
    with pytest.raises(AssertionError):
        _, coupled = run(_other(G), replay=base)
        _assert_same(out, coupled)


def test_a_refusal_converting_the_input_names_no_size_of_it(monkeypatch):
    """A refusal while the input is converted depends on the input (docs/privacy.md 11.1), but
    its message named the stored entries (40,000 against a neighbour's 39,998): it now names
    only the memory available."""
    import scipy.sparse as sp

    from dpgraph.memory import InsufficientMemoryError

    rng = np.random.default_rng(0)
    i, j = rng.integers(0, 3000, size=(2, 30_000))
    keep = i != j
    A = sp.coo_array((np.ones(keep.sum()), (i[keep], j[keep])), shape=(3000, 3000)).tocsr()
    A = ((A + A.T) > 0).astype(float)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "300K")
    with pytest.raises(InsufficientMemoryError) as info:
        dpgraph.release_synthetic(A, epsilon=1.0, rng=0)
    message = str(info.value)
    assert "not said, since it grows with the edge count, which is private" in message
    assert "needs about" not in message and "At most" not in message
    assert f"{A.nnz:,}" not in message and f"{A.nnz // 2:,}" not in message
