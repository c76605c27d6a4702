"""The karate club graph, as a NetworkX user writes it: weight=None, and the NetworkX backend.

``nx.karate_club_graph()`` stores meeting counts (1 to 7) in the edge attribute "weight";
dpgraph protects one edge added or removed on graphs with weights in [0, 1], so ``weight=None``
reads every edge as weight 1, exactly as NetworkX functions do.

Run: python examples/karate_club_networkx.py
(the NetworkX backend part needs dpgraph installed: ``pip install .`` registers it)
"""

import networkx as nx

import dpgraph

G = nx.karate_club_graph()

# 1. dpgraph's own API, with NetworkX's weight convention
res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6, weight=None)
print(res)
print("sides:", sorted(res.partition[0]), sorted(res.partition[1]))
# the estimate spends at most 10% of epsilon (estimate_share; less on large graphs): Laplace
# noise of scale 10 here, large next to a 78-edge graph; pass estimate_share= to spend more of
# the budget on it. The ledger line "cut of the returned partition" holds both numbers.
est = next(e for e in res.ledger.entries if e.name == "cut of the returned partition")
print(f"private estimate of this partition's cut: {res.estimated_value:.1f} (Laplace scale "
      f"{est.noise_scale:.3g}, {est.epsilon / 1.0:.0%} of epsilon)")
bis = dpgraph.max_bisection(G, epsilon=1.0, delta=1e-6, weight=None)
print(f"private bisection sizes: {len(bis.partition[0])} / {len(bis.partition[1])}")

# 2. NetworkX's own functions, dispatched to the private algorithms by naming the backend
if "dpgraph" in nx.utils.backends.backends:
    # NetworkX caches the converted graph on G and warns each time it reuses it; we do not
    # mutate G, so the cache is consistent (NetworkX's documented switch for that warning)
    nx.config.warnings_to_ignore.add("cache")
    cut, (S, T) = nx.approximation.one_exchange(G, backend="dpgraph", epsilon=1.0, delta=1e-6)
    print(f"one_exchange(backend='dpgraph'): private cut estimate {cut:.1f}, sides "
          f"{len(S)} / {len(T)}")
    try:
        nx.approximation.one_exchange(G, backend="dpgraph")  # no budget: refused, never silent
    except TypeError as exc:
        print("without a budget:", exc)
else:
    print("the 'dpgraph' NetworkX backend is not registered here: install the package "
          "(pip install .) to call nx.approximation.one_exchange(G, backend='dpgraph', ...)")

# 3. The partition's exact cut, for comparison: NOT private (only the data owner may do this)
print(f"exact cut of the private partition (not private): "
      f"{nx.cut_size(G, *res.partition, weight=None)}")
