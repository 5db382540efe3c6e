"""Notebook hygiene: what nbval alone does not check, and the template every notebook follows."""

from __future__ import annotations

import getpass
import re
import socket

import nbformat
import pytest

from helpers.claims import LEDGER_RE, SKIP_RE
from tools.notebooks import (
    NAME_RE,
    layout_problems,
    ledger,
    listed_claims,
    metadata_problems,
    notebook_paths,
    read,
    setup_cell_index,
    setup_cell_source,
    skipped,
    stdout_lines,
)

PATHS = notebook_paths()
IDS = [p.name for p in PATHS]
MAX_BYTES = 1_000_000


def _texts(cell):
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        for part in (
            out.get("text", ""),
            data.get("text/plain", ""),
            data.get("text/html", ""),
            out.get("evalue", ""),
            "\n".join(out.get("traceback", [])),
        ):
            yield "".join(part) if isinstance(part, list) else part


def test_there_are_notebooks():
    assert PATHS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_name_valid_and_small(path):
    assert NAME_RE.match(path.name), f"{path.name}: name must be NN_topic.ipynb"
    assert path.stat().st_size <= MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes > 1 MB"
    nbformat.validate(read(path))


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_executed_in_order(path):
    counts = [c.execution_count for c in read(path).cells if c.cell_type == "code"]
    assert None not in counts, f"{path.name}: {counts.count(None)} code cell(s) never executed"
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: not executed top to bottom in one run"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_one_stdout_output_per_cell(path):
    """make execute merges a cell's stdout chunks (a line printed in two chunks would show broken in two on
    the site and in old JupyterLab views)."""
    for i, cell in enumerate(read(path).cells):
        names = [o.get("name") for o in cell.get("outputs", []) if o.get("output_type") == "stream"]
        assert names.count("stdout") <= 1, f"{path.name} cell {i}: {names.count('stdout')} stdout outputs"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_errors_only_where_tagged_and_no_stderr(path):
    for i, cell in enumerate(read(path).cells):
        tags = cell.get("metadata", {}).get("tags", [])
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                assert "raises-exception" in tags, f"{path.name} cell {i}: error without raises-exception tag"
            assert not (out.get("output_type") == "stream" and out.get("name") == "stderr"), (
                f"{path.name} cell {i}: stderr in stored output: {out.get('text', '')[:200]!r}"
            )
        if "raises-exception" in tags:
            assert any(o.get("output_type") == "error" for o in cell.get("outputs", [])), (
                f"{path.name} cell {i}: tagged raises-exception but raised nothing"
            )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_trailing_semicolon(path):
    """A trailing ';' hides the cell's result under nbclient but NOT under nbval (it executes without
    storing history, and IPython's ';' check reads the history): the stored and tested outputs differ.
    Assign instead: `_ = model.train()`."""
    for i, cell in enumerate(read(path).cells):
        if cell.cell_type == "code" and cell.source.strip():
            last = cell.source.rstrip().splitlines()[-1].split("#")[0].rstrip()
            assert not last.endswith(";"), f"{path.name} cell {i}: ends with ';' — assign the value instead"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_machine_specific_text(path):
    bad = [
        re.compile(r"(?<![\w.:/~])/(?:home|root|Users|tmp|work|opt)/"),
        re.compile(r"site-packages"),
        re.compile(r"\bat 0x[0-9a-f]{6,}"),
        re.compile(r"^(USDT:|[WEI]\d{4} \d\d:\d\d:\d\d)", re.M),
    ]
    host = socket.gethostname()
    user = getpass.getuser()
    for i, cell in enumerate(read(path).cells):
        for text in _texts(cell):
            for rx in bad:
                assert not rx.search(text), f"{path.name} cell {i}: machine-specific text {rx.pattern!r}"
            if len(host) > 3:
                assert host not in text, f"{path.name} cell {i}: host name in output"
            if user not in ("root", "runner") and len(user) > 3:
                assert user not in text, f"{path.name} cell {i}: user name in output"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_metadata(path):
    problems = metadata_problems(read(path))
    assert not problems, f"{path.name}: " + "; ".join(problems)


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_template_and_ledger(path):
    nb = read(path)
    number = path.name[:2]
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith(f"# {number} · "), (
        f"{path.name}: first cell must be the title '# {number} · Topic'"
    )
    assert "**Why this matters.**" in first.source and "**Claims**" in first.source
    headings = [
        ln
        for c in nb.cells
        if c.cell_type == "markdown"
        for ln in c.source.splitlines()
        if ln.startswith("## ")
    ]
    for needed in ("## Takeaways", "## References"):
        assert needed in headings, f"{path.name}: section {needed!r} missing"
    broken = [
        line
        for _, line in stdout_lines(nb)
        if line.startswith(("✔ C", "⊘ C")) and not (LEDGER_RE.match(line) or SKIP_RE.match(line))
    ]
    assert not broken, (
        f"{path.name}: ledger lines without a '— against <kind>: <reference>' part: {broken[:3]}"
    )
    listed = listed_claims(nb)
    verified = [e.cid for e in ledger(nb)]
    skips = [e.cid for e in skipped(nb)]
    assert len(listed) == len(set(listed)), f"{path.name}: duplicate ids in the Claims list"
    assert len(verified) == len(set(verified)), f"{path.name}: a claim id printed twice"
    assert set(verified).isdisjoint(skips), f"{path.name}: a claim both verified and skipped"
    assert sorted(verified + skips, key=lambda c: int(c[1:])) == sorted(listed, key=lambda c: int(c[1:])), (
        f"{path.name}: Claims list {listed} != verified {verified} + skipped {skips}"
    )


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_lesson_first_layout(path):
    """DESIGN.md, "Notebook anatomy": what you will learn first, the claim list folded, numbered descriptive
    headings, every check folded, setup hidden, code lines and the lines visible cells print within 88
    columns (tools/anatomy.py --fix; printed lines are wrapped by hand)."""
    problems = layout_problems(read(path))
    assert not problems, f"{path.name}: " + "; ".join(problems[:8])


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_first_code_cell_is_the_setup_cell(path):
    """A downloaded notebook runs outside the repository (Colab): its first code cell makes `import helpers`
    work there, and it is the same cell, with the configured repository URL, in every notebook."""
    nb = read(path)
    index = setup_cell_index(nb)
    assert index is not None, f"{path.name}: the first code cell must be the setup cell (tools.notebooks)"
    assert nb.cells[index].source == setup_cell_source(), (
        f"{path.name}: the setup cell differs from tools.notebooks.setup_cell_source(); re-insert it"
    )
    before = "".join(c.source for c in nb.cells[:index])
    assert "import" not in before and not nb.cells[index].get("outputs"), f"{path.name}: setup cell"
