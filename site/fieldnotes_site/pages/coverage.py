"""``fieldnotes-coverage``: every fact of the source notes and where it went, one section per notebook."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

from ..docnodes import _Directive, emph, para, table, text_nodes


class CoverageDirective(_Directive):
    """Every fact of the source notes and where it went: one section per notebook, one row per fact."""

    def run(self) -> list[nodes.Node]:
        rows_by_nb: dict[str, list] = {}
        for r in self.site.coverage:
            rows_by_nb.setdefault(r["notebook"] or "—", []).append(r)
        counts: dict[str, int] = {}
        for r in self.site.coverage:
            counts[r["how"]] = counts.get(r["how"], 0) + 1
        meaning = {
            "claim": "asserted by the cited claims",
            "correction": "the note is wrong or outdated and the notebook shows it",
            "text": "explained without an assertion",
            "gpu": "a guarded GPU part",
            "left-out": "with the reason",
            "planned": "its notebook is not written yet",
        }
        legend: list[Any] = []
        for how in sorted(counts):
            legend += [emph(how), f" = {meaning.get(how, how)}; "]
        out: list[nodes.Node] = [
            para(
                f"Every fact of the five source notes ({len(self.site.coverage)} items) and where it went: "
                + ", ".join(f"{n} {how}" for how, n in sorted(counts.items()))
                + ". ",
                *legend[:-1],
                legend[-1].rstrip("; ") + ".",
            )
        ]
        for num in sorted(rows_by_nb):
            nb = self.site.by_num.get(num)
            sec = nodes.section(ids=[f"coverage-{num}"])
            sec += nodes.title("", "", self.nb_link(nb) if nb else nodes.Text("Not in a notebook"))
            rows = []
            for r in rows_by_nb[num]:
                fid = r["fact"].lower()
                anchor = nodes.reference("", r["fact"], refid=f"fact-{fid}", classes=["fn-anchor"])
                cites: list[Any] = []
                for c in r["claims"].split():
                    cites += [self.claim_link(num, c), " "]
                detail = text_nodes(r["summary"]) + (
                    [nodes.Text(" — "), *text_nodes(r["note"])] if r["note"] else []
                )
                rows.append(
                    (
                        [
                            [anchor, nodes.Text(f" {r['seed']}:{r['lines']}")],
                            r["status"],
                            cites,
                            r["how"],
                            detail,
                        ],
                        [f"fact-{fid}"],
                    )
                )
            headers = ["fact · note:lines", "in the notes", "claims", "how", "detail"]
            sec += table(headers, rows, ["fn-coverage"], [17, 11, 14, 9, 49])
            out.append(sec)
        return out

    _CITE = re.compile(r"\b(\d\d)-(C\d+)\b")

    def linked(self, parts: list[nodes.Node]) -> list[nodes.Node]:
        """Text nodes with every cited claim (``06-C12``) turned into a link to it."""
        out: list[nodes.Node] = []
        for part in parts:
            if not isinstance(part, nodes.Text):
                out.append(part)
                continue
            text, at = str(part), 0
            for m in self._CITE.finditer(text):
                out += [nodes.Text(text[at : m.start()]), self.claim_link(m[1], m[2])]
                at = m.end()
            out.append(nodes.Text(text[at:]))
        return out
