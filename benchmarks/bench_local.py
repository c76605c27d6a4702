"""The degree-ordered local route, three subcommands:

* ``transfer`` (the default when no subcommand is named): private Max-Cut / Max-Bisection on
  real graphs, the default (``route="auto"``, the local route on these graphs) against a short
  pure-epsilon prototype of the same idea, randomized response alone, and a random cut.
* ``scale``: time and peak memory of the default private Max-Cut on a planted graph too large
  for the dense routes.
* ``synthetic``: max-cut transfer of synthetic graphs that keep the local route's sides.

``transfer``:

Transfer ratio = true cut of the private partition / the reference cut of the same graph
(``solve_max_cut(g, time_limit=60)``, computed once and cached in ``--refs``); "closed" = the
share of the gap between a uniformly random partition (expected cut m / 2) and the reference.

    DPGRAPH_DATA=../shared/datasets OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local.py \\
        --graphs facebook,chameleon,ca-hepph,email-Enron,soc-douban --epsilons 0.5,1,2,4 \\
        --seeds 3 --methods default,prototype
    ... --problem bisection --methods default
    ... --problem max3cut --graphs chameleon,G3 --methods default,randomized-response

``--problem max3cut``: ``dpgraph.max_2csp`` on the Max-3-Cut instance of the graph
(``max_k_cut_instance(g, 3)``), ratio against ``solve_max_2csp(inst, time_limit=...)``;
"randomized-response" is ``max_2csp`` on that route (group privacy over q(q-1) = 6 pairs).
    ... --graphs planted-2000-25,planted-2000-50,planted-2000-100,G3,G35 --methods default

Graph names: a file in $DPGRAPH_DATA/social or /gset, or ``planted-N-D`` (``planted_cut(N, D,
rng=1)``). The prototype (``--methods prototype``): degrees with 5% of epsilon, a core of
``min(2000, n/5)`` nodes by randomized response and the engine, then batches of 1,000 nodes
deciding by the exponential mechanism ``P(x_v = +1) = sigmoid(-eps s_v)``.

``scale``: generation, then ``dpgraph.max_cut`` (route="auto"). Peak memory is the process's
peak resident set (``ru_maxrss``) after each stage; the ratio is the true cut of the private
partition over the planted cut.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local.py scale --n 1000000 --degree 10 \\
        --epsilon 1

``synthetic``: does a synthetic graph that keeps the local route's released sides carry the
cut? ``privatize(G, route="local").sample()`` (the local route's sides crossed with degree
classes as the blocks of the released block model, 30% of epsilon) against
``release_synthetic(G).sample()`` (the default synthetic release). Transfer = the cut, in the
true graph, of the partition ``solve_max_cut`` finds on the synthetic graph, over the reference
cut of ``transfer`` (``--refs``). Random sides: 0.5 of the edges over the reference.

    DPGRAPH_DATA=../shared/datasets OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local.py \\
        synthetic --graphs chameleon,facebook,ca-hepph --epsilons 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import dpgraph  # noqa: E402
from dpgraph.engine import solve_max_bisection, solve_max_cut  # noqa: E402
from dpgraph.privacy import PrivacyLedger, make_rng  # noqa: E402
from dpgraph.release.routes.randomized_response import randomized_response_matrix  # noqa: E402

warnings.filterwarnings("ignore")


def load(name: str):
    if name.startswith("planted-"):
        _, n, d = name.split("-")
        return dpgraph.datasets.planted_cut(int(n), float(d), rng=1).graph
    root = os.environ.get("DPGRAPH_DATA", "")
    for sub in ("social", "gset"):
        path = os.path.join(root, sub, f"{name}.txt")
        if os.path.exists(path):
            return dpgraph.read_graph(path)
    raise SystemExit(f"{name}: not in $DPGRAPH_DATA/social or /gset (DPGRAPH_DATA={root!r})")


def true_cut(g, x) -> float:
    U = sp.triu(g.weights, 1).tocoo()
    return float(U.data[x[U.row] != x[U.col]].sum())


def sides_of(res, g) -> np.ndarray:
    return np.array([1.0 if res.assignment[lab] else -1.0 for lab in g.labels])


def prototype(g, epsilon: float, rng) -> np.ndarray:
    """The short pure-epsilon prototype the local route started from (see module docstring)."""
    gen = make_rng(rng)
    W = sp.csr_matrix(g.weights)
    n = g.n
    led = PrivacyLedger()
    eps_d, eps_m = 0.05 * epsilon, 0.95 * epsilon
    deg = np.asarray(W.sum(axis=1)).ravel()
    order = np.argsort(-(deg + gen.laplace(0.0, 2.0 / eps_d, n)), kind="stable")
    k = min(2000, n // 5)
    x = np.zeros(n)
    if k > 2:
        core = order[:k]
        M, _ = randomized_response_matrix(W[core][:, core], epsilon=eps_m, ledger=led, rng=gen,
                                          name="prototype core", note="")
        x[core] = solve_max_cut(M, rng=gen, tol=1e-3, rank=16, certificate=False).x
    for a in range(k, n, 1000):
        rows = order[a:a + 1000]
        s = W[rows] @ x
        p_plus = 1.0 / (1.0 + np.exp(np.clip(eps_m * s, -700, 700)))
        x[rows] = np.where(gen.random(rows.size) < p_plus, 1.0, -1.0)
    return x


def max3cut(g):
    return dpgraph.engine.max_k_cut_instance(g, 3)


def reference(name: str, g, problem: str, refs_path: str, seconds: float) -> float:
    refs = json.load(open(refs_path)) if os.path.exists(refs_path) else {}
    key = f"{name}/{problem}/{seconds:g}s"
    if key not in refs:
        t = time.perf_counter()
        if problem == "max3cut":
            refs[key] = float(dpgraph.solve_max_2csp(max3cut(g), rng=0,
                                                     time_limit=seconds).value)
        else:
            solver = solve_max_cut if problem == "maxcut" else solve_max_bisection
            refs[key] = float(solver(g, rng=0, time_limit=seconds).value)
        print(f"# reference {key}: {refs[key]:.0f} ({time.perf_counter() - t:.0f} s)",
              flush=True)
        os.makedirs(os.path.dirname(os.path.abspath(refs_path)), exist_ok=True)
        json.dump(refs, open(refs_path, "w"), indent=1, sort_keys=True)
    return refs[key]


def run_method(method: str, g, problem: str, epsilon: float, seed: int):
    t = time.perf_counter()
    if problem == "max3cut":
        inst = max3cut(g)
        if method == "random":
            x = make_rng(seed).integers(0, 3, g.n)
        else:
            opts = {} if method == "default" else {"route": method}
            res = dpgraph.max_2csp(inst, epsilon=epsilon, delta=1e-6, rng=seed, rank=2,
                                   relation_size=6, privatize_options=opts)
            x = np.array([res.assignment[i] for i in range(g.n)])
        return inst.value(x), time.perf_counter() - t
    x, _ = cut_sides(method, g, problem, epsilon, seed)
    return true_cut(g, x), time.perf_counter() - t


def cut_sides(method: str, g, problem: str, epsilon: float, seed: int):
    """The +-1 sides of one Max-Cut / Max-Bisection call of ``method`` (``"prototype"``,
    ``"random"``, ``"default"`` or a route name) and its result (None for the first two)."""
    if method == "prototype":
        return prototype(g, epsilon, seed), None
    if method == "random":
        return np.where(make_rng(seed).random(g.n) < 0.5, 1.0, -1.0), None
    fn = dpgraph.max_cut if problem == "maxcut" else dpgraph.max_bisection
    res = fn(g, epsilon=epsilon, delta=1e-6, rng=seed,
             route=None if method == "default" else method)
    return sides_of(res, g), res


REFS = os.path.join(os.path.dirname(__file__), "results", "local_references.json")


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main_scale(argv) -> int:
    from dpgraph.lab.evaluate import cut_value

    p = argparse.ArgumentParser(prog="bench_local.py scale",
                                description="time and peak memory of max_cut on a planted graph")
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--degree", type=float, default=10.0)
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    t = time.perf_counter()
    inst = dpgraph.datasets.planted_cut(args.n, args.degree, rng=1)
    g = inst.graph
    print(f"generated n={g.n:,} m={g.m:,} in {time.perf_counter() - t:.1f} s "
          f"(peak {peak_gib():.2f} GiB)", flush=True)
    t = time.perf_counter()
    res = dpgraph.max_cut(g, epsilon=args.epsilon, delta=1e-6, rng=args.seed)
    secs = time.perf_counter() - t
    x = np.array([1 if res.assignment[v] else -1 for v in g.labels])
    ratio = cut_value(g, x) / inst.planted_value
    print(f"max_cut: route {res.diagnostics['route']}, {secs:.1f} s, cut / planted cut "
          f"{ratio:.3f}, peak {peak_gib():.2f} GiB (whole process)", flush=True)
    return 0


def main_synthetic(argv) -> int:
    p = argparse.ArgumentParser(prog="bench_local.py synthetic",
                                description="max-cut transfer of synthetic graphs")
    p.add_argument("--graphs", default="chameleon,facebook,ca-hepph")
    p.add_argument("--epsilons", default="1,2")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--refs", default=REFS)
    args = p.parse_args(argv)
    refs = json.load(open(args.refs))

    def transfer(g, S, ref, seed) -> float:
        return true_cut(g, solve_max_cut(S, rng=seed, tol=1e-3).x) / ref

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


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "scale":
        return main_scale(argv[1:])
    if argv and argv[0] == "synthetic":
        return main_synthetic(argv[1:])
    if argv and argv[0] == "transfer":
        argv = argv[1:]
    p = argparse.ArgumentParser(prog="bench_local.py [transfer]",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--graphs", default="facebook,chameleon,ca-hepph,email-Enron,soc-douban")
    p.add_argument("--epsilons", default="0.5,1,2,4")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--methods", default="default,prototype")
    p.add_argument("--problem", choices=("maxcut", "bisection", "max3cut"), default="maxcut")
    p.add_argument("--reference-seconds", type=float, default=60.0)
    p.add_argument("--refs", default=REFS)
    p.add_argument("--out", default=None, help="append one JSON line per cell here")
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    print(f"| graph (n, mean degree) | reference | random | epsilon | "
          + " | ".join(f"{m} ratio (closed) | {m} s/call" for m in methods) + " |")
    print("|---|---|---|---|" + "---|---|" * len(methods))
    for name in args.graphs.split(","):
        g = load(name)
        ref = reference(name, g, args.problem, args.refs, args.reference_seconds)
        share = 2.0 / 3.0 if args.problem == "max3cut" else 0.5  # a random partition's share
        rnd = g.total_weight * share / ref
        for eps in map(float, args.epsilons.split(",")):
            cells = []
            for m in methods:
                ratios, secs = [], []
                for seed in range(args.seeds):
                    c, s = run_method(m, g, args.problem, eps, seed)
                    ratios.append(c / ref)
                    secs.append(s)
                med = statistics.median(ratios)
                cells.append(f"{med:.3f} ({(med - rnd) / (1 - rnd):.0%}) | "
                             f"{statistics.median(secs):.1f}")
                if args.out:
                    with open(args.out, "a") as fh:
                        fh.write(json.dumps({"graph": name, "problem": args.problem,
                                             "epsilon": eps, "method": m, "ratios": ratios,
                                             "seconds": secs, "reference": ref,
                                             "random": rnd}) + "\n")
            print(f"| {name} ({g.n:,}, {2 * g.total_weight / g.n:.1f}) | {ref:.0f} | "
                  f"{rnd:.3f} | {eps:g} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
