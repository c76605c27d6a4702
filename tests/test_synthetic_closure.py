"""The samples' triangle-closing rewiring (dpgraph/synthetic/closure.py): what every swap keeps
(degrees, block pair counts, a simple graph), triangle bookkeeping against a brute-force
count, and the released projection transitivity reached."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.graph import as_graph_data
from dpgraph.synthetic.closure import close_triangles, closure_swaps
from dpgraph.synthetic.clustering import bounded_projection, projection_counts


def _block_pair_counts(A, blocks, k):
    C = sp.triu(A, 1).tocoo()
    out = np.zeros((k, k), dtype=np.int64)
    np.add.at(out, (np.minimum(blocks[C.row], blocks[C.col]),
                    np.maximum(blocks[C.row], blocks[C.col])), 1)
    return out


def _triangles(A):
    return sum(nx.triangles(nx.from_scipy_sparse_array(A)).values()) // 3


@pytest.fixture(params=["rounds", "rounds, sorted edge set", "kernel"])
def swap_path(request, monkeypatch):
    """Each way :func:`closure_swaps` rewires: NumPy rounds with the edge set as a bitmap or as
    sorted keys, and numba's one-move kernel (taken above ``BATCH_MAX_N`` nodes)."""
    import dpgraph.synthetic.closure as closure

    if request.param == "rounds, sorted edge set":
        monkeypatch.setattr(closure, "DENSE_EDGE_SET_BYTES", 0)
    if request.param == "kernel":
        if not closure.numba_available():
            pytest.skip("numba is not installed")
        monkeypatch.setattr(closure, "BATCH_MAX_N", 0)
    return request.param


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_closure_swaps_keep_degrees_and_block_pairs_and_count_their_triangles(seed, swap_path):
    rng = np.random.default_rng(seed)
    k = 3
    blocks = rng.integers(k, size=90)
    P = np.array([[0.25, 0.05, 0.1], [0.05, 0.3, 0.05], [0.1, 0.05, 0.2]])
    G = nx.stochastic_block_model([int((blocks == b).sum()) for b in range(k)], P.tolist(),
                                  seed=seed)
    order = np.argsort(blocks, kind="stable")  # the generator numbers nodes block by block
    relabel = {int(i): int(order[i]) for i in range(90)}
    A = nx.to_scipy_sparse_array(nx.relabel_nodes(G, relabel), nodelist=range(90), format="csr")
    before = A.copy()
    B, info = closure_swaps(A, blocks, 10**6, attempts=20_000, rng=seed)
    assert (A != before).nnz == 0  # the input is left as it was
    assert info["made"] > 0
    assert np.array_equal(np.diff(B.indptr), np.diff(A.indptr))
    assert (B != B.T).nnz == 0 and B.diagonal().sum() == 0
    assert set(np.unique(B.data)) == {1.0} and B.nnz == A.nnz  # simple, no repeated pair
    assert np.array_equal(_block_pair_counts(B, blocks, k), _block_pair_counts(A, blocks, k))
    assert _triangles(B) - _triangles(A) == info["gained"]


@pytest.mark.parametrize("seed", [0, 1])
def test_closure_swaps_keep_the_edges_across_the_sides(seed, swap_path):
    """With released sides, every swap also keeps the count of edges across them (a sample
    that leans across the sides keeps its lean), while pairs of (block, side) classes may
    trade edges: more triangles than the swaps within (block, side) classes can make."""
    rng = np.random.default_rng(seed)
    n, k = 300, 2
    blocks = rng.integers(k, size=n)
    sides = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    # a graph that leans across the sides: same-side pairs 5 times rarer
    p = np.where(sides[:, None] != sides[None, :], 0.08, 0.016)
    upper = np.triu(rng.random((n, n)) < p, 1)
    A = sp.csr_array((upper | upper.T).astype(float))

    def across(M):
        C = sp.triu(M, 1).tocoo()
        return int(np.sum(sides[C.row] != sides[C.col]))

    B, info = closure_swaps(A, blocks, 10**6, attempts=50_000, rng=seed, sides=sides)
    assert info["made"] > 0
    assert np.array_equal(np.diff(B.indptr), np.diff(A.indptr))
    assert (B != B.T).nnz == 0 and B.diagonal().sum() == 0 and B.nnz == A.nnz
    assert np.array_equal(_block_pair_counts(B, blocks, k), _block_pair_counts(A, blocks, k))
    assert across(B) == across(A)
    assert _triangles(B) - _triangles(A) == info["gained"]
    classes = 2 * blocks + (sides > 0)
    C, strict = closure_swaps(A, classes, 10**6, attempts=50_000, rng=seed)
    assert info["gained"] > strict["gained"]


def test_closure_swaps_stop_at_the_gain_asked_for(swap_path):
    A = nx.to_scipy_sparse_array(nx.random_regular_graph(6, 200, seed=3), format="csr")
    B, info = closure_swaps(A, np.zeros(200, dtype=int), 25, attempts=10**6, rng=0)
    # each kept swap adds at least one triangle and at most a few
    assert 25 <= info["gained"] < 25 + 12
    assert _triangles(B) - _triangles(A) == info["gained"]


def test_close_triangles_reaches_the_released_transitivity():
    G = nx.gnm_random_graph(400, 3000, seed=5)  # transitivity about 0.04
    A = nx.to_scipy_sparse_array(G, format="csr")
    blocks = np.arange(400) % 2
    theta = int(np.diff(A.indptr).max())  # no node over the cap: the projection is the graph
    B, info = close_triangles(A, blocks, 0.2, theta, rng=0)
    assert info["projection_before"] < 0.06
    assert 0.2 <= nx.transitivity(nx.from_scipy_sparse_array(B)) < 0.25
    assert info["projection_after"] == pytest.approx(
        nx.transitivity(nx.from_scipy_sparse_array(B)), abs=1e-9)
    assert np.array_equal(np.diff(B.indptr), np.diff(A.indptr))


def test_close_triangles_leaves_a_sample_already_there():
    A = nx.to_scipy_sparse_array(nx.gnm_random_graph(100, 600, seed=1), format="csr")
    B, info = close_triangles(A, np.zeros(100, dtype=int), 0.01, 30, rng=0)
    assert info["made"] == 0 and (A != B).nnz == 0


def test_release_synthetic_samples_reach_the_released_projection_transitivity():
    G = nx.relaxed_caveman_graph(60, 12, 0.35, seed=2)  # 720 nodes, transitivity about 0.3
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    rel = dpgraph.release_synthetic(G, epsilon=4.0, rng=0)
    # samples without the lean: leaning across the released sides leaves fewer same-side pairs
    # to close triangles with (the swaps keep the (block, side) class counts; the next tests)
    rel.sides, rel.side_accept = None, 1.0
    tau, theta = rel.closure
    assert tau == pytest.approx(rel.diagnostics["released_transitivity"], abs=1e-4)
    S = rel.sample(rng=1)
    again = rel.sample(rng=1)
    assert (S.weights != again.weights).nnz == 0  # a seed gives one sample
    order = np.random.default_rng(9).permutation(S.n)
    t, w = projection_counts(bounded_projection(S.weights, theta, order))
    assert t / w >= 0.9 * tau
    assert S.m == rel.edge_count
    # the rewiring keeps the sampled degrees and adds triangles: the same release without it,
    # and with a target above what the affinity groups alone reach
    plain = dpgraph.release_synthetic(G, epsilon=4.0, rng=0)
    plain.sides, plain.side_accept, plain.closure = None, 1.0, None
    P = plain.sample(rng=1)
    assert np.array_equal(np.diff(P.weights.indptr), np.diff(S.weights.indptr))
    t0, w0 = projection_counts(bounded_projection(P.weights, theta, order))
    rel.closure = (min(1.0, 1.5 * t0 / w0), theta)
    R = rel.sample(rng=1)
    assert np.array_equal(np.diff(P.weights.indptr), np.diff(R.weights.indptr))
    t1, w1 = projection_counts(bounded_projection(R.weights, theta, order))
    assert t0 / w0 + 0.02 < t1 / w1


def test_release_synthetic_closure_is_none_without_a_clustering_release():
    # 78 edges: the clustering step is skipped
    data = as_graph_data(nx.Graph(nx.karate_club_graph().edges()))
    rel = dpgraph.release_synthetic(data, epsilon=1.0, rng=0)
    assert rel.closure is None and "released_transitivity" not in rel.diagnostics
    assert rel.sample(rng=0).m == rel.edge_count


def test_release_samples_keep_the_side_lean_and_the_block_pairs_through_the_swaps():
    G = nx.relaxed_caveman_graph(60, 12, 0.35, seed=2)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    rel = dpgraph.release_synthetic(G, epsilon=4.0, rng=0)
    # released sides as the sampler reads them (any +-1 vector will do for the bookkeeping)
    rel.sides = np.where(np.random.default_rng(4).random(rel.n) < 0.5, -1, 1)
    rel.side_accept = 0.2
    closed = rel.sample(rng=3)
    closure, rel.closure = rel.closure, None
    plain = rel.sample(rng=3)  # the same draw before the swaps
    rel.closure = closure
    assert (closed.weights != plain.weights).nnz > 0  # the swaps did something
    blocks = np.asarray(rel.block_model.blocks)
    k = int(blocks.max()) + 1

    def across(A):
        C = sp.triu(A, 1).tocoo()
        return int((rel.sides[C.row] != rel.sides[C.col]).sum())

    assert across(closed.weights) == across(plain.weights)
    assert np.array_equal(_block_pair_counts(closed.weights, blocks, k),
                          _block_pair_counts(plain.weights, blocks, k))
    assert np.array_equal(np.diff(closed.weights.indptr), np.diff(plain.weights.indptr))


def test_python_swaps_in_threads_match_serial_and_keep_the_callers_generator():
    """Without numba (DPGRAPH_NO_NUMBA=1) the swaps run in NumPy rounds on a generator of their
    own: seeded swaps in threads match the serial ones, and NumPy's global generator is left
    as the caller had it."""
    import os
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        from concurrent.futures import ThreadPoolExecutor
        import networkx as nx, numpy as np
        from dpgraph.engine.local_search import numba_available
        from dpgraph.graph import as_graph_data
        from dpgraph.synthetic.closure import closure_swaps
        assert not numba_available()
        W = as_graph_data(nx.les_miserables_graph(), weight=None).weights
        classes = np.zeros(W.shape[0], dtype=np.int64)
        def swapped(seed):
            return closure_swaps(W, classes, 1e9, attempts=2000, rng=seed)[0].indices.tobytes()
        serial = [swapped(s) for s in range(6)]
        np.random.seed(7); expected = np.random.random(); np.random.seed(7)
        for _ in range(3):
            with ThreadPoolExecutor(3) as pool:
                assert list(pool.map(swapped, range(6))) == serial
        assert np.random.random() == expected
        print("ok")
    """)
    env = dict(os.environ, DPGRAPH_NO_NUMBA="1", OPENBLAS_NUM_THREADS="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
