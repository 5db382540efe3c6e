"""Lay a notebook out for its reader (DESIGN.md, "Notebook anatomy"), and say what does not fit.

    python tools/anatomy.py                  # report every notebook's layout problems (exit 1 if any)
    python tools/anatomy.py --fix NB ...     # fold the checks, hide the setup, fit lines to 88 columns

``--fix`` does the mechanical part of the anatomy: it tags every cell that calls a claim check as a
folded check (:func:`tools.notebooks.fold_cell`), hides the setup and imports cells, formats the code
with ruff (``notebooks/.ruff.toml``: 88 columns) and splits what ruff leaves too long: string literals
inside brackets become implicit concatenations, trailing comments move above their line. What still does
not fit is reported with its cell and line, for a person to rewrite. The rules themselves live in
:func:`tools.notebooks.layout_problems`; the hygiene tests run them on every notebook.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.notebooks import (  # noqa: E402
    MAX_LINE,
    fold_cell,
    hide_cell,
    is_check_cell,
    layout_problems,
    notebook_paths,
    read,
    setup_cell_index,
    setup_cell_source,
)

RUFF = Path(sys.executable).with_name("ruff")
_PREFIX_RE = re.compile(r"^([rRbBuUfF]*)(['\"])")


def _split_text(body: str, width: int, fstring: bool, first: int | None = None) -> list[str]:
    """Split a string literal's body at spaces into pieces of at most ``width`` characters (never inside
    an f-string's ``{...}``); a piece keeps its trailing space. One piece when there is no place to cut."""
    pieces, start, depth, last_cut = [], 0, 0, None
    i = 0
    while i < len(body):
        ch = body[i]
        if fstring and body.startswith(("{{", "}}"), i):
            i += 2
            continue
        if fstring and ch == "{":
            depth += 1
        elif fstring and ch == "}":
            depth = max(0, depth - 1)
        elif ch == "\\":
            i += 2
            continue
        elif ch == " " and depth == 0 and i + 1 < len(body):
            last_cut = i + 1
        limit = first if first is not None and not pieces else width
        if i - start >= limit and last_cut and last_cut > start:
            pieces.append(body[start:last_cut])
            start, last_cut = last_cut, None
        i += 1
    pieces.append(body[start:])
    return [p for p in pieces if p]


def split_string(token: str, width: int, first: int | None = None) -> list[str] | None:
    """A one-line string literal as several literals of at most ``width`` characters each (``first``: of
    the first one) whose implicit concatenation is the same string, or None when it cannot be split
    (triple quotes, no spaces)."""
    if width < 20:
        raise ValueError(f"width must be at least 20 columns, got {width}")
    m = _PREFIX_RE.match(token)
    if not m or token[m.end() :].startswith(m.group(2) * 2) or "\n" in token:
        return None
    prefix, quote = m.groups()
    body = token[m.end() : -1]
    fstring = "f" in prefix.lower()
    room = len(prefix) + 2
    pieces = _split_text(body, width - room, fstring, None if first is None else max(10, first - room))
    if len(pieces) < 2:
        return None
    out = []
    for piece in pieces:
        p = (
            prefix
            if not fstring or "{" in piece.replace("{{", "")
            else prefix.replace("f", "").replace("F", "")
        )
        if fstring and p == prefix.replace("f", "").replace("F", ""):
            piece = piece.replace("{{", "{").replace("}}", "}")
        out.append(f"{p}{quote}{piece}{quote}")
    return out


def fit_source(source: str, width: int = MAX_LINE, strings: bool = True) -> str:
    """Move the trailing comments of long lines above their line and (``strings``) split long string
    literals inside brackets. Returns ``source`` unchanged when it does not tokenize (IPython magics).
    Comments move before ruff formats the cell (a trailing comment makes ruff break the code around it);
    strings split after (ruff leaves them whole)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # (row, col_start, col_end, replacement)
    depth = 0
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        row, col = tok.start
        if row > len(lines) or row != tok.end[0] or len(lines[row - 1].rstrip("\n")) <= width:
            continue
        indent = " " * (len(lines[row - 1]) - len(lines[row - 1].lstrip()))
        if tok.type == tokenize.COMMENT and lines[row - 1][:col].strip():
            wrapped = textwrap.wrap(tok.string.lstrip("# "), width - len(indent) - 2)
            above = "".join(f"{indent}# {w}\n" for w in wrapped)
            edits.append((row, -1, -1, above))
            edits.append((row, col, tok.end[1], ""))
        elif strings and tok.type == tokenize.STRING and depth > 0:
            pieces = split_string(tok.string, width - len(indent) - 4, width - col - 1)
            if pieces:
                edits.append((row, col, tok.end[1], f"\n{indent}    ".join(pieces)))
    for row, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        line = lines[row - 1]
        if start < 0:
            lines[row - 1] = text + line
        else:
            lines[row - 1] = (line[:start] + text + line[end:]).rstrip() + (
                "\n" if line.endswith("\n") else ""
            )
    return "".join(lines)


def ruff_format(path: Path) -> None:
    subprocess.run([str(RUFF), "format", "--quiet", str(path)], check=True)
    subprocess.run([str(RUFF), "check", "--quiet", "--fix", "--select", "I", str(path)], check=False)


def fix(path: Path) -> list[str]:
    """Apply the mechanical anatomy to one notebook in place; returns its remaining layout problems."""
    nb = read(path)
    nb.cells[0].source = fold_claim_list(nb.cells[0].source)
    setup = setup_cell_index(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if i == setup:
            cell.source = setup_cell_source()
            hide_cell(cell, remove=True)
        elif setup is not None and i == _next_code(nb, setup):
            hide_cell(cell)
        elif is_check_cell(cell):
            fold_cell(cell)
        if cell.cell_type == "code" and i != setup:
            cell.source = fit_source(cell.source, strings=False)
    nbformat.write(nb, path)
    ruff_format(path)
    nb = read(path)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and i != setup:
            cell.source = fit_source(cell.source)
    nbformat.write(nb, path)
    ruff_format(path)
    return layout_problems(read(path))


#: the summary line of a folded Claims list
SUMMARY = re.compile(r"^<summary>All \d+ claims this page proves</summary>$")


def _summary(n: int) -> str:
    return f"<summary>All {n} claims this page proves</summary>"


def fold_claim_list(source: str) -> str:
    """Fold the first cell's **Claims** list (to the end of its list) into ``<details>``: the reader opens
    it when wanted; the site and JupyterLab both render the block, and tools still read the list. A list
    folded before keeps its fold, its summary recounted (claims added later are counted)."""
    lines = source.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.startswith("**Claims**")), None)
    if start is None:
        return source
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(("- ", "  "))):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    n = sum(ln.startswith("- **C") for ln in lines[start:end])
    if any(ln.startswith("<details>") for ln in lines[:start]):
        return "\n".join([_summary(n) if SUMMARY.match(ln) else ln for ln in lines[:start]] + lines[start:])
    folded = ["<details>", _summary(n), ""]
    return "\n".join(lines[:start] + folded + lines[start:end] + ["", "</details>"] + lines[end:])


def _next_code(nb: nbformat.NotebookNode, after: int) -> int | None:
    return next((i for i in range(after + 1, len(nb.cells)) if nb.cells[i].cell_type == "code"), None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fix", action="store_true", help="lay the given notebooks out in place")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    args = parser.parse_args(argv)
    paths = args.notebooks or notebook_paths()
    bad = 0
    for path in paths:
        problems = fix(path) if args.fix else layout_problems(read(path))
        bad += bool(problems)
        for problem in problems:
            print(f"{path.name}: {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
