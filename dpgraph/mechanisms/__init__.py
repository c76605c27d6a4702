"""Shared private mechanisms: perturb-and-project, convex sets and projections, cosine
similarities, k-way marginals, the JL mechanism and covariance (see docs/privacy.md, section 2).
"""

from .cosine import (
    CosineSimilarityResult,
    private_cosine_similarities,
    replace_one_vector_sensitivity,
)
from .covariance import SecondMomentResult, private_second_moment
from .jl import JLResult, jl_second_moment, jl_two_way_marginals
from .marginals import MarginalsResult, kway_marginals, tensor_sensitivity
from .onehot import OneHotMarginalsResult, onehot_marginals
from .perturb import PerturbAndProjectResult, perturb_and_project
from .projection import ProjectionResult, averaged_projections, dykstra
from .sets import (
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
