"""Cut quality and time of ``dpgraph.solve_max_cut(g)`` as called with no options, against the
per-candidate tabu search it replaced (``anneal_sweeps=0``) and a 10 s ``time_limit``, on the
G-set graphs; ratio = cut / best known cut.

    OPENBLAS_NUM_THREADS=1 DPGRAPH_DATA=/path/to/datasets python benchmarks/bench_default_cut.py \
        [--graphs G3,G35,G48,G81] [--seeds 0,1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpgraph  # noqa: E402
from dpgraph import datasets

BEST_KNOWN = {"G3": 11622, "G35": 7687, "G48": 6000, "G81": 14030}
SETTINGS = [("previous default (anneal_sweeps=0)", {"anneal_sweeps": 0}),
            ("new default", {}),
            ("time_limit=10", {"time_limit": 10})]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="G3,G35,G48,G81")
    parser.add_argument("--seeds", default="0,1")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    print("graph | setting | seed | seconds | cut | cut / best known | rounding")
    for name in args.graphs.split(","):
        g = datasets.load(name)
        for label, kw in SETTINGS:
            for seed in seeds:
                t = time.perf_counter()
                r = dpgraph.solve_max_cut(g, rng=seed, **kw)
                el = time.perf_counter() - t
                print(f"{name} | {label} | {seed} | {el:.1f} | {r.value:.0f} | "
                      f"{r.value / BEST_KNOWN[name]:.4f} | {r.rounding}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
