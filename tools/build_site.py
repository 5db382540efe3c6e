"""Build the static site from the stored notebook outputs (no execution, no network).

Steps: copy notebooks and figures into _build/src, stamp each copy with its
last-verified line and a download link, generate the landing page and the claim
ledger from the stored outputs, then run Sphinx into _build/html.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.notebook_tools import ledger, notebook_paths, read, skipped  # noqa: E402

BUILD = ROOT / "_build"
SRC = BUILD / "src"
HTML = BUILD / "html"


def title_of(nb: nbformat.NotebookNode) -> str:
    return nb.cells[0].source.splitlines()[0].lstrip("# ").strip()


def stamp(meta: dict) -> str:
    last = meta.get("last_verified", {})
    needs = ", ".join(meta.get("needs", ["cpu"]))
    return (f"last verified {last.get('date', '?')} with torch {last.get('torch', '?')} "
            f"(Python {last.get('python', '?')}) on {last.get('device', '?')} · needs: {needs} · "
            f"~{meta.get('expected_duration_s', '?')} s")


def stage_notebook(path: Path) -> dict:
    nb = read(path)
    meta = nb.metadata.get("fieldnotes", {})
    info = {"name": path.stem, "file": path.name, "title": title_of(nb), "meta": meta,
            "ledger": ledger(nb), "skipped": skipped(nb)}
    note = nbformat.v4.new_markdown_cell(
        f"```{{admonition}} Verified notebook\n:class: tip\n"
        f"{len(info['ledger'])} claims asserted and re-checked by the test suite; {stamp(meta)}.\n"
        f"Download: {{download}}`{path.name} <{path.name}>` · "
        f"[open in Colab]({colab_url(path.name)})\n```"
    )
    nb.cells.insert(1, note)
    nbformat.write(nb, SRC / "notebooks" / path.name)
    return info


def colab_url(name: str) -> str:
    import os

    repo = os.environ.get("FIELDNOTES_REPO_URL", "https://github.com/pytorch-field-notes/field-notes")
    slug = repo.rstrip("/").split("github.com/")[-1]
    return f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{name}"


def landing(infos: list[dict]) -> str:
    total = sum(len(i["ledger"]) for i in infos)
    rows = "\n".join(
        f"| [{i['title']}](notebooks/{i['name']}) | {i['meta'].get('summary', '')} | "
        f"{', '.join(i['meta'].get('needs', ['cpu']))} | {len(i['ledger'])} |"
        for i in infos
    )
    toc = "\n".join(f"notebooks/{i['name']}" for i in infos)
    return f"""# PyTorch Field Notes

An executable knowledge base of PyTorch techniques and pitfalls. Every claim on these pages
was executed and asserted; the outputs you see are the ones the test suite re-verifies on
every run (`pytest --nbval`). **{total} claims** across {len(infos)} notebooks — see the
[claim ledger](claims.md).

| notebook | what it settles | needs | claims |
|---|---|---|---|
{rows}

```{{toctree}}
:maxdepth: 1
:caption: Notebooks
:hidden:

{toc}
```

```{{toctree}}
:maxdepth: 1
:caption: Reference
:hidden:

claims
coverage
```
"""


def claims_page(infos: list[dict]) -> str:
    lines = ["# Claim ledger", "",
             "Every claim asserted in the notebooks, collected from their stored outputs. A claim is cited as "
             "`NN-C3`. *CPU ✔* means the stored (CPU) run printed its ledger line; claims that need CUDA show "
             "*skipped* until a GPU run is recorded.", ""]
    n = 0
    for info in infos:
        lines += [f"## [{info['title']}](notebooks/{info['name']})", "", "| claim | statement | CPU |", "|---|---|---|"]
        num = info["name"][:2]
        rows = [(cid, text, "✔") for cid, text in info["ledger"]] + [(c, t, "skipped (needs CUDA)")
                                                                       for c, t in info["skipped"]]
        for cid, text, status in sorted(rows, key=lambda r: int(r[0][1:])):
            text = text.replace("|", "\\|")
            lines.append(f"| {num}-{cid} | {text} | {status} |")
            n += status == "✔"
        lines.append("")
    lines.insert(2, f"**{n} verified claims.**\n")
    return "\n".join(lines)


def coverage_page() -> str:
    import csv

    with open(ROOT / "site" / "coverage.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["how"]] = counts.get(r["how"], 0) + 1
    summary = ", ".join(f"{n} {how}" for how, n in sorted(counts.items()))
    lines = ["# Coverage of the source notes", "",
             f"Every fact of the five source notes ({len(rows)} items) and where it went: {summary}. "
             "*claim* = asserted by the cited claims; *correction* = the note is wrong or outdated and the "
             "notebook shows it; *text* = explained without an assertion; *gpu* = a guarded GPU part; "
             "*planned* = its notebook is not written yet.", "",
             "| fact | note, lines | status in the notes | notebook | claims | how | detail |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        cites = " ".join(f"{r['notebook']}-{c}" for c in r["claims"].split())
        detail = (r["summary"] + (f" — {r['note']}" if r["note"] else "")).replace("|", "\\|")
        lines.append(f"| {r['fact']} | {r['seed']}:{r['lines']} | {r['status']} | {r['notebook']} | {cites} | "
                     f"{r['how']} | {detail} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "notebooks").mkdir(parents=True)
    if (ROOT / "figures").is_dir():
        shutil.copytree(ROOT / "figures", SRC / "figures")
    infos = [stage_notebook(p) for p in notebook_paths()]
    (SRC / "index.md").write_text(landing(infos), encoding="utf-8")
    (SRC / "claims.md").write_text(claims_page(infos), encoding="utf-8")
    (SRC / "coverage.md").write_text(coverage_page(), encoding="utf-8")
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(ROOT / "site"), str(SRC), str(HTML)]
    if args.strict:
        cmd.append("-W")
    result = subprocess.run(cmd)
    if result.returncode:
        print("site build FAILED", file=sys.stderr)
        return result.returncode
    print(f"site built in {time.perf_counter() - t0:.1f} s: {HTML / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
