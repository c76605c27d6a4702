"""The private release of a graph: what :func:`dpgraph.privatize` returns.

A :class:`PrivateGraph` holds released (noisy) quantities and post-processing of them, and no
reference to the input graph; everything computed from it is post-processing (docs/privacy.md
4.6). Each route of :mod:`dpgraph.release.routes` builds one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from dpgraph.graph import GraphData, from_matrix, to_igraph, to_networkx
from dpgraph.memory import check_memory
from dpgraph.privacy import PrivacyLedger, reproducible_tag, spent_text
from dpgraph.privacy.validation import check_integer, check_number

__all__ = ["PrivateGraph", "DEFAULT_RANK"]

DEFAULT_RANK = 8


def randomized_response_objectives(n: int, rank: int | None = None) -> tuple:
    """The objectives a randomized-response release on ``n`` nodes offers
    (:meth:`PrivateGraph.objective_names`), from the public ``n`` and ``rank`` alone (default
    ``DEFAULT_RANK``): the de-biased release, the rank-2 and rank-``rank`` posteriors (a
    prior's rank lies in ``[1, n - 2]``) and the degree posterior.

    >>> randomized_response_objectives(90, 8)
    ('unbiased', 'posterior-lowrank-2', 'posterior-lowrank-8', 'posterior-degree')
    >>> randomized_response_objectives(90, 2)  # one rank-2 posterior
    ('unbiased', 'posterior-lowrank-2', 'posterior-degree')
    """
    k = int(rank or DEFAULT_RANK)
    ranks = sorted(r for r in {2, k} if r < n - 1)
    return ("unbiased", *(f"posterior-lowrank-{r}" for r in ranks), "posterior-degree")


@dataclass(eq=False)
class PrivateGraph:
    """The private release of a graph: private degrees, the private low-rank normalized
    adjacency and its projection, and the ledger. Holds no reference to the input graph.

    Attributes
    ----------
    labels : tuple, or range for the default integer labels
        Node labels (the node set is public under edge-level privacy), as the input graph's
        :class:`~dpgraph.graph.GraphData` keeps them.
    degrees : ndarray
        Private degree estimates ``d^`` (may be negative for low-degree nodes).
    normalizer : ndarray
        ``d~ = max(d^, 0) + tau``, the public normalizer.
    basis, core : ndarray or None
        The private rank-r estimate ``A^' = basis @ core @ basis.T`` of ``D~^-1/2 A D~^-1/2``
        (None on the randomized-response route, where ``projected`` holds the released pair
        weights and ``normalizer`` is all ones).
    projected : ndarray or None
        ``A^``: the projection of ``A^'`` onto non-negative bounded-spectrum matrices (dense).
        None on the randomized-response route (unless ``rr_postprocess="low-rank"``), where
        :meth:`weights` computes the export from ``unbiased`` when asked (one dense n x n
        matrix is held, not two).
    ledger : PrivacyLedger
    diagnostics : dict
        Private (released) quantities and method details: tau, w, the private tail estimate,
        radius, whether the private PCA halted. No timings (docs/privacy.md 11).
    block_model : dpgraph.synthetic.block_model.BlockModel or None
        The released degree-corrected block model that :meth:`sample` draws from (when
        :func:`dpgraph.privatize` was given a ``synthetic_share``; docs/privacy.md 7).
    unbiased : ndarray or None
        Randomized-response route only: the de-biased release ``(Y - p)/(1 - 2p)`` (signed,
        zero diagonal), the unbiased estimate of the adjacency matrix; ``p`` is
        ``diagnostics["flip_probability"]``. The solvers optimise objectives built from it
        (:meth:`objective`); the exports use its projection onto ``[0, 1]``.

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> G = nx.Graph(nx.les_miserables_graph().edges())  # 77 nodes, 254 edges, unweighted
    >>> pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6)
    >>> pg.n, pg.ledger.spent[0] <= 2.0  # the node set is public
    (77, True)
    >>> S = pg.sample()  # a synthetic graph: post-processing, no privacy cost
    >>> S.n, tuple(S.labels) == tuple(pg.labels)
    (77, True)
    """

    labels: tuple | range
    degrees: np.ndarray
    normalizer: np.ndarray
    basis: np.ndarray
    core: np.ndarray
    projected: np.ndarray
    ledger: PrivacyLedger
    diagnostics: dict = field(default_factory=dict)
    unbiased: np.ndarray | None = None
    block_model: object | None = None

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def rank(self) -> int | None:
        """Rank of the private low-rank estimate (None on the randomized-response route)."""
        return None if self.basis is None else self.basis.shape[1]

    @property
    def private_rank(self) -> int | None:
        """The private directions the release holds: :attr:`rank` here (the matrix-free
        route's factors add a public one, the degree direction). What :meth:`to_dict`, the
        repr and ``dpgraph synth --json`` report."""
        return self.rank

    @property
    def halted(self) -> bool:
        """True when a private test in the PCA halted and a random subspace was released."""
        return bool(self.diagnostics.get("pca_halted", False))

    def weights(self) -> np.ndarray:
        """Dense synthetic weight matrix (zero diagonal, entries >= 0).

        PCA route: ``D~^1/2 A^ D~^1/2``. Randomized-response route: by default the posterior
        means ``E[A_ij | release]`` under the empirical Chung-Lu prior (entries in [0, 1], total
        weight close to the edge count; ``rr_postprocess`` of :func:`privatize`)."""
        if self.projected is None:  # randomized-response route: see rr_postprocess
            post = self.diagnostics.get("postprocess", "box")
            W = np.clip(self.unbiased, 0.0, 1.0) if post == "box" else self.objective(post)
        else:
            s = np.sqrt(self.normalizer)
            W = np.outer(s, s)  # exactly symmetric, so W is too
            W *= self.projected
        np.fill_diagonal(W, 0.0)
        return W

    def objective_names(self, rank: int | None = None) -> tuple:
        """The candidate objectives :func:`dpgraph.max_cut` solves on this release.

        ``"synthetic"`` (the exported weights) on the PCA route; on the randomized-response
        route ``"unbiased"`` (the de-biased release), ``"posterior-lowrank-2"``,
        ``"posterior-lowrank-<rank>"`` (default: this release's ``rank`` parameter) and
        ``"posterior-degree"`` (:mod:`dpgraph.release.posterior`).
        """
        if self.unbiased is None:
            return ("synthetic",)
        return randomized_response_objectives(self.n, rank or self.diagnostics.get("rank"))

    def objective(self, name: str = "synthetic") -> np.ndarray:
        """Dense symmetric weight matrix of the objective ``name`` (post-processing only).

        ``"synthetic"``: :meth:`weights`. Randomized-response route only: ``"unbiased"``: the
        de-biased release; ``"posterior-lowrank-<k>"`` / ``"posterior-degree"``: posterior-mean
        weights ``E[A_ij | release]`` under an empirical-Bayes block (rank-k) or Chung-Lu prior
        (:mod:`dpgraph.release.posterior`). No privacy cost: functions of the release.
        """
        if name == "synthetic":
            return self.weights()
        if self.unbiased is None:
            raise ValueError(f"objective {name!r} needs the randomized-response route; this "
                             f"release ({self.diagnostics.get('route')}) has only 'synthetic'")
        from dpgraph.release import posterior as rr_posterior

        p = float(self.diagnostics["flip_probability"])
        if name == "unbiased":
            return self.unbiased
        if name == "posterior-degree":
            return rr_posterior.posterior_weights(self.unbiased, p,
                                                  rr_posterior.degree_prior(self.unbiased))
        k = rr_posterior.prior_rank(name)
        if k is not None:
            if k >= self.n - 1:
                raise ValueError(f"objective {name!r}: the prior's rank must lie in [1, n - 2]")
            return rr_posterior.posterior_weights(self.unbiased, p,
                                                  rr_posterior.low_rank_prior(self.unbiased, k))
        raise ValueError(f"unknown objective {name!r}; this release offers "
                         f"{self.objective_names()}")

    def synthetic_blocks(self, k: int, rng=None) -> np.ndarray:
        """Blocks of the synthetic block model :func:`dpgraph.privatize` releases on this
        release (post-processing): ``k`` spectral communities, each split along the release's
        max-cut eigenvector (:func:`dpgraph.synthetic.communities.synthetic_partition`)."""
        from dpgraph.synthetic.communities import synthetic_partition

        return synthetic_partition(self, k, rng=rng)

    @property
    def edge_count(self) -> float:
        """The released edge count the exports aim at: the block model's (when released), else
        the total synthetic weight (post-processing of the release)."""
        if self.block_model is not None:
            return float(self.block_model.edge_count)
        return float(self.weights().sum() / 2.0)

    def to_graph_data(self, *, min_weight: float = 0.0, max_edges: int | None = None) -> GraphData:
        """The synthetic weighted graph as :class:`GraphData`, keeping weights > ``min_weight``
        and, with ``max_edges``, only the ``max_edges`` heaviest pairs (ties broken by index).

        ``max_edges=round(pg.edge_count)`` gives an export of about the released edge count
        (``dpgraph synth --weighted`` does this by default). The exported weights are capped at
        1, the most an input's weight can be (post-processing; the PCA route's projected
        weights reach above it), after the heaviest pairs are chosen by their released
        weights."""
        min_weight = check_number(min_weight, name="min_weight", low=0.0)
        k = None if max_edges is None else check_integer(max_edges, name="max_edges")
        n = self.n
        check_memory(DENSE_COPIES_BYTES * n * n,
                     what=f"the weighted export of the {n:,}-node release (n x n copies)")
        W = self.weights()
        if min_weight > 0:
            W[W <= min_weight] = 0.0
        if k is not None:
            W = _keep_heaviest(W, k)
        np.minimum(W, 1.0, out=W)
        pairs = int(np.count_nonzero(W)) // 2
        check_memory(CSR_BYTES_PER_PAIR * pairs,
                     what=f"a sparse export of {pairs:,} weighted pairs",
                     alternative="Pass max_edges=round(pg.edge_count) (the heaviest pairs "
                                 "only) or a min_weight, or use .sample().")
        return from_matrix(sp.csr_array(W), self.labels, source="synthetic graph")

    def to_scipy(self, *, min_weight: float = 0.0, max_edges: int | None = None) -> sp.csr_array:
        """Synthetic weights as a CSR array (row ``i`` is ``labels[i]``)."""
        return self.to_graph_data(min_weight=min_weight, max_edges=max_edges).weights

    def to_networkx(self, *, min_weight: float = 0.0, max_edges: int | None = None,
                    weight: str | None = "weight"):
        """Synthetic weighted graph as ``networkx.Graph``, the weights in the edge attribute
        ``weight`` (None: no attribute), as :meth:`GraphData.to_networkx`."""
        data = self.to_graph_data(min_weight=min_weight, max_edges=max_edges)
        _check_library_graph("networkx", data, NX_BYTES)
        return to_networkx(data, weight=weight)

    def to_igraph(self, *, min_weight: float = 0.0, max_edges: int | None = None,
                  weight: str | None = "weight"):
        """Synthetic weighted graph as ``igraph.Graph`` (vertex ``name``; the weights in the
        edge attribute ``weight``, none with None), as :meth:`GraphData.to_igraph`."""
        data = self.to_graph_data(min_weight=min_weight, max_edges=max_edges)
        _check_library_graph("igraph", data, IGRAPH_BYTES)
        return to_igraph(data, weight=weight)

    def sample(self, rng=None) -> GraphData:
        """An unweighted simple graph (post-processing: no privacy cost).

        With a released block model (:attr:`block_model`, the default of
        :func:`dpgraph.privatize`): :func:`dpgraph.synthetic.sampler.sample_block_model`, which
        draws exactly the released number of edges per block pair with degree-proportional
        endpoints and gives the nodes short of their released degrees (saturated hubs) edge
        ends of nodes over theirs (:func:`dpgraph.synthetic.sampler.restore_degrees`).
        Otherwise pair ``{i, j}`` is an edge with probability ``min(W_ij, 1)`` independently
        (``W`` = :meth:`weights`). A :class:`UserWarning` says when the sample has fewer than
        ``n / 2`` edges (empty included) and names the released count.

        Every edge of the sample has weight 1; the released counts are weighted (a weight ``w``
        in [0, 1] counts as ``w`` of an edge), so on a weighted input the sample has about the
        input's total edge weight in edges (:attr:`edge_count`), fewer than its edges
        (``weight=None`` in :func:`dpgraph.privatize` releases the edges unweighted).

        ``rng``: given (an int, a ``SeedSequence`` or a ``Generator``), the sample draws from
        it. ``None`` (default): on a release made with ``rng=None`` (secure mode), fresh secure
        randomness, a different graph each call; on a reproducible release (made with a seed
        or a caller's generator; its ledger says so), the next draws of the release's own
        generator, keyed by its released values (a function of that seed and the input): two
        calls give two different graphs, and re-running the script gives the same sequence
        (NumPy's semantics)."""
        from dpgraph.synthetic.block_model import warn_if_sparse_sample

        gen = self._sample_rng(rng)
        if self.block_model is not None:
            from dpgraph.synthetic.release import synthetic_memory
            from dpgraph.synthetic.sampler import sample_block_model

            bm = self.block_model
            edges = min(max(float(bm.edge_count), 0.0), self.n * (self.n - 1) / 2.0)
            check_memory(synthetic_memory(self.n, edges),
                         what=f"a sample of ~{edges:,.0f} edges on {self.n:,} nodes")
            warn_if_sparse_sample(bm.edge_count, self.n, bm.edge_total)
            return sample_block_model(bm.blocks, bm.block_counts, bm.degrees, inside=bm.inside,
                                      rng=gen, labels=self.labels, restore=True)
        check_memory(DENSE_COPIES_BYTES * self.n * self.n,
                     what=f"an independent-pairs sample of the {self.n:,}-node release")
        W = self.weights()
        iu, ju = np.triu_indices(self.n, 1)
        p = np.minimum(W[iu, ju], 1.0)
        del W
        keep = gen.random(p.shape[0]) < p
        rows, cols = iu[keep], ju[keep]
        warn_if_sparse_sample(rows.size, self.n)
        A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(self.n, self.n))
        return from_matrix((A + A.T).tocsr(), self.labels, source="sampled synthetic graph")

    def _sample_rng(self, rng):
        """The generator of one sample: ``rng`` when given; else fresh secure randomness for a
        secure release, and for a reproducible one (its ledger's mark) its own stream, made at
        the first sample from a digest of its released values (degrees, normalizer, the block
        model's arrays) and advanced by every sample
        (:func:`dpgraph.synthetic.sample_streams.sample_generator`)."""
        from dpgraph.synthetic.sample_streams import sample_generator

        def values():
            bm = self.block_model
            return (type(self).__name__, self.n, self.degrees, self.normalizer,
                    *((bm.degrees, bm.block_counts, bm.blocks) if bm is not None else ()))

        gen, stream = sample_generator(rng, self.__dict__.get("_sample_stream"),
                                       self.ledger.reproducible, values)
        if stream is not None:
            self.__dict__["_sample_stream"] = stream
        return gen

    def solver_options(self) -> dict:
        """Engine options suited to this release's form (none for a dense release)."""
        return {}

    def objective_operator(self, name: str):
        """:meth:`objective` ``name`` as the engine's
        :class:`~dpgraph.engine.WeightOperator` (post-processing)."""
        from dpgraph.engine import WeightOperator, as_weight_operator

        obj = self.objective(name)
        if isinstance(obj, WeightOperator):
            return obj
        # symmetric by construction: skip the engine's O(n^2) symmetry check of a dense input
        return as_weight_operator(obj, labels=self.labels, check=False)

    def synthetic_operator(self, name: str):
        """The weights on which an answer's ``synthetic_value`` is measured: the exported
        :meth:`weights` (``name``, the answer's objective, matters only to releases whose
        objectives are themselves the export, as in factor form)."""
        from dpgraph.engine import as_weight_operator

        return as_weight_operator(self.weights(), check=False)

    def rank_text(self) -> str:
        """``rank=r`` for a repr and, where the release's rank differs from the one asked for
        (``diagnostics["rank"]``), ``of requested k`` with the reason where it is known."""
        asked = self.diagnostics.get("rank")
        text = f"rank={self.rank}"
        if asked is None or asked == self.rank:
            return text
        if self.rank is None:
            return (text + f" of requested {asked} [the {self.diagnostics.get('route')} route "
                           f"releases no low-rank estimate]")
        return text + f" of requested {asked}" + (" [capped at n - 2]"
                                                   if self.rank == self.n - 2 else "")

    def to_dict(self) -> dict:
        """The release as plain, JSON-ready data (:func:`dpgraph.result.jsonable`): ``nodes``,
        ``route``, ``rank``, the released ``edge_count``, ``halted``, ``private_release`` (and,
        for reproducible noise, ``warning``), ``ledger`` and ``diagnostics`` (the release's weights are not in it: export them with
        :meth:`to_graph_data` or :meth:`sample`).

        >>> import json, networkx as nx, dpgraph
        >>> pg = dpgraph.privatize(nx.karate_club_graph(), epsilon=1.0, delta=1e-6, weight=None)
        >>> doc = json.loads(json.dumps(pg.to_dict()))
        >>> doc["nodes"], doc["private_release"], sorted(doc)[:3]
        (34, True, ['diagnostics', 'edge_count', 'halted'])
        """
        from dpgraph.result import jsonable, privacy_fields

        return jsonable({"nodes": self.n, "route": self.diagnostics.get("route"),
                         "rank": self.private_rank, "edge_count": self.edge_count,
                         "halted": self.halted, **privacy_fields(self.ledger),
                         "diagnostics": self.diagnostics})

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(n={self.n}, route={self.diagnostics.get('route')!r}, "
                f"{self.rank_text()}, {spent_text(self.ledger, self.diagnostics.get('unspent'))}, "
                f"halted={self.halted}{reproducible_tag(self.ledger)})")



# Bytes of the dense exports: the n x n weights copy and its temporaries (the partition of
# max_edges, a boolean mask; the sampler's pair indices and draws: 16 + 8 + 8 + 1 per pair),
# per n^2; the sparse export per kept pair (its coordinates and the CSR array, both triangles);
# a library graph per edge and per node (networkx measured with tracemalloc at 447 B per edge,
# igraph's Python side at 167 B per edge, n = 20,000, 10^5 edges).
DENSE_COPIES_BYTES = 24
CSR_BYTES_PER_PAIR = 96
NX_BYTES = (500, 600)      # per edge, per node
IGRAPH_BYTES = (200, 200)


def _check_library_graph(library: str, data: GraphData, costs) -> None:
    """Refuse, before building it, a ``library`` graph of ``data`` that would not fit."""
    per_edge, per_node = costs
    check_memory(per_edge * data.m + per_node * data.n,
                 what=f"a {library} graph of {data.n:,} nodes and {data.m:,} edges",
                 alternative="Pass max_edges=round(pg.edge_count) or a min_weight, use "
                             ".to_scipy(), or .sample().")


def _keep_heaviest(W: np.ndarray, k: int) -> np.ndarray:
    """``W`` (symmetric, zero diagonal) with only its ``k`` heaviest pairs kept, the others set
    to zero (in place; returned). Of the pairs tied at the ``k``-th heaviest weight, the first
    by index ``(i, j)``, ``i < j``, are kept, so that at most ``k`` pairs remain.

    >>> W = np.array([[0, 1, 1, 2], [1, 0, 1, 1], [1, 1, 0, 1], [2, 1, 1, 0]], dtype=float)
    >>> np.argwhere(np.triu(_keep_heaviest(W, 3), 1)).tolist()
    [[0, 1], [0, 2], [0, 3]]
    """
    if k < 0:
        raise ValueError(f"max_edges must be >= 0, got {k}")
    n = W.shape[0]
    if k == 0:
        W[:] = 0.0
    elif 2 * k < n * (n - 1):
        flat = W.ravel()  # each pair twice (symmetric): the 2k-th largest entry is the k-th pair
        t = np.partition(flat, flat.size - 2 * k)[flat.size - 2 * k]
        W[W < t] = 0.0
        if t > 0:
            surplus = int(np.count_nonzero(W >= t)) // 2 - k
            if surplus > 0:  # ties at t beyond the k-th pair: the last ones by index go
                i, j = np.nonzero(np.triu(W == t, 1))
                W[i[-surplus:], j[-surplus:]] = 0.0
                W[j[-surplus:], i[-surplus:]] = 0.0
    return W
