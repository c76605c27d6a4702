"""Closed convex sets with exact Euclidean projections (Perturb-and-Project, Alg. 1 building blocks).

Every set is a small object with

* ``project(X, out=None)`` -- the exact Euclidean (Frobenius) projection of ``X``;
  ``out`` may be an array of ``X``'s shape (possibly ``X`` itself) to write into;
* ``contains(X, tol=1e-8)`` -- membership up to an absolute tolerance ``tol``;
* ``distance(X)`` -- ``||X - project(X)||_F``.

Matrix sets marked *symmetric* live in the space of real symmetric matrices with the Frobenius
inner product, embedded in all ``n x n`` matrices: their projection first symmetrises
``(X + X^T)/2`` (the orthogonal projection onto the symmetric subspace, which contains the set),
so the result is the projection in the full matrix space as well.

Intersections are projected by Dykstra's algorithm (:func:`dpgraph.mechanisms.dykstra`), which
returns the true projection; :class:`Intersection` wraps that. The interface every set follows,
:class:`ConvexSet`, is defined in :mod:`dpgraph.mechanisms.convex`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg as sla
from scipy.sparse import linalg as spla

from dpgraph.mechanisms.convex import ConvexSet, finish_projection
from dpgraph.mechanisms.projection import dykstra
from dpgraph.privacy.validation import check_number
from dpgraph.spectral.linalg import dense_is_cheaper

__all__ = [
    "ConvexSet",
    "PSDCone",
    "Box",
    "NonNegative",
    "FrobeniusBall",
    "NuclearBall",
    "PSDTraceBall",
    "SpectralBall",
    "DiagonalBox",
    "PSDBoundedDiagonal",
    "Simplex",
    "BlockSimplex",
    "AffineSubspace",
    "Intersection",
]

_CHUNK = 1024  # rows per chunk for blockwise n x n work (bounds temporaries to _CHUNK x n)


def _check_bounds(lower, upper, cls: str):
    """``lower`` and ``upper`` of a box-type set as float arrays (``None``: no bound), refusing
    strings, booleans, NaN, ``lower = +inf``, ``upper = -inf`` and ``lower > upper`` (an empty
    set, whose projection would leave the set) with a message naming ``cls``."""
    out = []
    for value, side in ((lower, "lower"), (upper, "upper")):
        if value is None:
            out.append(None)
            continue
        if isinstance(value, (str, bytes, bool, np.bool_)):
            raise ValueError(f"{cls}: {side} must be a number or an array of numbers (or None), "
                             f"got {value!r}")
        try:
            a = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{cls}: {side} must be a number or an array of numbers (or None), "
                             f"got {value!r}") from None
        if np.any(np.isnan(a)):
            raise ValueError(f"{cls}: {side} must not contain NaN (use None for no bound)")
        if side == "lower" and np.any(a == np.inf) or side == "upper" and np.any(a == -np.inf):
            raise ValueError(f"{cls}: {side} = {'+' if side == 'lower' else '-'}inf leaves the "
                             f"set empty")
        out.append(a)
    lo, hi = out
    if lo is not None and hi is not None and np.any(lo > hi):
        raise ValueError(f"{cls}: lower must be <= upper everywhere")
    return lo, hi


def _sym(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != X.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {X.shape}")
    return 0.5 * (X + X.T)


def project_simplex(v: np.ndarray, total: float = 1.0) -> np.ndarray:
    """Projection of a vector onto ``{x >= 0, sum x = total}`` (sort-based; Held et al. 1974,
    Duchi et al. 2008). ``total`` must be > 0."""
    v = np.asarray(v, dtype=np.float64).ravel()
    if v.size == 0:
        return v.copy()
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    ind = np.arange(1, v.size + 1)
    cond = u - css / ind > 0
    rho = ind[cond][-1]
    theta = css[cond][-1] / rho
    return np.maximum(v - theta, 0.0)


def project_capped_simplex(v: np.ndarray, total: float) -> np.ndarray:
    """Projection onto ``{x >= 0, sum x <= total}``: clip at 0, or the simplex if the sum exceeds."""
    w = np.maximum(np.asarray(v, dtype=np.float64), 0.0)
    if w.sum() <= total:
        return w
    return project_simplex(v, total)


def project_l1_ball(v: np.ndarray, radius: float) -> np.ndarray:
    """Projection onto ``{x : ||x||_1 <= radius}`` (Duchi et al. 2008)."""
    v = np.asarray(v, dtype=np.float64)
    if np.abs(v).sum() <= radius:
        return v.copy()
    return np.sign(v) * project_simplex(np.abs(v), radius)


class PSDCone(ConvexSet):
    """Symmetric positive semidefinite matrices: project by clipping negative eigenvalues of
    ``(X + X^T)/2`` (Higham 1988)."""

    symmetric = True

    def project(self, X, out=None):
        S = _sym(X)
        w, V = sla.eigh(S, overwrite_a=True, check_finite=False)
        pos = w > 0
        R = (V[:, pos] * w[pos]) @ V[:, pos].T
        return finish_projection(0.5 * (R + R.T), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != X.shape[1] or np.abs(X - X.T).max(initial=0) > tol:
            return False
        return bool(sla.eigvalsh(_sym(X), check_finite=False).min(initial=0) >= -tol)


class Box(ConvexSet):
    """Entrywise bounds ``lower <= X <= upper`` (scalars or arrays broadcasting to X; ``None``
    for no bound): projection is clipping."""

    def __init__(self, lower=None, upper=None):
        self.lower, self.upper = _check_bounds(lower, upper, "Box")

    def check_shape(self, shape: tuple) -> None:
        super().check_shape(shape)
        for side in (self.lower, self.upper):
            bound = None if side is None else np.asarray(side)
            if bound is None or not bound.ndim:
                continue
            try:
                fits = tuple(np.broadcast_shapes(bound.shape, shape)) == tuple(shape)
            except ValueError:
                fits = False
            if not fits:
                raise ValueError(f"convex_set: {type(self).__name__} has bounds of shape "
                                 f"{bound.shape}, which do not broadcast to the value's shape "
                                 f"{shape}")

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        if out is None:
            out = np.empty_like(X)
        if self.lower is not None and self.upper is not None:
            np.clip(X, self.lower, self.upper, out=out)
        elif self.lower is not None:
            np.maximum(X, self.lower, out=out)
        elif self.upper is not None:
            np.minimum(X, self.upper, out=out)
        elif out is not X:
            np.copyto(out, X)
        return out

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        ok = True
        if self.lower is not None:
            ok &= bool(np.all(X >= self.lower - tol))
        if self.upper is not None:
            ok &= bool(np.all(X <= self.upper + tol))
        return ok

    def _repr_fields(self):
        f = lambda a: None if a is None else (float(a) if a.ndim == 0 else f"array{a.shape}")  # noqa: E731
        return {"lower": f(self.lower), "upper": f(self.upper)}


class NonNegative(Box):
    """``{X >= 0}`` entrywise."""

    def __init__(self):
        super().__init__(lower=0.0, upper=None)

    def _repr_fields(self):
        return {}


class FrobeniusBall(ConvexSet):
    """``{X : ||X - center||_F <= radius}``: radial scaling."""

    def __init__(self, radius: float, center=None):
        if not (math.isfinite(radius) and radius >= 0):
            raise ValueError(f"radius must be a finite number >= 0, got {radius!r}")
        self.radius = float(radius)
        self.center = None if center is None else np.asarray(center, dtype=np.float64)

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        D = X if self.center is None else X - self.center
        nrm = float(np.linalg.norm(D))
        if nrm <= self.radius:
            return finish_projection(X.copy() if out is None else X, out)
        R = D * (self.radius / nrm)
        if self.center is not None:
            R = R + self.center
        return finish_projection(R, out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        D = X if self.center is None else X - self.center
        return float(np.linalg.norm(D)) <= self.radius + tol

    def _repr_fields(self):
        return {"radius": self.radius, "center": None if self.center is None else "array"}


class NuclearBall(ConvexSet):
    """``{X : ||X - center||_* <= radius}`` (trace/nuclear-norm ball): project the singular
    values (eigenvalues for symmetric input) onto the l1 ball of that radius."""

    def __init__(self, radius: float, center=None):
        if not (math.isfinite(radius) and radius >= 0):
            raise ValueError(f"radius must be a finite number >= 0, got {radius!r}")
        self.radius = float(radius)
        self.center = None if center is None else np.asarray(center, dtype=np.float64)

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        D = X if self.center is None else X - self.center
        if D.ndim == 2 and D.shape[0] == D.shape[1] and np.allclose(D, D.T, rtol=0, atol=1e-14):
            w, V = sla.eigh(_sym(D), check_finite=False)
            w2 = project_l1_ball(w, self.radius)
            R = (V * w2) @ V.T
            R = 0.5 * (R + R.T)
        else:
            U, s, Vt = sla.svd(D, full_matrices=False, check_finite=False)
            R = (U * project_capped_simplex(s, self.radius)) @ Vt
        if self.center is not None:
            R = R + self.center
        return finish_projection(R, out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        D = X if self.center is None else X - self.center
        return float(sla.svdvals(D, check_finite=False).sum()) <= self.radius + tol

    def _repr_fields(self):
        return {"radius": self.radius, "center": None if self.center is None else "array"}


class PSDTraceBall(ConvexSet):
    """``{A PSD, tr A <= c}`` (Nikolov Lemma 6.1's body for second moments with ``c = r^2``):
    project the eigenvalues onto ``{w >= 0, sum w <= c}``."""

    symmetric = True

    def __init__(self, trace: float = 1.0):
        # trace 0 is refused: the set is then {0}, and the eigenvalue projection (onto a
        # simplex of total 0) is undefined
        self.trace = check_number(trace, name="PSDTraceBall: trace",  # 0 would be the set {0}
                                  low=0.0, open_low=True)

    def project(self, X, out=None):
        w, V = sla.eigh(_sym(X), check_finite=False)
        w2 = project_capped_simplex(w, self.trace)
        keep = w2 > 0
        R = (V[:, keep] * w2[keep]) @ V[:, keep].T
        return finish_projection(0.5 * (R + R.T), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        if np.abs(X - X.T).max(initial=0) > tol:
            return False
        w = sla.eigvalsh(_sym(X), check_finite=False)
        return bool(w.min(initial=0) >= -tol and w.sum() <= self.trace + tol)

    def _repr_fields(self):
        return {"trace": self.trace}


class SpectralBall(ConvexSet):
    """Symmetric matrices within spectral distance ``radius`` of a symmetric ``center``:
    ``{X = X^T : ||X - C||_2 <= radius}``.

    Projection: with ``X - C = sum_i l_i v_i v_i^T``, clip every eigenvalue to
    ``[-radius, radius]``, i.e. ``P(X) = X - sum_{|l_i| > radius} (l_i - sign(l_i) radius) v_i v_i^T``.
    Only the eigenpairs outside the radius matter, so for large ``n`` (``method="partial"``, the
    default above ``n = 600``) they are found with ARPACK (``scipy.sparse.linalg.eigsh``) on the
    operator ``v -> X v - U (s * (U^T v))``, asking for more pairs (with the pairs already found
    deflated) until the smallest one returned lies inside the radius; ``X - C`` is never formed
    and no extra ``n x n`` array is used. If more than ``n/16`` pairs would be needed it falls
    back to the dense eigendecomposition (two extra ``n x n`` arrays), which is then cheaper,
    where that fits in memory (:func:`~dpgraph.spectral.linalg.dense_is_cheaper`). ``method="eigh"`` does a full dense eigendecomposition (the reference).

    Parameters
    ----------
    center : array (n, n), or tuple ``(U, s)`` with ``U`` (n, r) and ``s`` (r,)
        The centre ``C``, dense or as low-rank factors ``C = U diag(s) U^T``.
    radius : float >= 0
    method : {"auto", "partial", "eigh"}
    tol : float
        Relative accuracy requested from ARPACK.
    """

    symmetric = True

    def __init__(self, center, radius: float, *, method: str = "auto", tol: float = 1e-10):
        if not (math.isfinite(radius) and radius >= 0):
            raise ValueError(f"radius must be a finite number >= 0, got {radius!r}")
        if method not in ("auto", "partial", "eigh"):
            raise ValueError(f"method must be 'auto', 'partial' or 'eigh', got {method!r}")
        self.radius = float(radius)
        self.method = method
        self.tol = float(tol)
        if isinstance(center, tuple):
            U, s = center
            self.U = np.asarray(U, dtype=np.float64)
            self.s = np.asarray(s, dtype=np.float64).ravel()
            if self.U.ndim != 2 or self.U.shape[1] != self.s.size:
                raise ValueError("center=(U, s) needs U of shape (n, r) and s of length r")
            self.C = None
            self.n = self.U.shape[0]
        else:
            C = np.asarray(center, dtype=np.float64)
            if C.ndim != 2 or C.shape[0] != C.shape[1]:
                raise ValueError(f"center must be a square matrix or (U, s), got shape {C.shape}")
            self.C = 0.5 * (C + C.T)
            self.U = self.s = None
            self.n = C.shape[0]
        self._k_hint = 6
        self.last_num_eigenpairs = None  # diagnostics: pairs outside the radius at the last call

    def _repr_fields(self):
        form = "dense" if self.C is not None else f"factors(r={self.s.size})"
        return {"n": self.n, "center": form, "radius": self.radius, "method": self.method}

    def _center_dense(self) -> np.ndarray:
        if self.C is not None:
            return self.C
        return (self.U * self.s) @ self.U.T

    def _use_partial(self) -> bool:
        return self.method == "partial" or (self.method == "auto" and self.n > 600)

    def _operator(self, S: np.ndarray) -> spla.LinearOperator:
        if self.C is not None:
            C = self.C
            mv = lambda V: S @ V - C @ V  # noqa: E731
        else:
            U, s = self.U, self.s
            mv = lambda V: S @ V - U @ (s[:, None] * (U.T @ V)) if V.ndim == 2 else \
                S @ V - U @ (s * (U.T @ V))  # noqa: E731
        return spla.LinearOperator((self.n, self.n), matvec=mv, matmat=mv, dtype=np.float64)

    def check_shape(self, shape: tuple) -> None:
        super().check_shape(shape)
        if tuple(shape) != (self.n, self.n):
            raise ValueError(f"convex_set: {type(self).__name__} holds {self.n} x {self.n} "
                             f"matrices; the value has shape {shape}")

    def outlying_eigenpairs(self, S: np.ndarray):
        """Eigenpairs ``(l, V)`` of ``S - C`` with ``|l| > radius`` (S symmetric)."""
        r = self.radius
        if not self._use_partial():
            w, V = sla.eigh(S - self._center_dense(), check_finite=False)
            m = np.abs(w) > r
            return w[m], V[:, m]
        n = self.n
        op = self._operator(S)
        v0 = np.random.default_rng(12345).standard_normal(n)  # fixed start: deterministic result
        found_w, found_V = [], []
        k = min(self._k_hint, n - 2)
        total = 0
        while True:
            if found_w:
                Wf = np.concatenate(found_w)
                Vf = np.hstack(found_V)

                def mv(V, op=op, Wf=Wf, Vf=Vf):  # deflate the pairs already found
                    return op.matmat(V) - Vf @ (Wf[:, None] * (Vf.T @ V)) if V.ndim == 2 else \
                        op.matvec(V) - Vf @ (Wf * (Vf.T @ V))
                cur = spla.LinearOperator((n, n), matvec=mv, matmat=mv, dtype=np.float64)
            else:
                cur = op
            if dense_is_cheaper(n, total + k):  # much of the spectrum is outside: LAPACK
                w, V = sla.eigh(S - self._center_dense(), check_finite=False)
                m = np.abs(w) > r
                self._k_hint = max(6, int(m.sum()) + 4)
                return w[m], V[:, m]
            w, V = spla.eigsh(cur, k=k, which="LM", v0=v0, tol=self.tol,
                              ncv=min(n - 1, max(2 * k + 1, k + 40)))
            m = np.abs(w) > r
            found_w.append(w[m])
            found_V.append(V[:, m])
            total += int(m.sum())
            if not m.all():
                break
            k = min(2 * k, n - 2 - total)
            if k < 1:
                break
        w = np.concatenate(found_w)
        V = np.hstack(found_V)
        self._k_hint = max(6, total + 4)
        return w, V

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        if X.shape != (self.n, self.n):
            raise ValueError(f"expected a {self.n} x {self.n} matrix, got shape {X.shape}")
        if out is None:
            out = np.empty_like(X)
        # symmetrise into out (blockwise so no second n x n temporary)
        if out is X:
            for i in range(0, self.n, _CHUNK):
                blk = 0.5 * (X[i:i + _CHUNK, i:] + X[i:, i:i + _CHUNK].T)
                X[i:i + _CHUNK, i:] = blk
                X[i:, i:i + _CHUNK] = blk.T
        else:
            for i in range(0, self.n, _CHUNK):
                out[i:i + _CHUNK] = 0.5 * (X[i:i + _CHUNK] + X[:, i:i + _CHUNK].T)
        w, V = self.outlying_eigenpairs(out)
        self.last_num_eigenpairs = int(w.size)
        if w.size:
            c = w - np.sign(w) * self.radius
            W = V * c
            for i in range(0, self.n, _CHUNK):
                out[i:i + _CHUNK] -= W[i:i + _CHUNK] @ V.T
        return out

    def spectral_distance(self, X) -> float:
        """``||sym(X) - C||_2``."""
        S = _sym(X)
        if not self._use_partial():
            return float(np.abs(sla.eigvalsh(S - self._center_dense(), check_finite=False)).max())
        w = spla.eigsh(self._operator(S), k=1, which="LM", tol=self.tol,
                       v0=np.random.default_rng(12345).standard_normal(self.n),
                       return_eigenvectors=False)
        return float(abs(w[0]))

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        if np.abs(X - X.T).max(initial=0) > tol:
            return False
        return self.spectral_distance(X) <= self.radius + tol


class DiagonalBox(ConvexSet):
    """``{X : lower <= X_ii <= upper}`` (off-diagonal entries free): clip the diagonal.
    ``lower = upper = 1`` gives the unit-diagonal affine set."""

    def __init__(self, lower=None, upper=None):
        lo, hi = _check_bounds(lower, upper, "DiagonalBox")
        # scalars stay Python floats (repr); arrays broadcast against the diagonal
        self.lower = None if lo is None else (float(lo) if lo.ndim == 0 else lo)
        self.upper = None if hi is None else (float(hi) if hi.ndim == 0 else hi)

    def check_shape(self, shape: tuple) -> None:
        super().check_shape(shape)
        if len(shape) != 2:
            raise ValueError(f"convex_set: {type(self).__name__} bounds a matrix's diagonal; "
                             f"the value has shape {shape}")

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        R = X.copy() if out is None else finish_projection(X, out) if out is not X else out
        d = np.diagonal(R).copy()
        d = np.clip(d, -np.inf if self.lower is None else self.lower,
                    np.inf if self.upper is None else self.upper)
        np.fill_diagonal(R, d)
        return R

    def contains(self, X, tol: float = 1e-8) -> bool:
        d = np.diagonal(np.asarray(X, dtype=np.float64))
        return bool((self.lower is None or np.all(d >= self.lower - tol))
                    and (self.upper is None or np.all(d <= self.upper + tol)))

    def _repr_fields(self):
        return {"lower": self.lower, "upper": self.upper}


class Simplex(ConvexSet):
    """``{x >= 0, sum x = total}`` over all entries of the array (``total = 1``: the probability
    simplex). With ``capped=True``: ``{x >= 0, sum x <= total}``."""

    def __init__(self, total: float = 1.0, *, capped: bool = False):
        if not (math.isfinite(total) and total > 0):
            raise ValueError(f"total must be a finite number > 0, got {total!r}")
        self.total = float(total)
        self.capped = bool(capped)

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        f = project_capped_simplex if self.capped else project_simplex
        return finish_projection(f(X.ravel(), self.total).reshape(X.shape), out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        X = np.asarray(X, dtype=np.float64)
        s = X.sum()
        return bool(X.min(initial=0) >= -tol and
                    (s <= self.total + tol if self.capped else abs(s - self.total) <= tol))

    def _repr_fields(self):
        return {"total": self.total, "capped": self.capped}


class BlockSimplex(ConvexSet):
    """A product of simplices: for each index group ``g`` (an integer array of flat indices),
    ``{x_g >= 0, sum x_g = totals[g]}``; entries in no group are left free.
    Groups must be disjoint. Used for contingency tables (each table sums to the row count)."""

    def __init__(self, groups, totals):
        self.groups = [np.asarray(g, dtype=np.intp).ravel() for g in groups]
        t = np.broadcast_to(np.asarray(totals, dtype=np.float64), (len(self.groups),))
        self.totals = t.copy()
        if np.any(self.totals <= 0):
            raise ValueError("BlockSimplex: totals must be > 0")

    def check_shape(self, shape: tuple) -> None:
        super().check_shape(shape)
        size = int(np.prod(shape, dtype=np.int64))
        if any(g.size and (int(g.max()) >= size or int(g.min()) < -size) for g in self.groups):
            raise ValueError(f"convex_set: {type(self).__name__} has an index group beyond the "
                             f"value's {size} entries (shape {shape})")

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        R = X.copy() if out is None else (out if out is X else finish_projection(X, out))
        flat = R.reshape(-1)
        for g, t in zip(self.groups, self.totals):
            flat[g] = project_simplex(flat[g], t)
        return R

    def contains(self, X, tol: float = 1e-8) -> bool:
        flat = np.asarray(X, dtype=np.float64).reshape(-1)
        return all(flat[g].min(initial=0) >= -tol and abs(flat[g].sum() - t) <= tol * max(1, t)
                   for g, t in zip(self.groups, self.totals))

    def _repr_fields(self):
        return {"groups": len(self.groups)}


class AffineSubspace(ConvexSet):
    """``{x : A vec(x) = b}`` for a (sparse or dense) matrix ``A`` with consistent equations.

    Projection ``x - A^T (A A^T)^+ (A x - b)``; the pseudo-inverse of ``A A^T`` is computed once
    from its eigendecomposition (so redundant equations are fine), which suits up to a few
    thousand equations.
    """

    def __init__(self, A, b, *, shape=None):
        import scipy.sparse as sp

        self.A = sp.csr_matrix(A, dtype=np.float64)
        self.b = np.asarray(b, dtype=np.float64).ravel()
        self.shape = shape
        G = (self.A @ self.A.T).toarray()
        w, V = sla.eigh(G, check_finite=False)
        keep = w > w.max(initial=0) * 1e-12
        self._Vw = V[:, keep] / w[keep]
        self._V = V[:, keep]

    def check_shape(self, shape: tuple) -> None:
        super().check_shape(shape)
        size = int(np.prod(shape, dtype=np.int64))
        if self.A.shape[1] != size:
            raise ValueError(f"convex_set: {type(self).__name__} has {self.A.shape[1]} unknowns; "
                             f"the value has {size} entries (shape {shape})")

    def project(self, X, out=None):
        X = np.asarray(X, dtype=np.float64)
        x = X.reshape(-1)
        r = self.A @ x - self.b
        y = self._Vw @ (self._V.T @ r)
        R = (x - self.A.T @ y).reshape(X.shape)
        return finish_projection(R, out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        r = self.A @ np.asarray(X, dtype=np.float64).reshape(-1) - self.b
        return bool(np.abs(r).max(initial=0) <= tol)

    def _repr_fields(self):
        return {"equations": self.A.shape[0], "unknowns": self.A.shape[1]}


class Intersection(ConvexSet):
    """The intersection of convex sets, projected by Dykstra's algorithm (exact projection in the
    limit; see :func:`dpgraph.mechanisms.dykstra` for the stopping rule).

    ``last_result`` keeps the :class:`~dpgraph.mechanisms.ProjectionResult` of the latest call.
    """

    def __init__(self, sets, *, tol: float = 1e-7, max_iter: int = 2000, accelerate: bool = True):
        self.accelerate = bool(accelerate)
        self.sets = []
        for s in sets:
            if isinstance(s, Intersection):
                self.sets.extend(s.sets)
            elif isinstance(s, ConvexSet):
                self.sets.append(s)
            else:
                raise TypeError(f"Intersection takes ConvexSet objects, got {type(s).__name__}")
        if not self.sets:
            raise ValueError("Intersection needs at least one set")
        self.symmetric = any(s.symmetric for s in self.sets)
        self.tol, self.max_iter = float(tol), int(max_iter)
        self.last_result = None

    def check_shape(self, shape: tuple) -> None:
        for s in self.sets:
            s.check_shape(shape)

    def project(self, X, out=None):
        res = dykstra(X, self.sets, tol=self.tol, max_iter=self.max_iter,
                      accelerate=self.accelerate)
        self.last_result = res
        return finish_projection(res.point, out)

    def contains(self, X, tol: float = 1e-8) -> bool:
        return all(s.contains(X, tol) for s in self.sets)

    def _repr_fields(self):
        return {"sets": self.sets}


class PSDBoundedDiagonal(Intersection):
    """``{X PSD, X_ii <= bound}`` (``equality=True``: ``X_ii = bound``, the elliptope for
    ``bound = 1``): the intersection of :class:`PSDCone` and :class:`DiagonalBox`, projected by
    Dykstra. Perturb-and-Project Alg. 3 projects onto this set (cosine similarities)."""

    def __init__(self, bound: float = 1.0, *, equality: bool = False, tol: float = 1e-7,
                 max_iter: int = 2000):
        self.bound, self.equality = float(bound), bool(equality)
        super().__init__([PSDCone(), DiagonalBox(self.bound if equality else None, self.bound)],
                         tol=tol, max_iter=max_iter)

    def _repr_fields(self):
        return {"bound": self.bound, "equality": self.equality}
