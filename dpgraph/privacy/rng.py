"""Where dpgraph's randomness comes from: a cryptographically secure generator by default.

A release is private only if the attacker cannot reproduce its noise. Two ways to lose that:

* **A known seed.** With ``rng=0`` the noise is a fixed function of the seed, so two releases
  made with the same seed on two graphs differ exactly where the graphs differ: an attacker who
  runs the same call on a graph they know recovers every node pair of the private graph
  (``tests/test_secure_rng.py`` reproduces this). Seeds are for tests and benchmarks only.
* **A predictable generator.** NumPy's default bit generator (PCG64) is not cryptographically
  secure: its state can be recovered from enough outputs (Bouillaguet, Martinez & Sauvage,
  "Practical seed-recovery for the PCG pseudo-random number generator", ToSC 2020), and
  randomized response turns millions of draws into released bits, many of which an attacker can
  predict (most pairs of a sparse graph are non-edges).

So ``rng=None`` (the default everywhere) gives a NumPy ``Generator`` over a cryptographically
secure bit generator of the ``randomgen`` package keyed from the operating system
(:mod:`secrets`): AES-128 in counter mode where the CPU has AES instructions (AES-NI; as fast
as PCG64 for uniform draws: BENCHMARKS.md "Secure randomness"), ChaCha20 (Bernstein 2008,
20 rounds, 256-bit key) otherwise. Anything else (an int, a ``SeedSequence``, a ``Generator`` the
caller built) is *reproducible mode*: the ledger of every release drawn from it is marked
"reproducible noise: not a private release" and a :class:`ReproducibleNoiseWarning` is emitted.
A caller who wants to hold a secure generator themselves uses :func:`secure_rng`; it is
recognised as secure.

Large noise matrices are generated block by block (:class:`~dpgraph.privacy.GaussianMatrixNoise`);
under a secure generator each block is its own keystream segment: a key drawn once from the
caller's secure generator, and a disjoint counter range per block (:func:`block_generator`).
"""

from __future__ import annotations

import secrets

import numpy as np
from randomgen import AESCounter, ChaCha

from dpgraph.caller import DPGraphWarning
from dpgraph.privacy.validation import InvalidParameterError

__all__ = [
    "REPRODUCIBLE_NOTICE",
    "ReproducibleNoiseWarning",
    "SecureChaCha",
    "SecureAES",
    "secure_rng",
    "is_secure",
    "make_rng",
    "block_key",
    "block_generator",
    "child_rng",
]

REPRODUCIBLE_NOTICE = "reproducible noise: not a private release"

_ROUNDS = 20  # the standard ChaCha20; fewer rounds trade security margin for speed


class ReproducibleNoiseWarning(DPGraphWarning):
    """A release drew its noise from a seeded or caller-supplied generator: it is reproducible,
    so it is not private (anyone with the seed can remove the noise). For tests and benchmarks."""


class SecureChaCha(ChaCha):
    """ChaCha20 keyed with 256 bits of operating-system entropy (marks a generator as secure)."""

    def __init__(self):
        super().__init__(key=secrets.randbits(256), rounds=_ROUNDS)


class SecureAES(AESCounter):
    """AES-128 in counter mode keyed with 128 bits of operating-system entropy (marks a
    generator as secure). Used where the CPU has AES-NI."""

    def __init__(self):
        super().__init__(key=secrets.randbits(128))


def _has_aesni() -> bool:
    try:
        return bool(AESCounter(key=0).use_aesni)
    except Exception:  # pragma: no cover - randomgen builds without the attribute
        return False


_AESNI = _has_aesni()
_SECURE = (SecureAES, SecureChaCha)


def secure_rng() -> np.random.Generator:
    """A ``numpy.random.Generator`` over AES-CTR (with AES-NI) or ChaCha20, keyed from OS
    entropy: what ``rng=None`` gives.

    Examples
    --------
    >>> gen = secure_rng()
    >>> is_secure(gen), 0.0 <= gen.random() < 1.0
    (True, True)
    """
    return np.random.Generator(SecureAES() if _AESNI else SecureChaCha())


def is_secure(gen) -> bool:
    """Whether ``gen`` is a generator made by :func:`secure_rng` (keyed from OS entropy).

    Examples
    --------
    >>> is_secure(secure_rng()), is_secure(np.random.default_rng(0)), is_secure(None)
    (True, False, False)
    """
    return isinstance(gen, np.random.Generator) and isinstance(gen.bit_generator, _SECURE)


def make_rng(rng=None) -> np.random.Generator:
    """Normalise ``rng``: None -> :func:`secure_rng`; int/SeedSequence -> a seeded PCG64 generator
    (reproducible mode; a SeedSequence is copied, so the caller's is never spawned from);
    a Generator -> itself; a NumPy bit generator (``np.random.PCG64(0)``) -> a Generator on
    it, as :func:`numpy.random.default_rng` does.

    Examples
    --------
    >>> is_secure(make_rng(None)), is_secure(make_rng(0))
    (True, False)
    >>> int(make_rng(0).integers(10**6)) == int(make_rng(0).integers(10**6))  # reproducible: NOT private
    True
    """
    if rng is None:
        return secure_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.BitGenerator):
        return np.random.Generator(rng)
    if isinstance(rng, np.random.SeedSequence):
        # a copy (the same numbers): the caller's sequence is not the generator's, so a
        # release's spawned sample stream (dpgraph.synthetic.sample_streams) does not advance
        # it, and the same sequence passed twice gives the same results, as an int seed does
        return np.random.default_rng(np.random.SeedSequence(
            rng.entropy, spawn_key=rng.spawn_key, pool_size=rng.pool_size,
            n_children_spawned=rng.n_children_spawned))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:  # found by fuzzing
            raise InvalidParameterError(f"rng must be None, a non-negative int seed, a "
                             f"numpy.random.SeedSequence or a numpy.random.Generator, got {rng!r}")
        return np.random.default_rng(rng)
    hint = ("; the legacy RandomState is not taken: pass np.random.default_rng(seed) or the seed"
            if isinstance(rng, np.random.RandomState) else "")
    raise InvalidParameterError(f"rng must be None, a non-negative int seed, a numpy.random.SeedSequence or "
                    f"a numpy.random.Generator, got {type(rng).__name__}{hint}")


def block_key(gen: np.random.Generator) -> tuple[str | None, object]:
    """Draw the key of a block-generated noise matrix from ``gen``.

    Returns ``(cipher, key)``: under a secure generator ``("aes", 128-bit key)`` or
    ``("chacha", 256-bit key)`` (the same cipher as ``gen``); otherwise ``(None, four 32-bit
    words)`` for a ``SeedSequence`` (the reproducible mode's historical scheme, kept so that
    seeded runs give the same numbers as before).
    """
    if isinstance(gen.bit_generator, SecureAES):
        return "aes", int.from_bytes(gen.bytes(16), "little")
    if is_secure(gen):
        return "chacha", int.from_bytes(gen.bytes(32), "little")
    return None, [int(x) for x in gen.integers(0, 2**32, size=4, dtype=np.uint64)]


def block_generator(cipher: str | None, key, index: tuple[int, int]) -> np.random.Generator:
    """The generator of block ``index = (bi, bj)`` of a block-generated matrix.

    Secure (``cipher`` ``"aes"`` or ``"chacha"``): the cipher in counter mode under ``key`` with
    the 128-bit counter starting at ``(bi * 2^32 + bj) * 2^64``, so blocks use disjoint counter
    ranges (a block draws far fewer than 2^64 cipher blocks) and are segments of one keystream.
    Reproducible (``None``): PCG64 seeded by ``SeedSequence(key + [bi, bj])``.
    """
    bi, bj = (int(i) for i in index)
    counter = ((bi << 32) + bj) << 64
    if cipher == "aes":
        return np.random.Generator(AESCounter(key=key, counter=counter))
    if cipher == "chacha":
        return np.random.Generator(ChaCha(key=key, counter=counter, rounds=_ROUNDS))
    return np.random.default_rng(np.random.SeedSequence(list(key) + [bi, bj]))


def child_rng(gen: np.random.Generator) -> np.random.Generator:
    """A generator for a step whose number of draws depends on the input (the Bernoulli rounding
    of fractional weights draws one number per such weight): keyed by a fixed number of draws
    of ``gen`` (:func:`block_key`), so that what ``gen`` draws after it does not depend on how
    many numbers the step drew (docs/privacy.md 4.12); a cipher keystream where ``gen`` is
    secure, a seeded PCG64 where it is not.

    >>> g, h = np.random.default_rng(0), np.random.default_rng(0)
    >>> _ = child_rng(g).random(5); _ = child_rng(h).random(500)
    >>> float(g.random()) == float(h.random())  # the parent's stream moved by the same amount
    True
    """
    return block_generator(*block_key(gen), (0, 0))
