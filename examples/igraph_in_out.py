"""igraph in, igraph out: a private cut and a private synthetic graph of an igraph.Graph.

Node names (the vertex attribute "name") come back as the labels of the partition and of the
synthetic graph; without names, vertex ids 0..n-1 are the labels.

Run: python examples/igraph_in_out.py
"""

import igraph as ig

import dpgraph

g = ig.Graph.Famous("Zachary")          # the karate club, unweighted, in igraph
g.vs["name"] = [f"member{v}" for v in range(g.vcount())]

# private Max-Cut straight from igraph; the sides hold igraph vertex names
res = dpgraph.max_cut(g, epsilon=2.0, delta=1e-6)
left, right = res.partition
print(res)
print("first members of one side:", sorted(left)[:5])

# colour the igraph by the private partition (a vertex attribute, as igraph users do)
g.vs["side"] = [res.assignment[name] for name in g.vs["name"]]
print("side sizes via igraph:", g.vs["side"].count(0), g.vs["side"].count(1))

# a private synthetic graph back as igraph: weighted, and a sampled unweighted one
pg = dpgraph.privatize(g, epsilon=2.0, delta=1e-6)
weighted = pg.to_igraph(max_edges=round(pg.edge_count))  # the heaviest pairs: the released count
print(f"weighted synthetic igraph: {weighted.vcount()} vertices, {weighted.ecount()} edges, "
      f"weights in [{min(weighted.es['weight']):.3f}, {max(weighted.es['weight']):.3f}]")
sampled = dpgraph.graph.to_igraph(pg.sample())
print(f"sampled synthetic igraph: {sampled.vcount()} vertices, {sampled.ecount()} edges; "
      f"names kept: {sampled.vs['name'][:3]}")
print(pg.ledger.report())
