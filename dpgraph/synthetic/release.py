"""``release_synthetic``: a dedicated private synthetic-graph release (docs/privacy.md 7.6-7.10).

Pure edge-level epsilon-DP, ``O(m + n k + g^2)``, no n x n array and no eigensolve; what
``dpgraph synth`` runs by default. Its steps, each in its own module: private communities
(:mod:`dpgraph.synthetic.communities`: two read-once label passes by default), one Laplace
release of a degree-corrected block model on them and the total edge weight (:mod:`dpgraph.synthetic.block_model`), degree classes
(:mod:`dpgraph.synthetic.degree_classes`); :class:`SyntheticRelease` samples graphs from the
result (:mod:`dpgraph.synthetic.sampler`). The default split of epsilon among the steps is the
plan below (``COMMUNITY_SHARE``, ``DEGREE_BIN_SHARE``, ``edge_count_share(n)``, the rest to the
block model) with :func:`default_init_labels` and :func:`default_rounds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpgraph.privacy.budget import (CLUSTERING_SHARE, COMMUNITY_SHARE, DEGREE_BIN_SHARE,
                                    EDGE_COUNT_SHARE, SIDE_SHARE, edge_count_share,
                                    edge_count_top_up_cap, left)
from dpgraph.graph import GraphData, label_sequence
from dpgraph.io.dask import is_dask_input
from dpgraph.memory import available_memory, check_memory
from dpgraph.privacy import PrivacyLedger, make_rng, reproducible_tag
from dpgraph.privacy.ledger import records_in_ledger, spent_text
from dpgraph.privacy.validation import (check_epsilon, check_flag, check_integer,
                                        check_optional_share, check_share)
from dpgraph.private_input import check_private_graph_input, input_graph
from dpgraph.progress import report
from dpgraph.synthetic.block_model import (SPLIT_COUNT_SHARE, BlockModel, combined_estimate,
                                           released_degree_noise_sd,
                                           split_block_scales,
                                           degrees_summing_to, match_edge_count,
                                           release_edge_total,
                                           release_split_block_model, warn_if_sparse_sample)
from dpgraph.synthetic.communities import (GROUP_SIZE, INIT_SHARE, REFINE_BATCHES,
                                           check_community_memory, label_pass_memory, label_passes,
                                           private_communities,
                                           supergraph_size)
from dpgraph.synthetic.closure import MAX_COUNT_WORK, close_triangles
from dpgraph.synthetic.clustering import (affinity_density, clustering_informative,
                                          projection_cap, release_transitivity)
from dpgraph.synthetic.degree_classes import split_by_released_degree_classes
from dpgraph.synthetic.degree_prior import matched_degrees
from dpgraph.synthetic.sample_streams import sample_generator, sample_stream
from dpgraph.synthetic.sampler import FILL_CHUNK, sample_block_model
from dpgraph.synthetic.sides import best_block_split, release_cut_lead, side_pass

__all__ = ["SyntheticRelease", "release_synthetic", "default_init_labels", "default_rounds",
           "COMMUNITY_SHARE", "DEGREE_BIN_SHARE", "EDGE_COUNT_SHARE", "RANDOM_INIT_FROM",
           "RANDOM_INIT_LABELS", "RANDOM_INIT_ROUNDS", "LOW_EPS_LABELS", "LOW_EPS_ROUNDS",
           "COMMUNITY_MIN_SIGNAL", "community_signal", "BLOCK_RESTORE_SDS"]

# the default shares of epsilon (communities, degree classes, edge count) are named in
# dpgraph.privacy.budget
# The communities start from uniformly random labels (no super-graph; the whole community
# budget goes to the refinement rounds, in sequential batches): LOW_EPS_LABELS labels and
# LOW_EPS_ROUNDS rounds below epsilon RANDOM_INIT_FROM, RANDOM_INIT_LABELS and
# RANDOM_INIT_ROUNDS from it on. The noisy super-graph of random super-nodes carries almost no
# community signal (its Louvain partition has NMI 0.01-0.02 against the graph's on chameleon
# and facebook at every epsilon up to 2), so its half of the budget is better spent on the
# refinement; below epsilon 3 the per-node noise is too large for 12 labels (6 recover more).
RANDOM_INIT_FROM = 3.0
RANDOM_INIT_LABELS = 12
RANDOM_INIT_ROUNDS = 4
LOW_EPS_LABELS = 6
LOW_EPS_ROUNDS = 2
# Below this community_signal (an average node's edges into one starting label over the Laplace
# scale of a refinement count, from the released edge count) the refinement cannot leave its
# random start, so release_synthetic keeps one block and gives the community budget to the
# degrees (communities="auto").
COMMUNITY_MIN_SIGNAL = 0.2
# The passes' label count (default_pass_labels) is clipped to these. The upper clip only bounds
# the passes' memory (2 n k floats) at large released densities times epsilon: at 12, facebook
# at eps 4 (the rule gives 20) had NMI 0.518 and ARI 0.398 against 0.548 and 0.440 at 20
# (email-Eu-core at eps 4, 12 against 15 labels: NMI 0.310 -> 0.333, ARI 0.224 -> 0.255).
PASS_MIN_LABELS, PASS_MAX_LABELS = 4, 24
# A sample's node short of its released degree by more than this many standard deviations of
# the degrees' noise is given its whole shortfall inside its block (sample_block_model's
# block_tolerance): where the degrees are accurate (large epsilon) the draws' pull of each
# block's degrees towards its mean is undone, where they are noisy (small epsilon) the sample
# keeps the draws' own spread.
BLOCK_RESTORE_SDS = 1.0
# The sides (SIDE_SHARE of epsilon) are released and the samples lean across them only where the
# released model's own best split of its blocks cuts less than this share of its edges (random
# sides cut half): there the model carries no cut, and a Max-Cut of its samples is a random
# partition of the graph (facebook 0.45-0.49, ca-hepph 0.42-0.46 at eps 0.5-4). Where it does
# (chameleon 0.55-0.61: its degree classes mix disassortatively), its samples carry more of the
# graph's cut than sides at a tenth of epsilon (chameleon transfer 0.71 / 0.76 / 0.79 against
# 0.64 / 0.65 / 0.70 leaning across them at eps 0.5 / 1 / 4).
SIDE_MODEL_CUT = 0.5
# Where the model's blocks do cut more than half (above), whether its samples should still lean
# is a private choice: this share of the sides' epsilon releases by how much the sides cut more
# of the graph than the model's best split of its blocks (the rest is the pass). The released
# share of that split overstates its true cut (a maximum over noisy counts): on email-Eu-core
# at eps 0.5, 0.503-0.512 released against 0.496-0.505 true, while the sides cut 0.505-0.511
SIDE_CHOICE_SHARE = 0.3
# a Chung-Lu pair on one side is kept with this probability (pairs across always): the tilt must
# be strong for the engine to find the sides in a sample (benchmarks/NOTES.md)
SIDE_ACCEPT = 0.2

# Bytes the release and a sample of it take, per node and per released edge (measured with
# tracemalloc: 154 B per node for the release and 228 with a sample on 10^6 nodes without
# edges; 262 and 204 B per edge beyond 300 per node on planted graphs with 2 * 10^6 and 10^7
# edges); rounded up. The memory refusal after the edge-count release uses them.
SYNTHETIC_BYTES_PER_NODE, SYNTHETIC_BYTES_PER_EDGE = 300, 300
# and two bounded parts: the closure's triangle counts (at most MAX_COUNT_WORK wedge checks of
# 12 bytes, and no more than the sum of squared degrees, at most 2 m n) and one chunk of the
# sampler's final fill (FILL_CHUNK node pairs, at most n^2 / 2, about 9 arrays of 8 bytes
# each); soc-douban's leaning samples at eps 4 peaked at 175 MB traced, 30 MB over the per-node
# and per-edge parts alone


def synthetic_memory(n: int, edges: float) -> int:
    """Bytes :func:`release_synthetic` and one :meth:`SyntheticRelease.sample` need for ``n``
    nodes and ``edges`` released edges (public sizes).

    >>> synthetic_memory(154_908, 327_162) // 10**6  # soc-douban, MB
    230
    """
    e = max(float(edges), 0.0)
    bounded = 12.0 * min(MAX_COUNT_WORK, 2.0 * e * n) + 72.0 * min(FILL_CHUNK, n * n / 2.0)
    return int(bounded + SYNTHETIC_BYTES_PER_NODE * n + SYNTHETIC_BYTES_PER_EDGE * e)


def _synthetic_fit(n: int, edges: float):
    """What would fit, for the refusal: fewer edges with these nodes when the nodes alone fit,
    else fewer nodes."""
    have = available_memory()
    if edges and have is not None and synthetic_memory(n, 0) <= have:
        return (lambda k: synthetic_memory(n, k), "At most about {:,} edges fit with these nodes.")
    return (lambda k: synthetic_memory(k, 0), "At most {:,} nodes fit.")


def _check_refine_options(init_labels, rounds, batches) -> None:
    """The refinement's options, refused before anything is spent (they were checked only
    when the refinement ran, after the edge count was drawn; ``rounds=0`` divided by zero)."""
    check_integer(init_labels, name="init_labels", low=0)
    if init_labels == 1:
        raise ValueError("init_labels must be 0 (super-graph) or an integer >= 2, got 1")
    if rounds is not None:
        check_integer(rounds, name="rounds", low=1)
    check_integer(batches, name="batches", low=1)


def default_init_labels(epsilon: float) -> int:
    """How :func:`release_synthetic` starts its communities (a public function of epsilon):
    ``RANDOM_INIT_LABELS`` random labels from ``epsilon >= RANDOM_INIT_FROM`` on, else
    ``LOW_EPS_LABELS`` (0 would be the noisy super-graph, an option).

    >>> default_init_labels(1.0), default_init_labels(RANDOM_INIT_FROM)
    (6, 12)
    """
    return RANDOM_INIT_LABELS if epsilon >= RANDOM_INIT_FROM else LOW_EPS_LABELS


def default_rounds(epsilon: float, init_labels: int | None = None) -> int:
    """Refinement rounds of :func:`release_synthetic` (a public function of epsilon):
    after a random start (``init_labels >= 2``, the default) ``RANDOM_INIT_ROUNDS`` from
    ``epsilon >= RANDOM_INIT_FROM`` on, else ``LOW_EPS_ROUNDS``; after the super-graph
    (``init_labels=0``) 2 from epsilon 2 on, else 1.

    >>> default_rounds(1.0), default_rounds(RANDOM_INIT_FROM)  # after a random start
    (2, 4)
    >>> default_rounds(1.0, init_labels=0), default_rounds(2.0, init_labels=0)  # super-graph
    (1, 2)
    """
    if init_labels is None:
        init_labels = default_init_labels(epsilon)
    if init_labels:
        return RANDOM_INIT_ROUNDS if epsilon >= RANDOM_INIT_FROM else LOW_EPS_ROUNDS
    return 2 if epsilon >= 2 else 1


@dataclass(eq=False)
class SyntheticRelease:
    """What :func:`release_synthetic` released: a :class:`BlockModel` and its ledger.

    ``sample(rng)`` draws a synthetic graph (post-processing, as often as wanted; a
    :class:`UserWarning` when the released count is below ``n / 2``);
    ``edge_count`` is the released edge count (every sample has exactly that many edges). On a
    weighted input it estimates the input's total edge weight, not its number of edges
    (:func:`release_synthetic`, "Weights").

    >>> import networkx as nx
    >>> rel = release_synthetic(nx.Graph(nx.karate_club_graph().edges()), epsilon=1.0)
    >>> S = rel.sample()  # as often as wanted, at no further privacy cost
    >>> S.n, S.m == rel.edge_count
    (34, True)
    """

    block_model: BlockModel
    ledger: PrivacyLedger
    labels: tuple | range  # the graph's labels, as GraphData keeps them
    diagnostics: dict
    #: the sampler's clustering phase caps each node's edges at its own inside weight
    #: (:func:`~dpgraph.synthetic.sampler.sample_block_model`'s ``affinity_cap``): set where
    #: the degrees were matched to their deconvolved distribution
    affinity_cap: bool = False
    #: released cut sides (+-1 per node; :func:`~dpgraph.synthetic.sides.side_pass`) that the
    #: sampler's Chung-Lu edges lean across (kept on one side with probability
    #: ``side_accept``), or None
    sides: np.ndarray | None = None
    side_accept: float = SIDE_ACCEPT
    #: ``(tau~, theta)``: the released transitivity of the graph's ``theta``-projection, which
    #: each sample's own projection is rewired to reach
    #: (:func:`~dpgraph.synthetic.closure.close_triangles`), or None
    closure: tuple | None = None
    #: the shortfall from its released degree, in edges, beyond which a sample's node is given
    #: its whole shortfall inside its block (``BLOCK_RESTORE_SDS`` standard deviations of the
    #: degrees' noise;
    #: :func:`~dpgraph.synthetic.sampler.sample_block_model`'s ``block_tolerance``), or None
    block_tolerance: float | None = None
    #: reproducible mode only (the release was made with a seed or a caller's generator): the
    #: generator ``sample(rng=None)`` draws from and advances, a child stream of that seed
    #: spawned at release time (:func:`~dpgraph.synthetic.sample_streams.sample_stream`);
    #: None for a secure release (each sample then draws fresh secure randomness)
    sample_rng: np.random.Generator | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.block_model.n

    @property
    def edge_count(self) -> int:
        return self.block_model.edge_count

    def sample(self, rng=None) -> GraphData:
        """An unweighted simple graph from the block model
        (:func:`~dpgraph.synthetic.sampler.sample_block_model`, with the hubs' degrees
        restored, then each node short by more than ``block_tolerance`` restored inside its
        block: :func:`~dpgraph.synthetic.sampler.restore_degrees`), then, where a
        transitivity was released (``closure``), rewired until its own projection has it
        (:func:`~dpgraph.synthetic.closure.close_triangles`; degrees and the edge counts
        between blocks and released sides kept). Post-processing: no privacy cost.

        Every edge of the sample has weight 1, and it has exactly :attr:`edge_count` edges: on
        a weighted input that is the released estimate of the input's *total edge weight*
        (each weight in [0, 1] counts as that fraction of an edge), so a graph of 88,234 edges
        of weights 0.25-1 (total 55,233) gives samples of about 55,200 edges
        (:func:`release_synthetic`, "Weights"; ``weight=None`` releases the edges unweighted).

        ``rng``: the sample's randomness. Given (an int, a ``SeedSequence`` or a
        ``Generator``), the sample draws from it: ``sample(rng=1)`` is the same graph every
        time. ``None`` (default): on a release made with ``rng=None`` (secure mode) fresh secure
        randomness, a different graph each call; on a release made with a seed or a caller's
        generator (reproducible mode), the next draws of :attr:`sample_rng`, the release's own
        stream spawned from that seed: two calls give two different graphs, and re-running the
        script gives the same sequence (NumPy's semantics).

        >>> import networkx as nx, warnings
        >>> G = nx.Graph(nx.karate_club_graph().edges())
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")  # seeded: reproducible mode warns
        ...     a, b = (release_synthetic(G, epsilon=1.0, rng=0) for _ in range(2))
        >>> edges = lambda S: (S.weights.indptr.tolist(), S.weights.indices.tolist())
        >>> edges(a.sample()) == edges(b.sample()), edges(a.sample()) == edges(b.sample())
        (True, True)
        >>> edges(a.sample()) == edges(a.sample())  # the stream advances
        False
        """
        bm = self.block_model
        warn_if_sparse_sample(bm.edge_count, bm.n, bm.edge_total)
        k = bm.block_counts.shape[0]
        gen, self.sample_rng = sample_generator(
            rng, self.sample_rng, self.ledger.reproducible,
            lambda: (bm.degrees, bm.block_counts, bm.blocks, bm.edge_total, self.sides,
                     self.closure))
        g = sample_block_model(bm.blocks, bm.block_counts, bm.degrees, inside=bm.inside,
                               rng=gen, labels=self.labels, groups=bm.groups,
                               affinity_cap=self.affinity_cap,
                               affinity=None if bm.affinity is None
                               else np.full(k, bm.affinity),
                               sides=self.sides, side_accept=self.side_accept,
                               restore=True, block_tolerance=self.block_tolerance)
        if self.closure is None or g.m == 0:
            return g
        # the swaps keep the edge count of every pair of blocks and the count of edges
        # across the released sides, so the sample's cut of the sides stays as sampled
        weights, _ = close_triangles(g.weights, bm.blocks, *self.closure, rng=gen,
                                     sides=self.sides)
        return GraphData(weights=weights, labels=g.labels)

    def to_dict(self) -> dict:
        """The release as plain, JSON-ready data (:func:`dpgraph.result.jsonable`): ``nodes``,
        ``blocks``, the released ``edge_count``, ``mechanism``, ``private_release`` (and, for
        reproducible noise, ``warning``), ``ledger`` and ``diagnostics``, the fields of ``dpgraph synth --json`` that describe the release (a
        sample is drawn by :meth:`sample`, not stored).

        >>> import json, networkx as nx, dpgraph
        >>> rel = dpgraph.release_synthetic(nx.karate_club_graph(), epsilon=1.0, weight=None)
        >>> doc = json.loads(json.dumps(rel.to_dict()))
        >>> doc["nodes"], doc["private_release"], doc["ledger"]["spent"]["epsilon"] <= 1.0
        (34, True, True)
        """
        from dpgraph.result import jsonable, privacy_fields

        return jsonable({"nodes": self.n, "blocks": int(self.block_model.block_counts.shape[0]),
                         "edge_count": int(self.edge_count),
                         "mechanism": self.diagnostics.get("mechanism"),
                         **privacy_fields(self.ledger), "diagnostics": self.diagnostics})

    def __repr__(self) -> str:
        return (f"SyntheticRelease(n={self.n}, blocks={self.block_model.block_counts.shape[0]}, "
                f"edge_count={self.edge_count}, {spent_text(self.ledger)}"
                f"{reproducible_tag(self.ledger)})")


def _check_shares(community_share, init_share, count_share, bin_share,
                  edge_share=EDGE_COUNT_SHARE, side_share=0.0) -> None:
    """The shares of :func:`release_synthetic` in (0, 1) (``bin_share`` and ``side_share`` may
    be 0), leaving room for the block model, the edge count and the clustering (``edge_share``:
    their sum); the sides' share below the community share it is taken from."""
    for name, value in (("community_share", community_share), ("init_share", init_share),
                        ("count_share", count_share)):
        check_share(name, value)
    check_optional_share("bin_share", bin_share)
    if check_optional_share("side_share", side_share) != 0:
        if side_share >= community_share:
            raise ValueError(f"side_share must be below community_share ({community_share!r}), "
                             f"which it is taken from; got {side_share!r}")
    if community_share + bin_share + edge_share >= 1:
        raise ValueError(f"community_share + bin_share + clustering_share + the edge count's "
                         f"share must be below 1 (the rest is the block model's), got "
                         f"{community_share!r} + {bin_share!r} + {edge_share:g} (the last: "
                         f"clustering_share and the edge count's share together)")


def _model_share(community_share: float, bin_share: float, edge_share: float) -> float:
    """What the plan leaves the block model with communities, as a share of epsilon
    (``edge_share``: the edge count's and the clustering's together)."""
    return 1.0 - community_share - bin_share - edge_share


def _check_sampler_range(epsilon: float, n: int, *, edge_share: float, community_share: float,
                         bin_share: float, clustering_share: float, side_share: float,
                         communities: str, community_method: str = "passes",
                         refine: dict | None = None) -> None:
    """Refuse, before the edge count is drawn (docs/privacy.md 11.1), an ``epsilon`` or a share
    at which one of :func:`release_synthetic`'s discrete Laplace releases would fall outside the
    exact sampler's range (:func:`dpgraph.privacy.noise.check_laplace_shares`), where it was
    refused only after the releases ahead of it were drawn. Each release is checked at the
    least epsilon and the most coordinates it can have at public ``n`` (whether it happens, and
    its size, may depend on released values): the edge count, and its second release (at least
    half the first's share; it leaves the block model three quarters of its share or more); the
    community step
    (:func:`_community_releases`: its epsilon is a public share, only whether it runs and its
    label count depend on the released count); the block model's degrees (one block: ``n``
    coordinates; with ``k`` communities ``2 n + k (k - 1) / 2``, ``k`` at most the step's label
    bound, at what the communities and sides leave); the degree-class counts (up to
    ``MAX_DEGREE_BINS`` classes); the clustering counts (2); the cut sides (their choice's
    ``SIDE_CHOICE_SHARE`` of ``side_share``). ``refine``: the resolved options of
    ``community_method="refine"`` (``init_share``, ``rounds``, ``group_size``, ``init_labels``,
    ``batches``)."""
    from dpgraph.privacy.noise import (check_laplace_shares, discrete_laplace_in_range,
                                       least_in_range)
    from dpgraph.synthetic.degree_classes import MAX_DEGREE_BINS

    n = int(n)
    grouped = communities != "none"  # the model may have communities (and then sides)
    # the edge count's second release (7.10) takes at most a quarter of the model's share
    top_up = edge_count_top_up_cap(
        _model_share(community_share, bin_share, edge_share + clustering_share))
    one_block = 1.0 - edge_share - bin_share - clustering_share - top_up
    bins = min(MAX_DEGREE_BINS, n)
    community, k_max = _community_releases(n, community_share - side_share, community_method,
                                           refine or {})
    # (what, share of epsilon, coordinates, the share parameter and its factor in the share)
    releases = [("the edge count (its share at this n)", edge_share, 1, None),
                ("the edge count's second release (at least half that share)", edge_share / 2,
                 1, None)]
    releases += [(what, share if grouped else 0.0, changed, "communities")
                 for what, share, changed in community]
    releases += [
        ("the one-block model's degrees (what the other shares leave)", one_block, n, None),
        (f"the block model with communities (what the other shares leave, up to {k_max} "
         f"communities)", one_block - community_share if grouped else 0.0,
         2 * n + k_max * (k_max - 1) // 2, "communities"),
        (f"the degree-class counts (bin_share, up to {bins} classes)", bin_share,
         bins * (bins + 1) // 2, ("bin_share", 1.0)),
        ("the clustering counts (clustering_share)", clustering_share, 2,
         ("clustering_share", 1.0)),
        (f"the cut sides' choice (side_share x {SIDE_CHOICE_SHARE:g})",
         SIDE_CHOICE_SHARE * side_share if grouped else 0.0, 1,
         ("side_share", SIDE_CHOICE_SHARE))]
    advice = ""
    for what, share, changed, param in releases:  # the advice for the first one out of range
        if share <= 0 or discrete_laplace_in_range(1.0, share * epsilon, changed):
            continue
        if param == "communities":
            advice = ", or communities='none' (one block)"
        elif param is not None:  # the smallest value of the parameter that fits at epsilon
            name, factor = param
            value = least_in_range(changed, factor * epsilon)
            advice = (f", or {name} >= {value:.3g}" if value < 0.5
                      else "") + f", or {name}=0 (skipped)"
        break
    check_laplace_shares(epsilon, [r[:3] for r in releases], caller="release_synthetic",
                         advice=advice)


def _community_releases(n: int, share: float, method: str, refine: dict):
    """The discrete Laplace releases of step 1 (:func:`_release_communities`) at public ``n``,
    for :func:`_check_sampler_range`: ``(what, share of epsilon, coordinates)`` triples, with
    ``share`` the communities' (``community_share - side_share``), and the most communities
    step 1 can return. The label passes: two passes at ``share / 2``, one coordinate each
    (:func:`~dpgraph.synthetic.communities.label_passes`), at most ``PASS_MAX_LABELS`` labels.
    The refinement (:func:`~dpgraph.synthetic.communities.private_communities`): the
    super-graph's ``g (g + 1) / 2`` counts at ``init_share * share`` (``init_labels=0``), then
    each of ``rounds`` rounds at what is left over ``rounds``: 2 coordinates (sequential
    batches) or all ``n k`` (``batches=1``), ``k`` at most the starting labels (``g`` after the
    super-graph)."""
    if method != "refine":
        return ([("the label passes (each pass: (community_share - side_share) / 2)",
                  share / 2.0, 1)], min(PASS_MAX_LABELS, n))
    rounds, init = int(refine.get("rounds", 1)), int(refine.get("init_labels", 0))
    batches = min(int(refine.get("batches", REFINE_BATCHES)), n)
    out = []
    if init:
        k, left_share = min(init, n), share
    else:
        g = supergraph_size(n, refine.get("group_size", GROUP_SIZE))
        init_share = float(refine.get("init_share", INIT_SHARE))
        out.append(("the super-graph's counts (init_share of the communities' share)",
                    init_share * share, g * (g + 1) // 2))
        k, left_share = min(g, n), (1.0 - init_share) * share
    out.append((f"each of the {rounds:,} refinement rounds (communities' share / rounds)",
                left_share / rounds, 2 if batches > 1 else n * k))
    return out, k


def _private_input(G, weight) -> GraphData:
    """``G`` as :class:`~dpgraph.graph.GraphData`, checked for a private release (in memory:
    a Dask edge list is refused)."""
    if is_dask_input(G):
        raise ValueError("release_synthetic needs the graph in memory; for a Dask edge list use "
                         "dpgraph.privatize(..., route='matrix-free').sample()")
    data = input_graph(G, weight=weight)
    check_private_graph_input(data, what="release_synthetic")
    return data


def _match_released_edge_count(bm: BlockModel, count: tuple, *, rng) -> BlockModel:
    """Step 4 of :func:`release_synthetic` (post-processing): the block pair counts rescaled to
    the inverse-variance combination of the released total edge weight ``count = (m_hat,
    variance)`` with the model's own unbiased total (``bm.edge_total``, docs/privacy.md 7.12),
    and the degrees shifted down to sum to twice the result."""
    bm.edge_total = combined_estimate(count, bm.edge_total)
    bm = match_edge_count(bm, bm.edge_total[0], rng=rng)
    bm.degrees = degrees_summing_to(bm.degrees, 2.0 * bm.edge_count)
    return bm


def default_pass_labels(edge_count: float, n: int, epsilon: float) -> int:
    """Labels of :func:`~dpgraph.synthetic.communities.label_passes` (a public function of the
    released edge count, n and the communities' epsilon): a third of the mean degree over the
    Laplace scale of a pass's counts, ``(2 m^ / n) / (2 / epsilon) / 3``, rounded and clipped
    to ``[PASS_MIN_LABELS, PASS_MAX_LABELS]``."""
    mean_degree = 2.0 * max(float(edge_count), 0.0) / max(int(n), 1)
    x = mean_degree * epsilon / 2.0 / 3.0
    return int(min(max(round(x), PASS_MIN_LABELS), PASS_MAX_LABELS))


def community_signal(edge_count: float, n: int, epsilon: float, labels: int,
                     rounds: int) -> float:
    """What one refinement count of :func:`~dpgraph.synthetic.communities.private_communities`
    carries against its noise (a public function of released values): an average node's edge
    weight into one of ``labels`` communities, ``2 edge_count / (n labels)``, over the Laplace
    scale of each round's counts, ``2 rounds / epsilon`` (L1 sensitivity 2 per round).

    >>> round(community_signal(31_421, 2_277, 0.073, 6, 2), 3)  # chameleon at epsilon 0.1
    0.084
    """
    mean_degree = 2.0 * max(float(edge_count), 0.0) / max(int(n), 1)
    return (mean_degree / labels) / (2.0 * rounds / epsilon)


def _release_communities(data, m_hat: float, *, epsilon: float, ledger, rng, diag: dict,
                         communities: str, refine: dict, plan_epsilon: float | None = None):
    """Step 1 of :func:`release_synthetic` with the communities' ``epsilon``: the label passes
    (``diag["community_method"] == "passes"``) or the refinement rounds (``"refine"``, with
    the keyword arguments ``refine``) where ``communities`` is ``"private"``, or ``"auto"``
    and :func:`community_signal` reaches ``COMMUNITY_MIN_SIGNAL``; one block otherwise. The
    passes decide on the refinement's small-epsilon plan (``LOW_EPS_LABELS`` labels,
    ``LOW_EPS_ROUNDS`` rounds), the super-graph start as if from ``LOW_EPS_LABELS`` labels.
    ``plan_epsilon`` (default ``epsilon``): the epsilon the one-block decision reads (the
    community share before the sides took theirs). Returns the blocks and, from the passes,
    their degree estimates ``(values, variances)`` (None otherwise); fills ``diag``."""
    method = diag["community_method"]
    init = refine["init_labels"]
    labels, rounds = ((init or LOW_EPS_LABELS, refine["rounds"]) if method == "refine"
                      else (LOW_EPS_LABELS, LOW_EPS_ROUNDS))
    signal = community_signal(m_hat, data.n, epsilon if plan_epsilon is None else plan_epsilon,
                              labels, rounds)
    diag["community_signal"] = round(signal, 4)
    if method == "refine":
        diag.update(rounds=refine["rounds"], batches=refine["batches"],
                    init=f"{init} random labels" if init else "super-graph")
    if communities == "none" or (communities == "auto" and signal < COMMUNITY_MIN_SIGNAL):
        report(f"release_synthetic: one block (community signal {signal:.3g}"
               + (f" < {COMMUNITY_MIN_SIGNAL:g}: communities would be random)"
                  if communities == "auto" else ", communities='none')"))
        return np.zeros(data.n, dtype=np.int64), None
    report(f"release_synthetic: private communities of {data.n:,} nodes")
    if method == "refine":
        return private_communities(data, epsilon=epsilon, ledger=ledger, rng=rng,
                                   **refine), None
    diag["labels"] = default_pass_labels(m_hat, data.n, epsilon)
    blocks, degrees, variances = label_passes(data, epsilon=epsilon, ledger=ledger, rng=rng,
                                              labels=diag["labels"], degrees=True)
    return blocks, (degrees, variances)


@records_in_ledger
def release_synthetic(G, *, epsilon: float, rng=None, weight: str | None = "weight",
                      community_share: float = COMMUNITY_SHARE, init_share: float = INIT_SHARE,
                      rounds: int | None = None, count_share: float = SPLIT_COUNT_SHARE,
                      group_size: int = GROUP_SIZE,
                      init_labels: int | None = None,
                      bin_share: float = DEGREE_BIN_SHARE,
                      batches: int = REFINE_BATCHES,
                      communities: str = "auto",
                      clustering_share: float = CLUSTERING_SHARE,
                      degree_prior: bool | None = None,
                      community_method: str = "passes",
                      side_share: float = SIDE_SHARE) -> SyntheticRelease:
    """Release a private synthetic-graph model of ``G`` (pure edge-level ``epsilon``-DP).

    Cheaper than :func:`dpgraph.privatize` for this one use: ``O(m + n k + g^2)`` time and
    memory (``k`` communities, ``g <= MAX_GROUPS`` super-nodes), no eigensolve, no n x n array.
    Steps (docs/privacy.md 7.6-7.10):

    0. ``edge_count_share(n) * epsilon`` (``5 / n`` between 0.02, from 250 nodes on, and
       0.15; :func:`~dpgraph.privacy.budget.edge_count_share`): the total edge weight
       (:func:`~dpgraph.synthetic.block_model.release_edge_total`), and a second count where
       the first one's noise is large beside its value (up to
       :data:`~dpgraph.privacy.budget.EDGE_COUNT_TOP_UP_MAX` more, from the block model's
       share: :func:`~dpgraph.privacy.budget.edge_count_top_up`; graphs of about 16,000 edges
       at epsilon 0.5), the two combined. With ``communities="auto"`` it decides step 1:
       where :func:`community_signal` (an average node's edges into one
       starting label over the Laplace scale of a refinement count) is below
       ``COMMUNITY_MIN_SIGNAL``, the refinement cannot leave its random start, so every node
       stays in one block and step 2 gets the community budget too (a function of the released
       count: no extra cost).
    1. ``(community_share - side_share) * epsilon``: a private community partition (the
       one-block decision reads ``community_share * epsilon``; with one block the model gets
       the whole share). By default
       (``community_method="passes"``) two read-once label passes over a random order
       (:func:`~dpgraph.synthetic.communities.label_passes`, docs/privacy.md 7.14) with
       :func:`default_pass_labels` labels (4-24, from the released mean degree and epsilon);
       the degrees their counts imply are combined with step 2's by inverse variance
       (post-processing). With ``community_method="refine"``
       (:func:`~dpgraph.synthetic.communities.private_communities`): uniformly random labels
       (6, from ``epsilon >= 3`` 12; :func:`default_init_labels`), or with ``init_labels=0``
       Louvain on a noisy super-graph of random super-nodes, then ``rounds`` rounds of noisy
       node-to-community counts and Louvain moves, each round in ``batches`` sequential
       batches of nodes (default :func:`default_rounds`: 2, from ``epsilon >= 3`` 4).
    2. ``(1 - community_share - bin_share - edge_count_share(n)) * epsilon``: inside degrees,
       inter-community edge counts and across degrees in one Laplace release
       (:func:`~dpgraph.synthetic.block_model.release_split_block_model`),
       post-processed into a consistent degree-corrected block model (degrees clipped to
       ``[1, n - 1]``, counts capped by the pairs available).
    3. ``bin_share * epsilon`` (0: skipped): the edge counts between logarithmic classes of
       the released degrees (:func:`~dpgraph.synthetic.degree_classes.release_degree_mixing`);
       every community is split by degree class and the new block pair counts fitted to both
       released margins (:func:`~dpgraph.synthetic.degree_classes.split_by_degree_bins`), so
       the samples keep the graph's degree mixing (assortative or not), which shapes
       triangles, paths and cuts.
    3b. ``clustering_share * epsilon`` (0.05; 0: skipped): the transitivity of a
       degree-capped projection of the graph
       (:func:`~dpgraph.synthetic.clustering.release_transitivity`, cap twice the released
       mean degree), which sets the density of the sampler's affinity groups
       (:func:`~dpgraph.synthetic.clustering.affinity_density`), and to which each sample's
       own projection is then rewired (:func:`~dpgraph.synthetic.closure.close_triangles`,
       degree- and class-pair-preserving swaps): the samples keep clustering, triangles,
       path lengths and distances (measured in BENCHMARKS.md). Taken from step
       2's share; skipped (the share back to step 2) where its noise exceeds the most
       triangle corners the released edge count can hold
       (:func:`~dpgraph.synthetic.clustering.clustering_informative`).
    4. The block pair counts rescaled to the inverse-variance combination of step 0's count
       with the unbiased totals of steps 2 and 3's raw values (half the raw degree sum, the
       raw inter-community and class-pair counts;
       :func:`~dpgraph.synthetic.block_model.combined_estimate`,
       :func:`~dpgraph.synthetic.block_model.match_edge_count`): on large graphs step 0's
       count dominates, on small ones the degrees; the released degrees shifted down to sum
       to twice that count (:func:`~dpgraph.synthetic.block_model.degrees_summing_to`).
       Post-processing (``diagnostics["edge_count_estimate"]``).
    4b. ``side_share * epsilon`` (0.05; with communities only): cut sides from one forward
       pass in the order of the released degrees (:func:`~dpgraph.synthetic.sides.side_pass`,
       docs/privacy.md 7.15), which the sampler's Chung-Lu draws lean across
       (``SIDE_ACCEPT``), so that a Max-Cut of a sample cuts the graph's own edges: where the
       model's own best split of its blocks cuts less than half of its released edges
       (:func:`~dpgraph.synthetic.sides.best_block_split`: it carries no cut of its own, as on
       facebook and ca-hepph), with the whole share; elsewhere with ``1 - SIDE_CHOICE_SHARE``
       of it, and the samples lean only where the released lead of the sides' cut of the graph
       over that split's (:func:`~dpgraph.synthetic.sides.release_cut_lead`, the rest of the
       share) is positive, the pass then starting from that split
       (:func:`~dpgraph.synthetic.sides.split_prior`): email-Eu-core leans in 28 of 30 releases
       at eps 0.5-2, polblogs in 1 / 3 / 10 of 10 at eps 0.5 / 1 / 2, chameleon in 1 / 0 / 8
       / 10 of 10 at eps 0.5 / 1 / 2 / 4.
    5. :meth:`SyntheticRelease.sample`: exactly the released number of edges per block pair:
       first the affinity groups' edges inside each community (step 3b; in one pool across
       communities for the blocks whose released edge ends mostly leave their community), then
       endpoints drawn
       in proportion to the released degrees (Chung-Lu within and between blocks), one anchor
       edge per node (no isolated nodes while the count allows it; a
       :class:`UserWarning` names a released count below ``n / 2``).

    Unlike the export of :func:`dpgraph.privatize` this keeps no spectral release.

    **Weights.** The adjacency is edge-level on weighted graphs (docs/privacy.md 7): two inputs
    are neighbours when one pair's weight in [0, 1] differs by at most 1. Every count above is
    a weighted count (the total edge weight, weighted degrees, the weight between blocks), so
    a weight ``w`` counts as ``w`` of an edge (as an edge present with probability ``w``), and
    what is released is a model of the weighted graph whose samples are *unweighted*: each
    sample has exactly :attr:`SyntheticRelease.edge_count` edges of weight 1, the released
    estimate of the input's total edge weight, and degrees that follow its weighted ones. On
    0/1 weights that is the edge count; a graph of 88,234 edges of weights 0.25-1 (total
    55,233) gives samples of about 55,200 edges. To release the edges themselves, each as one
    edge, pass ``weight=None``. No warning says so when the weights are not all 1: a warning
    that depends on it would tell two adjacent graphs apart (docs/privacy.md 4.12);
    :func:`dpgraph.lab.evaluate.synthetic_report` compares a sample with both the input's edge
    count and its total weight.

    Parameters
    ----------
    G : graph (NetworkX, igraph, SciPy sparse, GraphData), edge weights in [0, 1]
    epsilon : float
        Total privacy budget (delta = 0).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        None: the secure generator (secure mode; ``sample()`` then draws fresh secure
        randomness each call). An int, a ``SeedSequence`` or a generator of yours: reproducible
        mode (not private; warned about): the release's noise comes from it, and ``sample()``
        without an ``rng`` draws from a child stream spawned from it here
        (:attr:`SyntheticRelease.sample_rng`), so a seeded script gives the same samples
        every run, and successive ``sample()`` calls different ones.
    weight : str or None
        Edge attribute read as weight (default ``"weight"``; "Weights" above: the samples
        then have about the total weight in edges); None: every edge weighs 1.
    community_share, init_share, count_share : float in (0, 1)
    bin_share : float in [0, 1)
        Share of ``epsilon`` for the degree-class counts (step 3; 0 turns it off);
        ``community_share + bin_share < 1 - edge_count_share(n)``.
    rounds : int, optional
        Refinement rounds (``community_method="refine"``).
    group_size : int
        Nodes per super-node (``community_method="refine"``, ``init_labels=0`` only).
    init_labels : int, optional
        ``community_method="refine"``: 0 starts the communities from the noisy super-graph;
        ``k >= 2`` from ``k`` random labels (all of the community budget to the refinement).
        Default :func:`default_init_labels` (``epsilon``-dependent).
    batches : int
        Sequential batches per refinement round (``community_method="refine"``;
        ``REFINE_BATCHES``, 64; 1: every node moves at once, against the previous round's
        partition).
    clustering_share : float in [0, 1)
        Share of ``epsilon`` for the clustering release (step 3b; 0 turns it off and the
        sampler has no clustering phase).
    degree_prior : bool or None
        True: the released degrees (step 2) replaced by the quantiles of their deconvolved
        distribution, in the order of the released values
        (:func:`~dpgraph.synthetic.degree_prior.matched_degrees`), and the sampler's
        clustering phase capped at each node's own inside weight (``affinity_cap``).
        Post-processing of released values: no privacy cost. None (default): True exactly
        where step 1 kept one block (a function of the released count and epsilon, step 0);
        on chameleon, facebook and ca-hepph at epsilon 0.1 the degree KL falls from 2.4-4.6
        to 0.3-1.3 and the path error from 0.28-0.36 to 0.23-0.25 (benchmarks/NOTES.md).
    community_method : {"passes", "refine"}
        Step 1's mechanism: the label passes (default; against the refinement rounds on
        chameleon, facebook and ca-hepph at epsilon 0.5-4, 95 PGB cells better beyond 2 SE and
        51 worse, and on polblogs and email-Eu-core 100 of 114 cells at least as good as the
        private peers against 82: BENCHMARKS.md) or PrivGraph's refinement rounds
        (``init_labels``, ``rounds``, ``batches``, ``group_size`` and ``init_share`` apply to
        it only).
    side_share : float in [0, community_share)
        Share of ``epsilon`` for the cut sides (step 4b; 0 turns them off), taken from the
        community share.
    communities : {"auto", "private", "none"}
        Step 1: ``"auto"`` (default) as the released edge count decides (step 0),
        ``"private"`` always, ``"none"`` never (one block; the degrees get its budget).
        ``"none"`` also measured better on a graph of many small communities (ca-hepph at
        epsilon 0.5-2: truer degrees, paths and EVC) and worse on chameleon and facebook
        (benchmarks/NOTES.md).
    ledger : PrivacyLedger, optional
        A running budget for several calls: the call is refused before anything is spent
        unless its ``epsilon`` fits in ``ledger.remaining``, and its charges are recorded
        there on return (:func:`dpgraph.privacy.ledger.records_in_ledger`).

    Returns
    -------
    SyntheticRelease

    Raises
    ------
    ValueError
        Fewer than 3 nodes, weights outside [0, 1], a share outside (0, 1), an unknown
        ``communities`` or ``community_method``, or a Dask edge list (use
        ``dpgraph.privatize(..., route="matrix-free").sample()`` there).

    Warns
    -----
    dpgraph.privacy.ReproducibleNoiseWarning
        ``rng`` is not None or a secure generator.

    Examples
    --------
    >>> import networkx as nx, warnings
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # seeded: reproducible mode warns
    ...     rel = release_synthetic(G, epsilon=2.0, rng=0)
    >>> H = rel.sample(rng=1)
    >>> H.n, H.m == rel.edge_count
    (34, True)
    >>> round(rel.ledger.spent[0], 6)
    2.0
    """
    epsilon = check_epsilon(epsilon)
    if communities not in ("auto", "private", "none"):  # refused before anything is spent
        raise ValueError(f"communities must be 'auto', 'private' or 'none', got "
                         f"{communities!r}")
    if community_method not in ("passes", "refine"):
        raise ValueError(f"community_method must be 'passes' or 'refine', got "
                         f"{community_method!r}")
    data = _private_input(G, weight)
    edge_share = edge_count_share(data.n)  # a function of the public n (step 0)
    check_optional_share("clustering_share", clustering_share)
    _check_shares(community_share, init_share, count_share, bin_share,
                  edge_share + clustering_share, side_share)
    if isinstance(group_size, bool) or int(group_size) != group_size or group_size < 1:
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    init_labels = default_init_labels(epsilon) if init_labels is None else init_labels
    _check_refine_options(init_labels, rounds, batches)  # before the edge count is drawn
    degree_prior = check_flag(degree_prior, name="degree_prior", allow_none=True)
    rounds = default_rounds(epsilon, init_labels) if rounds is None else int(rounds)
    # every release's share against the sampler's range, the community step's included
    _check_sampler_range(epsilon, data.n, edge_share=edge_share, community_share=community_share,
                         bin_share=bin_share, clustering_share=clustering_share,
                         side_share=side_share, communities=communities,
                         community_method=community_method,
                         refine=dict(init_share=init_share, rounds=rounds, group_size=group_size,
                                     init_labels=init_labels, batches=batches))
    # refuse before spending what the public n alone cannot hold (docs/privacy.md 11.1) ...
    check_memory(synthetic_memory(data.n, 0), what=f"release_synthetic on {data.n:,} nodes",
                 fit=_synthetic_fit(data.n, 0))
    if community_method == "refine" and communities != "none":  # its options' arrays too
        check_community_memory(data.n, init_labels=init_labels, group_size=group_size,
                               batches=batches)
    elif communities != "none":  # the label passes at the most labels the released count can ask
        check_memory(label_pass_memory(data.n, PASS_MAX_LABELS),
                     what=f"release_synthetic's label passes on {data.n:,} nodes "
                          f"(up to {PASS_MAX_LABELS} labels)",
                     fit=(lambda k: label_pass_memory(k, PASS_MAX_LABELS),
                          "At most {:,} nodes fit."))
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=0.0)  # the draws mark it if seeded
    # steps 0 and 0b: a second count where the first is noisy beside what it released (7.10)
    count, top_up = release_edge_total(
        data, epsilon=epsilon, share=edge_share, ledger=ledger, rng=gen,
        room=_model_share(community_share, bin_share, edge_share + clustering_share))
    m_hat = count[0]
    # ... and, before the communities and the model allocate, what the released count adds
    # (edges on Dask stay on the workers: the client holds the node arrays)
    # (no sample holds more than n (n - 1) / 2 edges, whatever the noise drew: 10 nodes at a
    # tiny epsilon were refused for a draw of 10^8)
    edges = 0.0 if is_dask_input(data) else min(max(m_hat, 0.0), data.n * (data.n - 1) / 2.0)
    check_memory(synthetic_memory(data.n, edges),
                 what=f"release_synthetic on {data.n:,} nodes and ~{edges:,.0f} released edges",
                 fit=_synthetic_fit(data.n, edges))
    diag = {"released_edge_weight": round(m_hat, 2),
            "edge_count_share": round(edge_share + top_up, 4),
            "community_method": community_method, "community_share": community_share,
            "mechanism": "release_synthetic (block model)"}
    blocks, pass_degrees = _release_communities(
        data, m_hat, epsilon=(community_share - side_share) * epsilon, ledger=ledger, rng=gen,
        diag=diag, communities=communities, plan_epsilon=community_share * epsilon,
        refine=dict(init_share=init_share, rounds=rounds, group_size=group_size,
                    init_labels=init_labels, batches=batches))
    diag["communities"] = int(blocks.max()) + 1
    if diag["communities"] == 1:  # one block: the degrees come from its own release
        pass_degrees = None
    # whatever the communities left unspent (one community) goes to the model
    eps_bins = bin_share * epsilon
    affinity = closure = None
    # step 3b, where its noise can be below the most corners the released edges can hold
    if clustering_share > 0 and clustering_informative(m_hat, clustering_share * epsilon):
        theta = projection_cap(m_hat, data.n)
        report(f"release_synthetic: clustering (degree cap {theta})")
        cl = release_transitivity(data, theta=theta, epsilon=clustering_share * epsilon,
                                  ledger=ledger, rng=gen)
        affinity = affinity_density(cl["transitivity"])
        closure = (cl["transitivity"], theta)
        diag.update(projection_cap=theta, released_transitivity=round(cl["transitivity"], 4),
                    affinity_density=round(affinity, 4))
    # the sides' share (step 4b) is kept back where the model has communities
    eps_sides = side_share * epsilon if diag["communities"] > 1 else 0.0
    eps_model = left(epsilon, ledger.spent[0], eps_bins, eps_sides)
    report(f"release_synthetic: block model of {diag['communities']} "
           + ("communities" if diag["communities"] > 1 else "block"))
    bm = release_split_block_model(data, blocks, epsilon=eps_model, ledger=ledger, rng=gen,
                                   count_share=count_share, degree_estimate=pass_degrees)
    # post-processing of the released degrees (degree_prior.py): where one block was kept
    use_prior = diag["communities"] == 1 if degree_prior is None else bool(degree_prior)
    diag["degree_prior"] = use_prior
    if use_prior:
        sc = split_block_scales(1, 1, eps_model, count_share)  # [inside, across] scales
        bm.degrees = matched_degrees(bm.degrees, sc[:1] if diag["communities"] == 1 else sc,
                                     data.n, rng=gen)
    own = released_degree_noise_sd(diag["communities"], eps_model, count_share) ** 2
    # the combined degrees' noise, at a typical node
    noise_sd = None if pass_degrees is None else \
        float(np.sqrt(1.0 / (1.0 / own + 1.0 / np.median(pass_degrees[1]))))
    degree_sd = float(np.sqrt(own)) if noise_sd is None else noise_sd
    if eps_bins > 0:
        bm, info = split_by_released_degree_classes(data, bm, epsilon=eps_bins,
                                                    noise_sd=noise_sd,
                                                    model_epsilon=eps_model,
                                                    count_share=count_share, ledger=ledger,
                                                    rng=gen)
        diag.update(info)
    bm = _match_released_edge_count(bm, count, rng=gen)
    diag["edge_count_estimate"] = round(bm.edge_total[0], 2)
    bm.affinity = affinity
    sides, accept = _release_sides(data, bm, epsilon=eps_sides, ledger=ledger, rng=gen,
                                   diag=diag)
    return SyntheticRelease(block_model=bm, ledger=ledger, labels=label_sequence(data.labels),
                            diagnostics=diag, affinity_cap=use_prior, sides=sides,
                            side_accept=accept, closure=closure,
                            block_tolerance=BLOCK_RESTORE_SDS * degree_sd,
                            sample_rng=sample_stream(gen))  # reproducible mode only


def _release_sides(data, bm: BlockModel, *, epsilon: float, ledger, rng, diag: dict):
    """Step 4b of :func:`release_synthetic` where the model has communities, ``epsilon`` the
    sides' share. Where the model's own best split of its blocks cuts less than
    ``SIDE_MODEL_CUT`` of its released edges (:func:`~dpgraph.synthetic.sides.best_block_split`,
    post-processing), the cut sides (:func:`~dpgraph.synthetic.sides.side_pass` in the order of
    the released degrees, all of ``epsilon``) and the sampler's ``SIDE_ACCEPT``. Elsewhere the
    sides at ``(1 - SIDE_CHOICE_SHARE) epsilon``, starting from that split (each node's field
    plus what the model expects of it, :func:`~dpgraph.synthetic.sides.split_prior`), then by
    how much they cut more of the graph
    than that split (:func:`~dpgraph.synthetic.sides.release_cut_lead`, ``SIDE_CHOICE_SHARE
    epsilon``): the samples lean across the sides where that released lead is positive, and
    keep the model's own cut otherwise (``(None, 1.0)``). Fills ``diag``."""
    if epsilon <= 0:  # one block: nothing was kept back
        return None, 1.0
    share, split = best_block_split(bm.block_counts, rng=rng)
    diag["model_cut_share"] = round(share, 4)
    if share < SIDE_MODEL_CUT:
        diag["side_accept"] = SIDE_ACCEPT
        return side_pass(data, bm.degrees, epsilon=epsilon, ledger=ledger, rng=rng), SIDE_ACCEPT
    eps_choice = SIDE_CHOICE_SHARE * epsilon
    sides = side_pass(data, bm.degrees, epsilon=epsilon - eps_choice, ledger=ledger, rng=rng,
                      split=(bm.blocks, bm.block_counts, split))
    lead = release_cut_lead(data, sides, split[np.asarray(bm.blocks)], epsilon=eps_choice,
                            ledger=ledger, rng=rng)
    diag["side_cut_lead"] = round(lead, 1)
    if lead <= 0:
        report(f"release_synthetic: the model's blocks cut {share:.3f} of its edges and more "
               f"of the graph than the released sides (released lead {lead:.1f}): its samples "
               f"keep their own cut")
        diag["side_accept"] = 1.0
        return None, 1.0
    diag["side_accept"] = SIDE_ACCEPT
    return sides, SIDE_ACCEPT
