"""``fieldnotes-rules``: the `fieldnotes check` rules, the claims that prove them, and how they measured."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from docutils import nodes

from fieldnotes.check.rules import RULES

from ..base import MEASURED, rule_label
from ..docnodes import _Directive, block, emph, para, strong, table, text_nodes


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
