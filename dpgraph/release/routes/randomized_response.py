"""The dense randomized-response route: randomized response on every node pair (pure DP).

Edge-level adjacency changes one pair indicator, so flipping every indicator independently with
probability ``p = 1/(1 + e^epsilon)`` is epsilon-DP (Warner 1965; docs/privacy.md 4.5). The
release is kept de-biased, ``(Y - p)/(1 - 2p)``, the unbiased estimate of the adjacency matrix
(``PrivateGraph.unbiased``); exports and solver objectives are post-processing of it
(:mod:`dpgraph.release.posterior`). Dense: ``O(n^2)`` memory (:func:`estimated_memory`). Weights in
``[0, 1]`` are Bernoulli-rounded to 0/1 bits with fresh randomness first (:func:`bernoulli_round`).
"""

from __future__ import annotations

import math

import numpy as np

from dpgraph.graph import GraphData
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.privacy import PrivacyLedger, flip_probability, make_rng, randomized_response
from dpgraph.privacy.rng import child_rng
from dpgraph.progress import report
from dpgraph.spectral.linalg import top_eigenpairs

__all__ = ["release", "estimated_memory", "randomized_response_matrix", "bernoulli_round",
           "fallback_randomized_response", "BYTES_PER_PAIR"]

# Peak bytes per n^2 above the interpreter's baseline, measured with
# benchmarks/bench_route_memory.py (peak RSS, planted n = 4,000, mean degree 50, BENCHMARKS.md
# "Route memory"): privatize alone 21.6; privatize + max_cut's four objective solves 47.6 (at
# n = 10,000, where only the de-biased release is solved: 29.8). 56 leaves a margin.
BYTES_PER_PAIR = 56.0


def estimated_memory(n: int, m: int, rank: int) -> int:
    """Peak bytes of this route plus the dense solves downstream (``BYTES_PER_PAIR * n^2``).

    >>> estimated_memory(1000, 0, 2), estimated_memory(2000, 0, 2) // estimated_memory(1000, 0, 2)
    (56000000, 4)
    """
    return int(BYTES_PER_PAIR * float(n) ** 2)


def bernoulli_round(w: np.ndarray, rng) -> np.ndarray:
    """0/1 bits with ``P[bit = 1] = w`` for weights ``w`` in ``[0, 1]`` (fresh randomness for
    the entries strictly between 0 and 1, from :func:`~dpgraph.privacy.rng.child_rng` of
    ``rng``: ``rng`` itself moves by the same amount whatever the weights; 0 and 1 stay as
    they are).

    Randomized response on the rounded bit is epsilon-DP under the weighted adjacency (one
    pair's weight moves by at most 1): the output's probability ``w (1 - p) + (1 - w) p`` is
    affine in ``w`` and lies in ``[p, 1 - p]`` (docs/privacy.md 4.12). Every graph, weighted or
    not, takes this same path: no release depends on whether the weights are all 1.

    >>> bernoulli_round(np.array([0.0, 1.0, 1.0]), 0).tolist()
    [0, 1, 1]
    """
    w = np.asarray(w, dtype=np.float64)
    bits = (w >= 1.0).astype(np.int8)
    frac = (w > 0.0) & (w < 1.0)
    # the number of fractional weights is private: they draw from a child stream keyed by a
    # fixed number of draws of rng, so the noise rng draws next does not move with it (4.12)
    child = child_rng(make_rng(rng))
    if frac.any():
        bits[frac] = child.random(int(frac.sum())) < w[frac]
    return bits


def randomized_response_matrix(weights, *, epsilon: float, ledger: PrivacyLedger, rng, name: str,
                                note: str) -> tuple[np.ndarray, float]:
    """Randomized response on every pair's Bernoulli-rounded weight (pure epsilon-DP,
    docs/privacy.md 4.5, 4.12), returned de-biased: ``(A_RR - p) / (1 - 2p)`` (dense,
    symmetric, zero diagonal), and ``p``.

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> led = PrivacyLedger(epsilon=2, delta=0)
    >>> W, p = randomized_response_matrix(input_graph(G, weight=None).weights, epsilon=2.0,
    ...                                   ledger=led, rng=0, name="rr", note="example")
    >>> round(p, 4), round(1 / (1 + math.e ** 2), 4), led.spent  # p = 1 / (1 + e^eps)
    (0.1192, 0.1192, (2.0, 0.0))
    >>> bool((W == W.T).all() and not W.diagonal().any()), sorted(set(W.round(3).ravel().tolist()))
    (True, [-0.157, 0.0, 1.157])

    The two values are ``-p / (1 - 2p)`` and ``(1 - p) / (1 - 2p)``: each bit de-biased.
    """
    n = weights.shape[0]
    iu, ju = np.triu_indices(n, 1)
    bits = bernoulli_round(weights.toarray()[iu, ju], rng)
    flipped = randomized_response(bits, epsilon=epsilon, ledger=ledger, name=name, rng=rng,
                                  note=note)
    del bits
    p = flip_probability(epsilon)
    W = np.zeros((n, n))
    W[iu, ju] = (flipped - p) / math.tanh(epsilon / 2.0)  # 1 - 2p, exact at tiny epsilon
    del flipped, iu, ju
    W += W.T
    return W, p


def fallback_randomized_response(weights, d_tilde: np.ndarray, rank: int, *, epsilon: float,
                                  ledger: PrivacyLedger, rng: np.random.Generator):
    """Halting branch: randomized response on every pair indicator, de-biased, truncated to the
    ``rank`` eigenpairs of largest magnitude *in adjacency units* (normalizing by noisy degrees
    first costs a lot of utility: BENCHMARKS.md), then expressed in the normalized frame of the
    PCA route as an orthonormal basis and core: ``D~^-1/2 V diag(lam) V^T D~^-1/2 = B C B^T``.
    Pure epsilon-DP (docs/privacy.md 4.5, 4.7, 4.12). Dense O(n^2) memory.

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> led = PrivacyLedger(epsilon=2, delta=1e-6)
    >>> B, C = fallback_randomized_response(input_graph(G, weight=None).weights, np.full(34, 4.0),
    ...                                     2, epsilon=2.0, ledger=led, rng=0)
    >>> B.shape, bool(np.allclose(B.T @ B, np.eye(2))), bool(np.allclose(C, C.T)), led.spent
    ((34, 2), True, True, (2.0, 0.0))
    """
    W, _ = randomized_response_matrix(weights, epsilon=epsilon, ledger=ledger, rng=rng,
                                       name="fallback: randomized response",
                                       note="PCA halted; exclusive branch (docs/privacy.md 4.7)")
    V, lam = top_eigenpairs(W, rank)
    del W
    B, R = np.linalg.qr(V / np.sqrt(d_tilde)[:, None])
    return B, (R * lam) @ R.T


def release(data: GraphData, *, epsilon: float, delta: float, rank: int, ledger: PrivacyLedger,
            rng, screening=None, rr_postprocess: str = "posterior-degree") -> PrivateGraph:
    """Randomized response on every pair indicator with all the budget left (pure DP, 4.5),
    kept de-biased. The export (``post``): posterior means under an empirical-Bayes prior, or
    the projection onto ``[0, 1]`` (perturb-and-project onto the box that contains every
    adjacency matrix) with or without a rank-r truncation first. All of it after the draw is
    post-processing. ``delta`` is not spent (pure DP).

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> led = PrivacyLedger(epsilon=2, delta=1e-6)
    >>> pg = release(input_graph(G, weight=None), epsilon=2.0, delta=1e-6, rank=2, ledger=led,
    ...              rng=0)
    >>> pg.n, pg.diagnostics["route"], led.spent  # pure: delta unspent
    (34, 'randomized-response', (2.0, 0.0))
    """
    post, gen = rr_postprocess, rng
    n, labels = data.n, data.labels
    report(f"randomized response on {n * (n - 1) // 2:,} node pairs (dense, {n:,} x {n:,})")
    W, p = randomized_response_matrix(
        data.weights, epsilon=epsilon, ledger=ledger, rng=gen,
        name="randomized response (all pairs)",
        note="one edge changes one pair indicator (docs/privacy.md 4.5)")
    del data  # nothing below may see the input
    degrees = W.sum(axis=1)  # unbiased degree estimates (post-processing)
    basis = core = projected = None  # projected None: clip(W, 0, 1) on demand (weights())
    if post == "low-rank":
        basis, lam = top_eigenpairs(W, rank)
        core = np.diag(lam)
        projected = (basis * lam) @ basis.T
        projected += projected.T
        projected *= 0.5
        np.clip(projected, 0.0, 1.0, out=projected)
    diagnostics = {"route": "randomized-response", "screening": screening, "rank": rank,
                   "flip_probability": p, "postprocess": post, "pca_halted": False,
                   "low_rank_mechanism": "randomized response on all pairs" +
                   (" (screened out of the PCA)" if screening else "")}
    return PrivateGraph(labels=labels, degrees=degrees, normalizer=np.ones(n), basis=basis,
                        core=core, projected=projected, ledger=ledger, diagnostics=diagnostics,
                        unbiased=W)
