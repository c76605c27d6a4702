"""Coherence-aware private PCA (d'Orsi & Novikov), with the constants proven in docs/privacy.md §3.

Public API
----------
private_subspace, private_low_rank : the private estimators (Thm 5.1; Algs. 5.2, 5.5, 5.8, 5.10)
EntryAdjacency : one-entry / one-symmetric-pair adjacency (the graph pipeline's case)
BudgetSplit : how (epsilon, delta) is divided over the steps
coherence, basic_coherence, subspace_distance : Defs. 1.4, 1.1, 1.2
bounds : every sensitivity bound as a function (docs/privacy.md §3)
"""

from dpgraph.spectral import bounds
from dpgraph.spectral.bounds import EntryAdjacency
from dpgraph.spectral.coherence import basic_coherence, coherence, max_row_norm, subspace_distance
from dpgraph.spectral.pca import (
    BudgetSplit,
    PCADiagnostics,
    PrivateLowRankResult,
    PrivateSubspaceResult,
    private_low_rank,
    private_subspace,
)

__all__ = [
    "private_subspace",
    "private_low_rank",
    "PrivateSubspaceResult",
    "PrivateLowRankResult",
    "PCADiagnostics",
    "BudgetSplit",
    "EntryAdjacency",
    "coherence",
    "basic_coherence",
    "subspace_distance",
    "max_row_norm",
    "bounds",
]
