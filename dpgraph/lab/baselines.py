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
    """A uniformly random partition {label: 0/1}; reads only the node set."""
    data = as_graph_data(G)
    sides = make_rng(rng).integers(0, 2, size=data.n)
    return dict(zip(data.labels, sides.tolist()))


def randomized_response(G, *, epsilon: float, rng=None,
                        weight: str | None = "weight") -> BaselineSyntheticRelease:
    """Randomized response on every node pair (pure epsilon-DP, edge-level), de-biased.

    Each of the ``n(n-1)/2`` pair indicators is flipped with probability
    ``p = 1/(1 + e^epsilon)``; adjacent graphs differ in one indicator, so this is
    epsilon-DP (docs/privacy.md 4.5). The released weights are ``(A_RR - p)/(1 - 2p)``, an
    unbiased estimate of the adjacency matrix (post-processing). Dense: O(n^2) memory.
    ``weight=None`` treats every edge as weight 1 (NetworkX's convention).
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
    ``weight=None`` treats every edge as weight 1 (NetworkX's convention).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    data = as_graph_data(G, weight=weight)
    check_private_graph_input(data, what="Gaussian perturbation")
    n = data.n
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
    np.fill_diagonal(W, 0.0)
    np.clip(W, 0.0, 1.0, out=W)
    name = "gaussian perturbation" + ("" if rank is None else f" (rank {rank})")
    return BaselineSyntheticRelease(name, data.labels, W, ledger,
                                    {"sigma": noise.sigma, "rank": rank})


def nonprivate(G, *, weight: str | None = "weight") -> BaselineSyntheticRelease:
    """The true graph as a release (NOT PRIVATE: the reference for transfer ratios)."""
    data = as_graph_data(G, weight=weight)
    return BaselineSyntheticRelease("non-private", data.labels, data.weights, None)


def solve_release(release: BaselineSyntheticRelease, problem: str = "maxcut", *, rng=None,
                  **options):
    """Run the CSP engine (``"maxcut"`` or ``"bisection"``) on a release's weights."""
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
