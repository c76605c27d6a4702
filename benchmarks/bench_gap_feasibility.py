"""Can the private PCA's gap test pass? The rank-r gap of the regularized normalized adjacency
in units of its entry sensitivity w, against what the test needs (NOT PRIVATE: reads the graph).

The gap test (Alg. 5.2, docs/privacy.md 3.7) passes when g/w > 1 + 2 ln(1/(2 delta_g))/eps_g.
Usage: DPGRAPH_DATA=... python benchmarks/bench_gap_feasibility.py [names...]
"""

import sys

import numpy as np
from scipy.sparse import linalg as spla

import dpgraph
from dpgraph.release.routes.pca import normalized_adjacency

names = sys.argv[1:] or ["chameleon", "facebook", "G3", "G35", "planted-2000-100", "planted-2000-400"]
print("graph              n      tau    best r  g/w at best r  (g/w for r = 1..8)")
for name in names:
    if name.startswith("planted"):
        _, n, d = name.split("-")
        g = dpgraph.datasets.planted_cut(int(n), int(d), rng=1).graph
    else:
        g = dpgraph.datasets.load(name)
    d = g.degrees
    tau = d.mean()
    dt = d + tau  # the normalizer privatize uses, without its noise
    w = 1 / dt.min()
    vals = spla.eigsh(normalized_adjacency(g.weights, dt), k=10, which="LM",
                      return_eigenvectors=False, tol=1e-8)
    s = np.sort(np.abs(vals))[::-1]
    ratios = [(s[r - 1] - s[r]) / w for r in range(1, 9)]
    best = int(np.argmax(ratios)) + 1
    print(f"{name:18s} {g.n:6d} {tau:6.1f} {best:6d}  {max(ratios):12.1f}   "
          + " ".join(f"{x:.1f}" for x in ratios))
from dpgraph.release.screening import screen

for eps in (1, 2, 4, 8):
    need = screen(0.0, 1, 0.99 * eps, 0.99e-6, 0.05, 0.05, 0.1)["required_gap_ratio"]
    print(f"needed at epsilon={eps} (delta=1e-6): g/w > {need:.0f}")
