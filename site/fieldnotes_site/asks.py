"""The questions each notebook section answers, in readers' words (``site/section_questions.tsv``).

The section search (``_static/fieldnotes-search.js``) ranks a reader's question against every section; a
reader's words often differ from the section's own ("reshape vs view", "why is my dropout output
scaled?"). Each row of the file gives one question a section answers: ``notebook`` (two digits),
``section`` (its number as in the heading, ``1.2`` or ``3``) and ``question``. They were written from the
notebooks alone, by writers who did not see the question test sets (``tests/data/questions*.tsv``), so those
sets still measure the search honestly. The search index adds them to the section's ``asks``: the search
page matches a question against each of them (and against the section's own words).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from pathlib import Path

from .base import SITE

ASKS = SITE / "section_questions.tsv"
HEADER = ("notebook", "section", "question")
_NOTEBOOK = re.compile(r"^\d\d$")
_SECTION = re.compile(r"^\d+(\.\d+)?$")
#: A question longer than this is prose, not something a reader types into a search box.
MAX_CHARS = 160


def parse_asks(text: str, source: str = "section_questions.tsv") -> dict[tuple[str, str], list[str]]:
    """``(notebook, section) -> questions`` from the file's text; a ``ValueError`` names the first bad row
    (wrong header or field count, a malformed notebook or section number, an empty, overlong or repeated
    question)."""
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    if not rows or tuple(rows[0]) != HEADER:
        raise ValueError(f"{source}: the header must be {'<TAB>'.join(HEADER)}")
    out: dict[tuple[str, str], list[str]] = {}
    seen: set[str] = set()
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(HEADER):
            raise ValueError(f"{source}:{line}: {len(row)} fields, expected {len(HEADER)}")
        notebook, section, question = (field.strip() for field in row)
        if not _NOTEBOOK.match(notebook):
            raise ValueError(f"{source}:{line}: notebook {notebook!r} is not two digits")
        if not _SECTION.match(section):
            raise ValueError(f"{source}:{line}: section {section!r} is not a number like 3 or 1.2")
        if not question or len(question) > MAX_CHARS:
            raise ValueError(f"{source}:{line}: a question must have 1-{MAX_CHARS} characters")
        if question.lower() in seen:
            raise ValueError(f"{source}:{line}: the question {question!r} appears twice")
        seen.add(question.lower())
        out.setdefault((notebook, section), []).append(question)
    return out


def load_asks(path: Path = ASKS) -> dict[tuple[str, str], list[str]]:
    """:func:`parse_asks` of the file; an empty mapping when it does not exist."""
    return parse_asks(path.read_text(encoding="utf-8"), path.name) if path.exists() else {}


def unknown_sections(
    asks: dict[tuple[str, str], list[str]], sections: Iterable[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The ``(notebook, section)`` keys of ``asks`` that name no existing section: a heading renumbered
    without the file following."""
    known = set(sections)
    return sorted(key for key in asks if key not in known)
