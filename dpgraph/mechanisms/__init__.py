"""Shared private mechanisms: perturb-and-project, convex sets and projections, cosine
similarities, k-way marginals, the JL mechanism and covariance (see docs/privacy.md, section 2).
"""

from dpgraph.mechanisms.cosine import (
    CosineSimilarityResult,
    private_cosine_similarities,
    replace_one_vector_sensitivity,
)
from dpgraph.mechanisms.covariance import SecondMomentResult, private_second_moment
from dpgraph.mechanisms.jl import JLResult, jl_second_moment, jl_two_way_marginals
from dpgraph.mechanisms.marginals import MarginalsResult, kway_marginals, tensor_sensitivity
from dpgraph.mechanisms.onehot import OneHotMarginalsResult, onehot_marginals
from dpgraph.mechanisms.perturb import PerturbAndProjectResult, perturb_and_project
from dpgraph.mechanisms.projection import ProjectionResult, averaged_projections, dykstra
from dpgraph.mechanisms.sets import (
    AffineSubspace,
    BlockSimplex,
    Box,
    ConvexSet,
    DiagonalBox,
    FrobeniusBall,
    Intersection,
    NonNegative,
    NuclearBall,
    PSDBoundedDiagonal,
    PSDCone,
    PSDTraceBall,
    Simplex,
    SpectralBall,
)

__all__ = [
    "ConvexSet",
    "PSDCone",
    "Box",
    "NonNegative",
    "FrobeniusBall",
    "NuclearBall",
    "PSDTraceBall",
    "SpectralBall",
    "DiagonalBox",
    "PSDBoundedDiagonal",
    "Simplex",
    "BlockSimplex",
    "AffineSubspace",
    "Intersection",
    "ProjectionResult",
    "dykstra",
    "averaged_projections",
    "PerturbAndProjectResult",
    "perturb_and_project",
    "CosineSimilarityResult",
    "private_cosine_similarities",
    "replace_one_vector_sensitivity",
    "MarginalsResult",
    "kway_marginals",
    "tensor_sensitivity",
    "OneHotMarginalsResult",
    "onehot_marginals",
    "SecondMomentResult",
    "private_second_moment",
    "JLResult",
    "jl_second_moment",
    "jl_two_way_marginals",
]
