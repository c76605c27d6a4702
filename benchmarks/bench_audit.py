"""Run the full privacy audits of dpgraph's mechanisms and print the table of BENCHMARKS.md.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_audit.py

Each row: mechanism, adjacent pair, runs per input, event, claimed (epsilon, delta), the
Clopper-Pearson lower bound on epsilon at 95% confidence, the fraction of the claim it reached
and the wall-clock time (docs/audit.md). ``--only`` runs a subset; ``--scale`` multiplies
every run count (e.g. 0.1 for a quick look).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings

import numpy as np
import scipy

from dpgraph.lab.audit import catalog

# name -> keyword arguments of the full run
FULL = {
    "randomized_response": dict(runs=1_000_000),
    "laplace": dict(runs=1_000_000),
    "gaussian": dict(runs=10_000_000),
    "exponential": dict(runs=20_000),
    "edge_count": dict(runs=20_000),
    "rr_route": dict(runs=10_000, calibration_runs=2_000),
    "pca_fallback": dict(runs=20_000),
    "cosine": dict(runs=100_000),
    "marginals": dict(runs=20_000),
    "onehot": dict(runs=5_000),
    "max_cut": dict(runs=1_000),
    "pca_route": dict(runs=1_000, calibration_runs=250),
    "matrix_free": dict(runs=10_000),
    "matrix_free_core": dict(runs=5_000),
    "jl": dict(runs=5_000),
    "local_route": dict(runs=20_000),
    "local_route_backward": dict(runs=20_000),
    "synthetic_block_model": dict(runs=20_000),
    "synthetic_refinement": dict(runs=20_000),
    "synthetic_sequential_refinement": dict(runs=20_000),
    "synthetic_label_passes": dict(runs=20_000),
    "synthetic_side_pass": dict(runs=20_000),
    "synthetic_cut_lead": dict(runs=20_000),
    "synthetic_degree_classes": dict(runs=20_000),
    "synthetic_edge_count": dict(runs=20_000),
    "synthetic_clustering": dict(runs=20_000),
    "synthetic_supergraph": dict(runs=5_000),
    "privatize_block_model": dict(runs=5_000),
    "cut_estimate": dict(runs=20_000),
    "candidate_choice": dict(runs=20_000),
    "certificate": dict(runs=20_000),
    "csp_estimates": dict(runs=5_000),
    "local_degrees": dict(runs=20_000),
    "local_sweep": dict(runs=5_000),
    "local_core": dict(runs=2_000),
    "local_labels": dict(runs=5_000),
    "pca_gap": dict(runs=20_000),
    "second_moment": dict(runs=20_000),
    "perturb_and_project": dict(runs=20_000),
}


def _scaled(kwargs: dict, scale: float) -> dict:
    return {k: max(int(v * scale), 10) if k.endswith("runs") else v for k, v in kwargs.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=list(FULL))
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args(argv)
    print(f"# python {platform.python_version()}, numpy {np.__version__}, scipy "
          f"{scipy.__version__}; 95% one-sided Clopper-Pearson (Bonferroni over 4 bounds)")
    print("| mechanism | adjacent pair | runs | event | claimed (eps, delta) | audited lower bound "
          "(95%) | reached | time s |")
    print("|---|---|---|---|---|---|---|---|")
    bad = 0
    for name in args.only:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # seeded generators (reproducible-noise warnings)
            out = getattr(catalog, name)(**_scaled(FULL[name], args.scale))
        results = out.values() if isinstance(out, dict) else [out]
        for res in results:
            bad += res.violated
            print(f"| {res.mechanism} | {res.pair} | {res.runs:,} | {res.event} | "
                  f"({res.claimed_epsilon:g}, {res.claimed_delta:g}) | "
                  f"{res.epsilon_lower_bound:.4g} | {res.fraction:.1%} | "
                  f"{time.perf_counter() - t0:.1f} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
