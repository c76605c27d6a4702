"""Empirical privacy audits.

:mod:`dpgraph.lab.audit.harness` runs any mechanism many times on an adjacent pair, applies a
distinguishing event and returns a Clopper-Pearson lower confidence bound on epsilon
(:class:`AuditResult`); use it on your own mechanisms. :mod:`dpgraph.lab.audit.catalog` holds the
audits of dpgraph's mechanisms on the worst-case pairs argued in ``docs/audit.md``;
``benchmarks/bench_audit.py`` runs them at full size.

Examples
--------
>>> from dpgraph.lab.audit import catalog
>>> res = catalog.laplace(runs=20_000, rng=0)
>>> res.epsilon_lower_bound <= res.claimed_epsilon, res.fraction > 0.8
(True, True)
"""

from dpgraph.lab.audit import catalog
from dpgraph.lab.audit.harness import (AuditResult, audit_event, audit_threshold, choose_threshold,
                      clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound,
                      plan_threshold, run_mechanism)

__all__ = ["AuditResult", "audit_event", "audit_threshold", "plan_threshold", "choose_threshold",
           "clopper_pearson_lower", "clopper_pearson_upper", "epsilon_lower_bound",
           "run_mechanism", "catalog"]
