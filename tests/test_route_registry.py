"""Adding a route touches one module and one registration line: nothing else branches on a
route's name. The toy route below (this module is its module) releases the degree sequence
with Laplace noise and offers the Chung-Lu weights ``d^_i d^_j / 2 m^`` as its synthetic
graph: pure epsilon-DP, dense. Registered, it runs through privatize, max_cut, the memory
refusal and the pure-DP rule like a built-in route."""

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.memory import InsufficientMemoryError
from dpgraph.privacy import laplace_mechanism
from dpgraph.release.private_graph import PrivateGraph
from dpgraph.release.routes import (RouteSpec, register_route, route_names, route_spec,
                                    unregister_route)


# -- the toy route's module: release + estimated_memory -------------------------------------

def release(data, *, epsilon, delta, rank, ledger, rng, screening=None):
    """Noisy degrees (L1 sensitivity 2), Chung-Lu weights from them (post-processing)."""
    d_hat, _ = laplace_mechanism(np.asarray(data.degrees, dtype=float), sensitivity=2.0,
                                 epsilon=epsilon, ledger=ledger, name="toy: degrees", rng=rng)
    d = np.maximum(d_hat, 0.0)
    W = np.minimum(np.outer(d, d) / max(d.sum(), 1.0), 1.0)
    return PrivateGraph(labels=data.labels, degrees=d_hat, normalizer=np.ones(data.n),
                        basis=None, core=None, projected=W, ledger=ledger,
                        diagnostics={"route": "toy", "screening": screening})


def estimated_memory(n, m, rank):
    return 8 * n * n


# -- the registration line, and the behaviour it buys ---------------------------------------

@pytest.fixture
def toy_route():
    register_route(RouteSpec("toy", __name__, pure=True, dense=True, own_sampler=True))
    yield
    unregister_route("toy")


def _graph():
    return nx.Graph(nx.karate_club_graph().edges())


def test_privatize_runs_a_registered_route(toy_route):
    assert "toy" in route_names() and route_spec("toy").pure
    pg = dpgraph.privatize(_graph(), epsilon=1.0, delta=0, route="toy", rng=0)
    assert pg.diagnostics["route"] == "toy" and pg.ledger.spent == pytest.approx((1.0, 0.0))
    assert pg.weights().shape == (34, 34) and pg.sample(rng=1).n == 34


def test_max_cut_answers_on_a_registered_route(toy_route):
    res = dpgraph.max_cut(_graph(), epsilon=1.0, delta=0, route="toy", rng=0)
    assert res.diagnostics["route"] == "toy" and res.ledger.spent == pytest.approx((1.0, 0.0))
    assert set(res.assignment.values()) <= {0, 1}


def test_a_registered_dense_route_is_refused_before_allocating(toy_route, monkeypatch):
    monkeypatch.setenv("DPGRAPH_MEMORY_LIMIT", "1K")
    with pytest.raises(InsufficientMemoryError):
        dpgraph.privatize(_graph(), epsilon=1.0, delta=0, route="toy", rng=0)


def test_an_unregistered_route_is_refused():
    with pytest.raises(ValueError, match="route"):
        dpgraph.privatize(_graph(), epsilon=1.0, delta=0, route="toy", rng=0)
    with pytest.raises(ValueError, match="built in"):
        unregister_route("local")
