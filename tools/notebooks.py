"""The one owner of the project's notebook formats, for every tool and test.

* **Discovery** — :func:`notebook_paths`, :data:`NAME_RE`.
* **The ledger** — the line format is printed *and* parsed in :mod:`helpers.claims` (notebooks import
  it); :func:`ledger`, :func:`skipped` and :func:`claim_cells` read it from stored outputs with those parsers.
* **Notebook metadata** (``metadata.fieldnotes``) — :func:`metadata`, :func:`stamp_metadata`,
  :func:`metadata_problems`, :func:`source_hash`.
* **The setup cell** every notebook opens its code with — :func:`setup_cell_source` (from
  :func:`repo_url`, pyproject.toml's ``[project.urls] Repository``), :func:`setup_cell_index`.
* **The layout** a reader sees (DESIGN.md, "Notebook anatomy") — :func:`layout_problems`, the check
  cells (:func:`is_check_cell`, :func:`fold_cell`, :data:`CHECK_TAGS`), :func:`hide_cell`.
* **The verification record** — :class:`VerificationRecord` (one schema for a CPU run, a GPU run and
  each torch version of the matrix), :func:`claim_results` (stored notebook + executed copy -> one
  result per claim), :func:`output_mismatches` (the cells whose compared outputs differ, as nbval
  compares them), :func:`load_records`.

Nothing here imports ``tests/``.
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from helpers.claims import SKIP_RE, LedgerEntry, parse_ledger, parse_skips

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
RECORD_DIR = ROOT / "site" / "verification"
NAME_RE = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
CLAIM_ITEM_RE = re.compile(r"^- \*\*(C\d+)\*\* ", re.M)


# ----------------------------------------------------------------------------------------- discovery
def notebook_paths() -> list[Path]:
    """Every notebook of the series, in reading order."""
    return sorted(p for p in NB_DIR.glob("*.ipynb"))


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


# ------------------------------------------------------------------------------------- the setup cell
def repo_url() -> str:
    """The project's repository (pyproject.toml ``[project.urls] Repository``): Colab links, setup cells."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["urls"]["Repository"].rstrip("/")


def setup_cell_source(url: str | None = None) -> str:
    """The first code cell of every notebook: makes ``import helpers`` work where the notebook runs.

    In the project's environment ``helpers`` is importable and the cell does nothing. On Colab it installs
    the project from its repository (``git+URL``, with the ``colab`` extra: the packages some notebooks
    import that Colab lacks); ``FIELDNOTES_INSTALL`` names another pip source (a wheel, a clone) anywhere.
    Elsewhere, or when pip fails, it stops with a message that says what to do. Its lines fit the
    notebooks' 88 columns and it is formatted as ruff formats notebook cells.
    """
    url = url or repo_url()
    return f"""\
# Setup (the same in every notebook): `import helpers` works after this cell.
# In the project's environment (`make lab`) it does nothing; on Colab it installs
# the project from its repository first.
import importlib
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("helpers") is None:
    on_colab = "google.colab" in sys.modules
    repo = "git+{url}"
    source = os.environ.get("FIELDNOTES_INSTALL") or (
        f"pytorch-field-notes[colab] @ {{repo}}" if on_colab else ""
    )
    if not source:
        raise ModuleNotFoundError(
            "No module named 'helpers': start Jupyter in the project's environment "
            "(make lab), or set FIELDNOTES_INSTALL to a pip source of the project"
        )
    pip = [sys.executable, "-m", "pip", "install", "--quiet", source]
    if subprocess.run(pip).returncode:
        raise RuntimeError(
            f"pip could not install the project from {{source!r}} (its message is "
            "above): set FIELDNOTES_INSTALL to a pip source of it, such as a clone"
        )
    importlib.invalidate_caches()"""


def setup_cell_index(nb: nbformat.NotebookNode) -> int | None:
    """Index of the notebook's setup cell (its first code cell, when that is the setup cell), else None."""
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), None)
    if first is not None and nb.cells[first].source.startswith("# Setup (the same in every notebook)"):
        return first
    return None


# ------------------------------------------------------------------------------------- the layout
#: Widest code line a reader sees (DESIGN.md, "Notebook anatomy"); notebooks/.ruff.toml holds ruff to it.
MAX_LINE = 88
#: A check cell: folded on the site (MyST-NB's ``hide-input``; ``check`` styles its toggle) and collapsed
#: in JupyterLab (``metadata.jupyter.source_hidden``); its ✔ lines stay visible under it.
CHECK_TAGS = ("hide-input", "check")
_CHECK_CALL_RE = re.compile(r"(?<![\w.])(claim|claim_close|claim_raises|skip)\(")
#: Sections that close every notebook and carry no number.
CLOSING_SECTIONS = ("Corrections", "Takeaways", "References")
_SECTION_RE = re.compile(r"^## (\d+) \S")
_SUBSECTION_RE = re.compile(r"^### (\d+)\.(\d+) \S")
_CLAIM_ID_RE = re.compile(r"\bC\d+\b")


def is_check_cell(cell: nbformat.NotebookNode) -> bool:
    """A code cell that calls a claim check, or whose stored output has a ✔/⊘ ledger line."""
    if cell.cell_type != "code":
        return False
    text = _cell_stdout(cell)
    return bool(_CHECK_CALL_RE.search(cell.source) or parse_ledger(text) or parse_skips(text))


def fold_cell(cell: nbformat.NotebookNode) -> None:
    """Make ``cell`` a folded check: tags :data:`CHECK_TAGS`, input collapsed in JupyterLab."""
    tags = cell.metadata.setdefault("tags", [])
    tags.extend(t for t in CHECK_TAGS if t not in tags)
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True


def hide_cell(cell: nbformat.NotebookNode, remove: bool = False) -> None:
    """Hide boilerplate: on the site its input behind a toggle (``remove``: the whole cell, for one with no
    output), in JupyterLab its input collapsed."""
    tag = "remove-cell" if remove else "hide-input"
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True


def _folded(cell: nbformat.NotebookNode, tags: tuple[str, ...]) -> bool:
    return set(tags) <= set(cell.metadata.get("tags", [])) and bool(
        cell.metadata.get("jupyter", {}).get("source_hidden")
    )


def headings(nb: nbformat.NotebookNode) -> list[str]:
    """Every ``##``/``###`` heading line of the markdown cells, in order (fenced code skipped)."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        fenced = False
        for line in cell.source.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and line.startswith(("## ", "### ")):
                out.append(line.rstrip())
    return out


def layout_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What breaks the notebook anatomy (DESIGN.md): an empty list when the page reads lesson first."""
    problems = []
    intro = nb.cells[0].source if nb.cells else ""
    if "**What you will learn**" not in intro:
        problems.append("the first cell has no **What you will learn**")
    if "**Claims**" in intro and not re.search(r"<details>.*\*\*Claims\*\*.*</details>", intro, re.S):
        problems.append("the claim list of the first cell is not folded in <details>")
    section = sub = 0
    for line in headings(nb):
        if _CLAIM_ID_RE.search(line):
            problems.append(f"a heading names claim ids (they are labels, not headings): {line!r}")
        m, n = _SECTION_RE.match(line), _SUBSECTION_RE.match(line)
        if line.startswith("## ") and line[3:].strip() not in CLOSING_SECTIONS:
            if not m or int(m.group(1)) != section + 1:
                problems.append(f"expected section '## {section + 1} Title', got {line!r}")
            section, sub = section + 1, 0
        elif line.startswith("### "):
            if not n or (int(n.group(1)), int(n.group(2))) != (section, sub + 1):
                problems.append(f"expected '### {section}.{sub + 1} Title', got {line!r}")
            sub += 1
    if section == 0:
        problems.append("no numbered section ('## 1 Title')")
    setup = setup_cell_index(nb)
    if setup is not None and not _folded(nb.cells[setup], ("remove-cell",)):
        problems.append("the setup cell is not hidden (tools/anatomy.py --fix)")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if is_check_cell(cell) and not _folded(cell, CHECK_TAGS):
            problems.append(f"cell {i} checks a claim but is not folded (tools/anatomy.py --fix)")
        if "check" in cell.metadata.get("tags", []) and not is_check_cell(cell):
            problems.append(f"cell {i} is folded as a check but checks no claim")
        for k, line in enumerate(cell.source.splitlines(), 1):
            if len(line) > MAX_LINE:
                problems.append(f"cell {i} line {k} has {len(line)} > {MAX_LINE} characters")
        if is_check_cell(cell):  # the ledger lines: folded, and long by design
            continue
        # (an uncaught error stays verbatim: its exact message feeds the site's error index, and the site
        # wraps long output lines)
        for line in _cell_stdout(cell).splitlines():
            if len(line) > MAX_LINE:  # print it wrapped, at word boundaries
                problems.append(f"cell {i} prints a line of {len(line)} > {MAX_LINE} characters")
                break
    return problems


# ----------------------------------------------------------------------------------------- the ledger
def _cell_stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(
        out.get("text", "")
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream" and out.get("name") == "stdout"
    )


def stdout_lines(nb: nbformat.NotebookNode):
    """Yield (cell index, line) for every stdout line stored in the notebook."""
    for i, cell in enumerate(nb.cells):
        for line in _cell_stdout(cell).splitlines():
            yield i, line


def _stdout(nb: nbformat.NotebookNode) -> str:
    return "\n".join(line for _, line in stdout_lines(nb))


def ledger(nb: nbformat.NotebookNode) -> list[LedgerEntry]:
    """Every verified claim (✔ line) stored in the notebook's outputs."""
    return parse_ledger(_stdout(nb))


def skipped(nb: nbformat.NotebookNode) -> list[LedgerEntry]:
    """Every claim that printed a skip line (⊘, e.g. needs CUDA) in the stored outputs."""
    return parse_skips(_stdout(nb))


def claim_cells(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Claim id -> index of the cell that printed its ✔ or ⊘ line."""
    out: dict[str, int] = {}
    for i, cell in enumerate(nb.cells):
        text = _cell_stdout(cell)
        for entry in parse_ledger(text) + parse_skips(text):
            out.setdefault(entry.cid, i)
    return out


def listed_claims(nb: nbformat.NotebookNode) -> list[str]:
    """Claim ids from the **Claims** list in the first markdown cell."""
    return CLAIM_ITEM_RE.findall(nb.cells[0].source)


# ----------------------------------------------------------------------------------------- metadata
META_KEY = "fieldnotes"
ALLOWED_NEEDS = {"cpu", "gpu", "multi-gpu"}


def metadata(nb: nbformat.NotebookNode) -> dict:
    """The notebook's ``metadata.fieldnotes`` (empty dict when absent)."""
    return dict(nb.metadata.get(META_KEY, {}))


def source_hash(nb: nbformat.NotebookNode) -> str:
    """Hash of what a reader edits: cell types, sources and tags (not outputs). The setup cell is left out:
    it is the same in every notebook (the hygiene test holds it to :func:`setup_cell_source`) and checks
    nothing, so adding or changing it does not make the recorded runs of the claims stale."""
    h = hashlib.sha256()
    skip = setup_cell_index(nb)
    for i, cell in enumerate(nb.cells):
        if i == skip:
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        h.update(json.dumps([cell.cell_type, cell.source, sorted(tags)]).encode())
    return h.hexdigest()[:16]


def stamp_metadata(
    nb: nbformat.NotebookNode,
    seconds: float,
    *,
    torch_version: str,
    python: str,
    device: str,
    date: str | None = None,
) -> dict:
    """Write what an execution established into ``metadata.fieldnotes`` and return it."""
    if seconds < 0:
        raise ValueError(f"seconds must be >= 0, got {seconds}")
    meta = nb.metadata.setdefault(META_KEY, {})
    meta.setdefault("needs", ["cpu"])
    meta["expected_duration_s"] = max(5, int(round(seconds / 5.0 + 0.5)) * 5)
    meta["source_hash"] = source_hash(nb)
    meta["last_verified"] = {
        "date": date or dt.date.today().isoformat(),
        "torch": torch_version,
        "python": python,
        "device": device,
    }
    return meta


def metadata_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What is missing or wrong in ``metadata.fieldnotes`` (empty list: fine)."""
    meta = metadata(nb)
    if not meta:
        return ["metadata.fieldnotes missing (run `make execute`)"]
    problems = []
    needs = meta.get("needs")
    if not needs or not set(needs) <= ALLOWED_NEEDS:
        problems.append(f"needs must be a non-empty subset of {sorted(ALLOWED_NEEDS)}, got {needs!r}")
    if not isinstance(meta.get("expected_duration_s"), int) or meta["expected_duration_s"] > 60:
        problems.append(f"expected_duration_s must be an int <= 60, got {meta.get('expected_duration_s')!r}")
    if not meta.get("summary"):
        problems.append("one-line summary missing")
    last = meta.get("last_verified", {})
    if not re.match(r"^\d{4}-\d\d-\d\d$", last.get("date", "")):
        problems.append("last_verified.date missing")
    if not (last.get("torch") and last.get("python") and last.get("device")):
        problems.append("last_verified needs torch, python and device")
    if meta.get("source_hash") != source_hash(nb):
        problems.append("sources changed since the stored outputs were produced; run `make execute`")
    return problems


# ----------------------------------------------------------------------------------------- records
#: What a claim can come out as in one verification run.
RESULTS = ("pass", "fail", "not reached", "skipped")
RECORD_SCHEMA = 1


@dataclass(frozen=True)
class ClaimResult:
    result: str  # one of RESULTS
    detail: str = ""  # the error for "fail", why for "not reached" / "skipped"

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, got {self.result!r}")


def scrub_paths(text: str) -> str:
    """Replace this machine's paths (environment, repository, temporary and home folders) with placeholders,
    so a record names no install location."""
    import sys
    import tempfile

    places = (
        (sys.prefix, "<env>"),
        (str(ROOT), "<repo>"),
        (tempfile.gettempdir(), "<tmp>"),
        (str(Path.home()), "~"),
    )
    for path, placeholder in places:
        if len(path) > 1:
            text = text.replace(path, placeholder)
    return text


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters keeping its start and its end (a claim's error opens with the
    statement and ends with the detail that says why it failed)."""
    if limit < 10:
        raise ValueError(f"limit must be at least 10, got {limit}")
    if len(text) <= limit:
        return text
    head = limit * 2 // 5
    return text[:head] + " … " + text[-(limit - head - 3) :]


def _error_of(cell: nbformat.NotebookNode) -> str | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            evalue = " ".join(str(out.get("evalue", "")).split())
            return shorten(scrub_paths(f"{out.get('ename', 'Error')}: {evalue}"), 300)
    return None


#: Terminal colour codes (tracebacks, some error messages): stripped before text is stored or shown.
ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")
#: The most a record keeps of one cell's printed output (GPU runs: see :func:`skipped_claim_outputs`).
OUTPUT_CHARS = 2000


def skipped_claim_outputs(stored: nbformat.NotebookNode, run: nbformat.NotebookNode) -> dict[str, str]:
    """Claim id -> what its cell printed in ``run``, for the claims ``stored`` shows as skipped (⊘).

    A CPU runner stores only the skip line of a GPU-guarded cell; a GPU run keeps the numbers that cell
    printed there (timings, messages, memory figures), so the page can show them under the cell. Machine
    paths are scrubbed; at most :data:`OUTPUT_CHARS` characters are kept (the end, where the ✔ line is)."""
    if len(run.cells) != len(stored.cells):
        raise ValueError("the executed copy must have the stored notebook's cells")
    skipped_ids = {e.cid for e in skipped(stored)}
    out: dict[str, str] = {}
    for cid, i in claim_cells(stored).items():
        if cid not in skipped_ids:
            continue
        text = scrub_paths(ANSI_RE.sub("", _cell_stdout(run.cells[i]))).strip()
        if text:
            out[cid] = text if len(text) <= OUTPUT_CHARS else "…" + text[-(OUTPUT_CHARS - 1) :]
    return out


#: nbval's sanitizers (the same file ``make test`` passes with --nbval-sanitize-with; read as data).
SANITIZE_CFG = ROOT / "tests" / "nbval_sanitize.cfg"
#: What nbval leaves out of a comparison (its defaults, images included).
_NOT_COMPARED = {"metadata", "traceback", "prompt_number", "output_type", "name", "execution_count"}
_NOT_COMPARED |= {"application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg"}


def output_compared(cell: nbformat.NotebookNode) -> bool:
    """Whether nbval compares this code cell's outputs (not an ignore-output or skipped cell)."""
    tags = set(cell.get("metadata", {}).get("tags", []))
    first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
    markers = {"# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP"}
    return (
        cell.cell_type == "code"
        and not tags & {"nbval-ignore-output", "nbval-skip"}
        and (first.strip() not in markers)
    )


def output_mismatches(
    stored: nbformat.NotebookNode, run: nbformat.NotebookNode, sanitize: Path = SANITIZE_CFG
) -> list[int]:
    """Indices of the cells whose outputs ``run`` (an executed copy) printed differently from ``stored``,
    compared as ``pytest --nbval`` compares them: the cells it compares (:func:`output_compared`), streams
    merged, its sanitizers applied, images and metadata left out. The version matrix records them: a stored
    output must read the same on every torch release the site says it was verified on."""
    from nbval.plugin import coalesce_streams, get_sanitize_patterns, transform_streams_for_comparison

    if len(run.cells) != len(stored.cells):
        raise ValueError("the executed copy must have the stored notebook's cells")
    patterns = get_sanitize_patterns(sanitize.read_text(encoding="utf-8")) if sanitize.is_file() else []

    def clean(value):
        if not isinstance(value, str):
            return value
        for regex, replace in patterns:
            value = re.sub(regex, replace, value)
        return value

    def flat(outputs) -> dict[str, list]:
        by_key: dict[str, list] = {}
        merged = coalesce_streams([nbformat.from_dict(o) for o in outputs])
        for out in transform_streams_for_comparison(merged):
            for key, value in out.items():
                if key in _NOT_COMPARED:
                    continue
                items = value.items() if key == "data" else [(key, value)]
                for k, v in items:
                    if k not in _NOT_COMPARED:
                        by_key.setdefault(k, []).append(clean(v))
        return by_key

    return [
        i
        for i, (ref, new) in enumerate(zip(stored.cells, run.cells))
        if output_compared(ref) and flat(ref.get("outputs", [])) != flat(new.get("outputs", []))
    ]


def bound_names(source: str) -> set[str]:
    """The names a code cell binds in the notebook's namespace: assignments, imports, ``def``/``class``,
    loop and ``with`` targets (not the locals of its functions or comprehensions). IPython magic lines are
    ignored; a cell that does not parse binds nothing as far as this can tell."""
    code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    scoped = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(child.name)
                continue
            if isinstance(child, scoped):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, ast.alias):
                names.add((child.asname or child.name).split(".")[0])
            elif isinstance(child, ast.ExceptHandler) and child.name:
                names.add(child.name)
            visit(child)

    visit(tree)
    return names


def claim_results(
    stored: nbformat.NotebookNode, run: nbformat.NotebookNode | None, failure: str | None = None
) -> dict[str, ClaimResult]:
    """One result per claim of ``stored`` (its ✔ and ⊘ lines), read from ``run``, an executed copy.

    ``run`` executed with errors allowed: a claim that printed ✔ passed, ⊘ was skipped. A claim whose
    cell raised failed with that error — unless the error is a ``NameError`` after an earlier cell
    failed, or another claim's check that stopped the cell first: then the claim was never really tried
    ("not reached"; its detail names the failed cell that binds the missing name, else the first failed
    cell, with that cell's error). Cells the run never got to
    (``failure``: the kernel died or timed out) leave their claims "not reached".
    """
    cells = claim_cells(stored)
    results: dict[str, ClaimResult] = {}
    printed_pass: set[str] = set()
    printed_skip: dict[str, str] = {}
    first_failed: int | None = None
    errors: dict[int, str] = {}
    if run is not None:
        if len(run.cells) != len(stored.cells):
            raise ValueError("the executed copy must have the stored notebook's cells")
        printed_pass = {e.cid for e in ledger(run)}
        for _, line in stdout_lines(run):
            skip_line = SKIP_RE.match(line)  # helpers.claims owns the format: group 1 the id, 5 the reason
            if skip_line:
                printed_skip[skip_line.group(1)] = skip_line.group(5)
        for i, cell in enumerate(run.cells):
            err = _error_of(cell) if cell.cell_type == "code" else None
            if err:
                errors[i] = err
                first_failed = i if first_failed is None else first_failed
    for cid, i in sorted(cells.items(), key=lambda kv: (kv[1], int(kv[0][1:]))):
        if cid in printed_pass:
            results[cid] = ClaimResult("pass")
        elif cid in printed_skip:
            results[cid] = ClaimResult("skipped", printed_skip[cid])
        elif i in errors:
            err = errors[i]
            other = re.match(r"ClaimError: (C\d+) FAILED", err)
            if err.startswith("NameError") and first_failed is not None and first_failed < i:
                missing = re.search(r"name '(\w+)' is not defined", err)
                binders = [
                    k
                    for k in errors
                    if k < i and missing and missing.group(1) in bound_names(run.cells[k].source)
                ]
                k = binders[-1] if binders else first_failed
                results[cid] = ClaimResult(
                    "not reached", f"needs cell {k}, which failed ({shorten(errors[k], 160)})"
                )
            elif other and other.group(1) != cid:
                results[cid] = ClaimResult(
                    "not reached", f"its cell stopped at {other.group(1)}, which failed"
                )
            else:
                results[cid] = ClaimResult("fail", err)
        elif run is None or failure:
            results[cid] = ClaimResult("not reached", failure or "the notebook did not run")
        else:
            results[cid] = ClaimResult("fail", "its cell ran but printed no ledger line")
    return results


@dataclass
class VerificationRecord:
    """Which claims held in one run: a CPU or GPU runner, or one torch version of the matrix.

    Written as ``site/verification/<label>.json``; the site shows one column per record.
    """

    label: str  # e.g. "torch-2.15.0-cpu", "torch-2.11.0-cuda-h100"
    torch: str  # the version asked for, e.g. "2.15.0"
    device: str  # "cpu" or the GPU's name
    date: str
    python: str = ""
    build: str = ""  # torch.__version__ as installed, and CUDA version if any
    status: str = "ran"  # "ran", or why the version could not run at all
    pins: dict[str, str] = field(default_factory=dict)  # packages whose version differs from the lock
    seconds: float = 0.0
    #: stem -> {"seconds", "failure", "error_cells", "source_hash", "output_mismatches"}
    notebooks: dict[str, dict] = field(default_factory=dict)
    claims: dict[str, dict[str, dict]] = field(default_factory=dict)  # stem -> cid -> ClaimResult as dict
    schema: int = RECORD_SCHEMA
    #: stem -> cid -> what the cell printed, for the claims a CPU runner skips (GPU runs only; optional)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z0-9][a-z0-9.+-]*$", self.label):
            raise ValueError(f"label must be lowercase letters, digits, '.', '+', '-': {self.label!r}")
        if not re.match(r"^\d+\.\d+(\.\d+)?", self.torch):
            raise ValueError(f"torch must be a version like 2.15.0, got {self.torch!r}")
        for stem, per in self.claims.items():
            for cid, res in per.items():
                ClaimResult(**res)  # validates

    @property
    def is_gpu(self) -> bool:
        return self.device != "cpu"

    def set_results(self, stem: str, results: dict[str, ClaimResult]) -> None:
        self.claims[stem] = {cid: asdict(r) for cid, r in results.items()}

    def result(self, stem: str, cid: str) -> ClaimResult | None:
        res = self.claims.get(stem, {}).get(cid)
        return ClaimResult(**res) if res else None

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(RESULTS, 0)
        for per in self.claims.values():
            for res in per.values():
                out[res["result"]] += 1
        return out

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, ensure_ascii=False, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> VerificationRecord:
        data = json.loads(text)
        if data.get("schema") != RECORD_SCHEMA:
            raise ValueError(f"unknown verification record schema {data.get('schema')!r}")
        return cls(**data)

    def save(self, directory: Path = RECORD_DIR) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.label}.json"
        path.write_text(self.to_json(), encoding="utf-8")
        return path


def version_key(version: str) -> tuple[int, ...]:
    """Sort key for "2.9.1" < "2.10.0"."""
    return tuple(int(x) for x in re.findall(r"\d+", version.split("+")[0])[:3])


def load_records(directory: Path = RECORD_DIR) -> list[VerificationRecord]:
    """Every record in ``directory``: CPU versions oldest first, then GPU runs."""
    recs = [
        VerificationRecord.from_json(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))
    ]
    return sorted(recs, key=lambda r: (r.is_gpu, version_key(r.torch), r.label))
