"""The matrix-free route (docs/privacy.md, section 5): sensitivities on adjacent inputs (worst
cases), accounting, the factor-form operator against dense algebra, recovery of planted cuts,
the block-model sampler, memory."""

import math
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.engine import solve_max_cut
from dpgraph.datasets import planted_bisection, planted_cut
from dpgraph.lab.evaluate import cut_value
from dpgraph.graph import GraphData, from_edges
from dpgraph.privacy import PrivacyLedger, analytic_gaussian_sigma, approx_dp_to_zcdp_rho


def rho_cks_less_noise(epsilon, delta):
    """The zCDP (CKS) calibration would have used a smaller total rho: more noise."""
    return approx_dp_to_zcdp_rho(epsilon, delta) < 0.5 / analytic_gaussian_sigma(epsilon, delta) ** 2
from dpgraph.release.routes.pca import normalized_adjacency
from dpgraph.release.routes.matrix_free import clip_levels, core_sensitivity, default_steps, estimated_memory, release_matrix_free, step_sensitivity
from dpgraph.release.factor_graph import FactorPrivateGraph, LowRankOperator


def _adjacent_pair(n, rng, p=0.3):
    """A random graph without the edge {0, 1} and the same graph with it."""
    A = np.triu((rng.random((n, n)) < p).astype(float), 1)
    A[0, 1] = 0.0
    A = A + A.T
    A2 = A.copy()
    A2[0, 1] = A2[1, 0] = 1.0
    return sp.csr_array(A), sp.csr_array(A2)


def _rows_at_level(levels, r, rng, parallel=False):
    """Rows of norm exactly ``levels[i]`` (random directions, or all the same direction)."""
    Z = rng.standard_normal((levels.size, r))
    if parallel:
        Z[:] = Z[0]
    return Z / np.linalg.norm(Z, axis=1, keepdims=True) * levels[:, None]


@pytest.mark.parametrize("rank", [1, 3])
def test_step_sensitivity_adjacent_worst_case(rank):
    """5.2: ||(M' - M) Z||_F <= kappa sqrt(r/S) sqrt(1/d~_(1) + 1/d~_(2)), attained by an edge
    between the two smallest normalizers with their rows at the clipping level."""
    rng = np.random.default_rng(0)
    n, kappa = 40, 0.7
    W, W2 = _adjacent_pair(n, rng)
    d_tilde = 5.0 + 20.0 * rng.random(n)
    d_tilde[0], d_tilde[1] = 2.0, 2.5  # the edge {0, 1} sits at the two smallest normalizers
    bound = step_sensitivity(d_tilde, rank, kappa)
    levels = clip_levels(d_tilde, rank, kappa)
    worst = 0.0
    for trial in range(20):
        Z = _rows_at_level(levels, rank, rng)
        diff = (normalized_adjacency(W2, d_tilde) - normalized_adjacency(W, d_tilde)) @ Z
        change = float(np.linalg.norm(diff))
        assert change <= bound * (1 + 1e-12)
        worst = max(worst, change)
    assert worst >= bound * (1 - 1e-12)  # rows at the level: the bound is attained
    # any other edge changes less (its normalizers are larger)
    for i, j in [(2, 7), (0, 9), (5, 1)]:
        E = sp.csr_array(([1.0, 1.0], ([i, j], [j, i])), shape=(n, n))
        Z = _rows_at_level(levels, rank, rng)
        change = np.linalg.norm(normalized_adjacency(E, d_tilde) @ Z)
        assert change <= bound


def test_step_sensitivity_weighted_edge_scales():
    """A weight change t in [0, 1] changes the product by t times the unweighted change."""
    rng = np.random.default_rng(1)
    d_tilde = np.array([3.0, 4.0, 9.0, 10.0])
    levels = clip_levels(d_tilde, 2, 0.7)
    Z = _rows_at_level(levels, 2, rng)
    E = sp.csr_array(([0.4, 0.4], ([0, 1], [1, 0])), shape=(4, 4))
    change = np.linalg.norm(normalized_adjacency(E, d_tilde) @ Z)
    assert change <= 0.4 * step_sensitivity(d_tilde, 2, 0.7) * (1 + 1e-12)


@pytest.mark.parametrize("rank", [1, 2])
def test_core_sensitivity_adjacent_worst_case(rank):
    """5.3: the upper triangle of Q^T M Q (diagonal / sqrt 2) moves by at most
    sqrt 2 (1 + kappa_c^2 r) / S; attained when q_0 and q_1 are parallel at their full norms."""
    rng = np.random.default_rng(2)
    n, ck = 30, 2.0
    W, W2 = _adjacent_pair(n, rng)
    d_tilde = 4.0 + 10.0 * rng.random(n)
    S = d_tilde.sum()
    u0 = np.sqrt(d_tilde / S)
    bound = core_sensitivity(d_tilde, rank, ck)
    iu = np.triu_indices(rank + 1, 1)
    worst = 0.0
    for parallel in (False, True):
        Zc = _rows_at_level(clip_levels(d_tilde, rank, ck), rank, rng, parallel=parallel)
        if parallel:  # make q_0 and q_1 parallel: u0 entries are positive, Z rows identical
            Zc[0] = Zc[1] * np.sqrt(d_tilde[0] / d_tilde[1])
        Q = np.column_stack([u0, Zc])
        D = Q.T @ (normalized_adjacency(W2, d_tilde) - normalized_adjacency(W, d_tilde)) @ Q
        vec = np.r_[D[iu], np.diag(D) / math.sqrt(2.0)]
        change = float(np.linalg.norm(vec))
        assert change <= bound * (1 + 1e-12)
        worst = max(worst, change)
    assert worst >= bound * (1 - 1e-9)


def test_release_accounting_and_noise_scales():
    inst = planted_cut(600, 40.0, rng=0)
    led = PrivacyLedger(epsilon=2.0, delta=1e-6)
    pg = release_matrix_free(inst.graph, epsilon=2.0, delta=1e-6, rank=2, ledger=led, rng=0,
                             steps=6, kappa=0.7, final_steps=2)
    assert isinstance(pg, FactorPrivateGraph)
    assert led.spent == pytest.approx((2.0, 1e-6), rel=1e-9)
    assert len(led.entries) == 1  # one charge: the composition
    z = pg.diagnostics["composition_ledger"]
    assert [e.name for e in z.entries] == ["degrees"] + [f"power step {t}" for t in range(1, 7)] + ["core"]
    # exact Gaussian-DP composition: sum (Delta_i / sigma_i)^2 = mu^2 with mu the analytic
    # Gaussian's 1 / sigma at (2, 1e-6) (independent of the route's own helper)
    mu = 1.0 / analytic_gaussian_sigma(2.0, 1e-6)
    assert z.rho == pytest.approx(mu * mu / 2, rel=1e-9)
    assert sum((e.sensitivity / e.noise_scale) ** 2 for e in z.entries) == pytest.approx(mu * mu, rel=1e-9)
    assert rho_cks_less_noise(2.0, 1e-6)
    assert z.spent[0] <= 2.0 * (1 + 1e-9) and z.spent[1] <= 1e-6 * (1 + 1e-9)
    for e in z.entries:  # every release: sigma = sensitivity / sqrt(2 rho_i) (Prop. 1.6)
        assert e.noise_scale == pytest.approx(e.sensitivity / math.sqrt(2 * e.rho), rel=1e-12)
    d_tilde = pg.normalizer
    assert z.entries[1].sensitivity == pytest.approx(step_sensitivity(d_tilde, 2, 0.7))
    assert z.entries[-1].sensitivity == pytest.approx(core_sensitivity(d_tilde, 2, 2.0))
    # the final steps carry 4x the budget of the others
    assert z.entries[-2].rho == pytest.approx(4 * z.entries[1].rho)
    # nothing n x n is held, no reference to the input
    assert pg.projected is None and pg.basis.shape == (600, 3) and pg.core.shape == (3, 3)
    assert not any(isinstance(v, (GraphData, sp.sparray)) for v in vars(pg).values())


def test_release_is_randomized_and_budget_checked():
    inst = planted_cut(300, 30.0, rng=0)
    led = PrivacyLedger(epsilon=1.0, delta=1e-6)
    with pytest.raises(dpgraph.PrivacyBudgetError):
        release_matrix_free(inst.graph, epsilon=2.0, delta=1e-6, rank=1, ledger=led, rng=0)
    assert not led.entries  # refused before anything was drawn
    with pytest.raises(ValueError, match="rank"):
        release_matrix_free(inst.graph, epsilon=1.0, delta=1e-6, rank=0, ledger=led, rng=0)
    a = release_matrix_free(inst.graph, epsilon=1.0, delta=1e-6, rank=1,
                            ledger=PrivacyLedger(1.0, 1e-6), rng=1)
    b = release_matrix_free(inst.graph, epsilon=1.0, delta=1e-6, rank=1,
                            ledger=PrivacyLedger(1.0, 1e-6), rng=2)
    assert not np.allclose(a.degrees, b.degrees)


def test_recovers_planted_cut():
    """Independent reference: the planted partition. At n = 3000, mean degree 100, epsilon 2
    the noise is far below the signal (BENCHMARKS.md, "Million-node graphs"), so the sign of the
    private direction agrees with the planted sides on >= 97% of the nodes for every seed."""
    inst = planted_cut(3000, 100.0, rng=5)
    truth = 2.0 * inst.partition - 1.0
    for seed in range(3):
        pg = release_matrix_free(inst.graph, epsilon=2.0, delta=1e-6, rank=1,
                                 ledger=PrivacyLedger(2.0, 1e-6), rng=seed)
        lam, V = np.linalg.eigh(pg.core)
        direction = pg.basis @ V[:, np.argmin(lam)]  # the most negative eigenvalue: the cut
        overlap = abs(np.sign(direction) @ truth) / inst.graph.n
        assert overlap >= 0.97


def test_low_rank_operator_matches_dense_algebra():
    rng = np.random.default_rng(3)
    n, k = 50, 3
    U = rng.standard_normal((n, k))
    K = rng.standard_normal((k, k))
    K = K + K.T
    op = LowRankOperator(U, K, labels=tuple(f"v{i}" for i in range(n)))
    D = U @ K @ U.T
    Doff = D - np.diag(np.diag(D))
    assert np.allclose(op.to_dense(), Doff)
    V = rng.standard_normal((n, 4))
    assert np.allclose(op.matmul(V), Doff @ V)
    assert np.allclose(op.matmul(V[:, 0]), Doff @ V[:, 0])
    assert np.allclose(op.degrees, Doff.sum(axis=1))
    assert op.total == pytest.approx(Doff.sum())
    idx, vals = op.column(7)
    col = np.zeros(n)
    col[idx] = vals
    assert np.allclose(col, Doff[:, 7])
    assert op.entry(3, 9) == pytest.approx(D[3, 9]) and op.entry(4, 4) == 0.0
    P, Q = np.array([1, 5, 8]), np.array([2, 30])
    assert np.allclose(op.W[np.ix_(P, Q)], D[np.ix_(P, Q)])
    assert op.abs_total() == pytest.approx(np.abs(Doff).sum())
    # the engine on the operator finds the same cut values as on the dense matrix
    x = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    assert dpgraph.engine.cut_value(op, x) == pytest.approx(dpgraph.engine.cut_value(Doff, x))
    res_op = solve_max_cut(op, rng=0)
    res_dense = solve_max_cut(Doff, rng=0)
    assert res_op.value == pytest.approx(dpgraph.engine.cut_value(Doff, res_op.x))
    assert res_op.value == pytest.approx(res_dense.value, rel=1e-6)


def test_private_graph_exports_and_refusals():
    inst = planted_cut(400, 30.0, rng=1)
    pg = dpgraph.privatize(inst.graph, epsilon=2.0, delta=1e-6, rank=2, rng=0, route="matrix-free")
    assert isinstance(pg, FactorPrivateGraph) and pg.diagnostics["route"] == "matrix-free"
    assert pg.ledger.spent == pytest.approx((2.0, 1e-6), rel=1e-9)
    W = pg.weights()
    assert W.shape == (400, 400) and W.min() >= 0 and np.all(np.diag(W) == 0)
    dense = pg.operator().to_dense()
    assert np.allclose(W, np.maximum(dense, 0.0))
    big = planted_cut(6000, 6.0, rng=0)
    pg_big = dpgraph.privatize(big.graph, epsilon=1.0, delta=1e-6, rank=1, rng=0,
                               route="matrix-free")
    with pytest.raises(ValueError, match="sample"):
        pg_big.weights()
    assert pg_big.objective_names() == ("low-rank",)


def test_max_cut_and_bisection_on_the_factor_form():
    inst = planted_cut(2000, 80.0, rng=2)
    res = dpgraph.max_cut(inst.graph, epsilon=4.0, delta=1e-6, rank=1, rng=0,
                          route="matrix-free")
    names = [e.name for e in res.ledger.entries]
    assert res.ledger.spent[0] <= 4.0 * (1 + 1e-9)
    assert res.ledger.spent[0] >= 4.0 - 0.04 * 4.0 - 1e-9
    assert names[0] == "screening: edge count" and "cut of the returned partition" in names
    true_cut = cut_value(inst.graph, res.partition)
    assert true_cut >= 0.97 * inst.planted_value  # the planted cut is near-optimal here
    # the estimate is the true cut plus Laplace noise of scale 1/eps_e (eps_e from the ledger)
    eps_e = next(e.epsilon for e in res.ledger.entries if e.name == "cut of the returned partition")
    assert abs(res.estimated_value - true_cut) <= 20.0 / eps_e  # P[|Lap| > 20 b] = e^-20
    bis = dpgraph.max_bisection(planted_bisection(1000, 60.0, rng=1).graph, epsilon=4.0,
                                delta=1e-6, rank=1, rng=0, route="matrix-free")
    assert abs(len(bis.partition[0]) - len(bis.partition[1])) <= 1


def test_sample_is_simple_and_keeps_the_released_count_and_cut():
    inst = planted_cut(3000, 60.0, rng=4)
    pg = dpgraph.privatize(inst.graph, epsilon=4.0, delta=1e-6, rank=1, rng=0,
                           route="matrix-free")
    G = pg.sample(rng=0)
    A = G.weights
    assert G.labels == pg.labels and G.n == 3000
    assert np.all(A.data == 1.0) and A.diagonal().sum() == 0 and (A != A.T).nnz == 0
    released = pg.degrees.sum() / 2.0
    # Poisson total: sd sqrt(m) ~ 300; repeated pairs remove about m^2 sum theta^2... < 1%
    assert abs(G.m - released) <= 0.02 * released
    # the sampled graph keeps the planted structure: most edges cross the planted sides
    side = {i: int(inst.partition[i]) for i in range(3000)}
    frac_true = inst.planted_value / inst.graph.m
    assert abs(cut_value(G, side) / G.m - frac_true) <= 0.03
    # degree correction: sampled degrees follow the released ones
    corr = np.corrcoef(np.asarray(A.sum(axis=1)).ravel(), pg.degrees)[0, 1]
    assert corr > 0.5


def test_memory_stays_within_the_estimate():
    """tracemalloc peak of the release (the input's CSR exists before) <= estimated_memory."""
    inst = planted_cut(4000, 40.0, rng=0)
    data = inst.graph
    tracemalloc.start()
    release_matrix_free(data, epsilon=1.0, delta=1e-6, rank=2, ledger=PrivacyLedger(1.0, 1e-6),
                        rng=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak <= estimated_memory(data.n, data.m, 2) - 24 * data.m
    assert estimated_memory(10**6, 5 * 10**7, 2) < 8 * 2**30


def test_default_steps_grow_with_log_n():
    assert default_steps(20_000) == 13 and default_steps(100_000) == 15
    assert default_steps(10**6) == 18 and default_steps(10) == 8


def test_labels_preserved_through_max_cut():
    edges = [(f"a{i}", f"b{j}") for i in range(30) for j in range(30) if (i * 7 + j) % 3]
    G = from_edges(edges)
    res = dpgraph.max_cut(G, epsilon=4.0, delta=1e-6, rank=1, rng=0, route="matrix-free")
    assert set(res.assignment) == set(G.labels)


@pytest.mark.parametrize("nu", [0.0, 0.7, -0.3])
def test_structured_certificate_bounds_the_dense_top_eigenvalue(nu):
    """lambda_max_bound against LAPACK on the dense Diag(g) - W_off - nu J: an upper bound,
    and tight (within 1e-6 of the scale) whenever the top eigenvalue lies above max(a)."""
    rng = np.random.default_rng(7)
    n, k = 60, 3
    U = rng.standard_normal((n, k))
    K = np.diag([-2.0, 0.5, 1.0])
    op = LowRankOperator(U, K, labels=tuple(range(n)))
    for trial in range(5):
        g = rng.standard_normal(n) * (1 + trial)
        Mdense = np.diag(g) - op.to_dense() - nu
        top = np.linalg.eigvalsh(Mdense)[-1]
        mu, info = op.lambda_max_bound(g, nu)
        assert mu >= top
        scale = max(1.0, abs(top))
        assert mu - top <= 1e-6 * scale or mu <= np.max(g + np.diag(U @ K @ U.T)) + 1e-6 * scale
        assert mu <= info["weyl_bound"] + 1e-6 * scale


def _reference_sample(gen, plan, pair_counts):
    """The sampler before the per-task streams (one stream; all draws of a block pair at once),
    kept here as the reference for the task-cut sampler: sorted distinct keys lo * n + hi."""
    rows, cols = [], []
    for a, b, c in pair_counts:
        def draw(x, size):
            members = plan.order[plan.starts[x]:plan.starts[x + 1]]
            return np.repeat(members, gen.multinomial(size, plan.theta[members] / plan.mass[x]))
        rows.append(draw(a, c))
        cols.append(gen.permutation(draw(b, c)))
    i, j = np.concatenate(rows), np.concatenate(cols)
    keep = i != j
    return np.unique(np.minimum(i[keep], j[keep]) * plan.n + np.maximum(i[keep], j[keep]))


def test_sampling_tasks_draw_the_reference_distribution():
    """The sampler's draws are cut into tasks, each with its own stream (so that Dask workers
    can draw them). For a fixed plan, against the previous one-stream sampler: the
    frequency of every node pair (chi-square homogeneity) and the number of distinct edges
    (two-sample z) agree, with fixed seeds; and a task's draws do not depend on the others."""
    from scipy.stats import chi2_contingency

    from dpgraph.synthetic.factor_sampler import SamplePlan, distinct_sorted, sample_task

    n = 10
    theta = np.array([1.0, 2, 3, 1, 1, 4, 2, 2, 1, 5])
    pair_counts = [(0, 0, 9), (0, 1, 12), (1, 1, 4)]
    tasks = ((0, 0, 3), (0, 0, 3), (0, 0, 3), (0, 1, 6), (0, 1, 6), (1, 1, 4))
    base = dict(n=n, order=np.arange(n), starts=np.array([0, 6, 10]), theta=theta,
                mass=np.array([12.0, 10.0]), cipher=None)
    ref_plan = SamplePlan(tasks=(), key=None, **base)
    reps = 4000
    gen = np.random.default_rng(2024)
    freq = np.zeros((2, n * n))
    distinct = [[], []]
    for rep in range(reps):
        plan = SamplePlan(tasks=tasks, key=[rep, 7, 8, 9], **base)
        new = distinct_sorted(np.concatenate([sample_task(plan, t) for t in range(len(tasks))]))
        old = _reference_sample(gen, ref_plan, pair_counts)
        for row, keys in enumerate((new, old)):
            freq[row, keys] += 1
            distinct[row].append(keys.size)
    used = freq.sum(axis=0) > 0
    assert used.sum() >= 30  # most pairs of the 10 nodes occur
    assert chi2_contingency(freq[:, used])[1] > 1e-4
    a, b = np.asarray(distinct[0], float), np.asarray(distinct[1], float)
    z = (a.mean() - b.mean()) / math.sqrt(a.var() / reps + b.var() / reps)
    assert abs(z) < 4.5
    # each task has its own stream: its draws do not depend on the other tasks
    plan = SamplePlan(tasks=tasks, key=[1, 2, 3, 4], **base)
    other = SamplePlan(tasks=((1, 1, 50),) + tasks[1:], key=[1, 2, 3, 4], **base)
    assert np.array_equal(sample_task(plan, 4), sample_task(other, 4))
    assert not np.array_equal(sample_task(plan, 3), sample_task(plan, 4))


def test_sample_does_not_depend_on_the_task_size(monkeypatch):
    """Cut into more tasks, the sample keeps its distribution (and the plan's counts)."""
    import dpgraph.synthetic.factor_sampler as mf

    inst = planted_cut(1500, 30.0, rng=6)
    pg = dpgraph.privatize(inst.graph, epsilon=4.0, delta=1e-6, rank=1, rng=0,
                           route="matrix-free")
    whole = pg.sample_plan(3)
    monkeypatch.setattr(mf, "SAMPLE_CHUNK", 500)
    cut = pg.sample_plan(3)
    assert len(cut.tasks) > 3 * len(whole.tasks)
    assert sum(c for *_, c in cut.tasks) == sum(c for *_, c in whole.tasks)
    side = {i: int(inst.partition[i]) for i in range(1500)}
    fr = []
    for chunk in (mf.SAMPLE_CHUNK, 2**22):
        monkeypatch.setattr(mf, "SAMPLE_CHUNK", chunk)
        G = [pg.sample(rng=s) for s in range(6)]
        fr.append((np.mean([g.m for g in G]), np.mean([cut_value(g, side) / g.m for g in G])))
    assert abs(fr[0][0] - fr[1][0]) <= 0.01 * fr[1][0]
    assert abs(fr[0][1] - fr[1][1]) <= 0.01


@pytest.mark.parametrize("noise", ["continuous", "discrete"])
def test_a_delta_too_large_is_refused_before_any_draw(noise):
    """At a large delta the itemized accounting of a prefix of the releases (its share of delta
    only) overruns epsilon: refused before anything is charged or drawn (it failed at the
    first power step, after the degrees were drawn)."""
    import networkx as nx

    G = nx.Graph(nx.karate_club_graph().edges())
    data = dpgraph.graph.as_graph_data(G)
    led = PrivacyLedger(epsilon=1.0, delta=0.5)
    with pytest.raises(ValueError, match="delta=0.5 is too large for the matrix-free route"):
        release_matrix_free(data, epsilon=1.0, delta=0.5, rank=2, ledger=led, rng=0, noise=noise)
    assert led.spent == (0.0, 0.0) and not led.entries
    with pytest.raises(ValueError, match="too large"):
        dpgraph.max_cut(G, epsilon=1.0, delta=0.5, route="matrix-free", rng=1)
    led = PrivacyLedger(epsilon=1.0, delta=1e-3)  # the usual range composes
    release_matrix_free(data, epsilon=1.0, delta=1e-3, rank=2, ledger=led, rng=0, noise=noise)
    assert led.spent[0] <= 1.0


def test_sample_says_when_dropped_repeats_thin_it():
    """The complete graph on 30 nodes: about half of the Chung-Lu draws repeat a pair, so the
    sample has about half the released count; a warning says so (it was silent). A sparse
    planted graph keeps nearly all of its draws, without the warning."""
    import warnings

    import networkx as nx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = dpgraph.privatize(nx.complete_graph(30), epsilon=2.0, delta=1e-6, rng=0,
                               weight=None, route="matrix-free")
    with pytest.warns(UserWarning, match="were repeated or self pairs"):
        G = pg.sample(rng=0)
    assert G.m < 0.8 * pg.edge_count
    inst = planted_cut(400, 10.0, rng=0)
    led = PrivacyLedger(4.0, 1e-6)
    sparse = release_matrix_free(inst.graph, epsilon=4.0, delta=1e-6, rank=1, ledger=led, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", message="reproducible")
        sparse.sample(rng=1)


def test_factor_form_weighted_export_reports_its_blocks():
    """O(n^2 r) in all, the default of synth --weighted at scale: the row blocks report."""
    import io

    from dpgraph.datasets import planted_cut
    from dpgraph.privacy import PrivacyLedger
    from dpgraph.progress import reporting
    from dpgraph.release.routes.matrix_free import release_matrix_free

    pg = release_matrix_free(planted_cut(6000, 10.0, rng=0).graph, epsilon=4.0, delta=1e-6,
                             rank=1, ledger=PrivacyLedger(4.0, 1e-6), rng=0)
    buf = io.StringIO()
    with reporting(stream=buf):
        data = pg.to_graph_data(max_edges=1000, block_rows=1024)
    assert data.m == 1000
    assert "weighted export: started (6 blocks)" in buf.getvalue()
