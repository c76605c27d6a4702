import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The benchmark data folder from DPGRAPH_DATA; tests that need it skip when it is unset."""
    root = os.environ.get("DPGRAPH_DATA")
    if not root or not Path(root).is_dir():
        pytest.skip("DPGRAPH_DATA is not set to the benchmark data folder")
    return Path(root)


@pytest.fixture
def spend_spy(monkeypatch):
    """Counts every ledger charge and every generator handed out for a noise draw: a call that
    refuses before anything is spent (docs/privacy.md 11.1) leaves both at 0."""
    from dpgraph.privacy import ledger as ledger_mod
    from dpgraph.privacy import noise as noise_mod

    calls = {"charge": 0, "draw": 0}
    charge, draw_rng = ledger_mod.PrivacyLedger.charge, noise_mod._draw_rng

    def spy_charge(self, *a, **k):
        calls["charge"] += 1
        return charge(self, *a, **k)

    def spy_draw(*a, **k):
        calls["draw"] += 1
        return draw_rng(*a, **k)

    monkeypatch.setattr(ledger_mod.PrivacyLedger, "charge", spy_charge)
    monkeypatch.setattr(noise_mod, "_draw_rng", spy_draw)
    return calls



@pytest.fixture(scope="session", autouse=True)
def _numba_imported():
    """numba is imported on the first kernel call, not with dpgraph
    (tests/test_light_imports.py checks that in fresh processes); importing it here keeps its
    tens of MB of Python objects out of the tests that measure a call with tracemalloc, and
    running one kernel keeps the memory checks from pricing numba's first load
    (:func:`~dpgraph.engine.local_search.kernel_load_bytes`) in whichever test runs first:
    the tests' memory limits price the steps they name (tests/test_no_blowups.py checks the
    first load's price with the kernels' state set)."""
    import networkx as nx

    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.local_search import numba_available, tabu_search

    if numba_available():
        tabu_search(as_weight_operator(nx.cycle_graph(4)), [1.0] * 4, max_moves=1, rng=0)


# the fuzzing helpers (tests/fuzz_inputs.py, tests/fuzz_api.py) are imported by module name
import sys  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))


def _pyproject_backend_entry_point() -> str:
    import re

    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    section = re.search(r'^\[project\.entry-points\."networkx\.backends"\]\n(.*?)(?:^\[|\Z)', text,
                        re.M | re.S)
    assert section, "pyproject.toml has no networkx.backends entry point"
    match = re.search(r'^dpgraph\s*=\s*"([^"]+)"', section.group(1), re.M)
    assert match, "the networkx.backends entry point is not named dpgraph"
    return match.group(1)


@pytest.fixture(scope="session")
def backend_entry_point() -> str:
    """The ``networkx.backends`` entry point "dpgraph" of pyproject.toml (``module:object``)."""
    return _pyproject_backend_entry_point()


@pytest.fixture(scope="session")
def nx_backend_paths(tmp_path_factory) -> list:
    """``sys.path`` entries under which a child interpreter sees the "dpgraph" NetworkX backend.

    Installed (CI runs ``pip install ".[test]"``): none needed. From a source checkout: a
    ``*.dist-info`` folder holding the entry point copied from pyproject.toml, which is the
    standard metadata an installation writes and ``importlib.metadata`` reads; NetworkX itself
    is not patched.
    """
    from importlib.metadata import entry_points

    if "dpgraph" in {ep.name for ep in entry_points(group="networkx.backends")}:
        return []
    root = tmp_path_factory.mktemp("nx-backend")
    info = root / "dpgraph_backend_checkout-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dpgraph-backend-checkout\n"
                                   "Version: 0\n")
    (info / "entry_points.txt").write_text(
        f"[networkx.backends]\ndpgraph = {_pyproject_backend_entry_point()}\n")
    return [str(root)]


@pytest.fixture
def quiet_seeds():
    """ReproducibleNoiseWarning (an int seed makes the noise reproducible) silenced for a test
    that passes seeds on purpose: ``pytestmark = pytest.mark.usefixtures("quiet_seeds")``."""
    import warnings

    import dpgraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpgraph.privacy.ReproducibleNoiseWarning)
        yield
