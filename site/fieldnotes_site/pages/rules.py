"""``fieldnotes-rules``: the `fieldnotes check` rules, the claims that prove them, and how they measured."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

from docutils import nodes

from fieldnotes.check.rules import RULES

from ..base import MEASURED, rule_label
from ..docnodes import _Directive, block, emph, para, strong, table, text_nodes

#: The measurements, oldest first: the folder under ``fieldnotes/check/measured/`` that holds its
#: ``summary.json`` and ``sample.tsv``, its section title, and its column in the side-by-side table.
MEASUREMENTS = (
    ("", "1 · Measured on public code", "1 · first"),
    ("fresh", "2 · Again, on code the rules were not written against", "2 · fresh code"),
    ("fresh2", "3 · Fresh code, after the first fixes", "3 · fresh, after fixes 1"),
    ("fresh3", "4 · Fresh code, after the second fixes", "4 · fresh, after fixes 2"),
    ("fresh4", "5 · Fresh code, after the third fixes", "5 · fresh, after fixes 3"),
    ("fresh5", "6 · Fresh code, after the fourth fixes", "6 · fresh, after fixes 4"),
)


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
        runs = []  # (folder, section title, column title, summary) of each measurement there is
        for sub, title, column in MEASUREMENTS:
            folder = MEASURED / sub
            if (folder / "summary.json").exists():
                m = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
                runs.append((folder, title, column, m))
                out += self.measured(m, folder, title)
        if len(runs) > 1:
            out[-1] += self.compared(runs)
        return out

    def measured(self, m: dict, folder: Path, title: str) -> list[nodes.Node]:
        """The per-repository table and the labelled sample's precision."""
        sec = nodes.section(ids=[nodes.make_id(title)], names=[title.lower()])
        sec += nodes.title("", title)
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
        labelled = read_sample(folder)
        path = (folder / "sample.tsv").relative_to(MEASURED.parents[2]).as_posix()
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
                nodes.literal(path, path),
                refuri=f"{self.env.config.fieldnotes_repo_url}/blob/main/{path}",
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

    def compared(self, runs: list[tuple[Path, str, str, dict]]) -> nodes.section:
        """The measurements side by side, one column each: the labelled findings that are true (all, bug
        rules, deprecation rules, each rule), the recall on the idioms of issue 24 and TorchFix on the same
        files, where a measurement has them."""
        deprecation = set(runs[-1][3]["deprecation_rules"])
        samples = [read_sample(folder) for folder, *_ in runs]
        ms = [m for *_, m in runs]

        def true(keep: Callable[[str], bool]) -> list[str]:
            """'TP of labelled (precision)' in each sample, over the rules ``keep`` accepts."""
            out = []
            for sample in samples:
                labels = [r["label"] for r in sample if keep(r["rule"])]
                tp = labels.count("TP")
                out.append(f"{tp} of {len(labels)} ({tp / len(labels):.0%})" if labels else "none")
            return out

        def recall(m: dict, code: str) -> str:
            if code not in m.get("recall", {}):
                return "not measured"
            found = m["recall"][code]
            return f"{sum(i['caught'] for i in found)} of {len(found)} caught" if found else "no instance"

        def torchfix(m: dict) -> str:
            if "torchfix" not in m:
                return "not recorded"
            found = m["torchfix"]["findings"]
            by_rule = ", ".join(f"{c} {n}" for c, n in sorted(found.items()))
            return f"{sum(found.values())} ({by_rule})"

        def cpu(m: dict) -> str:
            ours = f"{sum(r['cpu_seconds'] for r in m['repos']):.1f} s"
            return f"{ours}; TorchFix {m['torchfix']['cpu_seconds']:.1f} s" if "torchfix" in m else ours

        rows: list[list] = [
            ["repositories, lines", *(f"{len(m['repos'])}, {m['totals']['lines']:,}" for m in ms)],
            # one process per repository: its start-up (~0.15 s) included, on a machine shared with others
            ["wall time per 10,000 lines", *(f"{m['totals']['seconds_per_10k_lines']:.2f} s" for m in ms)],
            [
                "CPU time per 10,000 lines",
                *(
                    f"{1e4 * sum(r['cpu_seconds'] for r in m['repos']) / m['totals']['lines']:.2f} s"
                    for m in ms
                ),
            ],
            ["labelled findings, true", *true(lambda code: True)],
            ["bug rules", *true(lambda code: code not in deprecation)],
            ["deprecation rules", *true(lambda code: code in deprecation)],
        ]
        for code in sorted({r["rule"] for sample in samples for r in sample}):
            rows.append([nodes.literal(code, code), *true(lambda c, code=code: c == code)])
        for code in dict.fromkeys(code for m in ms for code in m.get("recall", {})):
            rows.append([["recall ", nodes.literal(code, code)], *(recall(m, code) for m in ms)])
        version = next(m["torchfix"]["version"] for m in ms if "torchfix" in m)
        rows += [
            [f"TorchFix {version} findings", *(torchfix(m) for m in ms)],
            [
                "on the same line as ours",
                *(str(m["torchfix"]["overlap"]) if "torchfix" in m else "not recorded" for m in ms),
            ],
            ["CPU time", *(cpu(m) for m in ms)],
        ]
        sec = nodes.section(ids=["all-measurements"], names=["all measurements"])
        sec += nodes.title("", "All measurements")
        sec += para(
            "The labelled findings that are true, overall and per rule (bug rules: all but the "
            f"deprecated spellings, {', '.join(sorted(deprecation))}); then, where a measurement has them, "
            "the recall on the idioms real code uses (every instance a rule should catch, and whether it "
            "did, is listed in its summary.json) and TorchFix run on the same files.",
        )
        width = 72 // len(runs)
        sec += table(
            ["", *(column for _, _, column, _ in runs)],
            [(r, []) for r in rows],
            ["fn-compared"],
            [100 - width * len(runs), *[width] * len(runs)],
        )
        return sec


def read_sample(folder: Path) -> list[dict]:
    """The labelled findings of one measurement (``sample.tsv``)."""
    with open(folder / "sample.tsv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))
