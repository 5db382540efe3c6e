"""Reading notebooks for tests and site tools: the ledger, the claims list, metadata."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from helpers.claims import LEDGER_RE, SKIP_RE

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
NAME_RE = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
CLAIM_ITEM_RE = re.compile(r"^- \*\*(C\d+)\*\* ", re.M)


def notebook_paths() -> list[Path]:
    return sorted(p for p in NB_DIR.glob("*.ipynb"))


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def stdout_lines(nb: nbformat.NotebookNode):
    """Yield (cell index, line) for every stdout line stored in the notebook."""
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                for line in out.get("text", "").splitlines():
                    yield i, line


def ledger(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for _, line in stdout_lines(nb) if (m := LEDGER_RE.match(line))]


def skipped(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for _, line in stdout_lines(nb) if (m := SKIP_RE.match(line))]


def listed_claims(nb: nbformat.NotebookNode) -> list[str]:
    """Claim ids from the **Claims** list in the first markdown cell."""
    return CLAIM_ITEM_RE.findall(nb.cells[0].source)
