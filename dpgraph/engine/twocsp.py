r"""Max-2-CSP over alphabet [q]: instances, label-extended graph, degree-2 SoS, rounding.

An instance has variables :math:`x_1..x_n \in [q] = \{0, .., q-1\}` and weighted constraints
:math:`(i, j, R, w)` with :math:`R \subseteq [q]^2`; the value of an assignment is
:math:`\sum w\,[(x_i, x_j) \in R]`.

Degree-2 relaxation (d'Orsi-Novikov Sec. 7.1, system (7.1) on the label-extended variables
:math:`x_{ia} = [x_i = a]`): a moment matrix Y indexed by :math:`\{\emptyset\}\cup[n]\times[q]`,

.. math::
   Y \succeq 0,\ Y_{\emptyset\emptyset} = 1,\ Y_{ia,ia} = Y_{\emptyset,ia},\ Y_{ia,ib} = 0\ (a\ne b),\
   \textstyle\sum_a Y_{\emptyset,ia} = 1,\ Y_{ia,jb} \ge 0 \text{ on constraint blocks},

maximising :math:`\sum_c w_c \sum_{(a,b)\in R_c} Y_{ia,jb}`. (With PSD-ness these imply
:math:`\sum_a v_{ia} = v_\emptyset` for the Gram vectors, hence all the degree-2 consequences of
:math:`\sum_a x_{ia} = 1`; the non-negativity makes every constraint block a valid local
distribution :math:`\mu_{ij}(a, b) = Y_{ia,jb}`.)

Solvers: by default the low-rank solver of :mod:`dpgraph.engine.twocsp_sdp` (the same moment
matrix with the per-variable constraints only, never formed; certified in reduced coordinates;
large n). ``method="scs"``: CVXPY + SCS on the system above (with the non-negativity; first-order
conic, nq up to a few hundred), certified as follows. Certified bound from any
multipliers (we use SCS's duals) :math:`\lambda` (equalities) and
:math:`z \ge 0` (non-negativity): with :math:`S = C - \sum_k \lambda_k A_k + Z(z)`,
:math:`\langle C, Y\rangle \le b^T\lambda + (n+1)\,\lambda_{\max}(S)` for every feasible Y, because
:math:`\langle Z, Y\rangle \ge 0` and :math:`\mathrm{tr}\,Y = 1 + \sum_{i,a} Y_{\emptyset,ia} = n + 1`;
:math:`\lambda_{\max}` is verified by Cholesky with Rump's rounding margin (as for Max-Cut).

Rounding: independent rounding from the marginals :math:`p_i(a) = Y_{\emptyset,ia}` (Alg. 7.4),
after global-correlation conditioning (Barak-Raghavendra-Steurer; Lemma 7.6): seeds drawn by
global correlation, every seed assignment enumerated, the degree-2 conditionals
:math:`p_j(b \mid x_s = a) = Y_{sa,jb} / Y_{\emptyset,sa}` combined over the seeds; then
single-variable local search with gains from the label-extended graph.

Instances are read and written by :mod:`dpgraph.engine.formats` (``read_csp``, ``write_csp``).
"""

from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from dpgraph.result import EngineResult
from dpgraph.graph import GraphData
from dpgraph.memory import InsufficientMemoryError, check_memory, format_bytes, memory_limit
from dpgraph.privacy.noise import make_rng
from dpgraph.privacy.validation import check_integer, check_positive
from dpgraph.engine.operator import (WEIGHT_UNIT_INFO, check_weight_scale, normalizing_exponent,
                                     unscaled)
from dpgraph.engine.sdp import upward_sum, verified_lambda_max
from dpgraph.engine.twocsp_sdp import solve_label_csp

_EPS = np.finfo(np.float64).eps / 2  # unit roundoff u = 2^-53 (the certificate's rounding)
_ETA = 2.0 ** -1074  # the smallest subnormal

__all__ = ["CSPInstance", "CSPResult", "solve_max_2csp", "instance_bytes", "label_graph_bytes",
           "check_label_graph_memory", "label_engine_bytes", "check_label_engine_memory",
           "label_certificate_method", "label_certificate_bytes", "label_candidates",
           "csp_moment_constraints", "cvxpy_max_2csp_sdp"]


# Bytes a constraint with a relation of its own costs per cell of its q x q relation: the
# relation matrix (built, then stacked: 16 B) and its allowed pairs as a frozenset of int
# tuples. Measured 244-282 B per cell for full relations at q = 30, 200 and 300 with two
# frozensets of pairs per constraint, 81 B traced for half-full ones at q = 30 with one;
# rounded up.
BYTES_PER_RELATION_CELL = 320
# Bytes of a constraint whose relation an earlier constraint holds (constraints with equal
# relations share one, its matrix and its pairs), besides its row of the stacked relation
# matrices (8 B per cell): the (i, j, pairs, weight) tuple, its integers and float, the list
# slots that gather them and the stacked index and weight arrays. max_k_cut_instance on
# 10^5 edges, its own arrays included, per edge: Python's traced peak 321 B at k = 2 (324 at
# 10^6 edges), 360 at k = 3, 488 at k = 5, 1,088 at k = 10 (289 B besides the row, at every
# k); its peak RSS 205-250 B at k = 2. Rounded up (benchmarks/NOTES.md, "One relation for all
# of Max-k-Cut's edges").
CONSTRAINT_SHARED_BYTES = 384
# Bytes of the label-extended adjacency per allowed pair of a constraint: the COO index arrays
# of both directions and the CSR (measured 128-130 B); rounded up.
BYTES_PER_LABEL_PAIR = 160


def instance_bytes(m: int, q: int, relations: int | None = None) -> int:
    """Bytes :class:`CSPInstance` holds (and builds on the way) for ``m`` constraints over an
    alphabet of ``q`` values among which ``relations`` distinct relations (default ``m``: each
    constraint its own dense ``q x q`` relation, the worst case); a constraint whose relation
    an earlier one holds costs ``CONSTRAINT_SHARED_BYTES`` and its row of the stacked
    relation matrices (8 B per cell).

    >>> instance_bytes(10, 3)          # ten relations of 9 cells, 320 B each
    28800
    >>> instance_bytes(10, 3, 1)       # one relation, nine constraints sharing it
    6984
    """
    m, q = int(m), int(q)
    relations = m if relations is None else min(int(relations), m)
    return (relations * q * q * BYTES_PER_RELATION_CELL
            + (m - relations) * (CONSTRAINT_SHARED_BYTES + 8 * q * q))


def check_label_graph_memory(n: int, q: int, pairs: int, *, name_size: bool = True,
                             alongside: int = 0) -> None:
    """Refuse a label-extended graph of ``n`` variables, ``q`` values and ``pairs`` allowed label
    pairs that would not fit (:func:`label_graph_bytes`), before it is allocated, together with
    ``alongside`` bytes held while it is (a caller's other arrays, priced from public values).
    ``name_size=False`` (the private answers, where ``pairs`` follows the private constraints):
    the refusal names neither ``pairs`` nor the bytes it asks, which would tell two neighbouring
    instances either side of the limit apart by the number (docs/privacy.md 11.1).

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "1K"}):
    ...     try:
    ...         check_label_graph_memory(40, 3, 240, name_size=False)
    ...     except MemoryError as exc:
    ...         print(str(exc)[:90])
    the label-extended graph of 40 variables x 3 values (one node per variable and value, an e
    """
    need = label_graph_bytes(n, q, pairs) + int(alongside)
    beside = (f" alongside {format_bytes(alongside)} of other arrays priced from public sizes"
              if alongside else "")
    if name_size:
        check_memory(need, what=f"the label-extended graph of {n:,} variables x {q:,} values "
                                f"({pairs:,} allowed label pairs){beside}")
        return
    have, where = memory_limit()
    if have is not None and need > have:
        raise InsufficientMemoryError(
            f"the label-extended graph of {n:,} variables x {q:,} values (one node per "
            f"variable and value, an edge per allowed label pair of each constraint){beside} "
            f"does not fit in the {format_bytes(have)} {where}; nothing was allocated or spent. "
            f"Its size follows the constraints, which are private, so none is printed: fewer "
            f"constraints, smaller relations, or a machine with more memory would fit.")


def label_graph_bytes(n: int, q: int, pairs: int) -> int:
    """Bytes of the label-extended graph of ``n`` variables over ``q`` values with ``pairs``
    allowed label pairs in all (:meth:`CSPInstance.label_adjacency`), with the ``n q``-sized
    vectors of the local route that reads it, or the ``(i, a)`` labels of
    :meth:`CSPInstance.label_extended_graph` (about 160 B per vertex in all)."""
    return int(pairs) * BYTES_PER_LABEL_PAIR + 160 * int(n) * int(q)


# Copies of the n x q x rank label factor the low-rank solve holds at once (U, G, V, their
# gradients, the line search's trial point and A V: about 10 measured at rank 300 and 1,000 on
# 3,000 variables x 3 values), and of its rank x rank Gram matrix (the seed choice).
LABEL_FACTOR_COPIES, LABEL_GRAM_COPIES = 12, 2
# Bytes of the rounding per candidate assignment and variable: the candidates (int64, drawn,
# stacked, made unique and pooled) and, per value, the two float64 n q x candidates matrices
# of their values (samples=2,000 on 3,000 variables x 3 values, 6,565 candidates, held
# 1.1 GiB); and per candidate, max_2csp's pool of them (a key and a view per row).
LABEL_CANDIDATE_BYTES, LABEL_CANDIDATE_VALUE_BYTES, LABEL_CANDIDATE_ROW_BYTES = 40, 16, 256
# Bytes per candidate and variable that a finished solve leaves held while max_2csp solves its
# next objective and pools them all: its distinct candidates (``rounded``, int64), then in the
# pool each one's key (its bytes) and its stacked row (int64); per candidate, the pool's
# LABEL_CANDIDATE_ROW_BYTES. A finished solve also holds its n x q x rank factor (``solution``).
# The values and the draws' copies are freed with the solve: they are priced once.
LABEL_POOLED_BYTES = 3 * 8
# Vector-rounding draws of the low-rank rounding (round_label_sdp's vector_samples).
LABEL_VECTOR_SAMPLES = 64
# Bytes per entry of the (n q + 1) x (n q + 1) moment matrix under CVXPY + SCS, its
# canonicalization and factorization (680 measured at n q + 1 = 601 and 1,201); rounded up.
SCS_BYTES_PER_MOMENT = 768


#: Candidates a low-rank solve adds to its rounding's after it: the local search of the best few
#: (``polish``, 4 by default), the perturbed search's and the tabu search's results.
LABEL_POLISHED_CANDIDATES = 6


def label_candidates(n: int, q: int, *, samples: int = 16, seeds: int = 2) -> int:
    """Candidate assignments one low-rank solve of :func:`solve_max_2csp` (or
    :func:`~dpgraph.engine.twocsp_sdp.solve_label_csp`) draws, counted before de-duplication
    (an upper bound): the marginals' argmax, ``samples`` independent roundings,
    ``LABEL_VECTOR_SAMPLES`` vector roundings, and ``max(samples // 4, 2)`` for each of the
    ``q**seeds`` seed assignments of the global-correlation rounding. The local searches after
    it add at most ``LABEL_POLISHED_CANDIDATES``.

    >>> label_candidates(100, 3, samples=32)  # 1 + 32 + 64 + 9 * 8
    169
    """
    n, q, samples = int(n), int(q), int(samples)
    assignments = q ** min(int(seeds), n) if seeds and n > 1 and q > 1 else 0
    return 1 + samples + LABEL_VECTOR_SAMPLES + assignments * max(samples // 4, 2)


def label_engine_bytes(n: int, q: int, *, m: int = 0, method: str = "lowrank",
                       rank: int | None = None, samples: int = 16, seeds: int = 2,
                       objectives: int = 1) -> int:
    """Bytes :func:`solve_max_2csp` (``method``) works in on ``n`` variables over ``q`` values
    and ``m`` constraints, beyond the label-extended graph: the relaxation (``"lowrank"``: the
    ``n x q x rank`` factor and its Gram matrix, ``rank`` default
    :func:`~dpgraph.engine.twocsp_sdp.default_label_rank`; ``"scs"``: the moment matrix) and
    the rounding's candidates (``samples`` per seed assignment, ``q**seeds`` of them, counted
    before de-duplication: an upper bound).

    ``objectives`` solves one after another whose candidates are pooled
    (:func:`dpgraph.max_2csp`): the working set of one solve, plus what each of the
    ``objectives - 1`` others leaves held for the pool (its factor, and
    ``LABEL_POOLED_BYTES`` per candidate and variable with ``LABEL_CANDIDATE_ROW_BYTES`` per
    candidate); the working set of a solve is freed before the next begins.

    >>> label_engine_bytes(3000, 3, samples=2000) > 2**30  # 1.1 GiB measured
    True
    >>> label_engine_bytes(3000, 3) < 2**27
    True
    >>> one, two = (label_engine_bytes(30, 3, samples=5000, objectives=k) for k in (1, 2))
    >>> 0 < two - one < one  # a further objective holds its candidates, not a second solve
    True
    """
    n, q, samples = int(n), int(q), int(samples)
    assignments = q ** min(int(seeds), n) if seeds and n > 1 and q > 1 else 0
    if method == "scs":  # _correlation_round: samples each, values read per constraint
        cands = samples * (1 + assignments)
        return SCS_BYTES_PER_MOMENT * (n * q + 1) ** 2 + cands * (8 * n + 32 * int(m))
    from dpgraph.engine.twocsp_sdp import default_label_rank

    k = default_label_rank(n, q) if rank is None else int(rank)
    cands = label_candidates(n, q, samples=samples, seeds=seeds)
    solve = (8 * (LABEL_FACTOR_COPIES * n * q * k + LABEL_GRAM_COPIES * k * k)
             + cands * (n * (LABEL_CANDIDATE_BYTES + LABEL_CANDIDATE_VALUE_BYTES * q)
                        + LABEL_CANDIDATE_ROW_BYTES))
    held = 8 * n * q * k + cands * (LABEL_POOLED_BYTES * n + LABEL_CANDIDATE_ROW_BYTES)
    return solve + (max(int(objectives), 1) - 1) * held


# The certificate of a dense label objective (every one of its N^2 = (n q)^2 entries stored, as
# the objectives of a private release are), in bytes per entry of the objective and per entry
# of the reduced N_r x N_r dual matrix (N_r = n (q - 1) + 1). Measured with tracemalloc, the
# certificate's peak above the objective and the factor it certifies, on dense random objectives
# at (n, q) = (300, 2), (300, 3), (200, 4), (100, 5), (60, 10): its last phase, the rounding
# allowance (:func:`~dpgraph.engine.twocsp_sdp._dual_allowance`: the objective as a sparse
# matrix, its absolute value, the weight classes of its entries and their Python lists, with
# the reduced objective and S held), peaked at 58-104 B per N^2, that is 48-72 B per N^2 beyond
# the reduced objective and S (16 B per N_r^2 each) and the dense copy (8 B per N_r^2); priced
# 40 B per N^2 and 88 B per N_r^2 (held and transient together), 1.04-1.13 times what was
# measured. The reduction itself (the objective made sparse, bordered and multiplied by the
# reduction, 56-58 B per N^2) is below that price wherever N_r >= N / 2, that is always.
LABEL_CERTIFICATE_ENTRY_BYTES, LABEL_CERTIFICATE_DUAL_BYTES = 40, 88
# The reduced objective and S held while a proof runs (8 B per N_r^2 more for the dense copy
# taken before the proof starts), and while the multipliers are fitted (the reduced objective
# only, 16 B per N_r^2).
LABEL_CERTIFICATE_HELD_BYTES, LABEL_CERTIFICATE_FIT_HELD_BYTES = 40, 16
# The sparse LDL^T proof of the dense dual matrix, per entry of N_r x N_r: its factors fill
# completely (L and U, half of the entries each), and -S in CSC, its Gershgorin bound's copies
# and SciPy's copies of L and U come with them: 110 B traced at (n, q) = (80, 8), 97 B of peak
# RSS at (750, 3) (``SPARSE_FACTOR_ENTRY_BYTES``' 48 B per factor entry of
# :func:`~dpgraph.engine.sdp.ldl_memory_estimate`, measured on sparse graphs, falls short here).
LABEL_DENSE_LDL_BYTES = 120
# Python objects of any certificate (the multipliers' index lists, the info dict): 28 KiB
# traced beyond the arrays at n = 10, q = 3.
LABEL_CERTIFICATE_FIXED_BYTES = 64 * 2**10


def label_certificate_method(n: int, q: int, certificate: str = "auto") -> str:
    """The proof :func:`~dpgraph.engine.twocsp_sdp.certify_label_sdp` is asked to run on ``n``
    variables over ``q`` values, from public values only: ``certificate`` itself, or for
    ``"auto"`` the dense Cholesky (``"factor"``) up to ``N_r = n(q-1) + 1 =``
    ``LABEL_DENSE_CERTIFICATE_MAX_N`` and the sparse :math:`LDL^T` (``"ldl"``) above it. The
    engine's ``"auto"`` also reads the memory left and the dual matrix's pattern when it runs;
    a caller that prices the proof beforehand (:func:`dpgraph.max_2csp`) asks for this one.

    >>> label_certificate_method(300, 3), label_certificate_method(5000, 3)
    ('factor', 'ldl')
    >>> label_certificate_method(300, 3, "lanczos")
    'lanczos'
    """
    from dpgraph.engine.twocsp_sdp import LABEL_DENSE_CERTIFICATE_MAX_N

    if certificate not in ("auto", "factor", "ldl", "lanczos"):
        raise ValueError(f"certificate={certificate!r} is not one of 'auto', 'factor', 'ldl', "
                         f"'lanczos'")
    if certificate != "auto":
        return certificate
    return "factor" if int(n) * (int(q) - 1) + 1 <= LABEL_DENSE_CERTIFICATE_MAX_N else "ldl"


def label_certificate_bytes(n: int, q: int, *, method: str = "factor",
                            rank: int | None = None) -> int:
    r"""Bytes :func:`~dpgraph.engine.twocsp_sdp.certify_label_sdp` works in on a dense objective
    of ``n`` variables over ``q`` values (all :math:`N^2` entries stored, :math:`N = nq`), beyond
    the objective and the factor it certifies, at the peak of its phases, with
    :math:`N_r = n(q-1) + 1`, :math:`r = q - 1`, :math:`\nu = r + r(r-1)/2` multipliers per
    variable and the factor width ``k`` (``rank``, default
    :func:`~dpgraph.engine.twocsp_sdp.default_label_rank`):

    * the reduction and the rounding allowance:
      ``LABEL_CERTIFICATE_ENTRY_BYTES`` :math:`N^2 +` ``LABEL_CERTIFICATE_DUAL_BYTES`` :math:`N_r^2`;
    * the multiplier fit: the reduced objective (16 B per :math:`N_r^2`) and per variable its
      least-squares system, :math:`8(rk\nu + 4\nu^2)` bytes (the system, its normal
      matrix, a copy and LAPACK's), which grows as :math:`q^4` and sets the peak from
      ``q`` of about 20;
    * the proof, with the reduced objective and S held (``LABEL_CERTIFICATE_HELD_BYTES`` per
      :math:`N_r^2`): ``"factor"`` its three dense copies
      (:func:`~dpgraph.engine.sdp.dense_certificate_bytes`), ``"ldl"`` a fully filled sparse
      factor (``LABEL_DENSE_LDL_BYTES`` per :math:`N_r^2`, at least
      :func:`~dpgraph.engine.sdp.ldl_memory_estimate` at :math:`N_r^2` entries: the dual
      matrix of a dense objective has them all; where that fits, the count of its factor, a
      numba kernel, does not run), ``"lanczos"`` a few vectors;

    plus ``LABEL_CERTIFICATE_FIXED_BYTES``. Measured (tracemalloc, dense random objectives,
    ``q`` from 2 to 40, ``n q`` from 300 to 1,500): 1.01-1.32 times the certificate's peak.

    >>> label_certificate_bytes(300, 3) == 40 * 900 ** 2 + 88 * 601 ** 2 + 2 ** 16
    True
    >>> label_certificate_bytes(15, 40) > label_certificate_bytes(150, 4)  # the fit, as q^4
    True
    """
    from dpgraph.engine.sdp import dense_certificate_bytes, ldl_memory_estimate
    from dpgraph.engine.twocsp_sdp import default_label_rank

    if method not in ("factor", "ldl", "lanczos"):
        raise ValueError(f"method={method!r} is not one of 'factor', 'ldl', 'lanczos' (resolve "
                         f"'auto' with label_certificate_method)")
    n, q = int(n), int(q)
    N, Nr, r = n * q, n * (q - 1) + 1, q - 1
    k = default_label_rank(n, q) if rank is None else int(rank)
    nu = r + r * (r - 1) // 2
    allowance = LABEL_CERTIFICATE_ENTRY_BYTES * N * N + LABEL_CERTIFICATE_DUAL_BYTES * Nr * Nr
    fit = LABEL_CERTIFICATE_FIT_HELD_BYTES * Nr * Nr + 8 * n * (r * k * nu + 4 * nu * nu)
    proof = {"factor": dense_certificate_bytes(Nr),
             "ldl": max(ldl_memory_estimate(Nr, Nr * Nr), LABEL_DENSE_LDL_BYTES * Nr * Nr),
             "lanczos": 64 * Nr}[method]
    return int(max(allowance, fit, LABEL_CERTIFICATE_HELD_BYTES * Nr * Nr + proof)
               + LABEL_CERTIFICATE_FIXED_BYTES)


def check_label_engine_memory(n: int, q: int, *, m: int = 0, method: str = "lowrank",
                              rank: int | None = None, samples: int = 16, seeds: int = 2,
                              objectives: int = 1, tabu_moves: int = 0) -> None:
    """Refuse, before the relaxation is solved, 2-CSP engine options whose working set
    (:func:`label_engine_bytes`) would not fit: ``samples=50,000`` on 60 variables held 2.3 GiB,
    ``rank=10**6`` 3.7 GiB, before an unpriced MemoryError (after the release, in
    :func:`dpgraph.max_2csp`). Where the solve runs a numba kernel (``tabu_moves``, or the
    sparse certificate above ``LABEL_DENSE_CERTIFICATE_MAX_N``) and none has run in this
    process yet, numba's first load (:func:`~dpgraph.engine.local_search.kernel_load_bytes`)
    is priced with it.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_MEMORY_LIMIT": "4M"}):
    ...     try:
    ...         check_label_engine_memory(100, 3, samples=10**6)
    ...     except MemoryError as exc:
    ...         print(str(exc).split(" with")[0], "|", "At most samples=" in str(exc))
    the 2-CSP engine on 100 variables x 3 values | True
    """
    from dpgraph.engine.local_search import kernel_load_bytes
    from dpgraph.engine.twocsp_sdp import LABEL_DENSE_CERTIFICATE_MAX_N

    samples = check_integer(samples, name="samples", low=0)
    seeds = check_integer(seeds, name="seeds", low=0)
    rank = None if rank is None else check_integer(rank, name="rank", low=2)
    sparse_proof = method == "lowrank" and n * (q - 1) + 1 > LABEL_DENSE_CERTIFICATE_MAX_N
    load = kernel_load_bytes() if tabu_moves or sparse_proof else 0

    def cost(samples=samples, rank=rank):
        return load + label_engine_bytes(n, q, m=m, method=method, rank=rank, samples=samples,
                                         seeds=seeds, objectives=objectives)

    have = memory_limit()[0]
    fit = None
    if method == "scs":
        alternative = "Use method='lowrank' (it never forms the moment matrix)."
    else:
        alternative = "Lower samples, seeds or rank (the default is at most 48)."
        if have is not None and rank is not None and cost(rank=2) <= have:
            fit = (lambda r: cost(rank=max(r, 2)), "At most rank={} fits with these samples "
                                                   "and seeds.")
        elif have is not None and cost(samples=0) <= have:
            fit = (lambda s: cost(samples=s), "At most samples={:,} fits with this rank and seeds.")
    what = (f"the 2-CSP engine on {n:,} variables x {q:,} values with "
            f"{'the default rank' if rank is None else f'rank={rank}'}, samples={samples}, "
            f"seeds={seeds}" if method == "lowrank" else
            f"the 2-CSP engine's method='scs' on {n:,} variables x {q:,} values (a "
            f"{n * q + 1:,} x {n * q + 1:,} moment matrix)")
    if load:
        what += f" (numba's first load in this process, {format_bytes(load)}, included)"
        alternative += " DPGRAPH_NO_NUMBA=1 runs the kernels without numba."
    check_memory(cost(), what=what, alternative=alternative, fit=fit)


def _check_instance_size(m: int, q: int) -> None:
    check_memory(instance_bytes(m, q),
                 what=f"a 2-CSP of {m:,} constraint(s) over q = {q:,} values (a dense q x q "
                      f"relation each)",
                 fit=(lambda k: instance_bytes(m, k), "At most q = {:,} values fit."))


def _relation_matrix(rel, q: int, k: int) -> np.ndarray:
    """Constraint ``k``'s relation (pairs or a ``q x q`` matrix, :class:`CSPInstance`) as a
    ``q x q`` 0/1 float matrix."""
    M = np.zeros((q, q))
    if isinstance(rel, np.ndarray) and rel.shape == (2, 2) and q == 2 \
            and rel.dtype != bool:
        # a 2 x 2 array over q = 2 reads as a matrix and as two pairs, with opposite
        # meanings ([[1, 0], [0, 1]]: "equal" as a matrix, "different" as pairs)
        raise ValueError(f"constraint #{k}: a 2 x 2 array of dtype {rel.dtype} with q = 2 is "
                         f"either a relation matrix or two (a, b) pairs; only a boolean 2 x 2 "
                         f"array is read as a matrix: pass rel != 0 (or rel.astype(bool)) for "
                         f"a matrix, or a set of (a, b) pairs")
    if isinstance(rel, np.ndarray) and rel.ndim == 2 and (
            rel.shape[1] != 2 or (rel.shape == (q, q) and rel.dtype == bool)):
        if rel.shape != (q, q):
            raise ValueError(f"constraint #{k}: relation matrix has shape {rel.shape}, "
                             f"expected ({q}, {q})")
        return (np.asarray(rel, dtype=float) != 0).astype(float)
    for pair in rel:
        try:
            a0, b0 = pair
            a, b = int(a0), int(b0)
            if a != a0 or b != b0:  # 0.5 would truncate to 0
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"constraint #{k}: relation entry {pair!r} is not a pair "
                             f"of integer values") from None
        if not (0 <= a < q and 0 <= b < q):
            raise ValueError(f"constraint #{k}: relation pair ({a}, {b}) is outside "
                             f"[q]^2 with q = {q}")
        M[a, b] = 1.0
    return M


@dataclass(frozen=True, eq=False)
class CSPInstance:
    r"""A weighted Max-2-CSP instance over alphabet ``range(q)``.

    Parameters
    ----------
    n : int
        Number of variables (``0..n-1``).
    q : int
        Alphabet size (values ``0..q-1``), at least 1.
    constraints : iterable of (i, j, relation, weight)
        ``relation`` is an iterable of pairs ``(a, b)`` or a ``q x q`` 0/1 ``numpy`` array
        (an ``(r, 2)`` array is read as r pairs, a boolean ``(q, q)`` one always as a matrix;
        with ``q = 2`` a ``2 x 2`` array that is not boolean is refused as ambiguous); ``weight`` a
        finite non-negative number. Variables must differ (``i != j``). Constraints with
        equal relations share one (its matrix is parsed once and its pairs are one frozenset
        in :attr:`constraints`), as every edge of :func:`~dpgraph.engine.max_k_cut_instance`.

    Example
    -------
    >>> inst = CSPInstance(3, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0), (1, 2, {(0, 1), (1, 0)}, 1.0)])
    >>> inst.value({0: 0, 1: 1, 2: 0})
    2.0
    """

    n: int
    q: int
    constraints: tuple
    _arrays: tuple = field(default=None, repr=False)
    #: ``(path, lines)`` where a reader built it (:func:`dpgraph.read_csp`): the file and the
    #: line of each constraint, for messages about a constraint (:meth:`constraint_name`)
    source: tuple | None = field(default=None, repr=False)
    #: the variables' names (:meth:`with_names`; a graph's node labels for Max-k-Cut), or None:
    #: variables ``0..n-1``. :func:`dpgraph.max_2csp`'s assignment is keyed by them.
    names: tuple | range | None = field(default=None, repr=False)

    def __init__(self, n, q, constraints):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        if not isinstance(q, (int, np.integer)) or isinstance(q, bool) or q < 1:
            raise ValueError(f"q must be a positive integer, got {q!r}")
        n, q = int(n), int(q)
        # refuse before allocating: at worst every constraint holds a q x q relation of its own
        if hasattr(constraints, "__len__"):
            _check_instance_size(len(constraints), q)
        have, where = memory_limit()
        # constraints with equal relations share one relation (its matrix and its pairs):
        # Max-k-Cut has one for all its edges, 2-SAT four. ``shared`` maps a relation's packed
        # bits to it, ``given`` a relation as passed, where it is a frozenset or a tuple
        shared, given = {}, {}
        I, J, R, Wt, cons = [], [], [], [], []
        for k, con in enumerate(constraints):
            try:
                i, j, rel, w = con
            except (TypeError, ValueError):
                raise ValueError(f"constraint #{k} is not an (i, j, relation, weight) tuple") from None
            i, j = _var(i, n, k), _var(j, n, k)
            if i == j:
                raise ValueError(f"constraint #{k} relates variable {i} to itself; 2-CSP constraints "
                                 f"need two distinct variables")
            try:
                w = float(w)
            except (TypeError, ValueError):
                raise ValueError(f"constraint #{k} has weight {w!r}, which is not a real "
                                 f"number") from None
            if not math.isfinite(w) or w < 0:
                raise ValueError(f"constraint #{k} has weight {w}; weights must be finite and >= 0")
            known = type(rel) in (frozenset, tuple)  # immutable: parsed once per value
            try:
                got = given.get(rel) if known else None
            except TypeError:  # a tuple holding something unhashable
                got, known = None, False
            if got is None:
                M = _relation_matrix(rel, q, k)
                key = np.packbits(M != 0).tobytes()
                got = shared.get(key)
                if got is None:
                    got = shared[key] = (M, frozenset((int(a), int(b))
                                                      for a, b in zip(*np.nonzero(M))))
                if known:
                    given[rel] = got
            # a relation of its own costs its cells, one an earlier constraint holds the
            # constraint's own objects (instance_bytes)
            if have is not None and instance_bytes(k + 1, q, len(shared)) > have:
                raise InsufficientMemoryError(
                    f"a 2-CSP over q = {q:,} values needs about "
                    f"{format_bytes(instance_bytes(k + 1, q, len(shared)))} at its constraint #{k} "
                    f"({len(shared):,} distinct q x q relations) but only {format_bytes(have)} is "
                    f"{where} (nothing more was allocated).")
            M, pairs = got
            I.append(i), J.append(j), R.append(M), Wt.append(w)
            cons.append((i, j, pairs, w))
        del shared, given
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "constraints", tuple(cons))
        del cons
        arrays = (np.asarray(I, dtype=np.int64), np.asarray(J, dtype=np.int64),
                  np.asarray(R, dtype=float).reshape(len(I), q, q), np.asarray(Wt, dtype=float))
        object.__setattr__(self, "_arrays", arrays)

    @property
    def m(self) -> int:
        return len(self.constraints)

    def constraint_name(self, k: int) -> str:
        """``"constraint #k (variables u and v)"`` (its two variables, by name where they are
        named: :meth:`with_names`), or ``"<file>, line L: constraint"`` where a reader built
        the instance (messages about constraint ``k``). The variables say which constraint
        is meant where the numbers follow no list of the caller's (a graph's Max-k-Cut:
        :func:`~dpgraph.engine.max_k_cut_instance`).

        >>> CSPInstance(2, 2, [(0, 1, {(0, 1)}, 1.0)]).constraint_name(0)
        'constraint #0 (variables 0 and 1)'
        >>> CSPInstance(2, 2, [(0, 1, {(0, 1)}, 1.0)]).with_names("ab").constraint_name(0)
        "constraint #0 (variables 'a' and 'b')"
        """
        if self.source is not None and 0 <= k < len(self.source[1]):
            return f"{self.source[0]}, line {self.source[1][k]}: constraint"
        if 0 <= k < self.m:
            i, j = (self.variables[v] for v in self.constraints[k][:2])
            return f"constraint #{k} (variables {i!r} and {j!r})"
        return f"constraint #{k}"

    def with_source(self, path, lines) -> "CSPInstance":
        """A copy of this instance with its constraints' file and lines recorded (readers
        only); this one is left as it is."""
        out = copy.copy(self)  # the constraints and their arrays are shared, not copied
        object.__setattr__(out, "source", (str(path), tuple(int(v) for v in lines)))
        return out

    def with_names(self, names) -> "CSPInstance":
        """A copy of this instance with its variables named (``names[i]`` is variable ``i``:
        n distinct hashable names), e.g. a graph's node labels; :func:`dpgraph.max_2csp` keys
        its assignment by them, and :meth:`value` takes an assignment keyed by them. This
        instance keeps its own names (the copy shares its constraints).

        >>> inst = CSPInstance(2, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0)])
        >>> named = inst.with_names(["a", "b"])
        >>> named.value({"a": 0, "b": 1}), inst.names
        (1.0, None)
        """
        # a range is kept as it is: distinct, and O(1) memory however many variables a file
        # declares (read_wcnf names them 1..n)
        names = names if isinstance(names, range) else tuple(names)
        if len(names) != self.n:
            raise ValueError(f"names: {len(names)} names for {self.n} variables")
        if not isinstance(names, range):
            try:
                distinct = len(set(names)) == self.n
            except TypeError:
                raise ValueError("names must be hashable (dictionary keys of the "
                                 "assignment)") from None
            if not distinct:
                raise ValueError("names must be distinct")
        default = names == range(self.n) if isinstance(names, range) \
            else names == tuple(range(self.n))
        out = copy.copy(self)
        object.__setattr__(out, "names", None if default else names)
        return out

    @property
    def variables(self):
        """The variables' names: :attr:`names`, or ``range(n)``."""
        return range(self.n) if self.names is None else self.names

    def __repr__(self) -> str:
        return f"CSPInstance(n={self.n}, q={self.q}, m={self.m}, total_weight={self._arrays[3].sum():g})"

    def _as_array(self, assignment) -> np.ndarray:
        if isinstance(assignment, dict):
            keys = self.variables
            if self.names is not None and not all(v in assignment for v in keys) and all(
                    v in assignment for v in range(self.n)):
                keys = range(self.n)  # an assignment by variable number
            missing = [v for v in keys if v not in assignment]
            if missing:
                raise ValueError(f"assignment misses {len(missing)} variable(s), e.g. "
                                 f"{missing[0]!r}")
            a = np.array([assignment[v] for v in keys])
        else:
            a = np.asarray(assignment)
            if a.shape != (self.n,):
                raise ValueError(f"assignment must have {self.n} entries, got shape {a.shape}")
        if not np.all((a >= 0) & (a < self.q) & (a == np.round(a))):
            raise ValueError(f"assignment values must be integers in range({self.q})")
        return a.astype(np.int64)

    def value(self, assignment) -> float:
        """Total weight of the constraints satisfied by ``assignment`` (dict or length-n array)."""
        a = self._as_array(assignment)
        I, J, R, Wt = self._arrays
        if not len(I):
            return 0.0
        return float(np.sum(Wt * R[np.arange(len(I)), a[I], a[J]]))

    def variable_weights(self) -> np.ndarray:
        """Total constraint weight at each variable (length ``n``; a constraint counts at both
        of its variables).

        >>> CSPInstance(3, 2, [(0, 1, {(0, 1)}, 0.5), (1, 2, {(1, 1)}, 1.0)]).variable_weights()
        array([0.5, 1.5, 1. ])
        """
        I, J, _, Wt = self._arrays
        return (np.bincount(I, weights=Wt, minlength=self.n)
                + np.bincount(J, weights=Wt, minlength=self.n)).astype(np.float64)

    def label_extended_graph(self) -> GraphData:
        r"""The label-extended graph (d'Orsi-Novikov Def. 7.9).

        Vertices are the pairs ``(i, a)``, ``i`` in ``range(n)``, ``a`` in ``range(q)`` (index
        ``i*q + a``); the edge ``{(i, a), (j, b)}`` has weight
        :math:`\sum_{c = (i, j, R, w):\,(a, b) \in R} w` (constraints on the same pair add up).
        An assignment x satisfies weight :math:`\tfrac12 z^T A z` with :math:`z_{ia} = [x_i = a]`.
        """
        A = self.label_adjacency()
        labels = tuple((i, a) for i in range(self.n) for a in range(self.q))
        A = sp.csr_array(A)
        A.eliminate_zeros()
        A.sort_indices()
        return GraphData(weights=A, labels=labels)

    @property
    def label_pairs(self) -> int:
        """The allowed label pairs over all constraints: the edges of the label-extended graph
        before those on the same pair of labels add up (:func:`label_graph_bytes` prices
        them)."""
        return int(np.count_nonzero(self._arrays[2]))

    def label_adjacency(self, *, name_size: bool = True) -> sp.csr_array:
        """Symmetric ``nq x nq`` sparse adjacency of the label-extended graph (refused before
        allocating when it would not fit: :func:`label_graph_bytes`). ``name_size=False``: the
        refusal does not print the number of allowed label pairs (the private answers, for which
        it is a function of the private constraints: docs/privacy.md 11.1)."""
        I, J, R, Wt = self._arrays
        q = self.q
        check_label_graph_memory(self.n, q, self.label_pairs, name_size=name_size)
        c, a, b = np.nonzero(R)
        rows = I[c] * q + a
        cols = J[c] * q + b
        vals = Wt[c]
        N = self.n * q
        A = sp.coo_array((np.r_[vals, vals], (np.r_[rows, cols], np.r_[cols, rows])), shape=(N, N))
        return sp.csr_array(A)


def _var(v, n, k):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"constraint #{k}: variable {v!r} is not an integer: constraints "
                         f"name variables by number, 0..n-1; to have the answer keyed by "
                         f"names, number the variables and give their names with "
                         f"CSPInstance(...).with_names(names)")
    if not 0 <= v < n:
        raise ValueError(f"constraint #{k}: variable {v} is outside range(n) with n = {n}")
    return int(v)


# ----------------------------------------------------------------------------- relaxation


@dataclass
class _Moments:
    """The degree-2 moment relaxation as index arrays over entries (r, c) of Y (N = nq + 1)."""

    N: int
    er: np.ndarray        # entry rows (r <= c)
    ec: np.ndarray        # entry cols
    cobj: np.ndarray      # objective coefficient per entry (of Y_rc, counted once)
    A: sp.csr_array       # equality constraints: A @ y_entries = b
    b: np.ndarray
    nonneg: np.ndarray    # indices (into entries) that must be >= 0


def csp_moment_constraints(inst: CSPInstance) -> _Moments:
    """Build the degree-2 moment relaxation of ``inst`` (see the module docstring)."""
    n, q = inst.n, inst.q
    N = n * q + 1
    idx = {}
    er, ec = [], []

    def ent(r, c):
        if r > c:
            r, c = c, r
        key = (r, c)
        if key not in idx:
            idx[key] = len(er)
            er.append(r), ec.append(c)
        return idx[key]

    v = lambda i, a: 1 + i * q + a  # noqa: E731
    rows, cols, vals, b = [], [], [], []

    def eq(terms, rhs):
        k = len(b)
        for e, coef in terms:
            rows.append(k), cols.append(e), vals.append(coef)
        b.append(rhs)

    eq([(ent(0, 0), 1.0)], 1.0)
    for i in range(n):
        eq([(ent(0, v(i, a)), 1.0) for a in range(q)], 1.0)
        for a in range(q):
            eq([(ent(v(i, a), v(i, a)), 1.0), (ent(0, v(i, a)), -1.0)], 0.0)
            for bb in range(a + 1, q):
                eq([(ent(v(i, a), v(i, bb)), 1.0)], 0.0)
    I, J, R, Wt = inst._arrays
    cobj = {}
    nonneg = set()
    for c in range(len(I)):
        i, j = int(I[c]), int(J[c])
        for a in range(q):
            for bb in range(q):
                e = ent(v(i, a), v(j, bb))
                nonneg.add(e)
                if R[c, a, bb]:
                    cobj[e] = cobj.get(e, 0.0) + Wt[c]
    E = len(er)
    co = np.zeros(E)
    for e, w in cobj.items():
        co[e] = w
    A = sp.csr_array((vals, (rows, cols)), shape=(len(b), E))
    return _Moments(N=N, er=np.asarray(er), ec=np.asarray(ec), cobj=co, A=A, b=np.asarray(b, float),
                    nonneg=np.asarray(sorted(nonneg), dtype=np.int64))


class _SymPattern:
    """Fixed sparsity pattern of S(coef) = sum_e coef_e E_e (E_e symmetric with <E_e, Y> = Y_e), so
    that building S for new coefficients is one sparse mat-vec (no re-assembly)."""

    def __init__(self, mom: "_Moments"):
        r, c = mom.er, mom.ec
        E = r.size
        off = r != c
        rr = np.r_[r[~off], r[off], c[off]]
        cc = np.r_[c[~off], c[off], r[off]]
        src = np.r_[np.flatnonzero(~off), np.flatnonzero(off), np.flatnonzero(off)]
        scale = np.r_[np.ones((~off).sum()), np.full(off.sum(), 0.5), np.full(off.sum(), 0.5)]
        # one stored position per (row, col) pair; T maps coef -> data
        key = rr * mom.N + cc
        uniq, pos = np.unique(key, return_inverse=True)
        self.T = sp.csr_array((scale, (pos, src)), shape=(uniq.size, E))
        rows, cols = np.divmod(uniq, mom.N)
        base = sp.csr_array((np.arange(1, uniq.size + 1, dtype=float), (rows, cols)),
                            shape=(mom.N, mom.N))
        base.sort_indices()
        self.order = base.data.astype(np.int64) - 1
        self.indptr, self.indices = base.indptr, base.indices
        self.N = mom.N

    def __call__(self, coef: np.ndarray) -> sp.csr_array:
        data = (self.T @ coef)[self.order]
        return sp.csr_array((data, self.indices, self.indptr), shape=(self.N, self.N))


def _entries_to_sym(mom: "_Moments", coef: np.ndarray) -> sp.csr_array:
    """Symmetric matrix S with <S, Y> = sum_e coef_e Y_{r_e c_e} (off-diagonal halves)."""
    return _SymPattern(mom)(coef)


def cvxpy_max_2csp_sdp(inst: CSPInstance, *, eps=1e-7, max_iters=100000, time_limit=None,
                       return_duals=False, nonnegativity: bool = True):
    """Solve the degree-2 moment relaxation with CVXPY + SCS. Returns ``(value, Y, seconds, status)``
    (and ``(moments, lambda, z)`` with ``return_duals``: the equality and non-negativity duals).

    ``nonnegativity=False`` drops :math:`Y_{ia,jb} \\ge 0` on the constraint blocks (the vector
    relaxation of :mod:`dpgraph.engine.twocsp_sdp`). This full moment form has no strictly
    feasible point, and SCS is slow and inaccurate on it; the reference for that relaxation is
    :func:`dpgraph.engine.twocsp_sdp.cvxpy_label_sdp` (reduced coordinates, Slater holds).

    >>> import networkx as nx
    >>> from dpgraph.engine import max_k_cut_instance
    >>> value, Y, _, status = cvxpy_max_2csp_sdp(max_k_cut_instance(nx.complete_graph(3), 3))
    >>> status, Y.shape, round(value, 4)  # 1 + n q moments; a triangle 3-colours: all 3 met
    ('optimal', (10, 10), 3.0)
    >>> value, Y, _, _ = cvxpy_max_2csp_sdp(max_k_cut_instance(nx.cycle_graph(5), 2))
    >>> round(value, 4)  # Max-Cut of C5 as a 2-CSP: the Max-Cut SDP value, above the cut of 4
    4.5225
    """
    import cvxpy as cp

    mom = csp_moment_constraints(inst)
    if not nonnegativity:
        mom.nonneg = np.zeros(0, dtype=np.int64)
    Y = cp.Variable((mom.N, mom.N), PSD=True)
    y = Y[mom.er, mom.ec]
    cons = [mom.A @ y == mom.b]
    if mom.nonneg.size:
        cons.append(y[mom.nonneg] >= 0)
    prob = cp.Problem(cp.Maximize(mom.cobj @ y), cons)
    kw = dict(eps_abs=eps, eps_rel=eps, max_iters=max_iters)
    if time_limit is not None:
        kw["time_limit_secs"] = float(time_limit)
    t = time.perf_counter()
    prob.solve(solver=cp.SCS, **kw)
    secs = time.perf_counter() - t
    if Y.value is None:
        raise RuntimeError(f"SCS returned no solution (status {prob.status})")
    if return_duals:
        lam = np.asarray(cons[0].dual_value, dtype=float).ravel()
        z = np.asarray(cons[1].dual_value, dtype=float).ravel() if mom.nonneg.size else np.zeros(0)
        return float(prob.value), Y.value, secs, prob.status, (mom, lam, z)
    return float(prob.value), Y.value, secs, prob.status


def _csp_dual_matrix(mom: _Moments, lam: np.ndarray, z: np.ndarray, inst=None):
    r"""The float dual matrix of :func:`_certify_csp` and a bound on its distance from the
    exact one: ``(S, allowance, parts)``.

    ``S`` (dense, exactly symmetric) is formed as ``coef = fl(cobj - fl(A^T lam))``, then
    ``fl(coef_e + max(z, 0))`` on the non-negative entries, and ``S_rr = coef_e`` for a
    diagonal entry ``e = (r, r)``, ``S_rc = S_cr = fl(coef_e / 2)`` for ``r < c``. With
    :math:`S^\star` the dual matrix of the same float multipliers in exact arithmetic, for the
    instance's exact objective :math:`C^\star` (``cobj`` holds float sums of the weights of the
    constraints on one pair), ``allowance`` :math:`\ge \sum_{ij}|S - S^\star|
    + \sum_{i<j}|S_{ij} - S_{ji}|` (the asymmetry is 0 by construction; it is added for the
    triangle the Cholesky reads). Per entry, with :math:`k_e` the stored entries of column e
    of A:

    * ``fl(A^T lam)_e``: a sum of :math:`k_e` products in any order, within
      :math:`\gamma_{k_e}(|A|^T|\lambda|)_e + k_e\eta/2` (Higham, Lemma 3.1 and Sec. 3.1);
      ``|A|^T|lam|`` is itself a float sum of non-negative terms, at most
      :math:`1/(1-\gamma_{k_e})` below exact: the factor 2 covers it and the products'
      rounding;
    * the subtraction and the addition of ``z``: :math:`u|\cdot|` of their float results
      (:math:`fl(x) = x/(1+\delta)`, :math:`|\delta| \le u`; no underflow error in sums);
    * the halving: exact unless the half is subnormal, :math:`\eta/2` per stored position
      (:math:`\eta` per off-diagonal entry, both positions);
    * the objective (``inst`` given): the entry of a label pair of variables {i, j} sums the
      non-negative weights of the constraints on {i, j} that allow it, recursively, within
      :math:`\gamma_{m-1}` of their sum for m constraints on {i, j}; over all entries at most
      :math:`\sum_c \gamma_{m_c-1} w_c |R_c|` (:math:`|R_c|` allowed label pairs), doubled.
      Without ``inst`` ``cobj`` is taken as exact.

    Since :math:`S^\star_{rr} = coef^\star_e` and :math:`S^\star_{rc} = coef^\star_e/2` at two
    positions, :math:`\sum_{ij}|S - S^\star| \le \sum_e |coef_e - coef^\star_e| + \eta\,
    \#\mathrm{off}`. Every sum is an exact ``fsum`` moved one ulp up (:func:`upward_sum`)."""
    u, eta = _EPS, _ETA
    N = mom.N
    er, ec = np.asarray(mom.er, dtype=np.int64), np.asarray(mom.ec, dtype=np.int64)
    if er.size and (np.any(er > ec) or np.unique(er * N + ec).size != er.size):
        raise ValueError("the moment entries must be distinct pairs (r, c) with r <= c")
    A = sp.csc_array(mom.A)  # column e: the constraints that read entry e
    lam = np.asarray(lam, dtype=np.float64).ravel()
    z = np.asarray(z, dtype=np.float64).ravel()
    if lam.size != A.shape[0] or z.size != mom.nonneg.size:
        raise ValueError(f"{lam.size} equality and {z.size} non-negativity multipliers for "
                         f"{A.shape[0]} and {mom.nonneg.size} constraints")
    Atl = A.T @ lam
    coef2 = mom.cobj - Atl
    coef = coef2.copy()
    coef[mom.nonneg] += np.maximum(z, 0.0)
    diag = er == ec
    half = np.where(diag, coef, 0.5 * coef)
    S = np.zeros((N, N))
    S[er, ec] = half
    S[ec, er] = half
    # allowances (each term non-negative; every sum bounded above)
    counts = np.diff(A.indptr)  # k_e
    absAtl = abs(A).T @ np.abs(lam)
    gam = counts * u / (1.0 - counts * u)
    t_prod = 2.0 * upward_sum((gam * absAtl).tolist()) + eta * A.nnz
    t_sub = u * upward_sum(np.abs(coef2).tolist())
    t_add = u * upward_sum(np.abs(coef[mom.nonneg]).tolist())
    t_half = eta * float(np.count_nonzero(~diag))
    t_obj = 0.0
    if inst is not None:
        I, J, R, Wt = inst._arrays
        if I.size:
            lo, hi = np.minimum(I, J), np.maximum(I, J)
            _, inv, mult = np.unique(lo * inst.n + hi, return_inverse=True, return_counts=True)
            m = (mult[inv] - 1).astype(np.float64)  # gamma_{m - 1} for m constraints on a pair
            allowed = R.reshape(R.shape[0], -1).sum(axis=1)  # exact: counts of ones
            t_obj = 2.0 * upward_sum((m * u / (1.0 - m * u) * Wt * allowed).tolist())
    skew = np.abs(S - S.T)  # 0 here: |fl(S_ij - S_ji)| >= |S_ij - S_ji| (1 - u), both orders
    t_skew = 0.5 * (1 + 2 * u) * upward_sum(skew[skew != 0].tolist())
    terms = [t_prod, t_sub, t_add, t_half, t_obj, t_skew]
    allowance = upward_sum([math.nextafter(t, math.inf) if t else 0.0 for t in terms])
    parts = dict(zip(("products", "subtraction", "nonnegativity", "halving", "objective",
                      "asymmetry"), terms))
    return S, allowance, parts


def _certify_csp(mom: _Moments, n: int, lam: np.ndarray, z: np.ndarray, inst=None):
    r"""Certified upper bound on the degree-2 moment relaxation (hence on the 2-CSP optimum)
    from any multipliers ``lam`` (equalities) and ``z`` (non-negativity; its negative part is
    dropped). Returns ``(UB, mu, parts)``: ``mu`` the proven bound on
    :math:`\lambda_{\max}` of the float dual matrix, ``parts`` Rump's margin and the
    matrix allowance (``rump_margin``, ``matrix_allowance``).

    Weak duality. Every feasible Y (``mom``'s constraints, :func:`csp_moment_constraints`) has
    :math:`\mathrm{tr}\,Y = Y_{\emptyset\emptyset} + \sum_{i,a} Y_{ia,ia} = 1 + \sum_{i,a}
    Y_{\emptyset,ia} = n + 1` *exactly* (``Y_00 = 1``, ``Y_ia,ia = Y_0,ia``, ``sum_a Y_0,ia
    = 1``) and :math:`|Y_{rc}| \le 1` (:math:`Y_{0,ia}^2 \le Y_{ia,ia} = Y_{0,ia}`, so every
    diagonal entry is in [0, 1]). For the entries y of Y, ``A y = b`` and
    :math:`y_{\mathrm{nonneg}} \ge 0`, so for the exact objective
    :math:`\langle C^\star, Y\rangle = coef^{\star T} y + b^T\lambda - z^{+T} y_{\mathrm{nonneg}}
    \le \langle S^\star, Y\rangle + b^T\lambda` with :math:`coef^\star = c^\star - A^T\lambda
    + z^+` exactly and :math:`S^\star` its symmetric matrix; and :math:`\langle S^\star,
    Y\rangle \le \langle S, Y\rangle + \sum_{ij}|S - S^\star| \le (n+1)\mu + \epsilon`
    for the float S (:func:`_csp_dual_matrix`, ``epsilon`` its allowance) once
    :math:`\mu \ge \lambda_{\max}(S)` is proven: :math:`\langle S, Y\rangle \le
    \lambda_{\max}(S)\,\mathrm{tr}\,Y` for any PSD Y, of either sign of
    :math:`\lambda_{\max}`, because the trace is fixed (the reduced coordinates of
    :mod:`dpgraph.engine.twocsp_sdp` have a trace only at most n + 1 and need
    :math:`\max(\mu, 0)`; here none is needed).

    Proof of mu: :func:`dpgraph.engine.sdp.verified_lambda_max` (Cholesky of
    :math:`(\mu - c)I - S` with Rump's margin c, the factorised diagonal read back; the
    statement is about S's lower triangle reflected, and S is exactly symmetric) from LAPACK's
    top eigenvalue. Rounding of the rest: :math:`b^T\lambda` as its float products
    :math:`fl(b_k\lambda_k)` (exact where :math:`b_k \in \{0, \pm 1\}`, otherwise within
    :math:`u|fl(b_k\lambda_k)| + \eta/2`, added), :math:`(n+1)\mu` rounded up and the whole
    evaluated upwards (:func:`upward_sum`): UB is at least the exact
    :math:`b^T\lambda + (n+1)\mu + \epsilon`. ``inst`` (the instance ``mom`` was built from)
    lets the allowance cover ``cobj``'s float sums of weights; without it ``cobj`` is taken
    as the exact objective."""
    N = mom.N
    if N < 1 or (N - 1) % max(n, 1) or n < 1:
        raise ValueError(f"a moment matrix of order {N} is not 1 + n q for n = {n}")
    S, extra, _ = _csp_dual_matrix(mom, lam, z, inst)
    lam = np.asarray(lam, dtype=np.float64).ravel()
    if not np.all(np.isfinite(S)):
        raise RuntimeError("could not verify the 2-CSP dual certificate (non-finite multipliers)")
    try:
        top = float(sla.eigvalsh(S, subset_by_index=[N - 1, N - 1])[0])
    except (np.linalg.LinAlgError, ValueError):
        top = float(np.max(np.abs(S).sum(axis=1)))  # Gershgorin: only a starting point
    mu0 = top + 1e-12 * max(1.0, float(np.max(np.abs(S))))
    try:
        mu, c = verified_lambda_max(S, mu0, attempts=10)
    except RuntimeError:
        raise RuntimeError("could not verify the 2-CSP dual certificate") from None
    b = np.asarray(mom.b, dtype=np.float64)
    prods = b * lam
    inexact = (b != 0.0) & (np.abs(b) != 1.0)
    terms = prods.tolist()
    if np.any(inexact):
        terms.append(math.nextafter(_EPS * upward_sum(np.abs(prods[inexact]).tolist())
                                    + _ETA * float(np.count_nonzero(inexact)), math.inf))
    terms += [math.nextafter((n + 1) * mu, math.inf), extra]
    return upward_sum(terms), mu, {"rump_margin": c, "matrix_allowance": extra}


def b_dot(mom, lam):
    return float(mom.b @ lam)


# ----------------------------------------------------------------------------- rounding


def _marginals(Y0: np.ndarray, n: int, q: int) -> np.ndarray:
    p = np.clip(Y0[1:].reshape(n, q), 0.0, None)
    s = p.sum(axis=1, keepdims=True)
    p = np.where(s > 0, p / np.where(s > 0, s, 1.0), 1.0 / q)
    return p


def _sample(p, gen, samples):
    """Independent rounding (Alg. 7.4): x_i ~ p_i, ``samples`` draws -> (samples, n) ints."""
    c = np.cumsum(p, axis=1)
    c[:, -1] = 1.0
    u = gen.random((samples, p.shape[0], 1))
    return (u > c[None]).sum(axis=2)


def _values(inst: CSPInstance, X: np.ndarray) -> np.ndarray:
    I, J, R, Wt = inst._arrays
    if not len(I):
        return np.zeros(X.shape[0])
    return (Wt[None, :] * R[np.arange(len(I))[None, :], X[:, I], X[:, J]]).sum(axis=1)


def _correlation_round(inst, Y, seeds, gen, samples):
    """Seeds by global correlation, enumerate their values, degree-2 conditioning, independent
    rounding; returns (best assignment, value, seeds)."""
    n, q = inst.n, inst.q
    p = _marginals(Y[0], n, q)
    cands = [_sample(p, gen, samples)]
    S = []
    if seeds and n > 1:
        # global correlation of variable i: sum_{j, a, b} (Y_ia,jb - p_i(a) p_j(b))^2
        C = Y[1:, 1:] - np.outer(Y[0, 1:], Y[0, 1:])
        score = (C.reshape(n, q, n, q) ** 2).sum(axis=(1, 2, 3))
        score = np.maximum(score, 0)
        for _ in range(min(seeds, n)):
            score_m = score.copy()
            score_m[S] = 0
            tot = score_m.sum()
            if tot <= 1e-300:
                break
            S.append(int(gen.choice(n, p=score_m / tot)))
        Yblk = Y[1:, 1:].reshape(n, q, n, q)
        for sigma in np.ndindex(*([q] * len(S))):
            ps = [p[s, a] for s, a in zip(S, sigma)]
            if min(ps) <= 1e-9:
                continue
            cond = p.copy()
            for s, a in zip(S, sigma):  # combine the degree-2 conditionals over the seeds
                ratio = np.clip(Yblk[s, a], 0, None) / (Y[0, 1 + s * q + a] * np.maximum(p, 1e-12))
                cond = cond * ratio
            cond = np.clip(cond, 0, None)
            ssum = cond.sum(axis=1, keepdims=True)
            cond = np.where(ssum > 0, cond / np.where(ssum > 0, ssum, 1), p)
            X = _sample(cond, gen, samples)
            X[:, S] = np.asarray(sigma)
            cands.append(X)
    X = np.vstack(cands)
    v = _values(inst, X)
    j = int(np.argmax(v))
    return X[j].copy(), float(v[j]), S


def _local_search(inst: CSPInstance, A: sp.csr_array, x: np.ndarray, max_moves=None, tol=1e-12):
    """Best-improvement single-variable local search; scores s = A z from the label-extended graph."""
    n, q = inst.n, inst.q
    x = x.copy()
    z = np.zeros(n * q)
    z[np.arange(n) * q + x] = 1.0
    s = (A @ z).reshape(n, q)
    moves = 0
    limit = 20 * n * q + 100 if max_moves is None else max_moves
    thr = tol * max(1.0, float(np.abs(A.data).max()) if A.nnz else 1.0)
    while moves < limit:
        gain = s - s[np.arange(n), x][:, None]
        flat = int(np.argmax(gain))
        i, bnew = divmod(flat, q)
        if gain[i, bnew] <= thr:
            break
        old = i * q + x[i]
        new = i * q + bnew
        for col, sign in ((old, -1.0), (new, 1.0)):
            a0, a1 = A.indptr[col], A.indptr[col + 1]
            nb = A.indices[a0:a1]
            s.reshape(-1)[nb] += sign * A.data[a0:a1]
        x[i] = bnew
        moves += 1
    return x, moves


# ----------------------------------------------------------------------------- driver


@dataclass(repr=False, eq=False)  # compared by identity and hashable, as every result
class CSPResult(EngineResult):
    """Result of :func:`solve_max_2csp` (fields as in :class:`dpgraph.engine.CutResult`).

    ``assignment`` maps variable -> value in ``range(q)``, keyed by the variables' names
    (:attr:`CSPInstance.variables`: a graph's node labels for Max-k-Cut, as in
    :func:`dpgraph.max_2csp`); ``x`` is the same as an int array in variable order; ``Y`` is
    the moment matrix of the relaxation.

    >>> import networkx as nx
    >>> from dpgraph.engine import max_k_cut_instance
    >>> inst = max_k_cut_instance(nx.Graph([("a", "b"), ("b", "c"), ("c", "a")]), 3)
    >>> sorted(solve_max_2csp(inst, rng=0).assignment)
    ['a', 'b', 'c']
    """

    assignment: dict
    x: np.ndarray
    value: float
    sdp_value: float
    upper_bound: float
    gap: float
    rounding: str
    timings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    Y: np.ndarray | None = None

    def __repr__(self) -> str:
        return (f"CSPResult(n={len(self.x)}, value={self.value:.6g}, sdp_value={self.sdp_value:.6g}, "
                f"upper_bound={self.upper_bound:.6g}, gap={self.gap:.2e}, rounding={self.rounding!r}, "
                f"method={self.info.get('method')!r}, time={sum(self.timings.values()):.3g}s)")


def solve_max_2csp(instance: CSPInstance, *, method: str = "lowrank", rng=None, seeds: int = 2,
                   samples: int = 16, local_search: bool = True, time_limit=None, progress: bool = False,
                   scs_eps: float = 1e-7, max_iters: int = 100000, tol: float = 1e-7,
                   rank: int | None = None, certificate: str = "auto",
                   perturbation_rounds: int = 0, tabu_moves: int = 0, tabu_time=None) -> CSPResult:
    r"""Max-2-CSP by the degree-2 SoS relaxation with global correlation rounding.

    d'Orsi-Novikov Sec. 7.1: moment relaxation of system (7.1) with local-distribution
    constraints, independent rounding from marginals (Alg. 7.4) after conditioning on seed
    variables chosen by global correlation (Lemma 7.6, Barak-Raghavendra-Steurer), then
    local search.

    Parameters
    ----------
    instance : CSPInstance
    method : {"lowrank", "scs"}
        ``"lowrank"`` (default): Burer-Monteiro on the per-variable manifold
        (:mod:`dpgraph.engine.twocsp_sdp`): the vector relaxation (per-variable constraints
        only), never forming the moment matrix; certified by a dual point fitted to the
        factor (rigorous: dense Cholesky check up to n(q-1) + 1 = 6500, sparse LDL^T above).
        ``"scs"``: CVXPY + SCS on the full ``(nq+1) x (nq+1)`` moment matrix, with the
        non-negativity of the constraint blocks as well (a tighter relaxation); each SCS
        iteration costs an eigendecomposition of the moment matrix, so nq up to a few hundred
        is practical. It is the small-size reference.
    rng : None, int or Generator
    seeds : int
        Seed variables for global correlation rounding (``q**seeds`` assignments).
    samples : int
        Independent roundings per seed assignment.
    local_search : bool
    time_limit : float, optional
        Seconds for the relaxation.
    progress : bool
    scs_eps : float
        SCS accuracy (``eps_abs = eps_rel``).
    max_iters : int
        SCS iteration limit (>= 1).
    tol, rank, certificate, perturbation_rounds, tabu_moves, tabu_time
        ``"lowrank"`` only: stopping tolerance (> 0), factor width (an integer >= 2, or None
        for the default), certificate method, rounds of iterated local search, and moves /
        seconds of tabu search (:func:`dpgraph.engine.twocsp_sdp.label_tabu_search`, 0 = off)
        of :func:`dpgraph.engine.twocsp_sdp.solve_label_csp`. ``tol``, ``rank`` and
        ``max_iters`` are checked whatever the method.

    Returns
    -------
    CSPResult
        ``upper_bound`` is certified by weak duality with a verified eigenvalue bound
        (``info['certificate']``: ``'cholesky-verified'`` -- dense, the low-rank path up to
        ``n(q-1) + 1 = LABEL_DENSE_CERTIFICATE_MAX_N`` -- or ``'ldl-verified'`` -- sparse LDL^T above it; both
        use Rump's rounding margin). Only ``certificate='lanczos'``, or an LDL^T factor that
        cannot fit in memory, gives ``'lanczos-residual...'``, a Ritz value plus its residual,
        which is not a proof if Lanczos misses the top eigenvalue.

    Examples
    --------
    >>> inst = CSPInstance(3, 2, [(0, 1, {(0, 1), (1, 0)}, 1.0), (1, 2, {(0, 1), (1, 0)}, 1.0),
    ...                          (0, 2, {(0, 1), (1, 0)}, 1.0)])
    >>> res = solve_max_2csp(inst, rng=0)
    >>> res.value, res.upper_bound >= 2.0
    (2.0, True)
    """
    if not isinstance(instance, CSPInstance):
        raise TypeError(f"instance must be a CSPInstance, got {type(instance).__name__}")
    if method not in ("lowrank", "scs"):
        raise ValueError(f"method={method!r} is not 'lowrank' or 'scs'")
    if not isinstance(seeds, (int, np.integer)) or seeds < 0:
        raise ValueError(f"seeds must be an integer >= 0, got {seeds!r}")
    if instance.q ** seeds > 4096:
        raise ValueError(f"seeds={seeds} would enumerate q**seeds = {instance.q ** seeds} assignments")
    tol = check_positive(tol, name="tol")
    max_iters = check_integer(max_iters, name="max_iters", low=1)
    if rank is not None:
        rank = check_integer(rank, name="rank", low=2)
    check_label_engine_memory(instance.n, instance.q, m=instance.m, method=method, rank=rank,
                              samples=samples, seeds=seeds, tabu_moves=tabu_moves)
    weights = instance._arrays[3]
    check_weight_scale(float(np.sum(weights)), what="the constraints' weights")
    gen = make_rng(rng)
    # solved on the weights times 2^k, the largest near 1 (exact): the tolerances of the solvers
    # and of SCS are relative to 1; the values and bounds come back in the caller's units
    k = normalizing_exponent(float(np.max(weights, initial=0.0)),
                             float(np.min(weights, where=weights > 0, initial=np.inf)))
    if method == "lowrank":
        res = _solve_lowrank(_scaled_instance(instance, k), gen, seeds=seeds, samples=samples,
                             local_search=local_search, time_limit=time_limit,
                             progress=progress, tol=tol, rank=rank, certificate=certificate, k=k,
                             perturbation_rounds=perturbation_rounds, tabu_moves=tabu_moves,
                             tabu_time=tabu_time)
    else:
        res = _solve_scs(_scaled_instance(instance, k), gen, seeds=seeds, samples=samples,
                         local_search=local_search, time_limit=time_limit, progress=progress,
                         scs_eps=scs_eps, max_iters=max_iters, k=k)
    return _in_weight_units(res, instance, k)


def _solve_scs(inst: CSPInstance, gen, *, seeds, samples, local_search, time_limit, progress,
               scs_eps, max_iters, k=0) -> CSPResult:
    """``method="scs"``: CVXPY + SCS on the moment matrix, its certificate, correlation
    rounding and local search (``inst``: the caller's instance times ``2^k``)."""
    n = inst.n
    timings = {}
    t = time.perf_counter()
    sdp_val, Y, secs, status, (mom, lam, z) = cvxpy_max_2csp_sdp(
        inst, eps=scs_eps, max_iters=max_iters, time_limit=time_limit, return_duals=True)
    info = {"method": "scs", "N": mom.N, "equalities": len(mom.b), "nonneg": int(mom.nonneg.size),
            "status": status, "scs_seconds": secs}
    timings["sdp"] = time.perf_counter() - t
    t = time.perf_counter()
    ub, mu, parts = _certify_csp(mom, n, lam, z, inst=inst)
    info.update(certificate="cholesky-verified", lambda_max_bound=mu, **parts)
    timings["certificate"] = time.perf_counter() - t
    if progress:  # in the caller's units (the weights here are theirs times 2^k)
        print(f"[dpgraph.engine] 2-CSP relaxation {unscaled(sdp_val, k):.6g}, certified bound "
              f"{unscaled(ub, k):.6g}", file=sys.stderr)
    t = time.perf_counter()
    Ysym = 0.5 * (Y + Y.T)
    Ysym = Ysym / max(Ysym[0, 0], 1e-300)
    x0, v0, S = _correlation_round(inst, Ysym, seeds, gen, samples)
    timings["rounding"] = time.perf_counter() - t
    t = time.perf_counter()
    rounding = "correlation" if S else "independent"
    if local_search:
        x1, moves = _local_search(inst, inst.label_adjacency(), x0)
        v1 = inst.value(x1)
        info["local_search_moves"] = moves
        if v1 > v0:
            x0, rounding = x1, rounding + "+local search"
    timings["local_search"] = time.perf_counter() - t
    value = inst.value(x0)
    info["seeds"] = S
    denom = max(abs(ub), 1e-300)
    gap = 0.0 if ub == value == 0 else (ub - value) / denom
    return CSPResult(assignment=dict(zip(inst.variables, map(int, x0))), x=x0, value=value,
                     sdp_value=float(sdp_val), upper_bound=float(ub), gap=float(gap), rounding=rounding,
                     timings=timings, info=info, Y=Y)


def _scaled_instance(inst: CSPInstance, k: int) -> CSPInstance:
    """``inst`` with every weight multiplied by ``2^k`` (exact: :func:`normalizing_exponent`),
    its relations shared; ``inst`` itself when ``k = 0``."""
    if k == 0:
        return inst
    I, J, R, Wt = inst._arrays
    out = copy.copy(inst)  # names and source too
    object.__setattr__(out, "_arrays", (I, J, R, np.ldexp(Wt, k)))
    object.__setattr__(out, "constraints", tuple((i, j, rel, float(np.ldexp(w, k)))
                                                 for i, j, rel, w in inst.constraints))
    return out


def _in_weight_units(res: CSPResult, inst: CSPInstance, k: int) -> CSPResult:
    r"""``res``, solved on ``inst``'s weights times :math:`2^k`, in the caller's units:
    ``value`` recomputed on ``inst``, the SDP value, the bound and the ``info`` entries in
    weight units (:data:`~dpgraph.engine.operator.WEIGHT_UNIT_INFO`) times :math:`2^{-k}`
    (:func:`~dpgraph.engine.operator.unscaled`; the bound rounded up where it is subnormal).
    ``gap`` is a ratio, ``Y`` a moment matrix (``Y[0, 0] = 1``), ``rounded`` assignments:
    unchanged."""
    if k == 0:
        return res
    res.value, res.sdp_value = inst.value(res.x), unscaled(res.sdp_value, k)
    res.upper_bound = unscaled(res.upper_bound, k, upper=True)
    for key in WEIGHT_UNIT_INFO:
        if res.info.get(key) is not None:
            res.info[key] = unscaled(res.info[key], k)
    return res


def _solve_lowrank(inst: CSPInstance, gen, *, seeds, samples, local_search, time_limit, progress,
                   tol, rank, certificate, perturbation_rounds, tabu_moves=0,
                   tabu_time=None, k=0) -> CSPResult:
    out = solve_label_csp(inst.label_adjacency(), inst.n, inst.q, rng=gen, rank=rank, tol=tol,
                          time_limit=time_limit, certificate=certificate, samples=samples,
                          seeds=seeds, local_search=local_search, progress=progress,
                          progress_unit=unscaled(1.0, k),
                          perturbation_rounds=perturbation_rounds, tabu_moves=tabu_moves,
                          tabu_time=tabu_time)
    x = out["x"]
    value = inst.value(x)
    ub = out["upper_bound"]
    sol = out["solution"]
    gap = 0.0 if ub == value == 0 else (ub - value) / max(abs(ub), 1e-300)
    info = {"method": "lowrank", "N": inst.n * inst.q + 1, "rank": sol.V.shape[2],
            "iterations": sol.iterations, "converged": sol.converged, "products": sol.products,
            "local_search_moves": out["local_search_moves"], "rounded": out["rounded"],
            **out["certificate"]}
    Y = None
    if inst.n * inst.q + 1 <= 2000:  # small: hand back the moment matrix too
        k = sol.V.shape[2]
        Vf = np.vstack([np.eye(1, k), sol.V.reshape(-1, k)])
        Y = Vf @ Vf.T
    return CSPResult(assignment=dict(zip(inst.variables, map(int, x))), x=x, value=value,
                     sdp_value=out["sdp_value"], upper_bound=ub, gap=float(gap),
                     rounding="vector/correlation" + ("+local search" if local_search else ""),
                     timings=out["timings"], info=info, Y=Y)
