r"""Max-Cut and Max-Bisection by degree-2 sum-of-squares with certified bounds.

The pipeline of d'Orsi and Novikov, Sec. 7.1 (degree-2 SoS relaxation, independent rounding
Alg. 7.4, global correlation rounding in the sense of Barak, Raghavendra and Steurer, FOCS 2011,
Lemma 7.6, Thms 7.8/7.10/7.11) specialised to cut problems:

1. solve the SDP :math:`\max \tfrac14\langle L, X\rangle`, diag X = 1, X PSD (bisection: also
   :math:`\langle J, X\rangle = n \bmod 2`) by a low-rank Burer-Monteiro method
   (:mod:`dpgraph.engine.sdp`);
2. certify an upper bound from the iterate by weak duality;
3. round: Goemans-Williamson hyperplanes (best of many), and global correlation rounding
   (seeds, conditioning, independent rounding); bisection is rebalanced to
   :math:`|\,|L|-|R|\,| \le 1`;
4. local search (single flips; swaps for bisection) on the same weights, then a short iterated
   tabu search from every candidate (:mod:`dpgraph.engine.local_search`; ``tabu_moves``); for
   Max-Cut on a sparse graph with numba and no ``time_limit`` (the default call), instead a
   fixed-length simulated annealing from the best candidate followed by tabu search
   (``anneal_sweeps``: deterministic for a given ``rng``, about the time of the SDP);
5. with ``time_limit``: the SDP (to ``max(tol, 1e-3)``) gets a fifth of the budget, the
   certificate a tenth (a looser but still verified bound when that runs out), and the rest
   goes to the best cut -- simulated annealing on the clock and tabu search (breakout local
   search, Benlic and Hao 2013; bisection anneals both the free Max-Cut objective and a
   balance-penalised one, rebalances each and keeps the better) -- so the returned cut keeps
   improving until the time is spent
   or it meets the certified bound, while ``upper_bound`` stays the certified bound of step 2
   (``gap`` says how far from optimal the cut can be at most). ``certificate=False`` skips
   step 2 (the bound is then the sum of the positive weights).

Input: anything :func:`dpgraph.graph.as_graph_data` accepts, or a symmetric weight matrix
(dense ``numpy.ndarray`` or SciPy sparse) with ``labels=``. A dense matrix is used as it is
(one blocked product ``W @ V`` per iteration), never converted to sparse: this is the path the
private pipeline takes for its dense synthetic graph :math:`\hat D^{1/2}\hat A\hat D^{1/2}`.
Signed weights are allowed for Max-Cut and Max-Bisection.

Edge cases (documented answers): a single node gives the empty cut (value 0, bound 0); all-zero
weights give value 0 and a bound of 0 up to rounding; disconnected graphs need nothing special
(the SDP and the rounding work on all components at once). Values scale exactly with the
weights: the solve runs on the weights times the power of two :math:`2^k` that brings the
largest to [1, 2), where the solver's tolerances are tuned, and every value and bound in weight
units comes back times :math:`2^{-k}` (both products exact in binary floating point, so a
certified bound stays certified: :func:`dpgraph.engine.operator.normalized_operator`). Weights
times a power of two, 2^-100 or 2^60, give the same cut and every number times the factor, bit
for bit; times 1e-30 or 1e30 (weights that round differently), the cut and the bounds
within the solver's tolerance; subnormal weights (1e-310) too. A caller's dense matrix whose
largest weight lies in [2^-10, 2^20] is solved as it is (no n x n copy: there the scale moves
only the certificate's last digits), dpgraph's own operators (a release's) as they come;
weights adding up to more than 1e100 are refused. NaN / inf weights, non-square or
non-symmetric matrices and empty graphs raise ValueError naming the problem.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from dpgraph.result import EngineResult
from dpgraph.privacy.noise import make_rng
from dpgraph.privacy.validation import InvalidParameterError, check_positive
from dpgraph.engine.operator import (WEIGHT_UNIT_INFO, WeightOperator, as_weight_operator,
                                     input_node_count, normalized_operator, unscaled)
from dpgraph.engine.local_search import (anneal, improve_cut, kernel_load_bytes, prepare,
                                          tabu_search)
from dpgraph.engine.rounding import (correlation_round, cut_values, flip_local_search, hyperplane_round,
                       rebalance, swap_local_search)
from dpgraph.engine.sdp import certify_upper_bound, solve_lowrank_sdp, trivial_upper_bound

__all__ = ["CutResult", "solve_max_cut", "solve_max_bisection", "cut_value", "side_vector"]

# Work of the default improvement (Max-Cut, no time_limit): ``anneal_sweeps="auto"`` runs
# AUTO_ANNEAL_WORK / (n + nnz) annealing sweeps, clipped to [AUTO_SWEEPS_MIN, AUTO_SWEEPS_MAX]
# (each sweep visits every vertex and its edges once). Measured on this project's 2-core
# machine (BENCHMARKS.md, benchmarks/bench_default_cut.py): G81 (n + nnz = 100,000:
# 3,000 sweeps) anneals in about 2 s to 0.991 of the best known cut, where a tabu search from
# each rounding candidate reaches 0.947 in a comparable total time.
AUTO_ANNEAL_WORK = 3e8
AUTO_SWEEPS_MIN = 100
AUTO_SWEEPS_MAX = 10_000


def auto_sweeps(n: int, nnz: int) -> int:
    """Annealing sweeps of the default Max-Cut improvement for ``n`` vertices and ``nnz``
    stored weights (``anneal_sweeps="auto"``).

    >>> auto_sweeps(20000, 80000), auto_sweeps(800, 38352), auto_sweeps(10**6, 10**7)
    (3000, 7662, 100)
    """
    return int(np.clip(AUTO_ANNEAL_WORK / max(n + nnz, 1), AUTO_SWEEPS_MIN, AUTO_SWEEPS_MAX))


# Share of ``time_limit`` the SDP may use; the certificate, rounding and the improvement phase get
# the rest (on G81 the cut hardly depends on how converged the SDP start is; the bound does).
_SDP_SHARE = 0.2
# Solver tolerance floor under a time budget: an iterate converged to 1e-3 certifies within
# 0.1% of the 1e-6 bound on G35 / G81 (8022.0 vs 8014.8, 15659.2 vs 15657.0) in a third of the
# iterations, and a run cut short by the clock certifies far worse (G81: 16360), so the budget
# is better spent converging loosely
_TIME_LIMIT_TOL = 1e-3
# Time by which, as a share of ``time_limit``, the per-candidate bisection swap descent stops.
_LS_SHARE = 0.6

# Share of ``time_limit`` for the certificate (the sparse LDL^T search stops there with a looser
# but verified bound; see dpgraph.engine.sdp.certify_upper_bound)
_CERT_SHARE = 0.1


@dataclass(repr=False, eq=False)  # compared by identity and hashable, as every result
class CutResult(EngineResult):
    r"""Result of :func:`solve_max_cut` / :func:`solve_max_bisection`.

    Attributes
    ----------
    partition : tuple of two sets
        Node labels with ``x = +1`` and with ``x = -1``.
    assignment : dict
        Node label -> side (1 for ``x = +1``, 0 for ``x = -1``).
    x : ndarray
        The ``±1`` vector in node-index order.
    value : float
        Objective of the returned cut on the given weights (sum of weights of cut edges).
    sdp_value : float
        Primal value :math:`\tfrac14\langle L, VV^T\rangle` of the low-rank SDP iterate.
    upper_bound : float
        Certified upper bound on the SDP value and hence on the optimum (see ``info['certificate']``).
    gap : float
        ``(upper_bound - value) / |upper_bound|``: certified relative optimality gap of the
        returned cut (reported as 0 when ``upper_bound - value`` is below 1e-12 of the total
        absolute weight, e.g. for all-zero weights).
    rounding : str
        The rounding that produced the returned cut ("hyperplane", "correlation", ...), with
        "+local search" when local search improved it.
    timings : dict
        Seconds per phase.
    info : dict
        Method details: rank, iterations, convergence, multiplier, certificate, ...;
        ``info["rounded"]`` is the ``n x K`` int8 matrix of every rounding candidate after local
        search (``x`` is its best column on the given weights).
    V : ndarray
        The SDP factor (rows are the unit vectors of the relaxation); pass it back as ``warm_start``.

    Examples
    --------
    >>> import networkx as nx
    >>> res = solve_max_cut(nx.cycle_graph(6), rng=0)  # NOT private: the exact graph
    >>> res.value, sorted(res.partition[0])
    (6.0, [0, 2, 4])
    >>> bool(res.upper_bound >= res.value)  # the certified SDP bound
    True
    """

    partition: tuple
    assignment: dict
    x: np.ndarray
    value: float
    sdp_value: float
    upper_bound: float
    gap: float
    rounding: str
    timings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    V: np.ndarray | None = None

    def __repr__(self) -> str:
        n = len(self.x)
        # by assignment (0, then 1), as PrivateCutResult and the command line: partition lists
        # side 1 (x = +1) first
        return (f"CutResult(n={n}, value={self.value:.6g}, sdp_value={self.sdp_value:.6g}, "
                f"upper_bound={self.upper_bound:.6g}, gap={self.gap:.2e}, sides=({len(self.partition[1])}, "
                f"{len(self.partition[0])}), rounding={self.rounding!r}, "
                f"time={sum(self.timings.values()):.3g}s)")


def cut_value(G, partition, *, labels=None, weight: str | None = "weight") -> float:
    """Total weight of the edges of ``G`` crossing a cut: ``(sum W - x^T W x) / 4`` for the
    ``±1`` side vector ``x``. NOT PRIVATE: it reads the true graph.

    Parameters
    ----------
    G : graph or WeightOperator
        Anything :func:`as_weight_operator` accepts (NetworkX, igraph, GraphData, a SciPy or
        NumPy weight matrix, an edge list), or a :class:`WeightOperator`.
    partition
        A mapping node label -> side (0/1, -1/+1 or bool), a ``±1`` / 0-1 array in node
        order, a pair ``(S, T)`` of label collections covering every node once (or a list of
        two sets, as networkx's community functions give them), or a result object with an
        ``assignment`` mapping (e.g. :class:`CutResult`).
    labels : sequence, optional
        Node labels of matrix input (default ``0..n-1``).
    weight : str or None
        The edge attribute holding the weight (NetworkX, igraph); ``None`` counts every edge
        as 1 (a matrix is then read as its nonzero pattern). A WeightOperator is used as is.

    Examples
    --------
    >>> cut_value([(0, 1), (1, 2), (0, 2)], {0: 0, 1: 1, 2: 1})
    2.0
    >>> import networkx as nx
    >>> cut_value(nx.cycle_graph(4), ({0, 2}, {1, 3}))
    4.0
    """
    op = G if isinstance(G, WeightOperator) else as_weight_operator(G, labels=labels, weight=weight)
    return float(cut_values(op, side_vector(op.labels, partition)))


def side_vector(labels, partition) -> np.ndarray:
    """The ``±1`` vector (in the order of ``labels``) of a cut given as :func:`cut_value` accepts
    it; raises ValueError naming what is missing, repeated or unknown."""
    if hasattr(partition, "assignment"):
        partition = partition.assignment
    n = len(labels)
    if isinstance(partition, Mapping):
        missing = [lab for lab in labels if lab not in partition]
        if missing:
            raise ValueError(f"the partition does not place {len(missing)} node(s), e.g. {missing[0]!r}")
        a = np.array([partition[lab] for lab in labels], dtype=np.float64)
    elif isinstance(partition, (tuple, list)) and partition \
            and all(isinstance(part, AbstractSet) for part in partition) and len(partition) != 2:
        # networkx's communities (a list of sets): a cut has two of them
        k = len(partition)
        raise ValueError(f"the partition has {k} part{'s' if k != 1 else ''} (sets of nodes); a "
                         f"cut has two sides, (S, T)")
    elif (isinstance(partition, tuple) and len(partition) == 2
          and not isinstance(partition[0], (int, float, np.number))) \
            or (isinstance(partition, list) and len(partition) == 2
                and all(isinstance(part, AbstractSet) for part in partition)):
        S, T = set(partition[0]), set(partition[1])
        if S & T:
            raise ValueError(f"the two sides share {len(S & T)} node(s)")
        unknown = (S | T) - set(labels)
        if unknown:
            raise ValueError(f"the partition names {len(unknown)} node(s) not in the graph, "
                             f"e.g. {next(iter(unknown))!r}")
        if len(S) + len(T) != n:
            raise ValueError(f"the partition places {len(S) + len(T)} of {n} nodes")
        a = np.array([1.0 if lab in S else 0.0 for lab in labels])
    else:
        a = np.asarray(partition, dtype=np.float64).ravel()
        if a.size != n:
            raise ValueError(f"the partition has {a.size} entries for {n} nodes")
    if np.all(np.isin(a, (0.0, 1.0))):
        return 2.0 * a - 1.0
    if np.all(np.isin(a, (-1.0, 1.0))):
        return a
    raise ValueError("partition sides must be 0/1 or -1/+1")


def _check_int(name, v, lo):
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def _target(op, ub: float, prep) -> float:
    """A value no cut can exceed: ``ub`` less rounding slack, or ``ub`` rounded down to a
    multiple of the weights' granularity ``g`` (:func:`_granularity`; ``floor(ub)`` for
    integer weights whose greatest common power-of-two divisor is 1) when every cut is an exact
    multiple of ``g`` (all its partial sums below ``2^53 g``). Reaching it proves the cut
    optimal. Both are the same for the weights times any power of two."""
    tol = 1e-9 * max(1.0, abs(ub))
    data = getattr(prep, "data", None) if prep is not None else None
    if prep is not None and prep.backend == "numba-csr" and data is not None and data.size \
            and np.isfinite(ub):
        g = _granularity(data)
        if data.size * float(np.max(np.abs(data))) <= 2.0 ** 53 * g:
            return float(g * np.floor((ub + tol) / g))
    return ub - tol


def _granularity(data: np.ndarray) -> float:
    """The largest power of two of which every nonzero weight in ``data`` is an integer
    multiple: every cut is then one too. From the lowest set bit of each 53-bit mantissa.

    >>> [_granularity(np.array(w)) for w in ([3.0, 5.0], [0.75, 2.0], [4.0, 8.0])]
    [1.0, 0.25, 4.0]
    """
    mantissa, exponent = np.frexp(np.abs(data[data != 0]))
    if not mantissa.size:
        return np.inf
    M = np.ldexp(mantissa, 53).astype(np.int64)  # exactly: m = M 2^-53
    lowest = np.frexp((M & -M).astype(np.float64))[1] - 1  # M's lowest set bit, 2^lowest
    return float(np.ldexp(1.0, int(np.min(lowest + exponent)) - 53))


@dataclass(frozen=True)
class _Settings:
    """The checked options of :func:`solve_max_cut` / :func:`solve_max_bisection`."""

    rank: int | None
    tol: float
    max_iter: int
    n_hyperplanes: int
    seeds: int
    samples: int
    local_search: bool
    ls_starts: int
    time_limit: float | None
    certificate: object
    tabu_moves: int | None
    anneal_sweeps: object

    @classmethod
    def checked(cls, *, rank, tol, max_iter, n_hyperplanes, seeds, samples, local_search,
                ls_starts, time_limit, certificate, tabu_moves=None, anneal_sweeps=0):
        n_hyperplanes = _check_int("n_hyperplanes", n_hyperplanes, 0)
        seeds = _check_int("seeds", seeds, 0)
        samples = _check_int("samples", samples, 1)
        max_iter = _check_int("max_iter", max_iter, 1)
        tol = check_positive(tol, name="tol")
        if rank is not None:
            rank = _check_int("rank", rank, 1)
        if time_limit is not None and not (float(time_limit) >= 0):
            raise ValueError(f"time_limit must be a number of seconds >= 0 or None, "
                             f"got {time_limit!r}")
        if not (certificate is None or certificate is False
                or certificate in ("auto", "factor", "lanczos", "none")):
            raise ValueError(f"certificate must be 'auto', 'factor', 'lanczos', 'none' or False, "
                             f"got {certificate!r}")
        if tabu_moves is not None:
            tabu_moves = _check_int("tabu_moves", tabu_moves, 0)
        if anneal_sweeps is None or anneal_sweeps is False:
            anneal_sweeps = 0
        if anneal_sweeps != "auto":
            anneal_sweeps = _check_int("anneal_sweeps", anneal_sweeps, 0)
        return cls(rank, tol, max_iter, n_hyperplanes, seeds, samples, local_search, ls_starts,
                   time_limit, certificate, tabu_moves, anneal_sweeps)


# Copies of the n x rank Burer-Monteiro factor the solve holds at once (the factor, its
# gradient, the line search's trial point and the certificate's work), and of the n x samples
# rounding draws; bytes of float64 entries.
ENGINE_FACTOR_COPIES, ENGINE_SAMPLE_COPIES = 6, 3
# Copies of the rank x rank Gram matrix of the factor (the seed choice of the correlation
# rounding, V^T V): a rank above n grows it past the factor (rank=20,000 on 20 nodes held
# 3 GiB and died in rounding.py unpriced)
ENGINE_GRAM_COPIES = 3


def engine_bytes(n: int, *, rank: int | None = None, samples: int = 4,
                 anneal_sweeps=0) -> int:
    """Bytes of the options that grow the engine's arrays on ``n`` nodes: the Burer-Monteiro
    factors (``rank``, default :func:`~dpgraph.engine.sdp.sdp_rank`) and their ``rank x rank``
    Gram matrix, the rounding draws (``samples`` per seed assignment) and the annealing
    schedule (``anneal_sweeps``)."""
    from dpgraph.engine.sdp import sdp_rank

    r = sdp_rank(n) if rank is None else int(rank)
    sweeps = anneal_sweeps if isinstance(anneal_sweeps, (int, np.integer)) else 0
    return int(8 * n * (ENGINE_FACTOR_COPIES * r + ENGINE_SAMPLE_COPIES * int(samples))
               + 8 * ENGINE_GRAM_COPIES * r * r + 8 * int(sweeps))


def check_engine_memory(n: int, *, rank: int | None = None, samples: int = 4,
                        anneal_sweeps=0) -> None:
    """Refuse, before any array of the solve is allocated, engine options on ``n`` nodes that
    would not fit (``rank=10**6`` asked for 6 GiB on G3's 800 nodes), with numba's first load
    (:func:`~dpgraph.engine.local_search.kernel_load_bytes`) where no kernel has run in this
    process yet: the local search and the sparse certificate run numba kernels (a solve on an
    operator without an explicit matrix, which runs none, is priced with it too)."""
    from dpgraph.memory import available_memory, check_memory, format_bytes

    load = kernel_load_bytes()

    def cost(r, k=n, s=samples):
        return engine_bytes(k, rank=r, samples=s, anneal_sweeps=anneal_sweeps) + load

    # what fits: a lower rank where rank 1 fits at these options, else fewer samples where one
    # fits at this rank, else fewer nodes at them
    have = available_memory()
    if have is not None and cost(1) <= have:
        fit = (lambda r: cost(max(r, 1)), "At most rank={} fits with these samples and "
                                          "anneal_sweeps.")
    elif have is not None and cost(rank, s=1) <= have:
        fit = (lambda k: cost(rank, s=max(k, 1)), "At most samples={} fits with this rank and "
                                                  "anneal_sweeps.")
    else:
        fit = (lambda k: cost(rank, k), "At most {:,} nodes fit with these options.")
    check_memory(cost(rank),
                 what=(f"the Max-Cut engine on {n:,} nodes with "
                       f"{'the default rank' if rank is None else f'rank={rank}'}, "
                       f"samples={samples}, anneal_sweeps={anneal_sweeps!r}"
                       + (f" (numba's first load in this process, {format_bytes(load)}, "
                          f"included)" if load else "")),
                 alternative="Lower rank (the default is at most 32), samples or anneal_sweeps."
                             + (" DPGRAPH_NO_NUMBA=1 runs the local search without numba."
                                if load else ""),
                 fit=fit)


def check_solver_memory(n: int, options: dict) -> None:
    """:func:`check_engine_memory` for engine ``options`` as a caller passes them (only
    ``rank``, ``samples`` and ``anneal_sweeps`` are read, and checked as the engine checks
    them): what :func:`dpgraph.max_cut` refuses before its release."""
    rank = options.get("rank")
    rank = None if rank is None else _check_int("rank", rank, 1)
    samples = _check_int("samples", options.get("samples", 4), 1)
    sweeps = options.get("anneal_sweeps", 0)
    if sweeps not in (None, False, "auto"):
        sweeps = _check_int("anneal_sweeps", sweeps, 0)
    check_engine_memory(n, rank=rank, samples=samples, anneal_sweeps=sweeps or 0)


def _solve_cut(G, *, balanced, labels, rng, progress, warm_start, weight, **options):
    """:func:`solve_max_cut` / :func:`solve_max_bisection`: SDP, certificate, roundings, local
    search and improvement, each step timed in ``timings``."""
    t_start = time.perf_counter()
    opts = _Settings.checked(**options)
    timings = {}
    gen = make_rng(rng)
    t = time.perf_counter()
    n_input = input_node_count(G)
    if n_input is not None:  # before the input's conversion (its n-sized vectors) too
        check_engine_memory(n_input, rank=opts.rank, samples=opts.samples,
                            anneal_sweeps=opts.anneal_sweeps)
    if isinstance(G, WeightOperator):  # dpgraph's own operators (a release's, in row blocks)
        op, k = G, 0
    else:
        # weights times 2^k, largest near 1 (exact): the solve's tolerances are relative to 1
        op, k = normalized_operator(G, labels=labels, weight=weight)
    timings["input"] = time.perf_counter() - t
    # the defaults too (rank <= 32 and 4 samples are bounded per node, not in all: at n =
    # 30,000 the solve's traced peak is 46.9 MB against the 49.0 MB priced)
    check_engine_memory(op.n, rank=opts.rank, samples=opts.samples,
                        anneal_sweeps=opts.anneal_sweeps)
    if opts.seeds > 12:
        raise ValueError(f"seeds={opts.seeds} would enumerate 2**{opts.seeds} assignments; use at "
                         f"most 12")
    warm_start = _checked_warm_start(warm_start, op.n)

    def log(before, value, after):
        if progress:  # the value in the caller's units
            print(f"[dpgraph.engine] {before} {unscaled(value, k):.6g} {after}", file=sys.stderr)

    sol, ub, cert = _sdp_and_bound(op, opts, balanced, warm_start, gen, t_start, timings, log,
                                   progress, unscaled(1.0, k))
    cands, S = _roundings(op, sol, opts, balanced, gen, timings)
    prep = prepare(op) if opts.local_search else None
    # the default improvement (no time budget): a fixed annealing run from the best candidate
    annealing = (bool(opts.anneal_sweeps) and opts.local_search and opts.time_limit is None
                 and not balanced and prep is not None and prep.backend == "numba-csr"
                 and op.n >= 2)
    best, finals, ls_moves = _search_candidates(op, cands, opts, balanced, annealing, prep, gen,
                                                t_start, timings, ub)
    best, improve_info = _improve(op, best, finals, ub, opts, balanced, annealing, prep, gen,
                                  t_start, timings)
    res = _cut_result(op, best, sol, ub, cert, cands, S, finals, ls_moves, improve_info,
                      balanced, timings)
    return _in_weight_units(res, k)


def _checked_warm_start(warm_start, n: int):
    """``warm_start`` as the SDP's starting factor: an ``n x k`` array of real numbers (a
    previous result's ``V`` on the same graph), else None; anything else is refused naming
    ``warm_start`` (the SDP's own check spoke of ``V0``, and a dict or a partition reached
    ``float()``).

    >>> _checked_warm_start(np.ones((3, 2)), 3).shape
    (3, 2)
    >>> _checked_warm_start([1, -1, 1], 3)
    Traceback (most recent call last):
    ...
    ValueError: warm_start must be an n x k array (the SDP factor of a previous result on this graph, res.V) with n = 3 rows, got shape (3,); a cut is not a warm start
    """
    if warm_start is None:
        return None
    what = (f"warm_start must be an n x k array (the SDP factor of a previous result on this "
            f"graph, res.V) with n = {n} rows")
    if isinstance(warm_start, (Mapping, set, frozenset)):
        raise InvalidParameterError(f"{what}, got a {type(warm_start).__name__}; a cut or "
                                    f"partition is not a warm start")
    try:
        V = np.asarray(warm_start, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what}, got a {type(warm_start).__name__} that is not an "
                                    f"array of numbers (a cut or partition is not a warm "
                                    f"start)") from None
    if V.ndim != 2 or V.shape[0] != n:
        raise ValueError(f"{what}, got shape {V.shape}"
                         + ("; a cut is not a warm start" if V.ndim == 1 else ""))
    finite = bool(np.all(np.isfinite(V)))
    if V.shape[1] < 1 or not finite:
        raise ValueError(f"{what} of finite numbers and at least one column, got shape "
                         f"{V.shape}" + ("" if finite else " with NaN or inf"))
    return V


def _sdp_and_bound(op, opts, balanced, warm_start, gen, t_start, timings, log, progress, unit):
    """Steps 1-2: the low-rank SDP and its certified upper bound. With a time budget the SDP
    gets at most ``_SDP_SHARE`` of it and the certificate ``_CERT_SHARE`` (looser but still
    certified bounds); the rest goes to improving the cut."""
    t = time.perf_counter()
    time_limit = opts.time_limit
    remaining = None if time_limit is None else max(0.0, _SDP_SHARE * time_limit - (t - t_start))
    tol_sdp = opts.tol if time_limit is None else max(opts.tol, _TIME_LIMIT_TOL)
    sol = solve_lowrank_sdp(op, rank=opts.rank, V0=warm_start, balance=balanced, tol=tol_sdp,
                            max_iter=opts.max_iter, rng=gen, time_limit=remaining,
                            progress=progress, progress_unit=unit)
    timings["sdp"] = time.perf_counter() - t
    log("SDP value", sol.value, f"after {sol.iterations} iterations ({timings['sdp']:.2f}s)")
    t = time.perf_counter()
    certificate = opts.certificate
    if certificate is None or certificate is False or certificate == "none":
        ub = trivial_upper_bound(op) if hasattr(op, "W") else np.inf
        cert = {"certificate": "trivial (certificate=False)"}
    else:
        cap = None if time_limit is None else max(_CERT_SHARE * time_limit, 0.0)
        ub, cert = certify_upper_bound(op, sol.V, nu=sol.multiplier, balance=balanced,
                                       method=certificate, rng=gen, time_limit=cap)
        if balanced and ub > 1.01 * abs(sol.value) + 1e-9:
            # Max-Cut's dual bound holds for every bisection too; from the same V with nu = 0 it
            # is verified where the balanced dual is loose (a weighted 4,039-node graph: the
            # balanced bound fell back to the total weight, 1.67 times the SDP value)
            ub_cut, cert_cut = certify_upper_bound(op, sol.V, nu=0.0, balance=False,
                                                   method=certificate, rng=gen, time_limit=cap)
            if ub_cut < ub:
                ub, cert = ub_cut, dict(cert_cut, certificate=f"max-cut bound "
                                        f"({cert_cut['certificate']}), below the bisection's")
    timings["certificate"] = time.perf_counter() - t
    log("certified upper bound", ub, f"({cert['certificate']}, {timings['certificate']:.2f}s)")
    return sol, ub, cert


def _roundings(op, sol, opts, balanced, gen, timings):
    """Step 3: the best Goemans-Williamson hyperplanes (the ``ls_starts`` best, for local
    search) and global correlation rounding; balanced by :func:`rebalance` for bisection."""
    t = time.perf_counter()
    cands = {}
    if opts.n_hyperplanes:
        K = max(1, min(int(opts.ls_starts), opts.n_hyperplanes)) if opts.local_search else 1
        Xh, vh, allv = hyperplane_round(op, sol.V, opts.n_hyperplanes, gen, balanced=balanced,
                                        keep=max(K, 2))
        for r in range(min(K, Xh.shape[1])):  # keep >= 2 always returns a matrix
            xh, v = Xh[:, r], float(vh[r])
            if balanced:
                xh, _ = rebalance(op, xh)
                v = float(cut_values(op, xh))
            cands["hyperplane" if r == 0 else f"hyperplane#{r + 1}"] = (xh, v)
    timings["hyperplane"] = time.perf_counter() - t
    t = time.perf_counter()
    xc, vc, S = correlation_round(op, sol.V, opts.seeds, gen, samples=opts.samples,
                                  balanced=balanced)
    if balanced:
        xc, _ = rebalance(op, xc)
        vc = float(cut_values(op, xc))
    cands["correlation"] = (xc, vc)
    timings["correlation"] = time.perf_counter() - t
    return cands, S


def _search_candidates(op, cands, opts, balanced, annealing, prep, gen, t_start, timings,
                       ub=np.inf):
    """Step 4: local search on each candidate (1-flip / swap descent, then a short tabu
    search); returns the best ``(x, value, label)``, every rounding after it (the private
    solvers choose among them) and the moves per candidate. The tabu search stops at the
    certified bound ``ub`` (:func:`_target`): a candidate that already meets it is optimal,
    and its 10 n moves cost O(deg log n) each (a star's centre: O(n log n) per flip; 105 of the
    295 s of solve_max_bisection on a star of 10^6 leaves, every candidate optimal)."""
    t = time.perf_counter()
    n, time_limit, tabu_moves = op.n, opts.time_limit, opts.tabu_moves
    if annealing and tabu_moves is None:
        tabu_moves = 0  # its tabu search runs once, from the annealed cut (step 5)
    if tabu_moves is None:
        # default: 10 n tabu moves per candidate when numba is there, else none; with a time
        # budget none either: the improvement phase makes better use of the time (annealing
        # beats per-candidate tabu search per second on G3, G35, G81: BENCHMARKS.md)
        tabu_moves = 10 * n if (prep is not None and prep.backend != "numpy"
                                and time_limit is None) else 0
    best, ls_moves, finals = None, {}, []
    target = _target(op, ub, prep) if tabu_moves and opts.local_search else None
    # with a time budget the per-candidate descent stops at _LS_SHARE of it (the NumPy swap
    # descent is O(n) per move); the improvement phase, which keeps its own clock, gets the rest
    ls_deadline = None if time_limit is None else t_start + _LS_SHARE * time_limit
    for name, (x0, v0) in cands.items():
        name = name.split("#")[0]
        if opts.local_search:
            if balanced:
                x1, moves = swap_local_search(op, x0, deadline=ls_deadline)
            else:
                x1, moves = flip_local_search(op, x0)
            if tabu_moves:
                tr = tabu_search(op, x1, balanced=balanced, max_moves=tabu_moves, rng=gen,
                                 prepared=prep, target=target)
                x1, moves = tr.x, moves + tr.moves
            v1 = float(cut_values(op, x1))
            ls_moves[name] = ls_moves.get(name, 0) + moves
            label = name + ("+local search" if v1 > v0 else "")
        else:
            x1, v1, label = x0, v0, name
        finals.append(np.asarray(x1, dtype=np.int8))
        if best is None or v1 > best[1]:
            best = (x1, v1, label)
    timings["local_search"] = time.perf_counter() - t
    return best, finals, ls_moves


def _improve(op, best, finals, ub, opts, balanced, annealing, prep, gen, t_start, timings):
    """Step 5: from the best cut, a fixed-length annealing + tabu search (no time budget), or
    annealing + tabu search until the budget is spent; nothing once the cut meets the certified
    bound (with integer weights, ``floor(bound)``). Appends to ``finals``."""
    improve_info = None
    if annealing:
        t = time.perf_counter()
        target = _target(op, ub, prep)
        if best[1] < target:
            n = op.n
            sweeps = (auto_sweeps(n, op.nnz) if opts.anneal_sweeps == "auto"
                      else opts.anneal_sweeps)
            xa, va, _ = anneal(op, best[0], sweeps=sweeps, rng=gen, prepared=prep)
            tr = tabu_search(op, xa, max_moves=10 * n, rng=gen, prepared=prep, target=target)
            x2, v2 = (tr.x, tr.value) if tr.value > va else (xa, va)
            improve_info = {"method": "anneal+tabu", "sweeps": int(sweeps),
                            "anneal_value": float(va), "moves": tr.moves,
                            "seconds": time.perf_counter() - t}
            finals.append(np.asarray(x2, dtype=np.int8))
            if v2 > best[1]:
                best = (x2, v2, best[2].split("+")[0] + "+anneal+tabu")
        timings["improve"] = time.perf_counter() - t
    if opts.local_search and opts.time_limit is not None:
        t = time.perf_counter()
        left = opts.time_limit - (t - t_start)
        target = _target(op, ub, prep)
        if left > 0 and best[1] < target:
            x2, v2, improve_info = improve_cut(op, best[0], balanced=balanced, time_limit=left,
                                               rng=gen, prepared=prep, target=target)
            finals.append(np.asarray(x2, dtype=np.int8))
            if v2 > best[1]:
                best = (x2, v2, best[2].split("+")[0] + "+" + improve_info["method"])
        timings["improve"] = time.perf_counter() - t
    return best, improve_info


def _cut_result(op, best, sol, ub, cert, cands, S, finals, ls_moves, improve_info, balanced,
                timings) -> "CutResult":
    """The :class:`CutResult` of the best cut, its value recomputed from scratch (no drift from
    incremental updates) and its certified gap."""
    x, value, winner = best
    value = float(cut_values(op, x))
    pos = {op.labels[i] for i in np.flatnonzero(x > 0)}
    neg = {op.labels[i] for i in np.flatnonzero(x < 0)}
    assignment = {lab: int(xi > 0) for lab, xi in zip(op.labels, x)}
    denom = max(abs(ub), 1e-300)
    scale = op.abs_total()  # 2 x total |weight|
    # gaps below 1e-12 of the total weight are rounding noise (e.g. all-zero weights): report 0
    gap = 0.0 if ub - value <= 1e-12 * scale or scale == 0 else (ub - value) / denom
    info = dict(problem="max-bisection" if balanced else "max-cut", n=op.n, nnz=op.nnz,
                dense_input=op.is_dense, rank=sol.V.shape[1], iterations=sol.iterations,
                converged=sol.converged, products=sol.products, grad_norm=sol.grad_norm,
                sdp_gap=(ub - sol.value) / denom if ub != 0 or sol.value != 0 else 0.0,
                candidates={k: v for k, (_, v) in cands.items() if "#" not in k},
                local_search_moves=ls_moves, rounded=np.stack(finals, axis=1),
                improve=improve_info,
                seeds=S, **cert)
    if balanced:
        info.update(multiplier=sol.multiplier, imbalance=sol.imbalance)
        if abs(int(round(x.sum()))) > 1:  # every step keeps balance exactly; never expected
            raise RuntimeError("internal error: the bisection returned is unbalanced")
    return CutResult(partition=(pos, neg), assignment=assignment, x=x, value=value,
                     sdp_value=float(sol.value), upper_bound=float(ub), gap=float(gap),
                     rounding=winner, timings=timings, info=info, V=sol.V)


def _in_weight_units(res: CutResult, k: int) -> CutResult:
    r"""``res``, solved on the weights times :math:`2^k`, in the caller's units: every value in
    weight units (the cut, the SDP value, the bound, the candidates' and the annealing's cuts,
    the ``info`` entries of :data:`~dpgraph.engine.operator.WEIGHT_UNIT_INFO`) times
    :math:`2^{-k}` (:func:`~dpgraph.engine.operator.unscaled`; the bound rounded up where it
    is subnormal). ``gap`` and ``sdp_gap`` are ratios, ``imbalance`` is in the units of X,
    the moves and iterations are counts, ``V`` is unit vectors: unchanged."""
    if k == 0:
        return res

    def back(v):
        return unscaled(v, k)

    res.value, res.sdp_value = back(res.value), back(res.sdp_value)
    res.upper_bound = unscaled(res.upper_bound, k, upper=True)
    info = res.info
    for key in WEIGHT_UNIT_INFO:
        if info.get(key) is not None:
            info[key] = back(info[key])
    info["candidates"] = {name: back(v) for name, v in info["candidates"].items()}
    improve = info.get("improve") or {}
    if "anneal_value" in improve:
        improve["anneal_value"] = back(improve["anneal_value"])
    if "anneal_values" in improve:  # bisection's two annealed cuts
        improve["anneal_values"] = {name: back(v) for name, v in improve["anneal_values"].items()}
    return res


_DOC_PARAMS = """
    Parameters
    ----------
    G : graph or symmetric weight matrix
        Anything :func:`dpgraph.graph.as_graph_data` accepts (GraphData, NetworkX, igraph, edge
        iterable), or a symmetric ``numpy.ndarray`` / SciPy sparse weight matrix (the diagonal is
        ignored). A dense ndarray is used in place, never converted to sparse.
    labels : sequence, optional
        Node labels for matrix input (default ``0..n-1``).
    rank : int, optional
        Burer-Monteiro rank (default ``min(ceil(sqrt(2n)) + 1, 32)``).
    tol : float
        Solver tolerance (relative objective change and scaled gradient norm; > 0).
    max_iter : int
        Maximum gradient iterations of the SDP solver (>= 1).
    rng : None, int or numpy.random.Generator
        Randomness for the initial point, hyperplanes and seeds.
    n_hyperplanes : int
        Number of Goemans-Williamson hyperplanes (best kept); 0 disables.
    seeds : int
        Number of seed variables for global correlation rounding (2**seeds assignments enumerated).
    samples : int
        Independent roundings per seed assignment.
    local_search : bool
        Run local search on every rounding candidate.
    ls_starts : int
        Local search starts from the ``ls_starts`` best hyperplane roundings (plus the correlation
        rounding); the best result is kept.
    time_limit : float, optional
        Seconds for the whole solve. The SDP gets at most a fifth of it (solved to
        ``max(tol, 1e-3)``; its last iterate is certified when the time is up), the
        certificate a tenth (past that it returns the best
        verified bound so far, looser but still rigorous; ``info['certificate']`` then says
        ``(time cap)``), and whatever is left after the roundings and their descent goes to
        improving the best cut: simulated annealing on the clock followed by tabu search
        (sparse input, numba installed), tabu search otherwise (:mod:`dpgraph.engine.local_search`).
        It stops early when the cut reaches the certified bound (``floor`` of it for integer
        weights): the cut is then optimal. Respected loosely (a factorization in progress is
        not interrupted). ``None``: no budget; every candidate gets ``tabu_moves`` tabu moves and no more. The
        numba kernels are compiled on first use and cached on disk (once per installation);
        loading them costs a fraction of a second in each new process.
    tabu_moves : int, optional
        Tabu-search moves from each rounding candidate after its descent (default ``10 n`` when
        numba is installed and there is no ``time_limit``, else 0; 0 for Max-Cut while
        ``anneal_sweeps`` runs, whose tabu search starts from the annealed cut instead).
    progress : bool
        Print progress to stderr.
    certificate : {"auto", "factor", "lanczos", "none"} or False
        How the dual bound is certified (see :func:`dpgraph.engine.certify_upper_bound`).
        ``False`` / ``"none"``: no dual certificate, for callers who want only the cut (the
        private solvers certify only the objective they return); ``upper_bound`` is then the
        sum of the positive weights (:func:`dpgraph.engine.sdp.trivial_upper_bound`), still a
        rigorous bound but a loose one.
    warm_start : ndarray, optional
        An ``n x k`` factor, e.g. ``previous_result.V``.
    weight : str or None
        Edge attribute holding the weight for NetworkX / igraph input; ``None`` gives every
        edge weight 1 (NetworkX's ``weight=None``).
"""


def solve_max_cut(G, *, labels: Sequence[Hashable] | None = None, rank: int | None = None,
                  tol: float = 1e-6, max_iter: int = 5000, rng=None, n_hyperplanes: int = 128,
                  seeds: int = 4, samples: int = 4, local_search: bool = True, ls_starts: int = 8,
                  time_limit: float | None = None, progress: bool = False,
                  certificate: str | bool = "auto", warm_start: np.ndarray | None = None,
                  weight: str | None = "weight", tabu_moves: int | None = None,
                  anneal_sweeps: str | int | None = "auto") -> CutResult:
    return _solve_cut(G, balanced=False, tabu_moves=tabu_moves, labels=labels, rank=rank, tol=tol, max_iter=max_iter, rng=rng,
                      n_hyperplanes=n_hyperplanes, seeds=seeds, samples=samples, local_search=local_search,
                      ls_starts=ls_starts, time_limit=time_limit, progress=progress, certificate=certificate,
                      warm_start=warm_start, weight=weight, anneal_sweeps=anneal_sweeps)


def solve_max_bisection(G, *, labels: Sequence[Hashable] | None = None, rank: int | None = None,
                        tol: float = 1e-6, max_iter: int = 10000, rng=None,
                        n_hyperplanes: int = 128, seeds: int = 4, samples: int = 4,
                        local_search: bool = True, ls_starts: int = 8,
                        time_limit: float | None = None, progress: bool = False,
                        certificate: str | bool = "auto", warm_start: np.ndarray | None = None,
                        weight: str | None = "weight", tabu_moves: int | None = None) -> CutResult:
    return _solve_cut(G, balanced=True, tabu_moves=tabu_moves, labels=labels, rank=rank, tol=tol, max_iter=max_iter, rng=rng,
                      n_hyperplanes=n_hyperplanes, seeds=seeds, samples=samples, local_search=local_search,
                      ls_starts=ls_starts, time_limit=time_limit, progress=progress, certificate=certificate,
                      warm_start=warm_start, weight=weight)


solve_max_cut.__doc__ = r"""Max-Cut by degree-2 SoS: low-rank SDP, certified bound, rounding, local search.

    Maximises :math:`\sum_{i<j} W_{ij}\,[x_i \ne x_j]` over :math:`x \in \{\pm 1\}^n` (signed
    weights allowed). Follows d'Orsi-Novikov Sec. 7.1: the degree-2 SoS relaxation, independent
    rounding (Alg. 7.4) after global correlation conditioning (Lemma 7.6, Barak-Raghavendra-
    Steurer), alongside Goemans-Williamson hyperplane rounding, then single-flip local search.
""" + _DOC_PARAMS + r"""    anneal_sweeps : "auto", int or None
        Without ``time_limit``, on a sparse graph with numba: the best rounded cut is improved
        by simulated annealing over this many sweeps (a fixed schedule, so the result depends
        on ``rng`` only, not on the clock) and then ``10 n`` tabu-search moves. ``"auto"``
        (default): :func:`auto_sweeps`, about ``3e8 / (n + nnz)`` sweeps in [100, 10000]
        (G81: 3,000 sweeps, about 2 s here, 0.991 of the best known cut instead of 0.947);
        ``0`` or ``None``: the per-candidate tabu search of ``tabu_moves`` instead.

    Returns
    -------
    CutResult
        ``value <= upper_bound`` always; ``upper_bound`` is certified (``info['certificate']``).

    Raises
    ------
    ValueError
        Non-finite or non-symmetric weights, an empty graph, bad parameters.

    Examples
    --------
    >>> import networkx as nx
    >>> res = solve_max_cut(nx.cycle_graph(6), rng=0)
    >>> res.value, round(res.upper_bound, 3)
    (6.0, 6.0)
"""

solve_max_bisection.__doc__ = r"""Max-Bisection by degree-2 SoS with the balance constraint.

    Maximises the cut over :math:`x \in \{\pm1\}^n` with :math:`|\sum_i x_i| \le 1`. The relaxation
    adds :math:`\langle J, X\rangle = n \bmod 2` (augmented Lagrangian in the low-rank solver; its
    multiplier enters the certified dual bound). Rounding: median-threshold hyperplanes and global
    correlation rounding, each rebalanced, then swap local search (d'Orsi-Novikov Sec. 7.1,
    Thm 7.19's bisection setting).
""" + _DOC_PARAMS + r"""
    Returns
    -------
    CutResult
        The partition satisfies ``abs(len(L) - len(R)) <= 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> res = solve_max_bisection(nx.complete_bipartite_graph(3, 3), rng=0)
    >>> res.value, sorted(map(len, res.partition))
    (9.0, [3, 3])
"""
