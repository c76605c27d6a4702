"""``max_cut(..., certify=True)``: how close the private certified bound is to the input's SDP
value, and what it costs.

For each graph and seed: one call without ``certify`` and one with it (same epsilon, route
"auto"); reported: the released ``certified_upper_bound`` and the noisy bound over the SDP
value (the literature value of the shared README for the G-set, else this script's own verified
solve, printed with its certified gap), ``certified_ratio``, and both calls' wall-clock seconds
(the certify call includes the solve and verification of the input's relaxation), and its CPU
seconds (one BLAS thread: the wall-clock time on an unloaded core).

    DPGRAPH_DATA=/work/shared/datasets OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \\
        python benchmarks/bench_certify.py --graphs G3,G35,facebook --epsilon 1 --seeds 3

Not private: the SDP reference is computed on the true graph, for scoring only.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import platform
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

import dpgraph  # noqa: E402
from dpgraph.io import read_graph  # noqa: E402
from dpgraph.progress import reporting  # noqa: E402
from dpgraph.solve.certify import input_sdp_bound  # noqa: E402

#: SDP optima of the G-set graphs (the shared data README, from published tables)
LITERATURE_SDP = {"G3": 12084.33, "G35": 8014.74, "G48": 6000.0}


def load(name: str):
    root = os.environ.get("DPGRAPH_DATA")
    if not root:
        sys.exit("set DPGRAPH_DATA to the folder of the shared data sets")
    for sub in ("gset", "social"):
        path = os.path.join(root, sub, f"{name}.txt")
        if os.path.exists(path):
            return read_graph(path)
    sys.exit(f"no graph {name!r} under {root}/gset or {root}/social")


def reference_sdp(name: str, data) -> tuple[float, float]:
    """(SDP value, its certified uncertainty): the literature value (uncertainty 0.01, its
    rounding) or the midpoint of the verified interval ``[f - tau, f]`` of
    :func:`dpgraph.solve.certify.input_sdp_bound` (uncertainty tau / 2)."""
    if name in LITERATURE_SDP:
        return LITERATURE_SDP[name], 0.01
    f, tau = input_sdp_bound(data, rng=0)
    return f - tau / 2, tau / 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default="G3,G35")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"numpy {np.__version__}, dpgraph {dpgraph.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    print("| graph | n | m | SDP (ref) | seed | certified_upper_bound | over SDP | noisy bound "
          "over SDP | certified_ratio | s without certify | s with certify (CPU s) | solves, proof |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.graphs.split(","):
        data = load(name)
        sdp, unc = reference_sdp(name, data)
        over = []
        for seed in range(args.seeds):
            t = time.perf_counter()
            dpgraph.max_cut(data, epsilon=args.epsilon, delta=1e-6, rng=seed)
            plain = time.perf_counter() - t
            log = io.StringIO()  # the progress lines say how the proof went (not released)
            t, c = time.perf_counter(), time.process_time()
            with reporting(True, stream=log):
                res = dpgraph.max_cut(data, epsilon=args.epsilon, delta=1e-6, rng=seed,
                                      certify=True)
            cert, cpu = time.perf_counter() - t, time.process_time() - c
            how = re.search(r"certify: (\S+)( \((\d+) diagonal bump)?.* after (\d+) solve",
                            log.getvalue())
            how = (f"{how.group(4)}, {how.group(1)}"
                   + (f", {how.group(3)} bump(s)" if how.group(3) else "")) if how else "?"
            ub, noisy = res.certified_upper_bound, res.certificate["noisy_bound"]
            over.append(ub / sdp - 1.0)
            print(f"| {name} | {data.n:,} | {data.m:,} | {sdp:.2f} (+-{unc:.2g}) | {seed} | "
                  f"{ub:.1f} | {100 * (ub / sdp - 1):+.2f}% | {100 * (noisy / sdp - 1):+.2f}% | "
                  f"{res.certified_ratio:.4f} | {plain:.1f} | {cert:.1f} ({cpu:.1f}) | {how} |",
                  flush=True)
        print(f"<!-- {name}: certified_upper_bound over SDP, median {100 * statistics.median(over):+.2f}%, "
              f"max {100 * max(over):+.2f}% -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
