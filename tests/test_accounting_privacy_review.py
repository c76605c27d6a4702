"""Privacy review of accounting, randomness, inputs and defaults (docs/privacy.md 1, 4.12,
4.14, 8, 10, 11).

Each test fails on a security- or statement-relevant change that no other test of the default
suite caught when the code was mutated (the review's mutation table), and passes on the code
as it is. Each checks the code against something independent of it: a constant stated in
docs/privacy.md, a formula of the cited paper evaluated by hand, the raw keystream of the
cipher, or the same call on an adjacent input.
"""

import math
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.privacy import PrivacyBudgetError, PrivacyLedger, secure_rng
from dpgraph.privacy.rng import block_generator, block_key, child_rng, is_secure


# ------------------------------------------------ 1: the ledger's slack and the zCDP charges

def test_the_budget_check_allows_a_relative_1e_9_and_no_more():
    """docs/privacy.md 1: a charge passes when the total stays within the budget times
    ``1 + 1e-9`` (so that shares of a budget that sum to it in floating point pass), for
    epsilon and for delta alike; a charge a millionth over is refused, recording nothing."""
    for eps_over, dlt_over in ((1e-6, 0.0), (0.0, 1e-6)):
        led = PrivacyLedger(epsilon=1.0, delta=1e-6)
        with pytest.raises(PrivacyBudgetError):
            led.charge("over", mechanism="laplace", epsilon=1.0 + eps_over,
                       delta=1e-6 * (1 + dlt_over))
        assert led.entries == ()
    led = PrivacyLedger(epsilon=1.0, delta=1e-6)
    led.charge("within the slack", mechanism="laplace", epsilon=1.0 + 1e-10,
               delta=1e-6 * (1 + 1e-10))
    assert len(led.entries) == 1


def test_pure_and_gaussian_charges_record_the_bun_steinke_rho():
    """docs/privacy.md 1 (zCDP accounting): a pure epsilon-DP charge (randomized response,
    K-norm) records ``rho = epsilon^2 / 2`` (Bun & Steinke 2016, Prop. 1.4) and a Gaussian one
    ``rho = D^2 / (2 sigma^2)`` (Prop. 1.6); the zCDP ledger's total is the conversion of their
    sum. A smaller rho on randomized response would let a zCDP ledger admit more charges than
    the composition theorem allows."""
    from dpgraph.privacy import ball_knorm_mechanism, gaussian_mechanism, randomized_response

    led = PrivacyLedger(epsilon=10.0, delta=1e-5, accounting="zcdp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        randomized_response(np.zeros(10, dtype=int), epsilon=0.5, ledger=led, name="rr", rng=0)
        ball_knorm_mechanism(np.zeros(2), sensitivity=1.0, epsilon=0.3, ledger=led, name="k",
                             rng=0)
        _, sigma = gaussian_mechanism(np.zeros(3), sensitivity=2.0, epsilon=1.0, delta=1e-6,
                                      ledger=led, name="g", rng=0)
    rr, kn, ga = led.entries
    assert rr.rho == 0.5 * 0.5 ** 2 and kn.rho == 0.5 * 0.3 ** 2
    assert ga.rho == pytest.approx(2.0 ** 2 / (2 * sigma ** 2), rel=1e-12)
    total = rr.rho + kn.rho + ga.rho
    assert led.rho == pytest.approx(total, rel=1e-12)
    # the zCDP statement at the Gaussian's delta (Bun-Steinke Prop. 1.3 bounds the CKS one)
    standard = total + 2 * math.sqrt(total * math.log(1 / 1e-6))
    assert led.spent[0] <= min(0.5 + 0.3 + 1.0, standard) + 1e-12


# ---------------------------------------------------- 8: where the noise's randomness comes from

def _words32(cipher, index, n=4000):
    """The raw keystream of block ``index`` under a fixed key, as 32-bit words."""
    raw = block_generator(cipher, 2**100 + 12345, index).bit_generator.random_raw(n)
    return np.asarray(raw, dtype=np.uint64).view(np.uint32)


@pytest.mark.parametrize("cipher", ["aes", "chacha"])
def test_noise_blocks_are_disjoint_segments_of_the_keystream(cipher):
    """docs/privacy.md 8: block ``(bi, bj)`` starts the cipher's counter at
    ``(bi 2^32 + bj) 2^64`` (a 128-bit AES block for AES-CTR, a 32-bit output word for
    randomgen's ChaCha), so no two blocks share a stretch of keystream. Any overlap, at any
    32-bit offset, would make two blocks' noise equal, shifted: every pair of consecutive
    words of one block is looked up in the others (random 64-bit pairs collide with
    probability about 10^-11 here)."""
    blocks = [(0, 0), (0, 1), (1, 0), (1, 1)]
    pairs = {}
    for b in blocks:
        w = _words32(cipher, b).astype(np.uint64)
        pairs[b] = set(((w[:-1] << np.uint64(32)) | w[1:]).tolist())
    for a in blocks:
        for b in blocks:
            if a < b:
                assert not pairs[a] & pairs[b], (cipher, a, b)


def test_block_noise_and_child_streams_are_keyed_afresh_by_the_secure_generator():
    """docs/privacy.md 8 and 4.12: under a secure generator, the key of a block-generated
    noise matrix and of the Bernoulli rounding's child stream are fresh cipher keys drawn from
    it (never a constant, never a PCG64 stream): two releases' block noise differs, and the
    child stream is itself a cipher keystream. Under a seed both are reproducible."""
    from dpgraph.privacy import symmetric_gaussian_noise

    for _ in range(2):
        cipher, key = block_key(secure_rng())
        assert cipher in ("aes", "chacha") and key != block_key(secure_rng())[1]
    mats = []
    for _ in range(2):
        led = PrivacyLedger(epsilon=1.0, delta=1e-6)
        mats.append(symmetric_gaussian_noise(6, sensitivity=1.0, epsilon=1.0, delta=1e-6,
                                             ledger=led, name="m").to_dense())
        assert not led.reproducible
    assert not np.array_equal(mats[0], mats[1])
    a, b = child_rng(secure_rng()), child_rng(secure_rng())
    assert type(a.bit_generator).__name__ in ("AESCounter", "ChaCha")
    assert not np.array_equal(a.bit_generator.random_raw(4), b.bit_generator.random_raw(4))
    # seeded: the same seed gives the same child, another seed another one
    draw = lambda seed: child_rng(np.random.default_rng(seed)).random(8)  # noqa: E731
    assert np.array_equal(draw(3), draw(3)) and not np.array_equal(draw(3), draw(4))
    assert not is_secure(child_rng(np.random.default_rng(3)))


def test_bernoulli_rounding_is_fresh_randomness_for_every_release():
    """docs/privacy.md 4.12: a fractional weight ``w`` is rounded to ``Bernoulli(w)`` with
    fresh randomness: two releases round 400 weights 0.5 differently (under the default
    generator and under two seeds), about 200 of them to 1 (within 5 standard deviations, on
    the seeded draws); a fixed stream would make the rounded bits a known function of the
    weights."""
    from dpgraph.release.routes.randomized_response import bernoulli_round

    w = np.full(400, 0.5)
    a, b = bernoulli_round(w, secure_rng()), bernoulli_round(w, secure_rng())
    assert not np.array_equal(a, b)  # equal with probability 2^-400
    seeded = [bernoulli_round(w, np.random.default_rng(seed)) for seed in (1, 2)]
    assert not np.array_equal(*seeded)
    assert all(abs(int(x.sum()) - 200) <= 5 * 10 for x in seeded)  # Binomial(400, 1/2)


# ---------------------------------------------------- 4.12: the domain of weights, every input kind

def _path_weights(n=8):
    return [(i, i + 1) for i in range(n - 1)]


def _inputs_with_weight(value):
    """The same 8-node path, one edge of weight ``value``, in every kind of input."""
    import igraph as ig

    E = _path_weights()
    G = nx.Graph()
    G.add_nodes_from(range(8))
    G.add_weighted_edges_from([(u, v, value if k == 0 else 1.0) for k, (u, v) in enumerate(E)])
    A = nx.to_numpy_array(G, nodelist=range(8))
    g = ig.Graph(n=8, edges=E)
    g.es["weight"] = [value] + [1.0] * (len(E) - 1)
    return {"networkx": G, "igraph": g, "numpy": A, "scipy": sp.csr_array(A),
            "edge list": [(u, v, value if k == 0 else 1.0) for k, (u, v) in enumerate(E)]}


@pytest.mark.parametrize("value", [-0.25, 1.0 + 1e-9])
@pytest.mark.parametrize("kind", ["networkx", "igraph", "numpy", "scipy", "edge list"])
def test_weights_outside_zero_one_are_refused_before_anything_is_spent(kind, value, spend_spy):
    """docs/privacy.md 4.12: the adjacency is defined on weights in ``[0, 1]``; a weight
    outside it (negative, or above 1 by any amount) is refused before anything is released,
    whatever kind of object holds the graph (NetworkX, igraph, NumPy, SciPy, an edge list) and
    whichever entry point reads it (tests/test_answer_data_flow.py covers NetworkX graphs on
    the answers)."""
    G = _inputs_with_weight(value)[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an edge list's node set (4): said, not the point
        for call in (lambda: dpgraph.privatize(G, epsilon=1.0, delta=1e-6),
                     lambda: dpgraph.max_cut(G, epsilon=1.0, delta=1e-6),
                     lambda: dpgraph.release_synthetic(G, epsilon=1.0)):
            with pytest.raises(ValueError, match=r"edge weights lie in \[0, 1\]"):
                call()
    assert spend_spy == {"charge": 0, "draw": 0}


def test_a_nan_weight_is_out_of_the_domain_even_past_the_converters():
    """docs/privacy.md 4.12: the domain check itself refuses a NaN weight (both of its
    comparisons are false for NaN, so ``lo < 0 or hi > 1`` would let it through); the converters
    refuse NaN first, but a graph built in the canonical form (``canonical_graph``) skips
    them."""
    from dpgraph.graph import canonical_graph
    from dpgraph.private_input import check_private_graph_input

    A = nx.to_numpy_array(nx.path_graph(6))
    A[0, 1] = A[1, 0] = np.nan
    data = canonical_graph(sp.csr_array(A), range(6))
    with pytest.raises(ValueError, match=r"edge weights lie in \[0, 1\]"):
        check_private_graph_input(data)
    G = nx.path_graph(6)
    G[0][1]["weight"] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6)


# ---------------------------------------------------------------- 10: small-graph defaults

@pytest.mark.parametrize("n", [3, 6])
@pytest.mark.parametrize("route", ["matrix-free", "pca", "randomized-response", "local"])
def test_the_rank_note_names_the_rank_the_route_used(route, n):
    """docs/privacy.md 10.3: ``rank=None`` is ``min(8, n - 2)`` on the dense routes and
    ``min(2, n - 2)`` on the matrix-free route, and ``diagnostics["rank_note"]`` records a cap
    with the rank used; the local route has no low-rank release, so no note (a note of the
    dense default, "rank 4: the default rank 8 capped", on a matrix-free release of rank 2
    mis-states the release)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(nx.cycle_graph(n), epsilon=5.0, delta=1e-5, route=route, rng=0,
                               synthetic_share=None)
    note = pg.diagnostics.get("rank_note")
    if route == "local":
        assert note is None
        return
    default = 2 if route == "matrix-free" else 8
    rank = min(default, n - 2)
    assert pg.diagnostics["rank"] == rank
    if rank < default:
        assert note.startswith(f"rank {rank}: ") and f"default rank {default} capped" in note
    else:
        assert note is None


def test_backend_reads_the_weight_each_call_asks_for():
    """docs/privacy.md 10.1 and 10.4: NetworkX reuses a conversion made for one weight
    attribute for a call that asks for fewer; with ``weight=None`` the backend reads every edge
    as weight 1 (weights neither used nor protected), not the weights of the earlier
    conversion."""
    from dpgraph import nx_backend

    G = nx.path_graph(6)
    nx.set_edge_attributes(G, 0.5, "weight")
    bg = nx_backend.convert_from_nx(G, edge_attrs={"weight": 1})
    assert set(bg.graph_data("weight").weights.data) == {0.5}
    assert set(bg.graph_data(None).weights.data) == {1.0}


# ---------------------------------------------------------------- 4.14: the node order

def test_frozenset_labels_are_ordered_by_their_value_not_their_iteration_order():
    """docs/privacy.md 4.14: a frozenset label is keyed by its elements *sorted*. Two equal
    frozensets can iterate in different orders (``frozenset([1, 9])`` and
    ``frozenset([9, 1])``: 1 and 9 share a hash slot, so the order is the insertion's), and a
    set built by a traversal of the edges (a component of ``networkx.quotient_graph``) takes an
    insertion order from them: a key in iteration order would let the edges move the released
    node order. Equal node sets built both ways get one order."""
    from dpgraph.graph import as_graph_data, in_label_order

    blocks = [[1, 9], [2, 10], [3, 4], [5, 13], [6, 7]]

    def build(reverse):
        labels = [frozenset(reversed(b) if reverse else b) for b in blocks]
        return nx.relabel_nodes(nx.cycle_graph(5), dict(enumerate(labels)))

    A, B = build(False), build(True)
    assert any(list(a) != list(b) for a, b in zip(A.nodes, B.nodes))  # iteration orders differ
    expected = sorted(sorted(b) for b in blocks)
    for G in (A, B):
        assert [sorted(x) for x in in_label_order(as_graph_data(G)).labels] == expected
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = dpgraph.max_cut(G, epsilon=1.0, delta=0.0, rng=0)
        assert [sorted(x) for x in res.assignment] == expected


# ---------------------------------------------------------------- 11.1: refuse before spending

def test_release_synthetic_refuses_what_public_n_cannot_hold_before_the_edge_count(
        monkeypatch, spend_spy):
    """docs/privacy.md 11.1: ``release_synthetic`` refuses what the public ``n`` alone cannot
    hold before its first release; only what the released edge count adds is refused after
    it. Without the first check the same call would spend the edge count's share and then
    refuse (communities="none": no later public check stands in for it)."""
    from dpgraph.synthetic.release import synthetic_memory

    n = 20_000
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", str(synthetic_memory(n, 0) // 2))
    with pytest.raises(MemoryError, match=f"release_synthetic on {n:,} nodes needs"):
        dpgraph.release_synthetic(nx.path_graph(n), epsilon=1.0, communities="none",
                                  weight=None)
    assert spend_spy == {"charge": 0, "draw": 0}


@pytest.mark.parametrize("route", [None, "randomized-response"])
def test_max_2csp_prices_the_label_graph_before_its_first_charge(route, monkeypatch,
                                                                  spend_spy):
    """docs/privacy.md 11.1: both of ``max_2csp``'s routes price the label-extended graph's
    allowed pairs before the first charge. Memory that runs out there (simulated: the pricing
    refuses) is refused with nothing charged or drawn; priced after the total constraint
    weight, the dense route's refusal would come after a charge."""
    from dpgraph.engine import CSPInstance, twocsp
    from dpgraph.memory import InsufficientMemoryError

    def out_of_memory(*args, **kwargs):
        raise InsufficientMemoryError("the label-extended graph does not fit (simulated)")

    monkeypatch.setattr(twocsp, "check_label_graph_memory", out_of_memory)
    differ = {(a, b) for a in range(3) for b in range(3) if a != b}
    inst = CSPInstance(8, 3, [(i, (i + 1) % 8, differ, 1.0) for i in range(8)])
    with pytest.raises(InsufficientMemoryError, match="simulated"):
        dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rank=2, route=route)
    assert spend_spy == {"charge": 0, "draw": 0}


@pytest.mark.parametrize("route", ["local", "randomized-response"])
def test_certify_shares_that_leave_no_budget_are_refused_before_spending(route, spend_spy):
    """docs/privacy.md 1 and 11.1: with ``certify=True`` the screening count (0.005 of
    epsilon), the certificate (at most 0.1), the choice and the estimate must leave the route
    a budget: ``estimate_share + select_share < 0.895``, checked before anything is spent."""
    G = nx.cycle_graph(12)
    with pytest.raises(ValueError, match="with certify=True, estimate_share"):
        dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, estimate_share=0.5, select_share=0.45,
                        certify=True, route=route)
    assert spend_spy == {"charge": 0, "draw": 0}
