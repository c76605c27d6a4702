"""Private Max-2-CSP: privatize the label-extended graph, solve candidates, choose privately.

d'Orsi & Novikov Sec. 7.3 (Thm 7.19 for 2-CSPs): the constraints are private, the variables and
the alphabet public. Adjacent instances differ in one constraint ``(i, j, R, w)`` with
``w`` in [0, 1] and ``|R| <= s`` (``relation_size``, public; default ``q*q``). The mechanism
(proofs in docs/privacy.md, section 6):

1. the label-extended graph ``L`` on the ``n q`` labels (Def. 7.9), entries clipped to [0, 1]
   and rounded to {0, 1} by independent Bernoulli draws (exact for unit weights on distinct
   label pairs); one constraint moves at most ``s`` of its pairs (6.1, 6.2);
2. :func:`dpgraph.privatize` on ``L`` (the same routes as :func:`dpgraph.max_cut`: screening,
   randomized response, PCA; ``privatize_options={"route": ...}``) at ``(eps_p / s, delta_0)``,
   which group privacy turns into ``(eps_p, delta_p)`` for one constraint (6.3);
3. post-processing: every candidate objective of the release (:meth:`PrivateGraph.objective`,
   within-variable blocks zeroed) is solved by the degree-2 engine
   (:func:`dpgraph.engine.solve_label_csp`); every distinct rounding is a candidate assignment;
4. one candidate chosen by the monotone exponential mechanism on its value in the input
   (sensitivity 1; 6.4); its value released by the Laplace mechanism (sensitivity 1; 6.5).

Nothing returned is an unprivatized statistic of the input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from dpgraph.memory import format_bytes
from dpgraph.result import PrivateResult
from dpgraph.privacy import (PrivacyLedger, laplace_mechanism, make_rng, monotone_exponential_mechanism,
                      reproducible_tag, spent_text)
from dpgraph.privacy.budget import (CSP_ESTIMATE_SHARE, CSP_SELECT_SHARE, CSP_TOTAL_SHARE,
                                    answer_side_budgets, left)
from dpgraph.privacy.ledger import records_in_ledger, uncounted
from dpgraph.privacy.rng import child_rng
from dpgraph.privacy.validation import check_delta, check_epsilon, check_flag
from dpgraph.solve.candidates import candidate_objectives, check_privatize_keys, clamped_interval
from dpgraph.release.privatize import DEFAULT_RANK, PrivateGraph, privatize
from dpgraph.release.routes import route_names, route_spec

__all__ = ["PrivateCSPResult", "max_2csp", "group_privacy_delta", "rounded_label_graph",
           "block_posterior_weights", "dense_2csp_bytes"]

BLOCK_OBJECTIVE = "posterior-block"


def group_privacy_delta(epsilon: float, delta: float, s: int) -> float:
    r"""The per-pair delta ``delta_0`` whose s-fold group privacy is ``delta``.

    An ``(eps_0, delta_0)``-DP mechanism is ``(s eps_0, delta_0 sum_{t<s} e^{t eps_0})``-DP for
    inputs at distance s (docs/privacy.md 6.3); with ``eps_0 = epsilon / s`` this inverts it.

    >>> round(group_privacy_delta(1.0, 1e-6, 1), 12), group_privacy_delta(1e4, 1e-6, 3) >= 0
    (1e-06, True)
    """
    e0 = epsilon / s
    # in log space: exp(t e0) overflows from e0 of about 709 (a float's range)
    logs = [t * e0 for t in range(s)]
    top = max(logs)
    return delta * math.exp(-top) / math.fsum(math.exp(v - top) for v in logs)


def rounded_label_graph(instance, rng) -> sp.csr_array:
    """``L``: the label-extended adjacency clipped to [0, 1], each pair kept with probability
    equal to its weight (upper triangle drawn, mirrored). 0/1 symmetric, zero diagonal blocks.
    Deterministic for unit weights on distinct label pairs (docs/privacy.md 6.2).

    >>> from dpgraph.engine import CSPInstance
    >>> differ = {(0, 1), (1, 0)}  # "not equal" on two values
    >>> inst = CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, 1.0)])
    >>> L = rounded_label_graph(inst, rng=0)
    >>> (L != inst.label_adjacency()).nnz, L.nnz  # unit weights: exact, 2 x 2 pairs mirrored
    (0, 8)
    >>> half = CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, 0.5)])
    >>> L = rounded_label_graph(half, rng=0).toarray()
    >>> set(L.ravel().tolist()) <= {0.0, 1.0}, bool((L == L.T).all()), float(L[0, 3] + L[1, 2])
    (True, True, 2.0)
    """
    A = sp.triu(instance.label_adjacency(name_size=False), k=1).tocoo()
    p = np.minimum(A.data, 1.0)
    keep = p >= 1.0
    frac = ~keep
    child = child_rng(make_rng(rng))  # rng moves by the same amount whatever the weights (4.12)
    if frac.any():
        keep[frac] = child.random(int(frac.sum())) < p[frac]
    r, c = A.row[keep], A.col[keep]
    N = instance.n * instance.q
    U = sp.coo_array((np.ones(r.size), (r, c)), shape=(N, N))
    return sp.csr_array(U + U.T)


def block_posterior_weights(unbiased, p: float, n: int, q: int, s: int,
                            rho: float | None = None) -> np.ndarray:
    r"""Posterior-mean label weights under a constraint-block prior (post-processing).

    The randomized-response release ``Y`` of the label-extended graph (``unbiased`` is
    ``(Y - p)/(1 - 2p)`` with zero diagonal, so ``Y = [unbiased > 0]``) is read block by block:
    the :math:`q \times q` bits between variables i and j. Prior (empirical Bayes): the block
    holds a constraint with probability :math:`\rho`, and then each label pair is in its
    relation independently with probability :math:`\theta = s / q^2` (``s`` = the public
    ``relation_size``); otherwise the block is empty. With :math:`\ell_1(y) = (1-p)^y p^{1-y}`
    and :math:`\ell_0(y) = p^y (1-p)^{1-y}` (the bit's law given the pair on / off),

    .. math::
       P[\text{block on} \mid Y] = \frac{\rho \prod_e m_e}{\rho \prod_e m_e
       + (1-\rho) \prod_e \ell_0(Y_e)},\quad m_e = \theta\ell_1(Y_e) + (1-\theta)\ell_0(Y_e),

    and the weight of pair e is :math:`P[\text{block on} \mid Y]\, \theta\ell_1(Y_e) / m_e`,
    the posterior probability that e is an allowed pair of a constraint. The product over the
    block pools the q^2 bits of one constraint, which the pairwise de-biased release ignores.
    :math:`\rho` is the de-biased number of label pairs over :math:`\theta q^2 \binom n2`,
    clipped to [1e-4, 1 - 1e-4], unless given. A function of the release and of public n, q, s only: no
    privacy cost (docs/privacy.md 6.4). Within-variable blocks are 0.

    Examples
    --------
    >>> import numpy as np
    >>> p = 0.2
    >>> Y = np.zeros((4, 4)); Y[0, 2] = Y[2, 0] = Y[1, 3] = Y[3, 1] = 1  # x_1 = x_0, q = 2
    >>> U = (Y - p) / (1 - 2 * p); np.fill_diagonal(U, 0)
    >>> W = block_posterior_weights(U, p, 2, 2, 2)
    >>> bool(W[0, 2] > W[0, 3]), float(W[0, 1])
    (True, 0.0)
    """
    U = np.asarray(unbiased, dtype=np.float64)
    N = n * q
    if U.shape != (N, N):
        raise ValueError(f"unbiased must have shape ({N}, {N}), got {U.shape}")
    if not 0.0 <= p < 0.5:
        raise ValueError(f"flip probability must lie in [0, 1/2), got {p!r}")
    bit = U > 0
    # p = 0 (a pair's epsilon above about 745: no bit flipped) is the limit of small p; the
    # smallest normal float stands in for it so that the logarithms below stay finite
    pf = p if p > 0 else float(np.finfo(np.float64).tiny)
    l1 = np.where(bit, 1.0 - pf, pf)
    l0 = np.where(bit, pf, 1.0 - pf)
    theta = min(float(s) / (q * q), 1.0)
    mix = theta * l1 + (1.0 - theta) * l0
    pairs = n * (n - 1) / 2.0
    total = float(np.triu(U, k=1).sum())
    if rho is None:
        rho = float(np.clip(total / max(theta * q * q * pairs, 1e-300), 1e-4, 1.0 - 1e-4))
    elif not 0.0 < rho < 1.0:
        raise ValueError(f"rho must lie in (0, 1), got {rho!r}")
    lmix = np.log(mix).reshape(n, q, n, q).sum(axis=(1, 3))
    l0b = np.log(l0).reshape(n, q, n, q).sum(axis=(1, 3))
    odds = math.log(rho) - math.log1p(-rho) + lmix - l0b
    on = 1.0 / (1.0 + np.exp(-np.clip(odds, -700.0, 700.0)))
    W = np.repeat(np.repeat(on, q, axis=0), q, axis=1) * (theta * l1 / mix)
    block = np.arange(N) // q
    W[block[:, None] == block[None, :]] = 0.0
    return W


@dataclass(eq=False)
class PrivateCSPResult(PrivateResult):
    """Result of :func:`max_2csp`.

    Attributes
    ----------
    assignment : dict
        variable -> value in ``range(q)``, keyed by the instance's variable names
        (:attr:`~dpgraph.engine.CSPInstance.names`: a graph's node labels for Max-k-Cut), else
        by ``0..n-1``.
    estimated_value : float or None
        Its value in the input plus Laplace noise (sensitivity 1; docs/privacy.md 6.5),
        clamped to the feasible range ``[0, upper end of the released total weight]``
        (post-processing; ``diagnostics["released_total_weight"]``). None with
        ``estimate=False``.
    estimate_interval : tuple of float or None
        A ``estimate_level`` (95%) confidence interval for the assignment's true value: the
        clamped estimate ``+- b ln(1 / (1 - level))``, clamped like it (docs/privacy.md 6.5;
        never a point, :func:`dpgraph.solve.candidates.clamped_interval`).
    estimate_level : float
    synthetic_value : float or None
        Its value on the exported synthetic label-extended weights (post-processing; None on
        the local route, which releases labels, not weights).
    sdp_bound : float or None
        Certified relaxation bound of the released objective it came from (post-processing;
        None on the local route).
    ledger : PrivacyLedger
        Every charge, the privatize step as one group-privacy entry (its own per-pair ledger is
        ``private_graph.ledger``).
    private_graph : PrivateGraph or None
        The release of the label-extended graph (labels ``(i, a)``); None on the local route,
        which releases labels, not a graph.
    solver : dict or None
        The engine's output on the chosen objective; None on the local route.
    diagnostics : dict
        ``route``, ``objective``, ``candidates``, ...; on the local route ``order``: the
        variables in the order they were decided (by released constraint degree), named as in
        ``assignment``; ``requested_rank`` (and on the local
        route ``requested_relation_size``): the caller's values, None when not given (the repr
        says when the route did not use them); on the local route ``options_note`` where
        ``candidates`` or ``solver_options`` were given, which it does not read.

    Examples
    --------
    >>> from dpgraph.engine import CSPInstance
    >>> differ = {(0, 1), (1, 0)}  # a "not equal" constraint on two values
    >>> inst = CSPInstance(4, 2, [(0, 1, differ, 1.0), (1, 2, differ, 1.0), (2, 3, differ, 1.0)])
    >>> res = max_2csp(inst, epsilon=1.0, delta=1e-6)
    >>> sorted(res.assignment), set(res.assignment.values()) <= {0, 1}
    ([0, 1, 2, 3], True)
    >>> lo, hi = res.estimate_interval
    >>> bool(0.0 <= lo <= res.estimated_value <= hi)
    True
    """

    assignment: dict
    estimated_value: float | None
    synthetic_value: float | None
    sdp_bound: float | None
    ledger: PrivacyLedger
    private_graph: PrivateGraph | None
    solver: dict | None
    diagnostics: dict = field(default_factory=dict)
    estimate_interval: tuple | None = None
    estimate_level: float = 0.95

    def __repr__(self) -> str:
        d = self.diagnostics
        ci = ("" if self.estimate_interval is None
              else f" [{self.estimate_level:.0%} CI {self.estimate_interval[0]:.6g}, "
                   f"{self.estimate_interval[1]:.6g}]")
        parts = [f"n={len(self.assignment)}", f"route={d.get('route')!r}"]
        if self.estimated_value is not None:
            parts.append(f"estimated_value={self.estimated_value:.6g}{ci}")
        if self.synthetic_value is not None:
            parts.append(f"synthetic_value={self.synthetic_value:.6g}")
        # what was asked for and what the route used: a rank or relation_size the local route
        # ignores is said here, as the budget it left unspent is
        rank = None if self.private_graph is None else self.private_graph.rank
        asked = d.get("requested_rank")
        if rank is not None or asked is not None:
            text = f"rank={rank}"
            if asked is not None and asked != rank:
                text += f" of requested {asked}" + (
                    f" [the {d.get('route')} route releases no low-rank estimate]"
                    if rank is None else "")
            parts.append(text)
        if d.get("route") == "local" and d.get("requested_relation_size") is not None:
            parts.append(f"relation_size unused (requested {d['requested_relation_size']}) "
                         f"[the local route's noise does not depend on it]")
        parts.append(spent_text(self.ledger, d.get("unspent")))
        return f"PrivateCSPResult({', '.join(parts)}{reproducible_tag(self.ledger)})"


def _graph_hint(instance) -> str:
    """The hint of :func:`max_2csp`'s refusal when ``instance`` is a graph (a GraphData, a
    NetworkX or igraph graph, a SciPy sparse matrix): its Max-k-Cut is a 2-CSP instance."""
    from dpgraph.graph import GraphData

    library = type(instance).__module__.split(".")[0]
    if not (isinstance(instance, GraphData) or sp.issparse(instance)
            or library in ("networkx", "igraph")):
        return ""
    return ("; a graph's Max-k-Cut is the instance "
            "dpgraph.engine.max_k_cut_instance(graph, k) (its Max-Cut: dpgraph.max_cut)")


def _check_instance(instance, relation_size, *, local: bool = False):
    from dpgraph.engine import CSPInstance

    if not isinstance(instance, CSPInstance):
        raise TypeError(f"instance must be a dpgraph.engine.CSPInstance, got "
                        f"{type(instance).__name__}{_graph_hint(instance)}")
    n, q = instance.n, instance.q
    if n < 2:
        raise ValueError(f"max_2csp needs at least 2 variables, got {n}")
    s = q * q if relation_size is None else relation_size
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 1 <= s <= q * q:
        raise ValueError(f"relation_size must be an integer in [1, q*q = {q * q}], got {relation_size!r}")
    for k, (i, j, rel, w) in enumerate(instance.constraints):
        if not 0.0 <= w <= 1.0:
            raise ValueError(f"{instance.constraint_name(k)} has weight {w!r}; max_2csp protects "
                             f"instances whose constraint weights lie in [0, 1] (one constraint "
                             f"added or removed is the adjacency): divide every weight by a "
                             f"public bound on them, chosen without looking at the data")
        if not local and len(rel) > s:  # the local route needs no bound (docs/privacy.md 14.6)
            raise ValueError(f"{instance.constraint_name(k)} allows {len(rel)} label pairs, more "
                             f"than relation_size = {s} (the public bound of the adjacency)")
    return int(s)


#: one-sided level of the released total weight's upper end (docs/privacy.md 6.5): it falls
#: below the true total with probability at most ``1 - TOTAL_UPPER_LEVEL`` (0.1%), which the
#: interval's stated coverage accounts for
TOTAL_UPPER_LEVEL = 0.999


def _check_label_graph_fits(instance, alongside: int = 0) -> None:
    """Refuse, before the first charge, a label-extended graph that would not fit in memory
    with the ``alongside`` bytes held while it is (on a dense route, the larger of the
    release's phase and the private choice's: :func:`dense_2csp_bytes`).

    Its size follows the number of allowed label pairs over all constraints, which is private:
    built after the first release, its refusal came after a charge, and a refusal names no
    size (two neighbouring instances either side of the limit would be told apart by the
    number). Memory is outside the model (docs/privacy.md 11.1), as the instance itself, which
    the caller already holds, is."""
    from dpgraph.engine.twocsp import check_label_graph_memory

    check_label_graph_memory(instance.n, instance.q, instance.label_pairs, name_size=False,
                             alongside=alongside)


def _release_total_weight(instance, *, epsilon: float, ledger: PrivacyLedger, rng
                          ) -> tuple[float | None, float | None]:
    """The total constraint weight (Laplace, sensitivity 1: one constraint of weight <= 1;
    docs/privacy.md 6.5) and its one-sided ``TOTAL_UPPER_LEVEL`` upper end (post-processing):
    ``P[Laplace(b) < -t] = exp(-t / b) / 2``, so ``t = b ln(1 / (2 (1 - level)))``. Nothing
    is released (``(None, None)``) at ``epsilon=0``: without an estimate it is not needed."""
    if epsilon == 0:
        return None, None
    total = float(np.asarray(instance.variable_weights(), dtype=np.float64).sum()) / 2.0
    noisy, b = laplace_mechanism(
        total, sensitivity=1.0, epsilon=epsilon, ledger=ledger, rng=rng,
        name="total constraint weight",
        note="one constraint of weight <= 1 moves the total by <= 1 (docs/privacy.md 6.5)")
    noisy = float(noisy)
    return noisy, max(noisy, 0.0) + b * math.log(1.0 / (2.0 * (1.0 - TOTAL_UPPER_LEVEL)))


def _release_value(value: float, *, epsilon: float, upper: float, ledger: PrivacyLedger, rng,
                   level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The Laplace estimate of a fixed assignment's value (sensitivity 1; docs/privacy.md 6.5)
    and its ``level`` interval ``+- b ln(1 / (1 - level))``, both clamped to ``[0, upper]``
    (post-processing)."""
    noisy, b = laplace_mechanism(
        float(value), sensitivity=1.0, epsilon=epsilon, ledger=ledger,
        name="value of the returned assignment", rng=rng,
        note="fixed assignment; one constraint of weight <= 1 (docs/privacy.md 6.5)")
    # centred on the clamped estimate: never a point where the draw falls beyond [0, upper]
    return clamped_interval(noisy, b * math.log(1.0 / (1.0 - level)), upper)


def _check_local_memory(instance) -> None:
    """Refuse, before any draw or allocation, a local-route answer whose public sizes would not
    fit: the label-extended graph's ``n q`` vectors (:func:`dpgraph.engine.twocsp.label_graph_bytes`
    without pairs) and per variable its constraint weights, the assignment returned and its
    name in ``diagnostics["order"]`` (about 130 B measured at ``n = 10^5``; 200 B priced).
    From the public ``n`` and ``q`` only (docs/privacy.md 11.1): the constraints' pairs are
    private, and the label-extended graph prices them itself when it is built."""
    from dpgraph.engine.twocsp import label_graph_bytes
    from dpgraph.memory import check_memory

    n, q = instance.n, instance.q

    def cost(k):
        return label_graph_bytes(k, q, 0) + 200 * k

    check_memory(cost(n), what=f"max_2csp's local route on {n:,} variables over {q:,} values",
                 fit=(cost, "At most {:,} variables fit."))


def _max_2csp_local(instance, *, ledger: PrivacyLedger, rng, estimate_share: float,
                    requested: dict | None = None, estimate: bool = True):
    """Max-2-CSP on the degree-ordered local route (docs/privacy.md 14.6): labels chosen one
    variable at a time by the exponential mechanism on the weight of the constraints to decided
    variables (each constraint read once), then the Laplace estimate of the assignment's value
    (6.5). Pure epsilon-DP, no group privacy: one constraint moves one variable's scores by at
    most its weight, whatever its relation."""
    from dpgraph.engine.twocsp_sdp import label_values
    from dpgraph.release.routes.local import release_local_labels

    _check_local_memory(instance)  # before any draw or allocation of size n q
    epsilon = ledger.epsilon
    eps_total, eps_estimate = ((CSP_TOTAL_SHARE * epsilon, estimate_share * epsilon)
                               if estimate else (0.0, 0.0))
    # built before the first release, so that a memory refusal never follows a charge (11.1)
    A_true = instance.label_adjacency(name_size=False)  # NOT private: read through releases only
    total, upper = _release_total_weight(instance, epsilon=eps_total, ledger=ledger, rng=rng)
    x, order = release_local_labels(A_true, instance.variable_weights(), instance.q,
                                    epsilon=left(epsilon, eps_total, eps_estimate),
                                    ledger=ledger, rng=rng)
    estimate, interval = None, None
    if eps_estimate > 0:
        estimate, interval = _release_value(
            float(label_values(A_true, x[None, :], instance.q)[0]), epsilon=eps_estimate,
            upper=upper, ledger=ledger, rng=rng)
    del A_true
    return PrivateCSPResult(
        assignment=dict(zip(instance.variables, map(int, x))), estimated_value=estimate,
        estimate_interval=interval,
        synthetic_value=None, sdp_bound=None, ledger=ledger, private_graph=None, solver=None,
        diagnostics={"route": "local", "order": _names_in_order(instance.variables, order),
                     "objective": "local decisions",
                     "candidates": ("local decisions",), "candidate_assignments": 1,
                     "released_total_weight": total,
                     "unspent": "pure epsilon-DP route: delta is not spent",
                     **{f"requested_{k}": v for k, v in (requested or {}).items()}})


def _max_2csp_forced(instance, *, ledger: PrivacyLedger, rng, estimate_share: float,
                     requested: dict | None = None, estimate: bool = True):
    """Max-2-CSP over a one-value alphabet (``q = 1``): every variable takes value 0, the only
    assignment, returned without reading the constraints. With ``estimate``, the total weight
    and the assignment's value are released as on every route (docs/privacy.md 6.5, 6.6), the
    value with the whole budget the total weight leaves (no release or choice needs a share,
    so ``estimate_share`` is not read); without, nothing is spent."""
    epsilon = ledger.epsilon
    eps_total = CSP_TOTAL_SHARE * epsilon if estimate else 0.0
    eps_estimate = left(epsilon, eps_total) if estimate else 0.0
    x = np.zeros(instance.n, dtype=np.int64)
    total, upper = _release_total_weight(instance, epsilon=eps_total, ledger=ledger, rng=rng)
    value, interval = None, None
    if eps_estimate > 0:
        value, interval = _release_value(instance.value(x), epsilon=eps_estimate, upper=upper,
                                         ledger=ledger, rng=rng)
    return PrivateCSPResult(
        assignment=dict.fromkeys(instance.variables, 0), estimated_value=value,
        estimate_interval=interval, synthetic_value=None, sdp_bound=None, ledger=ledger,
        private_graph=None, solver=None,
        diagnostics={"route": "forced", "objective": "forced (q = 1)",
                     "candidates": ("forced (q = 1)",), "candidate_assignments": 1,
                     "released_total_weight": total,
                     "unspent": "q = 1: the answer is forced (every variable takes value 0) "
                                + ("and the budget goes to its estimate, pure epsilon-DP: delta "
                                   "is not spent" if estimate
                                   else "and estimate=False: nothing is drawn"),
                     **{f"requested_{k}": v for k, v in (requested or {}).items()}})


def _names_in_order(variables, order: np.ndarray) -> tuple:
    """The variables' names (``range(n)`` or :attr:`CSPInstance.names`) at the positions
    ``order``, as the assignment names them (Python ints for an unnamed instance)."""
    if isinstance(variables, range):
        return tuple(order.tolist())
    return tuple(variables[i] for i in order.tolist())


def _objective_names(pg, candidates, rank, *, block_informative: bool = True) -> tuple:
    """The objectives to solve: ``candidates`` as in :func:`dpgraph.max_cut`, plus
    ``"posterior-block"`` (asked for by name, or by ``"auto"`` on the randomized-response route
    where ``block_informative``: with ``relation_size = q*q`` the block prior puts every pair
    of an active block in the relation, so the pairs of a block share one weight and every
    assignment has the same value; its solve would only add arbitrary candidates to the
    private choice)."""
    if isinstance(candidates, str):
        asked = [candidates]
    else:
        try:
            asked = list(candidates)
        except TypeError:
            raise ValueError(f"candidates must be 'auto', an objective name or a sequence of "
                             f"names, got {candidates!r}") from None
    rr = pg.unbiased is not None
    if BLOCK_OBJECTIVE in asked and not rr:
        raise ValueError(f"objective {BLOCK_OBJECTIVE!r} needs the randomized-response route; "
                         f"this release took {pg.diagnostics.get('route')!r}")
    others = [c for c in asked if c != BLOCK_OBJECTIVE]
    names = ()
    if others:
        try:
            names = candidate_objectives(pg, others[0] if len(others) == 1 else others, rank)
        except ValueError:
            offered = (*pg.objective_names(rank), *((BLOCK_OBJECTIVE,) if rr else ()))
            raise ValueError(f"candidates={candidates!r}: this release "
                             f"({pg.diagnostics.get('route')} route) offers {offered}") from None
    if rr and (BLOCK_OBJECTIVE in asked or (asked == ["auto"] and block_informative)):
        names = (*names, BLOCK_OBJECTIVE)
    if not names:
        raise ValueError(f"candidates={candidates!r} names no objective")
    return names


def _check_dense_release(N: int, rank: int, privatize_options: dict | None) -> None:
    """Refuse, before any draw, a route that does not release the label-extended graph's dense
    ``N x N`` objective (``N = n q``), which the solver and the synthetic value read, or a dense
    release that does not fit in memory. Uses public ``N``, the requested route and the machine's
    memory only."""
    from dpgraph.release.routes import check_memory, route_module

    route = (privatize_options or {}).get("route")
    if route is not None and route not in route_names():
        route_spec(route)  # names the routes there are
    if route not in route_names() or not route_spec(route).dense:
        raise ValueError(f"max_2csp solves the label-extended graph's dense n q x n q objective; "
                         f"privatize_options route={route!r} does not release one: leave the "
                         f"route unset (the local route), or use 'pca' or 'randomized-response'")
    check_memory(route_module(route).estimated_memory(N, 0, rank),
                 what=f"max_2csp's dense release ({route}) of {N:,} label pairs",
                 alternative="Leave privatize_options' route unset (the local route, O(m)), or "
                             "use fewer variables or labels.")


def solved_objectives(route: str, N: int, rank: int, candidates, *,
                      block_informative: bool) -> int:
    """How many objectives :func:`max_2csp` solves on ``route``'s release of the label-extended
    graph (``N = n q`` labels), from public values only, as :func:`_objective_names` picks them:
    ``"auto"``: the objectives the route declares (:class:`~dpgraph.release.routes.RouteSpec`'s
    ``objectives``; where they follow the release, randomized response's, which depend on
    ``N`` and ``rank``), the de-biased release alone above ``ONE_OBJECTIVE_ABOVE_N`` labels,
    plus ``"posterior-block"`` where the block posterior informs (``relation_size < q*q``) on
    such a route; named objectives: one solve each.

    >>> solved_objectives("randomized-response", 90, 8, "auto", block_informative=False)
    4
    >>> solved_objectives("randomized-response", 90, 8, "auto", block_informative=True)
    5
    >>> solved_objectives("pca", 90, 8, "auto", block_informative=True)
    1
    """
    from dpgraph.release.private_graph import randomized_response_objectives
    from dpgraph.solve.candidates import auto_objectives

    asked = [candidates] if isinstance(candidates, str) else list(candidates)
    declared = route_spec(route).objectives
    if asked == ["auto"]:
        offered = declared or randomized_response_objectives(N, rank)
        return len(auto_objectives(offered, N)) + int(declared is None and block_informative)
    return len([c for c in asked if c != BLOCK_OBJECTIVE]) + int(BLOCK_OBJECTIVE in asked)


#: N x N float64 arrays held while :func:`max_2csp`'s engine solves one objective of a dense
#: release (N = n q): the release's own (``PrivateGraph.unbiased`` on the randomized-response
#: route, ``projected`` on the PCA route: 8 B per N^2 held after the release, measured on both)
#: and the objective being solved (a copy); one more, the projection, with
#: ``privatize_options["rr_postprocess"] = "low-rank"``.
DENSE_SOLVE_HELD_COPIES = 2


def _engine_options(solver_options) -> dict:
    """The options of :func:`~dpgraph.engine.twocsp_sdp.solve_label_csp` that set its memory
    (``rank``, ``samples``, ``seeds``, ``tabu_moves``, ``certificate``), as a solve takes them."""
    import inspect

    from dpgraph.engine.twocsp_sdp import solve_label_csp

    defaults = inspect.signature(solve_label_csp).parameters
    return {k: (solver_options or {}).get(k, defaults[k].default)
            for k in ("rank", "samples", "seeds", "tabu_moves", "certificate")}


def _dense_phases(n: int, q: int, route: str, rank: int, s: int, candidates,
                  solver_options, privatize_options=None) -> dict:
    """The terms of :func:`dense_2csp_bytes`, in bytes: ``release``, ``copies`` (the
    ``N x N`` arrays held through a solve, ``objective`` the copy of the one solved among
    them), ``engine`` (one solve's factors and candidates, with the dense objective's
    absolute value taken on the way), ``finished`` (what one finished solve holds for the
    pooled choice), ``certificate`` (with the factor it certifies), ``values`` (the values of
    every pooled candidate at the choice) and ``load`` (numba's); and the certificate's
    ``method`` and the ``objectives`` solved."""
    from dpgraph.engine.local_search import kernel_load_bytes
    from dpgraph.engine.twocsp import (LABEL_CANDIDATE_VALUE_BYTES, LABEL_POLISHED_CANDIDATES,
                                       label_candidates, label_certificate_bytes,
                                       label_certificate_method, label_engine_bytes)
    from dpgraph.engine.twocsp_sdp import default_label_rank
    from dpgraph.privacy.validation import check_integer
    from dpgraph.release.routes import route_module

    opts = _engine_options(solver_options)
    samples = check_integer(opts["samples"], name="samples", low=0)
    seeds = check_integer(opts["seeds"], name="seeds", low=0)
    k = None if opts["rank"] is None else check_integer(opts["rank"], name="rank", low=2)
    method = label_certificate_method(n, q, opts["certificate"])
    N = n * q
    objectives = max(solved_objectives(route, N, rank, candidates, block_informative=s < q * q),
                     1)
    copies = DENSE_SOLVE_HELD_COPIES + int((privatize_options or {}).get("rr_postprocess")
                                           == "low-rank")

    def engine(count):
        return label_engine_bytes(n, q, rank=k, samples=samples, seeds=seeds, objectives=count)

    width = default_label_rank(n, q) if k is None else k
    pooled = objectives * (label_candidates(n, q, samples=samples, seeds=seeds)
                           + LABEL_POLISHED_CANDIDATES)
    return {"release": route_module(route).estimated_memory(N, 0, rank),
            "copies": 8 * copies * N * N, "objective": 8 * N * N,
            "engine": engine(1) + 8 * N * N,
            "finished": engine(2) - engine(1),
            # the factor V and the parameters it came from, held while it is certified
            "certificate": label_certificate_bytes(n, q, method=method, rank=k) + 16 * N * width,
            "values": LABEL_CANDIDATE_VALUE_BYTES * N * pooled,
            "load": kernel_load_bytes() if opts["tabu_moves"] or method == "ldl" else 0,
            "method": method, "objectives": objectives}


def _dense_peaks(p: dict) -> dict:
    """The bytes of :func:`dense_2csp_bytes`' three phases (``release``, ``solve``,
    ``choice``) from its terms (:func:`_dense_phases`), numba's load aside."""
    held = p["objectives"] * p["finished"]  # every solve's results, at the latest
    return {"release": p["release"] + held,
            "solve": p["copies"] + held - p["finished"] + max(p["engine"], p["certificate"]),
            # the objective's copy is freed before the choice
            "choice": p["copies"] - p["objective"] + held + p["values"]}


def _dense_total(p: dict) -> int:
    """:func:`dense_2csp_bytes` from its terms (:func:`_dense_phases`)."""
    return int(p["load"] + max(_dense_peaks(p).values()))


def dense_2csp_bytes(n: int, q: int, *, route: str, rank: int | None = None,
                     relation_size: int | None = None, candidates="auto",
                     solver_options: dict | None = None,
                     privatize_options: dict | None = None) -> int:
    r"""Bytes :func:`max_2csp` holds at its peak on the dense ``route`` (``"randomized-response"``
    or ``"pca"``) for ``n`` variables over ``q`` values, from public values only (those of
    :func:`max_2csp`: the release ``rank``, default 8, ``relation_size``, default ``q*q``,
    ``candidates``, ``solver_options`` and ``privatize_options``). With ``N = n q`` labels and
    ``H`` what the finished solves hold for the pooled choice (their factors and candidates: the
    part of :func:`~dpgraph.engine.twocsp.label_engine_bytes` beyond one solve, for each of the
    :func:`solved_objectives`), the largest of three phases that never overlap:

    * the release and the objectives made from it: the route's ``estimated_memory(N, 0, rank)``
      (randomized response: 56 B per :math:`N^2`, its de-biased release and the posterior
      objectives computed from it), with ``H``;
    * one objective's solve: ``DENSE_SOLVE_HELD_COPIES`` :math:`N \times N` arrays (the
      release's and the objective's; one more with ``rr_postprocess="low-rank"``, whose
      release keeps its projection too), the earlier solves' share of ``H``, and the larger of
      the engine's working set (:func:`~dpgraph.engine.twocsp.label_engine_bytes` of one solve,
      with the objective's absolute value, 8 B per :math:`N^2`) and the certificate of the
      relaxation's bound with the factor it certifies
      (:func:`~dpgraph.engine.twocsp.label_certificate_bytes`, whose proof
      :func:`~dpgraph.engine.twocsp.label_certificate_method` picks from ``n``, ``q`` and
      ``solver_options["certificate"]``, and which the solves are then asked for);
    * the private choice: the release's arrays, ``H``, and the values of every pooled candidate
      (``LABEL_CANDIDATE_VALUE_BYTES`` per label and candidate,
      :func:`~dpgraph.engine.twocsp.label_candidates` of them per solve);

    plus numba's first load where a kernel runs (``tabu_moves``, or the sparse proof:
    :func:`~dpgraph.engine.local_search.kernel_load_bytes`). The release's arrays stay held
    while the engine runs, and the engine's results while the next objective is made: their
    bytes are added, not compared with the memory apart. The label-extended graph, whose size
    is private, is priced on top where it is held (``_check_label_graph_fits``). Measured
    against tracemalloc's peak of whole calls (benchmarks/NOTES.md, "max_2csp priced as a
    whole"): 1.13-1.5 times it (the upper end on the sparse proof, and on the PCA route, whose
    objective stores fewer entries than the dense one priced); with ``samples`` far above the
    default on few variables, up to 1.9 times (the candidates are counted before
    de-duplication, as :func:`~dpgraph.engine.twocsp.label_engine_bytes` counts them).

    >>> price = dense_2csp_bytes(300, 3, route="randomized-response")
    >>> price > 56 * 900 ** 2  # more than the release alone: the certificate
    True
    >>> dense_2csp_bytes(300, 3, route="randomized-response",
    ...                  solver_options={"samples": 10**5}) > price
    True
    """
    s = q * q if relation_size is None else int(relation_size)
    rank = max(1, min(DEFAULT_RANK, n * q - 2)) if rank is None else int(rank)
    return _dense_total(_dense_phases(int(n), int(q), route, rank, s, candidates,
                                      solver_options, privatize_options))


def _dense_fit_hint(cost, have, n: int, q: int, solver_options):
    """``check_memory``'s ``fit`` for a dense-route call that does not fit: the ``samples``
    that would (where the rest fits with none), else the engine ``rank`` (where one was
    given), else the number of variables (the same ``q`` and options); None where nothing
    does. ``cost(n=..., **solver_options)`` is :func:`dense_2csp_bytes` of the call."""
    from dpgraph.memory import largest_fitting

    if have is None or cost() <= have:
        return None
    if cost(samples=0) <= have:
        return (lambda x: cost(samples=x), "At most samples={:,} fits with these options, the "
                                           "release and the certificates.")
    if _engine_options(solver_options)["rank"] is not None and cost(rank=2) <= have:
        return (lambda x: cost(rank=max(x, 2)), "At most rank={:,} (solver_options) fits.")
    if largest_fitting(lambda k: cost(n=max(k, 2)), have, low=2, high=n) >= 2:
        return (lambda k: cost(n=max(k, 2)), f"At most {{:,}} variables over {q:,} values fit "
                                             f"with these options.")
    return None


def _check_dense_memory(instance, route: str, rank: int, s: int, solver_options, candidates,
                        privatize_options) -> tuple[str, int]:
    """Refuse, before anything is spent, a dense-route call whose peak
    (:func:`dense_2csp_bytes`: the release, the solves, their certificates, the private
    choice and numba's first load, added where they are held at once) would not fit, naming
    the ``samples``, the engine ``rank`` or the number of variables that would
    (:func:`_dense_fit_hint`). The certificate is most of that peak at the default options
    (at 300 variables x 3 values, 54 of 67 MiB traced), ``samples`` in the tens of thousands
    gigabytes of candidates. Returns the certificate's proof the solves are to run, and the
    bytes held beside the label-extended graph while it is (the release's phase and the
    choice's)."""
    from dpgraph.memory import check_memory, memory_limit

    n, q = instance.n, instance.q

    def cost(n=n, **options):
        return dense_2csp_bytes(n, q, route=route, rank=rank, relation_size=s,
                                candidates=candidates,
                                solver_options={**(solver_options or {}), **options},
                                privatize_options=privatize_options)

    p = _dense_phases(n, q, route, rank, s, candidates, solver_options, privatize_options)
    what = (f"max_2csp on the {route} route with {n:,} variables x {q:,} values (the release "
            f"of the {n * q:,}-label graph, {p['objectives']} objective solve(s) and the "
            f"'{p['method']}' certificate of each bound, N_r = {n * (q - 1) + 1:,}"
            + (f", numba's first load in this process, {format_bytes(p['load'])}" if p["load"]
               else "") + ")")
    alternative = ("Nothing was spent. Leave the route unset (the local route, O(m)), or use "
                   "fewer variables or labels."
                   + (" DPGRAPH_NO_NUMBA=1 runs the kernels without numba." if p["load"]
                      else ""))
    check_memory(cost(), what=what, alternative=alternative,
                 fit=_dense_fit_hint(cost, memory_limit()[0], n, q, solver_options))
    peaks = _dense_peaks(p)  # the label-extended graph is held at the release and the choice
    return p["method"], int(p["load"] + max(peaks["release"], peaks["choice"]))


def _check_engine_options(candidates, solver_options) -> None:
    """Refuse, before any draw, engine options :func:`~dpgraph.engine.twocsp_sdp.solve_label_csp`
    does not take and objective names no route offers (a misspelt name was silently ignored
    on the local route)."""
    from dpgraph.engine.twocsp_sdp import solve_label_csp
    from dpgraph.solve.candidates import check_candidate_names, check_solver_options

    check_solver_options(solve_label_csp, solver_options, fixed=("A", "n", "q", "rng"),
                         name="dpgraph.engine.solve_label_csp")
    check_candidate_names(candidates, extra=(BLOCK_OBJECTIVE,))


def _unused_on_local(candidates, solver_options) -> str:
    """``candidates`` and ``solver_options`` given away from their defaults (which the local
    route does not read; ``solver_options``' ``progress`` key, which only silences a display,
    is not named), as ``"candidates=..., solver_options=..."``; empty when there is none."""
    if solver_options:
        solver_options = {k: v for k, v in solver_options.items() if k != "progress"}
    given = [("candidates", candidates, isinstance(candidates, str) and candidates == "auto"),
             ("solver_options", solver_options, not solver_options)]
    return ", ".join(f"{name}={value!r}" for name, value, default in given if not default)


def _precheck_dense_options(route: str, candidates, solver_options, privatize_options,
                            pair_delta: float) -> None:
    """Refuse, before any draw, what the dense branch would refuse only after spending (docs/
    privacy.md 11.1): engine options :func:`~dpgraph.engine.twocsp_sdp.solve_label_csp` does
    not take, objective names no route offers, and a per-pair delta that group privacy drives
    to 0 on a route that needs one (``privatize_options``' keys: :func:`~dpgraph.solve.candidates.check_privatize_keys`,
    on every route)."""
    from dpgraph.solve.candidates import check_route_objectives

    _check_engine_options(candidates, solver_options)
    check_route_objectives(route, candidates)
    if pair_delta <= 0 and not route_spec(route).pure:
        raise ValueError(f"epsilon is so large that group privacy leaves each label pair a "
                         f"delta that rounds to 0, which route={route!r} cannot use; use "
                         f"route='randomized-response' (pure) or a smaller epsilon")


@records_in_ledger
def max_2csp(instance, *, epsilon: float, delta: float, rank: int | None = None, rng=None,
             relation_size: int | None = None, estimate_share: float = CSP_ESTIMATE_SHARE,
             select_share: float = CSP_SELECT_SHARE, candidates="auto", solver_options: dict | None = None,
             privatize_options: dict | None = None,
             route: str | None = None, estimate: bool = True) -> PrivateCSPResult:
    """Edge-(epsilon, delta)-DP Max-2-CSP: the constraints are private (docs/privacy.md 6).

    By default (``privatize_options`` without a ``route``, or ``route="local"``) the
    degree-ordered local route labels the variables one by one (docs/privacy.md 14.6; pure
    epsilon-DP, ``relation_size``, ``rank``, ``candidates`` and ``select_share`` unused). With
    ``privatize_options={"route": ...}`` naming a spectral or randomized-response route, the
    label-extended graph is privatized with group privacy over ``relation_size`` pairs and
    solved by the engine (the steps of the module docstring).

    Parameters
    ----------
    instance : dpgraph.engine.CSPInstance
        Constraint weights must lie in [0, 1]. With ``q = 1`` the answer is forced (every
        variable takes value 0): it is returned without a release, and with ``estimate`` the
        whole budget goes to its estimate (the total weight's 0.5% and the value's rest; delta
        unspent; ``diagnostics["route"]`` is ``"forced"``; docs/privacy.md 6.6).
    epsilon, delta : float
        Budget for one constraint added or removed (``delta=0``: pure DP, the local route).
    rank : int or None
        Rank of the private release of the label-extended graph (:func:`dpgraph.privatize`;
        spectral routes). None (default): 8, capped at ``n q - 2`` on tiny instances.
    rng : None, int or numpy.random.Generator
    relation_size : int, optional
        Public bound s on the number of allowed label pairs of one constraint (default
        ``q*q``) on the spectral and randomized-response routes; the release costs group
        privacy over s pairs, so a tight bound (e.g. q for permutation constraints,
        ``q*(q-1)`` for "not equal") is worth giving. Not used on the local route, which
        accepts any relation (docs/privacy.md 14.6).
    estimate_share, select_share : float
        Fractions of epsilon for the Laplace estimate (6.5) and the private choice (6.4); a
        further 0.5% releases the total constraint weight, which bounds the estimate's range;
        the rest goes to the release. ``estimate=False`` spends neither the estimate's share
        nor the total weight's.
    candidates : "auto", str or sequence of str
        Objectives of the release to solve (:meth:`PrivateGraph.objective_names`, and
        ``"posterior-block"``, :func:`block_posterior_weights`, on the randomized-response
        route); ``"auto"``: those :func:`dpgraph.max_cut` would solve plus ``"posterior-block"``
        where the route is randomized response and ``relation_size`` is below ``q*q`` (at
        ``q*q`` its prior allows every pair of a block, and it values every assignment alike).
    solver_options : dict
        Passed to :func:`dpgraph.engine.solve_label_csp`. The local route reads neither this
        nor ``candidates``: unknown names and options are refused there too, and values given
        are named in ``diagnostics["options_note"]``. On a dense route the whole call (the
        release, the solves with their certificates, the private choice) is priced from
        public values before anything is spent (:func:`dense_2csp_bytes`), and ``certificate``
        (default ``"auto"``) is resolved then, from ``n`` and ``q``
        (:func:`~dpgraph.engine.twocsp.label_certificate_method`): the solves run that proof.
    privatize_options : dict
        Passed to :func:`dpgraph.privatize` (e.g. ``route``, ``rr_postprocess``). Default
        ``synthetic_share=None``: like :func:`dpgraph.max_cut`, no synthetic block model is
        released, so the route keeps the whole release budget (``"auto"`` would spend 30% of it
        on an export ``max_2csp`` never uses).
    route : {"auto", "local", "randomized-response", "pca"}, optional
        Overrides ``privatize_options["route"]``, as in :func:`dpgraph.max_cut`.
    estimate : bool
        Release the private estimate of the returned assignment's value (default True), as
        :func:`dpgraph.max_cut` does; with False, ``estimated_value`` and
        ``estimate_interval`` are None and their budget goes to the assignment.
    ledger : PrivacyLedger, optional
        A running budget for several calls: the call is refused before anything is spent
        unless its ``(epsilon, delta)`` fits in ``ledger.remaining``, and its charges are
        recorded there on return (:func:`dpgraph.privacy.ledger.records_in_ledger`).

    Returns
    -------
    PrivateCSPResult

    Examples
    --------
    >>> import numpy as np
    >>> from dpgraph.engine import CSPInstance
    >>> rng = np.random.default_rng(0)
    >>> cons = [(i, j, {(a, b) for a in range(3) for b in range(3) if a != b}, 1.0)
    ...         for i in range(30) for j in range(i + 1, 30) if rng.random() < 0.3]
    >>> res = max_2csp(CSPInstance(30, 3, cons), epsilon=2.0, delta=1e-6, rank=2, rng=1,
    ...                relation_size=6)
    >>> sorted(set(res.assignment.values())) <= [0, 1, 2], res.ledger.spent[0] <= 2.0
    (True, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    estimate = check_flag(estimate, name="estimate")
    check_privatize_keys(privatize_options, caller="max_2csp")
    if route is not None:
        privatize_options = {**(privatize_options or {}), "route": route}
    route = (privatize_options or {}).get("route", "auto")
    local = route == "auto" or (route in route_names() and route_spec(route).answers == "sides")
    requested = {"rank": rank, "relation_size": relation_size}  # as the caller gave them
    s, rank = _checked_call(instance, relation_size, estimate_share, select_share, rank,
                            local=local)
    forced = instance.q == 1  # one value: every variable takes it, nothing to release
    if forced and not local:
        _check_dense_release(instance.n, 1, privatize_options)  # a route max_2csp takes
    share = (1.0 - CSP_TOTAL_SHARE) if forced else estimate_share  # forced: all to the value
    _check_sampler_range(epsilon, share if estimate else 0.0, local=local and not forced)
    if local or forced:  # names and options not read: refused if no route takes them
        _check_engine_options(candidates, solver_options)
    gen = make_rng(rng)
    ledger = PrivacyLedger(epsilon=epsilon, delta=delta)
    if local or forced:
        run = _max_2csp_forced if forced else _max_2csp_local
        res = run(instance, ledger=ledger, rng=gen, estimate_share=estimate_share,
                  requested=requested, estimate=estimate)
        unused = _unused_on_local(candidates, solver_options)
        if unused:  # said, not silently dropped (as max_cut says it)
            res.diagnostics["options_note"] = (
                f"{unused} not used: they shape the solves of a dense route's release, and "
                + ("with q = 1 the answer is forced" if forced
                   else "the local route labels one variable at a time"))
        return res
    if delta == 0 and not route_spec(route).pure:
        raise ValueError(f"delta=0 asks for pure epsilon-DP: leave privatize_options['route'] "
                         f"unset (the local route) or use 'randomized-response' (pure) instead "
                         f"of {route!r}, or pass delta > 0")
    _check_dense_release(instance.n * instance.q, rank, privatize_options)  # before any draw
    eps_select, eps_estimate = answer_side_budgets(epsilon, select_share, estimate_share)
    eps_total = CSP_TOTAL_SHARE * epsilon
    if not estimate:  # the total weight only bounds the estimate's range
        eps_estimate = eps_total = 0.0
    eps_p = left(epsilon, eps_total, eps_select, eps_estimate)
    _precheck_dense_options(route, candidates, solver_options, privatize_options,
                            group_privacy_delta(eps_p, delta, s))
    certificate, beside = _check_dense_memory(instance, route, rank, s, solver_options,
                                              candidates, privatize_options)
    _check_label_graph_fits(instance, alongside=beside)  # private size: after the public checks
    _precheck_label_release(instance.n * instance.q, s, rank, eps_p, delta, privatize_options)
    total, upper = _release_total_weight(instance, epsilon=eps_total, ledger=ledger, rng=gen)
    pg, dlt_0 = _release_label_graph(instance, s, rank, eps_p, delta, privatize_options,
                                     ledger, gen)
    names = _objective_names(pg, candidates, rank, block_informative=s < instance.q ** 2)
    outs = _solve_label_objectives(pg, names, instance.n, instance.q, s,
                                   {**(solver_options or {}), "certificate": certificate}, gen)
    pool, owner = _assignment_pool(outs)
    chosen, estimate, interval = _choose_and_estimate(instance, pool, names, eps_select,
                                                      eps_estimate, upper, ledger, gen)
    x = pool[chosen]
    res = outs[owner[chosen]]
    return PrivateCSPResult(
        assignment=dict(zip(instance.variables, map(int, x))), estimated_value=estimate,
        estimate_interval=interval,
        synthetic_value=_synthetic_value(pg, x, instance.n, instance.q),
        sdp_bound=float(res["upper_bound"]), ledger=ledger, private_graph=pg, solver=res,
        diagnostics={"route": pg.diagnostics.get("route"), "relation_size": s,
                     "requested_rank": requested["rank"],
                     "pair_epsilon": eps_p / s, "pair_delta": dlt_0,
                     "released_total_weight": total,
                     "objective": names[owner[chosen]], "candidates": names,
                     "candidate_assignments": int(pool.shape[0]),
                     **({"unspent": "pure epsilon-DP route: delta is not spent"}
                        if route_spec(route).pure and delta > 0 else {})})


def _checked_call(instance, relation_size, estimate_share, select_share, rank, *,
                  local: bool = False):
    """The public bound ``s`` and the rank, with every refusal that needs no release (no
    relation is too large for the local route: docs/privacy.md 14.6)."""
    s = _check_instance(instance, relation_size, local=local)
    for name, v in (("estimate_share", estimate_share), ("select_share", select_share)):
        if not 0 < float(v) < 1:
            raise ValueError(f"{name} must lie strictly between 0 and 1, got {v!r}")
    if estimate_share + select_share >= 1:
        raise ValueError("estimate_share + select_share must be < 1 (the rest privatizes)")
    N = instance.n * instance.q
    if instance.q == 1:  # the answer is forced: no release, whose rank a caller's is not
        return s, rank
    if rank is None:
        rank = max(1, min(DEFAULT_RANK, N - 2))
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 1 <= rank < N - 1:
        raise ValueError(f"rank must be an integer in [1, n q - 2 = {N - 2}], got {rank!r}")
    return s, rank


def _check_sampler_range(epsilon: float, estimate_share: float, *, local: bool) -> None:
    """Refuse, before anything is drawn, an epsilon at which one of :func:`max_2csp`'s Laplace
    releases falls below the exact sampler's range (as :func:`dpgraph.max_cut` does): the total
    weight and the estimate (6.5; none without an estimate) and, on the local route, the
    constraint degrees (14.6; at most 2 coordinates moved). The dense routes' release is
    checked by :func:`dpgraph.privatize` itself before it draws."""
    from dpgraph.privacy.noise import check_laplace_shares
    from dpgraph.release.routes.local import DEGREE_SHARE

    total = CSP_TOTAL_SHARE if estimate_share > 0 else 0.0
    releases = [("the total constraint weight", total, 1),
                ("the estimate of the assignment's value (estimate_share)", estimate_share, 1)]
    if local:
        rest = 1.0 - total - estimate_share
        releases.append(("the local route's constraint degrees", DEGREE_SHARE * rest, 2))
    check_laplace_shares(epsilon, releases, caller="max_2csp")


def _block_mask(n: int, q: int) -> np.ndarray:
    """``N x N`` mask of the label pairs of one variable (public: no constraint relates a
    variable to itself)."""
    block = np.arange(n * q) // q
    return block[:, None] == block[None, :]


def _precheck_label_release(N: int, s: int, rank: int, eps_p: float, delta: float,
                            privatize_options) -> None:
    """Every refusal :func:`dpgraph.privatize` makes from public sizes and budgets (a share
    below the exact samplers' range, a route that does not fit), made on an ``N``-node
    placeholder before the total weight is drawn (docs/privacy.md 11.1): it reads no
    constraint."""
    from dpgraph.graph import GraphData

    popts = {"synthetic_share": None, **(privatize_options or {})}
    placeholder = GraphData(weights=sp.csr_array((N, N)), labels=range(N))
    privatize(placeholder, epsilon=eps_p / s, delta=group_privacy_delta(eps_p, delta, s),
              rank=rank, rng=None, _check_only=True, **popts)


def _release_label_graph(instance, s, rank, eps_p, delta, privatize_options, ledger, gen):
    """The label-extended graph, Bernoulli-rounded (docs/privacy.md 6.2), privatized at
    ``(eps_p / s, delta_0)`` per label pair and charged as one group-privacy entry (6.3)."""
    from dpgraph.graph import from_matrix

    n, q = instance.n, instance.q
    # a pure route (randomized response) is eps_p / s-DP per pair, so s pairs cost eps_p and
    # no delta (6.3): none is charged, and the route gets none
    pure = route_spec((privatize_options or {}).get("route", "auto")).pure
    dlt_0 = 0.0 if pure else group_privacy_delta(eps_p, delta, s)
    L = rounded_label_graph(instance, gen)  # docs/privacy.md 6.2 (Bernoulli rounding)
    labels = tuple((i, a) for i in range(n) for a in range(q))
    ledger.charge(f"privatize the label-extended graph (group privacy over {s} pairs)",
                  mechanism="group privacy", epsilon=eps_p, delta=0.0 if pure else delta,
                  note=f"dpgraph.privatize at (eps/{s}, delta_0 = {dlt_0:.3g}) per label pair; "
                       f"one constraint moves <= {s} pairs (docs/privacy.md 6.1-6.3)")
    # no block-model export by default (as max_cut): the whole eps_p goes to the route
    popts = {"synthetic_share": None, **(privatize_options or {})}
    with uncounted():  # its draws are the group-privacy charge above, not a further spend
        pg = privatize(from_matrix(L, labels, source="label-extended graph"),
                       epsilon=eps_p / s, delta=dlt_0, rank=rank, rng=gen, **popts)
    return pg, dlt_0


def _solve_label_objectives(pg, names, n, q, s, solver_options, gen) -> list:
    """The engine on each candidate objective of the release (post-processing)."""
    from dpgraph.engine.twocsp_sdp import solve_label_csp

    same = _block_mask(n, q)
    opts = dict(solver_options or {})
    outs = []
    for name in names:
        if name == BLOCK_OBJECTIVE:
            W = block_posterior_weights(pg.unbiased, float(pg.diagnostics["flip_probability"]),
                                        n, q, s)
        else:
            W = np.array(pg.objective(name), dtype=np.float64)
        W[same] = 0.0  # public: no constraint relates a variable to itself
        outs.append(solve_label_csp(W, n, q, rng=gen, **opts))
        del W
    return outs


def _assignment_pool(outs) -> tuple[np.ndarray, list]:
    """Distinct assignments among the solves' best and rounded ones, and the solve each came
    from (its first occurrence)."""
    pool, owner, seen = [], [], set()
    for k, out in enumerate(outs):
        for row in np.vstack([out["x"][None, :], out["rounded"]]):
            key = row.tobytes()
            if key not in seen:
                seen.add(key)
                pool.append(row)
                owner.append(k)
    return np.vstack(pool), owner


def _choose_and_estimate(instance, pool, names, eps_select, eps_estimate, upper, ledger, gen):
    """The private choice among the fixed candidate assignments (docs/privacy.md 6.4) and the
    Laplace estimate of the chosen one's value with its interval, clamped to ``[0, upper]``
    (6.5): the only reads of the constraints after the release and the total weight."""
    from dpgraph.engine.twocsp_sdp import label_values

    q = instance.q
    A_true = instance.label_adjacency(name_size=False)  # NOT private: read through releases only
    chosen = 0
    if pool.shape[0] > 1:
        # fixed candidates; one constraint (w <= 1) moves every value by 0 or w, in one direction
        chosen = monotone_exponential_mechanism(
            label_values(A_true, pool, q), sensitivity=1.0, epsilon=eps_select, ledger=ledger,
            name="choice among candidate assignments", rng=gen,
            note=f"{pool.shape[0]} distinct roundings of {len(names)} objectives {names}; "
                 f"monotone values (docs/privacy.md 6.4)")
    estimate, interval = None, None
    if eps_estimate > 0:
        estimate, interval = _release_value(
            float(label_values(A_true, pool[chosen][None, :], q)[0]), epsilon=eps_estimate,
            upper=upper, ledger=ledger, rng=gen)
    return chosen, estimate, interval


def _synthetic_value(pg, x, n, q) -> float:
    """The assignment's value on the exported synthetic weights (post-processing)."""
    from dpgraph.engine.twocsp_sdp import label_values

    Wsyn = np.array(pg.weights(), dtype=np.float64)
    Wsyn[_block_mask(n, q)] = 0.0
    return float(label_values(Wsyn, x[None, :], q)[0])
