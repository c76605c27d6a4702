"""Privatize a graph: validate, screen, choose a route, release -> PrivateGraph.

This is the only place where the private pipeline touches the input graph. What leaves
:func:`privatize` is a :class:`~dpgraph.release.private_graph.PrivateGraph`, which holds released
(noisy) quantities and post-processing of them, and no reference to the input. Everything
downstream (the CSP engine, the exports, :meth:`PrivateGraph.sample`) is post-processing.

The mechanisms live in :mod:`dpgraph.release.routes`, one module per route (dense randomized response,
dense coherence-aware PCA, matrix-free); this module chooses among them:

0. **Screening** (``route="auto"``; docs/privacy.md 4.9). Every graph in the domain, weighted
   (weights in [0, 1]) or not, takes this step (4.12). A private total edge weight (Laplace,
   ``screen_share`` of epsilon) predicts whether the PCA's private gap test can pass at this
   budget; if not (sparse real graphs), the rest of the budget goes to randomized response on
   all pairs (a weighted pair rounded to a Bernoulli bit first, 4.12).
1. **Scale.** Above ``MATRIX_FREE_MIN_N`` nodes, or when the dense route would not fit in the
   available memory, ``route="auto"`` takes the matrix-free route (``O(m + n r)`` memory). A
   dense route that is asked for and would not fit is refused before anything is allocated
   (:class:`~dpgraph.release.routes.InsufficientMemoryError`, naming the memory it needs and the route to
   use). The choice depends on public n, the released edge count and the machine only.
2. **Release** by the chosen route with the budget left (basic composition with step 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpgraph.io.dask import is_dask_input
from dpgraph.privacy import PrivacyLedger, make_rng
from dpgraph.privacy.ledger import records_in_ledger
from dpgraph.privacy.budget import (CORE_SHARE, DEGREE_SHARE, SCREEN_SHARE, SYNTHETIC_SHARE,
                                    TAIL_SHARE, release_split)
from dpgraph.privacy.noise import check_gaussian_shares, check_laplace_shares, least_in_range
from dpgraph.privacy.validation import (check_choice, check_delta, check_epsilon, check_number,
                                        check_share)
from dpgraph.private_input import check_private_graph_input, input_graph
from dpgraph.progress import report
from dpgraph.release.private_graph import DEFAULT_RANK, PrivateGraph
from dpgraph.release.routes import route_module, route_names, route_spec
from dpgraph.release.screening import (MATRIX_FREE_MIN_N, choose_scale_route,
                                       default_synthetic_share, pure_route, refuse_if_too_large,
                                       release_edge_count, screen, screens, streamed_route)
from dpgraph.synthetic.block_model import (COUNT_SHARE, check_block_model_memory,
                                           combined_estimate, degrees_summing_to,
                                           match_edge_count, release_block_model)
from dpgraph.synthetic.communities import DEFAULT_BLOCKS

__all__ = ["PrivateGraph", "privatize", "ReleaseOptions", "check_rank", "default_rank",
           "DEFAULT_RANK", "refuse_before_drawing"]


def default_rank(n: int) -> tuple[int, str | None]:
    """``DEFAULT_RANK`` capped at ``n - 2`` (the largest rank :func:`check_rank` allows), and a
    note saying so when it is capped (graphs with fewer than ``DEFAULT_RANK + 2`` nodes).

    Examples
    --------
    >>> default_rank(1000)
    (8, None)
    >>> default_rank(5)[0]
    3
    """
    if n - 2 >= DEFAULT_RANK:
        return DEFAULT_RANK, None
    rank = max(n - 2, 1)
    return rank, (f"rank {rank}: the default rank {DEFAULT_RANK} capped at n - 2 = {n - 2} "
                  f"for a {n}-node graph")


def _rank_note(route: str, n: int, rank: int) -> str | None:
    """``diagnostics["rank_note"]`` of a release made with ``rank=None``: that the default rank
    of the route taken (:func:`default_rank`; the matrix-free route's own, ``RouteSpec.
    default_rank``) was capped at ``n - 2``, naming the rank used; None where it was not capped,
    and on a route that has no low-rank release (the local route, whose release is sides)."""
    spec = route_spec(route)
    if spec.answers == "sides":
        return None
    if spec.default_rank is None:
        return default_rank(n)[1]
    if rank >= spec.default_rank:
        return None
    return (f"rank {rank}: the {route} route's default rank {spec.default_rank} capped at "
            f"n - 2 = {n - 2} for a {n}-node graph")


def check_rank(rank, n: int) -> int:
    """``rank`` if ``1 <= rank < n - 1``, else a ValueError naming the bounds.

    >>> check_rank(8, 34), check_rank(np.int64(32), 34)
    (8, 32)
    >>> check_rank(33, 34)
    Traceback (most recent call last):
    ...
    ValueError: rank must satisfy 1 <= rank < n - 1 = 33, got 33
    >>> check_rank(2.0, 34)
    Traceback (most recent call last):
    ...
    ValueError: rank must be a positive integer, got 2.0
    """
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise ValueError(f"rank must be a positive integer, got {rank!r}")
    if not 1 <= rank < n - 1:
        raise ValueError(f"rank must satisfy 1 <= rank < n - 1 = {n - 1}, got {rank}")
    return int(rank)


@records_in_ledger
def privatize(G, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
              degree_share: float = DEGREE_SHARE, tail_share: float = TAIL_SHARE,
              core_share: float = CORE_SHARE,
              regularization="mean",
              projection: str = "auto", fallback: str = "randomized-response",
              max_projector_noise: float | None = 0.5, route: str = "auto",
              screen_share: float = SCREEN_SHARE, rr_postprocess: str = "posterior-degree",
              weight: str | None = "weight", pca_options: dict | None = None,
              edge_count: float | None = None,
              matrix_free_options: dict | None = None,
              synthetic_share: float | None | str = "auto",
              synthetic_blocks: int = DEFAULT_BLOCKS, _check_only: bool = False) -> PrivateGraph:
    """Release a private synthetic version of ``G`` under edge-level (epsilon, delta)-DP.

    Parameters
    ----------
    G : graph
        Anything :func:`dpgraph.graph.as_graph_data` accepts; edge weights must lie in [0, 1].
    epsilon, delta : float
        Total privacy budget (basic composition over the steps in the module docstring).
    rank : int or None
        Rank ``r`` of the private low-rank estimate. ``None`` (default): 8 on the dense routes,
        capped at ``n - 2`` on graphs with fewer than 10 nodes (``diagnostics["rank_note"]``
        says so); 2 private directions on the matrix-free route, where each direction's noise
        grows like ``sqrt(r)`` (docs/privacy.md 5.2). Not used by the local route.
    rng : None, int or numpy.random.Generator
    degree_share, tail_share : float
        Fractions of (epsilon, delta) spent on the degrees and on the tail level; the rest goes
        to the private PCA.
    core_share : float
        Fraction of the PCA's share spent on the r x r core (Alg. 5.10); the rest goes to the
        private subspace (gap test, coherence, projector: Algs. 5.2, 5.5, 5.8).
    regularization : "mean" or float
        ``tau`` of the normalizer ``d~ = max(d^, 0) + tau``.
    projection : {"auto", "dykstra", "clip"}
        How ``A^'`` is projected onto non-negative bounded-spectrum matrices. ``"auto"`` uses
        the exact projection up to 5,000 nodes and entrywise clipping (its first step) above.
    fallback : {"randomized-response", "none"}
        What to do when a private test of the PCA halts (its spectral gap is too small for the
        budget, which is the usual case on sparse real graphs): spend the budget the halted
        steps did not use on randomized response over the pair indicators, de-biased and
        truncated to rank ``r`` (docs/privacy.md 4.7; a weighted pair is rounded to a Bernoulli
        bit first, 4.12), or ``"none"``: keep
        the uniformly random subspace of Alg. 5.8 (a :class:`~dpgraph.PCAHaltedWarning` says so).
    max_projector_noise : float or None
        Take the halting branch before the projector step when the released gap and coherence
        bounds predict projector noise of spectral norm above this (default 0.5; the
        projector's eigengap is 1), since the projector would then carry no signal.
    route : {"auto", "pca", "randomized-response", "matrix-free", "local"}
        ``"auto"`` (with the randomized-response fallback; weighted graphs the same way,
        docs/privacy.md 4.12) first releases the total edge weight with ``screen_share`` of
        the budget and predicts from it whether the PCA's private gap test can pass at this
        budget (docs/privacy.md 4.9); if not, the whole
        remaining budget goes to randomized response instead of being spread over steps that
        would halt. From ``MATRIX_FREE_MIN_N`` nodes on, or when the dense route would not fit
        in memory, ``"auto"`` takes ``"matrix-free"``. ``"pca"`` always runs the PCA (with its
        fallback); ``"randomized-response"`` never does; a dense route that would not fit is
        refused before allocating (:class:`~dpgraph.release.routes.InsufficientMemoryError`).
        ``"local"`` (pure epsilon-DP) releases the degree-ordered local route of
        :func:`dpgraph.max_cut`: noisy degrees (5% of its epsilon) and private sides, built for
        the cut; its synthetic exports rest on those degrees and are very noisy on small graphs
        (karate at epsilon 1: samples of 0 to 164 edges for 78). For a synthetic graph use
        :func:`dpgraph.release_synthetic`.
    screen_share : float
        Fraction of epsilon for the screening edge count (``route="auto"``; Laplace, pure DP).
    rr_postprocess : {"posterior-degree", "posterior-lowrank-<k>", "box", "low-rank"}
        The exported synthetic graph on the randomized-response route (post-processing):
        posterior means ``E[A_ij | release]`` under the empirical Chung-Lu prior (the default)
        or a rank-``k`` block prior (:mod:`dpgraph.release.posterior`); the de-biased release
        projected onto ``[0, 1]`` (``"box"``, which is the flipped graph itself: at epsilon 1
        about 27% of all pairs are edges); or truncated to rank ``r`` and then projected
        (``"low-rank"``). These are the weights (:meth:`PrivateGraph.weights`); their total
        exceeds the edge count at small epsilon on sparse graphs (2-5x at epsilon
        0.5), so the sampled export uses the block model of ``synthetic_share`` instead, and
        ``dpgraph synth --weighted`` keeps only the released edge count's worth of heaviest
        pairs. :func:`dpgraph.max_cut` does not depend on this choice (it solves its own
        candidates).
    weight : str or None
        Edge attribute holding the weight (NetworkX, igraph); ``None`` treats every edge as
        weight 1, as NetworkX does (e.g. ``nx.karate_club_graph()``, whose weights are meeting
        counts in [1, 7]).
    pca_options : dict, optional
        Extra keyword arguments for :func:`dpgraph.spectral.private_subspace` (e.g. ``split``).
    edge_count : float, optional
        A private release of the total edge weight that the caller has already made and
        charged to its own ledger (:func:`release_edge_count`); with ``route="auto"`` it is used
        for the screening instead of a new release (:func:`dpgraph.max_cut` does this).
    matrix_free_options : dict, optional
        Keyword arguments for the matrix-free route
        (:func:`dpgraph.release.routes.matrix_free.release_matrix_free`: ``steps``, ``kappa``,
        ``degree_share`` and ``core_share`` as fractions of its zCDP rho, ...); ``degree_share``
        and ``tail_share`` above apply to the dense PCA route.

    synthetic_share : float, None or "auto"
        Fraction of epsilon spent on the synthetic-graph export (``"auto"``, the default: 0.3
        on the dense routes, None on the matrix-free route, whose factor form samples in
        ``O(m + n r)`` without another release): after the
        route's release, ``synthetic_blocks`` spectral communities, each split in two along
        the release's max-cut eigenvector, are computed from it
        (post-processing) and the block edge counts and node degrees are released with Laplace
        noise (:mod:`dpgraph.synthetic.block_model`, docs/privacy.md 7); :meth:`PrivateGraph.sample` then
        draws from this degree-corrected block model, with the released edge count. The route
        (screening included) gets the rest. ``None``: no such release (``pg.block_model`` is
        None, the whole budget goes to the route and :meth:`PrivateGraph.sample` samples the
        weights); :func:`dpgraph.max_cut` uses ``None``, since it does not use the export.
    synthetic_blocks : int
        Number of spectral communities ``k`` (default 8; up to ``2k`` blocks).
    ledger : PrivacyLedger, optional
        A running budget for several calls: the call is refused before anything is spent
        unless its ``(epsilon, delta)`` fits in ``ledger.remaining``, and its charges are
        recorded there on return (:func:`dpgraph.privacy.ledger.records_in_ledger`).

    Returns
    -------
    PrivateGraph

    Raises
    ------
    InsufficientMemoryError
        Before any allocation, when the chosen route (at ``rank``) or the synthetic block
        model (up to ``2 synthetic_blocks`` blocks) would not fit in the available memory
        (:mod:`dpgraph.memory`); the message names the memory needed and what to use.

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> G = nx.les_miserables_graph()
    >>> pg = dpgraph.privatize(nx.Graph(G.edges()), epsilon=2.0, delta=1e-6, rank=4, rng=0)
    >>> pg.n, pg.diagnostics["route"]  # a sparse graph: screened to randomized response
    (77, 'randomized-response')
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    options = ReleaseOptions.checked(
        degree_share=degree_share, tail_share=tail_share, core_share=core_share,
        regularization=regularization, projection=projection, fallback=fallback,
        max_projector_noise=max_projector_noise, screen_share=screen_share,
        rr_postprocess=rr_postprocess, pca_options=pca_options,
        matrix_free_options=matrix_free_options)
    check_choice(route, name="route", choices=("auto", *route_names()))
    if synthetic_share is not None and synthetic_share != "auto":
        synthetic_share = check_share("synthetic_share", synthetic_share)
    data = input_graph(G, weight=weight)
    check_private_graph_input(data)
    route, synthetic_share = _route_for_input(route, data, delta, synthetic_share)
    rank_given = rank
    rank = default_rank(data.n)[0] if rank is None else check_rank(rank, data.n)
    synthetic_blocks = _checked_blocks(synthetic_blocks, data.n)
    # every refusal that public values decide, before anything is charged or drawn (11.1)
    refuse_before_drawing(route, data.n, epsilon, delta, options, synthetic_share=synthetic_share,
                          synthetic_blocks=synthetic_blocks, screened=edge_count is None,
                          rank=rank)
    if _check_only:  # a caller's precheck (dpgraph.max_cut): every refusal that needs no release
        if route != "auto":
            refuse_if_too_large(route, data.n, None, rank)
        return None
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    epsilon, eps_synthetic = release_split(epsilon, synthetic_share)
    route, rank, epsilon, screening = _choose_route(
        route, data, epsilon, delta, rank, rank_given, options, edge_count, ledger, gen)
    pg = route_module(route).release(data, epsilon=epsilon, delta=delta, rank=rank,
                                     ledger=ledger, rng=gen, screening=screening,
                                     **options.for_route(route))
    pg.diagnostics.setdefault("rank", rank)
    rank_note = _rank_note(route, data.n, rank) if rank_given is None else None
    if rank_note:
        pg.diagnostics["rank_note"] = rank_note
    if eps_synthetic > 0:
        _release_block_model(pg, data, synthetic_blocks, eps_synthetic, ledger, gen)
        pg.diagnostics["synthetic_share"] = synthetic_share
    return pg


@dataclass(frozen=True)
class ReleaseOptions:
    """The checked route keywords of :func:`privatize`; each route takes the ones its
    :class:`~dpgraph.release.routes.RouteSpec` names (:meth:`for_route`).

    >>> kw = dict(degree_share=0.05, tail_share=0.05, core_share=0.1, screen_share=0.005,
    ...           fallback="randomized-response", projection="auto", regularization="mean",
    ...           max_projector_noise=None, rr_postprocess="posterior-degree",
    ...           pca_options=None, matrix_free_options=None)
    >>> sorted(ReleaseOptions.checked(**kw).for_route("pca"))[:3]
    ['core_share', 'degree_share', 'fallback']
    >>> try:
    ...     ReleaseOptions.checked(**{**kw, "degree_share": 0.6, "tail_share": 0.5})
    ... except ValueError as exc:
    ...     print(exc)
    degree_share + tail_share must be < 1 (the rest goes to the private PCA)
    """

    degree_share: float
    tail_share: float
    core_share: float
    regularization: object
    projection: str
    fallback: str
    max_projector_noise: float | None
    screen_share: float
    rr_postprocess: str
    pca_options: dict | None
    matrix_free_options: dict | None

    @classmethod
    def checked(cls, **kw) -> "ReleaseOptions":
        """The options, each refused with a ValueError naming it when out of range."""
        for name in ("degree_share", "tail_share", "core_share", "screen_share"):
            kw[name] = check_share(name, kw[name])
        if kw["degree_share"] + kw["tail_share"] >= 1:
            raise ValueError("degree_share + tail_share must be < 1 (the rest goes to the "
                             "private PCA)")
        check_choice(kw["fallback"], name="fallback", choices=("randomized-response", "none"))
        check_choice(kw["projection"], name="projection", choices=("auto", "dykstra", "clip"))
        reg = kw["regularization"]
        if not isinstance(reg, str):  # checked now, used after the degrees' release
            check_number(reg, name="regularization", low=0.0, open_low=True)
        elif reg != "mean":
            raise ValueError(f"regularization must be 'mean' or a number > 0, got {reg!r}")
        _check_rr_postprocess(kw["rr_postprocess"])
        _check_pca_options(kw["pca_options"])
        return cls(**kw)

    def for_route(self, route: str) -> dict:
        """The keywords of ``route``'s ``release``."""
        spec = route_spec(route)
        out = {name: getattr(self, name) for name in spec.options}
        if spec.expand:
            out.update(getattr(self, spec.expand) or {})
        return out


#: the keywords of :func:`dpgraph.spectral.private_subspace` that ``pca_options`` may set (the
#: route sets the rest: the matrix, rank, budget, adjacency, ledger and generator)
_PCA_OPTION_KEYS = ("split", "which", "symmetrize", "eig_options")


def _check_pca_options(options) -> None:
    """Refuse, before the degrees are released, ``pca_options`` that
    :func:`dpgraph.spectral.private_subspace` would refuse only after the degrees were spent
    (docs/privacy.md 11.1): a key it does not take from here, a ``split`` that is not a
    :class:`~dpgraph.spectral.BudgetSplit` without a core step, ``which`` or ``symmetrize`` of
    the wrong kind."""
    from dpgraph.spectral.pca import BudgetSplit

    if options is None:
        return
    if not isinstance(options, dict):
        raise TypeError(f"pca_options must be a dict of private_subspace keywords, got "
                        f"{type(options).__name__}")
    unknown = sorted(set(options) - set(_PCA_OPTION_KEYS), key=str)
    if unknown:
        raise ValueError(f"pca_options: unknown key(s) {unknown}; the keys it takes are "
                         f"{list(_PCA_OPTION_KEYS)} (max_projector_noise is privatize's own "
                         f"argument)")
    split = options.get("split")
    if split is not None and (not isinstance(split, BudgetSplit)
                              or split.epsilon[3] != 0 or split.delta[3] != 0):
        raise ValueError("pca_options['split'] must be a dpgraph.spectral.BudgetSplit whose "
                         "core fractions are 0 (private_subspace has no core step)")
    if "which" in options:
        check_choice(options["which"], name="pca_options['which']",
                     choices=("magnitude", "largest", "smallest"))
    if "symmetrize" in options and not isinstance(options["symmetrize"], (bool, np.bool_)):
        raise TypeError(f"pca_options['symmetrize'] must be True or False, got "
                        f"{options['symmetrize']!r}")
    if options.get("symmetrize"):
        # the route's matrix is the symmetric normalized adjacency and one edge moves a
        # symmetric pair of it (docs/privacy.md 4.2); the rectangular algorithm's one-entry
        # adjacency does not describe that, and private_subspace would refuse it only after
        # the degrees were drawn
        raise ValueError("pca_options['symmetrize']=True does not fit the PCA route: its "
                         "normalized adjacency is symmetric and an edge changes a symmetric "
                         "pair of it; leave symmetrize unset (False)")
    eig = options.get("eig_options")
    if eig is not None and not isinstance(eig, dict):
        raise TypeError(f"pca_options['eig_options'] must be a dict, got {type(eig).__name__}")


def _check_rr_postprocess(value) -> None:
    from dpgraph.release.posterior import prior_rank

    if not isinstance(value, str) or (value not in ("low-rank", "box", "posterior-degree")
                                      and prior_rank(value) is None):
        raise ValueError(f"rr_postprocess={value!r} is not 'posterior-degree', "
                         f"'posterior-lowrank-<k>', 'box' or 'low-rank'")


def _route_for_input(route: str, data, delta: float, synthetic_share):
    """The route and block-model share the input allows: a pure route under ``delta = 0``,
    one that reads the edges by passes on Dask edge lists (whose block model would need the
    graph in memory, unless the route samples itself), and ``synthetic_share="auto"``
    resolved."""
    if delta == 0:
        # on Dask edge lists the pure route that streams is the local one (randomized
        # response, auto's pure choice below MATRIX_FREE_MIN_N nodes, needs the graph in memory)
        route = "local" if route == "auto" and is_dask_input(data) else pure_route(route, data.n)
    if is_dask_input(data):
        route = streamed_route(route)
        if not route_spec(route).own_sampler:
            synthetic_share = None  # its block model would need the graph in memory
        if synthetic_share is not None and not isinstance(synthetic_share, str):
            raise ValueError("synthetic_share (privatize's synthetic block model, docs 7) needs "
                             "the graph in memory; on Dask edge lists the matrix-free release "
                             "samples its own block model as Dask tasks (.sample_dask(), "
                             ".write_sample(folder)): leave synthetic_share unset")
    if isinstance(synthetic_share, str):  # "auto"
        synthetic_share = default_synthetic_share(route, data.n, SYNTHETIC_SHARE)
    return route, synthetic_share


def refuse_before_drawing(route: str, n: int, epsilon: float, delta: float,
                          options: "ReleaseOptions", *, synthetic_share: float | None = None,
                          synthetic_blocks: int = DEFAULT_BLOCKS, screened: bool = True,
                          caller: str = "privatize", rank: int | None = None) -> None:
    """The refusals of :func:`privatize`'s releases that public values decide (``route``,
    ``n``, ``epsilon``, ``delta``, the shares and the options), made before anything is charged
    or drawn (docs/privacy.md 11.1) instead of after the releases ahead of the one refused:

    * a discrete Laplace release whose share of ``epsilon`` is below the exact sampler's range
      (:func:`dpgraph.privacy.noise.check_laplace_shares`): the screening edge count
      (``screened``: ``route="auto"`` with no ``edge_count`` given) and the synthetic block
      model of ``synthetic_share`` (its up to ``2 synthetic_blocks`` blocks' pair counts and
      its ``2 n`` inside / across degrees, :func:`release_block_model`);
    * the synthetic block model's ``k x k`` arrays (``k`` up to ``2 synthetic_blocks``) where
      they would not fit in memory (:func:`~dpgraph.synthetic.block_model.check_block_model_memory`:
      ``synthetic_blocks`` may be up to ``n / 4``, and the arrays were allocated after the
      route's release);
    * on the matrix-free route, a ``delta`` too large for the itemized accounting of its
      releases at the route's ``epsilon`` (its ``_check_itemization``), with the route's
      options (``matrix_free_options``);
    * on every route, ``matrix_free_options`` the matrix-free route would refuse
      (:func:`_check_matrix_free_options`): a route that does not run now may run later in
      the call (``route="auto"`` takes it by size, an ``"auto"`` answer pools it), after a
      release.

    ``epsilon`` is the call's (the route gets ``1 - synthetic_share`` of it).
    :func:`dpgraph.max_cut` reaches it through ``privatize(..., _check_only=True)`` with the
    epsilon its route's release gets.

    >>> import inspect
    >>> kw = {k: p.default for k, p in inspect.signature(privatize).parameters.items()
    ...       if k in ReleaseOptions.__dataclass_fields__}  # privatize's defaults
    >>> opts = ReleaseOptions.checked(**kw)
    >>> refuse_before_drawing("auto", 100, 1.0, 1e-6, opts)  # accepted
    >>> refuse_before_drawing("auto", 100, 1e-12, 1e-6, opts)  # screening: 0.005 of it
    Traceback (most recent call last):
    ...
    ValueError: privatize: at epsilon=1e-12, the screening edge count (...) would get 0.005 ...
    >>> refuse_before_drawing("matrix-free", 100, 1.0, 0.5, opts)
    Traceback (most recent call last):
    ...
    ValueError: delta=0.5 is too large for the matrix-free route (at its epsilon of 1): ...
    """
    if options.matrix_free_options is not None:
        _check_matrix_free_options(n, options.matrix_free_options)
    eps_route, eps_synthetic = release_split(1.0, synthetic_share)  # fractions of epsilon
    route_epsilon = release_split(epsilon, synthetic_share)[0]
    releases, model = [], []
    if screened and screens(route, options.fallback):
        releases.append(("the screening edge count (screen_share of the route's epsilon)",
                         options.screen_share * eps_route, 1))
    if eps_synthetic > 0:
        k = min(2 * int(synthetic_blocks), int(n))  # the most blocks the partition can have
        model = [(f"the synthetic block model's pair counts (synthetic_share x {COUNT_SHARE:g}, "
                  f"up to {k} blocks)", COUNT_SHARE, k * (k + 1) // 2),
                 (f"the synthetic block model's degrees (synthetic_share x {1 - COUNT_SHARE:g})",
                  1.0 - COUNT_SHARE, 2 * int(n))]
        releases += [(what, part * eps_synthetic, changed) for what, part, changed in model]
    advice = ""
    if model:  # the smallest synthetic_share that fits at this epsilon, where one does
        share = max(least_in_range(changed, part * epsilon) for _, part, changed in model)
        advice = (f", or synthetic_share >= {share:.3g}" if share < 0.5 else "") + ", or synthetic_share=None (no block model)"
    check_laplace_shares(epsilon, releases, caller=caller, advice=advice)
    if model:
        check_block_model_memory(n, synthetic_blocks, name="synthetic_blocks",
                                 what=f"{caller}'s synthetic block model",
                                 alternative="Or synthetic_share=None (no block model).")
    left = 1.0 - options.screen_share if screened and screens(route, options.fallback) else 1.0
    # "auto" without screening takes the PCA route below MATRIX_FREE_MIN_N nodes (with it, only
    # where the screening count predicts a passing gap test, never at an epsilon this check
    # refuses), and from there the matrix-free route whatever the screening releases
    # (screening.choose_scale_route), at what the screening count leaves
    automatic = route == "auto" and int(n) >= MATRIX_FREE_MIN_N
    unscreened_pca = route == "auto" and not automatic and not screens(route, options.fallback)
    if (route == "pca" or unscreened_pca) and delta > 0:
        _precheck_pca_range(epsilon, delta, eps_route * left, options, caller)
    if (route == "matrix-free" or automatic) and delta > 0:
        _precheck_matrix_free(n, route_epsilon * left, delta, options, rank=rank)


def _precheck_pca_range(epsilon: float, delta: float, fraction: float, options, caller: str):
    """The PCA route's discrete Gaussian releases (docs/privacy.md 13.2) against the sampler's
    range, before anything is drawn: the degrees (``degree_share`` of the route's epsilon and
    of delta, 2 changed coordinates) and the tail singular value (``tail_share``, 1), where the
    route gets ``fraction`` of the caller's ``epsilon``; the refusal names the caller's epsilon
    that works (:func:`~dpgraph.privacy.noise.check_gaussian_shares`)."""
    check_gaussian_shares(epsilon, delta, [
        ("the PCA route's degrees (degree_share)", options.degree_share, 2),
        ("the PCA route's tail singular value (tail_share)", options.tail_share, 1)],
        caller=caller, epsilon_fraction=fraction,
        advice=", or a larger degree_share / tail_share")


#: the keywords of the matrix-free route's ``release_matrix_free`` that privatize sets itself
_MATRIX_FREE_OWN = ("data", "epsilon", "delta", "rank", "ledger", "rng")


def _check_matrix_free_options(n: int, options) -> None:
    """Refuse ``matrix_free_options`` that the matrix-free route would refuse only after a
    release (docs/privacy.md 11.1): not a dict, a key
    :func:`~dpgraph.release.routes.matrix_free.release_matrix_free` does not take from here (a
    ``TypeError`` at its call, after the screening count of ``route="auto"`` or of an answer),
    a ``regularization`` that is not ``"mean"`` or a number > 0 (refused after the route's
    charge and its degrees' draw), a value its own option checks refuse (they depend on neither
    the budget nor the graph)."""
    import inspect

    from dpgraph.release.routes.matrix_free import check_options, release_matrix_free

    if not isinstance(options, dict):
        raise TypeError(f"matrix_free_options must be a dict of release_matrix_free keywords, "
                        f"got {type(options).__name__}")
    takes = [p for p in inspect.signature(release_matrix_free).parameters
             if p not in _MATRIX_FREE_OWN]
    unknown = sorted(set(options) - set(takes), key=str)
    if unknown:
        raise ValueError(f"matrix_free_options: unknown key(s) {unknown}; the keys it takes are "
                         f"{takes}")
    reg = options.get("regularization", "mean")
    if not isinstance(reg, str):
        check_number(reg, name="matrix_free_options['regularization']", low=0.0, open_low=True)
    elif reg != "mean":
        raise ValueError(f"matrix_free_options['regularization'] must be 'mean' or a number > 0, "
                         f"got {reg!r}")
    check_options(n, **{k: v for k, v in options.items()
                        if k not in ("regularization", "progress")})


def _precheck_matrix_free(n: int, epsilon: float, delta: float, options: "ReleaseOptions", *,
                         rank: int | None = None) -> None:
    """The matrix-free route's own refusals before its first draw, without reading the graph
    (:func:`dpgraph.release.routes.matrix_free.check_release_options`; with ``rank``, its
    discrete noise's range too)."""
    from dpgraph.release.routes.matrix_free import check_release_options

    kw = options.for_route("matrix-free")
    check_release_options(n, epsilon, delta, rank=rank, **{
        key: kw.get(key) for key in ("noise", "steps", "kappa", "core_kappa", "degree_share",
                                     "core_share", "final_steps", "final_weight", "average")
        if key in kw})


def _checked_blocks(synthetic_blocks, n: int) -> int:
    """``synthetic_blocks`` checked, capped at ``n // 4`` (each community is split in two)."""
    if isinstance(synthetic_blocks, bool) or not isinstance(synthetic_blocks, (int, np.integer)) \
            or synthetic_blocks < 1:
        raise ValueError(f"synthetic_blocks must be a positive integer, got {synthetic_blocks!r}")
    return min(int(synthetic_blocks), max(1, n // 4))


def _choose_route(route, data, epsilon, delta, rank, rank_given, options, edge_count, ledger,
                  gen):
    """Steps 0 and 1 of the module docstring: screening (which may spend ``screen_share`` of
    epsilon on the edge count) and the scale choice; then the route's default rank and the
    memory refusal. Returns ``(route, rank, epsilon left, screening)``."""
    screening, m_hat = None, edge_count
    if screens(route, options.fallback):
        # 0. screening (docs/privacy.md 4.9): can the PCA's gap test pass at this budget?
        if edge_count is None:
            m_hat = release_edge_count(data, options.screen_share * epsilon, ledger, gen)
            epsilon = (1 - options.screen_share) * epsilon
        screening = screen(float(m_hat), data.n, epsilon, delta, options.degree_share,
                           options.tail_share, options.core_share)
        route = "pca" if screening["predicted_pass"] else "randomized-response"
    # 1. scale: sized by public n, rank and the released edge count only (never the true m,
    # which would make the choice, or a refusal, depend on the input)
    m_public = 0 if m_hat is None else max(int(m_hat), 0)
    if screening is not None or route == "auto":
        route = choose_scale_route("pca" if route == "auto" else route, data.n, m_public, rank)
    route_rank = route_spec(route).default_rank
    if route_rank is not None and rank_given is None:
        rank = check_rank(min(route_rank, data.n - 2), data.n)
    refuse_if_too_large(route, data.n, None if m_hat is None else m_public, rank,
                        edges_held=not is_dask_input(data))
    report(f"privatize: route {route!r} on {data.n:,} nodes")
    return route, rank, epsilon, screening


def _release_block_model(pg, data, synthetic_blocks, eps_synthetic, ledger, gen) -> None:
    """docs/privacy.md 7: a partition from the release (post-processing), then the block
    model's releases for that partition (adaptive composition); then (7.12, post-processing)
    its clipped block counts rescaled to the inverse-variance combination of the unbiased
    totals of the block model's raw releases and of the route's release, and its degrees
    shifted down to sum to twice that count."""
    report(f"privatize: synthetic block model ({synthetic_blocks} blocks)")
    blocks = pg.synthetic_blocks(int(synthetic_blocks), rng=gen)
    bm = release_block_model(data, blocks, epsilon=eps_synthetic, ledger=ledger, rng=gen)
    bm.edge_total = combined_estimate(bm.edge_total, _route_edge_total(pg))
    bm = match_edge_count(bm, bm.edge_total[0], rng=gen)
    bm.degrees = degrees_summing_to(bm.degrees, 2.0 * bm.edge_count)
    pg.block_model = bm
    pg.diagnostics["edge_count_estimate"] = round(bm.edge_total[0], 2)


def _route_edge_total(pg) -> tuple[float, float] | None:
    """The route's own unbiased estimate of the total edge weight and its noise variance
    (docs/privacy.md 7.12), where its release has one: the de-biased randomized-response
    pairs ``(Y - p) / (1 - 2p)`` sum to it, each pair's noise of variance
    ``p (1 - p) / (1 - 2p)^2`` whatever the pair holds (``p`` public). None otherwise."""
    p = pg.diagnostics.get("flip_probability")
    if pg.unbiased is None or p is None:
        return None
    p = float(p)
    pairs = pg.n * (pg.n - 1) // 2
    return float(pg.unbiased.sum()) / 2.0, pairs * p * (1.0 - p) / (1.0 - 2.0 * p) ** 2
