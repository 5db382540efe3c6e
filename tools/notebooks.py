"""Reading notebooks for the tools and tests: discovery, the ledger, the claims list.

The ledger line format itself is owned by :mod:`helpers.claims` (printed and parsed there).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from helpers.claims import LedgerEntry, parse_ledger, parse_skips

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


def _stdout(nb: nbformat.NotebookNode) -> str:
    return "\n".join(line for _, line in stdout_lines(nb))


def ledger(nb: nbformat.NotebookNode) -> list[LedgerEntry]:
    """Every verified claim (✔ line) stored in the notebook's outputs."""
    return parse_ledger(_stdout(nb))


def skipped(nb: nbformat.NotebookNode) -> list[LedgerEntry]:
    """Every claim that printed a skip line (⊘, e.g. needs CUDA) in the stored outputs."""
    return parse_skips(_stdout(nb))


def listed_claims(nb: nbformat.NotebookNode) -> list[str]:
    """Claim ids from the **Claims** list in the first markdown cell."""
    return CLAIM_ITEM_RE.findall(nb.cells[0].source)
