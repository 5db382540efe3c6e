"""Build the static site from the stored notebook outputs (no execution, no network).

Steps: copy notebooks and figures into _build/src; stamp each copy (never the
original) with its last-verified line, download/Colab links, Chinese keywords and
anchors for its error demonstrations; generate the landing page, claim ledger,
error index, glossary and coverage pages; run Sphinx into _build/html.
New notebooks are picked up with no edits.
"""

from __future__ import annotations

import argparse
import ast
import csv
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.claims import REFERENCE_KINDS  # noqa: E402
from tools.notebooks import (  # noqa: E402
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

BUILD = ROOT / "_build"
SRC = BUILD / "src"
HTML = BUILD / "html"
SITE = ROOT / "site"
DEFAULT_REPO = "https://github.com/pytorch-field-notes/field-notes"


def repo_url() -> str:
    return os.environ.get("FIELDNOTES_REPO_URL", DEFAULT_REPO).rstrip("/")


def colab_url(name: str) -> str:
    slug = repo_url().split("github.com/")[-1]
    return f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{name}"


_CODE_SPAN = re.compile(r"(`+[^`]*`+)")


def md_cell_escape(text: str) -> str:
    """Make ``text`` safe inside a Markdown table cell: ``|`` and newlines everywhere, and outside code spans
    the characters Markdown would read as emphasis (``w*c``, ``__call__``) or escapes."""
    parts = _CODE_SPAN.split(text.replace("\n", " "))
    for i in range(0, len(parts), 2):  # even parts are outside code spans
        parts[i] = re.sub(r"([\\*_])", r"\\\1", parts[i])
    return "".join(parts).replace("|", "\\|")


def code_span(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it contains."""
    text = " ".join(text.split())
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {text} {ticks}" if "`" in text else f"`{text}`"


def read_tsv(name: str) -> list[dict[str, str]]:
    with open(SITE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


RELEASE_URL = "https://github.com/pytorch/pytorch/releases/tag/v{}"
SYMBOL = {"pass": "✔", "fail": "✘", "not reached": "·", "skipped": "⊘", None: "?"}


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


def env_note(rec: VerificationRecord) -> str:
    """The notebook packages a record ran at other versions than the lock, e.g. "numpy 1.26.4"."""
    return ", ".join(f"{k} {rec.pins[k].split(' ')[0]}" for k in RUNTIME_PINS if k in rec.pins)


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


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

    def grid(self, stem: str, cid: str) -> str:
        """A caniuse-style row of cells, one per CPU record (oldest left), with the result as a tooltip."""
        if not self.cpu:
            return "not recorded"
        cells = []
        for rec, res in self.results(stem, cid):
            kind = "nr" if res is None or rec.status != "ran" else res.result.replace(" ", "-")
            why = rec.status if rec.status != "ran" else (res.detail if res and res.detail else "")
            word = "could not run" if rec.status != "ran" else (res.result if res else "not recorded")
            tip = f"torch {rec.torch}: {word}" + (f" ({why})" if why else "")
            if self.stale(rec, stem):
                kind += " fn-stale"
                tip += " [recorded for an earlier revision of this notebook]"
            tip = tip.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("|", "&#124;")
            cells.append(f'<span class="fn-v fn-{kind}" title="{tip}" aria-label="{tip}"></span>')
        return f'<span class="fn-grid">{"".join(cells)}</span>'

    def gpu_cell(self, stem: str, cid: str) -> str:
        if not self.gpu:
            return "not run"
        return " ".join(SYMBOL[res.result if res else None] for _, res in self.results(stem, cid, self.gpu))

    def header(self) -> str:
        if not self.cpu:
            return "torch versions"
        return f"torch {minor(self.cpu[0].torch)} → {minor(self.cpu[-1].torch)}"

    def holds_on(self, stem: str, cids: list[str]) -> str:
        """One line: the versions on which every claim of a notebook held, and the others' counts."""
        if not self.cpu:
            return ""
        full, partial = [], []
        for rec in self.cpu:
            res = [rec.result(stem, c) for c in cids]
            tried = [r for r in res if r is not None and r.result != "skipped"]
            passed = sum(r.result == "pass" for r in tried)
            if rec.status == "ran" and tried and passed == len(tried):
                full.append(minor(rec.torch))
            else:
                partial.append(f"{minor(rec.torch)}: {passed} of {len(tried) or len(cids)}")
        text = (
            f"holds on torch {_ranges(full, [minor(r.torch) for r in self.cpu])}"
            if full
            else "holds on no recorded version"
        )
        if partial:
            text += f" (claims held on {', '.join(partial)})"
        if self.gpu:
            text += "; GPU: " + ", ".join(f"{r.device} with torch {r.torch}" for r in self.gpu)
        return text


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


def heading_before(cells: list, index: int) -> str:
    for cell in reversed(cells[:index]):
        if cell.cell_type == "markdown":
            for line in reversed(cell.source.splitlines()):
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return ""


def claim_raises_calls(source: str) -> list[tuple[str, str, str]]:
    """(claim id, exception name, asserted message part) for each claim_raises(...) in a cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "claim_raises"
            and len(node.args) >= 4
        ):
            cid = node.args[0].value if isinstance(node.args[0], ast.Constant) else "?"
            exc = ast.unparse(node.args[3])
            match = ""
            if len(node.args) >= 5 and isinstance(node.args[4], ast.Constant):
                match = node.args[4].value
            for kw in node.keywords:
                if kw.arg == "match" and isinstance(kw.value, ast.Constant):
                    match = kw.value.value
            found.append((cid, exc, match))
    return found


CLAIM_FUNCS = {"claim", "claim_close", "claim_raises", "skip"}


def _since_versions(node: ast.AST) -> list[str]:
    return [
        n.args[0].value
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        and getattr(n.func, "id", None) == "since"
        and n.args
        and isinstance(n.args[0], ast.Constant)
        and isinstance(n.args[0].value, str)
    ]


def version_branches(source: str) -> dict[str, list[str]]:
    """Claim id -> versions of the since("X.Y") calls (helpers.versions) its check depends on: in the claim
    call's own arguments, or in a variable they use that was assigned from a since() branch."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
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
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) in CLAIM_FUNCS
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            args = [*node.args, *(kw.value for kw in node.keywords)]
            versions = [v for arg in args for v in _since_versions(arg)]
            versions += [
                v
                for arg in args
                for n in ast.walk(arg)
                if isinstance(n, ast.Name)
                for v in tainted.get(n.id, [])
            ]
            if versions:
                out[str(node.args[0].value)] = sorted(set(versions))
    return out


def stage_notebook(path: Path, zh_terms: list[str], matrix: Matrix) -> dict:
    nb = read(path)
    meta = metadata(nb)
    num = path.name[:2]
    info = {
        "name": path.stem,
        "file": path.name,
        "num": num,
        "title": title_of(nb),
        "meta": meta,
        "ledger": ledger(nb),
        "skipped": skipped(nb),
        "errors": [],
    }
    info["branches"] = {
        cid: v
        for i in sorted(set(claim_cells(nb).values()))
        for cid, v in version_branches(nb.cells[i].source).items()
    }
    cids = [e.cid for e in info["ledger"] + info["skipped"]]
    info["holds_on"] = matrix.holds_on(path.stem, cids)
    # Anchors for error demonstrations (inserted back to front so indices stay valid).
    anchored = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        entries = []
        if "raises-exception" in tags:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    entries.append({"kind": "exact", "ename": out["ename"], "message": out["evalue"]})
        for cid, exc, match in claim_raises_calls(cell.source):
            entries.append({"kind": "asserted", "ename": exc, "message": match, "claim": cid})
        if entries:
            anchor = f"error-{num}-{len(anchored) + 1}"
            for e in entries:
                e.update(anchor=anchor, section=heading_before(nb.cells, i))
            info["errors"].extend(entries)
            anchored.append((i, anchor))
    for i, anchor in reversed(anchored):
        nb.cells.insert(i, nbformat.v4.new_markdown_cell(f"({anchor})="))
    keywords = f"\n关键词 (keywords): {'、'.join(zh_terms)}" if zh_terms else ""
    matrix_line = (
        f"Version matrix: {info['holds_on']} ({{ref}}`per claim <claims-{num}>` · "
        f"{{doc}}`what changed <../changes>`).\n"
        if info["holds_on"]
        else ""
    )
    note = nbformat.v4.new_markdown_cell(
        f"```{{admonition}} Verified notebook\n:class: tip\n"
        f"{len(info['ledger'])} claims asserted and re-checked by the test suite; {stamp(meta)}.\n"
        f"{matrix_line}"
        f"Download: {{download}}`{path.name} <{path.name}>` · [open in Colab]({colab_url(path.name)})"
        f"{keywords}\n```"
    )
    nb.cells.insert(1, note)
    nbformat.write(nb, SRC / "notebooks" / path.name)
    return info


TOC = """
```{{toctree}}
:maxdepth: 1
:caption: Notebooks
:hidden:

{notebooks}
```

```{{toctree}}
:maxdepth: 1
:caption: Reference
:hidden:

claims
changes
errors
glossary
coverage
```
"""


def landing(infos: list[dict], matrix: Matrix) -> str:
    total = sum(len(i["ledger"]) for i in infos)
    rows = "\n".join(
        f"| [{i['title']}](notebooks/{i['name']}) | {i['meta'].get('summary', '')} | "
        f"{', '.join(i['meta'].get('needs', ['cpu']))} | {len(i['ledger'])} | "
        f"{i['meta'].get('last_verified', {}).get('date', '?')} · CPU"
        f"{' + GPU' if matrix.gpu else ''} |"
        for i in infos
    )
    n_errors = sum(len(i["errors"]) for i in infos)
    return f"""# PyTorch Field Notes

An executable knowledge base of PyTorch techniques and pitfalls. Every claim on these pages
was executed and asserted; the outputs you see are exactly the ones the test suite re-verifies
on every run (`pytest --nbval`). Wrong or outdated advice from the source notes is corrected and
the correction is asserted too.

**{total} verified claims** in {len(infos)} notebooks · [claim ledger](claims.md) ·
[error index](errors.md) ({n_errors} error messages: paste yours into the search box) ·
[glossary 术语表](glossary.md) (Chinese terms) · [coverage of the source notes](coverage.md) ·
[what changed between torch versions](changes.md) ({len(matrix.cpu)} versions recorded)

| notebook | what it settles | needs | claims | last verified |
|---|---|---|---|---|
{rows}

Each notebook opens with its **Claims** list; every claim ends in a check that prints a ledger line
such as `✔ C3 …`. A line `⊘ C5 … — skipped: needs CUDA` marks a GPU-only claim on a CPU runner.
Download any notebook from its page and run it with `make lab`.
""" + TOC.format(notebooks="\n".join(f"notebooks/{i['name']}" for i in infos))


def claims_page(infos: list[dict], matrix: Matrix) -> str:
    body = []
    n = 0
    for info in infos:
        body += [
            f"(claims-{info['num']})=",
            f"## [{info['title']}](notebooks/{info['name']})",
            "",
            # the version grid first: the long text columns would push it out of view
            f"| claim | {matrix.header()} | GPU | stored run | statement | checked against |",
            "|---|---|---|---|---|---|",
        ]
        rows = [(e, "✔") for e in info["ledger"]] + [(e, "skipped (needs CUDA)") for e in info["skipped"]]
        for e, status in sorted(rows, key=lambda r: int(r[0].cid[1:])):
            against = f"*{REFERENCE_KINDS[e.kind]}*: {md_cell_escape(e.reference)}"
            body.append(
                f"| {info['num']}-{e.cid} | {matrix.grid(info['name'], e.cid)} | "
                f"{matrix.gpu_cell(info['name'], e.cid)} | {status} | {md_cell_escape(e.statement)} | "
                f"{against} |"
            )
            n += status == "✔"
        body.append("")
    versions = " ".join(f"`{minor(r.torch)}`" for r in matrix.cpu) or "none yet"
    head = [
        "# Claim ledger",
        "",
        f"**{n} verified claims.** Every claim asserted in the notebooks, collected from their stored "
        "outputs. Cite a claim as `NN-C3`. *Checked against*: the independent reference the check compares "
        "with (a formula, another API, a manual computation, or a measured counterfactual: the wrong way "
        "run and shown to fail or differ). *Stored run*: the run whose outputs the tests re-verify "
        "(pinned torch, CPU).",
        "",
        f"*Torch versions* ({versions}, oldest left; `make matrix`): one cell per recorded release, "
        '<span class="fn-v fn-pass"></span> held, <span class="fn-v fn-fail"></span> failed, '
        '<span class="fn-v fn-not-reached"></span> not reached (an earlier cell failed), '
        '<span class="fn-v fn-skipped"></span> skipped (needs CUDA); hover a cell for the version and '
        "the error. Claims whose result differs between versions are listed on [what changed](changes.md). "
        "*GPU*: from recorded GPU runs (`site/verification/`); *not run* until one is recorded.",
        "",
    ]
    return "\n".join(head + body)


def changes(infos: list[dict], matrix: Matrix) -> list[dict]:
    """Every claim whose behaviour changed between torch versions: results that differ between recorded
    versions, and checks that branch on the version (since("X.Y")), newest change first."""
    found = []
    order = matrix.cpu
    for info in infos:
        entries = {e.cid: e for e in info["ledger"] + info["skipped"]}
        for cid, e in entries.items():
            seq = [(r, res) for r, res in matrix.results(info["name"], cid) if r.status == "ran" and res]
            # a claim "not reached" was not tried (an earlier cell failed): compare only pass and fail
            tried = [(r, res) for r, res in seq if res.result in ("pass", "fail")]
            for (r0, a), (r1, b) in zip(tried, tried[1:]):
                if a.result != b.result:
                    pinned = order.index(r1) == order.index(r0) + 1 and minor(r0.torch) != minor(r1.torch)
                    found.append(
                        {
                            "before_rec": r0,
                            "after_rec": r1,
                            "version": r1.torch,
                            "info": info,
                            "entry": e,
                            "kind": "result",
                            "before": (r0.torch, a),
                            "after": (r1.torch, b),
                            "pinned": pinned,
                        }
                    )
            for v in info["branches"].get(cid, []):
                found.append({"version": v, "info": info, "entry": e, "kind": "branch", "pinned": True})
    return sorted(
        found,
        key=lambda f: (version_key(f["version"]), f["info"]["num"], int(f["entry"].cid[1:])),
        reverse=True,
    )


def changes_page(infos: list[dict], matrix: Matrix) -> str:
    items = changes(infos, matrix)
    lines = [
        "# What changed between torch versions",
        "",
        "Advice rots when PyTorch changes. Each notebook runs under every recorded torch release "
        f"({', '.join(r.torch for r in matrix.cpu) or 'none recorded yet'}; `make matrix`), and this page "
        "lists every claim whose behaviour differs between them, newest change first. Two kinds: a claim "
        "whose **check branches on the version** (it asserts the old behaviour on old releases and the new "
        "one on new releases, so it holds everywhere), and a claim whose **result differs** between "
        "recorded versions (it fails on some; claims that an earlier failure kept from running are "
        "counted at the end). The matrix records the newest patch of "
        "each minor release; where two neighbouring minor releases differ, the change is pinned to the newer "
        "one and linked to its release notes.",
        "",
    ]
    if not items:
        lines.append("No claim's result differs between the recorded versions.")
    current = None
    for f in items:
        if minor(f["version"]) != current:
            current = minor(f["version"])
            url = RELEASE_URL.format(f"{current}.0")
            lines += ["", f"## torch {current}", "", f"Release notes: [v{current}.0]({url})", ""]
        info, e = f["info"], f["entry"]
        where = f"[{info['num']}-{e.cid}](notebooks/{info['name']})"
        if f["kind"] == "branch":
            lines.append(
                f"- {where} — {md_cell_escape(e.statement)} *(asserted per version: the check branches "
                f"on torch ≥ {f['version']})*"
            )
        else:
            (v0, a), (v1, b) = f["before"], f["after"]
            side = f"{SYMBOL[a.result]} {a.result} on {v0}" + (
                f": {code_span(a.detail[:160])}" if a.detail else ""
            )
            now = f"{SYMBOL[b.result]} {b.result} on {v1}" + (
                f": {code_span(b.detail[:160])}" if b.detail else ""
            )
            pin = "" if f["pinned"] else " (between these recorded versions; not pinned to one release)"
            off_lock = [
                f"{v} ran with {env_note(r)}"
                for v, r in ((v0, f["before_rec"]), (v1, f["after_rec"]))
                if env_note(r)
            ]
            if off_lock:
                pin += f" *(not only torch differs: {'; '.join(off_lock)} instead of the lock's versions)*"
            lines.append(f"- {where} — {md_cell_escape(e.statement)} — {now}; {side}{pin}")
    unreached = not_reached(infos, matrix)
    if unreached:
        lines += [
            "",
            "## Claims not reached",
            "",
            "Where an earlier cell failed (often an import of an API that is newer than the release), the "
            "claims after it were not tried; they are left out above and counted here.",
            "",
        ]
        lines += [
            f"- torch {v} · {num}: {n} claim{'s' * (n > 1)} not reached ({md_cell_escape(why)})"
            for v, num, n, why in unreached
        ]
    return "\n".join(lines) + "\n"


def not_reached(infos: list[dict], matrix: Matrix) -> list[tuple[str, str, int, str]]:
    """(torch version, notebook number, how many claims, the first reason) for each record and notebook."""
    out = []
    for rec in reversed(matrix.cpu):
        for info in infos:
            details = [
                res.detail
                for _, res in (
                    (None, rec.result(info["name"], e.cid)) for e in info["ledger"] + info["skipped"]
                )
                if res is not None and res.result == "not reached"
            ]
            if details:
                out.append((rec.torch, info["num"], len(details), details[0]))
    return out


def errors_page(infos: list[dict]) -> str:
    lines = [
        "# Error index",
        "",
        "Paste an error message into the search box, or scan this list. Each entry links to the cell that "
        "reproduces it and the section that explains the cause and the fix. *exact*: the full message as "
        "stored by the notebook; *asserted*: the exception type and the part of the message the notebook "
        "checks (the rest varies by device, path or version).",
        "",
        "| error | message | kind | where |",
        "|---|---|---|---|",
    ]
    for info in infos:
        for e in info["errors"]:
            msg = e["message"].strip().splitlines()[0] if e["message"].strip() else "(any message)"
            # raw text inside a {ref} role: Markdown escapes would show literally
            label = f"{info['num']} · {e['section'] or info['title']}".replace("`", "").replace("|", "\\|")
            where = f"{{ref}}`{label} <{e['anchor']}>`"
            lines.append(f"| `{e['ename']}` | {md_cell_escape(msg)} | {e['kind']} | {where} |")
    return "\n".join(lines) + "\n"


def glossary_page(terms: list[dict[str, str]], infos: list[dict]) -> str:
    existing = {i["num"]: i for i in infos}
    lines = [
        "# Glossary · 术语表",
        "",
        "Chinese terms used in the source notes, their English names and the notebooks that cover them. "
        "Search works with either (搜索支持中文和英文).",
        "",
        "| 中文 | English | meaning | notebooks |",
        "|---|---|---|---|",
    ]
    for t in terms:
        links = []
        for num in t["notebooks"].split():
            info = existing.get(num)
            links.append(f"[{num}](notebooks/{info['name']})" if info else f"{num} (planned)")
        lines.append(f"| {t['zh']} | {t['en']} | {md_cell_escape(t['meaning'])} | {', '.join(links)} |")
    return "\n".join(lines) + "\n"


def coverage_page() -> str:
    rows = read_tsv("coverage.tsv")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["how"]] = counts.get(r["how"], 0) + 1
    summary = ", ".join(f"{n} {how}" for how, n in sorted(counts.items()))
    lines = [
        "# Coverage of the source notes",
        "",
        f"Every fact of the five source notes ({len(rows)} items) and where it went: {summary}. "
        "*claim* = asserted by the cited claims; *correction* = the note is wrong or outdated and the "
        "notebook shows it; *text* = explained without an assertion; *gpu* = a guarded GPU part; "
        "*left-out* = with the reason; *planned* = its notebook is not written yet.",
        "",
        "| fact | note:lines | status in the notes | notebook | claims | how | detail |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cites = " ".join(f"{r['notebook']}-{c}" for c in r["claims"].split())
        detail = md_cell_escape(r["summary"] + (f" — {r['note']}" if r["note"] else ""))
        lines.append(
            f"| {r['fact']} | {r['seed']}:{r['lines']} | {r['status']} | {r['notebook']} | {cites} | "
            f"{r['how']} | {detail} |"
        )
    return "\n".join(lines) + "\n"


def build(strict: bool = False, out: Path = HTML) -> int:
    t0 = time.perf_counter()
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "notebooks").mkdir(parents=True)
    if (ROOT / "figures").is_dir():
        shutil.copytree(ROOT / "figures", SRC / "figures")
    terms = read_tsv("glossary.tsv")
    matrix = Matrix(
        load_records(), {p.stem: metadata(read(p)).get("source_hash", "") for p in notebook_paths()}
    )
    infos = []
    for path in notebook_paths():
        zh = [t["zh"] for t in terms if path.name[:2] in t["notebooks"].split()]
        infos.append(stage_notebook(path, zh, matrix))
    pages = {
        "index.md": landing(infos, matrix),
        "claims.md": claims_page(infos, matrix),
        "changes.md": changes_page(infos, matrix),
        "errors.md": errors_page(infos),
        "glossary.md": glossary_page(terms, infos),
        "coverage.md": coverage_page(),
    }
    for name, text in pages.items():
        (SRC / name).write_text(text, encoding="utf-8")
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(SITE), str(SRC), str(out)]
    if strict:
        cmd.append("-W")
    result = subprocess.run(cmd)
    if result.returncode:
        print("site build FAILED", file=sys.stderr)
        return result.returncode
    n = sum(len(i["ledger"]) for i in infos)
    took = time.perf_counter() - t0
    print(f"site built in {took:.1f} s ({len(infos)} notebooks, {n} claims): {out / 'index.html'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    args = ap.parse_args(argv)
    return build(strict=args.strict)


if __name__ == "__main__":
    sys.exit(main())
