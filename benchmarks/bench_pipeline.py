"""Transfer ratio of private Max-Cut / Max-Bisection against baselines, and synthetic-graph
fidelity against randomized response.

Transfer ratio = cut of the private partition on the TRUE graph / best non-private cut found by
the same engine (dpgraph.engine) on the true graph. NOT PRIVATE scoring: benchmark use only.

Usage (real graphs need DPGRAPH_DATA):
    python benchmarks/bench_pipeline.py planted --degrees 25,50,100,200,400 --seeds 3
    python benchmarks/bench_pipeline.py real --names G3,G35,chameleon,facebook --seeds 2
    python benchmarks/bench_pipeline.py fidelity --epsilon 1 --degrees 100,400 --names facebook
    python benchmarks/bench_pipeline.py scale --n 10000 --degrees 50
Writes a table to stdout and PNG plots to benchmarks/out/. ``scale``: end-to-end time of
``dpgraph.max_cut`` (``--route``, default auto) on a planted graph of ``--n`` nodes and each
mean degree (at eps 1 and 8; goal at n = 10,000: under two minutes), with the route and the
peak resident memory.
"""

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

import dpgraph
from dpgraph.lab.benchmarking import fidelity, plot_transfer, run_transfer_benchmark

OUT = Path(__file__).resolve().parent / "out"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def header():
    import numpy, scipy
    print(f"# machine: {platform.machine()}, {platform.processor() or 'cpu'}, python "
          f"{platform.python_version()}, numpy {numpy.__version__}, scipy {scipy.__version__}, "
          f"dpgraph {dpgraph.__version__}")


def run(name, graph, args, problem):
    t0 = time.perf_counter()
    bench = run_transfer_benchmark(graph, epsilons=args.epsilons, delta=1e-6,
                                   seeds=range(args.seeds), methods=args.methods,
                                   problem=problem, rank=args.rank, progress=log)
    print(f"\n## {name} ({problem}); reference (non-private engine) = {bench.reference_value:g}; "
          f"median over {args.seeds} seeds; {time.perf_counter() - t0:.0f} s")
    print(bench.table())
    OUT.mkdir(exist_ok=True)
    plot_transfer(bench, OUT / f"transfer_{name}_{problem}.png", title=f"{name}: {problem}")
    with open(OUT / f"transfer_{name}_{problem}.json", "w") as fh:
        json.dump({"reference": bench.reference_value, "rows": bench.rows}, fh)
    sys.stdout.flush()


def run_scale(n, degrees, route):
    import resource

    from dpgraph.lab.evaluate import cut_value

    for d in degrees:
        inst = dpgraph.datasets.planted_cut(n, d, rng=1)
        for eps in (1.0, 8.0):
            t0 = time.perf_counter()
            res = dpgraph.max_cut(inst.graph, epsilon=eps, delta=1e-6, rng=0, route=route)
            total = time.perf_counter() - t0
            print(f"n={n} mean degree={d:g} eps={eps:g}: {total:.1f} s; route "
                  f"{res.diagnostics['route']}: "
                  f"{res.private_graph.diagnostics['low_rank_mechanism']}; cut / planted cut "
                  f"{cut_value(inst.graph, res.assignment) / inst.planted_value:.3f}",
                  flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["planted", "real", "fidelity", "scale"])
    p.add_argument("--degrees", default="25,50,100,200,400")
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--names", default="G3,G35,chameleon,facebook,ca-hepph")
    p.add_argument("--epsilons", default="0.5,1,2,4,8")
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--methods", default="dpgraph,randomized response,gaussian perturbation,random")
    p.add_argument("--problems", default="maxcut")
    p.add_argument("--route", default=None, help="scale: privatize's route (default: auto)")
    args = p.parse_args()
    args.epsilons = [float(e) for e in args.epsilons.split(",")]
    args.methods = [m.strip() for m in args.methods.split(",")]
    header()
    if args.what == "scale":
        return run_scale(args.n, [float(x) for x in args.degrees.split(",")], args.route)
    for problem in args.problems.split(","):
        if args.what == "planted":
            for d in [int(x) for x in args.degrees.split(",")]:
                gen = dpgraph.datasets.planted_cut if problem == "maxcut" else dpgraph.datasets.planted_bisection
                inst = gen(args.n, d, rng=1)
                run(f"planted-n{args.n}-d{d}", inst.graph, args, problem)
        elif args.what == "real":
            for name in args.names.split(","):
                run(name, dpgraph.datasets.load(name), args, problem)
    if args.what == "fidelity":
        from dpgraph.lab.baselines import randomized_response
        graphs = [(f"planted n={args.n} d={d}", dpgraph.datasets.planted_cut(args.n, d, rng=1))
                  for d in [int(x) for x in args.degrees.split(",")]]
        graphs += [(name, None) for name in args.names.split(",") if name]
        for label, inst in graphs:
            G = inst.graph if inst is not None else dpgraph.datasets.load(label)
            part = inst.partition if inst is not None else None
            pg = dpgraph.privatize(G, epsilon=args.epsilon, delta=1e-6, rank=args.rank, rng=0)
            rr = randomized_response(G, epsilon=args.epsilon, rng=0)
            rows = [("dpgraph export", pg.weights()),
                    ("randomized response graph (flipped bits)", np.clip(rr.weights, 0, 1)),
                    ("de-biased RR matrix (signed, not a graph)", rr.weights)]
            for name, W in rows:
                f = fidelity(G, W, partition=part)
                mod = (f"modularity true {f['planted_modularity_true']:.3f} synthetic "
                       f"{f['planted_modularity_synthetic']:.3f}  " if part is not None else "")
                print(f"{label} eps={args.epsilon} {name:42s} edges {W.sum() / 2:.0f} "
                      f"(true {dpgraph.graph.as_graph_data(G).total_weight:.0f})  "
                      f"degree KL {f['degree_kl']:.3f}  cut-query rel. error "
                      f"{f['cut_query_error']:.4f}  {mod}top eigenvalues true "
                      f"{np.round(f['top_eigenvalues_true'], 3).tolist()} synthetic "
                      f"{np.round(f['top_eigenvalues_synthetic'], 3).tolist()}", flush=True)
                del W

if __name__ == "__main__":
    main()
