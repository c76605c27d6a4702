"""The release stage's choices: screening, the route "auto" takes, and memory refusals.

Every function here is a function of the caller's arguments, public sizes (``n``, the
machine's memory) and released values (the edge count ``m^``) only, so the choice of a route
costs no privacy beyond the screening release itself (docs/privacy.md 4.9). This is the one
place, with :mod:`dpgraph.release.routes`, that knows routes by name.
"""

from __future__ import annotations

import math

from dpgraph.graph import GraphData
from dpgraph.memory import available_memory
from dpgraph.privacy import PrivacyLedger, laplace_mechanism
from dpgraph.privacy.budget import CORE_SHARE, DEGREE_SHARE, TAIL_SHARE
from dpgraph.release.routes import check_memory, route_module, route_spec

__all__ = ["MATRIX_FREE_MIN_N", "screens", "screen", "release_edge_count",
           "choose_scale_route", "refuse_if_too_large", "answer_route", "matrix_free_share",
           "MATRIX_FREE_RAMP", "MATRIX_FREE_SHARE_MAX", "randomized_response_share",
           "DENSE_POOL_MAX_N", "DENSE_SIGNAL_RAMP", "DENSE_SHARE_MAX",
           "pure_route",
           "streamed_route", "default_synthetic_share"]

# route="auto" takes the matrix-free route from this many nodes on (benchmarks/NOTES.md,
# "Million-node graphs": where it starts to beat the dense routes), or earlier when a dense
# route does not fit.
MATRIX_FREE_MIN_N = 15000

# Heuristic (utility only, never privacy): the rank-r spectral gap of the regularized
# normalized adjacency, in units of its sensitivity w, is at most about half the mean degree on
# the planted and real graphs we measured (BENCHMARKS.md); the PCA route is taken only when
# that prediction clears the gap test's threshold with a 1.5x margin.
SCREEN_GAP_PER_DEGREE = 0.5
SCREEN_MARGIN = 1.5


def screens(route: str, fallback: str) -> bool:
    """Whether ``privatize`` screens: ``route="auto"`` with the randomized-response fallback
    (docs/privacy.md 4.9). A function of the caller's arguments only, never of the weights
    (docs/privacy.md 4.12).

    >>> screens("auto", "randomized-response"), screens("pca", "randomized-response")
    (True, False)
    """
    return route == "auto" and fallback == "randomized-response"


def screen(m_hat: float, n: int, epsilon: float, delta: float,
            degree_share: float = DEGREE_SHARE, tail_share: float = TAIL_SHARE,
           core_share: float = CORE_SHARE) -> dict:
    """Predict from the released edge count whether the gap test of Alg. 5.2 can pass.

    The test passes when ``g_hat - (2 w / eps_g) l > w`` with ``l = max(ln(1/(2 delta_g)), 1)``
    (docs/privacy.md 3.7), i.e. when ``g / w`` exceeds ``1 + 2 l / eps_g`` (up to the Laplace
    draw).
    A function of released values only: no privacy cost.

    >>> s = screen(88234, 4039, 1.0, 1e-6)  # mean degree 2 m / n = 43.7
    >>> round(s["mean_degree"], 1), round(s["predicted_gap_ratio"], 2), s["predicted_pass"]
    (43.7, 21.85, False)
    >>> s4 = screen(4 * 88234, 4039, 4.0, 1e-6)  # denser, and a larger budget
    >>> s4["required_gap_ratio"] < s["required_gap_ratio"], s4["predicted_pass"]
    (True, True)
    """
    from dpgraph.spectral.pca import DEFAULT_SUBSPACE_SPLIT as split

    mean_degree = 2.0 * max(m_hat, 0.0) / n
    pca_share = (1.0 - degree_share - tail_share) * (1.0 - core_share)
    eps_g = split.epsilon[0] * pca_share * epsilon
    # the test's tail multiple max(ln(1 / (2 delta_g)), 1) (spectral.pca.tail_multiple), in
    # logs: delta_g = split * share * delta may underflow to 0
    log_inv = max(-(math.log(2.0) + math.log(split.delta[0] * pca_share) + math.log(delta)), 1.0)
    required = 1.0 + 2.0 * log_inv / eps_g
    predicted = SCREEN_GAP_PER_DEGREE * mean_degree
    return {"mean_degree": mean_degree, "predicted_gap_ratio": predicted,
            "required_gap_ratio": required,
            "predicted_pass": bool(predicted > SCREEN_MARGIN * required)}


def release_edge_count(data: GraphData, epsilon: float, ledger: PrivacyLedger, rng) -> float:
    """The screening release (docs/privacy.md 4.9): total edge weight + Laplace(1/epsilon).

    Laplace (pure DP): at a small share its scale is far below the Gaussian's, and the whole
    delta stays for the route.

    >>> import networkx as nx
    >>> from dpgraph.private_input import input_graph
    >>> G = nx.Graph(nx.karate_club_graph().edges())  # 78 edges
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> m_hat = release_edge_count(input_graph(G, weight=None), 0.1, led, rng=0)
    >>> isinstance(m_hat, float), led.spent  # Laplace(10): epsilon 0.1, no delta
    (True, (0.1, 0.0))
    """
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

    >>> import os
    >>> from unittest import mock
    >>> choose_scale_route("pca", 20000, 1e5, 2), choose_scale_route("pca", 100, 300, 2)
    ('matrix-free', 'pca')
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1M"}):  # 5,000^2 doubles
    ...     choose_scale_route("pca", 5000, 1e5, 2)
    'matrix-free'
    """
    if n >= MATRIX_FREE_MIN_N:
        return "matrix-free"
    have = available_memory()
    m = 0 if m_hat is None else max(int(m_hat), 0)
    if have is not None and route_module(route).estimated_memory(n, m, rank) > have:
        return "matrix-free"
    return route


def refuse_if_too_large(route: str, n: int, m: int | None, rank: int, *,
                        edges_held: bool = True) -> None:
    """Refuse, before any allocation, a route whose estimated memory exceeds what is available.
    ``m``: the released edge count, or None when none was released (the estimate then counts
    the route's n-sized arrays alone).

    The message names the limit and what would fit, in the parameters the route has: the other
    routes for a dense one (and the largest rank that fits, where its memory grows with the
    rank: the pca route); the largest rank that fits for a route whose memory grows with the
    rank (the matrix-free route); the largest node count at this edge count otherwise (the
    local route has no rank, and no core).

    >>> import os
    >>> from unittest import mock
    >>> refuse_if_too_large("pca", 100, 300, 2)  # fits
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1M"}):
    ...     refuse_if_too_large("pca", 10000, 50000, 2)
    Traceback (most recent call last):
    ...
    dpgraph.memory.InsufficientMemoryError: route='pca' on 10,000 nodes ... needs about 4.5 GiB ...
    """
    estimate = _estimate(route, edges_held)
    edges = 0 if m is None else m
    need = estimate(n, edges, rank)
    size = (f"{n:,} nodes (its n-sized arrays alone: no edge count was released)" if m is None
            else f"{n:,} nodes and ~{m:,} released edges")
    fit = None
    smaller_rank = rank > 1 and estimate(n, edges, 1) <= (available_memory() or 0)
    if route_spec(route).dense:
        hint = ("Use route='local' (memory O(m)) or route='matrix-free' (memory O(m + n r)), or "
                "route='auto'.")
        if smaller_rank:  # its rank-r arrays are what does not fit (the pca route's)
            fit = (lambda r: estimate(n, edges, max(r, 1)),
                   f"A smaller rank would fit: at most rank={{}} (asked: {rank}).")
    elif smaller_rank:  # the rank matters to this route, and a smaller one fits
        hint = "Or use a machine with more memory."
        fit = (lambda r: estimate(n, edges, max(r, 1)),
               f"A smaller rank would fit: at most rank={{}} (asked: {rank}).")
    else:
        at = " at this edge count" if m else ""
        hint = "Nothing smaller exists for this graph here: use a machine with more memory."
        fit = (lambda k: estimate(k, edges, rank),
               f"The route fits graphs of at most {{:,}} nodes{at}"
               + (f" at rank {rank}." if estimate(n, edges, 1) < need else "."))
    check_memory(need, what=f"route={route!r} on {size}", alternative=hint, fit=fit)


def answer_route(n: int, m_hat: float, epsilon: float, delta: float) -> str:
    """The route ``route="auto"`` takes for a private answer: the degree-ordered local route,
    whatever the size, density and budget (a constant rule: no privacy cost); on large dense
    graphs with ``delta > 0`` the matrix-free route's candidates join its private choice
    (:func:`matrix_free_share`, docs/privacy.md 14.10), and on small ones with a high released
    signal-to-noise ratio the randomized-response route's (:func:`randomized_response_share`,
    14.11).

    >>> answer_route(4039, 88234, 1.0, 1e-6), answer_route(100000, 5e6, 2.0, 1e-6)
    ('local', 'local')
    """
    return "local"


# The matrix-free route's share of an "auto" answer (docs/privacy.md 14.10): a continuous
# function of rho = 2 m^ epsilon / n, 0 below MATRIX_FREE_RAMP[0] and MATRIX_FREE_SHARE_MAX from
# MATRIX_FREE_RAMP[1] on. Its global low-rank release is exact on planted two-block graphs from
# its own rho of about 200 (BENCHMARKS.md, "Million-node graphs") but a random cut where the cut
# structure is local, at any density (0.870 of the reference on a dense social-like graph of
# 18,660 nodes and mean degree 85 at eps 2 and 4, a random partition 0.869); the local route is
# the reverse on large planted graphs (0.730 against 0.999 at n = 200,000, d = 50, eps 4). No
# released value tells the two apart before spending, so both release and one private choice
# among their candidates keeps the better. The share starts where MATRIX_FREE_SHARE_MAX of rho
# reaches the route's own working density of about 150 (below it its candidates are a random cut
# however the graph is built: planted-200000-50 alone 0.64-0.65 of the reference up to eps 2.5,
# 0.77 at eps 3, 0.999 at eps 4; in the pool at a 16% share, rho 200, 0.625-0.632, a random
# partition 0.625), so a share below that only takes budget from the local route
# (benchmarks/NOTES.md, "Why "auto" misses the matrix-free route").
MATRIX_FREE_RAMP, MATRIX_FREE_SHARE_MAX = (300.0, 400.0), 0.5


def matrix_free_share(n: int, m_hat: float, epsilon: float, delta: float,
                      rank: int = 2, *, edges_held: bool = True) -> float:
    """Share of ``epsilon`` (the budget left after the edge count) that an ``"auto"`` answer
    gives the matrix-free route, whose candidates then join the local route's private choice:
    0 unless ``delta > 0``, ``n >= MATRIX_FREE_MIN_N`` and the route fits in the available
    memory; then ``MATRIX_FREE_SHARE_MAX * ramp(rho)`` with ``rho = 2 m_hat epsilon / n``,
    linear from 0 at ``MATRIX_FREE_RAMP[0]`` to 1 at ``MATRIX_FREE_RAMP[1]``. Public ``n``,
    released ``m_hat``, the budget and the machine only: no privacy cost. ``edges_held=False``:
    the edges are on Dask workers, and only the client's memory is priced.

    >>> matrix_free_share(4039, 88234, 4.0, 1e-6), matrix_free_share(200000, 5e6, 4.0, 0.0)
    (0.0, 0.0)
    >>> matrix_free_share(200000, 5e6, 8.0, 1e-6)
    0.5
    """
    if delta <= 0 or n < MATRIX_FREE_MIN_N:
        return 0.0
    rho = 2.0 * max(float(m_hat), 0.0) * float(epsilon) / max(int(n), 1)
    share = MATRIX_FREE_SHARE_MAX * _ramp(rho, *MATRIX_FREE_RAMP)
    return share if share > 0 and _fits("matrix-free", n, m_hat, rank, edges_held) else 0.0


def _ramp(value: float, lo: float, hi: float) -> float:
    """Linear from 0 at ``lo`` to 1 at ``hi``, constant outside."""
    return min(max((value - lo) / (hi - lo), 0.0), 1.0)


def _fits(route: str, n: int, m_hat: float, rank: int, edges_held: bool = True) -> bool:
    """Whether ``route``'s estimated memory at public ``n`` and released ``m_hat`` fits in what
    the machine has (True where that is unknown)."""
    have = available_memory()
    need = _estimate(route, edges_held)(n, max(int(m_hat), 0), rank)
    return have is None or need <= have


def _estimate(route: str, edges_held: bool):
    """``route``'s ``estimated_memory(n, m, rank)``; with ``edges_held=False`` (edges on Dask
    workers; a streaming route: :mod:`dpgraph.release.routes`) the client's share only."""
    estimate = route_module(route).estimated_memory
    if edges_held or not route_spec(route).streams:
        return estimate
    return lambda n, m, rank: estimate(n, m, rank, edges_held=False)


# The dense randomized-response route's share of an "auto" answer (docs/privacy.md 14.11): a
# continuous function of the released signal-to-noise ratio snr = d^ sinh(eps / 2) / sqrt(n)
# (d^ = 2 m^ / n; the de-biased release's noise has spectral norm about sqrt(n) / sinh(eps / 2)):
# DENSE_SHARE_MAX times a ramp up in snr over DENSE_SIGNAL_RAMP, up to DENSE_POOL_MAX_N nodes;
# non-decreasing in epsilon, so a larger budget never drops the route's candidates (a ramp down
# in the local route's density d^ eps over 100-150 did: planted-cut-n1000-d20 fell from 0.797
# of m at eps 5 to 0.72 at eps 8, 3 seeds; without it 0.80 at 6 and 8, and G3 rose from 11,200
# to 11,308 at eps 4 and from 11,211 to 11,593 at eps 8, 2 seeds). Measured (cut / m, 2 seeds): randomized response recovers a planted cut sharply once snr
# passes about 2 (planted-cut-n1000-d20 at eps 4, snr 2.3: 0.74-0.75 at the full budget, 0.64-0.69
# at 3.4, 0.60-0.61 at 3.0; the local route 0.63-0.66, and 0.58 at 0.4), so the share is nearly
# all or nothing; where the local route's density is high it is as good as randomized response
# and loses at a smaller budget (G3 at eps 4, rho 192: local 0.584, 0.564 at 0.6; randomized
# response 0.586, 0.577 at 3.4; the private choice among both pools still gains there, above);
# and the dense route's four solves take 26 s at n = 2,277
# (chameleon) and 90 s at n = 4,039 (facebook) on 2 cores, where the local route takes 1 s.
DENSE_POOL_MAX_N = 2000
DENSE_SIGNAL_RAMP, DENSE_SHARE_MAX = (2.0, 2.25), 0.95


def randomized_response_share(n: int, m_hat: float, epsilon: float, delta: float,
                              rank: int = 2) -> float:
    """Share of ``epsilon`` (the budget left after the edge count) that an ``"auto"`` answer
    gives the dense randomized-response route, whose candidates then join the local route's
    private choice: 0 unless ``delta > 0``, ``n <= DENSE_POOL_MAX_N`` and the route's ``n x n``
    arrays fit in the available memory; then ``DENSE_SHARE_MAX * ramp(snr; DENSE_SIGNAL_RAMP)``
    with ``d = 2 m_hat / n``, ``snr = d sinh(epsilon / 2) / sqrt(n)`` and ``ramp(v; (lo, hi))``
    linear from 0 at ``lo`` to 1 at ``hi``: non-decreasing in ``epsilon`` and ``m_hat``. Public ``n``, released
    ``m_hat``, the budget and the machine only: no privacy cost (docs/privacy.md 14.11).

    >>> share = randomized_response_share
    >>> share(1000, 9972, 2.0, 1e-6), share(1000, 9972, 4.0, 0.0), share(2500, 5e4, 4.0, 1e-6)
    (0.0, 0.0, 0.0)
    >>> share(1000, 9972, 4.0, 1e-6), share(800, 19176, 4.0, 1e-6)
    (0.95, 0.95)
    """
    if delta <= 0 or n > DENSE_POOL_MAX_N or n < 2:
        return 0.0
    degree = 2.0 * max(float(m_hat), 0.0) / int(n)
    # sinh(eps / 2) overflows from eps ~ 1420; the signal ramp is flat long before eps 60
    snr = degree * math.sinh(min(float(epsilon), 60.0) / 2.0) / math.sqrt(int(n))
    share = DENSE_SHARE_MAX * _ramp(snr, *DENSE_SIGNAL_RAMP)
    return share if share > 0 and _fits("randomized-response", n, m_hat, rank) else 0.0


def pure_route(route: str, n: int) -> str:
    """The route under ``delta = 0`` (pure epsilon-DP asked for, docs/privacy.md 14): "auto"
    takes the local route on large graphs and randomized response below; a route that is not
    pure is refused.

    >>> pure_route("auto", 100), pure_route("auto", 100000), pure_route("local", 100)
    ('randomized-response', 'local', 'local')
    >>> pure_route("pca", 100)
    Traceback (most recent call last):
    ...
    ValueError: delta=0 asks for pure epsilon-DP, which route='pca' does not give; ...
    """
    if route == "auto":
        return "local" if n >= MATRIX_FREE_MIN_N else "randomized-response"
    if not route_spec(route).pure:
        raise ValueError(f"delta=0 asks for pure epsilon-DP, which route={route!r} does not "
                         f"give; use route='local' or route='randomized-response', or pass "
                         f"delta > 0")
    return route


def streamed_route(route: str) -> str:
    """The route for a Dask edge list (docs/privacy.md 9, 14): one that reads the edges by
    passes; "auto" takes the matrix-free route.

    >>> streamed_route("auto"), streamed_route("local")
    ('matrix-free', 'local')
    >>> streamed_route("pca")
    Traceback (most recent call last):
    ...
    ValueError: route='pca' needs the graph in memory; Dask edge lists take ...
    """
    if route == "auto":
        return "matrix-free"
    if not route_spec(route).streams:
        raise ValueError(f"route={route!r} needs the graph in memory; Dask edge lists take "
                         f"route='matrix-free' (or 'auto') or route='local'")
    return route


def default_synthetic_share(route: str, n: int, share: float) -> float | None:
    """``synthetic_share="auto"``: ``share`` of epsilon for the block model (docs/privacy.md 7),
    or None where the release samples itself (the matrix-free factor form, docs 5.5: also the
    route "auto" takes from ``MATRIX_FREE_MIN_N`` nodes on).

    >>> default_synthetic_share("auto", 100, 0.3), default_synthetic_share("auto", 100000, 0.3)
    (0.3, None)
    >>> default_synthetic_share("pca", 100, 0.3), default_synthetic_share("matrix-free", 100, 0.3)
    (0.3, None)
    """
    if route == "auto":
        return None if n >= MATRIX_FREE_MIN_N else share
    return None if route_spec(route).own_sampler else share
