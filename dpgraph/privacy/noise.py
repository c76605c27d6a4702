"""The one module that draws privacy noise.

Every public function here charges a :class:`~dpgraph.privacy.ledger.PrivacyLedger` *before*
it draws, so the ledger is a complete record of the noise a result depends on.

Floating-point caveat (Mironov, CCS 2012): sampling ``N(0, sigma^2)`` in IEEE doubles and
adding it to a double is not exactly the continuous Gaussian mechanism, and the gaps in the
floating-point grid can in principle leak information. dpgraph uses NumPy's
``Generator.standard_normal`` (ziggurat) and ``Generator.gamma``; its guarantees are those of the
idealised real-valued mechanisms. The noise path is kept to these few functions so that a
discrete or vetted sampler (e.g. the discrete Gaussian of Canonne-Kamath-Steinke) can replace it.

Randomness (:mod:`dpgraph.privacy.rng`): ``rng=None`` means an AES-CTR or ChaCha20 generator keyed from the
operating system's entropy (cryptographically secure); an int or a caller's
``numpy.random.Generator`` gives reproducible runs for tests and benchmarks, and every ledger
charged with such noise is marked "reproducible noise: not a private release" (with a
:class:`~dpgraph.privacy.rng.ReproducibleNoiseWarning`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ._validate import check_delta, check_epsilon, check_sensitivity
from .calibration import analytic_gaussian_sigma
from .ledger import PrivacyLedger
from .rng import block_generator, block_key, is_secure, make_rng

__all__ = [
    "make_rng",
    "gaussian_mechanism",
    "gaussian_noise",
    "ball_knorm_mechanism",
    "SymmetricGaussianNoise",
    "GaussianMatrixNoise",
    "symmetric_gaussian_noise",
    "randomized_response",
    "flip_probability",
    "laplace_mechanism",
    "laplace_noise",
    "gumbel_noise",
    "monotone_exponential_mechanism",
]


def _draw_rng(rng, ledger: PrivacyLedger) -> np.random.Generator:
    """The generator a release draws from; marks ``ledger`` reproducible (and warns) unless the
    generator is secure (:mod:`dpgraph.privacy.rng`)."""
    gen = make_rng(rng)
    if not is_secure(gen):
        ledger.mark_reproducible()
    return gen


def _charge_gaussian(ledger, name, sensitivity, epsilon, delta, note) -> float:
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    delta = check_delta(delta, name=f"{name}: delta", allow_zero=False)
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
    ledger.charge(name, mechanism="gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                  sensitivity_norm="l2", noise_scale=sigma, note=note,
                  rho=0.5 * (sensitivity / sigma) * (sensitivity / sigma))  # inf, no raise
    return sigma


def gaussian_mechanism(value, *, sensitivity: float, epsilon: float, delta: float,
                       ledger: PrivacyLedger, name: str, rng=None, note: str = ""):
    """Release ``value + N(0, sigma^2 I)`` with sigma from the analytic Gaussian calibration.

    ``sensitivity`` is the L2 sensitivity of ``value`` (a float or an array) under the
    caller's adjacency; the caller states where it is derived (``note``).
    Returns ``(noisy_value, sigma)``; the charge is recorded in ``ledger`` first.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=1e-6)
    >>> noisy, sigma = gaussian_mechanism(10.0, sensitivity=1.0, epsilon=1, delta=1e-6,
    ...                                   ledger=led, name="count", rng=0)
    >>> round(sigma, 3)
    4.225
    """
    sigma = _charge_gaussian(ledger, name, sensitivity, epsilon, delta, note)
    gen = _draw_rng(rng, ledger)
    arr = np.asarray(value, dtype=np.float64)
    noisy = arr + sigma * gen.standard_normal(arr.shape)
    return (float(noisy) if noisy.ndim == 0 else noisy), sigma


def gaussian_noise(shape, *, sigma: float, ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """Raw ``N(0, sigma^2)`` draws for a mechanism whose charge was already recorded in ``ledger``.

    Prefer :func:`gaussian_mechanism`; use this only inside a mechanism that called
    ``ledger.charge`` itself (e.g. composite mechanisms of :mod:`dpgraph.mechanisms`).
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    sigma = check_sensitivity(sigma, name="sigma")
    return sigma * _draw_rng(rng, ledger).standard_normal(shape)


def ball_knorm_mechanism(value, *, sensitivity: float, epsilon: float, ledger: PrivacyLedger,
                         name: str, rng=None, note: str = ""):
    """Pure epsilon-DP K-norm mechanism for the Euclidean ball (Nikolov, Lemma 4.2; Hardt-Talwar).

    Noise has density proportional to ``exp(-epsilon ||z||_2 / sensitivity)``: a uniformly random
    direction times a radius drawn from ``Gamma(d + 1, sensitivity / epsilon)``, where ``d`` is the
    dimension. Returns ``(noisy_value, scale)`` with ``scale = sensitivity / epsilon``.
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    scale = sensitivity / epsilon
    ledger.charge(name, mechanism="knorm-l2-ball", epsilon=epsilon, delta=0.0,
                  sensitivity=sensitivity, sensitivity_norm="l2", noise_scale=scale, note=note,
                  rho=0.5 * epsilon * epsilon)  # inf for absurd epsilon, no raise
    gen = _draw_rng(rng, ledger)
    arr = np.asarray(value, dtype=np.float64)
    d = max(arr.size, 1)
    direction = gen.standard_normal(arr.shape)
    norm = np.linalg.norm(direction)
    while norm == 0:  # probability zero; keeps the draw well defined
        direction = gen.standard_normal(arr.shape)
        norm = np.linalg.norm(direction)
    radius = gen.gamma(shape=d + 1, scale=scale)
    noisy = arr + radius * direction / norm
    return (float(noisy) if noisy.ndim == 0 else noisy), scale


def laplace_noise(shape, *, scale: float, ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """Raw ``Laplace(0, scale)`` draws for a mechanism whose charge was already recorded in
    ``ledger``.

    Prefer :func:`laplace_mechanism`; use this only inside a mechanism that called
    ``ledger.charge`` once for many draws, e.g. the degree-ordered local route, whose per-batch
    releases read disjoint node pairs and are charged once by parallel composition
    (docs/privacy.md 14).
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    scale = check_sensitivity(scale, name="scale")
    return _draw_rng(rng, ledger).laplace(0.0, scale, size=shape)


def gumbel_noise(shape, *, scale: float, ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """Raw ``Gumbel(0, scale)`` draws for exponential mechanisms whose charge was already
    recorded in ``ledger`` (``argmax(score + Gumbel(0, Delta / eps))`` picks each option with
    probability proportional to ``exp(eps score / Delta)``; see
    :func:`monotone_exponential_mechanism`). Used by the local route's per-variable choices,
    charged once by parallel composition (docs/privacy.md 14.7)."""
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    scale = check_sensitivity(scale, name="scale")
    return _draw_rng(rng, ledger).gumbel(0.0, scale, size=shape)


def flip_probability(epsilon: float) -> float:
    """``p = 1 / (1 + e^epsilon)``, the flip probability of randomized response at ``epsilon``.

    Computed as ``e^-epsilon / (1 + e^-epsilon)``, which never overflows: it underflows to
    exactly 0 above epsilon ~ 745, where randomized response is the identity (it releases the
    input bits unchanged, docs/privacy.md 10.2).

    Examples
    --------
    >>> round(flip_probability(math.log(3.0)), 12), flip_probability(1e9)
    (0.25, 0.0)
    """
    t = math.exp(-float(epsilon))
    return t / (1.0 + t)


def randomized_response(bits: np.ndarray, *, epsilon: float, ledger: PrivacyLedger, name: str,
                        rng=None, note: str = "") -> np.ndarray:
    """Flip each 0/1 entry independently with probability ``1 / (1 + e^epsilon)`` (pure epsilon-DP
    when adjacent inputs differ in one entry; Warner 1965, Dwork & Roth Sec. 3.2). At huge
    epsilon the probability underflows to 0 and the input bits are released unchanged
    (:func:`flip_probability`)."""
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    p = flip_probability(epsilon)
    if p == 0.0:
        note = (f"{note}; " if note else "") + ("flip probability underflows to 0 at this "
                                                "epsilon: the input bits are released unchanged")
    ledger.charge(name, mechanism="randomized-response", epsilon=epsilon, delta=0.0,
                  sensitivity=1.0, sensitivity_norm="l0", noise_scale=p, note=note,
                  rho=0.5 * epsilon * epsilon)  # inf for absurd epsilon, no raise
    b = np.asarray(bits)
    flips = _draw_rng(rng, ledger).random(b.shape) < p
    return np.where(flips, 1 - b, b)


class GaussianMatrixNoise:
    """An ``n_rows x n_cols`` matrix of i.i.d. ``N(0, sigma^2)`` entries, never held whole.

    The matrix is a deterministic function of a key drawn once from ``rng``: block
    ``(bi, bj)`` (of ``block_size`` rows and columns) comes from its own generator keyed by
    ``(key, bi, bj)`` (:func:`dpgraph.privacy.rng.block_generator`: cipher keystream segments under a
    secure ``rng``), so products can regenerate it in any order, as often as needed, with
    ``O(block_size^2)`` extra memory. Build it through a charging function, not directly.
    """

    def __init__(self, n_rows: int, n_cols: int, sigma: float, *, rng=None, block_size: int = 2048):
        self.shape = (int(n_rows), int(n_cols))
        self.sigma = float(sigma)
        self.block_size = int(block_size)
        self._secure, self._key = block_key(make_rng(rng))

    def _gen(self, bi: int, bj: int) -> np.random.Generator:
        return block_generator(self._secure, self._key, (bi, bj))

    def _raw_block(self, bi: int, bj: int) -> np.ndarray:
        bs = self.block_size
        r = min(bs, self.shape[0] - bi * bs)
        c = min(bs, self.shape[1] - bj * bs)
        return self._gen(bi, bj).standard_normal((r, c))

    def block(self, bi: int, bj: int) -> np.ndarray:
        """Block ``(bi, bj)`` of the matrix (already scaled by sigma)."""
        return self.sigma * self._raw_block(bi, bj)

    @property
    def n_blocks(self) -> tuple[int, int]:
        bs = self.block_size
        return (-(-self.shape[0] // bs), -(-self.shape[1] // bs))

    def iter_row_blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(row_slice, rows)`` for consecutive row blocks (each ``block_size x n_cols``)."""
        bs = self.block_size
        nb_r, nb_c = self.n_blocks
        for bi in range(nb_r):
            rows = np.hstack([self.block(bi, bj) for bj in range(nb_c)])
            yield slice(bi * bs, bi * bs + rows.shape[0]), rows

    def matmul(self, V: np.ndarray) -> np.ndarray:
        """``G @ V`` for a dense ``V`` with ``n_cols`` rows."""
        V = np.asarray(V, dtype=np.float64)
        bs = self.block_size
        nb_r, nb_c = self.n_blocks
        out = np.zeros((self.shape[0],) + V.shape[1:])
        for bi in range(nb_r):
            acc = out[bi * bs:(bi + 1) * bs]
            for bj in range(nb_c):
                acc += self.block(bi, bj) @ V[bj * bs:(bj + 1) * bs]
        return out

    def rmatmul(self, U: np.ndarray) -> np.ndarray:
        """``G.T @ U`` for a dense ``U`` with ``n_rows`` rows."""
        U = np.asarray(U, dtype=np.float64)
        bs = self.block_size
        nb_r, nb_c = self.n_blocks
        out = np.zeros((self.shape[1],) + U.shape[1:])
        for bi in range(nb_r):
            for bj in range(nb_c):
                out[bj * bs:(bj + 1) * bs] += self.block(bi, bj).T @ U[bi * bs:(bi + 1) * bs]
        return out

    def to_dense(self) -> np.ndarray:
        out = np.empty(self.shape)
        for rows, block in self.iter_row_blocks():
            out[rows] = block
        return out


class SymmetricGaussianNoise(GaussianMatrixNoise):
    """A symmetric ``n x n`` Gaussian matrix, never held whole.

    Entries on and above the diagonal are i.i.d.: ``G_ij = G_ji ~ N(0, sigma^2)`` for ``i < j``,
    and ``G_ii ~ N(0, (diagonal_scale * sigma)^2)``. This is the Gaussian mechanism applied to
    the vector of upper-triangular entries of a symmetric matrix: its L2 sensitivity is
    ``sqrt(sum_{i<j} E_ij^2 + diagonal_scale^-2 sum_i E_ii^2)`` for a symmetric change ``E``
    (at ``diagonal_scale = sqrt(2)`` this is exactly ``||E||_F / sqrt(2)``: the diagonal then
    carries variance ``2 sigma^2``; with ``diagonal_scale = 1/sqrt(2)`` the sensitivity is
    ``sqrt(sum_{i<j} E_ij^2 + 2 sum_i E_ii^2)``, up to ``||E||_F``, not ``||E||_F / sqrt(2)``).
    Block ``(bi, bj)`` with ``bi > bj`` is the transpose of block ``(bj, bi)``.
    """

    def __init__(self, n: int, sigma: float, *, rng=None, block_size: int = 2048,
                 diagonal_scale: float = 1.0):
        super().__init__(n, n, sigma, rng=rng, block_size=block_size)
        self.diagonal_scale = float(diagonal_scale)

    def block(self, bi: int, bj: int) -> np.ndarray:
        if bi > bj:
            return self.block(bj, bi).T
        raw = self._raw_block(bi, bj)
        if bi == bj:
            upper = np.triu(raw, 1)
            raw = upper + upper.T + np.diag(self.diagonal_scale * np.diag(raw))
        return self.sigma * raw

    rmatmul = GaussianMatrixNoise.matmul  # symmetric: G.T @ U == G @ U


def symmetric_gaussian_noise(n: int, *, sensitivity: float, epsilon: float, delta: float,
                             ledger: PrivacyLedger, name: str, rng=None, block_size: int = 2048,
                             diagonal_scale: float = 1.0, note: str = "") -> SymmetricGaussianNoise:
    """Charge the ledger, then return the symmetric noise matrix for a symmetric ``n x n`` release.

    ``sensitivity`` bounds the L2 norm of the change of the upper-triangular entries (diagonal
    entries weighted by ``1/diagonal_scale``) between adjacent inputs; see
    :class:`SymmetricGaussianNoise`. Add the returned operator to the matrix (``.matmul``,
    ``.to_dense()``).
    """
    sigma = _charge_gaussian(ledger, name, sensitivity, epsilon, delta, note)
    return SymmetricGaussianNoise(n, sigma, rng=_draw_rng(rng, ledger), block_size=block_size,
                                  diagonal_scale=diagonal_scale)


# --- appended by the spectral (private PCA) component -------------------------------------------
def laplace_mechanism(value, *, sensitivity: float, epsilon: float, ledger: PrivacyLedger,
                      name: str, rng=None, note: str = ""):
    """Release ``value + Laplace(b)`` entrywise with ``b = sensitivity / epsilon`` (pure epsilon-DP).

    ``sensitivity`` is the L1 sensitivity of ``value`` (Dwork & Roth, Thm 3.6). Used by the
    propose-test-release steps of private PCA (``dpgraph.spectral``): a one-sided Laplace tail
    ``P[Lap(b) > t] = exp(-t/b)/2`` gives a test margin ``b ln(1/(2 delta))``, smaller than the
    Gaussian's ``sigma Phi^-1(1-delta)`` at the same epsilon. Returns ``(noisy_value, b)``.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> noisy, b = laplace_mechanism(3.0, sensitivity=2.0, epsilon=0.5, ledger=led, name="x", rng=0)
    >>> b
    4.0
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    scale = sensitivity / epsilon
    ledger.charge(name, mechanism="laplace", epsilon=epsilon, delta=0.0, sensitivity=sensitivity,
                  sensitivity_norm="l1", noise_scale=scale, note=note)
    arr = np.asarray(value, dtype=np.float64)
    noisy = arr + _draw_rng(rng, ledger).laplace(0.0, scale, size=arr.shape)
    return (float(noisy) if noisy.ndim == 0 else noisy), scale


def monotone_exponential_mechanism(scores, *, sensitivity: float, epsilon: float,
                                   ledger: PrivacyLedger, name: str, rng=None,
                                   note: str = "") -> int:
    """Select index ``i`` with probability proportional to ``exp(epsilon * scores_i / sensitivity)``.

    Pure epsilon-DP when the scores are *monotone*: between any two adjacent inputs every score
    moves in the same direction, each by at most ``sensitivity`` (McSherry & Talwar 2007; the
    factor 2 of the general exponential mechanism drops for monotone scores, Dwork & Roth,
    Sec. 3.4). Proof (docs/privacy.md 4.11): if ``s_j <= s'_j <= s_j + Delta`` for every ``j``,
    the numerator ``exp(eps s'_i / Delta)`` grows by at most ``e^eps`` and the normalizer does
    not shrink, and the other way round. The cut values of fixed partitions are monotone under
    edge adjacency (one pair's weight changes; every cut containing the pair moves with it).

    Drawn with the Gumbel-max trick: ``argmax_i scores_i + Gumbel(0, sensitivity / epsilon)``.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> monotone_exponential_mechanism([0.0, 100.0, 3.0], sensitivity=1.0, epsilon=1.0,
    ...                                ledger=led, name="pick", rng=0)
    1
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    s = np.asarray(scores, dtype=np.float64).ravel()
    if s.size == 0 or not np.all(np.isfinite(s)):
        raise ValueError(f"{name}: scores must be a non-empty array of finite numbers")
    scale = sensitivity / epsilon
    ledger.charge(name, mechanism="exponential (monotone)", epsilon=epsilon, delta=0.0,
                  sensitivity=sensitivity, sensitivity_norm="linf", noise_scale=scale, note=note)
    return int(np.argmax(s + _draw_rng(rng, ledger).gumbel(0.0, scale, size=s.shape)))
