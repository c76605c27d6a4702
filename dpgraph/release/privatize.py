"""Privatize a graph: validate, screen, choose a route, release -> PrivateGraph.

This is the only place where the private pipeline touches the input graph. What leaves
:func:`privatize` is a :class:`~dpgraph.release.private_graph.PrivateGraph`, which holds released
(noisy) quantities and post-processing of them, and no reference to the input. Everything
downstream (the CSP engine, the exports, :meth:`PrivateGraph.sample`) is post-processing.

The mechanisms live in :mod:`dpgraph.release.routes`, one module per route (dense randomized response,
dense coherence-aware PCA, matrix-free); this module chooses among them:

0. **Screening** (``route="auto"``, unweighted graphs; docs/privacy.md 4.9). A private edge
   count (Laplace, ``screen_share`` of epsilon) predicts whether the PCA's private gap test can
   pass at this budget; if not (sparse real graphs), the rest of the budget goes to randomized
   response on all pairs.
1. **Scale.** Above ``MATRIX_FREE_MIN_N`` nodes, or when the dense route would not fit in the
   available memory, ``route="auto"`` takes the matrix-free route (``O(m + n r)`` memory). A
   dense route that is asked for and would not fit is refused before anything is allocated
   (:class:`~dpgraph.release.routes.InsufficientMemoryError`, naming the memory it needs and the route to
   use). The choice depends on public n, the released edge count and the machine only.
2. **Release** by the chosen route with the budget left (basic composition with step 0).
"""

from __future__ import annotations

import math

import numpy as np

from dpgraph.io.dask import is_dask_input
from dpgraph.graph import GraphData
from dpgraph.release.private_graph import DEFAULT_RANK, PrivateGraph
from dpgraph.privacy import PrivacyLedger, laplace_mechanism, make_rng
from dpgraph.privacy.validation import check_choice, check_delta, check_epsilon, check_number
from dpgraph.progress import report
from dpgraph.release.routes import DENSE_ROUTES, ROUTES, check_memory, route_module, route_spec
from dpgraph.memory import available_memory
from dpgraph.private_input import check_private_graph_input, input_graph
from dpgraph.privacy.validation import check_share
from dpgraph.synthetic.block_model import SYNTHETIC_SHARE, release_block_model
from dpgraph.synthetic.communities import DEFAULT_BLOCKS

__all__ = ["PrivateGraph", "privatize", "release_edge_count",
           "check_rank", "default_rank", "screens", "screen", "choose_scale_route",
           "DEFAULT_RANK", "DEGREE_SHARE", "TAIL_SHARE", "CORE_SHARE", "SCREEN_SHARE",
           "MATRIX_FREE_MIN_N"]

# Default budget shares of privatize; dpgraph.max_cut, which makes the screening release itself,
# predicts the route with the same values.
DEGREE_SHARE, TAIL_SHARE, CORE_SHARE, SCREEN_SHARE = 0.05, 0.05, 0.1, 0.005
# route="auto" takes the matrix-free route from this many nodes on (benchmarks/NOTES.md,
# "Million-node graphs": where it starts to beat the dense routes), or earlier when a dense
# route does not fit.
MATRIX_FREE_MIN_N = 15000

# Heuristic (utility only, never privacy): the rank-r spectral gap of the regularized
# normalized adjacency, in units of its sensitivity w, is at most about half the mean degree on
# the planted and real graphs we measured (BENCHMARKS.md); the PCA route is taken only when
# that prediction clears the gap test's threshold with a 1.5x margin.
_SCREEN_GAP_PER_DEGREE = 0.5
_SCREEN_MARGIN = 1.5


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


def check_rank(rank, n: int) -> int:
    """``rank`` if ``1 <= rank < n - 1``, else a ValueError naming the bounds."""
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise ValueError(f"rank must be a positive integer, got {rank!r}")
    if not 1 <= rank < n - 1:
        raise ValueError(f"rank must satisfy 1 <= rank < n - 1 = {n - 1}, got {rank}")
    return int(rank)


def screens(route: str, fallback: str) -> bool:
    """Whether ``privatize`` screens: ``route="auto"`` with the randomized-response fallback
    (docs/privacy.md 4.9). A function of the caller's arguments only, never of the weights
    (docs/privacy.md 4.12)."""
    return route == "auto" and fallback == "randomized-response"


def screen(m_hat: float, n: int, epsilon: float, delta: float,
            degree_share: float = DEGREE_SHARE, tail_share: float = TAIL_SHARE,
           core_share: float = CORE_SHARE) -> dict:
    """Predict from the released edge count whether the gap test of Alg. 5.2 can pass.

    The test passes when ``g_hat - (2 w / eps_g) ln(1/(2 delta_g)) > w`` (docs/privacy.md 3.7),
    i.e. when ``g / w`` exceeds ``1 + 2 ln(1/(2 delta_g)) / eps_g`` (up to the Laplace draw).
    A function of released values only: no privacy cost.
    """
    from dpgraph.spectral.pca import DEFAULT_SUBSPACE_SPLIT as split

    mean_degree = 2.0 * max(m_hat, 0.0) / n
    pca_share = (1.0 - degree_share - tail_share) * (1.0 - core_share)
    eps_g = split.epsilon[0] * pca_share * epsilon
    # ln(1 / (2 delta_g)) in logs: delta_g = split * share * delta may underflow to 0
    log_inv = -(math.log(2.0) + math.log(split.delta[0] * pca_share) + math.log(delta))
    required = 1.0 + 2.0 * log_inv / eps_g
    predicted = _SCREEN_GAP_PER_DEGREE * mean_degree
    return {"mean_degree": mean_degree, "predicted_gap_ratio": predicted,
            "required_gap_ratio": required,
            "predicted_pass": bool(predicted > _SCREEN_MARGIN * required)}


def release_edge_count(data: GraphData, epsilon: float, ledger: PrivacyLedger, rng) -> float:
    """The screening release (docs/privacy.md 4.9): total edge weight + Laplace(1/epsilon).

    Laplace (pure DP): at a small share its scale is far below the Gaussian's, and the whole
    delta stays for the route."""
    m_hat, _ = laplace_mechanism(
        data.total_weight, sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="screening: edge count", rng=rng,
        note="one edge changes the total weight by <= 1 (docs/privacy.md 4.9)")
    return float(m_hat)


def choose_scale_route(route: str, n: int, m_hat: float | None, rank: int) -> str:
    """Step 1 of the module docstring: keep a dense ``route`` or move to ``"matrix-free"``.

    ``route`` is what screening chose (``"pca"`` or ``"randomized-response"``); ``m_hat`` the
    released edge count (None when none was released). Depends on public ``n``, released values
    and the machine's available memory only (no privacy cost).
    """
    if n >= MATRIX_FREE_MIN_N:
        return "matrix-free"
    have = available_memory()
    m = 0 if m_hat is None else max(int(m_hat), 0)
    if have is not None and route_module(route).estimated_memory(n, m, rank) > have:
        return "matrix-free"
    return route


def _refuse_if_too_large(route: str, n: int, m: int | None, rank: int) -> None:
    """Refuse, before any allocation, a route whose estimated memory exceeds what is available.
    ``m``: the released edge count, or None when none was released (the estimate then counts
    the route's n-sized arrays alone)."""
    need = route_module(route).estimated_memory(n, 0 if m is None else m, rank)
    if route in DENSE_ROUTES:
        hint = ("Use route='local' (memory O(m)) or route='matrix-free' (memory O(m + n r)), or "
                "route='auto'.")
    else:
        hint = (f"Nothing smaller exists for this graph here: use a machine with more memory, or "
                f"a smaller rank than {rank}.")
    size = (f"{n:,} nodes (its n-sized arrays alone: no edge count was released)" if m is None
            else f"{n:,} nodes and ~{m:,} released edges")
    check_memory(need, what=f"route={route!r} on {size}", alternative=hint)


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
    rank : int, optional
        Rank ``r`` of the private low-rank estimate (default 8 on the dense routes; 2 private
        directions on the matrix-free route, where each direction's noise grows like
        ``sqrt(r)``: docs/privacy.md 5.2).
    rank : int or None
        Rank ``r`` of the private low-rank estimate. ``None`` (default): 8, capped at
        ``n - 2`` on graphs with fewer than 10 nodes (``diagnostics["rank_note"]`` says so).
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
        truncated to rank ``r`` (unweighted graphs; docs/privacy.md 4.7), or ``"none"``: keep
        the uniformly random subspace of Alg. 5.8 (a :class:`UserWarning` says so).
    max_projector_noise : float or None
        Take the halting branch before the projector step when the released gap and coherence
        bounds predict projector noise of spectral norm above this (default 0.5; the
        projector's eigengap is 1), since the projector would then carry no signal.
    route : {"auto", "pca", "randomized-response", "matrix-free"}
        ``"auto"`` (unweighted graphs with the randomized-response fallback) first releases the
        edge count with ``screen_share`` of the budget and predicts from it whether the PCA's
        private gap test can pass at this budget (docs/privacy.md 4.9); if not, the whole
        remaining budget goes to randomized response instead of being spread over steps that
        would halt. From ``MATRIX_FREE_MIN_N`` nodes on, or when the dense route would not fit
        in memory, ``"auto"`` takes ``"matrix-free"``. ``"pca"`` always runs the PCA (with its
        fallback); ``"randomized-response"`` never does; a dense route that would not fit is
        refused before allocating (:class:`~dpgraph.release.routes.InsufficientMemoryError`).
    screen_share : float
        Fraction of epsilon for the screening edge count (``route="auto"``; Laplace, pure DP).
    rr_postprocess : {"posterior-degree", "posterior-lowrank-<k>", "box", "low-rank"}
        The exported synthetic graph on the randomized-response route (post-processing):
        posterior means ``E[A_ij | release]`` under the empirical Chung-Lu prior (the default)
        or a rank-``k`` block prior (:mod:`dpgraph.release.posterior`); the de-biased release
        projected onto ``[0, 1]`` (``"box"``, which is the flipped graph itself: at epsilon 1
        about 27% of all pairs are edges); or truncated to rank ``r`` and then projected
        (``"low-rank"``). These are the weights (:meth:`PrivateGraph.weights`); their total
        exceeds the edge count at small epsilon on sparse graphs (issue 18: 2-5x at epsilon
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

    Returns
    -------
    PrivateGraph

    Raises
    ------
    InsufficientMemoryError
        Before any allocation, when the chosen route would not fit in the available memory
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
    degree_share = check_share("degree_share", degree_share)
    tail_share = check_share("tail_share", tail_share)
    core_share = check_share("core_share", core_share)
    if degree_share + tail_share >= 1:
        raise ValueError("degree_share + tail_share must be < 1 (the rest goes to the private PCA)")
    check_choice(fallback, name="fallback", choices=("randomized-response", "none"))
    check_choice(projection, name="projection", choices=("auto", "dykstra", "clip"))
    check_choice(route, name="route", choices=("auto", *ROUTES))
    if not isinstance(regularization, str):  # checked now, used after the degrees' release
        check_number(regularization, name="regularization", low=0.0, open_low=True)
    elif regularization != "mean":
        raise ValueError(f"regularization must be 'mean' or a number > 0, got {regularization!r}")
    from dpgraph.release.posterior import prior_rank

    if not isinstance(rr_postprocess, str) or (
            rr_postprocess not in ("low-rank", "box", "posterior-degree")
            and prior_rank(rr_postprocess) is None):
        raise ValueError(f"rr_postprocess={rr_postprocess!r} is not 'posterior-degree', "
                         f"'posterior-lowrank-<k>', 'box' or 'low-rank'")
    screen_share = check_share("screen_share", screen_share)
    if synthetic_share is not None and synthetic_share != "auto":
        synthetic_share = check_share("synthetic_share", synthetic_share)
    data = input_graph(G, weight=weight)
    check_private_graph_input(data)
    if delta == 0:  # pure epsilon-DP asked for: only a pure route may run (docs/privacy.md 14)
        if route == "auto":
            route = "local" if data.n >= MATRIX_FREE_MIN_N else "randomized-response"
        elif not route_spec(route).pure:
            raise ValueError(f"delta=0 asks for pure epsilon-DP, which route={route!r} does not "
                             f"give; use route='local' or route='randomized-response', or pass "
                             f"delta > 0")
    on_dask = is_dask_input(data)
    if on_dask:  # the routes that read the edges by passes (docs/privacy.md 9, 14)
        if route not in ("auto", "matrix-free", "local"):
            raise ValueError(f"route={route!r} needs the graph in memory; Dask edge lists take "
                             f"route='matrix-free' (or 'auto') or route='local'")
        route = "matrix-free" if route == "auto" else route
        if route == "local":
            synthetic_share = None  # its block model would need the graph in memory
        if synthetic_share is not None and not isinstance(synthetic_share, str):
            raise ValueError("synthetic_share (privatize's synthetic block model, docs 7) needs "
                             "the graph in memory; on Dask edge lists the matrix-free release "
                             "samples its own block model as Dask tasks (.sample_dask(), "
                             ".write_sample(folder)): leave synthetic_share unset")
    if isinstance(synthetic_share, str):  # "auto"
        # the matrix-free route's factor form has its own O(m + n r) sampler (docs 5.5): no
        # extra release there; the dense routes' weights need the block model (docs 7)
        large = route == "matrix-free" or (route == "auto" and data.n >= MATRIX_FREE_MIN_N)
        synthetic_share = None if large else SYNTHETIC_SHARE
    rank_given = rank
    rank, rank_note = default_rank(data.n) if rank is None else (check_rank(rank, data.n), None)
    if isinstance(synthetic_blocks, bool) or not isinstance(synthetic_blocks, (int, np.integer)) \
            or synthetic_blocks < 1:
        raise ValueError(f"synthetic_blocks must be a positive integer, got {synthetic_blocks!r}")
    # each community is split in two: on tiny graphs at most n // 4 communities
    synthetic_blocks = min(int(synthetic_blocks), max(1, data.n // 4))
    if _check_only:  # a caller's precheck (dpgraph.max_cut): every refusal that needs no release
        if route != "auto":
            _refuse_if_too_large(route, data.n, None, rank)
        return None
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    eps_synthetic = 0.0 if synthetic_share is None else synthetic_share * epsilon
    epsilon = epsilon - eps_synthetic  # basic composition: the route gets the rest
    screening, m_hat = None, edge_count
    if screens(route, fallback):
        # 0. screening (docs/privacy.md 4.9): can the PCA's gap test pass at this budget?
        if edge_count is None:
            m_hat = release_edge_count(data, screen_share * epsilon, ledger, gen)
            epsilon = (1 - screen_share) * epsilon
        screening = screen(float(m_hat), data.n, epsilon, delta, degree_share, tail_share,
                           core_share)
        route = "pca" if screening["predicted_pass"] else "randomized-response"
    # 1. scale: sized by public n, rank and the released edge count only (never the true m,
    # which would make the choice, or a refusal, depend on the input)
    m_public = 0 if m_hat is None else max(int(m_hat), 0)
    if screening is not None or route == "auto":
        route = choose_scale_route("pca" if route == "auto" else route, data.n, m_public, rank)
    if route == "matrix-free" and rank_given is None:
        from dpgraph.release.routes.matrix_free import MATRIX_FREE_DEFAULT_RANK

        rank = check_rank(min(MATRIX_FREE_DEFAULT_RANK, data.n - 2), data.n)
    _refuse_if_too_large(route, data.n, None if m_hat is None else m_public, rank)
    report(f"privatize: route {route!r} on {data.n:,} nodes")
    module = route_module(route)
    if route == "randomized-response":
        options = {"rr_postprocess": rr_postprocess}
    elif route == "pca":
        options = dict(degree_share=degree_share, tail_share=tail_share, core_share=core_share,
                       regularization=regularization, projection=projection, fallback=fallback,
                       max_projector_noise=max_projector_noise, pca_options=pca_options)
    elif route == "matrix-free":
        options = dict(regularization=regularization, **(matrix_free_options or {}))
    else:
        options = {}
    pg = module.release(data, epsilon=epsilon, delta=delta, rank=rank, ledger=ledger, rng=gen,
                        screening=screening, **options)
    pg.diagnostics.setdefault("rank", rank)
    if rank_note:
        pg.diagnostics["rank_note"] = rank_note
    if eps_synthetic > 0:
        # docs/privacy.md 7: a partition from the release (post-processing), then the block
        # model's releases for that partition (adaptive composition)
        report(f"privatize: synthetic block model ({synthetic_blocks} blocks)")
        blocks = pg.synthetic_blocks(int(synthetic_blocks), rng=gen)
        pg.block_model = release_block_model(data, blocks, epsilon=eps_synthetic, ledger=ledger,
                                             rng=gen)
        pg.diagnostics["synthetic_share"] = synthetic_share
    return pg
