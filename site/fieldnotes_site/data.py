"""What the site knows, read once per build: each notebook (title, claims, errors reproduced, stamp) and
the records' matrix (:class:`SiteData`, reached from a Sphinx app with :func:`data`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from sphinx.application import Sphinx

from tools.notebooks import (
    ANSI_RE,
    claim_cells,
    ledger,
    load_records,
    metadata,
    notebook_paths,
    read,
    skipped,
)

from .base import (
    claim_label,
    read_tsv,
)
from .records import Matrix
from .sources import checked_messages, claim_raises_calls, heading_before, version_branches


@dataclass
class ErrorEntry:
    """One error message a notebook reproduces: what the error index lists and the search matches."""

    anchor: str
    kind: str  # "exact": the whole message as stored; "asserted": the part claim_raises checks
    ename: str
    message: str
    num: str
    docname: str
    section: str
    claim: str = ""
    statement: str = ""
    gpu_only: bool = False  # its claim is skipped on the CPU runner: the cell shows it only on a GPU

    @property
    def shown(self) -> str:
        """The message's first line as the error lists show it: "(message varies)" when there is none, and
        an asserted part that stops inside brackets or quotes ("DataLoader worker (pid") ends in "…", so
        it does not read as the whole message cut by mistake."""
        text = ANSI_RE.sub("", self.message).strip()
        line = text.splitlines()[0] if text else ""
        if not line:
            return "(message varies)"
        pairs = ("()", "[]", "{}", "<>")
        unclosed = any(line.count(a) > line.count(b) for a, b in pairs) or line.count('"') % 2
        return f"{line}…" if self.kind == "asserted" and unclosed else line


@dataclass
class Notebook:
    path: Path
    meta: dict
    title: str
    ledger: list
    skipped: list
    errors: list[ErrorEntry] = field(default_factory=list)
    anchors: list[tuple[int, str]] = field(default_factory=list)  # (cell index, target) to insert
    branches: dict[str, list[str]] = field(default_factory=dict)
    holds_on: str = ""

    @property
    def num(self) -> str:
        return self.path.name[:2]

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def docname(self) -> str:
        return f"notebooks/{self.stem}"

    def entries(self) -> list[tuple[Any, str]]:
        """(ledger entry, stored result) sorted by claim number."""
        rows = [(e, "✔") for e in self.ledger] + [(e, "⊘ needs CUDA") for e in self.skipped]
        return sorted(rows, key=lambda r: int(r[0].cid[1:]))


_CLASS = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))\b")


def _named_class(statement: str) -> str:
    """The exception or warning class a claim's statement names (the first), else "message"."""
    m = _CLASS.search(statement)
    return m[1] if m else "message"


def load_notebook(path: Path, matrix: Matrix) -> Notebook:
    nb = read(path)
    info = Notebook(path, metadata(nb), title_of(nb), ledger(nb), skipped(nb))
    statements = {e.cid: e.statement for e in info.ledger + info.skipped}
    gpu_only = {e.cid for e in info.skipped}
    cells = claim_cells(nb)
    info.branches = {
        cid: v for i in sorted(set(cells.values())) for cid, v in version_branches(nb.cells[i].source).items()
    }
    info.holds_on = matrix.holds_on(path.stem, [e.cid for e in info.ledger + info.skipped])
    n_error = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        labels = [claim_label(info.num, cid) for cid, at in cells.items() if at == i]
        tags = cell.get("metadata", {}).get("tags", [])
        found = []
        if "raises-exception" in tags:
            found += [
                ("exact", out["ename"], out["evalue"], "")
                for out in cell.get("outputs", [])
                if out.get("output_type") == "error"
            ]
        found += [("asserted", exc, match, cid) for cid, exc, match in claim_raises_calls(cell.source)]
        found += [
            ("asserted", exc or _named_class(statements.get(cid, "")), match, cid)
            for cid, exc, match in checked_messages(cell.source)
        ]
        found = list(dict.fromkeys(found))  # a message checked twice in one cell is one entry
        if found:
            n_error += 1
            anchor = f"error-{info.num}-{n_error}"
            labels.append(anchor)
            for kind, ename, message, cid in found:
                info.errors.append(
                    ErrorEntry(
                        anchor,
                        kind,
                        ename,
                        message,
                        info.num,
                        info.docname,
                        heading_before(nb.cells, i),
                        cid,
                        statements.get(cid, ""),
                        gpu_only=cid in gpu_only,
                    )
                )
        info.anchors += [(i, label) for label in labels]
    return info


def title_of(nb: nbformat.NotebookNode) -> str:
    return nb.cells[0].source.splitlines()[0].lstrip("# ").strip()


def stamp(meta: dict) -> str:
    last = meta.get("last_verified", {})
    needs = ", ".join(meta.get("needs", ["cpu"]))
    return (
        f"last verified {last.get('date', '?')} with torch {last.get('torch', '?')} "
        f"(Python {last.get('python', '?')}) on {last.get('device', '?')} · needs: {needs} · "
        f"runs in ~{meta.get('expected_duration_s', '?')}\u00a0s"
    )


class SiteData:
    """Everything the generated parts need, read once per build from the notebooks, TSVs and records."""

    def __init__(self) -> None:
        paths = notebook_paths()
        self.matrix = Matrix(
            load_records(), {p.stem: metadata(read(p)).get("source_hash", "") for p in paths}
        )
        self.notebooks = [load_notebook(p, self.matrix) for p in paths]
        self.by_doc = {nb.docname: nb for nb in self.notebooks}
        self.by_num = {nb.num: nb for nb in self.notebooks}
        self.terms = read_tsv("glossary.tsv")
        self.coverage = read_tsv("coverage.tsv")

    @property
    def n_claims(self) -> int:
        return sum(len(nb.ledger) for nb in self.notebooks)

    @property
    def n_gpu_only(self) -> int:
        """The claims the CPU runner skips (they need CUDA)."""
        return sum(len(nb.skipped) for nb in self.notebooks)

    def errors(self) -> list[ErrorEntry]:
        return [e for nb in self.notebooks for e in nb.errors]


def data(app: Sphinx) -> SiteData:
    if getattr(app, "fieldnotes", None) is None:
        app.fieldnotes = SiteData()  # type: ignore[attr-defined]
    return app.fieldnotes  # type: ignore[attr-defined]
