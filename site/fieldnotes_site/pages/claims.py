"""``fieldnotes-claims``: the claim ledger, one section per notebook, one row per claim with its versions."""

from __future__ import annotations

from docutils import nodes

from helpers.claims import REFERENCE_KINDS

from ..base import minor, rules_by_claim
from ..docnodes import _Directive, emph, para, strong, table, xref


class ClaimsDirective(_Directive):
    """The claim ledger: one section per notebook, one row per claim with its version grid."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        versions = ", ".join(minor(r.torch) for r in s.matrix.cpu) or "none yet"
        legend = (
            '<span class="fn-v fn-pass"></span> held, <span class="fn-v fn-fail"></span> failed, '
            '<span class="fn-v fn-not-reached"></span> not reached (an earlier cell failed), '
            '<span class="fn-v fn-skipped"></span> skipped (needs CUDA)'
        )
        out: list[nodes.Node] = [
            para(
                strong(f"{s.n_claims} verified claims."),
                " ",
                emph("Torch versions"),
                f" ({versions}, oldest left): one cell per recorded release, ",
                nodes.raw("", legend, format="html"),
                "; hover a cell for the version and the error. ",
                emph("GPU"),
                ": from recorded GPU runs (",
                nodes.literal("site/verification/", "site/verification/"),
                "); not run until one is recorded. ",
                emph("FNC"),
                " codes beside a claim: the ",
                xref(self.docname, "/rules", "fieldnotes check rules", "doc"),
                " that claim proves.",
            )
        ]
        for nb in s.notebooks:
            sec = nodes.section(ids=[f"claims-{nb.num}"], names=[f"claims-{nb.num}"])
            sec += nodes.title("", "", self.nb_link(nb))
            self.label(f"claims-{nb.num}", f"claims of {nb.num}")
            rows = []
            backs = rules_by_claim()
            for e, status in nb.entries():
                cid = f"{nb.num}-{e.cid}"
                rules = [[" ", self.rule_link(code)] for code in backs.get(cid, [])]
                rows.append(
                    (
                        [
                            [self.claim_link(nb.num, e.cid), *rules],
                            s.matrix.grid(nb.stem, e.cid),
                            s.matrix.gpu_cell(nb.stem, e.cid),
                            status,
                            e.statement,  # as printed: backticks and quotes are part of it
                            [emph(REFERENCE_KINDS[e.kind]), ": ", e.reference],
                        ],
                        [f"ledger-{cid.lower()}"],
                    )
                )
            headers = ["claim", s.matrix.header(), "GPU", "stored run", "statement", "checked against"]
            sec += table(headers, rows, ["fn-claims"], [10, 22, 8, 9, 30, 21])
            out.append(sec)
        return out
