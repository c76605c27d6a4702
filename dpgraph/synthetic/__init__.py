"""Private synthetic graphs: private communities, degree classes, block-model releases and
their samplers.

- :mod:`~dpgraph.synthetic.release`: :func:`release_synthetic` (what ``dpgraph synth`` runs by
  default) and the :class:`SyntheticRelease` it returns.
- :mod:`~dpgraph.synthetic.communities`: private communities, their refinement, and the
  spectral partition of a :func:`dpgraph.privatize` release.
- :mod:`~dpgraph.synthetic.block_model`: :class:`BlockModel` and its releases (block counts,
  degrees, the total edge weight).
- :mod:`~dpgraph.synthetic.degree_classes`: degree classes and their mixing.
- :mod:`~dpgraph.synthetic.sampler`: :func:`sample_block_model`, graphs drawn from a block model;
  :mod:`~dpgraph.synthetic.factor_sampler`: graphs drawn from a low-rank release.
- :mod:`~dpgraph.synthetic.sample_streams`: which generator ``sample()`` without an ``rng``
  draws from (a seeded release's own stream; fresh secure randomness otherwise).

Imports point one way: ``block_model`` <- ``communities``, ``degree_classes``, ``sampler`` <-
``release``.
"""

from dpgraph.synthetic.block_model import (BlockModel, block_edge_counts, consistent_block_model,
                                           degree_split, degrees_summing_to, match_edge_count,
                                           release_block_model, release_edge_count,
                                           release_split_block_model, split_block_scales,
                                           split_block_statistics)
from dpgraph.synthetic.communities import (node_block_counts, private_communities,
                                           refine_partition, supergraph_communities,
                                           synthetic_partition)
from dpgraph.synthetic.degree_classes import (degree_bins, mixing_assortativity,
                                              release_degree_mixing, split_by_degree_bins)
from dpgraph.synthetic.release import (SyntheticRelease, community_signal,
                                       default_init_labels, default_rounds, release_synthetic)
from dpgraph.synthetic.sampler import sample_block_model

__all__ = ["BlockModel", "SyntheticRelease", "release_synthetic",
           "sample_block_model",
           "release_block_model", "release_split_block_model", "consistent_block_model",
           "release_edge_count", "match_edge_count", "degrees_summing_to", "block_edge_counts",
           "degree_split", "split_block_statistics", "split_block_scales", "synthetic_partition",
           "private_communities", "supergraph_communities", "refine_partition",
           "node_block_counts", "degree_bins", "release_degree_mixing", "mixing_assortativity",
           "split_by_degree_bins", "default_init_labels", "default_rounds", "community_signal"]
