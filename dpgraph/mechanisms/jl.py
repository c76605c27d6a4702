"""The JL mechanism (Nikolov, "Private Query Release via the Johnson-Lindenstrauss Transform",
Alg. 1) for symmetric-matrix-valued statistics: second moments / covariance (Lemma 6.1,
Thm 1.3) and 2-way marginals of binary data.

Statistic: ``S = (1/m) sum_rows x x^T`` (``||x||_2 <= r``; for 0/1 rows with at most ``t`` ones,
``r^2 = t``), in the orthonormal coordinates ``svec(A) = ((A_ii)_i, (sqrt 2 A_ij)_{i<j})`` of
the symmetric matrices (``||svec A|| = ||A||_F``, dimension ``D = d(d+1)/2``).

1. JL matrix ``Pi`` (``l x D``): Gaussian, entries ``N(0, 1/l)``, or Rademacher ``+-1/sqrt(l)``.
   ``Pi`` is public randomness, independent of the data.
2. Release ``y~ = Pi svec(S) + noise``: Gaussian (analytic calibration) or the pure-DP K-norm
   mechanism for a Euclidean ball (Nikolov Lemma 4.2), calibrated to the L2 sensitivity of
   ``Pi svec(S)`` under replace-one-row:
   ``Delta = (1/m) sup ||Pi svec(x x^T - y y^T)|| <= (sqrt 2 r^2 / m) * L`` where ``L`` bounds
   ``||Pi Z||`` over symmetric ``Z`` of rank <= 2 and unit Frobenius norm:

   ``noise="auto"`` (default) is Gaussian when ``delta > 0`` and K-norm (pure DP) when
   ``delta = 0``; ``sensitivity_bound="auto"`` is Gordon's bound when ``delta > 0`` with a
   Gaussian ``Pi``, else the operator norm.

   * ``sensitivity_bound="operator"``: ``L = ||Pi||_2`` (computed; deterministic);
   * ``sensitivity_bound="gordon"`` (Gaussian ``Pi`` only): by Gordon's inequality,
     ``E sup_{Z in T} ||G svec Z|| <= sqrt(l) + w(T)`` for ``G`` with i.i.d. N(0, 1) entries, and
     ``w(T) = E sup_{Z in T} <S_g, Z> <= sqrt 2 E||S_g||_2 <= 2 sqrt(2 d)`` (``S_g`` the symmetric
     Gaussian matrix with ``svec``-coordinates ``g``; ``||S_g|| <= ||G'||_2``, ``E||G'||_2 <= 2 sqrt d``);
     the supremum is 1-Lipschitz in ``G``, so with probability ``>= 1 - beta``
     ``L = 1 + (2 sqrt(2 d) + sqrt(2 ln(1/beta))) / sqrt(l)``. The failure probability ``beta`` is
     charged to delta (so K-norm noise becomes (epsilon, beta)-DP, Gaussian (epsilon, delta));
     it needs ``delta > 0`` and ``beta`` at most ``delta`` (below it with Gaussian noise).
3. Lift (post-processing): ``S^ = argmin_{Z in K} ||Pi svec(Z) - y~||^2`` over the sensitivity
   body ``K = {A PSD, tr A <= r^2}`` (it contains every ``x x^T`` and so ``S``): accelerated
   projected gradient with the exact projection (``lift="projection"``) or Frank-Wolfe with the
   linear-optimisation oracle ``argmin_{Z in K} <G, Z> = r^2 v v^T`` (``v`` the bottom eigenvector
   of ``G`` if its eigenvalue is negative, else 0), stopping on the Frank-Wolfe duality gap
   (``lift="frank-wolfe"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla
from scipy.sparse import linalg as spla

from dpgraph.memory import check_memory
from dpgraph.privacy import PrivacyLedger
from dpgraph.privacy.validation import (check_choice, check_delta, check_epsilon, check_integer,
                                        check_number, check_positive, dense_array)
from dpgraph.privacy.noise import ball_knorm_mechanism, gaussian_mechanism, make_rng
from dpgraph.mechanisms.marginals import check_binary_rows, tensor_sensitivity
from dpgraph.mechanisms.sets import PSDTraceBall

__all__ = ["JLResult", "jl_second_moment", "jl_two_way_marginals", "svec", "smat",
           "gordon_factor", "second_moment_sensitivity", "jl_release_bytes", "JL_MOMENT_COPIES"]


_MAX_JL_ENTRIES = 2**24
# Copies of the d x d matrix a JL release holds at once beside its JL matrix (X^T X, its svec,
# the lift's iterate, momentum, gradient and step, the projection's eigendecomposition): traced
# peaks 8.1-8.8 x 8 d^2 bytes beyond the JL matrix at d = 1,000 and 2,000, both lifts (30,000
# columns died of a bare MemoryError at X^T X); rounded up.
JL_MOMENT_COPIES = 10


def jl_release_bytes(d: int, jl_dim: int) -> int:
    """Bytes a JL release of a ``d x d`` second moment holds at once: ``JL_MOMENT_COPIES``
    ``d x d`` matrices and the ``jl_dim x d (d + 1) / 2`` JL matrix (public sizes only).

    >>> jl_release_bytes(1000, 8) == 8 * (10 * 1000**2 + 8 * 500500)
    True
    """
    d = int(d)
    return 8 * (JL_MOMENT_COPIES * d * d + int(jl_dim) * (d * (d + 1) // 2))


def _check_jl_size(d: int, jl_dim, name: str) -> int:
    """``jl_dim`` checked (at most ``_MAX_JL_ENTRIES`` JL matrix entries, or one row) and
    the release's memory (:func:`jl_release_bytes`) refused where it would not fit, both before
    ``X^T X`` is formed and before anything is spent; returns ``jl_dim``."""
    D = d * (d + 1) // 2
    jl_dim = check_integer(jl_dim, name=f"jl_dim (the JL matrix has jl_dim x {D} entries)",
                           low=1, high=max(1, _MAX_JL_ENTRIES // D))
    check_memory(jl_release_bytes(d, jl_dim),
                 what=f"{name}: the second moment of {d:,} columns (d x d matrices and a "
                      f"{jl_dim:,} x {D:,} JL matrix)",
                 fit=(lambda k: jl_release_bytes(k, 1), "At most {:,} columns fit."))
    return jl_dim


def svec(A: np.ndarray) -> np.ndarray:
    """Orthonormal coordinates of a symmetric matrix: diagonal, then sqrt(2) * upper triangle."""
    A = np.asarray(A, dtype=np.float64)
    iu = np.triu_indices(A.shape[0], 1)
    return np.concatenate([np.diag(A), math.sqrt(2) * A[iu]])


def smat(v: np.ndarray, d: int) -> np.ndarray:
    """Inverse of :func:`svec`."""
    A = np.zeros((d, d))
    iu = np.triu_indices(d, 1)
    A[iu] = v[d:] / math.sqrt(2)
    A = A + A.T
    A[np.diag_indices(d)] = v[:d]
    return A


def gordon_factor(d: int, jl_dim: int, beta: float) -> float:
    """``1 + (2 sqrt(2 d) + sqrt(2 ln(1/beta))) / sqrt(l)``: with probability >= 1 - beta over a
    Gaussian JL matrix, ``||Pi svec Z|| <= factor * ||Z||_F`` for every symmetric ``Z`` of rank
    <= 2 (see the module docstring)."""
    if not 0 < beta < 1:
        raise ValueError(f"beta must lie in (0, 1), got {beta!r}")
    return 1.0 + (2 * math.sqrt(2 * d) + math.sqrt(2 * math.log(1 / beta))) / math.sqrt(jl_dim)


def second_moment_sensitivity(m: int, radius: float = 1.0) -> float:
    """Frobenius sensitivity of ``(1/m) sum x x^T`` (``||x|| <= radius``) under replace-one-row:
    ``||x x^T - y y^T||_F^2 = |x|^4 + |y|^4 - 2 (x.y)^2 <= 2 radius^4``, so ``sqrt 2 radius^2 / m``."""
    return math.sqrt(2) * radius**2 / m


@dataclass(repr=False)
class JLResult:
    """Result of the JL mechanism.

    Attributes
    ----------
    estimate : ndarray (d, d)
        The lifted release ``S^`` (a point of ``K = {A PSD, tr A <= r^2}``).
    jl_dim : int
    sigma_or_scale : float
        Gaussian sigma or K-norm scale of the noise on ``Pi svec(S)``.
    sensitivity : float
        The L2 sensitivity used for the noise.
    lift_iterations : int
    lift_gap : float
        Final Frank-Wolfe duality gap (FW) or relative step (projection).
    ledger : PrivacyLedger
    """

    estimate: np.ndarray
    jl_dim: int
    sigma_or_scale: float
    sensitivity: float
    lift_iterations: int
    lift_gap: float
    ledger: PrivacyLedger
    noise: str
    lift: str

    def __repr__(self) -> str:
        return (f"JLResult(d={self.estimate.shape[0]}, jl_dim={self.jl_dim}, noise={self.noise!r}, "
                f"lift={self.lift!r}, sensitivity={self.sensitivity:.4g}, "
                f"scale={self.sigma_or_scale:.4g}, lift_iterations={self.lift_iterations}, "
                f"lift_gap={self.lift_gap:.3g}, spent={self.ledger.spent})")


def _lift_projection(Pi, y, d, body, max_iter, tol, L):
    """FISTA on 0.5 ||Pi svec Z - y||^2 over the body (exact projection), step 1/L."""
    Z = np.zeros((d, d))
    V = Z.copy()
    t = 1.0
    it = 0
    rel = math.inf
    for it in range(1, max_iter + 1):
        g = smat(Pi.T @ (Pi @ svec(V) - y), d)
        Znew = body.project(V - g / L)
        rel = np.linalg.norm(Znew - Z) / max(1.0, np.linalg.norm(Znew))
        tn = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
        V = Znew + ((t - 1) / tn) * (Znew - Z)
        Z, t = Znew, tn
        if rel <= tol and it > 1:
            break
    return Z, it, rel


def _lift_frank_wolfe(Pi, y, d, c, max_iter, tol):
    """Frank-Wolfe with the LMO of {A PSD, tr A <= c} and exact line search; stops on the
    duality gap ``<grad, Z - S> <= tol * max(1, f(0))`` (a certified optimality bound)."""
    Z = np.zeros((d, d))
    r = Pi @ svec(Z) - y
    f0 = 0.5 * float(y @ y)
    gap = math.inf
    it = 0
    for it in range(1, max_iter + 1):
        G = smat(Pi.T @ r, d)
        w, v = sla.eigh(G, subset_by_index=[0, 0])
        S = c * np.outer(v[:, 0], v[:, 0]) if w[0] < 0 else np.zeros((d, d))
        D = S - Z
        gap = -float(np.sum(G * D))
        if gap <= tol * max(1.0, f0):
            break
        PD = Pi @ svec(D)
        denom = float(PD @ PD)
        step = 1.0 if denom <= 0 else min(1.0, max(0.0, -float(r @ PD) / denom))
        Z = Z + step * D
        r = r + step * PD
    return Z, it, gap


def _jl_matrix(jl, jl_dim, D, gen):
    if jl == "gaussian":
        return gen.standard_normal((jl_dim, D)) / math.sqrt(jl_dim)
    if jl == "rademacher":
        return (gen.integers(0, 2, (jl_dim, D)) * 2.0 - 1.0) / math.sqrt(jl_dim)
    raise ValueError(f"jl must be 'gaussian' or 'rademacher', got {jl!r}")


def _jl_release(S, *, m, radius_sq, d, epsilon, delta, jl_dim, jl, noise, sensitivity_bound,
                beta, lift, ledger, rng, max_iter, tol, name, frobenius: float | None = None):
    # frobenius: sup ||x x^T - y y^T||_F over two rows of the domain (None: sqrt 2 r^2, any
    # rows of norm <= r); the release's sensitivity is it / m times ||Pi|| on rank-2 matrices
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    if ledger is not None and not isinstance(ledger, PrivacyLedger):  # before any charge
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    tol = check_positive(tol, name="tol")
    max_iter = check_integer(max_iter, name="max_iter", low=1)
    check_choice(noise, name="noise", choices=("auto", "gaussian", "knorm"))
    check_choice(jl, name="jl", choices=("gaussian", "rademacher"))
    check_choice(sensitivity_bound, name="sensitivity_bound",
                 choices=("auto", "gordon", "operator"))
    if noise == "auto":  # pure DP when no delta is given
        noise = "gaussian" if delta > 0 else "knorm"
    if sensitivity_bound == "auto":  # Gordon's bound charges a failure probability to delta
        sensitivity_bound = "gordon" if delta > 0 and jl == "gaussian" else "operator"
    if noise == "gaussian" and delta == 0:
        raise ValueError("Gaussian noise needs delta > 0; use noise='knorm' for pure DP")
    check_choice(lift, name="lift", choices=("projection", "frank-wolfe"))
    D = d * (d + 1) // 2
    # the JL matrix is jl_dim x D doubles: at most 2^24 of them (128 MiB)
    jl_dim = check_integer(jl_dim, name=f"jl_dim (the JL matrix has jl_dim x {D} entries)",
                           low=1, high=max(1, _MAX_JL_ENTRIES // D))
    gen = make_rng(rng)
    Pi = _jl_matrix(jl, jl_dim, D, gen)  # public randomness (data-independent)
    beta_used = 0.0
    if sensitivity_bound == "gordon":
        if jl != "gaussian":
            raise ValueError("sensitivity_bound='gordon' holds for a Gaussian JL matrix only; "
                             "use sensitivity_bound='operator' with jl='rademacher'")
        if delta == 0:
            raise ValueError("sensitivity_bound='gordon' charges its failure probability beta "
                             "to delta, and delta=0: for pure DP use "
                             "sensitivity_bound='operator', or pass a delta > 0")
        if beta is None:
            beta = delta / 10
        beta = check_number(beta, name="beta (charged to delta)", low=0.0, high=1.0,
                            open_low=True, open_high=True)
        if beta > delta or (noise == "gaussian" and beta >= delta):
            raise ValueError(f"beta={beta:g} is charged to delta={delta:g} and must be "
                             f"{'below' if noise == 'gaussian' else 'at most'} it")
        Lfac = gordon_factor(d, jl_dim, beta)
        beta_used = float(beta)
    else:
        Lfac = float(spla.svds(Pi, k=1, return_singular_vectors=False,
                               random_state=0)[0]) if min(Pi.shape) > 1 else \
            float(np.linalg.norm(Pi))
        Lfac *= 1 + 1e-9  # ARPACK accuracy margin
    frob = math.sqrt(2) * radius_sq if frobenius is None else float(frobenius)
    sens = frob / m * Lfac
    if not (math.isfinite(sens) and sens > 0):  # refused before any charge (docs 11.1)
        raise ValueError(f"{name}: the sensitivity sqrt(2) radius^2 / m x ||Pi|| = {sens!r} "
                         f"(radius^2 = {radius_sq!r}, m = {m}) is not a finite number > 0 in "
                         f"floating point; rescale the rows and the radius (e.g. to radius 1)")
    if ledger is None:
        ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    if beta_used > 0:
        ledger.charge(f"{name}: JL sensitivity failure", mechanism="jl-gordon-failure",
                      epsilon=0.0, delta=beta_used,
                      note="P[Gordon bound on the JL matrix fails] (Nikolov Alg. 1)")
    ys = Pi @ svec(S)
    if noise == "gaussian":
        yt, scale = gaussian_mechanism(ys, sensitivity=sens, epsilon=epsilon,
                                       delta=delta - beta_used, ledger=ledger, name=name,
                                       rng=gen, note=f"JL dim {jl_dim}, {jl}")
    else:
        yt, scale = ball_knorm_mechanism(ys, sensitivity=sens, epsilon=epsilon, ledger=ledger,
                                         name=name, rng=gen, note=f"JL dim {jl_dim}, {jl}")
    yt = np.asarray(yt, dtype=np.float64)
    if lift == "projection":
        body = PSDTraceBall(radius_sq)
        Lf = float(spla.svds(Pi, k=1, return_singular_vectors=False, random_state=0)[0]) ** 2 \
            if min(Pi.shape) > 1 else float(np.linalg.norm(Pi)) ** 2
        Z, it, gap = _lift_projection(Pi, yt, d, body, max_iter, tol, Lf)
    else:
        Z, it, gap = _lift_frank_wolfe(Pi, yt, d, radius_sq, max_iter, tol)
    return JLResult(Z, jl_dim, float(scale), sens, it, float(gap), ledger, noise, lift)


def _rows(data):
    X = dense_array(data, name="data")  # X^T X is dense anyway: a sparse data is densified
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"data must be a non-empty 2-d array (rows x features), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("data must be finite")
    return X


def rows_in_ball(data, radius) -> tuple[np.ndarray, float]:
    """The rows of ``data`` as a finite float array and ``radius`` as a float > 0, refusing a row
    longer than ``radius`` (the second-moment sensitivity assumes ``||x|| <= radius``)."""
    X = _rows(data)
    r = float(radius)
    if not (math.isfinite(r) and r > 0):
        raise ValueError(f"radius must be a finite number > 0, got {radius!r}")
    if not (math.isfinite(r * r) and r * r > 0):  # the sensitivity is sqrt(2) radius^2 / m ...
        raise ValueError(f"radius={radius!r}: radius^2 = {r * r!r} is not a positive finite "
                         f"double, so the release's sensitivity (proportional to radius^2) "
                         f"cannot be computed; rescale the rows (e.g. by 1 / radius) and pass "
                         f"radius=1")
    norms = np.linalg.norm(X, axis=1)
    if norms.max() > r * (1 + 1e-12):
        raise ValueError(f"every row must have norm <= radius={r:g}; clip rows first")
    # a row within the tolerance above (a row normalised in floating point) is scaled onto the
    # sphere: the sensitivity sqrt(2) r^2 / m holds for rows of norm at most r, not r (1 + 1e-12)
    # (docs/privacy.md 2.6); a per-row map, so replace-one adjacency is kept
    over = norms > r
    if over.any():
        X = X.copy()  # the caller's array is left as it was
        X[over] *= (r / norms[over])[:, None]
    return X, r


def jl_second_moment(data, *, epsilon: float, delta: float = 0.0, radius: float = 1.0,
                     jl_dim: int, jl: str = "gaussian", noise: str = "auto",
                     sensitivity_bound: str = "auto", beta: float | None = None,
                     lift: str = "projection", ledger: PrivacyLedger | None = None, rng=None,
                     max_iter: int = 500, tol: float = 1e-6,
                     name: str = "jl-second-moment") -> JLResult:
    """Second-moment matrix ``(1/m) sum x x^T`` of rows with ``||x|| <= radius`` by the JL
    mechanism (Nikolov Alg. 1 with ``K = {A PSD, tr A <= radius^2}``, Lemma 6.1 / Thm 1.3).
    Adjacency: one row replaced (``m`` public). Rows longer than ``radius`` are refused (clip
    them first, publicly; a row within ``1e-12`` of it is scaled onto the sphere). See the module
    docstring for the sensitivity bound and the lift. ``ledger`` (a :class:`PrivacyLedger`;
    None: a fresh one) records every charge; the lift stops after ``max_iter`` iterations (an
    integer >= 1) or at tolerance ``tol`` (a number > 0).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.eye(3)[[0, 1, 2, 0]]  # unit rows
    >>> res = jl_second_moment(X, epsilon=1.0, delta=1e-6, jl_dim=20, rng=0)
    >>> res.estimate.shape, res.noise, bool(np.trace(res.estimate) <= 1 + 1e-9)
    ((3, 3), 'gaussian', True)
    >>> jl_second_moment(X, epsilon=1.0, jl_dim=20, rng=0).noise  # delta = 0: pure DP
    'knorm'
    """
    X, r = rows_in_ball(data, radius)
    m, d = X.shape
    jl_dim = _check_jl_size(d, jl_dim, name)
    S = X.T @ X / m
    return _jl_release(S, m=m, radius_sq=r * r, d=d, epsilon=epsilon, delta=delta,
                       jl_dim=jl_dim, jl=jl, noise=noise, sensitivity_bound=sensitivity_bound,
                       beta=beta, lift=lift, ledger=ledger, rng=rng, max_iter=max_iter,
                       tol=tol, name=name)


def jl_two_way_marginals(data, *, epsilon: float, delta: float = 0.0,
                         sparsity: int | None = None, jl_dim: int, jl: str = "gaussian",
                         noise: str = "auto", sensitivity_bound: str = "auto",
                         beta: float | None = None, lift: str = "projection",
                         ledger: PrivacyLedger | None = None, rng=None, max_iter: int = 500,
                         tol: float = 1e-6, name: str = "jl-2way-marginals") -> JLResult:
    """All 2-way (and 1-way) conjunction marginals ``(1/m) sum x x^T`` of 0/1 data by the JL
    mechanism: entry ``(i, j)`` of the estimate is the fraction of rows with ``x_i = x_j = 1``
    (diagonal: 1-way). Rows have ``|x| <= t`` ones (``t = sparsity`` or ``n``), so
    ``||x||^2 <= t`` and ``K = {A PSD, tr A <= t}`` contains every ``x x^T`` (Nikolov Sec. 6).
    Adjacency: one row replaced (``m`` public); a row with more than ``t`` ones is refused. The
    other options are those of :func:`jl_second_moment`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]])
    >>> res = jl_two_way_marginals(X, epsilon=1.0, delta=1e-6, sparsity=2, jl_dim=20, rng=0)
    >>> res.estimate.shape, bool(np.trace(res.estimate) <= 2 + 1e-9)
    ((3, 3), True)
    """
    X = check_binary_rows(data)
    m, n = X.shape
    t = n if sparsity is None else check_integer(sparsity, name="sparsity", low=1, high=n)
    if X.sum(axis=1).max() > t:
        raise ValueError(f"sparsity={t} is violated by a row with {int(X.sum(axis=1).max())} ones")
    jl_dim = _check_jl_size(n, jl_dim, name)
    S = X.T @ X / m
    # 0/1 rows with at most t ones: sup ||x x^T - y y^T||_F is tensor_sensitivity(2, n, t), up
    # to sqrt 2 below the sqrt(2) t of rows of norm sqrt t (at t = n: n against sqrt(2) n)
    return _jl_release(S, m=m, radius_sq=float(t), d=n, epsilon=epsilon, delta=delta,
                       jl_dim=jl_dim, jl=jl, noise=noise, sensitivity_bound=sensitivity_bound,
                       beta=beta, lift=lift, ledger=ledger, rng=rng, max_iter=max_iter,
                       tol=tol, name=name, frobenius=tensor_sensitivity(2, n, t))
