"""``fieldnotes-errors``: the error-message index, one row per error a notebook reproduces."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from tools.notebooks import (
    ANSI_RE,
)

from ..docnodes import _Directive, emph, table, xref


class ErrorsDirective(_Directive):
    """The error index: one row per reproduced error, linking to the cell that reproduces it."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for e in self.site.errors():
            text = ANSI_RE.sub("", e.message).strip()
            msg = text.splitlines()[0] if text else "(message varies)"
            nb = self.site.by_num[e.num]
            where = xref(self.docname, e.anchor, f"{e.num} · {e.section or nb.title}".replace("`", ""))
            claim: list[Any] = [self.claim_link(e.num, e.claim)] if e.claim else ["—"]
            if e.gpu_only:
                claim.append(emph(" (needs CUDA: skipped on the CPU runner)"))
            message: list[Any] = [msg]
            if e.kind == "asserted" and e.statement:  # the part checked is often short: the claim says more
                message += [nodes.inline("", f" — {e.statement}", classes=["fn-note"])]
            rows.append(([nodes.literal(e.ename, e.ename), message, e.kind, claim, where], []))
        headers = ["error", "message", "kind", "claim", "where"]
        return [table(headers, rows, ["fn-errors"], [14, 46, 9, 11, 20])]
