"""Data-flow (taint) checks of the private answers' default paths: ``max_cut``,
``max_bisection`` (``route="auto"``: the degree-ordered local route, with the pooled
randomized-response candidates where they join) and ``max_2csp`` (its local route).

Non-interference through the mechanisms. Every read of the private input is meant to reach the
output only through a charged mechanism (docs/privacy.md 4.9-4.11, 6, 14). The replay harness
below records, on a reference input, the *data input* of every mechanism (the grid-rounded value
of every discrete Laplace / Gaussian release, the scores of every exponential mechanism, the
bits of randomized response, the local 2-CSP label scores) and then runs other inputs with the
same seed while handing each mechanism the recorded input instead of its own. If nothing but the
mechanisms reads the data, every run is then the same computation: the same sequence of
mechanism calls (names, shapes), the same ledger (names, epsilons, sensitivities, notes), the
same partition / assignment, estimate, interval, diagnostics, release, repr, and the same number
of draws from the caller's generator (its final state). Any ``if``, ``argsort``, plan, share,
candidate list, clip, refusal or diagnostic that reads the true graph outside a mechanism shows
up as a difference (two mutants below check that the harness sees one).
"""
import contextlib
import dataclasses
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.engine import CSPInstance
from dpgraph.graph import GraphInputWarning
from dpgraph.privacy import noise as N
from dpgraph.release.routes import local as LOC
from dpgraph.release.routes import randomized_response as RRM
from dpgraph.solve import candidates as CAND
from dpgraph.solve import csp as CSP


class Structural(AssertionError):
    """The mechanism calls differ in kind, shape or number: a data-dependent structure."""


class Replay:
    def __init__(self):
        self.tape, self.recording, self.i = [], True, 0

    def io(self, kind, value):
        if self.recording:
            self.tape.append((kind, np.shape(value), np.array(value, copy=True)))
            return value
        if self.i >= len(self.tape):
            raise Structural(f"an extra mechanism call #{self.i}: {kind}{np.shape(value)}")
        k, shape, v = self.tape[self.i]
        self.i += 1
        if k != kind or tuple(shape) != tuple(np.shape(value)):
            raise Structural(f"mechanism call #{self.i - 1}: {kind}{np.shape(value)}, "
                             f"reference {k}{shape}")
        return np.array(v, copy=True)

    @contextlib.contextmanager
    def patched(self, mp):
        from dpgraph.release.routes import matrix_free as MF

        grid, exp_c, exp_s = N._grid_rounded, CAND.monotone_exponential_mechanism, \
            CSP.monotone_exponential_mechanism
        rr, scores = RRM.randomized_response, LOC.label_scores
        gauss, core = MF._Releases.gaussian, MF._Releases.symmetric_core
        mp.setattr(N, "_grid_rounded", lambda a, g: self.io("grid", grid(a, g)))
        mp.setattr(CAND, "monotone_exponential_mechanism",
                   lambda s, **k: exp_c(self.io("exp", np.asarray(s, float)), **k))
        mp.setattr(CSP, "monotone_exponential_mechanism",
                   lambda s, **k: exp_s(self.io("exp", np.asarray(s, float)), **k))
        mp.setattr(RRM, "randomized_response", lambda b, **k: rr(self.io("rr", b), **k))
        mp.setattr(LOC, "label_scores", lambda *a: self.io("scores", scores(*a)))
        mp.setattr(MF._Releases, "gaussian", lambda o, v, *a: gauss(o, self.io("gauss", v), *a))
        mp.setattr(MF._Releases, "symmetric_core",
                   lambda o, c, *a: core(o, self.io("core", c), *a))
        yield


def _canon(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,
                tuple((f.name, _canon(getattr(x, f.name))) for f in dataclasses.fields(x)
                      if f.compare))
    if isinstance(x, dict):
        return tuple(sorted((repr(k), _canon(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_canon(v) for v in x)
    if isinstance(x, (set, frozenset)):
        return tuple(sorted(map(repr, x)))
    if isinstance(x, np.ndarray):
        return (x.shape, x.dtype.str, x.tobytes())
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return x if isinstance(x, (int, float, str, bool, type(None))) else repr(x)


def _view(res) -> dict:
    """Everything a caller sees of a result, canonical and comparable."""
    out = {k: _canon(getattr(res, k)) for k in
           ("partition", "assignment", "estimated_value", "estimate_interval",
            "synthetic_value", "sdp_bound", "eta") if hasattr(res, k)}
    out["diagnostics"] = _canon(res.diagnostics)
    out["ledger"] = [(e.name, e.mechanism, e.epsilon, e.delta, e.sensitivity,
                      e.sensitivity_norm, e.noise_scale, e.note, e.rho)
                     for e in res.ledger.entries]
    out["repr"] = repr(res)
    pg = getattr(res, "private_graph", None)
    if pg is not None:
        out["release"] = _canon({k: v for k, v in pg.diagnostics.items()
                                 if k != "composition_ledger"})
        out["labels"] = tuple(map(repr, pg.labels))
        rel = getattr(pg, "local", None)
        for a in ("order", "degrees", "candidates", "fields", "confidence", "edge_count"):
            if rel is not None:
                out["local." + a] = _canon(getattr(rel, a))
    return out


def replay_differences(call, inputs, monkeypatch, seed=0) -> dict:
    """Record the mechanisms' inputs on ``inputs[0]``, replay them on the others (same seed);
    returns ``{index: [what differs]}`` (empty lists: non-interference)."""
    rp, views, states = Replay(), [], []
    for k, x in enumerate(inputs):
        rp.recording, rp.i = k == 0, 0
        gen = np.random.default_rng(seed)
        with monkeypatch.context() as mp, rp.patched(mp), \
                warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            res = call(x, gen)
        if k and rp.i != len(rp.tape):
            raise Structural(f"input {k}: {rp.i} mechanism calls, reference {len(rp.tape)}")
        views.append(_view(res))
        # the warnings of the answer (those describing the input object while it is converted,
        # GraphInputWarning, are outside the guarantee: docs/privacy.md 11)
        views[-1]["warnings"] = [(w.category.__name__, str(w.message)) for w in said
                                 if not issubclass(w.category, GraphInputWarning)]
        states.append(repr(gen.bit_generator.state))
    return {k: [key for key in views[0] if views[0][key] != views[k].get(key)]
            + (["draws from the generator"] if states[k] != states[0] else [])
            for k in range(1, len(inputs))}


def _graph_and_neighbours(n, p, seed, weighted):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.1, 1.0)) if weighted else 1.0
    removed = G.copy()
    removed.remove_edge(*sorted(G.edges)[0])
    added = G.copy()
    added.add_edge(*next((u, v) for u in G for v in G if u < v and not G.has_edge(u, v)),
                   weight=1.0)
    reweighted = G.copy()
    u, v = sorted(G.edges)[1]
    reweighted[u][v]["weight"] = 0.5 if G[u][v]["weight"] != 0.5 else 0.25
    other = nx.gnp_random_graph(n, p, seed=seed + 100)  # not adjacent: the same must hold
    nx.set_edge_attributes(other, 1.0, "weight")
    return [G, removed, added, reweighted, other]


# (n, p, epsilon, delta, weighted): the forward pass alone; the backward pass (pure, delta 0);
# randomized response's pooled candidates (delta > 0, high released signal); weighted edges
CUT_CASES = [(40, 0.08, 1.0, 1e-6, False), (40, 0.35, 4.0, 0.0, False),
             (40, 0.4, 8.0, 1e-6, False), (40, 0.25, 3.0, 1e-6, True)]


@pytest.mark.parametrize("problem", ["max_cut", "max_bisection"])
@pytest.mark.parametrize("n,p,eps,delta,weighted", CUT_CASES)
def test_cut_answers_read_the_graph_only_through_their_mechanisms(problem, n, p, eps, delta,
                                                                  weighted, monkeypatch):
    fn = getattr(dpgraph, problem)
    inputs = _graph_and_neighbours(n, p, 1, weighted)
    diffs = replay_differences(lambda G, gen: fn(G, epsilon=eps, delta=delta, rng=gen),
                               inputs, monkeypatch)
    assert diffs == {k: [] for k in range(1, len(inputs))}


def test_the_branches_of_cut_cases_are_exercised():
    """CUT_CASES take the backward pass and the pooled randomized-response candidates (else
    their checks would be vacuous)."""
    names = []
    for n, p, eps, delta, weighted in CUT_CASES:
        G = _graph_and_neighbours(n, p, 1, weighted)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dpgraph.max_cut(G, epsilon=eps, delta=delta, rng=0)
        names.append([e.name for e in res.ledger.entries])
    assert "local route: backward pass" in names[1]
    assert "randomized response (all pairs)" in names[2]


def _csp_constraints(n, q, p, seed, weighted=False):
    rng = np.random.default_rng(seed)
    return [(i, j, {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.5},
             float(rng.uniform(0.2, 1.0)) if weighted else 1.0)
            for i in range(n) for j in range(i + 1, n) if rng.random() < p]


@pytest.mark.parametrize("eps,delta,estimate", [(1.0, 1e-6, True), (4.0, 0.0, True),
                                                (2.0, 1e-6, False)])
def test_max_2csp_reads_the_constraints_only_through_its_mechanisms(eps, delta, estimate,
                                                                    monkeypatch):
    n, q = 20, 3
    base = _csp_constraints(n, q, 0.25, 0)
    everything = {(a, b) for a in range(q) for b in range(q)}
    inputs = [CSPInstance(n, q, base),
              CSPInstance(n, q, base[1:]),                              # one removed
              CSPInstance(n, q, base + [(0, 1, everything, 1.0)]),      # one added
              CSPInstance(n, q, base + [(2, 5, set(), 0.7)]),           # an empty relation
              CSPInstance(n, q, _csp_constraints(n, q, 0.5, 7, True))]  # not adjacent
    diffs = replay_differences(
        lambda inst, gen: dpgraph.max_2csp(inst, epsilon=eps, delta=delta, rng=gen,
                                           estimate=estimate), inputs, monkeypatch)
    assert diffs == {k: [] for k in range(1, len(inputs))}


def test_replay_sees_a_diagnostic_of_the_true_graph(monkeypatch):
    """Mutant: a diagnostic that prints the true edge count. The harness must flag it."""
    from dpgraph.solve import cut as CUT

    real = CUT.solve_local

    def leaky(problem, data, **kw):
        res = real(problem, data, **kw)
        res.diagnostics["edges"] = data.m
        return res

    monkeypatch.setattr(CUT, "solve_local", leaky)
    inputs = _graph_and_neighbours(40, 0.08, 1, False)[:2]
    diffs = replay_differences(lambda G, gen: dpgraph.max_cut(G, epsilon=1.0, delta=0, rng=gen),
                               inputs, monkeypatch)
    assert "diagnostics" in diffs[1] and "repr" not in diffs[1]


def test_replay_sees_ties_broken_by_true_degrees(monkeypatch):
    """Mutant: the local route orders by coarsely rounded released degrees and breaks their
    ties by the true degrees."""
    real = LOC.release_order

    def leaky(degrees, **kw):
        dhat, _ = real(degrees, **kw)
        return dhat, np.lexsort((-np.asarray(degrees), -np.round(dhat / 1000.0)))

    monkeypatch.setattr(LOC, "release_order", leaky)
    # an empty graph and one edge: the rounded released degrees all tie; the true degrees then
    # put nodes 28 and 29 first in the neighbour only
    G = nx.empty_graph(30)
    H = G.copy()
    H.add_edge(28, 29)
    diffs = replay_differences(lambda X, gen: dpgraph.max_cut(X, epsilon=1.0, delta=0, rng=gen),
                               [G, H], monkeypatch)
    assert "local.order" in diffs[1] and "assignment" in diffs[1]


def test_replay_sees_a_branch_on_the_true_edge_count(monkeypatch):
    """Mutant: the local route's plan sized by the true edge count instead of the released one
    (a backward pass on the denser graph only): the mechanism calls change in number, which the
    replay reports as structural."""
    from dpgraph.solve import cut_local as CL

    real, true_m = CL.plan_local, {}
    monkeypatch.setattr(CL, "plan_local",
                        lambda n, m_hat, eps, **kw: real(n, true_m["m"], eps, **kw))

    def call(X, gen):
        true_m["m"] = X.number_of_edges()
        return dpgraph.max_cut(X, epsilon=4.0, delta=0, rng=gen)

    G = nx.gnp_random_graph(40, 0.5, seed=0)
    H = nx.gnp_random_graph(40, 0.05, seed=0)
    with pytest.raises(Structural):
        replay_differences(call, [G, H], monkeypatch)


# ------------------------------------------------------------------ the protected domain
# Each entry point refuses, before anything is charged or drawn, inputs outside the domain its
# sensitivity arguments assume (docs/privacy.md 4, 4.12, 6): weights outside [0, 1], NaN,
# parallel edges summed above 1, a directed graph, a constraint on one variable; self-loops are
# dropped before anything is computed, so they change nothing.

def _refused_before_spending(call, spend_spy, exc=(ValueError, TypeError)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc):
            call()
    assert spend_spy == {"charge": 0, "draw": 0}


def _bad_graphs():
    base = nx.cycle_graph(6)
    heavy, negative, nan = base.copy(), base.copy(), base.copy()
    heavy[0][1]["weight"] = 1.5
    negative[0][1]["weight"] = -0.5
    nan[0][1]["weight"] = float("nan")
    multi = nx.MultiGraph(base)
    multi.add_edge(0, 1)  # summed to weight 2
    return {"weight above 1": heavy, "negative weight": negative, "NaN weight": nan,
            "parallel edges summed above 1": multi, "directed": nx.DiGraph(base)}


@pytest.mark.parametrize("problem", ["max_cut", "max_bisection"])
@pytest.mark.parametrize("case", list(_bad_graphs()))
def test_cut_answers_refuse_graphs_outside_the_domain_before_spending(problem, case,
                                                                      spend_spy):
    G = _bad_graphs()[case]
    _refused_before_spending(
        lambda: getattr(dpgraph, problem)(G, epsilon=1.0, delta=1e-6, rng=0), spend_spy)


@pytest.mark.parametrize("problem", ["max_cut", "max_bisection"])
def test_self_loops_change_nothing(problem):
    G = nx.gnp_random_graph(30, 0.2, seed=3)
    H = G.copy()
    H.add_edges_from([(0, 0), (5, 5)])
    out = []
    for X in (G, H):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = getattr(dpgraph, problem)(X, epsilon=2.0, delta=1e-6, rng=4, weight=None)
        out.append((res.assignment, res.estimated_value, repr(res)))
    assert out[0] == out[1]


@pytest.mark.parametrize("constraint", [(0, 1, {(0, 1)}, 1.5), (0, 1, {(0, 1)}, float("nan")),
                                        (0, 1, {(0, 1)}, -0.5), (2, 2, {(0, 0)}, 1.0)])
def test_max_2csp_refuses_constraints_outside_the_domain_before_spending(constraint,
                                                                         spend_spy):
    def call():
        inst = CSPInstance(4, 2, [(1, 2, {(0, 1)}, 1.0), constraint])
        return dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=0)

    _refused_before_spending(call, spend_spy)


def test_memory_refusal_of_the_private_input_names_no_edge_count(monkeypatch, spend_spy):
    """in_label_order's refusal printed the true edge count and the bytes it needed (which
    name it to within a few edges); a neighbour one edge lighter may be answered
    (docs/privacy.md 11.1). Fixed in 91ac982 (input_graph rewords every converter's refusal)."""
    G = nx.Graph()
    G.add_nodes_from(range(59, -1, -1))  # labels out of order: in_label_order copies
    G.add_edges_from(nx.gnp_random_graph(60, 0.2, seed=0).edges)
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1K")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MemoryError) as info:
            dpgraph.max_cut(G, epsilon=1.0, delta=0, rng=0)
    assert f"{G.number_of_edges():,}" not in str(info.value)
    assert "needs about" not in str(info.value)
    assert spend_spy == {"charge": 0, "draw": 0}


# ------------------------------------------------------------------ the node set and its order

def test_labels_that_tie_under_label_key_are_refused_or_ordered_by_the_node_set():
    a, b = float("nan"), float("nan")
    E = [(a, 1.0), (b, 2.0), (a, 3.0), (1.0, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, b)]
    firsts = []
    for G in (nx.Graph(E), nx.Graph(E[1:])):  # without the edge {a, 1}, b appears first
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = dpgraph.max_cut(G, epsilon=1.0, delta=0, rng=0)
        except ValueError:
            firsts.append("refused")
            continue
        labels = list(res.private_graph.labels)
        firsts.append(labels.index(a) < labels.index(b))
    assert firsts[0] == firsts[1]


def test_an_edge_list_passed_to_an_answer_says_its_node_set_comes_from_the_edges():
    E = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (5, 6)]  # node 6's only edge last
    with pytest.warns(GraphInputWarning, match="node set"):
        dpgraph.max_cut(E, epsilon=1.0, delta=0, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)  # a graph object carries its nodes
        dpgraph.max_cut(nx.Graph(E), epsilon=1.0, delta=0, rng=0)


def test_a_dask_frame_of_edges_passed_to_an_answer_says_so_too():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    df = dd.from_pandas(pd.DataFrame({"u": [0, 1, 2, 3, 4, 5, 5], "v": [1, 2, 3, 4, 5, 0, 6]}),
                        npartitions=1)
    with pytest.warns(GraphInputWarning, match="Dask DataFrame of edges.*from_dask"):
        dpgraph.max_cut(df, epsilon=1.0, delta=0, rng=0)
