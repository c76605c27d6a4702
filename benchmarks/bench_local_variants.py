"""Variants of the local route's plan on real graphs: the sides of the last candidate of
``release_local_sides`` under a fixed :class:`~dpgraph.release.routes.local.LocalPlan` (no private
choice, no estimate), against the reference cuts of ``bench_local.py``.

    DPGRAPH_DATA=../shared/datasets OPENBLAS_NUM_THREADS=1 python \\
        benchmarks/bench_local_variants.py --graphs chameleon,facebook,ca-hepph \\
        --epsilons 0.5,1,2,4 --seeds 3

Variants: ``batch1000`` / ``batch100`` (fixed batches, the prototype's and a smaller one),
``forward`` (the default batches, no core, no sweep), ``sweep`` (a refinement sweep with 20% of
the decision budget, no core), ``core+sweep`` (a core of min(1000, n/2) nodes and the sweep),
``all+sweep`` (the whole graph, up to 2,000 nodes, as the core, and the sweep).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_local import load, true_cut  # noqa: E402
from dpgraph.privacy import PrivacyLedger  # noqa: E402
from dpgraph.release.routes.local import LocalPlan, release_local_sides  # noqa: E402

warnings.filterwarnings("ignore")


def plans(n: int) -> dict:
    return {"batch1000": LocalPlan(first_batch=1000, batch_growth=0.0),
            "batch100": LocalPlan(first_batch=100, batch_growth=0.0),
            "forward": LocalPlan(),
            "sweep": LocalPlan(refine_share=0.2),
            "core+sweep": LocalPlan(core=min(1000, n // 2), refine_share=0.2),
            "all+sweep": LocalPlan(core=min(2000, n), refine_share=0.2)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--graphs", default="chameleon,facebook,ca-hepph")
    p.add_argument("--epsilons", default="0.5,1,2,4")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--variants", default="batch1000,batch100,forward,sweep,core+sweep")
    p.add_argument("--refs", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "local_references.json"))
    args = p.parse_args(argv)
    refs = json.load(open(args.refs))
    names = args.variants.split(",")
    print("| graph | eps | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for name in args.graphs.split(","):
        g = load(name)
        ref = refs[f"{name}/maxcut/60s"]
        for eps in map(float, args.epsilons.split(",")):
            cells = []
            for v in names:
                plan = plans(g.n)[v]
                r = [true_cut(g, release_local_sides(g, epsilon=eps, ledger=PrivacyLedger(),
                                                     rng=s, plan=plan).candidates[:, -1]) / ref
                     for s in range(args.seeds)]
                cells.append(f"{statistics.median(r):.3f}")
            print(f"| {name} | {eps:g} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
