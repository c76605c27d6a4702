"""The communities' read-once label passes (docs/privacy.md 7.14): sensitivity on adjacent
inputs, charges, recovery of planted blocks, and their place in ``release_synthetic``."""

import warnings

import igraph as ig
import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.batches import batch_bounds
from dpgraph.privacy.noise import laplace_add_scale
from dpgraph.privacy.budget import COMMUNITY_SHARE, SIDE_SHARE
from dpgraph.privacy.transcript import transcript
from dpgraph.synthetic.communities import PASS_GROWTH, _rows_block_counts, label_passes
from dpgraph.synthetic.release import PASS_MAX_LABELS, PASS_MIN_LABELS, default_pass_labels

from test_synthetic import _adjacent_pairs, _isolated_pair_graphs


def _pass_l1(A, B, order, bounds, labels, backward):
    """Sum over one pass's batches of the L1 change of the released counts between adjacent
    adjacencies ``A``, ``B``, each batch read against the labels the pass gives it (earlier
    batches decided in the forward pass, later ones in the backward pass; -1 elsewhere)."""
    total = 0.0
    for t, (a, b) in enumerate(bounds):
        z = np.full(order.size, -1)
        others = [i for s, (c, d) in enumerate(bounds)
                  for i in range(c, d) if (s > t if backward else s < t)]
        z[order[others]] = labels[order[others]]
        rows = order[a:b]
        total += np.abs(_rows_block_counts(A, rows, z, 3) - _rows_block_counts(B, rows, z, 3)).sum()
    return total


@pytest.mark.parametrize("backward", [False, True])
def test_label_pass_sensitivity_is_one(backward):
    """docs/privacy.md 7.14: whatever labels each batch is read against (functions of the
    earlier releases, fixed by conditioning), one pair moves one pass's released counts by at
    most 1 in L1: only its later endpoint reads it forward, its earlier one backward, and no
    one inside a batch. The bound is attained."""
    G = nx.Graph(nx.convert_node_labels_to_integers(nx.les_miserables_graph()).edges())
    n = G.number_of_nodes()
    rng = np.random.default_rng(4)
    order = rng.permutation(n)
    bounds = [(0, 3)] + batch_bounds(3, n, 1, 0.2)
    labels = rng.integers(0, 3, size=n)
    worst = max(_pass_l1(A, B, order, bounds, labels, backward) for A, B in _adjacent_pairs(G))
    assert worst == pytest.approx(1.0)


def _reads(G, pair, seed=3, eps=1.0, labels=2):
    """The counts of ``label_passes`` in which the pair ``{u, v}`` is read: for each batch
    row of ``u`` or ``v`` whose other endpoint held a label then, the released count towards
    that label (from the transcript)."""
    data = as_graph_data(G, weight=None)
    with transcript() as seen:
        label_passes(data, epsilon=eps, ledger=PrivacyLedger(), rng=seed, labels=labels)
    out, rows, lab = [], None, None
    for name, value in seen:
        if name == "label pass rows":
            rows = value.astype(np.int64)
        elif name == "label pass labels":
            lab = value.copy()
        elif name == "laplace":
            noisy = value.reshape(rows.size, -1)
            for a, b in (pair, pair[::-1]):
                hit = np.flatnonzero(rows == a)
                if hit.size and lab[b] >= 0:
                    out.append(noisy[hit[0], int(lab[b])])
    return out


def test_label_passes_read_a_pair_once_per_pass_in_the_release():
    """The function itself: with the same noise, the transcripts of two adjacent graphs agree
    up to the first read of the changed pair, where its count differs by exactly 1; the pair
    is read once in each pass (twice in all) unless both ends share a batch."""
    G0, G1 = _isolated_pair_graphs()
    for seed in range(6):
        r0, r1 = _reads(G0, (0, 1), seed), _reads(G1, (0, 1), seed)
        assert len(r0) == len(r1) and len(r0) in (0, 2)
        if r0:
            assert r1[0] - r0[0] == pytest.approx(1.0)


def test_label_passes_charge_and_recover_planted_blocks():
    """Two charges of epsilon / 2, Laplace scale 2 / epsilon (sensitivity 1 each); far above
    the noise the labels are the planted blocks (fixed seeds, NMI), at chance a random
    labelling scores near 0 (the check can fail)."""
    G = nx.planted_partition_graph(4, 100, 0.25, 0.005, seed=1)
    data = as_graph_data(G)
    truth = np.repeat(np.arange(4), 100).tolist()
    nmis = []
    for s in range(3):
        led = PrivacyLedger(epsilon=20, delta=0)
        z = label_passes(data, epsilon=20, ledger=led, rng=s, labels=6)
        assert led.spent[0] == pytest.approx(20.0)
        assert [e.epsilon for e in led.entries] == pytest.approx([10.0, 10.0])
        # the discrete sampler's scale, 1/eps plus its rounding slack (privacy.md 13.1)
        assert all(e.noise_scale == pytest.approx(laplace_add_scale(1.0, 10.0)) == pytest.approx(
            0.1, rel=2e-3) and e.sensitivity == 1.0
                   for e in led.entries)
        assert z.shape == (400,) and z.min() == 0 and z.max() < 6
        nmis.append(ig.compare_communities(truth, z.tolist(), method="nmi"))
    assert np.median(nmis) > 0.8
    rnd = np.random.default_rng(0).integers(6, size=400)
    assert ig.compare_communities(truth, rnd.tolist(), method="nmi") < 0.1


def test_label_passes_beat_the_refinement_rounds_on_planted_blocks_at_small_epsilon():
    """Where the noise is near the signal the passes recover more of the planted blocks than
    the refinement rounds at the same epsilon (median NMI over fixed seeds)."""
    from dpgraph.synthetic.communities import private_communities

    G = nx.planted_partition_graph(4, 150, 0.12, 0.01, seed=3)
    data = as_graph_data(G)
    truth = np.repeat(np.arange(4), 150).tolist()
    passes, rounds = [], []
    for s in range(5):
        z = label_passes(data, epsilon=0.8, ledger=PrivacyLedger(), rng=s, labels=4)
        passes.append(ig.compare_communities(truth, z.tolist(), method="nmi"))
        z = private_communities(data, epsilon=0.8, ledger=PrivacyLedger(), rng=s, rounds=2,
                                init_labels=6)
        rounds.append(ig.compare_communities(truth, z.tolist(), method="nmi"))
    assert np.median(passes) > np.median(rounds)


@pytest.mark.parametrize("bad", [1, 0, 2.5, True])
def test_label_passes_refuse_bad_labels(bad):
    data = as_graph_data(nx.karate_club_graph())
    with pytest.raises(ValueError, match="labels"):
        label_passes(data, epsilon=1, ledger=PrivacyLedger(), rng=0, labels=bad)


def test_default_pass_labels_is_a_public_function_of_the_released_count():
    """A third of the mean degree over the passes' Laplace scale, clipped to [4, 24]; grows
    with epsilon and the released count. Facebook at eps 4 (the passes' 0.68 eps) gets the
    rule's 20 labels unclipped."""
    assert default_pass_labels(31_421, 2_277, 0.73 * 0.5) == PASS_MIN_LABELS
    assert default_pass_labels(88_234, 4_039, 0.73 * 2.0) == round(43.7 * 0.73 / 3)
    assert default_pass_labels(88_234, 4_039, 0.68 * 4.0) == round(43.7 * 0.68 * 4 / 6) == 20
    assert default_pass_labels(88_234, 4_039, 0.73 * 8.0) == PASS_MAX_LABELS
    assert default_pass_labels(-5.0, 100, 1.0) == PASS_MIN_LABELS
    ks = [default_pass_labels(50_000, 2_000, e) for e in (0.3, 1, 2, 3, 4, 6)]
    assert ks == sorted(ks)
    assert PASS_GROWTH == 0.01


def test_release_synthetic_runs_the_label_passes_by_default():
    """The default communities: two label-pass charges summing to the community share less
    the sides' (docs/privacy.md 7.15), the labels in the diagnostics;
    ``community_method="refine"`` the refinement rounds; an unknown method is refused before
    anything is spent."""
    G = nx.planted_partition_graph(3, 100, 0.2, 0.01, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = dpgraph.release_synthetic(G, epsilon=2.0, rng=5)
        old = dpgraph.release_synthetic(G, epsilon=2.0, rng=5, community_method="refine")
    passes = [e for e in rel.ledger.entries if "label pass" in e.name]
    assert len(passes) == 2
    assert sum(e.epsilon for e in passes) == pytest.approx((COMMUNITY_SHARE - SIDE_SHARE) * 2.0)
    assert rel.diagnostics["labels"] == default_pass_labels(
        rel.diagnostics["released_edge_weight"], 300, (COMMUNITY_SHARE - SIDE_SHARE) * 2.0)
    assert not any("node-to-block" in e.name for e in rel.ledger.entries)
    assert rel.ledger.spent == pytest.approx((2.0, 0.0))
    assert old.ledger.spent == pytest.approx((2.0, 0.0))
    assert sum("node-to-block" in e.name for e in old.ledger.entries) == 2
    assert rel.sample(rng=1).m == rel.edge_count
    with pytest.raises(ValueError, match="community_method"):
        dpgraph.release_synthetic(G, epsilon=1.0, rng=5, community_method="louvain")


def test_label_pass_degrees_are_unbiased_with_the_stated_variance():
    """docs/privacy.md 7.14: the degrees from the passes' counts, scaled up by the share of a
    node's batch, are unbiased over the noise and the random order, with the stated noise
    variance (2k draws of Laplace 2 / epsilon, k in the first batch; fixed seeds, 4 SE)."""
    G = nx.planted_partition_graph(3, 80, 0.3, 0.02, seed=5)
    data = as_graph_data(G)
    true = np.asarray(data.weights.sum(axis=1)).ravel()
    errs, zs = [], []
    for s in range(40):
        _, d, var = label_passes(data, epsilon=2.0, ledger=PrivacyLedger(), rng=s, labels=3,
                                 degrees=True)
        assert ((var >= 3 * 2.0) & (var <= 6 * 2.0 * 1.1)).all()  # Laplace(1): variance 2
        errs.append(d - true)
        zs.append((d - true) / np.sqrt(var))
    errs, zs = np.concatenate(errs), np.concatenate(zs)
    assert abs(errs.mean()) < 4 * errs.std() / np.sqrt(errs.size)
    assert 0.85 < zs.var() < 1.15


def test_split_block_model_combines_the_pass_degrees_by_inverse_variance():
    """With an exact estimate (variance ~0) the released degrees are the true ones; with an
    estimate of equal variance, the mean of the two; the ledger is unchanged."""
    from dpgraph.synthetic.block_model import degree_combination, release_split_block_model

    G = nx.planted_partition_graph(2, 40, 0.4, 0.05, seed=1)
    data = as_graph_data(G)
    true = np.asarray(data.weights.sum(axis=1)).ravel()
    blocks = np.repeat([0, 1], 40)
    led = PrivacyLedger()
    bm = release_split_block_model(data, blocks, epsilon=1.0, ledger=led, rng=3,
                                   degree_estimate=(true, np.full(80, 1e-12)))
    assert np.allclose(bm.degrees, np.clip(true, 1, 79))
    assert led.spent[0] == pytest.approx(1.0)
    a, b = np.array([1.0, 5.0]), np.array([3.0, 9.0])
    assert degree_combination(a, 2.0, b, np.array([2.0, 2.0])).tolist() == [2.0, 7.0]


def test_label_passes_refuse_counts_that_do_not_fit(monkeypatch):
    """The n x labels counts are refused before anything is spent, naming what would fit."""
    from dpgraph.memory import InsufficientMemoryError

    data = as_graph_data(nx.karate_club_graph())
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "4K")
    led = PrivacyLedger()
    with pytest.raises(InsufficientMemoryError, match="label_passes on 34 nodes with 50 labels.*"
                                                      "labels fit"):
        label_passes(data, epsilon=1.0, ledger=led, rng=0, labels=50)
    assert led.spent[0] == 0.0


def test_backward_labels_weigh_each_count_vector_by_its_signal_share():
    """docs/privacy.md 7.14: the backward label choice weighs the forward and the backward
    counts by the share of their spread across the labels above the noise's variance (read
    from released rows near the batch): pure-noise counts get a weight near 0, counts with a
    strong label signal a weight near 1, and where neither carries signal the plain sum."""
    from dpgraph.privacy.noise import laplace_add_variance
    from dpgraph.synthetic.communities import _label_shares

    gen = np.random.default_rng(0)
    n, k, eps = 600, 4, 0.5
    noise_var = laplace_add_variance(1.0, eps)
    scale = np.sqrt(noise_var / 2.0)
    signal = np.zeros((n, k))
    signal[np.arange(n), gen.integers(0, k, size=n)] = 40.0
    forward = signal + gen.laplace(scale=scale, size=(n, k))
    back = gen.laplace(scale=scale, size=(n, k))
    spread = np.zeros((2, n))
    k_f, k_b = _label_shares(spread, forward[:200], back[:200], 0, 200, n, noise_var)
    assert k_f > 0.9 and k_b < 0.15
    k_f, k_b = _label_shares(np.zeros((2, n)), back[:200], back[200:400], 0, 200, n,
                             noise_var * 10.0)
    assert (k_f, k_b) == (1.0, 1.0)  # no signal in either: the plain sum
