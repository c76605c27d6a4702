"""Read times of dpgraph.io.read_graph against NetworkX's readers, and generator times against
NetworkX's generators, measured in the same run.

    DPGRAPH_DATA=/path/to/datasets python benchmarks/bench_io.py [--repeat 5]
    python benchmarks/bench_io.py --large 10000000 --large-file /tmp/e7.txt --skip-generators

``--large M`` also times a plain 'u v' edge list of M distinct random edges (written to
``--large-file`` first if that file does not exist; n = M / 10) read by ``read_graph`` against
the pair it should be compared with: pyarrow's CSV reader plus a SciPy CSR build of the
symmetric matrix (``csr_array((ones, (u, v))) + its transpose``), timed in the same run.

Each reader is timed ``--repeat`` times (median and best reported); the ratio is NetworkX's
median over dpgraph's median. Both produce an undirected weighted graph from the same file:
``networkx.read_weighted_edgelist`` (G-set, after skipping the header line) or
``networkx.read_edgelist(nodetype=int)`` (SNAP). On a shared machine absolute times vary; the
ratios are the figures to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402

import dpgraph  # noqa: E402
from dpgraph import datasets
from dpgraph.io import read_graph  # noqa: E402


def _time(fn, repeat):
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), result


def _nx_gset(path):
    with open(path) as f:
        f.readline()
        return nx.read_weighted_edgelist(f, nodetype=int)


def _nx_snap(path):
    return nx.read_edgelist(path, nodetype=int)


def _write_random_edges(m: int, path: Path) -> None:
    """``m`` distinct random pairs ``u < v`` of ``n = m // 10`` ids, shuffled, 'u v' lines."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    n = max(m // 10, 2)
    rng = np.random.default_rng(0)
    keys = np.empty(0, dtype=np.int64)
    while keys.size < m:
        u = rng.integers(0, n, size=int(1.1 * m))
        v = rng.integers(0, n, size=u.size)
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        keys = np.unique(np.concatenate([keys, (lo * n + hi)[lo != hi]]))
    keys = rng.permutation(keys)[:m]
    pcsv.write_csv(pa.table({"u": keys // n, "v": keys % n}), str(path),
                   write_options=pcsv.WriteOptions(include_header=False, delimiter=" ",
                                                   quoting_style="none"))


def _arrow_csr(path):
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import scipy.sparse as sp

    t = pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=["u", "v"]),
                      parse_options=pcsv.ParseOptions(delimiter=" "),
                      convert_options=pcsv.ConvertOptions(
                          column_types={"u": pa.int64(), "v": pa.int64()}))
    u, v = t.column("u").to_numpy(), t.column("v").to_numpy()
    n = int(max(u.max(), v.max())) + 1
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    return A + A.T


def _large(m: int, path: Path, repeat: int) -> None:
    import pyarrow

    if not path.is_file():
        print(f"\nwriting {m:,} random edges to {path}")
        _write_random_edges(m, path)
    print(f"\nlarge edge list {path} ({path.stat().st_size / 2**20:.0f} MiB), median / best of "
          f"{repeat}; pyarrow {pyarrow.__version__}")
    base, base_best, A = _time(lambda: _arrow_csr(path), repeat)
    del A
    ours, ours_best, g = _time(lambda: read_graph(path), repeat)
    print(f"{'reader':<34} {'m':>10} {'median s':>9} {'best s':>7}")
    print(f"{'pyarrow CSV + SciPy CSR':<34} {m:>10} {base:>9.2f} {base_best:>7.2f}")
    print(f"{'dpgraph.io.read_graph':<34} {g.m:>10} {ours:>9.2f} {ours_best:>7.2f}")
    print(f"read_graph / (pyarrow + CSR): {ours / base:.2f}x (median), "
          f"{ours_best / base_best:.2f}x (best)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("DPGRAPH_DATA"),
                        help="benchmark data folder (default: $DPGRAPH_DATA)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-generators", action="store_true")
    parser.add_argument("--large", type=int, default=0, metavar="M",
                        help="also time a random edge list of M edges against pyarrow + SciPy")
    parser.add_argument("--large-file", default="edges-large.txt",
                        help="where the --large edge list is (written if missing)")
    args = parser.parse_args(argv)
    print(f"dpgraph {dpgraph.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"networkx {nx.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    warnings.simplefilter("ignore")  # self-loop notices of chameleon / ca-hepph
    if args.data:
        root = Path(args.data)
        print(f"\nreading files from {root} (median / best of {args.repeat})")
        print(f"{'graph':<10} {'n':>6} {'m':>7} {'dpgraph s':>10} {'best':>7} "
              f"{'networkx s':>11} {'best':>7} {'nx / dpgraph':>13}")
        for name in ["G3", "G81", "facebook", "chameleon", "ca-hepph"]:
            entry = datasets.REGISTRY[name]
            path = root / entry.path
            if not path.is_file():
                print(f"{name:<10} (missing: {path})")
                continue
            ours, ours_best, g = _time(lambda: read_graph(path), args.repeat)
            base_fn = _nx_gset if entry.format == "gset" else _nx_snap
            base, base_best, G = _time(lambda: base_fn(path), args.repeat)
            print(f"{name:<10} {g.n:>6} {g.m:>7} {ours:>10.4f} {ours_best:>7.4f} {base:>11.4f} "
                  f"{base_best:>7.4f} {base / ours:>12.1f}x")
    else:
        print("\n(no data folder: set DPGRAPH_DATA or pass --data to time the file readers)")
    if args.large:
        _large(args.large, Path(args.large_file), args.repeat)
    if args.skip_generators:
        return 0
    print(f"\ngenerators (median / best of {args.repeat}; NetworkX once, it is slow)")
    print(f"{'generator':<34} {'m':>8} {'dpgraph s':>10} {'best':>7} {'networkx s':>11} "
          f"{'nx / dpgraph':>13}")
    cases = [
        ("erdos_renyi(10000, 50)", lambda: datasets.erdos_renyi(10000, 50.0, rng=1),
         lambda: nx.fast_gnp_random_graph(10000, 50 / 9999, seed=1)),
        ("erdos_renyi(2000, 400)", lambda: datasets.erdos_renyi(2000, 400.0, rng=1),
         lambda: nx.fast_gnp_random_graph(2000, 400 / 1999, seed=1)),
        ("planted_cut(10000, 50)", lambda: datasets.planted_cut(10000, 50.0, rng=1).graph,
         None),
        ("planted_cut(2000, 400)", lambda: datasets.planted_cut(2000, 400.0, rng=1).graph,
         None),
        ("random_regular(10000, 50)", lambda: datasets.random_regular(10000, 50, rng=1),
         lambda: nx.random_regular_graph(50, 10000, seed=1)),
        ("random_regular(2000, 400)", lambda: datasets.random_regular(2000, 400, rng=1), None),
        ("toroidal_grid_pm1(100, 200)", lambda: datasets.toroidal_grid_pm1(100, 200, rng=1),
         None),
    ]
    for label, ours_fn, base_fn in cases:
        ours, ours_best, g = _time(ours_fn, args.repeat)
        if base_fn is not None:
            base, _, _ = _time(base_fn, 1)
            tail = f"{base:>11.3f} {base / ours:>12.0f}x"
        else:
            tail = f"{'-':>11} {'-':>13}"
        print(f"{label:<34} {g.m:>8} {ours:>10.4f} {ours_best:>7.4f} {tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
