"""The result of a private Max-Cut or Max-Bisection (:func:`dpgraph.max_cut`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpgraph.privacy import reproducible_tag
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.result import PrivateResult

__all__ = ["PrivateCutResult"]


@dataclass(eq=False)
class PrivateCutResult(PrivateResult):
    """Result of :func:`max_cut` / :func:`max_bisection`.

    Attributes
    ----------
    partition : tuple of two sets
        The two sides, in the caller's node labels: ``partition[0]`` holds the labels with
        assignment 1, ``partition[1]`` those with assignment 0 (as :func:`dpgraph.solve_max_cut`:
        ``x = +1``, then ``x = -1``). The command line numbers sides by the assignment, and so
        does the repr: ``sides=(n0, n1)`` are the numbers of labels with assignment 0 and 1.
    assignment : dict
        label -> 0/1.
    estimated_value : float or None
        Private estimate of the cut of ``partition`` in the input graph: its true cut plus
        Laplace noise (sensitivity 1; docs/privacy.md 4.10), clamped to the feasible range
        ``[0, released edge count]`` (its one-sided 99.9% upper end; post-processing). None with
        ``estimate=False``.
    estimate_interval : tuple of float or None
        A ``estimate_level`` (95%) confidence interval for the true cut: the clamped estimate
        ``+- b ln(1 / (1 - level))``, clamped like it (post-processing; never a point where the
        draw falls beyond the feasible range, :func:`dpgraph.solve.candidates.clamped_interval`).
    estimate_level : float
    synthetic_value : float or None
        Cut of ``partition`` on the exported synthetic graph (post-processing; biased upward on
        sparse graphs, where the partition is chosen on the same noise). None on the local
        route, which releases sides rather than a weighted graph.
    sdp_bound : float or None
        Certified upper bound of the degree-2 SoS relaxation of the *released instance* the
        partition was solved on (the chosen objective, ``diagnostics["objective"]``): a bound
        on that synthetic instance, not on the input graph. None on the local route.
    eta : float
        ``max(sigma_{r+1} estimate, kappa)`` of Alg. 7.13 step 4 (private).
    ledger : PrivacyLedger
    private_graph : PrivateGraph
    solver : object
        The engine's result on the chosen objective (certificate, the engine's timings of its
        work on the release: post-processing, ...); its own best
        rounding on that objective may differ from ``partition``, which the private choice
        picked among all roundings.
    certified_upper_bound : float or None
        With ``certify=True``: a private upper bound on the input's maximum cut (and so on its
        maximum bisection), true with probability >= ``certificate["level"]`` (95%): the
        verified degree-2 SoS bound of the input plus Laplace noise, plus the noise's one-sided
        95% quantile (docs/privacy.md 4.13). None otherwise.
    certified_ratio : float or None
        With ``certify=True`` and an estimate: the lower end of ``estimate_interval`` over
        ``certified_upper_bound`` (at most 1): at most ``cut(partition) / maximum cut`` with
        probability >= ``certificate["ratio_level"]`` (92.5%, a union bound over the two
        events). Post-processing.
    certificate : dict or None
        What the certificate's release used: ``level``, ``ratio_level``, ``noisy_bound`` (the
        Laplace draw), ``scale``, ``epsilon``, ``tau`` (the verified gap). All released or
        public.
    diagnostics : dict
        ``objective`` (the winner), ``candidates`` (objectives solved),
        ``candidate_partitions`` (distinct roundings chosen among), ``objective_values``
        (each solve's value on its own objective, post-processing). No timings: the time of
        work on the input is not covered by the guarantee (docs/privacy.md 11).

    Examples
    --------
    >>> import networkx as nx, dpgraph
    >>> G = nx.Graph(nx.karate_club_graph().edges())
    >>> res = dpgraph.max_cut(G, epsilon=1.0, delta=1e-6)
    >>> set(res.partition[0]) | set(res.partition[1]) == set(G)
    True
    >>> lo, hi = res.estimate_interval
    >>> bool(lo <= res.estimated_value <= hi), res.ledger.spent[0] <= 1.0
    (True, True)
    """

    partition: tuple
    assignment: dict
    estimated_value: float | None
    synthetic_value: float | None
    sdp_bound: float | None
    eta: float
    ledger: object
    private_graph: PrivateGraph
    solver: object
    diagnostics: dict = field(default_factory=dict)
    estimate_interval: tuple | None = None
    estimate_level: float = 0.95
    certified_upper_bound: float | None = None
    certified_ratio: float | None = None
    certificate: dict | None = None

    @property
    def halted(self) -> bool:
        return self.private_graph.halted

    def _document_fields(self) -> dict:
        """The certificate (:meth:`~dpgraph.result.PrivateResult.to_dict`) and the release's
        own diagnostics."""
        return {"certified_upper_bound": self.certified_upper_bound,
                "certified_ratio": self.certified_ratio, "certificate": self.certificate,
                "release": dict(self.private_graph.diagnostics)}

    def __repr__(self) -> str:
        eps, dlt = self.ledger.spent
        req_eps, req_dlt = self.ledger.epsilon, self.ledger.delta
        # by assignment (0, then 1), as the command line's sizes: partition lists side 1 first
        parts = [f"sides=({len(self.partition[1])}, {len(self.partition[0])})",
                 f"route={self.diagnostics.get('route')!r}"]
        if self.estimated_value is not None:
            lo, hi = self.estimate_interval
            parts.append(f"estimated_value={self.estimated_value:.6g} "
                         f"[{self.estimate_level:.0%} CI {lo:.6g}, {hi:.6g}]")
        if self.synthetic_value is not None:
            parts.append(f"synthetic_value={self.synthetic_value:.6g}")
        if self.sdp_bound is not None:
            parts.append(f"sdp_bound_of_release={self.sdp_bound:.6g}")
        if self.certified_upper_bound is not None:
            cert = self.certificate or {}
            parts.append(f"certified_upper_bound={self.certified_upper_bound:.6g} "
                         f"[{cert.get('level', 0.95):.0%}]")
            if self.certified_ratio is not None:
                parts.append(f"certified_ratio={self.certified_ratio:.4f} "
                             f"[{cert.get('ratio_level', 0.925):.1%}]")
        spent = f"spent=(epsilon={eps:.4g}, delta={dlt:.3g})"
        if req_eps is not None:
            spent += f" of requested (epsilon={req_eps:.4g}, delta={req_dlt:.3g})"
            why = self.diagnostics.get("unspent")
            if why:
                spent += f" [{why}]"
        parts.append(spent)
        rank = self.diagnostics.get("rank", self.private_graph.rank)
        if rank is not None:
            parts.append(f"rank={rank}")
        elif self.diagnostics.get("rank_note"):  # a rank the route did not use
            parts.append(self.diagnostics["rank_note"].split(":")[0])  # "rank=2 is not used"
        if self.diagnostics.get("options_note"):  # options the route did not read
            parts.append(self.diagnostics["options_note"].split(": they")[0])
        return (f"PrivateCutResult({', '.join(parts)}, halted={self.halted}"
                f"{reproducible_tag(self.ledger)})")
