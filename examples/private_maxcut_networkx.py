"""Private Max-Cut of a NetworkX graph, scored (non-privately) against the non-private solver.

Run: python examples/private_maxcut_networkx.py
"""

import dpgraph
from dpgraph.datasets import planted_cut
from dpgraph.lab.evaluate import cut_value
from dpgraph.graph import to_networkx

# a planted two-block disassortative graph: 1,000 nodes, mean degree 100
G = to_networkx(planted_cut(1000, 100, rng=7).graph)

# the default route (the degree-ordered local route) has no low-rank release, so no rank=;
# it is pure epsilon-DP: the repr says that delta is left unspent
res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6)
print(res)
print(res.ledger.report())

# Scoring on the true graph is NOT private: only the data owner may do it.
reference = dpgraph.solve_max_cut(G, rng=0)
print(f"private cut on the true graph: {cut_value(G, res.partition):.0f} "
      f"(non-private: {reference.value:.0f}, "
      f"transfer ratio {cut_value(G, res.partition) / reference.value:.3f})")
