"""Which objective to solve on a randomized-response release (the design table of max_cut).

One release per seed (``dpgraph.privatize``, the randomized-response route), each objective of
``PrivateGraph.objective_names()`` solved by the same engine; for each: the true cut of the
engine's best partition on that objective, and the best true cut among all its roundings (what
a perfect choice could reach). Transfer ratio = true cut / non-private engine cut. NOT PRIVATE
scoring: benchmark use only.

Usage (real graphs need DPGRAPH_DATA):
    python benchmarks/bench_objectives.py planted-d100,G3,chameleon,facebook --epsilon 1 --seeds 2
"""

import argparse
import time

import numpy as np

import dpgraph
from dpgraph.engine import solve_max_cut
from dpgraph.lab.evaluate import cut_value
from dpgraph.graph import as_graph_data
from dpgraph.engine.operator import as_weight_operator
from dpgraph.engine.rounding import cut_values


def graph(name):
    if name.startswith("planted-d"):
        return dpgraph.datasets.planted_cut(2000, int(name[9:]), rng=1).graph
    return dpgraph.datasets.load(name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names")
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--seeds", type=int, default=2)
    args = p.parse_args()
    for name in args.names.split(","):
        data = as_graph_data(graph(name))
        true_op = as_weight_operator(data)
        ref = cut_value(data, solve_max_cut(data, rng=0, tol=1e-4).assignment)
        rows = {}
        for seed in range(args.seeds):
            pg = dpgraph.privatize(data, epsilon=args.epsilon, delta=1e-6, rng=seed)
            for obj in pg.objective_names():
                t0 = time.perf_counter()
                res = solve_max_cut(pg.objective(obj), labels=pg.labels, rng=seed, tol=1e-4)
                best = float(cut_values(true_op, res.info["rounded"].astype(float)).max())
                rows.setdefault(obj, []).append((cut_value(data, res.assignment) / ref, best / ref,
                                                 time.perf_counter() - t0))
        print(f"\n## {name}, epsilon {args.epsilon:g}, {args.seeds} seeds (mean); reference {ref:g}")
        print("| objective | engine's pick | best rounding | solve s |\n|---|---|---|---|")
        for obj, vals in rows.items():
            v = np.array(vals)
            print(f"| {obj} | {v[:, 0].mean():.3f} | {v[:, 1].mean():.3f} | {v[:, 2].mean():.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
