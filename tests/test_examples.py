"""Run every script in examples/ so they never rot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


# the two slowest examples (3-7 s each on 2 cores) run with -m slow; the others by default
SLOW_EXAMPLES = {"private_maxcut_networkx.py", "igraph_in_out.py"}


def _run(script, tmp_path, nx_backend_paths):
    """Run an example script from the repository root (nx_backend_paths: the NetworkX
    backend entry point, also from a source checkout)."""
    root = str(script.parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*nx_backend_paths, root,
                                                       os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=600, cwd=root, env=env)


@pytest.mark.parametrize("script", [pytest.param(p, marks=pytest.mark.slow)
                                    if p.name in SLOW_EXAMPLES else p for p in EXAMPLES],
                         ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path, nx_backend_paths):
    done = _run(script, tmp_path, nx_backend_paths)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()


def test_karate_example_says_what_its_ledger_shows(tmp_path, nx_backend_paths):
    """The comment of examples/karate_club_networkx.py names the estimate's share of epsilon
    and its Laplace scale; the script prints both from the ledger: they must agree."""
    import re

    script = next(p for p in EXAMPLES if p.name == "karate_club_networkx.py")
    done = _run(script, tmp_path, nx_backend_paths)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = re.search(r"\(Laplace scale ([\d.]+), (\d+)% of epsilon\)", done.stdout)
    assert printed, done.stdout
    said = re.search(r"spends at most (\d+)% of epsilon.*?noise of scale (\d+) here",
                     script.read_text(), re.DOTALL)
    assert said
    assert printed.group(2) == said.group(1)
    assert float(printed.group(1)) == float(said.group(2))
