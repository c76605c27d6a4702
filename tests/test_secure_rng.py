"""Secure noise by default: the known-seed attack works on seeded releases only.

The attack: an attacker who knows the seed runs the same release on a graph they know (same
nodes, one edge). Randomized response draws its flips independently of the data, so with the
same seed the two released bit matrices differ exactly where the graphs differ, and
``release XOR attacker's release XOR attacker's graph`` is the private graph.
"""

import math
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.privacy import (REPRODUCIBLE_NOTICE, PrivacyLedger, ReproducibleNoiseWarning,
                             gaussian_mechanism, is_secure, laplace_mechanism, make_rng,
                             secure_rng, symmetric_gaussian_noise)
from dpgraph.privacy.rng import block_generator


def _karate():
    return nx.Graph(nx.karate_club_graph().edges())


def _released_bits(pg):
    """The released randomized-response bits, recovered from the de-biased release
    ``(Y - p)/(1 - 2p)`` (post-processing of the release, as an attacker would)."""
    p = pg.ledger.entries[-1].noise_scale  # the flip probability of randomized response
    Y = pg.unbiased * (1 - 2 * p) + p
    return np.rint(Y).astype(np.int8)


def _attack(rng_private, rng_attacker):
    G = _karate()
    nodes = sorted(G.nodes)  # the order the release reads them in (docs/privacy.md 4.14)
    known = nx.Graph()
    known.add_nodes_from(nodes)
    known.add_edge(nodes[0], nodes[1])
    kw = dict(epsilon=1.0, delta=1e-6, rank=2, route="randomized-response",
              synthetic_share=None)  # the pair release alone
    pg = dpgraph.privatize(G, rng=rng_private, **kw)
    released = _released_bits(pg)
    mine = _released_bits(dpgraph.privatize(known, rng=rng_attacker, **kw))
    A_known = nx.to_numpy_array(known, nodelist=nodes).astype(np.int8)
    guess = released ^ mine ^ A_known
    A = nx.to_numpy_array(G, nodelist=nodes).astype(np.int8)
    off = ~np.eye(len(nodes), dtype=bool)
    flip = pg.ledger.entries[-1].noise_scale
    return int((guess == A)[off].sum()), int(off.sum()), flip


def test_known_seed_recovers_every_pair():
    with pytest.warns(ReproducibleNoiseWarning):
        recovered, pairs, _ = _attack(0, 0)
    assert (recovered, pairs) == (1122, 1122)  # the measurement: 1,122 of 1,122


def test_default_release_defeats_the_attack():
    """With fresh secure noise the guess is right where the two independent flips agree:
    probability (1-p)^2 + p^2, below what the private release alone already gives (1 - p,
    randomized response's own accuracy). The count over 561 pairs (each counted twice) is
    Binomial(561, q); we assert it is within 5 standard deviations of that and far from all."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReproducibleNoiseWarning)  # no warning on the default
        recovered, pairs, p = _attack(None, None)
    q = (1 - p) ** 2 + p ** 2
    mean, sd = 561 * q, math.sqrt(561 * q * (1 - q))
    print(f"recovered {recovered} of {pairs} ordered pairs (chance of agreeing flips: "
          f"{2 * mean:.0f} expected; the release alone: {pairs * (1 - p):.0f})")
    assert abs(recovered / 2 - mean) <= 5 * sd
    assert recovered < pairs * (1 - p)  # no better than reading the release itself


def test_default_generator_is_a_cipher_keyed_from_os():
    gen = make_rng(None)
    assert is_secure(gen) and type(gen.bit_generator).__mro__[1].__name__ in ("AESCounter", "ChaCha")
    a, b = secure_rng().integers(2**63, size=4), secure_rng().integers(2**63, size=4)
    assert not np.array_equal(a, b)  # two default generators never share a key
    assert not is_secure(make_rng(0)) and not is_secure(np.random.default_rng())


@pytest.mark.parametrize("rng", [0, np.random.default_rng(0), np.random.SeedSequence(3)])
def test_seeded_release_is_marked_and_warns(rng):
    with pytest.warns(ReproducibleNoiseWarning, match=REPRODUCIBLE_NOTICE):
        res = dpgraph.max_cut(_karate(), epsilon=2.0, delta=1e-6, rng=rng)
    assert res.ledger.reproducible
    assert REPRODUCIBLE_NOTICE in repr(res) and REPRODUCIBLE_NOTICE in repr(res.ledger)
    assert REPRODUCIBLE_NOTICE.upper() in res.ledger.report()
    assert res.ledger.to_dict()["reproducible"] is True
    assert REPRODUCIBLE_NOTICE in repr(res.private_graph)


def test_default_release_is_not_marked():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReproducibleNoiseWarning)
        res = dpgraph.max_cut(_karate(), epsilon=2.0, delta=1e-6)
        pg = dpgraph.privatize(_karate(), epsilon=2.0, delta=1e-6, rng=secure_rng())
    assert not res.ledger.reproducible and REPRODUCIBLE_NOTICE not in repr(res)
    assert not pg.ledger.reproducible


@pytest.mark.parametrize("draw", ["gaussian", "laplace", "matrix"])
def test_every_noise_function_marks_its_ledger(draw):
    led = PrivacyLedger(epsilon=10, delta=1e-3)
    with pytest.warns(ReproducibleNoiseWarning):
        if draw == "gaussian":
            gaussian_mechanism(1.0, sensitivity=1, epsilon=1, delta=1e-6, ledger=led, name="g", rng=1)
        elif draw == "laplace":
            laplace_mechanism(1.0, sensitivity=1, epsilon=1, ledger=led, name="l", rng=1)
        else:
            symmetric_gaussian_noise(5, sensitivity=1, epsilon=1, delta=1e-6, ledger=led,
                                     name="m", rng=1)
    assert led.reproducible


def test_secure_block_noise_is_gaussian_symmetric_and_blockwise_independent():
    """Block-generated noise under a secure generator: symmetric, the right variance, the same
    matrix however it is read (blocks regenerated), and distinct blocks uncorrelated."""
    led = PrivacyLedger(epsilon=1, delta=1e-6)
    G = symmetric_gaussian_noise(300, sensitivity=1.0, epsilon=1, delta=1e-6, ledger=led,
                                 name="m", block_size=64)
    assert not led.reproducible
    D = G.to_dense()
    assert np.array_equal(D, D.T)
    V = np.eye(300)[:, :7]
    assert np.allclose(G.matmul(V), D[:, :7])  # regenerated blocks give the same matrix
    z = D[np.triu_indices(300, 1)] / G.sigma
    # 44,850 standard normals: mean within 5/sqrt(N), variance within 5 sqrt(2/N)
    assert abs(z.mean()) < 5 / math.sqrt(z.size) and abs(z.var() - 1) < 5 * math.sqrt(2 / z.size)
    for cipher in ("aes", "chacha"):
        a = block_generator(cipher, 12345, (0, 1)).standard_normal(20000)
        b = block_generator(cipher, 12345, (1, 0)).standard_normal(20000)
        assert abs(np.corrcoef(a, b)[0, 1]) < 5 / math.sqrt(20000)


def test_make_rng_takes_what_default_rng_takes_but_the_legacy_state():
    """A NumPy bit generator is wrapped as numpy.random.default_rng does (and is reproducible,
    so not private); a legacy RandomState is refused with what to pass instead; every message
    names the accepted kinds, SeedSequence included."""
    from dpgraph.privacy.rng import is_secure, make_rng

    a, b = make_rng(np.random.PCG64(3)), np.random.default_rng(np.random.PCG64(3))
    assert a.integers(10**9) == b.integers(10**9) and not is_secure(a)
    with pytest.raises(TypeError, match=r"SeedSequence.*RandomState is not taken"):
        make_rng(np.random.RandomState(0))
    with pytest.raises(ValueError, match="SeedSequence"):
        make_rng(-1)
