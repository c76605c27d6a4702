"""Time and peak memory of the default private Max-Cut (the local route) on a planted graph
too large for the dense routes: generation, then ``dpgraph.max_cut`` (route="auto").

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local_scale.py --n 1000000 --degree 10 \\
        --epsilon 1

Peak memory is the process's peak resident set (``ru_maxrss``) after each stage; the ratio is
the true cut of the private partition over the planted cut.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import dpgraph  # noqa: E402
from dpgraph.lab.evaluate import cut_value  # noqa: E402

warnings.filterwarnings("ignore")


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--degree", type=float, default=10.0)
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    t = time.perf_counter()
    inst = dpgraph.datasets.planted_cut(args.n, args.degree, rng=1)
    g = inst.graph
    print(f"generated n={g.n:,} m={g.m:,} in {time.perf_counter() - t:.1f} s "
          f"(peak {peak_gib():.2f} GiB)", flush=True)
    t = time.perf_counter()
    res = dpgraph.max_cut(g, epsilon=args.epsilon, delta=1e-6, rng=args.seed)
    secs = time.perf_counter() - t
    x = np.array([1 if res.assignment[v] else -1 for v in g.labels])
    ratio = cut_value(g, x) / inst.planted_value
    print(f"max_cut: route {res.diagnostics['route']}, {secs:.1f} s, cut / planted cut "
          f"{ratio:.3f}, peak {peak_gib():.2f} GiB (whole process)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
