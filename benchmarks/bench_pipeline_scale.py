"""End-to-end time of dpgraph.max_cut at n = 10,000 (goal: under two minutes).

Usage: python benchmarks/bench_pipeline_scale.py [n] [mean_degree]
Prints the phase timings, the route and the peak resident memory.
"""

import resource
import sys
import time

import dpgraph
from dpgraph.lab.evaluate import cut_value

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
d = float(sys.argv[2]) if len(sys.argv) > 2 else 50
inst = dpgraph.datasets.planted_cut(n, d, rng=1)
for eps in (1.0, 8.0):
    t0 = time.perf_counter()
    res = dpgraph.max_cut(inst.graph, epsilon=eps, delta=1e-6, rng=0)
    total = time.perf_counter() - t0
    t = res.diagnostics["timings"]
    print(f"n={n} mean degree={d:g} eps={eps:g}: total {total:.1f} s (privatize {t['privatize']:.1f} s, "
          f"solve {t['solve']:.1f} s); route: {res.private_graph.diagnostics['low_rank_mechanism']}; "
          f"cut / planted cut {cut_value(inst.graph, res.assignment) / inst.planted_value:.3f}", flush=True)
print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
