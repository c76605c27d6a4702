"""What ``pip install .`` brings: numba is a core dependency (the compiled local search runs by
default), the ``fast`` extra stays installable, and the pure-NumPy loop still runs without numba
(tests/test_csp_improve.py runs that fallback in a fresh process)."""

import os
import platform
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def _project():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def test_numba_is_a_core_dependency_on_cpython():
    reqs = [Requirement(r) for r in _project()["dependencies"]]
    numba = [r for r in reqs if r.name == "numba"]
    assert len(numba) == 1
    (req,) = numba
    # installed wherever the interpreter is CPython, skipped on the others (no numba wheels)
    assert req.marker is not None
    assert req.marker.evaluate({"platform_python_implementation": "CPython"})
    assert not req.marker.evaluate({"platform_python_implementation": "PyPy"})


def test_fast_extra_is_an_empty_compatibility_alias():
    extras = _project()["optional-dependencies"]
    assert extras.get("fast", []) == []


@pytest.mark.skipif(platform.python_implementation() != "CPython"
                    or bool(os.environ.get("DPGRAPH_NO_NUMBA")),
                    reason="numba is installed with dpgraph on CPython only")
def test_installed_environment_has_the_numba_kernels():
    from dpgraph.engine.local_search import numba_available

    assert numba_available()


def test_readme_says_where_numba_has_no_wheel():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Where numba has no" in readme
    assert "pip install --no-deps ." in readme
