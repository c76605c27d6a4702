"""Write a large planted two-block edge list as a folder of Parquet files, partition by
partition, without ever holding the whole edge list (m = 2e8 run).

Each of ``parts`` files holds ``m // parts`` rows ``(u, v)`` (int64): ``u`` uniform over the
``n`` nodes, ``v`` uniform in the other block with probability ``cross`` (else in ``u``'s
block); the blocks are a seeded random split of the nodes. Pairs may repeat and ``u == v`` may
occur (rarely): the reader merges repeats and drops self-loops, as for any user file. Memory:
O(n + m / parts).

Usage: python benchmarks/make_edge_parquet.py FOLDER n m parts [cross] [seed]
"""

import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def main(folder, n, m, parts, cross=0.8, seed=12):
    os.makedirs(folder, exist_ok=True)
    ss = np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss.spawn(1)[0])
    side = rng.random(n) < 0.5
    blocks = [np.flatnonzero(~side), np.flatnonzero(side)]
    np.save(os.path.join(os.path.dirname(os.path.abspath(folder)),
                        os.path.basename(os.path.normpath(folder)) + "-blocks.npy"), side)
    t0 = time.perf_counter()
    per = m // parts
    for p, child in enumerate(ss.spawn(parts + 1)[1:]):
        g = np.random.default_rng(child)
        rows = per + (m - per * parts if p == parts - 1 else 0)
        u = g.integers(0, n, rows)
        su = side[u]
        target = np.where(g.random(rows) < cross, ~su, su)  # the block v is drawn from
        v = np.empty(rows, dtype=np.int64)
        for b in (0, 1):
            sel = target == bool(b)
            v[sel] = blocks[b][g.integers(0, blocks[b].size, int(sel.sum()))]
        pq.write_table(pa.table({"u": u, "v": v}), os.path.join(folder, f"part-{p:05d}.parquet"))
        del u, v, su, target
        print(f"part {p + 1}/{parts} ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], int(float(a[1])), int(float(a[2])), int(a[3]),
         float(a[4]) if len(a) > 4 else 0.8, int(a[5]) if len(a) > 5 else 12)
