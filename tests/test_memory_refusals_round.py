"""Input shapes that still made a step allocate past the memory limit, die of a bare
MemoryError or run without end: each is now priced from public sizes and refused before
anything is spent, in one line naming what fits (or, for the sampler, bounded in its work).

Each refusal runs under a small ``DPGRAPH_MEMORY_LIMIT``: nothing large is allocated.
"""

import tracemalloc
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.memory import InsufficientMemoryError, parse_bytes

LIMIT = "24M"


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", LIMIT)
    return parse_bytes(LIMIT)


def _refusal(call, limit, match):
    """The refusal ``call()`` raises: one line naming ``match`` and the limit, with less than
    the limit allocated on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(InsufficientMemoryError, match=match) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = str(info.value)
    assert "\n" not in text and f"DPGRAPH_MEMORY_LIMIT={LIMIT}" in text and peak < limit
    return text


def _named(text: str, key: str) -> int:
    """The number a refusal names after ``key`` (``"At most synthetic_blocks="``)."""
    return int(text.split(key)[1].split(" ")[0].rstrip(".").replace(",", ""))


@pytest.mark.parametrize("route, share", [("local", "auto"), ("matrix-free", 0.3)])
def test_privatize_prices_its_block_model_before_spending(limited, spend_spy, route, share):
    """``synthetic_blocks`` (up to n / 4) sizes the block model's k x k arrays (k up to twice
    it): on 900,000 nodes with synthetic_blocks=100,000 the local route spent its budget and
    then died of a bare MemoryError in ``np.triu_indices`` (9.3 GiB). Refused now before
    anything is charged or drawn, naming the largest synthetic_blocks that fits."""
    n = 2000
    text = _refusal(lambda: dpgraph.privatize(nx.cycle_graph(n), epsilon=1.0, delta=1e-6,
                                              route=route, synthetic_share=share,
                                              synthetic_blocks=500, rng=0),
                    limited, "synthetic block model")
    assert spend_spy == {"charge": 0, "draw": 0}
    from dpgraph.synthetic.block_model import block_model_bytes

    fits = _named(text, "At most synthetic_blocks=")
    assert block_model_bytes(min(2 * fits, n)) <= limited < block_model_bytes(min(2 * fits + 2, n))
    assert "synthetic_share=None" in text


def test_a_block_model_that_fits_is_released(monkeypatch):
    """The price lets the default block model (8 blocks) through under the limit of its
    sample."""
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "128M")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(nx.cycle_graph(2000), epsilon=1.0, delta=1e-6, route="local",
                               rng=0)
    assert pg.block_model is not None and pg.sample(rng=1).n == 2000


def test_the_pca_route_memory_grows_with_its_rank():
    """The pca route was priced at 48 bytes per n^2 whatever the rank; its rank-r eigensolves
    and bases add about 70 bytes per node and unit of rank: rank 2,990 on 3,000 nodes peaked at
    1.1 GB against 0.43 GB priced (210 s), past a 1 GiB limit. The traced peak at a rank near n
    stays within the price."""
    from dpgraph.release.routes.pca import estimated_memory

    n, rank = 600, 590
    data = dpgraph.as_graph_data(nx.gnp_random_graph(n, 0.3, seed=1))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dpgraph.privatize(data, epsilon=1.0, delta=1e-6, route="pca", rank=rank, rng=0,
                              synthetic_share=None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimated_memory(n, data.m, rank)


@pytest.mark.parametrize("answer", [dpgraph.privatize, dpgraph.max_cut])
def test_a_pca_rank_that_does_not_fit_is_refused_before_spending(limited, spend_spy, answer):
    """Refused before anything is spent, naming the largest rank that fits."""
    from dpgraph.release.routes.pca import estimated_memory

    n = 500
    text = _refusal(lambda: answer(nx.cycle_graph(n), epsilon=1.0, delta=1e-6, route="pca",
                                   rank=n - 10, rng=0), limited, "route='pca'")
    assert spend_spy == {"charge": 0, "draw": 0}
    fits = _named(text, "at most rank=")
    assert estimated_memory(n, 0, fits) <= limited < estimated_memory(n, 0, fits + 1)


def _complete_block_calls(s: int, monkeypatch) -> int:
    """Calls of the generator's ``integers`` while sampling one block of ``s`` nodes that
    holds every pair, with the final fill by uniform rejection (as above FILL_ENUMERATE)."""
    from dpgraph.synthetic import sampler

    class Counting(np.random.Generator):
        calls = 0

        def integers(self, *args, **kwargs):
            Counting.calls += 1
            return super().integers(*args, **kwargs)

    monkeypatch.setattr(sampler, "FILL_ENUMERATE", 0)
    pairs = s * (s - 1) // 2
    g = sampler.sample_block_model(np.zeros(s, dtype=np.int64), np.array([[pairs]]),
                                   np.full(s, s - 1.0), rng=Counting(np.random.PCG64(0)))
    assert g.m == pairs  # every pair once: the complete graph
    return Counting.calls


def test_the_fill_of_a_full_block_does_not_grow_with_it(monkeypatch):
    """A block whose free pairs are all needed (a clique's) was filled by uniform rejection,
    a coupon collector whose rounds grow with the block's pairs, each merging all it had: a
    3,000-node clique among 10^6 isolated nodes sampled for over 400 s. The rejection's work is
    now bounded by the block's size and the rest enumerated: three times the nodes take about
    as many rounds (they took 9 times as many)."""
    assert _complete_block_calls(300, monkeypatch) <= 2 * _complete_block_calls(100, monkeypatch)


@pytest.mark.parametrize("mechanism, data", [
    (dpgraph.jl_second_moment, np.full((3, 2000), 1e-3)),
    (dpgraph.jl_two_way_marginals, np.eye(2000)[:3]),
], ids=["jl_second_moment", "jl_two_way_marginals"])
def test_jl_releases_are_priced_before_their_second_moment(limited, spend_spy, mechanism, data):
    """``X^T X`` (d x d) was formed before any check: 30,000 columns died of a bare
    MemoryError (6.7 GiB); 2,000 columns held about 400 MB under a 24 MiB limit and spent the
    budget. Refused now before anything is allocated or spent, naming the columns that fit."""
    text = _refusal(lambda: mechanism(data, epsilon=1.0, delta=1e-6, jl_dim=1, max_iter=1,
                                      rng=0), limited, "JL matrix")
    assert spend_spy == {"charge": 0, "draw": 0}
    from dpgraph.mechanisms.jl import jl_release_bytes

    fits = _named(text, "At most ")
    assert jl_release_bytes(fits, 1) <= limited < jl_release_bytes(fits + 1, 1)


def test_jl_release_price_covers_its_peak():
    """The price is above the traced peak of a release (both lifts)."""
    from dpgraph.mechanisms.jl import jl_release_bytes

    d, jl_dim = 300, 8
    rows = np.random.default_rng(0).random((20, d))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    for lift in ("projection", "frank-wolfe"):
        tracemalloc.start()
        try:
            dpgraph.jl_second_moment(rows, epsilon=1.0, delta=1e-6, jl_dim=jl_dim, lift=lift,
                                     max_iter=5, rng=0)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= jl_release_bytes(d, jl_dim)


def test_certify_refusal_names_the_nodes_that_fit(limited, spend_spy):
    """The certificate's memory refusal named no size that fits; it names the largest ``n``
    whose certificate fits in memory and in the time allowed."""
    from dpgraph.solve.certify import certificate_bytes

    ring = sp.csr_array(nx.to_scipy_sparse_array(nx.cycle_graph(3000)))
    text = _refusal(lambda: dpgraph.max_cut(ring, epsilon=1.0, delta=1e-6, certify=True, rng=0),
                    limited, "certify=True")
    assert spend_spy == {"charge": 0, "draw": 0}
    fits = _named(text, "At most ")
    assert certificate_bytes(fits) <= limited < certificate_bytes(fits + 1)
