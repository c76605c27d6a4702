"""Degree-2 sum-of-squares CSP engine: Max-Cut, Max-Bisection, Max-2-CSP with certified bounds.

Implements the non-private engine of d'Orsi and Novikov, "Tight Differentially Private PCA via
Matrix Coherence", Sec. 7.1: the degree-2 SoS relaxation solved by low-rank (Burer-Monteiro)
methods with a certified dual bound, Goemans-Williamson and global correlation rounding
(Barak, Raghavendra, Steurer, FOCS 2011), rebalancing, local search and a time-budgeted
improvement phase (iterated tabu search and simulated annealing, :mod:`dpgraph.engine.local_search`).
"""

from dpgraph.engine.maxcut import CutResult, cut_value, solve_max_bisection, solve_max_cut
from dpgraph.engine.sdp import certify_upper_bound, default_rank, sdp_rank, solve_lowrank_sdp
from dpgraph.engine.operator import WeightOperator, as_weight_operator
from dpgraph.engine.reference import cvxpy_max_bisection_sdp, cvxpy_max_cut_sdp
from dpgraph.engine.twocsp import CSPInstance, CSPResult, cvxpy_max_2csp_sdp, solve_max_2csp
from dpgraph.engine.formats import max_k_cut_instance, read_csp, read_wcnf, write_csp
from dpgraph.engine.twocsp_sdp import certify_label_sdp, solve_label_csp, solve_label_sdp

__all__ = [
    "CutResult",
    "CSPInstance",
    "CSPResult",
    "solve_max_2csp",
    "read_csp",
    "read_wcnf",
    "max_k_cut_instance",
    "solve_label_sdp",
    "certify_label_sdp",
    "solve_label_csp",
    "write_csp",
    "cvxpy_max_cut_sdp",
    "cvxpy_max_bisection_sdp",
    "cvxpy_max_2csp_sdp",
    "cut_value",
    "solve_max_cut",
    "solve_max_bisection",
    "certify_upper_bound",
    "solve_lowrank_sdp",
    "sdp_rank",
    "default_rank",  # deprecated name of sdp_rank
    "WeightOperator",
    "as_weight_operator",
]
