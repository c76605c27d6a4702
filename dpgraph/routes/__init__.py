"""Release routes of :func:`dpgraph.privatize`, one module per route.

* :mod:`dpgraph.routes.matrix_free` -- the matrix-free coherence-aware route (memory
  ``O(m + n r)``, sparse products only): :func:`~dpgraph.routes.matrix_free.release_matrix_free`.
"""

__all__: list[str] = []
