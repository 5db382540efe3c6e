"""``fieldnotes-glossary``: the English–Chinese glossary, linked to the notebooks that use each term."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ..docnodes import _Directive, table, text_nodes


class GlossaryDirective(_Directive):
    """Chinese terms of the source notes, their English names and the notebooks that cover them."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for t in self.site.terms:
            links: list[Any] = []
            for num in t["notebooks"].split():
                nb = self.site.by_num.get(num)
                links += [self.nb_link(nb, num) if nb else f"{num} (planned)", ", "]
            zh = nodes.inline(t["zh"], t["zh"], classes=["fn-zh"])
            zh["lang"] = "zh"
            rows.append(([zh, t["en"], text_nodes(t["meaning"]), links[:-1]], []))
        headers = ["中文", "English", "meaning", "notebooks"]
        return [table(headers, rows, ["fn-glossary"], [12, 22, 48, 18])]
