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


# the fuzzing helpers (tests/fuzz_inputs.py, tests/fuzz_api.py) are imported by module name
import sys  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
