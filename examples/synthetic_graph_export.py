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

# the weighted synthetic graph: its heaviest pairs, as many as the released edge count (a
# threshold such as min_weight=0.05 keeps every pair above it: here several times the edges)
H = pg.to_igraph(max_edges=round(pg.edge_count))
print("igraph:", H.vcount(), "vertices,", H.ecount(), "weighted edges (the released edge "
      f"count, {pg.edge_count:.0f}); labels kept:", H.vs["name"][:3])

sample = pg.sample()  # an unweighted simple graph drawn from the release's degree-corrected
                      # block model (README, "Which mechanism runs"), not from H's weights
path = out_dir / "les_miserables_private.graphml"
dpgraph.write_graph(sample, path)
print("sampled synthetic graph:", sample, "->", path)
