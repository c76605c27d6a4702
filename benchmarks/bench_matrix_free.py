"""The matrix-free route: transfer ratios at scale, real graphs, time and memory.

NOT PRIVATE where it scores: the transfer ratio is the true cut of the private partition divided
by the non-private engine's cut of the same graph (dpgraph.lab.evaluate / dpgraph.solve_max_cut).

Usage (OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_matrix_free.py ...):

  planted --n 20000 --degrees 50,100,200,400 --epsilons 1,2,4,8 --seeds 3 [--methods ...]
      Planted two-block graphs (p_in/p_out = 0.25; one graph per degree, graph seed 1), methods
      matrix-free (dpgraph.max_cut(route="matrix-free")), randomized-response
      (dpgraph.max_cut(route="randomized-response"), dense, only where it fits) and random.
      Reference: the non-private engine (solve_max_cut, tol 1e-3, SDP time limit 300 s).
  real --graphs PATH[,PATH] --epsilons 1,2,4,8 --seeds 3
      Real graphs against a random cut, with time per call.
  rank --n 20000 --degree 200 --epsilon 1 --ranks 1,2,4,8
      The matrix-free route's rank (default 2), planted graphs.
  write --n 1000000 --degree 100 --out FILE
      Write a planted graph as a SNAP edge list (for the end-to-end CLI run, timed with
      /usr/bin/time -v: python -m dpgraph maxcut FILE --epsilon 1 --delta 1e-6 --route matrix-free).
  scale --sizes 100000,300000,1000000 --degree 100
      In-process time of read-free max_cut(route="matrix-free") against m (fitted exponent).
  file --path FILE --reference VALUE --epsilons 2,4
      Read FILE once, then max_cut(route="matrix-free") per epsilon, cut / VALUE.

Every row prints the median over seeds and the individual values; the peak RSS is printed at the
end (process-wide).
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import time

import numpy as np

import dpgraph
from dpgraph.datasets import planted_cut
from dpgraph.lab.evaluate import cut_value


def _peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _floats(s):
    return [float(x) for x in s.split(",") if x.strip()]


def _ints(s):
    return [int(float(x)) for x in s.split(",") if x.strip()]


def _reference(G) -> tuple[float, float]:
    t0 = time.perf_counter()
    res = dpgraph.solve_max_cut(G, rng=0, tol=1e-3, time_limit=300)
    return float(res.value), time.perf_counter() - t0


def _random_cut(G, seed) -> float:
    x = np.random.default_rng(1000 + seed).random(G.n) < 0.5
    return cut_value(G, {lab: int(b) for lab, b in zip(G.labels, x)})


def _private_ratio(G, ref, method, eps, seed, rank=None):
    t0 = time.perf_counter()
    if method == "random":
        return _random_cut(G, seed) / ref, time.perf_counter() - t0
    route = {"matrix-free": "matrix-free", "randomized-response": "randomized-response"}[method]
    res = dpgraph.max_cut(G, epsilon=eps, delta=1e-6, rng=seed, route=route, rank=rank)
    return cut_value(G, res.partition) / ref, time.perf_counter() - t0


def _row(label, vals, times):
    med = float(np.median(vals))
    print(f"| {label} | {med:.3f} | {' '.join(f'{v:.3f}' for v in vals)} | "
          f"{np.median(times):.1f} |", flush=True)


def cmd_planted(args):
    methods = [m.strip() for m in args.methods.split(",")]
    print(f"planted two-block, n = {args.n}, p_in/p_out = 0.25, delta 1e-6, seeds "
          f"{args.seeds}; ratio = true cut / non-private engine cut")
    print("| mean degree | method | epsilon | median | per seed | s per call |")
    for d in _floats(args.degrees):
        t0 = time.perf_counter()
        inst = planted_cut(args.n, d, rng=1)
        G = inst.graph
        t_gen = time.perf_counter() - t0
        if args.reference == "engine":
            ref, t_ref = _reference(G)
            print(f"# d={d:g}: m={G.m}, generated in {t_gen:.1f} s; engine cut {ref:.0f} in "
                  f"{t_ref:.1f} s; planted cut / engine {inst.planted_value / ref:.4f}",
                  flush=True)
        else:
            ref = float(inst.planted_value)
            print(f"# d={d:g}: m={G.m}, generated in {t_gen:.1f} s; reference: the planted cut "
                  f"{ref:.0f}", flush=True)
        for method in methods:
            for eps in (_floats(args.epsilons) if method != "random" else [float("nan")]):
                vals, times = [], []
                for s in range(args.seeds):
                    r, t = _private_ratio(G, ref, method, eps, s)
                    vals.append(r)
                    times.append(t)
                _row(f"{d:g} | {method} | {eps:g}", vals, times)
        del inst, G
    print(f"peak RSS {_peak_gib():.2f} GiB")


def cmd_real(args):
    print("| graph | method | epsilon | median | per seed | s per call |")
    for path in args.graphs.split(","):
        t0 = time.perf_counter()
        G = dpgraph.read_graph(path)
        t_read = time.perf_counter() - t0
        ref, t_ref = _reference(G)
        print(f"# {path}: n={G.n}, m={G.m}, read in {t_read:.1f} s; engine cut {ref:.0f} in "
              f"{t_ref:.1f} s", flush=True)
        for method in ("matrix-free", "random"):
            for eps in (_floats(args.epsilons) if method != "random" else [float("nan")]):
                vals, times = [], []
                for s in range(args.seeds):
                    r, t = _private_ratio(G, ref, method, eps, s, rank=args.rank)
                    vals.append(r)
                    times.append(t)
                _row(f"{path.rsplit('/', 1)[-1]} | {method} | {eps:g}", vals, times)
    print(f"peak RSS {_peak_gib():.2f} GiB")


def cmd_rank(args):
    inst = planted_cut(args.n, args.degree, rng=1)
    G = inst.graph
    print(f"# n={args.n}, d={args.degree:g}, eps={args.epsilon:g}: ratio = true cut / planted cut")
    for r in _ints(args.ranks):
        vals, times = [], []
        for s in range(args.seeds):
            t0 = time.perf_counter()
            res = dpgraph.max_cut(G, epsilon=args.epsilon, delta=1e-6, rng=s, route="matrix-free",
                                  rank=r)
            vals.append(cut_value(G, res.partition) / inst.planted_value)
            times.append(time.perf_counter() - t0)
        _row(f"rank {r}", vals, times)


def cmd_write(args):
    t0 = time.perf_counter()
    inst = planted_cut(args.n, args.degree, rng=1)
    i, j, _ = inst.graph.edges()
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    with open(args.out, "w") as fh:
        fh.write(f"# planted_cut(n={args.n}, mean_degree={args.degree:g}, rng=1): "
                 f"{inst.graph.m} edges; planted cut {inst.planted_value:.0f}\n")
        step = 1_000_000
        for a in range(0, i.size, step):
            block = np.column_stack([i[a:a + step], j[a:a + step]])
            np.savetxt(fh, block, fmt="%d")
    print(f"wrote {args.out}: n={args.n}, m={inst.graph.m} (generated in {t_gen:.1f} s, written "
          f"in {time.perf_counter() - t0:.1f} s); planted cut {inst.planted_value:.0f}; peak RSS "
          f"{_peak_gib():.2f} GiB")


def cmd_scale(args):
    print("| n | m | max_cut s | privatize s | solve s | cut / planted | sample s | sampled m / "
          "released m | sampled cut fraction of the private partition | W^ cut / released m |")
    rows = []
    for n in _ints(args.sizes):
        inst = planted_cut(n, args.degree, rng=1)
        G = inst.graph
        t0 = time.perf_counter()
        res = dpgraph.max_cut(G, epsilon=args.epsilon, delta=1e-6, rng=0, route="matrix-free")
        t = time.perf_counter() - t0
        ratio = cut_value(G, res.partition) / inst.planted_value
        rows.append((G.m, t))
        tm = res.diagnostics["timings"]
        t0 = time.perf_counter()
        H = res.private_graph.sample(rng=0)
        t_sample = time.perf_counter() - t0
        side = dict(zip(H.labels, (np.asarray(
            [res.assignment[lab] for lab in H.labels]))))
        released = float(np.sum(res.private_graph.degrees)) / 2
        print(f"| {n} | {G.m} | {t:.1f} | {tm['privatize']:.1f} | {tm['solve']:.1f} | "
              f"{ratio:.4f} | {t_sample:.1f} | {H.m / released:.4f} | "
              f"{cut_value(H, side) / H.m:.4f} | {res.synthetic_value / released:.4f} |",
              flush=True)
        del H
        del inst, G, res
    if len(rows) > 1:
        m, t = np.log([r[0] for r in rows]), np.log([r[1] for r in rows])
        print(f"fitted exponent of time against m: {np.polyfit(m, t, 1)[0]:.3f}")
    print(f"peak RSS {_peak_gib():.2f} GiB")


def cmd_file(args):
    """Read one file once, then max_cut(route="matrix-free") per epsilon; the reference is
    --reference (e.g. the planted cut written in the file's header by ``write``)."""
    t0 = time.perf_counter()
    G = dpgraph.read_graph(args.path)
    print(f"# read {args.path}: n={G.n}, m={G.m} in {time.perf_counter() - t0:.1f} s; "
          f"peak RSS {_peak_gib():.2f} GiB", flush=True)
    ref = float(args.reference)
    print("| epsilon | seed | cut / reference | s per call | privatize s | solve s |")
    for eps in _floats(args.epsilons):
        for s in range(args.seeds):
            t0 = time.perf_counter()
            res = dpgraph.max_cut(G, epsilon=eps, delta=1e-6, rng=s, route="matrix-free")
            t = time.perf_counter() - t0
            tm = res.diagnostics["timings"]
            print(f"| {eps:g} | {s} | {cut_value(G, res.partition) / ref:.4f} | {t:.1f} | "
                  f"{tm['privatize']:.1f} | {tm['solve']:.1f} |", flush=True)
            del res
    print(f"peak RSS {_peak_gib():.2f} GiB")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("planted")
    a.add_argument("--n", type=int, default=20000)
    a.add_argument("--degrees", default="50,100,200,400")
    a.add_argument("--epsilons", default="1,2,4,8")
    a.add_argument("--seeds", type=int, default=3)
    a.add_argument("--methods", default="matrix-free,random")
    a.add_argument("--reference", choices=["engine", "planted"], default="engine",
                   help="denominator: the non-private engine's cut (default) or the planted cut")
    a = sub.add_parser("real")
    a.add_argument("--graphs", required=True)
    a.add_argument("--epsilons", default="1,2,4,8")
    a.add_argument("--seeds", type=int, default=3)
    a.add_argument("--rank", type=int, default=None)
    a = sub.add_parser("rank")
    a.add_argument("--n", type=int, default=20000)
    a.add_argument("--degree", type=float, default=200)
    a.add_argument("--epsilon", type=float, default=1.0)
    a.add_argument("--ranks", default="1,2,4,8")
    a.add_argument("--seeds", type=int, default=3)
    a = sub.add_parser("write")
    a.add_argument("--n", type=int, default=1_000_000)
    a.add_argument("--degree", type=float, default=100)
    a.add_argument("--out", required=True)
    a = sub.add_parser("scale")
    a.add_argument("--sizes", default="100000,300000,1000000")
    a.add_argument("--degree", type=float, default=100)
    a.add_argument("--epsilon", type=float, default=1.0)
    a = sub.add_parser("file")
    a.add_argument("--path", required=True)
    a.add_argument("--reference", required=True, help="denominator (e.g. the planted cut)")
    a.add_argument("--epsilons", default="2,4")
    a.add_argument("--seeds", type=int, default=1)
    args = p.parse_args(argv)
    print(f"# {' '.join(sys.argv)}; dpgraph {dpgraph.__version__}, numpy {np.__version__}; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S')}")
    {"planted": cmd_planted, "real": cmd_real, "rank": cmd_rank, "write": cmd_write,
     "scale": cmd_scale, "file": cmd_file}[args.cmd](args)


if __name__ == "__main__":
    main()
