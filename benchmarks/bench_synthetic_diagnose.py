"""Why the cells where ``release_synthetic`` stays behind the PrivGraph-style baseline are
behind: the measurements behind the diagnoses in benchmarks/NOTES.md ("Synthetic graphs").

NOT PRIVATE: every number here reads the true graph (benchmark use only).

Subcommands (from the repository root, ``DPGRAPH_DATA`` pointing at the data sets):

``path [--graph chameleon] [--epsilons 2,4] [--seeds 3]``
    Average shortest path (dpgraph.lab.evaluate.graph_statistics, 64 sources) of our sample, of the
    same release sampled with the baseline's two distortions applied -- hub weights capped
    (``--cap``; the baseline's Chung-Lu collapses repeated hub pairs) and edges deleted at
    random down to the baseline's edge ratio -- and of the baseline's sample; plus the share of
    all degree held by the top 1% of nodes and the maximum degree of each.
``maxcut [--graph facebook] [--epsilons 1] [--seeds 4]``
    The max-cut transfer of our sample (the partition ``solve_max_cut`` finds on it, scored on
    the true graph, over the benchmark's reference cut), of the same release sampled with flat
    degrees (a plain block model), and the block-level prediction of the true cut: with ``p_c``
    the share of community ``c`` on one side, ``sum_{c <= c'} T_cc' (p_c (1 - p_c') + p_c'
    (1 - p_c))`` over the true edge counts ``T`` of the release's communities (uniform sides
    give ``m / 2``).
``floor [--graphs chameleon,facebook,ca-hepph,soc-douban] [--epsilons 1,4]``
    The released degrees of ``release_synthetic`` (seed 17) against the true graph: their sum
    over twice the edge count, the share of nodes at the floor of 1, and the true degrees of
    those nodes.
``compare A B --suffix S [--graphs chameleon,facebook,ca-hepph]``
    From saved runs (``benchmarks/out/synthetic_<graph><S>.json`` of bench_synthetic_baseline or
    bench_synthetic_variants holding methods A and B): every (graph, epsilon, metric) cell where
    B is better or worse than A beyond 2 standard errors (Welch's t over the seeds).
``spectral [--graphs facebook,ca-hepph,chameleon]``
    The cut, as a fraction of the edges, of the sign of each of the 4 lowest eigenvectors of the
    true normalized adjacency ``D^-1/2 A D^-1/2``: whether even an exact spectral release could
    carry a cut side better than random sides (0.5) into a synthetic graph.

    PYTHONPATH=. python benchmarks/bench_synthetic_diagnose.py path
"""

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_synthetic_baseline as bs  # noqa: E402

import dpgraph  # noqa: E402
from dpgraph.lab.evaluate import cut_value, graph_statistics  # noqa: E402
from dpgraph.graph import from_matrix  # noqa: E402
from dpgraph.io import read_graph  # noqa: E402
from dpgraph.synthetic.block_model import block_edge_counts  # noqa: E402
from dpgraph.synthetic.sampler import sample_block_model  # noqa: E402


def load(name):
    raw = read_graph(bs.DATA / f"{name}.txt")
    return from_matrix(raw.weights, tuple(range(raw.n)), source=name)


def release(data, eps, seed):
    """The benchmark's dpgraph release for this seed (bench_synthetic_baseline.dpgraph_synth's stream)."""
    return dpgraph.release_synthetic(data, epsilon=eps, rng=1000 * seed + 17).block_model


def releases(args, data):
    """``(epsilon, seed, block model)`` for every epsilon and seed of the command."""
    for eps in args.epsilons:
        for seed in range(args.seeds):
            yield eps, seed, release(data, eps, seed)


def header(*columns):
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))


def resample(bm, degrees, rng=5):
    return sample_block_model(bm.blocks, bm.block_counts, degrees, inside=bm.inside, rng=rng,
                              groups=bm.groups)


def keep_edges(g, frac, seed):
    U = sp.triu(g.weights).tocoo()
    keep = np.random.default_rng(seed).random(U.nnz) < frac
    A = sp.coo_array((U.data[keep], (U.row[keep], U.col[keep])), shape=g.weights.shape)
    return from_matrix((A + A.T).tocsr())


def hubs(g):
    d = np.sort(np.asarray(g.weights.sum(axis=1)).ravel())[::-1]
    return d[: max(int(0.01 * g.n), 1)].sum() / d.sum(), int(d[0])


def path_cmd(args):
    data = load(args.graph)
    path = lambda g: graph_statistics(g, rng=0)["avg_path"]  # noqa: E731
    share, top = hubs(data)
    print(f"{args.graph}: true path {path(data):.3f}, top-1% degree share {share:.3f}, "
          f"max degree {top}")
    header("eps", "seed", "ours", "hubs capped", "edges deleted", "both", "baseline",
           "baseline edges / true", "top-1% share ours / baseline", "max degree ours / baseline")
    for eps, seed, bm in releases(args, data):
        ours = resample(bm, bm.degrees)
        base, _ = bs.privgraph_style(data, eps, 1000 * seed + 17)
        ratio = base.m / data.m
        capped = resample(bm, np.minimum(bm.degrees, args.cap))
        (so, mo), (sb, mb) = hubs(ours), hubs(base)
        print(f"| {eps:g} | {seed} | {path(ours):.3f} | {path(capped):.3f} | "
              f"{path(keep_edges(ours, ratio, seed)):.3f} | "
              f"{path(keep_edges(capped, ratio, seed)):.3f} | {path(base):.3f} | "
              f"{ratio:.3f} | {so:.3f} / {sb:.3f} | {mo} / {mb} |", flush=True)


def maxcut_cmd(args):
    from dpgraph.engine import solve_max_cut

    data = load(args.graph)
    out = bs.OUT / f"synthetic_{args.graph}_s10.json"
    ref = (json.loads(out.read_text())["reference_cut"] if out.exists()
           else solve_max_cut(data, rng=0, tol=1e-3, certificate="auto").value)

    def side(g):
        return np.where(np.asarray(solve_max_cut(g, rng=0, tol=1e-3).x) > 0, 1.0, -1.0)

    print(f"{args.graph}: uniform sides give {data.m / 2 / ref:.4f} of the reference cut")
    header("eps", "seed", "transfer", "flat degrees", "block-level prediction",
           "community side shares")
    for eps, seed, bm in releases(args, data):
        x = side(resample(bm, bm.degrees))
        flat = side(resample(bm, np.ones(bm.n)))
        comm = bm.groups[bm.blocks]
        k = int(comm.max()) + 1
        p = np.bincount(comm, weights=x > 0, minlength=k) / np.bincount(comm, minlength=k)
        T = np.triu(block_edge_counts(data.weights, comm))
        pred = (T * (p[:, None] * (1 - p[None, :]) + p[None, :] * (1 - p[:, None]))).sum()
        print(f"| {eps:g} | {seed} | {cut_value(data, x) / ref:.4f} | "
              f"{cut_value(data, flat) / ref:.4f} | {pred / ref:.4f} | "
              f"{', '.join(f'{v:.2f}' for v in p)} |", flush=True)


def spectral_cmd(args):
    from scipy.sparse.linalg import eigsh

    for name in args.graphs.split(","):
        data = load(name)
        d = np.asarray(data.weights.sum(axis=1)).ravel()
        s = sp.diags(1.0 / np.sqrt(np.maximum(d, 1.0)))
        vals, vecs = eigsh(s @ data.weights @ s, k=4, which="SA")
        fr = [cut_value(data, np.where(vecs[:, i] >= 0, 1.0, -1.0)) / data.m for i in range(4)]
        print(f"{name}: eigenvalues {', '.join(f'{v:.3f}' for v in vals)}; cut / edges of "
              f"their signs {', '.join(f'{f:.4f}' for f in fr)} (uniform sides: 0.5)")


def floor_cmd(args):
    for name in args.graphs.split(","):
        data = load(name)
        t = np.asarray(data.weights.sum(axis=1)).ravel()
        for eps in args.epsilons:
            d = dpgraph.release_synthetic(data, epsilon=eps, rng=17).block_model.degrees
            low = d <= 1.0 + 1e-9
            print(f"{name} eps {eps:g}: released degrees sum / 2m = {d.sum() / t.sum():.2f}; at "
                  f"the floor of 1: {low.mean():.0%} of nodes, their true degree mean "
                  f"{t[low].mean():.1f}, share truly 1: {(t[low] == 1).mean():.0%}")


def compare_cmd(args):
    better, worse, cells = [], [], 0
    for name in args.graphs.split(","):
        rows = json.loads((bs.OUT / f"synthetic_{name}{args.suffix}.json").read_text())["rows"]
        for eps in sorted({r["epsilon"] for r in rows}):
            for k in bs.METRICS:
                a = bs._values(rows, args.a, eps, k)
                b = bs._values(rows, args.b, eps, k)
                t = bs.welch_t(b, a) * (1 if k in bs.HIGHER_IS_BETTER else -1)  # > 0: B better
                cells += 1
                if abs(t) > 2:
                    (better if t > 0 else worse).append(
                        f"{name} eps {eps:g} {k}: {a.mean():.3f} -> {b.mean():.3f} (t = {abs(t):.1f})")
    print(f"{args.b} against {args.a}, {cells} cells: better beyond 2 standard errors in "
          f"{len(better)}, worse in {len(worse)}")
    print("better:\n" + "\n".join("- " + x for x in better))
    print("worse:\n" + ("\n".join("- " + x for x in worse) or "- none"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("path")
    a.add_argument("--graph", default="chameleon")
    a.add_argument("--epsilons", default="2,4")
    a.add_argument("--seeds", type=int, default=3)
    a.add_argument("--cap", type=float, default=150.0)
    b = sub.add_parser("maxcut")
    b.add_argument("--graph", default="facebook")
    b.add_argument("--epsilons", default="1")
    b.add_argument("--seeds", type=int, default=4)
    f = sub.add_parser("floor")
    f.add_argument("--graphs", default="chameleon,facebook,ca-hepph,soc-douban")
    f.add_argument("--epsilons", default="1,4")
    g = sub.add_parser("compare")
    g.add_argument("a")
    g.add_argument("b")
    g.add_argument("--suffix", required=True)
    g.add_argument("--graphs", default="chameleon,facebook,ca-hepph")
    c = sub.add_parser("spectral")
    c.add_argument("--graphs", default="facebook,ca-hepph,chameleon")
    args = p.parse_args()
    if hasattr(args, "epsilons"):
        args.epsilons = [float(e) for e in args.epsilons.split(",")]
    warnings.simplefilter("ignore")  # seeded noise warns (benchmarks are reproducible runs)
    {"path": path_cmd, "maxcut": maxcut_cmd, "spectral": spectral_cmd, "floor": floor_cmd,
     "compare": compare_cmd}[args.cmd](args)


if __name__ == "__main__":
    main()
