"""Max-cut transfer of synthetic graphs: does a synthetic graph that keeps the local route's
released sides carry the cut? ``privatize(G, route="local").sample()`` (the local route's
sides crossed with degree classes as the blocks of the released block model, 30% of epsilon)
against ``release_synthetic(G).sample()`` (the default synthetic release).

Transfer = the cut, in the true graph, of the partition ``solve_max_cut`` finds on the synthetic
graph, over the reference cut of ``bench_local.py`` (``benchmarks/results``). Random sides:
0.5 of the edges over the reference.

    DPGRAPH_DATA=../shared/datasets OPENBLAS_NUM_THREADS=1 python \\
        benchmarks/bench_local_synthetic.py --graphs chameleon,facebook,ca-hepph --epsilons 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import dpgraph  # noqa: E402
from bench_local import load, true_cut  # noqa: E402
from dpgraph.engine import solve_max_cut  # noqa: E402

warnings.filterwarnings("ignore")


def transfer(g, S, ref, seed) -> float:
    x = solve_max_cut(S, rng=seed, tol=1e-3).x
    return true_cut(g, x) / ref


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--graphs", default="chameleon,facebook,ca-hepph")
    p.add_argument("--epsilons", default="1,2")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--refs", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "local_references.json"))
    args = p.parse_args(argv)
    refs = json.load(open(args.refs))
    print("| graph | eps | random sides | release_synthetic | privatize(route='local') |")
    print("|---|---|---|---|---|")
    for name in args.graphs.split(","):
        g = load(name)
        ref = refs[f"{name}/maxcut/60s"]
        for eps in map(float, args.epsilons.split(",")):
            a = [transfer(g, dpgraph.release_synthetic(g, epsilon=eps, rng=s).sample(rng=s),
                          ref, s) for s in range(args.seeds)]
            b = [transfer(g, dpgraph.privatize(g, epsilon=eps, delta=1e-6, route="local",
                                               rng=s).sample(rng=s), ref, s)
                 for s in range(args.seeds)]
            print(f"| {name} | {eps:g} | {g.total_weight / 2 / ref:.3f} | "
                  f"{statistics.median(a):.3f} | {statistics.median(b):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
