"""Release a private synthetic graph and export it to igraph and to a GraphML file.

Run: python examples/synthetic_graph_export.py [OUT_DIR]
"""

import sys
import tempfile
from pathlib import Path

import networkx as nx

import dpgraph

out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
G = nx.Graph(nx.les_miserables_graph().edges())  # unweighted: the protected adjacency

pg = dpgraph.privatize(G, epsilon=2.0, delta=1e-6, rank=4)
print(pg)

H = pg.to_igraph(min_weight=0.05)  # weighted synthetic graph, small weights dropped
print("igraph:", H.vcount(), "vertices,", H.ecount(), "edges; labels kept:", H.vs["name"][:3])

sample = pg.sample()  # an unweighted simple graph drawn from the synthetic weights
path = out_dir / "les_miserables_private.graphml"
dpgraph.write_graph(sample, path)
print("sampled synthetic graph:", sample, "->", path)
