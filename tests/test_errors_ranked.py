"""The most-reported errors (site/errors_ranked.tsv) stay consistent with the notebooks: every message a row
says a notebook reproduces is shown (in its source or stored outputs) in the section it names."""

from __future__ import annotations

from dataclasses import replace
from difflib import SequenceMatcher

import pytest

from fieldnotes_site.notebook_page import numbered_headings
from fieldnotes_site.ranked import COLUMNS, coverage, load_ranked, parse_ranked
from tools.notebooks import notebook_paths, read

ROWS = load_ranked()
HEADER = "\t".join(COLUMNS)


def section_text(num: str, section: str) -> str:
    """Markdown, code and stored outputs of notebook ``num``'s section ``section`` and its subsections."""
    path = next(p for p in notebook_paths() if p.name.startswith(f"{num}_"))
    nb = read(path)
    heads = numbered_headings(nb.cells)
    start = next(((c, ln) for c, ln, n in heads if n == section), None)
    assert start is not None, f"{num} has no section {section}"
    inside = (section + ".", section)
    end = next(((c, ln) for c, ln, n in heads if (c, ln) > start and not n.startswith(inside)), None)
    parts = []
    for c, cell in enumerate(nb.cells):
        lines = cell.source.split("\n")
        keep = [line for ln, line in enumerate(lines) if (c, ln) >= start and (end is None or (c, ln) < end)]
        if not keep:
            continue
        parts += keep
        for out in cell.get("outputs", []):
            parts.append(
                out.get("text", "") or out.get("evalue", "") or out.get("data", {}).get("text/plain", "")
            )
    return " ".join(" ".join(parts).split())


def test_the_list_is_long_ranked_and_covered():
    assert len(ROWS) >= 100
    cov = coverage(ROWS)
    assert sum(n for n, _ in cov.values()) == len(ROWS)
    assert cov["reproduced"][0] + cov["gpu"][0] >= len(ROWS) // 2


#: How much of a message a section must show, verbatim: a notebook often asserts or prints a part of it.
SHOWN = 20


def shown(message: str, text: str) -> int:
    """Length of the longest run of ``message`` (spaces normalised, case ignored) that ``text`` contains."""
    a, b = " ".join(message.lower().split()), text
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


@pytest.mark.parametrize("row", [r for r in ROWS if r.where], ids=lambda r: f"rank{r.rank}")
def test_reproduced_messages_are_in_the_section_named(row):
    """At least :data:`SHOWN` characters of one of the message's wordings (a fixed part, not a placeholder;
    a shorter message's longest fixed part whole, a message without a fixed part of 12 characters whole,
    type included) appear verbatim in the section's text, code or stored outputs (a GPU-only reproduction
    too: its section shows or asserts the message on every machine)."""
    text = section_text(row.notebook, row.section).lower()
    shortfall = []
    for wording in (row.message, *row.variants):
        # a message without a fixed part of 12 characters ("KeyError: 'state_dict'"): the whole of it
        parts = replace(row, message=wording).fragments() or [wording]
        need = min(SHOWN, max(map(len, parts), default=0))  # a short message: its longest fixed part, whole
        best = max((shown(p, text) for p in parts), default=0)
        if best >= need:
            return
        shortfall.append(f"{best} of {need} characters of {wording!r}")
    pytest.fail(f"rank {row.rank}: not shown in {row.where}: {shortfall}")


@pytest.mark.parametrize(
    "line, problem",
    [
        ("1\tm\t\t3\thttps://x\tc\tf\treproduced\t\t", "'where' must be"),
        ("1\tm\t\t3\thttps://x\tc\tf\tenvironment\t16 §2.1\t", "'where' must be"),
        ("1\tm\t\t0\thttps://x\tc\tf\tenvironment\t\t", "positive integers"),
        ("1\tm\t\t3\tftp://x\tc\tf\tenvironment\t\t", "thread URLs"),
        ("1\tm\t\t3\thttps://x\tc\tf\tsolved\t\t", "status"),
        ("2\tm\t\t3\thttps://x\tc\tf\tenvironment\t\t", "ranks must run"),
        ("1\tm\t3\thttps://x\tc\tf\tenvironment\t\t", "fields"),
    ],
)
def test_bad_rows_are_refused_with_the_reason(line, problem):
    with pytest.raises(ValueError, match=problem):
        parse_ranked(f"# a comment\n{HEADER}\n{line}\n")


def test_fragments_are_the_fixed_parts():
    (row,) = parse_ranked(
        f"{HEADER}\n1\tRuntimeError: mat1 and mat2 shapes cannot be multiplied (<a>x<b> and <c>x<d>)\t\t2\t"
        "https://x\tc\tf\tenvironment\t\t\n"
    )
    assert row.fragments() == ["mat1 and mat2 shapes cannot be multiplied"]
    with pytest.raises(ValueError):
        row.fragments(0)
