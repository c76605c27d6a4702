"""Benchmark graphs and random instances.

* :data:`REGISTRY` — public benchmark graphs (G-set G3, G35, G48, G81; SNAP facebook,
  chameleon, ca-hepph; for scale, email-Enron and soc-douban) with source URL, format,
  sha256, n, m and published values;
  :func:`load` finds their files in ``$DPGRAPH_DATA`` or ``~/.cache/dpgraph`` (never
  downloads) and otherwise says how to obtain them.
* Built-in small graphs from NetworkX (``load("karate")``, ``"les-miserables"``,
  ``"florentine"``) and planted instances shipped with the package (:data:`BUNDLED`;
  :func:`load_planted` returns them with their planted partition and value).
* Seeded vectorized generators: :func:`planted_cut` and :func:`planted_bisection` return a
  :class:`PlantedInstance` (graph, planted partition, its cut value, parameters);
  :func:`random_regular`, :func:`erdos_renyi` and :func:`toroidal_grid_pm1` have no planted
  structure and return a :class:`~dpgraph.graph.GraphData`.
"""

from dpgraph.datasets.generators import (PlantedInstance, cut_weight, erdos_renyi, planted_bisection,
                          planted_cut, random_regular, toroidal_grid_pm1)
from dpgraph.datasets.registry import (BUILTIN, BUNDLED, REGISTRY, DatasetChecksumWarning, DatasetEntry,
                        DatasetNotFoundError, available, data_dirs, find, load,
                        load_planted)

__all__ = [
    "REGISTRY", "BUILTIN", "BUNDLED", "DatasetEntry", "DatasetNotFoundError",
    "DatasetChecksumWarning", "load", "load_planted", "available", "find", "data_dirs",
    "PlantedInstance", "planted_cut", "planted_bisection", "random_regular", "erdos_renyi",
    "toroidal_grid_pm1", "cut_weight",
]
