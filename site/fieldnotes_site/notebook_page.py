"""A notebook page as the reader sees it: at source-read the verification box, the claim and error targets
and the GPU outputs are inserted into the page (never into the repository's file); at doctree-read the ✔
lines of the folded checks become compact badges and figure captions get their style."""

from __future__ import annotations

import re

import nbformat
from docutils import nodes
from sphinx.application import Sphinx

from helpers.claims import parse_ledger, parse_skips
from tools.notebooks import (
    claim_cells,
)

from .base import RULE_TITLES, check_label, rule_label, rules_by_claim
from .data import data
from .records import Matrix

_HEADING = re.compile(r"#{2,6}\s")
_FENCE = re.compile(r"\s*(`{3,}|~{3,})")


def heading_position(cells: list, index: int) -> tuple[int, int] | None:
    """(cell, line) of the last Markdown heading above cell ``index`` (fenced code skipped), or None."""
    for h in range(index - 1, -1, -1):
        if cells[h].cell_type != "markdown":
            continue
        found, fence = None, ""
        for n, line in enumerate(cells[h].source.split("\n")):
            marker = _FENCE.match(line)
            if marker and (not fence or marker[1].startswith(fence)):
                fence = "" if fence else marker[1]
            elif not fence and _HEADING.match(line):
                found = n
        if found is not None:
            return h, found
    return None


_NUMBERED = re.compile(r"#{2,3}\s+(\d+(?:\.\d+)?)\s")


def section_label(num: str, section: str) -> str:
    """The target of a numbered section on its notebook page, e.g. ``sec-16-13-4`` for 16 §13.4."""
    if not re.fullmatch(r"\d\d", num) or not re.fullmatch(r"\d+(\.\d+)?", section):
        raise ValueError(f"expected a notebook number and a section like '16', '13.4': {num!r}, {section!r}")
    return f"sec-{num}-{section.replace('.', '-')}"


def numbered_headings(cells: list) -> list[tuple[int, int, str]]:
    """(cell, line, number) of every numbered section heading (``## 3``, ``### 3.2``), fenced code skipped."""
    out = []
    for c, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        fence = ""
        for n, line in enumerate(cell.source.split("\n")):
            marker = _FENCE.match(line)
            if marker and (not fence or marker[1].startswith(fence)):
                fence = "" if fence else marker[1]
            elif not fence and (m := _NUMBERED.match(line)):
                out.append((c, n, m[1]))
    return out


def literal_markdown(text: str) -> str:
    """``text`` as literal MyST Markdown: every ASCII punctuation mark that could start markup escaped."""
    return re.sub(r"([\\`*_\[\]<>{}#|~])", r"\\\1", text)


_CAPTION = re.compile(r"\*\*(Figure \d+(?:\.\d+)*\.)\*\*\s*")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
#: *emphasis* or _emphasis_ (not a*b*c, not snake_case names), for the words without the markers.
_EMPHASIS = re.compile(
    r"(?<![\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])|(?<!\w)_([^_\s](?:[^_]*[^_\s])?)_(?!\w)"
)
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")


def figure_alts(cells: list) -> dict[int, str]:
    """Code cell index -> the alt text of the figure it draws: the caption of the Markdown cell right after
    it (``**Figure N.** …``), as plain text, so a reader without the image (a screen reader, images off, a
    slow phone) reads what the figure shows instead of a file name."""
    out = {}
    for k, cell in enumerate(cells[:-1]):
        has_image = cell.cell_type == "code" and any(
            "image/png" in o.get("data", {}) for o in cell.get("outputs", [])
        )
        caption = _CAPTION.match(cells[k + 1].source) if cells[k + 1].cell_type == "markdown" else None
        if has_image and caption:
            text = _CAPTION.sub(r"\1 ", cells[k + 1].source, count=1)
            text = _LINK.sub(r"\1", text).replace("**", "").replace("`", "").replace("$", "")
            text = _SQRT.sub(r"√(\1)", _EMPHASIS.sub(lambda m: m[1] or m[2], text))
            out[k] = " ".join(text.split())
    return out


def stamp_notebook(app: Sphinx, docname: str, source: list[str]) -> None:
    """Insert the stamp and the claim/error/section targets into the page (never into the repository's file).

    A claim's or an error's target sits on the heading of the section that teaches it, so a link (from the
    ledger, the error index, a search hit) opens the page at the explanation, the demonstration and the
    badge, in reading order; a note on the rules a claim proves sits above its check, and what a GPU run
    printed below it."""
    nb_info = data(app).by_doc.get(docname)
    if nb_info is None:
        return
    nb = nbformat.reads(source[0], as_version=4)
    md = nbformat.v4.new_markdown_cell
    backs = rules_by_claim()
    gpu_printed = gpu_outputs(data(app).matrix, nb_info.stem, claim_cells(nb))
    before: dict[int, list] = {}
    after: dict[int, list] = {i: [md(text)] for i, text in gpu_printed.items()}
    targets: dict[int, dict[int, list[str]]] = {}
    for c, line, number in numbered_headings(nb.cells):  # "16 §13.4" links (the most-reported errors)
        targets.setdefault(c, {}).setdefault(line, []).append(section_label(nb_info.num, number))
    for i, label in sorted(nb_info.anchors):
        at = heading_position(nb.cells, i)
        if at is None:
            before.setdefault(i, []).append(md(f"({label})="))
        else:
            targets.setdefault(at[0], {}).setdefault(at[1], []).append(label)
        num, cid = label.split("-")[1:] if label.startswith("claim-") else ("", "")
        codes = backs.get(f"{num}-{cid.upper()}", [])
        if codes:  # the claim proves a `fieldnotes check` rule: say so where the reader sees the claim
            # each rule with its title, so the note says what it finds wherever it sits on the page
            links = "; ".join(
                f"{{ref}}`{code} <{rule_label(code)}>` — {literal_markdown(RULE_TITLES[code])}"
                for code in codes
            )
            note = f"This project's linter, `fieldnotes check`, finds this in your code: {links}"
            before.setdefault(i, []).append(md(f"```{{container}} fn-rule-note\n{note}\n```"))
    for cid, i in claim_cells(nb).items():  # the ledger's "open its check" lands on the check cell itself
        before.setdefault(i, []).append(md(f"({check_label(nb_info.num, cid)})="))
    for k, alt in figure_alts(nb.cells).items():
        nb.cells[k].metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = alt
    cells = []
    for k, cell in enumerate(nb.cells):
        cells += before.get(k, [])
        if k in targets:  # split the Markdown cell at each targeted heading, the targets just above it
            lines, start = cell.source.split("\n"), 0
            for line in sorted(targets[k]):
                if line > start:
                    cells.append(md("\n".join(lines[start:line])))
                cells += [md(f"({label})=") for label in dict.fromkeys(targets[k][line])]
                start = line
            cells.append(md("\n".join(lines[start:])))
        else:
            cells.append(cell)
        cells += after.get(k, [])
    nb.cells = cells
    nb.cells.insert(1, md("```{fieldnotes-stamp}\n```"))
    source[0] = nbformat.writes(nb)


SLOW = "⏱"
#: ⏱ drawn as an inline SVG clock: Debian's chromium with no emoji font showed an empty box.
CLOCK_SVG = (
    '<svg class="fn-clock" role="img" aria-label="slow cell (⏱)" viewBox="0 0 16 16" width="1em" '
    'height="1em"><circle cx="8" cy="9" r="6" fill="none" stroke="currentColor" stroke-width="1.6"/>'
    '<path d="M8 5.5V9l2.4 1.6M6.2 1.5h3.6M8 1.5V3" fill="none" stroke="currentColor" '
    'stroke-width="1.6" stroke-linecap="round"/></svg>'
)
_FIGURE_RE = re.compile(r"^Figure \d+(\.\d+)?[a-z]?\.$")


def lay_out_outputs(app: Sphinx, doctree: nodes.document) -> None:
    """Lay out the proof compactly where the reader meets it (DESIGN.md, "Notebook anatomy").

    * A stored output's ledger lines (``✔ C3 statement — against …``, ``⊘ …``) become one line each: a
      small ``✔ C3`` badge, the statement, the reference in smaller type. The text stays text (the page
      search indexes it; what the tests verified is what the reader reads); other lines stay as printed.
    * A caption paragraph (``**Figure 5.1.** …``) is marked for its style, and becomes the alt text of the
      figures above it (since the previous caption): a screen reader, or a page whose image failed, reads
      what the figure shows instead of a file name.
    * An output printed as a table (its lines line up in columns) is marked ``fn-tabular``: on a phone it
      scrolls in its box instead of wrapping, so its columns stay aligned.
    """
    for block in list(doctree.findall(nodes.literal_block)):
        if "stream" not in block.get("classes", []):
            continue
        lines = block.astext().splitlines()
        parsed = [(parse_ledger(ln) or parse_skips(ln) or [None])[0] for ln in lines]
        if not any(parsed):
            continue
        box = nodes.container(classes=["fn-ledger"])
        rest: list[str] = []

        def flush() -> None:
            if rest:
                text = "\n".join(rest)
                box.append(nodes.literal_block(text, text, classes=block["classes"], language="none"))
                rest.clear()

        for line, entry in zip(lines, parsed):
            if entry is None:
                rest.append(line)
                continue
            flush()
            mark, against = line[0], line.partition(" — against ")[2]
            statement = entry.statement
            kind = "fn-claim-pass" if mark == "✔" else "fn-claim-skip"
            par = nodes.paragraph(classes=["fn-claim-line", kind])
            par += nodes.inline(f"{mark} {entry.cid}", f"{mark} {entry.cid}", classes=["fn-badge"])
            par += nodes.Text(f" {statement} ")
            par += nodes.inline("", f"— against {against}", classes=["fn-against"])
            box += par
        flush()
        block.replace_self(box)
    for text in list(doctree.findall(nodes.Text)):  # ⏱ needs an emoji font: draw it
        if SLOW in text and not isinstance(text.parent, (nodes.literal_block, nodes.raw)):
            pieces = str(text).split(SLOW)
            new: list[nodes.Node] = [nodes.Text(pieces[0])]
            for piece in pieces[1:]:
                new += [nodes.raw("", CLOCK_SVG, format="html"), nodes.Text(piece)]
            text.parent.replace(text, new)
    figures: list[nodes.image] = []
    for node in doctree.findall(lambda n: isinstance(n, (nodes.image, nodes.paragraph))):
        if isinstance(node, nodes.image):
            figures.append(node)
            continue
        first = node.children[0] if node.children else None
        if isinstance(first, nodes.strong) and _FIGURE_RE.match(first.astext()):
            node["classes"].append("fn-caption")
            for image in figures:
                image["alt"] = " ".join(node.astext().split())
            figures.clear()
    for block in doctree.findall(nodes.literal_block):
        if "output" in block.get("classes", []) and is_tabular(block.astext()):
            block["classes"].append("fn-tabular")


_COLUMN_GAP = re.compile(r"[^\s.!?] {2,}\S| \| ")


def is_tabular(text: str) -> bool:
    """Whether printed text is a table: at least 3 lines, at least 2 of them with a column gap (two or more
    spaces between words, or `` | ``). Two spaces after a full stop are a sentence gap, not a column: some
    messages put them there ("at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: …"), and
    two such messages printed one under the other are prose that should wrap on a phone."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return len(lines) >= 3 and sum(bool(_COLUMN_GAP.search(ln)) for ln in lines) >= 2


_BREAK_AFTER = re.compile(r"(?<=[._/(,=:;\]-])(?=[^\s._/(,=:;\]-])|(?<=[a-z])(?=[A-Z][a-z])")
_LONG = re.compile(r"\S{16,}")


def table_breaks(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In tables, a long token (code, a call, a path: 16 characters or more) may break after ``.``, ``_``,
    ``/``, ``(``, ``,``, ``=``, ``:``, ``;``, ``]`` or ``-``, or between the words of a CamelCase name
    (``Backend<wbr>Compiler<wbr>Failed``), a ``<wbr>``, and only there: columns stay as narrow as their
    words, and no word is broken mid-word."""
    for table in doctree.findall(nodes.table):
        for text in list(table.findall(nodes.Text)):
            if isinstance(text.parent, nodes.raw) or not _LONG.search(str(text)):
                continue
            new: list[nodes.Node] = []
            last = 0
            for m in _LONG.finditer(str(text)):
                new.append(nodes.Text(str(text)[last : m.start()]))
                for i, piece in enumerate(_BREAK_AFTER.split(m.group())):
                    if i:
                        new.append(nodes.raw("", "<wbr>", format="html"))
                    new.append(nodes.Text(piece))
                last = m.end()
            new.append(nodes.Text(str(text)[last:]))
            text.parent.replace(text, [n for n in new if not isinstance(n, nodes.Text) or str(n)])


#: A numeric range ("2.3–2.8", "2019–2021"): a line may break after an en dash, which left "2.3–" at a
#: line's end on a phone; each range is put in a span that does not wrap (fieldnotes.css, .fn-range), a
#: range of sections ("§3.1–3.3") with its link (sectionrefs.py makes "§3.1" a link before this runs).
# (ASCII \w, as the browser test's: a range next to Chinese, "第2–3章", is a range)
_RANGE = re.compile(r"(?<![\w.])\d++(?:\.\d++)*+–\d++(?:\.\d++)*+(?!\.?\w)", re.ASCII)
_SECTION_TAIL = re.compile(r"–\d++(?:\.\d++)*+(?!\.?\w)", re.ASCII)  # "–3.3" after the link "§3.1"
_VERBATIM = (nodes.literal, nodes.FixedTextElement, nodes.raw, nodes.math, nodes.comment)


def _range(*children: nodes.Node) -> nodes.inline:
    return nodes.inline("", "", *children, classes=["fn-range"])


def _secref(node: nodes.Node | None) -> bool:
    return isinstance(node, nodes.reference) and "fn-secref" in node["classes"]


def join_ranges(app: Sphinx | None, doctree: nodes.document, docname: str) -> None:
    """Every numeric range in the page's prose and generated text stays on one line (not in code, math or
    raw HTML, which are shown as written): "2.0–2.15", "§3.1–3.3" and "§1.2–§1.4" (the § are links); the
    text itself is unchanged."""
    for text in list(doctree.findall(nodes.Text)):
        value, parent = str(text), text.parent
        tail, between = _SECTION_TAIL.match(value), value == "–"
        if (
            not (tail or between or _RANGE.search(value))
            or (isinstance(parent, nodes.inline) and "fn-range" in parent["classes"])  # joined already
            or any(isinstance(a, _VERBATIM) for a in _ancestors(text))
        ):
            continue
        at = next(i for i, child in enumerate(parent.children) if child is text)  # (Text == compares text)
        before = parent[at - 1] if at else None
        after = parent[at + 1] if at + 1 < len(parent) else None
        if between:
            if _secref(before) and _secref(after):
                parent[at - 1 : at + 2] = [_range(before, nodes.Text(value), after)]
            continue
        new: list[nodes.Node] = []
        start = at
        if tail and _secref(before):
            new.append(_range(before, nodes.Text(tail.group())))
            value, start = value[tail.end() :], at - 1
        last = 0
        for m in _RANGE.finditer(value):
            new += [nodes.Text(value[last : m.start()]), _range(nodes.Text(m.group()))]
            last = m.end()
        new.append(nodes.Text(value[last:]))
        parent[start : at + 1] = [n for n in new if not isinstance(n, nodes.Text) or str(n)]


def _ancestors(node: nodes.Node):  # noqa: ANN202 - a generator of nodes
    while node.parent is not None:
        node = node.parent
        yield node


def gpu_outputs(matrix: Matrix, stem: str, cells: dict[str, int]) -> dict[int, str]:
    """Cell index -> a block showing what that GPU-guarded cell printed in each GPU run (on the CPU runner
    its stored output is only the skip line). A cell with two such claims printed one text: shown once."""
    blocks: dict[int, dict[str, str]] = {}
    for rec in matrix.gpu:
        for cid, text in rec.outputs.get(stem, {}).items():
            if cid not in cells or rec.label in blocks.get(cells[cid], {}):
                continue
            when = f"{rec.device}, torch {rec.build or rec.torch}, {rec.date}"
            fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
            shown = f"{fence}text\n{text}\n{fence}"
            if matrix.stale(rec, stem):  # folded: what an earlier revision's check printed may not match
                shown = (
                    f"<details>\n<summary>What this check printed on a GPU ({when}), recorded for "
                    f"an earlier version of this page</summary>\n\n{shown}\n\n</details>"
                )
            else:
                shown = f"**On the GPU** ({when}) the check above printed:\n\n{shown}"
            blocks.setdefault(cells[cid], {})[rec.label] = shown
    outer = "`" * 8
    return {
        i: f"{outer}{{container}} fn-gpu-output\n" + "\n\n".join(by_rec.values()) + f"\n{outer}"
        for i, by_rec in blocks.items()
    }
