"""Notebooks as one Python module: the code cells joined, IPython syntax neutralised, lines mapped back.

The cells are checked together, as the kernel runs them (an import in the first cell resolves a name in
the tenth). Each cell is preceded by a marker comment, so a fixed module splits back into its cells.
IPython-only lines (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``) become ``pass`` at the same
indentation and are put back unchanged after a fix; cells that start with a cell magic (``%%bash``) are
not Python and are skipped whole. A cell that does not parse is blanked (:meth:`NotebookSource.blank`:
its lines left empty, so the others keep their line numbers) and left as it is, as the kernel runs the
other cells anyway.

Reading needs only the JSON of the cells (``json``: importing nbformat pulls in jsonschema, seconds on a
slow machine, for every hook run); a fixed notebook is written back with nbformat, in its format.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MARKER = "# fieldnotes-cell {index}"
MARKER_RE = re.compile(r"^# fieldnotes-cell (\d+)$")
# A shell escape (`!ls`, not a `!=` that a formatter put first on a continuation line) or a magic (`%time`,
# `%%writefile`, not a `% x` modulo operand), alone or assigned, or a `?` help line.
_ESCAPE = r"(?:!(?!=)|%(?=[%\w]))"
IPYTHON_LINE = re.compile(rf"^(\s*)(?:{_ESCAPE}|[\w.]+\s*=\s*{_ESCAPE}|[\w.]+\?{{1,2}}\s*$|\?{{1,2}}[\w.])")


@dataclass
class CellSource:
    """One code cell as it appears in the joined module."""

    index: int  # position in nb.cells (0-based)
    first_line: int  # line of the cell's first line in the joined module (1-based)
    source: str  # the cell's source as written
    neutralised: dict[int, str] = field(default_factory=dict)  # line number in cell (0-based) -> original
    lines: int = 0  # how many lines the cell has in the joined module
    blanked: bool = False  # it did not parse: its lines are empty in the module and a fix leaves it alone


@dataclass
class NotebookSource:
    """A notebook's code cells as one module (:attr:`code`) and the map back to cells."""

    path: Path
    notebook: dict[str, Any]
    code: str
    cells: list[CellSource]

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, 1-based as nbQA and editors count all cells; line in that cell) of a module line."""
        cell = self.cell_at(line)
        return cell.index + 1, line - cell.first_line + 1

    def cell_at(self, line: int) -> CellSource:
        """The cell that holds a module line (the first cell for the marker above it)."""
        before = [c for c in self.cells if c.first_line <= line]  # (cells are in module order)
        return before[-1] if before else self.cells[0]

    def blank(self, cell: CellSource) -> None:
        """Empty ``cell``'s lines in :attr:`code` (every line keeps its number) and mark it to be left
        alone by :meth:`apply`."""
        lines = self.code.split("\n")
        start = cell.first_line - 1
        lines[start : start + cell.lines] = [""] * cell.lines
        self.code = "\n".join(lines)
        cell.blanked = True

    def apply(self, fixed: str) -> bool:
        """Put the cells of the fixed module back into :attr:`notebook`; True if any cell changed. All or
        nothing: False, and no cell touched, if a cell with IPython syntax no longer lines up."""
        by_index = {c.index: c for c in self.cells}
        chunks: dict[int, list[str]] = {}
        current = chunks.setdefault(self.cells[0].index, []) if self.cells else []
        for line in fixed.removesuffix("\n").split("\n"):
            m = MARKER_RE.match(line)
            if m:
                current = chunks.setdefault(int(m.group(1)), [])
            else:
                current.append(line)  # (an import a fix adds above the first marker joins the first cell)
        new_sources: dict[int, str] = {}
        for index, lines in chunks.items():
            cell = by_index[index]
            if cell.blanked:  # left as it is; a fix that put lines there (an import) cannot be applied
                if lines != [""] * cell.lines:
                    return False
                continue
            if cell.neutralised:
                if len(lines) != len(cell.source.split("\n")):
                    return False  # a fix moved lines around IPython syntax: leave the notebook as it was
                for i, original in cell.neutralised.items():
                    lines[i] = original
            text = "\n".join(lines)
            if text != cell.source:
                new_sources[index] = text
        for index, text in new_sources.items():
            self.notebook["cells"][index]["source"] = text
        return bool(new_sources)


def neutralise(source: str) -> tuple[str, dict[int, str]]:
    """The cell as Python: IPython-only lines replaced by ``pass`` at their indentation."""
    lines = source.split("\n")
    if source.lstrip().startswith("%%"):
        return "\n".join("" for _ in lines), {i: line for i, line in enumerate(lines)}
    replaced = {}
    for i, line in enumerate(lines):
        m = IPYTHON_LINE.match(line)
        if m and not line.lstrip().startswith("#"):
            replaced[i] = line
            lines[i] = f"{m.group(1)}pass"
    return "\n".join(lines), replaced


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def read_notebook(path: Path) -> NotebookSource:
    """Read ``path`` (nbformat 4 JSON) and join its code cells; raises ``ValueError`` on a bad file."""
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    if not isinstance(data, dict) or data.get("nbformat") != 4 or not isinstance(data.get("cells"), list):
        raise ValueError("not a Jupyter notebook in nbformat 4")
    parts: list[str] = []
    cells: list[CellSource] = []
    line = 1
    for index, cell in enumerate(data["cells"]):
        if cell.get("cell_type") != "code":
            continue
        source = cell_source(cell)
        code, replaced = neutralise(source)
        parts.append(MARKER.format(index=index))
        n = len(code.split("\n"))
        cells.append(CellSource(index, line + 1, source, replaced, n))
        parts.append(code)
        line += 1 + n
    return NotebookSource(path, data, "\n".join(parts) + "\n", cells)


def write_notebook(source: NotebookSource) -> None:
    """Write the (fixed) notebook back with nbformat, which keeps the .ipynb format."""
    import nbformat

    nbformat.write(nbformat.from_dict(source.notebook), source.path)
