"""The private PCA's test margins ``b max(ln(1 / (2 delta)), 1)`` (docs/privacy.md 3.7).

``L = g^ - b ln(1 / (2 delta_g))`` and ``T = exp(x^ + b_c ln(1 / (2 delta_c)))`` used the
one-sided Laplace tail at the delta shares as given, but the discrete sampler's tail statement
(13.1) holds only for ``beta <= 1 / (2e)``, and the caller's delta may be anything in (0, 1):
``delta = 0.9`` gave shares of 0.27 (``private_subspace``) and 0.22 (``privatize`` and
``max_cut`` on the PCA route), where the exact tail of the discrete release beyond the old
margin exceeds the share charged. A share above ``1 / (2e)`` is now used as ``1 / (2e)``.
"""

import math
import warnings

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.privacy.noise import discrete_laplace_parameters
from dpgraph.spectral import EntryAdjacency, private_low_rank, private_subspace
from dpgraph.spectral.pca import BudgetSplit

HALF_OVER_E = 1.0 / (2.0 * math.e)


def _coherent(n=200):
    u = np.ones(n) / math.sqrt(n)
    return 500.0 * np.outer(u, u)


def _old(dl):
    return math.log(1.0 / (2.0 * dl))


def _check_margins(d, *, t_max=1.0):
    """The diagnostics' gap_lower and row_scale_upper are the conservative margins, and where
    a share exceeds 1/(2e) strictly wider than the old ones."""
    dl_g, dl_c = d.delta_parts["gap"], d.delta_parts["coherence"]
    want = max(_old(dl_g), 1.0)
    assert d.gap_lower == d.gap_estimate - d.gap_noise_scale * want
    if dl_g > HALF_OVER_E:
        assert want == 1.0
        assert d.gap_lower < d.gap_estimate - d.gap_noise_scale * _old(dl_g)
    if d.halted_at != "gap" and math.isfinite(d.row_scale_noise_scale):
        x_hat = math.log(d.row_scale_estimate)
        up = min(t_max, math.exp(x_hat + d.row_scale_noise_scale * max(_old(dl_c), 1.0)))
        assert d.row_scale_upper == pytest.approx(up, rel=1e-12)
        if dl_c > HALF_OVER_E and up < t_max:
            assert d.row_scale_upper > math.exp(x_hat + d.row_scale_noise_scale * _old(dl_c))


@pytest.mark.parametrize("delta, split", [
    (0.9, None),                                                   # shares 0.27, 0.27
    (0.99, BudgetSplit(epsilon=(0.3, 0.25, 0.45, 0.0), delta=(0.6, 0.3, 0.1, 0.0))),  # 0.59
], ids=["shares-0.27", "gap-share-0.59"])
def test_a_large_delta_share_gets_the_margin_of_one_over_2e(delta, split):
    res = private_subspace(_coherent(), 1, epsilon=1.0, delta=delta,
                           adjacency=EntryAdjacency(1.0), split=split, rng=0)
    d = res.diagnostics
    assert d.delta_parts["gap"] > HALF_OVER_E and not res.halted
    assert math.isfinite(d.row_scale_noise_scale)  # the row-scale test ran
    _check_margins(d)
    # the charge is still the share itself: a smaller failure probability, covered by it
    fails = {e.name: e.delta for e in res.ledger.entries if e.mechanism == "ptr-failure"}
    assert fails["pca: gap test failure"] == d.delta_parts["gap"]
    assert res.ledger.spent[1] == pytest.approx(delta)
    if d.delta_parts["gap"] > 0.5:  # the old margin was negative: L above the estimate
        assert _old(d.delta_parts["gap"]) < 0 and d.gap_lower < d.gap_estimate


def test_a_large_delta_share_in_private_low_rank():
    res = private_low_rank(_coherent(), 1, epsilon=1.0, delta=0.95,
                           adjacency=EntryAdjacency(1.0), rng=1)
    assert res.diagnostics.delta_parts["gap"] > HALF_OVER_E and not res.halted
    _check_margins(res.diagnostics)


@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.5])
def test_a_small_delta_share_keeps_the_margin_it_had(delta):
    """At the default split, delta <= 0.61 gives shares <= 1/(2e): the margins are the old
    ``b ln(1 / (2 delta_share))``, to the last bit for the gap."""
    res = private_subspace(_coherent(), 1, epsilon=1.0, delta=delta,
                           adjacency=EntryAdjacency(1.0), rng=0)
    d = res.diagnostics
    assert d.delta_parts["gap"] <= HALF_OVER_E and d.delta_parts["coherence"] <= HALF_OVER_E
    assert d.gap_lower == d.gap_estimate - d.gap_noise_scale * _old(d.delta_parts["gap"])
    x_hat = math.log(d.row_scale_estimate)
    old_T = min(1.0, math.exp(x_hat + d.row_scale_noise_scale * _old(d.delta_parts["coherence"])))
    assert d.row_scale_upper == pytest.approx(old_T, rel=1e-12)


def test_public_entry_points_with_a_large_delta_use_the_conservative_margin():
    """privatize(route="pca") and max_cut(route="pca") accept any delta in (0, 1); at 0.9 the
    PCA's test shares are 0.2187 > 1/(2e)."""
    G = nx.planted_partition_graph(2, 150, 0.9, 0.01, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(G, epsilon=20.0, delta=0.9, route="pca", rng=0, rank=2)
        res = dpgraph.max_cut(G, epsilon=20.0, delta=0.9, route="pca", rng=0)
    d = pg.diagnostics["pca"]
    assert d.delta_parts["gap"] > HALF_OVER_E and d.halted_at is None
    _check_margins(d)
    d2 = res.private_graph.diagnostics["pca"]
    assert d2.delta_parts["gap"] > HALF_OVER_E
    _check_margins(d2)


def _discrete_tail(p, m):
    """P[r + g Z >= m] for the discrete Laplace release at the worst rounding offset
    ``r = g / 2`` (exact, from the two-sided geometric pmf ``(1 - q)/(1 + q) q^|z|``)."""
    g, q = p["grid"], math.exp(-p["s"] / p["t"])
    z0 = math.ceil((m - g / 2) / g)
    return q ** z0 / (1 + q) if z0 >= 0 else 1.0 - q ** (1 - z0) / (1 + q)


@pytest.mark.parametrize("sens, eps", [(1.0, 0.1), (2.0, 3.0), (1.0, 500.0), (1.0, 2000.0)])
def test_the_margin_bounds_the_discrete_tail_at_every_share(sens, eps):
    """The margin ``b' tail_multiple(beta)`` has an exact tail <= beta for every beta in
    (0, 1); ``b' ln(1/(2 beta))`` did not above 1/(2e) (0.62 at beta = 0.5, 0.88 at
    beta = 0.4, where the sampler's scale is a few grid steps)."""
    from dpgraph.spectral.pca import tail_multiple

    p = discrete_laplace_parameters(sens, eps, 1)
    worst_old = 0.0
    for beta in (1e-9, 1e-3, 0.1, 0.18, HALF_OVER_E, 0.2, 0.3, 0.4, 0.5, 0.6, 0.9, 0.999):
        assert _discrete_tail(p, p["tail_scale"] * tail_multiple(beta)) <= beta * (1 + 1e-12)
        worst_old = max(worst_old, _discrete_tail(p, p["tail_scale"] * _old(beta)) / beta)
    if eps >= 500:
        assert worst_old > 1.2  # the old margin's tail exceeded the share by 20% or more
    assert tail_multiple(HALF_OVER_E) == pytest.approx(1.0)
    assert tail_multiple(0.0) == math.inf


def test_the_screening_predicts_with_the_same_conservative_margin():
    """`screen` predicted the gap test with ln(1 / (2 delta_g)) unclamped: at delta near 1 the
    gap's share (0.243 delta) is above 1 / (2e), and it required less than the test does.
    With the margin clamped at 1, every delta whose share is above 1 / (2e) requires the same."""
    from dpgraph.release.screening import screen

    need = [screen(10_000, 1_000, 1.0, d)["required_gap_ratio"] for d in (0.8, 0.9, 0.999)]
    assert need[0] == need[1] == need[2]
    assert screen(10_000, 1_000, 1.0, 0.5)["required_gap_ratio"] > need[0]
