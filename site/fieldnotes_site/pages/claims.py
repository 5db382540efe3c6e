"""``fieldnotes-claims``: the claim ledger, one compact row per claim that opens to its evidence.

A row shows the claim's id (linked to the section that teaches and checks it), its statement and its version
grid; opened, it says what the check compared with, the stored run, the GPU runs, and on which torch releases
it held or failed (with the error), in words a touch screen can read. A filter bar (``fieldnotes-ledger.js``)
narrows the rows by notebook, outcome, release and words.
"""

from __future__ import annotations

from html import escape

from docutils import nodes

from helpers.claims import REFERENCE_KINDS

from ..base import SYMBOL, check_label, minor, rules_by_claim
from ..docnodes import _Directive, emph, para, strong, text_nodes, xref
from ..records import Matrix

#: What a recorded result is called on the page (and in the outcome filter).
WORDS = {
    "pass": "held",
    "fail": "failed",
    "not reached": "not reached",
    "skipped": "skipped",
    None: "not recorded",
}


def outcome_spans(matrix: Matrix, stem: str, cid: str) -> list[tuple[str, str, str]]:
    """Consecutive CPU releases with the same result, as ``(result word, "2.0–2.4", detail)``; a failure's
    detail is its error, a stale record says it ran an earlier revision."""
    spans: list[list[str]] = []
    for rec, res in matrix.results(stem, cid):
        word = "could not run" if rec.status != "ran" else WORDS[res.result if res else None]
        detail = "" if rec.status != "ran" else (res.detail if res and res.result != "pass" else "")
        if matrix.stale(rec, stem):
            detail = (detail + "; " if detail else "") + "recorded for an earlier revision of the notebook"
        v = minor(rec.torch)
        if spans and spans[-1][0] == word and spans[-1][3] == detail:
            spans[-1][2] = v
        else:
            spans.append([word, v, v, detail])
    return [(w, a if a == b else f"{a}–{b}", d) for w, a, b, d in spans]


def _attr(value: str) -> str:
    return escape(value, quote=True)


class ClaimsDirective(_Directive):
    """The claim ledger: a filter bar, then one section per notebook of compact claim rows."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        releases = [minor(r.torch) for r in s.matrix.cpu]
        n_gpu = s.n_gpu_only
        legend = (
            '<span class="fn-v fn-pass"></span> held · <span class="fn-v fn-fail"></span> failed · '
            '<span class="fn-v fn-not-reached"></span> not reached (an earlier cell failed) · '
            '<span class="fn-v fn-skipped"></span> skipped (needs CUDA) · '
            '<span class="fn-v fn-nr"></span> not recorded · '
            '<span class="fn-v fn-pass fn-stale"></span> faded: recorded for an earlier revision of the '
            "notebook"
        )
        out: list[nodes.Node] = [
            para(
                strong(f"{s.n_claims + n_gpu} claims: {s.n_claims} verified on every test run"),
                f" and {n_gpu} that need CUDA (⊘ on a CPU runner; a row's GPU runs say where they held). "
                "Each row is one claim: "
                "its id (a link to the section that teaches and checks it), its statement, and a grid "
                "with one cell per recorded torch release (CPU runs), oldest left "
                f"({', '.join(releases) or 'none yet'}): ",
                nodes.raw("", legend, format="html"),
                ". Open a row (click or tap it) for what the check compared with, a link to the cell that "
                "checks it, the GPU runs, and on which releases it held or failed, with the error. ",
                emph("FNC"),
                " codes: the ",
                xref(self.docname, "/rules", "fieldnotes check rules", "doc"),
                " a claim proves.",
            ),
            nodes.raw("", self.filter_bar(s, releases), format="html"),
        ]
        backs = rules_by_claim()
        for nb in s.notebooks:
            sec = nodes.section(
                ids=[f"claims-{nb.num}"], names=[f"claims-{nb.num}"], classes=["fn-ledger-nb"]
            )
            sec += nodes.title("", "", self.nb_link(nb))
            self.label(f"claims-{nb.num}", f"claims of {nb.num}")
            for e, status in nb.entries():
                sec.extend(self.row(nb, e, status, backs.get(f"{nb.num}-{e.cid}", [])))
            out.append(sec)
        none = '<p class="fn-ledger-none" hidden>No claim matches these filters.</p>'
        out.append(nodes.raw("", none, format="html"))
        return out

    def filter_bar(self, s, releases: list[str]) -> str:  # noqa: ANN001 - SiteData
        def select(name: str, label: str, options: list[tuple[str, str]]) -> str:
            opts = "".join(f'<option value="{_attr(v)}">{escape(t)}</option>' for v, t in options)
            return f'<label>{label} <select name="{name}">{opts}</select></label>'

        notebooks = [("", "all notebooks")] + [(nb.num, nb.title) for nb in s.notebooks]
        outcomes = [("", "any outcome")] + [(w, w) for w in ("held", "failed", "not reached", "skipped")]
        versions = [("", "any release")] + [(v, f"torch {v}") for v in releases]
        return (
            '<form class="fn-ledger-filter" role="search" onsubmit="return false">'
            + select("nb", "Notebook", notebooks)
            + select("outcome", "Outcome", outcomes)
            + select("release", "on", versions)
            + '<label>Words <input type="search" name="q" placeholder="e.g. 05-C3, dropout, eval"></label>'
            + '<output class="fn-ledger-count"></output></form>'
        )

    def row(self, nb, e, status: str, rules: list[str]) -> list[nodes.Node]:  # noqa: ANN001
        s = self.site
        cid = f"{nb.num}-{e.cid}"
        results = []
        for rec, res in s.matrix.results(nb.stem, e.cid):
            word = "could not run" if rec.status != "ran" else WORDS[res.result if res else None]
            results.append(f"{minor(rec.torch)}:{word}")
        gpu = s.matrix.gpu_cell(nb.stem, e.cid)
        opened = f'<details class="fn-row" id="ledger-{cid.lower()}" data-nb="{nb.num}" ' + (
            f'data-cid="{_attr(cid)}" data-results="{_attr("|".join(results))}" '
            f'data-stored="{"skipped" if status.startswith("⊘") else "held"}"><summary>'
        )
        head = nodes.inline(classes=["fn-row-head"])
        head += self.claim_link(nb.num, e.cid)
        head += nodes.Text(" ")
        head += s.matrix.grid(nb.stem, e.cid)
        statement = nodes.inline(classes=["fn-row-statement"])
        statement += nodes.Text(e.statement)  # as printed: backticks and quotes are part of it
        # the rules a claim proves after its statement: every statement starts at the same column
        codes = nodes.inline("", "", *[self.rule_link(code) for code in rules], classes=["fn-row-rules"])
        body = nodes.container(classes=["fn-row-body"])
        body += para(emph("Checked against "), emph(REFERENCE_KINDS[e.kind]), ": ", *text_nodes(e.reference))
        mark = "⊘" if status.startswith("⊘") else "✔"
        body += para(
            xref(self.docname, check_label(nb.num, e.cid), "Open the cell that checks it"),
            f" (its {mark} line).",
        )
        body += para(
            emph("Stored run"),
            f" (pinned torch, CPU): {status}. ",
            emph("GPU"),
            ": ",
            gpu if gpu != "not run" else "not run yet",
            " (",
            ", ".join(f"{r.device}, torch {r.build or r.torch}" for r in s.matrix.gpu) or "no GPU record",
            ").",
        )
        spans = outcome_spans(s.matrix, nb.stem, e.cid)
        if spans:
            items = nodes.bullet_list(classes=["fn-row-versions"])
            for word, span, detail in spans:
                sym = {"held": SYMBOL["pass"], "failed": SYMBOL["fail"], "skipped": SYMBOL["skipped"]}.get(
                    word, "·"
                )
                text = f"{sym} torch {span}: {word}" + (f" — {detail[:400]}" if detail else "")
                items += nodes.list_item("", nodes.paragraph("", text))
            body += items
        return [
            nodes.raw("", opened, format="html"),
            head,
            statement,
            *([codes] if rules else []),
            nodes.raw("", "</summary>", format="html"),
            body,
            nodes.raw("", "</details>", format="html"),
        ]
