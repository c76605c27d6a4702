"""Write a planted two-block graph (``dpgraph.datasets.planted_cut``'s model: blocks of n // 2
and n - n // 2 nodes, ratio 0.25, seed 0) as a SNAP edge list, a block of rows at a time
(memory O(n) plus one block), with the planted sides (OUT.sides.npy) and the edge count and
planted cut (OUT.planted) next to it. The 10^6-node, mean-degree-100 file is 689 MB.

Usage: python benchmarks/make_planted_snap.py N MEAN_DEGREE OUT
Then:  dpgraph maxcut OUT --epsilon 1 --delta 1e-6 --json -o part.tsv
       python benchmarks/cut_of_partition.py OUT part.tsv
"""

import sys

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from dpgraph.datasets.generators import _bernoulli_positions

RATIO = 0.25     # p_in / p_out, as planted_cut's default
ROWS = 20_000    # rows of a block drawn at a time


def main(n: int, d: float, out: str) -> None:
    rng = np.random.default_rng(0)
    a, b = n // 2, n - n // 2
    inside = a * (a - 1) // 2 + b * (b - 1) // 2
    p_out = (n * d / 2) / (a * b + RATIO * inside)
    p_in = RATIO * p_out
    perm = rng.permutation(n)
    blocks = [np.sort(perm[:a]), np.sort(perm[a:])]
    side = np.zeros(n, np.int8)
    side[blocks[1]] = 1
    np.save(out + ".sides.npy", side)
    total = planted = 0
    opts = pcsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    schema = pa.schema([("u", pa.int64()), ("v", pa.int64())])
    with open(out, "wb") as fh:
        fh.write(f"# Undirected graph: planted two-block, n={n}, mean degree {d}\n".encode())
        writer = pcsv.CSVWriter(fh, schema, write_options=opts)
        for kind in ("cross", "in0", "in1"):
            src = blocks[1] if kind == "in1" else blocks[0]
            dst = blocks[1] if kind == "cross" else src
            for r0 in range(0, src.size, ROWS):
                r1 = min(src.size, r0 + ROWS)
                pos = _bernoulli_positions(rng, (r1 - r0) * dst.size,
                                           p_out if kind == "cross" else p_in)
                i, j = r0 + pos // dst.size, pos % dst.size
                if kind != "cross":  # each pair inside a block once
                    keep = j > i
                    i, j = i[keep], j[keep]
                total += i.size
                planted += i.size if kind == "cross" else 0
                writer.write_table(pa.table({"u": src[i], "v": dst[j]}))
        writer.close()
    with open(out + ".planted", "w") as f:
        f.write(f"{total} {planted}\n")
    print(f"edges {total} planted cut {planted}")


if __name__ == "__main__":
    main(int(float(sys.argv[1])), float(sys.argv[2]), sys.argv[3])
