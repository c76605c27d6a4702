"""How should the randomized-response release be post-processed before the Max-Cut solve?

Two experiments behind privatize's defaults (BENCHMARKS.md, "What chose the design" and "Real
graphs: the post-processing of the randomized-response route"). NOT PRIVATE scoring.

    python benchmarks/bench_rr_postprocess.py release    # planted n=2000, d=100, eps 1, 2 seeds
    DPGRAPH_DATA=... python benchmarks/bench_rr_postprocess.py pipeline   # chameleon + planted
"""

import sys

import numpy as np

import dpgraph
from dpgraph import baselines
from dpgraph.datasets import planted_cut
from dpgraph.evaluate import cut_value


def release_variants():
    """Post-process one randomized-response release in several ways, solve each."""
    G = planted_cut(2000, 100, rng=1).graph
    ref = dpgraph.solve_max_cut(G, rng=0).value
    for s in range(2):
        W = baselines.randomized_response(G, epsilon=1.0, rng=s).weights
        out = {"debiased": W, "clip01": np.clip(W, 0, 1)}
        lam, V = np.linalg.eigh(W)
        o = np.argsort(-np.abs(lam))
        for r in (2, 8, 32):
            Wr = (V[:, o[:r]] * lam[o[:r]]) @ V[:, o[:r]].T
            out[f"rank{r}"] = Wr
            out[f"rank{r}clip"] = np.clip(Wr, 0, 1)
        res = {}
        for k, Wk in out.items():
            np.fill_diagonal(Wk, 0)
            sol = dpgraph.solve_max_cut(Wk, labels=G.labels, rng=s)
            res[k] = round(cut_value(G, sol.assignment) / ref, 4)
        print("eps=1 seed", s, res, flush=True)


def pipeline_variants():
    """dpgraph.max_cut with each rr_postprocess setting."""
    for name, g in [("chameleon", dpgraph.datasets.load("chameleon")),
                    ("planted100", planted_cut(2000, 100, rng=1).graph)]:
        ref = dpgraph.solve_max_cut(g, rng=0).value
        for eps in (1.0, 4.0):
            for post, rank in (("box", 2), ("low-rank", 8)):
                r = [round(cut_value(g, dpgraph.max_cut(
                    g, epsilon=eps, delta=1e-6, rank=rank, rng=seed,
                    privatize_options={"rr_postprocess": post}).assignment) / ref, 4)
                    for seed in range(2 if name == "planted100" else 1)]
                print(name, eps, post, rank, r, flush=True)


if __name__ == "__main__":
    {"release": release_variants, "pipeline": pipeline_variants}[sys.argv[1] if len(sys.argv) > 1 else "release"]()
