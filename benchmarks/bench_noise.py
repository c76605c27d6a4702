"""Noise and time of the accounting and sampler choices (docs/privacy.md 5.4, 12, 13).

1. ``calibration``: the matrix-free route's noise scale under the exact Gaussian-DP
   composition (the default) vs the zCDP bound of Canonne-Kamath-Steinke (the previous
   calibration), at three budgets: the ratio of the power steps' noise multipliers
   (sigma / sensitivity), read from the
   route's diagnostics on a planted graph (``_split_budget`` patched for the baseline).
2. ``samplers``: CPU time of the exact discrete samplers (the default for scalar Gaussian
   releases and every Laplace release; an option for the matrix-free route) vs the
   floating-point ones, on the releases of ``rng``: ``privatize`` on the randomized-response
   route (its block-model export is Laplace) and the matrix-free route, paired and alternated.
3. ``rng``: cost of the secure default generator (AES-CTR or ChaCha20 keyed from OS entropy)
   vs PCG64. Times the same release twice per repetition, once with ``rng=None`` (the default,
   private) and once with an unseeded PCG64 ``numpy.random.Generator`` (what ``rng=None`` gave
   before; not cryptographically secure), alternating the order, on the largest dense release
   (the randomized-response route over all n(n-1)/2 pairs), on ``max_cut`` end to end and on
   the matrix-free route at n = 200,000; also the raw draws. Prints median CPU seconds and the
   ratio secure / PCG64.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_noise.py calibration
       OPENBLAS_NUM_THREADS=1 python benchmarks/bench_noise.py samplers [n_dense] [n_matrix_free] [reps]
       OPENBLAS_NUM_THREADS=1 python benchmarks/bench_noise.py rng [n ...]   (default: 5000 10000)

Times are CPU seconds of this process (robust to other jobs on a shared machine; run with
OPENBLAS_NUM_THREADS=1 so that it is the single thread's time).
"""

import statistics
import sys
import time
import warnings

import numpy as np

import dpgraph
from dpgraph.privacy import ReproducibleNoiseWarning, approx_dp_to_zcdp_rho, secure_rng
from dpgraph.privacy import noise
from dpgraph.release.routes import matrix_free as mf

warnings.simplefilter("ignore", ReproducibleNoiseWarning)  # the PCG64 / seeded runs, on purpose


def calibration() -> None:
    G = dpgraph.datasets.planted_cut(20_000, 20, rng=1).graph
    print("| (epsilon, delta) | step sigma / sensitivity, zCDP (CKS) | same, exact GDP | GDP / CKS |")
    print("|---|---|---|---|")
    split = mf._split_budget
    for eps, dlt in [(1.0, 1e-6), (4.0, 1e-6), (4.0, 1e-3)]:
        out = {}
        for which in ("cks", "gdp"):
            if which == "cks":  # the previous calibration: rho from the CKS conversion
                mf._split_budget = lambda e, d, *a: _cks_split(split, e, d, *a)
            try:
                pg = dpgraph.privatize(G, epsilon=eps, delta=dlt, route="matrix-free", rng=0)
            finally:
                mf._split_budget = split
            # noise per unit of sensitivity (the sensitivity itself depends on the noisy degrees)
            out[which] = pg.diagnostics["step_sigmas"][0] / pg.diagnostics["step_sensitivity"]
        print(f"| ({eps:g}, {dlt:g}) | {out['cks']:.6g} | {out['gdp']:.6g} | "
              f"{out['gdp'] / out['cks']:.4f} |", flush=True)


def _cks_split(split, epsilon, delta, *args):
    b = split(epsilon, delta, *args)
    scale = approx_dp_to_zcdp_rho(epsilon, delta) * (1 - 1e-12) / b.rho
    return mf._Budget(rho=b.rho * scale, degrees=b.degrees * scale, steps=b.steps * scale,
                      core=b.core * scale)


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _paired(make, reps: int):
    a, b = [], []
    for k in range(reps):
        for out, which in ([(a, "discrete"), (b, "continuous")] if k % 2 == 0
                           else [(b, "continuous"), (a, "discrete")]):
            out.append(_cpu(make(which)))
    return statistics.median(a), statistics.median(b)


def _row(what, disc, cont):
    print(f"| {what} | {disc:.2f} CPU s | {cont:.2f} CPU s | {disc / cont:.3f} |", flush=True)


def samplers(n_dense: int = 5000, n_mf: int = 200_000, reps: int = 3) -> None:
    print("| release | discrete samplers | floating-point samplers | ratio |")
    print("|---|---|---|---|")
    gen = np.random.default_rng(0)
    x = np.zeros(1_000_000)
    led = dpgraph.PrivacyLedger()
    _row("laplace_mechanism, 10^6 values", *_paired(lambda s: lambda: noise.laplace_mechanism(
        x, sensitivity=1.0, epsilon=1.0, ledger=led, name="x", rng=gen, sampler=s), reps))
    _row("gaussian_mechanism, 10^6 values", *_paired(lambda s: lambda: noise.gaussian_mechanism(
        x, sensitivity=1.0, epsilon=1.0, delta=1e-6, ledger=led, name="x", rng=gen, sampler=s),
        reps))
    lap, gau = noise.laplace_mechanism.__kwdefaults__, noise.gaussian_mechanism.__kwdefaults__

    def dense(which):
        def run():
            old = lap["sampler"], gau["sampler"]
            lap["sampler"] = "discrete" if which == "discrete" else "continuous"
            gau["sampler"] = "auto" if which == "discrete" else "continuous"
            try:
                dpgraph.privatize(g, epsilon=1.0, delta=1e-6, route="randomized-response")
            finally:
                lap["sampler"], gau["sampler"] = old
        return run

    g = dpgraph.datasets.planted_cut(n_dense, 50, rng=1).graph
    _row(f"privatize, randomized response, n={n_dense:,}", *_paired(dense, reps))
    g2 = dpgraph.datasets.planted_cut(n_mf, 50, rng=1).graph
    _row(f"privatize, matrix-free route, n={n_mf:,}, d=50", *_paired(
        lambda s: lambda: dpgraph.privatize(g2, epsilon=2.0, delta=1e-6, route="matrix-free",
                                            matrix_free_options={"noise": s}), reps))


def _paired_rng(fn, reps: int) -> tuple[float, float]:
    secure, pcg = [], []
    for k in range(reps):
        order = [(secure, None), (pcg, "pcg")] if k % 2 == 0 else [(pcg, "pcg"), (secure, None)]
        for out, which in order:
            rng = np.random.default_rng() if which else None
            out.append(_cpu(lambda: fn(rng)))
    return statistics.median(secure), statistics.median(pcg)


def rng(sizes) -> None:
    print(f"| release | {type(secure_rng().bit_generator).__mro__[1].__name__} (default, secure) "
          f"| PCG64 | ratio |")
    print("|---|---|---|---|")
    N = 50_000_000
    _row(f"{N:,} uniform draws", *_paired_rng(
        lambda g: (g if g is not None else secure_rng()).random(N), 3))
    _row(f"{N:,} normal draws", *_paired_rng(
        lambda g: (g if g is not None else secure_rng()).standard_normal(N), 3))
    for n in sizes:
        g = dpgraph.datasets.planted_cut(n, 50, rng=1).graph
        kw = dict(epsilon=1.0, delta=1e-6, route="randomized-response")
        _row(f"privatize, randomized response, n={n:,}", *_paired_rng(
            lambda r: dpgraph.privatize(g, rng=r, **kw), 3))
        _row(f"max_cut end to end, n={n:,}", *_paired_rng(
            lambda r: dpgraph.max_cut(g, epsilon=1.0, delta=1e-6, rng=r), 1))
    g = dpgraph.datasets.planted_cut(200_000, 50, rng=1).graph
    _row("privatize, matrix-free route, n=200,000, d=50", *_paired_rng(
        lambda r: dpgraph.privatize(g, epsilon=2.0, delta=1e-6, route="matrix-free", rng=r), 3))


if __name__ == "__main__":
    if sys.argv[1:2] == ["calibration"]:
        calibration()
    elif sys.argv[1:2] == ["rng"]:
        rng([int(a) for a in sys.argv[2:]] or [5000, 10000])
    else:
        samplers(*[int(a) for a in sys.argv[2:]])
