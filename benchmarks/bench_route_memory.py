"""Peak memory of a route per n^2 (how the dense routes' estimated_memory was set).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_route_memory.py N MEAN_DEGREE WHAT
WHAT: privatize-rr, privatize-pca (privatize alone) or a route name (randomized-response, pca,
matrix-free) for privatize + max_cut. One process per measurement: peak RSS is per process.
"""
import sys, resource, warnings
warnings.simplefilter("ignore")
import dpgraph
n, d, route = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
g = dpgraph.datasets.planted_cut(n, d, rng=1).graph
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if route == "privatize-rr":
    dpgraph.privatize(g, epsilon=1, delta=1e-6, route="randomized-response", rng=0)
elif route == "privatize-pca":
    dpgraph.privatize(g, epsilon=1, delta=1e-6, route="pca", rng=0)
else:
    dpgraph.max_cut(g, epsilon=1, delta=1e-6, rng=0, privatize_options={"route": route})
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(f"n={n} d={d} {route}: base {base/2**20:.0f} MiB peak {peak/2**20:.0f} MiB; (peak-base)/n^2 = {(peak-base)/n**2:.1f} bytes")
