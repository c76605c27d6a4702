"""The one module that draws privacy noise.

Every public function here charges a :class:`~dpgraph.privacy.ledger.PrivacyLedger` *before*
it draws, so the ledger is a complete record of the noise a result depends on.

Floating-point caveat (Mironov, CCS 2012): sampling ``N(0, sigma^2)`` in IEEE doubles and
adding it to a double is not exactly the continuous Gaussian mechanism, and the gaps in the
floating-point grid can in principle leak information. So the Laplace mechanism and scalar
Gaussian releases draw, by default, from exact discrete samplers on a grid (discrete Laplace and
discrete Gaussian, Canonne-Kamath-Steinke 2020: integer arithmetic on the generator's uniform
integers, no floating-point sample; docs/privacy.md 13); array Gaussian releases
(``sampler="auto"``), the raw matrix noise (:func:`gaussian_noise`, :class:`GaussianMatrixNoise`),
the K-norm mechanism and the Gumbel draws of the exponential mechanism use NumPy's
floating-point samplers, whose guarantees are those of the idealised real-valued mechanisms;
``sampler="discrete"`` and the matrix-free route's ``noise="discrete"`` switch the Gaussian ones.

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

from dpgraph.privacy.validation import check_delta, check_epsilon, check_sensitivity
from dpgraph.privacy.calibration import analytic_gaussian_sigma
from dpgraph.privacy.ledger import EventSpec, PrivacyLedger
from dpgraph.privacy.transcript import record
from dpgraph.privacy.rng import block_generator, block_key, is_secure, make_rng

__all__ = [
    "make_rng",
    "round_up_3g",
    "laplace_add_variance",
    "laplace_add_scale",
    "gaussian_mechanism",
    "gaussian_noise",
    "ball_knorm_mechanism",
    "ball_knorm_noise",
    "SymmetricGaussianNoise",
    "GaussianMatrixNoise",
    "symmetric_gaussian_noise",
    "randomized_response",
    "flip_probability",
    "laplace_mechanism",
    "laplace_add",
    "LaplaceDraws",
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
                       ledger: PrivacyLedger, name: str, rng=None, note: str = "",
                       sampler: str = "auto", changed: int | None = None):
    """Release ``value`` plus Gaussian noise, (epsilon, delta)-DP.

    ``sensitivity`` is the L2 sensitivity of ``value`` (a float or an array) under the
    caller's adjacency; the caller states where it is derived (``note``).
    Returns ``(noisy_value, sigma)``; the charge is recorded in ``ledger`` first.

    ``sampler="auto"`` (default): ``"discrete"`` for a scalar ``value``, ``"continuous"`` for
    arrays (docs/privacy.md 13.3 says why and what each costs). ``sampler="discrete"``:
    ``value`` is rounded to a grid of step ``g`` and the exact discrete Gaussian
    ``g N_Z(0, sigma_Z^2)`` is added (Canonne-Kamath-Steinke 2020;
    :func:`discrete_gaussian_parameters`): no floating-point sample, calibrated by zCDP
    (docs/privacy.md 13.2). ``changed``: at most how many coordinates of ``value`` differ
    between adjacent inputs (default: all; a smaller bound makes the grid coarser, nothing
    else). ``sampler="continuous"``: ``N(0, sigma^2)`` in floating point with sigma from the
    analytic Gaussian calibration (Balle-Wang; about 6-9% less noise, and the
    floating-point caveat of Mironov 2012).

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=2, delta=2e-6)
    >>> noisy, sigma = gaussian_mechanism(10.0, sensitivity=1.0, epsilon=1, delta=1e-6,
    ...                                   ledger=led, name="count", rng=0, sampler="continuous")
    >>> round(sigma, 3)
    4.225
    >>> noisy, sigma = gaussian_mechanism(10.0, sensitivity=1.0, epsilon=1, delta=1e-6,
    ...                                   ledger=led, name="count", rng=0)
    >>> round(sigma, 3)  # the zCDP calibration of the discrete Gaussian, one grid step finer
    4.536
    """
    if sampler == "auto":
        sampler = "discrete" if np.ndim(value) == 0 else "continuous"
    if sampler == "discrete":
        return _discrete_gaussian_mechanism(value, sensitivity, epsilon, delta, ledger, name,
                                            rng, note, changed)
    if sampler != "continuous":
        raise ValueError(f"sampler must be 'auto', 'discrete' or 'continuous', got {sampler!r}")
    sigma = _charge_gaussian(ledger, name, sensitivity, epsilon, delta, note)
    gen = _draw_rng(rng, ledger)
    arr = np.asarray(value, dtype=np.float64)
    noisy = arr + sigma * gen.standard_normal(arr.shape)
    return (float(noisy) if noisy.ndim == 0 else noisy), sigma


def gaussian_noise(shape, *, sigma: float, ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """Raw ``N(0, sigma^2)`` draws for a mechanism whose charge was already recorded in ``ledger``.

    Prefer :func:`gaussian_mechanism`; use this only inside a mechanism that called
    ``ledger.charge`` itself (e.g. composite mechanisms of :mod:`dpgraph.mechanisms`).

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=1e-6)
    >>> sigma = analytic_gaussian_sigma(1.0, 1e-6)
    >>> _ = led.charge("matrix", mechanism="gaussian", epsilon=1, delta=1e-6, sensitivity=1.0,
    ...                sensitivity_norm="l2", noise_scale=sigma)  # the caller charges first
    >>> z = gaussian_noise((2, 3), sigma=sigma, ledger=led, rng=0)
    >>> z.shape, led.spent, led.reproducible  # the draw itself charges nothing more
    ((2, 3), (1.0, 1e-06), True)
    >>> round(float(gaussian_noise(100_000, sigma=2.0, ledger=led, rng=0).std()), 1)
    2.0
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    sigma = check_sensitivity(sigma, name="sigma")
    return sigma * _draw_rng(rng, ledger).standard_normal(shape)


def ball_knorm_noise(d: int, scale: float, gen: np.random.Generator, size: int | None = None):
    """Noise of density proportional to ``exp(-||z||_2 / scale)`` on ``R^d``: a uniformly
    random direction times a radius drawn from ``Gamma(d, scale)`` (the radial law of that
    density, ``r^(d-1) exp(-r / scale)``; Hardt-Talwar's ``Gamma(d + 1)`` radius is for a point
    uniform *inside* the ball, not on the sphere). One vector of shape ``(d,)``, or ``size`` of
    them as rows.

    >>> z = ball_knorm_noise(3, 2.0, np.random.default_rng(0), size=100_000)
    >>> round(float(np.linalg.norm(z, axis=1).mean()), 1)   # E||z|| = d * scale
    6.0
    """
    shape = (d,) if size is None else (int(size), d)
    direction = gen.standard_normal(shape)
    norm = np.linalg.norm(direction, axis=-1, keepdims=True)
    while np.any(norm == 0):  # probability zero; keeps the draw well defined
        zero = (norm == 0)[..., 0]
        direction[zero] = gen.standard_normal(direction[zero].shape)
        norm = np.linalg.norm(direction, axis=-1, keepdims=True)
    radius = gen.gamma(shape=d, scale=scale, size=None if size is None else (int(size), 1))
    return radius * direction / norm


def ball_knorm_mechanism(value, *, sensitivity: float, epsilon: float, ledger: PrivacyLedger,
                         name: str, rng=None, note: str = ""):
    """Pure epsilon-DP K-norm mechanism for the Euclidean ball (Nikolov, Lemma 4.2; Hardt-Talwar).

    Noise has density proportional to ``exp(-epsilon ||z||_2 / sensitivity)``
    (:func:`ball_knorm_noise`: a uniformly random direction times a radius drawn from
    ``Gamma(d, sensitivity / epsilon)``, where ``d`` is the dimension); the log-density ratio
    of two shifts by at most ``sensitivity`` is at most ``epsilon`` (docs/privacy.md 1).
    ``value`` is one vector (an array of any shape is flattened into one). Returns
    ``(noisy_value, scale)`` with ``scale = sensitivity / epsilon``.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1)
    >>> noisy, scale = ball_knorm_mechanism(np.zeros(3), sensitivity=1.0, epsilon=0.5,
    ...                                     ledger=led, name="v", rng=0)
    >>> noisy.shape, scale, led.spent, led.entries[0].mechanism
    ((3,), 2.0, (0.5, 0.0), 'knorm-l2-ball')
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
    noisy = arr + ball_knorm_noise(max(arr.size, 1), scale, gen).reshape(arr.shape)
    return (float(noisy) if noisy.ndim == 0 else noisy), scale


def laplace_add(value, *, sensitivity: float, epsilon: float, changed: int,
                ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """``value`` plus the exact discrete Laplace of :func:`laplace_mechanism` (same grid, same
    scale, docs/privacy.md 13.1), for a mechanism that charged ``ledger`` once for many such
    releases.

    Prefer :func:`laplace_mechanism`; use this only inside a mechanism that called
    ``ledger.charge`` itself, e.g. the degree-ordered local route, whose per-batch releases read
    disjoint node pairs and are charged once by parallel composition (docs/privacy.md 14.2).
    ``changed``: at most how many coordinates of one call move between adjacent inputs.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1)
    >>> _ = led.charge("batches", mechanism="discrete laplace", epsilon=1, sensitivity=1.0,
    ...                sensitivity_norm="l1")  # once, for every batch
    >>> out = laplace_add(np.array([1.0, 2.0, 3.0]), sensitivity=1.0, epsilon=1, changed=1,
    ...                   ledger=led, rng=0)
    >>> out.shape, bool(np.all(out * 1024 == np.round(out * 1024)))  # on the grid of 1/1024
    ((3,), True)
    >>> led.spent  # laplace_add charges nothing itself
    (1.0, 0.0)
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    p = discrete_laplace_parameters(check_sensitivity(sensitivity), check_epsilon(epsilon),
                                    changed)
    arr = np.asarray(value, dtype=np.float64)
    z = sample_discrete_laplace(p["t"], p["s"], arr.size, _draw_rng(rng, ledger))
    noisy = p["grid"] * (_grid_rounded(arr, p["grid"]) + z.reshape(arr.shape)).astype(np.float64)
    record("laplace", noisy)
    return noisy


def laplace_add_scale(sensitivity: float, epsilon: float, changed: int = 1) -> float:
    """The scale of :func:`laplace_add`'s noise, as :func:`laplace_mechanism` records it in the
    ledger: the discrete Laplace's ``g t / s`` (docs/privacy.md 13.1), slightly above
    ``sensitivity / epsilon``. For a charge made by hand before a pass of ``laplace_add`` draws.

    >>> round(laplace_add_scale(1.0, 1.0), 4)  # 1 + 1/1024: the sampler's rounding slack
    1.001
    """
    p = discrete_laplace_parameters(check_sensitivity(sensitivity), check_epsilon(epsilon),
                                    changed)
    return float(p["scale"])


def laplace_add_variance(sensitivity: float, epsilon: float, changed: int = 1) -> float:
    """Variance of one coordinate of :func:`laplace_add`'s noise (the discrete Laplace of
    docs/privacy.md 13.1 on its grid ``g``, parameter ``a = s / t`` per step):
    ``g^2 2 e^-a / (1 - e^-a)^2``, about ``2 (sensitivity / epsilon)^2``. A public function of
    the mechanism's parameters.

    >>> round(laplace_add_variance(1.0, 1.0) / 2.0, 2)
    1.0
    """
    p = discrete_laplace_parameters(check_sensitivity(sensitivity), check_epsilon(epsilon),
                                    changed)
    q = math.exp(-p["s"] / p["t"])
    return p["grid"] ** 2 * 2.0 * q / (1.0 - q) ** 2


class LaplaceDraws:
    """The discrete Laplace noise of :func:`laplace_add` for a whole read-once pass, drawn
    ahead in one call (docs/privacy.md 13.1): ``add(value, index)`` returns
    ``value`` rounded to the grid plus the draws at ``index`` of the array of ``shape``, and
    records it, as :func:`laplace_add` does. The draws read nothing of the input and each
    entry is used once (by the caller), so a pass that adds them batch by batch releases
    exactly what per-batch :func:`laplace_add` calls would, with one sampler call instead of
    one per batch (the exact sampler's rejection rounds cost per call: 2.1 s for 1,000 calls
    of 1,000 draws against 0.5 s for one call of 10^6).

    >>> from dpgraph.privacy.ledger import PrivacyLedger
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # seeded: reproducible mode warns
    ...     draws = LaplaceDraws((4,), sensitivity=1.0, epsilon=1.0, changed=1,
    ...                          ledger=PrivacyLedger(), rng=0)
    ...     whole = laplace_add(np.arange(4.0), sensitivity=1.0, epsilon=1.0, changed=1,
    ...                         ledger=PrivacyLedger(), rng=0)
    >>> parts = [draws.add(np.arange(4.0)[i:j], slice(i, j)) for i, j in ((0, 1), (1, 4))]
    >>> bool(np.array_equal(np.concatenate(parts), whole))
    True
    """

    def __init__(self, shape, *, sensitivity: float, epsilon: float, changed: int,
                 ledger: PrivacyLedger, rng=None):
        if not isinstance(ledger, PrivacyLedger):
            raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is "
                            "recorded)")
        p = discrete_laplace_parameters(check_sensitivity(sensitivity), check_epsilon(epsilon),
                                        changed)
        self._grid = p["grid"]
        size = int(np.prod(shape, dtype=np.int64))
        self._z = sample_discrete_laplace(p["t"], p["s"], size,
                                          _draw_rng(rng, ledger)).reshape(shape)

    def add(self, value, index) -> np.ndarray:
        """``value`` on the grid plus the draws ``[index]`` (of ``value``'s shape)."""
        arr = np.asarray(value, dtype=np.float64)
        z = self._z[index]
        if z.shape != arr.shape:
            raise ValueError(f"the draws at {index!r} have shape {z.shape}, the value "
                             f"{arr.shape}")
        noisy = self._grid * (_grid_rounded(arr, self._grid) + z).astype(np.float64)
        record("laplace", noisy)
        return noisy


def gumbel_noise(shape, *, scale: float, ledger: PrivacyLedger, rng=None) -> np.ndarray:
    """Raw ``Gumbel(0, scale)`` draws for exponential mechanisms whose charge was already
    recorded in ``ledger`` (``argmax(score + Gumbel(0, Delta / eps))`` picks each option with
    probability proportional to ``exp(eps score / Delta)``; see
    :func:`monotone_exponential_mechanism`). Used by the local route's per-variable choices,
    charged once by parallel composition (docs/privacy.md 14.6).

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1)
    >>> _ = led.charge("choice", mechanism="exponential (monotone)", epsilon=1)
    >>> g = gumbel_noise(100_000, scale=2.0, ledger=led, rng=0)
    >>> round(float(g.mean()) / (2.0 * np.euler_gamma), 2)  # mean: scale * Euler's gamma
    1.0
    >>> led.spent
    (1.0, 0.0)
    """
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
    (:func:`flip_probability`).

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=2)
    >>> out = randomized_response(np.ones(100_000, dtype=int), epsilon=math.log(3), ledger=led,
    ...                           name="bits", rng=0)
    >>> round(1 - float(out.mean()), 2), led.entries[0].noise_scale  # flips 1 / (1 + 3)
    (0.25, 0.25)
    >>> round(led.spent[0], 6), led.spent[1]  # pure epsilon-DP: epsilon = ln 3
    (1.098612, 0.0)
    """
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

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=1e-6)
    >>> N = symmetric_gaussian_noise(4, sensitivity=1.0, epsilon=1, delta=1e-6, ledger=led,
    ...                              name="A", rng=0)
    >>> D = N.to_dense()
    >>> D.shape, bool(np.allclose(D, D.T)), round(N.sigma, 4), led.spent
    ((4, 4), True, 4.2247, (1.0, 1e-06))
    """
    sigma = _charge_gaussian(ledger, name, sensitivity, epsilon, delta, note)
    return SymmetricGaussianNoise(n, sigma, rng=_draw_rng(rng, ledger), block_size=block_size,
                                  diagonal_scale=diagonal_scale)


# --- appended by the spectral (private PCA) component -------------------------------------------
def laplace_mechanism(value, *, sensitivity: float, epsilon: float, ledger: PrivacyLedger,
                      name: str, rng=None, note: str = "", sampler: str = "discrete",
                      changed: int | None = None):
    """Release ``value + Laplace(b)`` entrywise with ``b = sensitivity / epsilon`` (pure epsilon-DP).

    ``sampler="discrete"`` (default): ``value`` is rounded to a grid of step ``g`` and the
    exact discrete Laplace is added (:func:`discrete_laplace_parameters`, docs/privacy.md
    13.1): pure epsilon-DP with no floating-point sample; the returned scale is then the tail
    scale ``g (t/s + 1)``, slightly above ``b``, for which the tail bound below holds exactly.
    ``changed``: at most how many coordinates differ between adjacent inputs (default all).
    ``sampler="continuous"``: the floating-point Laplace (Mironov's caveat).

    ``sensitivity`` is the L1 sensitivity of ``value`` (Dwork & Roth, Thm 3.6). Used by the
    propose-test-release steps of private PCA (``dpgraph.spectral``): a one-sided Laplace tail
    ``P[Lap(b) > t] = exp(-t/b)/2`` gives a test margin ``b ln(1/(2 delta))``, smaller than the
    Gaussian's ``sigma Phi^-1(1-delta)`` at the same epsilon. Returns ``(noisy_value, b)``.

    Examples
    --------
    >>> from dpgraph.privacy import PrivacyLedger
    >>> led = PrivacyLedger(epsilon=1, delta=0)
    >>> noisy, b = laplace_mechanism(3.0, sensitivity=2.0, epsilon=0.5, ledger=led, name="x",
    ...                              rng=0, sampler="continuous")
    >>> b
    4.0
    >>> noisy, b = laplace_mechanism(3.0, sensitivity=2.0, epsilon=0.5, ledger=led, name="x", rng=0)
    >>> round(b, 4)  # the discrete sampler's tail scale: 4 (1 + 1/1024), plus one grid step
    4.0059
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    if sampler == "discrete":
        arr = np.asarray(value, dtype=np.float64)
        p = discrete_laplace_parameters(sensitivity, epsilon, arr.size if changed is None else changed)
        ledger.charge(name, mechanism="discrete laplace", epsilon=epsilon, delta=0.0,
                      sensitivity=sensitivity, sensitivity_norm="l1", noise_scale=p["scale"],
                      note=note)
        gen = _draw_rng(rng, ledger)
        q = _grid_rounded(arr, p["grid"])
        z = sample_discrete_laplace(p["t"], p["s"], arr.size, gen).reshape(arr.shape)
        noisy = p["grid"] * (q + z).astype(np.float64)
        record("laplace", noisy)
        return (float(noisy) if noisy.ndim == 0 else noisy), p["tail_scale"]
    if sampler != "continuous":
        raise ValueError(f"sampler must be 'discrete' or 'continuous', got {sampler!r}")
    scale = sensitivity / epsilon
    ledger.charge(name, mechanism="laplace", epsilon=epsilon, delta=0.0, sensitivity=sensitivity,
                  sensitivity_norm="l1", noise_scale=scale, note=note)
    arr = np.asarray(value, dtype=np.float64)
    noisy = arr + _draw_rng(rng, ledger).laplace(0.0, scale, size=arr.shape)
    record("laplace", noisy)
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


# --- exact discrete samplers (Canonne, Kamath & Steinke, NeurIPS 2020) ----------------------------
#
# Every probability below is a ratio of integers, decided by comparing a uniform integer from
# ``Generator.integers`` (exact: rejection sampling on the generator's bits) with an integer:
# no floating-point number enters a draw, so the output distribution is exactly the discrete
# Laplace or discrete Gaussian (docs/privacy.md 13). Vectorised: each loop pass serves every
# draw still pending.

_I64 = np.int64
#: grid resolution: the sensitivity spans this many grid steps (per changed coordinate)
GRID_STEPS = 1024
#: the discrete Gaussian's sigma is kept at most this many grid steps (int64 arithmetic)
_MAX_SIGMA_STEPS = 2 ** 20
#: the discrete Laplace's scale numerator is kept at most this (int64 arithmetic)
_MAX_LAPLACE_T = 2 ** 50
_LAPLACE_S = 1024  # scale denominator: the discrete Laplace's scale is t / _LAPLACE_S steps


def _bern_exp_unit(num: np.ndarray, den: np.ndarray, gen) -> np.ndarray:
    """``Bernoulli(exp(-num/den))`` for integers ``0 <= num <= den`` (CKS Alg. 1, gamma <= 1):
    ``K = 1``; while ``Bernoulli(gamma / K)``: ``K += 1``; accept iff ``K`` is odd."""
    K = np.ones(num.shape, dtype=_I64)
    pending = np.arange(num.size)
    while pending.size:
        hit = gen.integers(0, den[pending] * K[pending]) < num[pending]
        K[pending[hit]] += 1
        pending = pending[hit]
    return (K % 2) == 1


def _bern_exp(num: np.ndarray, den: np.ndarray, gen) -> np.ndarray:
    """``Bernoulli(exp(-num/den))`` for integers ``num >= 0``, ``den >= 1`` (CKS Alg. 1):
    ``floor(gamma)`` draws of ``Bernoulli(exp(-1))`` must all succeed, then one of
    ``Bernoulli(exp(-(gamma - floor gamma)))``."""
    whole, frac = np.divmod(num, den)
    out = np.ones(num.shape, dtype=bool)
    pending = np.flatnonzero(whole > 0)
    left = whole.copy()
    while pending.size:
        ok = _bern_exp_unit(np.ones(pending.size, _I64), np.ones(pending.size, _I64), gen)
        out[pending[~ok]] = False
        left[pending] -= 1
        pending = pending[ok & (left[pending] > 0)]
    idx = np.flatnonzero(out)
    out[idx] = _bern_exp_unit(frac[idx], den[idx], gen)
    return out


def _geometric_exp1(size: int, gen) -> np.ndarray:
    """``V ~ Geometric``: the number of consecutive successes of ``Bernoulli(exp(-1))``."""
    V = np.zeros(size, dtype=_I64)
    pending = np.arange(size)
    one = np.ones(size, dtype=_I64)
    while pending.size:
        ok = _bern_exp_unit(one[:pending.size], one[:pending.size], gen)
        V[pending[ok]] += 1
        pending = pending[ok]
    return V


def sample_discrete_laplace(t: int, s: int, size: int, gen) -> np.ndarray:
    """``size`` draws of the discrete Laplace with scale ``t / s`` (integers ``t, s >= 1``):
    ``P[Y = y] proportional to exp(-|y| s / t)`` on the integers (CKS Alg. 2)."""
    t, s = int(t), int(s)
    if t < 1 or s < 1 or t > 2 ** 51:  # t V stays below 2^63 unless V >= 2^12: prob. e^-4096
        raise ValueError(f"discrete Laplace scale {t}/{s} is outside the sampler's range")
    out = np.zeros(size, dtype=_I64)
    pending = np.arange(size)
    while pending.size:
        m = pending.size
        U = gen.integers(0, t, size=m, dtype=_I64)
        D = _bern_exp(U, np.full(m, t, dtype=_I64), gen)
        keep = np.flatnonzero(D)
        V = _geometric_exp1(keep.size, gen)
        Y = (U[keep] + t * V) // s
        B = gen.integers(0, 2, size=keep.size, dtype=_I64)
        ok = ~((B == 1) & (Y == 0))
        out[pending[keep[ok]]] = ((1 - 2 * B) * Y)[ok]
        done = np.zeros(m, dtype=bool)
        done[keep[ok]] = True
        pending = pending[~done]
    return out


def sample_discrete_gaussian(t: int, u: int, size: int, gen) -> np.ndarray:
    """``size`` draws of the discrete Gaussian ``N_Z(0, t u)``: ``P[Y = y] proportional to
    exp(-y^2 / (2 t u))`` on the integers (integers ``t, u >= 1``; ``t`` near ``sqrt(t u)`` is
    efficient). CKS Alg. 3 with ``sigma^2 = t u``: ``Y ~`` discrete Laplace of scale ``t``,
    accepted with probability ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| - u)^2 /
    (2 t u))``; the product of the two is proportional to ``exp(-Y^2 / (2 sigma^2))`` for every
    ``t > 0``."""
    t, u = int(t), int(u)
    if t < 1 or u < 1 or 2 * t * u > 2 ** 56:
        raise ValueError(f"discrete Gaussian variance {t}*{u} is outside the sampler's range")
    out = np.zeros(size, dtype=_I64)
    pending = np.arange(size)
    den = 2 * t * u
    while pending.size:
        m = pending.size
        Y = sample_discrete_laplace(t, 1, m, gen)
        a = np.abs(np.abs(Y) - u)
        small = a < 3_000_000_000  # a^2 fits in int64
        C = np.zeros(m, dtype=bool)
        si = np.flatnonzero(small)
        C[si] = _bern_exp(a[si] * a[si], np.full(si.size, den, dtype=_I64), gen)
        for k in np.flatnonzero(~small):  # |Y| > 2^31: about exp(-2^11) likely per draw
            whole, frac = divmod(int(a[k]) ** 2, den)
            ok = True
            for _ in range(min(whole, 2 ** 62)):  # stops at the first failure
                if not _bern_exp_unit(np.ones(1, _I64), np.ones(1, _I64), gen)[0]:
                    ok = False
                    break
            C[k] = ok and bool(_bern_exp_unit(np.array([frac], _I64), np.array([den], _I64), gen)[0])
        out[pending[C]] = Y[C]
        pending = pending[~C]
    return out


#: Grid values are clamped to ``[-GRID_LIMIT, GRID_LIMIT]`` steps: int64 arithmetic stays exact
GRID_LIMIT = 2 ** 62
#: The float quotient ``fl(x / g)`` is within ``|fl(x / g)| 2^-53`` of ``x / g``: its rounding is
#: checked exactly where it lies within ``|fl(x / g)|`` times this of a half-integer
_QUOTIENT_BAND = 2.0 ** -52


def _grid_rounded(arr: np.ndarray, g: float) -> np.ndarray:
    """``round(arr / g)`` in exact arithmetic as int64: an integer ``n`` with
    ``|n - arr / g| <= 1/2`` in each coordinate, clamped to ``+-GRID_LIMIT`` steps
    (docs/privacy.md 13). ``n`` is ``rint(fl(arr / g))`` (ties to even) wherever that is within
    1/2 of the exact quotient, i.e. for every value but those whose float quotient lies within
    ``|arr / g| 2^-52`` of a half-integer and rounds across it; those are rounded exactly
    (:func:`_exact_rounded`), ties to even.

    The clamp is not a refusal: a refusal would depend on the private value (it tells a value
    just under the limit from one just over it), while clamping each coordinate is
    1-Lipschitz, so the rounded values' sensitivity in steps stays ``D_Z``. Values that far
    out are astronomically beyond anything a graph of public size releases (``2^62`` steps of
    ``sensitivity / 1024`` is ``4.5e15`` times the sensitivity)."""
    x = np.asarray(arr, dtype=np.float64)
    f = (x / g).reshape(-1)
    n0 = np.rint(f)
    if np.isnan(n0).any():
        raise ValueError("the value to release is NaN: nothing can be released for it")
    idx = _near_half_integers(f, n0)
    near = n0[idx]
    out = np.clip(n0, -float(GRID_LIMIT), float(GRID_LIMIT), out=n0).astype(_I64)
    if idx.size:
        exact = _exact_rounded(x.reshape(-1)[idx], g, near)
        out[idx] = np.clip(exact, -GRID_LIMIT, GRID_LIMIT)
    return out.reshape(x.shape)[()]


def _near_half_integers(f: np.ndarray, n0: np.ndarray) -> np.ndarray:
    """Indices where ``n0 = rint(f)``, ``f = fl(x / g)``, may be more than 1/2 from the exact
    ``x / g``: those with ``|f - n0| + |f| 2^-52 >= 1/2`` and ``|f| < 2^63`` (all of them have
    ``|f| > 1/4``: below, ``n0 = 0``). Elsewhere either ``|n0 - x / g| <= |f - n0| + |f| 2^-53
    < 1/2`` (the division is correctly rounded, ``f - n0`` is exact; a subnormal ``f`` has
    ``n0 = 0`` and ``|x / g| < 2^-1022``), or ``|f| >= 2^63``, where ``|x / g| > 2^62 + 1`` and
    the clamp gives ``+-GRID_LIMIT`` whatever the rounding. ``f`` is overwritten (one array
    less at the peak)."""
    band = np.abs(f)
    band *= _QUOTIENT_BAND
    with np.errstate(invalid="ignore"):  # inf - inf at infinite quotients: NaN, not selected
        np.subtract(f, n0, out=f)
    np.abs(f, out=f)
    f += band
    idx = np.flatnonzero(f >= 0.5)
    return idx[band[idx] < 2.0 ** 63 * _QUOTIENT_BAND]  # |f| < 2^63 (the scaling is exact)


def _exact_rounded(x: np.ndarray, g: float, n0: np.ndarray) -> np.ndarray:
    """The integer nearest to ``x / g`` in exact arithmetic, for ``1/4 <= |x / g| < 2^63``:
    ``n0`` where ``|n0 - x / g| <= 1/2``, else the nearest (ties to even).

    With ``|x| = a 2^(e - 53)`` and ``g = b 2^(e_g - 53)`` (``a``, ``b`` integers below
    ``2^53``, ``b >= 2^52``, from ``frexp``), ``|x / g| = a 2^s / (4 b)`` with
    ``s = e - e_g + 2`` in ``[0, 65]``: long division in int64, eight bits of ``2^s`` at a
    time (the remainder stays below ``4 b < 2^55``, so shifting it by 8 stays below ``2^63``),
    gives the exact quotient and remainder."""
    mx, ex = np.frexp(np.abs(x))
    mg, eg = math.frexp(float(g))
    den = 4 * int(mg * 2.0 ** 53)
    rem = (mx * 2.0 ** 53).astype(_I64)  # below den: the quotient starts at 0
    quot = np.zeros_like(rem)
    shift = ex.astype(_I64) - (eg - 2)
    while (shift > 0).any():
        step = np.minimum(shift, 8)
        rem = rem << step
        quot = (quot << step) + rem // den
        rem %= den
        shift -= step
    twice = 2 * rem  # |x / g| = quot + twice / (2 den)
    m0 = np.abs(n0).astype(_I64)
    keep = ((m0 == quot) & (twice <= den)) | ((m0 == quot + 1) & (twice >= den))
    nearest = quot + ((twice > den) | ((twice == den) & (quot % 2 == 1)))
    n = np.where(keep, m0, nearest)
    return np.where(x < 0, -n, n)


def _zcdp_rho(epsilon: float, delta: float) -> float:
    """``approx_dp_to_zcdp_rho(epsilon, delta)`` (the CKS conversion, docs/privacy.md 13.2);
    where its root-finding fails in floating point (an epsilon far below the discrete Gaussian's
    range at a tiny delta: 1e-13 at delta 1e-20 raised SciPy's "f(a) and f(b) must have
    different signs"), the standard conversion ``rho = (sqrt(epsilon + L) - sqrt(L))^2``,
    ``L = ln(1 / delta)``, computed without cancellation and shrunk by ``1e-9``: every
    ``rho``-zCDP mechanism is ``(rho + 2 sqrt(rho L), delta)``-DP (Bun-Steinke Prop. 1.3), and
    that is ``epsilon`` at the exact root, so the shrunk value is a valid, smaller ``rho``."""
    from dpgraph.privacy.calibration import approx_dp_to_zcdp_rho
    from dpgraph.privacy.validation import check_delta, check_epsilon

    check_epsilon(epsilon)  # a bad value is refused, not caught by the fallback below
    check_delta(delta)
    try:
        return approx_dp_to_zcdp_rho(epsilon, delta)
    except (ValueError, ArithmeticError):
        eps, L = float(epsilon), math.log(1.0 / float(delta))
        if not (math.isfinite(eps) and eps > 0 and math.isfinite(L) and L > 0):
            raise
        return (eps / (math.sqrt(eps + L) + math.sqrt(L))) ** 2 * (1.0 - 1e-9)


def _discrete_gaussian_fit(sensitivity: float, rho: float, k: int):
    """``(grid, sigma in steps, D_Z)`` of :func:`discrete_gaussian_parameters` at ``rho`` for
    ``k`` changed coordinates, or None outside the sampler's range."""
    g = sensitivity / (GRID_STEPS * math.sqrt(k))
    sigma, d_z = math.inf, math.inf
    with np.errstate(all="ignore"):
        for _ in range(3):
            if not (math.isfinite(g) and g > 0 and rho > 0):
                break
            d_z = (sensitivity / g) * (1 + 1e-12) + math.sqrt(k)
            sigma = d_z / math.sqrt(2.0 * rho)
            if sigma <= _MAX_SIGMA_STEPS:
                break
            g *= sigma / _MAX_SIGMA_STEPS
    if not (math.isfinite(g) and g > 0 and 0 < sigma <= 2 * _MAX_SIGMA_STEPS):
        return None
    return g, sigma, d_z


def discrete_gaussian_parameters(sensitivity: float, epsilon: float, delta: float,
                                 changed: int, *, rho: float | None = None) -> dict:
    """Grid and variance of the discrete Gaussian mechanism (docs/privacy.md 13.2).

    Grid step ``g = sensitivity / (GRID_STEPS sqrt(changed))`` (coarser if sigma would exceed
    ``2^20`` steps); rounding to the grid (exact: :func:`_grid_rounded`) changes at most
    ``changed`` coordinates' difference by at most one step each, so the rounded values' L2
    sensitivity in steps is at most
    ``D_Z = (sensitivity / g)(1 + 1e-12) + sqrt(changed)``. The discrete Gaussian
    ``N_Z(0, sigma^2)`` per coordinate is ``D_Z^2 / (2 sigma^2)``-zCDP (CKS Thm 14), so sigma^2
    ``>= D_Z^2 / (2 rho)`` with ``rho = approx_dp_to_zcdp_rho(epsilon, delta)`` gives
    (epsilon, delta)-DP; sigma^2 is rounded up to ``t u`` with ``t = floor(sigma) + 1``.
    ``rho`` given: calibrate to that zCDP parameter instead (``epsilon``, ``delta`` unused).

    Outside the sampler's range (:func:`discrete_gaussian_in_range`) a ValueError names the
    parameter and the least value that works (:func:`discrete_gaussian_min_epsilon`,
    :func:`discrete_gaussian_min_rho`).

    >>> discrete_gaussian_parameters(1.0, 1.0, 1e-6, 1)["t"]
    4645
    >>> discrete_gaussian_parameters(1.0, 1e-7, 1e-20, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sensitivity=1.0, epsilon=1e-07, delta=1e-20: outside the discrete Gaussian's range for 2 changed coordinates: ... epsilon >= 6.35e-06 at this delta ...
    """
    k = max(int(changed), 1)
    given_rho = rho is not None
    rho = _zcdp_rho(epsilon, delta) if rho is None else float(rho)
    fit = _discrete_gaussian_fit(sensitivity, rho, k)
    if fit is None:
        coords = f"{k:,} changed coordinate{'s' if k > 1 else ''}"
        if given_rho:
            what, need = (f"sensitivity={sensitivity!r}, rho={rho!r}",
                          f"use a larger rho: rho >= {round_up_3g(discrete_gaussian_min_rho(k))}")
        else:
            what = f"sensitivity={sensitivity!r}, epsilon={epsilon!r}, delta={delta!r}"
            need = (f"use a larger epsilon: epsilon >= "
                    f"{round_up_3g(discrete_gaussian_min_epsilon(delta, k))} at this delta")
        raise ValueError(f"{what}: outside the discrete Gaussian's range for {coords}: a noise "
                         f"this large hides any answer; {need} (at this step of the computation "
                         f"they are shares of the ones you passed; a direct call of a "
                         f"dpgraph.privacy mechanism may pass sampler='continuous')")
    g, sigma, d_z = fit
    t = math.floor(sigma) + 1
    u = math.ceil(sigma * sigma / t)
    return {"grid": g, "t": t, "u": u, "sensitivity_steps": d_z,
            "rho": d_z * d_z / (2.0 * t * u), "sigma": g * math.sqrt(t * u)}


def round_up_3g(x: float) -> str:
    """``x`` rounded up to 3 significant digits, for a message's advice (a value that works,
    where rounding to nearest could name one just short of it).

    >>> round_up_3g(8.8101e-05), round_up_3g(0.123456)
    ('8.82e-05', '0.124')
    """
    digits = 10.0 ** (math.floor(math.log10(x)) - 2)
    return f"{math.ceil(x * (1.0 + 1e-9) / digits) * digits:.3g}"


def discrete_gaussian_in_range(sensitivity: float, epsilon: float, delta: float,
                               changed: int = 1, *, rho: float | None = None) -> bool:
    """Whether :func:`discrete_gaussian_parameters` accepts a Gaussian release of L2
    ``sensitivity`` at ``(epsilon, delta)`` (or at zCDP ``rho``) with ``changed`` coordinates
    that adjacent inputs may move, i.e. whether :func:`gaussian_mechanism`
    (``sampler="discrete"``) and :func:`discrete_gaussian_noise` can draw it. Public arithmetic
    only: nothing is charged or drawn (docs/privacy.md 11.1). The range does not depend on the
    sensitivity (the grid scales with it).

    >>> discrete_gaussian_in_range(1.0, 1.0, 1e-6), discrete_gaussian_in_range(1.0, 1e-7, 1e-20)
    (True, False)
    """
    try:
        r = _zcdp_rho(float(epsilon), float(delta)) if rho is None else float(rho)
        return _discrete_gaussian_fit(float(sensitivity), r, max(int(changed), 1)) is not None
    except (ValueError, OverflowError, ZeroDivisionError):
        return False


def _least(ok, hi: float = 1.0) -> float:
    """The least positive ``x`` (to about 1e-12 relative) with ``ok(x)``, for ``ok`` monotone."""
    while not ok(hi):
        hi *= 2.0
        if hi > 1e300:  # nothing in range (a delta of 0, say): no value works
            return math.inf
    while ok(hi / 2.0) and hi > 1e-300:
        hi /= 2.0
    lo = hi / 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def discrete_gaussian_min_rho(changed: int = 1) -> float:
    """The least zCDP ``rho`` at which a discrete Gaussian release of ``changed`` coordinates is
    in the sampler's range (:func:`discrete_gaussian_in_range`): about
    ``changed / (2 (2^21 - ...)^2)``. Public arithmetic only.

    >>> r = discrete_gaussian_min_rho(1)
    >>> discrete_gaussian_in_range(1.0, 1, 0.5, rho=r), discrete_gaussian_in_range(1.0, 1, 0.5, rho=r / 2)
    (True, False)
    """
    k = max(int(changed), 1)
    return _least(lambda r: _discrete_gaussian_fit(1.0, r, k) is not None)


def discrete_gaussian_min_epsilon(delta: float, changed: int = 1) -> float:
    """The least epsilon at which a discrete Gaussian release of ``changed`` coordinates at
    ``delta`` is in the sampler's range (:func:`discrete_gaussian_in_range`; the range does
    not depend on the sensitivity). Public arithmetic only.

    >>> e = discrete_gaussian_min_epsilon(1e-20, 2)
    >>> 1e-6 < e < 1e-5, discrete_gaussian_in_range(1.0, e, 1e-20, 2)
    (True, True)
    >>> discrete_gaussian_in_range(1.0, e * (1 - 1e-6), 1e-20, 2)
    False
    """
    k = max(int(changed), 1)
    return _least(lambda e: discrete_gaussian_in_range(1.0, e, delta, k))


def check_gaussian_shares(epsilon: float, delta: float, releases, *, caller: str,
                          advice: str = "", epsilon_fraction: float = 1.0) -> None:
    """Refuse, before anything is charged or drawn (docs/privacy.md 11.1), an
    ``(epsilon, delta)`` at which one of ``releases`` would fall outside the exact discrete
    Gaussian sampler's range (:func:`discrete_gaussian_in_range`), where it would be refused only
    after the releases before it were drawn: the discrete Gaussian counterpart of
    :func:`check_laplace_shares`. ``releases``: ``(what, share, changed)`` triples, each a
    discrete Gaussian release of ``changed`` coordinates at ``(share * epsilon, share *
    delta)`` (shares <= 0 are skipped), or at ``share * epsilon_fraction * epsilon`` where the
    releases get only that fraction of the caller's epsilon (and all of its delta: the PCA
    route after the synthetic share and the screening count). The ValueError names the first
    release out of range, its share, and the least epsilon of the caller's (at this delta) at
    which every listed release fits; ``advice`` is appended.

    >>> check_gaussian_shares(1.0, 1e-6, [("the degrees", 0.05, 2)], caller="f")
    >>> try:
    ...     check_gaussian_shares(1e-6, 1e-6, [("the degrees", 0.05, 2)], caller="f")
    ... except ValueError as e:
    ...     print(str(e)[:68])
    f: at epsilon=1e-06, delta=1e-06, the degrees would get 0.05 of them
    """
    releases = [(what, float(share), max(int(changed), 1)) for what, share, changed in releases
                if share > 0]
    f = float(epsilon_fraction)
    bad = [(what, share, k) for what, share, k in releases
           if not discrete_gaussian_in_range(1.0, share * f * epsilon, share * delta, k)]
    if not bad:
        return
    need = max(discrete_gaussian_min_epsilon(share * delta, k) / (share * f)
               for _, share, k in releases)
    what, share, k = bad[0]
    of = "of them" if f == 1.0 else f"of delta and of the {f:.3g} of epsilon they get"
    raise ValueError(f"{caller}: at epsilon={epsilon!r}, delta={delta!r}, {what} would get "
                     f"{share:.3g} {of} ({share * f * epsilon:.3g}, {share * delta:.3g}), below "
                     f"the exact discrete Gaussian sampler's range for a release of {k:,} "
                     f"coordinate{'s' if k > 1 else ''} (at least epsilon "
                     f"{discrete_gaussian_min_epsilon(share * delta, k):.3g} at that delta): a "
                     f"noise this large hides any answer; use a larger epsilon: epsilon >= "
                     f"{round_up_3g(need)}{advice}. Refused before anything was charged or drawn")


def discrete_laplace_parameters(sensitivity: float, epsilon: float, changed: int) -> dict:
    """Grid and scale of the discrete Laplace mechanism (docs/privacy.md 13.1).

    Grid step ``g = sensitivity / (GRID_STEPS changed)`` (coarser if the scale would leave
    the sampler's range); the rounded values' L1 sensitivity in steps is at most
    ``D_Z = (sensitivity / g)(1 + 1e-12) + changed``; the discrete Laplace of scale
    ``t / s >= D_Z / epsilon`` steps is pure epsilon-DP (its pmf ratio at a shift of ``D_Z`` is
    at most ``exp(D_Z s / t)``). ``tail_scale = g (t / s + 1)``: a one-sided tail of the
    rounded release beyond ``tail_scale ln(1 / (2 beta))`` has probability at most ``beta`` for
    every ``beta <= 1 / (2e)``, as for a continuous Laplace of that scale (13.1)."""
    k = max(int(changed), 1)
    g = sensitivity / (GRID_STEPS * k)
    t = 0
    for _ in range(3):
        if not (math.isfinite(g) and g > 0):
            break
        d_z = (sensitivity / g) * (1 + 1e-12) + k
        x = d_z / epsilon * _LAPLACE_S
        if not math.isfinite(x):
            break
        t = math.ceil(x)
        if t <= _MAX_LAPLACE_T:
            break
        g *= t / _MAX_LAPLACE_T
    if not (math.isfinite(g) and g > 0 and 1 <= t <= 2 * _MAX_LAPLACE_T):
        raise ValueError(f"sensitivity={sensitivity!r}, epsilon={epsilon!r}: outside the "
                         f"discrete Laplace's range (grid step {g!r}): a noise this large hides "
                         f"any answer; use a larger epsilon (at this step of the computation "
                         f"epsilon is a share of the one you passed; a direct call of a "
                         f"dpgraph.privacy mechanism may pass sampler='continuous')")
    return {"grid": g, "t": t, "s": _LAPLACE_S, "sensitivity_steps": d_z,
            "epsilon": d_z * _LAPLACE_S / t, "scale": g * t / _LAPLACE_S,
            "tail_scale": g * (t / _LAPLACE_S + 1.0)}


def _discrete_gaussian_mechanism(value, sensitivity, epsilon, delta, ledger, name, rng, note,
                                 changed):
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    epsilon = check_epsilon(epsilon, name=f"{name}: epsilon")
    delta = check_delta(delta, name=f"{name}: delta", allow_zero=False)
    sensitivity = check_sensitivity(sensitivity, name=f"{name}: sensitivity")
    arr = np.asarray(value, dtype=np.float64)
    p = discrete_gaussian_parameters(sensitivity, epsilon, delta,
                                     arr.size if changed is None else changed)
    ledger.charge(name, mechanism="discrete gaussian", epsilon=epsilon, delta=delta,
                  sensitivity=sensitivity, sensitivity_norm="l2", noise_scale=p["sigma"],
                  note=note, rho=p["rho"], dp_event=EventSpec.of("ZCDpEvent", rho=p["rho"]))
    gen = _draw_rng(rng, ledger)
    q = _grid_rounded(arr, p["grid"])
    z = sample_discrete_gaussian(p["t"], p["u"], arr.size, gen).reshape(arr.shape)
    noisy = p["grid"] * (q + z).astype(np.float64)
    return (float(noisy) if noisy.ndim == 0 else noisy), p["sigma"]


def discrete_gaussian_noise(value, *, sensitivity: float, rho: float, changed: int,
                            ledger: PrivacyLedger, rng=None) -> tuple[np.ndarray, dict]:
    """``value`` rounded to a grid plus exact discrete Gaussian noise, ``rho``-zCDP for L2
    sensitivity ``sensitivity`` with at most ``changed`` coordinates differing
    (:func:`discrete_gaussian_parameters`): the discrete counterpart of :func:`gaussian_noise`
    for a mechanism that charged ``ledger`` itself (a zCDP composition). Returns the noisy
    value and the parameters (``p["rho"] <= rho`` is what the release spends)."""
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError("ledger must be a dpgraph.privacy.PrivacyLedger (every draw is recorded)")
    arr = np.asarray(value, dtype=np.float64)
    p = discrete_gaussian_parameters(check_sensitivity(sensitivity), 1.0, 0.5, changed, rho=rho)
    gen = _draw_rng(rng, ledger)
    q = _grid_rounded(arr, p["grid"])
    z = sample_discrete_gaussian(p["t"], p["u"], arr.size, gen).reshape(arr.shape)
    return p["grid"] * (q + z).astype(np.float64), p


def discrete_laplace_in_range(sensitivity: float, epsilon: float, changed: int = 1) -> bool:
    """Whether :func:`discrete_laplace_parameters` accepts a Laplace release of L1
    ``sensitivity`` at ``epsilon`` with ``changed`` coordinates that adjacent inputs may move,
    i.e. whether :func:`laplace_mechanism` (``sampler="discrete"``), :func:`laplace_add` and
    :class:`LaplaceDraws` can draw it. Public arithmetic only: nothing is charged or drawn, so
    a caller can refuse a share too small for the sampler before it spends anything
    (docs/privacy.md 11.1).

    >>> discrete_laplace_in_range(1.0, 1.0), discrete_laplace_in_range(1.0, 1e-13)
    (True, False)
    """
    try:
        discrete_laplace_parameters(float(sensitivity), float(epsilon), changed)
    except (ValueError, OverflowError, ZeroDivisionError):
        return False
    return True


def discrete_laplace_min_epsilon(changed: int = 1) -> float:
    """The smallest epsilon at which a discrete Laplace release of ``changed`` coordinates is in
    the sampler's range (:func:`discrete_laplace_in_range`; the range does not depend on the
    sensitivity: the grid scales with it). About ``5.6e-13 changed``. Public arithmetic only.

    >>> e = discrete_laplace_min_epsilon(1)
    >>> 1e-13 < e < 1e-12, discrete_laplace_in_range(1.0, e), discrete_laplace_in_range(1.0, e / 2)
    (True, True, False)
    """
    k = max(int(changed), 1)
    lo, hi = 0.0, 1.0
    while not discrete_laplace_in_range(1.0, hi, k):  # pragma: no cover - k above ~1e12
        lo, hi = hi, hi * 2.0
    while discrete_laplace_in_range(1.0, hi / 2.0, k):
        hi /= 2.0
    lo = max(lo, hi / 2.0)
    for _ in range(60):  # bisection: ``hi`` stays in range, ``lo`` out of it
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if discrete_laplace_in_range(1.0, mid, k):
            hi = mid
        else:
            lo = mid
    return hi


def least_in_range(changed: int = 1, per: float = 1.0) -> float:
    """The least ``x`` at which a discrete Laplace release of ``changed`` coordinates at
    epsilon ``x * per`` is in the sampler's range (:func:`discrete_laplace_min_epsilon`),
    rounded up to 3 significant digits for a message: with ``per`` a share, the least epsilon;
    with ``per`` a share's factor times epsilon, the least share. Public arithmetic only.

    >>> least_in_range(1, 0.5) >= 2 * discrete_laplace_min_epsilon(1)
    True
    """
    need = discrete_laplace_min_epsilon(changed) / per * (1.0 + 1e-9)  # float slack
    digits = 10.0 ** (math.floor(math.log10(need)) - 2)
    return math.ceil(need / digits) * digits


def check_laplace_shares(epsilon: float, releases, *, caller: str, advice: str = "") -> None:
    """Refuse, before anything is charged or drawn (docs/privacy.md 11.1), an ``epsilon`` at
    which one of ``releases`` would fall outside the exact discrete Laplace sampler's range
    (:func:`discrete_laplace_in_range`), where it would be refused only after the releases
    before it were drawn. ``releases``: ``(what, share, changed)`` triples, each a discrete
    Laplace release of ``changed`` coordinates at ``share * epsilon`` (shares <= 0 are
    skipped). The ValueError names the first release out of range, its share, and the
    smallest epsilon at which every listed release fits; ``advice`` is appended.

    >>> check_laplace_shares(1.0, [("the count", 0.5, 1)], caller="f")
    >>> try:
    ...     check_laplace_shares(1e-12, [("the count", 0.5, 1)], caller="f")
    ... except ValueError as e:
    ...     print(str(e)[:59])
    f: at epsilon=1e-12, the count would get 0.5 of it (5e-13),
    """
    releases = [(what, float(share), max(int(changed), 1)) for what, share, changed in releases
                if share > 0]
    bad = [(what, share, k) for what, share, k in releases
           if not discrete_laplace_in_range(1.0, share * epsilon, k)]
    if not bad:
        return
    need = max(least_in_range(k, share) for _, share, k in releases)
    what, share, k = bad[0]
    raise ValueError(f"{caller}: at epsilon={epsilon!r}, {what} would get {share:.3g} of it "
                     f"({share * epsilon:.3g}), below the exact discrete Laplace sampler's range "
                     f"for a release of {k:,} coordinate{'s' if k > 1 else ''} (at least "
                     f"{discrete_laplace_min_epsilon(k):.3g}): a noise this large hides any "
                     f"answer; use a larger epsilon: epsilon >= {need:.3g}{advice}. Refused "
                     f"before anything was charged or drawn")
