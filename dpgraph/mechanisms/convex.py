"""The convex-set interface of Perturb-and-Project (Alg. 1): what every set offers.

A set is an object with ``project(X, out=None)`` (the exact Euclidean projection),
``contains(X, tol)`` and ``distance(X)``. The concrete sets live in
:mod:`dpgraph.mechanisms.sets`; projection onto an intersection (Dykstra's algorithm) in
:mod:`dpgraph.mechanisms.projection`. This base sits below both, so each can name it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ConvexSet", "finish_projection"]


def finish_projection(result: np.ndarray, out):
    """Return a projection the way ``project(X, out=None)`` promises: ``result`` itself when
    ``out`` is None, else ``result`` copied into ``out`` (which is returned)."""
    if out is None:
        return result
    np.copyto(out, result)
    return out


class ConvexSet:
    """Base class: a closed convex set with an exact Euclidean projection."""

    symmetric = False

    def project(self, X, out=None) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def distance(self, X) -> float:
        X = np.asarray(X, dtype=np.float64)
        return float(np.linalg.norm(X - self.project(X)))

    def contains(self, X, tol: float = 1e-8) -> bool:
        return self.distance(X) <= tol

    def check_shape(self, shape: tuple) -> None:
        """Refuse, naming the set, a value of ``shape`` it cannot hold, where the set's public
        parameters alone decide it (before anything is charged: docs/privacy.md 11.1). Here:
        a symmetric (matrix) set needs a square matrix; subclasses add their own parameters."""
        if self.symmetric and (len(shape) != 2 or shape[0] != shape[1]):
            raise ValueError(f"convex_set: {type(self).__name__} holds square (symmetric) "
                             f"matrices; the value has shape {shape}")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._repr_fields().items())
        return f"{type(self).__name__}({fields})"

    def _repr_fields(self) -> dict:
        return {}
