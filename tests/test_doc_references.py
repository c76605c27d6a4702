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


# ------------------------------------------------------------------ cited tests exist
# The docs name the tests that check each bound: "`tests/test_x.py::test_name`", a bare
# "`::test_name`" after a file reference in the same paragraph (the file is the last one named
# before it), a glob ("`tests/test_x.py::test_zcdp_ledger_*`") and, in the prose, a backticked
# "`test_name`". A renamed or moved test would leave the bound citing a check that does not run.
TEST_CITING_DOCS = ["docs/privacy.md", "docs/audit.md", "README.md", "BENCHMARKS.md"]
_TEST_NAME = r"[\w*]+(?:\[[^\]`]*\])?"
TEST_FILE_REF = re.compile(r"tests/(?P<file>[\w/]+\.py)(?:::\s*(?P<name>" + _TEST_NAME + r"))?")
BARE_TEST_REF = re.compile(r"(?<![\w/.])::\s*(?P<name>" + _TEST_NAME + r")")
BACKTICKED_TEST = re.compile(r"`(?P<name>test_[\w*]+)(?:\[[^\]`]*\])?`")


def _doc_paragraphs(text):
    """(first line, paragraph, line_of) for the blank-line separated paragraphs of a Markdown
    text. A backticked name broken after an underscore at a line end is joined again; line_of(pos)
    maps a position of the joined paragraph to its line in the text."""
    line = 1
    for block in re.split(r"(\n[ \t]*\n)", text):
        if block.strip() and not block.startswith("\n"):
            pieces, kept, last = [], [], 0
            for m in re.finditer(r"(?<=_)\n[ \t]*", block):
                pieces.append(block[last:m.start()])
                kept.extend(range(last, m.start()))
                last = m.end()
            pieces.append(block[last:])
            kept.extend(range(last, len(block)))

            def line_of(pos, first=line, block=block, kept=kept):
                return first + block.count("\n", 0, kept[pos])
            yield line, "".join(pieces), line_of
        line += block.count("\n")


_DEFS = {}


def _defined_functions(path):
    """Names of every function (module level, nested or a method) defined in a Python file."""
    if path not in _DEFS:
        import ast
        tree = ast.parse(path.read_text(encoding="utf-8"))
        _DEFS[path] = {node.name for node in ast.walk(tree)
                       if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return _DEFS[path]


def _matches(pattern, names):
    import fnmatch
    pattern = pattern.split("[", 1)[0]  # test_x[param] is test_x
    return any(fnmatch.fnmatchcase(name, pattern) for name in names)


def _cited_tests():
    """(doc, line, file or None, name or None) for every test file / test name cited."""
    out = []
    for doc in TEST_CITING_DOCS:
        for _, para, line_of in _doc_paragraphs((ROOT / doc).read_text(encoding="utf-8")):
            refs = sorted([(m.start(), m, True) for m in TEST_FILE_REF.finditer(para)]
                          + [(m.start(), m, False) for m in BARE_TEST_REF.finditer(para)],
                          key=lambda r: r[0])
            current = None
            for pos, m, is_file in refs:
                if is_file:
                    current = m.group("file")
                out.append((doc, line_of(pos), current, m.group("name")))
    return out


def test_the_scan_finds_cited_tests():
    # Guards the patterns: privacy.md names dozens of tests, several through the bare form.
    cited = _cited_tests()
    named = [(f, n) for _, _, f, n in cited if n is not None]
    assert len(named) > 50
    assert ("test_certify.py", "test_upper_end_is_the_one_sided_quantile") in named
    assert ("test_secure_rng.py", "test_known_seed_recovers_every_pair") in named
    assert ("test_privacy_statistical.py", "test_zcdp_ledger_*") in named


def test_every_cited_test_exists():
    broken = []
    for doc, line, file, name in _cited_tests():
        where = f"{doc}:{line}: "
        if file is None:
            broken.append(where + f"::{name} follows no tests/<file>.py in its paragraph")
            continue
        path = ROOT / "tests" / file
        if not path.is_file():
            broken.append(where + f"tests/{file} does not exist")
        elif name is not None and not _matches(name, _defined_functions(path)):
            broken.append(where + f"tests/{file} defines no test {name}")
    assert not broken, "cited tests that do not exist:\n" + "\n".join(broken)


def test_every_backticked_test_name_is_defined_in_the_tests():
    defined = set()
    for path in (ROOT / "tests").glob("*.py"):
        defined |= _defined_functions(path)
    broken = []
    for doc in TEST_CITING_DOCS:
        for _, para, line_of in _doc_paragraphs((ROOT / doc).read_text(encoding="utf-8")):
            for m in BACKTICKED_TEST.finditer(para):
                if not _matches(m.group("name"), defined):
                    broken.append(f"{doc}:{line_of(m.start())}: {m.group('name')}")
    assert not broken, ("test names in the docs that no file of tests/ defines:\n"
                        + "\n".join(broken))
