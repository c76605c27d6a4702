"""Where a release's samples draw from when ``sample(rng=None)``: NumPy-like seeding.

A release made in *reproducible mode* (``rng`` an int seed, a ``SeedSequence`` or a caller's
non-secure ``Generator``; :mod:`dpgraph.privacy.rng`) keeps one generator of its own, derived
deterministically from that seed, and every ``sample()`` without an ``rng`` draws from it and
advances it: two calls on one release give two different graphs, and re-running the same
script gives the same sequence of graphs (as with ``numpy.random.default_rng(0)``). A release
made with ``rng=None`` (or a secure generator, :func:`~dpgraph.privacy.secure_rng`) keeps no
generator: each ``sample()`` draws fresh secure randomness. ``sample(rng=...)`` always draws
from the ``rng`` it is given.

:func:`sample_stream` derives that generator at release time: a child of the seed's
``SeedSequence`` (what ``numpy.random.Generator.spawn`` does), so the release's own noise and
the caller's generator's stream are left exactly as they were (``dpgraph synth --seed`` draws
its sample from the same generator after the release, as before). Where the generator has no
seed sequence, or where a release was built without one (:func:`dpgraph.privatize`'s
releases, whose routes do not pass it on), :func:`stream_from_values` derives it from a
digest of the generator's state or of the release's own released values: a deterministic
function of the seed and the input, as the release itself is.

All of this is post-processing: the sampler's randomness is never part of the privacy
argument (docs/privacy.md 7.5), and a reproducible release is not private anyway.
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpgraph.privacy.rng import is_secure, make_rng

__all__ = ["sample_stream", "stream_from_values", "sample_generator"]


def _digest_seed(parts) -> np.random.SeedSequence:
    """A ``SeedSequence`` keyed by the SHA-256 digest of ``parts`` (bytes, arrays, strings)."""
    h = hashlib.sha256()
    for p in parts:
        if p is None:
            h.update(b"\x00none")
        elif isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode() + str(p.shape).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        elif isinstance(p, bytes):
            h.update(p)
        else:
            h.update(repr(p).encode())
        h.update(b"\x1f")
    return np.random.SeedSequence(int.from_bytes(h.digest(), "little"))


def sample_stream(gen: np.random.Generator) -> np.random.Generator | None:
    """The generator a release drawn from ``gen`` keeps for its ``sample(rng=None)``: None when
    ``gen`` is secure (each sample then draws fresh secure randomness); otherwise a child
    stream of ``gen``'s ``SeedSequence`` (``numpy.random.Generator.spawn``: ``gen``'s own
    draws are not touched), or, for a generator without one, a generator keyed by a digest of
    its state (which is not advanced either).

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.privacy import secure_rng
    >>> a, b = sample_stream(np.random.default_rng(0)), sample_stream(np.random.default_rng(0))
    >>> int(a.integers(10**9)) == int(b.integers(10**9))  # the same seed, the same stream
    True
    >>> sample_stream(secure_rng()) is None
    True
    >>> g = np.random.default_rng(0); x = sample_stream(g)
    >>> int(g.integers(10**9)) == int(np.random.default_rng(0).integers(10**9))  # untouched
    True
    """
    if is_secure(gen):
        return None
    bg = gen.bit_generator
    seq = getattr(bg, "seed_seq", None)
    if seq is None:
        seq = getattr(bg, "_seed_seq", None)  # numpy < 1.25
    if isinstance(seq, np.random.SeedSequence):
        child = seq.spawn(1)[0]
        try:
            return np.random.Generator(type(bg)(child))
        except Exception:  # a bit generator that takes no SeedSequence (randomgen's)
            return np.random.default_rng(child)
    return np.random.default_rng(_digest_seed(["state", type(bg).__name__, bg.state]))


def stream_from_values(*values) -> np.random.Generator:
    """A generator keyed by a digest of ``values`` (a release's released arrays): for a
    reproducible release that holds no :func:`sample_stream` of its own.

    >>> import numpy as np
    >>> x = np.arange(4.0)
    >>> int(stream_from_values(x).integers(10**9)) == int(stream_from_values(x).integers(10**9))
    True
    """
    return np.random.default_rng(_digest_seed(["values", *values]))


def sample_generator(rng, stream, reproducible: bool, values) -> tuple:
    """``(generator, stream)`` for one ``sample(rng)`` of a release: ``make_rng(rng)`` when
    ``rng`` is given; else, for a reproducible release (``reproducible``, its ledger's mark),
    its ``stream`` (made from ``values()``, the release's released arrays, when it has none yet;
    the caller keeps the returned stream so that the next sample continues it); else (a secure
    release, no stream) a fresh secure generator."""
    if rng is not None:
        return make_rng(rng), stream
    if stream is None and reproducible:
        stream = stream_from_values(*values())
    return (make_rng(None) if stream is None else stream), stream
