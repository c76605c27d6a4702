"""Synthetic releases on weighted inputs and with seeds.

1. A weighted input gives samples of about its total edge weight in unit-weight edges: said in
   the docstrings (no warning: docs/privacy.md 4.12) and compared against in synthetic_report
   (``total_weight_true``, ``weight_ratio``).
2. A release made in reproducible mode (a seed or a caller's generator) draws its
   ``sample()`` without an ``rng`` from its own seeded stream (NumPy's semantics); a secure
   release draws fresh secure randomness each time.
"""

import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.lab.evaluate import format_synthetic_report, synthetic_report
from dpgraph.privacy import ReproducibleNoiseWarning, secure_rng
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.synthetic.release import SyntheticRelease


def karate():
    return nx.Graph(nx.karate_club_graph().edges())


def weighted_karate():
    """Karate's 78 edges, every other one of weight 0.5: total weight 58.5."""
    G = karate()
    for k, (u, v) in enumerate(sorted(G.edges())):
        G[u][v]["weight"] = 0.5 if k % 2 else 1.0
    return G


def edges(S):
    return {frozenset(e) for e in S.to_networkx().edges}


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded; small samples' own notes
        return fn(*args, **kw)


# ----------------------------------------------------------------------------- 1. weights


def test_weighted_input_gives_samples_of_its_total_weight_without_a_warning():
    """The release aims at the total weight, and no warning depends on whether the weights
    are all 1 (docs/privacy.md 4.12: it would tell two adjacent graphs apart)."""
    for G in (weighted_karate(), karate()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rel = dpgraph.release_synthetic(G, epsilon=1.0, rng=0)
            S = rel.sample()
        assert not [w for w in caught if not issubclass(w.category, ReproducibleNoiseWarning)]
        total = sum(d.get("weight", 1.0) for *_, d in G.edges(data=True))
        assert abs(S.m - total) < 12


def test_the_docstrings_say_the_total_weight_becomes_the_edge_count():
    for doc in (dpgraph.release_synthetic.__doc__, SyntheticRelease.sample.__doc__,
                PrivateGraph.sample.__doc__):
        assert "total edge weight" in doc and "weight=None" in doc


def test_synthetic_report_compares_against_the_total_weight():
    G = weighted_karate()  # 78 edges, total weight 58.5
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from(sorted(G.edges())[:58])  # 58 unit-weight edges
    r = synthetic_report(G, H, max_cut=False)
    assert r["edges_true"] == 78 and r["edges"] == 58
    assert r["edge_ratio"] == pytest.approx(58 / 78)  # the existing key keeps its meaning
    assert r["total_weight_true"] == 58.5 and r["total_weight"] == 58.0
    assert r["weight_ratio"] == pytest.approx(58 / 58.5)
    text = format_synthetic_report(r)
    assert "total edge weight (true 58.5)" in text and "(0.991x)" in text
    # unweighted: the ratios agree and the text keeps its one edges row
    r = synthetic_report(karate(), karate(), max_cut=False)
    assert r["weight_ratio"] == r["edge_ratio"] == 1.0
    assert "total edge weight" not in format_synthetic_report(r)


# ----------------------------------------------------------------------------- 2. seeds


@pytest.mark.parametrize("seed", [0, "generator", "seed sequence"])
def test_seeded_release_samples_are_reproducible_and_advance(seed):
    def make():
        rng = {"generator": np.random.default_rng(7),
               "seed sequence": np.random.SeedSequence(7)}.get(seed, seed)
        return quiet(dpgraph.release_synthetic, karate(), epsilon=1.0, rng=rng)

    a, b = make(), make()
    assert a.sample_rng is not None
    first, second = a.sample(), a.sample()
    assert edges(first) != edges(second)  # one release: a new graph each call
    assert edges(b.sample()) == edges(first) and edges(b.sample()) == edges(second)
    # an explicit rng draws from that rng and leaves the release's stream where it was
    assert edges(a.sample(rng=1)) == edges(b.sample(rng=1))
    assert edges(a.sample()) == edges(b.sample())


def test_one_generator_for_two_releases_gives_them_different_streams():
    gen = np.random.default_rng(3)
    a = quiet(dpgraph.release_synthetic, karate(), epsilon=1.0, rng=gen)
    b = quiet(dpgraph.release_synthetic, karate(), epsilon=1.0, rng=gen)
    assert edges(a.sample()) != edges(b.sample())


@pytest.mark.parametrize("rng", [None, "secure generator"])
def test_secure_release_samples_draw_fresh_secure_randomness(rng):
    rel = dpgraph.release_synthetic(karate(), epsilon=1.0,
                                    rng=secure_rng() if rng else None)
    assert rel.sample_rng is None and not rel.ledger.reproducible
    assert edges(rel.sample()) != edges(rel.sample())
    assert rel.sample_rng is None


@pytest.mark.parametrize("route, share", [("auto", "auto"), ("randomized-response", None),
                                          ("matrix-free", None), ("local", "auto")])
def test_seeded_privatize_samples_are_reproducible_and_advance(route, share):
    def make(rng=0):
        return quiet(dpgraph.privatize, karate(), epsilon=1.0, delta=1e-6, rng=rng,
                     route=route, synthetic_share=share)

    a, b = make(), make()
    first, second = quiet(a.sample), quiet(a.sample)
    assert edges(first) != edges(second)
    assert edges(quiet(b.sample)) == edges(first) and edges(quiet(b.sample)) == edges(second)
    assert edges(quiet(a.sample, rng=1)) == edges(quiet(b.sample, rng=1))
    assert edges(quiet(make(1).sample)) != edges(quiet(make(0).sample))  # another seed


def test_secure_privatize_samples_draw_fresh_secure_randomness():
    pg = dpgraph.privatize(karate(), epsilon=1.0, delta=1e-6)
    assert not pg.ledger.reproducible
    assert edges(pg.sample()) != edges(pg.sample())
    assert "_sample_stream" not in pg.__dict__
