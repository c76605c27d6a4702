"""How much privacy PGB's TmF spends on one edge, against the epsilon it is called with.

PGB's ``top_m_filter`` (``shared/peers/pgb/utils.py``) releases ``m~ = m + Lap(2/eps)`` edges:
every true edge whose ``1 + Lap(2/eps)`` passes a threshold ``theta``, then ``m~ - n1``
uniformly random pairs. A pair that is an edge is in the output with probability
``p1 + (1 - p1) f`` (``p1 = P(1 + Lap(2/eps) > theta)``, ``f`` the fill's chance of one pair);
a pair that is not, with probability about ``f``. Edge-level eps-DP needs the ratio of the two
at most ``e^eps``; its logarithm is the privacy loss of that one event, a lower bound on the
epsilon the mechanism really spends.

    python benchmarks/check_tmf_privacy.py formula
        the loss from the code's own threshold, on the shared graphs' n and m
    /tmp/peersvenv/bin/python benchmarks/check_tmf_privacy.py simulate N M EPS RUNS
        runs PGB's code itself on a random graph G and on G plus the pair (0, 1), and counts
        how often that pair is in the output (needs the peers' environment, shared/peers)
"""
import os
import sys
from pathlib import Path

import numpy as np

GRAPHS = {"chameleon": (2277, 31371), "facebook": (4039, 88234), "ca-hepph": (12008, 118489)}
EPSILONS = (0.1, 0.5, 1, 2, 4)


def threshold(n, m, eps1):
    """``theta`` as ``top_m_filter`` sets it (its two cases, with the true count for m~)."""
    pairs = n * (n - 1) / 2
    eps_t = np.log(pairs / m - 1)
    if eps1 < eps_t:
        return np.log(pairs / m - 1) / (2 * eps1)
    return np.log(pairs / (2 * m) + 0.5 * (np.exp(eps1) - 1)) / eps1


def edge_loss(n, m, eps):
    """(p1, f, ln ratio) for one pair: kept-if-edge probability, fill probability, and the
    log of P(pair out | edge) / P(pair out | no edge)."""
    eps1 = eps / 2
    theta = threshold(n, m, eps1)
    if theta >= 1:
        p1 = 0.5 * np.exp(-eps1 * (theta - 1))
    else:
        p1 = 1 - 0.5 * np.exp(-eps1 * (1 - theta))
    pairs = n * (n - 1) / 2
    f = (m - p1 * m) / (pairs - p1 * m)
    return p1, f, float(np.log((p1 + (1 - p1) * f) / f))


def formula():
    print("| graph | " + " | ".join(f"eps {e:g}" for e in EPSILONS) + " |")
    print("|---|" + "---|" * len(EPSILONS))
    for g, (n, m) in GRAPHS.items():
        cells = [f"{edge_loss(n, m, e)[2]:.2f}" for e in EPSILONS]
        print(f"| {g} | " + " | ".join(cells) + " |")


def simulate(n, m, eps, runs):
    sys.path.insert(0, str(Path(os.environ.get("PEERS", "/work/shared/peers")) / "pgb"))
    import utils  # PGB's module, from the peers' environment

    rng = np.random.default_rng(0)
    a = np.zeros((n, n))
    pairs = set()
    while len(pairs) < m:
        i, j = sorted(rng.choice(n, 2, replace=False))
        if (i, j) != (0, 1):
            pairs.add((int(i), int(j)))
    for i, j in pairs:
        a[i, j] = a[j, i] = 1
    b = a.copy()
    b[0, 1] = b[1, 0] = 1
    np.random.seed(1)  # PGB draws from NumPy's global generator
    out_a = sum(utils.top_m_filter(a, eps)[0, 1] for _ in range(runs)) / runs
    out_b = sum(utils.top_m_filter(b, eps)[0, 1] for _ in range(runs)) / runs
    print(f"n {n}, m {m}, eps {eps:g}, {runs} runs each: pair (0, 1) out without it "
          f"{out_a:.4f}, with it {out_b:.4f}; ln ratio {np.log(out_b / out_a):.2f} "
          f"(eps-DP allows {eps:g}; the formula gives {edge_loss(n, m + 1, eps)[2]:.2f})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["formula"]:
        formula()
    elif sys.argv[1:2] == ["simulate"] and len(sys.argv) == 6:
        simulate(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
