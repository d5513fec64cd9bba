"""The documents in docs/ against the code: every rule the code cites is in docs/rules.md.

Why: tests, docstrings and the engine's refusals cite the rules by number
(``R8.4`` in text, ``test_r8_4_...`` in a test's name). A number that is not
in docs/rules.md sends the reader nowhere, and the specification the numbers
come from lives outside the repository, so its numbering is written out here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
# Where rules are cited: the code, the tests, the templates, the scripts and the documents.
CITING = ("games", "bot", "gin3site", "tests", "templates", "bench", "scripts", "docs", "README.md")
SKIPPED = {"__pycache__", "node_modules"}

# The numbering of the rules gin3 was specified with: R1 to R10 and each of their parts.
NUMBERING = (
    ("R1", "R1.1", "R1.2", "R1.3"),
    ("R2", "R2.1", "R2.2", "R2.3", "R2.4"),
    ("R3", "R3.1", "R3.2", "R3.3", "R3.4", "R3.5"),
    ("R4", "R4.1", "R4.2", "R4.3", "R4.4"),
    ("R5", "R5.1", "R5.2", "R5.3", "R5.4"),
    ("R6", "R6.1", "R6.2", "R6.3"),
    ("R7", "R7.1", "R7.2", "R7.3", "R7.4", "R7.5", "R7.6"),
    ("R8", "R8.1", "R8.2", "R8.3", "R8.4", "R8.5", "R8.6"),
    ("R9", "R9.1", "R9.2", "R9.3"),
    ("R10", "R10.1", "R10.2", "R10.3"),
)
ALL_RULES = [number for rule in NUMBERING for number in rule]

# "R8.4" in text; "R8\.4" in a regular expression counts too.
CITATION = re.compile(r"(?<!\w)R(\d+)(?:\\?\.(\d+))?(?!\w)")
# "r8_4" as a part of a test's name: test_r8_4_equal_counts_is_undercut, test_r7_3_r7_4_...
NAMED = re.compile(r"(?:^|_)r(\d+)(?:_(\d+))?(?=_|$)")
# Where docs/rules.md defines a rule: a heading ("## R8 Scoring a hand") or an item ("- **R8.4** ...").
DEFINITION = re.compile(r"^(?:#{1,6}\s+|\s*[-*]\s+(?:\*\*)?)(R\d+(?:\.\d+)?)(?:\*\*)?\s", re.MULTILINE)
BACKTICKED_TEST = re.compile(r"`(test_\w+)`")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
SHARED_FILES = re.compile(r"\b(?:RULES|PROTOCOL|ARCHITECTURE)\.md\b")


def rule_number(rule: str, part: str | None) -> str:
    return f"R{int(rule)}" + (f".{int(part)}" if part else "")


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def text_files(root: Path, names: Iterable[str] = CITING) -> Iterable[tuple[Path, str]]:
    """Every text file under ``names`` in ``root``, with its text."""
    for name in names:
        top = root / name
        paths = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in paths:
            if not path.is_file() or SKIPPED & set(path.relative_to(root).parts):
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a compiled catalogue, an image: no citation in it


def functions_named_test(path: Path, text: str) -> Iterable[tuple[str, int]]:
    """The names of the test functions in a Python file, with their lines."""
    if path.suffix != ".py":
        return
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            yield node.name, node.lineno


def citations(root: Path, names: Iterable[str] = CITING) -> dict[str, list[str]]:
    """Each rule number cited under ``root``, with the places (``path:line``) that cite it."""
    cited: dict[str, list[str]] = {}
    for path, text in text_files(root, names):
        where = path.relative_to(root)
        for found in CITATION.finditer(text):
            cited.setdefault(rule_number(*found.groups()), []).append(f"{where}:{line_of(text, found.start())}")
        for name, line in functions_named_test(path, text):
            for found in NAMED.finditer(name.removeprefix("test")):
                cited.setdefault(rule_number(*found.groups()), []).append(f"{where}:{line} {name}")
    return cited


def defined_rules(text: str) -> list[str]:
    """The rule numbers a rules document defines, in order."""
    return DEFINITION.findall(text)


def undefined_citations(root: Path, rules_text: str, names: Iterable[str] = CITING) -> dict[str, list[str]]:
    """The rule numbers cited under ``root`` that ``rules_text`` does not define."""
    defined = set(defined_rules(rules_text))
    return {rule: places for rule, places in citations(root, names).items() if rule not in defined}


def test_docs_rules_md_defines_each_rule_of_the_numbering_once_in_order():
    assert defined_rules(RULES.read_text(encoding="utf-8")) == ALL_RULES


def test_every_rule_cited_in_the_repository_is_defined_in_docs_rules_md():
    missing = undefined_citations(ROOT, RULES.read_text(encoding="utf-8"))
    assert not missing, f"cited but not in docs/rules.md: {missing}"


def test_the_repository_cites_rules_at_all():
    # A scan that found nothing would pass the test above for no reason.
    cited = citations(ROOT)
    assert {"R3.2", "R8.4", "R10.3"} <= set(cited)
    assert any("test_r8_4_equal_counts_is_undercut" in place for place in cited["R8.4"])


def test_a_citation_of_a_rule_that_is_not_in_the_rules_is_reported(tmp_path):
    # Written so that this file itself cites no such rule.
    unknown, unknown_in_a_name, unknown_in_a_template = "R" + "99.1", "R" + "98.2", "R" + "7.9"
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "engine.py").write_text(f'"""Knocking ({unknown}), scoring (R8.4)."""\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_engine.py").write_text(
        "def test_r" + "98_2_a_rule_nobody_wrote():\n    pass\n\n\n"
        "def test_r8_4_equal_counts_is_undercut():\n    pass\n"
    )
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text(f"<p>as {unknown_in_a_template} says</p>\n")
    rules_text = RULES.read_text(encoding="utf-8")

    missing = undefined_citations(tmp_path, rules_text)

    assert set(missing) == {unknown, unknown_in_a_name, unknown_in_a_template}
    assert missing[unknown] == ["games/engine.py:1"]
    assert missing[unknown_in_a_name] == ["tests/test_engine.py:1 test_r" + "98_2_a_rule_nobody_wrote"]
    assert missing[unknown_in_a_template] == ["templates/page.html:1"]


def test_a_rule_left_out_of_the_rules_is_reported_where_it_is_cited(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "scoring.py").write_text("# Undercut (R8.4).\n")
    rules_text = RULES.read_text(encoding="utf-8").replace("- **R8.4**", "- ")

    assert undefined_citations(tmp_path, rules_text) == {"R8.4": ["games/scoring.py:1"]}


def test_citations_are_read_in_every_form_the_code_writes_them():
    assert [rule_number(*m.groups()) for m in CITATION.finditer(r"(R4 to R9), R10.3. match=r'\(R8\.3\)' R7.5's")] == [
        "R4",
        "R9",
        "R10.3",
        "R8.3",
        "R7.5",
    ]
    assert [rule_number(*m.groups()) for m in CITATION.finditer("CR1 R2D2 R3_1 XR4.4")] == []
    name = "_r8_r3_4_r10_scores_change_only_as_the_rules_say_r9_3_49_takes"
    assert [rule_number(*m.groups()) for m in NAMED.finditer(name)] == ["R8", "R3.4", "R10", "R9.3"]


def test_every_part_of_every_rule_has_a_test_named_for_it():
    named = {
        rule_number(*found.groups())
        for path, text in text_files(ROOT, ["tests"])
        for name, _line in functions_named_test(path, text)
        for found in NAMED.finditer(name.removeprefix("test"))
    }
    parts = [number for number in ALL_RULES if "." in number]
    assert [number for number in parts if number not in named] == []


def test_every_test_the_documents_name_exists():
    tests = {name for path, text in text_files(ROOT, ["tests"]) for name, _line in functions_named_test(path, text)}
    named = {name for _path, text in text_files(ROOT, ["docs"]) for name in BACKTICKED_TEST.findall(text)}
    assert named, "docs/rules.md names the tests of its worked examples"
    assert sorted(named - tests) == []


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown page's headings, as GitHub makes them: ``## R8 Scoring`` is ``#r8-scoring``."""
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_link_in_the_readme_and_the_documents_resolves_in_the_repository():
    broken = []
    for path, text in text_files(ROOT, ["README.md", "docs"]):
        for target in MARKDOWN_LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # a web address
            file, _hash, anchor = target.partition("#")
            linked = (path.parent / file) if file else path
            if not linked.exists() or (anchor and anchor not in anchors(linked.read_text(encoding="utf-8"))):
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_nothing_in_the_repository_points_at_the_shared_files_beside_it():
    # The rules, the protocol and the architecture are docs/rules.md, docs/protocol.md
    # and docs/architecture.md; a fresh clone has nothing beside it.
    places = [
        f"{path.relative_to(ROOT)}:{line_of(text, found.start())}"
        for path, text in text_files(ROOT, (*CITING, ".ci", "Makefile", "Dockerfile", "pyproject.toml"))
        for found in SHARED_FILES.finditer(text)
    ]
    assert places == []
