"""Cost of the secure default generator: AES-CTR or ChaCha20 keyed from OS entropy vs PCG64.

Times the same release twice per repetition, once with ``rng=None`` (the default: AES-CTR or ChaCha20,
private) and once with an unseeded PCG64 ``numpy.random.Generator`` (what ``rng=None`` gave
before; not cryptographically secure), alternating the order, on the largest dense release
(the randomized-response route over all n(n-1)/2 pairs), on ``max_cut`` end to end and on the
matrix-free route at n = 200,000.
Also times the raw draws. Prints median CPU seconds and the ratio secure / PCG64.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_rng.py [n ...]   (default: 5000 10000)
"""

import statistics
import sys
import time
import warnings

import numpy as np

import dpgraph
from dpgraph.privacy import ReproducibleNoiseWarning, secure_rng

warnings.simplefilter("ignore", ReproducibleNoiseWarning)  # the PCG64 runs are marked, on purpose


def _time(fn, rng) -> float:
    """CPU seconds of this process (robust to other jobs on a shared machine; run with
    OPENBLAS_NUM_THREADS=1 so that it is the single thread's time)."""
    t0 = time.process_time()
    fn(rng)
    return time.process_time() - t0


def _paired(fn, reps: int) -> tuple[float, float]:
    secure, pcg = [], []
    for k in range(reps):
        order = [(secure, None), (pcg, "pcg")] if k % 2 == 0 else [(pcg, "pcg"), (secure, None)]
        for out, which in order:
            out.append(_time(fn, np.random.default_rng() if which else None))
    return statistics.median(secure), statistics.median(pcg)


def _row(what: str, secure: float, pcg: float) -> None:
    print(f"| {what} | {secure:.2f} CPU s | {pcg:.2f} CPU s | {secure / pcg:.3f} |", flush=True)


def main(sizes) -> None:
    print(f"| release | {type(secure_rng().bit_generator).__mro__[1].__name__} (default, secure) | PCG64 | ratio |")
    print("|---|---|---|---|")
    N = 50_000_000
    _row(f"{N:,} uniform draws", *_paired(lambda g: (g if g is not None else secure_rng()).random(N), 3))
    _row(f"{N:,} normal draws", *_paired(
        lambda g: (g if g is not None else secure_rng()).standard_normal(N), 3))
    for n in sizes:
        g = dpgraph.datasets.planted_cut(n, 50, rng=1).graph
        kw = dict(epsilon=1.0, delta=1e-6, route="randomized-response")
        _row(f"privatize, randomized response, n={n:,}", *_paired(
            lambda r: dpgraph.privatize(g, rng=r, **kw), 3))
        _row(f"max_cut end to end, n={n:,}", *_paired(
            lambda r: dpgraph.max_cut(g, epsilon=1.0, delta=1e-6, rng=r), 1))
    g = dpgraph.datasets.planted_cut(200_000, 50, rng=1).graph
    _row("privatize, matrix-free route, n=200,000, d=50", *_paired(
        lambda r: dpgraph.privatize(g, epsilon=2.0, delta=1e-6, route="matrix-free", rng=r), 3))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [5000, 10000])
