"""What every part of the site reads: its paths, the labels of claim and rule targets, the TSV tables of
site/ (glossary, coverage), the `fieldnotes check` rules each claim backs."""

from __future__ import annotations

import csv
from pathlib import Path

from sphinx.util import logging

from fieldnotes.check.rules import RULES

logger = logging.getLogger(__name__)


ROOT = Path(__file__).resolve().parents[2]


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


def read_tsv(name: str) -> list[dict[str, str]]:
    with open(SITE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def claim_label(num: str, cid: str) -> str:
    """The target of a claim's cell on its notebook page, e.g. ``claim-16-c10``."""
    return f"claim-{num}-{cid.lower()}"


def check_label(num: str, cid: str) -> str:
    """The target of the cell that asserts a claim (its ✔ line below it), e.g. ``check-16-c10``; the claim's
    own target (:func:`claim_label`) is the heading of the section that teaches it."""
    return f"check-{num}-{cid.lower()}"


def rule_label(code: str) -> str:
    """The target of a `fieldnotes check` rule on the rules page, e.g. ``rule-fnc018``."""
    return f"rule-{code.lower()}"


#: A `fieldnotes check` rule's code -> its one-line title (what it finds).
RULE_TITLES: dict[str, str] = {r.code: r.title for r in RULES}


def rules_by_claim() -> dict[str, list[str]]:
    """``NN-Cn`` -> the codes of the rules that cite it (the claim proves what the rule finds)."""
    out: dict[str, list[str]] = {}
    for r in RULES:
        out.setdefault(r.claim, []).append(r.code)
    return out
