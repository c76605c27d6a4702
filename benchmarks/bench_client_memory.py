"""Client memory of ``max_cut(route="matrix-free")`` at large n.

The solve phase on the client (SDP on the low-rank operator, roundings, candidates, private
choice and estimate) needs O(n) memory, independent of m, so it is measured on a planted graph
with a small mean degree. Prints the peak RSS of the process while ``max_cut`` runs (VmHWM,
reset after the graph is built), the partition's digest (to compare commits: the same seed must
give the same partition), and with ``trace`` the tracemalloc peak of each phase.

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_client_memory.py n mean_degree [trace]
"""

import functools
import hashlib
import sys
import time
import tracemalloc
import warnings

import numpy as np

import dpgraph
from dpgraph.privacy import ReproducibleNoiseWarning

warnings.simplefilter("ignore", ReproducibleNoiseWarning)


def _status(key: str) -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key)) / 2**20  # GiB


def _wrap(mod, name):
    f = getattr(mod, name)

    @functools.wraps(f)
    def w(*a, **k):
        cur0, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        t = time.perf_counter()
        out = f(*a, **k)
        cur1, peak = tracemalloc.get_traced_memory()
        print(f"  {name:30s} peak +{(peak - cur0) / 2**20:8.1f} MiB, kept +"
              f"{(cur1 - cur0) / 2**20:7.1f} MiB, {time.perf_counter() - t:.2f} s", flush=True)
        tracemalloc.reset_peak()
        return out
    setattr(mod, name, w)


def main(n, d, trace=False):
    import dpgraph.engine as csp
    import dpgraph.engine.maxcut as mc
    import dpgraph.solve.cut as ps

    g = dpgraph.datasets.planted_cut(n, d, rng=1).graph
    with open("/proc/self/clear_refs", "w") as f:  # VmHWM from here on
        f.write("5")
    base = _status("VmRSS")
    print(f"planted n={g.n:,}, m={g.m:,}; RSS with the graph {base:.3f} GiB", flush=True)
    if trace:  # nested phases reset each other's peaks: read each line on its own
        tracemalloc.start()
        _wrap(csp, "solve_max_cut")
        for name in ("solve_lowrank_sdp", "hyperplane_round", "correlation_round"):
            _wrap(mc, name)
        for name in ("privatize", "_candidate_pool", "_certify_result"):
            _wrap(ps, name)
    t, c = time.perf_counter(), time.process_time()
    r = dpgraph.max_cut(g, epsilon=2.0, delta=1e-6, rng=0, route="matrix-free")
    t, c = time.perf_counter() - t, time.process_time() - c
    x = np.array([r.assignment[lab] for lab in g.labels], dtype=np.uint8)
    print(f"max_cut: {t:.1f} s ({c:.1f} CPU s); estimate {r.estimated_value:.6g}; partition "
          f"{hashlib.sha256(np.packbits(x).tobytes()).hexdigest()[:16]}")
    peak = _status("VmHWM")
    print(f"peak RSS during max_cut {peak:.3f} GiB ({peak - base:.3f} GiB above the graph, "
          f"{(peak - base) * 2**30 / n:.0f} bytes per node)")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(float(a[0])), float(a[1]), len(a) > 2 and a[2] == "trace")
