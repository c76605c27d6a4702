"""dpgraph: edge-differentially private Max-Cut, Max-Bisection, 2-CSP and synthetic graphs.

The private pipeline (d'Orsi & Novikov, "Tight Differentially Private PCA via Matrix
Coherence"): private degrees -> coherence-aware private PCA of the normalized adjacency ->
projection onto non-negative bounded-spectrum matrices -> degree-2 sum-of-squares with global
correlation rounding. Shared primitives follow Cohen-Addad et al., "Perturb-and-Project", and
Nikolov, "Private Query Release via the Johnson-Lindenstrauss Transform". The answers
(:func:`max_cut`, :func:`max_bisection`, :func:`max_2csp`) take the degree-ordered local route
by default (pure epsilon-DP, docs/privacy.md 14), with the dense and matrix-free routes'
candidates pooled where released counts say they can help; :func:`release_synthetic` exports
a private synthetic graph (pure epsilon-DP).

Examples
--------
>>> import networkx as nx, dpgraph
>>> G = nx.Graph(nx.karate_club_graph().edges())
>>> pg = dpgraph.privatize(G, epsilon=4.0, delta=1e-6, rank=2, rng=0)
>>> pg.n
34
"""

from dpgraph import datasets
from dpgraph.caller import DPGraphWarning
from dpgraph.datasets import DatasetChecksumWarning
from dpgraph.lab import evaluate
from dpgraph.engine import CSPInstance, CutResult, read_csp, solve_max_2csp, solve_max_bisection, solve_max_cut
from dpgraph.solve.csp import PrivateCSPResult, max_2csp
from dpgraph.graph import DuplicateEdgeWarning, GraphData, GraphInputWarning, as_graph_data
from dpgraph.io import GraphFormatError, read_graph, write_graph
from dpgraph.mechanisms import (dykstra, jl_second_moment, jl_two_way_marginals, kway_marginals,
                         onehot_marginals, perturb_and_project, private_cosine_similarities,
                         private_second_moment)
from dpgraph.nx_backend import BackendDeclinedWarning
from dpgraph.privacy import (InvalidParameterError, PrivacyBudgetError, PrivacyLedger,
                             ReproducibleNoiseWarning)
from dpgraph.solve.cut import PrivateCutResult, max_bisection, max_cut
from dpgraph.release.privatize import PrivateGraph, privatize
from dpgraph.release.routes.pca import PCAHaltedWarning
from dpgraph.spectral import EntryAdjacency, private_low_rank, private_subspace
from dpgraph.synthetic import SyntheticRelease, release_synthetic
from dpgraph.synthetic.block_model import SyntheticSampleWarning

__version__ = "0.1.0"

__all__ = [
    "GraphData",
    "DPGraphWarning",
    "GraphInputWarning",
    "DuplicateEdgeWarning",
    "ReproducibleNoiseWarning",
    "SyntheticSampleWarning",
    "PCAHaltedWarning",
    "DatasetChecksumWarning",
    "BackendDeclinedWarning",
    "as_graph_data",
    "read_graph",
    "write_graph",
    "GraphFormatError",
    "audit",
    "datasets",
    "evaluate",
    "PrivacyLedger",
    "PrivacyBudgetError",
    "InvalidParameterError",
    "privatize",
    "PrivateGraph",
    "release_synthetic",
    "SyntheticRelease",
    "max_cut",
    "max_bisection",
    "PrivateCutResult",
    "private_subspace",
    "private_low_rank",
    "EntryAdjacency",
    "perturb_and_project",
    "dykstra",
    "private_cosine_similarities",
    "kway_marginals",
    "onehot_marginals",
    "jl_second_moment",
    "jl_two_way_marginals",
    "private_second_moment",
    "solve_max_cut",
    "solve_max_bisection",
    "CutResult",
    "CSPInstance",
    "read_csp",
    "solve_max_2csp",
    "max_2csp",
    "PrivateCSPResult",
]


def __getattr__(name):
    # dpgraph.lab.audit (the empirical privacy audits) imports scipy.stats, about a second: loaded
    # on first use, so that ``import dpgraph`` and every ``dpgraph`` command start faster
    if name == "audit":
        import importlib

        return importlib.import_module("dpgraph.lab.audit")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
