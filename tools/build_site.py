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
import json
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
from tools.notebooks import ledger, notebook_paths, read, skipped  # noqa: E402

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


def read_tsv(name: str) -> list[dict[str, str]]:
    with open(SITE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def gpu_records() -> dict[str, dict]:
    """GPU verification records: site/verification/*.json, written after a GPU run (see README)."""
    out = {}
    for path in sorted((SITE / "verification").glob("*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        for nb, info in rec.get("notebooks", {}).items():
            out[nb] = {**info, "device": rec.get("device", "GPU"), "date": rec.get("date", "?"),
                       "torch": rec.get("torch", "?")}
    return out


def title_of(nb: nbformat.NotebookNode) -> str:
    return nb.cells[0].source.splitlines()[0].lstrip("# ").strip()


def stamp(meta: dict) -> str:
    last = meta.get("last_verified", {})
    needs = ", ".join(meta.get("needs", ["cpu"]))
    return (f"last verified {last.get('date', '?')} with torch {last.get('torch', '?')} "
            f"(Python {last.get('python', '?')}) on {last.get('device', '?')} · needs: {needs} · "
            f"runs in ~{meta.get('expected_duration_s', '?')} s")


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
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "claim_raises" and len(node.args) >= 4:
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


def stage_notebook(path: Path, zh_terms: list[str]) -> dict:
    nb = read(path)
    meta = nb.metadata.get("fieldnotes", {})
    num = path.name[:2]
    info = {"name": path.stem, "file": path.name, "num": num, "title": title_of(nb), "meta": meta,
            "ledger": ledger(nb), "skipped": skipped(nb), "errors": []}
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
    note = nbformat.v4.new_markdown_cell(
        f"```{{admonition}} Verified notebook\n:class: tip\n"
        f"{len(info['ledger'])} claims asserted and re-checked by the test suite; {stamp(meta)}.\n"
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
errors
glossary
coverage
```
"""


def landing(infos: list[dict], gpu: dict[str, dict]) -> str:
    total = sum(len(i["ledger"]) for i in infos)
    rows = "\n".join(
        f"| [{i['title']}](notebooks/{i['name']}) | {i['meta'].get('summary', '')} | "
        f"{', '.join(i['meta'].get('needs', ['cpu']))} | {len(i['ledger'])} | "
        f"{i['meta'].get('last_verified', {}).get('date', '?')} · CPU"
        f"{' + GPU' if i['name'] in gpu else ''} |"
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
[glossary 术语表](glossary.md) (Chinese terms) · [coverage of the source notes](coverage.md)

| notebook | what it settles | needs | claims | last verified |
|---|---|---|---|---|
{rows}

Each notebook opens with its **Claims** list; every claim ends in a check that prints a ledger line
such as `✔ C3 …`. A line `⊘ C5 … — skipped: needs CUDA` marks a GPU-only claim on a CPU runner.
Download any notebook from its page and run it with `make lab`.
""" + TOC.format(notebooks="\n".join(f"notebooks/{i['name']}" for i in infos))


def claims_page(infos: list[dict], gpu: dict[str, dict]) -> str:
    body = []
    n = 0
    for info in infos:
        rec = gpu.get(info["name"])
        gpu_col = (lambda cid: "✔" if cid in rec.get("claims", []) else "–") if rec else (lambda cid: "not run")
        body += [f"## [{info['title']}](notebooks/{info['name']})", "",
                 "| claim | statement | checked against | CPU | GPU |", "|---|---|---|---|---|"]
        rows = [(e, "✔") for e in info["ledger"]] + [(e, "skipped (needs CUDA)") for e in info["skipped"]]
        for e, status in sorted(rows, key=lambda r: int(r[0].cid[1:])):
            against = f"*{REFERENCE_KINDS[e.kind]}*: {md_cell_escape(e.reference)}"
            body.append(f"| {info['num']}-{e.cid} | {md_cell_escape(e.statement)} | {against} | {status} | "
                        f"{gpu_col(e.cid)} |")
            n += status == "✔"
        body.append("")
    head = ["# Claim ledger", "",
            f"**{n} verified claims.** Every claim asserted in the notebooks, collected from their stored outputs. "
            "Cite a claim as `NN-C3`. *Checked against*: the independent reference the check compares with "
            "(a formula, another API, a manual computation, or a measured counterfactual: the wrong way run "
            "and shown to fail or differ). *CPU ✔*: the stored run printed the claim's ledger line. *GPU*: from the "
            "recorded GPU runs (`site/verification/`); *not run* until one is recorded.", ""]
    return "\n".join(head + body)


def errors_page(infos: list[dict]) -> str:
    lines = ["# Error index", "",
             "Paste an error message into the search box, or scan this list. Each entry links to the cell that "
             "reproduces it and the section that explains the cause and the fix. *exact*: the full message as "
             "stored by the notebook; *asserted*: the exception type and the part of the message the notebook "
             "checks (the rest varies by device, path or version).", "",
             "| error | message | kind | where |", "|---|---|---|---|"]
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
    lines = ["# Glossary · 术语表", "",
             "Chinese terms used in the source notes, their English names and the notebooks that cover them. "
             "Search works with either (搜索支持中文和英文).", "",
             "| 中文 | English | meaning | notebooks |", "|---|---|---|---|"]
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
    lines = ["# Coverage of the source notes", "",
             f"Every fact of the five source notes ({len(rows)} items) and where it went: {summary}. "
             "*claim* = asserted by the cited claims; *correction* = the note is wrong or outdated and the "
             "notebook shows it; *text* = explained without an assertion; *gpu* = a guarded GPU part; "
             "*left-out* = with the reason; *planned* = its notebook is not written yet.", "",
             "| fact | note:lines | status in the notes | notebook | claims | how | detail |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        cites = " ".join(f"{r['notebook']}-{c}" for c in r["claims"].split())
        detail = md_cell_escape(r["summary"] + (f" — {r['note']}" if r["note"] else ""))
        lines.append(f"| {r['fact']} | {r['seed']}:{r['lines']} | {r['status']} | {r['notebook']} | {cites} | "
                     f"{r['how']} | {detail} |")
    return "\n".join(lines) + "\n"


def build(strict: bool = False, out: Path = HTML) -> int:
    t0 = time.perf_counter()
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "notebooks").mkdir(parents=True)
    if (ROOT / "figures").is_dir():
        shutil.copytree(ROOT / "figures", SRC / "figures")
    terms = read_tsv("glossary.tsv")
    infos = []
    for path in notebook_paths():
        zh = [t["zh"] for t in terms if path.name[:2] in t["notebooks"].split()]
        infos.append(stage_notebook(path, zh))
    gpu = gpu_records()
    pages = {"index.md": landing(infos, gpu), "claims.md": claims_page(infos, gpu), "errors.md": errors_page(infos),
             "glossary.md": glossary_page(terms, infos), "coverage.md": coverage_page()}
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
    print(f"site built in {time.perf_counter() - t0:.1f} s ({len(infos)} notebooks, {n} claims): {out / 'index.html'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    args = ap.parse_args(argv)
    return build(strict=args.strict)


if __name__ == "__main__":
    sys.exit(main())
