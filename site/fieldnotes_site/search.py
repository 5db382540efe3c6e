"""Search: Chinese-mode indexing with the browser's own Porter stemmer, and the error index that
_static/fieldnotes-search.js matches a pasted error message against."""

from __future__ import annotations

from sphinx.search.zh import SearchChinese

from tools.notebooks import (
    ANSI_RE,
)

from . import porter
from .data import SiteData


class SearchChinesePorter(SearchChinese):
    """Chinese search whose English words are stemmed exactly as the browser stems the query.

    Sphinx's Chinese indexer stems English words with Snowball "english" (Porter2), and keeps a word whole
    when its stem would be shorter than 3 letters, while the search page stems queries with Martin Porter's
    JavaScript stemmer and no such rule: words such as ``weights_only`` or ``eps`` were indexed under keys
    the search box never asks for. Here the index stems with a port of that JavaScript (.porter).
    """

    def stem(self, word: str) -> str:
        return porter.stem(word.lower())


def error_records(site: SiteData) -> list[dict[str, str]]:
    """The error index as the search page reads it (one record per entry)."""
    out = []
    for e in site.errors():
        nb = site.by_num[e.num]
        out.append(
            {
                "anchor": e.anchor,
                "page": f"{e.docname}.html",
                "num": e.num,
                "title": nb.title,
                "section": e.section,
                "ename": e.ename,
                "message": ANSI_RE.sub("", e.message).strip(),
                "kind": e.kind,
                "claim": f"{e.num}-{e.claim}" if e.claim else "",
                "statement": e.statement,
                "gpu_only": e.gpu_only,
            }
        )
    return out
