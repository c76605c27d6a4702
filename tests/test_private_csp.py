"""Private Max-2-CSP: the label-extended sensitivities on adjacent instances, and the release."""

import math

import numpy as np
import pytest

from dpgraph.csp import CSPInstance
from dpgraph.private_csp import label_extended_sensitivities, max_2csp
from dpgraph.routes.pca import normalized_adjacency


def _random_instance(rng, n, q, density):
    cons = []
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < density:
                R = {(a, b) for a in range(q) for b in range(q) if rng.random() < 0.5} or {(0, 0)}
                cons.append((i, j, R, float(rng.uniform(0.2, 1.0))))
    return cons


def test_label_extended_bounds_adjacent():
    rng = np.random.default_rng(21)
    for _ in range(40):
        n, q = int(rng.integers(3, 9)), int(rng.integers(2, 5))
        cons = _random_instance(rng, n, q, 0.5)
        i, j = sorted(rng.choice(n, 2, replace=False).tolist())
        full = {(a, b) for a in range(q) for b in range(q)}  # the worst case: R = [q]^2, w = 1
        extra = (int(i), int(j), full if rng.random() < 0.5 else {(0, 1)}, 1.0)
        a, b = CSPInstance(n, q, cons), CSPInstance(n, q, cons + [extra])
        d_tilde = np.repeat(rng.uniform(0.5, 4.0, n), q)  # any public normalizer
        w0 = 1 / d_tilde.min()
        E = (normalized_adjacency(b.label_adjacency(), d_tilde)
             - normalized_adjacency(a.label_adjacency(), d_tilde)).toarray()
        bounds = label_extended_sensitivities(q, w0)
        assert np.linalg.norm(np.triu(E)) <= bounds["upper_triangle_l2"] * (1 + 1e-12)
        assert np.linalg.norm(E, 2) <= bounds["spectral"] * (1 + 1e-12)
        assert math.sqrt(np.abs(E @ E.T).sum()) <= bounds["delta_adjacency"] * (1 + 1e-12)
        # variable degrees change by at most sqrt 2
        deg = lambda inst: np.bincount([c[0] for c in inst.constraints] + [c[1] for c in inst.constraints],  # noqa: E731
                                       weights=[c[3] for c in inst.constraints] * 2, minlength=n)
        assert np.linalg.norm(deg(b) - deg(a)) <= math.sqrt(2) + 1e-12


def test_max_2csp_release():
    rng = np.random.default_rng(3)
    n, q = 12, 3
    planted = rng.integers(0, q, n)
    cons = [(i, j, {(a, b) for a in range(q) for b in range(q) if a != b}, 1.0)
            for i in range(n) for j in range(i + 1, n)
            if planted[i] != planted[j] and rng.random() < 0.6]
    inst = CSPInstance(n, q, cons)
    res = max_2csp(inst, epsilon=4.0, delta=1e-6, rank=3, rng=0)
    assert set(res.assignment) == set(range(n))
    assert all(0 <= v < q for v in res.assignment.values())
    eps, dlt = res.ledger.spent
    assert eps <= 4.0 * (1 + 1e-9) and dlt <= 1e-6 * (1 + 1e-9)
    entry = res.ledger.entries[-1]
    assert entry.name == "value of the returned assignment" and entry.sensitivity == 1.0
    assert abs(res.estimated_value - inst.value(res.assignment)) <= 5 * entry.noise_scale
    assert res.synthetic_value >= 0


@pytest.mark.parametrize("bad, match", [
    (dict(epsilon=0, delta=1e-6), "epsilon"),
    (dict(epsilon=1, delta=0), "delta"),
    (dict(epsilon=1, delta=1e-6, rank=0), "rank"),
])
def test_bad_arguments(bad, match):
    inst = CSPInstance(5, 2, [(0, 1, {(0, 1)}, 1.0), (1, 2, {(1, 0)}, 1.0)])
    with pytest.raises(ValueError, match=match):
        max_2csp(inst, **bad)


def test_refuses_heavy_weights_and_tiny_alphabets():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        max_2csp(CSPInstance(4, 2, [(0, 1, {(0, 1)}, 2.0)]), epsilon=1, delta=1e-6, rank=1)
    with pytest.raises(ValueError, match="alphabet"):
        max_2csp(CSPInstance(4, 1, [(0, 1, {(0, 0)}, 1.0)]), epsilon=1, delta=1e-6, rank=1)
