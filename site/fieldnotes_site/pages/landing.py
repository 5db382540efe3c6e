"""``fieldnotes-summary`` and ``fieldnotes-notebooks``: the landing page's counts and its notebooks."""

from __future__ import annotations

from docutils import nodes

from fieldnotes.check.rules import RULES

from ..docnodes import _Directive, para, strong, table, text_nodes, xref


class SummaryDirective(_Directive):
    """The landing page's line of counts and links."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        n_err = len(s.errors())
        n_gpu = s.n_gpu_only
        return [
            para(
                strong(f"{s.n_claims + n_gpu} claims"),
                f" in {len(s.notebooks)} notebooks: {s.n_claims} verified on every test run, {n_gpu} "
                "that need CUDA (⊘ on a CPU runner; the GPU runs check those they can run) · ",
                xref(self.docname, "/claims", "claim ledger", "doc"),
                " · ",
                xref(self.docname, "/errors", "error index", "doc"),
                f" ({n_err} error messages: paste yours into the search box) · ",
                xref(self.docname, "/rules", "check your code", "doc"),
                f" ({len(RULES)} rules, each proved by a claim) · ",
                xref(self.docname, "/glossary", "glossary 术语表", "doc"),
                " (Chinese terms) · ",
                xref(self.docname, "/coverage", "coverage of the source notes", "doc"),
                " · ",
                xref(self.docname, "/changes", "what changed between torch versions", "doc"),
                f" ({len(s.matrix.cpu)} versions recorded)",
            )
        ]


class NotebooksDirective(_Directive):
    """The landing page's table of notebooks."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        rows = []
        for nb in s.notebooks:
            cids = [e.cid for e in nb.ledger + nb.skipped]
            gpu_only = len(nb.skipped)
            claims = f"{len(cids)}" + (f" ({gpu_only} GPU-only)" if gpu_only else "")
            gpu = s.matrix.gpu_summary(nb.stem, cids, short=True) or ["not run yet"]
            rows.append(
                (
                    [
                        self.nb_link(nb),
                        text_nodes(nb.meta.get("summary", "")),
                        claims,
                        s.matrix.cpu_span(nb.stem, cids),
                        "; ".join(gpu),
                    ],
                    [],
                )
            )
        headers = ["notebook", "what it settles", "claims", "CPU-run claims all hold on", "on a GPU"]
        return [table(headers, rows, ["fn-notebooks"], [20, 37, 12, 15, 16])]
