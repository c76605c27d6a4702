"""Private pairwise cosine similarities and k-way marginals (Perturb-and-Project primitives).

Run: python examples/cosine_and_marginals.py
"""

import numpy as np

from dpgraph.mechanisms import kway_marginals, private_cosine_similarities

rng = np.random.default_rng(0)

# 200 unit vectors in 3 clusters; one vector may change arbitrarily (Gram-Frobenius adjacency)
centres = rng.standard_normal((3, 20))
X = centres[rng.integers(0, 3, 200)] + 0.3 * rng.standard_normal((200, 20))
true = (X / np.linalg.norm(X, axis=1, keepdims=True)) @ (X / np.linalg.norm(X, axis=1, keepdims=True)).T
# method="practical": one PSD projection and a rescaling (method="exact" projects onto the
# elliptope by Dykstra: the true projection, slower)
res = private_cosine_similarities(X, epsilon=1.0, delta=1e-6, method="practical")
print(res)
print(f"cosine similarities: mean absolute error {np.abs(res.similarities - true).mean():.3f}")

# 2-way marginals of a 0/1 table: 5,000 rows, 8 binary attributes (replace-one-row adjacency)
D = (rng.random((5000, 8)) < np.linspace(0.1, 0.6, 8)).astype(int)
marg = kway_marginals(D, 2, epsilon=1.0, delta=1e-6)
exact = D.T @ D
print(marg)
print(f"2-way marginals: max error {np.abs(marg.tensor - exact).max():.1f} rows of {len(D)}")
