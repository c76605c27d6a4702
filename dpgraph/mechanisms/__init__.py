"""Shared private mechanisms: perturb-and-project, convex sets and projections, cosine
similarities, k-way marginals, the JL mechanism and covariance (see docs/privacy.md, section 2).
"""

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
]
