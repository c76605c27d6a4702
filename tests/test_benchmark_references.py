"""Every benchmark script the docs, the code and the other scripts name exists (in benchmarks/,
or tests/ for the fuzz helpers), so the commands quoted next to the numbers of BENCHMARKS.md and
benchmarks/NOTES.md run.

A note about an experiment whose script was removed says so in the same paragraph ("removed
script", or the commit the number was "measured at"); only there may a missing name appear.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
GLOBS = ["README.md", "BENCHMARKS.md", "benchmarks/NOTES.md", "docs/*.md", "dpgraph/**/*.py",
         "tests/*.py", "benchmarks/*.py", "examples/*.py"]
NAME = re.compile(r"\b((?:bench|make|fuzz|pgb|output)_[a-z0-9_]+)\.py\b")
EXEMPT = re.compile(r"removed script|measured at commit", re.IGNORECASE)


def _paragraphs(text: str):
    """Blank-line paragraphs, with a markdown list item (``- ``) as a paragraph of its own."""
    for block in re.split(r"\n\s*\n", text):
        yield from re.split(r"\n(?=- )", block)


def _missing():
    out = []
    for pattern in GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            for para in _paragraphs(path.read_text(encoding="utf-8")):
                if EXEMPT.search(para):
                    continue
                for name in set(NAME.findall(para)):
                    if not ((BENCH / f"{name}.py").exists()
                            or (ROOT / "tests" / f"{name}.py").exists()):
                        out.append(f"{path.relative_to(ROOT)}: {name}.py")
    return sorted(set(out))


def test_named_benchmark_scripts_exist():
    missing = _missing()
    assert not missing, "benchmark scripts named but not in benchmarks/:\n" + "\n".join(missing)


def test_the_scan_finds_names():
    # the scan is not vacuous: BENCHMARKS.md quotes commands of existing scripts
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert {"bench_pca", "bench_local"} <= set(NAME.findall(text))
    assert list(_paragraphs("a\n- x bench_gone.py\n- removed script: bench_old.py")) == [
        "a", "- x bench_gone.py", "- removed script: bench_old.py"]
