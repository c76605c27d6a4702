"""The cut of a partition file (``label<TAB>side`` lines, ``dpgraph maxcut -o``) on a SNAP edge
list written by make_planted_snap.py, read in blocks (memory O(n)), over the planted cut.
NOT private: it reads the input graph.

Usage: python benchmarks/cut_of_partition.py EDGES PARTITION_TSV
"""

import sys

import numpy as np
import pyarrow.csv as pcsv


def main(edges: str, partition: str) -> None:
    t = pcsv.read_csv(partition, read_options=pcsv.ReadOptions(column_names=["label", "side"]),
                      parse_options=pcsv.ParseOptions(delimiter="\t"))
    labels, sides = t.column("label").to_numpy(), t.column("side").to_numpy()
    side = np.full(labels.max() + 1, -1, np.int8)
    side[labels] = sides
    reader = pcsv.open_csv(edges, read_options=pcsv.ReadOptions(column_names=["u", "v"],
                                                                 skip_rows=1),
                           parse_options=pcsv.ParseOptions(delimiter="\t"))
    cut = 0
    for batch in reader:
        u, v = batch.column(0).to_numpy(), batch.column(1).to_numpy()
        cut += int(np.count_nonzero(side[u] != side[v]))
    total, planted = map(int, open(edges + ".planted").read().split())
    print(f"cut {cut} planted {planted} ratio {cut / planted:.4f} edges {total}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
