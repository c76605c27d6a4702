"""Private answers: Max-Cut, Max-Bisection (:mod:`cut`) and Max-2-CSP (:mod:`csp`).

Each entry point releases through :mod:`dpgraph.release`, solves the release with the
non-private engine (:mod:`dpgraph.engine`) and chooses among candidates privately.
"""
