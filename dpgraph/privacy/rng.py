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

So ``rng=None`` (the default everywhere) gives a NumPy ``Generator`` over ChaCha20 (Bernstein
2008; the ``randomgen`` package's implementation, 20 rounds) keyed with 256 bits from the
operating system (:mod:`secrets`). Anything else (an int, a ``SeedSequence``, a ``Generator`` the
caller built) is *reproducible mode*: the ledger of every release drawn from it is marked
"reproducible noise: not a private release" and a :class:`ReproducibleNoiseWarning` is emitted.
A caller who wants to hold a secure generator themselves uses :func:`secure_rng`; it is
recognised as secure.

Large noise matrices are generated block by block (:class:`~dpgraph.privacy.GaussianMatrixNoise`);
under a secure generator each block is its own ChaCha20 stream: a 256-bit key drawn once from the
caller's secure generator, and a disjoint counter range per block (:func:`block_generator`).
"""

from __future__ import annotations

import secrets

import numpy as np
from randomgen import ChaCha

__all__ = [
    "REPRODUCIBLE_NOTICE",
    "ReproducibleNoiseWarning",
    "SecureChaCha",
    "secure_rng",
    "is_secure",
    "make_rng",
    "block_key",
    "block_generator",
]

REPRODUCIBLE_NOTICE = "reproducible noise: not a private release"

_ROUNDS = 20  # the standard ChaCha20; fewer rounds trade security margin for speed


class ReproducibleNoiseWarning(UserWarning):
    """A release drew its noise from a seeded or caller-supplied generator: it is reproducible,
    so it is not private (anyone with the seed can remove the noise). For tests and benchmarks."""


class SecureChaCha(ChaCha):
    """ChaCha20 keyed with 256 bits of operating-system entropy (marks a generator as secure)."""

    def __init__(self):
        super().__init__(key=secrets.randbits(256), rounds=_ROUNDS)


def secure_rng() -> np.random.Generator:
    """A ``numpy.random.Generator`` over ChaCha20 keyed from OS entropy (what ``rng=None`` gives).

    Examples
    --------
    >>> gen = secure_rng()
    >>> is_secure(gen), 0.0 <= gen.random() < 1.0
    (True, True)
    """
    return np.random.Generator(SecureChaCha())


def is_secure(gen) -> bool:
    """Whether ``gen`` is a generator made by :func:`secure_rng` (keyed from OS entropy)."""
    return isinstance(gen, np.random.Generator) and isinstance(gen.bit_generator, SecureChaCha)


def make_rng(rng=None) -> np.random.Generator:
    """Normalise ``rng``: None -> :func:`secure_rng`; int/SeedSequence -> a seeded PCG64 generator
    (reproducible mode); a Generator -> itself.

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
    if isinstance(rng, (int, np.integer, np.random.SeedSequence)) and not isinstance(rng, bool):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be None, an int or a numpy.random.Generator, got {type(rng).__name__}")


def block_key(gen: np.random.Generator) -> tuple[bool, object]:
    """Draw the key of a block-generated noise matrix from ``gen``.

    Returns ``(secure, key)``: under a secure generator a 256-bit ChaCha key; otherwise four
    32-bit words for a ``SeedSequence`` (the reproducible mode's historical scheme, kept so that
    seeded runs give the same numbers as before).
    """
    if is_secure(gen):
        return True, int.from_bytes(gen.bytes(32), "little")
    return False, [int(x) for x in gen.integers(0, 2**32, size=4, dtype=np.uint64)]


def block_generator(secure: bool, key, index: tuple[int, int]) -> np.random.Generator:
    """The generator of block ``index = (bi, bj)`` of a block-generated matrix.

    Secure: ChaCha20 under ``key`` with the 128-bit counter starting at ``(bi * 2^32 + bj) * 2^64``,
    so blocks use disjoint counter ranges (a block draws far fewer than 2^64 64-byte ChaCha blocks)
    and no block's output says anything about another's. Reproducible: PCG64 seeded by
    ``SeedSequence(key + [bi, bj])``.
    """
    bi, bj = (int(i) for i in index)
    if secure:
        counter = ((bi << 32) + bj) << 64
        return np.random.Generator(ChaCha(key=key, counter=counter, rounds=_ROUNDS))
    return np.random.default_rng(np.random.SeedSequence(list(key) + [bi, bj]))
