"""dpgraph: edge-differentially private Max-Cut, Max-Bisection, 2-CSP and synthetic graphs.

The private pipeline (d'Orsi & Novikov, "Tight Differentially Private PCA via Matrix
Coherence"): private degrees -> coherence-aware private PCA of the normalized adjacency ->
projection onto non-negative bounded-spectrum matrices -> degree-2 sum-of-squares with global
correlation rounding. Shared primitives follow Cohen-Addad et al., "Perturb-and-Project", and
Nikolov, "Private Query Release via the Johnson-Lindenstrauss Transform".
"""

from .graph import GraphData, GraphInputWarning, as_graph_data
from .privacy import PrivacyBudgetError, PrivacyLedger

__version__ = "0.1.0"

__all__ = [
    "GraphData",
    "GraphInputWarning",
    "as_graph_data",
    "PrivacyLedger",
    "PrivacyBudgetError",
]
