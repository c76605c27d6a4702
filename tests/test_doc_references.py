"""Citations of docs/privacy.md resolve, its sections run in order, and the docs carry no
process labels.

Code, tests and docs cite the privacy analysis by section number ("docs/privacy.md 14.2",
"privacy.md §4.12", "docs/privacy.md section 7", "(docs/privacy.md, 7.5)",
"privacy.md 7.6-7.10"); a renumbering that left a citation pointing at nothing would go
unnoticed, so every cited number must be a heading of docs/privacy.md.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRIVACY = ROOT / "docs" / "privacy.md"

# Files scanned for citations of docs/privacy.md sections (globs relative to the root).
CITING_GLOBS = [
    "dpgraph/**/*.py",
    "tests/*.py",
    "benchmarks/*.py",
    "README.md",
    "docs/*.md",
    "BENCHMARKS.md",
    "benchmarks/NOTES.md",
]

# Files that must carry no process labels ("issue 12", "issues 11 and 16"; in the prose files
# also "session"): they state the present, and how it was found belongs to git history. In
# Python files "session" is a word of the code (a Dask session, pytest's session scope).
PROCESS_LABEL_GLOBS = [
    "README.md",
    "BENCHMARKS.md",
    "benchmarks/NOTES.md",
    "docs/*.md",
]
PROCESS_LABEL_CODE_GLOBS = [
    "dpgraph/**/*.py",
    "tests/*.py",
    "benchmarks/*.py",
]
PROCESS_LABEL = re.compile(r"\bissue \d+|\bissues? \d+ and \d+|\bsession\b", re.IGNORECASE)
PROCESS_LABEL_CODE = re.compile(r"\bissue \d+|\bissues \d+ and \d+", re.IGNORECASE)

# A citation: "privacy.md", then optional closing quotes / brackets, a comma, an opening
# parenthesis and "section(s)" / "§", then a list of section numbers joined by ",", "-", "–",
# "and", "to" or "&". Kept in step with the rewriting script's pattern.
_NUM = r"\d+(?:\.\d+)?(?![\d])(?!\.\d)"
_SEP = r"\s*(?:,|-|–|\band\b|\bto\b|&)\s*(?:§\s*)?"
CITATION = re.compile(
    r"privacy\.md[`'\"\)\]]*,?[ \t]*(?:\([ \t]*)?(?:(?:sections?|§)[ \t]*)?"
    r"(?P<list>" + _NUM + r"(?:" + _SEP + _NUM + r")*)"
)
NUMBER = re.compile(_NUM)
HEADING = re.compile(r"^(##|###) (\d+)(?:\.(\d+))?\.? ", re.MULTILINE)


def _files(globs):
    seen = []
    for pattern in globs:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file() and path not in seen:
                seen.append(path)
    return seen


def _headings():
    """(level, top, sub) for every numbered heading of docs/privacy.md, in file order."""
    out = []
    for m in HEADING.finditer(PRIVACY.read_text(encoding="utf-8")):
        level, top, sub = m.group(1), int(m.group(2)), m.group(3)
        out.append((level, top, None if sub is None else int(sub)))
    return out


def _section_numbers():
    return {f"{top}" if sub is None else f"{top}.{sub}" for _, top, sub in _headings()}


def _citations():
    """(file, line, cited number) for every section number cited in the scanned files."""
    out = []
    for path in _files(CITING_GLOBS):
        text = path.read_text(encoding="utf-8")
        for m in CITATION.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for number in NUMBER.findall(m.group("list")):
                out.append((str(path.relative_to(ROOT)), line, number))
    return out


def test_the_scan_finds_citations():
    # Guards the pattern itself: the repository cites privacy.md in well over a hundred places.
    cited = _citations()
    assert len(cited) > 100
    assert {"4.11", "5.4", "7.7", "14.2"} <= {number for _, _, number in cited}


def test_every_cited_privacy_section_exists():
    sections = _section_numbers()
    missing = [f"{path}:{line}: privacy.md {number}"
               for path, line, number in _citations() if number not in sections]
    assert not missing, "citations of docs/privacy.md sections that do not exist:\n" + "\n".join(missing)


def test_privacy_sections_in_numeric_order_without_gaps():
    headings = _headings()
    assert headings, "docs/privacy.md has no numbered headings"
    expected_top, expected_sub, current_top = 1, None, None
    for level, top, sub in headings:
        if sub is None:
            assert level == "##", f"section {top} should be a '##' heading"
            assert top == expected_top, f"section {top} found where {expected_top} was expected"
            current_top, expected_top, expected_sub = top, top + 1, 1
        else:
            assert level == "###", f"section {top}.{sub} should be a '###' heading"
            assert top == current_top, f"section {top}.{sub} sits inside section {current_top}"
            assert sub == expected_sub, (
                f"section {top}.{sub} found where {top}.{expected_sub} was expected")
            expected_sub = sub + 1


def test_privacy_table_of_contents_lists_every_section_in_order():
    text = PRIVACY.read_text(encoding="utf-8")
    toc = re.findall(r"^\s*- \[(\d+(?:\.\d+)?)\.? [^\]]*\]\(#[^)]+\)", text, re.MULTILINE)
    numbers = [f"{top}" if sub is None else f"{top}.{sub}" for _, top, sub in _headings()]
    assert toc == numbers


@pytest.mark.parametrize("path", _files(PROCESS_LABEL_GLOBS),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_process_labels(path):
    text = path.read_text(encoding="utf-8")
    hits = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
            for m in PROCESS_LABEL.finditer(text)]
    assert not hits, "process labels (issue numbers, sessions) in the docs:\n" + "\n".join(hits)


@pytest.mark.parametrize("path", [p for p in _files(PROCESS_LABEL_CODE_GLOBS)
                                  if p.name != "test_doc_references.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_process_labels_in_code(path):
    text = path.read_text(encoding="utf-8")
    hits = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
            for m in PROCESS_LABEL_CODE.finditer(text)]
    assert not hits, "process labels (issue numbers) in the code:\n" + "\n".join(hits)


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_privacy_table_of_contents_links_resolve():
    text = PRIVACY.read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"^#{2,3} (.+)$", text, re.MULTILINE)}
    broken = [a for a in re.findall(r"\]\(#([^)]+)\)", text) if a not in anchors]
    assert not broken, f"table-of-contents links to no heading: {broken}"
