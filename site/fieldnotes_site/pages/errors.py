"""``fieldnotes-errors``: the error-message index, one row per error a notebook reproduces;
``fieldnotes-ranked-errors``: the most-reported errors readers hit, and where each is reproduced."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ..docnodes import _Directive, emph, para, table, xref
from ..notebook_page import section_label
from ..ranked import coverage, load_ranked


class ErrorsDirective(_Directive):
    """The error index: one row per reproduced error, linking to the cell that reproduces it."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for e in self.site.errors():
            msg = e.shown
            nb = self.site.by_num[e.num]
            where = xref(self.docname, e.anchor, f"{e.num} · {e.section or nb.title}".replace("`", ""))
            claim: list[Any] = [self.claim_link(e.num, e.claim)] if e.claim else ["—"]
            if e.gpu_only:
                claim.append(emph(" (needs CUDA: reproduced on a GPU; the CPU test run skips it)"))
            message: list[Any] = [msg]
            if e.kind == "asserted" and e.statement:  # the part checked is often short: the claim says more
                message += [nodes.inline("", f" — {e.statement}", classes=["fn-note"])]
            # "message": the notebook checks the text alone and names no class (a warning, a logged line)
            error: Any = nodes.literal(e.ename, e.ename) if e.ename != "message" else "—"
            rows.append(([error, message, e.kind, claim, where], []))
        headers = ["error", "message", "kind", "claim", "where"]
        return [table(headers, rows, ["fn-errors"], [14, 46, 9, 11, 20])]


_STATUS_TEXT = {
    "reproducible": "not reproduced yet (it can be, on a CPU)",
    "environment": "not reproducible here: depends on the install, driver or hardware",
    "multi-gpu": "not reproducible here: needs two or more GPUs",
}


class RankedErrorsDirective(_Directive):
    """The most-reported errors (site/errors_ranked.tsv): rank, message, how many public threads report it
    (with links to them), where a notebook reproduces it, cause and fix; above the table, the share of
    threads whose message the notebooks reproduce."""

    def run(self) -> list[nodes.Node]:
        rows_in = load_ranked()
        total = sum(r.threads for r in rows_in)
        cov = coverage(rows_in)
        shares = [
            f"{label} {cov[s][0]} messages ({100 * cov[s][1] / total:.0f} % of the threads)"
            for s, label in (
                ("reproduced", "reproduced on the CPU:"),
                ("gpu", "reproduced on a GPU:"),
                ("reproducible", "not yet reproduced:"),
                ("environment", "environment-only:"),
                ("multi-gpu", "several GPUs:"),
            )
        ]
        intro = para(f"{len(rows_in)} messages, {total} thread reports. " + "; ".join(shares) + ".")
        rows = []
        for r in rows_in:
            links: list[Any] = [str(r.threads), " ("]
            for k, url in enumerate(r.urls):
                links += [", " if k else "", nodes.reference("", str(k + 1), refuri=url)]
            links.append(")")
            if r.where:
                label = section_label(r.notebook, r.section)
                where: list[Any] = [xref(self.docname, label, r.where)]
                if r.status == "gpu":
                    where.append(emph(" (on a GPU)"))
            else:
                where = [emph(_STATUS_TEXT[r.status])]
            message: list[Any] = [nodes.literal(r.message, r.message)]
            message += [nodes.inline("", f" {r.cause} Fix: {r.fix}", classes=["fn-note"])]
            rows.append(([str(r.rank), message, links, where], [f"ranked-{r.rank}"]))
        return [
            intro,
            table(
                ["#", "message, cause and fix", "threads", "reproduced in"],
                rows,
                ["fn-ranked"],
                [5, 63, 12, 20],
            ),
        ]
