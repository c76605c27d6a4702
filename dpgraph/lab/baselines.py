"""Baselines for the private pipeline, run through the same CSP engine.

* :func:`random_partition` — a uniformly random cut (no data used, no privacy cost).
* :func:`randomized_response` — edge flipping (Warner; pure epsilon-DP), then the unbiased
  de-biased weights ``(A_RR - p) / (1 - 2p)``.
* :func:`gaussian_perturbation` — perturb-and-project on the adjacency matrix: symmetric
  Gaussian noise on the upper triangle (L2 sensitivity 1 for one edge), optionally the rank-r
  truncation, then projection onto the box ``[0, 1]`` (entrywise clipping).
* :func:`nonprivate` — the true graph (NOT private; the reference of the transfer ratio).

Each private baseline returns a :class:`BaselineSyntheticRelease`: dense synthetic weights, the
node labels and the ledger; solve it with :func:`solve_release`. (Not to be confused with
:class:`dpgraph.SyntheticRelease`, the block model of :func:`dpgraph.release_synthetic`.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse import linalg as spla

from dpgraph.graph import as_graph_data
from dpgraph.privacy import PrivacyLedger, make_rng, symmetric_gaussian_noise
from dpgraph.privacy.validation import check_delta, check_epsilon
from dpgraph.private_input import check_private_graph_input
from dpgraph.release.routes.randomized_response import randomized_response_matrix

__all__ = ["BaselineSyntheticRelease", "random_partition", "randomized_response",
           "gaussian_perturbation", "nonprivate", "solve_release"]


@dataclass(eq=False)
class BaselineSyntheticRelease:
    """A released weighted graph: ``weights`` (dense or sparse, symmetric), labels, ledger."""

    name: str
    labels: tuple | range
    weights: object
    ledger: PrivacyLedger | None
    info: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        spent = "not private" if self.ledger is None else "epsilon=%.4g, delta=%.3g" % self.ledger.spent
        return f"BaselineSyntheticRelease({self.name!r}, n={len(self.labels)}, {spent})"


def random_partition(G, *, rng=None) -> dict:
    """A uniformly random partition ``{label: 0 or 1}`` of ``G``'s nodes (each side a fair coin).

    Reads only the node set, never an edge (nor an edge weight): it spends no privacy budget and
    has no ledger. Its expected cut is half the total edge weight, the floor every private
    method should beat.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.as_graph_data` reads; only the node labels are used.
    rng : None, int or Generator
        The coin flips' source (``None``: fresh randomness).

    Returns
    -------
    dict
        Label -> side (0 or 1), in ``G``'s node order: a partition as
        :func:`dpgraph.engine.cut_value` takes it.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()
    >>> part = random_partition(G, rng=0)
    >>> len(part), sorted(set(part.values())), list(part) == list(G)
    (34, [0, 1], True)
    >>> random_partition(G, rng=0) == part  # a fixed seed gives the same cut
    True
    """
    data = as_graph_data(G, weight=None)  # the node set only: no weight is read or checked
    sides = make_rng(rng).integers(0, 2, size=data.n)
    return dict(zip(data.labels, sides.tolist()))


def randomized_response(G, *, epsilon: float, rng=None,
                        weight: str | None = "weight") -> BaselineSyntheticRelease:
    """Randomized response on every node pair (pure epsilon-DP, edge-level), de-biased.

    Each of the ``n(n-1)/2`` pair indicators (a weight in ``[0, 1]`` first rounded to a bit at
    random, 1 with probability the weight) is flipped with probability
    ``p = 1/(1 + e^epsilon)``; adjacent graphs differ in one indicator, so this is
    epsilon-DP (docs/privacy.md 4.5, 4.12). The released weights are ``(A_RR - p)/(1 - 2p)``, an
    unbiased estimate of the adjacency matrix (post-processing). Dense: O(n^2) memory.

    PRIVATE (edge-level epsilon-DP, ``delta = 0``) for graphs whose edge weights lie in
    ``[0, 1]``; others are refused with a ValueError. The node set (labels and their count) is
    public, as everywhere in dpgraph.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.as_graph_data` reads.
    epsilon : float
        The privacy parameter, a finite number > 0 (all of it spent on the pair indicators).
    rng : None, int or Generator
        The noise source. ``None`` (the default) for a private release; a seed makes the
        noise reproducible, for tests only (a ``ReproducibleNoiseWarning`` says so).
    weight : str or None
        The edge attribute holding the weight (NetworkX, igraph); ``None`` treats every edge as
        weight 1 (NetworkX's convention).

    Returns
    -------
    BaselineSyntheticRelease
        ``weights``: the dense symmetric ``n x n`` de-biased matrix (zero diagonal; every other
        entry is ``-p/(1 - 2p)`` or ``(1 - p)/(1 - 2p)``, so many are negative);
        ``info["flip_probability"]``: ``p``; ``ledger``: spent ``(epsilon, 0)``.
        Solve it with :func:`solve_release`.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> G = nx.karate_club_graph()           # its weights are 1-7: read each edge as 1
    >>> rel = randomized_response(G, epsilon=1.0, rng=0, weight=None)
    >>> rel
    BaselineSyntheticRelease('randomized response', n=34, epsilon=1, delta=0)
    >>> W = rel.weights
    >>> W.shape, bool((W == W.T).all()), bool((W.diagonal() == 0).all())
    ((34, 34), True, True)
    >>> p = rel.info["flip_probability"]     # 1 / (1 + e)
    >>> round(p, 4), np.unique(W[np.triu_indices(34, 1)]).round(3).tolist()
    (0.2689, [-0.582, 1.582])
    """
    epsilon = check_epsilon(epsilon)
    data = as_graph_data(G, weight=weight)
    check_private_graph_input(data, what="randomized response")
    ledger = PrivacyLedger(epsilon=epsilon, delta=0.0)
    W, p = randomized_response_matrix(
        data.weights, epsilon=epsilon, ledger=ledger, rng=make_rng(rng), name="randomized response",
        note="one edge changes one pair indicator (docs/privacy.md 4.5)")
    return BaselineSyntheticRelease("randomized response", data.labels, W, ledger,
                                    {"flip_probability": p})


def gaussian_perturbation(G, *, epsilon: float, delta: float, rank: int | None = None,
                          rng=None, weight: str | None = "weight") -> BaselineSyntheticRelease:
    """Gaussian noise on the upper triangle of the adjacency (sensitivity 1), rank-r, clip to [0, 1].

    One edge changes one upper-triangular entry by at most 1, so the L2 sensitivity of the
    upper triangle is 1 (docs/privacy.md 4.4). The diagonal is public (zero) and not released.
    The rank-r truncation (``rank``) and the clipping are post-processing.

    PRIVATE (edge-level ``(epsilon, delta)``-DP, analytic Gaussian calibration) for graphs whose
    edge weights lie in ``[0, 1]``; others are refused with a ValueError. The node set is
    public. Dense: O(n^2) memory.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.as_graph_data` reads.
    epsilon, delta : float
        The privacy parameters: ``epsilon > 0`` finite, ``0 < delta < 1``.
    rank : int or None
        Keep the ``rank`` largest (algebraic) eigenpairs of the noisy matrix before clipping,
        ``1 <= rank < n - 1``; ``None`` (default): no truncation.
    rng : None, int or Generator
        The noise source. ``None`` (the default) for a private release; a seed makes the
        noise reproducible, for tests only.
    weight : str or None
        The edge attribute holding the weight; ``None`` treats every edge as weight 1
        (NetworkX's convention).

    Returns
    -------
    BaselineSyntheticRelease
        ``weights``: the dense symmetric ``n x n`` matrix, entries in ``[0, 1]``, zero diagonal;
        ``info``: the noise's ``sigma`` and the ``rank``; ``ledger``: spent
        ``(epsilon, delta)``. Solve it with :func:`solve_release`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()
    >>> rel = gaussian_perturbation(G, epsilon=1.0, delta=1e-6, rank=4, rng=0, weight=None)
    >>> rel
    BaselineSyntheticRelease('gaussian perturbation (rank 4)', n=34, epsilon=1, delta=1e-06)
    >>> W = rel.weights
    >>> W.shape, bool(W.min() >= 0 and W.max() <= 1), bool((W == W.T).all())
    ((34, 34), True, True)
    >>> round(rel.info["sigma"], 3)          # the noise per entry at sensitivity 1
    4.225
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    data = as_graph_data(G, weight=weight)
    check_private_graph_input(data, what="Gaussian perturbation")
    n = data.n
    if rank is not None:  # before the noise is drawn: ARPACK's own errors name no parameter
        from dpgraph.release.privatize import check_rank

        rank = check_rank(rank, n)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    noise = symmetric_gaussian_noise(n, sensitivity=1.0, epsilon=epsilon, delta=delta,
                                     ledger=ledger, name="adjacency upper triangle", rng=rng,
                                     note="one edge changes one entry by <= 1 (docs/privacy.md 4.4)")
    A = data.weights
    if rank is None:
        W = noise.to_dense()
        W += A.toarray()
    elif n <= 5000:  # dense is far faster than regenerating the noise blocks at every product
        W = noise.to_dense()
        W += A.toarray()
        vals, vecs = spla.eigsh(W, k=rank, which="LA", tol=1e-6)
        W = (vecs * vals) @ vecs.T
    else:
        op = spla.LinearOperator((n, n), dtype=np.float64,
                                 matvec=lambda v: A @ v + noise.matmul(v.reshape(-1, 1)).ravel(),
                                 matmat=lambda V: A @ V + noise.matmul(V))
        vals, vecs = spla.eigsh(op, k=rank, which="LA", tol=1e-6)
        W = (vecs * vals) @ vecs.T
    if rank is not None:  # V diag(vals) V^T is symmetric only up to rounding: make it exactly so
        W += W.T
        W *= 0.5
    np.fill_diagonal(W, 0.0)
    np.clip(W, 0.0, 1.0, out=W)
    name = "gaussian perturbation" + ("" if rank is None else f" (rank {rank})")
    return BaselineSyntheticRelease(name, data.labels, W, ledger,
                                    {"sigma": noise.sigma, "rank": rank})


def nonprivate(G, *, weight: str | None = "weight") -> BaselineSyntheticRelease:
    """The true graph as a release. NOT PRIVATE: the reference for transfer ratios.

    No noise at all: ``weights`` are ``G``'s own weights (the sparse matrix
    :func:`dpgraph.as_graph_data` reads, shared, not copied) and ``ledger`` is ``None``.
    Never publish it or anything solved from it.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.as_graph_data` reads.
    weight : str or None
        The edge attribute holding the weight; ``None`` reads every edge as weight 1.

    Returns
    -------
    BaselineSyntheticRelease
        Named ``"non-private"``, with ``ledger=None``.

    Examples
    --------
    >>> import networkx as nx
    >>> rel = nonprivate(nx.karate_club_graph())   # its edge weights, 1-7
    >>> rel
    BaselineSyntheticRelease('non-private', n=34, not private)
    >>> rel.ledger is None, float(rel.weights.sum()) / 2   # the total edge weight, exactly
    (True, 231.0)
    """
    data = as_graph_data(G, weight=weight)
    return BaselineSyntheticRelease("non-private", data.labels, data.weights, None)


def solve_release(release: BaselineSyntheticRelease, problem: str = "maxcut", *, rng=None,
                  **options):
    """Run the CSP engine (``"maxcut"`` or ``"bisection"``) on a release's weights.

    Post-processing: the partition is as private as ``release`` (that of :func:`nonprivate` is
    NOT private). The result's ``value`` (and its bounds) are those of the *released* weights,
    not of the true graph: score the partition on the true graph with
    :func:`dpgraph.engine.cut_value` (itself not private) to measure how well it transfers.

    Parameters
    ----------
    release : BaselineSyntheticRelease
        From :func:`randomized_response`, :func:`gaussian_perturbation` or :func:`nonprivate`.
    problem : {"maxcut", "bisection"}
        :func:`dpgraph.solve_max_cut` or :func:`dpgraph.solve_max_bisection`.
    rng : None, int or Generator
        The engine's rounding randomness.
    **options
        Passed on to the engine (``tol``, ``max_iter``, ...).

    Returns
    -------
    CutResult
        The engine's result, with ``assignment`` keyed by the release's labels.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.engine import cut_value
    >>> G = nx.cycle_graph(8)
    >>> solve_release(nonprivate(G), rng=0).value   # NOT private: the true maximum cut
    8.0
    >>> rel = randomized_response(G, epsilon=2.0, rng=0)
    >>> res = solve_release(rel, "bisection", rng=0)
    >>> sorted(map(len, res.partition))              # balanced
    [4, 4]
    >>> 0 <= cut_value(G, res.assignment) <= 8       # its cut in the true graph (not private)
    True
    """
    from dpgraph.engine import solve_max_bisection, solve_max_cut

    solver = {"maxcut": solve_max_cut, "bisection": solve_max_bisection}.get(problem)
    if solver is None:
        raise ValueError(f"problem={problem!r} is not 'maxcut' or 'bisection'")
    W = release.weights
    if sp.issparse(W):
        from dpgraph.graph import from_matrix
        W = from_matrix(W, release.labels)
        return solver(W, rng=rng, **options)
    return solver(W, labels=release.labels, rng=rng, **options)
