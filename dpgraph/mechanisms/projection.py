"""Projection onto an intersection of convex sets: Dykstra's algorithm and averaged projections.

* :func:`dykstra` (Dykstra 1983; Boyle & Dykstra 1986): converges to the Euclidean projection
  of the starting point onto the intersection -- what Perturb-and-Project Alg. 1 needs.
* :func:`averaged_projections` (Perturb-and-Project Alg. 2, "alternating projections"): converges
  to *a* point of the intersection, in general *not* the projection; cheaper per step and often
  what is used in practice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpgraph.mechanisms.convex import ConvexSet
from dpgraph.privacy.validation import check_integer, check_positive

__all__ = ["ProjectionResult", "dykstra", "averaged_projections"]

_CHUNK = 1024


@dataclass(repr=False)
class ProjectionResult:
    """Result of an iterative projection.

    Attributes
    ----------
    point : ndarray
        The final iterate.
    iterations : int
        Full sweeps over the sets.
    converged : bool
        Whether the stopping criterion was met within ``max_iter``.
    residual : float
        The stopping quantity at the end (relative; see the function's docstring).
    method : str
    history : list of float
        Residual after each sweep.
    """

    point: np.ndarray
    iterations: int
    converged: bool
    residual: float
    method: str
    history: list = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"ProjectionResult(method={self.method!r}, shape={self.point.shape}, "
                f"iterations={self.iterations}, converged={self.converged}, "
                f"residual={self.residual:.3g})")


def _diff_norm(a: np.ndarray, b) -> float:
    """``||a - b||_F`` computed in row chunks (no full temporary); ``b=None`` means 0."""
    if b is None:
        return float(np.linalg.norm(a))
    if a.ndim < 2 or a.shape[0] <= _CHUNK:
        return float(np.linalg.norm(a - b))
    s = 0.0
    for i in range(0, a.shape[0], _CHUNK):
        d = a[i:i + _CHUNK] - b[i:i + _CHUNK]
        s += float(np.vdot(d, d))
    return math.sqrt(s)


def _check_sets(sets):
    if isinstance(sets, ConvexSet):
        sets = [sets]
    sets = list(sets)
    if not sets or not all(isinstance(s, ConvexSet) for s in sets):
        raise TypeError("sets must be a ConvexSet or a non-empty list of ConvexSet objects")
    return sets


def _check_common(point, tol, max_iter):
    x = np.array(point, dtype=np.float64)  # a private copy: the caller's array is never changed
    if not np.all(np.isfinite(x)):
        raise ValueError("point must be finite (no NaN or inf entries)")
    check_positive(tol, name="tol")
    check_integer(max_iter, name="max_iter", low=1)
    return x


def dykstra(point, sets, *, tol: float = 1e-7, max_iter: int = 2000, accelerate: bool = False,
            callback=None) -> ProjectionResult:
    r"""Euclidean projection of ``point`` onto the intersection of ``sets`` (Dykstra's algorithm).

    Cyclic Dykstra: with increments ``p_i = 0`` and ``x = z`` (the point), repeat for each set
    ``C_i``: ``y = x + p_i``; ``x = P_{C_i}(y)``; ``p_i = y - x``. The iterates converge to
    ``P_C(z)``, ``C = \cap_i C_i`` (Boyle & Dykstra 1986), unlike plain alternating projections.

    Stopping rule (certified): after a sweep producing ``x_1, ..., x_m = x`` (``x_i`` in ``C_i``),
    ``dist(x, C_i) <= ||x - x_i|| <= sum_{j > i} ||x_j - x_{j-1}||``; the step lengths are computed
    exactly from the increments (``x_{j-1} - x_j = p_j^{new} - p_j^{old}``). The residual is
    ``feas = max_i sum_{j>i} ||x_j - x_{j-1}|| / max(1, ||z||_F)``; the iteration stops when
    ``feas <= tol``. When all steps vanish, every ``p_i`` lies in the normal cone of ``C_i`` at
    ``x`` and ``z - x = sum_i p_i``, which is exactly the optimality condition of the projection.
    (Steps are also required to be non-increasing-insensitive: the check is made on the whole
    sweep, so a single tiny step does not stop it.)

    Memory: the iterate, one buffer and one increment per set (each the size of ``point``);
    projections write in place where the set supports it.

    ``accelerate=True`` (two sets ``A, B`` only): the same projection by accelerated proximal
    gradient on the dual. With ``f(X) = ||X - z||^2/2 + 1_A(X)``, the dual
    ``min_Y f*(-Y) + sigma_B(Y)`` has a 1-Lipschitz gradient (``-P_A(z - Y)``) and the prox of the
    support function ``sigma_B`` is ``W - P_B(W)`` (Moreau); FISTA with adaptive restart
    (Beck & Teboulle 2009; O'Donoghue & Candes 2015) then gives the dual an ``O(1/k^2)`` rate,
    where cyclic Dykstra (unaccelerated dual block-coordinate ascent) has ``O(1/k)``. The primal
    point is ``X = P_A(z - Y)``, always in ``A``; the residual ``||Y_{k+1} - V_k|| / max(1, ||z||)``
    equals ``||X - P_B(V_k + X)||``, an upper bound on ``dist(X, B)`` that vanishes exactly at
    the projection. Memory: five arrays the size of ``point``.

    Parameters
    ----------
    point : array
    sets : ConvexSet or list of ConvexSet
    tol : float > 0
    max_iter : int
        Maximum number of sweeps.
    callback : callable(iteration, x, residual), optional

    Returns
    -------
    ProjectionResult

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.mechanisms import Box, FrobeniusBall, dykstra
    >>> res = dykstra(np.array([2.0, 2.0]), [Box(upper=1.5), FrobeniusBall(1.0)])
    >>> np.round(res.point, 6), res.converged
    (array([0.707107, 0.707107]), True)
    """
    sets = _check_sets(sets)
    x = _check_common(point, tol, max_iter)
    scale = max(1.0, float(np.linalg.norm(x)))
    if len(sets) == 1:
        sets[0].project(x, out=x)
        return ProjectionResult(x, 1, True, 0.0, "dykstra", [0.0])
    if accelerate and len(sets) == 2:
        return _dual_fista(x, sets[0], sets[1], tol, max_iter, callback, scale)
    m = len(sets)
    incs: list = [None] * m
    buf = np.empty_like(x)
    history = []
    converged = False
    it = 0
    for it in range(1, int(max_iter) + 1):
        steps = np.zeros(m)
        for i, S in enumerate(sets):
            if incs[i] is None:
                np.copyto(buf, x)
            else:
                np.add(x, incs[i], out=buf)
            S.project(buf, out=x)
            np.subtract(buf, x, out=buf)  # buf = new increment
            steps[i] = _diff_norm(buf, incs[i])
            if incs[i] is None:
                incs[i], buf = buf, np.empty_like(x)
            else:
                incs[i], buf = buf, incs[i]
        # tail sums: dist(x, C_i) <= sum_{j > i} steps[j]
        tails = np.concatenate([np.cumsum(steps[::-1])[::-1][1:], [0.0]])
        feas = float(tails.max()) / scale
        history.append(feas)
        if callback is not None:
            callback(it, x, feas)
        if feas <= tol and it > 1:
            converged = True
            break
    return ProjectionResult(x, it, converged, history[-1], "dykstra", history)


def _inner(a: np.ndarray, b: np.ndarray) -> float:
    if a.ndim < 2 or a.shape[0] <= _CHUNK:
        return float(np.vdot(a, b))
    return float(sum(np.vdot(a[i:i + _CHUNK], b[i:i + _CHUNK]) for i in range(0, a.shape[0], _CHUNK)))


def _dual_fista(x, A, B, tol, max_iter, callback, scale) -> ProjectionResult:
    """Projection onto A cap B by accelerated proximal gradient on the dual (see dykstra)."""
    Z = x
    Y = np.zeros_like(Z)
    V = np.zeros_like(Z)
    buf = np.empty_like(Z)
    buf2 = np.empty_like(Z)
    t = 1.0
    history = []
    converged = False
    it = 0
    for it in range(1, int(max_iter) + 1):
        np.subtract(Z, V, out=buf)
        A.project(buf, out=buf)          # X = P_A(Z - V)
        buf += V                         # W = V + X
        B.project(buf, out=buf2)         # P_B(W)
        buf -= buf2                      # Y+ = W - P_B(W)  (prox of the support function of B)
        res = _diff_norm(buf, V) / scale  # = ||X - P_B(W)||, bounds dist(X, B)
        history.append(res)
        if callback is not None:
            callback(it, buf2, res)
        if res <= tol and it > 1:
            converged = True
            Y = buf
            break
        t_next = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
        # adaptive restart (O'Donoghue & Candes 2015): drop momentum when it points uphill
        if _inner(V - buf, buf - Y) > 0:
            t, t_next = 1.0, 1.0
        beta = (t - 1) / t_next
        np.subtract(buf, Y, out=V)
        V *= beta
        V += buf
        Y, buf = buf, Y
        t = t_next
    del V, buf2
    np.subtract(Z, Y, out=Z)
    A.project(Z, out=Z)
    return ProjectionResult(Z, it, converged, history[-1], "dykstra-dual-fista", history)


def averaged_projections(point, sets, *, tol: float = 1e-7, max_iter: int = 5000,
                         method: str = "average", callback=None) -> ProjectionResult:
    r"""A point of the intersection of ``sets`` by averaged (or alternating) projections
    (Perturb-and-Project Alg. 2).

    ``method="average"``: ``x <- (1/m) sum_i P_{C_i}(x)``; ``method="alternating"``:
    ``x <- P_{C_m}(... P_{C_1}(x))``. Both converge to *a point of the intersection* (when it is
    non-empty), which is in general **not** the Euclidean projection of ``point`` (use
    :func:`dykstra` for that). Stopping rule (certified feasibility): for ``"average"`` the
    residual is ``max_i ||x - P_{C_i}(x)|| / max(1, ||point||)``, computed exactly at every step;
    for ``"alternating"`` it is the bound ``max_i sum_{j>i} step_j`` as in :func:`dykstra`.
    Stops when the residual is ``<= tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.mechanisms import Box, FrobeniusBall, averaged_projections
    >>> res = averaged_projections(np.array([2.0, 2.0]), [Box(upper=0.5), FrobeniusBall(1.0)])
    >>> bool(np.all(res.point <= 0.5 + 1e-6)) and bool(np.linalg.norm(res.point) <= 1 + 1e-6)
    True
    """
    sets = _check_sets(sets)
    if method not in ("average", "alternating"):
        raise ValueError(f"method must be 'average' or 'alternating', got {method!r}")
    x = _check_common(point, tol, max_iter)
    scale = max(1.0, float(np.linalg.norm(x)))
    m = len(sets)
    history = []
    converged = False
    it = 0
    buf = np.empty_like(x)
    acc = np.empty_like(x) if method == "average" else None
    for it in range(1, int(max_iter) + 1):
        if method == "average":
            acc.fill(0.0)
            dists = np.zeros(m)
            for i, S in enumerate(sets):
                S.project(x, out=buf)
                dists[i] = _diff_norm(x, buf)
                acc += buf
            res = float(dists.max()) / scale
            history.append(res)
            if callback is not None:
                callback(it, x, res)
            if res <= tol:
                converged = True
                break
            np.multiply(acc, 1.0 / m, out=x)
        else:
            steps = np.zeros(m)
            for i, S in enumerate(sets):
                np.copyto(buf, x)
                S.project(buf, out=x)
                steps[i] = _diff_norm(buf, x)
            tails = np.concatenate([np.cumsum(steps[::-1])[::-1][1:], [0.0]])
            res = float(tails.max()) / scale
            history.append(res)
            if callback is not None:
                callback(it, x, res)
            if res <= tol:
                converged = True
                break
    return ProjectionResult(x, it, converged, history[-1], 
                            "averaged-projections" if method == "average"
                            else "alternating-projections", history)
