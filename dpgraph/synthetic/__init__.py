"""Private synthetic graphs: private communities, degree classes, block-model releases and
their samplers (:func:`release_synthetic`, :func:`sample_block_model`)."""

from dpgraph.synthetic.block_model import (BlockModel, SyntheticRelease, release_synthetic,
                                           sample_block_model)

__all__ = ["BlockModel", "SyntheticRelease", "release_synthetic", "sample_block_model"]
