"""The questions each section answers (site/section_questions.tsv, fieldnotes_site.asks): the file parses,
every row names a section that exists, and bad rows are refused with the row named."""

from __future__ import annotations

import re

import pytest

from fieldnotes_site.asks import load_asks, parse_asks, unknown_sections
from tools.notebooks import notebook_paths, read

HEADER = "notebook\tsection\tquestion\n"


def numbered_sections() -> set[tuple[str, str]]:
    """(notebook, number) of every numbered ``##``/``###`` heading of the notebooks."""
    out = set()
    for path in notebook_paths():
        for cell in read(path).cells:
            if cell.cell_type == "markdown":
                for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)?) ", cell.source, re.M):
                    out.add((path.name[:2], m[1]))
    return out


def test_every_question_names_an_existing_section_and_most_sections_have_some():
    asks = load_asks()
    sections = numbered_sections()
    assert not unknown_sections(asks, sections), "rows whose section no longer exists"
    covered = len(set(asks) & sections) / len(sections)
    assert covered >= 0.9, f"only {covered:.0%} of the sections have questions"
    assert sum(map(len, asks.values())) >= 2 * len(asks)


def test_parse_keeps_questions_per_section():
    asks = parse_asks(HEADER + "05\t1.2\twhy is dropout output scaled?\n05\t1.2\tdropout 1/(1-p)\n")
    assert asks == {("05", "1.2"): ["why is dropout output scaled?", "dropout 1/(1-p)"]}
    assert unknown_sections(asks, {("05", "1.1")}) == [("05", "1.2")]


@pytest.mark.parametrize(
    "text, message",
    [
        ("notebook\tquestion\n", "header"),
        (HEADER + "05\t1.2\n", ":2: 2 fields"),
        (HEADER + "5\t1.2\twhy?\n", "two digits"),
        (HEADER + "05\t§1.2\twhy?\n", "is not a number"),
        (HEADER + "05\t1.2\t \n", "characters"),
        (HEADER + "05\t1.2\t" + "x" * 200 + "\n", "characters"),
        (HEADER + "05\t1.2\twhy?\n06\t1\tWhy?\n", ":3: the question"),
    ],
)
def test_bad_rows_are_refused_with_the_row_named(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_asks(text)
