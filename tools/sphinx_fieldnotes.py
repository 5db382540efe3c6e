"""Sphinx extension that builds the site's generated parts from the notebooks and the verification records.

``site/conf.py`` loads it, so ``sphinx-build site _build/html`` alone builds the whole site:

- **Notebook pages**: the repository's notebooks (``site/notebooks`` links to them) are read as they are; at
  ``source-read`` each page gets a ``fieldnotes-stamp`` admonition (claims, last verification, the torch
  versions it holds on, downloads) and a target before every claim cell (``claim-NN-cK``) and every error
  demonstration (``error-NN-K``). The downloadable source (``_sources/``) is the untouched notebook.
- **Generated pages** come from directives that build docutils nodes (no Markdown assembled from strings, so
  nothing needs escaping): ``fieldnotes-summary``, ``fieldnotes-notebooks``, ``fieldnotes-claims``,
  ``fieldnotes-changes``, ``fieldnotes-errors``, ``fieldnotes-glossary``, ``fieldnotes-coverage``.
- **Search**: Chinese mode with the Porter stemmer the browser uses (Sphinx's Chinese indexer stems English
  words with Snowball's "english", so ~80 words could never be found); ``fieldnotes-search.js`` matches a
  pasted error message against the error index (``_static/fieldnotes-errors.js``) and keeps the page search
  working when a paste has numbers, shapes or paths the index does not know.
- **Weight**: only the MathJax files the pages load; a small icon script in place of the theme's 1.5 MB
  Font Awesome bundle (the icons it draws are taken from that bundle at build time); no source maps,
  doctrees, build info or unrendered templates in the output.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.search.zh import SearchChinese
from sphinx.util import logging

from fieldnotes.check.rules import RULES
from helpers.claims import REFERENCE_KINDS, parse_ledger, parse_skips
from tools import porter_js
from tools.notebooks import (
    ANSI_RE,
    VerificationRecord,
    claim_cells,
    ledger,
    load_records,
    metadata,
    notebook_paths,
    read,
    skipped,
    version_key,
)

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
STATIC = SITE / "_static"
RELEASE_URL = "https://github.com/pytorch/pytorch/releases/tag/v{}"
SYMBOL = {"pass": "✔", "fail": "✘", "not reached": "·", "skipped": "⊘", None: "?"}
#: The pages the directives generate: rebuilt whenever anything is (they depend on every notebook).
GENERATED = ("index", "claims", "changes", "errors", "glossary", "coverage", "rules")
#: What `fieldnotes check` was measured on (public repositories, a hand-labelled sample of its findings).
MEASURED = ROOT / "fieldnotes" / "check" / "measured"
#: Packages the notebooks import: where a record ran them at other versions than the lock, the page says so.
RUNTIME_PINS = (
    "numpy",
    "opencv-python-headless",
    "onnx",
    "onnxruntime",
    "onnxscript",
    "matplotlib",
    "pillow",
)


# --------------------------------------------------------------------------------------------------- data
def read_tsv(name: str) -> list[dict[str, str]]:
    with open(SITE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def claim_label(num: str, cid: str) -> str:
    """The target of a claim's cell on its notebook page, e.g. ``claim-16-c10``."""
    return f"claim-{num}-{cid.lower()}"


def rule_label(code: str) -> str:
    """The target of a `fieldnotes check` rule on the rules page, e.g. ``rule-fnc018``."""
    return f"rule-{code.lower()}"


def rules_by_claim() -> dict[str, list[str]]:
    """``NN-Cn`` -> the codes of the rules that cite it (the claim proves what the rule finds)."""
    out: dict[str, list[str]] = {}
    for r in RULES:
        out.setdefault(r.claim, []).append(r.code)
    return out


def env_note(rec: VerificationRecord) -> str:
    """The notebook packages a record ran at other versions than the lock, e.g. "numpy 1.26.4"."""
    return ", ".join(f"{k} {rec.pins[k].split(' ')[0]}" for k in RUNTIME_PINS if k in rec.pins)


class Matrix:
    """The verification records, read for the pages: CPU records by torch version, and GPU runs."""

    def __init__(self, records: list[VerificationRecord], current: dict[str, str] | None = None):
        self.cpu = [r for r in records if not r.is_gpu]
        self.gpu = [r for r in records if r.is_gpu]
        self.current = current or {}  # notebook stem -> source hash of the notebook as it is now

    def stale(self, rec: VerificationRecord, stem: str) -> bool:
        """The record ran an earlier revision of this notebook (its source hash differs)."""
        recorded = rec.notebooks.get(stem, {}).get("source_hash")
        return stem in self.current and recorded != self.current[stem]

    def results(self, stem: str, cid: str, records: list[VerificationRecord] | None = None) -> list:
        return [(r, r.result(stem, cid)) for r in (self.cpu if records is None else records)]

    def grid(self, stem: str, cid: str) -> nodes.Node:
        """A caniuse-style row of cells, one per CPU record (oldest left), with the result as a tooltip."""
        if not self.cpu:
            return nodes.Text("not recorded")
        cells = []
        for rec, res in self.results(stem, cid):
            kind = "nr" if res is None or rec.status != "ran" else res.result.replace(" ", "-")
            why = rec.status if rec.status != "ran" else (res.detail if res and res.detail else "")
            word = "could not run" if rec.status != "ran" else (res.result if res else "not recorded")
            tip = f"torch {rec.torch}: {word}" + (f" ({why[:200]})" if why else "")
            if self.stale(rec, stem):
                kind += " fn-stale"
                tip += " [recorded for an earlier revision of this notebook]"
            tip = tip.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            cells.append(f'<span class="fn-v fn-{kind}" title="{tip}" aria-label="{tip}"></span>')
        return nodes.raw("", f'<span class="fn-grid">{"".join(cells)}</span>', format="html")

    def gpu_cell(self, stem: str, cid: str) -> str:
        if not self.gpu:
            return "not run"
        return " ".join(SYMBOL[res.result if res else None] for _, res in self.results(stem, cid, self.gpu))

    def header(self) -> str:
        if not self.cpu:
            return "torch versions"
        return f"torch {minor(self.cpu[0].torch)} → {minor(self.cpu[-1].torch)}"

    @staticmethod
    def tally(rec: VerificationRecord, stem: str, cids: list[str]) -> tuple[int, int]:
        """(passed, tried) of a notebook's claims in one record; skipped or unrecorded: not tried."""
        tried = [r for r in (rec.result(stem, c) for c in cids) if r is not None and r.result != "skipped"]
        return sum(r.result == "pass" for r in tried), len(tried)

    def _holding(self, stem: str, cids: list[str]) -> list[str]:
        """The recorded CPU versions (minor) on which every tried claim of a notebook held."""
        return [
            minor(rec.torch)
            for rec in self.cpu
            if rec.status == "ran" and (t := self.tally(rec, stem, cids))[1] and t[0] == t[1]
        ]

    def cpu_span(self, stem: str, cids: list[str]) -> str:
        """The recorded CPU versions on which every claim of a notebook held, short ("torch 2.7–2.15")."""
        full = self._holding(stem, cids)
        return f"torch {_ranges(full, [minor(r.torch) for r in self.cpu])}" if full else "none recorded"

    def holds_on(self, stem: str, cids: list[str]) -> str:
        """One line: the versions on which every claim of a notebook held, and the others' counts."""
        if not self.cpu:
            return ""
        full = self._holding(stem, cids)
        partial = []
        for rec in self.cpu:
            if minor(rec.torch) not in full:
                passed, tried = self.tally(rec, stem, cids)
                partial.append(f"{minor(rec.torch)}: {passed} of {tried or len(cids)}")
        text = f"holds on {self.cpu_span(stem, cids)}" if full else "holds on no recorded version"
        if partial:
            text += f" (claims held on {', '.join(partial)})"
        if self.gpu:
            text += "; GPU: " + "; ".join(self.gpu_summary(stem, cids))
        return text

    def gpu_summary(self, stem: str, cids: list[str], short: bool = False) -> list[str]:
        """Per GPU record, how many of the notebook's claims held there: "NVIDIA H200, torch 2.11: 23 of 24
        hold" (``short``: "H200, torch 2.11: …")."""
        out = []
        for rec in self.gpu:
            passed, tried = self.tally(rec, stem, cids)
            word = f"all {passed} hold" if tried and passed == tried else f"{passed} of {tried} hold"
            stale = " (an earlier revision)" if self.stale(rec, stem) else ""
            device = rec.device.removeprefix("NVIDIA ") if short else rec.device
            out.append(f"{device}, torch {minor(rec.torch)}: {word}{stale}")
        return out


def _ranges(chosen: list[str], order: list[str]) -> str:
    """["2.4", "2.5", "2.6", "2.9"] in order 2.0..2.15 -> "2.4–2.6, 2.9"."""
    out, run = [], []
    for v in order:
        if v in chosen:
            run.append(v)
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in out)


def heading_before(cells: list, index: int) -> str:
    """The last Markdown heading above cell ``index`` (a ``# comment`` inside a fenced code block is code)."""
    for cell in reversed(cells[:index]):
        if cell.cell_type == "markdown":
            headings, fence = [], ""
            for line in cell.source.splitlines():
                marker = re.match(r"\s*(`{3,}|~{3,})", line)
                if marker and (not fence or marker[1].startswith(fence)):
                    fence = "" if fence else marker[1]
                elif not fence and re.match(r"#{1,6}\s", line):
                    headings.append(line.lstrip("#").strip())
            if headings:
                return headings[-1]
    return ""


def _parse(source: str) -> ast.Module | None:
    """A cell's source as a tree, or None when it is not Python (a magic, a shell line)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _calls(tree: ast.AST, names: set[str], min_args: int = 1) -> list[ast.Call]:
    """Every call of a plain name in ``names`` with at least ``min_args`` positional arguments."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in names
        and len(node.args) >= min_args
    ]


def _assigned_values(tree: ast.AST) -> dict[str, list[ast.expr]]:
    """Name -> every expression assigned to it in a cell (tuple unpacking included), in source order."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name):
                            values.setdefault(t.id, []).append(v)
    return values


def _resolve(node: ast.expr, values: dict[str, list[ast.expr]]) -> list[ast.expr]:
    """The expressions a claim_raises argument stands for: itself, or what its name was assigned (a check
    that branches on the torch version assigns the exception and message per branch)."""
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    return [node]


def claim_raises_calls(source: str) -> list[tuple[str, str, str]]:
    """(claim id, exception name, asserted message part) for each claim_raises(...) in a cell; where the
    exception or message is a name assigned per version branch, the alternatives joined by " / "."""
    tree = _parse(source)
    if tree is None:
        return []
    values = _assigned_values(tree)
    found = []
    for node in _calls(tree, {"claim_raises"}, min_args=4):
        cid = node.args[0].value if isinstance(node.args[0], ast.Constant) else "?"
        exc = " / ".join(dict.fromkeys(ast.unparse(v) for v in _resolve(node.args[3], values)))
        match_node = node.args[4] if len(node.args) >= 5 else None
        for kw in node.keywords:
            if kw.arg == "match":
                match_node = kw.value
        match = ""
        if match_node is not None:
            texts = [v.value for v in _resolve(match_node, values) if isinstance(v, ast.Constant)]
            match = " / ".join(dict.fromkeys(t for t in texts if isinstance(t, str)))
        found.append((cid, exc, match))
    return found


CLAIM_FUNCS = {"claim", "claim_close", "claim_raises", "skip"}


def checked_messages(source: str) -> list[tuple[str, str, str]]:
    """(claim id, exception name, message part) for the other ways a claim cell checks a message: the
    ``raises(fn, Exc, "part")`` helper inside a condition, and ``"a message of four words or more" in text``
    (the type is then unknown: ""). The claim is the claim call that contains the check, else the next one
    in the cell, else the cell's last."""
    tree = _parse(source)
    if tree is None:
        return []
    claims = sorted(
        (node.lineno, node.end_lineno or node.lineno, node.args[0].value)
        for node in _calls(tree, CLAIM_FUNCS)
        if isinstance(node.args[0], ast.Constant)
    )
    if not claims:
        return []

    def owner(line: int) -> str:
        inside = [c for c in claims if c[0] <= line <= c[1]]
        after = [c for c in claims if c[0] > line]
        return str((inside or after or claims[-1:])[0][2])

    found = [
        (node.lineno, owner(node.lineno), ast.unparse(node.args[1]), node.args[2].value)
        for node in _calls(tree, {"raises"}, min_args=3)
        if isinstance(node.args[2], ast.Constant) and isinstance(node.args[2].value, str)
    ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and len(node.left.value.split()) >= 4
        ):
            found.append((node.lineno, owner(node.lineno), "", node.left.value))
    return [f[1:] for f in sorted(found)]


def _since_versions(node: ast.AST) -> list[str]:
    return [
        n.args[0].value
        for n in _calls(node, {"since"})
        if isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
    ]


def version_branches(source: str) -> dict[str, list[str]]:
    """Claim id -> versions of the since("X.Y") calls (helpers.versions) its check depends on: in the claim
    call's own arguments, or in a variable they use that was assigned from a since() branch."""
    tree = _parse(source)
    if tree is None:
        return {}
    tainted: dict[str, list[str]] = {}
    # assignments under `if since(...)` / `elif since(...)` branch on those versions too
    guarded: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _since_versions(node.test):
            for child in [*node.body, *node.orelse]:
                for inner in ast.walk(child):
                    guarded.setdefault(id(inner), []).extend(_since_versions(node.test))
    for node in ast.walk(tree):  # assignments whose value branches on the version (one level of names)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            versions = _since_versions(node.value) + guarded.get(id(node), [])
            versions += [
                v for n in ast.walk(node.value) if isinstance(n, ast.Name) for v in tainted.get(n.id, [])
            ]
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name) and versions:
                        tainted[name.id] = sorted(set(tainted.get(name.id, []) + versions))
    out: dict[str, list[str]] = {}
    for node in _calls(tree, CLAIM_FUNCS):
        if not isinstance(node.args[0], ast.Constant):
            continue
        args = [*node.args, *(kw.value for kw in node.keywords)]
        versions = [v for arg in args for v in _since_versions(arg)]
        versions += [
            v for arg in args for n in ast.walk(arg) if isinstance(n, ast.Name) for v in tainted.get(n.id, [])
        ]
        if versions:
            out[str(node.args[0].value)] = sorted(set(versions))
    return out


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
        f"runs in ~{meta.get('expected_duration_s', '?')} s"
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

    def errors(self) -> list[ErrorEntry]:
        return [e for nb in self.notebooks for e in nb.errors]


def data(app: Sphinx) -> SiteData:
    if getattr(app, "fieldnotes", None) is None:
        app.fieldnotes = SiteData()  # type: ignore[attr-defined]
    return app.fieldnotes  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ node helpers
_CODE = re.compile(r"(`[^`]+`)")


def text_nodes(text: str) -> list[nodes.Node]:
    """Plain text, with `backticked` spans as inline code: the text reads exactly as written."""
    out: list[nodes.Node] = []
    for i, part in enumerate(_CODE.split(" ".join(text.split()))):
        if not part:
            continue
        out.append(nodes.literal(part[1:-1], part[1:-1]) if i % 2 else nodes.Text(part))
    return out


def xref(docname: str, target: str, content: Any, reftype: str = "ref") -> addnodes.pending_xref:
    """A link Sphinx resolves (and warns about when broken): to a label (``ref``) or a page (``doc``)."""
    node = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype=reftype,
        reftarget=target,
        refexplicit=True,
        refwarn=True,
        refdoc=docname,
    )
    node += nodes.inline("", "", *_as_nodes(content))
    return node


def _as_nodes(content: Any) -> list[nodes.Node]:
    if content is None:
        return []
    if isinstance(content, str):
        return [nodes.Text(content)]
    if isinstance(content, nodes.Node):
        return [content]
    return [n for c in content for n in _as_nodes(c)]


def table(
    headers: list[str], rows: list[tuple[list, list[str]]], classes: list[str], widths: list[int]
) -> nodes.table:
    """A table whose cells are node lists; each row carries its ids (anchors)."""
    tab = nodes.table(classes=["fn-table", "colwidths-given", *classes])  # widths as given: fixed layout
    group = nodes.tgroup(cols=len(headers))
    tab += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    head += _row(headers, [])
    body = nodes.tbody()
    group += body
    for cells, ids in rows:
        body += _row(cells, ids)
    return tab


def _row(cells: list, ids: list[str]) -> nodes.row:
    row = nodes.row(ids=ids)
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *_as_nodes(cell))
        row += entry
    return row


def para(*content: Any, classes: list[str] | None = None) -> nodes.paragraph:
    return nodes.paragraph("", "", *_as_nodes(list(content)), classes=classes or [])


def block(*content: Any) -> nodes.inline:
    """Content shown on a line of its own inside a table cell."""
    return nodes.inline("", "", *_as_nodes(list(content)), classes=["fn-block"])


def strong(text: str) -> nodes.strong:
    return nodes.strong(text, text)


def emph(text: str) -> nodes.emphasis:
    return nodes.emphasis(text, text)


# -------------------------------------------------------------------------------------------- directives
class _Directive(Directive):
    has_content = False

    @property
    def env(self):  # noqa: ANN201 - sphinx BuildEnvironment
        return self.state.document.settings.env

    @property
    def site(self) -> SiteData:
        return data(self.env.app)

    @property
    def docname(self) -> str:
        return self.env.docname

    def nb_link(self, nb: Notebook, content: Any = None) -> addnodes.pending_xref:
        return xref(self.docname, "/" + nb.docname, content if content is not None else nb.title, "doc")

    def claim_link(self, num: str, cid: str) -> nodes.Node:
        if num in self.site.by_num:
            return xref(self.docname, claim_label(num, cid), nodes.literal(f"{num}-{cid}", f"{num}-{cid}"))
        return nodes.Text(f"{num}-{cid}")

    def rule_link(self, code: str) -> nodes.Node:
        """A link to a `fieldnotes check` rule on the rules page."""
        return xref(self.docname, rule_label(code), nodes.inline(code, code, classes=["fn-rule"]))

    def label(self, name: str, title: str) -> None:
        """Make ``name`` (an id on this page) a target other pages can link to."""
        self.env.domaindata["std"]["labels"][name] = (self.docname, name, title)
        self.env.domaindata["std"]["anonlabels"][name] = (self.docname, name)


class SummaryDirective(_Directive):
    """The landing page's line of counts and links."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        n_err = len(s.errors())
        return [
            para(
                strong(f"{s.n_claims} verified claims"),
                f" in {len(s.notebooks)} notebooks · ",
                xref(self.docname, "/claims", "claim ledger", "doc"),
                " · ",
                xref(self.docname, "/errors", "error index", "doc"),
                f" ({n_err} error messages: paste yours into the search box) · ",
                xref(self.docname, "/rules", "check your code", "doc"),
                f" ({len(RULES)} rules, each proved by a claim) · ",
                xref(self.docname, "/glossary", "glossary 术语表", "doc"),
                " (Chinese terms) · ",
                xref(self.docname, "/coverage", "coverage of the source notes", "doc"),
                " · ",
                xref(self.docname, "/changes", "what changed between torch versions", "doc"),
                f" ({len(s.matrix.cpu)} versions recorded)",
            )
        ]


class NotebooksDirective(_Directive):
    """The landing page's table of notebooks."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        rows = []
        for nb in s.notebooks:
            cids = [e.cid for e in nb.ledger + nb.skipped]
            gpu_only = len(nb.skipped)
            claims = f"{len(cids)}" + (f" ({gpu_only} GPU-only)" if gpu_only else "")
            gpu = s.matrix.gpu_summary(nb.stem, cids, short=True) or ["not run yet"]
            rows.append(
                (
                    [
                        self.nb_link(nb),
                        text_nodes(nb.meta.get("summary", "")),
                        claims,
                        s.matrix.cpu_span(nb.stem, cids),
                        "; ".join(gpu),
                    ],
                    [],
                )
            )
        headers = ["notebook", "what it settles", "claims", "every claim holds on", "on a GPU"]
        return [table(headers, rows, ["fn-notebooks"], [20, 37, 12, 15, 16])]


class ClaimsDirective(_Directive):
    """The claim ledger: one section per notebook, one row per claim with its version grid."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        versions = ", ".join(minor(r.torch) for r in s.matrix.cpu) or "none yet"
        legend = (
            '<span class="fn-v fn-pass"></span> held, <span class="fn-v fn-fail"></span> failed, '
            '<span class="fn-v fn-not-reached"></span> not reached (an earlier cell failed), '
            '<span class="fn-v fn-skipped"></span> skipped (needs CUDA)'
        )
        out: list[nodes.Node] = [
            para(
                strong(f"{s.n_claims} verified claims."),
                " ",
                emph("Torch versions"),
                f" ({versions}, oldest left): one cell per recorded release, ",
                nodes.raw("", legend, format="html"),
                "; hover a cell for the version and the error. ",
                emph("GPU"),
                ": from recorded GPU runs (",
                nodes.literal("site/verification/", "site/verification/"),
                "); not run until one is recorded. ",
                emph("FNC"),
                " codes beside a claim: the ",
                xref(self.docname, "/rules", "fieldnotes check rules", "doc"),
                " that claim proves.",
            )
        ]
        for nb in s.notebooks:
            sec = nodes.section(ids=[f"claims-{nb.num}"], names=[f"claims-{nb.num}"])
            sec += nodes.title("", "", self.nb_link(nb))
            self.label(f"claims-{nb.num}", f"claims of {nb.num}")
            rows = []
            backs = rules_by_claim()
            for e, status in nb.entries():
                cid = f"{nb.num}-{e.cid}"
                rules = [[" ", self.rule_link(code)] for code in backs.get(cid, [])]
                rows.append(
                    (
                        [
                            [self.claim_link(nb.num, e.cid), *rules],
                            s.matrix.grid(nb.stem, e.cid),
                            s.matrix.gpu_cell(nb.stem, e.cid),
                            status,
                            e.statement,  # as printed: backticks and quotes are part of it
                            [emph(REFERENCE_KINDS[e.kind]), ": ", e.reference],
                        ],
                        [f"ledger-{cid.lower()}"],
                    )
                )
            headers = ["claim", s.matrix.header(), "GPU", "stored run", "statement", "checked against"]
            sec += table(headers, rows, ["fn-claims"], [10, 22, 8, 9, 30, 21])
            out.append(sec)
        return out


def changes(site: SiteData) -> list[dict]:
    """Every claim whose behaviour changed between torch versions: results that differ between recorded
    versions, and checks that branch on the version (since("X.Y")), newest change first."""
    found = []
    matrix = site.matrix
    order = matrix.cpu
    for nb in site.notebooks:
        for e in nb.ledger + nb.skipped:
            seq = [(r, res) for r, res in matrix.results(nb.stem, e.cid) if r.status == "ran" and res]
            # a claim "not reached" was not tried (an earlier cell failed): compare only pass and fail
            tried = [(r, res) for r, res in seq if res.result in ("pass", "fail")]
            for (r0, a), (r1, b) in zip(tried, tried[1:]):
                if a.result != b.result:
                    pinned = order.index(r1) == order.index(r0) + 1 and minor(r0.torch) != minor(r1.torch)
                    found.append(
                        {
                            "version": r1.torch,
                            "nb": nb,
                            "entry": e,
                            "kind": "result",
                            "before": (r0, a),
                            "after": (r1, b),
                            "pinned": pinned,
                        }
                    )
            for v in nb.branches.get(e.cid, []):
                found.append({"version": v, "nb": nb, "entry": e, "kind": "branch", "pinned": True})
    return sorted(
        found,
        key=lambda f: (version_key(f["version"]), f["nb"].num, int(f["entry"].cid[1:])),
        reverse=True,
    )


def not_reached(site: SiteData) -> list[tuple[str, str, int, str]]:
    """(torch version, notebook number, how many claims, the first reason) for each record and notebook."""
    out = []
    for rec in reversed(site.matrix.cpu):
        for nb in site.notebooks:
            details = [
                res.detail
                for res in (rec.result(nb.stem, e.cid) for e in nb.ledger + nb.skipped)
                if res is not None and res.result == "not reached"
            ]
            if details:
                out.append((rec.torch, nb.num, len(details), details[0]))
    return out


class ChangesDirective(_Directive):
    """What changed between torch versions, newest first, one section per minor release."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        items = changes(s)
        out: list[nodes.Node] = []
        if not items:
            out.append(para("No claim's result differs between the recorded versions."))
        sections: dict[str, nodes.section] = {}
        for f in items:
            ver = minor(f["version"])
            if ver not in sections:
                sec = nodes.section(ids=[f"torch-{ver.replace('.', '-')}"])
                sec += nodes.title("", f"torch {ver}")
                url = RELEASE_URL.format(f"{ver}.0")
                sec += para("Release notes: ", nodes.reference("", f"v{ver}.0", refuri=url))
                sec += nodes.bullet_list()
                sections[ver] = sec
                out.append(sec)
            nb, e = f["nb"], f["entry"]
            item = para(self.claim_link(nb.num, e.cid), " — ", e.statement)
            if f["kind"] == "branch":
                item += emph(f" (asserted per version: the check branches on torch ≥ {f['version']})")
            else:
                (r0, a), (r1, b) = f["before"], f["after"]
                item += nodes.Text(" — ")
                item += self._result(b, r1.torch)
                item += nodes.Text("; ")
                item += self._result(a, r0.torch)
                if not f["pinned"]:
                    item += nodes.Text(" (between these recorded versions; not pinned to one release)")
                off = [f"{r.torch} ran with {env_note(r)}" for r in (r0, r1) if env_note(r)]
                if off:
                    item += emph(
                        f" (not only torch differs: {'; '.join(off)} instead of the lock's versions)"
                    )
            sections[ver][-1] += nodes.list_item("", item)
        unreached = not_reached(s)
        if unreached:
            sec = nodes.section(ids=["claims-not-reached"])
            sec += nodes.title("", "Claims not reached")
            sec += para(
                "Where an earlier cell failed (often an import of an API that is newer than the release), "
                "the claims after it were not tried; they are left out above and counted here."
            )
            items_list = nodes.bullet_list()
            for v, num, n, why in unreached:
                items_list += nodes.list_item(
                    "",
                    para(
                        f"torch {v} · {num}: {n} claim{'s' * (n > 1)} not reached (",
                        nodes.literal(why, why),
                        ")",
                    ),
                )
            sec += items_list
            out.append(sec)
        return out

    @staticmethod
    def _result(res: Any, version: str) -> list[nodes.Node]:
        out: list[nodes.Node] = [nodes.Text(f"{SYMBOL[res.result]} {res.result} on {version}")]
        if res.detail:
            detail = " ".join(res.detail.split())[:160]
            out += [nodes.Text(": "), nodes.literal(detail, detail)]
        return out


class ErrorsDirective(_Directive):
    """The error index: one row per reproduced error, linking to the cell that reproduces it."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for e in self.site.errors():
            text = ANSI_RE.sub("", e.message).strip()
            msg = text.splitlines()[0] if text else "(message varies)"
            nb = self.site.by_num[e.num]
            where = xref(self.docname, e.anchor, f"{e.num} · {e.section or nb.title}".replace("`", ""))
            claim: list[Any] = [self.claim_link(e.num, e.claim)] if e.claim else ["—"]
            if e.gpu_only:
                claim.append(emph(" (needs CUDA: skipped on the CPU runner)"))
            message: list[Any] = [msg]
            if e.kind == "asserted" and e.statement:  # the part checked is often short: the claim says more
                message += [nodes.inline("", f" — {e.statement}", classes=["fn-note"])]
            rows.append(([nodes.literal(e.ename, e.ename), message, e.kind, claim, where], []))
        headers = ["error", "message", "kind", "claim", "where"]
        return [table(headers, rows, ["fn-errors"], [14, 46, 9, 11, 20])]


class GlossaryDirective(_Directive):
    """Chinese terms of the source notes, their English names and the notebooks that cover them."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for t in self.site.terms:
            links: list[Any] = []
            for num in t["notebooks"].split():
                nb = self.site.by_num.get(num)
                links += [self.nb_link(nb, num) if nb else f"{num} (planned)", ", "]
            zh = nodes.inline(t["zh"], t["zh"], classes=["fn-zh"])
            zh["lang"] = "zh"
            rows.append(([zh, t["en"], text_nodes(t["meaning"]), links[:-1]], []))
        headers = ["中文", "English", "meaning", "notebooks"]
        return [table(headers, rows, ["fn-glossary"], [12, 22, 48, 18])]


class CoverageDirective(_Directive):
    """Every fact of the source notes and where it went: one section per notebook, one row per fact."""

    def run(self) -> list[nodes.Node]:
        rows_by_nb: dict[str, list] = {}
        for r in self.site.coverage:
            rows_by_nb.setdefault(r["notebook"] or "—", []).append(r)
        counts: dict[str, int] = {}
        for r in self.site.coverage:
            counts[r["how"]] = counts.get(r["how"], 0) + 1
        meaning = {
            "claim": "asserted by the cited claims",
            "correction": "the note is wrong or outdated and the notebook shows it",
            "text": "explained without an assertion",
            "gpu": "a guarded GPU part",
            "left-out": "with the reason",
            "planned": "its notebook is not written yet",
        }
        legend: list[Any] = []
        for how in sorted(counts):
            legend += [emph(how), f" = {meaning.get(how, how)}; "]
        out: list[nodes.Node] = [
            para(
                f"Every fact of the five source notes ({len(self.site.coverage)} items) and where it went: "
                + ", ".join(f"{n} {how}" for how, n in sorted(counts.items()))
                + ". ",
                *legend[:-1],
                legend[-1].rstrip("; ") + ".",
            )
        ]
        for num in sorted(rows_by_nb):
            nb = self.site.by_num.get(num)
            sec = nodes.section(ids=[f"coverage-{num}"])
            sec += nodes.title("", "", self.nb_link(nb) if nb else nodes.Text("Not in a notebook"))
            rows = []
            for r in rows_by_nb[num]:
                fid = r["fact"].lower()
                anchor = nodes.reference("", r["fact"], refid=f"fact-{fid}", classes=["fn-anchor"])
                cites: list[Any] = []
                for c in r["claims"].split():
                    cites += [self.claim_link(num, c), " "]
                detail = text_nodes(r["summary"]) + (
                    [nodes.Text(" — "), *text_nodes(r["note"])] if r["note"] else []
                )
                rows.append(
                    (
                        [
                            [anchor, nodes.Text(f" {r['seed']}:{r['lines']}")],
                            r["status"],
                            cites,
                            r["how"],
                            detail,
                        ],
                        [f"fact-{fid}"],
                    )
                )
            headers = ["fact · note:lines", "in the notes", "claims", "how", "detail"]
            sec += table(headers, rows, ["fn-coverage"], [17, 11, 14, 9, 49])
            out.append(sec)
        return out

    _CITE = re.compile(r"\b(\d\d)-(C\d+)\b")

    def linked(self, parts: list[nodes.Node]) -> list[nodes.Node]:
        """Text nodes with every cited claim (``06-C12``) turned into a link to it."""
        out: list[nodes.Node] = []
        for part in parts:
            if not isinstance(part, nodes.Text):
                out.append(part)
                continue
            text, at = str(part), 0
            for m in self._CITE.finditer(text):
                out += [nodes.Text(text[at : m.start()]), self.claim_link(m[1], m[2])]
                at = m.end()
            out.append(nodes.Text(text[at:]))
        return out


class StampDirective(_Directive):
    """The admonition at the top of a notebook page (inserted at source-read)."""

    def run(self) -> list[nodes.Node]:
        nb = self.site.by_doc[self.docname]
        s = self.site
        box = nodes.admonition(classes=["tip", "fn-stamp"])
        box += nodes.title("", "Verified notebook")
        box += para(f"{len(nb.ledger)} claims asserted and re-checked by the test suite; {stamp(nb.meta)}.")
        if nb.holds_on:
            box += para(
                f"Version matrix: {nb.holds_on} (",
                xref(self.docname, f"claims-{nb.num}", "per claim"),
                " · ",
                xref(self.docname, "/changes", "what changed", "doc"),
                ").",
            )
        url = self.env.config.fieldnotes_repo_url
        slug = url.split("github.com/")[-1]
        colab = f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{nb.path.name}"
        download = (
            f'<a class="reference download" href="../_sources/notebooks/{nb.path.name}" '
            f'download="{nb.path.name}"><code class="xref download docutils literal notranslate">'
            f"{nb.path.name}</code></a>"
        )
        box += para(
            "Download: ",
            nodes.raw("", download, format="html"),
            " · ",
            nodes.reference("", "open in Colab", refuri=colab),
            " (its first code cell installs the project's ",
            nodes.literal("helpers", "helpers"),
            ")",
        )
        zh = [t["zh"] for t in s.terms if nb.num in t["notebooks"].split()]
        if zh:
            words = nodes.inline("", "、".join(zh), classes=["fn-zh"])
            words["lang"] = "zh"
            box += para("关键词 (keywords): ", words)
        return [box]


class RulesDirective(_Directive):
    """The `fieldnotes check` rules (fieldnotes.check.rules.RULES): what each finds, the claim that proves
    it, the fix; then what the checker found in public code (``fieldnotes/check/measured/``)."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for r in RULES:
            self.label(rule_label(r.code), f"{r.code}: {r.title}")
            notes = []  # each on its own line below the fix
            if r.autofix == "safe":
                notes.append(block(nodes.literal("--fix", "--fix"), " rewrites it."))
            elif r.autofix == "unsafe":
                flags = "--fix --unsafe-fixes"
                notes.append(block(nodes.literal(flags, flags), f" rewrites it ({r.unsafe_because})."))
            if r.torchfix:
                notes.append(block(emph("TorchFix: "), r.torchfix))
            rows.append(
                (
                    [
                        nodes.literal(r.code, r.code),
                        [strong(r.title), ": ", *text_nodes(r.message)],
                        self.claim_link(*r.claim.split("-")),
                        [*text_nodes(r.fix), *notes],
                    ],
                    [rule_label(r.code)],
                )
            )
        out: list[nodes.Node] = [
            table(["rule", "what it finds", "claim", "fix"], rows, ["fn-rules"], [12, 41, 9, 38])
        ]
        summary = MEASURED / "summary.json"
        if summary.exists():
            out += self.measured(json.loads(summary.read_text(encoding="utf-8")))
        return out

    def measured(self, m: dict) -> list[nodes.Node]:
        """The per-repository table and the labelled sample's precision."""
        sec = nodes.section(ids=["measured-on-public-code"], names=["measured on public code"])
        sec += nodes.title("", "Measured on public code")
        rows = []
        for repo in m["repos"]:
            found = ", ".join(f"{code} {n}" for code, n in sorted(repo["findings"].items()) if n) or "none"
            rows.append(
                (
                    [
                        nodes.reference(
                            repo["repo"], repo["repo"], refuri=f"https://github.com/{repo['repo']}"
                        ),
                        nodes.literal(repo["commit"][:7], repo["commit"][:7]),
                        f"{repo['lines']:,}",
                        f"{repo['seconds']:.2f} s",
                        found,
                    ],
                    [],
                )
            )
        lines = sum(r["lines"] for r in m["repos"])
        seconds = sum(r["seconds"] for r in m["repos"])
        sample = m["sample"]
        with open(MEASURED / "sample.tsv", newline="", encoding="utf-8") as f:
            labelled = list(csv.DictReader(f, delimiter="\t"))
        in_tests = sum(
            r["label"] == "TP"
            and ("tests" in Path(r["path"]).parts or Path(r["path"]).name.startswith("test_"))
            for r in labelled
        )
        sec += para(
            f"{len(m['repos'])} public repositories, {lines:,} lines of Python (files and notebook cells), "
            f"checked in {seconds:.1f} s ({10_000 * seconds / lines:.2f} s per 10,000 lines on "
            f"{m.get('machine', 'this machine')}). A hand-labelled sample of {sample['size']} findings: "
            f"{sample['tp']} true, {sample['fp']} false, precision {sample['tp'] / sample['size']:.0%} "
            "(true: the code does what the rule describes; every labelled finding, with the reason for its "
            "label: ",
            nodes.reference(
                "",
                "",
                nodes.literal("fieldnotes/check/measured/sample.tsv", "fieldnotes/check/measured/sample.tsv"),
                refuri=f"{self.env.config.fieldnotes_repo_url}/blob/main/fieldnotes/check/measured/sample.tsv",
            ),
            f"). {in_tests} of the true findings are in test code, where the advice matters less (a test "
            "loading a checkpoint it wrote itself with weights_only=False, TorchScript kept under test).",
        )
        sec += table(
            ["repository", "commit", "lines", "time", "findings per rule"],
            rows,
            ["fn-measured"],
            [26, 10, 10, 9, 45],
        )
        return [sec]


# ------------------------------------------------------------------------------------------- events
def stamp_notebook(app: Sphinx, docname: str, source: list[str]) -> None:
    """Insert the stamp and the claim/error targets into the page (never into the repository's file)."""
    nb_info = data(app).by_doc.get(docname)
    if nb_info is None:
        return
    nb = nbformat.reads(source[0], as_version=4)
    backs = rules_by_claim()
    gpu_printed = gpu_outputs(data(app).matrix, nb_info.stem, claim_cells(nb))
    seen: set[int] = set()
    for i, label in sorted(nb_info.anchors, key=lambda a: a[0], reverse=True):
        if i not in seen and i in gpu_printed:  # after the cell, before the next cell's own targets
            nb.cells.insert(i + 1, nbformat.v4.new_markdown_cell(gpu_printed[i]))
        seen.add(i)
        num, cid = label.split("-")[1:] if label.startswith("claim-") else ("", "")
        codes = backs.get(f"{num}-{cid.upper()}", [])
        if codes:  # the claim proves a `fieldnotes check` rule: say so where the reader sees the claim
            links = ", ".join(f"{{ref}}`{code} <{rule_label(code)}>`" for code in codes)
            note = f"`fieldnotes check` finds this in your code: {links}"
            nb.cells.insert(i, nbformat.v4.new_markdown_cell(f"```{{container}} fn-rule-note\n{note}\n```"))
        nb.cells.insert(i, nbformat.v4.new_markdown_cell(f"({label})="))
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("```{fieldnotes-stamp}\n```"))
    source[0] = nbformat.writes(nb)


_FIGURE_RE = re.compile(r"^Figure \d+(\.\d+)?[a-z]?\.$")


def claim_badges(app: Sphinx, doctree: nodes.document) -> None:
    """Lay out the proof compactly where the reader meets it (DESIGN.md, "Notebook anatomy").

    * A stored output's ledger lines (``✔ C3 statement — against …``, ``⊘ …``) become one line each: a
      small ``✔ C3`` badge, the statement, the reference in smaller type. The text stays text (the page
      search indexes it; what the tests verified is what the reader reads); other lines stay as printed.
    * A caption paragraph (``**Figure 5.1.** …``) is marked for its style.
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
    for par in doctree.findall(nodes.paragraph):
        first = par.children[0] if par.children else None
        if isinstance(first, nodes.strong) and _FIGURE_RE.match(first.astext()):
            par["classes"].append("fn-caption")


def gpu_outputs(matrix: Matrix, stem: str, cells: dict[str, int]) -> dict[int, str]:
    """Cell index -> a block showing what that GPU-guarded cell printed in each GPU run (on the CPU runner
    its stored output is only the skip line). A cell with two such claims printed one text: shown once."""
    blocks: dict[int, dict[str, str]] = {}
    for rec in matrix.gpu:
        for cid, text in rec.outputs.get(stem, {}).items():
            if cid not in cells or rec.label in blocks.get(cells[cid], {}):
                continue
            when = f"{rec.device}, torch {rec.build or rec.torch}, {rec.date}"
            if matrix.stale(rec, stem):
                when += "; recorded for an earlier revision of this notebook"
            fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
            blocks.setdefault(cells[cid], {})[rec.label] = (
                f"**On the GPU** ({when}) this cell printed:\n\n{fence}text\n{text}\n{fence}"
            )
    outer = "`" * 8
    return {
        i: f"{outer}{{container}} fn-gpu-output\n" + "\n\n".join(by_rec.values()) + f"\n{outer}"
        for i, by_rec in blocks.items()
    }


def generated_outdated(app: Sphinx, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """The generated pages depend on every notebook and record: re-read them on every build."""
    app.fieldnotes = None  # type: ignore[attr-defined]  # and re-read the data
    return [d for d in GENERATED if d in env.found_docs]


class SearchChinesePorter(SearchChinese):
    """Chinese search whose English words are stemmed exactly as the browser stems the query.

    Sphinx's Chinese indexer stems English words with Snowball "english" (Porter2), and keeps a word whole
    when its stem would be shorter than 3 letters, while the search page stems queries with Martin Porter's
    JavaScript stemmer and no such rule: words such as ``weights_only`` or ``eps`` were indexed under keys
    the search box never asks for. Here the index stems with a port of that JavaScript (tools/porter_js.py).
    """

    def stem(self, word: str) -> str:
        return porter_js.stem(word.lower())


def error_records(site: SiteData) -> list[dict[str, str]]:
    """The error index as the search page reads it (one record per entry)."""
    out = []
    for e in site.errors():
        nb = site.by_num[e.num]
        out.append(
            {
                "anchor": e.anchor,
                "page": f"{e.docname}.html",
                "num": e.num,
                "title": nb.title,
                "section": e.section,
                "ename": e.ename,
                "message": ANSI_RE.sub("", e.message).strip(),
                "kind": e.kind,
                "claim": f"{e.num}-{e.claim}" if e.claim else "",
                "statement": e.statement,
                "gpu_only": e.gpu_only,
            }
        )
    return out


# Font Awesome icons the theme's pages use; the icon script draws these from the theme's own bundle, where
# each pack ("fab", "far", "fas") is an object of `name:[width,height,[aliases],"unicode","path"]` entries
# followed by the call that registers it.
_FA_ICON = re.compile(
    r'(?:"([a-z0-9-]+)"|(?<![\w-])([a-z][a-z0-9]*)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]+","([^"]+)"\]'
)
_FA_PACK = re.compile(r'\b[\w$]+\("(fa[brs])",[\w$]+\)')
_FA_PREFIX = {
    "fa-solid": "fas",
    "fas": "fas",
    "fa-regular": "far",
    "far": "far",
    "fa-brands": "fab",
    "fab": "fab",
}
_FA_USE = re.compile(r'<(?:i|span) class="(fa-solid|fas|fa-regular|far|fa-brands|fab) fa-([a-z0-9-]+)')


def icon_script(theme_js: Path, used: set[tuple[str, str]]) -> str:
    """A small script that replaces ``<i class="fa-solid fa-NAME">`` with inline SVG for the icons the pages
    use ((pack, name) pairs), with paths taken from the theme's Font Awesome bundle: the theme's own icons."""
    text = theme_js.read_text(encoding="utf-8")
    packs = [(m.start(), m.group(1)) for m in _FA_PACK.finditer(text)]
    icons: dict[str, list] = {}
    for m in _FA_ICON.finditer(text):
        pack = next((p for pos, p in packs if pos > m.start()), None)
        name = m.group(1) or m.group(2)
        key = f"{pack} {name}"
        if (pack, name) in used and key not in icons:
            icons[key] = [int(m.group(3)), int(m.group(4)), m.group(5)]
    missing = sorted(f"{p} {n}" for p, n in used if f"{p} {n}" not in icons)
    if missing:
        logger.warning(f"fieldnotes: icons not found in {theme_js.name}: {missing}")
    return (
        (STATIC / "fieldnotes-icons.js")
        .read_text(encoding="utf-8")
        .replace("/*ICONS*/{}", json.dumps(icons, separators=(",", ":")))
    )


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Swap the theme's Font Awesome bundle for the icon script; load the error search on the search page."""
    pathto = context.get("pathto")
    if pathto is not None and not getattr(pathto, "_fieldnotes", False):

        def patched(target: str, *args: Any) -> str:
            if target == "_static/scripts/fontawesome.js":
                target = "_static/fieldnotes-icons.js"
            return pathto(target, *args)

        patched._fieldnotes = True  # type: ignore[attr-defined]
        context["pathto"] = patched
    if pagename in GENERATED:  # their sources are directive stubs: nothing a reader would download
        context["sourcename"] = ""
    if pagename == "search":
        app.add_js_file("fieldnotes-errors.js", priority=900)
        app.add_js_file("fieldnotes-search.js", priority=901)


#: What the pages never load: source maps, the theme's translations (the site is English), unrendered
#: templates, the Font Awesome bundle the icon script replaces and the webfonts of icon styles no page uses,
#: Sphinx's incremental-build bookkeeping. (The browser tests fail on any request that finds nothing.)
PRUNE = (
    "_static/scripts/*.map",
    "_static/styles/*.map",
    "_static/*.map",
    "_static/locales",
    "_static/*webpack-macros.html",
    "_static/scripts/fontawesome.js",
    # the theme's CSS draws a few icons (admonition titles) with the solid webfont only
    "_static/vendor/fontawesome/webfonts/fa-brands-400.woff2",
    "_static/vendor/fontawesome/webfonts/fa-regular-400.woff2",
    ".buildinfo",
    ".buildinfo.bak",
)
#: The MathJax files pages with math load (TeX input, CommonHTML output and its fonts).
MATHJAX_FILES = ("tex-chtml.js", "output/chtml/fonts/woff-v2")


_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{4,6})")


def subset_icon_font(static: Path) -> None:
    """Cut the theme's Font Awesome solid webfont (115 kB; its CSS draws admonition and navigation icons
    with it) down to the glyphs the shipped CSS uses: private-use characters, literal or escaped."""
    from fontTools import subset

    font_path = static / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.woff2"
    if not font_path.exists():
        return
    wanted: set[int] = set()
    for css in static.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        if css.name == "pydata-sphinx-theme.css":
            # it bundles Font Awesome's own `.fa-NAME:before` rules for every icon; pages draw `<i class=
            # "fa-…">` icons with fieldnotes-icons.js, so only the theme's --pst-icon-* variables count
            text = " ".join(re.findall(r'--pst-icon-[a-z-]+:"([^"]*)"', text))
        wanted |= {ord(c) for c in text if 0xE000 <= ord(c) <= 0xF8FF}
        wanted |= {int(h, 16) for h in _CSS_ESCAPE.findall(text) if 0xE000 <= int(h, 16) <= 0xF8FF}
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    font = subset.load_font(str(font_path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    subset.save_font(font, str(font_path), options)


def finish(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    site = data(app)
    records = json.dumps(error_records(site), ensure_ascii=False, separators=(",", ":"))
    (static / "fieldnotes-errors.js").write_text(
        f"// The error index, read by fieldnotes-search.js (a script, so search works from file:// too).\n"
        f"window.FIELDNOTES_ERRORS = {records};\n",
        encoding="utf-8",
    )
    theme_fa = static / "scripts" / "fontawesome.js"
    if theme_fa.exists():
        used: set[tuple[str, str]] = set()
        for page in out.rglob("*.html"):
            for prefix, name in _FA_USE.findall(page.read_text(encoding="utf-8")):
                used.add((_FA_PREFIX[prefix], name))
        (static / "fieldnotes-icons.js").write_text(icon_script(theme_fa, used), encoding="utf-8")
    mathjax_src = Path(__import__("importlib").util.find_spec("sphinx-mathjax-offline").origin).parent
    mathjax_src = mathjax_src / "static" / "mathjax"
    for rel in MATHJAX_FILES:
        src, dst = mathjax_src / rel, static / "mathjax" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)
    subset_icon_font(static)
    font = static / "fonts" / "fieldnotes-cjk.woff"
    if font.exists():  # every Chinese character on the site must be in the subset font
        from tools.cjk_font import cjk_chars, covered

        shown = set().union(*(cjk_chars(p.read_text(encoding="utf-8")) for p in out.rglob("*.html")))
        missing = "".join(sorted(shown - covered(font)))
        if missing:
            logger.warning(
                f"fieldnotes: characters {missing!r} are not in {font.name}: run `python tools/cjk_font.py`"
            )
    for pattern in PRUNE:
        for p in out.glob(pattern):
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    doctrees = Path(app.doctreedir)
    if out in doctrees.parents:  # `sphinx-build site out` keeps them in out/.doctrees: not for readers
        shutil.rmtree(doctrees, ignore_errors=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("fieldnotes_repo_url", "", "html", types=[str])
    app.add_search_language(SearchChinesePorter)
    for name, directive in {
        "fieldnotes-summary": SummaryDirective,
        "fieldnotes-notebooks": NotebooksDirective,
        "fieldnotes-claims": ClaimsDirective,
        "fieldnotes-changes": ChangesDirective,
        "fieldnotes-errors": ErrorsDirective,
        "fieldnotes-glossary": GlossaryDirective,
        "fieldnotes-coverage": CoverageDirective,
        "fieldnotes-stamp": StampDirective,
        "fieldnotes-rules": RulesDirective,
    }.items():
        app.add_directive(name, directive)
    app.connect("source-read", stamp_notebook)
    app.connect("doctree-read", claim_badges)
    app.connect("env-get-outdated", generated_outdated)
    app.connect("html-page-context", page_context)
    app.connect("build-finished", finish)
    app.add_css_file("fieldnotes.css")
    app.add_js_file("fieldnotes-page.js", loading_method="defer")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
