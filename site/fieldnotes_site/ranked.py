"""The most-reported PyTorch errors (``site/errors_ranked.tsv``): what readers hit, counted in public threads,
and where a notebook reproduces each. The error index renders it; tests keep it consistent with the notebooks.

The file: ``# `` comment lines (source, date, method), a header row, then one row per message (see
:data:`COLUMNS`). ``where`` is ``NN §N.M`` for a message a notebook reproduces (``reproduced``) or reproduces
under a GPU guard (``gpu``), and empty otherwise.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from .base import SITE

RANKED = SITE / "errors_ranked.tsv"
COLUMNS = (
    "rank",
    "message",
    "variants",
    "threads",
    "urls",
    "cause",
    "fix",
    "status",
    "where",
    "torch_2_13_message",
)
#: reproduced: a notebook asserts it on the CPU; gpu: only under a GPU guard; reproducible: not yet in a
#: notebook but reproduced here on the CPU; environment: needs an install, driver or hardware (the cause
#: names it); multi-gpu: needs two or more GPUs.
STATUSES = ("reproduced", "gpu", "reproducible", "environment", "multi-gpu")
WHERE_RE = re.compile(r"^(\d\d) §(\d+(?:\.\d+)?)$")
_TYPE_PREFIX = re.compile(r"^[\w.]*(Error|Warning|Exception)\w*: ")


@dataclass(frozen=True)
class RankedError:
    """One row of the ranked list."""

    rank: int
    message: str
    variants: tuple[str, ...]
    threads: int
    urls: tuple[str, ...]
    cause: str
    fix: str
    status: str
    where: str
    torch_2_13_message: str

    @property
    def notebook(self) -> str:
        """``16`` for ``16 §13.4``; empty when no notebook reproduces the message."""
        return WHERE_RE.match(self.where)[1] if self.where else ""

    @property
    def section(self) -> str:
        """``13.4`` for ``16 §13.4``; empty when no notebook reproduces the message."""
        return WHERE_RE.match(self.where)[2] if self.where else ""

    def fragments(self, shortest: int = 12) -> list[str]:
        """The message's fixed parts (what is left between its ``<placeholders>`` and ``…`` elisions, the
        exception type left out), each at least ``shortest`` characters."""
        if shortest < 1:
            raise ValueError(f"shortest must be positive, got {shortest}")
        text = _TYPE_PREFIX.sub("", self.message)
        parts = (p.strip(" .,:;()[]'\"") for p in re.split(r"<[^<>]*>|…", text))
        return [p for p in parts if len(p) >= shortest]


def parse_ranked(text: str) -> list[RankedError]:
    """Rows of the ranked list from the file's text; a clear ``ValueError`` (with the line) on a bad row."""
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    if not lines:
        raise ValueError("errors_ranked.tsv: no header row")
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader)
    if tuple(header) != COLUMNS:
        raise ValueError(f"errors_ranked.tsv: header must be {COLUMNS}, got {tuple(header)}")
    rows: list[RankedError] = []
    for n, cells in enumerate(reader, start=2):
        if len(cells) != len(COLUMNS):
            raise ValueError(f"errors_ranked.tsv row {n}: {len(cells)} fields, expected {len(COLUMNS)}")
        f = dict(zip(COLUMNS, cells))
        if not f["rank"].isdigit() or not f["threads"].isdigit() or int(f["threads"]) < 1:
            raise ValueError(f"errors_ranked.tsv row {n}: rank and threads must be positive integers")
        if f["status"] not in STATUSES:
            raise ValueError(f"errors_ranked.tsv row {n}: status {f['status']!r} not in {STATUSES}")
        reproduced = f["status"] in ("reproduced", "gpu")
        if reproduced != bool(f["where"]) or (f["where"] and not WHERE_RE.match(f["where"])):
            raise ValueError(
                f"errors_ranked.tsv row {n}: 'where' must be 'NN §N.M' exactly when the status is "
                f"reproduced or gpu, got {f['where']!r} ({f['status']})"
            )
        urls = tuple(f["urls"].split())
        if not 1 <= len(urls) <= 5 or not all(u.startswith(("https://", "http://")) for u in urls):
            raise ValueError(f"errors_ranked.tsv row {n}: 1 to 5 thread URLs (http or https) expected")
        rows.append(
            RankedError(
                rank=int(f["rank"]),
                message=f["message"].strip(),
                variants=tuple(v.strip() for v in f["variants"].split(" || ") if v.strip()),
                threads=int(f["threads"]),
                urls=urls,
                cause=f["cause"].strip(),
                fix=f["fix"].strip(),
                status=f["status"],
                where=f["where"],
                torch_2_13_message=f["torch_2_13_message"].strip(),
            )
        )
    if [r.rank for r in rows] != list(range(1, len(rows) + 1)):
        raise ValueError("errors_ranked.tsv: ranks must run 1, 2, 3, … in file order")
    if any(a.threads < b.threads for a, b in zip(rows, rows[1:])):
        raise ValueError("errors_ranked.tsv: rows must be ranked by thread count, most first")
    return rows


def load_ranked(path: Path = RANKED) -> list[RankedError]:
    """The committed ranked list."""
    return parse_ranked(path.read_text(encoding="utf-8"))


def coverage(rows: list[RankedError]) -> dict[str, tuple[int, int]]:
    """Status -> (rows, threads): how much of what readers hit the notebooks reproduce."""
    return {
        s: (sum(r.status == s for r in rows), sum(r.threads for r in rows if r.status == s)) for s in STATUSES
    }
