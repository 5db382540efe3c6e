"""The coverage table (site/coverage.tsv) accounts for every fact F001–F473 of the source notes.

Each row says where the fact went: a claim, a correction, text only, a GPU-guarded part, left out
(with a reason), or still planned for a notebook that does not exist yet.
"""

from __future__ import annotations

import csv
import functools

import pytest

from tools.notebooks import NB_DIR, ROOT, ledger, read, skipped

HOWS = {"claim", "correction", "text", "gpu", "left-out", "planned"}
NEEDS_CLAIM = {"claim", "correction", "gpu"}


def rows() -> list[dict[str, str]]:
    with open(ROOT / "site" / "coverage.tsv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@functools.cache
def claim_ids() -> dict[str, set[str]]:
    out = {}
    for path in NB_DIR.glob("[0-9][0-9]_*.ipynb"):
        nb = read(path)
        out[path.name[:2]] = {e.cid for e in ledger(nb)} | {e.cid for e in skipped(nb)}
    return out


def test_every_fact_is_listed_once():
    ids = [r["fact"] for r in rows()]
    assert ids == [f"F{i:03d}" for i in range(1, 474)], "coverage.tsv must list F001..F473 once, in order"


@pytest.mark.parametrize("row", rows(), ids=lambda r: r["fact"])
def test_row_is_consistent(row):
    existing = claim_ids()
    how, nb, claims = row["how"], row["notebook"], row["claims"].split()
    assert how in HOWS, f"{row['fact']}: unknown how {how!r}"
    if how == "planned":
        assert nb not in existing, (
            f"{row['fact']}: notebook {nb} exists, so this fact must be mapped, not planned"
        )
        return
    if how == "left-out" and nb == "--":  # no natural home in the catalogue
        assert row["note"], f"{row['fact']}: say why it is left out"
        return
    assert nb in existing, f"{row['fact']}: notebook {nb} does not exist"
    if how in NEEDS_CLAIM and how != "gpu":
        assert claims, f"{row['fact']}: '{how}' needs at least one claim id"
    if how == "left-out":
        assert row["note"], f"{row['fact']}: say why it is left out"
    for cid in claims:
        assert cid in existing[nb], f"{row['fact']}: {nb}-{cid} is not a claim of notebook {nb}"
