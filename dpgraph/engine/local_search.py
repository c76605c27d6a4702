r"""Iterated tabu search for Max-Cut and Max-Bisection with incremental gains.

The improvement phase that runs on top of the SDP roundings (:mod:`dpgraph.engine.rounding`). It is
the move rule of breakout local search (Benlic and Hao, "Breakout local search for the max-cut
problem", Eng. Appl. Artif. Intell. 26, 2013) -- best non-tabu single flip, random tabu tenure,
random perturbation after a stall -- and, for bisection, the alternating one-vertex moves of
tabu search for balanced partitions (Wu and Hao, "Memetic approaches for the max-bisection
problem", Comput. Oper. Res. 40, 2013):

* **gains**: with :math:`g_i = x_i (W x)_i`, flipping vertex i changes the cut
  :math:`\tfrac14(\mathbf 1^TW\mathbf 1 - x^TWx)` by exactly :math:`g_i`; after the flip only
  the gains of i's neighbours change, :math:`(Wx)_j \mathrel{+}= 2 x_i^{\text{new}} W_{ij}`.
* **move**: the vertex of largest gain among those not tabu (ties: a fixed random order of the
  vertices) is flipped even when the gain is negative; it is then tabu for a random tenure.
  Bisection: when the sides differ by 2 or more vertices, only the larger side may move, so
  every second move (even n) or every move (odd n) is balanced; the best is recorded only at
  balanced states, and balance of the returned vector is exact.
* **perturbation**: after ``stall`` moves without a new best, ``L`` random vertices (bisection:
  ``L`` pairs, one from each side) are flipped and made tabu.

Three back ends compute the same sequence of moves (same tie-breaking, same pre-drawn random
numbers): a numba kernel on CSR neighbour lists with a segment tree over the gains
(:math:`O(\deg \log n)` per move), the same kernel on a dense matrix with a linear scan
(:math:`O(n)` per move), and a pure-NumPy loop that needs only ``column(i)`` or products from
the :class:`~dpgraph.engine.WeightOperator` (used when numba is not installed, or for operators
that have no explicit matrix). numba is a dependency on CPython; where it is missing (PyPy, a
platform with no numba wheel, or ``DPGRAPH_NO_NUMBA=1``) the NumPy loop is used (about 20
microseconds per move at n = 1000).

The search is post-processing of whatever weights it is given; it has no privacy cost of its own.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dpgraph.engine.operator import WeightOperator
from dpgraph.engine.rounding import cut_values, rebalance

__all__ = ["TabuResult", "tabu_search", "anneal", "improve_cut", "prepare", "PreparedOperator",
           "numba_available", "jit", "kernel_load_bytes", "check_kernel_load",
           "NUMBA_IMPORT_BYTES", "NUMBA_COMPILE_BYTES"]

_RANDOM_POOL = 1 << 16   # pre-drawn uniforms / tenures, cycled (shared by all back ends)
_NEG = -np.inf

# numba (a dependency on CPython) is imported on the first kernel call, not with dpgraph: it
# costs about 50 MB of memory and 0.3 s of import time, which a call that runs no kernel
# (reading a graph, most of a synthetic release, the command's --help) need not pay.
# None: not tried yet; False: missing or disabled (a pure-NumPy loop makes the same moves).
_numba = None
_NUMBA_LOCK = threading.RLock()
_KERNELS: list = []


def _numba_module():
    """The numba module, imported on first use, or None where it is missing (PyPy, a platform
    with no numba wheel) or disabled by ``DPGRAPH_NO_NUMBA``."""
    global _numba
    if _numba is None:
        with _NUMBA_LOCK:
            if _numba is None:
                try:
                    if os.environ.get("DPGRAPH_NO_NUMBA"):
                        raise ImportError("disabled by DPGRAPH_NO_NUMBA")
                    import numba
                    _numba = numba
                except ImportError:
                    _numba = False
    return _numba or None


# Resident memory numba adds to the process the first time a kernel runs, which no array
# estimate sees (it is numba's and LLVM's own) and which the available memory shows only once
# it is spent. Measured (VmRSS of a process that has imported dpgraph, before and after; numba
# 0.68.1, CPython 3.11, x86-64 Linux; tabu_search on an 8-cycle, numba-csr back end, with an
# empty then a filled NUMBA_CACHE_DIR): ``import numba`` +50.1 MiB; the first kernel call
# +111.4 MiB when it compiles, +52.5 MiB when numba's disk cache has it; after it, the
# annealing kernel +3.4 MiB and the sparse certificate's fill count +3.3 MiB. Priced: the
# import rounded up to 52 MiB; the first compile (cold: a cache that is missing or not
# writable compiles in every process) and 16 MiB for the kernels compiled after it, 128 MiB.
NUMBA_IMPORT_BYTES = 52 * 2**20
NUMBA_COMPILE_BYTES = 128 * 2**20


def kernel_load_bytes() -> int:
    """Bytes the next kernel call still adds to this process before its own arrays: 0 where
    the kernels run without numba (not installed, ``DPGRAPH_NO_NUMBA`` set) or once a kernel
    has been compiled or loaded in this process; else ``NUMBA_COMPILE_BYTES``, plus
    ``NUMBA_IMPORT_BYTES`` while numba is not imported. Reads the state only: imports nothing.

    >>> kernel_load_bytes() in (0, NUMBA_COMPILE_BYTES, NUMBA_COMPILE_BYTES + NUMBA_IMPORT_BYTES)
    True
    """
    if not _KERNELS or _numba is False or os.environ.get("DPGRAPH_NO_NUMBA"):
        return 0
    if any(getattr(kernel._run, "signatures", None) for kernel in _KERNELS):
        return 0  # a dispatcher with a compiled signature: numba and LLVM are loaded
    return NUMBA_COMPILE_BYTES + (0 if "numba" in sys.modules else NUMBA_IMPORT_BYTES)


def check_kernel_load(what: str) -> None:
    """Refuse, before anything is spent, a private answer whose solves run numba kernels
    (``what``) when numba's first load alone (:func:`kernel_load_bytes`) would not fit: the
    engine's own check (which adds it to its arrays) runs only after the release.

    >>> check_kernel_load("max_cut's solves")  # fits, or nothing left to load: returns None
    """
    from dpgraph.memory import check_memory

    load = kernel_load_bytes()
    if load:
        check_memory(load, what=f"numba's first load in this process (the compiled kernels of "
                                f"{what})",
                     alternative="DPGRAPH_NO_NUMBA=1 runs them without numba.")


def numba_available() -> bool:
    """Whether the numba kernels are used (numba is installed with dpgraph on CPython; False
    on an interpreter without it, or with ``DPGRAPH_NO_NUMBA`` set). The first call imports
    numba."""
    return _numba_module() is not None


class _Kernel:
    """A kernel of :func:`jit`: ``py_func`` compiled by numba on the first call of any
    kernel (:func:`_compile_kernels`), or run as Python where numba cannot be imported."""

    def __init__(self, f):
        functools.update_wrapper(self, f)
        self.py_func = f
        self._run = None

    def __call__(self, *args):
        run = self._run
        if run is None:
            _compile_kernels()
            run = self._run
        return run(*args)


def _compile_kernels() -> None:
    """Give every kernel of :func:`jit` its callable at once: numba's dispatcher (``njit``,
    cached on disk, releasing the GIL), also bound to the kernel's name in its module, so that
    a kernel calling another one finds a dispatcher when numba types it (each compiles on its
    first call); the Python function where numba cannot be imported."""
    numba = _numba_module()
    with _NUMBA_LOCK:
        pending = [k for k in _KERNELS if k._run is None]
        runs = [numba.njit(cache=True, nogil=True)(k.py_func) if numba is not None
                else k.py_func for k in pending]
        for kernel, run in zip(pending, runs):  # every name first: a thread calling a kernel
            f = kernel.py_func                  # as soon as it is set finds its callees bound
            module = sys.modules.get(f.__module__)
            if numba is not None and module is not None \
                    and module.__dict__.get(f.__name__) is kernel:
                module.__dict__[f.__name__] = run
        for kernel, run in zip(pending, runs):
            kernel._run = run


def jit(f):
    """``f`` compiled by numba (``njit``, cached, releasing the GIL) where numba is installed,
    else ``f`` itself: the kernels are written so that both run the same moves. numba is
    imported and the kernels compiled (or loaded from numba's cache) on the first call of
    one of them; without numba installed (or with ``DPGRAPH_NO_NUMBA`` set) ``f`` is returned
    as it is."""
    if os.environ.get("DPGRAPH_NO_NUMBA") or importlib.util.find_spec("numba") is None:
        return f
    kernel = _Kernel(f)
    _KERNELS.append(kernel)
    return kernel


# --------------------------------------------------------------------------------------------
# numba kernel (also valid Python: the tests run it uncompiled on tiny graphs)
# --------------------------------------------------------------------------------------------

@jit
def _tree_set(key, arg, P, t, leaf, val):
    k = P + leaf
    key[t, k] = val
    k >>= 1
    while k >= 1:
        a = 2 * k
        if key[t, a] >= key[t, a + 1]:
            key[t, k] = key[t, a]
            arg[t, k] = arg[t, a]
        else:
            key[t, k] = key[t, a + 1]
            arg[t, k] = arg[t, a + 1]
        k >>= 1


@jit
def _tree_of(x, i, balanced):
    if balanced and x[i] < 0:
        return 1
    return 0


@jit
def _flip(mode, i, it, indptr, indices, data, Wd, x, Wx, tabu_until, pos, key, arg, P, balanced):
    """Flip x_i and update Wx; tree mode: i leaves the trees (every flipped vertex becomes tabu)
    and the keys of its non-tabu neighbours follow their new gains."""
    if mode == 0:
        _tree_set(key, arg, P, _tree_of(x, i, balanced), pos[i], _NEG)
    xi = -x[i]
    x[i] = xi
    if mode == 0:
        for q in range(indptr[i], indptr[i + 1]):
            j = indices[q]
            Wx[j] += 2.0 * xi * data[q]
            if tabu_until[j] <= it:
                _tree_set(key, arg, P, _tree_of(x, j, balanced), pos[j], x[j] * Wx[j])
    else:
        n = x.shape[0]
        row = Wd[i]
        for j in range(n):
            if j != i:
                Wx[j] += 2.0 * xi * row[j]


@jit
def _tabu_kernel(mode, indptr, indices, data, Wd, x, Wx, tabu_until, best_x, pos, inv, tenures, rnd,
                 st_f, st_i, n_moves, balanced, stall, pmin, pmax):
    """Run ``n_moves`` iterations of the tabu search; all state lives in the arrays.

    mode 0: CSR neighbour lists + segment trees; mode 1: dense rows + linear scan.
    st_f = [cur, best, thr]; st_i = [it, last, rnd_pos, ten_pos, unsaved, s, perturbations].
    """
    n = x.shape[0]
    cur, best, thr = st_f[0], st_f[1], st_f[2]
    it, last, rp, tp, unsaved, s, npert = st_i[0], st_i[1], st_i[2], st_i[3], st_i[4], st_i[5], st_i[6]
    RR = rnd.shape[0]
    RT = tenures.shape[0]
    T = 1
    for q in range(RT):
        if tenures[q] + 1 > T:
            T = tenures[q] + 1
    P = 1
    while P < n:
        P *= 2
    key = np.full((2, 2 * P), _NEG)
    arg = np.zeros((2, 2 * P), dtype=np.int64)
    head = np.full(T, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    if mode == 0:
        for t in range(2):
            for leaf in range(P):
                arg[t, P + leaf] = leaf
        for i in range(n):
            if tabu_until[i] <= it:
                key[_tree_of(x, i, balanced), P + pos[i]] = x[i] * Wx[i]
            else:
                slot = tabu_until[i] % T
                nxt[i] = head[slot]
                head[slot] = i
        for t in range(2):
            for k in range(P - 1, 0, -1):
                a = 2 * k
                if key[t, a] >= key[t, a + 1]:
                    key[t, k] = key[t, a]
                    arg[t, k] = arg[t, a]
                else:
                    key[t, k] = key[t, a + 1]
                    arg[t, k] = arg[t, a + 1]
    for _ in range(n_moves):
        # 1. tabu expiries (tree mode keeps non-tabu gains in the trees)
        if mode == 0:
            slot = it % T
            i = head[slot]
            while i != -1:
                nx = nxt[i]
                if tabu_until[i] == it:
                    _tree_set(key, arg, P, _tree_of(x, i, balanced), pos[i], x[i] * Wx[i])
                i = nx
            head[slot] = -1
        # 2. perturbation after a stall
        if it - last >= stall and n >= 2:
            if unsaved == 1:
                best_x[:] = x
                unsaved = 0
            L = pmin + int(rnd[rp] * (pmax - pmin + 1))
            rp = (rp + 1) % RR
            for _q in range(L):
                for side in range(2 if balanced else 1):
                    want = 1.0 if side == 0 else -1.0
                    u = int(rnd[rp] * n)
                    rp = (rp + 1) % RR
                    while balanced and x[u] != want:
                        u = int(rnd[rp] * n)
                        rp = (rp + 1) % RR
                    cur += x[u] * Wx[u]
                    s -= 2 * int(x[u])
                    _flip(mode, u, it, indptr, indices, data, Wd, x, Wx, tabu_until, pos, key, arg, P,
                          balanced)
                    if tabu_until[u] <= it:
                        tabu_until[u] = it + tenures[tp]
                        tp = (tp + 1) % RT
                        if mode == 0:
                            slot = tabu_until[u] % T
                            nxt[u] = head[slot]
                            head[slot] = u
            last = it
            npert += 1
        # 3. select the best allowed non-tabu vertex (ties: smallest position in the order)
        side = 0  # 0: both sides, 1: only x = +1, -1: only x = -1
        if balanced:
            if s > 0:
                side = 1
            elif s < 0:
                side = -1
        i = -1
        bk = _NEG
        if mode == 0:
            if side == 1 or not balanced:
                bk, leaf = key[0, 1], arg[0, 1]
            elif side == -1:
                bk, leaf = key[1, 1], arg[1, 1]
            else:
                bk, leaf = key[0, 1], arg[0, 1]
                if key[1, 1] > bk or (key[1, 1] == bk and arg[1, 1] < leaf):
                    bk, leaf = key[1, 1], arg[1, 1]
            if bk > _NEG:
                i = inv[leaf]
        else:  # sequential scan (no random access); ties go to the smallest position, as in the tree
            bl = n
            for j in range(n):
                if tabu_until[j] <= it and (side == 0 or (side == 1) == (x[j] > 0)):
                    g = x[j] * Wx[j]
                    if g > bk or (g == bk and pos[j] < bl):
                        bk = g
                        bl = pos[j]
                        i = j
        if i < 0:
            it += 1
            continue
        # 4. move (save the best first unless this move improves it at a balanced state)
        g = x[i] * Wx[i]
        s_new = s - 2 * int(x[i])
        if unsaved == 1 and not (g > thr and (not balanced or abs(s_new) <= 1)):
            best_x[:] = x
            unsaved = 0
        _flip(mode, i, it, indptr, indices, data, Wd, x, Wx, tabu_until, pos, key, arg, P, balanced)
        cur += g
        s = s_new
        tabu_until[i] = it + tenures[tp]
        tp = (tp + 1) % RT
        if mode == 0:
            slot = tabu_until[i] % T
            nxt[i] = head[slot]
            head[slot] = i
        it += 1
        if (not balanced or abs(s) <= 1) and cur > best + thr:
            best = cur
            unsaved = 1
            last = it
    if unsaved == 1:
        best_x[:] = x
        unsaved = 0
    st_f[0], st_f[1] = cur, best
    st_i[0], st_i[1], st_i[2], st_i[3], st_i[4], st_i[5], st_i[6] = it, last, rp, tp, unsaved, s, npert


@jit
def _anneal_kernel(indptr, indices, data, x, Wx, best_x, betas, seed, thr, gmax_int, mu, s):
    r"""Metropolis sweeps (one per entry of ``betas``) over the vertices in index order.

    Single-flip simulated annealing (Kirkpatrick, Gelatt, Vecchi 1983) on CSR neighbour lists:
    flipping i changes the cut by g_i = x_i (Wx)_i; accept when g_i >= 0 or with probability
    exp(beta g_i). With integer weights (``gmax_int`` > 0: every gain is an integer in
    [-gmax_int, gmax_int]) the acceptance probabilities of a sweep come from a table. Uniforms
    come from xorshift64* (Vigna 2016). Bisection (``mu > 0``): the move is judged on the
    penalised objective :math:`\mathrm{cut} - \mu s^2` with :math:`s = \sum_i x_i`, i.e. on
    :math:`g_i - 4\mu(1 - x_i s)`, and only states with :math:`|s| \le 1` count as best.
    Returns (final cut change, best cut change) relative to the start; ``best_x`` holds the
    best vector seen (checked at the end of every sweep).
    """
    n = x.shape[0]
    state = np.uint64(seed) | np.uint64(1)
    mult = np.uint64(2685821657736338717)
    s11, s12, s25, s27 = np.uint64(11), np.uint64(12), np.uint64(25), np.uint64(27)
    inv53 = 1.0 / 9007199254740992.0
    table = np.zeros(max(gmax_int, 0) + 1)
    cur = 0.0
    best = 0.0
    for b in range(betas.shape[0]):
        beta = betas[b]
        if gmax_int > 0:
            for k in range(gmax_int + 1):
                table[k] = np.exp(-beta * k)
        for i in range(n):
            g = x[i] * Wx[i]
            d = g
            if mu > 0.0:
                d = g - 4.0 * mu * (1.0 - x[i] * s)
            accept = d >= 0.0
            if not accept:
                state ^= state >> s12
                state ^= state << s25
                state ^= state >> s27
                r = float((state * mult) >> s11) * inv53
                if gmax_int > 0 and mu == 0.0:
                    p = table[int(-d + 0.5)]
                else:
                    p = np.exp(beta * d)
                accept = r < p
            if accept:
                xi = -x[i]
                x[i] = xi
                s += 2 * int(xi)
                cur += g
                for q in range(indptr[i], indptr[i + 1]):
                    Wx[indices[q]] += 2.0 * xi * data[q]
        if cur > best + thr and (mu == 0.0 or abs(s) <= 1):
            best = cur
            best_x[:] = x
    return cur, best


# --------------------------------------------------------------------------------------------
# pure-NumPy back end: the same moves, vectorised per move, through the operator only
# --------------------------------------------------------------------------------------------

def _column_getter(op):
    col = getattr(op, "column", None)
    if col is not None:
        def get(i):
            idx, w = col(i)
            keep = idx != i
            return idx[keep], w[keep]
        return get
    n = op.n

    def get(i):  # operator without explicit columns: one product with a unit vector
        e = np.zeros(n)
        e[i] = 1.0
        c = np.asarray(op.matmul(e), dtype=np.float64).ravel()
        c[i] = 0.0
        idx = np.flatnonzero(c)
        return idx, c[idx]
    return get


def _tabu_numpy(column, x, Wx, tabu_until, best_x, pos, inv, tenures, rnd, st_f, st_i, n_moves,
                balanced, stall, pmin, pmax):
    """The moves of :func:`_tabu_kernel`, one NumPy-vectorised step per move."""
    n = x.shape[0]
    cur, best, thr = float(st_f[0]), float(st_f[1]), float(st_f[2])
    it, last, rp, tp, unsaved, s, npert = (int(v) for v in st_i)
    RR, RT = rnd.shape[0], tenures.shape[0]

    def flip(i):
        xi = -x[i]
        x[i] = xi
        idx, w = column(i)
        Wx[idx] += 2.0 * xi * w

    for _ in range(int(n_moves)):
        if it - last >= stall and n >= 2:
            if unsaved:
                best_x[:] = x
                unsaved = 0
            L = pmin + int(rnd[rp] * (pmax - pmin + 1))
            rp = (rp + 1) % RR
            for _q in range(L):
                for side in range(2 if balanced else 1):
                    want = 1.0 if side == 0 else -1.0
                    u = int(rnd[rp] * n)
                    rp = (rp + 1) % RR
                    while balanced and x[u] != want:
                        u = int(rnd[rp] * n)
                        rp = (rp + 1) % RR
                    cur += x[u] * Wx[u]
                    s -= 2 * int(x[u])
                    flip(u)
                    if tabu_until[u] <= it:
                        tabu_until[u] = it + tenures[tp]
                        tp = (tp + 1) % RT
            last = it
            npert += 1
        mask = tabu_until <= it
        if balanced and s > 0:
            mask &= x > 0
        elif balanced and s < 0:
            mask &= x < 0
        keyv = np.where(mask, x * Wx, _NEG)[inv]
        leaf = int(np.argmax(keyv))
        if not keyv[leaf] > _NEG:
            it += 1
            continue
        i = int(inv[leaf])
        g = x[i] * Wx[i]
        s_new = s - 2 * int(x[i])
        if unsaved and not (g > thr and (not balanced or abs(s_new) <= 1)):
            best_x[:] = x
            unsaved = 0
        flip(i)
        cur += g
        s = s_new
        tabu_until[i] = it + tenures[tp]
        tp = (tp + 1) % RT
        it += 1
        if (not balanced or abs(s) <= 1) and cur > best + thr:
            best = cur
            unsaved = 1
            last = it
    if unsaved:
        best_x[:] = x
        unsaved = 0
    st_f[0], st_f[1] = cur, best
    st_i[:] = (it, last, rp, tp, unsaved, s, npert)


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

@dataclass
class TabuResult:
    """Best vector found by :func:`tabu_search` and what the search did."""

    x: np.ndarray          # best ±1 vector (balanced when the search was)
    value: float           # its cut, recomputed from scratch on the operator
    moves: int             # tabu iterations run
    perturbations: int     # breakouts (random perturbations) applied
    backend: str           # "numba-csr", "numba-dense" or "numpy"
    seconds: float
    tracked_value: float = float("nan")   # best cut as tracked by the incremental gains
    final_x: np.ndarray | None = None     # the search's last state (may be one move off balance)
    final_value: float = float("nan")     # its cut as tracked by the incremental gains


def _default_params(n: int, balanced: bool):
    """Tenure range, stall length and perturbation strength (tuned on G-set G3, G35, G81)."""
    t_lo = max(3, n // 100)
    t_hi = max(t_lo + 2, n // 20)
    stall = max(500, 2 * n)
    p_lo = max(1, n // 200)
    p_hi = max(p_lo, n // 50)
    if balanced:  # pairs
        p_lo, p_hi = max(1, p_lo // 2), max(1, p_hi // 2)
    return (t_lo, t_hi), stall, (p_lo, p_hi)


def _offdiag_csr(W) -> sp.csr_array:
    A = sp.csr_array(W, dtype=np.float64, copy=True)
    A.setdiag(0.0)
    A.eliminate_zeros()
    A.sort_indices()
    return A


def _pick_backend(op, backend: str):
    W = getattr(op, "W", None)
    if backend == "auto":
        if W is None or not numba_available():
            return "numpy"
        if isinstance(W, np.ndarray):
            return "numba-dense"
        return "numba-csr" if sp.issparse(W) else "numpy"
    if backend not in ("numpy", "numba-csr", "numba-dense"):
        raise ValueError(f"backend must be 'auto', 'numpy', 'numba-csr' or 'numba-dense', got {backend!r}")
    if backend != "numpy" and not numba_available():
        raise ValueError(f"backend={backend!r} needs numba (pip install numba), which is not installed")
    if backend == "numba-dense" and not isinstance(W, np.ndarray):
        raise ValueError("backend='numba-dense' needs a dense weight operator")
    if backend == "numba-csr" and not (sp.issparse(W) or isinstance(W, np.ndarray)):
        raise ValueError("backend='numba-csr' needs an explicit (sparse or dense) weight matrix")
    return backend


class PreparedOperator:
    """Per-operator data for repeated searches: the back end, CSR arrays without the diagonal
    (numba-csr), the dense matrix (numba-dense) or a column getter (numpy)."""

    def __init__(self, op: WeightOperator, backend: str):
        self.op = op
        self.backend = _pick_backend(op, backend)
        self.csr = None
        self.dense = np.zeros((1, 1))
        e_i = np.zeros(1, dtype=np.int64)
        self.indptr, self.indices, self.data = e_i, e_i, np.zeros(1)
        if self.backend == "numba-csr":
            A = _offdiag_csr(op.W)
            self.indptr = A.indptr.astype(np.int64)
            self.indices = A.indices.astype(np.int64)
            self.data = A.data
        elif self.backend == "numba-dense":
            self.dense = op.W
        else:
            self.column = _column_getter(op)


def prepare(op: WeightOperator, backend: str = "auto") -> PreparedOperator:
    """Choose the back end for ``op`` and build its arrays once (reused by every search on ``op``).

    ``"auto"``: numba on the CSR neighbour lists of a sparse operator or on the rows of a dense
    one when numba is installed, else the NumPy loop (which needs only ``column`` or ``matmul``).
    """
    return PreparedOperator(op, backend)


def tabu_search(op: WeightOperator, x0, *, balanced: bool = False, max_moves: int | None = None,
                time_limit: float | None = None, rng=None, tenure: tuple | None = None,
                stall: int | None = None, perturbation: tuple | None = None, backend: str = "auto",
                prepared: PreparedOperator | None = None, target: float | None = None) -> TabuResult:
    r"""Iterated tabu search from ``x0`` (see the module docstring); returns the best vector seen.

    Parameters
    ----------
    op : WeightOperator
        The instance (see :func:`dpgraph.engine.as_weight_operator`).
    x0 : array of ±1
        Start; with ``balanced`` it must satisfy :math:`|\sum_i x_i| \le 1`.
    balanced : bool
        Max-Bisection: moves keep the sides within one vertex of each other at every second move,
        and only balanced vectors are returned.
    max_moves : int, optional
        Number of tabu iterations (default ``20 n`` when no ``time_limit`` is given).
    time_limit : float, optional
        Seconds; the search stops at whichever of ``max_moves`` and ``time_limit`` comes first
        (checked between chunks of moves, so it may run over by a few tens of milliseconds).
    rng : numpy.random.Generator or int, optional
        Tie-breaking order, tenures and perturbations.
    tenure, stall, perturbation
        ``(lo, hi)`` tabu tenure, moves without a new best before a perturbation, ``(lo, hi)``
        perturbation strength; defaults scale with n.
    backend : {"auto", "numba-csr", "numba-dense", "numpy"}
        See :func:`prepare`; ignored when ``prepared`` is given.
    prepared : PreparedOperator, optional
        From :func:`prepare` (saves rebuilding the neighbour lists for repeated searches).
    target : float, optional
        Stop (between chunks of moves) once the best cut reaches it (a bound no cut exceeds);
        a start ``x0`` that already reaches it is returned with no move made (the random
        draws are made all the same, so a caller's ``rng`` advances as before).

    Returns
    -------
    TabuResult
        ``value`` is the cut of ``x`` recomputed from scratch; it is at least the cut of ``x0``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpgraph.engine import as_weight_operator
    >>> op = as_weight_operator(nx.cycle_graph(8))
    >>> tabu_search(op, [1.0] * 8, max_moves=200, rng=0).value
    8.0
    """
    n = op.n
    x = np.array(x0, dtype=np.float64).ravel()
    if x.size != n or not np.all(np.abs(x) == 1.0):
        raise ValueError(f"x0 must be a ±1 vector of length {n}")
    s = int(round(x.sum()))
    if balanced and abs(s) > 1:
        raise ValueError(f"x0 is not balanced (sum {s}); rebalance it first")
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    prep = prepared if prepared is not None else prepare(op, backend)
    (t_lo, t_hi), d_stall, (p_lo, p_hi) = _default_params(n, balanced)
    if tenure is not None:
        t_lo, t_hi = (int(v) for v in tenure)
    if perturbation is not None:
        p_lo, p_hi = (int(v) for v in perturbation)
    stall = d_stall if stall is None else int(stall)
    if not (1 <= t_lo <= t_hi) or not (0 <= p_lo <= p_hi) or stall < 1:
        raise ValueError("need 1 <= tenure[0] <= tenure[1], 0 <= perturbation[0] <= perturbation[1], "
                         "stall >= 1")
    if max_moves is None and time_limit is None:
        max_moves = 20 * n
    t0 = time.perf_counter()
    order = gen.permutation(n).astype(np.int64)      # leaf -> vertex
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n, dtype=np.int64)        # vertex -> leaf
    tenures = gen.integers(t_lo, t_hi + 1, size=_RANDOM_POOL).astype(np.int64)
    rnd = gen.random(_RANDOM_POOL)
    Wx = np.asarray(op.matmul(x), dtype=np.float64).ravel().copy()
    cur = float(cut_values(op, x))
    scale = float(np.max(np.abs(op.degrees))) if n else 1.0
    st_f = np.array([cur, cur, 1e-9 * max(1.0, scale)])
    st_i = np.array([0, 0, 0, 0, 0, s, 0], dtype=np.int64)
    tabu_until = np.zeros(n, dtype=np.int64)
    best_x = x.copy()
    done = 0
    chunk = 2000 if time_limit is not None else (max_moves or 1)
    while True:
        todo = chunk if max_moves is None else min(chunk, max_moves - done)
        if todo <= 0 or n == 0:
            break
        if target is not None and st_f[1] >= target - st_f[2]:
            break  # a cut that reaches a bound no cut exceeds (x0 included): optimal
        tc = time.perf_counter()
        if prep.backend == "numpy":
            _tabu_numpy(prep.column, x, Wx, tabu_until, best_x, pos, order, tenures, rnd, st_f, st_i,
                        todo, balanced, stall, p_lo, p_hi)
        else:
            mode = 0 if prep.backend == "numba-csr" else 1
            _tabu_kernel(mode, prep.indptr, prep.indices, prep.data, prep.dense, x, Wx, tabu_until,
                         best_x, pos, order, tenures, rnd, st_f, st_i, todo, balanced, stall, p_lo, p_hi)
        done += todo
        if time_limit is not None:
            now = time.perf_counter()
            if now - t0 >= time_limit:
                break
            rate = todo / max(now - tc, 1e-6)
            chunk = int(min(max(1000, 0.05 * rate), max(1000, rate * (time_limit - (now - t0)))))
    value = float(cut_values(op, best_x))
    return TabuResult(x=best_x, value=value, moves=int(st_i[0]), perturbations=int(st_i[6]),
                      backend=prep.backend, seconds=time.perf_counter() - t0,
                      tracked_value=float(st_f[1]), final_x=x, final_value=float(st_f[0]))


def anneal(op: WeightOperator, x0, *, sweeps: int | None = None, time_limit: float | None = None,
           beta=None, balanced: bool = False, penalty: float | None = None, rng=None,
           prepared: PreparedOperator | None = None, target: float | None = None):
    """Simulated annealing from ``x0`` (numba, CSR back end only); returns ``(x, value, sweeps)``.

    ``sweeps``: a fixed geometric schedule of inverse temperatures ``beta = (hot, cold)``
    (default ``(0.3, 6)`` over the median |weight|); else the schedule follows the clock over
    ``time_limit`` seconds (and stops early once a cut reaches ``target``, Max-Cut only). ``balanced``: the penalised objective of :func:`_anneal_kernel`
    (``penalty`` mu, default a quarter of the median |weight|), and the returned ``x`` is the last
    state, which may be a few vertices off balance (rebalance it); otherwise the best state.
    """
    prep = prepared if prepared is not None else prepare(op)
    if prep.backend != "numba-csr":
        raise ValueError("anneal needs numba and a sparse weight operator")
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    n = op.n
    x = np.array(x0, dtype=np.float64).ravel()
    Wx = np.asarray(op.matmul(x), dtype=np.float64).ravel().copy()
    best_x = x.copy()
    absw = np.abs(prep.data)
    wtyp = float(np.median(absw[absw > 0])) if np.any(absw > 0) else 1.0
    if beta is None:  # in units of the typical |weight|; tuned on G3, G35, G81 (+-1 weights)
        beta = (0.3 / wtyp, _BETA_COLD / wtyp)
    scale = float(np.max(np.abs(op.degrees))) if n else 1.0
    thr = 1e-9 * max(1.0, scale)
    integral = bool(np.all(prep.data == np.round(prep.data)))
    gmax = 0
    if integral and prep.data.size:
        deg_abs = np.add.reduceat(np.abs(prep.data), prep.indptr[:-1][np.diff(prep.indptr) > 0])
        gmax = int(deg_abs.max())
        if gmax > 4096:
            gmax = 0
    seed = int(gen.integers(2**62))
    b0, b1 = float(beta[0]), float(beta[1])
    mu = 0.0 if not balanced else (0.25 * wtyp if penalty is None else float(penalty))
    if balanced and not mu > 0:
        raise ValueError(f"penalty must be > 0, got {penalty!r}")
    if sweeps is not None:  # a fixed geometric schedule
        betas = np.geomspace(b0, b1, int(sweeps))
        _anneal_kernel(prep.indptr, prep.indices, prep.data, x, Wx, best_x, betas, seed, thr, gmax, mu,
                       int(round(x.sum())))
    else:  # the schedule follows the clock: beta = b0 (b1/b0)^(elapsed / time_limit)
        t0 = time.perf_counter()
        budget = float(time_limit or 0.0)
        best_gain, base, sweeps, chunk = 0.0, 0.0, 0, 4
        v_start = float(cut_values(op, x))
        while True:
            if target is not None and not balanced and v_start + best_gain >= target - thr:
                break
            f = (time.perf_counter() - t0) / budget if budget > 0 else 1.0
            if f >= 1.0:
                break
            bx = best_x.copy()
            betas = np.full(chunk, b0 * (b1 / b0) ** f)
            cur, best = _anneal_kernel(prep.indptr, prep.indices, prep.data, x, Wx, bx, betas,
                                       seed + sweeps, thr, gmax, mu, int(round(x.sum())))
            if base + best > best_gain + thr:
                best_gain = base + best
                best_x[:] = bx
            base += cur
            sweeps += chunk
            el = time.perf_counter() - t0
            chunk = int(min(max(1, sweeps * 0.01 * budget / max(el, 1e-9)), 1 << 20))
    if balanced:
        return x, float(cut_values(op, x)), int(sweeps)
    return best_x, float(cut_values(op, best_x)), int(sweeps)


# Cold end of the annealing schedule over the median |weight| (G81, a torus with gains in
# {-4, ..., 4}: 6 gave +15 over 4 at 1e4 sweeps; G3 and G35 the same within noise)
_BETA_COLD = 6.0
_ANNEAL_SHARE = 0.7  # of the improvement budget, when annealing is available (then tabu search)


def improve_cut(op: WeightOperator, x0, *, balanced: bool = False, time_limit: float, rng=None,
                prepared: PreparedOperator | None = None, target: float | None = None):
    """Spend ``time_limit`` seconds improving ``x0``: simulated annealing on the clock, then tabu
    search from its result (sparse operator with numba; bisection anneals a balance-penalised
    objective and rebalances before the tabu search), tabu search alone otherwise. With
    ``target`` (a value no cut exceeds, e.g. from the certified bound) it stops as soon as a
    cut reaches it.

    Returns ``(x, value, info)`` with ``value >= cut(x0)`` (``x0`` is returned if nothing better
    is found); ``info`` says what ran.
    """
    t0 = time.perf_counter()
    prep = prepared if prepared is not None else prepare(op)
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    x0 = np.array(x0, dtype=np.float64).ravel()
    v0 = float(cut_values(op, x0))
    info = {"backend": prep.backend, "sweeps": 0}
    x, v = x0, v0
    if prep.backend == "numba-csr" and op.n >= 2:
        if not balanced:
            xa, va, sweeps = anneal(op, x0, time_limit=_ANNEAL_SHARE * time_limit, rng=gen,
                                    prepared=prep, target=target)
        else:
            # two anneals, each rebalanced. The free one (plain Max-Cut) moves one vertex at a
            # time and is the better start where the maximum cut is nearly balanced (G81: 13956
            # vs 13842 in 3 s; G35 7680 vs 7669); the balance-penalised one where it is far from
            # balanced (K_100,900 plus 20,000 edges inside the 900: 62045 vs 61756;
            # benchmarks/bench_bisection.py anneal, benchmarks/NOTES.md)
            half = 0.5 * _ANNEAL_SHARE * time_limit
            xf, _, sf = anneal(op, x0, time_limit=half, rng=gen, prepared=prep)
            xp, _, sp_ = anneal(op, x0, time_limit=half, balanced=True, rng=gen, prepared=prep)
            xf, _ = rebalance(op, xf)
            xp, _ = rebalance(op, xp)
            vf, vp = float(cut_values(op, xf)), float(cut_values(op, xp))
            xa, va = (xf, vf) if vf >= vp else (xp, vp)
            sweeps = sf + sp_
            info["anneal_values"] = {"free+rebalance": vf, "penalised+rebalance": vp}
        info["sweeps"] = sweeps
        info["anneal_value"] = va
        if va > v:
            x, v = xa, va
        info["method"] = "anneal+tabu"
    else:
        info["method"] = "tabu"
    left = max(0.0, time_limit - (time.perf_counter() - t0))
    if target is not None and v >= target:
        left = 0.0  # optimal already
        info["stopped"] = "target reached"
    tr = tabu_search(op, x, balanced=balanced, time_limit=left, max_moves=None if left > 0 else 0,
                     rng=gen, prepared=prep, target=target)
    info.update(moves=tr.moves, perturbations=tr.perturbations)
    if tr.value > v:
        x, v = tr.x, tr.value
    info["seconds"] = time.perf_counter() - t0
    return x, v, info
